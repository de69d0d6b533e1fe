/*
 * mt-pooldiff's state shared by its files: the options main.c sets, the
 * tags and the snapshots they are counted in, and the stream's times.
 */
#ifndef MT_POOLDIFF_H
#define MT_POOLDIFF_H

#include <stddef.h>
#include <stdint.h>

#include "mt.h"

#define NONE INT64_MIN		/* a counter the source does not have: '-' */
#define NONE_W (-((mt_wide)1 << 100))	/* the same among wide values: below any sum */
enum { C_ALLOCS, C_FREES, C_DIFF, C_BYTES, NCOUNTERS };

struct tag {
	char *name, *type;	/* as written: no blanks */
	mt_wide cur[NCOUNTERS], prev[NCOUNTERS];	/* wide: sums of events */
	mt_wide first[NCOUNTERS];	/* in the first snapshot: --since-first */
	int in_cur, in_prev, in_first;
	unsigned clamped;	/* SAT_UP, SAT_DOWN: Bytes in at[] narrowed */
	/* Bytes from each snapshot where they changed on (absent: 0), in
	   order: a tag's counters a snapshot each would not fit for a
	   churning tag set over many snapshots. */
	struct at { size_t snap; int64_t bytes; } *at;
	size_t nat, atcap;
	/* From events: allocs, frees, bytes at the intervals where they
	   changed (lib/steps.c), not an entry an interval for every tag. */
	struct mt_steps ch;
	size_t cursor;
	mt_wide live[3];	/* --live: allocs, frees, bytes so far */
	struct tag *next;	/* hash chain */
};

struct snap {
	int64_t t;		/* ns since the epoch, or since the trace start */
	char *host;
};

extern struct tag **tags;
extern size_t ntags;
extern struct snap *snaps;
extern size_t nsnaps;
extern int trouble;		/* exit 2 */

/* The columns whose values or changes stopped at 63 bits where shown. */
enum { SAT_PER_ALLOC = NCOUNTERS, SAT_GROWTH, SAT_PER_HOUR, SAT_SUPPRESSED, SAT_NCOLUMNS };
extern struct mt_sat sat[SAT_NCOLUMNS];

enum tagby { T_FUNCTION, T_HEAP, T_MODULE, T_STACK };
/* The sort key: a counter, NCOUNTERS for per-alloc, SORT_TAG; SORT_UNSET is
   Bytes in the table (as poolmon /b) and the sources' order in a snapshot. */
enum { SORT_TAG = -1, SORT_UNSET = -2 };
enum { FORMAT_TABLE, FORMAT_TSV };

/* The options: main() reads them and hands them to the others. */
struct pooldiff_opts {
	int snap;			/* --snapshot */
	const char *proc_dir;		/* --proc */
	int64_t snapshot_time;		/* --time; NONE: now */
	uint64_t interval;		/* --interval; 0: none */
	enum tagby tag_by;		/* --tag */
	const char *skip_pattern;	/* --skip */
	int sort_key, by_change, totals;	/* --sort, --by-change, --totals */
	char **includes, **excludes;	/* --include, --exclude */
	size_t nincludes, nexcludes;
	int use_regex;			/* --regex: those compiled */
	struct mt_regex **include_re, **exclude_re;
	int growth;			/* --growth K/N */
	long grow_k, grow_n;
	int live;			/* --live */
	int since_first;		/* --since-first */
	int format;			/* --format */
	struct mt_suppress *suppress;	/* as mt-group's: lib/suppress.c */
	int no_suppress;
};

/* Event streams. */
extern struct mt_dict *dict;
extern int64_t trace_start;		/* from #mt-events start= */
extern char *trace_host;
extern uint64_t stream_end;		/* the last time seen */
extern int saw_events, saw_log;
extern int partial_last;		/* the last snapshot ends a short interval */
extern uint64_t last_interval;		/* a short last interval joined: the two's length */

/* tags.c */
struct tag *tag_get(const char *name, size_t nlen, const char *type, size_t tlen);
char *tag_escape(const char *s, size_t n, char *buf, size_t size);
void snapshot_begin(int64_t t, const char *host);
void snapshot_row(struct tag *t, const mt_wide c[NCOUNTERS]);
int64_t bytes_at(const struct tag *t, size_t i);
void time_label(int64_t t, char *buf, size_t size);
int parse_time(const char *s, int64_t *t);
int parse_i64(const char *s, int64_t *v);
void bad_line(const char *file, uint64_t line, const char *what, const char *tok);
void say_saturated(void);

/* proc.c */
int snapshot(const struct pooldiff_opts *o, char **sources, size_t nsources);

/* log.c */
void log_header(const char *file, uint64_t lineno, char *line);
void log_row(const char *file, uint64_t lineno, const char *line,
    size_t len);
void log_done(void);
void pool_record(const struct mt_event *ev);

/* events.c */
void events_begin(const struct pooldiff_opts *o);
int read_input(const struct pooldiff_opts *o, const char *path);
void events_end(void);
void live_end(const struct pooldiff_opts *o);
void snapshots_from_events(const struct pooldiff_opts *o);

/* table.c */
#define TABLE_WIDTH 120
#define TAG_MIN 60
#define TYPE_MIN 16
int selected(const struct pooldiff_opts *o, const struct tag *t);
const char *tag_show(const char *name, char *buf, size_t size);
void print_table(const struct pooldiff_opts *o);

/* growth.c */
int parse_kn(const char *s, long *k, long *n);
int print_growth(const struct pooldiff_opts *o, int live_pass);

#endif
