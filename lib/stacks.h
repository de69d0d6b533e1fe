/* stacks: A stream's processes, stacks and symbols. */
#ifndef MT_STACKS_H
#define MT_STACKS_H

#include <stddef.h>
#include <stdint.h>
#include "event.h"

/* stacks.c: a stream's processes, stacks and symbols (links libpcre2-8) */
struct mt_frame {
	const char *function, *file, *module;	/* file without its :line */
	const char *line;	/* file:line as the sym line has it */
};
struct mt_stackinfo {
	uint32_t n;		/* frames, innermost first, inlines included */
	uint32_t alloc_frame;	/* the first frame outside the allocation API */
	int cut;		/* cut at the recorder's depth: callers missing */
	/*
	 * With dict_keep_ips(), the stack line's addresses, and for each its
	 * first frame: address k has frames first[k] to first[k + 1] - 1
	 * (several when inlined); else NULL.
	 */
	uint32_t nips;
	const uint64_t *ips;
	const uint32_t *first;	/* nips + 1 of them */
	const struct mt_frame *frame[];	/* each held once by the dictionary */
};
struct mt_dict;
struct mt_dict *dict_new(const char *skip_regex);	/* more API frames, or NULL */
/* Stacks resolved from now on keep their addresses (pprof: 12 bytes an address). */
void dict_keep_ips(struct mt_dict *d);
/* 1: a proc, stack or sym, kept; 2: a stack that redefines an id */
int dict_add(struct mt_dict *d, const struct mt_event *ev);
const char *dict_process(struct mt_dict *d, int64_t pid);	/* base name, or "?" */
const char *proc_name(const char *path, size_t len, size_t *n);
const char *dict_task(struct mt_dict *d, int64_t tid);	/* a #task comm, or NULL */
/* The stack of an id, never NULL; valid as long as the dictionary. */
struct mt_stackinfo *dict_stack(struct mt_dict *d, uint64_t id);
/* Its frame outside the allocation API (alloc_frame), or NULL when it has none. */
const struct mt_frame *dict_alloc_frame(struct mt_dict *d, uint64_t id);
/* 1 when a sym line named the address: its frames are not a bare address. */
/* An address's sym lines, "function TAB file:line TAB module" and a newline
   each (several when inlined), or NULL when none named it. */
const char *dict_sym(struct mt_dict *d, uint64_t addr);
/* The string held once: equal strings, one pointer. */
const char *dict_intern(struct mt_dict *d, const char *s, size_t len);

#endif
