/* dirs.h - directory filters: what applies to every log below a directory,
 * per state, and the generations of the states (dirs.c). */
#ifndef DFS_VIEW_DIRS_H
#define DFS_VIEW_DIRS_H

#include "view/view_int.h"

#define MAX_DIR_FILTERS 32   /* directory filters applied to one log */
/* Compiled filters of the directories above a log (its vpath), for module
 * id; references to release with dfs_dir_filters_release.  Returns the
 * count (at most `max`); *gen (when not NULL) the generation of the
 * state's directory filters they are, read with them. */
size_t dfs_dir_filters_acquire(dfs_view *v, uint64_t state, uint64_t *gen,
                               const char *log_vpath, int id,
                               struct dir_compiled **out, size_t max);
void dfs_dir_filters_release(struct dir_compiled **c, size_t n);
/* Is `text` a valid directory filter, and would it fit what the state's
 * filters may take in place of the directory's?  0, or -1 with err;
 * *compiled: the bytes its compilation took. */
int dfs_dir_filter_check(dfs_view *v, uint64_t state, const char *vpath,
                         const char *text, size_t len, size_t *compiled,
                         dfs_error *err);
/* Install the filter of a directory (view->lock is taken inside). */
int dfs_dir_filter_install(dfs_view *v, uint64_t state, const char *vpath,
                           const char *text,
                           size_t len, dfs_error *err);
void dfs_dir_filter_set_error(dfs_view *v, uint64_t state, const char *vpath,
                              const char *msg);
/* Has the state a directory filter at or above vpath?  (view->lock held) */
bool dfs_dir_state_above(dfs_view *v, uint64_t state, const char *vpath);
/* Can the directory filters of `state` above a log change the selection
 * of one of its modules in the bit mask `modules` (one that does not
 * match every record of it)?  *gen (when not NULL) gets the state's
 * directory generation they are, read with them.  Takes view->lock. */
bool dfs_dir_filters_change(dfs_view *v, uint64_t state, const char *log_vpath,
                            uint64_t modules, uint64_t *gen);
/* The directories above a log that have a filter, and their texts (each
 * malloc'd), from the top down; returns the count (at most max). */
size_t dfs_dir_filters_above(dfs_view *v, uint64_t state, const char *log_vpath,
                             char **dirs,
                             char **texts, size_t max);
/* Text of the filter / filter.error of a directory (malloc'd, "" if none). */
char *dfs_dir_filter_text(dfs_view *v, uint64_t state, const char *vpath,
                          bool error);
/* The generations of a state: NULL for one that never wrote (STATE_CLEAN,
 * a user without a state of their own), whose generations are 0.  Every
 * write is of a state that has them (dfs_node_state made them).
 * (view->lock held) */
struct state_gens *dfs_state_gens(dfs_view *v, uint64_t state);
uint64_t dfs_state_dir_gen(dfs_view *v, uint64_t state);
/* A state's compiled filters take `after` bytes where they took `before`
 * (the filter a write replaces): counted in the cache, never evicted, and
 * refused with err when they would pass what one user's filters may take
 * (opt.filter_memory); without commit, only whether it would be.  0 or -1
 * (view->lock held). */
int dfs_state_charge_filters(dfs_view *v, uint64_t state, size_t before,
                             size_t after, bool commit, dfs_error *err);
void dfs_state_uncharge_filters(dfs_view *v, uint64_t state, size_t bytes);
/* Memory of filters freed: handed back to the system when it is much
 * (a compiled regular expression may take megabytes in small blocks). */
void dfs_filters_freed(size_t bytes);
uint64_t dfs_state_change_gen(dfs_view *v, uint64_t state);
/* Remove every directory filter of a state (their filter.error texts
 * stay); returns how many were in force. */
int dfs_dir_filters_clear(dfs_view *v, uint64_t state);
/* Free every directory filter (the view's teardown), and the states'
 * selections_error texts. */
void dfs_dirs_free(dfs_view *v);
/* A filter file shows what the levels above it add as "# from ..." lines
 * (comments: what is read can be written back); a text written is kept
 * without them (in place). */
void dfs_drop_inherited(char *text);

#endif
