/* units: Durations and sizes read and shown, and sums that never wrap. */
#ifndef MT_UNITS_H
#define MT_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* units.c: "250ms", "1.5s", "2m" -> nanoseconds; "64K", "10MiB" -> bytes */
int parse_duration(const char *s, uint64_t *ns);	/* -2: a number without a unit */
int parse_size(const char *s, uint64_t *bytes);
uint64_t eduration(const char *opt, const char *s, int zero_ok);	/* parse_duration, or exit 2 */
uint64_t esize(const char *opt, const char *s);		/* parse_size, or exit 2 */

/*
 * Sums that never wrap.  A sum stops at +-(2^63-1), where every number
 * of the text format fits, and a column's struct mt_sat remembers which
 * way; sat_say() (diag.c) says it once and sets mt_status.  A sum whose
 * terms have both signs is kept wide (mt_wide) and narrowed only where
 * it is shown, for one stopped early would lose what the other sign
 * takes back.
 */
#define SAT_MAX INT64_MAX
#define SAT_UP 1		/* a sum stopped at SAT_MAX */
#define SAT_DOWN 2		/* at -SAT_MAX */
typedef __int128 mt_wide;
struct mt_sat {
	const char *column;	/* as the output names it: "Size" */
	unsigned hit, said;	/* SAT_UP, SAT_DOWN: reached, and said */
};
void sat_say(struct mt_sat *s);	/* what was hit and not said yet */

static inline int64_t
sat_narrow(mt_wide v, unsigned *hit)
{
	if (v > SAT_MAX) {
		*hit |= SAT_UP;
		return SAT_MAX;
	}
	if (v < -SAT_MAX) {
		*hit |= SAT_DOWN;
		return -SAT_MAX;
	}
	return (int64_t)v;
}

static inline int64_t
sat_add(int64_t a, int64_t b, unsigned *hit)
{
	return sat_narrow((mt_wide)a + b, hit);
}

static inline int64_t
sat_sub(int64_t a, int64_t b, unsigned *hit)
{
	return sat_narrow((mt_wide)a - b, hit);
}

/* mt_human's, or past SAT_MAX ">=8.0 EiB" (and "<=-8.0 EiB"), hit said. */
const char *sat_human(mt_wide v, unsigned *hit, char *buf, size_t n);

const char *mt_human(int64_t v, char *buf, size_t n);	/* units.c: "1.5 MiB" */

#endif
