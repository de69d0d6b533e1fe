/*
 * Thread after thread, each ended and joined before the next: what the
 * library keeps for a thread must go when the thread does.  Each thread
 * allocates from call chains of several depths, enough events that the
 * shadow stack settles into walking (and remembering walks).  Prints
 * the address space's growth from the 50th thread to the last, in kB.
 *
 *   threads-churn [THREADS [ROUNDS]]   (default 300 threads, 10000 rounds)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long rounds = 10000;
static volatile long sink;

static __attribute__((noinline)) void
chain(int d, size_t n)
{
	if (d > 0) {
		chain(d - 1, n);
		sink++;
		return;
	}
	void *volatile p = malloc(n);

	free(p);
}

static void *
worker(void *arg)
{
	long i;

	(void)arg;
	for (i = 0; i < rounds; i++)
		chain((int)(i % 7), 16 + (size_t)(i & 127));
	return NULL;
}

static long
vm_size_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmSize:", 7))
			kb = strtol(line + 7, NULL, 10);
	fclose(f);
	return kb;
}

int
main(int argc, char *argv[])
{
	long threads = argc > 1 ? atol(argv[1]) : 300, i, at50 = 0;
	pthread_t t;

	if (argc > 2)
		rounds = atol(argv[2]);
	for (i = 0; i < threads; i++) {
		if (pthread_create(&t, NULL, worker, NULL) != 0)
			return 1;
		pthread_join(t, NULL);
		if (i == 49)
			at50 = vm_size_kb();
	}
	printf("threads %ld grew %ld kB\n", threads, vm_size_kb() - at50);
	return 0;
}
