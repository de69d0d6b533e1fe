/*
 * Workload (d) of the benchmark: allocations under a recursion 40 to 80
 * frames deep, as an interpreter's are: the deep part stays while the
 * top few frames change from one allocation to the next.
 *   deep [ROUNDS]: ROUNDS calls at the bottom, two malloc/free pairs each.
 */
#include <stdio.h>
#include <stdlib.h>

#define WINDOW 1024
#define PER_DEPTH 1000

static void *slots[WINDOW];
static unsigned seed = 12345;
static volatile long sink;

static unsigned
rnd(void)
{
	return seed = seed * 1103515245u + 12345u;
}

static __attribute__((noinline)) void
leaf(unsigned d)
{
	unsigned s, k;

	if (d) {
		leaf(d - 1);
		sink++;
		return;
	}
	for (k = 0; k < 2; k++) {
		s = rnd() % WINDOW;
		free(slots[s]);
		slots[s] = malloc(1 + rnd() % 256);
	}
}

static __attribute__((noinline)) void
down(unsigned d, long rounds)
{
	long i;

	if (d) {
		down(d - 1, rounds);
		sink++;
		return;
	}
	for (i = 0; i < rounds; i++)
		leaf(rnd() % 6);
}

int
main(int argc, char *argv[])
{
	long n = argc > 1 ? atol(argv[1]) : 500000, done;
	int i;

	for (done = 0; done < n; done += PER_DEPTH)
		down(40 + rnd() % 41, n - done < PER_DEPTH ? n - done : PER_DEPTH);
	for (i = 0; i < WINDOW; i++)
		free(slots[i]);
	printf("deep: %ld rounds\n", n);
	return 0;
}
