/*
 * Daemons that fork and exit at once, N times over (default 100): each
 * process forks a child and exits without waiting, the child allocates,
 * frees and does the same.  A child's parent has often exited by the
 * time it first speaks, and it is then a child of whoever adopted it.
 *
 *   daemon-chain [N]     each process writes "pid ppid" to stdout
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100, i;
	void *volatile p;
	pid_t parent;

	for (i = 0; i < n; i++) {
		parent = getpid();
		switch (fork()) {
		case -1:
			return 1;
		case 0:
			printf("%d %d\n", (int)getpid(), (int)parent);
			fflush(stdout);
			p = malloc(32);
			free(p);
			break;
		default:
			_exit(0);
		}
	}
	return 0;
}
