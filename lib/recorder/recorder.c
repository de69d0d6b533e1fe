/*
 * recorder: a recording's state made and reset, and what the command and
 * the tests that drive the collector by hand may ask of it.
 */

#include <stdarg.h>
#include <sys/mman.h>

#include "internal.h"

struct recorder *
recorder_new(const struct record_opts *o)
{
	struct recorder *rc = ecalloc(1, sizeof(*rc));

	rc->time_unit = o->time_unit;
	rc->max_size = o->max_size;
	rc->circular = o->circular;
	rc->free_stacks = o->free_stacks;
	rc->unwind_check = o->unwind_check;
	rc->kernel_mode = o->kernel;
	rc->attach_pid = o->attach_pid;
	rc->next_stack_id = 1;
	rc->root_status = -1;
	rc->drain_batch = MT_RING_RECS;
	rc->spare_fd = -1;
	return rc;
}

void
recorder_reset(struct recorder *rc)
{
	size_t i;

	for (i = 0; i < rc->nrings; i++) {
		munmap(rc->rings[i]->map, MT_RING_BYTES);
		free(rc->rings[i]->q.v);
		free(rc->rings[i]);
	}
	rc->nrings = 0;
	for (i = 0; i < rc->nprocs; i++)
		proc_free(rc->procs[i]);
	rc->nprocs = 0;
	rc->reaped_q.head = rc->reaped_q.len = 0;
	rc->reaped_q.last_ts = 0;
	rc->last_emitted = 0;
}

/* Everything the recorder holds (its writer too), and the recorder. */
void
recorder_free(struct recorder *rc)
{
	recorder_reset(rc);
	free(rc->reaped_q.v);
	free(rc->procs);
	free(rc->rings);
	free(rc->heap);
	free(rc->pfds);
	free(rc->befores);
	u64map_free(&rc->stack_ids, NULL);
	if (rc->bound)
		bound_free(rc->bound);
	if (rc->writer)
		trace_writer_free(rc->writer);
	free(rc);
}

uint64_t
recorder_begin(struct recorder *rc)
{
	return rc->start_ns = clock_ns(rc);
}

uint64_t
recorder_now(struct recorder *rc)
{
	return now_rel(rc);
}

void
recorder_set_name(struct recorder *rc, const char *name)
{
	rc->out_name = name;
}

void
recorder_set_writer(struct recorder *rc, struct trace_writer *w)
{
	rc->writer = w;
}

void
recorder_put(struct recorder *rc, struct mt_event *ev)
{
	put_event(rc, ev);
}

uint64_t
recorder_events(const struct recorder *rc)
{
	return trace_writer_events(rc->writer);
}

int
recorder_failed(const struct recorder *rc)
{
	return rc->write_failed;
}

void
recorder_keep_spare(struct recorder *rc)
{
	rc->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

void
recorder_add_peer(struct recorder *rc, int fd)
{
	add_proc(rc, fd);
}

size_t
recorder_npeers(const struct recorder *rc)
{
	return rc->nprocs;
}

int
recorder_read_peer(struct recorder *rc, size_t i)
{
	return rc->procs[i]->fd < 0 ? -1 : read_peer(rc, rc->procs[i]);
}

void
recorder_close_peer(struct recorder *rc, size_t i)
{
	close(rc->procs[i]->fd);
	rc->procs[i]->fd = -1;
}

size_t
recorder_nrings(const struct recorder *rc)
{
	return rc->nrings;
}

int
recorder_drain(struct recorder *rc, size_t i, uint64_t w, int newer)
{
	return drain_ring(rc, rc->rings[i], w, newer);
}

void
recorder_set_root(struct recorder *rc, pid_t pid, pid_t *forward_to)
{
	rc->root_pid = pid;
	rc->forward_to = forward_to;
}

int
recorder_root_status(const struct recorder *rc)
{
	return rc->root_status;
}

int
recorder_children_left(const struct recorder *rc)
{
	return rc->children_left;
}

uint64_t
recorder_traced(const struct recorder *rc)
{
	return rc->nprocs_traced;
}

int
recorder_said_hello(struct recorder *rc, pid_t pid)
{
	struct proc *p = proc_by_pid(rc, pid);

	return p && p->said_hello;
}
