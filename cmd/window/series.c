/*
 * mt-window --series and --at peak: the memory outstanding per process
 * and heap, kept as the changes at the times where something changed,
 * written as sample lines a step apart or read for each one's peak.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "window.h"

/*
 * --series: outstanding bytes and count per (pid, heap), and the most and
 * least bytes outstanding at any instant within each step, kept as the
 * changes at the times where something changed, at the nanosecond: past
 * first_kept(), in sorted runs in TMPDIR (seriesrun.c).  Memory for the
 * times that change, never one a step: a fine step over a long trace
 * would make too many.
 *
 * --at peak's first reading keeps them in buckets of a coarser resolution
 * past first_kept() (one that divides the step), each with its rise and
 * dip (the highest and lowest its running sum went).  Buckets merged in
 * time order keep them exact; a change added to a bucket that holds
 * others makes them bounds (the order is unknown): the maximum is then
 * never less than the truth, and peak.c reads those buckets again.
 */
struct series {
	int64_t pid;
	char *heap;
	size_t heaplen;
	struct change *c;
	size_t n, cap, sorted;	/* c[0..sorted) sorted and merged */
	size_t counted;		/* n, were changes merged only when c is full */
	size_t next;		/* 1 + the index of the pid's next series, or 0 */
	uint64_t peak_t;	/* --at peak: the first instant of its most bytes */
	int64_t peak_b, peak_c;
};
static struct series *series;
static size_t nseries, seriescap;
static struct u64map series_of_pid;	/* pid: 1 + the index of its first series */
static size_t series_last;		/* 1 + the index found last, or 0 */
#define CHANGES_KEPT (1u << 22)	/* MT_WINDOW_KEEP, for tests: fewer */
#define TAIL_KEPT (1u << 16)	/* new changes sorted at once, at least */
static uint64_t resolution = 1;	/* r: ns a bucket */

uint64_t
changes_kept(void)
{
	static uint64_t n;
	const char *e;

	if (!n) {
		e = getenv("MT_WINDOW_KEEP");
		n = e && atoll(e) > 0 && atoll(e) < CHANGES_KEPT ? (uint64_t)atoll(e) : CHANGES_KEPT;
	}
	return n;
}

/*
 * --at peak's first reading keeps a quarter: what it cannot tell apart is
 * read again, and sorting a long list of changes costs more than that
 * (10M events of gen-trace: 1.6 s and 66 MB, not 3.3 s and 227 MB).
 */
uint64_t
first_kept(void)
{
	return changes_kept() / 4 ? changes_kept() / 4 : 1;
}
static size_t nchanges;		/* the counted of all series */

/* The series of (pid, heap), made when new: a lookup, not a walk of all. */
struct series *
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
struct mt_sat sat_bytes = { .column = "a sample's bytes" };
struct mt_sat sat_count = { .column = "a sample's count" };

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
	a->raw += b->raw;
}

/* Two changes of one bucket whose order is unknown: 0 when kept apart. */
int
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
		a->raw += b->raw;
		a->rise = a->bytes > 0 ? a->bytes : 0;
		a->dip = a->bytes < 0 ? a->bytes : 0;
		return 1;
	}
	a->bytes = sat_add(a->bytes, b->bytes, &sat_bytes.hit);
	a->count = sat_add(a->count, b->count, &sat_count.hit);
	/* Interleaved, any prefix is one of each's: their sum bounds it. */
	a->rise = sat_add(a->rise, b->rise, &sat_bytes.hit);
	a->dip = sat_add(a->dip, b->dip, &sat_bytes.hit);
	a->raw += b->raw;
	return 1;
}

/* A sample's bytes or count, none past 2^63-1; a minimum below 0 is a
   bound, and every lifetime rose before it fell: 0. */
static uint64_t
sample_value(mt_wide v, struct mt_sat *sat)
{
	return v < 0 ? 0 : (uint64_t)sat_narrow(v, &sat->hit);
}

/*
 * The changes appended since the last merge, c[sorted..n), into buf in
 * bucket order, equal buckets in arrival order: a least-significant-digit
 * radix sort, stable, an odd number of passes so that it ends in buf.
 */
static void
tail_sort(const struct change *c, size_t t, struct change *buf)
{
	static size_t count[1 << 16];
	uint64_t lo = UINT64_MAX, hi = 0, span;
	const struct change *from;
	struct change *to;
	unsigned bits = 0, passes, width, shift, p, digit;
	size_t i, sum, ndigit;

	for (i = 0; i < t; i++) {
		lo = c[i].k < lo ? c[i].k : lo;
		hi = c[i].k > hi ? c[i].k : hi;
	}
	for (span = t ? hi - lo : 0; span; span >>= 1)
		bits++;
	/* Digits of 16 bits for a long tail (a run of --series: 3 passes,
	   not 5, over keys of 35 bits), of 11 for a short one. */
	digit = t >= (1u << 18) ? 16 : 11;
	passes = (bits + digit - 1) / digit;
	passes += !(passes & 1);
	width = (bits + passes - 1) / passes;
	ndigit = (size_t)1 << width;
	from = c;
	to = buf;
	for (p = 0, shift = 0; p < passes; p++, shift += width) {
		memset(count, 0, ndigit * sizeof(count[0]));
		for (i = 0; i < t; i++)
			count[(from[i].k - lo) >> shift & (ndigit - 1)]++;
		for (i = sum = 0; i < ndigit; i++) {
			size_t n = count[i];
			count[i] = sum;
			sum += n;
		}
		for (i = 0; i < t; i++)
			to[count[(from[i].k - lo) >> shift & (ndigit - 1)]++] = from[i];
		/* Back and forth between the tail and buf, once more into buf. */
		from = to;
		to = to == buf ? (struct change *)(uintptr_t)c : buf;
	}
}

/*
 * Sorted by bucket, one a bucket; none that changes nothing.  The kept
 * changes are sorted already: only the new ones are sorted, then merged
 * in, a kept change before new ones of its bucket, as a stable sort of
 * them all would put them.
 */
static void series_peak_set(struct series *s, mt_wide b, mt_wide c);
static struct change *buf;	/* the new changes, sorted */
static size_t bufcap;

static void
series_merge(struct series *s)
{
	size_t p, q, j = 0, kept = s->sorted, t = s->n - s->sorted;
	struct change *old, e;

	if (!t)
		return;
	if (t > bufcap) {
		bufcap = t;
		free(buf);
		buf = emalloc(bufcap * sizeof(*buf));
	}
	tail_sort(s->c + kept, t, buf);
	/* The kept ones after the tail's room: written never past read. */
	old = s->c + t;
	memmove(old, s->c, kept * sizeof(*s->c));
	for (p = q = 0; p < kept || q < t; ) {
		e = q == t || (p < kept && old[p].k <= buf[q].k) ? old[p++] : buf[q++];
		if (!(j && s->c[j - 1].k == e.k && change_with(&s->c[j - 1], &e)))
			s->c[j++] = e;
		/* What changes nothing goes; not the count --at peak reads again. */
		if (!s->c[j - 1].bytes && !s->c[j - 1].count && !s->c[j - 1].rise &&
		    !s->c[j - 1].dip) {
			if (--j && s->c[j].raw)
				s->c[j - 1].raw += s->c[j].raw;
		}
	}
	s->n = s->sorted = j;
}

/* Too many changes kept: buckets m times as long, merged in time order,
   m the least factor of what is left of the step (a 1 s step: 2 nine
   times, then 5). */
static void
series_coarsen(const struct window_opts *o)
{
	uint64_t q = o->step / resolution, m = q;
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
		nchanges -= s->counted - n;
		s->n = s->sorted = s->counted = n;
	}
}

/*
 * --series past the changes kept: each series' written as a run to
 * TMPDIR, merged back at the end (seriesrun.c), so that every sample
 * stays exact at the nanosecond.
 */
static void
series_spill(void)
{
	size_t i;

	for (i = 0; i < nseries; i++) {
		struct series *s = &series[i];
		series_merge(s);
		if (s->n)
			runs_put(i, s->c, s->n);
		s->n = s->sorted = s->counted = 0;
	}
	runs_end();
	nchanges = 0;
}

/* A series' next change in time order, from memory or the runs. */
static int
next_change(struct series *s, size_t *j, struct change *e)
{
	if (runs_any())
		return runs_next(e);
	if (*j == s->n)
		return 0;
	*e = s->c[(*j)++];
	return 1;
}

static uint64_t
bucket(const struct window_opts *o, uint64_t t)
{
	return t <= o->t0 ? 0 : (t - o->t0 - 1) / resolution + 1;
}

/* A change in bytes and count at bucket k; rise and dip its own. */
static void
series_change(const struct window_opts *o, struct series *s, uint64_t k, int64_t bytes,
    int64_t count, int64_t rise)
{
	struct change *c;

	/*
	 * When to make the buckets coarser is counted as if the changes were
	 * merged only when the array is full, the output the same whenever
	 * they are; they are merged sooner, a tail of new ones at a time, so
	 * that sorting them takes little room.
	 */
	if (s->counted == s->cap) {
		series_merge(s);
		nchanges -= s->counted - s->n;
		s->counted = s->n;
		if (s->n * 2 >= s->cap) {
			/* Not held while the changes move to a larger array. */
			free(buf);
			buf = NULL;
			bufcap = 0;
			s->cap = s->cap ? 2 * s->cap : 2;
			s->c = erealloc(s->c, s->cap * sizeof(*s->c));
		}
	}
	s->counted++;
	c = &s->c[s->n++];
	c->k = k;
	c->bytes = bytes;
	c->count = count;
	c->rise = rise;
	c->dip = bytes < 0 ? bytes : 0;
	c->raw = count ? 1 : 2;	/* none: a lifetime within the bucket */
	/*
	 * --series sorts a run once, when it is written: merged a tail at a
	 * time, the changes kept were moved some 35 times a run.
	 */
	if (!o->at_peak) {
		if (++nchanges > first_kept())
			series_spill();
	} else if (++nchanges > first_kept() && resolution < o->step) {
		series_coarsen(o);
	} else if (s->n - s->sorted >= TAIL_KEPT && s->n - s->sorted >= s->sorted / 8) {
		series_merge(s);
	}
}

void
series_add(const struct window_opts *o, const struct mt_event *ev, uint64_t ta, uint64_t tf,
    int64_t size)
{
	struct series *s = series_find(ev);
	uint64_t ka = bucket(o, ta);

	/* Live at t when ta <= t < tf; nothing for one that ended by t0. */
	if (tf != NONE && (tf <= o->t0 || tf <= ta))
		return;
	if (tf != NONE && bucket(o, tf) == ka) {
		/* Within one bucket: up by its size and down again, in order. */
		series_change(o, s, ka, 0, 0, size);
		return;
	}
	series_change(o, s, ka, size, 1, size > 0 ? size : 0);
	if (tf != NONE)
		series_change(o, s, bucket(o, tf), -size, -1, 0);
}

void
series_write(const struct window_opts *o, uint64_t end)
{
	/* Samples to the first at or after the trace's last instant, so
	   that the last step, whole or not, has its most and least. */
	uint64_t k, kmax = (end - 1 - o->t0 + o->step - 1) / o->step + 1, per = o->step / resolution;
	struct mt_event ev;
	size_t i;

	if (runs_any())
		series_spill();
	for (i = 0; i < nseries; i++)
		series_merge(&series[i]);
	for (i = 0; i < nseries; i++) {
		struct series *s = &series[i];
		mt_wide b = 0, c = 0, hi, lo;
		uint64_t thi, tlo;
		struct change e;
		size_t j = 0;
		int have;

		series_merge(s);
		if (runs_any())
			runs_open(i);
		have = next_change(s, &j, &e);
		for (k = 0; k < kmax; k++) {
			/* The step (t0 + (k-1)step, t0 + k step]: its buckets,
			   and the first instant each extreme was reached (a
			   bucket's end: the nanosecond while exact). */
			hi = lo = b;
			thi = tlo = k ? o->t0 + (k - 1) * o->step : o->t0;
			for (; have && e.k <= k * per; have = next_change(s, &j, &e)) {
				mt_wide up = b + e.rise, down = b + e.dip;
				uint64_t tc = o->t0 + e.k * resolution;

				if (up > hi) {
					hi = up;
					thi = tc;
				}
				if (down < lo) {
					lo = down;
					tlo = tc;
				}
				b += e.bytes;
				c += e.count;
			}
			if (k == 0) {	/* the first sample is an instant */
				hi = lo = b;
				thi = tlo = o->t0;
			}
			memset(&ev, 0, sizeof(ev));
			ev.type = MT_SAMPLE;
			ev.flags = EV_RANGE | EV_INSTANTS;
			ev.ts = o->t0 + k * o->step;
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
 * In buckets coarser than a nanosecond, each bucket goes to peak.c, to
 * be read again where it may hold the peak: 1 then.
 */
int
series_peaks(const struct window_opts *o)
{
	size_t i, j;

	for (i = 0; i < nseries; i++) {
		struct series *s = &series[i];
		mt_wide b = 0, c = 0, peak_b = 0, peak_c = 0;

		series_merge(s);
		s->peak_t = o->t0;
		/* Its floor first: only the buckets that may reach it are kept. */
		for (j = 0; resolution > 1 && j < s->n; j++)
			peak_floor(i, b += s->c[j].bytes);
		b = 0;
		if (resolution > 1)
			peak_reserve(s->n);
		for (j = 0; j < s->n; j++) {
			mt_wide top = b + s->c[j].rise;
			uint64_t k = s->c[j].k;

			if (resolution > 1)
				peak_bucket(i, k ? o->t0 + (k - 1) * resolution + 1 : o->t0,
				    o->t0 + k * resolution, b, c, b + s->c[j].bytes, top,
				    s->c[j].raw);
			b += s->c[j].bytes;
			c += s->c[j].count;
			if (top > peak_b || j == 0) {
				peak_b = top;
				peak_c = c;
				s->peak_t = o->t0 + k * resolution;
			}
		}
		series_peak_set(s, peak_b, peak_c);
		free(s->c);
		s->c = NULL;
		s->n = s->cap = s->sorted = s->counted = 0;
	}
	return resolution > 1;
}

static void
series_peak_set(struct series *s, mt_wide b, mt_wide c)
{
	if (b < 0)
		b = c = 0;
	s->peak_b = (int64_t)sample_value(b, &sat_bytes);
	s->peak_c = (int64_t)sample_value(c, &sat_count);
}

/* After peak.c's readings: each series' peak theirs. */
void
series_peaks_exact(void)
{
	size_t i;
	mt_wide b, c;

	for (i = 0; i < nseries; i++)
		if (peak_found(i, &series[i].peak_t, &b, &c))
			series_peak_set(&series[i], b, c);
}

size_t
series_index(const struct series *s)
{
	return (size_t)(s - series);
}

/* The peaks, as sample lines, after the window line. */
void
put_peaks(const struct window_opts *o)
{
	static int put;
	struct mt_event ev;
	size_t i;

	if (put++)
		return;
	for (i = 0; o->at_peak && i < nseries; i++) {
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

/* --at peak: the instant of the series' peak, the one a lifetime is seen at. */
uint64_t
series_peak_time(const struct series *s)
{
	return s->peak_t;
}
