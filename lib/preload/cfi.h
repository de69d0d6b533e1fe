/*
 * Frame rules from the loaded modules' .eh_frame (x86-64): for a code
 * address, how to find its caller's frame (the CFA, the return address,
 * rbp), packed in a word and cached by address.  It knows nothing of the
 * shadow stack, and is usable by any unwinder.
 */
#ifndef MT_CFI_H
#define MT_CFI_H

#include <stdint.h>

#include "ehframe.h"

#pragma GCC visibility push(hidden)

#define CFI_CACHE_BITS 16
#define CFI_CACHE_SLOTS (1u << CFI_CACHE_BITS)
struct cfi_cache_ent {
	uint64_t key;		/* address | generation << 48; 0 empty */
	uint64_t val;
};
extern struct cfi_cache_ent *cfi_cache;	/* NULL until cfi_cache_init */
extern uint64_t cfi_gen;

/* The packed rule of the frame at pc, from its FDE: uncached. */
uint64_t cfi_rule(uintptr_t pc);
/* Maps the cache: 0, or -1 when it cannot. */
int cfi_cache_init(void);
/* A module was unloaded: every rule cached is stale. */
void cfi_modules_changed(void);

/*
 * The packed rule of the frame at pc.  The cache is direct-mapped; on
 * x86-64 stores are seen in order, so a key read the same before and
 * after its value vouches for it (the writer clears the key first).
 */
static inline uint64_t
cfi_lookup_slow(uintptr_t pc, struct cfi_cache_ent *c, uint64_t key)
{
	uint64_t v = cfi_rule(pc);

	if (c) {
		__atomic_store_n(&c->key, 0, __ATOMIC_RELAXED);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		__atomic_store_n(&c->val, v, __ATOMIC_RELAXED);
		__atomic_store_n(&c->key, key, __ATOMIC_RELEASE);
	}
	return v;
}

/* The cache and its generation, read once by a walk: kept in
   registers, not read again after each store of a frame. */
struct cfi_rules {
	struct cfi_cache_ent *cache;
	uint64_t gen;		/* shifted to its place in a key */
};

static inline struct cfi_rules
cfi_rules_now(void)
{
	return (struct cfi_rules){ cfi_cache,
	    __atomic_load_n(&cfi_gen, __ATOMIC_RELAXED) << 48 };
}

static inline uint64_t
cfi_lookup(const struct cfi_rules *r, uintptr_t pc)
{
	uint64_t key = (uint64_t)pc | r->gen, k1, k2, v;
	struct cfi_cache_ent *c;

	if (__builtin_expect(!r->cache, 0))
		return cfi_lookup_slow(pc, NULL, 0);
	c = &r->cache[(key * 0x9e3779b97f4a7c15ULL) >> (64 - CFI_CACHE_BITS)];
	k1 = __atomic_load_n(&c->key, __ATOMIC_ACQUIRE);
	v = __atomic_load_n(&c->val, __ATOMIC_ACQUIRE);
	k2 = __atomic_load_n(&c->key, __ATOMIC_RELAXED);
	if (__builtin_expect(k1 == key && k2 == key, 1))
		return v;
	return cfi_lookup_slow(pc, c, key);
}

#pragma GCC visibility pop

#endif
