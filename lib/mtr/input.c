/*
 * input: a .mtr trace's bytes in, its header checked and its frames
 * decompressed one whole frame at a time; a damaged one skipped to the
 * next, and each whole one handed on as read when asked.
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

static int
rfail(struct trace_reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The reader's error, for good: what trace_read says from now on. */
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
	if (r->eof || r->fd < 0 || r->inlen == r->incap)	/* fd -1: all is in data */
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
int
mtr_frame_damaged(struct trace_reader *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(r->error, sizeof(r->error), "corrupt frame %llu (byte %llu): ",
	    (unsigned long long)r->frames, (unsigned long long)r->frame_start);
	va_start(ap, fmt);
	vsnprintf(r->error + n, sizeof(r->error) - (size_t)n, fmt, ap);
	va_end(ap);
	memcpy(r->cur, r->end, sizeof(r->cur));
	r->frame_bad = 1;
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
int
mtr_next_frame(struct trace_reader *r)
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
			r->frame_held = r->on_frame != NULL;
			r->frame_bad = 0;
			r->frame_end = r->offset + r->inpos;
			frame_state_reset(&r->fs);
			r->fs.unit = 1;	/* until the frame says otherwise */
			return 1;
		}
	}
}

/* The container's header: its magic and a version this reader knows. */
int
mtr_read_header(struct trace_reader *r)
{
	uint8_t hdr[MT_TRACE_HEADER_LEN];

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
	return 0;
}

/*
 * The frame just read to its end, its bytes as they came (still in in[]:
 * fill() keeps a frame's start), to on_frame; whole 0 when it was damaged.
 */
void
mtr_hand_frame(struct trace_reader *r)
{
	int kept = r->frame_start >= r->offset && r->frame_end <= r->offset + r->inlen;

	r->frame_held = 0;
	r->on_frame(r->on_frame_arg, kept ? r->in + (r->frame_start - r->offset) : NULL,
	    kept ? (size_t)(r->frame_end - r->frame_start) : 0, kept && !r->frame_bad);
}

void
trace_reader_on_frame(struct trace_reader *r, void (*fn)(void *, const void *, size_t, int),
    void *arg)
{
	r->on_frame = fn;
	r->on_frame_arg = arg;
}

unsigned
trace_reader_version(struct trace_reader *r)
{
	if (!r->header_done && !r->failed)
		(void)mtr_read_header(r);
	return r->header_done ? r->version : 0;
}
