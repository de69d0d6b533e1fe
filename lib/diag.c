/* Diagnostics in the one greppable form, and the option values they judge. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
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
 * A token for a message: control bytes as '?', at most 60 bytes and
 * "...", so that one bad line is one line of message.  Two buffers in
 * turn: two tokens in one message.
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

/*
 * Every message is "prog: what", said after what stdout holds so far so
 * that the two read in order when they share a terminal.  The err and
 * errx forms exit with the status given; warn and warnx set mt_status.
 */
static void
vsay(int errnum, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
static void
vsay(int errnum, const char *fmt, va_list ap)
{
	mt_status_line(NULL);
	fflush(stdout);
	fprintf(stderr, "%s: ", mt_progname);
	vfprintf(stderr, fmt, ap);
	if (errnum)
		fprintf(stderr, ": %s", strerror(errnum));
	fputc('\n', stderr);
}

/* The warnings kept for a report of them (mt_keep_warnings). */
static char **kept;
static size_t nkept, keep_max, kept_more;
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;

void
mt_keep_warnings(size_t max)
{
	keep_max = max;
}

static void
keep(int errnum, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
static void
keep(int errnum, const char *fmt, va_list ap)
{
	char buf[1024];
	int n;

	if (!keep_max)
		return;
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	if (errnum && n >= 0 && (size_t)n < sizeof(buf))
		snprintf(buf + n, sizeof(buf) - (size_t)n, ": %s", strerror(errnum));
	pthread_mutex_lock(&kept_lock);
	if (nkept < keep_max) {
		kept = erealloc(kept, (nkept + 1) * sizeof(*kept));
		kept[nkept++] = estrdup(buf);
	} else {
		kept_more++;
	}
	pthread_mutex_unlock(&kept_lock);
}

const char *const *
mt_kept_warnings(size_t *n, size_t *more)
{
	*n = nkept;
	*more = kept_more;
	return (const char *const *)kept;
}

/*
 * The status line.  A lock, for a sink's thread writes stdout while the
 * reading thread draws; the unlocked look first keeps output that runs
 * with no line drawn (nearly all of it) from taking it.
 */
static pthread_mutex_t status_lock = PTHREAD_MUTEX_INITIALIZER;
static int status_drawn;
static int stdout_tty = -1;

static void
status_erase(void)
{
	if (status_drawn)
		(void)!write(STDERR_FILENO, "\r\033[K", 4);
	__atomic_store_n(&status_drawn, 0, __ATOMIC_RELAXED);
}

void
mt_status_line(const char *line)
{
	char buf[512];
	int n;

	if (!line && !__atomic_load_n(&status_drawn, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&status_lock);
	if (line) {
		n = snprintf(buf, sizeof(buf), "\r%s\033[K", line);
		if (n > 0 && (size_t)n < sizeof(buf) &&
		    write(STDERR_FILENO, buf, (size_t)n) > 0)
			__atomic_store_n(&status_drawn, 1, __ATOMIC_RELAXED);
	} else {
		status_erase();
	}
	pthread_mutex_unlock(&status_lock);
}

void
mt_status_yield(int fd)
{
	if (fd != STDOUT_FILENO || !__atomic_load_n(&status_drawn, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&status_lock);
	if (stdout_tty < 0)
		stdout_tty = isatty(STDOUT_FILENO);
	if (stdout_tty)
		status_erase();
	pthread_mutex_unlock(&status_lock);
}

void
mt_warn(const char *fmt, ...)
{
	int errnum = errno;
	va_list ap;

	va_start(ap, fmt);
	vsay(errnum, fmt, ap);
	va_end(ap);
	va_start(ap, fmt);
	keep(errnum, fmt, ap);
	va_end(ap);
	mt_status = 1;
}

void
mt_warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(0, fmt, ap);
	va_end(ap);
	va_start(ap, fmt);
	keep(0, fmt, ap);
	va_end(ap);
	mt_status = 1;
}

/* A note that is no error: the exit status stays as it is. */
void
mt_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(0, fmt, ap);
	va_end(ap);
}

void
mt_err(int status, const char *fmt, ...)
{
	int errnum = errno;
	va_list ap;

	va_start(ap, fmt);
	vsay(errnum, fmt, ap);
	va_end(ap);
	exit(status);
}

void
mt_errx(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(0, fmt, ap);
	va_end(ap);
	exit(status);
}

/* prog: file:line: what 'token' */
void
mt_warn_at(const char *file, uint64_t line, const char *what,
    const char *token, size_t toklen)
{
	if (token)
		mt_warnx("%s:%llu: %s '%s'", file, (unsigned long long)line, what,
		    mt_shown(token, toklen));
	else
		mt_warnx("%s:%llu: %s", file, (unsigned long long)line, what);
}

/* prog: bad what 'value' (choices): a value given that is not one. */
void
mt_bad(const char *what, const char *value, const char *choices)
{
	if (choices)
		mt_warnx("bad %s '%s' (%s)", what, mt_shown(value, strlen(value)), choices);
	else
		mt_warnx("bad %s '%s'", what, mt_shown(value, strlen(value)));
}

/*
 * An option's number, lo to hi, or the message of mt_bad and exit 2,
 * as OpenBSD's strtonum(3) with the error said.
 */
long long
estrtonum(const char *s, long long lo, long long hi, const char *what)
{
	char *end, range[64];
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (end == s || *end || errno || v < lo || v > hi) {
		if (hi == LLONG_MAX)
			snprintf(range, sizeof(range), "%lld or more", lo);
		else
			snprintf(range, sizeof(range), "%lld to %lld", lo, hi);
		mt_bad(what, s, range);
		exit(2);
	}
	return v;
}

int
echoice(const char *what, const char *s, const char *const *words, const char *choices)
{
	int i;

	for (i = 0; words[i]; i++)
		if (!strcmp(s, words[i]))
			return i;
	mt_bad(what, s, choices);
	exit(2);
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
	if (now & SAT_UP)
		mt_warnx("%s saturated at %" PRId64 " (more than 2^63-1: read it as "
		    "at least that)", s->column, (int64_t)SAT_MAX);
	if (now & SAT_DOWN)
		mt_warnx("%s saturated at %" PRId64 " (less than -(2^63-1): read it "
		    "as at most that)", s->column, -(int64_t)SAT_MAX);
	s->said |= now;
}

/* A program's output is only done when its close has succeeded. */
int
mt_close_stdout(void)
{
	if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
		mt_warn("stdout");
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
	if (n > 0)
		progress_read(fd, (size_t)n);
	return n;
}
