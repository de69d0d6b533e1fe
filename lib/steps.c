/*
 * steps.c: changes at numbered steps (samples of a series, intervals of
 * a stream), kept only for the steps where something changed: appended
 * in any order, sorted and merged when their array fills.  Memory for the
 * steps that change, never one per step.  Sums saturate at 63 bits and
 * say so in the overflow count.
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

static void
step_sum(struct mt_steps *s, int64_t *a, int64_t v)
{
	if (__builtin_add_overflow(*a, v, a)) {
		*a = v < 0 ? INT64_MIN + 1 : INT64_MAX;
		s->overflow++;
	}
}

void
steps_merge(struct mt_steps *s)
{
	size_t i, j = 0;
	int c;

	if (s->n > 1)
		qsort(s->d, s->n, sizeof(*s->d), step_cmp);
	for (i = 0; i < s->n; i++) {
		if (j && s->d[j - 1].k == s->d[i].k)
			for (c = 0; c < MT_STEP_VALUES; c++)
				step_sum(s, &s->d[j - 1].v[c], s->d[i].v[c]);
		else
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
	if (s->n && s->d[s->n - 1].k == k) {
		step_sum(s, &s->d[s->n - 1].v[which], v);
		return;
	}
	if (s->n == s->cap) {
		steps_merge(s);
		/* Room for 2 first: a million series that change once are common. */
		if (s->n * 2 >= s->cap) {
			s->cap = s->cap ? 2 * s->cap : 2;
			s->d = erealloc(s->d, s->cap * sizeof(*s->d));
		}
	}
	memset(&s->d[s->n], 0, sizeof(*s->d));
	s->d[s->n].k = k;
	step_sum(s, &s->d[s->n++].v[which], v);
}
