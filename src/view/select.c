/* select.c - from filters to selections to derived metrics.
 *
 * The selection of a module is the set of its records for which the
 * log-wide filter and the module's filter both hold (or, after a CSV
 * import, exactly the imported rows).  For modules with an accumulator the
 * selected records are repacked into the module's binary record layout in
 * small batches and injected, in log order, into the accumulator. */
#include <stdlib.h>
#include <string.h>

#include "view/view_int.h"

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
			if (dfs_filter_match_record(filters, nf, l->log, m, dfs_record(s->records, i),
			                            dfs_record_size(s->records, i)))
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
