/*
 * The MemoryTestApp of WPA's documented walkthrough, as WPA-SEMANTICS.md
 * tells it: a 10 MiB steady mapping from main, a second one halfway (a
 * step-up of the steady state), ten transient 10 MiB buffers of about
 * 10 ms from main -> Operation1 -> ManipulateTemporaryBuffer, and a leak
 * of 40-byte blocks from InnerLoopOperation.  Prints the leak's count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define MiB (1024 * 1024)
#define SPIKES 10
#define LEAKS_PER_SPIKE 25

void *volatile sink;

static void
sleep_ms(int ms)
{
	struct timespec t = { 0, (long)ms * 1000000 };

	nanosleep(&t, NULL);
}

static void *
commit(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	memset(p, 1, n);
	return p;
}

/* The leaks of a spike: LEAKS_PER_SPIKE times the argument (1), for a second run to compare. */
static int leaks_per_spike = LEAKS_PER_SPIKE;

__attribute__((noinline)) static void
InnerLoopOperation(void)
{
	int i;

	for (i = 0; i < leaks_per_spike; i++)
		sink = malloc(40);	/* never freed */
}

__attribute__((noinline)) static void
ManipulateTemporaryBuffer(void)
{
	void *p = commit(10 * MiB);

	sleep_ms(10);
	munmap(p, 10 * MiB);
}

__attribute__((noinline)) static void
Operation1(void)
{
	ManipulateTemporaryBuffer();
	InnerLoopOperation();
}

int
main(int argc, char *argv[])
{
	void *steady = commit(10 * MiB), *step = NULL;
	int i;

	if (argc > 1)
		leaks_per_spike = LEAKS_PER_SPIKE * atoi(argv[1]);

	sleep_ms(30);
	for (i = 0; i < SPIKES; i++) {
		if (i == SPIKES / 2) {
			step = commit(10 * MiB);	/* the step-up */
			sleep_ms(30);
		}
		Operation1();
		sleep_ms(30);
	}
	munmap(step, 10 * MiB);
	munmap(steady, 10 * MiB);
	printf("leaks=%d bytes=%d\n", SPIKES * leaks_per_spike, SPIKES * leaks_per_spike * 40);
	return 0;
}
