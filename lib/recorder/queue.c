/* queue: the records of one source waiting to be merged, in its order. */

#include "internal.h"

#define QUEUE_KEEP 4096		/* records a queue keeps room for when empty */
#define QUEUE_WEIGH 16		/* emptyings between two looks at its room */

/* Room for one more record at q->len. */
void
queue_room(struct queue *q)
{
	if (q->head > 0 && q->head == q->len) {
		/*
		 * Emptied: a burst's room is given back, once the last
		 * QUEUE_WEIGH emptyings used a quarter of it at most.  Given
		 * back at every emptying, the room would be taken again at
		 * once by a steady stream, a page fault at a time.
		 */
		if (q->len > q->peak)
			q->peak = q->len;
		q->head = q->len = 0;
		if (++q->empties >= QUEUE_WEIGH) {
			if (q->cap > QUEUE_KEEP && q->peak <= q->cap / 4) {
				q->cap = q->peak > QUEUE_KEEP ? q->peak : QUEUE_KEEP;
				q->v = erealloc(q->v, q->cap * sizeof(*q->v));
			}
			q->peak = 0;
			q->empties = 0;
		}
	} else if (q->len == q->cap) {
		if (q->head > q->cap / 2) {
			memmove(q->v, q->v + q->head, (q->len - q->head) * sizeof(*q->v));
			q->len -= q->head;
			q->head = 0;
		} else {
			q->cap = q->cap ? q->cap * 2 : 256;
			q->v = erealloc(q->v, q->cap * sizeof(*q->v));
		}
	}
}

struct rec *
queue_push(struct queue *q, uint64_t ts)
{
	struct rec *r;

	queue_room(q);
	r = queue_next(q, &ts);
	memset(r, 0, sizeof(*r));
	r->ts = ts;
	return r;
}

/*
 * A record of a time already past in the queue's own order (a fork, told
 * by the child's hello after the parent's later records were queued):
 * put among the waiting ones where its time goes, not after them.
 */
struct rec *
queue_insert(struct queue *q, uint64_t ts)
{
	uint64_t last = q->last_ts;
	struct rec *r = queue_push(q, ts), tmp;
	size_t i = (size_t)(r - q->v);

	if (ts >= last)
		return r;
	q->last_ts = last;
	r->ts = ts;
	for (; i > q->head && q->v[i - 1].ts > ts; i--) {
		tmp = q->v[i - 1];
		q->v[i - 1] = q->v[i];
		q->v[i] = tmp;
	}
	return &q->v[i];
}

