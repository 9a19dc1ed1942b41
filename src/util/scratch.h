/* scratch.h - recycled memory for the big short-lived arrays of a filter
 * write (the selection's index, the accumulator's tables, imported rows).
 *
 * Every filter write builds arrays of megabytes and frees those of the
 * previous filter.  From fresh pages each time, the page faults cost as
 * much as the work; these blocks are kept (a bounded few) and handed to
 * the next write warm.  Blocks below 1 MiB are plain malloc.
 *
 * The kept blocks belong to a pool, and a pool to whoever owns the work
 * (a view: dfs_view.scratch), so that one owner's writes never take,
 * keep or trim another's blocks.  A block goes back to the pool it came
 * from; the pool outlives its blocks.  A NULL pool keeps nothing: its
 * blocks are mapped and unmapped each time. */
#ifndef DFS_UTIL_SCRATCH_H
#define DFS_UTIL_SCRATCH_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#define DFS_SCRATCH_KEEP 8   /* blocks a pool keeps at most */

struct dfs_scratch_block;
typedef struct dfs_scratch {
	pthread_mutex_t lock;    /* a leaf (docs/locks.md) */
	struct dfs_scratch_block *kept[DFS_SCRATCH_KEEP];
	size_t n_kept, kept_bytes;
} dfs_scratch;

void dfs_scratch_init(dfs_scratch *pool);
/* Return every kept block and destroy the pool (NULL is ignored). */
void dfs_scratch_destroy(dfs_scratch *pool);

/* At least `size` bytes of undefined content, or NULL.  A block of
 * 1 MiB or more is a mapping of its own, in transparent huge pages where
 * the kernel has them (see scratch.c). */
void *dfs_scratch_alloc(dfs_scratch *pool, size_t size);
/* The same, and whether its bytes are all zero (*zero: a block fresh
 * from the system, whose pages the kernel zeroes as they are faulted
 * in: zeroing them again costs a pass over them for nothing). */
void *dfs_scratch_alloc_fresh(dfs_scratch *pool, size_t size, bool *zero);
/* Same as dfs_scratch_alloc, the first `old` bytes of `p` kept (p, of
 * the same pool, freed). */
void *dfs_scratch_realloc(dfs_scratch *pool, void *p, size_t old, size_t size);
/* Fault in, for writing, the whole pages inside [p, p + len) at once:
 * for a fresh buffer about to be written whole, one call costs several
 * times less than a page fault every 4 KiB (most of all on a virtual
 * machine).  Any memory, not only blocks of a pool. */
void dfs_pages_populate(void *p, size_t len);
/* Fault in the pages of bytes [from, from + size) of block p at once
 * (a part about to be written: one call costs several times less than a
 * page fault per 4 KiB).  Does nothing to small blocks. */
void dfs_scratch_prefault(void *p, size_t from, size_t size);
/* Give back a block of dfs_scratch_alloc from `pool` (NULL is ignored). */
void dfs_scratch_free(dfs_scratch *pool, void *p);
/* Return every kept block to the system. */
void dfs_scratch_trim(dfs_scratch *pool);
/* Bytes the pool keeps (mapped, not in use). */
size_t dfs_scratch_kept(dfs_scratch *pool);

#endif
