/*
 * A program run with another allocator preloaded (jemalloc, tcmalloc):
 * it allocates 1000 blocks of 128 bytes (a size class of both, so the
 * allocator's own count is exact), asks each block's usable size, and
 * prints what the allocator itself says it handed out for them.  With
 * mt's malloc going to glibc while malloc_usable_size went to jemalloc,
 * this died of SIGSEGV; sqlite3 under the same preload was served by
 * glibc without a word.
 *
 *   other-allocator    prints "NAME allocated N usable-ok" and exits 0;
 *                      NAME is jemalloc, tcmalloc or none
 */
#include <dlfcn.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1000
#define SIZE 128

static void *blocks[N];

static int (*mallctl)(const char *, void *, size_t *, void *, size_t);
static int (*tc)(const char *, size_t *);

/* What the allocator in use says it has handed out, and its name. */
static long
allocated(const char **name)
{
	uint64_t v = 0;
	size_t n = sizeof(v), sz = 0;

	if (mallctl) {
		*name = "jemalloc";
		return mallctl("thread.allocated", &v, &n, NULL, 0) == 0 ? (long)v : -1;
	}
	if (tc) {
		*name = "tcmalloc";
		return tc("generic.current_allocated_bytes", &sz) ? (long)sz : -1;
	}
	*name = "none";
	return 0;
}

int
main(void)
{
	const char *name;
	long before, after;
	int i, ok = 1;

	*(void **)&mallctl = dlsym(RTLD_DEFAULT, "mallctl");
	*(void **)&tc = dlsym(RTLD_DEFAULT, "MallocExtension_GetNumericProperty");
	before = allocated(&name);
	for (i = 0; i < N; i++)
		blocks[i] = malloc(SIZE);
	after = allocated(&name);
	for (i = 0; i < N; i++) {
		if (malloc_usable_size(blocks[i]) < SIZE)
			ok = 0;
		free(blocks[i]);
	}
	printf("%s allocated %ld usable-%s\n", name, after - before, ok ? "ok" : "wrong");
	return 0;
}
