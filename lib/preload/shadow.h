/*
 * The shadow-stack unwinder of libmt-preload.so (shadow.c, capture.c):
 * a capture walks only the frames made since the last one, by the
 * binary's own call frame information, and copies the rest from a
 * per-thread shadow of the return addresses it has replaced with a
 * trampoline.
 */
#ifndef MT_SHADOW_H
#define MT_SHADOW_H

#include <stdint.h>

/* What a capture came to. */
enum {
	SHADOW_OK,	/* n frames in ips */
	SHADOW_OFF,	/* not for this thread: unwind another way */
	SHADOW_FAIL,	/* a frame it cannot walk: nothing patched, unwind
			   another way (the thread's stack is as it was) */
	SHADOW_MEMO,	/* the same walk as one before, and **idp holds
			   its stack's id of the epoch: ips not filled */
	SHADOW_REMEMBERED,	/* the same walk as one before: n frames in
			   ips, the id to keep in **idp */
};

/* The calling thread's stack, or 0 and 0 when not known. */
void thread_stack(uintptr_t *lo, uintptr_t *hi);
/* Whether the machine allows it (x86-64, no CET shadow stack): once. */
int shadow_usable(void);
/* The calling thread begins (its stack's bounds); ends (all restored). */
void shadow_thread_start(void);
void shadow_thread_end(void);
/*
 * The stack of the caller's caller's caller (skip frames more up: the
 * interposed function and record()), at most depth frames into ips;
 * *truncated when there are more.  *idp, when set, is where the caller
 * keeps the stack's id as epoch << 32 | id for a later capture of the
 * same walk; with epoch 0, ips are always filled.  Must be called with
 * the thread's busy flag held: a signal handler never runs a capture
 * inside one.
 */
int shadow_capture(void **ips, int depth, int skip, int *n, int *truncated,
    uint64_t *hash, uint32_t epoch, uint64_t **idp);
/* Every replaced return address put back (before another unwinder). */
void shadow_restore(void);
/* The test mode: put back, let f run, patch again. */
void shadow_unpatched(void (*f)(void *), void *arg);
/* Whether ip is in the trampoline (a signal stopped it there). */
int shadow_trampoline(uintptr_t ip);
/* The cache of frame rules is stale: a module was unloaded. */
void shadow_modules_changed(void);

#endif
