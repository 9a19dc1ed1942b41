/* selections.c - what is selected, and undoing it all at once.
 *
 * The root of the mount holds three files for the reader's state
 * (view_int.h, "Whose state"):
 *   selections        every filter and import in force anywhere in the
 *                     tree, one block each: the file written, its text or
 *                     how many rows were imported, its level, when it was
 *                     written, and for the filters of a log or a module
 *                     how many records each module's selection holds of
 *                     the log's; empty when nothing is selected.  A write
 *                     of "clear" (or of nothing: `: > selections`) removes
 *                     them all, for the writer only; anything else is
 *                     refused with the reason in selections.error;
 *   selections.csv    the same, one row per filter and module;
 *   selections.error  why the last write to selections was refused.
 * And the attribute user.darshanfs.selection of every file whose content
 * depends on the filters: the filters in force on it, on one line as the
 * filters column of jobs.csv says them ("" when none), so that a program
 * can tell a subset without parsing the file.
 *
 * Above inforce.c, which collects what is in force, and levels.c,
 * select.c, cache.c and dirs.c, whose state it reads; below read.c (the
 * files) and write.c (the clearing). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "csv/csv.h"
#include "view/view_int.h"
#include "view/cache.h"
#include "view/dirs.h"
#include "view/inforce.h"
#include "view/levels.h"
#include "view/selections.h"

static const char *const level_name[] = {"directory", "log", "module", "import"};
static const char *const level_title[] = {
	"directory filter", "log filter", "module filter", "import",
};

static const char *module_dir(int id)
{
	const dfs_module *m = dfs_module_get(id);
	return m ? m->dirname : dfs_module_slot_name(id);
}

static void render_time(const struct timespec *t, bool iso, dfs_buf *out)
{
	struct tm tm;
	time_t sec = t->tv_sec;
	char b[64];
	if (!gmtime_r(&sec, &tm) ||
	    !strftime(b, sizeof(b), iso ? "%Y-%m-%dT%H:%M:%SZ" : "%Y-%m-%d %H:%M:%S UTC", &tm))
		return;
	dfs_buf_adds(out, b);
}

static void render_text(const struct sel_list *l, dfs_buf *out)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct sel_item *it = &l->item[i];
		dfs_inforce_item_line(it, out);
		dfs_buf_printf(out, "\n  %s, written ", level_title[it->level]);
		render_time(&it->written, false, out);
		if (it->level == SL_DIR) {
			if (strcmp(it->where, "/") == 0)
				dfs_buf_adds(out, ": every log of the mount");
			else
				dfs_buf_printf(out, ": every log below %s/", it->where + 1);
		}
		dfs_buf_addc(out, '\n');
		for (size_t k = 0; k < it->ncounts; k++) {
			const struct sel_count *c = &it->counts[k];
			if (c->error)
				dfs_buf_printf(out, "  %s: no count: %s\n", module_dir(c->module),
				               c->error);
			else
				dfs_buf_printf(out, "  %s: %zu of %zu records selected\n",
				               module_dir(c->module), c->selected, c->total);
		}
		if (it->error)
			dfs_buf_printf(out, "  no count: %s\n", it->error);
	}
}

static const char csv_header[] =
	"file,level,log,module,filter,imported_rows,written,selected,log_records,error\n";

static void csv_text(dfs_buf *out, const char *s)
{
	dfs_csv_field(out, s, strlen(s));
}

/* One row of selections.csv; c NULL: no count */
static void csv_row(const struct sel_item *it, const struct sel_count *c,
                    dfs_buf *out)
{
	dfs_buf file = DFS_BUF_INIT;
	dfs_inforce_item_file(it, &file);
	dfs_buf_addc(&file, '\0');
	csv_text(out, dfs_buf_ok(&file) ? file.data : "");
	dfs_buf_free(&file);
	dfs_buf_printf(out, ",%s,", level_name[it->level]);
	if (it->level != SL_DIR)
		csv_text(out, strcmp(it->where, "/") ? it->where + 1 : ".");
	dfs_buf_addc(out, ',');
	if (c)
		csv_text(out, module_dir(c->module));
	else if (it->module >= 0)
		csv_text(out, module_dir(it->module));
	dfs_buf_addc(out, ',');
	if (it->text)
		csv_text(out, it->text);
	dfs_buf_addc(out, ',');
	if (it->level == SL_IMPORT)
		dfs_buf_printf(out, "%zu", it->rows);
	dfs_buf_addc(out, ',');
	render_time(&it->written, true, out);
	if (c && !c->error)
		dfs_buf_printf(out, ",%zu,%zu,", c->selected, c->total);
	else
		dfs_buf_adds(out, ",,,");
	if (c && c->error)
		csv_text(out, c->error);
	else if (it->error)
		csv_text(out, it->error);
	dfs_buf_addc(out, '\n');
}

static void render_csv(const struct sel_list *l, dfs_buf *out)
{
	dfs_buf_adds(out, csv_header);
	for (size_t i = 0; i < l->n; i++) {
		const struct sel_item *it = &l->item[i];
		for (size_t k = 0; k < it->ncounts; k++)
			csv_row(it, &it->counts[k], out);
		if (it->ncounts == 0)
			csv_row(it, NULL, out);
	}
}

/* The state whose selections the root files show a caller: the one
 * their writes change (a user who never wrote has none) */
static uint64_t root_state(dfs_view *v, const dfs_caller *who)
{
	return dfs_caller_state(v, who);
}

dfs_snapshot *dfs_selections_content(dfs_view *v, const struct node *n,
                                     const dfs_caller *who, dfs_error *err)
{
	uint64_t state = root_state(v, who);
	dfs_buf b = DFS_BUF_INIT;
	if (n->file == F_SELECTIONS_ERROR) {
		pthread_mutex_lock(&v->lock);
		const struct state_gens *g = dfs_state_gens(v, state);
		if (g && g->selections_error)
			dfs_buf_printf(&b, "%s\n", g->selections_error);
		pthread_mutex_unlock(&v->lock);
		return dfs_snapshot_from_buf(v, &b, err);
	}
	struct sel_list l = {0};
	dfs_inforce_collect(v, state, "/", NULL, true, &l);
	dfs_inforce_sort(&l);
	if (n->file == F_SELECTIONS_CSV)
		render_csv(&l, &b);
	else
		render_text(&l, &b);
	bool oom = l.oom;
	dfs_inforce_free(&l);
	if (oom) {
		dfs_buf_free(&b);
		dfs_error_nomem(err);
		return NULL;
	}
	return dfs_snapshot_from_buf(v, &b, err);
}

/* ---- clearing ------------------------------------------------------------------ */

/* Remove the log's and its modules' filters and imports (entry locked);
 * how many were in force */
static size_t clear_entry(dfs_view *v, struct entry *e)
{
	size_t n = 0;
	if (e->log_filter_text) {
		n += *e->log_filter_text != '\0';
		free(e->log_filter_text);
		e->log_filter_text = NULL;
	}
	for (int id = 0; e->mod && id < DFS_MOD_KNOWN; id++) {
		struct module_state *ms = &e->mod[id];
		n += ms->imported || (ms->filter_text && *ms->filter_text);
		dfs_filter_free(ms->log_filter);
		ms->log_filter = NULL;
		dfs_filter_free(ms->filter);
		ms->filter = NULL;
		free(ms->filter_text);
		ms->filter_text = NULL;
		if (ms->imported)
			dfs_entry_set_import(v, e, ms, NULL);
	}
	if (n)
		dfs_entry_bump(v, e);
	return n;
}

size_t dfs_selections_clear(dfs_view *v, uint64_t state)
{
	size_t n = (size_t)dfs_dir_filters_clear(v, state);
	struct entry **es;
	size_t count;
	if (dfs_state_entries(v, state, &es, &count))
		return n;
	for (size_t i = 0; i < count; i++) {
		dfs_entry_lock(es[i]);
		n += clear_entry(v, es[i]);
		dfs_entry_put(v, es[i]);
	}
	free(es);
	return n;
}

void dfs_selections_set_error(dfs_view *v, uint64_t state, const char *msg)
{
	char *copy = msg ? strdup(msg) : NULL;
	pthread_mutex_lock(&v->lock);
	struct state_gens *g = dfs_state_gens(v, state);
	if (g) {
		free(g->selections_error);
		g->selections_error = copy;
		copy = NULL;
	}
	pthread_mutex_unlock(&v->lock);
	free(copy);
}

/* ---- the attribute ---------------------------------------------------------------- */

bool dfs_view_has_selection(dfs_view *v, const char *path)
{
	struct node n;
	dfs_error err;
	if (dfs_resolve(v, path, &n, &err))
		return false;
	bool has = n.kind == N_FILE && dfs_file_defs[n.file].selection;
	dfs_node_free(&n);
	return has;
}

int dfs_view_selection(dfs_view *v, const char *path, const dfs_caller *who,
                       char **text, dfs_error *err)
{
	*text = NULL;
	struct node n;
	if (dfs_resolve(v, path, &n, err))
		return -1;
	if (n.kind != N_FILE || !dfs_file_defs[n.file].selection) {
		dfs_node_free(&n);
		return 0;
	}
	dfs_buf b = DFS_BUF_INIT;
	int ret = 0;
	enum file_level level = dfs_file_defs[n.file].level;
	if (level == LEVEL_ROOT || level == LEVEL_DIR) {
		dfs_selection_line(v, root_state(v, who), level == LEVEL_ROOT ? "/" : n.dir_vpath,
		                   NULL, &b);
	} else if (dfs_node_state(v, &n, who, false, err)) {
		ret = -1;
	} else {
		struct entry *e = dfs_entry_get(v, &n, err);
		if (!e)
			ret = -1;
		else if (n.module >= 0)   /* as the file's own filter lines say them */
			dfs_filters_line(v, e, n.module, &b);
		else
			dfs_selection_line(v, e->state, e->vpath, e, &b);
		if (e)
			dfs_entry_put(v, e);
	}
	if (ret == 0 && !(*text = dfs_buf_detach(&b, NULL)))
		ret = dfs_error_nomem(err);
	dfs_node_free(&n);
	dfs_buf_free(&b);
	return ret ? -1 : 1;
}
