/* eval.c - runs a compiled filter for one row, and the small accessors of
 * a compiled filter.
 *
 * dfs_filter_match is the hot path (called once per row, from several
 * threads at once on the same filter): it walks the instruction array
 * with a value stack on the C stack, asks the getter for the columns it
 * needs, never allocates and never writes to the filter.  The parser has
 * proved the stack never holds more than DFS_FLT_STACK values.
 *
 * Truth values are SQL's three (enum truth): a test on an undefined value
 * (a missing column, a division by zero) is UNKNOWN, which `and`, `or`
 * and `not` carry as SQL does, and only a TRUE result selects the row. */
#include <stdlib.h>

#include "filter/filter_int.h"

static void column_number(dfs_filter_getter get, void *row, uint32_t col,
                          struct num *out)
{
	dfs_value v;
	v.type = DFS_T_NONE;
	get(row, (int)col, &v);
	switch (v.type) {
	case DFS_T_I64:
		out->kind = NK_I64;
		out->v.i = v.v.i;
		break;
	case DFS_T_U64:
		out->kind = NK_U64;
		out->v.u = v.v.u;
		break;
	case DFS_T_F64:
		out->kind = NK_F64;
		out->v.d = v.v.d;
		break;
	default:
		out->kind = NK_NONE; /* missing, or text where a number was due:
		                      * undefined */
		break;
	}
}

/* Text named by an instruction operand.  `tmp` holds a column's value so
 * text kept in its scratch space stays valid.  false if missing. */
static bool text_operand(const dfs_filter *f, bool is_col, uint32_t ref,
                         dfs_filter_getter get, void *row, dfs_value *tmp,
                         const char **ptr, size_t *len)
{
	if (!is_col) {
		*ptr = f->texts[ref].ptr;
		*len = f->texts[ref].len;
		return true;
	}
	tmp->type = DFS_T_NONE;
	get(row, (int)ref, tmp);
	if (tmp->type != DFS_T_STR || (!tmp->v.s.ptr && tmp->v.s.len))
		return false;
	*ptr = tmp->v.s.ptr ? tmp->v.s.ptr : "";
	*len = tmp->v.s.len;
	return true;
}

static bool in_numbers(const struct num *items, size_t n, const struct num *x)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int o = dfs_flt_num_order(x, &items[mid]);
		if (o == ORD_EQ)
			return true;
		if (o == ORD_LT)
			hi = mid;
		else if (o == ORD_GT)
			lo = mid + 1;
		else
			return false; /* NaN equals nothing */
	}
	return false;
}

static bool in_texts(const struct text *items, size_t n, const char *s,
                     size_t len)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int o = dfs_flt_text_order(s, len, items[mid].ptr, items[mid].len);
		if (o == ORD_EQ)
			return true;
		if (o == ORD_LT)
			hi = mid;
		else
			lo = mid + 1;
	}
	return false;
}

static int truth(bool b)
{
	return b ? TV_TRUE : TV_FALSE;
}

/* The text instructions: the truth value they push (UNKNOWN when a text
 * is missing). */
static int text_insn(const dfs_filter *f, const struct insn *in,
                     dfs_filter_getter get, void *row)
{
	dfs_value va, vb;
	const char *a, *b;
	size_t an, bn;
	if (!text_operand(f, in->refs & REF_A_COL, in->a, get, row, &va, &a, &an))
		return TV_UNKNOWN;
	switch (in->op) {
	case OP_SCMP:
		if (!text_operand(f, in->refs & REF_B_COL, in->b, get, row, &vb,
		                  &b, &bn))
			return TV_UNKNOWN;
		return truth(dfs_flt_cmp_test(in->cmp,
		                              dfs_flt_text_order(a, an, b, bn)));
	case OP_SIN:
		return truth(in_texts(f->texts + in->b, in->n, a, an) != in->neg);
	case OP_LIKE:
		return truth(dfs_flt_like_match(f->texts[in->b].ptr, f->texts[in->b].len,
		                                a, an, in->n != 0) != in->neg);
	default:
		return truth(dfs_rx_match(f->res[in->b]->rx, a, an) != in->neg);
	}
}

/* x in (list), x not in (list): UNKNOWN for an undefined x */
static int in_insn(const dfs_filter *f, const struct insn *in,
                   const struct num *x)
{
	if (x->kind == NK_NONE)
		return TV_UNKNOWN;
	return truth(in_numbers(f->nums + in->b, in->n, x) != in->neg);
}

/* x between lo and hi: (x >= lo) and (x <= hi), SQL's `and` (the lesser);
 * `not between` is its negation */
static int between(const struct num *x, const struct num *lo,
                   const struct num *hi, bool neg)
{
	int a = dfs_flt_cmp_truth(CMP_GE, dfs_flt_num_order(x, lo));
	int b = dfs_flt_cmp_truth(CMP_LE, dfs_flt_num_order(x, hi));
	int t = a < b ? a : b;
	return neg ? TV_TRUE - t : t;
}

static void set_truth(struct num *x, int t)
{
	x->kind = NK_BOOL;
	x->v.i = t;
}

static int64_t lesser(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

static int64_t greater(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

bool dfs_filter_match(const dfs_filter *f, dfs_filter_getter get, void *row)
{
	struct num st[DFS_FLT_STACK];
	size_t sp = 0;
	if (!f)
		return false;
	if (f->all)
		return true;
	for (size_t pc = 0; pc < f->ncode; pc++) {
		const struct insn *in = &f->code[pc];
		struct num x;
		switch (in->op) {
		case OP_PUSH:
			st[sp++] = in->k;
			break;
		case OP_COL:
			column_number(get, row, in->a, &st[sp++]);
			break;
		case OP_NEG:
			dfs_flt_num_neg(&st[sp - 1]);
			break;
		case OP_ADD:
		case OP_SUB:
		case OP_MUL:
		case OP_DIV:
			sp--;
			dfs_flt_num_arith(in->op, &st[sp - 1], &st[sp], &st[sp - 1]);
			break;
		case OP_CMP:
			sp--;
			set_truth(&st[sp - 1], dfs_flt_cmp_truth(in->cmp,
			          dfs_flt_num_order(&st[sp - 1], &st[sp])));
			break;
		case OP_CMP_COL:
			column_number(get, row, in->a, &x);
			set_truth(&st[sp++], dfs_flt_cmp_truth(in->cmp,
			          dfs_flt_num_order(&x, &in->k)));
			break;
		case OP_BETWEEN:
			sp -= 2;
			set_truth(&st[sp - 1], between(&st[sp - 1], &st[sp], &st[sp + 1],
			                               in->neg));
			break;
		case OP_BETWEEN_COL:
			column_number(get, row, in->a, &x);
			set_truth(&st[sp++], between(&x, &f->nums[in->b],
			                             &f->nums[in->b + 1], in->neg));
			break;
		case OP_IN:
			x = st[sp - 1];
			set_truth(&st[sp - 1], in_insn(f, in, &x));
			break;
		case OP_SCMP:
		case OP_SIN:
		case OP_SRE:
		case OP_LIKE:
			set_truth(&st[sp++], text_insn(f, in, get, row));
			break;
		case OP_NOT:
			st[sp - 1].v.i = TV_TRUE - st[sp - 1].v.i;
			break;
		case OP_AND:
			if (st[sp - 1].v.i == TV_FALSE)
				pc = in->a - 1;
			break;
		case OP_OR:
			if (st[sp - 1].v.i == TV_TRUE)
				pc = in->a - 1;
			break;
		case OP_AND_END:
			sp--;
			st[sp - 1].v.i = lesser(st[sp - 1].v.i, st[sp].v.i);
			break;
		case OP_OR_END:
			sp--;
			st[sp - 1].v.i = greater(st[sp - 1].v.i, st[sp].v.i);
			break;
		}
	}
	return sp == 1 && st[0].kind == NK_BOOL && st[0].v.i == TV_TRUE;
}

bool dfs_filter_matches_all(const dfs_filter *f)
{
	return f && f->all;
}

bool dfs_filter_lacks_columns(const dfs_filter *f)
{
	return f && f->lacks;
}

size_t dfs_filter_column_count(const dfs_filter *f)
{
	return f ? f->ncols : 0;
}

int dfs_filter_column(const dfs_filter *f, size_t i)
{
	return f && i < f->ncols ? f->cols[i] : -1;
}

size_t dfs_filter_program_memory(const dfs_filter *f)
{
	if (!f)
		return 0;
	return sizeof(*f) + f->ncode * sizeof(*f->code) + f->nnums * sizeof(*f->nums) +
	       f->ntexts * sizeof(*f->texts) + f->nchars + 1 +
	       f->nres * sizeof(*f->res) + f->ncols * sizeof(*f->cols);
}

size_t dfs_filter_memory(const dfs_filter *f)
{
	size_t n = dfs_filter_program_memory(f);
	for (size_t i = 0; f && i < f->nres; i++)
		n += f->res[i]->memory;
	return n;
}

size_t dfs_filter_set_memory(dfs_filter *const *f, size_t n)
{
	size_t total = 0;
	for (size_t k = 0; k < n; k++) {
		total += dfs_filter_program_memory(f[k]);
		for (size_t i = 0; f[k] && i < f[k]->nres; i++) {
			const struct dfs_regex *r = f[k]->res[i];
			bool seen = false;
			/* (filters of one text have the same at the same place) */
			for (size_t j = 0; j < k && !seen; j++)
				seen = f[j] && i < f[j]->nres && f[j]->res[i] == r;
			for (size_t j = 0; j < i && !seen; j++)
				seen = f[k]->res[j] == r;
			if (!seen)
				total += r->memory;
		}
	}
	return total;
}

void dfs_filter_free(dfs_filter *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nres; i++)
		dfs_flt_regex_unref(f->res[i]);
	free(f->res);
	free(f->code);
	free(f->nums);
	free(f->texts);
	free(f->chars);
	free(f->cols);
	free(f);
}
