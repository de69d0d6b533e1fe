/*
 * mt-pooldiff: PoolMon for Linux.  --snapshot prints one snapshot of the
 * kernel's pools (slab caches, vmalloc callers, /proc/allocinfo) or of a
 * process's mappings, made to be appended to a log by cron.  Otherwise it
 * reads snapshot logs, or an event or lifetime stream that it cuts into
 * snapshots every --interval, and prints the latest table with each
 * counter's change since the snapshot before; --growth names the tags
 * whose Bytes keep growing.  Exit status as cmp(1): 0 no growth, 1
 * growth, 2 trouble.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mt.h"

static const char synopsis[] = "-S [-P dir] [--time time] [source,...]\n"
    "[-ad] [-s key] [-F format] [-m pattern] [-x pattern] [-E] [-g [K/N]] [-i time] [-k key] "
    "[-A regex] [--since-first] [--suppress file] [file ...]";
static const char options[] =
    "PoolMon for Linux.  With -S, writes one snapshot of the kernel's pools (slab,\n"
    "vmalloc, allocinfo) or of processes (pid:N), to append to a log.  Otherwise\n"
    "reads snapshot logs, events or life lines and prints PoolMon's table of the\n"
    "last snapshot, each counter's change in parentheses; or, with -g, the tags\n"
    "that keep growing.\n"
    "\n"
    "  -S, --snapshot       take a snapshot of the sources (default slab,vmalloc,allocinfo)\n"
    "  -P, --proc DIR       read DIR instead of /proc\n"
    "      --time TIME      the snapshot's time: 2026-11-22T01:10:00Z or @EPOCH\n"
    "  -s, --sort KEY       bytes (default, largest first, as poolmon /b), allocs,\n"
    "                       frees, diff, per-alloc, or tag (A to Z); with -S the\n"
    "                       rows written (default: by source and tag)\n"
    "  -d, --by-change      sort by the change of KEY, not its value (-c is the old spelling)\n"
    "      --since-first    each change against the first snapshot, not the one before\n"
    "  -F, --format FORMAT  table (default: bytes in KiB, MiB) or tsv (raw numbers)\n"
    "  -a, --totals         a totals row\n"
    "  -m, --include PAT    only tags that match the pattern (repeatable)\n"
    "  -x, --exclude PAT    not the tags that match it (repeatable)\n"
    "  -E, --regex          the patterns are PCRE2, not shell patterns\n"
    "  -g, --growth [K/N]   the tags whose bytes grew in every interval, or in K of\n"
    "                       the last N; exit 1 when there is one\n"
    "  -i, --interval TIME  events and life lines: a snapshot every TIME\n"
    "                       (-I is the old spelling)\n"
    "      --live           with -i: the table, or with -g the tags growing, as\n"
    "                       each interval closes (a live recording's pipe)\n"
    "  -k, --tag KEY        events: the tag is the function (default), heap, module\n"
    "                       or stack (-t is the old spelling)\n"
    "  -A, --skip REGEX     more functions to count as the allocation API (PCRE2)\n"
    "      --suppress FILE  more suppressions, as mt-group's: blocks never freed that\n"
    "                       are no growth of the program (repeatable)\n"
    "      --no-suppress    none, not even the built-in ones\n"
    "  -h, --help           this help\n"
    "  -V, --version        the version\n"
    "\n"
    "With no file, or -, standard input.  Exit 0 when no tag grows, 1 when one\n"
    "does, 2 on trouble.\n";

#define NONE INT64_MIN		/* a counter the source does not have: '-' */
#define NONE_W (-((mt_wide)1 << 100))	/* the same among wide values: below any sum */
enum { C_ALLOCS, C_FREES, C_DIFF, C_BYTES, NCOUNTERS };

struct tag {
	char *name, *type;	/* as written: no blanks */
	mt_wide cur[NCOUNTERS], prev[NCOUNTERS];	/* wide: sums of events */
	mt_wide first[NCOUNTERS];	/* in the first snapshot: --since-first */
	int in_cur, in_prev, in_first;
	unsigned clamped;	/* SAT_UP, SAT_DOWN: Bytes in at[] narrowed */
	/* Bytes from each snapshot where they changed on (absent: 0), in
	   order: a churning tag set over 20,000 snapshots once took 2.35 GB,
	   a counter a snapshot for every tag, and a stream cut at 1 ns
	   250 MB for a 2 ms trace. */
	struct at { size_t snap; int64_t bytes; } *at;
	size_t nat, atcap;
	/* From events: the changes in every interval. */
	/* From events: allocs, frees, bytes at the intervals where they
	   changed (lib/steps.c; one entry an interval for every tag made a
	   2 ms trace at --interval 1ns take 250 MB). */
	struct mt_steps ch;
	size_t cursor;
	mt_wide live[3];	/* --live: allocs, frees, bytes so far */
	struct tag *next;	/* hash chain */
};

struct snap {
	int64_t t;		/* ns since the epoch, or since the trace start */
	char *host;
};

static struct u64map tags_by_hash;
static struct tag **tags;
static size_t ntags;
static struct snap *snaps;
static size_t nsnaps, snapcap;
static int trouble;		/* exit 2 */

/* The columns whose values or changes stopped at 63 bits where shown. */
enum { SAT_PER_ALLOC = NCOUNTERS, SAT_GROWTH, SAT_PER_HOUR, SAT_SUPPRESSED, SAT_NCOLUMNS };
static struct mt_sat sat[SAT_NCOLUMNS] = {
	{ .column = "Allocs" }, { .column = "Frees" }, { .column = "Diff" },
	{ .column = "Bytes" }, { .column = "PerAlloc" }, { .column = "Growth" },
	{ .column = "PerHour" }, { .column = "the suppressed bytes" }
};

static void
say_saturated(void)
{
	int c;

	for (c = 0; c < SAT_NCOLUMNS; c++)
		sat_say(&sat[c]);
}

/* Options. */
enum tagby { T_FUNCTION, T_HEAP, T_MODULE, T_STACK };
static enum tagby tag_by = T_FUNCTION;
static uint64_t interval;
/* The sort key: a counter, NCOUNTERS for per-alloc, SORT_TAG; SORT_UNSET is
   Bytes in the table (as poolmon /b) and the sources' order in a snapshot. */
enum { SORT_TAG = -1, SORT_UNSET = -2 };
static int sort_key = SORT_UNSET, by_change, totals, use_regex;
static char **includes, **excludes;
static size_t nincludes, nexcludes;
static struct mt_regex **include_re, **exclude_re;
static int growth;
static long grow_k = -1, grow_n = -1;
static const char *proc_dir = "/proc";
static const char *skip_pattern;
static int64_t snapshot_time = NONE;
static int live;			/* --live */
static int since_first;			/* --since-first */
enum { FORMAT_TABLE, FORMAT_TSV };
static int format = FORMAT_TABLE;	/* --format */
static struct mt_suppress *suppress;	/* as mt-group's: lib/suppress.c */
static int no_suppress;

/* Event streams. */
static struct mt_dict *dict;
static int64_t trace_start = NONE;	/* from #mt-events start= */
static char *trace_host;
static uint64_t stream_end;		/* the last time seen */
static int saw_events, saw_log;
static int partial_last;		/* the last snapshot ends a short interval */
static uint64_t last_interval;		/* a short last interval joined: the two's length */

static struct tag *
tag_get(const char *name, size_t nlen, const char *type, size_t tlen)
{
	uint64_t h = hash_bytes(name, nlen) * 31 ^ hash_bytes(type, tlen);
	struct tag *t, **head;
	void **v;
	size_t i;

	v = u64map_get(&tags_by_hash, h | 1, 1);
	head = (struct tag **)v;
	for (t = *head; t; t = t->next)
		if (strlen(t->name) == nlen && !memcmp(t->name, name, nlen) &&
		    strlen(t->type) == tlen && !memcmp(t->type, type, tlen))
			return t;
	t = ecalloc(1, sizeof(*t));
	t->name = estrndup(name, nlen);
	t->type = estrndup(type, tlen);
	for (i = 0; i < NCOUNTERS; i++)
		t->cur[i] = t->prev[i] = NONE_W;
	t->next = *head;
	*head = t;
	tags = erealloc(tags, (ntags + 1) * sizeof(*tags));
	tags[ntags++] = t;
	return t;
}

/* A tag as a log writes it: blanks and backslashes as octal escapes. */
static char *
tag_escape(const char *s, size_t n, char *buf, size_t size)
{
	size_t i, j = 0;

	for (i = 0; i < n && j + 5 < size; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c <= ' ' || c == '\\' || c == 0x7f)
			j += (size_t)snprintf(buf + j, size - j, "\\%03o", c);
		else
			buf[j++] = (char)c;
	}
	if (j == 0)
		buf[j++] = '-';
	buf[j] = '\0';
	return buf;
}

/* t's Bytes in snapshot snap, the latest: kept only when they changed. */
static void
bytes_set(struct tag *t, size_t snap, int64_t bytes)
{
	if (t->nat && t->at[t->nat - 1].snap == snap) {
		t->at[t->nat - 1].bytes = bytes;
		if (t->nat > 1 ? t->at[t->nat - 2].bytes == bytes : bytes == 0)
			t->nat--;
		return;
	}
	if (t->nat ? t->at[t->nat - 1].bytes == bytes : bytes == 0)
		return;
	/* Room for 2 first: a million tags that change once are common. */
	if (t->nat == t->atcap) {
		t->atcap = t->atcap ? 2 * t->atcap : 2;
		t->at = erealloc(t->at, t->atcap * sizeof(*t->at));
	}
	t->at[t->nat++] = (struct at){ snap, bytes };
}

static void
snapshot_begin(int64_t t, const char *host)
{
	size_t i;

	for (i = 0; i < ntags; i++) {
		memcpy(tags[i]->prev, tags[i]->cur, sizeof(tags[i]->cur));
		tags[i]->in_prev = tags[i]->in_cur;
		tags[i]->in_cur = 0;
		/* Absent from the snapshot before: 0 there. */
		if (!tags[i]->in_prev && nsnaps)
			bytes_set(tags[i], nsnaps - 1, 0);
	}
	if (!host)
		host = "-";
	snaps = egrow(snaps, nsnaps, &snapcap, sizeof(*snaps));
	snaps[nsnaps].t = t;
	/* The host of the snapshot before, shared: a stream cut at 1 ns
	   made millions of copies of one name. */
	snaps[nsnaps].host = nsnaps && !strcmp(snaps[nsnaps - 1].host, host) ?
	    snaps[nsnaps - 1].host : estrdup(host);
	nsnaps++;
}

static void
snapshot_row(struct tag *t, const mt_wide c[NCOUNTERS])
{
	size_t n = nsnaps;

	memcpy(t->cur, c, sizeof(t->cur));
	t->in_cur = 1;
	if (n == 1) {
		memcpy(t->first, c, sizeof(t->first));
		t->in_first = 1;
	}
	bytes_set(t, n - 1, c[C_BYTES] == NONE_W ? 0 : sat_narrow(c[C_BYTES], &t->clamped));
}

/* Bytes of t in snapshot i (0 where the tag was absent). */
static int64_t
bytes_at(const struct tag *t, size_t i)
{
	size_t a = 0, z = t->nat, m;

	/* The last change at or before i. */
	while (a < z) {
		m = (a + z) / 2;
		if (t->at[m].snap <= i)
			a = m + 1;
		else
			z = m;
	}
	if (a == 0)
		return 0;
	/* Absent from the last snapshot: its row never came. */
	if (i == nsnaps - 1 && !t->in_cur)
		return 0;
	return t->at[a - 1].bytes;
}

/* ---- Time ---- */

static void
time_label(int64_t t, char *buf, size_t size)
{
	struct tm tm;
	time_t s;
	size_t n;

	if (trace_start == NONE && saw_events && !saw_log) {
		snprintf(buf, size, "%" PRId64 ".%03ds", t / 1000000000,
		    (int)(t % 1000000000 / 1000000));
		return;
	}
	s = (time_t)(t / 1000000000);
	gmtime_r(&s, &tm);
	n = strftime(buf, size, "%Y-%m-%dT%H:%M:%S", &tm);
	if (t % 1000000000)
		n += (size_t)snprintf(buf + n, size - n, ".%03d", (int)(t % 1000000000 / 1000000));
	snprintf(buf + n, size - n, "Z");
}

/* "2026-11-22T01:10:00Z" (seconds may have a fraction) or "@EPOCH". */
static int
parse_time(const char *s, int64_t *t)
{
	struct tm tm;
	const char *p;
	char *end;
	long long v;
	int64_t frac = 0, scale = 100000000;

	if (*s == '@') {
		errno = 0;
		v = strtoll(s + 1, &end, 10);
		/* Nanoseconds since 1970 in 63 bits: to 2262. */
		if (errno || *end || end == s + 1 || v < 0 || v > INT64_MAX / 1000000000 - 1)
			return -1;
		*t = (int64_t)v * 1000000000;
		return 0;
	}
	memset(&tm, 0, sizeof(tm));
	if (!(p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm)))
		return -1;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++, scale /= 10)
			frac += (*p - '0') * scale;
	if (strcmp(p, "Z"))
		return -1;
	v = (long long)timegm(&tm);
	if (v < 0 || v > INT64_MAX / 1000000000 - 1)
		return -1;
	*t = (int64_t)v * 1000000000 + frac;
	return 0;
}

/* ---- Snapshots of /proc ---- */

struct source_row {
	char *tag, *type;
	int64_t c[NCOUNTERS];
};
static struct source_row *srows;
static size_t nsrows, srow_first;	/* rows of the source being read start here */

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
				fprintf(stderr, "%s: %s: its sum is out of range\n", mt_progname,
				    mt_shown(tag, tlen));
				trouble = 1;
			}
			return;
		}
	srows = erealloc(srows, (nsrows + 1) * sizeof(*srows));
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
srow_by_key(const void *a, const void *b)
{
	const struct source_row *x = a, *y = b;
	int64_t vx, vy;

	if (sort_key == NCOUNTERS) {
		vx = x->c[C_DIFF] > 0 ? x->c[C_BYTES] / x->c[C_DIFF] : NONE;
		vy = y->c[C_DIFF] > 0 ? y->c[C_BYTES] / y->c[C_DIFF] : NONE;
	} else {
		vx = x->c[sort_key];
		vy = y->c[sort_key];
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
proc_open(const char *name, int quiet)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", proc_dir, name);
	if (!(f = fopen(path, "r")) && !quiet) {
		fprintf(stderr, "%s: %s: %s\n", mt_progname, path, strerror(errno));
		trouble = 1;
	}
	return f;
}

/* The sys tree beside the proc tree: /sys for /proc, DIR/../sys for DIR. */
static const char *
slab_type(const char *cache)
{
	char path[PATH_MAX], buf[16];
	const char *slash = strrchr(proc_dir, '/');
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%.*s/sys/kernel/slab/%s/reclaim_account",
	    slash ? (int)(slash - proc_dir) : 1, slash ? proc_dir : ".", cache);
	if ((fd = open(path, O_RDONLY)) < 0)
		return "slab";
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return "slab";
	return buf[0] == '1' ? "reclaimable" : "unreclaimable";
}

static int
parse_i64(const char *s, int64_t *v)
{
	char *end;
	long long x;

	errno = 0;
	x = strtoll(s, &end, 10);
	/* -2^63 stands for '-' here: not a count. */
	if (errno || end == s || *end || x == INT64_MIN)
		return -1;
	*v = x;
	return 0;
}

static void
bad_line(const char *file, uint64_t line, const char *what, const char *tok)
{
	mt_warn_at(file, line, what, tok, strlen(tok));
	trouble = 1;
}

/*
 * The next line of a /proc file, whole: one longer than the buffer is
 * said and skipped (its tail once became a row of its own).
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
read_slabinfo(int quiet)
{
	FILE *f = proc_open("slabinfo", quiet);
	char line[1024], name[256], path[PATH_MAX];
	long long active, objsize;
	uint64_t lineno = 0;

	if (!f)
		return;
	snprintf(path, sizeof(path), "%s/slabinfo", proc_dir);
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
		srow_add(name, strlen(name), slab_type(name), active, bytes);
	}
	fclose(f);
	source_done();
}

static void
read_vmallocinfo(int quiet)
{
	static const char *const kinds[] = { "vmalloc", "vmap", "ioremap", "user", "vpages",
		"vm_area", "vm_map_ram", NULL };
	FILE *f = proc_open("vmallocinfo", quiet);
	char line[1024], path[PATH_MAX], *w, *save, *caller;
	const char *type;
	int64_t size;
	uint64_t lineno = 0;
	size_t i, clen;

	if (!f)
		return;
	snprintf(path, sizeof(path), "%s/vmallocinfo", proc_dir);
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
read_allocinfo(int quiet)
{
	FILE *f = proc_open("allocinfo", quiet);
	char line[1024], tag[512], path[PATH_MAX], *mod;
	long long bytes, calls;
	uint64_t lineno = 0;
	char type[128];

	if (!f)
		return;
	snprintf(path, sizeof(path), "%s/allocinfo", proc_dir);
	while (proc_line(f, line, sizeof(line), &lineno, path)) {
		if (!strncmp(line, "allocinfo -", 11) || line[strspn(line, " ")] == '#')
			continue;
		/* Both unsigned in the kernel: -2^63 of them once divided by -1. */
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
read_smaps(const char *pid, int prefix)
{
	char name[64], line[PATH_MAX + 256], cur[PATH_MAX + 320] = "", path_[PATH_MAX];
	const char *type = "anon";
	long long kb;
	int64_t bytes = 0, b;
	uint64_t lineno = 0;
	int have = 0, n;
	FILE *f;

	snprintf(name, sizeof(name), "%s/smaps", pid);
	if (!(f = proc_open(name, 0)))
		return;
	snprintf(path_, sizeof(path_), "%s/%s", proc_dir, name);
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
hostname_of(char *buf, size_t size)
{
	FILE *f;

	buf[0] = '\0';
	if (strcmp(proc_dir, "/proc") && (f = proc_open("sys/kernel/hostname", 1))) {
		if (fgets(buf, (int)size, f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
	if (!buf[0] && gethostname(buf, size) < 0)
		snprintf(buf, size, "-");
	buf[size - 1] = '\0';
	buf[strcspn(buf, " \t")] = '\0';
}

static int
snapshot(char **sources, size_t nsources)
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
			read_slabinfo(0);
		else if (!strcmp(src, "vmalloc"))
			read_vmallocinfo(0);
		else if (!strcmp(src, "allocinfo"))
			read_allocinfo(0);
		else if (!strncmp(src, "pid:", 4) && src[4] &&
		    strspn(src + 4, "0123456789") == strlen(src + 4) && strlen(src + 4) < 16) {
			snprintf(pid, sizeof(pid), "%s", src + 4);
			read_smaps(pid, npids > 1);
		} else {
			fprintf(stderr, "%s: bad source '%s' (slab, vmalloc, allocinfo, pid:N)\n",
			    mt_progname, mt_shown(src, strlen(src)));
			return 2;
		}
	}
	if (nsources == 0) {
		/* All the kernel has; allocinfo only where the kernel has it. */
		read_slabinfo(0);
		read_vmallocinfo(0);
		if ((f = proc_open("allocinfo", 1))) {
			fclose(f);
			read_allocinfo(0);
		}
	}
	if (snapshot_time == NONE) {
		clock_gettime(CLOCK_REALTIME, &ts);
		now = (int64_t)ts.tv_sec * 1000000000;	/* whole seconds in a log */
	} else {
		now = snapshot_time;
	}
	time_label(now, when, sizeof(when));
	hostname_of(host, sizeof(host));
	/* The header's memory figures: part of the snapshot, read first. */
	if ((f = proc_open("meminfo", 0))) {
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
	if (trouble) {
		fprintf(stderr, "%s: no snapshot written\n", mt_progname);
		return 2;
	}
	if (sort_key != SORT_UNSET && sort_key != SORT_TAG && nsrows > 1)
		qsort(srows, nsrows, sizeof(*srows), srow_by_key);
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

/* ---- Reading logs and streams ---- */

static int skipping;	/* the rows of a snapshot in a format not ours */

/* A log's snapshot header, until its first row. */
static struct {
	int on;
	int64_t t;
	char *host;
	const char *file;
	uint64_t lineno;
} pending;

/*
 * The header before has had no row: a snapshot whose source failed (an
 * older mt-pooldiff wrote its header anyway).  Taken in, its tags would
 * have vanished and --growth said they stopped: left out, and said.
 */
static void
header_done(void)
{
	if (!pending.on)
		return;
	pending.on = 0;
	bad_line(pending.file, pending.lineno, "snapshot without rows left out", "#mt-pool");
}

static void
log_header(const char *file, uint64_t lineno, char *line)
{
	char *w, *save, *host = NULL;
	int64_t t = NONE;

	int said = 0;

	header_done();
	skipping = 0;
	w = strtok_r(line, " \t", &save);
	if (!w || strcmp(w, "1")) {
		/* A later format: its rows may not mean ours. */
		bad_line(file, lineno, "snapshot format this mt-pooldiff does not read",
		    w ? w : "#mt-pool");
		skipping = 1;
		return;
	}
	for (w = strtok_r(NULL, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (!strncmp(w, "time=", 5) && parse_time(w + 5, &t) < 0) {
			bad_line(file, lineno, "bad snapshot time", w);
			said = 1;
		} else if (!strncmp(w, "host=", 5)) {
			host = w + 5;
		}
	}
	if (t == NONE) {
		if (!said)
			bad_line(file, lineno, "snapshot without a time", "#mt-pool");
		t = nsnaps ? snaps[nsnaps - 1].t : 0;
	}
	if (nsnaps && t < snaps[nsnaps - 1].t)
		bad_line(file, lineno, "snapshot older than the one before", line);
	saw_log = 1;
	/* Begun at its first row: a header alone is a snapshot that failed. */
	pending.t = t;
	free(pending.host);
	pending.host = estrdup(host ? host : "-");
	pending.file = file;
	pending.lineno = lineno;
	pending.on = 1;
}

static void
log_row(const char *file, uint64_t lineno, const char *line, size_t len)
{
	char buf[4096], *f[8], *save;
	int64_t v;
	mt_wide c[NCOUNTERS];
	size_t n = 0, i;
	struct tag *t;

	if (len >= sizeof(buf)) {
		bad_line(file, lineno, "snapshot row too long", "...");
		return;
	}
	memcpy(buf, line, len);
	buf[len] = '\0';
	/* Eight fields say too many: the array holds no ninth. */
	while (n < 8 && (f[n] = strtok_r(n ? NULL : buf, " \t", &save)))
		n++;
	if (n != 7) {
		char tmp[4096];
		memcpy(tmp, line, len);
		tmp[len] = '\0';
		bad_line(file, lineno, "bad snapshot row", tmp);
		return;
	}
	if (skipping)
		return;
	if (!nsnaps && !pending.on) {
		bad_line(file, lineno, "row before any snapshot header", f[0]);
		return;
	}
	for (i = 0; i < NCOUNTERS; i++) {
		if (!strcmp(f[2 + i], "-"))
			c[i] = NONE_W;
		else if (parse_i64(f[2 + i], &v) < 0) {
			bad_line(file, lineno, "bad counter", f[2 + i]);
			return;
		} else
			c[i] = v;
	}
	if (pending.on) {
		pending.on = 0;
		snapshot_begin(pending.t, pending.host);
	}
	t = tag_get(f[0], strlen(f[0]), f[1], strlen(f[1]));
	if (t->in_cur) {
		bad_line(file, lineno, "tag twice in one snapshot", f[0]);
		return;
	}
	snapshot_row(t, c);
}

/* A pool record of mt-events(5): the records of one time make a snapshot. */
static void
pool_record(const struct mt_event *ev)
{
	static int64_t cur = NONE;
	int64_t t = (trace_start == NONE ? 0 : trace_start) + (int64_t)ev->ts;
	mt_wide c[NCOUNTERS];
	char tag[4096];

	if (t != cur || !nsnaps) {
		snapshot_begin(t, trace_host);
		cur = t;
	}
	saw_log = 1;
	c[C_ALLOCS] = ev->count[0];
	c[C_FREES] = ev->count[1];
	c[C_DIFF] = c[C_ALLOCS] - c[C_FREES];
	c[C_BYTES] = ev->count[2];
	tag_escape(ev->heap.s, ev->heap.len, tag, sizeof(tag));
	snapshot_row(tag_get(tag, strlen(tag), ev->s1.s, ev->s1.len), c);
}

/*
 * The interval of time t, or SIZE_MAX past MAX_BUCKETS of them (a time of
 * 2^63 at 50 ms asked for all memory): said once, not counted.
 */
#define MAX_BUCKETS 10000000
static size_t
bucket_of(uint64_t t)
{
	static int said;

	if (t / interval < MAX_BUCKETS)
		return (size_t)(t / interval);
	if (!said++) {
		fprintf(stderr, "%s: a time of %" PRIu64 " ns is more than %d intervals in: "
		    "a longer --interval (what lies there is not counted)\n", mt_progname, t,
		    MAX_BUCKETS);
		trouble = 1;
	}
	return SIZE_MAX;
}

static void
delta_add(struct tag *t, size_t b, int which, int64_t v)
{
	if (b != SIZE_MAX)
		steps_add(&t->ch, b, which, v);
}

static size_t nbuckets;

/*
 * The last interval, from k intervals in to the stream's end at t, is
 * short: less than half an interval.  One at least half long is judged
 * as a whole one (our rule): an 8 s attach at 2 s ends a little before
 * or after 8 s, and must give the snapshots at 2, 4, 6 and 8 s either way.
 */
static int
short_last(uint64_t t, size_t k)
{
	return t < k * interval + (interval + 1) / 2;
}

/* A lifetime: an allocation in its interval, a free in its. */
/* The suppression rule that matches stack, or -1. */
static long
rule_of(uint64_t stack)
{
	return no_suppress ? -1 : suppress_match(suppress, dict, stack);
}

/*
 * A lifetime: an allocation in its interval, a free in its.  One never
 * freed that a rule of mt-group's suppressions matches is a runtime's
 * one-time block, not growth: counted apart and said.  With --live an
 * allocation counts as it comes (at_alloc), before its fate is known: a
 * rule's waits for its free (pair_emit).
 */
static void
count_life(uint64_t ta, uint64_t tf, struct mt_str heap, uint64_t size, uint64_t stack,
    int64_t pid, int at_alloc)
{
	long rule;
	struct mt_stackinfo *si = stack == UINT64_MAX ? NULL : dict_stack(dict, stack);
	char key[8192], esc[8192 * 4 + 8], buf[64];
	const char *s = "-";
	size_t len = 0, i, b;
	struct tag *t;
	int64_t sz = size == UINT64_MAX ? 0 : (int64_t)size;

	saw_events = 1;
	if (!interval || (ta == UINT64_MAX && tf == UINT64_MAX))
		return;		/* said once the input is read */
	if (tf == UINT64_MAX && ta != UINT64_MAX && (rule = rule_of(stack)) >= 0) {
		if (!at_alloc)
			suppress_count(suppress, rule, size == UINT64_MAX ? 0 : size);
		return;
	}

	switch (tag_by) {
	case T_HEAP:
		s = NULL;
		len = heap.len < sizeof(key) ? heap.len : sizeof(key) - 1;
		memcpy(key, heap.s, len);
		break;
	case T_FUNCTION:
	case T_MODULE:
		if (si && si->n)
			s = tag_by == T_FUNCTION ? si->frame[si->alloc_frame]->function :
			    si->frame[si->alloc_frame]->module;
		else if (stack != UINT64_MAX)
			s = (snprintf(buf, sizeof(buf), "stack:%" PRIu64, stack), buf);
		break;
	case T_STACK:
		s = NULL;
		len = (size_t)snprintf(key, sizeof(key), "%s", dict_process(dict, pid));
		for (i = si ? si->n : 0; i-- > 0 && len < sizeof(key) - 1;)
			len += (size_t)snprintf(key + len, sizeof(key) - len, ";%s", si->frame[i]->function);
		if (len >= sizeof(key))
			len = sizeof(key) - 1;
		break;
	}
	if (s) {
		len = strlen(s) < sizeof(key) ? strlen(s) : sizeof(key) - 1;
		memcpy(key, s, len);
	}
	tag_escape(key, len, esc, sizeof(esc));
	t = tag_get(esc, strlen(esc), heap.s, heap.len);
	/* Times past the intervals counted are not the stream's end either. */
	if (ta != UINT64_MAX && ta > stream_end && bucket_of(ta) != SIZE_MAX)
		stream_end = ta;
	if (tf != UINT64_MAX && tf > stream_end && bucket_of(tf) != SIZE_MAX)
		stream_end = tf;
	if (ta != UINT64_MAX) {
		b = bucket_of(ta);
		delta_add(t, b, 0, 1);
		delta_add(t, b, 2, sz);
		nbuckets = b + 1 > nbuckets ? b + 1 : nbuckets;
		if (live && b != SIZE_MAX) {
			t->live[0] += 1;
			t->live[2] += sz;
		}
	}
	if (tf != UINT64_MAX) {
		b = bucket_of(tf);
		delta_add(t, b, 1, 1);
		delta_add(t, b, 2, -sz);
		nbuckets = b + 1 > nbuckets ? b + 1 : nbuckets;
		if (live && b != SIZE_MAX) {
			t->live[1] += 1;
			t->live[2] -= sz;
		}
	}
}

/*
 * An allocation made before recording whose size is known (a mapping
 * mt-record -p found, or one a munmap measured): counted in the first
 * interval, where it already was.  Without a size it is a free of
 * something unknown, as before.
 */
static uint64_t
before_at(uint64_t ta, uint64_t size)
{
	return ta == UINT64_MAX && size != UINT64_MAX ? 0 : ta;
}

/*
 * A lifetime from events, counted as it ends; with --live its allocation
 * was counted when it came, so that what is still live counts at once.
 * (Not always: a mapping unmapped in pieces is a lifetime a piece, each
 * an allocation here, one allocation live.)
 */
static void
pair_emit(const struct mt_life *l, void *arg)
{
	uint64_t ta = before_at(l->ta, l->size);

	/* --live: a rule's allocation was not counted as it came. */
	if (live && (ta == UINT64_MAX || rule_of(l->stack) < 0))
		ta = UINT64_MAX;
	count_life(ta, l->tf, l->heap, l->size, l->stack, l->pid, 0);
}

static int print_growth(int live_pass);
static void live_end(void);
static void print_table(void);
static size_t live_closed;	/* --live: intervals whose snapshot is made */

/* A snapshot's row of the sums of allocs, frees and bytes. */
static void
counters(mt_wide c[NCOUNTERS], const mt_wide sum[3])
{
	c[C_ALLOCS] = sum[0];
	c[C_FREES] = sum[1];
	c[C_DIFF] = sum[0] - sum[1];
	c[C_BYTES] = sum[2];
}

/* --live: a snapshot at time t of the counts so far. */
static void
live_snapshot(int64_t t)
{
	mt_wide c[NCOUNTERS];
	size_t i;

	snapshot_begin(t, trace_host);
	for (i = 0; i < ntags; i++) {
		struct tag *tg = tags[i];
		if (!tg->live[0] && !tg->live[1])
			continue;
		counters(c, tg->live);
		snapshot_row(tg, c);
	}
}

/*
 * --live: the intervals that time t closes, each a snapshot of the
 * counts so far, its table (or the growth verdict, when a tag grows)
 * printed and flushed as it closes.  The stream is in time order, so
 * the counts before t's event are those at the end of each.
 */
static void
live_close(uint64_t t)
{
	size_t b = bucket_of(t);
	int64_t base = trace_start == NONE ? 0 : trace_start;

	if (b == SIZE_MAX)
		return;
	/* A gap of intervals with no event: their snapshots are alike, one said. */
	if (b > live_closed + 1000)
		live_closed = b - 1000;
	for (; live_closed < b; live_closed++) {
		live_snapshot(base + (int64_t)((live_closed + 1) * interval));
		if (b - live_closed > 1)
			continue;	/* only the last of a run is shown */
		if (!growth)
			print_table();
		else if (nsnaps >= 2)
			print_growth(1);
		fflush(stdout);
	}
}

/* --live at the end of the input: the interval it cut short, a snapshot too. */
static void
live_end(void)
{
	int64_t base = trace_start == NONE ? 0 : trace_start;

	if (nsnaps && stream_end <= live_closed * interval)
		return;
	partial_last = short_last(stream_end, live_closed);
	live_snapshot(base + (int64_t)stream_end);
}

static struct mt_pairer *pairer;

static int
read_input(const char *path)
{
	struct mt_reader *r;
	struct mt_event ev;
	const char *p;
	int64_t v;
	int added;

	if (!(r = reader_open(path)))
		return 1;
	pairer_input(pairer, r);
	reader_keep_bad(r);
	while (reader_next(r, &ev)) {
		if ((added = dict_add(dict, &ev))) {
			if (added == 2)		/* a stack redefined */
				suppress_forget(suppress);
			continue;
		}
		switch (ev.type) {
		case MT_COMMENT:
			if (ev.s1.len >= 8 && !memcmp(ev.s1.s, "#mt-pool", 8) &&
			    (ev.s1.len == 8 || ev.s1.s[8] == ' ' || ev.s1.s[8] == '\t')) {
				char *line = estrndup(ev.s1.s + 8, ev.s1.len - 8);
				log_header(reader_name(r), reader_lineno(r), line);
				free(line);
			} else if (ev.s1.len > 10 && !memcmp(ev.s1.s, "#mt-events", 10) &&
			    (p = strstr(ev.s1.s, "start=")) && p < ev.s1.s + ev.s1.len &&
			    trace_start == NONE) {
				v = strtoll(p + 6, NULL, 10);
				trace_start = v > 0 ? v : NONE;
				if ((p = strstr(ev.s1.s, "host=")) && !trace_host)
					trace_host = estrndup(p + 5, strcspn(p + 5, "\t \n"));
			}
			break;
		case MT_UNKNOWN:
			log_row(reader_name(r), reader_lineno(r), ev.s1.s, ev.s1.len);
			break;
		case MT_POOL:
			pool_record(&ev);
			break;
		case MT_ALLOC:
			saw_events = 1;
			if (live)
				live_close(ev.ts);
			pairer_alloc(pairer, &ev);
			if (live)
				count_life(ev.flags & EV_TS_NONE ? 0 : ev.ts, UINT64_MAX, ev.heap, ev.size,
				    ev.flags & EV_STACK_NONE ? UINT64_MAX : ev.stack, ev.pid, 1);
			break;
		case MT_FREE:
			saw_events = 1;
			if (live)
				live_close(ev.ts);
			pairer_free(pairer, &ev);
			break;
		/*
		 * What a process never freed stays in its tags after its exit:
		 * the table is of what the allocation functions left, and a
		 * leak that the exit ended would read as freed in the last
		 * interval, and never be said to grow.
		 */
		case MT_PROC:
			pairer_proc(pairer, ev.pid, UINT64_MAX);
			break;
		case MT_EXIT:
			pairer_image_end(pairer, ev.pid, "exit", UINT64_MAX);
			break;
		case MT_LIFE:
			saw_events = 1;
			if (live)
				live_close(ev.flags & EV_TS2_NONE ? ev.ts : ev.ts2);
			/* A leak that its process's end ended: not freed, as above. */
			count_life(before_at(ev.flags & EV_TS_NONE ? UINT64_MAX : ev.ts,
			    ev.flags & EV_SIZE_NONE ? UINT64_MAX : ev.size),
			    (ev.flags & EV_TS2_NONE) || (ev.s2.len == 4 &&
			    !memcmp(ev.s2.s, "exit", 4)) ? UINT64_MAX : ev.ts2, ev.heap,
			    ev.flags & EV_SIZE_NONE ? UINT64_MAX : ev.size,
			    ev.flags & EV_STACK_NONE ? UINT64_MAX : ev.stack, ev.pid, 0);
			break;
		default:
			break;
		}
	}
	header_done();
	pairer_input(pairer, NULL);
	return reader_close(r);
}

/* The counts of every interval, summed into one snapshot at its end. */
static void
snapshots_from_events(void)
{
	mt_wide c[NCOUNTERS];
	size_t k, i;
	int j;
	struct tag *t;
	int64_t base = trace_start == NONE ? 0 : trace_start;
	mt_wide (*run)[3] = ecalloc(ntags ? ntags : 1, sizeof(*run));

	/*
	 * A short last interval joins the whole one before it, whose snapshot
	 * is then at the end of the trace: compared alone with a whole
	 * interval, its changes were near nothing (the table of a 4.2 s trace
	 * at 1 s said +0 nearly everywhere).  Alone, its snapshot is at the
	 * end of the trace too, not after it.
	 */
	for (i = 0; i < ntags; i++) {
		steps_merge(&tags[i]->ch);
		tags[i]->cursor = 0;
	}
	partial_last = nbuckets && short_last(stream_end, nbuckets - 1);
	if (partial_last && nbuckets > 1) {
		last_interval = stream_end - (nbuckets - 2) * interval;
		partial_last = 0;
	}
	for (k = 0; k < nbuckets; k++) {
		size_t upto = k + 2 == nbuckets && last_interval ? k + 1 : k;

		if (k + 1 == nbuckets && last_interval)
			break;		/* joined to the one before */
		snapshot_begin(base + (int64_t)(upto + 1 < nbuckets || !partial_last ?
		    (upto + 1 == nbuckets ? stream_end : (k + 1) * interval) : stream_end),
		    trace_host);
		for (i = 0; i < ntags; i++) {
			t = tags[i];
			for (; t->cursor < t->ch.n && t->ch.d[t->cursor].k <= upto; t->cursor++)
				for (j = 0; j < 3; j++)
					run[i][j] += t->ch.d[t->cursor].v[j];
			if (!run[i][0] && !run[i][1])
				continue;
			counters(c, run[i]);
			snapshot_row(t, c);
		}
	}
	free(run);
}

/* ---- Output ---- */

static int
selected(const struct tag *t)
{
	size_t i;
	int in = nincludes == 0;

	for (i = 0; i < nincludes && !in; i++)
		in = use_regex ? re_match(include_re[i], t->name, strlen(t->name)) :
		    !fnmatch(includes[i], t->name, 0);
	for (i = 0; i < nexcludes && in; i++)
		in = !(use_regex ? re_match(exclude_re[i], t->name, strlen(t->name)) :
		    !fnmatch(excludes[i], t->name, 0));
	return in;
}

/* The value shown now: absent tags hold 0 of what they had. */
static mt_wide
value(const struct tag *t, int c)
{
	if (t->in_cur)
		return t->cur[c];
	return t->prev[c] == NONE_W ? NONE_W : 0;
}

static mt_wide
change(const struct tag *t, int c)
{
	mt_wide now = value(t, c), before;

	if (nsnaps < 2 || now == NONE_W)
		return NONE_W;
	if (since_first)
		before = t->in_first ? t->first[c] : 0;
	else
		before = t->in_prev ? t->prev[c] : 0;
	return before == NONE_W ? NONE_W : now - before;
}

/* Bytes a block; NONE_W without both. */
static mt_wide
per_alloc(mt_wide diff, mt_wide bytes)
{
	return diff == NONE_W || bytes == NONE_W ? NONE_W : diff > 0 ? bytes / diff : 0;
}

static int
by_sort(const void *a, const void *b)
{
	const struct tag *x = *(const struct tag *const *)a, *y = *(const struct tag *const *)b;
	mt_wide vx, vy;
	int c;

	if (sort_key >= 0) {
		if (sort_key == NCOUNTERS) {	/* per alloc; none without allocations */
			vx = value(x, C_DIFF) > 0 ? per_alloc(value(x, C_DIFF), value(x, C_BYTES)) :
			    NONE_W;
			vy = value(y, C_DIFF) > 0 ? per_alloc(value(y, C_DIFF), value(y, C_BYTES)) :
			    NONE_W;
		} else if (by_change) {
			vx = change(x, sort_key);
			vy = change(y, sort_key);
		} else {
			vx = value(x, sort_key);
			vy = value(y, sort_key);
		}
		if (vx != vy)
			return vx < vy ? 1 : -1;
	}
	c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->type, y->type);
}

/*
 * A tag for people: the log's escapes of a blank and a backslash undone
 * (they are there for awk), other bytes left escaped.
 */
static const char *
tag_show(const char *name, char *buf, size_t size)
{
	size_t i, n = 0;

	for (i = 0; name[i] && n + 1 < size; i++) {
		if (name[i] == '\\' && (!strncmp(name + i + 1, "040", 3) ||
		    !strncmp(name + i + 1, "134", 3))) {
			buf[n++] = name[i + 1] == '0' ? ' ' : '\\';
			i += 3;
		} else {
			buf[n++] = name[i];
		}
	}
	buf[n] = '\0';
	return buf;
}

/*
 * The table's width: the type and then the tag column give way past it,
 * to TYPE_MIN and TAG_MIN characters, cut in their middle.  A function's
 * name of 60 characters (C++, Rust) stays whole.
 */
#define TABLE_WIDTH 120
#define TAG_MIN 60
#define TYPE_MIN 16

/*
 * A value of column c, or its change (signed); NONE_W: '-'.  Bytes for
 * people in the table (KiB, MiB: mt_human), raw in TSV.
 */
static void
cell(char *buf, size_t size, mt_wide v, int c, int change_of)
{
	char h[40];

	if (v == NONE_W)
		snprintf(buf, size, "-");
	else if (format == FORMAT_TABLE && (c == C_BYTES || c == SAT_PER_ALLOC))
		/* Past 2^63-1 it says ">=8.0 EiB": no sign before it. */
		snprintf(buf, size, "%s%s", change_of && v >= 0 && v <= SAT_MAX ? "+" : "",
		    sat_human(v, &sat[c].hit, h, sizeof(h)));
	else
		snprintf(buf, size, change_of && format == FORMAT_TABLE ? "%+" PRId64 : "%" PRId64,
		    sat_narrow(v, &sat[c].hit));
}

enum { COL_TAG, COL_TYPE, COL_COUNTERS, COL_PER_ALLOC = COL_COUNTERS + 2 * NCOUNTERS, NCOLS };

/* A row: tag, type, each counter and its change, per alloc. */
static void
row_cells(struct mt_table *tb, const char *name, const char *type, const mt_wide v[NCOUNTERS],
    const mt_wide d[NCOUNTERS])
{
	char c[NCOLS][64], shown[4096], ch[48];
	const char *cells[NCOLS];
	int i;

	for (i = 0; i < NCOUNTERS; i++) {
		cell(c[COL_COUNTERS + 2 * i], sizeof(c[0]), v[i], i, 0);
		cell(ch, sizeof(ch), d[i], i, 1);
		snprintf(c[COL_COUNTERS + 2 * i + 1], sizeof(c[0]),
		    format == FORMAT_TABLE ? "(%s)" : "%s", ch);
	}
	cell(c[COL_PER_ALLOC], sizeof(c[0]), per_alloc(v[C_DIFF], v[C_BYTES]), SAT_PER_ALLOC, 0);
	for (i = COL_COUNTERS; i < NCOLS; i++)
		cells[i] = c[i];
	if (format == FORMAT_TSV) {
		printf("%s\t%s", name, type);
		for (i = COL_COUNTERS; i < NCOLS; i++)
			printf("\t%s", cells[i]);
		putchar('\n');
		return;
	}
	cells[COL_TAG] = tag_show(name, shown, sizeof(shown));
	cells[COL_TYPE] = type;
	table_row(tb, cells);
}

static void
print_table(void)
{
	static const char *const head[NCOLS] = { "#Tag", "Type", "Allocs", "", "Frees", "",
		"Diff", "", "Bytes", "", "PerAlloc" };
	struct tag **shown = emalloc((ntags ? ntags : 1) * sizeof(*shown));
	mt_wide v[NCOUNTERS], d[NCOUNTERS], tv[NCOUNTERS], td[NCOUNTERS];
	char when[64], before[64];
	size_t i, n = 0;
	int c, have[NCOUNTERS] = { 0 };
	struct mt_table *tb = NULL;

	for (c = 0; c < NCOUNTERS; c++)
		tv[c] = td[c] = NONE_W;
	for (i = 0; i < ntags; i++)
		if ((tags[i]->in_cur || tags[i]->in_prev) && selected(tags[i]))
			shown[n++] = tags[i];
	qsort(shown, n, sizeof(*shown), by_sort);
	time_label(snaps[nsnaps - 1].t, when, sizeof(when));
	if (nsnaps > 1) {
		time_label(snaps[since_first ? 0 : nsnaps - 2].t, before, sizeof(before));
		printf("#mt-pooldiff time=%s host=%s snapshots=%zu changes-since=%s%s", when,
		    snaps[nsnaps - 1].host, nsnaps, before, since_first ? " against=first" : "");
		if (last_interval)
			printf(" last-interval=%" PRIu64 ".%03us", last_interval / 1000000000,
			    (unsigned)(last_interval % 1000000000 / 1000000));
		putchar('\n');
	} else {
		printf("#mt-pooldiff time=%s host=%s snapshots=1\n", when, snaps[nsnaps - 1].host);
	}
	if (format == FORMAT_TSV) {
		printf("tag\ttype\tallocs\tallocs_change\tfrees\tfrees_change\tdiff\t"
		    "diff_change\tbytes\tbytes_change\tper_alloc\n");
	} else {
		tb = table_new(NCOLS);
		table_column(tb, COL_TAG, 1, 0, TAG_MIN);
		table_column(tb, COL_TYPE, 1, 1, TYPE_MIN);
		for (c = 0; c < NCOUNTERS; c++) {
			table_column(tb, COL_COUNTERS + 2 * c, 0, 2, 0);
			table_column(tb, COL_COUNTERS + 2 * c + 1, 1, 1, 0);
		}
		table_column(tb, COL_PER_ALLOC, 0, 2, 0);
		table_row(tb, head);
	}
	for (i = 0; i < n; i++) {
		for (c = 0; c < NCOUNTERS; c++) {
			v[c] = value(shown[i], c);
			d[c] = change(shown[i], c);
			have[c] |= v[c] != NONE_W;
			if (v[c] != NONE_W)
				tv[c] = (tv[c] == NONE_W ? 0 : tv[c]) + v[c];
			if (d[c] != NONE_W)
				td[c] = (td[c] == NONE_W ? 0 : td[c]) + d[c];
		}
		row_cells(tb, shown[i]->name, shown[i]->type, v, d);
	}
	if (totals)
		row_cells(tb, "TOTAL", "-", tv, td);
	if (tb) {
		/* A counter no row has (a /proc source's Allocs and Frees): not shown. */
		for (c = 0; c < NCOUNTERS && n; c++)
			if (!have[c]) {
				table_hide(tb, COL_COUNTERS + 2 * c);
				table_hide(tb, COL_COUNTERS + 2 * c + 1);
			}
		if (n && (!have[C_DIFF] || !have[C_BYTES]))
			table_hide(tb, COL_PER_ALLOC);
		table_print(tb, stdout, TABLE_WIDTH);
	}
	free(shown);
	say_saturated();
}

struct verdict {
	struct tag *t;
	long grew;
	int64_t first, last;
	double per_hour;
};

static int
by_rate(const void *a, const void *b)
{
	const struct verdict *x = a, *y = b;

	if (x->per_hour != y->per_hour)
		return x->per_hour < y->per_hour ? 1 : -1;
	return strcmp(x->t->name, y->t->name);
}

static int
print_growth(int live_pass)
{
	/* A short last interval is not judged: its growth is not comparable. */
	size_t last = nsnaps - 1 - (partial_last && nsnaps > 2);
	size_t avail = last, n, k, first, i, j, nv = 0, considered = 0;
	struct verdict *v = emalloc((ntags ? ntags : 1) * sizeof(*v));
	static const char *const vhead[7] = { "#Tag", "Type", "Grew", "FirstBytes", "LastBytes",
		"Growth", "PerHour" };
	char a[64], z[64], when[64];
	double hours;
	int64_t b0, b1;
	struct mt_table *tb = NULL;

	n = grow_n < 0 ? avail : (size_t)grow_n;
	k = grow_k < 0 ? n : (size_t)grow_k;
	if (n > avail && live_pass) {
		free(v);
		return 0;	/* not yet N intervals */
	}
	if (n > avail) {
		fprintf(stderr, "%s: %zu intervals asked for, the input has %zu\n", mt_progname,
		    n, avail);
		n = avail;
		if (k > n) {
			free(v);
			return 2;
		}
	}
	first = last - n;
	hours = (double)(snaps[last].t - snaps[first].t) / 3600e9;
	for (i = 0; i < ntags; i++) {
		struct tag *t = tags[i];
		long grew = 0;
		if (!selected(t))
			continue;
		considered++;
		for (j = first + 1; j <= last; j++)
			grew += bytes_at(t, j) > bytes_at(t, j - 1);
		b0 = bytes_at(t, first);
		b1 = bytes_at(t, last);
		if ((size_t)grew >= k && b1 > b0)
			v[nv++] = (struct verdict){ t, grew, b0, b1,
				hours > 0 ? ((double)b1 - (double)b0) / hours : 0 };
	}
	if (live_pass && !nv) {
		free(v);
		return 0;	/* said only when a tag grows */
	}
	qsort(v, nv, sizeof(*v), by_rate);
	time_label(snaps[first].t, a, sizeof(a));
	time_label(snaps[last].t, z, sizeof(z));
	printf("#mt-pooldiff growth: %zu of %zu tags grew in at least %zu of the last %zu "
	    "intervals, %s to %s", nv, considered, k, n, a, z);
	if (since_first) {
		time_label(snaps[0].t, when, sizeof(when));
		printf(" changes-since=%s against=first", when);
	}
	putchar('\n');
	/* Its rows as the table's: raw bytes, for awk; the tag and type
	   columns giving way. */
	if (nv) {
		tb = table_new(7);
		table_column(tb, 0, 1, 0, TAG_MIN);
		table_column(tb, 1, 1, 1, TYPE_MIN);
		for (i = 2; i < 7; i++)
			table_column(tb, i, 0, 2, 0);
		table_row(tb, vhead);
	}
	for (i = 0; i < nv; i++) {
		char grew[32], shown[4096], rate[32], fb[32], lb[32], gr[32];
		const char *cells[7];
		snprintf(grew, sizeof(grew), "%ld/%zu", v[i].grew, n);
		/* One field for awk: "+1.5MiB", no blank; the rate of snapshots a
		   nanosecond apart can be past 2^63 bytes an hour. */
		sat_human(v[i].per_hour >= 0x1p63 ? (mt_wide)SAT_MAX + 1 : (mt_wide)v[i].per_hour,
		    &sat[SAT_PER_HOUR].hit, rate + 1, sizeof(rate) - 1);
		rate[0] = '+';
		if (strchr(rate, ' '))
			memmove(strchr(rate, ' '), strchr(rate, ' ') + 1, strlen(strchr(rate, ' ')));
		snprintf(fb, sizeof(fb), "%" PRId64, v[i].first);
		snprintf(lb, sizeof(lb), "%" PRId64, v[i].last);
		snprintf(gr, sizeof(gr), "%+" PRId64,
		    sat_sub(v[i].last, v[i].first, &sat[SAT_GROWTH].hit));
		cells[0] = tag_show(v[i].t->name, shown, sizeof(shown));
		cells[1] = v[i].t->type;
		cells[2] = grew;
		cells[3] = fb;
		cells[4] = lb;
		cells[5] = gr;
		cells[6] = v[i].per_hour < 0 || rate[1] == '>' ? rate + 1 : rate;
		table_row(tb, cells);
	}
	if (nv)
		table_print(tb, stdout, TABLE_WIDTH);
	for (i = 0; i < nv; i++) {
		sat[C_BYTES].hit |= v[i].t->clamped;
		printf("\n#evidence %s %s\n", v[i].t->name, v[i].t->type);
		for (j = first; j <= last; j++) {
			time_label(snaps[j].t, when, sizeof(when));
			b1 = bytes_at(v[i].t, j);
			if (j == first && (!since_first || j == 0))
				printf("%-24s %14" PRId64 "\n", when, b1);
			else
				printf("%-24s %14" PRId64 " (%+" PRId64 ")\n", when, b1,
				    sat_sub(b1, bytes_at(v[i].t, since_first ? 0 : j - 1),
				    &sat[SAT_GROWTH].hit));
		}
	}
	free(v);
	say_saturated();
	return nv > 0;
}

static void
add_pattern(char ***list, size_t *n, const char *s)
{
	*list = erealloc(*list, (*n + 1) * sizeof(**list));
	(*list)[(*n)++] = estrdup(s);
}

static int
parse_kn(const char *s)
{
	char *end;

	grow_k = strtol(s, &end, 10);
	if (end == s || *end != '/' || grow_k < 1)
		return -1;
	s = end + 1;
	grow_n = strtol(s, &end, 10);
	if (end == s || *end || grow_n < grow_k)
		return -1;
	return 0;
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "snapshot", no_argument, NULL, 'S' },
		{ "proc", required_argument, NULL, 'P' },
		{ "time", required_argument, NULL, 'T' },
		{ "interval", required_argument, NULL, 'i' },
		{ "tag", required_argument, NULL, 'k' },
		{ "skip", required_argument, NULL, 'A' },
		{ "sort", required_argument, NULL, 's' },
		{ "by-change", no_argument, NULL, 'd' },
		{ "include", required_argument, NULL, 'm' },
		{ "exclude", required_argument, NULL, 'x' },
		{ "regex", no_argument, NULL, 'E' },
		{ "totals", no_argument, NULL, 'a' },
		{ "growth", optional_argument, NULL, 'g' },
		{ "live", no_argument, NULL, 'L' },
		{ "since-first", no_argument, NULL, 'R' },
		{ "format", required_argument, NULL, 'F' },
		{ "suppress", required_argument, NULL, 'U' },
		{ "no-suppress", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	static const char *const sort_names[] = { "allocs", "frees", "diff", "bytes", "per-alloc" };
	int ch, i, snap = 0, status = 0, nsort, grew = 0;
	char **sources = NULL;
	size_t nsources = 0, k;
	char *s, *w, *save;

	mt_setprogname(argv[0]);
	suppress = suppress_new();
	while ((ch = getopt_long(argc, argv, "SP:T:i:I:k:t:A:s:dcm:x:EaF:g::hV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'S':
			snap = 1;
			break;
		case 'P':
			proc_dir = optarg;
			break;
		case 'T':
			if (parse_time(optarg, &snapshot_time) < 0) {
				fprintf(stderr, "%s: bad time '%s' (2026-11-22T01:10:00Z or @EPOCH)\n",
				    mt_progname, mt_shown(mt_shown(optarg, strlen(optarg)), strlen(optarg)));
				return 2;
			}
			break;
		case 'i':
		case 'I':
			interval = eduration("--interval", optarg, 0);
			break;
		case 'k':
		case 't':
			if (!strcmp(optarg, "function"))
				tag_by = T_FUNCTION;
			else if (!strcmp(optarg, "heap"))
				tag_by = T_HEAP;
			else if (!strcmp(optarg, "module"))
				tag_by = T_MODULE;
			else if (!strcmp(optarg, "stack"))
				tag_by = T_STACK;
			else {
				fprintf(stderr, "%s: bad tag '%s' (function, heap, module, stack)\n",
				    mt_progname, mt_shown(mt_shown(optarg, strlen(optarg)), strlen(optarg)));
				return 2;
			}
			break;
		case 'A':
			skip_pattern = optarg;
			break;
		case 's':
			sort_key = SORT_TAG;
			if (strcmp(optarg, "tag")) {
				for (nsort = 0; nsort < 5 && strcmp(optarg, sort_names[nsort]); nsort++)
					;
				if (nsort == 5) {
					fprintf(stderr, "%s: bad sort key '%s' (tag, allocs, frees, diff, "
					    "bytes, per-alloc)\n", mt_progname, mt_shown(mt_shown(optarg, strlen(optarg)), strlen(optarg)));
					return 2;
				}
				sort_key = nsort;
			}
			break;
		case 'd':
		case 'c':
			by_change = 1;
			break;
		case 'L':
			live = 1;
			break;
		case 'R':
			since_first = 1;
			break;
		case 'F':
			if (!strcmp(optarg, "table"))
				format = FORMAT_TABLE;
			else if (!strcmp(optarg, "tsv"))
				format = FORMAT_TSV;
			else {
				fprintf(stderr, "%s: bad format '%s' (table, tsv)\n", mt_progname,
				    mt_shown(optarg, strlen(optarg)));
				return 2;
			}
			break;
		case 'U':
			if (suppress_read(suppress, optarg))
				return 2;
			break;
		case 'N':
			no_suppress = 1;
			break;
		case 'm':
			add_pattern(&includes, &nincludes, optarg);
			break;
		case 'x':
			add_pattern(&excludes, &nexcludes, optarg);
			break;
		case 'E':
			use_regex = 1;
			break;
		case 'a':
			totals = 1;
			break;
		case 'g':
			growth = 1;
			/* --growth K/N as well as --growth=K/N. */
			if (!optarg && optind < argc && strchr(argv[optind], '/') &&
			    strspn(argv[optind], "0123456789/") == strlen(argv[optind]))
				optarg = argv[optind++];
			if (optarg && parse_kn(optarg) < 0) {
				fprintf(stderr, "%s: bad growth '%s' (K/N: grew in K of the last N "
				    "intervals)\n", mt_progname, mt_shown(mt_shown(optarg, strlen(optarg)), strlen(optarg)));
				return 2;
			}
			break;
		case 'h':
			mt_usage(1, synopsis, options);
		case 'V':
			mt_version();
		default:
			mt_usage(0, synopsis, options);
		}
	}
	argc -= optind;
	argv += optind;
	if (live && !interval) {
		fprintf(stderr, "%s: --live needs --interval\n", mt_progname);
		return 2;
	}
	if (!snap && sort_key == SORT_UNSET)
		sort_key = C_BYTES;

	if (!snap && !reader_inputs(&argc, argv))
		return 2;
	if (snap) {
		for (i = 0; i < argc; i++) {
			s = estrdup(argv[i]);
			for (w = strtok_r(s, ",", &save); w; w = strtok_r(NULL, ",", &save))
				add_pattern(&sources, &nsources, w);
			free(s);
		}
		status = snapshot(sources, nsources);
		for (k = 0; k < nsources; k++)
			free(sources[k]);
		free(sources);
		return status;
	}
	if (use_regex) {
		include_re = emalloc((nincludes + 1) * sizeof(*include_re));
		exclude_re = emalloc((nexcludes + 1) * sizeof(*exclude_re));
		for (k = 0; k < nincludes; k++)
			include_re[k] = re_compile(includes[k]);
		for (k = 0; k < nexcludes; k++)
			exclude_re[k] = re_compile(excludes[k]);
	}
	dict = dict_new(skip_pattern);
	if (!no_suppress && suppress_builtin(suppress))
		return 2;
	pairer = pairer_new(pair_emit, NULL);
	if (argc == 0)
		status |= read_input(NULL);
	for (i = 0; i < argc; i++)
		status |= read_input(argv[i]);
	pairer_finish(pairer);
	if (saw_events && saw_log) {
		fprintf(stderr, "%s: both snapshot logs and events in the input\n", mt_progname);
		return 2;
	}
	if (saw_events) {
		if (!interval) {
			fprintf(stderr, "%s: events need --interval to make snapshots\n", mt_progname);
			return 2;
		}
		if (live)
			live_end();
		else
			snapshots_from_events();
	}
	if (!nsnaps) {
		fprintf(stderr, "%s: no snapshots in the input\n", mt_progname);
		return 2;
	}
	if (growth && nsnaps < 2) {
		fprintf(stderr, "%s: growth needs two snapshots, the input has one\n", mt_progname);
		return 2;
	}
	if (growth) {
		if ((grew = print_growth(0)) == 2)
			return 2;
	} else {
		print_table();
	}
	suppress_say(suppress, &sat[SAT_SUPPRESSED]);
	sat_say(&sat[SAT_SUPPRESSED]);
	if (mt_close_stdout() || trouble || mt_status || status)
		return 2;
	return grew;
}
