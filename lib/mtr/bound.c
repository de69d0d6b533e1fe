/*
 * bound: a trace kept within a size, as xperf's sequential and circular
 * buffers.  Sequential: events stop at the limit, the oldest kept.
 * Circular: whole frames are held in memory and the oldest are dropped
 * to make room; the dictionary records (processes, maps, stacks) of
 * dropped frames are carried and written before the frames kept, so
 * every kept event finds what it refers to.  Of the stacks carried, only
 * those the kept events refer to are written, and only they count
 * against the size, else a program with many stacks could fill it with
 * them and keep no allocation.  Either way the events not kept are
 * counted per process and written as lost records.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mt.h"

struct pid_count {
	int64_t pid;
	uint64_t n;
};

struct counts {
	struct pid_count *v;
	size_t n, cap;
};

/* Where each dictionary line came in the trace: the carried ones go out
   in that order, which is the order the format requires. */
struct seqs {
	uint64_t *v;
	size_t n, cap;
};

struct held_frame {
	char *data;
	size_t len;
	char *dict;		/* its dictionary records but stacks, as text lines */
	size_t dictlen;
	struct seqs dictseq;	/* each line's place in the order written */
	struct counts events;	/* its events by process */
	uint64_t last_ts;
	uint64_t *stacks;	/* the stacks it defines, then those its events use */
	size_t ndefs, nstacks, stackcap;
};

/* A stack, its record's text in the store, and the frames held using it. */
struct held_stack {
	size_t off, len;
	uint64_t frame;		/* the last frame that counted a use */
	uint64_t seq;		/* its place among the dictionary records */
	uint32_t users;		/* frames held that use it */
	int carried;		/* its frame was dropped */
};

struct trace_bound {
	struct trace_writer *w;
	int fd;
	uint64_t max;
	int circular;
	int stopped;		/* sequential: the limit was reached */
	int finishing;
	struct counts lost;
	uint64_t nlost, lost_ts;
	/* circular */
	struct held_frame cur;	/* what the open frame holds */
	size_t dictcap;
	struct held_frame *frames;	/* oldest first, from head */
	size_t head, nframes, framecap;
	uint64_t held;		/* bytes of the frames held */
	char *carried;		/* dictionary records of dropped frames */
	size_t carriedlen, carriedcap;
	struct seqs carriedseq;
	uint64_t seq;		/* dictionary records admitted */
	struct u64map stackmap;	/* id: its struct held_stack */
	char *stacktext;	/* every stack record, as text lines */
	size_t stacktextlen, stacktextcap;
	uint64_t needed;	/* text bytes of the stacks carried and used */
	uint64_t nframe;	/* frames made, the open one's number */
	char *fmt;
	size_t fmtcap;
};

/* Room kept below the limit for what the end writes. */
#define RESERVE 4096

static void
count(struct counts *c, int64_t pid, uint64_t n)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->v[i].pid == pid) {
			c->v[i].n += n;
			return;
		}
	c->v = egrow(c->v, c->n, &c->cap, sizeof(*c->v));
	c->v[c->n++] = (struct pid_count){ pid, n };
}

static void
append(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (n == 0)
		return;
	if (*len + n > *cap) {
		*cap = (*len + n) * 2;
		*buf = erealloc(*buf, *cap);
	}
	memcpy(*buf + *len, s, n);
	*len += n;
}

static void
seq_add(struct seqs *q, uint64_t seq)
{
	q->v = egrow(q->v, q->n, &q->cap, sizeof(*q->v));
	q->v[q->n++] = seq;
}

static void
drop_oldest(struct trace_bound *b)
{
	struct held_frame *f = &b->frames[b->head];
	size_t i;

	for (i = 0; i < f->events.n; i++) {
		count(&b->lost, f->events.v[i].pid, f->events.v[i].n);
		b->nlost += f->events.v[i].n;
	}
	append(&b->carried, &b->carriedlen, &b->carriedcap, f->dict, f->dictlen);
	for (i = 0; i < f->dictseq.n; i++)
		seq_add(&b->carriedseq, f->dictseq.v[i]);
	/* Its uses end first: a stack it made and used alone is not needed. */
	for (i = f->ndefs; i < f->nstacks; i++) {
		struct held_stack *h = *u64map_get(&b->stackmap, f->stacks[i], 0);
		if (--h->users == 0 && h->carried)
			b->needed -= h->len;
	}
	for (i = 0; i < f->ndefs; i++) {
		struct held_stack *h = *u64map_get(&b->stackmap, f->stacks[i], 0);
		h->carried = 1;
		if (h->users)
			b->needed += h->len;
	}
	if (f->last_ts > b->lost_ts)
		b->lost_ts = f->last_ts;
	b->held -= f->len;
	free(f->data);
	free(f->dict);
	free(f->dictseq.v);
	free(f->events.v);
	free(f->stacks);
	b->head++;
	b->nframes--;
}

/* A whole frame from the writer: held, and the oldest dropped for room. */
static void
on_frame(void *arg, const void *data, size_t len)
{
	struct trace_bound *b = arg;
	struct held_frame *f;

	if (b->finishing)
		return;
	if (b->head > 0 && b->head + b->nframes == b->framecap) {
		memmove(b->frames, b->frames + b->head, b->nframes * sizeof(*b->frames));
		b->head = 0;
	}
	b->frames = egrow(b->frames, b->head + b->nframes, &b->framecap, sizeof(*b->frames));
	f = &b->frames[b->head + b->nframes++];
	*f = b->cur;
	f->data = emalloc(len);
	memcpy(f->data, data, len);
	f->len = len;
	b->held += len;
	memset(&b->cur, 0, sizeof(b->cur));
	b->dictcap = 0;
	b->nframe++;
	/* The dictionary carried is written again: about a third of its text. */
	while (b->nframes > 1 && b->held + (b->carriedlen + b->needed) / 3 + RESERVE > b->max)
		drop_oldest(b);
}

/* Adds id to the open frame's stacks. */
static void
frame_stack(struct held_frame *f, uint64_t id)
{
	f->stacks = egrow(f->stacks, f->nstacks, &f->stackcap, sizeof(*f->stacks));
	f->stacks[f->nstacks++] = id;
}

/* A stack record in the open frame: kept as text, and defined by it. */
static void
held_stack_def(struct trace_bound *b, const struct mt_event *ev, const char *text, size_t n)
{
	void **v = u64map_get(&b->stackmap, ev->stack, 1);
	struct held_stack *h = *v;

	if (h)
		return;		/* ids are unique: a repeat is not ours to judge */
	h = *v = ecalloc(1, sizeof(*h));
	h->off = b->stacktextlen;
	h->len = n;
	h->frame = UINT64_MAX;
	h->seq = b->seq++;
	append(&b->stacktext, &b->stacktextlen, &b->stacktextcap, text, n);
	/* Definitions first: uses come after, never before a def. */
	if (b->cur.ndefs < b->cur.nstacks) {
		frame_stack(&b->cur, b->cur.stacks[b->cur.ndefs]);
		b->cur.stacks[b->cur.ndefs] = ev->stack;
	} else {
		frame_stack(&b->cur, ev->stack);
	}
	b->cur.ndefs++;
}

/* An event of the open frame uses its stack. */
static void
held_stack_use(struct trace_bound *b, uint64_t id)
{
	void **v = u64map_get(&b->stackmap, id, 0);
	struct held_stack *h = v ? *v : NULL;

	if (!h || h->frame == b->nframe)
		return;
	h->frame = b->nframe;
	if (h->users++ == 0 && h->carried)
		b->needed += h->len;
	frame_stack(&b->cur, id);
}

struct trace_bound *
bound_new(struct trace_writer *w, int fd, uint64_t max, int circular)
{
	struct trace_bound *b = ecalloc(1, sizeof(*b));

	b->w = w;
	b->fd = fd;
	b->max = max;
	b->circular = circular;
	/* Frames small enough that the limit holds many. */
	trace_writer_frame_max(w, (size_t)(max / 8));
	if (circular)
		trace_writer_on_frame(w, on_frame, b);
	return b;
}

static int
is_event(const struct mt_event *ev)
{
	return ev->type == MT_ALLOC || ev->type == MT_FREE;
}

int
bound_admit(struct trace_bound *b, const struct mt_event *ev)
{
	size_t n;

	if (b->finishing)
		return 1;
	if (!b->circular) {
		if (!b->stopped && trace_writer_bytes(b->w) + trace_writer_pending(b->w) + 64 +
		    RESERVE > b->max) {
			/* Exact only once the frame is out. */
			trace_flush(b->w);
			if (trace_writer_bytes(b->w) + 64 + RESERVE > b->max)
				b->stopped = 1;
		}
		if (!b->stopped)
			return 1;
		if (is_event(ev)) {
			count(&b->lost, ev->pid, 1);
			b->nlost++;
		} else if (ev->type == MT_LOST) {
			count(&b->lost, ev->flags & EV_PID_NONE ? -1 : ev->pid, ev->size);
			b->nlost += ev->size;
		}
		if (ev->ts > b->lost_ts && ev->type != MT_COMMENT && ev->type != MT_STACK &&
		    ev->type != MT_MAP && ev->type != MT_SYM)
			b->lost_ts = ev->ts;
		return 0;
	}
	/* The record goes into the frame it is counted in. */
	if (trace_writer_full(b->w, ev))
		trace_flush(b->w);
	if (is_event(ev)) {
		count(&b->cur.events, ev->pid, 1);
		if (ev->ts > b->cur.last_ts)
			b->cur.last_ts = ev->ts;
		if (!(ev->flags & EV_STACK_NONE))
			held_stack_use(b, ev->stack);
	} else {
		n = event_format_size(ev);
		if (n > b->fmtcap) {
			b->fmtcap = n * 2;
			b->fmt = erealloc(b->fmt, b->fmtcap);
		}
		n = event_format(ev, b->fmt, b->fmtcap);
		if (ev->type == MT_STACK) {
			held_stack_def(b, ev, b->fmt, n);
		} else {
			append(&b->cur.dict, &b->cur.dictlen, &b->dictcap, b->fmt, n);
			seq_add(&b->cur.dictseq, b->seq++);
		}
	}
	return 1;
}

static void
put_lost(struct trace_bound *b, const char *reason)
{
	struct mt_event ev;
	size_t i;

	for (i = 0; i < b->lost.n; i++) {
		memset(&ev, 0, sizeof(ev));
		ev.type = MT_LOST;
		ev.ts = b->lost_ts;
		ev.pid = b->lost.v[i].pid;
		if (ev.pid < 0)
			ev.flags |= EV_PID_NONE;
		ev.size = b->lost.v[i].n;
		ev.s1 = (struct mt_str){ reason, strlen(reason) };
		trace_write(b->w, &ev);
	}
}

/* One of our own lines parsed again, from a copy (parsing splits it). */
static int
parse_copy(struct mt_parser *p, const char *s, size_t len, char **line, size_t *cap,
    struct mt_event *ev)
{
	if (len + 1 > *cap) {
		*cap = (len + 1) * 2;
		*line = erealloc(*line, *cap);
	}
	memcpy(*line, s, len);
	(*line)[len] = '\0';
	return event_parse(p, *line, len, ev);
}

/* Of each pid, the place of its latest proc record, and whether an exit
   followed it. */
struct pid_image {
	int64_t pid;
	uint64_t seq;
	int gone;
};

static struct pid_image *
image_of(struct pid_image **img, size_t *nimg, int64_t pid)
{
	size_t i;

	for (i = 0; i < *nimg; i++)
		if ((*img)[i].pid == pid)
			return &(*img)[i];
	*img = erealloc(*img, (*nimg + 1) * sizeof(**img));
	(*img)[*nimg] = (struct pid_image){ .pid = pid };
	return &(*img)[(*nimg)++];
}

static int
off_cmp(const void *a, const void *b)
{
	const struct held_stack *x = *(const struct held_stack *const *)a;
	const struct held_stack *y = *(const struct held_stack *const *)b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* The stacks of dropped frames that kept events use, in their order. */
static struct held_stack **
needed_stacks(struct trace_bound *b, size_t *np)
{
	struct held_stack **need = NULL;
	size_t i, n = 0;

	for (i = 0; i < b->stackmap.cap; i++) {
		struct held_stack *h = b->stackmap.e[i].value;
		if (h && h->carried && h->users) {
			if (!(n & (n + 1)))
				need = erealloc(need, (2 * n + 1) * sizeof(*need));
			need[n++] = h;
		}
	}
	if (n > 1)
		qsort(need, n, sizeof(*need), off_cmp);
	*np = n;
	return need;
}

/*
 * The carried dictionary, reduced to what can still be referred to: the
 * stacks kept events use, every symbol and comment, and of each process
 * not yet exited its latest proc record and the maps after it.  They go
 * out in the order they came in, so a stack follows the maps its
 * addresses lie in, and a process's image follows the one it replaced at
 * the same addresses.
 */
static void
put_carried(struct trace_bound *b)
{
	struct mt_parser p;
	struct mt_event ev;
	struct pid_image *img = NULL, *im;
	struct held_stack **need;
	size_t nimg = 0, nneed, k = 0, li, len, linecap = 0;
	char *s, *e, *end = b->carried + b->carriedlen, *line = NULL;

	parser_init(&p);
	/* First the latest image of each pid; parsing splits a copy only. */
	for (s = b->carried, li = 0; s < end; s = e + 1, li++) {
		e = memchr(s, '\n', (size_t)(end - s));
		if (parse_copy(&p, s, (size_t)(e - s), &line, &linecap, &ev) < 0)
			continue;
		if (ev.type == MT_PROC || ev.type == MT_EXIT) {
			im = image_of(&img, &nimg, ev.pid);
			im->gone = ev.type == MT_EXIT;
			if (ev.type == MT_PROC)
				im->seq = b->carriedseq.v[li];
		}
	}
	need = needed_stacks(b, &nneed);
	for (s = b->carried, li = 0; s < end; s = e + 1, li++) {
		e = memchr(s, '\n', (size_t)(end - s));
		len = (size_t)(e - s);
		for (; k < nneed && need[k]->seq < b->carriedseq.v[li]; k++)
			if (parse_copy(&p, b->stacktext + need[k]->off, need[k]->len - 1, &line,
			    &linecap, &ev) == 0)
				trace_write(b->w, &ev);
		if (parse_copy(&p, s, len, &line, &linecap, &ev) < 0)
			continue;
		if (ev.type == MT_PROC || ev.type == MT_MAP) {
			im = image_of(&img, &nimg, ev.pid);
			if (!im->gone && b->carriedseq.v[li] >= im->seq)
				trace_write(b->w, &ev);
		} else if (ev.type == MT_LOST) {
			count(&b->lost, ev.flags & EV_PID_NONE ? -1 : ev.pid, ev.size);
			b->nlost += ev.size;
		} else if (ev.type != MT_EXIT) {
			trace_write(b->w, &ev);
		}
	}
	for (; k < nneed; k++)
		if (parse_copy(&p, b->stacktext + need[k]->off, need[k]->len - 1, &line, &linecap,
		    &ev) == 0)
			trace_write(b->w, &ev);
	free(need);
	free(img);
	free(line);
	parser_free(&p);
}

int
bound_finish(struct trace_bound *b)
{
	size_t i;
	int error;

	if (!b->circular) {
		b->finishing = 1;
		put_lost(b, "max-size");
		return 0;
	}
	/* The open frame joins the others; then the carried dictionary and
	   the lost records, the frames held, and the end. */
	if ((error = trace_flush(b->w)) != 0)
		return error;
	b->finishing = 1;
	trace_writer_on_frame(b->w, NULL, NULL);
	put_carried(b);
	put_lost(b, "circular");
	if ((error = trace_flush(b->w)) != 0)
		return error;
	for (i = 0; i < b->nframes; i++) {
		struct held_frame *f = &b->frames[b->head + i];
		if (writeall(b->fd, f->data, f->len) != f->len)
			return errno;
	}
	return 0;
}

uint64_t
bound_lost(const struct trace_bound *b)
{
	return b->nlost;
}

void
bound_free(struct trace_bound *b)
{
	size_t i;

	for (i = 0; i < b->nframes; i++) {
		free(b->frames[b->head + i].data);
		free(b->frames[b->head + i].dict);
		free(b->frames[b->head + i].dictseq.v);
		free(b->frames[b->head + i].events.v);
		free(b->frames[b->head + i].stacks);
	}
	u64map_free(&b->stackmap, free);
	free(b->stacktext);
	free(b->cur.stacks);
	free(b->frames);
	free(b->cur.dict);
	free(b->cur.dictseq.v);
	free(b->cur.events.v);
	free(b->carried);
	free(b->carriedseq.v);
	free(b->lost.v);
	free(b->fmt);
	free(b);
}
