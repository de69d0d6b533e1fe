/* uprobes: what mt-record --uprobes's files share (uprobes.c, ucollect.c, uelf.c). */
#ifndef MT_RECORD_UPROBES_H
#define MT_RECORD_UPROBES_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ehframe.h"
#include "map.h"
#include "procfs.h"

/* The BPF programs, by the arguments of the function they are put on. */
enum { P_MALLOC, P_CALLOC, P_REALLOC, P_MEMALIGN, P_POSIX_MEMALIGN, P_FREE, P_POOL,
	P_POOL_FREE, P_OUT, P_POSIX_MEMALIGN_OUT, P_ENTRY_STOP, P_NONE };

/* A function probed: its name, its entry's and its return's programs. */
struct probe_fn {
	const char *name;
	int in, out;
};

/*
 * The allocation functions probed by name wherever a probed file defines
 * them: the C library's, and the known allocators' own entry points
 * (jemalloc's, bare or prefixed je_ or _rjem_; mimalloc's mi_;
 * tcmalloc's tc_), which a program may call with no malloc of theirs.
 */
extern const struct probe_fn probe_fns[];
extern const size_t nprobe_fns;

/*
 * The file offset of each of names that path defines as a function
 * (not an undefined import) into offs, 0 where absent; whether it has an
 * interpreter (a dynamic program) into dynamic.  Returns how many it
 * defines; -1 when path is not ELF.  With imports, those it imports
 * instead (offs[i] 1).
 */
int elf_functions(const char *path, const char *const *names, size_t n, uint64_t *offs,
    int *dynamic, int imports);
/* The executable PT_LOAD segments of path, as (file offset, size): how many. */
size_t exec_segments(const char *path, uint64_t segs[][2], size_t max);
/* The file offset of path's entry point; 0 when it has none. */
uint64_t entry_offset(const char *path);
/* Whether path is a Go program (a .go.buildinfo section). */
int elf_is_go(const char *path);
/* Whether path keeps its symbol table (not stripped). */
int elf_has_symtab(const char *path);
/* A script's interpreter ("#!/bin/sh -e": /bin/sh) into buf; NULL if not a script. */
const char *script_interp(const char *path, char *buf, size_t n);

struct ualloc;
struct bpf_link;
struct ring_buffer;
struct recorder;
struct args;

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

/* A file probed for a process. */
struct probed {
	dev_t dev;
	ino_t ino;
	char *path;
};

/* An executable mapping of a process: its file's module (-1: none). */
struct umap {
	uint64_t lo, hi, off;
	int mod;
};

/* A file some process maps code of, read when a copied stack needs it. */
#define UMOD_SEGS 16
/* The files whose breakpoints are held while their probes are let go of. */
#define KEEPERS 8
struct umod {
	char *path;
	int opened;		/* tried: 1 read, -1 not readable */
	uint8_t *base;		/* the bytes read of it: its frame information's segment */
	size_t size;
	struct eh_image im;	/* its .eh_frame_hdr; hdr NULL when none */
	struct { uint64_t off, vaddr, size; } segs[UMOD_SEGS];	/* PT_LOAD */
	size_t nsegs;
};

/* A process recorded: its probes are its own (the kernel's are per process). */
struct uproc {
	pid_t pid;
	struct umap *maps;	/* the executable mappings said */
	size_t nmaps, mapcap;
	uint64_t maps_read_at;
	int maps_whole;		/* /proc's maps were read last time, not only derived */
	uint64_t tramp_lo, tramp_hi;	/* [uprobes]: the kernel's uretprobe trampoline */
	struct probed *probed;	/* the files probed for it */
	size_t nprobed, probedcap;
	struct uattach *stop;	/* at its program's entry, until it is reached */
	int stopped;		/* by our BPF program, not yet let go of */
	int first_exec;		/* the command's exec, which mt-record made: said already */
	int copies;		/* its stacks are copies (UA_DWARF) */
	int ready;		/* its probes are in: what it does is recorded */
	int ended;		/* its end's event read */
	int gone;		/* not in /proc any more */
	char *exe;		/* its program's name, as its proc line says */
};

/* A thread held through ptrace (uhold.c). */
struct tracee {
	pid_t tid, tgid;
};

struct usource;
struct uproc;
/* The mapping of p's that holds ip (its maps read again if it is in none); NULL if none. */
typedef const struct umap *umap_lookup(struct usource *u, struct uproc *p, uint64_t ip,
    uint64_t ts);

/* What the collector keeps while it reads. */
struct usource {
	struct site *sites;	/* by the probe's BPF cookie */
	size_t nsites, sitecap;
	struct recorder *rc;
	struct ualloc *skel;
	struct uproc *cmd;	/* the command's process (the recorder's table holds them all) */
	struct uproc *last;	/* the one the last event was of */
	uint64_t start, last_ts;
	struct u64map stacks;	/* frames as probed -> the recorder's stack id */
	int free_stacks;
	uint64_t events;
	struct want *w;		/* what is probed */
	size_t nw;
	struct bpf_link **links;	/* the probes (and tracepoints) through libbpf */
	size_t nlinks, linkcap;
	int multi;		/* the probes in multi-probe links (Linux 6.6), not perf events */
	int keep_links;		/* their fds left open at the end (let_go_later) */
	int *link_fds;		/* the multi-probe links' fds; at the end, every link's */
	size_t nlink_fds, link_fdcap;
	int keepers[KEEPERS];	/* links that hold the breakpoints meanwhile (ulinks.c) */
	size_t nkeepers;
	char how[3 * PATH_MAX + 300];	/* the trace's comment on the way it was made */
	char unwind;		/* --unwind: 'p' fp, 'd' dwarf, 'a' as each program is built */
	unsigned copy_size;	/* bytes of stack an event copies (dwarf) */
	struct umod *mods;	/* the files of the copied stacks' frames */
	size_t nmods, modcap;
	struct u64map rules;	/* (module, address) -> packed rule */
	uint64_t by_fp, by_copy;	/* processes whose stacks each way took */
	struct ring_buffer *rb;
	int hold;		/* the processes are held through ptrace */
	struct tracee *tracees;	/* the threads held */
	size_t ntracees, tracecap;
	uint64_t held;		/* stops of ours ended */
	/* A process's fork, exec, entry or end (uattach.c's on_proc_event). */
	void (*on_proc)(struct usource *u, struct uproc *p, int kind, uint64_t ts, pid_t pid,
	    uint64_t arg);
};

/*
 * The files, each calling only those above it here: ELF lookups (uelf.c),
 * the BPF program (ubpf.c), the files' frame information (umods.c),
 * unwinding (uunwind.c), collection (ucollect.c), ptrace (uhold.c),
 * probes and processes (uattach.c), the probes' end (ulinks.c), the
 * recording (uprobes.c).
 */

/* ubpf.c: the BPF program loaded, its tracepoints attached (follow:
   forks too; tracefs mounted meanwhile if it is not), and its maps:
   p's `traced' value (UA_TRACED, UA_DWARF, UA_HOLD; 0 until it is ready),
   whether it sent a stop to tid (forgotten then), whether any it sent is
   not seen yet. */
struct bpf_program;
struct ring_buffer;
int uprobes_possible(void);
int can_probe(void);
int ubpf_open(struct usource *u, const struct args *a);
void ubpf_close(struct usource *u);
struct bpf_program *uprog(struct usource *u, int which);	/* P_*, or P_ENTRY_STOP */
void keep_link(struct usource *u, struct bpf_link *l);
/* A probe held alone: a libbpf link or a multi-probe link's descriptor. */
struct uattach {
	struct bpf_link *l;
	int fd;
};
int ubpf_probe(struct usource *u, int which, pid_t pid, const char *path, const uint64_t *offs,
    const uint64_t *cookies, size_t n, int ret);
struct uattach *ubpf_probe_one(struct usource *u, int which, pid_t pid, const char *path,
    uint64_t off);
void ubpf_unprobe(struct uattach *a);
int ubpf_probe_all(struct usource *u, const char *path, const uint64_t *offs, size_t n);
void ubpf_say_links(struct usource *u);
int trace_calls(struct usource *u, int follow);
struct ring_buffer *ubpf_ring(struct usource *u, int (*fn)(void *, void *, size_t));
void ubpf_read(struct usource *u);
void ubpf_counts(struct usource *u, uint64_t *lost, uint64_t *unseen);
int set_traced(struct usource *u, struct uproc *p);
void untrace_all(struct usource *u);
int stop_sent(struct usource *u, pid_t tid);
int stops_outstanding(struct usource *u);
int ubpf_take_stop(struct usource *u, pid_t *tid);

/* umods.c: the files of the copied stacks' frames, read when first needed. */
int umod_of(struct usource *u, const char *path);
struct umod *mod_image(struct usource *u, struct uproc *p, const struct umap *mp);
void umods_free(struct usource *u);
int keeps_frame_pointers(const char *path);

/* uunwind.c: a copied stack unwound by the files' call frame information. */
struct ua_regs;
struct ua_event;
size_t unwind_copy(struct usource *u, struct uproc *p, umap_lookup *lookup,
    const struct ua_event *e, const struct ua_regs *g, const uint8_t *copy, int at_return,
    uint64_t *ips, size_t max, uint64_t ts);

/* ucollect.c: the ring's events into the trace. */
struct uproc *uproc_of(struct usource *u, pid_t pid);
struct uproc *uproc_add(struct usource *u, pid_t pid);
struct uproc *uproc_at(struct usource *u, size_t i);
void uprocs_free(struct usource *u);
void read_maps(struct usource *u, struct uproc *p, uint64_t ts);
const struct umap *umap_of(struct usource *u, struct uproc *p, uint64_t ip, uint64_t ts);
int on_event(void *ctx, void *data, size_t len);
void put_proc(struct usource *u, struct uproc *p, char **argv, const char *exe, pid_t ppid);
void put_proc_read(struct usource *u, struct uproc *p, pid_t ppid);
char *read_small_file(const char *path, size_t *len);
void put_exit(struct usource *u, struct uproc *p, uint64_t ts, int status);

/* uhold.c: the processes held through ptrace. */
int hold_fd(void);
int hold_seize(struct usource *u, pid_t pid);
void hold_reap(struct usource *u, pid_t cmd, int *status, int *done);
void hold_release(struct usource *u, pid_t cmd, int *status, int *done);

/* uattach.c: the probes of each process, and its fork, exec, entry and end. */
const char *libc_path(void);
int attach_file(struct usource *u, struct uproc *p, const char *path, struct want *w, size_t nw,
    int *refused, int *dynamic);
void probe_mapped(struct usource *u, struct uproc *p, const char *when);
int probe_image(struct usource *u, struct uproc *p, const char *exe, int *n, int *m, int *refused);
void stacks_way(struct usource *u, struct uproc *p, const char *exe);
void say_stacks_way(struct usource *u, struct uproc *p);
void on_proc_event(struct usource *u, struct uproc *p, int kind, uint64_t ts, pid_t pid,
    uint64_t arg);
void let_go_all(struct usource *u);
int descendants_left(struct usource *u);

/* ulinks.c: the breakpoints of files probed in many processes held
   meanwhile (into u->keepers); probes' descriptors closed by many
   threads, the keepers last; closed by a child after our exit. */
void keep_breakpoints(struct usource *u);
void close_all(const int *fds, size_t n);
void close_links(struct usource *u);
void let_go_later(struct usource *u);

#endif
