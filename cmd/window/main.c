/*
 * mt-window: keeps the lifetimes active for part of a time window, with
 * their class and impact recomputed for it, and filters them by process,
 * heap and regular expressions on process names and stack frames (WPA's
 * "Filter to Selection").  With --series it writes instead the memory
 * outstanding at every step, per process and heap: the graph WPA draws.
 */
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "window.h"

static const char synopsis[] = "[-bq] [-f time] [-t time | -l time] [-p pid] [-H heap] "
    "[-N regex] [-m regex] [-x regex] [-i step | --at time|peak] [file]";
static const char options[] =
    "Keeps the life lines active in a time window, classed aifi, aifo, aofi or aofo\n"
    "with their impact on it (WPA's Impacting Size), or with -i the memory\n"
    "outstanding at every step.  Times are from the trace's start, with a unit:\n"
    "ns, us, ms, s, m, h (0 alone needs none).\n"
    "\n"
    "  -f, --from TIME      the window's start (default: the trace's start)\n"
    "  -t, --to TIME        its end (default: the trace's end)\n"
    "  -l, --last TIME      the last TIME of the trace\n"
    "  -p, --pid PID        only this process (repeatable)\n"
    "  -H, --heap HEAP      only this heap: malloc, mmap, reserve, ... (repeatable)\n"
    "  -N, --process REGEX  only processes whose name, as mt-group shows it, matches\n"
    "  -m, --match REGEX    only lifetimes whose executable's path or a stack frame\n"
    "                       (function, file:line or module) matches (PCRE2)\n"
    "  -x, --exclude REGEX  not those that --match would keep\n"
    "  -i, --series STEP    sample lines every STEP instead (-s is the old spelling)\n"
    "      --at TIME|peak   the lifetimes live at that instant: at TIME, or at the\n"
    "                       peak of each process and heap (its sample line first)\n"
    "  -b, --binary         write a .mtr stream for the next filter, not text\n"
    "  -q, --quiet          no progress meter\n"
    "  -h, --help           this help\n"
    "  -V, --version        the version\n"
    "\n"
    "With no file, or -, standard input.  Exit 0, or 1 when something was wrong.\n";
uint64_t t0, t1 = NONE;
uint64_t from_opt = NONE, to_opt = NONE, last_opt = NONE, step;
uint64_t at_opt = NONE;
int at_peak;
int64_t *pids;
size_t npids;
char **heaps;
size_t nheaps;
struct mt_regex *match_re, *exclude_re, *process_re;
int spool = -1;
struct mt_sink out;
uint64_t nlife, nraw;

static const char *step_arg;

/* A series is an array a sample: bounded, as a step of 1ns is easy to type. */
#define MAX_SAMPLES 10000000

/* The options; 1 for --binary. */
static int
parse_options(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "from", required_argument, NULL, 'f' },
		{ "to", required_argument, NULL, 't' },
		{ "last", required_argument, NULL, 'l' },
		{ "pid", required_argument, NULL, 'p' },
		{ "heap", required_argument, NULL, 'H' },
		{ "match", required_argument, NULL, 'm' },
		{ "process", required_argument, NULL, 'N' },
		{ "exclude", required_argument, NULL, 'x' },
		{ "series", required_argument, NULL, 'i' },
		{ "at", required_argument, NULL, 'a' },
		{ "binary", no_argument, NULL, 'b' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	size_t pidcap = 0, heapcap = 0;
	int ch, binary = 0;

	while ((ch = getopt_long(argc, argv, "bqf:t:l:p:H:N:m:x:i:s:hV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'a':
			if (!strcmp(optarg, "peak"))
				at_peak = 1;
			else
				at_opt = eduration("--at", optarg, 1);
			break;
		case 'b':
			binary = 1;
			break;
		case 'f':
			from_opt = eduration("--from", optarg, 1);
			break;
		case 't':
			to_opt = eduration("--to", optarg, 1);
			break;
		case 'l':
			last_opt = eduration("--last", optarg, 1);
			break;
		case 'i':
		case 's':
			step = eduration("--series", optarg, 0);
			step_arg = optarg;
			break;
		case 'p':
			pids = egrow(pids, npids, &pidcap, sizeof(*pids));
			pids[npids++] = estrtonum(optarg, 0, LLONG_MAX, "pid");
			break;
		case 'H':
			heaps = egrow(heaps, nheaps, &heapcap, sizeof(*heaps));
			heaps[nheaps++] = optarg;
			break;
		case 'm':
			match_re = re_compile(optarg);
			break;
		case 'N':
			process_re = re_compile(optarg);
			break;
		case 'x':
			exclude_re = re_compile(optarg);
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
	return binary;
}

/*
 * The window [t0, t1) from the options, the trace's end read first when
 * they need it (stdin spooled to be read twice); 1 when the input could
 * not be read, said.
 */
static int
window_bounds(const char *input)
{
	char tmpname[4096];
	const char *tmpdir = getenv("TMPDIR");
	uint64_t end = 0;
	int unread = 0, status;

	if (last_opt != NONE || to_opt == NONE) {
		if (!input || strcmp(input, "-") == 0) {
			snprintf(tmpname, sizeof(tmpname), "%s/mt-window.XXXXXX",
			    tmpdir && *tmpdir ? tmpdir : "/tmp");
			if ((spool = mkstemp(tmpname)) < 0)
				mt_err(2, "%s", tmpname);
			unlink(tmpname);
			if ((status = reader_spool(spool)))
				exit(status);
		}
		end = last_time(input, &unread);
		if (unread)	/* said once: the second pass would say it again */
			return 1;
	}
	if (last_opt != NONE) {
		t1 = end;
		t0 = end > last_opt ? end - last_opt : 0;
	} else {
		t0 = from_opt == NONE ? 0 : from_opt;
		t1 = to_opt == NONE ? (end > t0 ? end : t0 + 1) : to_opt;
	}
	if (t1 <= t0)
		mt_errx(2, "empty window: --to must come after --from");
	if (step && (t1 - t0 - 1) / step >= MAX_SAMPLES)
		mt_errx(2, "--series %s makes %" PRIu64 " samples a series, more than %d: a "
		    "longer step, or a shorter window", step_arg, (t1 - t0 - 1) / step + 1,
		    MAX_SAMPLES);
	return 0;
}

int
main(int argc, char *argv[])
{
	const char *input = NULL;
	int status = 0, binary;

	mt_setprogname(argv[0]);
	binary = parse_options(argc, argv);
	argc -= optind;
	argv += optind;
	if (argc > 1 || (last_opt != NONE && (from_opt != NONE || to_opt != NONE)))
		mt_usage(0, synopsis, options);
	if ((at_peak || at_opt != NONE) && (step || from_opt != NONE || to_opt != NONE ||
	    last_opt != NONE))
		mt_errx(2, "--at is an instant: not with --from, --to, --last or --series");
	if (at_opt != NONE)	/* the window from the trace's start to the instant */
		to_opt = at_opt + 1;
	if (!reader_inputs(&argc, argv))
		return 1;
	if (argc == 1)
		input = argv[0];
	if (window_bounds(input))
		return 1;
	if (binary && isatty(STDOUT_FILENO))
		mt_errx(2, "binary output to a terminal");
	sink_init(&out, STDOUT_FILENO, binary);
	if (at_peak) {
		/* A series with one step, the window (a power of 2, for buckets
		   that double): its changes give the peaks. */
		for (step = 1; step < t1 - t0 && step < (UINT64_C(1) << 62); step *= 2)
			;
		status |= window(input, 1);
		series_peaks();
		step = 0;
	}
	status |= window(input, 0);
	put_peaks();
	if (step && nlife)
		series_write(t1);
	status |= sink_finish(&out);
	if (!nlife && nraw)
		mt_errx(1, "no life records: run mt-lifetime first");
	say_times();
	sat_say(&sat_bytes);
	sat_say(&sat_count);
	return status | mt_status;
}
