/*
 * json.c: the page's data (mt-report(1), DATA): the graph's
 * series, the keys as the strings mt-group prints for them, the stacks,
 * the cells a window's table is summed from, and the biggest lifetimes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "mt.h"
#include "report.h"

struct strings {
	char **s;
	size_t n, cap;
	struct u64map at;	/* hash -> index + 1, chained by rehashing */
};

static size_t
string_id(struct strings *t, const char *s)
{
	uint64_t h = hash_bytes(s, strlen(s));
	void **v;

	for (;; h = hash64(h + 1)) {
		v = u64map_get(&t->at, h, 1);
		if (!*v)
			break;
		if (!strcmp(t->s[(uintptr_t)*v - 1], s))
			return (uintptr_t)*v - 1;
	}
	t->s = egrow(t->s, t->n + 1, &t->cap, sizeof(*t->s));
	t->s[t->n] = estrdup(s);
	*v = (void *)(uintptr_t)++t->n;
	return t->n - 1;
}

static void
num(struct mt_out *o, int64_t v, int comma)
{
	char *p = out_reserve(o, 24);

	out_commit(o, (size_t)sprintf(p, comma ? ",%" PRId64 : "%" PRId64, v));
}

static void
lit(struct mt_out *o, const char *s)
{
	out_write(o, s, strlen(s));
}

enum col { C_PROCESS, C_PID, C_HEAP, C_TASK, C_FUNCTION, C_LINE, C_FILE, C_MODULE, C_STACK,
	C_SIZE_CLASS, C_NCOLS };
static const char *const col_names[C_NCOLS] = { "process", "pid", "heap", "task", "function",
	"line", "file", "module", "stack", "size-class" };

/* A key's columns as mt-group --format tsv prints them. */
static void
key_strings(struct report *r, const struct rep_key *k, struct strings *t, size_t *ids)
{
	const struct rep_site *s = &r->sites[k->site];
	struct mt_stackinfo *si = s->stack == REP_NONE ? NULL : dict_stack(r->dict, s->stack);
	const struct mt_frame *f = si && si->n ? si->frame[si->alloc_frame] : NULL;
	char buf[96];

	ids[C_PROCESS] = string_id(t, dict_process(r->dict, s->pid));
	snprintf(buf, sizeof(buf), "%" PRId64, s->pid);
	ids[C_PID] = string_id(t, buf);
	ids[C_HEAP] = string_id(t, s->heap);
	task_name(r->dict, s->pid, k->tid, buf, sizeof(buf));
	ids[C_TASK] = string_id(t, buf);
	ids[C_FUNCTION] = string_id(t, f ? f->function : "-");
	ids[C_LINE] = string_id(t, f ? f->line : "-");
	ids[C_FILE] = string_id(t, f ? f->file : "-");
	ids[C_MODULE] = string_id(t, f ? f->module : "-");
	/* A stack's folded string is the page's to make from its frames:
	   the stacks' names are most of the data. */
	ids[C_STACK] = f ? SIZE_MAX : string_id(t, "-");
	if (k->sclass == -2)
		strcpy(buf, "-");
	else
		size_class(k->sclass < 0 ? 0 : UINT64_C(1) << k->sclass, buf, sizeof(buf));
	ids[C_SIZE_CLASS] = string_id(t, buf);
}

/* The stacks, outermost frame first to the allocating one, and the frames. */
static size_t
stack_id(struct report *r, uint64_t stack, struct u64map *seen, struct mt_out *so,
    size_t *nstacks, struct strings *t, struct u64map *frames, size_t *nframes,
    struct mt_out *fo, struct mt_out *cut)
{
	struct mt_stackinfo *si = stack == REP_NONE ? NULL : dict_stack(r->dict, stack);
	void **v;
	size_t i;

	if (!si || !si->n)
		return SIZE_MAX;
	v = u64map_get(seen, stack, 1);
	if (*v)
		return (uintptr_t)*v - 1;
	*v = (void *)(uintptr_t)++*nstacks;
	lit(so, *nstacks > 1 ? ",[" : "[");
	for (i = si->n; i-- > si->alloc_frame;) {
		const struct mt_frame *f = si->frame[i];
		void **fv = u64map_get(frames, (uint64_t)(uintptr_t)f, 1);

		if (!*fv) {
			*fv = (void *)(uintptr_t)++*nframes;
			lit(fo, *nframes > 1 ? ",[" : "[");
			num(fo, (int64_t)string_id(t, f->function), 0);
			num(fo, (int64_t)string_id(t, f->line), 1);
			num(fo, (int64_t)string_id(t, f->module), 1);
			lit(fo, "]");
		}
		num(so, (int64_t)((uintptr_t)*fv - 1), i + 1 < si->n);
	}
	lit(so, "]");
	if (si->cut) {
		char *p = out_reserve(cut, 24);

		out_commit(cut, (size_t)sprintf(p, cut->len ? ",%zu" : "%zu", *nstacks - 1));
	}
	return *nstacks - 1;
}

static void
series_json(struct report *r, struct strings *t, struct mt_out *o)
{
	uint64_t n = report_buckets(r), b;
	size_t i;
	int m;

	lit(o, "\"series\":{\"w\":");
	num(o, (int64_t)r->w, 0);
	lit(o, ",\"n\":");
	num(o, (int64_t)n, 0);
	lit(o, ",\"lines\":[");
	for (i = 0; i < r->nseries; i++) {
		const struct rep_series *s = &r->series[i];

		lit(o, i ? ",{\"process\":" : "{\"process\":");
		num(o, (int64_t)string_id(t, dict_process(r->dict, s->pid)), 0);
		lit(o, ",\"pid\":");
		num(o, s->pid, 0);
		lit(o, ",\"heap\":");
		num(o, (int64_t)string_id(t, s->heap), 0);
		for (m = 0; m < 2; m++) {
			const int64_t *v = m ? s->min : s->max;

			lit(o, m ? ",\"min\":[" : ",\"max\":[");
			for (b = 0; b < n; b++)
				num(o, (b <= s->lastb ? v[b] : s->settled) + s->base, b > 0);
			lit(o, "]");
		}
		lit(o, "}");
	}
	lit(o, "]},\n");
}

/*
 * Keys past KEY_CAP (the least bytes allocated, then the fewest
 * lifetimes) are merged into one key "[other]" a process and heap: a
 * page of 100,000 stacks stays a page.
 */
#define KEY_CAP 50000

struct cap {
	uint32_t *to;		/* a key's index in the page */
	size_t nout;		/* keys in the page */
	size_t *other_of;	/* the page's [other] keys: their series */
	size_t nother;
	uint64_t merged, lives, bytes;
};

static const struct report *sort_r;

static int
key_weight_cmp(const void *a, const void *b)
{
	const struct rep_key *x = &sort_r->keys[*(const uint32_t *)a];
	const struct rep_key *y = &sort_r->keys[*(const uint32_t *)b];
	uint64_t nx = x->allocs + x->end_n + x->leak_n, ny = y->allocs + y->end_n + y->leak_n;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	if (nx != ny)
		return nx < ny ? 1 : -1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static void
cap_keys(const struct report *r, struct cap *c)
{
	uint32_t *order, i;
	size_t *other = NULL;

	memset(c, 0, sizeof(*c));
	c->to = emalloc((r->nkeys ? r->nkeys : 1) * sizeof(*c->to));
	for (i = 0; i < r->nkeys; i++)
		c->to[i] = i;
	c->nout = r->nkeys;
	if (r->nkeys <= KEY_CAP)
		return;
	order = emalloc(r->nkeys * sizeof(*order));
	for (i = 0; i < r->nkeys; i++)
		order[i] = i;
	sort_r = r;
	qsort(order, r->nkeys, sizeof(*order), key_weight_cmp);
	other = emalloc(r->nseries * sizeof(*other));
	for (i = 0; i < r->nseries; i++)
		other[i] = SIZE_MAX;
	c->other_of = emalloc(r->nseries * sizeof(*c->other_of));
	/* The kept, in their order; then an [other] a series that needs one. */
	for (i = KEY_CAP; i < r->nkeys; i++)
		c->to[order[i]] = UINT32_MAX;
	for (i = 0, c->nout = 0; i < r->nkeys; i++)
		if (c->to[i] != UINT32_MAX)
			c->to[i] = (uint32_t)c->nout++;
	for (i = 0; i < r->nkeys; i++) {
		const struct rep_key *k = &r->keys[i];
		size_t s = r->sites[k->site].series;

		if (c->to[i] != UINT32_MAX)
			continue;
		if (other[s] == SIZE_MAX) {
			other[s] = c->nout + c->nother;
			c->other_of[c->nother++] = s;
		}
		c->to[i] = (uint32_t)other[s];
		c->merged++;
		c->lives += k->allocs + (k->end_n + k->leak_n);
		c->bytes += k->bytes;
	}
	free(order);
	free(other);
}

/* A column of the cells, or of the lifetimes. */
#define COLUMN(o, name, n, expr) do {					\
		size_t i_;						\
		lit(o, "\"" name "\":[");				\
		for (i_ = 0; i_ < (n); i_++)				\
			num(o, (int64_t)(expr), i_ > 0);		\
		lit(o, "]");						\
	} while (0)

/* The trace's line: its name, host, times, counts, and what was capped. */
static void
info_json(const struct report *r, const char *trace, const struct cap *cap, struct mt_out *o)
{
	char note[256], h[32];
	const char *const *said;
	size_t i, nsaid, more;

	lit(o, "{\"schema\":1,\n\"info\":{\"trace\":");
	json_string(o, trace, strlen(trace));
	lit(o, ",\"host\":");
	if (r->host) {
		json_string(o, r->host, strlen(r->host));
	} else {
		lit(o, "null");
	}
	lit(o, ",\"start_unix_ns\":");
	if (r->start_unix)
		num(o, (int64_t)r->start_unix, 0);
	else
		lit(o, "null");
	lit(o, ",\"end\":");
	num(o, (int64_t)r->end, 0);
	lit(o, ",\"events\":");
	num(o, (int64_t)r->events, 0);
	lit(o, ",\"lifetimes\":");
	num(o, (int64_t)r->lifetimes, 0);
	lit(o, ",\"capped\":");
	if (cap->merged) {
		snprintf(note, sizeof(note), "%" PRIu64 " of %zu keys (a process, thread, stack and "
		    "size class), the least bytes: %" PRIu64 " lifetimes, %s, merged into [other] a "
		    "process and heap", cap->merged, r->nkeys, cap->lives,
		    mt_human((int64_t)cap->bytes, h, sizeof(h)));
		json_string(o, note, strlen(note));
	} else {
		lit(o, "null");
	}
	/* What was said about the input: the page says it too. */
	said = mt_kept_warnings(&nsaid, &more);
	lit(o, ",\"warnings\":[");
	for (i = 0; i < nsaid; i++) {
		if (i)
			lit(o, ",");
		json_string(o, said[i], strlen(said[i]));
	}
	lit(o, "],\"warnings_more\":");
	num(o, (int64_t)more, 0);
	lit(o, "},\n");
}

/*
 * The cells, a column a field.  Cells of lifetimes never freed that a
 * rule suppresses are marked (sup): the page leaves them out, as
 * mt-group does, until the user asks for them.
 */
static void
cells_json(struct report *r, const struct cap *cap, struct mt_out *o)
{
	uint8_t *sup = emalloc(r->ncells ? r->ncells : 1);
	uint64_t sn = 0, sb = 0;
	size_t i;

	for (i = 0; i < r->ncells; i++) {
		sup[i] = r->cells[i].fate && report_suppressed(r, r->keys[r->cells[i].key].site);
		if (sup[i])
			sn += r->cells[i].n, sb += r->cells[i].s;
	}
	lit(o, "\"cells\":{\"u\":");
	num(o, (int64_t)r->u, 0);
	lit(o, r->u == 1 ? ",\"exact\":true,\n" : ",\"exact\":false,\n");
	lit(o, "\"suppressed\":{\"n\":");
	num(o, (int64_t)sn, 0);
	lit(o, ",\"bytes\":");
	num(o, (int64_t)sb, 0);
	lit(o, "},\n");
	COLUMN(o, "k", r->ncells, cap->to[r->cells[i_].key]);
	lit(o, ",\n");
	COLUMN(o, "a", r->ncells, r->cells[i_].a);
	lit(o, ",\n");
	COLUMN(o, "f", r->ncells, r->cells[i_].f);
	lit(o, ",\n");
	COLUMN(o, "on", r->ncells, r->cells[i_].on);
	lit(o, ",\n");
	COLUMN(o, "fate", r->ncells, r->cells[i_].fate);
	lit(o, ",\n");
	COLUMN(o, "sup", r->ncells, sup[i_]);
	lit(o, ",\n");
	COLUMN(o, "n", r->ncells, r->cells[i_].n);
	lit(o, ",\n");
	COLUMN(o, "s", r->ncells, r->cells[i_].s);
	lit(o, ",\n");
	COLUMN(o, "tmp", r->ncells, r->cells[i_].t);
	lit(o, "},\n");
	free(sup);
}

/* The biggest lifetimes: each key's and the trace's (biggest.c). */
static void
lifetimes_json(struct report *r, const struct cap *cap, struct mt_out *o)
{
	struct rep_life *v;
	size_t n = report_biggest(r, &v);

	lit(o, "\"lifetimes\":{\"per_key\":");
	num(o, KEY_BIG, 0);
	lit(o, ",");
	COLUMN(o, "k", n, cap->to[v[i_].key]);
	lit(o, ",");
	COLUMN(o, "ta", n, v[i_].ta == REP_NONE ? -1 : (int64_t)v[i_].ta);
	lit(o, ",");
	COLUMN(o, "tf", n, v[i_].tf == REP_NONE ? -1 : (int64_t)v[i_].tf);
	lit(o, ",");
	COLUMN(o, "size", n, v[i_].size);
	lit(o, ",");
	COLUMN(o, "fate", n, v[i_].fate);
	lit(o, r->lifetimes > n ? ",\"cut\":true},\n" : ",\"cut\":false},\n");
	free(v);
}

void
report_json(struct report *r, const char *trace, struct mt_out *o)
{
	struct strings t = { 0 };
	struct u64map seen = { 0 }, frames = { 0 };
	struct mt_out so, fo, co;
	struct cap cap;
	size_t (*ids)[C_NCOLS];
	size_t *kstack;
	size_t i, c, nstacks = 0, nframes = 0;
	char note[256];

	cap_keys(r, &cap);
	ids = ecalloc(cap.nout + cap.nother + 1, sizeof(*ids));
	kstack = ecalloc(cap.nout + cap.nother + 1, sizeof(*kstack));
	out_init(&so, -1, 1 << 16);
	out_init(&fo, -1, 1 << 16);
	out_init(&co, -1, 1 << 10);
	for (i = 0; i < r->nkeys; i++) {
		if (cap.to[i] >= cap.nout)
			continue;
		key_strings(r, &r->keys[i], &t, ids[cap.to[i]]);
		kstack[cap.to[i]] = stack_id(r, r->sites[r->keys[i].site].stack, &seen, &so,
		    &nstacks, &t, &frames, &nframes, &fo, &co);
	}
	for (i = 0; i < cap.nother; i++) {
		const struct rep_series *sr = &r->series[cap.other_of[i]];
		size_t *id = ids[cap.nout + i];

		snprintf(note, sizeof(note), "%" PRId64, sr->pid);
		id[C_PROCESS] = string_id(&t, dict_process(r->dict, sr->pid));
		id[C_PID] = string_id(&t, note);
		id[C_HEAP] = string_id(&t, sr->heap);
		id[C_TASK] = id[C_LINE] = id[C_FILE] = id[C_MODULE] = id[C_SIZE_CLASS] =
		    string_id(&t, "-");
		id[C_FUNCTION] = string_id(&t, "[other]");
		id[C_STACK] = string_id(&t, "[other]");
		kstack[cap.nout + i] = SIZE_MAX;
	}
	info_json(r, trace, &cap, o);
	series_json(r, &t, o);
	cells_json(r, &cap, o);
	lifetimes_json(r, &cap, o);
	lit(o, "\"keys\":{");
	for (c = 0; c < C_NCOLS; c++) {
		lit(o, "\"");
		lit(o, col_names[c]);
		lit(o, "\":[");
		for (i = 0; i < cap.nout + cap.nother; i++)
			num(o, ids[i][c] == SIZE_MAX ? -1 : (int64_t)ids[i][c], i > 0);
		lit(o, "],\n");
	}
	COLUMN(o, "frames", cap.nout + cap.nother,
	    kstack[i_] == SIZE_MAX ? -1 : (int64_t)kstack[i_]);
	lit(o, "},\n\"stacks\":[");
	out_write(o, so.buf, so.len);
	lit(o, "],\n\"stackcut\":[");
	out_write(o, co.buf, co.len);
	lit(o, "],\n\"frames\":[");
	out_write(o, fo.buf, fo.len);
	lit(o, "],\n\"strings\":[");
	for (i = 0; i < t.n; i++) {
		if (i)
			lit(o, i % 16 ? "," : ",\n");
		json_string(o, t.s[i], strlen(t.s[i]));
		free(t.s[i]);
	}
	lit(o, "]}\n");
	free(t.s);
	u64map_free(&t.at, NULL);
	u64map_free(&seen, NULL);
	u64map_free(&frames, NULL);
	out_free(&so);
	out_free(&fo);
	out_free(&co);
	free(ids);
	free(kstack);
	free(cap.to);
	free(cap.other_of);
}
