/*
 * handoff: what handing decoded records from one core to another costs,
 * the floor under splitting mt-report's one pass across two threads
 * (issue 43).  A producer fills batches of 48-byte records (an
 * allocation or free as the pairer reads it) and a consumer reads each
 * record's fields, as the pairing thread would; batches go round a ring.
 * Printed: ns a record with both in one thread, with the two threads on
 * two cores, and with both threads on one core (the hand-off's code
 * without the transfer between caches).
 *
 *	cc -O2 -pthread -o handoff handoff.c && ./handoff [records] [batch]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct rec {
	uint64_t ts, addr, size, stack;
	int32_t pid, tid;
	uint32_t heap, type;
};

#define RING 8

static struct rec *ring[RING];
static _Atomic uint64_t made, taken;	/* batches */
static size_t batch;
static uint64_t nbatches;
static volatile uint64_t sink;

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void
fill(struct rec *b, uint64_t k)
{
	size_t i;

	for (i = 0; i < batch; i++) {
		uint64_t x = k * batch + i;
		b[i] = (struct rec){ x * 3, 0x55d000000000 + (x * 48 & 0xfffffff), x & 511,
			x % 300, 4242, (int32_t)(x & 3), 0, (uint32_t)(x & 1) };
	}
}

static uint64_t
use(const struct rec *b)
{
	uint64_t s = 0;
	size_t i;

	for (i = 0; i < batch; i++)
		s += b[i].ts ^ b[i].addr ^ b[i].size ^ b[i].stack ^ (uint64_t)b[i].tid ^ b[i].type;
	return s;
}

static void
pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static int consumer_cpu;

static void *
producer(void *arg)
{
	uint64_t k;

	pin(*(int *)arg);
	for (k = 0; k < nbatches; k++) {
		while (k - atomic_load_explicit(&taken, memory_order_acquire) >= RING)
			sched_yield();
		fill(ring[k % RING], k);
		atomic_store_explicit(&made, k + 1, memory_order_release);
	}
	return NULL;
}

static double
two(int pcpu, int ccpu)
{
	pthread_t t;
	uint64_t k, s = 0;
	double t0;

	atomic_store(&made, 0);
	atomic_store(&taken, 0);
	consumer_cpu = ccpu;
	pin(ccpu);
	t0 = now();
	pthread_create(&t, NULL, producer, &pcpu);
	for (k = 0; k < nbatches; k++) {
		while (atomic_load_explicit(&made, memory_order_acquire) <= k)
			sched_yield();
		s += use(ring[k % RING]);
		atomic_store_explicit(&taken, k + 1, memory_order_release);
	}
	pthread_join(t, NULL);
	sink = s;
	return now() - t0;
}

static double
one(void)
{
	uint64_t k, s = 0;
	double t0 = now();

	pin(0);
	for (k = 0; k < nbatches; k++) {
		fill(ring[k % RING], k);
		s += use(ring[k % RING]);
	}
	sink = s;
	return now() - t0;
}

int
main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 100000000;
	int i;
	double a, b, c;

	batch = argc > 2 ? strtoull(argv[2], NULL, 0) : 4096;
	nbatches = n / batch;
	for (i = 0; i < RING; i++)
		ring[i] = aligned_alloc(64, batch * sizeof(struct rec));
	a = one();
	b = two(1, 0);
	c = two(0, 0);
	n = nbatches * batch;
	printf("%llu records of %zu bytes, batches of %zu, a ring of %d\n",
	    (unsigned long long)n, sizeof(struct rec), batch, RING);
	printf("one thread:               %6.2f ns a record\n", a * 1e9 / n);
	printf("two threads, two cores:   %6.2f ns a record (the consumer's wall)\n", b * 1e9 / n);
	printf("two threads, one core:    %6.2f ns a record\n", c * 1e9 / n);
	return 0;
}
