/* dtoa.h - internal interface of the shortest-digits double converter.
 *
 * dtoa.c finds the digits (Dragonbox and Schubfach, see there); format.c
 * lays them out as text in printf's %g notation.  The floor-log helpers
 * and the table accessor are here so the unit test can check them against
 * exact arithmetic over their whole domain. */
#ifndef DFS_UTIL_DTOA_H
#define DFS_UTIL_DTOA_H

#include <stdint.h>

/* A positive decimal digits * 10^exp10 whose digits have no trailing zero */
typedef struct dfs_decimal {
	uint64_t digits;
	int exp10;
} dfs_decimal;

/* The decimal with the fewest significant digits that strtod() reads back
 * as |v|; among several of that length the one %.*g prints.  v must be
 * finite and non-zero; its sign is ignored. */
dfs_decimal dfs_dtoa_shortest(double v);

/* floor(x / 2^s) for any sign of x, without relying on how >> treats
 * negative numbers (implementation-defined in C) */
static inline int64_t dfs_floor_shift(int64_t x, unsigned s)
{
	return x >= 0 ? x >> s : ~(~x >> s);
}

/* floor(log10(2^q)) and floor(log10(3/4 * 2^q)) for |q| <= 1200, and
 * floor(log2(10^e)) for |e| <= 400.  The multipliers are log10(2) * 2^22,
 * log10(3/4) * 2^22 and log2(10) * 2^22 rounded down; the ranges are
 * where that was checked exactly (and the unit test checks them again). */
static inline int dfs_flog10_pow2(int q)
{
	return (int)dfs_floor_shift((int64_t)q * 1262611, 22);
}

static inline int dfs_flog10_three_quarters_pow2(int q)
{
	return (int)dfs_floor_shift((int64_t)q * 1262611 - 524032, 22);
}

static inline int dfs_flog2_pow10(int e)
{
	return (int)dfs_floor_shift((int64_t)e * 13933176, 22);
}

/* Range of e in the table of 10^e approximations */
#define DFS_DTOA_POW10_MIN (-292)
#define DFS_DTOA_POW10_MAX 326

/* The table entry for 10^e: g = hi * 2^64 + lo with 2^127 <= g < 2^128
 * and g == ceil(10^e / 2^(floor(log2(10^e)) - 127)). */
void dfs_dtoa_pow10_entry(int e, uint64_t *hi, uint64_t *lo);

#endif
