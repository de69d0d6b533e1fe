/*
 * mt-group's groups: each lifetime summed in the group of its key (or,
 * for --tree, of its path), the suppressions' lifetimes left out, and
 * the input read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "group.h"

uint64_t nlife, nraw;
struct group **all;
size_t nall;
static struct u64map groups;	/* hash of key -> chain */
static size_t allcap;

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

/*
 * A lifetime's group is a function of its process (the name its pid has
 * now), pid, heap, class and stack (whose frames the dictionary fixes at
 * their first use): the group of those last seen together is kept, so
 * that the key is not made again for every lifetime.  A proc record may
 * rename a process and a stack record give an id other frames: the kept
 * groups are forgotten then (gen).  Only for the heaps a trace names by
 * the library's bytes, and the four classes.
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

	if ((*cls = life_class_parse(ev->s1.s, ev->s1.len)) < 0)
		return NULL;
	for (k = 0; k < 3; k++)
		if (ev->heap.s == mt_heap_names[k].s)
			break;
	if (k == 3)
		return NULL;
	return &kept[hash64(stack * 31 + (uint64_t)ev->pid * 4 + (uint64_t)*cls +
	    (uint64_t)k * 0x9e3779b9) & (KEPT - 1)];
}

struct group *
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

void
sums_add(const struct group_opts *o, struct sums *to, const struct sums *s)
{
	to->count += s->count;
	to->size += s->size;
	to->impact += s->impact;
}

/* The group of a lifetime, by its key made afresh. */
static struct group *
group_by_key(const struct group_opts *o, const struct mt_event *ev)
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
	if (o->format == F_FOLDED) {
		/* The process is the root of every stack. */
		stack_frame_add(&key, &len, &cap, dict_process(dict, ev->pid));
		if (si && si->n)
			folded(o, si, &key, &len, &cap);
		return group_of(key, len);
	}
	for (i = 0; i < o->nkeys; i++) {
		s = key_value(o, o->keys[i], ev, si, fsi, &n);
		add_key(&key, &len, &cap, s, n);
	}
	return group_of(key, len);
}

/* A lifetime never freed that a rule suppresses: counted there, or 0. */
static int
suppressed(const struct group_opts *o, const struct mt_event *ev)
{
	long r;

	if (o->no_suppress || (ev->flags & EV_STACK_NONE))
		return 0;
	if (!(ev->flags & EV_TS2_NONE) && !(ev->s2.len == 4 && !memcmp(ev->s2.s, "exit", 4)))
		return 0;
	if ((r = suppress_match(o->suppress, dict, ev->stack)) < 0)
		return 0;
	suppress_count(o->suppress, r, ev->flags & EV_SIZE_NONE ? 0 : ev->size);
	return 1;
}

static void
group_life(const struct group_opts *o, const struct mt_event *ev)
{
	uint64_t stack = ev->flags & EV_STACK_NONE ? UINT64_MAX : ev->stack;
	struct kept *k;
	struct sums *g;
	int cls = -1;

	if (suppressed(o, ev))
		return;
	if (pprof) {
		struct mt_stackinfo *si = ev->flags & EV_STACK_NONE ? NULL :
		    dict_stack(dict, ev->stack);
		pprof_life(pprof, ev, si, si ? startup_of(o, si) : 0);
		return;
	}
	k = o->uncached ? NULL : kept_slot(ev, stack, &cls);
	if (k && k->gen == kept_gen && k->stack == stack && k->pid == ev->pid &&
	    k->heap == ev->heap.s && k->cls == cls) {
		account(k->g, ev);
		return;
	}
	if (o->tree) {
		g = path_sums(o, ev);
	} else {
		struct group *gr = group_by_key(o, ev);
		gr->in |= 1;
		g = &gr->s;
	}
	if (k)
		*k = (struct kept){ stack, ev->pid, ev->heap.s, kept_gen, cls, g };
	account(g, ev);
}

static uint64_t kernel_procs, other_procs;	/* proc lines of [kernel], of the rest */

/*
 * A kernel trace (mt-record --kernel: its one process is pid 0,
 * "[kernel]") grouped by default by the task that allocated, not by the
 * process, which is the kernel for every row.
 */
static void
kernel_keys(struct group_opts *o)
{
	size_t k;

	if (!kernel_procs || other_procs)
		return;
	for (k = 0; k < o->nkeys; k++)
		if (o->keys[k] == K_PROCESS)
			o->keys[k] = K_TASK, o->uncached = 1;
}


int
group_file(struct group_opts *o, const char *path)
{
	struct mt_reader *r;
	struct mt_event ev;
	int added;

	if (!(r = reader_open(path)))
		return 1;
	while (reader_next(r, &ev)) {
		if (pprof)
			pprof_event(pprof, &ev);
		if (ev.header)
			header_resolution(ev.header);
		if (ev.type == MT_PROC && ev.pid == 0 && ev.s1.len == 8 &&
		    !memcmp(ev.s1.s, "[kernel]", 8))
			kernel_procs++;
		else if (ev.type == MT_PROC)
			other_procs++;
		if ((added = dict_add(dict, &ev))) {
			/* A process renamed, a stack redefined. */
			kept_gen += ev.type == MT_PROC || added == 2;
			if (added == 2)
				suppress_forget(o->suppress);
			continue;
		}
		/* Unknown records were passed on before us. */
		if (ev.type == MT_LIFE) {
			if (!nlife && !o->by_given)
				kernel_keys(o);
			group_life(o, &ev);
			nlife++;
		} else if (ev.type == MT_ALLOC || ev.type == MT_FREE) {
			nraw++;
		}
	}
	return reader_close(r);
}
