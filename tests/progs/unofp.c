/*
 * unofp: a program built without frame pointers (-fomit-frame-pointer),
 * as Debian builds its packages: a frame-pointer chain does not reach
 * its callers, a copy of the stack unwound by call frame information
 * does.  Chains of three functions with frames of their own, in main
 * and in a thread; a recursion N deep (argument 1, default 0) under
 * frames of 512 bytes; an allocation in a signal handler; the first
 * allocation grows the heap by brk inside malloc.  Prints its own counts.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

static volatile long sink;
static int allocs, frees;

NOINLINE static void *
leaf(size_t n)
{
	volatile char pad[24];
	void *p;

	pad[0] = (char)n;
	p = malloc(n + (size_t)pad[0] * 0);
	allocs++;
	sink += (long)p;
	return p;
}

NOINLINE static void *
mid(size_t n)
{
	volatile char pad[72];
	void *p;

	pad[0] = 1;
	p = leaf(n + (size_t)pad[0] - 1);
	sink += pad[0];
	return p;
}

NOINLINE static void *
top(size_t n)
{
	void *p = mid(n);

	sink += (long)n;
	return p;
}

/* 512 bytes a frame: a deep stack that a small copy does not hold. */
NOINLINE static void *
deep(int depth)
{
	volatile char pad[512];
	void *p;

	memset((char *)pad, depth, sizeof(pad));
	p = depth > 0 ? deep(depth - 1) : leaf(7777);
	sink += pad[depth % 512];
	return p;
}

/* A handler that allocates (the test's, not a safe thing to do): its
   stack goes through the kernel's signal frame to raise and main. */
static void
on_signal(int sig)
{
	free(top(4000 + (size_t)sig));
	frees++;
}

static void *
thread_main(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 20; i++) {
		free(top(3000 + (size_t)i));
		frees++;
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 0, i;
	pthread_t t;
	void *keep[10];

	for (i = 0; i < 10; i++)
		keep[i] = top(1000 + (size_t)i);
	if (pthread_create(&t, NULL, thread_main, NULL) != 0 || pthread_join(t, NULL) != 0)
		return 1;
	if (depth > 0)
		free(deep(depth)), frees++;
	signal(SIGUSR1, on_signal);
	raise(SIGUSR1);
	for (i = 0; i < 10; i += 2)
		free(keep[i]), frees++;
	printf("allocs %d frees %d\n", allocs, frees);
	return 0;
}
