/*
 * The process's stack table, shared with mt-record: a stack's hash, and
 * its id, interned lock-free.  Inline: record() calls them on every
 * event with a stack.
 */
#ifndef MT_STACK_TABLE_H
#define MT_STACK_TABLE_H

#include <stdint.h>
#include <string.h>

#include "proto.h"

/*
 * A stack's hash, from its outermost frame in: the shadow keeps it for
 * each entry, so a capture hashes only its new frames.
 */
#define STACK_SEED 0x9e3779b97f4a7c15ULL
static inline uint64_t
stack_mix(uint64_t h, uintptr_t ip)
{
	h ^= (uint64_t)ip;
	h *= 0xff51afd7ed558ccdULL;
	return h ^ (h >> 32);
}

static inline uint64_t
stack_final(uint64_t h, int n, int truncated)
{
	return stack_mix(h, (uintptr_t)n << 1 | (uintptr_t)truncated);
}

/* ips[0] is the innermost frame: hashed from the outermost in. */
static inline uint64_t
hash_frames(void *const *ips, int n, int truncated)
{
	uint64_t h = STACK_SEED;
	int i;

	for (i = n; i-- > 0;)
		h = stack_mix(h, (uintptr_t)ips[i]);
	return stack_final(h, n, truncated);
}

static inline int
same_stack(const uint64_t *e, void *const *ips, int n, int truncated)
{
	return e[0] == ((uint64_t)n << 1 | (uint64_t)truncated) &&
	    memcmp(e + 1, ips, (size_t)n * sizeof(*e)) == 0;
}

/*
 * The id of a stack in the table tab (of words words), adding it if it is new.
 * Lock-free: an entry is written whole before a slot points to it.
 */
static inline uint32_t
stack_intern(struct mt_stack_table *tab, uint32_t words, void *const *ips, int n,
    int truncated, uint64_t h)
{
	uint32_t *slots = MT_STACK_SLOT_PTR(tab);
	uint64_t *arena = MT_STACK_ARENA(tab, words);
	uint64_t base;
	uint32_t i, probe, off, expect;
	int k;

	for (probe = 0; probe < 64; probe++) {
		i = (uint32_t)(h + probe) & (MT_STACK_SLOTS(words) - 1);
		off = __atomic_load_n(&slots[i], __ATOMIC_ACQUIRE);
		if (off == 0) {
			base = __atomic_fetch_add(&tab->used, (uint64_t)n + 1,
			    __ATOMIC_RELAXED);
			if (base + (uint64_t)n + 1 > words)
				break;
			arena[base] = (uint64_t)n << 1 | (uint64_t)truncated;
			for (k = 0; k < n; k++)
				arena[base + 1 + (uint64_t)k] = (uint64_t)(uintptr_t)ips[k];
			expect = 0;
			if (__atomic_compare_exchange_n(&slots[i], &expect,
			    (uint32_t)base, 0, __ATOMIC_RELEASE, __ATOMIC_ACQUIRE))
				return (uint32_t)base;
			off = expect;	/* another thread won the slot */
		}
		if (same_stack(&arena[off], ips, n, truncated))
			return off;
	}
	__atomic_fetch_add(&tab->full, 1, __ATOMIC_RELAXED);
	return MT_STACK_NONE;
}

#endif
