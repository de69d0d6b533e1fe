/*
 * mt-decode: a binary trace (.mtr) as the text event stream of
 * mt-events(5), or with --check only its validation.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mt.h"

static const char synopsis[] = "[-cq] [file ...]";
static const char options[] =
    "Writes binary traces (.mtr) or event text as the event text of mt-events(5).\n"
    "\n"
    "  -c, --check     only validate: decode everything, write nothing\n"
    "  -q, --quiet     no progress meter\n"
    "  -h, --help      this help\n"
    "  -V, --version   the version\n"
    "\n"
    "With no file, or -, standard input.  Exit 0, or 1 when something was wrong.\n";
static int decode(const char *path, struct mt_out *out, int check);

static int
decode(const char *path, struct mt_out *out, int check)
{
	struct mt_reader *r;
	struct mt_event ev;

	if (!(r = reader_open(path)))
		return 1;
	while (reader_next(r, &ev))
		if (!check)
			reader_write(r, out);
	return reader_close(r);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "check", no_argument, NULL, 'c' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct mt_out out;
	int ch, check = 0, status = 0, i;

	mt_setprogname(argv[0]);
	while ((ch = getopt_long(argc, argv, "cqhV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			check = 1;
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

	out_init(&out, STDOUT_FILENO, 1 << 20);
	mt_set_idle(out_flush_idle, &out);
	if (argc == 0)
		status |= decode(NULL, &out, check);
	for (i = 0; i < argc; i++)
		status |= decode(argv[i], &out, check);
	status |= out_finish(&out);
	return status | mt_status;
}
