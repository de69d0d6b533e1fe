/*
 * The unwinders other than ours, interposed: each must see the real
 * return addresses, so the shadow stack's are put back first (a C++
 * throw and its cleanups, pthread_exit's forced unwind, backtrace(3), a
 * program's own libunwind, a switch of context), and our own frames are
 * left out of what they report.
 */
#include <stdint.h>
#include <string.h>
#include <ucontext.h>

#include "preload.h"
#include "shadow.h"
#include "shadow_state.h"

#if defined(__x86_64__) && !defined(MT_GENERIC)

/* Declared by no header we include, or with types we need not. */
int _Unwind_RaiseException(void *);
void _Unwind_Resume(void *) __attribute__((noreturn));
int _Unwind_Resume_or_Rethrow(void *);
int _Unwind_ForcedUnwind(void *, void *, void *);
int _Unwind_Backtrace(void *, void *);
int backtrace(void **, int);
int _ULx86_64_init_local(void *, void *);
int _ULx86_64_init_local2(void *, void *, int);
int unw_backtrace(void **, int);

/* Called by libunwind itself (our own captures use it): not the program's. */
#define FROM_UNWINDER() ((uintptr_t)__builtin_return_address(0) - unwinder_lo < \
	unwinder_hi - unwinder_lo)

EXPORT int
_Unwind_RaiseException(void *e)
{
	static int (*real)(void *);

	RESOLVE(real, "_Unwind_RaiseException");
	shadow_restore();
	return real(e);
}

EXPORT void
_Unwind_Resume(void *e)
{
	static void (*real)(void *);

	RESOLVE(real, "_Unwind_Resume");
	shadow_restore();
	real(e);
	__builtin_unreachable();
}

EXPORT int
_Unwind_Resume_or_Rethrow(void *e)
{
	static int (*real)(void *);

	RESOLVE(real, "_Unwind_Resume_or_Rethrow");
	shadow_restore();
	return real(e);
}

EXPORT int
_Unwind_ForcedUnwind(void *e, void *stop, void *arg)
{
	static int (*real)(void *, void *, void *);

	RESOLVE(real, "_Unwind_ForcedUnwind");
	shadow_restore();
	return real(e, stop, arg);
}

/*
 * The calls that walk and return: suspended around them, our frame left
 * out of what they report (the program sees what it would without us).
 */
struct walk_cb {
	int (*fn)(void *, void *);
	void *arg;
};

static int
walk_cb(void *ctx, void *arg)
{
	static uintptr_t (*get_ip)(void *);
	struct walk_cb *w = arg;

	RESOLVE(get_ip, "_Unwind_GetIP");
	if (get_ip && ours(get_ip(ctx)))
		return 0;	/* _URC_NO_REASON: on to the next frame */
	return w->fn(ctx, w->arg);
}

EXPORT int
_Unwind_Backtrace(void *fn, void *arg)
{
	static int (*real)(void *, void *);
	struct walk_cb w = { (int (*)(void *, void *))fn, arg };
	int r;

	RESOLVE(real, "_Unwind_Backtrace");
	if (FROM_UNWINDER())
		return real(fn, arg);
	suspend();
	r = real((void *)walk_cb, &w);
	resume();
	return r;
}

/* backtrace(3) and unw_backtrace: one more frame asked for, ours dropped. */
#define WALK_MAX 1024
static int
walk_into(int (*real)(void **, int), void **buf, int size)
{
	void *tmp[WALK_MAX + 1];
	int n, i;

	suspend();
	n = real(tmp, size + 1);
	resume();
	for (i = 0; i < n && ours((uintptr_t)tmp[i]); i++)
		;
	if (n - i > size)
		n = size + i;
	memcpy(buf, tmp + i, (size_t)(n - i) * sizeof(void *));
	return n - i;
}

EXPORT int
backtrace(void **buf, int size)
{
	static int (*real)(void **, int);

	RESOLVE(real, "backtrace");
	if (size <= 0 || size > WALK_MAX) {
		shadow_restore();
		return real(buf, size);
	}
	return walk_into(real, buf, size);
}

EXPORT int
unw_backtrace(void **buf, int size)
{
	static int (*real)(void **, int);

	RESOLVE(real, "unw_backtrace");
	if (FROM_UNWINDER() || size <= 0 || size > WALK_MAX) {
		if (!FROM_UNWINDER())
			shadow_restore();
		return real(buf, size);
	}
	return walk_into(real, buf, size);
}

EXPORT void
pthread_exit(void *ret)
{
	static void (*real)(void *);

	RESOLVE(real, "pthread_exit");
	/* Its forced unwind runs cleanups that may allocate: off for good. */
	shadow_thread_end();
	real(ret);
	__builtin_unreachable();
}

EXPORT int
swapcontext(ucontext_t *from, const ucontext_t *to)
{
	static int (*real)(ucontext_t *, const ucontext_t *);

	RESOLVE(real, "swapcontext");
	shadow_restore();
	return real(from, to);
}

EXPORT int
setcontext(const ucontext_t *to)
{
	static int (*real)(const ucontext_t *);

	RESOLVE(real, "setcontext");
	shadow_restore();
	return real(to);
}

/* A program's own libunwind: its cursor then walks the real addresses. */
EXPORT int
_ULx86_64_init_local(void *cursor, void *context)
{
	static int (*real)(void *, void *);

	RESOLVE(real, "_ULx86_64_init_local");
	if (!FROM_UNWINDER())
		shadow_restore();
	return real(cursor, context);
}

EXPORT int
_ULx86_64_init_local2(void *cursor, void *context, int flag)
{
	static int (*real)(void *, void *, int);

	RESOLVE(real, "_ULx86_64_init_local2");
	if (!FROM_UNWINDER())
		shadow_restore();
	return real(cursor, context, flag);
}

#endif
