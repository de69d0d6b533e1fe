/*
 * ulinks: letting go of --uprobes' probes.  The kernel lets go of each
 * after an RCU grace period, one after another from one thread: from
 * many threads at once, or from a child once mt-record has exited.
 */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "mt.h"
#include "uprobes.h"

/*
 * Descriptors closed by many threads at once: the kernel lets go of each
 * uprobe after an RCU grace period, some 30 ms, one after another from
 * one thread; from many, their waits overlap.
 */
#define CLOSERS 64
struct closer {
	const int *fds;
	size_t n, step;
};

static void *
close_some(void *arg)
{
	const struct closer *c = arg;
	size_t i;

	for (i = 0; i < c->n; i += c->step)
		close(c->fds[i]);
	return NULL;
}

void
close_all(const int *fds, size_t n)
{
	struct closer c[CLOSERS];
	pthread_t t[CLOSERS];
	size_t i, k = n < CLOSERS ? n : CLOSERS, made = 0;

	for (i = 0; i < k; i++) {
		c[i] = (struct closer){ fds + i, n - i, k };
		if (pthread_create(&t[i], NULL, close_some, &c[i]) != 0)
			break;
		made++;
	}
	/* Those no thread was made for: here. */
	for (i = made; i < k; i++)
		close_some(&c[i]);
	for (i = 0; i < made; i++)
		pthread_join(t[i], NULL);
}

/*
 * The kernel lets go of each uprobe after a grace period, some 100 ms
 * apiece at our exit: once the recorded process has ended, a child of
 * ours holds them until we have exited and lets go then, so that our
 * caller does not wait (its output closed, it is waited for by no one).
 */
void
let_go_later(struct usource *u)
{
	int p[2], fd;
	char c;

	if (pipe(p) < 0)
		return;
	switch (fork()) {
	case -1:
		break;
	case 0:
		close(p[1]);
		if ((fd = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		setsid();
		/* Until mt-record has exited: the end of the pipe. */
		while (read(p[0], &c, 1) < 0 && errno == EINTR)
			;
		close_all(u->link_fds, u->nlink_fds);
		_exit(0);
	default:
		close(p[0]);
		/* Ours goes with our exit. */
		return;
	}
	close(p[0]);
	close(p[1]);
}
