/*
 * fieldrun.c: records of 64-bit fields as their changes, zigzag and
 * varint, in blocks of a length and the bytes (fieldrun.h).  Some 20
 * bytes a pairer's record where zstd on whole records took half the time
 * of pairing past the budget.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mt.h"
#include "fieldrun.h"

static void
fresh(struct fieldrun *f, int fd, off_t pos)
{
	f->fd = fd;
	if (!f->raw)
		f->raw = emalloc(FIELDRUN_BLOCK);
	f->len = f->at = 0;
	f->pos = pos;
	memset(f->prev, 0, sizeof(f->prev));
}

void
fieldrun_write(struct fieldrun *f, int fd, off_t pos)
{
	fresh(f, fd, pos);
	f->end = -1;
}

int
fieldrun_flush(struct fieldrun *f)
{
	uint32_t len = (uint32_t)f->len;

	if (!f->len)
		return 0;
	errno = 0;
	if (pwrite(f->fd, &len, sizeof(len), f->pos) != (ssize_t)sizeof(len) ||
	    pwrite(f->fd, f->raw, f->len, f->pos + (off_t)sizeof(len)) != (ssize_t)f->len) {
		if (errno == 0)
			errno = EIO;
		return -1;
	}
	f->pos += (off_t)(sizeof(len) + f->len);
	f->len = 0;
	return 0;
}

int
fieldrun_put(struct fieldrun *f, const uint64_t *v, int n)
{
	uint64_t z;
	int i;

	if (f->len + (size_t)n * 10 > FIELDRUN_BLOCK && fieldrun_flush(f))
		return -1;
	for (i = 0; i < n; i++) {
		int64_t d = (int64_t)(v[i] - f->prev[i]);
		f->prev[i] = v[i];
		z = (uint64_t)d << 1 ^ (uint64_t)(d >> 63);
		while (z >= 0x80) {
			f->raw[f->len++] = (uint8_t)(z | 0x80);
			z >>= 7;
		}
		f->raw[f->len++] = (uint8_t)z;
	}
	return 0;
}

void
fieldrun_read(struct fieldrun *f, int fd, off_t from, off_t to)
{
	fresh(f, fd, from);
	f->end = to;
}

/* The next block, at f->pos: 1, 0 at the end, -1. */
static int
next_block(struct fieldrun *f)
{
	uint32_t len;
	ssize_t got;

	if (f->end >= 0 && f->pos >= f->end)
		return 0;
	got = pread(f->fd, &len, sizeof(len), f->pos);
	if (got == 0)
		return 0;
	if (got != (ssize_t)sizeof(len) || len == 0 || len > FIELDRUN_BLOCK ||
	    pread(f->fd, f->raw, len, f->pos + (off_t)sizeof(len)) != (ssize_t)len) {
		errno = got < 0 ? errno : EIO;
		return -1;
	}
	f->pos += (off_t)(sizeof(len) + len);
	f->len = len;
	f->at = 0;
	return 1;
}

int
fieldrun_get(struct fieldrun *f, uint64_t *v, int n)
{
	unsigned shift;
	uint64_t z;
	int i, k;

	if (f->at >= f->len && (k = next_block(f)) <= 0)
		return k;
	for (i = 0; i < n; i++) {
		z = 0;
		shift = 0;
		do {
			if (f->at >= f->len || shift > 63) {
				errno = EIO;
				return -1;
			}
			z |= (uint64_t)(f->raw[f->at] & 0x7f) << shift;
			shift += 7;
		} while (f->raw[f->at++] & 0x80);
		f->prev[i] += (z >> 1) ^ -(z & 1);
		v[i] = f->prev[i];
	}
	return 1;
}

void
fieldrun_free(struct fieldrun *f)
{
	free(f->raw);
	f->raw = NULL;
}
