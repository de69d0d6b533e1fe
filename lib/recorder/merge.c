/*
 * merge: the rings read into their queues, and every queue's events
 * written in time order up to the watermark.
 *
 * The merge emits only events older than a watermark W taken before each
 * pass reads anything: an event that another depends on (the allocation
 * a free frees) was published before the dependent event's time was
 * taken, so if the dependent is older than W, its cause was visible to
 * the same pass.  An event that shows up older than what was already
 * written (its thread was preempted between taking the time and
 * publishing) is given the time of the last event written; that keeps
 * every order that matters and is counted.
 */

#include <stdio.h>
#include <linux/futex.h>
#include <sys/syscall.h>

#include "internal.h"

/*
 * A ring the process spoiled (its head further than a ring holds, or
 * behind what we read): read no more, and say how much was lost.
 */
static void
ring_spoiled(struct recorder *rc, struct ring *g, uint64_t head)
{
	struct rec *r = queue_push(&g->proc->ctl, now_rel(rc));

	g->done = 1;
	r->kind = CTL_LOST;
	r->pid = g->pid;
	r->status = LOST_CORRUPT;
	r->size = head - g->tail < MT_RING_RECS ? head - g->tail : MT_RING_RECS;
	mt_warnx("pid %d: thread %d's ring was overwritten (head %llu, read %llu): "
	    "no longer read", (int)g->pid, (int)g->tid,
	    (unsigned long long)head, (unsigned long long)g->tail);
}

/*
 * How far a pass may read.  A ring is read up to its head, newer than
 * the watermark too, so that a thread's ring has room at once (at
 * millions of events a second, 10 ms of them fill a ring); but no more
 * than drain_batch records of it, and, once PENDING_MAX records wait in
 * our queues, only up to the watermark: many threads' rings read whole
 * would make our queues huge.  Each ring is in time order, so up to the
 * time of the record drain_batch on in the ring furthest behind, every
 * ring is read whole, and the merge can go that far and no further.
 *
 * PENDING_MAX holds the trail of the watermark, SLACK_NS, at the fastest
 * a program makes events: smaller, a fast thread fills it and then waits
 * for the clock.  The room is given back when the burst is over.
 */
#define DRAIN_BATCH 2048

uint64_t
recorder_drain_limit(struct recorder *rc, uint64_t w)
{
	uint64_t limit = now_rel(rc), head, ts;
	struct mt_raw *recs;
	size_t i;

	rc->drain_batch = PENDING_MAX / (rc->nrings ? rc->nrings : 1);
	if (rc->drain_batch < DRAIN_BATCH)
		rc->drain_batch = DRAIN_BATCH;
	if (rc->drain_batch >= MT_RING_RECS) {
		rc->drain_batch = MT_RING_RECS;
		return w;	/* every ring read whole */
	}
	for (i = 0; i < rc->nrings; i++) {
		struct ring *g = rc->rings[i];
		if (g->done)
			continue;
		head = __atomic_load_n(&g->map->head, __ATOMIC_ACQUIRE);
		if (head - g->tail <= rc->drain_batch || head - g->tail > MT_RING_RECS)
			continue;
		recs = (struct mt_raw *)((char *)g->map + MT_RING_HDR);
		ts = peer_ns(rc, g->proc, recs[(g->tail + rc->drain_batch) & (MT_RING_RECS - 1)].ts);
		if (ts < w && ts <= limit)
			w = ts;	/* a lie is not heeded: it is read, given another time */
	}
	return w;
}

/* Records read from the rings and not merged yet. */
size_t
pending(struct recorder *rc)
{
	size_t i, n = 0;

	for (i = 0; i < rc->nrings; i++)
		n += rc->rings[i]->q.len - rc->rings[i]->q.head;
	return n;
}

/*
 * Moves what a ring holds (see recorder_drain_limit), up to the watermark w
 * unless newer is set, into its queue; 1 if there was anything.
 */
int
drain_ring(struct recorder *rc, struct ring *g, uint64_t w, int newer)
{
	struct mt_raw *recs = (struct mt_raw *)((char *)g->map + MT_RING_HDR), raw;
	uint64_t head = __atomic_load_n(&g->map->head, __ATOMIC_ACQUIRE);
	uint64_t limit = now_rel(rc);	/* after the head: see peer_time */
	uint64_t tail = g->tail;
	struct proc *p = g->proc;
	struct rec *r;

	if (g->done || head == tail)
		return 0;
	if (head - tail > MT_RING_RECS) {
		ring_spoiled(rc, g, head);
		return 0;
	}
	queue_room(&g->q);	/* given back if emptied */
	for (; tail != head; tail++) {
		uint64_t ts;

		raw = recs[tail & (MT_RING_RECS - 1)];
		if (raw.type < RAW_ALLOC || raw.type > RAW_MPROTECT || raw.heap > RAW_HEAP_NONE) {
			p->bad++;
			continue;
		}
		ts = peer_time(rc, p, raw.ts, limit);
		/*
		 * Up to the watermark, everything: the merge goes that far,
		 * and a record left behind would come out late, after a free
		 * of what it allocated.  Newer, only within the batch.
		 */
		if (ts > w && (!newer || tail - g->tail >= rc->drain_batch))
			break;	/* not yet */
		r = queue_next(&g->q, &ts);
		*r = (struct rec){ .ts = ts, .kind = raw.type, .heap = raw.heap,
		    .addr = raw.addr, .size = raw.size, .stack = raw.stack,
		    .flags = raw.flags, .pid = g->pid, .tid = g->tid };
	}
	if (tail == g->tail)
		return 0;
	g->tail = tail;
	/* Room made: a thread asleep for it is woken (see wait_room in lib/preload/). */
	__atomic_store_n(&g->map->tail, tail, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&g->map->waiting, __ATOMIC_SEQ_CST)) {
		__atomic_store_n(&g->map->waiting, 0, __ATOMIC_RELAXED);
		syscall(SYS_futex, &g->map->waiting, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	}
	return 1;
}

/* The merge: a binary heap of sources ordered by their oldest event. */
struct source {
	struct queue *q;
	struct proc *p;
	size_t order;		/* ties go to the source listed first */
};

static int
source_before(const struct source *a, const struct source *b)
{
	uint64_t ta = queue_peek(a->q)->ts, tb = queue_peek(b->q)->ts;

	return ta < tb || (ta == tb && a->order < b->order);
}

static void
heap_push(struct recorder *rc, struct source s)
{
	size_t i, up;

	rc->heap = egrow(rc->heap, rc->nheap, &rc->heapcap, sizeof(*rc->heap));
	i = rc->nheap++;
	for (; i > 0 && source_before(&s, &rc->heap[up = (i - 1) / 2]); i = up)
		rc->heap[i] = rc->heap[up];
	rc->heap[i] = s;
}

static struct source
heap_pop(struct recorder *rc)
{
	struct source top = rc->heap[0], last = rc->heap[--rc->nheap];
	size_t i = 0, c;

	for (; (c = 2 * i + 1) < rc->nheap; i = c) {
		if (c + 1 < rc->nheap && source_before(&rc->heap[c + 1], &rc->heap[c]))
			c++;
		if (!source_before(&rc->heap[c], &last))
			break;
		rc->heap[i] = rc->heap[c];
	}
	if (rc->nheap)
		rc->heap[i] = last;
	return top;
}

static void
consider(struct recorder *rc, struct queue *q, struct proc *p, size_t order, uint64_t w)
{
	struct rec *r = queue_peek(q);

	if (r && r->ts <= w)
		heap_push(rc, (struct source){ q, p, order });
}

/* An event out: a time older than the last written is made that time. */
static void
emit(struct recorder *rc, struct rec *r, struct proc *p)
{
	if (r->ts < rc->last_emitted) {
		r->ts = rc->last_emitted;
		rc->late++;
	}
	rc->last_emitted = r->ts;
	switch (r->kind) {
	case RAW_ALLOC:
		put_heap_event_flags(rc, MT_ALLOC, r, p, RAW_HEAP_MALLOC, r->addr, r->size, 0);
		break;
	case RAW_FREE:
		put_heap_event_flags(rc, MT_FREE, r, p, RAW_HEAP_MALLOC, r->addr, 0, 0);
		break;
	case RAW_MMAP:
	case RAW_MUNMAP:
	case RAW_MREMAP_FROM:
	case RAW_MREMAP_TO:
	case RAW_MPROTECT:
		emit_mapping(rc, r, p);
		break;
	default:
		emit_control(rc, r, p);
		break;
	}
	if (r->data) {
		free(r->data);
		r->data = NULL;
	}
}

#define PREFETCH_AHEAD 8

/* Writes, in time order, every waiting event no newer than w. */
void
recorder_merge(struct recorder *rc, uint64_t w)
{
	struct source s;
	struct rec *r;
	size_t i;

	rc->nheap = 0;
	consider(rc, &rc->reaped_q, NULL, 0, w);
	/* Control first: a process's hello goes before its first event. */
	for (i = 0; i < rc->nprocs; i++)
		consider(rc, &rc->procs[i]->ctl, rc->procs[i], 1 + i, w);
	for (i = 0; i < rc->nrings; i++)
		consider(rc, &rc->rings[i]->q, rc->rings[i]->proc, 1 + rc->nprocs + i, w);
	while (rc->nheap > 0) {
		s = heap_pop(rc);
		/* Its events before the next source's oldest go out in a run. */
		do {
			r = queue_peek(s.q);
			s.q->head++;
			/* The writer's slot for a record a few on: a cache miss
			   per free otherwise. */
			if (s.q->head + PREFETCH_AHEAD < s.q->len)
				trace_writer_prefetch(rc->writer, s.q->v[s.q->head + PREFETCH_AHEAD].addr);
			emit(rc, r, s.p);
			r = queue_peek(s.q);
		} while (r && r->ts <= w && (rc->nheap == 0 || source_before(&s, &rc->heap[0])));
		consider(rc, s.q, s.p, s.order, w);
	}
}

