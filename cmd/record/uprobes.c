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
#include "bpf/ualloc.h"




static void
free_sites(struct usource *u)
{
	size_t i;

	for (i = 0; i < u->nsites; i++)
		free(u->sites[i].path);
	free(u->sites);
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
load_probes(struct usource *u, struct uproc *p, const char *exe, const struct args *a)
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
	if (ubpf_open(u, a) < 0) {
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
release(struct usource *u, int fd, const char *name, int created)
{
	struct uproc *p;
	size_t i;

	if (fd >= 0 && fd != STDOUT_FILENO && created) {
		close(fd);
		unlink(name);
	}
	ring_buffer__free(u->rb);
	u->rb = NULL;
	free(u->tracees);
	for (i = 0; i < recorder_nprocs(u->rc); i++)
		if ((p = uproc_at(u, i)))
			ubpf_unprobe(p->stop);
	/* Their fds open for the child that lets go of them, or closed now. */
	u->link_fds = erealloc(u->link_fds, (u->nlink_fds + u->nlinks + 1) * sizeof(*u->link_fds));
	for (i = 0; i < u->nlinks; i++) {
		u->link_fds[u->nlink_fds++] = bpf_link__fd(u->links[i]);
		bpf_link__disconnect(u->links[i]);
		bpf_link__destroy(u->links[i]);
	}
	keep_breakpoints(u);
	if (!u->keep_links) {
		close_links(u);
		free(u->link_fds);
		u->link_fds = NULL;
		u->nlink_fds = u->link_fdcap = 0;
	}
	free(u->links);
	ubpf_close(u);
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
finish(struct usource *u, int fd, const char *name, int status)
{
	uint64_t lost, unseen, written, nprocs = 0;
	char msg[256];
	size_t i;

	/* What the ring still holds came before the exit. */
	ring_buffer__consume(u->rb);
	let_go_all(u);
	if (status != -2)
		put_exit(u, u->cmd, recorder_now(u->rc), status);
	recorder_comment(u->rc, "# mt-record: stacks taken by --unwind fp in %llu processes, "
	    "dwarf in %llu", (unsigned long long)u->by_fp, (unsigned long long)u->by_copy);
	ubpf_counts(u, &lost, &unseen);
	if (lost)
		recorder_comment(u->rc, "# mt-record: %llu events lost: the BPF ring buffer was full",
		    (unsigned long long)lost);
	if (unseen) {
		snprintf(msg, sizeof(msg), "%llu calls' returns not seen (a longjmp out of an "
		    "allocation function, or uretprobes the kernel dropped): their blocks are not "
		    "in the trace", (unsigned long long)unseen);
		recorder_comment(u->rc, "# mt-record: %s", msg);
		mt_warnx("%s", msg);
	}
	written = recorder_close(u->rc, fd);
	for (i = 0; i < recorder_nprocs(u->rc); i++)
		nprocs += uproc_at(u, i) != NULL;
	recorder_say_written(u->rc, nprocs, written);
	if (lost)
		mt_warnx("%llu events lost: the BPF ring buffer was full", (unsigned long long)lost);
	release(u, -1, name, 0);
	return recorder_failed(u->rc) ? 1 : 0;
}

static void
flush_now(struct usource *u, uint64_t *last_flush)
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
collect(struct usource *u, pid_t cmd, int *status, int *done, int (*more)(struct usource *, void *),
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
command_runs(struct usource *u, void *arg)
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
leave_running(struct usource *u, pid_t cmd, int *status, int *done)
{
	struct pollfd pf[2] = { { .fd = ring_buffer__epoll_fd(u->rb), .events = POLLIN },
	    { .fd = hold_fd(), .events = POLLIN } };
	uint64_t until = recorder_now(u->rc) + 1000000000u;
	pid_t tid;

	untrace_all(u);
	while (stops_outstanding(u) && recorder_now(u->rc) < until) {
		ring_buffer__consume(u->rb);
		hold_reap(u, cmd, status, done);
		poll(pf, 2, 10);
	}
	ring_buffer__consume(u->rb);
	while (ubpf_take_stop(u, &tid))
		if (!u->hold)
			kill(tid, SIGCONT);
	hold_release(u, cmd, status, done);
	let_go_all(u);
}

/* The command started, held before its exec until its probes are in: its pid, or -1 said. */
static pid_t
start_command(struct usource *u, char **argv, const struct args *a, int *go)
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
	struct usource u = { .rc = rc, .free_stacks = a->opts.free_stacks, .unwind = a->uunwind,
	    .copy_size = a->copy_size, .on_proc = on_proc_event };
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
	    !(u.rb = ubpf_ring(&u, on_event)) ||
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
	ubpf_say_links(&u);
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
attached_runs(struct usource *u, void *arg)
{
	const struct attach_wait *w = arg;

	if ((*w->done = ended(w->pidfd, w->pid)))
		return 0;
	return !w->duration || recorder_now(u->rc) - w->t0 < w->duration;
}

int
attach_uprobes(struct recorder *rc, pid_t pid, const struct args *a)
{
	struct usource u = { .rc = rc, .free_stacks = a->opts.free_stacks, .unwind = a->uunwind,
	    .copy_size = a->copy_size, .on_proc = on_proc_event };
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
	u.w = wants(a, &u.nw);
	/* Every probe in before any fires (it is not traced yet), and the output made last. */
	if (ubpf_open(&u, a) < 0 ||
	    (n = attach_file(&u, p, exe, u.w, u.nw, &refused, &dynamic)) < 0 ||
	    (trace_calls(&u, a->flags[1] != 'n') < 0 && (refused = errno)) ||
	    !(u.rb = ubpf_ring(&u, on_event)) ||
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
	ubpf_say_links(&u);
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
