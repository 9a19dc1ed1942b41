/* accum.h - the accumulator: derived metrics and the summation record of a
 * set of records, computed with darshan-util's rules.
 *
 * Records are injected as a packed buffer in the module's current binary
 * record layout (host byte order), exactly what the log reader produces
 * and what the repacker builds from a selection.  Only modules with
 * `module->accumulator` set (POSIX, MPI-IO, STDIO, DFS, DAOS) can be
 * accumulated. */
#ifndef DARSHANFS_ACCUM_H
#define DARSHANFS_ACCUM_H

#include <stddef.h>
#include <stdint.h>

#include "darshanfs/buf.h"
#include "darshanfs/error.h"
#include "darshanfs/module.h"

enum dfs_file_category {
	DFS_ALL_FILES,
	DFS_RO_FILES,
	DFS_WO_FILES,
	DFS_RW_FILES,
	DFS_UNIQ_FILES,
	DFS_SHARED_FILES,
	DFS_PART_SHARED_FILES,
	DFS_FILE_CATEGORIES
};

/* C names of the categories: "DARSHAN_ALL_FILES", ... */
extern const char *const dfs_file_category_names[DFS_FILE_CATEGORIES];

typedef struct dfs_category_counters {
	int64_t count;
	int64_t total_read_volume_bytes;
	int64_t total_write_volume_bytes;
	int64_t max_read_volume_bytes;
	int64_t max_write_volume_bytes;
	int64_t total_max_offset_bytes;
	int64_t max_offset_bytes;
	int64_t nprocs;
} dfs_category_counters;

/* Field for field darshan's struct darshan_derived_metrics. */
typedef struct dfs_derived_metrics {
	int64_t total_bytes;
	double unique_io_total_time_by_slowest;
	double unique_rw_only_time_by_slowest;
	double unique_md_only_time_by_slowest;
	int unique_io_slowest_rank;
	double shared_io_total_time_by_slowest;
	double agg_perf_by_slowest;
	double agg_time_by_slowest;
	dfs_category_counters category_counters[DFS_FILE_CATEGORIES];
} dfs_derived_metrics;

typedef struct dfs_accum dfs_accum;

/* An accumulator for one module; fails (NULL, err set) for modules that
 * have no accumulator or for job_nprocs < 1. */
dfs_accum *dfs_accum_create(const dfs_module *m, int64_t job_nprocs,
                            dfs_error *err);

/* A "combined" accumulator that takes records of several modules (the
 * log's POSIX+STDIO view): files are matched by record id across modules,
 * so a file seen by both counts once.  It has no summation record. */
dfs_accum *dfs_accum_create_combined(int64_t job_nprocs, dfs_error *err);

/* Inject `count` records of module `m` back to back at `records` (for a
 * single-module accumulator `m` must be its module).  Records are
 * processed in order. */
int dfs_accum_inject(dfs_accum *a, const dfs_module *m, const void *records,
                     size_t count, dfs_error *err);

/* The same from a record set (raw or packed: module.h): record index[i]
 * for i < count, or all of them in order when `index` is NULL. */
int dfs_accum_inject_records(dfs_accum *a, const dfs_records *recs,
                             const size_t *index, size_t count, dfs_error *err);

/* Say that about `count` more records will be injected, so the tables are
 * sized once instead of grown step by step (optional; 0 or -1 when out of
 * memory, which only a later injection reports). */
int dfs_accum_reserve(dfs_accum *a, size_t count);

/* Compute the derived metrics; `summary` (record_size bytes, may be NULL)
 * receives the summation record, as darshan_accumulator_emit does.  May be
 * called once, after all injections. */
int dfs_accum_emit(dfs_accum *a, dfs_derived_metrics *dm, void *summary,
                   dfs_error *err);

/* ---- per file ------------------------------------------------------------ */

/* What the accumulator gives when fed only the records of one file (one
 * record id), for every file of the records injected, in one pass: the
 * way PyDarshan's `file_stats` runs darshan-util's accumulator once per
 * file.  Ask for it on a single-module accumulator before the first
 * injection (-1 otherwise); read the results after dfs_accum_emit.  Such
 * an accumulator builds no summation record (emit it with summary NULL). */
int dfs_accum_track_files(dfs_accum *a);

/* The same for records that come grouped by rank (every record of a rank
 * >= 0 together, shared records anywhere), as Darshan writes them: a
 * file's ranks are then summed one after the other, without a table of
 * every (file, rank).  An injection that breaks the promise fails
 * (DFS_ERR_INVAL); dfs_accum_ranks_grouped tells beforehand. */
int dfs_accum_track_files_grouped(dfs_accum *a);
/* Are `count` records of recs (record index[k], or k) grouped by rank? */
bool dfs_accum_ranks_grouped(const dfs_records *recs, const size_t *index,
                             size_t count);

typedef struct dfs_file_metrics {
	uint64_t id;
	int64_t bytes_read, bytes_written;
	int64_t total_bytes;         /* the file alone's derived total_bytes */
	/* ranks with a record of the file; job nprocs when one is shared */
	int64_t ranks;
	int64_t slowest_rank;        /* unique_io_slowest_rank (0: none) */
	double time_by_slowest;      /* agg_time_by_slowest */
	double perf_by_slowest;      /* agg_perf_by_slowest, MiB/s */
} dfs_file_metrics;

/* Files of the records injected so far, in the order first seen. */
size_t dfs_accum_file_count(const dfs_accum *a);
/* The file (its number in that order) of each record injected so far, in
 * the order injected; NULL when the accumulator does not track files. */
const uint32_t *dfs_accum_record_files(const dfs_accum *a);
/* File i (in that order): 0, or -1 when the accumulator does not track
 * files, is not emitted yet, or has no file i. */
int dfs_accum_file_metrics(const dfs_accum *a, size_t i, dfs_file_metrics *out);

/* Records that darshan-util would have aborted on (rank >= job nprocs):
 * how many, and a one-line description of each of the first few. */
size_t dfs_accum_warning_count(const dfs_accum *a);
const char *dfs_accum_warning(const dfs_accum *a, size_t i);

void dfs_accum_free(dfs_accum *a);

/* ---- text, exactly as darshan-parser prints it --------------------------- */

/* "total_<COUNTER>: <value>" lines of --total for a summation record */
void dfs_render_total(const dfs_module *m, const void *summary, dfs_buf *out);
/* the "# Total file counts" block of --file (starts with an empty line) */
void dfs_render_file_counts(const dfs_derived_metrics *dm, dfs_buf *out);
/* the "# performance" block of --perf (starts with an empty line) */
void dfs_render_perf(const dfs_derived_metrics *dm, dfs_buf *out);
/* every field of the struct as JSON: {"total_bytes": ..., ...,
 * "category_counters": [{"category": "DARSHAN_ALL_FILES", "count": ...},
 * ...]} with doubles in shortest round-trip form */
void dfs_render_derived_json(const dfs_derived_metrics *dm, dfs_buf *out);

#endif
