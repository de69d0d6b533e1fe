/*
 * mt-symbolize: passes an event stream through unchanged and, before the
 * first stack line that needs them, writes sym lines for each distinct
 * address: function, file:line and module, every inlined frame a line of
 * its own, innermost first.  It works offline, from the recorded maps and
 * build-ids alone; elfutils' libdwfl finds the debug information beside
 * the binary, through .gnu_debuglink, in /usr/lib/debug (also by
 * build-id) and in every -s directory.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mt.h"
#include "symbolize.h"

static const char synopsis[] = "[-bCIq] [-y dir] [file ...]";
static const char options[] =
    "Adds a sym line (function, file:line, module) for every address of the stack\n"
    "lines of an event stream, before the first stack that needs it.\n"
    "\n"
    "  -y, --symbols DIR  a symbol directory, searched by file name and build-id\n"
    "                     (repeatable; -s is the old spelling)\n"
    "  -I, --no-inline    one frame an address: no sym lines for inlined calls\n"
    "  -C, --no-demangle  C++ and Rust names as they are in the binary\n"
    "      --offline      files alone: no debuginfod server asked\n"
    "  -b, --binary       write a .mtr stream for the next filter, not text\n"
    "  -q, --quiet        no progress meter\n"
    "  -h, --help         this help\n"
    "  -V, --version      the version\n"
    "\n"
    "With no file, or -, standard input.  Exit 0, or 1 when something was wrong.\n";

struct maptab {
	struct mapping *v;
	size_t n, cap;
};
/* The maps read so far; and, once a stack came before the map of one of
   its addresses, every map of the file, read ahead. */
static struct maptab maps, ahead;
static int read_ahead, ahead_file;
/*
 * Addresses no map held when their stack came: resolved by a later map
 * as it comes (standard input), or named ?? at the end.  The first one
 * and where, for the message.
 */
static struct u64map pending;
static uint64_t npending, first_pending, first_pending_line, early;
static uint64_t early_ip, early_at;
static struct mt_out out;	/* text */
static struct trace_writer *bout;	/* -b: a .mtr stream */
static int passing;	/* -b: the input's frames passed on as they are */

/* Addresses already written. */
static struct u64map done;

static int
done_add(uint64_t ip)
{
	void **v = u64map_get(&done, ip, 1);

	if (*v)
		return 0;
	*v = &done;	/* any pointer: seen */
	return 1;
}

/* The newest mapping of maps[0, n) that holds ip: a later process may
   reuse a range. */
static const struct mapping *
find_map(const struct mapping *v, size_t n, uint64_t ip)
{
	while (n-- > 0)
		if (ip >= v[n].lo && ip <= v[n].hi)
			return &v[n];
	return NULL;
}

/* A sym line to the output: text, or a record of the .mtr stream. */
void
sym_line(const char *line, size_t len)
{
	if (bout)
		trace_write_text(bout, line, len - 1);
	else
		out_write(&out, line, len);
}

static void
add_map(struct maptab *t, const struct mt_event *ev)
{
	char path[4096], bid[256];
	struct mapping *m;

	if (ev->s2.len >= sizeof(path) || ev->s1.len >= sizeof(bid))
		return;
	memcpy(path, ev->s2.s, ev->s2.len);
	path[ev->s2.len] = '\0';
	memcpy(bid, ev->s1.s, ev->s1.len);
	bid[ev->s1.len] = '\0';
	t->v = egrow(t->v, t->n, &t->cap, sizeof(*t->v));
	m = &t->v[t->n++];
	m->lo = ev->addr;
	m->hi = ev->size;
	m->dso = dso_get(path, strcmp(bid, "-") && bid[0] ? bid : NULL, ev->stack,
	    ev->addr, &m->bias);
}

/* Every map of a file, for addresses whose stack came before their map. */
static void
read_maps_ahead(const char *path)
{
	struct mt_reader *r;
	struct mt_event ev;

	read_ahead = 1;
	if (!path || strcmp(path, "-") == 0 || !(r = reader_open(path)))
		return;
	ahead_file = 1;
	reader_quiet(r);
	while (reader_next(r, &ev))
		if (ev.type == MT_MAP)
			add_map(&ahead, &ev);
	reader_close(r);
}

/*
 * Where an address came before its map: its stack's line and place in
 * the stack, in one number to keep the first for the message.
 */
static uint64_t
place(struct mt_reader *r, size_t frame)
{
	return reader_lineno(r) << 11 | (frame & 1023) << 1 | 1;
}

static void
said_early(uint64_t at, uint64_t ip)
{
	if (early++ == 0 || at < early_at) {
		early_ip = ip;
		early_at = at;
	}
}

/* An address of a stack line; its sym lines written once, before it. */
static void
stack_address(struct mt_reader *r, const char *path, uint64_t ip, size_t frame)
{
	const struct mapping *mp;
	struct stat st;

	if (!done_add(ip))
		return;
	if ((mp = find_map(maps.v, maps.n, ip))) {
		resolve(ip, mp);
		return;
	}
	/* The format says a map comes first; where it came later, it is
	   taken, read ahead in a file. */
	if (!read_ahead && path && strcmp(path, "-") != 0 && stat(path, &st) == 0 &&
	    S_ISREG(st.st_mode))
		read_maps_ahead(path);
	for (size_t i = 0; i < ahead.n; i++)
		if (ip >= ahead.v[i].lo && ip <= ahead.v[i].hi) {
			said_early(place(r, frame), ip);
			resolve(ip, &ahead.v[i]);
			return;
		}
	if (npending++ == 0) {
		first_pending = ip;
		first_pending_line = reader_lineno(r);
	}
	/* A file's later maps are known: none holds it. */
	if (ahead_file)
		put_unmapped(ip);
	else	/* odd: never a pointer */
		*u64map_get(&pending, ip, 1) = (void *)(uintptr_t)place(r, frame);
}

/* A map that came after stacks it holds: their sym lines now. */
static int
is_pending(const void *value)
{
	return (uintptr_t)value & 1;
}

static void
map_pending(const struct mapping *m)
{
	size_t i;

	for (i = 0; i < pending.cap; i++) {
		uint64_t ip = pending.e[i].key;
		if (!is_pending(pending.e[i].value) || ip < m->lo || ip > m->hi)
			continue;
		said_early((uintptr_t)pending.e[i].value, ip);
		resolve(ip, m);
		pending.e[i].value = &done;	/* resolved; not emptied, which
						   would break the probe chain */
		npending--;
	}
}

static void
say_unresolved(const char *name)
{
	char tok[32];
	char what[128];
	size_t i;
	int n;

	if (early) {
		n = snprintf(tok, sizeof(tok), "0x%llx", (unsigned long long)early_ip);
		snprintf(what, sizeof(what),
		    "stack before the map of its address (%llu such, resolved by the later map)",
		    (unsigned long long)early);
		mt_warn_at(name, early_at >> 11, what, tok, (size_t)n);
	}
	if (npending == 0)
		return;
	for (i = 0; i < pending.cap; i++)
		if (is_pending(pending.e[i].value))
			put_unmapped(pending.e[i].key);
	n = snprintf(tok, sizeof(tok), "0x%llx", (unsigned long long)first_pending);
	snprintf(what, sizeof(what),
	    "address outside every map (%llu such, named by it, in [unknown])",
	    (unsigned long long)npending);
	mt_warn_at(name, first_pending_line, what, tok, (size_t)n);
}

/*
 * -b: a frame of the input read to its end, its sym records before it.
 * Damaged after some records, those are decoded again from its bytes
 * and written anew (the reader said the damage).
 */
static void
pass_frame(void *arg, const void *bytes, size_t len, int whole)
{
	uint8_t *buf;
	struct trace_reader *tr;
	struct mt_event ev;

	if (whole) {
		trace_write_frame(bout, bytes, len);
		return;
	}
	if (!bytes)
		return;
	buf = emalloc(MT_TRACE_HEADER_LEN + len);
	memcpy(buf, MT_TRACE_MAGIC, MT_TRACE_MAGIC_LEN);
	memset(buf + MT_TRACE_MAGIC_LEN, 0, MT_TRACE_HEADER_LEN - MT_TRACE_MAGIC_LEN);
	buf[MT_TRACE_MAGIC_LEN] = MT_TRACE_VERSION;
	memcpy(buf + MT_TRACE_HEADER_LEN, bytes, len);
	tr = trace_reader_new(-1, buf, MT_TRACE_HEADER_LEN + len);
	while (trace_read(tr, &ev) > 0)
		trace_write(bout, &ev);
	trace_reader_free(tr);
	free(buf);
}

/* The input could wait: what is written so far goes out. */
static void
flush_idle(void *arg)
{
	if (bout)
		trace_flush(bout);
	else
		out_flush(&out);
}

static int
symbolize(const char *path)
{
	struct mt_reader *r;
	struct trace_reader *tr;
	struct mt_event ev;
	size_t i, n;

	if (!(r = reader_open(path)))
		return 1;
	/* A trace of the version written here: its frames pass unchanged. */
	tr = reader_trace(r);
	passing = bout && tr && trace_reader_version(tr) == MT_TRACE_VERSION;
	if (passing)
		trace_reader_on_frame(tr, pass_frame, NULL);
	while (reader_next(r, &ev)) {
		n = maps.n;
		if (ev.type == MT_MAP)
			add_map(&maps, &ev);
		else if (ev.type == MT_SYM)
			done_add(ev.addr);	/* named already (kernel traces) */
		else if (ev.type == MT_STACK)
			for (i = 0; i < ev.nips; i++)
				stack_address(r, path, ev.ips[i], i);
		if (!bout)
			reader_write(r, &out);
		else if (!passing)
			trace_write(bout, &ev);
		if (maps.n > n && npending)
			map_pending(&maps.v[n]);
	}
	say_unresolved(reader_name(r));
	u64map_free(&pending, NULL);
	npending = early = 0;
	ahead.n = 0;
	read_ahead = ahead_file = 0;
	return reader_close(r);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "symbols", required_argument, NULL, 'y' },
		{ "no-inline", no_argument, NULL, 'I' },
		{ "no-demangle", no_argument, NULL, 'C' },
		{ "offline", no_argument, NULL, 'O' },
		{ "binary", no_argument, NULL, 'b' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct stat st;
	char *dir;
	size_t len;
	int ch, i, status = 0, binary = 0, error, offline = 0;

	mt_setprogname(argv[0]);
	while ((ch = getopt_long(argc, argv, "bCIqs:y:hV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'b':
			binary = 1;
			break;
		case 'y':
		case 's':
			/*
			 * Made absolute: elfutils takes a relative entry of
			 * its debug path from the binary's directory, and a
			 * relative -s found nothing, without a word.
			 */
			/* A file there was never looked in, without a word. */
			if ((dir = realpath(optarg, NULL)) && stat(dir, &st) == 0 &&
			    !S_ISDIR(st.st_mode)) {
				free(dir);
				dir = NULL;
				errno = ENOTDIR;
			}
			if (!dir) {
				mt_note("%s: %s", mt_shown(optarg, strlen(optarg)), strerror(errno));
				return 2;
			}
			symdirs = erealloc(symdirs, (nsymdirs + 1) * sizeof(*symdirs));
			symdirs[nsymdirs++] = dir;
			break;
		case 'I':
			no_inline = 1;
			break;
		case 'C':
			no_demangle = 1;
			break;
		case 'O':
			offline = 1;
			break;
		case 'q':
			progress_off();
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
	if (!reader_inputs(&argc, argv))
		return 1;
	/* --offline: files alone.  Else a server has DEBUGINFOD_TIMEOUT
	   seconds (5 unless said; libdebuginfod's own is 90) to answer, once
	   (its own retries each wait as long again). */
	if (offline)
		unsetenv("DEBUGINFOD_URLS");
	else if (getenv("DEBUGINFOD_TIMEOUT") && atoi(getenv("DEBUGINFOD_TIMEOUT")) > 0)
		debuginfod_timeout = atoi(getenv("DEBUGINFOD_TIMEOUT"));
	else
		setenv("DEBUGINFOD_TIMEOUT", "5", 1);
	if (!getenv("DEBUGINFOD_RETRY_LIMIT"))
		setenv("DEBUGINFOD_RETRY_LIMIT", "0", 1);

	/* Beside the binary, its .debug directory, /usr/lib/debug, then ours. */
	len = 64;
	for (i = 0; i < (int)nsymdirs; i++)
		len += strlen(symdirs[i]) + 1;
	debuginfo_path = emalloc(len);
	strcpy(debuginfo_path, "-:.debug:/usr/lib/debug");
	for (i = 0; i < (int)nsymdirs; i++) {
		strcat(debuginfo_path, ":");
		strcat(debuginfo_path, symdirs[i]);
	}
	if (binary && isatty(STDOUT_FILENO)) {
		mt_note("binary output to a terminal");
		return 2;
	}
	elf_version(EV_CURRENT);
	binary = binary || mt_stdout_to_mt();
	if (binary)
		bout = trace_writer_new(STDOUT_FILENO, MT_SINK_LEVEL);
	else
		out_init(&out, STDOUT_FILENO, 1 << 20);
	mt_set_idle(flush_idle, NULL);
	if (argc == 0)
		status |= symbolize(NULL);
	for (i = 0; i < argc; i++)
		status |= symbolize(argv[i]);
	if (bout) {
		error = trace_end(bout);
		trace_writer_free(bout);
		if (error)
			errno = error, mt_warn("stdout");
		status |= error != 0;
	} else {
		status |= out_finish(&out);
	}
	unnamed_say();
	for (i = 0; i < (int)nsymdirs; i++)
		free(symdirs[i]);
	free(symdirs);
	return status | mt_status;
}
