/*
 * pair.c: pairs each allocation with its free, per (pid, heap, address),
 * into lifetimes handed to a callback when they end; the survivors when
 * their process image ends or at the end.  Memory holds the live
 * allocations only.  mt-lifetime writes the lifetimes, mt-pooldiff
 * counts them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mt.h"
#include "pairint.h"

struct last_alloc *
last_alloc_slow(struct mt_pairer *p, int64_t pid, int64_t tid)
{
	struct last_alloc *l;
	void **v;

	v = u64map_get(&p->threads, (uint64_t)(uint32_t)pid << 32 | (uint32_t)tid, 1);
	if (!*v) {
		l = ecalloc(1, sizeof(*l));
		l->pid = (int32_t)pid;
		l->tid = (int32_t)tid;
		l->ts = UINT64_MAX;
		l->thread = (uint32_t)p->ntids;
		p->tids = egrow(p->tids, p->ntids, &p->tidcap, sizeof(*p->tids));
		p->tids[p->ntids++] = (int32_t)tid;
		*v = l;
	}
	return p->last_thread = *v;
}


struct mt_pairer *
pairer_new(void (*emit)(const struct mt_life *, void *), void *arg)
{
	struct mt_pairer *p = ecalloc(1, sizeof(*p));

	p->emit = emit;
	p->arg = arg;
	p->freed = ecalloc(FREED_SLOTS, sizeof(*p->freed));
	p->known_id[0] = p->known_id[1] = p->known_id[2] = -1;
	p->free_stack = UINT64_MAX;
	p->temp_known = -1;
	return p;
}

struct btable *
table_slow(struct mt_pairer *p, int32_t pid, int create)
{
	void **v = u64map_get(&p->tables, (uint64_t)(uint32_t)pid, create);
	struct btable *t;

	if (!v)
		return NULL;
	if (!*v) {
		t = ecalloc(1, sizeof(*t));
		t->pid = pid;
		*v = t;
	}
	return p->last = *v;
}


/*
 * The input from now on; at an input's end, the double frees not said
 * one by one, in one line: after a loss of events they are its echo
 * (the allocation was among the lost), not the program's.
 */
void
pairer_input(struct mt_pairer *p, struct mt_reader *r)
{
	/* Routing, the input's double frees are said when it is read again. */
	if (p->mode == PAIR_ROUTE) {
		p->input = r;
		return;
	}
	if (p->input && p->unsaid) {
		if (p->lost)
			mt_warnx("%s: %" PRIu64 " double frees after %" PRIu64 " events were lost in "
			    "recording: their allocations were among them", reader_name(p->input),
			    p->unsaid, p->lost);
		else
			mt_warnx("%s: %" PRIu64 " more double frees", reader_name(p->input),
			    p->unsaid);
	}
	p->unsaid = 0;
	p->lost = 0;
	p->input = r;
}

/* Events lost in recording, as the input's lost line says. */
void
pairer_lost(struct mt_pairer *p, uint64_t n)
{
	p->lost += n ? n : 1;
}

const struct mt_pair_stats *
pairer_stats(const struct mt_pairer *p)
{
	return &p->stats;
}

unsigned
heap_id_slow(struct mt_pairer *p, struct mt_str h)
{
	size_t i;
	int k;
	char *copy;

	/* A trace's reader names the known heaps with the library's bytes. */
	for (k = 1; k < 3; k++)
		if (h.s == mt_heap_names[k].s && p->known_id[k] >= 0)
			return (unsigned)p->known_id[k];
	for (i = 0; i < p->nheaps; i++)
		if (p->heaplen[i] == h.len && !memcmp(p->heapname[i], h.s, h.len))
			break;
	if (i == p->nheaps) {
		if (p->nheaps == HEAPS_MAX)
			return HEAPS_MAX - 1;
		/* The known names as the library has them: writers know them by
		   their address. */
		if ((k = heap_known(&h)) >= 0) {
			p->heapname[i] = mt_heap_names[k].s;
		} else {
			copy = estrndup(h.s, h.len);
			p->heapname[i] = copy;
			p->heapcopy[i] = 1;
		}
		p->heaplen[i] = h.len;
		p->range_heap[i] = k == 1 || k == 2;
		if (k >= 0)
			p->known_id[k] = (int)i;
		p->nheaps++;
	}
	return (unsigned)i;
}



/* b made the block of v: in its 24 bytes, or with v kept wide. */
static inline void
block_set(struct mt_pairer *p, struct block *b, uint64_t addr, unsigned heap,
    const struct held *v, uint32_t thread)
{
	struct block x = { 0 };
	uint64_t ts = BLOCK_TS_NONE;
	size_t i;

	if (v->ts != UINT64_MAX) {
		if (!p->based) {
			p->base = v->ts;
			p->based = 1;
		}
		ts = v->ts >= p->base ? v->ts - p->base : BLOCK_TS_NONE;
	}
	x.addr = addr;
	x.used = 1;
	x.heap = heap & 0xfff;
	if ((ts < BLOCK_TS_NONE || v->ts == UINT64_MAX) && v->size < BLOCK_BIG &&
	    (v->stack < BLOCK_BIG || v->stack == UINT64_MAX) && thread < BLOCK_THREADS) {
		/* Made whole in registers, then stored: not a field at a time. */
		x.ts = ts;
		x.size = v->size;
		x.stack = v->stack == UINT64_MAX ? BLOCK_BIG : v->stack;
		x.thread = thread;
		*b = x;
		return;
	}
	if (p->widefree) {
		i = p->widefree - 1;
		p->widefree = p->wide[i].next;
	} else {
		p->wide = egrow(p->wide, p->nwide, &p->widecap, sizeof(*p->wide));
		i = p->nwide++;
	}
	p->wide[i].v = *v;
	x.wide = 1;
	x.ts = i;
	*b = x;
}


static struct block *
block_find(struct btable *t, unsigned heap, uint64_t addr)
{
	struct block *b = t->blocks;
	size_t i, n = 0;

	if (!t->cap)
		return NULL;
	for (i = block_slot(t, heap, addr); b[i].used; i = (i + 1) & (t->cap - 1), n++)
		if (b[i].addr == addr && b[i].heap == heap)
			break;
	block_probed(t, n);
	return b[i].used ? &b[i] : NULL;
}

/* The block's slot, or the empty one where it would go (one probe). */
static struct block *
block_slot_of(struct btable *t, unsigned heap, uint64_t addr)
{
	struct block *b = t->blocks;
	size_t i, n = 0;

	for (i = block_slot(t, heap, addr); b[i].used; i = (i + 1) & (t->cap - 1), n++)
		if (b[i].addr == addr && b[i].heap == heap)
			break;
	block_probed(t, n);
	return &b[i];
}

static void
block_delete(struct btable *bt, struct block *b)
{
	struct block *t = bt->blocks;
	size_t i = (size_t)(b - t), j = i, k, n = 0;

	t[i].used = 0;
	bt->n--;
	for (;; n++) {
		j = (j + 1) & (bt->cap - 1);
		if (!t[j].used) {
			block_probed(bt, n);
			return;
		}
		k = block_slot(bt, t[j].heap, t[j].addr);
		/* Move j back to i unless its home lies cyclically in (i, j]. */
		if ((i <= j) ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		t[i] = t[j];
		t[j].used = 0;
		i = j;
	}
}

static void
emit(struct mt_pairer *p, uint64_t ta, uint64_t tf, int32_t pid, int32_t tid, unsigned heap,
    uint64_t addr, uint64_t size, uint64_t stack, const char *fate)
{
	struct mt_life l = { ta, tf, pid, tid, { p->heapname[heap], p->heaplen[heap] },
		addr, size, stack, fate, p->free_stack, p->temporary };

	pairer_replayed(p, &l);
}

/* A lifetime to the callback, counted: paired here, or in a partition. */
void
pairer_replayed(struct mt_pairer *p, const struct mt_life *l)
{
	p->stats.lives++;
	if (l->fate) {
		p->stats.exit += l->fate[0] == 'e' && l->fate[1] == 'x';
		p->stats.live += !(l->fate[0] == 'e' && l->fate[1] == 'x');
	}
	p->emit(l, p->arg);
}

/* A warning at the record being paired, with its input's line. */
static void
say(const struct mt_pairer *p, const char *what, const char *tok, int n)
{
	if (p->input)
		mt_warn_at(reader_name(p->input), reader_lineno(p->input), what, tok, (size_t)n);
	else
		mt_warn_at("-", 0, what, tok, (size_t)n);
}


/*
 * A warning of kind at addr with its times: said, or (double frees past
 * the first few, or after a loss) counted; a partition's pairer hands it
 * back to be said at its place (pairspill.h).
 */
void
pairer_warn(struct mt_pairer *p, int kind, uint64_t addr, uint64_t a, uint64_t b, uint64_t c)
{
	char tok[160];
	int n;

	if (p->defer) {
		p->defer(p->defer_arg, kind, addr, a, b, c);
		return;
	}
	switch (kind) {
	case PAIR_DOUBLE:
		p->stats.doubles++;
		if (p->lost || p->stats.doubles > DOUBLES_SAID) {
			p->unsaid++;
			return;
		}
		n = snprintf(tok, sizeof(tok), "0x%" PRIx64 " allocated at %" PRIu64
		    ", freed at %" PRIu64 " and at %" PRIu64, addr, a, b, c);
		say(p, "double free", tok, n);
		break;
	case PAIR_BEFORE:
		n = snprintf(tok, sizeof(tok), "0x%" PRIx64 " allocated at %" PRIu64
		    ", freed at %" PRIu64, addr, a, b);
		say(p, "free before its allocation", tok, n);
		break;
	default:
		n = snprintf(tok, sizeof(tok), "0x%" PRIx64 " allocated at %" PRIu64
		    " and at %" PRIu64, addr, a, b);
		say(p, "allocation of a live block", tok, n);
		break;
	}
}

/* A free of nothing live: freed before (double), or made before recording. */
static void
free_unknown(struct mt_pairer *p, const struct mt_event *ev, unsigned heap)
{
	struct freed *f = freed_slot(p, ev->pid, ev->addr);

	if (f->used && f->addr == ev->addr && f->pid == ev->pid && f->heap == heap &&
	    ev->pid != 0) {
		pairer_warn(p, PAIR_DOUBLE, ev->addr, f->alloc_ts, f->free_ts, ev->ts);
		return;
	}
	p->stats.before++;
	emit(p, UINT64_MAX, ev->ts, (int32_t)ev->pid, (int32_t)ev->tid, heap, ev->addr,
	    ev->size ? ev->size : UINT64_MAX, UINT64_MAX, NULL);
}

/*
 * The end at ts of a block made at ta, never before it was made: a
 * survivor's at its image's end (a process's memory ends at its exit, and
 * the old image's at an exec), or one allocated again at an earlier time.
 */
static uint64_t
image_end(uint64_t ta, uint64_t ts)
{
	return ts != UINT64_MAX && ta != UINT64_MAX && ta > ts ? ta : ts;
}

/*
 * The time a block allocated at ta ends at a free at ev->ts.  A free
 * timed before its allocation (lines out of time order) is said, once a
 * free, and ends the block as it began: no lifetime has a negative length.
 */
static uint64_t
free_time(struct mt_pairer *p, const struct mt_event *ev, uint64_t addr, uint64_t ta,
    int *said)
{
	if (ta == UINT64_MAX || ev->ts >= ta)
		return ev->ts;
	if (!(*said)++)
		pairer_warn(p, PAIR_BEFORE, addr, ta, ev->ts, 0);
	return ta;
}

/* The cache line an allocation or free will probe, asked for early. */
void
pairer_prefetch(struct mt_pairer *p, const struct mt_event *ev)
{
	unsigned heap = heap_id(p, ev->heap);
	const struct btable *t;
	const struct block *b;

	if (p->range_heap[heap] || !(t = table_of(p, (int32_t)ev->pid, 0)) || !t->cap)
		return;
	b = &t->blocks[block_slot(t, heap, ev->addr)];
	__builtin_prefetch(b);
	if (ev->type == MT_FREE) {
		/* Deleting shifts the blocks after it back: their lines too
		   (two more lines: 1.57 s -> 1.45 s on the python trace; a
		   third gave nothing). */
		__builtin_prefetch((const char *)b + 64);
		__builtin_prefetch((const char *)b + 128);
		__builtin_prefetch(freed_slot(p, ev->pid, ev->addr), 1);
	}
}

/* Ranges are sorted by (pid, heap, lo): the first at or after these. */
static size_t
range_lower(const struct mt_pairer *p, int32_t pid, unsigned heap, uint64_t lo)
{
	size_t a = 0, z = p->nranges, i;

	while (a < z) {
		const struct range *x = &p->ranges[(i = (a + z) / 2)];
		if (x->pid < pid || (x->pid == pid && (x->heap < heap ||
		    (x->heap == heap && x->lo < lo))))
			a = i + 1;
		else
			z = i;
	}
	return a;
}

void
pairer_alloc(struct mt_pairer *p, const struct mt_event *ev)
{
	unsigned heap = heap_id(p, ev->heap);
	struct btable *t;
	struct block *old;
	struct held v, o;
	struct last_alloc *la;
	struct range r;
	size_t lo;
	/* Made before recording (mt-record -p): allocated at minus infinity. */
	uint64_t ta = ev->flags & EV_TS_NONE ? UINT64_MAX : ev->ts;

	if (p->range_heap[heap]) {
		/* Its end would wrap to the bottom, where no free finds it. */
		if (ev->size > UINT64_MAX - ev->addr) {
			char tok[64];
			int n = snprintf(tok, sizeof(tok), "0x%" PRIx64 " of %" PRIu64 " bytes",
			    ev->addr, ev->size);
			say(p, "mapping ending past 2^64-1", tok, n);
			return;
		}
		r = (struct range){ ev->addr, ev->addr + ev->size, ta,
		    ev->flags & EV_STACK_NONE ? UINT64_MAX : ev->stack,
		    (int32_t)ev->pid, (int32_t)ev->tid, (uint16_t)heap, 0 };
		lo = range_lower(p, r.pid, heap, r.lo);
		p->ranges = egrow(p->ranges, p->nranges, &p->rangecap, sizeof(*p->ranges));
		memmove(&p->ranges[lo + 1], &p->ranges[lo], (p->nranges - lo) * sizeof(*p->ranges));
		p->ranges[lo] = r;
		p->nranges++;
		return;
	}
	t = table_of(p, (int32_t)ev->pid, 1);
	if (p->mode == PAIR_REPLAY) {
		spill_replay(p->spill, p, p->seq, (int)spill_part(t->pid, heap, ev->addr));
		return;
	}
	if (t->crowded)
		block_rehome(t, 1);
	if ((t->n + 1) * 4 > t->cap * 3) {
		p->held -= t->cap * sizeof(*t->blocks);
		block_grow(t);
		p->held += t->cap * sizeof(*t->blocks);
	}
	v = (struct held){ ta, ev->size, ev->flags & EV_STACK_NONE ? UINT64_MAX : ev->stack,
	    (int32_t)ev->tid };
	la = last_alloc(p, ev->pid, ev->tid);
	if (!(ev->flags & (EV_TID_NONE | EV_TS_NONE))) {
		la->addr = ev->addr;
		la->ts = ev->ts;
		la->heap = heap;
	}
	old = block_slot_of(t, heap, ev->addr);
	if (old->used) {
		/*
		 * Allocated again without a free between: the old block was
		 * freed unseen by the time of the new, and ends there.  The
		 * kernel (pid 0) frees on paths without tracepoints (bulk and
		 * RCU frees): counted, not warned.
		 */
		p->stats.unseen++;
		o = block_held(p, old);
		if (ev->pid != 0)
			pairer_warn(p, PAIR_LIVE, ev->addr, o.ts, ev->ts, 0);
		emit(p, o.ts, image_end(o.ts, ev->ts), t->pid, o.tid, old->heap,
		    old->addr, o.size, o.stack, NULL);
		block_drop(p, old);
	} else {
		t->n++;
	}
	block_set(p, old, ev->addr, heap, &v, la->thread);
}

static void
free_event(struct mt_pairer *p, const struct mt_event *ev)
{
	unsigned heap = heap_id(p, ev->heap);
	struct btable *t;
	struct block *b;
	struct held v;
	struct freed *f;
	uint64_t lo, hi, a, z, tf;
	size_t i, j;
	int found = 0, said = 0;

	if (p->range_heap[heap]) {
		lo = ev->addr;
		hi = !ev->size ? 0 : ev->size > UINT64_MAX - lo ? UINT64_MAX : lo + ev->size;
		/* Only this process's ranges of this heap: together in the
		   array, though within them a mapping made over another can
		   leave them out of order. */
		for (i = range_lower(p, (int32_t)ev->pid, heap, 0); i < p->nranges; i++) {
			struct range r = p->ranges[i];
			if (r.pid != ev->pid || r.heap != heap)
				break;
			if (!ev->size && r.lo == lo)
				hi = r.hi;
			if (r.hi <= lo || r.lo >= hi)
				continue;
			a = r.lo > lo ? r.lo : lo;
			z = r.hi < hi ? r.hi : hi;
			emit(p, r.ts, free_time(p, ev, a, r.ts, &said), r.pid, r.tid, heap, a,
			    z - a, r.stack, NULL);
			found = 1;
			/* What is left of the range lives on, in one or two pieces. */
			if (r.lo < a && r.hi > z) {
				p->ranges = egrow(p->ranges, p->nranges, &p->rangecap,
				    sizeof(*p->ranges));
				memmove(&p->ranges[i + 2], &p->ranges[i + 1],
				    (p->nranges - i - 1) * sizeof(*p->ranges));
				p->ranges[i].hi = a;
				p->ranges[i + 1] = r;
				p->ranges[i + 1].lo = z;
				p->nranges++;
				i++;
			} else if (r.lo < a) {
				p->ranges[i].hi = a;
			} else if (r.hi > z) {
				p->ranges[i].lo = z;
			} else {
				for (j = i; j + 1 < p->nranges; j++)
					p->ranges[j] = p->ranges[j + 1];
				p->nranges--;
				i--;
			}
		}
		if (!found)
			free_unknown(p, ev, heap);
		return;
	}
	if (p->mode == PAIR_REPLAY) {
		spill_replay(p->spill, p, p->seq, (int)spill_part((int32_t)ev->pid, heap, ev->addr));
		return;
	}
	if (!(t = table_of(p, (int32_t)ev->pid, 0)) || !(b = block_find(t, heap, ev->addr))) {
		free_unknown(p, ev, heap);
		return;
	}
	v = block_held(p, b);
	if (!(ev->flags & EV_TID_NONE) && v.tid == ev->tid) {
		struct last_alloc *la;
		if (p->temp_known >= 0) {
			p->temporary = p->temp_known && p->temp_ts == v.ts;
		} else {
			la = last_alloc(p, ev->pid, ev->tid);
			p->temporary = la->addr == b->addr && la->ts == v.ts && la->heap == heap;
		}
	}
	tf = free_time(p, ev, b->addr, v.ts, &said);
	emit(p, v.ts, tf, t->pid, v.tid, heap, b->addr, v.size, v.stack, NULL);
	p->temporary = 0;
	f = freed_slot(p, t->pid, b->addr);
	*f = (struct freed){ b->addr, v.ts, tf, t->pid, (uint16_t)heap, 1 };
	block_drop(p, b);
	block_delete(t, b);
	if (t->crowded)
		block_rehome(t, 1);
}

/* A free, its stack (if recorded) on the lifetimes it ends: WPA's
   Decommit Stack. */
void
pairer_free(struct mt_pairer *p, const struct mt_event *ev)
{
	if (!(ev->flags & EV_STACK_NONE))
		p->free_stack = ev->stack;
	free_event(p, ev);
	p->free_stack = UINT64_MAX;
}

/* Survivors by address, then heap: the same order however they were paired. */
static int
block_cmp(const struct block *a, const struct block *b, const void *arg)
{
	const struct mt_pairer *p = arg;
	size_t la, lb;
	int c;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	la = p->heaplen[a->heap];
	lb = p->heaplen[b->heap];
	c = memcmp(p->heapname[a->heap], p->heapname[b->heap], la < lb ? la : lb);
	return c ? c : (la > lb) - (la < lb);
}

/* The survivors of t, in address order: the table packed and sorted in place. */
static void
table_survivors(struct mt_pairer *p, struct btable *t, const char *fate, uint64_t ts)
{
	struct block *b = t->blocks;
	size_t i, n = 0;

	for (i = 0; i < t->cap; i++)
		if (b[i].used)
			b[n++] = b[i];
	/* MT_SORT_HEAP, for tests: the heapsort that bounds the depth, alone. */
	block_sort(b, n, block_cmp, p,
	    getenv("MT_SORT_HEAP") ? 0 : 2 * (unsigned)(64 - __builtin_clzll(n | 1)));
	for (i = 0; i < n; i++) {
		struct held v = block_held(p, &b[i]);
		emit(p, v.ts, image_end(v.ts, ts), t->pid, v.tid, b[i].heap, b[i].addr,
		    v.size, v.stack, fate);
		block_drop(p, &b[i]);
	}
	p->held -= t->cap * sizeof(*t->blocks);
	etable_free(t->blocks, t->cap, sizeof(*t->blocks));
	t->blocks = NULL;
	t->cap = t->n = 0;
}

void
pairer_image_end(struct mt_pairer *p, int64_t pid, const char *fate, uint64_t ts)
{
	struct btable *t = table_of(p, (int32_t)pid, 0);
	size_t i, j;

	if (p->mode == PAIR_REPLAY)
		spill_replay(p->spill, p, p->seq, -1);
	else if (t && t->cap)
		table_survivors(p, t, fate, ts);
	for (i = j = 0; i < p->nranges; i++) {
		struct range *r = &p->ranges[i];
		if (r->pid == pid) {
			emit(p, r->ts, image_end(r->ts, ts), r->pid, r->tid, r->heap, r->lo,
			    r->hi - r->lo, r->stack, fate);
			continue;
		}
		p->ranges[j++] = *r;
	}
	p->nranges = j;
}

void
pairer_proc(struct mt_pairer *p, int64_t pid, uint64_t ts)
{
	struct btable *t = table_of(p, (int32_t)pid, 1);

	if (t->seen) {
		pairer_image_end(p, pid, "exit", ts);
		return;
	}
	t->seen = 1;
	p->seen = egrow(p->seen, p->nseen, &p->seencap, sizeof(*p->seen));
	p->seen[p->nseen++] = pid;
}

int
pid_cmp(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

/*
 * The pids of tables whose image never began (no proc record), in
 * order: pairer_finish ends them after the others, and a router in the
 * same order (spill_finish_routes).
 */
static int32_t *
unseen_pids(const struct mt_pairer *p, size_t *n)
{
	int32_t *pids = emalloc((p->tables.n + 1) * sizeof(*pids));
	size_t k;

	*n = 0;
	for (k = 0; k < p->tables.cap; k++) {
		const struct btable *t = p->tables.e[k].value;
		if (t && !t->seen)
			pids[(*n)++] = t->pid;
	}
	qsort(pids, *n, sizeof(*pids), pid_cmp);
	return pids;
}

void
pairer_finish(struct mt_pairer *p)
{
	uint64_t k = 0, left;
	size_t i, n;
	int32_t *pids;

	for (i = 0; i < p->nseen; i++) {
		p->seq = SEQ_FINISH + k++;
		pairer_image_end(p, p->seen[i], "end", UINT64_MAX);
	}
	/* Processes with blocks but no proc record. */
	pids = unseen_pids(p, &n);
	for (i = 0; i < n; i++) {
		p->seq = SEQ_FINISH + k++;
		pairer_image_end(p, pids[i], "end", UINT64_MAX);
	}
	free(pids);
	while (p->nranges) {
		p->seq = SEQ_FINISH + k++;
		pairer_image_end(p, p->ranges[0].pid, "end", UINT64_MAX);
	}
	/* Read again, an input that shrank meanwhile left lifetimes unsaid. */
	if (p->mode == PAIR_REPLAY && (left = spill_left(p->spill)))
		mt_warnx("the input changed between its two readings: %" PRIu64
		    " lifetimes not written", left);
}

void
pairer_free_all(struct mt_pairer *p)
{
	size_t i;

	for (i = 0; i < p->nheaps; i++)
		if (p->heapcopy[i])
			free((char *)(uintptr_t)p->heapname[i]);
	for (i = 0; i < p->tables.cap; i++) {
		struct btable *t = p->tables.e[i].value;
		if (t)
			etable_free(t->blocks, t->cap, sizeof(*t->blocks));
	}
	u64map_free(&p->tables, free);
	u64map_free(&p->threads, free);
	free(p->ranges);
	free(p->seen);
	free(p->freed);
	free(p->tids);
	free(p->wide);
	if (p->spill)
		spill_free(p->spill);
	free(p);
}
