/* ktrace: Kernel allocations through tracefs. */
#ifndef MT_KTRACE_H
#define MT_KTRACE_H

#include <stddef.h>
#include <stdint.h>
#include "event.h"

/* ktrace/: kernel allocations through tracefs (root only) */
#define KT_KMALLOC 1	/* kmalloc/kfree: heap kmalloc */
#define KT_CACHE 2	/* kmem_cache_alloc/free: heap cache:NAME */
#define KT_PAGE 4	/* mm_page_alloc/free of order >= min_order: heap page */
struct ktrace_opts {
	unsigned events;
	int min_order;
	int stacks;		/* kernel stacks (else the call site alone) */
	int buffer_kb;		/* per CPU; 0: a default */
	uint64_t start_ns;	/* CLOCK_MONOTONIC of time 0 */
};
struct ktrace;
/* NULL with err filled when tracing cannot be set up. */
struct ktrace *ktrace_open(const struct ktrace_opts *o, char *err, size_t errlen);
int ktrace_fd(const struct ktrace *k);	/* poll it for input */
/* Hands every record read so far to emit; 1 when anything was read. */
int ktrace_read(struct ktrace *k, void (*emit)(struct mt_event *, void *), void *arg);
/* Without tracefs: trace_pipe text fed by the caller (tests, fuzzing). */
struct ktrace *ktrace_text(const struct ktrace_opts *o, const char *kallsyms);
/* root holds events/ (format files) and per_cpu/cpuN/trace_pipe_raw pages. */
struct ktrace *ktrace_raw_files(const struct ktrace_opts *o, const char *kallsyms,
    const char *root);
void ktrace_feed(struct ktrace *k, const char *data, size_t n,
    void (*emit)(struct mt_event *, void *), void *arg);
uint64_t ktrace_lost(const struct ktrace *k);
uint64_t ktrace_unresolved(const struct ktrace *k);
/* Stops tracing, hands over what is left, leaves tracefs as it was. */
void ktrace_close(struct ktrace *k, void (*emit)(struct mt_event *, void *), void *arg);
void ktrace_free(struct ktrace *k);

/*
 * tracefs's root into root: where it is mounted, else mounted on
 * /sys/kernel/tracing (*mounted set, for tracefs_unmount).  0, or -1
 * with errno.
 */
int tracefs_find(char *root, size_t n, int *mounted);
void tracefs_unmount(const char *root);

#endif
