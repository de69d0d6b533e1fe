/*
 * pairrun.c: one input read through a pairer, as mt-lifetime and
 * mt-report do: allocations and frees of the known heaps wait a few
 * records so that their hash-table slots are fetched from memory all at
 * once; every other record goes to the caller, an exit after its line
 * (the survivors it ends follow the line).  Past a budget, the records
 * are routed instead, and read again (pairspill.h).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "mt.h"
#include "pairspill.h"

#define AHEAD 32

struct ahead {
	struct mt_event ev[AHEAD];
	uint64_t seq[AHEAD];
	size_t n;
};

/* One record: paired, or past the budget routed (pairspill.h). */
static void
pair_one(struct mt_pairer *p, struct mt_reader *r, struct mt_event *ev, uint64_t seq,
    const struct pair_hooks *h)
{
	pairer_seq(p, seq);
	if (ev->type == MT_ALLOC && pairer_over(p, ev))
		pairer_spill(p);
	if (pairer_mode(p) == PAIR_ROUTE) {
		pairer_route(p, ev);
		return;
	}
	switch (ev->type) {
	case MT_ALLOC:
		if (h->alloc)
			h->alloc(ev, h->arg);
		pairer_alloc(p, ev);
		break;
	case MT_FREE:
		if (h->free)
			h->free(ev, h->arg);
		pairer_free(p, ev);
		break;
	case MT_PROC:
		pairer_proc(p, ev->pid, ev->ts);
		h->other(r, ev, h->arg);
		break;
	case MT_LOST:
		pairer_lost(p, ev->size);
		h->other(r, ev, h->arg);
		break;
	case MT_EXIT:
		h->other(r, ev, h->arg);
		pairer_image_end(p, ev->pid, "exit", ev->ts);
		break;
	default:
		h->other(r, ev, h->arg);
		break;
	}
}

static void
pair_ahead(struct mt_pairer *p, struct mt_reader *r, struct ahead *a, const struct pair_hooks *h)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		pair_one(p, r, &a->ev[i], a->seq[i], h);
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
	uint64_t seq;
	int status;

	pairer_input(p, r);
	while (!pairer_read_all(p) && reader_next(r, &ev)) {
		seq = pairer_tick(p);
		if (pairer_skip(p))
			continue;
		if (pairer_mode(p) != PAIR_ROUTE && can_wait(&ev)) {
			pairer_prefetch(p, &ev);
			a.seq[a.n] = seq;
			wait_copy(&a.ev[a.n++], &ev);
			if (a.n == AHEAD)
				pair_ahead(p, r, &a, h);
			continue;
		}
		pair_ahead(p, r, &a, h);
		pair_one(p, r, &ev, seq, h);
	}
	pair_ahead(p, r, &a, h);
	pairer_input(p, NULL);
	status = reader_close(r);
	return status;
}

/* Read twice, an input that is not a regular file is read from a copy. */
static int
needs_copy(const char *path)
{
	struct stat st;

	return !path || !strcmp(path, "-") || stat(path, &st) || !S_ISREG(st.st_mode);
}

int
pairer_run_all(struct mt_pairer *p, char **paths, int n, const struct pair_hooks *h)
{
	static char *in[] = { NULL };
	struct mt_reader *r;
	int i, k, status = 0, *spool;

	if (n == 0) {
		paths = in;
		n = 1;
	}
	spool = emalloc((size_t)n * sizeof(*spool));
	for (i = 0; i < n; i++) {
		spool[i] = -1;
		if (pairer_budget_of(p) && needs_copy(paths[i]) &&
		    (spool[i] = reader_spool_tmp(paths[i], &k)) < 0) {
			status |= k;
			spool[i] = -2;
		}
	}
	for (i = 0; i < n; i++) {
		if (spool[i] == -2 || !(r = reader_reopen(paths[i], spool[i]))) {
			status |= 1;
			spool[i] = -2;
			continue;
		}
		status |= pairer_run(p, r, h);
	}
	if (pairer_mode(p) == PAIR_ROUTE) {
		pairer_pair_spilled(p);
		for (i = 0; i < n; i++) {
			if (spool[i] == -2 || !(r = reader_reopen(paths[i], spool[i])))
				continue;
			reader_quiet(r);
			(void)pairer_run(p, r, h);
		}
	}
	for (i = 0; i < n; i++)
		if (spool[i] >= 0)
			close(spool[i]);
	free(spool);
	return status;
}
