/*
 * outside: the processes a source records from outside them (--uprobes),
 * in the recorder's one table of processes.  Each holds what its source
 * keeps of it (data: the probes, the mappings its stacks are read
 * against), found by pid while it runs; its calls of the mmap family
 * become commits and decommits as the preload library's do.
 */

#include "recorder.h"

/* The state of a process recorded from outside it, made on its first call. */
struct proc *
outside_proc(struct recorder *rc, pid_t pid)
{
	struct proc *p = proc_by_pid(rc, pid);

	if (!p) {
		p = add_proc(rc, -1);
		p->pid = pid;
		p->outside = 1;
	}
	return p;
}

void
recorder_outside_add(struct recorder *rc, pid_t pid, void *data)
{
	struct proc *p = proc_by_pid(rc, pid);

	/* A pid used again: the process that had it has ended. */
	if (p && p->data) {
		p->replaced = 1;
		p = NULL;
	}
	if (!p)
		p = outside_proc(rc, pid);
	p->data = data;
}

void *
recorder_outside_data(struct recorder *rc, pid_t pid)
{
	struct proc *p = proc_by_pid(rc, pid);

	return p ? p->data : NULL;
}

void *
recorder_data_at(const struct recorder *rc, size_t i)
{
	return i < rc->nprocs ? rc->procs[i]->data : NULL;
}

void
recorder_outside_forget(struct recorder *rc)
{
	size_t i;

	for (i = 0; i < rc->nprocs; i++)
		rc->procs[i]->data = NULL;
}

size_t
recorder_nprocs(const struct recorder *rc)
{
	return rc->nprocs;
}

void
recorder_put_befores(struct recorder *rc, pid_t pid, uint64_t ts)
{
	struct rec r = { .ts = ts, .pid = pid, .tid = pid };

	regions_before(rc, outside_proc(rc, pid), &r);
}

void
recorder_fork_outside(struct recorder *rc, pid_t pid, pid_t ppid, uint64_t at)
{
	struct proc *parent = proc_by_pid(rc, ppid), *child;
	struct rec r = { .ts = at, .pid = pid, .tid = pid };

	if (!parent || !parent->outside)
		return;
	child = outside_proc(rc, pid);
	regions_as_of_fork(rc, child, parent, &r, at);
}

void
recorder_exec_outside(struct recorder *rc, pid_t pid)
{
	struct proc *p = proc_by_pid(rc, pid), *img;

	if (!p || !p->outside)
		return;
	/* The old image is gone, its mappings with it; the source's data
	   goes with the process to its new image. */
	p->replaced = 1;
	img = outside_proc(rc, pid);
	img->data = p->data;
	p->data = NULL;
}
