/*
 * jemx: jemalloc's own API (mallocx, rallocx, sdallocx, dallocx) and its
 * malloc and free, from a program linked with -ljemalloc; prints its own
 * counts.  LD_PRELOAD's malloc stands in front of jemalloc's malloc, not
 * of mallocx: only uprobes see all of them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <jemalloc/jemalloc.h>

int
main(void)
{
	unsigned long allocs = 0, frees = 0, bytes = 0;
	static void *volatile keep[3];
	void *p;
	int i;

	setvbuf(stdout, NULL, _IONBF, 0);
	for (i = 0; i < 300; i++) {
		p = mallocx(100 + (size_t)i, 0);
		allocs++, bytes += 100 + (size_t)i;
		p = rallocx(p, 4000 + (size_t)i, 0);
		allocs++, frees++, bytes += 4000 + (size_t)i;
		sdallocx(p, 4000 + (size_t)i, 0);
		frees++;
		p = malloc(50);
		allocs++, bytes += 50;
		if (i % 2)
			dallocx(p, 0);
		else
			free(p);
		frees++;
	}
	for (i = 0; i < 3; i++) {
		keep[i] = mallocx(777, 0);
		allocs++, bytes += 777;
	}
	printf("allocs %lu frees %lu bytes %lu\n", allocs, frees, bytes);
	return 0;
}
