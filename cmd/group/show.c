/*
 * How mt-group shows its groups: sums narrowed or for people, names for
 * a terminal or shortened, cells cut to a width, the order of rows, and
 * the pieces of TSV and JSON every view shares.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "group.h"

struct mt_sat sat[SAT_NCOLUMNS] = {
	{ .column = "Count" }, { .column = "Size" }, { .column = "Impacting Size" },
	{ .column = "the change of Count" }, { .column = "the change of Size" },
	{ .column = "the change of Impacting Size" }, { .column = "the suppressed bytes" },
	/* pprof's sample types, in their order */
	{ .column = "alloc_objects" }, { .column = "alloc_space" },
	{ .column = "inuse_objects" }, { .column = "inuse_space" }
};

int64_t
sum_shown(mt_wide v, int column)
{
	return sat_narrow(v, &sat[column].hit);
}

const char *
sum_human(mt_wide v, int column, char *buf, size_t n)
{
	return sat_human(v, &sat[column].hit, buf, n);
}

void
say_saturated(void)
{
	int c;

	for (c = 0; c < SAT_NCOLUMNS; c++)
		sat_say(&sat[c]);
}

/* Biggest first by the --sort key (impact: then size); then by name. */
int
sums_cmp(const struct group_opts *o, const struct sums *x, const char *xname, const struct sums *y,
    const char *yname)
{
	switch (o->sort_by) {
	case S_KEY:	/* the keys in order, numbers by value: a histogram */
		return strverscmp(xname, yname);
	case S_COUNT:
		if (x->count != y->count)
			return x->count < y->count ? 1 : -1;
		break;
	case S_IMPACT:
		if (x->impact != y->impact)
			return x->impact < y->impact ? 1 : -1;
		/* FALLTHROUGH */
	case S_SIZE:
		if (x->size != y->size)
			return x->size < y->size ? 1 : -1;
		break;
	}
	return strcmp(xname, yname);
}

/* A JSON string (lib/json.c) on standard output, through one buffer. */
void
json_str(const char *s, size_t n)
{
	static struct mt_out o;

	if (!o.buf)
		out_init(&o, -1, 256);
	o.len = 0;
	json_string(&o, s, n);
	fwrite(o.buf, 1, o.len, stdout);
}

/* A name for a terminal: control characters as \xNN, never sent raw. */
char *
ctl_shown(const char *s)
{
	size_t i, j = 0, n = strlen(s);
	char *e = emalloc(4 * n + 1);

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f)
			j += (size_t)sprintf(e + j, "\\x%02x", c);
		else
			e[j++] = (char)c;
	}
	e[j] = '\0';
	return e;
}

/* A name as the output shows it: shortened (--shorten), and for a
   terminal's table its control characters escaped. */
char *
shown_name(const struct group_opts *o, const char *s)
{
	char *a, *b;

	if (!(o->shorten == 1 || (o->shorten < 0 && o->format == F_TABLE)))
		return o->format == F_TABLE ? ctl_shown(s) : estrdup(s);
	a = name_shortened(s);
	if (o->format != F_TABLE)
		return a;
	b = ctl_shown(a);
	free(a);
	return b;
}

/*
 * s in w columns: a longer name cut where it stays recognisable
 * (name_cut), a longer stack keeping its start and end, "..." between.
 */
void
put_cell(const char *s, size_t w, int name)
{
	char *c = name_cut(s, w);

	if (!name && strlen(c) < strlen(s))
		name_middle_cut(s, w, c);
	printf("%-*s", (int)w, c);
	free(c);
}

/* The key's fields, in place: pointers into a copy. */
size_t
split(char *s, char **f, size_t max)
{
	size_t n = 0;

	for (;;) {
		if (n < max)
			f[n++] = s;
		s = strchr(s, '\t');
		if (!s)
			return n;
		*s++ = '\0';
	}
}

/* The groups sorted, then as many as --top keeps. */
size_t
sort_top(const struct group_opts *o, struct group **v, size_t n,
    int (*cmp)(const void *, const void *, void *))
{
	if (n)
		qsort_r(v, n, sizeof(*v), cmp, (void *)(uintptr_t)o);
	return o->top >= 0 && (size_t)o->top < n ? (size_t)o->top : n;
}

/* TSV's header: the keys, then the columns named in tail. */
void
tsv_header(const struct group_opts *o, const char *tail)
{
	size_t k;

	for (k = 0; k < o->nkeys; k++)
		printf("%s\t", key_names[o->keys[k]]);
	printf("%s\n", tail);
}

/* A JSON object's key members, from a group's key fields. */
void
json_keys(const struct group_opts *o, char **f)
{
	size_t k;

	for (k = 0; k < o->nkeys; k++) {
		char *e = shown_name(o, f[k]);
		json_str(key_names[o->keys[k]], strlen(key_names[o->keys[k]]));
		printf(": ");
		json_str(e, strlen(e));
		printf(", ");
		free(e);
	}
}

/*
 * Per Alloc, PoolMon's: Size / Count, rounded down.  Past 2^63-1 only
 * when Size is, which is said.
 */
int64_t
per_alloc(const struct sums *s)
{
	mt_wide v = s->count ? s->size / s->count : 0;

	return v > SAT_MAX ? SAT_MAX : v < -SAT_MAX ? -SAT_MAX : (int64_t)v;
}
