/* select.c - from filters to selections to derived metrics.
 *
 * The selection of a module is the set of its records for which the
 * directory filters, the log-wide filter and the module's filter all hold
 * (or, after a CSV import, exactly the imported rows); LUSTRE, DXT and
 * HEATMAP follow the selection of their files instead of testing a
 * log-wide or directory filter that names columns they lack.  For modules with an accumulator the
 * selected records, which are in the module's binary record layout, are
 * injected in log order into the accumulator where they lie, without a
 * copy (filtered.darshan writes their stored bytes again: writer.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accum/accum_int.h"
#include "darshanfs/summary.h"
#include "log/hints.h"
#include "util/scratch.h"
#include "view/view_int.h"
#include "view/cache.h"
#include "view/dirs.h"
#include "view/select.h"
#include "module/pack.h"

/* ---- selections ------------------------------------------------------------------ */

/* (the cache calls it through s->clear) */
static void selection_clear(struct selection *s)
{
	dfs_scratch_free(s->pool, s->index);
	dfs_import_release(s->trimmed);
	free(s->summation);
	for (size_t i = 0; i < s->n_warnings; i++)
		free(s->warnings[i]);
	free(s->warnings);
	free(s->error);
	free(s->accum_error);
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

static void accumulate(struct selection *s, const dfs_module *m, const dfs_job *job)
{
	dfs_error err = {0};
	dfs_accum *a = dfs_accum_create(m, job->nprocs, &err);
	dfs_accum_use_scratch(a, s->pool);
	s->summation = calloc(1, m->record_size);
	if (!a || !s->summation || inject_selection(a, m, s, &err) ||
	    dfs_accum_emit(a, &s->dm, s->summation, &err)) {
		if (err.code == DFS_OK)
			dfs_error_nomem(&err);
		/* (the selection itself stays usable: records.csv, the page) */
		s->accum_status = err.code;
		s->accum_error = strdup(err.msg);
		dfs_accum_free(a);
		return;
	}
	s->warnings_total = dfs_accum_warning_count(a);
	size_t n = s->warnings_total < 16 ? s->warnings_total : 16;
	/* and one of metrics no run can have measured (summary.h) */
	dfs_job_numbers num = {job->nprocs, job->run_time, (double)s->dm.total_bytes,
	                       s->dm.agg_time_by_slowest, s->dm.agg_perf_by_slowest};
	char why[400];
	bool doubt = dfs_job_numbers_doubts(&num) != 0;
	if ((n || doubt) && (s->warnings = calloc(n + 1, sizeof(char *)))) {
		for (size_t i = 0; i < n; i++) {
			const char *w = dfs_accum_warning(a, i);
			s->warnings[i] = strdup(w ? w : "");
		}
		if (doubt) {
			char line[600];
			snprintf(line, sizeof(line), "implausible metrics: %s; they are what the "
			         "official accumulator gives, directory summaries leave them out (the "
			         "log's insights.txt names the counters)",
			         dfs_job_numbers_why(&num, why, sizeof(why)));
			s->warnings[n++] = strdup(line);
			s->warnings_total++;
		}
		s->n_warnings = n;
	}
	s->accumulated = true;
	dfs_accum_free(a);
}

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
	dfs_record_unpack_words(r, i, words, nwords, scratch);
	return scratch;
}

/* One pass of filters over a range of records: what the loop reads and
 * fetches ahead. */
struct scan {
	const dfs_log *log;
	const dfs_module *m;
	const dfs_records *r;
	const dfs_filter *const *filters;
	size_t nf;
	size_t offs[MAX_PREFETCH], noffs;    /* raw records: fields read */
	uint16_t words[MAX_WORDS];           /* packed: words read */
	size_t nwords, lines;                /* and cache lines fetched */
};

static void scan_init(struct scan *sc, const dfs_log *log, const dfs_module *m,
                      const dfs_records *r, const dfs_filter *const *filters,
                      size_t nf)
{
	memset(sc, 0, sizeof(*sc));
	sc->log = log;
	sc->m = m;
	sc->r = r;
	sc->filters = filters;
	sc->nf = nf;
	if (!r->packed) {
		sc->noffs = prefetch_offsets(m, r, filters, nf, sc->offs);
		return;
	}
	sc->nwords = filter_words(m, filters, nf, sc->words);
	/* the cache lines that can hold those words: the bitmap, then at
	 * most one value per word before the last one read */
	size_t last = 0;
	for (size_t k = 0; k < sc->nwords; k++)
		last = sc->words[k] > last ? sc->words[k] : last;
	size_t reach = sc->nwords ? ((m->record_size / 8 + 63) / 64 + last + 1) * 8
	                          : m->record_size;
	sc->lines = (reach + 63) / 64;
	if (sc->lines > MAX_PREFETCH)
		sc->lines = MAX_PREFETCH;
}

/* Records [from, to) that match: their indices into out; how many. */
static size_t scan_range(const struct scan *sc, size_t from, size_t to,
                         size_t *out)
{
	const dfs_records *r = sc->r;
	_Alignas(8) unsigned char scratch[DFS_RECORD_MAX];
	memset(scratch, 0, sizeof(scratch));
	size_t n = 0;
	dfs_name_hint hint = DFS_NAME_HINT_INIT;
	for (size_t i = from; i < to; i++) {
		if (sc->noffs && i + PREFETCH_AHEAD < to) {
			const unsigned char *ahead = dfs_record(r, i + PREFETCH_AHEAD);
			for (size_t k = 0; k < sc->noffs; k++)
				__builtin_prefetch(ahead + sc->offs[k]);
		} else if (sc->lines && i + PREFETCH_AHEAD < to) {
			const unsigned char *ahead =
				r->data + (size_t)r->pk_off[i + PREFETCH_AHEAD] * 8;
			for (size_t k = 0; k < sc->lines; k++)
				__builtin_prefetch(ahead + 64 * k);
		}
		const unsigned char *rec = filter_record(r, i, sc->words, sc->nwords, scratch);
		if (dfs_filter_match_record(sc->filters, sc->nf, sc->log, sc->m, rec,
		                            dfs_record_size(r, i), &hint))
			out[n++] = i;
	}
	return n;
}

struct scan_part {
	const struct scan *sc;
	size_t from, to, n;
	size_t *out;
};

static void *scan_worker(void *arg)
{
	struct scan_part *p = arg;
	p->n = scan_range(p->sc, p->from, p->to, p->out + p->from);
	return NULL;
}

#define SCAN_SPLIT_MIN 65536

/* All `total` records, the second half on another core when there are
 * many: each half writes its matches where its records start in `out`,
 * then the second half's move down behind the first's. */
static size_t scan_all(const struct scan *sc, size_t total, size_t *out)
{
	struct scan_part half = {sc, total / 2, total, 0, out};
	pthread_t tid;
	if (total < SCAN_SPLIT_MIN || sysconf(_SC_NPROCESSORS_ONLN) < 2 ||
	    pthread_create(&tid, NULL, scan_worker, &half) != 0)
		return scan_range(sc, 0, total, out);
	size_t n = scan_range(sc, 0, half.from, out);
	pthread_join(tid, NULL);
	memmove(out + n, out + half.from, half.n * sizeof(*out));
	return n + half.n;
}

/* ---- trace segments -------------------------------------------------------- */

/* In a module whose filters select rows (DXT: segments), the selected
 * records cut to their matching rows, in a set of their own that the
 * selection then shows instead; nothing changes when every row of every
 * selected record matches (a filter on record columns). */
static int trim_rows(struct selection *s, const dfs_log *log, const dfs_module *m,
                     const dfs_filter *const *filters, size_t nf, dfs_error *err)
{
	const dfs_records *r = s->records;
	bool *keep = NULL;
	size_t cap = 0;
	struct import_set *set = NULL;
	dfs_name_hint hint = DFS_NAME_HINT_INIT;
	for (size_t k = 0; k < s->count; k++) {
		size_t i = s->index ? s->index[k] : k;
		const unsigned char *rec = dfs_record(r, i);
		size_t len = dfs_record_size(r, i), rows = dfs_module_rows(m, rec, len);
		if (rows > cap) {
			bool *more = realloc(keep, rows * sizeof(bool));
			if (!more)
				goto nomem;
			keep = more;
			cap = rows;
		}
		dfs_filter_match_rows(filters, nf, log, m, rec, len, &hint, keep);
		size_t kept = 0;
		for (size_t q = 0; q < rows; q++)
			kept += keep[q];
		if (!set && kept == rows)
			continue;
		if (!set) {
			/* the first record cut: the ones before go whole */
			if (!(set = malloc(sizeof(*set))))
				goto nomem;
			atomic_init(&set->refs, 1);
			dfs_records_init(&set->recs, m, m->version);
			for (size_t q = 0; q < k; q++) {
				size_t j = s->index ? s->index[q] : q;
				size_t n = dfs_record_size(r, j);
				unsigned char *d = dfs_records_append(&set->recs, n);
				if (!d)
					goto nomem;
				memcpy(d, dfs_record(r, j), n);
			}
		}
		if (kept == rows) {
			unsigned char *d = dfs_records_append(&set->recs, len);
			if (!d)
				goto nomem;
			memcpy(d, rec, len);
		} else if (kept && dfs_dxt_trim(rec, len, keep, &set->recs)) {
			goto nomem;
		}
	}
	free(keep);
	if (set) {
		s->trimmed = set;
		s->records = &set->recs;
		s->count = set->recs.count;
		dfs_scratch_free(s->pool, s->index);
		s->index = NULL;
	}
	return 0;
nomem:
	free(keep);
	dfs_import_release(set);
	return dfs_error_nomem(err);
}

/* ---- modules that follow the selection of their files --------------------------- */

/* LUSTRE, DXT_POSIX, DXT_MPIIO and HEATMAP hold what other modules'
 * records are about: the layout, the trace or the time bins of a file's (a
 * layer's) I/O.  A log-wide or directory filter naming columns one of them
 * lacks (`BYTES_READ > 0` in LUSTRE) does not test its records, which
 * would all be UNKNOWN: they follow the records that filter selects in the
 * modules that have those columns instead (docs/filter-language.md). */
static bool may_follow(int id)
{
	return id == DFS_MOD_LUSTRE || id == DFS_MOD_DXT_POSIX ||
	       id == DFS_MOD_DXT_MPIIO || id == DFS_MOD_HEATMAP;
}

/* Does a multi-module filter compiled for module id make it follow? */
static bool follows_filter(int id, const dfs_filter *f)
{
	return may_follow(id) && dfs_filter_lacks_columns(f);
}

/* Does module id follow: a log-wide or directory filter in force lacks its
 * columns? */
static bool follows(dfs_view *v, struct entry *e, int id)
{
	if (!may_follow(id))
		return false;
	const struct module_state *ms = dfs_entry_mod_find(e, id);
	if (ms && follows_filter(id, ms->log_filter))
		return true;
	struct dir_compiled *dirs[MAX_DIR_FILTERS];
	size_t nd = dfs_dir_filters_acquire(v, e->state, NULL, e->vpath, id, dirs,
	                                    MAX_DIR_FILTERS);
	bool yes = false;
	for (size_t k = 0; k < nd && !yes; k++)
		yes = follows_filter(id, dirs[k]->f[id]);
	dfs_dir_filters_release(dirs, nd);
	return yes;
}

/* The selection of module id, when it leads (it is in the log and does
 * not follow); NULL when it does not lead.  -1 when memory ran out. */
static int leader(dfs_view *v, struct entry *e, struct decoded_log *l, int id,
                  int follower, struct selection **out)
{
	*out = NULL;
	const dfs_log_module *lm = dfs_log_get_module(l->log, id);
	if (id == follower || !lm->module || !lm->present || lm->status != DFS_OK ||
	    follows(v, e, id))
		return 0;
	struct selection *s = dfs_selection(v, e, l, id);
	if (s->status == DFS_ERR_NOMEM)
		return -1;
	if (s->status == DFS_OK)
		*out = s;
	return 0;
}

static inline size_t sel_record(const struct selection *s, size_t k)
{
	return s->index ? s->index[k] : k;
}

struct by_id {
	uint64_t id;
	size_t k;      /* its place among the follower's selected records */
};

static int order_by_id(const void *a, const void *b)
{
	uint64_t x = ((const struct by_id *)a)->id, y = ((const struct by_id *)b)->id;
	return (x > y) - (x < y);
}

/* LUSTRE and DXT: keep[k] for the selected records whose file (record id)
 * has a record selected in a module that leads. */
static int follow_files(dfs_view *v, struct entry *e, struct decoded_log *l, int id,
                        const struct selection *s, bool *keep)
{
	struct by_id *ids = malloc((s->count ? s->count : 1) * sizeof(*ids));
	if (!ids)
		return -1;
	for (size_t k = 0; k < s->count; k++) {
		ids[k].id = dfs_record_word(s->records, sel_record(s, k), 0);
		ids[k].k = k;
	}
	qsort(ids, s->count, sizeof(*ids), order_by_id);
	for (int lid = 0; lid < DFS_MOD_KNOWN; lid++) {
		struct selection *ls;
		if (leader(v, e, l, lid, id, &ls) < 0) {
			free(ids);
			return -1;
		}
		for (size_t j = 0; ls && j < ls->count; j++) {
			uint64_t rid = dfs_record_word(ls->records, sel_record(ls, j), 0);
			size_t lo = 0, hi = s->count;
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;
				if (ids[mid].id < rid)
					lo = mid + 1;
				else
					hi = mid;
			}
			for (; lo < s->count && ids[lo].id == rid; lo++)
				keep[ids[lo].k] = true;
		}
	}
	free(ids);
	return 0;
}

/* The ranks of one layer's selected records, sorted; `all` when a shared
 * record (rank -1) is among them. */
struct layer_ranks {
	bool done;
	bool all;
	int64_t *ranks;
	size_t n;
};

static int order_ranks(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int layer_ranks(dfs_view *v, struct entry *e, struct decoded_log *l, int lid,
                       struct layer_ranks *lr)
{
	lr->done = true;
	struct selection *ls;
	if (leader(v, e, l, lid, DFS_MOD_HEATMAP, &ls) < 0)
		return -1;
	if (!ls || ls->count == 0)
		return 0;
	lr->ranks = malloc(ls->count * sizeof(*lr->ranks));
	if (!lr->ranks)
		return -1;
	for (size_t j = 0; j < ls->count; j++) {
		int64_t r = (int64_t)dfs_record_word(ls->records, sel_record(ls, j), 1);
		lr->all = lr->all || r == -1;
		lr->ranks[lr->n++] = r;
	}
	qsort(lr->ranks, lr->n, sizeof(*lr->ranks), order_ranks);
	return 0;
}

/* The module a HEATMAP record's layer is ("heatmap:POSIX": the module
 * whose counters are POSIX_...), or -1. */
static int heatmap_layer(const dfs_log *log, uint64_t rid)
{
	static const char tag[] = "heatmap:";
	const dfs_name *nm = dfs_log_name(log, rid);
	size_t t = sizeof(tag) - 1;
	if (!nm || nm->len <= t || memcmp(nm->str, tag, t) != 0)
		return -1;
	const char *layer = nm->str + t;
	size_t len = nm->len - t;
	for (int id = 0; id < DFS_MOD_KNOWN; id++) {
		const dfs_module *m = dfs_module_get(id);
		if (m && id != DFS_MOD_HEATMAP && strlen(m->prefix) == len + 1 &&
		    memcmp(m->prefix, layer, len) == 0 && m->prefix[len] == '_')
			return id;
	}
	return -1;
}

/* HEATMAP: its records are a layer's bins on one rank, not a file's; keep
 * the record of a layer and rank when that layer's module leads and has a
 * record of that rank, or a shared one (rank -1), selected. */
static int follow_layers(dfs_view *v, struct entry *e, struct decoded_log *l,
                         const struct selection *s, bool *keep)
{
	struct layer_ranks lr[DFS_MOD_KNOWN];
	memset(lr, 0, sizeof(lr));
	int ret = 0;
	for (size_t k = 0; k < s->count && ret == 0; k++) {
		size_t i = sel_record(s, k);
		int lid = heatmap_layer(l->log, dfs_record_word(s->records, i, 0));
		if (lid < 0)
			continue;
		struct layer_ranks *x = &lr[lid];
		if (!x->done && layer_ranks(v, e, l, lid, x) < 0) {
			ret = -1;
			break;
		}
		int64_t rank = (int64_t)dfs_record_word(s->records, i, 1);
		keep[k] = x->all || (x->n > 0 && bsearch(&rank, x->ranks, x->n,
		                                          sizeof(*x->ranks),
		                                          order_ranks) != NULL);
	}
	for (int id = 0; id < DFS_MOD_KNOWN; id++)
		free(lr[id].ranks);
	return ret;
}

/* Keep of a following module's selection only the records that follow a
 * leader's (s->index holds the selection). */
static int follow_leaders(dfs_view *v, struct entry *e, struct decoded_log *l, int id,
                          struct selection *s, dfs_error *err)
{
	bool *keep = calloc(s->count ? s->count : 1, sizeof(bool));
	if (!keep || (id == DFS_MOD_HEATMAP ? follow_layers(v, e, l, s, keep)
	                                    : follow_files(v, e, l, id, s, keep)) < 0) {
		free(keep);
		return dfs_error_nomem(err);
	}
	size_t n = 0;
	for (size_t k = 0; k < s->count; k++)
		if (keep[k])
			s->index[n++] = s->index[k];
	s->count = n;
	free(keep);
	return 0;
}

int dfs_selection_plain(const struct selection *s, dfs_records *out)
{
	const dfs_records *r = s->records;
	dfs_records_init(out, r->module, r->version);
	for (size_t i = 0; i < r->count; i++) {
		const unsigned char *rec = dfs_record(r, i);
		size_t n = dfs_dxt_plain_size(rec, dfs_record_size(r, i));
		unsigned char *d = dfs_records_append(out, n);
		if (!d) {
			dfs_records_free(out);
			return -1;
		}
		memcpy(d, rec, n);
	}
	return 0;
}

struct selection *dfs_selection(dfs_view *v, struct entry *e, struct decoded_log *l,
                                int id)
{
	/* what callers get without memory for the slot: they look at the
	 * status before anything else */
	struct decoded_mod *lmod = dfs_decoded_mod(l, id);
	if (!lmod)
		return &v->no_memory;
	struct selection *s = &lmod->sel;
	if (s->ready)
		return s;
	s->ready = true;
	s->clear = selection_clear;
	s->pool = &v->scratch;
	const dfs_log_module *lm = dfs_log_get_module(l->log, id);
	const struct module_state *ms = dfs_entry_mod_find(e, id);
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
	s->records = ms->imported ? &ms->imported->recs : &lm->records;
	/* "N of M records selected": M is the log's, whatever the rows
	 * looked through (an import's) */
	s->total = lm->records.count;
	size_t rows = s->records->count;
	const dfs_filter *filters[MAX_DIR_FILTERS + 2];
	struct dir_compiled *dirs[MAX_DIR_FILTERS];
	size_t nf = 0, nd = 0;
	bool follow = false;
	if (ms->imported) {
		/* (its rows are the selection: no directory filter applies) */
		pthread_mutex_lock(&v->lock);
		s->dir_gen = dfs_state_dir_gen(v, e->state);
		pthread_mutex_unlock(&v->lock);
	} else {
		nd = dfs_dir_filters_acquire(v, e->state, &s->dir_gen, e->vpath, id, dirs,
		                             MAX_DIR_FILTERS);
		/* a multi-module filter that lacks this module's columns is
		 * followed instead of tested, in the modules that may */
		for (size_t k = 0; k < nd; k++)
			if (follows_filter(id, dirs[k]->f[id]))
				follow = true;
			else
				filters[nf++] = dirs[k]->f[id];
		if (follows_filter(id, ms->log_filter))
			follow = true;
		else if (ms->log_filter && !dfs_filter_matches_all(ms->log_filter))
			filters[nf++] = ms->log_filter;
		if (ms->filter && !dfs_filter_matches_all(ms->filter))
			filters[nf++] = ms->filter;
	}
	if (nf == 0 && !follow) {
		s->count = rows;
	} else {
		s->index = dfs_scratch_alloc(s->pool, (rows ? rows : 1) * sizeof(size_t));
		if (!s->index) {
			dfs_error err;
			dfs_error_nomem(&err);
			sel_fail(s, &err);
			dfs_dir_filters_release(dirs, nd);
			return s;
		}
		if (nf > 0) {
			struct scan sc;
			scan_init(&sc, l->log, m, s->records, filters, nf);
			s->count = scan_all(&sc, rows, s->index);
		} else {
			for (size_t i = 0; i < rows; i++)
				s->index[i] = i;
			s->count = rows;
		}
		/* the row index is part of what the log holds */
		size_t index_bytes = (rows ? rows : 1) * sizeof(size_t);
		dfs_entry_account(v, e, (long)index_bytes);
		dfs_error err;
		if ((follow && follow_leaders(v, e, l, id, s, &err)) ||
		    (nf > 0 && m->row_select && !s->records->packed &&
		     trim_rows(s, l->log, m, filters, nf, &err)))
			sel_fail(s, &err);
		else if (s->trimmed)
			/* the records cut to their rows, in place of the index */
			dfs_entry_account(v, e, (long)dfs_import_memory(s->trimmed) -
			                        (long)index_bytes);
	}
	dfs_dir_filters_release(dirs, nd);
	return s;
}

struct selection *dfs_selection_metrics(dfs_view *v, struct entry *e,
                                        struct decoded_log *l, int id)
{
	struct selection *s = dfs_selection(v, e, l, id);
	const dfs_module *m = dfs_module_get(id);
	if (s->status == DFS_OK && !s->accumulate_tried && m && m->accumulator) {
		s->accumulate_tried = true;
		accumulate(s, m, dfs_log_job(l->log));
		dfs_entry_account(v, e, (long)(m->record_size + s->n_warnings * 64));
	}
	return s;
}

const char *dfs_selection_metrics_error(const struct selection *s)
{
	if (s->status != DFS_OK)
		return s->error ? s->error : "unavailable";
	if (!s->accumulated)
		return s->accum_error ? s->accum_error : "no derived metrics";
	return NULL;
}

const dfs_derived_metrics *dfs_combined_metrics(dfs_view *v, struct entry *e,
                                                struct decoded_log *l)
{
	if (l->combined_ready)
		return &l->combined;
	dfs_error err = {0};
	dfs_accum *a = dfs_accum_create_combined(dfs_log_job(l->log)->nprocs, &err);
	if (!a)
		return NULL;
	dfs_accum_use_scratch(a, &v->scratch);
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
