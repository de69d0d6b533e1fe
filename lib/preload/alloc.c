/*
 * The malloc family, interposed: each passes the call on to the next
 * allocator and records what it got (alloc) or gave back (free).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "preload.h"

static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);

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

/* Before the program's first call: looked up in the allocator's place. */
void
alloc_resolve(void)
{
	*(void **)&real_posix_memalign = next_sym("posix_memalign");
	*(void **)&real_aligned_alloc = next_sym("aligned_alloc");
}
