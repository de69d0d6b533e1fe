/*
 * tcx: tcmalloc's own API (tc_malloc, tc_calloc, tc_realloc, tc_free),
 * from a program linked with Debian's libtcmalloc_minimal.so.4 (no -dev
 * package: declared here); prints its own counts.
 */
#include <stddef.h>
#include <stdio.h>

void *tc_malloc(size_t);
void *tc_calloc(size_t, size_t);
void *tc_realloc(void *, size_t);
void tc_free(void *);

int
main(void)
{
	unsigned long allocs = 0, frees = 0, bytes = 0;
	static void *volatile keep[4];
	void *p, *q;
	int i;

	setvbuf(stdout, NULL, _IONBF, 0);
	for (i = 0; i < 250; i++) {
		p = tc_malloc(48 + (size_t)i);
		allocs++, bytes += 48 + (size_t)i;
		p = tc_realloc(p, 2000);
		allocs++, frees++, bytes += 2000;
		q = tc_calloc(8, 16);
		allocs++, bytes += 128;
		tc_free(q);
		tc_free(p);
		frees += 2;
	}
	for (i = 0; i < 4; i++) {
		keep[i] = tc_malloc(321);
		allocs++, bytes += 321;
	}
	printf("allocs %lu frees %lu bytes %lu\n", allocs, frees, bytes);
	return 0;
}
