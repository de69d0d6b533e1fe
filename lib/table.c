/*
 * An aligned text table for people: cells gathered first, each column as
 * wide as its widest cell (in characters, not bytes), a column that is
 * allowed to give way cut in its middle with "..." so that its start and
 * end stay recognisable, and the columns after it stay in line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mt.h"

struct mt_table {
	size_t ncols, nrows, cap;
	char **cell;		/* nrows * ncols */
	struct col {
		int left, hidden;
		size_t gap;	/* blanks before it */
		size_t width, min;	/* min: may give way to it (0: never) */
	} *col;
};

/* The characters of s: UTF-8 continuation bytes take no column. */
static size_t
chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

struct mt_table *
table_new(size_t ncols)
{
	struct mt_table *t = ecalloc(1, sizeof(*t));
	size_t c;

	t->ncols = ncols;
	t->col = ecalloc(ncols, sizeof(*t->col));
	for (c = 0; c < ncols; c++)
		t->col[c].gap = c ? 1 : 0;
	return t;
}

void
table_column(struct mt_table *t, size_t c, int left, size_t gap, size_t min)
{
	t->col[c].left = left;
	t->col[c].gap = c ? gap : 0;
	t->col[c].min = min;
}

void
table_hide(struct mt_table *t, size_t c)
{
	t->col[c].hidden = 1;
}

void
table_row(struct mt_table *t, const char *const cells[])
{
	size_t c;

	t->cell = egrow(t->cell, t->nrows * t->ncols, &t->cap, t->ncols * sizeof(*t->cell));
	for (c = 0; c < t->ncols; c++)
		t->cell[t->nrows * t->ncols + c] = estrdup(cells[c] ? cells[c] : "");
	t->nrows++;
}

/* s in w columns: a longer one keeps its start and end, "..." between. */
static void
put(FILE *f, const char *s, size_t w, int left, int last)
{
	size_t n = chars(s), head, tail, i, b;

	if (n <= w) {
		if (!left)
			fprintf(f, "%*s", (int)(w - n), "");
		fputs(s, f);
		if (left && !last)
			fprintf(f, "%*s", (int)(w - n), "");
		return;
	}
	head = (w - 3) / 2;
	tail = n - (w - 3 - head);
	for (i = b = 0; s[b] && i < head; b++)	/* bytes of the head */
		i += ((unsigned char)s[b + 1] & 0xc0) != 0x80;
	fprintf(f, "%.*s...", (int)b, s);
	for (i = 0, b = 0; s[b] && i < tail; b++)
		i += ((unsigned char)s[b + 1] & 0xc0) != 0x80;
	fputs(s + b, f);
}

/*
 * The table, the columns that may give way narrowed (down to their
 * minimum), the rightmost first, until a line fits in width characters;
 * then freed.
 */
void
table_print(struct mt_table *t, FILE *f, size_t width)
{
	size_t r, c, n, total, last = 0;

	for (c = 0; c < t->ncols; c++) {
		t->col[c].width = 0;
		for (r = 0; r < t->nrows; r++)
			if ((n = chars(t->cell[r * t->ncols + c])) > t->col[c].width)
				t->col[c].width = n;
		if (!t->col[c].hidden)
			last = c;
	}
	for (total = 0, c = 0; c < t->ncols; c++)
		if (!t->col[c].hidden)
			total += t->col[c].gap + t->col[c].width;
	/* The rightmost gives way first: the first column says what a row is. */
	for (c = t->ncols; c-- > 0 && total > width;)
		if (!t->col[c].hidden && t->col[c].min && t->col[c].width > t->col[c].min) {
			n = t->col[c].width - t->col[c].min;
			if (n > total - width)
				n = total - width;
			t->col[c].width -= n;
			total -= n;
		}
	for (r = 0; r < t->nrows; r++) {
		for (c = 0; c < t->ncols; c++) {
			if (t->col[c].hidden)
				continue;
			fprintf(f, "%*s", (int)(c ? t->col[c].gap : 0), "");
			put(f, t->cell[r * t->ncols + c], t->col[c].width, t->col[c].left, c == last);
		}
		fputc('\n', f);
	}
	for (r = 0; r < t->nrows * t->ncols; r++)
		free(t->cell[r]);
	free(t->cell);
	free(t->col);
	free(t);
}
