/*
 * write: the .mtr writer, records into per-frame streams and frames out
 * through zstd; format.h says what it writes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "mt.h"
#include "format.h"
#include "frame.h"

struct stream {
	uint8_t *p;
	size_t len, cap;
};

#define STREAM_SLACK	256		/* more than one put_heap() writes */
#define REF_SLOTS	(1u << 16)	/* a direct-mapped cache, see ref_slot() */

/*
 * Recent allocations of the frame, by address: a cache, not a table.  A
 * free found here is written as a distance back; one that is not, by its
 * address.  Either decodes the same, so collisions only cost bytes.
 */
struct ref_slot {
	uint64_t addr;
	uint32_t key;		/* pid and heap, folded */
	uint32_t gen;
	uint32_t index;		/* allocation number in the frame */
	uint32_t cls;		/* its reuse class */
};

/* A thread the frame defined, by its number in the frame. */
struct frame_thread {
	int64_t pid, tid;
};

/* A life record's fate, none, exit or end, as its LF_FATE; -1: another. */
static int
life_fate(struct mt_str s)
{
	if (s.len == 0)
		return 0;
	if (s.len == 4 && !memcmp(s.s, "exit", 4))
		return 1;
	if (s.len == 3 && !memcmp(s.s, "end", 3))
		return 2;
	return -1;
}

struct trace_writer {
	int fd;
	int error;
	int ended;
	ZSTD_CCtx *cctx;
	struct stream st[NSTREAMS];
	size_t rawlen;		/* the streams' bytes together */
	uint8_t *raw;		/* the frame put together */
	size_t rawcap;
	struct mt_out out;
	uint64_t events;
	uint64_t unit;		/* times in units of this many ns */
	uint64_t unit_inv;	/* UINT64_MAX / unit */
	/* per-frame state */
	uint32_t gen;
	struct frame_state fs;
	struct ref_slot *refs;
	struct frame_thread *threads;	/* the frame's, fs.nthreads of them */
	struct idxtab thread_tab;
	uint32_t last_thread;		/* looked up last; IDXTAB_NONE: none yet */
	struct mt_str heaps[MAX_HEAPS];	/* names defined in this frame */
	char heapnames[HEAPNAMES_MAX];	/* their bytes */
	size_t heapnames_len;
	char *textbuf;
	size_t textcap;
	size_t frame_max;	/* end a frame near this many raw bytes */
	void (*on_frame)(void *, const void *, size_t);
	void *on_frame_arg;
};

struct trace_writer *
trace_writer_new(int fd, int level)
{
	struct trace_writer *w = ecalloc(1, sizeof(*w));
	uint8_t hdr[MT_TRACE_HEADER_LEN] = { 0 };
	int i;

	w->fd = fd;
	/* The header first, on disk at once: a writer killed early leaves a
	   file that says it is a trace. */
	w->rawcap = FRAME_RAW_MAX + (1 << 16);
	out_init(&w->out, fd, ZSTD_compressBound(w->rawcap));
	memcpy(hdr, MT_TRACE_MAGIC, MT_TRACE_MAGIC_LEN);
	hdr[8] = MT_TRACE_VERSION;
	out_write(&w->out, hdr, sizeof(hdr));
	out_flush(&w->out);
	w->cctx = ZSTD_createCCtx();
	if (!w->cctx)
		return NULL;
	ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, level);
	ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1);
	w->raw = emalloc(w->rawcap);
	/* Room for a whole frame: put_heap() need not ask (untouched
	   pages cost nothing). */
	for (i = 0; i < NSTREAMS; i++) {
		w->st[i].cap = FRAME_RAW_MAX + STREAM_SLACK;
		w->st[i].p = emalloc(w->st[i].cap);
	}
	w->refs = ecalloc(REF_SLOTS, sizeof(*w->refs));
	w->threads = emalloc(THREAD_SLOTS * sizeof(*w->threads));
	w->last_thread = IDXTAB_NONE;
	w->gen = 1;
	frame_state_reset(&w->fs);
	w->textcap = 4096;
	w->textbuf = emalloc(w->textcap);
	w->frame_max = FRAME_RAW_MAX;
	w->unit = 1;
	w->unit_inv = UINT64_MAX;
	return w;
}

static void
frame_reset(struct trace_writer *w)
{
	int i;

	for (i = 0; i < NSTREAMS; i++)
		w->st[i].len = 0;
	w->rawlen = 0;
	frame_state_reset(&w->fs);
	w->heapnames_len = 0;
	idxtab_clear(&w->thread_tab);
	w->last_thread = IDXTAB_NONE;
	if (++w->gen == 0) {
		memset(w->refs, 0, REF_SLOTS * sizeof(*w->refs));
		w->gen = 1;
	}
}

/* The frame: the number of streams, their lengths, the streams. */
static size_t
frame_assemble(struct trace_writer *w)
{
	size_t n = 0, i;

	if (w->rawcap < w->rawlen + 16 * (NSTREAMS + 1)) {
		w->rawcap = w->rawlen + 16 * (NSTREAMS + 1);
		w->raw = erealloc(w->raw, w->rawcap);
	}
	n += varint_put(w->raw + n, NSTREAMS);
	for (i = 0; i < NSTREAMS; i++)
		n += varint_put(w->raw + n, w->st[i].len);
	for (i = 0; i < NSTREAMS; i++) {
		memcpy(w->raw + n, w->st[i].p, w->st[i].len);
		n += w->st[i].len;
	}
	return n;
}

int
trace_flush(struct trace_writer *w)
{
	size_t n, len;

	if (w->rawlen > 0 && !w->error) {
		len = frame_assemble(w);
		char *dst = out_reserve(&w->out, ZSTD_compressBound(len));
		n = ZSTD_compress2(w->cctx, dst, ZSTD_compressBound(len),
		    w->raw, len);
		if (ZSTD_isError(n))
			w->error = EIO;
		else if (w->on_frame)
			w->on_frame(w->on_frame_arg, dst, n);
		else
			out_commit(&w->out, n);
	}
	if (out_flush(&w->out) && !w->error)
		w->error = w->out.error;
	if (w->rawlen > 0)
		frame_reset(w);
	return w->error;
}

static uint8_t *
room(struct trace_writer *w, int s, size_t n)
{
	struct stream *st = &w->st[s];

	if (st->cap - st->len < n) {
		st->cap = (st->len + n) * 2;
		st->p = erealloc(st->p, st->cap);
	}
	return st->p + st->len;
}

static inline void
put(struct trace_writer *w, int s, uint64_t v)
{
	size_t n = varint_put(room(w, s, 10), v);

	w->st[s].len += n;
	w->rawlen += n;
}

/* No room asked: see put_heap(). */
static inline void
put_fast(struct trace_writer *w, int s, uint64_t v)
{
	size_t n = varint_put(w->st[s].p + w->st[s].len, v);

	w->st[s].len += n;
	w->rawlen += n;
}

static inline void
put_byte(struct trace_writer *w, int s, uint8_t b)
{
	*room(w, s, 1) = b;
	w->st[s].len++;
	w->rawlen++;
}

static void
put_bytes(struct trace_writer *w, struct mt_str s)
{
	put(w, S_MISC, s.len);
	if (s.len)
		memcpy(room(w, S_MISC, s.len), s.s, s.len);
	w->st[S_MISC].len += s.len;
	w->rawlen += s.len;
}

struct thread_want {
	const struct trace_writer *w;
	int64_t pid, tid;
};

static int
thread_same(const void *key, uint32_t i)
{
	const struct thread_want *t = key;

	return t->w->threads[i].pid == t->pid && t->w->threads[i].tid == t->tid;
}

/*
 * The thread's frame index, defining it first when it is new; a frame
 * ends before it holds THREAD_SLOTS / 2 (writer_full()).
 */
static uint32_t __attribute__((noinline))
thread_lookup(struct trace_writer *w, int64_t pid, int64_t tid)
{
	struct thread_want want = { w, pid, tid };
	uint64_t h = hash64((uint64_t)pid << 32 ^ (uint64_t)tid);
	uint32_t i = idxtab_find(&w->thread_tab, h, thread_same, &want);

	if (i == IDXTAB_NONE) {
		i = w->fs.nthreads++;
		w->threads[i] = (struct frame_thread){ pid, tid };
		idxtab_add(&w->thread_tab, h, i);
		put_byte(w, S_TAG, R_THREAD);
		put(w, S_MISC, (uint64_t)pid);
		put(w, S_MISC, (uint64_t)tid);
	}
	return w->last_thread = i;
}

static inline uint32_t
thread_index(struct trace_writer *w, int64_t pid, int64_t tid)
{
	uint32_t i = w->last_thread;

	/* Most records are of the thread before. */
	if (i != IDXTAB_NONE && w->threads[i].pid == pid && w->threads[i].tid == tid)
		return i;
	return thread_lookup(w, pid, tid);
}

static unsigned
heap_index(struct trace_writer *w, struct mt_str heap, uint32_t *idx)
{
	int k;
	uint32_t i;

	if (heap.s == mt_heap_names[0].s)
		return 0;
	k = heap_known(&heap);
	if (k >= 0)
		return (unsigned)k;
	for (i = 0; i < w->fs.nheaps; i++)
		if (w->heaps[i].len == heap.len && !memcmp(w->heaps[i].s, heap.s, heap.len))
			break;
	if (i == w->fs.nheaps) {
		memcpy(w->heapnames + w->heapnames_len, heap.s, heap.len);
		w->heaps[i].s = w->heapnames + w->heapnames_len;
		w->heaps[i].len = heap.len;
		w->heapnames_len += heap.len;
		w->fs.nheaps++;
		put_byte(w, S_TAG, R_HEAP);
		put_bytes(w, heap);
	}
	*idx = i;
	return HEAP_OTHER;
}

static struct ref_slot *
ref_slot(const struct trace_writer *w, uint64_t addr)
{
	return &w->refs[(uint32_t)hash64(addr >> 4) & (REF_SLOTS - 1)];
}

/* A record at addr will be written soon: its slot into the cache now. */
void
trace_writer_prefetch(const struct trace_writer *w, uint64_t addr)
{
	__builtin_prefetch(ref_slot(w, addr), 1);
}

/* The frame's time unit, said before its first record. */
static void
say_unit(struct trace_writer *w)
{
	w->fs.unit = w->unit;
	if (w->unit != 1) {
		put_byte(w, S_TAG, R_UNIT);
		put(w, S_MISC, w->unit);
	}
}

/* ts in the writer's units, rounded down: a multiply, not a division. */
static inline uint64_t
floor_units(const struct trace_writer *w, uint64_t ts)
{
	uint64_t u = w->unit, q;

	if (u == 1)
		return ts;
	/* unit_inv is (2^64 - 1) / u: q is the quotient or a little less */
	q = (uint64_t)(((unsigned __int128)ts * w->unit_inv) >> 64);
	while (ts - q * u >= u)
		q++;
	return q;
}

/* ts as written: in units, from the frame's time before. */
static inline uint64_t
ts_delta(struct trace_writer *w, uint64_t ts)
{
	uint64_t q = floor_units(w, ts), d = zigzag((int64_t)(q - w->fs.last_ts));

	w->fs.last_ts = q;
	return d;
}

static inline void
put_ts(struct trace_writer *w, uint64_t ts)
{
	put(w, S_TS, ts_delta(w, ts));
}

/*
 * Before a record: a new frame when this one is full (or past frame_max:
 * put_heap() counts on the room under it), and the frame's time unit
 * said before its first record.
 */
static inline void
frame_ready(struct trace_writer *w, int full)
{
	if (full || w->rawlen >= w->frame_max)
		trace_flush(w);
	if (__builtin_expect(w->fs.unit != w->unit, 0))
		say_unit(w);
}

static int writer_full(const struct trace_writer *w, size_t heaplen);

/*
 * An allocation or a free, its heap known: heap is 0-2 (mt_heap_names)
 * or HEAP_OTHER with hidx the frame's index of its name.
 */
static inline __attribute__((always_inline)) void
put_heap(struct trace_writer *w, enum mt_type type, unsigned heap, uint32_t hidx,
    const struct mt_heap_rec *ev)
{
	uint32_t thread, key;
	uint8_t tag;
	struct ref_slot *ref;

	thread = thread_index(w, ev->pid, ev->tid);
	key = (uint32_t)ev->pid << 12 ^ (heap == HEAP_OTHER ? 3 + hidx : heap);
	tag = (uint8_t)(heap << 4);
	if (thread != w->fs.cur_thread) {
		tag |= TAG_THREAD;
		w->fs.cur_thread = thread;
		put_fast(w, S_THREAD, thread);
	}
	/* Made before recording (mt-record -p): no time, as the text's '-'. */
	if (!(type == MT_ALLOC && (ev->flags & EV_TS_NONE)))
		put_fast(w, S_TS, ts_delta(w, ev->ts));
	if (heap == HEAP_OTHER)
		put(w, S_MISC, hidx);
	ref = ref_slot(w, ev->addr);
	if (type == MT_ALLOC) {
		unsigned cls = heap == 0 ? reuse_class(ev->size) : 0;
		int k = reuse_find(&w->fs.reuse, cls, ev->addr);
		tag |= ev->flags & EV_TS_NONE ? R_BEFORE : R_ALLOC;
		if (k >= 0) {
			reuse_take(&w->fs.reuse, cls, (unsigned)k);
			put_fast(w, S_ADDR, (uint64_t)k);
		} else {
			/* From the last address, or the last allocation so
			   written, whichever is nearer; bit 0 says which. */
			int64_t d0 = (int64_t)(ev->addr - w->fs.last_addr);
			int64_t d1 = (int64_t)(ev->addr - w->fs.last_far);
			unsigned far = zigzag(d1) < zigzag(d0);

			put_fast(w, S_ADDR, REUSE_DEPTH + (aligned(far ? d1 : d0) << 1 | far));
			w->fs.last_far = ev->addr;
		}
		w->fs.last_addr = ev->addr;
		put_fast(w, S_SIZE, ev->size);
		if (ev->flags & EV_STACK_NONE)
			tag |= TAG_FLAG;
		else
			put_fast(w, S_STACK, ev->stack);
		ref->gen = w->gen;
		ref->addr = ev->addr;
		ref->key = key;
		ref->cls = cls;
		ref->index = w->fs.nallocs++;
	} else {
		if (ref->gen != w->gen || ref->addr != ev->addr || ref->key != key)
			ref = NULL;
		if (ev->size) {
			tag |= R_FREE_RANGE;
			put_fast(w, S_ADDR, zigzag((int64_t)(ev->addr - w->fs.last_addr)));
			put_fast(w, S_SIZE, ev->size);
		} else if (ref) {
			tag |= R_FREE_REF;
			put_fast(w, S_REF, w->fs.nallocs - ref->index);
			reuse_push(&w->fs.reuse, ref->cls, ev->addr);
			ref->gen = 0;
		} else {
			tag |= R_FREE_ADDR;
			put_fast(w, S_ADDR, aligned((int64_t)(ev->addr - w->fs.last_free)));
			w->fs.last_free = ev->addr;
		}
		if (!(ev->flags & EV_STACK_NONE)) {
			tag |= TAG_FLAG;
			put_fast(w, S_STACK, ev->stack);
		}
	}
	w->st[S_TAG].p[w->st[S_TAG].len++] = tag;
	w->rawlen++;
}

/* The recorder's fast way: trace_write of an alloc or free of a known heap. */
void
trace_write_heap(struct trace_writer *w, enum mt_type type, int heap, const struct mt_heap_rec *r)
{
	if (w->error)
		return;
	w->events++;
	frame_ready(w, writer_full(w, 0));
	put_heap(w, type, (unsigned)heap, 0, r);
	if (w->rawlen >= w->frame_max)
		trace_flush(w);
}

/*
 * A life record; f holds its LF_ flags, class and fate (not LF_IMPACT),
 * and LF_STACK2 when stack2, the free's stack, follows.
 */
static void
put_life(struct trace_writer *w, unsigned f, int64_t pid, int64_t tid, struct mt_str heapname,
    uint64_t ts, uint64_t ts2, uint64_t addr, uint64_t size, uint64_t stack, int64_t impact,
    uint64_t stack2)
{
	uint32_t thread, hidx = 0;
	unsigned heap;
	uint8_t tag;

	frame_ready(w, writer_full(w, heapname.len));
	if (impact != life_class_impact((unsigned)LF_CLASS(f), size, !(f & LF_SIZE_NONE)))
		f |= LF_IMPACT;
	thread = thread_index(w, pid, f & LF_TID_NONE ? 0 : tid);
	heap = heap_index(w, heapname, &hidx);
	tag = (uint8_t)(R_LIFE | heap << 4);
	if (thread != w->fs.cur_thread) {
		tag |= TAG_THREAD;
		w->fs.cur_thread = thread;
		put(w, S_THREAD, thread);
	}
	put(w, S_MISC, f);
	if (heap == HEAP_OTHER)
		put(w, S_MISC, hidx);
	/* The end, then how long before it the lifetime began (in ns). */
	if (!(f & LF_TS2_NONE)) {
		put_ts(w, ts2);
		if (!(f & LF_TS_NONE))
			put(w, S_TS, zigzag((int64_t)(w->fs.last_ts * w->unit -
			    floor_units(w, ts) * w->unit)));
	} else if (!(f & LF_TS_NONE)) {
		put_ts(w, ts);
	}
	put(w, S_ADDR, zigzag((int64_t)(addr - w->fs.last_addr)));
	w->fs.last_addr = addr;
	if (!(f & LF_SIZE_NONE))
		put(w, S_SIZE, size);
	if (!(f & LF_STACK_NONE))
		put(w, S_STACK, stack);
	if (f & LF_IMPACT)
		put(w, S_MISC, zigzag(impact));
	if (f & LF_STACK2)
		put(w, S_STACK, stack2);
	put_byte(w, S_TAG, tag);
}

/*
 * The pairer's lifetime as a life record, without making it an event
 * first (its class named, then read back): cls 0-3 is aifi aifo aofi aofo.
 */
void
trace_write_life(struct trace_writer *w, const struct mt_life *l, unsigned cls, int64_t impact)
{
	unsigned fate = !l->fate ? 0 : l->fate[0] == 'e' && l->fate[1] == 'x' ? 1 : 2;

	if (w->error)
		return;
	if (l->heap.len > HEAPNAMES_MAX / 2) {
		struct mt_event ev;	/* no such heap: as text, like trace_write */

		life_event(l, cls, impact, &ev);
		trace_write(w, &ev);
		return;
	}
	w->events++;
	put_life(w, (l->ta == UINT64_MAX ? LF_TS_NONE : 0) | (l->tf == UINT64_MAX ? LF_TS2_NONE : 0) |
	    (l->tid < 0 ? LF_TID_NONE : 0) | (l->size == UINT64_MAX ? LF_SIZE_NONE : 0) |
	    (l->stack == UINT64_MAX ? LF_STACK_NONE : 0) | (cls & 3) << 5 | fate << 7 |
	    (l->free_stack != UINT64_MAX ? LF_STACK2 : 0) | (l->temporary ? LF_TEMP : 0),
	    l->pid, l->tid, l->heap, l->ta, l->tf, l->addr, l->size, l->stack, impact, l->free_stack);
	if (w->rawlen >= w->frame_max)
		trace_flush(w);
}

void
trace_write(struct trace_writer *w, const struct mt_event *ev)
{
	uint32_t hidx = 0;
	unsigned heap;
	size_t i;

	if (w->error)
		return;
	w->events++;
	frame_ready(w, trace_writer_full(w, ev));
	switch (ev->type) {
	case MT_ALLOC:
	case MT_FREE:
		if (ev->heap.len > HEAPNAMES_MAX / 2)
			return;	/* no heap is named like that; keep the frame sane */
		heap = heap_index(w, ev->heap, &hidx);
		put_heap(w, ev->type, heap, hidx, &(struct mt_heap_rec){ .ts = ev->ts,
		    .addr = ev->addr, .size = ev->size, .stack = ev->stack, .pid = ev->pid,
		    .tid = ev->tid, .flags = ev->flags });
		break;
	case MT_LIFE: {
		int cls = life_class_parse(ev->s1.s, ev->s1.len);
		int fate = life_fate(ev->s2);

		/* A class or fate of our own: its text line keeps it. */
		if (cls < 0 || fate < 0 || ev->heap.len > HEAPNAMES_MAX / 2)
			goto text;
		put_life(w, (ev->flags & EV_TS_NONE ? LF_TS_NONE : 0) |
		    (ev->flags & EV_TS2_NONE ? LF_TS2_NONE : 0) |
		    (ev->flags & EV_TID_NONE ? LF_TID_NONE : 0) |
		    (ev->flags & EV_SIZE_NONE ? LF_SIZE_NONE : 0) |
		    (ev->flags & EV_STACK_NONE ? LF_STACK_NONE : 0) |
		    (ev->flags & EV_STACK2 ? LF_STACK2 : 0) | (ev->flags & EV_TEMP ? LF_TEMP : 0) |
		    (unsigned)cls << 5 | (unsigned)fate << 7, ev->pid, ev->tid, ev->heap,
		    ev->ts, ev->ts2, ev->addr, ev->size, ev->stack, ev->impact, ev->stack2);
		break;
	}
	case MT_STACK:
		put_byte(w, S_TAG, R_STACK);
		put(w, S_MISC, ev->stack);
		put(w, S_MISC, (uint64_t)ev->nips << 1 | !!(ev->flags & EV_TRUNCATED));
		for (i = 0; i < ev->nips; i++)
			put(w, S_MISC, zigzag((int64_t)(ev->ips[i] - (i ? ev->ips[i - 1] : 0))));
		break;
	case MT_PROC:
		put_byte(w, S_TAG, R_PROC);
		put_ts(w, ev->ts);
		put(w, S_MISC, (uint64_t)ev->pid);
		put(w, S_MISC, (uint64_t)ev->ppid);
		put_bytes(w, ev->s1);
		put_bytes(w, ev->s2);
		break;
	case MT_MAP:
		put_byte(w, S_TAG, R_MAP);
		put(w, S_MISC, (uint64_t)ev->pid);
		put(w, S_MISC, ev->addr);
		put(w, S_MISC, ev->size - ev->addr);
		put(w, S_MISC, ev->stack);
		put_bytes(w, ev->s1);
		put_bytes(w, ev->s2);
		break;
	case MT_EXIT:
		put_byte(w, S_TAG, R_EXIT);
		put_ts(w, ev->ts);
		put(w, S_MISC, (uint64_t)ev->pid);
		put(w, S_MISC, (uint64_t)(ev->status + 1));
		break;
	case MT_LOST:
		put_byte(w, S_TAG, R_LOST);
		put_ts(w, ev->ts);
		put(w, S_MISC, ev->flags & EV_PID_NONE ? 0 : (uint64_t)ev->pid + 1);
		put(w, S_MISC, ev->size);
		put_bytes(w, ev->s1);
		break;
	default:
	text:
		i = event_format_size(ev);
		if (i > w->textcap) {
			w->textcap = i;
			w->textbuf = erealloc(w->textbuf, i);
		}
		i = event_format(ev, w->textbuf, w->textcap) - 1;
		put_byte(w, S_TAG, R_TEXT);
		put_bytes(w, (struct mt_str){ w->textbuf, i });
		break;
	}
	if (w->rawlen >= w->frame_max)
		trace_flush(w);
}

/* A record as its text line (without the newline), as trace_write writes
   one it has no binary form for. */
void
trace_write_text(struct trace_writer *w, const char *line, size_t len)
{
	if (w->error)
		return;
	w->events++;
	frame_ready(w, 0);
	put_byte(w, S_TAG, R_TEXT);
	put_bytes(w, (struct mt_str){ line, len });
	if (w->rawlen >= w->frame_max)
		trace_flush(w);
}

/*
 * A whole frame of another trace of this version, passed on as it is:
 * the records pending go out as a frame of their own first.
 */
void
trace_write_frame(struct trace_writer *w, const void *bytes, size_t len)
{
	if (w->error || trace_flush(w))
		return;
	out_write(&w->out, bytes, len);
}

/* A new frame must begin before ev: its tables have no room for it. */
int
trace_writer_full(const struct trace_writer *w, const struct mt_event *ev)
{
	if (ev->type != MT_ALLOC && ev->type != MT_FREE && ev->type != MT_LIFE)
		return 0;
	return writer_full(w, ev->heap.len);
}

static int
writer_full(const struct trace_writer *w, size_t heaplen)
{
	return w->fs.nallocs >= FRAME_ALLOCS_MAX ||
	    w->fs.nthreads >= THREAD_SLOTS / 2 || w->fs.nheaps >= MAX_HEAPS ||
	    w->heapnames_len + heaplen > HEAPNAMES_MAX;
}

/* Times from now on in units of ns nanoseconds (rounded down). */
void
trace_writer_time_unit(struct trace_writer *w, uint64_t ns)
{
	if (ns < 1)
		ns = 1;
	if (ns != w->unit && w->rawlen > 0)
		trace_flush(w);	/* a frame has one unit */
	w->unit = ns;
	w->unit_inv = UINT64_MAX / ns;
}

size_t
trace_writer_pending(const struct trace_writer *w)
{
	return w->rawlen;
}

void
trace_writer_frame_max(struct trace_writer *w, size_t raw)
{
	w->frame_max = raw < 4096 ? 4096 : raw > FRAME_RAW_MAX ? FRAME_RAW_MAX : raw;
}

void
trace_writer_on_frame(struct trace_writer *w, void (*fn)(void *, const void *, size_t),
    void *arg)
{
	w->on_frame = fn;
	w->on_frame_arg = arg;
}

int
trace_writer_error(const struct trace_writer *w)
{
	return w->error;
}

uint64_t
trace_writer_bytes(const struct trace_writer *w)
{
	return w->out.written + w->out.len;
}

uint64_t
trace_writer_events(const struct trace_writer *w)
{
	return w->events;
}

/* The end record tells a whole trace from one cut at a frame boundary. */
int
trace_end(struct trace_writer *w)
{
	if (!w->error && !w->ended) {
		put_byte(w, S_TAG, R_END);
		w->ended = 1;
	}
	return trace_flush(w);
}

int
trace_writer_free(struct trace_writer *w)
{
	int error = trace_end(w), i;

	ZSTD_freeCCtx(w->cctx);
	out_free(&w->out);
	for (i = 0; i < NSTREAMS; i++)
		free(w->st[i].p);
	free(w->raw);
	free(w->refs);
	free(w->threads);
	idxtab_free(&w->thread_tab);
	free(w->textbuf);
	free(w);
	return error;
}
