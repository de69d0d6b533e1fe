/*
 * mt-lifetime: pairs each allocation with its free, per (pid, heap,
 * address), into life lines, written when a lifetime ends; the survivors
 * at the end of their process image or of the trace.  Every other line
 * passes through.  Memory holds the live allocations only.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mt.h"

static const char synopsis[] = "[-bq] [--memory size] [file ...]";
static const char options[] =
    "Pairs each allocation of an event stream with its free: a life line for each,\n"
    "written when it ends, and for the blocks alive at the end.\n"
    "\n"
    "  -b, --binary    write a .mtr stream for the next filter, not text\n"
    "      --memory SIZE  the live blocks' table at most SIZE (64M, 2G): past it\n"
    "                  they go to files in TMPDIR, and the input is read twice\n"
    "  -q, --quiet     no summary or progress meter on standard error\n"
    "  -h, --help      this help\n"
    "  -V, --version   the version\n"
    "\n"
    "With no file, or -, standard input.  Exit 0; 1 when something was wrong or a\n"
    "block was freed twice.\n";

static struct mt_sink out;

/*
 * One life line.  ta or size or stack of UINT64_MAX: '-'; tf of
 * UINT64_MAX: never freed.  fate: NULL, "exit" or "end" for survivors;
 * one that its process's exit or exec ended has the time of that end.
 */
static void
put_life(const struct mt_life *l, void *arg)
{
	int known = l->size != UINT64_MAX;
	unsigned cls;

	/* Over the whole trace: allocations made before it are AO, blocks
	   never freed FO (those of a process that ended too: outstanding
	   as long as it ran); the rest is AIFI.  Made before and never
	   freed (a mapping mt-record -p found): AOFO, the baseline. */
	cls = life_class(l->ta != UINT64_MAX, l->tf != UINT64_MAX && !l->fate);
	sink_life(&out, l, cls, life_class_impact(cls, l->size, known));
}

static void
pass(struct mt_reader *r, struct mt_event *ev, void *arg)
{
	sink_pass(&out, r, ev);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "binary", no_argument, NULL, 'b' },
		{ "memory", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	static const struct pair_hooks hooks = { .other = pass };
	int ch, status = 0, quiet = 0, binary = 0;
	uint64_t budget = 0;
	struct mt_pairer *p;
	const struct mt_pair_stats *st;

	mt_setprogname(argv[0]);
	while ((ch = getopt_long(argc, argv, "bqhV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'b':
			binary = 1;
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
	if (!reader_inputs(&argc, argv))
		return 1;

	if (binary && isatty(STDOUT_FILENO)) {
		mt_note("binary output to a terminal");
		return 2;
	}
	binary = binary || mt_stdout_to_mt();
	sink_init(&out, STDOUT_FILENO, binary);
	/*
	 * Pairing here, formatting text there: a second core halves it.  A
	 * .mtr stream is encoded here: handing a lifetime to the thread
	 * costs more than encoding it.
	 */
	if (!binary)
		(void)sink_thread(&out);
	p = pairer_new(put_life, NULL);
	pairer_budget(p, budget);
	status |= pairer_run_all(p, argv, argc, &hooks);
	pairer_say_spill(p, quiet);
	/* The survivors of images that had not ended when recording stopped. */
	pairer_finish(p);
	status |= sink_finish(&out);
	st = pairer_stats(p);
	if (!quiet)
		mt_note("%" PRIu64 " lifetimes; %" PRIu64 " survivors leaked at exit, %"
		    PRIu64 " alive at the end; %" PRIu64 " frees of blocks allocated before "
		    "recording; %" PRIu64 " double frees", st->lives, st->exit,
		    st->live, st->before, st->doubles);
	if (!quiet && st->unseen)
		mt_note("%" PRIu64 " blocks allocated again without a free seen, "
		    "ended at the new allocation", st->unseen);
	status |= mt_status | (st->doubles > 0);
	pairer_free_all(p);
	return status;
}
