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
struct mt_sink out;
uint64_t nlife, nraw;

/* A series is an array a sample: bounded, as a step of 1ns is easy to type. */
#define MAX_SAMPLES 10000000

static void
parse_options(int argc, char *argv[], struct window_opts *o)
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
	int ch;

	*o = (struct window_opts){ .from = NONE, .to = NONE, .last = NONE, .at = NONE,
		.t1 = NONE };

	while ((ch = getopt_long(argc, argv, "bqf:t:l:p:H:N:m:x:i:s:hV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'a':
			if (!strcmp(optarg, "peak"))
				o->at_peak = 1;
			else
				o->at = eduration("--at", optarg, 1);
			break;
		case 'b':
			o->binary = 1;
			break;
		case 'f':
			o->from = eduration("--from", optarg, 1);
			break;
		case 't':
			o->to = eduration("--to", optarg, 1);
			break;
		case 'l':
			o->last = eduration("--last", optarg, 1);
			break;
		case 'i':
		case 's':
			o->step = eduration("--series", optarg, 0);
			o->step_arg = optarg;
			break;
		case 'p':
			o->pids = egrow(o->pids, o->npids, &pidcap, sizeof(*o->pids));
			o->pids[o->npids++] = estrtonum(optarg, 0, LLONG_MAX, "pid");
			break;
		case 'H':
			o->heaps = egrow(o->heaps, o->nheaps, &heapcap, sizeof(*o->heaps));
			o->heaps[o->nheaps++] = optarg;
			break;
		case 'm':
			o->match_re = re_compile(optarg);
			break;
		case 'N':
			o->process_re = re_compile(optarg);
			break;
		case 'x':
			o->exclude_re = re_compile(optarg);
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

/*
 * The window [t0, t1) from the options, the trace's end read first when
 * they need it (stdin spooled to *spool to be read twice); 1 when the
 * input could not be read, said.
 */
static int
window_bounds(struct window_opts *o, const char *input, int *spool)
{
	uint64_t end = 0;
	int unread = 0, status;

	if (o->last != NONE || o->to == NONE) {
		if ((!input || strcmp(input, "-") == 0) && (*spool = reader_spool_tmp(NULL, &status)) < 0)
			exit(status);
		end = last_time(input, *spool, &unread);
		if (unread)	/* said once: the second pass would say it again */
			return 1;
	}
	if (o->last != NONE) {
		o->t1 = end;
		o->t0 = end > o->last ? end - o->last : 0;
	} else {
		o->t0 = o->from == NONE ? 0 : o->from;
		o->t1 = o->to == NONE ? (end > o->t0 ? end : o->t0 + 1) : o->to;
	}
	if (o->t1 <= o->t0)
		mt_errx(2, "empty window: --to must come after --from");
	if (o->step && (o->t1 - o->t0 - 1) / o->step >= MAX_SAMPLES)
		mt_errx(2, "--series %s makes %" PRIu64 " samples a series, more than %d: a "
		    "longer step, or a shorter window", o->step_arg,
		    (o->t1 - o->t0 - 1) / o->step + 1, MAX_SAMPLES);
	return 0;
}

int
main(int argc, char *argv[])
{
	/* Static: what it holds is still reachable after main() returns (LSan). */
	static struct window_opts o;
	const char *input = NULL;
	int status = 0, spool = -1;

	mt_setprogname(argv[0]);
	parse_options(argc, argv, &o);
	argc -= optind;
	argv += optind;
	if (argc > 1 || (o.last != NONE && (o.from != NONE || o.to != NONE)))
		mt_usage(0, synopsis, options);
	if ((o.at_peak || o.at != NONE) && (o.step || o.from != NONE || o.to != NONE ||
	    o.last != NONE))
		mt_errx(2, "--at is an instant: not with --from, --to, --last or --series");
	if (o.at != NONE)	/* the window from the trace's start to the instant */
		o.to = o.at + 1;
	if (!reader_inputs(&argc, argv))
		return 1;
	if (argc == 1)
		input = argv[0];
	if (window_bounds(&o, input, &spool))
		return 1;
	if (o.binary && isatty(STDOUT_FILENO))
		mt_errx(2, "binary output to a terminal");
	o.binary = o.binary || mt_stdout_to_mt();
	sink_init(&out, STDOUT_FILENO, o.binary);
	if (o.at_peak) {
		/* A series with one step, the window (a power of 2, for buckets
		   that double): its changes give the peaks. */
		for (o.step = 1; o.step < o.t1 - o.t0 && o.step < (UINT64_C(1) << 62);
		    o.step *= 2)
			;
		status |= window(&o, input, spool, 1);
		if (series_peaks(&o)) {
			/* Read again where the buckets may hold a peak, until none may. */
			int again = 0;

			while (peak_choose(changes_kept() / 2)) {
				status |= window(&o, input, spool, 2);
				peak_settle();
				again++;
			}
			series_peaks_exact();
			peak_free();
			mt_note("more changes than the %" PRIu64 " kept: the peaks made exact in %d "
			    "more reading%s", first_kept(), again, again == 1 ? "" : "s");
		}
		o.step = 0;
	}
	status |= window(&o, input, spool, 0);
	put_peaks(&o);
	if (o.step && nlife)
		series_write(&o, o.t1);
	status |= sink_finish(&out);
	if (!nlife && nraw)
		mt_errx(1, "no life records: run mt-lifetime first");
	say_times(&o);
	sat_say(&sat_bytes);
	sat_say(&sat_count);
	return status | mt_status;
}
