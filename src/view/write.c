/* write.c - write sessions on the writable files of the tree.
 *
 * `echo EXPR > filter` opens with O_TRUNC, writes one or more chunks and
 * closes.  The session collects the bytes (at their offsets) and after each
 * write (but for a filter sent in many tiny writes: see check_due) checks
 * the text so far: text that ends with a newline must be a
 * valid expression (a newline ends one, so `echo` hears of an error);
 * other text must be the beginning of one (a long filter arrives in
 * chunks cut anywhere: in a word, after an open parenthesis or an
 * operator).  What fails is refused with DFS_ERR_INVAL, leaving the active
 * filter and all results as they were and the reason in filter.error.
 * The text takes effect at close, judged whole.
 *
 * A CSV written into records.csv is checked the same way, line by line:
 * the write() that completes a bad header or a bad row fails, so the
 * writing tool (sqlite3, a shell's redirection) reports it; at close only
 * what needs the whole text or the log is left to find (a row whose absent
 * columns have no record to come from, the size limits).  Nothing written
 * (`: > records.csv`, or the empty output of a tool that selected no row)
 * selects no record.  records.csv of a module without fixed-size records
 * (DXT, LUSTRE, ...) refuses the open for writing, saying why.
 *
 * The root's `selections` takes the word "clear" (or nothing), checked
 * like a filter, which removes every filter and import of the writer's
 * state at close (selections.c); a refusal goes to selections.error. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "csv/csv.h"
#include "view/view_int.h"
#include "view/cache.h"
#include "view/schema.h"
#include "view/access.h"
#include "view/dirs.h"
#include "view/selections.h"

/* Bytes of an import written past the end of its text (out of order,
 * leaving a hole before them), kept apart until the text reaches them: a
 * write at offset 5e8 costs its own bytes, not 500 MB of zeros before
 * them.  Disjoint, in order, each beginning past the end of the text. */
struct piece {
	uint64_t off;
	size_t len;
	char *data;
};
#define MAX_PIECES 4096

struct dfs_write {
	dfs_view *v;
	struct node n;
	dfs_buf text;
	bool import;       /* a CSV written into records.csv */
	bool written;      /* data arrived (not just a truncation) */
	bool truncated;    /* opened with O_TRUNC, or truncated since */
	bool pending;      /* the text differs from what is installed */
	bool failed;       /* a write was refused: the session installs nothing */
	bool append;       /* opened with O_APPEND: a filter's writes go to its end */
	bool header_checked;
	bool lines_unchecked;  /* written out of order: rows are checked at close */
	dfs_csv_rows *rows;    /* the import's rows checked so far */
	bool deferred;         /* takes effect at dfs_write_commit only */
	bool selections;       /* the root's `selections`: "clear" or nothing */
	unsigned flushes;
	/* an import's bytes written past the end of the text (see place) */
	struct piece *pieces;
	size_t npieces, cap_pieces;
	uint64_t size;         /* an import's size: text, pieces and holes */
	bool text_pooled;      /* text.data is a block of the view's pool */
	size_t text_faulted;   /* its bytes [0, text_faulted) faulted in */
	size_t held;           /* memory counted as the session's (charge) */
	/* what the checks of a filter's writes cost so far (bytes compiled,
	 * times the modules compiled for; see check_due) */
	uint64_t check_spent;
	unsigned check_weight; /* modules a check compiles for, plus one */
};

static bool is_filter(const struct node *n)
{
	return n->kind == N_FILE && (n->file == F_FILTER || n->file == F_LOG_FILTER ||
	                             n->file == F_DIR_FILTER);
}

static bool is_selections(const struct node *n)
{
	return n->kind == N_FILE && n->file == F_SELECTIONS;
}

static bool is_import(const struct node *n)
{
	return n->kind == N_FILE && n->file == F_RECORDS &&
	       dfs_module_get(n->module)->record_size != 0;
}

static void set_error_text(struct entry *e, const struct node *n, const char *msg)
{
	struct module_state *ms = n->file == F_LOG_FILTER ? NULL
	                                                  : dfs_entry_mod_make(e, n->module);
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

/* The modules of a log, as a bit mask. */
static uint64_t present_modules(const struct entry *e)
{
	uint64_t present = 0;
	for (int id = 0; id < DFS_MOD_KNOWN; id++)
		if (dfs_entry_has_module(e, id))
			present |= 1ULL << id;
	return present;
}

/* Compile the log-wide filter for every module of the log (see
 * dfs_filter_compile_modules: it may combine counters of several
 * modules). */
static int compile_log_filter(struct entry *e, const char *text, size_t len,
                              dfs_filter *out[DFS_MOD_SLOTS], dfs_error *err)
{
	uint64_t present = present_modules(e);
	for (int id = DFS_MOD_KNOWN; id < DFS_MOD_SLOTS; id++)
		out[id] = NULL;
	if (dfs_filter_compile_modules(text, len, present, out, err))
		return -1;
	if (!present)
		return dfs_error_set(err, DFS_ERR_INVAL, "this log has no module to filter");
	return 0;
}

/* Memory of the filter of node n in force (entry locked). */
static size_t filter_bytes(const struct entry *e, const struct node *n)
{
	if (n->file == F_LOG_FILTER) {
		dfs_filter *f[DFS_MOD_KNOWN];
		for (int id = 0; id < DFS_MOD_KNOWN; id++)
			f[id] = e->mod ? e->mod[id].log_filter : NULL;
		return dfs_filter_set_memory(f, DFS_MOD_KNOWN);
	}
	const struct module_state *ms = dfs_entry_mod_find(e, n->module);
	return ms ? dfs_filter_memory(ms->filter) : 0;
}

/* Count a filter of e taking `after` bytes where it took `before` (or,
 * without commit, only check that the state's filters may take it). */
static int charge(dfs_view *v, struct entry *e, size_t before, size_t after,
                  bool commit, dfs_error *err)
{
	pthread_mutex_lock(&v->lock);
	int ret = dfs_state_charge_filters(v, e->state, before, after, commit, err);
	if (ret == 0 && commit) {
		e->filter_bytes += after;
		e->filter_bytes -= before;
	}
	pthread_mutex_unlock(&v->lock);
	return ret;
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
	if (copy)
		dfs_drop_inherited(copy);
	if (!copy)
		return dfs_error_nomem(err);
	if (n->file == F_LOG_FILTER) {
		dfs_filter *compiled[DFS_MOD_SLOTS];
		if (compile_log_filter(e, text, len, compiled, err)) {
			free(copy);
			return -1;
		}
		size_t before = filter_bytes(e, n),
		       after = dfs_filter_set_memory(compiled, DFS_MOD_KNOWN);
		if (!dfs_entry_mod_make(e, 0) || charge(v, e, before, after, true, err)) {
			for (int id = 0; id < DFS_MOD_SLOTS; id++)
				dfs_filter_free(compiled[id]);
			free(copy);
			dfs_filters_freed(after);
			return e->mod ? -1 : dfs_error_nomem(err);
		}
		for (int id = 0; id < DFS_MOD_KNOWN; id++) {
			dfs_filter_free(e->mod[id].log_filter);
			e->mod[id].log_filter = compiled[id];
		}
		dfs_filters_freed(before);
		free(e->log_filter_text);
		e->log_filter_text = copy;
		clock_gettime(CLOCK_REALTIME, &e->log_filter_written);
	} else {
		struct module_state *ms = dfs_entry_mod_make(e, n->module);
		if (!ms) {
			free(copy);
			return dfs_error_nomem(err);
		}
		dfs_filter *f = dfs_filter_compile_module(dfs_module_get(n->module), text,
		                                       len, false, err);
		size_t before = dfs_filter_memory(ms->filter), after = dfs_filter_memory(f);
		if (!f || charge(v, e, before, after, true, err)) {
			dfs_filter_free(f);
			free(copy);
			dfs_filters_freed(after);
			return -1;
		}
		dfs_filter_free(ms->filter);
		dfs_filters_freed(before);
		ms->filter = f;
		free(ms->filter_text);
		ms->filter_text = copy;
		clock_gettime(CLOCK_REALTIME, &ms->written);
		dfs_entry_set_import(v, e, ms, NULL);
	}
	set_error_text(e, n, NULL);
	dfs_entry_bump(v, e);
	return 0;
}

/* Replace the module's selection with the rows of a CSV (entry locked). */
static int install_import(dfs_view *v, struct entry *e, const struct node *n,
                          const char *data, size_t len, dfs_csv_rows *checked,
                          dfs_error *err)
{
	struct decoded_log *l = dfs_entry_load(v, e, err);
	if (!l)
		return -1;
	const dfs_module *m = dfs_module_get(n->module);
	/* rows may leave columns out (they come from the log's record), so a
	 * short row can stand for a whole record: bound the records too */
	size_t rows = checked ? dfs_csv_rows_newlines(checked, data, len) : SIZE_MAX;
	if (rows == SIZE_MAX) {
		/* (counted as the lines were checked, or now) */
		rows = 0;
		for (const char *p = data; (p = memchr(p, '\n', (size_t)(data + len - p))); p++)
			rows++;
	}
	size_t limit = v->opt.import_limit;
	if (rows > (limit / m->record_size) * 2 + 1)
		return dfs_error_set(err, DFS_ERR_TOOBIG,
		                     "%zu rows would take %zu bytes of %s records, more than "
		                     "twice the import limit (%zu bytes)",
		                     rows, rows * m->record_size, m->name, limit);
	struct import_set *set = malloc(sizeof(*set));
	if (!set)
		return dfs_error_nomem(err);
	atomic_init(&set->refs, 1);
	dfs_records_init(&set->recs, m, m->version);
	/* each import replaces the previous one: reuse its memory warm */
	set->recs.scratch = &v->scratch;
	/* no text at all is no row (what Miller prints for an empty result);
	 * rows checked as they arrived are parsed already */
	int kept = checked ? dfs_csv_rows_finish(checked, l->log, data, len, &set->recs,
	                                         err) : 1;
	if (kept < 0 ||
	    (kept > 0 && len > 0 && dfs_csv_import(l->log, m, data, len, &set->recs, err)) ||
	    dfs_csv_check_unique(&set->recs, err)) {
		dfs_records_free(&set->recs);
		free(set);
		return -1;
	}
	struct module_state *ms = dfs_entry_mod_make(e, n->module);
	if (!ms) {
		dfs_import_release(set);
		return dfs_error_nomem(err);
	}
	dfs_entry_set_import(v, e, ms, set);
	size_t before = dfs_filter_memory(ms->filter);
	charge(v, e, before, 0, true, err);
	dfs_filter_free(ms->filter);
	dfs_filters_freed(before);
	ms->filter = NULL;
	free(ms->filter_text);
	ms->filter_text = NULL;
	clock_gettime(CLOCK_REALTIME, &ms->written);
	set_error_text(e, n, NULL);
	dfs_entry_bump(v, e);
	return 0;
}


static const char *session_text(const dfs_write *w)
{
	return w->text.data ? w->text.data : "";
}

/* ---- what the sessions in progress hold ------------------------------------ */

static void free_pieces(dfs_write *w);

static size_t session_memory(const dfs_write *w)
{
	size_t n = w->text.len + dfs_csv_rows_memory(w->rows);
	for (size_t i = 0; i < w->npieces; i++)
		n += w->pieces[i].len;
	return n;
}

static double mib(size_t bytes)
{
	return (double)bytes / (1024.0 * 1024.0);
}

/* Count what the session holds now.  What the sessions of one user hold
 * together stays within import_limit, those of all users within
 * import_memory: growth past either is refused (DFS_ERR_NOSPACE), after
 * the rows kept of the import were given up (the close parses the text
 * again instead). */
static int charge_session(dfs_write *w, dfs_error *err)
{
	dfs_view *v = w->v;
	size_t now = session_memory(w);
	for (;;) {
		pthread_mutex_lock(&v->lock);
		struct state_gens *g = dfs_state_gens(v, w->n.state);
		size_t *mine = g ? &g->session_bytes : NULL;
		size_t user = (mine ? *mine : w->held) - w->held + now;
		size_t all = v->session_bytes - w->held + now;
		bool over = now > w->held && (user > v->opt.import_limit ||
		                              all > v->opt.import_memory);
		if (!over) {
			if (mine)
				*mine = user;
			v->session_bytes = all;
			w->held = now;
			pthread_mutex_unlock(&v->lock);
			return 0;
		}
		pthread_mutex_unlock(&v->lock);
		if (w->rows && dfs_csv_rows_memory(w->rows) > 4096) {
			dfs_csv_rows_drop(w->rows);
			now = session_memory(w);
			continue;
		}
		if (user > v->opt.import_limit)
			return dfs_error_set(err, DFS_ERR_NOSPACE,
			                     "the writes in progress of this user would hold "
			                     "%.1f MiB, more than the %.1f MiB (import_limit) "
			                     "one user's may: finish or close the others first",
			                     mib(user), mib(v->opt.import_limit));
		return dfs_error_set(err, DFS_ERR_NOSPACE,
		                     "the writes in progress of all users would hold %.1f "
		                     "MiB, more than the %.1f MiB (import_memory) the mount "
		                     "allows: try again later", mib(all),
		                     mib(v->opt.import_memory));
	}
}

/* Let go of the session's text and rows, and of their count. */
static void release_session(dfs_write *w)
{
	dfs_csv_rows_free(w->rows);
	w->rows = NULL;
	if (w->text_pooled) {
		dfs_scratch_free(&w->v->scratch, w->text.data);
		dfs_buf_init(&w->text);
		w->text_pooled = false;
		w->text_faulted = 0;
	}
	dfs_buf_free(&w->text);
	free_pieces(w);
	dfs_view *v = w->v;
	size_t held = w->held;
	pthread_mutex_lock(&v->lock);
	struct state_gens *g = dfs_state_gens(v, w->n.state);
	if (g)
		g->session_bytes -= held < g->session_bytes ? held : g->session_bytes;
	v->session_bytes -= held < v->session_bytes ? held : v->session_bytes;
	w->held = 0;
	pthread_mutex_unlock(&v->lock);
	dfs_view_memory_freed(v, held);
}

/* Record why a session was refused in the filter.error next to it; what
 * it held goes at once (a refused session installs nothing). */
static void refuse(dfs_write *w, dfs_error *err)
{
	if (err->code == DFS_ERR_TOOBIG && !w->import)
		err->code = DFS_ERR_INVAL;
	w->failed = true;
	w->pending = false;
	dfs_view *v = w->v;
	release_session(w);
	if (w->selections) {
		dfs_selections_set_error(v, w->n.state, err->msg);
		return;
	}
	if (w->n.file == F_DIR_FILTER) {
		dfs_dir_filter_set_error(v, w->n.state, w->n.dir_vpath, err->msg);
		return;
	}
	dfs_error ignored;
	struct entry *e = dfs_entry_get(v, &w->n, &ignored);
	if (!e)
		return;
	set_error_text(e, &w->n, err->msg);
	dfs_entry_put(v, e);
}

/* records.csv of a module whose records have no fixed layout (DXT
 * traces, LUSTRE, HEATMAP, ...) cannot be rebuilt from CSV rows: the open
 * for writing is refused, and filter.error beside it says what to do
 * instead. */
static void refuse_import(dfs_write *w, dfs_error *err)
{
	const dfs_module *m = dfs_module_get(w->n.module);
	const char *dir = m ? m->dirname : dfs_module_slot_name(w->n.module);
	bool dxt = w->n.module == DFS_MOD_DXT_POSIX || w->n.module == DFS_MOD_DXT_MPIIO;
	dfs_error_set(err, DFS_ERR_INVAL,
	              "%s/records.csv takes no import: %s takes filters, not imports "
	              "(its records have no fixed layout to rebuild from CSV rows); "
	              "write an expression into %s/filter instead%s",
	              dir, dxt ? "DXT" : dir, dir,
	              dxt ? " (e.g. `echo 'length > 1MiB' > filter`: the segments "
	                    "longer than 1 MiB)" : "");
	refuse(w, err);
}

static bool is_parquet(const struct node *n)
{
	return n->kind == N_FILE && dfs_parquet_source(n->file) >= 0;
}

/* A Parquet twin is a view of its CSV, never an import path: the open
 * for writing is refused (EACCES), and the error file beside it (the
 * module's or the log's filter.error, the directory's, the root's
 * selections.error) says where imports and filters go. */
static void refuse_parquet(dfs_write *w, dfs_error *err)
{
	const char *name = dfs_file_defs[w->n.file].name;
	const char *csv = dfs_file_defs[dfs_parquet_source(w->n.file)].name;
	enum file_level level = dfs_file_defs[w->n.file].level;
	dfs_error_set(err, DFS_ERR_ACCESS,
	              "%s is read-only: it shows %s's rows with their types%s", name, csv,
	              w->n.file == F_RECORDS_PARQUET
	                      ? "; to select rows write a CSV into records.csv or an "
	                        "expression into filter"
	                      : "");
	if (level == LEVEL_ROOT) {
		dfs_selections_set_error(w->v, w->n.state, err->msg);
		return;
	}
	if (level == LEVEL_DIR) {
		dfs_dir_filter_set_error(w->v, w->n.state, w->n.dir_vpath, err->msg);
		return;
	}
	struct node n = w->n;
	n.file = level == LEVEL_MODULE ? F_FILTER : F_LOG_FILTER;
	dfs_error ignored;
	struct entry *e = dfs_entry_get(w->v, &n, &ignored);
	if (!e)
		return;
	set_error_text(e, &n, err->msg);
	dfs_entry_put(w->v, e);
}

/* Is t a valid filter of the log's (or module's) node n, whole or, when
 * more may come, as the beginning of one?  (compiled, then thrown away) */
static int check_log_text(dfs_view *v, struct entry *e, const struct node *n,
                          const char *t, size_t len, bool whole, size_t *bytes,
                          dfs_error *err)
{
	if (!whole) {
		if (n->file != F_LOG_FILTER)
			return dfs_filter_check_prefix(dfs_module_get(n->module), 0, t, len, err);
		uint64_t present = present_modules(e);
		if (!present)
			return dfs_error_set(err, DFS_ERR_INVAL, "this log has no module to filter");
		return dfs_filter_check_prefix(NULL, present, t, len, err);
	}
	/* (and would the state's filters take it?) */
	size_t after;
	if (n->file == F_LOG_FILTER) {
		dfs_filter *compiled[DFS_MOD_SLOTS];
		if (compile_log_filter(e, t, len, compiled, err))
			return -1;
		after = dfs_filter_set_memory(compiled, DFS_MOD_KNOWN);
		for (int id = 0; id < DFS_MOD_SLOTS; id++)
			dfs_filter_free(compiled[id]);
	} else {
		dfs_filter *f = dfs_filter_compile_module(dfs_module_get(n->module), t,
		                                          len, false, err);
		if (!f)
			return -1;
		after = dfs_filter_memory(f);
		dfs_filter_free(f);
	}
	dfs_filters_freed(after);
	*bytes = after;
	return charge(v, e, filter_bytes(e, n), after, false, err);
}

/* Checks of a session's text cost it their bytes times the modules they
 * compile for (and half what the regular expressions of a whole check
 * take); a write is checked while the session has spent less than
 * CHECK_FREE plus CHECK_RATIO times that cost of the text so far.  So a
 * filter sent in a few writes is checked at every one, and one sent a
 * byte at a time (64 KiB in 65536 writes) is checked at fewer and fewer
 * of them, in time linear in its length instead of quadratic; what the
 * last checks missed, the close judges (the whole text, always). */
#define CHECK_FREE ((uint64_t)1 << 20)
#define CHECK_RATIO 8

static bool check_due(const dfs_write *w)
{
	uint64_t cost = (uint64_t)w->text.len * w->check_weight;
	return w->check_spent + cost <= CHECK_FREE + CHECK_RATIO * cost;
}

/* What `selections` takes: "clear", or nothing (blanks around either).
 * Whole: exactly that; else the beginning of it.  Anything else is
 * refused, the text quoted in the reason. */
static const char clear_word[] = "clear";

static int check_selections(const dfs_write *w, bool whole, dfs_error *err)
{
	const char *t = session_text(w);
	size_t a, b;
	trimmed(t, w->text.len, &a, &b);
	size_t n = b - a;
	bool ok = whole ? n == 0 || (n == sizeof(clear_word) - 1 &&
	                             memcmp(t + a, clear_word, n) == 0)
	                : n < sizeof(clear_word) && memcmp(t + a, clear_word, n) == 0;
	if (ok)
		return 0;
	char quoted[48];
	size_t q = 0;
	for (size_t i = a; i < b && q + 4 < sizeof(quoted); i++)
		quoted[q++] = (unsigned char)t[i] < 0x20 ? ' ' : t[i];
	quoted[q] = '\0';
	return dfs_error_set(err, DFS_ERR_INVAL,
	                     "selections takes the word clear (or nothing: `: > "
	                     "selections`), which removes every filter and import "
	                     "you wrote; not '%s%s'", quoted, q < b - a ? "..." : "");
}

/* Is the text so far acceptable?  Whole when it ends with a newline,
 * else as the beginning of a filter (see the top of this file). */
static int check_filter(dfs_write *w, dfs_error *err)
{
	const char *t = session_text(w);
	size_t len = w->text.len, bytes = 0;
	bool whole = len > 0 && t[len - 1] == '\n';
	if (len > DFS_FILTER_MAX_LEN)
		return dfs_error_set(err, DFS_ERR_INVAL, "filter longer than %d bytes",
		                     DFS_FILTER_MAX_LEN);
	if (w->selections)
		return check_selections(w, whole, err);
	int ret;
	if (w->n.file == F_DIR_FILTER) {
		ret = whole ? dfs_dir_filter_check(w->v, w->n.state, w->n.dir_vpath, t,
		                                    len, &bytes, err)
		            : dfs_filter_check_prefix(NULL, ~0ULL, t, len, err);
	} else {
		struct entry *e = dfs_entry_get(w->v, &w->n, err);
		if (!e)
			return -1;
		ret = dfs_entry_peek(w->v, e, &w->n.st, err);
		if (ret == 0)
			ret = check_log_text(w->v, e, &w->n, t, len, whole, &bytes, err);
		dfs_entry_put(w->v, e);
	}
	w->check_spent += (uint64_t)len * w->check_weight + bytes / 2;
	return ret;
}

/* Install the session's text: the new filter or imported rows take
 * effect, every derived file of the log (or the directory) changes. */
static int install(dfs_write *w, dfs_error *err)
{
	dfs_view *v = w->v;
	const char *t = session_text(w);
	if (w->selections) {
		/* every filter and import of the writer's state goes */
		if (check_selections(w, true, err))
			return -1;
		dfs_selections_clear(v, w->n.state);
		dfs_selections_set_error(v, w->n.state, NULL);
		w->pending = false;
		return 0;
	}
	if (w->n.file == F_DIR_FILTER) {
		if (w->text.len > DFS_FILTER_MAX_LEN)
			return dfs_error_set(err, DFS_ERR_INVAL, "filter longer than %d bytes",
			                     DFS_FILTER_MAX_LEN);
		if (dfs_dir_filter_install(v, w->n.state, w->n.dir_vpath, t,
		                           w->text.len, err))
			return -1;
		w->pending = false;
		return 0;
	}
	if (w->import && w->size > w->text.len)
		return dfs_error_set(err, DFS_ERR_INVAL, "bytes %zu to %llu of the CSV "
		                     "were never written", w->text.len,
		                     (unsigned long long)(w->npieces ? w->pieces[0].off
		                                                     : w->size) - 1);
	struct entry *e = dfs_entry_get(v, &w->n, err);
	if (!e)
		return -1;
	int ret = dfs_entry_peek(v, e, &w->n.st, err);
	if (ret == 0)
		ret = w->import ? install_import(v, e, &w->n, t, w->text.len,
		                                 w->lines_unchecked ? NULL : w->rows, err)
		                : install_filter(v, e, &w->n, t, w->text.len, err);
	dfs_entry_put(v, e);
	if (ret == 0)
		w->pending = false;
	return ret;
}

/* A session writes the state of its caller (view_int.h): the owner's, or
 * a user's own, made by their first write. */
dfs_write *dfs_view_open_write(dfs_view *v, const char *path,
                               const dfs_caller *who, bool truncate,
                               dfs_error *err)
{
	dfs_write *w = calloc(1, sizeof(*w));
	if (!w) {
		dfs_error_nomem(err);
		return NULL;
	}
	w->v = v;
	if (dfs_resolve_as(v, path, who, false, &w->n, err)) {
		free(w);
		return NULL;
	}
	w->import = is_import(&w->n);
	w->selections = is_selections(&w->n);
	bool no_import = w->n.kind == N_FILE && w->n.file == F_RECORDS && !w->import;
	bool parquet = is_parquet(&w->n);
	if (!is_filter(&w->n) && !w->import && !no_import && !w->selections && !parquet) {
		dfs_error_set(err, DFS_ERR_INVAL, "%s is read-only", path);
		dfs_write_free(w);
		return NULL;
	}
	if (dfs_node_state(v, &w->n, who, true, err)) {
		dfs_write_free(w);
		return NULL;
	}
	if (no_import) {
		refuse_import(w, err);
		dfs_write_free(w);
		return NULL;
	}
	if (parquet) {
		refuse_parquet(w, err);
		dfs_write_free(w);
		return NULL;
	}
	w->truncated = truncate;
	w->pending = truncate && !w->import;
	w->check_weight = 1;
	/* (the listing read from `selections` is no text to write back) */
	if (w->selections)
		return w;
	if (w->n.file == F_DIR_FILTER) {
		for (int id = 0; id < DFS_MOD_KNOWN; id++)
			w->check_weight += dfs_module_get(id) != NULL;
		if (!truncate) {
			char *cur = dfs_dir_filter_text(v, w->n.state, w->n.dir_vpath,
			                                false);
			if (cur)
				dfs_buf_adds(&w->text, cur);
			free(cur);
		}
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
	if (ret == 0 && w->n.file == F_LOG_FILTER)
		w->check_weight += (unsigned)__builtin_popcountll(present_modules(e));
	if (ret == 0 && !truncate && !w->import) {
		const struct module_state *ms = dfs_entry_mod_find(e, w->n.module);
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
	return w;
}

void dfs_write_set_append(dfs_write *w)
{
	w->append = true;
}

/* Room for one more piece. */
static int reserve_pieces(dfs_write *w, dfs_error *err)
{
	if (w->npieces == MAX_PIECES)
		return dfs_error_set(err, DFS_ERR_NOSPACE, "the CSV was written out of "
		                     "order in more than %d pieces", MAX_PIECES);
	if (w->npieces < w->cap_pieces)
		return 0;
	size_t cap = w->cap_pieces ? w->cap_pieces * 2 : 8;
	struct piece *p = realloc(w->pieces, cap * sizeof(*p));
	if (!p)
		return dfs_error_nomem(err);
	w->pieces = p;
	w->cap_pieces = cap;
	return 0;
}

/* Cut [from, to) out of the pieces (a newer write covers it). */
static int cut_pieces(dfs_write *w, uint64_t from, uint64_t to, dfs_error *err)
{
	for (size_t i = 0; i < w->npieces; i++) {
		struct piece *p = &w->pieces[i];
		uint64_t end = p->off + p->len;
		if (end <= from || p->off >= to)
			continue;
		if (p->off < from && end > to) {
			/* the middle goes: the piece splits in two */
			if (reserve_pieces(w, err))
				return -1;
			p = &w->pieces[i];
			char *tail = malloc((size_t)(end - to));
			if (!tail)
				return dfs_error_nomem(err);
			memcpy(tail, p->data + (to - p->off), (size_t)(end - to));
			memmove(p + 2, p + 1, (w->npieces - i - 1) * sizeof(*p));
			p[1] = (struct piece){to, (size_t)(end - to), tail};
			w->npieces++;
			p->len = (size_t)(from - p->off);
			return 0;
		}
		if (p->off >= from && end <= to) {
			free(p->data);
			memmove(p, p + 1, (w->npieces - i - 1) * sizeof(*p));
			w->npieces--;
			i--;
		} else if (p->off < from) {
			p->len = (size_t)(from - p->off);
		} else {
			memmove(p->data, p->data + (to - p->off), (size_t)(end - to));
			p->len = (size_t)(end - to);
			p->off = to;
		}
	}
	return 0;
}

static void free_pieces(dfs_write *w)
{
	for (size_t i = 0; i < w->npieces; i++)
		free(w->pieces[i].data);
	free(w->pieces);
	w->pieces = NULL;
	w->npieces = w->cap_pieces = 0;
}

/* A piece past the end of the text (the room to keep it made). */
static int add_piece(dfs_write *w, const char *data, size_t len, uint64_t off,
                     dfs_error *err)
{
	if (reserve_pieces(w, err))
		return -1;
	char *copy = malloc(len ? len : 1);
	if (!copy)
		return dfs_error_nomem(err);
	memcpy(copy, data, len);
	size_t i = 0;
	while (i < w->npieces && w->pieces[i].off < off)
		i++;
	memmove(w->pieces + i + 1, w->pieces + i, (w->npieces - i) * sizeof(*w->pieces));
	w->pieces[i] = (struct piece){off, len, copy};
	w->npieces++;
	return 0;
}

/* An import's text, megabytes written 128 KiB at a time: past
 * TEXT_POOLED bytes it lies in a block of the view's pool (the last
 * import's, warm, when the pool kept it), its pages faulted in
 * TEXT_FAULT bytes at a time ahead of the writes, one call each, rather
 * than a page fault every 4 KiB.  On a virtual machine those faults were
 * most of an import's time: 100,000 rows (52 MiB) took 0.45 s, a third
 * of it in faults of malloc's fresh pages, every import again. */
#define TEXT_POOLED ((size_t)1 << 20)
#define TEXT_FAULT ((size_t)2 << 20)

/* Room in an import's text for bytes up to `end` (and its NUL); false
 * without memory (the text as it was). */
static bool import_room(dfs_write *w, size_t end)
{
	if (end >= SIZE_MAX / 2)
		return false;
	dfs_buf *t = &w->text;
	if (end < TEXT_POOLED && !w->text_pooled)
		return true;   /* (dfs_buf grows it) */
	if (!w->text_pooled || end + 1 > t->cap) {
		size_t cap = t->cap * 2 > end + 1 ? t->cap * 2 : end + 1;
		if (cap < 2 * TEXT_POOLED)
			cap = 2 * TEXT_POOLED;
		char *p;
		if (w->text_pooled) {
			/* (grown where it is, or moved by its page tables) */
			p = dfs_scratch_realloc(&w->v->scratch, t->data, t->len + 1, cap);
			if (!p)
				return false;
		} else {
			/* the first time past TEXT_POOLED, a text dfs_buf grew is
			 * moved even where it has room: only a pool's block is
			 * faulted in below (the bytes copied over at once too) */
			p = dfs_scratch_alloc(&w->v->scratch, cap);
			if (!p)
				return false;
			dfs_scratch_prefault(p, 0, t->len + 1);
			if (t->data)
				memcpy(p, t->data, t->len);
			p[t->len] = '\0';
			free(t->data);
			w->text_pooled = true;
		}
		t->data = p;
		t->cap = cap;
		w->text_faulted = t->len + 1;
	}
	if (end + 1 > w->text_faulted) {
		size_t to = (end + 1 + TEXT_FAULT - 1) / TEXT_FAULT * TEXT_FAULT;
		if (to > t->cap)
			to = t->cap;
		dfs_scratch_prefault(t->data, w->text_faulted, to - w->text_faulted);
		w->text_faulted = to;
	}
	return true;
}

/* Pieces the text has reached join it. */
static void absorb_pieces(dfs_write *w)
{
	while (w->npieces && w->pieces[0].off == w->text.len) {
		if (w->import && !import_room(w, w->text.len + w->pieces[0].len)) {
			w->text.oom = true;
			return;
		}
		dfs_buf_add(&w->text, w->pieces[0].data, w->pieces[0].len);
		free(w->pieces[0].data);
		memmove(w->pieces, w->pieces + 1, (w->npieces - 1) * sizeof(*w->pieces));
		w->npieces--;
	}
}

/* Put `len` bytes at `off` into the session's text (up to `limit`). */
static int place(dfs_write *w, const char *data, size_t len, uint64_t off,
                 size_t limit, dfs_error *err)
{
	/* the caller's offset is the size it last saw, which is not the
	 * text's after an import (`cat filter` shows a comment then) */
	if (w->append && !w->import)
		off = w->text.len;
	if (off > limit || len > limit - off) {
		if (w->import)
			return dfs_error_set(err, DFS_ERR_TOOBIG,
			                     "CSV larger than the import limit (%zu bytes)", limit);
		return dfs_error_set(err, DFS_ERR_INVAL, "filter longer than %zu bytes", limit);
	}
	if (w->import && cut_pieces(w, off, off + len, err))
		return -1;
	if (w->import && off > w->text.len) {
		if (len && add_piece(w, data, len, off, err))
			return -1;
	} else {
		if (w->import && !import_room(w, (size_t)off + len))
			return dfs_error_nomem(err);
		/* (a filter's hole, 64 KiB at most, is zeros) */
		if (off > w->text.len &&
		    !dfs_buf_add_zeros(&w->text, (size_t)off - w->text.len))
			return dfs_error_nomem(err);
		/* copied once: over the bytes it replaces, then appended */
		size_t over = w->text.len - (size_t)off < len ? w->text.len - (size_t)off : len;
		if (over)
			memcpy(w->text.data + off, data, over);
		if (len > over)
			dfs_buf_add(&w->text, data + over, len - over);
		absorb_pieces(w);
	}
	if (!dfs_buf_ok(&w->text))
		return dfs_error_nomem(err);
	if (off + len > w->size)
		w->size = off + len;
	if (w->text.len > w->size)
		w->size = w->text.len;
	w->written = true;
	w->pending = true;
	return 0;
}

/* The header once it is complete, then each row as it is completed
 * (see the top of this file). */
static int check_import_lines(dfs_write *w, dfs_error *err)
{
	if (w->lines_unchecked) {
		/* (a hole may lie in the header too) */
		dfs_csv_rows_free(w->rows);
		w->rows = NULL;
		return 0;
	}
	if (!w->header_checked) {
		if (!w->text.len || !memchr(w->text.data, '\n', w->text.len))
			return 0;
		w->header_checked = true;
		const dfs_module *m = dfs_module_get(w->n.module);
		w->rows = dfs_csv_rows_start(m, w->text.data, w->text.len, err);
		if (!w->rows)
			return -1;
		/* as many records as install_import takes */
		dfs_csv_rows_keep(w->rows, (w->v->opt.import_limit / m->record_size) * 2 + 1,
		                  &w->v->scratch);
	}
	if (!w->rows)
		return 0;
	return dfs_csv_rows_feed(w->rows, w->text.data, w->text.len, err);
}

int dfs_write_data(dfs_write *w, const char *data, size_t len, uint64_t off,
                   dfs_error *err)
{
	if (w->failed)
		return dfs_error_set(err, DFS_ERR_INVAL,
		                     "an earlier write to this file was refused");
	size_t limit = w->import ? w->v->opt.import_limit : DFS_FILTER_MAX_LEN;
	/* lines are checked as they arrive only while the text grows at
	 * its end, without holes or rewrites */
	if (w->import && off != w->text.len)
		w->lines_unchecked = true;
	if (place(w, data, len, off, limit, err) || charge_session(w, err)) {
		refuse(w, err);
		return -1;
	}
	if (w->import) {
		if (check_import_lines(w, err) || charge_session(w, err)) {
			refuse(w, err);
			return -1;
		}
		return 0;
	}
	/* a filter is checked at its writes (see check_due); it takes
	 * effect at close */
	if (check_due(w) && check_filter(w, err)) {
		refuse(w, err);
		return -1;
	}
	dfs_error_clear(err);
	return 0;
}

int dfs_write_truncate(dfs_write *w, uint64_t size, dfs_error *err)
{
	if (!w->import && size != 0 && size != w->text.len) {
		/* a filter cut at some byte is no filter anyone meant */
		dfs_error_set(err, DFS_ERR_INVAL, "%s can only be truncated to 0 "
		              "bytes (which clears %s), not to %llu",
		              w->selections ? "selections" : "a filter",
		              w->selections ? "every filter and import" : "it",
		              (unsigned long long)size);
		refuse(w, err);
		return -1;
	}
	size_t limit = w->import ? w->v->opt.import_limit : DFS_FILTER_MAX_LEN;
	if (size > limit)
		return dfs_error_set(err, w->import ? DFS_ERR_TOOBIG : DFS_ERR_INVAL,
		                     "larger than %zu bytes", limit);
	if (w->import && size == 0) {
		/* a new text from its start: checked from its header on */
		dfs_csv_rows_free(w->rows);
		w->rows = NULL;
		w->header_checked = false;
		w->lines_unchecked = false;
	} else if (w->import && size != w->text.len) {
		w->lines_unchecked = true;
	}
	if (size < w->text.len) {
		w->text.len = (size_t)size;
		w->text.data[size] = '\0';
	} else if (!w->import && size > w->text.len &&
	           !dfs_buf_add_zeros(&w->text, (size_t)size - w->text.len)) {
		return dfs_error_nomem(err);
	}
	/* an import's longer size is a hole, until written (see place) */
	if (w->import && cut_pieces(w, size, UINT64_MAX, err)) {
		refuse(w, err);
		return -1;
	}
	w->size = size;
	w->truncated = true;
	w->pending = !w->import || w->written;
	charge_session(w, err);   /* (it shrank, or stayed) */
	return 0;
}

/* close(2) flushes.  So does the close of a duplicate descriptor, which a
 * shell does right after `> filter` opened the file and before it writes:
 * a session that has received no data yet is left alone here. */
int dfs_write_flush(dfs_write *w, dfs_error *err)
{
	w->flushes++;
	if (w->deferred)
		return 0;
	/* (an import that got no data yet is left alone too: `cp empty.csv
	 * records.csv` selects nothing when its last descriptor goes) */
	if (w->failed || !w->pending || !w->written)
		return 0;
	if (install(w, err)) {
		refuse(w, err);
		return -1;
	}
	return 0;
}

/* The last descriptor is gone.  A truncation without data (`: > filter`)
 * clears the filter now; an import truncated and never written selects no
 * record.  Nobody hears about errors any more: they go to filter.error. */
void dfs_write_free(dfs_write *w)
{
	if (!w)
		return;
	dfs_error err = {0};
	if (w->deferred)
		w->failed = true;   /* never committed: nothing happens */
	if (!w->failed && w->import && !w->written && w->truncated)
		w->pending = true;
	if (!w->failed && w->pending && install(w, &err))
		refuse(w, &err);
	release_session(w);
	dfs_node_free(&w->n);
	free(w);
}

int dfs_view_truncate(dfs_view *v, const char *path, const dfs_caller *who,
                      uint64_t size, dfs_error *err)
{
	dfs_write *w = dfs_view_open_write(v, path, who, size == 0, err);
	if (!w)
		return -1;
	int ret = dfs_write_truncate(w, size, err);
	/* (`truncate -s 0 records.csv` selects no record) */
	if (ret == 0 && (!w->import || size == 0) && (ret = install(w, err)) != 0)
		refuse(w, err);
	w->pending = false;
	w->truncated = false;
	dfs_write_free(w);
	return ret;
}

/* ---- a temporary file renamed onto records.csv ---------------------------------- */

/* Tools that write a file whole write a temporary file beside it and
 * rename it over the target (DuckDB's COPY TO writes tmp_records.csv).
 * The front end keeps such a file as a deferred import session of the
 * directory's records.csv: its lines are checked as they arrive, and the
 * rename installs it. */

#define TEMP_NAME_MAX 255

bool dfs_view_temp_allowed(dfs_view *v, const char *dir, const char *name)
{
	size_t len = strlen(name);
	if (len == 0 || len > TEMP_NAME_MAX || strchr(name, '/') ||
	    !strstr(name, "records.csv") || strcmp(name, "records.csv") == 0)
		return false;
	dfs_buf path = DFS_BUF_INIT;
	dfs_buf_printf(&path, "%s/records.csv", strcmp(dir, "/") ? dir : "");
	struct node n;
	dfs_error err;
	bool ok = false;
	if (dfs_buf_ok(&path) && dfs_resolve(v, path.data, &n, &err) == 0) {
		ok = is_import(&n);
		dfs_node_free(&n);
	}
	if (ok) {
		/* a name of the tree is never a temporary file */
		dfs_buf_reset(&path);
		dfs_buf_printf(&path, "%s/%s", strcmp(dir, "/") ? dir : "", name);
		if (dfs_buf_ok(&path) && dfs_resolve(v, path.data, &n, &err) == 0) {
			dfs_node_free(&n);
			ok = false;
		}
	}
	dfs_buf_free(&path);
	return ok;
}

dfs_write *dfs_view_open_deferred(dfs_view *v, const char *dir,
                                  const dfs_caller *who, dfs_error *err)
{
	dfs_buf path = DFS_BUF_INIT;
	dfs_buf_printf(&path, "%s/records.csv", strcmp(dir, "/") ? dir : "");
	if (!dfs_buf_ok(&path)) {
		dfs_buf_free(&path);
		dfs_error_nomem(err);
		return NULL;
	}
	dfs_write *w = dfs_view_open_write(v, path.data, who, true, err);
	dfs_buf_free(&path);
	if (w && !w->import) {
		dfs_write_free(w);
		dfs_error_set(err, DFS_ERR_INVAL, "%s/records.csv takes no import", dir);
		return NULL;
	}
	if (w)
		w->deferred = true;
	return w;
}

int dfs_write_commit(dfs_write *w, dfs_error *err)
{
	if (w->failed)
		/* (filter.error holds the reason already) */
		return dfs_error_set(err, DFS_ERR_INVAL,
		                     "a write to this file was refused");
	w->pending = true;
	if (install(w, err)) {
		refuse(w, err);
		return -1;
	}
	w->failed = true;   /* done: nothing more happens */
	return 0;
}

size_t dfs_write_size(const dfs_write *w)
{
	return w->import ? (size_t)w->size : w->text.len;
}

size_t dfs_write_read(const dfs_write *w, char *buf, size_t size, uint64_t off)
{
	uint64_t end = dfs_write_size(w);
	if (off >= end)
		return 0;
	size_t n = end - off < size ? (size_t)(end - off) : size;
	/* the text, the pieces past it and zeros between (holes) */
	memset(buf, 0, n);
	if (off < w->text.len)
		memcpy(buf, w->text.data + off,
		       w->text.len - off < n ? (size_t)(w->text.len - off) : n);
	for (size_t i = 0; i < w->npieces; i++) {
		const struct piece *p = &w->pieces[i];
		uint64_t a = p->off > off ? p->off : off;
		uint64_t b = p->off + p->len < off + n ? p->off + p->len : off + n;
		if (a < b)
			memcpy(buf + (a - off), p->data + (a - p->off), (size_t)(b - a));
	}
	return n;
}
