/* regions: Disjoint address ranges. */
#ifndef MT_REGIONS_H
#define MT_REGIONS_H

#include <stddef.h>
#include <stdint.h>

/* regions.c: disjoint address ranges, sorted, in chunks (mt-record's mappings) */
struct mt_range {
	uint64_t lo, hi;
	uint8_t heap;
};
struct reg_chunk;
struct mt_ranges {
	struct reg_chunk **c;
	size_t nc, cap, n;	/* chunks, and ranges in all */
};
struct mt_rpos {
	size_t c, i;		/* chunk, index in it */
};
/* The first range that ends after addr (the end when none does). */
struct mt_rpos ranges_seek(const struct mt_ranges *s, uint64_t addr);
struct mt_range *ranges_at(const struct mt_ranges *s, struct mt_rpos at);	/* NULL: the end */
void ranges_next(const struct mt_ranges *s, struct mt_rpos *at);
/* Before *at, which then points at the new range; the caller keeps them disjoint. */
void ranges_insert(struct mt_ranges *s, struct mt_rpos *at, struct mt_range r);
/* Removes the range at *at, which then points at the one after. */
void ranges_delete(struct mt_ranges *s, struct mt_rpos *at);
void ranges_copy(struct mt_ranges *dst, const struct mt_ranges *src);
void ranges_free(struct mt_ranges *s);

#endif
