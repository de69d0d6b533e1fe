/*
 * report.h: what mt-report gathers of a trace in one pass: per process
 * and heap (a series) its bytes over time, its peak and the sites live
 * at it; per row of WPA's table (a key) its sums; the lifetimes by where
 * their times fall (cells); the biggest lifetimes.
 */
#ifndef MT_REPORT_H
#define MT_REPORT_H

#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

#include "idxtab.h"

#define REP_NONE UINT64_MAX

/* A process and heap: its bytes outstanding over time. */
struct rep_series {
	int64_t pid;
	const char *heap;
	int64_t cur;		/* outstanding now, without base */
	int64_t base;		/* made before recording, size known */
	int64_t peak;		/* the most outstanding at an instant, without base */
	uint64_t peak_t, last_t;
	int changed;		/* anything at last_t */
	uint64_t epoch;		/* bumped at each new peak: sites save lazily */
	int64_t *max, *min;	/* graph buckets 0..lastb of the report's width */
	int64_t settled;	/* the value since the last instant settled */
	uint64_t lastb;
	uint64_t allocs, bytes, temp;
	uint64_t leak_n, leak_b, end_n, end_b;
	uint8_t nbig;		/* of its slots in kbig */
	uint64_t ht_temp;	/* temporary by heaptrack's rule (report.ht_next) */
	uint32_t **sitepage;	/* its sites by stack id, SITE_PAGE ids a page: index + 1 */
	size_t nsitepages;
};

/* A process, heap and stack: its bytes live now and at its series' peak. */
struct rep_site {
	int64_t pid;
	const char *heap;
	uint64_t stack;
	uint32_t series;
	int64_t live, base, at_peak;
	int64_t live_n, base_n, at_peak_n;	/* the blocks */
	uint64_t epoch;
	uint32_t key1;		/* the summary alone: its one key, index + 1 */
};

/* A row of the finest table: process, heap, stack, thread, size class. */
struct rep_key {
	uint32_t site;
	int64_t tid;
	int sclass;		/* -2: size unknown, -1: size 0, else log2 */
	/* Its lifetimes of one cell, added here while they come in a run:
	   the key's memory is at hand, the cells' is not. */
	uint8_t pset, pon, pfate;
	int64_t pa, pf;
	uint64_t pn, ps, pt;
	uint64_t allocs, bytes, temp;
	uint64_t leak_n, leak_b, end_n, end_b;
	uint8_t nbig;		/* of its slots in kbig */
	uint64_t ht_temp;	/* temporary by heaptrack's rule (report.ht_next) */
	uint32_t **sitepage;	/* its sites by stack id, SITE_PAGE ids a page: index + 1 */
	size_t nsitepages;
};

/* Lifetimes of a key whose times fall alike, in units of u ns. */
struct rep_cell {
	uint32_t key;
	uint8_t on, fate;	/* fate: 0 freed, 1 live at the end, 2 leaked at exit */
	int64_t a, f;		/* -1: before recording / never freed */
	uint64_t n, s;
	uint64_t t;		/* of n, temporary by heaptrack's rule */
};

/* A change of a site's bytes, kept when life lines are read. */
struct rep_change {
	uint64_t t;
	int64_t d;
	uint32_t site;
	int32_t n;		/* a block more or less */
};

struct rep_life {
	uint32_t key;
	uint8_t fate;
	uint64_t ta, tf, size;	/* REP_NONE: none */
};

struct report {
	struct mt_dict *dict;	/* names, once the input is read */
	struct mt_dict *heaps;	/* the names of heaps not known, held once */
	struct rep_series *series;
	size_t nseries, seriescap;
	uint32_t last_series;	/* site_of's last, tried first */
	struct rep_site *sites;
	size_t nsites, sitecap;
	struct idxtab sitetab;
	struct rep_key *keys;
	size_t nkeys, keycap;
	struct idxtab keytab;
	struct rep_cell *cells;
	size_t ncells, cellcap, cell_limit;
	struct idxtab celltab;
	uint64_t u;		/* the cells' unit of time, ns: 1, 5, 10, 50, ... */
	uint64_t w;		/* the graph's bucket width, ns */
	uint64_t bnow, blo, bhi;	/* settle's last bucket, its times [blo, bhi) */
	size_t gcap;		/* graph buckets a series holds */
	struct rep_life *big;	/* a min-heap by size: the biggest lifetimes */
	size_t nbig, bigcap;
	struct rep_life *kbig;	/* each key's KEY_BIG biggest, KEY_BIG slots a key */
	size_t kbigkeys;	/* keys it has room for */
	uint64_t end;		/* the last time seen */
	uint64_t events, lifetimes, allocs, frees, temp;
	uint64_t ht_temp;	/* heaptrack's temporary allocations (events read) */
	int ht_next;		/* the next lifetime is one: counted in its key */
	int life_input;		/* life lines read: changes sorted at the end */
	int no_cells;		/* the summary alone: no cells kept */
	struct rep_change *changes;
	size_t nchanges, changecap;
	int spill;		/* the sorted runs' file, once there is one */
	uint64_t *runs;		/* the changes in each run, in the file's order */
	size_t nruns, runcap;
	uint64_t start_unix;	/* the header's start=, 0 if none */
	char *host;
	struct mt_suppress *sup;	/* never-freed stacks that are no leak; NULL: none */
	int8_t *site_sup;	/* per site: -1 unknown, 0, 1 suppressed */
	int64_t *pids;		/* every process seen, in order */
	size_t npids, pidcap;
};

void report_init(struct report *r, size_t biggest);
/* An allocation, before it is paired. */
void report_alloc(struct report *r, const struct mt_event *ev);
/* A lifetime, from the pairer or a life line. */
void report_life(struct report *r, const struct mt_life *l);
/* A time seen on any record, and a process. */
void report_time(struct report *r, uint64_t ts);
void report_proc(struct report *r, int64_t pid);
/* The input is over: sorted changes replayed, the last instant settled. */
void report_finish(struct report *r);
/* spill.c: life lines' changes put in time order in bounded memory. */
#define REPORT_RUN (1u << 22)	/* changes held before a sorted run goes to disk */
void report_change(struct report *r, uint32_t site, uint64_t t, int64_t d, int n);
void report_spill(struct report *r);
void report_replay(struct report *r);
/* A site's bytes at its series' peak, and its blocks (n). */
int64_t report_site_peak(const struct report *r, const struct rep_site *s, int64_t *n);
/* A series' graph bucket count (they end past r->end). */
uint64_t report_buckets(const struct report *r);
/* biggest.c: a lifetime among the trace's biggest, and its key's (per_key). */
#define KEY_BIG 4
#define KEY_BIG_SHOWN 60000	/* of the keys' biggest, the page's at most */
void report_big(struct report *r, const struct rep_life *l, int per_key);
/* The page's lifetimes, into *v (malloc'd): the keys' and the trace's biggest, once each. */
size_t report_biggest(struct report *r, struct rep_life **v);
/* A site whose never-freed lifetimes a suppression rule takes (r->dict set). */
int report_suppressed(struct report *r, uint32_t site);
void report_free(struct report *r);

/* json.c: the page's data (man mt-report, DATA) */
struct mt_out;
void report_json(struct report *r, const char *trace, struct mt_out *o);
/* symbols.c: the stacks' names, by mt-symbolize beside the pass */
struct rep_names;
struct mt_event;
/* again: the input, when a regular file that can be read again; else NULL */
struct rep_names *names_new(int symbolize, char **symdirs, size_t nsymdirs, const char *skip,
    const char *again);
void names_add(struct rep_names *nm, const struct mt_event *ev);	/* a dictionary line */
int names_had_syms(const struct rep_names *nm);
struct mt_dict *names_finish(struct rep_names *nm);

/* summary.c: the first screen; syms: the input had sym lines */
int summary(FILE *f, struct report *r, const char *input, int syms, size_t top);
extern int report_bytes;	/* sizes in bytes, not 1.5 MiB */
extern const char *report_skip;	/* -A REGEX, for the pipelines said */

/*
 * page.c: mt-report's page (share/report/, built in) around the
 * data: the template's head, json in <script id="mt-data">, its tail.
 * Write errors are the caller's to see, with ferror or fclose.
 */
void report_page_write(FILE *f, const char *json, size_t len, const char *old, size_t oldlen);

#endif
