/*
 * pairroute.c: a pairer past its memory budget (pairspill.h): its blocks
 * routed to partitions, and the lifetimes paired there taken back.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "mt.h"
#include "pairint.h"

/* Past the budget: pairspill.h. */
void
pairer_budget(struct mt_pairer *p, uint64_t bytes)
{
	p->budget = bytes;
}

uint64_t
pairer_budget_of(const struct mt_pairer *p)
{
	return p->budget;
}

/* An input that grew meanwhile (a recording still written) is read no further. */
int
pairer_read_all(const struct mt_pairer *p)
{
	return p->mode == PAIR_REPLAY && p->reads >= p->first_reads;
}

uint64_t
pairer_tick(struct mt_pairer *p)
{
	return p->seq = p->reads++;
}

enum pair_mode
pairer_mode(const struct mt_pairer *p)
{
	return p->mode;
}

void
pairer_seq(struct mt_pairer *p, uint64_t seq)
{
	p->seq = seq;
}

/* Read again: the records before routing began are skipped; at the
   first routed, the input's counts as they were then. */
int
pairer_skip(struct mt_pairer *p)
{
	if (p->mode != PAIR_REPLAY || p->seq > p->routed)
		return 0;
	if (p->seq < p->routed)
		return 1;
	p->unsaid = p->routed_unsaid;
	p->lost = p->routed_lost;
	return 0;
}

void
pairer_defer(struct mt_pairer *p, void (*fn)(void *, int, uint64_t, uint64_t, uint64_t, uint64_t),
    void *arg)
{
	p->defer = fn;
	p->defer_arg = arg;
}

void
pairer_temp_given(struct mt_pairer *p, int known, uint64_t ts)
{
	p->temp_known = known;
	p->temp_ts = ts;
}

void
pairer_freed(struct mt_pairer *p, int32_t pid, struct mt_str heap, uint64_t addr,
    uint64_t alloc_ts, uint64_t free_ts)
{
	*freed_slot(p, pid, addr) = (struct freed){ addr, alloc_ts, free_ts, pid,
	    (uint16_t)heap_id(p, heap), 1 };
}

struct mt_str
pairer_heap(const struct mt_pairer *p, unsigned heap)
{
	return (struct mt_str){ p->heapname[heap], p->heaplen[heap] };
}

unsigned
pairer_heap_id(struct mt_pairer *p, struct mt_str heap)
{
	return heap_id(p, heap);
}

struct mt_pair_stats *
pairer_stats_rw(struct mt_pairer *p)
{
	return &p->stats;
}

/* The allocation ev would grow its table past the budget. */
int
pairer_over(struct mt_pairer *p, const struct mt_event *ev)
{
	const struct btable *t;
	unsigned heap;
	size_t cap;

	if (!p->budget || p->mode != PAIR_MEMORY || ev->type != MT_ALLOC)
		return 0;
	heap = heap_id(p, ev->heap);
	if (p->range_heap[heap])
		return 0;
	t = table_of(p, (int32_t)ev->pid, 0);
	cap = t ? t->cap : 0;
	if (t && (t->n + 1) * 4 <= cap * 3)
		return 0;
	return p->held + (cap ? cap : 16) * sizeof(struct block) > p->budget;
}

/*
 * From the record being paired on, blocks go to partitions: the live
 * ones now, with what the router must know (the processes begun, the
 * tables, the frees a double free would repeat); the tables dropped.
 */
void
pairer_spill(struct mt_pairer *p)
{
	struct pair_spill *s = p->spill = spill_new();
	size_t i, k;

	p->routed = p->seq;
	p->routed_unsaid = p->unsaid;
	p->routed_lost = p->lost;
	p->mode = PAIR_ROUTE;
	for (i = 0; i < p->nseen; i++)
		(void)spill_proc(s, (int32_t)p->seen[i]);
	for (k = 0; k < p->tables.cap; k++) {
		struct btable *t = p->tables.e[k].value;
		if (!t)
			continue;
		spill_table_pid(s, t->pid);
		for (i = 0; i < t->cap; i++) {
			const struct block *b = &t->blocks[i];
			struct mt_event ev = { .type = MT_ALLOC };
			struct held v;
			if (!b->used)
				continue;
			v = block_held(p, b);
			ev.flags = (v.ts == UINT64_MAX ? EV_TS_NONE : 0) |
			    (v.stack == UINT64_MAX ? EV_STACK_NONE : 0);
			ev.ts = v.ts == UINT64_MAX ? 0 : v.ts;
			ev.pid = t->pid;
			ev.tid = v.tid;
			ev.addr = b->addr;
			ev.size = v.size;
			ev.stack = v.stack;
			ev.heap = pairer_heap(p, b->heap);
			spill_block(s, p->seq, &ev, b->heap, -1, 0);
			block_drop(p, b);
		}
		etable_free(t->blocks, t->cap, sizeof(*t->blocks));
		t->blocks = NULL;
		t->cap = t->n = 0;
	}
	p->held = 0;
	for (i = 0; i < FREED_SLOTS; i++) {
		const struct freed *f = &p->freed[i];
		if (f->used && !p->range_heap[f->heap])
			spill_freed(s, f->pid, f->heap, f->addr, f->alloc_ts, f->free_ts);
	}
}

/* A record past the budget: its blocks to their partitions, nothing said. */
void
pairer_route(struct mt_pairer *p, const struct mt_event *ev)
{
	struct last_alloc *la;
	unsigned heap;
	int known = 0;
	uint64_t ts = 0;

	switch (ev->type) {
	case MT_ALLOC:
	case MT_FREE:
		heap = heap_id(p, ev->heap);
		if (p->range_heap[heap])
			return;
		if (ev->type == MT_ALLOC) {
			la = last_alloc(p, ev->pid, ev->tid);
			if (!(ev->flags & (EV_TID_NONE | EV_TS_NONE))) {
				la->addr = ev->addr;
				la->ts = ev->ts;
				la->heap = heap;
			}
			spill_table_pid(p->spill, (int32_t)ev->pid);
			known = -1;
		} else if (!(ev->flags & EV_TID_NONE)) {
			la = last_alloc(p, ev->pid, ev->tid);
			known = la->addr == ev->addr && la->heap == heap;
			ts = la->ts;
		}
		spill_block(p->spill, p->seq, ev, heap, known, ts);
		break;
	case MT_PROC:
		if (spill_proc(p->spill, (int32_t)ev->pid))
			spill_end(p->spill, p->seq, (int32_t)ev->pid, 1, ev->ts);
		break;
	case MT_EXIT:
		spill_end(p->spill, p->seq, (int32_t)ev->pid, 1, ev->ts);
		break;
	case MT_LOST:
		spill_lost(p->spill, p->seq, ev->size);
		break;
	default:
		break;
	}
}

void
pairer_say_spill(const struct mt_pairer *p, int quiet)
{
	char b[32];

	if (p->spill && !quiet)
		mt_note("past --memory %s at record %" PRIu64 ": paired in partitions in TMPDIR, "
		    "the input read twice", mt_human((int64_t)p->budget, b, sizeof(b)),
		    p->routed + 1);
}

/* The inputs routed: the partitions paired, and the inputs to be read again. */
void
pairer_pair_spilled(struct mt_pairer *p)
{
	spill_finish_routes(p->spill);
	spill_pair(p->spill, p);
	p->mode = PAIR_REPLAY;
	p->first_reads = p->reads;
	p->reads = 0;
}
