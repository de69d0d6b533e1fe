/*
 * seriesrun.c: --series' changes past what memory keeps, each series'
 * sorted and written to a temporary file in TMPDIR as a run, and merged
 * back in time order when the samples are written: exact at the
 * nanosecond however many changes, in memory that does not grow with
 * them.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fieldrun.h"
#include "window.h"

/* A series' changes in one run: where they are in the file. */
struct seg {
	off_t off, end;
};
struct run {
	struct seg *segs;	/* by series; nsegs of them */
	size_t nsegs;
};
/* A segment being merged: its next change. */
struct cursor {
	struct fieldrun f;
	struct change head;
};

static int fd = -1;
static off_t end;
static struct run *runs;
static size_t nruns, runcap;
static struct cursor *cur;
static size_t *heap, nheap, ncur;
static int in_run;

void
runs_put(size_t series, const struct change *c, size_t n)
{
	static struct fieldrun w;
	struct run *r;
	size_t i;

	if (fd < 0 && (fd = tmpfd("mt-window")) < 0)
		tmpfd_err("making");
	if (!in_run) {
		runs = egrow(runs, nruns, &runcap, sizeof(*runs));
		runs[nruns++] = (struct run){ NULL, 0 };
		in_run = 1;
	}
	r = &runs[nruns - 1];
	if (series >= r->nsegs) {
		r->segs = erealloc(r->segs, (series + 1) * sizeof(*r->segs));
		memset(r->segs + r->nsegs, 0, (series + 1 - r->nsegs) * sizeof(*r->segs));
		r->nsegs = series + 1;
	}
	fieldrun_write(&w, fd, end);
	for (i = 0; i < n; i++) {
		uint64_t v[6] = { c[i].k, (uint64_t)c[i].bytes, (uint64_t)c[i].count,
			(uint64_t)c[i].rise, (uint64_t)c[i].dip, c[i].raw };
		if (fieldrun_put(&w, v, 6))
			tmpfd_err("writing");
	}
	if (fieldrun_flush(&w))
		tmpfd_err("writing");
	r->segs[series] = (struct seg){ end, w.pos };
	end = w.pos;
}

/* The run written: the next runs_put begins another. */
void
runs_end(void)
{
	in_run = 0;
}

int
runs_any(void)
{
	return fd >= 0;
}

/* The cursor's next change: 0 when its segment is done. */
static int
fill(struct cursor *c)
{
	uint64_t v[6];
	int k = fieldrun_get(&c->f, v, 6);

	if (k < 0)
		tmpfd_err("reading");
	if (k)
		c->head = (struct change){ v[0], (int64_t)v[1], (int64_t)v[2], (int64_t)v[3],
			(int64_t)v[4], v[5] };
	return k;
}

static int
earlier(size_t a, size_t b)
{
	return cur[a].head.k < cur[b].head.k;
}

static void
sift_down(size_t i)
{
	size_t c, t;

	for (; (c = 2 * i + 1) < nheap; i = c) {
		if (c + 1 < nheap && earlier(heap[c + 1], heap[c]))
			c++;
		if (!earlier(heap[c], heap[i]))
			return;
		t = heap[i];
		heap[i] = heap[c];
		heap[c] = t;
	}
}

/* The series' segments of every run, to be merged by runs_next. */
void
runs_open(size_t series)
{
	size_t i;

	for (i = 0; i < ncur; i++)
		fieldrun_free(&cur[i].f);
	free(cur);
	free(heap);
	ncur = nruns ? nruns : 1;
	cur = ecalloc(ncur, sizeof(*cur));
	heap = emalloc(ncur * sizeof(*heap));
	nheap = 0;
	for (i = 0; i < nruns; i++) {
		if (series >= runs[i].nsegs || runs[i].segs[series].end == runs[i].segs[series].off)
			continue;
		fieldrun_read(&cur[i].f, fd, runs[i].segs[series].off, runs[i].segs[series].end);
		if (fill(&cur[i]))
			heap[nheap++] = i;
		else
			fieldrun_free(&cur[i].f);
	}
	for (i = nheap / 2; i-- > 0;)
		sift_down(i);
}

/* The head of the earliest segment taken; 0 when none is left. */
static int
pop(struct change *e)
{
	struct cursor *c;

	if (!nheap)
		return 0;
	c = &cur[heap[0]];
	*e = c->head;
	if (!fill(c)) {
		fieldrun_free(&c->f);
		heap[0] = heap[--nheap];
	}
	sift_down(0);
	return 1;
}

/*
 * The next change in time order, those of one nanosecond from several
 * runs made one as a run's own are (change_with), unless their sum
 * would not fit.
 */
int
runs_next(struct change *e)
{
	struct change n;

	if (!pop(e))
		return 0;
	while (nheap && cur[heap[0]].head.k == e->k) {
		n = cur[heap[0]].head;
		if (!change_with(e, &n))
			break;
		(void)pop(&n);
	}
	return 1;
}
