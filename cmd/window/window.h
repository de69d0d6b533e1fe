/*
 * mt-window's state shared by its files: the window and the filters that
 * main.c sets from the options, and the sink the lines go to.
 */
#ifndef MT_WINDOW_H
#define MT_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "mt.h"

#define NONE UINT64_MAX

extern uint64_t t0, t1;		/* the window [t0, t1) */
extern uint64_t from_opt, to_opt, last_opt, step;
extern uint64_t at_opt;		/* --at TIME */
extern int at_peak;		/* --at peak */
extern int64_t *pids;
extern size_t npids;
extern char **heaps;
extern size_t nheaps;
extern struct mt_regex *match_re, *exclude_re, *process_re;
extern int spool;		/* stdin, kept in a temporary file to read twice */
extern struct mt_sink out;
extern uint64_t nlife, nraw;	/* what the input held */

/* window.c */
void format_time(char *buf, size_t len, uint64_t ns);
uint64_t last_time(const char *path, int *unread);
int window(const char *path, int peaks);
void say_times(void);

/* series.c */
struct series;
extern struct mt_sat sat_bytes, sat_count;
struct series *series_find(const struct mt_event *ev);
uint64_t series_peak_time(const struct series *s);
void series_add(const struct mt_event *ev, uint64_t ta, uint64_t tf, int64_t size);
void series_write(uint64_t end);
void series_peaks(void);
void put_peaks(void);

#endif
