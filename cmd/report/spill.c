/*
 * spill.c: the changes of life lines, which come in the order of
 * their frees, replayed in time order in bounded memory: sorted in runs
 * of REPORT_RUN, written to a temporary file when there is more than
 * one, and the runs merged at the end.  The order of changes at one
 * instant does not matter: nothing settles until the instant ends.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mt.h"
#include "report.h"

#define READ_CHANGES 4096	/* a run's changes read at a time */

static int
change_cmp(const void *a, const void *b)
{
	const struct rep_change *x = a, *y = b;

	return x->t < y->t ? -1 : x->t > y->t;
}

/* The changes held, sorted, as a run at the file's end. */
void
report_spill(struct report *r)
{
	size_t len = r->nchanges * sizeof(*r->changes);

	if (!r->nruns && (r->spill = tmpfd("mt-report")) < 0)
		tmpfd_err("making");
	qsort(r->changes, r->nchanges, sizeof(*r->changes), change_cmp);
	if (writeall(r->spill, r->changes, len) != len)
		tmpfd_err("writing");
	r->runs = egrow(r->runs, r->nruns + 1, &r->runcap, sizeof(*r->runs));
	r->runs[r->nruns++] = r->nchanges;
	r->nchanges = 0;
}

struct run {
	struct rep_change *buf;
	size_t at, n;
	uint64_t left;		/* on disk after buf */
	off_t off;
};

/* The next READ_CHANGES of a run; 0 when it is done. */
static int
run_fill(struct report *r, struct run *u)
{
	size_t want = u->left < READ_CHANGES ? (size_t)u->left : READ_CHANGES;
	size_t len = want * sizeof(*u->buf), got = 0;
	ssize_t n;

	while (got < len) {
		n = pread(r->spill, (char *)u->buf + got, len - got, u->off + (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			tmpfd_err("reading");
		got += (size_t)n;
	}
	u->off += (off_t)len;
	u->left -= want;
	u->at = 0;
	u->n = want;
	return want > 0;
}

static int
run_before(const struct run *a, const struct run *b)
{
	return a->buf[a->at].t < b->buf[b->at].t;
}

/* The runs, a min-heap by their next change's time. */
static void
heap_down(struct run **h, size_t n, size_t i)
{
	size_t c;
	struct run *t;

	for (; (c = 2 * i + 1) < n; i = c) {
		if (c + 1 < n && run_before(h[c + 1], h[c]))
			c++;
		if (!run_before(h[c], h[i]))
			break;
		t = h[i], h[i] = h[c], h[c] = t;
	}
}

static void
replay_runs(struct report *r)
{
	struct run *runs = ecalloc(r->nruns, sizeof(*runs)), **h;
	size_t i, n = 0;
	off_t off = 0;

	h = ecalloc(r->nruns, sizeof(*h));
	for (i = 0; i < r->nruns; i++) {
		runs[i].buf = emalloc(READ_CHANGES * sizeof(*runs[i].buf));
		runs[i].left = r->runs[i];
		runs[i].off = off;
		off += (off_t)(r->runs[i] * sizeof(struct rep_change));
		if (run_fill(r, &runs[i]))
			h[n++] = &runs[i];
	}
	for (i = n; i-- > 0;)
		heap_down(h, n, i);
	while (n > 0) {
		const struct rep_change *c = &h[0]->buf[h[0]->at];

		report_change(r, c->site, c->t, c->d, c->n);
		if (++h[0]->at == h[0]->n && !run_fill(r, h[0]))
			h[0] = h[--n];
		heap_down(h, n, 0);
	}
	for (i = 0; i < r->nruns; i++)
		free(runs[i].buf);
	free(runs);
	free(h);
	close(r->spill);
	r->nruns = 0;
}

void
report_replay(struct report *r)
{
	size_t i;

	if (r->nruns) {
		if (r->nchanges)
			report_spill(r);
		free(r->changes);
		r->changes = NULL;
		replay_runs(r);
	} else {
		if (r->nchanges > 1)
			qsort(r->changes, r->nchanges, sizeof(*r->changes), change_cmp);
		for (i = 0; i < r->nchanges; i++)
			report_change(r, r->changes[i].site, r->changes[i].t, r->changes[i].d,
			    r->changes[i].n);
		free(r->changes);
	}
	r->changes = NULL;
	r->nchanges = r->changecap = 0;
}
