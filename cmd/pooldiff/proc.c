/*
 * mt-pooldiff --snapshot: one snapshot of the kernel's pools (slabinfo,
 * vmallocinfo, allocinfo) or of processes' mappings (smaps), with the
 * memory figures of meminfo, written as a log's lines.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <limits.h>
#include <time.h>
#include <unistd.h>

#include "pooldiff.h"

struct source_row {
	char *tag, *type;
	int64_t c[NCOUNTERS];
};
static struct source_row *srows;
static size_t nsrows, srowcap, srow_first;	/* rows of the source being read start here */

static void
srow_add(const char *tag, size_t tlen, const char *type, int64_t diff, int64_t bytes)
{
	size_t i;

	/* Summed by tag and type within one source. */
	for (i = srow_first; i < nsrows; i++)
		if (!strcmp(srows[i].type, type) && strlen(srows[i].tag) == tlen &&
		    !memcmp(srows[i].tag, tag, tlen)) {
			unsigned hit = 0;

			srows[i].c[C_DIFF] = sat_add(srows[i].c[C_DIFF], diff, &hit);
			srows[i].c[C_BYTES] = sat_add(srows[i].c[C_BYTES], bytes, &hit);
			if (hit) {
				mt_warnx("%s: its sum is out of range", mt_shown(tag, tlen));
				trouble = 1;
			}
			return;
		}
	srows = egrow(srows, nsrows, &srowcap, sizeof(*srows));
	srows[nsrows] = (struct source_row){ estrndup(tag, tlen), estrdup(type),
		{ NONE, NONE, diff, bytes } };
	nsrows++;
}

static int
srow_cmp(const void *a, const void *b)
{
	const struct source_row *x = a, *y = b;
	int c = strcmp(x->tag, y->tag);

	return c ? c : strcmp(x->type, y->type);
}

/* The snapshot's rows by --sort: the biggest first, as PoolMon's /b. */
static int
srow_by_key(const void *a, const void *b, void *arg)
{
	const struct pooldiff_opts *o = arg;
	const struct source_row *x = a, *y = b;
	int64_t vx, vy;

	if (o->sort_key == NCOUNTERS) {
		vx = x->c[C_DIFF] > 0 ? x->c[C_BYTES] / x->c[C_DIFF] : NONE;
		vy = y->c[C_DIFF] > 0 ? y->c[C_BYTES] / y->c[C_DIFF] : NONE;
	} else {
		vx = x->c[o->sort_key];
		vy = y->c[o->sort_key];
	}
	if (vx != vy)
		return vx < vy ? 1 : -1;
	return srow_cmp(a, b);
}

static void
source_done(void)
{
	if (nsrows > srow_first)	/* none: srows may be NULL */
		qsort(srows + srow_first, nsrows - srow_first, sizeof(*srows), srow_cmp);
	srow_first = nsrows;
}

static FILE *
proc_open(const struct pooldiff_opts *o, const char *name, int quiet)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", o->proc_dir, name);
	if (!(f = fopen(path, "r")) && !quiet) {
		mt_warn("%s", path);
		trouble = 1;
	}
	return f;
}

/* The sys tree beside the proc tree: /sys for /proc, DIR/../sys for DIR. */
static const char *
slab_type(const struct pooldiff_opts *o, const char *cache)
{
	char path[PATH_MAX], buf[16];
	const char *slash = strrchr(o->proc_dir, '/');
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%.*s/sys/kernel/slab/%s/reclaim_account",
	    slash ? (int)(slash - o->proc_dir) : 1, slash ? o->proc_dir : ".", cache);
	if ((fd = open(path, O_RDONLY)) < 0)
		return "slab";
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return "slab";
	return buf[0] == '1' ? "reclaimable" : "unreclaimable";
}

/*
 * The next line of a /proc file, whole: one longer than the buffer is
 * said and skipped, not its tail taken for a row of its own.
 */
static int
proc_line(FILE *f, char *buf, int size, uint64_t *lineno, const char *path)
{
	int c;

	while (fgets(buf, size, f)) {
		++*lineno;
		if (strchr(buf, '\n') || feof(f)) {
			buf[strcspn(buf, "\n")] = '\0';
			return 1;
		}
		while ((c = getc(f)) != EOF && c != '\n')
			;
		buf[40] = '\0';
		bad_line(path, *lineno, "line too long", buf);
	}
	return 0;
}

/* a * b, or -1 with the line said when it overflows. */
static int
bytes_of(int64_t a, int64_t b, int64_t *v, const char *path, uint64_t lineno, const char *tok)
{
	if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, v)) {
		bad_line(path, lineno, "bytes out of range", tok);
		return -1;
	}
	return 0;
}

static void
read_slabinfo(const struct pooldiff_opts *o, int quiet)
{
	FILE *f = proc_open(o, "slabinfo", quiet);
	char line[1024], name[256], path[PATH_MAX];
	long long active, objsize;
	uint64_t lineno = 0;

	if (!f)
		return;
	snprintf(path, sizeof(path), "%s/slabinfo", o->proc_dir);
	while (proc_line(f, line, sizeof(line), &lineno, path)) {
		int64_t bytes;
		if (!strncmp(line, "slabinfo -", 10) || line[0] == '#')
			continue;
		if (sscanf(line, "%255s %lld %*d %lld", name, &active, &objsize) != 3) {
			bad_line(path, lineno, "bad slabinfo line", line);
			continue;
		}
		if (bytes_of(active, objsize, &bytes, path, lineno, name) < 0)
			continue;
		srow_add(name, strlen(name), slab_type(o, name), active, bytes);
	}
	fclose(f);
	source_done();
}

static void
read_vmallocinfo(const struct pooldiff_opts *o, int quiet)
{
	static const char *const kinds[] = { "vmalloc", "vmap", "ioremap", "user", "vpages",
		"vm_area", "vm_map_ram", NULL };
	FILE *f = proc_open(o, "vmallocinfo", quiet);
	char line[1024], path[PATH_MAX], *w, *save, *caller;
	const char *type;
	int64_t size;
	uint64_t lineno = 0;
	size_t i, clen;

	if (!f)
		return;
	snprintf(path, sizeof(path), "%s/vmallocinfo", o->proc_dir);
	while (proc_line(f, line, sizeof(line), &lineno, path)) {
		if (!(w = strtok_r(line, " ", &save)) || !strchr(w, '-') ||
		    !(w = strtok_r(NULL, " ", &save)) || parse_i64(w, &size) < 0 || size < 0 ||
		    !(caller = strtok_r(NULL, " ", &save))) {
			bad_line(path, lineno, "bad vmallocinfo line", line);
			continue;
		}
		/* "func+0x94/0x3e0": the call site, without the function's size. */
		clen = strcspn(caller, "/");
		type = "vmalloc";
		for (w = caller; w; w = strtok_r(NULL, " ", &save))
			for (i = 0; kinds[i]; i++)
				if (!strcmp(w, kinds[i])) {
					type = kinds[i];
					goto found;
				}
found:
		srow_add(caller, clen, type, 1, size);
	}
	fclose(f);
	source_done();
}

static void
read_allocinfo(const struct pooldiff_opts *o, int quiet)
{
	FILE *f = proc_open(o, "allocinfo", quiet);
	char line[1024], tag[512], path[PATH_MAX], *mod;
	long long bytes, calls;
	uint64_t lineno = 0;
	char type[128];

	if (!f)
		return;
	snprintf(path, sizeof(path), "%s/allocinfo", o->proc_dir);
	while (proc_line(f, line, sizeof(line), &lineno, path)) {
		if (!strncmp(line, "allocinfo -", 11) || line[strspn(line, " ")] == '#')
			continue;
		/* Both unsigned in the kernel: a negative one is no count. */
		if (sscanf(line, "%lld %lld %511s", &bytes, &calls, tag) != 3 || bytes < 0 ||
		    calls < 0) {
			bad_line(path, lineno, "bad allocinfo line", line);
			continue;
		}
		/* Thousands of call sites hold nothing: rows with something only. */
		if (!bytes && !calls)
			continue;
		snprintf(type, sizeof(type), "kernel");
		if ((mod = strchr(line, '[')) && strchr(mod, ']'))
			snprintf(type, sizeof(type), "%.*s", (int)(strchr(mod, ']') - mod - 1), mod + 1);
		srow_add(tag, strlen(tag), type, calls, bytes);
	}
	fclose(f);
	source_done();
}

/* A process's mappings by name, from smaps: Bytes are Rss + Swap. */
static void
read_smaps(const struct pooldiff_opts *o, const char *pid, int prefix)
{
	char name[64], line[PATH_MAX + 256], cur[PATH_MAX + 320] = "", path_[PATH_MAX];
	const char *type = "anon";
	long long kb;
	int64_t bytes = 0, b;
	uint64_t lineno = 0;
	int have = 0, n;
	FILE *f;

	snprintf(name, sizeof(name), "%s/smaps", pid);
	if (!(f = proc_open(o, name, 0)))
		return;
	snprintf(path_, sizeof(path_), "%s/%s", o->proc_dir, name);
	while (proc_line(f, line, sizeof(line), &lineno, path_)) {
		if (strchr(line, '-') && strchr(line, '-') < strchr(line, ' ') &&
		    sscanf(line, "%*s %*s %*s %*s %*s %n", &n) == 0 && n > 0) {
			const char *path = line + n;
			if (have)
				srow_add(cur, strlen(cur), type, 1, bytes);
			have = 1;
			bytes = 0;
			if (!*path) {
				path = "[anon]";
				type = "anon";
			} else if (!strcmp(path, "[heap]")) {
				type = "heap";
			} else if (!strncmp(path, "[stack", 6)) {
				type = "stack";
			} else if (!strncmp(path, "[anon:", 6)) {
				type = "anon";
			} else if (*path == '[') {
				type = "special";
			} else {
				type = "file";
			}
			/* Escaped when the row is written. */
			snprintf(cur, sizeof(cur), "%s%s%s", prefix ? pid : "", prefix ? ":" : "", path);
		} else if (sscanf(line, "Rss: %lld kB", &kb) == 1 ||
		    sscanf(line, "Swap: %lld kB", &kb) == 1) {
			if (bytes_of(kb, 1024, &b, path_, lineno, line) == 0 &&
			    __builtin_add_overflow(bytes, b, &bytes))
				bad_line(path_, lineno, "bytes out of range", line);
		}
	}
	if (have)
		srow_add(cur, strlen(cur), type, 1, bytes);
	fclose(f);
	source_done();
}

static void
hostname_of(const struct pooldiff_opts *o, char *buf, size_t size)
{
	FILE *f;

	buf[0] = '\0';
	if (strcmp(o->proc_dir, "/proc") && (f = proc_open(o, "sys/kernel/hostname", 1))) {
		if (fgets(buf, (int)size, f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
	if (!buf[0] && gethostname(buf, size) < 0)
		snprintf(buf, size, "-");
	buf[size - 1] = '\0';
	buf[strcspn(buf, " \t")] = '\0';
}

int
snapshot(const struct pooldiff_opts *o, char **sources, size_t nsources)
{
	static const char *const meminfo_keys[] = { "MemTotal", "MemAvailable", "Slab",
		"SReclaimable", "SUnreclaim", "VmallocUsed", "Committed_AS", NULL };
	char host[256], when[64], line[256], pid[32], tagbuf[PATH_MAX + 64], meminfo[1024] = "";
	const char *src;
	size_t i, k, npids = 0;
	long long v;
	struct timespec ts;
	int64_t now;
	FILE *f;

	for (i = 0; i < nsources; i++)
		npids += !strncmp(sources[i], "pid:", 4);
	for (i = 0; i < nsources; i++) {
		src = sources[i];
		if (!strcmp(src, "slab"))
			read_slabinfo(o, 0);
		else if (!strcmp(src, "vmalloc"))
			read_vmallocinfo(o, 0);
		else if (!strcmp(src, "allocinfo"))
			read_allocinfo(o, 0);
		else if (!strncmp(src, "pid:", 4) && src[4] &&
		    strspn(src + 4, "0123456789") == strlen(src + 4) && strlen(src + 4) < 16) {
			snprintf(pid, sizeof(pid), "%s", src + 4);
			read_smaps(o, pid, npids > 1);
		} else {
			mt_bad("source", src, "slab, vmalloc, allocinfo, pid:N");
			return 2;
		}
	}
	if (nsources == 0) {
		/* All the kernel has; allocinfo only where the kernel has it. */
		read_slabinfo(o, 0);
		read_vmallocinfo(o, 0);
		if ((f = proc_open(o, "allocinfo", 1))) {
			fclose(f);
			read_allocinfo(o, 0);
		}
	}
	if (o->snapshot_time == NONE) {
		clock_gettime(CLOCK_REALTIME, &ts);
		now = (int64_t)ts.tv_sec * 1000000000;	/* whole seconds in a log */
	} else {
		now = o->snapshot_time;
	}
	time_label(now, when, sizeof(when));
	hostname_of(o, host, sizeof(host));
	/* The header's memory figures: part of the snapshot, read first. */
	if ((f = proc_open(o, "meminfo", 0))) {
		while (fgets(line, sizeof(line), f))
			for (k = 0; meminfo_keys[k]; k++)
				if (!strncmp(line, meminfo_keys[k], strlen(meminfo_keys[k])) &&
				    line[strlen(meminfo_keys[k])] == ':' &&
				    sscanf(line + strlen(meminfo_keys[k]) + 1, "%lld", &v) == 1 &&
				    strlen(meminfo) + 64 < sizeof(meminfo))
					snprintf(meminfo + strlen(meminfo), sizeof(meminfo) - strlen(meminfo),
					    " %s=%lldkB", meminfo_keys[k], v);
		fclose(f);
	}
	/*
	 * A source that failed makes no snapshot: in a log, its tags would
	 * read as pools that vanished, and --growth says they stopped.
	 */
	if (trouble)
		mt_errx(2, "no snapshot written");
	if (o->sort_key != SORT_UNSET && o->sort_key != SORT_TAG && nsrows > 1)
		qsort_r(srows, nsrows, sizeof(*srows), srow_by_key, (void *)(uintptr_t)o);
	printf("#mt-pool 1 time=%s host=%s%s", when, host, meminfo);
	printf("\n#%-31s %-14s %10s %10s %10s %14s %10s\n", "Tag", "Type", "Allocs", "Frees",
	    "Diff", "Bytes", "PerAlloc");
	for (i = 0; i < nsrows; i++) {
		struct source_row *r = &srows[i];
		printf("%-32s %-14s %10s %10s %10" PRId64 " %14" PRId64 " %10" PRId64 "\n",
		    tag_escape(r->tag, strlen(r->tag), tagbuf, sizeof(tagbuf)), r->type, "-", "-",
		    r->c[C_DIFF], r->c[C_BYTES], r->c[C_DIFF] ? r->c[C_BYTES] / r->c[C_DIFF] : 0);
	}
	return mt_close_stdout() || trouble ? 2 : 0;
}

