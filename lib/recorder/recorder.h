/*
 * recorder: mt-record's collector.  It accepts the connections of traced
 * processes, reads their control messages and rings (nothing of which it
 * trusts), and writes their events to one trace in time order.
 */
#ifndef MT_RECORDER_H
#define MT_RECORDER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct trace_writer;
struct mt_event;

/*
 * Times to 100 ns, as Windows' own traces have them (QueryPerformanceCounter
 * at 10 MHz): finer times cost bytes an event that few would read.
 */
#define TIME_UNIT_DEFAULT	100
/*
 * zstd's level for the trace: higher ones find more of the repeats in
 * the time deltas, but the collector then costs the traced program time.
 */
#define RECORD_LEVEL	3
#define SLACK_NS	10000000u	/* the watermark trails the clock by this */
#define FLUSH_NS	1000000000u	/* a frame at least this often */

/* What the command asked of the recording. */
struct record_opts {
	uint64_t time_unit;	/* times rounded down to a multiple of it */
	uint64_t max_size;	/* --max-size, or 0 */
	int circular;		/* --circular */
	int free_stacks;	/* a stack for every free */
	int unwind_check;	/* --unwind check */
	int kernel;		/* --kernel */
	pid_t attach_pid;	/* -p, or 0 */
};

struct recorder;

/*
 * A call of the mmap family made by a process recorded from outside it
 * (--uprobes), as a tracepoint saw it: its commits and decommits are
 * written as the preload library's records of the same call are.
 */
enum { MT_CALL_MMAP = 1, MT_CALL_MUNMAP, MT_CALL_MREMAP, MT_CALL_MPROTECT, MT_CALL_BRK };
struct mt_map_call {
	uint64_t ts;		/* since time 0 */
	uint64_t stack;		/* the trace's stack id, or 0 */
	pid_t pid, tid;
	int call, prot, flags;	/* MT_CALL_*; mmap's and mprotect's arguments */
	uint64_t addr, len;	/* the range made or changed; brk: its new end in addr */
	uint64_t old_addr, old_len;	/* mremap's old range; brk: its old end in old_addr */
};

struct recorder *recorder_new(const struct record_opts *o);
void recorder_free(struct recorder *rc);
/* Every process and ring let go of, as before the first connection. */
void recorder_reset(struct recorder *rc);
/* The clock calibrated against the TSC where it can be; whether it is. */
int recorder_clock_start(struct recorder *rc);
/* Time 0 of the trace is now; it, as the clock says it. */
uint64_t recorder_begin(struct recorder *rc);
uint64_t recorder_now(struct recorder *rc);	/* since time 0 */

/* The trace: its name for messages; its writer, made (and a header
   written) by recorder_open, or given (nothing written), the recorder's
   to free either way; the end. */
void recorder_set_name(struct recorder *rc, const char *name);
void recorder_open(struct recorder *rc, int fd);
void recorder_set_writer(struct recorder *rc, struct trace_writer *w);
void recorder_put(struct recorder *rc, struct mt_event *ev);
/* A proc line: args as /proc/PID/cmdline has them (each ended by a NUL),
   written as a shell would read them back. */
void recorder_put_proc(struct recorder *rc, uint64_t ts, pid_t pid, pid_t ppid, const char *exe,
    const char *args, size_t n);
void recorder_comment(struct recorder *rc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void recorder_flush(struct recorder *rc);
uint64_t recorder_close(struct recorder *rc, int fd);	/* the bytes written */
void recorder_say_bound(struct recorder *rc);
uint64_t recorder_events(const struct recorder *rc);
int recorder_failed(const struct recorder *rc);	/* errno of a write that failed */
/* What was written, said: events, processes (RECORDER_KERNEL: the
   kernel's events), bytes and where. */
#define RECORDER_KERNEL UINT64_MAX
void recorder_say_written(struct recorder *rc, uint64_t nprocs, uint64_t written);
/* The end: the summary, the trace closed, and what was written said. */
void recorder_end(struct recorder *rc, int fd);

/* Connections: the socket named (abstract) name; those waiting on lfd;
   one given. */
int recorder_listen(struct recorder *rc, char *name, size_t cap);
void recorder_keep_spare(struct recorder *rc);
void recorder_accept(struct recorder *rc, int lfd);
void recorder_add_peer(struct recorder *rc, int fd);
size_t recorder_npeers(const struct recorder *rc);
/* Reads what peer i has sent: 0 at the end of its connection, 1 when it
   sent nothing more, 2 when more waits, -1 when it is closed; closes it. */
int recorder_read_peer(struct recorder *rc, size_t i);
void recorder_close_peer(struct recorder *rc, size_t i);

/* Rings, the merge, and letting go. */
size_t recorder_nrings(const struct recorder *rc);
uint64_t recorder_drain_limit(struct recorder *rc, uint64_t w);
int recorder_drain(struct recorder *rc, size_t i, uint64_t w, int newer);
void recorder_merge(struct recorder *rc, uint64_t w);
void recorder_release(struct recorder *rc);
void recorder_finish(struct recorder *rc);

/* The collector's loop: a pass at time t, whether more waits; a wait. */
int recorder_pass(struct recorder *rc, int lfd, int pfd_path, uint64_t t,
    uint64_t *last_flush);
void recorder_rest(struct recorder *rc, int lfd, int pfd_path, uint64_t t, int busy,
    uint64_t *last_busy);
void recorder_read_all(struct recorder *rc);

/* The process the command is: its status once reaped (-1 before), and
   *forward_to made 0 then. */
void recorder_set_root(struct recorder *rc, pid_t pid, pid_t *forward_to);
int recorder_root_status(const struct recorder *rc);
int recorder_children_left(const struct recorder *rc);
uint64_t recorder_traced(const struct recorder *rc);	/* process images */

/* Attached (-p): the mappings from before; whether pid said hello; whether
   every process recorded has ended; tell them to stop, whether all have. */
void recorder_read_befores(struct recorder *rc, pid_t pid);
void recorder_map_call(struct recorder *rc, const struct mt_map_call *c);
/*
 * Processes recorded from outside (--uprobes), in the recorder's table:
 * pid recorded from now, data its source's (a pid used again: the old
 * process ended); pid's data, NULL if not recorded; the data of the i-th
 * process of the table (NULL for one of no source's), of how many; the
 * data forgotten (the source has let go of it).
 */
void recorder_outside_add(struct recorder *rc, pid_t pid, void *data);
void *recorder_outside_data(struct recorder *rc, pid_t pid);
void *recorder_data_at(const struct recorder *rc, size_t i);
size_t recorder_nprocs(const struct recorder *rc);
void recorder_outside_forget(struct recorder *rc);
/* pid forked by ppid at `at' (since time 0): its mappings are its parent's as of then. */
void recorder_fork_outside(struct recorder *rc, pid_t pid, pid_t ppid, uint64_t at);
/* pid runs a new program: its mappings are gone (its data kept). */
void recorder_exec_outside(struct recorder *rc, pid_t pid);
/* --uprobes -p: the mappings read by recorder_read_befores, as pid's, with no time. */
void recorder_put_befores(struct recorder *rc, pid_t pid, uint64_t ts);
/* The lines of a process recorded from outside: a map line (off, the
   file offset of lo; path escaped as the format says); its end (a wait
   status, or -1 when not known), said once; the id of a stack, its stack
   line written the first time. */
void recorder_put_map(struct recorder *rc, uint64_t ts, pid_t pid, uint64_t lo, uint64_t hi,
    uint64_t off, const char *path);
void recorder_put_exit(struct recorder *rc, uint64_t ts, pid_t pid, int status);
uint64_t recorder_stack(struct recorder *rc, const uint64_t *ips, size_t n);
int recorder_said_hello(struct recorder *rc, pid_t pid);
int recorder_all_gone(struct recorder *rc);
int recorder_detach_all(struct recorder *rc, int tell);

#endif
