/* files.h - the content of each generated file of a log (files.c). */
#ifndef DFS_VIEW_FILES_H
#define DFS_VIEW_FILES_H

#include "view/view_int.h"

/* Content of a generated file for a node (entry locked, log decoded as
 * needed). */
dfs_snapshot *dfs_file_content(dfs_view *v, struct entry *e,
                               const struct node *n, dfs_error *err);
/* Size and serial of a generated file (entry locked): what
 * dfs_file_content would give, without rendering records.csv when its
 * rows' lengths are known. */
int dfs_file_stat(dfs_view *v, struct entry *e, const struct node *n,
                  dfs_node_stat *st, const dfs_view_prefill *pf, dfs_error *err);
/* Content of jobs.csv, files.csv, filter or filter.error of a source
 * directory. */
dfs_snapshot *dfs_dir_file_content(dfs_view *v, const struct node *n,
                                   const dfs_caller *who,
                                   dfs_error *err);

#endif
