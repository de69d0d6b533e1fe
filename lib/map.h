/* map: A hash map of 64-bit keys. */
#ifndef MT_MAP_H
#define MT_MAP_H

#include <stddef.h>
#include <stdint.h>

/* map.c: 64-bit keys to pointers (a NULL value is an empty slot) */
struct u64map_entry {
	uint64_t key;
	void *value;
};
struct u64map {
	struct u64map_entry *e;
	size_t n, cap;
};
/*
 * The value slot of key, or NULL when it is absent and insert is 0.  A
 * slot inserted must be given a value before the next call.
 */
void **u64map_get(struct u64map *m, uint64_t key, int insert);
void u64map_free(struct u64map *m, void (*free_value)(void *));
/*
 * The slot of a stack, keyed by a hash of its frames (recorders that
 * give each stack an id the first time they see it); inserted if new.
 */
void **u64map_stack(struct u64map *m, const uint64_t *ips, size_t n);

#endif
