/*
 * summary: the end of a recording, what it says in the trace and on
 * standard error.
 */

#include <sys/wait.h>

#include "internal.h"

/* Everything merged, and what the recording has to say of itself. */
void
recorder_finish(struct recorder *rc)
{
	struct rec *r;
	size_t i;
	struct table_counts c;

	recorder_merge(rc, UINT64_MAX);
	recorder_release(rc);
	recorder_merge(rc, UINT64_MAX);
	for (i = 0; i < rc->nprocs; i++) {
		struct proc *p = rc->procs[i];
		if (!p->said_hello || p->exited || p->replaced)
			continue;
		if (p->runs_on) {
			recorder_comment(rc, "# mt-record: detached from pid %d: it runs on", (int)p->pid);
			continue;
		}
		/* Recording stopped first (a signal, -d): no exit, so its
		   memory is still live at the end, not freed here. */
		if (still_running(p->pid)) {
			recorder_comment(rc, "# mt-record: pid %d still ran when recording stopped", (int)p->pid);
			continue;
		}
		/* Neither we nor a traced parent reaped it. */
		r = queue_push(&p->ctl, rc->last_emitted);
		r->kind = CTL_EXIT;
		r->pid = p->pid;
		r->status = -1;
		recorder_comment(rc, "# mt-record: pid %d ended without an exit status we could see", (int)p->pid);
	}
	for (i = 0; i < rc->nprocs; i++) {
		struct proc *p = rc->procs[i];
		if (p->bad) {
			r = queue_push(&p->ctl, rc->last_emitted);
			r->kind = CTL_LOST;
			r->pid = p->pid;
			r->status = LOST_CORRUPT;
			r->size = p->bad;
		}
		if (p->future)
			recorder_comment(rc, "# mt-record: pid %d: %llu events carried a time later than when we read them: "
			    "given the time of the event before", (int)p->pid,
			    (unsigned long long)p->future);
	}
	if (rc->refused) {
		recorder_comment(rc, "# mt-record: %llu connections refused: not from a process of ours",
		    (unsigned long long)rc->refused);
		mt_warnx("%llu connections refused: not from a process of ours",
		    (unsigned long long)rc->refused);
	}
	recorder_merge(rc, UINT64_MAX);
	recorder_release(rc);
	recorder_merge(rc, UINT64_MAX);
	c = rc->counts_gone;
	for (i = 0; i < rc->nprocs; i++)
		add_counts(&c, &rc->procs[i]->counts);
	if (c.full)
		recorder_comment(rc, "# mt-record: %llu events found the stack table full and have no stack",
		    (unsigned long long)c.full);
	if (c.shadow + c.libunwind + c.fp)
		recorder_comment(rc, "# mt-record: stacks taken by --unwind shadow in %llu processes, libunwind in %llu, fp in %llu",
		    (unsigned long long)c.shadow, (unsigned long long)c.libunwind,
		    (unsigned long long)c.fp);
	if (c.fallback)
		recorder_comment(rc, "# mt-record: --unwind shadow: %llu stacks unwound by libunwind (frames it cannot walk)",
		    (unsigned long long)c.fallback);
	if (rc->unwind_check) {
		comment_and_say(rc, "--unwind check: %llu stacks compared with libunwind's, %llu differ",
		    (unsigned long long)c.checked, (unsigned long long)c.differ);
		if (c.remembered)
			recorder_comment(rc, "# mt-record: --unwind check: %llu of them from walks the shadow remembered",
			    (unsigned long long)c.remembered);
		if (c.unchecked)
			comment_and_say(rc, "--unwind check: %llu stacks not compared: a signal stopped the trampoline, which libunwind cannot walk",
			    (unsigned long long)c.unchecked);
	}
	if (rc->late)
		recorder_comment(rc, "# mt-record: %llu events reached the recorder late and carry the time of the event before them",
		    (unsigned long long)rc->late);
}

/* The trace ended and closed, and said; nprocs RECORDER_KERNEL: the kernel's. */
void
recorder_say_written(struct recorder *rc, uint64_t nprocs, uint64_t written)
{
	char procs[64];

	if (nprocs == RECORDER_KERNEL)
		procs[0] = '\0';
	else
		snprintf(procs, sizeof(procs), ", %llu process%s", (unsigned long long)nprocs,
		    nprocs == 1 ? "" : "es");
	mt_note("%llu %sevents%s, %llu bytes written to %s%s",
	    (unsigned long long)trace_writer_events(rc->writer),
	    nprocs == RECORDER_KERNEL ? "kernel " : "", procs, (unsigned long long)written,
	    rc->out_name, rc->write_failed ? " (incomplete)" : "");
}

void
recorder_end(struct recorder *rc, int fd)
{
	uint64_t written;

	recorder_finish(rc);
	written = recorder_close(rc, fd);
	recorder_say_written(rc, rc->nprocs_traced, written);
	if (rc->dropped)
		mt_warnx("%llu events were not written", (unsigned long long)rc->dropped);
	if (rc->lost)
		mt_note("%llu events lost: the trace's lost lines say where",
		    (unsigned long long)rc->lost);
	recorder_say_bound(rc);
	if (rc->bound)
		bound_free(rc->bound);
	trace_writer_free(rc->writer);
	free(rc->pfds);
	rc->bound = NULL;
	rc->writer = NULL;
	rc->pfds = NULL;
}

