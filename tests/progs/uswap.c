/*
 * uswap: a program that puts a FIFO where its own executable was, then
 * allocates: mt-record --uprobes, unwinding its copied stacks, reads the
 * files the process maps, and must not wait on a FIFO (nor fault on a
 * file truncated) in their place.  Built without frame pointers, so its
 * stacks are copies.  Run as a copy of itself (argv[0], a path).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static volatile long sink;

__attribute__((noinline)) static void *
get(size_t n)
{
	void *p = malloc(n);

	sink += (long)p;
	return p;
}

int
main(int argc, char **argv)
{
	int i;

	(void)argc;
	if (unlink(argv[0]) < 0 || mkfifo(argv[0], 0600) < 0) {
		perror(argv[0]);
		return 1;
	}
	for (i = 0; i < 100; i++)
		free(get(100 + (size_t)i));
	puts("swapped");
	return 0;
}
