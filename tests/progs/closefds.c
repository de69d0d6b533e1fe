/*
 * A program that closes every descriptor it did not open, as daemons do,
 * and goes on allocating, in its own thread and in a new one.  Prints
 * how many allocations it made before and after.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

void *volatile sink;

static void *
work(void *arg)
{
	long i;

	for (i = 0; i < (long)(intptr_t)arg; i++)
		free(sink = malloc(48));
	return NULL;
}

int
main(void)
{
	pthread_t t;

	work((void *)100);
	syscall(SYS_close_range, 3, ~0u, 0);
	work((void *)200000);		/* more than a ring holds */
	pthread_create(&t, NULL, work, (void *)1000);
	pthread_join(t, NULL);
	printf("before=100 after=200000 thread=1000\n");
	return 0;
}
