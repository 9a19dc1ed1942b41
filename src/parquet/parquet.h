/* parquet.h - a table written as one Apache Parquet file.
 *
 * The core of the format and nothing more: a flat schema of required or
 * optional columns; per column chunk one data page (v1), its values
 * PLAIN-encoded or, when the chunk has few distinct values, as indices
 * into a dictionary page (RLE_DICTIONARY: most Darshan counters hold a
 * handful of values, zero above all); row groups of a bounded number of
 * rows and bytes; min/max and null-count statistics per chunk; pages
 * compressed with ZSTD (libzstd) or GZIP (zlib), or not; the footer in
 * Thrift's compact protocol
 * (thrift.c).  What every reader of the format reads: DuckDB, Arrow,
 * Spark, Polars, pandas.
 *
 * A table is written value by value in row order: for each row one call
 * per column, in the schema's order (dfs_pq_i64 for an INT64 column,
 * dfs_pq_null for a missing value of an optional one, ...).  Each row
 * group is encoded and compressed into the output as soon as it is full,
 * so what is held besides the output is one group's values.  The file is
 * complete, its size known, only after dfs_pq_finish: Parquet's footer
 * records where every chunk lies.
 *
 * Misuse (a value of the wrong type, a null in a required column, a
 * string that is not UTF-8 in a STRING column) is reported, never
 * written: the writer fails rather than give a file a reader would
 * misread. */
#ifndef DFS_PARQUET_H
#define DFS_PARQUET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "darshanfs/buf.h"
#include "darshanfs/error.h"
#include "darshanfs/log.h"

struct dfs_scratch;

enum dfs_pq_type {
	DFS_PQ_INT64,     /* INT64, signed */
	DFS_PQ_UINT64,    /* INT64 holding INTEGER(64, unsigned): record ids */
	DFS_PQ_DOUBLE,    /* DOUBLE */
	DFS_PQ_STRING,    /* BYTE_ARRAY holding UTF-8 text (STRING) */
	DFS_PQ_TIMESTAMP, /* INT64 microseconds since the epoch, UTC */
	DFS_PQ_BOOL,      /* BOOLEAN */
};

struct dfs_pq_column {
	const char *name;
	enum dfs_pq_type type;
	bool optional;    /* may hold nulls */
};

/* (Parquet's numbers of the codecs) */
enum dfs_pq_codec { DFS_PQ_UNCOMPRESSED = 0, DFS_PQ_GZIP = 2, DFS_PQ_ZSTD = 6 };

struct dfs_pq_options {
	enum dfs_pq_codec codec;
	int level;              /* level of GZIP (zlib, 1..9) or ZSTD (1..19);
	                           0: 1 */
	size_t group_rows;      /* rows per row group (0: 131072) */
	size_t group_bytes;     /* a group also ends past this many bytes of
	                           values (0: 64 MiB) */
	size_t threads;         /* encode a group's columns, or fill and
	                           encode whole groups (dfs_pq_fill_groups),
	                           on up to this many threads, the caller's
	                           among them (0: 1) */
	uint64_t rows_hint;     /* the rows the table will have, when known
	                           (0: unknown): memory is reserved for them */
	struct dfs_scratch *pool;   /* where the parts of dfs_pq_fill_groups take
	                               their groups' values (tens of MiB each,
	                               warm when the pool kept a block) and give
	                               them back; NULL: mapped and unmapped */
	/* key-value metadata of the footer, `nkv` pairs (may be 0) */
	const char *const *kv_keys;
	const char *const *kv_values;
	size_t nkv;
};

typedef struct dfs_pq dfs_pq;

/* A writer of a table of `ncols` columns (the array and the names are
 * copied).  `opt` may be NULL for the defaults (ZSTD level 1).  Returns
 * NULL with `err` set when out of memory or the schema is unusable
 * (no column, an empty or repeated name). */
dfs_pq *dfs_pq_new(const struct dfs_pq_column *cols, size_t ncols,
                   const struct dfs_pq_options *opt, dfs_error *err);
void dfs_pq_free(dfs_pq *w);

/* The next value of the current row.  Errors are sticky: after one, every
 * call does nothing and dfs_pq_finish reports the first. */
void dfs_pq_i64(dfs_pq *w, int64_t v);     /* INT64 */
void dfs_pq_u64(dfs_pq *w, uint64_t v);    /* UINT64 */
void dfs_pq_f64(dfs_pq *w, double v);      /* DOUBLE */
void dfs_pq_str(dfs_pq *w, const char *s, size_t len); /* STRING */
void dfs_pq_time(dfs_pq *w, int64_t micros);            /* TIMESTAMP */
void dfs_pq_bool(dfs_pq *w, bool v);       /* BOOL */
void dfs_pq_null(dfs_pq *w);               /* any optional column */

/* Rows in batches (a table's rows rendered many at a time): between row
 * boundaries, each column is given `n` values (dfs_pq_bulk: INT64,
 * UINT64, DOUBLE and TIMESTAMP columns, `n` slots of zero to fill with
 * the values' bits in host order; dfs_pq_bulk_str or dfs_pq_bulk_null:
 * STRING columns, one call a value), then dfs_pq_bulk_rows(w, n) ends the
 * `n` rows.  A batch stays inside one row group (dfs_pq_group_room); only
 * text may be null.  The slots are valid until the next call on the
 * writer. */
size_t dfs_pq_group_room(const dfs_pq *w);
uint64_t *dfs_pq_bulk(dfs_pq *w, size_t col, size_t n);
void dfs_pq_bulk_str(dfs_pq *w, size_t col, const char *s, size_t len);
void dfs_pq_bulk_null(dfs_pq *w, size_t col);
void dfs_pq_bulk_rows(dfs_pq *w, size_t n);

/* A table of `rows` rows filled a row group at a time, up to
 * opt.threads groups at once (fewer when their values would pass 256
 * MiB): fill(g, first, n, arg) gives the rows
 * [first, first + n) to `g`, a writer of the same columns (one per
 * thread, the caller's `w` among them), through the calls above (the
 * bulk ones too).  The groups are as long as the schema and options make
 * them, never as the threads do, and go into the file in order: its bytes
 * do not depend on the threads.  Only on a writer given no rows yet; then
 * dfs_pq_finish.  0, or -1 (the writer has failed: see dfs_pq_finish). */
typedef void (*dfs_pq_fill_fn)(dfs_pq *g, uint64_t first, size_t n, void *arg);
int dfs_pq_fill_groups(dfs_pq *w, uint64_t rows, dfs_pq_fill_fn fill, void *arg);

/* Rows completed so far. */
uint64_t dfs_pq_rows(const dfs_pq *w);

/* End the table: the last group, the footer.  The whole file is handed
 * over in `out` (whatever `out` held is freed).  0, or -1 with `err` set
 * (a row left incomplete, a misuse, out of memory). */
int dfs_pq_finish(dfs_pq *w, dfs_buf *out, dfs_error *err);

/* The same, the file handed over as `*nparts` buffers to be read one
 * after the other (an array of them, to be freed with their data): the
 * groups filled in parallel (dfs_pq_fill_groups) each in the buffer it
 * was encoded into, never copied into one. */
int dfs_pq_finish_parts(dfs_pq *w, dfs_buf **parts, size_t *nparts, dfs_error *err);

/* ---- the tables of the tree (table.c) --------------------------------- */

/* Records of module m as records.csv shows them, one Parquet row per CSV
 * row, with its columns: the module's fields typed as they are (record
 * ids UINT64, counters INT64, float counters DOUBLE, text STRING), then
 * file_name, mount_pt, fs_type.  The records `index[0..count)` of `r`
 * (index NULL: the first `count`), placed by `log`'s tables.  Text that
 * is not UTF-8 (a file name in another encoding) is shown with each
 * stray byte as \xNN; every column may be null (an empty CSV cell).
 * The file comes in parts (dfs_pq_finish_parts). */
int dfs_pq_records(const dfs_log *log, const dfs_module *m, const dfs_records *r,
                   const size_t *index, size_t count,
                   const struct dfs_pq_options *opt, dfs_buf **parts, size_t *nparts,
                   dfs_error *err);

/* A CSV table of the tree (RFC 4180, header first) as Parquet: the same
 * rows and columns, each column of the type `types` gives its name (the
 * `optional` flags are ignored: an empty cell is a null, as engines read
 * the CSV).  A column without a type, a row of another width or a cell
 * that does not read whole as its column's type is an error: types are
 * declared, never guessed.  A TIMESTAMP column holds an ISO 8601 time
 * (YYYY-MM-DDTHH:MM:SSZ, maybe a fraction or an offset) or seconds since
 * the epoch in the CSV. */
int dfs_pq_from_csv(const char *csv, size_t len, const struct dfs_pq_column *types,
                    size_t ntypes, const struct dfs_pq_options *opt, dfs_buf *out,
                    dfs_error *err);

#endif
