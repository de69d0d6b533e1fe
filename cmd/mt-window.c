/*
 * mt-window: keeps the lifetimes active for part of a time window, with
 * their class and impact recomputed for it, and filters them by process,
 * heap and regular expressions on process names and stack frames (WPA's
 * "Filter to Selection").  With --series it writes instead the memory
 * outstanding at every step, per process and heap: the graph WPA draws.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mt.h"

static const char synopsis[] = "[-b] [-f time] [-t time | -l time] [-p pid] [-H heap] "
    "[-N regex] [-m regex] [-x regex] [-i step | --at time|peak] [file]";
static const char options[] =
    "Keeps the life lines active in a time window, classed aifi, aifo, aofi or aofo\n"
    "with their impact on it (WPA's Impacting Size), or with -i the memory\n"
    "outstanding at every step.  Times are from the trace's start, with a unit:\n"
    "ns, us, ms, s, m, h (0 alone needs none).\n"
    "\n"
    "  -f, --from TIME      the window's start (default: the trace's start)\n"
    "  -t, --to TIME        its end (default: the trace's end)\n"
    "  -l, --last TIME      the last TIME of the trace\n"
    "  -p, --pid PID        only this process (repeatable)\n"
    "  -H, --heap HEAP      only this heap: malloc, mmap, reserve, ... (repeatable)\n"
    "  -N, --process REGEX  only processes whose name, as mt-group shows it, matches\n"
    "  -m, --match REGEX    only lifetimes whose executable's path or a stack frame\n"
    "                       (function, file:line or module) matches (PCRE2)\n"
    "  -x, --exclude REGEX  not those that --match would keep\n"
    "  -i, --series STEP    sample lines every STEP instead (-s is the old spelling)\n"
    "      --at TIME|peak   the lifetimes live at that instant: at TIME, or at the\n"
    "                       peak of each process and heap (its sample line first)\n"
    "  -b, --binary         write a .mtr stream for the next filter, not text\n"
    "  -h, --help           this help\n"
    "  -V, --version        the version\n"
    "\n"
    "With no file, or -, standard input.  Exit 0, or 1 when something was wrong.\n";
#define NONE UINT64_MAX

static uint64_t t0, t1 = NONE;		/* the window [t0, t1) */
static uint64_t from_opt = NONE, to_opt = NONE, last_opt = NONE, step;
static uint64_t at_opt = NONE;	/* --at TIME */
static int at_peak;		/* --at peak */
static int64_t *pids;
static size_t npids;
static char **heaps;
static size_t nheaps;
static struct mt_regex *match_re, *exclude_re, *process_re;
static int spool = -1;		/* stdin, kept in a temporary file to read twice */
static struct mt_sink out;

static uint64_t nlife, nraw, nkept, input_end;	/* what the input held */
static const char *step_arg;

/* A series is an array a sample: bounded, as a step of 1ns is easy to type. */
#define MAX_SAMPLES 10000000

/* A time for a message, as a person reads it: seconds, to the nanosecond. */
static void
format_time(char *buf, size_t len, uint64_t ns)
{
	int n = snprintf(buf, len, "%" PRIu64 ".%09" PRIu64, ns / 1000000000, ns % 1000000000);

	while (n > 0 && buf[n - 1] == '0')
		n--;
	if (n > 0 && buf[n - 1] == '.')
		n--;
	snprintf(buf + n, len - (size_t)n, "s");
}

/* A window past the trace, or with nothing in it: a warning, not an error. */
static void
say_times(void)
{
	char a[64], b[64];

	if (!nlife)
		return;
	format_time(b, sizeof(b), input_end - 1);	/* its last time */
	if (from_opt != NONE && from_opt >= input_end) {
		format_time(a, sizeof(a), from_opt);
		fprintf(stderr, "%s: warning: --from %s is past the trace's end (%s)\n",
		    mt_progname, a, b);
	} else if (at_opt != NONE && at_opt >= input_end) {
		format_time(a, sizeof(a), at_opt);
		fprintf(stderr, "%s: warning: --at %s is past the trace's end (%s)\n",
		    mt_progname, a, b);
	} else if (to_opt != NONE && to_opt > input_end && at_opt == NONE) {
		format_time(a, sizeof(a), to_opt);
		fprintf(stderr, "%s: warning: --to %s is past the trace's end (%s)\n",
		    mt_progname, a, b);
	}
	if (!nkept && (at_opt != NONE || at_peak)) {
		format_time(a, sizeof(a), at_opt);
		fprintf(stderr, "%s: warning: no lifetimes live at %s%s\n", mt_progname,
		    at_peak ? "the peaks" : a, npids || nheaps || match_re || exclude_re ||
		    process_re ? " that the filters keep" : "");
	} else if (!nkept) {
		format_time(a, sizeof(a), t0);
		format_time(b, sizeof(b), t1);
		fprintf(stderr, "%s: warning: no lifetimes in the window [%s, %s)%s\n",
		    mt_progname, a, b, npids || nheaps || match_re || exclude_re || process_re ?
		    " that the filters keep" : "");
	}
}

/*
 * Dictionaries: which regular expressions a process's names matched, by
 * pid (bit 0 --match, bit 1 --exclude; bit 2 so that none is not NULL),
 * stacks by id, symbols by address.  Any name a pid has had counts.
 */
static struct u64map proc_match;

/*
 * Kept only for --match and --exclude: a stack's addresses until its first
 * use, which matches its frames against both and keeps only the answers.
 */
struct stack {
	size_t n;
	uint64_t ips[];
};
static struct u64map stacks;	/* id -> struct stack, or tagged answers */
static struct u64map syms;	/* address -> its frames, a line each:
				   function TAB file TAB module */
#define ANSWERED 1		/* low bit: the value is answers, bit 1 + which */

static void
add_sym(const struct mt_event *ev)
{
	void **v = u64map_get(&syms, ev->addr, 1);
	char *text = *v;
	size_t old = text ? strlen(text) : 0;
	size_t n = ev->s1.len + ev->s2.len + ev->s3.len + 4;

	/* Inlined frames: more lines for one address. */
	text = erealloc(text, old + n);
	memcpy(text + old, ev->s1.s, ev->s1.len);
	old += ev->s1.len;
	text[old++] = '\t';
	memcpy(text + old, ev->s2.s, ev->s2.len);
	old += ev->s2.len;
	text[old++] = '\t';
	memcpy(text + old, ev->s3.s, ev->s3.len);
	old += ev->s3.len;
	text[old++] = '\n';
	text[old] = '\0';
	*v = text;
}

/* Does any frame of the stack match re? */
static int
frames_match(const struct stack *st, struct mt_regex *re)
{
	void **sy;
	const char *p, *e;
	size_t i;

	for (i = 0; i < st->n; i++) {
		if (!(sy = u64map_get(&syms, st->ips[i], 0)))
			continue;
		/* Each field alone: function, file:line, module. */
		for (p = *sy; *p; p = e + 1) {
			e = p + strcspn(p, "\t\n");
			if (re_match(re, p, (size_t)(e - p)))
				return 1;
			if (!*e)
				break;
		}
	}
	return 0;
}

/* Does the process name, or any frame of the stack, match?  which: 0, 1. */
static int
matches(int which, int64_t pid, uint64_t stack_id, int has_stack)
{
	void **v, **sy;
	uintptr_t m;

	if ((sy = u64map_get(&proc_match, (uint64_t)pid, 0)) && ((uintptr_t)*sy >> which & 1))
		return 1;
	if (!has_stack || !(v = u64map_get(&stacks, stack_id, 0)))
		return 0;
	/* A stack's frames are matched once; sym lines come before it. */
	if (!((uintptr_t)*v & ANSWERED)) {
		struct stack *st = *v;

		m = ANSWERED;
		if (match_re && frames_match(st, match_re))
			m |= 2;
		if (exclude_re && frames_match(st, exclude_re))
			m |= 4;
		free(st);
		*v = (void *)m;
	}
	return (uintptr_t)*v >> (which + 1) & 1;
}

static int
keep(const struct mt_event *ev)
{
	size_t i;
	int has_stack = !(ev->flags & EV_STACK_NONE);

	if (npids) {
		for (i = 0; i < npids; i++)
			if (pids[i] == ev->pid)
				break;
		if (i == npids)
			return 0;
	}
	if (nheaps) {
		for (i = 0; i < nheaps; i++)
			if (strlen(heaps[i]) == ev->heap.len && !memcmp(heaps[i], ev->heap.s, ev->heap.len))
				break;
		if (i == nheaps)
			return 0;
	}
	if (process_re) {
		void **v = u64map_get(&proc_match, (uint64_t)ev->pid, 0);
		if (!v || !((uintptr_t)*v & 8))
			return 0;
	}
	if (match_re && !matches(0, ev->pid, ev->stack, has_stack))
		return 0;
	if (exclude_re && matches(1, ev->pid, ev->stack, has_stack))
		return 0;
	return 1;
}

/*
 * --series: outstanding bytes and count per (pid, heap), and the most and
 * least bytes outstanding at any instant within each step, kept as the
 * changes at the times where something changed: at the nanosecond while
 * they fit in CHANGES_KEPT, then in buckets of a coarser resolution (one
 * that divides the step), each with its rise and dip (the highest and
 * lowest its running sum went).  Buckets merged in time order keep them
 * exact; a change added to a bucket that holds others makes them bounds
 * (the order is unknown): the maximum is then never less than the truth,
 * the minimum never more, and the output says so.  Memory for the times
 * that change, never one a step (--series 10ns over a second once made
 * 100M of them a series).
 */
struct change {
	uint64_t k;		/* the bucket: times in (t0 + (k-1)r, t0 + kr] */
	int64_t bytes, count;	/* the net change */
	int64_t rise, dip;	/* the running sum's highest (>= 0), lowest (<= 0) */
};
struct series {
	int64_t pid;
	char *heap;
	size_t heaplen;
	struct change *c;
	size_t n, cap, sorted;	/* c[0..sorted) sorted and merged */
	size_t next;		/* 1 + the index of the pid's next series, or 0 */
	uint64_t peak_t;	/* --at peak: the first instant of its most bytes */
	int64_t peak_b, peak_c;
};
static struct series *series;
static size_t nseries, seriescap;
static struct u64map series_of_pid;	/* pid: 1 + the index of its first series */
static size_t series_last;		/* 1 + the index found last, or 0 */
#define CHANGES_KEPT (1u << 22)
static uint64_t resolution = 1;	/* r: ns a bucket */
static size_t nchanges;		/* in all series */
static int bounds;		/* a bucket took changes in an unknown order */

/* The series of (pid, heap), made when new: a lookup, not a walk of all. */
static struct series *
series_find(const struct mt_event *ev)
{
	struct series *s;
	void **first;
	size_t i;

	if (series_last) {
		s = &series[series_last - 1];
		if (s->pid == ev->pid && s->heaplen == ev->heap.len &&
		    !memcmp(s->heap, ev->heap.s, ev->heap.len))
			return s;
	}
	first = u64map_get(&series_of_pid, (uint64_t)ev->pid, 1);
	for (i = (size_t)(uintptr_t)*first; i; i = series[i - 1].next) {
		s = &series[i - 1];
		if (s->heaplen == ev->heap.len && !memcmp(s->heap, ev->heap.s, ev->heap.len)) {
			series_last = i;
			return s;
		}
	}
	series = egrow(series, nseries, &seriescap, sizeof(*series));
	s = &series[nseries++];
	memset(s, 0, sizeof(*s));
	s->pid = ev->pid;
	s->heap = estrndup(ev->heap.s, ev->heap.len);
	s->heaplen = ev->heap.len;
	s->next = (size_t)(uintptr_t)*first;
	*first = (void *)(uintptr_t)nseries;
	series_last = nseries;
	return s;
}

/*
 * The running sums over the buckets are wide, narrowed in the samples.
 * Changes at one nanosecond whose sum would not fit stay apart; merged
 * into coarser buckets, they stop at 63 bits.
 */
static struct mt_sat sat_bytes = { .column = "a sample's bytes" };
static struct mt_sat sat_count = { .column = "a sample's count" };

/* b, then a, in time order (b after a): the sum's rise and dip exact. */
static void
change_then(struct change *a, const struct change *b)
{
	int64_t up = sat_add(a->bytes, b->rise, &sat_bytes.hit);
	int64_t down = sat_add(a->bytes, b->dip, &sat_bytes.hit);

	a->rise = up > a->rise ? up : a->rise;
	a->dip = down < a->dip ? down : a->dip;
	a->bytes = sat_add(a->bytes, b->bytes, &sat_bytes.hit);
	a->count = sat_add(a->count, b->count, &sat_count.hit);
}

/* Two changes of one bucket whose order is unknown: 0 when kept apart. */
static int
change_with(struct change *a, const struct change *b)
{
	unsigned apart = 0;
	int64_t bytes, count;

	if (resolution == 1) {	/* at the same nanosecond: one change */
		bytes = sat_add(a->bytes, b->bytes, &apart);
		count = sat_add(a->count, b->count, &apart);
		if (apart)
			return 0;
		a->bytes = bytes;
		a->count = count;
		a->rise = a->bytes > 0 ? a->bytes : 0;
		a->dip = a->bytes < 0 ? a->bytes : 0;
		return 1;
	}
	a->bytes = sat_add(a->bytes, b->bytes, &sat_bytes.hit);
	a->count = sat_add(a->count, b->count, &sat_count.hit);
	/* Interleaved, any prefix is one of each's: their sum bounds it. */
	a->rise = sat_add(a->rise, b->rise, &sat_bytes.hit);
	a->dip = sat_add(a->dip, b->dip, &sat_bytes.hit);
	bounds = 1;
	return 1;
}

/* A sample's bytes or count, none past 2^63-1; a minimum below 0 is a
   bound, and every lifetime rose before it fell: 0. */
static uint64_t
sample_value(mt_wide v, struct mt_sat *sat)
{
	return v < 0 ? 0 : (uint64_t)sat_narrow(v, &sat->hit);
}

static int
change_cmp(const void *a, const void *b)
{
	const struct change *x = a, *y = b;

	return x->k < y->k ? -1 : x->k > y->k;
}

/* Sorted by bucket, one a bucket; none that changes nothing. */
static void
series_merge(struct series *s)
{
	size_t i, j = 0, before = s->n;

	if (s->sorted == s->n)
		return;
	qsort(s->c, s->n, sizeof(*s->c), change_cmp);
	for (i = 0; i < s->n; i++) {
		if (!(j && s->c[j - 1].k == s->c[i].k && change_with(&s->c[j - 1], &s->c[i])))
			s->c[j++] = s->c[i];
		if (!s->c[j - 1].bytes && !s->c[j - 1].count && !s->c[j - 1].rise &&
		    !s->c[j - 1].dip)
			j--;
	}
	s->n = s->sorted = j;
	nchanges -= before - j;
}

/* Too many changes kept: buckets m times as long, merged in time order,
   m the least factor of what is left of the step (a 1 s step: 2 nine
   times, then 5). */
static void
series_coarsen(void)
{
	uint64_t q = step / resolution, m = q;
	size_t i, j, n;

	for (i = 2; i < 1000000 && (uint64_t)i * i <= q; i++)
		if (q % i == 0) {
			m = i;
			break;
		}

	resolution *= m;
	for (i = 0; i < nseries; i++) {
		struct series *s = &series[i];

		series_merge(s);
		for (j = n = 0; j < s->n; j++) {
			uint64_t k = s->c[j].k / m + (s->c[j].k % m != 0);
			if (n && s->c[n - 1].k == k) {
				change_then(&s->c[n - 1], &s->c[j]);
			} else {
				s->c[n] = s->c[j];
				s->c[n++].k = k;
			}
		}
		nchanges -= s->n - n;
		s->n = s->sorted = n;
	}
}

static uint64_t
bucket(uint64_t t)
{
	return t <= t0 ? 0 : (t - t0 - 1) / resolution + 1;
}

/* A change in bytes and count at bucket k; rise and dip its own. */
static void
series_change(struct series *s, uint64_t k, int64_t bytes, int64_t count, int64_t rise)
{
	struct change *c;

	if (s->n == s->cap) {
		series_merge(s);
		if (s->n * 2 >= s->cap) {
			s->cap = s->cap ? 2 * s->cap : 2;
			s->c = erealloc(s->c, s->cap * sizeof(*s->c));
		}
	}
	c = &s->c[s->n++];
	c->k = k;
	c->bytes = bytes;
	c->count = count;
	c->rise = rise;
	c->dip = bytes < 0 ? bytes : 0;
	if (++nchanges > CHANGES_KEPT && resolution < step)
		series_coarsen();
}

static void
series_add(const struct mt_event *ev, uint64_t ta, uint64_t tf, int64_t size)
{
	struct series *s = series_find(ev);
	uint64_t ka = bucket(ta);

	/* Live at t when ta <= t < tf; nothing for one that ended by t0. */
	if (tf != NONE && (tf <= t0 || tf <= ta))
		return;
	if (tf != NONE && bucket(tf) == ka) {
		/* Within one bucket: up by its size and down again, in order. */
		series_change(s, ka, 0, 0, size);
		return;
	}
	series_change(s, ka, size, 1, size > 0 ? size : 0);
	if (tf != NONE)
		series_change(s, bucket(tf), -size, -1, 0);
}

static void
series_write(uint64_t end)
{
	/* Samples to the first at or after the trace's last instant, so
	   that the last step, whole or not, has its most and least. */
	uint64_t k, kmax = (end - 1 - t0 + step - 1) / step + 1, per = step / resolution;
	struct mt_event ev;
	size_t i;

	for (i = 0; i < nseries; i++)
		series_merge(&series[i]);
	if (bounds) {
		char r[64], line[200];

		format_time(r, sizeof(r), resolution);
		memset(&ev, 0, sizeof(ev));
		ev.type = MT_COMMENT;
		ev.s1.s = line;
		ev.s1.len = (size_t)snprintf(line, sizeof(line), "#mt-window: a sample's maximum "
		    "and minimum are bounds at %s (too many changes to keep each)", r);
		sink_put(&out, &ev);
	}
	for (i = 0; i < nseries; i++) {
		struct series *s = &series[i];
		mt_wide b = 0, c = 0, hi, lo;
		uint64_t thi, tlo;
		size_t j = 0;

		series_merge(s);
		for (k = 0; k < kmax; k++) {
			/* The step (t0 + (k-1)step, t0 + k step]: its buckets,
			   and the first instant each extreme was reached (a
			   bucket's end: the nanosecond while exact). */
			hi = lo = b;
			thi = tlo = k ? t0 + (k - 1) * step : t0;
			for (; j < s->n && s->c[j].k <= k * per; j++) {
				mt_wide up = b + s->c[j].rise, down = b + s->c[j].dip;
				uint64_t tc = t0 + s->c[j].k * resolution;

				if (up > hi) {
					hi = up;
					thi = tc;
				}
				if (down < lo) {
					lo = down;
					tlo = tc;
				}
				b += s->c[j].bytes;
				c += s->c[j].count;
			}
			if (k == 0) {	/* the first sample is an instant */
				hi = lo = b;
				thi = tlo = t0;
			}
			memset(&ev, 0, sizeof(ev));
			ev.type = MT_SAMPLE;
			ev.flags = EV_RANGE | EV_INSTANTS;
			ev.ts = t0 + k * step;
			ev.ts2 = thi;
			ev.count[2] = tlo;
			ev.pid = s->pid;
			ev.heap = (struct mt_str){ s->heap, s->heaplen };
			ev.size = sample_value(b, &sat_bytes);
			ev.stack = sample_value(c, &sat_count);
			ev.count[0] = sample_value(hi, &sat_bytes);
			ev.count[1] = sample_value(lo, &sat_bytes);
			sink_put(&out, &ev);
		}
	}
}

/*
 * --at peak: each series' peak, the first instant its bytes outstanding
 * are the most, from the changes of a first reading; the changes freed.
 * In buckets coarser than a nanosecond the instant is the bucket's end.
 */
static void
series_peaks(void)
{
	size_t i, j;

	for (i = 0; i < nseries; i++) {
		struct series *s = &series[i];
		mt_wide b = 0, c = 0, peak_b = 0, peak_c = 0;

		series_merge(s);
		s->peak_t = t0;
		for (j = 0; j < s->n; j++) {
			mt_wide top = b + s->c[j].rise;

			b += s->c[j].bytes;
			c += s->c[j].count;
			if (top > peak_b || j == 0) {
				peak_b = top;
				peak_c = c;
				s->peak_t = t0 + s->c[j].k * resolution;
			}
		}
		if (peak_b < 0)
			peak_b = peak_c = 0;
		s->peak_b = (int64_t)sample_value(peak_b, &sat_bytes);
		s->peak_c = (int64_t)sample_value(peak_c, &sat_count);
		free(s->c);
		s->c = NULL;
		s->n = s->cap = s->sorted = 0;
	}
	if (resolution > 1)
		fprintf(stderr, "%s: too many changes to keep each: a peak's instant is "
		    "known to %" PRIu64 " ns%s\n", mt_progname, resolution,
		    bounds ? ", its bytes are a bound" : "");
}

/* The peaks, as sample lines, after the window line. */
static void
put_peaks(void)
{
	static int put;
	struct mt_event ev;
	size_t i;

	if (put++)
		return;
	for (i = 0; at_peak && i < nseries; i++) {
		memset(&ev, 0, sizeof(ev));
		ev.type = MT_SAMPLE;
		ev.ts = series[i].peak_t;
		ev.pid = series[i].pid;
		ev.heap = (struct mt_str){ series[i].heap, series[i].heaplen };
		ev.size = (uint64_t)series[i].peak_b;
		ev.stack = (uint64_t)series[i].peak_c;
		sink_put(&out, &ev);
	}
}

/* The end so far, after a record: the last time any record carries, plus one. */
static uint64_t
end_after(const struct mt_event *ev, uint64_t end)
{
	if (ev->type == MT_LIFE) {
		if (!(ev->flags & EV_TS_NONE) && ev->ts >= end)
			end = ev->ts + 1;
		if (!(ev->flags & EV_TS2_NONE) && ev->ts2 >= end)
			end = ev->ts2 + 1;
	} else if ((ev->type == MT_ALLOC || ev->type == MT_FREE || ev->type == MT_EXIT ||
	    ev->type == MT_PROC || ev->type == MT_LOST) && ev->ts >= end) {
		end = ev->ts + 1;
	}
	return end;
}

/* The input, once more: a copy of stdin is still named stdin. */
static struct mt_reader *
open_input(const char *path)
{
	int fd;

	if (spool < 0)
		return reader_open(path);
	if (lseek(spool, 0, SEEK_SET) < 0 || (fd = dup(spool)) < 0) {
		fprintf(stderr, "%s: spooled stdin: %s\n", mt_progname, strerror(errno));
		mt_status = 1;
		return NULL;
	}
	return reader_open_fd(fd, "<stdin>");
}

/* The end of the trace: the last time any record carries, plus one. */
static uint64_t
last_time(const char *path, int *unread)
{
	struct mt_reader *r = open_input(path);
	struct mt_event ev;
	uint64_t end = 0;

	*unread = !r;
	if (!r)
		return 0;
	reader_quiet(r);	/* the pass that writes says what is wrong, once */
	while (reader_next(r, &ev))
		end = end_after(&ev, end);
	reader_close(r);
	return end;
}

/* The window line goes first, after the header if the stream has one. */
static void
put_window(void)
{
	struct mt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = MT_WINDOW;
	ev.ts = t0;
	ev.ts2 = t1;
	sink_put(&out, &ev);
}

static int
window(const char *path, int peaks)
{
	struct mt_reader *r;
	struct mt_event ev;
	uint64_t ta, tf;
	int ai, fi, first = 1;

	if (!(r = open_input(path)))
		return 1;
	if (peaks)
		reader_quiet(r);	/* the pass that writes says what is wrong */
	while (reader_next(r, &ev)) {
		if (first && !step && !peaks) {
			first = 0;
			if (ev.type == MT_COMMENT && ev.s1.len >= 10 && !memcmp(ev.s1.s, "#mt-events", 10)) {
				sink_pass(&out, r, &ev);
				put_window();
				continue;
			}
			put_window();
		}
		switch (ev.type) {
		case MT_PROC: {
			void **v = u64map_get(&proc_match, (uint64_t)ev.pid, 1);
			uintptr_t m = (uintptr_t)*v | 4;

			size_t n;
			const char *name = proc_name(ev.s1.s, ev.s1.len, &n);

			if (match_re && re_match(match_re, ev.s1.s, ev.s1.len))
				m |= 1;
			if (exclude_re && re_match(exclude_re, ev.s1.s, ev.s1.len))
				m |= 2;
			/* Each image its own name: an exec renames the process. */
			m &= ~(uintptr_t)8;
			if (process_re && re_match(process_re, name, n))
				m |= 8;
			*v = (void *)m;
			break;
		}
		case MT_STACK: {
			void **v;
			struct stack *st;

			if (!match_re && !exclude_re)
				break;
			v = u64map_get(&stacks, ev.stack, 1);
			if (!((uintptr_t)*v & ANSWERED))
				free(*v);
			st = emalloc(sizeof(*st) + ev.nips * sizeof(st->ips[0]));
			memcpy(st->ips, ev.ips, ev.nips * sizeof(st->ips[0]));
			st->n = ev.nips;
			*v = st;
			break;
		}
		case MT_SYM:
			if (match_re || exclude_re)
				add_sym(&ev);
			break;
		case MT_WINDOW:
			continue;	/* ours replaces it */
		default:
			break;
		}
		if (!peaks)
			input_end = end_after(&ev, input_end);
		if (ev.type == MT_LIFE && !peaks)
			put_peaks();	/* after the dictionary before the first */
		if (ev.type != MT_LIFE) {
			if (ev.type == MT_ALLOC || ev.type == MT_FREE)
				nraw += !peaks;
			/* A series passes the processes' names on, for its readers. */
			if ((!step || ev.type == MT_PROC) && !peaks)
				sink_pass(&out, r, &ev);
			continue;
		}
		ta = ev.flags & EV_TS_NONE ? 0 : ev.ts;
		tf = ev.flags & EV_TS2_NONE ? NONE : ev.ts2;
		if (peaks) {
			if ((tf == NONE || tf > t0) && keep(&ev))
				series_add(&ev, ta, tf, ev.flags & EV_SIZE_NONE ? 0 : (int64_t)ev.size);
			continue;
		}
		nlife++;
		if (at_peak || at_opt != NONE) {
			/* Live at the instant: allocated by it, freed after it. */
			uint64_t at = at_opt;
			if (at_peak) {
				struct series *s = keep(&ev) ? series_find(&ev) : NULL;
				if (!s)
					continue;
				at = s->peak_t;
			}
			if (ta > at || (tf != NONE && tf <= at))
				continue;
		}
		/*
		 * A block its process never freed (the fate exit) is, in a
		 * table, outstanding for ever, as in WPA, where an exit writes
		 * no free; the graph and --at still see it end with its
		 * process.
		 */
		if (!step && !at_peak && at_opt == NONE && ev.s2.len == 4 &&
		    !memcmp(ev.s2.s, "exit", 4))
			tf = NONE;
		/* In the window iff it began before its end and ended after its start. */
		if (!((ev.flags & EV_TS_NONE) || ta < t1) || !(tf == NONE || tf > t0))
			continue;
		if (!keep(&ev))
			continue;
		nkept++;
		ai = !(ev.flags & EV_TS_NONE) && ta >= t0;
		fi = tf != NONE && tf < t1;
		if (at_peak || at_opt != NONE)
			fi = 0;		/* outstanding at the instant */
		if (ev.flags & EV_SIZE_NONE)
			ev.impact = 0;
		else
			ev.impact = ai && !fi ? (int64_t)ev.size : !ai && fi ? -(int64_t)ev.size : 0;
		ev.s1.s = ai ? (fi ? "aifi" : "aifo") : (fi ? "aofi" : "aofo");
		ev.s1.len = 4;
		if (step) {
			series_add(&ev, ev.flags & EV_TS_NONE ? 0 : ta, tf,
			    ev.flags & EV_SIZE_NONE ? 0 : (int64_t)ev.size);
			continue;
		}
		/* The fate field, if any, goes with the line as it was. */
		sink_put(&out, &ev);
	}
	return reader_close(r);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "from", required_argument, NULL, 'f' },
		{ "to", required_argument, NULL, 't' },
		{ "last", required_argument, NULL, 'l' },
		{ "pid", required_argument, NULL, 'p' },
		{ "heap", required_argument, NULL, 'H' },
		{ "match", required_argument, NULL, 'm' },
		{ "process", required_argument, NULL, 'N' },
		{ "exclude", required_argument, NULL, 'x' },
		{ "series", required_argument, NULL, 'i' },
		{ "at", required_argument, NULL, 'a' },
		{ "binary", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	char tmpname[4096], *end_s;
	const char *tmpdir = getenv("TMPDIR");
	const char *input = NULL;
	uint64_t end = 0;
	int ch, status = 0, binary = 0, unread = 0;
	long v;

	mt_setprogname(argv[0]);
	while ((ch = getopt_long(argc, argv, "bf:t:l:p:H:N:m:x:i:s:hV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'a':
			if (!strcmp(optarg, "peak"))
				at_peak = 1;
			else
				at_opt = eduration("--at", optarg, 1);
			break;
		case 'b':
			binary = 1;
			break;
		case 'f':
			from_opt = eduration("--from", optarg, 1);
			break;
		case 't':
			to_opt = eduration("--to", optarg, 1);
			break;
		case 'l':
			last_opt = eduration("--last", optarg, 1);
			break;
		case 'i':
		case 's':
			step = eduration("--series", optarg, 0);
			step_arg = optarg;
			break;
		case 'p':
			v = strtol(optarg, &end_s, 10);
			if (*end_s || end_s == optarg || v < 0) {
				fprintf(stderr, "%s: bad pid '%s'\n", mt_progname, mt_shown(mt_shown(optarg, strlen(optarg)), strlen(optarg)));
				return 2;
			}
			pids = erealloc(pids, (npids + 1) * sizeof(*pids));
			pids[npids++] = v;
			break;
		case 'H':
			heaps = erealloc(heaps, (nheaps + 1) * sizeof(*heaps));
			heaps[nheaps++] = optarg;
			break;
		case 'm':
			match_re = re_compile(optarg);
			break;
		case 'N':
			process_re = re_compile(optarg);
			break;
		case 'x':
			exclude_re = re_compile(optarg);
			break;
		case 'h':
			mt_usage(1, synopsis, options);
		case 'V':
			mt_version();
		default:
			mt_usage(0, synopsis, options);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > 1 || (last_opt != NONE && (from_opt != NONE || to_opt != NONE)))
		mt_usage(0, synopsis, options);
	if ((at_peak || at_opt != NONE) && (step || from_opt != NONE || to_opt != NONE ||
	    last_opt != NONE)) {
		fprintf(stderr, "%s: --at is an instant: not with --from, --to, --last or "
		    "--series\n", mt_progname);
		return 2;
	}
	if (at_opt != NONE)	/* the window from the trace's start to the instant */
		to_opt = at_opt + 1;
	if (!reader_inputs(&argc, argv))
		return 1;
	if (argc == 1)
		input = argv[0];
	/* The end of the trace is needed first: read it twice, stdin spooled. */
	if (last_opt != NONE || to_opt == NONE) {
		if (!input || strcmp(input, "-") == 0) {
			snprintf(tmpname, sizeof(tmpname), "%s/mt-window.XXXXXX",
			    tmpdir && *tmpdir ? tmpdir : "/tmp");
			if ((spool = mkstemp(tmpname)) < 0) {
				fprintf(stderr, "%s: %s: %s\n", mt_progname, tmpname, strerror(errno));
				return 2;
			}
			unlink(tmpname);
			if ((status = reader_spool(spool)))
				return status;
		}
		end = last_time(input, &unread);
		if (unread)	/* said once: the second pass would say it again */
			return 1;
	}
	if (last_opt != NONE) {
		t1 = end;
		t0 = end > last_opt ? end - last_opt : 0;
	} else {
		t0 = from_opt == NONE ? 0 : from_opt;
		t1 = to_opt == NONE ? (end > t0 ? end : t0 + 1) : to_opt;
	}
	if (t1 <= t0) {
		fprintf(stderr, "%s: empty window: --to must come after --from\n", mt_progname);
		return 2;
	}
	if (step && (t1 - t0 - 1) / step >= MAX_SAMPLES) {
		fprintf(stderr, "%s: --series %s makes %" PRIu64 " samples a series, more than "
		    "%d: a longer step, or a shorter window\n", mt_progname, step_arg,
		    (t1 - t0 - 1) / step + 1, MAX_SAMPLES);
		return 2;
	}
	if (binary && isatty(STDOUT_FILENO)) {
		fprintf(stderr, "%s: binary output to a terminal\n", mt_progname);
		return 2;
	}
	sink_init(&out, STDOUT_FILENO, binary);
	if (at_peak) {
		/* A series with one step, the window (a power of 2, for buckets
		   that double): its changes give the peaks. */
		for (step = 1; step < t1 - t0 && step < (UINT64_C(1) << 62); step *= 2)
			;
		status |= window(input, 1);
		series_peaks();
		step = 0;
	}
	status |= window(input, 0);
	put_peaks();
	if (step && nlife)
		series_write(t1);
	status |= sink_finish(&out);
	if (!nlife && nraw) {
		fprintf(stderr, "%s: no life records: run mt-lifetime first\n", mt_progname);
		return 1;
	}
	say_times();
	sat_say(&sat_bytes);
	sat_say(&sat_count);
	return status | mt_status;
}
