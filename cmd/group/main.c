/*
 * mt-group: WPA's tables from life lines.  Groups lifetimes by the keys
 * asked for and sums Count, Size (the bytes allocated inside the window)
 * and Impacting Size; or draws their stacks as a tree with the sums at
 * every node; as an aligned table, TSV, JSON, folded stacks or a pprof
 * profile (lib/pprof/).
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "group.h"

static const char synopsis[] = "[-k keys] [-s impact|size|count] [-n count] [-T[=bottom-up]] [-D depth] [-M] "
    "[-F table|tsv|json|folded|pprof] [-w size|impact] [-A regex] [-q] [file ...]";
static const char options[] =
    "Groups life lines as WPA's table does: Count, Size, Impacting Size and Per Alloc\n"
    "a group, biggest first; or a tree of their stacks; or folded stacks for a\n"
    "flame graph.\n"
    "\n"
    "  -k, --by KEYS        the columns, in order, from process, pid, heap, type,\n"
    "                       class, function, stack, module, file, free-function,\n"
    "                       free-stack (the free's, from mt-record -F), task,\n"
    "                       line (the allocating frame's file:line), temporary,\n"
    "                       size-class (powers of two), order (of a kernel page\n"
    "                       block), commit-time, decommit-time (seconds)\n"
    "                       (default process,heap,type,function, in a kernel trace\n"
    "                       task,heap,type,function; -b is the old spelling)\n"
    "  -s, --sort KEY       impact (default), size or count\n"
    "  -n, --top N          only the N biggest groups (in a tree: children a node)\n"
    "  -T, --tree[=bottom-up]  the stacks as a tree under the --by keys (default\n"
    "                       process), callers first or callees first\n"
    "                       (-t is the old spelling)\n"
    "  -D, --depth N        the tree's stacks N frames deep at most\n"
    "  -M, --from-main      the runtime's start-up frames (above main, lang_start,\n"
    "                       Python's eval loop) as one, [start-up]\n"
    "      --diff OLD.tsv   the changes since an earlier run's --format tsv of the\n"
    "                       same keys: exit 0 when none, 1 when some (as diff)\n"
    "      --histogram      by size classes, powers of two, in their order (after\n"
    "                       the --by keys if given)\n"
    "      --suppress FILE  more suppressions: lifetimes never freed that are no leak\n"
    "                       of the program (repeatable; share/mt-suppress says how)\n"
    "      --no-suppress    none, not even the built-in ones\n"
    "      --shorten        C++ template arguments shown as <> (default in the table)\n"
    "      --no-shorten     names as they are, in the table too\n"
    "  -F, --format FORMAT  table (default), tsv, json, folded (flame-graph input),\n"
    "                       or pprof (gzipped profile.proto, for go tool pprof)\n"
    "                       (-f is the old spelling)\n"
    "  -w, --weight WHAT    folded stacks weighed by size (default) or impact\n"
    "  -A, --skip REGEX     more functions to count as the allocation API (PCRE2)\n"
    "                       (-S is the old spelling)\n"
    "  -q, --quiet          no progress meter\n"
    "  -h, --help           this help\n"
    "  -V, --version        the version\n"
    "\n"
    "With no file, or -, standard input.  Exit 0, or 1 when something was wrong.\n";
struct mt_dict *dict;
struct mt_pprof *pprof;

static void
parse_options(struct group_opts *o, int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "by", required_argument, NULL, 'k' },
		{ "sort", required_argument, NULL, 's' },
		{ "top", required_argument, NULL, 'n' },
		{ "tree", optional_argument, NULL, 'T' },
		{ "depth", required_argument, NULL, 'D' },
		{ "from-main", no_argument, NULL, 'M' },
		/* Long only: their letters are not in the short options. */
		{ "shorten", no_argument, NULL, 'C' },
		{ "diff", required_argument, NULL, 'E' },
		{ "histogram", no_argument, NULL, 'H' },
		{ "suppress", required_argument, NULL, 'P' },
		{ "no-suppress", no_argument, NULL, 'N' },
		{ "no-shorten", no_argument, NULL, 'L' },
		{ "format", required_argument, NULL, 'F' },
		{ "weight", required_argument, NULL, 'w' },
		{ "skip", required_argument, NULL, 'A' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	static const char *const sorts[] = { "impact", "size", "count", NULL };
	static const char *const formats[] = { "table", "tsv", "json", "folded", "pprof", NULL };
	static const char *const trees[] = { "top-down", "bottom-up", NULL };
	static const char *const weights[] = { "size", "impact", NULL };
	int ch;

	while ((ch = getopt_long(argc, argv, "k:b:s:n:T::tD:MF:f:w:A:S:qhV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'k':
		case 'b':
			parse_keys(o, optarg);
			o->by_given = 1;
			break;
		case 'C':
			o->shorten = 1;
			break;
		case 'M':
			o->from_main = 1;
			break;
		case 'E':
			o->diff_path = optarg;
			break;
		case 'H':
			o->histogram = 1;
			break;
		case 'P':
			if (suppress_read(o->suppress, optarg))
				exit(2);
			break;
		case 'N':
			o->no_suppress = 1;
			break;
		case 'L':
			o->shorten = 0;
			break;
		case 'D':
			o->max_depth = estrtonum(optarg, 0, LLONG_MAX, "depth");
			break;
		case 's':
			o->sort_by = (enum sort)echoice("sort key", optarg, sorts, "impact, size, count");
			break;
		case 'n':
			o->top = estrtonum(optarg, 0, LLONG_MAX, "count");
			break;
		case 'T':
		case 't':
			o->tree = 1;
			if (optarg && *optarg == '=')	/* -T=bottom-up as --tree= */
				optarg++;
			if (optarg && echoice("tree", optarg, trees, "top-down, bottom-up"))
				o->bottom_up = 1;
			break;
		case 'F':
		case 'f':
			o->format = (enum format)echoice("format", optarg, formats,
			    "table, tsv, json, folded, pprof");
			break;
		case 'w':
			if (echoice("weight", optarg, weights, "size, impact"))
				o->weight_impact = 1;
			break;
		case 'A':
		case 'S':
			o->skip_pattern = optarg;
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

/* --histogram and --tree: the keys they ask for; the options they refuse. */
static void
check_options(struct group_opts *o)
{
	size_t k;

	if (o->histogram) {
		/* The size classes under the keys asked for, in their order. */
		if (!o->by_given)
			o->nkeys = 0;
		for (k = 0; k < o->nkeys && o->keys[k] != K_SIZE_CLASS; k++)
			;
		if (k == o->nkeys)
			o->keys[o->nkeys++] = K_SIZE_CLASS;
		o->uncached = 1;
		o->sort_by = S_KEY;
		if (o->tree || o->format == F_FOLDED || o->format == F_PPROF)
			mt_errx(2, "--histogram is a table: not with --tree, folded stacks or pprof");
	}
	if (o->tree) {
		/* The keys are the tree's levels, the stacks under the last. */
		if (!o->by_given)
			parse_keys(o, "process");
		for (k = 0; k < o->nkeys; k++)
			if (o->keys[k] == K_STACK && k + 1 < o->nkeys)
				mt_errx(2, "with --tree, stack is the last key (the stacks are "
				    "drawn under the others)");
		/* function,line: one level, the function with its line */
		for (k = 0; k + 1 < o->nkeys; k++)
			if (o->keys[k] == K_FUNCTION && o->keys[k + 1] == K_LINE)
				memmove(o->keys + k, o->keys + k + 1, (--o->nkeys - k) * sizeof(*o->keys));
		for (k = 0; k < o->nkeys; k++)
			o->with_lines |= o->keys[k] == K_LINE;
		o->nlevels = o->nkeys && o->keys[o->nkeys - 1] == K_STACK ? o->nkeys - 1 : o->nkeys;
		if (o->diff_path)
			mt_errx(2, "--diff compares tables: not with --tree");
		if (o->format == F_FOLDED || o->format == F_PPROF)
			mt_errx(2, "--tree and --format %s: %s a tree already; choose one",
			    o->format == F_FOLDED ? "folded" : "pprof",
			    o->format == F_FOLDED ? "folded stacks are" : "a profile is");
	} else if (o->diff_path && (o->format == F_FOLDED || o->format == F_PPROF)) {
		mt_errx(2, "--diff compares tables: not %s",
		    o->format == F_FOLDED ? "folded stacks" : "pprof profiles");
	} else if (o->max_depth >= 0) {
		mt_errx(2, "--depth is the tree's (--tree)");
	}
	/* gzip(1)'s rule: compressed bytes are not for a terminal. */
	if (o->format == F_PPROF && isatty(STDOUT_FILENO))
		mt_errx(2, "a pprof profile is binary: not written to a terminal (> file.pb.gz)");
}

/* --diff: as diff(1), 0 the same, 1 changed, 2 trouble. */
static int
diff(const struct group_opts *o, int status)
{
	int old = read_old(o, o->diff_path), changed;

	if (old == 2)
		return 2;
	changed = write_diff(o);
	suppress_say(o->suppress, &sat[SAT_SUPPRESSED]);
	say_saturated();
	return (mt_close_stdout() | status | mt_status | old) ? 2 : changed;
}

int
main(int argc, char *argv[])
{
	/* Static: what it holds is still reachable after main() returns (LSan). */
	static struct group_opts o = { .format = F_TABLE, .sort_by = S_IMPACT, .top = -1, .shorten = -1,
		.max_depth = -1 };
	int i, status = 0;

	mt_setprogname(argv[0]);
	o.suppress = suppress_new();
	parse_keys(&o, "process,heap,type,function");
	parse_options(&o, argc, argv);
	argc -= optind;
	argv += optind;
	check_options(&o);
	if (!reader_inputs(&argc, argv))
		return 1;
	dict = dict_new(o.skip_pattern);
	if (o.format == F_PPROF)
		pprof = pprof_new(dict);
	tree_names();
	if (!o.no_suppress && suppress_builtin(o.suppress))
		return 2;
	if (o.no_suppress)
		suppress_none(o.suppress);
	if (argc == 0)
		status |= group_file(&o, NULL);
	for (i = 0; i < argc; i++)
		status |= group_file(&o, argv[i]);
	if (!nlife && nraw)
		mt_errx(1, "no life records: run mt-lifetime first");
	if (o.diff_path)
		return diff(&o, status);
	if (o.tree) {
		write_tree(&o);
	} else if (pprof) {
		status |= pprof_write(pprof, stdout, &sat[SAT_PPROF]);
		pprof_free(pprof);
		pprof = NULL;
	} else if (o.format == F_FOLDED)
		write_folded(&o);
	else
		write_groups(&o);
	suppress_say(o.suppress, &sat[SAT_SUPPRESSED]);
	say_saturated();
	return (mt_close_stdout() | status | mt_status) ? 1 : 0;
}
