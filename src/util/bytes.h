/* bytes.h - unaligned loads and stores, with optional byte reversal. */
#ifndef DFS_UTIL_BYTES_H
#define DFS_UTIL_BYTES_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t dfs_load_u64(const void *p, bool swap)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return swap ? __builtin_bswap64(v) : v;
}

static inline uint32_t dfs_load_u32(const void *p, bool swap)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

static inline int64_t dfs_load_i64(const void *p, bool swap)
{
	return (int64_t)dfs_load_u64(p, swap);
}

static inline double dfs_load_f64(const void *p, bool swap)
{
	uint64_t u = dfs_load_u64(p, swap);
	double d;
	memcpy(&d, &u, 8);
	return d;
}

static inline void dfs_store_u64(void *p, uint64_t v) { memcpy(p, &v, 8); }
static inline void dfs_store_i64(void *p, int64_t v) { memcpy(p, &v, 8); }
static inline void dfs_store_f64(void *p, double v) { memcpy(p, &v, 8); }
static inline void dfs_store_u32(void *p, uint32_t v) { memcpy(p, &v, 4); }

/* copy one 8-byte field from file order to host order */
static inline void dfs_copy8(void *dst, const void *src, bool swap)
{
	dfs_store_u64(dst, dfs_load_u64(src, swap));
}

#endif
