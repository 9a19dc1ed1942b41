/* jobs.c - jobs.csv: one row per (log, module with an accumulator) for
 * every log below a directory, plus a POSIX+STDIO row per log, with the
 * numbers that log's own derived_metrics shows for its current selection
 * and the filters that made it (the caller's: view_int.h, "Whose state");
 * and insights.csv, the rows of every log's insights.csv with its path;
 * and summary.html of a directory, drawn from its jobs.csv; and files.csv,
 * every log's files (tables.h) summed by module and file name.
 *
 * The source subtree is walked on each request; logs are summarized in
 * parallel on all cores, through the LRU cache (a tree of 100,000 logs
 * never needs them all decoded at once), and each log's summary is kept
 * in its entry until the log file or a filter changes, or the cache
 * evicts it (counted in cache_size, after the decoded logs).  A rendered
 * jobs.csv is reused for a second (the kernel asks for its size and then
 * reads it) unless a filter of its caller's state changed meanwhile (or a
 * log was found changed on disk), counted in cache_size too, and dropped
 * when its second is up.  Both are checked against the generations of
 * their own state only (view_int.h): another user's writes leave them. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "darshanfs/csv.h"
#include "darshanfs/hash.h"
#include "darshanfs/summary.h"
#include "darshanfs/tables.h"
#include "util/workers.h"
#include "view/view_int.h"

#define COMBINED (-1)
#define MAX_ROWS 8
#define CACHE_SECONDS 1.0
#define CACHE_SLOTS 16
#define MAX_DEPTH 64      /* directories below a jobs.csv walked into */
#define STR_(x) #x
#define STR(x) STR_(x)

static const char header[] =
	"log,module,exe,jobid,uid,nprocs,start_time,end_time,run_time,partial,"
	"records,total_bytes,bytes_read,bytes_written,total_files,read_only_files,"
	"write_only_files,read_write_files,unique_files,shared_files,"
	"time_by_slowest,perf_by_slowest,error,filters\n";

/* One row: what jobs.csv prints of the derived metrics, not all of them
 * (the summaries of every log of a tree are kept). */
enum { FILES_ALL, FILES_RO, FILES_WO, FILES_RW, FILES_UNIQUE, FILES_SHARED, FILES_KINDS };

struct job_row {
	int module;                 /* module id or COMBINED */
	bool partial;
	bool ok;
	uint64_t records;
	int64_t total_bytes, bytes_read, bytes_written;
	int64_t files[FILES_KINDS];
	double time_by_slowest, perf_by_slowest;
	char *error;
	char *filters;              /* the filters of the selection, on one line */
};

/* A log's files for a directory's files.csv (tables.h), shared by the
 * job summary that keeps it and the renderings that merge it. */
struct files_ref {
	atomic_int refs;
	dfs_log_files *lf;
};

static struct files_ref *files_ref(struct files_ref *f)
{
	if (f)
		atomic_fetch_add(&f->refs, 1);
	return f;
}

static void files_release(struct files_ref *f)
{
	if (f && atomic_fetch_sub(&f->refs, 1) == 1) {
		dfs_log_files_free(f->lf);
		free(f);
	}
}

struct job_summary {
	uint64_t gen, dir_gen;
	struct src_id src;          /* the version of the log summarized */
	char *error;                /* the log cannot be read */
	char *exe;
	int64_t jobid, uid, nprocs, start, end;
	double run_time;
	/* the log's insights.csv rows (each led by "<rel>,"), NULL until
	 * a directory's insights.csv asks */
	char *insights;
	char *insights_rel;
	/* the log's files (a directory's files.csv), NULL until one asks */
	struct files_ref *files;
	size_t nrows;
	struct job_row rows[];      /* nrows of them */
};

static void row_metrics(struct job_row *r, const dfs_derived_metrics *dm)
{
	const dfs_category_counters *cc = dm->category_counters;
	r->total_bytes = dm->total_bytes;
	r->bytes_read = cc[DFS_ALL_FILES].total_read_volume_bytes;
	r->bytes_written = cc[DFS_ALL_FILES].total_write_volume_bytes;
	r->files[FILES_ALL] = cc[DFS_ALL_FILES].count;
	r->files[FILES_RO] = cc[DFS_RO_FILES].count;
	r->files[FILES_WO] = cc[DFS_WO_FILES].count;
	r->files[FILES_RW] = cc[DFS_RW_FILES].count;
	r->files[FILES_UNIQUE] = cc[DFS_UNIQ_FILES].count;
	r->files[FILES_SHARED] = cc[DFS_SHARED_FILES].count + cc[DFS_PART_SHARED_FILES].count;
	r->time_by_slowest = dm->agg_time_by_slowest;
	r->perf_by_slowest = dm->agg_perf_by_slowest;
}

static void job_summary_free(struct job_summary *s)
{
	if (!s)
		return;
	free(s->error);
	free(s->exe);
	free(s->insights);
	free(s->insights_rel);
	files_release(s->files);
	for (size_t i = 0; i < s->nrows; i++) {
		free(s->rows[i].error);
		free(s->rows[i].filters);
	}
	free(s);
}

/* What a summary holds, counted in the cache (strings with their NUL) */
static size_t str_bytes(const char *t)
{
	return t ? strlen(t) + 1 : 0;
}

static size_t job_summary_bytes(const struct job_summary *s)
{
	size_t n = sizeof(*s) + s->nrows * sizeof(s->rows[0]) + str_bytes(s->error) +
	           str_bytes(s->exe) + str_bytes(s->insights) + str_bytes(s->insights_rel) +
	           (s->files ? sizeof(*s->files) + dfs_log_files_memory(s->files->lf) : 0);
	for (size_t i = 0; i < s->nrows; i++)
		n += str_bytes(s->rows[i].error) + str_bytes(s->rows[i].filters);
	return n;
}

/* ---- one log ------------------------------------------------------------------ */

static struct job_summary *summarize(dfs_view *v, struct entry *e,
                                     uint64_t dir_gen)
{
	struct job_summary *s = calloc(1, sizeof(*s) + MAX_ROWS * sizeof(s->rows[0]));
	if (!s)
		return NULL;
	dfs_error err = {0};
	struct loaded *l = dfs_entry_load(v, e, &err);
	s->gen = e->gen;
	s->dir_gen = dir_gen;
	s->src = e->loaded_id;
	if (!l) {
		s->error = strdup(err.msg[0] ? err.msg : "unreadable log");
		return s;
	}
	const dfs_job *j = dfs_log_job(l->log);
	s->exe = strdup(j->exe);
	s->jobid = j->jobid;
	s->uid = j->uid;
	s->nprocs = j->nprocs;
	s->start = j->start_sec;
	s->end = j->end_sec;
	s->run_time = j->run_time;
	const dfs_log_header *h = dfs_log_get_header(l->log);
	bool posix = false, stdio = false;
	for (int id = 0; id < DFS_MOD_KNOWN && s->nrows < MAX_ROWS - 1; id++) {
		const dfs_log_module *lm = dfs_log_get_module(l->log, id);
		if (!lm->present || !lm->module || !lm->module->accumulator)
			continue;
		posix |= id == DFS_MOD_POSIX;
		stdio |= id == DFS_MOD_STDIO;
		struct job_row *r = &s->rows[s->nrows++];
		r->module = id;
		r->partial = (h->partial_flag >> id) & 1;
		struct selection *sel = dfs_selection_metrics(v, e, l, id);
		const char *why = dfs_selection_metrics_error(sel);
		if (why) {
			r->error = strdup(why);
			continue;
		}
		r->ok = true;
		r->records = sel->count;
		row_metrics(r, &sel->dm);
	}
	if (posix && stdio) {
		struct job_row *r = &s->rows[s->nrows++];
		r->module = COMBINED;
		r->partial = ((h->partial_flag >> DFS_MOD_POSIX) & 1) ||
		             ((h->partial_flag >> DFS_MOD_STDIO) & 1);
		const dfs_derived_metrics *dm = dfs_combined_metrics(v, e, l);
		if (dm) {
			r->ok = true;
			row_metrics(r, dm);
			r->records = s->rows[0].records;
			for (size_t k = 0; k + 1 < s->nrows; k++)
				if (s->rows[k].module == DFS_MOD_STDIO)
					r->records += s->rows[k].records;
		} else {
			r->error = strdup("combined metrics unavailable");
		}
	}
	for (size_t i = 0; i < s->nrows; i++) {
		dfs_buf b = DFS_BUF_INIT;
		dfs_filters_line(v, e, s->rows[i].module, &b);
		if (b.len && dfs_buf_ok(&b))
			s->rows[i].filters = strndup(b.data, b.len);
		dfs_buf_free(&b);
	}
	struct job_summary *fit = realloc(s, sizeof(*s) + s->nrows * sizeof(s->rows[0]));
	return fit ? fit : s;
}

static void add_double(dfs_buf *b, double d)
{
	dfs_buf_add_double(b, d);
}

/* the last column: the row's filters ("" when none), then the line's end */
static void add_filters(dfs_buf *out, const struct job_row *r)
{
	dfs_buf_addc(out, ',');
	if (r->filters)
		dfs_csv_field(out, r->filters, strlen(r->filters));
	dfs_buf_addc(out, '\n');
}

static void render_rows(const struct job_summary *s, const char *rel, dfs_buf *out)
{
	if (s->error) {
		dfs_csv_field(out, rel, strlen(rel));
		dfs_buf_adds(out, ",,,,,,,,,,,,,,,,,,,,,,");
		dfs_csv_field(out, s->error, strlen(s->error));
		dfs_buf_adds(out, ",\n");
		return;
	}
	/* a log without any module that has an accumulator still gets a row
	 * with its job fields */
	static const struct job_row none = {.module = -2};
	size_t nrows = s->nrows ? s->nrows : 1;
	for (size_t i = 0; i < nrows; i++) {
		const struct job_row *r = s->nrows ? &s->rows[i] : &none;
		dfs_csv_field(out, rel, strlen(rel));
		dfs_buf_addc(out, ',');
		dfs_buf_adds(out, r->module == COMBINED ? "POSIX+STDIO" :
		                  r->module < 0 ? "" : dfs_module_get(r->module)->name);
		dfs_buf_addc(out, ',');
		dfs_csv_field(out, s->exe, strlen(s->exe));
		dfs_buf_printf(out, ",%lld,%lld,%lld,%lld,%lld,", (long long)s->jobid,
		               (long long)s->uid, (long long)s->nprocs, (long long)s->start,
		               (long long)s->end);
		add_double(out, s->run_time);
		dfs_buf_printf(out, ",%d,", r->partial ? 1 : 0);
		if (!r->ok) {
			dfs_buf_adds(out, ",,,,,,,,,,,,");
			if (r->error)
				dfs_csv_field(out, r->error, strlen(r->error));
			add_filters(out, r);
			continue;
		}
		dfs_buf_printf(out, "%llu,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,",
		               (unsigned long long)r->records, (long long)r->total_bytes,
		               (long long)r->bytes_read, (long long)r->bytes_written,
		               (long long)r->files[FILES_ALL], (long long)r->files[FILES_RO],
		               (long long)r->files[FILES_WO], (long long)r->files[FILES_RW],
		               (long long)r->files[FILES_UNIQUE], (long long)r->files[FILES_SHARED]);
		add_double(out, r->time_by_slowest);
		dfs_buf_addc(out, ',');
		add_double(out, r->perf_by_slowest);
		dfs_buf_addc(out, ',');
		add_filters(out, r);
	}
}

/* ---- the walk ------------------------------------------------------------------- */

struct log_item {
	char *rel;       /* path relative to the jobs.csv directory */
	char *src;
	char *vpath;
	struct src_id id;    /* the version the walk judged the caller on */
	const char *error;   /* not a log: a directory not walked, and why */
	uint64_t stored;     /* bytes the log holds on disk */
	dfs_buf rows;
	/* files.csv: the log's files and its job's start, or why it is left
	 * out */
	struct files_ref *files;
	int64_t start;
	char *skip;
};

struct walk {
	bool insights;           /* insights.csv, not jobs.csv */
	struct log_item *items;
	size_t n, cap;
	bool oom;
	const dfs_caller *who;   /* shows only what it may read (NULL: all) */
	const struct path_check *chk;   /* its search permission (NULL: all) */
	dfs_view *v;
};

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A new item at the end of the walk, zeroed; NULL when memory runs out. */
static struct log_item *add_item(struct walk *w)
{
	if (w->n == w->cap) {
		size_t c = w->cap ? w->cap * 2 : 256;
		struct log_item *it = realloc(w->items, c * sizeof(*it));
		if (!it) {
			w->oom = true;
			return NULL;
		}
		w->items = it;
		w->cap = c;
	}
	struct log_item *it = &w->items[w->n++];
	memset(it, 0, sizeof(*it));
	dfs_buf_init(&it->rows);
	return it;
}

/* A directory too deep to walk gets a row that says so. */
static void too_deep(struct walk *w, const char *rel)
{
	struct log_item *it = add_item(w);
	if (it && !(it->rel = strdup(rel))) {
		w->oom = true;
		w->n--;
	} else if (it) {
		it->error = "directory nested deeper than " STR(MAX_DEPTH)
		            " levels below this jobs.csv: its logs are not summarized";
	}
}

static void walk_dir(struct walk *w, const char *src, const char *rel,
                     const char *vpath, int depth)
{
	if (depth > MAX_DEPTH) {
		too_deep(w, rel);
		return;
	}
	DIR *d = opendir(src);
	if (!d)
		return;
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    strlen(de->d_name) >= 256 || dfs_file_def_by_name(LEVEL_DIR, de->d_name) ||
		    (!strcmp(vpath, "/") && dfs_file_def_by_name(LEVEL_ROOT, de->d_name)))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			char **nn = realloc(names, cap * sizeof(char *));
			if (!nn) {
				w->oom = true;
				break;
			}
			names = nn;
		}
		if ((names[n] = strdup(de->d_name)))
			n++;
	}
	closedir(d);
	if (n > 1)   /* (an empty directory has no array: qsort wants one) */
		qsort(names, n, sizeof(char *), cmp_name);
	for (size_t i = 0; i < n; i++) {
		char *path = dfs_path_join(src, names[i]);
		char *r = *rel ? dfs_path_join(rel, names[i]) : strdup(names[i]);
		char *vp = dfs_path_join(vpath, names[i]);
		struct stat st;
		char *real = NULL;
		int kind = path && r && vp ? dfs_source_kind(w->v, path, names[i], &st,
		                                             w->chk, &real) : -1;
		/* what the caller could not reach on disk is not there for it:
		 * no row, no error row (a directory is walked by those who
		 * may list and search it, as find would; a link by those who
		 * may search every directory it leads through) */
		if (kind == N_SRCDIR && !dfs_may_access(w->who, path, &st, 5))
			kind = -1;
		else if (kind == N_LOGDIR && !dfs_may_access(w->who, real ? real : path, &st, 4))
			kind = -1;
		free(real);
		if (kind == N_SRCDIR) {
			walk_dir(w, path, r, vp, depth + 1);
		} else if (kind == N_LOGDIR) {
			struct log_item *it = add_item(w);
			if (it) {
				it->rel = r;
				it->src = path;
				it->vpath = vp;
				dfs_src_id(&it->id, &st);
				it->stored = dfs_stored_size(&st);
				r = path = vp = NULL;
			}
		}
		free(path);
		free(r);
		free(vp);
		free(names[i]);
	}
	free(names);
}

struct pool {
	bool insights;
	dfs_view *v;
	const dfs_caller *who;   /* whose filters the rows follow */
	struct log_item *items;
	size_t n;
	atomic_size_t next;
	/* what the logs being summarized may inflate to, together (see
	 * inflating) */
	pthread_mutex_t lock;
	pthread_cond_t room;
	size_t inflating, cap;
};

/* insights.csv rows of a log, kept with its summary (entry locked) */
static void render_insights(dfs_view *v, struct entry *e, const char *rel,
                            dfs_buf *out)
{
	struct job_summary *s = e->summary;
	if (!s || !s->insights || strcmp(s->insights_rel, rel) != 0) {
		dfs_buf b = DFS_BUF_INIT;
		dfs_insight_rows(v, e, rel, &b);
		dfs_buf_addc(&b, '\0');
		if (!s || !dfs_buf_ok(&b)) {
			if (dfs_buf_ok(&b))
				dfs_buf_add(out, b.data, b.len - 1);
			dfs_buf_free(&b);
			return;
		}
		size_t before = str_bytes(s->insights) + str_bytes(s->insights_rel);
		free(s->insights);
		free(s->insights_rel);
		s->insights = dfs_buf_detach(&b, NULL);
		s->insights_rel = strdup(rel);
		if (!s->insights_rel) {
			free(s->insights);
			s->insights = NULL;
			dfs_entry_account_summary(v, e, -(long)before);
			dfs_insight_rows(v, e, rel, out);
			return;
		}
		dfs_entry_account_summary(v, e, (long)(str_bytes(s->insights) +
		                                       str_bytes(s->insights_rel)) -
		                                (long)before);
	}
	dfs_buf_adds(out, s->insights);
}

static void insight_error(const char *rel, const char *error, dfs_buf *out)
{
	dfs_csv_field(out, rel, strlen(rel));
	dfs_buf_adds(out, ",D_UNREADABLE,WARN,,");
	dfs_csv_field(out, error, strlen(error));
	dfs_buf_adds(out, DFS_INSIGHTS_EMPTY_TAIL);
}

/* Make e's job summary fresh: the log file, its filters and the
 * state's directory filters it was made with (entry locked). */
/* The entry's job summary made fresh (kept) or touched.  A caller judged
 * on the walk's version `id` of the log reads that version's summary, or
 * none (see entry.expect): returns whether the caller is judged so, and
 * then the row is the caller's only when the summary is of that version
 * (judged_out below). */
static bool fresh_summary(dfs_view *v, const dfs_caller *who, struct entry *e,
                          const struct src_id *id)
{
	pthread_mutex_lock(&v->lock);
	uint64_t dir_gen = dfs_state_dir_gen(v, e->state);
	pthread_mutex_unlock(&v->lock);
	bool judged = dfs_access_judged(v, who);
	if (judged)
		dfs_entry_expect(e, id);
	struct stat st;
	bool fresh = e->summary && e->summary->gen == e->gen &&
	             e->summary->dir_gen == dir_gen &&
	             (judged ? dfs_src_id_same(&e->summary->src, id)
	                     : stat(e->src, &st) == 0 && dfs_src_same(&e->summary->src, &st));
	if (!fresh) {
		struct job_summary *s = summarize(v, e, dir_gen);
		if (s && e->expect_refused)
			job_summary_free(s);   /* of no version: the file moved */
		else if (s)
			dfs_entry_keep_summary(v, e, s, job_summary_bytes(s), job_summary_free);
	} else {
		dfs_entry_touch_summary(v, e);
	}
	return judged;
}

/* The log was replaced after the walk judged the caller on it: no row,
 * as for what the caller may not read. */
static bool judged_out(const struct entry *e, const struct src_id *id)
{
	return e->expect_refused || !e->summary || e->summary->src.dev != id->dev ||
	       e->summary->src.ino != id->ino;
}

static void summarize_item(dfs_view *v, const dfs_caller *who,
                           struct log_item *it, bool insights)
{
	if (it->error && insights) {
		insight_error(it->rel, it->error, &it->rows);
		return;
	}
	if (it->error) {
		struct job_summary s = {0};
		s.error = (char *)it->error;
		render_rows(&s, it->rel, &it->rows);
		return;
	}
	struct node n;
	memset(&n, 0, sizeof(n));
	n.src = it->src;
	n.log_vpath = it->vpath;
	n.module = -1;
	n.kind = N_LOGDIR;
	dfs_error err = {0};
	struct entry *e = dfs_node_state(v, &n, who, false, &err) ? NULL
	                                                          : dfs_entry_get(v, &n, &err);
	if (!e && insights) {
		insight_error(it->rel, err.msg, &it->rows);
		return;
	}
	if (!e) {
		struct job_summary s = {0};
		s.error = err.msg;
		render_rows(&s, it->rel, &it->rows);
		return;
	}
	bool judged = fresh_summary(v, who, e, &it->id);
	if (!e->expect_refused && insights)
		render_insights(v, e, it->rel, &it->rows);
	else if (!e->expect_refused && e->summary)
		render_rows(e->summary, it->rel, &it->rows);
	/* replaced after the walk judged it: no row, as for what the
	 * caller may not read */
	if (judged && judged_out(e, &it->id))
		dfs_buf_reset(&it->rows);
	dfs_entry_put(v, e);
}

/* Logs are summarized on all cores, each decoded (unless the cache has
 * it) as far as its inflate limit allows: 256 times what it holds on disk
 * (dfs_log_inflate_limit).  Those being summarized at once may inflate to
 * a quarter of the machine's memory together, or cache_size if that is
 * more (at least INFLATING_MIN: sixteen small logs); one always runs,
 * whatever its limit.  (Real logs inflate 4 to 90 times: the bound
 * matters for logs made to inflate as far as they may, on many cores.) */
#define INFLATING_MIN ((size_t)256 << 20)

static size_t inflating_cap(const dfs_view *v)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	size_t quarter = pages > 0 && page > 0 ? (size_t)pages / 4 * (size_t)page : 0;
	size_t cap = v->opt.cache_size > quarter ? v->opt.cache_size : quarter;
	return cap > INFLATING_MIN ? cap : INFLATING_MIN;
}
static void inflating(struct pool *p, size_t bytes, bool start)
{
	pthread_mutex_lock(&p->lock);
	if (start) {
		while (p->inflating && p->inflating + bytes > p->cap)
			pthread_cond_wait(&p->room, &p->lock);
		p->inflating += bytes;
	} else {
		p->inflating -= bytes;
		pthread_cond_broadcast(&p->room);
	}
	pthread_mutex_unlock(&p->lock);
}

static void *worker(void *arg)
{
	struct pool *p = arg;
	for (;;) {
		size_t i = atomic_fetch_add(&p->next, 1);
		if (i >= p->n)
			break;
		size_t limit = p->items[i].error ? 0 : dfs_log_inflate_limit(p->items[i].stored);
		inflating(p, limit, true);
		summarize_item(p->v, p->who, &p->items[i], p->insights);
		inflating(p, limit, false);
	}
	return NULL;
}

static void summarize_all(dfs_view *v, const dfs_caller *who,
                          struct log_item *items, size_t n, bool insights)
{
	struct pool p = {insights, v, who, items, n, 0, PTHREAD_MUTEX_INITIALIZER,
	                 PTHREAD_COND_INITIALIZER, 0, inflating_cap(v)};
	dfs_workers_run(dfs_workers(DFS_WORKERS_MAX, n), worker, &p);
	pthread_mutex_destroy(&p.lock);
	pthread_cond_destroy(&p.room);
}

/* ---- files.csv ---------------------------------------------------------------- */

/* The log's files, for its job summary: each module with per-file
 * records, from its selection (entry locked); a module that cannot be
 * read is named with why. */
static struct files_ref *log_files(dfs_view *v, struct entry *e, struct loaded *l)
{
	struct files_ref *f = malloc(sizeof(*f));
	dfs_log_files *lf = dfs_log_files_new();
	if (!f || !lf) {
		free(f);
		dfs_log_files_free(lf);
		return NULL;
	}
	atomic_init(&f->refs, 1);
	f->lf = lf;
	bool ok = true;
	for (int id = 0; id < DFS_MOD_KNOWN && ok; id++) {
		const dfs_log_module *lm = dfs_log_get_module(l->log, id);
		if (!lm->present || !dfs_tables_module(lm->module))
			continue;
		struct selection *sel = dfs_selection(v, e, l, id);
		dfs_error err = {0};
		dfs_file_table t;
		if (sel->status != DFS_OK) {
			ok = dfs_log_files_error(lf, id, sel->error ? sel->error : "unreadable") == 0;
		} else if (dfs_file_table_build(l->log, sel->records, sel->index, sel->count,
		                                &v->scratch, &t, &err)) {
			ok = dfs_log_files_error(lf, id, err.msg) == 0;
		} else {
			ok = dfs_log_files_add(lf, &t) == 0;
			dfs_file_table_free(&t);
		}
	}
	if (!ok) {
		files_release(f);
		return NULL;
	}
	return f;
}

static void files_item(dfs_view *v, const dfs_caller *who, struct log_item *it)
{
	if (it->error)
		return;
	struct node n;
	memset(&n, 0, sizeof(n));
	n.src = it->src;
	n.log_vpath = it->vpath;
	n.module = -1;
	n.kind = N_LOGDIR;
	dfs_error err = {0};
	struct entry *e = dfs_node_state(v, &n, who, false, &err) ? NULL
	                                                          : dfs_entry_get(v, &n, &err);
	if (!e) {
		it->skip = strdup(err.msg[0] ? err.msg : "unreadable log");
		return;
	}
	if (fresh_summary(v, who, e, &it->id) && judged_out(e, &it->id)) {
		dfs_entry_put(v, e);
		return;   /* no row */
	}
	struct job_summary *s = e->summary;
	if (s && !s->error && !s->files) {
		struct loaded *l = dfs_entry_load(v, e, &err);
		if (!l) {
			it->skip = strdup(err.msg[0] ? err.msg : "unreadable log");
		} else if ((s->files = log_files(v, e, l))) {
			dfs_entry_account_summary(v, e, (long)(sizeof(*s->files) +
			                                       dfs_log_files_memory(s->files->lf)));
		}
	}
	if (it->skip) {
		/* said above */
	} else if (!s || (!s->error && !s->files)) {
		it->skip = strdup("out of memory");
	} else if (s->error) {
		it->skip = strdup(s->error);
	} else {
		it->files = files_ref(s->files);
		it->start = s->start;
	}
	dfs_entry_put(v, e);
}

struct files_pool {
	dfs_view *v;
	const dfs_caller *who;
	struct log_item *items;
	size_t n;
	atomic_size_t next;
};

static void *files_worker(void *arg)
{
	struct files_pool *p = arg;
	for (;;) {
		size_t i = atomic_fetch_add(&p->next, 1);
		if (i >= p->n)
			break;
		files_item(p->v, p->who, &p->items[i]);
	}
	return NULL;
}

/* Logs whose files are held at once while merging: the per-log parts are
 * made in parallel a batch at a time, then merged in the table's order
 * (so that sums and ties come out the same on every read), and let go. */
#define FILES_BATCH 256

/* The merged files of the walked logs, rendered into out. */
static int merge_files(dfs_view *v, const dfs_caller *who, struct log_item *items,
                       size_t n, dfs_buf *out, dfs_error *err)
{
	dfs_files_merge *fm = dfs_files_merge_new(v->opt.cache_size);
	if (!fm)
		return dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
	int ret = 0;
	for (size_t from = 0; from < n && ret == 0; from += FILES_BATCH) {
		size_t count = n - from < FILES_BATCH ? n - from : FILES_BATCH;
		struct files_pool p = {v, who, items + from, count, 0};
		dfs_workers_run(dfs_workers(DFS_WORKERS_MAX, count), files_worker, &p);
		for (size_t i = from; i < from + count; i++) {
			struct log_item *it = &items[i];
			if (ret == 0 && (it->error || it->skip))
				ret = dfs_files_merge_skip(fm, it->rel, it->error ? it->error : it->skip,
				                           err);
			else if (ret == 0 && it->files)
				ret = dfs_files_merge_add(fm, it->rel, it->start, it->files->lf, err);
			files_release(it->files);
			it->files = NULL;
			free(it->skip);
			it->skip = NULL;
		}
	}
	if (ret == 0)
		ret = dfs_files_merge_render(fm, out, err);
	dfs_files_merge_free(fm);
	return ret;
}

/* ---- cache of rendered files ----------------------------------------------------- */

/* What a rendered file was made from: the filters of its caller's state
 * (dfs_caller_state) at that state's change_gen, the logs on disk at the
 * view's source_gen. */
struct jobs_gens {
	uint64_t state, change_gen, source_gen;
};

struct jobs_cache {
	struct {
		char *vpath;
		uint64_t who;           /* caller_key of whom it was made for */
		struct jobs_gens gens;
		struct timespec made;
		dfs_content *content;
		size_t bytes;           /* counted in the cache */
	} slot[CACHE_SLOTS];
	size_t next;
};

static double since(const struct timespec *t)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

/* Callers that see the same logs through the same filters share
 * rendered files: the key of the owner who sees all is 0, of others
 * their ids and groups (a user's own filters go with their id). */
static uint64_t caller_key(const dfs_view *v, const dfs_caller *who)
{
	if (!who || (who->uid == 0 && (!v->opt.per_user || v->opt.owner == 0)))
		return 0;
	uint64_t h = dfs_fnv1a(DFS_FNV1A_INIT, &who->uid, sizeof(who->uid));
	h = dfs_fnv1a(h, &who->gid, sizeof(who->gid));
	const gid_t *groups;
	size_t ngroups = dfs_caller_groups(who, &groups);
	h = dfs_fnv1a(h, groups, ngroups * sizeof(gid_t));
	return h | 1;
}

/* Has the slot's file aged or a write changed what it was made from?
 * (view->lock held) */
static bool slot_stale(dfs_view *v, const struct jobs_cache *jc, size_t i)
{
	const struct jobs_gens *g = &jc->slot[i].gens;
	return g->change_gen != dfs_state_change_gen(v, g->state) ||
	       g->source_gen != v->source_gen ||
	       since(&jc->slot[i].made) >= CACHE_SECONDS;
}

static void slot_clear(dfs_view *v, struct jobs_cache *jc, size_t i)
{
	free(jc->slot[i].vpath);
	jc->slot[i].vpath = NULL;
	dfs_content_release(jc->slot[i].content);
	jc->slot[i].content = NULL;
	dfs_view_account_jobs(v, -(long)jc->slot[i].bytes);
	jc->slot[i].bytes = 0;
}

static dfs_content *cache_find(dfs_view *v, const char *vpath, uint64_t who)
{
	dfs_content *c = NULL;
	pthread_mutex_lock(&v->lock);
	struct jobs_cache *jc = v->jobs;
	for (size_t i = 0; jc && i < CACHE_SLOTS; i++) {
		if (!jc->slot[i].vpath)
			continue;
		if (slot_stale(v, jc, i)) {
			/* stale: its text need not wait for the slot's reuse */
			slot_clear(v, jc, i);
		} else if (!c && !strcmp(jc->slot[i].vpath, vpath) && jc->slot[i].who == who) {
			c = dfs_content_ref(jc->slot[i].content);
		}
	}
	pthread_mutex_unlock(&v->lock);
	return c;
}

static void jobs_cache_free(dfs_view *v);

/* Drop the files older than their second; the bytes of those left.
 * (the cache calls it through v->jobs_expire, view->lock held) */
static size_t jobs_cache_expire(dfs_view *v)
{
	struct jobs_cache *jc = v->jobs;
	size_t left = 0;
	for (size_t i = 0; jc && i < CACHE_SLOTS; i++) {
		if (jc->slot[i].content && slot_stale(v, jc, i))
			slot_clear(v, jc, i);
		left += jc->slot[i].bytes;
	}
	return left;
}

/* (view->lock held) */
static struct jobs_gens jobs_gens_now(dfs_view *v, uint64_t state)
{
	return (struct jobs_gens){state, dfs_state_change_gen(v, state), v->source_gen};
}

static void cache_store(dfs_view *v, const char *vpath, uint64_t who,
                        struct jobs_gens gens, dfs_content *c)
{
	pthread_mutex_lock(&v->lock);
	if (!v->jobs) {
		v->jobs = calloc(1, sizeof(*v->jobs));
		v->jobs_free = jobs_cache_free;
		v->jobs_expire = jobs_cache_expire;
	}
	struct jobs_cache *jc = v->jobs;
	if (jc) {
		size_t i = jc->next++ % CACHE_SLOTS;
		slot_clear(v, jc, i);
		jc->slot[i].vpath = strdup(vpath);
		jc->slot[i].who = who;
		jc->slot[i].gens = gens;
		clock_gettime(CLOCK_MONOTONIC, &jc->slot[i].made);
		jc->slot[i].content = dfs_content_ref(c);
		jc->slot[i].bytes = dfs_content_memory(c);
		dfs_view_account_jobs(v, (long)jc->slot[i].bytes);
	}
	pthread_mutex_unlock(&v->lock);
	/* (it goes when its second is up; over the budget, the decoded logs
	 * go now) */
	dfs_view_jobs_kept(v);
}

/* (the view's teardown calls it through v->jobs_free) */
static void jobs_cache_free(dfs_view *v)
{
	struct jobs_cache *jc = v->jobs;
	if (!jc)
		return;
	for (size_t i = 0; i < CACHE_SLOTS; i++) {
		free(jc->slot[i].vpath);
		dfs_content_release(jc->slot[i].content);
	}
	free(jc);
	v->jobs = NULL;
}

dfs_content *dfs_jobs_content(dfs_view *v, const struct node *n,
                              const dfs_caller *who, dfs_error *err)
{
	bool insights = n->file == F_DIR_INSIGHTS;
	/* both files of a directory share the cache: insights.csv's key
	 * differs in its second bit */
	uint64_t key = caller_key(v, who) ^ (insights ? 2 : 0);
	dfs_content *c = cache_find(v, n->dir_vpath, key);
	if (c)
		return c;
	/* (read before the walk: a write meanwhile leaves the rendering
	 * stale, never a stale one fresh) */
	pthread_mutex_lock(&v->lock);
	struct jobs_gens gens = jobs_gens_now(v, dfs_caller_state(v, who));
	pthread_mutex_unlock(&v->lock);
	struct walk w = {.insights = insights, .who = who, .v = v};
	struct access_check ac;
	w.chk = dfs_access_check(v, who, &ac);
	walk_dir(&w, n->src, "", n->dir_vpath, 0);
	if (!w.oom)
		summarize_all(v, who, w.items, w.n, insights);
	dfs_buf out = DFS_BUF_INIT;
	dfs_buf_adds(&out, insights ? "log," DFS_INSIGHTS_HEADER : header);
	for (size_t i = 0; i < w.n; i++) {
		dfs_buf_add(&out, w.items[i].rows.data, w.items[i].rows.len);
		if (!dfs_buf_ok(&w.items[i].rows))
			w.oom = true;
		dfs_buf_free(&w.items[i].rows);
		free(w.items[i].rel);
		free(w.items[i].src);
		free(w.items[i].vpath);
	}
	free(w.items);
	if (w.oom) {
		dfs_buf_free(&out);
		dfs_error_set(err, DFS_ERR_NOMEM, "out of memory listing %s", n->dir_vpath);
		return NULL;
	}
	c = dfs_content_from_buf(v, &out, err);
	if (c)
		cache_store(v, n->dir_vpath, key, gens, c);
	return c;
}

/* summary.html of a source directory: the summary renderer's page of
 * its jobs.csv (the caller's) */
dfs_content *dfs_dir_summary_content(dfs_view *v, const struct node *n,
                                     const dfs_caller *who, dfs_error *err)
{
	struct node jobs = *n;
	jobs.file = F_JOBS;
	dfs_content *c = dfs_jobs_content(v, &jobs, who, err);
	if (!c)
		return NULL;
	size_t len = (size_t)dfs_content_size(c);
	char *text = malloc(len ? len : 1);
	long got = text ? dfs_content_read(c, text, len, 0, err) : -1;
	dfs_content_release(c);
	if (got < 0 || (size_t)got != len) {
		free(text);
		if (got >= 0 || !text)
			dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
		return NULL;
	}
	const char *title = strcmp(n->dir_vpath, "/") ? n->dir_vpath : v->source;
	dfs_buf out = DFS_BUF_INIT;
	int ret = dfs_summary_dir_html(title, text, len, &out, err);
	free(text);
	if (ret) {
		dfs_buf_free(&out);
		return NULL;
	}
	return dfs_content_from_buf(v, &out, err);
}

/* files.csv of a source directory: the logs below it the caller may read,
 * walked as for jobs.csv, each log's files summed by module and file
 * name (cached like jobs.csv, for a second) */
dfs_content *dfs_dir_files_content(dfs_view *v, const struct node *n,
                                   const dfs_caller *who, dfs_error *err)
{
	uint64_t key = caller_key(v, who) ^ 4;
	dfs_content *c = cache_find(v, n->dir_vpath, key);
	if (c)
		return c;
	pthread_mutex_lock(&v->lock);
	struct jobs_gens gens = jobs_gens_now(v, dfs_caller_state(v, who));
	pthread_mutex_unlock(&v->lock);
	struct walk w = {.who = who, .v = v};
	walk_dir(&w, n->src, "", n->dir_vpath, 0);
	dfs_buf out = DFS_BUF_INIT;
	int ret = w.oom ? dfs_error_set(err, DFS_ERR_NOMEM, "out of memory listing %s",
	                                n->dir_vpath)
	                : merge_files(v, who, w.items, w.n, &out, err);
	for (size_t i = 0; i < w.n; i++) {
		dfs_buf_free(&w.items[i].rows);
		free(w.items[i].rel);
		free(w.items[i].src);
		free(w.items[i].vpath);
	}
	free(w.items);
	if (ret) {
		dfs_buf_free(&out);
		return NULL;
	}
	c = dfs_content_from_buf(v, &out, err);
	if (c)
		cache_store(v, n->dir_vpath, key, gens, c);
	return c;
}
