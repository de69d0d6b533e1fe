/*
 * summary.c: mt-report's first screen.  What heaptrack_print's
 * summary says (calls, temporary allocations, peak, leaks), per process
 * and heap, and what only mt knows (mappings, the peak's instant, what
 * leaked at exit and what was live at the end); each part with the
 * pipeline that shows it whole.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "mt.h"
#include "report.h"

/* A row of a part: a function and line, or one lifetime. */
struct row {
	const char *function, *line;
	uint64_t v, n;		/* what it is sorted by, and a count */
	uint64_t w;		/* temporaries by mt's rule (v: heaptrack's) */
	uint64_t ta, tf;
	size_t from;		/* lifetimes from its stack */
};

struct rows {
	struct row *d;
	size_t n, cap;
	struct u64map at;	/* hash of function and line -> index + 1 */
};

static const char *hint_input;
int report_bytes;		/* --bytes: sizes in bytes, for scripts */
const char *report_skip;	/* -A: said to mt-group in the pipelines */

static const char *
human(int64_t v, char *buf, size_t n)
{
	if (report_bytes) {
		snprintf(buf, n, "%" PRId64, v);
		return buf;
	}
	return mt_human(v, buf, n);
}
	/* the file, or NULL for standard input */
static int hint_life, hint_syms;

/* A site's allocating function and line, looked up once a site. */
static void
site_names(struct report *r, uint32_t site, const char **fn, const char **line)
{
	static const char **names;	/* nsites pairs; the summary is made once */
	const struct rep_site *s = &r->sites[site];
	const struct mt_frame *af;

	if (!names)
		names = ecalloc(r->nsites ? 2 * r->nsites : 1, sizeof(*names));
	if (!names[2 * site]) {
		af = s->stack == REP_NONE ? NULL : dict_alloc_frame(r->dict, s->stack);
		names[2 * site] = af ? af->function : "-";
		names[2 * site + 1] = af ? af->line : "-";
	}
	*fn = names[2 * site];
	*line = names[2 * site + 1];
}

static struct row *
row_of(struct rows *rs, const char *fn, const char *line)
{
	uint64_t h = hash_bytes(fn, strlen(fn)) * 31 + hash_bytes(line, strlen(line));
	void **v;
	size_t i;

	/* Chains are rare: a collision walks on by the next hash. */
	for (;; h = hash64(h + 1)) {
		v = u64map_get(&rs->at, h, 1);
		if (!*v)
			break;
		i = (size_t)(uintptr_t)*v - 1;
		if (!strcmp(rs->d[i].function, fn) && !strcmp(rs->d[i].line, line))
			return &rs->d[i];
	}
	rs->d = egrow(rs->d, rs->n + 1, &rs->cap, sizeof(*rs->d));
	memset(&rs->d[rs->n], 0, sizeof(rs->d[rs->n]));
	rs->d[rs->n].function = fn;
	rs->d[rs->n].line = line;
	*v = (void *)(uintptr_t)++rs->n;
	return &rs->d[rs->n - 1];
}

static int
row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? 1 : -1;
	if (x->w != y->w)
		return x->w < y->w ? 1 : -1;
	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return strcmp(x->function, y->function);
}

static void
rows_free(struct rows *rs)
{
	free(rs->d);
	u64map_free(&rs->at, NULL);
	memset(rs, 0, sizeof(*rs));
}

static const char *
secs(uint64_t ns, char *buf, size_t n)
{
	return mt_seconds(ns, 3, " s", buf, n);
}

/* "mt-group ARGS", with -A 'REGEX' when given (its quotes escaped). */
static void
put_group(FILE *f, const char *group)
{
	const char *p;

	if (!report_skip) {
		fputs(group, f);
		return;
	}
	fputs("mt-group -A '", f);
	for (p = report_skip; *p; p++)
		if (*p == '\'')
			fputs("'\\''", f);
		else
			fputc(*p, f);
	fprintf(f, "'%s", group + strlen("mt-group"));
}

/* The pipeline that shows a part whole, from this input. */
static void
hint(FILE *f, const char *window, const char *group)
{
	const char *in = hint_input ? hint_input : "";

	fputs("  $ ", f);
	if (!hint_input)
		fputs("... | ", f);
	if (hint_life) {
		if (window) {
			fprintf(f, "mt-window %s%s%s | ", window, *in ? " " : "", in);
			put_group(f, group);
			fputc('\n', f);
		} else {
			put_group(f, group);
			fprintf(f, "%s%s\n", *in ? " " : "", in);
		}
		return;
	}
	if (hint_input && hint_syms)
		fprintf(f, "mt-lifetime %s | ", in);
	else if (hint_input)
		fprintf(f, "mt-symbolize %s | mt-lifetime | ", in);
	else
		fputs("mt-lifetime | ", f);
	if (window)
		fprintf(f, "mt-window %s | ", window);
	put_group(f, group);
	fputc('\n', f);
}

/* The top rows of a part, biggest first: bytes and a count. */
static void
put_rows(FILE *f, struct rows *rs, size_t top, const char *count_word)
{
	char b[32];
	size_t i;

	if (rs->n > 1)
		qsort(rs->d, rs->n, sizeof(*rs->d), row_cmp);
	for (i = 0; i < rs->n && i < top; i++)
		fprintf(f, "  %10s %9" PRIu64 " %-6s %s  %s\n", human((int64_t)rs->d[i].v, b, sizeof(b)),
		    rs->d[i].n, count_word, rs->d[i].function, rs->d[i].line);
	if (rs->n > top)
		fprintf(f, "  (%zu more)\n", rs->n - top);
}

static const char *
proc_label(struct report *r, int64_t pid)
{
	return pid == 0 ? "[kernel]" : dict_process(r->dict, pid);
}

static void
overview(FILE *f, struct report *r, const char *name)
{
	double secs_f = r->end / 1e9;
	char b[32];

	fprintf(f, "%s: %s, %zu process%s, %" PRIu64 " allocations", name,
	    secs(r->end, b, sizeof(b)), r->npids, r->npids == 1 ? "" : "es", r->allocs);
	if (secs_f > 0)
		fprintf(f, " (%.0f/s)", r->allocs / secs_f);
	fprintf(f, ", %" PRIu64 " frees\n", r->frees);
	/* heaptrack's rule when events were read; ours always. */
	if (!r->life_input)
		fprintf(f, "temporary: %" PRIu64 " freed right after their allocation (heaptrack's "
		    "count), ", r->ht_temp);
	else
		fprintf(f, "temporary: ");
	fprintf(f, "%" PRIu64 " freed before their thread allocated again\n", r->temp);
}

static int64_t
series_peak(const struct rep_series *s)
{
	return (s->peak > 0 ? s->peak : 0) + s->base;
}

static int
peak_cmp(const void *a, const void *b)
{
	const struct rep_series *x = *(const struct rep_series *const *)a;
	const struct rep_series *y = *(const struct rep_series *const *)b;

	return series_peak(x) < series_peak(y) ? 1 : series_peak(x) > series_peak(y) ? -1 :
	    x < y ? -1 : x > y;
}

/* A row a process and heap: all in the trace's order, or the top biggest. */
static void
heaps_table(FILE *f, struct report *r, size_t top)
{
	char pk[32], at[32], end[32], leak[32], all[32];
	const struct rep_series **v = emalloc((r->nseries + 1) * sizeof(*v));
	size_t i, w = 7, n = r->nseries;

	for (i = 0; i < r->nseries; i++)
		v[i] = &r->series[i];
	if (n > top) {
		qsort(v, n, sizeof(*v), peak_cmp);
		n = top;
	}
	for (i = 0; i < n; i++)
		if (strlen(proc_label(r, v[i]->pid)) > w)
			w = strlen(proc_label(r, v[i]->pid));
	if (w > 24)
		w = 24;
	fprintf(f, "\n%-*s %7s %-8s %10s %10s %10s %10s %11s %9s\n", (int)w, "process", "pid", "heap",
	    "peak", "at", "leaked", "live end", "allocated", "calls");
	for (i = 0; i < n; i++) {
		const struct rep_series *s = v[i];

		fprintf(f, "%-*.*s %7" PRId64 " %-8s %10s %10s %10s %10s %11s %9" PRIu64 "\n", (int)w,
		    (int)w, proc_label(r, s->pid), s->pid, s->heap,
		    human(series_peak(s), pk, sizeof(pk)), secs(s->peak_t, at, sizeof(at)),
		    human((int64_t)s->leak_b, leak, sizeof(leak)),
		    human((int64_t)s->end_b, end, sizeof(end)),
		    human((int64_t)s->bytes, all, sizeof(all)), s->allocs);
	}
	if (n < r->nseries)
		fprintf(f, "  (%zu more processes and heaps, the biggest peaks first: -n %zu shows "
		    "them all)\n", r->nseries - n, r->nseries);
	free(v);
}

/* Leaked at exit, and live when the trace ended, by function and line. */
static void
leaks(FILE *f, struct report *r, size_t top)
{
	struct rows leak = { 0 }, end = { 0 };
	uint64_t sup_n = 0, sup_b = 0;
	char b[32];
	size_t i;

	for (i = 0; i < r->nkeys; i++) {
		const struct rep_key *k = &r->keys[i];
		const char *fn, *line;
		struct row *x;

		if (!k->leak_n && !k->end_n)
			continue;
		if (report_suppressed(r, k->site)) {
			sup_n += k->leak_n + k->end_n;
			sup_b += k->leak_b + k->end_b;
			continue;
		}
		site_names(r, k->site, &fn, &line);
		if (k->leak_n) {
			x = row_of(&leak, fn, line);
			x->v += k->leak_b, x->n += k->leak_n;
		}
		if (k->end_n) {
			x = row_of(&end, fn, line);
			x->v += k->end_b, x->n += k->end_n;
		}
	}
	if (leak.n) {
		fprintf(f, "\nLeaked: never freed before its process exited, by function and line\n");
		put_rows(f, &leak, top, "blocks");
		hint(f, NULL, "mt-group --by type,function,line");
	}
	if (end.n) {
		fprintf(f, "\nLive when the trace ended (its process had not exited)\n");
		put_rows(f, &end, top, "blocks");
		hint(f, NULL, "mt-group --by type,function,line");
	}
	if (!leak.n && !end.n)
		fprintf(f, "\nNothing leaked: every block was freed%s.\n", sup_n ? " or suppressed" : "");
	if (sup_n)
		fprintf(f, "  (suppressed: %" PRIu64 " blocks never freed, %s, that are no leak of the "
		    "program; --no-suppress shows them)\n", sup_n, human((int64_t)sup_b, b,
		    sizeof(b)));
	rows_free(&leak);
	rows_free(&end);
}

static void
peaks(FILE *f, struct report *r, size_t top)
{
	struct rows rs = { 0 };
	size_t i;

	/* A site's blocks live at the peak are not kept: its bytes are. */
	for (i = 0; i < r->nsites; i++) {
		const struct rep_site *s = &r->sites[i];
		int64_t n, v = report_site_peak(r, s, &n);
		const char *fn, *line;
		struct row *x;

		if (n <= 0)
			continue;
		site_names(r, (uint32_t)i, &fn, &line);
		x = row_of(&rs, fn, line);
		x->v += (uint64_t)v;
		x->n += (uint64_t)n;
	}
	fprintf(f, "\nLive at the peaks (each process and heap at its own), by function and line\n");
	if (!rs.n)
		fprintf(f, "  nothing\n");
	put_rows(f, &rs, top, "blocks");
	hint(f, "--at peak", "mt-group --no-suppress --by process,heap,function,line");
	rows_free(&rs);
}

static int
big_cmp(const void *a, const void *b)
{
	const struct rep_life *x = a, *y = b;

	if (x->size != y->size)
		return x->size < y->size ? 1 : -1;
	return x->ta < y->ta ? -1 : x->ta > y->ta;
}

/* A stack's allocating frame and two callers: "commit < Manipulate < Op1". */
static void
put_path(FILE *f, struct mt_dict *d, const struct rep_site *s)
{
	struct mt_stackinfo *si = s->stack == REP_NONE ? NULL : dict_stack(d, s->stack);
	uint32_t i;

	if (!si || !si->n) {
		fputs("-", f);
		return;
	}
	for (i = si->alloc_frame; i < si->n && i < si->alloc_frame + 3; i++)
		fprintf(f, "%s%s", i > si->alloc_frame ? " < " : "", si->frame[i]->function);
	if (i < si->n)
		fputs(" < ...", f);
	fprintf(f, "  %s", si->frame[si->alloc_frame]->line);
}

/* A site's stack as mt-group --by stack has it (names, not addresses); held. */
static const char *
site_fold(struct report *r, uint32_t site)
{
	static char **fold;
	struct mt_stackinfo *si;
	size_t len = 0, cap = 0;
	char *p = NULL;

	if (!fold)
		fold = ecalloc(r->nsites ? r->nsites : 1, sizeof(*fold));
	if (fold[site])
		return fold[site];
	si = r->sites[site].stack == REP_NONE ? NULL : dict_stack(r->dict, r->sites[site].stack);
	if (si && si->n) {
		p = emalloc(cap = 256);
		p[0] = '\0';
		stack_folded(si, 0, &p, &len, &cap);
	}
	return fold[site] = p ? p : estrdup("-");
}

static int
same_stack(struct report *r, const struct rep_life *a, const struct rep_life *b)
{
	uint32_t x = r->keys[a->key].site, y = r->keys[b->key].site;

	return r->sites[x].pid == r->sites[y].pid && r->sites[x].heap == r->sites[y].heap &&
	    (x == y || !strcmp(site_fold(r, x), site_fold(r, y)));
}

/*
 * The biggest blocks allocated and freed, a line a stack: the biggest,
 * how many of the biggest lifetimes it made, when the first few began,
 * how long they lived.
 */
static void
transients(FILE *f, struct report *r, size_t top)
{
	char b[32], t[32], d[32];
	size_t i, j, shown = 0;

	if (r->nbig > 1)
		qsort(r->big, r->nbig, sizeof(*r->big), big_cmp);
	fprintf(f, "\nBiggest transient allocations (allocated and freed), a line a stack\n");
	for (i = 0; i < r->nbig && shown < top; i++) {
		const struct rep_life *l = &r->big[i];
		uint64_t n = 0, lo = UINT64_MAX, hi = 0;
		int seen = 0, times = 0;

		if (l->fate || l->ta == REP_NONE)
			continue;
		for (j = 0; j < i && !seen; j++)
			seen = !r->big[j].fate && r->big[j].ta != REP_NONE &&
			    same_stack(r, &r->big[j], l);
		if (seen)
			continue;
		fprintf(f, "  %10s", human((int64_t)l->size, b, sizeof(b)));
		for (j = i; j < r->nbig; j++) {
			const struct rep_life *m = &r->big[j];

			if (m->fate || m->ta == REP_NONE || m->size != l->size || !same_stack(r, m, l))
				continue;
			n++;
			lo = m->tf - m->ta < lo ? m->tf - m->ta : lo;
			hi = m->tf - m->ta > hi ? m->tf - m->ta : hi;
		}
		fprintf(f, " x%-4" PRIu64 " at", n);
		for (j = i; j < r->nbig && times < 3; j++) {
			const struct rep_life *m = &r->big[j];

			if (!m->fate && m->ta != REP_NONE && m->size == l->size && same_stack(r, m, l))
				fprintf(f, "%s %s", times++ ? "," : "", secs(m->ta, t, sizeof(t)));
		}
		fprintf(f, "%s for %s", n > 3 ? ", ..." : "", secs(lo, t, sizeof(t)));
		if (hi != lo)
			fprintf(f, "-%s", secs(hi, d, sizeof(d)));
		fputs("\n              ", f);
		put_path(f, r->dict, &r->sites[r->keys[l->key].site]);
		fputc('\n', f);
		shown++;
	}
	if (!shown)
		fprintf(f, "  none\n");
	hint(f, NULL, "mt-group --by type,stack,commit-time,decommit-time --sort size");
}

static void
by_key(FILE *f, struct report *r, size_t top, int temp)
{
	struct rows rs = { 0 };
	size_t i;

	for (i = 0; i < r->nkeys; i++) {
		const struct rep_key *k = &r->keys[i];
		const char *fn, *line;
		struct row *x;

		if (temp ? !k->temp && !k->ht_temp : !k->allocs)
			continue;
		site_names(r, k->site, &fn, &line);
		x = row_of(&rs, fn, line);
		x->v += temp ? k->ht_temp : k->allocs;
		x->w += k->temp;
		x->n += temp ? k->allocs : k->bytes;
	}
	/* heaptrack's rule first, as the first line and heaptrack_print count. */
	if (temp)
		fprintf(f, "\nMost temporary allocations (heaptrack's rule: freed right after their "
		    "allocation; mt's: freed before their thread allocated again)\n");
	else
		fprintf(f, "\nMost allocation calls\n");
	if (rs.n > 1)
		qsort(rs.d, rs.n, sizeof(*rs.d), row_cmp);
	for (i = 0; i < rs.n && i < top; i++) {
		char b[32];

		if (temp)
			fprintf(f, "  %10" PRIu64 " heaptrack's %10" PRIu64 " mt's %10" PRIu64
			    " calls  %s  %s\n", rs.d[i].v, rs.d[i].w, rs.d[i].n, rs.d[i].function,
			    rs.d[i].line);
		else
			fprintf(f, "  %10" PRIu64 " calls %10s  %s  %s\n", rs.d[i].v,
			    human((int64_t)rs.d[i].n, b, sizeof(b)), rs.d[i].function, rs.d[i].line);
	}
	if (!rs.n)
		fprintf(f, "  none\n");
	else if (rs.n > top)
		fprintf(f, "  (%zu more)\n", rs.n - top);
	hint(f, NULL, temp ? "mt-group --by temporary,function,line --sort count" :
	    "mt-group --by function,line --sort count");
	rows_free(&rs);
}

int
summary(FILE *f, struct report *r, const char *input, int syms, size_t top)
{
	hint_input = input;
	hint_life = r->life_input;
	hint_syms = syms;
	overview(f, r, input ? input : "<stdin>");
	heaps_table(f, r, top);
	leaks(f, r, top);
	peaks(f, r, top);
	transients(f, r, top);
	by_key(f, r, top, 1);
	by_key(f, r, top, 0);
	return 0;
}
