/*
 * ucount: allocations of every kind the uprobes recorder probes, with
 * their own count printed; built dynamic, glibc static and musl static
 * (tests/uprobes.bats).  Leaks LEAKS blocks from leak_here().
 */
#include <stdio.h>
#include <stdlib.h>
#include <malloc.h>

#define ROUNDS 100

static unsigned long allocs, frees, bytes;

static __attribute__((noinline)) void *
leak_here(size_t n)
{
	void *p = malloc(n);

	allocs++;
	bytes += n;
	return p;
}

int
main(void)
{
	void *keep[7];
	void *p, *q;
	int i;

	/* No stdio buffer of malloc's: the counts are the program's own. */
	setvbuf(stdout, NULL, _IONBF, 0);
	for (i = 0; i < ROUNDS; i++) {
		p = malloc(100);
		allocs++, bytes += 100;
		q = calloc(10, 30);
		allocs++, bytes += 300;
		p = realloc(p, 5000);
		allocs++, frees++, bytes += 5000;
		free(p);
		frees++;
		free(q);
		frees++;
		if (posix_memalign(&p, 64, 256) == 0) {
			allocs++, bytes += 256;
			free(p);
			frees++;
		}
		p = aligned_alloc(128, 512);
		allocs++, bytes += 512;
		free(p);
		frees++;
	}
	for (i = 0; i < 7; i++)
		keep[i] = leak_here(4000 + (size_t)i);
	printf("allocs %lu frees %lu bytes %lu leaked 7 %p\n", allocs, frees, bytes, keep[0]);
	return 0;
}
