/*
 * mimx: mimalloc's own API (mi_malloc, mi_zalloc, mi_calloc, mi_realloc,
 * mi_free) from a program linked with -lmimalloc; prints its own counts.
 */
#include <stdio.h>
#include <mimalloc.h>

int
main(void)
{
	unsigned long allocs = 0, frees = 0, bytes = 0;
	static void *volatile keep[2];
	void *p, *q;
	int i;

	setvbuf(stdout, NULL, _IONBF, 0);
	for (i = 0; i < 200; i++) {
		p = mi_malloc(64 + (size_t)i);
		allocs++, bytes += 64 + (size_t)i;
		p = mi_realloc(p, 3000);
		allocs++, frees++, bytes += 3000;
		q = mi_calloc(4, 25);
		allocs++, bytes += 100;
		mi_free(p);
		mi_free(q);
		frees += 2;
		p = mi_zalloc(40);
		allocs++, bytes += 40;
		mi_free(p);
		frees++;
	}
	for (i = 0; i < 2; i++) {
		keep[i] = mi_malloc(555);
		allocs++, bytes += 555;
	}
	printf("allocs %lu frees %lu bytes %lu\n", allocs, frees, bytes);
	return 0;
}
