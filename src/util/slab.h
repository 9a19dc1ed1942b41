/* slab.h - large write-once memory regions (inside the library: packed
 * record sets, dfs_records.mapped, are slabs).
 *
 * A slab reserves address space up front (nothing is resident until it is
 * written), is filled front to back, and is trimmed to what was used: a
 * set of records that grows to hundreds of MiB is never copied to grow.
 *
 * Slabs take ordinary 4 KiB pages.  Transparent huge pages (and a helper
 * thread faulting them in ahead of the writer) were tried and dropped: on
 * virtual machines that hand freed memory back to the host, a fresh 2 MiB
 * page cost about four times as much per byte as fresh 4 KiB pages, and
 * the first read of a 1M-record records.csv was about 20% slower for it.
 * Tried again on a paravirtual machine where huge pages fault in faster:
 * the 1M-record log loaded in 1.19-1.50 s instead of 1.63-1.65 s, but
 * everything that read the packed records afterwards was slower (the
 * stat of its files.csv 0.20 s against 0.16 s, records.parquet 0.55 s
 * against 0.49 s, records.csv 0.53 s against 0.51 s): dropped again.
 *
 * What was kept of it: the writer's 4 KiB pages are faulted in a stretch
 * of 1 MiB at a time, one stretch ahead of it (dfs_slab_written), by one
 * call each instead of a fault each: on that machine the 1M-record log
 * loaded in 1.375 s instead of 1.649 s (medians of 6 alternating rounds;
 * 2 MiB stretches did less), and what reads the records afterwards is
 * as fast (records.csv 0.493 s against 0.494 s, records.parquet 0.542 s
 * against 0.559 s). */
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

/* A writer filling a slab of `cap` bytes at base front to back goes
 * from byte `from` to byte `to` (has written them, or is about to): when
 * that crosses into a new stretch, the pages of the stretch after the one
 * `to` lies in are faulted in at once (from 0: every stretch up to that
 * one). */
void dfs_slab_written(char *base, size_t cap, size_t from, size_t to);

#endif
