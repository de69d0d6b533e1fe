/*
 * json.c: a JSON string: quotes, backslashes and control characters
 * escaped; a byte that is not part of valid UTF-8 written as the text
 * \xNN (our rule), which strict decoders take.  "</" as "<\/", so that
 * the string may stand inside an HTML script element.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "mt.h"

/* The length of the UTF-8 sequence at s (of n bytes), or 0 if it is not one. */
size_t
utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t c;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, c = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	/* No overlong forms, no surrogates, nothing past U+10FFFF. */
	if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return len;
}

void
json_string(struct mt_out *o, const char *s, size_t n)
{
	size_t i, len;
	char *p;

	out_write(o, "\"", 1);
	for (i = 0; i < n; i += len) {
		unsigned char c = (unsigned char)s[i];

		len = 1;
		p = out_reserve(o, 8);
		if (c == '"' || c == '\\')
			out_commit(o, (size_t)sprintf(p, "\\%c", c));
		else if (c < 0x20 || c == 0x7f)
			out_commit(o, (size_t)sprintf(p, "\\u%04x", c));
		else if (c == '/' && i && s[i - 1] == '<')
			out_commit(o, (size_t)sprintf(p, "\\/"));
		else if (!(len = utf8_len((const unsigned char *)s + i, n - i)))
			out_commit(o, (size_t)sprintf(p, "\\\\x%02x", c)), len = 1;
		else
			out_write(o, s + i, len);
	}
	out_write(o, "\"", 1);
}
