/* levels.c - the filters that make a module's selection, level by level
 * (directory filters, the log's, the module's, or its imported rows), and
 * how generated files name them: one line for jobs.csv and the summary,
 * "# from ..." lines above a filter file's own text.  Above cache.c and
 * dirs.c, whose state it reads; below every file that renders it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view/view_int.h"
#include "view/cache.h"
#include "view/dirs.h"
#include "view/levels.h"

char *dfs_level_one_line(const char *text)
{
	char *t = strdup(text);
	for (char *p = t; p && *p; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
	size_t n = t ? strlen(t) : 0;
	while (n > 0 && t[n - 1] == ' ')
		t[--n] = '\0';
	return t;
}

/* Add the level of filter file `name` below vpath ("/a/b" + "filter" ->
 * "a/b/filter", "/" + "filter" -> "filter"); text NULL for an import of
 * `rows`.  A level that finds no memory is left out. */
void dfs_level_add(struct level *lv, size_t *n, const char *vpath,
                   const char *name, const char *text, size_t rows)
{
	struct level *l = &lv[*n];
	l->file = strcmp(vpath, "/") ? dfs_path_join(vpath + 1, name) : strdup(name);
	l->text = dfs_level_one_line(text ? text : "");
	l->imported = !text;
	l->rows = rows;
	if (l->file && l->text) {
		(*n)++;
	} else {
		free(l->file);
		free(l->text);
	}
}

/* The module's directory in the tree (BG/Q's is BGQ) */
static const char *module_dir(int id)
{
	const dfs_module *m = dfs_module_get(id);
	return m ? m->dirname : dfs_module_slot_name(id);
}

size_t dfs_filter_levels(dfs_view *v, const struct entry *e, int module,
                         struct level *lv)
{
	const struct module_state *ims = dfs_entry_mod_find(e, module);
	size_t n = 0;
	if (ims && ims->imported) {
		/* imported rows are the selection, whatever lies above */
		char name[64];
		snprintf(name, sizeof(name), "%s/records.csv", module_dir(module));
		dfs_level_add(lv, &n, e->vpath, name, NULL, ims->imported->recs.count);
		return n;
	}
	char *dirs[MAX_DIR_FILTERS], *texts[MAX_DIR_FILTERS];
	size_t nd = dfs_dir_filters_above(v, e->state, e->vpath, dirs, texts,
	                                  MAX_DIR_FILTERS);
	for (size_t i = 0; i < nd; i++) {
		dfs_level_add(lv, &n, dirs[i], "filter", texts[i], 0);
		free(dirs[i]);
		free(texts[i]);
	}
	if (e->log_filter_text && *e->log_filter_text)
		dfs_level_add(lv, &n, e->vpath, "filter", e->log_filter_text, 0);
	char name[64];
	if (ims && ims->filter_text && *ims->filter_text) {
		snprintf(name, sizeof(name), "%s/filter", module_dir(module));
		dfs_level_add(lv, &n, e->vpath, name, ims->filter_text, 0);
	}
	return n;
}

void dfs_levels_free(struct level *lv, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(lv[i].file);
		free(lv[i].text);
	}
}

/* The levels above directory vpath (not its own), from the top down. */
size_t dfs_dir_levels_above(dfs_view *v, uint64_t state, const char *vpath,
                            struct level *lv)
{
	char *dirs[MAX_DIR_FILTERS], *texts[MAX_DIR_FILTERS];
	size_t nd = dfs_dir_filters_above(v, state, vpath, dirs, texts,
	                                  MAX_DIR_FILTERS);
	size_t n = 0;
	for (size_t i = 0; i < nd; i++) {
		if (strcmp(dirs[i], vpath) != 0)
			dfs_level_add(lv, &n, dirs[i], "filter", texts[i], 0);
		free(dirs[i]);
		free(texts[i]);
	}
	return n;
}

/* "# from 2020/filter: rank == 0" lines: what the levels above a filter
 * file add to its own expression (comments to the filter language, so
 * the text read can be written back) */
void dfs_render_inherited(const struct level *lv, size_t n, dfs_buf *out)
{
	for (size_t i = 0; i < n; i++)
		dfs_buf_printf(out, "# from %s: %s\n", lv[i].file, lv[i].text);
}

/* One line naming the filters of the levels: "a/filter: rank == 0; ..."
 * ("" when there are none). */
static void levels_line(const struct level *lv, size_t n, dfs_buf *out)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			dfs_buf_adds(out, "; ");
		if (lv[i].imported)
			dfs_buf_printf(out, "%s: %zu rows imported", lv[i].file, lv[i].rows);
		else
			dfs_buf_printf(out, "%s: %s", lv[i].file, lv[i].text);
	}
}

void dfs_filters_line(dfs_view *v, const struct entry *e, int module,
                      dfs_buf *out)
{
	struct level lv[MAX_LEVELS + 1];
	size_t n;
	if (module >= 0) {
		n = dfs_filter_levels(v, e, module, lv);
	} else {
		/* the POSIX+STDIO row: the levels above both, then each one's */
		n = dfs_filter_levels(v, e, DFS_MOD_POSIX, lv);
		struct level more[MAX_LEVELS];
		size_t m = dfs_filter_levels(v, e, DFS_MOD_STDIO, more);
		size_t shared = 0;
		while (shared < m && shared < n &&
		       strcmp(more[shared].file, lv[shared].file) == 0)
			shared++;
		for (size_t i = 0; i < m; i++) {
			if (i >= shared && n < MAX_LEVELS + 1) {
				lv[n++] = more[i];
				continue;
			}
			free(more[i].file);
			free(more[i].text);
		}
	}
	levels_line(lv, n, out);
	dfs_levels_free(lv, n);
}

/* Where a level of log e comes in the order selections and the selection
 * attribute give them: the directories' filters (0), the log's filter
 * (1), then its modules' filters and imports (2). */
static int level_place(const struct entry *e, const struct level *l)
{
	const char *rel = e->vpath + (e->vpath[0] == '/');
	size_t n = strlen(rel);
	if (n && (strncmp(l->file, rel, n) != 0 || l->file[n] != '/'))
		return 0;
	const char *own = l->file + (n ? n + 1 : 0);
	return strcmp(own, "filter") == 0 ? 1 : 2;
}

/* The filters of a job's rows (the modules in the bit mask `modules`),
 * each level once: the directories' (from the top down), the log's, then
 * the modules' in the order of their ids, as selections orders them. */
void dfs_filters_line_job(dfs_view *v, const struct entry *e, uint64_t modules,
                          dfs_buf *out)
{
	struct level all[MAX_LEVELS * 2];
	size_t n = 0;
	for (int id = 0; id < DFS_MOD_KNOWN; id++) {
		if (!((modules >> id) & 1))
			continue;
		struct level lv[MAX_LEVELS];
		size_t m = dfs_filter_levels(v, e, id, lv);
		for (size_t i = 0; i < m; i++) {
			bool seen = false;
			for (size_t k = 0; k < n && !seen; k++)
				seen = all[k].imported == lv[i].imported && all[k].rows == lv[i].rows &&
				       !strcmp(all[k].file, lv[i].file) &&
				       !strcmp(all[k].text, lv[i].text);
			if (seen || n == MAX_LEVELS * 2) {
				free(lv[i].file);
				free(lv[i].text);
			} else {
				all[n++] = lv[i];
			}
		}
	}
	/* (a stable insertion by place: each module's levels come in that
	 * order already, the log's filter may follow another module's) */
	for (size_t i = 1; i < n; i++) {
		struct level x = all[i];
		size_t k = i;
		while (k > 0 && level_place(e, &all[k - 1]) > level_place(e, &x)) {
			all[k] = all[k - 1];
			k--;
		}
		all[k] = x;
	}
	levels_line(all, n, out);
	dfs_levels_free(all, n);
}
