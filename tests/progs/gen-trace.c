/*
 * Test tool: a synthetic .mtr of N alloc and free events on stdout, as a
 * recording of tests/progs/pairs would look: one process, a few threads,
 * a few hundred stacks, a live set of a fixed number of blocks.  The same
 * seed gives the same bytes.  Lets the benchmarks and tests feed the
 * analysers a billion events without running anything that long.
 *
 *	gen-trace [-s seed] [-l live] [-k stacks] [-t threads] N >app.mtr
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mt.h"

#define PID		4242
#define MAXDEPTH	16
#define HEAP_BASE	0x55d0a0000000ull
#define MMAP_BASE	0x7f3c00000000ull
#define TEXT_BASE	0x55d09e400000ull
#define SLOT_BYTES	(1u << 20)	/* each slot's own range: no two live blocks overlap */

struct slot {
	uint64_t addr, size;
	uint32_t stack;
	uint8_t heap;		/* 0 malloc, 1 mmap */
	uint8_t live;
};

static uint64_t rng;

static uint64_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void
usage(void)
{
	mt_errx(1, "usage: gen-trace [-s seed] [-l live] [-k stacks] [-t threads] N");
}

/* Stack k: a path down a tree of call sites, so that stacks share callers. */
static void
write_stack(struct trace_writer *w, uint32_t k, uint32_t id)
{
	uint64_t ips[MAXDEPTH + 2];
	struct mt_event ev;
	unsigned depth = 2 + k % MAXDEPTH, d;
	uint32_t node = k;

	for (d = 0; d < depth; d++) {
		ips[d] = TEXT_BASE + 0x1000 + (uint64_t)(node % 97) * 0x140 + d * 0x9000 + 0x2b;
		node /= 3;
	}
	ips[depth - 1] = TEXT_BASE + 0x800;	/* main */
	event_clear(&ev);
	ev.type = MT_STACK;
	ev.stack = id;
	ev.nips = depth;
	ev.ips = ips;
	trace_write(w, &ev);
}

static uint64_t
block_size(uint8_t *heap)
{
	uint64_t r = rnd();

	*heap = 0;
	if (r % 100000 == 0) {
		*heap = 1;
		return (1 + r / 100000 % 16) << 16;
	}
	if (r % 1000 == 0)
		return 4096 + (r >> 20) % (256 << 10);
	return 1 + (r >> 16) % 512;
}

int
main(int argc, char *argv[])
{
	struct trace_writer *w;
	struct mt_heap_rec h;
	struct mt_event ev;
	struct slot *slots, *s;
	uint32_t *ids, nids = 0;
	uint64_t n, i = 0, ts = 1000, seed = 1;
	unsigned live = 4096, nstacks = 300, nthreads = 4;
	int ch;

	mt_setprogname(argv[0]);
	while ((ch = getopt(argc, argv, "s:l:k:t:")) != -1) {
		switch (ch) {
		case 's':
			seed = estrtonum(optarg, 0, INT64_MAX, "seed");
			break;
		case 'l':
			live = (unsigned)estrtonum(optarg, 1, 1 << 24, "live");
			break;
		case 'k':
			nstacks = (unsigned)estrtonum(optarg, 1, 1 << 24, "stacks");
			break;
		case 't':
			nthreads = (unsigned)estrtonum(optarg, 1, 1024, "threads");
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 1)
		usage();
	n = (uint64_t)estrtonum(argv[0], 0, INT64_MAX, "N");
	rng = seed * 0x9e3779b97f4a7c15ull + 1;
	slots = ecalloc(live, sizeof(*slots));
	ids = ecalloc(nstacks, sizeof(*ids));

	w = trace_writer_new(STDOUT_FILENO, 1);
	event_clear(&ev);
	ev.type = MT_COMMENT;
	ev.s1.s = "#mt-events\t1\tstart=1795000000000000000\thost=gen\tresolution=1";
	ev.s1.len = strlen(ev.s1.s);
	trace_write(w, &ev);
	event_clear(&ev);
	ev.type = MT_PROC;
	ev.pid = PID;
	ev.ppid = 1;
	ev.ts = ts;
	ev.s1 = (struct mt_str){ "/usr/bin/gen-trace", 18 };
	ev.s2 = (struct mt_str){ "gen-trace", 9 };
	trace_write(w, &ev);

	memset(&h, 0, sizeof(h));
	h.pid = PID;
	/* Two events a step once the live set is full: a free, an alloc. */
	while (i < n) {
		s = &slots[rnd() % live];
		h.tid = PID + (int64_t)(rnd() % nthreads);
		if (s->live) {
			ts += 20 + rnd() % 64;
			h.ts = ts;
			h.addr = s->addr;
			h.stack = 0;
			h.flags = EV_STACK_NONE;
			trace_write_heap(w, MT_FREE, s->heap, &h);
			s->live = 0;
			if (++i == n)
				break;
		}
		s->size = block_size(&s->heap);
		s->stack = (uint32_t)(rnd() % nstacks);
		s->addr = (s->heap ? MMAP_BASE : HEAP_BASE + (rnd() % 4) * 16) +
		    (uint64_t)(s - slots) * SLOT_BYTES;
		/* Ids in the order of first use, each defined before it is used. */
		if (!ids[s->stack]) {
			ids[s->stack] = ++nids;
			write_stack(w, s->stack, nids);
		}
		ts += 20 + rnd() % 64;
		h.ts = ts;
		h.addr = s->addr;
		h.size = s->size;
		h.stack = ids[s->stack];
		h.flags = 0;
		trace_write_heap(w, MT_ALLOC, s->heap, &h);
		s->live = 1;
		i++;
	}
	event_clear(&ev);
	ev.type = MT_EXIT;
	ev.pid = PID;
	ev.ts = ts + 1000;
	ev.status = 0;
	trace_write(w, &ev);
	free(slots);
	free(ids);
	return trace_writer_free(w) || mt_status;
}
