/*
 * Many short processes, as a build or a shell loop makes them: N
 * (default 100000) children forked one after another, each allocating
 * and freeing once and exiting; the parent reaps each before the next.
 * mt-record kept some 6 KB of every process that had ended, 606 MB for
 * 100k, and looked processes up by a walk of them all.
 *
 *   procs-many [N]     prints "children N" and exits 0
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000, i;
	void *volatile p;
	int st;
	pid_t pid;

	for (i = 0; i < n; i++) {
		if ((pid = fork()) < 0)
			return 1;
		if (pid == 0) {
			p = malloc(100);
			free(p);
			_exit(0);
		}
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			return 1;
	}
	printf("children %ld\n", n);
	return 0;
}
