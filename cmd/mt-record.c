/*
 * mt-record: runs a command with libmt-preload.so injected and writes
 * what it allocated and freed, and every process it forked or executed,
 * as one .mtr trace in time order.
 *
 * Each traced process image connects to us over a SOCK_SEQPACKET socket
 * and hands us, as file descriptors, its stack table and one ring a
 * thread (see lib/proto.h).  We read the rings while the program
 * runs and merge them by time.  The merge emits only events older than
 * a watermark W taken before each pass reads anything: an event that
 * another depends on (the allocation a free frees) was published before
 * the dependent event's time was taken, so if the dependent is older
 * than W, its cause was visible to the same pass.  An event that shows
 * up older than what was already written (its thread was preempted
 * between taking the time and publishing) is given the time of the last
 * event written; that keeps every order that matters and is counted.
 */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mt.h"
#include "proto.h"

#ifndef LIBDIR
#define LIBDIR "/usr/local/lib/mt"
#endif

#define SLACK_NS	10000000u	/* the watermark trails the clock by this */
#define FLUSH_NS	1000000000u	/* a frame at least this often */

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

static void
add_counts(struct table_counts *to, const struct table_counts *c)
{
	to->full += c->full;
	to->fallback += c->fallback;
	to->checked += c->checked;
	to->differ += c->differ;
	to->unchecked += c->unchecked;
	to->remembered += c->remembered;
	to->shadow += c->shadow;
	to->libunwind += c->libunwind;
	to->fp += c->fp;
}

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
	int capped;		/* it reached a limit below: said once */
	int fork_pending;	/* its parent's mappings yet to be copied */
	struct mt_stack_table *head;	/* attached (-p): its table's head, ours to write */
	int runs_on;		/* attached, and alive when we detached */
};

struct ring {
	struct proc *proc;
	struct mt_ring *map;
	uint64_t tail;		/* ours: the map's copy is the process's to spoil */
	pid_t pid, tid;
	struct queue q;
	int done;
};

/*
 * What one process may make us hold.  The most threads one process has
 * had that we know of is a JVM's few thousand, and modules a few
 * thousand; a path is at most PATH_MAX and a build-id 40 digits.
 */
#define PEER_RINGS	32768
#define PEER_MODULES	16384
#define MODULE_DATA	(PATH_MAX + 130)
#define READ_BATCH	256	/* messages read from one connection at a time */
/* The unwinder unless --unwind says: its letter for the library. */
#define UNWIND_DEFAULT	's'
#define UNWIND_DEFAULT_NAME	"shadow"

static const char synopsis[] = "[-cFn] [-m size] [-o file] [-D depth] [--] command [arg ...]\n"
    "-p pid [-cFn] [-d duration] [-m size] [-o file] [-D depth]\n"
    "-k [-cS] [-d duration] [-e events] [-m size] [-O order] [-o file]";
static const char options[] =
    "Runs a command and records what it and its children allocate and free (the\n"
    "malloc family, anonymous mmap) with stacks; with -p, a process already\n"
    "running; with -k, the kernel's allocations.  Writes a .mtr trace for\n"
    "mt-decode(1) and the other filters.\n"
    "\n"
    "  -p, --pid PID         attach to a running process, until -d's time, a\n"
    "                        SIGINT or SIGTERM, or its end; then detach\n"
    "  -o, --output FILE     the trace (default mt.COMMAND.PID.mtr; - for stdout)\n"
    "  -D, --depth N         frames a stack at most, 0 to 1024 (default 64;\n"
    "                        -s is the old spelling)\n"
    "  -F, --free-stacks     a stack for every free too\n"
    "  -n, --no-follow       only the command, not the children it forks or execs\n"
    "      --unwind METHOD   how stacks are taken: libunwind, shadow (a shadow\n"
    "                        stack: only new frames walked), fp (frame pointers),\n"
    "                        check (shadow, each stack compared with libunwind's);\n"
    "                        default " UNWIND_DEFAULT_NAME "\n"
    "      --time-resolution TIME\n"
    "                        times rounded down to a multiple of TIME (default\n"
    "                        100ns; 1ns for exact ones)\n"
    "  -m, --max-size SIZE   keep the trace within SIZE (64K or more: 64K, 100MiB,\n"
    "                        1.5G): the oldest events, or with -c the newest\n"
    "  -c, --circular        with -m: drop the oldest events, keep the newest\n"
    "  -k, --kernel          record the kernel's allocations through tracefs (root)\n"
    "  -e, --events LIST     with -k: kmalloc, cache, page (default kmalloc,cache)\n"
    "  -O, --min-order N     with -k: page allocations of order N or more (default 1)\n"
    "  -S, --stacks          with -k: kernel stacks\n"
    "  -d, --duration TIME   with -k or -p: stop after TIME (as 30s, 500ms, 2m)\n"
    "  -h, --help            this help\n"
    "  -V, --version         the version\n"
    "\n"
    "Exits with the command's status (128+N when signal N killed it); 127 when the\n"
    "command is not found, 126 when it cannot be run; 2 on trouble of its own\n"
    "(with -p: a process it may not or cannot attach to).\n";
static uint64_t clock_ns(void);
static void emit(struct rec *r, struct proc *p);
static struct proc *proc_by_pid(pid_t pid);
static void keep_early_exit(pid_t pid, pid_t nspid, pid_t ppid, int status, uint64_t ts);
static void put(struct mt_event *ev);

static uint64_t start_ns;
static struct trace_writer *writer;
static struct trace_bound *bound;	/* --max-size */
static uint64_t max_size;
static int circular;
static int unwind_check;	/* --unwind check */
static const char *out_name;
static int write_failed;
static uint64_t dropped;	/* events not written after a write error */
static uint64_t lost;		/* events the trace's lost lines count */
static uint64_t late;		/* events that arrived after the watermark */
static uint64_t last_emitted;
static uint64_t next_stack_id = 1;
static struct queue reaped_q;	/* exits we learn by waitpid */
static struct proc **procs;
static size_t nprocs, proccap;
static struct ring **rings;
static size_t nrings, ringcap;

static pid_t root_pid;
static pid_t attach_pid;	/* -p */
static int root_status = -1;
static uint64_t nprocs_traced;
static struct table_counts counts_gone;	/* of processes let go of */
static int depth = 64;
/*
 * Times to 100 ns, as Windows' own traces have them (QueryPerformanceCounter
 * at 10 MHz): python's trace is 0.72 bytes an event at 1 ns, 0.25 at 100.
 */
#define TIME_UNIT_DEFAULT	100
static uint64_t time_unit = TIME_UNIT_DEFAULT;
static int free_stacks;
static pid_t forward_to;

/*
 * Time.  Where the kernel keeps time by the TSC (its clocksource is tsc:
 * invariant, the same on every CPU), the library reads the TSC itself, 7
 * ns an event cheaper than clock_gettime (mt_tsc() in proto.h for why it
 * is fenced), and we turn ticks into nanoseconds at a rate measured
 * against CLOCK_MONOTONIC as we start (TSC_CALIBRATE_NS).  Our own times
 * (exits, the watermark) are taken the same way, so that every time of
 * the trace is of one clock.
 */
#define TSC_CALIBRATE_NS 2000000u
static int tsc_on;
static uint64_t tsc_base, tsc_mono, tsc_mult;	/* ns = mono + (tsc - base) * mult >> 32 */

#define monotonic_ns mt_monotonic_ns

static uint64_t
tsc_ns(uint64_t tsc)
{
	return tsc_mono + (uint64_t)(((unsigned __int128)(tsc - tsc_base) * tsc_mult) >> 32);
}

static uint64_t
clock_ns(void)
{
	return tsc_on ? tsc_ns(mt_tsc()) : monotonic_ns();
}

/* Whether a file's first line begins with s. */
static int
file_says(const char *path, const char *s)
{
	char buf[64];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n >= (ssize_t)strlen(s) && !memcmp(buf, s, strlen(s));
}

/* A TSC and CLOCK_MONOTONIC read together: the closest pair of five. */
static void
tsc_pair(uint64_t *tsc, uint64_t *mono)
{
	uint64_t a, b, m, best = UINT64_MAX;
	int i;

	for (i = 0; i < 5; i++) {
		a = mt_tsc();
		m = monotonic_ns();
		b = mt_tsc();
		if (b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*mono = m;
		}
	}
}

static void
tsc_start(void)
{
	uint64_t t0 = 0, m0 = 0, t1 = 0, m1 = 0;
	const char *e = getenv("MT_CLOCK");

	if (!mt_tsc() || (e && !strcmp(e, "monotonic")) ||
	    !file_says("/sys/devices/system/clocksource/clocksource0/current_clocksource", "tsc\n"))
		return;
	tsc_pair(&t0, &m0);
	do
		tsc_pair(&t1, &m1);
	while (m1 - m0 < TSC_CALIBRATE_NS);
	if (t1 <= t0)
		return;
	tsc_mult = (uint64_t)(((unsigned __int128)(m1 - m0) << 32) / (t1 - t0));
	tsc_base = t0;
	tsc_mono = m0;
	tsc_on = tsc_mult > 0;
}

static uint64_t
now_rel(void)
{
	return clock_ns() - start_ns;
}

#define QUEUE_KEEP 4096		/* records a queue keeps room for when empty */
#define QUEUE_WEIGH 16		/* emptyings between two looks at its room */

/* Room for one more record at q->len. */
static void
queue_room(struct queue *q)
{
	if (q->head > 0 && q->head == q->len) {
		/*
		 * Emptied: a burst's room is given back, once the last
		 * QUEUE_WEIGH emptyings used a quarter of it at most.  Given
		 * back at every emptying, the room was taken again at once
		 * by a steady stream: page faults were 8% of our time with 16
		 * threads.
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

static struct rec *
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
static struct rec *
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

static struct rec *
queue_peek(struct queue *q)
{
	return q->head < q->len ? &q->v[q->head] : NULL;
}

/* Stacks: a process's table offset becomes a trace-wide id on first use. */

static uint64_t
stack_id(struct proc *p, uint32_t off)
{
	uint64_t *arena, n, id, *old_val;
	uint32_t *old_key;
	size_t i, h, oldcap;
	struct mt_event ev;

	if (!p->table)
		return 0;	/* let go of: no stack */
	arena = MT_STACK_ARENA(p->table, p->table_words);

	if (p->ids_len * 2 >= p->ids_cap) {
		old_key = p->ids_key;
		old_val = p->ids_val;
		oldcap = p->ids_cap;
		p->ids_cap = oldcap ? oldcap * 2 : 1024;
		p->ids_key = ecalloc(p->ids_cap, sizeof(*p->ids_key));
		p->ids_val = ecalloc(p->ids_cap, sizeof(*p->ids_val));
		for (i = 0; i < oldcap; i++) {
			if (!old_key[i])
				continue;
			for (h = old_key[i] * 2654435761u & (p->ids_cap - 1); p->ids_key[h];
			    h = (h + 1) & (p->ids_cap - 1))
				;
			p->ids_key[h] = old_key[i];
			p->ids_val[h] = old_val[i];
		}
		free(old_key);
		free(old_val);
	}
	for (h = off * 2654435761u & (p->ids_cap - 1); p->ids_key[h];
	    h = (h + 1) & (p->ids_cap - 1))
		if (p->ids_key[h] == off)
			return p->ids_val[h];
	/* The table lives in the traced process: trust nothing in it. */
	if (off >= p->table_words)
		return 0;
	n = arena[off] >> 1;
	if (n > 1024 || off + 1 + n > p->table_words)
		return 0;
	id = next_stack_id++;
	memset(&ev, 0, sizeof(ev));
	ev.type = MT_STACK;
	ev.stack = id;
	ev.nips = (size_t)n;
	ev.ips = &arena[off + 1];
	if (arena[off] & 1)
		ev.flags |= EV_TRUNCATED;
	put(&ev);
	p->ids_key[h] = off;
	p->ids_val[h] = id;
	p->ids_len++;
	return id;
}

static int kernel_mode;

static void
say_stopped(void)
{
	fprintf(stderr, "%s: %s: %s: recording stopped%s\n", mt_progname, out_name,
	    strerror(write_failed), kernel_mode ? "" : ", the program runs on");
}

/* After a write: a failure stops recording, said once. */
static void
check_written(void)
{
	if (trace_writer_error(writer)) {
		write_failed = trace_writer_error(writer);
		say_stopped();
	}
}

static void
put(struct mt_event *ev)
{
	if (write_failed) {
		dropped++;
		return;
	}
	if (bound && !bound_admit(bound, ev))
		return;
	trace_write(writer, ev);
	check_written();
}

/* Inlined: every allocation and free goes by here (emit). */
static inline __attribute__((always_inline)) void
put_heap_event_flags(enum mt_type type, struct rec *r, struct proc *p, int heap,
    uint64_t lo, uint64_t size, unsigned flags)
{
	struct mt_event ev;
	struct mt_heap_rec h = { .ts = r->ts, .pid = r->pid, .tid = r->tid, .addr = lo,
	    .size = size, .flags = EV_STACK_NONE | flags };

	if (r->stack != MT_STACK_NONE && (type == MT_ALLOC || free_stacks)) {
		if ((h.stack = stack_id(p, r->stack)) != 0)
			h.flags = 0;
	}
	if (!bound && !write_failed) {
		/* Every event goes by here: no mt_event made. */
		trace_write_heap(writer, type, heap, &h);
		check_written();
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
	put(&ev);
}

static void
put_heap_event(enum mt_type type, struct rec *r, struct proc *p, int heap,
    uint64_t lo, uint64_t size)
{
	put_heap_event_flags(type, r, p, heap, lo, size, 0);
}

/* Mappings: which ranges of a process are committed or reserved. */

/*
 * A change to a process's regions, kept a while (OPS_NS, OPS_MAX) so
 * that a child whose hello we read late, after the merge went past its
 * fork, gets its parent's regions as of the fork: the changes since are
 * undone on its copy.
 */
struct region_op {
	uint64_t ts, lo, hi;
	uint8_t heap, added;
};
#define OPS_NS		2000000000u
#define OPS_MAX		65536

static void
region_log(struct proc *p, uint64_t ts, uint64_t lo, uint64_t hi, int heap, int added)
{
	/* The old ones go: past OPS_NS, or past OPS_MAX. */
	while (p->opshead < p->nops && (p->nops - p->opshead >= OPS_MAX ||
	    p->ops[p->opshead].ts + OPS_NS < ts))
		p->opshead++;
	if (p->nops == p->opscap) {
		/* Moved down when half is gone (once in opscap / 2 changes at
		   most), else grown: never a move a change. */
		if (p->opshead >= p->opscap / 2 && p->opshead) {
			memmove(p->ops, p->ops + p->opshead, (p->nops - p->opshead) * sizeof(*p->ops));
			p->nops -= p->opshead;
			p->opshead = 0;
		} else {
			p->opscap = p->opscap ? 2 * p->opscap : 64;
			p->ops = erealloc(p->ops, p->opscap * sizeof(*p->ops));
		}
	}
	p->ops[p->nops++] = (struct region_op){ ts, lo, hi, (uint8_t)heap, (uint8_t)added };
}

/*
 * Ends [lo, hi) wherever it overlaps what we track, one free a piece,
 * and returns the heap of the first piece (or -1).  With only_heap >= 0
 * it touches only regions of that heap.
 */
static int
region_cut(struct proc *p, struct rec *r, uint64_t lo, uint64_t hi, int only_heap,
    int quiet)
{
	struct mt_rpos at = ranges_seek(&p->regions, lo);
	struct mt_range *g, v;
	int first = -1;

	while ((g = ranges_at(&p->regions, at)) && g->lo < hi) {
		uint64_t a, b;

		v = *g;
		a = v.lo > lo ? v.lo : lo;
		b = v.hi < hi ? v.hi : hi;
		if (only_heap >= 0 && v.heap != only_heap) {
			ranges_next(&p->regions, &at);
			continue;
		}
		if (first < 0)
			first = v.heap;
		if (!quiet) {
			put_heap_event(MT_FREE, r, p, v.heap, a, b - a);
			region_log(p, r->ts, a, b, v.heap, 0);
		}
		if (v.lo < a && v.hi > b) {
			g->hi = a;
			ranges_next(&p->regions, &at);
			ranges_insert(&p->regions, &at, (struct mt_range){ b, v.hi, v.heap });
			ranges_next(&p->regions, &at);
		} else if (v.lo < a) {
			g->hi = a;
			ranges_next(&p->regions, &at);
		} else if (v.hi > b) {
			g->lo = b;
			ranges_next(&p->regions, &at);
		} else {
			ranges_delete(&p->regions, &at);
		}
	}
	return first;
}

/* flags EV_TS_NONE: a mapping made before recording (-p). */
static void
region_add_flags(struct proc *p, struct rec *r, uint64_t lo, uint64_t hi, int heap,
    unsigned flags)
{
	struct mt_rpos at;

	if (hi <= lo)
		return;
	at = ranges_seek(&p->regions, lo);
	ranges_insert(&p->regions, &at, (struct mt_range){ lo, hi, (uint8_t)heap });
	put_heap_event_flags(MT_ALLOC, r, p, heap, lo, hi - lo, flags);
	region_log(p, r->ts, lo, hi, heap, 1);
}

static void
region_add(struct proc *p, struct rec *r, uint64_t lo, uint64_t hi, int heap)
{
	region_add_flags(p, r, lo, hi, heap, 0);
}

/*
 * -p: the private anonymous mappings of the process as we attached, read
 * from /proc/PID/maps before: allocations made before recording, written
 * with no time, so that a later munmap of one has its size and the
 * commit's lifetime stays whole.
 */
static struct mt_range *befores;
static size_t nbefores;

static void
read_befores(pid_t pid)
{
	char path[64], line[512], perms[8];
	unsigned long lo, hi, off, ino;
	size_t cap = 0;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if (!(f = fopen(path, "re")))
		return;
	while (fgets(line, sizeof(line), f)) {
		n = 0;
		if (sscanf(line, "%lx-%lx %7s %lx %*s %lu %n", &lo, &hi, perms, &off, &ino, &n) < 5 ||
		    !n || ino != 0 || perms[3] != 'p' || (line[n] && line[n] != '\n'))
			continue;	/* a file, shared, or named: [heap], [stack], [vdso] */
		if (perms[1] != 'w' && strcmp(perms, "---p") != 0)
			continue;	/* neither committed nor reserved */
		befores = egrow(befores, nbefores, &cap, sizeof(*befores));
		befores[nbefores++] = (struct mt_range){ lo, hi,
		    (uint8_t)(perms[1] == 'w' ? RAW_HEAP_MMAP : RAW_HEAP_RESERVE) };
	}
	fclose(f);
}

/*
 * A child's regions: its parent's as of the fork, at.  The merge may have
 * gone past it in the parent's events before we read the child's hello:
 * what the parent changed since is undone on the copy, newest first.
 */
static void
regions_as_of_fork(struct proc *child, struct proc *parent, struct rec *r, uint64_t at)
{
	size_t i;

	ranges_copy(&child->regions, &parent->regions);
	for (i = parent->nops; i-- > parent->opshead && parent->ops[i].ts > at;) {
		struct region_op *o = &parent->ops[i];

		if (o->added) {
			region_cut(child, r, o->lo, o->hi, o->heap, 1);
		} else {
			struct mt_rpos pos = ranges_seek(&child->regions, o->lo);
			ranges_insert(&child->regions, &pos, (struct mt_range){ o->lo, o->hi, o->heap });
		}
	}
}

static uint64_t
page_end(uint64_t addr, uint64_t len)
{
	uint64_t e = addr + len;

	return e < addr ? UINT64_MAX : (e + 4095) & ~(uint64_t)4095;
}

/*
 * Anonymous memory made executable is JIT code: a map line, so that its
 * addresses are known to be in it, not outside every module.
 */
static void
put_exec_map(struct rec *r, uint64_t lo, uint64_t hi)
{
	struct mt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = MT_MAP;
	ev.pid = r->pid;
	ev.addr = lo;
	ev.size = hi;
	ev.s2.s = "[anon:exec]";
	ev.s2.len = strlen(ev.s2.s);
	put(&ev);
}

static void
emit_mapping(struct rec *r, struct proc *p)
{
	uint64_t lo = r->addr, hi = page_end(r->addr, r->size);
	struct mt_range *g;
	struct mt_rpos at;

	switch (r->kind) {
	case RAW_MMAP:
		region_cut(p, r, lo, hi, -1, 0);
		if (r->heap == RAW_HEAP_MMAP || r->heap == RAW_HEAP_RESERVE)
			region_add(p, r, lo, hi, r->heap);
		if (r->flags & RAW_EXEC)
			put_exec_map(r, lo, hi);
		break;
	case RAW_MUNMAP:
		region_cut(p, r, lo, hi, -1, 0);
		break;
	case RAW_MREMAP_FROM:
		p->remap_heap = region_cut(p, r, lo, hi, -1, 0);
		break;
	case RAW_MREMAP_TO:
		if (p->remap_heap >= 0) {
			region_cut(p, r, lo, hi, -1, 0);
			region_add(p, r, lo, hi, p->remap_heap);
		}
		p->remap_heap = -1;
		break;
	case RAW_MPROTECT:
		if (r->flags & RAW_EXEC)
			for (at = ranges_seek(&p->regions, lo); (g = ranges_at(&p->regions, at)) &&
			    g->lo < hi; ranges_next(&p->regions, &at))
				put_exec_map(r, g->lo > lo ? g->lo : lo, g->hi < hi ? g->hi : hi);
		/* Reserved made writable is a commit; committed made
		   inaccessible a decommit; anything else changes nothing. */
		if (r->heap == RAW_HEAP_MMAP || r->heap == RAW_HEAP_RESERVE) {
			int from = r->heap == RAW_HEAP_MMAP ? RAW_HEAP_RESERVE : RAW_HEAP_MMAP;
			for (;;) {
				at = ranges_seek(&p->regions, lo);
				while ((g = ranges_at(&p->regions, at)) && g->lo < hi &&
				    g->heap != from)
					ranges_next(&p->regions, &at);
				if (!g || g->lo >= hi)
					break;
				uint64_t a = g->lo > lo ? g->lo : lo;
				uint64_t b = g->hi < hi ? g->hi : hi;
				region_cut(p, r, a, b, from, 0);
				region_add(p, r, a, b, r->heap);
			}
		}
		break;
	}
}

/* Needs quoting for a shell: empty, or more than the letters of a path. */
static int
needs_quote(const char *a, size_t n)
{
	size_t i;

	if (n == 0)
		return 1;
	for (i = 0; i < n; i++)
		if (a[i] == '\0' || !strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789_@%+=:,./-", a[i]))
			return 1;
	return 0;
}

/*
 * A command line from /proc/PID/cmdline (each argument ended by a NUL)
 * as a shell would read it back: arguments joined by spaces, those that
 * need it in single quotes, so an empty one shows as ''.  A title a
 * process wrote over its arguments (setproctitle: one string, then NUL
 * padding) is shown as it is, as ps shows it.
 */
static char *
argv_quote(const char *args, size_t n, size_t *len)
{
	char *out = emalloc(n * 7 + 4), *o = out;
	const char *a = args, *end = args + n, *z, *q;
	size_t i, k;

	z = memchr(args, '\0', n);
	if (z && z + 1 < end && memchr(args, ' ', (size_t)(z - args))) {
		for (q = z; q < end && *q == '\0'; q++)
			;
		if (q == end) {
			memcpy(out, args, (size_t)(z - args));
			*len = (size_t)(z - args);
			return out;
		}
	}
	for (; a < end; a += k + 1) {
		z = memchr(a, '\0', (size_t)(end - a));
		k = z ? (size_t)(z - a) : (size_t)(end - a);
		if (a > args)
			*o++ = ' ';
		if (!needs_quote(a, k)) {
			memcpy(o, a, k);
			o += k;
			continue;
		}
		*o++ = '\'';
		for (i = 0; i < k; i++) {
			if (a[i] == '\'') {
				memcpy(o, "'\\''", 4);
				o += 4;
			} else {
				*o++ = a[i];
			}
		}
		*o++ = '\'';
	}
	*len = (size_t)(o - out);
	return out;
}

static void
emit_control(struct rec *r, struct proc *p)
{
	struct mt_event ev;
	char *buf, *exe, *args, *quoted;
	size_t elen, i, n, qlen;

	memset(&ev, 0, sizeof(ev));
	ev.ts = r->ts;
	ev.pid = r->pid;
	switch (r->kind) {
	case CTL_PROC:
		ev.type = MT_PROC;
		ev.ppid = p ? p->ppid : 0;
		exe = r->data;
		elen = strnlen(exe, r->len);
		args = exe + elen + (elen < r->len);
		n = r->len - (size_t)(args - exe);
		quoted = argv_quote(args, n, &qlen);
		buf = emalloc((elen + qlen) * 4 + 2);
		ev.s1.s = buf;
		ev.s1.len = str_escape(buf, exe, elen);
		ev.s2.s = buf + ev.s1.len;
		ev.s2.len = str_escape(buf + ev.s1.len, quoted, qlen);
		put(&ev);
		free(buf);
		free(quoted);
		if (p && p->nspid) {
			char line[96];
			memset(&ev, 0, sizeof(ev));
			ev.type = MT_COMMENT;
			ev.s1.s = line;
			ev.s1.len = (size_t)snprintf(line, sizeof(line), "#nspid\t%d\t%d",
			    (int)p->pid, (int)p->nspid);
			put(&ev);
		}
		break;
	case CTL_MAP: {
		char *bid = r->data, *path;
		size_t blen = strnlen(bid, r->len);
		path = bid + blen + (blen < r->len);
		n = r->len - (size_t)(path - bid);
		buf = emalloc(n * 4 + 1);
		ev.type = MT_MAP;
		ev.addr = r->addr;
		ev.size = r->size;
		ev.stack = r->off;
		ev.s1.s = bid;
		ev.s1.len = blen;
		ev.s2.s = buf;
		ev.s2.len = str_escape(buf, path, strnlen(path, n));
		put(&ev);
		free(buf);
		break;
	}
	case CTL_BEFORE:
		r->tid = r->pid;
		for (i = 0; i < nbefores; i++)
			region_add_flags(p, r, befores[i].lo, befores[i].hi, befores[i].heap,
			    EV_TS_NONE);
		break;
	case CTL_FORK: {
		struct proc *child = (struct proc *)(uintptr_t)r->off;
		regions_as_of_fork(child, p, r, r->size);
		child->fork_pending--;
		break;
	}
	case CTL_NOTE:
		ev.type = MT_COMMENT;
		ev.s1.s = r->data;
		ev.s1.len = r->len;
		put(&ev);
		break;
	case CTL_LOST:
		lost += r->size;
		ev.type = MT_LOST;
		ev.size = r->size;
		ev.s1.s = r->status == LOST_CORRUPT ? "corrupt" : "undelivered";
		ev.s1.len = strlen(ev.s1.s);
		put(&ev);
		break;
	case CTL_EXIT:
		/* The first word on a process's end is the one that counts. */
		p = proc_by_pid(r->pid);
		if (!p) {
			keep_early_exit(r->pid, 0, 0, r->status, r->ts);
			break;
		}
		if (p->exited)
			break;
		p->exited = 1;
		ev.type = MT_EXIT;
		if (WIFEXITED(r->status))
			ev.status = WEXITSTATUS(r->status);
		else if (WIFSIGNALED(r->status))
			ev.status = MT_STATUS_SIG(WTERMSIG(r->status));
		else
			ev.status = MT_STATUS_NONE;
		put(&ev);
		break;
	}
}

static void
emit(struct rec *r, struct proc *p)
{
	if (r->ts < last_emitted) {
		r->ts = last_emitted;
		late++;
	}
	last_emitted = r->ts;
	switch (r->kind) {
	case RAW_ALLOC:
		put_heap_event(MT_ALLOC, r, p, RAW_HEAP_MALLOC, r->addr, r->size);
		break;
	case RAW_FREE:
		put_heap_event(MT_FREE, r, p, RAW_HEAP_MALLOC, r->addr, 0);
		break;
	case RAW_MMAP:
	case RAW_MUNMAP:
	case RAW_MREMAP_FROM:
	case RAW_MREMAP_TO:
	case RAW_MPROTECT:
		emit_mapping(r, p);
		break;
	default:
		emit_control(r, p);
		break;
	}
	if (r->data) {
		free(r->data);
		r->data = NULL;
	}
}

/* Processes and their connections. */

/*
 * An end told before the process's hello was read: a short child whose
 * parent reaped it and told us before the child's connection was
 * accepted (a forkserver's child; the shell of a PID namespace, which
 * names it by its pid there).  Kept, the newest few, and given to the
 * process whose hello comes from before it (its exit was written as "-"
 * otherwise).
 */
#define EARLY_EXITS 256
static struct {
	pid_t pid;		/* or 0, and nspid, a child of ppid's */
	pid_t nspid, ppid;
	int status;
	uint64_t ts;
} early[EARLY_EXITS];
static unsigned nearly;

static void
keep_early_exit(pid_t pid, pid_t nspid, pid_t ppid, int status, uint64_t ts)
{
	unsigned i = nearly++ % EARLY_EXITS;

	early[i].pid = pid;
	early[i].nspid = nspid;
	early[i].ppid = ppid;
	early[i].status = status;
	early[i].ts = ts;
}

static void add_exit(struct queue *q, pid_t pid, int status, uint64_t ts);

/* After a hello at ts: its end, if it was told already. */
static void
take_early_exit(struct proc *p, uint64_t ts)
{
	unsigned i;

	for (i = 0; i < EARLY_EXITS && i < nearly; i++)
		if (early[i].ts >= ts && (early[i].pid ? early[i].pid == p->pid :
		    early[i].nspid && early[i].nspid == p->nspid && early[i].ppid == p->ppid)) {
			add_exit(&p->ctl, p->pid, early[i].status, early[i].ts);
			early[i].pid = early[i].nspid = 0;
			return;
		}
}

/*
 * A time a process sent (CLOCK_MONOTONIC, as it read it), as a time of
 * the trace.  An honest time is no earlier than our start and no later
 * than `limit', when we read it: it was taken before it was published.
 * Any other (one in the far future would have waited in the merge for
 * ever, and mt-record with it) becomes 0, which its queue makes the time
 * of the event before it from the same source.
 */
/* A time a process sent, as a time of the trace, unchecked. */
static uint64_t
peer_ns(const struct proc *p, uint64_t ts)
{
	return (p->tsc ? tsc_ns(ts) : ts) - start_ns;
}

static uint64_t
peer_time(struct proc *p, uint64_t ts, uint64_t limit)
{
	ts = peer_ns(p, ts);
	if (ts <= limit)
		return ts;
	p->future++;
	return 0;
}

static void
say_capped(struct proc *p, const char *what)
{
	if (p->capped++)
		return;
	fprintf(stderr, "%s: pid %d sent more %s than a process has: the rest ignored\n",
	    mt_progname, (int)p->pid, what);
}

static struct proc *
proc_by_pid(pid_t pid)
{
	size_t i;

	/* The newest image of a pid is the one that counts. */
	for (i = nprocs; i-- > 0;)
		if (procs[i]->pid == pid && !procs[i]->replaced)
			return procs[i];
	return NULL;
}

/*
 * An exit goes into the queue of whoever learned it (the parent that
 * reaped the child, or us), in time order with what that source saw.
 */
static void
add_exit(struct queue *q, pid_t pid, int status, uint64_t ts)
{
	struct rec *r = queue_push(q, ts);

	r->kind = CTL_EXIT;
	r->pid = pid;
	r->status = status;
}

/*
 * A memfd from a traced process, which is not to be trusted: mapped only
 * when it is a memfd of the size expected and sealed so that it cannot
 * shrink under us (a 0-byte one, or one shrunk through
 * /proc/PID/map_files, made the first read a SIGBUS).
 */
static int
sealed_size(int fd, size_t want)
{
	struct stat st;
	int seals = fcntl(fd, F_GET_SEALS);

	return seals >= 0 && (seals & MT_SEALS) == MT_SEALS && fstat(fd, &st) == 0 &&
	    S_ISREG(st.st_mode) && (uint64_t)st.st_size == want;
}

/* A stack table's arena words, from its memfd's size; 0 when no size fits. */
static uint32_t
table_size(int fd)
{
	uint32_t w;
	struct stat st;

	if (fstat(fd, &st) < 0)
		return 0;
	for (w = MT_STACK_WORDS_MIN; w && w <= MT_STACK_WORDS_MAX; w <<= 1)
		if ((uint64_t)st.st_size == MT_STACK_BYTES(w))
			return sealed_size(fd, MT_STACK_BYTES(w)) ? w : 0;
	return 0;
}

static void
add_ring(struct proc *p, int fd, pid_t tid)
{
	struct ring *g;
	void *m;

	if (p->nrings >= PEER_RINGS) {
		say_capped(p, "rings");
		return;
	}
	if (!sealed_size(fd, MT_RING_BYTES) ||
	    (m = mmap(NULL, MT_RING_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED)
		return;
	p->nrings++;
	g = ecalloc(1, sizeof(*g));
	/* Its events come after its process's hello, and its lies too. */
	g->q.last_ts = p->hello_ts;
	g->proc = p;
	g->map = m;
	g->pid = p->pid;
	g->tid = tid;
	if (nrings == ringcap) {
		ringcap = ringcap ? ringcap * 2 : 64;
		rings = erealloc(rings, ringcap * sizeof(*rings));
	}
	rings[nrings++] = g;
}

static void
add_module(struct proc *p, uint64_t ts, const struct module *mod)
{
	struct rec *r;

	if (p->nmods >= PEER_MODULES || mod->len > MODULE_DATA) {
		say_capped(p, "modules");
		return;
	}
	r = queue_push(&p->ctl, ts);

	r->kind = CTL_MAP;
	r->pid = p->pid;
	r->addr = mod->lo;
	r->size = mod->hi;
	r->off = mod->off;
	r->data = emalloc(mod->len + 1);
	memcpy(r->data, mod->data, mod->len);
	r->data[mod->len] = '\0';
	r->len = mod->len;
	if (p->nmods == p->modcap) {
		p->modcap = p->modcap ? p->modcap * 2 : 16;
		p->mods = erealloc(p->mods, p->modcap * sizeof(*p->mods));
	}
	p->mods[p->nmods] = *mod;
	p->mods[p->nmods].data = emalloc(mod->len + 1);
	memcpy(p->mods[p->nmods].data, mod->data, mod->len);
	p->nmods++;
}

/*
 * Its pid and parent's as we see them: the peer's credentials (the kernel
 * translates them to our PID namespace) and its /proc stat.  A process in
 * a namespace of its own says 1, 2, 3, which here are other processes.
 */
/*
 * A process's /proc stat, from just after its name: " state ppid ...".
 * The name may hold anything, so the last ')' ends it.  NULL if gone.
 */
static char *
proc_stat(pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return (buf = strrchr(buf, ')')) ? buf + 1 : NULL;
}

/* Alive, not a zombie waiting to be reaped. */
static int
still_running(pid_t pid)
{
	char buf[512], *s, state;

	return (s = proc_stat(pid, buf, sizeof(buf))) && sscanf(s, " %c", &state) == 1 &&
	    state != 'Z' && state != 'X';
}

static void
peer_pids(int fd, struct mt_msg *m, pid_t *nspid)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	char buf[512], *s;
	long ppid;
	pid_t nsppid;
	size_t i;

	*nspid = 0;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0 || cr.pid <= 0 ||
	    cr.pid == m->pid)
		return;
	*nspid = m->pid;
	m->pid = cr.pid;
	nsppid = m->ppid;
	/* Gone already: its parent as the one known by that name there. */
	m->ppid = 0;
	for (i = nprocs; i-- > 0;)
		if (nsppid > 0 && procs[i]->nspid == nsppid && !procs[i]->replaced) {
			m->ppid = procs[i]->pid;
			break;
		}
	if ((s = proc_stat(cr.pid, buf, sizeof(buf))) && sscanf(s, " %*c %ld", &ppid) == 1)
		m->ppid = (int32_t)ppid;
}

static void
hello(struct proc *p, struct mt_msg *m, int fd, char *data, size_t len, uint64_t limit)
{
	struct proc *old, *parent = NULL;
	struct rec *r;
	size_t i;
	void *t;

	if (p->said_hello || fd < 0)
		return;
	peer_pids(p->fd, m, &p->nspid);
	old = proc_by_pid(m->pid);
	if (!(p->table_words = table_size(fd)))
		return;
	t = mmap(NULL, MT_STACK_BYTES(p->table_words), PROT_READ, MAP_SHARED, fd, 0);
	if (t == MAP_FAILED)
		return;
	p->table = t;
	if ((m->flags & HELLO_ATTACHED) && attach_pid) {
		/* Where we tell it to stop: the page of the table's head. */
		t = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (t != MAP_FAILED)
			p->head = t;
	}
	p->pid = m->pid;
	p->ppid = m->ppid;
	p->said_hello = 1;
	p->tsc = tsc_on && (m->flags & HELLO_TSC);
	p->hello_ts = m->ts = peer_time(p, m->ts, limit);
	nprocs_traced++;
	if (old && old != p) {
		/* An exec: the old image is gone, its mappings with it.  Its
		   parent is the one that made it, though it may be ours now. */
		old->replaced = 1;
		p->ppid = old->ppid;
	} else if ((m->flags & HELLO_FORKED) && (parent = proc_by_pid(m->ppid)) &&
	    parent != p) {
		/*
		 * A fork: the child has its parent's mappings as of the fork,
		 * copied when the merge reaches its time in the parent's
		 * events (a hello is read before the parent's last events
		 * before the fork are merged).
		 */
		uint64_t at = m->lo ? peer_time(p, m->lo, m->ts) : 0;
		r = queue_insert(&parent->ctl, at && at <= m->ts ? at : m->ts);
		r->kind = CTL_FORK;
		r->pid = parent->pid;
		r->off = (uint64_t)(uintptr_t)p;
		r->size = r->ts;	/* the fork: r->ts is moved up if merged late */
		p->fork_pending++;
	}
	r = queue_push(&p->ctl, m->ts);
	r->kind = CTL_PROC;
	r->pid = m->pid;
	r->data = emalloc(len + 1);
	memcpy(r->data, data, len);
	r->data[len] = '\0';
	r->len = len;
	if ((m->flags & HELLO_ATTACHED) && !(m->flags & HELLO_FORKED) && attach_pid &&
	    m->pid == attach_pid && nbefores) {
		r = queue_push(&p->ctl, m->ts);
		r->kind = CTL_BEFORE;
		r->pid = m->pid;
	}
	/* A forked child does not walk its modules: they are its parent's. */
	if ((m->flags & HELLO_FORKED) && (parent = proc_by_pid(m->ppid)) && parent != p)
		for (i = 0; i < parent->nmods; i++)
			add_module(p, m->ts, &parent->mods[i]);
	take_early_exit(p, m->ts);
}

static int read_control(struct proc *p);

/*
 * A process whose connection it closed itself connects again: the new
 * connection becomes its own, if the peer is that very process of ours
 * and its old connection is closed (read to its end here, if that was not
 * seen yet).  Told with a byte, which the library waits for; refused, the
 * connection is closed, and it gives up.
 */
static int
hello_again(struct proc *p, const struct mt_msg *m)
{
	struct proc *old;
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (p->said_hello || getsockopt(p->fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0 ||
	    cr.uid != getuid() || !(old = proc_by_pid(cr.pid)) || old == p ||
	    !old->said_hello || (old->nspid ? old->nspid : old->pid) != m->pid)
		return 0;
	if (old->fd >= 0) {
		if (read_control(old))
			return 0;	/* still open: not the process's doing */
		close(old->fd);
		old->fd = -1;
	}
	if (send(p->fd, "y", 1, MSG_NOSIGNAL | MSG_DONTWAIT) != 1)
		return 0;
	old->fd = p->fd;
	p->fd = -1;
	return 1;
}

/* A child as its parent in a PID namespace names it, as we see it. */
static pid_t
child_pid(const struct proc *parent, pid_t nspid)
{
	size_t i;

	for (i = nprocs; i-- > 0;)
		if (procs[i]->nspid == nspid && procs[i]->ppid == parent->pid &&
		    !procs[i]->replaced)
			return procs[i]->pid;
	return 0;
}

/*
 * Reads what a process has sent: 0 at the end of its connection, 1 when
 * it has sent nothing more, 2 when more waits.
 */
static int
read_control(struct proc *p)
{
	static char buf[MT_MSG_MAX];
	char cbuf[CMSG_SPACE(sizeof(int) * 4)];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr mh;
	struct cmsghdr *c;
	struct mt_msg m;
	ssize_t n;
	size_t len;
	uint64_t limit;
	int fd, batch;

	/* A few at a time: a peer that never stops sending must not hold us. */
	for (batch = 0; batch < READ_BATCH; batch++) {
		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		n = recvmsg(p->fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? 1 : 0;
		fd = -1;
		for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
			    c->cmsg_len >= CMSG_LEN(sizeof(int))) {
				int extra;
				size_t k, nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
				memcpy(&fd, CMSG_DATA(c), sizeof(int));
				for (k = 1; k < nfd; k++) {
					memcpy(&extra, CMSG_DATA(c) + k * sizeof(int), sizeof(int));
					close(extra);
				}
			}
		}
		/* The end, or a message of nothing (which can carry a memfd). */
		if (n == 0 || (size_t)n < sizeof(m)) {
			if (fd >= 0)
				close(fd);
			if (n == 0)
				return 0;
			continue;
		}
		memcpy(&m, buf, sizeof(m));
		len = (size_t)n - sizeof(m);
		limit = now_rel();
		if (p->said_hello)
			m.ts = peer_time(p, m.ts, limit);
		switch (m.type) {
		case MSG_HELLO:
			if (m.flags & HELLO_AGAIN) {
				if (fd >= 0)
					close(fd);
				/* The rest is read from the process it joined. */
				if (hello_again(p, &m))
					return 1;
				return 0;
			}
			hello(p, &m, fd, buf + sizeof(m), len, limit);
			break;
		case MSG_RING:
			if (p->said_hello && fd >= 0)
				add_ring(p, fd, m.tid);
			break;
		case MSG_MAP:
			if (!p->said_hello)
				break;
			add_module(p, m.ts, &(struct module){ m.lo, m.hi, m.off,
			    buf + sizeof(m), len });
			break;
		case MSG_ALLOCATOR:
			if (p->said_hello && len > 0 && len < PATH_MAX) {
				struct rec *r = queue_push(&p->ctl, m.ts);
				r->kind = CTL_NOTE;
				r->pid = p->pid;
				r->data = emalloc(len * 4 + 32);
				r->len = (size_t)sprintf(r->data, "#allocator\t%d\t", (int)p->pid);
				r->len += str_escape(r->data + r->len, buf + sizeof(m),
				    strnlen(buf + sizeof(m), len));
			}
			break;
		case MSG_CHILD:
			if (p->nspid) {
				pid_t ns = m.child;
				if (!(m.child = child_pid(p, ns))) {
					/* Not one we know yet. */
					keep_early_exit(0, ns, p->pid, m.status, m.ts);
					break;
				}
			}
			add_exit(&p->ctl, m.child, m.status, m.ts);
			break;
		}
		if (fd >= 0)
			close(fd);
	}
	return 2;
}

static struct proc *
add_proc(int fd)
{
	struct proc *p = ecalloc(1, sizeof(*p));

	p->fd = fd;
	p->remap_heap = -1;
	if (nprocs == proccap) {
		proccap = proccap ? proccap * 2 : 16;
		procs = erealloc(procs, proccap * sizeof(*procs));
	}
	procs[nprocs++] = p;
	return p;
}

/*
 * A ring the process spoiled (its head further than a ring holds, or
 * behind what we read): read no more, and say how much was lost.
 */
static void
ring_spoiled(struct ring *g, uint64_t head)
{
	struct rec *r = queue_push(&g->proc->ctl, now_rel());

	g->done = 1;
	r->kind = CTL_LOST;
	r->pid = g->pid;
	r->status = LOST_CORRUPT;
	r->size = head - g->tail < MT_RING_RECS ? head - g->tail : MT_RING_RECS;
	fprintf(stderr, "%s: pid %d: thread %d's ring was overwritten (head %llu, read %llu): "
	    "no longer read\n", mt_progname, (int)g->pid, (int)g->tid,
	    (unsigned long long)head, (unsigned long long)g->tail);
}

/*
 * How far a pass may read.  A ring is read up to its head, newer than
 * the watermark too, so that a thread's ring has room at once (at
 * millions of events a second, 10 ms of them fill a ring); but no more
 * than drain_batch records of it, and, once PENDING_MAX records wait in
 * our queues, only up to the watermark: 200 threads' rings read whole
 * made queues of 730 MB.  Each ring is in time order, so up to the time
 * of the record drain_batch on in the ring furthest behind, every ring
 * is read whole, and the merge can go that far and no further.
 *
 * PENDING_MAX is the trail of the watermark, SLACK_NS, at the fastest a
 * program makes events: at 1 << 18, a thread making 40M events a second
 * (tests/progs/pairs) filled it in 7 ms and then waited for the clock,
 * 26M events a second at most whatever our speed.  At 1 << 20 (72 MB of
 * queued records at the most, given back when the burst is over), pairs
 * runs at its own speed.
 */
#define DRAIN_BATCH 2048
#define PENDING_MAX (1u << 20)
static uint64_t drain_batch = MT_RING_RECS;

static uint64_t
drain_limit(uint64_t w)
{
	uint64_t limit = now_rel(), head, ts;
	struct mt_raw *recs;
	size_t i;

	drain_batch = PENDING_MAX / (nrings ? nrings : 1);
	if (drain_batch < DRAIN_BATCH)
		drain_batch = DRAIN_BATCH;
	if (drain_batch >= MT_RING_RECS) {
		drain_batch = MT_RING_RECS;
		return w;	/* every ring read whole */
	}
	for (i = 0; i < nrings; i++) {
		struct ring *g = rings[i];
		if (g->done)
			continue;
		head = __atomic_load_n(&g->map->head, __ATOMIC_ACQUIRE);
		if (head - g->tail <= drain_batch || head - g->tail > MT_RING_RECS)
			continue;
		recs = (struct mt_raw *)((char *)g->map + MT_RING_HDR);
		ts = peer_ns(g->proc, recs[(g->tail + drain_batch) & (MT_RING_RECS - 1)].ts);
		if (ts < w && ts <= limit)
			w = ts;	/* a lie is not heeded: it is read, given another time */
	}
	return w;
}

/* Records read from the rings and not merged yet. */
static size_t
pending(void)
{
	size_t i, n = 0;

	for (i = 0; i < nrings; i++)
		n += rings[i]->q.len - rings[i]->q.head;
	return n;
}

/*
 * Moves what a ring holds (see drain_limit), up to the watermark w
 * unless newer is set, into its queue; 1 if there was anything.
 */
static int
drain(struct ring *g, uint64_t w, int newer)
{
	struct mt_raw *recs = (struct mt_raw *)((char *)g->map + MT_RING_HDR), raw;
	uint64_t head = __atomic_load_n(&g->map->head, __ATOMIC_ACQUIRE);
	uint64_t limit = now_rel();	/* after the head: see peer_time */
	uint64_t tail = g->tail;
	struct proc *p = g->proc;
	struct rec *r;

	if (g->done || head == tail)
		return 0;
	if (head - tail > MT_RING_RECS) {
		ring_spoiled(g, head);
		return 0;
	}
	queue_room(&g->q);	/* given back if emptied */
	for (; tail != head; tail++) {
		uint64_t ts;

		raw = recs[tail & (MT_RING_RECS - 1)];
		if (raw.type < RAW_ALLOC || raw.type > RAW_MPROTECT || raw.heap > RAW_HEAP_NONE) {
			p->bad++;
			continue;
		}
		ts = peer_time(p, raw.ts, limit);
		/*
		 * Up to the watermark, everything: the merge goes that far,
		 * and a record left behind would come out late, after a free
		 * of what it allocated.  Newer, only within the batch.
		 */
		if (ts > w && (!newer || tail - g->tail >= drain_batch))
			break;	/* not yet */
		r = queue_next(&g->q, &ts);
		*r = (struct rec){ .ts = ts, .kind = raw.type, .heap = raw.heap,
		    .addr = raw.addr, .size = raw.size, .stack = raw.stack,
		    .flags = raw.flags, .pid = g->pid, .tid = g->tid };
	}
	if (tail == g->tail)
		return 0;
	g->tail = tail;
	/* Room made: a thread asleep for it is woken (see wait_room). */
	__atomic_store_n(&g->map->tail, tail, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&g->map->waiting, __ATOMIC_SEQ_CST)) {
		__atomic_store_n(&g->map->waiting, 0, __ATOMIC_RELAXED);
		syscall(SYS_futex, &g->map->waiting, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	}
	return 1;
}

/* The merge: a binary heap of sources ordered by their oldest event. */
struct source {
	struct queue *q;
	struct proc *p;
	size_t order;		/* ties go to the source listed first */
};

static struct source *heap;
static size_t nheap, heapcap;

static int
source_before(const struct source *a, const struct source *b)
{
	uint64_t ta = queue_peek(a->q)->ts, tb = queue_peek(b->q)->ts;

	return ta < tb || (ta == tb && a->order < b->order);
}

static void
heap_push(struct source s)
{
	size_t i = nheap++, up;

	if (nheap > heapcap) {
		heapcap = heapcap ? heapcap * 2 : 64;
		heap = erealloc(heap, heapcap * sizeof(*heap));
	}
	for (; i > 0 && source_before(&s, &heap[up = (i - 1) / 2]); i = up)
		heap[i] = heap[up];
	heap[i] = s;
}

static struct source
heap_pop(void)
{
	struct source top = heap[0], last = heap[--nheap];
	size_t i = 0, c;

	for (; (c = 2 * i + 1) < nheap; i = c) {
		if (c + 1 < nheap && source_before(&heap[c + 1], &heap[c]))
			c++;
		if (!source_before(&heap[c], &last))
			break;
		heap[i] = heap[c];
	}
	if (nheap)
		heap[i] = last;
	return top;
}

static void
consider(struct queue *q, struct proc *p, size_t order, uint64_t w)
{
	struct rec *r = queue_peek(q);

	if (r && r->ts <= w)
		heap_push((struct source){ q, p, order });
}

#define PREFETCH_AHEAD 8

/* Writes, in time order, every waiting event no newer than w. */
static void
merge(uint64_t w)
{
	struct source s;
	struct rec *r;
	size_t i;

	nheap = 0;
	consider(&reaped_q, NULL, 0, w);
	/* Control first: a process's hello goes before its first event. */
	for (i = 0; i < nprocs; i++)
		consider(&procs[i]->ctl, procs[i], 1 + i, w);
	for (i = 0; i < nrings; i++)
		consider(&rings[i]->q, rings[i]->proc, 1 + nprocs + i, w);
	while (nheap > 0) {
		s = heap_pop();
		/* Its events before the next source's oldest go out in a run. */
		do {
			r = queue_peek(s.q);
			s.q->head++;
			/* The writer's slot for a record a few on: a cache miss
			   per free otherwise. */
			if (s.q->head + PREFETCH_AHEAD < s.q->len)
				trace_writer_prefetch(writer, s.q->v[s.q->head + PREFETCH_AHEAD].addr);
			emit(r, s.p);
			r = queue_peek(s.q);
		} while (r && r->ts <= w && (nheap == 0 || source_before(&s, &heap[0])));
		consider(s.q, s.p, s.order, w);
	}
}

/*
 * Whether a process still runs (a zombie does not).  A process can close
 * our connection and go on writing to its rings.
 */
static int
proc_alive(pid_t pid)
{
	char buf[512], *s = proc_stat(pid, buf, sizeof(buf));

	return s && s[0] == ' ' && s[1] != 'Z' && s[1] != 'X';
}

/* Everything a process's state holds, and the state. */
static void
proc_free(struct proc *p)
{
	size_t j;

	if (p->fd >= 0)
		close(p->fd);
	if (p->table)
		munmap(p->table, MT_STACK_BYTES(p->table_words));
	if (p->head)
		munmap(p->head, 4096);
	for (j = 0; j < p->nmods; j++)
		free(p->mods[j].data);
	for (j = p->ctl.head; j < p->ctl.len; j++)
		free(p->ctl.v[j].data);
	free(p->mods);
	free(p->ctl.v);
	free(p->ids_key);
	free(p->ids_val);
	ranges_free(&p->regions);
	free(p->ops);
	free(p);
}

/*
 * A process is done with when its end is written, its connection and
 * table let go of, no ring of its left, and a second has passed: a
 * child forked just before its parent ended finds its parent's modules.
 * (100k short processes left 606 MB behind, and every lookup walked
 * them all.)
 */
#define PROC_GRACE_NS 1000000000u

static int
proc_done(const struct proc *p, uint64_t t)
{
	return p->fd < 0 && !p->table && !p->nrings && p->ctl.head == p->ctl.len &&
	    !p->fork_pending &&
	    (p->exited || p->replaced || !p->said_hello) && t - p->gone_at > PROC_GRACE_NS;
}

/* Lets go of rings and tables nobody will write to again. */
static void
release(void)
{
	size_t i, j;
	struct ring *g;
	struct proc *p;
	uint64_t t;

	for (i = j = 0; i < nrings; i++) {
		g = rings[i];
		if (g->q.head == g->q.len &&
		    (g->done || g->proc->replaced ||
		    __atomic_load_n(&g->map->closed, __ATOMIC_ACQUIRE) ||
		    (g->proc->fd < 0 && !proc_alive(g->pid))) &&
		    (g->done || __atomic_load_n(&g->map->head, __ATOMIC_ACQUIRE) == g->tail)) {
			munmap(g->map, MT_RING_BYTES);
			g->proc->nrings--;
			free(g->q.v);
			free(g);
			continue;
		}
		rings[j++] = g;
	}
	nrings = j;
	for (i = 0; i < nprocs; i++) {
		p = procs[i];
		if (!p->table || p->fd >= 0)
			continue;
		/* Closed by the process itself, which may connect again. */
		if (!p->replaced && !p->exited && proc_alive(p->pid))
			continue;
		for (j = 0; j < nrings; j++)
			if (rings[j]->proc == p)
				break;
		if (j < nrings)
			continue;
		if (p->table->lost > p->lost_said) {
			struct rec *r = queue_push(&p->ctl, now_rel());
			r->kind = CTL_LOST;
			r->pid = p->pid;
			r->size = p->table->lost - p->lost_said;
			p->lost_said = p->table->lost;
		}
		p->counts.full = p->table->full;
		p->counts.fallback = p->table->fallback;
		p->counts.checked = p->table->checked;
		p->counts.differ = p->table->differ;
		p->counts.unchecked = p->table->unchecked;
		p->counts.remembered = p->table->remembered;
		/* The process's word: only the three we know count. */
		p->counts.shadow = p->table->unwinder == 's';
		p->counts.libunwind = p->table->unwinder == 'l';
		p->counts.fp = p->table->unwinder == 'p';
		munmap(p->table, MT_STACK_BYTES(p->table_words));
		p->table = NULL;
		free(p->ids_key);
		free(p->ids_val);
		p->ids_key = NULL;
		p->ids_val = NULL;
		p->ids_cap = p->ids_len = 0;
	}
	t = now_rel();
	for (i = j = 0; i < nprocs; i++) {
		p = procs[i];
		if (proc_done(p, t)) {
			add_counts(&counts_gone, &p->counts);
			proc_free(p);
			continue;
		}
		procs[j++] = p;
	}
	nprocs = j;
}

/* A whole frame out, so that a crash of ours loses little. */
static void
flush_trace(void)
{
	if (write_failed)
		return;
	if ((write_failed = trace_flush(writer)) != 0)
		say_stopped();
}

static volatile sig_atomic_t stop_signal, signals_seen;
static void on_signal(int sig);

/*
 * A Ctrl-C at the terminal reaches the command too: it is ignored while
 * the command runs, and stops us once it has ended (when a process that
 * lied to us could otherwise keep us waiting).  One sent by kill(1) is
 * as a SIGTERM.
 */
static void
on_sigint(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (si->si_code == SI_USER || si->si_code == SI_QUEUE || forward_to <= 0)
		on_signal(sig);
}

/* What the command is to start with: what we were given, not ours. */
static const int passed_signals[] = { SIGINT, SIGQUIT, SIGPIPE, SIGTERM, SIGHUP };
static struct sigaction given[sizeof(passed_signals) / sizeof(passed_signals[0])];
static struct rlimit nofile = { RLIM_INFINITY, RLIM_INFINITY };	/* as given */

static void
on_signal(int sig)
{
	/*
	 * The first goes to the command; a second, or one when the command
	 * has ended, stops us: the trace written, whatever else still runs
	 * (untraced from then on).  Killable in every state.
	 */
	if (forward_to > 0 && !signals_seen++)
		kill(forward_to, sig);
	else
		stop_signal = sig;
}

/* The preload library: beside us in the build tree, or where installed. */
static char *
find_library(void)
{
	static const char *const rel[] = { "/../lib/mt/libmt-preload.so",
	    "/../lib/libmt-preload.so", NULL };
	char self[PATH_MAX], *path, *slash;
	const char *env = getenv("MT_PRELOAD");
	ssize_t n;
	size_t i;

	if (env && *env)
		return realpath(env, NULL);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')))
			*slash = '\0';
		for (i = 0; rel[i]; i++) {
			path = emalloc(strlen(self) + strlen(rel[i]) + 1);
			strcpy(path, self);
			strcat(path, rel[i]);
			if (access(path, R_OK) == 0) {
				char *real = realpath(path, NULL);
				free(path);
				return real;
			}
			free(path);
		}
	}
	path = LIBDIR "/libmt-preload.so";
	return access(path, R_OK) == 0 ? estrdup(path) : NULL;
}

/* Where execvp would find the command, for the set-user-ID check. */
/*
 * A trace holds command lines and paths: made 0600, through no symbolic
 * link (a planted one would have root write over its target), truncated
 * only when it is a regular file; with exclusive, only made anew (the
 * default name is predictable).  *created says whether it was.
 */
/*
 * The command died of a signal: so does mt-record, the trace written, so
 * that a shell loop stops at a Ctrl-C as it would without us.  No core of
 * ours for a SIGSEGV or SIGABRT of the command's.
 */
static void
die_of(int sig)
{
	struct rlimit none = { 0, 0 };
	sigset_t set;

	fflush(stdout);
	fflush(stderr);
	setrlimit(RLIMIT_CORE, &none);
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	exit(128 + sig);	/* a signal that does not kill */
}

static const char *
open_error(int e)
{
	return e == ELOOP ? "a symbolic link: not followed" : strerror(e);
}

static int
open_trace(const char *path, int exclusive, int *created)
{
	struct stat st;
	int fd;

	*created = 0;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0) {
		*created = 1;
		return fd;
	}
	if (errno != EEXIST || exclusive)
		return -1;
	if ((fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ftruncate(fd, 0) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static char *
find_command(const char *cmd)
{
	const char *pathvar = getenv("PATH"), *s, *e;
	char *path;

	if (strchr(cmd, '/'))
		return estrdup(cmd);
	for (s = pathvar ? pathvar : "/usr/bin:/bin"; *s; s = *e ? e + 1 : e) {
		e = strchrnul(s, ':');
		path = emalloc((size_t)(e - s) + strlen(cmd) + 2);
		memcpy(path, s, (size_t)(e - s));
		path[e - s] = '\0';
		strcat(path, "/");
		strcat(path, cmd);
		if (access(path, X_OK) == 0)
			return path;
		free(path);
	}
	return NULL;
}

/*
 * The command runs in a child, which waits for run_spawned() before it
 * does (the default trace's name holds its pid, and the file must be
 * made before the command runs); *go_fd is our end of the socket that
 * tells it.
 */
static pid_t
spawn(char **cmd, const char *lib, const char *sockname, const char *flags,
    int out_is_stdout, int *go_fd)
{
	char buf[64], *preload, *old, go = 0;
	int p[2], e;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p) < 0)
		return -1;
	if ((pid = fork()) != 0) {
		close(p[1]);
		if (pid > 0)
			*go_fd = p[0];
		else
			close(p[0]);
		return pid;
	}
	close(p[0]);
	if (nofile.rlim_cur != RLIM_INFINITY)
		setrlimit(RLIMIT_NOFILE, &nofile);
	/* Ignored when we were started so (nohup, a script's background job). */
	for (e = 0; e < (int)(sizeof(passed_signals) / sizeof(passed_signals[0])); e++)
		signal(passed_signals[e], given[e].sa_handler == SIG_IGN ? SIG_IGN : SIG_DFL);
	if (out_is_stdout)
		dup2(STDERR_FILENO, STDOUT_FILENO);
	old = getenv("LD_PRELOAD");
	preload = emalloc(strlen(lib) + (old ? strlen(old) : 0) + 2);
	strcpy(preload, lib);
	if (old && *old) {
		strcat(preload, " ");
		strcat(preload, old);
	}
	setenv("LD_PRELOAD", preload, 1);
	setenv(MT_ENV_SOCKET, sockname, 1);
	snprintf(buf, sizeof(buf), "%d", depth);
	setenv(MT_ENV_DEPTH, buf, 1);
	setenv(MT_ENV_FLAGS, flags, 1);
	while (read(p[1], &go, 1) < 0 && errno == EINTR)
		;
	if (go != 'y')
		_exit(126);	/* not to be run */
	execvp(cmd[0], cmd);
	e = errno;
	if (write(p[1], &e, sizeof(e)) < 0)
		fprintf(stderr, "%s: %s: %s\n", mt_progname, cmd[0], strerror(e));
	_exit(e == ENOENT ? 127 : 126);
}

/*
 * The spawned child runs its command, or ends without; *exec_errno is 0
 * once it has exec'd, or why it could not (told through the socket, which
 * the exec closes).
 */
static void
run_spawned(int go_fd, int run, int *exec_errno)
{
	ssize_t n;
	int e;

	*exec_errno = 0;
	if (run && send(go_fd, "y", 1, MSG_NOSIGNAL) == 1) {
		while ((n = read(go_fd, &e, sizeof(e))) < 0 && errno == EINTR)
			;
		if (n == (ssize_t)sizeof(e))
			*exec_errno = e;
	}
	close(go_fd);
}

static void comment(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
write_header(void)
{
	struct mt_event ev;
	struct timespec t;
	char host[256], line[512];

	clock_gettime(CLOCK_REALTIME, &t);
	if (gethostname(host, sizeof(host)) != 0)
		strcpy(host, "-");
	host[sizeof(host) - 1] = '\0';
	memset(&ev, 0, sizeof(ev));
	ev.type = MT_COMMENT;
	ev.s1.s = line;
	ev.s1.len = (size_t)snprintf(line, sizeof(line),
	    "#mt-events\t%d\tstart=%llu\thost=%s\tresolution=%llu", MT_EVENTS_VERSION,
	    (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec,
	    host, (unsigned long long)time_unit);
	put(&ev);
	if (kernel_mode)
		return;
	if (tsc_on)
		comment("# mt-record: times from the TSC, %.3f MHz against CLOCK_MONOTONIC",
		    (double)((unsigned __int128)1000 << 32) / (double)tsc_mult);
	else
		comment("# mt-record: times from CLOCK_MONOTONIC");
	/* On disk at once: a recorder killed now leaves a trace, not 0 bytes. */
	if (!circular)
		trace_flush(writer);
}

static void
comment(const char *fmt, ...)
{
	struct mt_event ev;
	char line[512];
	va_list ap;

	memset(&ev, 0, sizeof(ev));
	ev.type = MT_COMMENT;
	va_start(ap, fmt);
	ev.s1.len = (size_t)vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (ev.s1.len >= sizeof(line))
		ev.s1.len = sizeof(line) - 1;
	ev.s1.s = line;
	put(&ev);
}

/* A comment in the trace that standard error says too. */
static void
comment_and_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
comment_and_say(const char *fmt, ...)
{
	char line[480];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	comment("# mt-record: %s", line);
	fprintf(stderr, "%s: %s\n", mt_progname, line);
}

/*
 * The socket's path twin (see MT_SOCKET_DIR), made with the abstract
 * name once that is ours: -1 when it cannot be (a name taken, /tmp
 * read-only), and processes in a network namespace of their own then
 * go untraced, as they did.
 */
static char path_sock[128];

static void
unlink_path(void)
{
	if (path_sock[0])
		unlink(path_sock);
	path_sock[0] = '\0';
}

static int
listen_path(const char *name)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s%s", MT_SOCKET_DIR, name);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 128) < 0) {
		close(fd);
		return -1;
	}
	strcpy(path_sock, sa.sun_path);
	atexit(unlink_path);
	return fd;
}

static int
listen_socket(char *name, size_t cap)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	unsigned rnd;
	int fd, tries;

	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	for (tries = 0; tries < 16; tries++) {
		rnd = (unsigned)(clock_ns() ^ (uint64_t)getpid() << 16) * 2654435761u;
		/* The pid comes last: the library checks we are alive by it. */
		snprintf(name, cap, "mt-record-%08x-%d", rnd + (unsigned)tries, (int)getpid());
		memset(sa.sun_path, 0, sizeof(sa.sun_path));
		memcpy(sa.sun_path + 1, name, strlen(name));
		if (bind(fd, (struct sockaddr *)&sa,
		    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name))) == 0 &&
		    listen(fd, 128) == 0)
			return fd;
	}
	close(fd);
	return -1;
}

static int children_left;

static void
reap(void)
{
	pid_t pid;
	int st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		if (pid == root_pid) {
			root_status = st;
			forward_to = 0;
		}
		add_exit(&reaped_q, pid, st, now_rel());
	}
	/*
	 * We are the subreaper: every descendant still alive whose parent
	 * has gone is our child.  A daemon that closed its connection may
	 * still connect again.
	 */
	children_left = pid == 0;
}

/*
 * Whether pid is a descendant of ours: 1, 0, or -1 when it is gone.  We
 * are the subreaper, so an orphan of ours stays ours.
 */
static int
descendant_of(pid_t pid, pid_t self)
{
	char buf[512], *s;
	pid_t at;
	long ppid;
	int hops, tries;

	/* An ancestor gone while we walk: its children are ours now. */
	for (tries = 0; tries < 4; tries++) {
		for (at = pid, hops = 0; hops < 4096 && at > 1; hops++) {
			if (!(s = proc_stat(at, buf, sizeof(buf))) ||
			    sscanf(s, " %*c %ld", &ppid) != 1)
				break;
			if ((pid_t)ppid == self)
				return 1;
			at = (pid_t)ppid;
		}
		if (hops == 0 && at > 1)
			return -1;
		if (at <= 1 || hops == 4096)
			return 0;
	}
	return 0;
}

/*
 * Who may talk to us.  The socket's name is in /proc/net/unix for anyone
 * to read: a peer of another user is accepted only when it is alive and
 * our descendant (a program we run as root that dropped its privileges),
 * or the process we attached to (-p) or its descendant.
 * One of our own user is: it could do anything to us anyway, and the
 * process tree cannot vouch for it (a short process may have ended, and
 * its pid gone to another, before we get to it).
 */
static int
peer_ok(int fd)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0 || cr.pid <= 0)
		return 0;
	return cr.uid == getuid() || descendant_of(cr.pid, getpid()) == 1 ||
	    (attach_pid && (cr.pid == attach_pid || descendant_of(cr.pid, attach_pid) == 1));
}

static uint64_t refused;
static int spare_fd = -1;	/* given up to accept and close at our limit */

static void
accept_all(int lfd)
{
	int fd;

	if (lfd < 0)
		return;
	for (;;) {
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0 && (errno == EMFILE || errno == ENFILE) && spare_fd >= 0) {
			/*
			 * Out of descriptors: the one waiting is closed, or
			 * the socket stays readable and we spin; the process
			 * runs on untraced.
			 */
			close(spare_fd);
			if ((fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
				close(fd);
				refused++;
			}
			spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
			continue;
		}
		if (fd < 0)
			return;
		if (!peer_ok(fd)) {
			close(fd);
			refused++;
			continue;
		}
		add_proc(fd);
	}
}

static void
finish(void)
{
	struct rec *r;
	size_t i;
	struct table_counts c;

	merge(UINT64_MAX);
	release();
	merge(UINT64_MAX);
	for (i = 0; i < nprocs; i++) {
		struct proc *p = procs[i];
		if (!p->said_hello || p->exited || p->replaced)
			continue;
		if (p->runs_on) {
			comment("# mt-record: detached from pid %d: it runs on", (int)p->pid);
			continue;
		}
		/* Recording stopped first (a signal, -d): no exit, so its
		   memory is still live at the end, not freed here. */
		if (still_running(p->pid)) {
			comment("# mt-record: pid %d still ran when recording stopped", (int)p->pid);
			continue;
		}
		/* Neither we nor a traced parent reaped it. */
		r = queue_push(&p->ctl, last_emitted);
		r->kind = CTL_EXIT;
		r->pid = p->pid;
		r->status = -1;
		comment("# mt-record: pid %d ended without an exit status we could see", (int)p->pid);
	}
	for (i = 0; i < nprocs; i++) {
		struct proc *p = procs[i];
		if (p->bad) {
			r = queue_push(&p->ctl, last_emitted);
			r->kind = CTL_LOST;
			r->pid = p->pid;
			r->status = LOST_CORRUPT;
			r->size = p->bad;
		}
		if (p->future)
			comment("# mt-record: pid %d: %llu events carried a time later than when we read them: "
			    "given the time of the event before", (int)p->pid,
			    (unsigned long long)p->future);
	}
	if (refused) {
		comment("# mt-record: %llu connections refused: not from a process of ours",
		    (unsigned long long)refused);
		fprintf(stderr, "%s: %llu connections refused: not from a process of ours\n",
		    mt_progname, (unsigned long long)refused);
	}
	merge(UINT64_MAX);
	release();
	merge(UINT64_MAX);
	c = counts_gone;
	for (i = 0; i < nprocs; i++)
		add_counts(&c, &procs[i]->counts);
	if (c.full)
		comment("# mt-record: %llu events found the stack table full and have no stack",
		    (unsigned long long)c.full);
	if (c.shadow + c.libunwind + c.fp)
		comment("# mt-record: stacks taken by --unwind shadow in %llu processes, libunwind in %llu, fp in %llu",
		    (unsigned long long)c.shadow, (unsigned long long)c.libunwind,
		    (unsigned long long)c.fp);
	if (c.fallback)
		comment("# mt-record: --unwind shadow: %llu stacks unwound by libunwind (frames it cannot walk)",
		    (unsigned long long)c.fallback);
	if (unwind_check) {
		comment_and_say("--unwind check: %llu stacks compared with libunwind's, %llu differ",
		    (unsigned long long)c.checked, (unsigned long long)c.differ);
		if (c.remembered)
			comment("# mt-record: --unwind check: %llu of them from walks the shadow remembered",
			    (unsigned long long)c.remembered);
		if (c.unchecked)
			comment_and_say("--unwind check: %llu stacks not compared: a signal stopped the trampoline, which libunwind cannot walk",
			    (unsigned long long)c.unchecked);
	}
	if (late)
		comment("# mt-record: %llu events reached the recorder late and carry the time of the event before them",
		    (unsigned long long)late);
}

/* The end of the trace and the file; the bytes the file holds. */
static uint64_t
close_trace(int fd)
{
	struct stat st;
	uint64_t written;

	if (bound && !write_failed && (write_failed = bound_finish(bound)) != 0)
		fprintf(stderr, "%s: %s: %s\n", mt_progname, out_name, strerror(write_failed));
	if (!write_failed && (write_failed = trace_end(writer)) != 0)
		fprintf(stderr, "%s: %s: %s\n", mt_progname, out_name, strerror(write_failed));
	/* Circular frames go out past the writer: the file tells. */
	written = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size :
	    trace_writer_bytes(writer);
	if (fd != STDOUT_FILENO && close(fd) != 0 && !write_failed) {
		write_failed = errno;
		fprintf(stderr, "%s: %s: %s\n", mt_progname, out_name, strerror(errno));
	}
	return written;
}

static void
say_bound(void)
{
	if (bound && bound_lost(bound))
		fprintf(stderr, "%s: %llu events beyond --max-size %s, counted in lost records\n",
		    mt_progname, (unsigned long long)bound_lost(bound),
		    circular ? "dropped, the oldest first" : "not written");
}

/* Kernel recording: until the duration passes or a signal asks. */
static volatile sig_atomic_t stop_asked;

static void
on_stop(int sig)
{
	stop_asked = 1;
}

static void
put_kernel(struct mt_event *ev, void *arg)
{
	put(ev);
}

static int
parse_events(const char *s, unsigned *events)
{
	const char *e;
	size_t n;

	*events = 0;
	for (; *s; s = *e ? e + 1 : e) {
		e = s + strcspn(s, ",");
		n = (size_t)(e - s);
		if (n == 7 && !strncmp(s, "kmalloc", n))
			*events |= KT_KMALLOC;
		else if (n == 5 && !strncmp(s, "cache", n))
			*events |= KT_CACHE;
		else if (n == 4 && !strncmp(s, "page", n))
			*events |= KT_PAGE;
		else
			return -1;
	}
	return *events ? 0 : -1;
}

static int
record_kernel(const char *output, struct ktrace_opts *ko, uint64_t duration)
{
	struct sigaction sa;
	struct mt_event ev;
	struct ktrace *k;
	struct pollfd pfd;
	char err[600], name[64];
	uint64_t t, last_flush = 0, written;
	int fd, created;

	if (output && strcmp(output, "-") == 0) {
		fd = STDOUT_FILENO;
		out_name = "<stdout>";
	} else {
		if (!output) {
			snprintf(name, sizeof(name), "mt.kernel.%d.mtr", (int)getpid());
			output = name;
		}
		fd = open_trace(output, output == name, &created);
		out_name = output;
	}
	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s\n", mt_progname, output, open_error(errno));
		return 2;
	}
	kernel_mode = 1;
	if (!ko->events)
		ko->events = KT_KMALLOC | KT_CACHE;
	start_ns = clock_ns();
	ko->start_ns = start_ns;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (!(k = ktrace_open(ko, err, sizeof(err)))) {
		fprintf(stderr, "%s: %s\n", mt_progname, err);
		if (fd != STDOUT_FILENO) {
			close(fd);
			unlink(output);
		}
		return 2;
	}
	writer = trace_writer_new(fd, 3);
	trace_writer_time_unit(writer, time_unit);
	if (max_size)
		bound = bound_new(writer, fd, max_size, circular);
	write_header();
	comment("# mt-record: kernel allocations:%s%s%s, page order >= %d, %s",
	    ko->events & KT_KMALLOC ? " kmalloc" : "", ko->events & KT_CACHE ? " cache" : "",
	    ko->events & KT_PAGE ? " page" : "", ko->min_order,
	    ko->stacks ? "kernel stacks" : "call sites");
	/* The kernel is one process: pid 0, the allocating task its thread. */
	memset(&ev, 0, sizeof(ev));
	ev.type = MT_PROC;
	ev.s1 = (struct mt_str){ "[kernel]", 8 };
	ev.s2 = (struct mt_str){ "[kernel]", 8 };
	put(&ev);
	pfd = (struct pollfd){ .fd = ktrace_fd(k), .events = POLLIN };
	while (!stop_asked) {
		t = now_rel();
		if (duration && t >= duration)
			break;
		if (!ktrace_read(k, put_kernel, NULL))
			poll(&pfd, 1, 50);
		if (t - last_flush > FLUSH_NS) {
			flush_trace();
			last_flush = t;
		}
	}
	ktrace_close(k, put_kernel, NULL);
	if (ktrace_unresolved(k))
		comment("# mt-record: %llu call sites not in /proc/kallsyms have no stack",
		    (unsigned long long)ktrace_unresolved(k));
	written = close_trace(fd);
	fprintf(stderr, "%s: %llu kernel events, %llu bytes written to %s%s\n", mt_progname,
	    (unsigned long long)trace_writer_events(writer), (unsigned long long)written,
	    out_name, write_failed ? " (incomplete)" : "");
	if (ktrace_lost(k))
		fprintf(stderr, "%s: %llu events lost: the kernel's buffer overran\n",
		    mt_progname, (unsigned long long)ktrace_lost(k));
	ktrace_free(k);
	say_bound();
	return write_failed ? 1 : 0;
}

/*
 * Polls the listening sockets (pfds[0], pfds[1]) and every process's
 * connection (pfds[2 + i] for procs[i]; a closed one is ignored by
 * poll); the number of processes polled.
 */
static struct pollfd *pfds;
static size_t pfdcap;

static size_t
poll_all(int lfd, int pfd_path, int timeout)
{
	size_t i;

	if (pfdcap < nprocs + 2) {
		pfdcap = (nprocs + 2) * 2;
		pfds = erealloc(pfds, pfdcap * sizeof(*pfds));
	}
	pfds[0] = (struct pollfd){ .fd = lfd, .events = POLLIN };
	pfds[1] = (struct pollfd){ .fd = pfd_path, .events = POLLIN };
	for (i = 0; i < nprocs; i++)
		pfds[2 + i] = (struct pollfd){ .fd = procs[i]->fd, .events = POLLIN };
	if (poll(pfds, nprocs + 2, timeout) < 0)
		for (i = 0; i < nprocs + 2; i++)
			pfds[i].revents = POLLIN;	/* interrupted: all read, as they were */
	return nprocs;
}

/*
 * Listening, our signals and descriptors, and the trace's file when
 * named: its descriptor, -1 when not named (open_default's), -2 on
 * trouble, said.
 */
static int
start_collector(char *sockname, size_t cap, const char *output, int *lfd, int *pfd_path,
    int *created)
{
	struct sigaction sa;
	size_t i;
	int fd;

	start_ns = clock_ns();
	if ((*lfd = listen_socket(sockname, cap)) >= 0)
		*pfd_path = listen_path(sockname);
	if (*lfd < 0) {
		fprintf(stderr, "%s: socket: %s\n", mt_progname, strerror(errno));
		return -2;
	}
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	for (i = 0; i < sizeof(passed_signals) / sizeof(passed_signals[0]); i++)
		sigaction(passed_signals[i], NULL, &given[i]);
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sa.sa_sigaction = on_sigint;
	sigaction(SIGINT, &sa, NULL);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	/*
	 * Descriptors: as many as we may, one a traced process image; the
	 * command gets the limit it would have had.
	 */
	if (getrlimit(RLIMIT_NOFILE, &nofile) == 0) {
		struct rlimit more = { nofile.rlim_max, nofile.rlim_max };
		setrlimit(RLIMIT_NOFILE, &more);
	}
	spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (output && strcmp(output, "-") == 0) {
		fd = STDOUT_FILENO;
		out_name = "<stdout>";
	} else if (output) {
		fd = open_trace(output, 0, created);
		out_name = output;
	} else {
		return -1;
	}
	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s\n", mt_progname, output, open_error(errno));
		unlink_path();
		return -2;
	}
	return fd;
}

/* The default trace, mt.BASE.PID.mtr, made anew; -1 when it cannot be, said. */
static int
open_default(const char *base, pid_t pid, char **defname, int *created)
{
	int fd;

	*defname = emalloc(strlen(base) + 32);
	sprintf(*defname, "mt.%s.%d.mtr", base, (int)pid);
	out_name = *defname;
	if ((fd = open_trace(*defname, 1, created)) < 0)
		fprintf(stderr, "%s: %s: %s\n", mt_progname, *defname, open_error(errno));
	return fd;
}

static void
start_writer(int fd)
{
	writer = trace_writer_new(fd, 3);
	trace_writer_time_unit(writer, time_unit);
	if (max_size)
		bound = bound_new(writer, fd, max_size, circular);
	write_header();
}

/*
 * One pass of the collector at time t: connections, control messages,
 * the rings up to the watermark, the merge.  Whether more waits.
 */
static int
collect_pass(int lfd, int pfd_path, uint64_t t, uint64_t *last_flush)
{
	/* The watermark is taken before anything is read: see the top. */
	uint64_t w = t > SLACK_NS ? t - SLACK_NS : 0;
	size_t npolled, i;
	int busy = 0, n;

	reap();
	/*
	 * What has something to read, asked once: an accept4 that finds
	 * nothing still makes a socket and throws it away, and with a
	 * recvmsg per process, they were a sixth of our time.
	 */
	npolled = poll_all(lfd, pfd_path, 0);
	if (pfds[0].revents)
		accept_all(lfd);
	if (pfds[1].revents)
		accept_all(pfd_path);
	for (i = 0; i < nprocs; i++) {
		struct proc *p = procs[i];
		if (p->fd < 0 || (i < npolled && !pfds[2 + i].revents))
			continue;	/* nothing to read (one accepted since is read) */
		if (!(n = read_control(p))) {
			close(p->fd);
			p->fd = -1;
			p->gone_at = now_rel();
		}
		busy |= n == 2;
	}
	w = drain_limit(w);
	n = pending() < PENDING_MAX;
	for (i = 0; i < nrings; i++)
		busy |= drain(rings[i], w, n);
	merge(w);
	release();
	if (t - *last_flush > FLUSH_NS) {
		flush_trace();
		*last_flush = t;
	}
	return busy;
}

/* Nothing done in a pass: a wait for something to read, longer when idle. */
static void
rest(int lfd, int pfd_path, uint64_t t, int busy, uint64_t *last_busy)
{
	if (busy)
		*last_busy = t;
	else
		poll_all(lfd, pfd_path, t - *last_busy < 100000000u ? 1 : 10);
}

/* The end: every connection read to its end, every ring emptied. */
static void
read_all(void)
{
	size_t i;

	for (i = 0; i < nprocs; i++)
		if (procs[i]->fd >= 0) {
			while (read_control(procs[i]) == 2)
				;
			close(procs[i]->fd);
			procs[i]->fd = -1;
		}
	for (i = 0; i < nrings; i++)
		while (drain(rings[i], UINT64_MAX, 1))
			;
}

/* The trace ended and closed, and said. */
static void
end_trace(int fd, char *defname)
{
	uint64_t written;

	unlink_path();
	finish();
	written = close_trace(fd);
	fprintf(stderr, "%s: %llu events, %llu processes, %llu bytes written to %s%s\n",
	    mt_progname, (unsigned long long)trace_writer_events(writer),
	    (unsigned long long)nprocs_traced,
	    (unsigned long long)written, out_name,
	    write_failed ? " (incomplete)" : "");
	if (dropped)
		fprintf(stderr, "%s: %llu events were not written\n", mt_progname,
		    (unsigned long long)dropped);
	if (lost)
		fprintf(stderr, "%s: %llu events lost: the trace's lost lines say where\n",
		    mt_progname, (unsigned long long)lost);
	say_bound();
	if (bound)
		bound_free(bound);
	trace_writer_free(writer);
	free(defname);
	free(pfds);
}

/* Attached (-p): whether every process we record has ended. */
static int
all_gone(void)
{
	size_t i;

	for (i = 0; i < nprocs; i++)
		if (procs[i]->said_hello && !procs[i]->replaced && !procs[i]->exited &&
		    proc_alive(procs[i]->pid))
			return 0;
	return 1;
}

/* Tells every attached process to stop; whether all have. */
static int
detach_all(int tell)
{
	int all = 1;
	size_t i;

	for (i = 0; i < nprocs; i++) {
		struct proc *p = procs[i];
		if (!p->head)
			continue;
		if (tell) {
			__atomic_store_n(&p->head->detach, 1, __ATOMIC_RELEASE);
			p->runs_on = !p->exited && !p->replaced && proc_alive(p->pid);
		}
		if (p->runs_on && !__atomic_load_n(&p->head->detached, __ATOMIC_ACQUIRE) &&
		    proc_alive(p->pid))
			all = 0;
	}
	return all;
}

#define ATTACH_WAIT_NS	10000000000ull	/* for the library to say hello */
#define DETACH_WAIT_NS	300000000u	/* for the processes to say they stopped */

/*
 * mt-record -p: the library loaded into pid (lib/inject.c), then the
 * collector as for a command, until the duration, a SIGINT or SIGTERM,
 * or the end of every process recorded; then each is told to stop (its
 * GOT put back as it was), and runs on.
 */
static int
attach(pid_t pid, const char *output, const char *lib, const char *flags, uint64_t duration)
{
	char sockname[96], args[160], why[512], comm[64] = "", path[64], *defname = NULL, *nl;
	uint64_t t, last_flush = 0, last_busy = 0, last_look = 0, attached_at, detached_at = 0;
	int lfd, pfd_path = -1, fd, created = 0, busy, seen = 0, n, failed = 0;
	size_t alen;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if ((f = fopen(path, "re"))) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		fclose(f);
	} else {
		fprintf(stderr, "%s: pid %d: no such process\n", mt_progname, (int)pid);
		return 2;
	}
	if ((nl = strchr(comm, '\n')))
		*nl = '\0';
	for (nl = comm; *nl; nl++)
		if (*nl == '/' || *nl == ' ')
			*nl = '_';
	if ((fd = start_collector(sockname, sizeof(sockname), output, &lfd, &pfd_path,
	    &created)) < -1)
		return 2;
	if (fd < 0 &&
	    (fd = open_default(comm[0] ? comm : "process", pid, &defname, &created)) < 0) {
		unlink_path();
		free(defname);
		return 2;
	}
	root_pid = pid;
	read_befores(pid);
	/* The library's start(): the socket, the depth, the flags, each ended by a NUL. */
	n = snprintf(args, sizeof(args), "%s%c%d%c%s", sockname, 0, depth, 0, flags);
	alen = (size_t)n + 1;
	if (mt_inject(pid, lib, args, alen, why, sizeof(why)) < 0) {
		fprintf(stderr, "%s: pid %d: %s\n", mt_progname, (int)pid, why);
		unlink_path();
		if (created)
			unlink(out_name);
		if (fd != STDOUT_FILENO)
			close(fd);
		free(defname);
		return 2;
	}
	start_writer(fd);
	attached_at = now_rel();
	comment("# mt-record: attached to pid %d (%s) at %llu: what it allocated before is "
	    "not seen, and frees of it are of blocks from before recording",
	    (int)pid, comm, (unsigned long long)attached_at);
	for (;;) {
		t = now_rel();
		busy = collect_pass(lfd, pfd_path, t, &last_flush);
		if (!seen && proc_by_pid(pid) && proc_by_pid(pid)->said_hello)
			seen = 1;
		if (!seen && t - attached_at > ATTACH_WAIT_NS) {
			fprintf(stderr, "%s: pid %d: the library did not start in %llu s "
			    "(dlopen failed: can its user reach %s through every directory? "
			    "or the thread never left the call it was in)\n",
			    mt_progname, (int)pid, (unsigned long long)(ATTACH_WAIT_NS / 1000000000u), lib);
			failed = 1;
			break;
		}
		if (!detached_at && (stop_signal || (duration && t - attached_at >= duration) ||
		    (t - last_look > 100000000u && (last_look = t, seen) && all_gone()))) {
			detach_all(1);
			detached_at = t;
		}
		if (detached_at && (t - detached_at > DETACH_WAIT_NS || detach_all(0))) {
			read_all();
			break;
		}
		rest(lfd, pfd_path, t, busy, &last_busy);
	}
	end_trace(fd, defname);
	if (failed)
		return 2;
	if (stop_signal)
		fprintf(stderr, "%s: stopped by %s: detached, pid %d runs on\n", mt_progname,
		    strsignal(stop_signal), (int)pid);
	return 0;
}
int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "depth", required_argument, NULL, 'D' },
		{ "free-stacks", no_argument, NULL, 'F' },
		{ "no-follow", no_argument, NULL, 'n' },
		{ "max-size", required_argument, NULL, 'm' },
		{ "circular", no_argument, NULL, 'c' },
		{ "kernel", no_argument, NULL, 'k' },
		{ "events", required_argument, NULL, 'e' },
		{ "min-order", required_argument, NULL, 'O' },
		{ "stacks", no_argument, NULL, 'S' },
		{ "duration", required_argument, NULL, 'd' },
		{ "unwind", required_argument, NULL, 'U' },
		{ "time-resolution", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	char sockname[96], flags[8] = "", *lib, *cmdpath, *end, *defname = NULL;
	static char libpath[PATH_MAX];
	const char *output = NULL;
	struct stat st;
	uint64_t last_flush = 0, last_busy = 0, t, duration = 0;
	struct ktrace_opts ko = { .min_order = 1 };
	int kernel = 0;
	char unwind = UNWIND_DEFAULT;
	int ch, lfd, fd, no_follow = 0, busy, status, e, created = 0, pfd_path = -1, go_fd;
	long v;

	mt_setprogname(argv[0]);
	while ((ch = getopt_long(argc, argv, "+cd:D:e:FhkSm:nO:o:p:s:V", longopts, NULL)) != -1) {
		switch (ch) {
		case 'k':
			kernel = 1;
			break;
		case 'e':
			if (parse_events(optarg, &ko.events) < 0) {
				fprintf(stderr, "%s: bad events '%s' (kmalloc, cache, page)\n",
				    mt_progname, mt_shown(mt_shown(optarg, strlen(optarg)), strlen(optarg)));
				return 2;
			}
			break;
		case 'O':
			v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < 0 || v > 20) {
				fprintf(stderr, "%s: bad order '%s' (0 to 20)\n", mt_progname, mt_shown(mt_shown(optarg, strlen(optarg)), strlen(optarg)));
				return 2;
			}
			ko.min_order = (int)v;
			break;
		case 'S':
			ko.stacks = 1;
			break;
		case 'd':
			duration = eduration("--duration", optarg, 0);
			break;
		case 'm':
			if (parse_size(optarg, &max_size) < 0 || max_size < 65536) {
				fprintf(stderr, "%s: bad size '%s' (64K or more)\n", mt_progname, mt_shown(mt_shown(optarg, strlen(optarg)), strlen(optarg)));
				return 2;
			}
			break;
		case 'c':
			circular = 1;
			break;
		case 'o':
			output = optarg;
			break;
		case 'p':
			v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v <= 0 || v > INT_MAX) {
				fprintf(stderr, "%s: bad pid '%s'\n", mt_progname,
				    mt_shown(optarg, strlen(optarg)));
				return 2;
			}
			attach_pid = (pid_t)v;
			break;
		case 'D':
		case 's':
			v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < 0 || v > 1024) {
				fprintf(stderr, "%s: bad depth '%s' (0 to 1024)\n", mt_progname, mt_shown(mt_shown(optarg, strlen(optarg)), strlen(optarg)));
				return 2;
			}
			depth = (int)v;
			break;
		case 'F':
			free_stacks = 1;
			break;
		case 'U':
			if (!strcmp(optarg, "shadow") || !strcmp(optarg, "check"))
				unwind = 's';
			else if (!strcmp(optarg, "fp"))
				unwind = 'p';
			else if (!strcmp(optarg, "libunwind"))
				unwind = 'l';
			else {
				fprintf(stderr, "%s: bad unwinder '%s' (libunwind, shadow, fp, check)\n",
				    mt_progname, mt_shown(optarg, strlen(optarg)));
				return 2;
			}
			unwind_check = !strcmp(optarg, "check");
			break;
		case 'T':
			time_unit = eduration("--time-resolution", optarg, 0);
			if (time_unit > 1000000000u) {
				fprintf(stderr, "%s: --time-resolution '%s' is more than 1s\n",
				    mt_progname, mt_shown(optarg, strlen(optarg)));
				return 2;
			}
			break;
		case 'n':
			no_follow = 1;
			break;
		case 'h':
			mt_usage(1, synopsis, options);
		case 'V':
			mt_version();
		default:
			mt_usage(0, synopsis, options);
		}
	}
	argc -= optind;
	argv += optind;
	if (circular && !max_size) {
		fprintf(stderr, "%s: --circular needs --max-size\n", mt_progname);
		return 2;
	}
	if (kernel) {
		if (argc > 0) {
			fprintf(stderr, "%s: --kernel records the kernel, not a command\n",
			    mt_progname);
			return 2;
		}
		if (attach_pid) {
			fprintf(stderr, "%s: --kernel records the kernel, not a process\n",
			    mt_progname);
			return 2;
		}
		return record_kernel(output, &ko, duration);
	}
	if (attach_pid && argc > 0) {
		fprintf(stderr, "%s: -p attaches to a process: no command with it\n", mt_progname);
		return 2;
	}
	if ((argc == 0 && !attach_pid) || (duration && !attach_pid) || ko.events ||
	    ko.stacks || ko.min_order != 1)
		mt_usage(0, synopsis, options);
	/*
	 * One place a flag, '-' when off: the same length whatever is asked
	 * (python copies its environment, and a string of 2 characters is
	 * an allocation where one of 1 is not: the counts of a program
	 * would depend on the options).
	 */
	tsc_start();
	flags[0] = free_stacks ? 'f' : '-';
	flags[1] = no_follow ? 'n' : '-';
	flags[2] = unwind != 'l' ? unwind : '-';
	flags[3] = unwind_check ? 'c' : '-';
	flags[4] = tsc_on ? 't' : '-';
	flags[5] = '\0';

	if (!(lib = find_library())) {
		fprintf(stderr, "%s: cannot find libmt-preload.so (set MT_PRELOAD)\n", mt_progname);
		return 2;
	}
	/* Kept where no early return leaves it allocated. */
	snprintf(libpath, sizeof(libpath), "%s", lib);
	free(lib);
	lib = libpath;
	/* As a shell says it, before anything is made: no trace of nothing. */
	if (attach_pid)
		return attach(attach_pid, output, lib, flags, duration);
	if (!(cmdpath = find_command(argv[0])) || stat(cmdpath, &st) < 0) {
		fprintf(stderr, "%s: %s: command not found\n", mt_progname, argv[0]);
		free(cmdpath);
		return 127;
	}
	if (S_ISDIR(st.st_mode) || access(cmdpath, X_OK) < 0) {
		fprintf(stderr, "%s: %s: %s\n", mt_progname, argv[0],
		    strerror(S_ISDIR(st.st_mode) ? EISDIR : errno));
		free(cmdpath);
		return 126;
	}
	if ((((st.st_mode & S_ISUID) && st.st_uid != geteuid()) ||
	    ((st.st_mode & S_ISGID) && st.st_gid != getegid())))
		fprintf(stderr, "%s: %s is set-user-ID or set-group-ID: the dynamic "
		    "linker ignores LD_PRELOAD for it, so it is not traced\n",
		    mt_progname, cmdpath);
	free(cmdpath);

	if ((fd = start_collector(sockname, sizeof(sockname), output, &lfd, &pfd_path,
	    &created)) < -1)
		return 2;
	if (fd >= 0)
		start_writer(fd);
	root_pid = forward_to = spawn(argv, lib, sockname, flags, fd == STDOUT_FILENO, &go_fd);
	if (root_pid < 0) {
		fprintf(stderr, "%s: fork: %s\n", mt_progname, strerror(errno));
		return 2;
	}
	if (fd < 0 && (fd = open_default(strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 :
	    argv[0], root_pid, &defname, &created)) < 0) {
		/* As a named trace that cannot be made: the command is not run. */
		run_spawned(go_fd, 0, &e);
		while (waitpid(root_pid, &status, 0) < 0 && errno == EINTR)
			;
		unlink_path();
		free(defname);
		return 2;
	}
	/* The header on disk before the command runs. */
	if (!writer)
		start_writer(fd);
	run_spawned(go_fd, 1, &e);
	if (e) {
		/* Found, yet not run: a bad interpreter, a wrong format. */
		fprintf(stderr, "%s: %s: %s\n", mt_progname, argv[0], strerror(e));
		if (created)
			unlink(out_name);
		free(defname);
		while (waitpid(root_pid, &status, 0) < 0 && errno == EINTR)
			;
		return e == ENOENT ? 127 : 126;
	}

	for (;;) {
		if (stop_signal)
			break;
		t = now_rel();
		busy = collect_pass(lfd, pfd_path, t, &last_flush);
		if (root_status != -1 && !children_left) {
			/*
			 * Nothing of ours runs any more (every living
			 * descendant would be a child of ours, the subreaper):
			 * what they sent is all there is, whoever still holds
			 * a connection or a ring.
			 */
			read_all();
			break;
		}
		rest(lfd, pfd_path, t, busy, &last_busy);
	}
	/* Counted, not looked up: the record of a process that has ended is let go of. */
	if (!nprocs_traced)
		fprintf(stderr, "%s: %s was not traced: LD_PRELOAD had no effect on it "
		    "(a static or set-user-ID program?)\n", mt_progname, argv[0]);
	end_trace(fd, defname);
	if (stop_signal) {
		fprintf(stderr, "%s: stopped by %s%s\n", mt_progname, strsignal(stop_signal),
		    root_status == -1 ? ": the command runs on, untraced" : "");
		die_of(stop_signal);
	}
	status = root_status;
	if (WIFSIGNALED(status))
		die_of(WTERMSIG(status));
	return WEXITSTATUS(status);
}
