/*
 * temps: allocations freed at once, and others that are not.  churn()
 * makes 1000 blocks, each freed before the next is made: 1000 temporary.
 * pairs() makes 500 pairs a, b and frees a, then b: a is not temporary
 * (b was made after it), b is (no allocation by the thread after it,
 * though a free came between: the rule of the thread's allocations).
 * keep() makes 100 blocks that live to the end.
 */
#include <stdlib.h>
#include <string.h>

static void *volatile sink;

static void __attribute__((noinline))
churn(void)
{
	int i;

	for (i = 0; i < 1000; i++) {
		char *p = malloc(64);
		memset(p, 1, 64);
		sink = p;
		free(p);
	}
}

static void __attribute__((noinline))
pairs(void)
{
	int i;

	for (i = 0; i < 500; i++) {
		char *a = malloc(32), *b = malloc(48);
		sink = a;
		sink = b;
		free(a);
		free(b);
	}
}

static void __attribute__((noinline))
keep(void)
{
	int i;

	for (i = 0; i < 100; i++)
		sink = malloc(16);
}

int
main(void)
{
	churn();
	pairs();
	keep();
	return 0;
}
