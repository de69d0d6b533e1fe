/*
 * mt-window's window: the life lines active in it, reclassed and their
 * impact recomputed for it, and kept or not by the filters (process,
 * heap, regular expressions on process names and stack frames).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "window.h"

static uint64_t nkept, input_end;

/* A time for a message, as a person reads it: seconds, to the nanosecond. */
void
format_time(char *buf, size_t len, uint64_t ns)
{
	mt_seconds(ns, -1, "s", buf, len);
}

/* A window past the trace, or with nothing in it: a warning, not an error. */
void
say_times(const struct window_opts *o)
{
	char a[64], b[64];
	int filtered = o->npids || o->nheaps || o->match_re || o->exclude_re || o->process_re;

	if (!nlife)
		return;
	format_time(b, sizeof(b), input_end - 1);	/* its last time */
	if (o->from != NONE && o->from >= input_end) {
		format_time(a, sizeof(a), o->from);
		mt_note("warning: --from %s is past the trace's end (%s)", a, b);
	} else if (o->at != NONE && o->at >= input_end) {
		format_time(a, sizeof(a), o->at);
		mt_note("warning: --at %s is past the trace's end (%s)", a, b);
	} else if (o->to != NONE && o->to > input_end && o->at == NONE) {
		format_time(a, sizeof(a), o->to);
		mt_note("warning: --to %s is past the trace's end (%s)", a, b);
	}
	if (!nkept && (o->at != NONE || o->at_peak)) {
		format_time(a, sizeof(a), o->at);
		mt_note("warning: no lifetimes live at %s%s", o->at_peak ? "the peaks" : a,
		    filtered ? " that the filters keep" : "");
	} else if (!nkept) {
		format_time(a, sizeof(a), o->t0);
		format_time(b, sizeof(b), o->t1);
		mt_note("warning: no lifetimes in the window [%s, %s)%s", a, b,
		    filtered ? " that the filters keep" : "");
	}
}

/*
 * Which regular expressions a process's names matched, by pid (bit 0
 * --match, bit 1 --exclude, bit 3 --process; bit 2 so that none is not
 * NULL).  Any name a pid has had counts for --match and --exclude.
 */
static struct u64map proc_match;

/*
 * Kept only for --match and --exclude: the symbols, in the shared
 * dictionary, and a stack's addresses until its first use, which matches
 * its frames against both and keeps only the answers; resolving every
 * stack to frames would hold them all to the end.
 */
static struct mt_dict *dict;
struct stack {
	size_t n;
	uint64_t ips[];
};
static struct u64map stacks;	/* id -> struct stack, or tagged answers */
#define ANSWERED 1		/* low bit: the value is answers, bit 1 + which */

/* Does a frame of the stack match re?  Each field alone: function,
   file:line, module; an address no sym line named has none. */
static int
frames_match(const struct stack *st, struct mt_regex *re)
{
	const char *p, *e;
	size_t i;

	for (i = 0; i < st->n; i++) {
		if (!(p = dict_sym(dict, st->ips[i])))
			continue;
		for (; *p; p = e + 1) {
			e = p + strcspn(p, "\t\n");
			if (re_match(re, p, (size_t)(e - p)))
				return 1;
			if (!*e)
				break;
		}
	}
	return 0;
}

/* A stack line: its addresses kept until the stack is first used. */
static void
stack_seen(const struct mt_event *ev)
{
	void **v = u64map_get(&stacks, ev->stack, 1);
	struct stack *st;

	if (!((uintptr_t)*v & ANSWERED))
		free(*v);
	st = emalloc(sizeof(*st) + ev->nips * sizeof(st->ips[0]));
	memcpy(st->ips, ev->ips, ev->nips * sizeof(st->ips[0]));
	st->n = ev->nips;
	*v = st;
}

/* Does the process name, or any frame of the stack, match?  which: 0, 1. */
static int
matches(const struct window_opts *o, int which, int64_t pid, uint64_t stack_id,
    int has_stack)
{
	void **v, **sy;
	uintptr_t m;

	if ((sy = u64map_get(&proc_match, (uint64_t)pid, 0)) && ((uintptr_t)*sy >> which & 1))
		return 1;
	if (!has_stack || !(v = u64map_get(&stacks, stack_id, 0)))
		return 0;
	/* A stack's frames are matched once; sym lines come before it. */
	if (!((uintptr_t)*v & ANSWERED)) {
		struct stack *st = *v;

		m = ANSWERED;
		if (o->match_re && frames_match(st, o->match_re))
			m |= 2;
		if (o->exclude_re && frames_match(st, o->exclude_re))
			m |= 4;
		free(st);
		*v = (void *)m;
	}
	return (uintptr_t)*v >> (which + 1) & 1;
}

static int
keep(const struct window_opts *o, const struct mt_event *ev)
{
	size_t i;
	int has_stack = !(ev->flags & EV_STACK_NONE);

	if (o->npids) {
		for (i = 0; i < o->npids; i++)
			if (o->pids[i] == ev->pid)
				break;
		if (i == o->npids)
			return 0;
	}
	if (o->nheaps) {
		for (i = 0; i < o->nheaps; i++)
			if (strlen(o->heaps[i]) == ev->heap.len &&
			    !memcmp(o->heaps[i], ev->heap.s, ev->heap.len))
				break;
		if (i == o->nheaps)
			return 0;
	}
	if (o->process_re) {
		void **v = u64map_get(&proc_match, (uint64_t)ev->pid, 0);
		if (!v || !((uintptr_t)*v & 8))
			return 0;
	}
	if (o->match_re && !matches(o, 0, ev->pid, ev->stack, has_stack))
		return 0;
	if (o->exclude_re && matches(o, 1, ev->pid, ev->stack, has_stack))
		return 0;
	return 1;
}

/* A process's names against the expressions: an exec renames it. */
static void
proc_seen(const struct window_opts *o, const struct mt_event *ev)
{
	void **v = u64map_get(&proc_match, (uint64_t)ev->pid, 1);
	uintptr_t m = (uintptr_t)*v | 4;
	size_t n;
	const char *name = proc_name(ev->s1.s, ev->s1.len, &n);

	if (o->match_re && re_match(o->match_re, ev->s1.s, ev->s1.len))
		m |= 1;
	if (o->exclude_re && re_match(o->exclude_re, ev->s1.s, ev->s1.len))
		m |= 2;
	/* Each image its own name. */
	m &= ~(uintptr_t)8;
	if (o->process_re && re_match(o->process_re, name, n))
		m |= 8;
	*v = (void *)m;
}

/* The end so far, after a record: the last time any record carries, plus one. */
static uint64_t
end_after(const struct mt_event *ev, uint64_t end)
{
	if (ev->type == MT_LIFE) {
		if (!(ev->flags & EV_TS_NONE) && ev->ts >= end)
			end = ev->ts + 1;
		if (!(ev->flags & EV_TS2_NONE) && ev->ts2 >= end)
			end = ev->ts2 + 1;
	} else if ((ev->type == MT_ALLOC || ev->type == MT_FREE || ev->type == MT_EXIT ||
	    ev->type == MT_PROC || ev->type == MT_LOST) && ev->ts >= end) {
		end = ev->ts + 1;
	}
	return end;
}

/* The end of the trace: the last time any record carries, plus one. */
uint64_t
last_time(const char *path, int spool, int *unread)
{
	struct mt_reader *r = reader_reopen(path, spool);
	struct mt_event ev;
	uint64_t end = 0;

	*unread = !r;
	if (!r)
		return 0;
	reader_quiet(r);	/* the pass that writes says what is wrong, once */
	while (reader_next(r, &ev))
		end = end_after(&ev, end);
	reader_close(r);
	return end;
}

/* The window line goes first, after the header if the stream has one. */
static void
put_window(const struct window_opts *o)
{
	struct mt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = MT_WINDOW;
	ev.ts = o->t0;
	ev.ts2 = o->t1;
	sink_put(&out, &ev);
}

/*
 * A life line of the window's pass: reclassed for the window (or the
 * instant of --at), then written or added to the series; with peaks, a
 * reading of --at peak before the one that writes: the first (1) adds it
 * to the series, those after (2) to peak.c's candidates.
 */
static void
window_life(const struct window_opts *o, struct mt_event *ev, int peaks)
{
	uint64_t ta = ev->flags & EV_TS_NONE ? 0 : ev->ts;
	uint64_t tf = ev->flags & EV_TS2_NONE ? NONE : ev->ts2;
	unsigned cls;

	if (peaks) {
		if ((tf == NONE || tf > o->t0) && keep(o, ev))
			(peaks == 1 ? series_add : peak_add)(o, ev, ta, tf,
			    ev->flags & EV_SIZE_NONE ? 0 : (int64_t)ev->size);
		return;
	}
	nlife++;
	if (o->at_peak || o->at != NONE) {
		/* Live at the instant: allocated by it, freed after it. */
		uint64_t at = o->at;
		if (o->at_peak) {
			struct series *s = keep(o, ev) ? series_find(ev) : NULL;
			if (!s)
				return;
			at = series_peak_time(s);
		}
		if (ta > at || (tf != NONE && tf <= at))
			return;
	}
	/*
	 * A block its process never freed (the fate exit) is, in a table,
	 * outstanding for ever, as in WPA, where an exit writes no free; the
	 * graph and --at still see it end with its process.
	 */
	if (!o->step && !o->at_peak && o->at == NONE && ev->s2.len == 4 &&
	    !memcmp(ev->s2.s, "exit", 4))
		tf = NONE;
	/* In the window iff it began before its end and ended after its start. */
	if (!((ev->flags & EV_TS_NONE) || ta < o->t1) || !(tf == NONE || tf > o->t0))
		return;
	if (!keep(o, ev))
		return;
	nkept++;
	/* Freed inside the window, unless outstanding at the instant of --at. */
	cls = life_class(!(ev->flags & EV_TS_NONE) && ta >= o->t0,
	    tf != NONE && tf < o->t1 && !o->at_peak && o->at == NONE);
	ev->impact = life_class_impact(cls, ev->size, !(ev->flags & EV_SIZE_NONE));
	ev->s1.s = life_class_names[cls];
	ev->s1.len = 4;
	if (o->step) {
		series_add(o, ev, ev->flags & EV_TS_NONE ? 0 : ta, tf,
		    ev->flags & EV_SIZE_NONE ? 0 : (int64_t)ev->size);
		return;
	}
	/* The fate field, if any, goes with the line as it was. */
	sink_put(&out, ev);
}

int
window(const struct window_opts *o, const char *path, int spool, int peaks)
{
	struct mt_reader *r;
	struct mt_event ev;
	int first = 1;

	if (!(r = reader_reopen(path, spool)))
		return 1;
	if (peaks)
		reader_quiet(r);	/* the pass that writes says what is wrong */
	if ((o->match_re || o->exclude_re) && !dict)
		dict = dict_new(NULL);
	while (reader_next(r, &ev)) {
		if (first && !o->step && !peaks) {
			first = 0;
			if (ev.header) {
				sink_pass(&out, r, &ev);
				put_window(o);
				continue;
			}
			put_window(o);
		}
		if (ev.type == MT_WINDOW)
			continue;	/* ours replaces it */
		if (ev.type == MT_PROC)
			proc_seen(o, &ev);
		else if (dict && ev.type == MT_STACK)
			stack_seen(&ev);
		else if (dict && ev.type == MT_SYM)
			dict_add(dict, &ev);
		if (!peaks)
			input_end = end_after(&ev, input_end);
		if (ev.type == MT_LIFE && !peaks)
			put_peaks(o);	/* after the dictionary before the first */
		if (ev.type == MT_LIFE) {
			window_life(o, &ev, peaks);
		} else if (!peaks) {
			if (ev.type == MT_ALLOC || ev.type == MT_FREE)
				nraw++;
			/* A series passes the processes' names on, for its readers. */
			if (!o->step || ev.type == MT_PROC)
				sink_pass(&out, r, &ev);
		}
	}
	return reader_close(r);
}
