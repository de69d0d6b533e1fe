/*
 * clock: the recorder's one clock, the TSC turned into nanoseconds where
 * the kernel keeps time by it, else CLOCK_MONOTONIC.
 */

#include "internal.h"

/*
 * Where the kernel keeps time by the TSC (its clocksource is tsc:
 * invariant, the same on every CPU), the library reads the TSC itself,
 * cheaper than clock_gettime (mt_tsc() in proto.h for why it is fenced),
 * and we turn ticks into nanoseconds at a rate measured against
 * CLOCK_MONOTONIC as we start.  Our own times (exits, the watermark) are
 * taken the same way, so that every time of the trace is of one clock.
 */
#define TSC_CALIBRATE_NS 2000000u

/* Whether a file's first line begins with s. */
static int
file_says(const char *path, const char *s)
{
	char buf[64];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n >= (ssize_t)strlen(s) && !memcmp(buf, s, strlen(s));
}

/* A TSC and CLOCK_MONOTONIC read together: the closest pair of five. */
static void
tsc_pair(uint64_t *tsc, uint64_t *mono)
{
	uint64_t a, b, m, best = UINT64_MAX;
	int i;

	for (i = 0; i < 5; i++) {
		a = mt_tsc();
		m = mt_monotonic_ns();
		b = mt_tsc();
		if (b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*mono = m;
		}
	}
}

int
recorder_clock_start(struct recorder *rc)
{
	uint64_t t0 = 0, m0 = 0, t1 = 0, m1 = 0;
	const char *e = getenv("MT_CLOCK");

	if (!mt_tsc() || (e && !strcmp(e, "monotonic")) ||
	    !file_says("/sys/devices/system/clocksource/clocksource0/current_clocksource", "tsc\n"))
		return 0;
	tsc_pair(&t0, &m0);
	do
		tsc_pair(&t1, &m1);
	while (m1 - m0 < TSC_CALIBRATE_NS);
	if (t1 <= t0)
		return 0;
	rc->tsc_mult = (uint64_t)(((unsigned __int128)(m1 - m0) << 32) / (t1 - t0));
	rc->tsc_base = t0;
	rc->tsc_mono = m0;
	rc->tsc_on = rc->tsc_mult > 0;
	return rc->tsc_on;
}

