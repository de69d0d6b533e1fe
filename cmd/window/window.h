/*
 * mt-window's files: the options main() reads and the window they make,
 * handed to the others, and the sink the lines go to.
 */
#ifndef MT_WINDOW_H
#define MT_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "mt.h"

#define NONE UINT64_MAX

struct window_opts {
	uint64_t from, to, last;	/* --from, --to, --last; NONE: not given */
	uint64_t at;			/* --at TIME; NONE: not given */
	int at_peak;			/* --at peak */
	uint64_t step;			/* --series; 0: none (main's for --at peak's first pass) */
	const char *step_arg;
	int64_t *pids;			/* --pid */
	size_t npids;
	char **heaps;			/* --heap */
	size_t nheaps;
	struct mt_regex *match_re, *exclude_re, *process_re;
	int binary;			/* --binary */
	uint64_t t0, t1;		/* the window [t0, t1) they make */
};

extern struct mt_sink out;
extern uint64_t nlife, nraw;	/* what the input held */

/* window.c */
void format_time(char *buf, size_t len, uint64_t ns);
/* spool: stdin kept in a temporary file to read twice, or -1 */
uint64_t last_time(const char *path, int spool, int *unread);
int window(const struct window_opts *o, const char *path, int spool, int peaks);
void say_times(const struct window_opts *o);

/* series.c */
struct series;
/* A change of a series' bytes and count at its bucket. */
struct change {
	uint64_t k;		/* the bucket: times in (t0 + (k-1)r, t0 + kr] */
	int64_t bytes, count;	/* the net change */
	int64_t rise, dip;	/* the running sum's highest (>= 0), lowest (<= 0) */
	uint64_t raw;		/* the lifetimes' changes it holds (--at peak's second reading) */
};
int change_with(struct change *a, const struct change *b);	/* 0: kept apart */
/* seriesrun.c: --series' changes past those kept, in runs in TMPDIR */
void runs_put(size_t series, const struct change *c, size_t n);
void runs_end(void);
int runs_any(void);
void runs_open(size_t series);
int runs_next(struct change *e);
extern struct mt_sat sat_bytes, sat_count;
struct series *series_find(const struct mt_event *ev);
uint64_t series_peak_time(const struct series *s);
void series_add(const struct window_opts *o, const struct mt_event *ev, uint64_t ta, uint64_t tf,
    int64_t size);
void series_write(const struct window_opts *o, uint64_t end);
int series_peaks(const struct window_opts *o);
void series_peaks_exact(void);
size_t series_index(const struct series *s);
uint64_t changes_kept(void);
uint64_t first_kept(void);	/* --at peak's first reading's */
void put_peaks(const struct window_opts *o);

/* peak.c: --at peak exact, reading again where the first reading's buckets
   may hold it */
void peak_floor(size_t series, mt_wide v);
void peak_reserve(size_t n);
void peak_bucket(size_t series, uint64_t lo, uint64_t hi, mt_wide base_b, mt_wide base_c,
    mt_wide end_b, mt_wide ub, uint64_t raw);
int peak_choose(uint64_t changes);
void peak_add(const struct window_opts *o, const struct mt_event *ev, uint64_t ta, uint64_t tf,
    int64_t size);
void peak_settle(void);
int peak_found(size_t series, uint64_t *t, mt_wide *b, mt_wide *c);
void peak_free(void);

#endif
