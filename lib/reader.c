/*
 * The one event reader: a path or standard input, holding either event
 * text or a .mtr trace (told apart by the magic), yields mt_event records.
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mt.h"

struct mt_reader {
	const char *name;
	int fd;
	int binary;
	int bad;
	int keep_bad;		/* lines that do not parse come back as unknown */
	struct mt_lines lines;
	struct mt_parser parser;
	struct trace_reader *trace;
	char *line;		/* text: the current line, split in place */
	size_t linelen;
	int restored;
	int said_crlf;		/* CRLF line ends: said once */
	int quiet;		/* a first pass: nothing said, the second says it */
	const struct mt_event *cur;	/* the caller's record, for a trace */
	uint64_t nrecord;	/* binary: the records read, the line mt-decode
				   writes the current one on */
	char *fmt;		/* binary: the current record formatted */
	size_t fmtcap;
};

int
reader_inputs(int *argc, char **argv)
{
	struct stat st;
	int i, n = 0, fd, had = *argc;

	for (i = 0; i < had; i++) {
		if (strcmp(argv[i], "-") != 0) {
			/* O_NONBLOCK: a FIFO is not waited for here. */
			if ((fd = open(argv[i], O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0) {
				fprintf(stderr, "%s: %s: %s\n", mt_progname, argv[i], strerror(errno));
				mt_status = 1;
				continue;
			}
			if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
				fprintf(stderr, "%s: %s: %s\n", mt_progname, argv[i], strerror(EISDIR));
				mt_status = 1;
				close(fd);
				continue;
			}
			close(fd);
		}
		argv[n++] = argv[i];
	}
	*argc = n;
	return had == 0 || n > 0;
}

struct mt_reader *
reader_open(const char *path)
{
	struct mt_reader *r;
	uint8_t magic[MT_TRACE_MAGIC_LEN];
	size_t got = 0;
	ssize_t n;
	int fd;

	if (!path || strcmp(path, "-") == 0) {
		fd = STDIN_FILENO;
		path = "<stdin>";
	} else if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		fprintf(stderr, "%s: %s: %s\n", mt_progname, path, strerror(errno));
		mt_status = 1;
		return NULL;
	}
	while (got < sizeof(magic)) {
		n = read(fd, magic + got, sizeof(magic) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "%s: %s: %s\n", mt_progname, path, strerror(errno));
			mt_status = 1;
			if (fd != STDIN_FILENO)
				close(fd);
			return NULL;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	/* Nothing at all is no trace: a recorder killed before its header. */
	if (got == 0) {
		fprintf(stderr, "%s: %s: empty: not an mt trace or event text\n", mt_progname,
		    path);
		mt_status = 1;
		if (fd != STDIN_FILENO)
			close(fd);
		return NULL;
	}
	/*
	 * Event text begins with a record name or '#'; a trace with 0x89
	 * (whatever follows: the trace reader judges the rest).
	 */
	if (got > 0 && magic[0] != 0x89 && magic[0] != '#' &&
	    !(magic[0] >= 'a' && magic[0] <= 'z')) {
		fprintf(stderr, "%s: %s: not an mt trace or event text (bad magic)\n",
		    mt_progname, path);
		mt_status = 1;
		if (fd != STDIN_FILENO)
			close(fd);
		return NULL;
	}
	r = ecalloc(1, sizeof(*r));
	r->name = path;
	r->fd = fd;
	if (got > 0 && magic[0] == 0x89) {
		r->binary = 1;
		r->trace = trace_reader_new(fd, magic, got);
	} else {
		lines_init(&r->lines, fd);
		memcpy(r->lines.buf, magic, got);
		r->lines.end = got;
		parser_init(&r->parser);
	}
	return r;
}

int
reader_next(struct mt_reader *r, struct mt_event *ev)
{
	int ret;

	if (r->binary) {
		r->restored = 0;
		ret = trace_read(r->trace, ev);
		while (ret == -2) {	/* a damaged frame skipped: the rest goes on */
			if (!r->quiet) {
				fflush(stdout);
				fprintf(stderr, "%s: %s: %s\n", mt_progname, r->name,
				    trace_reader_error(r->trace));
				mt_status = 1;
			}
			r->bad = 1;
			ret = trace_read(r->trace, ev);
		}
		if (ret < 0 && r->quiet) {
			r->bad = 1;
			return 0;
		}
		if (ret < 0) {
			fflush(stdout);
			fprintf(stderr, "%s: %s: %s\n", mt_progname, r->name,
			    trace_reader_error(r->trace));
			r->bad = 1;
			mt_status = 1;
			return 0;
		}
		r->cur = ev;
		r->nrecord += ret > 0;
		return ret;
	}
	for (;;) {
		r->line = lines_next(&r->lines, &r->linelen);
		if (!r->line) {
			if (r->lines.error) {
				fprintf(stderr, "%s: %s: %s\n", mt_progname, r->name,
				    strerror(r->lines.error));
				r->bad = 1;
				mt_status = 1;
			}
			return 0;
		}
		r->restored = 0;
		/* CRLF is read as LF, once said: a number before a '\r' was
		   refused, a string kept it. */
		if (r->linelen && r->line[r->linelen - 1] == '\r') {
			r->line[--r->linelen] = '\0';
			if (!r->said_crlf++ && !r->quiet)
				fprintf(stderr, "%s: %s:%" PRIu64 ": note: CRLF line ends read as LF\n",
				    mt_progname, r->name, r->lines.lineno);
		}
		/* A NUL cut every string at it, and freed a name still used. */
		if (memchr(r->line, '\0', r->linelen)) {
			if (!r->quiet)
				mt_warn_at(r->name, r->lines.lineno, "NUL byte in line", r->line,
				    strlen(r->line));
			r->bad = 1;
			continue;
		}
		if (event_parse(&r->parser, r->line, r->linelen, ev) == 0)
			return 1;
		if (r->keep_bad) {
			for (size_t i = 1; i < r->parser.nfield; i++)
				r->parser.field[i][-1] = '\t';
			r->parser.nfield = 0;
			event_clear(ev);
			ev->type = MT_UNKNOWN;
			ev->s1 = (struct mt_str){ r->line, r->linelen };
			return 1;
		}
		if (!r->quiet)
			mt_warn_at(r->name, r->lines.lineno, r->parser.what,
			    r->parser.tok, r->parser.toklen);
		r->bad = 1;
	}
}

void
reader_quiet(struct mt_reader *r)
{
	r->quiet = 1;
}

void
reader_keep_bad(struct mt_reader *r)
{
	r->keep_bad = 1;
}

static struct mt_str
reader_line(struct mt_reader *r)
{
	size_t i, n;

	if (r->binary) {
		n = event_format_size(r->cur);
		if (n > r->fmtcap) {
			r->fmtcap = n * 2;
			r->fmt = erealloc(r->fmt, r->fmtcap);
		}
		n = event_format(r->cur, r->fmt, r->fmtcap);
		return (struct mt_str){ r->fmt, n };
	}
	if (!r->restored) {
		/* Undo the in-place split: the line goes out as it came. */
		for (i = 1; i < r->parser.nfield; i++)
			r->parser.field[i][-1] = '\t';
		r->line[r->linelen] = '\n';
		r->restored = 1;
	}
	return (struct mt_str){ r->line, r->linelen + 1 };
}

void
reader_write(struct mt_reader *r, struct mt_out *o)
{
	struct mt_str line;
	size_t n;

	if (r->binary) {
		n = event_format_size(r->cur);
		out_commit(o, event_format(r->cur, out_reserve(o, n), n));
		return;
	}
	line = reader_line(r);
	out_write(o, line.s, line.len);
}

const char *
reader_name(const struct mt_reader *r)
{
	return r->name;
}

/* The name messages give the input (a copy of stdin is still stdin). */
void
reader_rename(struct mt_reader *r, const char *name)
{
	r->name = name;
}

uint64_t
reader_lineno(const struct mt_reader *r)
{
	return r->binary ? r->nrecord : r->lines.lineno;
}

int
reader_close(struct mt_reader *r)
{
	int bad = r->bad;

	if (r->binary) {
		trace_reader_free(r->trace);
	} else {
		lines_free(&r->lines);
		parser_free(&r->parser);
	}
	if (r->fd != STDIN_FILENO)
		close(r->fd);
	free(r->fmt);
	free(r);
	return bad;
}
