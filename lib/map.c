/*
 * A map from 64-bit keys to pointers: open addressing, linear probing,
 * growth at half full.  Key 0 is free to use: emptiness is a NULL value.
 */
#include <stdlib.h>

#include "mt.h"

static size_t
slot(const struct u64map *m, uint64_t key)
{
	return (size_t)hash64(key) & (m->cap - 1);
}

void **
u64map_get(struct u64map *m, uint64_t key, int insert)
{
	struct u64map_entry *old;
	size_t i, oldcap;

	if (insert && (m->n + 1) * 2 > m->cap) {
		old = m->e;
		oldcap = m->cap;
		m->cap = m->cap ? m->cap * 2 : 1024;
		m->e = ecalloc(m->cap, sizeof(*m->e));
		for (i = 0; i < oldcap; i++) {
			size_t h;
			if (!old[i].value)
				continue;
			for (h = slot(m, old[i].key); m->e[h].value; h = (h + 1) & (m->cap - 1))
				;
			m->e[h] = old[i];
		}
		free(old);
	}
	if (!m->cap)
		return NULL;
	for (i = slot(m, key); m->e[i].value; i = (i + 1) & (m->cap - 1))
		if (m->e[i].key == key)
			return &m->e[i].value;
	if (!insert)
		return NULL;
	m->e[i].key = key;
	m->n++;
	return &m->e[i].value;
}

void
u64map_free(struct u64map *m, void (*free_value)(void *))
{
	size_t i;

	for (i = 0; free_value && i < m->cap; i++)
		if (m->e[i].value)
			free_value(m->e[i].value);
	free(m->e);
	m->e = NULL;
	m->cap = m->n = 0;
}

void **
u64map_stack(struct u64map *m, const uint64_t *ips, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ ips[i]) * 1099511628211ULL;
	return u64map_get(m, h | 1, 1);
}
