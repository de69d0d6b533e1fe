/*
 * The kernel trace parser on trace_pipe text from standard input, with a
 * kallsyms file: ktrace-text [-s] kallsyms < trace_pipe.txt.  Writes the
 * records as event text; -s: the text has kernel stacks.
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
	char buf[4096];
	ssize_t n;
	int i = 1;

	mt_setprogname(argv[0]);
	if (argc > 1 && !strcmp(argv[1], "-s")) {
		o.stacks = 1;
		i++;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: ktrace-text [-s] kallsyms < trace_pipe.txt\n");
		return 2;
	}
	out_init(&out, STDOUT_FILENO, 1 << 16);
	k = ktrace_text(&o, argv[i]);
	/* Small reads: lines are cut across them, as from a pipe. */
	while ((n = read(STDIN_FILENO, buf, 1000)) > 0)
		ktrace_feed(k, buf, (size_t)n, put, NULL);
	ktrace_close(k, put, NULL);
	ktrace_free(k);
	return out_finish(&out);
}
