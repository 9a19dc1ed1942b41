/* format.c - integer and double formatting and strict parsing.
 *
 * Integers use a two-digits-at-a-time table.  Doubles are printed in the
 * shortest form that reads back to the identical value: integral values
 * below 2^53 print as integers; everything else gets its digits from
 * dfs_dtoa_shortest() (dtoa.c: Dragonbox, and Schubfach for powers of
 * two), which are laid out here exactly as printf("%.*g", ndigits, v) would
 * print them: plain when the decimal exponent x satisfies -4 <= x <
 * ndigits, otherwise d.ddde+XX.  For normal doubles that is the very text
 * the earlier loop (snprintf "%.15g", 16, 17 with a strtod check each)
 * printed, at a tenth of its cost or less; subnormals, which carry fewer
 * bits, can now come out shorter than its 15-digit first try. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "util/format.h"
#include "util/dtoa.h"

static const char digits2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* The n decimal digits of x < 10^8 into p[0..n): two at a time from
 * the right. */
static void put_digits_short(char *p, uint32_t x, int n)
{
	char *q = p + n;
	while (x >= 100) {
		q -= 2;
		memcpy(q, digits2 + x % 100 * 2, 2);
		x /= 100;
	}
	if (x >= 10) {
		q -= 2;
		memcpy(q, digits2 + x * 2, 2);
	} else {
		*--q = (char)('0' + x);
	}
}

#if defined(__SSE2__)
/* The digits of two groups g < 10^4 as eight 16-bit lanes, g's first:
 * lane k of a group holds floor(g / 10^(3-k)) (the group taken times 4,
 * so that every reciprocal fits 16 bits; a multiply keeping the high half
 * by the rounded-up reciprocal, then one by a power of two that shifts
 * each lane right by its own amount: exact for every g < 10^4, which the
 * unit test goes through), and digit k is that less ten times lane k-1. */
static inline __m128i group_digits(uint16_t g, uint16_t h)
{
	const __m128i recip = _mm_set_epi16(-32768, 6554, 5243, 8389, -32768, 6554, 5243, 8389);
	const __m128i shift = _mm_set_epi16(-32768, 16384, 2048, 128, -32768, 16384, 2048, 128);
	short a = (short)g, b = (short)h;
	__m128i x = _mm_slli_epi16(_mm_set_epi16(b, b, b, b, a, a, a, a), 2);
	x = _mm_mulhi_epu16(_mm_mulhi_epu16(x, recip), shift);
	return _mm_sub_epi16(x, _mm_slli_epi64(_mm_mullo_epi16(x, _mm_set1_epi16(10)), 16));
}

/* The 16 digits of v < 10^16 (leading zeros included) as text */
static inline __m128i digits16(uint64_t v)
{
	uint32_t hi = (uint32_t)(v / 100000000), lo = (uint32_t)(v - (uint64_t)hi * 100000000);
	__m128i x = group_digits((uint16_t)(hi / 10000), (uint16_t)(hi % 10000));
	__m128i y = group_digits((uint16_t)(lo / 10000), (uint16_t)(lo % 10000));
	return _mm_add_epi8(_mm_packus_epi16(x, y), _mm_set1_epi8('0'));
}

/* Exactly eight / sixteen digits of x < 10^8 / v < 10^16 into d */
static inline void put8(char *d, uint32_t x)
{
	__m128i t = group_digits((uint16_t)(x / 10000), (uint16_t)(x % 10000));
	_mm_storel_epi64((__m128i *)d, _mm_add_epi8(_mm_packus_epi16(t, t), _mm_set1_epi8('0')));
}

static inline void put16(char *d, uint64_t v)
{
	_mm_storeu_si128((__m128i *)d, digits16(v));
}
#else
static void put4(char *d, uint32_t x)
{
	memcpy(d, digits2 + x / 100 * 2, 2);
	memcpy(d + 2, digits2 + x % 100 * 2, 2);
}

static inline void put8(char *d, uint32_t x)
{
	put4(d, x / 10000);
	put4(d + 4, x % 10000);
}

static inline void put16(char *d, uint64_t v)
{
	uint32_t hi = (uint32_t)(v / 100000000);
	put8(d, hi);
	put8(d + 8, (uint32_t)(v - (uint64_t)hi * 100000000));
}
#endif

/* The n decimal digits of v into p[0..n), nothing else written: the last
 * eight or sixteen in one piece, the few before them two at a time. */
static void put_digits(char *p, uint64_t v, int n)
{
	if (n <= 8) {
		put_digits_short(p, (uint32_t)v, n);
	} else if (n <= 16) {
		uint64_t hi = v / 100000000;
		put_digits_short(p, (uint32_t)hi, n - 8);
		put8(p + n - 8, (uint32_t)(v - hi * 100000000));
	} else {
		uint64_t hi = v / 10000000000000000u;
		put_digits_short(p, (uint32_t)hi, n - 16);
		put16(p + n - 16, v - hi * 10000000000000000u);
	}
}

size_t dfs_fmt_u64(char *out, uint64_t v)
{
	/* most counters are small: zeros and single digits first */
	if (v < 10) {
		*out = (char)('0' + v);
		return 1;
	}
	int n = dfs_count_digits(v);
	put_digits(out, v, n);
	return (size_t)n;
}

size_t dfs_fmt_i64(char *out, int64_t v)
{
	if (v < 0) {
		*out = '-';
		return 1 + dfs_fmt_u64(out + 1, (uint64_t)0 - (uint64_t)v);
	}
	return dfs_fmt_u64(out, (uint64_t)v);
}

/* d.ddde-XX: as %g prints the exponent, sign and at least two digits */
static size_t fmt_exponential(char *out, uint64_t digits, int n, int x)
{
	put_digits(out + 1, digits, n);
	out[0] = out[1];
	size_t len = 1;
	if (n > 1) {
		out[1] = '.';
		len = (size_t)n + 1;
	}
	out[len++] = 'e';
	out[len++] = x < 0 ? '-' : '+';
	unsigned ax = x < 0 ? (unsigned)-x : (unsigned)x;
	if (ax >= 100) {
		out[len++] = (char)('0' + ax / 100);
		ax %= 100;
	}
	out[len++] = digits2[ax * 2];
	out[len++] = digits2[ax * 2 + 1];
	return len;
}

#if defined(__SSE2__)
/* The plain layouts of n <= 17 digits whose first digit has exponent
 * -4 <= x <= n - 2 ("0.000ddd", "dd.ddd"), with no branch on the digits:
 * they are made as 17 with trailing zeros (the first apart, the sixteen
 * others in one register), and the point put among them in the register.
 * Writes up to 22 bytes at out, past the text too. */
static size_t fmt_plain(char *out, uint64_t digits, int n, int x)
{
	uint64_t w = digits * dfs_pow10(17 - n);
	uint64_t d0 = w / 10000000000000000u;
	__m128i rest = digits16(w - d0 * 10000000000000000u);
	if (x < 0) {
		size_t zeros = (size_t)(-x - 1);
		memcpy(out, "0.000000", 8);
		out[2 + zeros] = (char)('0' + d0);
		_mm_storeu_si128((__m128i *)(out + 3 + zeros), rest);
		return 2 + zeros + (size_t)n;
	}
	/* out[1 + j]: digit j + 1 before the point (j < x), the point (j == x),
	 * digit j after it */
	const __m128i at = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
	__m128i xs = _mm_set1_epi8((char)x);
	__m128i after = _mm_cmpgt_epi8(at, xs), point = _mm_cmpeq_epi8(at, xs);
	__m128i text = _mm_or_si128(
		_mm_andnot_si128(_mm_or_si128(after, point), rest),
		_mm_or_si128(_mm_and_si128(after, _mm_slli_si128(rest, 1)),
		             _mm_and_si128(point, _mm_set1_epi8('.'))));
	out[0] = (char)('0' + d0);
	_mm_storeu_si128((__m128i *)(out + 1), text);
	out[17] = (char)(_mm_extract_epi16(rest, 7) >> 8);
	return (size_t)n + 1;
}
#endif

/* digits * 10^exp10 in %g layout for precision n = number of digits */
static size_t fmt_decimal(char *out, dfs_decimal d)
{
	int n = dfs_count_digits(d.digits);
	int x = n - 1 + d.exp10; /* decimal exponent of the first digit */
#if defined(__SSE2__)
	if (x >= -4 && x <= n - 2)
		return fmt_plain(out, d.digits, n, x);
#endif
	if (x < -4 || x >= n)
		return fmt_exponential(out, d.digits, n, x);
	if (x < 0) {
		size_t zeros = (size_t)(-x - 1);
		out[0] = '0';
		out[1] = '.';
		memset(out + 2, '0', zeros);
		put_digits(out + 2 + zeros, d.digits, n);
		return 2 + zeros + (size_t)n;
	}
	if (x + 1 == n) {
		put_digits(out, d.digits, n);
		return (size_t)n;
	}
	/* x + 1 integer digits, then the point and the rest (a few bytes
	 * moved one to the left: a loop, not a call) */
	put_digits(out + 1, d.digits, n);
	for (int i = 0; i <= x; i++)
		out[i] = out[i + 1];
	out[x + 1] = '.';
	return (size_t)n + 1;
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
	if (signbit(v)) {
		*out = '-';
		return 1 + fmt_decimal(out + 1, dfs_dtoa_shortest(v));
	}
	return fmt_decimal(out, dfs_dtoa_shortest(v));
}

/* The length fmt_decimal gives d, without writing it */
static size_t decimal_len(dfs_decimal d)
{
	int n = dfs_count_digits(d.digits);
	int x = n - 1 + d.exp10;
	if (x < -4 || x >= n) {
		unsigned ax = x < 0 ? (unsigned)-x : (unsigned)x;
		return (size_t)(n > 1 ? n + 1 : 1) + 2 + (ax >= 100 ? 3 : 2);
	}
	if (x < 0)
		return 2 + (size_t)(-x - 1) + (size_t)n;
	return (size_t)n + (x + 1 == n ? 0 : 1);
}

/* kept: the exponent + 64 in the top 7 bits, the digits (< 10^17 < 2^57)
 * below */
#define KEPT_DIGITS 57

size_t dfs_fmt_double_len_keep(double v, uint64_t *kept)
{
	*kept = 0;
	if (v == 0)
		return signbit(v) ? 2 : 1;
	if (isnan(v))
		return signbit(v) ? 4 : 3;
	if (isinf(v))
		return v < 0 ? 4 : 3;
	if (fabs(v) < 9007199254740992.0 && v == (double)(int64_t)v)
		return dfs_fmt_i64_len((int64_t)v);
	dfs_decimal d = dfs_dtoa_shortest(v);
	if (signbit(v))
		return 1 + decimal_len(d);
	if (d.exp10 >= -64 && d.exp10 <= 63)
		*kept = (uint64_t)(d.exp10 + 64) << KEPT_DIGITS | d.digits;
	return decimal_len(d);
}

size_t dfs_fmt_double_len(double v)
{
	uint64_t kept;
	return dfs_fmt_double_len_keep(v, &kept);
}

size_t dfs_fmt_double_kept(char *out, uint64_t kept)
{
	dfs_decimal d = {kept & (((uint64_t)1 << KEPT_DIGITS) - 1),
	                 (int)(kept >> KEPT_DIGITS) - 64};
	return fmt_decimal(out, d);
}

const char *dfs_scan_u64(const char *s, const char *end, uint64_t *out)
{
	const char *p = s;
	if (p < end && *p == '+')
		p++;
	const char *first = p;
	uint64_t v = 0;
	for (; p < end; p++) {
		unsigned d = (unsigned char)*p - '0';
		if (d > 9)
			break;
		if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, d, &v))
			return NULL;
	}
	if (p == first)
		return NULL;
	*out = v;
	return p;
}

const char *dfs_scan_i64(const char *s, const char *end, int64_t *out)
{
	bool neg = s < end && *s == '-';
	uint64_t u;
	if (neg && s + 1 < end && s[1] == '+')
		return NULL;
	const char *p = dfs_scan_u64(s + neg, end, &u);
	if (!p || u > (uint64_t)INT64_MAX + neg)
		return NULL;
	*out = neg ? (int64_t)(0 - u) : (int64_t)u;
	return p;
}

bool dfs_parse_u64(const char *s, size_t len, uint64_t *out)
{
	uint64_t v;
	if (dfs_scan_u64(s, s + len, &v) != s + len || len == 0)
		return false;
	*out = v;
	return true;
}

bool dfs_parse_i64(const char *s, size_t len, int64_t *out)
{
	int64_t v;
	if (dfs_scan_i64(s, s + len, &v) != s + len || len == 0)
		return false;
	*out = v;
	return true;
}

/* Exact powers of ten as doubles (10^22 is the last one a double holds). */
static const double exact_pow10[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* x * 2^e2 (x > 0) rounded to the nearest double, ties to even, where
 * `sticky` says the exact value lies a little above x * 2^e2 (x is a
 * truncated quotient).  false when the result is not a normal double. */
static bool round_to_double(unsigned __int128 x, bool sticky, int e2, double *out)
{
	uint64_t hi = (uint64_t)(x >> 64);
	int lz = hi ? __builtin_clzll(hi) : 64 + __builtin_clzll((uint64_t)x);
	x <<= lz;
	e2 -= lz;
	/* bit 127 is set: keep 53 bits, the 75 below decide the rounding */
	uint64_t m = (uint64_t)(x >> 75);
	unsigned __int128 rest = x & (((unsigned __int128)1 << 75) - 1);
	unsigned __int128 half = (unsigned __int128)1 << 74;
	if (rest > half || (rest == half && (sticky || (m & 1))))
		m++;
	int e = e2 + 75;   /* the value is m * 2^e */
	if (m >> 53) {
		m >>= 1;
		e++;
	}
	int biased = e + 52 + 1023;
	if (biased < 1 || biased > 2046)
		return false;
	uint64_t bits = ((uint64_t)biased << 52) | (m & (((uint64_t)1 << 52) - 1));
	memcpy(out, &bits, sizeof(bits));
	return true;
}

/* mant * 10^scale (mant > 0) correctly rounded, for |scale| <= 27: as
 * 10^k = 5^k * 2^k and 5^27 fits 64 bits, a product by 5^k is exact in
 * 128 bits, and a quotient of mant shifted to the top of 128 bits by 5^k
 * keeps at least 64 bits, its remainder telling whether anything was
 * cut.  false: out of that range. */
static bool exact_decimal(uint64_t mant, int scale, double *out)
{
	static const uint64_t pow5[28] = {
		1u, 5u, 25u, 125u, 625u, 3125u, 15625u, 78125u, 390625u, 1953125u,
		9765625u, 48828125u, 244140625u, 1220703125u, 6103515625u, 30517578125u,
		152587890625u, 762939453125u, 3814697265625u, 19073486328125u,
		95367431640625u, 476837158203125u, 2384185791015625u, 11920928955078125u,
		59604644775390625u, 298023223876953125u, 1490116119384765625u,
		7450580596923828125u,
	};
	if (scale > 27 || scale < -27)
		return false;
	if (scale >= 0)
		return round_to_double((unsigned __int128)mant * pow5[scale], false, scale, out);
	int s = 64 + __builtin_clzll(mant);
	unsigned __int128 n = (unsigned __int128)mant << s, d = pow5[-scale];
	unsigned __int128 q = n / d;
	return round_to_double(q, n - q * d != 0, scale - s, out);
}

/* Plain decimals whose digits fit 53 bits with a power of ten up to 22:
 * the digits and the power are both exact doubles, so the one product or
 * quotient is the correctly rounded value (Clinger's fast path).  Most
 * counters in CSV are such; the shortest digits of other doubles (up to
 * 17) take exact_decimal.  NULL: let strtod decide. */
const char *dfs_scan_double(const char *s, const char *end, double *out)
{
	const char *p = s;
	bool neg = false;
	if (p < end && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	uint64_t mant = 0;
	int digits = 0, scale = 0;
	bool any = false;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		any = true;
		if (mant == 0 && *p == '0')
			continue;
		if (++digits > 19)
			return NULL;
		mant = mant * 10 + (uint64_t)(*p - '0');
	}
	if (p < end && *p == '.') {
		for (p++; p < end && *p >= '0' && *p <= '9'; p++) {
			any = true;
			scale--;
			if (mant == 0 && *p == '0')
				continue;
			if (++digits > 19)
				return NULL;
			mant = mant * 10 + (uint64_t)(*p - '0');
		}
	}
	if (!any)
		return NULL;
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		bool eneg = false;
		if (p < end && (*p == '-' || *p == '+'))
			eneg = *p++ == '-';
		if (p == end || *p < '0' || *p > '9')
			return NULL;
		int e = 0;
		for (; p < end && *p >= '0' && *p <= '9'; p++) {
			if (e > 1000)
				return NULL;
			e = e * 10 + (*p - '0');
		}
		scale += eneg ? -e : e;
	}
	double v;
	if (mant == 0)
		v = 0.0;
	else if (mant <= ((uint64_t)1 << 53) && scale >= -22 && scale <= 22)
		v = scale < 0 ? (double)mant / exact_pow10[-scale]
		              : (double)mant * exact_pow10[scale];
	else if (!exact_decimal(mant, scale, &v))
		return NULL;
	*out = neg ? -v : v;
	return p;
}

bool dfs_parse_double(const char *s, size_t len, double *out)
{
	double v;
	if (len && dfs_scan_double(s, s + len, &v) == s + len) {
		*out = v;
		return true;
	}
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
	v = strtod(tmp, &end);
	if (end != tmp + len)
		return false;
	*out = v;
	return true;
}
