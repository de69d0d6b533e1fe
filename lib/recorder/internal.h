/*
 * internal: the recorder's state, one struct, and what its files share;
 * lib/recorder's own header (recorder.h is what others see).
 */
#ifndef MT_RECORDER_INTERNAL_H
#define MT_RECORDER_INTERNAL_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "mt.h"
#include "map.h"
#include "proto.h"
#include "recorder/recorder.h"
#include "procfs.h"

/* An event waiting to be merged. */
struct rec {
	uint64_t ts;
	uint64_t addr, size;
	uint64_t off;		/* map: file offset */
	uint32_t stack;
	uint8_t kind;		/* RAW_* or a control kind below */
	uint8_t heap;
	uint16_t flags;		/* RAW_EXEC */
	int32_t tid;
	int32_t pid;
	int status;
	char *data;		/* control records: what came with them */
	size_t len;
};

enum { CTL_PROC = 100, CTL_MAP, CTL_EXIT, CTL_LOST, CTL_NOTE, CTL_FORK, CTL_BEFORE };
enum { LOST_UNDELIVERED, LOST_CORRUPT };	/* CTL_LOST's status */

struct queue {
	struct rec *v;
	size_t head, len, cap;
	uint64_t last_ts;
	size_t peak;		/* the most used between emptyings, lately */
	unsigned empties;	/* emptyings since the room was last weighed */
};

struct module {
	uint64_t lo, hi, off;
	char *data;		/* build-id NUL path, as sent */
	size_t len;
};

/* What a process's stack table counts, as it said last. */
struct table_counts {
	uint64_t full, fallback, checked, differ, unchecked, remembered;
	uint64_t shadow, libunwind, fp;	/* processes whose stacks each took */
};

struct proc {
	int fd;			/* -1 once the image is gone */
	struct module *mods;	/* what its map records said */
	size_t nmods, modcap;
	pid_t pid, ppid;	/* as we see them */
	pid_t nspid;		/* as it sees itself, in a PID namespace; else 0 */
	int said_hello;
	int exited;
	int replaced;		/* by an exec */
	struct mt_stack_table *table;
	uint32_t table_words;	/* the size of its arena */
	uint32_t *ids_key;	/* stack table offset -> trace stack id */
	uint64_t *ids_val;
	size_t ids_cap, ids_len;
	struct mt_ranges regions;
	struct region_op *ops;	/* its recent changes to regions, oldest first */
	size_t opshead, nops, opscap;
	int remap_heap;		/* of the range an mremap is moving */
	struct queue ctl;
	uint64_t lost_said;
	struct table_counts counts;	/* its table's, when let go of */
	uint64_t gone_at;
	/* What it sends is not trusted: times out of bounds, and records. */
	uint64_t hello_ts;
	uint64_t future;	/* times later than when we read them */
	int tsc;		/* its times are TSC ticks (HELLO_TSC) */
	uint64_t bad;		/* records of no known kind */
	size_t nrings;		/* its rings we read */
	int capped;		/* it reached a limit of peer.c's: said once */
	int fork_pending;	/* its parent's mappings yet to be copied */
	struct mt_stack_table *head;	/* attached (-p): its table's head, ours to write */
	int runs_on;		/* attached, and alive when we detached */
	int outside;		/* recorded from outside (--uprobes): its stack ids are the trace's */
	int exec_checked;	/* its connection gone while it runs: what it runs, looked at */
	void *data;		/* recorded from outside: what its source keeps of it */
};

struct ring {
	struct proc *proc;
	struct mt_ring *map;
	uint64_t tail;		/* ours: the map's copy is the process's to spoil */
	pid_t pid, tid;
	struct queue q;
	int done;
};

#define PENDING_MAX (1u << 20)	/* records waiting in our queues: see merge.c */
#define EARLY_EXITS 256		/* ends told before their hello: see procs.c */

/* An end told before the process's hello was read (see procs.c). */
struct early_exit {
	pid_t pid;		/* or 0, and nspid, a child of ppid's */
	pid_t nspid, ppid;
	int status;
	uint64_t ts;
};

struct recorder {
	/* What the command asked. */
	uint64_t time_unit, max_size;
	int circular, free_stacks, unwind_check, kernel_mode;
	pid_t attach_pid;	/* -p */

	/* The clock: ns = tsc_mono + (tsc - tsc_base) * tsc_mult >> 32. */
	int tsc_on;
	uint64_t tsc_base, tsc_mono, tsc_mult;
	uint64_t start_ns;

	/* The trace. */
	struct trace_writer *writer;
	struct trace_bound *bound;	/* --max-size */
	const char *out_name;
	int write_failed;
	uint64_t dropped;	/* events not written after a write error */
	uint64_t lost;		/* events the trace's lost lines count */
	uint64_t late;		/* events that arrived after the watermark */
	uint64_t last_emitted;
	uint64_t next_stack_id;
	struct u64map stack_ids;	/* frames -> id, of the processes recorded from outside */

	/* Processes, their rings, and what we learn by waitpid. */
	struct queue reaped_q;
	struct proc **procs;
	size_t nprocs, proccap;
	struct ring **rings;
	size_t nrings, ringcap;
	pid_t root_pid;
	int root_status;
	pid_t *forward_to;	/* made 0 when root_pid is reaped */
	int children_left;
	uint64_t nprocs_traced;
	struct table_counts counts_gone;	/* of processes let go of */
	struct mt_range *befores;	/* -p: see recorder_read_befores */
	size_t nbefores;
	struct early_exit early[EARLY_EXITS];
	unsigned nearly;

	/* The merge, and connections. */
	uint64_t drain_batch;
	struct source *heap;
	size_t nheap, heapcap;
	uint64_t refused;
	int spare_fd;		/* given up to accept and close at our limit */
	struct pollfd *pfds;
	size_t pfdcap;
	char msg[MT_MSG_MAX];	/* a control message read */
};

static inline uint64_t
tsc_ns(struct recorder *rc, uint64_t tsc)
{
	return rc->tsc_mono +
	    (uint64_t)(((unsigned __int128)(tsc - rc->tsc_base) * rc->tsc_mult) >> 32);
}

static inline uint64_t
clock_ns(struct recorder *rc)
{
	return rc->tsc_on ? tsc_ns(rc, mt_tsc()) : mt_monotonic_ns();
}

static inline uint64_t
now_rel(struct recorder *rc)
{
	return clock_ns(rc) - rc->start_ns;
}

/* A time a process sent, as a time of the trace, unchecked. */
static inline uint64_t
peer_ns(struct recorder *rc, const struct proc *p, uint64_t ts)
{
	return (p->tsc ? tsc_ns(rc, ts) : ts) - rc->start_ns;
}

/*
 * A time a process sent (CLOCK_MONOTONIC, as it read it), as a time of
 * the trace.  An honest time is no earlier than our start and no later
 * than `limit', when we read it: it was taken before it was published.
 * Any other (one in the far future would have waited in the merge for
 * ever, and mt-record with it) becomes 0, which its queue makes the time
 * of the event before it from the same source.
 */
static inline uint64_t
peer_time(struct recorder *rc, struct proc *p, uint64_t ts, uint64_t limit)
{
	ts = peer_ns(rc, p, ts);
	if (ts <= limit)
		return ts;
	p->future++;
	return 0;
}

/* queue.c */
void queue_room(struct queue *q);
struct rec *queue_push(struct queue *q, uint64_t ts);
struct rec *queue_insert(struct queue *q, uint64_t ts);

/*
 * The next record's place, *ts as it goes there: one source's events
 * stay in the order it made them.  Its fields are the caller's to set.
 */
static inline struct rec *
queue_next(struct queue *q, uint64_t *ts)
{
	if (q->len == q->cap)
		queue_room(q);
	if (*ts < q->last_ts)
		*ts = q->last_ts;
	q->last_ts = *ts;
	return &q->v[q->len++];
}

static inline struct rec *
queue_peek(struct queue *q)
{
	return q->head < q->len ? &q->v[q->head] : NULL;
}

/* output.c */
uint64_t stack_id(struct recorder *rc, struct proc *p, uint32_t off);
void check_written(struct recorder *rc);
void put_event(struct recorder *rc, struct mt_event *ev);
void put_heap_event(struct recorder *rc, enum mt_type type, struct rec *r, struct proc *p,
    int heap, uint64_t lo, uint64_t size);
void comment_and_say(struct recorder *rc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Inlined: every allocation and free goes by here (emit). */
static inline __attribute__((always_inline)) void
put_heap_event_flags(struct recorder *rc, enum mt_type type, struct rec *r, struct proc *p,
    int heap, uint64_t lo, uint64_t size, unsigned flags)
{
	struct mt_event ev;
	struct mt_heap_rec h = { .ts = r->ts, .pid = r->pid, .tid = r->tid, .addr = lo,
	    .size = size, .flags = EV_STACK_NONE | flags };

	if (r->stack != MT_STACK_NONE && (type == MT_ALLOC || rc->free_stacks)) {
		if ((h.stack = stack_id(rc, p, r->stack)) != 0)
			h.flags = 0;
	}
	if (!rc->bound && !rc->write_failed) {
		/* Every event goes by here: no mt_event made. */
		trace_write_heap(rc->writer, type, heap, &h);
		check_written(rc);
		return;
	}
	memset(&ev, 0, sizeof(ev));
	ev.type = type;
	ev.ts = h.ts;
	ev.pid = h.pid;
	ev.tid = h.tid;
	ev.heap = mt_heap_names[heap];
	ev.addr = h.addr;
	ev.size = h.size;
	ev.stack = h.stack;
	ev.flags = h.flags;
	put_event(rc, &ev);
}

/* maps.c */
void region_add_flags(struct recorder *rc, struct proc *p, struct rec *r, uint64_t lo,
    uint64_t hi, int heap, unsigned flags);
void regions_as_of_fork(struct recorder *rc, struct proc *child, struct proc *parent,
    struct rec *r, uint64_t at);
void emit_mapping(struct recorder *rc, struct rec *r, struct proc *p);
struct proc *outside_proc(struct recorder *rc, pid_t pid);
void regions_before(struct recorder *rc, struct proc *p, struct rec *r);

/* emit.c */
void emit_control(struct recorder *rc, struct rec *r, struct proc *p);

/* procs.c */
void add_counts(struct table_counts *to, const struct table_counts *c);
void keep_early_exit(struct recorder *rc, pid_t pid, pid_t nspid, pid_t ppid, int status,
    uint64_t ts);
void take_early_exit(struct recorder *rc, struct proc *p, uint64_t ts);
struct proc *proc_by_pid(struct recorder *rc, pid_t pid);
void add_exit(struct queue *q, pid_t pid, int status, uint64_t ts);
int still_running(pid_t pid);
pid_t child_pid(struct recorder *rc, const struct proc *parent, pid_t nspid);
struct proc *add_proc(struct recorder *rc, int fd);
void proc_free(struct proc *p);

/* peer.c */
int read_peer(struct recorder *rc, struct proc *p);

/* merge.c */
size_t pending(struct recorder *rc);
int drain_ring(struct recorder *rc, struct ring *g, uint64_t w, int newer);

#endif
