/*
 * ktrace.c: kernel allocations through tracefs, as records of the event
 * format.  Everything is set in an instance of our own (events, options,
 * clock, buffer), so removing the instance leaves tracing as it was;
 * tracefs is mounted if it is not, and unmounted after.  The instance's
 * trace_pipe is read as text: pointers printed unhashed (hash-ptr off),
 * call sites as symbol+offset turned back into addresses with
 * /proc/kallsyms, which also names every address a stack holds.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "mt.h"

#define TRACEFS_MAGIC 0x74726163
#define MAX_FRAMES 64

struct ksym {
	uint64_t addr;
	char *name;
	char *module;		/* "[kernel.kallsyms]" or "[name]" */
};

/* The events read raw, and where their fields are (from their format files). */
enum { K_KMALLOC, K_KFREE, K_CACHE_ALLOC, K_CACHE_FREE, K_PAGE_ALLOC, K_PAGE_FREE,
	K_PAGE_FREE_BATCHED, K_STACK, K_NFMT };
enum { F_CALL, F_PTR, F_BYTES, F_NAME, F_PFN, F_ORDER, F_SIZE, F_CALLER, F_NFIELDS };

struct kfmt {
	int id;			/* -1: not known */
	int off[F_NFIELDS];	/* -1: the event has no such field */
	int size[F_NFIELDS];
};

/* An event waiting for the stack the kernel writes after it. */
struct pending {
	struct mt_event ev;
	char heap[128];
	int cpu;
	int done;
	uint64_t ips[MAX_FRAMES];
	size_t nips;
};

struct ktrace {
	char root[256];		/* the tracefs mount */
	char dir[320];		/* our instance */
	int mounted;		/* by us */
	int pipe;
	struct ktrace_opts o;
	struct ksym *syms;	/* text symbols by address */
	size_t nsyms;
	struct u64map by_name;	/* hash of name -> struct ksym * (first of that name) */
	struct u64map stacks;	/* hash of frames -> id */
	struct u64map named;	/* addresses given a sym line */
	struct u64map tasks;	/* tids given a #task line */
	struct u64map cmdlines;	/* tid + 1 -> comm, from the kernel's saved_cmdlines */
	uint64_t next_stack;
	char *buf;
	size_t len, cap;
	struct pending *q;	/* oldest first */
	size_t qhead, qlen, qcap;
	struct pending *stack_for;
	void (*emit)(struct mt_event *, void *);
	void *arg;
	uint64_t last_ts;
	uint64_t lost;
	uint64_t unresolved;	/* call sites kallsyms did not know */
	/* Binary: the per-CPU ring buffer pages, read raw. */
	int raw;
	int ncpus;
	int *cpufd;
	size_t page_size, data_off;
	struct kfmt fmt[K_NFMT];
	struct pending *got;	/* parsed this far, to be put in time order */
	size_t ngot, gotcap;
	long *last_of_cpu;	/* index in got of each CPU's last event */
};

static struct ktrace *active;	/* for the exit-time clean-up */

static uint64_t
hash_str(const char *s, size_t n)
{
	return hash_bytes(s, n) | 1;
}

static int
write_file(const char *dir, const char *file, const char *fmt, ...)
{
	char path[512], val[256];
	va_list ap;
	int fd, n, err = 0;

	va_start(ap, fmt);
	n = vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if ((fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)) < 0)
		return errno;
	if (write(fd, val, (size_t)n) != n)
		err = errno ? errno : EIO;
	close(fd);
	return err;
}

static int
exists(const char *dir, const char *file)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return access(path, F_OK) == 0;
}

static int
by_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void
load_kallsyms(struct ktrace *k, const char *path)
{
	FILE *f = fopen(path, "re");
	char line[512], name[256], mod[200], type;
	unsigned long long addr;
	size_t cap = 0, i;
	void **v;
	int n;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		mod[0] = '\0';
		n = sscanf(line, "%llx %c %255s %199s", &addr, &type, name, mod);
		if (n < 3 || !addr || !strchr("tTwW", type))
			continue;
		if (k->nsyms == cap) {
			cap = cap ? cap * 2 : 65536;
			k->syms = erealloc(k->syms, cap * sizeof(*k->syms));
		}
		k->syms[k->nsyms].addr = addr;
		k->syms[k->nsyms].name = estrdup(name);
		k->syms[k->nsyms].module = estrdup(n == 4 ? mod : "[kernel.kallsyms]");
		k->nsyms++;
	}
	fclose(f);
	if (k->nsyms)
		qsort(k->syms, k->nsyms, sizeof(*k->syms), by_addr);
	for (i = 0; i < k->nsyms; i++) {
		v = u64map_get(&k->by_name, hash_str(k->syms[i].name, strlen(k->syms[i].name)), 1);
		if (!*v)
			*v = &k->syms[i];
	}
}

/* The symbol holding a return address: the call is the byte before. */
static const struct ksym *
sym_at(const struct ktrace *k, uint64_t ip)
{
	size_t lo = 0, hi = k->nsyms, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (k->syms[mid].addr <= ip - 1)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &k->syms[lo - 1] : NULL;
}

/*
 * The tracing machinery's own frames, innermost in a stack the kernel
 * records (trace_event_raw_event_kmalloc...), are not the caller's.
 */
static int
tracing_frame(const struct ksym *s)
{
	return s && !strncmp(s->name, "trace_", 6);
}

/* "func+0x10d/0x140" back to an address; 0 when unknown. */
static uint64_t
call_site(struct ktrace *k, const char *s, size_t n)
{
	const char *plus = memchr(s, '+', n);
	const struct ksym *sym;
	void **v;

	if (!plus)
		return 0;
	v = u64map_get(&k->by_name, hash_str(s, (size_t)(plus - s)), 0);
	if (!v || (sym = *v, strlen(sym->name) != (size_t)(plus - s) ||
	    memcmp(sym->name, s, (size_t)(plus - s))))
		return 0;
	return sym->addr + strtoull(plus + 1, NULL, 16);
}

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
	if ((s = sym_at(k, ip))) {
		ev.s1 = (struct mt_str){ s->name, strlen(s->name) };
		ev.s3 = (struct mt_str){ s->module, strlen(s->module) };
	} else {
		snprintf(off, sizeof(off), "??");
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
	uint64_t h = 1469598103934665603ULL;
	struct mt_event ev;
	void **v;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ ips[i]) * 1099511628211ULL;
	v = u64map_get(&k->stacks, h | 1, 1);
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

static void
release(struct ktrace *k, struct pending *p)
{
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
static void
drain_queue(struct ktrace *k, int all)
{
	while (k->qlen) {
		struct pending *p = &k->q[k->qhead];
		if (!p->done && !all)
			break;
		if (k->stack_for == p)
			k->stack_for = NULL;
		release(k, p);
		k->qhead = (k->qhead + 1) % k->qcap;
		k->qlen--;
	}
}

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
 * or else from /proc, or for a task gone by then from saved_cmdlines
 * ("?" when not there either).
 */
static void
task_seen(struct ktrace *k, int tid, const char *comm, size_t len)
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
	if ((v = field(f, "call_site", &n)) && !(site = call_site(k, v, n)))
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
		if (s && ip && !(s->nips == 0 && tracing_frame(sym_at(k, ip))) && s->nips < MAX_FRAMES)
			s->ips[s->nips++] = ip;
		return;
	}
	if (sscanf(line, "CPU:%ld [LOST %llu EVENTS]", &cpu, (unsigned long long *)&lost) == 2) {
		struct mt_event ev;
		k->stack_for = NULL;
		drain_queue(k, 1);
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
			task_seen(k, (int)tid, comm, (size_t)(p - 1 - comm));
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


/* ---- Raw: the ring buffer's pages, no text made by the kernel ---- */

static const char *const fmt_paths[K_NFMT] = {
	"kmem/kmalloc", "kmem/kfree", "kmem/kmem_cache_alloc", "kmem/kmem_cache_free",
	"kmem/mm_page_alloc", "kmem/mm_page_free", "kmem/mm_page_free_batched",
	"ftrace/kernel_stack",
};
static const char *const field_names[F_NFIELDS] = {
	"call_site", "ptr", "bytes_alloc", "name", "pfn", "order", "size", "caller",
};

/* "field:const void * ptr;	offset:16;	size:8;	signed:0;" lines of a format file. */
static void
read_format(const char *root, const char *path, struct kfmt *f)
{
	char file[600], line[512], *semi, *name;
	int i, off, size;
	FILE *fp;

	f->id = -1;
	for (i = 0; i < F_NFIELDS; i++)
		f->off[i] = f->size[i] = -1;
	snprintf(file, sizeof(file), "%s/events/%s/format", root, path);
	if (!(fp = fopen(file, "re")))
		return;
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "ID: %d", &i) == 1) {
			f->id = i;
			continue;
		}
		if (!strstr(line, "field:") || !(semi = strchr(line, ';')) ||
		    sscanf(semi, "; offset:%d; size:%d;", &off, &size) != 2)
			continue;
		*semi = '\0';
		/* The last word is the name, an array's with its length. */
		name = strrchr(line, ' ');
		name = name ? name + 1 : line;
		name[strcspn(name, "[")] = '\0';
		for (i = 0; i < F_NFIELDS; i++)
			if (!strcmp(name, field_names[i])) {
				f->off[i] = off;
				f->size[i] = size;
			}
	}
	fclose(fp);
}

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

/* root: where events/ is; cpus: where per_cpu/ is (the instance). */
static int
raw_setup(struct ktrace *k, const char *root, const char *cpus)
{
	char path[600], line[256];
	int i, off, size;
	FILE *fp;

	for (i = 0; i < K_NFMT; i++)
		read_format(root, fmt_paths[i], &k->fmt[i]);
	/* Where a page's events begin and how long a page is. */
	snprintf(path, sizeof(path), "%s/events/header_page", root);
	if (!(fp = fopen(path, "re")))
		return -1;
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, " field: char data; offset:%d; size:%d;", &off, &size) == 2) {
			k->data_off = (size_t)off;
			k->page_size = (size_t)(off + size);
		}
	fclose(fp);
	if (!k->page_size || k->data_off != 16 || k->fmt[K_KMALLOC].id < 0 ||
	    k->fmt[K_STACK].id < 0)
		return -1;
	for (k->ncpus = 0;; k->ncpus++) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", cpus, k->ncpus);
		if (access(path, F_OK) < 0)
			break;
	}
	if (!k->ncpus)
		return -1;
	k->cpufd = emalloc((size_t)k->ncpus * sizeof(*k->cpufd));
	k->last_of_cpu = emalloc((size_t)k->ncpus * sizeof(*k->last_of_cpu));
	for (i = 0; i < k->ncpus; i++)
		k->last_of_cpu[i] = -1;
	for (i = 0; i < k->ncpus; i++) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", cpus, i);
		if ((k->cpufd[i] = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0) {
			while (i-- > 0)
				close(k->cpufd[i]);
			free(k->cpufd);
			k->cpufd = NULL;
			return -1;
		}
	}
	k->raw = 1;
	return 0;
}

static struct pending *
got_add(struct ktrace *k)
{
	if (k->ngot == k->gotcap) {
		k->gotcap = k->gotcap ? k->gotcap * 2 : 1024;
		k->got = erealloc(k->got, k->gotcap * sizeof(*k->got));
	}
	memset(&k->got[k->ngot], 0, sizeof(*k->got));
	return &k->got[k->ngot++];
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
			if (v && !(p->nips == 0 && tracing_frame(sym_at(k, v))))
				p->ips[p->nips++] = v;
		}
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
	/* The CPU's event before had no stack coming. */
	if (k->last_of_cpu[cpu] >= 0)
		k->got[k->last_of_cpu[cpu]].done = 1;
	p = got_add(k);
	p->cpu = cpu;
	p->done = !k->o.stacks;
	p->ev.type = alloc ? MT_ALLOC : MT_FREE;
	p->ev.ts = ts > k->o.start_ns ? ts - k->o.start_ns : 0;
	p->ev.pid = 0;
	p->ev.tid = pid;
	p->ev.addr = addr;
	task_seen(k, (int)pid, NULL, 0);
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
static int
raw_read(struct ktrace *k, uint64_t watermark)
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
		release(k, &k->got[i]);
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
	drain_queue(k, 0);
}

/* Events this long ago (ns) are in order: no CPU can still show older. */
#define RAW_SLACK 20000000

int
ktrace_read(struct ktrace *k, void (*emit)(struct mt_event *, void *), void *arg)
{
	char buf[65536];
	ssize_t n;
	int got = 0;
	struct timespec now;

	if (k->raw) {
		k->emit = emit;
		k->arg = arg;
		clock_gettime(CLOCK_MONOTONIC, &now);
		return raw_read(k, (uint64_t)now.tv_sec * 1000000000 + (uint64_t)now.tv_nsec -
		    RAW_SLACK - k->o.start_ns);
	}

	for (;;) {
		n = read(k->pipe, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got = 1;
		ktrace_feed(k, buf, (size_t)n, emit, arg);
	}
	return got;
}

static void
remove_instance(struct ktrace *k)
{
	for (int i = 0; k->cpufd && i < k->ncpus; i++)
		close(k->cpufd[i]);
	free(k->cpufd);
	k->cpufd = NULL;
	k->raw = 0;
	if (k->dir[0]) {
		write_file(k->dir, "tracing_on", "0");
		if (k->pipe >= 0)
			close(k->pipe);
		k->pipe = -1;
		/* Events off first: an instance with events on may refuse to go. */
		write_file(k->dir, "events/enable", "0");
		rmdir(k->dir);
		k->dir[0] = '\0';
	}
	if (k->mounted) {
		/* The kernel lets go of a removed instance's buffers a little later. */
		for (int i = 0; i < 50 && umount(k->root) < 0 && errno == EBUSY; i++)
			usleep(20000);
		k->mounted = 0;
	}
}

static void
cleanup_at_exit(void)
{
	if (active)
		remove_instance(active);
}

/* Instances of recorders that were killed before they could clean up. */
static void
remove_stale(const char *root)
{
	char path[1024];
	struct dirent *d;
	DIR *dir;
	long pid;

	snprintf(path, sizeof(path), "%s/instances", root);
	if (!(dir = opendir(path)))
		return;
	while ((d = readdir(dir)))
		if (sscanf(d->d_name, "mt-record-%ld", &pid) == 1 && pid > 0 &&
		    kill((pid_t)pid, 0) < 0 && errno == ESRCH) {
			snprintf(path, sizeof(path), "%.256s/instances/%.256s", root, d->d_name);
			write_file(path, "events/enable", "0");
			rmdir(path);
		}
	closedir(dir);
}

struct ktrace *
ktrace_open(const struct ktrace_opts *o, char *err, size_t errlen)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	struct ktrace *k = ecalloc(1, sizeof(*k));
	struct statfs sf;
	size_t i;
	int e = 0;

	k->o = *o;
	k->pipe = -1;
	for (i = 0; i < 2; i++)
		if (statfs(roots[i], &sf) == 0 && sf.f_type == TRACEFS_MAGIC)
			break;
	if (i == 2) {
		if (mount("nodev", roots[0], "tracefs", 0, NULL) < 0) {
			snprintf(err, errlen, "cannot mount tracefs on %s: %s%s", roots[0],
			    strerror(errno), errno == EPERM ? " (kernel tracing needs root)" : "");
			free(k);
			return NULL;
		}
		k->mounted = 1;
		i = 0;
	}
	snprintf(k->root, sizeof(k->root), "%s", roots[i]);
	active = k;
	atexit(cleanup_at_exit);
	remove_stale(k->root);
	snprintf(k->dir, sizeof(k->dir), "%s/instances/mt-record-%d", k->root, (int)getpid());
	if (mkdir(k->dir, 0700) < 0) {
		snprintf(err, errlen, "cannot make a tracing instance %s: %s%s", k->dir,
		    strerror(errno), errno == EACCES || errno == EPERM ?
		    " (kernel tracing needs root)" : "");
		k->dir[0] = '\0';
		remove_instance(k);
		free(k);
		active = NULL;
		return NULL;
	}
	/* Real pointers: hashed ones cannot be told apart reliably. */
	if (exists(k->dir, "options/hash-ptr"))
		e = write_file(k->dir, "options/hash-ptr", "0");
	if (!e)
		e = write_file(k->dir, "trace_clock", "mono");
	if (!e)
		e = write_file(k->dir, "buffer_size_kb", "%d", o->buffer_kb ? o->buffer_kb : 16384);
	/* Not what our own writing of the trace allocates. */
	if (!e && exists(k->dir, "set_event_notrace_pid"))
		e = write_file(k->dir, "set_event_notrace_pid", "%d", (int)getpid());
	if (!e && o->stacks) {
		e = write_file(k->dir, "options/stacktrace", "1");
		if (!e)
			e = write_file(k->dir, "options/sym-addr", "1");
	}
	if (!e && (o->events & KT_KMALLOC) &&
	    !(e = write_file(k->dir, "events/kmem/kmalloc/enable", "1")))
		e = write_file(k->dir, "events/kmem/kfree/enable", "1");
	if (!e && (o->events & KT_CACHE) &&
	    !(e = write_file(k->dir, "events/kmem/kmem_cache_alloc/enable", "1")))
		e = write_file(k->dir, "events/kmem/kmem_cache_free/enable", "1");
	if (!e && (o->events & KT_PAGE)) {
		e = write_file(k->dir, "events/kmem/mm_page_alloc/filter", "order >= %d", o->min_order);
		if (!e)
			e = write_file(k->dir, "events/kmem/mm_page_free/filter", "order >= %d",
			    o->min_order);
		if (!e)
			e = write_file(k->dir, "events/kmem/mm_page_alloc/enable", "1");
		if (!e)
			e = write_file(k->dir, "events/kmem/mm_page_free/enable", "1");
		if (!e && o->min_order == 0)
			e = write_file(k->dir, "events/kmem/mm_page_free_batched/enable", "1");
	}
	if (!e) {
		char path[512];
		snprintf(path, sizeof(path), "%s/trace_pipe", k->dir);
		if ((k->pipe = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
			e = errno;
	}
	if (e) {
		snprintf(err, errlen, "cannot set up tracing in %s: %s", k->dir, strerror(e));
		remove_instance(k);
		active = NULL;
		free(k);
		return NULL;
	}
	load_kallsyms(k, "/proc/kallsyms");
	/* The pages themselves where their layout is as we know it; else text. */
	if (!getenv("MT_KTRACE_TEXT"))
		raw_setup(k, k->root, k->dir);
	return k;
}

struct ktrace *
ktrace_raw_files(const struct ktrace_opts *o, const char *kallsyms, const char *root)
{
	struct ktrace *k = ecalloc(1, sizeof(*k));

	k->o = *o;
	k->pipe = -1;
	load_kallsyms(k, kallsyms);
	if (raw_setup(k, root, root) < 0) {
		ktrace_free(k);
		return NULL;
	}
	return k;
}

struct ktrace *
ktrace_text(const struct ktrace_opts *o, const char *kallsyms)
{
	struct ktrace *k = ecalloc(1, sizeof(*k));

	k->o = *o;
	k->pipe = -1;
	load_kallsyms(k, kallsyms);
	return k;
}

int
ktrace_fd(const struct ktrace *k)
{
	return k->pipe;
}

uint64_t
ktrace_lost(const struct ktrace *k)
{
	return k->lost;
}

uint64_t
ktrace_unresolved(const struct ktrace *k)
{
	return k->unresolved;
}

/* Tracing off, what the buffer still holds read, the instance removed. */
void
ktrace_close(struct ktrace *k, void (*emit)(struct mt_event *, void *), void *arg)
{
	if (k->dir[0])
		write_file(k->dir, "tracing_on", "0");
	k->emit = emit;
	k->arg = arg;
	if (k->raw)
		raw_read(k, UINT64_MAX);
	else if (k->pipe >= 0)
		ktrace_read(k, emit, arg);
	drain_queue(k, 1);
	remove_instance(k);
	active = NULL;
}

void
ktrace_free(struct ktrace *k)
{
	size_t i;

	for (i = 0; i < k->nsyms; i++) {
		free(k->syms[i].name);
		free(k->syms[i].module);
	}
	free(k->syms);
	u64map_free(&k->by_name, NULL);
	u64map_free(&k->stacks, NULL);
	u64map_free(&k->named, NULL);
	u64map_free(&k->tasks, NULL);
	u64map_free(&k->cmdlines, free);
	free(k->buf);
	free(k->q);
	free(k->got);
	free(k->last_of_cpu);
	free(k);
}
