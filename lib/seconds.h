/* seconds: a time in nanoseconds shown as seconds. */
#ifndef MT_SECONDS_H
#define MT_SECONDS_H

#include <stddef.h>
#include <stdint.h>

/*
 * ns as seconds with digits decimals, cut, not rounded, then unit:
 * "12.345 s"; digits < 0: as many as it takes, up to 9 ("12.3s", "12s").
 * Returns buf.
 */
const char *mt_seconds(uint64_t ns, int digits, const char *unit, char *buf, size_t n);

#endif
