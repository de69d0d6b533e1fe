/*
 * emit: the records that go out: events once their stack is known, the
 * stack and sym lines their stacks need, and a #task line a thread.
 */
#include <fcntl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mt.h"
#include "state.h"

static void
name_address(struct ktrace *k, uint64_t ip)
{
	struct mt_event ev;
	const struct ksym *s;
	void **v = u64map_get(&k->named, ip, 1);
	char off[64];

	if (*v)
		return;
	*v = (void *)1;
	memset(&ev, 0, sizeof(ev));
	ev.type = MT_SYM;
	ev.addr = ip;
	if ((s = ksym_at(k, ip))) {
		ev.s1 = (struct mt_str){ s->name, strlen(s->name) };
		ev.s3 = (struct mt_str){ s->module, strlen(s->module) };
	} else {
		snprintf(off, sizeof(off), "0x%llx", (unsigned long long)ip);
		ev.s1 = (struct mt_str){ off, strlen(off) };
		ev.s3 = (struct mt_str){ "[kernel.kallsyms]", 17 };
	}
	ev.s2 = (struct mt_str){ "-", 1 };
	k->emit(&ev, k->arg);
}

/* The stack's id, its sym and stack lines written the first time. */
static uint64_t
stack_of(struct ktrace *k, const uint64_t *ips, size_t n)
{
	void **v = u64map_stack(&k->stacks, ips, n);
	struct mt_event ev;
	size_t i;

	if (*v)
		return (uint64_t)(uintptr_t)*v;
	for (i = 0; i < n; i++)
		name_address(k, ips[i]);
	*v = (void *)(uintptr_t)++k->next_stack;
	memset(&ev, 0, sizeof(ev));
	ev.type = MT_STACK;
	ev.stack = k->next_stack;
	ev.nips = n;
	ev.ips = (uint64_t *)(uintptr_t)ips;
	k->emit(&ev, k->arg);
	return k->next_stack;
}

void
kt_release(struct ktrace *k, struct pending *p)
{
	kt_task_seen(k, (int)p->ev.tid, NULL, 0);
	if (p->nips)
		p->ev.stack = stack_of(k, p->ips, p->nips);
	else
		p->ev.flags |= EV_STACK_NONE;
	p->ev.heap = (struct mt_str){ p->heap, strlen(p->heap) };
	if (p->ev.ts < k->last_ts)
		p->ev.ts = k->last_ts;
	k->last_ts = p->ev.ts;
	k->emit(&p->ev, k->arg);
}

/* Events go out in the order read, once their stack is known. */
void
kt_drain_queue(struct ktrace *k, int all)
{
	while (k->qlen) {
		struct pending *p = &k->q[k->qhead];
		if (!p->done && !all)
			break;
		if (k->stack_for == p)
			k->stack_for = NULL;
		kt_release(k, p);
		k->qhead = (k->qhead + 1) % k->qcap;
		k->qlen--;
	}
}

/*
 * A task gone before we read its events: its comm as the kernel saved it
 * when it traced it (tracefs' saved_cmdlines), read again for each task
 * not yet in what we read (a task is looked up once: at most a read a
 * task gone); NULL when not there.
 */
static const char *
saved_comm(struct ktrace *k, int tid)
{
	void **v = u64map_get(&k->cmdlines, (uint64_t)tid + 1, 0);
	char path[300], line[128];
	FILE *fp;

	if (v && *v)
		return *v;
	snprintf(path, sizeof(path), "%s/saved_cmdlines", k->root);
	if (!(fp = fopen(path, "re")))
		return NULL;
	while (fgets(line, sizeof(line), fp)) {
		char *sp = strchr(line, ' ');
		long t;

		if (!sp)
			continue;
		t = strtol(line, NULL, 10);
		if (t <= 0 || t > INT32_MAX)
			continue;
		sp[1 + strcspn(sp + 1, "\n")] = '\0';
		v = u64map_get(&k->cmdlines, (uint64_t)t + 1, 1);
		free(*v);
		*v = estrdup(sp + 1);
	}
	fclose(fp);
	v = u64map_get(&k->cmdlines, (uint64_t)tid + 1, 0);
	return v ? *v : NULL;
}

/*
 * The task of a kernel event, the first time its tid is seen: a comment
 * "#task tid comm" (mt-events(5)), so that an allocation can be tied to
 * the process whose fault or call made it.  The comm from the text line,
 * or else as task_newtask or task_rename last gave it, or from /proc, or
 * for a task gone by then from saved_cmdlines ("?" when not there either).
 */
void
kt_task_seen(struct ktrace *k, int tid, const char *comm, size_t len)
{
	char path[64], buf[64], line[128];
	struct mt_event ev;
	void **v;
	ssize_t n;
	size_t i;
	int fd;

	if (tid < 0 || (v = u64map_get(&k->tasks, (uint64_t)tid + 1, 1), *v))
		return;
	*v = (void *)1;
	if (!comm && (v = u64map_get(&k->comms, (uint64_t)tid + 1, 0)) && *v) {
		comm = *v;
		len = strlen(comm);
	}
	if (!comm) {
		snprintf(path, sizeof(path), "/proc/%d/comm", tid);
		n = -1;
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
			n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
		}
		if (tid == 0)
			n = snprintf(buf, sizeof(buf), "swapper");
		if (n <= 0 && (comm = saved_comm(k, tid)))
			n = snprintf(buf, sizeof(buf), "%s", comm);
		if (n <= 0)
			n = snprintf(buf, sizeof(buf), "?");
		buf[n] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		comm = buf;
		len = strlen(buf);
	}
	if (len > 32)
		len = 32;
	n = snprintf(line, sizeof(line), "#task\t%d\t%.*s", tid, (int)len, comm);
	for (i = 6; i < (size_t)n; i++)
		if ((unsigned char)line[i] < ' ' && line[i] != '\t')
			line[i] = '?';
	memset(&ev, 0, sizeof(ev));
	ev.type = MT_COMMENT;
	ev.s1 = (struct mt_str){ line, (size_t)n };
	k->emit(&ev, k->arg);
}
