/* proto: the protobuf encoder of pprof profiles (proto.h says how). */
#include <string.h>

#include "mt.h"
#include "proto.h"

void
pb_put(struct pbuf *p, const void *s, size_t n)
{
	if (p->cap - p->n < n) {
		p->cap = (p->n + n) * 2;
		p->b = erealloc(p->b, p->cap);
	}
	if (n)
		memcpy(p->b + p->n, s, n);
	p->n += n;
}

void
pb_varint(struct pbuf *p, uint64_t v)
{
	uint8_t b[10];

	pb_put(p, b, varint_put(b, v));
}

/* A varint field; zero, the default, is not written. */
void
pb_uint(struct pbuf *p, unsigned field, uint64_t v)
{
	if (!v)
		return;
	pb_varint(p, field << 3 | WIRE_VARINT);
	pb_varint(p, v);
}

void
pb_bytes(struct pbuf *p, unsigned field, const void *s, size_t n)
{
	pb_varint(p, field << 3 | WIRE_LEN);
	pb_varint(p, n);
	pb_put(p, s, n);
}

/* A submessage built in sub, written into p and sub emptied for the next. */
void
pb_message(struct pbuf *p, unsigned field, struct pbuf *sub)
{
	pb_bytes(p, field, sub->b, sub->n);
	sub->n = 0;
}
