/* access.h - may a caller read a source file, and reach it (access.c). */
#ifndef DFS_VIEW_ACCESS_H
#define DFS_VIEW_ACCESS_H

#include "view/view_int.h"

/* Free what the checks keep of the view (its teardown). */
void dfs_access_free(dfs_view *v);

/* May the caller do `want` (4 read, 1 search) to the source
 * file at path (stat st), judged by its owner, group, mode bits and access
 * ACL?  A NULL caller and uid 0 may do anything. */
bool dfs_may_access(const dfs_caller *who, const char *path,
                    const struct stat *st, unsigned want);
/* A path_check of who's search permission (NULL for a caller who sees
 * all: none, or uid 0), kept in ac; the directories above SOURCE are not
 * asked (see dfs_view_access). */
struct access_check {
	struct path_check chk;
	dfs_view *v;
	const dfs_caller *who;
};
const struct path_check *dfs_access_check(dfs_view *v, const dfs_caller *who,
                                          struct access_check *ac);
/* dfs_resolve for `who` on a view with check_access: what it may not
 * reach on disk is DFS_ERR_ACCESS (see dfs_view_access); `listing`: to
 * list the node (read permission on the directory or log).  Without
 * check_access, or for a caller who sees all, dfs_resolve. */
int dfs_resolve_as(dfs_view *v, const char *path, const dfs_caller *who,
                   bool listing, struct node *n, dfs_error *err);
/* Is who's access judged on this view (check_access, a caller who does
 * not see all)? */
bool dfs_access_judged(const dfs_view *v, const dfs_caller *who);
/* dfs_entry_get for a node dfs_resolve_as gave `who`: a judged caller's
 * entry reads only the version of the log its check approved (n->st;
 * see entry.expect): a file swapped in on the way after the check is
 * refused, DFS_ERR_ACCESS, never read. */
struct entry *dfs_entry_for(dfs_view *v, const struct node *n, const dfs_caller *who,
                            dfs_error *err);

#endif
