/*
 * mt-group's keys: --by parsed, and a key's value for a lifetime (its
 * process, heap, type, allocating frame, stack, times...).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "group.h"

const char *const key_names[K_NKEYS] = { "process", "pid", "heap", "type",
	"class", "function", "stack", "module", "file", "free-function", "free-stack", "task",
	"line", "temporary", "size-class", "order", "commit-time", "decommit-time" };

/* The table's headings: WPA's names for its two times. */
const char *
key_heading(enum key k)
{
	return k == K_COMMIT_TIME ? "Commit Time" : k == K_DECOMMIT_TIME ? "Decommit Time" :
	    key_names[k];
}

void
parse_keys(struct group_opts *o, const char *s)
{
	const char *e;
	size_t k, n;

	for (o->nkeys = 0; *s; s = *e ? e + 1 : e) {
		e = s + strcspn(s, ",");
		n = (size_t)(e - s);
		for (k = 0; k < K_NKEYS; k++)
			if (strlen(key_names[k]) == n && !memcmp(key_names[k], s, n))
				break;
		if (k == K_NKEYS || o->nkeys == K_NKEYS) {
			mt_errx(2, "bad key '%s' (process, pid, heap, type, class, function, "
			    "stack, module, file, line, free-function, free-stack, task, temporary, "
			    "size-class, order, commit-time, decommit-time)", mt_shown(s, n));
		}
		o->uncached |= k == K_FREE_FUNCTION || k == K_FREE_STACK || k == K_TASK ||
		    k == K_TEMPORARY || k == K_SIZE_CLASS || k == K_ORDER || k == K_COMMIT_TIME ||
		    k == K_DECOMMIT_TIME;
		o->keys[o->nkeys++] = (enum key)k;
	}
}

/*
 * WPA's Impacting Type; and ours, leaked: outstanding at the window's
 * end because its process ended without freeing it (the fate exit), so
 * that it is told from what was still live when the trace ended.
 */
static const char *
type_of(struct mt_str cls, struct mt_str fate)
{
	return life_type(life_class_parse(cls.s, cls.len),
	    fate.len == 4 && !memcmp(fate.s, "exit", 4));
}

/* The start-up frames of a stack (--from-main), found once a stack. */
uint32_t
startup_of(const struct group_opts *o, struct mt_stackinfo *si)
{
	static struct u64map seen;	/* stack -> 1 + its start-up frames */
	void **v;

	if (!o->from_main)
		return 0;
	v = u64map_get(&seen, (uint64_t)(uintptr_t)si, 1);
	if (!*v)
		*v = (void *)(uintptr_t)(1 + startup_frames(si));
	return (uint32_t)((uintptr_t)*v - 1);
}

void
folded(const struct group_opts *o, struct mt_stackinfo *si, char **p, size_t *len, size_t *cap)
{
	stack_folded(si, startup_of(o, si), p, len, cap);
}

/* The trace's resolution in ns, from its header: the digits a time has. */
static uint64_t resolution = 1;

void
header_resolution(const struct mt_header *h)
{
	if (h->resolution > resolution)	/* files of several resolutions: the coarsest */
		resolution = h->resolution;
}

/* A time in seconds, to the digits the resolution has: 100 ns, 7 digits. */
static size_t
seconds(uint64_t ns, char *buf, size_t size)
{
	uint64_t unit = 1000000000;
	int digits = 0;

	while (unit > resolution && unit > 1)
		unit /= 10, digits++;
	return strlen(mt_seconds(ns, digits, "", buf, size));
}

/*
 * A key's value for a lifetime, in a buffer of ours until the next call:
 * a stack's as folded frames (its ';' escaped).
 */
const char *
key_value(const struct group_opts *o, enum key k, const struct mt_event *ev,
    struct mt_stackinfo *si, struct mt_stackinfo *fsi, size_t *len)
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
			folded(o, si, &fold, len, &cap);
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
