/* hash.h - FNV-1a, the one general-purpose byte hash of darshanfs (hash
 * tables of paths, snapshot serials).  Record ids use dfs_hash_name (log.h),
 * the hash Darshan itself uses. */
#ifndef DARSHANFS_HASH_H
#define DARSHANFS_HASH_H

#include <stddef.h>
#include <stdint.h>

#define DFS_FNV1A_INIT 1469598103934665603ULL

/* Continue the hash h over len bytes at data. */
static inline uint64_t dfs_fnv1a(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;
	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	return h;
}

#endif
