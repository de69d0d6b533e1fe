/*
 * PCRE2 for the filters: compile (or exit 2) with the reason; match.  A
 * match that fails with an error (a match limit hit, invalid UTF-8 under
 * (*UTF)) is no match, said once with the pattern, counted, and said
 * again at exit with the count; the exit status is then 1: --exclude
 * that silently did not exclude was a lie.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>

#include "mt.h"

struct re_errors {
	uint64_t n;
	int first;		/* the first error's code */
};

struct mt_regex {
	pcre2_code *code;
	char *pattern;
	struct re_errors *err;	/* counted through a const pattern */
	struct mt_regex *next;
};

static pcre2_match_data *md;
static struct mt_regex *all;

static void
say(const struct mt_regex *re, const char *what, uint64_t n)
{
	PCRE2_UCHAR msg[256];

	pcre2_get_error_message(re->err->first, msg, sizeof(msg));
	if (n)
		mt_note("regular expression '%s': %s in %llu %s, taken as no match",
		    re->pattern, (char *)msg, (unsigned long long)n,
		    n == 1 ? "subject" : "subjects");
	else
		mt_note("regular expression '%s': %s%s", re->pattern, (char *)msg, what);
}

static void
say_counts(void)
{
	const struct mt_regex *re;

	for (re = all; re; re = re->next)
		if (re->err->n > 1)
			say(re, "", re->err->n);
}

struct mt_regex *
re_compile_at(const char *pattern, const char *file, uint64_t line)
{
	int err;
	PCRE2_SIZE off;
	PCRE2_UCHAR msg[256];
	pcre2_code *code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0,
	    &err, &off, NULL);
	struct mt_regex *re;

	if (!code) {
		pcre2_get_error_message(err, msg, sizeof(msg));
		if (file)
			mt_note("%s:%llu: bad regular expression '%s': %s at %zu",
			    file, (unsigned long long)line, pattern, (char *)msg, (size_t)off);
		else
			mt_note("bad regular expression '%s': %s at %zu",
			    pattern, (char *)msg, (size_t)off);
		return NULL;
	}
	if (!md) {
		md = pcre2_match_data_create(4, NULL);
		atexit(say_counts);
	}
	re = ecalloc(1, sizeof(*re));
	re->code = code;
	re->pattern = estrdup(pattern);
	re->err = ecalloc(1, sizeof(*re->err));
	re->next = all;
	all = re;
	return re;
}

struct mt_regex *
re_compile(const char *pattern)
{
	struct mt_regex *re = re_compile_at(pattern, NULL, 0);

	if (!re)
		exit(2);
	return re;
}

int
re_match(const struct mt_regex *re, const char *s, size_t len)
{
	int rc = pcre2_match(re->code, (PCRE2_SPTR)s, len, 0, 0, md, NULL);

	if (rc >= 0)
		return 1;
	if (rc != PCRE2_ERROR_NOMATCH) {
		if (re->err->n++ == 0) {
			re->err->first = rc;
			say(re, ": taken as no match (the count at the end)", 0);
		}
		mt_status = 1;
	}
	return 0;
}
