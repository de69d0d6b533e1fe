/* json: JSON strings. */
#ifndef MT_JSON_H
#define MT_JSON_H

#include <stddef.h>
#include "out.h"

/* json.c */
size_t utf8_len(const unsigned char *s, size_t n);	/* 0: not a UTF-8 sequence */
void json_string(struct mt_out *o, const char *s, size_t n);

#endif
