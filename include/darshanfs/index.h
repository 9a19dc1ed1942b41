/* index.h - what a directory's tables know of one log (its facts), and
 * the persistent index that keeps them between mounts (src/index/).
 *
 * The facts are those of a log's whole selection (every record): its
 * job, and per module with an accumulator (and for POSIX+STDIO) the
 * numbers of its derived metrics that jobs.csv, modules.csv and a
 * directory's summary.html show.  The view makes them from a decoded
 * log; the index stores and returns them, knowing nothing of the tree,
 * the filters or the renderers. */
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

#endif
