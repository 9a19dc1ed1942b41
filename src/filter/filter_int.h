/* filter_int.h - internals shared by the pieces of the filter language.
 *
 * lex.c splits the text into tokens and formats messages that point into
 * it; parse.c checks the grammar and the types and emits a small stack
 * program; num.c holds the exact numeric semantics (mixed i64 / u64 /
 * double comparisons, overflow-checked arithmetic); regex.c screens
 * regular expressions and has rx_compile.c compile them (rx.h); eval.c
 * runs the program for one row.
 *
 * The program is a flat array of instructions in postfix order.  Text
 * values never go on the value stack: an instruction that needs text names
 * it directly (a column or a literal), so the getter's dfs_value, whose
 * text may live in its scratch space, stays on the C stack of the
 * instruction that asked for it.  Nothing here is public. */
#ifndef DARSHANFS_FILTER_INT_H
#define DARSHANFS_FILTER_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "darshanfs/error.h"
#include "filter/filter.h"
#include "filter/rx.h"

/* ---- values ---------------------------------------------------------- */

/* A value on the evaluation stack: a number, a truth value or nothing. */
enum num_kind {
	NK_NONE, /* undefined (missing, x / 0): every comparison on it is
	          * UNKNOWN */
	NK_I64,
	NK_U64,
	NK_F64,
	NK_BOOL, /* v.i is an enum truth */
};

/* SQL's three truth values, ordered so that `and` is the lesser of its
 * operands, `or` the greater and `not x` is TV_TRUE - x.  A row is
 * selected only when the whole expression is TV_TRUE. */
enum truth { TV_FALSE = 0, TV_UNKNOWN = 1, TV_TRUE = 2 };

struct num {
	uint8_t kind;
	union {
		int64_t i;
		uint64_t u;
		double d;
	} v;
};

/* Comparison operators and the outcome of ordering two values. */
enum cmp_op { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE };
enum ord { ORD_LT, ORD_EQ, ORD_GT, ORD_UN /* NaN */, ORD_NONE /* missing */ };

/* num.c */
int dfs_flt_num_order(const struct num *a, const struct num *b);
bool dfs_flt_cmp_test(int cmp, int ord);
/* the truth of `a cmp b` given their order: UNKNOWN for ORD_NONE */
int dfs_flt_cmp_truth(int cmp, int ord);
int dfs_flt_cmp_flip(int cmp);        /* a < b  <=>  b > a */
/* op is OP_ADD, OP_SUB, OP_MUL or OP_DIV; out may alias a or b.  An
 * undefined operand or a zero divisor gives an undefined result. */
void dfs_flt_num_arith(int op, const struct num *a, const struct num *b,
                       struct num *out);
void dfs_flt_num_neg(struct num *x);
/* bytewise order of two texts: memcmp, then the shorter one first */
int dfs_flt_text_order(const char *a, size_t an, const char *b, size_t bn);

/* ---- tokens ---------------------------------------------------------- */

enum tok {
	TK_EOF, TK_IDENT, TK_NUM, TK_STR, TK_TRUE, TK_FALSE,
	TK_AND, TK_OR, TK_NOT, TK_IN,
	TK_LP, TK_RP, TK_COMMA,
	TK_EQ, TK_NE, TK_LT, TK_LE, TK_GT, TK_GE, TK_MATCH, TK_NMATCH,
	TK_PLUS, TK_MINUS, TK_STAR, TK_SLASH,
	TK_BETWEEN, TK_LIKE, TK_ILIKE, TK_IMATCH, TK_NIMATCH,
};

struct token {
	enum tok type;
	size_t off;      /* byte offset in the text (EOF: end of the last token) */
	size_t len;      /* bytes of text it spans (quotes included) */
	struct num num;  /* TK_NUM */
};

struct lexer {
	const char *s;
	size_t len;
	size_t pos;      /* next byte to look at */
	size_t prev_end; /* end of the last token returned */
	dfs_error *err;  /* may be NULL (peeking) */
	/* a token read (or refused) so far reached the end of the text, or
	 * the end itself was read: more text could change what was read */
	bool at_end;
};

/* lex.c */
/* Next token; -1 with the error set on bad input. */
int dfs_flt_lex(struct lexer *lx, struct token *t);
/* Set err to "at <character position of off>: <message>"; returns -1. */
int dfs_flt_fail(const struct lexer *lx, size_t off, dfs_status code,
                 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* 1-based character (UTF-8 code point) position of byte offset off. */
size_t dfs_flt_charpos(const char *s, size_t len, size_t off);
/* Printable one-line copy of s: bytes outside 0x20..0x7e as \xNN, cut
 * after DFS_FLT_QUOTE_BYTES input bytes with "...". */
#define DFS_FLT_QUOTE_BYTES 40
#define DFS_FLT_QUOTE_CAP (DFS_FLT_QUOTE_BYTES * 4 + 4)
void dfs_flt_quote(char *out, const char *s, size_t len);
/* Something like a size suffix, spelled wrong ("MB", "k", "EiB"). */
bool dfs_flt_looks_like_size(const char *s, size_t len);
/* Contents of a string token without quotes and escapes; out needs
 * t->len bytes.  Returns the length. */
size_t dfs_flt_unescape(char *out, const char *text, const struct token *t);

/* parse.c: dfs_filter_compile that, when it fails, tells in *more
 * (may be NULL) whether the error came only once the end of the text
 * was reached, so that more text could make it valid. */
dfs_filter *dfs_flt_compile(const char *text, size_t len,
                            const dfs_filter_columns *cols, bool *more,
                            dfs_error *err);
/* The same, taking the compiled patterns of `donor` (compiled from the
 * same text, may be NULL) instead of compiling them again; screen_only:
 * see struct regex_budget. */
dfs_filter *dfs_flt_compile_from(const char *text, size_t len,
                                 const dfs_filter_columns *cols,
                                 const dfs_filter *donor, bool screen_only,
                                 bool *more, dfs_error *err);

/* ---- regular expressions (regex.c) ------------------------------------ */

/* What the regular expressions of one filter may still cost: automaton
 * nodes once repetitions are written out, and nodes x optional parts.
 * (The second bounded what glibc's regcomp stored for each node; our own
 * automaton needs no such thing, but the limits users know are kept.) */
#define DFS_FLT_REGEX_NODES 100000u
#define DFS_FLT_REGEX_WORK 4000000u
/* What they may take for certain: the instructions of their automata
 * together (rx.h), which fix all they hold (about 70 bytes each, and
 * up to 1 MiB a pattern for the states matching remembers). */
#define DFS_FLT_REGEX_INSTS RX_MAX_INST
struct regex_budget {
	uint64_t nodes;
	uint64_t work;
	uint64_t insts;
	/* screen and check the patterns, compile none: the filter is only
	 * checked and thrown away, never run (a check of text still being
	 * written) */
	bool screen_only;
};

/* A compiled pattern, shared by reference among the filters compiled
 * from one text (the modules of a log-wide or directory filter): it may
 * be matched from several threads at once. */
struct dfs_regex {
	struct dfs_rx *rx;   /* NULL for a screen_only filter */
	atomic_int refs;
	size_t memory;       /* all it holds (dfs_rx_memory and this) */
	size_t len;
	bool icase;          /* matched ignoring case (~*) */
	char pattern[];      /* NUL-terminated */
};

/* Compile pattern (NUL-terminated, len bytes) after screening it for
 * constructs that could exhaust memory or time, charging it to *budget.
 * Errors point at off. */
int dfs_flt_regex(const struct lexer *lx, size_t off, const char *pattern,
                  size_t len, bool icase, struct regex_budget *budget,
                  struct dfs_regex **out);
struct dfs_regex *dfs_flt_regex_ref(struct dfs_regex *r);
void dfs_flt_regex_unref(struct dfs_regex *r);

/* ---- LIKE patterns (like.c) ---------------------------------------------- */

/* A LIKE pattern compiled for like_match: its literal bytes as they are
 * (lower-case for ILIKE), a wildcard as a NUL byte then '%' or '_' (text
 * literals hold no NUL).  out needs 2 * len bytes; returns the length, or
 * (size_t)-1 with the error set when the pattern ends with the escape
 * character.  esc is the escape character, or -1 for none. */
size_t dfs_flt_like_compile(const struct lexer *lx, size_t off, const char *pat,
                            size_t len, int esc, bool icase, char *out);
/* Does s[0..n) match the compiled pattern? */
bool dfs_flt_like_match(const char *pat, size_t plen, const char *s, size_t n,
                        bool icase);
/* Bytes of the UTF-8 character at s (1 for a byte that starts none). */
size_t dfs_flt_utf8_len(const unsigned char *s, size_t avail);

/* ---- the program ------------------------------------------------------ */

enum op {
	OP_PUSH,    /* push k */
	OP_COL,     /* push numeric column a */
	OP_NEG,     /* negate the top */
	OP_ADD,     /* pop b and a, push a op b */
	OP_SUB,
	OP_MUL,
	OP_DIV,     /* divisor zero: an undefined value */
	OP_CMP,     /* pop b and a, push a cmp b */
	OP_CMP_COL, /* push (column a) cmp k */
	OP_IN,      /* pop x, push x in nums[b .. b+n) (neg: not in) */
	OP_SCMP,    /* push text a cmp text b */
	OP_SIN,     /* push text a in texts[b .. b+n) (neg: not in) */
	OP_SRE,     /* push text a ~ res[b] (neg: !~) */
	OP_BETWEEN, /* pop b, a and x, push x >= a and x <= b (neg: not) */
	OP_BETWEEN_COL, /* push (column a) between nums[b] and nums[b+1] */
	OP_LIKE,    /* push text a LIKE texts[b] (neg: not; n: ILIKE) */
	OP_NOT,     /* TRUE <-> FALSE on top; UNKNOWN stays */
	OP_AND,     /* top FALSE: jump to a (it is the result), else keep it */
	OP_OR,      /* top TRUE: jump to a (it is the result), else keep it */
	OP_AND_END, /* pop b and a, push a and b (the lesser) */
	OP_OR_END,  /* pop b and a, push a or b (the greater) */
};

/* A text operand is a column (REF_A_COL / REF_B_COL set) or an index
 * into texts. */
#define REF_A_COL 1u
#define REF_B_COL 2u

struct insn {
	uint8_t op;
	uint8_t cmp;   /* enum cmp_op */
	uint8_t neg;   /* not in, !~ */
	uint8_t refs;  /* REF_* */
	uint32_t a, b, n;
	struct num k;
};

/* A text literal: `off` into chars while compiling, `ptr` once done. */
struct text {
	size_t off;
	size_t len;
	const char *ptr;
};

/* Values the stack can hold at once.  The parser proves every program
 * fits (and refuses the rare one that would not): a level of logic adds
 * at most two slots (the left sides of an `or` and of an `and`, kept to
 * be combined with the right side: UNKNOWN decides nothing), a level of
 * arithmetic two (+ - and * /), and one comparison holds one more. */
#define DFS_FLT_STACK (3 * (DFS_FILTER_MAX_DEPTH + 2) + 8)

struct dfs_filter {
	struct insn *code;
	size_t ncode;
	struct num *nums;    /* numeric in-lists, each sorted */
	size_t nnums;
	struct text *texts;  /* text literals; in-lists sorted */
	size_t ntexts;
	char *chars;         /* bytes of the text literals */
	size_t nchars;
	struct dfs_regex **res;
	size_t nres;
	int *cols;           /* distinct columns read, ascending */
	size_t ncols;
	bool all;            /* matches every row */
	bool lacks;          /* names a column without values here */
};

#endif
