/* progress: a meter on a terminal's stderr while a long input is read. */
#ifndef MT_PROGRESS_H
#define MT_PROGRESS_H

#include <stdint.h>

/* progress.c */
struct mt_progress;
void progress_off(void);	/* --quiet: no meter for any input */
/*
 * A meter for the input fd, named name, or NULL: no terminal on stderr,
 * no size known (a pipe), or off.  It shows once the program has read
 * for two seconds; progress_free() erases it.
 */
struct mt_progress *progress_new(int fd, const char *name);
/*
 * Called when the events progress_new() or the last tick asked for have
 * been read: the line redrawn when it is due; returns how many events
 * to read before the next call.
 */
uint64_t progress_tick(struct mt_progress *p);
uint64_t progress_first(const struct mt_progress *p);	/* the count before the first */
void progress_free(struct mt_progress *p);

#endif
