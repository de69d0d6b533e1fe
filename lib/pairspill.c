/*
 * pairspill.c: the partitions of a pairer past its budget (pairspill.h):
 * records routed to files in TMPDIR, each paired by a pairer of its own
 * into a run of lifetimes, and the runs given back in the order of the
 * records that ended them.  Files hold blocks of zstd-compressed records.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "mt.h"
#include "pairspill.h"

#define PARTS 32		/* a power of two */
#define SBLOCK (32 << 10)	/* raw bytes a compressed block */

/* A file of records in compressed blocks, written through, then read back. */
struct sstream {
	int fd;
	char *raw;
	size_t len, at;		/* held; read: the next record */
};

enum { R_ALLOC, R_FREE, R_END, R_LOST, R_FREED };

/* A partition's record: an allocation, a free, an image's end... */
struct prec {
	uint64_t seq, ts, addr, size, stack, temp_ts, line;
	int32_t pid, tid;
	uint16_t heap, flags, input;
	int8_t type, temp;	/* temp: pairer_temp_given's known; R_END: 1 exit, 0 end */
};

/*
 * A run's lifetime, at the record that ended it; or a warning (kind: a
 * pairer_warn's) with its times in ta, tf, size, said there.
 */
struct rlife {
	uint64_t seq, ta, tf, addr, size, stack, free_stack;
	int32_t pid, tid;
	uint16_t heap;
	uint8_t fate, temporary;	/* fate: 0 none, 1 exit, 2 end */
	uint8_t kind;
};

struct pair_spill {
	struct sstream part[PARTS], run[PARTS];
	struct rlife head[PARTS];	/* each run's next */
	uint8_t has[PARTS];
	ZSTD_CCtx *cctx;
	ZSTD_DCtx *dctx;
	char *z;
	size_t zcap;
	/* The router's own record of processes: the pairer's stays as it was. */
	int32_t *seen;
	size_t nseen, seencap;
	struct u64map seenset, tpids;
	/* The inputs' names, for a partition's warnings. */
	char **names;
	size_t nnames, namecap;
	const char *lastname;
	/* Pairing a partition. */
	struct mt_pairer *parent;
	uint64_t seq;
	unsigned cur;
};

static void
sfail(const char *what)
{
	const char *dir = getenv("TMPDIR");

	mt_err(1, "%s a temporary file in %s", what, dir && *dir ? dir : "/tmp");
}

static void
sopen(struct sstream *st)
{
	if ((st->fd = tmpfd("mt-pair")) < 0)
		sfail("making");
	st->raw = emalloc(SBLOCK);
	st->len = st->at = 0;
}

static void
sflush(struct pair_spill *s, struct sstream *st)
{
	uint32_t hdr[2];
	size_t n;

	if (!st->len)
		return;
	n = ZSTD_compressCCtx(s->cctx, s->z, s->zcap, st->raw, st->len, 1);
	if (ZSTD_isError(n))
		mt_errx(1, "compressing a temporary file: %s", ZSTD_getErrorName(n));
	hdr[0] = (uint32_t)st->len;
	hdr[1] = (uint32_t)n;
	if (writeall(st->fd, hdr, sizeof(hdr)) != sizeof(hdr) || writeall(st->fd, s->z, n) != n)
		sfail("writing");
	st->len = 0;
}

static void
sput(struct pair_spill *s, struct sstream *st, const void *rec, size_t size)
{
	if (st->len + size > SBLOCK)
		sflush(s, st);
	memcpy(st->raw + st->len, rec, size);
	st->len += size;
}

/* Written: to be read from the start. */
static void
srewind(struct pair_spill *s, struct sstream *st)
{
	sflush(s, st);
	if (lseek(st->fd, 0, SEEK_SET) < 0)
		sfail("reading");
	st->len = st->at = 0;
}

/* The next record; 0 at the end. */
static int
sget(struct pair_spill *s, struct sstream *st, void *rec, size_t size)
{
	uint32_t hdr[2];
	ssize_t got;
	size_t n;

	if (st->at + size > st->len) {
		if (!(got = readall(st->fd, hdr, sizeof(hdr))))
			return 0;
		if (got != sizeof(hdr) || hdr[0] > SBLOCK || hdr[1] > s->zcap ||
		    readall(st->fd, s->z, hdr[1]) != (ssize_t)hdr[1])
			sfail("reading");
		n = ZSTD_decompressDCtx(s->dctx, st->raw, SBLOCK, s->z, hdr[1]);
		if (ZSTD_isError(n) || n != hdr[0])
			sfail("decompressing");
		st->len = n;
		st->at = 0;
	}
	memcpy(rec, st->raw + st->at, size);
	st->at += size;
	return 1;
}

static void
sclose(struct sstream *st)
{
	if (st->fd >= 0)
		close(st->fd);
	st->fd = -1;
	free(st->raw);
	st->raw = NULL;
}

struct pair_spill *
spill_new(void)
{
	struct pair_spill *s = ecalloc(1, sizeof(*s));
	unsigned k;

	s->cctx = ZSTD_createCCtx();
	s->dctx = ZSTD_createDCtx();
	if (!s->cctx || !s->dctx)
		mt_errx(1, "out of memory");
	s->zcap = ZSTD_compressBound(SBLOCK);
	s->z = emalloc(s->zcap);
	for (k = 0; k < PARTS; k++) {
		sopen(&s->part[k]);
		s->run[k].fd = -1;
	}
	return s;
}

unsigned
spill_part(int32_t pid, unsigned heap, uint64_t addr)
{
	return (unsigned)(hash64(addr ^ (uint64_t)(uint32_t)pid << 40 ^ (uint64_t)heap << 28) >>
	    (64 - __builtin_ctz(PARTS)));
}

static uint16_t
input_of(struct pair_spill *s, const char *name)
{
	if (!name)
		return UINT16_MAX;
	if (name != s->lastname || !s->nnames) {
		s->names = egrow(s->names, s->nnames, &s->namecap, sizeof(*s->names));
		s->names[s->nnames++] = estrdup(name);
		s->lastname = name;
	}
	return (uint16_t)(s->nnames - 1 < UINT16_MAX - 1 ? s->nnames - 1 : UINT16_MAX - 1);
}

void
spill_block(struct pair_spill *s, uint64_t seq, const struct mt_event *ev, unsigned heap,
    int temp_known, uint64_t temp_ts, const char *name, uint64_t line)
{
	struct prec r = { seq, ev->ts, ev->addr, ev->size, ev->stack, temp_ts, line,
		(int32_t)ev->pid, (int32_t)ev->tid, (uint16_t)heap, (uint16_t)ev->flags,
		input_of(s, name), ev->type == MT_ALLOC ? R_ALLOC : R_FREE, (int8_t)temp_known };

	sput(s, &s->part[spill_part(r.pid, heap, ev->addr)], &r, sizeof(r));
}

void
spill_freed(struct pair_spill *s, int32_t pid, unsigned heap, uint64_t addr,
    uint64_t alloc_ts, uint64_t free_ts)
{
	struct prec r = { .seq = 0, .ts = alloc_ts, .addr = addr, .size = free_ts, .pid = pid,
		.heap = (uint16_t)heap, .input = UINT16_MAX, .type = R_FREED };

	sput(s, &s->part[spill_part(pid, heap, addr)], &r, sizeof(r));
}

/* A record every partition reads. */
static void
spill_all(struct pair_spill *s, const struct prec *r)
{
	unsigned k;

	for (k = 0; k < PARTS; k++)
		sput(s, &s->part[k], r, sizeof(*r));
}

void
spill_end(struct pair_spill *s, uint64_t seq, int32_t pid, int exit, uint64_t ts)
{
	struct prec r = { .seq = seq, .ts = ts, .pid = pid, .input = UINT16_MAX, .type = R_END,
		.temp = (int8_t)exit };

	spill_all(s, &r);
}

void
spill_lost(struct pair_spill *s, uint64_t seq, uint64_t n)
{
	struct prec r = { .seq = seq, .size = n, .input = UINT16_MAX, .type = R_LOST };

	spill_all(s, &r);
}

int
spill_proc(struct pair_spill *s, int32_t pid)
{
	void **v = u64map_get(&s->seenset, (uint64_t)(uint32_t)pid, 1);

	if (*v)
		return 1;
	*v = s;
	s->seen = egrow(s->seen, s->nseen, &s->seencap, sizeof(*s->seen));
	s->seen[s->nseen++] = pid;
	return 0;
}

void
spill_table_pid(struct pair_spill *s, int32_t pid)
{
	void **v = u64map_get(&s->tpids, (uint64_t)(uint32_t)pid, 1);

	*v = s;
}

static int
pid_cmp(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

/*
 * pairer_finish's image ends, numbered as it numbers them: the processes
 * begun in order, then by pid those with blocks and no proc record.
 */
void
spill_finish_routes(struct pair_spill *s)
{
	int32_t *pids = emalloc((s->tpids.n + 1) * sizeof(*pids));
	uint64_t k = 0;
	size_t i, n = 0;

	for (i = 0; i < s->nseen; i++)
		spill_end(s, SEQ_FINISH + k++, s->seen[i], 0, UINT64_MAX);
	for (i = 0; i < s->tpids.cap; i++)
		if (s->tpids.e[i].value &&
		    !u64map_get(&s->seenset, s->tpids.e[i].key, 0))
			pids[n++] = (int32_t)(uint32_t)s->tpids.e[i].key;
	qsort(pids, n, sizeof(*pids), pid_cmp);
	for (i = 0; i < n; i++)
		spill_end(s, SEQ_FINISH + k++, pids[i], 0, UINT64_MAX);
	free(pids);
}

/* A partition's lifetime, to its run. */
static void
to_run(const struct mt_life *l, void *arg)
{
	struct pair_spill *s = arg;
	struct rlife r = { s->seq, l->ta, l->tf, l->addr, l->size, l->stack, l->free_stack,
		l->pid, l->tid, (uint16_t)pairer_heap_id(s->parent, l->heap),
		!l->fate ? 0 : l->fate[0] == 'e' && l->fate[1] == 'x' ? 1 : 2,
		(uint8_t)l->temporary, 0 };

	sput(s, &s->run[s->cur], &r, sizeof(r));
}

static void
warn_to_run(void *arg, int kind, uint64_t addr, uint64_t a, uint64_t b, uint64_t c)
{
	struct pair_spill *s = arg;
	struct rlife r = { .seq = s->seq, .ta = a, .tf = b, .addr = addr, .size = c,
		.kind = (uint8_t)kind };

	sput(s, &s->run[s->cur], &r, sizeof(r));
}

/* One partition's records through a pairer of its own. */
static void
pair_part(struct pair_spill *s, unsigned k)
{
	struct mt_pair_stats *ps = pairer_stats_rw(s->parent), *cs;
	struct mt_pairer *c = pairer_new(to_run, s);
	struct prec r;
	struct mt_event ev;

	s->cur = k;
	sopen(&s->run[k]);
	srewind(s, &s->part[k]);
	pairer_defer(c, warn_to_run, s);
	while (sget(s, &s->part[k], &r, sizeof(r))) {
		s->seq = r.seq;
		pairer_at(c, r.input < s->nnames ? s->names[r.input] : NULL, r.line);
		memset(&ev, 0, sizeof(ev));
		ev.flags = r.flags;
		ev.ts = r.ts;
		ev.pid = r.pid;
		ev.tid = r.tid;
		ev.addr = r.addr;
		ev.size = r.size;
		ev.stack = r.stack;
		switch (r.type) {
		case R_ALLOC:
			ev.type = MT_ALLOC;
			ev.heap = pairer_heap(s->parent, r.heap);
			pairer_alloc(c, &ev);
			break;
		case R_FREE:
			ev.type = MT_FREE;
			ev.heap = pairer_heap(s->parent, r.heap);
			pairer_temp_given(c, r.temp, r.temp_ts);
			pairer_free(c, &ev);
			break;
		case R_END:
			pairer_image_end(c, r.pid, r.temp ? "exit" : "end", r.ts);
			break;
		case R_LOST:
			pairer_lost(c, r.size);
			break;
		case R_FREED:
			pairer_freed(c, r.pid, pairer_heap(s->parent, r.heap), r.addr, r.ts, r.size);
			break;
		default:
			break;
		}
	}
	cs = pairer_stats_rw(c);
	ps->unseen += cs->unseen;
	ps->before += cs->before;
	pairer_free_all(c);
	sclose(&s->part[k]);
	srewind(s, &s->run[k]);
	s->has[k] = (uint8_t)sget(s, &s->run[k], &s->head[k], sizeof(s->head[k]));
}

void
spill_pair(struct pair_spill *s, struct mt_pairer *parent)
{
	unsigned k;

	s->parent = parent;
	for (k = 0; k < PARTS; k++)
		pair_part(s, k);
}

/* Survivors at one record come in address order, then heap: as pair.c sorts them. */
static int
life_before(const struct mt_pairer *p, const struct rlife *a, const struct rlife *b)
{
	struct mt_str x, y;
	int c;

	if (a->addr != b->addr)
		return a->addr < b->addr;
	x = pairer_heap(p, a->heap);
	y = pairer_heap(p, b->heap);
	c = memcmp(x.s, y.s, x.len < y.len ? x.len : y.len);
	return c ? c < 0 : x.len < y.len;
}

static void
give(struct pair_spill *s, struct mt_pairer *p, unsigned k)
{
	const struct rlife *r = &s->head[k];
	struct mt_life l = { r->ta, r->tf, r->pid, r->tid, pairer_heap(p, r->heap), r->addr,
		r->size, r->stack, r->fate == 1 ? "exit" : r->fate == 2 ? "end" : NULL,
		r->free_stack, r->temporary };

	if (r->kind)
		pairer_warn(p, r->kind, r->addr, r->ta, r->tf, r->size);
	else
		pairer_replayed(p, &l);
	s->has[k] = (uint8_t)sget(s, &s->run[k], &s->head[k], sizeof(s->head[k]));
}

void
spill_replay(struct pair_spill *s, struct mt_pairer *p, uint64_t seq, int part)
{
	unsigned k, best;

	if (part >= 0) {
		while (s->has[part] && s->head[part].seq == seq)
			give(s, p, (unsigned)part);
		return;
	}
	for (;;) {
		best = PARTS;
		for (k = 0; k < PARTS; k++)
			if (s->has[k] && s->head[k].seq == seq &&
			    (best == PARTS || life_before(p, &s->head[k], &s->head[best])))
				best = k;
		if (best == PARTS)
			return;
		give(s, p, best);
	}
}

void
spill_free(struct pair_spill *s)
{
	size_t i;
	unsigned k;

	for (k = 0; k < PARTS; k++) {
		sclose(&s->part[k]);
		sclose(&s->run[k]);
	}
	for (i = 0; i < s->nnames; i++)
		free(s->names[i]);
	free(s->names);
	free(s->seen);
	u64map_free(&s->seenset, NULL);
	u64map_free(&s->tpids, NULL);
	ZSTD_freeCCtx(s->cctx);
	ZSTD_freeDCtx(s->dctx);
	free(s->z);
	free(s);
}
