/*
 * mt-group: WPA's tables from life lines.  Groups lifetimes by the keys
 * asked for and sums Count, Size (the bytes allocated inside the window)
 * and Impacting Size; or draws their stacks as a tree with the sums at
 * every node; as an aligned table, TSV, JSON, folded stacks or a pprof
 * profile (lib/pprof.c).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mt.h"

static const char synopsis[] = "[-k keys] [-s impact|size|count] [-n count] [-T[=bottom-up]] [-D depth] [-M] "
    "[-F table|tsv|json|folded|pprof] [-w size|impact] [-A regex] [file ...]";
static const char options[] =
    "Groups life lines as WPA's table does: Count, Size, Impacting Size and Per Alloc\n"
    "a group, biggest first; or a tree of their stacks; or folded stacks for a\n"
    "flame graph.\n"
    "\n"
    "  -k, --by KEYS        the columns, in order, from process, pid, heap, type,\n"
    "                       class, function, stack, module, file, free-function,\n"
    "                       free-stack (the free's, from mt-record -F), task,\n"
    "                       line (the allocating frame's file:line), temporary,\n"
    "                       size-class (powers of two), order (of a kernel page\n"
    "                       block), commit-time, decommit-time (seconds)\n"
    "                       (default process,heap,type,function, in a kernel trace\n"
    "                       task,heap,type,function; -b is the old spelling)\n"
    "  -s, --sort KEY       impact (default), size or count\n"
    "  -n, --top N          only the N biggest groups (in a tree: children a node)\n"
    "  -T, --tree[=bottom-up]  the stacks as a tree under the --by keys (default\n"
    "                       process), callers first or callees first\n"
    "                       (-t is the old spelling)\n"
    "  -D, --depth N        the tree's stacks N frames deep at most\n"
    "  -M, --from-main      the runtime's start-up frames (above main, lang_start,\n"
    "                       Python's eval loop) as one, [start-up]\n"
    "      --diff OLD.tsv   the changes since an earlier run's --format tsv of the\n"
    "                       same keys: exit 0 when none, 1 when some (as diff)\n"
    "      --histogram      by size classes, powers of two, in their order (after\n"
    "                       the --by keys if given)\n"
    "      --suppress FILE  more suppressions: lifetimes never freed that are no leak\n"
    "                       of the program (repeatable; share/mt-suppress says how)\n"
    "      --no-suppress    none, not even the built-in ones\n"
    "      --shorten        C++ template arguments shown as <> (default in the table)\n"
    "      --no-shorten     names as they are, in the table too\n"
    "  -F, --format FORMAT  table (default), tsv, json, folded (flame-graph input),\n"
    "                       or pprof (gzipped profile.proto, for go tool pprof)\n"
    "                       (-f is the old spelling)\n"
    "  -w, --weight WHAT    folded stacks weighed by size (default) or impact\n"
    "  -A, --skip REGEX     more functions to count as the allocation API (PCRE2)\n"
    "                       (-S is the old spelling)\n"
    "  -h, --help           this help\n"
    "  -V, --version        the version\n"
    "\n"
    "With no file, or -, standard input.  Exit 0, or 1 when something was wrong.\n";
static uint64_t nlife, nraw;	/* what the input held */

enum key { K_PROCESS, K_PID, K_HEAP, K_TYPE, K_CLASS, K_FUNCTION, K_STACK, K_MODULE,
	K_FILE, K_FREE_FUNCTION, K_FREE_STACK, K_TASK, K_LINE, K_TEMPORARY, K_SIZE_CLASS,
	K_ORDER, K_COMMIT_TIME, K_DECOMMIT_TIME, K_NKEYS };
static const char *const key_names[K_NKEYS] = { "process", "pid", "heap", "type",
	"class", "function", "stack", "module", "file", "free-function", "free-stack", "task",
	"line", "temporary", "size-class", "order", "commit-time", "decommit-time" };
/* The table's headings: WPA's names for its two times. */
static const char *
key_heading(enum key k)
{
	return k == K_COMMIT_TIME ? "Commit Time" : k == K_DECOMMIT_TIME ? "Decommit Time" :
	    key_names[k];
}

static int uncached;	/* a key beyond (process, heap, class, stack): no kept groups */

enum format { F_TABLE, F_TSV, F_JSON, F_FOLDED, F_PPROF };
enum sort { S_IMPACT, S_SIZE, S_COUNT, S_KEY };

static enum key keys[K_NKEYS];
static size_t nkeys;
static enum format format = F_TABLE;
static enum sort sort_by = S_IMPACT;
static long top = -1;
static int tree, bottom_up, weight_impact;
static int shorten = -1;	/* C++ templates: -1 collapsed in the table only */
static const char *diff_path;	/* --diff: an earlier run's --format tsv */
static int histogram;		/* --histogram */

static struct mt_dict *dict;	/* processes, stacks and symbols */
static struct mt_pprof *pprof;	/* --format pprof: the profile made */
static const char *skip_pattern;

/* Wide: a sum of 63-bit terms never wraps, and is narrowed where shown. */
struct sums {
	mt_wide count, size;	/* Size: what was allocated inside the window */
	mt_wide impact;
};

/* The columns whose sums saturated where shown, said at the end. */
enum { SAT_COUNT, SAT_SIZE, SAT_IMPACT, SAT_COUNT_CHANGE, SAT_SIZE_CHANGE,
	SAT_IMPACT_CHANGE, SAT_SUPPRESSED, SAT_PPROF, SAT_NCOLUMNS = SAT_PPROF + PPROF_VALUES };
static struct mt_sat sat[SAT_NCOLUMNS] = {
	{ .column = "Count" }, { .column = "Size" }, { .column = "Impacting Size" },
	{ .column = "the change of Count" }, { .column = "the change of Size" },
	{ .column = "the change of Impacting Size" }, { .column = "the suppressed bytes" },
	/* pprof's sample types, in their order */
	{ .column = "alloc_objects" }, { .column = "alloc_space" },
	{ .column = "inuse_objects" }, { .column = "inuse_space" }
};

static int64_t
sum_shown(mt_wide v, int column)
{
	return sat_narrow(v, &sat[column].hit);
}

static const char *
sum_human(mt_wide v, int column, char *buf, size_t n)
{
	return sat_human(v, &sat[column].hit, buf, n);
}

static void
say_saturated(void)
{
	int c;

	for (c = 0; c < SAT_NCOLUMNS; c++)
		sat_say(&sat[c]);
}

struct group {
	char *key;		/* the key fields, TAB-separated */
	size_t klen;
	struct sums s;
	struct sums old;	/* --diff: the earlier run's */
	int in;			/* --diff: 1 in this run, 2 in the earlier, 3 both */
	struct group *next;
};

static struct u64map groups;	/* hash of key -> chain */
static struct group **all;
static size_t nall, allcap;

/*
 * WPA's Impacting Type; and ours, leaked: outstanding at the window's
 * end because its process ended without freeing it (the fate exit), so
 * that it is told from what was still live when the trace ended.
 */
static const char *
type_of(struct mt_str cls, struct mt_str fate)
{
	if (cls.len == 4 && !memcmp(cls.s, "aifi", 4))
		return "transient";
	if (fate.len == 4 && !memcmp(fate.s, "exit", 4) && cls.len == 4 && cls.s[3] == 'o')
		return "leaked";
	if (cls.len == 4 && !memcmp(cls.s, "aofo", 4))
		return "outstanding";
	return "impacting";
}

static void
add_key(char **p, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n + 2 > *cap) {
		*cap = (*len + n + 2) * 2;
		*p = erealloc(*p, *cap);
	}
	if (*len)
		(*p)[(*len)++] = '\t';
	memcpy(*p + *len, s, n);
	*len += n;
	(*p)[*len] = '\0';
}

static int from_main;		/* --from-main */

/* The start-up frames of a stack (--from-main), found once a stack. */
static uint32_t
startup_of(struct mt_stackinfo *si)
{
	static struct u64map seen;	/* stack -> 1 + its start-up frames */
	void **v;

	if (!from_main)
		return 0;
	v = u64map_get(&seen, (uint64_t)(uintptr_t)si, 1);
	if (!*v)
		*v = (void *)(uintptr_t)(1 + startup_frames(si));
	return (uint32_t)((uintptr_t)*v - 1);
}

static void
folded(struct mt_stackinfo *si, char **p, size_t *len, size_t *cap)
{
	stack_folded(si, startup_of(si), p, len, cap);
}

/*
 * A lifetime's group is a function of its process (the name its pid has
 * now), pid, heap, class and stack (whose frames the dictionary fixes at
 * their first use): the group of those last seen together is kept, so
 * that the key is not made again for every lifetime.  A proc record may
 * rename a process and a stack record give an id other frames: the kept
 * groups are forgotten then (gen).  Only
 * for the heaps a trace names by the library's bytes, and the four
 * classes.
 */
#define KEPT 4096
static struct kept {
	uint64_t stack;
	int64_t pid;
	const char *heap;
	uint32_t gen;
	int cls;
	struct sums *g;		/* a group's, or a path group's (--tree) */
} kept[KEPT];
static uint32_t kept_gen = 1;

static struct kept *
kept_slot(const struct mt_event *ev, uint64_t stack, int *cls)
{
	int k;

	*cls = -1;
	if (ev->s1.len != 4 || ev->s1.s[0] != 'a' || ev->s1.s[2] != 'f')
		return NULL;
	*cls = (ev->s1.s[1] == 'o') << 1 | (ev->s1.s[3] == 'o');
	for (k = 0; k < 3; k++)
		if (ev->heap.s == mt_heap_names[k].s)
			break;
	if (k == 3)
		return NULL;
	return &kept[hash64(stack * 31 + (uint64_t)ev->pid * 4 + (uint64_t)*cls +
	    (uint64_t)k * 0x9e3779b9) & (KEPT - 1)];
}

static struct group *
group_of(const char *key, size_t klen)
{
	struct group *g;
	void **v;

	v = u64map_get(&groups, hash_bytes(key, klen) | 1, 1);
	for (g = *v; g; g = g->next)
		if (g->klen == klen && memcmp(g->key, key, klen) == 0)
			return g;
	g = ecalloc(1, sizeof(*g));
	g->key = estrndup(key, klen);
	g->klen = klen;
	g->next = *v;
	*v = g;
	all = egrow(all, nall, &allcap, sizeof(*all));
	all[nall++] = g;
	return g;
}

static void
account(struct sums *g, const struct mt_event *ev)
{
	int ai = ev->s1.len == 4 && ev->s1.s[1] == 'i';

	g->count++;
	/* Size: what was allocated inside the window; Impact as computed. */
	if (ai && !(ev->flags & EV_SIZE_NONE))
		g->size += ev->size;
	g->impact += ev->impact;
}

static void
sums_add(struct sums *to, const struct sums *s)
{
	to->count += s->count;
	to->size += s->size;
	to->impact += s->impact;
}

/* The trace's resolution in ns, from its header: the digits a time has. */
static uint64_t resolution = 1;

static void
header_resolution(const struct mt_str *line)
{
	const char *p = memmem(line->s, line->len, "\tresolution=", 12);
	uint64_t r = 0;

	if (line->len < 10 || memcmp(line->s, "#mt-events", 10) || !p)
		return;
	for (p += 12; p < line->s + line->len && *p >= '0' && *p <= '9' && r < UINT64_C(1) << 40; p++)
		r = r * 10 + (uint64_t)(*p - '0');
	if (r > resolution)	/* files of several resolutions: the coarsest */
		resolution = r;
}

/* A time in seconds, to the digits the resolution has: 100 ns, 7 digits. */
static size_t
seconds(uint64_t ns, char *buf, size_t size)
{
	uint64_t unit = 1000000000;
	int digits = 0, n;

	while (unit > resolution && unit > 1)
		unit /= 10, digits++;
	if (!digits)
		n = snprintf(buf, size, "%" PRIu64, ns / 1000000000);
	else
		n = snprintf(buf, size, "%" PRIu64 ".%0*" PRIu64, ns / 1000000000, digits,
		    ns % 1000000000 / unit);
	return (size_t)n < size ? (size_t)n : size - 1;
}

/*
 * A key's value for a lifetime, in a buffer of ours until the next call:
 * a stack's as folded frames (its ';' escaped).
 */
static const char *
key_value(enum key k, const struct mt_event *ev, struct mt_stackinfo *si,
    struct mt_stackinfo *fsi, size_t *len)
{
	static char *fold;
	static size_t cap;
	static char buf[64];
	const char *s = "-";
	int n;

	switch (k) {
	case K_PROCESS:
		s = dict_process(dict, ev->pid);
		break;
	case K_PID:
		n = snprintf(buf, sizeof(buf), "%" PRId64, ev->pid);
		*len = (size_t)n;
		return buf;
	case K_HEAP:
		*len = ev->heap.len;
		return ev->heap.s;
	case K_TYPE:
		s = type_of(ev->s1, ev->s2);
		break;
	case K_CLASS:
		*len = ev->s1.len;
		return ev->s1.s;
	case K_FUNCTION:
	case K_MODULE:
	case K_FILE:
	case K_LINE:
		if (si && si->n) {
			const struct mt_frame *f = si->frame[si->alloc_frame];
			s = k == K_FUNCTION ? f->function : k == K_MODULE ? f->module :
			    k == K_FILE ? f->file : f->line;
		}
		break;
	case K_FREE_FUNCTION:
		if (fsi && fsi->n)
			s = fsi->frame[fsi->alloc_frame]->function;
		break;
	case K_STACK:
	case K_FREE_STACK:
		if (k == K_FREE_STACK)
			si = fsi;
		if (si && si->n) {
			*len = 0;
			if (!fold)
				fold = emalloc(cap = 256);
			fold[0] = '\0';
			folded(si, &fold, len, &cap);
			return fold;
		}
		break;
	case K_SIZE_CLASS:
		if (ev->flags & EV_SIZE_NONE)
			break;
		*len = size_class(ev->size, buf, sizeof(buf));
		return buf;
	case K_ORDER:
		/* A page block's order, as mm_page_alloc says it: 4 KiB << order. */
		if (ev->flags & EV_SIZE_NONE || ev->heap.len != 4 || memcmp(ev->heap.s, "page", 4) ||
		    ev->size < 4096 || ev->size & (ev->size - 1))
			break;
		n = snprintf(buf, sizeof(buf), "%d", 63 - __builtin_clzll(ev->size) - 12);
		*len = (size_t)n;
		return buf;
	case K_COMMIT_TIME:
	case K_DECOMMIT_TIME:
		if (ev->flags & (k == K_COMMIT_TIME ? EV_TS_NONE : EV_TS2_NONE))
			break;
		*len = seconds(k == K_COMMIT_TIME ? ev->ts : ev->ts2, buf, sizeof(buf));
		return buf;
	case K_TEMPORARY:
		/* heaptrack's: freed before its thread allocated again */
		s = ev->flags & EV_TEMP ? "temporary" : "other";
		break;
	case K_TASK:
		*len = task_name(dict, ev->pid, (ev->flags & EV_TID_NONE) ? -1 : ev->tid, buf,
		    sizeof(buf));
		return buf;
	default:
		break;
	}
	*len = strlen(s);
	return s;
}

/* The group of a lifetime, by its key made afresh. */
static struct group *
group_by_key(const struct mt_event *ev)
{
	static char *key;
	static size_t cap;
	size_t len = 0, n, i;
	struct mt_stackinfo *si = NULL, *fsi = NULL;
	const char *s;

	if (!(ev->flags & EV_STACK_NONE))
		si = dict_stack(dict, ev->stack);
	if (ev->flags & EV_STACK2)
		fsi = dict_stack(dict, ev->stack2);
	if (!key) {
		cap = 256;
		key = emalloc(cap);
	}
	key[0] = '\0';
	if (format == F_FOLDED) {
		/* The process is the root of every stack. */
		stack_frame_add(&key, &len, &cap, dict_process(dict, ev->pid));
		if (si && si->n)
			folded(si, &key, &len, &cap);
		return group_of(key, len);
	}
	for (i = 0; i < nkeys; i++) {
		s = key_value(keys[i], ev, si, fsi, &n);
		add_key(&key, &len, &cap, s, n);
	}
	return group_of(key, len);
}

/*
 * The tree (--tree), WPA's expandable columns: a node is a path, the
 * values of the --by keys in order and then the stack's frames, callers
 * first (bottom-up: from the allocating function outwards).  Lifetimes
 * are summed by key values and stack, a path group each; the tree is
 * drawn from the groups sorted by path, where a node is a run of groups
 * and its children the runs that share one more element.  The memory is
 * the groups', not a node a frame.  Every string of a path is held once
 * by the dictionary, so paths compare by pointer.
 */
struct pgroup {
	struct mt_stackinfo *si;	/* NULL: no stack */
	struct sums s;
	struct pgroup *next;	/* in its hash chain */
	const char **frames;	/* the stack's levels, as drawn */
	size_t nframes;
	const char *lv[];	/* the key values */
};
static struct u64map pgroups;	/* hash of key values and stack -> chain */
static struct pgroup **pall;
static size_t npall, pallcap, nlevels;
static long max_depth = -1;	/* --depth: the stack levels drawn */
static const char *cut_name;	/* "[...]": callers cut at the recorder's depth */
static const char *startup_name;	/* "[start-up]": the runtime's, --from-main */
static int with_lines;		/* a line key: frames as "function\tfile:line" */

/* A frame as a level of the tree: with its line when a key asks for it. */
static const char *
frame_level(const struct mt_frame *f)
{
	size_t a, b;
	char *s;
	const char *r;

	if (!with_lines || !strcmp(f->line, "-"))
		return f->function;
	a = strlen(f->function);
	b = strlen(f->line);
	s = emalloc(a + b + 2);
	memcpy(s, f->function, a);
	s[a] = '\t';
	memcpy(s + a + 1, f->line, b + 1);
	r = dict_intern(dict, s, a + b + 1);
	free(s);
	return r;
}

/*
 * The stack's levels, callers first (bottom-up: the allocating function
 * first): a stack cut at the recorder's depth begins with "[...]", and
 * with --from-main the runtime's start-up is one level "[start-up]".
 */
static void
path_frames(struct pgroup *g)
{
	const struct mt_stackinfo *si = g->si;
	uint32_t fold = si ? startup_of(g->si) : 0, i;
	size_t n = 0;

	if (!si)
		return;
	g->frames = emalloc((si->n - si->alloc_frame + 2) * sizeof(*g->frames));
	if (si->cut)
		g->frames[n++] = cut_name;
	if (fold)
		g->frames[n++] = startup_name;
	for (i = si->n - fold; i-- > si->alloc_frame;)
		g->frames[n++] = frame_level(si->frame[i]);
	g->nframes = n;
	for (i = 0; bottom_up && i < n / 2; i++) {
		const char *t = g->frames[i];
		g->frames[i] = g->frames[n - 1 - i];
		g->frames[n - 1 - i] = t;
	}
}

static struct pgroup *
path_group(const struct mt_event *ev)
{
	struct mt_stackinfo *si = NULL, *fsi = NULL;
	const char *lv[K_NKEYS], *s;
	struct pgroup *g;
	size_t i, n;
	void **v;

	if (!(ev->flags & EV_STACK_NONE))
		si = dict_stack(dict, ev->stack);
	if (ev->flags & EV_STACK2)
		fsi = dict_stack(dict, ev->stack2);
	if (si && !si->n)
		si = NULL;
	for (i = 0; i < nlevels; i++) {
		if (keys[i] == K_LINE && si) {	/* the function with its line */
			lv[i] = frame_level(si->frame[si->alloc_frame]);
			continue;
		}
		s = key_value(keys[i], ev, si, fsi, &n);
		lv[i] = dict_intern(dict, s, n);
	}
	v = u64map_get(&pgroups, (hash_bytes(lv, nlevels * sizeof(*lv)) ^
	    hash64((uint64_t)(uintptr_t)si)) | 1, 1);
	for (g = *v; g; g = g->next)
		if (g->si == si && !memcmp(g->lv, lv, nlevels * sizeof(*lv)))
			return g;
	g = ecalloc(1, sizeof(*g) + nlevels * sizeof(*lv));
	g->si = si;
	memcpy(g->lv, lv, nlevels * sizeof(*lv));
	path_frames(g);
	g->next = *v;
	*v = g;
	pall = egrow(pall, npall, &pallcap, sizeof(*pall));
	pall[npall++] = g;
	return g;
}

/* The path's length: the key values, then the stack's levels drawn. */
static size_t
path_len(const struct pgroup *g)
{
	size_t n = g->nframes;

	if (max_depth >= 0 && n > (size_t)max_depth)
		n = (size_t)max_depth;
	return nlevels + n;
}

static const char *
path_at(const struct pgroup *g, size_t i)
{
	return i < nlevels ? g->lv[i] : g->frames[i - nlevels];
}

static int
path_cmp(const void *a, const void *b)
{
	const struct pgroup *x = *(const struct pgroup *const *)a;
	const struct pgroup *y = *(const struct pgroup *const *)b;
	size_t nx = path_len(x), ny = path_len(y), i;
	uintptr_t p, q;

	for (i = 0; i < nx && i < ny; i++) {
		p = (uintptr_t)path_at(x, i);
		q = (uintptr_t)path_at(y, i);
		if (p != q)
			return p < q ? -1 : 1;
	}
	return nx < ny ? -1 : nx > ny;
}

/* Suppressions (lib/suppress.c): lifetimes never freed that are no leak. */
static struct mt_suppress *suppress;
static int no_suppress;

/* A lifetime never freed that a rule suppresses: counted there, or 0. */
static int
suppressed(const struct mt_event *ev)
{
	long r;

	if (no_suppress || (ev->flags & EV_STACK_NONE))
		return 0;
	if (!(ev->flags & EV_TS2_NONE) && !(ev->s2.len == 4 && !memcmp(ev->s2.s, "exit", 4)))
		return 0;
	if ((r = suppress_match(suppress, dict, ev->stack)) < 0)
		return 0;
	suppress_count(suppress, r, ev->flags & EV_SIZE_NONE ? 0 : ev->size);
	return 1;
}

static void
group_life(const struct mt_event *ev)
{
	uint64_t stack = ev->flags & EV_STACK_NONE ? UINT64_MAX : ev->stack;
	struct kept *k;
	struct sums *g;
	int cls = -1;

	if (suppressed(ev))
		return;
	if (pprof) {
		struct mt_stackinfo *si = ev->flags & EV_STACK_NONE ? NULL :
		    dict_stack(dict, ev->stack);
		pprof_life(pprof, ev, si, si ? startup_of(si) : 0);
		return;
	}
	k = uncached ? NULL : kept_slot(ev, stack, &cls);
	if (k && k->gen == kept_gen && k->stack == stack && k->pid == ev->pid &&
	    k->heap == ev->heap.s && k->cls == cls) {
		account(k->g, ev);
		return;
	}
	if (tree) {
		g = &path_group(ev)->s;
	} else {
		struct group *gr = group_by_key(ev);
		gr->in |= 1;
		g = &gr->s;
	}
	if (k)
		*k = (struct kept){ stack, ev->pid, ev->heap.s, kept_gen, cls, g };
	account(g, ev);
}

/* Biggest first by the --sort key (impact: then size); then by name. */
static int
sums_cmp(const struct sums *x, const char *xname, const struct sums *y, const char *yname)
{
	switch (sort_by) {
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

static int
by_sort(const void *a, const void *b)
{
	const struct group *x = *(const struct group *const *)a;
	const struct group *y = *(const struct group *const *)b;

	return sums_cmp(&x->s, x->key, &y->s, y->key);
}


/* A JSON string (lib/json.c) on standard output, through one buffer. */
static void
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
static char *
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
static char *
shown_name(const char *s)
{
	char *a, *b;

	if (!(shorten == 1 || (shorten < 0 && format == F_TABLE)))
		return format == F_TABLE ? ctl_shown(s) : estrdup(s);
	a = name_shortened(s);
	if (format != F_TABLE)
		return a;
	b = ctl_shown(a);
	free(a);
	return b;
}

/*
 * s in w columns: a longer name cut where it stays recognisable
 * (name_cut), a longer stack keeping its start and end, "..." between.
 */
static void
put_cell(const char *s, size_t w, int name)
{
	char *c = name_cut(s, w);

	if (!name && strlen(c) < strlen(s))
		name_middle_cut(s, w, c);
	printf("%-*s", (int)w, c);
	free(c);
}

#define TABLE_WIDTH 120		/* the key columns give way past it */

/* The key's fields, in place: pointers into a copy. */
static size_t
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
static size_t
sort_top(struct group **v, size_t n, int (*cmp)(const void *, const void *))
{
	if (n)
		qsort(v, n, sizeof(*v), cmp);
	return top >= 0 && (size_t)top < n ? (size_t)top : n;
}

/* TSV's header: the keys, then the columns named in tail. */
static void
tsv_header(const char *tail)
{
	size_t k;

	for (k = 0; k < nkeys; k++)
		printf("%s\t", key_names[keys[k]]);
	printf("%s\n", tail);
}

/* A JSON object's key members, from a group's key fields. */
static void
json_keys(char **f)
{
	size_t k;

	for (k = 0; k < nkeys; k++) {
		char *e = shown_name(f[k]);
		json_str(key_names[keys[k]], strlen(key_names[keys[k]]));
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
static int64_t
per_alloc(const struct sums *s)
{
	mt_wide v = s->count ? s->size / s->count : 0;

	return v > SAT_MAX ? SAT_MAX : v < -SAT_MAX ? -SAT_MAX : (int64_t)v;
}

static void
write_groups(void)
{
	size_t i, k, n = nall, w[K_NKEYS + 4] = { 0 };
	char *f[K_NKEYS], *copy, a[32], b[32], c[32];

	n = sort_top(all, nall, by_sort);
	if (format == F_TSV) {
		tsv_header("count\tsize\timpact\tper-alloc");
		for (i = 0; i < n; i++) {
			char *e = shorten == 1 ? name_shortened(all[i]->key) : NULL;
			printf("%s\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\n",
			    e ? e : all[i]->key, sum_shown(all[i]->s.count, SAT_COUNT),
			    sum_shown(all[i]->s.size, SAT_SIZE), sum_shown(all[i]->s.impact, SAT_IMPACT),
			    per_alloc(&all[i]->s));
			free(e);
		}
		return;
	}
	if (format == F_JSON) {
		printf("[");
		for (i = 0; i < n; i++) {
			copy = estrdup(all[i]->key);
			split(copy, f, K_NKEYS);
			printf("%s\n  {", i ? "," : "");
			json_keys(f);
			printf("\"count\": %" PRId64 ", \"size\": %" PRId64 ", \"impact\": %" PRId64
			    ", \"per-alloc\": %" PRId64 "}", sum_shown(all[i]->s.count, SAT_COUNT),
			    sum_shown(all[i]->s.size, SAT_SIZE), sum_shown(all[i]->s.impact, SAT_IMPACT),
			    per_alloc(&all[i]->s));
			free(copy);
		}
		printf("%s]\n", n ? "\n" : "");
		return;
	}
	/* The table: column widths first. */
	for (k = 0; k < nkeys; k++)
		w[k] = strlen(key_heading(keys[k]));
	w[nkeys] = 5;
	w[nkeys + 1] = 4;
	w[nkeys + 2] = 14;
	w[nkeys + 3] = 9;
	for (i = 0; i < n; i++) {
		copy = estrdup(all[i]->key);
		split(copy, f, K_NKEYS);
		for (k = 0; k < nkeys; k++) {
			char *e = shown_name(f[k]);
			if (strlen(e) > w[k])
				w[k] = strlen(e);
			free(e);
		}
		snprintf(a, sizeof(a), "%" PRId64, sum_shown(all[i]->s.count, SAT_COUNT));
		if (strlen(a) > w[nkeys])
			w[nkeys] = strlen(a);
		if (strlen(sum_human(all[i]->s.size, SAT_SIZE, b, sizeof(b))) > w[nkeys + 1])
			w[nkeys + 1] = strlen(b);
		if (strlen(mt_human(per_alloc(&all[i]->s), c, sizeof(c))) > w[nkeys + 3])
			w[nkeys + 3] = strlen(c);
		free(copy);
	}
	/* Too wide: the widest key columns give way, to 40 at the least;
	   with --no-shorten, the names whole. */
	for (; shorten;) {
		size_t total = 0, widest = 0;
		for (k = 0; k < nkeys + 4; k++)
			total += w[k] + 2;
		for (k = 1; k < nkeys; k++)
			if (w[k] > w[widest])
				widest = k;
		if (!nkeys || total <= TABLE_WIDTH || w[widest] <= 40)
			break;
		w[widest] = w[widest] > 40 + (total - TABLE_WIDTH) ?
		    w[widest] - (total - TABLE_WIDTH) : 40;
	}
	for (k = 0; k < nkeys; k++)
		printf("%-*s  ", (int)w[k], key_heading(keys[k]));
	printf("%*s  %*s  %*s  %*s\n", (int)w[nkeys], "Count", (int)w[nkeys + 1], "Size",
	    (int)w[nkeys + 2], "Impacting Size", (int)w[nkeys + 3], "Per Alloc");
	for (i = 0; i < n; i++) {
		copy = estrdup(all[i]->key);
		split(copy, f, K_NKEYS);
		for (k = 0; k < nkeys; k++) {
			char *e = shown_name(f[k]);
			put_cell(e, w[k], keys[k] != K_STACK && keys[k] != K_FREE_STACK);
			printf("  ");
			free(e);
		}
		printf("%*" PRId64 "  %*s  %*s  %*s\n", (int)w[nkeys],
		    sum_shown(all[i]->s.count, SAT_COUNT),
		    (int)w[nkeys + 1], sum_human(all[i]->s.size, SAT_SIZE, a, sizeof(a)),
		    (int)w[nkeys + 2], sum_human(all[i]->s.impact, SAT_IMPACT, b, sizeof(b)),
		    (int)w[nkeys + 3], mt_human(per_alloc(&all[i]->s), c, sizeof(c)));
		free(copy);
	}
}

/* A count of an earlier run's TSV: decimal, signed for the impact. */
static int
tsv_num(const char *f, int sign, uint64_t *v)
{
	char *end;

	errno = 0;
	if (sign)
		*v = (uint64_t)strtoll(f, &end, 10);
	else
		*v = strtoull(f, &end, 10);
	return *f && !*end && !errno && (sign || *f != '-');
}

/*
 * --diff: an earlier run's table (--format tsv, the same keys) read into
 * the groups: each group's old sums; a group only in it is one that
 * vanished.  1 when a row is bad (said, the rest read).
 */
static int
read_old(const char *path)
{
	FILE *fp = fopen(path, "r");
	char *line = NULL, *f[K_NKEYS + 4], want[512];
	size_t cap = 0, n, k, lineno = 0, wlen = 0, cols = nkeys + 4;
	ssize_t len;
	int bad = 0;

	if (!fp) {
		fprintf(stderr, "%s: %s: %s\n", mt_progname, mt_shown(path, strlen(path)),
		    strerror(errno));
		return 2;
	}
	for (k = 0; k < nkeys; k++)
		wlen += (size_t)snprintf(want + wlen, sizeof(want) - wlen, "%s\t", key_names[keys[k]]);
	snprintf(want + wlen, sizeof(want) - wlen, "count\tsize\timpact\tper-alloc");
	while ((len = getline(&line, &cap, fp)) > 0) {
		struct group *g;
		uint64_t c, sz, im;

		lineno++;
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (len && line[len - 1] == '\r')
			line[--len] = '\0';
		if (lineno == 1) {
			/* Per Alloc is derived, and an older run's has none. */
			if (!strncmp(line, want, wlen + 17) && !line[wlen + 17])
				cols = nkeys + 3;
			else if (strcmp(line, want)) {
				char *had = estrdup(mt_shown(line, (size_t)len));
				fprintf(stderr, "%s: %s:1: the columns are not those of --by: '%s' "
				    "(want '%s')\n", mt_progname, path, had, mt_shown(want, strlen(want)));
				free(had);
				bad = 2;
				break;
			}
			continue;
		}
		if (memchr(line, '\0', (size_t)len)) {
			mt_warn_at(path, lineno, "a NUL byte in", line, strlen(line));
			bad = 1;
			continue;
		}
		n = split(line, f, cols);
		if (n != cols || !tsv_num(f[nkeys], 0, &c) || !tsv_num(f[nkeys + 1], 0, &sz) ||
		    !tsv_num(f[nkeys + 2], 1, &im)) {
			mt_warn_at(path, lineno, n != cols ? "bad row: fields" : "bad number",
			    n != cols ? f[0] : f[nkeys], strlen(n != cols ? f[0] : f[nkeys]));
			bad = 1;
			continue;
		}
		/* The key: the fields rejoined. */
		for (k = 1; k < nkeys; k++)
			f[k][-1] = '\t';
		g = group_of(f[0], strlen(f[0]));
		g->in |= 2;
		g->old.count += c;
		g->old.size += sz;
		g->old.impact += (int64_t)im;
	}
	free(line);
	fclose(fp);
	return bad;
}

static mt_wide
sums_key(const struct sums *s)
{
	return sort_by == S_COUNT ? s->count : sort_by == S_SIZE ? s->size : s->impact;
}

/* The change first by the --sort key, biggest growth first, then by name. */
static int
by_change(const void *a, const void *b)
{
	const struct group *x = *(const struct group *const *)a;
	const struct group *y = *(const struct group *const *)b;
	mt_wide dx = sums_key(&x->s) - sums_key(&x->old), dy = sums_key(&y->s) - sums_key(&y->old);

	if (dx != dy)
		return dx < dy ? 1 : -1;
	return strcmp(x->key, y->key);
}

static const char *
diff_state(const struct group *g)
{
	return g->in == 1 ? "new" : g->in == 2 ? "gone" : "changed";
}

/* A change for people: "+1.5 MiB", "-3", "0"; saturated, ">=8.0 EiB". */
static const char *
change(mt_wide d, int column, char *buf, size_t size)
{
	char h[32];

	if (column == SAT_COUNT_CHANGE)
		snprintf(buf, size, "%+" PRId64, sum_shown(d, column));
	else
		snprintf(buf, size, "%s%s", d > 0 && d <= SAT_MAX ? "+" : "",
		    sum_human(d, column, h, sizeof(h)));
	return buf;
}

/*
 * The groups that changed since the earlier run, biggest growth first:
 * each one's sums now and their changes, marked new, gone or changed.
 * 1 when one changed, as diff(1) says it.
 */
static int
write_diff(void)
{
	struct group **v = emalloc((nall ? nall : 1) * sizeof(*v));
	size_t i, k, n = 0, nnew = 0, ngone = 0, nsame = 0, w[K_NKEYS] = { 0 };
	char *f[K_NKEYS], *copy, a[5][48];

	for (i = 0; i < nall; i++) {
		struct group *g = all[i];
		if (g->in == 3 && !memcmp(&g->s, &g->old, sizeof(g->s))) {
			nsame++;
			continue;
		}
		nnew += g->in == 1;
		ngone += g->in == 2;
		v[n++] = g;
	}
	n = sort_top(v, n, by_change);
	if (format == F_TSV) {
		tsv_header("count\tsize\timpact\told-count\told-size\told-impact\tstate");
	} else if (format == F_JSON) {
		printf("[");
	} else {
		for (k = 0; k < nkeys; k++)
			w[k] = strlen(key_heading(keys[k]));
		for (i = 0; i < n; i++) {
			copy = estrdup(v[i]->key);
			split(copy, f, K_NKEYS);
			for (k = 0; k < nkeys; k++) {
				char *e = shown_name(f[k]);
				w[k] = strlen(e) > w[k] ? (strlen(e) < 60 ? strlen(e) : 60) : w[k];
				free(e);
			}
			free(copy);
		}
		for (k = 0; k < nkeys; k++)
			printf("%-*s  ", (int)w[k], key_heading(keys[k]));
		printf("%8s %8s  %10s %11s  %14s %11s\n", "Count", "change", "Size", "change",
		    "Impacting Size", "change");
	}
	for (i = 0; i < n; i++) {
		const struct group *g = v[i];
		copy = estrdup(g->key);
		split(copy, f, K_NKEYS);
		if (format == F_TSV) {
			printf("%s\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64
			    "\t%" PRId64 "\t%s\n", g->key, sum_shown(g->s.count, SAT_COUNT),
			    sum_shown(g->s.size, SAT_SIZE), sum_shown(g->s.impact, SAT_IMPACT),
			    sum_shown(g->old.count, SAT_COUNT), sum_shown(g->old.size, SAT_SIZE),
			    sum_shown(g->old.impact, SAT_IMPACT), diff_state(g));
		} else if (format == F_JSON) {
			printf("%s\n  {", i ? "," : "");
			json_keys(f);
			printf("\"count\": %" PRId64 ", \"size\": %" PRId64 ", \"impact\": %" PRId64
			    ", \"old-count\": %" PRId64 ", \"old-size\": %" PRId64 ", \"old-impact\": %"
			    PRId64 ", \"state\": \"%s\"}", sum_shown(g->s.count, SAT_COUNT),
			    sum_shown(g->s.size, SAT_SIZE), sum_shown(g->s.impact, SAT_IMPACT),
			    sum_shown(g->old.count, SAT_COUNT), sum_shown(g->old.size, SAT_SIZE),
			    sum_shown(g->old.impact, SAT_IMPACT), diff_state(g));
		} else {
			for (k = 0; k < nkeys; k++) {
				char *e = shown_name(f[k]);
				put_cell(e, w[k], keys[k] != K_STACK && keys[k] != K_FREE_STACK);
				printf("  ");
				free(e);
			}
			printf("%8" PRId64 " %8s  %10s %11s  %14s %11s%s%s\n",
			    sum_shown(g->s.count, SAT_COUNT),
			    change(g->s.count - g->old.count, SAT_COUNT_CHANGE, a[0], sizeof(a[0])),
			    sum_human(g->s.size, SAT_SIZE, a[1], sizeof(a[1])),
			    change(g->s.size - g->old.size, SAT_SIZE_CHANGE, a[2], sizeof(a[2])),
			    sum_human(g->s.impact, SAT_IMPACT, a[3], sizeof(a[3])),
			    change(g->s.impact - g->old.impact, SAT_IMPACT_CHANGE, a[4], sizeof(a[4])),
			    g->in == 3 ? "" : "  ", g->in == 3 ? "" : diff_state(g));
		}
		free(copy);
	}
	if (format == F_JSON)
		printf("%s]\n", n ? "\n" : "");
	fprintf(stderr, "%s: %zu groups changed (%zu new, %zu gone), %zu the same\n",
	    mt_progname, nall - nsame, nnew, ngone, nsame);
	free(v);
	return nall != nsame;
}

/*
 * Folded stacks for flame graphs: "proc;outer;...;inner weight".  A flame
 * graph has no negative widths: what a window freed (a negative impact)
 * is its own tower, under a first frame "[freed]", with its bytes.
 */
static void
write_folded(void)
{
	size_t i;
	int64_t v;

	for (i = 0; i < nall; i++) {
		v = weight_impact ? sum_shown(all[i]->s.impact, SAT_IMPACT) :
		    sum_shown(all[i]->s.size, SAT_SIZE);
		if (v > 0)
			printf("%s %" PRId64 "\n", all[i]->key, v);
		else if (v < 0)
			printf("[freed];%s %" PRIu64 "\n", all[i]->key, -(uint64_t)v);
	}
}

/*
 * A node's children: the runs of its groups that share one more element;
 * a row for what the node allocated itself (its groups whose path ends
 * there) when it has children too; past --top, one row for the rest.
 */
enum row { R_NODE, R_SELF, R_MORE };
struct kid {
	size_t lo, hi;		/* its groups, in pall */
	struct sums s;
	const char *name;
	enum row row;
};
static struct kid *kids;
static size_t nkids, kidcap;
static uint64_t last_id;

static int
kid_sort(const void *a, const void *b)
{
	const struct kid *x = a, *y = b;

	return sums_cmp(&x->s, x->name, &y->s, y->name);
}

static void
push_kid(size_t lo, size_t hi, const char *name, enum row row)
{
	struct kid *k;
	size_t i;

	kids = egrow(kids, nkids, &kidcap, sizeof(*kids));
	k = &kids[nkids++];
	*k = (struct kid){ .lo = lo, .hi = hi, .name = name, .row = row };
	for (i = lo; i < hi; i++)
		sums_add(&k->s, &pall[i]->s);
}

static void tree_row(const char *, char *, size_t, const struct sums *);

/* A node's row; for JSON, the object left open for its children. */
static void
row_begin(const char *name, const char *level, const struct sums *s, size_t depth,
    uint64_t id, uint64_t parent, int first)
{
	const char *tab = strchr(name, '\t');
	char *fn = tab ? estrndup(name, (size_t)(tab - name)) : NULL;
	char *shown = shown_name(fn ? fn : name), *where = NULL;

	if (tab && format == F_TABLE) {
		const char *base = strrchr(tab + 1, '/');
		where = ctl_shown(base ? base + 1 : tab + 1);
	} else if (tab) {
		/* "function file:line" */
		char *t = emalloc(strlen(shown) + strlen(tab) + 1);
		sprintf(t, "%s %s", shown, tab + 1);
		free(shown);
		shown = t;
	}
	free(fn);
	switch (format) {
	case F_TSV:
		printf("%" PRIu64 "\t", id);
		if (depth)
			printf("%" PRIu64 "\t", parent);
		else
			printf("-\t");
		printf("%s\t%s\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\n", level, shown,
		    sum_shown(s->count, SAT_COUNT), sum_shown(s->size, SAT_SIZE),
		    sum_shown(s->impact, SAT_IMPACT), per_alloc(s));
		break;
	case F_JSON:
		printf("%s\n%*s{\"level\": ", first ? "" : ",", (int)depth, "");
		json_str(level, strlen(level));
		printf(", \"name\": ");
		json_str(shown, strlen(shown));
		printf(", \"count\": %" PRId64 ", \"size\": %" PRId64 ", \"impact\": %" PRId64
		    ", \"per-alloc\": %" PRId64, sum_shown(s->count, SAT_COUNT),
		    sum_shown(s->size, SAT_SIZE), sum_shown(s->impact, SAT_IMPACT), per_alloc(s));
		break;
	default:
		tree_row(shown, where, depth, s);
		free(where);
		break;
	}
	free(shown);
}

#define TREE_INDENT 16	/* the levels indented; deeper ones say their level */

/*
 * The tree as a table: two columns a level to the sixteenth, past it
 * "#17 " before the name; the name column as wide as its widest row, or
 * in 120 columns (not under 60) with the names cut (name_cut) unless
 * --no-shorten, so that the numbers stay in line at any depth.  The tree
 * is walked twice, to measure and to write: a row a frame is not kept.
 */
static int measuring;
static size_t tw, cw, sw, iw, pw;	/* the columns' widths */

static void
tree_row(const char *name, char *where, size_t depth, const struct sums *s)
{
	size_t ind = 2 * (depth < TREE_INDENT ? depth : TREE_INDENT), room, wl;
	char a[32], b[32], c[32], pre[32], *fn, *line;
	int cut = shorten != 0;

	pre[0] = '\0';
	if (depth > TREE_INDENT)
		snprintf(pre, sizeof(pre), "#%zu ", depth);
	wl = where ? strlen(where) : 0;
	if (measuring) {
		room = ind + strlen(pre) + strlen(name) + (wl ? wl + 1 : 0);
		tw = room > tw ? room : tw;
		snprintf(a, sizeof(a), "%" PRId64, sum_shown(s->count, SAT_COUNT));
		cw = strlen(a) > cw ? strlen(a) : cw;
		sw = strlen(sum_human(s->size, SAT_SIZE, b, sizeof(b))) > sw ? strlen(b) : sw;
		iw = strlen(sum_human(s->impact, SAT_IMPACT, b, sizeof(b))) > iw ? strlen(b) : iw;
		pw = strlen(mt_human(per_alloc(s), b, sizeof(b))) > pw ? strlen(b) : pw;
		return;
	}
	room = tw > ind + strlen(pre) ? tw - ind - strlen(pre) : 0;
	if (cut && wl && wl > room / 2 && room / 2 > 3) {
		/* its file cut before the line */
		memmove(where + 3, where + wl - (room / 2 - 3), room / 2 - 3 + 1);
		memcpy(where, "...", 3);
		wl = room / 2;
	}
	fn = cut && room > wl + 1 ? name_cut(name, room - (wl ? wl + 1 : 0)) : estrdup(name);
	line = emalloc(strlen(pre) + strlen(fn) + wl + 2);
	sprintf(line, "%s%s%s%s", pre, fn, wl ? " " : "", wl ? where : "");
	printf("%*s%-*s  %*" PRId64 "  %*s  %*s  %*s\n", (int)ind, "", (int)(tw - ind), line,
	    (int)cw, sum_shown(s->count, SAT_COUNT), (int)sw, sum_human(s->size, SAT_SIZE, a, sizeof(a)),
	    (int)iw, sum_human(s->impact, SAT_IMPACT, b, sizeof(b)),
	    (int)pw, mt_human(per_alloc(s), c, sizeof(c)));
	free(line);
	free(fn);
}

/* The children of the node of groups [lo, hi), whose paths share d elements. */
static void
draw(size_t lo, size_t hi, size_t d, uint64_t id)
{
	size_t base = nkids, m = lo, i, j, n;
	const char *level = d < nlevels ? key_names[keys[d]] : "frame";

	while (m < hi && path_len(pall[m]) == d)
		m++;
	for (i = m; i < hi; i = j) {
		const char *name = path_at(pall[i], d);
		for (j = i + 1; j < hi && path_at(pall[j], d) == name; j++)
			;
		push_kid(i, j, name, R_NODE);
	}
	if (m > lo && nkids > base)
		push_kid(lo, m, d == nlevels ? "[no stack]" : "[self]", R_SELF);
	n = nkids - base;
	if (n)
		qsort(kids + base, n, sizeof(*kids), kid_sort);
	if (top >= 0 && (size_t)top < n) {
		static char more[64];
		struct kid *k = &kids[base + top];

		snprintf(more, sizeof(more), "[%zu more]", n - (size_t)top);
		for (i = base + (size_t)top + 1; i < nkids; i++)
			sums_add(&k->s, &kids[i].s);
		k->name = dict_intern(dict, more, strlen(more));
		k->row = R_MORE;
		n = (size_t)top + 1;
		nkids = base + n;
	}
	if (n && format == F_JSON)
		printf(", \"children\": [");
	for (i = 0; i < n; i++) {
		struct kid k = kids[base + i];	/* kids grows below */
		uint64_t kid_id = ++last_id;

		row_begin(k.name, k.row == R_SELF ? "self" : k.row == R_MORE ? "more" : level,
		    &k.s, d + 1, kid_id, id, i == 0);
		if (k.row == R_NODE)
			draw(k.lo, k.hi, d + 1, kid_id);
		if (format == F_JSON)
			printf("}");
	}
	if (n && format == F_JSON)
		printf("]");
	nkids = base;
}

static void
write_tree(void)
{
	struct sums total = { 0 };
	size_t i;

	if (npall)
		qsort(pall, npall, sizeof(*pall), path_cmp);
	for (i = 0; i < npall; i++)
		sums_add(&total, &pall[i]->s);
	if (format == F_TSV)
		printf("id\tparent\tlevel\tname\tcount\tsize\timpact\tper-alloc\n");
	if (format == F_TABLE) {
		char head[256] = "";
		size_t len = 0;

		for (i = 0; i < nlevels && len < sizeof(head) - 64; i++)
			len += (size_t)snprintf(head + len, sizeof(head) - len, "%s > ",
			    key_heading(keys[i]));
		snprintf(head + len, sizeof(head) - len, "stack");
		tw = strlen(head), cw = 5, sw = 4, iw = 14, pw = 9;
		measuring = 1;
		row_begin("all", "all", &total, 0, 0, 0, 1);
		draw(0, npall, 0, 0);
		measuring = 0;
		if (shorten && tw + 2 + cw + sw + iw + pw + 8 > TABLE_WIDTH)
			tw = TABLE_WIDTH - 2 - (cw + sw + iw + pw + 8) > 60 ?
			    TABLE_WIDTH - 2 - (cw + sw + iw + pw + 8) : 60;
		printf("%-*s  %*s  %*s  %*s  %*s\n", (int)tw, head, (int)cw, "Count", (int)sw,
		    "Size", (int)iw, "Impacting Size", (int)pw, "Per Alloc");
	}
	last_id = 0;
	row_begin("all", "all", &total, 0, 0, 0, 1);
	draw(0, npall, 0, 0);
	if (format == F_JSON)
		printf("}\n");
	for (i = 0; i < npall; i++)
		free(pall[i]->frames), free(pall[i]);
	free(pall);
	free(kids);
	u64map_free(&pgroups, NULL);
}

static int by_given;		/* --by */
static uint64_t kernel_procs, other_procs;	/* proc lines of [kernel], of the rest */

/*
 * A kernel trace (mt-record --kernel: its one process is pid 0,
 * "[kernel]") grouped by default by the task that allocated, not by the
 * process, which is the kernel for every row.
 */
static void
kernel_keys(void)
{
	size_t k;

	if (!kernel_procs || other_procs)
		return;
	for (k = 0; k < nkeys; k++)
		if (keys[k] == K_PROCESS)
			keys[k] = K_TASK, uncached = 1;
}

static int
group_file(const char *path)
{
	struct mt_reader *r;
	struct mt_event ev;
	int added;

	if (!(r = reader_open(path)))
		return 1;
	while (reader_next(r, &ev)) {
		if (pprof)
			pprof_event(pprof, &ev);
		if (ev.type == MT_COMMENT)
			header_resolution(&ev.s1);
		if (ev.type == MT_PROC && ev.pid == 0 && ev.s1.len == 8 &&
		    !memcmp(ev.s1.s, "[kernel]", 8))
			kernel_procs++;
		else if (ev.type == MT_PROC)
			other_procs++;
		if ((added = dict_add(dict, &ev))) {
			/* A process renamed, a stack redefined. */
			kept_gen += ev.type == MT_PROC || added == 2;
			if (added == 2)
				suppress_forget(suppress);
			continue;
		}
		/* Unknown records were passed on before us. */
		if (ev.type == MT_LIFE) {
			if (!nlife && !by_given)
				kernel_keys();
			group_life(&ev);
			nlife++;
		} else if (ev.type == MT_ALLOC || ev.type == MT_FREE) {
			nraw++;
		}
	}
	return reader_close(r);
}

static void
parse_keys(const char *s)
{
	const char *e;
	size_t k, n;

	for (nkeys = 0; *s; s = *e ? e + 1 : e) {
		e = s + strcspn(s, ",");
		n = (size_t)(e - s);
		for (k = 0; k < K_NKEYS; k++)
			if (strlen(key_names[k]) == n && !memcmp(key_names[k], s, n))
				break;
		if (k == K_NKEYS || nkeys == K_NKEYS) {
			fprintf(stderr, "%s: bad key '%.*s' (process, pid, heap, type, class, "
			    "function, stack, module, file, line, free-function, free-stack, task, "
			    "temporary, size-class, order, commit-time, decommit-time)\n",
			    mt_progname, (int)strlen(mt_shown(s, n)), mt_shown(s, n));
			exit(2);
		}
		uncached |= k == K_FREE_FUNCTION || k == K_FREE_STACK || k == K_TASK ||
		    k == K_TEMPORARY || k == K_SIZE_CLASS || k == K_ORDER || k == K_COMMIT_TIME ||
		    k == K_DECOMMIT_TIME;
		keys[nkeys++] = (enum key)k;
	}
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "by", required_argument, NULL, 'k' },
		{ "sort", required_argument, NULL, 's' },
		{ "top", required_argument, NULL, 'n' },
		{ "tree", optional_argument, NULL, 'T' },
		{ "depth", required_argument, NULL, 'D' },
		{ "from-main", no_argument, NULL, 'M' },
		/* Long only: their letters are not in the short options. */
		{ "shorten", no_argument, NULL, 'C' },
		{ "diff", required_argument, NULL, 'E' },
		{ "histogram", no_argument, NULL, 'H' },
		{ "suppress", required_argument, NULL, 'P' },
		{ "no-suppress", no_argument, NULL, 'N' },
		{ "no-shorten", no_argument, NULL, 'L' },
		{ "format", required_argument, NULL, 'F' },
		{ "weight", required_argument, NULL, 'w' },
		{ "skip", required_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	int ch, i, status = 0;
	char *end;
	size_t k;

	mt_setprogname(argv[0]);
	suppress = suppress_new();
	parse_keys("process,heap,type,function");
	while ((ch = getopt_long(argc, argv, "k:b:s:n:T::tD:MF:f:w:A:S:hV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'k':
		case 'b':
			parse_keys(optarg);
			by_given = 1;
			break;
		case 'C':
			shorten = 1;
			break;
		case 'M':
			from_main = 1;
			break;
		case 'E':
			diff_path = optarg;
			break;
		case 'H':
			histogram = 1;
			break;
		case 'P':
			if (suppress_read(suppress, optarg))
				return 2;
			break;
		case 'N':
			no_suppress = 1;
			break;
		case 'L':
			shorten = 0;
			break;
		case 'D':
			max_depth = strtol(optarg, &end, 10);
			if (*end || end == optarg || max_depth < 0) {
				fprintf(stderr, "%s: bad depth '%s'\n", mt_progname, mt_shown(optarg, strlen(optarg)));
				return 2;
			}
			break;
		case 's':
			if (!strcmp(optarg, "impact"))
				sort_by = S_IMPACT;
			else if (!strcmp(optarg, "size"))
				sort_by = S_SIZE;
			else if (!strcmp(optarg, "count"))
				sort_by = S_COUNT;
			else {
				fprintf(stderr, "%s: bad sort key '%s' (impact, size, count)\n",
				    mt_progname, mt_shown(mt_shown(optarg, strlen(optarg)), strlen(optarg)));
				return 2;
			}
			break;
		case 'n':
			top = strtol(optarg, &end, 10);
			if (*end || end == optarg || top < 0) {
				fprintf(stderr, "%s: bad count '%s'\n", mt_progname, mt_shown(mt_shown(optarg, strlen(optarg)), strlen(optarg)));
				return 2;
			}
			break;
		case 'T':
		case 't':
			tree = 1;
			if (optarg && *optarg == '=')	/* -T=bottom-up as --tree= */
				optarg++;
			if (optarg && !strcmp(optarg, "bottom-up"))
				bottom_up = 1;
			else if (optarg && strcmp(optarg, "top-down")) {
				fprintf(stderr, "%s: bad tree '%s' (top-down, bottom-up)\n",
				    mt_progname, mt_shown(mt_shown(optarg, strlen(optarg)), strlen(optarg)));
				return 2;
			}
			break;
		case 'F':
		case 'f':
			if (!strcmp(optarg, "table"))
				format = F_TABLE;
			else if (!strcmp(optarg, "tsv"))
				format = F_TSV;
			else if (!strcmp(optarg, "json"))
				format = F_JSON;
			else if (!strcmp(optarg, "folded"))
				format = F_FOLDED;
			else if (!strcmp(optarg, "pprof"))
				format = F_PPROF;
			else {
				fprintf(stderr, "%s: bad format '%s' (table, tsv, json, folded, pprof)\n",
				    mt_progname, mt_shown(mt_shown(optarg, strlen(optarg)), strlen(optarg)));
				return 2;
			}
			break;
		case 'w':
			if (!strcmp(optarg, "impact"))
				weight_impact = 1;
			else if (strcmp(optarg, "size")) {
				fprintf(stderr, "%s: bad weight '%s' (size, impact)\n", mt_progname, mt_shown(mt_shown(optarg, strlen(optarg)), strlen(optarg)));
				return 2;
			}
			break;
		case 'A':
		case 'S':
			skip_pattern = optarg;
			break;
		case 'h':
			mt_usage(1, synopsis, options);
		case 'V':
			mt_version();
		default:
			mt_usage(0, synopsis, options);
		}
	}
	argc -= optind;
	argv += optind;
	if (histogram) {
		/* The size classes under the keys asked for, in their order. */
		if (!by_given)
			nkeys = 0;
		for (k = 0; k < nkeys && keys[k] != K_SIZE_CLASS; k++)
			;
		if (k == nkeys)
			keys[nkeys++] = K_SIZE_CLASS;
		uncached = 1;
		sort_by = S_KEY;
		if (tree || format == F_FOLDED || format == F_PPROF) {
			fprintf(stderr, "%s: --histogram is a table: not with --tree, folded "
			    "stacks or pprof\n", mt_progname);
			return 2;
		}
	}
	if (tree) {
		/* The keys are the tree's levels, the stacks under the last. */
		if (!by_given)
			parse_keys("process");
		for (k = 0; k < nkeys; k++)
			if (keys[k] == K_STACK && k + 1 < nkeys) {
				fprintf(stderr, "%s: with --tree, stack is the last key "
				    "(the stacks are drawn under the others)\n", mt_progname);
				return 2;
			}
		/* function,line: one level, the function with its line */
		for (k = 0; k + 1 < nkeys; k++)
			if (keys[k] == K_FUNCTION && keys[k + 1] == K_LINE)
				memmove(keys + k, keys + k + 1, (--nkeys - k) * sizeof(*keys));
		for (k = 0; k < nkeys; k++)
			with_lines |= keys[k] == K_LINE;
		nlevels = nkeys && keys[nkeys - 1] == K_STACK ? nkeys - 1 : nkeys;
		if (diff_path) {
			fprintf(stderr, "%s: --diff compares tables: not with --tree\n", mt_progname);
			return 2;
		}
		if (format == F_FOLDED || format == F_PPROF) {
			fprintf(stderr, "%s: --tree and --format %s: %s a tree already; "
			    "choose one\n", mt_progname, format == F_FOLDED ? "folded" : "pprof",
			    format == F_FOLDED ? "folded stacks are" : "a profile is");
			return 2;
		}
	} else if (diff_path && (format == F_FOLDED || format == F_PPROF)) {
		fprintf(stderr, "%s: --diff compares tables: not %s\n", mt_progname,
		    format == F_FOLDED ? "folded stacks" : "pprof profiles");
		return 2;
	} else if (max_depth >= 0) {
		fprintf(stderr, "%s: --depth is the tree's (--tree)\n", mt_progname);
		return 2;
	}
	/* gzip(1)'s rule: compressed bytes are not for a terminal. */
	if (format == F_PPROF && isatty(STDOUT_FILENO)) {
		fprintf(stderr, "%s: a pprof profile is binary: not written to a terminal "
		    "(> file.pb.gz)\n", mt_progname);
		return 2;
	}
	if (!reader_inputs(&argc, argv))
		return 1;
	dict = dict_new(skip_pattern);
	if (format == F_PPROF)
		pprof = pprof_new(dict);
	cut_name = dict_intern(dict, "[...]", 5);
	startup_name = dict_intern(dict, "[start-up]", 10);
	if (!no_suppress && suppress_builtin(suppress))
		return 2;
	if (no_suppress)
		suppress_none(suppress);
	if (argc == 0)
		status |= group_file(NULL);
	for (i = 0; i < argc; i++)
		status |= group_file(argv[i]);
	if (!nlife && nraw) {
		fprintf(stderr, "%s: no life records: run mt-lifetime first\n", mt_progname);
		return 1;
	}
	if (diff_path) {
		/* As diff(1): 0 the same, 1 changed, 2 trouble. */
		int old = read_old(diff_path), changed;

		if (old == 2)
			return 2;
		changed = write_diff();
		suppress_say(suppress, &sat[SAT_SUPPRESSED]);
		say_saturated();
		return (mt_close_stdout() | status | mt_status | old) ? 2 : changed;
	}
	if (tree) {
		write_tree();
	} else if (pprof) {
		status |= pprof_write(pprof, stdout, &sat[SAT_PPROF]);
		pprof_free(pprof);
		pprof = NULL;
	} else if (format == F_FOLDED)
		write_folded();
	else
		write_groups();
	suppress_say(suppress, &sat[SAT_SUPPRESSED]);
	say_saturated();
	return (mt_close_stdout() | status | mt_status) ? 1 : 0;
}
