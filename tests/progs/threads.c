/*
 * Cross-thread frees under contention: THREADS threads swap fresh
 * allocations into shared slots and free what they took out, so blocks
 * are freed by other threads than made them and addresses come back at
 * once.  Prints what it did: allocs, frees, bytes.
 *   threads [ROUNDS [THREADS]]: 50000 rounds, 4 threads unless said (64 at most)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS_MAX 64
#define SLOTS 64

static void *slots[SLOTS];
static unsigned rounds = 50000;

static void *
worker(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg * 2654435761u, i;
	size_t bytes = 0;

	for (i = 0; i < rounds; i++) {
		size_t n = 16 + (seed = seed * 1103515245 + 12345) % 200;
		void *p = malloc(n), *old;
		bytes += n;
		old = __atomic_exchange_n(&slots[(seed >> 8) % SLOTS], p, __ATOMIC_ACQ_REL);
		free(old);
	}
	return (void *)bytes;
}

int
main(int argc, char *argv[])
{
	pthread_t t[THREADS_MAX];
	size_t bytes = 0, frees = 0;
	void *r;
	int i, threads = 4;

	if (argc > 1)
		rounds = (unsigned)strtoul(argv[1], NULL, 10);
	if (argc > 2 && (threads = atoi(argv[2])) < 1)
		threads = 1;
	if (threads > THREADS_MAX)
		threads = THREADS_MAX;
	for (i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1));
	for (i = 0; i < threads; i++) {
		pthread_join(t[i], &r);
		bytes += (size_t)r;
	}
	for (i = 0; i < SLOTS; i++)
		if (slots[i]) {
			free(slots[i]);
			frees++;
		}
	/* Every round frees the slot's old block, NULL the first time. */
	printf("allocs=%zu frees=%zu bytes=%zu\n", (size_t)threads * rounds,
	    (size_t)threads * rounds - SLOTS + frees, bytes);
	return 0;
}
