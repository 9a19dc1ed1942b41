/* parse.c - the grammar of the filter language and the compiler entry.
 *
 * A recursive-descent parser, one function per precedence level, checks
 * types as it goes and appends instructions to the program in postfix
 * order, so no syntax tree is built and a long flat chain ("a + a + ...")
 * costs no recursion.  Nesting (parentheses, not, unary minus) is counted
 * and limited to DFS_FILTER_MAX_DEPTH, which bounds both the recursion
 * here and the evaluation stack.  See docs/filter-language.md.
 *
 * Types are known at compile time: a comparison (truth value), a number,
 * text, or "none" (a column without values in this context, whose
 * comparisons are all UNKNOWN).  Text never goes on the value stack; a text
 * operand is remembered as a reference and named by the instruction that
 * uses it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "filter/filter_int.h"

#define NO_JUMP UINT32_MAX

/* Instruction, text and number indices are 32-bit: a filter has far fewer
 * than one of each per byte. */
_Static_assert(DFS_FILTER_MAX_LEN < UINT32_MAX / 2, "indices are 32-bit");

enum stype { ST_BOOL, ST_NUM, ST_STR, ST_NONE };

/* What a parsed sub-expression left behind. */
struct opnd {
	enum stype type;
	size_t pos;     /* byte offset of its first token */
	size_t code;    /* index of its first instruction */
	int sp;         /* stack depth before it */
	bool ref_col;   /* ST_STR: a column, else a text literal */
	uint32_t ref;   /* ST_STR: column or text index */
};

struct parser {
	struct lexer lx;
	struct token tok;   /* current token */
	struct token prev;  /* the one before it */
	bool has_prev;
	const dfs_filter_columns *cols;
	dfs_filter *f;
	size_t cap_code, cap_nums, cap_texts, cap_chars, cap_res;
	int depth;
	int sp, max_sp;
	struct regex_budget regex_budget;
	/* the value being parsed is compared with text: a word there that
	 * is no column was probably meant as text ("fs_type == lustre") */
	bool text_side;
	const dfs_filter *donor;   /* compiled patterns to take (or NULL) */
};

static int parse_or(struct parser *p, struct opnd *o);

/* ---- helpers ------------------------------------------------------- */

#define FAIL(p, off, ...) dfs_flt_fail(&(p)->lx, (off), DFS_ERR_INVAL, __VA_ARGS__)

static int nomem(struct parser *p)
{
	return dfs_error_nomem(p->lx.err);
}

/* arr, or arr grown to hold `need` elements of `size` bytes; NULL (with
 * the error set) when memory runs out.  The caller stores the result. */
static void *reserve(struct parser *p, void *arr, size_t *cap, size_t need,
                     size_t size)
{
	if (need <= *cap)
		return arr;
	size_t n = *cap ? *cap : 16;
	while (n < need)
		n *= 2;
	void *grown = n > SIZE_MAX / size ? NULL : realloc(arr, n * size);
	if (!grown) {
		nomem(p);
		return NULL;
	}
	*cap = n;
	return grown;
}

static int advance(struct parser *p)
{
	p->prev = p->tok;
	p->has_prev = true;
	return dfs_flt_lex(&p->lx, &p->tok);
}

/* The token after the current one, without consuming anything (but
 * whether it reached the end of the text counts). */
static enum tok peek(struct parser *p)
{
	struct lexer copy = p->lx;
	struct token t;
	copy.err = NULL;
	int rc = dfs_flt_lex(&copy, &t);
	p->lx.at_end = copy.at_end;
	return rc < 0 ? TK_EOF : t.type;
}

/* 'span' of a token for a message; text tokens show their own quotes */
static void describe(const struct parser *p, const struct token *t,
                     char *out, size_t cap)
{
	char q[DFS_FLT_QUOTE_CAP];
	if (t->type == TK_EOF) {
		snprintf(out, cap, "end of text");
		return;
	}
	dfs_flt_quote(q, p->lx.s + t->off, t->len);
	snprintf(out, cap, t->type == TK_STR ? "%s" : "'%s'", q);
}

static int unexpected(struct parser *p)
{
	char d[DFS_FLT_QUOTE_CAP + 2];
	/* a unit after a number that the lexer left alone ("1 MB" that ends
	 * the text) */
	if (p->has_prev && p->prev.type == TK_NUM && p->tok.type == TK_IDENT &&
	    dfs_flt_looks_like_size(p->lx.s + p->tok.off, p->tok.len)) {
		dfs_flt_quote(d, p->lx.s + p->tok.off, p->tok.len);
		return FAIL(p, p->tok.off, "unknown size suffix '%s' (use KiB, MiB, "
		            "GiB, TiB or PiB)", d);
	}
	describe(p, &p->tok, d, sizeof(d));
	return FAIL(p, p->tok.off, "unexpected %s", d);
}

/* "expected <what> after '<previous token>'" at the current token */
static int expected_after(struct parser *p, const char *what)
{
	char d[DFS_FLT_QUOTE_CAP + 2];
	if (!p->has_prev)
		return unexpected(p);
	describe(p, &p->prev, d, sizeof(d));
	return FAIL(p, p->tok.off, "expected %s after %s", what, d);
}

static int enter(struct parser *p)
{
	if (p->depth >= DFS_FILTER_MAX_DEPTH)
		return FAIL(p, p->tok.off, "nesting deeper than %d levels",
		            DFS_FILTER_MAX_DEPTH);
	p->depth++;
	return 0;
}

static const char *type_name(enum stype t)
{
	switch (t) {
	case ST_BOOL: return "a comparison";
	case ST_NUM: return "a number";
	case ST_STR: return "text";
	case ST_NONE: return "a column without values";
	}
	return "?";
}

static int need_bool(struct parser *p, const struct opnd *o)
{
	if (o->type == ST_BOOL)
		return 0;
	return FAIL(p, o->pos, "expected a comparison, found %s",
	            type_name(o->type));
}

/* operand of a comparison, 'in' or '~' */
static int need_value(struct parser *p, const struct opnd *o)
{
	if (o->type != ST_BOOL)
		return 0;
	return FAIL(p, o->pos, "expected a number or text, found a comparison");
}

/* operand of + - * / or unary minus; op_off is the operator */
static int need_number(struct parser *p, const struct opnd *o, size_t op_off)
{
	if (o->type == ST_STR)
		return FAIL(p, op_off, "cannot do arithmetic on text");
	if (o->type == ST_BOOL)
		return FAIL(p, o->pos, "expected a number, found a comparison");
	return 0;
}

/* ---- emitting instructions ------------------------------------------ */

static struct insn *emit(struct parser *p, enum op op, int stack_effect)
{
	dfs_filter *f = p->f;
	struct insn *code = reserve(p, f->code, &p->cap_code, f->ncode + 1,
	                            sizeof(*code));
	if (!code)
		return NULL;
	f->code = code;
	struct insn *in = &f->code[f->ncode++];
	memset(in, 0, sizeof(*in));
	in->op = (uint8_t)op;
	p->sp += stack_effect;
	if (p->sp > p->max_sp)
		p->max_sp = p->sp;
	return in;
}

static int emit_push(struct parser *p, struct num k)
{
	struct insn *in = emit(p, OP_PUSH, 1);
	if (!in)
		return -1;
	in->k = k;
	return 0;
}

static int emit_truth(struct parser *p, enum truth t)
{
	struct num k = {.kind = NK_BOOL, .v.i = t};
	return emit_push(p, k);
}

/* The only instruction of o, if o is one constant. */
static struct insn *lone_push(struct parser *p, const struct opnd *o)
{
	struct insn *in = &p->f->code[o->code];
	if (p->f->ncode != o->code + 1 || in->op != OP_PUSH)
		return NULL;
	return in;
}

/* A test on a column without values is UNKNOWN whatever the other side
 * holds: its code (from o's first instruction on) becomes that constant. */
static int emit_unknown_for(struct parser *p, struct opnd *o)
{
	o->type = ST_BOOL;
	p->f->ncode = o->code;
	p->sp = o->sp;
	return emit_truth(p, TV_UNKNOWN);
}

/* Room for one more text literal of at most `len` bytes (and its NUL):
 * where its bytes go. */
static char *text_room(struct parser *p, size_t len)
{
	dfs_filter *f = p->f;
	struct text *texts = reserve(p, f->texts, &p->cap_texts, f->ntexts + 1,
	                             sizeof(*texts));
	if (!texts)
		return NULL;
	f->texts = texts;
	char *chars = reserve(p, f->chars, &p->cap_chars, f->nchars + len + 1, 1);
	if (!chars)
		return NULL;
	f->chars = chars;
	return f->chars + f->nchars;
}

/* The text literal of `len` bytes just written at text_room's place. */
static uint32_t text_done(struct parser *p, size_t len)
{
	dfs_filter *f = p->f;
	struct text *x = &f->texts[f->ntexts];
	x->off = f->nchars;
	x->len = len;
	x->ptr = NULL;
	/* NUL-terminated too, for whoever wants a C string */
	f->chars[f->nchars + len] = '\0';
	f->nchars += len + 1;
	return (uint32_t)f->ntexts++;
}

static int add_text(struct parser *p, const struct token *t, uint32_t *index)
{
	char *at = text_room(p, t->len);
	if (!at)
		return -1;
	*index = text_done(p, dfs_flt_unescape(at, p->lx.s, t));
	return 0;
}

static int add_number(struct parser *p, struct num k)
{
	dfs_filter *f = p->f;
	struct num *nums = reserve(p, f->nums, &p->cap_nums, f->nnums + 1,
	                           sizeof(*nums));
	if (!nums)
		return -1;
	f->nums = nums;
	f->nums[f->nnums++] = k;
	return 0;
}

/* ---- primaries --------------------------------------------------------- */

/* "unknown column 'NAME'", with what the column table suggests (the
 * closest names, the module that has it) and, on the text side of a
 * comparison, that text is quoted. */
static int unknown_column(struct parser *p, const struct token *t)
{
	char q[DFS_FLT_QUOTE_CAP], hint[512] = "", quote[DFS_FLT_QUOTE_CAP + 64] = "";
	dfs_flt_quote(q, p->lx.s + t->off, t->len);
	if (p->cols && p->cols->hint)
		p->cols->hint(p->cols->ctx, p->lx.s + t->off, t->len, hint, sizeof(hint));
	if (p->text_side)
		snprintf(quote, sizeof(quote), "to compare with the text itself, "
		         "quote it: '%s'", q);
	if (hint[0] && quote[0])
		return FAIL(p, t->off, "unknown column '%s' (%s%s %s)", q, hint,
		            hint[strlen(hint) - 1] == '?' ? " or," : ";", quote);
	if (hint[0] || quote[0])
		return FAIL(p, t->off, "unknown column '%s' (%s)", q,
		            hint[0] ? hint : quote);
	return FAIL(p, t->off, "unknown column '%s'", q);
}

static int parse_column(struct parser *p, struct opnd *o)
{
	const struct token *t = &p->tok;
	dfs_type type = DFS_T_NONE;
	int c = -1;
	if (p->cols && p->cols->resolve)
		c = p->cols->resolve(p->cols->ctx, p->lx.s + t->off, t->len, &type);
	if (c < 0 || (unsigned)type > DFS_T_NONE)
		return unknown_column(p, t);
	if (type == DFS_T_STR) {
		o->type = ST_STR;
		o->ref_col = true;
		o->ref = (uint32_t)c;
	} else if (type == DFS_T_NONE) {
		struct num none = {.kind = NK_NONE};
		o->type = ST_NONE;
		p->f->lacks = true;
		if (emit_push(p, none) < 0)
			return -1;
	} else {
		struct insn *in = emit(p, OP_COL, 1);
		if (!in)
			return -1;
		in->a = (uint32_t)c;
		o->type = ST_NUM;
	}
	return advance(p);
}

static int parse_group(struct parser *p, struct opnd *o)
{
	size_t open = p->tok.off;
	if (enter(p) < 0 || advance(p) < 0 || parse_or(p, o) < 0)
		return -1;
	if (p->tok.type == TK_EOF)
		return FAIL(p, open, "unbalanced '(' : missing ')'");
	if (p->tok.type != TK_RP)
		return unexpected(p);
	o->pos = open;
	p->depth--;
	return advance(p);
}

static int parse_primary(struct parser *p, struct opnd *o)
{
	o->pos = p->tok.off;
	o->code = p->f->ncode;
	o->sp = p->sp;
	switch (p->tok.type) {
	case TK_NUM:
		o->type = ST_NUM;
		if (emit_push(p, p->tok.num) < 0)
			return -1;
		return advance(p);
	case TK_STR:
		o->type = ST_STR;
		o->ref_col = false;
		if (add_text(p, &p->tok, &o->ref) < 0)
			return -1;
		return advance(p);
	case TK_TRUE:
	case TK_FALSE:
		o->type = ST_BOOL;
		if (emit_truth(p, p->tok.type == TK_TRUE ? TV_TRUE : TV_FALSE) < 0)
			return -1;
		return advance(p);
	case TK_IDENT:
		return parse_column(p, o);
	case TK_LP:
		return parse_group(p, o);
	default:
		return expected_after(p, "a value");
	}
}

/* ---- arithmetic ---------------------------------------------------------- */

static int parse_unary(struct parser *p, struct opnd *o)
{
	if (p->tok.type != TK_MINUS)
		return parse_primary(p, o);
	size_t minus = p->tok.off;
	if (enter(p) < 0 || advance(p) < 0 || parse_unary(p, o) < 0 ||
	    need_number(p, o, minus) < 0)
		return -1;
	struct insn *k = lone_push(p, o);
	if (k)
		dfs_flt_num_neg(&k->k);
	else if (!emit(p, OP_NEG, 0))
		return -1;
	o->pos = minus;
	p->depth--;
	return 0;
}

static enum op arith_op(enum tok t)
{
	switch (t) {
	case TK_PLUS: return OP_ADD;
	case TK_MINUS: return OP_SUB;
	case TK_STAR: return OP_MUL;
	default: return OP_DIV;
	}
}

/* level 0: + and -, level 1: * and / (left-associative) */
static int parse_arith(struct parser *p, struct opnd *o, int level)
{
	enum tok first = level == 0 ? TK_PLUS : TK_STAR;
	enum tok second = level == 0 ? TK_MINUS : TK_SLASH;
	int rc = level == 0 ? parse_arith(p, o, 1) : parse_unary(p, o);
	if (rc < 0)
		return -1;
	while (p->tok.type == first || p->tok.type == second) {
		struct opnd r;
		size_t op_off = p->tok.off;
		enum op op = arith_op(p->tok.type);
		if (need_number(p, o, op_off) < 0 || advance(p) < 0)
			return -1;
		rc = level == 0 ? parse_arith(p, &r, 1) : parse_unary(p, &r);
		if (rc < 0 || need_number(p, &r, op_off) < 0 || !emit(p, op, -1))
			return -1;
		if (r.type == ST_NONE)
			o->type = ST_NONE;
	}
	return 0;
}

/* ---- comparisons ------------------------------------------------------- */

static bool cmp_of(enum tok t, int *cmp)
{
	switch (t) {
	case TK_EQ: *cmp = CMP_EQ; return true;
	case TK_NE: *cmp = CMP_NE; return true;
	case TK_LT: *cmp = CMP_LT; return true;
	case TK_LE: *cmp = CMP_LE; return true;
	case TK_GT: *cmp = CMP_GT; return true;
	case TK_GE: *cmp = CMP_GE; return true;
	default: return false;
	}
}

/* "column cmp constant" in either order becomes one instruction */
static bool fuse_compare(struct parser *p, const struct opnd *l, int cmp)
{
	dfs_filter *f = p->f;
	struct insn *c = &f->code[l->code];
	if (f->ncode != l->code + 2)
		return false;
	if (c[0].op == OP_COL && c[1].op == OP_PUSH) {
		c[0].k = c[1].k;
	} else if (c[0].op == OP_PUSH && c[1].op == OP_COL) {
		c[0].a = c[1].a;
		cmp = dfs_flt_cmp_flip(cmp);
	} else {
		return false;
	}
	c[0].op = OP_CMP_COL;
	c[0].cmp = (uint8_t)cmp;
	f->ncode--;
	p->sp = l->sp + 1;
	return true;
}

static int emit_compare(struct parser *p, struct opnd *l,
                        const struct opnd *r, int cmp, size_t op_off)
{
	if (need_value(p, l) < 0 || need_value(p, r) < 0)
		return -1;
	if (l->type == ST_NONE || r->type == ST_NONE)
		return emit_unknown_for(p, l);
	if ((l->type == ST_STR) != (r->type == ST_STR))
		return FAIL(p, op_off, "cannot compare text with a number");
	l->type = ST_BOOL;
	if (r->type == ST_STR) {
		struct insn *in = emit(p, OP_SCMP, 1);
		if (!in)
			return -1;
		in->cmp = (uint8_t)cmp;
		in->a = l->ref;
		in->b = r->ref;
		in->refs = (uint8_t)((l->ref_col ? REF_A_COL : 0) |
		                     (r->ref_col ? REF_B_COL : 0));
		return 0;
	}
	if (fuse_compare(p, l, cmp))
		return 0;
	struct insn *in = emit(p, OP_CMP, -1);
	if (!in)
		return -1;
	in->cmp = (uint8_t)cmp;
	return 0;
}

static int parse_match(struct parser *p, struct opnd *o)
{
	struct token op = p->tok;
	if (advance(p) < 0 || need_value(p, o) < 0)
		return -1;
	if (o->type == ST_NUM)
		return FAIL(p, op.off, "cannot match a number against a regular "
		            "expression");
	if (p->tok.type != TK_STR)
		return expected_after(p, "a quoted regular expression");
	char *pattern = malloc(p->tok.len);
	if (!pattern)
		return nomem(p);
	/* the lexer refuses NUL bytes, so the pattern is one C string */
	size_t len = dfs_flt_unescape(pattern, p->lx.s, &p->tok);
	pattern[len] = '\0';
	dfs_filter *f = p->f;
	struct dfs_regex *re = NULL;
	struct dfs_regex **res = reserve(p, f->res, &p->cap_res, f->nres + 1,
	                                 sizeof(*res));
	if (res)
		f->res = res;
	int rc = -1;
	bool icase = op.type == TK_IMATCH || op.type == TK_NIMATCH;
	/* the same pattern of the same text, compiled already */
	const dfs_filter *d = p->donor;
	if (res && d && f->nres < d->nres && d->res[f->nres]->len == len &&
	    d->res[f->nres]->icase == icase &&
	    memcmp(d->res[f->nres]->pattern, pattern, len) == 0) {
		re = dfs_flt_regex_ref(d->res[f->nres]);
		rc = 0;
	} else if (res) {
		rc = dfs_flt_regex(&p->lx, p->tok.off, pattern, len, icase,
		                   &p->regex_budget, &re);
	}
	free(pattern);
	if (rc < 0)
		return -1;
	f->res[f->nres++] = re;
	if (o->type == ST_NONE)
		return emit_unknown_for(p, o) < 0 ? -1 : advance(p);
	struct insn *in = emit(p, OP_SRE, 1);
	if (!in)
		return -1;
	in->a = o->ref;
	in->b = (uint32_t)(f->nres - 1);
	in->refs = o->ref_col ? REF_A_COL : 0;
	in->neg = op.type == TK_NMATCH || op.type == TK_NIMATCH;
	o->type = ST_BOOL;
	return advance(p);
}

/* One item of an in-list: a number (maybe negative) or quoted text. */
static int parse_item(struct parser *p, const struct opnd *o, size_t open)
{
	size_t at = p->tok.off;
	bool minus = p->tok.type == TK_MINUS;
	if (minus && advance(p) < 0)
		return -1;
	if (p->tok.type == TK_EOF)
		return FAIL(p, open, "unbalanced '(' : missing ')'");
	if (p->tok.type == TK_NUM) {
		if (o->type == ST_STR)
			return FAIL(p, at, "cannot compare text with a number");
		struct num k = p->tok.num;
		if (minus)
			dfs_flt_num_neg(&k);
		if (add_number(p, k) < 0)
			return -1;
	} else if (p->tok.type == TK_STR && !minus) {
		uint32_t index;
		if (o->type == ST_NUM)
			return FAIL(p, at, "cannot compare text with a number");
		if (add_text(p, &p->tok, &index) < 0)
			return -1;
	} else if (p->tok.type == TK_IDENT && !minus && o->type == ST_STR) {
		char q[DFS_FLT_QUOTE_CAP];
		dfs_flt_quote(q, p->lx.s + p->tok.off, p->tok.len);
		return FAIL(p, at, "expected quoted text, found the word '%s' "
		            "(text is quoted: '%s')", q, q);
	} else {
		return expected_after(p, minus ? "a number" :
		                      "a number or quoted text");
	}
	return advance(p);
}

static int parse_in(struct parser *p, struct opnd *o)
{
	bool neg = p->tok.type == TK_NOT;
	if ((neg && advance(p) < 0) || advance(p) < 0 || need_value(p, o) < 0)
		return -1;
	if (p->tok.type != TK_LP)
		return expected_after(p, "'('");
	size_t open = p->tok.off;
	size_t nums = p->f->nnums;
	size_t texts = p->f->ntexts;
	if (advance(p) < 0)
		return -1;
	for (;;) {
		if (parse_item(p, o, open) < 0)
			return -1;
		if (p->tok.type == TK_RP)
			break;
		if (p->tok.type == TK_EOF)
			return FAIL(p, open, "unbalanced '(' : missing ')'");
		if (p->tok.type != TK_COMMA)
			return expected_after(p, "',' or ')'");
		if (advance(p) < 0)
			return -1;
	}
	if (o->type == ST_NONE)
		return emit_unknown_for(p, o) < 0 ? -1 : advance(p);
	struct insn *in = emit(p, o->type == ST_STR ? OP_SIN : OP_IN,
	                       o->type == ST_STR ? 1 : 0);
	if (!in)
		return -1;
	in->neg = neg;
	if (o->type == ST_STR) {
		in->a = o->ref;
		in->refs = o->ref_col ? REF_A_COL : 0;
		in->b = (uint32_t)texts;
		in->n = (uint32_t)(p->f->ntexts - texts);
	} else {
		in->b = (uint32_t)nums;
		in->n = (uint32_t)(p->f->nnums - nums);
	}
	o->type = ST_BOOL;
	return advance(p);
}

/* ---- BETWEEN and LIKE ------------------------------------------------------ */

/* One bound of BETWEEN (or the right side of a comparison): an
 * arithmetic value, read as on the text side when `text` is. */
static int parse_side(struct parser *p, struct opnd *o, bool text)
{
	bool was = p->text_side;
	p->text_side = text;
	int rc = parse_arith(p, o, 0);
	p->text_side = was;
	return rc;
}

/* "x >= lo" or "x <= hi" of a text BETWEEN: UNKNOWN for a missing side */
static int emit_text_bound(struct parser *p, const struct opnd *x,
                           const struct opnd *b, int cmp)
{
	if (x->type == ST_NONE || b->type == ST_NONE)
		return emit_truth(p, TV_UNKNOWN);
	struct insn *in = emit(p, OP_SCMP, 1);
	if (!in)
		return -1;
	in->cmp = (uint8_t)cmp;
	in->a = x->ref;
	in->b = b->ref;
	in->refs = (uint8_t)((x->ref_col ? REF_A_COL : 0) | (b->ref_col ? REF_B_COL : 0));
	return 0;
}

/* x [not] between lo and hi: (x >= lo and x <= hi), SQL's three-valued
 * `and`; its negation for `not between`.  Numbers are on the stack (a
 * column between two constants is one instruction); text compares twice. */
static int parse_between(struct parser *p, struct opnd *o)
{
	bool neg = p->tok.type == TK_NOT;
	size_t op_off = p->tok.off;
	if ((neg && advance(p) < 0) || advance(p) < 0 || need_value(p, o) < 0)
		return -1;
	struct opnd lo, hi;
	if (parse_side(p, &lo, o->type == ST_STR) < 0 || need_value(p, &lo) < 0)
		return -1;
	if (p->tok.type != TK_AND)
		return expected_after(p, "'and' (BETWEEN low AND high)");
	if (advance(p) < 0 || parse_side(p, &hi, o->type == ST_STR) < 0 ||
	    need_value(p, &hi) < 0)
		return -1;
	bool text = o->type == ST_STR || lo.type == ST_STR || hi.type == ST_STR;
	bool num = o->type == ST_NUM || lo.type == ST_NUM || hi.type == ST_NUM;
	if (text && num)
		return FAIL(p, op_off, "cannot compare text with a number");
	dfs_filter *f = p->f;
	if (text) {
		/* the missing values' pushes are not needed: their tests are
		 * UNKNOWN */
		f->ncode = o->code;
		p->sp = o->sp;
		if (emit_text_bound(p, o, &lo, CMP_GE) < 0 ||
		    emit_text_bound(p, o, &hi, CMP_LE) < 0 || !emit(p, OP_AND_END, -1) ||
		    (neg && !emit(p, OP_NOT, 0)))
			return -1;
		o->type = ST_BOOL;
		return 0;
	}
	struct insn *c = &f->code[o->code];
	if (f->ncode == o->code + 3 && c[0].op == OP_COL && c[1].op == OP_PUSH &&
	    c[2].op == OP_PUSH) {
		struct num a = c[1].k, b = c[2].k;
		uint32_t at = (uint32_t)f->nnums;
		if (add_number(p, a) < 0 || add_number(p, b) < 0)
			return -1;
		c = &f->code[o->code];
		c[0].op = OP_BETWEEN_COL;
		c[0].b = at;
		c[0].neg = neg;
		f->ncode = o->code + 1;
		p->sp = o->sp + 1;
	} else {
		struct insn *in = emit(p, OP_BETWEEN, -2);
		if (!in)
			return -1;
		in->neg = neg;
	}
	o->type = ST_BOOL;
	return 0;
}

/* x [not] like 'pattern' [escape 'c'], and ilike */
static int parse_like(struct parser *p, struct opnd *o)
{
	bool neg = p->tok.type == TK_NOT;
	if (neg && advance(p) < 0)
		return -1;
	struct token op = p->tok;
	bool icase = op.type == TK_ILIKE;
	if (need_value(p, o) < 0)
		return -1;
	if (o->type == ST_NUM)
		return FAIL(p, op.off, "cannot match a number against %s pattern",
		            icase ? "an ILIKE" : "a LIKE");
	if (advance(p) < 0)
		return -1;
	if (p->tok.type != TK_STR)
		return expected_after(p, icase ? "a quoted ILIKE pattern" :
		                      "a quoted LIKE pattern");
	struct token pat = p->tok;
	if (advance(p) < 0)
		return -1;
	int esc = '\\';
	if (p->tok.type == TK_IDENT && p->tok.len == 6 &&
	    strncasecmp(p->lx.s + p->tok.off, "escape", 6) == 0) {
		if (advance(p) < 0)
			return -1;
		if (p->tok.type != TK_STR)
			return expected_after(p, "one quoted character");
		char e[4];
		size_t n = p->tok.len <= 4 ? dfs_flt_unescape(e, p->lx.s, &p->tok) : 2;
		if (n > 1 || (n == 1 && (unsigned char)e[0] >= 0x80))
			return FAIL(p, p->tok.off, "the ESCAPE character must be one ASCII "
			            "character, or '' for none");
		esc = n == 0 ? -1 : (unsigned char)e[0];
		if (advance(p) < 0)
			return -1;
	}
	/* the pattern: unescaped as text, then compiled */
	char *raw = malloc(pat.len);
	char *at = raw ? text_room(p, 2 * pat.len) : NULL;
	if (!at) {
		free(raw);
		return raw ? -1 : nomem(p);
	}
	size_t rn = dfs_flt_unescape(raw, p->lx.s, &pat);
	size_t n = dfs_flt_like_compile(&p->lx, pat.off, raw, rn, esc, icase, at);
	free(raw);
	if (n == (size_t)-1)
		return -1;
	uint32_t index = text_done(p, n);
	if (o->type == ST_NONE)
		return emit_unknown_for(p, o);
	struct insn *in = emit(p, OP_LIKE, 1);
	if (!in)
		return -1;
	in->a = o->ref;
	in->b = index;
	in->refs = o->ref_col ? REF_A_COL : 0;
	in->neg = neg;
	in->n = icase;
	o->type = ST_BOOL;
	return 0;
}

/* The words that may follow `not` inside a comparison */
static bool negatable(enum tok t)
{
	return t == TK_IN || t == TK_BETWEEN || t == TK_LIKE || t == TK_ILIKE;
}

static bool starts_comparison(struct parser *p)
{
	int cmp;
	enum tok t = p->tok.type;
	return cmp_of(t, &cmp) || t == TK_MATCH || t == TK_NMATCH ||
	       t == TK_IMATCH || t == TK_NIMATCH || negatable(t) ||
	       (t == TK_NOT && negatable(peek(p)));
}

static int parse_comparison(struct parser *p, struct opnd *o)
{
	int cmp;
	if (parse_arith(p, o, 0) < 0)
		return -1;
	if (!starts_comparison(p))
		return 0;
	enum tok t = p->tok.type;
	if (t == TK_NOT)
		t = peek(p);
	if (cmp_of(t, &cmp)) {
		struct opnd r;
		size_t op_off = p->tok.off;
		if (advance(p) < 0 || parse_side(p, &r, o->type == ST_STR) < 0 ||
		    emit_compare(p, o, &r, cmp, op_off) < 0)
			return -1;
	} else if (t == TK_MATCH || t == TK_NMATCH || t == TK_IMATCH ||
	           t == TK_NIMATCH) {
		if (parse_match(p, o) < 0)
			return -1;
	} else if (t == TK_BETWEEN) {
		if (parse_between(p, o) < 0)
			return -1;
	} else if (t == TK_LIKE || t == TK_ILIKE) {
		if (parse_like(p, o) < 0)
			return -1;
	} else if (parse_in(p, o) < 0) {
		return -1;
	}
	if (starts_comparison(p))
		return FAIL(p, p->tok.off, "comparisons cannot be chained (join "
		            "them with 'and')");
	return 0;
}

/* ---- logic ------------------------------------------------------------ */

static int parse_not(struct parser *p, struct opnd *o)
{
	if (p->tok.type != TK_NOT)
		return parse_comparison(p, o);
	size_t not_off = p->tok.off;
	if (enter(p) < 0 || advance(p) < 0 || parse_not(p, o) < 0 ||
	    need_bool(p, o) < 0)
		return -1;
	struct insn *k = lone_push(p, o);
	if (k)
		k->k.v.i = TV_TRUE - k->k.v.i;
	else if (!emit(p, OP_NOT, 0))
		return -1;
	o->pos = not_off;
	p->depth--;
	return 0;
}

/* Point every jump of a chain (linked through their `a`) at `target`. */
static void patch(dfs_filter *f, uint32_t chain, size_t target)
{
	while (chain != NO_JUMP) {
		uint32_t next = f->code[chain].a;
		f->code[chain].a = (uint32_t)target;
		chain = next;
	}
}

/* 'and' chains (is_or false) and 'or' chains: each operand but the last
 * is followed by a jump to the end taken when it decides the result
 * (FALSE for and, TRUE for or); otherwise it stays on the stack to be
 * combined with the next operand, since an UNKNOWN decides nothing. */
static int parse_logic(struct parser *p, struct opnd *o, bool is_or)
{
	enum tok word = is_or ? TK_OR : TK_AND;
	int rc = is_or ? parse_logic(p, o, false) : parse_not(p, o);
	uint32_t chain = NO_JUMP;
	if (rc < 0)
		return -1;
	while (p->tok.type == word) {
		struct opnd r;
		if (need_bool(p, o) < 0)
			return -1;
		struct insn *jump = emit(p, is_or ? OP_OR : OP_AND, 0);
		if (!jump)
			return -1;
		jump->a = chain;
		chain = (uint32_t)(p->f->ncode - 1);
		if (advance(p) < 0)
			return -1;
		rc = is_or ? parse_logic(p, &r, false) : parse_not(p, &r);
		if (rc < 0 || need_bool(p, &r) < 0 ||
		    !emit(p, is_or ? OP_OR_END : OP_AND_END, -1))
			return -1;
	}
	patch(p->f, chain, p->f->ncode);
	return 0;
}

static int parse_or(struct parser *p, struct opnd *o)
{
	return parse_logic(p, o, true);
}

/* ---- the compiler ------------------------------------------------------- */

static int order_nums(const void *a, const void *b)
{
	int o = dfs_flt_num_order(a, b);
	return o == ORD_LT ? -1 : o == ORD_GT ? 1 : 0;
}

static int order_texts(const void *a, const void *b)
{
	const struct text *x = a;
	const struct text *y = b;
	int o = dfs_flt_text_order(x->ptr, x->len, y->ptr, y->len);
	return o == ORD_LT ? -1 : o == ORD_GT ? 1 : 0;
}

static int order_ints(const void *a, const void *b)
{
	int x = *(const int *)a;
	int y = *(const int *)b;
	return (x > y) - (x < y);
}

/* Columns read by one instruction: up to two. */
static size_t insn_columns(const struct insn *in, int out[2])
{
	size_t n = 0;
	switch (in->op) {
	case OP_COL:
	case OP_CMP_COL:
	case OP_BETWEEN_COL:
		out[n++] = (int)in->a;
		break;
	case OP_SCMP:
	case OP_SIN:
	case OP_SRE:
	case OP_LIKE:
		if (in->refs & REF_A_COL)
			out[n++] = (int)in->a;
		if (in->refs & REF_B_COL)
			out[n++] = (int)in->b;
		break;
	}
	return n;
}

static int list_columns(struct parser *p)
{
	dfs_filter *f = p->f;
	size_t n = 0;
	int c[2];
	for (size_t i = 0; i < f->ncode; i++)
		n += insn_columns(&f->code[i], c);
	if (n == 0)
		return 0;
	f->cols = malloc(n * sizeof(*f->cols));
	if (!f->cols)
		return nomem(p);
	for (size_t i = 0; i < f->ncode; i++) {
		size_t k = insn_columns(&f->code[i], c);
		for (size_t j = 0; j < k; j++)
			f->cols[f->ncols++] = c[j];
	}
	qsort(f->cols, f->ncols, sizeof(*f->cols), order_ints);
	size_t distinct = 1;
	for (size_t i = 1; i < f->ncols; i++)
		if (f->cols[i] != f->cols[distinct - 1])
			f->cols[distinct++] = f->cols[i];
	f->ncols = distinct;
	return 0;
}

/* Pointers into chars, sorted in-lists, the column list. */
static int finish(struct parser *p)
{
	dfs_filter *f = p->f;
	if (p->max_sp > DFS_FLT_STACK)
		return FAIL(p, 0, "expression too complex");
	for (size_t i = 0; i < f->ntexts; i++)
		f->texts[i].ptr = f->chars + f->texts[i].off;
	for (size_t i = 0; i < f->ncode; i++) {
		const struct insn *in = &f->code[i];
		if (in->op == OP_IN)
			qsort(f->nums + in->b, in->n, sizeof(*f->nums), order_nums);
		else if (in->op == OP_SIN)
			qsort(f->texts + in->b, in->n, sizeof(*f->texts),
			      order_texts);
	}
	const struct insn *c = f->code;
	f->all = f->ncode == 1 && c[0].op == OP_PUSH &&
	         c[0].k.kind == NK_BOOL && c[0].k.v.i == TV_TRUE;
	return list_columns(p);
}

static int parse_all(struct parser *p)
{
	struct opnd o;
	if (advance(p) < 0)
		return -1;
	p->has_prev = false;
	if (p->tok.type == TK_EOF)
		return emit_truth(p, TV_TRUE);
	if (parse_or(p, &o) < 0)
		return -1;
	if (p->tok.type != TK_EOF)
		return unexpected(p);
	return need_bool(p, &o);
}

dfs_filter *dfs_filter_compile(const char *text, size_t len,
                               const dfs_filter_columns *cols, dfs_error *err)
{
	return dfs_flt_compile(text, len, cols, NULL, err);
}

dfs_filter *dfs_flt_compile(const char *text, size_t len,
                            const dfs_filter_columns *cols, bool *more,
                            dfs_error *err)
{
	return dfs_flt_compile_from(text, len, cols, NULL, false, more, err);
}

dfs_filter *dfs_flt_compile_from(const char *text, size_t len,
                                 const dfs_filter_columns *cols,
                                 const dfs_filter *donor, bool screen_only,
                                 bool *more, dfs_error *err)
{
	if (more)
		*more = false;
	struct parser p;
	memset(&p, 0, sizeof(p));
	p.lx.s = text ? text : "";
	p.lx.len = text ? len : 0;
	p.lx.err = err;
	p.cols = cols;
	p.donor = donor;
	p.regex_budget.nodes = DFS_FLT_REGEX_NODES;
	p.regex_budget.work = DFS_FLT_REGEX_WORK;
	p.regex_budget.insts = DFS_FLT_REGEX_INSTS;
	p.regex_budget.screen_only = screen_only;
	if (p.lx.len > DFS_FILTER_MAX_LEN) {
		dfs_flt_fail(&p.lx, DFS_FILTER_MAX_LEN, DFS_ERR_TOOBIG,
		             "the filter is longer than %d bytes",
		             DFS_FILTER_MAX_LEN);
		return NULL;
	}
	p.f = calloc(1, sizeof(*p.f));
	if (!p.f) {
		nomem(&p);
		return NULL;
	}
	/* chars is never NULL, so an empty literal has a valid pointer */
	p.f->chars = reserve(&p, NULL, &p.cap_chars, 1, 1);
	if (!p.f->chars || parse_all(&p) < 0 || finish(&p) < 0) {
		if (more)
			*more = p.lx.at_end;
		dfs_filter_free(p.f);
		return NULL;
	}
	return p.f;
}
