/*
 * pairspill.c: the partitions of a pairer past its budget (pairspill.h):
 * records routed to files in TMPDIR, each paired by a pairer of its own
 * into a run of lifetimes, and the runs given back in the order of the
 * records that ended them.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mt.h"
#include "fieldrun.h"
#include "pairspill.h"

#define PARTS 32		/* a power of two */

/* A file of records (fieldrun.h), written through, then read back. */
struct sstream {
	int fd;
	struct fieldrun f;
};

/* A partition's record: an allocation, a free, an image's end... */
enum { R_ALLOC, R_FREE, R_END, R_LOST, R_FREED };
enum { P_SEQ, P_TS, P_ADDR, P_SIZE, P_STACK, P_TEMPTS, P_PID, P_TID, P_HEAP, P_FLAGS,
	P_TYPE, P_TEMP, P_N };	/* P_TEMP: pairer_temp_given's known + 1; R_END: 1 exit */

/*
 * A run's lifetime, at the record that ended it; or a warning (L_KIND: a
 * pairer_warn's) with its times in L_TA, L_TF, L_SIZE, said there.
 */
enum { L_SEQ, L_TA, L_TF, L_ADDR, L_SIZE, L_STACK, L_FSTACK, L_PID, L_TID, L_HEAP, L_FATE,
	L_TEMP, L_KIND, L_N };	/* L_FATE: 0 none, 1 exit, 2 end */

struct pair_spill {
	struct sstream part[PARTS], run[PARTS];
	uint64_t head[PARTS][L_N];	/* each run's next */
	uint8_t has[PARTS];
	/* The router's own record of processes: the pairer's stays as it was. */
	int32_t *seen;
	size_t nseen, seencap;
	struct u64map seenset, tpids;
	/* Pairing a partition. */
	struct mt_pairer *parent;
	uint64_t seq;
	unsigned cur;
};

static void
sopen(struct sstream *st)
{
	if ((st->fd = tmpfd("mt-pair")) < 0)
		tmpfd_err("making");
	fieldrun_write(&st->f, st->fd, 0);
}

static void
sput(struct sstream *st, const uint64_t *v, int n)
{
	if (fieldrun_put(&st->f, v, n))
		tmpfd_err("writing");
}

/* Written: to be read from the start. */
static void
srewind(struct sstream *st)
{
	if (fieldrun_flush(&st->f))
		tmpfd_err("writing");
	fieldrun_read(&st->f, st->fd, 0, -1);
}

/* The next record; 0 at the end. */
static int
sget(struct sstream *st, uint64_t *v, int n)
{
	int k = fieldrun_get(&st->f, v, n);

	if (k < 0)
		tmpfd_err("reading");
	return k;
}

static void
sclose(struct sstream *st)
{
	if (st->fd >= 0)
		close(st->fd);
	st->fd = -1;
	fieldrun_free(&st->f);
}

struct pair_spill *
spill_new(void)
{
	struct pair_spill *s = ecalloc(1, sizeof(*s));
	unsigned k;

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

void
spill_block(struct pair_spill *s, uint64_t seq, const struct mt_event *ev, unsigned heap,
    int temp_known, uint64_t temp_ts)
{
	uint64_t r[P_N] = { seq, ev->ts, ev->addr, ev->size, ev->stack, temp_ts,
		(uint32_t)ev->pid, (uint32_t)ev->tid, heap, ev->flags,
		ev->type == MT_ALLOC ? R_ALLOC : R_FREE, (uint64_t)(temp_known + 1) };

	sput(&s->part[spill_part((int32_t)ev->pid, heap, ev->addr)], r, P_N);
}

void
spill_freed(struct pair_spill *s, int32_t pid, unsigned heap, uint64_t addr,
    uint64_t alloc_ts, uint64_t free_ts)
{
	uint64_t r[P_N] = { 0 };

	r[P_TS] = alloc_ts;
	r[P_ADDR] = addr;
	r[P_SIZE] = free_ts;
	r[P_PID] = (uint32_t)pid;
	r[P_HEAP] = heap;
	r[P_TYPE] = R_FREED;
	sput(&s->part[spill_part(pid, heap, addr)], r, P_N);
}

/* A record every partition reads. */
static void
spill_all(struct pair_spill *s, const uint64_t *r)
{
	unsigned k;

	for (k = 0; k < PARTS; k++)
		sput(&s->part[k], r, P_N);
}

void
spill_end(struct pair_spill *s, uint64_t seq, int32_t pid, int exit, uint64_t ts)
{
	uint64_t r[P_N] = { 0 };

	r[P_SEQ] = seq;
	r[P_TS] = ts;
	r[P_PID] = (uint32_t)pid;
	r[P_TYPE] = R_END;
	r[P_TEMP] = (uint64_t)exit;
	spill_all(s, r);
}

void
spill_lost(struct pair_spill *s, uint64_t seq, uint64_t n)
{
	uint64_t r[P_N] = { 0 };

	r[P_SEQ] = seq;
	r[P_SIZE] = n;
	r[P_TYPE] = R_LOST;
	spill_all(s, r);
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
	uint64_t r[L_N] = { s->seq, l->ta, l->tf, l->addr, l->size, l->stack, l->free_stack,
		(uint32_t)l->pid, (uint32_t)l->tid, pairer_heap_id(s->parent, l->heap),
		!l->fate ? 0 : l->fate[0] == 'e' && l->fate[1] == 'x' ? 1 : 2,
		(uint64_t)l->temporary, 0 };

	sput(&s->run[s->cur], r, L_N);
}

static void
warn_to_run(void *arg, int kind, uint64_t addr, uint64_t a, uint64_t b, uint64_t c)
{
	struct pair_spill *s = arg;
	uint64_t r[L_N] = { 0 };

	r[L_SEQ] = s->seq;
	r[L_TA] = a;
	r[L_TF] = b;
	r[L_ADDR] = addr;
	r[L_SIZE] = c;
	r[L_KIND] = (uint64_t)kind;
	sput(&s->run[s->cur], r, L_N);
}

/* One partition's records through a pairer of its own. */
static void
pair_part(struct pair_spill *s, unsigned k)
{
	struct mt_pair_stats *ps = pairer_stats_rw(s->parent), *cs;
	struct mt_pairer *c = pairer_new(to_run, s);
	uint64_t r[P_N];
	struct mt_event ev = { .type = MT_ALLOC };

	s->cur = k;
	sopen(&s->run[k]);
	srewind(&s->part[k]);
	pairer_defer(c, warn_to_run, s);
	while (sget(&s->part[k], r, P_N)) {
		/* The fields a pairer reads; the rest stay zero. */
		s->seq = r[P_SEQ];
		ev.flags = (unsigned)r[P_FLAGS];
		ev.ts = r[P_TS];
		ev.pid = (int32_t)r[P_PID];
		ev.tid = (int32_t)r[P_TID];
		ev.addr = r[P_ADDR];
		ev.size = r[P_SIZE];
		ev.stack = r[P_STACK];
		switch (r[P_TYPE]) {
		case R_ALLOC:
			ev.type = MT_ALLOC;
			ev.heap = pairer_heap(s->parent, (unsigned)r[P_HEAP]);
			pairer_alloc(c, &ev);
			break;
		case R_FREE:
			ev.type = MT_FREE;
			ev.heap = pairer_heap(s->parent, (unsigned)r[P_HEAP]);
			pairer_temp_given(c, (int)r[P_TEMP] - 1, r[P_TEMPTS]);
			pairer_free(c, &ev);
			break;
		case R_END:
			pairer_image_end(c, ev.pid, r[P_TEMP] ? "exit" : "end", r[P_TS]);
			break;
		case R_LOST:
			pairer_lost(c, r[P_SIZE]);
			break;
		case R_FREED:
			pairer_freed(c, (int32_t)ev.pid, pairer_heap(s->parent, (unsigned)r[P_HEAP]),
			    r[P_ADDR], r[P_TS], r[P_SIZE]);
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
	srewind(&s->run[k]);
	s->has[k] = (uint8_t)sget(&s->run[k], s->head[k], L_N);
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
life_before(const struct mt_pairer *p, const uint64_t *a, const uint64_t *b)
{
	struct mt_str x, y;
	int c;

	if (a[L_ADDR] != b[L_ADDR])
		return a[L_ADDR] < b[L_ADDR];
	x = pairer_heap(p, (unsigned)a[L_HEAP]);
	y = pairer_heap(p, (unsigned)b[L_HEAP]);
	c = memcmp(x.s, y.s, x.len < y.len ? x.len : y.len);
	return c ? c < 0 : x.len < y.len;
}

static void
give(struct pair_spill *s, struct mt_pairer *p, unsigned k)
{
	const uint64_t *r = s->head[k];
	struct mt_life l = { r[L_TA], r[L_TF], (int32_t)r[L_PID], (int32_t)r[L_TID],
		pairer_heap(p, (unsigned)r[L_HEAP]), r[L_ADDR], r[L_SIZE], r[L_STACK],
		r[L_FATE] == 1 ? "exit" : r[L_FATE] == 2 ? "end" : NULL, r[L_FSTACK],
		(int)r[L_TEMP] };

	if (r[L_KIND])
		pairer_warn(p, (int)r[L_KIND], r[L_ADDR], r[L_TA], r[L_TF], r[L_SIZE]);
	else
		pairer_replayed(p, &l);
	s->has[k] = (uint8_t)sget(&s->run[k], s->head[k], L_N);
}

void
spill_replay(struct pair_spill *s, struct mt_pairer *p, uint64_t seq, int part)
{
	unsigned k, best;

	if (part >= 0) {
		while (s->has[part] && s->head[part][L_SEQ] == seq)
			give(s, p, (unsigned)part);
		return;
	}
	for (;;) {
		best = PARTS;
		for (k = 0; k < PARTS; k++)
			if (s->has[k] && s->head[k][L_SEQ] == seq &&
			    (best == PARTS || life_before(p, s->head[k], s->head[best])))
				best = k;
		if (best == PARTS)
			return;
		give(s, p, best);
	}
}

/* Lifetimes the runs hold still: none once every record was read again. */
uint64_t
spill_left(struct pair_spill *s)
{
	uint64_t n = 0;
	unsigned k;

	for (k = 0; k < PARTS; k++)
		while (s->has[k]) {
			n += !s->head[k][L_KIND];
			s->has[k] = (uint8_t)sget(&s->run[k], s->head[k], L_N);
		}
	return n;
}

void
spill_free(struct pair_spill *s)
{
	unsigned k;

	for (k = 0; k < PARTS; k++) {
		sclose(&s->part[k]);
		sclose(&s->run[k]);
	}
	free(s->seen);
	u64map_free(&s->seenset, NULL);
	u64map_free(&s->tpids, NULL);
	free(s);
}
