/* lex.c - splits filter text into tokens, and formats the error messages
 * that point at a place in that text.
 *
 * The lexer owns everything about the spelling of the language: blanks and
 * '#' comments, case-insensitive keywords, number literals with their size
 * suffixes, quoted text and its two escapes.  It never trusts the input:
 * any byte may appear, including NUL, and every message shows the user's
 * bytes escaped so it stays one printable line. */
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter/filter_int.h"

static bool is_blank(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	       c == '\f';
}

static bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static bool is_word_start(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_word(unsigned char c)
{
	return is_word_start(c) || is_digit(c);
}

static int hex_value(unsigned char c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static unsigned char ascii_lower(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') ? (unsigned char)(c - 'A' + 'a') : c;
}

/* s[0..len) equals the lower-case word w, ignoring ASCII case */
static bool word_is(const char *s, size_t len, const char *w)
{
	size_t n = strlen(w);
	if (len != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (ascii_lower((unsigned char)s[i]) != (unsigned char)w[i])
			return false;
	return true;
}

/* ---- positions and quoting ------------------------------------------- */

/* Bytes of the UTF-8 character at s, or 1 for a byte that does not start
 * a well-formed one. */
size_t dfs_flt_utf8_len(const unsigned char *s, size_t avail)
{
	size_t n;
	if (s[0] < 0x80)
		return 1;
	else if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 1;
	if (n > avail)
		return 1;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 1;
	return n;
}

size_t dfs_flt_charpos(const char *s, size_t len, size_t off)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t pos = 1;
	size_t i = 0;
	if (off > len)
		off = len;
	while (i < off) {
		i += dfs_flt_utf8_len(u + i, len - i);
		pos++;
	}
	return pos;
}

void dfs_flt_quote(char *out, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = len > DFS_FLT_QUOTE_BYTES ? DFS_FLT_QUOTE_BYTES : len;
	char *o = out;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c <= 0x7e) {
			*o++ = (char)c;
		} else {
			*o++ = '\\';
			*o++ = 'x';
			*o++ = hex[c >> 4];
			*o++ = hex[c & 15];
		}
	}
	if (n < len) {
		memcpy(o, "...", 3);
		o += 3;
	}
	*o = '\0';
}

int dfs_flt_fail(const struct lexer *lx, size_t off, dfs_status code,
                 const char *fmt, ...)
{
	char body[DFS_ERROR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(body, sizeof(body), fmt, ap);
	va_end(ap);
	return dfs_error_set(lx->err, code, "at %zu: %s",
	                     dfs_flt_charpos(lx->s, lx->len, off), body);
}

/* ---- numbers ----------------------------------------------------------- */

/* Shift of a size suffix ("KiB" -> 10), any case; -1 if it is none. */
static int size_shift(const char *s, size_t len)
{
	static const char *const names[] = {"kib", "mib", "gib", "tib", "pib"};
	for (int i = 0; i < 5; i++)
		if (word_is(s, len, names[i]))
			return 10 * (i + 1);
	return -1;
}

/* Something like a size suffix spelled wrong: "KB", "m", "Gi", "EiB"
 * (but a lone "e" is an exponent without digits). */
static bool looks_like_size(const char *s, size_t len)
{
	unsigned char c = ascii_lower((unsigned char)s[0]);
	if (len < 1 || len > 3)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!is_word_start((unsigned char)s[i]) || s[i] == '_')
			return false;
	return strchr("kmgtp", c) != NULL || (c == 'e' && len >= 2);
}

bool dfs_flt_looks_like_size(const char *s, size_t len)
{
	return looks_like_size(s, len) && size_shift(s, len) < 0;
}

static int bad_number(struct lexer *lx, size_t start, size_t end)
{
	const char *s = lx->s;
	while (end < lx->len && (is_word((unsigned char)s[end]) || s[end] == '.'))
		end++;
	char q[DFS_FLT_QUOTE_CAP];
	dfs_flt_quote(q, s + start, end - start);
	return dfs_flt_fail(lx, start, DFS_ERR_INVAL, "malformed number '%s'", q);
}

static int too_large(struct lexer *lx, size_t start, size_t end)
{
	char q[DFS_FLT_QUOTE_CAP];
	dfs_flt_quote(q, lx->s + start, end - start);
	return dfs_flt_fail(lx, start, DFS_ERR_INVAL,
	                    "number '%s' is too large (the largest integer is "
	                    "18446744073709551615)", q);
}

/* strtod of s[0..len) in the C locale, whatever the process locale is. */
static int parse_double(struct lexer *lx, size_t start, size_t end, double *out)
{
	char small[64];
	size_t len = end - start;
	char *buf = len < sizeof(small) ? small : malloc(len + 1);
	if (!buf)
		return dfs_error_nomem(lx->err);
	memcpy(buf, lx->s + start, len);
	buf[len] = '\0';
	locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	locale_t old = c ? uselocale(c) : (locale_t)0;
	char *stop;
	*out = strtod(buf, &stop);
	if (c) {
		uselocale(old);
		freelocale(c);
	}
	bool whole = stop == buf + len;
	if (buf != small)
		free(buf);
	if (!whole)
		return bad_number(lx, start, end);
	if (!isfinite(*out))
		return too_large(lx, start, end);
	return 0;
}

static void set_integer(struct num *n, uint64_t u)
{
	if (u <= (uint64_t)INT64_MAX) {
		n->kind = NK_I64;
		n->v.i = (int64_t)u;
	} else {
		n->kind = NK_U64;
		n->v.u = u;
	}
}

/* 0x hex digits; returns the end offset or 0 after an error. */
static size_t scan_hex(struct lexer *lx, size_t start, uint64_t *u)
{
	const char *s = lx->s;
	size_t p = start + 2;
	bool big = false;
	*u = 0;
	while (p < lx->len && hex_value((unsigned char)s[p]) >= 0) {
		if (*u > UINT64_MAX >> 4)
			big = true;
		*u = *u << 4 | (uint64_t)hex_value((unsigned char)s[p]);
		p++;
	}
	if (p == start + 2) {
		bad_number(lx, start, p);
		return 0;
	}
	if (big) {
		too_large(lx, start, p);
		return 0;
	}
	return p;
}

/* Decimal digits, fraction and exponent; *is_int says which. */
static size_t scan_decimal(const struct lexer *lx, size_t p, bool *is_int)
{
	const char *s = lx->s;
	*is_int = true;
	while (p < lx->len && is_digit((unsigned char)s[p]))
		p++;
	if (p < lx->len && s[p] == '.') {
		*is_int = false;
		p++;
		while (p < lx->len && is_digit((unsigned char)s[p]))
			p++;
	}
	if (p < lx->len && (s[p] == 'e' || s[p] == 'E')) {
		size_t q = p + 1;
		if (q < lx->len && (s[q] == '+' || s[q] == '-'))
			q++;
		if (q < lx->len && is_digit((unsigned char)s[q])) {
			*is_int = false;
			p = q;
			while (p < lx->len && is_digit((unsigned char)s[p]))
				p++;
		}
	}
	return p;
}

static bool parse_decimal_u64(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

/* Multiply by 2^shift; integers stay integers, doubles become integers
 * when the result is a whole number that fits. */
static int apply_size(struct lexer *lx, size_t start, size_t end, int shift,
                      bool is_int, uint64_t u, double d, struct num *out)
{
	if (is_int) {
		if (shift > 0 && u > UINT64_MAX >> shift)
			return too_large(lx, start, end);
		set_integer(out, u << shift);
		return 0;
	}
	d *= (double)((uint64_t)1 << shift);
	if (!isfinite(d))
		return too_large(lx, start, end);
	/* literals are never negative, and (uint64_t)d truncates */
	if (shift > 0 && d < 18446744073709551616.0 && d == (double)(uint64_t)d) {
		set_integer(out, (uint64_t)d);
		return 0;
	}
	out->kind = NK_F64;
	out->v.d = d;
	return 0;
}

/* A size suffix after blanks ("1 MiB", as people write sizes): where it
 * ends, with *sfx moved to where it starts; *sfx itself when the next word
 * is no suffix (a word after a number is an error anyway).  A word that
 * only looks like one ("MB") is taken, to be refused as a suffix, unless
 * it reaches the end of the text: "1 Mi" may go on with "B". */
static size_t spaced_suffix(const struct lexer *lx, size_t *sfx)
{
	const char *s = lx->s;
	size_t q = *sfx;
	while (q < lx->len && (s[q] == ' ' || s[q] == '\t'))
		q++;
	if (q == *sfx || q >= lx->len || !is_word_start((unsigned char)s[q]))
		return *sfx;
	size_t end = q;
	while (end < lx->len && is_word((unsigned char)s[end]))
		end++;
	/* a suffix spelled wrong is refused as one, unless more may come */
	if (size_shift(s + q, end - q) < 0 &&
	    (end >= lx->len || !looks_like_size(s + q, end - q)))
		return *sfx;
	*sfx = q;
	return end;
}

static int lex_number(struct lexer *lx, struct token *t)
{
	const char *s = lx->s;
	size_t start = lx->pos;
	size_t p;
	bool is_int = true;
	uint64_t u = 0;
	double d = 0;

	if (s[start] == '0' && start + 1 < lx->len &&
	    (s[start + 1] == 'x' || s[start + 1] == 'X')) {
		p = scan_hex(lx, start, &u);
		if (p == 0)
			return -1;
	} else {
		p = scan_decimal(lx, start, &is_int);
		if (is_int && !parse_decimal_u64(s + start, p - start, &u))
			return too_large(lx, start, p);
		if (!is_int && parse_double(lx, start, p, &d) < 0)
			return -1;
	}

	size_t sfx = p;
	while (p < lx->len && is_word((unsigned char)s[p]))
		p++;
	if (p == sfx)
		p = spaced_suffix(lx, &sfx);
	int shift = 0;
	if (p > sfx) {
		shift = size_shift(s + sfx, p - sfx);
		if (shift < 0 && looks_like_size(s + sfx, p - sfx)) {
			char q[DFS_FLT_QUOTE_CAP];
			dfs_flt_quote(q, s + sfx, p - sfx);
			return dfs_flt_fail(lx, sfx, DFS_ERR_INVAL,
			                    "unknown size suffix '%s' (use KiB, "
			                    "MiB, GiB, TiB or PiB)", q);
		}
		if (shift < 0)
			return bad_number(lx, start, p);
	}
	if (p < lx->len && s[p] == '.')
		return bad_number(lx, start, p);
	if (apply_size(lx, start, p, shift, is_int, u, d, &t->num) < 0)
		return -1;
	t->type = TK_NUM;
	t->len = p - start;
	return 0;
}

/* ---- words, text, punctuation -------------------------------------- */

static void lex_word(struct lexer *lx, struct token *t)
{
	static const struct {
		const char *word;
		enum tok type;
	} keywords[] = {
		{"and", TK_AND}, {"or", TK_OR}, {"not", TK_NOT}, {"in", TK_IN},
		{"true", TK_TRUE}, {"false", TK_FALSE}, {"between", TK_BETWEEN},
		{"like", TK_LIKE}, {"ilike", TK_ILIKE},
	};
	size_t p = lx->pos;
	while (p < lx->len && is_word((unsigned char)lx->s[p]))
		p++;
	t->len = p - lx->pos;
	t->type = TK_IDENT;
	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if (word_is(lx->s + lx->pos, t->len, keywords[i].word))
			t->type = keywords[i].type;
}

static int bad_char(struct lexer *lx, size_t off, const char *hint)
{
	char q[DFS_FLT_QUOTE_CAP];
	size_t n = dfs_flt_utf8_len((const unsigned char *)lx->s + off, lx->len - off);
	dfs_flt_quote(q, lx->s + off, n);
	return dfs_flt_fail(lx, off, DFS_ERR_INVAL, "unexpected character '%s'%s",
	                    q, hint);
}

/* A backslash escapes only the quote character and itself. */
static bool is_escape(const char *s, size_t len, size_t p, char quote)
{
	return s[p] == '\\' && p + 1 < len &&
	       (s[p + 1] == quote || s[p + 1] == '\\');
}

static int lex_string(struct lexer *lx, struct token *t)
{
	const char *s = lx->s;
	char quote = s[lx->pos];
	size_t p = lx->pos + 1;
	for (;;) {
		if (p >= lx->len) {
			lx->at_end = true;
			return dfs_flt_fail(lx, lx->pos, DFS_ERR_INVAL,
			                    "unterminated text: missing closing quote %c",
			                    quote);
		}
		if (s[p] == '\0')
			return bad_char(lx, p, "");
		if (is_escape(s, lx->len, p, quote)) {
			p += 2;
			continue;
		}
		if (s[p] == quote)
			break;
		p++;
	}
	t->type = TK_STR;
	t->len = p + 1 - lx->pos;
	return 0;
}

size_t dfs_flt_unescape(char *out, const char *text, const struct token *t)
{
	const char *s = text + t->off + 1;
	size_t len = t->len - 2;
	char quote = text[t->off];
	size_t n = 0;
	for (size_t p = 0; p < len; p++) {
		if (is_escape(s, len, p, quote))
			p++;
		out[n++] = s[p];
	}
	return n;
}

static int lex_punct(struct lexer *lx, struct token *t)
{
	static const struct {
		const char *spelling;
		enum tok type;
	} ops[] = {
		/* longer operators first */
		{"!~*", TK_NIMATCH},
		{"==", TK_EQ}, {"!=", TK_NE}, {"<=", TK_LE}, {">=", TK_GE},
		{"!~", TK_NMATCH}, {"~*", TK_IMATCH}, {"&&", TK_AND}, {"||", TK_OR},
		{"<", TK_LT}, {">", TK_GT}, {"~", TK_MATCH}, {"!", TK_NOT},
		{"(", TK_LP}, {")", TK_RP}, {",", TK_COMMA}, {"+", TK_PLUS},
		{"-", TK_MINUS}, {"*", TK_STAR}, {"/", TK_SLASH},
	};
	const char *s = lx->s + lx->pos;
	size_t avail = lx->len - lx->pos;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		size_t n = strlen(ops[i].spelling);
		if (n <= avail && memcmp(s, ops[i].spelling, n) == 0) {
			t->type = ops[i].type;
			t->len = n;
			return 0;
		}
	}
	if (s[0] == '=')
		return bad_char(lx, lx->pos, " (use '==' to compare)");
	if (s[0] == '&')
		return bad_char(lx, lx->pos, " (use '&&' or 'and')");
	if (s[0] == '|')
		return bad_char(lx, lx->pos, " (use '||' or 'or')");
	return bad_char(lx, lx->pos, "");
}

static void skip_blanks(struct lexer *lx)
{
	while (lx->pos < lx->len) {
		unsigned char c = (unsigned char)lx->s[lx->pos];
		if (is_blank(c)) {
			lx->pos++;
		} else if (c == '#') {
			while (lx->pos < lx->len && lx->s[lx->pos] != '\n')
				lx->pos++;
		} else {
			break;
		}
	}
}

/* After a refused token at lx->pos: does it run into the end of the
 * text, so that more text could make it valid?  A number ("1e", "0x",
 * "12Ki", a too large integer that a fraction would make a double) or
 * the first half of '==', '&&' or '||'.  (Unterminated text says so
 * itself.) */
static bool refused_at_end(const struct lexer *lx)
{
	const char *s = lx->s;
	size_t p = lx->pos;
	unsigned char c = (unsigned char)s[p];
	if (c == '=' || c == '&' || c == '|')
		return p + 1 == lx->len;
	if (!is_digit(c) && c != '.')
		return false;
	while (p < lx->len && (is_word((unsigned char)s[p]) || s[p] == '.' ||
	                       s[p] == '+' || s[p] == '-'))
		p++;
	return p == lx->len;
}

int dfs_flt_lex(struct lexer *lx, struct token *t)
{
	skip_blanks(lx);
	t->off = lx->pos;
	t->len = 0;
	t->num.kind = NK_NONE;
	if (lx->pos >= lx->len) {
		t->type = TK_EOF;
		t->off = lx->prev_end;
		lx->at_end = true;
		return 0;
	}
	unsigned char c = (unsigned char)lx->s[lx->pos];
	unsigned char next = lx->pos + 1 < lx->len
	                     ? (unsigned char)lx->s[lx->pos + 1] : 0;
	int rc = 0;
	if (is_digit(c) || (c == '.' && is_digit(next)))
		rc = lex_number(lx, t);
	else if (is_word_start(c))
		lex_word(lx, t);
	else if (c == '\'' || c == '"')
		rc = lex_string(lx, t);
	else
		rc = lex_punct(lx, t);
	if (rc < 0) {
		lx->at_end = lx->at_end || refused_at_end(lx);
		return -1;
	}
	lx->pos += t->len;
	lx->prev_end = lx->pos;
	/* a word, number or operator that ends the text may go on */
	lx->at_end = lx->at_end || lx->pos >= lx->len;
	return 0;
}
