/* pairint: The pairer's insides, for pair.c and pairroute.c. */
#ifndef MT_PAIRINT_H
#define MT_PAIRINT_H

#include "pairspill.h"
#include "pairtab.h"

#define HEAPS_MAX 4096

/* A live range of a mapping heap (mmap, reserve): pieces end alone. */
struct range {
	uint64_t lo, hi;
	uint64_t ts, stack;
	int32_t pid, tid;
	uint16_t heap;
	uint8_t flags;
};

/* Recently freed addresses, to tell a double free: a cache, not a set. */
#define FREED_SLOTS (1u << 16)
struct freed {
	uint64_t addr, alloc_ts, free_ts;
	int32_t pid;
	uint16_t heap;
	uint8_t used;
};

struct mt_pairer {
	void (*emit)(const struct mt_life *, void *);
	void *arg;
	struct u64map tables;	/* pid: its struct btable */
	struct btable *last;	/* looked up last */
	struct range *ranges;	/* sorted by (pid, heap, lo) */
	size_t nranges, rangecap;
	const char *heapname[HEAPS_MAX];	/* mt_heap_names' own, or a copy */
	size_t heaplen[HEAPS_MAX];
	uint8_t heapcopy[HEAPS_MAX];
	int known_id[3];	/* of mt_heap_names' heaps, or -1 */
	uint8_t range_heap[HEAPS_MAX];	/* mmap, reserve: freed by range */
	size_t nheaps;
	int64_t *seen;		/* pids whose image has begun */
	size_t nseen, seencap;
	struct freed *freed;
	struct mt_reader *input;	/* for the file and line of a warning */
	uint64_t free_stack;	/* of the free being paired, or UINT64_MAX */
	int temporary;		/* the free being paired ends a temporary */
	struct u64map threads;	/* pid << 32 | tid: its last allocation */
	struct last_alloc *last_thread;	/* looked up last */
	int32_t *tids;		/* a struct last_alloc's thread: its tid */
	size_t ntids, tidcap;
	uint64_t base;		/* blocks' times count from the first's */
	int based;
	struct wide *wide;	/* the blocks kept wide */
	size_t nwide, widecap, widefree;	/* free: the first unused + 1, or 0 */
	struct mt_pair_stats stats;
	uint64_t lost;		/* events the input says were lost, so far */
	uint64_t unsaid;	/* double frees of this input counted, not said */
	/* Past the budget (pairspill.h says how). */
	uint64_t budget;	/* bytes of tables at most; 0: no bound */
	uint64_t held;		/* bytes of tables now */
	uint64_t seq;		/* the record being paired */
	uint64_t reads;		/* records read so far, of every input */
	uint64_t first_reads;	/* read again: those the first reading read */
	uint64_t routed;	/* the first record routed, with mode */
	uint64_t routed_unsaid, routed_lost;	/* unsaid and lost then */
	enum pair_mode mode;
	struct pair_spill *spill;
	void (*defer)(void *, int, uint64_t, uint64_t, uint64_t, uint64_t);	/* pairer_warn's */
	void *defer_arg;
	int temp_known;		/* a partition's free: whether its thread's last */
	uint64_t temp_ts;	/* allocation was of its address, and when */
};

/* Double frees said one by one, with their line, before the rest are counted. */
#define DOUBLES_SAID 10

/*
 * A thread's last allocation: a block freed by that thread before it
 * allocates again is temporary (heaptrack's definition).
 */
struct last_alloc {
	int32_t pid, tid;
	uint64_t addr, ts;
	unsigned heap;
	uint32_t thread;	/* its index in mt_pairer's tids */
};

/* What a block holds beside its address and heap. */
struct held {
	uint64_t ts, size, stack;
	int32_t tid;
};

/* A block's held values that do not fit in its struct block. */
struct wide {
	struct held v;
	size_t next;		/* unused: the next unused + 1, or 0 */
};

struct last_alloc *last_alloc_slow(struct mt_pairer *p, int64_t pid, int64_t tid);
struct btable *table_slow(struct mt_pairer *p, int32_t pid, int create);
unsigned heap_id_slow(struct mt_pairer *p, struct mt_str h);

static inline struct last_alloc *
last_alloc(struct mt_pairer *p, int64_t pid, int64_t tid)
{
	struct last_alloc *l = p->last_thread;

	if (l && l->pid == pid && l->tid == tid)
		return l;
	return last_alloc_slow(p, pid, tid);
}

/* The table of pid's blocks; with create 0, NULL when it has none. */
static inline struct btable *
table_of(struct mt_pairer *p, int32_t pid, int create)
{
	if (p->last && p->last->pid == pid)
		return p->last;
	return table_slow(p, pid, create);
}

/* Two calls a record: malloc, named by the library's bytes, inline. */
static inline unsigned
heap_id(struct mt_pairer *p, struct mt_str h)
{
	if (h.s == mt_heap_names[0].s && p->known_id[0] >= 0)
		return (unsigned)p->known_id[0];
	return heap_id_slow(p, h);
}

/* Blocks: open addressing with backward-shift deletion, no tombstones. */
/* The held values of b, a block in use. */
static inline struct held
block_held(const struct mt_pairer *p, const struct block *b)
{
	if (b->wide)
		return p->wide[b->ts].v;
	return (struct held){ b->ts == BLOCK_TS_NONE ? UINT64_MAX : p->base + b->ts, b->size,
	    b->stack == BLOCK_BIG ? UINT64_MAX : b->stack, p->tids[b->thread] };
}

/* b no longer in use: what it kept wide, unused. */
static inline void
block_drop(struct mt_pairer *p, const struct block *b)
{
	if (b->wide) {
		p->wide[b->ts].next = p->widefree;
		p->widefree = b->ts + 1;
	}
}

static inline struct freed *
freed_slot(struct mt_pairer *p, int64_t pid, uint64_t addr)
{
	return &p->freed[hash64(addr ^ (uint64_t)pid << 40) & (FREED_SLOTS - 1)];
}

#endif
