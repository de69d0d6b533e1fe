/*
 * Workload (a) of the benchmark: N malloc/free pairs of random sizes
 * through a 4096-slot live window, from 64 call sites at depths 0-15.
 */
#include <stdio.h>
#include <stdlib.h>

#define WINDOW 4096

static void *slots[WINDOW];
static unsigned seed = 12345;

static unsigned
rnd(void)
{
	return seed = seed * 1103515245u + 12345u;
}

#define SITE(k) static __attribute__((noinline)) void site##k(unsigned d) \
{ if (d) { site##k(d - 1); __asm__ volatile(""); return; } \
  unsigned s = rnd() % WINDOW; free(slots[s]); slots[s] = malloc(1 + rnd() % 512); }
#define SITES8(a) SITE(a##0) SITE(a##1) SITE(a##2) SITE(a##3) SITE(a##4) SITE(a##5) SITE(a##6) SITE(a##7)
SITES8(0) SITES8(1) SITES8(2) SITES8(3) SITES8(4) SITES8(5) SITES8(6) SITES8(7)
#define REF8(a) site##a##0, site##a##1, site##a##2, site##a##3, site##a##4, site##a##5, site##a##6, site##a##7
static void (*const sites[64])(unsigned) = {
	REF8(0), REF8(1), REF8(2), REF8(3), REF8(4), REF8(5), REF8(6), REF8(7)
};

int
main(int argc, char *argv[])
{
	long i, n = argc > 1 ? atol(argv[1]) : 1000000;
	int k;

	for (i = 0; i < n; i++) {
		k = (int)(rnd() % 64);
		sites[k]((unsigned)k % 16);
	}
	for (i = 0; i < WINDOW; i++)
		free(slots[i]);
	return 0;
}
