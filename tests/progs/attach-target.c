/*
 * attach-target N [THREADS] [fork|maps]: a running process for mt-record -p.
 * Prints a counter from 0 to N-1, a line every 5 ms, allocating and
 * freeing as it goes (blocks from before an attach are freed after it),
 * leaking 100 bytes a line in leak_here(); THREADS more threads allocate
 * and free until it ends; with "fork", forks a child that allocates at
 * the middle of the count; with "maps", maps 1 MiB read-write and 2 MiB
 * PROT_NONE at its start (their addresses to standard error, "maps RW
 * NONE") and unmaps them at the middle, the first in two halves.  At the end it says to standard error which
 * module its GOT's malloc is in (taking malloc's address reads the GOT):
 * libc's once mt-record -p has detached.  Exits 3, a status of its own.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile int done;

static void *
worker(void *arg)
{
	void *slot[32] = { 0 };
	unsigned i = 0;

	(void)arg;
	while (!done) {
		free(slot[i % 32]);
		slot[i % 32] = malloc(16 + i % 200);
		if (++i % 64 == 0) {
			struct timespec nap = { 0, 100000 };
			nanosleep(&nap, NULL);
		}
	}
	for (i = 0; i < 32; i++)
		free(slot[i]);
	return NULL;
}

__attribute__((noinline)) static void *
leak_here(void)
{
	void *p = malloc(100);

	if (p)
		memset(p, 1, 100);
	return p;
}

__attribute__((noinline)) static void *
keep_here(size_t n)
{
	return malloc(n);
}

__attribute__((noinline)) static void
say_malloc(void)
{
	void *(*volatile fn)(size_t) = malloc;
	Dl_info info;

	if (dladdr((void *)fn, &info) && info.dli_fname)
		fprintf(stderr, "malloc: %s\n", strrchr(info.dli_fname, '/') ?
		    strrchr(info.dli_fname, '/') + 1 : info.dli_fname);
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 400, nt = argc > 2 ? atoi(argv[2]) : 0;
	int forks = argc > 3 && strcmp(argv[3], "fork") == 0, i, st;
	int maps = argc > 3 && strcmp(argv[3], "maps") == 0;
	char *rw = NULL, *none = NULL;
	pthread_t t[16];
	void *slot[64] = { 0 };

	if (nt > 16)
		nt = 16;
	for (i = 0; i < nt; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (maps) {
		rw = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		none = mmap(NULL, 2 << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (rw == MAP_FAILED || none == MAP_FAILED)
			return 1;
		memset(rw, 1, 1 << 20);
		fprintf(stderr, "maps %p %p\n", (void *)rw, (void *)none);
	}
	for (i = 0; i < n; i++) {
		struct timespec nap = { 0, 5000000 };
		free(slot[i % 64]);
		slot[i % 64] = keep_here(32 + (size_t)i % 100);
		leak_here();
		printf("%d\n", i);
		if (maps && i == n / 2) {
			munmap(rw, 1 << 19);
			munmap(rw + (1 << 19), 1 << 19);
			munmap(none, 2 << 20);
		}
		if (forks && i == n / 2) {
			pid_t c = fork();
			if (c == 0) {
				int k;
				for (k = 0; k < 100; k++)
					free(keep_here(1000));
				_exit(0);
			}
			if (c > 0)
				waitpid(c, &st, 0);
		}
		nanosleep(&nap, NULL);
	}
	done = 1;
	for (i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	say_malloc();
	return 3;
}
