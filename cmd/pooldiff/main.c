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
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pooldiff.h"

static const char synopsis[] = "-S [-P dir] [--time time] [source,...]\n"
    "[-ad] [-s key] [-F format] [-m pattern] [-x pattern] [-E] [-g [K/N]] [-i time] [-k key] "
    "[-A regex] [-q] [--since-first] [--suppress file] [file ...]";
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
    "  -q, --quiet          no progress meter\n"
    "  -h, --help           this help\n"
    "  -V, --version        the version\n"
    "\n"
    "With no file, or -, standard input.  Exit 0 when no tag grows, 1 when one\n"
    "does, 2 on trouble.\n";

static void
add_pattern(char ***list, size_t *n, const char *s)
{
	*list = erealloc(*list, (*n + 1) * sizeof(**list));
	(*list)[(*n)++] = estrdup(s);
}

static void
parse_options(struct pooldiff_opts *o, int argc, char *argv[])
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
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	/* The counters' order, then per-alloc (NCOUNTERS); tag apart. */
	static const char *const sorts[] = { "allocs", "frees", "diff", "bytes", "per-alloc",
		NULL };
	static const char *const tagbys[] = { "function", "heap", "module", "stack", NULL };
	static const char *const formats[] = { "table", "tsv", NULL };
	int ch;

	*o = (struct pooldiff_opts){ .proc_dir = "/proc", .snapshot_time = NONE,
		.tag_by = T_FUNCTION, .sort_key = SORT_UNSET, .grow_k = -1, .grow_n = -1,
		.format = FORMAT_TABLE, .suppress = suppress_new() };
	while ((ch = getopt_long(argc, argv, "SP:T:i:I:k:t:A:s:dcm:x:EaF:g::qhV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'S':
			o->snap = 1;
			break;
		case 'P':
			o->proc_dir = optarg;
			break;
		case 'T':
			if (parse_time(optarg, &o->snapshot_time) < 0) {
				mt_bad("time", optarg, "2026-11-22T01:10:00Z or @EPOCH");
				exit(2);
			}
			break;
		case 'i':
		case 'I':
			o->interval = eduration("--interval", optarg, 0);
			break;
		case 'k':
		case 't':
			o->tag_by = (enum tagby)echoice("tag", optarg, tagbys,
			    "function, heap, module, stack");
			break;
		case 'A':
			o->skip_pattern = optarg;
			break;
		case 's':
			o->sort_key = strcmp(optarg, "tag") ? echoice("sort key", optarg, sorts,
			    "tag, allocs, frees, diff, bytes, per-alloc") : SORT_TAG;
			break;
		case 'd':
		case 'c':
			o->by_change = 1;
			break;
		case 'L':
			o->live = 1;
			break;
		case 'R':
			o->since_first = 1;
			break;
		case 'F':
			o->format = echoice("format", optarg, formats, "table, tsv");
			break;
		case 'U':
			if (suppress_read(o->suppress, optarg))
				exit(2);
			break;
		case 'N':
			o->no_suppress = 1;
			break;
		case 'm':
			add_pattern(&o->includes, &o->nincludes, optarg);
			break;
		case 'x':
			add_pattern(&o->excludes, &o->nexcludes, optarg);
			break;
		case 'E':
			o->use_regex = 1;
			break;
		case 'a':
			o->totals = 1;
			break;
		case 'g':
			o->growth = 1;
			/* --growth K/N as well as --growth=K/N. */
			if (!optarg && optind < argc && strchr(argv[optind], '/') &&
			    strspn(argv[optind], "0123456789/") == strlen(argv[optind]))
				optarg = argv[optind++];
			if (optarg && parse_kn(optarg, &o->grow_k, &o->grow_n) < 0) {
				mt_bad("growth", optarg, "K/N: grew in K of the last N intervals");
				exit(2);
			}
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
}

/* --snapshot: the sources named, each argument a list of them. */
static int
snapshot_of(const struct pooldiff_opts *o, int argc, char *argv[])
{
	char **sources = NULL, *s, *w, *save;
	size_t nsources = 0, k;
	int i, status;

	for (i = 0; i < argc; i++) {
		s = estrdup(argv[i]);
		for (w = strtok_r(s, ",", &save); w; w = strtok_r(NULL, ",", &save))
			add_pattern(&sources, &nsources, w);
		free(s);
	}
	status = snapshot(o, sources, nsources);
	for (k = 0; k < nsources; k++)
		free(sources[k]);
	free(sources);
	return status;
}

/* The patterns of --include and --exclude, with --regex, compiled. */
static void
compile_patterns(struct pooldiff_opts *o)
{
	size_t k;

	if (!o->use_regex)
		return;
	o->include_re = emalloc((o->nincludes + 1) * sizeof(*o->include_re));
	o->exclude_re = emalloc((o->nexcludes + 1) * sizeof(*o->exclude_re));
	for (k = 0; k < o->nincludes; k++)
		o->include_re[k] = re_compile(o->includes[k]);
	for (k = 0; k < o->nexcludes; k++)
		o->exclude_re[k] = re_compile(o->excludes[k]);
}

int
main(int argc, char *argv[])
{
	/* Static: what it holds is still reachable after main() returns (LSan). */
	static struct pooldiff_opts o;
	int i, status = 0, grew = 0;

	mt_setprogname(argv[0]);
	parse_options(&o, argc, argv);
	argc -= optind;
	argv += optind;
	if (o.live && !o.interval)
		mt_errx(2, "--live needs --interval");
	if (!o.snap && o.sort_key == SORT_UNSET)
		o.sort_key = C_BYTES;
	if (!o.snap && !reader_inputs(&argc, argv))
		return 2;
	if (o.snap)
		return snapshot_of(&o, argc, argv);
	compile_patterns(&o);
	events_begin(&o);
	if (!o.no_suppress && suppress_builtin(o.suppress))
		return 2;
	if (argc == 0)
		status |= read_input(&o, NULL);
	for (i = 0; i < argc; i++)
		status |= read_input(&o, argv[i]);
	events_end();
	if (saw_events && saw_log)
		mt_errx(2, "both snapshot logs and events in the input");
	if (saw_events) {
		if (!o.interval)
			mt_errx(2, "events need --interval to make snapshots");
		if (o.live)
			live_end(&o);
		else
			snapshots_from_events(&o);
	}
	if (!nsnaps)
		mt_errx(2, "no snapshots in the input");
	if (o.growth && nsnaps < 2)
		mt_errx(2, "growth needs two snapshots, the input has one");
	if (o.growth) {
		if ((grew = print_growth(&o, 0)) == 2)
			return 2;
	} else {
		print_table(&o);
	}
	suppress_say(o.suppress, &sat[SAT_SUPPRESSED]);
	sat_say(&sat[SAT_SUPPRESSED]);
	if (mt_close_stdout() || trouble || mt_status || status)
		return 2;
	return grew;
}
