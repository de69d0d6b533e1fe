/*
 * libmt-preload.so: injected by mt-record with LD_PRELOAD.  It interposes
 * the allocation functions and anonymous mmap, and writes one fixed-size
 * raw event per call into a ring of the calling thread, in memory shared
 * with mt-record, which merges, encodes and writes.  Stacks are interned
 * in a lock-free table, also shared, so an event carries only an id.
 *
 * The rules this file lives by:
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

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "attach.h"
#include "proto.h"
#include "shadow.h"

#define EXPORT __attribute__((visibility("default")))

/* Not declared by glibc's headers any more, still called by old programs. */
void cfree(void *);
void *memalign(size_t, size_t);
void *pvalloc(size_t);
#define MAX_DEPTH 1024
#define SKIP_FRAMES 2		/* record() and the interposed function */
/* A signal handler's records kept while we are busy: chunks mapped as
   they fill, never moved, as a handler may add while we drain. */
#define NESTED_CHUNK 256
#define NESTED_CHUNKS 64
#define MAPS_MAX 4096

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);
extern void *__libc_valloc(size_t);
extern void *__libc_pvalloc(size_t);

/*
 * The allocator we pass calls on to: glibc's, unless another is
 * preloaded after us (jemalloc, tcmalloc, mimalloc), when it is the next
 * definition in the lookup order, as the program would have called
 * without us.  (glibc's own while malloc_usable_size went to jemalloc
 * was a SIGSEGV; sqlite3 was served by glibc without a word.)  Found at
 * the first call, whoever makes it; one not given by the other allocator
 * is made from its memalign.
 */
struct alloc_fns {
	void *(*malloc)(size_t);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	void (*free)(void *);
	void *(*memalign)(size_t, size_t);
	void *(*valloc)(size_t);
	void *(*pvalloc)(size_t);
};
#define GLIBC_ALLOC { __libc_malloc, __libc_calloc, __libc_realloc, __libc_free, \
	__libc_memalign, __libc_valloc, __libc_pvalloc }
static const struct alloc_fns glibc_alloc = GLIBC_ALLOC;
static struct alloc_fns next_alloc = GLIBC_ALLOC;
static int next_found;		/* 0 not yet, 1 found */
static const char *other_allocator;	/* its file, when not glibc's */

/*
 * Where the allocator we pass calls on to is looked up: after us in the
 * lookup order, or when attached (loaded by dlopen, outside the global
 * scope) the program's own definition (attach.c).  Everything else is
 * after us either way: libc's, or libunwind's, our dependency.
 */
static int attached;
static uintptr_t self_base(void);

static void *
next_sym(const char *name)
{
	return attached ? got_definition(name, self_base()) : dlsym(RTLD_NEXT, name);
}

static void *
valloc_of_memalign(size_t n)
{
	return next_alloc.memalign((size_t)sysconf(_SC_PAGESIZE), n);
}

static void *
pvalloc_of_memalign(size_t n)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	return next_alloc.memalign(pg, (n + pg - 1) & ~(pg - 1));
}

static void
find_next_alloc(void)
{
	Dl_info info, libc;
	void *m;

	next_found = 1;
	m = next_sym("malloc");
	/* tcmalloc gives glibc's inner names too: by its file, then. */
	if (m && dladdr(m, &info) && info.dli_fname &&
	    dladdr((void *)getpid, &libc) && libc.dli_fname &&
	    strcmp(info.dli_fname, libc.dli_fname) != 0)
		other_allocator = info.dli_fname;
	if (!m || m == (void *)__libc_malloc)
		return;
	*(void **)&next_alloc.malloc = m;
	*(void **)&next_alloc.free = next_sym("free");
	*(void **)&next_alloc.calloc = next_sym("calloc");
	*(void **)&next_alloc.realloc = next_sym("realloc");
	*(void **)&next_alloc.memalign = next_sym("memalign");
	*(void **)&next_alloc.valloc = next_sym("valloc");
	*(void **)&next_alloc.pvalloc = next_sym("pvalloc");
	if (!next_alloc.free || !next_alloc.calloc || !next_alloc.realloc ||
	    !next_alloc.memalign) {
		/* Half an allocator: glibc's whole is safer. */
		other_allocator = NULL;
		next_alloc = glibc_alloc;
		return;
	}
	if (!next_alloc.valloc)
		next_alloc.valloc = valloc_of_memalign;
	if (!next_alloc.pvalloc)
		next_alloc.pvalloc = pvalloc_of_memalign;
}

#define NEXT(fn) (__builtin_expect(!next_found, 0) ? (find_next_alloc(), next_alloc.fn) : \
	next_alloc.fn)

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

static __thread struct thread_state tls __attribute__((tls_model("initial-exec")));

/*
 * A page the kernel clears in a child at any fork (MADV_WIPEONFORK),
 * also one made by the raw clone system call, where no pthread_atfork
 * handler runs: a 0 there on the event path is a child still holding its
 * parent's ring, which both would write into.
 */
static volatile int *fork_canary;

static volatile int recording;
static void detach(void);
static void patch_gots(void);
static volatile int connection_lost;	/* the recorder hung up on us */
static int sock = -1;
static struct mt_stack_table *table;
static uint32_t table_epoch;	/* a new table, a new one: ids kept by the shadow's memo */
static uint32_t stack_words = MT_STACK_WORDS_MAX;

/*
 * The stack table's size: the most (272 MiB of address space, touched as
 * it fills) unless the program's address space is limited, when it takes
 * at most a sixteenth of the limit, and a program run under ulimit -v
 * does not fail for us.
 */
static uint32_t
table_words(void)
{
	struct rlimit rl;
	uint32_t w = MT_STACK_WORDS_MAX;

	if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		while (w > MT_STACK_WORDS_MIN && MT_STACK_BYTES(w) > rl.rlim_cur / 16)
			w >>= 1;
	return w;
}
static int depth = 64;
static int free_stacks, no_follow;
/* Times are TSC ticks, which the recorder turns into nanoseconds (see mt_tsc). */
static int use_tsc;
enum { UNWIND_LIBUNWIND, UNWIND_SHADOW, UNWIND_FP };
static int unwind = UNWIND_LIBUNWIND, unwind_check;
/* libunwind's own, not the one shadow.c interposes for the program. */
static int (*libunwind_backtrace)(void **, int);
static pid_t recorder_pid;
static pthread_key_t thread_key;
static char socket_name[108];
static uintptr_t maps_sent[MAPS_MAX];
static unsigned nmaps_sent;
static pthread_mutex_t maps_lock = PTHREAD_MUTEX_INITIALIZER;
uintptr_t unwinder_lo, unwinder_hi;	/* libunwind's own mappings (shadow.h) */

static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_dlopen)(const char *, int);
static pid_t (*real_waitpid)(pid_t, int *, int);
static pid_t (*real_wait)(int *);
static pid_t (*real_wait3)(int *, int, struct rusage *);
static pid_t (*real_wait4)(pid_t, int *, int, struct rusage *);
static int (*real_waitid)(idtype_t, id_t, siginfo_t *, int);

static uint64_t
now(void)
{
	struct timespec t;

	if (use_tsc)
		return mt_tsc();
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void
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
static void
own_begin(sigset_t *old)
{
	sigset_t all;

	sigfillset(&all);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, old, _NSIG / 8);
}

static void
own_end(const sigset_t *old)
{
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, old, NULL, _NSIG / 8);
}

/*
 * Our descriptors live high, out of the way of a program that counts on
 * the lowest free numbers (a daemon started with 0-2, a shell's exec 5>):
 * the socket from 32 below the soft limit or 1024, whichever is lower,
 * libunwind's pipe from 16 below.  Apart: once a daemon has closed them
 * all, libunwind still reads its old numbers (and makes a new pipe when
 * they are closed), which must not be where our new socket went.  A
 * program may still close one and open its own there: the socket is
 * checked to be ours (the inode it had) before every use, and never
 * closed otherwise.
 */
static int
fd_high(int fd, int below)
{
	struct rlimit rl;
	rlim_t top = 1024;
	int nfd;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < top)
		top = rl.rlim_cur;
	if (fd < 0 || top <= 96)
		return fd;
	nfd = fcntl(fd, F_DUPFD_CLOEXEC, (int)(top - (rlim_t)below));
	if (nfd < 0)
		return fd;
	close(fd);
	return nfd;
}

static dev_t sock_dev;
static ino_t sock_ino;

static int
sock_ours(void)
{
	struct stat st;

	return sock >= 0 && fstat(sock, &st) == 0 && S_ISSOCK(st.st_mode) &&
	    st.st_ino == sock_ino && st.st_dev == sock_dev;
}

static int connect_recorder(void);

/*
 * The program closed our socket (close_range, a daemon's loop): a new
 * connection, said to be the same process's, once; the recorder keeps
 * its table and rings.  Not when the recorder is gone.
 */
static int
reconnect(void)
{
	struct mt_msg m = { .type = MSG_HELLO, .flags = HELLO_AGAIN };
	struct iovec iov = { &m, sizeof(m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct timeval wait_ack = { 10, 0 };
	ssize_t n;
	char ack;

	if (connection_lost || (sock = connect_recorder()) < 0) {
		sock = -1;
		connection_lost = 1;
		return -1;
	}
	m.pid = getpid();
	m.ppid = getppid();
	m.ts = now();
	do
		n = sendmsg(sock, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	/* Taken back, or refused: a byte, or the connection closed. */
	if (n >= 0 && setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &wait_ack, sizeof(wait_ack)) == 0)
		do
			n = recv(sock, &ack, 1, 0);
		while (n < 0 && errno == EINTR);
	if (n != 1) {
		close(sock);
		sock = -1;
		connection_lost = 1;
		return -1;
	}
	return 0;
}

static int
send_msg(struct mt_msg *m, const void *data, size_t len, int fd)
{
	struct iovec iov[2] = { { m, sizeof(*m) }, { (char *)(uintptr_t)data, len } };
	char cbuf[MT_CMSG_SPACE];
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = len ? 2 : 1 };
	ssize_t n;

	if (sock < 0)
		return -1;
	/* The program closed it, and the number may be its own now. */
	if (!sock_ours() && reconnect() < 0)
		return -1;
	if (fd >= 0)
		mt_msg_fd(&mh, cbuf, fd);
	do
		n = sendmsg(sock, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		/*
		 * The connection is gone (the program closed it, or the
		 * recorder died): threads with a ring go on, those without
		 * count what they cannot deliver.
		 */
		connection_lost = 1;
		return -1;
	}
	return 0;
}

/*
 * Where our shared memory goes: not where the kernel would put it, which
 * is the hole a program has just unmapped and is about to map over with
 * MAP_FIXED (its ring replaced, the next event faulted or wrote into the
 * program's memory).  A region of its own, far from the kernel's mmap
 * base, the heap and the usual runtime hints (Go's arenas, the JVM's
 * compressed oops), at a random terabyte of 32 to 96 TiB; never over
 * anything (MAP_FIXED_NOREPLACE), and where that fails the kernel's
 * choice.  The next address is shared by the threads and inherited by a
 * fork child, whose new rings then go after its parent's.
 */
#define REGION_LO 0x200000000000ULL
#define REGION_TB 64
static uintptr_t region_next;

static void *
map_ours(size_t size, int fd)
{
	uintptr_t at;
	void *p;
	int tries;

	if (!__atomic_load_n(&region_next, __ATOMIC_RELAXED)) {
		struct timespec t;
		clock_gettime(CLOCK_MONOTONIC, &t);
		at = REGION_LO + ((uint64_t)(t.tv_nsec ^ getpid()) % REGION_TB << 40);
		uintptr_t expect = 0;
		__atomic_compare_exchange_n(&region_next, &expect, at, 0,
		    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	}
	for (tries = 0; tries < 8; tries++) {
		/* Whole megabytes apart, each mapped the size it is. */
		at = __atomic_fetch_add(&region_next, (size + 0xfffff) & ~(size_t)0xfffff,
		    __ATOMIC_RELAXED);
		p = (void *)syscall(SYS_mmap, at, size, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
		if (p == (void *)at)
			return p;
		if (p != MAP_FAILED)	/* a kernel before 4.17: only a hint */
			syscall(SYS_munmap, p, size);
		/* Taken: a terabyte further. */
		__atomic_fetch_add(&region_next, (uintptr_t)1 << 40, __ATOMIC_RELAXED);
	}
	return (void *)syscall(SYS_mmap, NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
}

static int
shared_map(const char *name, size_t size, void **p)
{
	int fd = (int)syscall(SYS_memfd_create, name, MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)size) < 0 ||
	    fcntl(fd, F_ADD_SEALS, MT_SEALS | F_SEAL_SEAL) < 0 ||
	    (*p = map_ours(size, fd)) == MAP_FAILED) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * After a thread's ring is closed, at its very end, it may still free:
 * the loader frees a detached thread's DTV, which it had allocated through
 * us, after every key's destructor.  Those events go into one ring of the
 * process's, open to its end, taken by a lock: a rare path, at a thread's
 * death only.  (1742 of 2000 detached threads lost such a free, and the
 * next thread's DTV was then "allocated again".)
 */
static struct thread_state late;
static int late_lock;

/* Opens the calling thread's ring and hands it to the recorder. */
static int
ring_open(struct thread_state *t)
{
	struct mt_msg m = { .type = MSG_RING };
	void *p;
	int fd;

	if (t->dead)
		return -2;
	if ((fd = shared_map("mt-ring", MT_RING_BYTES, &p)) < 0)
		return -1;
	t->ring = p;
	t->ring->tid = (int32_t)syscall(SYS_gettid);
	t->head = t->tail = 0;
	m.pid = getpid();
	m.tid = t->ring->tid;
	m.ts = now();
	if (send_msg(&m, NULL, 0, fd) < 0) {
		/* Nobody would read it: a ring that fills would stop us. */
		close(fd);
		syscall(SYS_munmap, t->ring, MT_RING_BYTES);
		t->ring = NULL;
		return -1;
	}
	close(fd);
	/* Only to be told when the thread ends; it may allocate, and what
	   it allocates is ours. */
	if (t != &late) {
		int busy = tls.busy;
		sigset_t old;

		own_begin(&old);
		tls.busy = 2;
		pthread_setspecific(thread_key, t);
		tls.busy = busy;
		own_end(&old);
		if (unwind == UNWIND_SHADOW)
			shadow_thread_start();
		else if (unwind == UNWIND_FP)
			thread_stack(&t->stack_lo, &t->stack_hi);
	}
	return 0;
}

static void nested_free(struct thread_state *);

/*
 * Called at thread exit.  Other keys' destructors may still free memory
 * after ours, so the ring stays open for two more rounds.
 */
static void
thread_end(void *arg)
{
	struct thread_state *t = arg;

	if (++t->dtor_rounds < 3) {
		pthread_setspecific(thread_key, t);
		return;
	}
	shadow_thread_end();
	if (t->nested && !t->nnested)
		nested_free(t);
	if (t->ring) {
		__atomic_store_n(&t->ring->closed, 1, __ATOMIC_RELEASE);
		syscall(SYS_munmap, t->ring, MT_RING_BYTES);
		t->ring = NULL;
	}
	t->dead = 1;
}

/*
 * The ring is full: the recorder is behind.  A few yields, then sleep on
 * the ring's futex until the recorder, having read, wakes us (200
 * threads polling with yields and 100 us sleeps made a program 40 times
 * slower, most of it system time).  The flag and the tail are a Dekker
 * pair with the recorder's tail and flag: one of us sees the other.
 * Every 100 ms asleep, see that the recorder still lives.
 */
static void
wait_room(struct thread_state *t)
{
	struct timespec nap = { 0, 100000000 };
	unsigned spins = 0;

	for (;;) {
		t->tail = __atomic_load_n(&t->ring->tail, __ATOMIC_SEQ_CST);
		if (t->head - t->tail < MT_RING_RECS)
			return;
		if (++spins < 8) {
			sched_yield();
			continue;
		}
		__atomic_store_n(&t->ring->waiting, 1, __ATOMIC_SEQ_CST);
		t->tail = __atomic_load_n(&t->ring->tail, __ATOMIC_SEQ_CST);
		if (t->head - t->tail < MT_RING_RECS)
			return;
		if (attached && __atomic_load_n(&table->detach, __ATOMIC_ACQUIRE))
			return;		/* dropped: mt-record reads no more */
		if (syscall(SYS_futex, &t->ring->waiting, FUTEX_WAIT, 1, &nap, NULL, 0) < 0 &&
		    errno == ETIMEDOUT && recorder_pid > 0 &&
		    kill(recorder_pid, 0) < 0 && errno == ESRCH) {
			if (attached)
				detach();
			recording = 0;
			return;
		}
	}
}

static void
push(struct thread_state *t, const struct mt_raw *r)
{
	struct mt_raw *recs;

	if (t->head - t->tail >= MT_RING_RECS) {
		wait_room(t);
		if (t->head - t->tail >= MT_RING_RECS) {
			count_lost(1);
			return;
		}
	}
	recs = (struct mt_raw *)((char *)t->ring + MT_RING_HDR);
	recs[t->head & (MT_RING_RECS - 1)] = *r;
	t->head++;
	__atomic_store_n(&t->ring->head, t->head, __ATOMIC_RELEASE);
}

/* ips[0] is the innermost frame: hashed from the outermost in. */
static uint64_t
hash_frames(void *const *ips, int n, int truncated)
{
	uint64_t h = STACK_SEED;
	int i;

	for (i = n; i-- > 0;)
		h = stack_mix(h, (uintptr_t)ips[i]);
	return stack_final(h, n, truncated);
}

static int
same_stack(const uint64_t *e, void *const *ips, int n, int truncated)
{
	return e[0] == ((uint64_t)n << 1 | (uint64_t)truncated) &&
	    memcmp(e + 1, ips, (size_t)n * sizeof(*e)) == 0;
}

/*
 * The id of a stack in the process's table, adding it if it is new.
 * Lock-free: an entry is written whole before a slot points to it.
 */
static uint32_t
stack_intern(void *const *ips, int n, int truncated, uint64_t h)
{
	uint32_t *slots = MT_STACK_SLOT_PTR(table);
	uint64_t *arena = MT_STACK_ARENA(table, stack_words);
	uint64_t base;
	uint32_t i, probe, off, expect;
	int k;

	for (probe = 0; probe < 64; probe++) {
		i = (uint32_t)(h + probe) & (MT_STACK_SLOTS(stack_words) - 1);
		off = __atomic_load_n(&slots[i], __ATOMIC_ACQUIRE);
		if (off == 0) {
			base = __atomic_fetch_add(&table->used, (uint64_t)n + 1,
			    __ATOMIC_RELAXED);
			if (base + (uint64_t)n + 1 > stack_words)
				break;
			arena[base] = (uint64_t)n << 1 | (uint64_t)truncated;
			for (k = 0; k < n; k++)
				arena[base + 1 + (uint64_t)k] = (uint64_t)(uintptr_t)ips[k];
			expect = 0;
			if (__atomic_compare_exchange_n(&slots[i], &expect,
			    (uint32_t)base, 0, __ATOMIC_RELEASE, __ATOMIC_ACQUIRE))
				return (uint32_t)base;
			off = expect;	/* another thread won the slot */
		}
		if (same_stack(&arena[off], ips, n, truncated))
			return off;
	}
	__atomic_fetch_add(&table->full, 1, __ATOMIC_RELAXED);
	return MT_STACK_NONE;
}

/* Appends what signal handlers recorded while we were busy. */
static void
drain_nested(struct thread_state *t)
{
	unsigned i, n;

	/* A handler may add one between our look and the swap: the swap then
	   fails, and the next round pushes it. */
	for (i = 0;;) {
		n = __atomic_load_n(&t->nnested, __ATOMIC_RELAXED);
		if (i < n) {
			push(t, &t->nested[i / NESTED_CHUNK][i % NESTED_CHUNK]);
			i++;
		} else if (__atomic_compare_exchange_n(&t->nnested, &n, 0, 0,
		    __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
			break;
		}
	}
}

static void *
map_anon(size_t len)
{
	void *p = (void *)syscall(SYS_mmap, NULL, len, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Maps *slot once: two handlers, one interrupting the other, may race. */
static void *
map_once(void **slot, size_t len)
{
	void *p = __atomic_load_n(slot, __ATOMIC_ACQUIRE), *expect = NULL;

	if (p || !(p = map_anon(len)))
		return p;
	if (!__atomic_compare_exchange_n(slot, &expect, p, 0, __ATOMIC_ACQ_REL,
	    __ATOMIC_ACQUIRE)) {
		syscall(SYS_munmap, p, len);
		p = expect;
	}
	return p;
}

/*
 * Called from a signal handler: only mmap, which is async-signal-safe.
 * A handler may run thousands of times while we wait for room in a full
 * ring; beyond the last chunk its records are counted lost.  The slot's
 * chunk is mapped before the slot is taken, and the slot taken before it
 * is written: another signal's handler may interrupt this one anywhere.
 */
static void
keep_nested(struct thread_state *t, struct mt_raw *r)
{
	unsigned idx, c;

	do {
		idx = __atomic_load_n(&t->nnested, __ATOMIC_RELAXED);
		c = idx / NESTED_CHUNK;
		if (c >= NESTED_CHUNKS ||
		    !map_once((void **)&t->nested, NESTED_CHUNKS * sizeof(*t->nested)) ||
		    !map_once((void **)&t->nested[c], NESTED_CHUNK * sizeof(*r))) {
			count_lost(1);
			return;
		}
	} while (!__atomic_compare_exchange_n(&t->nnested, &idx, idx + 1, 0,
	    __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	r->stack = MT_STACK_NONE;
	t->nested[c][idx % NESTED_CHUNK] = *r;
}

static void
nested_free(struct thread_state *t)
{
	unsigned c;

	for (c = 0; c < NESTED_CHUNKS && t->nested[c]; c++)
		syscall(SYS_munmap, t->nested[c], NESTED_CHUNK * sizeof(**t->nested));
	syscall(SYS_munmap, t->nested, NESTED_CHUNKS * sizeof(*t->nested));
	t->nested = NULL;
}

/*
 * Records r, and before it `before' when not NULL (the free half of a
 * realloc, the old range of an mremap).  Must be called straight from
 * the interposed function: the stack starts SKIP_FRAMES up.
 */
static void after_fork_child(void);

/* A child made without fork(): as after fork, then its own state. */
/*
 * The time of a fork, taken in the parent just before it, the child's
 * copy sent with its hello: its mappings are its parent's as of then.
 * A raw clone's child sends 0, and gets its parent's as of its hello.
 */
static uint64_t fork_ts;
/* The parent's pid, taken before a fork: once it has exited, the child's
   getppid() names whoever adopted it. */
static pid_t fork_parent;

static void
forked_unseen(void)
{
	fork_ts = 0;
	fork_parent = 0;
	*fork_canary = 1;
	after_fork_child();
}

/*
 * --unwind fp: the chain of saved frame pointers, from record()'s frame
 * (whose return address, into the interposed function, is not kept).
 * Only up the thread's own stack, each frame above the one before: code
 * built without frame pointers ends the chain early or wrong, never
 * with a read outside the stack.
 */
static int
fp_backtrace(void *frame, void **ips, int *truncated)
{
	const uintptr_t *fp = frame, *next;
	uintptr_t lo = tls.stack_lo, hi = tls.stack_hi;
	int n = 0, k = 0;

	*truncated = 0;
	while ((uintptr_t)fp - lo < hi - lo - 16 && !((uintptr_t)fp & 7)) {
		if (k++ >= SKIP_FRAMES - 1) {
			if (n == depth) {
				*truncated = 1;
				break;
			}
			if (!fp[1])
				break;
			ips[n++] = (void *)fp[1];
		}
		next = (const uintptr_t *)fp[0];
		if (next <= fp)
			break;
		fp = next;
	}
	return n;
}

/* --unwind check: the shadow's stack against libunwind's, unpatched. */
struct unwound {
	void **ips;
	int n;
};

static __attribute__((noinline)) void
unwind_libunwind(void *arg)
{
	struct unwound *u = arg;

	u->n = libunwind_backtrace(u->ips, depth + 6);
}

static __attribute__((noinline)) void
check_stack(void *const *ips, int n, int truncated)
{
	/* unwind_libunwind, shadow_unpatched, us, record, the interposed */
	enum { SKIP = 5 };
	void *lib[MAX_DEPTH + 8];
	struct unwound u = { lib, 0 };
	static int said;
	int ln, lt, i;

	shadow_unpatched(unwind_libunwind, &u);
	ln = u.n - SKIP;
	lt = ln > depth;
	if (ln > depth)
		ln = depth;
	if (ln < 0)
		ln = 0;
	/* libunwind cannot walk the trampoline: nothing to compare with. */
	for (i = 0; i < ln; i++)
		if (shadow_trampoline((uintptr_t)lib[SKIP + i])) {
			__atomic_fetch_add(&table->unchecked, 1, __ATOMIC_RELAXED);
			return;
		}
	__atomic_fetch_add(&table->checked, 1, __ATOMIC_RELAXED);
	for (i = 0; i < n && i < ln; i++)
		if (ips[i] != lib[SKIP + i])
			break;
	if (i == n && n == ln && truncated == lt)
		return;
	__atomic_fetch_add(&table->differ, 1, __ATOMIC_RELAXED);
	if (__atomic_fetch_add(&said, 1, __ATOMIC_RELAXED) < 3) {
		char msg[160];
		int len = snprintf(msg, sizeof(msg), "libmt-preload: pid %d: the shadow stack's "
		    "frame %d is %p of %d%s, libunwind's %p of %d%s\n", (int)getpid(), i,
		    i < n ? ips[i] : NULL, n, truncated ? "+" : "",
		    i < ln ? lib[SKIP + i] : NULL, ln, lt ? "+" : "");
		if (len > 0)
			(void)!write(2, msg, (size_t)len < sizeof(msg) ? (size_t)len : sizeof(msg) - 1);
	}
}

static __attribute__((noinline)) void
record(struct mt_raw *r, struct mt_raw *before, int want_stack)
{
	struct thread_state *t = &tls, *w = t;	/* w: the ring written */
	void *ips[MAX_DEPTH + SKIP_FRAMES + 1];
	int n;

	if (__builtin_expect(fork_canary && !*fork_canary, 0))
		forked_unseen();
	if (__builtin_expect(attached, 0) && table &&
	    __atomic_load_n(&table->detach, __ATOMIC_ACQUIRE)) {
		if (!t->busy)
			detach();
		return;
	}
	if (!r->ts)
		r->ts = now();
	if (t->busy) {
		/*
		 * busy 1: a signal handler interrupted us, its records kept
		 * for us to write; 3: so, as we open the thread's ring; 2:
		 * our own allocation, not the program's.
		 */
		if (t->busy != 2) {
			if (before)
				keep_nested(t, before);
			keep_nested(t, r);
		}
		return;
	}
	t->busy = 1;
	if (!t->ring) {
		t->busy = 3;
		n = connection_lost ? -1 : ring_open(t);
		if (n == -2) {
			while (__atomic_exchange_n(&late_lock, 1, __ATOMIC_ACQUIRE))
				sched_yield();
			w = &late;
			n = late.ring ? 0 : ring_open(&late);
		}
		t->busy = 1;
		if (n < 0) {
			count_lost(before ? 2 : 1);
			goto out;
		}
	}
	r->stack = MT_STACK_NONE;
	if (want_stack && depth > 0) {
		void **st = ips;
		int truncated = 0;
		uint64_t h = 0, *idp = NULL;

		n = -1;
		if (unwind == UNWIND_SHADOW) {
			int how = shadow_capture(ips, depth, SKIP_FRAMES + 1, &n, &truncated, &h,
			    unwind_check ? 0 : table_epoch, &idp);
			if (how == SHADOW_MEMO) {
				r->stack = (uint32_t)*idp;
				goto have_stack;
			}
			if (how == SHADOW_REMEMBERED) {
				if (unwind_check)
					__atomic_fetch_add(&table->remembered, 1, __ATOMIC_RELAXED);
				how = SHADOW_OK;
			}
			if (how != SHADOW_OK) {
				n = -1;
				if (how == SHADOW_FAIL)
					__atomic_fetch_add(&table->fallback, 1, __ATOMIC_RELAXED);
			} else if (unwind_check) {
				check_stack(ips, n, truncated);
			}
		} else if (unwind == UNWIND_FP) {
			n = fp_backtrace(__builtin_frame_address(0), ips, &truncated);
		}
		if (n < 0) {
			n = libunwind_backtrace(ips, depth + SKIP_FRAMES + 1);
			truncated = n > depth + SKIP_FRAMES;
			n -= SKIP_FRAMES + truncated;
			st = ips + SKIP_FRAMES;
		}
		if (n > 0)
			r->stack = stack_intern(st, n, truncated,
			    h ? h : hash_frames(st, n, truncated));
		if (idp && r->stack != MT_STACK_NONE)
			*idp = (uint64_t)table_epoch << 32 | r->stack;
	}
have_stack:
	if (before) {
		before->stack = before->type != RAW_FREE || free_stacks ?
		    r->stack : MT_STACK_NONE;
		push(w, before);
	}
	push(w, r);
	if (w == t && t->nnested)
		drain_nested(t);
out:
	if (w != t)
		__atomic_store_n(&late_lock, 0, __ATOMIC_RELEASE);
	t->busy = 0;
	/* A handler that ran after the drain kept its records: written now,
	   not left for this thread's next allocation, which may never come. */
	while (w == t && t->ring && __atomic_load_n(&t->nnested, __ATOMIC_RELAXED)) {
		t->busy = 1;
		drain_nested(t);
		t->busy = 0;
	}
}

#define RAW(type_, heap_, addr_, size_) \
	(struct mt_raw){ .type = (type_), .heap = (heap_), \
	    .addr = (uint64_t)(uintptr_t)(addr_), .size = (size_) }

/*
 * Another library's constructor may allocate before ours has run: the
 * first allocation starts us then.  Only the not-yet-recording path pays.
 */
static void init(void);
static int init_state;		/* 0 not yet, 1 started */
#define ACTIVE() (recording || (!init_state && (init(), recording)))

EXPORT void *
malloc(size_t n)
{
	void *p = NEXT(malloc)(n);

	if (p && ACTIVE()) {
		struct mt_raw r = RAW(RAW_ALLOC, RAW_HEAP_MALLOC, p, n);
		record(&r, NULL, 1);
	}
	return p;
}

EXPORT void
free(void *p)
{
	if (p && ACTIVE()) {
		struct mt_raw r = RAW(RAW_FREE, RAW_HEAP_MALLOC, p, 0);
		record(&r, NULL, free_stacks);
	}
	NEXT(free)(p);
}

EXPORT void
cfree(void *p)
{
	free(p);
}

EXPORT void *
calloc(size_t n, size_t size)
{
	void *p = NEXT(calloc)(n, size);

	if (p && ACTIVE()) {
		struct mt_raw r = RAW(RAW_ALLOC, RAW_HEAP_MALLOC, p, n * size);
		record(&r, NULL, 1);
	}
	return p;
}

/*
 * realloc is a free and an allocation.  The free's time is taken before
 * glibc can hand the old block to another thread, the allocation's after.
 * realloc(p, 0) frees p and returns NULL, as glibc does; a failed realloc
 * leaves p alone and records nothing.
 */
EXPORT void *
realloc(void *p, size_t n)
{
	struct mt_raw r, r2;
	uint64_t t0;
	void *q;

	if (!recording || !p) {
		q = NEXT(realloc)(p, n);
		if (q && recording) {
			r = RAW(RAW_ALLOC, RAW_HEAP_MALLOC, q, n);
			record(&r, NULL, 1);
		}
		return q;
	}
	t0 = now();
	q = NEXT(realloc)(p, n);
	if (!q && n != 0)
		return NULL;
	r2 = RAW(RAW_FREE, RAW_HEAP_MALLOC, p, 0);
	r2.ts = t0;
	if (!q) {
		record(&r2, NULL, free_stacks);
		return NULL;
	}
	r = RAW(RAW_ALLOC, RAW_HEAP_MALLOC, q, n);
	r.ts = q == p ? t0 : now();
	record(&r, &r2, 1);
	return q;
}

EXPORT void *
reallocarray(void *p, size_t n, size_t size)
{
	size_t total;

	if (__builtin_mul_overflow(n, size, &total)) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, total);
}

static void *
aligned_result(void *p, size_t n)
{
	if (p && recording) {
		struct mt_raw r = RAW(RAW_ALLOC, RAW_HEAP_MALLOC, p, n);
		record(&r, NULL, 1);
	}
	return p;
}

EXPORT void *
memalign(size_t align, size_t n)
{
	return aligned_result(NEXT(memalign)(align, n), n);
}

EXPORT void *
valloc(size_t n)
{
	return aligned_result(NEXT(valloc)(n), n);
}

EXPORT void *
pvalloc(size_t n)
{
	return aligned_result(NEXT(pvalloc)(n), n);
}

EXPORT void *
aligned_alloc(size_t align, size_t n)
{
	if (!real_aligned_alloc)
		real_aligned_alloc = (void *(*)(size_t, size_t))next_sym("aligned_alloc");
	return aligned_result(real_aligned_alloc ? real_aligned_alloc(align, n) :
	    NEXT(memalign)(align, n), n);
}

EXPORT int
posix_memalign(void **pp, size_t align, size_t n)
{
	int ret;

	if (!real_posix_memalign)
		real_posix_memalign = (int (*)(void **, size_t, size_t))
		    next_sym("posix_memalign");
	if (!real_posix_memalign)
		return ENOMEM;
	ret = real_posix_memalign(pp, align, n);
	if (ret == 0)
		aligned_result(*pp, n);
	return ret;
}

/* Anonymous mappings: the VirtualAlloc analogue, decided in the recorder. */

/* libunwind maps memory for its caches while we unwind: not the program's. */
#define OURS() ((uintptr_t)__builtin_return_address(0) - unwinder_lo < \
	unwinder_hi - unwinder_lo)

static int
find_unwinder(struct dl_phdr_info *info, size_t size, void *arg)
{
	uintptr_t fn = (uintptr_t)arg, lo = UINTPTR_MAX, hi = 0, a;
	int k;

	(void)size;
	for (k = 0; k < info->dlpi_phnum; k++) {
		if (info->dlpi_phdr[k].p_type != PT_LOAD)
			continue;
		a = info->dlpi_addr + info->dlpi_phdr[k].p_vaddr;
		if (a < lo)
			lo = a;
		if (a + info->dlpi_phdr[k].p_memsz > hi)
			hi = a + info->dlpi_phdr[k].p_memsz;
	}
	if (fn >= lo && fn < hi) {
		unwinder_lo = lo;
		unwinder_hi = hi;
		return 1;
	}
	return 0;
}

static int
heap_of_prot(int prot)
{
	if (prot & PROT_WRITE)
		return RAW_HEAP_MMAP;
	if (prot == PROT_NONE)
		return RAW_HEAP_RESERVE;
	return RAW_HEAP_NONE;
}

/*
 * libunwind validates addresses by writing a byte from them into a pipe
 * it keeps (and makes again when it finds it closed): that pipe goes high
 * too, or libunwind would read and write the program's own descriptors
 * once the program has closed its numbers and reused them.
 */
EXPORT int
pipe2(int fds[2], int flags)
{
	int ret = (int)syscall(SYS_pipe2, fds, flags);

	if (ret == 0 && OURS()) {
		fds[0] = fd_high(fds[0], 16);
		fds[1] = fd_high(fds[1], 16);
	}
	return ret;
}

/*
 * Before a call that frees or replaces address space: what we would map
 * lazily after it (the thread's ring, libunwind's caches) is mapped first,
 * so that none of it can be in the range the program maps over next.
 */
static void
ready_before_unmap(void)
{
	struct thread_state *t = &tls;
	void *ips[4];

	sigset_t old;

	if (t->ring || t->busy || connection_lost)
		return;
	own_begin(&old);
	t->busy = 2;
	if (ring_open(t) == 0)
		(void)libunwind_backtrace(ips, 4);
	t->busy = 0;
	own_end(&old);
}

EXPORT void *
mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p;

	if ((flags & MAP_FIXED) && recording && !OURS())
		ready_before_unmap();
	p = (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);

	if (p != MAP_FAILED && recording && !OURS()) {
		int anon = (flags & MAP_ANONYMOUS) && (flags & MAP_TYPE) == MAP_PRIVATE;
		/* A fixed mapping of anything replaces what was there. */
		if (anon || (flags & MAP_FIXED)) {
			struct mt_raw r = RAW(RAW_MMAP,
			    anon ? heap_of_prot(prot) : RAW_HEAP_NONE, p, len);
			if (anon && (prot & PROT_EXEC))
				r.flags = RAW_EXEC;
			record(&r, NULL, 1);
		}
	}
	return p;
}

/* The same function under its large-file name; some programs call that. */
EXPORT void *mmap64(void *, size_t, int, int, int, off_t) __attribute__((alias("mmap")));

EXPORT int
munmap(void *addr, size_t len)
{
	int mine = recording && !OURS();
	uint64_t t0;
	int ret;

	if (mine)
		ready_before_unmap();
	t0 = mine ? now() : 0;
	ret = (int)syscall(SYS_munmap, addr, len);

	if (ret == 0 && mine) {
		struct mt_raw r = RAW(RAW_MUNMAP, RAW_HEAP_NONE, addr, len);
		r.ts = t0;
		record(&r, NULL, free_stacks);
	}
	return ret;
}

EXPORT void *
mremap(void *old, size_t oldlen, size_t newlen, int flags, ...)
{
	int mine = recording && !OURS();
	uint64_t t0;
	void *newaddr = NULL, *p;
	va_list ap;

	if (mine)
		ready_before_unmap();
	t0 = mine ? now() : 0;

	if (flags & MREMAP_FIXED) {
		va_start(ap, flags);
		newaddr = va_arg(ap, void *);
		va_end(ap);
	}
	p = (void *)syscall(SYS_mremap, old, oldlen, newlen, flags, newaddr);
	if (p != MAP_FAILED && mine) {
		struct mt_raw from = RAW(RAW_MREMAP_FROM, RAW_HEAP_NONE, old, oldlen);
		struct mt_raw to = RAW(RAW_MREMAP_TO, RAW_HEAP_NONE, p, newlen);
		from.ts = to.ts = t0;
		record(&to, &from, 1);
	}
	return p;
}

EXPORT int
mprotect(void *addr, size_t len, int prot)
{
	int mine = recording && !OURS();
	uint64_t t0 = mine ? now() : 0;
	int ret = (int)syscall(SYS_mprotect, addr, len, prot);

	if (ret == 0 && mine) {
		struct mt_raw r = RAW(RAW_MPROTECT, (uint8_t)heap_of_prot(prot), addr, len);
		if (prot & PROT_EXEC)
			r.flags = RAW_EXEC;
		r.ts = t0;
		record(&r, NULL, 1);
	}
	return ret;
}

/* Modules: every executable segment with its build-id. */

static size_t
build_id_hex(const struct dl_phdr_info *info, char *out, size_t cap)
{
	static const char digits[] = "0123456789abcdef";
	const ElfW(Phdr) *ph;
	const char *p, *end;
	size_t i, n = 0;
	int k;

	for (k = 0; k < info->dlpi_phnum; k++) {
		ph = &info->dlpi_phdr[k];
		if (ph->p_type != PT_NOTE)
			continue;
		p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const void *)p;
			const char *name = p + sizeof(*nh);
			const unsigned char *desc = (const unsigned char *)name +
			    ((nh->n_namesz + 3) & ~3u);
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    memcmp(name, "GNU", 4) == 0 && nh->n_descsz * 2 < cap) {
				for (i = 0; i < nh->n_descsz; i++) {
					out[n++] = digits[desc[i] >> 4];
					out[n++] = digits[desc[i] & 15];
				}
				out[n] = '\0';
				return n;
			}
			p = (const char *)desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
	out[0] = '\0';
	return 0;
}

static int
send_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	char buf[4096 + 128], *path = buf + 128;
	const char *name = info->dlpi_name;
	struct mt_msg m = { .type = MSG_MAP };
	const ElfW(Phdr) *ph;
	unsigned j;
	size_t blen, plen;
	ssize_t n;
	int k;

	(void)size;
	(void)arg;
	for (k = 0; k < info->dlpi_phnum; k++) {
		ph = &info->dlpi_phdr[k];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		m.lo = info->dlpi_addr + ph->p_vaddr;
		for (j = 0; j < nmaps_sent; j++)
			if (maps_sent[j] == m.lo)
				break;
		if (j < nmaps_sent)
			continue;
		if (nmaps_sent < MAPS_MAX)
			maps_sent[nmaps_sent++] = m.lo;
		m.hi = m.lo + ph->p_memsz;
		m.off = ph->p_offset;
		m.pid = getpid();
		m.ts = now();
		blen = build_id_hex(info, buf, 128);
		if (!name || !*name) {
			n = readlink("/proc/self/exe", path, 4095);
			plen = n > 0 ? (size_t)n : 0;
		} else if (strncmp(name, "linux-vdso", 10) == 0) {
			plen = 6;
			memcpy(path, "[vdso]", plen);
		} else {
			plen = strnlen(name, 4095);
			memcpy(path, name, plen);
		}
		path[plen] = '\0';
		memmove(buf + blen + 1, path, plen + 1);
		send_msg(&m, buf, blen + 1 + plen, -1);
	}
	return 0;
}

static void
send_modules(void)
{
	pthread_mutex_lock(&maps_lock);
	dl_iterate_phdr(send_module, NULL);
	pthread_mutex_unlock(&maps_lock);
}

EXPORT void *
dlopen(const char *file, int mode)
{
	void *h;

	if (!real_dlopen)
		real_dlopen = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
	h = real_dlopen(file, mode);
	if (h && recording) {
		if (attached)
			patch_gots();
		send_modules();
	}
	return h;
}

/*
 * A module unloaded: another may come where it was, so the shadow
 * stack's rules cached by address are dropped, and libunwind's address
 * space cache.  Not its per-thread trace cache, which nothing flushes:
 * libunwind can still walk a module loaded where another was by the old
 * one's rules (tests/progs/dlreload: 2 of 400 stacks with 0x5555...).
 */
EXPORT int
dlclose(void *h)
{
	static int (*real_dlclose)(void *);
	int r;

	RESOLVE(real_dlclose, "dlclose");
	r = real_dlclose(h);
	if (r == 0) {
		unw_flush_cache(unw_local_addr_space, 0, 0);
		shadow_modules_changed();
	}
	return r;
}

/* Reaped children: the recorder learns their exit status from the parent. */

static void
tell_reaped(pid_t pid, int status)
{
	struct mt_msg m = { .type = MSG_CHILD };

	if (pid <= 0 || !recording || !(WIFEXITED(status) || WIFSIGNALED(status)))
		return;
	m.pid = getpid();
	m.child = pid;
	m.status = status;
	m.ts = now();
	send_msg(&m, NULL, 0, -1);
}

EXPORT pid_t
waitpid(pid_t pid, int *status, int options)
{
	int st = 0;
	pid_t r;

	RESOLVE(real_waitpid, "waitpid");
	r = real_waitpid(pid, &st, options);
	if (status)
		*status = st;
	tell_reaped(r, st);
	return r;
}

EXPORT pid_t
wait(int *status)
{
	int st = 0;
	pid_t r;

	RESOLVE(real_wait, "wait");
	r = real_wait(&st);
	if (status)
		*status = st;
	tell_reaped(r, st);
	return r;
}

EXPORT pid_t
wait3(int *status, int options, struct rusage *ru)
{
	int st = 0;
	pid_t r;

	RESOLVE(real_wait3, "wait3");
	r = real_wait3(&st, options, ru);
	if (status)
		*status = st;
	tell_reaped(r, st);
	return r;
}

EXPORT pid_t
wait4(pid_t pid, int *status, int options, struct rusage *ru)
{
	int st = 0;
	pid_t r;

	RESOLVE(real_wait4, "wait4");
	r = real_wait4(pid, &st, options, ru);
	if (status)
		*status = st;
	tell_reaped(r, st);
	return r;
}

EXPORT int
waitid(idtype_t idtype, id_t id, siginfo_t *info, int options)
{
	int r;

	RESOLVE(real_waitid, "waitid");
	r = real_waitid(idtype, id, info, options);
	if (r == 0 && info && !(options & WNOWAIT) && info->si_pid > 0) {
		if (info->si_code == CLD_EXITED)
			tell_reaped(info->si_pid, (info->si_status & 0xff) << 8);
		else if (info->si_code == CLD_KILLED || info->si_code == CLD_DUMPED)
			tell_reaped(info->si_pid, info->si_status & 0x7f);
	}
	return r;
}

/* Starting: the connection, the stack table, the hello, the modules. */

static int
connect_recorder(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t n = strlen(socket_name);
	struct stat st;
	int fd;

	fd = fd_high(socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0), 32);
	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	sock_dev = st.st_dev;
	sock_ino = st.st_ino;
	/* An abstract name: a leading NUL, not a file. */
	memcpy(sa.sun_path + 1, socket_name, n);
	if (connect(fd, (struct sockaddr *)&sa,
	    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)) == 0)
		return fd;
	/* In a network namespace of its own: the path (proto.h). */
	if (strlen(MT_SOCKET_DIR) + n >= sizeof(sa.sun_path)) {
		close(fd);
		return -1;
	}
	memset(sa.sun_path, 0, sizeof(sa.sun_path));
	memcpy(sa.sun_path, MT_SOCKET_DIR, strlen(MT_SOCKET_DIR));
	memcpy(sa.sun_path + strlen(MT_SOCKET_DIR), socket_name, n);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
		return fd;
	close(fd);
	return -1;
}

/*
 * The path this image was executed by, as ps and top name a process: a
 * symbolic link not followed (/usr/bin/redis-server, not the file it
 * points to).  Made absolute when the image starts, and kept for its
 * forked children, which may chdir; the file itself where that cannot
 * be done (fexecve, a relative path once attached).
 */
static char exe_name[4096];
static size_t exe_len;

static void
find_exe_name(void)
{
	const char *e = (const char *)getauxval(AT_EXECFN);
	size_t n = 0, elen;
	struct stat st;
	ssize_t r;

	if (e && *e && strncmp(e, "/dev/fd/", 8) != 0 && strncmp(e, "/proc/", 6) != 0 &&
	    (e[0] == '/' || !attached)) {
		if (e[0] != '/' && getcwd(exe_name, sizeof(exe_name) - 1)) {
			n = strlen(exe_name);
			if (n > 1)
				exe_name[n++] = '/';
			while (e[0] == '.' && e[1] == '/')
				e += 2;
		}
		elen = strlen(e);
		if ((e[0] == '/' || n > 0) && n + elen < sizeof(exe_name)) {
			memcpy(exe_name + n, e, elen + 1);
			if (stat(exe_name, &st) == 0) {
				exe_len = n + elen;
				return;
			}
		}
	}
	r = readlink("/proc/self/exe", exe_name, sizeof(exe_name) - 1);
	exe_len = r > 0 ? (size_t)r : 0;
}

static void
start_process(int modules)
{
	static char buf[MT_MSG_MAX - sizeof(struct mt_msg)];
	struct mt_msg m = { .type = MSG_HELLO };
	ssize_t n;
	size_t len;
	void *p;
	int fd, tfd;

	sock = connect_recorder();
	if (sock < 0)
		return;
	stack_words = table_words();
	tfd = shared_map("mt-stacks", MT_STACK_BYTES(stack_words), &p);
	if (tfd < 0) {
		close(sock);
		sock = -1;
		return;
	}
	table = p;
	table_epoch++;
	table->used = 1;
	table->unwinder = unwind == UNWIND_SHADOW ? 's' : unwind == UNWIND_FP ? 'p' : 'l';
	m.pid = getpid();
	m.ppid = !modules && fork_parent ? fork_parent : getppid();
	m.ts = now();
	m.flags = (modules ? 0 : HELLO_FORKED) | (use_tsc ? HELLO_TSC : 0) |
	    (attached ? HELLO_ATTACHED : 0);
	m.lo = modules ? 0 : fork_ts;
	if (modules || !exe_len)
		find_exe_name();
	memcpy(buf, exe_name, exe_len);
	len = exe_len;
	buf[len++] = '\0';
	fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		while ((n = read(fd, buf + len, sizeof(buf) - len)) > 0)
			len += (size_t)n;
		close(fd);
	}
	send_msg(&m, buf, len, tfd);
	close(tfd);
	if (other_allocator) {
		struct mt_msg a = { .type = MSG_ALLOCATOR, .pid = m.pid, .ts = now() };
		send_msg(&a, other_allocator, strlen(other_allocator), -1);
	}
	recording = sock >= 0;
	if (modules)
		send_modules();
}

/* Taken in the parent just before a fork (see fork_ts). */
static void
before_fork(void)
{
	fork_ts = recording ? now() : 0;
	fork_parent = getpid();
}

static void
after_fork_child(void)
{
	struct thread_state *t = &tls;

	if (fork_canary)
		*fork_canary = 1;
	recording = 0;
	if (sock_ours())
		close(sock);
	sock = -1;
	/* The parent's ring and table stay the parent's. */
	if (t->ring)
		syscall(SYS_munmap, t->ring, MT_RING_BYTES);
	t->ring = NULL;
	t->head = t->tail = 0;
	t->nnested = 0;
	if (table)
		syscall(SYS_munmap, table, MT_STACK_BYTES(stack_words));
	table = NULL;
	/* The late ring too: another thread may have held its lock. */
	if (late.ring)
		syscall(SYS_munmap, late.ring, MT_RING_BYTES);
	memset(&late, 0, sizeof(late));
	late_lock = 0;
	/*
	 * Another thread may have held the lock, or the loader's, at the
	 * fork: the child does not walk its modules.  The recorder gives it
	 * its parent's, and maps_sent, inherited, stays right.
	 */
	pthread_mutex_init(&maps_lock, NULL);
	if (!no_follow)
		start_process(0);
	else if (attached)
		got_restore();	/* the child runs as it would have */
}

/* With --no-follow, what this process runs is not traced. */
static void
forget_preload(void)
{
	char *v = getenv("LD_PRELOAD"), *s, *e;
	Dl_info self;
	size_t n;

	unsetenv(MT_ENV_SOCKET);
	if (!v || !dladdr((void *)forget_preload, &self) || !self.dli_fname)
		return;
	n = strlen(self.dli_fname);
	for (s = strstr(v, self.dli_fname); s; s = strstr(s + 1, self.dli_fname)) {
		if ((s == v || s[-1] == ' ' || s[-1] == ':') &&
		    (s[n] == '\0' || s[n] == ' ' || s[n] == ':')) {
			e = s + n + (s[n] ? 1 : 0);
			memmove(s, e, strlen(e) + 1);
			break;
		}
	}
	if (!*v)
		unsetenv("LD_PRELOAD");
}

/*
 * Sets up what the options say and connects: from the environment when
 * preloaded, from mt-record's words when attached.
 */
static void
start(const char *sockname, const char *depth_s, const char *flags_s)
{
	char *end;
	long v;

	if (!sockname || strlen(sockname) >= sizeof(socket_name) - 1)
		return;
	tls.busy = 2;
	strcpy(socket_name, sockname);
	if (depth_s && (v = strtol(depth_s, &end, 10)) >= 0 && !*end && v <= MAX_DEPTH)
		depth = (int)v;
	if (flags_s) {
		free_stacks = strchr(flags_s, 'f') != NULL;
		no_follow = strchr(flags_s, 'n') != NULL;
		if (strchr(flags_s, 's') && !attached && shadow_usable())
			unwind = UNWIND_SHADOW;
		else if (strchr(flags_s, 'p'))
			unwind = UNWIND_FP;
		unwind_check = unwind == UNWIND_SHADOW && strchr(flags_s, 'c') != NULL;
		use_tsc = strchr(flags_s, 't') != NULL;
	}
	if ((sockname = strrchr(socket_name, '-')))
		recorder_pid = (pid_t)strtol(sockname + 1, NULL, 10);
	/*
	 * Before libunwind starts, which makes its pipe (see pipe2).  Ours
	 * is after us also when attached: libunwind is our dependency.
	 */
	RESOLVE(libunwind_backtrace, "unw_backtrace");
	if (!libunwind_backtrace)
		libunwind_backtrace = unw_backtrace;
	dl_iterate_phdr(find_unwinder, (void *)(uintptr_t)libunwind_backtrace);
	unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
	*(void **)&real_posix_memalign = next_sym("posix_memalign");
	*(void **)&real_aligned_alloc = next_sym("aligned_alloc");
	RESOLVE(real_dlopen, "dlopen");
	RESOLVE(real_waitpid, "waitpid");
	RESOLVE(real_wait, "wait");
	RESOLVE(real_wait3, "wait3");
	RESOLVE(real_wait4, "wait4");
	RESOLVE(real_waitid, "waitid");
	pthread_key_create(&thread_key, thread_end);
	pthread_atfork(before_fork, NULL, after_fork_child);
	fork_canary = (void *)syscall(SYS_mmap, NULL, 4096, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fork_canary == MAP_FAILED ||
	    syscall(SYS_madvise, fork_canary, 4096, MADV_WIPEONFORK) < 0) {
		if (fork_canary != MAP_FAILED)
			syscall(SYS_munmap, fork_canary, 4096);
		fork_canary = NULL;	/* a kernel before 4.14: not detected */
	} else {
		*fork_canary = 1;
	}
	if (no_follow && !attached)
		forget_preload();
	if (!next_found)
		find_next_alloc();
	start_process(1);
	tls.busy = 0;
}

__attribute__((constructor)) static void
init(void)
{
	if (init_state)
		return;
	init_state = 1;
	start(getenv(MT_ENV_SOCKET), getenv(MT_ENV_DEPTH), getenv(MT_ENV_FLAGS));
}

/* What we interpose, as attaching points the modules' GOTs at it. */
#define HOOK(fn) { #fn, (void *)fn }
static const struct got_hook got_hooks[] = {
	HOOK(malloc), HOOK(free), HOOK(cfree), HOOK(calloc), HOOK(realloc),
	HOOK(reallocarray), HOOK(memalign), HOOK(valloc), HOOK(pvalloc),
	HOOK(aligned_alloc), HOOK(posix_memalign), HOOK(mmap), HOOK(mmap64),
	HOOK(munmap), HOOK(mremap), HOOK(mprotect), HOOK(pipe2), HOOK(dlopen),
	HOOK(dlclose), HOOK(waitpid), HOOK(wait), HOOK(wait3), HOOK(wait4),
	HOOK(waitid),
};

static uintptr_t
self_base(void)
{
	struct link_map *lm = NULL;
	Dl_info info;

	if (!dladdr1((void *)self_base, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
		return 0;
	return lm->l_addr;
}

static void
patch_gots(void)
{
	got_patch(got_hooks, sizeof(got_hooks) / sizeof(got_hooks[0]), self_base());
}

/*
 * Stops recording, once, when mt-record says so (or is gone): every GOT
 * slot back as it was, our functions pass-throughs for whoever still
 * holds one (a pointer taken meanwhile, a thread inside one).
 */
static void
detach(void)
{
	static int once;

	if (__atomic_exchange_n(&once, 1, __ATOMIC_ACQ_REL))
		return;
	recording = 0;
	got_restore();
	if (table)
		__atomic_store_n(&table->detached, 1, __ATOMIC_RELEASE);
}

/*
 * mt-record -p: called in the process once dlopen loaded us, with three
 * strings, each ended by a NUL: the socket's name, the depth, the flags.
 * The constructor found no MT_RECORD_SOCKET and did nothing.  Returns 0
 * once recording, -1 if not (a preloaded library is already here).
 */
EXPORT int
mt_attach(const char *args)
{
	const char *d, *f;

	if (recording || attached)
		return -1;
	d = args + strlen(args) + 1;
	f = d + strlen(d) + 1;
	attached = 1;
	next_found = 0;
	start(args, d, f);
	if (!recording)
		return -1;
	patch_gots();
	return 0;
}
