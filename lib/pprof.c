/*
 * pprof.c: lifetimes as a gzipped profile.proto, the format of
 * github.com/google/pprof (proto/profile.proto) that go tool pprof,
 * speedscope and Pyroscope read (mt-group -F pprof).
 *
 * The protobuf encoding is written by hand: a message is varints and
 * length-delimited fields, and a submessage is built in a scratch buffer
 * and copied after its length.  That is some two hundred lines, against
 * libprotobuf-c and the code protoc-c generates from profile.proto.  Every
 * string is interned as the lifetimes come, so that the string table, ""
 * first, is complete when the profile is written, its fields in the order
 * of their numbers, into deflate as they are encoded.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "mt.h"

/* profile.proto's field numbers, and the wire types used. */
enum { PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE, PROFILE_MAPPING, PROFILE_LOCATION,
	PROFILE_FUNCTION, PROFILE_STRING_TABLE, PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS, PROFILE_PERIOD_TYPE, PROFILE_PERIOD,
	PROFILE_DEFAULT_SAMPLE_TYPE = 14 };
enum { VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT };
enum { SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE, SAMPLE_LABEL };
enum { LABEL_KEY = 1, LABEL_STR, LABEL_NUM };
enum { MAPPING_ID = 1, MAPPING_MEMORY_START, MAPPING_MEMORY_LIMIT, MAPPING_FILE_OFFSET,
	MAPPING_FILENAME, MAPPING_BUILD_ID, MAPPING_HAS_FUNCTIONS, MAPPING_HAS_FILENAMES,
	MAPPING_HAS_LINE_NUMBERS, MAPPING_HAS_INLINE_FRAMES };
enum { LOCATION_ID = 1, LOCATION_MAPPING_ID, LOCATION_ADDRESS, LOCATION_LINE };
enum { LINE_FUNCTION_ID = 1, LINE_LINE };
enum { FUNCTION_ID = 1, FUNCTION_NAME, FUNCTION_SYSTEM_NAME, FUNCTION_FILENAME };
#define WIRE_VARINT 0
#define WIRE_LEN 2

/* The sample types, in their order; inuse_space the default. */
static const char *const value_types[PPROF_VALUES][2] = {
	{ "alloc_objects", "count" }, { "alloc_space", "bytes" },
	{ "inuse_objects", "count" }, { "inuse_space", "bytes" },
};
#define DEFAULT_TYPE 3

struct pbuf {
	uint8_t *b;
	size_t n, cap;
};

static void
pb_put(struct pbuf *p, const void *s, size_t n)
{
	if (p->cap - p->n < n) {
		p->cap = (p->n + n) * 2;
		p->b = erealloc(p->b, p->cap);
	}
	if (n)
		memcpy(p->b + p->n, s, n);
	p->n += n;
}

static void
pb_varint(struct pbuf *p, uint64_t v)
{
	uint8_t b[10];

	pb_put(p, b, varint_put(b, v));
}

/* A varint field; zero, the default, is not written. */
static void
pb_uint(struct pbuf *p, unsigned field, uint64_t v)
{
	if (!v)
		return;
	pb_varint(p, field << 3 | WIRE_VARINT);
	pb_varint(p, v);
}

static void
pb_bytes(struct pbuf *p, unsigned field, const void *s, size_t n)
{
	pb_varint(p, field << 3 | WIRE_LEN);
	pb_varint(p, n);
	pb_put(p, s, n);
}

/* A submessage built in sub, written into p and sub emptied for the next. */
static void
pb_message(struct pbuf *p, unsigned field, struct pbuf *sub)
{
	pb_bytes(p, field, sub->b, sub->n);
	sub->n = 0;
}

/*
 * Tables of distinct things (strings, functions, locations, stacks,
 * samples): an entry's hash leads to the first of a chain of indices.
 * Ids are indices + 1: profile.proto keeps 0 for none.
 */
struct chains {
	struct u64map heads;	/* hash -> 1 + the index of the chain's first */
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

struct pstring {
	char *s;
	size_t len;
	uint32_t next;
};

struct pfunction {
	const char *name, *file;	/* the dictionary's: one pointer a string */
	uint32_t sname, sfile, next;
};

struct pmapping {
	uint64_t lo, hi, offset;
	uint32_t sfile, sbuild, next;
	unsigned has;		/* HAS_*: what its locations' lines have */
};
#define HAS_FUNCTIONS 1
#define HAS_FILENAMES 2
#define HAS_LINE_NUMBERS 4

/* A location: lines (function id, line number), innermost first. */
struct plocation {
	uint64_t address;
	uint32_t mapping;	/* id, 0: none */
	uint32_t nlines, next;
	uint32_t *function;
	int64_t *line;
	const struct mt_frame *frame0;	/* the frames it was made of: */
	uint32_t nframes;	/* the same first and as many, the same frames */
};
#define IP_SEEN (UINT64_C(1) << 63)

/* A stack as locations, leaf first; a sample's part, shared. */
struct pstack {
	uint32_t nlocs, next;
	uint32_t *loc;
};

struct psample {
	uint32_t stack, process, heap;	/* indices: stacks, strings, strings */
	int64_t pid;
	int64_t v[PPROF_VALUES];	/* stopped at SAT_MAX: hit[] says so */
	uint32_t next;
};

/* The current maps: disjoint, sorted by lo, each its mapping's index. */
struct pmap {
	uint64_t lo, hi;
	uint32_t mapping;
};

struct mt_pprof {
	struct mt_dict *dict;
	struct pstring *str;
	size_t nstr, strcap;
	struct chains strs;
	struct pfunction *fn;
	size_t nfn, fncap;
	struct chains fns;
	struct pmapping *map;
	size_t nmap, mapcap;
	struct chains maps;
	struct pmap *cur;	/* the maps now */
	size_t ncur, curcap;
	/*
	 * address -> IP_SEEN | location id << 32 | mapping id: its mapping
	 * when its stack came, and its location of all its frames, once made.
	 */
	struct u64map ipmap;
	struct plocation *loc;
	size_t nloc, loccap;
	struct chains locs;
	struct pstack *stack;
	size_t nstack, stackcap;
	struct chains stacks;
	struct u64map stack_of;	/* struct mt_stackinfo * -> 1 + stack index */
	struct psample *sample;
	size_t nsample, samplecap;
	struct chains samples;
	uint32_t svalue[PPROF_VALUES][2], sspace, sbytes;
	uint32_t sprocess, spid, sheap;
	uint32_t cut, startup, nostack;	/* functions "[...]", "[start-up]", "[no stack]" */
	uint64_t start;		/* the header's start=, in Unix ns; 0: none */
	uint64_t first, last;	/* times seen; first > last: none */
	int windowed;
	uint64_t from, to;	/* the window line's */
	unsigned hit[PPROF_VALUES];	/* SAT_UP: a value stopped there */
};

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

/* The header's start=: the Unix time of the trace's time 0. */
static void
header_start(struct mt_pprof *p, const struct mt_str *line)
{
	const char *s = memmem(line->s, line->len, "\tstart=", 7), *end = line->s + line->len;
	uint64_t v = 0;

	if (p->start || line->len < 10 || memcmp(line->s, "#mt-events", 10) || !s)
		return;
	for (s += 7; s < end && *s >= '0' && *s <= '9' && v < UINT64_MAX / 10 - 9; s++)
		v = v * 10 + (uint64_t)(*s - '0');
	p->start = v;
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
		header_start(p, &ev->s1);
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

/* A frame mt-symbolize could not name: its address only. */
static int
unnamed(const struct mt_frame *f)
{
	return !strncmp(f->function, "??", 2) ||
	    (!strcmp(f->module, "-") && !strncmp(f->function, "0x", 2));
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

static void
value_type(struct pbuf *p, struct pbuf *sub, unsigned field, uint32_t type, uint32_t unit)
{
	pb_uint(sub, VALUE_TYPE_TYPE, type);
	pb_uint(sub, VALUE_TYPE_UNIT, unit);
	pb_message(p, field, sub);
}

static void
label(struct pbuf *p, struct pbuf *sub, uint32_t key, uint32_t str, int64_t num)
{
	pb_uint(sub, LABEL_KEY, key);
	pb_uint(sub, LABEL_STR, str);
	pb_uint(sub, LABEL_NUM, (uint64_t)num);
	pb_message(p, SAMPLE_LABEL, sub);
}

/*
 * The gzip stream (what pprof reads and writes): the profile's bytes go
 * through deflate as they are encoded, a top-level field at a time, so
 * that the whole encoding is never held.
 */
struct gz {
	z_stream z;
	FILE *out;
	int failed;
	struct pbuf in;		/* encoded, not yet deflated */
};

static void
gz_deflate(struct gz *g, int flush)
{
	unsigned char chunk[65536];
	int ret;

	if (g->failed) {
		g->in.n = 0;
		return;
	}
	g->z.next_in = g->in.b;
	g->z.avail_in = (unsigned)g->in.n;
	do {
		g->z.next_out = chunk;
		g->z.avail_out = sizeof(chunk);
		ret = deflate(&g->z, flush);
		if (ret == Z_STREAM_ERROR) {
			fprintf(stderr, "%s: zlib: %s\n", mt_progname,
			    g->z.msg ? g->z.msg : "stream error");
			g->failed = 1;
			break;
		}
		fwrite(chunk, 1, sizeof(chunk) - g->z.avail_out, g->out);
	} while (g->z.avail_out == 0 || (flush == Z_FINISH && ret != Z_STREAM_END));
	g->in.n = 0;
}

/* After each top-level field: past 64 KiB, into deflate. */
static void
gz_field_done(struct gz *g)
{
	if (g->in.n >= 65536)
		gz_deflate(g, Z_NO_FLUSH);
}

/* The profile, encoded into g; the values past 2^63-1 saturated, in sat[]. */
static void
encode(struct mt_pprof *p, struct gz *g, struct mt_sat sat[PPROF_VALUES])
{
	struct pbuf *out = &g->in, sub = { 0 }, sub2 = { 0 }, packed = { 0 };
	uint64_t first = p->windowed ? p->from : p->first;
	uint64_t last = p->windowed ? p->to : p->last;
	uint32_t *id = ecalloc(p->nmap + 1, sizeof(*id)), nid = 0;
	size_t i, k;

	for (k = 0; k < PPROF_VALUES; k++) {
		value_type(out, &sub, PROFILE_SAMPLE_TYPE, p->svalue[k][0], p->svalue[k][1]);
		sat[k].hit |= p->hit[k];
	}
	for (i = 0; i < p->nsample; i++) {
		const struct psample *s = &p->sample[i];
		const struct pstack *st = &p->stack[s->stack];

		/* A lifetime allocated before the window and freed in it: none. */
		if (!s->v[0] && !s->v[1] && !s->v[2] && !s->v[3])
			continue;
		for (k = 0; k < st->nlocs; k++)
			pb_varint(&packed, st->loc[k]);
		pb_message(&sub, SAMPLE_LOCATION_ID, &packed);
		for (k = 0; k < PPROF_VALUES; k++)
			pb_varint(&packed, (uint64_t)s->v[k]);
		pb_message(&sub, SAMPLE_VALUE, &packed);
		label(&sub, &sub2, p->sprocess, s->process, 0);
		label(&sub, &sub2, p->spid, 0, s->pid);
		label(&sub, &sub2, p->sheap, s->heap, 0);
		pb_message(out, PROFILE_SAMPLE, &sub);
		gz_field_done(g);
	}
	/* The mappings of the locations, numbered anew: not every map line's. */
	for (i = 0; i < p->nloc; i++)
		if (p->loc[i].mapping && !id[p->loc[i].mapping])
			id[p->loc[i].mapping] = ++nid;
	for (i = 0; i < p->nmap; i++) {
		const struct pmapping *m = &p->map[i];

		if (!id[i + 1])
			continue;
		pb_uint(&sub, MAPPING_ID, id[i + 1]);
		pb_uint(&sub, MAPPING_MEMORY_START, m->lo);
		pb_uint(&sub, MAPPING_MEMORY_LIMIT, m->hi);
		pb_uint(&sub, MAPPING_FILE_OFFSET, m->offset);
		pb_uint(&sub, MAPPING_FILENAME, m->sfile);
		pb_uint(&sub, MAPPING_BUILD_ID, m->sbuild);
		/* Unnamed throughout: pprof may look its addresses up itself. */
		pb_uint(&sub, MAPPING_HAS_FUNCTIONS, !!(m->has & HAS_FUNCTIONS));
		pb_uint(&sub, MAPPING_HAS_FILENAMES, !!(m->has & HAS_FILENAMES));
		pb_uint(&sub, MAPPING_HAS_LINE_NUMBERS, !!(m->has & HAS_LINE_NUMBERS));
		pb_uint(&sub, MAPPING_HAS_INLINE_FRAMES, !!(m->has & HAS_FUNCTIONS));
		pb_message(out, PROFILE_MAPPING, &sub);
		gz_field_done(g);
	}
	for (i = 0; i < p->nloc; i++) {
		const struct plocation *l = &p->loc[i];

		pb_uint(&sub, LOCATION_ID, i + 1);
		pb_uint(&sub, LOCATION_MAPPING_ID, id[l->mapping]);
		pb_uint(&sub, LOCATION_ADDRESS, l->address);
		for (k = 0; k < l->nlines; k++) {
			pb_uint(&sub2, LINE_FUNCTION_ID, l->function[k]);
			pb_uint(&sub2, LINE_LINE, (uint64_t)l->line[k]);
			pb_message(&sub, LOCATION_LINE, &sub2);
		}
		pb_message(out, PROFILE_LOCATION, &sub);
		gz_field_done(g);
	}
	for (i = 0; i < p->nfn; i++) {
		pb_uint(&sub, FUNCTION_ID, i + 1);
		pb_uint(&sub, FUNCTION_NAME, p->fn[i].sname);
		pb_uint(&sub, FUNCTION_SYSTEM_NAME, p->fn[i].sname);
		pb_uint(&sub, FUNCTION_FILENAME, p->fn[i].sfile);
		pb_message(out, PROFILE_FUNCTION, &sub);
		gz_field_done(g);
	}
	for (i = 0; i < p->nstr; i++) {
		pb_bytes(out, PROFILE_STRING_TABLE, p->str[i].s, p->str[i].len);
		gz_field_done(g);
	}
	if (first <= last) {
		pb_uint(out, PROFILE_TIME_NANOS, p->start ? p->start + first : 0);
		pb_uint(out, PROFILE_DURATION_NANOS, last - first);
	}
	value_type(out, &sub, PROFILE_PERIOD_TYPE, p->sspace, p->sbytes);
	pb_uint(out, PROFILE_PERIOD, 1);
	pb_uint(out, PROFILE_DEFAULT_SAMPLE_TYPE, p->svalue[DEFAULT_TYPE][0]);
	free(sub.b);
	free(sub2.b);
	free(packed.b);
	free(id);
}

/*
 * The profile, gzipped, to out.  0, or 1 when zlib failed, said; a
 * failed write is out's error.
 */
int
pprof_write(struct mt_pprof *p, FILE *out, struct mt_sat sat[PPROF_VALUES])
{
	struct gz g;

	memset(&g, 0, sizeof(g));
	g.out = out;
	/* windowBits 15 + 16: a gzip header and trailer, not zlib's. */
	if (deflateInit2(&g.z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
	    Z_DEFAULT_STRATEGY) != Z_OK) {
		fprintf(stderr, "%s: zlib: %s\n", mt_progname, g.z.msg ? g.z.msg : "cannot start");
		return 1;
	}
	encode(p, &g, sat);
	gz_deflate(&g, Z_FINISH);
	deflateEnd(&g.z);
	free(g.in.b);
	return g.failed;
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
