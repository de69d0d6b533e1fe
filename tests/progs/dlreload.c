/*
 * Loads and unloads two libraries in turn (each where the other was),
 * allocating from inside each: stacks through frames whose rules change
 * at the same addresses.  dlreload LIB_A LIB_B ROUNDS
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static long total;

static void
cb(int n)
{
	char *p = malloc(24 + (size_t)(n & 7));

	total += p != NULL;
	free(p);
}

int
main(int argc, char *argv[])
{
	int i, rounds = argc > 3 ? atoi(argv[3]) : 100, same = 0;
	void *h, *last = NULL;
	void (*fn)(void (*)(int), int);

	if (argc < 3)
		return 2;
	for (i = 0; i < rounds; i++) {
		h = dlopen(argv[1 + i % 2], RTLD_NOW);
		if (!h) {
			fprintf(stderr, "%s\n", dlerror());
			return 2;
		}
		fn = (void (*)(void (*)(int), int))dlsym(h, "lib_call");
		same += (void *)fn == last;
		last = (void *)fn;
		fn(cb, i);
		dlclose(h);
	}
	printf("dlreload: %ld allocations\n", total);
	/* Where the test can see that the two went to one address. */
	fprintf(stderr, "dlreload: %d of %d loads where the other was\n", same, rounds - 1);
	return 0;
}
