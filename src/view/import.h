/* import.h - rows written into records.csv, shared by reference (import.c). */
#ifndef DFS_VIEW_IMPORT_H
#define DFS_VIEW_IMPORT_H

#include <stdatomic.h>
#include <stddef.h>

#include "darshanfs/module.h"

/* Rows written into records.csv.  The module's state holds one reference
 * and every records.csv snapshot rendered from them another: the next
 * import replaces the set while a reader may still be reading the old. */
struct import_set {
	atomic_int refs;
	dfs_records recs;
};

/* Another reference to s; dropping the last frees the rows. */
struct import_set *dfs_import_ref(struct import_set *s);
void dfs_import_release(struct import_set *s);
/* Bytes a set holds (its rows and their indexes); 0 for NULL. */
size_t dfs_import_memory(const struct import_set *s);
#endif
