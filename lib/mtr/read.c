/*
 * read: the .mtr reader's records, decoded from the streams of the
 * frames input.c brings in; format.h says what it reads.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "mt.h"
#include "format.h"
#include "frame.h"
#include "input.h"

static const char *const life_fates[3] = { "", "exit", "end" };


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
	uint64_t d, t;

	if (get(r, S_TS, &d))
		return -1;
	r->fs.last_ts += (uint64_t)unzigzag(d);
	/* Past 2^63-1 ns, as last_ts > INT64_MAX / unit said, without a division an event. */
	if (__builtin_mul_overflow(r->fs.last_ts, r->fs.unit, &t) || t > INT64_MAX)
		return -1;
	*ts = t;
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

/* R_THREAD: the next thread of the frame's table. */
static int
decode_thread(struct trace_reader *r)
{
	uint64_t v;

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
	return 0;
}

/* An allocation's address, size and stack, after what every heap record has. */
static int
decode_alloc(struct trace_reader *r, uint8_t tag, struct mt_event *ev)
{
	uint64_t v;
	unsigned cls;

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
		r->alloc_addr = erealloc(r->alloc_addr, r->alloccap * sizeof(*r->alloc_addr));
		r->alloc_cls = erealloc(r->alloc_cls, r->alloccap);
	}
	r->alloc_addr[r->fs.nallocs] = ev->addr;
	r->alloc_cls[r->fs.nallocs++] = (uint8_t)cls;
	return 0;
}

/* A free's address, its size when a range, and its stack. */
static int
decode_free(struct trace_reader *r, uint8_t tag, struct mt_event *ev)
{
	uint64_t v;

	ev->type = MT_FREE;
	if (get(r, TAG_TYPE(tag) == R_FREE_REF ? S_REF : S_ADDR, &v))
		return -1;
	if (TAG_TYPE(tag) == R_FREE_REF) {
		if (v == 0 || v > r->fs.nallocs)
			return -1;
		ev->addr = r->alloc_addr[r->fs.nallocs - v];
		reuse_push(&r->fs.reuse, r->alloc_cls[r->fs.nallocs - v], ev->addr);
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
	return 0;
}

/* R_BEFORE, R_ALLOC and the frees: time, thread and heap, then the rest. */
static int
decode_heap(struct trace_reader *r, uint8_t tag, struct mt_event *ev)
{
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
	if (TAG_TYPE(tag) == R_ALLOC || TAG_TYPE(tag) == R_BEFORE)
		return decode_alloc(r, tag, ev);
	return decode_free(r, tag, ev);
}

/* A life record's times: its end and how long it lived, or its one time. */
static int
decode_life_times(struct trace_reader *r, uint64_t f, struct mt_event *ev)
{
	uint64_t d2;

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
	return 0;
}

static int
decode_life(struct trace_reader *r, uint8_t tag, struct mt_event *ev)
{
	uint64_t f, v;

	ev->type = MT_LIFE;
	if (get_thread(r, tag))
		return -1;
	if (r->fs.cur_thread >= r->fs.nthreads || get(r, S_MISC, &f) || f > LF_ALL ||
	    LF_FATE(f) > 2)
		return -1;
	ev->pid = r->threads[r->fs.cur_thread].pid;
	ev->tid = f & LF_TID_NONE ? 0 : r->threads[r->fs.cur_thread].tid;
	if (get_heap(r, tag, &ev->heap) || decode_life_times(r, f, ev))
		return -1;
	if (get(r, S_ADDR, &v))
		return -1;
	r->fs.last_addr += (uint64_t)unzigzag(v);
	ev->addr = r->fs.last_addr;
	if (!(f & LF_SIZE_NONE) && get_num(r, S_SIZE, &ev->size))
		return -1;
	if (!(f & LF_STACK_NONE) && get_num(r, S_STACK, &ev->stack))
		return -1;
	ev->impact = life_class_impact((unsigned)LF_CLASS(f), ev->size, !(f & LF_SIZE_NONE));
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
	ev->s1 = (struct mt_str){ life_class_names[LF_CLASS(f)], 4 };
	if (LF_FATE(f))
		ev->s2 = (struct mt_str){ life_fates[LF_FATE(f)],
			strlen(life_fates[LF_FATE(f)]) };
	return 0;
}

static int
decode_stack(struct trace_reader *r, struct mt_event *ev)
{
	uint64_t v, n, i;

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
}

static int
decode_proc(struct trace_reader *r, struct mt_event *ev)
{
	uint64_t v;

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
}

static int
decode_map(struct trace_reader *r, struct mt_event *ev)
{
	uint64_t v;

	ev->type = MT_MAP;
	if (get(r, S_MISC, &v) || v > INT32_MAX)
		return -1;
	ev->pid = (int64_t)v;
	if (get(r, S_MISC, &ev->addr) || get(r, S_MISC, &v) || get(r, S_MISC, &ev->stack))
		return -1;
	ev->size = ev->addr + v;
	return get_str(r, &ev->s1) || get_str(r, &ev->s2) ? -1 : 0;
}

static int
decode_exit(struct trace_reader *r, struct mt_event *ev)
{
	uint64_t v;

	ev->type = MT_EXIT;
	if (get_ts(r, &ev->ts) || get(r, S_MISC, &v) || v > INT32_MAX)
		return -1;
	ev->pid = (int64_t)v;
	if (get(r, S_MISC, &v) || v > 0x200)
		return -1;
	ev->status = (int)v - 1;
	return 0;
}

static int
decode_lost(struct trace_reader *r, struct mt_event *ev)
{
	uint64_t v;

	ev->type = MT_LOST;
	if (get_ts(r, &ev->ts) || get(r, S_MISC, &v) || v > (uint64_t)INT32_MAX + 1)
		return -1;
	if (v == 0)
		ev->flags |= EV_PID_NONE;
	else
		ev->pid = (int64_t)v - 1;
	return get(r, S_MISC, &ev->size) || get_str(r, &ev->s1) ? -1 : 0;
}

/* R_TEXT: a record kept as its text line, parsed as event text is. */
static int
decode_text(struct trace_reader *r, struct mt_event *ev)
{
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

/*
 * Decodes the next record of the frame; 0 or -1 when the bytes make no
 * record.  A record that only sets the frame's state is an MT_NONE event.
 */
static int
decode(struct trace_reader *r, struct mt_event *ev)
{
	uint8_t tag = r->frame[r->cur[S_TAG]++];
	uint64_t v;

	event_clear(ev);
	switch (TAG_TYPE(tag)) {
	case R_THREAD:
		ev->type = MT_NONE;
		return decode_thread(r);
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
		return decode_heap(r, tag, ev);
	case R_LIFE:
		return decode_life(r, tag, ev);
	case R_STACK:
		return decode_stack(r, ev);
	case R_PROC:
		return decode_proc(r, ev);
	case R_MAP:
		return decode_map(r, ev);
	case R_EXIT:
		return decode_exit(r, ev);
	case R_LOST:
		return decode_lost(r, ev);
	case R_END:
		if (r->cur[S_TAG] != r->end[S_TAG])
			return -1;
		r->ended = 1;
		ev->type = MT_NONE;
		return 0;
	case R_TEXT:
		return decode_text(r, ev);
	default:
		return -1;
	}
}

int
trace_read(struct trace_reader *r, struct mt_event *ev)
{
	size_t start;
	int ret, i;

	if (r->failed)
		return -1;
	if (!r->header_done && mtr_read_header(r))
		return -1;
	for (;;) {
		while (r->cur[S_TAG] >= r->end[S_TAG]) {
			/* A whole frame leaves nothing unread in any stream. */
			for (i = 0; i < NSTREAMS; i++)
				if (r->frames > 0 && r->cur[i] != r->end[i])
					return mtr_frame_damaged(r, "%d bytes left over",
					    (int)(r->end[i] - r->cur[i]));
			if (r->frame_held)
				mtr_hand_frame(r);
			ret = mtr_next_frame(r);
			if (ret <= 0)
				return ret;
			if (split_frame(r))
				return mtr_frame_damaged(r, "bad stream lengths");
		}
		start = r->cur[S_TAG];
		if (decode(r, ev))
			return mtr_frame_damaged(r, "bad record %zu", start);
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
	free(r->alloc_addr);
	free(r->alloc_cls);
	free(r->ips);
	free(r->textline);
	parser_free(&r->parser);
	free(r);
}
