/*
 * uprobes: mt-record --uprobes, a command recorded without LD_PRELOAD:
 * BPF uprobes on the allocation functions of its executable and its C
 * library, for its process only (the kernel filters by the process's
 * memory), their events read from a ring buffer into the same trace.
 * It reaches what the preload library cannot: a static program, a
 * set-user-ID one, an allocator linked into the executable.
 */

#include <dlfcn.h>
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

/* A function to probe: a known one (heap 0, malloc's) or a pool's. */
struct want {
	const char *name;
	const char *heap_name;	/* malloc, or the pool's allocation function */
	int in, out;
	int heap, arg;		/* the pool's number and argument (ualloc.h's cookie) */
	int found;
};

/* A probe attached: its file, where in it, its executable segment's, its heap. */
struct site {
	char *path;
	uint64_t off, seg_off, seg_size;
	const char *heap;
};

/* What the collector keeps while it reads. */
struct urec {
	struct site *sites;	/* by the probe's BPF cookie */
	size_t nsites, sitecap;
	struct recorder *rc;
	struct ualloc *skel;
	pid_t pid;
	uint64_t start, last_ts;
	struct u64map stacks;	/* hash of frames -> id */
	uint64_t next_stack;
	struct { uint64_t lo, hi; } *maps;	/* the executable mappings said */
	size_t nmaps, mapcap;
	uint64_t maps_read_at;
	int free_stacks;
	uint64_t events;
	struct want *w;		/* what is probed */
	size_t nw;
	struct { dev_t dev; ino_t ino; } *probed;	/* the files probed */
	size_t nprobed, probedcap;
	struct bpf_link *stop;	/* at the program's entry, until it is reached */
	char how[3 * PATH_MAX + 300];	/* the trace's comment on the way it was made */
};

/* The C library mt-record runs with: the one a dynamic program loads. */
static const char *
libc_path(void)
{
	Dl_info info;

	if (dladdr((void *)free, &info) && info.dli_fname && info.dli_fname[0] == '/')
		return info.dli_fname;
	return NULL;
}

/* Whether --uprobes can work here: root, and a kernel with uprobes. */
int
uprobes_possible(void)
{
	return geteuid() == 0 && access("/sys/bus/event_source/devices/uprobe/type", F_OK) == 0;
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
		n++;
		if (w[i].out == P_NONE)
			continue;
		o.retprobe = true;
		if (!(l = bpf_program__attach_uprobe_opts(prog(u->skel, w[i].out), u->pid, path,
		    offs[i], &o)))
			goto refused;
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

static void
put(struct urec *u, struct mt_event *ev)
{
	recorder_put(u->rc, ev);
}

/* A map line for [lo, hi) at off in file, unless a mapping said overlaps it. */
static void
say_map(struct urec *u, uint64_t ts, uint64_t lo, uint64_t hi, uint64_t off, const char *file)
{
	struct mt_event ev;
	size_t i;

	for (i = 0; i < u->nmaps; i++)
		if (lo < u->maps[i].hi && u->maps[i].lo < hi)
			return;
	u->maps = egrow(u->maps, u->nmaps, &u->mapcap, sizeof(*u->maps));
	u->maps[u->nmaps].lo = lo;
	u->maps[u->nmaps++].hi = hi;
	memset(&ev, 0, sizeof(ev));
	ev.type = MT_MAP;
	ev.ts = ts;
	ev.pid = u->pid;
	ev.addr = lo;
	ev.size = hi;
	ev.stack = off;
	ev.s1 = (struct mt_str){ "-", 1 };
	ev.s2 = (struct mt_str){ file, strlen(file) };
	put(u, &ev);
}

/* The executable mappings of the process, as map lines, when new. */
static void
read_maps(struct urec *u, uint64_t ts)
{
	char path[64], line[4096], perms[8], file[4096];
	unsigned long long lo, hi, off;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)u->pid);
	if (!(fp = fopen(path, "re")))
		return;
	while (fgets(line, sizeof(line), fp)) {
		file[0] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &lo, &hi, perms, &off,
		    file) < 4 || perms[2] != 'x')
			continue;
		/* [uprobes] (the kernel's), [vsyscall]: no code of the program's. */
		if (file[0] == '[' && strcmp(file, "[vdso]"))
			continue;
		say_map(u, ts, lo, hi, off, file[0] ? file : "[anon:exec]");
	}
	fclose(fp);
}

/*
 * The probed file's executable segment, where the probe that fired says
 * it is: known even when the process is gone before /proc was read.
 */
static void
site_map(struct urec *u, uint32_t cookie, uint64_t probe_ip, uint64_t ts)
{
	const struct site *t;
	uint64_t lo;

	if (cookie >= u->nsites || !(t = &u->sites[cookie])->seg_size ||
	    probe_ip < t->off - t->seg_off)
		return;
	lo = probe_ip - (t->off - t->seg_off);
	say_map(u, ts, lo, lo + t->seg_size, t->seg_off, t->path);
}

/* Whether an address is in a mapping said; else the maps read again (dlopen). */
static void
know_address(struct urec *u, uint64_t ip, uint64_t ts)
{
	size_t i;

	for (i = 0; i < u->nmaps; i++)
		if (ip >= u->maps[i].lo && ip < u->maps[i].hi)
			return;
	/* Read again at most every 10 ms: a bad frame is not a new module. */
	if (u->nmaps && ts < u->maps_read_at + 10000000)
		return;
	u->maps_read_at = ts;
	read_maps(u, ts);
}

/* The stack's id, its stack line written the first time. */
static uint64_t
stack_id(struct urec *u, const uint64_t *ips, size_t n, uint64_t ts)
{
	void **v = u64map_stack(&u->stacks, ips, n);
	struct mt_event ev;
	size_t i;

	if (*v)
		return (uint64_t)(uintptr_t)*v;
	for (i = 0; i < n; i++)
		know_address(u, ips[i], ts);
	*v = (void *)(uintptr_t)++u->next_stack;
	memset(&ev, 0, sizeof(ev));
	ev.type = MT_STACK;
	ev.stack = u->next_stack;
	ev.nips = n;
	ev.ips = (uint64_t *)(uintptr_t)ips;
	put(u, &ev);
	return u->next_stack;
}

/* One event from the ring: an allocation, a free, or realloc's both. */
static int
on_event(void *ctx, void *data, size_t len)
{
	struct urec *u = ctx;
	uint64_t ts, ips[UA_FRAMES];
	const char *heap;
	struct ua_event e;
	struct mt_event ev;
	size_t n, i;

	/* The ring is the kernel's, written by our program: checked all the same. */
	if (len < sizeof(e))
		return 0;
	memcpy(&e, data, sizeof(e));
	if ((pid_t)e.pid != u->pid || e.kind < UA_ALLOC || e.kind > UA_FREE)
		return 0;
	ts = e.ts > u->start ? e.ts - u->start : 0;
	if (ts < u->last_ts)
		ts = u->last_ts;
	u->last_ts = ts;
	if (!u->nmaps)
		read_maps(u, ts);
	site_map(u, UA_SITE(e.cookie), e.probe_ip, ts);
	/*
	 * Frames past the user half of the address space are a frame-pointer
	 * chain gone astray in code built without them: the stack ends there.
	 * The second frame is the first again when the caller keeps no frame
	 * pointer (the chain starts at its caller's frame, or its own).
	 */
	for (i = n = 0; i < e.nips && i < UA_FRAMES && e.ips[i] && e.ips[i] < (1ULL << 47); i++)
		if (i != 1 || e.ips[1] != e.ips[0])
			ips[n++] = e.ips[i];
	memset(&ev, 0, sizeof(ev));
	ev.ts = ts;
	ev.pid = e.pid;
	ev.tid = e.tid;
	heap = UA_SITE(e.cookie) < u->nsites ? u->sites[UA_SITE(e.cookie)].heap : "malloc";
	ev.heap = (struct mt_str){ heap, strlen(heap) };
	ev.addr = e.addr;
	if (e.kind == UA_FREE) {
		ev.type = MT_FREE;
		if (u->free_stacks && n)
			ev.stack = stack_id(u, ips, n, ts);
		else
			ev.flags |= EV_STACK_NONE;
	} else {
		ev.type = MT_ALLOC;
		ev.size = e.size;
		if (n)
			ev.stack = stack_id(u, ips, n, ts);
		else
			ev.flags |= EV_STACK_NONE;
	}
	put(u, &ev);
	u->events++;
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

static void
put_proc(struct urec *u, char **argv, const char *exe)
{
	struct mt_event ev;
	size_t len = 0, i;
	char *args;

	for (i = 0; argv[i]; i++)
		len += strlen(argv[i]) + 1;
	args = emalloc(len + 1);
	args[0] = '\0';
	for (i = 0, len = 0; argv[i]; i++)
		len += (size_t)sprintf(args + len, "%s%s", i ? " " : "", argv[i]);
	memset(&ev, 0, sizeof(ev));
	ev.type = MT_PROC;
	ev.pid = u->pid;
	ev.ppid = getpid();
	ev.s1 = (struct mt_str){ exe, strlen(exe) };
	ev.s2 = (struct mt_str){ args, len };
	put(u, &ev);
	free(args);
}

static void
put_exit(struct urec *u, int status)
{
	struct mt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = MT_EXIT;
	ev.ts = recorder_now(u->rc);
	if (ev.ts < u->last_ts)
		ev.ts = u->last_ts;
	ev.pid = u->pid;
	ev.status = WIFEXITED(status) ? WEXITSTATUS(status) :
	    WIFSIGNALED(status) ? MT_STATUS_SIG(WTERMSIG(status)) : MT_STATUS_NONE;
	put(u, &ev);
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

static int
quiet_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

/*
 * The program stopped at its entry: the libraries the dynamic linker
 * loaded probed too where they define a known function (libjemalloc,
 * libmimalloc...), the maps said while they are there, and it goes on.
 */
static void
at_entry(struct urec *u)
{
	char path[64], line[4096], perms[8], file[4096];
	struct stat st;
	int refused, dynamic, n;
	size_t i;
	FILE *fp;

	bpf_link__destroy(u->stop);
	u->stop = NULL;
	read_maps(u, recorder_now(u->rc));
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)u->pid);
	if ((fp = fopen(path, "re"))) {
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
				mt_warnx("--uprobes: %s: a probe was refused: %s", file,
				    strerror(refused));
			else if (n > 0)
				recorder_comment(u->rc, "# mt-record: at the program's entry, "
				    "%d functions probed in %s", n, file);
		}
		fclose(fp);
	}
	kill(u->pid, SIGCONT);
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
	if (!(u->skel = ualloc__open_and_load())) {
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
	if (n + m == 0) {
		mt_warnx("--uprobes: %s: no allocation function to probe: a static program "
		    "without its symbols (stripped)? Record a build with them", exe);
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

int
record_uprobes(struct recorder *rc, char **argv, const struct args *a)
{
	struct urec u = { .rc = rc, .free_stacks = a->opts.free_stacks };
	struct ring_buffer *rb = NULL;
	char *exe, *defname = NULL, *base;
	int fd, created = 0, go = -1, status = 0, done = 0, e;
	uint64_t lost, t, last_flush = 0, written;
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
	if (a->output && strcmp(a->output, "-") == 0) {
		recorder_set_name(rc, "<stdout>");
		fd = STDOUT_FILENO;
	} else if (a->output) {
		recorder_set_name(rc, a->output);
		if ((fd = open_trace(a->output, 0, &created)) < 0)
			mt_warnx("%s: %s", a->output, open_error(errno));
	} else {
		fd = open_default(rc, base, u.pid, &defname, &created);
	}
	if (fd < 0 || load_probes(&u, exe, a) < 0 ||
	    !(rb = ring_buffer__new(bpf_map__fd(u.skel->maps.ring), on_event, &u, NULL))) {
		/* The command is not run untraced. */
		close(go);
		while (waitpid(u.pid, &status, 0) < 0 && errno == EINTR)
			;
		if (fd >= 0 && fd != STDOUT_FILENO) {
			close(fd);
			if (created)
				unlink(defname ? defname : a->output);
		}
		bpf_link__destroy(u.stop);
		ualloc__destroy(u.skel);
		free_sites(&u);
		free(u.w);
		free(u.probed);
		free(defname);
		free(exe);
		return 2;
	}
	recorder_open(rc, fd);
	recorder_comment(rc, "%s", u.how);
	put_proc(&u, argv, exe);
	if (write(go, "g", 1) != 1)
		mt_warn("the command");
	close(go);
	while (!done) {
		if (ring_buffer__poll(rb, 50) < 0 && errno != EINTR)
			break;
		while ((w = waitpid(u.pid, &status, WNOHANG | (u.stop ? WUNTRACED : 0))) < 0 &&
		    errno == EINTR)
			;
		if (w == u.pid && WIFSTOPPED(status))
			at_entry(&u);
		else if (w == u.pid)
			done = 1;
		if (stop_signal)
			break;
		t = recorder_now(rc);
		if (t - last_flush > FLUSH_NS) {
			recorder_flush(rc);
			last_flush = t;
		}
	}
	/* What the ring still holds came before the exit. */
	ring_buffer__consume(rb);
	put_exit(&u, status);
	if ((lost = lost_events(u.skel)))
		recorder_comment(rc, "# mt-record: %llu events lost: the BPF ring buffer was full",
		    (unsigned long long)lost);
	ring_buffer__free(rb);
	bpf_link__destroy(u.stop);
	ualloc__destroy(u.skel);
	free(u.w);
	free(u.probed);
	written = recorder_close(rc, fd);
	mt_note("%llu events, 1 process, %llu bytes written to %s%s",
	    (unsigned long long)recorder_events(rc), (unsigned long long)written,
	    defname ? defname : strcmp(a->output, "-") ? a->output : "<stdout>",
	    recorder_failed(rc) ? " (incomplete)" : "");
	free(defname);
	if (lost)
		mt_warnx("%llu events lost: the BPF ring buffer was full", (unsigned long long)lost);
	if (stop_signal && !done) {
		mt_note("stopped by %s: the command runs on, untraced", strsignal(stop_signal));
		die_of(stop_signal);
	}
	u64map_free(&u.stacks, NULL);
	free(u.maps);
	free_sites(&u);
	free(exe);
	e = 0;
	if (WIFSIGNALED(status))
		die_of(WTERMSIG(status));
	if (WIFEXITED(status))
		e = WEXITSTATUS(status);
	return e;
}
