/*
 * A program started with only descriptors 0-2, as daemons are, that
 * then closes everything above 2 and makes its own pipe: the recorder's
 * descriptors (its socket, libunwind's validation pipe) must never be
 * where the program's are.  Allocations go through a frame without
 * unwind information, so that libunwind falls back to the frame chain
 * and validates each read -- through its pipe.
 *
 * Then it puts a socket of its own at the number of the recorder's (after
 * closing everything) and starts a thread, whose ring the recorder's
 * library must not hand to the program's socket.
 *
 *   fds-low          prints the descriptors open at start between 3 and
 *                    63, then "pipe ABCDEFGH" when the pipe kept what
 *                    was written
 *   fds-low socket   the same first line, then "socket quiet" when
 *                    nothing came to the program's socket
 */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

void nocfi_call(void (*fn)(void));
void nocfi_call2(void (*fn)(void));
/* Frames with a frame pointer and no CFI: libunwind cannot unwind them by
   their tables.  The second is new to its caches after the pipe is made. */
__asm__(".text\n.globl nocfi_call\n.type nocfi_call,@function\nnocfi_call:\n"
    "\tpush %rbp\n\tmov %rsp, %rbp\n\tcall *%rdi\n\tpop %rbp\n\tret\n"
    ".size nocfi_call, .-nocfi_call\n"
    ".globl nocfi_call2\n.type nocfi_call2,@function\nnocfi_call2:\n"
    "\tpush %rbp\n\tmov %rsp, %rbp\n\tcall *%rdi\n\tpop %rbp\n\tret\n"
    ".size nocfi_call2, .-nocfi_call2\n");

static void
churn(void)
{
	void *volatile p;	/* not a pair the compiler may drop */
	int i;

	for (i = 0; i < 100; i++) {
		p = malloc(40 + (size_t)i);
		free(p);
	}
}

/* On a new thread's stack: pages libunwind has not validated before. */
static void *
thread(void *arg)
{
	(void)arg;
	nocfi_call2(churn);
	return NULL;
}

int
main(int argc, char **argv)
{
	char buf[16] = "";
	int fds[2], sp[2], fd, n = 0, theirs = -1;
	pthread_t t;
	struct stat st;
	DIR *d;
	struct dirent *e;

	nocfi_call(churn);
	printf("open:");
	if ((d = opendir("/proc/self/fd"))) {
		while ((e = readdir(d)))
			if ((fd = atoi(e->d_name)) > 2 && fd != dirfd(d)) {
				if (fd < 64)
					printf(" %d", fd);
				if (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode))
					theirs = fd;
			}
		closedir(d);
	}
	printf("\n");
	fflush(stdout);
	if (argc > 1 && strcmp(argv[1], "socket") == 0)
		goto socket;
	for (fd = 3; fd < 64; fd++)
		close(fd);
	if (pipe(fds) != 0)
		return 1;
	if (write(fds[1], "ABCDEFGH", 8) != 8)
		return 1;
	if (pthread_create(&t, NULL, thread, NULL) != 0 || pthread_join(t, NULL) != 0)
		return 1;
	close(fds[1]);
	while (n < (int)sizeof(buf) - 1) {
		ssize_t r = read(fds[0], buf + n, sizeof(buf) - 1 - (size_t)n);
		if (r <= 0)
			break;
		n += (int)r;
	}
	buf[n] = '\0';
	printf("pipe %s\n", buf);
	return 0;
socket:
	/* Everything closed, a socket of ours where the recorder's was. */
	for (fd = 3; fd < 1024; fd++)
		close(fd);
	if (theirs < 0)
		theirs = 100;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sp) != 0 || dup2(sp[0], theirs) != theirs)
		return 1;
	if (pthread_create(&t, NULL, thread, NULL) != 0 || pthread_join(t, NULL) != 0)
		return 1;
	n = (int)recv(sp[1], buf, sizeof(buf), MSG_DONTWAIT);
	printf(n < 0 ? "socket quiet\n" : "socket got %d bytes\n", n);
	return 0;
}
