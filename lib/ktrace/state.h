/*
 * state: what the parts of the kernel tracer share: its state, and the
 * events waiting for their stacks.
 */
#ifndef MT_KTRACE_STATE_H
#define MT_KTRACE_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "mt.h"

#define MAX_FRAMES 64

struct ksym {
	uint64_t addr;
	char *name;
	char *module;		/* "[kernel.kallsyms]" or "[name]" */
};

/* The events read raw, and where their fields are (from their format files). */
enum { K_KMALLOC, K_KFREE, K_CACHE_ALLOC, K_CACHE_FREE, K_PAGE_ALLOC, K_PAGE_FREE,
	K_PAGE_FREE_BATCHED, K_STACK, K_NEWTASK, K_RENAME, K_NFMT };
enum { F_CALL, F_PTR, F_BYTES, F_NAME, F_PFN, F_ORDER, F_SIZE, F_CALLER, F_PID, F_COMM,
	F_NEWCOMM, F_NFIELDS };

struct kfmt {
	int id;			/* -1: not known */
	int off[F_NFIELDS];	/* -1: the event has no such field */
	int size[F_NFIELDS];
};

/* An event waiting for the stack the kernel writes after it. */
struct pending {
	struct mt_event ev;
	char heap[128];
	int cpu;
	int done;
	uint64_t ips[MAX_FRAMES];
	size_t nips;
};

struct ktrace {
	char root[256];		/* the tracefs mount */
	char dir[320];		/* our instance */
	int mounted;		/* by us */
	int pipe;
	struct ktrace_opts o;
	struct ksym *syms;	/* text symbols by address */
	size_t nsyms;
	struct u64map by_name;	/* hash of name -> struct ksym * (first of that name) */
	struct u64map stacks;	/* hash of frames -> id */
	struct u64map named;	/* addresses given a sym line */
	struct u64map tasks;	/* tids given a #task line */
	struct u64map cmdlines;	/* tid + 1 -> comm, from the kernel's saved_cmdlines */
	struct u64map comms;	/* tid + 1 -> comm, from task_newtask and task_rename */
	uint64_t next_stack;
	char *buf;
	size_t len, cap;
	struct pending *q;	/* oldest first */
	size_t qhead, qlen, qcap;
	struct pending *stack_for;
	void (*emit)(struct mt_event *, void *);
	void *arg;
	uint64_t last_ts;
	uint64_t lost;
	uint64_t unresolved;	/* call sites kallsyms did not know */
	/* Binary: the per-CPU ring buffer pages, read raw. */
	int raw;
	int ncpus;
	int *cpufd;
	size_t page_size, data_off;
	struct kfmt fmt[K_NFMT];
	struct pending *got;	/* parsed this far, to be put in time order */
	size_t ngot, gotcap;
	long *last_of_cpu;	/* index in got of each CPU's last event */
};

/* kallsyms.c */
void ksym_load(struct ktrace *k, const char *path);
/* The symbol holding a return address: the call is the byte before. */
const struct ksym *ksym_at(const struct ktrace *k, uint64_t ip);
/*
 * The tracing machinery's own frames, innermost in a stack the kernel
 * records (trace_event_raw_event_kmalloc...), are not the caller's.
 */
int ksym_tracing(const struct ksym *s);
/* "func+0x10d/0x140" back to an address; 0 when unknown. */
uint64_t ksym_call_site(struct ktrace *k, const char *s, size_t n);
/* emit.c */
void kt_release(struct ktrace *k, struct pending *p);
/* Events go out in the order read, once their stack is known. */
void kt_drain_queue(struct ktrace *k, int all);
void kt_task_seen(struct ktrace *k, int tid, const char *comm, size_t len);
/* formats.c: root: where events/ is; cpus: where per_cpu/ is (the instance). */
int kt_raw_setup(struct ktrace *k, const char *root, const char *cpus);
/* ring.c: events older than watermark given out; 1 when anything was read. */
int kt_raw_read(struct ktrace *k, uint64_t watermark);

#endif
