/*
 * The rings: one a thread, in memory shared with mt-record, where each
 * event is written as one fixed-size record; and the process's late
 * ring, for what a thread frees after its own ring is closed.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload.h"
#include "shadow.h"

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

int
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
 * death only.  Without it such a free is lost, and the next thread's DTV
 * at the same address looks allocated twice.
 */
struct thread_state late;
int late_lock;

/* Opens the calling thread's ring and hands it to the recorder. */
int
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

/*
 * Called at thread exit.  Other keys' destructors may still free memory
 * after ours, so the ring stays open for two more rounds.
 */
void
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
 * the ring's futex until the recorder, having read, wakes us: many
 * threads polling with yields and short sleeps spend the machine in the
 * kernel.  The flag and the tail are a Dekker pair with the recorder's
 * tail and flag: one of us sees the other.  Every 100 ms asleep, see
 * that the recorder still lives.
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

void
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
