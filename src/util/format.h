/* format.h - number formatting and parsing shared by every renderer.
 *
 * The CSV files print integers in decimal and doubles in the shortest text
 * that reads back (strtod) to the identical double, so a row can be parsed
 * and repacked into the exact binary record it came from. */
#ifndef DARSHANFS_FORMAT_H
#define DARSHANFS_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DFS_FMT_INT_MAX 21    /* "-9223372036854775808" + NUL */
#define DFS_FMT_DOUBLE_MAX 32

/* Write the value to `out` (no NUL); return the number of bytes.  The
 * integer writers write those bytes alone; dfs_fmt_double may write up
 * to DFS_FMT_DOUBLE_MAX bytes at out (past its text too), so out must
 * have that room. */
size_t dfs_fmt_u64(char *out, uint64_t v);
size_t dfs_fmt_i64(char *out, int64_t v);
size_t dfs_fmt_double(char *out, double v);
/* The number of bytes the dfs_fmt_* above write for v, without writing
 * them (for sizes of text rendered later). */
static inline size_t dfs_fmt_u64_len(uint64_t v);
static inline size_t dfs_fmt_i64_len(int64_t v);
size_t dfs_fmt_double_len(double v);

/* A double's digits kept between measuring its text and writing it (a
 * text measured at once and written later need not find them twice):
 * dfs_fmt_double_len_keep tells the length as dfs_fmt_double_len does
 * and sets *kept to the shortest digits and their exponent in 64 bits
 * when the text is made of them (v finite, positive, not an integer
 * below 2^53, its exponent within [-64, 63]), else to 0 (the others are
 * written quickly from v itself).  dfs_fmt_double_kept writes the text
 * of a nonzero kept value as dfs_fmt_double writes v (with its room). */
size_t dfs_fmt_double_len_keep(double v, uint64_t *kept);
size_t dfs_fmt_double_kept(char *out, uint64_t kept);

/* Strict parsers for one whole field: no leading/trailing junk.  They
 * return false on syntax errors and on overflow. */
bool dfs_parse_i64(const char *s, size_t len, int64_t *out);
bool dfs_parse_u64(const char *s, size_t len, uint64_t *out);
bool dfs_parse_double(const char *s, size_t len, double *out);

/* The number at s (text up to end): where it stops, the value in *out; or
 * NULL when no number of that kind starts at s, it overflows, or (for
 * doubles) it is not one of the plain decimals read without strtod.
 * dfs_parse_* of a whole field agree with them wherever they answer. */
const char *dfs_scan_u64(const char *s, const char *end, uint64_t *out);
const char *dfs_scan_i64(const char *s, const char *end, int64_t *out);
const char *dfs_scan_double(const char *s, const char *end, double *out);

/* 10^n, 0 <= n <= 19 */
static inline uint64_t dfs_pow10(int n)
{
	static const uint64_t pow10[20] = {
		1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u,
		100000000u, 1000000000u, 10000000000u, 100000000000u,
		1000000000000u, 10000000000000u, 100000000000000u,
		1000000000000000u, 10000000000000000u, 100000000000000000u,
		1000000000000000000u, 10000000000000000000u,
	};
	return pow10[n];
}

/* Number of decimal digits of v > 0.  (The lengths of integers are
 * asked for seven times a row of files.csv while its size is measured:
 * inline, not a call each.) */
static inline int dfs_count_digits(uint64_t v)
{
#if defined(__GNUC__)
	/* floor(log10(2^bits)) is off by at most one; the table settles it */
	int bits = 64 - __builtin_clzll(v | 1);
	int n = (bits * 1233) >> 12;
	return n + (v >= dfs_pow10(n));
#else
	int n = 1;
	while (n < 20 && v >= dfs_pow10(n))
		n++;
	return n;
#endif
}

static inline size_t dfs_fmt_u64_len(uint64_t v)
{
	return v < 10 ? 1 : (size_t)dfs_count_digits(v);
}

static inline size_t dfs_fmt_i64_len(int64_t v)
{
	if (v < 0)
		return 1 + (size_t)dfs_count_digits((uint64_t)0 - (uint64_t)v);
	return dfs_fmt_u64_len((uint64_t)v);
}

#endif
