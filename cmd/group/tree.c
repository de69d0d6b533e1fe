/*
 * mt-group --tree: the stacks drawn as a tree under the --by keys, with
 * the sums at every node, as a table, TSV or JSON.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "group.h"

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
static size_t npall, pallcap;
static const char *cut_name;	/* "[...]": callers cut at the recorder's depth */
static const char *startup_name;	/* "[start-up]": the runtime's, --from-main */

/* A frame as a level of the tree: with its line when a key asks for it. */
static const char *
frame_level(const struct group_opts *o, const struct mt_frame *f)
{
	size_t a, b;
	char *s;
	const char *r;

	if (!o->with_lines || !strcmp(f->line, "-"))
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
path_frames(const struct group_opts *o, struct pgroup *g)
{
	const struct mt_stackinfo *si = g->si;
	uint32_t fold = si ? startup_of(o, g->si) : 0, i;
	size_t n = 0;

	if (!si)
		return;
	g->frames = emalloc((si->n - si->alloc_frame + 2) * sizeof(*g->frames));
	if (si->cut)
		g->frames[n++] = cut_name;
	if (fold)
		g->frames[n++] = startup_name;
	for (i = si->n - fold; i-- > si->alloc_frame;)
		g->frames[n++] = frame_level(o, si->frame[i]);
	g->nframes = n;
	for (i = 0; o->bottom_up && i < n / 2; i++) {
		const char *t = g->frames[i];
		g->frames[i] = g->frames[n - 1 - i];
		g->frames[n - 1 - i] = t;
	}
}

static struct pgroup *
path_group(const struct group_opts *o, const struct mt_event *ev)
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
	for (i = 0; i < o->nlevels; i++) {
		if (o->keys[i] == K_LINE && si) {	/* the function with its line */
			lv[i] = frame_level(o, si->frame[si->alloc_frame]);
			continue;
		}
		s = key_value(o, o->keys[i], ev, si, fsi, &n);
		lv[i] = dict_intern(dict, s, n);
	}
	v = u64map_get(&pgroups, (hash_bytes(lv, o->nlevels * sizeof(*lv)) ^
	    hash64((uint64_t)(uintptr_t)si)) | 1, 1);
	for (g = *v; g; g = g->next)
		if (g->si == si && !memcmp(g->lv, lv, o->nlevels * sizeof(*lv)))
			return g;
	g = ecalloc(1, sizeof(*g) + o->nlevels * sizeof(*lv));
	g->si = si;
	memcpy(g->lv, lv, o->nlevels * sizeof(*lv));
	path_frames(o, g);
	g->next = *v;
	*v = g;
	pall = egrow(pall, npall, &pallcap, sizeof(*pall));
	pall[npall++] = g;
	return g;
}

/* The path's length: the key values, then the stack's levels drawn. */
static size_t
path_len(const struct group_opts *o, const struct pgroup *g)
{
	size_t n = g->nframes;

	if (o->max_depth >= 0 && n > (size_t)o->max_depth)
		n = (size_t)o->max_depth;
	return o->nlevels + n;
}

static const char *
path_at(const struct group_opts *o, const struct pgroup *g, size_t i)
{
	return i < o->nlevels ? g->lv[i] : g->frames[i - o->nlevels];
}

static int
path_cmp(const void *a, const void *b, void *arg)
{
	const struct group_opts *o = arg;
	const struct pgroup *x = *(const struct pgroup *const *)a;
	const struct pgroup *y = *(const struct pgroup *const *)b;
	size_t nx = path_len(o, x), ny = path_len(o, y), i;
	uintptr_t p, q;

	for (i = 0; i < nx && i < ny; i++) {
		p = (uintptr_t)path_at(o, x, i);
		q = (uintptr_t)path_at(o, y, i);
		if (p != q)
			return p < q ? -1 : 1;
	}
	return nx < ny ? -1 : nx > ny;
}

/* The names of the levels that are no frame, held by the dictionary. */
void
tree_names(void)
{
	cut_name = dict_intern(dict, "[...]", 5);
	startup_name = dict_intern(dict, "[start-up]", 10);
}

/* The sums of a lifetime's path. */
struct sums *
path_sums(const struct group_opts *o, const struct mt_event *ev)
{
	return &path_group(o, ev)->s;
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
kid_sort(const void *a, const void *b, void *arg)
{
	const struct group_opts *o = arg;
	const struct kid *x = a, *y = b;

	return sums_cmp(o, &x->s, x->name, &y->s, y->name);
}

static void
push_kid(const struct group_opts *o, size_t lo, size_t hi, const char *name, enum row row)
{
	struct kid *k;
	size_t i;

	kids = egrow(kids, nkids, &kidcap, sizeof(*kids));
	k = &kids[nkids++];
	*k = (struct kid){ .lo = lo, .hi = hi, .name = name, .row = row };
	for (i = lo; i < hi; i++)
		sums_add(o, &k->s, &pall[i]->s);
}

static void tree_row(const struct group_opts *o, const char *, char *, size_t,
    const struct sums *);

/* A node's row; for JSON, the object left open for its children. */
static void
row_begin(const struct group_opts *o, const char *name, const char *level, const struct sums *s,
    size_t depth, uint64_t id, uint64_t parent, int first)
{
	const char *tab = strchr(name, '\t');
	char *fn = tab ? estrndup(name, (size_t)(tab - name)) : NULL;
	char *shown = shown_name(o, fn ? fn : name), *where = NULL;

	if (tab && o->format == F_TABLE) {
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
	switch (o->format) {
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
		tree_row(o, shown, where, depth, s);
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
tree_row(const struct group_opts *o, const char *name, char *where, size_t depth,
    const struct sums *s)
{
	size_t ind = 2 * (depth < TREE_INDENT ? depth : TREE_INDENT), room, wl;
	char a[32], b[32], c[32], pre[32], *fn, *line;
	int cut = o->shorten != 0;

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
draw(const struct group_opts *o, size_t lo, size_t hi, size_t d, uint64_t id)
{
	size_t base = nkids, m = lo, i, j, n;
	const char *level = d < o->nlevels ? key_names[o->keys[d]] : "frame";

	while (m < hi && path_len(o, pall[m]) == d)
		m++;
	for (i = m; i < hi; i = j) {
		const char *name = path_at(o, pall[i], d);
		for (j = i + 1; j < hi && path_at(o, pall[j], d) == name; j++)
			;
		push_kid(o, i, j, name, R_NODE);
	}
	if (m > lo && nkids > base)
		push_kid(o, lo, m, d == o->nlevels ? "[no stack]" : "[self]", R_SELF);
	n = nkids - base;
	if (n)
		qsort_r(kids + base, n, sizeof(*kids), kid_sort, (void *)(uintptr_t)o);
	if (o->top >= 0 && (size_t)o->top < n) {
		static char more[64];
		struct kid *k = &kids[base + o->top];

		snprintf(more, sizeof(more), "[%zu more]", n - (size_t)o->top);
		for (i = base + (size_t)o->top + 1; i < nkids; i++)
			sums_add(o, &k->s, &kids[i].s);
		k->name = dict_intern(dict, more, strlen(more));
		k->row = R_MORE;
		n = (size_t)o->top + 1;
		nkids = base + n;
	}
	if (n && o->format == F_JSON)
		printf(", \"children\": [");
	for (i = 0; i < n; i++) {
		struct kid k = kids[base + i];	/* kids grows below */
		uint64_t kid_id = ++last_id;

		row_begin(o, k.name, k.row == R_SELF ? "self" : k.row == R_MORE ? "more" : level,
		    &k.s, d + 1, kid_id, id, i == 0);
		if (k.row == R_NODE)
			draw(o, k.lo, k.hi, d + 1, kid_id);
		if (o->format == F_JSON)
			printf("}");
	}
	if (n && o->format == F_JSON)
		printf("]");
	nkids = base;
}

void
write_tree(const struct group_opts *o)
{
	struct sums total = { 0 };
	size_t i;

	if (npall)
		qsort_r(pall, npall, sizeof(*pall), path_cmp, (void *)(uintptr_t)o);
	for (i = 0; i < npall; i++)
		sums_add(o, &total, &pall[i]->s);
	if (o->format == F_TSV)
		printf("id\tparent\tlevel\tname\tcount\tsize\timpact\tper-alloc\n");
	if (o->format == F_TABLE) {
		char head[256] = "";
		size_t len = 0;

		for (i = 0; i < o->nlevels && len < sizeof(head) - 64; i++)
			len += (size_t)snprintf(head + len, sizeof(head) - len, "%s > ",
			    key_heading(o->keys[i]));
		snprintf(head + len, sizeof(head) - len, "stack");
		tw = strlen(head), cw = 5, sw = 4, iw = 14, pw = 9;
		measuring = 1;
		row_begin(o, "all", "all", &total, 0, 0, 0, 1);
		draw(o, 0, npall, 0, 0);
		measuring = 0;
		if (o->shorten && tw + 2 + cw + sw + iw + pw + 8 > TABLE_WIDTH)
			tw = TABLE_WIDTH - 2 - (cw + sw + iw + pw + 8) > 60 ?
			    TABLE_WIDTH - 2 - (cw + sw + iw + pw + 8) : 60;
		printf("%-*s  %*s  %*s  %*s  %*s\n", (int)tw, head, (int)cw, "Count", (int)sw,
		    "Size", (int)iw, "Impacting Size", (int)pw, "Per Alloc");
	}
	last_id = 0;
	row_begin(o, "all", "all", &total, 0, 0, 0, 1);
	draw(o, 0, npall, 0, 0);
	if (o->format == F_JSON)
		printf("}\n");
	for (i = 0; i < npall; i++)
		free(pall[i]->frames), free(pall[i]);
	free(pall);
	free(kids);
	u64map_free(&pgroups, NULL);
}
