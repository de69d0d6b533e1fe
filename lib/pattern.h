/* pattern: Regular expressions for the filters. */
#ifndef MT_PATTERN_H
#define MT_PATTERN_H

#include <stddef.h>
#include <stdint.h>

/* pattern.c: PCRE2 patterns for the filters (programs link libpcre2-8) */
struct mt_regex;
struct mt_regex *re_compile(const char *pattern);	/* exits 2 when bad */
/* A pattern read from file:line (file NULL: none): NULL when bad, said. */
struct mt_regex *re_compile_at(const char *pattern, const char *file, uint64_t line);
int re_match(const struct mt_regex *re, const char *s, size_t len);

#endif
