/*
 * mt-pooldiff --growth: the tags whose Bytes grew in every interval, or
 * in K of the last N, fastest first, each with its evidence.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pooldiff.h"

struct verdict {
	struct tag *t;
	long grew;
	int64_t first, last;
	double per_hour;
};

static int
by_rate(const void *a, const void *b)
{
	const struct verdict *x = a, *y = b;

	if (x->per_hour != y->per_hour)
		return x->per_hour < y->per_hour ? 1 : -1;
	return strcmp(x->t->name, y->t->name);
}

int
print_growth(const struct pooldiff_opts *o, int live_pass)
{
	/* A short last interval is not judged: its growth is not comparable. */
	size_t last = nsnaps - 1 - (partial_last && nsnaps > 2);
	size_t avail = last, n, k, first, i, j, nv = 0, considered = 0;
	struct verdict *v = emalloc((ntags ? ntags : 1) * sizeof(*v));
	static const char *const vhead[7] = { "#Tag", "Type", "Grew", "FirstBytes", "LastBytes",
		"Growth", "PerHour" };
	char a[64], z[64], when[64];
	double hours;
	int64_t b0, b1;
	struct mt_table *tb = NULL;

	n = o->grow_n < 0 ? avail : (size_t)o->grow_n;
	k = o->grow_k < 0 ? n : (size_t)o->grow_k;
	if (n > avail && live_pass) {
		free(v);
		return 0;	/* not yet N intervals */
	}
	if (n > avail) {
		mt_note("%zu intervals asked for, the input has %zu", n, avail);
		n = avail;
		if (k > n) {
			free(v);
			return 2;
		}
	}
	first = last - n;
	hours = (double)(snaps[last].t - snaps[first].t) / 3600e9;
	for (i = 0; i < ntags; i++) {
		struct tag *t = tags[i];
		long grew = 0;
		if (!selected(o, t))
			continue;
		considered++;
		for (j = first + 1; j <= last; j++)
			grew += bytes_at(t, j) > bytes_at(t, j - 1);
		b0 = bytes_at(t, first);
		b1 = bytes_at(t, last);
		if ((size_t)grew >= k && b1 > b0)
			v[nv++] = (struct verdict){ t, grew, b0, b1,
				hours > 0 ? ((double)b1 - (double)b0) / hours : 0 };
	}
	if (live_pass && !nv) {
		free(v);
		return 0;	/* said only when a tag grows */
	}
	qsort(v, nv, sizeof(*v), by_rate);
	time_label(snaps[first].t, a, sizeof(a));
	time_label(snaps[last].t, z, sizeof(z));
	printf("#mt-pooldiff growth: %zu of %zu tags grew in at least %zu of the last %zu "
	    "intervals, %s to %s", nv, considered, k, n, a, z);
	if (o->since_first) {
		time_label(snaps[0].t, when, sizeof(when));
		printf(" changes-since=%s against=first", when);
	}
	putchar('\n');
	/* Its rows as the table's: raw bytes, for awk; the tag and type
	   columns giving way. */
	if (nv) {
		tb = table_new(7);
		table_column(tb, 0, 1, 0, TAG_MIN);
		table_column(tb, 1, 1, 1, TYPE_MIN);
		for (i = 2; i < 7; i++)
			table_column(tb, i, 0, 2, 0);
		table_row(tb, vhead);
	}
	for (i = 0; i < nv; i++) {
		char grew[32], shown[4096], rate[32], fb[32], lb[32], gr[32];
		const char *cells[7];
		snprintf(grew, sizeof(grew), "%ld/%zu", v[i].grew, n);
		/* One field for awk: "+1.5MiB", no blank; the rate of snapshots a
		   nanosecond apart can be past 2^63 bytes an hour. */
		sat_human(v[i].per_hour >= 0x1p63 ? (mt_wide)SAT_MAX + 1 : (mt_wide)v[i].per_hour,
		    &sat[SAT_PER_HOUR].hit, rate + 1, sizeof(rate) - 1);
		rate[0] = '+';
		if (strchr(rate, ' '))
			memmove(strchr(rate, ' '), strchr(rate, ' ') + 1, strlen(strchr(rate, ' ')));
		snprintf(fb, sizeof(fb), "%" PRId64, v[i].first);
		snprintf(lb, sizeof(lb), "%" PRId64, v[i].last);
		snprintf(gr, sizeof(gr), "%+" PRId64,
		    sat_sub(v[i].last, v[i].first, &sat[SAT_GROWTH].hit));
		cells[0] = tag_show(v[i].t->name, shown, sizeof(shown));
		cells[1] = v[i].t->type;
		cells[2] = grew;
		cells[3] = fb;
		cells[4] = lb;
		cells[5] = gr;
		cells[6] = v[i].per_hour < 0 || rate[1] == '>' ? rate + 1 : rate;
		table_row(tb, cells);
	}
	if (nv)
		table_print(tb, stdout, TABLE_WIDTH);
	for (i = 0; i < nv; i++) {
		sat[C_BYTES].hit |= v[i].t->clamped;
		printf("\n#evidence %s %s\n", v[i].t->name, v[i].t->type);
		for (j = first; j <= last; j++) {
			time_label(snaps[j].t, when, sizeof(when));
			b1 = bytes_at(v[i].t, j);
			if (j == first && (!o->since_first || j == 0))
				printf("%-24s %14" PRId64 "\n", when, b1);
			else
				printf("%-24s %14" PRId64 " (%+" PRId64 ")\n", when, b1,
				    sat_sub(b1, bytes_at(v[i].t, o->since_first ? 0 : j - 1),
				    &sat[SAT_GROWTH].hit));
		}
	}
	free(v);
	say_saturated();
	return nv > 0;
}

int
parse_kn(const char *s, long *k, long *n)
{
	char *end;

	*k = strtol(s, &end, 10);
	if (end == s || *end != '/' || *k < 1)
		return -1;
	s = end + 1;
	*n = strtol(s, &end, 10);
	if (end == s || *end || *n < *k)
		return -1;
	return 0;
}
