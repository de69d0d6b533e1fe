/*
 * ulinks: letting go of --uprobes' probes.  The kernel lets go of each
 * after an RCU grace period, one after another from one thread: from
 * many threads at once, or from a child once mt-record has exited.
 */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mt.h"
#include "recorder/recorder.h"
#include "uprobes.h"

/*
 * Descriptors closed by many threads at once: the kernel lets go of each
 * link after an RCU grace period, some 30 ms (more on a loaded machine),
 * one after another from one thread; from many, their waits overlap.
 */
#define CLOSERS 512
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
	pthread_attr_t small;
	size_t i, k = n < CLOSERS ? n : CLOSERS, made = 0;

	/* A close needs little stack: many threads, little memory. */
	pthread_attr_init(&small);
	pthread_attr_setstacksize(&small, 256 << 10);
	for (i = 0; i < k; i++) {
		c[i] = (struct closer){ fds + i, n - i, k };
		if (pthread_create(&t[i], &small, close_some, &c[i]) != 0)
			break;
		made++;
	}
	pthread_attr_destroy(&small);
	/* Those no thread was made for: here. */
	for (i = made; i < k; i++)
		close_some(&c[i]);
	for (i = 0; i < made; i++)
		pthread_join(t[i], NULL);
}

/*
 * The live processes a file is probed in (an ended one's breakpoints
 * went with it), at most KEEP_FROM - 1 counted, or KEEP_FROM.
 */
#define KEEP_FROM 8
static size_t
probed_in(struct usource *u, dev_t dev, ino_t ino)
{
	struct uproc *p;
	size_t i, j, n = 0;

	for (i = 0; i < recorder_nprocs(u->rc) && n < KEEP_FROM; i++)
		if ((p = uproc_at(u, i)) && !p->ended && kill(p->pid, 0) == 0)
			for (j = 0; j < p->nprobed; j++)
				if (p->probed[j].dev == dev && p->probed[j].ino == ino)
					n++;
	return n;
}

static int
same_file(const struct stat *a, const struct stat *b)
{
	return a->st_ino && a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/*
 * Letting go of one process's probe at a place makes the kernel visit
 * each process with breakpoints in that file and ask the place's other
 * probes, one by one, whether it wants its breakpoint kept: for n
 * processes, n^3 steps in all (400 processes, 8 places: 15 s, and
 * minutes while they run).  A probe of every process at those places,
 * made first and let go of last, is asked first and says yes: n^2 (1.2 s).
 * Meanwhile every process that maps the file stops at those places
 * into a program that does nothing; so only for files probed in
 * KEEP_FROM processes or more.
 */
void
keep_breakpoints(struct usource *u)
{
	struct stat *st = emalloc((u->nsites + 1) * sizeof(*st));
	uint64_t *offs = emalloc((u->nsites + 1) * sizeof(*offs));
	size_t i, j, k, n;
	int fd;

	u->nkeepers = 0;
	/* Each site's file, by whatever path it was probed by. */
	for (i = 0; i < u->nsites; i++)
		if (stat(u->sites[i].path, &st[i]) < 0)
			st[i].st_ino = 0;
	for (i = 0; i < u->nsites && u->nkeepers < KEEPERS; i++) {
		for (j = 0; j < i && !same_file(&st[j], &st[i]); j++)
			;
		/* Its first site decides for the file. */
		if (!st[i].st_ino || j < i || probed_in(u, st[i].st_dev, st[i].st_ino) < KEEP_FROM)
			continue;
		for (j = i, n = 0; j < u->nsites; j++) {
			if (!same_file(&st[j], &st[i]))
				continue;
			for (k = 0; k < n && offs[k] != u->sites[j].off; k++)
				;
			if (k == n)
				offs[n++] = u->sites[j].off;
		}
		if ((fd = ubpf_probe_all(u, u->sites[i].path, offs, n)) >= 0)
			u->keepers[u->nkeepers++] = fd;
	}
	free(offs);
	free(st);
}

static void
close_keepers(struct usource *u)
{
	size_t i;

	for (i = 0; i < u->nkeepers; i++)
		close(u->keepers[i]);
	u->nkeepers = 0;
}

/* The probes let go of now: the keepers last. */
void
close_links(struct usource *u)
{
	close_all(u->link_fds, u->nlink_fds);
	close_keepers(u);
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
		close_links(u);
		_exit(0);
	default:
		close(p[0]);
		/* Ours goes with our exit; the keepers are the child's alone. */
		close_keepers(u);
		return;
	}
	close(p[0]);
	close(p[1]);
}
