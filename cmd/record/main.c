/*
 * mt-record: runs a command with libmt-preload.so injected and writes
 * what it allocated and freed, and every process it forked or executed,
 * as one .mtr trace in time order; or a process already running (-p), or
 * the kernel (-k).
 *
 * Each traced process image connects to us over a SOCK_SEQPACKET socket
 * and hands us, as file descriptors, its stack table and one ring a
 * thread (see lib/proto.h); lib/record/ reads and merges them.
 */

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mt.h"
#include "command.h"
#include "bpf/ualloc.h"

/* The unwinder unless --unwind says: its letter for the library. */
#define UNWIND_DEFAULT	's'
#define UNWIND_DEFAULT_NAME	"shadow"

static const char synopsis[] = "[-cFn] [-m size] [-o file] [-D depth] [--] command [arg ...]\n"
    "-p pid [-cFn] [-d duration] [-m size] [-o file] [-D depth]\n"
    "-k [-cS] [-d duration] [-e events] [-m size] [-O order] [-o file]";
static const char options[] =
    "Runs a command and records what it and its children allocate and free (the\n"
    "malloc family, anonymous mmap) with stacks; with -p, a process already\n"
    "running; with -k, the kernel's allocations.  Writes a .mtr trace for\n"
    "mt-decode(1) and the other filters.\n"
    "\n"
    "  -p, --pid PID         attach to a running process, until -d's time, a\n"
    "                        SIGINT or SIGTERM, or its end; then detach\n"
    "  -o, --output FILE     the trace (default mt.COMMAND.PID.mtr; - for stdout)\n"
    "  -D, --depth N         frames a stack at most, 0 to 1024 (default 64;\n"
    "                        -s is the old spelling)\n"
    "  -F, --free-stacks     a stack for every free too\n"
    "  -n, --no-follow       only the command, not the children it forks or execs\n"
    "      --unwind METHOD   how stacks are taken: libunwind, shadow (a shadow\n"
    "                        stack: only new frames walked), fp (frame pointers),\n"
    "                        check (shadow, each stack compared with libunwind's);\n"
    "                        default " UNWIND_DEFAULT_NAME ".  With -u: fp, or dwarf[:SIZE]\n"
    "                        (SIZE bytes of stack copied, 4K to 64K, default 8K,\n"
    "                        unwound by mt-record); default dwarf for a program\n"
    "                        built without frame pointers\n"
    "      --time-resolution TIME\n"
    "                        times rounded down to a multiple of TIME (default\n"
    "                        100ns; 1ns for exact ones)\n"
    "  -m, --max-size SIZE   keep the trace within SIZE (64K or more: 64K, 100MiB,\n"
    "                        1.5G): the oldest events, or with -c the newest\n"
    "  -c, --circular        with -m: drop the oldest events, keep the newest\n"
    "  -k, --kernel          record the kernel's allocations through tracefs (root)\n"
    "  -e, --events LIST     with -k: kmalloc, cache, page (default kmalloc,cache)\n"
    "  -O, --min-order N     with -k: page allocations of order N or more (default 1)\n"
    "  -S, --stacks          with -k: kernel stacks\n"
    "  -d, --duration TIME   with -k or -p: stop after TIME (as 30s, 500ms, 2m)\n"
    "  -u, --uprobes         record COMMAND through BPF uprobes, not LD_PRELOAD:\n"
    "                        static and set-user-ID programs too (root)\n"
    "  -a, --alloc-fn ALLOC[@N]:FREE[@N]\n"
    "                        with -u: a pool's own functions too, the size and\n"
    "                        the block in argument N (default 1); repeatable\n"
    "  -h, --help            this help\n"
    "  -V, --version         the version\n"
    "\n"
    "Exits with the command's status (128+N when signal N killed it); 127 when the\n"
    "command is not found, 126 when it cannot be run; 2 on trouble of its own\n"
    "(with -p: a process it may not or cannot attach to).\n";

static int parse_args(int argc, char *argv[], struct args *a, struct ktrace_opts *ko,
    int *kernel);

/* --unwind dwarf[:SIZE]: the copy's size, in whole pages, 4K to 64K. */
static int
parse_copy_size(const char *arg, struct args *a)
{
	uint64_t size = 8192;

	if (arg[5] == ':' && (parse_size(arg + 6, &size) < 0 || size < 4096 ||
	    size > UA_COPY_MAX)) {
		mt_bad("stack copy size", arg + 6, "4K to 64K");
		return -1;
	}
	a->uunwind = 'd';
	a->copy_size = (unsigned)((size + 4095) & ~(uint64_t)4095);
	return 0;
}

int
main(int argc, char *argv[])
{
	struct args a = { .opts = { .time_unit = TIME_UNIT_DEFAULT }, .depth = 64,
	    .uunwind = 'a', .copy_size = 8192 };
	struct ktrace_opts ko = { .min_order = 1 };
	char libpath[PATH_MAX];
	struct recorder *rc;
	int kernel = 0, status;
	char *lib, *path, why[PATH_MAX + 100];

	mt_setprogname(argv[0]);
	if (parse_args(argc, argv, &a, &ko, &kernel) != 0)
		return 2;
	argc -= optind;
	argv += optind;
	if (a.opts.circular && !a.opts.max_size)
		mt_errx(2, "--circular needs --max-size");
	if (kernel) {
		if (argc > 0)
			mt_errx(2, "--kernel records the kernel, not a command");
		if (a.opts.attach_pid)
			mt_errx(2, "--kernel records the kernel, not a process");
		a.opts.kernel = 1;
		rc = recorder_new(&a.opts);
		status = record_kernel(rc, a.output, &ko, a.duration);
		recorder_free(rc);
		return status;
	}
	if (a.opts.attach_pid && argc > 0)
		mt_errx(2, "-p attaches to a process: no command with it");
	if ((argc == 0 && !a.opts.attach_pid) || (a.duration && !a.opts.attach_pid) ||
	    ko.events || ko.stacks || ko.min_order != 1)
		mt_usage(0, synopsis, options);
	/* Where LD_PRELOAD is blind, uprobes record the command by themselves. */
	if (!a.uprobes && !a.opts.attach_pid && (path = find_command(argv[0]))) {
		if (preload_blind(path, why, sizeof(why))) {
			if (uprobes_possible()) {
				mt_note("%s: %s, which LD_PRELOAD cannot see into: recorded through "
				    "uprobes", argv[0], why);
				a.uprobes = 1;
				a.blind = why;
			} else {
				mt_note("%s: %s, which LD_PRELOAD cannot see into; as root, mt-record "
				    "records it through uprobes", argv[0], why);
			}
		}
		free(path);
	}
	if (a.uunwind == 'd' && !a.uprobes)
		mt_errx(2, "--unwind %s: stacks are copied only with --uprobes (-u)", a.unwind_named);
	if (a.uprobes && a.unwind_named && a.uunwind == 'a')
		mt_errx(2, "--unwind %s: not with --uprobes: fp, or dwarf[:SIZE]", a.unwind_named);
	if (a.uprobes) {
		rc = recorder_new(&a.opts);
		status = a.opts.attach_pid ? attach_uprobes(rc, a.opts.attach_pid, &a) :
		    record_uprobes(rc, argv, &a);
		recorder_free(rc);
		/* Each spec's copy: its ALLOC name is where it begins. */
		while (a.npools > 0)
			free(a.pools[--a.npools].alloc);
		return status;
	}
	if (!(lib = find_library()))
		mt_errx(2, "cannot find libmt-preload.so (set MT_PRELOAD)");
	/* Kept where no early return leaves it allocated. */
	snprintf(libpath, sizeof(libpath), "%s", lib);
	free(lib);
	rc = recorder_new(&a.opts);
	/*
	 * One place a flag, '-' when off: the same length whatever is asked
	 * (python copies its environment, and a string of 2 characters is
	 * an allocation where one of 1 is not: the counts of a program
	 * would depend on the options).
	 */
	a.flags[0] = a.opts.free_stacks ? 'f' : '-';
	a.flags[4] = recorder_clock_start(rc) ? 't' : '-';
	a.flags[5] = '\0';
	if (a.opts.attach_pid)
		status = attach(rc, a.opts.attach_pid, libpath, &a);
	else
		status = run_command(rc, argv, libpath, &a);
	recorder_free(rc);
	return status;
}

/* "NAME[@N]": the name, and the argument N (1 to 6, 1 when not given); -1 if bad. */
static int
pool_name(char *s, char **name)
{
	char *at = strchr(s, '@'), *end;
	long n = 1;

	if (at) {
		*at = '\0';
		n = strtol(at + 1, &end, 10);
		if (end == at + 1 || *end || n < 1 || n > 6)
			return -1;
	}
	if (!*s || strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.$") !=
	    strlen(s))
		return -1;
	*name = s;
	return (int)n;
}

/* --alloc-fn ALLOC[@N]:FREE[@N]: 0, or -1 said. */
static int
parse_pool(const char *arg, struct args *a)
{
	char *s = estrdup(arg), *colon = strchr(s, ':');
	struct pool_fn *f = &a->pools[a->npools];

	if (a->npools == MAX_POOLS) {
		mt_warnx("--alloc-fn: at most %d pools", MAX_POOLS);
		free(s);
		return -1;
	}
	if (!colon || (*colon = '\0', (f->alloc_arg = pool_name(s, &f->alloc)) < 0) ||
	    (f->free_arg = pool_name(colon + 1, &f->free)) < 0) {
		mt_warnx("--alloc-fn: '%s': not ALLOC[@N]:FREE[@N] (function names; N, the "
		    "argument holding the size or the block, 1 to 6)", arg);
		free(s);
		return -1;
	}
	a->npools++;
	return 0;
}

/* The options: 0, or 2 when one is bad (said). */
static int
parse_args(int argc, char *argv[], struct args *a, struct ktrace_opts *ko, int *kernel)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "depth", required_argument, NULL, 'D' },
		{ "free-stacks", no_argument, NULL, 'F' },
		{ "no-follow", no_argument, NULL, 'n' },
		{ "max-size", required_argument, NULL, 'm' },
		{ "circular", no_argument, NULL, 'c' },
		{ "kernel", no_argument, NULL, 'k' },
		{ "events", required_argument, NULL, 'e' },
		{ "min-order", required_argument, NULL, 'O' },
		{ "stacks", no_argument, NULL, 'S' },
		{ "duration", required_argument, NULL, 'd' },
		{ "unwind", required_argument, NULL, 'U' },
		{ "time-resolution", required_argument, NULL, 'T' },
		{ "uprobes", no_argument, NULL, 'u' },
		{ "alloc-fn", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	char unwind = UNWIND_DEFAULT, *end;
	int ch, no_follow = 0;
	long v;

	while ((ch = getopt_long(argc, argv, "+a:cd:D:e:FhkSm:nO:o:p:s:uV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'k':
			*kernel = 1;
			break;
		case 'u':
			a->uprobes = 1;
			break;
		case 'a':
			if (parse_pool(optarg, a) < 0)
				return 2;
			a->uprobes = 1;
			break;
		case 'e':
			if (parse_events(optarg, &ko->events) < 0) {
				mt_bad("events", optarg, "kmalloc, cache, page");
				return 2;
			}
			break;
		case 'O':
			ko->min_order = (int)estrtonum(optarg, 0, 20, "order");
			break;
		case 'S':
			ko->stacks = 1;
			break;
		case 'd':
			a->duration = eduration("--duration", optarg, 0);
			break;
		case 'm':
			if (parse_size(optarg, &a->opts.max_size) < 0 || a->opts.max_size < 65536) {
				mt_bad("size", optarg, "64K or more");
				return 2;
			}
			break;
		case 'c':
			a->opts.circular = 1;
			break;
		case 'o':
			a->output = optarg;
			break;
		case 'p':
			/* Its message says no range: "bad pid 'x'". */
			v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v <= 0 || v > INT_MAX) {
				mt_bad("pid", optarg, NULL);
				return 2;
			}
			a->opts.attach_pid = (pid_t)v;
			break;
		case 'D':
		case 's':
			a->depth = (int)estrtonum(optarg, 0, 1024, "depth");
			break;
		case 'F':
			a->opts.free_stacks = 1;
			break;
		case 'U':
			a->unwind_named = optarg;
			if (!strncmp(optarg, "dwarf", 5) && (!optarg[5] || optarg[5] == ':')) {
				if (parse_copy_size(optarg, a) < 0)
					return 2;
				break;
			}
			a->uunwind = 'a';
			if (!strcmp(optarg, "shadow") || !strcmp(optarg, "check"))
				unwind = 's';
			else if (!strcmp(optarg, "fp"))
				unwind = a->uunwind = 'p';
			else if (!strcmp(optarg, "libunwind"))
				unwind = 'l';
			else {
				mt_bad("unwinder", optarg, "libunwind, shadow, fp, check; with -u: fp, "
				    "dwarf[:SIZE]");
				return 2;
			}
			a->opts.unwind_check = !strcmp(optarg, "check");
			break;
		case 'T':
			a->opts.time_unit = eduration("--time-resolution", optarg, 0);
			if (a->opts.time_unit > 1000000000u) {
				mt_warnx("--time-resolution '%s' is more than 1s",
				    mt_shown(optarg, strlen(optarg)));
				return 2;
			}
			break;
		case 'n':
			no_follow = 1;
			break;
		case 'h':
			mt_usage(1, synopsis, options);
		case 'V':
			mt_version();
		default:
			mt_usage(0, synopsis, options);
		}
	}
	a->flags[1] = no_follow ? 'n' : '-';
	a->flags[2] = unwind != 'l' ? unwind : '-';
	a->flags[3] = a->opts.unwind_check ? 'c' : '-';
	return 0;
}
