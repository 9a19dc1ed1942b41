/* schema.h - the columns and types of a directory's tables, and the
 * Parquet twins of the CSV tables (schema.c). */
#ifndef DFS_VIEW_SCHEMA_H
#define DFS_VIEW_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>

#include "darshanfs/buf.h"
#include "parquet/parquet.h"
#include "view/node.h"
#include "view/snapshot.h"

/* A column of a directory's table: one type in every directory. */
enum col_type { COL_TEXT, COL_INT, COL_REAL };
struct table_col {
	char name[32];
	enum col_type type;
	const char *about;
};
#define MAX_TABLE_COLS 64
/* The columns of F_JOBS, F_MODULES or F_DIR_INSIGHTS, in order (at most
 * max); 0 for another kind. */
size_t dfs_table_columns(enum file_kind k, struct table_col *cols, size_t max);
/* Its header line. */
void dfs_table_header(enum file_kind k, dfs_buf *out);
/* Has jobs.csv a bytes column for module id (one with an accumulator)? */
bool dfs_module_has_bytes_col(int id);
/* schema.json: every table's columns and types, as DuckDB, pandas/Dask
 * and Spark name them. */
dfs_snapshot *dfs_schema_content(dfs_view *v, dfs_error *err);
/* The CSV table whose Parquet twin file kind k is (-1: k is none). */
int dfs_parquet_source(enum file_kind k);
/* How the tree writes Parquet (ZSTD pages, on all cores). */
struct dfs_pq_options dfs_parquet_options(void);
/* The key of the footer's key-value metadata that names the filters in
 * force on a module's twin, as its attribute user.darshanfs.selection. */
#define DFS_PARQUET_SELECTION_KEY "darshanfs.selection"
/* The Parquet twin of `csv`, the content of a CSV table of kind
 * csv_kind (of module `module` for the module's tables): the same rows
 * and columns, typed (counters INT64, record ids UINT64, times DOUBLE, ISO
 * 8601 times TIMESTAMP, text STRING; an empty cell a null), with the
 * line in `selection` (the buffer it was written into: one that ran out
 * of memory fails the twin) as the footer's DFS_PARQUET_SELECTION_KEY;
 * NULL: no such key, for the tables no filter governs.  A cell not of
 * its column's type fails it (EIO): the types are declared, never
 * guessed. */
dfs_snapshot *dfs_parquet_twin(dfs_view *v, dfs_snapshot *csv, enum file_kind csv_kind,
                               int module, const dfs_buf *selection, dfs_error *err);
#endif
