/* sink: A filter's output. */
#ifndef MT_SINK_H
#define MT_SINK_H

#include "event.h"
#include "out.h"
#include "reader.h"
#include "trace.h"
#include "pair.h"

/* sink.c: a filter's output, event text or (binary) a .mtr stream */
/*
 * Between programs on one machine compressing costs more than it saves:
 * one of zstd's fast levels, not so fast that small streams grow.
 */
#define MT_SINK_LEVEL (-15)

struct sink_queue;
struct mt_sink {
	struct mt_out out;
	struct trace_writer *w;
	struct sink_queue *q;	/* sink_thread(): the records waiting for it */
};
void sink_init(struct mt_sink *s, int fd, int binary);
/*
 * From now on the records are formatted or encoded, compressed and
 * written by a thread of the sink's own, in their order, while the
 * caller makes the next ones.  0, or -1 (no thread: the caller does it).
 */
int sink_thread(struct mt_sink *s);
void sink_put(struct mt_sink *s, const struct mt_event *ev);	/* a record made */
/* A record read from r, unchanged (its own line when text). */
void sink_pass(struct mt_sink *s, struct mt_reader *r, const struct mt_event *ev);
/* The pairer's lifetime, class cls (0-3), as a life record. */
void sink_life(struct mt_sink *s, const struct mt_life *l, unsigned cls, int64_t impact);
int sink_finish(struct mt_sink *s);	/* 0, or 1 with the error said */

#endif
