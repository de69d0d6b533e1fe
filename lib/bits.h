/* bits: Hashing and varints, shared by the tables and the codecs. */
#ifndef MT_BITS_H
#define MT_BITS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A 64-bit mixer (murmur3's finaliser) for the hash tables. */
static inline uint64_t
hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

/* Bytes hashed eight at a time (a group's key for every lifetime). */
static inline uint64_t
hash_bytes(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = n * 0x9e3779b97f4a7c15ULL, w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, s, n);
	return hash64(h ^ w);
}

/* varint.h-like helpers, used by the trace codec and the recorder */
static inline size_t varint_put(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}
static inline uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}
static inline int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

#endif
