/* lines: Lines read without an allocation a line. */
#ifndef MT_LINES_H
#define MT_LINES_H

#include <stddef.h>
#include <stdint.h>

/* lines.c: a line reader that does not allocate per line */
struct mt_lines {
	int fd;
	int eof;
	int error;
	int cut;		/* the line returned last had no newline */
	char *buf;
	size_t cap, start, end;
	uint64_t lineno;
};
void lines_init(struct mt_lines *l, int fd);
/* Next line, NUL-terminated without its newline, or NULL at the end. */
char *lines_next(struct mt_lines *l, size_t *len);
void lines_free(struct mt_lines *l);

#endif
