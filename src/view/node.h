/* node.h - the shape of the tree: the kinds of node and of file, the
 * files each level holds, and resolving a path to a node (node.c). */
#ifndef DFS_VIEW_NODE_H
#define DFS_VIEW_NODE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "darshanfs/error.h"
#include "darshanfs/view.h"

enum node_kind { N_SRCDIR, N_LOGDIR, N_MODDIR, N_FILE, N_SUMDIR, N_DXTDIR };

/* Every generated or writable file of the tree. */
enum file_kind {
	/* in a source directory */
	F_JOBS, F_DIR_FILTER, F_DIR_FILTER_ERROR, F_DIR_INSIGHTS, F_DIR_SUMMARY,
	/* in a log directory */
	F_HEADER, F_MOUNTS, F_NAMES, F_LOG_FILTER, F_LOG_FILTER_ERROR,
	F_LOG_DERIVED, F_FILTERED, F_ERROR,
	/* in a module directory */
	F_RECORDS, F_FILTER, F_FILTER_ERROR, F_DERIVED, F_DERIVED_JSON, F_TOTAL,
	F_TOTAL_CSV, F_PARTIAL,
	/* in a log directory: the job at a glance (summary_files.c) */
	F_SUMMARY, F_INSIGHTS, F_INSIGHTS_CSV,
	/* in LOG/summary/: one per plot of darshanfs/summary.h */
	F_PLOT_FIRST, F_PLOT_LAST = F_PLOT_FIRST + 15,
	/* in LOG/summary/dxt/: the plot of one traced file, <record id>.svg */
	F_DXT_FILE,
	/* at the root of the mount only: every filter and import in force
	 * (selections.c) */
	F_SELECTIONS, F_SELECTIONS_CSV, F_SELECTIONS_ERROR,
	/* which file, which rank: in a module directory (modules with
	 * per-file records), and a source directory's files of every log */
	F_FILES_CSV, F_RANKS_CSV, F_DIR_FILES,
	/* in a source directory: the per-(log, module) rows, the tables'
	 * types (schema.c) */
	F_MODULES, F_DIR_SCHEMA,
	/* the Parquet twins of the CSV tables (schema.c: dfs_parquet_twin):
	 * of a log, of a module, of a source directory, of the root */
	F_MOUNTS_PARQUET, F_NAMES_PARQUET, F_INSIGHTS_PARQUET,
	F_RECORDS_PARQUET, F_TOTAL_PARQUET, F_FILES_PARQUET, F_RANKS_PARQUET,
	F_JOBS_PARQUET, F_MODULES_PARQUET, F_DIR_INSIGHTS_PARQUET, F_DIR_FILES_PARQUET,
	F_SELECTIONS_PARQUET,
	F_KINDS
};

enum file_level { LEVEL_DIR, LEVEL_LOG, LEVEL_MODULE, LEVEL_SUMMARY, LEVEL_DXT,
                  LEVEL_ROOT };

struct file_def {
	const char *name;
	enum file_kind kind;
	enum file_level level;
	bool writable;
	bool needs_accumulator;     /* only in modules with an accumulator */
	bool selection;             /* depends on the filters */
};

struct node {
	enum node_kind kind;
	enum file_kind file;
	int module;                   /* -1 outside a module */
	uint64_t record;              /* F_DXT_FILE: the file's record id */
	char *src;                    /* source dir or log file */
	char *log_vpath;              /* the log's directory in the view */
	char *dir_vpath;              /* the source directory in the view */
	struct stat st;               /* of src */
	uint64_t state;               /* whose filters it shows (STATE_BASE) */
	char *real;                   /* a log reached through a link: the
	                               * canonical path it leads to (NULL
	                               * otherwise) */
};

/* Who may search what, asked while a path is resolved (access.c makes
 * one for a caller): search(ctx, dir) is 0 when the caller may search
 * the directory `dir` (canonical, on disk), nonzero when not. */
struct path_check {
	int (*search)(void *ctx, const char *dir);
	void *ctx;
};

extern const struct file_def dfs_file_defs[F_KINDS];
const struct file_def *dfs_file_def_by_name(enum file_level level,
                                            const char *name);
int dfs_resolve(dfs_view *v, const char *path, struct node *n, dfs_error *err);
/* The same, asking chk (may be NULL) before each directory on the way is
 * searched, those a link leads through included: a refusal is
 * DFS_ERR_ACCESS, as the kernel's EACCES comes before it looks further. */
int dfs_resolve_checked(dfs_view *v, const char *path, struct node *n,
                        const struct path_check *chk, dfs_error *err);
void dfs_node_free(struct node *n);
/* What a source entry is in the view: N_SRCDIR, N_LOGDIR or -1 (hidden:
 * also a link to a log outside SOURCE when the view says nofollow_outside,
 * and anything of the view's own mount), or SOURCE_DENIED: a link that
 * leads through a directory chk refuses.  Links are followed a component
 * at a time, never into the view's mount; *real (may be NULL) gets the
 * canonical path a link leads to (NULL for others), *st is of what the
 * entry is (a link's target). */
#define SOURCE_DENIED (-2)
int dfs_source_kind(const dfs_view *v, const char *path, const char *name,
                    struct stat *st, const struct path_check *chk, char **real);
/* The same of the entry `name` of the directory open at dirfd (-1: none),
 * whose path is `path`. */
int dfs_source_kind_at(const dfs_view *v, int dirfd, const char *path, const char *name,
                       struct stat *st, const struct path_check *chk, char **real);
char *dfs_path_join(const char *a, const char *b);
#endif
