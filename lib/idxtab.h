/*
 * idxtab: find-or-insert over an array its user keeps: a hash table of
 * the array's indexes, for entries whose key is several fields.
 */
#ifndef MT_IDXTAB_H
#define MT_IDXTAB_H

#include <stddef.h>
#include <stdint.h>

/*
 * Open addressing, linear probing, growth at half full.  A slot holds an
 * index + 1 (0: empty) and its entry's hash, cut to 32 bits: growing
 * needs no entry hashed again, and a probe compares an entry only where
 * the hashes agree.
 */
struct idxtab_slot {
	uint32_t index;
	uint32_t hash;
};
struct idxtab {
	struct idxtab_slot *s;
	size_t n, cap;
};
#define IDXTAB_NONE UINT32_MAX

/*
 * The index of the entry of this hash that same() takes for the one
 * sought (key: what it compares with), or IDXTAB_NONE.  Inline: same()
 * is the caller's and is inlined with it.
 */
static inline uint32_t
idxtab_find(const struct idxtab *t, uint64_t hash, int (*same)(const void *key, uint32_t index),
    const void *key)
{
	size_t j;

	if (!t->cap)
		return IDXTAB_NONE;
	for (j = hash & (t->cap - 1); t->s[j].index; j = (j + 1) & (t->cap - 1))
		if (t->s[j].hash == (uint32_t)hash && same(key, t->s[j].index - 1))
			return t->s[j].index - 1;
	return IDXTAB_NONE;
}

/* idxtab.c */
void idxtab_add(struct idxtab *t, uint64_t hash, uint32_t index);	/* one not there */
void idxtab_clear(struct idxtab *t);	/* empty, its room kept */
void idxtab_free(struct idxtab *t);

#endif
