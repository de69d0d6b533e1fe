/*
 * steps.c: changes at numbered steps (samples of a series, intervals of
 * a stream), kept only for the steps where something changed: appended
 * in any order, sorted and merged when their array fills.  Memory for the
 * steps that change, never one per step.  Changes whose sum would not
 * fit in 63 bits stay apart, two at one step: a reader sums them wide.
 */
#include <stdlib.h>
#include <string.h>

#include "mt.h"

static int
step_cmp(const void *a, const void *b)
{
	const struct mt_step *x = a, *y = b;

	return x->k < y->k ? -1 : x->k > y->k;
}

/* b added to a, when every sum fits: 1, else 0 and a as it was. */
static int
step_sum(struct mt_step *a, const struct mt_step *b)
{
	unsigned hit = 0;
	int64_t v[MT_STEP_VALUES];
	int c;

	for (c = 0; c < MT_STEP_VALUES; c++)
		v[c] = sat_add(a->v[c], b->v[c], &hit);
	if (hit)
		return 0;
	memcpy(a->v, v, sizeof(v));
	return 1;
}

void
steps_merge(struct mt_steps *s)
{
	size_t i, j = 0;
	int c;

	if (s->n > 1)
		qsort(s->d, s->n, sizeof(*s->d), step_cmp);
	for (i = 0; i < s->n; i++) {
		if (!(j && s->d[j - 1].k == s->d[i].k && step_sum(&s->d[j - 1], &s->d[i])))
			s->d[j++] = s->d[i];
		for (c = 0; c < MT_STEP_VALUES && !s->d[j - 1].v[c]; c++)
			;
		if (c == MT_STEP_VALUES)	/* it changes nothing */
			j--;
	}
	s->n = j;
}

void
steps_add(struct mt_steps *s, uint64_t k, int which, int64_t v)
{
	struct mt_step one = { .k = k };

	one.v[which] = v;
	if (s->n && s->d[s->n - 1].k == k && step_sum(&s->d[s->n - 1], &one))
		return;
	if (s->n == s->cap) {
		steps_merge(s);
		/* Room for 2 first: a million series that change once are common. */
		if (s->n * 2 >= s->cap) {
			s->cap = s->cap ? 2 * s->cap : 2;
			s->d = erealloc(s->d, s->cap * sizeof(*s->d));
		}
	}
	s->d[s->n++] = one;
}
