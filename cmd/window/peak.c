/*
 * --at peak, exact past the changes a first reading keeps at the
 * nanosecond.  Its coarser buckets bound each series' peak: the sums at
 * a bucket's end are exact, and nothing within a bucket is more than the
 * sum before it and its rise.  The buckets that may hold more than the
 * most found so far are read again: their changes kept each, as many as
 * the budget holds, most promising first, or a bucket with more than that
 * cut into finer cells that bound it again.  Each reading settles the
 * buckets it kept exactly or makes their bounds finer, until no bucket
 * may hold more than the peak found: its first instant and bytes exact,
 * in the memory of the budget.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "window.h"

struct exact {
	uint64_t t;
	int64_t bytes;
	uint32_t cand;		/* its index in cands */
	int32_t count;
};
struct cell {
	int64_t bytes, count, up;	/* up: what its rises add, at most */
	uint64_t raw;
};
/* A bucket that may hold its series' peak: sums saturate at 63 bits, as the first reading's. */
struct cand {
	uint64_t lo, hi;	/* its instants, lo..hi */
	int64_t base_b, base_c;	/* the sums before lo */
	int64_t ub;		/* no instant in it has more bytes */
	uint32_t series : 31;
	uint32_t each : 1;	/* peak_choose's: read change by change */
	uint32_t raw;		/* changes in it (at most 2^32-1, for the budget); 0: closed */
};
struct best {
	int64_t floor;		/* a sum some instant has, whose instant is not known */
	int64_t b, c;		/* the most found at a known instant, its count */
	uint64_t t;
	int known, any;
};

static struct cand *cands;
static size_t ncands, candcap;
static struct best *best;
static size_t nbest;
/* The candidates read this time, by series and instant: their indexes. */
static uint32_t *chosen;
static size_t nchosen;
/* How a chosen one is read: change by change, or in cells of a width. */
struct how {
	uint64_t width;		/* 0: each change */
	size_t cell0, ncells;	/* its cells in cells[] */
};
static struct how *how;
/* A reading's changes of the candidates read each, and the cells of the others. */
static struct exact *ex;
static size_t nex, excap;
static struct cell *cells;
static size_t ncells;

static struct best *
best_of(size_t series)
{
	size_t n = nbest;

	if (series >= nbest) {
		nbest = series + 1;
		best = erealloc(best, nbest * sizeof(*best));
		memset(best + n, 0, (nbest - n) * sizeof(*best));
	}
	return &best[series];
}

static int64_t
narrow(mt_wide v)
{
	return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v;
}

/* A sum some instant of the series has (a bucket's at its end). */
void
peak_floor(size_t series, mt_wide v)
{
	struct best *b = best_of(series);

	if (!b->any || narrow(v) > b->floor)
		b->floor = narrow(v);
	b->any = 1;
}

/* Room for n more buckets, so that the list is not twice their size. */
void
peak_reserve(size_t n)
{
	if (ncands + n > candcap) {
		candcap = ncands + n;
		cands = erealloc(cands, candcap * sizeof(*cands));
	}
}

/* A bucket whose most (ub) may reach its series' floor: read again, may be. */
void
peak_bucket(size_t series, uint64_t lo, uint64_t hi, mt_wide base_b, mt_wide base_c,
    mt_wide end_b, mt_wide ub, uint64_t raw)
{
	struct cand *c;

	peak_floor(series, end_b);
	if (narrow(ub) < best[series].floor)
		return;
	cands = egrow(cands, ncands + 1, &candcap, sizeof(*cands));
	c = &cands[ncands++];
	memset(c, 0, sizeof(*c));
	c->series = (uint32_t)series;
	c->lo = lo;
	c->hi = hi;
	c->base_b = narrow(base_b);
	c->base_c = narrow(base_c);
	c->ub = narrow(ub);
	c->raw = raw > UINT32_MAX ? UINT32_MAX : raw ? (uint32_t)raw : 1;
}

/* A candidate that may still hold more than the most its series has. */
static int
still_open(const struct cand *c)
{
	const struct best *b = &best[c->series];
	int64_t f = b->known && b->b > b->floor ? b->b : b->floor;

	if (c->ub != f)
		return c->ub > f;
	/* As much: only an earlier instant than the one known is news. */
	return !(b->known && b->b == f && b->t <= c->lo);
}

static int
by_promise(const void *x, const void *y)
{
	const struct cand *a = &cands[*(const uint32_t *)x], *b = &cands[*(const uint32_t *)y];

	if (a->ub != b->ub)
		return a->ub > b->ub ? -1 : 1;
	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

static int
by_place(const void *x, const void *y)
{
	const struct cand *a = &cands[*(const uint32_t *)x], *b = &cands[*(const uint32_t *)y];

	if (a->series != b->series)
		return a->series < b->series ? -1 : 1;
	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* Its cells: as many as its share of the budget, at least 2; one an instant at least. */
static void
cut(struct how *h, const struct cand *c, uint64_t n)
{
	uint64_t len = c->hi - c->lo + 1;

	n = n < 2 ? 2 : n;
	h->width = (len + n - 1) / n;
	h->cell0 = ncells;
	h->ncells = (size_t)((len + h->width - 1) / h->width);
	ncells += h->ncells;
}

/*
 * The candidates of the next reading, most promising first: each read
 * change by change while they fit in the budget, the others in cells
 * finer than themselves, a share of the budget each by its changes.  0
 * when none is left open: every peak is exact.
 */
int
peak_choose(uint64_t budget)
{
	size_t i, j, ncut = 0;
	uint64_t sum = 0, rest = 0, cellmax = budget / 2 > 2 ? budget / 2 : 2;

	for (i = j = 0; i < ncands; i++)
		if (still_open(&cands[i]))
			cands[j++] = cands[i];
	ncands = j;
	if (!ncands)
		return 0;
	chosen = erealloc(chosen, ncands * sizeof(*chosen));
	for (i = 0; i < ncands; i++)
		chosen[i] = (uint32_t)i;
	qsort(chosen, ncands, sizeof(*chosen), by_promise);
	/* Those read each first, moved to the front; those cut after them. */
	for (i = j = 0; i < ncands; i++) {
		uint32_t k = chosen[i];

		if (sum + cands[k].raw <= budget) {
			sum += cands[k].raw;
			chosen[i] = chosen[j];
			chosen[j++] = k;
		}
	}
	nchosen = j;
	for (i = 0; i < nchosen; i++)
		cands[chosen[i]].each = 1;
	for (i = j; i < ncands && ncut < cellmax / 2; i++, ncut++)
		rest += cands[chosen[i]].raw;
	nchosen += ncut;
	qsort(chosen, nchosen, sizeof(*chosen), by_place);
	free(how);
	how = emalloc(nchosen * sizeof(*how));
	ncells = 0;
	for (i = 0; i < nchosen; i++) {
		struct cand *c = &cands[chosen[i]];

		how[i].width = 0;
		if (!c->each)
			cut(&how[i], c, (uint64_t)((double)cellmax * c->raw / (rest ? rest : 1)));
		c->each = 0;
	}
	cells = ecalloc(ncells ? ncells : 1, sizeof(*cells));
	nex = 0;
	if (sum > excap && sum < SIZE_MAX / sizeof(*ex)) {
		/* As many as they hold: doubling would take twice the budget. */
		free(ex);
		excap = (size_t)sum;
		ex = emalloc(excap * sizeof(*ex));
	}
	return 1;
}

static size_t
find(size_t series, uint64_t t)
{
	size_t lo = 0, hi = nchosen, m;
	const struct cand *c;

	while (lo < hi) {
		m = (lo + hi) / 2;
		c = &cands[chosen[m]];
		if (c->series < series || (c->series == series && c->hi < t))
			lo = m + 1;
		else
			hi = m;
	}
	if (lo == nchosen)
		return SIZE_MAX;
	c = &cands[chosen[lo]];
	return c->series == series && c->lo <= t && t <= c->hi ? lo : SIZE_MAX;
}

static void
change(size_t series, uint64_t t, int64_t bytes, int count)
{
	size_t m = find(series, t);
	const struct cand *c;
	struct cell *x;

	if (m == SIZE_MAX)
		return;
	c = &cands[chosen[m]];
	if (!how[m].width) {
		ex = egrow(ex, nex + 1, &excap, sizeof(*ex));
		ex[nex].t = t;
		ex[nex].bytes = bytes;
		ex[nex].cand = chosen[m];
		ex[nex++].count = count;
		return;
	}
	x = &cells[how[m].cell0 + (t - c->lo) / how[m].width];
	x->bytes = sat_add(x->bytes, bytes, &sat_bytes.hit);
	x->count += count;
	x->up = sat_add(x->up, bytes > 0 ? bytes : 0, &sat_bytes.hit);
	x->raw++;
}

/* A lifetime of the reading again: as series_add has it, each change at its instant. */
void
peak_add(const struct window_opts *o, const struct mt_event *ev, uint64_t ta, uint64_t tf,
    int64_t size)
{
	size_t s;

	if (tf != NONE && (tf <= o->t0 || tf <= ta))
		return;
	s = series_index(series_find(ev));
	change(s, ta <= o->t0 ? o->t0 : ta, size, 1);
	if (tf != NONE)
		change(s, tf, -size, -1);
}

static int
by_cand_time(const void *x, const void *y)
{
	const struct exact *a = x, *b = y;

	if (a->cand != b->cand)
		return a->cand < b->cand ? -1 : 1;
	return a->t < b->t ? -1 : a->t > b->t;
}

/* The sums once every change at instant t is made: the most, or as much earlier. */
static void
exact_at(size_t series, uint64_t t, int64_t v, int64_t n)
{
	struct best *b = best_of(series);

	if (!b->known || v > b->b || (v == b->b && t < b->t)) {
		b->known = 1;
		b->b = v;
		b->c = n;
		b->t = t;
	}
}

/* Each candidate read change by change: its changes in time order from its base. */
static void
settle_exact(void)
{
	size_t i = 0;

	qsort(ex, nex, sizeof(*ex), by_cand_time);
	while (i < nex) {
		uint32_t k = ex[i].cand;
		int64_t v = cands[k].base_b, n = cands[k].base_c;

		while (i < nex && ex[i].cand == k) {
			uint64_t t = ex[i].t;

			for (; i < nex && ex[i].cand == k && ex[i].t == t; i++) {
				v = sat_add(v, ex[i].bytes, &sat_bytes.hit);
				n += ex[i].count;
			}
			exact_at(cands[k].series, t, v, n);
		}
	}
	nex = 0;
}

/* One read in cells: a candidate a cell, or exact where a cell is an instant. */
static void
settle_cells(size_t i, const struct how *h)
{
	int64_t b = cands[i].base_b, n = cands[i].base_c;
	uint64_t lo, hi, k, first = cands[i].lo, last = cands[i].hi;
	size_t series = cands[i].series;

	for (k = 0; k < h->ncells; k++) {
		struct cell x = cells[h->cell0 + k];

		lo = first + k * h->width;
		hi = lo + h->width - 1 < last ? lo + h->width - 1 : last;
		if (x.raw && lo == hi)
			exact_at(series, lo, sat_add(b, x.bytes, &sat_bytes.hit), n + x.count);
		else if (x.raw)
			peak_bucket(series, lo, hi, b, n, (mt_wide)b + x.bytes, (mt_wide)b + x.up,
			    x.raw);
		b = sat_add(b, x.bytes, &sat_bytes.hit);
		n += x.count;
	}
}

/* The reading is over: the candidates it read closed, or made anew of their cells. */
void
peak_settle(void)
{
	size_t i, k;

	settle_exact();
	for (i = 0; i < nchosen; i++)
		if (how[i].width)
			settle_cells(chosen[i], &how[i]);
	/* The chosen are among the first n: the cells' come after. */
	for (i = 0; i < nchosen; i++)
		cands[chosen[i]].raw = 0;
	free(cells);
	cells = NULL;
	ncells = 0;
	for (i = k = 0; i < ncands; i++)
		if (cands[i].raw)
			cands[k++] = cands[i];
	ncands = k;
}

/* The series' peak found, or 0 when the readings gave it none (*t, *b, *c untouched). */
int
peak_found(size_t series, uint64_t *t, mt_wide *b, mt_wide *c)
{
	if (series >= nbest || !best[series].known)
		return 0;
	*t = best[series].t;
	*b = best[series].b;
	*c = best[series].c;
	return 1;
}

void
peak_free(void)
{
	free(cands);
	free(best);
	free(chosen);
	free(how);
	free(ex);
	cands = NULL;
	best = NULL;
	chosen = NULL;
	how = NULL;
	ex = NULL;
	ncands = candcap = nbest = nchosen = nex = excap = 0;
}
