/* hash.h - the two hashes of darshanfs: FNV-1a, the general-purpose byte
 * hash (hash tables of paths, snapshot serials), and dfs_hash_name, the
 * hash Darshan itself makes record ids with (util/hash.c). */
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

/* Record id of a name: Jenkins' 64-bit lookup8 hash, seed 0. */
uint64_t dfs_hash_name(const void *key, size_t len);

#endif
