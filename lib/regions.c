/*
 * A set of disjoint address ranges, kept sorted, for mt-record's view of
 * a process's mappings.  Chunks of at most REG_CHUNK ranges in a sorted
 * array of chunks: an insert or a removal moves at most one chunk's
 * ranges and, when a chunk splits or empties, the chunk pointers.  A
 * plain sorted array would move every range after the point, quadratic
 * for a program that maps pages one by one (the kernel places each below
 * the last) or a peer that sends as many.
 */
#include <stdlib.h>
#include <string.h>

#include "mt.h"

#define REG_CHUNK 256

/* Chunks start small (a forked child copies its parent's few) and grow. */
struct reg_chunk {
	size_t n, cap;
	struct mt_range r[];
};

static struct reg_chunk *
chunk_new(size_t cap)
{
	struct reg_chunk *k = emalloc(sizeof(*k) + cap * sizeof(k->r[0]));

	k->n = 0;
	k->cap = cap;
	return k;
}

/* A position past a chunk's end is the next chunk's first. */
static void
norm(const struct mt_ranges *s, struct mt_rpos *at)
{
	while (at->c < s->nc && at->i >= s->c[at->c]->n) {
		at->c++;
		at->i = 0;
	}
}

struct mt_rpos
ranges_seek(const struct mt_ranges *s, uint64_t addr)
{
	struct mt_rpos at = { 0, 0 };
	size_t a = 0, b = s->nc, m;
	const struct reg_chunk *k;

	/* The first chunk whose last range ends after addr. */
	while (a < b) {
		m = (a + b) / 2;
		k = s->c[m];
		if (k->r[k->n - 1].hi <= addr)
			a = m + 1;
		else
			b = m;
	}
	at.c = a;
	if (a == s->nc)
		return at;
	k = s->c[a];
	for (b = k->n; at.i < b;) {
		m = (at.i + b) / 2;
		if (k->r[m].hi <= addr)
			at.i = m + 1;
		else
			b = m;
	}
	return at;
}

struct mt_range *
ranges_at(const struct mt_ranges *s, struct mt_rpos at)
{
	return at.c < s->nc && at.i < s->c[at.c]->n ? &s->c[at.c]->r[at.i] : NULL;
}

void
ranges_next(const struct mt_ranges *s, struct mt_rpos *at)
{
	at->i++;
	norm(s, at);
}

static void
chunk_insert(struct mt_ranges *s, size_t c, struct reg_chunk *k)
{
	s->c = egrow(s->c, s->nc, &s->cap, sizeof(*s->c));
	memmove(&s->c[c + 1], &s->c[c], (s->nc - c) * sizeof(*s->c));
	s->c[c] = k;
	s->nc++;
}

void
ranges_insert(struct mt_ranges *s, struct mt_rpos *at, struct mt_range r)
{
	struct reg_chunk *k, *k2;
	size_t half;

	if (s->nc == 0) {
		chunk_insert(s, 0, chunk_new(8));
		*at = (struct mt_rpos){ 0, 0 };
	} else if (at->c == s->nc) {
		/* After everything: the end of the last chunk. */
		at->c = s->nc - 1;
		at->i = s->c[at->c]->n;
	}
	k = s->c[at->c];
	if (k->n == k->cap && k->cap < REG_CHUNK) {
		k->cap *= 2;
		k = s->c[at->c] = erealloc(k, sizeof(*k) + k->cap * sizeof(k->r[0]));
	} else if (k->n == REG_CHUNK) {
		half = REG_CHUNK / 2;
		k2 = chunk_new(REG_CHUNK);
		k2->n = k->n - half;
		memcpy(k2->r, k->r + half, k2->n * sizeof(k->r[0]));
		k->n = half;
		chunk_insert(s, at->c + 1, k2);
		if (at->i > half) {
			at->c++;
			at->i -= half;
			k = k2;
		}
	}
	memmove(&k->r[at->i + 1], &k->r[at->i], (k->n - at->i) * sizeof(k->r[0]));
	k->r[at->i] = r;
	k->n++;
	s->n++;
}

void
ranges_delete(struct mt_ranges *s, struct mt_rpos *at)
{
	struct reg_chunk *k = s->c[at->c];

	memmove(&k->r[at->i], &k->r[at->i + 1], (k->n - at->i - 1) * sizeof(k->r[0]));
	k->n--;
	s->n--;
	if (k->n == 0) {
		free(k);
		memmove(&s->c[at->c], &s->c[at->c + 1], (s->nc - at->c - 1) * sizeof(*s->c));
		s->nc--;
		at->i = 0;
	}
	norm(s, at);
}

void
ranges_copy(struct mt_ranges *dst, const struct mt_ranges *src)
{
	size_t c;

	ranges_free(dst);
	if (!src->nc)
		return;
	dst->c = emalloc(src->nc * sizeof(*dst->c));
	dst->nc = dst->cap = src->nc;
	dst->n = src->n;
	for (c = 0; c < src->nc; c++) {
		dst->c[c] = chunk_new(src->c[c]->n);
		dst->c[c]->n = src->c[c]->n;
		memcpy(dst->c[c]->r, src->c[c]->r, src->c[c]->n * sizeof(src->c[c]->r[0]));
	}
}

void
ranges_free(struct mt_ranges *s)
{
	size_t c;

	for (c = 0; c < s->nc; c++)
		free(s->c[c]);
	free(s->c);
	memset(s, 0, sizeof(*s));
}
