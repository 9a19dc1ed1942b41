/* select.h - filters -> selection -> accumulator results (select.c). */
#ifndef DFS_VIEW_SELECT_H
#define DFS_VIEW_SELECT_H

#include "view/view_int.h"

/* The selection of module `id`, computed if needed (entry locked). */
struct selection *dfs_selection(dfs_view *v, struct entry *e, struct decoded_log *l,
                                int id);
/* The same, with the accumulator's results (derived metrics, summation
 * record) computed if the module has an accumulator. */
struct selection *dfs_selection_metrics(dfs_view *v, struct entry *e,
                                        struct decoded_log *l, int id);
/* Why a selection has no derived metrics (its error, or the accumulator's);
 * NULL when it has them. */
const char *dfs_selection_metrics_error(const struct selection *s);
/* The combined POSIX+STDIO derived metrics (entry locked). */
const dfs_derived_metrics *dfs_combined_metrics(dfs_view *v, struct entry *e,
                                                struct decoded_log *l);
/* A selection's cut records (s->trimmed) as the log stores such records,
 * for the export; -1 out of memory. */
int dfs_selection_plain(const struct selection *s, dfs_records *out);

#endif
