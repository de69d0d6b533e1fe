/*
 * format: an event as its line of text, and the escaper of a text
 * field; the hot path of mt-decode, so no printf.
 */
#include <string.h>

#include "mt.h"

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
		if (sig > 0 && sig < MT_NSIGNALS && mt_signal_names[sig]) {
			p = put_str(p, (struct mt_str){ mt_signal_names[sig], strlen(mt_signal_names[sig]) });
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
