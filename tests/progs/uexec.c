/*
 * A parent whose forked child runs this program again by the path it
 * was itself run by (argv[0]): the child's exec is a second proc line,
 * its program named as its parent's is (through a symbolic link, the
 * link).  The child's program allocates 300, 301 and 302 bytes, frees
 * the second and exits 6.  With -v the child is vfork's and, as dash's
 * does, allocates and frees 4321 bytes before its exec, in its
 * parent's memory.  Prints "child PID exit N".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void *volatile sink;

int
main(int argc, char *argv[])
{
	void *a, *b, *c;
	pid_t pid;
	int vf = argc > 1 && strcmp(argv[1], "-v") == 0, status;

	if (argc > 1 && strcmp(argv[1], "child") == 0) {
		a = malloc(300);
		b = malloc(301);
		c = malloc(302);
		sink = b;
		free(b);
		sink = a;
		sink = c;
		return 6;
	}
	a = malloc(100);
	sink = a;
	if ((pid = vf ? vfork() : fork()) == 0) {
		if (vf) {
			sink = malloc(4321);
			free(sink);
		}
		execl(argv[0], argv[0], "child", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return 1;
	free(a);
	printf("child %d exit %d\n", (int)pid, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}
