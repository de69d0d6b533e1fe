/*
 * The state libmt-preload.so's files share: the thread's ring and flags,
 * the options, the connection to mt-record, and the functions one file
 * calls in another.  Everything here is hidden: only the interposed
 * functions, marked EXPORT, are the library's interface.
 *
 * The rules the library lives by:
 * - never call malloc on the event path, never take a lock there, never
 *   block but when a ring is full (the recorder is behind);
 * - the time of an allocation is taken after the allocator returned and
 *   the time of a free before the memory goes back, and both events are
 *   published before the caller can see the result, so a free never
 *   looks older than its allocation, even across threads and when an
 *   address is reused at once;
 * - anything this library itself allocates is not recorded (busy flag),
 *   and an allocation by a signal handler that interrupts the recorder
 *   is kept in a small side buffer and recorded after, without a stack;
 * - if the recorder goes away, the program runs on untraced.
 */
#ifndef MT_PRELOAD_H
#define MT_PRELOAD_H

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "proto.h"

#define EXPORT __attribute__((visibility("default")))

/* The next definition of name (the one we interpose), found once. */
#define RESOLVE(var, name) do { if (!(var)) \
	*(void **)&(var) = dlsym(RTLD_NEXT, name); } while (0)

/* Not declared by glibc's headers any more, still called by old programs. */
void cfree(void *);
void *memalign(size_t, size_t);
void *pvalloc(size_t);

#pragma GCC visibility push(hidden)

#define MAX_DEPTH 1024
#define SKIP_FRAMES 2		/* record() and the interposed function */

struct thread_state {
	struct mt_ring *ring;
	uint64_t head;		/* our copy of ring->head */
	uint64_t tail;		/* the last ring->tail we read */
	volatile int busy;	/* inside record(): do not recurse (see record) */
	int dead;		/* the thread's ring is closed: events go late */
	int dtor_rounds;
	uintptr_t stack_lo, stack_hi;	/* --unwind fp: the thread's stack */
	unsigned nnested;
	/*
	 * The chunks' directory, mapped at the first nesting, not kept here:
	 * the thread-local block stays small enough for the static TLS a
	 * dlopen may take (attaching).
	 */
	struct mt_raw **nested;
};

extern __thread struct thread_state tls __attribute__((tls_model("initial-exec")));

/* The options, from the environment or mt-record -p's words (start.c). */
enum { UNWIND_LIBUNWIND, UNWIND_SHADOW, UNWIND_FP };
extern int depth, free_stacks, no_follow, unwind, unwind_check;
/* Times are TSC ticks, which the recorder turns into nanoseconds (see mt_tsc). */
extern int use_tsc;
extern int attached;		/* loaded by mt-record -p, not preloaded */
extern volatile int recording;
extern int init_state;		/* 0 not yet, 1 started */
extern pid_t recorder_pid;
extern pthread_key_t thread_key;

/* The process's stack table, shared with the recorder (start.c). */
extern struct mt_stack_table *table;
extern uint32_t table_epoch;	/* a new table, a new one: ids kept by the shadow's memo */
extern uint32_t stack_words;

/* libunwind's own, not the one unwinders.c interposes for the program. */
extern int (*libunwind_backtrace)(void **, int);
/* libunwind's code: its calls into our interposed entry points are ours. */
extern uintptr_t unwinder_lo, unwinder_hi;

/*
 * A page the kernel clears in a child at any fork (MADV_WIPEONFORK),
 * also one made by the raw clone system call, where no pthread_atfork
 * handler runs: a 0 there on the event path is a child still holding its
 * parent's ring, which both would write into.
 */
extern volatile int *fork_canary;

static inline uint64_t
now(void)
{
	struct timespec t;

	if (use_tsc)
		return mt_tsc();
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static inline void
count_lost(uint64_t n)
{
	if (table)
		__atomic_fetch_add(&table->lost, n, __ATOMIC_RELAXED);
}

/*
 * Around our own calls that may allocate (busy 2, not recorded): the
 * thread's signals held, so that a handler that allocates runs after,
 * its allocations the program's and recorded, not taken for ours.
 */
static inline void
own_begin(sigset_t *old)
{
	sigset_t all;

	sigfillset(&all);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, old, _NSIG / 8);
}

static inline void
own_end(const sigset_t *old)
{
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, old, NULL, _NSIG / 8);
}

#define RAW(type_, heap_, addr_, size_) \
	(struct mt_raw){ .type = (type_), .heap = (heap_), \
	    .addr = (uint64_t)(uintptr_t)(addr_), .size = (size_) }

/*
 * Another library's constructor may allocate before ours has run: the
 * first allocation starts us then.  Only the not-yet-recording path pays.
 */
#define ACTIVE() (recording || (!init_state && (init(), recording)))

/* record.c: the event r, and before it `before' when not NULL. */
void record(struct mt_raw *r, struct mt_raw *before, int want_stack);

/* start.c */
void init(void);
void detach(void);
void patch_gots(void);
uintptr_t self_base(void);

/* next_alloc.c: the allocator we pass calls on to. */
struct alloc_fns {
	void *(*malloc)(size_t);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	void (*free)(void *);
	void *(*memalign)(size_t, size_t);
	void *(*valloc)(size_t);
	void *(*pvalloc)(size_t);
};
extern struct alloc_fns next_alloc;
extern int next_found;		/* 0 not yet, 1 found */
extern const char *other_allocator;	/* its file, when not glibc's */
void find_next_alloc(void);
void *next_sym(const char *name);
#define NEXT(fn) (__builtin_expect(!next_found, 0) ? (find_next_alloc(), next_alloc.fn) : \
	next_alloc.fn)

/* connection.c: the socket to mt-record. */
extern int sock;
extern volatile int connection_lost;	/* the recorder hung up on us */
extern char socket_name[108];
int fd_high(int fd, int below);
int sock_ours(void);
int connect_recorder(void);
int send_msg(struct mt_msg *m, const void *data, size_t len, int fd);

/* ring.c: the thread's ring, and the process's late one. */
extern struct thread_state late;
extern int late_lock;
int shared_map(const char *name, size_t size, void **p);
int ring_open(struct thread_state *t);
void thread_end(void *arg);
void push(struct thread_state *t, const struct mt_raw *r);

/* nested.c: what signal handlers record while we are busy. */
void keep_nested(struct thread_state *t, struct mt_raw *r);
void drain_nested(struct thread_state *t);
void nested_free(struct thread_state *t);

/* modules.c: every executable segment with its build-id, once (sent at
   ts, 0 for now); those the loader loaded since the last look. */
void send_modules(uint64_t ts);
void modules_check(uint64_t ts);
void modules_forked(void);

/* process.c: forks. */
extern uint64_t fork_ts;
extern pid_t fork_parent;
void before_fork(void);
void after_fork_child(void);
void forked_unseen(void);

/* start.c: the hello, and what follows it. */
void start_process(int modules);

/* The hooks' own look-ups, made at the start while what dlsym allocates
   is ours (alloc.c, modules.c, process.c). */
void alloc_resolve(void);
void modules_resolve(void);
void process_resolve(void);

#pragma GCC visibility pop

#endif
