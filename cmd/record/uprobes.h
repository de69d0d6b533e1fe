/* uprobes: what mt-record --uprobes's files share (uprobes.c, uelf.c). */
#ifndef MT_RECORD_UPROBES_H
#define MT_RECORD_UPROBES_H

#include <stddef.h>
#include <stdint.h>

/* The BPF programs, by the arguments of the function they are put on. */
enum { P_MALLOC, P_CALLOC, P_REALLOC, P_MEMALIGN, P_POSIX_MEMALIGN, P_FREE, P_POOL,
	P_POOL_FREE, P_OUT, P_POSIX_MEMALIGN_OUT, P_NONE };

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
/* A script's interpreter ("#!/bin/sh -e": /bin/sh) into buf; NULL if not a script. */
const char *script_interp(const char *path, char *buf, size_t n);

#endif
