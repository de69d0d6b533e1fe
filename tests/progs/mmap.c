/*
 * Anonymous mappings as committed and reserved memory: a partial munmap
 * of the middle, a reserve committed piece by piece with mprotect, a
 * decommit, an mremap that grows, a file mapping (not recorded).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PG 4096

int
main(void)
{
	char *a, *r, *m, *f;
	int fd;

	a = mmap(NULL, 10 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(a, 1, 10 * PG);
	munmap(a + 4 * PG, 2 * PG);			/* leaves 4 + 4 pages */
	r = mmap(NULL, 16 * PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mprotect(r, 4 * PG, PROT_READ | PROT_WRITE);	/* commit 4 */
	mprotect(r + 8 * PG, 2 * PG, PROT_READ | PROT_WRITE);	/* commit 2 */
	mprotect(r, 4 * PG, PROT_NONE);			/* decommit 4 */
	m = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	m = mremap(m, 2 * PG, 64 * PG, MREMAP_MAYMOVE);
	fd = open("/proc/self/exe", O_RDONLY);
	f = mmap(NULL, PG, PROT_READ, MAP_PRIVATE, fd, 0);
	munmap(f, PG);
	close(fd);
	munmap(a, 10 * PG);
	munmap(r, 16 * PG);
	munmap(m, 64 * PG);
	printf("ok\n");
	return 0;
}
