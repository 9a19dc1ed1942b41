/* selections.h - the root's list of every filter and import in force
 * (selections.c). */
#ifndef DFS_VIEW_SELECTIONS_H
#define DFS_VIEW_SELECTIONS_H

#include "view/view_int.h"

/* The content of a root file (selections, selections.csv,
 * selections.error) for the caller. */
dfs_snapshot *dfs_selections_content(dfs_view *v, const struct node *n,
                                     const dfs_caller *who, dfs_error *err);
/* Remove every filter and import of a state: directory filters, log and
 * module filters, imported rows.  Returns how many were in force. */
size_t dfs_selections_clear(dfs_view *v, uint64_t state);
/* Record why a write to `selections` was refused (NULL: it was not). */
void dfs_selections_set_error(dfs_view *v, uint64_t state, const char *msg);

#endif
