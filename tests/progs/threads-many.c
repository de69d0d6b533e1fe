/*
 * Many threads allocating at once: T (default 200) threads, each making
 * and freeing R (default 20000) blocks as fast as it can.  Their rings
 * fill faster than mt-record reads them, and the threads wait: they
 * polled for room with sched_yield and 100 us sleeps, 40 times slower
 * than untraced and 12 s of system time.
 *
 *   threads-many [T [R]]   prints "threads T rounds R" and exits 0
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long rounds = 20000;

static void *
worker(void *arg)
{
	void *volatile p;
	long i;

	(void)arg;
	for (i = 0; i < rounds; i++) {
		p = malloc(16 + (size_t)(i & 255));
		free(p);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200, i;
	pthread_t *t;

	if (argc > 2)
		rounds = atol(argv[2]);
	if (!(t = malloc((size_t)n * sizeof(*t))))
		return 1;
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, worker, NULL) != 0)
			return 1;
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	printf("threads %ld rounds %ld\n", n, rounds);
	return 0;
}
