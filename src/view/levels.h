/* levels.h - the filters behind a selection, level by level, as text
 * (levels.c). */
#ifndef DFS_VIEW_LEVELS_H
#define DFS_VIEW_LEVELS_H

#include "view/view_int.h"

/* The filters that made a module's selection, one per level from the top
 * down: directory filters, the log's, the module's (or its imported rows).
 * `file` is the filter file (relative to the mount), `text` its expression
 * on one line; an import has `rows` instead. */
struct level {
	char *file, *text;
	bool imported;
	size_t rows;
};
#define MAX_LEVELS (MAX_DIR_FILTERS + 2)
size_t dfs_filter_levels(dfs_view *v, const struct entry *e, int module,
                         struct level *lv);
size_t dfs_dir_levels_above(dfs_view *v, uint64_t state, const char *vpath,
                            struct level *lv);
/* A filter's text on one line, as generated files name filters: line
 * breaks and tabs made spaces, trailing spaces dropped (a copy; NULL
 * without memory). */
char *dfs_level_one_line(const char *text);
void dfs_level_add(struct level *lv, size_t *n, const char *vpath,
                   const char *name, const char *text, size_t rows);
void dfs_levels_free(struct level *lv, size_t n);
void dfs_render_inherited(const struct level *lv, size_t n, dfs_buf *out);
/* The filters that make module's selection (-1: the POSIX+STDIO one),
 * on one line: "2026/filter: rank == 0; x.darshan/POSIX/filter: ..." ("" if
 * none; an import: "x.darshan/POSIX/records.csv: 2 rows imported"). */
void dfs_filters_line(dfs_view *v, const struct entry *e, int module,
                      dfs_buf *out);
/* The filters of a job's rows, of the modules in the bit mask, each
 * level once (jobs.csv's filters). */
void dfs_filters_line_job(dfs_view *v, const struct entry *e, uint64_t modules,
                          dfs_buf *out);

#endif
