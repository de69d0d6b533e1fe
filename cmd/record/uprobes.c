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

/* libbpf's messages: none, but with MT_BPF_DEBUG (the verifier's log). */
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
set_traced(struct urec *u, pid_t pid, int flags)
{
	uint32_t key = (uint32_t)pid;
	uint8_t v = (uint8_t)flags;

	return bpf_map__update_elem(u->skel->maps.traced, &key, sizeof(key), &v, sizeof(v),
	    BPF_ANY);
}

/*
 * The tracepoints, for the command's process and those it makes: the
 * mmap family's calls, its commits and decommits as the preload library
 * records them (and brk's too, and the C library's own mappings, which
 * that does not see); a child's first return from fork (unless -n), an
 * exec and an end, that its probes follow.  0, or -1 with errno.
 */
static int
attach_tps(struct urec *u, pid_t pid, int follow)
{
	static const struct { const char *name; int kind; } calls[] = {
		{ "mmap", UA_MMAP }, { "munmap", UA_MUNMAP }, { "mremap", UA_MREMAP },
		{ "mprotect", UA_MPROTECT }, { "brk", UA_BRK },
	};
	static const char *const forks[] = { "fork", "vfork", "clone", "clone3" };
	struct ualloc *s = u->skel;
	char tp[64];
	size_t i;

	if (set_traced(u, pid, UA_TRACED) < 0)
		return -1;
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
trace_calls(struct urec *u, pid_t pid, int follow)
{
	char root[256];
	int mounted, r, e;

	if (tracefs_find(root, sizeof(root), &mounted) < 0)
		return -1;
	r = attach_tps(u, pid, follow);
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

/* The command forked, held on a pipe until its probes are in. */
static pid_t
fork_held(char **argv, int *go)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	if ((pid = fork()) < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		close(p[1]);
		/* Nothing read: mt-record gave up; the command is not run. */
		if (read(p[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(p[0]);
	*go = p[1];
	return pid;
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
	int refused = 0, n = 0, m = 0, dummy, go;
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
	/* A Go program's runtime takes its memory by system calls alone. */
	go = n + m == 0 && elf_is_go(exe);
	if (n + m == 0 && !go) {
		mt_warnx("--uprobes: %s: no allocation function to probe: a static program "
		    "without its symbols (stripped)? Record a build with them", exe);
		return -1;
	}
	if (trace_calls(u, p->pid, a->flags[1] != 'n') < 0) {
		mt_warnx("--uprobes: the tracepoints were refused: %s", strerror(errno));
		return -1;
	}
	if (go)
		snprintf(u->how, sizeof(u->how), "# mt-record: recorded through uprobes; %s is a Go "
		    "program: the mappings its runtime makes (the mmap family, by tracepoint), "
		    "not the objects it allocates inside them", exe);
	else
		snprintf(u->how, sizeof(u->how), "# mt-record: recorded through uprobes, "
		    "%d functions probed in %s%s%s", n + m, exe, libc && m ? " and " : "",
		    libc && m ? libc : "");
	if (a->blind)
		snprintf(u->how + strlen(u->how), sizeof(u->how) - strlen(u->how),
		    "; LD_PRELOAD is blind to %s: %s", exe, a->blind);
	return 0;
}

/* The trace's file: -o's, stdout, or mt.BASE.PID.mtr made anew; -1, said. */
static int
open_output(struct recorder *rc, const struct args *a, const char *base, pid_t pid,
    char **defname, int *created)
{
	int fd;

	*created = 0;
	*defname = NULL;
	if (a->output && strcmp(a->output, "-") == 0) {
		recorder_set_name(rc, "<stdout>");
		return STDOUT_FILENO;
	}
	if (!a->output)
		return open_default(rc, base, pid, defname, created);
	recorder_set_name(rc, a->output);
	if ((fd = open_trace(a->output, 0, created)) < 0)
		mt_warnx("%s: %s", a->output, open_error(errno));
	return fd;
}

/* What the recording holds, let go of; the trace unmade when it failed. */
static void
release(struct urec *u, struct ring_buffer *rb, int fd, const char *name, int created)
{
	size_t i;

	if (fd >= 0 && fd != STDOUT_FILENO && created) {
		close(fd);
		unlink(name);
	}
	ring_buffer__free(rb);
	for (i = 0; i < u->nprocs; i++)
		bpf_link__destroy(u->procs[i]->stop);
	for (i = 0; i < u->nlinks; i++) {
		/* Their fds open for the child that lets go of them. */
		if (u->keep_links)
			bpf_link__disconnect(u->links[i]);
		bpf_link__destroy(u->links[i]);
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
finish(struct urec *u, struct ring_buffer *rb, int fd, const char *name, int status)
{
	uint64_t lost, unseen, written;
	char msg[256];

	/* What the ring still holds came before the exit. */
	ring_buffer__consume(rb);
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
	mt_note("%llu events, %zu process%s, %llu bytes written to %s%s",
	    (unsigned long long)recorder_events(u->rc), u->nprocs, u->nprocs == 1 ? "" : "es",
	    (unsigned long long)written, name,
	    recorder_failed(u->rc) ? " (incomplete)" : "");
	if (lost)
		mt_warnx("%llu events lost: the BPF ring buffer was full", (unsigned long long)lost);
	release(u, rb, -1, name, 0);
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
 * The kernel lets go of each uprobe after a grace period, some 100 ms
 * apiece at our exit: once the recorded process has ended, a child of
 * ours holds them until we have exited and lets go then, so that our
 * caller does not wait (its output closed, it is waited for by no one).
 */
static void
let_go_later(void)
{
	int p[2], fd;
	char c;

	if (pipe(p) < 0)
		return;
	switch (fork()) {
	case -1:
		break;
	case 0:
		close(p[1]);
		if ((fd = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		setsid();
		/* Until mt-record has exited: the end of the pipe. */
		while (read(p[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	default:
		close(p[0]);
		/* Ours goes with our exit. */
		return;
	}
	close(p[0]);
	close(p[1]);
}

int
record_uprobes(struct recorder *rc, char **argv, const struct args *a)
{
	struct urec u = { .rc = rc, .free_stacks = a->opts.free_stacks, .unwind = a->uunwind,
	    .copy_size = a->copy_size };
	struct ring_buffer *rb = NULL;
	char *exe, *defname, *base;
	int fd, created, go = -1, status = 0, done = 0;
	uint64_t last_flush = 0;
	struct uproc *cmd;
	const char *name;
	pid_t pid, w;

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
	if ((pid = fork_held(argv, &go)) < 0) {
		mt_warn("fork");
		free(exe);
		return 2;
	}
	cmd = uproc_add(&u, pid);
	cmd->first_exec = 1;
	base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	fd = open_output(rc, a, base, pid, &defname, &created);
	name = defname ? defname : a->output && strcmp(a->output, "-") ? a->output : "<stdout>";
	if (fd < 0 || load_probes(&u, cmd, exe, a) < 0 ||
	    !(rb = ring_buffer__new(bpf_map__fd(u.skel->maps.ring), on_event, &u, NULL))) {
		/* The command is not run untraced. */
		close(go);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		release(&u, rb, fd, name, created);
		free(defname);
		free(exe);
		return 2;
	}
	recorder_open(rc, fd);
	recorder_comment(rc, "%s", u.how);
	put_proc(&u, cmd, argv, exe, getpid());
	free(exe);
	if (write(go, "g", 1) != 1)
		mt_warn("the command");
	close(go);
	/* Until the command has ended, and the descendants recorded too. */
	while (!stop_signal && (!done || descendants_left(&u))) {
		if (ring_buffer__poll(rb, 50) < 0 && errno != EINTR)
			break;
		while (!done && (w = waitpid(pid, &status, WNOHANG)) < 0 && errno == EINTR)
			;
		if (!done && w == pid)
			done = 1;
		flush_now(&u, &last_flush);
	}
	u.keep_links = done && !stop_signal;
	finish(&u, rb, fd, name, done ? status : -2);
	free(defname);
	if (u.keep_links)
		let_go_later();
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
int
attach_uprobes(struct recorder *rc, pid_t pid, const struct args *a)
{
	struct urec u = { .rc = rc, .free_stacks = a->opts.free_stacks, .unwind = a->uunwind,
	    .copy_size = a->copy_size };
	char exe[64], real[PATH_MAX], comm[64], *defname;
	int fd, created, pidfd, done = 0, n, refused = 0, dynamic;
	struct ring_buffer *rb = NULL;
	uint64_t last_flush = 0, t0;
	const char *name, *base;
	struct uproc *p;
	size_t i;
	ssize_t k;

	if (can_probe() < 0)
		return 2;
	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pid);
	if ((k = readlink(exe, real, sizeof(real) - 1)) < 0) {
		mt_warnx("pid %d: %s", (int)pid, errno == ENOENT ? "no such process" : strerror(errno));
		return 2;
	}
	real[k] = '\0';
	base = strrchr(real, '/') ? strrchr(real, '/') + 1 : real;
	snprintf(comm, sizeof(comm), "%s", base);
	u.start = recorder_begin(rc);
	collector_setup();
	p = uproc_add(&u, pid);
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	fd = open_output(rc, a, comm, pid, &defname, &created);
	name = defname ? defname : a->output && strcmp(a->output, "-") ? a->output : "<stdout>";
	libbpf_set_print(quiet_libbpf);
	u.w = wants(a, &u.nw);
	if (fd < 0 || !(u.skel = open_skel(a)) ||
	    (n = attach_file(&u, p, exe, u.w, u.nw, &refused, &dynamic)) < 0 ||
	    (trace_calls(&u, pid, a->flags[1] != 'n') < 0 && (refused = errno)) ||
	    !(rb = ring_buffer__new(bpf_map__fd(u.skel->maps.ring), on_event, &u, NULL))) {
		if (fd >= 0)
			mt_warnx("pid %d: its probes were refused: %s", (int)pid,
			    strerror(refused ? refused : errno));
		release(&u, rb, fd, name, created);
		free(defname);
		if (pidfd >= 0)
			close(pidfd);
		return 2;
	}
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
	put_proc_read(&u, p, parent_of(pid));
	stacks_way(&u, p, exe);
	/* The duration from when the probes are in. */
	t0 = recorder_now(rc);
	read_maps(&u, p, t0);
	recorder_put_befores(rc, pid, t0);
	while (!stop_signal && !(done = ended(pidfd, pid))) {
		if (a->duration && recorder_now(rc) - t0 >= a->duration)
			break;
		if (ring_buffer__poll(rb, 50) < 0 && errno != EINTR)
			break;
		flush_now(&u, &last_flush);
	}
	n = finish(&u, rb, fd, name, done ? -1 : -2);
	free(defname);
	if (pidfd >= 0)
		close(pidfd);
	if (!done)
		mt_note("pid %d runs on, untraced: its probes are gone", (int)pid);
	return n;
}
