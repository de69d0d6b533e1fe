/* libFuzzer: the event text parser on any line, then format and re-parse. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mt_parser p;
	struct mt_event ev;
	char *line = malloc(size + 1), *out;
	size_t n;

	if (memchr(data, '\n', size) || memchr(data, '\0', size)) {
		free(line);
		return 0;
	}
	memcpy(line, data, size);
	line[size] = '\0';
	parser_init(&p);
	if (event_parse(&p, line, size, &ev) == 0) {
		n = event_format_size(&ev);
		out = malloc(n);
		event_format(&ev, out, n);
		free(out);
	}
	parser_free(&p);
	free(line);
	return 0;
}
