/* utf8.h - telling well-formed UTF-8 (RFC 3629) from other bytes: CSV
 * quotes fields that are not, Parquet's text columns must be. */
#ifndef DFS_UTIL_UTF8_H
#define DFS_UTIL_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes of the well-formed UTF-8 character at s (no overlong form,
 * surrogate or code point past U+10FFFF), 0 when none starts there;
 * `avail` >= 1 bytes may be read. */
static inline size_t dfs_utf8_char(const unsigned char *s, size_t avail)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t n = c < 0x80 ? 1 : c < 0xc2 ? 0 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : c < 0xf5 ? 4 : 0;
	if (n < 2)
		return n;
	if (n > avail)
		return 0;
	/* the second byte's range excludes what another form would say */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* The walk of dfs_utf8_valid and dfs_csv_plain: s[0..len) well-formed
 * UTF-8 and, when `plain`, none of its ASCII bytes a control character,
 * DEL, ',' or '"' (`plain` is a constant at each call: the compiler
 * keeps one loop for each). */
static inline bool dfs_utf8_walk(const char *s, size_t len, bool plain)
{
	const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < len;) {
		if (len - i >= 8) {
			/* eight ASCII bytes at once (and, for plain, none of the
			 * bytes above: each below 0x80 once the high bits are
			 * known clear) */
			uint64_t x;
			__builtin_memcpy(&x, u + i, 8);
			bool ok = !(x & highs);
			if (ok && plain) {
				uint64_t c = x ^ (ones * ','), q = x ^ (ones * '"'), d = x ^ (ones * 0x7f);
				ok = !((x - ones * 0x20) & ~x & highs) && !((c - ones) & ~c & highs) &&
				     !((q - ones) & ~q & highs) && !((d - ones) & ~d & highs);
			}
			if (ok) {
				i += 8;
				continue;
			}
		}
		unsigned char c = u[i];
		if (c < 0x80) {
			if (plain && (c < 0x20 || c == 0x7f || c == ',' || c == '"'))
				return false;
			i++;
			continue;
		}
		size_t n = dfs_utf8_char(u + i, len - i);
		if (n == 0)
			return false;
		i += n;
	}
	return true;
}

/* Is all of s[0..len) well-formed UTF-8? */
static inline bool dfs_utf8_valid(const char *s, size_t len)
{
	return dfs_utf8_walk(s, len, false);
}

/* Is s[0..len) written in a CSV field as it is?  A field is quoted when
 * it holds a comma, a quote, a control character (line breaks among
 * them), DEL or bytes that are not UTF-8, so that every reader finds the
 * same fields (csv/csv.h; the log keeps this of each name). */
static inline bool dfs_csv_plain(const char *s, size_t len)
{
	return dfs_utf8_walk(s, len, true);
}

#endif
