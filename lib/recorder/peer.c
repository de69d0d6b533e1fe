/*
 * peer: what a traced process sends on its connection (hello, rings,
 * modules, notes, children's ends), none of it trusted.
 */

#include <stdio.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "internal.h"

/*
 * What one process may make us hold.  A JVM has a few thousand threads,
 * and a program a few thousand modules; a path is at most PATH_MAX and a
 * build-id 40 digits.
 */
#define PEER_RINGS	32768
#define PEER_MODULES	16384
#define MODULE_DATA	(PATH_MAX + 130)
#define READ_BATCH	256	/* messages read from one connection at a time */

static void
say_capped(struct proc *p, const char *what)
{
	if (p->capped++)
		return;
	mt_warnx("pid %d sent more %s than a process has: the rest ignored", (int)p->pid,
	    what);
}

/*
 * A memfd from a traced process, which is not to be trusted: mapped only
 * when it is a memfd of the size expected and sealed so that it cannot
 * shrink under us (a 0-byte one, or one shrunk through
 * /proc/PID/map_files, made the first read a SIGBUS).
 */
static int
sealed_size(int fd, size_t want)
{
	struct stat st;
	int seals = fcntl(fd, F_GET_SEALS);

	return seals >= 0 && (seals & MT_SEALS) == MT_SEALS && fstat(fd, &st) == 0 &&
	    S_ISREG(st.st_mode) && (uint64_t)st.st_size == want;
}

/* A stack table's arena words, from its memfd's size; 0 when no size fits. */
static uint32_t
table_size(int fd)
{
	uint32_t w;
	struct stat st;

	if (fstat(fd, &st) < 0)
		return 0;
	for (w = MT_STACK_WORDS_MIN; w && w <= MT_STACK_WORDS_MAX; w <<= 1)
		if ((uint64_t)st.st_size == MT_STACK_BYTES(w))
			return sealed_size(fd, MT_STACK_BYTES(w)) ? w : 0;
	return 0;
}

static void
add_ring(struct recorder *rc, struct proc *p, int fd, pid_t tid)
{
	struct ring *g;
	void *m;

	if (p->nrings >= PEER_RINGS) {
		say_capped(p, "rings");
		return;
	}
	if (!sealed_size(fd, MT_RING_BYTES) ||
	    (m = mmap(NULL, MT_RING_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED)
		return;
	p->nrings++;
	g = ecalloc(1, sizeof(*g));
	/* Its events come after its process's hello, and its lies too. */
	g->q.last_ts = p->hello_ts;
	g->proc = p;
	g->map = m;
	g->pid = p->pid;
	g->tid = tid;
	rc->rings = egrow(rc->rings, rc->nrings, &rc->ringcap, sizeof(*rc->rings));
	rc->rings[rc->nrings++] = g;
}

static void
add_module(struct recorder *rc, struct proc *p, uint64_t ts, const struct module *mod)
{
	struct rec *r;

	if (p->nmods >= PEER_MODULES || mod->len > MODULE_DATA) {
		say_capped(p, "modules");
		return;
	}
	r = queue_push(&p->ctl, ts);

	r->kind = CTL_MAP;
	r->pid = p->pid;
	r->addr = mod->lo;
	r->size = mod->hi;
	r->off = mod->off;
	r->data = emalloc(mod->len + 1);
	memcpy(r->data, mod->data, mod->len);
	r->data[mod->len] = '\0';
	r->len = mod->len;
	p->mods = egrow(p->mods, p->nmods, &p->modcap, sizeof(*p->mods));
	p->mods[p->nmods] = *mod;
	p->mods[p->nmods].data = emalloc(mod->len + 1);
	memcpy(p->mods[p->nmods].data, mod->data, mod->len);
	p->nmods++;
}

/*
 * Its pid and parent's as we see them: the peer's credentials (the kernel
 * translates them to our PID namespace) and its /proc stat.  A process in
 * a namespace of its own says 1, 2, 3, which here are other processes.
 */
static void
peer_pids(struct recorder *rc, int fd, struct mt_msg *m, pid_t *nspid)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	pid_t ppid;
	pid_t nsppid;
	size_t i;

	*nspid = 0;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0 || cr.pid <= 0 ||
	    cr.pid == m->pid)
		return;
	*nspid = m->pid;
	m->pid = cr.pid;
	nsppid = m->ppid;
	/* Gone already: its parent as the one known by that name there. */
	m->ppid = 0;
	for (i = rc->nprocs; i-- > 0;)
		if (nsppid > 0 && rc->procs[i]->nspid == nsppid && !rc->procs[i]->replaced) {
			m->ppid = rc->procs[i]->pid;
			break;
		}
	if ((ppid = proc_ppid(cr.pid)))
		m->ppid = (int32_t)ppid;
}

static void
hello(struct recorder *rc, struct proc *p, struct mt_msg *m, int fd, char *data, size_t len,
    uint64_t limit)
{
	struct proc *old, *parent = NULL;
	struct rec *r;
	size_t i;
	void *t;

	if (p->said_hello || fd < 0)
		return;
	peer_pids(rc, p->fd, m, &p->nspid);
	old = proc_by_pid(rc, m->pid);
	if (!(p->table_words = table_size(fd)))
		return;
	t = mmap(NULL, MT_STACK_BYTES(p->table_words), PROT_READ, MAP_SHARED, fd, 0);
	if (t == MAP_FAILED)
		return;
	p->table = t;
	if ((m->flags & HELLO_ATTACHED) && rc->attach_pid) {
		/* Where we tell it to stop: the page of the table's head. */
		t = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (t != MAP_FAILED)
			p->head = t;
	}
	p->pid = m->pid;
	p->ppid = m->ppid;
	p->said_hello = 1;
	p->tsc = rc->tsc_on && (m->flags & HELLO_TSC);
	p->hello_ts = m->ts = peer_time(rc, p, m->ts, limit);
	/* A process counts once: an exec is a new image of one already counted. */
	if (!old || old == p)
		rc->nprocs_traced++;
	if (old && old != p) {
		/* An exec: the old image is gone, its mappings with it.  Its
		   parent is the one that made it, though it may be ours now. */
		old->replaced = 1;
		p->ppid = old->ppid;
	} else if ((m->flags & HELLO_FORKED) && (parent = proc_by_pid(rc, m->ppid)) &&
	    parent != p) {
		/*
		 * A fork: the child has its parent's mappings as of the fork,
		 * copied when the merge reaches its time in the parent's
		 * events (a hello is read before the parent's last events
		 * before the fork are merged).
		 */
		uint64_t at = m->lo ? peer_time(rc, p, m->lo, m->ts) : 0;
		r = queue_insert(&parent->ctl, at && at <= m->ts ? at : m->ts);
		r->kind = CTL_FORK;
		r->pid = parent->pid;
		r->off = (uint64_t)(uintptr_t)p;
		r->size = r->ts;	/* the fork: r->ts is moved up if merged late */
		p->fork_pending++;
	}
	r = queue_push(&p->ctl, m->ts);
	r->kind = CTL_PROC;
	r->pid = m->pid;
	r->data = emalloc(len + 1);
	memcpy(r->data, data, len);
	r->data[len] = '\0';
	r->len = len;
	if ((m->flags & HELLO_ATTACHED) && !(m->flags & HELLO_FORKED) && rc->attach_pid &&
	    m->pid == rc->attach_pid && rc->nbefores) {
		r = queue_push(&p->ctl, m->ts);
		r->kind = CTL_BEFORE;
		r->pid = m->pid;
	}
	/* A forked child does not walk its modules: they are its parent's. */
	if ((m->flags & HELLO_FORKED) && (parent = proc_by_pid(rc, m->ppid)) && parent != p)
		for (i = 0; i < parent->nmods; i++)
			add_module(rc, p, m->ts, &parent->mods[i]);
	take_early_exit(rc, p, m->ts);
}

/*
 * A process whose connection it closed itself connects again: the new
 * connection becomes its own, if the peer is that very process of ours
 * and its old connection is closed (read to its end here, if that was not
 * seen yet).  Told with a byte, which the library waits for; refused, the
 * connection is closed, and it gives up.
 */
static int
hello_again(struct recorder *rc, struct proc *p, const struct mt_msg *m)
{
	struct proc *old;
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (p->said_hello || getsockopt(p->fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0 ||
	    cr.uid != getuid() || !(old = proc_by_pid(rc, cr.pid)) || old == p ||
	    !old->said_hello || (old->nspid ? old->nspid : old->pid) != m->pid)
		return 0;
	if (old->fd >= 0) {
		if (read_peer(rc, old))
			return 0;	/* still open: not the process's doing */
		close(old->fd);
		old->fd = -1;
	}
	if (send(p->fd, "y", 1, MSG_NOSIGNAL | MSG_DONTWAIT) != 1)
		return 0;
	old->fd = p->fd;
	p->fd = -1;
	return 1;
}

/*
 * Reads what a process has sent: 0 at the end of its connection, 1 when
 * it has sent nothing more, 2 when more waits.
 */
int
read_peer(struct recorder *rc, struct proc *p)
{
	char *buf = rc->msg;
	char cbuf[CMSG_SPACE(sizeof(int) * 4)];
	struct iovec iov = { buf, sizeof(rc->msg) };
	struct msghdr mh;
	struct cmsghdr *c;
	struct mt_msg m;
	ssize_t n;
	size_t len;
	uint64_t limit;
	int fd, batch;

	/* A few at a time: a peer that never stops sending must not hold us. */
	for (batch = 0; batch < READ_BATCH; batch++) {
		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		n = recvmsg(p->fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? 1 : 0;
		fd = -1;
		for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
			    c->cmsg_len >= CMSG_LEN(sizeof(int))) {
				int extra;
				size_t k, nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
				memcpy(&fd, CMSG_DATA(c), sizeof(int));
				for (k = 1; k < nfd; k++) {
					memcpy(&extra, CMSG_DATA(c) + k * sizeof(int), sizeof(int));
					close(extra);
				}
			}
		}
		/* The end, or a message of nothing (which can carry a memfd). */
		if (n == 0 || (size_t)n < sizeof(m)) {
			if (fd >= 0)
				close(fd);
			if (n == 0)
				return 0;
			continue;
		}
		memcpy(&m, buf, sizeof(m));
		len = (size_t)n - sizeof(m);
		limit = now_rel(rc);
		if (p->said_hello)
			m.ts = peer_time(rc, p, m.ts, limit);
		switch (m.type) {
		case MSG_HELLO:
			if (m.flags & HELLO_AGAIN) {
				if (fd >= 0)
					close(fd);
				/* The rest is read from the process it joined. */
				if (hello_again(rc, p, &m))
					return 1;
				return 0;
			}
			hello(rc, p, &m, fd, buf + sizeof(m), len, limit);
			break;
		case MSG_RING:
			if (p->said_hello && fd >= 0)
				add_ring(rc, p, fd, m.tid);
			break;
		case MSG_MAP:
			if (!p->said_hello)
				break;
			add_module(rc, p, m.ts, &(struct module){ m.lo, m.hi, m.off,
			    buf + sizeof(m), len });
			break;
		case MSG_ALLOCATOR:
			if (p->said_hello && len > 0 && len < PATH_MAX) {
				struct rec *r = queue_push(&p->ctl, m.ts);
				r->kind = CTL_NOTE;
				r->pid = p->pid;
				r->data = emalloc(len * 4 + 32);
				r->len = (size_t)sprintf(r->data, "#allocator\t%d\t", (int)p->pid);
				r->len += str_escape(r->data + r->len, buf + sizeof(m),
				    strnlen(buf + sizeof(m), len));
			}
			break;
		case MSG_CHILD:
			if (p->nspid) {
				pid_t ns = m.child;
				if (!(m.child = child_pid(rc, p, ns))) {
					/* Not one we know yet. */
					keep_early_exit(rc, 0, ns, p->pid, m.status, m.ts);
					break;
				}
			}
			add_exit(&p->ctl, m.child, m.status, m.ts);
			break;
		}
		if (fd >= 0)
			close(fd);
	}
	return 2;
}

