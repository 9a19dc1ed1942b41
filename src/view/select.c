/* select.c - from filters to selections to derived metrics.
 *
 * The selection of a module is the set of its records for which the
 * log-wide filter and the module's filter both hold (or, after a CSV
 * import, exactly the imported rows).  For modules with an accumulator the
 * selected records, which are in the module's binary record layout, are
 * injected in log order into the accumulator where they lie, without a
 * copy (the export repacks them into one buffer: writer.h). */
#include <stdlib.h>
#include <string.h>

#include "darshanfs/scratch.h"
#include "view/view_int.h"

/* ---- selections ------------------------------------------------------------------ */

void dfs_selection_free(struct selection *s)
{
	dfs_scratch_free(s->index);
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

/* Inject the selected records of `s` into `a`, read where they lie. */
static int inject_selection(dfs_accum *a, const dfs_module *m,
                            const struct selection *s, dfs_error *err)
{
	(void)m;
	return dfs_accum_inject_records(a, s->records, s->index, s->count, err);
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
#define MAX_PREFETCH 8
#define PREFETCH_AHEAD 16

/* A filter reads a few fields of records far apart in memory: where the
 * records have one fixed size, the cache lines of those fields are
 * fetched some records ahead.  Returns how many offsets were stored. */
static size_t prefetch_offsets(const dfs_module *m, const dfs_records *r,
                               const dfs_filter *const *filters, size_t nf,
                               size_t *offs)
{
	if (!m->record_size || m->row_count || r->offsets)
		return 0;
	size_t n = 0;
	for (size_t k = 0; k < nf; k++)
		for (size_t c = 0; c < dfs_filter_column_count(filters[k]); c++) {
			int col = dfs_filter_column(filters[k], c);
			/* the place columns look the record up by its id */
			size_t off = col >= 0 && (size_t)col < m->n_fields ?
			             m->fields[col].offset : 0;
			bool seen = false;
			for (size_t q = 0; q < n; q++)
				seen = seen || offs[q] / 64 == off / 64;
			if (!seen && n < MAX_PREFETCH)
				offs[n++] = off;
		}
	return n;
}

#define MAX_WORDS 32

/* The 8-byte words of a packed record that the filters read (the place
 * columns read the record id); 0 when they read more than MAX_WORDS:
 * then the whole record is unpacked. */
static size_t filter_words(const dfs_module *m, const dfs_filter *const *filters,
                           size_t nf, uint16_t *words)
{
	size_t n = 0;
	for (size_t k = 0; k < nf; k++)
		for (size_t c = 0; c < dfs_filter_column_count(filters[k]); c++) {
			int col = dfs_filter_column(filters[k], c);
			size_t first = 0, last = 0;
			if (col >= 0 && (size_t)col < m->n_fields) {
				const dfs_field *f = &m->fields[col];
				size_t size = f->storage == DFS_S_TEXT ? f->size
				            : f->storage == DFS_S_UUID ? 16 : 8;
				first = f->offset / 8;
				last = (f->offset + size + 7) / 8 - 1;
			} else if (m->place) {
				return 0;   /* the module's own place columns read more */
			}
			for (size_t w = first; w <= last; w++) {
				bool seen = false;
				for (size_t q = 0; q < n; q++)
					seen = seen || words[q] == w;
				if (seen)
					continue;
				if (n == MAX_WORDS)
					return 0;
				words[n++] = (uint16_t)w;
			}
		}
	return n;
}

/* The records a selection loop reads: raw ones where they lie, packed
 * ones unpacked into `scratch` -- only the words the filters read when
 * `nwords` names them. */
static inline const unsigned char *filter_record(const dfs_records *r, size_t i,
                                                 const uint16_t *words,
                                                 size_t nwords,
                                                 unsigned char *scratch)
{
	if (!r->packed || nwords == 0)
		return dfs_record_get(r, i, scratch);
	for (size_t k = 0; k < nwords; k++) {
		uint64_t v = dfs_record_word(r, i, words[k]);
		memcpy(scratch + 8 * (size_t)words[k], &v, 8);
	}
	return scratch;
}

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
		s->index = dfs_scratch_alloc((s->total ? s->total : 1) * sizeof(size_t));
		if (!s->index) {
			dfs_error err;
			dfs_error_set(&err, DFS_ERR_NOMEM, "out of memory");
			sel_fail(s, &err);
			dfs_dir_filters_release(dirs, nd);
			return s;
		}
		const dfs_records *r = s->records;
		size_t offs[MAX_PREFETCH];
		size_t noffs = r->packed ? 0 : prefetch_offsets(m, r, filters, nf, offs);
		uint16_t words[MAX_WORDS];
		size_t nwords = r->packed ? filter_words(m, filters, nf, words) : 0;
		_Alignas(8) unsigned char scratch[DFS_RECORD_MAX];
		memset(scratch, 0, sizeof(scratch));
		for (size_t i = 0; i < s->total; i++) {
			if (noffs && i + PREFETCH_AHEAD < s->total) {
				const unsigned char *ahead = dfs_record(r, i + PREFETCH_AHEAD);
				for (size_t k = 0; k < noffs; k++)
					__builtin_prefetch(ahead + offs[k]);
			}
			const unsigned char *rec = filter_record(r, i, words, nwords, scratch);
			if (dfs_filter_match_record(filters, nf, l->log, m, rec,
			                            dfs_record_size(r, i)))
				s->index[s->count++] = i;
		}
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
