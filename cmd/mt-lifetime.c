/*
 * mt-lifetime: pairs each allocation with its free, per (pid, heap,
 * address), into life lines, written when a lifetime ends; the survivors
 * at the end of their process image or of the trace.  Every other line
 * passes through.  Memory holds the live allocations only.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mt.h"

#define HEAPS_MAX 4096

/* A live block of a heap freed by address (malloc, kernel caches...). */
struct block {
	uint64_t addr;
	uint64_t ts, size, stack;
	int32_t pid, tid;
	uint16_t heap;
	uint8_t used, flags;
};

/* A live range of a mapping heap (mmap, reserve): pieces end alone. */
struct range {
	uint64_t lo, hi;
	uint64_t ts, stack;
	int32_t pid, tid;
	uint16_t heap;
	uint8_t flags;
};

#define B_NOSTACK 1

static void usage(void) __attribute__((noreturn));

static struct block *blocks;
static size_t nblocks, blockcap;
static struct range *ranges;	/* sorted by (pid, heap, lo) */
static size_t nranges, rangecap;
static char *heapname[HEAPS_MAX];
static uint8_t range_heap[HEAPS_MAX];	/* mmap, reserve: freed by range */
static size_t nheaps;
static struct mt_out out;
static uint64_t n_lives, n_before, n_double, n_exit, n_live;
static const char *input_name;
static uint64_t input_line;

/* Recently freed addresses, to tell a double free: a cache, not a set. */
#define FREED_SLOTS (1u << 16)
static struct freed {
	uint64_t addr, alloc_ts, free_ts;
	int32_t pid;
	uint16_t heap;
	uint8_t used;
} freed[FREED_SLOTS];

static unsigned
heap_id(struct mt_str h)
{
	size_t i;

	for (i = 0; i < nheaps; i++)
		if (strlen(heapname[i]) == h.len && !memcmp(heapname[i], h.s, h.len))
			return (unsigned)i;
	if (nheaps == HEAPS_MAX)
		return HEAPS_MAX - 1;
	heapname[nheaps] = emalloc(h.len + 1);
	memcpy(heapname[nheaps], h.s, h.len);
	heapname[nheaps][h.len] = '\0';
	range_heap[nheaps] = !strcmp(heapname[nheaps], "mmap") ||
	    !strcmp(heapname[nheaps], "reserve");
	return (unsigned)nheaps++;
}

static int
is_range_heap(unsigned heap)
{
	return range_heap[heap];
}

/* Blocks: open addressing with backward-shift deletion, no tombstones. */
/*
 * The home slot keeps the order of addresses within a process and heap:
 * blocks made and freed near each other in memory, as allocators hand
 * them out, sit near each other in the table too, and a probe finds its
 * cache line warm.  Distinct 16-byte granules of one heap never share a
 * home unless they lie a whole table apart.
 */
static size_t
block_slot(int32_t pid, unsigned heap, uint64_t addr)
{
	return (size_t)((addr >> 4) ^ hash64((uint64_t)(uint32_t)pid << 16 | heap)) &
	    (blockcap - 1);
}

static struct block *
block_find(int32_t pid, unsigned heap, uint64_t addr)
{
	size_t i;

	if (!blockcap)
		return NULL;
	for (i = block_slot(pid, heap, addr); blocks[i].used; i = (i + 1) & (blockcap - 1))
		if (blocks[i].addr == addr && blocks[i].pid == pid && blocks[i].heap == heap)
			return &blocks[i];
	return NULL;
}

static void block_insert(const struct block *b);

/* The block's slot, or the empty one where it would go (one probe). */
static struct block *
block_slot_of(int32_t pid, unsigned heap, uint64_t addr)
{
	size_t i;

	for (i = block_slot(pid, heap, addr); blocks[i].used; i = (i + 1) & (blockcap - 1))
		if (blocks[i].addr == addr && blocks[i].pid == pid && blocks[i].heap == heap)
			break;
	return &blocks[i];
}

static void
block_grow(void)
{
	struct block *old = blocks;
	size_t i, oldcap = blockcap;

	blockcap = blockcap ? blockcap * 2 : 1024;
	blocks = ecalloc(blockcap, sizeof(*blocks));
	nblocks = 0;
	for (i = 0; i < oldcap; i++)
		if (old[i].used)
			block_insert(&old[i]);
	free(old);
}

static void
block_insert(const struct block *b)
{
	size_t i;

	if ((nblocks + 1) * 4 > blockcap * 3)
		block_grow();
	for (i = block_slot(b->pid, b->heap, b->addr); blocks[i].used; i = (i + 1) & (blockcap - 1))
		;
	blocks[i] = *b;
	blocks[i].used = 1;
	nblocks++;
}

static void
block_delete(struct block *b)
{
	size_t i = (size_t)(b - blocks), j = i, k;

	blocks[i].used = 0;
	nblocks--;
	for (;;) {
		j = (j + 1) & (blockcap - 1);
		if (!blocks[j].used)
			return;
		k = block_slot(blocks[j].pid, blocks[j].heap, blocks[j].addr);
		/* Move j back to i unless its home lies cyclically in (i, j]. */
		if ((i <= j) ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		blocks[i] = blocks[j];
		blocks[j].used = 0;
		i = j;
	}
}

/*
 * One life line.  ta or size or stack of UINT64_MAX: '-'; tf of
 * UINT64_MAX: never freed.  fate: NULL, "exit" or "end" for survivors.
 */
static void
put_life(uint64_t ta, uint64_t tf, int32_t pid, int32_t tid, unsigned heap,
    uint64_t addr, uint64_t size, uint64_t stack, const char *fate)
{
	struct mt_event ev;
	size_t n;

	memset(&ev, 0, sizeof(ev));
	ev.type = MT_LIFE;
	/* Over the whole trace: allocations made before it are AO, blocks
	   never freed FO; the rest is AIFI. */
	if (ta == UINT64_MAX) {
		ev.s1.s = "aofi";
		ev.impact = size == UINT64_MAX ? 0 : -(int64_t)size;
	} else if (tf == UINT64_MAX) {
		ev.s1.s = "aifo";
		ev.impact = (int64_t)size;
	} else {
		ev.s1.s = "aifi";
	}
	ev.s1.len = 4;
	ev.ts = ta;
	ev.ts2 = tf;
	ev.flags = (ta == UINT64_MAX ? EV_TS_NONE : 0) | (tf == UINT64_MAX ? EV_TS2_NONE : 0) |
	    (tid < 0 ? EV_TID_NONE : 0) | (size == UINT64_MAX ? EV_SIZE_NONE : 0) |
	    (stack == UINT64_MAX ? EV_STACK_NONE : 0);
	ev.pid = pid;
	ev.tid = tid;
	ev.heap.s = heapname[heap];
	ev.heap.len = strlen(heapname[heap]);
	ev.addr = addr;
	ev.size = size;
	ev.stack = stack;
	if (fate) {
		ev.s2.s = fate;
		ev.s2.len = strlen(fate);
	}
	n = event_format_size(&ev);
	out_commit(&out, event_format(&ev, out_reserve(&out, n), n));
	n_lives++;
}

static void
remember_free(int32_t pid, unsigned heap, uint64_t addr, uint64_t ta, uint64_t tf)
{
	struct freed *f = &freed[hash64(addr ^ (uint64_t)pid << 40) & (FREED_SLOTS - 1)];

	*f = (struct freed){ addr, ta, tf, pid, (uint16_t)heap, 1 };
}

/* A free of nothing live: freed before (double), or made before recording. */
static void
free_unknown(const struct mt_event *ev, unsigned heap)
{
	struct freed *f = &freed[hash64(ev->addr ^ (uint64_t)ev->pid << 40) & (FREED_SLOTS - 1)];
	char tok[160];
	int n;

	if (f->used && f->addr == ev->addr && f->pid == ev->pid && f->heap == heap) {
		n = snprintf(tok, sizeof(tok), "0x%" PRIx64 " allocated at %" PRIu64
		    ", freed at %" PRIu64 " and at %" PRIu64, ev->addr, f->alloc_ts,
		    f->free_ts, ev->ts);
		mt_warn_at(input_name, input_line, "double free", tok, (size_t)n);
		n_double++;
		return;
	}
	n_before++;
	put_life(UINT64_MAX, ev->ts, (int32_t)ev->pid, (int32_t)ev->tid, heap, ev->addr,
	    ev->size ? ev->size : UINT64_MAX, UINT64_MAX, NULL);
}

static void
on_alloc(const struct mt_event *ev)
{
	unsigned heap = heap_id(ev->heap);
	struct block b, *old;
	struct range r;
	size_t i, lo, hi;

	if (is_range_heap(heap)) {
		r = (struct range){ ev->addr, ev->addr + ev->size, ev->ts,
		    ev->flags & EV_STACK_NONE ? UINT64_MAX : ev->stack,
		    (int32_t)ev->pid, (int32_t)ev->tid, (uint16_t)heap, 0 };
		/* Sorted by (pid, heap, lo): a binary search for the place. */
		lo = 0;
		hi = nranges;
		while (lo < hi) {
			i = (lo + hi) / 2;
			struct range *x = &ranges[i];
			if (x->pid < r.pid || (x->pid == r.pid && (x->heap < r.heap ||
			    (x->heap == r.heap && x->lo < r.lo))))
				lo = i + 1;
			else
				hi = i;
		}
		if (nranges == rangecap) {
			rangecap = rangecap ? rangecap * 2 : 256;
			ranges = erealloc(ranges, rangecap * sizeof(*ranges));
		}
		memmove(&ranges[lo + 1], &ranges[lo], (nranges - lo) * sizeof(*ranges));
		ranges[lo] = r;
		nranges++;
		return;
	}
	if ((nblocks + 1) * 4 > blockcap * 3)
		block_grow();
	b = (struct block){ ev->addr, ev->ts, ev->size,
	    ev->flags & EV_STACK_NONE ? UINT64_MAX : ev->stack,
	    (int32_t)ev->pid, (int32_t)ev->tid, (uint16_t)heap, 1, 0 };
	old = block_slot_of((int32_t)ev->pid, heap, ev->addr);
	if (old->used) {
		/* Allocated twice without a free between: the old one ends
		   unseen; say so, keep the new. */
		char tok[96];
		int n = snprintf(tok, sizeof(tok), "0x%" PRIx64 " allocated at %" PRIu64
		    " and at %" PRIu64, ev->addr, old->ts, ev->ts);
		mt_warn_at(input_name, input_line, "allocation of a live block", tok, (size_t)n);
	} else {
		nblocks++;
	}
	*old = b;
}

static void
on_free(const struct mt_event *ev)
{
	unsigned heap = heap_id(ev->heap);
	struct block *b;
	uint64_t lo, hi, a, z;
	size_t i, j;
	int found = 0;

	if (is_range_heap(heap)) {
		lo = ev->addr;
		hi = ev->size ? ev->addr + ev->size : 0;
		for (i = 0; i < nranges; i++) {
			struct range r = ranges[i];
			if (r.pid != ev->pid || r.heap != heap)
				continue;
			if (!ev->size && r.lo == lo)
				hi = r.hi;
			if (r.hi <= lo || r.lo >= hi)
				continue;
			a = r.lo > lo ? r.lo : lo;
			z = r.hi < hi ? r.hi : hi;
			put_life(r.ts, ev->ts, r.pid, r.tid, heap, a, z - a, r.stack, NULL);
			found = 1;
			/* What is left of the range lives on, in one or two pieces. */
			if (r.lo < a && r.hi > z) {
				if (nranges == rangecap) {
					rangecap *= 2;
					ranges = erealloc(ranges, rangecap * sizeof(*ranges));
				}
				memmove(&ranges[i + 2], &ranges[i + 1], (nranges - i - 1) * sizeof(*ranges));
				ranges[i].hi = a;
				ranges[i + 1] = r;
				ranges[i + 1].lo = z;
				nranges++;
				i++;
			} else if (r.lo < a) {
				ranges[i].hi = a;
			} else if (r.hi > z) {
				ranges[i].lo = z;
			} else {
				for (j = i; j + 1 < nranges; j++)
					ranges[j] = ranges[j + 1];
				nranges--;
				i--;
			}
		}
		if (!found)
			free_unknown(ev, heap);
		return;
	}
	if (!(b = block_find((int32_t)ev->pid, heap, ev->addr))) {
		free_unknown(ev, heap);
		return;
	}
	put_life(b->ts, ev->ts, b->pid, b->tid, heap, b->addr, b->size, b->stack, NULL);
	remember_free(b->pid, heap, b->addr, b->ts, ev->ts);
	block_delete(b);
}

/* A process image ended (exit, or exec): its survivors leaked. */
static void
image_end(int64_t pid, const char *fate)
{
	size_t i, j;

	for (i = 0; i < blockcap; i++) {
		if (!blocks[i].used || blocks[i].pid != pid)
			continue;
		put_life(blocks[i].ts, UINT64_MAX, blocks[i].pid, blocks[i].tid,
		    blocks[i].heap, blocks[i].addr, blocks[i].size, blocks[i].stack, fate);
		n_exit += fate[0] == 'e';
		n_live += fate[0] != 'e';
		block_delete(&blocks[i]);
		i--;	/* backward shift may have moved another block here */
	}
	for (i = j = 0; i < nranges; i++) {
		struct range *r = &ranges[i];
		if (r->pid == pid) {
			put_life(r->ts, UINT64_MAX, r->pid, r->tid, r->heap, r->lo,
			    r->hi - r->lo, r->stack, fate);
			n_exit += fate[0] == 'e';
			n_live += fate[0] != 'e';
			continue;
		}
		ranges[j++] = *r;
	}
	nranges = j;
}

/* Pids whose image has begun, to tell an exec's proc line from a first. */
static int64_t *seen;
static size_t nseen, seencap;

static int
seen_before(int64_t pid)
{
	size_t i;

	for (i = 0; i < nseen; i++)
		if (seen[i] == pid)
			return 1;
	if (nseen == seencap) {
		seencap = seencap ? seencap * 2 : 64;
		seen = erealloc(seen, seencap * sizeof(*seen));
	}
	seen[nseen++] = pid;
	return 0;
}

static int
lifetime(const char *path)
{
	struct mt_reader *r;
	struct mt_event ev;

	if (!(r = reader_open(path)))
		return 1;
	input_name = reader_name(r);
	while (reader_next(r, &ev)) {
		input_line = reader_lineno(r);
		switch (ev.type) {
		case MT_ALLOC:
			on_alloc(&ev);
			break;
		case MT_FREE:
			on_free(&ev);
			break;
		case MT_PROC:
			if (seen_before(ev.pid))
				image_end(ev.pid, "exit");
			reader_write(r, &out);
			break;
		case MT_EXIT:
			reader_write(r, &out);
			image_end(ev.pid, "exit");
			break;
		default:
			reader_write(r, &out);
			break;
		}
	}
	return reader_close(r);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int ch, i, status = 0, quiet = 0;
	size_t k;

	mt_setprogname(argv[0]);
	while ((ch = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'q':
			quiet = 1;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;

	out_init(&out, STDOUT_FILENO, 1 << 20);
	if (argc == 0)
		status |= lifetime(NULL);
	for (i = 0; i < argc; i++)
		status |= lifetime(argv[i]);
	/* The survivors of images that had not ended when recording stopped. */
	for (k = 0; k < nseen; k++)
		image_end(seen[k], "end");
	for (k = 0; k < blockcap; k++)
		if (blocks[k].used)
			image_end(blocks[k].pid, "end");
	while (nranges)
		image_end(ranges[0].pid, "end");
	status |= out_finish(&out);
	if (!quiet)
		fprintf(stderr, "%s: %" PRIu64 " lifetimes; %" PRIu64 " survivors leaked at exit, %"
		    PRIu64 " alive at the end; %" PRIu64 " frees of blocks allocated before "
		    "recording; %" PRIu64 " double frees\n", mt_progname, n_lives, n_exit,
		    n_live, n_before, n_double);
	return status | mt_status | (n_double > 0);
}

static void
usage(void)
{
	fprintf(stderr, "usage: %s [-q] [file ...]\n", mt_progname);
	exit(1);
}
