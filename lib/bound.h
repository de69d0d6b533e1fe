/* bound: A trace kept within a size. */
#ifndef MT_BOUND_H
#define MT_BOUND_H

#include <stdint.h>
#include "trace.h"

/* mtr/bound.c: a trace kept within a size, sequential or circular */
struct trace_bound;
struct trace_bound *bound_new(struct trace_writer *w, int fd, uint64_t max, int circular);
/* Before each trace_write: 0 when the record is not to be written. */
int bound_admit(struct trace_bound *b, const struct mt_event *ev);
/* Before trace_end: the lost records and, circular, the frames kept. */
int bound_finish(struct trace_bound *b);
uint64_t bound_lost(const struct trace_bound *b);	/* events not kept */
void bound_free(struct trace_bound *b);

#endif
