/*
 * mt-report: the summary a user reads first, or (--html) one page with
 * WPA's view: the graph, a time range chosen on it, the table and the
 * flame graph of that range.  One pass over events or life lines; the
 * stacks' names are made at the end, by mt-symbolize on the dictionary
 * alone when the input has none.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "mt.h"
#include "report.h"

static const char synopsis[] =
    "[-qB] [-n count] [--memory size] [-o page.html] [--json file] [-y dir] [-A regex] [--suppress file] [file]\n"
    "-o diff.html [options] old new";
static const char options[] =
    "Summarizes a trace (events or life lines, .mtr or text): its processes and\n"
    "heaps with their peaks, what leaked, what was live at the peaks, the biggest\n"
    "transient allocations, temporary allocations and the most calls; each part\n"
    "with the pipeline that shows it whole.  Or writes one HTML page of it.\n"
    "\n"
    "  -o, --html FILE      write the page (graph, time range, table, flame graph)\n"
    "      --json FILE      write the page's data alone (mt-report(1), DATA)\n"
    "  -n, --top N          rows a part of the summary (default 5)\n"
    "  -B, --bytes          sizes in bytes, not 1.5 MiB\n"
    "      --no-symbolize   stacks as addresses where the input has no sym lines\n"
    "  -y, --symbols DIR    for mt-symbolize: a symbol directory (repeatable)\n"
    "  -A, --skip REGEX     more functions to count as the allocation API (PCRE2),\n"
    "                       as mt-group's\n"
    "      --suppress FILE  more suppressions, as mt-group's (repeatable)\n"
    "      --no-suppress    none, not even the built-in ones\n"
    "      --memory SIZE    the live blocks' table at most SIZE (64M, 2G): past it\n"
    "                       they go to files in TMPDIR, and the input is read twice\n"
    "  -q, --quiet          nothing on standard error but what is wrong\n"
    "  -h, --help           this help\n"
    "  -V, --version        the version\n"
    "\n"
    "With no file, or -, standard input.  With two and -o, a page of the\n"
    "second's differences from the first.  Exit 0, or 1 when something was wrong.\n";

static struct report rep;
static struct mt_dict *volatile earlier;	/* the earlier run's names, of two (kept: reachable) */
static struct rep_names *names;	/* proc, map, stack, sym, #task lines */
static int life_seen;
static uint64_t lost;

/* The first header's start and host. */
static void
header(const struct mt_header *h)
{
	if (!rep.start_unix)
		rep.start_unix = h->start;
	if (!rep.host && h->host.len)
		rep.host = estrndup(h->host.s, h->host.len);
}

static void
life_of(const struct mt_event *ev, struct mt_life *l)
{
	memset(l, 0, sizeof(*l));
	l->ta = ev->flags & EV_TS_NONE ? REP_NONE : ev->ts;
	l->tf = ev->flags & EV_TS2_NONE ? REP_NONE : ev->ts2;
	l->pid = (int32_t)ev->pid;
	l->tid = ev->flags & EV_TID_NONE ? -1 : (int32_t)ev->tid;
	l->heap = ev->heap;
	l->addr = ev->addr;
	l->size = ev->flags & EV_SIZE_NONE ? REP_NONE : ev->size;
	l->stack = ev->flags & EV_STACK_NONE ? REP_NONE : ev->stack;
	l->fate = ev->s2.len == 4 && !memcmp(ev->s2.s, "exit", 4) ? "exit" :
	    ev->s2.len == 3 && !memcmp(ev->s2.s, "end", 3) ? "end" : NULL;
	l->temporary = !!(ev->flags & EV_TEMP);
}

/*
 * heaptrack's temporary allocation, to compare with its figure: a free
 * that is the malloc heap's next record after the allocation of a block
 * of the same size and stack in the same process.
 */
static struct {
	int armed, freeing;
	int64_t pid;
	uint64_t size, stack;
} ht;

static void
other(struct mt_reader *r, struct mt_event *ev, void *arg)
{
	struct mt_life l;

	ht.freeing = 0;
	switch (ev->type) {
	case MT_LIFE:
		if (!life_seen && rep.lifetimes)
			mt_note("%s: life lines after allocations: the peaks are "
			    "those of the life lines", reader_name(r));
		life_seen = rep.life_input = 1;
		life_of(ev, &l);
		report_life(&rep, &l);
		return;
	case MT_SYM:
	case MT_PROC:
	case MT_MAP:
	case MT_STACK:
		if (ev->type == MT_PROC) {
			report_proc(&rep, ev->pid);
			report_time(&rep, ev->ts);
		}
		names_add(names, ev);
		return;
	case MT_COMMENT:
		if (ev->header)
			header(ev->header);
		if (ev->header || (ev->s1.len > 6 && !memcmp(ev->s1.s, "#task\t", 6)))
			names_add(names, ev);
		return;
	case MT_EXIT:
		report_time(&rep, ev->ts);
		return;
	case MT_LOST:
		lost += ev->size;
		return;
	default:
		return;
	}
}

static void
on_alloc(const struct mt_event *ev, void *arg)
{
	rep.events++;
	report_alloc(&rep, ev);
	ht.freeing = 0;
	if (ev->heap.s != mt_heap_names[0].s)
		return;
	ht.armed = 1;
	ht.pid = ev->pid;
	ht.size = ev->flags & EV_SIZE_NONE ? REP_NONE : ev->size;
	ht.stack = ev->flags & EV_STACK_NONE ? REP_NONE : ev->stack;
}

static void
on_free(const struct mt_event *ev, void *arg)
{
	rep.events++;
	ht.freeing = 0;
	if (ev->heap.s != mt_heap_names[0].s)
		return;
	ht.freeing = ht.armed;
	ht.armed = 0;
}

static void
on_life(const struct mt_life *l, void *arg)
{
	if (ht.freeing && l->pid == ht.pid && l->size == ht.size && l->stack == ht.stack &&
	    !l->fate) {
		rep.ht_temp++;
		rep.ht_next = 1;
	}
	ht.freeing = 0;
	report_life(&rep, l);
}

/* The data alone (old NULL), or the page of it; of two runs' when old holds data. */
static int
write_file(const char *path, const struct mt_out *o, const struct mt_out *old)
{
	struct outfile of;

	if (outfile_open(&of, path))
		return 1;
	if (old)
		report_page_write(of.f, o->buf, o->len, old->buf, old->len);
	else
		fwrite(o->buf, 1, o->len, of.f);
	return outfile_close(&of) ? 1 : 0;
}

struct read_opts {
	int symbolize;
	char **symdirs;
	size_t nsymdirs;
	const char *skip;
	int quiet;
	uint64_t budget;
};

/* One input read into rep, its stacks named; the status, -1 when it cannot be opened (said). */
static int
read_input(const char *input, const struct read_opts *ro, int *have_syms)
{
	static const struct pair_hooks hooks = { .alloc = on_alloc, .free = on_free,
		.other = other };
	struct mt_pairer *p;
	struct mt_reader *r;
	struct stat st;
	char *path;
	int status;

	life_seen = 0;
	lost = 0;
	memset(&ht, 0, sizeof(ht));
	names = names_new(ro->symbolize, ro->symdirs, ro->nsymdirs, ro->skip,
	    strcmp(input, "-") && !stat(input, &st) && S_ISREG(st.st_mode) ? input : NULL);
	/* A file that cannot be read is said once, and no summary made. */
	if (strcmp(input, "-") && (!(r = reader_open(input)) || reader_close(r)))
		return -1;
	p = pairer_new(on_life, NULL);
	pairer_budget(p, ro->budget);
	path = estrdup(input);
	status = pairer_run_all(p, &path, 1, &hooks);
	free(path);
	pairer_say_spill(p, ro->quiet);
	ht.freeing = 0;
	pairer_finish(p);
	pairer_free_all(p);
	report_finish(&rep);
	*have_syms = names_had_syms(names);
	rep.dict = names_finish(names);
	if (!ro->quiet && lost)
		mt_note("%s: %" PRIu64 " events lost in recording: the figures miss them",
		    strcmp(input, "-") ? input : "<stdin>", lost);
	return status;
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "html", required_argument, NULL, 'o' },
		{ "json", required_argument, NULL, 'j' },
		{ "top", required_argument, NULL, 'n' },
		{ "no-symbolize", no_argument, NULL, 'S' },
		{ "symbols", required_argument, NULL, 'y' },
		{ "skip", required_argument, NULL, 'A' },
		{ "suppress", required_argument, NULL, 'P' },
		{ "no-suppress", no_argument, NULL, 'N' },
		{ "bytes", no_argument, NULL, 'B' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "memory", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const char *html = NULL, *json = NULL, *input, *skip = NULL;
	char **symdirs = NULL;
	size_t nsymdirs = 0, top = 5;
	int ch, status = 0, quiet = 0, symbolize = 1, no_suppress = 0, have_syms;
	uint64_t budget = 0;
	struct mt_out o, old = { 0 };
	struct mt_suppress *sup;
	struct read_opts ropt;
	int rst;

	mt_setprogname(argv[0]);
	report_init(&rep, 2000);
	rep.sup = suppress_new();
	while ((ch = getopt_long(argc, argv, "o:n:y:A:BqhV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'o':
			html = optarg;
			break;
		case 'j':
			json = optarg;
			break;
		case 'n':
			top = (size_t)estrtonum(optarg, 0, 100000, "--top count");
			break;
		case 'S':
			symbolize = 0;
			break;
		case 'y':
			symdirs = erealloc(symdirs, (nsymdirs + 2) * sizeof(*symdirs));
			symdirs[nsymdirs++] = "-y";
			symdirs[nsymdirs++] = optarg;
			break;
		case 'P':
			if (suppress_read(rep.sup, optarg))
				return 2;
			break;
		case 'N':
			no_suppress = 1;
			break;
		case 'A':
			skip = report_skip = optarg;
			break;
		case 'B':
			report_bytes = 1;
			break;
		case 'm':
			budget = esize("--memory", optarg);
			break;
		case 'q':
			quiet = 1;
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
	if (argc > 2 || (argc == 2 && !html)) {
		mt_note("one input at a time, or two with -o: a page of their differences");
		mt_usage(0, synopsis, options);
	}
	input = argc ? argv[0] : "-";
	if ((html && outfile_is_input(html, input)) || (json && outfile_is_input(json, input)))
		return 2;
	if (!no_suppress && suppress_builtin(rep.sup))
		return 2;
	if (no_suppress)
		suppress_none(rep.sup);
	sup = rep.sup;
	ropt = (struct read_opts){ symbolize, symdirs, nsymdirs, skip, quiet, budget };
	rep.no_cells = !html && !json;
	if (html || json)
		mt_keep_warnings(5);
	if (argc == 2) {
		/* Two runs: the old one's data first, beside the new one's. */
		if (json) {
			mt_note("two inputs make a page of their differences: -o, not --json");
			mt_usage(0, synopsis, options);
		}
		if (outfile_is_input(html, argv[1]))
			return 2;
		if ((rst = read_input(input, &ropt, &have_syms)) < 0)
			return 1;
		status |= rst;
		out_init(&old, -1, 1 << 20);
		report_json(&rep, strcmp(input, "-") ? input : "<stdin>", &old);
		earlier = rep.dict;	/* names are held until the end, as the later run's */
		report_free(&rep);
		report_init(&rep, 2000);
		rep.sup = sup;
		rep.no_cells = 0;
		input = argv[1];
	}
	if ((rst = read_input(input, &ropt, &have_syms)) < 0)
		return 1;
	status |= rst;
	if (html || json) {
		out_init(&o, -1, 1 << 20);
		report_json(&rep, strcmp(input, "-") ? input : "<stdin>", &o);
		if (json)
			status |= write_file(json, &o, NULL);
		if (html && write_file(html, &o, &old))
			status = 1;
		else if (!quiet && html)
			mt_note("%s: the page, %zu KiB of data", html, (o.len + old.len) / 1024);
		out_free(&o);
		out_free(&old);
	} else {
		status |= summary(stdout, &rep, argc ? input : NULL, have_syms, top);
	}
	report_free(&rep);
	status |= mt_close_stdout();
	return status | mt_status;
}
