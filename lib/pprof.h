/* pprof: pprof profiles. */
#ifndef MT_PPROF_H
#define MT_PPROF_H

#include <stdio.h>
#include <stdint.h>
#include "event.h"
#include "stacks.h"
#include "units.h"

/*
 * pprof/: lifetimes as a gzipped profile.proto (mt-group -F pprof), for
 * go tool pprof.  Values: alloc_objects, alloc_space, inuse_objects,
 * inuse_space.  pprof_new() makes d keep its stacks' addresses.
 */
#define PPROF_VALUES 4
struct mt_pprof;
struct mt_pprof *pprof_new(struct mt_dict *d);
void pprof_event(struct mt_pprof *p, const struct mt_event *ev);	/* every record */
/* A lifetime of stack si (NULL: none), its outermost fold frames the start-up's. */
void pprof_life(struct mt_pprof *p, const struct mt_event *ev, const struct mt_stackinfo *si,
    uint32_t fold);
/*
 * The profile, gzipped, to out; the values past 2^63-1 saturated, in
 * sat[].  0, or 1 when zlib failed, said; a failed write is out's error.
 */
int pprof_write(struct mt_pprof *p, FILE *out, struct mt_sat sat[PPROF_VALUES]);
void pprof_free(struct mt_pprof *p);

#endif
