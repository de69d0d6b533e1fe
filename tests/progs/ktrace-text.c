/*
 * The kernel trace parsers without tracefs: ktrace-text [-s] kallsyms <
 * trace_pipe.txt parses the text, ktrace-text [-s] -r dir kallsyms the
 * raw pages of dir/per_cpu/cpuN/trace_pipe_raw with the format files of
 * dir/events.  Writes the records as event text; -s: with kernel stacks.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mt.h"

static struct mt_out out;

static void
put(struct mt_event *ev, void *arg)
{
	size_t n = event_format_size(ev);

	out_commit(&out, event_format(ev, out_reserve(&out, n), n));
}

int
main(int argc, char *argv[])
{
	struct ktrace_opts o = { .events = KT_KMALLOC | KT_CACHE | KT_PAGE, .min_order = 1 };
	struct ktrace *k;
	const char *raw = NULL;
	char buf[4096];
	ssize_t n;
	int i = 1;

	mt_setprogname(argv[0]);
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-s"))
			o.stacks = 1;
		else if (!strcmp(argv[i], "-r") && i + 1 < argc)
			raw = argv[++i];
	}
	if (i >= argc) {
		fprintf(stderr, "usage: ktrace-text [-s] [-r dir] kallsyms [< trace_pipe.txt]\n");
		return 2;
	}
	out_init(&out, STDOUT_FILENO, 1 << 16);
	if (raw) {
		if (!(k = ktrace_raw_files(&o, argv[i], raw))) {
			fprintf(stderr, "ktrace-text: %s: not raw pages we can read\n", raw);
			return 2;
		}
	} else {
		k = ktrace_text(&o, argv[i]);
		/* Small reads: lines are cut across them, as from a pipe. */
		while ((n = read(STDIN_FILENO, buf, 1000)) > 0)
			ktrace_feed(k, buf, (size_t)n, put, NULL);
	}
	ktrace_close(k, put, NULL);
	ktrace_free(k);
	return out_finish(&out);
}
