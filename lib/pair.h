/* pair: Allocations paired with their frees. */
#ifndef MT_PAIR_H
#define MT_PAIR_H

#include <stdint.h>
#include "event.h"
#include "reader.h"

/*
 * pair.c: allocations paired with their frees per (pid, heap, address)
 * into lifetimes, handed to emit when they end; mt-lifetime(1) says how.
 */
struct mt_life {
	uint64_t ta, tf;	/* UINT64_MAX: before recording / never freed */
	int32_t pid, tid;	/* tid < 0: unknown */
	struct mt_str heap;
	uint64_t addr, size, stack;	/* size, stack UINT64_MAX: unknown */
	const char *fate;	/* survivors: "exit" or "end"; else NULL */
	uint64_t free_stack;	/* the free's stack (mt-record -F); UINT64_MAX: none */
	int temporary;		/* freed by its thread before it allocated again */
};
struct mt_pair_stats {
	uint64_t lives, exit, live, before, doubles;
	uint64_t unseen;	/* blocks allocated again: their free was not seen */
};
struct mt_pairer;
struct mt_pairer *pairer_new(void (*emit)(const struct mt_life *, void *), void *arg);
void pairer_input(struct mt_pairer *p, struct mt_reader *r);	/* names warnings */
void pairer_lost(struct mt_pairer *p, uint64_t n);	/* a lost line: its count */
void pairer_alloc(struct mt_pairer *p, const struct mt_event *ev);
/* Before pairer_alloc or pairer_free of ev, some records ahead: its probe's memory. */
void pairer_prefetch(struct mt_pairer *p, const struct mt_event *ev);
void pairer_free(struct mt_pairer *p, const struct mt_event *ev);
/* A proc line at ts: an exec ends the old image. */
void pairer_proc(struct mt_pairer *p, int64_t pid, uint64_t ts);
/* pid's image ended at ts (UINT64_MAX: still running as the trace ended):
   its survivors end there, with the fate. */
void pairer_image_end(struct mt_pairer *p, int64_t pid, const char *fate, uint64_t ts);
void pairer_finish(struct mt_pairer *p);	/* the survivors at the end */
const struct mt_pair_stats *pairer_stats(const struct mt_pairer *p);
void pairer_free_all(struct mt_pairer *p);
/* pairrun.c: an input through the pairer; other records to other(). */
struct pair_hooks {
	void (*alloc)(const struct mt_event *ev, void *arg);	/* before the pairer's */
	void (*free)(const struct mt_event *ev, void *arg);	/* before the pairer's */
	void (*other)(struct mt_reader *r, struct mt_event *ev, void *arg);
	void *arg;
};
int pairer_run(struct mt_pairer *p, struct mt_reader *r, const struct pair_hooks *h);
/*
 * The inputs (none: stdin) through the pairer, in order; past a budget
 * of bytes of blocks (pairer_budget; 0: none) through partitions in
 * TMPDIR and read again, stdin or a pipe from a copy there.  Then
 * pairer_finish.
 */
void pairer_budget(struct mt_pairer *p, uint64_t bytes);
int pairer_run_all(struct mt_pairer *p, char **paths, int n, const struct pair_hooks *h);
/* Said unless quiet: whether the budget was passed, and where. */
void pairer_say_spill(const struct mt_pairer *p, int quiet);

#endif
