/* hash.c - the record-id hash of Darshan logs.
 *
 * Record ids are Bob Jenkins' 64-bit hash from lookup8.c (1997), the
 * function named hash() there, called with seed 0 on the name bytes.  The
 * key is consumed byte by byte, so the result does not depend on the host
 * byte order. */
#include <stddef.h>
#include <stdint.h>

#include "darshanfs/hash.h"

#define MIX64(a, b, c)                                                        \
	do {                                                                  \
		a -= b; a -= c; a ^= (c >> 43);                               \
		b -= c; b -= a; b ^= (a << 9);                                \
		c -= a; c -= b; c ^= (b >> 8);                                \
		a -= b; a -= c; a ^= (c >> 38);                               \
		b -= c; b -= a; b ^= (a << 23);                               \
		c -= a; c -= b; c ^= (b >> 5);                                \
		a -= b; a -= c; a ^= (c >> 35);                               \
		b -= c; b -= a; b ^= (a << 49);                               \
		c -= a; c -= b; c ^= (b >> 11);                               \
		a -= b; a -= c; a ^= (c >> 12);                               \
		b -= c; b -= a; b ^= (a << 18);                               \
		c -= a; c -= b; c ^= (b >> 22);                               \
	} while (0)

static uint64_t le64(const unsigned char *k)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = (v << 8) | k[i];
	return v;
}

uint64_t dfs_hash_name(const void *key, size_t length)
{
	const unsigned char *k = key;
	uint64_t a = 0, b = 0;                /* the seed */
	uint64_t c = 0x9e3779b97f4a7c13ULL;   /* golden ratio */
	size_t len = length;

	while (len >= 24) {
		a += le64(k);
		b += le64(k + 8);
		c += le64(k + 16);
		MIX64(a, b, c);
		k += 24;
		len -= 24;
	}
	c += (uint64_t)length;
	/* the low byte of c holds the length, so the tail goes above it */
	for (size_t i = len; i-- > 16;)
		c += (uint64_t)k[i] << (8 * (i - 15));
	for (size_t i = len < 16 ? len : 16; i-- > 8;)
		b += (uint64_t)k[i] << (8 * (i - 8));
	for (size_t i = len < 8 ? len : 8; i-- > 0;)
		a += (uint64_t)k[i] << (8 * i);
	MIX64(a, b, c);
	return c;
}
