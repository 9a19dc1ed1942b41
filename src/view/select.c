/* select.c - from filters to selections to derived metrics.
 *
 * The selection of a module is the set of its records for which the
 * log-wide filter and the module's filter both hold (or, after a CSV
 * import, exactly the imported rows).  For modules with an accumulator the
 * selected records are repacked into the module's binary record layout in
 * small batches and injected, in log order, into the accumulator. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "view/view_int.h"

/* ---- filter columns -------------------------------------------------------------- */

enum { PLACE_NAME, PLACE_MOUNT, PLACE_FSTYPE, PLACE_COLUMNS };
static const char *const place_columns[PLACE_COLUMNS] = {
	"file_name", "mount_pt", "fs_type",
};

struct resolve_ctx {
	const dfs_module *m;
	bool lenient;
};

static int resolve(void *ctx, const char *name, size_t len, dfs_type *type)
{
	struct resolve_ctx *rc = ctx;
	const dfs_module *m = rc->m;
	int f = dfs_module_field_index(m, name, len);
	if (f < 0) {
		/* case-insensitive second chance */
		for (size_t i = 0; i < m->n_fields && f < 0; i++)
			if (strlen(m->fields[i].name) == len &&
			    strncasecmp(m->fields[i].name, name, len) == 0)
				f = (int)i;
	}
	if (f >= 0) {
		*type = m->fields[f].type;
		return f;
	}
	for (int k = 0; k < PLACE_COLUMNS; k++)
		if (strlen(place_columns[k]) == len &&
		    strncasecmp(place_columns[k], name, len) == 0) {
			*type = DFS_T_STR;
			return (int)m->n_fields + k;
		}
	if (rc->lenient) {
		*type = DFS_T_NONE;
		return (int)m->n_fields + PLACE_COLUMNS;
	}
	return -1;
}

dfs_filter *dfs_compile_for_module(const dfs_module *m, const char *text,
                                   size_t len, bool lenient, dfs_error *err)
{
	struct resolve_ctx rc = {m, lenient};
	dfs_filter_columns cols = {resolve, &rc};
	return dfs_filter_compile(text, len, &cols, err);
}

struct row_ctx {
	const dfs_log *log;
	const dfs_module *m;
	const unsigned char *rec;
	size_t len;
	size_t row;
	bool placed;
	dfs_record_place pl;
};

static void get_column(void *ctx, int column, dfs_value *out)
{
	struct row_ctx *rc = ctx;
	size_t n = rc->m->n_fields;
	if (column >= 0 && (size_t)column < n) {
		dfs_module_get_value(rc->m, rc->rec, rc->len, rc->row, (size_t)column, out);
		return;
	}
	if ((size_t)column >= n + PLACE_COLUMNS) {
		out->type = DFS_T_NONE;
		return;
	}
	if (!rc->placed) {
		dfs_log_record_place(rc->log, rc->m, rc->rec, &rc->pl);
		rc->placed = true;
	}
	out->type = DFS_T_STR;
	switch ((size_t)column - n) {
	case PLACE_NAME:
		out->v.s.ptr = rc->pl.name;
		out->v.s.len = rc->pl.name_len;
		break;
	case PLACE_MOUNT:
		out->v.s.ptr = rc->pl.mount;
		out->v.s.len = rc->pl.mount_len;
		break;
	default:
		out->v.s.ptr = rc->pl.fs_type;
		out->v.s.len = rc->pl.fs_type_len;
		break;
	}
}

/* A record matches when any of its rows matches every filter. */
static bool record_matches(const dfs_log *log, const dfs_module *m,
                           const unsigned char *rec, size_t len,
                           const dfs_filter *const *filters, size_t nf)
{
	struct row_ctx rc = {log, m, rec, len, 0, false, {0}};
	size_t rows = dfs_module_rows(m, rec, len);
	for (rc.row = 0; rc.row < rows; rc.row++) {
		size_t i = 0;
		while (i < nf && dfs_filter_match(filters[i], get_column, &rc))
			i++;
		if (i == nf)
			return true;
	}
	return false;
}

/* ---- selections ------------------------------------------------------------------ */

void dfs_selection_free(struct selection *s)
{
	free(s->index);
	free(s->summary);
	for (size_t i = 0; i < s->n_warnings; i++)
		free(s->warnings[i]);
	free(s->warnings);
	free(s->error);
	memset(s, 0, sizeof(*s));
}

static void sel_fail(struct selection *s, dfs_error *err)
{
	s->status = err->code ? err->code : DFS_ERR_FORMAT;
	free(s->error);
	s->error = strdup(err->msg);
}

#define BATCH 1024

/* Inject the selected records of `s` into `a`, repacked in batches. */
static int inject_selection(dfs_accum *a, const dfs_module *m,
                            const struct selection *s, dfs_error *err)
{
	const dfs_records *r = s->records;
	if (!s->index)
		return dfs_accum_inject(a, m, r->data, r->count, err);
	size_t size = m->record_size;
	unsigned char *batch = malloc(BATCH * size);
	if (!batch)
		return dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
	int ret = 0;
	for (size_t i = 0; i < s->count && ret == 0;) {
		size_t n = 0;
		for (; n < BATCH && i < s->count; n++, i++)
			memcpy(batch + n * size, r->data + s->index[i] * size, size);
		ret = dfs_accum_inject(a, m, batch, n, err);
	}
	free(batch);
	return ret;
}

static void accumulate(struct selection *s, const dfs_module *m, int64_t nprocs)
{
	dfs_error err = {0};
	dfs_accum *a = dfs_accum_create(m, nprocs, &err);
	s->summary = calloc(1, m->record_size);
	if (!a || !s->summary || inject_selection(a, m, s, &err) ||
	    dfs_accum_emit(a, &s->dm, s->summary, &err)) {
		if (err.code == DFS_OK)
			dfs_error_set(&err, DFS_ERR_NOMEM, "out of memory");
		sel_fail(s, &err);
		dfs_accum_free(a);
		return;
	}
	s->warnings_total = dfs_accum_warning_count(a);
	size_t n = s->warnings_total < 16 ? s->warnings_total : 16;
	if (n && (s->warnings = calloc(n, sizeof(char *)))) {
		for (size_t i = 0; i < n; i++) {
			const char *w = dfs_accum_warning(a, i);
			s->warnings[i] = strdup(w ? w : "");
		}
		s->n_warnings = n;
	}
	s->accumulated = true;
	dfs_accum_free(a);
}

#define MAX_DIR_FILTERS 32

struct selection *dfs_selection(dfs_view *v, struct entry *e, struct loaded *l,
                                int id)
{
	struct selection *s = &l->sel[id];
	if (s->ready)
		return s;
	s->ready = true;
	const dfs_log_module *lm = dfs_log_get_module(l->log, id);
	const struct module_state *ms = dfs_entry_mod_get(e, id);
	static const struct module_state none;
	if (!ms)
		ms = &none;
	const dfs_module *m = lm->module;
	if (!m || !lm->present) {
		dfs_error err;
		dfs_error_set(&err, DFS_ERR_NOENT, "no %s module in this log",
		              dfs_module_slot_name(id));
		sel_fail(s, &err);
		return s;
	}
	if (lm->status != DFS_OK) {
		s->status = lm->status;
		s->error = strdup(lm->error ? lm->error : "module unreadable");
		return s;
	}
	s->records = ms->imported ? ms->imported : &lm->records;
	s->total = s->records->count;
	const dfs_filter *filters[MAX_DIR_FILTERS + 2];
	struct dir_compiled *dirs[MAX_DIR_FILTERS];
	size_t nf = 0, nd = 0;
	if (!ms->imported) {
		nd = dfs_dir_filters_acquire(v, e->vpath, id, dirs, MAX_DIR_FILTERS);
		for (size_t k = 0; k < nd; k++)
			filters[nf++] = dirs[k]->f[id];
		if (ms->log_filter && !dfs_filter_matches_all(ms->log_filter))
			filters[nf++] = ms->log_filter;
		if (ms->filter && !dfs_filter_matches_all(ms->filter))
			filters[nf++] = ms->filter;
	}
	if (nf == 0) {
		s->count = s->total;
	} else {
		s->index = malloc((s->total ? s->total : 1) * sizeof(size_t));
		if (!s->index) {
			dfs_error err;
			dfs_error_set(&err, DFS_ERR_NOMEM, "out of memory");
			sel_fail(s, &err);
			dfs_dir_filters_release(dirs, nd);
			return s;
		}
		for (size_t i = 0; i < s->total; i++)
			if (record_matches(l->log, m, dfs_record(s->records, i),
			                   dfs_record_size(s->records, i), filters, nf))
				s->index[s->count++] = i;
	}
	dfs_dir_filters_release(dirs, nd);
	return s;
}

struct selection *dfs_selection_metrics(dfs_view *v, struct entry *e,
                                        struct loaded *l, int id)
{
	struct selection *s = dfs_selection(v, e, l, id);
	const dfs_module *m = dfs_module_get(id);
	if (s->status == DFS_OK && !s->accumulate_tried && m && m->accumulator) {
		s->accumulate_tried = true;
		accumulate(s, m, dfs_log_job(l->log)->nprocs);
	}
	return s;
}

const dfs_derived_metrics *dfs_combined_metrics(dfs_view *v, struct entry *e,
                                                struct loaded *l)
{
	if (l->combined_ready)
		return &l->combined;
	dfs_error err = {0};
	dfs_accum *a = dfs_accum_create_combined(dfs_log_job(l->log)->nprocs, &err);
	if (!a)
		return NULL;
	static const int ids[] = {DFS_MOD_POSIX, DFS_MOD_STDIO};
	for (size_t k = 0; k < 2; k++) {
		const dfs_log_module *lm = dfs_log_get_module(l->log, ids[k]);
		if (!lm->present || lm->status != DFS_OK)
			continue;
		struct selection *s = dfs_selection(v, e, l, ids[k]);
		if (s->status != DFS_OK || inject_selection(a, lm->module, s, &err)) {
			dfs_accum_free(a);
			return NULL;
		}
	}
	if (dfs_accum_emit(a, &l->combined, NULL, &err)) {
		dfs_accum_free(a);
		return NULL;
	}
	dfs_accum_free(a);
	l->combined_ready = true;
	return &l->combined;
}
