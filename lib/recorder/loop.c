/*
 * loop: a pass of the collector (connections, control messages, rings,
 * the merge) and the wait between passes.
 */

#include <poll.h>
#include <sys/wait.h>

#include "internal.h"

static void
reap(struct recorder *rc)
{
	pid_t pid;
	int st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		if (pid == rc->root_pid) {
			rc->root_status = st;
			if (rc->forward_to)
				*rc->forward_to = 0;
		}
		add_exit(&rc->reaped_q, pid, st, now_rel(rc));
	}
	/*
	 * We are the subreaper: every descendant still alive whose parent
	 * has gone is our child.  A daemon that closed its connection may
	 * still connect again.
	 */
	rc->children_left = pid == 0;
}

/*
 * Polls the listening sockets (pfds[0], pfds[1]) and every process's
 * connection (pfds[2 + i] for procs[i]; a closed one is ignored by
 * poll); the number of processes polled.
 */
static size_t
poll_all(struct recorder *rc, int lfd, int pfd_path, int timeout)
{
	size_t i;

	if (rc->pfdcap < rc->nprocs + 2) {
		rc->pfdcap = (rc->nprocs + 2) * 2;
		rc->pfds = erealloc(rc->pfds, rc->pfdcap * sizeof(*rc->pfds));
	}
	rc->pfds[0] = (struct pollfd){ .fd = lfd, .events = POLLIN };
	rc->pfds[1] = (struct pollfd){ .fd = pfd_path, .events = POLLIN };
	for (i = 0; i < rc->nprocs; i++)
		rc->pfds[2 + i] = (struct pollfd){ .fd = rc->procs[i]->fd, .events = POLLIN };
	if (poll(rc->pfds, rc->nprocs + 2, timeout) < 0)
		for (i = 0; i < rc->nprocs + 2; i++)
			rc->pfds[i].revents = POLLIN;	/* interrupted: all read, as they were */
	return rc->nprocs;
}

/*
 * One pass of the collector at time t: connections, control messages,
 * the rings up to the watermark, the merge.  Whether more waits.
 */
int
recorder_pass(struct recorder *rc, int lfd, int pfd_path, uint64_t t,
    uint64_t *last_flush)
{
	/* The watermark is taken before anything is read: see merge.c. */
	uint64_t w = t > SLACK_NS ? t - SLACK_NS : 0;
	size_t npolled, i;
	int busy = 0, n;

	reap(rc);
	/*
	 * What has something to read, asked once: an accept4 that finds
	 * nothing still makes a socket and throws it away, and a recvmsg
	 * for every process each pass is a system call each.
	 */
	npolled = poll_all(rc, lfd, pfd_path, 0);
	if (rc->pfds[0].revents)
		recorder_accept(rc, lfd);
	if (rc->pfds[1].revents)
		recorder_accept(rc, pfd_path);
	for (i = 0; i < rc->nprocs; i++) {
		struct proc *p = rc->procs[i];
		if (p->fd < 0 || (i < npolled && !rc->pfds[2 + i].revents))
			continue;	/* nothing to read (one accepted since is read) */
		if (!(n = read_peer(rc, p))) {
			close(p->fd);
			p->fd = -1;
			p->gone_at = now_rel(rc);
		}
		busy |= n == 2;
	}
	w = recorder_drain_limit(rc, w);
	n = pending(rc) < PENDING_MAX;
	for (i = 0; i < rc->nrings; i++)
		busy |= drain_ring(rc, rc->rings[i], w, n);
	recorder_merge(rc, w);
	recorder_release(rc);
	if (t - *last_flush > FLUSH_NS) {
		recorder_flush(rc);
		*last_flush = t;
	}
	return busy;
}

/* Nothing done in a pass: a wait for something to read, longer when idle. */
void
recorder_rest(struct recorder *rc, int lfd, int pfd_path, uint64_t t, int busy,
    uint64_t *last_busy)
{
	if (busy)
		*last_busy = t;
	else
		poll_all(rc, lfd, pfd_path, t - *last_busy < 100000000u ? 1 : 10);
}

/* The end: every connection read to its end, every ring emptied. */
void
recorder_read_all(struct recorder *rc)
{
	size_t i;

	for (i = 0; i < rc->nprocs; i++)
		if (rc->procs[i]->fd >= 0) {
			while (read_peer(rc, rc->procs[i]) == 2)
				;
			close(rc->procs[i]->fd);
			rc->procs[i]->fd = -1;
		}
	for (i = 0; i < rc->nrings; i++)
		while (drain_ring(rc, rc->rings[i], UINT64_MAX, 1))
			;
}

