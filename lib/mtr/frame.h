/*
 * frame: what the writer and the reader of a .mtr frame keep alike, and
 * afresh each frame: the delta bases and the lists of addresses freed.
 */
#ifndef MT_MTR_FRAME_H
#define MT_MTR_FRAME_H

#include <stdint.h>
#include <string.h>

#include "bits.h"

/*
 * glibc hands out the block of a size class freed last (tcache, fastbins
 * are LIFO): per size class, the frame keeps the addresses freed lately,
 * and an allocation at one of them is written as its place in that list.
 * Writer and reader keep the lists alike, from what the frame holds.
 */
#define REUSE_CLASSES	66	/* chunk sizes 32..1040 in 16s; 0: none */
#define REUSE_DEPTH	8

struct reuse {
	uint64_t addr[REUSE_CLASSES][REUSE_DEPTH];	/* oldest first */
	uint8_t n[REUSE_CLASSES];
};

static inline unsigned
reuse_class(uint64_t size)
{
	uint64_t c;

	if (size > 1024)
		return 0;
	c = (size + 8 + 15) >> 4;
	return c < 2 ? 2 : (unsigned)c;
}

static inline void
reuse_push(struct reuse *u, unsigned c, uint64_t addr)
{
	if (!c)
		return;
	if (u->n[c] == REUSE_DEPTH) {
		memmove(&u->addr[c][0], &u->addr[c][1], (REUSE_DEPTH - 1) * sizeof(uint64_t));
		u->n[c]--;
	}
	u->addr[c][u->n[c]++] = addr;
}

/* Takes the k-th newest address of class c out of the list. */
static inline uint64_t
reuse_take(struct reuse *u, unsigned c, unsigned k)
{
	unsigned i = u->n[c] - 1 - k, j;
	uint64_t addr = u->addr[c][i];

	/* At most REUSE_DEPTH - 1 words: a loop, not a call of memmove. */
	for (j = i; j + 1 < u->n[c]; j++)
		u->addr[c][j] = u->addr[c][j + 1];
	u->n[c]--;
	return addr;
}

static inline int
reuse_find(const struct reuse *u, unsigned c, uint64_t addr)
{
	int k;

	if (!c)
		return -1;
	for (k = 0; k < u->n[c]; k++)
		if (u->addr[c][u->n[c] - 1 - k] == addr)
			return k;
	return -1;
}

/*
 * An address delta, in 16-byte units when aligned (malloc's are): bit 0
 * says it is not.  unaligned() undoes it.
 */
static inline uint64_t
aligned(int64_t d)
{
	return (d & 15) == 0 ? zigzag(d >> 4) << 1 : zigzag(d) << 1 | 1;
}

static inline uint64_t
unaligned(uint64_t v)
{
	int64_t d = unzigzag(v >> 1);

	return (uint64_t)(v & 1 ? d : d * 16);
}

struct frame_state {
	uint64_t last_ts;	/* in units */
	uint64_t last_addr;
	uint64_t last_far;	/* the last allocation written as a delta */
	uint64_t last_free;	/* the last free written by its address */
	uint64_t unit;		/* the frame's time unit, ns; writer: 0 until said */
	uint32_t nthreads, cur_thread;
	uint32_t nallocs;
	uint32_t nheaps;
	struct reuse reuse;
};

static inline void
frame_state_reset(struct frame_state *f)
{
	f->last_ts = 0;
	f->last_addr = 0;
	f->last_far = 0;
	f->last_free = 0;
	f->unit = 0;
	f->nthreads = 0;
	f->cur_thread = UINT32_MAX;
	f->nallocs = 0;
	f->nheaps = 0;
	memset(f->reuse.n, 0, sizeof(f->reuse.n));
}

#endif
