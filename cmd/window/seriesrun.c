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

#include "window.h"

#define RUN_READ 4096		/* a segment's changes read at a time */

/* A series' changes in one run: where they are in the file. */
struct seg {
	off_t off;
	size_t n;
};
struct run {
	struct seg *segs;	/* by series; nsegs of them */
	size_t nsegs;
};
/* A segment being merged: its next changes. */
struct cursor {
	off_t off;
	size_t left;		/* on disk after buf */
	struct change buf[RUN_READ];
	size_t at, n;
};

static int fd = -1;
static off_t end;
static struct run *runs;
static size_t nruns, runcap;
static struct cursor *cur;
static size_t *heap, nheap;
static int in_run;

static void
fail(const char *what)
{
	const char *dir = getenv("TMPDIR");

	mt_err(1, "%s a temporary file in %s", what, dir && *dir ? dir : "/tmp");
}

void
runs_put(size_t series, const struct change *c, size_t n)
{
	struct run *r;
	size_t len = n * sizeof(*c);

	if (fd < 0 && (fd = tmpfd("mt-window")) < 0)
		fail("making");
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
	if (pwrite(fd, c, len, end) != (ssize_t)len)
		fail("writing");
	r->segs[series] = (struct seg){ end, n };
	end += (off_t)len;
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

static int
fill(struct cursor *c)
{
	size_t want = c->left < RUN_READ ? c->left : RUN_READ;
	ssize_t got;

	if (!want)
		return 0;
	got = pread(fd, c->buf, want * sizeof(c->buf[0]), c->off);
	if (got != (ssize_t)(want * sizeof(c->buf[0])))
		fail("reading");
	c->off += got;
	c->left -= want;
	c->at = 0;
	c->n = want;
	return 1;
}

static int
earlier(size_t a, size_t b)
{
	return cur[a].buf[cur[a].at].k < cur[b].buf[cur[b].at].k;
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

	free(cur);
	free(heap);
	cur = ecalloc(nruns ? nruns : 1, sizeof(*cur));
	heap = emalloc((nruns ? nruns : 1) * sizeof(*heap));
	nheap = 0;
	for (i = 0; i < nruns; i++) {
		if (series >= runs[i].nsegs || !runs[i].segs[series].n)
			continue;
		cur[i].off = runs[i].segs[series].off;
		cur[i].left = runs[i].segs[series].n;
		if (fill(&cur[i]))
			heap[nheap++] = i;
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
	*e = c->buf[c->at++];
	if (c->at == c->n && !fill(c))
		heap[0] = heap[--nheap];
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
	while (nheap && cur[heap[0]].buf[cur[heap[0]].at].k == e->k) {
		n = cur[heap[0]].buf[cur[heap[0]].at];
		if (!change_with(e, &n))
			break;
		(void)pop(&n);
	}
	return 1;
}
