/*
 * realloc chains as glibc does them: realloc(NULL, n) allocates,
 * realloc(p, 0) frees, a failed realloc leaves p alone.  Prints what it
 * did in the malloc heap.
 */
#include <stdint.h>
#include <mcheck.h>
#include <stdio.h>
#include <stdlib.h>

int
main(void)
{
	size_t allocs = 0, frees = 0, bytes = 0, n;
	char *p = NULL, *q;
	int i;

	mtrace();	/* the oracle: glibc's mtrace, when MALLOC_TRACE asks */

	for (i = 1; i <= 100; i++) {
		n = (size_t)i * 24;
		q = realloc(p, n);
		if (p)
			frees++;
		allocs++;
		bytes += n;
		p = q;
	}
	q = realloc(p, SIZE_MAX / 2);	/* fails: p is still ours */
	if (q)
		return 2;
	p = realloc(p, 0);		/* frees, returns NULL */
	frees++;
	if (p)
		return 3;
	p = reallocarray(NULL, 10, 10);
	allocs++;
	bytes += 100;
	free(p);
	frees++;
	printf("allocs=%zu frees=%zu bytes=%zu\n", allocs, frees, bytes);
	return 0;
}
