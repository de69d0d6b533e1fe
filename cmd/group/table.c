/*
 * mt-group's table of groups, biggest first, as an aligned table, TSV or
 * JSON; and folded stacks for a flame graph.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "group.h"

static int
by_sort(const void *a, const void *b, void *arg)
{
	const struct group_opts *o = arg;
	const struct group *x = *(const struct group *const *)a;
	const struct group *y = *(const struct group *const *)b;

	return sums_cmp(o, &x->s, x->key, &y->s, y->key);
}

void
write_groups(const struct group_opts *o)
{
	size_t i, k, n = nall, w[K_NKEYS + 4] = { 0 };
	char *f[K_NKEYS], *copy, a[32], b[32], c[32];

	n = sort_top(o, all, nall, by_sort);
	if (o->format == F_TSV) {
		tsv_header(o, "count\tsize\timpact\tper-alloc");
		for (i = 0; i < n; i++) {
			char *e = o->shorten == 1 ? name_shortened(all[i]->key) : NULL;
			printf("%s\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\n",
			    e ? e : all[i]->key, sum_shown(all[i]->s.count, SAT_COUNT),
			    sum_shown(all[i]->s.size, SAT_SIZE), sum_shown(all[i]->s.impact, SAT_IMPACT),
			    per_alloc(&all[i]->s));
			free(e);
		}
		return;
	}
	if (o->format == F_JSON) {
		printf("[");
		for (i = 0; i < n; i++) {
			copy = estrdup(all[i]->key);
			split(copy, f, K_NKEYS);
			printf("%s\n  {", i ? "," : "");
			json_keys(o, f);
			printf("\"count\": %" PRId64 ", \"size\": %" PRId64 ", \"impact\": %" PRId64
			    ", \"per-alloc\": %" PRId64 "}", sum_shown(all[i]->s.count, SAT_COUNT),
			    sum_shown(all[i]->s.size, SAT_SIZE), sum_shown(all[i]->s.impact, SAT_IMPACT),
			    per_alloc(&all[i]->s));
			free(copy);
		}
		printf("%s]\n", n ? "\n" : "");
		return;
	}
	/* The table: column widths first. */
	for (k = 0; k < o->nkeys; k++)
		w[k] = strlen(key_heading(o->keys[k]));
	w[o->nkeys] = 5;
	w[o->nkeys + 1] = 4;
	w[o->nkeys + 2] = 14;
	w[o->nkeys + 3] = 9;
	for (i = 0; i < n; i++) {
		copy = estrdup(all[i]->key);
		split(copy, f, K_NKEYS);
		for (k = 0; k < o->nkeys; k++) {
			char *e = shown_name(o, f[k]);
			if (strlen(e) > w[k])
				w[k] = strlen(e);
			free(e);
		}
		snprintf(a, sizeof(a), "%" PRId64, sum_shown(all[i]->s.count, SAT_COUNT));
		if (strlen(a) > w[o->nkeys])
			w[o->nkeys] = strlen(a);
		if (strlen(sum_human(all[i]->s.size, SAT_SIZE, b, sizeof(b))) > w[o->nkeys + 1])
			w[o->nkeys + 1] = strlen(b);
		if (strlen(mt_human(per_alloc(&all[i]->s), c, sizeof(c))) > w[o->nkeys + 3])
			w[o->nkeys + 3] = strlen(c);
		free(copy);
	}
	/* Too wide: the widest key columns give way, to 40 at the least;
	   with --no-shorten, the names whole. */
	for (; o->shorten;) {
		size_t total = 0, widest = 0;
		for (k = 0; k < o->nkeys + 4; k++)
			total += w[k] + 2;
		for (k = 1; k < o->nkeys; k++)
			if (w[k] > w[widest])
				widest = k;
		if (!o->nkeys || total <= TABLE_WIDTH || w[widest] <= 40)
			break;
		w[widest] = w[widest] > 40 + (total - TABLE_WIDTH) ?
		    w[widest] - (total - TABLE_WIDTH) : 40;
	}
	for (k = 0; k < o->nkeys; k++)
		printf("%-*s  ", (int)w[k], key_heading(o->keys[k]));
	printf("%*s  %*s  %*s  %*s\n", (int)w[o->nkeys], "Count", (int)w[o->nkeys + 1], "Size",
	    (int)w[o->nkeys + 2], "Impacting Size", (int)w[o->nkeys + 3], "Per Alloc");
	for (i = 0; i < n; i++) {
		copy = estrdup(all[i]->key);
		split(copy, f, K_NKEYS);
		for (k = 0; k < o->nkeys; k++) {
			char *e = shown_name(o, f[k]);
			put_cell(e, w[k], o->keys[k] != K_STACK && o->keys[k] != K_FREE_STACK);
			printf("  ");
			free(e);
		}
		printf("%*" PRId64 "  %*s  %*s  %*s\n", (int)w[o->nkeys],
		    sum_shown(all[i]->s.count, SAT_COUNT),
		    (int)w[o->nkeys + 1], sum_human(all[i]->s.size, SAT_SIZE, a, sizeof(a)),
		    (int)w[o->nkeys + 2], sum_human(all[i]->s.impact, SAT_IMPACT, b, sizeof(b)),
		    (int)w[o->nkeys + 3], mt_human(per_alloc(&all[i]->s), c, sizeof(c)));
		free(copy);
	}
}

/*
 * Folded stacks for flame graphs: "proc;outer;...;inner weight".  A flame
 * graph has no negative widths: what a window freed (a negative impact)
 * is its own tower, under a first frame "[freed]", with its bytes.
 */
void
write_folded(const struct group_opts *o)
{
	size_t i;
	int64_t v;

	for (i = 0; i < nall; i++) {
		v = o->weight_impact ? sum_shown(all[i]->s.impact, SAT_IMPACT) :
		    sum_shown(all[i]->s.size, SAT_SIZE);
		if (v > 0)
			printf("%s %" PRId64 "\n", all[i]->key, v);
		else if (v < 0)
			printf("[freed];%s %" PRIu64 "\n", all[i]->key, -(uint64_t)v);
	}
}
