/*
 * maps: which ranges of a process are committed or reserved, from its
 * mmap, munmap, mremap and mprotect records, written as allocations.
 */

#include <stdio.h>

#include "internal.h"

/*
 * A change to a process's regions, kept a while (OPS_NS, OPS_MAX) so
 * that a child whose hello we read late, after the merge went past its
 * fork, gets its parent's regions as of the fork: the changes since are
 * undone on its copy.
 */
struct region_op {
	uint64_t ts, lo, hi;
	uint8_t heap, added;
};
#define OPS_NS		2000000000u
#define OPS_MAX		65536

static void
region_log(struct proc *p, uint64_t ts, uint64_t lo, uint64_t hi, int heap, int added)
{
	/* The old ones go: past OPS_NS, or past OPS_MAX. */
	while (p->opshead < p->nops && (p->nops - p->opshead >= OPS_MAX ||
	    p->ops[p->opshead].ts + OPS_NS < ts))
		p->opshead++;
	if (p->nops == p->opscap) {
		/* Moved down when half is gone (once in opscap / 2 changes at
		   most), else grown: never a move a change. */
		if (p->opshead >= p->opscap / 2 && p->opshead) {
			memmove(p->ops, p->ops + p->opshead, (p->nops - p->opshead) * sizeof(*p->ops));
			p->nops -= p->opshead;
			p->opshead = 0;
		} else {
			p->opscap = p->opscap ? 2 * p->opscap : 64;
			p->ops = erealloc(p->ops, p->opscap * sizeof(*p->ops));
		}
	}
	p->ops[p->nops++] = (struct region_op){ ts, lo, hi, (uint8_t)heap, (uint8_t)added };
}

/*
 * Ends [lo, hi) wherever it overlaps what we track, one free a piece,
 * and returns the heap of the first piece (or -1).  With only_heap >= 0
 * it touches only regions of that heap.
 */
static int
region_cut(struct recorder *rc, struct proc *p, struct rec *r, uint64_t lo, uint64_t hi,
    int only_heap, int quiet)
{
	struct mt_rpos at = ranges_seek(&p->regions, lo);
	struct mt_range *g, v;
	int first = -1;

	while ((g = ranges_at(&p->regions, at)) && g->lo < hi) {
		uint64_t a, b;

		v = *g;
		a = v.lo > lo ? v.lo : lo;
		b = v.hi < hi ? v.hi : hi;
		if (only_heap >= 0 && v.heap != only_heap) {
			ranges_next(&p->regions, &at);
			continue;
		}
		if (first < 0)
			first = v.heap;
		if (!quiet) {
			put_heap_event(rc, MT_FREE, r, p, v.heap, a, b - a);
			region_log(p, r->ts, a, b, v.heap, 0);
		}
		if (v.lo < a && v.hi > b) {
			g->hi = a;
			ranges_next(&p->regions, &at);
			ranges_insert(&p->regions, &at, (struct mt_range){ b, v.hi, v.heap });
			ranges_next(&p->regions, &at);
		} else if (v.lo < a) {
			g->hi = a;
			ranges_next(&p->regions, &at);
		} else if (v.hi > b) {
			g->lo = b;
			ranges_next(&p->regions, &at);
		} else {
			ranges_delete(&p->regions, &at);
		}
	}
	return first;
}

/* flags EV_TS_NONE: a mapping made before recording (-p). */
void
region_add_flags(struct recorder *rc, struct proc *p, struct rec *r, uint64_t lo, uint64_t hi,
    int heap, unsigned flags)
{
	struct mt_rpos at;

	if (hi <= lo)
		return;
	at = ranges_seek(&p->regions, lo);
	ranges_insert(&p->regions, &at, (struct mt_range){ lo, hi, (uint8_t)heap });
	put_heap_event_flags(rc, MT_ALLOC, r, p, heap, lo, hi - lo, flags);
	region_log(p, r->ts, lo, hi, heap, 1);
}

static void
region_add(struct recorder *rc, struct proc *p, struct rec *r, uint64_t lo, uint64_t hi,
    int heap)
{
	region_add_flags(rc, p, r, lo, hi, heap, 0);
}

/*
 * -p: the private anonymous mappings of the process as we attached, read
 * from /proc/PID/maps before: allocations made before recording, written
 * with no time, so that a later munmap of one has its size and the
 * commit's lifetime stays whole.
 */
void
recorder_read_befores(struct recorder *rc, pid_t pid)
{
	char path[64], line[512];
	struct procmap m;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if (!(f = fopen(path, "re")))
		return;
	while (fgets(line, sizeof(line), f)) {
		if (procmap_parse(line, &m) < 0 || m.inode || m.perms[3] != 'p' || m.path[0])
			continue;	/* a file, shared, or named: [heap], [stack], [vdso] */
		if (m.perms[1] != 'w' && strcmp(m.perms, "---p") != 0)
			continue;	/* neither committed nor reserved */
		rc->befores = egrow(rc->befores, rc->nbefores, &cap, sizeof(*rc->befores));
		rc->befores[rc->nbefores++] = (struct mt_range){ m.lo, m.hi,
		    (uint8_t)(m.perms[1] == 'w' ? RAW_HEAP_MMAP : RAW_HEAP_RESERVE) };
	}
	fclose(f);
}

/*
 * A child's regions: its parent's as of the fork, at.  The merge may have
 * gone past it in the parent's events before we read the child's hello:
 * what the parent changed since is undone on the copy, newest first.
 */
void
regions_as_of_fork(struct recorder *rc, struct proc *child, struct proc *parent, struct rec *r,
    uint64_t at)
{
	size_t i;

	ranges_copy(&child->regions, &parent->regions);
	for (i = parent->nops; i-- > parent->opshead && parent->ops[i].ts > at;) {
		struct region_op *o = &parent->ops[i];

		if (o->added) {
			region_cut(rc, child, r, o->lo, o->hi, o->heap, 1);
		} else {
			struct mt_rpos pos = ranges_seek(&child->regions, o->lo);
			ranges_insert(&child->regions, &pos, (struct mt_range){ o->lo, o->hi, o->heap });
		}
	}
}

static uint64_t
page_end(uint64_t addr, uint64_t len)
{
	uint64_t e = addr + len;

	return e < addr ? UINT64_MAX : (e + 4095) & ~(uint64_t)4095;
}

/*
 * Anonymous memory made executable is JIT code: a map line, so that its
 * addresses are known to be in it, not outside every module.
 */
static void
put_exec_map(struct recorder *rc, struct rec *r, uint64_t lo, uint64_t hi)
{
	struct mt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = MT_MAP;
	ev.pid = r->pid;
	ev.addr = lo;
	ev.size = hi;
	ev.s2.s = "[anon:exec]";
	ev.s2.len = strlen(ev.s2.s);
	put_event(rc, &ev);
}

void
emit_mapping(struct recorder *rc, struct rec *r, struct proc *p)
{
	uint64_t lo = r->addr, hi = page_end(r->addr, r->size);
	struct mt_range *g;
	struct mt_rpos at;

	switch (r->kind) {
	case RAW_MMAP:
		region_cut(rc, p, r, lo, hi, -1, 0);
		if (r->heap == RAW_HEAP_MMAP || r->heap == RAW_HEAP_RESERVE)
			region_add(rc, p, r, lo, hi, r->heap);
		if (r->flags & RAW_EXEC)
			put_exec_map(rc, r, lo, hi);
		break;
	case RAW_MUNMAP:
		region_cut(rc, p, r, lo, hi, -1, 0);
		break;
	case RAW_MREMAP_FROM:
		p->remap_heap = region_cut(rc, p, r, lo, hi, -1, 0);
		break;
	case RAW_MREMAP_TO:
		if (p->remap_heap >= 0) {
			region_cut(rc, p, r, lo, hi, -1, 0);
			region_add(rc, p, r, lo, hi, p->remap_heap);
		}
		p->remap_heap = -1;
		break;
	case RAW_MPROTECT:
		if (r->flags & RAW_EXEC)
			for (at = ranges_seek(&p->regions, lo); (g = ranges_at(&p->regions, at)) &&
			    g->lo < hi; ranges_next(&p->regions, &at))
				put_exec_map(rc, r, g->lo > lo ? g->lo : lo, g->hi < hi ? g->hi : hi);
		/* Reserved made writable is a commit; committed made
		   inaccessible a decommit; anything else changes nothing. */
		if (r->heap == RAW_HEAP_MMAP || r->heap == RAW_HEAP_RESERVE) {
			int from = r->heap == RAW_HEAP_MMAP ? RAW_HEAP_RESERVE : RAW_HEAP_MMAP;
			for (;;) {
				at = ranges_seek(&p->regions, lo);
				while ((g = ranges_at(&p->regions, at)) && g->lo < hi &&
				    g->heap != from)
					ranges_next(&p->regions, &at);
				if (!g || g->lo >= hi)
					break;
				uint64_t a = g->lo > lo ? g->lo : lo;
				uint64_t b = g->hi < hi ? g->hi : hi;
				region_cut(rc, p, r, a, b, from, 0);
				region_add(rc, p, r, a, b, r->heap);
			}
		}
		break;
	}
}


/* The mappings read by recorder_read_befores, as p's, with no time. */
void
regions_before(struct recorder *rc, struct proc *p, struct rec *r)
{
	size_t i;

	for (i = 0; i < rc->nbefores; i++)
		region_add_flags(rc, p, r, rc->befores[i].lo, rc->befores[i].hi, rc->befores[i].heap,
		    EV_TS_NONE);
}
