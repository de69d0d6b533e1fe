/*
 * event: the preload library's core: an event, its stack by the
 * unwinder chosen, the stack interned in the process's table, and the
 * event written to the thread's ring.  The interposed functions call
 * record() and nothing else of it.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "preload.h"
#include "shadow.h"
#include "stack_table.h"

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

/*
 * Records r, and before it `before' when not NULL (the free half of a
 * realloc, the old range of an mremap).  Must be called straight from
 * the interposed function: the stack starts SKIP_FRAMES up.
 */
__attribute__((noinline)) void
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
		if (n > 0) {
			uint64_t used = __atomic_load_n(&table->used, __ATOMIC_RELAXED);

			r->stack = stack_intern(table, stack_words, st, n, truncated,
			    h ? h : hash_frames(st, n, truncated));
			/* A new stack may be in a module the loader loaded
			   unasked (not from a signal handler's nesting). */
			if (w == t && used != __atomic_load_n(&table->used, __ATOMIC_RELAXED))
				modules_check(r->ts);
		}
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
