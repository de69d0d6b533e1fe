/*
 * ubpf: mt-record --uprobes's BPF program: loaded and checked for, its
 * tracepoints attached, and its maps, through which the rest of
 * mt-record tells it whom to record and learns whom it stopped.  The
 * only file that knows the skeleton.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "mt.h"
#include "command.h"
#include "uprobes.h"
#include "ktrace.h"
#include "bpf/ualloc.h"
/* bpftool's skeleton casts away a const. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wcast-qual"
#include "ualloc.skel.h"
#pragma GCC diagnostic pop

struct bpf_program *
uprog(struct usource *u, int i)
{
	struct ualloc *s = u->skel;
	struct bpf_program *p[] = { s->progs.malloc_in, s->progs.calloc_in, s->progs.realloc_in,
		s->progs.memalign_in, s->progs.posix_memalign_in, s->progs.free_in,
		s->progs.pool_in, s->progs.pool_free_in, s->progs.alloc_out,
		s->progs.posix_memalign_out, s->progs.entry_stop };

	return p[i];
}

#define RING_HELD	(16u << 20)

#define RING_ATTACHED	(64u << 20)

/* libbpf's messages: none, but with MT_BPF_DEBUG (the verifier's log). */
static int
quiet_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
static int
quiet_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (getenv("MT_BPF_DEBUG"))
		vfprintf(stderr, fmt, ap);
	return 0;
}

/* The running kernel's own types, which the BPF program is fitted to as it loads (CO-RE). */
#define KERNEL_BTF "/sys/kernel/btf/vmlinux"

/* Whether --uprobes can work here: root, and a kernel with uprobes and BTF. */
int
uprobes_possible(void)
{
	/* And BPF allowed: a container's root may be refused it (a trivial
	   program loaded and let go of, a millisecond). */
	libbpf_set_print(quiet_libbpf);
	return geteuid() == 0 && access("/sys/bus/event_source/devices/uprobe/type", F_OK) == 0 &&
	    access(KERNEL_BTF, R_OK) == 0 &&
	    libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_KPROBE, NULL) == 1;
}

/*
 * Multi-probe links (Linux 6.6): one link holds a program's probes in a
 * file for a process, and letting go of it waits one grace period, not
 * one a probe under a lock all probes share (a perf event's).  This
 * libbpf (1.1) and these headers (6.1) know neither, so the attribute is
 * laid out here as the kernel's ABI has it.
 */
#define UPROBE_MULTI		48	/* BPF_TRACE_UPROBE_MULTI */
#define UPROBE_MULTI_RETURN	1u	/* BPF_F_UPROBE_MULTI_RETURN */
struct multi_attr {
	uint32_t prog_fd, target_fd, attach_type, flags;
	uint64_t path, offsets, ref_ctr_offsets, cookies;
	uint32_t cnt, uflags, pid;
};

static int
multi_link(int prog, pid_t pid, const char *path, const uint64_t *offs, const uint64_t *cookies,
    size_t n, int ret)
{
	struct multi_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_fd = (uint32_t)prog;
	a.attach_type = UPROBE_MULTI;
	a.path = (uint64_t)(uintptr_t)path;
	a.offsets = (uint64_t)(uintptr_t)offs;
	a.cookies = (uint64_t)(uintptr_t)cookies;
	a.cnt = (uint32_t)n;
	a.uflags = ret ? UPROBE_MULTI_RETURN : 0;
	a.pid = (uint32_t)pid;
	return (int)syscall(SYS_bpf, BPF_LINK_CREATE, &a, sizeof(a));
}

/* A program that does nothing, for multi-probe links: its descriptor, or -1. */
static int
nop_program(void)
{
	const struct bpf_insn ret0[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = UPROBE_MULTI);

	return bpf_prog_load(BPF_PROG_TYPE_KPROBE, "mt_nop", "GPL", ret0, 2, &o);
}

/*
 * Whether the kernel makes multi-probe links: a trivial program of their
 * type linked to a directory is refused as not a file (EBADF), where an
 * older kernel refuses the type (EINVAL).  MT_UPROBE_MULTI=0: never.
 */
static int
multi_works(void)
{
	const char *env = getenv("MT_UPROBE_MULTI");
	uint64_t off = 0;
	int prog, fd, works;

	if (env && strcmp(env, "0") == 0)
		return 0;
	if ((prog = nop_program()) < 0)
		return 0;
	fd = multi_link(prog, 0, "/", &off, NULL, 1, 0);
	works = fd < 0 && errno == EBADF;
	if (fd >= 0)
		close(fd);
	close(prog);
	return works;
}

static void
keep_fd(struct usource *u, int fd)
{
	u->link_fds = egrow(u->link_fds, u->nlink_fds, &u->link_fdcap, sizeof(*u->link_fds));
	u->link_fds[u->nlink_fds++] = fd;
}

/*
 * The program which's probes at offs[0..n) in path for pid (their
 * returns, if ret), cookies[i] the ith's: one link, or one a probe where
 * the kernel has no multi-probe links; kept until the end.  0, or -1
 * with errno.
 */
int
ubpf_probe(struct usource *u, int which, pid_t pid, const char *path, const uint64_t *offs,
    const uint64_t *cookies, size_t n, int ret)
{
	LIBBPF_OPTS(bpf_uprobe_opts, o);
	struct bpf_link *l;
	size_t i;
	int fd;

	if (u->multi) {
		if ((fd = multi_link(bpf_program__fd(uprog(u, which)), pid, path, offs, cookies, n,
		    ret)) < 0)
			return -1;
		keep_fd(u, fd);
		return 0;
	}
	o.retprobe = ret != 0;
	for (i = 0; i < n; i++) {
		o.bpf_cookie = cookies[i];
		if (!(l = bpf_program__attach_uprobe_opts(uprog(u, which), pid, path, offs[i], &o)))
			return -1;
		keep_link(u, l);
	}
	return 0;
}

/*
 * Probes at offs[0..n) in path of every process that maps it, into a
 * program that does nothing (ulinks.c's keep_breakpoints): a link's
 * descriptor, or -1 with errno.
 */
int
ubpf_probe_all(struct usource *u, const char *path, const uint64_t *offs, size_t n)
{
	int prog, fd, e;

	if (!u->multi) {
		errno = EOPNOTSUPP;
		return -1;
	}
	if ((prog = nop_program()) < 0)
		return -1;
	fd = multi_link(prog, 0, path, offs, NULL, n, 0);
	e = errno;
	/* The link holds the program. */
	close(prog);
	errno = e;
	return fd;
}

/* How the probes are attached, in the trace. */
void
ubpf_say_links(struct usource *u)
{
	if (u->multi)
		recorder_comment(u->rc, "# mt-record: probes in multi-probe links, one a "
		    "program, file and process");
	else
		recorder_comment(u->rc, "# mt-record: probes by perf events, one a function and "
		    "process (no multi-probe links: a kernel before Linux 6.6, or MT_UPROBE_MULTI=0): "
		    "letting go of each takes a grace period at the end");
}

/* One probe, its owner's to let go of (ubpf_unprobe): NULL with errno. */
struct uattach *
ubpf_probe_one(struct usource *u, int which, pid_t pid, const char *path, uint64_t off)
{
	LIBBPF_OPTS(bpf_uprobe_opts, o);
	struct uattach *a = emalloc(sizeof(*a));
	uint64_t cookie = 0;
	int e;

	a->l = NULL;
	a->fd = -1;
	if (u->multi ? (a->fd = multi_link(bpf_program__fd(uprog(u, which)), pid, path, &off,
	    &cookie, 1, 0)) < 0 : !(a->l = bpf_program__attach_uprobe_opts(uprog(u, which), pid,
	    path, off, &o))) {
		e = errno;
		free(a);
		errno = e;
		return NULL;
	}
	return a;
}

void
ubpf_unprobe(struct uattach *a)
{
	if (!a)
		return;
	if (a->fd >= 0)
		close(a->fd);
	bpf_link__destroy(a->l);
	free(a);
}

/* A tracepoint's program attached, with a cookie: 0, or -1 with errno. */
static int
attach_tp(struct usource *u, struct bpf_program *prog, const char *group, const char *name,
    uint64_t cookie)
{
	LIBBPF_OPTS(bpf_tracepoint_opts, o);
	struct bpf_link *l;

	o.bpf_cookie = cookie;
	if (!(l = bpf_program__attach_tracepoint_opts(prog, group, name, &o)))
		return -1;
	keep_link(u, l);
	return 0;
}

int
set_traced(struct usource *u, struct uproc *p)
{
	uint32_t key = (uint32_t)p->pid;
	uint8_t v = (uint8_t)(UA_TRACED | (p->copies ? UA_DWARF : 0) | (u->hold ? UA_HOLD : 0));

	if (!p->ready)
		return 0;
	return bpf_map__update_elem(u->skel->maps.traced, &key, sizeof(key), &v, sizeof(v),
	    BPF_ANY);
}

int
stop_sent(struct usource *u, pid_t tid)
{
	uint32_t key = (uint32_t)tid;

	return bpf_map__delete_elem(u->skel->maps.stops, &key, sizeof(key), 0) == 0;
}

int
stops_outstanding(struct usource *u)
{
	uint32_t next;

	return bpf_map__get_next_key(u->skel->maps.stops, NULL, &next, sizeof(next)) == 0;
}

/* Nothing recorded any more: the BPF program stops nobody from now. */
void
untrace_all(struct usource *u)
{
	uint32_t key, next;

	while (bpf_map__get_next_key(u->skel->maps.traced, NULL, &next, sizeof(next)) == 0) {
		key = next;
		bpf_map__delete_elem(u->skel->maps.traced, &key, sizeof(key), 0);
	}
}

/*
 * The tracepoints, for the command's process and those it makes: the
 * mmap family's calls, its commits and decommits as the preload library
 * records them (and brk's too, and the C library's own mappings, which
 * that does not see); a child's first return from fork (unless -n), an
 * exec and an end, that its probes follow.  0, or -1 with errno.
 */
static int
attach_tps(struct usource *u, int follow)
{
	static const struct { const char *name; int kind; } calls[] = {
		{ "mmap", UA_MMAP }, { "munmap", UA_MUNMAP }, { "mremap", UA_MREMAP },
		{ "mprotect", UA_MPROTECT }, { "brk", UA_BRK },
	};
	static const char *const forks[] = { "fork", "vfork", "clone", "clone3" };
	struct ualloc *s = u->skel;
	char tp[64];
	size_t i;

	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		snprintf(tp, sizeof(tp), "sys_enter_%s", calls[i].name);
		if (attach_tp(u, s->progs.sys_in, "syscalls", tp, (uint64_t)calls[i].kind) < 0)
			return -1;
		snprintf(tp, sizeof(tp), "sys_exit_%s", calls[i].name);
		if (attach_tp(u, s->progs.sys_out, "syscalls", tp, (uint64_t)calls[i].kind) < 0)
			return -1;
	}
	for (i = 0; follow && i < sizeof(forks) / sizeof(forks[0]); i++) {
		snprintf(tp, sizeof(tp), "sys_exit_%s", forks[i]);
		/* A kernel without one (fork, vfork on arm64): its children come by the others. */
		if (attach_tp(u, s->progs.fork_out, "syscalls", tp, 0) < 0 && errno != ENOENT)
			return -1;
	}
	if (attach_tp(u, s->progs.exec_done, "sched", "sched_process_exec", 0) < 0 ||
	    attach_tp(u, s->progs.exit_done, "sched", "sched_process_exit", 0) < 0)
		return -1;
	return 0;
}

/* The tracepoints attached, tracefs mounted for it if it is not, and let be after. */
int
trace_calls(struct usource *u, int follow)
{
	char root[256];
	int mounted, r, e;

	if (tracefs_find(root, sizeof(root), &mounted) < 0)
		return -1;
	r = attach_tps(u, follow);
	e = errno;
	/* Attached, they need it no more. */
	if (mounted)
		tracefs_unmount(root);
	errno = e;
	return r;
}

/* The refusals that come before anything is loaded: 0, or said. */
int
can_probe(void)
{
	if (access("/sys/bus/event_source/devices/uprobe/type", F_OK) < 0) {
		mt_warnx("--uprobes: this kernel has no uprobes (CONFIG_UPROBE_EVENTS): "
		    "record with LD_PRELOAD instead");
		return -1;
	}
	if (geteuid() != 0) {
		mt_warnx("--uprobes needs root (or CAP_BPF and CAP_PERFMON): "
		    "run mt-record as root, or without --uprobes");
		return -1;
	}
	if (access(KERNEL_BTF, R_OK) < 0) {
		mt_warnx("--uprobes: this kernel has no BTF (%s: %s; CONFIG_DEBUG_INFO_BTF): "
		    "record with LD_PRELOAD instead", KERNEL_BTF, strerror(errno));
		return -1;
	}
	return 0;
}

/* A per-CPU counter of the BPF program's, summed. */
static uint64_t
counted(const struct bpf_map *map)
{
	int ncpu = libbpf_num_possible_cpus(), i;
	uint64_t *v, sum = 0;
	uint32_t z = 0;

	if (ncpu <= 0)
		return 0;
	v = ecalloc((size_t)ncpu, sizeof(*v));
	if (bpf_map__lookup_elem(map, &z, sizeof(z), v, (size_t)ncpu * sizeof(*v), 0) == 0)
		for (i = 0; i < ncpu; i++)
			sum += v[i];
	free(v);
	return sum;
}

/* The BPF program opened, told what it should send, and loaded; NULL, errno set. */
static struct ualloc *
open_skel(const struct args *a, int multi)
{
	struct ualloc *s;
	struct bpf_program *prog;
	int e;

	libbpf_set_print(quiet_libbpf);
	if (!(s = ualloc__open()))
		return NULL;
	/* Its probes' programs of the type multi-probe links take. */
	if (multi)
		bpf_object__for_each_program(prog, s->obj)
			if (bpf_program__type(prog) == BPF_PROG_TYPE_KPROBE)
				bpf_program__set_expected_attach_type(prog, UPROBE_MULTI);
	s->rodata->free_stacks = a->opts.free_stacks;
	s->rodata->stack_copy = a->uunwind != 'p' ? a->copy_size : 0;
	s->rodata->npools = (unsigned)a->npools;
	/* Attached (-p), nothing holds a thread while the ring is read: room
	   for a second's stall of the collector at 200,000 events a second. */
	s->rodata->ring_size = a->opts.attach_pid ? RING_ATTACHED : RING_HELD;
	bpf_map__set_max_entries(s->maps.ring, (uint32_t)s->rodata->ring_size);
	if ((e = ualloc__load(s)) != 0) {
		ualloc__destroy(s);
		errno = e < 0 ? -e : e;
		return NULL;
	}
	return s;
}

void
keep_link(struct usource *u, struct bpf_link *l)
{
	u->links = egrow(u->links, u->nlinks, &u->linkcap, sizeof(*u->links));
	u->links[u->nlinks++] = l;
}

/* The BPF program loaded (open_skel), libbpf quiet: 0, or -1 with errno. */
int
ubpf_open(struct usource *u, const struct args *a)
{
	libbpf_set_print(quiet_libbpf);
	u->multi = multi_works();
	return (u->skel = open_skel(a, u->multi)) ? 0 : -1;
}

/* The ring the program writes, read into fn; NULL with errno. */
struct ring_buffer *
ubpf_ring(struct usource *u, ring_buffer_sample_fn fn)
{
	return ring_buffer__new(bpf_map__fd(u->skel->maps.ring), fn, u, NULL);
}

/* What the ring holds, read (into the function ubpf_ring was given). */
void
ubpf_read(struct usource *u)
{
	if (u->rb)
		ring_buffer__consume(u->rb);
}

/* The events lost (the ring full) and the calls whose returns were not seen. */
void
ubpf_counts(struct usource *u, uint64_t *lost, uint64_t *unseen)
{
	*lost = counted(u->skel->maps.lost);
	*unseen = counted(u->skel->maps.unseen);
}

/* A thread our program stopped and that stop not seen: 1 and it, forgotten; else 0. */
int
ubpf_take_stop(struct usource *u, pid_t *tid)
{
	uint32_t next;

	if (bpf_map__get_next_key(u->skel->maps.stops, NULL, &next, sizeof(next)) < 0)
		return 0;
	*tid = (pid_t)next;
	stop_sent(u, *tid);
	return 1;
}

void
ubpf_close(struct usource *u)
{
	ualloc__destroy(u->skel);
	u->skel = NULL;
}
