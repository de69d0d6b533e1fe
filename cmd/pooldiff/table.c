/*
 * mt-pooldiff's table: PoolMon's columns for the last snapshot, each
 * counter with its change, sorted, as an aligned table or TSV.
 */
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pooldiff.h"

int
selected(const struct pooldiff_opts *o, const struct tag *t)
{
	size_t i;
	int in = o->nincludes == 0;

	for (i = 0; i < o->nincludes && !in; i++)
		in = o->use_regex ? re_match(o->include_re[i], t->name, strlen(t->name)) :
		    !fnmatch(o->includes[i], t->name, 0);
	for (i = 0; i < o->nexcludes && in; i++)
		in = !(o->use_regex ? re_match(o->exclude_re[i], t->name, strlen(t->name)) :
		    !fnmatch(o->excludes[i], t->name, 0));
	return in;
}

/* The value shown now: absent tags hold 0 of what they had. */
static mt_wide
value(const struct tag *t, int c)
{
	if (t->in_cur)
		return t->cur[c];
	return t->prev[c] == NONE_W ? NONE_W : 0;
}

static mt_wide
change(const struct pooldiff_opts *o, const struct tag *t, int c)
{
	mt_wide now = value(t, c), before;

	if (nsnaps < 2 || now == NONE_W)
		return NONE_W;
	if (o->since_first)
		before = t->in_first ? t->first[c] : 0;
	else
		before = t->in_prev ? t->prev[c] : 0;
	return before == NONE_W ? NONE_W : now - before;
}

/* Bytes a block; NONE_W without both. */
static mt_wide
per_alloc(mt_wide diff, mt_wide bytes)
{
	return diff == NONE_W || bytes == NONE_W ? NONE_W : diff > 0 ? bytes / diff : 0;
}

static int
by_sort(const void *a, const void *b, void *arg)
{
	const struct pooldiff_opts *o = arg;
	const struct tag *x = *(const struct tag *const *)a, *y = *(const struct tag *const *)b;
	mt_wide vx, vy;
	int c;

	if (o->sort_key >= 0) {
		if (o->sort_key == NCOUNTERS) {	/* per alloc; none without allocations */
			vx = value(x, C_DIFF) > 0 ? per_alloc(value(x, C_DIFF), value(x, C_BYTES)) :
			    NONE_W;
			vy = value(y, C_DIFF) > 0 ? per_alloc(value(y, C_DIFF), value(y, C_BYTES)) :
			    NONE_W;
		} else if (o->by_change) {
			vx = change(o, x, o->sort_key);
			vy = change(o, y, o->sort_key);
		} else {
			vx = value(x, o->sort_key);
			vy = value(y, o->sort_key);
		}
		if (vx != vy)
			return vx < vy ? 1 : -1;
	}
	c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->type, y->type);
}

/*
 * A tag for people: the log's escapes of a blank and a backslash undone
 * (they are there for awk), other bytes left escaped.
 */
const char *
tag_show(const char *name, char *buf, size_t size)
{
	size_t i, n = 0;

	for (i = 0; name[i] && n + 1 < size; i++) {
		if (name[i] == '\\' && (!strncmp(name + i + 1, "040", 3) ||
		    !strncmp(name + i + 1, "134", 3))) {
			buf[n++] = name[i + 1] == '0' ? ' ' : '\\';
			i += 3;
		} else {
			buf[n++] = name[i];
		}
	}
	buf[n] = '\0';
	return buf;
}

/*
 * A value of column c, or its change (signed); NONE_W: '-'.  Bytes for
 * people in the table (KiB, MiB: mt_human), raw in TSV.
 */
static void
cell(const struct pooldiff_opts *o, char *buf, size_t size, mt_wide v, int c, int change_of)
{
	char h[40];

	if (v == NONE_W)
		snprintf(buf, size, "-");
	else if (o->format == FORMAT_TABLE && (c == C_BYTES || c == SAT_PER_ALLOC))
		/* Past 2^63-1 it says ">=8.0 EiB": no sign before it. */
		snprintf(buf, size, "%s%s", change_of && v >= 0 && v <= SAT_MAX ? "+" : "",
		    sat_human(v, &sat[c].hit, h, sizeof(h)));
	else
		snprintf(buf, size, change_of && o->format == FORMAT_TABLE ? "%+" PRId64 : "%" PRId64,
		    sat_narrow(v, &sat[c].hit));
}

enum { COL_TAG, COL_TYPE, COL_COUNTERS, COL_PER_ALLOC = COL_COUNTERS + 2 * NCOUNTERS, NCOLS };

/* A row: tag, type, each counter and its change, per alloc. */
static void
row_cells(const struct pooldiff_opts *o, struct mt_table *tb, const char *name, const char *type,
    const mt_wide v[NCOUNTERS], const mt_wide d[NCOUNTERS])
{
	char c[NCOLS][64], shown[4096], ch[48];
	const char *cells[NCOLS];
	int i;

	for (i = 0; i < NCOUNTERS; i++) {
		cell(o, c[COL_COUNTERS + 2 * i], sizeof(c[0]), v[i], i, 0);
		cell(o, ch, sizeof(ch), d[i], i, 1);
		snprintf(c[COL_COUNTERS + 2 * i + 1], sizeof(c[0]),
		    o->format == FORMAT_TABLE ? "(%s)" : "%s", ch);
	}
	cell(o, c[COL_PER_ALLOC], sizeof(c[0]), per_alloc(v[C_DIFF], v[C_BYTES]), SAT_PER_ALLOC, 0);
	for (i = COL_COUNTERS; i < NCOLS; i++)
		cells[i] = c[i];
	if (o->format == FORMAT_TSV) {
		printf("%s\t%s", name, type);
		for (i = COL_COUNTERS; i < NCOLS; i++)
			printf("\t%s", cells[i]);
		putchar('\n');
		return;
	}
	cells[COL_TAG] = tag_show(name, shown, sizeof(shown));
	cells[COL_TYPE] = type;
	table_row(tb, cells);
}

void
print_table(const struct pooldiff_opts *o)
{
	static const char *const head[NCOLS] = { "#Tag", "Type", "Allocs", "", "Frees", "",
		"Diff", "", "Bytes", "", "PerAlloc" };
	struct tag **shown = emalloc((ntags ? ntags : 1) * sizeof(*shown));
	mt_wide v[NCOUNTERS], d[NCOUNTERS], tv[NCOUNTERS], td[NCOUNTERS];
	char when[64], before[64];
	size_t i, n = 0;
	int c, have[NCOUNTERS] = { 0 };
	struct mt_table *tb = NULL;

	for (c = 0; c < NCOUNTERS; c++)
		tv[c] = td[c] = NONE_W;
	for (i = 0; i < ntags; i++)
		if ((tags[i]->in_cur || tags[i]->in_prev) && selected(o, tags[i]))
			shown[n++] = tags[i];
	qsort_r(shown, n, sizeof(*shown), by_sort, (void *)(uintptr_t)o);
	time_label(snaps[nsnaps - 1].t, when, sizeof(when));
	if (nsnaps > 1) {
		time_label(snaps[o->since_first ? 0 : nsnaps - 2].t, before, sizeof(before));
		printf("#mt-pooldiff time=%s host=%s snapshots=%zu changes-since=%s%s", when,
		    snaps[nsnaps - 1].host, nsnaps, before, o->since_first ? " against=first" : "");
		if (last_interval)
			printf(" last-interval=%s", mt_seconds(last_interval, 3, "s", before,
			    sizeof(before)));
		putchar('\n');
	} else {
		printf("#mt-pooldiff time=%s host=%s snapshots=1\n", when, snaps[nsnaps - 1].host);
	}
	if (o->format == FORMAT_TSV) {
		printf("tag\ttype\tallocs\tallocs_change\tfrees\tfrees_change\tdiff\t"
		    "diff_change\tbytes\tbytes_change\tper_alloc\n");
	} else {
		tb = table_new(NCOLS);
		table_column(tb, COL_TAG, 1, 0, TAG_MIN);
		table_column(tb, COL_TYPE, 1, 1, TYPE_MIN);
		for (c = 0; c < NCOUNTERS; c++) {
			table_column(tb, COL_COUNTERS + 2 * c, 0, 2, 0);
			table_column(tb, COL_COUNTERS + 2 * c + 1, 1, 1, 0);
		}
		table_column(tb, COL_PER_ALLOC, 0, 2, 0);
		table_row(tb, head);
	}
	for (i = 0; i < n; i++) {
		for (c = 0; c < NCOUNTERS; c++) {
			v[c] = value(shown[i], c);
			d[c] = change(o, shown[i], c);
			have[c] |= v[c] != NONE_W;
			if (v[c] != NONE_W)
				tv[c] = (tv[c] == NONE_W ? 0 : tv[c]) + v[c];
			if (d[c] != NONE_W)
				td[c] = (td[c] == NONE_W ? 0 : td[c]) + d[c];
		}
		row_cells(o, tb, shown[i]->name, shown[i]->type, v, d);
	}
	if (o->totals)
		row_cells(o, tb, "TOTAL", "-", tv, td);
	if (tb) {
		/* A counter no row has (a /proc source's Allocs and Frees): not shown. */
		for (c = 0; c < NCOUNTERS && n; c++)
			if (!have[c]) {
				table_hide(tb, COL_COUNTERS + 2 * c);
				table_hide(tb, COL_COUNTERS + 2 * c + 1);
			}
		if (n && (!have[C_DIFF] || !have[C_BYTES]))
			table_hide(tb, COL_PER_ALLOC);
		table_print(tb, stdout, TABLE_WIDTH);
	}
	free(shown);
	say_saturated();
}
