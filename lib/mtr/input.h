/*
 * input: the trace reader's own state, shared by input.c (bytes and
 * frames in) and read.c (records out of them); not for other modules.
 */
#ifndef MT_MTR_INPUT_H
#define MT_MTR_INPUT_H

#include <stdint.h>
#include <zstd.h>

#include "event.h"
#include "format.h"
#include "frame.h"

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
	/* The frame's allocations: addresses and reuse classes apart, 9
	   bytes each, not a padded 16. */
	uint64_t *alloc_addr;
	uint8_t *alloc_cls;
	uint32_t alloccap;
	struct mt_str heaps[MAX_HEAPS];
	uint64_t *ips;
	struct mt_parser parser;
	char *textline;
	size_t textcap;
	/* trace_reader_on_frame(): the frame decoded, to hand on once read */
	void (*on_frame)(void *, const void *, size_t, int);
	void *on_frame_arg;
	uint64_t frame_end;	/* file offset just past the frame's bytes */
	int frame_held;		/* a frame for on_frame, not yet handed */
	int frame_bad;		/* it was damaged after some records */
};

/* The next whole frame: 1, 0 at a clean end, -1 at the end of a
   truncated file (the error says), -2 on a damaged frame skipped. */
int mtr_next_frame(struct trace_reader *r);
/* The rest of the frame skipped, the error saying why: -2. */
int mtr_frame_damaged(struct trace_reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int mtr_read_header(struct trace_reader *r);	/* 0, or -1 with the error set */
void mtr_hand_frame(struct trace_reader *r);	/* the frame read to its end, to on_frame */

#endif
