/*
 * profile: the tables a pprof profile is made of (strings, functions,
 * mappings, locations, stacks, samples), as tables.c fills them and
 * gzip.c writes them.
 */
#ifndef MT_PPROF_PROFILE_H
#define MT_PPROF_PROFILE_H

#include <stdint.h>

#include "mt.h"

#define DEFAULT_TYPE 3	/* of the sample types: inuse_space */

/*
 * Tables of distinct things (strings, functions, locations, stacks,
 * samples): an entry's hash leads to the first of a chain of indices.
 * Ids are indices + 1: profile.proto keeps 0 for none.
 */
struct chains {
	struct u64map heads;	/* hash -> 1 + the index of the chain's first */
};

struct pstring {
	char *s;
	size_t len;
	uint32_t next;
};

struct pfunction {
	const char *name, *file;	/* the dictionary's: one pointer a string */
	uint32_t sname, sfile, next;
};

struct pmapping {
	uint64_t lo, hi, offset;
	uint32_t sfile, sbuild, next;
	unsigned has;		/* HAS_*: what its locations' lines have */
};
#define HAS_FUNCTIONS 1
#define HAS_FILENAMES 2
#define HAS_LINE_NUMBERS 4

/* A location: lines (function id, line number), innermost first. */
struct plocation {
	uint64_t address;
	uint32_t mapping;	/* id, 0: none */
	uint32_t nlines, next;
	uint32_t *function;
	int64_t *line;
	const struct mt_frame *frame0;	/* the frames it was made of: */
	uint32_t nframes;	/* the same first and as many, the same frames */
};
#define IP_SEEN (UINT64_C(1) << 63)

/* A stack as locations, leaf first; a sample's part, shared. */
struct pstack {
	uint32_t nlocs, next;
	uint32_t *loc;
};

struct psample {
	uint32_t stack, process, heap;	/* indices: stacks, strings, strings */
	int64_t pid;
	int64_t v[PPROF_VALUES];	/* stopped at SAT_MAX: hit[] says so */
	uint32_t next;
};

/* The current maps: disjoint, sorted by lo, each its mapping's index. */
struct pmap {
	uint64_t lo, hi;
	uint32_t mapping;
};

struct mt_pprof {
	struct mt_dict *dict;
	struct pstring *str;
	size_t nstr, strcap;
	struct chains strs;
	struct pfunction *fn;
	size_t nfn, fncap;
	struct chains fns;
	struct pmapping *map;
	size_t nmap, mapcap;
	struct chains maps;
	struct pmap *cur;	/* the maps now */
	size_t ncur, curcap;
	/*
	 * address -> IP_SEEN | location id << 32 | mapping id: its mapping
	 * when its stack came, and its location of all its frames, once made.
	 */
	struct u64map ipmap;
	struct plocation *loc;
	size_t nloc, loccap;
	struct chains locs;
	struct pstack *stack;
	size_t nstack, stackcap;
	struct chains stacks;
	struct u64map stack_of;	/* struct mt_stackinfo * -> 1 + stack index */
	struct psample *sample;
	size_t nsample, samplecap;
	struct chains samples;
	uint32_t svalue[PPROF_VALUES][2], sspace, sbytes;
	uint32_t sprocess, spid, sheap;
	uint32_t cut, startup, nostack;	/* functions "[...]", "[start-up]", "[no stack]" */
	uint64_t start;		/* the header's start=, in Unix ns; 0: none */
	uint64_t first, last;	/* times seen; first > last: none */
	int windowed;
	uint64_t from, to;	/* the window line's */
	unsigned hit[PPROF_VALUES];	/* SAT_UP: a value stopped there */
};

#endif
