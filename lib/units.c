/* Durations and sizes as people write them on command lines. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "mt.h"

struct unit {
	const char *name;
	double mult;
};

static const struct unit time_units[] = {
	{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	{ "m", 60e9 }, { "min", 60e9 }, { "h", 3600e9 }, { NULL, 0 }
};

static const struct unit size_units[] = {
	{ "", 1 }, { "B", 1 },
	{ "K", 1024.0 }, { "KiB", 1024.0 }, { "KB", 1e3 },
	{ "M", 1048576.0 }, { "MiB", 1048576.0 }, { "MB", 1e6 },
	{ "G", 1073741824.0 }, { "GiB", 1073741824.0 }, { "GB", 1e9 },
	{ "T", 1099511627776.0 }, { "TiB", 1099511627776.0 }, { "TB", 1e12 },
	{ NULL, 0 }
};

/*
 * A non-negative decimal number (with an optional fraction) and a unit
 * from the table; the result is rounded to an integer.
 */
static int
parse_scaled(const char *s, const struct unit *units, int fold, uint64_t *out)
{
	char *end;
	double v, r;
	const struct unit *u;

	if (!s || (!(*s >= '0' && *s <= '9') && *s != '.'))
		return -1;
	v = strtod(s, &end);
	if (end == s || !isfinite(v) || v < 0)
		return -1;
	for (u = units; u->name; u++) {
		if (fold ? strcasecmp(end, u->name) == 0 : strcmp(end, u->name) == 0)
			break;
	}
	if (!u->name)
		return -1;
	r = nearbyint(v * u->mult);
	if (r >= 18446744073709551615.0)
		return -1;
	*out = (uint64_t)r;
	return 0;
}

/*
 * A bare number is refused (-2): "500000000" meant to be nanoseconds
 * would otherwise be 15.8 years.
 */
int
parse_duration(const char *s, uint64_t *ns)
{
	if (parse_scaled(s, time_units, 0, ns) == 0)
		return 0;
	if (s && *s && strspn(s, "0123456789.") == strlen(s)) {
		if (strtod(s, NULL) != 0)
			return -2;
		*ns = 0;	/* zero needs no unit */
		return 0;
	}
	return -1;
}

/* K, M, G, T are binary; KB, MB... decimal; case does not matter. */
int
parse_size(const char *s, uint64_t *bytes)
{
	return parse_scaled(s, size_units, 1, bytes);
}

uint64_t
eduration(const char *opt, const char *s, int zero_ok)
{
	uint64_t ns;
	int r = parse_duration(s, &ns);

	if (r == -2) {
		mt_errx(2, "%s '%s' needs a unit: ns, us, ms, s, m or h", opt,
		    mt_shown(s, strlen(s)));
	}
	if (r < 0 || (!ns && !zero_ok)) {
		mt_errx(2, "bad duration for %s '%s'", opt, mt_shown(s, strlen(s)));
	}
	return ns;
}

uint64_t
esize(const char *opt, const char *s)
{
	uint64_t bytes;

	if (parse_size(s, &bytes) < 0) {
		mt_errx(2, "bad size for %s '%s' (as 64K, 64KiB, 1.5M, 2G)", opt,
		    mt_shown(s, strlen(s)));
	}
	return bytes;
}

/* Bytes for people: "512 B", "1.5 MiB", "-74.0 MiB". */
const char *
mt_human(int64_t v, char *buf, size_t n)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double d = v < 0 ? -(double)v : (double)v;
	int u = 0;

	while (d >= 1024 && u < 6) {
		d /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, n, "%" PRId64 " B", v);
	else
		snprintf(buf, n, "%s%.1f %s", v < 0 ? "-" : "", d, units[u]);
	return buf;
}

const char *
sat_human(mt_wide v, unsigned *hit, char *buf, size_t n)
{
	char h[32];
	unsigned this = 0;
	int64_t shown = sat_narrow(v, &this);

	*hit |= this;
	if (!this)
		return mt_human(shown, buf, n);
	/* Past 2^63-1: at least 2^63, which is 8.0 EiB exactly. */
	snprintf(buf, n, "%s%s", shown > 0 ? ">=" : "<=", mt_human(shown, h, sizeof(h)));
	return buf;
}

uint64_t
mt_monotonic_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}
