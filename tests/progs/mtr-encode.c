/*
 * Test tool: event text (or a trace) in, a .mtr trace out, a frame every
 * N records with -n N.  Builds fixtures for mt-decode and the fuzzer.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mt.h"

int
main(int argc, char *argv[])
{
	struct trace_writer *w;
	struct mt_reader *r;
	struct mt_event ev;
	unsigned long every = 0, n = 0;

	mt_setprogname(argv[0]);
	if (argc > 2 && strcmp(argv[1], "-n") == 0) {
		every = strtoul(argv[2], NULL, 10);
		argc -= 2;
		argv += 2;
	}
	if (!(r = reader_open(argc > 1 ? argv[1] : NULL)))
		return 1;
	w = trace_writer_new(STDOUT_FILENO, 3);
	while (reader_next(r, &ev)) {
		trace_write(w, &ev);
		if (every && ++n % every == 0)
			trace_flush(w);
	}
	reader_close(r);
	return trace_writer_free(w) || mt_status;
}
