/*
 * mt-pooldiff's tags and snapshots: a tag's counters in the latest
 * snapshot and the one before, its Bytes where they changed; times as a
 * log writes and reads them; the messages every reader shares.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pooldiff.h"

struct tag **tags;
size_t ntags;
struct snap *snaps;
size_t nsnaps;
int trouble;
struct mt_sat sat[SAT_NCOLUMNS] = {
	{ .column = "Allocs" }, { .column = "Frees" }, { .column = "Diff" },
	{ .column = "Bytes" }, { .column = "PerAlloc" }, { .column = "Growth" },
	{ .column = "PerHour" }, { .column = "the suppressed bytes" }
};
static struct u64map tags_by_hash;
static size_t tagcap, snapcap;

void
say_saturated(void)
{
	int c;

	for (c = 0; c < SAT_NCOLUMNS; c++)
		sat_say(&sat[c]);
}

struct tag *
tag_get(const char *name, size_t nlen, const char *type, size_t tlen)
{
	uint64_t h = hash_bytes(name, nlen) * 31 ^ hash_bytes(type, tlen);
	struct tag *t, **head;
	void **v;
	size_t i;

	v = u64map_get(&tags_by_hash, h | 1, 1);
	head = (struct tag **)v;
	for (t = *head; t; t = t->next)
		if (strlen(t->name) == nlen && !memcmp(t->name, name, nlen) &&
		    strlen(t->type) == tlen && !memcmp(t->type, type, tlen))
			return t;
	t = ecalloc(1, sizeof(*t));
	t->name = estrndup(name, nlen);
	t->type = estrndup(type, tlen);
	for (i = 0; i < NCOUNTERS; i++)
		t->cur[i] = t->prev[i] = NONE_W;
	t->next = *head;
	*head = t;
	tags = egrow(tags, ntags, &tagcap, sizeof(*tags));
	tags[ntags++] = t;
	return t;
}

/* A tag as a log writes it: blanks and backslashes as octal escapes. */
char *
tag_escape(const char *s, size_t n, char *buf, size_t size)
{
	size_t i, j = 0;

	for (i = 0; i < n && j + 5 < size; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c <= ' ' || c == '\\' || c == 0x7f)
			j += (size_t)snprintf(buf + j, size - j, "\\%03o", c);
		else
			buf[j++] = (char)c;
	}
	if (j == 0)
		buf[j++] = '-';
	buf[j] = '\0';
	return buf;
}

/* t's Bytes in snapshot snap, the latest: kept only when they changed. */
static void
bytes_set(struct tag *t, size_t snap, int64_t bytes)
{
	if (t->nat && t->at[t->nat - 1].snap == snap) {
		t->at[t->nat - 1].bytes = bytes;
		if (t->nat > 1 ? t->at[t->nat - 2].bytes == bytes : bytes == 0)
			t->nat--;
		return;
	}
	if (t->nat ? t->at[t->nat - 1].bytes == bytes : bytes == 0)
		return;
	/* Room for 2 first: a million tags that change once are common. */
	if (t->nat == t->atcap) {
		t->atcap = t->atcap ? 2 * t->atcap : 2;
		t->at = erealloc(t->at, t->atcap * sizeof(*t->at));
	}
	t->at[t->nat++] = (struct at){ snap, bytes };
}

void
snapshot_begin(int64_t t, const char *host)
{
	size_t i;

	for (i = 0; i < ntags; i++) {
		memcpy(tags[i]->prev, tags[i]->cur, sizeof(tags[i]->cur));
		tags[i]->in_prev = tags[i]->in_cur;
		tags[i]->in_cur = 0;
		/* Absent from the snapshot before: 0 there. */
		if (!tags[i]->in_prev && nsnaps)
			bytes_set(tags[i], nsnaps - 1, 0);
	}
	if (!host)
		host = "-";
	snaps = egrow(snaps, nsnaps, &snapcap, sizeof(*snaps));
	snaps[nsnaps].t = t;
	/* The host of the snapshot before, shared: a stream cut finely
	   would make a copy of one name a snapshot. */
	snaps[nsnaps].host = nsnaps && !strcmp(snaps[nsnaps - 1].host, host) ?
	    snaps[nsnaps - 1].host : estrdup(host);
	nsnaps++;
}

void
snapshot_row(struct tag *t, const mt_wide c[NCOUNTERS])
{
	size_t n = nsnaps;

	memcpy(t->cur, c, sizeof(t->cur));
	t->in_cur = 1;
	if (n == 1) {
		memcpy(t->first, c, sizeof(t->first));
		t->in_first = 1;
	}
	bytes_set(t, n - 1, c[C_BYTES] == NONE_W ? 0 : sat_narrow(c[C_BYTES], &t->clamped));
}

/* Bytes of t in snapshot i (0 where the tag was absent). */
int64_t
bytes_at(const struct tag *t, size_t i)
{
	size_t a = 0, z = t->nat, m;

	/* The last change at or before i. */
	while (a < z) {
		m = (a + z) / 2;
		if (t->at[m].snap <= i)
			a = m + 1;
		else
			z = m;
	}
	if (a == 0)
		return 0;
	/* Absent from the last snapshot: its row never came. */
	if (i == nsnaps - 1 && !t->in_cur)
		return 0;
	return t->at[a - 1].bytes;
}

void
time_label(int64_t t, char *buf, size_t size)
{
	struct tm tm;
	time_t s;
	size_t n;

	if (trace_start == NONE && saw_events && !saw_log) {
		mt_seconds((uint64_t)t, 3, "s", buf, size);
		return;
	}
	s = (time_t)(t / 1000000000);
	gmtime_r(&s, &tm);
	n = strftime(buf, size, "%Y-%m-%dT%H:%M:%S", &tm);
	if (t % 1000000000)
		n += (size_t)snprintf(buf + n, size - n, ".%03d", (int)(t % 1000000000 / 1000000));
	snprintf(buf + n, size - n, "Z");
}

/* "2026-11-22T01:10:00Z" (seconds may have a fraction) or "@EPOCH". */
int
parse_time(const char *s, int64_t *t)
{
	struct tm tm;
	const char *p;
	char *end;
	long long v;
	int64_t frac = 0, scale = 100000000;

	if (*s == '@') {
		errno = 0;
		v = strtoll(s + 1, &end, 10);
		/* Nanoseconds since 1970 in 63 bits: to 2262. */
		if (errno || *end || end == s + 1 || v < 0 || v > INT64_MAX / 1000000000 - 1)
			return -1;
		*t = (int64_t)v * 1000000000;
		return 0;
	}
	memset(&tm, 0, sizeof(tm));
	if (!(p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm)))
		return -1;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++, scale /= 10)
			frac += (*p - '0') * scale;
	if (strcmp(p, "Z"))
		return -1;
	v = (long long)timegm(&tm);
	if (v < 0 || v > INT64_MAX / 1000000000 - 1)
		return -1;
	*t = (int64_t)v * 1000000000 + frac;
	return 0;
}

int
parse_i64(const char *s, int64_t *v)
{
	char *end;
	long long x;

	errno = 0;
	x = strtoll(s, &end, 10);
	/* -2^63 stands for '-' here: not a count. */
	if (errno || end == s || *end || x == INT64_MIN)
		return -1;
	*v = x;
	return 0;
}

void
bad_line(const char *file, uint64_t line, const char *what, const char *tok)
{
	mt_warn_at(file, line, what, tok, strlen(tok));
	trouble = 1;
}
