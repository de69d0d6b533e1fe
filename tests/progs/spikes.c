/*
 * spikes: ten spikes of 10 MiB, each held 100 ms and then freed 100 ms
 * before the next (malloc; glibc maps a block this big with mmap), over a
 * steady 1 MiB; then, with an argument "mmap", the same through
 * mmap/munmap of anonymous memory; with "reserve", as VirtualAlloc's
 * users do: 100 MiB reserved (PROT_NONE) once, and 10 MiB of it
 * committed (made writable) and decommitted (PROT_NONE again) ten times.
 * The peak is 11 MiB of malloc, or 10 MiB of mmap, ten times.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static void
nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

int
main(int argc, char **argv)
{
	int use_mmap = argc > 1 && !strcmp(argv[1], "mmap");
	int use_reserve = argc > 1 && !strcmp(argv[1], "reserve");
	size_t big = 10 << 20;
	char *base = malloc(1 << 20), *p, *space = NULL;
	int i;

	memset(base, 1, 1 << 20);
	if (use_reserve) {
		space = mmap(NULL, 10 * big, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (space == MAP_FAILED)
			return 1;
	}
	for (i = 0; i < 10; i++) {
		if (use_reserve) {
			p = space + (size_t)i * big;
			if (mprotect(p, big, PROT_READ | PROT_WRITE))
				return 1;
		} else if (use_mmap) {
			p = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (p == MAP_FAILED)
				return 1;
		} else if (!(p = malloc(big))) {
			return 1;
		}
		memset(p, 2, big);
		nap(100);
		if (use_reserve)
			mprotect(p, big, PROT_NONE);
		else if (use_mmap)
			munmap(p, big);
		else
			free(p);
		nap(100);
	}
	if (space)
		munmap(space, 10 * big);
	free(base);
	return 0;
}
