/* The memalign family and calloc: each allocation and its alignment. */
#include <malloc.h>
#include <stdint.h>
#include <mcheck.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int
main(void)
{
	void *p[8];
	size_t bytes = 0;
	long page = sysconf(_SC_PAGESIZE);
	int i;

	mtrace();	/* the oracle: glibc's mtrace, when MALLOC_TRACE asks */

	if (posix_memalign(&p[0], 64, 100) != 0) return 2;
	bytes += 100;
	if (posix_memalign(&p[1], 3, 100) == 0) return 3;	/* EINVAL: not counted */
	p[1] = aligned_alloc(256, 512);
	bytes += 512;
	p[2] = memalign(128, 1000);
	bytes += 1000;
	p[3] = valloc(10);
	bytes += 10;
	p[4] = pvalloc(10);
	bytes += 10;
	p[5] = calloc(7, 9);
	bytes += 63;
	p[6] = malloc(1);
	bytes += 1;
	p[7] = reallocarray(NULL, 3, 5);
	bytes += 15;
	if ((uintptr_t)p[0] % 64 || (uintptr_t)p[1] % 256 || (uintptr_t)p[2] % 128 ||
	    (uintptr_t)p[3] % (uintptr_t)page || (uintptr_t)p[4] % (uintptr_t)page)
		return 4;
	for (i = 0; i < 8; i++)
		free(p[i]);
	printf("allocs=8 frees=8 bytes=%zu\n", bytes);
	return 0;
}
