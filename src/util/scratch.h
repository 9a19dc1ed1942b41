/* scratch.h - recycled memory for the big short-lived arrays of a filter
 * write (the selection's index, the accumulator's tables).
 *
 * Every filter write builds arrays of megabytes and frees those of the
 * previous filter.  From fresh pages each time, the page faults cost as
 * much as the work; these blocks are kept (a bounded few) and handed to
 * the next write warm.  Blocks below 1 MiB are plain malloc. */
#ifndef DFS_UTIL_SCRATCH_H
#define DFS_UTIL_SCRATCH_H

#include <stddef.h>

/* At least `size` bytes of undefined content, or NULL. */
void *dfs_scratch_alloc(size_t size);
/* Same as dfs_scratch_alloc, the first `old` bytes of `p` kept (p freed). */
void *dfs_scratch_realloc(void *p, size_t old, size_t size);
/* Fault in the pages of bytes [from, from + size) of block p at once
 * (a part about to be written: one call costs several times less than a
 * page fault per 4 KiB).  Does nothing to small blocks. */
void dfs_scratch_prefault(void *p, size_t from, size_t size);
/* Give back a block of dfs_scratch_alloc (NULL is ignored). */
void dfs_scratch_free(void *p);
/* Return every kept block to the system. */
void dfs_scratch_trim(void);

#endif
