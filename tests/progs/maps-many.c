/*
 * Many small mappings, as a runtime that maps page by page: N (default
 * 400000) anonymous pages mapped one at a time, the kernel placing each
 * below the last, then unmapped from the lowest up.  mt-record's view
 * of them was a sorted array: each insert and each removal moved every
 * mapping after it, 21 s for 400k.  (Unmapping every other page would
 * split the kernel's one merged mapping past vm.max_map_count.)
 *
 *   maps-many [N]      prints "mapped N" and exits 0
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 400000, i;
	char **p = malloc((size_t)n * sizeof(*p));

	if (!p)
		return 1;
	for (i = 0; i < n; i++) {
		p[i] = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p[i] == MAP_FAILED)
			return 1;
	}
	for (i = n; i-- > 0;)
		if (munmap(p[i], 4096) < 0)
			return 1;
	free(p);
	printf("mapped %ld\n", n);
	return 0;
}
