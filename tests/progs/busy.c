/*
 * busy [SECONDS [THREADS]]: allocates and frees as fast as it can, 64
 * blocks live a thread, for SECONDS (default 2; 0: until SIGTERM), in
 * THREADS threads (default 1), then frees all and prints
 * "allocs N frees N": the counts a recording of it must hold.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t done;
static double seconds = 2;

struct counts {
	unsigned long allocs, frees;
};

static void
on_term(int sig)
{
	(void)sig;
	done = 1;
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *
run(void *arg)
{
	struct counts *c = arg;
	void *live[64] = { 0 };
	double end = now() + seconds;
	unsigned i = 0, k;

	while (!done && (seconds == 0 || (i & 1023) || now() < end)) {
		k = i++ & 63;
		if (live[k]) {
			free(live[k]);
			c->frees++;
		}
		live[k] = malloc(16 + (i * 7919) % 2000);
		c->allocs++;
	}
	for (k = 0; k < 64; k++)
		if (live[k]) {
			free(live[k]);
			c->frees++;
		}
	return NULL;
}

int
main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 1, i;
	struct counts *c;
	pthread_t *t;
	unsigned long a = 0, f = 0;

	if (argc > 1)
		seconds = atof(argv[1]);
	if (n < 1)
		n = 1;
	signal(SIGTERM, on_term);
	c = calloc((size_t)n, sizeof(*c));
	t = calloc((size_t)n, sizeof(*t));
	for (i = 0; i < n; i++)
		pthread_create(&t[i], NULL, run, &c[i]);
	for (i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		a += c[i].allocs;
		f += c[i].frees;
	}
	printf("allocs %lu frees %lu\n", a, f);
	return 0;
}
