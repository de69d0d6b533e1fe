/*
 * pairrun.c: one input read through a pairer, as mt-lifetime and
 * mt-report do: allocations and frees of the known heaps wait a few
 * records so that their hash-table slots are fetched from memory all at
 * once; every other record goes to the caller, an exit after its line
 * (the survivors it ends follow the line).
 */
#include <string.h>
#include <sys/types.h>

#include "mt.h"

#define AHEAD 32

struct ahead {
	struct mt_event ev[AHEAD];
	size_t n;
};

static void
pair_ahead(struct mt_pairer *p, struct ahead *a, const struct pair_hooks *h)
{
	size_t i;

	for (i = 0; i < a->n; i++) {
		if (a->ev[i].type == MT_ALLOC) {
			if (h->alloc)
				h->alloc(&a->ev[i], h->arg);
			pairer_alloc(p, &a->ev[i]);
		} else {
			if (h->free)
				h->free(&a->ev[i], h->arg);
			pairer_free(p, &a->ev[i]);
		}
	}
	a->n = 0;
}

/* What the pairer reads of an allocation or free: a fifth of the record. */
static void
wait_copy(struct mt_event *to, const struct mt_event *ev)
{
	to->type = ev->type;
	to->flags = ev->flags;
	to->ts = ev->ts;
	to->pid = ev->pid;
	to->tid = ev->tid;
	to->addr = ev->addr;
	to->size = ev->size;
	to->stack = ev->stack;
	to->heap = ev->heap;
}

static int
can_wait(const struct mt_event *ev)
{
	return (ev->type == MT_ALLOC || ev->type == MT_FREE) &&
	    (ev->heap.s == mt_heap_names[0].s || ev->heap.s == mt_heap_names[1].s ||
	    ev->heap.s == mt_heap_names[2].s);
}

int
pairer_run(struct mt_pairer *p, struct mt_reader *r, const struct pair_hooks *h)
{
	static struct ahead a;	/* a pairer reads one input at a time */
	struct mt_event ev;
	int status;

	pairer_input(p, r);
	while (reader_next(r, &ev)) {
		if (can_wait(&ev)) {
			pairer_prefetch(p, &ev);
			wait_copy(&a.ev[a.n++], &ev);
			if (a.n == AHEAD)
				pair_ahead(p, &a, h);
			continue;
		}
		pair_ahead(p, &a, h);
		switch (ev.type) {
		case MT_ALLOC:
			if (h->alloc)
				h->alloc(&ev, h->arg);
			pairer_alloc(p, &ev);
			break;
		case MT_FREE:
			if (h->free)
				h->free(&ev, h->arg);
			pairer_free(p, &ev);
			break;
		case MT_PROC:
			pairer_proc(p, ev.pid, ev.ts);
			h->other(r, &ev, h->arg);
			break;
		case MT_LOST:
			pairer_lost(p, ev.size);
			h->other(r, &ev, h->arg);
			break;
		case MT_EXIT:
			h->other(r, &ev, h->arg);
			pairer_image_end(p, ev.pid, "exit", ev.ts);
			break;
		default:
			h->other(r, &ev, h->arg);
			break;
		}
	}
	pair_ahead(p, &a, h);
	pairer_input(p, NULL);
	status = reader_close(r);
	return status;
}
