/*
 * Suppressions (share/mt-suppress built in, and --suppress FILE): rules on
 * the lifetimes never freed, each one or more conditions that must all
 * hold: "function REGEX", some frame of the stack; "module REGEX", the
 * allocating frame's module.  A runtime's one-time blocks are then not
 * taken for the program's leaks, in mt-group's tables and in
 * mt-pooldiff's growth; what they keep out is counted and said.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mt.h"

struct rule {
	struct mt_regex *function, *module;
	char *where;		/* file:line */
	uint64_t count;
	mt_wide bytes;
};

struct mt_suppress {
	struct rule *rules;
	size_t nrules, cap;
	struct u64map cache;	/* stack id -> 1 + rule index + 1, or 1 */
	struct u64map fnbits;	/* function name's pointer -> 1 | the rules it matches << 1 */
};

static const char builtin_rules[] =
#include "mt-suppress.h"
    ;

struct mt_suppress *
suppress_new(void)
{
	return ecalloc(1, sizeof(struct mt_suppress));
}

/* The rules of a file's text; 1 when a line is bad (said). */
int
suppress_parse(struct mt_suppress *s, const char *text, const char *name)
{
	char *copy = estrdup(text), *line, *next, *save, *kind, *re, where[512];
	struct mt_regex *m;
	size_t lineno = 0;
	int bad = 0;

	for (line = copy; line; line = next) {
		struct rule r = { 0 };

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		line += strspn(line, " \t\r");
		if (!*line || *line == '#')
			continue;
		for (kind = strtok_r(line, " \t\r", &save); kind; kind = strtok_r(NULL, " \t\r", &save)) {
			re = strtok_r(NULL, " \t\r", &save);
			if (!re || (strcmp(kind, "function") && strcmp(kind, "module")) ||
			    (kind[0] == 'f' ? r.function : r.module)) {
				mt_warn_at(name, lineno, re ? "bad rule" : "a rule without its pattern",
				    kind, strlen(kind));
				bad = 1;
				break;
			}
			if (!(m = re_compile_at(re, name, lineno))) {
				bad = 1;
				break;
			}
			if (kind[0] == 'f')
				r.function = m;
			else
				r.module = m;
		}
		if (kind)
			continue;
		snprintf(where, sizeof(where), "%s:%zu", name, lineno);
		r.where = estrdup(where);
		s->rules = egrow(s->rules, s->nrules, &s->cap, sizeof(*s->rules));
		s->rules[s->nrules++] = r;
	}
	free(copy);
	return bad;
}

int
suppress_builtin(struct mt_suppress *s)
{
	return suppress_parse(s, builtin_rules, "mt-suppress");
}

/* --suppress FILE */
int
suppress_read(struct mt_suppress *s, const char *path)
{
	FILE *fp = fopen(path, "r");
	char *text = NULL;
	size_t cap = 0;
	int bad;

	if (!fp) {
		mt_note("%s: %s", mt_shown(path, strlen(path)), strerror(errno));
		return 1;
	}
	if (getdelim(&text, &cap, '\0', fp) < 0 && !text)
		text = estrdup("");
	fclose(fp);
	bad = suppress_parse(s, text, path);
	free(text);
	return bad;
}

/* --no-suppress: none, not even the built-in ones. */
void
suppress_none(struct mt_suppress *s)
{
	s->nrules = 0;
}

/* A stack redefined: what its id matched before no longer holds. */
void
suppress_forget(struct mt_suppress *s)
{
	u64map_free(&s->cache, NULL);
}

/*
 * The rules whose function pattern a name matches, as bits from bit 1,
 * asked once a name: names are held once by the dictionary, and a
 * compiler's leaks share most of their frames.  Up to 63 rules.
 */
static uint64_t
fn_bits(struct mt_suppress *s, const char *f)
{
	void **v = u64map_get(&s->fnbits, (uint64_t)(uintptr_t)f, 1);
	uint64_t bits = 1;
	size_t i;

	if (*v)
		return (uint64_t)(uintptr_t)*v;
	for (i = 0; i < s->nrules; i++)
		if (s->rules[i].function && re_match(s->rules[i].function, f, strlen(f)))
			bits |= UINT64_C(1) << (i + 1);
	*v = (void *)(uintptr_t)bits;
	return bits;
}

static int
rule_holds(struct mt_suppress *s, size_t k, const struct mt_stackinfo *si, uint64_t bits)
{
	const struct rule *r = &s->rules[k];
	const char *f;
	uint32_t i;

	if (r->module) {
		f = si->frame[si->alloc_frame]->module;
		if (!re_match(r->module, f, strlen(f)))
			return 0;
	}
	if (!r->function)
		return 1;
	if (s->nrules < 64)
		return !!(bits & UINT64_C(1) << (k + 1));
	for (i = 0; i < si->n; i++) {
		f = si->frame[i]->function;
		if (re_match(r->function, f, strlen(f)))
			return 1;
	}
	return 0;
}

/*
 * The rule that matches the stack of a lifetime never freed, as an index
 * for suppress_count(), or -1 (no stack, no rule).  The caller knows the
 * lifetime was never freed: only those are suppressed.
 */
long
suppress_match(struct mt_suppress *s, struct mt_dict *dict, uint64_t stack)
{
	struct mt_stackinfo *si;
	uint64_t bits = 0;
	void **v;
	size_t i;

	if (!s->nrules || stack == UINT64_MAX)
		return -1;
	v = u64map_get(&s->cache, stack, 1);
	if (!*v) {
		si = dict_stack(dict, stack);
		for (i = 0; s->nrules < 64 && i < si->n; i++)
			bits |= fn_bits(s, si->frame[i]->function);
		for (i = 0; i < s->nrules && !(si->n && rule_holds(s, i, si, bits)); i++)
			;
		*v = (void *)(uintptr_t)(i < s->nrules ? i + 2 : 1);
	}
	return (uintptr_t)*v > 1 ? (long)((uintptr_t)*v - 2) : -1;
}

void
suppress_count(struct mt_suppress *s, long rule, uint64_t bytes)
{
	s->rules[rule].count++;
	s->rules[rule].bytes += bytes;
}

/*
 * One line at the end, on standard error whatever the format: what the
 * rules kept out, and by which.  Under a table it was read as a row.
 */
void
suppress_say(const struct mt_suppress *s, struct mt_sat *sat)
{
	uint64_t n = 0;
	mt_wide bytes = 0;
	size_t i;
	char h[32], num[24];
	struct mt_out by;	/* the rules that matched, with their counts */
	int len;

	for (i = 0; i < s->nrules; i++) {
		n += s->rules[i].count;
		bytes += s->rules[i].bytes;
	}
	if (!n)
		return;
	out_init(&by, -1, 256);
	for (i = 0; i < s->nrules; i++)
		if (s->rules[i].count) {
			len = snprintf(num, sizeof(num), " %" PRIu64, s->rules[i].count);
			if (by.len)
				out_write(&by, ", ", 2);
			out_write(&by, s->rules[i].where, strlen(s->rules[i].where));
			out_write(&by, num, (size_t)len);
		}
	mt_note("suppressed %" PRIu64 " lifetimes never freed, %s (%.*s); --no-suppress "
	    "shows them", n, sat_human(bytes, &sat->hit, h, sizeof(h)), (int)by.len, by.buf);
	out_free(&by);
}
