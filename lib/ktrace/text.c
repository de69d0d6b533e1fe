/*
 * text: the instance's trace_pipe read as text, a line an event or a
 * frame of the stack after it.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mt.h"
#include "state.h"

static struct pending *
queue_add(struct ktrace *k)
{
	struct pending *p;
	size_t i;

	if (k->qlen == k->qcap) {
		struct pending *n = emalloc((k->qcap ? k->qcap * 2 : 64) * sizeof(*n));
		for (i = 0; i < k->qlen; i++)
			n[i] = k->q[(k->qhead + i) % k->qcap];
		free(k->q);
		k->q = n;
		k->qhead = 0;
		k->qcap = k->qcap ? k->qcap * 2 : 64;
		k->stack_for = NULL;
	}
	p = &k->q[(k->qhead + k->qlen++) % k->qcap];
	memset(p, 0, sizeof(*p));
	return p;
}

/* The value of "key=" among the fields, and its length. */
static const char *
field(const char *f, const char *key, size_t *n)
{
	size_t kl = strlen(key);
	const char *p;

	for (p = f; (p = strstr(p, key)); p += kl)
		if ((p == f || p[-1] == ' ') && p[kl] == '=') {
			p += kl + 1;
			*n = strcspn(p, " ");
			return p;
		}
	return NULL;
}

static uint64_t
field_num(const char *f, const char *key, int base, int *ok)
{
	size_t n;
	const char *p = field(f, key, &n);

	if (!p) {
		*ok = 0;
		return 0;
	}
	return strtoull(p, NULL, base);
}

static void
parse_event(struct ktrace *k, int tid, int cpu, uint64_t ts, const char *name, size_t nlen,
    const char *f)
{
	struct pending *p;
	const char *v;
	size_t n;
	int ok = 1, alloc, i;
	uint64_t site = 0, addr, size = 0, order;
	struct mt_event *ev;

	/* A later event of the CPU: the one before had no stack coming. */
	for (i = 0; i < (int)k->qlen; i++) {
		struct pending *q = &k->q[(k->qhead + (size_t)i) % k->qcap];
		if (q->cpu == cpu)
			q->done = 1;
	}
	p = queue_add(k);
	ev = &p->ev;
	p->cpu = cpu;
	p->done = !k->o.stacks;
	ev->ts = ts;
	ev->pid = 0;
	ev->tid = tid;
#define IS(s) (nlen == strlen(s) && !memcmp(name, s, nlen))
	if (IS("kmalloc") || IS("kfree")) {
		alloc = IS("kmalloc");
		snprintf(p->heap, sizeof(p->heap), "kmalloc");
	} else if (IS("kmem_cache_alloc") || IS("kmem_cache_free")) {
		alloc = IS("kmem_cache_alloc");
		v = field(f, "name", &n);
		snprintf(p->heap, sizeof(p->heap), "cache:%.*s", v ? (int)(n < 100 ? n : 100) : 1,
		    v ? v : "?");
	} else if (IS("mm_page_alloc") || IS("mm_page_free") || IS("mm_page_free_batched")) {
		alloc = IS("mm_page_alloc");
		snprintf(p->heap, sizeof(p->heap), "page");
		addr = field_num(f, "pfn", 16, &ok) << 12;
		order = IS("mm_page_free_batched") ? 0 : field_num(f, "order", 10, &ok);
		if (!ok || !addr || order > 20) {
			k->qlen--;	/* a failed allocation */
			return;
		}
		ev->type = alloc ? MT_ALLOC : MT_FREE;
		ev->addr = addr;
		ev->size = alloc ? 4096ULL << order : 0;
		return;
	} else {
		k->qlen--;
		return;
	}
#undef IS
	addr = field_num(f, "ptr", 16, &ok);
	if (alloc)
		size = field_num(f, "bytes_alloc", 10, &ok);
	if ((v = field(f, "call_site", &n)) && !(site = ksym_call_site(k, v, n)))
		k->unresolved++;
	/* NULL and ZERO_SIZE_PTR: nothing was allocated or freed. */
	if (!ok || addr <= 16) {
		k->qlen--;
		return;
	}
	ev->type = alloc ? MT_ALLOC : MT_FREE;
	ev->addr = addr;
	ev->size = size;
	if (site && alloc && !k->o.stacks) {
		p->ips[0] = site;
		p->nips = 1;
	}
}

/* "comm-123    [001] d..1.  8127.261180: kmalloc: call_site=..." */
static void
parse_line(struct ktrace *k, char *line)
{
	char *p, *q, *b;
	long tid, cpu;
	unsigned long long sec, usec;
	uint64_t ts, lost;

	if (line[0] == ' ' && (p = strstr(line, "=> ")) && strspn(line, " ") == (size_t)(p - line)) {
		struct pending *s = k->stack_for;
		const char *lt = strrchr(p, '<');
		uint64_t ip = lt ? strtoull(lt + 1, NULL, 16) : 0;
		/* The tracing machinery's own frame is not the caller's. */
		if (s && ip && !(s->nips == 0 && ksym_tracing(ksym_at(k, ip))) && s->nips < MAX_FRAMES)
			s->ips[s->nips++] = ip;
		return;
	}
	if (sscanf(line, "CPU:%ld [LOST %llu EVENTS]", &cpu, (unsigned long long *)&lost) == 2) {
		struct mt_event ev;
		k->stack_for = NULL;
		kt_drain_queue(k, 1);
		memset(&ev, 0, sizeof(ev));
		ev.type = MT_LOST;
		ev.ts = k->last_ts;
		ev.pid = 0;
		ev.size = lost;
		ev.s1 = (struct mt_str){ "overrun", 7 };
		k->lost += lost;
		k->emit(&ev, k->arg);
		return;
	}
	/* The stack before this line is whole. */
	if (k->stack_for)
		k->stack_for->done = 1;
	k->stack_for = NULL;
	/* The CPU in brackets, the task's pid before it. */
	for (b = line; (b = strchr(b, '[')); b++) {
		if (!isdigit((unsigned char)b[1]))
			continue;
		cpu = strtol(b + 1, &q, 10);
		if (*q == ']' && q[1] == ' ')
			break;
	}
	if (!b)
		return;
	for (p = b; p > line && p[-1] == ' '; p--)
		;
	while (p > line && isdigit((unsigned char)p[-1]))
		p--;
	if (p == line || p[-1] != '-')
		return;
	tid = strtol(p, NULL, 10);
	{
		const char *comm = line + strspn(line, " ");
		if (comm < p - 1)
			kt_task_seen(k, (int)tid, comm, (size_t)(p - 1 - comm));
	}
	p = q + 2;
	p += strcspn(p, " ");	/* the flags */
	if (sscanf(p, " %llu.%llu:", &sec, &usec) != 2 || !(p = strchr(p, ':')))
		return;
	ts = (uint64_t)sec * 1000000000 + (uint64_t)usec * 1000;
	ts = ts > k->o.start_ns ? ts - k->o.start_ns : 0;
	p += 2;
	if (!strncmp(p, "<stack trace>", 13)) {
		size_t i;
		for (i = k->qlen; i-- > 0;) {
			struct pending *e = &k->q[(k->qhead + i) % k->qcap];
			if (e->cpu == cpu && !e->done) {
				k->stack_for = e;
				break;
			}
		}
		return;
	}
	q = strchr(p, ':');
	if (!q || q[1] != ' ')
		return;
	parse_event(k, (int)tid, (int)cpu, ts, p, (size_t)(q - p), q + 2);
}

/* Whole lines of data parsed, the rest kept for the next. */
void
ktrace_feed(struct ktrace *k, const char *data, size_t n,
    void (*emit)(struct mt_event *, void *), void *arg)
{
	char *nl, *s;

	k->emit = emit;
	k->arg = arg;
	if (k->cap - k->len < n + 1) {
		k->cap = (k->len + n + 1) * 2;
		k->buf = erealloc(k->buf, k->cap);
	}
	memcpy(k->buf + k->len, data, n);
	k->len += n;
	k->buf[k->len] = '\0';
	for (s = k->buf; (nl = memchr(s, '\n', k->len - (size_t)(s - k->buf))); s = nl + 1) {
		*nl = '\0';
		parse_line(k, s);
	}
	k->len -= (size_t)(s - k->buf);
	memmove(k->buf, s, k->len);
	kt_drain_queue(k, 0);
}

struct ktrace *
ktrace_text(const struct ktrace_opts *o, const char *kallsyms)
{
	struct ktrace *k = ecalloc(1, sizeof(*k));

	k->o = *o;
	k->pipe = -1;
	ksym_load(k, kallsyms);
	return k;
}
