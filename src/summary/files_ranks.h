/* files_ranks.h - which file, which rank: the tables of one module's selection
 * (MODULE/files.csv: one row per file, MODULE/ranks.csv: one row per
 * rank) and what a directory's files.csv sums over the logs below it (a
 * log's files, merged by module and file name).
 *
 * A file's time_by_slowest and perf_by_slowest are what darshan-util's
 * accumulator gives when fed only that file's records (accum.h,
 * dfs_accum_track_files), as PyDarshan's file_stats computes them; the
 * other numbers are sums of the file's records' counters.  Which
 * counters each module's columns take: docs/tables.md. */
#ifndef DARSHANFS_TABLES_H
#define DARSHANFS_TABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "darshanfs/buf.h"
#include "darshanfs/error.h"
#include "darshanfs/log.h"

struct dfs_scratch;

/* Has the module per-file records, so files.csv and ranks.csv?  (POSIX,
 * MPI-IO, STDIO, H5F, H5D, PNETCDF_FILE, PNETCDF_VAR, DFS, DAOS) */
bool dfs_tables_module(const dfs_module *m);

/* ---- files.csv ------------------------------------------------------------ */

typedef struct dfs_file_row {
	uint64_t id;
	uint32_t first;              /* index in the records of its first record */
	uint32_t name;               /* 1 + its place in the log's name table,
	                              * 0: not known */
	int64_t records;             /* selected records of the file */
	int64_t ranks;               /* ranks with a record; nprocs when shared */
	int64_t bytes_read, bytes_written, reads, writes, total_bytes;
	double time_by_slowest, perf_by_slowest;   /* timed tables only */
	double read_time, write_time, meta_time;
	double first_open;           /* earliest open (s after the job's start), 0: none */
	double last_close;           /* latest close, 0: none */
} dfs_file_row;                  /* (128 bytes: two cache lines) */

typedef struct dfs_file_table {
	const dfs_log *log;          /* borrowed, with the records */
	const dfs_records *records;
	bool timed;                  /* the module has an accumulator */
	bool text_only;              /* made for its text alone
	                              * (dfs_file_table_build_text) */
	size_t n;
	dfs_file_row *rows;          /* in the order first seen */
	uint32_t *order;             /* rows[order[k]]: most bytes first, then
	                              * first seen */
	uint32_t *len;               /* len[k]: the bytes of row k's text (most
	                              * bytes first, as order), measured as the
	                              * rows were made (the top bit: its name is
	                              * quoted; 0: too long) */
	struct dfs_scratch *pool;
} dfs_file_table;

/* The k-th row of the table, most bytes first. */
static inline const dfs_file_row *dfs_file_table_row(const dfs_file_table *t, size_t k)
{
	return &t->rows[t->order[k]];
}

/* The files of `count` records of r (record index[k], or k when index is
 * NULL), records of log's module r->module (or imported for it); job
 * nprocs from the log.  0, or -1 with err (out of memory; a module
 * without per-file records). */
int dfs_file_table_build(const dfs_log *log, const dfs_records *r,
                         const size_t *index, size_t count,
                         struct dfs_scratch *pool, dfs_file_table *out,
                         dfs_error *err);
/* The same table made to be rendered and nothing else (files.csv): a
 * row's double columns, once its length is measured, hold the digits
 * their text was measured from (dfs_fmt_double_len_keep) instead of their
 * values, so that rendering does not find them again; read them only by
 * rendering the table. */
int dfs_file_table_build_text(const dfs_log *log, const dfs_records *r,
                              const size_t *index, size_t count,
                              struct dfs_scratch *pool, dfs_file_table *out,
                              dfs_error *err);
void dfs_file_table_free(dfs_file_table *t);
/* The header line of files.csv and rows [from, to) of a table. */
void dfs_file_table_header(dfs_buf *out);
void dfs_file_table_render(const dfs_file_table *t, size_t from, size_t to,
                           dfs_buf *out);

/* The bytes dfs_file_table_render writes for rows [from, to), without
 * rendering them (a sum of the lengths the build measured). */
uint64_t dfs_file_table_measure(const dfs_file_table *t, size_t from, size_t to);
/* The most room rendering a row asks of its buffer past the text. */
size_t dfs_file_table_row_room(const dfs_file_table *t);

/* ---- ranks.csv ------------------------------------------------------------ */

typedef struct dfs_rank_row {
	int64_t rank;
	int64_t records, files;
	int64_t bytes_read, bytes_written, reads, writes;
	double read_time, write_time, meta_time;
	double io_time;              /* the sum of each record's meta + read + write */
} dfs_rank_row;

typedef struct dfs_rank_table {
	size_t n;
	dfs_rank_row *rows;          /* by rank, -1 first */
	int64_t nprocs;              /* the job's; ranks outside 0 .. nprocs-1 (real
	                              * logs have them) have no share: their time
	                              * is no rank's, as in derived_metrics */
	double slowest;              /* the largest io_time of a rank of the job */
} dfs_rank_table;

int dfs_rank_table_build(const dfs_log *log, const dfs_records *r,
                         const size_t *index, size_t count,
                         struct dfs_scratch *pool, dfs_rank_table *out,
                         dfs_error *err);
void dfs_rank_table_free(dfs_rank_table *t);
void dfs_rank_table_header(dfs_buf *out);
void dfs_rank_table_render(const dfs_rank_table *t, size_t from, size_t to,
                           dfs_buf *out);

/* ---- a directory's files.csv -------------------------------------------- */

/* A log's files as a directory's files.csv sums them: one entry per
 * (module, file name) of its selections (records with the same name and
 * different ids are one), and the modules whose table it could not make.
 * A unit of its own: what a store of per-log results would keep. */
typedef struct dfs_log_files dfs_log_files;

dfs_log_files *dfs_log_files_new(void);
/* Add a module's table (grouped by file name); 0 or -1 out of memory. */
int dfs_log_files_add(dfs_log_files *lf, const dfs_file_table *t);
/* The module (-1: the whole log) could not be read: why. */
int dfs_log_files_error(dfs_log_files *lf, int module, const char *why);
size_t dfs_log_files_count(const dfs_log_files *lf);
size_t dfs_log_files_memory(const dfs_log_files *lf);
void dfs_log_files_free(dfs_log_files *lf);

/* One entry, as a store keeps it (the strings point into lf). */
typedef struct dfs_log_file {
	int module;
	const char *name, *mount_pt, *fs_type;
	size_t name_len, mount_len, fs_len;
	bool timed;                  /* time_by_slowest is the accumulator's */
	int64_t bytes_read, bytes_written, reads, writes, total_bytes;
	double time_by_slowest, read_time, write_time, meta_time;
	int64_t left_out;            /* implausible values not summed above */
} dfs_log_file;
void dfs_log_files_get(const dfs_log_files *lf, size_t i, dfs_log_file *out);
/* Add an entry read back from a store (its name not yet in lf); 0 or -1
 * out of memory. */
int dfs_log_files_put(dfs_log_files *lf, const dfs_log_file *f);
/* The modules left out: how many, and module and why of the i-th. */
size_t dfs_log_files_errors(const dfs_log_files *lf);
const char *dfs_log_files_error_at(const dfs_log_files *lf, size_t i, int *module);

/* The rows of a directory's files.csv: logs added in the order the table
 * names them (their path below the directory, their job's start time). */
typedef struct dfs_files_merge dfs_files_merge;

/* `limit`: bytes the merge may hold (0: no limit); past it an add fails
 * with DFS_ERR_TOOBIG. */
dfs_files_merge *dfs_files_merge_new(size_t limit);
int dfs_files_merge_add(dfs_files_merge *fm, const char *log, int64_t start,
                        const dfs_log_files *lf, dfs_error *err);
/* A log left out whole (it cannot be read). */
int dfs_files_merge_skip(dfs_files_merge *fm, const char *log, const char *why,
                         dfs_error *err);
size_t dfs_files_merge_memory(const dfs_files_merge *fm);
/* The whole text: header, one row per (module, file name), most bytes
 * first, then a row per log (or module of a log) left out. */
int dfs_files_merge_render(dfs_files_merge *fm, dfs_buf *out, dfs_error *err);
void dfs_files_merge_free(dfs_files_merge *fm);

#endif
