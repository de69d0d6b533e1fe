/*
 * A program with its own xmalloc, the wrapper that dies when malloc
 * fails (as libiberty's in GCC and git's wrapper.c have it): 100 blocks
 * of 48 bytes from build_list through it, 7 of 96 from read_config
 * through xcalloc.  Its allocations are its callers', not xmalloc's.
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void *
xmalloc(size_t n)
{
	void *p = malloc(n);

	if (!p) {
		fputs("out of memory\n", stderr);
		exit(1);
	}
	return p;
}

__attribute__((noinline)) void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p)
		exit(1);
	return p;
}

__attribute__((noinline)) static void **
build_list(int n)
{
	void **v = xcalloc((size_t)n, sizeof(*v));

	for (int i = 0; i < n; i++)
		v[i] = xmalloc(48);
	return v;
}

__attribute__((noinline)) static void
read_config(void)
{
	for (int i = 0; i < 7; i++)
		free(xcalloc(1, 96));
}

int
main(void)
{
	void **v = build_list(100);

	read_config();
	for (int i = 0; i < 100; i++)
		free(v[i]);
	free(v);
	return 0;
}
