/*
 * Detached threads that free at their end: a key's destructor frees the
 * thread's block, and the loader frees the thread's DTV after every
 * destructor -- after the recorder closed the thread's ring.  The next
 * threads reuse the stacks, TLS and DTV addresses.
 *
 *   detached-exit [N]     N threads (default 2000); prints "done N"
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_key_t key;
static int finished;

static void
drop(void *p)
{
	free(p);
	__atomic_fetch_add(&finished, 1, __ATOMIC_RELAXED);
}

static void *
work(void *arg)
{
	void *volatile q;

	(void)arg;
	pthread_setspecific(key, malloc(100));
	q = malloc(200);
	free(q);
	return NULL;
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2000, i;
	pthread_attr_t a;
	pthread_t t;

	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	pthread_key_create(&key, drop);
	for (i = 0; i < n; i++)
		while (pthread_create(&t, &a, work, NULL) != 0)
			usleep(1000);
	while (__atomic_load_n(&finished, __ATOMIC_RELAXED) < n)
		usleep(1000);
	usleep(100000);	/* past the threads' very ends */
	printf("done %d\n", n);
	return 0;
}
