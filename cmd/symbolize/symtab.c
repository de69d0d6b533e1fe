/*
 * symtab: a module's function symbols, sorted once by address and
 * searched by bisection, as perf and heaptrack do.  libdwfl's own
 * address-to-name lookup walks every symbol of the module for each
 * address: on a compiler (cc1plus, some 31,000 symbols) most of
 * mt-symbolize's time.
 */
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "mt.h"
#include "symbolize.h"

struct fsym {
	uint64_t lo, size;
	const char *name;	/* libdwfl's, valid while the module is */
	int global;
};

struct symtab {
	struct fsym *v;
	size_t n;
};

static int
by_address(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	/* At one address: the sized, then the global, name first. */
	if ((x->size != 0) != (y->size != 0))
		return x->size ? -1 : 1;
	return y->global - x->global;
}

static struct symtab *
symtab_build(Dwfl_Module *m)
{
	struct symtab *t = ecalloc(1, sizeof(*t));
	int i, n = dwfl_module_getsymtab(m), type;
	size_t cap = 0;
	const char *name;
	GElf_Addr addr;
	GElf_Word shndx;
	GElf_Sym sym;

	for (i = 1; i < n; i++) {
		name = dwfl_module_getsym_info(m, i, &sym, &addr, &shndx, NULL, NULL);
		type = GELF_ST_TYPE(sym.st_info);
		if (!name || !*name || sym.st_shndx == SHN_UNDEF ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC))
			continue;
		t->v = egrow(t->v, t->n, &cap, sizeof(*t->v));
		t->v[t->n++] = (struct fsym){ addr, sym.st_size, name,
		    GELF_ST_BIND(sym.st_info) == STB_GLOBAL };
	}
	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), by_address);
	return t;
}

/*
 * The function at file address a of d's module: the symbol whose range
 * holds it (a few before the nearest are looked at: one function's
 * symbols may overlap another's), else the nearest before it when that
 * one has no size.  NULL when none.
 */
const char *
symtab_name(struct dso *d, uint64_t a)
{
	struct symtab *t;
	size_t lo = 0, hi, i, k;

	if (!d->mod)
		return NULL;
	if (!d->symtab)
		d->symtab = symtab_build(d->mod);
	t = d->symtab;
	hi = t->n;
	while (lo < hi) {
		i = lo + (hi - lo) / 2;
		if (t->v[i].lo <= a)
			lo = i + 1;
		else
			hi = i;
	}
	if (lo == 0)
		return NULL;
	/* t->v[lo - 1] is the last at or below a. */
	for (k = lo; k-- > 0 && lo - k <= 16;)
		if (a - t->v[k].lo < t->v[k].size)
			return t->v[k].name;
	k = lo - 1;
	while (k > 0 && t->v[k - 1].lo == t->v[k].lo)
		k--;
	return t->v[lo - 1].size == 0 ? t->v[k].name : NULL;
}

void
symtab_free(struct symtab *t)
{
	if (t) {
		free(t->v);
		free(t);
	}
}
