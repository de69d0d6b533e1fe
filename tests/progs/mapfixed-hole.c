/*
 * A program that unmaps a range and maps over it with MAP_FIXED, as
 * allocators, JITs and garbage collectors do: the range is its own, so
 * whatever lands in it between the two calls is replaced.  A new thread's
 * first call is the munmap (the recorder has no ring for it yet); then it
 * fills the range, allocates, and checks the range kept what it wrote.
 * Also in a fork child, and with the range mapped back PROT_NONE.
 *
 *   mapfixed-hole [prot-none]     prints "ok" and exits 0
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define SIZE (64u << 20)	/* larger than any ring or table of the recorder */

static char *range;
static int prot_none;

static void *
remap(void *arg)
{
	char *p, *blocks[1000];
	size_t i;

	(void)arg;
	if (munmap(range, SIZE) != 0)
		return "munmap";
	p = mmap(range, SIZE, prot_none ? PROT_NONE : PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (p != range)
		return "mmap";
	if (prot_none && mprotect(p, SIZE, PROT_READ | PROT_WRITE) != 0)
		return "mprotect";
	memset(p, 0x5a, SIZE);
	for (i = 0; i < 1000; i++)
		if (!(blocks[i] = malloc(100 + i)))
			return "malloc";
	for (i = 0; i < 1000; i++)
		free(blocks[i]);
	for (i = 0; i < SIZE; i += 4096)
		if (p[i] != 0x5a || p[i + 4095] != 0x5a)
			return "range changed";
	return NULL;
}

static int
run(void)
{
	pthread_t t;
	void *err;

	range = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (range == MAP_FAILED)
		return 1;
	if (pthread_create(&t, NULL, remap, NULL) != 0)
		return 1;
	pthread_join(t, &err);
	if (err) {
		fprintf(stderr, "mapfixed-hole: %s\n", (char *)err);
		return 1;
	}
	munmap(range, SIZE);
	return 0;
}

int
main(int argc, char **argv)
{
	int status;
	pid_t pid;

	prot_none = argc > 1 && strcmp(argv[1], "prot-none") == 0;
	if (run() != 0)
		return 1;
	/* The same in a child, whose recorder state is new after the fork. */
	if ((pid = fork()) == 0)
		_exit(run());
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		fprintf(stderr, "mapfixed-hole: child failed (status %d)\n", status);
		return 1;
	}
	puts("ok");
	return 0;
}
