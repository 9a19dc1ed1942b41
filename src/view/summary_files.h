/* summary_files.h - summary.html, the plots and the insights of a log
 * (summary_files.c). */
#ifndef DFS_VIEW_SUMMARY_FILES_H
#define DFS_VIEW_SUMMARY_FILES_H

#include "view/view_int.h"

/* The plot a file kind shows (-1: none); summary.html,
 * insights.txt, insights.csv or a plot of a decoded log (entry locked). */
int dfs_plot_of_file(enum file_kind k);
bool dfs_is_summary_file(enum file_kind k);
/* The content of summary file `want` of a decoded log; the other summary
 * files, rendered in the same pass, are put in `cache` where it has none
 * (and accounted to the entry). */
dfs_snapshot *dfs_summary_contents(dfs_view *v, struct entry *e, struct decoded_log *l,
                                   struct snapshot_cache *cache, enum file_kind want,
                                   dfs_error *err);
/* The rows of a log's insights.csv, each line led by `rel` (CSV-quoted)
 * and a comma: the log's rows of its directories' insights.csv (entry
 * locked; a log that cannot be read gets a row that says why). */
void dfs_insight_rows(dfs_view *v, struct entry *e, const char *rel, dfs_buf *out);

/* LOG/summary/dxt/ID.svg of a decoded log (rendered each time it is
 * asked, not cached: there may be a million); NULL with DFS_ERR_NOENT
 * when the selection has no segment of the file. */
dfs_snapshot *dfs_dxt_file_content(dfs_view *v, struct entry *e, struct decoded_log *l,
                                   uint64_t id, dfs_error *err);
/* The record ids of the files LOG/summary/dxt/ lists (malloc'd). */
int dfs_dxt_file_ids(dfs_view *v, struct entry *e, struct decoded_log *l, uint64_t **ids,
                     size_t *n, dfs_error *err);

#endif
