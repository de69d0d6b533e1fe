/*
 * A fork through the raw clone system call, as some runtimes and
 * sandboxes do it: no pthread_atfork handler runs, so the child starts
 * with its parent's recorder state, ring and all.  Parent and child then
 * allocate, each many times a ring's worth.
 *
 *   rawclone-fork [N]     prints "parent N child N", exits 0
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static long
churn(long n)
{
	long i, done = 0;
	void *p;

	for (i = 0; i < n; i++)
		if ((p = malloc(32 + (size_t)(i & 63)))) {
			free(p);
			done++;
		}
	return done;
}

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000, mine;
	int status;
	pid_t pid;

	churn(10);	/* the parent's ring exists before the clone */
	pid = (pid_t)syscall(SYS_clone, SIGCHLD, 0, NULL, NULL, 0);
	if (pid < 0)
		return 1;
	if (pid == 0)
		syscall(SYS_exit_group, churn(n) == n ? 0 : 1);
	mine = churn(n);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return 1;
	printf("parent %ld child %ld\n", mine, n);
	return 0;
}
