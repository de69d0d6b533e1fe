/*
 * emit: a control record (a process, a module, a note, lost events, an
 * exit) written as its events.
 */

#include "internal.h"

/* Needs quoting for a shell: empty, or more than the letters of a path. */
static int
needs_quote(const char *a, size_t n)
{
	size_t i;

	if (n == 0)
		return 1;
	for (i = 0; i < n; i++)
		if (a[i] == '\0' || !strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789_@%+=:,./-", a[i]))
			return 1;
	return 0;
}


/* A map line; path escaped as the format says. */
static void
put_map(struct recorder *rc, uint64_t ts, pid_t pid, uint64_t lo, uint64_t hi, uint64_t off,
    struct mt_str id, const char *path, size_t n)
{
	char *buf = emalloc(n * 4 + 1);
	struct mt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = MT_MAP;
	ev.ts = ts;
	ev.pid = pid;
	ev.addr = lo;
	ev.size = hi;
	ev.stack = off;
	ev.s1 = id;
	ev.s2.s = buf;
	ev.s2.len = str_escape(buf, path, n);
	put_event(rc, &ev);
	free(buf);
}

void
recorder_put_map(struct recorder *rc, uint64_t ts, pid_t pid, uint64_t lo, uint64_t hi,
    uint64_t off, const char *path)
{
	put_map(rc, ts, pid, lo, hi, off, (struct mt_str){ "-", 1 }, path, strlen(path));
}

/* The first word on a process's end is the one that counts. */
void
recorder_put_exit(struct recorder *rc, uint64_t ts, pid_t pid, int status)
{
	struct proc *p = proc_by_pid(rc, pid);
	struct mt_event ev;

	if (p && p->exited)
		return;
	if (p)
		p->exited = 1;
	memset(&ev, 0, sizeof(ev));
	ev.type = MT_EXIT;
	ev.ts = ts;
	ev.pid = pid;
	/* -1: not known (an attached process, or one left running). */
	ev.status = status == -1 ? MT_STATUS_NONE : WIFEXITED(status) ? WEXITSTATUS(status) :
	    WIFSIGNALED(status) ? MT_STATUS_SIG(WTERMSIG(status)) : MT_STATUS_NONE;
	put_event(rc, &ev);
}

/*
 * A command line from /proc/PID/cmdline (each argument ended by a NUL)
 * as a shell would read it back: arguments joined by spaces, those that
 * need it in single quotes, so an empty one shows as ''.  A title a
 * process wrote over its arguments (setproctitle: one string, then NUL
 * padding) is shown as it is, as ps shows it.
 */
static char *
argv_quote(const char *args, size_t n, size_t *len)
{
	char *out = emalloc(n * 7 + 4), *o = out;
	const char *a = args, *end = args + n, *z, *q;
	size_t i, k;

	z = memchr(args, '\0', n);
	if (z && z + 1 < end && memchr(args, ' ', (size_t)(z - args))) {
		for (q = z; q < end && *q == '\0'; q++)
			;
		if (q == end) {
			memcpy(out, args, (size_t)(z - args));
			*len = (size_t)(z - args);
			return out;
		}
	}
	for (; a < end; a += k + 1) {
		z = memchr(a, '\0', (size_t)(end - a));
		k = z ? (size_t)(z - a) : (size_t)(end - a);
		if (a > args)
			*o++ = ' ';
		if (!needs_quote(a, k)) {
			memcpy(o, a, k);
			o += k;
			continue;
		}
		*o++ = '\'';
		for (i = 0; i < k; i++) {
			if (a[i] == '\'') {
				memcpy(o, "'\\''", 4);
				o += 4;
			} else {
				*o++ = a[i];
			}
		}
		*o++ = '\'';
	}
	*len = (size_t)(o - out);
	return out;
}

void
recorder_put_proc(struct recorder *rc, uint64_t ts, pid_t pid, pid_t ppid, const char *exe,
    const char *args, size_t n)
{
	size_t elen = strlen(exe), qlen;
	char *quoted = argv_quote(args, n, &qlen), *buf = emalloc((elen + qlen) * 4 + 2);
	struct mt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = MT_PROC;
	ev.ts = ts;
	ev.pid = pid;
	ev.ppid = ppid;
	ev.s1.s = buf;
	ev.s1.len = str_escape(buf, exe, elen);
	ev.s2.s = buf + ev.s1.len;
	ev.s2.len = str_escape(buf + ev.s1.len, quoted, qlen);
	put_event(rc, &ev);
	free(buf);
	free(quoted);
}

void
emit_control(struct recorder *rc, struct rec *r, struct proc *p)
{
	struct mt_event ev;
	char *exe, *args;
	size_t elen, n;

	memset(&ev, 0, sizeof(ev));
	ev.ts = r->ts;
	ev.pid = r->pid;
	switch (r->kind) {
	case CTL_PROC:
		exe = r->data;
		elen = strnlen(exe, r->len);
		args = exe + elen + (elen < r->len);
		recorder_put_proc(rc, r->ts, r->pid, p ? p->ppid : 0, exe,
		    args, r->len - (size_t)(args - exe));
		if (p && p->nspid) {
			char line[96];
			memset(&ev, 0, sizeof(ev));
			ev.type = MT_COMMENT;
			ev.s1.s = line;
			ev.s1.len = (size_t)snprintf(line, sizeof(line), "#nspid\t%d\t%d",
			    (int)p->pid, (int)p->nspid);
			put_event(rc, &ev);
		}
		break;
	case CTL_MAP: {
		char *bid = r->data, *path;
		size_t blen = strnlen(bid, r->len);
		path = bid + blen + (blen < r->len);
		n = r->len - (size_t)(path - bid);
		put_map(rc, r->ts, r->pid, r->addr, r->size, r->off, (struct mt_str){ bid, blen },
		    path, strnlen(path, n));
		break;
	}
	case CTL_BEFORE:
		r->tid = r->pid;
		regions_before(rc, p, r);
		break;
	case CTL_FORK: {
		struct proc *child = (struct proc *)(uintptr_t)r->off;
		regions_as_of_fork(rc, child, p, r, r->size);
		child->fork_pending--;
		break;
	}
	case CTL_NOTE:
		ev.type = MT_COMMENT;
		ev.s1.s = r->data;
		ev.s1.len = r->len;
		put_event(rc, &ev);
		break;
	case CTL_LOST:
		rc->lost += r->size;
		ev.type = MT_LOST;
		ev.size = r->size;
		ev.s1.s = r->status == LOST_CORRUPT ? "corrupt" : "undelivered";
		ev.s1.len = strlen(ev.s1.s);
		put_event(rc, &ev);
		break;
	case CTL_EXIT:
		if (proc_by_pid(rc, r->pid))
			recorder_put_exit(rc, r->ts, r->pid, r->status);
		else
			keep_early_exit(rc, r->pid, 0, 0, r->status, r->ts);
		break;
	}
}

