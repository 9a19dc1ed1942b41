/* num.c - the exact numeric semantics of the filter language.
 *
 * Values are signed 64-bit, unsigned 64-bit (record ids) or doubles.
 * Comparisons are exact across kinds: an integer is never rounded to a
 * double to be compared, so 2^63 - 1 < 2^63 (as a double) and record ids
 * near 2^64 compare correctly.  Integer + - * is done on a sign and a
 * 64-bit magnitude, which covers every i64 and u64 result exactly; only a
 * result outside [-2^63, 2^64) falls back to double.  Division always
 * gives a double; a zero divisor gives an undefined value (NK_NONE), as
 * a missing operand does. */
#include <string.h>

#include "filter/filter_int.h"

static int order_u(uint64_t a, uint64_t b)
{
	return a < b ? ORD_LT : a > b ? ORD_GT : ORD_EQ;
}

static int order_i(int64_t a, int64_t b)
{
	return a < b ? ORD_LT : a > b ? ORD_GT : ORD_EQ;
}

static int order_d(double a, double b)
{
	if (a < b)
		return ORD_LT;
	if (a > b)
		return ORD_GT;
	if (a == b)
		return ORD_EQ;
	return ORD_UN;
}

static int flip_order(int o)
{
	return o == ORD_LT ? ORD_GT : o == ORD_GT ? ORD_LT : o;
}

/* i against d without rounding i.  In [-2^63, 2^63) the integer part of
 * d is exact both as a double and as an int64. */
static int order_i_d(int64_t i, double d)
{
	if (d != d)
		return ORD_UN;
	if (d >= 9223372036854775808.0)
		return ORD_LT;
	if (d < -9223372036854775808.0)
		return ORD_GT;
	int64_t t = (int64_t)d;
	if (i != t)
		return order_i(i, t);
	return order_d((double)t, d);
}

static int order_u_d(uint64_t u, double d)
{
	if (d != d)
		return ORD_UN;
	if (d < 0)
		return ORD_GT;
	if (d >= 18446744073709551616.0)
		return ORD_LT;
	uint64_t t = (uint64_t)d;
	if (u != t)
		return order_u(u, t);
	return order_d((double)t, d);
}

static int order_int_d(const struct num *x, double d)
{
	return x->kind == NK_I64 ? order_i_d(x->v.i, d) : order_u_d(x->v.u, d);
}

static int order_int(const struct num *a, const struct num *b)
{
	if (a->kind == NK_I64 && b->kind == NK_I64)
		return order_i(a->v.i, b->v.i);
	if (a->kind == NK_U64 && b->kind == NK_U64)
		return order_u(a->v.u, b->v.u);
	if (a->kind == NK_I64)
		return a->v.i < 0 ? ORD_LT : order_u((uint64_t)a->v.i, b->v.u);
	return b->v.i < 0 ? ORD_GT : order_u(a->v.u, (uint64_t)b->v.i);
}

static bool is_number(const struct num *x)
{
	return x->kind == NK_I64 || x->kind == NK_U64 || x->kind == NK_F64;
}

int dfs_flt_num_order(const struct num *a, const struct num *b)
{
	if (!is_number(a) || !is_number(b))
		return ORD_NONE;
	if (a->kind == NK_F64) {
		if (b->kind == NK_F64)
			return order_d(a->v.d, b->v.d);
		return flip_order(order_int_d(b, a->v.d));
	}
	if (b->kind == NK_F64)
		return order_int_d(a, b->v.d);
	return order_int(a, b);
}

bool dfs_flt_cmp_test(int cmp, int ord)
{
	/* bit `ord` of masks[cmp] says whether cmp holds */
	static const uint8_t masks[] = {
		[CMP_EQ] = 1u << ORD_EQ,
		[CMP_NE] = 1u << ORD_LT | 1u << ORD_GT | 1u << ORD_UN,
		[CMP_LT] = 1u << ORD_LT,
		[CMP_LE] = 1u << ORD_LT | 1u << ORD_EQ,
		[CMP_GT] = 1u << ORD_GT,
		[CMP_GE] = 1u << ORD_GT | 1u << ORD_EQ,
	};
	return (masks[cmp] >> ord) & 1u;
}

int dfs_flt_cmp_truth(int cmp, int ord)
{
	if (ord == ORD_NONE)
		return TV_UNKNOWN;
	return dfs_flt_cmp_test(cmp, ord) ? TV_TRUE : TV_FALSE;
}

int dfs_flt_cmp_flip(int cmp)
{
	switch (cmp) {
	case CMP_LT: return CMP_GT;
	case CMP_LE: return CMP_GE;
	case CMP_GT: return CMP_LT;
	case CMP_GE: return CMP_LE;
	}
	return cmp;
}

int dfs_flt_text_order(const char *a, size_t an, const char *b, size_t bn)
{
	size_t n = an < bn ? an : bn;
	int c = n ? memcmp(a, b, n) : 0;
	if (c != 0)
		return c < 0 ? ORD_LT : ORD_GT;
	return order_u(an, bn);
}

/* ---- arithmetic ---------------------------------------------------- */

/* an integer as sign and magnitude */
struct smag {
	bool neg;
	uint64_t mag;
};

static struct smag to_smag(const struct num *x)
{
	struct smag s = {false, 0};
	if (x->kind == NK_U64) {
		s.mag = x->v.u;
	} else if (x->v.i < 0) {
		s.neg = true;
		s.mag = (uint64_t)0 - (uint64_t)x->v.i;
	} else {
		s.mag = (uint64_t)x->v.i;
	}
	return s;
}

static double to_double(const struct num *x)
{
	switch (x->kind) {
	case NK_I64: return (double)x->v.i;
	case NK_U64: return (double)x->v.u;
	default: return x->v.d;
	}
}

/* Store an exact integer result; false if it fits neither i64 nor u64. */
static bool from_smag(struct smag s, struct num *out)
{
	if (!s.neg) {
		if (s.mag <= (uint64_t)INT64_MAX) {
			out->kind = NK_I64;
			out->v.i = (int64_t)s.mag;
		} else {
			out->kind = NK_U64;
			out->v.u = s.mag;
		}
		return true;
	}
	if (s.mag > (uint64_t)INT64_MAX + 1)
		return false;
	out->kind = NK_I64;
	/* -(mag - 1) - 1 stays in range for mag == 2^63 */
	out->v.i = s.mag ? -(int64_t)(s.mag - 1) - 1 : 0;
	return true;
}

static bool add_smag(struct smag a, struct smag b, struct num *out)
{
	struct smag r;
	if (a.neg == b.neg) {
		r.neg = a.neg;
		r.mag = a.mag + b.mag;
		if (r.mag < a.mag)
			return false;
	} else if (a.mag >= b.mag) {
		r.neg = a.neg;
		r.mag = a.mag - b.mag;
	} else {
		r.neg = b.neg;
		r.mag = b.mag - a.mag;
	}
	return from_smag(r, out);
}

static bool mul_smag(struct smag a, struct smag b, struct num *out)
{
	if (a.mag != 0 && b.mag > UINT64_MAX / a.mag)
		return false;
	struct smag r = {a.neg != b.neg, a.mag * b.mag};
	return from_smag(r, out);
}

static double double_op(int op, double a, double b)
{
	switch (op) {
	case OP_ADD: return a + b;
	case OP_SUB: return a - b;
	case OP_MUL: return a * b;
	default: return a / b;
	}
}

void dfs_flt_num_arith(int op, const struct num *a, const struct num *b,
                       struct num *out)
{
	if (!is_number(a) || !is_number(b)) {
		out->kind = NK_NONE;
		return;
	}
	double x = to_double(a);
	double y = to_double(b);
	if (op == OP_DIV && y == 0) {
		out->kind = NK_NONE;
		return;
	}
	if (op != OP_DIV && a->kind != NK_F64 && b->kind != NK_F64) {
		struct smag sa = to_smag(a);
		struct smag sb = to_smag(b);
		if (op == OP_SUB)
			sb.neg = !sb.neg;
		bool exact = op == OP_MUL ? mul_smag(sa, sb, out)
		                          : add_smag(sa, sb, out);
		if (exact)
			return;
	}
	out->kind = NK_F64;
	out->v.d = double_op(op, x, y);
}

void dfs_flt_num_neg(struct num *x)
{
	if (x->kind == NK_F64) {
		x->v.d = -x->v.d;
	} else if (x->kind == NK_I64 || x->kind == NK_U64) {
		struct smag s = to_smag(x);
		double fallback = -to_double(x);
		s.neg = !s.neg;
		if (!from_smag(s, x)) {
			x->kind = NK_F64;
			x->v.d = fallback;
		}
	}
}
