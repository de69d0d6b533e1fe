/*
 * mt-pooldiff's event streams: the input read, each lifetime counted in
 * the intervals of its allocation and its free, and the intervals made
 * snapshots, at the end or, with --live, as each closes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pooldiff.h"

struct mt_dict *dict;
int64_t trace_start = NONE;
char *trace_host;
uint64_t stream_end;
int saw_events, saw_log;
int partial_last;
uint64_t last_interval;
static struct mt_pairer *pairer;

/*
 * The interval of time t, or SIZE_MAX past MAX_BUCKETS of them (a time
 * far in would ask for all memory): said once, not counted.
 */
#define MAX_BUCKETS 10000000
static size_t
bucket_of(const struct pooldiff_opts *o, uint64_t t)
{
	static int said;

	if (t / o->interval < MAX_BUCKETS)
		return (size_t)(t / o->interval);
	if (!said++) {
		mt_warnx("a time of %" PRIu64 " ns is more than %d intervals in: a longer "
		    "--interval (what lies there is not counted)", t, MAX_BUCKETS);
		trouble = 1;
	}
	return SIZE_MAX;
}

static void
delta_add(struct tag *t, size_t b, int which, int64_t v)
{
	if (b != SIZE_MAX)
		steps_add(&t->ch, b, which, v);
}

static size_t nbuckets;

/*
 * The last interval, from k intervals in to the stream's end at t, is
 * short: less than half an interval.  One at least half long is judged
 * as a whole one (our rule): an 8 s attach at 2 s ends a little before
 * or after 8 s, and must give the snapshots at 2, 4, 6 and 8 s either way.
 */
static int
short_last(const struct pooldiff_opts *o, uint64_t t, size_t k)
{
	return t < k * o->interval + (o->interval + 1) / 2;
}

/* The suppression rule that matches stack, or -1. */
static long
rule_of(const struct pooldiff_opts *o, uint64_t stack)
{
	return o->no_suppress ? -1 : suppress_match(o->suppress, dict, stack);
}

/*
 * A lifetime: an allocation in its interval, a free in its.  One never
 * freed that a rule of mt-group's suppressions matches is a runtime's
 * one-time block, not growth: counted apart and said.  With --live an
 * allocation counts as it comes (at_alloc), before its fate is known: a
 * rule's waits for its free (pair_emit).
 */
static void
count_life(const struct pooldiff_opts *o, uint64_t ta, uint64_t tf, struct mt_str heap,
    uint64_t size, uint64_t stack, int64_t pid, int at_alloc)
{
	long rule;
	struct mt_stackinfo *si = stack == UINT64_MAX ? NULL : dict_stack(dict, stack);
	char key[8192], esc[8192 * 4 + 8], buf[64];
	const char *s = "-";
	size_t len = 0, i, b;
	struct tag *t;
	int64_t sz = size == UINT64_MAX ? 0 : (int64_t)size;

	saw_events = 1;
	if (!o->interval || (ta == UINT64_MAX && tf == UINT64_MAX))
		return;		/* said once the input is read */
	if (tf == UINT64_MAX && ta != UINT64_MAX && (rule = rule_of(o, stack)) >= 0) {
		if (!at_alloc)
			suppress_count(o->suppress, rule, size == UINT64_MAX ? 0 : size);
		return;
	}

	switch (o->tag_by) {
	case T_HEAP:
		s = NULL;
		len = heap.len < sizeof(key) ? heap.len : sizeof(key) - 1;
		memcpy(key, heap.s, len);
		break;
	case T_FUNCTION:
	case T_MODULE:
		if (si && si->n)
			s = o->tag_by == T_FUNCTION ? si->frame[si->alloc_frame]->function :
			    si->frame[si->alloc_frame]->module;
		else if (stack != UINT64_MAX)
			s = (snprintf(buf, sizeof(buf), "stack:%" PRIu64, stack), buf);
		break;
	case T_STACK:
		s = NULL;
		len = (size_t)snprintf(key, sizeof(key), "%s", dict_process(dict, pid));
		for (i = si ? si->n : 0; i-- > 0 && len < sizeof(key) - 1;)
			len += (size_t)snprintf(key + len, sizeof(key) - len, ";%s", si->frame[i]->function);
		if (len >= sizeof(key))
			len = sizeof(key) - 1;
		break;
	}
	if (s) {
		len = strlen(s) < sizeof(key) ? strlen(s) : sizeof(key) - 1;
		memcpy(key, s, len);
	}
	tag_escape(key, len, esc, sizeof(esc));
	t = tag_get(esc, strlen(esc), heap.s, heap.len);
	/* Times past the intervals counted are not the stream's end either. */
	if (ta != UINT64_MAX && ta > stream_end && bucket_of(o, ta) != SIZE_MAX)
		stream_end = ta;
	if (tf != UINT64_MAX && tf > stream_end && bucket_of(o, tf) != SIZE_MAX)
		stream_end = tf;
	if (ta != UINT64_MAX) {
		b = bucket_of(o, ta);
		delta_add(t, b, 0, 1);
		delta_add(t, b, 2, sz);
		nbuckets = b + 1 > nbuckets ? b + 1 : nbuckets;
		if (o->live && b != SIZE_MAX) {
			t->live[0] += 1;
			t->live[2] += sz;
		}
	}
	if (tf != UINT64_MAX) {
		b = bucket_of(o, tf);
		delta_add(t, b, 1, 1);
		delta_add(t, b, 2, -sz);
		nbuckets = b + 1 > nbuckets ? b + 1 : nbuckets;
		if (o->live && b != SIZE_MAX) {
			t->live[1] += 1;
			t->live[2] -= sz;
		}
	}
}

/*
 * An allocation made before recording whose size is known (a mapping
 * mt-record -p found, or one a munmap measured): counted in the first
 * interval, where it already was.  Without a size it is a free of
 * something unknown, as before.
 */
static uint64_t
before_at(uint64_t ta, uint64_t size)
{
	return ta == UINT64_MAX && size != UINT64_MAX ? 0 : ta;
}

/*
 * A lifetime from events, counted as it ends; with --live its allocation
 * was counted when it came, so that what is still live counts at once.
 * (Not always: a mapping unmapped in pieces is a lifetime a piece, each
 * an allocation here, one allocation live.)
 */
static void
pair_emit(const struct mt_life *l, void *arg)
{
	const struct pooldiff_opts *o = arg;
	uint64_t ta = before_at(l->ta, l->size);

	/* --live: a rule's allocation was not counted as it came. */
	if (o->live && (ta == UINT64_MAX || rule_of(o, l->stack) < 0))
		ta = UINT64_MAX;
	count_life(o, ta, l->tf, l->heap, l->size, l->stack, l->pid, 0);
}

static size_t live_closed;	/* --live: intervals whose snapshot is made */

/* A snapshot's row of the sums of allocs, frees and bytes. */
static void
counters(mt_wide c[NCOUNTERS], const mt_wide sum[3])
{
	c[C_ALLOCS] = sum[0];
	c[C_FREES] = sum[1];
	c[C_DIFF] = sum[0] - sum[1];
	c[C_BYTES] = sum[2];
}

/* --live: a snapshot at time t of the counts so far. */
static void
live_snapshot(int64_t t)
{
	mt_wide c[NCOUNTERS];
	size_t i;

	snapshot_begin(t, trace_host);
	for (i = 0; i < ntags; i++) {
		struct tag *tg = tags[i];
		if (!tg->live[0] && !tg->live[1])
			continue;
		counters(c, tg->live);
		snapshot_row(tg, c);
	}
}

/*
 * --live: the intervals that time t closes, each a snapshot of the
 * counts so far, its table (or the growth verdict, when a tag grows)
 * printed and flushed as it closes.  The stream is in time order, so
 * the counts before t's event are those at the end of each.
 */
static void
live_close(const struct pooldiff_opts *o, uint64_t t)
{
	size_t b = bucket_of(o, t);
	int64_t base = trace_start == NONE ? 0 : trace_start;

	if (b == SIZE_MAX)
		return;
	/* A gap of intervals with no event: their snapshots are alike, one said. */
	if (b > live_closed + 1000)
		live_closed = b - 1000;
	for (; live_closed < b; live_closed++) {
		live_snapshot(base + (int64_t)((live_closed + 1) * o->interval));
		if (b - live_closed > 1)
			continue;	/* only the last of a run is shown */
		mt_status_yield(STDOUT_FILENO);	/* not written into the meter's line */
		if (!o->growth)
			print_table(o);
		else if (nsnaps >= 2)
			print_growth(o, 1);
		fflush(stdout);
	}
}

/* --live at the end of the input: the interval it cut short, a snapshot too. */
void
live_end(const struct pooldiff_opts *o)
{
	int64_t base = trace_start == NONE ? 0 : trace_start;

	if (nsnaps && stream_end <= live_closed * o->interval)
		return;
	partial_last = short_last(o, stream_end, live_closed);
	live_snapshot(base + (int64_t)stream_end);
}

/* The dictionary and the pairer, before the first input. */
void
events_begin(const struct pooldiff_opts *o)
{
	dict = dict_new(o->skip_pattern);
	pairer = pairer_new(pair_emit, (void *)(uintptr_t)o);
}

/* The first header's start, as a time that fits a snapshot's, and host. */
static void
trace_header(const struct mt_header *h)
{
	if (trace_start == NONE && h->start > 0 && h->start <= INT64_MAX)
		trace_start = (int64_t)h->start;
	if (!trace_host && h->host.len)
		trace_host = estrndup(h->host.s, h->host.len);
}

int
read_input(const struct pooldiff_opts *o, const char *path)
{
	struct mt_reader *r;
	struct mt_event ev;
	int added;

	if (!(r = reader_open(path)))
		return 1;
	pairer_input(pairer, r);
	reader_keep_bad(r);
	while (reader_next(r, &ev)) {
		if ((added = dict_add(dict, &ev))) {
			if (added == 2)		/* a stack redefined */
				suppress_forget(o->suppress);
			continue;
		}
		switch (ev.type) {
		case MT_COMMENT:
			if (ev.s1.len >= 8 && !memcmp(ev.s1.s, "#mt-pool", 8) &&
			    (ev.s1.len == 8 || ev.s1.s[8] == ' ' || ev.s1.s[8] == '\t')) {
				char *line = estrndup(ev.s1.s + 8, ev.s1.len - 8);
				log_header(reader_name(r), reader_lineno(r), line);
				free(line);
			} else if (ev.header) {
				trace_header(ev.header);
			}
			break;
		case MT_UNKNOWN:
			log_row(reader_name(r), reader_lineno(r), ev.s1.s, ev.s1.len);
			break;
		case MT_POOL:
			pool_record(&ev);
			break;
		case MT_ALLOC:
			saw_events = 1;
			if (o->live)
				live_close(o, ev.ts);
			pairer_alloc(pairer, &ev);
			if (o->live)
				count_life(o, ev.flags & EV_TS_NONE ? 0 : ev.ts, UINT64_MAX, ev.heap, ev.size,
				    ev.flags & EV_STACK_NONE ? UINT64_MAX : ev.stack, ev.pid, 1);
			break;
		case MT_FREE:
			saw_events = 1;
			if (o->live)
				live_close(o, ev.ts);
			pairer_free(pairer, &ev);
			break;
		/*
		 * What a process never freed stays in its tags after its exit:
		 * the table is of what the allocation functions left, and a
		 * leak that the exit ended would read as freed in the last
		 * interval, and never be said to grow.
		 */
		case MT_PROC:
			pairer_proc(pairer, ev.pid, UINT64_MAX);
			break;
		case MT_EXIT:
			pairer_image_end(pairer, ev.pid, "exit", UINT64_MAX);
			break;
		case MT_LOST:
			pairer_lost(pairer, ev.size);
			break;
		case MT_LIFE:
			saw_events = 1;
			if (o->live)
				live_close(o, ev.flags & EV_TS2_NONE ? ev.ts : ev.ts2);
			/* A leak that its process's end ended: not freed, as above. */
			count_life(o, before_at(ev.flags & EV_TS_NONE ? UINT64_MAX : ev.ts,
			    ev.flags & EV_SIZE_NONE ? UINT64_MAX : ev.size),
			    (ev.flags & EV_TS2_NONE) || (ev.s2.len == 4 &&
			    !memcmp(ev.s2.s, "exit", 4)) ? UINT64_MAX : ev.ts2, ev.heap,
			    ev.flags & EV_SIZE_NONE ? UINT64_MAX : ev.size,
			    ev.flags & EV_STACK_NONE ? UINT64_MAX : ev.stack, ev.pid, 0);
			break;
		default:
			break;
		}
	}
	log_done();
	pairer_input(pairer, NULL);
	return reader_close(r);
}

/* What the pairer holds at the end of the input. */
void
events_end(void)
{
	pairer_finish(pairer);
}

/* The counts of every interval, summed into one snapshot at its end. */
void
snapshots_from_events(const struct pooldiff_opts *o)
{
	mt_wide c[NCOUNTERS];
	size_t k, i;
	int j;
	struct tag *t;
	int64_t base = trace_start == NONE ? 0 : trace_start;
	mt_wide (*run)[3] = ecalloc(ntags ? ntags : 1, sizeof(*run));

	/*
	 * A short last interval joins the whole one before it, whose snapshot
	 * is then at the end of the trace: compared alone with a whole
	 * interval, its changes would be near nothing.  Alone, its snapshot
	 * is at the end of the trace too, not after it.
	 */
	for (i = 0; i < ntags; i++) {
		steps_merge(&tags[i]->ch);
		tags[i]->cursor = 0;
	}
	partial_last = nbuckets && short_last(o, stream_end, nbuckets - 1);
	if (partial_last && nbuckets > 1) {
		last_interval = stream_end - (nbuckets - 2) * o->interval;
		partial_last = 0;
	}
	for (k = 0; k < nbuckets; k++) {
		size_t upto = k + 2 == nbuckets && last_interval ? k + 1 : k;

		if (k + 1 == nbuckets && last_interval)
			break;		/* joined to the one before */
		snapshot_begin(base + (int64_t)(upto + 1 < nbuckets || !partial_last ?
		    (upto + 1 == nbuckets ? stream_end : (k + 1) * o->interval) : stream_end),
		    trace_host);
		for (i = 0; i < ntags; i++) {
			t = tags[i];
			for (; t->cursor < t->ch.n && t->ch.d[t->cursor].k <= upto; t->cursor++)
				for (j = 0; j < 3; j++)
					run[i][j] += t->ch.d[t->cursor].v[j];
			if (!run[i][0] && !run[i][1])
				continue;
			counters(c, run[i]);
			snapshot_row(t, c);
		}
	}
	free(run);
}
