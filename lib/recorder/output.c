/*
 * output: the trace written (events, stacks, comments), and a write
 * failure that stops recording, said once.
 */

#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <sys/stat.h>

#include "internal.h"

/* Stacks: a process's table offset becomes a trace-wide id on first use. */
uint64_t
stack_id(struct recorder *rc, struct proc *p, uint32_t off)
{
	uint64_t *arena, n, id, *old_val;
	uint32_t *old_key;
	size_t i, h, oldcap;
	struct mt_event ev;

	if (p->outside)
		return off;
	if (!p->table)
		return 0;	/* let go of: no stack */
	arena = MT_STACK_ARENA(p->table, p->table_words);

	if (p->ids_len * 2 >= p->ids_cap) {
		old_key = p->ids_key;
		old_val = p->ids_val;
		oldcap = p->ids_cap;
		p->ids_cap = oldcap ? oldcap * 2 : 1024;
		p->ids_key = ecalloc(p->ids_cap, sizeof(*p->ids_key));
		p->ids_val = ecalloc(p->ids_cap, sizeof(*p->ids_val));
		for (i = 0; i < oldcap; i++) {
			if (!old_key[i])
				continue;
			for (h = old_key[i] * 2654435761u & (p->ids_cap - 1); p->ids_key[h];
			    h = (h + 1) & (p->ids_cap - 1))
				;
			p->ids_key[h] = old_key[i];
			p->ids_val[h] = old_val[i];
		}
		free(old_key);
		free(old_val);
	}
	for (h = off * 2654435761u & (p->ids_cap - 1); p->ids_key[h];
	    h = (h + 1) & (p->ids_cap - 1))
		if (p->ids_key[h] == off)
			return p->ids_val[h];
	/* The table lives in the traced process: trust nothing in it. */
	if (off >= p->table_words)
		return 0;
	n = arena[off] >> 1;
	if (n > 1024 || off + 1 + n > p->table_words)
		return 0;
	id = rc->next_stack_id++;
	memset(&ev, 0, sizeof(ev));
	ev.type = MT_STACK;
	ev.stack = id;
	ev.nips = (size_t)n;
	ev.ips = &arena[off + 1];
	if (arena[off] & 1)
		ev.flags |= EV_TRUNCATED;
	put_event(rc, &ev);
	p->ids_key[h] = off;
	p->ids_val[h] = id;
	p->ids_len++;
	return id;
}

uint64_t
recorder_stack(struct recorder *rc, const uint64_t *ips, size_t n)
{
	void **v = u64map_stack(&rc->stack_ids, ips, n);
	struct mt_event ev;

	if (*v)
		return (uint64_t)(uintptr_t)*v;
	*v = (void *)(uintptr_t)rc->next_stack_id;
	memset(&ev, 0, sizeof(ev));
	ev.type = MT_STACK;
	ev.stack = rc->next_stack_id++;
	ev.nips = n;
	ev.ips = (uint64_t *)(uintptr_t)ips;
	put_event(rc, &ev);
	return ev.stack;
}

static void
say_stopped(struct recorder *rc)
{
	mt_warnx("%s: %s: recording stopped%s", rc->out_name, strerror(rc->write_failed),
	    rc->kernel_mode ? "" : ", the program runs on");
}

/* After a write: a failure stops recording, said once. */
void
check_written(struct recorder *rc)
{
	if (trace_writer_error(rc->writer)) {
		rc->write_failed = trace_writer_error(rc->writer);
		say_stopped(rc);
	}
}

void
put_event(struct recorder *rc, struct mt_event *ev)
{
	if (rc->write_failed) {
		rc->dropped++;
		return;
	}
	if (rc->bound && !bound_admit(rc->bound, ev))
		return;
	trace_write(rc->writer, ev);
	check_written(rc);
}

void
put_heap_event(struct recorder *rc, enum mt_type type, struct rec *r, struct proc *p,
    int heap, uint64_t lo, uint64_t size)
{
	put_heap_event_flags(rc, type, r, p, heap, lo, size, 0);
}

/* A whole frame out, so that a crash of ours loses little. */
void
recorder_flush(struct recorder *rc)
{
	if (rc->write_failed)
		return;
	if ((rc->write_failed = trace_flush(rc->writer)) != 0)
		say_stopped(rc);
}

static void
write_header(struct recorder *rc)
{
	struct mt_event ev;
	struct timespec t;
	char host[256], line[512];

	clock_gettime(CLOCK_REALTIME, &t);
	if (gethostname(host, sizeof(host)) != 0)
		strcpy(host, "-");
	host[sizeof(host) - 1] = '\0';
	memset(&ev, 0, sizeof(ev));
	ev.type = MT_COMMENT;
	ev.s1.s = line;
	ev.s1.len = (size_t)snprintf(line, sizeof(line),
	    "#mt-events\t%d\tstart=%llu\thost=%s\tresolution=%llu", MT_EVENTS_VERSION,
	    (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec,
	    host, (unsigned long long)rc->time_unit);
	put_event(rc, &ev);
	if (rc->kernel_mode)
		return;
	if (rc->tsc_on)
		recorder_comment(rc, "# mt-record: times from the TSC, %.3f MHz against CLOCK_MONOTONIC",
		    (double)((unsigned __int128)1000 << 32) / (double)rc->tsc_mult);
	else
		recorder_comment(rc, "# mt-record: times from CLOCK_MONOTONIC");
	/* On disk at once: a recorder killed now leaves a trace, not 0 bytes. */
	if (!rc->circular)
		trace_flush(rc->writer);
}

void
recorder_comment(struct recorder *rc, const char *fmt, ...)
{
	struct mt_event ev;
	char line[512];
	va_list ap;

	memset(&ev, 0, sizeof(ev));
	ev.type = MT_COMMENT;
	va_start(ap, fmt);
	ev.s1.len = (size_t)vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (ev.s1.len >= sizeof(line))
		ev.s1.len = sizeof(line) - 1;
	ev.s1.s = line;
	put_event(rc, &ev);
}

void
comment_and_say(struct recorder *rc, const char *fmt, ...)
{
	char line[480];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	recorder_comment(rc, "# mt-record: %s", line);
	mt_note("%s", line);
}

/* The end of the trace and the file; the bytes the file holds. */
uint64_t
recorder_close(struct recorder *rc, int fd)
{
	struct stat st;
	uint64_t written;

	if (rc->bound && !rc->write_failed && (rc->write_failed = bound_finish(rc->bound)) != 0)
		mt_warnx("%s: %s", rc->out_name, strerror(rc->write_failed));
	if (!rc->write_failed && (rc->write_failed = trace_end(rc->writer)) != 0)
		mt_warnx("%s: %s", rc->out_name, strerror(rc->write_failed));
	/* Circular frames go out past the writer: the file tells. */
	written = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size :
	    trace_writer_bytes(rc->writer);
	if (fd != STDOUT_FILENO && close(fd) != 0 && !rc->write_failed) {
		rc->write_failed = errno;
		mt_warn("%s", rc->out_name);
	}
	return written;
}

void
recorder_say_bound(struct recorder *rc)
{
	if (rc->bound && bound_lost(rc->bound))
		mt_note("%llu events beyond --max-size %s, counted in lost records",
		    (unsigned long long)bound_lost(rc->bound),
		    rc->circular ? "dropped, the oldest first" : "not written");
}

void
recorder_open(struct recorder *rc, int fd)
{
	rc->writer = trace_writer_new(fd, RECORD_LEVEL);
	trace_writer_time_unit(rc->writer, rc->time_unit);
	if (rc->max_size)
		rc->bound = bound_new(rc->writer, fd, rc->max_size, rc->circular);
	write_header(rc);
}

