/* event: One record of the event format, and its text form. */
#ifndef MT_EVENT_H
#define MT_EVENT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define MT_EVENTS_VERSION 1	/* the text format, see mt-events(5) */

/* A string that points into a buffer the reader owns. */
struct mt_str {
	const char *s;
	size_t len;
};

enum mt_type {
	MT_NONE,
	MT_COMMENT,	/* '#' lines, passed through by every tool */
	MT_PROC,
	MT_MAP,
	MT_STACK,
	MT_SYM,
	MT_ALLOC,
	MT_FREE,
	MT_LIFE,
	MT_EXIT,
	MT_LOST,
	MT_WINDOW,
	MT_SAMPLE,
	MT_POOL,
	MT_UNKNOWN,	/* a record name this version does not know */
	MT_NTYPES
};

/* flags of struct mt_event */
#define EV_TS_NONE	0x01	/* first time field is '-' */
#define EV_TS2_NONE	0x02	/* second time field is '-' */
#define EV_STACK_NONE	0x04
#define EV_TRUNCATED	0x08	/* a stack cut at --depth: ends in "..." */
#define EV_SIZE_NONE	0x10
#define EV_PID_NONE	0x20
#define EV_TID_NONE	0x40
#define EV_STACK2	0x80	/* life: the free's stack, in stack2 */
#define EV_TEMP		0x200	/* life: temporary (freed before its thread allocated again) */
#define EV_RANGE	0x100	/* sample: the step's most and least bytes in count[0], count[1] */
#define EV_INSTANTS	0x400	/* sample: the instants of those in ts2, count[2] */

/* Exit status in an exit record: a code 0..255, or a signal. */
#define MT_STATUS_NONE	(-1)
#define MT_STATUS_SIG(n)	(0x100 | (n))
#define MT_STATUS_ISSIG(s)	((s) >= 0x100)

/*
 * The header, a trace's first line: "#mt-events\t1\tstart=NS\thost=NAME
 * \tresolution=NS" and maybe more key=value fields (mt-events(5)).  The
 * parser reads it once for every program; a bad one is a bad line.
 */
struct mt_header {
	int version;		/* MT_EVENTS_VERSION: another is refused */
	uint64_t start;		/* start=: the Unix time of time 0, in ns; 0: none */
	struct mt_str host;	/* host=; len 0: none */
	uint64_t resolution;	/* resolution=: times are multiples of it, ns; 1: none */
};

/*
 * One record of the event format, text or binary.  Which fields mean
 * something depends on type; mt-events(5) is the authority.
 */
struct mt_event {
	enum mt_type type;
	unsigned flags;
	uint64_t ts;		/* alloc/free/exit/lost/proc/sample/pool; life alloc; window from */
	uint64_t ts2;		/* life free; window to; sample: its maximum's instant */
	int64_t pid, ppid, tid;
	uint64_t addr;		/* alloc/free/life; map lo; sym ip */
	uint64_t size;		/* alloc/life; map hi; sample bytes; lost events */
	uint64_t stack;		/* stack id; map file offset; sample count */
	uint64_t stack2;	/* life: the free's stack id, with EV_STACK2 */
	int64_t impact;		/* life */
	int status;		/* exit */
	uint64_t count[3];	/* pool allocs, frees, bytes; sample max, min bytes, min's instant */
	struct mt_str heap;	/* heap; pool tag */
	struct mt_str s1, s2, s3;	/* proc exe,argv; map build-id,path; sym function,file:line,module;
					   lost reason; life class; pool type; comment/unknown whole line */
	size_t nips;
	uint64_t *ips;		/* stack frames, innermost first */
	const struct mt_header *header;	/* comment: the header, parsed; else NULL */
};

/*
 * Zeroes an event in 64-byte pieces: GCC makes a whole-struct memset a
 * `rep stos`, whose start-up cost is high for a struct this small; the
 * pieces become plain vector stores.
 */
static inline void
event_clear(struct mt_event *ev)
{
	char *p = (char *)ev;
	size_t i;

	for (i = 0; i + 64 <= sizeof(*ev); i += 64)
		memset(p + i, 0, 64);
	memset(p + i, 0, sizeof(*ev) - i);
}

/* event/typenames.c */
extern const char *const mt_type_names[MT_NTYPES];
#define MT_NSIGNALS 32
/* An exit status's signal names, by number (SIGHUP is 1); NULL: none. */
extern const char *const mt_signal_names[MT_NSIGNALS];
enum mt_type type_from_name(const char *s, size_t len);
int heap_known(const struct mt_str *heap);	/* 0 malloc, 1 mmap, 2 reserve, else -1 */
extern const struct mt_str mt_heap_names[3];

/* event/parse.c: a line of the text format */
struct mt_parser {
	char **field;
	size_t nfield, cap;
	uint64_t *ips;
	size_t ipcap;
	const char *what;	/* after a failed parse: what is wrong */
	const char *tok;	/* and the offending token */
	size_t toklen;
	struct mt_header header;	/* the last header parsed, its host in its line */
};
void parser_init(struct mt_parser *p);
void parser_free(struct mt_parser *p);
/*
 * Parses one line (without its newline, NUL-terminated, modified in
 * place).  Returns 0, or -1 with p->what and p->tok set.
 */
int event_parse(struct mt_parser *p, char *line, size_t len, struct mt_event *ev);

/* event/format.c: an event as a line of the text format */
/* Formats ev as one line with its newline into buf; returns its length. */
size_t event_format(const struct mt_event *ev, char *buf, size_t bufsize);
size_t event_format_size(const struct mt_event *ev);
/*
 * The escaper of a text field: TAB, newline and backslash as \t \n \\,
 * other controls as \xNN; dst has room for 4 * len bytes.
 */
size_t str_escape(char *dst, const char *src, size_t len);
/* An exit record's status as its text (a code, a signal's name or "-"). */
int format_status(char *buf, int status);

#endif
