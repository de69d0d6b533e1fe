/*
 * biggest.c: the lifetimes the page lists for a row, and the summary's
 * biggest transients: the trace's biggest (a min-heap of r->bigcap) and,
 * for the page, each key's KEY_BIG biggest, so that a row of small
 * blocks lists its own and not "21 lifetimes of 8,613,311".
 */
#include <stdlib.h>
#include <string.h>

#include "mt.h"
#include "report.h"

static void
heap_add(struct report *r, const struct rep_life *l)
{
	size_t i = r->nbig, c;
	struct rep_life t;

	if (!r->bigcap)
		return;
	if (r->nbig == r->bigcap) {
		if (l->size <= r->big[0].size)
			return;
		/* The least of the biggest goes: sift the new one down. */
		r->big[0] = *l;
		for (i = 0; (c = 2 * i + 1) < r->nbig; i = c) {
			if (c + 1 < r->nbig && r->big[c + 1].size < r->big[c].size)
				c++;
			if (r->big[c].size >= r->big[i].size)
				break;
			t = r->big[c], r->big[c] = r->big[i], r->big[i] = t;
		}
		return;
	}
	r->big[r->nbig++] = *l;
	for (; i > 0 && r->big[(i - 1) / 2].size > r->big[i].size; i = (i - 1) / 2) {
		t = r->big[(i - 1) / 2], r->big[(i - 1) / 2] = r->big[i], r->big[i] = t;
	}
}

/* A key's few: appended, or in place of its least when bigger. */
static void
key_add(struct report *r, const struct rep_life *l)
{
	struct rep_key *k = &r->keys[l->key];
	struct rep_life *v;
	size_t i, least = 0;

	if (l->key >= r->kbigkeys) {
		size_t n = r->keycap > l->key ? r->keycap : (size_t)l->key + 1;

		r->kbig = erealloc(r->kbig, n * KEY_BIG * sizeof(*r->kbig));
		r->kbigkeys = n;
	}
	v = &r->kbig[(size_t)l->key * KEY_BIG];
	if (k->nbig < KEY_BIG) {
		v[k->nbig++] = *l;
		return;
	}
	for (i = 1; i < KEY_BIG; i++)
		if (v[i].size < v[least].size)
			least = i;
	if (l->size > v[least].size)
		v[least] = *l;
}

void
report_big(struct report *r, const struct rep_life *l, int per_key)
{
	heap_add(r, l);
	if (per_key)
		key_add(r, l);
}

static int
same_life(const struct rep_life *a, const struct rep_life *b)
{
	return a->key == b->key && a->ta == b->ta && a->tf == b->tf && a->size == b->size &&
	    a->fate == b->fate;
}

static const struct report *order_r;

static int
most_bytes(const void *a, const void *b)
{
	const struct rep_key *x = &order_r->keys[*(const uint32_t *)a];
	const struct rep_key *y = &order_r->keys[*(const uint32_t *)b];

	return x->bytes < y->bytes ? 1 : x->bytes > y->bytes ? -1 :
	    *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/*
 * The keys' biggest (those of the most bytes first, up to
 * KEY_BIG_SHOWN), then the trace's biggest not among them; a lifetime
 * never freed that a rule suppresses is left out, as the cells leave it.
 */
size_t
report_biggest(struct report *r, struct rep_life **out)
{
	uint32_t *keys = emalloc((r->nkeys + 1) * sizeof(*keys));
	struct rep_life *v = emalloc((KEY_BIG_SHOWN + r->nbig + 1) * sizeof(*v));
	size_t i, j, n = 0, nk = 0;

	for (i = 0; i < r->nkeys && i < r->kbigkeys; i++)
		if (r->keys[i].nbig)
			keys[nk++] = (uint32_t)i;
	order_r = r;
	if (nk > 1)
		qsort(keys, nk, sizeof(*keys), most_bytes);
	for (i = 0; i < nk; i++) {
		const struct rep_key *k = &r->keys[keys[i]];

		if (n + k->nbig > KEY_BIG_SHOWN)
			break;
		for (j = 0; j < k->nbig; j++)
			v[n++] = r->kbig[(size_t)keys[i] * KEY_BIG + j];
	}
	for (i = 0; i < r->nbig; i++) {
		const struct rep_life *l = &r->big[i];
		const struct rep_key *k = &r->keys[l->key];
		int dup = 0;

		for (j = 0; l->key < r->kbigkeys && j < k->nbig && !dup; j++)
			dup = same_life(&r->kbig[(size_t)l->key * KEY_BIG + j], l);
		if (!dup)
			v[n++] = *l;
	}
	for (i = j = 0; i < n; i++)
		if (!v[i].fate || !report_suppressed(r, r->keys[v[i].key].site))
			v[j++] = v[i];
	free(keys);
	*out = v;
	return j;
}
