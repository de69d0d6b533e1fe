/*
 * kallsyms: the kernel's text symbols from /proc/kallsyms, to turn a
 * call site's symbol+offset back into an address and to name the
 * addresses of a stack.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mt.h"
#include "state.h"

static uint64_t
hash_str(const char *s, size_t n)
{
	return hash_bytes(s, n) | 1;
}

static int
by_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void
ksym_load(struct ktrace *k, const char *path)
{
	FILE *f = fopen(path, "re");
	char line[512], name[256], mod[200], type;
	unsigned long long addr;
	size_t cap = 0, i;
	void **v;
	int n;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		mod[0] = '\0';
		n = sscanf(line, "%llx %c %255s %199s", &addr, &type, name, mod);
		if (n < 3 || !addr || !strchr("tTwW", type))
			continue;
		k->syms = egrow(k->syms, k->nsyms, &cap, sizeof(*k->syms));
		k->syms[k->nsyms].addr = addr;
		k->syms[k->nsyms].name = estrdup(name);
		k->syms[k->nsyms].module = estrdup(n == 4 ? mod : "[kernel.kallsyms]");
		k->nsyms++;
	}
	fclose(f);
	if (k->nsyms)
		qsort(k->syms, k->nsyms, sizeof(*k->syms), by_addr);
	for (i = 0; i < k->nsyms; i++) {
		v = u64map_get(&k->by_name, hash_str(k->syms[i].name, strlen(k->syms[i].name)), 1);
		if (!*v)
			*v = &k->syms[i];
	}
}

/* The symbol holding a return address: the call is the byte before. */
const struct ksym *
ksym_at(const struct ktrace *k, uint64_t ip)
{
	size_t lo = 0, hi = k->nsyms, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (k->syms[mid].addr <= ip - 1)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &k->syms[lo - 1] : NULL;
}

/*
 * The tracing machinery's own frames, innermost in a stack the kernel
 * records (trace_event_raw_event_kmalloc...), are not the caller's.
 */
int
ksym_tracing(const struct ksym *s)
{
	return s && !strncmp(s->name, "trace_", 6);
}

/* "func+0x10d/0x140" back to an address; 0 when unknown. */
uint64_t
ksym_call_site(struct ktrace *k, const char *s, size_t n)
{
	const char *plus = memchr(s, '+', n);
	const struct ksym *sym;
	void **v;

	if (!plus)
		return 0;
	v = u64map_get(&k->by_name, hash_str(s, (size_t)(plus - s)), 0);
	if (!v || (sym = *v, strlen(sym->name) != (size_t)(plus - s) ||
	    memcmp(sym->name, s, (size_t)(plus - s))))
		return 0;
	return sym->addr + strtoull(plus + 1, NULL, 16);
}
