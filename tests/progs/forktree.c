/*
 * forktree N [MS]: forks N children, one every 2 ms, each allocating and
 * freeing a block every MS milliseconds (1) until its parent ends; then waits
 * for them (without WUNTRACED: a stop of theirs is not its business),
 * and says on stderr how many it reaped.  SIGTERM ends it and them.
 * The tree mt-record -p -u follows; every one of them must run on.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t done;
static long period = 1000000;

static void
on_term(int sig)
{
	(void)sig;
	done = 1;
}

static void
child(void)
{
	struct timespec ms = { period / 1000000000, period % 1000000000 };
	char *p;

	prctl(PR_SET_PDEATHSIG, SIGTERM);
	while (!done) {
		p = malloc(64);
		memset(p, 1, 64);
		free(p);
		nanosleep(&ms, NULL);
	}
	_exit(0);
}

int
main(int argc, char **argv)
{
	struct timespec two = { 0, 2000000 };
	int n = argc > 1 ? atoi(argv[1]) : 10, i, reaped = 0;
	pid_t *kids = calloc((size_t)n, sizeof(*kids));

	if (argc > 2)
		period = atol(argv[2]) * 1000000;
	signal(SIGTERM, on_term);
	for (i = 0; i < n && !done; i++) {
		if ((kids[i] = fork()) == 0)
			child();
		nanosleep(&two, NULL);
	}
	while (!done)
		pause();
	for (i = 0; i < n; i++)
		if (kids[i] > 0)
			kill(kids[i], SIGTERM);
	while (wait(NULL) > 0)
		reaped++;
	fprintf(stderr, "forktree: %d reaped\n", reaped);
	return 0;
}
