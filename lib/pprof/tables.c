/*
 * tables: a pprof profile's tables filled as the records and the
 * lifetimes come: every string is interned as it comes, so that the
 * string table, "" first, is complete when the profile is written.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mt.h"
#include "profile.h"

/* The sample types, in their order; DEFAULT_TYPE the default. */
static const char *const value_types[PPROF_VALUES][2] = {
	{ "alloc_objects", "count" }, { "alloc_space", "bytes" },
	{ "inuse_objects", "count" }, { "inuse_space", "bytes" },
};

static uint32_t
chain_first(struct chains *c, uint64_t h)
{
	void **v = u64map_get(&c->heads, h, 0);

	return v ? (uint32_t)((uintptr_t)*v - 1) : UINT32_MAX;
}

/* Entry i becomes the first of its hash's chain; *next the old first. */
static void
chain_push(struct chains *c, uint64_t h, uint32_t i, uint32_t *next)
{
	void **v = u64map_get(&c->heads, h, 1);

	*next = *v ? (uint32_t)((uintptr_t)*v - 1) : UINT32_MAX;
	*v = (void *)(uintptr_t)(i + 1);
}

static uint32_t
intern(struct mt_pprof *p, const char *s, size_t len)
{
	uint64_t h = hash_bytes(s, len);
	uint32_t i;

	for (i = chain_first(&p->strs, h); i != UINT32_MAX; i = p->str[i].next)
		if (p->str[i].len == len && !memcmp(p->str[i].s, s, len))
			return i;
	p->str = egrow(p->str, p->nstr, &p->strcap, sizeof(*p->str));
	i = (uint32_t)p->nstr++;
	p->str[i].s = estrndup(s, len);
	p->str[i].len = len;
	chain_push(&p->strs, h, i, &p->str[i].next);
	return i;
}

static uint32_t
intern_c(struct mt_pprof *p, const char *s)
{
	return intern(p, s, strlen(s));
}

static uint32_t
function_of(struct mt_pprof *p, const char *name, const char *file)
{
	const char *key[2] = { name, file };
	uint64_t h = hash_bytes(key, sizeof(key));
	uint32_t i;

	for (i = chain_first(&p->fns, h); i != UINT32_MAX; i = p->fn[i].next)
		if (p->fn[i].name == name && p->fn[i].file == file)
			return i + 1;
	p->fn = egrow(p->fn, p->nfn, &p->fncap, sizeof(*p->fn));
	i = (uint32_t)p->nfn++;
	p->fn[i].name = name;
	p->fn[i].file = file;
	p->fn[i].sname = intern_c(p, name);
	p->fn[i].sfile = strcmp(file, "-") ? intern_c(p, file) : 0;
	chain_push(&p->fns, h, i, &p->fn[i].next);
	return i + 1;
}

struct mt_pprof *
pprof_new(struct mt_dict *d)
{
	struct mt_pprof *p = ecalloc(1, sizeof(*p));
	int k;

	p->dict = d;
	dict_keep_ips(d);
	intern(p, "", 0);
	for (k = 0; k < PPROF_VALUES; k++) {
		p->svalue[k][0] = intern_c(p, value_types[k][0]);
		p->svalue[k][1] = intern_c(p, value_types[k][1]);
	}
	p->sspace = intern_c(p, "space");
	p->sbytes = intern_c(p, "bytes");
	p->sprocess = intern_c(p, "process");
	p->spid = intern_c(p, "pid");
	p->sheap = intern_c(p, "heap");
	p->first = UINT64_MAX;
	return p;
}

static void
seen(struct mt_pprof *p, uint64_t t)
{
	if (t < p->first)
		p->first = t;
	if (t > p->last)
		p->last = t;
}

/* The current map that holds address a, or NULL. */
static struct pmap *
map_at(struct mt_pprof *p, uint64_t a)
{
	size_t lo = 0, hi = p->ncur, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (p->cur[mid].hi <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->ncur && p->cur[lo].lo <= a ? &p->cur[lo] : NULL;
}

/* The mapping of a key, made if new: its index. */
static uint32_t
mapping_of(struct mt_pprof *p, uint64_t lo, uint64_t hi, uint64_t offset, uint32_t sfile,
    uint32_t sbuild)
{
	uint64_t key[5] = { lo, hi, offset, sfile, sbuild }, h = hash_bytes(key, sizeof(key));
	uint32_t i;

	for (i = chain_first(&p->maps, h); i != UINT32_MAX; i = p->map[i].next)
		if (p->map[i].lo == lo && p->map[i].hi == hi && p->map[i].offset == offset &&
		    p->map[i].sfile == sfile && p->map[i].sbuild == sbuild)
			return i;
	p->map = egrow(p->map, p->nmap, &p->mapcap, sizeof(*p->map));
	i = (uint32_t)p->nmap++;
	p->map[i] = (struct pmapping){ lo, hi, offset, sfile, sbuild, 0, 0 };
	chain_push(&p->maps, h, i, &p->map[i].next);
	return i;
}

/*
 * A map line: its mapping (the same segment of the same file, say in
 * every child of a fork, is one), now current over the maps it overlaps,
 * as in the process a new mapping replaces what was there.
 */
static void
map_line(struct mt_pprof *p, const struct mt_event *ev)
{
	uint32_t i;
	size_t a, b;

	if (ev->size <= ev->addr)
		return;
	i = mapping_of(p, ev->addr, ev->size, ev->stack, intern(p, ev->s2.s, ev->s2.len),
	    ev->s1.len == 1 && ev->s1.s[0] == '-' ? 0 : intern(p, ev->s1.s, ev->s1.len));
	/* [a, b): the current maps it overlaps, replaced by it. */
	for (a = 0; a < p->ncur && p->cur[a].hi <= ev->addr; a++)
		;
	for (b = a; b < p->ncur && p->cur[b].lo < ev->size; b++)
		;
	if (a == b) {
		p->cur = egrow(p->cur, p->ncur, &p->curcap, sizeof(*p->cur));
		memmove(p->cur + a + 1, p->cur + a, (p->ncur - a) * sizeof(*p->cur));
		p->ncur++;
	} else {
		memmove(p->cur + a + 1, p->cur + b, (p->ncur - b) * sizeof(*p->cur));
		p->ncur -= b - a - 1;
	}
	p->cur[a] = (struct pmap){ ev->addr, ev->size, i };
}

void
pprof_event(struct mt_pprof *p, const struct mt_event *ev)
{
	struct pmap *m;
	void **v;
	size_t i;

	switch (ev->type) {
	case MT_COMMENT:
		/* The first header's start: the Unix time of the trace's time 0. */
		if (ev->header && !p->start)
			p->start = ev->header->start;
		break;
	case MT_MAP:
		map_line(p, ev);
		break;
	case MT_STACK:
		/* Its addresses' mappings: the maps as the stack came. */
		for (i = 0; i < ev->nips; i++)
			if (ev->ips[i] && (m = map_at(p, ev->ips[i] - 1))) {
				v = u64map_get(&p->ipmap, ev->ips[i], 1);
				*v = (void *)(uintptr_t)(IP_SEEN | (m->mapping + 1));
			}
		break;
	case MT_WINDOW:
		p->windowed = 1;
		p->from = ev->ts;
		p->to = ev->ts2;
		break;
	case MT_PROC:
	case MT_EXIT:
		seen(p, ev->ts);
		break;
	case MT_LIFE:
		if (!(ev->flags & EV_TS_NONE))
			seen(p, ev->ts);
		if (!(ev->flags & EV_TS2_NONE))
			seen(p, ev->ts2);
		break;
	default:
		break;
	}
}

/*
 * A frame with nothing but its address: in no module (mt-symbolize's
 * [unknown]), or not symbolized, or "??" from an older mt-symbolize.
 * One in a module without a name is named module+0xOFFSET: kept.
 */
static int
unnamed(const struct mt_frame *f)
{
	return !strcmp(f->function, "??") || !strncmp(f->function, "??+", 3) ||
	    ((!strcmp(f->module, "-") || !strcmp(f->module, "[unknown]")) &&
	    !strncmp(f->function, "0x", 2));
}

/* The number after a file's last ':', or 0. */
static int64_t
line_number(const char *fileline)
{
	const char *c = strrchr(fileline, ':');
	int64_t n = 0;

	if (!c || !c[1])
		return 0;
	for (c++; *c; c++) {
		if (*c < '0' || *c > '9' || n > INT64_MAX / 10 - 9)
			return 0;
		n = n * 10 + (*c - '0');
	}
	return n;
}

/*
 * The location of an address (0: none, a frame of our own) with its
 * frames [a, b) of si, or of one function alone (fn, for our "[...]").
 * An address with all its frames is looked up in ipmap first: a sym
 * line is never taken back, so the same first frame and as many frames
 * are the same frames.
 */
static uint32_t
location_of(struct mt_pprof *p, uint64_t address, const struct mt_stackinfo *si,
    uint32_t a, uint32_t b, uint32_t fn, int whole)
{
	uint32_t mapping = 0, i, n = 0, *f;
	int64_t *ln;
	uint64_t h, known = 0;
	void **v = address ? u64map_get(&p->ipmap, address, 0) : NULL;

	if (v) {
		known = (uint64_t)(uintptr_t)*v;
		mapping = (uint32_t)known;	/* its index + 1: its id */
		i = (uint32_t)(known >> 32 & 0x7fffffff);
		if (whole && i && p->loc[i - 1].frame0 == si->frame[a] &&
		    p->loc[i - 1].nframes == b - a)
			return i;
	}
	f = emalloc((b - a + 1) * sizeof(*f));
	ln = emalloc((b - a + 1) * sizeof(*ln));
	if (fn) {
		f[n] = fn;
		ln[n++] = 0;
	}
	for (i = a; i < b; i++) {
		const struct mt_frame *fr = si->frame[i];
		if (unnamed(fr))
			continue;
		f[n] = function_of(p, fr->function, fr->file);
		ln[n++] = line_number(fr->line);
	}
	/*
	 * No map line (a kernel trace): the module its sym line names, no
	 * range, so that pprof does not take it for one to look up.
	 */
	if (address && !mapping && n && strcmp(si->frame[a]->module, "-"))
		mapping = mapping_of(p, 0, 0, 0, intern_c(p, si->frame[a]->module), 0) + 1;
	/* The call, as pprof's own converters have it: the return address - 1. */
	if (address)
		address--;
	h = hash_bytes(f, n * sizeof(*f)) ^ hash_bytes(ln, n * sizeof(*ln)) ^
	    hash64(address * 31 + mapping);
	for (i = chain_first(&p->locs, h); i != UINT32_MAX; i = p->loc[i].next)
		if (p->loc[i].address == address && p->loc[i].mapping == mapping &&
		    p->loc[i].nlines == n && !memcmp(p->loc[i].function, f, n * sizeof(*f)) &&
		    !memcmp(p->loc[i].line, ln, n * sizeof(*ln))) {
			free(f);
			free(ln);
			goto found;
		}
	p->loc = egrow(p->loc, p->nloc, &p->loccap, sizeof(*p->loc));
	i = (uint32_t)p->nloc++;
	p->loc[i] = (struct plocation){ address, mapping, n, 0, f, ln, b > a ? si->frame[a] : NULL,
	    b - a };
	chain_push(&p->locs, h, i, &p->loc[i].next);
	if (mapping) {
		unsigned has = 0;
		uint32_t k;
		for (k = 0; k < n; k++)
			has |= HAS_FUNCTIONS | (p->fn[f[k] - 1].sfile ? HAS_FILENAMES : 0) |
			    (ln[k] ? HAS_LINE_NUMBERS : 0);
		p->map[mapping - 1].has |= has;
	}
found:
	if (whole && p->loc[i].frame0 == si->frame[a] && p->loc[i].nframes == b - a &&
	    i < 0x7fffffff) {
		v = u64map_get(&p->ipmap, address + 1, 1);
		*v = (void *)(uintptr_t)(IP_SEEN | (uint64_t)(i + 1) << 32 | (uint32_t)known);
	}
	return i + 1;
}

/* A location of ours, a function with no address: "[...]", "[no stack]". */
static uint32_t
own_location(struct mt_pprof *p, uint32_t *fn, const char *name)
{
	if (!*fn)
		*fn = function_of(p, dict_intern(p->dict, name, strlen(name)),
		    dict_intern(p->dict, "-", 1));
	return location_of(p, 0, NULL, 0, 0, *fn, 0);
}

/*
 * A stack's locations, leaf first: from the allocating frame outwards,
 * the frames of one address one location (its inlined ones as lines),
 * the runtime's start-up (fold frames) as "[start-up]", a stack cut at
 * the recorder's depth ending in "[...]".  Stacks of the same locations
 * are one.
 */
static uint32_t
stack_of(struct mt_pprof *p, const struct mt_stackinfo *si, uint32_t fold)
{
	uint32_t *loc, n = 0, k, a, b, end, i;
	uint64_t h;
	void **v = u64map_get(&p->stack_of, (uint64_t)(uintptr_t)si, 1);

	if (*v)
		return (uint32_t)((uintptr_t)*v - 1);
	loc = emalloc((si->nips + 3) * sizeof(*loc));
	end = si->n - (fold < si->n ? fold : si->n);
	for (k = 0; si->first && k < si->nips; k++) {
		a = si->first[k] > si->alloc_frame ? si->first[k] : si->alloc_frame;
		b = si->first[k + 1] < end ? si->first[k + 1] : end;
		if (a < b)
			loc[n++] = location_of(p, si->ips[k], si, a, b, 0,
			    a == si->first[k] && b == si->first[k + 1]);
	}
	if (fold)
		loc[n++] = own_location(p, &p->startup, "[start-up]");
	if (si->cut)
		loc[n++] = own_location(p, &p->cut, "[...]");
	if (!n)
		loc[n++] = own_location(p, &p->nostack, "[no stack]");
	h = hash_bytes(loc, n * sizeof(*loc));
	for (i = chain_first(&p->stacks, h); i != UINT32_MAX; i = p->stack[i].next)
		if (p->stack[i].nlocs == n && !memcmp(p->stack[i].loc, loc, n * sizeof(*loc))) {
			free(loc);
			*v = (void *)(uintptr_t)(i + 1);
			return i;
		}
	p->stack = egrow(p->stack, p->nstack, &p->stackcap, sizeof(*p->stack));
	i = (uint32_t)p->nstack++;
	p->stack[i] = (struct pstack){ n, 0, loc };
	chain_push(&p->stacks, h, i, &p->stack[i].next);
	*v = (void *)(uintptr_t)(i + 1);
	return i;
}

void
pprof_life(struct mt_pprof *p, const struct mt_event *ev, const struct mt_stackinfo *si,
    uint32_t fold)
{
	static const struct mt_stackinfo none;
	const char *name = dict_process(p->dict, ev->pid);
	uint32_t stack = stack_of(p, si ? si : &none, fold), i;
	uint32_t process = intern_c(p, name), heap = intern(p, ev->heap.s, ev->heap.len);
	uint64_t key[4] = { stack, process, heap, (uint64_t)ev->pid }, h;
	int in = ev->s1.len == 4 && ev->s1.s[0] == 'a' && ev->s1.s[1] == 'i';
	int out = ev->s1.len == 4 && ev->s1.s[3] == 'o';
	uint64_t size = ev->flags & EV_SIZE_NONE ? 0 : ev->size;
	struct psample *s;

	h = hash_bytes(key, sizeof(key));
	for (i = chain_first(&p->samples, h); i != UINT32_MAX; i = p->sample[i].next)
		if (p->sample[i].stack == stack && p->sample[i].process == process &&
		    p->sample[i].heap == heap && p->sample[i].pid == ev->pid)
			break;
	if (i == UINT32_MAX) {
		p->sample = egrow(p->sample, p->nsample, &p->samplecap, sizeof(*p->sample));
		i = (uint32_t)p->nsample++;
		p->sample[i] = (struct psample){ .stack = stack, .process = process,
		    .heap = heap, .pid = ev->pid };
		chain_push(&p->samples, h, i, &p->sample[i].next);
	}
	/* Never negative: stopped at 2^63-1 is as exact as kept wide. */
	s = &p->sample[i];
	s->v[0] = sat_narrow((mt_wide)s->v[0] + in, &p->hit[0]);
	s->v[1] = sat_narrow((mt_wide)s->v[1] + (in ? size : 0), &p->hit[1]);
	s->v[2] = sat_narrow((mt_wide)s->v[2] + out, &p->hit[2]);
	s->v[3] = sat_narrow((mt_wide)s->v[3] + (out ? size : 0), &p->hit[3]);
}

void
pprof_free(struct mt_pprof *p)
{
	size_t i;

	for (i = 0; i < p->nstr; i++)
		free(p->str[i].s);
	for (i = 0; i < p->nloc; i++)
		free(p->loc[i].function), free(p->loc[i].line);
	for (i = 0; i < p->nstack; i++)
		free(p->stack[i].loc);
	free(p->str);
	free(p->fn);
	free(p->map);
	free(p->cur);
	free(p->loc);
	free(p->stack);
	free(p->sample);
	u64map_free(&p->strs.heads, NULL);
	u64map_free(&p->fns.heads, NULL);
	u64map_free(&p->maps.heads, NULL);
	u64map_free(&p->locs.heads, NULL);
	u64map_free(&p->stacks.heads, NULL);
	u64map_free(&p->samples.heads, NULL);
	u64map_free(&p->ipmap, NULL);
	u64map_free(&p->stack_of, NULL);
	free(p);
}
