/* index.h - what a directory's tables know of one log (its facts), and
 * the persistent index that keeps them between mounts (src/index/).
 *
 * The facts are those of a log's whole selection (every record): its
 * job, per module with an accumulator (and for POSIX+STDIO) the numbers
 * of its derived metrics that jobs.csv, modules.csv and a directory's
 * summary.html show, the findings of its insights.csv, and its files
 * for a directory's files.csv (bytes the view packs: summary/files_pack.h).
 * The view makes them from a decoded log; the index stores and returns
 * them, knowing nothing of the tree, the filters or the renderers.
 *
 * The index is an SQLite database (docs/index.md gives its schema: it is
 * also a typed database of the archive, for sqlite3 and Python).  A log
 * is found by its directory (relative to SOURCE) and name, and its row
 * holds only while the file is the one it was made from: device, inode,
 * size, modification and change time (nanoseconds) and the version of
 * the facts (DFS_INDEX_FACTS) must all be the same, or the log is read
 * again.  It never stands in the way: whatever goes wrong with the file
 * (no room, no right to write, corrupt, someone else's) the index says so
 * once through its notice function and does less (nothing, or reads
 * only), and every call still returns something usable. */
#ifndef DARSHANFS_INDEX_H
#define DARSHANFS_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* a row's module: a module id, or the POSIX+STDIO row */
#define DFS_FACTS_COMBINED (-1)
/* rows a log has at most: the modules with an accumulator, POSIX+STDIO */
#define DFS_FACTS_MAX_ROWS 8

enum { DFS_FACTS_FILES_ALL, DFS_FACTS_FILES_RO, DFS_FACTS_FILES_WO,
       DFS_FACTS_FILES_RW, DFS_FACTS_FILES_UNIQUE, DFS_FACTS_FILES_SHARED,
       DFS_FACTS_FILES_KINDS };

/* One module row (a row of modules.csv). */
typedef struct dfs_module_facts {
	int module;                 /* module id or DFS_FACTS_COMBINED */
	bool partial;               /* the module's data is incomplete */
	bool ok;                    /* has numbers (else error says why) */
	uint64_t records;
	int64_t total_bytes, bytes_read, bytes_written;
	int64_t files[DFS_FACTS_FILES_KINDS];
	double time_by_slowest, perf_by_slowest;
	char *error;
} dfs_module_facts;

/* The job of a log. */
typedef struct dfs_job_facts {
	char *error;                /* the log cannot be read: nothing else set */
	char *exe;
	int64_t jobid, uid, nprocs, start, end;
	double run_time;
	uint64_t present;           /* modules with data (header) */
	uint64_t partial;           /* the header's partial flags */
} dfs_job_facts;

/* The version of the facts: bump it whenever what a stored fact means,
 * or how a table renders it, changes (the rows of the older version are
 * then made again as they are met). */
#define DFS_INDEX_FACTS 2

/* One finding of a log's insights.csv (the row without the log). */
typedef struct dfs_finding_facts {
	char *code, *level, *module, *message;
	double value, threshold, count, total;
	char *files, *ranks, *advice;   /* JSON arrays, the short advice */
} dfs_finding_facts;

/* The file a log's facts were made from. */
typedef struct dfs_index_id {
	uint64_t dev, ino;
	int64_t size, mtime_ns, ctime_ns;
} dfs_index_id;

/* A log as the index holds it. */
typedef struct dfs_index_log {
	char *name;                 /* in its directory */
	dfs_index_id id;
	dfs_job_facts job;
	size_t nrows;
	dfs_module_facts rows[DFS_FACTS_MAX_ROWS];
	/* its row of jobs.csv as darshanfs renders it, between the log's
	 * path and the filters (NULL: not kept, or not asked) */
	char *jobs_row;
	bool has_findings;          /* the findings below were stored (for
	                             * the insights key asked) */
	size_t nfindings;
	dfs_finding_facts *findings;
	/* not NULL: name, job.error and jobs_row are not the log's own
	 * strings but lie in a directory's sealed rows (dfs_index_seal),
	 * which this holds until the log is cleared */
	struct dfs_index_sealed *hold;
} dfs_index_log;

/* Free what l holds and leave it empty (its rows past nrows, never
 * read, are not cleared: an empty log costs no more than its fields). */
void dfs_index_log_clear(dfs_index_log *l);
/* *src moved into *dst (only what it uses is copied), src left empty. */
void dfs_index_log_move(dfs_index_log *dst, dfs_index_log *src);

typedef struct dfs_index dfs_index;

/* Where problems are told, once each: a line without its end. */
typedef void (*dfs_index_notice)(void *ctx, const char *line);

/* Open the index at path, made if missing (its directory too, mode
 * 0700; the file mode 0600); a file that is not a darshanfs index, or is
 * damaged, is moved aside (PATH.broken-SECONDS) and a new one made.
 * NULL when none can be had (notice said why). */
dfs_index *dfs_index_open(const char *path, dfs_index_notice notice, void *ctx);
void dfs_index_close(dfs_index *ix);

/* The logs the index holds of directory `dir` ("" for SOURCE's own, else
 * "a/b"), with the current facts version, whose names are >= `from`,
 * in name order (byte order), at most `max` (and DFS_INDEX_WINDOW) of
 * them, into out[]: with their jobs.csv row only when `jobs_only` (the
 * module rows are not read, nor of the job more than its error and the
 * modules present), else with their module rows, and their
 * findings when made with `insights_key` (0: none).  With jobs_only
 * they come from the directory's sealed records when it has them
 * (dfs_index_seal; their strings then lie there: `hold`).  Returns how
 * many (0 on any failure). */
#define DFS_INDEX_WINDOW 256
size_t dfs_index_dir(dfs_index *ix, const char *dir, const char *from, bool jobs_only,
                     uint64_t insights_key, dfs_index_log *out, size_t max);

/* What dfs_index_dir gives with jobs_only, of every log of directory
 * `dir`, packed into stored records of up to DFS_INDEX_SEALED logs each
 * (read without decoding a row per log): made anew from the logs' rows
 * unless the directory has them already.  Every change to a log of the
 * directory (put, forget) drops them in the same transaction, so they
 * are never of other rows than the logs'.  Call once the logs of the
 * directory were put (it opens the write transaction, when it writes,
 * that dfs_index_commit ends). */
#define DFS_INDEX_SEALED 1024
void dfs_index_seal(dfs_index *ix, const char *dir);

/* Writes go into a transaction that dfs_index_commit ends (every put
 * between two commits is kept or lost together).  A put replaces what
 * the log had; jobs_row is its jobs.csv row (see dfs_index_log);
 * findings NULL leaves the log without them (nfindings 0 and findings
 * non-NULL: it has none). */
void dfs_index_put(dfs_index *ix, const char *dir, const char *name,
                   const dfs_index_id *id, const dfs_job_facts *job,
                   const char *jobs_row, const dfs_module_facts *rows, size_t nrows,
                   uint64_t insights_key, const dfs_finding_facts *findings,
                   size_t nfindings);
/* Add the findings of a log stored with the same id (else nothing). */
void dfs_index_put_findings(dfs_index *ix, const char *dir, const char *name,
                            const dfs_index_id *id, uint64_t insights_key,
                            const dfs_finding_facts *findings, size_t nfindings);
/* A log's files for a directory's files.csv: bytes the index keeps
 * without reading them (the view packs and unpacks them), made with
 * `files_key` (the version of their packing), added to a log stored with
 * the same id (else nothing), in the transaction of the writes; a put of
 * the log, or its forgetting, drops them.  Stored in pieces of
 * DFS_INDEX_FILES_PIECE bytes. */
#define DFS_INDEX_FILES_PIECE ((size_t)1 << 20)
void dfs_index_put_files(dfs_index *ix, const char *dir, const char *name,
                         const dfs_index_id *id, uint64_t files_key, const void *data,
                         size_t len);
/* The files kept of log `dir/name` when its row is of the file `id` with
 * the current facts version and they were made with `files_key`: their
 * bytes appended to out, 1; else (none, or a failure) 0, out as it was. */
struct dfs_buf;
int dfs_index_files(dfs_index *ix, const char *dir, const char *name,
                    const dfs_index_id *id, uint64_t files_key, struct dfs_buf *out);
/* Forget a log (it is gone, or no log any more). */
void dfs_index_forget(dfs_index *ix, const char *dir, const char *name);
/* Forget every log below directory `dir` (it is gone). */
void dfs_index_forget_dir(dfs_index *ix, const char *dir);
/* The directories the index holds logs of directly below `dir`, in name
 * order, as their last components (malloc'd array of malloc'd names). */
size_t dfs_index_subdirs(dfs_index *ix, const char *dir, char ***names);
void dfs_index_commit(dfs_index *ix);

#endif
