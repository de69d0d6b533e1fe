/*
 * uattach: the probes of each process mt-record --uprobes records (the
 * kernel's uprobes are per process), and what becomes of a process: its
 * fork, its exec, its entry point, its end.  Each stops the process
 * (our BPF program sends it SIGSTOP) until its probes are in.
 */

#include <dlfcn.h>
#include <errno.h>
#include <gnu/libc-version.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mt.h"
#include "command.h"
#include "uprobes.h"
#include "bpf/ualloc.h"

/* The C library mt-record runs with: the one a dynamic program loads. */
const char *
libc_path(void)
{
	Dl_info info;

	/* Not free's, which a sanitizer's library may define in front of it. */
	if (dladdr((void *)gnu_get_libc_version, &info) && info.dli_fname &&
	    info.dli_fname[0] == '/')
		return info.dli_fname;
	return NULL;
}

/* Whether path is a shared C library, whose direct calls of free are its own. */
static int
shared_libc(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	return strncmp(base, "libc.so", 7) == 0;
}

/*
 * The site of a probe at off in path, of heap: its cookie.  A site
 * serves every process probed there (the cookie has 16 bits).
 */
static uint64_t
site_of(struct usource *u, const char *path, uint64_t off, const char *heap, uint64_t segs[][2],
    size_t nsegs)
{
	struct site *t;
	size_t i;

	for (i = 0; i < u->nsites; i++)
		if (u->sites[i].off == off && u->sites[i].heap == heap &&
		    strcmp(u->sites[i].path, path) == 0)
			return i;
	u->sites = egrow(u->sites, u->nsites, &u->sitecap, sizeof(*u->sites));
	t = &u->sites[u->nsites];
	memset(t, 0, sizeof(*t));
	t->path = estrdup(path);
	t->off = off;
	t->heap = heap;
	for (i = 0; i < nsegs; i++)
		if (off >= segs[i][0] && off < segs[i][0] + segs[i][1]) {
			t->seg_off = segs[i][0];
			t->seg_size = segs[i][1];
		}
	return u->nsites++;
}

/* Whether path is probed for p already; else it is said to be. */
static int
probed_already(struct uproc *p, const char *path)
{
	struct stat st;
	size_t i;

	if (stat(path, &st) < 0)
		return 0;
	for (i = 0; i < p->nprobed; i++)
		if (p->probed[i].dev == st.st_dev && p->probed[i].ino == st.st_ino)
			return 1;
	p->probed = egrow(p->probed, p->nprobed, &p->probedcap, sizeof(*p->probed));
	p->probed[p->nprobed++] = (struct probed){ st.st_dev, st.st_ino, estrdup(path) };
	return 0;
}

/*
 * The probes on the functions path defines of those wanted, for the
 * process: how many were attached; -1 (errno in refused) when the kernel
 * refused one.  Two names at one address (glibc's memalign and
 * aligned_alloc, mimalloc's malloc and mi_malloc) get one probe.  A file
 * probed for the process already gets none: 0.
 */
int
attach_file(struct usource *u, struct uproc *p, const char *path, struct want *w, size_t nw,
    int *refused, int *dynamic)
{
	const char **names;
	uint64_t *offs, *cookie, *po, *pc, segs[8][2], site;
	size_t i, j, k, nsegs;
	int n = 0, which, ret;

	*dynamic = 0;
	if (probed_already(p, path))
		return 0;
	names = emalloc(nw * sizeof(*names));
	offs = emalloc(nw * sizeof(*offs));
	cookie = emalloc(nw * sizeof(*cookie));
	po = emalloc(nw * sizeof(*po));
	pc = emalloc(nw * sizeof(*pc));
	for (i = 0; i < nw; i++)
		names[i] = w[i].name;
	if (elf_functions(path, names, nw, offs, dynamic, 0) <= 0)
		goto out;
	nsegs = exec_segments(path, segs, 8);
	for (i = 0; i < nw; i++) {
		if (!offs[i])
			continue;
		w[i].found = 1;
		for (j = 0; j < i && offs[j] != offs[i]; j++)
			;
		if (j < i) {
			offs[i] = 0;
			continue;
		}
		site = site_of(u, path, offs[i], w[i].heap_name, segs, nsegs);
		cookie[i] = UA_COOKIE(site, (uint64_t)w[i].arg, (uint64_t)w[i].heap, p->pid) |
		    (w[i].in == P_FREE && shared_libc(path) ? UA_OWN : 0);
		n++;
	}
	/* Each program's probes together, entries then returns: a link each. */
	for (ret = 0; ret < 2; ret++)
		for (which = 0; which < P_NONE; which++) {
			for (i = k = 0; i < nw; i++) {
				if (!offs[i] || (ret ? w[i].out : w[i].in) != which)
					continue;
				po[k] = offs[i];
				pc[k++] = cookie[i];
			}
			if (k && ubpf_probe(u, which, p->pid, path, po, pc, k, ret) < 0) {
				*refused = errno;
				n = -1;
				goto out;
			}
		}
out:
	free(names);
	free(offs);
	free(cookie);
	free(po);
	free(pc);
	return n;
}

/*
 * The libraries the process has mapped, probed where they define a known
 * function (libjemalloc, libmimalloc...) and not probed yet; the trace
 * says which, and when.
 */
void
probe_mapped(struct usource *u, struct uproc *p, const char *when)
{
	char path[64], line[4096];
	int refused, dynamic, n;
	struct procmap m;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)p->pid);
	if (!(fp = fopen(path, "re")))
		return;
	while (fgets(line, sizeof(line), fp)) {
		if (procmap_parse(line, &m) < 0 || m.perms[2] != 'x' || m.path[0] != '/')
			continue;
		if ((n = attach_file(u, p, m.path, u->w, nprobe_fns, &refused, &dynamic)) < 0)
			mt_warnx("--uprobes: %s: a probe was refused: %s", m.path, strerror(refused));
		else if (n > 0)
			recorder_comment(u->rc, "# mt-record: %s, %d functions probed in %s of pid %d",
			    when, n, m.path, (int)p->pid);
	}
	fclose(fp);
}

/*
 * A program's probes for the process about to run it: its own functions
 * (the pools' too), the C library's when it is dynamic (into *m), and a
 * stop at its entry point, where the libraries it loads are known.
 * 0, or -1 with the errno of a refusal in *refused.
 */
int
probe_image(struct usource *u, struct uproc *p, const char *exe, int *n, int *m, int *refused)
{
	const char *libc = libc_path();
	int dynamic = 0, dummy;
	uint64_t entry;

	*m = 0;
	if ((*n = attach_file(u, p, exe, u->w, u->nw, refused, &dynamic)) < 0 ||
	    (libc && dynamic && (*m = attach_file(u, p, libc, u->w, nprobe_fns, refused,
	    &dummy)) < 0))
		return -1;
	if (dynamic && !p->stop && (entry = entry_offset(exe))) {
		if (!(p->stop = ubpf_probe_one(u, P_ENTRY_STOP, p->pid, exe, entry))) {
			*refused = errno;
			return -1;
		}
	}
	return 0;
}

/*
 * A process stopped by our program goes on: a held one once its stop is
 * seen (uhold.c), another now.
 */
static void
let_go(struct usource *u, struct uproc *p)
{
	if (!u->hold && stop_sent(u, p->pid))
		kill(p->pid, SIGCONT);
	p->stopped = 0;
}

/* A new process: forked by one recorded, probed as its parent was. */
static void
at_fork(struct usource *u, struct uproc *parent, pid_t pid, uint64_t ts, uint64_t forked_at)
{
	struct uproc *p = uproc_of(u, pid) ? u->last : uproc_add(u, pid);
	int refused, dynamic;
	size_t i;

	p->stopped = 1;
	put_proc_read(u, p, parent->pid);
	/* The same program: its stacks taken the same way. */
	p->copies = parent->copies;
	p->ready = 1;
	if (set_traced(u, p) < 0)
		p->copies = 0;
	say_stacks_way(u, p);
	recorder_fork_outside(u->rc, pid, parent->pid, forked_at);
	for (i = 0; i < parent->nprobed; i++)
		if (attach_file(u, p, parent->probed[i].path, u->w, u->nw, &refused, &dynamic) < 0)
			mt_warnx("--uprobes: pid %d: %s: a probe was refused: %s", (int)pid,
			    parent->probed[i].path, strerror(refused));
	read_maps(u, p, ts);
	let_go(u, p);
}

/* A process recorded runs a new program: its probes, before it starts. */
static void
at_exec(struct usource *u, struct uproc *p, uint64_t ts)
{
	char path[64], exe[PATH_MAX];
	int n, m, refused = 0;
	ssize_t k;

	p->stopped = 1;
	free(p->maps);
	p->maps = NULL;
	p->nmaps = p->mapcap = 0;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)p->pid);
	if ((k = readlink(path, exe, sizeof(exe) - 1)) > 0) {
		exe[k] = '\0';
		if (!p->first_exec) {
			recorder_exec_outside(u->rc, p->pid);
			put_proc_read(u, p, proc_ppid(p->pid));
		}
		p->first_exec = 0;
		stacks_way(u, p, exe);
		if (probe_image(u, p, exe, &n, &m, &refused) < 0)
			mt_warnx("--uprobes: pid %d: %s: a probe was refused: %s", (int)p->pid, exe,
			    strerror(refused));
		else if (n + m)
			recorder_comment(u->rc, "# mt-record: pid %d runs %s: %d functions probed",
			    (int)p->pid, exe, n + m);
	}
	read_maps(u, p, ts);
	let_go(u, p);
}

/*
 * A process's fork, exec, entry point or end, from the ring: pid's (a
 * fork's child), p the process recorded it is of (a fork's parent), NULL
 * when none is; arg, an end's wait status, or a fork's time as it was
 * (ts is made no earlier than the events before).  Stopped by our
 * program, the process goes on whatever becomes of the event.
 */
void
on_proc_event(struct usource *u, struct uproc *p, int kind, uint64_t ts, pid_t pid, uint64_t arg)
{
	if (!p) {
		if (kind != UA_EXIT && !u->hold && stop_sent(u, pid))
			kill(pid, SIGCONT);
		return;
	}
	switch (kind) {
	case UA_FORK:
		at_fork(u, p, pid, ts, arg);
		break;
	case UA_EXEC:
		at_exec(u, p, ts);
		break;
	case UA_ENTRY:
		/* Its libraries loaded: probed, and on it goes. */
		p->stopped = 1;
		ubpf_unprobe(p->stop);
		p->stop = NULL;
		read_maps(u, p, ts);
		probe_mapped(u, p, "at the program's entry");
		let_go(u, p);
		break;
	case UA_EXIT:
		/* The command's own end is mt-record's to wait for. */
		if (p != u->cmd)
			put_exit(u, p, ts, (int)arg);
		p->ended = 1;
		ubpf_unprobe(p->stop);
		p->stop = NULL;
		break;
	}
}

/* Processes stopped by our program and not let go of yet, let go (we are ending). */
void
let_go_all(struct usource *u)
{
	struct uproc *p;
	size_t i;

	for (i = 0; i < recorder_nprocs(u->rc); i++)
		if ((p = uproc_at(u, i)) && p->stopped && !p->ended)
			let_go(u, p);
}

/* The command's descendants recorded that have not ended. */
int
descendants_left(struct usource *u)
{
	struct uproc *p;
	size_t i;
	int n = 0;

	for (i = 0; i < recorder_nprocs(u->rc); i++) {
		if (!(p = uproc_at(u, i)) || p == u->cmd || p->ended || p->gone)
			continue;
		/* Gone, its end's event not read yet (or lost): what the ring
		   holds of it is still its own. */
		if (kill(p->pid, 0) < 0 && errno == ESRCH)
			p->gone = 1;
		else
			n++;
	}
	return n;
}

/*
 * How the stacks of p, which now runs exe, are taken: copies where
 * --unwind dwarf says, or (by default) where exe keeps no frame pointers;
 * the BPF program told, and the trace.
 */
void
stacks_way(struct usource *u, struct uproc *p, const char *exe)
{
	p->copies = u->unwind == 'd' || (u->unwind == 'a' && !keeps_frame_pointers(exe));
	if (set_traced(u, p) < 0)
		p->copies = 0;
	say_stacks_way(u, p);
}

/* What took p's stacks, in the trace; counted for its end. */
void
say_stacks_way(struct usource *u, struct uproc *p)
{
	if (p->copies)
		recorder_comment(u->rc, "# mt-record: pid %d: stacks by --unwind dwarf: %u bytes "
		    "of its stack copied at each event, unwound by the call frame information",
		    (int)p->pid, u->copy_size);
	else
		recorder_comment(u->rc, "# mt-record: pid %d: stacks by --unwind fp: its frame "
		    "pointers", (int)p->pid);
	if (p->copies)
		u->by_copy++;
	else
		u->by_fp++;
}
