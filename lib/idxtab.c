/* idxtab: a hash table of indexes into its user's array (idxtab.h). */
#include <stdlib.h>
#include <string.h>

#include "mt.h"

#define IDXTAB_MIN 1024

static void
put(struct idxtab_slot *s, size_t cap, uint32_t hash, uint32_t index)
{
	size_t j;

	for (j = hash & (cap - 1); s[j].index; j = (j + 1) & (cap - 1))
		;
	s[j].index = index + 1;
	s[j].hash = hash;
}

void
idxtab_add(struct idxtab *t, uint64_t hash, uint32_t index)
{
	struct idxtab_slot *old = t->s;
	size_t i, oldcap = t->cap;

	if ((t->n + 1) * 2 > t->cap) {
		/* A slot's 32 bits of hash place it in a table of up to 2^32. */
		if (t->cap > (size_t)UINT32_MAX / 2)
			mt_errx(1, "a table of more than 2^31 entries");
		t->cap = t->cap ? t->cap * 2 : IDXTAB_MIN;
		t->s = ecalloc(t->cap, sizeof(*t->s));
		for (i = 0; i < oldcap; i++)
			if (old[i].index)
				put(t->s, t->cap, old[i].hash, old[i].index - 1);
		free(old);
	}
	put(t->s, t->cap, (uint32_t)hash, index);
	t->n++;
}

void
idxtab_clear(struct idxtab *t)
{
	if (t->n)
		memset(t->s, 0, t->cap * sizeof(*t->s));
	t->n = 0;
}

void
idxtab_free(struct idxtab *t)
{
	free(t->s);
	memset(t, 0, sizeof(*t));
}
