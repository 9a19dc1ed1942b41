/* inforce.h - the filters and imports in force, collected and said on
 * one line (inforce.c). */
#ifndef DFS_VIEW_INFORCE_H
#define DFS_VIEW_INFORCE_H

#include "view/view_int.h"

enum sel_level { SL_DIR, SL_LOG, SL_MODULE, SL_IMPORT };

/* A module's selection: `selected` of the log's `total` records */
struct sel_count {
	int module;
	size_t selected, total;
	char *error;                  /* the module cannot be read: why (no count) */
};

/* One filter file in force (or records.csv holding imported rows) */
struct sel_item {
	enum sel_level level;
	char *where;                  /* the directory's or the log's vpath */
	int module;                   /* SL_MODULE, SL_IMPORT: its id, else -1 */
	char *text;                   /* the expression on one line; NULL: import */
	size_t rows;                  /* SL_IMPORT: rows imported */
	struct timespec written;
	char *error;                  /* why the counts are missing */
	struct sel_count *counts;
	size_t ncounts;
};

struct sel_list {
	struct sel_item *item;
	size_t n, cap;
	bool oom;
};

/* The directory filters, log filters, module filters and imports of
 * `state` in force on a place, appended to l: with e NULL, those that
 * touch a log below `scope` (a directory's vpath, "/" for the root);
 * with e (locked), those of that log (the directory filters above it,
 * its own and its modules').  counts: how many records each selection
 * holds too (decodes the logs not in the cache).  Out of memory:
 * l->oom. */
void dfs_inforce_collect(dfs_view *v, uint64_t state, const char *scope, struct entry *e,
                         bool counts, struct sel_list *l);
/* Directory filters first, from the top down, then the logs in the
 * order of their paths, each with its log filter before its modules' */
void dfs_inforce_sort(struct sel_list *l);
void dfs_inforce_free(struct sel_list *l);
/* "2026/x.darshan/POSIX/filter": the file written, relative to the root */
void dfs_inforce_item_file(const struct sel_item *it, dfs_buf *out);
/* "FILE: TEXT" or "FILE: N rows imported", as jobs.csv's filters column */
void dfs_inforce_item_line(const struct sel_item *it, dfs_buf *out);
/* The filters in force on a file of a directory or of the root (e NULL:
 * those of `state` that touch a log below `scope`) or of a whole log (e,
 * locked), on one line as the file's attribute user.darshanfs.selection
 * says them, at the end of `out` ("" when none; out of memory:
 * out->oom).  Decodes nothing. */
void dfs_selection_line(dfs_view *v, uint64_t state, const char *scope, struct entry *e,
                        dfs_buf *out);

#endif
