/*
 * ownmalloc: a dynamic program with an allocator of its own (malloc,
 * free, calloc, realloc defined here, as a program linking a pool in
 * does): LD_PRELOAD's malloc is not the one it calls.  Prints its own
 * counts, in which realloc's own malloc and free count too (the trace
 * has a realloc and the free of its old block); leaks LEAKS blocks.
 */
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>

#define ARENA (64 << 20)
#define LEAKS 3

static char *arena, *next;
static unsigned long allocs, frees;
void *volatile kept[LEAKS];

/* A bump allocator: each block's size in the 16 bytes before it. */
void *
malloc(size_t n)
{
	char *p;

	if (!arena) {
		arena = mmap(NULL, ARENA, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (arena == MAP_FAILED)
			return NULL;
		next = arena;
	}
	n = (n + 15) & ~(size_t)15;
	if ((size_t)(arena + ARENA - next) < n + 16)
		return NULL;
	p = next + 16;
	memcpy(next, &n, sizeof(n));
	next += n + 16;
	allocs++;
	return p;
}

void
free(void *p)
{
	if (p)
		frees++;
}

void *
calloc(size_t a, size_t b)
{
	void *p = malloc(a * b);

	if (p)
		memset(p, 0, a * b);
	return p;
}

void *
realloc(void *old, size_t n)
{
	void *p = malloc(n);
	size_t was;

	if (p && old) {
		memcpy(&was, (char *)old - 16, sizeof(was));
		memcpy(p, old, was < n ? was : n);
		free(old);
	}
	return p;
}

int
main(void)
{
	unsigned long a, f;
	void *p;
	int i;

	setvbuf(stdout, NULL, _IONBF, 0);
	for (i = 0; i < 500; i++) {
		p = malloc(64 + (size_t)i);
		p = realloc(p, 200);
		free(p);
	}
	for (i = 0; i < LEAKS; i++)
		kept[i] = malloc(1000);
	/* Counted before printf, which may allocate through us. */
	a = allocs;
	f = frees;
	printf("allocs %lu frees %lu\n", a, f);
	return 0;
}
