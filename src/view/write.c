/* write.c - write sessions on the writable files of the tree.
 *
 * `echo EXPR > filter` opens with O_TRUNC, writes one or more chunks and
 * closes.  The session collects the bytes (at their offsets) and after each
 * write tries the text so far: a valid expression takes effect at once; an
 * expression that is cut short (the error is at its very end and the text
 * does not end with a newline) waits for more data; anything else is
 * refused with DFS_ERR_INVAL, leaving the active filter and all results as
 * they were and the reason in filter.error.  At close, whatever is still
 * pending must be complete. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "darshanfs/csv.h"
#include "view/view_int.h"

struct dfs_write {
	dfs_view *v;
	struct node n;
	dfs_buf text;
	bool pending;      /* text changed since it was last applied */
	bool written;      /* data arrived (not just a truncation) */
	bool import;       /* a CSV written into records.csv */
	bool header_checked;
};

static bool is_filter(const struct node *n)
{
	return n->kind == N_FILE && (n->file == F_FILTER || n->file == F_LOG_FILTER ||
	                             n->file == F_DIR_FILTER);
}

static bool is_import(const struct node *n)
{
	return n->kind == N_FILE && n->file == F_RECORDS &&
	       dfs_module_get(n->module)->record_size != 0;
}

static void set_error_text(struct entry *e, const struct node *n, const char *msg)
{
	struct module_state *ms = n->file == F_LOG_FILTER ? NULL
	                                                  : dfs_entry_mod(e, n->module);
	char **slot = n->file == F_LOG_FILTER ? &e->log_filter_error
	                                      : ms ? &ms->error_text : NULL;
	if (!slot)
		return;
	free(*slot);
	*slot = msg ? strdup(msg) : NULL;
}

/* Trim blanks at both ends. */
static void trimmed(const char *s, size_t len, size_t *start, size_t *end)
{
	size_t a = 0, b = len;
	while (a < b && (s[a] == ' ' || s[a] == '\t' || s[a] == '\n' || s[a] == '\r'))
		a++;
	while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '\n' ||
	                 s[b - 1] == '\r'))
		b--;
	*start = a;
	*end = b;
}

/* Compile the log-wide filter for every module of the log.  It must be
 * valid for at least one module; in modules that lack a column it names,
 * that column has no value (comparisons on it are false). */
static int compile_log_filter(struct entry *e, const char *text, size_t len,
                              dfs_filter *out[DFS_MOD_SLOTS], dfs_error *err)
{
	bool any = false;
	dfs_error first = {0};
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		out[id] = NULL;
		if (!dfs_entry_has_module(e, id))
			continue;
		const dfs_module *m = dfs_module_get(id);
		dfs_error merr = {0};
		out[id] = dfs_compile_for_module(m, text, len, false, &merr);
		if (out[id]) {
			any = true;
			continue;
		}
		if (first.code == DFS_OK)
			first = merr;
		out[id] = dfs_compile_for_module(m, text, len, true, &merr);
		if (!out[id]) {
			first = merr;
			any = false;
			break;
		}
	}
	if (!any) {
		for (int id = 0; id < DFS_MOD_SLOTS; id++) {
			dfs_filter_free(out[id]);
			out[id] = NULL;
		}
		if (first.code == DFS_OK)
			dfs_error_set(&first, DFS_ERR_INVAL, "this log has no module to filter");
		*err = first;
		return -1;
	}
	return 0;
}

/* Install `text` as the filter of node n; the entry is locked. */
static int install_filter(dfs_view *v, struct entry *e, const struct node *n,
                          const char *text, size_t len, dfs_error *err)
{
	if (len > DFS_FILTER_MAX_LEN)
		return dfs_error_set(err, DFS_ERR_INVAL,
		                     "filter longer than %d bytes", DFS_FILTER_MAX_LEN);
	size_t a, b;
	trimmed(text, len, &a, &b);
	char *copy = strndup(text + a, b - a);
	if (!copy)
		return dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
	if (n->file == F_LOG_FILTER) {
		dfs_filter *compiled[DFS_MOD_SLOTS];
		if (compile_log_filter(e, text, len, compiled, err)) {
			free(copy);
			return -1;
		}
		if (!dfs_entry_mod(e, 0)) {
			for (int id = 0; id < DFS_MOD_SLOTS; id++)
				dfs_filter_free(compiled[id]);
			free(copy);
			return dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
		}
		for (int id = 0; id < DFS_MOD_KNOWN; id++) {
			dfs_filter_free(e->mod[id].log_filter);
			e->mod[id].log_filter = compiled[id];
		}
		free(e->log_filter_text);
		e->log_filter_text = copy;
	} else {
		struct module_state *ms = dfs_entry_mod(e, n->module);
		if (!ms) {
			free(copy);
			return dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
		}
		dfs_filter *f = dfs_compile_for_module(dfs_module_get(n->module), text,
		                                       len, false, err);
		if (!f) {
			free(copy);
			return -1;
		}
		dfs_filter_free(ms->filter);
		ms->filter = f;
		free(ms->filter_text);
		ms->filter_text = copy;
		if (ms->imported) {
			dfs_records_free(ms->imported);
			free(ms->imported);
			ms->imported = NULL;
			ms->imported_rows = 0;
		}
	}
	set_error_text(e, n, NULL);
	dfs_entry_bump(v, e);
	return 0;
}

/* Replace the module's selection with the rows of a CSV (entry locked). */
static int install_import(dfs_view *v, struct entry *e, const struct node *n,
                          const char *data, size_t len, dfs_error *err)
{
	struct loaded *l = dfs_entry_load(v, e, err);
	if (!l)
		return -1;
	const dfs_module *m = dfs_module_get(n->module);
	dfs_records *recs = malloc(sizeof(*recs));
	if (!recs)
		return dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
	dfs_records_init(recs, m, m->version);
	if (dfs_csv_import(l->log, m, data, len, recs, err)) {
		free(recs);
		return -1;
	}
	struct module_state *ms = dfs_entry_mod(e, n->module);
	if (!ms) {
		dfs_records_free(recs);
		free(recs);
		return dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
	}
	if (ms->imported) {
		dfs_records_free(ms->imported);
		free(ms->imported);
	}
	ms->imported = recs;
	ms->imported_rows = recs->count;
	dfs_filter_free(ms->filter);
	ms->filter = NULL;
	free(ms->filter_text);
	ms->filter_text = NULL;
	set_error_text(e, n, NULL);
	dfs_entry_bump(v, e);
	return 0;
}


/* Position of a compile error ("at N: ..."), 0 if none. */
static size_t error_position(const dfs_error *err)
{
	size_t pos = 0;
	if (sscanf(err->msg, "at %zu:", &pos) != 1)
		return 0;
	return pos;
}

/* After a refused expression: true if it only looks cut short (the error
 * is at its very end, no newline ended it, more data may come). */
static bool cut_short(const dfs_write *w, bool final, const dfs_error *err)
{
	size_t a, b;
	const char *t = w->text.data ? w->text.data : "";
	trimmed(t, w->text.len, &a, &b);
	return err->code == DFS_ERR_INVAL && !final && error_position(err) > b &&
	       (w->text.len == 0 || t[w->text.len - 1] != '\n');
}

/* Notify every decoded log below a directory (their files changed). */
static void notify_logs_below(dfs_view *v, const char *dir)
{
	size_t n = 0, cap = 0;
	char **list = NULL;
	size_t dlen = strlen(dir);
	pthread_mutex_lock(&v->lock);
	for (size_t i = 0; i < v->table_size; i++)
		for (struct entry *e = v->table[i]; e; e = e->hnext) {
			if (!e->loaded || (dlen > 1 && (strncmp(e->vpath, dir, dlen) != 0 ||
			                                e->vpath[dlen] != '/')))
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 16;
				char **l = realloc(list, cap * sizeof(char *));
				if (!l)
					goto out;
				list = l;
			}
			if ((list[n] = strdup(e->vpath)))
				n++;
		}
out:
	pthread_mutex_unlock(&v->lock);
	for (size_t i = 0; i < n; i++) {
		dfs_view_notify(v, list[i], true);
		free(list[i]);
	}
	free(list);
}

static void notify_dir(dfs_view *v, const char *dir)
{
	static const char *const files[] = {"jobs.csv", "filter", "filter.error"};
	for (size_t k = 0; k < 3; k++) {
		char *p = dfs_path_join(dir, files[k]);
		if (p)
			dfs_view_notify(v, p, false);
		free(p);
	}
	dfs_view_notify_ancestors(v, dir);
	notify_logs_below(v, dir);
}

static int apply_dir(dfs_write *w, bool final, dfs_error *err)
{
	dfs_view *v = w->v;
	const char *t = w->text.data ? w->text.data : "";
	int ret = 0;
	if (w->text.len > DFS_FILTER_MAX_LEN) {
		ret = dfs_error_set(err, DFS_ERR_INVAL, "filter longer than %d bytes",
		                    DFS_FILTER_MAX_LEN);
	} else if (dfs_dir_filter_install(v, w->n.dir_vpath, t, w->text.len, err) == 0) {
		w->pending = false;
		notify_dir(v, w->n.dir_vpath);
		return 0;
	} else if (cut_short(w, final, err)) {
		dfs_error_clear(err);
		return 0;
	} else {
		ret = -1;
	}
	if (err->code == DFS_ERR_TOOBIG)
		err->code = DFS_ERR_INVAL;
	dfs_dir_filter_set_error(v, w->n.dir_vpath, err->msg);
	w->pending = false;
	notify_dir(v, w->n.dir_vpath);
	return ret;
}

/* Apply the session's text.  `final`: at close, nothing can follow. */
static int apply(dfs_write *w, bool final, dfs_error *err)
{
	dfs_view *v = w->v;
	if (w->n.file == F_DIR_FILTER)
		return apply_dir(w, final, err);
	struct entry *e = dfs_entry_get(v, &w->n, err);
	if (!e)
		return -1;
	int ret = 0;
	if (dfs_entry_peek(v, e, &w->n.st, err)) {
		ret = -1;
	} else if (w->import) {
		if (install_import(v, e, &w->n, w->text.data ? w->text.data : "",
		                   w->text.len, err)) {
			set_error_text(e, &w->n, err->msg);
			ret = -1;
		}
		w->pending = false;
	} else if (install_filter(v, e, &w->n, w->text.data ? w->text.data : "",
	                          w->text.len, err) == 0) {
		w->pending = false;
	} else {
		if (cut_short(w, final, err)) {
			dfs_error_clear(err); /* wait for the rest */
		} else {
			if (err->code == DFS_ERR_TOOBIG)
				err->code = DFS_ERR_INVAL;
			set_error_text(e, &w->n, err->msg);
			w->pending = false;
			ret = -1;
		}
	}
	const char *vpath = NULL;
	char *copy = NULL;
	if (ret == 0 && !w->pending)
		vpath = copy = strdup(e->vpath);
	else if (ret != 0)
		vpath = copy = strdup(e->vpath); /* filter.error changed */
	dfs_entry_put(v, e);
	if (vpath) {
		dfs_view_notify(v, vpath, true);
		dfs_view_notify_ancestors(v, vpath);
	}
	free(copy);
	return ret;
}

dfs_write *dfs_view_open_write(dfs_view *v, const char *path, bool truncate,
                               dfs_error *err)
{
	dfs_write *w = calloc(1, sizeof(*w));
	if (!w) {
		dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
		return NULL;
	}
	w->v = v;
	if (dfs_resolve(v, path, &w->n, err)) {
		free(w);
		return NULL;
	}
	w->import = is_import(&w->n);
	if (!is_filter(&w->n) && !w->import) {
		dfs_error_set(err, DFS_ERR_INVAL, "%s is read-only", path);
		dfs_write_free(w);
		return NULL;
	}
	if (w->n.file == F_DIR_FILTER) {
		if (!truncate) {
			char *cur = dfs_dir_filter_text(v, w->n.dir_vpath, false);
			if (cur)
				dfs_buf_adds(&w->text, cur);
			free(cur);
		}
		w->pending = truncate;
		return w;
	}
	struct entry *e = dfs_entry_get(v, &w->n, err);
	if (!e) {
		dfs_write_free(w);
		return NULL;
	}
	int ret = dfs_entry_peek(v, e, &w->n.st, err);
	if (ret == 0 && w->n.module >= 0 && !dfs_entry_has_module(e, w->n.module))
		ret = dfs_error_set(err, DFS_ERR_NOENT, "%s: no such file", path);
	if (ret == 0 && !truncate && !w->import) {
		const struct module_state *ms = dfs_entry_mod_get(e, w->n.module);
		const char *cur = w->n.file == F_LOG_FILTER ? e->log_filter_text
		                                            : ms ? ms->filter_text : NULL;
		if (cur && *cur) {
			dfs_buf_adds(&w->text, cur);
			dfs_buf_addc(&w->text, '\n');
		}
	}
	dfs_entry_put(v, e);
	if (ret) {
		dfs_write_free(w);
		return NULL;
	}
	w->pending = truncate;
	return w;
}

/* records.csv: collect the CSV; refuse a bad header as soon as it is
 * complete; everything else is checked at close. */
static int import_data(dfs_write *w, const char *data, size_t len, uint64_t off,
                       dfs_error *err)
{
	size_t limit = w->v->opt.import_limit;
	if (off > limit || len > limit - off)
		return dfs_error_set(err, DFS_ERR_TOOBIG,
		                     "CSV larger than the import limit (%zu bytes)", limit);
	size_t end = (size_t)off + len;
	if (end > w->text.len && !dfs_buf_add_zeros(&w->text, end - w->text.len))
		return dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
	memcpy(w->text.data + off, data, len);
	w->pending = true;
	w->written = true;
	if (!w->header_checked && memchr(w->text.data, '\n', w->text.len)) {
		w->header_checked = true;
		const dfs_module *m = dfs_module_get(w->n.module);
		if (dfs_csv_check_header(m, w->text.data, w->text.len, err)) {
			struct entry *e = dfs_entry_get(w->v, &w->n, err);
			if (e) {
				set_error_text(e, &w->n, err->msg);
				dfs_entry_put(w->v, e);
			}
			w->pending = false;
			err->code = DFS_ERR_INVAL;
			return -1;
		}
	}
	return 0;
}

int dfs_write_data(dfs_write *w, const char *data, size_t len, uint64_t off,
                   dfs_error *err)
{
	if (w->import)
		return import_data(w, data, len, off, err);
	if (off > DFS_FILTER_MAX_LEN || len > DFS_FILTER_MAX_LEN - off + 1) {
		struct entry *e = dfs_entry_get(w->v, &w->n, err);
		if (e) {
			char msg[96];
			snprintf(msg, sizeof(msg), "filter longer than %d bytes",
			         DFS_FILTER_MAX_LEN);
			set_error_text(e, &w->n, msg);
			dfs_entry_put(w->v, e);
		}
		return dfs_error_set(err, DFS_ERR_INVAL, "filter longer than %d bytes",
		                     DFS_FILTER_MAX_LEN);
	}
	size_t end = (size_t)off + len;
	if (end > w->text.len) {
		if (!dfs_buf_add_zeros(&w->text, end - w->text.len))
			return dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
	}
	memcpy(w->text.data + off, data, len);
	w->pending = true;
	w->written = true;
	return apply(w, false, err);
}

int dfs_write_truncate(dfs_write *w, uint64_t size, dfs_error *err)
{
	if (w->import && size > w->v->opt.import_limit)
		return dfs_error_set(err, DFS_ERR_TOOBIG, "CSV larger than the import limit");
	if (size < w->text.len) {
		w->text.len = (size_t)size;
		w->text.data[size] = '\0';
	} else if (size > w->text.len) {
		if (!w->import && size > DFS_FILTER_MAX_LEN)
			return dfs_error_set(err, DFS_ERR_INVAL, "filter longer than %d bytes",
			                     DFS_FILTER_MAX_LEN);
		if (!dfs_buf_add_zeros(&w->text, (size_t)size - w->text.len))
			return dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
	}
	w->pending = true;
	return 0;
}

/* close(2) flushes; so does the close of a duplicate descriptor, which a
 * shell does right after `> filter` opened the file and before it writes:
 * a session that has received no data yet is left alone here. */
int dfs_write_flush(dfs_write *w, dfs_error *err)
{
	if (!w->pending || !w->written)
		return 0;
	return apply(w, true, err);
}

/* The session ends: a truncation without data (`: > filter`) clears the
 * filter now.  Nobody can be told about errors any more; they still go to
 * filter.error. */
void dfs_write_free(dfs_write *w)
{
	if (!w)
		return;
	if (w->pending && (w->written || !w->import)) {
		dfs_error err;
		apply(w, true, &err);
	}
	dfs_buf_free(&w->text);
	dfs_node_free(&w->n);
	free(w);
}

int dfs_view_truncate(dfs_view *v, const char *path, uint64_t size,
                      dfs_error *err)
{
	dfs_write *w = dfs_view_open_write(v, path, size == 0, err);
	if (!w)
		return -1;
	int ret = dfs_write_truncate(w, size, err);
	if (ret == 0 && w->pending && !w->import)
		ret = apply(w, true, err);
	w->pending = false;
	dfs_write_free(w);
	return ret;
}
