/*
 * trace: The .mtr container: its writer (mtr/write.c) and its reader
 * (mtr/read.c); mtr/format.h writes the format down.
 */
#ifndef MT_TRACE_H
#define MT_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include "event.h"

#define MT_TRACE_VERSION 3	/* the .mtr container; 1 and 2 are still read */

#define MT_TRACE_MAGIC "\x89MTR\r\n\x1a\n"
#define MT_TRACE_MAGIC_LEN 8
#define MT_TRACE_HEADER_LEN 16	/* magic, u32 version, u32 flags */

struct trace_writer;
struct trace_writer *trace_writer_new(int fd, int level);
/* Appends one record; a frame is ended when it is big enough. */
void trace_write(struct trace_writer *w, const struct mt_event *ev);
/* A record as its line of text, without the newline (a sym line, say). */
void trace_write_text(struct trace_writer *w, const char *line, size_t len);
/* A whole frame of a trace of this version, as it was read, passed on. */
void trace_write_frame(struct trace_writer *w, const void *bytes, size_t len);
/*
 * The recorder's fast way for an alloc or a free (type), of heap 0-2 of
 * mt_heap_names: what trace_write writes of an mt_event so made.
 */
struct mt_heap_rec {
	uint64_t ts, addr, size, stack;
	int64_t pid, tid;
	unsigned flags;		/* EV_STACK_NONE */
};
void trace_write_heap(struct trace_writer *w, enum mt_type type, int heap,
    const struct mt_heap_rec *r);
/* Times from now on in units of ns nanoseconds, rounded down (1: exact). */
void trace_writer_time_unit(struct trace_writer *w, uint64_t ns);
/* The record at addr comes soon: a hint, nothing is written. */
void trace_writer_prefetch(const struct trace_writer *w, uint64_t addr);
/* The pairer's lifetime, class cls (0-3: aifi aifo aofi aofo), as trace_write would. */
struct mt_life;
void trace_write_life(struct trace_writer *w, const struct mt_life *l, unsigned cls, int64_t impact);
/* Ends the current frame and writes it out; 0 or an errno. */
int trace_flush(struct trace_writer *w);
/* Writes the end record and flushes: the trace is whole.  0 or an errno. */
int trace_end(struct trace_writer *w);
int trace_writer_error(const struct trace_writer *w);
uint64_t trace_writer_bytes(const struct trace_writer *w);
uint64_t trace_writer_events(const struct trace_writer *w);
int trace_writer_free(struct trace_writer *w);	/* flushes; 0 or an errno */
/* For bounded recording: frames under the caller's control. */
int trace_writer_full(const struct trace_writer *w, const struct mt_event *ev);
size_t trace_writer_pending(const struct trace_writer *w);	/* raw bytes not yet a frame */
void trace_writer_frame_max(struct trace_writer *w, size_t raw);
/* Each frame to fn instead of the file (the header is not written). */
void trace_writer_on_frame(struct trace_writer *w, void (*fn)(void *, const void *, size_t),
    void *arg);

struct trace_reader;
/* data/len: bytes already read from fd (the sniffed magic, say); fd -1: all of it */
struct trace_reader *trace_reader_new(int fd, const void *data, size_t len);
/*
 * Next record: 1; 0 at a clean end; -2 when a damaged frame was skipped
 * (trace_reader_error() says which; reading goes on after it); -1 when
 * the trace can be read no further (truncated, or not a trace: the error
 * says; everything before it was returned).
 */
int trace_read(struct trace_reader *r, struct mt_event *ev);
const char *trace_reader_error(const struct trace_reader *r);
/*
 * Each frame's bytes as read, to fn once its last record has been
 * returned (before the next frame's first): a filter that changes
 * nothing in it passes it on.  whole is 0 for a frame damaged after some
 * of its records (bytes NULL if they are gone); a frame that could not
 * be decompressed is not handed.
 */
void trace_reader_on_frame(struct trace_reader *r,
    void (*fn)(void *arg, const void *bytes, size_t len, int whole), void *arg);
unsigned trace_reader_version(struct trace_reader *r);	/* of its header; 0: none */
uint64_t trace_reader_frames(const struct trace_reader *r);
void trace_reader_free(struct trace_reader *r);

#endif
