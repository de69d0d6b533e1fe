/*
 * The .mtr container: a 16-byte header (magic, version, flags) and then
 * zstd frames, each with a checksum and each decodable on its own: all
 * delta state starts afresh with every frame, so a trace cut short by a
 * crash or a full disk decodes up to its last whole frame.
 *
 * Inside a frame, records are a tag byte and varints, and each kind of
 * field goes to a stream of its own (tags, times, threads, addresses,
 * sizes, stacks, back references, the rest): a frame is the stream
 * lengths and then the streams, so zstd sees like next to like.  Times
 * are deltas from the previous record of the frame; threads and heaps are
 * small per-frame indexes; an allocation's address is its place in a
 * list of the addresses of its size class freed lately, or a delta from
 * the previous address or the previous allocation's so written (in
 * 16-byte units when aligned); a free names its allocation by how many
 * allocations back it was made when that allocation is in the same
 * frame, else by its address, a delta from the previous free so written
 * (python frees long-lived objects in runs: 44 KB where deltas from the
 * last address took 7.8 MB of a 28M-event trace).  Times may be in units
 * coarser than a nanosecond, said by a record at the head of the frame
 * (version 2; version 1 has neither the unit nor the two new bases, and
 * is still read).  Stack frames are
 * deltas from the frame before.  A lifetime is its end time, how long it
 * lived, and the rest as an allocation has it.  Records the codec has no
 * binary form for (sym, window, ...) are kept as their text line.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "mt.h"

/* R_BEFORE (version 3): an allocation made before recording, no time. */
enum {
	R_BEFORE = 0, R_ALLOC = 1, R_FREE_ADDR, R_FREE_REF, R_PROC, R_MAP, R_STACK, R_EXIT,
	R_LOST, R_TEXT, R_THREAD, R_HEAP, R_FREE_RANGE, R_END, R_LIFE, R_UNIT,
};

/* The flags of a life record (S_MISC), after its tag. */
#define LF_TS_NONE	0x01
#define LF_TS2_NONE	0x02
#define LF_TID_NONE	0x04
#define LF_SIZE_NONE	0x08
#define LF_STACK_NONE	0x10
#define LF_CLASS(f)	(((f) >> 5) & 3)	/* aifi aifo aofi aofo */
#define LF_FATE(f)	(((f) >> 7) & 3)	/* none, exit, end */
#define LF_IMPACT	0x200	/* not what the class makes it: it follows */
#define LF_STACK2	0x400	/* the free's stack follows */
#define LF_TEMP		0x800	/* temporary */
#define LF_ALL		0xfff

static const char *const life_classes[4] = { "aifi", "aifo", "aofi", "aofo" };
static const char *const life_fates[3] = { "", "exit", "end" };

/* What a lifetime's class makes its impact over the whole trace. */
static int64_t
life_impact(unsigned cls, uint64_t size, unsigned flags)
{
	if (flags & LF_SIZE_NONE)
		return 0;
	return cls == 1 ? (int64_t)size : cls == 2 ? -(int64_t)size : 0;
}

/* aifi aifo aofi aofo: 0 to 3, by the letters (a call a record costs). */
static int
life_class_str(struct mt_str s)
{
	if (s.len != 4 || s.s[0] != 'a' || s.s[2] != 'f' ||
	    (s.s[1] != 'i' && s.s[1] != 'o') || (s.s[3] != 'i' && s.s[3] != 'o'))
		return -1;
	return (s.s[1] == 'o') << 1 | (s.s[3] == 'o');
}

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
#define TAG_TYPE(t)	((t) & 0x0f)
#define TAG_HEAP(t)	(((t) >> 4) & 3)
#define TAG_THREAD	0x40	/* a thread index follows */
#define TAG_FLAG	0x80	/* alloc: no stack; free: a stack follows */
#define HEAP_OTHER	3	/* a heap index follows */

enum { S_TAG, S_TS, S_THREAD, S_ADDR, S_SIZE, S_STACK, S_REF, S_MISC, NSTREAMS };

struct stream {
	uint8_t *p;
	size_t len, cap;
};

#define FRAME_RAW_MAX	(1u << 20)	/* end a frame near this many raw bytes */
#define STREAM_SLACK	256		/* more than one put_heap() writes */
#define FRAME_ALLOCS_MAX (1u << 17)	/* and at this many allocations */
#define FRAME_DECODE_MAX (64u << 20)	/* a frame claiming more is damage */
#define REF_SLOTS	(1u << 16)	/* a direct-mapped cache, see ref_slot() */
#define THREAD_SLOTS	4096
#define MAX_HEAPS	4096
#define MAX_IPS		65536
#define HEAPNAMES_MAX	(1u << 16)

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

/*
 * glibc hands out the block of a size class freed last (tcache, fastbins
 * are LIFO): per size class, the frame keeps the addresses freed lately,
 * and an allocation at one of them is written as its place in that list.
 * Writer and reader keep the lists alike, from what the frame holds.
 */
#define REUSE_CLASSES	66	/* chunk sizes 32..1040 in 16s; 0: none */
#define REUSE_DEPTH	8

struct reuse {
	uint64_t addr[REUSE_CLASSES][REUSE_DEPTH];	/* oldest first */
	uint8_t n[REUSE_CLASSES];
};

static unsigned
reuse_class(uint64_t size)
{
	uint64_t c;

	if (size > 1024)
		return 0;
	c = (size + 8 + 15) >> 4;
	return c < 2 ? 2 : (unsigned)c;
}

static void
reuse_push(struct reuse *u, unsigned c, uint64_t addr)
{
	if (!c)
		return;
	if (u->n[c] == REUSE_DEPTH) {
		memmove(&u->addr[c][0], &u->addr[c][1], (REUSE_DEPTH - 1) * sizeof(uint64_t));
		u->n[c]--;
	}
	u->addr[c][u->n[c]++] = addr;
}

/* Takes the k-th newest address of class c out of the list. */
static uint64_t
reuse_take(struct reuse *u, unsigned c, unsigned k)
{
	unsigned i = u->n[c] - 1 - k, j;
	uint64_t addr = u->addr[c][i];

	/* At most REUSE_DEPTH - 1 words: a loop, not a call of memmove. */
	for (j = i; j + 1 < u->n[c]; j++)
		u->addr[c][j] = u->addr[c][j + 1];
	u->n[c]--;
	return addr;
}

static int
reuse_find(const struct reuse *u, unsigned c, uint64_t addr)
{
	int k;

	if (!c)
		return -1;
	for (k = 0; k < u->n[c]; k++)
		if (u->addr[c][u->n[c] - 1 - k] == addr)
			return k;
	return -1;
}

/*
 * An address delta, in 16-byte units when aligned (malloc's are): bit 0
 * says it is not.  The reader's unaligned() undoes it.
 */
static inline uint64_t
aligned(int64_t d)
{
	return (d & 15) == 0 ? zigzag(d >> 4) << 1 : zigzag(d) << 1 | 1;
}

static inline uint64_t
unaligned(uint64_t v)
{
	int64_t d = unzigzag(v >> 1);

	return (uint64_t)(v & 1 ? d : d * 16);
}

/* What the writer and the reader of a frame keep alike, afresh each frame. */
struct frame_state {
	uint64_t last_ts;	/* in units */
	uint64_t last_addr;
	uint64_t last_far;	/* the last allocation written as a delta */
	uint64_t last_free;	/* the last free written by its address */
	uint64_t unit;		/* the frame's time unit, ns; writer: 0 until said */
	uint32_t nthreads, cur_thread;
	uint32_t nallocs;
	uint32_t nheaps;
	struct reuse reuse;
};

static void
frame_state_reset(struct frame_state *f)
{
	f->last_ts = 0;
	f->last_addr = 0;
	f->last_far = 0;
	f->last_free = 0;
	f->unit = 0;
	f->nthreads = 0;
	f->cur_thread = UINT32_MAX;
	f->nallocs = 0;
	f->nheaps = 0;
	memset(f->reuse.n, 0, sizeof(f->reuse.n));
}

struct thread_slot {
	int64_t pid, tid;
	uint32_t gen;
	uint32_t index;
};

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
	struct thread_slot *threads;
	struct thread_slot *last_thread;	/* looked up last */
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
	w->threads = ecalloc(THREAD_SLOTS, sizeof(*w->threads));
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
	if (++w->gen == 0) {
		memset(w->refs, 0, REF_SLOTS * sizeof(*w->refs));
		memset(w->threads, 0, THREAD_SLOTS * sizeof(*w->threads));
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

/* The thread's frame index, defining it first when it is new. */
static uint32_t __attribute__((noinline))
thread_lookup(struct trace_writer *w, int64_t pid, int64_t tid)
{
	uint32_t h;
	struct thread_slot *s;

	h = (uint32_t)hash64((uint64_t)pid << 32 ^ (uint64_t)tid) & (THREAD_SLOTS - 1);
	for (;; h = (h + 1) & (THREAD_SLOTS - 1)) {
		s = &w->threads[h];
		if (s->gen != w->gen)
			break;
		if (s->pid == pid && s->tid == tid) {
			w->last_thread = s;
			return s->index;
		}
	}
	w->last_thread = s;
	s->gen = w->gen;
	s->pid = pid;
	s->tid = tid;
	s->index = w->fs.nthreads++;
	put_byte(w, S_TAG, R_THREAD);
	put(w, S_MISC, (uint64_t)pid);
	put(w, S_MISC, (uint64_t)tid);
	return s->index;
}

static inline uint32_t
thread_index(struct trace_writer *w, int64_t pid, int64_t tid)
{
	const struct thread_slot *s = w->last_thread;

	/* Most records are of the thread before. */
	if (s && s->gen == w->gen && s->pid == pid && s->tid == tid)
		return s->index;
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
	if (impact != life_impact((unsigned)LF_CLASS(f), size, f))
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

/* The pairer's lifetime as a life event, class cls (0-3). */
void
life_event(const struct mt_life *l, unsigned cls, int64_t impact, struct mt_event *ev)
{
	event_clear(ev);
	ev->type = MT_LIFE;
	ev->ts = l->ta;
	ev->ts2 = l->tf;
	ev->pid = l->pid;
	ev->tid = l->tid;
	ev->heap = l->heap;
	ev->addr = l->addr;
	ev->size = l->size;
	ev->stack = l->stack;
	ev->impact = impact;
	ev->flags = (l->ta == UINT64_MAX ? EV_TS_NONE : 0) | (l->tf == UINT64_MAX ? EV_TS2_NONE : 0) |
	    (l->tid < 0 ? EV_TID_NONE : 0) | (l->size == UINT64_MAX ? EV_SIZE_NONE : 0) |
	    (l->stack == UINT64_MAX ? EV_STACK_NONE : 0);
	ev->s1 = (struct mt_str){ life_classes[cls & 3], 4 };
	if (l->fate)
		ev->s2 = (struct mt_str){ l->fate, strlen(l->fate) };
	if (l->free_stack != UINT64_MAX) {
		ev->stack2 = l->free_stack;
		ev->flags |= EV_STACK2;
	}
	if (l->temporary)
		ev->flags |= EV_TEMP;
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
		int cls = life_class_str(ev->s1);
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
	free(w->textbuf);
	free(w);
	return error;
}

/* Reading */

struct trace_reader {
	int fd;
	ZSTD_DCtx *dctx;
	uint8_t *in;
	size_t incap, inpos, inlen;
	int eof;
	uint64_t offset;	/* file offset of in[0] */
	uint64_t frame_start;	/* file offset where the current frame began */
	uint64_t frames;	/* whole frames decoded */
	uint8_t *frame;
	size_t framecap, framelen;
	size_t cur[NSTREAMS], end[NSTREAMS];	/* the streams in frame[] */
	int header_done;
	unsigned version;	/* of the container */
	int ended;		/* the writer's end record was read */
	int skipped_out;	/* a damaged frame was skipped to the end of the file */
	int failed;
	char error[160];
	/* per-frame state */
	struct frame_state fs;
	struct { int64_t pid, tid; } *threads;
	uint32_t threadcap;
	struct frame_alloc {
		uint64_t addr;
		unsigned cls;
	} *allocs;
	uint32_t alloccap;
	struct mt_str heaps[MAX_HEAPS];
	uint64_t *ips;
	struct mt_parser parser;
	char *textline;
	size_t textcap;
};

struct trace_reader *
trace_reader_new(int fd, const void *data, size_t len)
{
	struct trace_reader *r = ecalloc(1, sizeof(*r));

	r->fd = fd;
	r->dctx = ZSTD_createDCtx();
	r->incap = ZSTD_DStreamInSize() > len ? ZSTD_DStreamInSize() : len;
	r->in = emalloc(r->incap);
	memcpy(r->in, data, len);
	r->inlen = len;
	r->framecap = 1 << 20;
	r->frame = emalloc(r->framecap);
	r->ips = emalloc(MAX_IPS * sizeof(*r->ips));
	parser_init(&r->parser);
	return r;
}

static int
rfail(struct trace_reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#include <stdarg.h>
static int
rfail(struct trace_reader *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->error, sizeof(r->error), fmt, ap);
	va_end(ap);
	r->failed = 1;
	return -1;
}

/*
 * More input; 0 at the end of the file.  The current frame's bytes are
 * kept (up to KEEP_MAX), so that a damaged frame can be skipped from its
 * start, not from wherever the damage led the decompressor.
 */
#define KEEP_MAX (64u << 20)
static size_t
fill(struct trace_reader *r)
{
	ssize_t n;
	size_t drop = r->inpos;

	if (r->frame_start >= r->offset && r->frame_start - r->offset < drop &&
	    r->inlen - (r->frame_start - r->offset) < KEEP_MAX)
		drop = (size_t)(r->frame_start - r->offset);
	if (drop > 0) {
		memmove(r->in, r->in + drop, r->inlen - drop);
		r->offset += drop;
		r->inlen -= drop;
		r->inpos -= drop;
	}
	if (r->inlen == r->incap && r->incap < KEEP_MAX) {
		r->incap *= 2;
		r->in = erealloc(r->in, r->incap);
	}
	if (r->eof || r->inlen == r->incap)
		return 0;
	n = mt_read_input(r->fd, r->in + r->inlen, r->incap - r->inlen);
	if (n <= 0) {
		r->eof = 1;
		return 0;
	}
	r->inlen += (size_t)n;
	return (size_t)n;
}

/*
 * A frame whose records make no sense, its checksum right (a writer's
 * bug, or a file made to look like a trace): the rest of it skipped,
 * said; -2.
 */
static int
frame_damaged(struct trace_reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
frame_damaged(struct trace_reader *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(r->error, sizeof(r->error), "corrupt frame %llu (byte %llu): ",
	    (unsigned long long)r->frames, (unsigned long long)r->frame_start);
	va_start(ap, fmt);
	vsnprintf(r->error + n, sizeof(r->error) - (size_t)n, fmt, ap);
	va_end(ap);
	memcpy(r->cur, r->end, sizeof(r->cur));
	return -2;
}

/*
 * A damaged frame (its checksum or its blocks wrong): said, and skipped
 * to the next zstd frame's magic after its start; the frames after it
 * decode on their own.  -2, the error saying what was skipped.
 */
static int
resync(struct trace_reader *r, const char *why)
{
	static const uint8_t magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };
	uint64_t bad = r->frame_start, frame = r->frames + 1;
	size_t i;

	r->frames++;		/* the damaged one counts: later ones keep their numbers */
	if (bad >= r->offset && bad - r->offset < r->inlen)
		r->inpos = (size_t)(bad - r->offset) + 1;
	for (;;) {
		for (i = r->inpos; i + 4 <= r->inlen; i++)
			if (!memcmp(r->in + i, magic, 4))
				break;
		if (i + 4 <= r->inlen) {
			r->inpos = i;
			break;
		}
		r->inpos = r->inlen >= 3 ? r->inlen - 3 : r->inpos;
		r->frame_start = r->offset + r->inpos;
		if (fill(r) == 0) {
			r->inpos = r->inlen;
			r->skipped_out = 1;
			break;
		}
	}
	r->frame_start = r->offset + r->inpos;
	if (r->skipped_out)
		snprintf(r->error, sizeof(r->error), "corrupt frame %llu (byte %llu): %s; "
		    "no frame after it", (unsigned long long)frame, (unsigned long long)bad, why);
	else
		snprintf(r->error, sizeof(r->error), "corrupt frame %llu (byte %llu): %s; "
		    "skipped to byte %llu", (unsigned long long)frame, (unsigned long long)bad,
		    why, (unsigned long long)r->frame_start);
	r->framelen = 0;
	memset(r->cur, 0, sizeof(r->cur));
	memset(r->end, 0, sizeof(r->end));
	return -2;
}

/* Decompresses the next whole frame: 1, 0 at a clean end, -1 at the end
   of a truncated file, -2 on a damaged frame skipped. */
static int
next_frame(struct trace_reader *r)
{
	ZSTD_inBuffer in;
	ZSTD_outBuffer out;
	size_t ret;
	int started = 0;

	r->framelen = 0;
	memset(r->cur, 0, sizeof(r->cur));
	memset(r->end, 0, sizeof(r->end));
	r->frame_start = r->offset + r->inpos;
	for (;;) {
		if (r->inpos == r->inlen && fill(r) == 0) {
			/* The end, or the end after a damaged frame said. */
			if (!started && (r->ended || r->skipped_out))
				return 0;
			return rfail(r, "truncated after frame %llu (byte %llu)",
			    (unsigned long long)r->frames,
			    (unsigned long long)r->frame_start);
		}
		in.src = r->in;
		in.size = r->inlen;
		in.pos = r->inpos;
		if (r->framelen == r->framecap) {
			if (r->framecap >= FRAME_DECODE_MAX)
				return rfail(r, "corrupt frame %llu (byte %llu): larger than %u bytes",
				    (unsigned long long)r->frames + 1,
				    (unsigned long long)r->frame_start, FRAME_DECODE_MAX);
			r->framecap *= 2;
			r->frame = erealloc(r->frame, r->framecap);
		}
		out.dst = r->frame;
		out.size = r->framecap;
		out.pos = r->framelen;
		ret = ZSTD_decompressStream(r->dctx, &out, &in);
		started |= in.pos > r->inpos;
		r->inpos = in.pos;
		r->framelen = out.pos;
		if (ZSTD_isError(ret)) {
			ZSTD_DCtx_reset(r->dctx, ZSTD_reset_session_only);
			return resync(r, ZSTD_getErrorName(ret));
		}
		if (ret == 0) {
			r->frames++;
			frame_state_reset(&r->fs);
			r->fs.unit = 1;	/* until the frame says otherwise */
			return 1;
		}
	}
}

static int
get(struct trace_reader *r, int s, uint64_t *v)
{
	uint64_t x = 0;
	unsigned shift = 0;

	while (r->cur[s] < r->end[s]) {
		uint8_t b = r->frame[r->cur[s]++];
		if (shift == 63 && b > 1)
			return -1;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
		shift += 7;
		if (shift > 63)
			return -1;
	}
	return -1;
}

static int
get_str(struct trace_reader *r, struct mt_str *str)
{
	uint64_t n;

	if (get(r, S_MISC, &n) || n > r->end[S_MISC] - r->cur[S_MISC])
		return -1;
	str->s = (const char *)r->frame + r->cur[S_MISC];
	str->len = (size_t)n;
	/* No string of the format holds a NUL (text refuses the line). */
	if (memchr(str->s, '\0', str->len))
		return -1;
	r->cur[S_MISC] += (size_t)n;
	return 0;
}

/*
 * Times, sizes and stack ids are below 2^63, as in the text: the
 * programs take 2^64-1 for none, and an impact is a size with a sign.
 */
static int
get_num(struct trace_reader *r, int s, uint64_t *v)
{
	return get(r, s, v) || *v > INT64_MAX ? -1 : 0;
}

static int
get_ts(struct trace_reader *r, uint64_t *ts)
{
	uint64_t d;

	if (get(r, S_TS, &d))
		return -1;
	r->fs.last_ts += (uint64_t)unzigzag(d);
	if (r->fs.last_ts > INT64_MAX / r->fs.unit)
		return -1;
	*ts = r->fs.last_ts * r->fs.unit;
	return 0;
}

/* Finds the streams of a decompressed frame; -1 if they do not add up. */
static int
split_frame(struct trace_reader *r)
{
	uint64_t n, len, off;
	size_t hdr;
	int i;

	r->cur[S_MISC] = 0;
	r->end[S_MISC] = r->framelen;
	if (get(r, S_MISC, &n) || n != NSTREAMS)
		return -1;
	off = 0;
	for (i = 0; i < NSTREAMS; i++) {
		if (get(r, S_MISC, &len) || len > r->framelen)
			return -1;
		r->end[i] = (size_t)len;	/* lengths for now */
	}
	hdr = r->cur[S_MISC];
	for (i = 0; i < NSTREAMS; i++) {
		len = r->end[i];
		if (len > r->framelen - hdr - off)
			return -1;
		r->cur[i] = hdr + (size_t)off;
		r->end[i] = hdr + (size_t)(off + len);
		off += len;
	}
	return hdr + off == r->framelen ? 0 : -1;
}

/* The thread a record names, when its tag says it changes. */
static int
get_thread(struct trace_reader *r, uint8_t tag)
{
	uint64_t v;

	if (tag & TAG_THREAD) {
		if (get(r, S_THREAD, &v) || v >= r->fs.nthreads)
			return -1;
		r->fs.cur_thread = (uint32_t)v;
	}
	return 0;
}

static int
get_heap(struct trace_reader *r, uint8_t tag, struct mt_str *heap)
{
	uint64_t v;

	if (TAG_HEAP(tag) != HEAP_OTHER) {
		*heap = mt_heap_names[TAG_HEAP(tag)];
		return 0;
	}
	if (get(r, S_MISC, &v) || v >= r->fs.nheaps)
		return -1;
	*heap = r->heaps[v];
	return 0;
}

/* Decodes the next record of the frame; 0 or -1 when the bytes make no record. */
static int
decode(struct trace_reader *r, struct mt_event *ev)
{
	uint8_t tag = r->frame[r->cur[S_TAG]++];
	uint64_t v, n, i;
	unsigned cls;

	event_clear(ev);
	switch (TAG_TYPE(tag)) {
	case R_THREAD:
		if (r->fs.nthreads == r->threadcap) {
			r->threadcap = r->threadcap ? r->threadcap * 2 : 64;
			r->threads = erealloc(r->threads, r->threadcap * sizeof(*r->threads));
		}
		if (get(r, S_MISC, &v) || v > INT32_MAX)
			return -1;
		r->threads[r->fs.nthreads].pid = (int64_t)v;
		if (get(r, S_MISC, &v) || v > INT32_MAX)
			return -1;
		r->threads[r->fs.nthreads++].tid = (int64_t)v;
		ev->type = MT_NONE;
		return 0;
	case R_UNIT:
		if (r->version < 2 || get(r, S_MISC, &v) || v < 1 || v > 1000000000)
			return -1;
		r->fs.unit = v;
		ev->type = MT_NONE;
		return 0;
	case R_HEAP:
		if (r->fs.nheaps == MAX_HEAPS || get_str(r, &r->heaps[r->fs.nheaps]))
			return -1;
		r->fs.nheaps++;
		ev->type = MT_NONE;
		return 0;
	case R_BEFORE:
	case R_ALLOC:
	case R_FREE_ADDR:
	case R_FREE_REF:
	case R_FREE_RANGE:
		if (TAG_TYPE(tag) == R_BEFORE) {
			if (r->version < 3)
				return -1;
			ev->flags |= EV_TS_NONE;
			ev->ts = r->fs.last_ts * r->fs.unit;
		} else if (get_ts(r, &ev->ts)) {
			return -1;
		}
		if (get_thread(r, tag))
			return -1;
		if (r->fs.cur_thread >= r->fs.nthreads)
			return -1;
		ev->pid = r->threads[r->fs.cur_thread].pid;
		ev->tid = r->threads[r->fs.cur_thread].tid;
		if (get_heap(r, tag, &ev->heap))
			return -1;
		if (TAG_TYPE(tag) == R_ALLOC || TAG_TYPE(tag) == R_BEFORE) {
			ev->type = MT_ALLOC;
			if (get(r, S_ADDR, &v) || get_num(r, S_SIZE, &ev->size))
				return -1;
			cls = TAG_HEAP(tag) == 0 ? reuse_class(ev->size) : 0;
			if (v < REUSE_DEPTH) {
				if (!cls || v >= r->fs.reuse.n[cls])
					return -1;
				r->fs.last_addr = reuse_take(&r->fs.reuse, cls, (unsigned)v);
			} else if (r->version < 2) {
				r->fs.last_addr += unaligned(v - REUSE_DEPTH);
			} else {
				v -= REUSE_DEPTH;
				r->fs.last_addr = (v & 1 ? r->fs.last_far : r->fs.last_addr) +
				    unaligned(v >> 1);
				r->fs.last_far = r->fs.last_addr;
			}
			ev->addr = r->fs.last_addr;
			if (tag & TAG_FLAG)
				ev->flags |= EV_STACK_NONE;
			else if (get_num(r, S_STACK, &ev->stack))
				return -1;
			if (r->fs.nallocs == r->alloccap) {
				r->alloccap = r->alloccap ? r->alloccap * 2 : 4096;
				r->allocs = erealloc(r->allocs, r->alloccap * sizeof(*r->allocs));
			}
			r->allocs[r->fs.nallocs].addr = ev->addr;
			r->allocs[r->fs.nallocs++].cls = cls;
		} else {
			ev->type = MT_FREE;
			if (get(r, TAG_TYPE(tag) == R_FREE_REF ? S_REF : S_ADDR, &v))
				return -1;
			if (TAG_TYPE(tag) == R_FREE_REF) {
				if (v == 0 || v > r->fs.nallocs)
					return -1;
				ev->addr = r->allocs[r->fs.nallocs - v].addr;
				reuse_push(&r->fs.reuse, r->allocs[r->fs.nallocs - v].cls, ev->addr);
			} else if (TAG_TYPE(tag) == R_FREE_ADDR && r->version >= 2) {
				ev->addr = r->fs.last_free += unaligned(v);
			} else {
				ev->addr = r->fs.last_addr + (uint64_t)unzigzag(v);
				if (TAG_TYPE(tag) == R_FREE_RANGE &&
				    (get_num(r, S_SIZE, &ev->size) || ev->size == 0))
					return -1;
			}
			if (!(tag & TAG_FLAG))
				ev->flags |= EV_STACK_NONE;
			else if (get_num(r, S_STACK, &ev->stack))
				return -1;
		}
		return 0;
	case R_LIFE: {
		uint64_t f, d2;

		ev->type = MT_LIFE;
		if (get_thread(r, tag))
			return -1;
		if (r->fs.cur_thread >= r->fs.nthreads || get(r, S_MISC, &f) || f > LF_ALL ||
		    LF_FATE(f) > 2)
			return -1;
		ev->pid = r->threads[r->fs.cur_thread].pid;
		ev->tid = f & LF_TID_NONE ? 0 : r->threads[r->fs.cur_thread].tid;
		if (get_heap(r, tag, &ev->heap))
			return -1;
		if (!(f & LF_TS2_NONE)) {
			if (get_ts(r, &ev->ts2))
				return -1;
			if (!(f & LF_TS_NONE)) {
				if (get(r, S_TS, &d2))
					return -1;
				ev->ts = ev->ts2 - (uint64_t)unzigzag(d2);
				if (ev->ts > INT64_MAX)
					return -1;
			}
		} else if (!(f & LF_TS_NONE) && get_ts(r, &ev->ts)) {
			return -1;
		}
		if (get(r, S_ADDR, &v))
			return -1;
		r->fs.last_addr += (uint64_t)unzigzag(v);
		ev->addr = r->fs.last_addr;
		if (!(f & LF_SIZE_NONE) && get_num(r, S_SIZE, &ev->size))
			return -1;
		if (!(f & LF_STACK_NONE) && get_num(r, S_STACK, &ev->stack))
			return -1;
		ev->impact = life_impact((unsigned)LF_CLASS(f), ev->size, (unsigned)f);
		if (f & LF_IMPACT) {
			if (get(r, S_MISC, &v))
				return -1;
			ev->impact = unzigzag(v);
		}
		if ((f & LF_STACK2) && get_num(r, S_STACK, &ev->stack2))
			return -1;
		ev->flags = (f & LF_TS_NONE ? EV_TS_NONE : 0) | (f & LF_TS2_NONE ? EV_TS2_NONE : 0) |
		    (f & LF_TID_NONE ? EV_TID_NONE : 0) | (f & LF_SIZE_NONE ? EV_SIZE_NONE : 0) |
		    (f & LF_STACK_NONE ? EV_STACK_NONE : 0) | (f & LF_STACK2 ? EV_STACK2 : 0) |
		    (f & LF_TEMP ? EV_TEMP : 0);
		ev->s1 = (struct mt_str){ life_classes[LF_CLASS(f)], 4 };
		if (LF_FATE(f))
			ev->s2 = (struct mt_str){ life_fates[LF_FATE(f)],
				strlen(life_fates[LF_FATE(f)]) };
		return 0;
	}
	case R_STACK:
		ev->type = MT_STACK;
		if (get(r, S_MISC, &ev->stack) || get(r, S_MISC, &n) || (n >> 1) > MAX_IPS)
			return -1;
		if (n & 1)
			ev->flags |= EV_TRUNCATED;
		ev->nips = (size_t)(n >> 1);
		for (i = 0; i < ev->nips; i++) {
			if (get(r, S_MISC, &v))
				return -1;
			r->ips[i] = (i ? r->ips[i - 1] : 0) + (uint64_t)unzigzag(v);
		}
		ev->ips = r->ips;
		return 0;
	case R_PROC:
		ev->type = MT_PROC;
		if (get_ts(r, &ev->ts))
			return -1;
		if (get(r, S_MISC, &v) || v > INT32_MAX)
			return -1;
		ev->pid = (int64_t)v;
		if (get(r, S_MISC, &v) || v > INT32_MAX)
			return -1;
		ev->ppid = (int64_t)v;
		return get_str(r, &ev->s1) || get_str(r, &ev->s2) ? -1 : 0;
	case R_MAP:
		ev->type = MT_MAP;
		if (get(r, S_MISC, &v) || v > INT32_MAX)
			return -1;
		ev->pid = (int64_t)v;
		if (get(r, S_MISC, &ev->addr) || get(r, S_MISC, &v) || get(r, S_MISC, &ev->stack))
			return -1;
		ev->size = ev->addr + v;
		return get_str(r, &ev->s1) || get_str(r, &ev->s2) ? -1 : 0;
	case R_EXIT:
		ev->type = MT_EXIT;
		if (get_ts(r, &ev->ts) || get(r, S_MISC, &v) || v > INT32_MAX)
			return -1;
		ev->pid = (int64_t)v;
		if (get(r, S_MISC, &v) || v > 0x200)
			return -1;
		ev->status = (int)v - 1;
		return 0;
	case R_LOST:
		ev->type = MT_LOST;
		if (get_ts(r, &ev->ts) || get(r, S_MISC, &v) || v > (uint64_t)INT32_MAX + 1)
			return -1;
		if (v == 0)
			ev->flags |= EV_PID_NONE;
		else
			ev->pid = (int64_t)v - 1;
		return get(r, S_MISC, &ev->size) || get_str(r, &ev->s1) ? -1 : 0;
	case R_END:
		if (r->cur[S_TAG] != r->end[S_TAG])
			return -1;
		r->ended = 1;
		ev->type = MT_NONE;
		return 0;
	case R_TEXT: {
		struct mt_str s;
		if (get_str(r, &s) || s.len == 0 || memchr(s.s, '\n', s.len))
			return -1;
		if (s.len + 1 > r->textcap) {
			r->textcap = s.len + 1;
			r->textline = erealloc(r->textline, r->textcap);
		}
		memcpy(r->textline, s.s, s.len);
		r->textline[s.len] = '\0';
		if (event_parse(&r->parser, r->textline, s.len, ev))
			return -1;
		if (ev->type == MT_ALLOC || ev->type == MT_FREE ||
		    ev->type == MT_STACK)
			return -1;	/* never written as text: not ours */
		return 0;
	}
	default:
		return -1;
	}
}

int
trace_read(struct trace_reader *r, struct mt_event *ev)
{
	uint8_t hdr[MT_TRACE_HEADER_LEN];
	size_t start;
	int ret, i;

	if (r->failed)
		return -1;
	if (!r->header_done) {
		while (r->inlen < MT_TRACE_HEADER_LEN && fill(r) > 0)
			;
		if (memcmp(r->in, MT_TRACE_MAGIC, r->inlen < MT_TRACE_MAGIC_LEN ?
		    r->inlen : MT_TRACE_MAGIC_LEN))
			return rfail(r, "not an mt trace (bad magic)");
		if (r->inlen < MT_TRACE_HEADER_LEN)
			return rfail(r, "truncated header (%zu bytes)", r->inlen);
		memcpy(hdr, r->in, sizeof(hdr));
		if (!(hdr[8] | hdr[9] | hdr[10] | hdr[11]))
			return rfail(r, "trace version 0: no mt writes that");
		if (hdr[8] > MT_TRACE_VERSION || hdr[9] || hdr[10] || hdr[11])
			return rfail(r, "trace version %u is newer than this mt reads (%u)",
			    (unsigned)(hdr[8] | hdr[9] << 8 | hdr[10] << 16 | (unsigned)hdr[11] << 24),
			    MT_TRACE_VERSION);
		r->inpos = MT_TRACE_HEADER_LEN;
		r->version = hdr[8];
		r->header_done = 1;
	}
	for (;;) {
		while (r->cur[S_TAG] >= r->end[S_TAG]) {
			/* A whole frame leaves nothing unread in any stream. */
			for (i = 0; i < NSTREAMS; i++)
				if (r->frames > 0 && r->cur[i] != r->end[i])
					return frame_damaged(r, "%d bytes left over",
					    (int)(r->end[i] - r->cur[i]));
			ret = next_frame(r);
			if (ret <= 0)
				return ret;
			if (split_frame(r))
				return frame_damaged(r, "bad stream lengths");
		}
		start = r->cur[S_TAG];
		if (decode(r, ev))
			return frame_damaged(r, "bad record %zu", start);
		if (ev->type != MT_NONE)
			return 1;
	}
}

const char *
trace_reader_error(const struct trace_reader *r)
{
	return r->error;
}

uint64_t
trace_reader_frames(const struct trace_reader *r)
{
	return r->frames;
}

void
trace_reader_free(struct trace_reader *r)
{
	ZSTD_freeDCtx(r->dctx);
	free(r->in);
	free(r->frame);
	free(r->threads);
	free(r->allocs);
	free(r->ips);
	free(r->textline);
	parser_free(&r->parser);
	free(r);
}
