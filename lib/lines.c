/* Reads lines in place from a large buffer: no allocation per line. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mt.h"

#define LINES_BUFSIZE (1 << 20)

void
lines_init(struct mt_lines *l, int fd)
{
	memset(l, 0, sizeof(*l));
	l->fd = fd;
	l->cap = LINES_BUFSIZE;
	l->buf = emalloc(l->cap + 1);
}

/* Moves the unread tail to the front and reads more; 0 when nothing came. */
static size_t
lines_fill(struct mt_lines *l)
{
	ssize_t n;

	if (l->start > 0) {
		memmove(l->buf, l->buf + l->start, l->end - l->start);
		l->end -= l->start;
		l->start = 0;
	}
	if (l->end == l->cap) {
		l->cap *= 2;
		l->buf = erealloc(l->buf, l->cap + 1);
	}
	if ((n = mt_read_input(l->fd, l->buf + l->end, l->cap - l->end)) < 0) {
		l->error = errno;
		n = 0;
	}
	if (n == 0)
		l->eof = 1;
	l->end += (size_t)n;
	return (size_t)n;
}

char *
lines_next(struct mt_lines *l, size_t *len)
{
	char *line, *nl;
	size_t scanned = 0;

	for (;;) {
		line = l->buf + l->start;
		nl = memchr(line + scanned, '\n', l->end - l->start - scanned);
		if (nl)
			break;
		scanned = l->end - l->start;
		if (l->eof || lines_fill(l) == 0) {
			if (l->end == l->start)
				return NULL;
			/* A last line without its newline: the reader says so. */
			line = l->buf + l->start;
			nl = l->buf + l->end;
			l->cut = 1;
			break;
		}
	}
	*nl = '\0';
	*len = (size_t)(nl - line);
	l->start = (size_t)(nl - l->buf) + (nl < l->buf + l->end ? 1 : 0);
	l->lineno++;
	return line;
}

void
lines_free(struct mt_lines *l)
{
	free(l->buf);
	l->buf = NULL;
}
