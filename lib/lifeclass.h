/*
 * lifeclass: WPA's lifetime classes, the one place their rules live.  A
 * lifetime is allocated inside a window or outside it (before), freed
 * inside or outside (after, or never): aifi, aifo, aofi, aofo.  And the
 * life record a lifetime of the pairer makes.
 */
#ifndef MT_LIFECLASS_H
#define MT_LIFECLASS_H

#include <stddef.h>
#include <stdint.h>

enum { LC_AIFI, LC_AIFO, LC_AOFI, LC_AOFO };
extern const char *const life_class_names[4];

static inline unsigned
life_class(int alloc_inside, int free_inside)
{
	return (unsigned)(!alloc_inside) << 1 | (unsigned)!free_inside;
}

/* What the window's memory grew by: +size allocated and kept, -size freed. */
static inline int64_t
life_class_impact(unsigned cls, uint64_t size, int size_known)
{
	if (!size_known)
		return 0;
	return cls == LC_AIFO ? (int64_t)size : cls == LC_AOFI ? -(int64_t)size : 0;
}

/* A class's name back to 0-3, or -1. */
int life_class_parse(const char *s, size_t len);
/*
 * WPA's Impacting Type, and ours: leaked, outstanding at the window's end
 * because its process exited without freeing it.  cls -1: not known.
 */
const char *life_type(int cls, int exited);
/* The pairer's lifetime as a life event, class cls (0-3). */
struct mt_life;
struct mt_event;
void life_event(const struct mt_life *l, unsigned cls, int64_t impact, struct mt_event *ev);

#endif
