/* progress: a meter on a terminal's stderr while a long input is read. */
#ifndef MT_PROGRESS_H
#define MT_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

/* progress.c */
struct mt_progress;
struct mt_reader;
void progress_off(void);	/* --quiet: no meter for any input */
/*
 * A meter for the input fd that r reads, named name, or NULL: no
 * terminal on stderr, no size known (a pipe), off, or another input's
 * meter still up.  It shows once the program has read for two seconds;
 * progress_free() erases it.
 */
struct mt_progress *progress_new(int fd, const char *name, const struct mt_reader *r);
/* mt_read_input()'s n bytes read from fd: the line redrawn when due. */
void progress_read(int fd, size_t n);
void progress_free(struct mt_progress *p);

#endif
