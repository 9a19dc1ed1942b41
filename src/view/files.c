/* files.c - what each generated file holds (the snapshots themselves:
 * snapshot.c).
 *
 * Generated text is built once per generation of the log's filters and
 * cached; an open handle keeps a reference to the snapshot it opened, so
 * it reads the same bytes whatever happens to the filters meanwhile.
 * Called by read.c; the files of a directory come from jobs.c, a log's
 * summary files from summary_files.c, the rows of files.csv and ranks.csv from
 * the summary layer's tables (summary/files_ranks.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv/csv.h"
#include "darshanfs/hash.h"
#include "darshanfs/report.h"
#include "summary/files_ranks.h"
#include "darshanfs/writer.h"
#include "util/workers.h"
#include "view/view_int.h"
#include "view/cache.h"
#include "view/schema.h"
#include "view/dirs.h"
#include "view/files.h"
#include "view/inforce.h"
#include "view/jobs.h"
#include "view/levels.h"
#include "view/select.h"
#include "view/summary_files.h"

/* ---- generators --------------------------------------------------------------- */

/* The warning of a module whose data is incomplete (darshan-parser
 * refuses it without --show-incomplete) */
static const char partial_warning[] =
	"the module's data is incomplete (PARTIAL): the job ran out of room "
	"for its records, so these numbers cover only the records kept";

/* "# filter 2026/filter: rank == 0" lines ("# filters: none" without) */
static void render_filters(dfs_view *v, const struct entry *e, int module,
                           dfs_buf *out)
{
	struct level lv[MAX_LEVELS];
	size_t n = dfs_filter_levels(v, e, module, lv);
	if (n == 0)
		dfs_buf_adds(out, "# filters: none (every record)\n");
	for (size_t i = 0; i < n; i++) {
		if (lv[i].imported)
			dfs_buf_printf(out, "# imported %s: %zu rows\n", lv[i].file, lv[i].rows);
		else
			dfs_buf_printf(out, "# filter %s: %s\n", lv[i].file, lv[i].text);
	}
	dfs_levels_free(lv, n);
}

static void render_selection_note(const struct selection *s, bool partial,
                                  dfs_buf *out)
{
	dfs_buf_printf(out, "\n# darshanfs: %zu of %zu records selected\n",
	               s->count, s->total);
	if (partial)
		dfs_buf_printf(out, "# warning: %s\n", partial_warning);
	for (size_t i = 0; i < s->n_warnings; i++)
		dfs_buf_printf(out, "# warning: %s\n", s->warnings[i]);
	if (s->warnings_total > s->n_warnings)
		dfs_buf_printf(out, "# warning: ... %zu more records like these\n",
		               s->warnings_total - s->n_warnings);
}

static void add_json_string(const char *text, dfs_buf *out)
{
	dfs_buf_addc(out, '"');
	for (const char *p = text; *p; p++) {
		if (*p == '"' || *p == '\\')
			dfs_buf_addc(out, '\\');
		if ((unsigned char)*p < 0x20)
			dfs_buf_printf(out, "\\u%04x", (unsigned char)*p);
		else
			dfs_buf_addc(out, *p);
	}
	dfs_buf_addc(out, '"');
}

/* ,"filters": [{"file": "a/filter", "filter": "rank == 0"},
 * {"file": "x.darshan/POSIX/records.csv", "imported_rows": 2}] on one line,
 * the last member of the object */
static void render_json_filters(dfs_view *v, const struct entry *e, int module,
                                dfs_buf *out)
{
	struct level lv[MAX_LEVELS];
	size_t n = dfs_filter_levels(v, e, module, lv);
	dfs_buf_adds(out, ",\n  \"filters\": [");
	for (size_t i = 0; i < n; i++) {
		dfs_buf_adds(out, i ? ", {\"file\": " : "{\"file\": ");
		add_json_string(lv[i].file, out);
		if (lv[i].imported) {
			dfs_buf_printf(out, ", \"imported_rows\": %zu}", lv[i].rows);
		} else {
			dfs_buf_adds(out, ", \"filter\": ");
			add_json_string(lv[i].text, out);
			dfs_buf_addc(out, '}');
		}
	}
	dfs_buf_addc(out, ']');
	dfs_levels_free(lv, n);
}

static void render_json(dfs_view *v, const struct entry *e, int module,
                        const struct selection *s, bool partial, dfs_buf *out)
{
	dfs_buf json = DFS_BUF_INIT;
	dfs_render_derived_json(&s->dm, &json);
	/* add our "warnings" list before the closing brace of the object */
	size_t end = json.len;
	while (end > 0 && json.data[end - 1] != '}')
		end--;
	if (end == 0) {
		dfs_buf_free(&json);
		return;
	}
	dfs_buf_add(out, json.data, end - 1);
	while (out->len > 0 && (out->data[out->len - 1] == '\n' ||
	                        out->data[out->len - 1] == ' '))
		out->len--;
	dfs_buf_printf(out, ",\n  \"partial\": %s,\n  \"warnings\": [",
	               partial ? "true" : "false");
	if (partial)
		add_json_string(partial_warning, out);
	for (size_t i = 0; i < s->n_warnings; i++) {
		if (i || partial)
			dfs_buf_adds(out, ", ");
		add_json_string(s->warnings[i], out);
	}
	dfs_buf_addc(out, ']');
	render_json_filters(v, e, module, out);
	dfs_buf_adds(out, "\n}\n");
	dfs_buf_free(&json);
}

static void render_log_derived(dfs_view *v, struct entry *e, struct decoded_log *l,
                               dfs_buf *out)
{
	bool posix = false, stdio = false;
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		const dfs_log_module *lm = dfs_log_get_module(l->log, id);
		if (!lm->present || !lm->module || !lm->module->accumulator)
			continue;
		posix |= id == DFS_MOD_POSIX;
		stdio |= id == DFS_MOD_STDIO;
		struct selection *s = dfs_selection_metrics(v, e, l, id);
		dfs_buf_printf(out, "# *******************************************************\n"
		                    "# %s module\n"
		                    "# *******************************************************\n",
		               lm->module->name);
		const char *why = dfs_selection_metrics_error(s);
		if (why) {
			dfs_buf_printf(out, "# error: %s\n\n", why);
			continue;
		}
		dfs_render_file_counts(&s->dm, out);
		dfs_render_perf(&s->dm, out);
		render_selection_note(s, lm->partial, out);
		render_filters(v, e, id, out);
		dfs_buf_addc(out, '\n');
	}
	if (posix && stdio) {
		dfs_buf_adds(out, "# *******************************************************\n"
		                  "# POSIX+STDIO combined (a file used through both counts once)\n"
		                  "# *******************************************************\n");
		const dfs_derived_metrics *dm = dfs_combined_metrics(v, e, l);
		if (dm) {
			dfs_render_file_counts(dm, out);
			dfs_render_perf(dm, out);
		} else {
			dfs_buf_adds(out, "# error: the combined metrics are unavailable\n");
		}
	}
}

/* ---- filtered.darshan -------------------------------------------------------- */

static bool shows_every_record(dfs_view *v, struct entry *e, int id);

/* A metadata key naming the level `l` of dfs_filter_levels(v, e, ...):
 * darshanfs_filter_dir:/2026 (a directory's filter), darshanfs_filter_log
 * (the log-wide one), darshanfs_filter_POSIX or darshanfs_import_POSIX (a
 * module's).  The level is told by its file's place below the log. */
static void provenance_key(const struct entry *e, const struct level *l,
                           dfs_buf *out)
{
	const char *logdir = strcmp(e->vpath, "/") ? e->vpath + 1 : "";
	size_t n = strlen(logdir);
	/* (a file at the top of the mount is "/filter") */
	const char *f = l->file + (l->file[0] == '/'), *rest = NULL;
	if (n == 0)
		rest = f;
	else if (strncmp(f, logdir, n) == 0 && f[n] == '/')
		rest = f + n + 1;
	size_t start = out->len;
	if (rest && strcmp(rest, "filter") == 0) {
		dfs_buf_adds(out, "darshanfs_filter_log");
	} else if (rest && strchr(rest, '/')) {
		dfs_buf_printf(out, "darshanfs_%s_%.*s", l->imported ? "import" : "filter",
		               (int)strcspn(rest, "/"), rest);
	} else {
		size_t dir = strlen(f) - strlen("filter");
		dfs_buf_printf(out, "darshanfs_filter_dir:/%.*s",
		               (int)(dir > 0 ? dir - 1 : 0), f);
	}
	/* a key ends at the first '=' and at the line's end */
	for (size_t i = start; i < out->len; i++)
		if (out->data[i] == '=' || (unsigned char)out->data[i] < 0x20)
			out->data[i] = '_';
}

static void provenance_line(const struct entry *e, const struct level *l,
                            dfs_buf *out)
{
	provenance_key(e, l, out);
	if (l->imported)
		dfs_buf_printf(out, "=%zu rows\n", l->rows);
	else
		dfs_buf_printf(out, "=%s\n", l->text);
}

/* The metadata lines that say which filters made filtered.darshan's
 * selection, one per level from the top down: directories, the log, then
 * each module's filter or import. */
static void render_provenance(dfs_view *v, const struct entry *e,
                              const dfs_log *log, dfs_buf *out)
{
	struct level shared[MAX_LEVELS], lv[MAX_LEVELS];
	size_t ns = dfs_filter_levels(v, e, -1, shared);
	for (size_t i = 0; i < ns; i++)
		provenance_line(e, &shared[i], out);
	for (int id = 0; id < DFS_MOD_KNOWN; id++) {
		const dfs_log_module *lm = dfs_log_get_module(log, id);
		if (!lm->present || !lm->module)
			continue;
		size_t n = dfs_filter_levels(v, e, id, lv);
		/* the module's own levels: its filter, or its import (which
		 * stands for every level: then the shared ones are not its) */
		for (size_t i = 0; i < n; i++) {
			bool seen = false;
			for (size_t k = 0; k < ns && !seen; k++)
				seen = strcmp(lv[i].file, shared[k].file) == 0;
			if (!seen)
				provenance_line(e, &lv[i], out);
		}
		dfs_levels_free(lv, n);
	}
	dfs_levels_free(shared, ns);
}

/* filtered.darshan: the log in its own format minus the records the
 * filters left out, its metadata naming the filters (writer.h,
 * dfs_log_export).  A module the log cannot decode is copied as it is
 * when no filter applies to it, and fails the file when one does. */
static int render_filtered(dfs_view *v, struct entry *e, struct decoded_log *l,
                           dfs_buf *out, dfs_error *err)
{
	dfs_export *x = calloc(1, sizeof(*x));
	dfs_buf meta = DFS_BUF_INIT;
	if (!x)
		return dfs_error_nomem(err);
	/* DXT records cut to their selected segments, as the log stores them */
	dfs_records plain[DFS_MOD_KNOWN];
	memset(plain, 0, sizeof(plain));
	int ret = -1;
	for (int id = 0; id < DFS_MOD_KNOWN; id++) {
		const dfs_log_module *lm = dfs_log_get_module(l->log, id);
		if (!lm->present || !lm->module)
			continue;
		dfs_export_module *xm = &x->module[id];
		if (lm->status != DFS_OK) {
			xm->filtered = !shows_every_record(v, e, id);
			continue;
		}
		struct selection *s = dfs_selection(v, e, l, id);
		if (s->status != DFS_OK) {
			dfs_error_set(err, s->status, "%s", s->error ? s->error : "unavailable");
			goto out;
		}
		xm->rows = s->records != &lm->records ? s->records : NULL;
		if (s->trimmed) {
			if (dfs_selection_plain(s, &plain[id])) {
				dfs_error_nomem(err);
				goto out;
			}
			xm->rows = &plain[id];
		}
		xm->filtered = s->index || xm->rows;
		xm->index = s->index;
		xm->count = s->count;
	}
	render_provenance(v, e, l->log, &meta);
	x->metadata = meta.data;
	ret = dfs_buf_ok(&meta) ? dfs_log_export(l->log, e->src, x, out, err)
	                        : dfs_error_nomem(err);
out:
	for (int id = 0; id < DFS_MOD_KNOWN; id++)
		if (plain[id].module)
			dfs_records_free(&plain[id]);
	dfs_buf_free(&meta);
	free(x);
	return ret;
}

static void render_error(const struct entry *e, const struct decoded_log *l,
                         dfs_buf *out)
{
	if (e->peek_status != DFS_OK) {
		dfs_buf_printf(out, "%s\n", e->peek_error ? e->peek_error : "unreadable log");
		return;
	}
	if (!l)
		return;
	if (!l->log) {
		dfs_buf_printf(out, "%s\n", l->error ? l->error : "unreadable log");
		return;
	}
	const dfs_log_header *h = dfs_log_get_header(l->log);
	uint64_t size = dfs_log_file_size(l->log);
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		const dfs_log_module *lm = dfs_log_get_module(l->log, id);
		dfs_region r = h->mods[id];
		if (lm->present && lm->status != DFS_OK)
			dfs_buf_printf(out, "%s\n", lm->error ? lm->error : "module unreadable");
		/* a region never decoded (filtered.darshan would copy it) */
		else if (lm->present && !lm->module && (r.len > size || r.off > size - r.len))
			dfs_buf_printf(out, "%s module (id %d): region [%llu, +%llu) lies "
			               "outside the file (%llu bytes)\n",
			               dfs_module_slot_name(id), id, (unsigned long long)r.off,
			               (unsigned long long)r.len, (unsigned long long)size);
	}
}

static void add_text_line(dfs_buf *out, const char *text)
{
	if (!text || !*text)
		return;
	dfs_buf_adds(out, text);
	if (text[strlen(text) - 1] != '\n')
		dfs_buf_addc(out, '\n');
}

/* Files that do not need the decoded log. */
static bool render_light(dfs_view *v, struct entry *e, const struct node *n,
                         dfs_buf *out)
{
	struct level lv[MAX_LEVELS];
	size_t nl;
	switch (n->file) {
	case F_LOG_FILTER:
		add_text_line(out, e->log_filter_text);
		nl = dfs_dir_levels_above(v, e->state, e->vpath, lv);
		dfs_render_inherited(lv, nl, out);
		dfs_levels_free(lv, nl);
		return true;
	case F_LOG_FILTER_ERROR:
		add_text_line(out, e->log_filter_error);
		return true;
	case F_FILTER: {
		const struct module_state *ms = dfs_entry_mod_find(e, n->module);
		if (ms && ms->imported) {
			/* (imported rows are the selection whatever lies above) */
			dfs_buf_printf(out, "# imported: %zu rows\n", ms->imported->recs.count);
			return true;
		}
		if (ms)
			add_text_line(out, ms->filter_text);
		nl = dfs_dir_levels_above(v, e->state, e->vpath, lv);
		if (e->log_filter_text && *e->log_filter_text)
			dfs_level_add(lv, &nl, e->vpath, "filter", e->log_filter_text, 0);
		dfs_render_inherited(lv, nl, out);
		dfs_levels_free(lv, nl);
		return true;
	}
	case F_FILTER_ERROR: {
		const struct module_state *ms = dfs_entry_mod_find(e, n->module);
		if (ms)
			add_text_line(out, ms->error_text);
		return true;
	}
	case F_PARTIAL:
		dfs_buf_printf(out, "The %s module of this log holds incomplete data: the "
		               "Darshan runtime ran out of memory for its records.\n",
		               dfs_module_slot_name(n->module));
		return true;
	default:
		return false;
	}
}

static int render_heavy(dfs_view *v, struct entry *e, struct decoded_log *l,
                        const struct node *n, dfs_buf *out, dfs_error *err)
{
	const dfs_log *log = l->log;
	if (n->module >= 0) {
		const dfs_module *m = dfs_module_get(n->module);
		bool records = n->file == F_RECORDS;
		struct selection *s = records ? dfs_selection(v, e, l, n->module)
		                              : dfs_selection_metrics(v, e, l, n->module);
		if (s->status != DFS_OK)
			return dfs_error_set(err, s->status, "%s", s->error ? s->error : "unavailable");
		if (!records && !s->accumulated)
			return s->accum_error
			               ? dfs_error_set(err, s->accum_status, "%s", s->accum_error)
			               : dfs_error_set(err, DFS_ERR_NOENT, "no derived metrics for %s",
			                               m->name);
		bool partial = dfs_log_get_module(log, n->module)->partial;
		switch (n->file) {
		case F_DERIVED:
			dfs_render_file_counts(&s->dm, out);
			dfs_render_perf(&s->dm, out);
			render_selection_note(s, partial, out);
			render_filters(v, e, n->module, out);
			break;
		case F_DERIVED_JSON:
			render_json(v, e, n->module, s, partial, out);
			break;
		case F_TOTAL:
			/* darshan-parser's lines, then (comments) the filters */
			dfs_render_total(m, s->summation, out);
			render_filters(v, e, n->module, out);
			break;
		case F_TOTAL_CSV:
			dfs_csv_header(m, out);
			dfs_csv_summation(log, m, s->summation, m->record_size, out);
			break;
		default:
			return dfs_error_set(err, DFS_ERR_NOENT, "no such file");
		}
		return 0;
	}
	switch (n->file) {
	case F_HEADER:
		dfs_report_header(log, out);
		break;
	case F_MOUNTS:
		dfs_csv_mounts(log, out);
		break;
	case F_NAMES:
		dfs_csv_names(log, out);
		break;

	case F_LOG_DERIVED:
		render_log_derived(v, e, l, out);
		break;
	case F_FILTERED:
		return render_filtered(v, e, l, out, err);
	default:
		return dfs_error_set(err, DFS_ERR_NOENT, "no such file");
	}
	return 0;
}

/* ---- files.csv and ranks.csv ------------------------------------------------- */

#define TABLE_CHUNK 8192   /* rows rendered by one worker at a time */


struct table_job {
	const dfs_file_table *files;   /* or */
	const dfs_rank_table *ranks;
	size_t rows, chunks;
	dfs_buf *out;                  /* one per chunk */
	atomic_size_t next;
};

static void *table_worker(void *arg)
{
	struct table_job *j = arg;
	for (;;) {
		size_t c = atomic_fetch_add(&j->next, 1);
		if (c >= j->chunks)
			break;
		size_t from = c * TABLE_CHUNK;
		size_t to = from + TABLE_CHUNK < j->rows ? from + TABLE_CHUNK : j->rows;
		/* room for rows of a usual size at once: growing step by step
		 * copies the text over and over */
		dfs_buf *out = &j->out[c + 1];
		if (dfs_buf_reserve(out, (to - from) * (j->files ? 256 : 128)))
			dfs_pages_populate(out->data, out->cap);
		if (j->files)
			dfs_file_table_render(j->files, from, to, &j->out[c + 1]);
		else
			dfs_rank_table_render(j->ranks, from, to, &j->out[c + 1]);
	}
	return NULL;
}

/* The text of a table: its header, then its rows rendered in chunks on
 * every core, each chunk a piece of the snapshot (never copied into
 * one). */
static dfs_snapshot *render_table(dfs_view *v, const dfs_file_table *ft,
                                  const dfs_rank_table *rt, dfs_error *err)
{
	size_t rows = ft ? ft->n : rt->n;
	struct table_job j = {.files = ft, .ranks = rt, .rows = rows,
	                      .chunks = (rows + TABLE_CHUNK - 1) / TABLE_CHUNK};
	atomic_init(&j.next, 0);
	j.out = calloc(j.chunks + 1, sizeof(dfs_buf));
	if (!j.out) {
		dfs_error_nomem(err);
		return NULL;
	}
	if (ft)
		dfs_file_table_header(&j.out[0]);
	else
		dfs_rank_table_header(&j.out[0]);
	dfs_workers_run(dfs_workers(DFS_WORKERS_MAX, j.chunks), table_worker, &j);
	bool ok = true;
	for (size_t c = 0; c <= j.chunks; c++)
		ok &= dfs_buf_ok(&j.out[c]);
	dfs_snapshot *content = NULL;
	if (ok)
		content = dfs_snapshot_from_bufs(v, j.out, j.chunks + 1, err);
	else
		dfs_error_nomem(err);
	for (size_t c = 0; c <= j.chunks; c++)
		dfs_buf_free(&j.out[c]);
	free(j.out);
	return content;
}

/* files.csv of more files and ranks.csv of more ranks than this are
 * rendered on demand, a batch of rows at a time, like records.csv
 * (lazy.c) */
#define LAZY_TABLE_ROWS 16384

static void rank_rows(const void *ctx, size_t from, size_t to, dfs_buf *out)
{
	dfs_rank_table_render(ctx, from, to, out);
}

static void rank_table_gone(void *ctx)
{
	dfs_rank_table_free(ctx);
	free(ctx);
}

/* ranks.csv of t (taken over) rendered on demand */
static dfs_snapshot *lazy_ranks(dfs_view *v, dfs_rank_table *t, dfs_error *err)
{
	dfs_rank_table *own = malloc(sizeof(*own));
	dfs_buf head = DFS_BUF_INIT;
	dfs_rank_table_header(&head);
	if (!own || !dfs_buf_ok(&head)) {
		free(own);
		dfs_rank_table_free(t);
		dfs_buf_free(&head);
		dfs_error_nomem(err);
		return NULL;
	}
	*own = *t;
	struct dfs_lazy_rows rows = {own, own->n, rank_rows, rank_table_gone,
	                             sizeof(*own) + own->n * sizeof(own->rows[0]), 1024, NULL};
	dfs_snapshot *c = dfs_lazy_table(&rows, head.data, &v->helpers, err);
	dfs_buf_free(&head);
	return c;
}

/* files.csv of many files, rendered on demand the same way: the table
 * (its rows' lengths measured as it was made) with references to what
 * its rows name (the log, the imported rows). */
struct lazy_files {
	dfs_file_table t;
	const dfs_log *log;
	struct import_set *rows;
};

static void file_rows(const void *ctx, size_t from, size_t to, dfs_buf *out)
{
	const struct lazy_files *f = ctx;
	dfs_file_table_render(&f->t, from, to, out);
}

static uint64_t file_rows_len(const void *ctx, size_t from, size_t to)
{
	const struct lazy_files *f = ctx;
	return dfs_file_table_measure(&f->t, from, to);
}

static void file_table_gone(void *ctx)
{
	struct lazy_files *f = ctx;
	dfs_file_table_free(&f->t);
	dfs_import_release(f->rows);
	dfs_log_free(f->log);
	free(f);
}

/* files.csv of t (taken over), made from `records` of `count` records
 * of the log or of the import set `rows` (may be NULL), rendered on
 * demand */
static dfs_snapshot *lazy_files(dfs_view *v, dfs_file_table *t, size_t count,
                                struct import_set *rows, dfs_error *err)
{
	struct lazy_files *own = malloc(sizeof(*own));
	dfs_buf head = DFS_BUF_INIT;
	dfs_file_table_header(&head);
	if (!own || !dfs_buf_ok(&head)) {
		free(own);
		dfs_file_table_free(t);
		dfs_buf_free(&head);
		dfs_error_nomem(err);
		return NULL;
	}
	own->t = *t;
	own->log = dfs_log_ref(t->log);
	own->rows = dfs_import_ref(rows);
	/* (the rows' block has a row for each record, the lengths too) */
	struct dfs_lazy_rows lr = {own, own->t.n, file_rows, file_table_gone,
	                           sizeof(*own) + count * (sizeof(dfs_file_row) + 4) +
	                                   own->t.n * 4,
	                           dfs_file_table_row_room(&own->t), file_rows_len};
	dfs_snapshot *c = dfs_lazy_table(&lr, head.data, &v->helpers, err);
	dfs_buf_free(&head);
	return c;
}

/* files.csv or ranks.csv of a module's selection: a module that cannot
 * be read fails (EIO) like its records.csv */
static dfs_snapshot *table_content(dfs_view *v, struct entry *e, struct decoded_log *l,
                                   const struct node *n, dfs_error *err)
{
	struct selection *s = dfs_selection(v, e, l, n->module);
	if (s->status != DFS_OK) {
		dfs_error_set(err, s->status, "%s", s->error ? s->error : "unavailable");
		return NULL;
	}
	dfs_snapshot *c = NULL;
	if (n->file == F_FILES_CSV) {
		dfs_file_table t;
		if (dfs_file_table_build_text(l->log, s->records, s->index, s->count,
		                              &v->scratch, &t, err) == 0) {
			if (t.n > LAZY_TABLE_ROWS) {
				const struct module_state *ms = dfs_entry_mod_find(e, n->module);
				struct import_set *rows = ms && ms->imported &&
				                          s->records == &ms->imported->recs
				                          ? ms->imported : s->trimmed;
				return lazy_files(v, &t, s->count, rows, err);
			}
			c = render_table(v, &t, NULL, err);
			dfs_file_table_free(&t);
		}
	} else {
		dfs_rank_table t;
		if (dfs_rank_table_build(l->log, s->records, s->index, s->count, &v->scratch,
		                         &t, err) == 0) {
			if (t.n > LAZY_TABLE_ROWS)
				return lazy_ranks(v, &t, err);
			c = render_table(v, NULL, &t, err);
			dfs_rank_table_free(&t);
		}
	}
	return c;
}

/* records.csv of a module is named by what selects its rows -- the
 * entry's generation (every accepted filter or import moves it), the
 * generation of its state's directory filters, whose they are (the
 * state), the log file -- not by a counter: the same selection
 * rendered again after an eviction is the same snapshot, and its size can
 * be told before it is rendered.  (Big contents' serials keep the top bit
 * clear, like the counter's.) */
static uint64_t serial_of(const struct entry *e, uint64_t dir_gen, int module,
                          const struct src_id *src)
{
	const uint64_t parts[] = {
		e->gen, dir_gen, e->state, (uint64_t)module, (uint64_t)src->size,
		(uint64_t)src->mtime.tv_sec, (uint64_t)src->mtime.tv_nsec,
		(uint64_t)src->ctime.tv_sec, (uint64_t)src->ctime.tv_nsec,
		(uint64_t)src->dev, (uint64_t)src->ino,
	};
	uint64_t h = dfs_fnv1a(DFS_FNV1A_INIT, e->vpath, strlen(e->vpath));
	h = dfs_fnv1a(h, parts, sizeof(parts));
	h &= ~(1ULL << 63);
	return h ? h : 1;
}

/* (the directory filters of the selection's own generation: two
 * selections made with different filters never share a serial) */
static uint64_t records_serial(const struct entry *e, const struct decoded_log *l,
                               int module)
{
	const struct decoded_mod *lm = l->mod[module];
	uint64_t dir_gen = lm && lm->sel.ready ? lm->sel.dir_gen : l->dir_gen;
	return serial_of(e, dir_gen, module, &e->decoded_id);
}

static uint64_t table_serial(const struct entry *e, const struct decoded_log *l,
                             int module, enum file_kind k)
{
	uint64_t h = records_serial(e, l, module);
	h = dfs_fnv1a(h, &k, sizeof(k)) & ~(1ULL << 63);
	return h ? h : 1;
}

/* The row lengths to fill while rendering s, when its rows are the log's
 * own records (not imported ones). */
static uint32_t *records_row_len(dfs_view *v, struct entry *e, struct decoded_log *l,
                                 int module, const struct selection *s)
{
	const dfs_records *own = dfs_log_records(l->log, module);
	if (!own || s->records != own || own->count == 0)
		return NULL;
	struct decoded_mod *lmod = dfs_decoded_mod(l, module);
	if (!lmod)
		return NULL;
	if (!lmod->row_len) {
		lmod->row_len = calloc(own->count, sizeof(uint32_t));
		if (lmod->row_len)
			dfs_entry_account_kept(v, e, (long)(own->count * sizeof(uint32_t)));
	}
	return lmod->row_len;
}

/* Size of records.csv from the rows' lengths, when every selected row
 * has been measured; false otherwise. */
static bool records_size_known(const struct decoded_log *l, int module,
                               const struct selection *s, uint64_t *size)
{
	const uint32_t *len = l->mod[module] ? l->mod[module]->row_len : NULL;
	if (!len || s->status != DFS_OK || s->records != dfs_log_records(l->log, module))
		return false;
	dfs_buf head = DFS_BUF_INIT;
	dfs_csv_header(dfs_module_get(module), &head);
	uint64_t total = head.len;
	dfs_buf_free(&head);
	for (size_t k = 0; k < s->count; k++) {
		uint32_t n = len[s->index ? s->index[k] : k];
		if (n == 0)
			return false;   /* a row never rendered yet */
		total += n;
	}
	*size = total;
	return true;
}

/* The content of a generated file of a decoded log, from its cache or
 * rendered (and cached). */
static dfs_snapshot *decoded_content(dfs_view *v, struct entry *e, struct decoded_log *l,
                                     const struct node *n, dfs_error *err)
{
	struct decoded_mod *lmod = n->module >= 0 ? dfs_decoded_mod(l, n->module) : NULL;
	if (n->module >= 0 && !lmod) {
		dfs_error_nomem(err);
		return NULL;
	}
	struct snapshot_cache *cache = lmod ? &lmod->files : &l->log_files;
	if (cache->file[n->file])
		return dfs_snapshot_ref(cache->file[n->file]);
	dfs_snapshot *c;
	int twin = dfs_parquet_source(n->file);
	if (twin >= 0 && n->file != F_RECORDS_PARQUET) {
		/* made from the CSV (itself kept, as if read) */
		struct node cn = *n;
		cn.file = (enum file_kind)twin;
		dfs_snapshot *csv = decoded_content(v, e, l, &cn, err);
		if (!csv)
			return NULL;
		/* a twin made from a selection names its filters, as its
		 * attribute user.darshanfs.selection does: a module's, or
		 * the whole log's (names and mounts follow none) */
		dfs_buf sel = DFS_BUF_INIT;
		bool named = dfs_file_defs[n->file].selection;
		if (n->module >= 0)
			dfs_filters_line(v, e, n->module, &sel);
		else if (named)
			dfs_selection_line(v, e->state, e->vpath, e, &sel);
		c = dfs_parquet_twin(v, csv, cn.file, n->module, named ? &sel : NULL, err);
		dfs_buf_free(&sel);
		dfs_snapshot_release(csv);
	} else if (n->file == F_RECORDS) {
		struct selection *s = dfs_selection(v, e, l, n->module);
		if (s->status != DFS_OK) {
			dfs_error_set(err, s->status, "%s", s->error ? s->error : "unavailable");
			return NULL;
		}
		/* rendered on demand; a snapshot of imported rows keeps them
		 * (the next import replaces them) */
		const struct module_state *ms = dfs_entry_mod_find(e, n->module);
		struct import_set *rows = ms && ms->imported &&
		                          s->records == &ms->imported->recs ? ms->imported
		                                                            : s->trimmed;
		c = dfs_lazy_records(l->log, dfs_module_get(n->module), s->records, rows,
		                     s->index, s->count,
		                     records_row_len(v, e, l, n->module, s), &v->helpers,
		                     err);
		if (c)
			c->serial = records_serial(e, l, n->module);
	} else if (n->file == F_FILES_CSV || n->file == F_RANKS_CSV) {
		c = table_content(v, e, l, n, err);
		/* named by its selection, as records.csv is (another name of
		 * the same parts) */
		if (c)
			c->serial = table_serial(e, l, n->module, n->file);
	} else if (dfs_is_summary_file(n->file)) {
		/* one pass makes them all: the others go to the cache */
		c = dfs_summary_contents(v, e, l, cache, n->file, err);
	} else if (n->file == F_RECORDS_PARQUET) {
		/* straight from the records (the CSV is never made), in the
		 * parts the row groups were encoded into */
		struct selection *s = dfs_selection(v, e, l, n->module);
		if (s->status != DFS_OK) {
			dfs_error_set(err, s->status, "%s", s->error ? s->error : "unavailable");
			return NULL;
		}
		struct dfs_pq_options o = dfs_parquet_options();
		o.pool = &v->scratch;
		/* the footer names the filters in force, as the attribute
		 * user.darshanfs.selection does */
		dfs_buf sel = DFS_BUF_INIT;
		dfs_filters_line(v, e, n->module, &sel);
		static const char *const key = DFS_PARQUET_SELECTION_KEY;
		const char *text = sel.data ? sel.data : "";
		o.kv_keys = &key;
		o.kv_values = &text;
		o.nkv = 1;
		dfs_buf *parts;
		size_t nparts;
		int rc = dfs_buf_ok(&sel) ? dfs_pq_records(l->log, dfs_module_get(n->module),
		                                           s->records, s->index, s->count, &o,
		                                           &parts, &nparts, err)
		                          : dfs_error_nomem(err);
		dfs_buf_free(&sel);
		if (rc)
			return NULL;
		c = dfs_snapshot_from_bufs(v, parts, nparts, err);
		free(parts);
	} else {
		dfs_buf b = DFS_BUF_INIT;
		if (render_heavy(v, e, l, n, &b, err)) {
			dfs_buf_free(&b);
			return NULL;
		}
		c = dfs_snapshot_from_buf(v, &b, err);
	}
	if (!c)
		return NULL;
	dfs_entry_keep_content(v, e, &cache->file[n->file], c);
	return c;
}

dfs_snapshot *dfs_file_content(dfs_view *v, struct entry *e,
                               const struct node *n, dfs_error *err)
{
	dfs_buf b = DFS_BUF_INIT;
	if (render_light(v, e, n, &b))
		return dfs_snapshot_from_buf(v, &b, err);
	if (n->file == F_ERROR) {
		dfs_error ignored;
		struct decoded_log *l = e->peek_status == DFS_OK ? dfs_entry_load(v, e, &ignored)
		                                            : NULL;
		render_error(e, l ? l : e->decoded, &b);
		return dfs_snapshot_from_buf(v, &b, err);
	}
	struct decoded_log *l = dfs_entry_load(v, e, err);
	if (!l)
		return NULL;
	if (n->file == F_DXT_FILE)
		return dfs_dxt_file_content(v, e, l, n->record, err);
	return decoded_content(v, e, l, n, err);
}

/* Will records.csv of module `id` show every record of the log (no
 * filter of any kind, no imported rows)?  (entry locked) */
static bool shows_every_record(dfs_view *v, struct entry *e, int id)
{
	const struct module_state *ms = dfs_entry_mod_find(e, id);
	if (ms && (ms->imported ||
	           (ms->filter && !dfs_filter_matches_all(ms->filter)) ||
	           (ms->log_filter && !dfs_filter_matches_all(ms->log_filter))))
		return false;
	struct dir_compiled *dirs[MAX_DIR_FILTERS];
	size_t nd = dfs_dir_filters_acquire(v, e->state, NULL, e->vpath, id, dirs,
	                                    MAX_DIR_FILTERS);
	dfs_dir_filters_release(dirs, nd);
	return nd == 0;
}

/* Offer the prefill of records.csv (see dfs_view_prefill) when its log is
 * big, not decoded yet, and the file would show all of its records; true
 * when the caller took it.  The serial told is the one the snapshot gets
 * once decoded, unless the log file or the directory filters change
 * meanwhile (the entry is locked: nothing else can). */
static bool offer_prefill(dfs_view *v, struct entry *e, const struct node *n,
                          const dfs_node_stat *st, const dfs_view_prefill *pf)
{
	struct stat fst;
	if (!pf || n->file != F_RECORDS || n->module < 0 || e->decoded ||
	    (uint64_t)e->peek_id.size < DFS_PREFILL_MIN_BYTES ||
	    !shows_every_record(v, e, n->module) || stat(e->src, &fst) != 0)
		return false;
	pthread_mutex_lock(&v->lock);
	uint64_t dir_gen = dfs_state_dir_gen(v, e->state);
	pthread_mutex_unlock(&v->lock);
	dfs_node_stat early = *st;
	early.size = 0;
	struct src_id src;
	dfs_src_id(&src, &fst);
	early.serial = serial_of(e, dir_gen, n->module, &src);
	return pf->early(pf->ctx, &early) == 0;
}

int dfs_file_stat(dfs_view *v, struct entry *e, const struct node *n,
                  dfs_node_stat *st, const dfs_view_prefill *pf, dfs_error *err)
{
	dfs_snapshot *c;
	if (n->file == F_RECORDS && n->module >= 0) {
		/* records.csv: often known without rendering it (the lookup
		 * before `cp x records.csv` need not render the rows about to be
		 * replaced) */
		struct decoded_log *l = offer_prefill(v, e, n, st, pf)
		                       ? dfs_entry_load_prefill(v, e, n->module, pf, err)
		                       : dfs_entry_load(v, e, err);
		if (!l)
			return -1;
		if (!(l->mod[n->module] && l->mod[n->module]->files.file[F_RECORDS]) &&
		    records_size_known(l, n->module, dfs_selection(v, e, l, n->module),
		                       &st->size)) {
			st->serial = records_serial(e, l, n->module);
			return 0;
		}
		c = decoded_content(v, e, l, n, err);
	} else {
		c = dfs_file_content(v, e, n, err);
	}
	return dfs_snapshot_stat(c, st);
}

/* the tables (jobs.csv, modules.csv, insights.csv, files.csv), schema.json,
 * summary.html, filter and filter.error of a source directory */
dfs_snapshot *dfs_dir_file_content(dfs_view *v, const struct node *n,
                                   const dfs_caller *who, dfs_error *err)
{
	if (n->file == F_JOBS || n->file == F_MODULES || n->file == F_DIR_INSIGHTS ||
	    n->file == F_DIR_FILES || dfs_parquet_source(n->file) >= 0)
		return dfs_jobs_content(v, n, who, err);
	if (n->file == F_DIR_SCHEMA)
		return dfs_schema_content(v, err);
	if (n->file == F_DIR_SUMMARY)
		return dfs_dir_summary_content(v, n, who, err);
	char *text = dfs_dir_filter_text(v, n->state, n->dir_vpath,
	                                 n->file == F_DIR_FILTER_ERROR);
	if (!text) {
		dfs_error_nomem(err);
		return NULL;
	}
	dfs_buf b = DFS_BUF_INIT;
	dfs_buf_adds(&b, text);
	free(text);
	if (n->file == F_DIR_FILTER) {
		struct level lv[MAX_LEVELS];
		size_t nl = dfs_dir_levels_above(v, n->state, n->dir_vpath, lv);
		dfs_render_inherited(lv, nl, &b);
		dfs_levels_free(lv, nl);
	}
	return dfs_snapshot_from_buf(v, &b, err);
}
