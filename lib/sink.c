/*
 * sink.c: where a filter's records go: event text, or with --binary a
 * .mtr stream, which the next filter reads as fast as a trace (no text
 * to format and parse again between them).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mt.h"

/*
 * Between programs on one machine: compressing costs more than it saves.
 * One of zstd's fast levels: the python trace's 14M lifetimes are 85 MB
 * (77 MB at -3, 979 MB as text), and the -b pipeline 2.5% faster than
 * at -3; -50 made small streams of mostly text records half again as big.
 */
#define SINK_LEVEL (-15)

void
sink_init(struct mt_sink *s, int fd, int binary)
{
	memset(s, 0, sizeof(*s));
	if (binary)
		s->w = trace_writer_new(fd, SINK_LEVEL);
	else
		out_init(&s->out, fd, 1 << 20);
}

void
sink_put(struct mt_sink *s, const struct mt_event *ev)
{
	size_t n;

	if (s->w) {
		trace_write(s->w, ev);
		return;
	}
	n = event_format_size(ev);
	out_commit(&s->out, event_format(ev, out_reserve(&s->out, n), n));
}

void
sink_pass(struct mt_sink *s, struct mt_reader *r, const struct mt_event *ev)
{
	if (s->w)
		trace_write(s->w, ev);
	else
		reader_write(r, &s->out);
}

int
sink_finish(struct mt_sink *s)
{
	int error;

	if (!s->w)
		return out_finish(&s->out);
	error = trace_end(s->w);
	trace_writer_free(s->w);
	s->w = NULL;
	if (error)
		fprintf(stderr, "%s: stdout: %s\n", mt_progname, strerror(error));
	return error != 0;
}
