/*
 * fieldrun: records of a few 64-bit fields in a temporary file, each
 * field written as its change from the record before (zigzag, varint),
 * in blocks: what the pairer past its budget and mt-window --series past
 * its changes kept write and read back in order.
 */
#ifndef MT_FIELDRUN_H
#define MT_FIELDRUN_H

#include <stdint.h>
#include <sys/types.h>

#define FIELDS_MAX 13
#define FIELDRUN_BLOCK (64 << 10)	/* bytes a block */

struct fieldrun {
	int fd;
	uint8_t *raw;
	size_t len, at;		/* held; read: the next record */
	off_t pos, end;		/* where the next block goes or comes from; read: the end */
	uint64_t prev[FIELDS_MAX];
};

/* Each returns -1 (errno; EIO for a block that is not one) on an error. */
/* Records written at pos of fd, to be read back from there. */
void fieldrun_write(struct fieldrun *f, int fd, off_t pos);
int fieldrun_put(struct fieldrun *f, const uint64_t *v, int n);
int fieldrun_flush(struct fieldrun *f);	/* then f->pos: the end of what is written */
/* Records of fd in [from, to) to be read; to < 0: to the end of the file. */
void fieldrun_read(struct fieldrun *f, int fd, off_t from, off_t to);
int fieldrun_get(struct fieldrun *f, uint64_t *v, int n);	/* 1, 0 at the end, -1 */
void fieldrun_free(struct fieldrun *f);	/* its buffer; the file stays */

#endif
