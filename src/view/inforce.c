/* inforce.c - the filters and imports in force: collected for a place
 * of the tree (the root, a directory, a log), sorted, and said on one
 * line as the attribute user.darshanfs.selection and the footers of the
 * Parquet twins say them.
 *
 * Below selections.c (the root's files that list them) and files.c and
 * jobs.c (the twins' footers); above levels.c, select.c, cache.c and
 * dirs.c, whose state it reads. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "view/view_int.h"
#include "view/cache.h"
#include "view/dirs.h"
#include "view/inforce.h"
#include "view/levels.h"
#include "view/select.h"

void dfs_inforce_free(struct sel_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->item[i].where);
		free(l->item[i].text);
		free(l->item[i].error);
		for (size_t k = 0; k < l->item[i].ncounts; k++)
			free(l->item[i].counts[k].error);
		free(l->item[i].counts);
	}
	free(l->item);
	memset(l, 0, sizeof(*l));
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
	it->text = text ? dfs_level_one_line(text) : NULL;
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
	it->counts[it->ncounts++] = (struct sel_count){module, s->count, s->total, NULL};
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
			if (!lm->present || !lm->module || (ms && ms->imported))
				continue;
			if (lm->status != DFS_OK) {
				/* (a damaged module: said, not left out) */
				char *why = strdup(lm->error ? lm->error : "the module cannot be read");
				if (!why)
					l->oom = true;
				else
					it->counts[it->ncounts++] = (struct sel_count){id, 0, 0, why};
				continue;
			}
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

void dfs_inforce_sort(struct sel_list *l)
{
	if (l->n > 1)
		qsort(l->item, l->n, sizeof(*l->item), item_cmp);
}

/* "2026/x.darshan/POSIX/filter": the file written, relative to the root */
void dfs_inforce_item_file(const struct sel_item *it, dfs_buf *out)
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

/* "FILE: TEXT" or "FILE: N rows imported", as jobs.csv's filters column */
void dfs_inforce_item_line(const struct sel_item *it, dfs_buf *out)
{
	dfs_inforce_item_file(it, out);
	if (it->level == SL_IMPORT)
		dfs_buf_printf(out, ": %zu rows imported", it->rows);
	else
		dfs_buf_printf(out, ": %s", it->text);
}

/* The filters of a collected list on one line, as the attribute says
 * them: "FILE: TEXT; FILE: N rows imported" (sorted) */
static void list_line(struct sel_list *l, dfs_buf *out)
{
	dfs_inforce_sort(l);
	for (size_t i = 0; i < l->n; i++) {
		if (i)
			dfs_buf_adds(out, "; ");
		dfs_inforce_item_line(&l->item[i], out);
	}
	if (l->oom)
		out->oom = true;
}

void dfs_inforce_collect(dfs_view *v, uint64_t state, const char *scope, struct entry *e,
                         bool counts, struct sel_list *l)
{
	if (e) {
		/* a file of the whole log: the filters above it and those of
		 * the log and of each module */
		collect_dirs(v, e->state, e->vpath, l);
		collect_entry(v, e, l, counts);
	} else {
		/* every filter that touches a log below (the root: all) */
		collect_dirs(v, state, scope, l);
		if (collect_logs(v, state, scope, l, counts))
			l->oom = true;
	}
}

void dfs_selection_line(dfs_view *v, uint64_t state, const char *scope, struct entry *e,
                        dfs_buf *out)
{
	struct sel_list l = {0};
	dfs_inforce_collect(v, state, scope, e, false, &l);
	list_line(&l, out);
	dfs_inforce_free(&l);
}
