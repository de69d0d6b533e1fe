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
	struct mt_progress *meter;
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
				mt_warn("%s", argv[i]);
				continue;
			}
			if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
				errno = EISDIR, mt_warn("%s", argv[i]);
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

/*
 * Event text begins with a record name or '#'; a trace with 0x89
 * (whatever follows: the trace reader judges the rest).  Anything else,
 * or nothing, is no input of ours, said here: 0.
 */
static int
head_ok(const char *name, const uint8_t *b, size_t n)
{
	if (n > 0 && (b[0] == 0x89 || b[0] == '#' || (b[0] >= 'a' && b[0] <= 'z')))
		return 1;
	/* Nothing at all is no trace either: a recorder killed before its
	   header. */
	mt_warnx("%s: %s", name, n == 0 ? "empty: not an mt trace or event text" :
	    "not an mt trace or event text (bad magic)");
	return 0;
}

struct mt_reader *
reader_open_fd(int fd, const char *name)
{
	struct mt_reader *r;
	uint8_t magic[MT_TRACE_MAGIC_LEN];
	ssize_t got = readall(fd, magic, sizeof(magic));

	if (got < 0)
		mt_warn("%s", name);
	if (got < 0 || !head_ok(name, magic, (size_t)got)) {
		mt_status = 1;
		if (fd != STDIN_FILENO)
			close(fd);
		return NULL;
	}
	r = ecalloc(1, sizeof(*r));
	r->name = name;
	r->fd = fd;
	r->meter = progress_new(fd, name, r);
	if (got > 0 && magic[0] == 0x89) {
		r->binary = 1;
		r->trace = trace_reader_new(fd, magic, (size_t)got);
	} else {
		lines_init(&r->lines, fd);
		memcpy(r->lines.buf, magic, (size_t)got);
		r->lines.end = (size_t)got;
		parser_init(&r->parser);
	}
	return r;
}

struct mt_reader *
reader_open(const char *path)
{
	int fd;

	if (!path || strcmp(path, "-") == 0)
		return reader_open_fd(STDIN_FILENO, "<stdin>");
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		mt_warn("%s", path);
		return NULL;
	}
	return reader_open_fd(fd, path);
}

/*
 * For a program that reads its input twice.  The first bytes are judged
 * before anything is copied: what is no input (/dev/zero) would fill the
 * disk without a word.
 */
static int
spool_from(int from, const char *name, int fd)
{
	uint8_t buf[1 << 16];
	ssize_t n = readall(from, buf, MT_TRACE_MAGIC_LEN);

	if (n >= 0 && !head_ok(name, buf, (size_t)n))
		return 1;
	while (n != 0) {
		if (n < 0 && errno == EINTR) {
			n = read(from, buf, sizeof(buf));
			continue;
		}
		if (n < 0) {
			mt_warn("%s", name);
			return 2;
		}
		if (writeall(fd, buf, (size_t)n) != (size_t)n) {
			mt_warn("keeping a copy of %s", name);
			return 2;
		}
		n = read(from, buf, sizeof(buf));
	}
	return 0;
}

int
reader_spool(int fd)
{
	return spool_from(STDIN_FILENO, "<stdin>", fd);
}

static const char *
spool_name(const char *path)
{
	return path && strcmp(path, "-") ? path : "<stdin>";
}

int
reader_spool_tmp(const char *path, int *status)
{
	int fd = tmpfd("mt-input"), from = STDIN_FILENO;

	if (fd < 0) {
		mt_warn("a copy of %s in %s", spool_name(path),
		    getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
		*status = 2;
		return -1;
	}
	if (path && strcmp(path, "-") && (from = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		mt_warn("%s", path);
		*status = 1;
		close(fd);
		return -1;
	}
	*status = spool_from(from, spool_name(path), fd);
	if (from != STDIN_FILENO)
		close(from);
	if (*status) {
		close(fd);
		return -1;
	}
	return fd;
}

struct mt_reader *
reader_reopen(const char *path, int spool)
{
	int fd;

	if (spool < 0)
		return reader_open(path);
	if (lseek(spool, 0, SEEK_SET) < 0 || (fd = dup(spool)) < 0) {
		mt_warn("a copy of %s", spool_name(path));
		return NULL;
	}
	return reader_open_fd(fd, spool_name(path));
}

int
reader_next(struct mt_reader *r, struct mt_event *ev)
{
	int ret;

	if (r->binary) {
		r->restored = 0;
		ret = trace_read(r->trace, ev);
		while (ret == -2) {	/* a damaged frame skipped: the rest goes on */
			if (!r->quiet)
				mt_warnx("%s: %s", r->name, trace_reader_error(r->trace));
			r->bad = 1;
			ret = trace_read(r->trace, ev);
		}
		if (ret < 0 && r->quiet) {
			r->bad = 1;
			return 0;
		}
		if (ret < 0) {
			mt_warnx("%s: %s", r->name, trace_reader_error(r->trace));
			r->bad = 1;
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
				errno = r->lines.error, mt_warn("%s", r->name);
				r->bad = 1;
			}
			return 0;
		}
		r->restored = 0;
		/* CRLF is read as LF, once said: a number before a '\r' was
		   refused, a string kept it. */
		if (r->linelen && r->line[r->linelen - 1] == '\r') {
			r->line[--r->linelen] = '\0';
			if (!r->said_crlf++ && !r->quiet)
				mt_note("%s:%" PRIu64 ": note: CRLF line ends read as LF",
				    r->name, r->lines.lineno);
		}
		/* Its last field may be cut too: a size of 32 that was 320. */
		if (r->lines.cut) {
			if (!r->quiet)
				mt_warn_at(r->name, r->lines.lineno, "line cut short", r->line,
				    r->linelen);
			r->bad = 1;
			continue;
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
		/* A bad header is said here, never handed on as a log's row. */
		if (r->keep_bad && r->line[0] != '#') {
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

uint64_t
reader_lineno(const struct mt_reader *r)
{
	return r->binary ? r->nrecord : r->lines.lineno;
}

int
reader_close(struct mt_reader *r)
{
	int bad = r->bad;

	progress_free(r->meter);
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

struct trace_reader *
reader_trace(struct mt_reader *r)
{
	return r->trace;
}

int
reader_binary(const struct mt_reader *r)
{
	return r->binary;
}
