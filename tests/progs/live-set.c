/*
 * Test program: N blocks of SIZE bytes (default 16) allocated, all live
 * at once, then freed in the order they were made (or, with -r, in a
 * shuffled order).  The live set of tests/bench/pairing.sh.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int
main(int argc, char *argv[])
{
	size_t n, size = 16, i, j;
	int shuffle = 0;
	void **v, *x;
	unsigned long r = 88172645463325252UL;

	if (argc > 1 && strcmp(argv[1], "-r") == 0) {
		shuffle = 1;
		argc--;
		argv++;
	}
	if (argc < 2)
		return 2;
	n = strtoul(argv[1], NULL, 10);
	if (argc > 2)
		size = strtoul(argv[2], NULL, 10);
	/* The array of pointers is mapped, not allocated: not one of the set. */
	v = mmap(NULL, n * sizeof(*v) + 1, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (v == MAP_FAILED)
		return 1;
	for (i = 0; i < n; i++)
		if (!(v[i] = malloc(size)))
			return 1;
	if (shuffle)
		for (i = n; i > 1; i--) {
			r ^= r << 13;
			r ^= r >> 7;
			r ^= r << 17;
			j = r % i;
			x = v[i - 1];
			v[i - 1] = v[j];
			v[j] = x;
		}
	for (i = 0; i < n; i++)
		free(v[i]);
	return 0;
}
