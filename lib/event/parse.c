/*
 * parse: a line of the text event format of mt-events(5) as an event.
 * The line is split in place at its TABs and the numeric fields are
 * converted; it allocates only when a line has more fields than any
 * before it.
 */
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "mt.h"

void
parser_init(struct mt_parser *p)
{
	memset(p, 0, sizeof(*p));
	p->cap = 16;
	p->field = emalloc(p->cap * sizeof(*p->field));
	p->ipcap = 16;
	p->ips = emalloc(p->ipcap * sizeof(*p->ips));
}

void
parser_free(struct mt_parser *p)
{
	free(p->field);
	free(p->ips);
}

static int
fail_n(struct mt_parser *p, const char *what, const char *tok, size_t len)
{
	p->what = what;
	p->tok = tok;
	p->toklen = len;
	return -1;
}

static int
fail(struct mt_parser *p, const char *what, const char *tok)
{
	return fail_n(p, what, tok, tok ? strlen(tok) : 0);
}

/* A record's name: [a-z][a-z0-9_-]*. */
static int
record_word(const char *s)
{
	if (*s < 'a' || *s > 'z')
		return 0;
	for (s++; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_' ||
		    *s == '-'))
			return 0;
	return 1;
}

#define STRING_(x) #x
#define STRING(x) STRING_(x)

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* Eight ASCII digits as a number, or -1 when one is not a digit. */
static inline int64_t
digits8(const char *s)
{
	uint64_t c;

	memcpy(&c, s, 8);
	/* Every byte 0x30-0x39: its high half 3, and still 3 with 6 added. */
	if (((c & 0xf0f0f0f0f0f0f0f0ull) | ((c + 0x0606060606060606ull) & 0xf0f0f0f0f0f0f0f0ull) >> 4) !=
	    0x3333333333333333ull)
		return -1;
	/* Pairs of digits, then fours, then all eight: three multiplications. */
	c = (c & 0x0f0f0f0f0f0f0f0full) * 2561 >> 8;
	c = (c & 0x00ff00ff00ff00ffull) * 6553601 >> 16;
	return (int64_t)((c & 0x0000ffff0000ffffull) * 42949672960001ull >> 32);
}
#endif

/*
 * The decimal number of len bytes at s, every one a digit.  Up to 19
 * digits cannot overflow, so only a 20-digit number is compared with
 * UINT64_MAX's; leading zeros do not count.  Eight digits at a time
 * where they can be: the times of a life line are most of its digits.
 */
static int
decn(const char *s, size_t len, uint64_t *v)
{
	uint64_t x = 0;
	unsigned d;

	if (len == 0)
		return -1;
	for (; len > 0 && *s == '0'; s++)
		len--;
	if (len > 20 || (len == 20 && memcmp(s, "18446744073709551615", 20) > 0))
		return -1;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (; len >= 8; s += 8, len -= 8) {
		int64_t e = digits8(s);
		if (e < 0)
			return -1;
		x = x * 100000000 + (uint64_t)e;
	}
#endif
	for (; len > 0; s++, len--) {
		if ((d = (unsigned)(*s - '0')) > 9)
			return -1;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

static int
dec(const char *s, uint64_t *v)
{
	return decn(s, strlen(s), v);
}

static int
sdecn(const char *s, size_t len, int64_t *v)
{
	uint64_t u;

	if (len > 0 && *s == '-') {
		if (decn(s + 1, len - 1, &u) || u > (uint64_t)INT64_MAX + 1)
			return -1;
		*v = (int64_t)(0 - u);
		return 0;
	}
	if (len > 0 && *s == '+') {
		s++;
		len--;
	}
	if (decn(s, len, &u) || u > INT64_MAX)
		return -1;
	*v = (int64_t)u;
	return 0;
}

static int
hex(const char *s, uint64_t *v)
{
	uint64_t x = 0;
	int n = 0;

	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || !s[2])
		return -1;
	for (s += 2; *s; s++, n++) {
		unsigned c = (unsigned char)*s, d;
		if (c - '0' <= 9)
			d = c - '0';
		else if ((c | 0x20) - 'a' <= 5)
			d = (c | 0x20) - 'a' + 10;
		else
			return -1;
		if (n >= 16)
			return -1;
		x = x << 4 | d;
	}
	*v = x;
	return 0;
}

static int
isnone(const char *s)
{
	return s[0] == '-' && s[1] == '\0';
}

/* The length of field i as split (numbers: no field is joined to them). */
#define FLEN(i) ((size_t)((size_t)(i) + 1 < p->nfield ? f[(i) + 1] - 1 - f[i] : end - f[i]))
/* Times, sizes, ids and counts: below 2^63 (2^64-1 stands for none). */
#define NUM(i, dst, name) do { \
	if (decn(f[i], FLEN(i), &(dst)) || (dst) > INT64_MAX) return fail(p, "bad " name, f[i]); } while (0)
#define ADDR(i, dst, name) do { \
	if (hex(f[i], &(dst))) return fail(p, "bad " name, f[i]); } while (0)
#define PID(i, dst, name) do { int64_t v_; \
	if (sdecn(f[i], FLEN(i), &v_) || v_ < 0 || v_ > INT32_MAX) \
		return fail(p, "bad " name, f[i]); \
	(dst) = v_; } while (0)
#define OPT(i, flag, stmt) do { \
	if (isnone(f[i])) ev->flags |= (flag); else stmt; } while (0)
#define STR(i, dst) do { (dst).s = f[i]; (dst).len = strlen(f[i]); } while (0)
/* Field i as split, no later field joined to it: its length is known. */
#define FSTR(i, dst) do { (dst).s = f[i]; \
	(dst).len = (size_t)((i) + 1 < n ? f[(i) + 1] - 1 - f[i] : end - f[i]); } while (0)

static const int min_fields[MT_NTYPES] = {
	[MT_PROC] = 6, [MT_MAP] = 7, [MT_STACK] = 2, [MT_SYM] = 5,
	[MT_ALLOC] = 8, [MT_FREE] = 7, [MT_LIFE] = 11, [MT_EXIT] = 4,
	[MT_LOST] = 5, [MT_WINDOW] = 3, [MT_SAMPLE] = 6, [MT_POOL] = 7,
};

static void
add_field(struct mt_parser *p, size_t *n, char *s)
{
	if (*n == p->cap) {
		p->cap *= 2;
		p->field = erealloc(p->field, p->cap * sizeof(*p->field));
	}
	p->field[(*n)++] = s;
}

/*
 * The line's fields, each ended by a NUL where its TAB was; their number.
 * Sixteen bytes at a time: a line has many short fields, and a call of
 * memchr a field costs more than the compare.
 */
static size_t
split_fields(struct mt_parser *p, char *line, char *end)
{
	char *c = line;
	size_t n = 0;

	add_field(p, &n, line);
#ifdef __SSE2__
	const __m128i tab = _mm_set1_epi8('\t');

	for (; end - c >= 16; c += 16) {
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(
		    _mm_loadu_si128((const __m128i *)(const void *)c), tab));

		for (; m; m &= m - 1) {
			char *t = c + __builtin_ctz(m);
			*t = '\0';
			add_field(p, &n, t + 1);
		}
	}
#endif
	for (; c < end; c++)
		if (*c == '\t') {
			*c = '\0';
			add_field(p, &n, c + 1);
		}
	return n;
}

/*
 * The records' fields: f, the n fields of the line as split, up to end;
 * ev's type is known and n is at least its min_fields.
 */
#define PARSE_ARGS struct mt_parser *p, char **f, size_t n, char *end, struct mt_event *ev

/* Fields from i on joined again: the last field of a record may hold tabs. */
static inline void
rejoin(char **f, size_t i, size_t n)
{
	for (; i < n; i++)
		f[i][-1] = '\t';
}

static int
parse_proc(PARSE_ARGS)
{
	PID(1, ev->pid, "pid");
	PID(2, ev->ppid, "ppid");
	NUM(3, ev->ts, "time");
	STR(4, ev->s1);
	/* argv may itself hold tabs only escaped; rejoin extra fields. */
	rejoin(f, 6, n);
	STR(5, ev->s2);
	return 0;
}

static int
parse_map(PARSE_ARGS)
{
	PID(1, ev->pid, "pid");
	ADDR(2, ev->addr, "address");
	ADDR(3, ev->size, "address");
	ADDR(4, ev->stack, "offset");
	STR(5, ev->s1);
	rejoin(f, 7, n);
	STR(6, ev->s2);
	return 0;
}

static int
parse_stack(PARSE_ARGS)
{
	size_t i;

	NUM(1, ev->stack, "stack id");
	if (n >= 3 && strcmp(f[n - 1], "...") == 0) {
		ev->flags |= EV_TRUNCATED;
		n--;
	}
	if (n - 2 > p->ipcap) {
		p->ipcap = n;
		p->ips = erealloc(p->ips, p->ipcap * sizeof(*p->ips));
	}
	for (i = 2; i < n; i++)
		ADDR(i, p->ips[i - 2], "address");
	ev->ips = p->ips;
	ev->nips = n - 2;
	return 0;
}

static int
parse_sym(PARSE_ARGS)
{
	ADDR(1, ev->addr, "address");
	STR(2, ev->s1);
	STR(3, ev->s2);
	rejoin(f, 5, n);
	STR(4, ev->s3);
	return 0;
}

/* An alloc or a free. */
static inline int
parse_heap(PARSE_ARGS)
{
	/* An allocation made before recording has no time: '-'. */
	if (ev->type == MT_ALLOC)
		OPT(1, EV_TS_NONE, NUM(1, ev->ts, "time"));
	else
		NUM(1, ev->ts, "time");
	PID(2, ev->pid, "pid");
	PID(3, ev->tid, "tid");
	FSTR(4, ev->heap);
	ADDR(5, ev->addr, "address");
	if (ev->type == MT_ALLOC) {
		NUM(6, ev->size, "size");
		OPT(7, EV_STACK_NONE, NUM(7, ev->stack, "stack id"));
	} else {
		OPT(6, EV_STACK_NONE, NUM(6, ev->stack, "stack id"));
		/* A range freed of a mapping: munmap of a piece. */
		if (n > 7 && (dec(f[7], &ev->size) || ev->size == 0 || ev->size > INT64_MAX))
			return fail(p, "bad size", f[7]);
	}
	return 0;
}

static inline int
parse_life(PARSE_ARGS)
{
	OPT(1, EV_TS_NONE, NUM(1, ev->ts, "time"));
	OPT(2, EV_TS2_NONE, NUM(2, ev->ts2, "time"));
	if (!(ev->flags & (EV_TS_NONE | EV_TS2_NONE)) && ev->ts2 < ev->ts)
		return fail(p, "free before its allocation", f[2]);
	PID(3, ev->pid, "pid");
	OPT(4, EV_TID_NONE, PID(4, ev->tid, "tid"));
	FSTR(5, ev->heap);
	ADDR(6, ev->addr, "address");
	OPT(7, EV_SIZE_NONE, NUM(7, ev->size, "size"));
	OPT(8, EV_STACK_NONE, NUM(8, ev->stack, "stack id"));
	FSTR(9, ev->s1);
	if (life_class_parse(ev->s1.s, ev->s1.len) < 0)
		return fail(p, "bad class", f[9]);
	if (sdecn(f[10], FLEN(10), &ev->impact))
		return fail(p, "bad impact", f[10]);
	if (n > 11 && !isnone(f[11]))
		FSTR(11, ev->s2);	/* the fate of a survivor */
	if (n > 12 && !isnone(f[12])) {	/* the free's stack */
		NUM(12, ev->stack2, "stack id");
		ev->flags |= EV_STACK2;
	}
	if (n > 13 && !isnone(f[13])) {	/* temporary */
		if (strcmp(f[13], "temporary"))
			return fail(p, "bad temporary", f[13]);
		ev->flags |= EV_TEMP;
	}
	return 0;
}

/* An exit status: a code 0-255, a signal's name, SIGn, or '-'. */
static int
parse_status(const char *s, int *status)
{
	uint64_t code;
	size_t i;

	*status = MT_STATUS_NONE;
	if (isnone(s))
		return 0;
	if (dec(s, &code) == 0 && code <= 255) {
		*status = (int)code;
		return 0;
	}
	for (i = 1; i < MT_NSIGNALS; i++)
		if (strcmp(s, mt_signal_names[i]) == 0) {
			*status = MT_STATUS_SIG((int)i);
			return 0;
		}
	if (strncmp(s, "SIG", 3) == 0 && dec(s + 3, &code) == 0 && code < 0x100) {
		*status = MT_STATUS_SIG((int)code);
		return 0;
	}
	return -1;
}

static int
parse_exit(PARSE_ARGS)
{
	NUM(1, ev->ts, "time");
	PID(2, ev->pid, "pid");
	if (parse_status(f[3], &ev->status))
		return fail(p, "bad exit status", f[3]);
	return 0;
}

static int
parse_lost(PARSE_ARGS)
{
	NUM(1, ev->ts, "time");
	OPT(2, EV_PID_NONE, PID(2, ev->pid, "pid"));
	NUM(3, ev->size, "count");
	STR(4, ev->s1);
	return 0;
}

static int
parse_window(PARSE_ARGS)
{
	NUM(1, ev->ts, "time");
	NUM(2, ev->ts2, "time");
	return 0;
}

static int
parse_sample(PARSE_ARGS)
{
	NUM(1, ev->ts, "time");
	PID(2, ev->pid, "pid");
	STR(3, ev->heap);
	NUM(4, ev->size, "size");
	NUM(5, ev->stack, "count");
	if (n > 7) {	/* the step's most and least (mt-window --series) */
		NUM(6, ev->count[0], "size");
		NUM(7, ev->count[1], "size");
		ev->flags |= EV_RANGE;
	}
	if (n > 9) {	/* and when each was first reached */
		NUM(8, ev->ts2, "time");
		NUM(9, ev->count[2], "time");
		ev->flags |= EV_INSTANTS;
	}
	return 0;
}

static int
parse_pool(PARSE_ARGS)
{
	NUM(1, ev->ts, "time");
	STR(2, ev->heap);
	STR(3, ev->s1);
	NUM(4, ev->count[0], "count");
	NUM(5, ev->count[1], "count");
	NUM(6, ev->count[2], "size");
	return 0;
}

/*
 * The header, "#mt-events\tVERSION\tkey=value...", into p->header.  One
 * of another version is refused, since its records may mean something
 * else (mt-events(5)), and so is a start or a resolution that is no
 * number; keys not known are passed over.
 */
static int
parse_header(struct mt_parser *p, const char *line, size_t len, struct mt_event *ev)
{
	static const char ours[] = STRING(MT_EVENTS_VERSION);
	struct mt_header *h = &p->header;
	const char *f = line + 10, *end = line + len, *tab;
	size_t n;

	f += f < end;
	tab = memchr(f, '\t', (size_t)(end - f));
	n = (size_t)((tab ? tab : end) - f);
	if (n != sizeof(ours) - 1 || memcmp(f, ours, n))
		return fail_n(p, "unknown version", f, n);
	memset(h, 0, sizeof(*h));
	h->version = MT_EVENTS_VERSION;
	h->resolution = 1;
	for (f += n; f < end; f += n) {
		f++;
		tab = memchr(f, '\t', (size_t)(end - f));
		n = (size_t)((tab ? tab : end) - f);
		if (n >= 6 && !memcmp(f, "start=", 6)) {
			if (decn(f + 6, n - 6, &h->start))
				return fail_n(p, "bad start", f + 6, n - 6);
		} else if (n >= 5 && !memcmp(f, "host=", 5)) {
			h->host = (struct mt_str){ f + 5, n - 5 };
		} else if (n >= 11 && !memcmp(f, "resolution=", 11)) {
			if (decn(f + 11, n - 11, &h->resolution) || h->resolution < 1 ||
			    h->resolution > 1000000000)
				return fail_n(p, "bad resolution", f + 11, n - 11);
		}
	}
	ev->header = h;
	return 0;
}

/* A comment, kept whole; the header parsed too. */
static int
parse_comment(struct mt_parser *p, char *line, size_t len, struct mt_event *ev)
{
	ev->type = MT_COMMENT;
	ev->s1.s = line;
	ev->s1.len = len;
	if (len >= 10 && !memcmp(line, "#mt-events", 10) && (len == 10 || line[10] == '\t'))
		return parse_header(p, line, len, ev);
	return 0;
}

/*
 * A record of a newer version: passed through whole, never an error; a
 * name that is no lower-case word is no record at all.
 */
static int
parse_unknown(struct mt_parser *p, char **f, size_t n, char *line, size_t len,
    struct mt_event *ev)
{
	if (!record_word(f[0]))
		return fail(p, "bad record", f[0]);
	rejoin(f, 1, n);
	ev->s1.s = line;
	ev->s1.len = len;
	return 0;
}

int
event_parse(struct mt_parser *p, char *line, size_t len, struct mt_event *ev)
{
	char **f, *end = line + len;
	size_t n;

	event_clear(ev);
	p->nfield = 0;
	if (len == 0)
		return fail(p, "empty line", NULL);
	if (line[0] == '#')
		return parse_comment(p, line, len, ev);
	n = split_fields(p, line, end);
	f = p->field;
	p->nfield = n;
	ev->type = type_from_name(f[0], (size_t)(n > 1 ? f[1] - 1 - f[0] : end - f[0]));
	if (ev->type == MT_UNKNOWN)
		return parse_unknown(p, f, n, line, len, ev);
	if ((int)n < min_fields[ev->type])
		return fail(p, "missing fields in", mt_type_names[ev->type]);
	switch (ev->type) {
	case MT_ALLOC:
	case MT_FREE:
		return parse_heap(p, f, n, end, ev);
	case MT_LIFE:
		return parse_life(p, f, n, end, ev);
	case MT_PROC:
		return parse_proc(p, f, n, end, ev);
	case MT_MAP:
		return parse_map(p, f, n, end, ev);
	case MT_STACK:
		return parse_stack(p, f, n, end, ev);
	case MT_SYM:
		return parse_sym(p, f, n, end, ev);
	case MT_EXIT:
		return parse_exit(p, f, n, end, ev);
	case MT_LOST:
		return parse_lost(p, f, n, end, ev);
	case MT_WINDOW:
		return parse_window(p, f, n, end, ev);
	case MT_SAMPLE:
		return parse_sample(p, f, n, end, ev);
	case MT_POOL:
		return parse_pool(p, f, n, end, ev);
	default:
		return 0;
	}
}
