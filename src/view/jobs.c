/* jobs.c - the tables of a directory: jobs.csv, one row per log (its
 * job) for every log below the directory; modules.csv, one row per (log,
 * module with an accumulator) plus a POSIX+STDIO row per log, with the
 * numbers that log's own derived_metrics shows for its current selection
 * and the filters that made it (the caller's: view_int.h, "Whose state");
 * insights.csv, the rows of every log's insights.csv with its path;
 * summary.html of a directory, drawn from its modules.csv; and files.csv,
 * every log's files (tables.h) summed by module and file name.
 *
 * The source subtree is walked on each request, in batches of logs (so
 * the walk's memory does not grow with the tree): while the walk gathers
 * a batch, workers on all cores summarize the one before it.  A log the
 * persistent index knows (docs/index.md: the same file, and no filter
 * that can change its selections) is rendered from what the index holds,
 * without opening it; the others are summarized through the LRU cache (a
 * tree of 100,000 logs never needs them all decoded at once), and what an
 * unfiltered one gives goes into the index (its entry is then forgotten,
 * if the walk made it).  Each log's digest is kept in its entry until the
 * log file or a filter changes, or the cache evicts it (counted in
 * cache_size, after the decoded logs).  The text goes to a file beside
 * the index past an eighth of cache_size.  A rendered table is reused for
 * a second (the kernel asks for its size and then reads it) unless a
 * filter of its caller's state changed meanwhile (or a log was found
 * changed on disk), counted in cache_size too, and dropped when its
 * second is up.  Both are checked against the generations of their own
 * state only (view_int.h): another user's writes leave them. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "csv/csv.h"
#include "darshanfs/hash.h"
#include "index/index.h"
#include "darshanfs/summary.h"
#include "summary/files_pack.h"
#include "summary/files_ranks.h"
#include "util/scratch.h"
#include "util/workers.h"
#include "view/view_int.h"
#include "view/cache.h"
#include "view/schema.h"
#include "view/access.h"
#include "view/dirs.h"
#include "view/inforce.h"
#include "view/jobs.h"
#include "view/levels.h"
#include "view/select.h"
#include "view/summary_files.h"

#define COMBINED DFS_FACTS_COMBINED
#define MAX_ROWS DFS_FACTS_MAX_ROWS
#define CACHE_SECONDS 1.0
#define CACHE_SLOTS 16
#define MAX_DEPTH 64      /* directories below a jobs.csv walked into */
#define BATCH 1024        /* logs summarized at once */
/* bytes of the rendered text per chunk (under the size malloc serves
 * with a mapping of its own: the chunks come from the heap, warm) */
#define CHUNK ((size_t)256 << 10)
#define STR_(x) #x
#define STR(x) STR_(x)

/* the tables of a directory this file renders */
enum table { T_JOBS, T_MODULES, T_INSIGHTS, T_FILES };

/* One row of modules.csv, with the filters that made its selection. */
struct job_row {
	dfs_module_facts f;
	char *filters;              /* on one line, NULL when none */
};

/* A log's files for a directory's files.csv (tables.h), shared by the
 * job digest that keeps it and the renderings that merge it. */
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

/* What the tables show of one log (the digests of every log of a tree
 * are kept, so only that). */
struct job_digest {
	uint64_t gen, dir_gen;
	struct src_id src;          /* the version of the log summarized */
	/* made of a passing failure (no memory, a read error): never kept in
	 * the index */
	bool transient;
	dfs_job_facts job;
	char *filters;              /* the job's: every row's, each once */
	/* the log's insights.csv rows (each led by "<rel>,"), NULL until
	 * a directory's insights.csv asks */
	char *insights;
	char *insights_rel;
	/* the log's files (a directory's files.csv), NULL until one asks */
	struct files_ref *files;
	size_t nrows;
	struct job_row rows[];      /* nrows of them */
};

static void row_metrics(dfs_module_facts *r, const dfs_derived_metrics *dm)
{
	const dfs_category_counters *cc = dm->category_counters;
	r->total_bytes = dm->total_bytes;
	r->bytes_read = cc[DFS_ALL_FILES].total_read_volume_bytes;
	r->bytes_written = cc[DFS_ALL_FILES].total_write_volume_bytes;
	r->files[DFS_FACTS_FILES_ALL] = cc[DFS_ALL_FILES].count;
	r->files[DFS_FACTS_FILES_RO] = cc[DFS_RO_FILES].count;
	r->files[DFS_FACTS_FILES_WO] = cc[DFS_WO_FILES].count;
	r->files[DFS_FACTS_FILES_RW] = cc[DFS_RW_FILES].count;
	r->files[DFS_FACTS_FILES_UNIQUE] = cc[DFS_UNIQ_FILES].count;
	r->files[DFS_FACTS_FILES_SHARED] = cc[DFS_SHARED_FILES].count +
	                                   cc[DFS_PART_SHARED_FILES].count;
	r->time_by_slowest = dm->agg_time_by_slowest;
	r->perf_by_slowest = dm->agg_perf_by_slowest;
}

static void job_digest_free(struct job_digest *s)
{
	if (!s)
		return;
	free(s->job.error);
	free(s->job.exe);
	free(s->filters);
	free(s->insights);
	free(s->insights_rel);
	files_release(s->files);
	for (size_t i = 0; i < s->nrows; i++) {
		free(s->rows[i].f.error);
		free(s->rows[i].filters);
	}
	free(s);
}

/* What a digest holds, counted in the cache (strings with their NUL) */
static size_t str_bytes(const char *t)
{
	return t ? strlen(t) + 1 : 0;
}

static size_t job_digest_bytes(const struct job_digest *s)
{
	size_t n = sizeof(*s) + s->nrows * sizeof(s->rows[0]) + str_bytes(s->job.error) +
	           str_bytes(s->job.exe) + str_bytes(s->filters) + str_bytes(s->insights) +
	           str_bytes(s->insights_rel) +
	           (s->files ? sizeof(*s->files) + dfs_log_files_memory(s->files->lf) : 0);
	for (size_t i = 0; i < s->nrows; i++)
		n += str_bytes(s->rows[i].f.error) + str_bytes(s->rows[i].filters);
	return n;
}

static char *filters_of(dfs_buf *b)
{
	char *t = b->len && dfs_buf_ok(b) ? strndup(b->data, b->len) : NULL;
	dfs_buf_free(b);
	return t;
}

/* ---- one log ------------------------------------------------------------------ */

static struct job_digest *summarize(dfs_view *v, struct entry *e,
                                    uint64_t dir_gen)
{
	struct job_digest *s = calloc(1, sizeof(*s) + MAX_ROWS * sizeof(s->rows[0]));
	if (!s)
		return NULL;
	dfs_error err = {0};
	struct decoded_log *l = dfs_entry_load(v, e, &err);
	s->gen = e->gen;
	s->dir_gen = dir_gen;
	s->src = e->decoded_id;
	if (!l) {
		s->job.error = strdup(err.msg[0] ? err.msg : "unreadable log");
		s->transient = err.code != DFS_ERR_FORMAT && err.code != DFS_ERR_UNSUPPORTED;
		return s;
	}
	const dfs_job *j = dfs_log_job(l->log);
	dfs_job_facts *jf = &s->job;
	jf->exe = strdup(j->exe);
	jf->jobid = j->jobid;
	jf->uid = j->uid;
	jf->nprocs = j->nprocs;
	jf->start = j->start_sec;
	jf->end = j->end_sec;
	jf->run_time = j->run_time;
	const dfs_log_header *h = dfs_log_get_header(l->log);
	jf->partial = h->partial_flag;
	bool posix = false, stdio = false;
	uint64_t rows = 0;
	for (int id = 0; id < DFS_MOD_KNOWN; id++) {
		const dfs_log_module *lm = dfs_log_get_module(l->log, id);
		if (lm->present)
			jf->present |= 1ULL << id;
		if (!lm->present || !lm->module || !lm->module->accumulator ||
		    s->nrows >= MAX_ROWS - 1)
			continue;
		posix |= id == DFS_MOD_POSIX;
		stdio |= id == DFS_MOD_STDIO;
		rows |= 1ULL << id;
		dfs_module_facts *r = &s->rows[s->nrows++].f;
		r->module = id;
		r->partial = (h->partial_flag >> id) & 1;
		struct selection *sel = dfs_selection_metrics(v, e, l, id);
		const char *why = dfs_selection_metrics_error(sel);
		if (why) {
			r->error = strdup(why);
			s->transient |= sel->status == DFS_ERR_NOMEM || sel->status == DFS_ERR_IO ||
			                sel->accum_status == DFS_ERR_NOMEM ||
			                sel->accum_status == DFS_ERR_IO;
			continue;
		}
		r->ok = true;
		r->records = sel->count;
		row_metrics(r, &sel->dm);
	}
	if (posix && stdio) {
		dfs_module_facts *r = &s->rows[s->nrows++].f;
		r->module = COMBINED;
		r->partial = ((h->partial_flag >> DFS_MOD_POSIX) & 1) ||
		             ((h->partial_flag >> DFS_MOD_STDIO) & 1);
		const dfs_derived_metrics *dm = dfs_combined_metrics(v, e, l);
		if (dm) {
			r->ok = true;
			row_metrics(r, dm);
			r->records = s->rows[0].f.records;
			for (size_t k = 0; k + 1 < s->nrows; k++)
				if (s->rows[k].f.module == DFS_MOD_STDIO)
					r->records += s->rows[k].f.records;
		} else {
			r->error = strdup("combined metrics unavailable");
			s->transient = true;
		}
	}
	for (size_t i = 0; i < s->nrows; i++) {
		dfs_buf b = DFS_BUF_INIT;
		dfs_filters_line(v, e, s->rows[i].f.module, &b);
		s->rows[i].filters = filters_of(&b);
	}
	dfs_buf b = DFS_BUF_INIT;
	dfs_filters_line_job(v, e, rows, &b);
	s->filters = filters_of(&b);
	struct job_digest *fit = realloc(s, sizeof(*s) + s->nrows * sizeof(s->rows[0]));
	return fit ? fit : s;
}

/* ---- rendering ------------------------------------------------------------------ */

/* the last column: the row's filters ("" when none), then the line's end */
static void add_filters(dfs_buf *out, const char *filters)
{
	dfs_buf_addc(out, ',');
	if (filters)
		dfs_csv_field(out, filters, strlen(filters));
	dfs_buf_addc(out, '\n');
}

static const char *row_module_name(int module)
{
	return module == COMBINED ? "POSIX+STDIO" : module < 0 ? "" : dfs_module_get(module)->name;
}

/* modules.csv rows of a log */
static void render_module_rows(const struct job_digest *s, const char *rel, dfs_buf *out)
{
	const dfs_job_facts *j = &s->job;
	if (j->error) {
		dfs_csv_field(out, rel, strlen(rel));
		dfs_buf_adds(out, ",,,,,,,,,,,,,,,,,,,,,,");
		dfs_csv_field(out, j->error, strlen(j->error));
		dfs_buf_adds(out, ",\n");
		return;
	}
	/* a log without any module that has an accumulator still gets a row
	 * with its job fields */
	static const struct job_row none = {.f = {.module = -2}};
	size_t nrows = s->nrows ? s->nrows : 1;
	for (size_t i = 0; i < nrows; i++) {
		const struct job_row *jr = s->nrows ? &s->rows[i] : &none;
		const dfs_module_facts *r = &jr->f;
		dfs_csv_field(out, rel, strlen(rel));
		dfs_buf_addc(out, ',');
		dfs_buf_adds(out, row_module_name(r->module));
		dfs_buf_addc(out, ',');
		dfs_csv_field(out, j->exe, strlen(j->exe));
		dfs_buf_printf(out, ",%lld,%lld,%lld,%lld,%lld,", (long long)j->jobid,
		               (long long)j->uid, (long long)j->nprocs, (long long)j->start,
		               (long long)j->end);
		dfs_buf_add_double(out, j->run_time);
		dfs_buf_printf(out, ",%d,", r->partial ? 1 : 0);
		if (!r->ok) {
			dfs_buf_adds(out, ",,,,,,,,,,,,");
			if (r->error)
				dfs_csv_field(out, r->error, strlen(r->error));
			add_filters(out, jr->filters);
			continue;
		}
		dfs_buf_printf(out, "%llu,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,",
		               (unsigned long long)r->records, (long long)r->total_bytes,
		               (long long)r->bytes_read, (long long)r->bytes_written,
		               (long long)r->files[DFS_FACTS_FILES_ALL],
		               (long long)r->files[DFS_FACTS_FILES_RO],
		               (long long)r->files[DFS_FACTS_FILES_WO],
		               (long long)r->files[DFS_FACTS_FILES_RW],
		               (long long)r->files[DFS_FACTS_FILES_UNIQUE],
		               (long long)r->files[DFS_FACTS_FILES_SHARED]);
		dfs_buf_add_double(out, r->time_by_slowest);
		dfs_buf_addc(out, ',');
		dfs_buf_add_double(out, r->perf_by_slowest);
		dfs_buf_addc(out, ',');
		add_filters(out, jr->filters);
	}
}

/* The user of a job as Darshan names its log, USER_EXE_idJOBID_...
 * (EXE the base name of the program): what comes before "_EXE_id<jobid>"
 * when the name holds the log's own job id and program, else before the
 * last '_' ahead of "_id<jobid>"; nothing when the name holds no
 * "_id<jobid>".  A log holds a uid only; a name looked up on the mounting
 * machine would differ from one machine to the next (and cost a look-up
 * of the user database per uid). */
static void user_name(const char *rel, const char *exe, int64_t jobid, dfs_buf *out)
{
	const char *base = strrchr(rel, '/');
	base = base ? base + 1 : rel;
	char id[32];
	int n = snprintf(id, sizeof(id), "_id%lld", (long long)jobid);
	const char *at = strstr(base, id);
	while (at && at[n] >= '0' && at[n] <= '9')
		at = strstr(at + 1, id);
	if (!at)
		return;
	/* the program: the base name of the command's first word */
	size_t wlen = strcspn(exe, " ");
	const char *prog = exe;
	for (size_t i = 0; i < wlen; i++)
		if (exe[i] == '/')
			prog = exe + i + 1;
	size_t plen = (size_t)(exe + wlen - prog);
	size_t head = (size_t)(at - base);
	if (plen && head > plen + 1 && base[head - plen - 1] == '_' &&
	    !memcmp(base + head - plen, prog, plen)) {
		dfs_csv_field(out, base, head - plen - 1);
		return;
	}
	while (head > 0 && base[head - 1] != '_')
		head--;
	if (head > 1)
		dfs_csv_field(out, base, head - 1);
}

/* ISO 8601 in UTC of Unix seconds; nothing for a time not positive (a log
 * that does not know it) */
static void iso_time(dfs_buf *out, int64_t t)
{
	time_t x = (time_t)t;
	struct tm tm;
	if (t <= 0 || (int64_t)x != t || !gmtime_r(&x, &tm) || tm.tm_year + 1900 > 9999)
		return;
	char b[20];
	int f[6] = {tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec};
	static const char sep[] = "--T::Z";
	char *p = b;
	for (int i = 0; i < 6; i++) {
		int v = f[i];
		if (i == 0) {
			*p++ = (char)('0' + v / 1000);
			*p++ = (char)('0' + v / 100 % 10);
		}
		*p++ = (char)('0' + v / 10 % 10);
		*p++ = (char)('0' + v % 10);
		*p++ = sep[i];
	}
	dfs_buf_add(out, b, (size_t)(p - b));
}

/* A per-job figure made of the log's own numbers, which may be garbage
 * (a negative or not finite time, bytes below zero, more I/O time than
 * the job's processes had): such a value is left out of the job's row
 * (empty) instead of spoiling every sum made of the column, by the rules
 * the data-quality findings and a directory's summary.html judge with
 * (summary.h: dfs_job_numbers_doubts). */
static bool plausible_seconds(double t)
{
	return !dfs_implausible_time(t) && t >= 0;
}

static void add_seconds(dfs_buf *out, double t)
{
	if (plausible_seconds(t))
		dfs_buf_add_double(out, t);
}

/* the row of jobs.csv of a log */
static void render_job_row(const struct job_digest *s, const char *rel, dfs_buf *out)
{
	const dfs_job_facts *j = &s->job;
	dfs_csv_field(out, rel, strlen(rel));
	if (j->error) {
		/* the job columns, empty */
		struct table_col cols[MAX_TABLE_COLS];
		size_t n = dfs_table_columns(F_JOBS, cols, MAX_TABLE_COLS);
		for (size_t i = 1; i + 2 < n; i++)
			dfs_buf_addc(out, ',');
		dfs_buf_addc(out, ',');
		dfs_csv_field(out, j->error, strlen(j->error));
		dfs_buf_adds(out, ",\n");
		return;
	}
	dfs_buf_addc(out, ',');
	dfs_buf_add_i64(out, j->jobid);
	dfs_buf_addc(out, ',');
	dfs_buf_add_i64(out, j->uid);
	dfs_buf_addc(out, ',');
	user_name(rel, j->exe, j->jobid, out);
	dfs_buf_addc(out, ',');
	dfs_csv_field(out, j->exe, strlen(j->exe));
	const int64_t nums[3] = {j->nprocs, j->start, j->end};
	for (int k = 0; k < 3; k++) {
		dfs_buf_addc(out, ',');
		dfs_buf_add_i64(out, nums[k]);
	}
	dfs_buf_addc(out, ',');
	iso_time(out, j->start);
	dfs_buf_addc(out, ',');
	iso_time(out, j->end);
	dfs_buf_addc(out, ',');
	add_seconds(out, j->run_time);
	/* the job's I/O: one of its rows, by summary.html's rule */
	dfs_job_io io = {0};
	for (size_t i = 0; i < s->nrows; i++) {
		const dfs_module_facts *r = &s->rows[i].f;
		if (r->ok)
			dfs_job_io_offer(&io, (int)i, row_module_name(r->module),
			                 (double)r->bytes_read + (double)r->bytes_written,
			                 r->time_by_slowest, r->perf_by_slowest);
	}
	const dfs_module_facts *r = io.any ? &s->rows[io.row].f : NULL;
	unsigned doubts = 0;
	if (r) {
		dfs_job_numbers num = {j->nprocs, j->run_time,
		                       (double)r->bytes_read + (double)r->bytes_written,
		                       r->time_by_slowest, r->perf_by_slowest};
		doubts = dfs_job_numbers_doubts(&num);
	}
	bool bytes_ok = r && !(doubts & DFS_DOUBT_BYTES) && r->bytes_read >= 0 &&
	                r->bytes_written >= 0;
	dfs_buf_addc(out, ',');
	if (r)
		dfs_buf_adds(out, row_module_name(r->module));
	dfs_buf_addc(out, ',');
	if (bytes_ok) {
		dfs_buf_add_i64(out, r->bytes_read + r->bytes_written);
		dfs_buf_addc(out, ',');
		dfs_buf_add_i64(out, r->bytes_read);
		dfs_buf_addc(out, ',');
		dfs_buf_add_i64(out, r->bytes_written);
	} else
		dfs_buf_adds(out, ",,");
	dfs_buf_addc(out, ',');
	if (r && !(doubts & DFS_DOUBT_TIME))
		dfs_buf_add_double(out, r->time_by_slowest);
	dfs_buf_addc(out, ',');
	if (r && !(doubts & DFS_DOUBT_PERF))
		dfs_buf_add_double(out, r->perf_by_slowest);
	dfs_buf_addc(out, ',');
	if (r && !(doubts & DFS_DOUBT_TIME) && plausible_seconds(j->run_time) &&
	    j->run_time > 0)
		dfs_buf_add_double(out, r->time_by_slowest / j->run_time);
	/* bytes per module (empty: the log has no data of it) */
	for (int id = 0; id < DFS_MOD_KNOWN; id++) {
		if (!dfs_module_has_bytes_col(id))
			continue;
		dfs_buf_addc(out, ',');
		for (size_t i = 0; i < s->nrows; i++) {
			const dfs_module_facts *m = &s->rows[i].f;
			if (m->module == id && m->ok && m->bytes_read >= 0 && m->bytes_written >= 0 &&
			    !dfs_implausible_bytes((double)m->bytes_read + (double)m->bytes_written,
			                           j->nprocs))
				dfs_buf_add_i64(out, m->bytes_read + m->bytes_written);
		}
	}
	dfs_buf_addc(out, ',');
	bool first = true, partial = false;
	for (int id = 0; id < DFS_MOD_KNOWN; id++) {
		if (!((j->present >> id) & 1))
			continue;
		if (!first)
			dfs_buf_addc(out, ' ');
		dfs_buf_adds(out, dfs_module_slot_name(id));
		first = false;
		partial |= (j->partial >> id) & 1;
	}
	dfs_buf_adds(out, partial ? ",1," : ",0,");
	/* the modules that cannot be read */
	dfs_buf e = DFS_BUF_INIT;
	for (size_t i = 0; i < s->nrows; i++) {
		const dfs_module_facts *m = &s->rows[i].f;
		if (m->ok || !m->error || m->module == COMBINED)
			continue;
		dfs_buf_printf(&e, "%s%s: %s", e.len ? "; " : "", row_module_name(m->module),
		               m->error);
	}
	if (e.len && dfs_buf_ok(&e))
		dfs_csv_field(out, e.data, e.len);
	dfs_buf_free(&e);
	add_filters(out, s->filters);
}

/* ---- the walk ------------------------------------------------------------------- */

/* A directory of the walk kept open for the items of its logs, so that
 * the workers look at each log by its name in it (the kernel walks one
 * name, not the whole path): only for directories of many entries, so
 * that the open ones stay few (the two batches in flight hold at most
 * 2 x BATCH / DIR_REF_MIN of them; one that cannot be opened is done
 * without). */
#define DIR_REF_MIN 64
struct dir_ref {
	atomic_int refs;
	int fd;
};

static struct dir_ref *dir_ref_open(const char *path)
{
	struct dir_ref *d = malloc(sizeof(*d));
	if (!d)
		return NULL;
	d->fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d->fd < 0) {
		free(d);
		return NULL;
	}
	atomic_init(&d->refs, 1);
	return d;
}

static struct dir_ref *dir_ref_take(struct dir_ref *d)
{
	if (d)
		atomic_fetch_add(&d->refs, 1);
	return d;
}

static void dir_ref_put(struct dir_ref *d)
{
	if (d && atomic_fetch_sub(&d->refs, 1) == 1) {
		close(d->fd);
		free(d);
	}
}

struct log_item {
	char *rel;       /* path relative to the table's directory */
	char *src;
	char *vpath;
	char *paths;     /* the one allocation the three above lie in */
	const char *error;   /* not a log: a directory not walked, and why */
	struct src_id id;    /* the version the walk judged the caller on */
	uint64_t disk_bytes; /* what the log holds on disk (dfs_stored_size) */
	/* files.csv: the log's files and its job's start, or why it is left
	 * out */
	struct files_ref *files;
	int64_t start;
	char *skip;
	/* a log by its name and directory entry, not looked at yet: the
	 * worker looks at it (and drops it when it is no log, or not the
	 * caller's to read: dfs_source_kind and dfs_may_access, as for the
	 * others), so that the stats of a tree go in parallel */
	bool unchecked;
	struct dir_ref *dir;     /* its directory, open (NULL: none) */
	/* what the index holds of this very file, when `stored` (in place:
	 * the items move as the batch grows) */
	bool stored;
	dfs_index_log stored_log;
	dfs_buf rows;            /* kept from batch to batch (warm) */
};

/* The rendered text, in chunks of about CHUNK bytes (never copied into
 * one); past spill_at bytes (an eighth of cache_size, 64 KiB to 8 MiB),
 * in an unlinked file instead (in the index's directory, else $TMPDIR):
 * a table of a big tree is not held in memory. */
#define SPILL_MIN ((size_t)64 << 10)
#define SPILL_MAX ((size_t)8 << 20)
struct text {
	size_t spill_at;
	dfs_buf *chunk;
	size_t n, cap;
	size_t held;             /* bytes in the chunks */
	bool oom;
	const char *spill_dir;   /* NULL: never spill */
	int fd;                  /* the file, -1 before */
	uint64_t in_file;        /* bytes written to it */
	/* chunks written to the file, emptied for the next ones (warm) */
	dfs_buf spare[SPILL_MAX / CHUNK + 1];
	size_t nspare;
};

static dfs_buf *text_room(struct text *t)
{
	if (t->n && t->chunk[t->n - 1].len < CHUNK)
		return &t->chunk[t->n - 1];
	if (t->n == t->cap) {
		size_t c = t->cap ? t->cap * 2 : 16;
		dfs_buf *grown = realloc(t->chunk, c * sizeof(*grown));
		if (!grown) {
			t->oom = true;
			return NULL;
		}
		t->chunk = grown;
		t->cap = c;
	}
	dfs_buf *b = &t->chunk[t->n++];
	if (t->nspare) {
		*b = t->spare[--t->nspare];
		dfs_buf_reset(b);
		return b;
	}
	dfs_buf_init(b);
	/* (its pages faulted in at once: one by one they cost more than
	 * the copy into them) */
	if (dfs_buf_reserve(b, CHUNK + 8192))
		dfs_pages_populate(b->data, b->cap);
	return b;
}

static bool write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t n = write(fd, data, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		data += n;
		len -= (size_t)n;
	}
	return true;
}

/* Could not write the file: its text back into chunks, and no more
 * spilling (a full disk leaves the table in memory) */
static void unspill(struct text *t)
{
	dfs_buf *held = t->chunk;
	size_t n = t->n;
	t->chunk = NULL;
	t->n = t->cap = 0;
	t->held = 0;
	char *page = malloc(CHUNK);
	for (uint64_t off = 0; page && off < t->in_file && !t->oom;) {
		size_t want = t->in_file - off < CHUNK ? (size_t)(t->in_file - off) : CHUNK;
		ssize_t got = pread(t->fd, page, want, (off_t)off);
		dfs_buf *b = got > 0 ? text_room(t) : NULL;
		if (!b) {
			t->oom = true;
			break;
		}
		dfs_buf_add(b, page, (size_t)got);
		t->held += (size_t)got;
		off += (uint64_t)got;
	}
	t->oom |= !page;
	free(page);
	for (size_t i = 0; i < n; i++) {
		dfs_buf *b = text_room(t);
		if (b && !t->oom) {
			dfs_buf_add(b, held[i].data, held[i].len);
			t->held += held[i].len;
		}
		dfs_buf_free(&held[i]);
	}
	free(held);
	close(t->fd);
	t->fd = -1;
	t->in_file = 0;
	t->spill_dir = NULL;
}

/* Move the chunks into the file */
static void spill(struct text *t)
{
	if (t->fd < 0) {
		t->fd = open(t->spill_dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		if (t->fd < 0) {
			t->spill_dir = NULL;   /* (held in memory, then) */
			return;
		}
	}
	size_t i = 0;
	for (; i < t->n; i++) {
		if (!write_all(t->fd, t->chunk[i].data, t->chunk[i].len))
			break;
		t->in_file += t->chunk[i].len;
		t->held -= t->chunk[i].len;
		if (t->nspare < sizeof(t->spare) / sizeof(t->spare[0]) && dfs_buf_ok(&t->chunk[i]))
			t->spare[t->nspare++] = t->chunk[i];
		else
			dfs_buf_free(&t->chunk[i]);
	}
	memmove(t->chunk, t->chunk + i, (t->n - i) * sizeof(*t->chunk));
	t->n -= i;
	if (t->n)
		unspill(t);
}

static void text_add(struct text *t, const char *data, size_t len)
{
	dfs_buf *b = text_room(t);
	if (!b)
		return;
	dfs_buf_add(b, data, len);
	t->held += len;
	if (t->spill_dir && t->held >= t->spill_at)
		spill(t);
}

/* Pieces of text one after the other: once the text is in its file with
 * nothing held, written from where they lie (a batch's rows are not
 * copied into chunks first) */
static void text_add_many(struct text *t, const struct iovec *iov, size_t n)
{
	size_t i = 0, skip = 0;   /* (skip: bytes of iov[i] written already) */
	if (t->fd >= 0 && t->held && !t->oom)
		spill(t);   /* (what went into chunks since the last time) */
	while (i < n && t->fd >= 0 && t->held == 0 && !t->oom) {
		struct iovec v[IOV_MAX < 1024 ? IOV_MAX : 1024];
		size_t k = 0;
		for (size_t j = i; j < n && k < sizeof(v) / sizeof(v[0]); j++, k++) {
			v[k].iov_base = (char *)iov[j].iov_base + (j == i ? skip : 0);
			v[k].iov_len = iov[j].iov_len - (j == i ? skip : 0);
		}
		ssize_t got = writev(t->fd, v, (int)k);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			unspill(t);   /* (the rest into chunks, below) */
			break;
		}
		t->in_file += (uint64_t)got;
		for (size_t g = (size_t)got; g && i < n;) {
			size_t left = iov[i].iov_len - skip;
			if (g >= left) {
				g -= left;
				i++;
				skip = 0;
			} else {
				skip += g;
				g = 0;
			}
		}
		while (i < n && iov[i].iov_len == skip) {
			i++;
			skip = 0;
		}
	}
	for (; i < n; i++, skip = 0)
		text_add(t, (const char *)iov[i].iov_base + skip, iov[i].iov_len - skip);
}

static void text_free(struct text *t)
{
	for (size_t i = 0; i < t->n; i++)
		dfs_buf_free(&t->chunk[i]);
	for (size_t i = 0; i < t->nspare; i++)
		dfs_buf_free(&t->spare[i]);
	t->nspare = 0;
	free(t->chunk);
	t->chunk = NULL;
	t->n = t->cap = 0;
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
}

/* The snapshot of the text (which is gone from t) */
static dfs_snapshot *text_content(dfs_view *v, struct text *t, dfs_error *err)
{
	if (t->fd >= 0)
		spill(t);
	if (t->fd < 0) {
		dfs_snapshot *c = dfs_snapshot_from_bufs(v, t->chunk, t->n, err);
		text_free(t);
		return c;
	}
	int fd = t->fd;
	uint64_t size = t->in_file;
	t->fd = -1;
	text_free(t);
	return dfs_snapshot_from_file(v, fd, size, err);
}

struct stored_dir;

/* Logs are summarized on all cores, each decoded (unless the cache has
 * it) as far as its inflate limit allows: 256 times what it holds on disk
 * (dfs_log_inflate_limit).  Those being summarized at once may inflate to
 * a quarter of the machine's memory together, or cache_size if that is
 * more (at least INFLATING_MIN: sixteen small logs); one always runs,
 * whatever its limit.  (Real logs inflate 4 to 90 times: the bound
 * matters for logs made to inflate as far as they may, on many cores.) */
#define INFLATING_MIN ((size_t)256 << 20)
struct gate {
	pthread_mutex_t lock;
	pthread_cond_t room;
	size_t inflating, cap;
};

static size_t inflating_cap(const dfs_view *v)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	size_t quarter = pages > 0 && page > 0 ? (size_t)pages / 4 * (size_t)page : 0;
	size_t cap = v->opt.cache_size > quarter ? v->opt.cache_size : quarter;
	return cap > INFLATING_MIN ? cap : INFLATING_MIN;
}

static void inflating(struct gate *g, size_t bytes, bool start)
{
	pthread_mutex_lock(&g->lock);
	if (start) {
		while (g->inflating && g->inflating + bytes > g->cap)
			pthread_cond_wait(&g->room, &g->lock);
		g->inflating += bytes;
	} else {
		g->inflating -= bytes;
		pthread_cond_broadcast(&g->room);
	}
	pthread_mutex_unlock(&g->lock);
}

/* The logs a set of workers summarizes */
struct pool {
	enum table table;
	struct dfs_index *ix;
	uint64_t insights_key;
	dfs_view *v;
	const dfs_caller *who;   /* whose filters the rows follow */
	const struct path_check *chk;   /* its search permission (NULL: all) */
	struct gate *gate;
	struct log_item *items;
	size_t n;
	atomic_size_t next;
	/* no directory of the view had a state when the walk began: none
	 * changes a log's selections or names a filter in its row (a
	 * write meanwhile makes the rendering stale: jobs_gens) */
	bool no_dirs;
	/* nor had a log an entry (so none a filter of its own) */
	bool no_entries;
	/* the table's text, which the batch's rows go into once summarized
	 * (not T_FILES), and then its items let go: `released`; `oom` when
	 * a row could not be made */
	struct text *out;
	bool released, oom;
};

/* A batch of logs: gathered by the walk, then summarized by workers in
 * the background while the walk gathers the next */
/* Directories noted by their source path (malloc'd), in the order met. */
struct dir_list {
	char **v;
	size_t n, cap;
};

struct batch {
	struct log_item *items;
	size_t n, cap;
	size_t inited;           /* items whose rows buffer is made */
	bool running;            /* the crew works on it */
	struct pool pool;
	/* directories walked whose last log is in the batch: their rows
	 * are sealed in the index once the batch is summarized */
	struct dir_list seal;
};

/* The threads that summarize the walk's batches, one after the other:
 * started with its first batch and kept to its end (a thread started
 * for each batch cost its creation, and its stack's pages faulted in). */
struct crew {
	bool started;            /* (tried: n may be 0) */
	size_t n;
	pthread_t tid[DFS_WORKERS_MAX];
	pthread_mutex_t lock;
	pthread_cond_t go, done;
	uint64_t gen;            /* batches handed over */
	struct pool *job;        /* the last one */
	size_t busy;             /* threads still summarizing it */
	bool running;            /* it is not done (rows in the text) */
	bool quit;
};

struct walk {
	enum table table;
	struct dfs_index *ix;    /* NULL: none */
	uint64_t insights_key;
	/* the index's windows, one per depth of the walk (reused) */
	struct stored_dir *sd[MAX_DEPTH + 1];
	struct log_item *items;  /* the batch being gathered */
	size_t n, cap;
	size_t inited;           /* items whose rows buffer is made */
	struct dir_list seal;    /* (as struct batch's) */
	uint64_t seq;            /* batches handed to the workers so far */
	struct batch bg;         /* the one before it */
	struct crew crew;
	bool oom;
	const dfs_caller *who;   /* shows only what it may read (NULL: all) */
	const struct path_check *chk;   /* its search permission (NULL: all) */
	dfs_view *v;
	struct gate gate;
	struct text out;
	bool no_dirs, no_entries;   /* (see struct pool) */
	/* a file of a directory, or of the top, is named *.darshan */
	bool own_log_names;
	dfs_files_merge *fm;     /* T_FILES: the files of the logs so far */
	dfs_error err;           /* T_FILES: why the merge failed */
	bool failed;
};

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void flush(struct walk *w);

/* A new item at the end of the batch, zeroed; NULL when memory runs out. */
static struct log_item *add_item(struct walk *w)
{
	if (w->n == BATCH)
		flush(w);
	if (w->n == w->cap) {
		size_t c = w->cap ? w->cap * 2 : 256;
		struct log_item *it = realloc(w->items, c * sizeof(*it));
		if (!it) {
			w->oom = true;
			return NULL;
		}
		dfs_pages_populate(it + w->cap, (c - w->cap) * sizeof(*it));
		w->items = it;
		w->cap = c;
	}
	struct log_item *it = &w->items[w->n];
	dfs_buf rows;
	if (w->n < w->inited && dfs_buf_ok(&it->rows)) {
		rows = it->rows;
		dfs_buf_reset(&rows);
	} else {
		if (w->n < w->inited)
			dfs_buf_free(&it->rows);
		dfs_buf_init(&rows);
		if (w->n >= w->inited)
			w->inited = w->n + 1;
	}
	memset(it, 0, offsetof(struct log_item, stored_log));
	it->rows = rows;
	w->n++;
	return it;
}

/* A directory too deep to walk gets a row that says so. */
static void too_deep(struct walk *w, const char *rel)
{
	struct log_item *it = add_item(w);
	if (it && !(it->paths = it->rel = strdup(rel))) {
		w->oom = true;
		w->n--;
	} else if (it) {
		it->error = "directory nested deeper than " STR(MAX_DEPTH)
		            " levels below this jobs.csv: its logs are not summarized";
	}
}

/* What the index holds of one directory, read a window at a time in the
 * order of the names, beside the walk of its names. */
struct stored_dir {
	struct dfs_index *ix;
	const char *dir;         /* relative to SOURCE ("" for it) */
	uint64_t insights_key;   /* read the findings too (0: not) */
	bool jobs_only;          /* read the jobs.csv rows, not the modules' */
	size_t n, pos;
	bool done;
	/* the name of the last one taken (a directory entry's: shorter than
	 * 256 bytes), or "" */
	char after[256];
	dfs_index_log win[DFS_INDEX_WINDOW];
};

static void stored_clear(struct stored_dir *sd)
{
	for (size_t i = sd->pos; i < sd->n; i++)
		dfs_index_log_clear(&sd->win[i]);
	sd->n = sd->pos = 0;
}

/* The next log of the directory in the index, NULL after the last */
static dfs_index_log *stored_peek(struct stored_dir *sd)
{
	while (sd->pos == sd->n) {
		if (sd->done)
			return NULL;
		stored_clear(sd);
		sd->n = dfs_index_dir(sd->ix, sd->dir, sd->after, sd->jobs_only,
		                      sd->insights_key, sd->win, DFS_INDEX_WINDOW);
		sd->done = sd->n < DFS_INDEX_WINDOW;
		/* (a window starts at the last name taken: taken already) */
		if (sd->n && sd->after[0] && strcmp(sd->win[0].name, sd->after) == 0)
			dfs_index_log_clear(&sd->win[sd->pos++]);
	}
	return &sd->win[sd->pos];
}

/* Take the log stored_peek gave: moved into *out when not NULL. */
static void stored_take(struct stored_dir *sd, dfs_index_log *out)
{
	dfs_index_log *l = &sd->win[sd->pos++];
	size_t len = strlen(l->name);
	if (len < sizeof(sd->after))
		memcpy(sd->after, l->name, len + 1);
	else
		sd->done = true;   /* (no such name: the rest stays as it is) */
	if (out) {
		dfs_index_log_move(out, l);
	} else {
		dfs_index_log_clear(l);
	}
}

/* The index's log of name `name` moved into *out: 0, or -1 when it has
 * none.  The logs before it are gone from the directory: forgotten. */
static int stored_find(struct stored_dir *sd, const char *name, dfs_index_log *out)
{
	dfs_index_log *l;
	while ((l = stored_peek(sd)) && strcmp(l->name, name) < 0) {
		dfs_index_forget(sd->ix, sd->dir, l->name);
		stored_take(sd, NULL);
	}
	if (!l || strcmp(l->name, name) != 0)
		return -1;
	stored_take(sd, out);
	return 0;
}

static int64_t ns_of(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

static void index_id_of(dfs_index_id *id, const struct src_id *s)
{
	id->dev = (uint64_t)s->dev;
	id->ino = (uint64_t)s->ino;
	id->size = (int64_t)s->size;
	id->mtime_ns = ns_of(&s->mtime);
	id->ctime_ns = ns_of(&s->ctime);
}

static bool stored_same(const dfs_index_log *l, const struct stat *st)
{
	struct src_id s;
	dfs_index_id id;
	dfs_src_id(&s, st);
	index_id_of(&id, &s);
	return !memcmp(&id, &l->id, sizeof(id));
}

/* The rest of the directory's logs in the index are gone; so are the
 * directories it holds logs of that are no directory any more. */
static void stored_end(struct stored_dir *sd, char **names, const bool *is_dir, size_t n)
{
	while (stored_peek(sd)) {
		dfs_index_forget(sd->ix, sd->dir, sd->win[sd->pos].name);
		stored_take(sd, NULL);
	}
	char **subs;
	size_t ns = dfs_index_subdirs(sd->ix, sd->dir, &subs);
	for (size_t i = 0, k = 0; i < ns; i++) {
		while (k < n && strcmp(names[k], subs[i]) < 0)
			k++;
		if (k == n || strcmp(names[k], subs[i]) != 0 || !is_dir[k]) {
			char *d = *sd->dir ? dfs_path_join(sd->dir, subs[i]) : strdup(subs[i]);
			if (d)
				dfs_index_forget_dir(sd->ix, d);
			free(d);
		}
		free(subs[i]);
	}
	free(subs);
}

/* Seal the directory's rows in the index once its logs gathered so far
 * are summarized (a directory that cannot be noted is left as it is). */
static void seal_later(struct walk *w, const char *dir)
{
	struct dir_list *l = &w->seal;
	if (l->n == l->cap) {
		size_t c = l->cap ? l->cap * 2 : 16;
		char **grown = realloc(l->v, c * sizeof(*grown));
		if (!grown)
			return;
		l->v = grown;
		l->cap = c;
	}
	if ((l->v[l->n] = strdup(dir)))
		l->n++;
}

/* (a walk that ran out of memory seals none: it may have left logs) */
static void seal_now(struct walk *w, struct dir_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		if (w->ix && !w->oom)
			dfs_index_seal(w->ix, l->v[i]);
		free(l->v[i]);
	}
	l->n = 0;
}

/* (what a walk ends with unsealed: it stopped early) */
static void seal_drop(struct dir_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
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
	/* the names one after the other in one buffer, each with the entry's
	 * type just before it (names[i][-1]) */
	dfs_buf text = DFS_BUF_INIT;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t dl = strlen(de->d_name);
		/* (a log's name is no name of a directory's own files, unless
		 * one of those is named so: w->own_log_names) */
		bool log_name = dl > 8 && !memcmp(de->d_name + dl - 8, ".darshan", 8) &&
		                !w->own_log_names;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") || dl >= 256 ||
		    (!log_name && dfs_file_def_by_name(LEVEL_DIR, de->d_name)) ||
		    (!log_name && !strcmp(vpath, "/") && dfs_file_def_by_name(LEVEL_ROOT, de->d_name)))
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
		/* (offsets until the text is whole: it moves as it grows) */
		names[n++] = (char *)(uintptr_t)(text.len + 1);
		dfs_buf_addc(&text, (char)de->d_type);
		dfs_buf_add(&text, de->d_name, dl + 1);
	}
	if (!dfs_buf_ok(&text)) {
		w->oom = true;
		n = 0;
	}
	for (size_t i = 0; i < n; i++)
		names[i] = text.data + (uintptr_t)names[i];
	if (n > 1)   /* (an empty directory has no array: qsort wants one) */
		qsort(names, n, sizeof(char *), cmp_name);
	struct dir_ref *dir = n >= DIR_REF_MIN && !w->oom ? dir_ref_open(src) : NULL;
	/* the index's logs of this directory, beside its names (vpath less
	 * its leading '/' is the directory's path below SOURCE) */
	if (w->ix && !w->oom && !w->sd[depth])
		w->sd[depth] = calloc(1, sizeof(*w->sd[depth]));
	struct stored_dir *sd = w->ix && !w->oom ? w->sd[depth] : NULL;
	bool *is_dir = sd ? calloc(n ? n : 1, sizeof(bool)) : NULL;
	if (!is_dir)
		sd = NULL;
	if (sd) {
		memset(sd, 0, offsetof(struct stored_dir, win));
		sd->done = false;
		sd->ix = w->ix;
		sd->dir = vpath + 1;
		sd->insights_key = w->table == T_INSIGHTS ? w->insights_key : 0;
		/* (files.csv reads of a log its error and modules present;
		 * its files and start lie in the table of files) */
		sd->jobs_only = w->table == T_JOBS || w->table == T_FILES;
	}
	/* (the lengths of the three paths' directories, and whether a '/'
	 * goes between each and the name) */
	size_t l_src = strlen(src), l_rel = strlen(rel), l_vp = strlen(vpath);
	bool s_src = !l_src || src[l_src - 1] != '/', s_rel = l_rel != 0,
	     s_vp = !l_vp || vpath[l_vp - 1] != '/';
	for (size_t i = 0; i < n; i++) {
		/* its source path, its path below the table's directory and
		 * its path in the view, in one allocation (freed with the
		 * first) */
		size_t ln = strlen(names[i]);
		size_t a = l_src + s_src + ln + 1, b = l_rel + s_rel + ln + 1;
		char *path = w->oom ? NULL : malloc(a + b + l_vp + s_vp + ln + 1);
		char *r = NULL, *vp = NULL;
		if (path) {
			r = path + a;
			vp = r + b;
			memcpy(path, src, l_src);
			path[l_src] = '/';
			memcpy(path + l_src + s_src, names[i], ln + 1);
			memcpy(r, rel, l_rel);
			r[l_rel] = '/';
			memcpy(r + l_rel + s_rel, names[i], ln + 1);
			memcpy(vp, vpath, l_vp);
			vp[l_vp] = '/';
			memcpy(vp + l_vp + s_vp, names[i], ln + 1);
		}
		struct stat st;
		/* a file named like a log is looked at by the worker that
		 * summarizes it (the stats of a tree then go in parallel) */
		unsigned char type = (unsigned char)names[i][-1];
		size_t len = strlen(names[i]);
		bool defer = (type == DT_REG || type == DT_LNK) && len > 8 &&
		             !strcmp(names[i] + len - 8, ".darshan");
		char *real = NULL;
		int kind = !path || !r || !vp || w->oom ? -1 : defer ? N_LOGDIR :
		           dfs_source_kind(w->v, path, names[i], &st, w->chk, &real);
		dfs_index_log found, *stored = NULL;
		if (sd && stored_find(sd, names[i], &found) == 0) {
			stored = &found;
			if (kind != N_LOGDIR || (!defer && !stored_same(stored, &st))) {
				/* no log any more (another log: put back when read) */
				if (kind != N_LOGDIR && path && r && vp && !w->oom)
					dfs_index_forget(w->ix, sd->dir, names[i]);
				dfs_index_log_clear(stored);
				stored = NULL;
			}
		}
		if (is_dir)
			is_dir[i] = kind == N_SRCDIR;
		/* what the caller could not reach on disk is not there for it:
		 * no row, no error row (a directory is walked by those who
		 * may list and search it, as find would; a link by those who
		 * may search every directory it leads through) */
		if (kind == N_SRCDIR && !dfs_may_access(w->who, path, &st, 5))
			kind = -1;
		else if (kind == N_LOGDIR && !defer &&
		         !dfs_may_access(w->who, real ? real : path, &st, 4))
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
				it->paths = path;
				it->unchecked = defer;
				it->dir = defer ? dir_ref_take(dir) : NULL;
				if (!defer) {
					dfs_src_id(&it->id, &st);
					it->disk_bytes = dfs_stored_size(&st);
				}
				r = path = vp = NULL;
				if (stored) {
					dfs_index_log_move(&it->stored_log, stored);
					it->stored = true;
				}
			}
		}
		if (stored)
			dfs_index_log_clear(stored);
		free(path);
	}
	if (sd && !w->oom) {
		stored_end(sd, names, is_dir, n);
		seal_later(w, sd->dir);
	}
	if (sd) {
		stored_clear(sd);
		sd->after[0] = '\0';
	}
	dir_ref_put(dir);
	closedir(d);
	dfs_buf_free(&text);
	free(names);
	free(is_dir);
}

/* insights.csv rows of a log, kept with its digest (entry locked) */
static void render_insights(dfs_view *v, struct entry *e, const char *rel,
                            dfs_buf *out)
{
	struct job_digest *s = e->digest;
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
			dfs_entry_account_digest(v, e, -(long)before);
			dfs_insight_rows(v, e, rel, out);
			return;
		}
		dfs_entry_account_digest(v, e, (long)(str_bytes(s->insights) +
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

static void render(enum table t, const struct job_digest *s, const char *rel,
                   dfs_buf *out)
{
	if (t == T_JOBS)
		render_job_row(s, rel, out);
	else
		render_module_rows(s, rel, out);
}

/* ---- the index ------------------------------------------------------------------- */

/* A field of an insights.csv row as the summary renderer writes it
 * (quoted when it holds a comma, a quote or a line break) */
static void finding_field(dfs_buf *out, const char *t)
{
	if (!strpbrk(t, ",\"\r\n")) {
		dfs_buf_adds(out, t);
		return;
	}
	dfs_buf_addc(out, '"');
	for (; *t; t++) {
		if (*t == '"')
			dfs_buf_addc(out, '"');
		dfs_buf_addc(out, *t);
	}
	dfs_buf_addc(out, '"');
}

static void render_findings(const dfs_finding_facts *f, size_t n, const char *rel,
                            dfs_buf *out)
{
	for (size_t i = 0; i < n; i++) {
		dfs_csv_field(out, rel, strlen(rel));
		dfs_buf_printf(out, ",%s,%s,", f[i].code, f[i].level);
		finding_field(out, f[i].module);
		dfs_buf_addc(out, ',');
		finding_field(out, f[i].message);
		const double num[4] = {f[i].value, f[i].threshold, f[i].count, f[i].total};
		for (int k = 0; k < 4; k++) {
			dfs_buf_addc(out, ',');
			dfs_buf_add_double(out, num[k]);
		}
		const char *text[3] = {f[i].files, f[i].ranks, f[i].advice};
		for (int k = 0; k < 3; k++) {
			dfs_buf_addc(out, ',');
			finding_field(out, text[k]);
		}
		dfs_buf_addc(out, '\n');
	}
}

static void findings_free(dfs_finding_facts *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].code);
		free(f[i].level);
		free(f[i].module);
		free(f[i].message);
		free(f[i].files);
		free(f[i].ranks);
		free(f[i].advice);
	}
	free(f);
}

/* One CSV field at *p (quotes undone), malloc'd; *p past its comma or
 * line end.  NULL at the end of the text or without memory. */
static char *csv_take(const char **p, const char *end, bool *last)
{
	const char *q = *p;
	if (q >= end)
		return NULL;
	dfs_buf b = DFS_BUF_INIT;
	if (*q == '"') {
		for (q++; q < end; q++) {
			if (*q == '"' && q + 1 < end && q[1] == '"')
				dfs_buf_addc(&b, *q++);
			else if (*q == '"')
				break;
			else
				dfs_buf_addc(&b, *q);
		}
		q++;
	} else {
		const char *e = q;
		while (e < end && *e != ',' && *e != '\n')
			e++;
		dfs_buf_add(&b, q, (size_t)(e - q));
		q = e;
	}
	*last = q >= end || *q == '\n';
	*p = q < end ? q + 1 : end;
	dfs_buf_addc(&b, '\0');
	return dfs_buf_detach(&b, NULL);
}

/* The findings of a log's insights.csv rows (led by its path, which is
 * dropped): 0, or -1 when a row is not a finding the index can give back
 * byte for byte (rendered again, the rows must be the same text). */
static int parse_findings(const char *text, const char *rel, dfs_finding_facts **out,
                          size_t *nout)
{
	enum { FIELDS = 12 };   /* log, then DFS_INSIGHTS_HEADER's */
	const char *p = text, *end = text + strlen(text);
	dfs_finding_facts *f = NULL;
	size_t n = 0, cap = 0;
	bool ok = true;
	while (ok && p < end) {
		char *field[FIELDS] = {0};
		bool last = false;
		size_t k = 0;
		for (; k < FIELDS && !last; k++)
			if (!(field[k] = csv_take(&p, end, &last)))
				break;
		ok = k == FIELDS && last;
		if (ok && n == cap) {
			cap = cap ? cap * 2 : 4;
			dfs_finding_facts *g = realloc(f, cap * sizeof(*g));
			ok = g != NULL;
			if (g)
				f = g;
		}
		if (ok) {
			dfs_finding_facts *x = &f[n++];
			x->code = field[1];
			x->level = field[2];
			x->module = field[3];
			x->message = field[4];
			double *num[4] = {&x->value, &x->threshold, &x->count, &x->total};
			for (int i = 0; i < 4; i++) {
				char *e = NULL;
				*num[i] = strtod(field[5 + i], &e);
				ok &= *field[5 + i] && !*e && isfinite(*num[i]);
				free(field[5 + i]);
			}
			x->files = field[9];
			x->ranks = field[10];
			x->advice = field[11];
			free(field[0]);
		} else {
			for (size_t i = 0; i < k && i < FIELDS; i++)
				free(field[i]);
		}
	}
	if (ok) {
		dfs_buf again = DFS_BUF_INIT;
		render_findings(f, n, rel, &again);
		ok = dfs_buf_ok(&again) && again.len == strlen(text) &&
		     (again.len == 0 || !memcmp(again.data, text, again.len));
		dfs_buf_free(&again);
	}
	if (!ok) {
		findings_free(f, n);
		return -1;
	}
	*out = f ? f : malloc(1);   /* (none: not NULL) */
	*nout = n;
	return *out ? 0 : -1;
}

/* What rules and thresholds the findings were made with: stored findings
 * of others are made again */
static uint64_t insights_key(const dfs_view *v)
{
	dfs_insight_thresholds t;
	if (v->thresholds_set)
		t = v->thresholds;
	else
		dfs_insight_thresholds_default(&t);
	return dfs_fnv1a(DFS_FNV1A_INIT ^ DFS_INSIGHT_RULES, &t, sizeof(t)) | 1;
}

/* A log's directory below SOURCE and its name, from its vpath */
static void split_vpath(const char *vpath, char *dir, size_t size, const char **name)
{
	const char *slash = strrchr(vpath, '/');
	size_t n = slash > vpath ? (size_t)(slash - vpath - 1) : 0;
	if (n >= size)
		n = size - 1;
	memcpy(dir, vpath + 1, n);
	dir[n] = '\0';
	*name = slash + 1;
}

/* The digest is of the log's whole selections: no filter of any level
 * can change them, and none changed since it was made (entry locked). */
static bool unfiltered(struct pool *p, struct entry *e, const struct job_digest *s)
{
	pthread_mutex_lock(&p->v->lock);
	bool own = e->own_filters;
	pthread_mutex_unlock(&p->v->lock);
	uint64_t gen;
	return !own && !dfs_dir_filters_change(p->v, e->state, e->vpath, s->job.present, &gen) &&
	       gen == s->dir_gen && s->gen == e->gen;
}

/* Keep what the tables know of a log in the index, when its selections
 * are every record (unfiltered) and it was not made of a passing failure
 * (entry locked). */
static bool index_store(struct pool *p, struct entry *e, struct log_item *it)
{
	struct job_digest *s = e->digest;
	bool insights = p->table == T_INSIGHTS;
	if (!s || s->transient || (it->stored && !insights) ||
	    (it->stored && it->stored_log.has_findings))
		return false;
	if (!unfiltered(p, e, s))
		return false;
	dfs_finding_facts *f = NULL;
	size_t nf = 0;
	if (insights && !s->job.error && s->insights &&
	    parse_findings(s->insights, s->insights_rel, &f, &nf))
		f = NULL;
	char dir[4096];
	const char *name;
	split_vpath(it->vpath, dir, sizeof(dir), &name);
	dfs_index_id id;
	index_id_of(&id, &s->src);
	if (it->stored) {
		if (f)
			dfs_index_put_findings(p->ix, dir, name, &id, p->insights_key, f, nf);
	} else {
		dfs_module_facts rows[MAX_ROWS];
		for (size_t i = 0; i < s->nrows; i++)
			rows[i] = s->rows[i].f;
		/* the jobs.csv row between the path and the filters */
		dfs_buf row = DFS_BUF_INIT, path = DFS_BUF_INIT;
		char *filters = s->filters;
		s->filters = NULL;
		render_job_row(s, it->rel, &row);
		s->filters = filters;
		dfs_csv_field(&path, it->rel, strlen(it->rel));
		char *text = NULL;
		if (dfs_buf_ok(&row) && dfs_buf_ok(&path) && row.len >= path.len + 2 &&
		    !memcmp(row.data + row.len - 2, ",\n", 2))
			text = strndup(row.data + path.len, row.len - path.len - 2);
		dfs_buf_free(&row);
		dfs_buf_free(&path);
		dfs_index_put(p->ix, dir, name, &id, &s->job, text, rows, s->nrows,
		              p->insights_key, f, nf);
		free(text);
	}
	/* (an insights.csv row not kept leaves the log to be decoded again) */
	bool kept = !insights || f || s->job.error;
	findings_free(f, nf);
	return kept;
}

/* Render a log from what the index holds, when no filter can change its
 * selections for the caller: 0, or -1 to summarize it as any other. */
static int from_index(struct pool *p, struct log_item *it, struct node *n)
{
	dfs_index_log *l = &it->stored_log;
	bool insights = p->table == T_INSIGHTS;
	if (!it->stored || (insights && !l->job.error && !l->has_findings))
		return -1;
	dfs_view *v = p->v;
	if ((!p->no_entries && dfs_entry_own_filters(v, it->src, n->state)) ||
	    (!p->no_dirs && dfs_dir_filters_change(v, n->state, it->vpath, l->job.present, NULL)))
		return -1;
	if (insights) {
		if (l->job.error)
			insight_error(it->rel, l->job.error, &it->rows);
		else
			render_findings(l->findings, l->nfindings, it->rel, &it->rows);
		return 0;
	}
	bool dirs = false;
	if (!p->no_dirs) {
		pthread_mutex_lock(&v->lock);
		dirs = dfs_dir_state_above(v, n->state, it->vpath);
		pthread_mutex_unlock(&v->lock);
	}
	struct entry none;
	if (dirs) {
		memset(&none, 0, sizeof(none));
		none.src = it->src;
		none.vpath = it->vpath;
		none.state = n->state;
	}
	if (p->table == T_JOBS) {
		if (!l->jobs_row)
			return -1;
		dfs_csv_field(&it->rows, it->rel, strlen(it->rel));
		dfs_buf_adds(&it->rows, l->jobs_row);
		dfs_buf_addc(&it->rows, ',');
		if (dirs && !l->job.error) {
			/* the filters of its rows' modules (those with an
			 * accumulator it has data of) */
			uint64_t mask = 0;
			for (int id = 0; id < DFS_MOD_KNOWN; id++)
				if (((l->job.present >> id) & 1) && dfs_module_has_bytes_col(id))
					mask |= 1ULL << id;
			dfs_buf b = DFS_BUF_INIT;
			dfs_filters_line_job(v, &none, mask, &b);
			if (b.len)
				dfs_csv_field(&it->rows, b.data, b.len);
			dfs_buf_free(&b);
		}
		dfs_buf_addc(&it->rows, '\n');
		return 0;
	}
	struct job_digest *s = calloc(1, sizeof(*s) + MAX_ROWS * sizeof(s->rows[0]));
	if (!s)
		return -1;
	s->job = l->job;
	s->nrows = l->nrows;
	/* the filters: those of the directories above, which change none
	 * of its selections (an entry with nothing of its own names them) */
	uint64_t mask = 0;
	for (size_t i = 0; i < l->nrows; i++) {
		s->rows[i].f = l->rows[i];
		if (l->rows[i].module >= 0)
			mask |= 1ULL << l->rows[i].module;
		dfs_buf b = DFS_BUF_INIT;
		if (dirs)
			dfs_filters_line(v, &none, l->rows[i].module, &b);
		s->rows[i].filters = filters_of(&b);
	}
	dfs_buf b = DFS_BUF_INIT;
	if (dirs)
		dfs_filters_line_job(v, &none, mask, &b);
	s->filters = filters_of(&b);
	render(p->table, s, it->rel, &it->rows);
	/* (the strings are the stored log's) */
	for (size_t i = 0; i < s->nrows; i++)
		free(s->rows[i].filters);
	free(s->filters);
	free(s);
	return 0;
}

/* The entry's job digest made fresh (kept) or touched, the log decoded
 * through the pool's gate when it must be (entry locked).  A caller
 * judged on the walk's version it->id of the log reads that version's
 * digest, or none (see entry.expect): returns whether the caller is
 * judged so, and then its row is the caller's only when the digest is of
 * that version (judged_out). */
static bool fresh_digest(struct pool *p, struct entry *e, const struct log_item *it)
{
	dfs_view *v = p->v;
	pthread_mutex_lock(&v->lock);
	uint64_t dir_gen = dfs_state_dir_gen(v, e->state);
	pthread_mutex_unlock(&v->lock);
	bool judged = dfs_access_judged(v, p->who);
	if (judged)
		dfs_entry_expect(e, &it->id);
	struct stat st;
	bool fresh = e->digest && e->digest->gen == e->gen &&
	             e->digest->dir_gen == dir_gen &&
	             (judged ? dfs_src_id_same(&e->digest->src, &it->id)
	                     : stat(e->src, &st) == 0 && dfs_src_same(&e->digest->src, &st));
	if (!fresh) {
		size_t limit = dfs_log_inflate_limit(it->disk_bytes);
		inflating(p->gate, limit, true);
		struct job_digest *s = summarize(v, e, dir_gen);
		inflating(p->gate, limit, false);
		if (s && e->expect_refused)
			job_digest_free(s);   /* of no version: the file moved */
		else if (s)
			dfs_entry_keep_digest(v, e, s, job_digest_bytes(s), job_digest_free);
	} else {
		dfs_entry_touch_digest(v, e);
	}
	return judged;
}

/* The log was replaced after the walk judged the caller on it: no row,
 * as for what the caller may not read. */
static bool judged_out(const struct entry *e, const struct src_id *id)
{
	return e->expect_refused || !e->digest || e->digest->src.dev != id->dev ||
	       e->digest->src.ino != id->ino;
}

/* ---- files.csv ---------------------------------------------------------------- */

/* The log's files, for its job digest: each module with per-file
 * records, from its selection (entry locked); a module that cannot be
 * read is named with why. */
static struct files_ref *log_files(dfs_view *v, struct entry *e, struct decoded_log *l)
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

/* The log's files from the index, when it has them of this very file
 * and no filter can change its selections for the caller (see
 * from_index): 0, or -1 to summarize it as any other. */
static int files_from_index(struct pool *p, struct log_item *it, const struct node *n)
{
	dfs_index_log *l = &it->stored_log;
	if (!p->ix || !it->stored)
		return -1;
	dfs_view *v = p->v;
	if ((!p->no_entries && dfs_entry_own_filters(v, it->src, n->state)) ||
	    (!p->no_dirs && dfs_dir_filters_change(v, n->state, it->vpath, l->job.present, NULL)))
		return -1;
	if (l->job.error)
		return (it->skip = strdup(l->job.error)) ? 0 : -1;
	char dir[4096];
	const char *name;
	split_vpath(it->vpath, dir, sizeof(dir), &name);
	dfs_buf b = DFS_BUF_INIT;
	struct files_ref *f = NULL;
	if (dfs_index_files(p->ix, dir, name, &l->id, DFS_FILES_PACK_VERSION, &b) &&
	    b.len >= 8 && (f = malloc(sizeof(*f)))) {
		uint64_t start = 0;
		for (int i = 0; i < 8; i++)
			start |= (uint64_t)(unsigned char)b.data[i] << (8 * i);
		atomic_init(&f->refs, 1);
		if ((f->lf = dfs_log_files_unpack(b.data + 8, b.len - 8))) {
			it->files = f;
			it->start = (int64_t)start;
		} else {
			free(f);
			f = NULL;
		}
	}
	dfs_buf_free(&b);
	return f ? 0 : -1;
}

/* Keep the log's files in the index (with its facts, when the index has
 * not them yet), under the conditions of index_store (entry locked). */
static void files_store(struct pool *p, struct entry *e, struct log_item *it)
{
	struct job_digest *s = e->digest;
	if (!s || s->transient)
		return;
	if (!it->stored && !index_store(p, e, it))
		return;
	if (s->job.error || !s->files || !unfiltered(p, e, s))
		return;
	dfs_buf b = DFS_BUF_INIT;
	unsigned char start[8];
	for (int i = 0; i < 8; i++)
		start[i] = (unsigned char)((uint64_t)s->job.start >> (8 * i));
	dfs_buf_add(&b, start, sizeof(start));
	dfs_log_files_pack(s->files->lf, &b);
	if (dfs_buf_ok(&b)) {
		char dir[4096];
		const char *name;
		split_vpath(it->vpath, dir, sizeof(dir), &name);
		dfs_index_id id;
		index_id_of(&id, &s->src);
		dfs_index_put_files(p->ix, dir, name, &id, DFS_FILES_PACK_VERSION, b.data, b.len);
	}
	dfs_buf_free(&b);
}

/* A log of a directory's files.csv: its files (it->files, with its
 * job's start), or why it is left out (it->skip), or neither (no row:
 * what the caller may not read). */
static void files_item(struct pool *p, struct log_item *it)
{
	dfs_view *v = p->v;
	if (it->error)
		return;
	struct node n;
	memset(&n, 0, sizeof(n));
	n.src = it->src;
	n.log_vpath = it->vpath;
	n.module = -1;
	n.kind = N_LOGDIR;
	dfs_error err = {0};
	int state = dfs_node_state(v, &n, p->who, false, &err);
	if (state == 0 && files_from_index(p, it, &n) == 0)
		return;
	struct entry *e = state ? NULL : dfs_entry_get(v, &n, &err);
	if (!e) {
		it->skip = strdup(err.msg[0] ? err.msg : "unreadable log");
		return;
	}
	if (fresh_digest(p, e, it) && judged_out(e, &it->id)) {
		dfs_entry_put(v, e);
		return;   /* no row */
	}
	struct job_digest *s = e->digest;
	if (s && !s->job.error && !s->files) {
		size_t limit = dfs_log_inflate_limit(it->disk_bytes);
		inflating(p->gate, limit, true);
		struct decoded_log *l = dfs_entry_load(v, e, &err);
		if (!l) {
			it->skip = strdup(err.msg[0] ? err.msg : "unreadable log");
		} else if ((s->files = log_files(v, e, l))) {
			dfs_entry_account_digest(v, e, (long)(sizeof(*s->files) +
			                                       dfs_log_files_memory(s->files->lf)));
		}
		inflating(p->gate, limit, false);
	}
	if (it->skip) {
		/* said above */
	} else if (!s || (!s->job.error && !s->files)) {
		it->skip = strdup("out of memory");
	} else if (s->job.error) {
		it->skip = strdup(s->job.error);
	} else {
		it->files = files_ref(s->files);
		it->start = s->job.start;
	}
	if (p->ix && !e->expect_refused && s && (s->job.error || it->files))
		files_store(p, e, it);
	dfs_entry_put(v, e);
}

static void summarize_item(struct pool *p, struct log_item *it)
{
	dfs_view *v = p->v;
	bool insights = p->table == T_INSIGHTS;
	if (it->error && insights) {
		insight_error(it->rel, it->error, &it->rows);
		return;
	}
	if (it->error) {
		struct job_digest s = {0};
		s.job.error = (char *)it->error;
		render(p->table, &s, it->rel, &it->rows);
		return;
	}
	if (it->unchecked) {
		struct stat st;
		const char *name = strrchr(it->src, '/') + 1;
		char *real = NULL;
		int kind = dfs_source_kind_at(v, it->dir ? it->dir->fd : -1, it->src, name, &st,
		                              p->chk, &real);
		bool reach = kind == N_LOGDIR &&
		             dfs_may_access(p->who, real ? real : it->src, &st, 4);
		free(real);
		if (!reach) {
			/* no log after all (the index forgets it), or not the
			 * caller's: no row */
			if (kind != N_LOGDIR && it->stored && p->ix) {
				char dir[4096];
				const char *base;
				split_vpath(it->vpath, dir, sizeof(dir), &base);
				dfs_index_forget(p->ix, dir, base);
			}
			return;
		}
		if (it->stored && !stored_same(&it->stored_log, &st)) {
			dfs_index_log_clear(&it->stored_log);
			it->stored = false;
		}
		dfs_src_id(&it->id, &st);
		it->disk_bytes = dfs_stored_size(&st);
	}
	if (p->table == T_FILES) {
		files_item(p, it);
		return;
	}
	struct node n;
	memset(&n, 0, sizeof(n));
	n.src = it->src;
	n.log_vpath = it->vpath;
	n.module = -1;
	n.kind = N_LOGDIR;
	dfs_error err = {0};
	int state = dfs_node_state(v, &n, p->who, false, &err);
	if (state == 0 && from_index(p, it, &n) == 0)
		return;
	/* a log the view did not know before is forgotten once the index
	 * has it (the view's entries would otherwise grow with the tree) */
	bool known = !p->ix || state || dfs_entry_known(v, it->src, n.state);
	struct entry *e = state ? NULL : dfs_entry_get(v, &n, &err);
	if (!e && insights) {
		insight_error(it->rel, err.msg, &it->rows);
		return;
	}
	if (!e) {
		struct job_digest s = {0};
		s.job.error = err.msg;
		render(p->table, &s, it->rel, &it->rows);
		return;
	}
	bool judged = fresh_digest(p, e, it);
	if (!e->expect_refused && insights)
		render_insights(v, e, it->rel, &it->rows);
	else if (!e->expect_refused && e->digest)
		render(p->table, e->digest, it->rel, &it->rows);
	/* replaced after the walk judged it: no row, as for what the
	 * caller may not read */
	if (judged && judged_out(e, &it->id))
		dfs_buf_reset(&it->rows);
	bool indexed = p->ix && !e->expect_refused && index_store(p, e, it);
	dfs_entry_put(v, e);
	if (indexed && !known)
		dfs_entry_forget_plain(v, it->src, n.state);
}

static void *worker(void *arg)
{
	struct pool *p = arg;
	for (;;) {
		size_t i = atomic_fetch_add(&p->next, 1);
		if (i >= p->n)
			break;
		summarize_item(p, &p->items[i]);
	}
	return NULL;
}

/* The background batch done: its rows into the text in order, and it
 * emptied */
static void finish(struct walk *w)
{
	struct batch *b = &w->bg;
	if (b->running) {
		pthread_mutex_lock(&w->crew.lock);
		while (w->crew.running)
			pthread_cond_wait(&w->crew.done, &w->crew.lock);
		pthread_mutex_unlock(&w->crew.lock);
	}
	b->running = false;
	seal_now(w, &b->seal);
	if (!b->n)
		return;
	if (w->ix)
		dfs_index_commit(w->ix);
	if (b->pool.released) {
		w->oom |= b->pool.oom;
		b->n = 0;
		return;
	}
	/* the rows of the batch, to go into the text at once */
	struct iovec *rows = w->table == T_FILES ? NULL : malloc(b->n * sizeof(*rows));
	size_t nrows = 0;
	for (size_t i = 0; i < b->n; i++) {
		struct log_item *it = &b->items[i];
		if (it->stored)
			dfs_index_log_clear(&it->stored_log);
		if (w->table == T_FILES) {
			/* its files merged in the table's order (so that sums and
			 * ties come out the same on every read), and let go */
			if (w->failed || w->oom)
				;
			else if (it->error || it->skip)
				w->failed = dfs_files_merge_skip(w->fm, it->rel,
				                                 it->error ? it->error : it->skip,
				                                 &w->err) != 0;
			else if (it->files)
				w->failed = dfs_files_merge_add(w->fm, it->rel, it->start,
				                                it->files->lf, &w->err) != 0;
			files_release(it->files);
			it->files = NULL;
			free(it->skip);
			it->skip = NULL;
		} else if (!dfs_buf_ok(&it->rows)) {
			w->oom = true;
		} else if (!w->oom && rows) {
			rows[nrows].iov_base = it->rows.data;
			rows[nrows++].iov_len = it->rows.len;
		} else if (!w->oom) {
			text_add(&w->out, it->rows.data, it->rows.len);
		}
		free(it->paths);
		dir_ref_put(it->dir);
		it->dir = NULL;
	}
	if (!w->oom)
		text_add_many(&w->out, rows, nrows);
	free(rows);
	b->n = 0;
}

/* The rows of a summarized batch into the text in order, and its items
 * let go (by the batch's thread: the walk goes on meanwhile). */
static void release_rows(struct pool *p)
{
	struct iovec *rows = malloc(p->n * sizeof(*rows));
	size_t nrows = 0;
	for (size_t i = 0; i < p->n; i++) {
		struct log_item *it = &p->items[i];
		if (it->stored)
			dfs_index_log_clear(&it->stored_log);
		if (!dfs_buf_ok(&it->rows)) {
			p->oom = true;
		} else if (rows) {
			rows[nrows].iov_base = it->rows.data;
			rows[nrows++].iov_len = it->rows.len;
		} else {
			text_add(p->out, it->rows.data, it->rows.len);
		}
		free(it->paths);
		dir_ref_put(it->dir);
		it->dir = NULL;
	}
	if (!p->oom)
		text_add_many(p->out, rows, nrows);
	free(rows);
	p->released = true;
}

/* A thread of the crew: each batch handed over, its share of it; the
 * last to be done puts its rows into the text. */
static void *crew_thread(void *arg)
{
	struct crew *c = arg;
	uint64_t seen = 0;
	pthread_mutex_lock(&c->lock);
	for (;;) {
		while (c->gen == seen && !c->quit)
			pthread_cond_wait(&c->go, &c->lock);
		if (c->quit)
			break;
		seen = c->gen;
		struct pool *p = c->job;
		pthread_mutex_unlock(&c->lock);
		worker(p);
		pthread_mutex_lock(&c->lock);
		if (--c->busy == 0) {
			pthread_mutex_unlock(&c->lock);
			if (p->table != T_FILES)
				release_rows(p);
			pthread_mutex_lock(&c->lock);
			c->running = false;
			pthread_cond_broadcast(&c->done);
		}
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* The batch to the crew (started at the first): true, or false when it
 * has no thread and the batch was done here. */
static bool crew_start(struct crew *c, struct pool *p)
{
	if (!c->started) {
		c->started = true;
		pthread_mutex_init(&c->lock, NULL);
		pthread_cond_init(&c->go, NULL);
		pthread_cond_init(&c->done, NULL);
		size_t want = dfs_workers(DFS_WORKERS_MAX, BATCH);
		while (c->n < want && pthread_create(&c->tid[c->n], NULL, crew_thread, c) == 0)
			c->n++;
	}
	if (!c->n) {
		worker(p);
		if (p->table != T_FILES)
			release_rows(p);
		return false;
	}
	pthread_mutex_lock(&c->lock);
	c->job = p;
	c->busy = c->n;
	c->running = true;
	c->gen++;
	pthread_cond_broadcast(&c->go);
	pthread_mutex_unlock(&c->lock);
	return true;
}

/* The crew's threads ended (no batch running) */
static void crew_end(struct crew *c)
{
	if (!c->started)
		return;
	pthread_mutex_lock(&c->lock);
	c->quit = true;
	pthread_cond_broadcast(&c->go);
	pthread_mutex_unlock(&c->lock);
	for (size_t i = 0; i < c->n; i++)
		pthread_join(c->tid[i], NULL);
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->go);
	pthread_cond_destroy(&c->done);
}

/* Hand the gathered batch to workers in the background (the one before
 * it done first), and start an empty one. */
static void flush(struct walk *w)
{
	finish(w);
	struct batch *b = &w->bg;
	if (!w->n) {
		/* (the logs before are summarized: sealed at once) */
		seal_now(w, &w->seal);
		return;
	}
	/* (the directories to seal go with the batch) */
	struct dir_list seal = b->seal;
	b->seal = w->seal;
	w->seal = seal;
	w->seal.n = 0;
	struct log_item *items = b->items;
	size_t cap = b->cap, inited = b->inited;
	b->items = w->items;
	b->n = w->n;
	b->cap = w->cap;
	b->inited = w->inited;
	w->items = items;
	w->n = 0;
	w->cap = cap;
	w->inited = inited;
	w->seq++;
	b->pool.released = false;
	if (w->oom)
		return;
	b->pool = (struct pool){w->table, w->ix, w->insights_key, w->v, w->who, w->chk,
	                        &w->gate, b->items, b->n, 0, w->no_dirs, w->no_entries,
	                        &w->out, false, false};
	b->running = crew_start(&w->crew, &b->pool);
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
		dfs_snapshot *content;
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
	dfs_snapshot_release(jc->slot[i].content);
	jc->slot[i].content = NULL;
	dfs_view_account_jobs(v, -(long)jc->slot[i].bytes);
	jc->slot[i].bytes = 0;
}

static dfs_snapshot *cache_find(dfs_view *v, const char *vpath, uint64_t who)
{
	dfs_snapshot *c = NULL;
	pthread_mutex_lock(&v->lock);
	struct jobs_cache *jc = v->jobs;
	for (size_t i = 0; jc && i < CACHE_SLOTS; i++) {
		if (!jc->slot[i].vpath)
			continue;
		if (slot_stale(v, jc, i)) {
			/* stale: its text need not wait for the slot's reuse */
			slot_clear(v, jc, i);
		} else if (!c && !strcmp(jc->slot[i].vpath, vpath) && jc->slot[i].who == who) {
			c = dfs_snapshot_ref(jc->slot[i].content);
		}
	}
	pthread_mutex_unlock(&v->lock);
	return c;
}

/* (the cache calls it through v->jobs_expire, which view.c sets) */
size_t dfs_jobs_cache_expire(dfs_view *v)
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
                        struct jobs_gens gens, dfs_snapshot *c)
{
	pthread_mutex_lock(&v->lock);
	if (!v->jobs) {
		v->jobs = calloc(1, sizeof(*v->jobs));
	}
	struct jobs_cache *jc = v->jobs;
	if (jc) {
		size_t i = jc->next++ % CACHE_SLOTS;
		slot_clear(v, jc, i);
		jc->slot[i].vpath = strdup(vpath);
		jc->slot[i].who = who;
		jc->slot[i].gens = gens;
		clock_gettime(CLOCK_MONOTONIC, &jc->slot[i].made);
		jc->slot[i].content = dfs_snapshot_ref(c);
		jc->slot[i].bytes = dfs_snapshot_memory(c);
		dfs_view_account_jobs(v, (long)jc->slot[i].bytes);
	}
	pthread_mutex_unlock(&v->lock);
	/* (it goes when its second is up; over the budget, the decoded logs
	 * go now) */
	dfs_view_jobs_kept(v);
}

void dfs_jobs_cache_free(dfs_view *v)
{
	struct jobs_cache *jc = v->jobs;
	if (!jc)
		return;
	for (size_t i = 0; i < CACHE_SLOTS; i++) {
		free(jc->slot[i].vpath);
		dfs_snapshot_release(jc->slot[i].content);
	}
	free(jc);
	v->jobs = NULL;
}

/* Where a big table goes: the index's directory, else $TMPDIR or /tmp */
static bool spill_place(const dfs_view *v, char *dir, size_t size)
{
	const char *tmp = getenv("TMPDIR");
	const char *from = v->index_path ? v->index_path : tmp && *tmp == '/' ? tmp : "/tmp";
	size_t n = strlen(from);
	if (v->index_path) {
		const char *slash = strrchr(from, '/');
		n = slash ? (size_t)(slash - from) : 0;
	}
	if (n == 0 || n >= size)
		return false;
	memcpy(dir, from, n);
	dir[n] = '\0';
	return true;
}

dfs_snapshot *dfs_jobs_content(dfs_view *v, const struct node *n,
                               const dfs_caller *who, dfs_error *err)
{
	int twin = dfs_parquet_source(n->file);
	if (twin >= 0) {
		/* a table's Parquet twin, made from its CSV and kept like it */
		uint64_t key = caller_key(v, who) ^ ((uint64_t)1 << 5) ^ ((uint64_t)twin << 6);
		dfs_snapshot *c = cache_find(v, n->dir_vpath, key);
		if (c)
			return c;
		pthread_mutex_lock(&v->lock);
		struct jobs_gens gens = jobs_gens_now(v, dfs_caller_state(v, who));
		pthread_mutex_unlock(&v->lock);
		struct node cn = *n;
		cn.file = (enum file_kind)twin;
		dfs_snapshot *csv = dfs_jobs_content(v, &cn, who, err);
		if (!csv)
			return NULL;
		/* its footer names the filters in force on it, as its
		 * attribute user.darshanfs.selection does */
		dfs_buf sel = DFS_BUF_INIT;
		dfs_selection_line(v, dfs_caller_state(v, who), n->dir_vpath, NULL, &sel);
		c = dfs_parquet_twin(v, csv, cn.file, -1, &sel, err);
		dfs_buf_free(&sel);
		dfs_snapshot_release(csv);
		if (c)
			cache_store(v, n->dir_vpath, key, gens, c);
		return c;
	}
	enum table table = n->file == F_DIR_INSIGHTS ? T_INSIGHTS :
	                   n->file == F_MODULES ? T_MODULES :
	                   n->file == F_DIR_FILES ? T_FILES : T_JOBS;
	/* the tables of a directory share the cache: their keys differ in
	 * their second and third bits */
	uint64_t key = caller_key(v, who) ^ ((uint64_t)table << 1);
	dfs_snapshot *c = cache_find(v, n->dir_vpath, key);
	if (c)
		return c;
	/* (read before the walk: a write meanwhile leaves the rendering
	 * stale, never a stale one fresh) */
	pthread_mutex_lock(&v->lock);
	struct jobs_gens gens = jobs_gens_now(v, dfs_caller_state(v, who));
	bool no_dirs = v->dirs == NULL, no_entries = v->entries == 0;
	pthread_mutex_unlock(&v->lock);
	struct walk w = {.table = table, .who = who, .v = v,
	                 .ix = dfs_view_index(v), .no_dirs = no_dirs,
	                 .no_entries = no_entries};
	struct access_check ac;
	w.chk = dfs_access_check(v, who, &ac);
	pthread_mutex_init(&w.gate.lock, NULL);
	pthread_cond_init(&w.gate.room, NULL);
	w.gate.cap = inflating_cap(v);
	w.insights_key = insights_key(v);
	for (int k = 0; k < F_KINDS; k++) {
		size_t l = strlen(dfs_file_defs[k].name);
		w.own_log_names |= (dfs_file_defs[k].level == LEVEL_DIR ||
		                    dfs_file_defs[k].level == LEVEL_ROOT) &&
		                   l >= 8 && !strcmp(dfs_file_defs[k].name + l - 8, ".darshan");
	}
	w.out.fd = -1;
	w.out.spill_at = v->opt.cache_size / 8;
	if (w.out.spill_at < SPILL_MIN)
		w.out.spill_at = SPILL_MIN;
	if (w.out.spill_at > SPILL_MAX)
		w.out.spill_at = SPILL_MAX;
	char spill_dir[4096];
	if (spill_place(v, spill_dir, sizeof(spill_dir)))
		w.out.spill_dir = spill_dir;
	if (table == T_FILES) {
		w.fm = dfs_files_merge_new(v->opt.cache_size);
		w.oom |= !w.fm;
	} else {
		dfs_buf head = DFS_BUF_INIT;
		dfs_table_header(table == T_JOBS ? F_JOBS : table == T_MODULES ? F_MODULES
		                                                                : F_DIR_INSIGHTS, &head);
		text_add(&w.out, head.data, head.len);
		w.oom |= !dfs_buf_ok(&head);
		dfs_buf_free(&head);
	}
	walk_dir(&w, n->src, "", n->dir_vpath, 0);
	flush(&w);
	finish(&w);
	crew_end(&w.crew);
	if (w.ix)
		dfs_index_commit(w.ix);
	for (int i = 0; i <= MAX_DEPTH; i++)
		free(w.sd[i]);
	seal_drop(&w.seal);
	seal_drop(&w.bg.seal);
	for (size_t i = 0; i < w.inited; i++)
		dfs_buf_free(&w.items[i].rows);
	free(w.items);
	for (size_t i = 0; i < w.bg.inited; i++)
		dfs_buf_free(&w.bg.items[i].rows);
	free(w.bg.items);
	pthread_mutex_destroy(&w.gate.lock);
	pthread_cond_destroy(&w.gate.room);
	if (table == T_FILES) {
		dfs_buf out = DFS_BUF_INIT;
		int ret = -1;
		if (w.oom)
			dfs_error_set(err, DFS_ERR_NOMEM, "out of memory listing %s", n->dir_vpath);
		else if (w.failed)
			*err = w.err;
		else
			ret = dfs_files_merge_render(w.fm, &out, err);
		dfs_files_merge_free(w.fm);
		text_free(&w.out);
		c = ret == 0 ? dfs_snapshot_from_buf(v, &out, err) : NULL;
		if (ret)
			dfs_buf_free(&out);
	} else if (w.oom || w.out.oom) {
		text_free(&w.out);
		dfs_error_set(err, DFS_ERR_NOMEM, "out of memory listing %s", n->dir_vpath);
		return NULL;
	} else {
		c = text_content(v, &w.out, err);
	}
	if (c)
		cache_store(v, n->dir_vpath, key, gens, c);
	return c;
}

/* summary.html of a source directory: the summary renderer's page of
 * its modules.csv (the caller's) */
dfs_snapshot *dfs_dir_summary_content(dfs_view *v, const struct node *n,
                                      const dfs_caller *who, dfs_error *err)
{
	struct node jobs = *n;
	jobs.file = F_MODULES;
	dfs_snapshot *c = dfs_jobs_content(v, &jobs, who, err);
	if (!c)
		return NULL;
	size_t len = (size_t)dfs_snapshot_size(c);
	char *text = malloc(len ? len : 1);
	long got = text ? dfs_snapshot_read(c, text, len, 0, err) : -1;
	dfs_snapshot_release(c);
	if (got < 0 || (size_t)got != len) {
		free(text);
		if (got >= 0 || !text)
			dfs_error_nomem(err);
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
	return dfs_snapshot_from_buf(v, &out, err);
}
