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
 * Above levels.c, select.c, cache.c and dirs.c, whose state it reads;
 * below read.c (the files) and write.c (the clearing). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "csv/csv.h"
#include "view/view_int.h"
#include "view/cache.h"
#include "view/dirs.h"
#include "view/levels.h"
#include "view/select.h"
#include "view/selections.h"

enum sel_level { SL_DIR, SL_LOG, SL_MODULE, SL_IMPORT };

static const char *const level_name[] = {"directory", "log", "module", "import"};
static const char *const level_title[] = {
	"directory filter", "log filter", "module filter", "import",
};

/* A module's selection: `selected` of the log's `total` records */
struct sel_count {
	int module;
	size_t selected, total;
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

static void list_free(struct sel_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->item[i].where);
		free(l->item[i].text);
		free(l->item[i].error);
		free(l->item[i].counts);
	}
	free(l->item);
	memset(l, 0, sizeof(*l));
}

/* A filter's text on one line, as the other files name filters */
static char *one_line(const char *text)
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

/* Add an item (text NULL: an import); NULL without memory (then the
 * list says so). */
static struct sel_item *add(struct sel_list *l, enum sel_level level,
                            const char *where, int module, const char *text,
                            size_t rows, const struct timespec *written)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct sel_item *more = realloc(l->item, cap * sizeof(*more));
		if (!more) {
			l->oom = true;
			return NULL;
		}
		l->item = more;
		l->cap = cap;
	}
	struct sel_item *it = &l->item[l->n];
	memset(it, 0, sizeof(*it));
	it->level = level;
	it->module = module;
	it->rows = rows;
	it->written = *written;
	it->where = strdup(where);
	it->text = text ? one_line(text) : NULL;
	if (!it->where || (text && !it->text)) {
		free(it->where);
		free(it->text);
		l->oom = true;
		return NULL;
	}
	l->n++;
	return it;
}

/* Is directory `dir` (a vpath) above `path`? */
static bool above(const char *dir, const char *path)
{
	if (strcmp(dir, "/") == 0)
		return strcmp(path, "/") != 0;
	size_t n = strlen(dir);
	return strncmp(dir, path, n) == 0 && path[n] == '/';
}

/* Does a filter at `where` touch what `scope` shows: the same place, a
 * directory above it, or a place below it? */
static bool in_scope(const char *scope, const char *where)
{
	return strcmp(scope, where) == 0 || above(where, scope) || above(scope, where);
}

/* The directory filters of a state in force in scope */
static void collect_dirs(dfs_view *v, uint64_t state, const char *scope,
                         struct sel_list *l)
{
	pthread_mutex_lock(&v->lock);
	for (const struct dirstate *d = v->dirs; d; d = d->next)
		if (d->state == state && d->text && *d->text && in_scope(scope, d->vpath))
			add(l, SL_DIR, d->vpath, -1, d->text, 0, &d->written);
	pthread_mutex_unlock(&v->lock);
}

static void count_add(struct sel_item *it, int module, const struct selection *s)
{
	if (s->status != DFS_OK) {
		if (!it->error)
			it->error = strdup(s->error ? s->error : "unavailable");
		return;
	}
	it->counts[it->ncounts++] = (struct sel_count){module, s->count, s->total};
}

/* How many records each selection the items [first, l->n) of entry e
 * make holds (decodes the log when it is not in the cache) */
static void collect_counts(dfs_view *v, struct entry *e, struct sel_list *l,
                           size_t first)
{
	dfs_error err = {0};
	struct stat st;
	struct decoded_log *ld = NULL;
	if (stat(e->src, &st) != 0)
		dfs_error_set(&err, DFS_ERR_NOENT, "the log is gone from SOURCE");
	else if (dfs_entry_peek(v, e, &st, &err) == 0)
		ld = dfs_entry_load(v, e, &err);
	for (size_t i = first; i < l->n; i++) {
		struct sel_item *it = &l->item[i];
		if (!ld) {
			it->error = strdup(err.msg[0] ? err.msg : "the log cannot be read");
			continue;
		}
		if (!(it->counts = calloc(DFS_MOD_KNOWN, sizeof(*it->counts)))) {
			l->oom = true;
			continue;
		}
		if (it->level != SL_LOG) {
			count_add(it, it->module, dfs_selection(v, e, ld, it->module));
			continue;
		}
		/* a log filter: every module of the log it selects in (not
		 * those whose imported rows are their selection) */
		for (int id = 0; id < DFS_MOD_KNOWN; id++) {
			const dfs_log_module *lm = dfs_log_get_module(ld->log, id);
			const struct module_state *ms = dfs_entry_mod_find(e, id);
			if (!lm->present || !lm->module || lm->status != DFS_OK ||
			    (ms && ms->imported))
				continue;
			count_add(it, id, dfs_selection(v, e, ld, id));
		}
	}
}

/* The filters and imports of one log (entry locked): its log filter,
 * then its modules' filters or imports, with their counts when asked. */
static void collect_entry(dfs_view *v, struct entry *e, struct sel_list *l,
                          bool counts)
{
	size_t first = l->n;
	if (e->log_filter_text && *e->log_filter_text)
		add(l, SL_LOG, e->vpath, -1, e->log_filter_text, 0, &e->log_filter_written);
	for (int id = 0; id < DFS_MOD_KNOWN; id++) {
		const struct module_state *ms = dfs_entry_mod_find(e, id);
		if (ms && ms->imported)
			add(l, SL_IMPORT, e->vpath, id, NULL, ms->imported->recs.count,
			    &ms->written);
		else if (ms && ms->filter_text && *ms->filter_text)
			add(l, SL_MODULE, e->vpath, id, ms->filter_text, 0, &ms->written);
	}
	if (counts && l->n > first)
		collect_counts(v, e, l, first);
}

/* Every log of a state in scope */
static int collect_logs(dfs_view *v, uint64_t state, const char *scope,
                        struct sel_list *l, bool counts)
{
	struct entry **es;
	size_t n;
	if (dfs_state_entries(v, state, &es, &n))
		return -1;
	for (size_t i = 0; i < n; i++) {
		dfs_entry_lock(es[i]);
		if (in_scope(scope, es[i]->vpath))
			collect_entry(v, es[i], l, counts);
		dfs_entry_put(v, es[i]);
	}
	free(es);
	return 0;
}

/* Directory filters first, from the top down, then the logs in the order
 * of their paths, each with its log filter before its modules' */
static int item_cmp(const void *a, const void *b)
{
	const struct sel_item *x = a, *y = b;
	if ((x->level == SL_DIR) != (y->level == SL_DIR))
		return x->level == SL_DIR ? -1 : 1;
	int c = strcmp(x->where, y->where);
	if (c)
		return c;
	return (x->module > y->module) - (x->module < y->module);
}

static void sort_items(struct sel_list *l)
{
	if (l->n > 1)
		qsort(l->item, l->n, sizeof(*l->item), item_cmp);
}

/* "2026/x.darshan/POSIX/filter": the file written, relative to the root */
static void item_file(const struct sel_item *it, dfs_buf *out)
{
	const char *where = it->where + (it->where[0] == '/');
	if (*where) {
		dfs_buf_adds(out, where);
		dfs_buf_addc(out, '/');
	}
	if (it->module >= 0) {
		const dfs_module *m = dfs_module_get(it->module);
		dfs_buf_adds(out, m ? m->dirname : dfs_module_slot_name(it->module));
		dfs_buf_addc(out, '/');
	}
	dfs_buf_adds(out, it->level == SL_IMPORT ? "records.csv" : "filter");
}

static const char *module_dir(int id)
{
	const dfs_module *m = dfs_module_get(id);
	return m ? m->dirname : dfs_module_slot_name(id);
}

/* "FILE: TEXT" or "FILE: N rows imported", as jobs.csv's filters column */
static void item_line(const struct sel_item *it, dfs_buf *out)
{
	item_file(it, out);
	if (it->level == SL_IMPORT)
		dfs_buf_printf(out, ": %zu rows imported", it->rows);
	else
		dfs_buf_printf(out, ": %s", it->text);
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
		item_line(it, out);
		dfs_buf_printf(out, "\n  %s, written ", level_title[it->level]);
		render_time(&it->written, false, out);
		if (it->level == SL_DIR) {
			if (strcmp(it->where, "/") == 0)
				dfs_buf_adds(out, ": every log of the mount");
			else
				dfs_buf_printf(out, ": every log below %s/", it->where + 1);
		}
		dfs_buf_addc(out, '\n');
		for (size_t k = 0; k < it->ncounts; k++)
			dfs_buf_printf(out, "  %s: %zu of %zu records selected\n",
			               module_dir(it->counts[k].module), it->counts[k].selected,
			               it->counts[k].total);
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
	item_file(it, &file);
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
	if (c)
		dfs_buf_printf(out, ",%zu,%zu,", c->selected, c->total);
	else
		dfs_buf_adds(out, ",,,");
	if (it->error)
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
	collect_dirs(v, state, "/", &l);
	if (collect_logs(v, state, "/", &l, true))
		l.oom = true;
	sort_items(&l);
	if (n->file == F_SELECTIONS_CSV)
		render_csv(&l, &b);
	else
		render_text(&l, &b);
	bool oom = l.oom;
	list_free(&l);
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

/* The filters of a collected list on one line, as the attribute says
 * them: "FILE: TEXT; FILE: N rows imported" (sorted) */
static void list_line(struct sel_list *l, dfs_buf *out)
{
	sort_items(l);
	for (size_t i = 0; i < l->n; i++) {
		if (i)
			dfs_buf_adds(out, "; ");
		item_line(&l->item[i], out);
	}
	if (l->oom)
		out->oom = true;
}

void dfs_selection_line(dfs_view *v, uint64_t state, const char *scope, struct entry *e,
                        dfs_buf *out)
{
	struct sel_list l = {0};
	if (e) {
		/* a file of the whole log: the filters above it and those of
		 * the log and of each module */
		collect_dirs(v, e->state, e->vpath, &l);
		collect_entry(v, e, &l, false);
	} else {
		/* every filter that touches a log below (the root: all) */
		collect_dirs(v, state, scope, &l);
		if (collect_logs(v, state, scope, &l, false))
			l.oom = true;
	}
	list_line(&l, out);
	list_free(&l);
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
