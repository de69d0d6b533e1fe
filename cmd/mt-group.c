/*
 * mt-group: WPA's tables from life lines.  Groups lifetimes by the keys
 * asked for and sums Count, Size (the bytes allocated inside the window)
 * and Impacting Size; or draws their stacks as a tree with the sums at
 * every node; as an aligned table, TSV, JSON or folded stacks.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mt.h"

static const char synopsis[] = "[-k keys] [-s impact|size|count] [-n count] [-T[=bottom-up]] "
    "[-F table|tsv|json|folded] [-w size|impact] [-A regex] [file ...]";
static const char options[] =
    "Groups life lines as WPA's table does: Count, Size and Impacting Size a group,\n"
    "biggest first; or a tree of their stacks; or folded stacks for a flame graph.\n"
    "\n"
    "  -k, --by KEYS        the columns, in order, from process, pid, heap, type,\n"
    "                       class, function, stack, module, file, free-function,\n"
    "                       free-stack (the free's, from mt-record -F), task\n"
    "                       (default process,heap,type,function; -b is the old spelling)\n"
    "  -s, --sort KEY       impact (default), size or count\n"
    "  -n, --top N          only the N biggest groups\n"
    "  -T, --tree[=bottom-up]  the stacks as a tree, callers first or callees first\n"
    "                       (-t is the old spelling)\n"
    "  -F, --format FORMAT  table (default), tsv, json, or folded (flame-graph input)\n"
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
	K_FILE, K_FREE_FUNCTION, K_FREE_STACK, K_TASK, K_NKEYS };
static const char *const key_names[K_NKEYS] = { "process", "pid", "heap", "type",
	"class", "function", "stack", "module", "file", "free-function", "free-stack", "task" };
static int uncached;	/* a key beyond (process, heap, class, stack): no kept groups */

enum format { F_TABLE, F_TSV, F_JSON, F_FOLDED };
enum sort { S_IMPACT, S_SIZE, S_COUNT };

static enum key keys[K_NKEYS];
static size_t nkeys;
static enum format format = F_TABLE;
static enum sort sort_by = S_IMPACT;
static long top = -1;
static int tree, bottom_up, weight_impact;

static struct mt_dict *dict;	/* processes, stacks and symbols */
static const char *skip_pattern;

struct group {
	char *key;		/* the key fields, TAB-separated */
	size_t klen;
	uint64_t count, size;
	int64_t impact;
	struct group *next;
};

static struct u64map groups;	/* hash of key -> chain */
static struct group **all;
static size_t nall, allcap;

static const char *
type_of(struct mt_str cls)
{
	if (cls.len == 4 && !memcmp(cls.s, "aifi", 4))
		return "transient";
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

/* Appends a frame after a ';' (but at the start), its own ';' and '\\'
   escaped with a '\\'. */
static void
add_frame(char **p, size_t *len, size_t *cap, const char *f)
{
	size_t n = strlen(f) * 2;

	if (*len + n + 2 > *cap) {
		*cap = (*len + n + 2) * 2;
		*p = erealloc(*p, *cap);
	}
	if (*len && (*p)[*len - 1] != '\t')
		(*p)[(*len)++] = ';';
	for (; *f; f++) {
		if (*f == ';' || *f == '\\')
			(*p)[(*len)++] = '\\';
		(*p)[(*len)++] = *f;
	}
	(*p)[*len] = '\0';
}

/*
 * The stack as folded frames, outermost first, from the allocating one;
 * one cut at the recorder's depth begins with a frame "[...]" for the
 * callers missing.
 */
static void
folded(struct mt_stackinfo *si, char **p, size_t *len, size_t *cap)
{
	size_t i;

	if (si->cut)
		add_frame(p, len, cap, "[...]");
	for (i = si->n; i-- > si->alloc_frame;)
		add_frame(p, len, cap, si->frame[i]->function);
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
	struct group *g;
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
account(struct group *g, const struct mt_event *ev)
{
	int ai = ev->s1.len == 4 && ev->s1.s[1] == 'i';

	g->count++;
	/* Size: what was allocated inside the window; Impact as computed. */
	if (ai && !(ev->flags & EV_SIZE_NONE))
		g->size += ev->size;
	g->impact += ev->impact;
}

/* The group of a lifetime, by its key made afresh. */
static struct group *
group_by_key(const struct mt_event *ev)
{
	static char *key;
	static size_t cap;
	size_t len = 0, i;
	struct mt_stackinfo *si = NULL, *fsi = NULL;
	char buf[64];
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
	if (format == F_FOLDED || tree) {
		/* The process is the root of every stack. */
		add_frame(&key, &len, &cap, dict_process(dict, ev->pid));
		if (si && si->n)
			folded(si, &key, &len, &cap);
		return group_of(key, len);
	}
	for (i = 0; i < nkeys; i++) {
		switch (keys[i]) {
		case K_PROCESS:
			s = dict_process(dict, ev->pid);
			add_key(&key, &len, &cap, s, strlen(s));
			break;
		case K_PID:
			add_key(&key, &len, &cap, buf, (size_t)snprintf(buf, sizeof(buf), "%" PRId64, ev->pid));
			break;
		case K_HEAP:
			add_key(&key, &len, &cap, ev->heap.s, ev->heap.len);
			break;
		case K_TYPE:
			s = type_of(ev->s1);
			add_key(&key, &len, &cap, s, strlen(s));
			break;
		case K_CLASS:
			add_key(&key, &len, &cap, ev->s1.s, ev->s1.len);
			break;
		case K_FUNCTION:
		case K_MODULE:
		case K_FILE:
			s = "-";
			if (si && si->n) {
				size_t f = si->alloc_frame;
				s = keys[i] == K_FUNCTION ? si->frame[f]->function :
				    keys[i] == K_MODULE ? si->frame[f]->module : si->frame[f]->file;
			}
			add_key(&key, &len, &cap, s, strlen(s));
			break;
		case K_STACK:
		case K_FREE_STACK: {
			struct mt_stackinfo *x = keys[i] == K_STACK ? si : fsi;
			if (x && x->n) {
				add_key(&key, &len, &cap, "", 0);
				folded(x, &key, &len, &cap);
			} else {
				add_key(&key, &len, &cap, "-", 1);
			}
			break;
		}
		case K_TASK: {
			/* The kernel's events by the task that made them (comm:tid);
			   a process's by its name and thread. */
			const char *comm = ev->pid == 0 ? dict_task(dict, ev->tid) : NULL;
			int n = snprintf(buf, sizeof(buf), "%.40s:%" PRId64, comm ? comm :
			    dict_process(dict, ev->pid), (ev->flags & EV_TID_NONE) ? -1 : ev->tid);
			add_key(&key, &len, &cap, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
			break;
		}
		case K_FREE_FUNCTION:
			s = fsi && fsi->n ? fsi->frame[fsi->alloc_frame]->function : "-";
			add_key(&key, &len, &cap, s, strlen(s));
			break;
		default:
			break;
		}
	}
	return group_of(key, len);
}

static void
group_life(const struct mt_event *ev)
{
	uint64_t stack = ev->flags & EV_STACK_NONE ? UINT64_MAX : ev->stack;
	struct kept *k;
	struct group *g;
	int cls = -1;

	k = uncached ? NULL : kept_slot(ev, stack, &cls);
	if (k && k->gen == kept_gen && k->stack == stack && k->pid == ev->pid &&
	    k->heap == ev->heap.s && k->cls == cls) {
		account(k->g, ev);
		return;
	}
	g = group_by_key(ev);
	if (k)
		*k = (struct kept){ stack, ev->pid, ev->heap.s, kept_gen, cls, g };
	account(g, ev);
}

static int
by_sort(const void *a, const void *b)
{
	const struct group *x = *(const struct group *const *)a;
	const struct group *y = *(const struct group *const *)b;
	int64_t dx, dy;

	switch (sort_by) {
	case S_SIZE:
		return x->size < y->size ? 1 : x->size > y->size ? -1 : strcmp(x->key, y->key);
	case S_COUNT:
		return x->count < y->count ? 1 : x->count > y->count ? -1 : strcmp(x->key, y->key);
	default:
		dx = x->impact;
		dy = y->impact;
		if (dx != dy)
			return dx < dy ? 1 : -1;
		return x->size < y->size ? 1 : x->size > y->size ? -1 : strcmp(x->key, y->key);
	}
}


/* The length of the UTF-8 sequence at s (of n bytes), or 0 if it is not one. */
static size_t
utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t c;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, c = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	/* No overlong forms, no surrogates, nothing past U+10FFFF. */
	if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return len;
}

/*
 * A JSON string: quotes, backslashes and control characters escaped; a
 * byte that is not part of valid UTF-8 written as the text \xNN (our
 * rule), which strict decoders take.
 */
static void
json_str(const char *s, size_t n)
{
	size_t i, len;

	putchar('"');
	for (i = 0; i < n; i += len) {
		unsigned char c = (unsigned char)s[i];
		len = 1;
		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			printf("\\u%04x", c);
		else if (!(len = utf8_len((const unsigned char *)s + i, n - i)))
			printf("\\\\x%02x", c), len = 1;
		else
			fwrite(s + i, 1, len, stdout);
	}
	putchar('"');
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

static void
write_groups(void)
{
	size_t i, k, n = nall, w[K_NKEYS + 3] = { 0 };
	char *f[K_NKEYS], *copy, a[32], b[32];

	if (nall)
		qsort(all, nall, sizeof(*all), by_sort);
	if (top >= 0 && (size_t)top < n)
		n = (size_t)top;
	if (format == F_TSV) {
		for (k = 0; k < nkeys; k++)
			printf("%s\t", key_names[keys[k]]);
		printf("count\tsize\timpact\n");
		for (i = 0; i < n; i++)
			printf("%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRId64 "\n", all[i]->key,
			    all[i]->count, all[i]->size, all[i]->impact);
		return;
	}
	if (format == F_JSON) {
		printf("[");
		for (i = 0; i < n; i++) {
			copy = estrdup(all[i]->key);
			split(copy, f, K_NKEYS);
			printf("%s\n  {", i ? "," : "");
			for (k = 0; k < nkeys; k++) {
				json_str(key_names[keys[k]], strlen(key_names[keys[k]]));
				printf(": ");
				json_str(f[k], strlen(f[k]));
				printf(", ");
			}
			printf("\"count\": %" PRIu64 ", \"size\": %" PRIu64 ", \"impact\": %" PRId64 "}",
			    all[i]->count, all[i]->size, all[i]->impact);
			free(copy);
		}
		printf("%s]\n", n ? "\n" : "");
		return;
	}
	/* The table: column widths first. */
	for (k = 0; k < nkeys; k++)
		w[k] = strlen(key_names[keys[k]]);
	w[nkeys] = 5;
	w[nkeys + 1] = 4;
	w[nkeys + 2] = 14;
	for (i = 0; i < n; i++) {
		copy = estrdup(all[i]->key);
		split(copy, f, K_NKEYS);
		for (k = 0; k < nkeys; k++) {
			char *e = ctl_shown(f[k]);
			if (strlen(e) > w[k])
				w[k] = strlen(e);
			free(e);
		}
		snprintf(a, sizeof(a), "%" PRIu64, all[i]->count);
		if (strlen(a) > w[nkeys])
			w[nkeys] = strlen(a);
		if (strlen(mt_human((int64_t)all[i]->size, b, sizeof(b))) > w[nkeys + 1])
			w[nkeys + 1] = strlen(b);
		free(copy);
	}
	for (k = 0; k < nkeys; k++)
		printf("%-*s  ", (int)w[k], key_names[keys[k]]);
	printf("%*s  %*s  %*s\n", (int)w[nkeys], "Count", (int)w[nkeys + 1], "Size",
	    (int)w[nkeys + 2], "Impacting Size");
	for (i = 0; i < n; i++) {
		copy = estrdup(all[i]->key);
		split(copy, f, K_NKEYS);
		for (k = 0; k < nkeys; k++) {
			char *e = ctl_shown(f[k]);
			printf("%-*s  ", (int)w[k], e);
			free(e);
		}
		printf("%*" PRIu64 "  %*s  %*s\n", (int)w[nkeys], all[i]->count,
		    (int)w[nkeys + 1], mt_human((int64_t)all[i]->size, a, sizeof(a)),
		    (int)w[nkeys + 2], mt_human(all[i]->impact, b, sizeof(b)));
		free(copy);
	}
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
		v = weight_impact ? all[i]->impact : (int64_t)all[i]->size;
		if (v > 0)
			printf("%s %" PRId64 "\n", all[i]->key, v);
		else if (v < 0)
			printf("[freed];%s %" PRIu64 "\n", all[i]->key, -(uint64_t)v);
	}
}

/* The end of the frame at p: the next ';' not escaped, or the end. */
static const char *
frame_end(const char *p)
{
	for (; *p && *p != ';'; p++)
		if (*p == '\\' && p[1])
			p++;
	return p;
}

/* The tree: every prefix of every folded stack is a node. */
struct node {
	char *name;
	uint64_t count, size;
	int64_t impact;
	struct node **kids;
	size_t nkids;
};

static struct node *
kid(struct node *n, const char *frame, size_t flen)
{
	size_t i, len = 0;
	struct node *k;
	char *name = emalloc(flen + 1);

	/* The frame's name, its escapes undone. */
	for (i = 0; i < flen; i++) {
		if (frame[i] == '\\' && i + 1 < flen)
			i++;
		name[len++] = frame[i];
	}
	name[len] = '\0';
	for (i = 0; i < n->nkids; i++)
		if (!strcmp(n->kids[i]->name, name)) {
			free(name);
			return n->kids[i];
		}
	k = ecalloc(1, sizeof(*k));
	k->name = name;
	n->kids = erealloc(n->kids, (n->nkids + 1) * sizeof(*n->kids));
	n->kids[n->nkids++] = k;
	return k;
}

static void
node_free(struct node *n)
{
	size_t i;

	for (i = 0; i < n->nkids; i++)
		node_free(n->kids[i]);
	free(n->kids);
	free(n->name);
	free(n);
}

static int
node_sort(const void *a, const void *b)
{
	const struct node *x = *(const struct node *const *)a;
	const struct node *y = *(const struct node *const *)b;
	struct group gx = { .count = x->count, .size = x->size, .impact = x->impact, .key = x->name };
	struct group gy = { .count = y->count, .size = y->size, .impact = y->impact, .key = y->name };
	const struct group *px = &gx, *py = &gy;

	return by_sort(&px, &py);
}

static void
print_node(struct node *n, int depth)
{
	char a[32], b[32], *name = ctl_shown(n->name);
	size_t i;

	printf("%*s%-*s %10" PRIu64 " %12s %14s\n", depth * 2, "", 60 - depth * 2 > 10 ?
	    60 - depth * 2 : 10, name, n->count, mt_human((int64_t)n->size, a, sizeof(a)),
	    mt_human(n->impact, b, sizeof(b)));
	free(name);
	if (n->nkids)
		qsort(n->kids, n->nkids, sizeof(*n->kids), node_sort);
	for (i = 0; i < n->nkids; i++)
		print_node(n->kids[i], depth + 1);
}

static void
write_tree(void)
{
	struct node root = { .name = "all" }, *n;
	const char *p, *e, **frames = NULL;
	size_t i, nf, j, framecap = 0;

	for (i = 0; i < nall; i++) {
		struct group *g = all[i];
		nf = 0;
		for (p = g->key; *p; p = *e ? e + 1 : e) {
			e = frame_end(p);
			if (nf == framecap) {
				framecap = framecap ? 2 * framecap : 256;
				frames = erealloc(frames, framecap * sizeof(*frames));
			}
			frames[nf++] = p;
		}
		n = &root;
		root.count += g->count;
		root.size += g->size;
		root.impact += g->impact;
		/* Top-down: process, then callers to the allocating function;
		   bottom-up: process, then the allocating function outwards. */
		for (j = 0; j < nf; j++) {
			size_t k = bottom_up && j > 0 ? nf - j : j;
			const char *f = frames[k];
			n = kid(n, f, (size_t)(frame_end(f) - f));
			n->count += g->count;
			n->size += g->size;
			n->impact += g->impact;
		}
	}
	printf("%-60s %10s %12s %14s\n", "Stack", "Count", "Size", "Impacting Size");
	print_node(&root, 0);
	for (i = 0; i < root.nkids; i++)
		node_free(root.kids[i]);
	free(root.kids);
	free(frames);
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
		if ((added = dict_add(dict, &ev))) {
			/* A process renamed, a stack redefined. */
			kept_gen += ev.type == MT_PROC || added == 2;
			continue;
		}
		/* Unknown records were passed on before us. */
		if (ev.type == MT_LIFE) {
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
			    "function, stack, module, file, free-function, free-stack, task)\n",
			    mt_progname, (int)strlen(mt_shown(s, n)), mt_shown(s, n));
			exit(2);
		}
		uncached |= k == K_FREE_FUNCTION || k == K_FREE_STACK || k == K_TASK;
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
		{ "format", required_argument, NULL, 'F' },
		{ "weight", required_argument, NULL, 'w' },
		{ "skip", required_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	int ch, i, status = 0;
	char *end;

	mt_setprogname(argv[0]);
	parse_keys("process,heap,type,function");
	while ((ch = getopt_long(argc, argv, "k:b:s:n:T::tF:f:w:A:S:hV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'k':
		case 'b':
			parse_keys(optarg);
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
			else {
				fprintf(stderr, "%s: bad format '%s' (table, tsv, json, folded)\n",
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
	if (!reader_inputs(&argc, argv))
		return 1;
	dict = dict_new(skip_pattern);
	if (argc == 0)
		status |= group_file(NULL);
	for (i = 0; i < argc; i++)
		status |= group_file(argv[i]);
	if (!nlife && nraw) {
		fprintf(stderr, "%s: no life records: run mt-lifetime first\n", mt_progname);
		return 1;
	}
	if (tree)
		write_tree();
	else if (format == F_FOLDED)
		write_folded();
	else
		write_groups();
	return (mt_close_stdout() | status | mt_status) ? 1 : 0;
}
