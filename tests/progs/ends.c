/*
 * The ways a program ends: abort, SIGKILL, _exit, exit from a thread.
 * Each allocates first: what reached the recorder must be kept.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Kept where the compiler cannot see that nobody reads it. */
void *volatile sink;

static void *
exit_from_thread(void *arg)
{
	sink = malloc(99);
	exit(7);
	return arg;
}

int
main(int argc, char *argv[])
{
	int i;
	pthread_t t;

	for (i = 0; i < 1000; i++)
		sink = malloc(16);
	if (argc < 2)
		return 0;
	if (strcmp(argv[1], "abort") == 0)
		abort();
	if (strcmp(argv[1], "kill") == 0)
		kill(getpid(), SIGKILL);
	if (strcmp(argv[1], "_exit") == 0)
		_exit(6);
	if (strcmp(argv[1], "thread") == 0) {
		pthread_create(&t, NULL, exit_from_thread, NULL);
		pthread_join(t, NULL);
	}
	return 1;
}
