/*
 * procs: the traced process images, their ends (told early, too), and
 * letting go of what nobody will write to again.
 */

#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "internal.h"

void
add_counts(struct table_counts *to, const struct table_counts *c)
{
	to->full += c->full;
	to->fallback += c->fallback;
	to->checked += c->checked;
	to->differ += c->differ;
	to->unchecked += c->unchecked;
	to->remembered += c->remembered;
	to->shadow += c->shadow;
	to->libunwind += c->libunwind;
	to->fp += c->fp;
}

/*
 * An end told before the process's hello was read: a short child whose
 * parent reaped it and told us before the child's connection was
 * accepted (a forkserver's child; the shell of a PID namespace, which
 * names it by its pid there).  Kept, the newest few, and given to the
 * process whose hello comes from before it (its exit was written as "-"
 * otherwise).
 */
void
keep_early_exit(struct recorder *rc, pid_t pid, pid_t nspid, pid_t ppid, int status,
    uint64_t ts)
{
	rc->early[rc->nearly++ % EARLY_EXITS] = (struct early_exit){ pid, nspid, ppid, status, ts };
}

/* After a hello at ts: its end, if it was told already. */
void
take_early_exit(struct recorder *rc, struct proc *p, uint64_t ts)
{
	struct early_exit *e;
	unsigned i;

	for (i = 0; i < EARLY_EXITS && i < rc->nearly; i++) {
		e = &rc->early[i];
		if (e->ts >= ts && (e->pid ? e->pid == p->pid :
		    e->nspid && e->nspid == p->nspid && e->ppid == p->ppid)) {
			add_exit(&p->ctl, p->pid, e->status, e->ts);
			e->pid = e->nspid = 0;
			return;
		}
	}
}

struct proc *
proc_by_pid(struct recorder *rc, pid_t pid)
{
	size_t i;

	/* The newest image of a pid is the one that counts. */
	for (i = rc->nprocs; i-- > 0;)
		if (rc->procs[i]->pid == pid && !rc->procs[i]->replaced)
			return rc->procs[i];
	return NULL;
}

/*
 * An exit goes into the queue of whoever learned it (the parent that
 * reaped the child, or us), in time order with what that source saw.
 */
void
add_exit(struct queue *q, pid_t pid, int status, uint64_t ts)
{
	struct rec *r = queue_push(q, ts);

	r->kind = CTL_EXIT;
	r->pid = pid;
	r->status = status;
}

/* Alive, not a zombie waiting to be reaped. */
int
still_running(pid_t pid)
{
	char buf[512], *s, state;

	return (s = proc_stat(pid, buf, sizeof(buf))) && sscanf(s, " %c", &state) == 1 &&
	    state != 'Z' && state != 'X';
}

/* A child as its parent in a PID namespace names it, as we see it. */
pid_t
child_pid(struct recorder *rc, const struct proc *parent, pid_t nspid)
{
	size_t i;

	for (i = rc->nprocs; i-- > 0;)
		if (rc->procs[i]->nspid == nspid && rc->procs[i]->ppid == parent->pid &&
		    !rc->procs[i]->replaced)
			return rc->procs[i]->pid;
	return 0;
}

struct proc *
add_proc(struct recorder *rc, int fd)
{
	struct proc *p = ecalloc(1, sizeof(*p));

	p->fd = fd;
	p->remap_heap = -1;
	rc->procs = egrow(rc->procs, rc->nprocs, &rc->proccap, sizeof(*rc->procs));
	rc->procs[rc->nprocs++] = p;
	return p;
}

/*
 * Whether a process still runs (a zombie does not).  A process can close
 * our connection and go on writing to its rings.
 */
static int
proc_alive(pid_t pid)
{
	char buf[512], *s = proc_stat(pid, buf, sizeof(buf));

	return s && s[0] == ' ' && s[1] != 'Z' && s[1] != 'X';
}

/* Everything a process's state holds, and the state. */
void
proc_free(struct proc *p)
{
	size_t j;

	if (p->fd >= 0)
		close(p->fd);
	if (p->table)
		munmap(p->table, MT_STACK_BYTES(p->table_words));
	if (p->head)
		munmap(p->head, 4096);
	for (j = 0; j < p->nmods; j++)
		free(p->mods[j].data);
	for (j = p->ctl.head; j < p->ctl.len; j++)
		free(p->ctl.v[j].data);
	free(p->mods);
	free(p->ctl.v);
	free(p->ids_key);
	free(p->ids_val);
	ranges_free(&p->regions);
	free(p->ops);
	free(p);
}

/*
 * A process is done with when its end is written, its connection and
 * table let go of, no ring of its left, and a second has passed: a
 * child forked just before its parent ended finds its parent's modules.
 * Kept for ever, short processes' states would pile up, and every lookup
 * would walk them all.  One a source keeps data of is the source's to end.
 */
#define PROC_GRACE_NS 1000000000u

static int
proc_done(const struct proc *p, uint64_t t)
{
	return p->fd < 0 && !p->data && !p->table && !p->nrings && p->ctl.head == p->ctl.len &&
	    !p->fork_pending &&
	    (p->exited || p->replaced || !p->said_hello) && t - p->gone_at > PROC_GRACE_NS;
}

/*
 * A process whose connection ended while it runs on, and no new image of
 * it has said hello: it may have run a program the library cannot go
 * into, looked at at once (a short one is soon gone).  A set-user-ID or
 * set-group-ID one is said (the dynamic linker ignores
 * LD_PRELOAD for it), not left out silently.
 */
static void
say_unfollowed(struct recorder *rc, struct proc *p)
{
	char path[64], exe[PATH_MAX];
	struct stat st;
	ssize_t n;

	if (p->exec_checked || p->fd >= 0 || !p->said_hello || p->replaced || p->exited ||
	    !proc_alive(p->pid))
		return;
	p->exec_checked = 1;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)p->pid);
	if (stat(path, &st) < 0 || !(st.st_mode & (S_ISUID | S_ISGID)) ||
	    (n = readlink(path, exe, sizeof(exe) - 1)) <= 0)
		return;
	exe[n] = '\0';
	comment_and_say(rc, "pid %d runs %s, which is set-user-ID or set-group-ID: the dynamic "
	    "linker ignores LD_PRELOAD for it, so it is not recorded (as root, mt-record -u "
	    "records it through uprobes)", (int)p->pid, exe);
}

/* Lets go of rings and tables nobody will write to again. */
void
recorder_release(struct recorder *rc)
{
	size_t i, j;
	struct ring *g;
	struct proc *p;
	uint64_t t;

	for (i = j = 0; i < rc->nrings; i++) {
		g = rc->rings[i];
		if (g->q.head == g->q.len &&
		    (g->done || g->proc->replaced ||
		    __atomic_load_n(&g->map->closed, __ATOMIC_ACQUIRE) ||
		    (g->proc->fd < 0 && !proc_alive(g->pid))) &&
		    (g->done || __atomic_load_n(&g->map->head, __ATOMIC_ACQUIRE) == g->tail)) {
			munmap(g->map, MT_RING_BYTES);
			g->proc->nrings--;
			free(g->q.v);
			free(g);
			continue;
		}
		rc->rings[j++] = g;
	}
	rc->nrings = j;
	for (i = 0; i < rc->nprocs; i++) {
		p = rc->procs[i];
		if (!p->table || p->fd >= 0)
			continue;
		/* Closed by the process itself, which may connect again. */
		if (!p->replaced && !p->exited && proc_alive(p->pid))
			continue;
		for (j = 0; j < rc->nrings; j++)
			if (rc->rings[j]->proc == p)
				break;
		if (j < rc->nrings)
			continue;
		if (p->table->lost > p->lost_said) {
			struct rec *r = queue_push(&p->ctl, now_rel(rc));
			r->kind = CTL_LOST;
			r->pid = p->pid;
			r->size = p->table->lost - p->lost_said;
			p->lost_said = p->table->lost;
		}
		p->counts.full = p->table->full;
		p->counts.fallback = p->table->fallback;
		p->counts.checked = p->table->checked;
		p->counts.differ = p->table->differ;
		p->counts.unchecked = p->table->unchecked;
		p->counts.remembered = p->table->remembered;
		/* The process's word: only the three we know count. */
		p->counts.shadow = p->table->unwinder == 's';
		p->counts.libunwind = p->table->unwinder == 'l';
		p->counts.fp = p->table->unwinder == 'p';
		munmap(p->table, MT_STACK_BYTES(p->table_words));
		p->table = NULL;
		free(p->ids_key);
		free(p->ids_val);
		p->ids_key = NULL;
		p->ids_val = NULL;
		p->ids_cap = p->ids_len = 0;
	}
	t = now_rel(rc);
	for (i = j = 0; i < rc->nprocs; i++) {
		p = rc->procs[i];
		say_unfollowed(rc, p);
		if (proc_done(p, t)) {
			add_counts(&rc->counts_gone, &p->counts);
			proc_free(p);
			continue;
		}
		rc->procs[j++] = p;
	}
	rc->nprocs = j;
}

/* Attached (-p): whether every process we record has ended. */
int
recorder_all_gone(struct recorder *rc)
{
	size_t i;

	for (i = 0; i < rc->nprocs; i++)
		if (rc->procs[i]->said_hello && !rc->procs[i]->replaced && !rc->procs[i]->exited &&
		    proc_alive(rc->procs[i]->pid))
			return 0;
	return 1;
}

/* Tells every attached process to stop; whether all have. */
int
recorder_detach_all(struct recorder *rc, int tell)
{
	int all = 1;
	size_t i;

	for (i = 0; i < rc->nprocs; i++) {
		struct proc *p = rc->procs[i];
		if (!p->head)
			continue;
		if (tell) {
			__atomic_store_n(&p->head->detach, 1, __ATOMIC_RELEASE);
			p->runs_on = !p->exited && !p->replaced && proc_alive(p->pid);
		}
		if (p->runs_on && !__atomic_load_n(&p->head->detached, __ATOMIC_ACQUIRE) &&
		    proc_alive(p->pid))
			all = 0;
	}
	return all;
}

