/*
 * pairtab.c: a process's table of live blocks grown and its blocks moved
 * to their homes, for pair.c (pairtab.h says how blocks find their homes).
 */
#include <stdlib.h>

#include "mt.h"
#include "pairtab.h"

/*
 * Twice the slots, the blocks rehashed where they are: each moves to a
 * home of the new mask (its old one or that plus the old size).  Taken
 * in the order of the old slots from just after an empty one, and round
 * the old end to it, every block finds its place among blocks placed
 * already, which no later step empties (see below).  One whose run wraps
 * round the new end into the old slots still to do (never seen, but not
 * excluded) waits aside: nothing else is held twice, so growing needs
 * the new slots only.
 */
void
block_grow(struct btable *bt)
{
	size_t oldcap = bt->cap, cap = oldcap ? oldcap * 2 : 16, e, i, k, h, j;
	size_t naside = 0, asidecap = 0;
	struct block *t, x, *aside = NULL;

	if (!oldcap) {
		bt->blocks = etable_calloc(cap, sizeof(*bt->blocks));
		bt->cap = cap;
		return;
	}
	t = bt->blocks = etable_grow(bt->blocks, oldcap, cap, sizeof(*t));
	bt->cap = cap;
	for (e = 0; t[e].used; e++)
		;
	for (k = 1; k < oldcap; k++) {
		i = (e + k) & (oldcap - 1);
		if (!t[i].used)
			continue;
		x = t[i];
		t[i].used = 0;
		/*
		 * A new home at or before i: a place no later than i, among
		 * blocks placed already.  One past the old end: a place there,
		 * or wrapped round to the start, which before the old slots
		 * round the end are done holds the blocks still to move.
		 */
		h = block_slot(bt, x.heap, x.addr);
		for (j = h; t[j].used && !(i > e && j < e); j = (j + 1) & (cap - 1))
			;
		if (t[j].used) {
			aside = egrow(aside, naside, &asidecap, sizeof(*aside));
			aside[naside++] = x;
		} else {
			t[j] = x;
		}
	}
	for (k = 0; k < naside; k++) {
		for (j = block_slot(bt, aside[k].heap, aside[k].addr); t[j].used;
		    j = (j + 1) & (cap - 1))
			;
		t[j] = aside[k];
	}
	free(aside);
	bt->walked = bt->probes = 0;
	if (bt->scattered)
		block_rehome(bt, 0);
}

/*
 * The blocks moved in place to their homes in the order asked (scattered
 * or not): each still to move is carried to the first slot from its new
 * home that holds none moved, and what was there is carried on.  A probe
 * never stops at a slot moved already, and no moved block leaves its
 * slot: when all have moved, each lies after its home with no empty slot
 * between.  REHOME_AHEAD blocks are carried at once, their homes fetched
 * from memory meanwhile, for one carried alone waits for each of its
 * homes.  Back in address order, probes that
 * walk too far scatter them all instead, from the start.
 */
#define REHOME_AHEAD 32

void
block_rehome(struct btable *bt, int scattered)
{
	struct block *t = bt->blocks, carry[REHOME_AHEAD], x, y;
	size_t home[REHOME_AHEAD], mask = bt->cap - 1, i, j, k, n, first = 0, ncarry = 0;

	bt->scattered = (uint8_t)scattered;
	bt->crowded = 0;
	bt->walked = bt->probes = 0;
	for (i = 0; i < bt->cap; i++)
		if (t[i].used)
			t[i].used = 2;
	for (i = 0; i < bt->cap || ncarry;) {
		for (; ncarry < REHOME_AHEAD && i < bt->cap; i++) {
			if (t[i].used != 2)
				continue;
			k = (first + ncarry++) % REHOME_AHEAD;
			carry[k] = t[i];
			t[i].used = 0;
			__builtin_prefetch(&t[home[k] = block_slot(bt, t[i].heap, t[i].addr)]);
		}
		if (!ncarry)
			break;
		x = carry[first];
		j = home[first];
		first = (first + 1) % REHOME_AHEAD;
		ncarry--;
		for (n = 0; t[j].used == 1; j = (j + 1) & mask)
			n++;
		block_probed(bt, n);
		if (bt->crowded) {
			bt->crowded = 0;
			bt->scattered = 1;
			for (k = 0; k < bt->cap; k++)
				if (t[k].used == 1)
					t[k].used = 2;
			for (k = 0; k < ncarry; k++) {
				n = (first + k) % REHOME_AHEAD;
				home[n] = block_slot(bt, carry[n].heap, carry[n].addr);
			}
			j = block_slot(bt, x.heap, x.addr);
			for (; t[j].used == 1; j = (j + 1) & mask)
				;
			i = 0;
		}
		y = t[j];
		x.used = 1;
		t[j] = x;
		if (y.used == 2) {
			k = (first + ncarry++) % REHOME_AHEAD;
			carry[k] = y;
			__builtin_prefetch(&t[home[k] = block_slot(bt, y.heap, y.addr)]);
		}
	}
}


/*
 * The n blocks at b sorted in place (glibc's qsort allocates a copy of
 * the array, as large as the table it sorts): quicksort on the median of
 * three, heapsort past twice the depth of a balanced split, so that no
 * order of addresses makes it quadratic.
 */
static void
block_swap(struct block *a, struct block *b)
{
	struct block t = *a;

	*a = *b;
	*b = t;
}

static void
sift(struct block *b, size_t i, size_t n, block_cmp_fn *cmp, const void *arg)
{
	size_t c;

	for (; (c = 2 * i + 1) < n; i = c) {
		if (c + 1 < n && cmp(&b[c], &b[c + 1], arg) < 0)
			c++;
		if (cmp(&b[i], &b[c], arg) >= 0)
			return;
		block_swap(&b[i], &b[c]);
	}
}

static void
heap_sort(struct block *b, size_t n, block_cmp_fn *cmp, const void *arg)
{
	size_t i;

	for (i = n / 2; i-- > 0;)
		sift(b, i, n, cmp, arg);
	for (i = n; i-- > 1;) {
		block_swap(&b[0], &b[i]);
		sift(b, 0, i, cmp, arg);
	}
}

void
block_sort(struct block *b, size_t n, block_cmp_fn *cmp, const void *arg, unsigned depth)
{
	struct block p;
	size_t i, j, m;

	while (n > 16) {
		if (!depth--) {
			heap_sort(b, n, cmp, arg);
			return;
		}
		m = n / 2;
		if (cmp(&b[m], &b[0], arg) < 0)
			block_swap(&b[m], &b[0]);
		if (cmp(&b[n - 1], &b[m], arg) < 0) {
			block_swap(&b[n - 1], &b[m]);
			if (cmp(&b[m], &b[0], arg) < 0)
				block_swap(&b[m], &b[0]);
		}
		/* Hoare's partition about the median: [0, j] then (j, n). */
		p = b[m];
		for (i = 0, j = n - 1;; i++, j--) {
			while (cmp(&b[i], &p, arg) < 0)
				i++;
			while (cmp(&p, &b[j], arg) < 0)
				j--;
			if (i >= j)
				break;
			block_swap(&b[i], &b[j]);
		}
		/* The smaller side by recursion, the larger by the loop. */
		if (j + 1 < n - j - 1) {
			block_sort(b, j + 1, cmp, arg, depth);
			b += j + 1;
			n -= j + 1;
		} else {
			block_sort(b + j + 1, n - j - 1, cmp, arg, depth);
			n = j + 1;
		}
	}
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && cmp(&b[j], &b[j - 1], arg) < 0; j--)
			block_swap(&b[j], &b[j - 1]);
}
