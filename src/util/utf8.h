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

#endif
