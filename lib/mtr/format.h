/*
 * format: the .mtr container on disk, its constants and record tags; the
 * one place the format is written down (mt-events(5) says it in short).
 *
 * Header: 16 bytes, the magic "\x89MTR\r\n\x1a\n", a little-endian u32
 * version (3; 1 and 2 are still read) and a u32 of flags (0, not read).
 *
 * Frames: zstd frames, each with a checksum and each decodable on its
 * own: all delta state below starts afresh with every frame, so a trace
 * cut short by a crash or a full disk decodes up to its last whole
 * frame, and a damaged frame is skipped to the next zstd magic.  A frame
 * decompresses to a varint count of streams (8), a varint length for
 * each, and the streams one after the other.  Each kind of field goes to
 * a stream of its own, so zstd sees like next to like: S_TAG the records'
 * tag bytes, S_TS times, S_THREAD thread indexes, S_ADDR addresses,
 * S_SIZE sizes, S_STACK stack ids, S_REF back references, S_MISC the
 * rest.  Numbers are LEB128 varints; a signed one is zigzagged; a string
 * is its length and its bytes in S_MISC.  The last record of a whole
 * trace, and of its frame, is R_END, which tells it from one cut at a
 * frame boundary.
 *
 * A record is its tag byte and the fields its type puts in the streams.
 * The tag: bits 0-3 the type (R_*), bits 4-5 the heap (0-2: mt_heap_names,
 * HEAP_OTHER: a heap index follows in S_MISC), TAG_THREAD when a thread
 * index follows in S_THREAD (else the thread is the record's before), and
 * TAG_FLAG, a flag whose sense the type gives.
 *
 * Times are deltas, in the frame's unit, from the previous time of the
 * frame; the unit is 1 ns unless an R_UNIT record at the head of the
 * frame names another (version 2 and later).  Threads and heaps are
 * indexes into per-frame tables that R_THREAD (pid, tid) and R_HEAP (a
 * name) records extend as they come.
 *
 * R_ALLOC: time, thread, heap, address, size, and a stack unless
 * TAG_FLAG.  R_BEFORE (version 3): the same without a time, an
 * allocation made before recording.  The address is, below REUSE_DEPTH,
 * its place in the list of the addresses of its size class freed lately
 * (see frame.h); else, less REUSE_DEPTH, an aligned() delta, shifted up
 * one, whose bit 0 says it is from the previous allocation so written
 * rather than from the previous address (version 1: always from the
 * previous address, and no bit).
 *
 * A free names its allocation by how many allocations back it was made
 * when that allocation is in the same frame (R_FREE_REF, in S_REF), else
 * by its address, an aligned() delta from the previous free so written
 * (R_FREE_ADDR; version 1: a zigzag delta from the previous address);
 * R_FREE_RANGE, a part of a mapping, is a zigzag delta from the previous
 * address and a size.  A free has a stack when TAG_FLAG is set.
 *
 * R_LIFE: its LF_ flags (S_MISC), heap, then its end time and how long
 * before it the lifetime began (in ns), or its one time; a zigzag
 * address delta from the previous address, the size, the stack, the
 * impact when it is not what the class makes it (LF_IMPACT), the free's
 * stack (LF_STACK2).
 *
 * R_STACK: its id, its number of addresses (shifted up one, bit 0 when
 * truncated) and the addresses, each a zigzag delta from the one before.
 * R_PROC: time, pid, ppid and two strings; R_MAP: pid, start, length,
 * offset and two strings; R_EXIT: time, pid and status + 1; R_LOST:
 * time, pid + 1 (0: none), a count and a string.  Records the codec has
 * no binary form for (sym, window, ...) are R_TEXT, their text line.
 */
#ifndef MT_MTR_FORMAT_H
#define MT_MTR_FORMAT_H

enum {
	R_BEFORE = 0, R_ALLOC = 1, R_FREE_ADDR, R_FREE_REF, R_PROC, R_MAP, R_STACK, R_EXIT,
	R_LOST, R_TEXT, R_THREAD, R_HEAP, R_FREE_RANGE, R_END, R_LIFE, R_UNIT,
};

#define TAG_TYPE(t)	((t) & 0x0f)
#define TAG_HEAP(t)	(((t) >> 4) & 3)
#define TAG_THREAD	0x40	/* a thread index follows */
#define TAG_FLAG	0x80	/* alloc: no stack; free: a stack follows */
#define HEAP_OTHER	3	/* a heap index follows */

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

enum { S_TAG, S_TS, S_THREAD, S_ADDR, S_SIZE, S_STACK, S_REF, S_MISC, NSTREAMS };

#define FRAME_RAW_MAX	(1u << 20)	/* end a frame near this many raw bytes */
#define FRAME_ALLOCS_MAX (1u << 17)	/* and at this many allocations */
#define FRAME_DECODE_MAX (64u << 20)	/* a frame claiming more is damage */
#define THREAD_SLOTS	4096
#define MAX_HEAPS	4096
#define MAX_IPS		65536
#define HEAPNAMES_MAX	(1u << 16)

#endif
