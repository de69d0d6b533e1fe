/*
 * groupkey.c: the values of mt-group's keys that more than one program
 * shows (mt-group, mt-report): a stack folded, a size's class, a task.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "mt.h"

/* Appends a frame after a ';' (but at the start or after a TAB), its own
   ';' and '\\' escaped with a '\\'. */
void
stack_frame_add(char **p, size_t *len, size_t *cap, const char *f)
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
 * callers missing; its first startup frames (--from-main) are one frame
 * "[start-up]".
 */
void
stack_folded(const struct mt_stackinfo *si, uint32_t startup, char **p, size_t *len,
    size_t *cap)
{
	size_t i;

	if (si->cut)
		stack_frame_add(p, len, cap, "[...]");
	if (startup)
		stack_frame_add(p, len, cap, "[start-up]");
	for (i = si->n - startup; i-- > si->alloc_frame;)
		stack_frame_add(p, len, cap, si->frame[i]->function);
}

/* Powers of two: 1-1, 2-3, 4-7, ..., 64-127 bytes; "0" for none. */
size_t
size_class(uint64_t size, char *buf, size_t n)
{
	int b, w;
	uint64_t lo, hi;

	if (!size)
		return (size_t)snprintf(buf, n, "0");
	b = 63 - __builtin_clzll(size);
	lo = UINT64_C(1) << b;
	hi = b == 63 ? UINT64_MAX : (lo << 1) - 1;
	w = snprintf(buf, n, "%" PRIu64 "-%" PRIu64, lo, hi);
	return (size_t)w < n ? (size_t)w : n - 1;
}

/* The kernel's events by the task that made them (comm:tid); a
   process's by its name and thread. */
size_t
task_name(struct mt_dict *d, int64_t pid, int64_t tid, char *buf, size_t n)
{
	const char *comm = pid == 0 ? dict_task(d, tid) : NULL;
	int w = snprintf(buf, n, "%.40s:%" PRId64, comm ? comm : dict_process(d, pid), tid);

	return (size_t)w < n ? (size_t)w : n - 1;
}
