/* A buffered writer onto a file descriptor; remembers the first error. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mt.h"

/* For mt_set_idle(): the buffer o written out. */
void
out_flush_idle(void *o)
{
	out_flush(o);
}

void
out_init(struct mt_out *o, int fd, size_t cap)
{
	struct stat st;

	/*
	 * Into a pipe, a buffer as large as ours: the next filter of a
	 * pipeline then wakes once a megabyte, not once every 64 KiB.
	 */
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode))
		(void)fcntl(fd, F_SETPIPE_SZ, (int)(cap < (1 << 20) ? cap : 1 << 20));
	o->fd = fd;
	o->error = 0;
	o->len = 0;
	o->cap = cap;
	o->buf = emalloc(cap);
	o->written = 0;
}

int
out_flush(struct mt_out *o)
{
	size_t n;

	if (o->len)
		mt_status_yield(o->fd);
	if (o->len && !o->error) {
		n = writeall(o->fd, o->buf, o->len);
		o->written += n;
		if (n < o->len)
			o->error = errno;
	}
	o->len = 0;
	return o->error;
}

/* out_reserve when the buffer is full: grown, or flushed; n may exceed its size. */
char *
out_make_room(struct mt_out *o, size_t n)
{
	if (o->fd < 0) {	/* a buffer only: it grows */
		o->cap = (o->len + n) * 2;
		o->buf = erealloc(o->buf, o->cap);
		return o->buf + o->len;
	}
	out_flush(o);
	if (o->cap < n) {
		o->cap = n;
		o->buf = erealloc(o->buf, n);
	}
	return o->buf + o->len;
}

void
out_write(struct mt_out *o, const void *p, size_t n)
{
	memcpy(out_reserve(o, n), p, n);
	o->len += n;
}

/* The last flush of standard output: 0, or 1 with the reason said. */
int
out_finish(struct mt_out *o)
{
	int error = out_flush(o);

	if (error)
		errno = error, mt_warn("stdout");
	out_free(o);
	return error != 0;
}

void
out_free(struct mt_out *o)
{
	free(o->buf);
	o->buf = NULL;
}
