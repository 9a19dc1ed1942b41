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

/* Is all of s[0..len) well-formed UTF-8? */
static inline bool dfs_utf8_valid(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < len;) {
		if (len - i >= 8) {   /* ASCII eight bytes at a time */
			uint64_t w;
			__builtin_memcpy(&w, u + i, 8);
			if (!(w & 0x8080808080808080ULL)) {
				i += 8;
				continue;
			}
		}
		if (u[i] < 0x80) {
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

/* Is s[0..len) written in a CSV field as it is?  A field is quoted when
 * it holds a comma, a quote, a control character (line breaks among
 * them), DEL or bytes that are not UTF-8, so that every reader finds the
 * same fields (csv/csv.h; the log keeps this of each name). */
static inline bool dfs_csv_plain(const char *s, size_t len)
{
	/* eight bytes at once: none of them a control character, ',', '"'
	 * or past ASCII (each byte below 0x80 once the high bits are known
	 * clear) */
	const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < len;) {
		if (len - i >= 8) {
			uint64_t x, c, q, d;
			__builtin_memcpy(&x, u + i, 8);
			c = x ^ (ones * ',');
			q = x ^ (ones * '"');
			d = x ^ (ones * 0x7f);
			if (!(x & highs) && !((x - ones * 0x20) & ~x & highs) &&
			    !((c - ones) & ~c & highs) && !((q - ones) & ~q & highs) &&
			    !((d - ones) & ~d & highs)) {
				i += 8;
				continue;
			}
		}
		unsigned char c = u[i];
		if (c < 0x80) {
			if (c < 0x20 || c == 0x7f || c == ',' || c == '"')
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

#endif
