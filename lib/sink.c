/*
 * sink.c: where a filter's records go: event text, or with --binary a
 * .mtr stream, which the next filter reads as fast as a trace (no text
 * to format and parse again between them).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mt.h"

void
sink_init(struct mt_sink *s, int fd, int binary)
{
	memset(s, 0, sizeof(*s));
	if (binary)
		s->w = trace_writer_new(fd, MT_SINK_LEVEL);
	else {
		out_init(&s->out, fd, 1 << 20);
		mt_set_idle(out_flush_idle, &s->out);
	}
}

/*
 * sink_thread(): the records go to the sink's thread in batches, a ring
 * of them.  A lifetime is copied whole (its heap name is the pairer's,
 * which lasts); any other record is copied with its strings and frames
 * into its batch's arena, or when text is passed on, its text.
 */
#define BATCH 1024		/* records */
/* Sixteen: with four, the thread sharing two cores with the next filter
   fell behind, and the pipeline took 1.10 s rather than 0.91 s. */
#define NBATCH 16
#define ARENA_MAX (1 << 20)	/* a batch whose arena is fuller goes at once */

enum { ITEM_LIFE, ITEM_EVENT, ITEM_TEXT };

struct sink_item {
	uint8_t kind;
	uint8_t cls;
	int64_t impact;
	union {
		struct mt_life life;
		struct {
			size_t off, len;
		} bytes;	/* in the arena: an event, or text */
	} u;
};

struct sink_batch {
	int flush;		/* the output flushed once it is written */
	size_t n;
	struct sink_item item[BATCH];
	struct mt_out arena;
};

struct sink_queue {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t filled, emptied;
	struct sink_batch batch[NBATCH];
	unsigned head;		/* the batch being filled */
	unsigned tail;		/* the next for the thread */
	unsigned count;		/* handed over, not yet written */
	int done;
};

static void
write_event(struct mt_sink *s, const struct mt_event *ev)
{
	size_t n;

	if (s->w) {
		trace_write(s->w, ev);
		return;
	}
	n = event_format_size(ev);
	out_commit(&s->out, event_format(ev, out_reserve(&s->out, n), n));
}

static void
write_life(struct mt_sink *s, const struct mt_life *l, unsigned cls, int64_t impact)
{
	struct mt_event ev;

	if (s->w) {
		trace_write_life(s->w, l, cls, impact);
		return;
	}
	life_event(l, cls, impact, &ev);
	write_event(s, &ev);
}

/* The arena's offsets in an event copied there, made pointers again. */
static void
str_at(struct mt_str *str, const char *base)
{
	str->s = str->len ? base + (uintptr_t)str->s : "";
}

static void
write_batch(struct mt_sink *s, struct sink_batch *b)
{
	struct mt_event ev;
	size_t i;

	for (i = 0; i < b->n; i++) {
		const struct sink_item *it = &b->item[i];

		switch (it->kind) {
		case ITEM_LIFE:
			write_life(s, &it->u.life, it->cls, it->impact);
			break;
		case ITEM_EVENT:
			memcpy(&ev, b->arena.buf + it->u.bytes.off, sizeof(ev));
			str_at(&ev.heap, b->arena.buf);
			str_at(&ev.s1, b->arena.buf);
			str_at(&ev.s2, b->arena.buf);
			str_at(&ev.s3, b->arena.buf);
			ev.ips = ev.nips ? (uint64_t *)(void *)(b->arena.buf + (uintptr_t)ev.ips) : NULL;
			write_event(s, &ev);
			break;
		default:
			out_write(&s->out, b->arena.buf + it->u.bytes.off, it->u.bytes.len);
			break;
		}
	}
	b->n = 0;
	b->arena.len = 0;
}

static void *
sink_main(void *arg)
{
	struct mt_sink *s = arg;
	struct sink_queue *q = s->q;

	for (;;) {
		pthread_mutex_lock(&q->lock);
		while (q->count == 0 && !q->done)
			pthread_cond_wait(&q->filled, &q->lock);
		if (q->count == 0) {
			pthread_mutex_unlock(&q->lock);
			return NULL;
		}
		pthread_mutex_unlock(&q->lock);
		write_batch(s, &q->batch[q->tail]);
		if (q->batch[q->tail].flush) {
			q->batch[q->tail].flush = 0;
			if (!s->w)
				out_flush(&s->out);
		}
		pthread_mutex_lock(&q->lock);
		q->tail = (q->tail + 1) % NBATCH;
		q->count--;
		pthread_cond_signal(&q->emptied);
		pthread_mutex_unlock(&q->lock);
	}
}

static void hand_over(struct sink_queue *q);

/* The input would wait: what is batched goes out now, flushed. */
static void
sink_idle(void *arg)
{
	struct mt_sink *s = arg;

	s->q->batch[s->q->head].flush = 1;
	hand_over(s->q);
}

int
sink_thread(struct mt_sink *s)
{
	struct sink_queue *q = ecalloc(1, sizeof(*q));
	sigset_t all, old;
	int i, error;

	for (i = 0; i < NBATCH; i++)
		out_init(&q->batch[i].arena, -1, 1 << 16);
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->filled, NULL);
	pthread_cond_init(&q->emptied, NULL);
	s->q = q;
	/*
	 * Signals are the program's: the thread takes none of them but
	 * SIGPIPE, which a write to a reader gone raises in the writing
	 * thread; blocked, it would leave the program running to the end
	 * of its input, where `| head` has it stop at once.
	 */
	sigfillset(&all);
	sigdelset(&all, SIGPIPE);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	error = pthread_create(&q->thread, NULL, sink_main, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (error) {
		s->q = NULL;
		for (i = 0; i < NBATCH; i++)
			out_free(&q->batch[i].arena);
		free(q);
		return -1;
	}
	if (!s->w)
		mt_set_idle(sink_idle, s);
	return 0;
}

/* The batch being filled goes to the thread; waits for room for the next. */
static void
hand_over(struct sink_queue *q)
{
	pthread_mutex_lock(&q->lock);
	q->count++;
	pthread_cond_signal(&q->filled);
	q->head = (q->head + 1) % NBATCH;
	while (q->count == NBATCH)
		pthread_cond_wait(&q->emptied, &q->lock);
	pthread_mutex_unlock(&q->lock);
}

static struct sink_item *
next_item(struct sink_queue *q, struct sink_batch **bp)
{
	struct sink_batch *b = &q->batch[q->head];

	if (b->n == BATCH || b->arena.len > ARENA_MAX) {
		hand_over(q);
		b = &q->batch[q->head];
	}
	*bp = b;
	return &b->item[b->n++];
}

/* A copy of str in the arena; its offset stands for the pointer. */
static void
str_copy(struct mt_out *a, struct mt_str *str)
{
	if (str->len) {
		size_t off = a->len;

		out_write(a, str->s, str->len);
		str->s = (const char *)(uintptr_t)off;
	}
}

/*
 * The arena's end at a multiple of 8, with room made for the padding: set
 * past its capacity, the next write would overflow it.
 */
static void
arena_align(struct mt_out *o)
{
	size_t pad = (size_t)-o->len & 7;

	out_reserve(o, pad);
	o->len += pad;
}

static void
queue_event(struct sink_queue *q, const struct mt_event *ev)
{
	struct sink_batch *b;
	struct sink_item *it = next_item(q, &b);
	struct mt_event c = *ev;
	size_t off;

	it->kind = ITEM_EVENT;
	if (c.nips) {
		arena_align(&b->arena);
		off = b->arena.len;
		out_write(&b->arena, c.ips, c.nips * sizeof(*c.ips));
		c.ips = (uint64_t *)(uintptr_t)off;
	}
	str_copy(&b->arena, &c.heap);
	str_copy(&b->arena, &c.s1);
	str_copy(&b->arena, &c.s2);
	str_copy(&b->arena, &c.s3);
	arena_align(&b->arena);
	it->u.bytes.off = b->arena.len;
	out_write(&b->arena, &c, sizeof(c));
}

void
sink_put(struct mt_sink *s, const struct mt_event *ev)
{
	if (s->q)
		queue_event(s->q, ev);
	else
		write_event(s, ev);
}

void
sink_pass(struct mt_sink *s, struct mt_reader *r, const struct mt_event *ev)
{
	struct sink_batch *b;
	struct sink_item *it;

	if (!s->q) {
		if (s->w)
			trace_write(s->w, ev);
		else
			reader_write(r, &s->out);
	} else if (s->w) {
		queue_event(s->q, ev);
	} else {
		it = next_item(s->q, &b);
		it->kind = ITEM_TEXT;
		it->u.bytes.off = b->arena.len;
		reader_write(r, &b->arena);
		it->u.bytes.len = b->arena.len - it->u.bytes.off;
	}
}

void
sink_life(struct mt_sink *s, const struct mt_life *l, unsigned cls, int64_t impact)
{
	struct sink_batch *b;
	struct sink_item *it;

	if (!s->q) {
		write_life(s, l, cls, impact);
		return;
	}
	it = next_item(s->q, &b);
	it->kind = ITEM_LIFE;
	it->cls = (uint8_t)cls;
	it->impact = impact;
	it->u.life = *l;
}

/* The last batch written, and the thread gone. */
static void
thread_end(struct mt_sink *s)
{
	struct sink_queue *q = s->q;
	int i;

	mt_set_idle(NULL, NULL);
	if (q->batch[q->head].n > 0)
		hand_over(q);
	pthread_mutex_lock(&q->lock);
	q->done = 1;
	pthread_cond_signal(&q->filled);
	pthread_mutex_unlock(&q->lock);
	pthread_join(q->thread, NULL);
	for (i = 0; i < NBATCH; i++)
		out_free(&q->batch[i].arena);
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->filled);
	pthread_cond_destroy(&q->emptied);
	free(q);
	s->q = NULL;
}

int
sink_finish(struct mt_sink *s)
{
	int error;

	if (s->q)
		thread_end(s);
	mt_set_idle(NULL, NULL);
	if (!s->w)
		return out_finish(&s->out);
	error = trace_end(s->w);
	trace_writer_free(s->w);
	s->w = NULL;
	if (error)
		errno = error, mt_warn("stdout");
	return error != 0;
}
