/* pairspill: a pairer past its memory budget, for pair.c and pairrun.c. */
#ifndef MT_PAIRSPILL_H
#define MT_PAIRSPILL_H

#include <stdint.h>
#include "pair.h"

/*
 * Past its budget a pairer routes the blocks of its tables, and every
 * later allocation and free of them, to partitions in TMPDIR (a hash of
 * the address picks one); each partition is then paired alone, its
 * lifetimes written to a run in the order of the records that ended
 * them; and the inputs are read again from the record where routing
 * began, each lifetime taken from its run at its record, so that what
 * comes out and its order are those of pairing in memory.
 */
enum pair_mode {
	PAIR_MEMORY,		/* paired in memory */
	PAIR_ROUTE,		/* blocks routed to partitions; nothing said */
	PAIR_REPLAY,		/* read again: lifetimes from the runs */
};

/* Records counted from the first input's first: a lifetime's place. */
#define SEQ_FINISH (UINT64_C(1) << 62)	/* pairer_finish's k'th image end: + k */

struct pair_spill;

/* pair.c: what a pairer warns of, said or handed to its defer callback. */
enum { PAIR_DOUBLE = 1, PAIR_BEFORE, PAIR_LIVE };
void pairer_warn(struct mt_pairer *p, int kind, uint64_t addr, uint64_t a, uint64_t b, uint64_t c);
void pairer_defer(struct mt_pairer *p, void (*fn)(void *, int, uint64_t, uint64_t, uint64_t,
    uint64_t), void *arg);

/* pairroute.c, for pairspill.c: a partition's pairer told what the record says. */
enum pair_mode pairer_mode(const struct mt_pairer *p);
void pairer_temp_given(struct mt_pairer *p, int known, uint64_t ts);
void pairer_freed(struct mt_pairer *p, int32_t pid, struct mt_str heap, uint64_t addr,
    uint64_t alloc_ts, uint64_t free_ts);
struct mt_str pairer_heap(const struct mt_pairer *p, unsigned heap);
unsigned pairer_heap_id(struct mt_pairer *p, struct mt_str heap);
void pairer_replayed(struct mt_pairer *p, const struct mt_life *l);	/* counted, to the callback */
int pid_cmp(const void *a, const void *b);	/* int32_t pids, for qsort */
struct mt_pair_stats *pairer_stats_rw(struct mt_pairer *p);

/* pairroute.c, for pairrun.c */
uint64_t pairer_budget_of(const struct mt_pairer *p);
uint64_t pairer_tick(struct mt_pairer *p);	/* the record read now: its seq */
int pairer_read_all(const struct mt_pairer *p);	/* read again as far as the first time */
void pairer_seq(struct mt_pairer *p, uint64_t seq);
int pairer_over(struct mt_pairer *p, const struct mt_event *ev);	/* its block passes the budget */
void pairer_spill(struct mt_pairer *p);	/* from this record on: routed */
void pairer_route(struct mt_pairer *p, const struct mt_event *ev);
int pairer_skip(struct mt_pairer *p);	/* read again: a record before routing began */
void pairer_pair_spilled(struct mt_pairer *p);	/* the partitions paired; read again next */

/* pairspill.c */
struct pair_spill *spill_new(void);
/* A block of a partition: an allocation or free at seq, or one live as routing began. */
void spill_block(struct pair_spill *s, uint64_t seq, const struct mt_event *ev, unsigned heap,
    int temp_known, uint64_t temp_ts);
void spill_freed(struct pair_spill *s, int32_t pid, unsigned heap, uint64_t addr,
    uint64_t alloc_ts, uint64_t free_ts);
void spill_end(struct pair_spill *s, uint64_t seq, int32_t pid, int exit, uint64_t ts);
void spill_lost(struct pair_spill *s, uint64_t seq, uint64_t n);
/* Router's own record of processes: 1 when pid's image had begun already. */
int spill_proc(struct pair_spill *s, int32_t pid);
void spill_table_pid(struct pair_spill *s, int32_t pid);
void spill_finish_routes(struct pair_spill *s);	/* pairer_finish's image ends, in its order */
void spill_pair(struct pair_spill *s, struct mt_pairer *parent);
/* The lifetimes of the record seq to the parent: one partition's, or (part < 0) every one's. */
void spill_replay(struct pair_spill *s, struct mt_pairer *p, uint64_t seq, int part);
unsigned spill_part(int32_t pid, unsigned heap, uint64_t addr);
uint64_t spill_left(struct pair_spill *s);
void spill_free(struct pair_spill *s);

#endif
