/* accum_int.h - what the rest of the library (not the API) may ask of
 * an accumulator. */
#ifndef DFS_ACCUM_INT_H
#define DFS_ACCUM_INT_H

#include "darshanfs/accum.h"

struct dfs_scratch;
/* Take the accumulator's big tables from `pool` (util/scratch.h, e.g.
 * a view's) instead of fresh mappings; called before the first record,
 * and the pool must outlive the accumulator. */
void dfs_accum_use_scratch(dfs_accum *a, struct dfs_scratch *pool);
/* The 8-byte words of a record of m the accumulator times the record by
 * (its shared time, its metadata, read and write times); -1 when m has
 * no accumulator. */
int dfs_accum_time_words(const dfs_module *m, int *slowest, int *meta, int *read,
                         int *write);

#endif
