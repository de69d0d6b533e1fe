/*
 * Processes: fork (the child allocates and exits 3), a fork from a
 * threaded program, exec of ourselves, vfork + exec and posix_spawn.
 */
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static volatile int stop;
void *volatile sink;

static void *
spin(void *arg)
{
	while (!stop)
		free(sink = malloc(64));
	return arg;
}

static void
leak(int n, size_t size)
{
	while (n-- > 0)
		sink = malloc(size);
}

int
main(int argc, char *argv[])
{
	pthread_t t;
	pid_t pid;
	int st;

	if (argc > 1 && strcmp(argv[1], "child") == 0) {
		leak(5, 555);
		return 4;
	}
	leak(1, 111);
	if ((pid = fork()) == 0) {
		leak(3, 333);
		exit(3);
	}
	waitpid(pid, &st, 0);
	/* Fork while another thread allocates. */
	pthread_create(&t, NULL, spin, NULL);
	if ((pid = fork()) == 0) {
		leak(2, 222);
		_exit(5);
	}
	waitpid(pid, &st, 0);
	stop = 1;
	pthread_join(t, NULL);
	if ((pid = fork()) == 0) {
		execl("/proc/self/exe", argv[0], "child", (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	if ((pid = vfork()) == 0) {
		execl("/proc/self/exe", argv[0], "child", (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	{
		char *args[] = { argv[0], "child", NULL };
		if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, args, environ) == 0)
			waitpid(pid, &st, 0);
	}
	printf("done\n");
	return 0;
}
