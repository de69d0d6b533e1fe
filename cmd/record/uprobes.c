/*
 * uprobes: mt-record --uprobes, a command recorded without LD_PRELOAD:
 * BPF uprobes on the allocation functions of its executable and its C
 * library, for its processes only (the kernel filters by the process's
 * memory), and tracepoints on the mmap family, their events read from a
 * ring buffer into the same trace.  It reaches what the preload library
 * cannot: a static program, a set-user-ID one, an allocator linked into
 * the executable.  This file loads, runs and ends; uattach.c probes.
 */

#include <poll.h>
#include <sys/syscall.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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
uprog(struct urec *u, int i)
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




static void
free_sites(struct urec *u)
{
	size_t i;

	for (i = 0; i < u->nsites; i++)
		free(u->sites[i].path);
	free(u->sites);
}

/* A tracepoint's program attached, with a cookie: 0, or -1 with errno. */
static int
attach_tp(struct urec *u, struct bpf_program *prog, const char *group, const char *name,
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
set_traced(struct urec *u, struct uproc *p)
{
	uint32_t key = (uint32_t)p->pid;
	uint8_t v = (uint8_t)(UA_TRACED | (p->copies ? UA_DWARF : 0) | (u->hold ? UA_HOLD : 0));

	if (!p->ready)
		return 0;
	return bpf_map__update_elem(u->skel->maps.traced, &key, sizeof(key), &v, sizeof(v),
	    BPF_ANY);
}

int
stop_sent(struct urec *u, pid_t tid)
{
	uint32_t key = (uint32_t)tid;

	return bpf_map__delete_elem(u->skel->maps.stops, &key, sizeof(key), 0) == 0;
}

int
stops_outstanding(struct urec *u)
{
	uint32_t next;

	return bpf_map__get_next_key(u->skel->maps.stops, NULL, &next, sizeof(next)) == 0;
}

void
hold_read_ring(struct urec *u)
{
	if (u->rb)
		ring_buffer__consume(u->rb);
}

/* Nothing recorded any more: the BPF program stops nobody from now. */
static void
untrace_all(struct urec *u)
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
attach_tps(struct urec *u, int follow)
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
static int
trace_calls(struct urec *u, int follow)
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
static int
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
counted(struct bpf_map *map)
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
open_skel(const struct args *a)
{
	struct ualloc *s;
	int e;

	libbpf_set_print(quiet_libbpf);
	if (!(s = ualloc__open()))
		return NULL;
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

/* What to probe: the known functions, then each pool's two (--alloc-fn). */
static struct want *
wants(const struct args *a, size_t *nw)
{
	struct want *w = ecalloc(nprobe_fns + 2 * (size_t)a->npools, sizeof(*w));
	size_t i, n = 0;

	for (i = 0; i < nprobe_fns; i++)
		w[n++] = (struct want){ probe_fns[i].name, "malloc", probe_fns[i].in,
		    probe_fns[i].out, 0, 0, 0 };
	for (i = 0; i < (size_t)a->npools; i++) {
		const struct pool_fn *f = &a->pools[i];
		w[n++] = (struct want){ f->alloc, f->alloc, P_POOL, P_OUT, (int)i + 1, f->alloc_arg, 0 };
		w[n++] = (struct want){ f->free, f->alloc, P_POOL_FREE, P_NONE, (int)i + 1,
		    f->free_arg, 0 };
	}
	*nw = n;
	return w;
}

/* The probes loaded and attached for the command's process p: 0, or said. */
static int
load_probes(struct urec *u, struct uproc *p, const char *exe, const struct args *a)
{
	const char *libc = libc_path(), *one = NULL;
	int refused = 0, n = 0, m = 0, dummy;
	char interp[PATH_MAX];
	size_t i;

	/* A script: its interpreter is the program that runs. */
	if (elf_functions(exe, &one, 0, NULL, &dummy, 0) < 0 &&
	    script_interp(exe, interp, sizeof(interp)))
		exe = interp;
	u->w = wants(a, &u->nw);
	libbpf_set_print(quiet_libbpf);
	if (!(u->skel = open_skel(a))) {
		mt_warnx("--uprobes: the BPF program was refused: %s%s", strerror(errno),
		    errno == EPERM ? " (root, or CAP_BPF and CAP_PERFMON, is needed)" : "");
		return -1;
	}
	/* The pools are the program's own: looked for in it alone. */
	if (probe_image(u, p, exe, &n, &m, &refused) < 0) {
		mt_warnx("--uprobes: a probe was refused: %s", strerror(refused));
		return -1;
	}
	for (i = nprobe_fns; i < u->nw; i++)
		if (!u->w[i].found) {
			mt_warnx("--alloc-fn: %s: no such function in %s%s", u->w[i].name, exe,
			    elf_functions(exe, &one, 0, NULL, &dummy, 0) < 0 ? "" :
			    " (not built with its symbols, or inlined?)");
			return -1;
		}
	if (trace_calls(u, a->flags[1] != 'n') < 0) {
		mt_warnx("--uprobes: the tracepoints were refused: %s", strerror(errno));
		return -1;
	}
	if (n + m)
		snprintf(u->how, sizeof(u->how), "# mt-record: recorded through uprobes, "
		    "%d functions probed in %s%s%s", n + m, exe, libc && m ? " and " : "",
		    libc && m ? libc : "");
	else if (elf_is_go(exe))
		/* A Go program's runtime takes its memory by system calls alone. */
		snprintf(u->how, sizeof(u->how), "# mt-record: recorded through uprobes; %s is a Go "
		    "program: the mappings its runtime makes (the mmap family, by tracepoint), "
		    "not the objects it allocates inside them", exe);
	else {
		/* Its mappings are seen all the same: those are recorded, and it said. */
		snprintf(u->how, sizeof(u->how), "# mt-record: recorded through uprobes; %s: no "
		    "allocation function to probe (%s): the mappings it makes (the mmap family and "
		    "brk, by tracepoint), not the blocks its allocator cuts from them", exe,
		    elf_has_symtab(exe) ? "it defines none of malloc's family; --alloc-fn names an "
		    "allocator of its own" : "stripped of its symbols");
		mt_note("%s", u->how + strlen("# mt-record: recorded through uprobes; "));
	}
	if (a->blind)
		snprintf(u->how + strlen(u->how), sizeof(u->how) - strlen(u->how),
		    "; LD_PRELOAD is blind to %s: %s", exe, a->blind);
	return 0;
}

/* What the recording holds, let go of; the trace unmade when it failed. */
static void
release(struct urec *u, int fd, const char *name, int created)
{
	size_t i;

	if (fd >= 0 && fd != STDOUT_FILENO && created) {
		close(fd);
		unlink(name);
	}
	ring_buffer__free(u->rb);
	u->rb = NULL;
	free(u->tracees);
	for (i = 0; i < u->nprocs; i++)
		bpf_link__destroy(u->procs[i]->stop);
	/* Their fds open for the child that lets go of them, or closed now. */
	u->link_fds = erealloc(u->link_fds, (u->nlinks + 1) * sizeof(*u->link_fds));
	for (i = 0; i < u->nlinks; i++) {
		u->link_fds[i] = bpf_link__fd(u->links[i]);
		bpf_link__disconnect(u->links[i]);
		bpf_link__destroy(u->links[i]);
	}
	u->nlink_fds = u->nlinks;
	if (!u->keep_links) {
		close_all(u->link_fds, u->nlink_fds);
		free(u->link_fds);
		u->link_fds = NULL;
		u->nlink_fds = 0;
	}
	free(u->links);
	ualloc__destroy(u->skel);
	u64map_free(&u->stacks, NULL);
	umods_free(u);
	uprocs_free(u);
	free_sites(u);
	free(u->w);
}

/*
 * The ring read to its end, the exit said (a wait status; -1, ended with
 * the status not known; -2, running on), the trace closed: 0, or 1 when
 * writing it failed.
 */
static int
finish(struct urec *u, int fd, const char *name, int status)
{
	uint64_t lost, unseen, written;
	char msg[256];

	/* What the ring still holds came before the exit. */
	ring_buffer__consume(u->rb);
	let_go_all(u);
	if (status != -2)
		put_exit(u, u->procs[0], recorder_now(u->rc), status);
	recorder_comment(u->rc, "# mt-record: stacks taken by --unwind fp in %llu processes, "
	    "dwarf in %llu", (unsigned long long)u->by_fp, (unsigned long long)u->by_copy);
	if ((lost = counted(u->skel->maps.lost)))
		recorder_comment(u->rc, "# mt-record: %llu events lost: the BPF ring buffer was full",
		    (unsigned long long)lost);
	if ((unseen = counted(u->skel->maps.unseen))) {
		snprintf(msg, sizeof(msg), "%llu calls' returns not seen (a longjmp out of an "
		    "allocation function, or uretprobes the kernel dropped): their blocks are not "
		    "in the trace", (unsigned long long)unseen);
		recorder_comment(u->rc, "# mt-record: %s", msg);
		mt_warnx("%s", msg);
	}
	written = recorder_close(u->rc, fd);
	recorder_say_written(u->rc, u->nprocs, written);
	if (lost)
		mt_warnx("%llu events lost: the BPF ring buffer was full", (unsigned long long)lost);
	release(u, -1, name, 0);
	return recorder_failed(u->rc) ? 1 : 0;
}

static void
flush_now(struct urec *u, uint64_t *last_flush)
{
	uint64_t t = recorder_now(u->rc);

	if (t - *last_flush > FLUSH_NS) {
		recorder_flush(u->rc);
		*last_flush = t;
	}
}

/*
 * Until the command has ended and its descendants too (cmd), or while
 * `more' says: the ring read, the processes held answered, the trace
 * flushed now and then.
 */
static void
collect(struct urec *u, pid_t cmd, int *status, int *done, int (*more)(struct urec *, void *),
    void *arg)
{
	struct pollfd pf[2] = { { .fd = ring_buffer__epoll_fd(u->rb), .events = POLLIN },
	    { .fd = hold_fd(), .events = POLLIN } };
	uint64_t last_flush = 0;

	while (!stop_signal && more(u, arg)) {
		if (poll(pf, 2, 50) < 0 && errno != EINTR)
			break;
		if (ring_buffer__consume(u->rb) < 0 && errno != EINTR)
			break;
		hold_reap(u, cmd, status, done);
		if (*done)
			forward_to = 0;
		flush_now(u, &last_flush);
	}
}

struct cmd_wait {
	int *done;
};

static int
command_runs(struct urec *u, void *arg)
{
	const struct cmd_wait *w = arg;

	return !*w->done || descendants_left(u);
}

/*
 * The processes that run on as we stop: nothing of ours left on them.
 * Our program stops nobody from now; the stops it sent are seen and
 * ended (a second at most), then those whose events were lost are let
 * go of all the same.
 */
static void
leave_running(struct urec *u, pid_t cmd, int *status, int *done)
{
	struct pollfd pf[2] = { { .fd = ring_buffer__epoll_fd(u->rb), .events = POLLIN },
	    { .fd = hold_fd(), .events = POLLIN } };
	uint64_t until = recorder_now(u->rc) + 1000000000u;
	uint32_t next;

	untrace_all(u);
	while (stops_outstanding(u) && recorder_now(u->rc) < until) {
		ring_buffer__consume(u->rb);
		hold_reap(u, cmd, status, done);
		poll(pf, 2, 10);
	}
	ring_buffer__consume(u->rb);
	while (bpf_map__get_next_key(u->skel->maps.stops, NULL, &next, sizeof(next)) == 0) {
		if (!u->hold)
			kill((pid_t)next, SIGCONT);
		stop_sent(u, (pid_t)next);
	}
	hold_release(u, cmd, status, done);
	let_go_all(u);
}

/* The command started, held before its exec until its probes are in: its pid, or -1 said. */
static pid_t
start_command(struct urec *u, char **argv, const struct args *a, int *go)
{
	pid_t pid;

	pid = spawn(argv, NULL, NULL, a, a->output && strcmp(a->output, "-") == 0, go);
	if (pid < 0) {
		mt_warn("fork");
		return -1;
	}
	if (hold_seize(u, pid) < 0)
		mt_warnx("--uprobes: ptrace: %s: the stops of its processes while their probes "
		    "go in are seen by their parents, and events are lost when mt-record falls "
		    "behind", strerror(errno));
	return pid;
}

int
record_uprobes(struct recorder *rc, char **argv, const struct args *a)
{
	struct urec u = { .rc = rc, .free_stacks = a->opts.free_stacks, .unwind = a->uunwind,
	    .copy_size = a->copy_size };
	char *exe, *defname = NULL, *base, real[PATH_MAX];
	int fd = -1, created = 0, go = -1, status = 0, done = 0, e;
	struct cmd_wait cw = { &done };
	struct uproc *cmd;
	const char *name;
	pid_t pid;

	if (!(exe = find_command(argv[0]))) {
		mt_warnx("%s: command not found", argv[0]);
		return 127;
	}
	if (can_probe() < 0) {
		free(exe);
		return 2;
	}
	u.start = recorder_begin(rc);
	collector_setup();
	if ((pid = start_command(&u, argv, a, &go)) < 0) {
		free(exe);
		return 2;
	}
	forward_to = pid;
	cmd = uproc_add(&u, pid);
	cmd->first_exec = 1;
	base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	/* The output made only once the recording can start: a refusal leaves it be. */
	if (load_probes(&u, cmd, exe, a) < 0 ||
	    !(u.rb = ring_buffer__new(bpf_map__fd(u.skel->maps.ring), on_event, &u, NULL)) ||
	    (fd = open_output(rc, a->output, base, pid, &defname, &created)) < 0) {
		/* The command is not run untraced. */
		run_spawned(go, 0, &e);
		forward_to = 0;
		hold_release(&u, pid, &status, &done);
		while (!done && waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		release(&u, -1, NULL, 0);
		free(defname);
		free(exe);
		return 2;
	}
	name = defname ? defname : a->output && strcmp(a->output, "-") ? a->output : "<stdout>";
	cmd->ready = 1;
	set_traced(&u, cmd);
	recorder_open(rc, fd);
	recorder_comment(rc, "%s", u.how);
	put_proc(&u, cmd, argv, exe_name_run(exe, real, sizeof(real)) ? real : exe, getpid());
	free(exe);
	run_spawned(go, 1, &e);
	if (e) {
		/* Found, yet not run: a bad interpreter, a wrong format. */
		mt_warnx("%s: %s", argv[0], strerror(e));
		hold_release(&u, pid, &status, &done);
		while (!done && waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		release(&u, fd, name, created);
		free(defname);
		return e == ENOENT ? 127 : 126;
	}
	collect(&u, pid, &status, &done, command_runs, &cw);
	if (stop_signal)
		leave_running(&u, pid, &status, &done);
	u.keep_links = done && !stop_signal;
	finish(&u, fd, name, done ? status : -2);
	free(defname);
	if (u.keep_links)
		let_go_later(&u);
	free(u.link_fds);
	if (!done || stop_signal) {
		mt_note("stopped by %s: %s, untraced", strsignal(stop_signal),
		    done ? "its children run on" : "the command runs on");
		die_of(stop_signal);
	}
	if (WIFSIGNALED(status))
		die_of(WTERMSIG(status));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 0;
}

/* Whether pid has ended (its pidfd readable), or is gone. */
static int
ended(int pidfd, pid_t pid)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	if (pidfd < 0)
		return kill(pid, 0) < 0 && errno == ESRCH;
	return poll(&p, 1, 0) > 0;
}

/*
 * mt-record -p PID --uprobes: a running process recorded without ptrace
 * and without a byte written into it: probes on its executable and the
 * libraries it has mapped, until it ends, the duration passes or a signal
 * asks.  What it allocated before is not known.
 */
struct attach_wait {
	int pidfd;
	pid_t pid;
	uint64_t t0, duration;
	int *done;
};

static int
attached_runs(struct urec *u, void *arg)
{
	const struct attach_wait *w = arg;

	if ((*w->done = ended(w->pidfd, w->pid)))
		return 0;
	return !w->duration || recorder_now(u->rc) - w->t0 < w->duration;
}

int
attach_uprobes(struct recorder *rc, pid_t pid, const struct args *a)
{
	struct urec u = { .rc = rc, .free_stacks = a->opts.free_stacks, .unwind = a->uunwind,
	    .copy_size = a->copy_size };
	char exe[64], real[PATH_MAX], comm[64], *defname = NULL;
	int fd = -1, created = 0, done = 0, n, refused = 0, dynamic, status = 0, dummy = 0;
	struct attach_wait aw = { .pid = pid, .duration = a->duration, .done = &done };
	const char *name, *base;
	struct uproc *p;
	size_t i;

	if (can_probe() < 0)
		return 2;
	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pid);
	if (!proc_exe_name(pid, 1, real, sizeof(real))) {
		mt_warnx("pid %d: %s", (int)pid, errno == ENOENT ? "no such process" : strerror(errno));
		return 2;
	}
	base = strrchr(real, '/') ? strrchr(real, '/') + 1 : real;
	snprintf(comm, sizeof(comm), "%s", base);
	u.start = recorder_begin(rc);
	collector_setup();
	p = uproc_add(&u, pid);
	aw.pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	libbpf_set_print(quiet_libbpf);
	u.w = wants(a, &u.nw);
	/* Every probe in before any fires (it is not traced yet), and the output made last. */
	if (!(u.skel = open_skel(a)) ||
	    (n = attach_file(&u, p, exe, u.w, u.nw, &refused, &dynamic)) < 0 ||
	    (trace_calls(&u, a->flags[1] != 'n') < 0 && (refused = errno)) ||
	    !(u.rb = ring_buffer__new(bpf_map__fd(u.skel->maps.ring), on_event, &u, NULL)) ||
	    (fd = open_output(rc, a->output, comm, pid, &defname, &created)) < 0) {
		if (!u.rb)
			mt_warnx("pid %d: its probes were refused: %s", (int)pid,
			    strerror(refused ? refused : errno));
		release(&u, -1, NULL, 0);
		free(defname);
		if (aw.pidfd >= 0)
			close(aw.pidfd);
		return 2;
	}
	name = defname ? defname : a->output && strcmp(a->output, "-") ? a->output : "<stdout>";
	for (i = nprobe_fns; i < u.nw; i++)
		if (!u.w[i].found)
			mt_warnx("--alloc-fn: %s: no such function in %s: not recorded", u.w[i].name,
			    real);
	/* Its mappings as we attach: a later munmap of one has its size. */
	recorder_read_befores(rc, pid);
	recorder_open(rc, fd);
	snprintf(u.how, sizeof(u.how), "# mt-record: attached through uprobes to pid %d, %d "
	    "functions probed in %s; what it allocated before is "
	    "not known", (int)pid, n, real);
	recorder_comment(rc, "%s", u.how);
	probe_mapped(&u, p, "when attached");
	put_proc_read(&u, p, proc_ppid(pid));
	stacks_way(&u, p, exe);
	/* The duration from when the probes are in. */
	aw.t0 = recorder_now(rc);
	read_maps(&u, p, aw.t0);
	recorder_put_befores(rc, pid, aw.t0);
	/* Recorded from now: its maps known, every probe in. */
	p->ready = 1;
	set_traced(&u, p);
	collect(&u, 0, &status, &dummy, attached_runs, &aw);
	leave_running(&u, 0, &status, &dummy);
	n = finish(&u, fd, name, done ? -1 : -2);
	free(u.link_fds);
	free(defname);
	if (aw.pidfd >= 0)
		close(aw.pidfd);
	if (!done)
		mt_note("pid %d runs on, untraced: its probes are gone", (int)pid);
	return n;
}
