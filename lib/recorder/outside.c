/*
 * outside: the processes a source records from outside them (--uprobes),
 * in the recorder's one table of processes.  Each holds what its source
 * keeps of it (data: the probes, the mappings its stacks are read
 * against), found by pid while it runs; its calls of the mmap family
 * become commits and decommits as the preload library's do.
 */

#include "internal.h"

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

static uint64_t
page_up(uint64_t a)
{
	return a > UINT64_MAX - 4095 ? UINT64_MAX & ~(uint64_t)4095 : (a + 4095) & ~(uint64_t)4095;
}

/* One range record of a call, through the same path as the preload library's. */
static void
map_rec(struct recorder *rc, struct proc *p, const struct mt_map_call *c, int kind, int heap,
    int flags, uint64_t addr, uint64_t len)
{
	struct rec r = { .ts = c->ts, .addr = addr, .size = len, .kind = (uint8_t)kind,
	    .heap = (uint8_t)heap, .flags = (uint16_t)flags, .tid = c->tid, .pid = c->pid,
	    .stack = (uint32_t)c->stack };

	emit_mapping(rc, &r, p);
}

void
recorder_map_call(struct recorder *rc, const struct mt_map_call *c)
{
	struct proc *p = outside_proc(rc, c->pid);
	int anon = raw_anon_private(c->flags), exec = c->prot & PROT_EXEC ? RAW_EXEC : 0;
	uint64_t from, to;

	switch (c->call) {
	case MT_CALL_MMAP:
		/* A fixed mapping of anything replaces what was there. */
		if (anon || (c->flags & MAP_FIXED))
			map_rec(rc, p, c, RAW_MMAP, anon ? raw_heap_of_prot(c->prot) : RAW_HEAP_NONE,
			    anon ? exec : 0, c->addr, c->len);
		break;
	case MT_CALL_MUNMAP:
		map_rec(rc, p, c, RAW_MUNMAP, RAW_HEAP_NONE, 0, c->addr, c->len);
		break;
	case MT_CALL_MREMAP:
		map_rec(rc, p, c, RAW_MREMAP_FROM, RAW_HEAP_NONE, 0, c->old_addr, c->old_len);
		map_rec(rc, p, c, RAW_MREMAP_TO, RAW_HEAP_NONE, 0, c->addr, c->len);
		break;
	case MT_CALL_MPROTECT:
		map_rec(rc, p, c, RAW_MPROTECT, raw_heap_of_prot(c->prot), exec, c->addr, c->len);
		break;
	case MT_CALL_BRK:
		/* The data segment's end moved: its pages committed, or given back. */
		from = page_up(c->old_addr);
		to = page_up(c->addr);
		if (to > from)
			map_rec(rc, p, c, RAW_MMAP, RAW_HEAP_MMAP, 0, from, to - from);
		else if (to < from)
			map_rec(rc, p, c, RAW_MUNMAP, RAW_HEAP_NONE, 0, to, from - to);
		break;
	}
}
