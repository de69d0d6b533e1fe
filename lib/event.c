/*
 * The text event format of mt-events(5): one record a line, fields
 * separated by one TAB.  Parsing splits the line in place and converts
 * the numeric fields; it allocates only when a line has more fields than
 * any before it.
 */
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "mt.h"

const char *const mt_type_names[MT_NTYPES] = {
	[MT_NONE] = "", [MT_COMMENT] = "#", [MT_PROC] = "proc",
	[MT_MAP] = "map", [MT_STACK] = "stack", [MT_SYM] = "sym",
	[MT_ALLOC] = "alloc", [MT_FREE] = "free", [MT_LIFE] = "life",
	[MT_EXIT] = "exit", [MT_LOST] = "lost", [MT_WINDOW] = "window",
	[MT_SAMPLE] = "sample", [MT_POOL] = "pool", [MT_UNKNOWN] = "",
};

const struct mt_str mt_heap_names[3] = {
	{ "malloc", 6 }, { "mmap", 4 }, { "reserve", 7 },
};

static const char *const signames[] = {
	[1] = "SIGHUP", [2] = "SIGINT", [3] = "SIGQUIT", [4] = "SIGILL",
	[5] = "SIGTRAP", [6] = "SIGABRT", [7] = "SIGBUS", [8] = "SIGFPE",
	[9] = "SIGKILL", [10] = "SIGUSR1", [11] = "SIGSEGV", [12] = "SIGUSR2",
	[13] = "SIGPIPE", [14] = "SIGALRM", [15] = "SIGTERM", [16] = "SIGSTKFLT",
	[17] = "SIGCHLD", [18] = "SIGCONT", [19] = "SIGSTOP", [20] = "SIGTSTP",
	[21] = "SIGTTIN", [22] = "SIGTTOU", [23] = "SIGURG", [24] = "SIGXCPU",
	[25] = "SIGXFSZ", [26] = "SIGVTALRM", [27] = "SIGPROF", [28] = "SIGWINCH",
	[29] = "SIGIO", [30] = "SIGPWR", [31] = "SIGSYS",
};
#define NSIGNAMES (sizeof(signames) / sizeof(signames[0]))

enum mt_type
type_from_name(const char *s, size_t len)
{
	switch (len) {
	case 3:
		if (!memcmp(s, "map", 3)) return MT_MAP;
		if (!memcmp(s, "sym", 3)) return MT_SYM;
		break;
	case 4:
		if (!memcmp(s, "proc", 4)) return MT_PROC;
		if (!memcmp(s, "free", 4)) return MT_FREE;
		if (!memcmp(s, "life", 4)) return MT_LIFE;
		if (!memcmp(s, "exit", 4)) return MT_EXIT;
		if (!memcmp(s, "lost", 4)) return MT_LOST;
		if (!memcmp(s, "pool", 4)) return MT_POOL;
		break;
	case 5:
		if (!memcmp(s, "alloc", 5)) return MT_ALLOC;
		if (!memcmp(s, "stack", 5)) return MT_STACK;
		break;
	case 6:
		if (!memcmp(s, "window", 6)) return MT_WINDOW;
		if (!memcmp(s, "sample", 6)) return MT_SAMPLE;
		break;
	}
	return MT_UNKNOWN;
}

int
heap_known(const struct mt_str *heap)
{
	int i;

	/* The recorder passes our own names: no need to read them. */
	for (i = 0; i < 3; i++)
		if (heap->s == mt_heap_names[i].s)
			return i;
	for (i = 0; i < 3; i++)
		if (heap->len == mt_heap_names[i].len &&
		    !memcmp(heap->s, mt_heap_names[i].s, heap->len))
			return i;
	return -1;
}

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

/*
 * A header of another version than ours: its records may mean something
 * else (mt-events(5)), so it is not read as ours without a word.  Its
 * version, of *vlen bytes; NULL for ours or any other comment.
 */
static const char *
bad_header(const char *line, size_t len, size_t *vlen)
{
	static const char ours[] = STRING(MT_EVENTS_VERSION);
	const char *v = line + 10;

	if (len < 10 || memcmp(line, "#mt-events", 10) || (len > 10 && *v != '\t'))
		return NULL;
	v += len > 10;
	*vlen = strcspn(v, "\t");
	return *vlen == sizeof(ours) - 1 && !memcmp(v, ours, *vlen) ? NULL : v;
}

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
 * Sixteen bytes at a time: a call of memchr for every field was a third
 * of the time of mt-window reading lifetimes.
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

int
event_parse(struct mt_parser *p, char *line, size_t len, struct mt_event *ev)
{
	char **f, *end = line + len;
	const char *v;
	size_t n, i;

	event_clear(ev);
	p->nfield = 0;
	if (len == 0)
		return fail(p, "empty line", NULL);
	if (line[0] == '#') {
		if ((v = bad_header(line, len, &i)))
			return fail_n(p, "unknown version", v, i);
		ev->type = MT_COMMENT;
		ev->s1.s = line;
		ev->s1.len = len;
		return 0;
	}
	n = split_fields(p, line, end);
	f = p->field;
	p->nfield = n;
	ev->type = type_from_name(f[0], (size_t)(n > 1 ? f[1] - 1 - f[0] : end - f[0]));
	if (ev->type == MT_UNKNOWN) {
		/* A record of a newer version: passed through, never an error;
		   a name that is no lower-case word is no record at all. */
		if (!record_word(f[0]))
			return fail(p, "bad record", f[0]);
		for (i = 1; i < n; i++)
			f[i][-1] = '\t';
		ev->s1.s = line;
		ev->s1.len = len;
		return 0;
	}
	if ((int)n < min_fields[ev->type])
		return fail(p, "missing fields in", mt_type_names[ev->type]);
	switch (ev->type) {
	case MT_PROC:
		PID(1, ev->pid, "pid");
		PID(2, ev->ppid, "ppid");
		NUM(3, ev->ts, "time");
		STR(4, ev->s1);
		/* argv may itself hold tabs only escaped; rejoin extra fields. */
		for (i = 6; i < n; i++)
			f[i][-1] = '\t';
		STR(5, ev->s2);
		break;
	case MT_MAP:
		PID(1, ev->pid, "pid");
		ADDR(2, ev->addr, "address");
		ADDR(3, ev->size, "address");
		ADDR(4, ev->stack, "offset");
		STR(5, ev->s1);
		for (i = 7; i < n; i++)
			f[i][-1] = '\t';
		STR(6, ev->s2);
		break;
	case MT_STACK:
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
		break;
	case MT_SYM:
		ADDR(1, ev->addr, "address");
		STR(2, ev->s1);
		STR(3, ev->s2);
		for (i = 5; i < n; i++)
			f[i][-1] = '\t';
		STR(4, ev->s3);
		break;
	case MT_ALLOC:
	case MT_FREE:
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
		break;
	case MT_LIFE:
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
		if (ev->s1.len != 4 || ev->s1.s[0] != 'a' || ev->s1.s[2] != 'f' ||
		    (ev->s1.s[1] != 'i' && ev->s1.s[1] != 'o') ||
		    (ev->s1.s[3] != 'i' && ev->s1.s[3] != 'o'))
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
		break;
	case MT_EXIT:
		NUM(1, ev->ts, "time");
		PID(2, ev->pid, "pid");
		ev->status = MT_STATUS_NONE;
		if (!isnone(f[3])) {
			uint64_t code;
			if (dec(f[3], &code) == 0 && code <= 255) {
				ev->status = (int)code;
			} else {
				for (i = 1; i < NSIGNAMES; i++)
					if (strcmp(f[3], signames[i]) == 0)
						break;
				if (i < NSIGNAMES)
					ev->status = MT_STATUS_SIG((int)i);
				else if (strncmp(f[3], "SIG", 3) == 0 &&
				    dec(f[3] + 3, &code) == 0 && code < 0x100)
					ev->status = MT_STATUS_SIG((int)code);
				else
					return fail(p, "bad exit status", f[3]);
			}
		}
		break;
	case MT_LOST:
		NUM(1, ev->ts, "time");
		OPT(2, EV_PID_NONE, PID(2, ev->pid, "pid"));
		NUM(3, ev->size, "count");
		STR(4, ev->s1);
		break;
	case MT_WINDOW:
		NUM(1, ev->ts, "time");
		NUM(2, ev->ts2, "time");
		break;
	case MT_SAMPLE:
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
		break;
	case MT_POOL:
		NUM(1, ev->ts, "time");
		STR(2, ev->heap);
		STR(3, ev->s1);
		NUM(4, ev->count[0], "count");
		NUM(5, ev->count[1], "count");
		NUM(6, ev->count[2], "size");
		break;
	default:
		break;
	}
	return 0;
}

/* Formatting: the hot path of mt-decode, so no printf. */

static const char digits2[201] =
    "0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243444546474849"
    "5051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899";

/* The number of decimal digits of v. */
static inline unsigned
dec_digits(uint64_t v)
{
	static const uint64_t pow10[20] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
		10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
		100000000000ull, 1000000000000ull, 10000000000000ull,
		100000000000000ull, 1000000000000000ull, 10000000000000000ull,
		100000000000000000ull, 1000000000000000000ull,
		10000000000000000000ull,
	};
	/* log10 from log2 (1233/4096 ~ log10 2), then one comparison. */
	unsigned l2 = 63 - (unsigned)__builtin_clzll(v | 1);
	unsigned t = (l2 + 1) * 1233 >> 12;

	return t - ((v | 1) < pow10[t]) + 1;
}

/*
 * Two digits a division, written where they go: the decoder's hot path is
 * mostly numbers, and a copy of a length known only at run time is a
 * call.
 */
static char *
put_u64(char *p, uint64_t v)
{
	unsigned n = dec_digits(v);
	char *t = p + n;

	while (v >= 100) {
		t -= 2;
		memcpy(t, digits2 + (v % 100) * 2, 2);
		v /= 100;
	}
	if (v >= 10) {
		t -= 2;
		memcpy(t, digits2 + v * 2, 2);
	} else {
		*--t = (char)('0' + v);
	}
	return p + n;
}

static char *
put_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return put_u64(p, 0 - (uint64_t)v);
	}
	return put_u64(p, (uint64_t)v);
}

static char *
put_hex(char *p, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	unsigned n = (67 - (unsigned)__builtin_clzll(v | 1)) / 4;
	char *t;

	*p++ = '0';
	*p++ = 'x';
	for (t = p + n; t > p; v >>= 4)
		*--t = digits[v & 15];
	return p + n;
}

/* Short strings (heap names, classes) byte by byte: no call. */
static char *
put_str(char *p, struct mt_str s)
{
	size_t i;

	if (s.len > 16) {
		memcpy(p, s.s, s.len);
		return p + s.len;
	}
	for (i = 0; i < s.len; i++)
		p[i] = s.s[i];
	return p + s.len;
}

static char *
put_name(char *p, enum mt_type t)
{
	struct mt_str name = { mt_type_names[t], strlen(mt_type_names[t]) };

	return put_str(p, name);
}

#define TAB(p) (*(p)++ = '\t')
#define NONE_OR(p, cond, put) do { if (cond) *(p)++ = '-'; else (p) = put; } while (0)

int
format_status(char *buf, int status)
{
	char *p = buf;
	int sig;

	if (status == MT_STATUS_NONE) {
		*p++ = '-';
	} else if (MT_STATUS_ISSIG(status)) {
		sig = status & 0xff;
		if (sig > 0 && (size_t)sig < NSIGNAMES && signames[sig]) {
			p = put_str(p, (struct mt_str){ signames[sig], strlen(signames[sig]) });
		} else {
			memcpy(p, "SIG", 3);
			p = put_u64(p + 3, (uint64_t)sig);
		}
	} else {
		p = put_u64(p, (uint64_t)status);
	}
	*p = '\0';
	return (int)(p - buf);
}

size_t
event_format_size(const struct mt_event *ev)
{
	return 256 + ev->nips * 20 + ev->heap.len + ev->s1.len + ev->s2.len +
	    ev->s3.len;
}

size_t
event_format(const struct mt_event *ev, char *buf, size_t bufsize)
{
	char *p = buf;
	size_t i;

	if (bufsize < event_format_size(ev))
		return 0;
	if (ev->type == MT_COMMENT || ev->type == MT_UNKNOWN) {
		p = put_str(p, ev->s1);
		*p++ = '\n';
		return (size_t)(p - buf);
	}
	p = put_name(p, ev->type);
	TAB(p);
	switch (ev->type) {
	case MT_PROC:
		p = put_i64(p, ev->pid); TAB(p);
		p = put_i64(p, ev->ppid); TAB(p);
		p = put_u64(p, ev->ts); TAB(p);
		p = put_str(p, ev->s1); TAB(p);
		p = put_str(p, ev->s2);
		break;
	case MT_MAP:
		p = put_i64(p, ev->pid); TAB(p);
		p = put_hex(p, ev->addr); TAB(p);
		p = put_hex(p, ev->size); TAB(p);
		p = put_hex(p, ev->stack); TAB(p);
		NONE_OR(p, ev->s1.len == 0, put_str(p, ev->s1)); TAB(p);
		p = put_str(p, ev->s2);
		break;
	case MT_STACK:
		p = put_u64(p, ev->stack);
		for (i = 0; i < ev->nips; i++) {
			TAB(p);
			p = put_hex(p, ev->ips[i]);
		}
		if (ev->flags & EV_TRUNCATED) {
			memcpy(p, "\t...", 4);
			p += 4;
		}
		break;
	case MT_SYM:
		p = put_hex(p, ev->addr); TAB(p);
		p = put_str(p, ev->s1); TAB(p);
		NONE_OR(p, ev->s2.len == 0, put_str(p, ev->s2)); TAB(p);
		p = put_str(p, ev->s3);
		break;
	case MT_ALLOC:
	case MT_FREE:
		NONE_OR(p, ev->type == MT_ALLOC && (ev->flags & EV_TS_NONE), put_u64(p, ev->ts));
		TAB(p);
		p = put_i64(p, ev->pid); TAB(p);
		p = put_i64(p, ev->tid); TAB(p);
		p = put_str(p, ev->heap); TAB(p);
		p = put_hex(p, ev->addr); TAB(p);
		if (ev->type == MT_ALLOC) {
			p = put_u64(p, ev->size);
			TAB(p);
		}
		NONE_OR(p, ev->flags & EV_STACK_NONE, put_u64(p, ev->stack));
		if (ev->type == MT_FREE && ev->size) {
			TAB(p);
			p = put_u64(p, ev->size);
		}
		break;
	case MT_LIFE:
		NONE_OR(p, ev->flags & EV_TS_NONE, put_u64(p, ev->ts)); TAB(p);
		NONE_OR(p, ev->flags & EV_TS2_NONE, put_u64(p, ev->ts2)); TAB(p);
		p = put_i64(p, ev->pid); TAB(p);
		NONE_OR(p, ev->flags & EV_TID_NONE, put_i64(p, ev->tid)); TAB(p);
		p = put_str(p, ev->heap); TAB(p);
		p = put_hex(p, ev->addr); TAB(p);
		NONE_OR(p, ev->flags & EV_SIZE_NONE, put_u64(p, ev->size)); TAB(p);
		NONE_OR(p, ev->flags & EV_STACK_NONE, put_u64(p, ev->stack)); TAB(p);
		p = put_str(p, ev->s1); TAB(p);
		p = put_i64(p, ev->impact);
		if (ev->s2.len || (ev->flags & (EV_STACK2 | EV_TEMP))) {
			TAB(p);
			NONE_OR(p, !ev->s2.len, put_str(p, ev->s2));
		}
		if (ev->flags & (EV_STACK2 | EV_TEMP)) {
			TAB(p);
			NONE_OR(p, !(ev->flags & EV_STACK2), put_u64(p, ev->stack2));
		}
		if (ev->flags & EV_TEMP) {
			TAB(p);
			memcpy(p, "temporary", 9);
			p += 9;
		}
		break;
	case MT_EXIT:
		p = put_u64(p, ev->ts); TAB(p);
		p = put_i64(p, ev->pid); TAB(p);
		p += format_status(p, ev->status);
		break;
	case MT_LOST:
		p = put_u64(p, ev->ts); TAB(p);
		NONE_OR(p, ev->flags & EV_PID_NONE, put_i64(p, ev->pid)); TAB(p);
		p = put_u64(p, ev->size); TAB(p);
		p = put_str(p, ev->s1);
		break;
	case MT_WINDOW:
		p = put_u64(p, ev->ts); TAB(p);
		p = put_u64(p, ev->ts2);
		break;
	case MT_SAMPLE:
		p = put_u64(p, ev->ts); TAB(p);
		p = put_i64(p, ev->pid); TAB(p);
		p = put_str(p, ev->heap); TAB(p);
		p = put_u64(p, ev->size); TAB(p);
		p = put_u64(p, ev->stack);
		if (ev->flags & EV_RANGE) {
			TAB(p);
			p = put_u64(p, ev->count[0]); TAB(p);
			p = put_u64(p, ev->count[1]);
		}
		if (ev->flags & EV_INSTANTS) {
			TAB(p);
			p = put_u64(p, ev->ts2); TAB(p);
			p = put_u64(p, ev->count[2]);
		}
		break;
	case MT_POOL:
		p = put_u64(p, ev->ts); TAB(p);
		p = put_str(p, ev->heap); TAB(p);
		p = put_str(p, ev->s1); TAB(p);
		p = put_u64(p, ev->count[0]); TAB(p);
		p = put_u64(p, ev->count[1]); TAB(p);
		p = put_u64(p, ev->count[2]);
		break;
	default:
		break;
	}
	*p++ = '\n';
	return (size_t)(p - buf);
}

/* TAB, newline and backslash as \t \n \\; other controls as \xNN. */
size_t
str_escape(char *dst, const char *src, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	char *p = dst;
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)src[i];
		if (c == '\t') {
			*p++ = '\\'; *p++ = 't';
		} else if (c == '\n') {
			*p++ = '\\'; *p++ = 'n';
		} else if (c == '\\') {
			*p++ = '\\'; *p++ = '\\';
		} else if (c < 0x20 || c == 0x7f) {
			*p++ = '\\'; *p++ = 'x';
			*p++ = digits[c >> 4]; *p++ = digits[c & 15];
		} else {
			*p++ = (char)c;
		}
	}
	return (size_t)(p - dst);
}
