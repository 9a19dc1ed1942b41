/* files.c - what each generated file holds, and snapshots of it.
 *
 * Generated text is built once per generation of the log's filters and
 * cached; an open handle keeps a reference to the snapshot it opened, so
 * it reads the same bytes whatever happens to the filters meanwhile. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "darshanfs/csv.h"
#include "darshanfs/hash.h"
#include "darshanfs/report.h"
#include "darshanfs/writer.h"
#include "view/view_int.h"

/* ---- snapshots ------------------------------------------------------------------ */

static atomic_ullong next_serial = 1;

uint64_t dfs_content_serial(const dfs_content *c)
{
	return c->serial;
}

/* Serials: small texts (filters, errors, markers: rendered afresh each
 * time) are named by a hash of their bytes, so rendering the same text
 * twice gives the same serial; big ones (cached, rendered once per
 * generation) by a counter.  The top bit keeps the two kinds apart. */
#define HASHED_LIMIT (1u << 20)

static uint64_t content_serial(const dfs_content *c)
{
	if (c->size > HASHED_LIMIT)
		return atomic_fetch_add(&next_serial, 1) & ~(1ULL << 63);
	uint64_t h = DFS_FNV1A_INIT;
	for (size_t i = 0; i < c->nchunks; i++)
		h = dfs_fnv1a(h, c->chunks[i].data, c->chunks[i].len);
	h ^= c->size;
	return h | (1ULL << 63);
}

dfs_content *dfs_content_from_bufs(dfs_buf *b, size_t n, dfs_error *err)
{
	dfs_content *c = calloc(1, sizeof(*c));
	struct content_chunk *ch = calloc(n ? n : 1, sizeof(*ch));
	bool ok = c && ch;
	for (size_t i = 0; i < n; i++)
		ok = ok && dfs_buf_ok(&b[i]);
	if (!ok) {
		free(c);
		free(ch);
		for (size_t i = 0; i < n; i++)
			dfs_buf_free(&b[i]);
		dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
		return NULL;
	}
	atomic_init(&c->refs, 1);
	c->chunks = ch;
	for (size_t i = 0; i < n; i++) {
		if (b[i].len == 0) {
			dfs_buf_free(&b[i]);
			continue;
		}
		/* keep no slack: big texts live long */
		char *data = realloc(b[i].data, b[i].len);
		ch[c->nchunks].data = data ? data : b[i].data;
		ch[c->nchunks].len = b[i].len;
		ch[c->nchunks].off = c->size;
		c->size += b[i].len;
		c->nchunks++;
		dfs_buf_init(&b[i]);
	}
	c->serial = content_serial(c);
	return c;
}

dfs_content *dfs_content_from_buf(dfs_buf *b, dfs_error *err)
{
	return dfs_content_from_bufs(b, 1, err);
}

dfs_content *dfs_content_ref(dfs_content *c)
{
	if (c)
		atomic_fetch_add(&c->refs, 1);
	return c;
}

static void content_free(dfs_content *c)
{
	dfs_lazy_free(c->lazy);
	for (size_t i = 0; i < c->nchunks; i++)
		free(c->chunks[i].data);
	free(c->chunks);
	free(c);
}

size_t dfs_content_memory(const dfs_content *c)
{
	if (c->lazy)
		return dfs_lazy_memory(c);
	return sizeof(*c) + c->nchunks * sizeof(*c->chunks) + (size_t)c->size;
}

/* A reader's reference: when it leaves only the cache's, the reader let
 * go (the view may evict the log now); when it was the last of a
 * rendering the cache had dropped already, the bytes it held are freed
 * now, the log of a lazy one maybe with them. */
void dfs_content_release(dfs_content *c)
{
	if (!c)
		return;
	long left = atomic_fetch_sub(&c->refs, 1) - 1;
	if (left == 1 && c->view && atomic_load(&c->cached)) {
		dfs_view_reader_gone(c->view);
	} else if (left == 0) {
		dfs_view *v = c->view;
		size_t bytes = v ? dfs_content_memory(c) + dfs_lazy_log_memory(c) : 0;
		content_free(c);
		if (v)
			dfs_view_freed(v, bytes);
	}
}

void dfs_content_uncache(dfs_content *c)
{
	if (!c)
		return;
	atomic_store(&c->cached, false);
	if (atomic_fetch_sub(&c->refs, 1) == 1)
		content_free(c);
}

uint64_t dfs_content_size(const dfs_content *c)
{
	return c->size;
}

/* the chunk holding `off` (< size): binary search on the chunk offsets */
static size_t chunk_of(const dfs_content *c, uint64_t off)
{
	size_t lo = 0, hi = c->nchunks;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (c->chunks[mid].off <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

long dfs_content_read(dfs_content *c, char *buf, size_t len, uint64_t off,
                      dfs_error *err)
{
	if (off >= c->size || len == 0)
		return 0;
	if (c->lazy)
		return dfs_lazy_read(c, buf, len, off, err);
	size_t lo = chunk_of(c, off);
	size_t done = 0;
	for (size_t i = lo; i < c->nchunks && done < len; i++) {
		const struct content_chunk *ch = &c->chunks[i];
		size_t from = (size_t)(off + done - ch->off);
		size_t n = ch->len - from;
		if (n > len - done)
			n = len - done;
		memcpy(buf + done, ch->data + from, n);
		done += n;
	}
	return (long)done;
}

int dfs_content_pin(dfs_content *c, uint64_t off, size_t len, const char **data,
                    size_t *n, void **pin, dfs_error *err)
{
	*pin = NULL;
	if (off >= c->size || len == 0) {
		*data = "";
		*n = 0;
		return 1;
	}
	if (len > c->size - off)
		len = (size_t)(c->size - off);
	if (c->lazy)
		return dfs_lazy_pin(c, off, len, data, n, pin, err);
	const struct content_chunk *ch = &c->chunks[chunk_of(c, off)];
	if (off + len > ch->off + ch->len)
		return 0;
	*data = ch->data + (off - ch->off);
	*n = len;
	return 1;
}

void dfs_content_unpin(dfs_content *c, void *pin)
{
	if (c->lazy && pin)
		dfs_lazy_unpin(c, pin);
}

/* ---- generators --------------------------------------------------------------- */

/* The warning of a module whose data is incomplete (darshan-parser
 * refuses it without --show-incomplete) */
static const char partial_warning[] =
	"the module's data is incomplete (PARTIAL): the job ran out of room "
	"for its records, so these numbers cover only the records kept";

/* The filters that made a module's selection, one per level from the top
 * down: directory filters, the log's, the module's (or its imported rows).
 * `file` is the filter file (relative to the mount), `text` its expression
 * on one line; an import has `rows` instead. */
struct level {
	char *file, *text;
	bool imported;
	size_t rows;
};
#define MAX_LEVELS (MAX_DIR_FILTERS + 2)

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

/* Add the level of filter file `name` below vpath ("/a/b" + "filter" ->
 * "a/b/filter", "/" + "filter" -> "filter"); text NULL for an import of
 * `rows`.  A level that finds no memory is left out. */
static void add_level(struct level *lv, size_t *n, const char *vpath,
                      const char *name, const char *text, size_t rows)
{
	struct level *l = &lv[*n];
	l->file = strcmp(vpath, "/") ? dfs_path_join(vpath + 1, name) : strdup(name);
	l->text = one_line(text ? text : "");
	l->imported = !text;
	l->rows = rows;
	if (l->file && l->text) {
		(*n)++;
	} else {
		free(l->file);
		free(l->text);
	}
}

static size_t filter_levels(dfs_view *v, const struct entry *e, int module,
                            struct level *lv)
{
	const struct module_state *ims = dfs_entry_mod_get(e, module);
	size_t n = 0;
	if (ims && ims->imported) {
		/* imported rows are the selection, whatever lies above */
		char name[64];
		snprintf(name, sizeof(name), "%s/records.csv",
		         dfs_module_slot_name(module));
		add_level(lv, &n, e->vpath, name, NULL, ims->imported->recs.count);
		return n;
	}
	char *dirs[MAX_DIR_FILTERS], *texts[MAX_DIR_FILTERS];
	size_t nd = dfs_dir_filters_above(v, e->state, e->vpath, dirs, texts,
	                                  MAX_DIR_FILTERS);
	for (size_t i = 0; i < nd; i++) {
		add_level(lv, &n, dirs[i], "filter", texts[i], 0);
		free(dirs[i]);
		free(texts[i]);
	}
	if (e->log_filter_text && *e->log_filter_text)
		add_level(lv, &n, e->vpath, "filter", e->log_filter_text, 0);
	char name[64];
	if (ims && ims->filter_text && *ims->filter_text) {
		snprintf(name, sizeof(name), "%s/filter", dfs_module_slot_name(module));
		add_level(lv, &n, e->vpath, name, ims->filter_text, 0);
	}
	return n;
}

static void levels_free(struct level *lv, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(lv[i].file);
		free(lv[i].text);
	}
}

/* The levels above directory vpath (not its own), from the top down. */
static size_t dir_levels_above(dfs_view *v, uint64_t state, const char *vpath,
                               struct level *lv)
{
	char *dirs[MAX_DIR_FILTERS], *texts[MAX_DIR_FILTERS];
	size_t nd = dfs_dir_filters_above(v, state, vpath, dirs, texts,
	                                  MAX_DIR_FILTERS);
	size_t n = 0;
	for (size_t i = 0; i < nd; i++) {
		if (strcmp(dirs[i], vpath) != 0)
			add_level(lv, &n, dirs[i], "filter", texts[i], 0);
		free(dirs[i]);
		free(texts[i]);
	}
	return n;
}

/* "# from 2020/filter: rank == 0" lines: what the levels above a filter
 * file add to its own expression (comments to the filter language, so
 * the text read can be written back) */
static void render_inherited(const struct level *lv, size_t n, dfs_buf *out)
{
	for (size_t i = 0; i < n; i++)
		dfs_buf_printf(out, "# from %s: %s\n", lv[i].file, lv[i].text);
}

void dfs_drop_inherited(char *text)
{
	char *out = text;
	for (char *p = text; *p;) {
		char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p + 1) : strlen(p);
		if (strncmp(p, "# from ", 7) != 0) {
			memmove(out, p, len);
			out += len;
		}
		p += len;
	}
	while (out > text && strchr(" \t\r\n", out[-1]))
		out--;
	*out = '\0';
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
		n = filter_levels(v, e, module, lv);
	} else {
		/* the POSIX+STDIO row: the levels above both, then each one's */
		n = filter_levels(v, e, DFS_MOD_POSIX, lv);
		struct level more[MAX_LEVELS];
		size_t m = filter_levels(v, e, DFS_MOD_STDIO, more);
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
	levels_free(lv, n);
}

/* "# filter 2026/filter: rank == 0" lines ("# filters: none" without) */
static void render_filters(dfs_view *v, const struct entry *e, int module,
                           dfs_buf *out)
{
	struct level lv[MAX_LEVELS];
	size_t n = filter_levels(v, e, module, lv);
	if (n == 0)
		dfs_buf_adds(out, "# filters: none (every record)\n");
	for (size_t i = 0; i < n; i++) {
		if (lv[i].imported)
			dfs_buf_printf(out, "# imported %s: %zu rows\n", lv[i].file, lv[i].rows);
		else
			dfs_buf_printf(out, "# filter %s: %s\n", lv[i].file, lv[i].text);
	}
	levels_free(lv, n);
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
	size_t n = filter_levels(v, e, module, lv);
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
	levels_free(lv, n);
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

static void render_log_derived(dfs_view *v, struct entry *e, struct loaded *l,
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
		if (s->status != DFS_OK || !s->accumulated) {
			dfs_buf_printf(out, "# error: %s\n\n", s->error ? s->error : "unavailable");
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

/* A metadata key naming the level `l` of filter_levels(v, e, ...):
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
	size_t ns = filter_levels(v, e, -1, shared);
	for (size_t i = 0; i < ns; i++)
		provenance_line(e, &shared[i], out);
	for (int id = 0; id < DFS_MOD_KNOWN; id++) {
		const dfs_log_module *lm = dfs_log_get_module(log, id);
		if (!lm->present || !lm->module)
			continue;
		size_t n = filter_levels(v, e, id, lv);
		/* the module's own levels: its filter, or its import (which
		 * stands for every level: then the shared ones are not its) */
		for (size_t i = 0; i < n; i++) {
			bool seen = false;
			for (size_t k = 0; k < ns && !seen; k++)
				seen = strcmp(lv[i].file, shared[k].file) == 0;
			if (!seen)
				provenance_line(e, &lv[i], out);
		}
		levels_free(lv, n);
	}
	levels_free(shared, ns);
}

/* filtered.darshan: the log in its own format minus the records the
 * filters left out, its metadata naming the filters (writer.h,
 * dfs_log_export).  A module the log cannot decode is copied as it is
 * when no filter applies to it, and fails the file when one does. */
static int render_filtered(dfs_view *v, struct entry *e, struct loaded *l,
                           dfs_buf *out, dfs_error *err)
{
	dfs_export *x = calloc(1, sizeof(*x));
	dfs_buf meta = DFS_BUF_INIT;
	if (!x)
		return dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
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
				dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
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
	                        : dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
out:
	for (int id = 0; id < DFS_MOD_KNOWN; id++)
		if (plain[id].module)
			dfs_records_free(&plain[id]);
	dfs_buf_free(&meta);
	free(x);
	return ret;
}

static void render_error(const struct entry *e, const struct loaded *l,
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
		nl = dir_levels_above(v, e->state, e->vpath, lv);
		render_inherited(lv, nl, out);
		levels_free(lv, nl);
		return true;
	case F_LOG_FILTER_ERROR:
		add_text_line(out, e->log_filter_error);
		return true;
	case F_FILTER: {
		const struct module_state *ms = dfs_entry_mod_get(e, n->module);
		if (ms && ms->imported) {
			/* (imported rows are the selection whatever lies above) */
			dfs_buf_printf(out, "# imported: %zu rows\n", ms->imported->recs.count);
			return true;
		}
		if (ms)
			add_text_line(out, ms->filter_text);
		nl = dir_levels_above(v, e->state, e->vpath, lv);
		if (e->log_filter_text && *e->log_filter_text)
			add_level(lv, &nl, e->vpath, "filter", e->log_filter_text, 0);
		render_inherited(lv, nl, out);
		levels_free(lv, nl);
		return true;
	}
	case F_FILTER_ERROR: {
		const struct module_state *ms = dfs_entry_mod_get(e, n->module);
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

static int render_heavy(dfs_view *v, struct entry *e, struct loaded *l,
                        const struct node *n, dfs_buf *out, dfs_error *err)
{
	const dfs_log *log = l->log;
	if (n->module >= 0) {
		const dfs_module *m = dfs_module_get(n->module);
		struct selection *s = n->file == F_RECORDS
		                              ? dfs_selection(v, e, l, n->module)
		                              : dfs_selection_metrics(v, e, l, n->module);
		if (s->status != DFS_OK)
			return dfs_error_set(err, s->status, "%s", s->error ? s->error : "unavailable");
		if (n->file != F_RECORDS && !s->accumulated)
			return dfs_error_set(err, DFS_ERR_NOENT, "no derived metrics for %s",
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
			dfs_render_total(m, s->summary, out);
			break;
		case F_TOTAL_CSV:
			dfs_csv_header(m, out);
			dfs_csv_summary(log, m, s->summary, m->record_size, out);
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

/* records.csv of a module is named by what selects its rows -- the
 * entry's generation (every accepted filter or import moves it), the
 * directory filters, whose they are, the log file -- not by a counter: the same selection
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

static uint64_t records_serial(const struct entry *e, const struct loaded *l,
                               int module)
{
	return serial_of(e, l->dir_gen, module, &e->loaded_id);
}

/* The row lengths to fill while rendering s, when its rows are the log's
 * own records (not imported ones). */
static uint32_t *records_row_len(dfs_view *v, struct entry *e, struct loaded *l,
                                 int module, const struct selection *s)
{
	const dfs_records *own = dfs_log_records(l->log, module);
	if (!own || s->records != own || own->count == 0)
		return NULL;
	struct loaded_mod *lmod = dfs_loaded_mod(l, module);
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
static bool records_size_known(const struct loaded *l, int module,
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

/* The content of a generated file of a loaded log, from its cache or
 * rendered (and cached). */
static dfs_content *loaded_content(dfs_view *v, struct entry *e, struct loaded *l,
                                   const struct node *n, dfs_error *err)
{
	struct loaded_mod *lmod = n->module >= 0 ? dfs_loaded_mod(l, n->module) : NULL;
	if (n->module >= 0 && !lmod) {
		dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
		return NULL;
	}
	struct content_cache *cache = lmod ? &lmod->files : &l->log_files;
	if (cache->file[n->file])
		return dfs_content_ref(cache->file[n->file]);
	dfs_content *c;
	if (n->file == F_RECORDS) {
		struct selection *s = dfs_selection(v, e, l, n->module);
		if (s->status != DFS_OK) {
			dfs_error_set(err, s->status, "%s", s->error ? s->error : "unavailable");
			return NULL;
		}
		/* rendered on demand; a snapshot of imported rows keeps them
		 * (the next import replaces them) */
		const struct module_state *ms = dfs_entry_mod_get(e, n->module);
		struct import_set *rows = ms && ms->imported &&
		                          s->records == &ms->imported->recs ? ms->imported
		                                                            : s->trimmed;
		c = dfs_lazy_records(l->log, dfs_module_get(n->module), s->records, rows,
		                     s->index, s->count,
		                     records_row_len(v, e, l, n->module, s), err);
		if (c)
			c->serial = records_serial(e, l, n->module);
	} else if (dfs_is_summary_file(n->file)) {
		/* one pass makes them all: the others go to the cache */
		c = dfs_summary_contents(v, e, l, cache, n->file, err);
	} else {
		dfs_buf b = DFS_BUF_INIT;
		if (render_heavy(v, e, l, n, &b, err)) {
			dfs_buf_free(&b);
			return NULL;
		}
		c = dfs_content_from_buf(&b, err);
	}
	if (!c)
		return NULL;
	dfs_entry_keep_content(v, e, &cache->file[n->file], c);
	return c;
}

dfs_content *dfs_file_content(dfs_view *v, struct entry *e,
                              const struct node *n, dfs_error *err)
{
	dfs_buf b = DFS_BUF_INIT;
	if (render_light(v, e, n, &b))
		return dfs_content_from_buf(&b, err);
	if (n->file == F_ERROR) {
		dfs_error ignored;
		struct loaded *l = e->peek_status == DFS_OK ? dfs_entry_load(v, e, &ignored)
		                                            : NULL;
		render_error(e, l ? l : e->loaded, &b);
		return dfs_content_from_buf(&b, err);
	}
	struct loaded *l = dfs_entry_load(v, e, err);
	if (!l)
		return NULL;
	return loaded_content(v, e, l, n, err);
}

/* Will records.csv of module `id` show every record of the log (no
 * filter of any kind, no imported rows)?  (entry locked) */
static bool shows_every_record(dfs_view *v, struct entry *e, int id)
{
	const struct module_state *ms = dfs_entry_mod_get(e, id);
	if (ms && (ms->imported ||
	           (ms->filter && !dfs_filter_matches_all(ms->filter)) ||
	           (ms->log_filter && !dfs_filter_matches_all(ms->log_filter))))
		return false;
	struct dir_compiled *dirs[MAX_DIR_FILTERS];
	size_t nd = dfs_dir_filters_acquire(v, e->state, e->vpath, id, dirs,
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
	if (!pf || n->file != F_RECORDS || n->module < 0 || e->loaded ||
	    (uint64_t)e->peek_id.size < DFS_PREFILL_MIN_BYTES ||
	    !shows_every_record(v, e, n->module) || stat(e->src, &fst) != 0)
		return false;
	pthread_mutex_lock(&v->lock);
	uint64_t dir_gen = v->dir_gen;
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
	dfs_content *c;
	if (n->file == F_RECORDS && n->module >= 0) {
		/* records.csv: often known without rendering it (the lookup
		 * before `cp x records.csv` need not render the rows about to be
		 * replaced) */
		struct loaded *l = offer_prefill(v, e, n, st, pf)
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
		c = loaded_content(v, e, l, n, err);
	} else {
		c = dfs_file_content(v, e, n, err);
	}
	if (!c)
		return -1;
	st->size = c->size;
	st->serial = c->serial;
	dfs_content_release(c);
	return 0;
}

/* jobs.csv, filter and filter.error of a source directory */
dfs_content *dfs_dir_file_content(dfs_view *v, const struct node *n,
                                  const dfs_caller *who, dfs_error *err)
{
	if (n->file == F_JOBS || n->file == F_DIR_INSIGHTS)
		return dfs_jobs_content(v, n, who, err);
	if (n->file == F_DIR_SUMMARY)
		return dfs_dir_summary_content(v, n, who, err);
	char *text = dfs_dir_filter_text(v, n->state, n->dir_vpath,
	                                 n->file == F_DIR_FILTER_ERROR);
	if (!text) {
		dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
		return NULL;
	}
	dfs_buf b = DFS_BUF_INIT;
	dfs_buf_adds(&b, text);
	free(text);
	if (n->file == F_DIR_FILTER) {
		struct level lv[MAX_LEVELS];
		size_t nl = dir_levels_above(v, n->state, n->dir_vpath, lv);
		render_inherited(lv, nl, &b);
		levels_free(lv, nl);
	}
	return dfs_content_from_buf(&b, err);
}

dfs_content *dfs_view_open_file(dfs_view *v, const char *path, dfs_error *err)
{
	return dfs_view_open_file_as(v, path, NULL, err);
}

dfs_content *dfs_view_open_file_as(dfs_view *v, const char *path,
                                   const dfs_caller *who, dfs_error *err)
{
	dfs_node_stat st;
	/* the stat checks existence of the file in this log */
	if (dfs_view_stat_as(v, path, who, &st, NULL, err))
		return NULL;
	if (st.is_dir) {
		dfs_error_set(err, DFS_ERR_INVAL, "%s: is a directory", path);
		return NULL;
	}
	struct node n;
	if (dfs_resolve(v, path, &n, err))
		return NULL;
	if (dfs_node_state(v, &n, who, false, err)) {
		dfs_node_free(&n);
		return NULL;
	}
	if (n.kind == N_FILE && dfs_file_defs[n.file].level == LEVEL_DIR) {
		dfs_content *c = dfs_dir_file_content(v, &n, who, err);
		dfs_node_free(&n);
		return c;
	}
	struct entry *e = dfs_entry_get(v, &n, err);
	dfs_content *c = NULL;
	if (e) {
		c = dfs_file_content(v, e, &n, err);
		dfs_entry_put(v, e);
	}
	dfs_node_free(&n);
	return c;
}
