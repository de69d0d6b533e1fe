/*
 * A fork just after the parent changed its mappings: it maps C and
 * unmaps B, then forks at once.  The child unmaps C (it has it: a copy of
 * its parent's) and maps anew where B was.  mt-record copied the
 * parent's mappings to the child when it read the child's hello, before
 * it had merged the parent's last events: the child "freed" B, which it
 * never had, and its C was never freed.
 *
 *   fork-maps     prints "B 0x... C 0x..." and exits 0
 */
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define SZ (64 * 4096)

int
main(void)
{
	char *b, *c, *d;
	pid_t pid;
	int st;

	b = mmap(NULL, SZ, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b == MAP_FAILED)
		return 1;
	usleep(100000);		/* B's mapping well merged before what follows */
	c = mmap(NULL, SZ, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c == MAP_FAILED)
		return 1;
	munmap(b, SZ);
	if ((pid = fork()) == 0) {
		munmap(c, SZ);
		d = mmap(b, SZ, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		_exit(d == b ? 0 : 1);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	munmap(c, SZ);
	printf("B %p C %p\n", (void *)b, (void *)c);
	return 0;
}
