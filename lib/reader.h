/* reader: One event reader for every program. */
#ifndef MT_READER_H
#define MT_READER_H

#include <stdint.h>
#include "event.h"
#include "out.h"

/* reader.c: one event reader for every program: text or .mtr, path or stdin */
struct mt_reader;
struct mt_reader *reader_open(const char *path);	/* NULL or "-": stdin; NULL return: warned */
/* An open descriptor, closed by reader_close(); messages name it name. */
struct mt_reader *reader_open_fd(int fd, const char *name);
/* Standard input copied to fd: 0, or 1 when it is no input, 2 on an I/O error (said). */
int reader_spool(int fd);
/* path (NULL or "-": stdin) copied to a file in TMPDIR, to be read again:
   its descriptor, or -1 with *status set (said). */
int reader_spool_tmp(const char *path, int *status);
/* path (NULL or "-": stdin) opened once more; from spool, its copy, when that is not -1. */
struct mt_reader *reader_reopen(const char *path, int spool);
/* The named inputs that cannot be read, said once each and dropped from
   argv; 0 when some were named and none is left. */
int reader_inputs(int *argc, char **argv);
/*
 * Next record: 1 with ev filled, 0 at the end.  A bad text line is
 * warned about (prog: file:line: what 'token'), counted and skipped;
 * damage in a binary trace is warned about and ends the input.
 * The record stays valid until the next call.
 */
int reader_next(struct mt_reader *r, struct mt_event *ev);
/*
 * Appends the record as a text line with its newline to o: the line as it
 * came, or for a trace formatted from the caller's event as reader_next()
 * left it (change it first and the line changes too).
 */
void reader_write(struct mt_reader *r, struct mt_out *o);
/* Lines that are not records come back as MT_UNKNOWN, unwarned (logs). */
void reader_keep_bad(struct mt_reader *r);
void reader_quiet(struct mt_reader *r);	/* a first pass: bad input not said */
const char *reader_name(const struct mt_reader *r);
int reader_binary(const struct mt_reader *r);	/* 1: a .mtr stream */
struct trace_reader *reader_trace(struct mt_reader *r);	/* a .mtr stream's; else NULL */
uint64_t reader_lineno(const struct mt_reader *r);
int reader_close(struct mt_reader *r);	/* 0, or 1 if anything was wrong */

#endif
