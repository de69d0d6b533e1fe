/*
 * A process whose memory, per allocating function, does what mt-pooldiff
 * must tell apart: LeakyCache leaks 10 blocks of 48 bytes every 20 ms
 * tick; NoisyBuffers takes 20 blocks of 1000 bytes for three ticks and
 * gives them back over the next three, up and down; GrowOnce takes 1 MB
 * in ten blocks at tick 10 and holds it; GrowThenShrink grows for the
 * first half and frees everything in the second.  Runs 100 ticks (about
 * 2 s) and prints the leak's bytes and the seconds it ran.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define TICKS 100

void *volatile sink;
static void *noisy[60], *once[10], *shrink[TICKS * 4];
static int nnoisy, nshrink;
static long leaked;

__attribute__((noinline)) static void
LeakyCache(void)
{
	int i;

	for (i = 0; i < 10; i++) {
		sink = malloc(48);
		leaked += 48;
	}
}

__attribute__((noinline)) static void
NoisyBuffers(int tick)
{
	int i;

	if ((tick / 3) % 2 == 0)
		for (i = 0; i < 20 && nnoisy < 60; i++)
			noisy[nnoisy++] = malloc(1000);
	else
		for (i = 0; i < 20 && nnoisy > 0; i++)
			free(noisy[--nnoisy]);
}

__attribute__((noinline)) static void
GrowOnce(void)
{
	int i;

	for (i = 0; i < 10; i++)
		once[i] = malloc(100 * 1024);
}

__attribute__((noinline)) static void
GrowThenShrink(int tick)
{
	int i;

	if (tick < TICKS / 2)
		for (i = 0; i < 4; i++)
			shrink[nshrink++] = malloc(256);
	else
		for (i = 0; i < 8 && nshrink > 0; i++)
			free(shrink[--nshrink]);
}

int
main(void)
{
	struct timespec t0, t1, tick = { 0, 20 * 1000000 };
	int i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < TICKS; i++) {
		LeakyCache();
		NoisyBuffers(i);
		if (i == 10)
			GrowOnce();
		GrowThenShrink(i);
		nanosleep(&tick, NULL);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	while (nnoisy > 0)
		free(noisy[--nnoisy]);
	for (i = 0; i < 10; i++)
		free(once[i]);
	printf("%ld %.3f\n", leaked, (double)(t1.tv_sec - t0.tv_sec) +
	    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}
