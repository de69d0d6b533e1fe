/*
 * A daemon's start: fork, setsid, fork again, close every descriptor
 * (close_range from 0), then work: N allocations and frees in the main
 * thread and as many in a new one.  The first process exits at once.
 *
 *   daemon-closeall [N]
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static long n = 200000;

static void *
work(void *arg)
{
	void *volatile p;
	long i;

	(void)arg;
	for (i = 0; i < n; i++) {
		p = malloc(72);
		free(p);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t t;

	if (argc > 1)
		n = atol(argv[1]);
	if (fork() != 0)
		return 0;
	setsid();
	if (fork() != 0)
		_exit(0);
	syscall(SYS_close_range, 0, ~0u, 0);
	work(NULL);
	if (pthread_create(&t, NULL, work, NULL) == 0)
		pthread_join(t, NULL);
	return 0;
}
