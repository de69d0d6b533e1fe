/*
 * uprobes: mt-record --uprobes, a command recorded without LD_PRELOAD:
 * BPF uprobes on the allocation functions of its executable and its C
 * library, for its process only (the kernel filters by the process's
 * memory), their events read from a ring buffer into the same trace.
 * It reaches what the preload library cannot: a static program, a
 * set-user-ID one, an allocator linked into the executable.
 */

#include <dlfcn.h>
#include <gnu/libc-version.h>
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
/* bpftool's skeleton casts away a const. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wcast-qual"
#include "ualloc.skel.h"
#pragma GCC diagnostic pop

static struct bpf_program *
prog(struct ualloc *s, int i)
{
	struct bpf_program *p[] = { s->progs.malloc_in, s->progs.calloc_in, s->progs.realloc_in,
		s->progs.memalign_in, s->progs.posix_memalign_in, s->progs.free_in,
		s->progs.pool_in, s->progs.pool_free_in, s->progs.alloc_out,
		s->progs.posix_memalign_out };

	return p[i];
}

/* The C library mt-record runs with: the one a dynamic program loads. */
static const char *
libc_path(void)
{
	Dl_info info;

	/* Not free's, which a sanitizer's library may define in front of it. */
	if (dladdr((void *)gnu_get_libc_version, &info) && info.dli_fname &&
	    info.dli_fname[0] == '/')
		return info.dli_fname;
	return NULL;
}

static int
quiet_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
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

/* A site for the probe about to be attached at off in path: its cookie. */
static uint64_t
add_site(struct urec *u, const char *path, uint64_t off, uint64_t segs[][2], size_t nsegs)
{
	struct site *t;
	size_t i;

	u->sites = egrow(u->sites, u->nsites, &u->sitecap, sizeof(*u->sites));
	t = &u->sites[u->nsites];
	memset(t, 0, sizeof(*t));
	t->path = estrdup(path);
	t->off = off;
	for (i = 0; i < nsegs; i++)
		if (off >= segs[i][0] && off < segs[i][0] + segs[i][1]) {
			t->seg_off = segs[i][0];
			t->seg_size = segs[i][1];
		}
	return u->nsites++;
}

static void
keep_link(struct urec *u, struct bpf_link *l)
{
	u->links = egrow(u->links, u->nlinks, &u->linkcap, sizeof(*u->links));
	u->links[u->nlinks++] = l;
}

/*
 * The probes on the functions path defines of those wanted, for the
 * process: how many were attached; -1 (errno in refused) when the kernel
 * refused one.  Two names at one address (glibc's memalign and
 * aligned_alloc, mimalloc's malloc and mi_malloc) get one probe.
 */
static int
attach_file(struct urec *u, const char *path, struct want *w, size_t nw, int *refused,
    int *dynamic)
{
	LIBBPF_OPTS(bpf_uprobe_opts, o);
	const char **names = emalloc(nw * sizeof(*names));
	uint64_t *offs = emalloc(nw * sizeof(*offs)), segs[8][2], site;
	struct bpf_link *l;
	size_t i, j, nsegs;
	struct stat st;
	int n = 0;

	for (i = 0; i < nw; i++)
		names[i] = w[i].name;
	if (stat(path, &st) == 0) {
		u->probed = egrow(u->probed, u->nprobed, &u->probedcap, sizeof(*u->probed));
		u->probed[u->nprobed].dev = st.st_dev;
		u->probed[u->nprobed++].ino = st.st_ino;
	}
	if (elf_functions(path, names, nw, offs, dynamic, 0) <= 0)
		goto out;
	nsegs = exec_segments(path, segs, 8);
	for (i = 0; i < nw; i++) {
		if (!offs[i])
			continue;
		w[i].found = 1;
		for (j = 0; j < i && offs[j] != offs[i]; j++)
			;
		if (j < i)
			continue;
		site = add_site(u, path, offs[i], segs, nsegs);
		u->sites[site].heap = w[i].heap_name;
		o.bpf_cookie = UA_COOKIE(site, (uint64_t)w[i].arg, (uint64_t)w[i].heap);
		o.retprobe = false;
		if (!(l = bpf_program__attach_uprobe_opts(prog(u->skel, w[i].in), u->pid, path,
		    offs[i], &o)))
			goto refused;
		keep_link(u, l);
		n++;
		if (w[i].out == P_NONE)
			continue;
		o.retprobe = true;
		if (!(l = bpf_program__attach_uprobe_opts(prog(u->skel, w[i].out), u->pid, path,
		    offs[i], &o)))
			goto refused;
		keep_link(u, l);
	}
out:
	free(names);
	free(offs);
	return n;
refused:
	*refused = errno;
	n = -1;
	goto out;
}

static void
free_sites(struct urec *u)
{
	size_t i;

	for (i = 0; i < u->nsites; i++)
		free(u->sites[i].path);
	free(u->sites);
}

/*
 * The mmap family's tracepoints, for the process: its commits and
 * decommits, as the preload library records them (and brk's too, and
 * the C library's own mappings, which that does not see).  0, or -1
 * with errno.
 */
static int
trace_map_calls(struct urec *u)
{
	static const struct { const char *name; int kind; } calls[] = {
		{ "mmap", UA_MMAP }, { "munmap", UA_MUNMAP }, { "mremap", UA_MREMAP },
		{ "mprotect", UA_MPROTECT }, { "brk", UA_BRK },
	};
	LIBBPF_OPTS(bpf_tracepoint_opts, o);
	char tp[64];
	struct bpf_link *l;
	uint32_t pid = (uint32_t)u->pid;
	uint8_t one = 1;
	size_t i;

	if (bpf_map__update_elem(u->skel->maps.traced, &pid, sizeof(pid), &one, sizeof(one),
	    BPF_ANY) < 0)
		return -1;
	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		o.bpf_cookie = (uint64_t)calls[i].kind;
		snprintf(tp, sizeof(tp), "sys_enter_%s", calls[i].name);
		if (!(l = bpf_program__attach_tracepoint_opts(u->skel->progs.sys_in, "syscalls", tp,
		    &o)))
			return -1;
		keep_link(u, l);
		snprintf(tp, sizeof(tp), "sys_exit_%s", calls[i].name);
		if (!(l = bpf_program__attach_tracepoint_opts(u->skel->progs.sys_out, "syscalls", tp,
		    &o)))
			return -1;
		keep_link(u, l);
	}
	return 0;
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

static uint64_t
lost_events(struct ualloc *s)
{
	int ncpu = libbpf_num_possible_cpus(), i;
	uint64_t *v, sum = 0;
	uint32_t z = 0;

	if (ncpu <= 0)
		return 0;
	v = ecalloc((size_t)ncpu, sizeof(*v));
	if (bpf_map__lookup_elem(s->maps.lost, &z, sizeof(z), v, (size_t)ncpu * sizeof(*v), 0) == 0)
		for (i = 0; i < ncpu; i++)
			sum += v[i];
	free(v);
	return sum;
}


/*
 * The libraries the process has mapped, probed where they define a known
 * function (libjemalloc, libmimalloc...) and not probed yet; the trace
 * says which, and when.
 */
static void
probe_mapped(struct urec *u, const char *when)
{
	char path[64], line[4096], perms[8], file[4096];
	struct stat st;
	int refused, dynamic, n;
	size_t i;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)u->pid);
	if (!(fp = fopen(path, "re")))
		return;
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%*x-%*x %7s %*x %*s %*s %4095[^\n]", perms, file) != 2 ||
		    perms[2] != 'x' || file[0] != '/' || stat(file, &st) < 0)
			continue;
		for (i = 0; i < u->nprobed && !(u->probed[i].dev == st.st_dev &&
		    u->probed[i].ino == st.st_ino); i++)
			;
		if (i < u->nprobed)
			continue;
		if ((n = attach_file(u, file, u->w, nprobe_fns, &refused, &dynamic)) < 0)
			mt_warnx("--uprobes: %s: a probe was refused: %s", file, strerror(refused));
		else if (n > 0)
			recorder_comment(u->rc, "# mt-record: %s, %d functions probed in %s", when,
			    n, file);
	}
	fclose(fp);
}

/* The program stopped at its entry, its libraries loaded: probed, and on it goes. */
static void
at_entry(struct urec *u)
{
	bpf_link__destroy(u->stop);
	u->stop = NULL;
	read_maps(u, recorder_now(u->rc));
	probe_mapped(u, "at the program's entry");
	kill(u->pid, SIGCONT);
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

/* The probes loaded and attached for pid: 0, or said. */
static int
load_probes(struct urec *u, const char *exe, const struct args *a)
{
	const char *libc = libc_path(), *one = NULL;
	int refused = 0, n, m = 0, dynamic = 0, dummy, r = -1;
	char interp[PATH_MAX];
	struct want *w;
	uint64_t entry;
	size_t nw, i;

	/* A script: its interpreter is the program that runs. */
	if (elf_functions(exe, &one, 0, NULL, &dummy, 0) < 0 &&
	    script_interp(exe, interp, sizeof(interp)))
		exe = interp;
	w = wants(a, &nw);
	libbpf_set_print(quiet_libbpf);
	if (!(u->skel = open_skel(a))) {
		mt_warnx("--uprobes: the BPF program was refused: %s%s", strerror(errno),
		    errno == EPERM ? " (root, or CAP_BPF and CAP_PERFMON, is needed)" : "");
		goto out;
	}
	/* The pools are the program's own: looked for in it alone. */
	if ((n = attach_file(u, exe, w, nw, &refused, &dynamic)) < 0 ||
	    (libc && dynamic && (m = attach_file(u, libc, w, nprobe_fns, &refused, &dummy)) < 0)) {
		mt_warnx("--uprobes: a probe was refused: %s", strerror(refused));
		goto out;
	}
	for (i = nprobe_fns; i < nw; i++)
		if (!w[i].found) {
			mt_warnx("--alloc-fn: %s: no such function in %s%s", w[i].name, exe,
			    elf_functions(exe, &one, 0, NULL, &dummy, 0) < 0 ? "" :
			    " (not built with its symbols, or inlined?)");
			goto out;
		}
	if (n + m == 0 && elf_is_go(exe)) {
		mt_warnx("--uprobes: %s: a Go program: its runtime allocates, not malloc, and "
		    "mt-record does not record it", exe);
		goto out;
	}
	if (n + m == 0) {
		mt_warnx("--uprobes: %s: no allocation function to probe: a static program "
		    "without its symbols (stripped)? Record a build with them", exe);
		goto out;
	}
	if (trace_map_calls(u) < 0) {
		mt_warnx("--uprobes: the mmap family's tracepoints were refused: %s",
		    strerror(errno));
		goto out;
	}
	/* Its other libraries (libjemalloc...) are known once the dynamic linker
	   has loaded them: at the program's entry point. */
	if (dynamic && (entry = entry_offset(exe))) {
		LIBBPF_OPTS(bpf_uprobe_opts, o);
		if (!(u->stop = bpf_program__attach_uprobe_opts(u->skel->progs.entry_stop, u->pid,
		    exe, entry, &o))) {
			mt_warnx("--uprobes: a probe was refused: %s", strerror(errno));
			goto out;
		}
	}
	snprintf(u->how, sizeof(u->how), "# mt-record: recorded through uprobes, "
	    "%d functions probed in %s%s%s; stacks by frame pointers%s%s%s%s", n + m, exe,
	    libc && m ? " and " : "", libc && m ? libc : "",
	    a->blind ? "; LD_PRELOAD is blind to " : "", a->blind ? exe : "",
	    a->blind ? ": " : "", a->blind ? a->blind : "");
	r = 0;
out:
	u->w = w;
	u->nw = nw;
	return r;
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
	bpf_link__destroy(u->stop);
	for (i = 0; i < u->nlinks; i++) {
		/* Their fds open for the child that lets go of them. */
		if (u->keep_links)
			bpf_link__disconnect(u->links[i]);
		bpf_link__destroy(u->links[i]);
	}
	free(u->links);
	ualloc__destroy(u->skel);
	u64map_free(&u->stacks, NULL);
	free(u->maps);
	free_sites(u);
	free(u->w);
	free(u->probed);
}

/*
 * The ring read to its end, the exit said (a wait status; -1, ended with
 * the status not known; -2, running on), the trace closed: 0, or 1 when
 * writing it failed.
 */
static int
finish(struct urec *u, struct ring_buffer *rb, int fd, const char *name, int status)
{
	uint64_t lost, written;

	/* What the ring still holds came before the exit. */
	ring_buffer__consume(rb);
	if (status != -2)
		put_exit(u, status);
	if ((lost = lost_events(u->skel)))
		recorder_comment(u->rc, "# mt-record: %llu events lost: the BPF ring buffer was full",
		    (unsigned long long)lost);
	written = recorder_close(u->rc, fd);
	mt_note("%llu events, 1 process, %llu bytes written to %s%s",
	    (unsigned long long)recorder_events(u->rc), (unsigned long long)written, name,
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
	struct urec u = { .rc = rc, .free_stacks = a->opts.free_stacks };
	struct ring_buffer *rb = NULL;
	char *exe, *defname, *base;
	int fd, created, go = -1, status = 0, done = 0;
	uint64_t last_flush = 0;
	const char *name;
	pid_t w;

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
	if ((u.pid = fork_held(argv, &go)) < 0) {
		mt_warn("fork");
		free(exe);
		return 2;
	}
	base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	fd = open_output(rc, a, base, u.pid, &defname, &created);
	name = defname ? defname : a->output && strcmp(a->output, "-") ? a->output : "<stdout>";
	if (fd < 0 || load_probes(&u, exe, a) < 0 ||
	    !(rb = ring_buffer__new(bpf_map__fd(u.skel->maps.ring), on_event, &u, NULL))) {
		/* The command is not run untraced. */
		close(go);
		while (waitpid(u.pid, &status, 0) < 0 && errno == EINTR)
			;
		release(&u, rb, fd, name, created);
		free(defname);
		free(exe);
		return 2;
	}
	recorder_open(rc, fd);
	recorder_comment(rc, "%s", u.how);
	put_proc(&u, argv, exe, getpid());
	free(exe);
	if (write(go, "g", 1) != 1)
		mt_warn("the command");
	close(go);
	while (!done && !stop_signal) {
		if (ring_buffer__poll(rb, 50) < 0 && errno != EINTR)
			break;
		while ((w = waitpid(u.pid, &status, WNOHANG | (u.stop ? WUNTRACED : 0))) < 0 &&
		    errno == EINTR)
			;
		if (w == u.pid && WIFSTOPPED(status))
			at_entry(&u);
		else if (w == u.pid)
			done = 1;
		flush_now(&u, &last_flush);
	}
	u.keep_links = done;
	finish(&u, rb, fd, name, done ? status : -2);
	free(defname);
	if (done)
		let_go_later();
	if (!done) {
		mt_note("stopped by %s: the command runs on, untraced", strsignal(stop_signal));
		die_of(stop_signal);
	}
	if (WIFSIGNALED(status))
		die_of(WTERMSIG(status));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 0;
}

/* A file of /proc, whole (64 KiB at most), NUL-terminated; NULL if unread. */
static char *
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

/* The parent of pid, from /proc/PID/stat ("pid (comm) state ppid ..."); 0 if unknown. */
static pid_t
parent_of(pid_t pid)
{
	char path[64], *s, *p;
	size_t len;
	int ppid = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((s = read_small_file(path, &len)) && (p = strrchr(s, ')')))
		sscanf(p + 1, " %*c %d", &ppid);
	free(s);
	return ppid;
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
	struct urec u = { .rc = rc, .free_stacks = a->opts.free_stacks, .pid = pid };
	char exe[64], real[PATH_MAX], comm[64], *defname, **argv, *cmdline;
	int fd, created, pidfd, done = 0, n, refused = 0, dynamic;
	struct ring_buffer *rb = NULL;
	uint64_t last_flush = 0, t0;
	const char *name, *base;
	struct want *w;
	size_t nw, i, len;
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
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	fd = open_output(rc, a, comm, pid, &defname, &created);
	name = defname ? defname : a->output && strcmp(a->output, "-") ? a->output : "<stdout>";
	libbpf_set_print(quiet_libbpf);
	u.w = w = wants(a, &nw);
	u.nw = nw;
	if (fd < 0 || !(u.skel = open_skel(a)) ||
	    (n = attach_file(&u, exe, w, nw, &refused, &dynamic)) < 0 ||
	    (trace_map_calls(&u) < 0 && (refused = errno)) ||
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
	for (i = nprobe_fns; i < nw; i++)
		if (!w[i].found)
			mt_warnx("--alloc-fn: %s: no such function in %s: not recorded", w[i].name, real);
	/* Its mappings as we attach: a later munmap of one has its size. */
	recorder_read_befores(rc, pid);
	recorder_open(rc, fd);
	snprintf(u.how, sizeof(u.how), "# mt-record: attached through uprobes to pid %d, %d "
	    "functions probed in %s; stacks by frame pointers; what it allocated before is "
	    "not known", (int)pid, n, real);
	recorder_comment(rc, "%s", u.how);
	probe_mapped(&u, "when attached");
	/* Its command line, NUL-separated in /proc, as argv. */
	snprintf(exe, sizeof(exe), "/proc/%d/cmdline", (int)pid);
	cmdline = read_small_file(exe, &len);
	argv = ecalloc(len + 2, sizeof(*argv));
	for (i = 0, n = 0; cmdline && i < len; i += strlen(cmdline + i) + 1)
		argv[n++] = cmdline + i;
	if (!n)
		argv[n++] = real;
	put_proc(&u, argv, real, parent_of(pid));
	free(argv);
	free(cmdline);
	/* The duration from when the probes are in. */
	t0 = recorder_now(rc);
	read_maps(&u, t0);
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
