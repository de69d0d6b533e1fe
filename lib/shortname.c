/*
 * shortname: a function's name as a table shows it to a person: template
 * arguments collapsed, and a name too long for its column cut where it
 * stays recognisable, keeping the end of a qualified name.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "mt.h"

/*
 * C++ template arguments collapsed, as heaptrack shows them:
 * std::vector<>::_M_realloc_insert<>(...); operator<, <<, <=, <=> and ->
 * kept.  A Rust path that begins with one, <alloc::vec::Vec<T> as
 * Trait<U>>::f, keeps that outer pair, else all of it would be "<>".
 * Unbalanced brackets: the name as it is.
 */
char *
name_shortened(const char *s)
{
	size_t n = strlen(s), i, j = 0, depth = 0;
	int outer = s[0] == '<';	/* the Rust path's outer pair open */
	char *r = emalloc(n + 1);

	for (i = 0; i < n; i++) {
		if (!depth && !strncmp(s + i, "operator", 8)) {
			memcpy(r + j, s + i, 8);
			j += 8;
			for (i += 8; i < n && strchr("<>=-", s[i]); i++)
				r[j++] = s[i];
			i--;
			continue;
		}
		if (i == 0 && outer) {
			r[j++] = '<';
		} else if (s[i] == '<') {
			if (!depth++)
				r[j++] = '<';
		} else if (s[i] == '>' && depth) {
			if (!--depth)
				r[j++] = '>';
		} else if (s[i] == '>' && outer) {
			r[j++] = '>';
			outer = 0;
		} else if (!depth) {
			r[j++] = s[i];
		}
	}
	if (depth || outer) {
		free(r);
		return estrdup(s);
	}
	r[j] = '\0';
	return r;
}

/* s in w bytes into out: its start and end, "..." between, cut at UTF-8
   characters. */
void
name_middle_cut(const char *s, size_t w, char *out)
{
	size_t n = strlen(s), head = (w - 3) / 2, tail = n - (w - 3 - head);

	while (head > 0 && ((unsigned char)s[head] & 0xc0) == 0x80)
		head--;
	while (tail < n && ((unsigned char)s[tail] & 0xc0) == 0x80)
		tail++;
	sprintf(out, "%.*s...%s", (int)head, s, s + tail);
}

/*
 * The components of a qualified name, split at its "::" outside
 * brackets (a Rust path's leading '<' does not count) but for a generic's
 * or a closure's, and where its parameters begin (the last '(' outside
 * them), or its end.
 */
static size_t
components(const char *s, const char **c, size_t max, const char **params)
{
	size_t n = 0, depth = 0;
	const char *p;

	*params = s + strlen(s);
	c[n++] = s;
	for (p = s + (*s == '<'); *p; p++) {
		if (*p == '<' || *p == '(' || *p == '[')
			depth += !(*p == '<' && p > s && p[-1] == '<');
		if (*p == '(' && depth == 1)
			*params = p;
		if ((*p == '>' || *p == ')' || *p == ']') && depth)
			depth--;
		/* "::<T>" and "::{closure#0}" belong to the name before */
		if (!depth && p[0] == ':' && p[1] == ':' && p[2] != '<' && p[2] != '{' && n < max)
			c[n++] = p + 2;
	}
	while (n > 1 && c[n - 1] > *params)
		n--;
	return n;
}

/*
 * s cut to w bytes, into a string of ours: a qualified name keeps its
 * last component whole, the components before it that fit, then the
 * first ones, "..." for those left out (alloc::raw_vec::...::grow_amortized);
 * its parameters, if that is not enough, as "(...)"; when its last
 * component alone does not fit, that component's end.  A name of one
 * component has its start and end kept, "..." between.
 */
char *
name_cut(const char *s, size_t w)
{
	const char *c[64], *params, *end;
	size_t n = strlen(s), k, a, b, len, plen;
	char *out = emalloc(n + 32), *p;	/* "(...)", "...::": never past n + 10 */

	if (n <= w || w < 8) {
		memcpy(out, s, n + 1);
		return out;
	}
	k = components(s, c, sizeof(c) / sizeof(*c), &params);
	plen = *params ? 5 : 0;	/* "(...)" */
	end = params;
	/* The last component alone, then more from the end, then from the start. */
	len = (size_t)(end - c[k - 1]) + plen + (k > 1 ? 5 : 0);
	if (k < 2) {
		name_middle_cut(s, w, out);
		return out;
	}
	if (len > w) {
		/* the last component's end: the start of a method's name is
		   its type's, said again */
		const char *t = end - c[k - 1] > (ptrdiff_t)(w - 3 - plen) ?
		    end - (w - 3 - plen) : c[k - 1];
		while (t < end && ((unsigned char)*t & 0xc0) == 0x80)
			t++;
		sprintf(out, "...%.*s%s", (int)(end - t), t, plen ? "(...)" : "");
		return out;
	}
	a = 0;
	b = k - 1;
	while (b > a && len + (size_t)(c[b] - c[b - 1]) <= w)
		len += (size_t)(c[b] - c[b - 1]), b--;
	/* "<T as Trait>::f" cut inside its brackets would not balance */
	while (*s != '<' && a < b && len + (size_t)(c[a + 1] - c[a]) <= w)
		len += (size_t)(c[a + 1] - c[a]), a++;
	if (a < b && (size_t)(end - s) + plen <= w)
		a = b;	/* all but the parameters: no "..." to write */
	p = out;
	if (a == b)
		p += sprintf(p, "%.*s", (int)(end - s), s);
	else
		p += sprintf(p, "%.*s...::%.*s", (int)(c[a] - s), s, (int)(end - c[b]), c[b]);
	if (*params)
		p += sprintf(p, "(...)");
	if ((size_t)(p - out) > w)
		name_middle_cut(s, w, out);
	return out;
}
