/* slab.h - large write-once memory regions for generated text.
 *
 * A slab reserves address space up front (nothing is resident until it is
 * written), is filled front to back, and is trimmed to what was used.  On
 * Linux it asks for transparent huge pages: filling hundreds of MiB then
 * takes one page fault per 2 MiB instead of one per 4 KiB, which on a
 * first read of a big records.csv is a large part of the time. */
#ifndef DARSHANFS_SLAB_H
#define DARSHANFS_SLAB_H

#include <stddef.h>

typedef struct dfs_slab {
	char *base;
	size_t cap;    /* bytes reserved at base */
	size_t used;   /* bytes handed out from the front */
} dfs_slab;

/* Ask for transparent huge pages on the whole 2 MiB pages inside
 * [p, p + len) (memory that will be written front to back). */
void dfs_huge_advise(void *p, size_t len);

/* Reserve `cap` bytes (rounded up to whole pages); 0 or -1 (no memory). */
int dfs_slab_reserve(dfs_slab *s, size_t cap);
/* Return the reserved space beyond `used` (rounded up to a page). */
void dfs_slab_trim(dfs_slab *s);
void dfs_slab_release(dfs_slab *s);

/* A helper thread that faults in the pages of a slab ahead of the one
 * thread writing it front to back.  On some machines (virtual ones) the
 * first touch of fresh memory costs as much as the work that fills it;
 * on another core it overlaps that work.  It faults in at most a few
 * MiB past what the writer has reached, and never writes: the writer's
 * bytes are safe.  NULL when there is no second core, no thread or no
 * way to fault in without writing (the writer then does it, as before). */
typedef struct dfs_slab_ahead dfs_slab_ahead;
dfs_slab_ahead *dfs_slab_ahead_start(void);
/* The writer has filled `used` bytes of the `cap` reserved at base (a
 * slab; it may move to another one).  Cheap: mostly one comparison. */
void dfs_slab_ahead_note(dfs_slab_ahead *a, char *base, size_t cap, size_t used);
/* Stop the helper and wait for it (NULL is ignored). */
void dfs_slab_ahead_stop(dfs_slab_ahead *a);

#endif
