/* seconds: a time in nanoseconds shown as seconds (seconds.h). */
#include <inttypes.h>
#include <stdio.h>

#include "mt.h"

const char *
mt_seconds(uint64_t ns, int digits, const char *unit, char *buf, size_t n)
{
	uint64_t frac = ns % 1000000000;
	int d = digits < 0 || digits > 9 ? 9 : digits, i;

	for (i = d; i < 9; i++)
		frac /= 10;
	if (digits < 0)
		for (; d > 0 && frac % 10 == 0; d--)
			frac /= 10;
	if (d)
		snprintf(buf, n, "%" PRIu64 ".%0*" PRIu64 "%s", ns / 1000000000, d, frac, unit);
	else
		snprintf(buf, n, "%" PRIu64 "%s", ns / 1000000000, unit);
	return buf;
}
