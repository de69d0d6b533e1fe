/* diag: diagnostics in one form, the option values they judge; alloc.c's helpers. */
#ifndef MT_DIAG_H
#define MT_DIAG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define MT_VERSION "0.1.0"	/* the programs' --version */

/* diag.c */
extern const char *mt_progname;
extern int mt_status;		/* exit status the diagnostics asked for */
void mt_setprogname(const char *argv0);
/* --help (full: the synopsis and the options on stdout, exit 0) or a bad
   option (the synopsis on stderr, exit 2); --version. */
void mt_usage(int full, const char *synopsis, const char *options) __attribute__((noreturn));
void mt_version(void) __attribute__((noreturn));
const char *mt_shown(const char *s, size_t len);	/* a token fit for a message */
/*
 * "prog: message" on stderr, after stdout is flushed, as err(3): the
 * warn forms set mt_status to 1, mt_note leaves it, the err forms exit
 * with status; mt_warn and mt_err add ": strerror(errno)".
 */
#define MT_PRINTF(i) __attribute__((format(printf, i, i + 1)))
void mt_warn(const char *fmt, ...) MT_PRINTF(1);
void mt_warnx(const char *fmt, ...) MT_PRINTF(1);
void mt_note(const char *fmt, ...) MT_PRINTF(1);
/* The first max warnings (mt_warn, mt_warnx, mt_warn_at) kept as said,
   without the program's name, and how many more came. */
void mt_keep_warnings(size_t max);
const char *const *mt_kept_warnings(size_t *n, size_t *more);
void mt_err(int status, const char *fmt, ...) MT_PRINTF(2) __attribute__((noreturn));
void mt_errx(int status, const char *fmt, ...) MT_PRINTF(2) __attribute__((noreturn));
/*
 * A status line (progress.c's meter) drawn over itself on stderr, a
 * terminal; NULL erases it.  Every message erases it first, and so does
 * mt_status_yield() before output to fd when that is a terminal too.
 */
void mt_status_line(const char *line);
void mt_status_yield(int fd);
/* prog: file:line: what 'token' (token NULL: none), and mt_status 1. */
void mt_warn_at(const char *file, uint64_t line, const char *what,
    const char *token, size_t toklen);
/* prog: bad what 'value' (choices), and mt_status 1; choices may be NULL. */
void mt_bad(const char *what, const char *value, const char *choices);
/* s as a number lo to hi, or mt_bad(what, s, "lo to hi") and exit 2. */
long long estrtonum(const char *s, long long lo, long long hi, const char *what);
/* s's index in words (NULL-ended), or mt_bad(what, s, choices) and exit 2. */
int echoice(const char *what, const char *s, const char *const *words, const char *choices);
/* alloc.c: these exit when memory runs out */
void *emalloc(size_t n);
void *ecalloc(size_t n, size_t size);
void *erealloc(void *p, size_t n);
/* An array p of n elements with room for one more: cap doubles when full. */
void *egrow(void *p, size_t n, size_t *cap, size_t size);
void *etable_calloc(size_t n, size_t size);
void etable_free(void *p, size_t n, size_t size);
void *etable_grow(void *p, size_t n, size_t newn, size_t size);
char *estrdup(const char *s);
char *estrndup(const char *s, size_t n);
int mt_close_stdout(void);
/*
 * read(2) for a filter's input: when it would wait, standard output and
 * what mt_set_idle() names are flushed first (fn(arg); NULL: nothing).
 */
ssize_t mt_read_input(int fd, void *buf, size_t len);
void mt_set_idle(void (*fn)(void *), void *arg);
/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t mt_monotonic_ns(void);

#endif
