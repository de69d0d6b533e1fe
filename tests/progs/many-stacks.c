/*
 * Test program: N allocations (default 20000), each from a distinct call
 * stack (a path of 14 levels through two functions: 16384 paths, and the
 * rest from the same paths at a fifteenth level), freed at once; then M
 * (default 200000) malloc/free pairs of 64 bytes from one stack.  What a
 * python run's thousands of stacks look like to a circular trace.
 */
#include <stdlib.h>

#define LEVELS 15

static void *volatile sink;
static void walk(unsigned path, int level);

__attribute__((noinline)) static void
left(unsigned path, int level)
{
	walk(path, level + 1);
	__asm__ volatile("");
}

__attribute__((noinline)) static void
right(unsigned path, int level)
{
	walk(path, level + 1);
	__asm__ volatile("");
}

__attribute__((noinline)) static void
walk(unsigned path, int level)
{
	if (level == LEVELS) {
		free(sink);
		sink = malloc(32);
		return;
	}
	if (path >> level & 1)
		right(path, level);
	else
		left(path, level);
	__asm__ volatile("");
}

__attribute__((noinline)) static void
churn(unsigned long m)
{
	while (m--) {
		sink = malloc(64);
		free(sink);
	}
	sink = NULL;
}

int
main(int argc, char *argv[])
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000;
	unsigned long m = argc > 2 ? strtoul(argv[2], NULL, 10) : 200000;
	unsigned long i;

	for (i = 0; i < n; i++)
		walk((unsigned)i, 0);
	free(sink);
	churn(m);
	return 0;
}
