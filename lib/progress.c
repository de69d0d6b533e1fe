/*
 * The progress meter: how far into an input of known size a filter is,
 * its events a second and the time left, on one line of the terminal
 * that diagnostics go to, redrawn in place.  Its caller counts events
 * down and calls in only when the count runs out, so that the clock is
 * read a few dozen times a second whatever the rate.
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
#define TICK (NS / 20)		/* the clock read about this often */
#define EVERY_MIN 4096
#define EVERY_MAX 65536

struct mt_progress {
	int fd;
	const char *name;
	uint64_t size;		/* the input's bytes */
	uint64_t pos0;		/* its offset when reading began (stdin may be past 0) */
	uint64_t start;		/* when reading began */
	uint64_t events;	/* read up to this tick */
	uint64_t every;		/* events from one tick to the next */
	uint64_t drawn;		/* when the line was drawn last; 0: never */
	int width;		/* the terminal's columns */
};

static int off;
static uint64_t first_start;	/* the delay counts from the program's first input */

void
progress_off(void)
{
	off = 1;
}

struct mt_progress *
progress_new(int fd, const char *name)
{
	struct mt_progress *p;
	struct winsize ws;
	struct stat st;
	off_t pos;

	if (off || !isatty(STDERR_FILENO) || fstat(fd, &st) < 0 ||
	    !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (pos = lseek(fd, 0, SEEK_CUR)) < 0 || pos >= st.st_size)
		return NULL;
	p = ecalloc(1, sizeof(*p));
	p->fd = fd;
	p->name = name;
	p->size = (uint64_t)st.st_size;
	p->pos0 = (uint64_t)pos;
	p->start = mt_monotonic_ns();
	p->every = EVERY_MIN;
	p->width = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40 ?
	    ws.ws_col : 80;
	if (!first_start)
		first_start = p->start;
	return p;
}

uint64_t
progress_first(const struct mt_progress *p)
{
	return p ? p->every : UINT64_MAX;
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
	int n, room;
	uint64_t pos;
	off_t at;

	/* Where the reader's buffer has got to: ahead of the events by a
	   buffer at most, which a percent does not see. */
	if ((at = lseek(p->fd, 0, SEEK_CUR)) < 0)
		return;
	pos = (uint64_t)at < p->size ? (uint64_t)at : p->size;
	if (pos <= p->pos0 || took <= 0)
		return;
	done = (double)(pos - p->pos0) / (double)(p->size - p->pos0);
	rate(r, sizeof(r), (double)p->events / took);
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

uint64_t
progress_tick(struct mt_progress *p)
{
	uint64_t now = mt_monotonic_ns();
	double every;

	p->events += p->every;
	every = (double)p->events * TICK / (double)(now - p->start + 1);
	p->every = every < EVERY_MIN ? EVERY_MIN : every > EVERY_MAX ? EVERY_MAX :
	    (uint64_t)every;
	if (now - first_start >= SHOW_AFTER && now - p->drawn >= REDRAW)
		draw(p, now);
	return p->every;
}

void
progress_free(struct mt_progress *p)
{
	if (p && p->drawn)
		mt_status_line(NULL);
	free(p);
}
