/*
 * WPA's lifetime classes: their names and types (WPA-SEMANTICS.md), and
 * the life record of a lifetime of the pairer.
 */
#include <string.h>

#include "mt.h"

const char *const life_class_names[4] = { "aifi", "aifo", "aofi", "aofo" };

/* By the letters: a call a record costs. */
int
life_class_parse(const char *s, size_t len)
{
	if (len != 4 || s[0] != 'a' || s[2] != 'f' ||
	    (s[1] != 'i' && s[1] != 'o') || (s[3] != 'i' && s[3] != 'o'))
		return -1;
	return (s[1] == 'o') << 1 | (s[3] == 'o');
}

const char *
life_type(int cls, int exited)
{
	if (cls == LC_AIFI)
		return "transient";
	if (exited && (cls == LC_AIFO || cls == LC_AOFO))
		return "leaked";
	if (cls == LC_AOFO)
		return "outstanding";
	return "impacting";
}

/* The pairer's lifetime as a life event, class cls (0-3). */
void
life_event(const struct mt_life *l, unsigned cls, int64_t impact, struct mt_event *ev)
{
	event_clear(ev);
	ev->type = MT_LIFE;
	ev->ts = l->ta;
	ev->ts2 = l->tf;
	ev->pid = l->pid;
	ev->tid = l->tid;
	ev->heap = l->heap;
	ev->addr = l->addr;
	ev->size = l->size;
	ev->stack = l->stack;
	ev->impact = impact;
	ev->flags = (l->ta == UINT64_MAX ? EV_TS_NONE : 0) | (l->tf == UINT64_MAX ? EV_TS2_NONE : 0) |
	    (l->tid < 0 ? EV_TID_NONE : 0) | (l->size == UINT64_MAX ? EV_SIZE_NONE : 0) |
	    (l->stack == UINT64_MAX ? EV_STACK_NONE : 0);
	ev->s1 = (struct mt_str){ life_class_names[cls & 3], 4 };
	if (l->fate)
		ev->s2 = (struct mt_str){ l->fate, strlen(l->fate) };
	if (l->free_stack != UINT64_MAX) {
		ev->stack2 = l->free_stack;
		ev->flags |= EV_STACK2;
	}
	if (l->temporary)
		ev->flags |= EV_TEMP;
}
