/* PCRE2 for the filters: compile or exit 2 with the reason; match. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>

#include "mt.h"

static pcre2_match_data *md;

struct mt_regex *
re_compile(const char *pattern)
{
	int err;
	PCRE2_SIZE off;
	PCRE2_UCHAR msg[256];
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0,
	    &err, &off, NULL);

	if (!re) {
		pcre2_get_error_message(err, msg, sizeof(msg));
		fprintf(stderr, "%s: bad regular expression '%s': %s at %zu\n",
		    mt_progname, pattern, (char *)msg, (size_t)off);
		exit(2);
	}
	if (!md)
		md = pcre2_match_data_create(4, NULL);
	return (struct mt_regex *)re;
}

int
re_match(const struct mt_regex *re, const char *s, size_t len)
{
	return pcre2_match((const pcre2_code *)re, (PCRE2_SPTR)s, len, 0, 0, md, NULL) >= 0;
}
