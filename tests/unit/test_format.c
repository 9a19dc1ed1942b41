/* test_format.c - number formatting: dfs_fmt_double (the Schubfach digits
 * of dtoa.c laid out in %g notation) and the integer formatters.
 *
 * The contract of dfs_fmt_double is checked against printf itself: for a
 * double v that is not an integer below 2^53, with p the fewest digits for
 * which strtod(sprintf("%.*g", p, v)) == v, the output must be exactly
 * sprintf("%.*g", p, v).  check_double() proves that for one value with
 * three printf/strtod calls instead of seventeen:
 *   (a) strtod(output) is bit-identical to v;
 *   (c) output == sprintf("%.*g", n, v), n its significant digits;
 *   (b) sprintf("%.*g", n - 1, v) does not read back.
 * (b) suffices because, when the rounding interval of v is symmetric, a
 * correctly rounded p-digit decimal that reads back makes the (p+1)-digit
 * one read back too: the (p+1)-digit decimals include the p-digit ones, so
 * the nearest of them is no farther from v.  The interval is lopsided only
 * for powers of two (significand 2^52, not the smallest normal), and for
 * those every shorter length is tried; all 2045 of them are checked here.
 *
 * That runs over the boundary values, every power of two and of ten, and
 * ten million pseudo-random doubles (random bit patterns, subnormals,
 * timestamp-like k / 2^n, decimal strings of 1..17 digits, small times).
 * DFS_TEST_QUICK=1 cuts the random part to 200,000 (for sanitizer runs);
 * the random part runs on up to 8 threads (one per online CPU).
 * The floor-log helpers and the table of powers of ten in dtoa.c are
 * re-derived here with a small exact big-integer implementation.
 * test_timing prints ns per value, new against the old snprintf loop. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>
#include <unistd.h>

#include "util/format.h"
#include "util/dtoa.h"

/* ---- helpers --------------------------------------------------------------- */

typedef struct rng {
	uint64_t s;
} rng;

/* splitmix64 */
static uint64_t next_u64(rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static uint64_t below(rng *r, uint64_t n)
{
	return next_u64(r) % n;
}

static double from_bits(uint64_t b)
{
	double v;
	memcpy(&v, &b, sizeof(v));
	return v;
}

static uint64_t to_bits(double v)
{
	uint64_t b;
	memcpy(&b, &v, sizeof(b));
	return b;
}

static bool quick_mode(void)
{
	const char *q = getenv("DFS_TEST_QUICK");
	return q && *q && strcmp(q, "0") != 0;
}

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* dfs_fmt_double as a NUL-terminated string */
static size_t fmt(char *out, double v)
{
	size_t n = dfs_fmt_double(out, v);
	assert_true(n < DFS_FMT_DOUBLE_MAX);
	out[n] = '\0';
	/* the length alone, as the sizes of text rendered later use it */
	assert_int_equal(dfs_fmt_double_len(v), n);
	return n;
}

static bool reads_back(const char *s, double v)
{
	return to_bits(strtod(s, NULL)) == to_bits(v);
}

/* Significant digits of a %g-style number: leading zeros do not count */
static int sig_digits(const char *s)
{
	int n = 0;
	bool started = false;
	for (; *s && *s != 'e'; s++) {
		if (*s < '0' || *s > '9')
			continue;
		if (*s != '0')
			started = true;
		if (started)
			n++;
	}
	return n;
}

/* Only powers of two at or above 2^-1021 have a lopsided interval */
static bool lopsided(double v)
{
	uint64_t b = to_bits(v);
	return (b & ((UINT64_C(1) << 52) - 1)) == 0 && ((b >> 52) & 0x7ff) > 1;
}

/* The whole contract for one finite value; prints and returns false on a
 * violation.  See the top comment for why (b) may look at n - 1 only. */
static bool check_double(double v)
{
	char out[DFS_FMT_DOUBLE_MAX], ref[400];
	fmt(out, v);
	if (fabs(v) < 9007199254740992.0 && v == trunc(v)) {
		if (v == 0)
			snprintf(ref, sizeof(ref), "%s", signbit(v) ? "-0" : "0");
		else
			snprintf(ref, sizeof(ref), "%" PRId64, (int64_t)v);
		if (strcmp(out, ref) == 0)
			return true;
		print_error("integer %a: got \"%s\", want \"%s\"\n", v, out, ref);
		return false;
	}
	if (!reads_back(out, v)) {
		print_error("%a: \"%s\" does not read back\n", v, out);
		return false;
	}
	int n = sig_digits(out);
	snprintf(ref, sizeof(ref), "%.*g", n, v);
	if (strcmp(out, ref) != 0) {
		print_error("%a: got \"%s\", %%.%dg gives \"%s\"\n", v, out, n, ref);
		return false;
	}
	for (int p = lopsided(v) ? 1 : n - 1; p >= 1 && p < n; p++) {
		snprintf(ref, sizeof(ref), "%.*g", p, v);
		if (reads_back(ref, v)) {
			print_error("%a: \"%s\" has %d digits but %%.%dg \"%s\" reads back\n",
			            v, out, n, p, ref);
			return false;
		}
	}
	return true;
}

/* check_double for v and -v */
static bool check_both(double v)
{
	bool pos = check_double(v);
	bool neg = check_double(-v);
	return pos && neg;
}

/* The formatter this replaced, for the timing comparison */
static size_t old_fmt_double(char *out, double v)
{
	if (v == 0 || !isfinite(v) ||
	    (fabs(v) < 9007199254740992.0 && v == (double)(int64_t)v))
		return dfs_fmt_double(out, v);
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

/* ---- fixed values ------------------------------------------------------------ */

static void expect(double v, const char *want)
{
	char out[DFS_FMT_DOUBLE_MAX];
	fmt(out, v);
	if (strcmp(out, want) != 0)
		print_error("%a: got \"%s\", want \"%s\"\n", v, out, want);
	assert_string_equal(out, want);
}

static void test_fast_paths(void **state)
{
	(void)state;
	expect(0.0, "0");
	expect(-0.0, "-0");
	expect(NAN, "nan");
	expect(-NAN, "-nan");
	expect(from_bits(0x7ff0000000000001u), "nan");
	expect(from_bits(0xfff8000000000123u), "-nan");
	expect(INFINITY, "inf");
	expect(-INFINITY, "-inf");
	expect(-1.0, "-1");
	expect(1.0, "1");
	expect(420.0, "420");
	expect(67108864.0, "67108864");
	expect(1e15, "1000000000000000");
	expect(9007199254740991.0, "9007199254740991");
	expect(-9007199254740991.0, "-9007199254740991");
}

static void test_examples(void **state)
{
	(void)state;
	expect(0.1, "0.1");
	expect(-0.1, "-0.1");
	expect(0.5, "0.5");
	expect(1e-05, "1e-05");
	expect(0.0001, "0.0001");
	expect(1.5e-07, "1.5e-07");
	expect(3122.286459, "3122.286459");
	expect(1e+300, "1e+300");
	expect(DBL_MAX, "1.7976931348623157e+308");
	expect(-DBL_MAX, "-1.7976931348623157e+308");
	expect(DBL_MIN, "2.2250738585072014e-308");
	expect(DBL_TRUE_MIN, "5e-324");
	expect(-DBL_TRUE_MIN, "-5e-324");
	expect(0.0051181316375732422, "0.005118131637573242");
	expect(0.1 + 0.2, "0.30000000000000004");
	expect(9007199254740992.0, "9007199254740992");
	expect(9007199254740993.0, "9007199254740992"); /* reads as 2^53 */
	expect(9007199254740994.0, "9007199254740994");
	expect(18014398509481984.0, "18014398509481984");
	expect(1e16, "1e+16");
	expect(1.5e17, "1.5e+17");
	expect(1e22, "1e+22");
	expect(1e23, "1e+23");
	expect(123.456, "123.456");
	expect(1.0 / 3, "0.3333333333333333");
	expect(2.0 / 3, "0.6666666666666666");
	expect(5e-324 * 3, "1.5e-323");
	expect(ldexp(1, -24), "5.9604644775390625e-08"); /* lopsided, p = 17 */
	expect(ldexp(1, 60), "1.152921504606847e+18");
	expect(1.7976931348623157e308 / 2, "8.988465674311579e+307");
}

static void test_boundaries(void **state)
{
	(void)state;
	const double vals[] = {
		DBL_MAX, DBL_MIN, DBL_TRUE_MIN, DBL_EPSILON, 0.1, 0.2, 0.3, 0.1 + 0.2,
		1e22, 1e23, 1e-5, 1e-4, 9007199254740991.0, 9007199254740992.0,
		9007199254740993.0, 9007199254740994.0, 9007199254740995.0,
		4503599627370496.0, 4503599627370495.5, 0.5, 1.5, 2.5,
		nextafter(DBL_MIN, 0), nextafter(DBL_MIN, 1), 1e15 + 0.5,
		1e16, 1e17, 123456789012345678.0, 5e-324 * 1023,
	};
	int bad = 0;
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		double v = vals[i];
		bad += !check_both(v);
		bad += !check_both(nextafter(v, 0));
		bad += !check_both(nextafter(v, INFINITY));
	}
	/* every power of two, subnormal ones included, and its neighbours */
	for (int e = -1074; e <= 1023; e++) {
		double v = ldexp(1, e);
		bad += !check_both(v);
		bad += !check_both(nextafter(v, 0));
		bad += !check_both(nextafter(v, INFINITY));
	}
	/* every power of ten that is a double, and its neighbours */
	for (int e = -323; e <= 308; e++) {
		char s[16];
		snprintf(s, sizeof(s), "1e%d", e);
		double v = strtod(s, NULL);
		bad += !check_both(v);
		bad += !check_both(nextafter(v, 0));
		bad += !check_both(nextafter(v, INFINITY));
	}
	/* the smallest subnormals and the largest doubles */
	for (uint64_t b = 1; b <= 20000; b++) {
		bad += !check_both(from_bits(b));
		bad += !check_both(from_bits(0x7fefffffffffffffu - b + 1));
	}
	assert_int_equal(bad, 0);
}

/* ---- random values ------------------------------------------------------------ */

enum { GEN_BITS, GEN_SUBNORMAL, GEN_TIMESTAMP, GEN_DECIMAL, GEN_SMALL, GEN_INTEGER,
       GEN_COUNT };

static const char *const gen_name[GEN_COUNT] = {
	"random bit patterns", "subnormals", "timestamps k/2^n",
	"decimal strings", "small times", "integers and near-integers",
};

static double gen_decimal(rng *r)
{
	static const uint64_t p10[18] = {
		1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u,
		1000000000u, 10000000000u, 100000000000u, 1000000000000u,
		10000000000000u, 100000000000000u, 1000000000000000u,
		10000000000000000u, 100000000000000000u,
	};
	for (;;) {
		int nd = 1 + (int)below(r, 17);
		uint64_t m = p10[nd - 1] + below(r, p10[nd] - p10[nd - 1]);
		int e = next_u64(r) & 1 ? (int)below(r, 25) - 12 - nd
		                        : (int)below(r, 670) - 345;
		char s[48];
		snprintf(s, sizeof(s), "%" PRIu64 "e%d", m, e);
		double v = strtod(s, NULL);
		if (v != 0 && isfinite(v))
			return v;
	}
}

static double gen_value(rng *r, int kind)
{
	double sign = next_u64(r) & 1 ? -1.0 : 1.0;
	switch (kind) {
	case GEN_BITS:
		for (;;) {
			double v = from_bits(next_u64(r));
			if (isfinite(v) && v != 0)
				return v;
		}
	case GEN_SUBNORMAL:
		return sign * from_bits(1 + below(r, (UINT64_C(1) << 52) - 1));
	case GEN_TIMESTAMP: {
		/* k / 2^n as float seconds since the job start look: up to 53 bits
		 * of k, n mostly 10..40 */
		uint64_t k = next_u64(r) >> (11 + below(r, 53));
		int n = next_u64(r) & 3 ? 10 + (int)below(r, 31) : (int)below(r, 80);
		double v = ldexp((double)(k | 1), -n);
		return next_u64(r) % 16 ? v : -v;
	}
	case GEN_DECIMAL:
		return sign * gen_decimal(r);
	case GEN_SMALL: {
		/* uniform in [0, 10^j), j in [-6, 6] */
		double u = (double)(next_u64(r) >> 11) * 0x1p-53;
		return u * pow(10, (double)below(r, 13) - 6);
	}
	default: {
		/* integers on both sides of 2^53, and near-integers */
		uint64_t k = next_u64(r) >> (11 + below(r, 53));
		switch (below(r, 3)) {
		case 0:
			return sign * (double)k;
		case 1:
			return sign * ldexp((double)k, (int)below(r, 40));
		default:
			return sign * nextafter((double)k, below(r, 2) ? INFINITY : 0);
		}
	}
	}
}

/* The random values are split over a few threads; value i depends on i
 * only, so the set checked is the same whatever the thread count. */
typedef struct worker {
	pthread_t thread;
	long first, step, total;
	long bad, per_kind[GEN_COUNT];
} worker;

static void *run_worker(void *arg)
{
	worker *w = arg;
	for (long i = w->first; i < w->total && w->bad < 10; i += w->step) {
		rng r = { 20240611u ^ (uint64_t)i * 0xd1342543de82ef95u };
		int kind = (int)(i % GEN_COUNT);
		w->per_kind[kind]++;
		w->bad += !check_double(gen_value(&r, kind));
	}
	return NULL;
}

static void test_random(void **state)
{
	(void)state;
	long total = quick_mode() ? 200000 : 10000000;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int nw = cpus < 1 ? 1 : cpus > 8 ? 8 : (int)cpus;
	worker w[8];
	double t0 = now_ns();
	for (int j = 0; j < nw; j++) {
		w[j] = (worker){ .first = j, .step = nw, .total = total };
		assert_int_equal(pthread_create(&w[j].thread, NULL, run_worker, &w[j]), 0);
	}
	long bad = 0, per_kind[GEN_COUNT] = {0};
	for (int j = 0; j < nw; j++) {
		assert_int_equal(pthread_join(w[j].thread, NULL), 0);
		bad += w[j].bad;
		for (int k = 0; k < GEN_COUNT; k++)
			per_kind[k] += w[j].per_kind[k];
	}
	double secs = (now_ns() - t0) / 1e9;
	for (int k = 0; k < GEN_COUNT; k++)
		printf("  %-28s %ld values\n", gen_name[k], per_kind[k]);
	printf("  %ld random values checked against printf/strtod in %.1f s (%d threads)\n",
	       total, secs, nw);
	assert_int_equal(bad, 0);
}

/* ---- the helpers and the table of dtoa.c, re-derived exactly ------------- */

#define BIG_WORDS 128 /* 4096 bits; the largest number built is ~2700 */

typedef struct big {
	uint32_t w[BIG_WORDS]; /* little-endian */
	size_t n;              /* words in use; w[n - 1] != 0 unless n == 0 */
} big;

static void big_trim(big *b)
{
	while (b->n > 0 && b->w[b->n - 1] == 0)
		b->n--;
}

static void big_mul_small(big *b, uint32_t m)
{
	uint64_t carry = 0;
	for (size_t i = 0; i < b->n; i++) {
		uint64_t x = (uint64_t)b->w[i] * m + carry;
		b->w[i] = (uint32_t)x;
		carry = x >> 32;
	}
	if (carry) {
		assert_true(b->n < BIG_WORDS);
		b->w[b->n++] = (uint32_t)carry;
	}
}

static void big_shl(big *b, unsigned s)
{
	unsigned words = s / 32, bits = s % 32;
	assert_true(b->n + words + 1 <= BIG_WORDS);
	if (b->n == 0)
		return;
	b->w[b->n + words] = 0;
	for (size_t i = b->n; i-- > 0;) {
		uint64_t x = (uint64_t)b->w[i] << bits;
		b->w[i + words + 1] |= (uint32_t)(x >> 32);
		b->w[i + words] = (uint32_t)x;
	}
	for (size_t i = 0; i < words; i++)
		b->w[i] = 0;
	b->n += words + 1;
	big_trim(b);
}

static int big_cmp(const big *a, const big *b)
{
	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	for (size_t i = a->n; i-- > 0;)
		if (a->w[i] != b->w[i])
			return a->w[i] < b->w[i] ? -1 : 1;
	return 0;
}

/* b = (hi * 2^64 + lo) * 2^e2 * 10^e10, e2 and e10 >= 0 */
static void big_make(big *b, uint64_t hi, uint64_t lo, int e2, int e10)
{
	memset(b, 0, sizeof(*b));
	b->w[0] = (uint32_t)lo;
	b->w[1] = (uint32_t)(lo >> 32);
	b->w[2] = (uint32_t)hi;
	b->w[3] = (uint32_t)(hi >> 32);
	b->n = 4;
	big_trim(b);
	for (; e10 >= 9; e10 -= 9)
		big_mul_small(b, 1000000000u);
	for (; e10 > 0; e10--)
		big_mul_small(b, 10);
	big_shl(b, (unsigned)e2);
}

/* Compare a * 2^a2 * 10^a10 with b * 2^b2 * 10^b10 (a, b 128-bit) */
static int cmp_scaled(uint64_t ahi, uint64_t alo, int a2, int a10, uint64_t bhi,
                      uint64_t blo, int b2, int b10)
{
	big x, y;
	int d2 = a2 - b2, d10 = a10 - b10;
	big_make(&x, ahi, alo, d2 > 0 ? d2 : 0, d10 > 0 ? d10 : 0);
	big_make(&y, bhi, blo, d2 < 0 ? -d2 : 0, d10 < 0 ? -d10 : 0);
	return big_cmp(&x, &y);
}

static void test_floor_logs(void **state)
{
	(void)state;
	for (int q = -1200; q <= 1200; q++) {
		/* 10^k <= 2^q < 10^(k+1) */
		int k = dfs_flog10_pow2(q);
		assert_true(cmp_scaled(0, 1, 0, k, 0, 1, q, 0) <= 0);
		assert_true(cmp_scaled(0, 1, q, 0, 0, 1, 0, k + 1) < 0);
		/* 10^k <= 3/4 2^q < 10^(k+1), times 4 */
		k = dfs_flog10_three_quarters_pow2(q);
		assert_true(cmp_scaled(0, 4, 0, k, 0, 3, q, 0) <= 0);
		assert_true(cmp_scaled(0, 3, q, 0, 0, 4, 0, k + 1) < 0);
	}
	for (int e = -400; e <= 400; e++) {
		/* 2^r <= 10^e < 2^(r+1) */
		int r = dfs_flog2_pow10(e);
		assert_true(cmp_scaled(0, 1, r, 0, 0, 1, 0, e) <= 0);
		assert_true(cmp_scaled(0, 1, 0, e, 0, 1, r + 1, 0) < 0);
	}
	assert_int_equal(dfs_floor_shift(-1, 3), -1);
	assert_int_equal(dfs_floor_shift(-8, 3), -1);
	assert_int_equal(dfs_floor_shift(-9, 3), -2);
	assert_int_equal(dfs_floor_shift(9, 3), 1);
}

static void test_pow10_table(void **state)
{
	(void)state;
	for (int e = DFS_DTOA_POW10_MIN; e <= DFS_DTOA_POW10_MAX; e++) {
		uint64_t hi, lo;
		dfs_dtoa_pow10_entry(e, &hi, &lo);
		/* 2^127 <= g < 2^128 */
		assert_true(hi >> 63 == 1);
		/* g == ceil(10^e / 2^r): (g - 1) 2^r < 10^e <= g 2^r */
		int r = dfs_flog2_pow10(e) - 127;
		uint64_t hi1 = hi - (lo == 0), lo1 = lo - 1;
		assert_true(cmp_scaled(hi1, lo1, r, 0, 0, 1, 0, e) < 0);
		assert_true(cmp_scaled(0, 1, 0, e, hi, lo, r, 0) <= 0);
	}
}

/* ---- integers ------------------------------------------------------------------ */

static void test_integers(void **state)
{
	(void)state;
	char out[DFS_FMT_INT_MAX], ref[32];
	const int64_t vals[] = { 0, 1, -1, 9, 10, 99, 100, 12345, INT64_MAX, INT64_MIN,
	                         -9007199254740993 };
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		size_t n = dfs_fmt_i64(out, vals[i]);
		out[n] = '\0';
		snprintf(ref, sizeof(ref), "%" PRId64, vals[i]);
		assert_string_equal(out, ref);
		assert_int_equal(dfs_fmt_i64_len(vals[i]), n);
	}
	/* every length, both signs, at each power of ten and next to it */
	uint64_t p = 1;
	for (int d = 1; d <= 20; d++, p *= 10) {
		const uint64_t us[] = { p - 1, p, p + 1, p > UINT64_MAX / 2 ? p : p * 2 - 1 };
		for (size_t i = 0; i < sizeof(us) / sizeof(us[0]); i++) {
			size_t n = dfs_fmt_u64(out, us[i]);
			assert_int_equal(dfs_fmt_u64_len(us[i]), n);
			if (us[i] <= (uint64_t)INT64_MAX) {
				n = dfs_fmt_i64(out, -(int64_t)us[i]);
				assert_int_equal(dfs_fmt_i64_len(-(int64_t)us[i]), n);
			}
		}
		if (d == 20)
			break;
	}
	size_t n = dfs_fmt_u64(out, UINT64_MAX);
	out[n] = '\0';
	assert_string_equal(out, "18446744073709551615");
	assert_int_equal(dfs_fmt_u64_len(UINT64_MAX), 20);
	/* eight digits at a time: every group of eight, in a sample of all
	 * lengths (each eighth of a 64-bit pattern's bits kept, in turn) */
	uint64_t x = 0x9e3779b97f4a7c15u;
	for (int i = 0; i < 2000000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		uint64_t v = x >> (i % 8 * 8);
		n = dfs_fmt_u64(out, v);
		out[n] = '\0';
		snprintf(ref, sizeof(ref), "%" PRIu64, v);
		if (strcmp(out, ref) != 0)
			fail_msg("%s printed as %s", ref, out);
	}
}

/* Digits are made four at a time by fixed-point reciprocals: every
 * group 0000..9999 at every place of 8-, 16- and 20-digit numbers, and
 * each number's text exactly where it belongs (nothing written past an
 * integer; at most DFS_FMT_DOUBLE_MAX bytes for a double) */
static void test_digit_groups(void **state)
{
	(void)state;
	char out[64], ref[32];
	const uint64_t base[] = { 10000000u, 1000000000000000u, 10000000000000000000u };
	for (uint64_t g = 0; g < 10000; g++) {
		for (size_t b = 0; b < sizeof(base) / sizeof(base[0]); b++) {
			for (uint64_t place = 1; place <= base[b] / 1000; place *= 10000) {
				uint64_t v = base[b] + g * place;
				memset(out, '#', sizeof(out));
				size_t n = dfs_fmt_u64(out, v);
				assert_int_equal(out[n], '#');
				out[n] = '\0';
				snprintf(ref, sizeof(ref), "%" PRIu64, v);
				if (strcmp(out, ref) != 0)
					fail_msg("%s printed as %s", ref, out);
			}
		}
		/* a double with the group among its digits, before and after
		 * the point */
		for (int e = -22; e <= 2; e += 4) {
			double d = ((double)(1000000000000u + g * 10000u + 7u)) * pow(10.0, e);
			memset(out, '#', sizeof(out));
			size_t n = dfs_fmt_double(out, d);
			for (size_t k = DFS_FMT_DOUBLE_MAX; k < sizeof(out); k++)
				assert_int_equal(out[k], '#');
			(void)n;
			assert_true(check_double(d));
		}
	}
}

/* The scanners stop where the number ends and refuse what the whole-field
 * parsers refuse; the parsers agree with them. */
static void test_scanners(void **state)
{
	(void)state;
	struct {
		const char *text;
		int u, i, d;          /* where each stops (bytes), -1: refused */
		double value;         /* what the double scanner reads */
	} cases[] = {
		{"123,4", 3, 3, 3, 123},
		{"+7\n", 2, 2, 2, 7},
		{"-42,", -1, 3, 3, -42},
		{"-+1", -1, -1, -1, 0},
		{"0.25,", 1, 1, 4, 0.25},
		{"1e5,", 1, 1, 3, 1e5},
		{"1e,", 1, 1, -1, 0},
		{"2.5E-3x", 1, 1, 6, 2.5e-3},
		{"18446744073709551615,", 20, -1, -1, 0},
		{"18446744073709551616", -1, -1, -1, 0},
		{"9223372036854775807", 19, 19, 19, 9223372036854775807.0},
		{"-9223372036854775808", -1, 20, 20, -9223372036854775808.0},
		{"-9223372036854775809", -1, -1, 20, -9223372036854775809.0},
		{"478.35310037553967,", 3, 3, 18, 478.35310037553967},
		{"1.2345678901234567e-11", 1, 1, 22, 1.2345678901234567e-11},
		{"1.2345678901234567e-21", 1, 1, -1, 0},   /* 10^-37: strtod's */
		{"12345678901234567890123", -1, -1, -1, 0},
		{",", -1, -1, -1, 0},
		{"", -1, -1, -1, 0},
		{"nan", -1, -1, -1, 0},
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const char *s = cases[k].text, *end = s + strlen(s), *q;
		uint64_t u = 0;
		int64_t i = 0;
		double d = 0;
		q = dfs_scan_u64(s, end, &u);
		if ((q ? (int)(q - s) : -1) != cases[k].u)
			fail_msg("u64 '%s' stops at %d", s, q ? (int)(q - s) : -1);
		q = dfs_scan_i64(s, end, &i);
		if ((q ? (int)(q - s) : -1) != cases[k].i)
			fail_msg("i64 '%s' stops at %d", s, q ? (int)(q - s) : -1);
		q = dfs_scan_double(s, end, &d);
		if ((q ? (int)(q - s) : -1) != cases[k].d)
			fail_msg("double '%s' stops at %d", s, q ? (int)(q - s) : -1);
		if (q && d != cases[k].value)
			fail_msg("double '%s' reads %.17g", s, d);
		/* a whole field: the parsers say the same */
		uint64_t pu;
		int64_t pi;
		double pd;
		bool whole_u = cases[k].u == (int)strlen(s), whole_i = cases[k].i == (int)strlen(s);
		assert_int_equal(dfs_parse_u64(s, strlen(s), &pu), whole_u);
		assert_int_equal(dfs_parse_i64(s, strlen(s), &pi), whole_i);
		if (whole_u)
			assert_true(pu == u);
		if (whole_i)
			assert_true(pi == i);
		if (cases[k].d == (int)strlen(s))
			assert_true(dfs_parse_double(s, strlen(s), &pd) && pd == d);
	}
}

/* ---- timing (printed, not asserted) -------------------------------------- */

typedef size_t (*fmt_fn)(char *, double);

static double ns_per_value(fmt_fn f, const double *v, size_t n)
{
	char out[DFS_FMT_DOUBLE_MAX];
	volatile size_t sink = 0;
	double best = INFINITY;
	for (int round = 0; round < 3; round++) {
		double t0 = now_ns();
		size_t len = 0;
		for (size_t i = 0; i < n; i++)
			len += f(out, v[i]);
		double t = (now_ns() - t0) / (double)n;
		sink += len;
		if (t < best)
			best = t;
	}
	(void)sink;
	return best;
}

static void test_timing(void **state)
{
	(void)state;
	size_t n = quick_mode() ? 20000 : 200000;
	double *typical = malloc(n * sizeof(double));
	double *bits = malloc(n * sizeof(double));
	assert_non_null(typical);
	assert_non_null(bits);
	rng r = { 42u };
	for (size_t i = 0; i < n; i++) {
		switch (i % 4) {
		case 0: /* a timestamp like 0.0051181316375732422 */
			typical[i] = ldexp((double)below(&r, UINT64_C(1) << 32),
			                   -(int)(22 + below(&r, 11)));
			break;
		case 1: /* a small time like 3122.286459 */
			typical[i] = (double)below(&r, 10000000000u) / 1e6;
			break;
		case 2:
			typical[i] = gen_value(&r, GEN_SMALL);
			break;
		default: /* -1 (unset counters) */
			typical[i] = -1;
			break;
		}
		bits[i] = gen_value(&r, GEN_BITS);
	}
	/* For normal doubles the old loop always found the shortest %g form
	 * (a decimal of <= 15 digits that reads back is the 15-digit rounding
	 * of v, since such decimals lie over 4 ulps apart), so the text is
	 * unchanged; only subnormals, which have fewer bits, can now come out
	 * shorter.  Check that on these samples. */
	for (size_t i = 0; i < 2 * n; i++) {
		double v = i < n ? typical[i] : bits[i - n];
		char a[DFS_FMT_DOUBLE_MAX], b[DFS_FMT_DOUBLE_MAX];
		a[dfs_fmt_double(a, v)] = '\0';
		b[old_fmt_double(b, v)] = '\0';
		if (fabs(v) >= DBL_MIN)
			assert_string_equal(a, b);
		else
			assert_true(strlen(a) <= strlen(b));
	}
	printf("  typical values (timestamps, small times, -1): new %.1f ns, old %.1f ns\n",
	       ns_per_value(dfs_fmt_double, typical, n),
	       ns_per_value(old_fmt_double, typical, n));
	printf("  random bit patterns:                          new %.1f ns, old %.1f ns\n",
	       ns_per_value(dfs_fmt_double, bits, n), ns_per_value(old_fmt_double, bits, n));
	free(typical);
	free(bits);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fast_paths),
		cmocka_unit_test(test_examples),
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_digit_groups),
		cmocka_unit_test(test_scanners),
		cmocka_unit_test(test_floor_logs),
		cmocka_unit_test(test_pow10_table),
		cmocka_unit_test(test_boundaries),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_timing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
