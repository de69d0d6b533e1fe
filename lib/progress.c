/*
 * The progress meter: how far into an input of known size a filter is,
 * its events a second and the time left, on one line of the terminal
 * that diagnostics go to, redrawn in place.  It is told of each read(2)
 * of the input, a buffer of many records, so that the records themselves
 * cost nothing: the reader's count of them is looked at when drawing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mt.h"

#define NS 1000000000ULL
#define SHOW_AFTER (2 * NS)	/* a short run never sees the meter */
#define REDRAW (NS / 5)

struct mt_progress {
	int fd;
	const char *name;
	const struct mt_reader *r;	/* its records read: reader_lineno() */
	uint64_t size;		/* the input's bytes */
	uint64_t pos0;		/* its offset when reading began (stdin may be past 0) */
	uint64_t pos;		/* the offset read to */
	uint64_t start;		/* when reading began */
	uint64_t drawn;		/* when the line was drawn last; 0: never */
	int width;		/* the terminal's columns */
};

static int off;
static struct mt_progress *active;	/* one input at a time has the line */
static uint64_t first_start;	/* the delay counts from the program's first input */

void
progress_off(void)
{
	off = 1;
}

struct mt_progress *
progress_new(int fd, const char *name, const struct mt_reader *r)
{
	struct mt_progress *p;
	struct winsize ws;
	struct stat st;
	off_t pos;

	if (off || active || !isatty(STDERR_FILENO) || fstat(fd, &st) < 0 ||
	    !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (pos = lseek(fd, 0, SEEK_CUR)) < 0 || pos >= st.st_size)
		return NULL;
	p = ecalloc(1, sizeof(*p));
	p->fd = fd;
	p->name = name;
	p->r = r;
	p->size = (uint64_t)st.st_size;
	p->pos0 = p->pos = (uint64_t)pos;
	p->start = mt_monotonic_ns();
	p->width = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40 ?
	    ws.ws_col : 80;
	if (!first_start)
		first_start = p->start;
	return active = p;
}

/* 14.2M: a rate in three figures. */
static void
rate(char *buf, size_t n, double v)
{
	static const char unit[] = " KMGT";
	int u = 0;

	while (v >= 999.5 && u < 4) {
		v /= 1000;
		u++;
	}
	if (u == 0)
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, v < 9.95 ? "%.2f%c" : v < 99.5 ? "%.1f%c" : "%.0f%c",
		    v, unit[u]);
}

/* 0:07, 12:34, 1:02:03 */
static void
clock_time(char *buf, size_t n, uint64_t s)
{
	if (s >= 3600)
		snprintf(buf, n, "%llu:%02llu:%02llu", (unsigned long long)(s / 3600),
		    (unsigned long long)(s / 60 % 60), (unsigned long long)(s % 60));
	else
		snprintf(buf, n, "%llu:%02llu", (unsigned long long)(s / 60),
		    (unsigned long long)(s % 60));
}

static void
draw(struct mt_progress *p, uint64_t now)
{
	char line[264], stats[96], name[160], r[16], left[32];
	double took = (double)(now - p->start) / NS, done;
	size_t len = strlen(p->name);
	uint64_t pos;
	int n, room;

	/* Where the reader's buffer has got to: ahead of its records by a
	   buffer at most, which a percent does not see. */
	pos = p->pos < p->size ? p->pos : p->size;
	if (pos <= p->pos0 || took <= 0)
		return;
	done = (double)(pos - p->pos0) / (double)(p->size - p->pos0);
	rate(r, sizeof(r), (double)reader_lineno(p->r) / took);
	clock_time(left, sizeof(left), (uint64_t)(took / done * (1 - done) + 0.5));
	n = snprintf(stats, sizeof(stats), "%3d%%  %s events/s  %s left",
	    (int)(done * 100), r, left);
	/* The name cut at its front to the room left: a line that wraps is
	   not erased by a carriage return. */
	room = p->width - 1 - n - 2;
	if (room > (int)sizeof(name) - 3)
		room = (int)sizeof(name) - 3;
	if (room >= 0 && len <= (size_t)room)
		snprintf(name, sizeof(name), "%s: ", p->name);
	else if (room >= 8)
		snprintf(name, sizeof(name), "...%s: ", p->name + len - (size_t)(room - 3));
	else
		name[0] = '\0';
	snprintf(line, sizeof(line), "%s%s", name, stats);
	mt_status_line(line);
	p->drawn = now;
}

void
progress_read(int fd, size_t n)
{
	struct mt_progress *p = active;
	uint64_t now;

	if (!p || fd != p->fd)
		return;
	p->pos += n;
	now = mt_monotonic_ns();
	if (now - first_start >= SHOW_AFTER && now - p->drawn >= REDRAW)
		draw(p, now);
}

void
progress_free(struct mt_progress *p)
{
	if (p && p->drawn)
		mt_status_line(NULL);
	if (p == active)
		active = NULL;
	free(p);
}
