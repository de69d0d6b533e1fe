/*
 * What a signal handler records while the thread it interrupted is
 * inside record(): kept aside, without a stack, and pushed by that
 * thread once it is done.
 */
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload.h"

/* A signal handler's records kept while we are busy: chunks mapped as
   they fill, never moved, as a handler may add while we drain. */
#define NESTED_CHUNK 256
#define NESTED_CHUNKS 64

/* Appends what signal handlers recorded while we were busy. */
void
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
void
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

void
nested_free(struct thread_state *t)
{
	unsigned c;

	for (c = 0; c < NESTED_CHUNKS && t->nested[c]; c++)
		syscall(SYS_munmap, t->nested[c], NESTED_CHUNK * sizeof(**t->nested));
	syscall(SYS_munmap, t->nested, NESTED_CHUNKS * sizeof(*t->nested));
	t->nested = NULL;
}
