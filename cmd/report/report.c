/*
 * report.c: mt-report's one pass over a trace (report.h).  The peak of
 * each process and heap is taken as mt-window --at peak takes it: the
 * bytes outstanding once every change at an instant is made, the first
 * instant of the most.  Changes come in the trace's order from a pairer;
 * from life lines, whose allocations are not in order, they are kept and
 * sorted at the end.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "mt.h"
#include "report.h"

/* Graph buckets a series holds before the width grows 2 or 5 times. */
#define GRAPH_CAP 5000
/* Cells kept at exact times; past it the unit grows while the trace has
   at least MIN_BUCKETS of it; past CELL_MAX it grows regardless, so that
   the page stays a size a browser opens however long the trace. */
#define CELL_LIMIT (1u << 18)
#define CELL_MAX (1u << 20)
#define MIN_BUCKETS 1000

static uint64_t
next_unit(uint64_t u)
{
	/* 1, 5, 10, 50, ...: each a multiple of the one before. */
	uint64_t d = u;

	while (d >= 10 && d % 10 == 0)
		d /= 10;
	return d == 1 ? u * 5 : u * 2;
}

void
report_init(struct report *r, size_t biggest)
{
	memset(r, 0, sizeof(*r));
	r->u = 1;
	r->w = 1000;
	r->gcap = GRAPH_CAP;
	r->cell_limit = CELL_LIMIT;
	r->bigcap = biggest;
	r->big = biggest ? emalloc(biggest * sizeof(*r->big)) : NULL;
}

static uint64_t
site_hash(int64_t pid, const char *heap, uint64_t stack)
{
	return hash64((uint64_t)pid * 0x9e3779b97f4a7c15u ^ (uint64_t)(uintptr_t)heap ^
	    hash64(stack));
}

/* What a table's entry is compared with: the report and the key sought. */
struct site_want {
	const struct report *r;
	int64_t pid;
	const char *heap;
	uint64_t stack;
};

static int
site_same(const void *key, uint32_t i)
{
	const struct site_want *w = key;
	const struct rep_site *s = &w->r->sites[i];

	return s->pid == w->pid && s->heap == w->heap && s->stack == w->stack;
}

static uint32_t
series_of(struct report *r, int64_t pid, const char *heap)
{
	size_t i;
	struct rep_series *s;

	for (i = r->nseries; i-- > 0;)
		if (r->series[i].pid == pid && r->series[i].heap == heap)
			return (uint32_t)i;
	r->series = egrow(r->series, r->nseries + 1, &r->seriescap, sizeof(*r->series));
	s = &r->series[r->nseries];
	memset(s, 0, sizeof(*s));
	s->pid = pid;
	s->heap = heap;
	s->max = ecalloc(r->gcap, sizeof(*s->max));
	s->min = ecalloc(r->gcap, sizeof(*s->min));
	return (uint32_t)r->nseries++;
}

/* The heap's name held once: known heaps by the library's bytes. */
static const char *
heap_name(struct report *r, struct mt_str h)
{
	int k;

	for (k = 0; k < 3; k++)
		if (h.s == mt_heap_names[k].s)
			return h.s;
	if ((k = heap_known(&h)) >= 0)
		return mt_heap_names[k].s;
	if (!r->heaps)
		r->heaps = dict_new(NULL);
	return dict_intern(r->heaps, h.s, h.len);
}

/*
 * A site found by its stack id, which a trace's dictionary hands out
 * densely from 1: in pages of its series, not a hash table, since every
 * allocation and lifetime looks one up.  Ids too big to page (text input
 * may use any) go to the hash table.
 */
#define SITE_PAGE_BITS 10
#define SITE_PAGED (UINT64_C(1) << 26)

static uint32_t
site_new(struct report *r, uint32_t se, int64_t pid, const char *heap, uint64_t stack)
{
	struct rep_site *s;

	r->sites = egrow(r->sites, r->nsites + 1, &r->sitecap, sizeof(*r->sites));
	s = &r->sites[r->nsites];
	memset(s, 0, sizeof(*s));
	s->pid = pid;
	s->heap = heap;
	s->stack = stack;
	s->series = se;
	return (uint32_t)r->nsites++;
}

static uint32_t *
site_slot(struct rep_series *s, uint64_t stack)
{
	size_t pg = (size_t)(stack >> SITE_PAGE_BITS), n;

	if (pg >= s->nsitepages) {
		n = s->nsitepages;
		s->sitepage = egrow(s->sitepage, pg + 1, &s->nsitepages, sizeof(*s->sitepage));
		memset(s->sitepage + n, 0, (s->nsitepages - n) * sizeof(*s->sitepage));
	}
	if (!s->sitepage[pg])
		s->sitepage[pg] = ecalloc(1u << SITE_PAGE_BITS, sizeof(**s->sitepage));
	return &s->sitepage[pg][stack & ((1u << SITE_PAGE_BITS) - 1)];
}

static uint32_t
site_of(struct report *r, int64_t pid, const char *heap, uint64_t stack)
{
	struct site_want want = { r, pid, heap, stack };
	uint32_t se, i, *slot;
	uint64_t h;

	if (r->last_series < r->nseries && r->series[r->last_series].pid == pid &&
	    r->series[r->last_series].heap == heap)
		se = r->last_series;
	else
		se = r->last_series = series_of(r, pid, heap);
	if (stack < SITE_PAGED) {
		slot = site_slot(&r->series[se], stack);
		if (!*slot)
			*slot = site_new(r, se, pid, heap, stack) + 1;
		return *slot - 1;
	}
	h = site_hash(pid, heap, stack);
	if ((i = idxtab_find(&r->sitetab, h, site_same, &want)) != IDXTAB_NONE)
		return i;
	i = site_new(r, se, pid, heap, stack);
	idxtab_add(&r->sitetab, h, i);
	return i;
}

static uint64_t
key_hash(uint32_t site, int64_t tid, int sclass)
{
	return hash64(((uint64_t)site << 32 | (uint32_t)(sclass + 2)) ^ hash64((uint64_t)tid));
}

struct key_want {
	const struct report *r;
	uint32_t site;
	int64_t tid;
	int sclass;
};

static int
key_same(const void *key, uint32_t i)
{
	const struct key_want *w = key;
	const struct rep_key *k = &w->r->keys[i];

	return k->site == w->site && k->tid == w->tid && k->sclass == w->sclass;
}

#define KEY_CACHE 4096
static uint32_t key_cache[KEY_CACHE];	/* index + 1 */

static uint32_t
key_of(struct report *r, uint32_t site, int64_t tid, int sclass)
{
	struct key_want want = { r, site, tid, sclass };
	uint64_t h = key_hash(site, tid, sclass);
	uint32_t i, *c = &key_cache[h & (KEY_CACHE - 1)];
	struct rep_key *k;

	if (*c && *c <= r->nkeys && key_same(&want, *c - 1))
		return *c - 1;
	if ((i = idxtab_find(&r->keytab, h, key_same, &want)) != IDXTAB_NONE) {
		*c = i + 1;
		return i;
	}
	r->keys = egrow(r->keys, r->nkeys + 1, &r->keycap, sizeof(*r->keys));
	k = &r->keys[r->nkeys];
	memset(k, 0, sizeof(*k));
	k->site = site;
	k->tid = tid;
	k->sclass = sclass;
	i = (uint32_t)r->nkeys++;
	idxtab_add(&r->keytab, h, i);
	*c = i + 1;
	return i;
}

static uint64_t
cell_hash(const struct rep_cell *c)
{
	return hash64((uint64_t)c->key << 4 ^ (unsigned)c->on << 2 ^ c->fate) ^
	    hash64((uint64_t)c->a * 31 + (uint64_t)c->f);
}

struct cell_want {
	const struct report *r;
	const struct rep_cell *c;
};

static int
cell_same(const void *key, uint32_t i)
{
	const struct cell_want *w = key;
	const struct rep_cell *a = &w->r->cells[i], *b = w->c;

	return a->key == b->key && a->a == b->a && a->f == b->f && a->on == b->on &&
	    a->fate == b->fate;
}

static void
cell_add(struct report *r, uint32_t key, int64_t a, int64_t f, unsigned on, unsigned fate,
    uint64_t n, uint64_t s, uint64_t t)
{
	struct rep_cell c = { .key = key, .on = (uint8_t)on, .fate = (uint8_t)fate, .a = a,
		.f = f, .n = n, .s = s, .t = t };
	struct cell_want want = { r, &c };
	uint64_t h = cell_hash(&c);
	uint32_t i;

	if ((i = idxtab_find(&r->celltab, h, cell_same, &want)) != IDXTAB_NONE) {
		r->cells[i].n += n;
		r->cells[i].s += s;
		r->cells[i].t += t;
		return;
	}
	r->cells = egrow(r->cells, r->ncells + 1, &r->cellcap, sizeof(*r->cells));
	r->cells[r->ncells] = c;
	idxtab_add(&r->celltab, h, (uint32_t)r->ncells++);
}

/* A key's run of lifetimes into its cell. */
static void
pending_flush(struct report *r, uint32_t ki)
{
	struct rep_key *k = &r->keys[ki];

	if (!k->pset)
		return;
	k->pset = 0;
	cell_add(r, ki, k->pa, k->pf, k->pon, k->pfate, k->pn, k->ps, k->pt);
}

static void
pending_flush_all(struct report *r)
{
	size_t i;

	for (i = 0; i < r->nkeys; i++)
		pending_flush(r, (uint32_t)i);
}

/*
 * Too many cells: a coarser unit, while the trace so far keeps at least
 * MIN_BUCKETS of it.  A time's position at a multiple of the unit is its
 * position at the unit divided, so the cells are merged, not remade.
 */
static void
cells_merge(struct report *r, uint64_t u)
{
	size_t i, n = r->ncells;
	uint64_t m = u / r->u;

	/* In place: a merged cell lands at or before the one it came from. */
	r->ncells = 0;
	idxtab_clear(&r->celltab);
	for (i = 0; i < n; i++) {
		const struct rep_cell c = r->cells[i];
		int64_t a = c.a < 0 ? -1 : c.a / (int64_t)m;
		int64_t f = c.f < 0 ? -1 : c.f / (int64_t)m;
		unsigned on = c.on && c.f >= 0 && c.f % (int64_t)m == 0;

		cell_add(r, c.key, a, f, on, c.fate, c.n, c.s, c.t);
	}
	r->u = u;
}

static void
coarsen(struct report *r)
{
	uint64_t u;

	pending_flush_all(r);
	while (r->ncells > r->cell_limit / 2 && (u = next_unit(r->u)) <= r->end / MIN_BUCKETS)
		cells_merge(r, u);
	if (r->ncells <= r->cell_limit / 2)
		return;
	if (r->cell_limit < CELL_MAX) {
		r->cell_limit *= 2;	/* the trace is too short yet: later */
		return;
	}
	/* Past a unit as long as the trace, more keys than cells: no use. */
	while (r->ncells > r->cell_limit / 2 && r->u <= r->end)
		cells_merge(r, next_unit(r->u));
	if (r->ncells > r->cell_limit / 2)
		r->cell_limit *= 2;
}

/* Graph buckets w times coarser: every bucket of a series merged by m. */
static void
graph_coarsen(struct report *r, uint64_t m)
{
	size_t i;
	uint64_t b;

	for (i = 0; i < r->nseries; i++) {
		struct rep_series *s = &r->series[i];

		for (b = 0; b <= s->lastb; b++) {
			uint64_t to = b / m;

			if (b % m == 0) {
				s->max[to] = s->max[b];
				s->min[to] = s->min[b];
			} else {
				if (s->max[b] > s->max[to])
					s->max[to] = s->max[b];
				if (s->min[b] < s->min[to])
					s->min[to] = s->min[b];
			}
		}
		s->lastb /= m;
	}
	r->w *= m;
	r->bhi = 0;	/* the bucket known is one of the old width */
}

/* The value settled at t (every change at t made): the graph, the peak. */
static void
settle(struct report *r, struct rep_series *s, uint64_t t, int64_t v)
{
	uint64_t b, k;

	/* Most instants fall in the bucket of the one before: no division. */
	if (t >= r->blo && t < r->bhi) {
		b = r->bnow;
	} else {
		while (t / r->w >= r->gcap)
			graph_coarsen(r, next_unit(r->w) / r->w);
		b = r->bnow = t / r->w;
		r->blo = b * r->w;
		r->bhi = r->blo + r->w;
	}
	/* Before its first change a series held nothing (the buckets are 0). */
	for (k = s->lastb + 1; k <= b; k++)
		s->max[k] = s->min[k] = s->settled;
	if (v > s->max[b])
		s->max[b] = v;
	if (v < s->min[b])
		s->min[b] = v;
	s->lastb = b;
	s->settled = v;
	if (!s->epoch || v > s->peak) {
		s->peak = v;
		s->peak_t = t;
		s->epoch++;
	}
}

/* d bytes and n blocks to a site at t, in time order. */
void
report_change(struct report *r, uint32_t si, uint64_t t, int64_t d, int n)
{
	struct rep_site *site = &r->sites[si];
	struct rep_series *s = &r->series[site->series];

	if (s->changed && t != s->last_t)
		settle(r, s, s->last_t, s->cur);
	s->changed = 1;
	s->last_t = t;
	if (site->epoch != s->epoch) {
		site->at_peak = site->live;
		site->at_peak_n = site->live_n;
		site->epoch = s->epoch;
	}
	site->live += d;
	site->live_n += n;
	s->cur += d;
}

static void
keep_change(struct report *r, uint32_t site, uint64_t t, int64_t d, int n)
{
	if (!r->life_input) {
		report_change(r, site, t, d, n);
		return;
	}
	if (r->nchanges == REPORT_RUN)
		report_spill(r);
	r->changes = egrow(r->changes, r->nchanges + 1, &r->changecap, sizeof(*r->changes));
	r->changes[r->nchanges].t = t;
	r->changes[r->nchanges].d = d;
	r->changes[r->nchanges].n = n;
	r->changes[r->nchanges++].site = site;
}

void
report_time(struct report *r, uint64_t ts)
{
	if (ts != REP_NONE && ts > r->end)
		r->end = ts;
}

void
report_proc(struct report *r, int64_t pid)
{
	size_t i;

	for (i = r->npids; i-- > 0;)
		if (r->pids[i] == pid)
			return;
	r->pids = egrow(r->pids, r->npids + 1, &r->pidcap, sizeof(*r->pids));
	r->pids[r->npids++] = pid;
}

void
report_alloc(struct report *r, const struct mt_event *ev)
{
	uint32_t si;

	/* Made before recording: its lifetime holds it from the start (base). */
	if (ev->flags & (EV_SIZE_NONE | EV_TS_NONE))
		return;
	report_time(r, ev->ts);
	si = site_of(r, ev->pid, heap_name(r, ev->heap),
	    ev->flags & EV_STACK_NONE ? REP_NONE : ev->stack);
	report_change(r, si, ev->ts, (int64_t)ev->size, 1);
}

static int
size_log(uint64_t size)
{
	if (size == REP_NONE)
		return -2;
	return size ? 63 - __builtin_clzll(size) : -1;
}

void
report_life(struct report *r, const struct mt_life *l)
{
	const char *heap = heap_name(r, l->heap);
	uint64_t size = l->size == REP_NONE ? 0 : l->size;
	uint32_t si = site_of(r, l->pid, heap, l->stack), ki;
	struct rep_key *k;
	struct rep_series *s = &r->series[r->sites[si].series];
	unsigned fate = l->fate && !strcmp(l->fate, "exit") ? 2 : l->tf == REP_NONE || l->fate ? 1 : 0;
	int64_t a, f = -1;
	unsigned on = 0;
	struct rep_life big;
	int ht = r->ht_next;	/* temporary by heaptrack's rule */

	r->ht_next = 0;
	/* The summary sums a site's keys alone: one key a site, found at once. */
	if (!r->no_cells) {
		ki = key_of(r, si, l->tid, size_log(l->size));
	} else if (r->sites[si].key1) {
		ki = r->sites[si].key1 - 1;
	} else {
		ki = key_of(r, si, -1, -2);
		r->sites[si].key1 = ki + 1;
	}
	k = &r->keys[ki];
	r->lifetimes++;
	report_time(r, l->ta);
	report_time(r, l->tf);
	if (l->ta != REP_NONE) {
		k->allocs++, s->allocs++, r->allocs++;
		k->bytes += size, s->bytes += size;
		if (r->life_input)
			keep_change(r, si, l->ta, (int64_t)size, 1);
	} else {
		/* Made before recording: held from the start, as mt-window has it. */
		r->sites[si].base += (int64_t)size;
		r->sites[si].base_n++;
		s->base += (int64_t)size;
	}
	if (l->tf != REP_NONE)
		keep_change(r, si, l->tf, -(int64_t)size, -1);
	if (fate == 0)
		r->frees++;
	else if (fate == 1)
		k->end_n++, k->end_b += size, s->end_n++, s->end_b += size;
	else
		k->leak_n++, k->leak_b += size, s->leak_n++, s->leak_b += size;
	if (l->temporary)
		k->temp++, s->temp++, r->temp++;
	if (ht)
		k->ht_temp++;
	/* The cells are the page's: the summary does not need them. */
	if (!r->no_cells) {
		a = l->ta == REP_NONE ? -1 : (int64_t)(l->ta / r->u);
		if (fate == 0) {
			f = (int64_t)(l->tf / r->u);
			on = l->tf % r->u == 0;
		}
		k = &r->keys[ki];
		if (!k->pset || k->pa != a || k->pf != f || k->pon != on || k->pfate != fate) {
			pending_flush(r, ki);
			if (r->ncells > r->cell_limit) {
				coarsen(r);
				a = l->ta == REP_NONE ? -1 : (int64_t)(l->ta / r->u);
				if (fate == 0) {
					f = (int64_t)(l->tf / r->u);
					on = l->tf % r->u == 0;
				}
			}
			k = &r->keys[ki];
			k->pset = 1;
			k->pa = a, k->pf = f, k->pon = (uint8_t)on, k->pfate = (uint8_t)fate;
			k->pn = k->ps = k->pt = 0;
		}
		k->pn++;
		k->ps += size;
		k->pt += ht;
	}
	big.key = ki;
	big.fate = (uint8_t)fate;
	big.ta = l->ta;
	big.tf = fate ? REP_NONE : l->tf;
	big.size = size;
	report_big(r, &big, !r->no_cells);
}

void
report_finish(struct report *r)
{
	size_t i;

	pending_flush_all(r);
	if (r->life_input)
		report_replay(r);
	for (i = 0; i < r->nseries; i++) {
		struct rep_series *s = &r->series[i];

		if (s->changed)
			settle(r, s, s->last_t, s->cur);
		s->changed = 0;
	}
	/* Room for the graph to end past the trace. */
	while ((r->end + 1) / r->w + 1 > r->gcap)
		graph_coarsen(r, next_unit(r->w) / r->w);
}

uint64_t
report_buckets(const struct report *r)
{
	return r->end / r->w + 1;
}

int64_t
report_site_peak(const struct report *r, const struct rep_site *site, int64_t *n)
{
	const struct rep_series *s = &r->series[site->series];
	int at = site->epoch == s->epoch;

	*n = (at ? site->at_peak_n : site->live_n) + site->base_n;
	return (at ? site->at_peak : site->live) + site->base;
}

int
report_suppressed(struct report *r, uint32_t site)
{
	size_t i;

	if (!r->sup || r->sites[site].stack == REP_NONE)
		return 0;
	if (!r->site_sup) {
		r->site_sup = emalloc(r->nsites ? r->nsites : 1);
		for (i = 0; i < r->nsites; i++)
			r->site_sup[i] = -1;
	}
	if (r->site_sup[site] < 0)
		r->site_sup[site] = suppress_match(r->sup, r->dict, r->sites[site].stack) >= 0;
	return r->site_sup[site];
}

void
report_free(struct report *r)
{
	size_t i, j;

	for (i = 0; i < r->nseries; i++) {
		free(r->series[i].max);
		free(r->series[i].min);
		for (j = 0; j < r->series[i].nsitepages; j++)
			free(r->series[i].sitepage[j]);
		free(r->series[i].sitepage);
	}
	free(r->series);
	free(r->sites);
	idxtab_free(&r->sitetab);
	free(r->keys);
	idxtab_free(&r->keytab);
	free(r->cells);
	idxtab_free(&r->celltab);
	free(r->big);
	free(r->kbig);
	free(r->changes);
	free(r->runs);
	free(r->host);
	free(r->pids);
	free(r->site_sup);
}
