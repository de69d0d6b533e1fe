/*
 * ring: the per-CPU ring-buffer pages read raw, no text made by the
 * kernel, their events put in time order.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mt.h"
#include "state.h"

/* A field of an event's data, little-endian as the machine is; 0 if absent. */
static uint64_t
raw_field(const struct kfmt *f, int which, const uint8_t *d, size_t len, int *ok)
{
	uint64_t v = 0;
	int off = f->off[which], size = f->size[which];

	if (off < 0 || size <= 0 || size > 8 || (size_t)(off + size) > len) {
		*ok = 0;
		return 0;
	}
	memcpy(&v, d + off, (size_t)size);
	return v;
}

static struct pending *
got_add(struct ktrace *k)
{
	k->got = egrow(k->got, k->ngot, &k->gotcap, sizeof(*k->got));
	memset(&k->got[k->ngot], 0, sizeof(*k->got));
	return &k->got[k->ngot++];
}

/*
 * A task made or renamed (exec) while we record: its comm kept, for a
 * task gone before its events are read, whose /proc entry is gone too
 * and whose saved_cmdlines slot another task may have taken.
 */
static void
raw_task(struct ktrace *k, int e, const uint8_t *d, size_t len)
{
	const struct kfmt *f = &k->fmt[e];
	int field = e == K_NEWTASK ? F_COMM : F_NEWCOMM, ok = 1, off, size;
	int32_t tid = (int32_t)raw_field(f, F_PID, d, len, &ok);
	void **v;

	off = f->off[field];
	size = f->size[field];
	if (!ok || tid <= 0 || off < 0 || size <= 0 || (size_t)(off + size) > len)
		return;
	v = u64map_get(&k->comms, (uint64_t)tid + 1, 1);
	free(*v);
	*v = estrndup((const char *)d + off, strnlen((const char *)d + off, (size_t)size));
}

/* One event's data: an allocation, a free, or the stack of the one before. */
static void
raw_event(struct ktrace *k, int cpu, uint64_t ts, const uint8_t *d, size_t len)
{
	const struct kfmt *f;
	struct pending *p;
	uint16_t type;
	int32_t pid;
	int e, ok = 1, alloc;
	uint64_t addr, v, n = 0, i;

	if (len < 8)
		return;
	memcpy(&type, d, 2);
	memcpy(&pid, d + 4, 4);
	for (e = 0; e < K_NFMT && k->fmt[e].id != type; e++)
		;
	if (e == K_NFMT)
		return;
	f = &k->fmt[e];
	if (e == K_STACK) {
		/* The stack of the CPU's last event, written right after it. */
		if (k->last_of_cpu[cpu] < 0 || !k->o.stacks)
			return;
		p = &k->got[k->last_of_cpu[cpu]];
		k->last_of_cpu[cpu] = -1;
		p->done = 1;
		n = raw_field(f, F_SIZE, d, len, &ok);
		if (!ok || f->off[F_CALLER] < 0)
			return;
		for (i = 0; i < n && p->nips < MAX_FRAMES; i++) {
			size_t at = (size_t)f->off[F_CALLER] + i * 8;
			if (at + 8 > len)
				break;
			memcpy(&v, d + at, 8);
			if (v && !(p->nips == 0 && ksym_tracing(ksym_at(k, v))))
				p->ips[p->nips++] = v;
		}
		return;
	}
	/* The CPU's event before had no stack coming. */
	if (k->last_of_cpu[cpu] >= 0)
		k->got[k->last_of_cpu[cpu]].done = 1;
	k->last_of_cpu[cpu] = -1;
	if (e == K_NEWTASK || e == K_RENAME) {
		raw_task(k, e, d, len);
		return;
	}
	alloc = e == K_KMALLOC || e == K_CACHE_ALLOC || e == K_PAGE_ALLOC;
	if (e == K_PAGE_ALLOC || e == K_PAGE_FREE || e == K_PAGE_FREE_BATCHED) {
		addr = raw_field(f, F_PFN, d, len, &ok) << 12;
		n = e == K_PAGE_FREE_BATCHED ? 0 : raw_field(f, F_ORDER, d, len, &ok);
		if (!ok || !addr || n > 20 || (int)n < k->o.min_order)
			return;
	} else {
		addr = raw_field(f, F_PTR, d, len, &ok);
		if (!ok || addr <= 16)
			return;
	}
	p = got_add(k);
	p->cpu = cpu;
	p->done = !k->o.stacks;
	p->ev.type = alloc ? MT_ALLOC : MT_FREE;
	p->ev.ts = ts > k->o.start_ns ? ts - k->o.start_ns : 0;
	p->ev.pid = 0;
	p->ev.tid = pid;
	p->ev.addr = addr;
	if (e == K_PAGE_ALLOC || e == K_PAGE_FREE || e == K_PAGE_FREE_BATCHED) {
		snprintf(p->heap, sizeof(p->heap), "page");
		p->ev.size = alloc ? 4096ULL << n : 0;
	} else {
		if (e == K_CACHE_ALLOC || e == K_CACHE_FREE) {
			uint32_t loc;
			size_t o, l;
			ok = 1;
			loc = (uint32_t)raw_field(f, F_NAME, d, len, &ok);
			o = loc & 0xffff;
			l = loc >> 16;
			if (ok && o + l <= len && l > 0)
				snprintf(p->heap, sizeof(p->heap), "cache:%.*s", (int)strnlen(
				    (const char *)d + o, l < 100 ? l : 100), (const char *)d + o);
			else
				snprintf(p->heap, sizeof(p->heap), "cache:?");
		} else {
			snprintf(p->heap, sizeof(p->heap), "kmalloc");
		}
		ok = 1;
		p->ev.size = alloc ? raw_field(f, F_BYTES, d, len, &ok) : 0;
		v = raw_field(f, F_CALL, d, len, &ok);
		if (alloc && v && !k->o.stacks) {
			p->ips[0] = v;
			p->nips = 1;
		}
	}
	k->last_of_cpu[cpu] = (long)(k->ngot - 1);
}

static void
raw_lost(struct ktrace *k, uint64_t n)
{
	struct mt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = MT_LOST;
	ev.ts = k->last_ts;
	ev.size = n;
	ev.s1 = (struct mt_str){ "overrun", 7 };
	k->lost += n;
	k->emit(&ev, k->arg);
}

#define RB_MISSED_EVENTS (1UL << 31)
#define RB_MISSED_STORED (1UL << 30)

/* A page of a CPU's buffer: the time of its first event, then events. */
static void
raw_page(struct ktrace *k, int cpu, const uint8_t *pg, size_t n)
{
	uint64_t ts, commit, missed = 0;
	uint32_t h, a, type_len, delta;
	size_t len, at, dlen;

	if (n < k->data_off)
		return;
	memcpy(&ts, pg, 8);
	memcpy(&commit, pg + 8, 8);
	len = (size_t)(commit & ~(RB_MISSED_EVENTS | RB_MISSED_STORED) & 0xffffffffUL);
	if (commit & RB_MISSED_EVENTS) {
		missed = 1;
		if ((commit & RB_MISSED_STORED) && k->data_off + len + 8 <= n)
			memcpy(&missed, pg + k->data_off + len, 8);
		raw_lost(k, missed);
	}
	if (k->data_off + len > n)
		len = n - k->data_off;
	pg += k->data_off;
	for (at = 0; at + 4 <= len;) {
		memcpy(&h, pg + at, 4);
		type_len = h & 31;
		delta = h >> 5;
		a = 0;
		if (at + 8 <= len)
			memcpy(&a, pg + at + 4, 4);
		switch (type_len) {
		case 29:	/* padding: the rest of the page, or a discarded event */
			if (!delta)
				return;
			at += 4 + (size_t)a;
			continue;
		case 30:	/* the time goes on by more than 27 bits hold */
			ts += delta + ((uint64_t)a << 27);
			at += 8;
			continue;
		case 31:	/* an absolute time */
			ts = (ts & ~((1ULL << 59) - 1)) | (delta + ((uint64_t)a << 27));
			at += 8;
			continue;
		case 0:
			if (a < 4 || at + 4 + a > len)
				return;
			ts += delta;
			dlen = a - 4;
			raw_event(k, cpu, ts, pg + at + 8, dlen);
			at += 4 + (size_t)a;
			continue;
		default:
			dlen = (size_t)type_len * 4;
			if (at + 4 + dlen > len)
				return;
			ts += delta;
			raw_event(k, cpu, ts, pg + at + 4, dlen);
			at += 4 + dlen;
			continue;
		}
	}
}

static int
by_time(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->ev.ts != y->ev.ts)
		return x->ev.ts < y->ev.ts ? -1 : 1;
	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

/*
 * Every CPU's buffer read to its end, the events put in time order and
 * those older than the watermark given out: a CPU read earlier in the
 * round may still show an older event in the next.
 */
int
kt_raw_read(struct ktrace *k, uint64_t watermark)
{
	uint8_t *pg = emalloc(k->page_size);
	size_t i, j;
	ssize_t n;
	int cpu, got = 0;

	for (cpu = 0; cpu < k->ncpus; cpu++) {
		for (;;) {
			n = read(k->cpufd[cpu], pg, k->page_size);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			got = 1;
			raw_page(k, cpu, pg, (size_t)n);
		}
	}
	free(pg);
	if (k->ngot)
		qsort(k->got, k->ngot, sizeof(*k->got), by_time);
	/* A CPU's last event may have its stack in the page not read yet. */
	for (i = 0; i < k->ngot && k->got[i].ev.ts < watermark &&
	    (k->got[i].done || watermark == UINT64_MAX ||
	    k->got[i].ev.ts + 1000000000 < watermark); i++)
		kt_release(k, &k->got[i]);
	for (cpu = 0; cpu < k->ncpus; cpu++)
		k->last_of_cpu[cpu] = -1;
	for (j = 0; i < k->ngot; i++, j++) {
		k->got[j] = k->got[i];
		if (!k->got[j].done)
			k->last_of_cpu[k->got[j].cpu] = (long)j;
	}
	k->ngot = j;
	return got;
}

struct ktrace *
ktrace_raw_files(const struct ktrace_opts *o, const char *kallsyms, const char *root)
{
	struct ktrace *k = ecalloc(1, sizeof(*k));

	k->o = *o;
	k->pipe = -1;
	ksym_load(k, kallsyms);
	if (kt_raw_setup(k, root, root) < 0) {
		ktrace_free(k);
		return NULL;
	}
	return k;
}
