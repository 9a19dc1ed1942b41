/* jobs.h - the tables of a source directory: jobs.csv, modules.csv,
 * insights.csv, files.csv and its summary.html (jobs.c). */
#ifndef DFS_VIEW_JOBS_H
#define DFS_VIEW_JOBS_H

#include "view/view_int.h"

/* The rendered jobs.csv files the view keeps a second: drop those older
 * than their second and return the bytes of those left (view->lock
 * held) / free them all (the view's teardown). */
size_t dfs_jobs_cache_expire(dfs_view *v);
void dfs_jobs_cache_free(dfs_view *v);

/* A table of a source directory, for the caller: jobs.csv, modules.csv,
 * insights.csv, or files.csv (every (module, file name) of the logs
 * below that the caller may read, summed over them) */
dfs_snapshot *dfs_jobs_content(dfs_view *v, const struct node *n,
                               const dfs_caller *who, dfs_error *err);
/* summary.html of a source directory, from its modules.csv for the caller */
dfs_snapshot *dfs_dir_summary_content(dfs_view *v, const struct node *n,
                                      const dfs_caller *who, dfs_error *err);

#endif
