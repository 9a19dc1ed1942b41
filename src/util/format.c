/* format.c - integer and double formatting and strict parsing.
 *
 * Integers use a two-digits-at-a-time table.  Doubles are printed in the
 * shortest form that reads back to the identical value: integral values
 * below 2^53 print as integers, everything else tries 15, 16 and 17
 * significant digits ("%.*g") and keeps the first that round-trips.  Any
 * decimal of at most 15 significant digits survives a trip through a
 * double unchanged, so when a representation of <= 15 digits exists the
 * first attempt finds it (with trailing zeros removed by %g). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "darshanfs/format.h"

static const char digits2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

size_t dfs_fmt_u64(char *out, uint64_t v)
{
	char tmp[24];
	char *p = tmp + sizeof(tmp);
	while (v >= 100) {
		unsigned i = (unsigned)(v % 100) * 2;
		v /= 100;
		*--p = digits2[i + 1];
		*--p = digits2[i];
	}
	if (v >= 10) {
		unsigned i = (unsigned)v * 2;
		*--p = digits2[i + 1];
		*--p = digits2[i];
	} else {
		*--p = (char)('0' + v);
	}
	size_t n = (size_t)(tmp + sizeof(tmp) - p);
	memcpy(out, p, n);
	return n;
}

size_t dfs_fmt_i64(char *out, int64_t v)
{
	if (v < 0) {
		*out = '-';
		return 1 + dfs_fmt_u64(out + 1, (uint64_t)0 - (uint64_t)v);
	}
	return dfs_fmt_u64(out, (uint64_t)v);
}

size_t dfs_fmt_double(char *out, double v)
{
	if (v == 0) {
		if (signbit(v)) {
			memcpy(out, "-0", 2);
			return 2;
		}
		*out = '0';
		return 1;
	}
	if (isnan(v)) {
		/* strtod reads "nan" and "-nan" back as NaN of that sign */
		if (signbit(v)) {
			memcpy(out, "-nan", 4);
			return 4;
		}
		memcpy(out, "nan", 3);
		return 3;
	}
	if (isinf(v)) {
		if (v < 0) {
			memcpy(out, "-inf", 4);
			return 4;
		}
		memcpy(out, "inf", 3);
		return 3;
	}
	if (fabs(v) < 9007199254740992.0 && v == (double)(int64_t)v)
		return dfs_fmt_i64(out, (int64_t)v);
	char tmp[DFS_FMT_DOUBLE_MAX];
	int n = 0;
	for (int prec = 15; prec <= 17; prec++) {
		n = snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
		if (prec == 17 || strtod(tmp, NULL) == v)
			break;
	}
	memcpy(out, tmp, (size_t)n);
	return (size_t)n;
}

bool dfs_parse_u64(const char *s, size_t len, uint64_t *out)
{
	size_t i = 0;
	if (i < len && s[i] == '+')
		i++;
	if (i == len)
		return false;
	uint64_t v = 0;
	for (; i < len; i++) {
		unsigned d = (unsigned char)s[i] - '0';
		if (d > 9)
			return false;
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

bool dfs_parse_i64(const char *s, size_t len, int64_t *out)
{
	bool neg = len > 0 && s[0] == '-';
	uint64_t u;
	if (neg) {
		if (len < 2 || s[1] == '+')
			return false;
		if (!dfs_parse_u64(s + 1, len - 1, &u) || u > (uint64_t)INT64_MAX + 1)
			return false;
		*out = (int64_t)(0 - u);
		return true;
	}
	if (!dfs_parse_u64(s, len, &u) || u > (uint64_t)INT64_MAX)
		return false;
	*out = (int64_t)u;
	return true;
}

bool dfs_parse_double(const char *s, size_t len, double *out)
{
	char tmp[128];
	if (len == 0 || len >= sizeof(tmp))
		return false;
	/* strtod skips leading blanks and accepts hex floats; a CSV field
	 * holds a plain number, so reject anything that does not start like
	 * one */
	unsigned char c0 = (unsigned char)s[0];
	if (!(c0 == '-' || c0 == '+' || c0 == '.' || (c0 >= '0' && c0 <= '9') ||
	      c0 == 'n' || c0 == 'N' || c0 == 'i' || c0 == 'I'))
		return false;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	char *end;
	errno = 0;
	double v = strtod(tmp, &end);
	if (end != tmp + len)
		return false;
	*out = v;
	return true;
}
