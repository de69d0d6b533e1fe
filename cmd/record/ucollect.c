/*
 * ucollect: mt-record --uprobes's collector: the events of the BPF ring
 * into the trace's records, with the process's maps and stacks.  The
 * ring is written by our BPF program, yet every event is checked: the
 * process it describes is not ours to trust.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mt.h"
#include "command.h"
#include "uprobes.h"
#include "bpf/ualloc.h"

/* The process an event is of; NULL for one not recorded (or ended). */
struct uproc *
uproc_of(struct usource *u, pid_t pid)
{
	struct uproc *p;

	if (u->last && u->last->pid == pid && !u->last->ended)
		return u->last;
	p = recorder_outside_data(u->rc, pid);
	return p && !p->ended ? (u->last = p) : NULL;
}

/* pid recorded from now, in the recorder's table; the first, the command. */
struct uproc *
uproc_add(struct usource *u, pid_t pid)
{
	struct uproc *p = ecalloc(1, sizeof(*p));

	p->pid = pid;
	recorder_outside_add(u->rc, pid, p);
	if (!u->cmd)
		u->cmd = p;
	return p;
}

/* The i-th process recorded, in the order they came; NULL for none. */
struct uproc *
uproc_at(struct usource *u, size_t i)
{
	return recorder_data_at(u->rc, i);
}

void
uprocs_free(struct usource *u)
{
	struct uproc *p;
	size_t i, j;

	for (i = 0; i < recorder_nprocs(u->rc); i++) {
		if (!(p = uproc_at(u, i)))
			continue;
		for (j = 0; j < p->nprobed; j++)
			free(p->probed[j].path);
		free(p->probed);
		free(p->maps);
		free(p->exe);
		free(p);
	}
	recorder_outside_forget(u->rc);
	u->cmd = u->last = NULL;
}

/* A map line for [lo, hi) at off in file, unless a mapping said overlaps it. */
static void
say_map(struct usource *u, struct uproc *p, uint64_t ts, uint64_t lo, uint64_t hi, uint64_t off,
    const char *file)
{
	size_t i;

	for (i = 0; i < p->nmaps; i++)
		if (lo < p->maps[i].hi && p->maps[i].lo < hi)
			return;
	p->maps = egrow(p->maps, p->nmaps, &p->mapcap, sizeof(*p->maps));
	p->maps[p->nmaps++] = (struct umap){ lo, hi, off, umod_of(u, file) };
	/* Read while the process is there to read it from (a stop, mostly). */
	if (p->copies && p->maps[p->nmaps - 1].mod >= 0)
		mod_image(u, p, &p->maps[p->nmaps - 1]);
	recorder_put_map(u->rc, ts, p->pid, lo, hi, off, file);
}

/* The executable mappings of the process, as map lines, when new. */
void
read_maps(struct usource *u, struct uproc *p, uint64_t ts)
{
	char path[64], line[4096];
	struct procmap m;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)p->pid);
	p->maps_whole = 0;
	if (!(fp = fopen(path, "re")))
		return;
	while (fgets(line, sizeof(line), fp)) {
		if (procmap_parse(line, &m) < 0 || m.perms[2] != 'x')
			continue;
		p->maps_whole = 1;
		if (!strcmp(m.path, "[uprobes]")) {
			p->tramp_lo = m.lo;
			p->tramp_hi = m.hi;
		}
		/* [uprobes] (the kernel's), [vsyscall]: no code of the program's. */
		if (m.path[0] == '[' && strcmp(m.path, "[vdso]"))
			continue;
		say_map(u, p, ts, m.lo, m.hi, m.off, m.path[0] ? m.path : "[anon:exec]");
	}
	fclose(fp);
}

/*
 * The probed file's executable segment, where the probe that fired says
 * it is: known even when the process is gone before /proc was read.
 */
static void
site_map(struct usource *u, struct uproc *p, uint32_t cookie, uint64_t probe_ip, uint64_t ts)
{
	const struct site *t;
	uint64_t lo;

	if (cookie >= u->nsites || !(t = &u->sites[cookie])->seg_size ||
	    probe_ip < t->off - t->seg_off)
		return;
	lo = probe_ip - (t->off - t->seg_off);
	say_map(u, p, ts, lo, lo + t->seg_size, t->seg_off, t->path);
}

/*
 * The mapping said that holds an address; else the maps are read again
 * (dlopen) and it is looked for there.  NULL when in none.
 */
const struct umap *
umap_of(struct usource *u, struct uproc *p, uint64_t ip, uint64_t ts)
{
	size_t i, from = 0;

	for (i = 0; i < p->nmaps; i++)
		if (ip >= p->maps[i].lo && ip < p->maps[i].hi)
			return &p->maps[i];
	/* Read again at most every 10 ms: a bad frame is not a new module. */
	if (p->nmaps && ts < p->maps_read_at + 10000000)
		return NULL;
	p->maps_read_at = ts;
	from = p->nmaps;
	read_maps(u, p, ts);
	for (i = from; i < p->nmaps; i++)
		if (ip >= p->maps[i].lo && ip < p->maps[i].hi)
			return &p->maps[i];
	return NULL;
}

static int
know_address(struct usource *u, struct uproc *p, uint64_t ip, uint64_t ts)
{
	return umap_of(u, p, ip, ts) != NULL;
}

/* Marks a stack seen whose every frame was cut: it has none. */
#define NO_STACK ((void *)UINTPTR_MAX)

/*
 * The stack's id (the recorder's), 0 for none, remembered by its frames
 * as the probe gave them.  A frame in no code of the process's is a
 * frame-pointer chain gone astray through code built without them (data
 * taken for a return address): the stack ends there, once its maps are
 * known to be whole.
 */
static uint64_t
stack_id(struct usource *u, struct uproc *p, const uint64_t *ips, size_t n, uint64_t ts)
{
	void **v = u64map_stack(&u->stacks, ips, n);
	size_t i;

	if (*v)
		return *v == NO_STACK ? 0 : (uint64_t)(uintptr_t)*v;
	for (i = 0; i < n; i++)
		if (!know_address(u, p, ips[i], ts) && p->maps_whole) {
			n = i;
			break;
		}
	if (!n) {
		*v = NO_STACK;
		return 0;
	}
	*v = (void *)(uintptr_t)recorder_stack(u->rc, ips, n);
	return (uint64_t)(uintptr_t)*v;
}

/*
 * A call of the mmap family.  Its stack starts in the system call's
 * wrapper, which the preload library's do not have: the wrapper goes,
 * and where it returns to comes first (the first word on top of the
 * stack that is code), unless the frame-pointer chain has it already.
 */
static void
on_map_call(struct usource *u, struct uproc *p, const struct ua_event *e, uint64_t ts,
    uint64_t *ips, size_t n, int copied)
{
	static const int calls[UA_NKINDS] = { [UA_MMAP] = MT_CALL_MMAP,
		[UA_MUNMAP] = MT_CALL_MUNMAP, [UA_MREMAP] = MT_CALL_MREMAP,
		[UA_MPROTECT] = MT_CALL_MPROTECT, [UA_BRK] = MT_CALL_BRK };
	struct mt_map_call c = { .ts = ts, .pid = e->pid, .tid = e->tid, .call = calls[e->kind],
	    .prot = (int)e->prot, .flags = (int)e->mflags, .addr = e->addr, .len = e->size,
	    .old_addr = e->old, .old_len = e->old_size };
	size_t i;

	/* A copied stack was unwound from the wrapper by its own rules. */
	if (n && !copied) {
		for (i = 0; i < UA_TOP; i++)
			if (e->top[i] && e->top[i] < (1ULL << 47) && know_address(u, p, e->top[i], ts))
				break;
		if (i < UA_TOP && (n < 2 || ips[1] != e->top[i]))
			ips[0] = e->top[i];
		else
			ips++, n--;
	}
	if (n)
		c.stack = stack_id(u, p, ips, n, ts);
	recorder_map_call(u->rc, &c);
}

/*
 * An event as the ring holds it, into e; its copied stack (UA_DWARF) into
 * g and copy.  0 when it is not well formed.
 */
static int
parse_event(const void *data, size_t len, struct ua_event *e, struct ua_regs *g,
    const uint8_t **copy)
{
	memset(e, 0, sizeof(*e));
	*copy = NULL;
	if (len < UA_HEAD)
		return 0;
	memcpy(e, data, UA_HEAD);
	if (e->copy) {
		if (len < UA_HEAD + sizeof(*g))
			return 0;
		memcpy(g, (const uint8_t *)data + UA_HEAD, sizeof(*g));
		if (g->len > len - UA_HEAD - sizeof(*g))
			return 0;
		*copy = (const uint8_t *)data + UA_HEAD + sizeof(*g);
		e->nips = 0;
	} else {
		if (len > sizeof(*e) || (UA_IS_CALL(e->kind) && len != sizeof(*e)))
			return 0;
		memcpy(e, data, len);
		if (e->nips > (len - UA_HEAD) / sizeof(e->ips[0]) || e->nips > UA_FRAMES)
			return 0;
	}
	return e->kind >= UA_ALLOC && e->kind < UA_NKINDS;
}

/* The k-th call under way of e, innermost first: where it returns; 0 if none. */
static uint64_t
pending_ret(const struct ua_event *e, size_t k)
{
	uint64_t at[UA_PENDING], ret[UA_PENDING], t;
	size_t i, j, n = 0;

	for (i = 0; i < UA_PENDING; i++)
		if (e->pend_ret[i]) {
			at[n] = e->pend_at[i];
			ret[n++] = e->pend_ret[i];
		}
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && at[j - 1] > at[j]; j--) {
			t = at[j], at[j] = at[j - 1], at[j - 1] = t;
			t = ret[j], ret[j] = ret[j - 1], ret[j - 1] = t;
		}
	return k < n ? ret[k] : 0;
}

/*
 * An event's frames.  Frames past the user half of the address space are
 * a frame-pointer chain gone astray in code built without them: the stack
 * ends there.  The second frame is the first again when the caller keeps
 * no frame pointer (the chain starts at its caller's frame, or its own).
 */
static size_t
frames_of(struct usource *u, struct uproc *p, const struct ua_event *e, const struct ua_regs *g,
    const uint8_t *copy, uint64_t *ips, uint64_t ts)
{
	size_t i, n = 0, k = 0;
	uint64_t ip;

	if (copy)
		return unwind_copy(u, p, umap_of, e, g, copy, e->kind == UA_ALLOC, ips, UA_FRAMES,
		    ts);
	for (i = 0; i < e->nips && i < UA_FRAMES && e->ips[i] && e->ips[i] < (1ULL << 47); i++) {
		ip = e->ips[i];
		/* The trampoline of a call of ours under way: where it returns,
		   the innermost first (its entry's stack pointer the lowest). */
		if (ip >= p->tramp_lo && ip < p->tramp_hi && k < UA_PENDING)
			ip = pending_ret(e, k++);
		if (i != 1 || ip != ips[0])
			ips[n++] = ip;
	}
	return n;
}

/* One event from the ring: an allocation, a free, or a call of the mmap family. */
int
on_event(void *ctx, void *data, size_t len)
{
	struct usource *u = ctx;
	uint64_t ts, raw, ips[UA_FRAMES];
	const uint8_t *copy;
	struct ua_regs g;
	struct uproc *p;
	const char *heap;
	struct ua_event e;
	struct mt_event ev;
	size_t n;

	/* The ring is the kernel's, written by our program: checked all the same. */
	if (!parse_event(data, len, &e, &g, &copy))
		return 0;
	raw = ts = e.ts > u->start ? e.ts - u->start : 0;
	if (ts < u->last_ts)
		ts = u->last_ts;
	/* A fork's is the child's, whose parent (old) is recorded. */
	p = uproc_of(u, e.kind == UA_FORK ? (pid_t)e.old : (pid_t)e.pid);
	if (e.kind >= UA_FORK) {
		u->last_ts = ts;
		u->on_proc(u, p, (int)e.kind, ts, (pid_t)e.pid, e.kind == UA_FORK ? raw : e.size);
		return 0;
	}
	if (!p)
		return 0;
	u->last_ts = ts;
	if (!p->nmaps)
		read_maps(u, p, ts);
	if (e.kind <= UA_FREE)
		site_map(u, p, UA_SITE(e.cookie), e.probe_ip, ts);
	n = frames_of(u, p, &e, &g, copy, ips, ts);
	if (e.kind > UA_FREE) {
		on_map_call(u, p, &e, ts, ips, n, copy != NULL);
		u->events++;
		return 0;
	}
	memset(&ev, 0, sizeof(ev));
	ev.ts = ts;
	ev.pid = e.pid;
	ev.tid = e.tid;
	heap = UA_SITE(e.cookie) < u->nsites ? u->sites[UA_SITE(e.cookie)].heap : "malloc";
	ev.heap = (struct mt_str){ heap, strlen(heap) };
	ev.addr = e.addr;
	ev.type = e.kind == UA_FREE ? MT_FREE : MT_ALLOC;
	if (e.kind == UA_ALLOC)
		ev.size = e.size;
	if (!n || (e.kind == UA_FREE && !u->free_stacks) || !(ev.stack = stack_id(u, p, ips, n, ts)))
		ev.flags |= EV_STACK_NONE;
	recorder_put(u->rc, &ev);
	u->events++;
	return 0;
}

void
put_proc(struct usource *u, struct uproc *p, char **argv, const char *exe, pid_t ppid)
{
	size_t len = 0, i;
	char *args;

	for (i = 0; argv[i]; i++)
		len += strlen(argv[i]) + 1;
	args = emalloc(len + 1);
	for (i = 0, len = 0; argv[i]; i++) {
		memcpy(args + len, argv[i], strlen(argv[i]) + 1);
		len += strlen(argv[i]) + 1;
	}
	recorder_put_proc(u->rc, u->last_ts, p->pid, ppid, exe, args, len);
	free(args);
	free(p->exe);
	p->exe = estrdup(exe);
}

/* A file of /proc, whole (64 KiB at most), NUL-terminated; NULL if unread. */
char *
read_small_file(const char *path, size_t *len)
{
	char *buf = emalloc(65536);
	ssize_t n = -1;
	int fd;

	*len = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		n = read(fd, buf, 65535);
		close(fd);
	}
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = (size_t)n;
	return buf;
}

/*
 * A process's proc line, its program and command line as /proc has them.
 * Its program named as the preload library names it: a fork's, as its
 * parent's (it was named when it started); one run since we came, by
 * its directory; one attached to (neither), not by its directory.
 */
void
put_proc_read(struct usource *u, struct uproc *p, pid_t ppid)
{
	struct uproc *parent = p->exe ? NULL : uproc_of(u, ppid);
	char path[64], real[PATH_MAX], *cmdline;
	size_t len;

	if (parent && parent->exe)
		snprintf(real, sizeof(real), "%s", parent->exe);
	else if (!proc_exe_name(p->pid, !p->exe, real, sizeof(real)))
		strcpy(real, "?");
	free(p->exe);
	p->exe = estrdup(real);
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)p->pid);
	if (!(cmdline = read_small_file(path, &len)) || !len)
		recorder_put_proc(u->rc, u->last_ts, p->pid, ppid, real, real, strlen(real) + 1);
	else
		recorder_put_proc(u->rc, u->last_ts, p->pid, ppid, real, cmdline, len);
	free(cmdline);
}

void
put_exit(struct usource *u, struct uproc *p, uint64_t ts, int status)
{
	recorder_put_exit(u->rc, ts < u->last_ts ? u->last_ts : ts, p->pid, status);
}
