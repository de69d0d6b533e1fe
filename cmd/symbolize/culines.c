/*
 * culines: an address's line from the compilation unit whose ranges hold
 * it, found by walking the units' own DW_AT_ranges and low_pc/high_pc.
 * libdwfl finds a unit through .debug_aranges, which Go's linker does not
 * write: a Go program's frames had no file:line (runtime.mmap -), where
 * binutils' addr2line gives cgo_mmap.go:47.
 */
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>

#include "mt.h"
#include "symbolize.h"

struct cu_range {
	Dwarf_Addr lo, hi;
	Dwarf_Off die;
};

struct culines {
	Dwarf *dbg;
	Dwarf_Addr bias;
	struct cu_range *v;
	size_t n;
};

static int
by_lo(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static struct culines *
culines_build(Dwfl_Module *m)
{
	struct culines *c = ecalloc(1, sizeof(*c));
	Dwarf_Off off = 0, next;
	Dwarf_Addr base, lo, hi;
	size_t hsize, cap = 0;
	ptrdiff_t r;
	Dwarf_Die cu;

	if (!(c->dbg = dwfl_module_getdwarf(m, &c->bias)))
		return c;
	for (; dwarf_nextcu(c->dbg, off, &next, &hsize, NULL, NULL, NULL) == 0; off = next) {
		if (!dwarf_offdie(c->dbg, off + hsize, &cu))
			continue;
		for (r = 0; (r = dwarf_ranges(&cu, r, &base, &lo, &hi)) > 0;)
			if (hi > lo) {
				c->v = egrow(c->v, c->n, &cap, sizeof(*c->v));
				c->v[c->n++] = (struct cu_range){ lo, hi, off + hsize };
			}
	}
	if (c->n)
		qsort(c->v, c->n, sizeof(*c->v), by_lo);
	return c;
}

/* The file and line of module address a (with its unit's line table); NULL if none. */
const char *
culine(struct dso *d, Dwarf_Addr a, int *line)
{
	struct culines *c;
	size_t lo = 0, hi, i, k;
	Dwarf_Line *l;
	Dwarf_Die cu;

	if (!d->mod)
		return NULL;
	if (!d->culines)
		d->culines = culines_build(d->mod);
	c = d->culines;
	if (!c->dbg || a < c->bias)
		return NULL;
	a -= c->bias;
	for (hi = c->n; lo < hi;) {
		i = lo + (hi - lo) / 2;
		if (c->v[i].lo <= a)
			lo = i + 1;
		else
			hi = i;
	}
	/* Units' ranges do not nest; a few back for one that spans others. */
	for (k = lo; k-- > 0 && lo - k <= 8;) {
		if (a >= c->v[k].hi || !dwarf_offdie(c->dbg, c->v[k].die, &cu))
			continue;
		if ((l = dwarf_getsrc_die(&cu, a)) && dwarf_lineno(l, line) == 0 && *line > 0)
			return dwarf_linesrc(l, NULL, NULL);
	}
	return NULL;
}

void
culines_free(struct culines *c)
{
	if (c) {
		free(c->v);
		free(c);
	}
}
