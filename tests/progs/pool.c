/*
 * pool: a program's own pool allocator, over chunks it mallocs, as
 * mt-record --alloc-fn 'pool_get@2:pool_put@2' records it.  Prints its
 * own counts; leaks LEAKS blocks of the pool and none of malloc's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK 65536
#define LEAKS 5

struct pool {
	char *chunk;
	size_t used;
	void *freed[4096];	/* blocks given back, reused by size 0 of the list */
	size_t nfreed;
	char *chunks[256];
	size_t nchunks;
};

static unsigned long gets, puts_, bytes;

/* Not inlined: the probes are on these functions' entries. */
__attribute__((noinline)) void *
pool_get(struct pool *p, size_t n)
{
	void *b;

	bytes += n;
	n = (n + 15) & ~(size_t)15;
	if (!p->chunk || p->used + n > CHUNK) {
		if (p->nchunks == 256 || !(p->chunk = malloc(CHUNK)))
			return NULL;
		p->chunks[p->nchunks++] = p->chunk;
		p->used = 0;
	}
	b = p->chunk + p->used;
	p->used += n;
	gets++;
	return b;
}

__attribute__((noinline)) void
pool_put(struct pool *p, void *b)
{
	if (b && p->nfreed < 4096)
		p->freed[p->nfreed++] = b;
	if (b)
		puts_++;
}

int
main(void)
{
	static struct pool p;
	void *b;
	size_t i;

	setvbuf(stdout, NULL, _IONBF, 0);
	for (i = 0; i < 2000; i++) {
		b = pool_get(&p, 32 + i % 64);
		memset(b, 1, 32);
		pool_put(&p, b);
	}
	for (i = 0; i < LEAKS; i++)
		memset(pool_get(&p, 100), 2, 100);
	printf("gets %lu puts %lu bytes %lu chunks %zu\n", gets, puts_, bytes, p.nchunks);
	for (i = 0; i < p.nchunks; i++)
		free(p.chunks[i]);
	return 0;
}
