/*
 * A signal handler that allocates, interrupting a program that allocates:
 * every allocation must be recorded, none may deadlock.  An argument: run
 * until that many signals were handled, however many allocations it takes.
 */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

void *__libc_malloc(size_t);
void __libc_free(void *);

static volatile sig_atomic_t handled;
void *volatile sink;

static void
on_alarm(int sig)
{
	/* malloc is not async-signal-safe; programs do it anyway. */
	free(sink = malloc(77));
	handled++;
	(void)sig;
}

int
main(int argc, char **argv)
{
	struct itimerval it = { { 0, 200 }, { 0, 200 } };
	struct sigaction sa;
	sigset_t block;
	long i, n = 0, limit = argc > 1 ? LONG_MAX : 2000000;
	int want = argc > 1 ? atoi(argv[1]) : 200;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	/*
	 * glibc's first malloc sets up the thread's cache under the arena's
	 * lock: a handler's malloc then would deadlock in glibc, traced or
	 * not; later the loop's take no lock.  Done behind the recorder's
	 * back, so that signals still come as it opens the thread's ring.
	 */
	__libc_free(sink = __libc_malloc(32));
	setitimer(ITIMER_REAL, &it, NULL);
	for (i = 0; i < limit && handled < want; i++) {
		free(sink = malloc(32));
		n++;
	}
	it.it_value.tv_usec = it.it_interval.tv_usec = 0;
	setitimer(ITIMER_REAL, &it, NULL);
	/* A signal still pending would allocate after we count. */
	sigemptyset(&block);
	sigaddset(&block, SIGALRM);
	sigprocmask(SIG_BLOCK, &block, NULL);
	printf("allocs=%ld frees=%ld handled=%d\n", n + handled, n + handled, (int)handled);
	return 0;
}
