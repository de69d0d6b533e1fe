/* Diagnostics in the one greppable form, and allocation helpers that exit. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mt.h"

const char *mt_progname = "mt";
int mt_status;

void
mt_setprogname(const char *argv0)
{
	const char *slash = strrchr(argv0, '/');

	mt_progname = slash ? slash + 1 : argv0;
}

void
mt_usage(int full, const char *synopsis, const char *options)
{
	FILE *f = full ? stdout : stderr;
	const char *s, *nl;
	int first = 1;

	/* The synopsis is lines of arguments, each after "usage: prog". */
	for (s = synopsis; *s; s = *nl ? nl + 1 : nl, first = 0) {
		nl = strchrnul(s, '\n');
		fprintf(f, "%s %s %.*s\n", first ? "usage:" : "      ", mt_progname,
		    (int)(nl - s), s);
	}
	if (full)
		fprintf(f, "\n%s", options);
	exit(full ? (fflush(f) || ferror(f) ? 1 : 0) : 2);
}

void
mt_version(void)
{
	printf("%s (mt) %s\n", mt_progname, MT_VERSION);
	exit(fflush(stdout) || ferror(stdout) ? 1 : 0);
}

/*
 * prog: file:line: what 'token' -- the token is cut at 60 bytes and its
 * control characters are shown as '?', so one bad line is one line.
 */
/*
 * A token for a message: control bytes as '?', at most 60 bytes and
 * "..." (a value holding a newline once split a message in two lines).
 * Two buffers in turn: two tokens in one message.
 */
const char *
mt_shown(const char *s, size_t len)
{
	static char buf[2][64 + 3];
	static int which;
	char *b = buf[which ^= 1];
	size_t i, n = len < 60 ? len : 60;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		b[i] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	strcpy(b + n, len > n ? "..." : "");
	return b;
}

void
mt_warn_at(const char *file, uint64_t line, const char *what,
    const char *token, size_t toklen)
{
	fflush(stdout);
	if (token)
		fprintf(stderr, "%s: %s:%llu: %s '%s'\n", mt_progname, file,
		    (unsigned long long)line, what, mt_shown(token, toklen));
	else
		fprintf(stderr, "%s: %s:%llu: %s\n", mt_progname, file,
		    (unsigned long long)line, what);
	mt_status = 1;
}

/*
 * Each way a column's sums stopped, said once: the value shown is then
 * a bound of the true one, and the exit status says something was lost.
 */
void
sat_say(struct mt_sat *s)
{
	unsigned now = s->hit & ~s->said;

	if (!now)
		return;
	fflush(stdout);
	if (now & SAT_UP)
		fprintf(stderr, "%s: %s saturated at %" PRId64 " (more than 2^63-1: read it as "
		    "at least that)\n", mt_progname, s->column, (int64_t)SAT_MAX);
	if (now & SAT_DOWN)
		fprintf(stderr, "%s: %s saturated at %" PRId64 " (less than -(2^63-1): read it "
		    "as at most that)\n", mt_progname, s->column, -(int64_t)SAT_MAX);
	s->said |= now;
	mt_status = 1;
}

static void
enomem(void)
{
	fprintf(stderr, "%s: out of memory\n", mt_progname);
	exit(1);
}

void *
emalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		enomem();
	return p;
}

void *
ecalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		enomem();
	return p;
}

void *
erealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		enomem();
	return p;
}

void *
egrow(void *p, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : 64;
	if (*cap > SIZE_MAX / size)
		enomem();
	return erealloc(p, *cap * size);
}

/*
 * A large zeroed table that is probed at random (the pairer's blocks):
 * its pages are made at once.  calloc's pages come one fault at a time,
 * and a probe that reads one first maps the zero page, so that the write
 * after it faults again: a tenth of mt-lifetime's time on a big trace.
 * Freed with etable_free and the same sizes.
 */
#define TABLE_MAP_MIN	(4u << 20)

void *
etable_calloc(size_t n, size_t size)
{
	void *p;

	if (size && n > SIZE_MAX / size)
		enomem();
	if (n * size < TABLE_MAP_MIN)
		return ecalloc(n, size);
	p = mmap(NULL, n * size, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		enomem();
#ifdef MADV_HUGEPAGE
	madvise(p, n * size, MADV_HUGEPAGE);
#endif
#ifdef MADV_POPULATE_WRITE
	madvise(p, n * size, MADV_POPULATE_WRITE);
#endif
	return p;
}

/*
 * The table of n grown to newn, its n first in place and zeroes after:
 * a mapped table is remapped, so that its pages are neither made again
 * nor copied, and only the new ones are made (at once, as above).
 */
void *
etable_grow(void *p, size_t n, size_t newn, size_t size)
{
	size_t len = n * size, newlen;
	char *q;

	if (size && newn > SIZE_MAX / size)
		enomem();
	newlen = newn * size;
	if (newlen < TABLE_MAP_MIN) {
		q = erealloc(p, newlen);
		memset(q + len, 0, newlen - len);
		return q;
	}
	if (len < TABLE_MAP_MIN) {
		q = etable_calloc(newn, size);
		memcpy(q, p, len);
		free(p);
		return q;
	}
	q = mremap(p, len, newlen, MREMAP_MAYMOVE);
	if (q == MAP_FAILED)
		enomem();
#ifdef MADV_HUGEPAGE
	madvise(q, newlen, MADV_HUGEPAGE);
#endif
#ifdef MADV_POPULATE_WRITE
	madvise(q + len, newlen - len, MADV_POPULATE_WRITE);	/* else page by page */
#endif
	return q;
}

void
etable_free(void *p, size_t n, size_t size)
{
	if (!p)
		return;
	if (n * size < TABLE_MAP_MIN)
		free(p);
	else
		munmap(p, n * size);
}

char *
estrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		enomem();
	return p;
}

/* The n bytes at s, which need not be terminated, as a string. */
char *
estrndup(const char *s, size_t n)
{
	char *p = emalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

/* A program's output is only done when its close has succeeded. */
int
mt_close_stdout(void)
{
	if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
		fprintf(stderr, "%s: stdout: %s\n", mt_progname, strerror(errno));
		return 1;
	}
	return 0;
}

/*
 * read(2) for the filters' input: what is written so far goes out first
 * when the read would wait (a pipe from a live recording), so that a
 * pipeline shows each frame as it comes, not at the end of its input.
 */
static void (*idle_fn)(void *);
static void *idle_arg;

void
mt_set_idle(void (*fn)(void *), void *arg)
{
	idle_fn = fn;
	idle_arg = arg;
}

ssize_t
mt_read_input(int fd, void *buf, size_t len)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	if (poll(&p, 1, 0) == 0) {
		fflush(stdout);
		if (idle_fn)
			idle_fn(idle_arg);
	}
	do
		n = read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n;
}
