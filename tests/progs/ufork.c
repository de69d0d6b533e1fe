/*
 * A parent and the child it forks, each counting what it allocates and
 * frees; the child unmaps a mapping its parent made before the fork and
 * exits 5.  The oracle for a recording that follows the command's
 * children (mt-record --uprobes).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAPPED (5 * 4096)

/* n blocks of size, the first `keep' left: "allocs N frees N bytes N". */
static void
churn(const char *who, int n, size_t size, int keep)
{
	void *p[64];
	int i;

	for (i = 0; i < n; i++)
		p[i] = malloc(size);
	for (i = keep; i < n; i++)
		free(p[i]);
	printf("%s %d allocs %d frees %d bytes %zu\n", who, (int)getpid(), n, n - keep,
	    (size_t)n * size);
	fflush(stdout);
}

int
main(void)
{
	char *m = mmap(NULL, MAPPED, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int status;
	pid_t pid;

	printf("mapped %p %d\n", (void *)m, MAPPED);
	fflush(stdout);
	if ((pid = fork()) == 0) {
		churn("child", 30, 64, 10);
		munmap(m, MAPPED);
		_exit(5);
	}
	waitpid(pid, &status, 0);
	churn("parent", 12, 100, 2);
	return WEXITSTATUS(status) == 5 ? 0 : 1;
}
