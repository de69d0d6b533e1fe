/* out: A buffered writer onto a file descriptor. */
#ifndef MT_OUT_H
#define MT_OUT_H

#include <stddef.h>
#include <stdint.h>

/* out.c: a buffered writer onto a file descriptor */
struct mt_out {
	int fd;
	int error;		/* errno of the first failed write */
	size_t len, cap;
	char *buf;
	uint64_t written;
};
void out_init(struct mt_out *o, int fd, size_t cap);	/* fd < 0: a buffer that grows */
void out_write(struct mt_out *o, const void *p, size_t n);
int out_flush(struct mt_out *o);
int out_finish(struct mt_out *o);	/* flush, say why not, free: 0 or 1 */
void out_free(struct mt_out *o);
void out_flush_idle(void *o);	/* out_flush, for mt_set_idle */

char *out_make_room(struct mt_out *o, size_t n);

/* Room for n bytes at the end, written then kept by out_commit: inline,
   for every record of every filter goes through them. */
static inline char *
out_reserve(struct mt_out *o, size_t n)
{
	if (o->cap - o->len < n)
		return out_make_room(o, n);
	return o->buf + o->len;
}

static inline void
out_commit(struct mt_out *o, size_t n)
{
	o->len += n;
}

#endif
