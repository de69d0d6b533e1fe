/* libFuzzer: the .mtr decoder on any bytes must not crash, hang or leak. */
#include <stdint.h>
#include <stdlib.h>

#include "mt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace_reader *r = trace_reader_new(-1, data, size);
	struct mt_event ev;
	char buf[1 << 16];
	size_t n;

	while (trace_read(r, &ev) == 1) {
		n = event_format_size(&ev);
		if (n <= sizeof(buf))
			event_format(&ev, buf, sizeof(buf));
	}
	trace_reader_free(r);
	return 0;
}
