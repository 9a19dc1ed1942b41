/* slab.h - large write-once memory regions (inside the library: packed
 * record sets, dfs_records.mapped, are slabs).
 *
 * A slab reserves address space up front (nothing is resident until it is
 * written), is filled front to back, and is trimmed to what was used: a
 * set of records that grows to hundreds of MiB is never copied to grow.
 *
 * Slabs are in transparent huge pages where they fault in faster than
 * 4 KiB pages (util/pages.h: measured once by the process).  On the
 * paravirtual machine of the benchmarks they do: the 1M-record log loads
 * in 1.19-1.50 s instead of 1.63-1.65 s (2.0-2.2 s of CPU instead of 2.7),
 * the first read of its records.csv in a fresh mount 0.91x-1.00x of a
 * bare inflate instead of 1.21x-1.25x.  On an earlier virtual machine
 * they did not (a fresh 2 MiB page cost about four times as much per byte
 * as fresh 4 KiB pages; that first read was about 20% slower). */
#ifndef DFS_UTIL_SLAB_H
#define DFS_UTIL_SLAB_H

#include <stddef.h>

typedef struct dfs_slab {
	char *base;
	size_t cap;    /* bytes reserved at base */
	size_t used;   /* bytes handed out from the front */
} dfs_slab;

/* Reserve `cap` bytes (rounded up to whole pages); 0 or -1 (no memory). */
int dfs_slab_reserve(dfs_slab *s, size_t cap);
/* Return the reserved space beyond `used` (rounded up to a page). */
void dfs_slab_trim(dfs_slab *s);
void dfs_slab_release(dfs_slab *s);

#endif
