/*
 * mt-group --diff: an earlier run's table read back, and the groups that
 * changed since, biggest growth first; exit status as diff(1)'s.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "group.h"

/* A count of an earlier run's TSV: decimal, signed for the impact. */
static int
tsv_num(const char *f, int sign, uint64_t *v)
{
	char *end;

	errno = 0;
	if (sign)
		*v = (uint64_t)strtoll(f, &end, 10);
	else
		*v = strtoull(f, &end, 10);
	return *f && !*end && !errno && (sign || *f != '-');
}

/*
 * --diff: an earlier run's table (--format tsv, the same keys) read into
 * the groups: each group's old sums; a group only in it is one that
 * vanished.  1 when a row is bad (said, the rest read).
 */
int
read_old(const struct group_opts *o, const char *path)
{
	FILE *fp = fopen(path, "r");
	char *line = NULL, *f[K_NKEYS + 4], want[512];
	size_t cap = 0, n, k, lineno = 0, wlen = 0, cols = o->nkeys + 4;
	ssize_t len;
	int bad = 0;

	if (!fp) {
		mt_warn("%s", mt_shown(path, strlen(path)));
		return 2;
	}
	for (k = 0; k < o->nkeys; k++)
		wlen += (size_t)snprintf(want + wlen, sizeof(want) - wlen, "%s\t", key_names[o->keys[k]]);
	snprintf(want + wlen, sizeof(want) - wlen, "count\tsize\timpact\tper-alloc");
	while ((len = getline(&line, &cap, fp)) > 0) {
		struct group *g;
		uint64_t c, sz, im;

		lineno++;
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (len && line[len - 1] == '\r')
			line[--len] = '\0';
		if (lineno == 1) {
			/* Per Alloc is derived, and an older run's has none. */
			if (!strncmp(line, want, wlen + 17) && !line[wlen + 17])
				cols = o->nkeys + 3;
			else if (strcmp(line, want)) {
				char *had = estrdup(mt_shown(line, (size_t)len));
				mt_warnx("%s:1: the columns are not those of --by: '%s' (want '%s')",
				    path, had, mt_shown(want, strlen(want)));
				free(had);
				bad = 2;
				break;
			}
			continue;
		}
		if (memchr(line, '\0', (size_t)len)) {
			mt_warn_at(path, lineno, "a NUL byte in", line, strlen(line));
			bad = 1;
			continue;
		}
		n = split(line, f, cols);
		if (n != cols || !tsv_num(f[o->nkeys], 0, &c) || !tsv_num(f[o->nkeys + 1], 0, &sz) ||
		    !tsv_num(f[o->nkeys + 2], 1, &im)) {
			mt_warn_at(path, lineno, n != cols ? "bad row: fields" : "bad number",
			    n != cols ? f[0] : f[o->nkeys], strlen(n != cols ? f[0] : f[o->nkeys]));
			bad = 1;
			continue;
		}
		/* The key: the fields rejoined. */
		for (k = 1; k < o->nkeys; k++)
			f[k][-1] = '\t';
		g = group_of(f[0], strlen(f[0]));
		g->in |= 2;
		g->old.count += c;
		g->old.size += sz;
		g->old.impact += (int64_t)im;
	}
	free(line);
	fclose(fp);
	return bad;
}

static mt_wide
sums_key(const struct group_opts *o, const struct sums *s)
{
	return o->sort_by == S_COUNT ? s->count : o->sort_by == S_SIZE ? s->size : s->impact;
}

/* The change first by the --sort key, biggest growth first, then by name. */
static int
by_change(const void *a, const void *b, void *arg)
{
	const struct group_opts *o = arg;
	const struct group *x = *(const struct group *const *)a;
	const struct group *y = *(const struct group *const *)b;
	mt_wide dx = sums_key(o, &x->s) - sums_key(o, &x->old);
	mt_wide dy = sums_key(o, &y->s) - sums_key(o, &y->old);

	if (dx != dy)
		return dx < dy ? 1 : -1;
	return strcmp(x->key, y->key);
}

static const char *
diff_state(const struct group *g)
{
	return g->in == 1 ? "new" : g->in == 2 ? "gone" : "changed";
}

/* A change for people: "+1.5 MiB", "-3", "0"; saturated, ">=8.0 EiB". */
static const char *
change(mt_wide d, int column, char *buf, size_t size)
{
	char h[32];

	if (column == SAT_COUNT_CHANGE)
		snprintf(buf, size, "%+" PRId64, sum_shown(d, column));
	else
		snprintf(buf, size, "%s%s", d > 0 && d <= SAT_MAX ? "+" : "",
		    sum_human(d, column, h, sizeof(h)));
	return buf;
}

/*
 * The groups that changed since the earlier run, biggest growth first:
 * each one's sums now and their changes, marked new, gone or changed.
 * 1 when one changed, as diff(1) says it.
 */
int
write_diff(const struct group_opts *o)
{
	struct group **v = emalloc((nall ? nall : 1) * sizeof(*v));
	size_t i, k, n = 0, nnew = 0, ngone = 0, nsame = 0, w[K_NKEYS] = { 0 };
	char *f[K_NKEYS], *copy, a[5][48];

	for (i = 0; i < nall; i++) {
		struct group *g = all[i];
		if (g->in == 3 && !memcmp(&g->s, &g->old, sizeof(g->s))) {
			nsame++;
			continue;
		}
		nnew += g->in == 1;
		ngone += g->in == 2;
		v[n++] = g;
	}
	n = sort_top(o, v, n, by_change);
	if (o->format == F_TSV) {
		tsv_header(o, "count\tsize\timpact\told-count\told-size\told-impact\tstate");
	} else if (o->format == F_JSON) {
		printf("[");
	} else {
		for (k = 0; k < o->nkeys; k++)
			w[k] = strlen(key_heading(o->keys[k]));
		for (i = 0; i < n; i++) {
			copy = estrdup(v[i]->key);
			split(copy, f, K_NKEYS);
			for (k = 0; k < o->nkeys; k++) {
				char *e = shown_name(o, f[k]);
				w[k] = strlen(e) > w[k] ? (strlen(e) < 60 ? strlen(e) : 60) : w[k];
				free(e);
			}
			free(copy);
		}
		for (k = 0; k < o->nkeys; k++)
			printf("%-*s  ", (int)w[k], key_heading(o->keys[k]));
		printf("%8s %8s  %10s %11s  %14s %11s\n", "Count", "change", "Size", "change",
		    "Impacting Size", "change");
	}
	for (i = 0; i < n; i++) {
		const struct group *g = v[i];
		copy = estrdup(g->key);
		split(copy, f, K_NKEYS);
		if (o->format == F_TSV) {
			printf("%s\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64
			    "\t%" PRId64 "\t%s\n", g->key, sum_shown(g->s.count, SAT_COUNT),
			    sum_shown(g->s.size, SAT_SIZE), sum_shown(g->s.impact, SAT_IMPACT),
			    sum_shown(g->old.count, SAT_COUNT), sum_shown(g->old.size, SAT_SIZE),
			    sum_shown(g->old.impact, SAT_IMPACT), diff_state(g));
		} else if (o->format == F_JSON) {
			printf("%s\n  {", i ? "," : "");
			json_keys(o, f);
			printf("\"count\": %" PRId64 ", \"size\": %" PRId64 ", \"impact\": %" PRId64
			    ", \"old-count\": %" PRId64 ", \"old-size\": %" PRId64 ", \"old-impact\": %"
			    PRId64 ", \"state\": \"%s\"}", sum_shown(g->s.count, SAT_COUNT),
			    sum_shown(g->s.size, SAT_SIZE), sum_shown(g->s.impact, SAT_IMPACT),
			    sum_shown(g->old.count, SAT_COUNT), sum_shown(g->old.size, SAT_SIZE),
			    sum_shown(g->old.impact, SAT_IMPACT), diff_state(g));
		} else {
			for (k = 0; k < o->nkeys; k++) {
				char *e = shown_name(o, f[k]);
				put_cell(e, w[k], o->keys[k] != K_STACK && o->keys[k] != K_FREE_STACK);
				printf("  ");
				free(e);
			}
			printf("%8" PRId64 " %8s  %10s %11s  %14s %11s%s%s\n",
			    sum_shown(g->s.count, SAT_COUNT),
			    change(g->s.count - g->old.count, SAT_COUNT_CHANGE, a[0], sizeof(a[0])),
			    sum_human(g->s.size, SAT_SIZE, a[1], sizeof(a[1])),
			    change(g->s.size - g->old.size, SAT_SIZE_CHANGE, a[2], sizeof(a[2])),
			    sum_human(g->s.impact, SAT_IMPACT, a[3], sizeof(a[3])),
			    change(g->s.impact - g->old.impact, SAT_IMPACT_CHANGE, a[4], sizeof(a[4])),
			    g->in == 3 ? "" : "  ", g->in == 3 ? "" : diff_state(g));
		}
		free(copy);
	}
	if (o->format == F_JSON)
		printf("%s]\n", n ? "\n" : "");
	mt_note("%zu groups changed (%zu new, %zu gone), %zu the same", nall - nsame, nnew,
	    ngone, nsame);
	free(v);
	return nall != nsame;
}
