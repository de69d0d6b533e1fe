/* pairtab: The table of a process's live blocks, for pair.c. */
#ifndef MT_PAIRTAB_H
#define MT_PAIRTAB_H

#include <stddef.h>
#include <stdint.h>
#include "bits.h"

/*
 * A live block of a heap freed by address (malloc, kernel caches...), in
 * 24 bytes: the table holds every live block, so its size is the
 * pairer's.  What does not fit (a time 2^49 ns after the first, a size or
 * stack id of 2^24 or more, the 65535th thread) is kept wide, in a side
 * array that pair.c indexes by ts.
 */
#define BLOCK_TS_NONE	((UINT64_C(1) << 49) - 1)
#define BLOCK_BIG	((UINT64_C(1) << 24) - 1)	/* a size or stack: wide; a stack: or none */
#define BLOCK_THREADS	0xffff

struct block {
	uint64_t addr;
	uint64_t used : 2;	/* 2: still to move (block_rehome) */
	uint64_t heap : 12;
	uint64_t wide : 1;
	uint64_t ts : 49;	/* since the pairer's base; BLOCK_TS_NONE: none */
	uint64_t size : 24;
	uint64_t stack : 24;	/* BLOCK_BIG: none */
	uint64_t thread : 16;	/* pair.c's index of its (pid, tid) */
};

/*
 * A process's live blocks, a table of its own: the end of its image
 * walks only its blocks and drops the table, not every process's.
 */
struct btable {
	struct block *blocks;
	size_t n, cap;
	int32_t pid;
	int seen;		/* its image has begun: in mt_pairer's seen */
	uint64_t walked, probes;	/* slots walked, probes: since made */
	uint8_t scattered;	/* homes by hash, not in address order */
	uint8_t crowded;	/* probes walked too far: scatter */
};

/* Blocks: open addressing with backward-shift deletion, no tombstones. */
/*
 * The home slot keeps the order of addresses within a process and heap:
 * blocks made and freed near each other in memory, as allocators hand
 * them out, sit near each other in the table too, and a probe finds its
 * cache line warm (a python trace pairs in half the time of a hashed
 * home).  Distinct 16-byte granules of one heap never share a home unless
 * they lie a whole table apart.
 *
 * But blocks denser than one a granule (8-byte kernel objects), or
 * spanning more than the table (6M blocks 32 bytes apart in 8M slots),
 * fill whole stretches of it: every deletion in them walked the stretch,
 * and pairing became quadratic (1M blocks 16 bytes apart freed in order
 * did not finish in an hour).  A table whose probes walk too far is
 * scattered: a block's home is then a hash of its 256-byte window, and
 * its 8-byte granule within the window, 32 slots.  At each growth the
 * table tries address order again: a python trace's table is crowded
 * while small and spread out later.
 * Either home is a fixed function of the address masked by the size, so
 * that growing moves a block to its old home or that plus the old size.
 */
#define SCAN_MAX 512
#define SCAN_SLACK 4096
#define SCATTER_WINDOW 5	/* log2 of the slots a window keeps together */

static inline size_t
block_slot(const struct btable *t, unsigned heap, uint64_t addr)
{
	uint64_t h;

	if (!t->scattered)
		return (size_t)((addr >> 4) ^ hash64(heap)) & (t->cap - 1);
	h = hash64((addr >> (3 + SCATTER_WINDOW)) ^ (uint64_t)heap << 56) << SCATTER_WINDOW;
	return (size_t)(h | ((addr >> 3) & ((1u << SCATTER_WINDOW) - 1))) & (t->cap - 1);
}

/*
 * Notes a probe that walked n slots past the home.  Long probes are
 * cheap when rare (a walk of 1000 slots reads them in order) and ruin
 * pairing only when many are: crowded when the table's probes walked
 * SCAN_MAX a block in all since it was last made.
 */
static inline void
block_probed(struct btable *t, size_t n)
{
	t->walked += n;
	if (t->walked > SCAN_MAX * (t->probes++ + SCAN_SLACK) && !t->scattered)
		t->crowded = 1;
}

void block_grow(struct btable *bt);
void block_rehome(struct btable *bt, int scattered);
/* In place, in no more than depth levels before a heapsort (2 log2 n: no order makes it quadratic). */
typedef int block_cmp_fn(const struct block *, const struct block *, const void *);
void block_sort(struct block *b, size_t n, block_cmp_fn *cmp, const void *arg, unsigned depth);

#endif
