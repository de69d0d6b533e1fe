/*
 * tests/bench/uprobes.sh's program: N malloc/free pairs (argv[1],
 * default 1,000,000) of small sizes varying from 1 to 512 bytes, each
 * from alloc_one() called by main: a stack two frames deep.  The block
 * escapes through an empty asm, so that the compiler elides no pair.
 * With "stop" as argv[2] it stops itself (SIGSTOP) before the loop, for
 * a tracer that needs a pid (memleak -p) to attach first.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static unsigned seed = 12345;

static __attribute__((noinline)) void
alloc_one(void)
{
	char *p;

	seed = seed * 1103515245u + 12345u;
	p = malloc(1 + (seed >> 16) % 512);
	__asm__ volatile("" : : "r"(p) : "memory");
	free(p);
}

int
main(int argc, char *argv[])
{
	long i, n = argc > 1 ? atol(argv[1]) : 1000000;

	if (argc > 2 && strcmp(argv[2], "stop") == 0)
		raise(SIGSTOP);
	for (i = 0; i < n; i++)
		alloc_one();
	return 0;
}
