/* selections.h - the root's list of every filter and import in force, and
 * the selection a file was made from (selections.c). */
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
/* The filters in force on a file of a directory or of the root (e NULL:
 * those of `state` that touch a log below `scope`, the directory's
 * vpath, "/" for the root) or of a whole log (e, locked: the directory
 * filters above it, its own and its modules'), on one line as the file's
 * attribute user.darshanfs.selection says them, at the end of `out`
 * ("" when none; out of memory: out->oom).  Decodes nothing.  Lower
 * files call it through dfs_view.selection_line. */
void dfs_selection_line(dfs_view *v, uint64_t state, const char *scope, struct entry *e,
                        dfs_buf *out);
/* Record why a write to `selections` was refused (NULL: it was not). */
void dfs_selections_set_error(dfs_view *v, uint64_t state, const char *msg);

#endif
