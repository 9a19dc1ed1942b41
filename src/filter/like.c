/* like.c - SQL's LIKE and ILIKE patterns.
 *
 * `%` matches any run of characters, `_` one character (a UTF-8 character
 * of the text, or one byte that starts none), anything else itself; an
 * escape character (a backslash unless ESCAPE names another, or none)
 * makes the character after it literal.  ILIKE ignores the case of the
 * ASCII letters.  The whole text must match.
 *
 * A compiled pattern keeps its literal bytes as they are (lower-case for
 * ILIKE) and writes a wildcard as a NUL byte then '%' or '_': a text
 * literal never holds a NUL byte, so the two cannot be confused.
 *
 * Matching takes the pattern as pieces between `%`s.  The first piece must
 * match at the start and the last at the end; each piece between them is
 * matched where it first can, which is never worse than a later place (a
 * piece spans the same number of characters wherever it matches, and what
 * follows it then has the most text left).  Pieces start on character
 * boundaries only, so that `_` never counts a part of a character.  The
 * cost is at most the text's length times the pattern's per row, and no
 * memory. */
#include <string.h>

#include "filter/filter_int.h"

#define WILD '\0'

static unsigned char lower(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') ? (unsigned char)(c - 'A' + 'a') : c;
}

size_t dfs_flt_like_compile(const struct lexer *lx, size_t off, const char *pat,
                            size_t len, int esc, bool icase, char *out)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)pat[i];
		if (esc >= 0 && c == (unsigned char)esc) {
			if (++i == len) {
				dfs_flt_fail(lx, off, DFS_ERR_INVAL,
				             "LIKE pattern ends with its escape character "
				             "'%c' (write it twice to match it)", esc);
				return (size_t)-1;
			}
			c = (unsigned char)pat[i];
		} else if (c == '%' || c == '_') {
			/* "%%" is one "%" */
			if (c == '%' && n >= 2 && out[n - 2] == WILD && out[n - 1] == '%')
				continue;
			out[n++] = WILD;
			out[n++] = (char)c;
			continue;
		}
		out[n++] = (char)(icase ? lower(c) : c);
	}
	return n;
}

/* Does the piece p[0..pn) (no '%' in it) match s from `at` on?  Where it
 * ends in *end. */
static bool piece_at(const char *p, size_t pn, const char *s, size_t n,
                     size_t at, bool icase, size_t *end)
{
	size_t i = 0;
	while (i < pn) {
		if (at >= n)
			return false;
		if (p[i] == WILD) {
			at += dfs_flt_utf8_len((const unsigned char *)s + at, n - at);
			i += 2;
			continue;
		}
		unsigned char c = (unsigned char)s[at];
		if ((icase ? lower(c) : c) != (unsigned char)p[i])
			return false;
		at++;
		i++;
	}
	*end = at;
	return true;
}

/* Is s[at] where a character starts (counting from s[0])?  Only asked
 * of the few bytes before a character that may be a continuation. */
static bool at_boundary(const char *s, size_t n, size_t at)
{
	if (at == 0 || at >= n || ((unsigned char)s[at] & 0xc0) != 0x80)
		return true;
	size_t k = 0;
	while (k < at)
		k += dfs_flt_utf8_len((const unsigned char *)s + k, n - k);
	return k == at;
}

/* The first place from `from` on that holds c (either case of a letter
 * for ILIKE: c is lower-case then), or n. */
static size_t next_byte(const char *s, size_t n, size_t from, unsigned char c,
                        bool icase)
{
	if (!icase || c < 'a' || c > 'z') {
		const char *hit = memchr(s + from, c, n - from);
		return hit ? (size_t)(hit - s) : n;
	}
	while (from < n && lower((unsigned char)s[from]) != c)
		from++;
	return from;
}

/* The end of the piece that starts at p: the next "%" wildcard or pn. */
static size_t piece_end(const char *p, size_t pn, size_t from)
{
	for (size_t i = from; i < pn; i++) {
		if (p[i] != WILD)
			continue;
		if (p[i + 1] == '%')
			return i;
		i++;
	}
	return pn;
}

bool dfs_flt_like_match(const char *p, size_t pn, const char *s, size_t n,
                        bool icase)
{
	/* the first piece, at the start */
	size_t e = piece_end(p, pn, 0), at = 0;
	if (!piece_at(p, e, s, n, 0, icase, &at))
		return false;
	if (e == pn)
		return at == n;
	size_t i = e + 2;
	for (;;) {
		e = piece_end(p, pn, i);
		bool last = e == pn;
		if (last && !memchr(p + i, WILD, e - i)) {
			/* literal bytes only: they end the text, or nothing does */
			size_t k = e - i;
			return k <= n - at &&
			       piece_at(p + i, k, s, n, n - k, icase, &at) &&
			       at_boundary(s, n, n - k);
		}
		/* the first place it matches (the last piece: where it ends the
		 * text) */
		bool found = false;
		/* a piece that starts with a byte that starts a character (not a
		 * continuation byte): only where that byte is can it match */
		unsigned char first = (unsigned char)p[i];
		bool skip = i < e && p[i] != WILD && (first & 0xc0) != 0x80;
		for (size_t from = at; from <= n;) {
			size_t end;
			if (skip) {
				from = next_byte(s, n, from, first, icase);
				if (from == n)
					break;
			}
			if (piece_at(p + i, e - i, s, n, from, icase, &end) &&
			    (!last || end == n)) {
				at = end;
				found = true;
				break;
			}
			if (from == n)
				break;
			from += dfs_flt_utf8_len((const unsigned char *)s + from, n - from);
		}
		if (!found)
			return false;
		if (last)
			return true;
		i = e + 2;
	}
}
