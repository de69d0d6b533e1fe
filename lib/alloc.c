/* Allocation helpers that exit when memory runs out. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mt.h"

static void
enomem(void)
{
	mt_errx(1, "out of memory");
}

void *
emalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		enomem();
	return p;
}

void *
ecalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		enomem();
	return p;
}

void *
erealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		enomem();
	return p;
}

void *
egrow(void *p, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : 64;
	if (*cap > SIZE_MAX / size)
		enomem();
	return erealloc(p, *cap * size);
}

/*
 * A large zeroed table that is probed at random (the pairer's blocks):
 * its pages are made at once.  calloc's pages come one fault at a time,
 * and a probe that reads one first maps the zero page, so that the write
 * after it faults again.
 * Freed with etable_free and the same sizes.
 */
#define TABLE_MAP_MIN	(4u << 20)

void *
etable_calloc(size_t n, size_t size)
{
	void *p;

	if (size && n > SIZE_MAX / size)
		enomem();
	if (n * size < TABLE_MAP_MIN)
		return ecalloc(n, size);
	p = mmap(NULL, n * size, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		enomem();
#ifdef MADV_HUGEPAGE
	madvise(p, n * size, MADV_HUGEPAGE);
#endif
#ifdef MADV_POPULATE_WRITE
	madvise(p, n * size, MADV_POPULATE_WRITE);
#endif
	return p;
}

/*
 * The table of n grown to newn, its n first in place and zeroes after:
 * a mapped table is remapped, so that its pages are neither made again
 * nor copied, and only the new ones are made (at once, as above).
 */
void *
etable_grow(void *p, size_t n, size_t newn, size_t size)
{
	size_t len = n * size, newlen;
	char *q;

	if (size && newn > SIZE_MAX / size)
		enomem();
	newlen = newn * size;
	if (newlen < TABLE_MAP_MIN) {
		q = erealloc(p, newlen);
		memset(q + len, 0, newlen - len);
		return q;
	}
	if (len < TABLE_MAP_MIN) {
		q = etable_calloc(newn, size);
		memcpy(q, p, len);
		free(p);
		return q;
	}
	q = mremap(p, len, newlen, MREMAP_MAYMOVE);
	if (q == MAP_FAILED)
		enomem();
#ifdef MADV_HUGEPAGE
	madvise(q, newlen, MADV_HUGEPAGE);
#endif
#ifdef MADV_POPULATE_WRITE
	madvise(q + len, newlen - len, MADV_POPULATE_WRITE);	/* else page by page */
#endif
	return q;
}

void
etable_free(void *p, size_t n, size_t size)
{
	if (!p)
		return;
	if (n * size < TABLE_MAP_MIN)
		free(p);
	else
		munmap(p, n * size);
}

char *
estrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		enomem();
	return p;
}

/* The n bytes at s, which need not be terminated, as a string. */
char *
estrndup(const char *s, size_t n)
{
	char *p = emalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

/* A program's output is only done when its close has succeeded. */
