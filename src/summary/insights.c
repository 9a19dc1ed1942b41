/* insights.c - problems in the I/O of a job, each with the numbers behind
 * it, the files (or ranks) it is about and what to do about it (advice.c):
 * Drishti's triggers with its default thresholds, and a few more (partial
 * modules, big shared files on one Lustre stripe, the share of I/O time
 * taken by the worst rank, small and independent accesses of HDF5
 * datasets, PnetCDF variables and DFS files), and the data problems of
 * the log (counters no run can have written: the Q_ findings), which keep
 * the rules whose inputs they spoil from saying false things.  Thresholds
 * can be changed by a small "name = value" file.  docs/insights.md tells
 * every rule. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "summary/summary_int.h"

/* ---- thresholds --------------------------------------------------------------- */

void dfs_insight_thresholds_default(dfs_insight_thresholds *t)
{
	t->imbalance_operations = 0.1;
	t->small_bytes = 1048576;
	t->small_requests = 0.1;
	t->small_requests_absolute = 1000;
	t->misaligned_requests = 0.1;
	t->metadata_time_rank = 30;
	t->random_operations = 0.2;
	t->random_operations_absolute = 1000;
	t->imbalance_stragglers = 0.15;
	t->imbalance_size = 0.3;
	t->interface_stdio = 0.1;
	t->collective_operations = 0.5;
	t->collective_operations_absolute = 1000;
	t->lustre_large_file = 1073741824.0;
	t->worst_rank_share = 0.5;
	t->worst_rank_time = 1;
	t->interface_stdio_absolute = 1048576;
	t->misaligned_requests_absolute = 1000;
	t->imbalance_bytes_absolute = 1048576;
	t->imbalance_time_absolute = 1;
}

#define T(name) {#name, offsetof(dfs_insight_thresholds, name)}
static const struct {
	const char *name;
	size_t off;
} threshold_names[] = {
	T(imbalance_operations), T(small_bytes), T(small_requests),
	T(small_requests_absolute), T(misaligned_requests), T(metadata_time_rank),
	T(random_operations), T(random_operations_absolute), T(imbalance_stragglers),
	T(imbalance_size), T(interface_stdio), T(collective_operations),
	T(collective_operations_absolute), T(lustre_large_file), T(worst_rank_share),
	T(worst_rank_time), T(interface_stdio_absolute), T(misaligned_requests_absolute),
	T(imbalance_bytes_absolute), T(imbalance_time_absolute),
};
#undef T

static int parse_value(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || errno || !isfinite(v) || v < 0)
		return -1;
	while (*end == ' ' || *end == '\t')
		end++;
	static const char *const sfx[] = {"KiB", "MiB", "GiB", "TiB"};
	double mul = 1;
	for (int k = 0; k < 4; k++)
		if (strncmp(end, sfx[k], 3) == 0) {
			mul = pow(1024, k + 1);
			end += 3;
		}
	while (*end == ' ' || *end == '\t' || *end == '\r')
		end++;
	if (*end)
		return -1;
	*out = v * mul;
	return 0;
}

int dfs_insight_thresholds_parse(dfs_insight_thresholds *t, const char *text,
                                 dfs_error *err)
{
	size_t line = 0;
	const char *p = text;
	while (*p) {
		line++;
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char buf[256];
		if (len >= sizeof(buf))
			return dfs_error_set(err, DFS_ERR_INVAL, "line %zu: too long", line);
		memcpy(buf, p, len);
		buf[len] = '\0';
		p += len + (nl ? 1 : 0);
		char *hash = strchr(buf, '#');
		if (hash)
			*hash = '\0';
		char *s = buf;
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			continue;
		char *eq = strchr(s, '=');
		if (!eq)
			return dfs_error_set(err, DFS_ERR_INVAL, "line %zu: expected name = value", line);
		char *ne = eq;
		while (ne > s && isspace((unsigned char)ne[-1]))
			ne--;
		*ne = '\0';
		char *v = eq + 1;
		while (isspace((unsigned char)*v))
			v++;
		size_t k;
		for (k = 0; k < sizeof(threshold_names) / sizeof(*threshold_names); k++)
			if (strcmp(threshold_names[k].name, s) == 0)
				break;
		if (k == sizeof(threshold_names) / sizeof(*threshold_names))
			return dfs_error_set(err, DFS_ERR_INVAL, "line %zu: unknown threshold '%s'",
			                     line, s);
		double d;
		if (parse_value(v, &d))
			return dfs_error_set(err, DFS_ERR_INVAL, "line %zu: '%s' is not a number >= 0",
			                     line, v);
		*(double *)((char *)t + threshold_names[k].off) = d;
	}
	return 0;
}

int dfs_insight_thresholds_load(dfs_insight_thresholds *t, const char *path,
                                dfs_error *err)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return dfs_error_set(err, DFS_ERR_IO, "%s: %s", path, strerror(errno));
	char *text = malloc(65537);
	size_t n = text ? fread(text, 1, 65537, f) : 0;
	bool bad = ferror(f);
	fclose(f);
	if (!text)
		return dfs_error_nomem(err);
	if (bad || n > 65536 || memchr(text, '\0', n)) {
		free(text);
		return dfs_error_set(err, DFS_ERR_INVAL, "%s: %s", path,
		                     bad ? "unreadable" : "not a thresholds file");
	}
	text[n] = '\0';
	dfs_error e = {0};
	int ret = dfs_insight_thresholds_parse(t, text, &e);
	free(text);
	if (ret)
		return dfs_error_set(err, e.code, "%s: %s", path, e.msg);
	return 0;
}

/* ---- findings ----------------------------------------------------------------- */

/* the findings as the rules add them (a few: the array grows) */
struct findings {
	struct finding *f;
	size_t n, cap;
	/* per finding: the module and list its files come from */
	struct io_facts *io[MAX_FINDINGS];
	int tally[MAX_FINDINGS];
};

static struct finding *add(struct findings *fs, const char *code, const char *level,
                           const char *module, double value, double threshold,
                           double count, double total)
{
	if (fs->n >= MAX_FINDINGS)
		return NULL;
	if (fs->n == fs->cap) {
		size_t cap = fs->cap ? fs->cap * 2 : 8;
		struct finding *g = realloc(fs->f, (cap < MAX_FINDINGS ? cap : MAX_FINDINGS) *
		                                   sizeof(*g));
		if (!g)
			return NULL;
		fs->f = g;
		fs->cap = cap < MAX_FINDINGS ? cap : MAX_FINDINGS;
	}
	fs->io[fs->n] = NULL;
	fs->tally[fs->n] = -1;
	struct finding *f = &fs->f[fs->n++];
	memset(f, 0, sizeof(*f));
	f->code = code;
	f->level = level;
	snprintf(f->module, sizeof(f->module), "%s", module);
	f->value = value;
	f->threshold = threshold;
	f->count = count;
	f->total = total;
	f->unit = "";
	return f;
}

/* a finding when count is more than the share thr of total and more than
 * abs (NULL when not, or when there is no room) */
static struct finding *share(struct findings *fs, const char *code, const char *level,
                             const char *module, double count, double total, double thr,
                             double abs)
{
	if (!(total > 0) || !(count / total > thr) || !(count > abs))
		return NULL;
	return add(fs, code, level, module, count / total, thr, count, total);
}

#define SAY(f, ...) do { if (f) snprintf((f)->message, sizeof((f)->message), __VA_ARGS__); } while (0)

/* "1 rank", "2 ranks" */
static const char *plural(double n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* the files of f: those of the list `tally` of io, named once every rule
 * has spoken (a module's lists are summed per file in one pass) */
static void name_files(struct findings *fs, struct finding *f, struct io_facts *io,
                       int tally, const char *unit)
{
	if (!f)
		return;
	size_t k = (size_t)(f - fs->f);
	fs->io[k] = io;
	fs->tally[k] = tally;
	f->kind = ABOUT_FILES;
	f->unit = unit;
}

/* Name the items of a sorted list: every one that holds more than 5% of
 * `total` (as Drishti does), and at least the three largest; without a
 * total (the files of an imbalance rule, each judged alone) every one
 * (the TOP_ABOUT largest). */
static void about_list(struct finding *f, enum about_kind kind, const struct top_list *t,
                       double total, const char *unit)
{
	f->kind = kind;
	f->unit = unit;
	double named = 0;
	for (size_t i = 0; i < t->n && f->nabout < TOP_ABOUT; i++) {
		double sh = total > 0 ? t->it[i].v / total : -1;
		if (i >= 3 && total > 0 && !(sh > 0.05))
			break;
		struct about *a = &f->about[f->nabout++];
		a->id = t->it[i].id;
		a->rank = t->it[i].rank;
		a->value = t->it[i].v;
		a->share = sh;
		named += t->it[i].v;
	}
	f->rest_n = t->count > f->nabout ? t->count - f->nabout : 0;
	f->rest_value = f->rest_n && total > named ? total - named : 0;
}

/* the records of a data problem */
static void about_records(struct finding *f, const struct io_facts *io, const struct q_facts *q)
{
	f->kind = ABOUT_RECORDS;
	size_t records = 0;
	for (size_t i = 0; i < q->nex; i++) {
		const struct q_example *x = &q->ex[i];
		records += i == 0 || x->id != q->ex[i - 1].id || x->rank != q->ex[i - 1].rank;
		struct about *a = &f->about[f->nabout++];
		a->id = x->id;
		a->rank = x->rank;
		a->value = x->value;
		a->share = -1;
		a->counter = x->field >= 0 ? io->m->fields[x->field].name : "rank";
		a->bound = x->bound;
	}
	f->rest_n = q->n > records ? q->n - records : 0;
}

/* "/a/b" or "(record 123)" */
const char *dfs_about_name(const struct facts *fa, uint64_t id, char *buf, size_t len)
{
	const dfs_name *nm = dfs_log_name(fa->in->log, id);
	if (nm)
		snprintf(buf, len, "%.*s", (int)nm->len, nm->str);
	else
		snprintf(buf, len, "(record %llu)", (unsigned long long)id);
	return buf;
}

/* small requests: "N of M reads (p%) are smaller than 1 MiB (< 1048576
 * bytes)", or the range the log allows */
/* "1 MiB", "64 KiB", "1.50 GiB", "1000 B": a threshold in bytes */
static void say_bytes(char *buf, size_t len, double b)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	int u = 0;
	double v = b;
	while (u < 4 && v >= 1024 && fmod(v, 1024) == 0) {
		v /= 1024;
		u++;
	}
	if (u || v < 1024)
		snprintf(buf, len, "%.0f %s", v, unit[u]);
	else
		dfs_human_bytes(buf, len, b);
}

static void say_small(struct finding *f, double hi, double lo, double all,
                      const char *what, double small_bytes)
{
	if (!f)
		return;
	char sb[32], rest[96] = "";
	say_bytes(sb, sizeof(sb), small_bytes);
	if (all - hi > 0)
		snprintf(rest, sizeof(rest), "; the other %.0f are known to be %s or larger",
		         all - hi, sb);
	if (lo >= hi)
		SAY(f, "%.0f of %.0f %s (%.1f%%) are smaller than %s (< %.0f bytes)%s", hi, all,
		    what, 100 * hi / all, sb, small_bytes, rest);
	else
		SAY(f, "up to %.0f of %.0f %s (%.1f%%) are smaller than %s (< %.0f bytes), at "
		       "least %.0f (%.1f%%)%s", hi, all, what, 100 * hi / all, sb, small_bytes, lo,
		    100 * lo / all, rest);
}

/* the rules whose inputs the module's times spoil */
static bool times_spoiled(const struct io_facts *io)
{
	return io && io->ev->time_over_run;
}

/* Is the module's data incomplete (the runtime ran out of room for its
 * records)? */
static bool partial_module(const struct facts *fa, int id)
{
	const dfs_log_module *lm = dfs_log_get_module(fa->in->log, id);
	return lm->present && (lm->partial || fa->in->mod[id].partial);
}

static void check_posix(const struct facts *fa, struct io_facts *io, struct findings *fs)
{
	const dfs_insight_thresholds *t = &fa->thr;
	const char *mn = io->m->name;
	struct finding *f;
	double ops = io->reads + io->writes;
	/* (descriptions of the job that the missing records of a partial
	 * module may turn the other way: not made from one) */
	bool whole = !partial_module(fa, io->id);
	if (whole && ops > 0 && (io->writes - io->reads) / ops > t->imbalance_operations) {
		f = add(fs, "P_WRITE_INTENSIVE", "INFO", mn, (io->writes - io->reads) / ops,
		        t->imbalance_operations, io->writes, ops);
		SAY(f, "write intensive: %.0f %s against %.0f %s", io->writes,
		    plural(io->writes, "write", "writes"), io->reads, plural(io->reads, "read", "reads"));
	}
	if (whole && ops > 0 && (io->reads - io->writes) / ops > t->imbalance_operations) {
		f = add(fs, "P_READ_INTENSIVE", "INFO", mn, (io->reads - io->writes) / ops,
		        t->imbalance_operations, io->reads, ops);
		SAY(f, "read intensive: %.0f %s against %.0f %s", io->reads,
		    plural(io->reads, "read", "reads"), io->writes, plural(io->writes, "write", "writes"));
	}
	double bytes = whole ? io->bytes_read + io->bytes_written : 0;
	if (bytes > 0 && (io->bytes_written - io->bytes_read) / bytes > t->imbalance_operations) {
		f = add(fs, "P_WRITE_SIZE_INTENSIVE", "INFO", mn,
		        (io->bytes_written - io->bytes_read) / bytes, t->imbalance_operations,
		        io->bytes_written, bytes);
		SAY(f, "write size intensive: %.0f %s written against %.0f read", io->bytes_written,
		    plural(io->bytes_written, "byte", "bytes"), io->bytes_read);
	}
	if (bytes > 0 && (io->bytes_read - io->bytes_written) / bytes > t->imbalance_operations) {
		f = add(fs, "P_READ_SIZE_INTENSIVE", "INFO", mn,
		        (io->bytes_read - io->bytes_written) / bytes, t->imbalance_operations,
		        io->bytes_read, bytes);
		SAY(f, "read size intensive: %.0f %s read against %.0f written", io->bytes_read,
		    plural(io->bytes_read, "byte", "bytes"), io->bytes_written);
	}
	const struct evidence *ev = io->ev;
	if ((f = share(fs, "P_SMALL_READS", "HIGH", mn, io->small_reads, io->reads,
	               t->small_requests, t->small_requests_absolute))) {
		say_small(f, io->small_reads, ev->small_lo_r, io->reads, "reads", t->small_bytes);
		name_files(fs, f, io, T_SMALL_R, "reads");
	}
	if ((f = share(fs, "P_SMALL_WRITES", "HIGH", mn, io->small_writes, io->writes,
	               t->small_requests, t->small_requests_absolute))) {
		say_small(f, io->small_writes, ev->small_lo_w, io->writes, "writes", t->small_bytes);
		name_files(fs, f, io, T_SMALL_W, "writes");
	}
	if ((f = share(fs, "P_MISALIGNED_MEMORY", "HIGH", mn, io->mem_not_aligned, ops,
	               t->misaligned_requests, t->misaligned_requests_absolute))) {
		SAY(f, "%.1f%% of the requests (%.0f of %.0f) use buffers not aligned in memory",
		    100 * io->mem_not_aligned / ops, io->mem_not_aligned, ops);
		name_files(fs, f, io, T_MEM_NA, "requests");
	}
	if ((f = share(fs, "P_MISALIGNED_FILE", "HIGH", mn, io->file_not_aligned, ops,
	               t->misaligned_requests, t->misaligned_requests_absolute))) {
		SAY(f, "%.1f%% of the requests (%.0f of %.0f) are not aligned to the file "
		       "system's blocks", 100 * io->file_not_aligned / ops, io->file_not_aligned, ops);
		name_files(fs, f, io, T_FILE_NA, "requests");
	}
	double rr = io->reads - io->seq_reads, rw = io->writes - io->seq_writes;
	if ((f = share(fs, "P_RANDOM_READS", "HIGH", mn, rr, io->reads,
	               t->random_operations, t->random_operations_absolute))) {
		SAY(f, "%.0f of %.0f reads (%.1f%%) are random (not sequential)", rr,
		    io->reads, 100 * rr / io->reads);
		name_files(fs, f, io, T_RANDOM_R, "reads");
	}
	if ((f = share(fs, "P_RANDOM_WRITES", "HIGH", mn, rw, io->writes,
	               t->random_operations, t->random_operations_absolute))) {
		SAY(f, "%.0f of %.0f writes (%.1f%%) are random (not sequential)", rw,
		    io->writes, 100 * rw / io->writes);
		name_files(fs, f, io, T_RANDOM_W, "writes");
	}
	if ((f = share(fs, "P_SHARED_SMALL_READS", "HIGH", mn, io->shared_small_reads,
	               io->shared_reads, t->small_requests, t->small_requests_absolute))) {
		say_small(f, io->shared_small_reads, ev->shared_small_lo_r, io->shared_reads,
		          "reads of shared files", t->small_bytes);
		name_files(fs, f, io, T_SHARED_SMALL_R, "reads");
	}
	if ((f = share(fs, "P_SHARED_SMALL_WRITES", "HIGH", mn, io->shared_small_writes,
	               io->shared_writes, t->small_requests, t->small_requests_absolute))) {
		say_small(f, io->shared_small_writes, ev->shared_small_lo_w, io->shared_writes,
		          "writes of shared files", t->small_bytes);
		name_files(fs, f, io, T_SHARED_SMALL_W, "writes");
	}
	if (io->meta_ranks > 0 && !times_spoiled(io)) {
		f = add(fs, "P_METADATA_TIME", "HIGH", mn, io->meta_worst, t->metadata_time_rank,
		        (double)io->meta_ranks, (double)fa->nprocs);
		SAY(f, "%zu %s spend%s more than %.0f s in metadata operations (worst %.2f s)",
		    io->meta_ranks, plural((double)io->meta_ranks, "rank", "ranks"),
		    io->meta_ranks == 1 ? "s" : "", t->metadata_time_rank, io->meta_worst);
		if (f)
			about_list(f, ABOUT_RANKS, &io->ev->meta_top, io->meta_time, "s");
	}
	if (io->stragglers > 0) {
		f = add(fs, "P_SHARED_IMBALANCE", "HIGH", mn, io->straggler_worst,
		        t->imbalance_stragglers, (double)io->stragglers, (double)io->shared_files);
		SAY(f, "%zu of %zu shared %s %s ranks more than %.0f%% apart in bytes or "
		       "time (stragglers; worst %.1f%%)", io->stragglers, io->shared_files,
		    plural((double)io->shared_files, "file", "files"),
		    io->stragglers == 1 ? "has" : "have", 100 * t->imbalance_stragglers,
		    100 * io->straggler_worst);
		if (f)
			about_list(f, ABOUT_FILES, &io->ev->top[T_STRAGGLER], 0, "apart");
	}
	if (io->size_imbalanced > 0) {
		f = add(fs, "P_SIZE_IMBALANCE", "HIGH", mn, io->size_imbalance_worst,
		        t->imbalance_size, (double)io->size_imbalanced, 0);
		SAY(f, "%zu %s accessed by ranks that moved very different amounts "
		       "of data (worst %.1f%% apart)", io->size_imbalanced,
		    io->size_imbalanced == 1 ? "file was" : "files were",
		    100 * io->size_imbalance_worst);
		if (f)
			about_list(f, ABOUT_FILES, &io->ev->imbalanced_top, 0, "apart");
	}
}

static void check_mpiio(const struct facts *fa, struct io_facts *io, struct findings *fs)
{
	const dfs_insight_thresholds *t = &fa->thr;
	struct finding *f;
	double r = io->indep_reads + io->coll_reads, w = io->indep_writes + io->coll_writes;
	if ((f = share(fs, "M_NO_COLLECTIVE_READS", "HIGH", io->m->name, io->indep_reads, r,
	               t->collective_operations, t->collective_operations_absolute))) {
		SAY(f, "%.0f of %.0f MPI-IO reads (%.1f%%) are independent", io->indep_reads, r,
		    100 * io->indep_reads / r);
		name_files(fs, f, io, T_INDEP_R, "reads");
	}
	if ((f = share(fs, "M_NO_COLLECTIVE_WRITES", "HIGH", io->m->name, io->indep_writes, w,
	               t->collective_operations, t->collective_operations_absolute))) {
		SAY(f, "%.0f of %.0f MPI-IO writes (%.1f%%) are independent", io->indep_writes, w,
		    100 * io->indep_writes / w);
		name_files(fs, f, io, T_INDEP_W, "writes");
	}
	if (r + w > 0 && io->nb_reads + io->nb_writes == 0) {
		f = add(fs, "M_NO_NONBLOCKING", "WARN", io->m->name, 0, 0, 0, r + w);
		SAY(f, "none of the %.0f MPI-IO %s is non-blocking", r + w,
		    plural(r + w, "request", "requests"));
	}
	/* (no rule on the cb_nodes of the job's metadata: those are the hints
	 * Darshan wrote its own log with, not the application's) */
}

/* The small-request rule on a module's access size histograms (HDF5
 * datasets, PnetCDF variables, DFS files), whose request counts are the
 * histograms' sums. */
static void check_small(const struct facts *fa, struct io_facts *io,
                        const char *code_r, const char *code_w, const char *what,
                        struct findings *fs)
{
	const dfs_insight_thresholds *t = &fa->thr;
	double r = io->ev->requests_r, w = io->ev->requests_w;
	char wr[64], ww[64];
	snprintf(wr, sizeof(wr), "%s reads", what);
	snprintf(ww, sizeof(ww), "%s writes", what);
	struct finding *f;
	if ((f = share(fs, code_r, "HIGH", io->m->name, io->small_reads, r,
	               t->small_requests, t->small_requests_absolute))) {
		say_small(f, io->small_reads, io->ev->small_lo_r, r, wr, t->small_bytes);
		name_files(fs, f, io, T_SMALL_R, "reads");
	}
	if ((f = share(fs, code_w, "HIGH", io->m->name, io->small_writes, w,
	               t->small_requests, t->small_requests_absolute))) {
		say_small(f, io->small_writes, io->ev->small_lo_w, w, ww, t->small_bytes);
		name_files(fs, f, io, T_SMALL_W, "writes");
	}
}

/* HDF5 datasets of files opened with the MPI-IO driver, accessed without
 * collective I/O */
static void check_h5d(const struct facts *fa, struct io_facts *h5d,
                      const struct io_facts *h5f, struct findings *fs)
{
	const dfs_insight_thresholds *t = &fa->thr;
	check_small(fa, h5d, "H5D_SMALL_READS", "H5D_SMALL_WRITES", "HDF5 dataset", fs);
	double ops = h5d->reads + h5d->writes;
	if (fa->nprocs > 1 && h5f && h5f->mpiio_files > 0 && ops > 0 &&
	    h5d->indep_dataset_ops / ops > t->collective_operations &&
	    h5d->indep_dataset_ops > t->collective_operations_absolute) {
		struct finding *f = add(fs, "H5D_NO_COLLECTIVE", "HIGH", h5d->m->name,
		                        h5d->indep_dataset_ops / ops, t->collective_operations,
		                        h5d->indep_dataset_ops, ops);
		SAY(f, "%.0f of %.0f HDF5 dataset accesses (%zu of %zu %s) are independent "
		       "though the files use the MPI-IO driver", h5d->indep_dataset_ops, ops,
		    h5d->indep_datasets, h5d->datasets, plural((double)h5d->datasets, "dataset",
		                                               "datasets"));
		name_files(fs, f, h5d, T_INDEP_DS, "accesses");
	}
}

static void check_pnetcdf(const struct facts *fa, struct io_facts *io, struct findings *fs)
{
	const dfs_insight_thresholds *t = &fa->thr;
	check_small(fa, io, "PNETCDF_SMALL_READS", "PNETCDF_SMALL_WRITES", "PnetCDF variable", fs);
	double r = io->indep_reads + io->coll_reads, w = io->indep_writes + io->coll_writes;
	struct finding *f;
	if (fa->nprocs > 1 &&
	    (f = share(fs, "PNETCDF_NO_COLLECTIVE_READS", "HIGH", io->m->name, io->indep_reads, r,
	               t->collective_operations, t->collective_operations_absolute))) {
		SAY(f, "%.0f of %.0f PnetCDF variable reads are independent", io->indep_reads, r);
		name_files(fs, f, io, T_INDEP_R, "reads");
	}
	if (fa->nprocs > 1 &&
	    (f = share(fs, "PNETCDF_NO_COLLECTIVE_WRITES", "HIGH", io->m->name, io->indep_writes, w,
	               t->collective_operations, t->collective_operations_absolute))) {
		SAY(f, "%.0f of %.0f PnetCDF variable writes are independent", io->indep_writes, w);
		name_files(fs, f, io, T_INDEP_W, "writes");
	}
}

/* ---- the data problems -------------------------------------------------------- */

/* "POSIX_F_META_TIME = -221.5 in /a/b (rank -1, record 123)" */
static size_t say_example(const struct facts *fa, const struct io_facts *io,
                          const struct q_example *x, char *buf, size_t len)
{
	char name[160];
	dfs_about_name(fa, x->id, name, sizeof(name));
	if (x->field < 0)
		return (size_t)snprintf(buf, len, "%s of rank %lld", name, (long long)x->rank);
	return (size_t)snprintf(buf, len, "%s = %g in %s (rank %lld)", io->m->fields[x->field].name,
	                        x->value, name, (long long)x->rank);
}

static void check_quality(const struct facts *fa, struct io_facts *io, struct findings *fs)
{
	const char *mn = io->m->name;
	double recs = (double)io->records;
	static const char *const codes[Q_KINDS] = {
		"Q_TIME_INVALID", "Q_SIZE_INVALID", "Q_RANK_INVALID", "Q_BYTES_EXCEED_REQUESTS"};
	for (int k = 0; k < Q_KINDS; k++) {
		const struct q_facts *q = &io->ev->q[k];
		if (!q->n)
			continue;
		struct finding *f = add(fs, codes[k], "WARN", mn, (double)q->n, 0, (double)q->n, recs);
		if (!f)
			continue;
		about_records(f, io, q);
		char ex[240];
		say_example(fa, io, &q->ex[0], ex, sizeof(ex));
		double n = (double)q->n;
		const char *recw = plural(n, "record", "records");
		switch (k) {
		case Q_TIME:
			SAY(f, "%zu %s of %.0f %s a time no run can measure (negative, but -1 "
			       "\"not kept\", or not finite), first %s: the findings count such "
			       "times as 0%s", q->n, recw, recs, q->n == 1 ? "holds" : "hold", ex,
			    q->spoils_stragglers ? ", and the straggler rule does not judge a shared "
			                           "record by them" : "");
			break;
		case Q_SIZE:
			SAY(f, "%zu %s of %.0f %s a byte count no run can have written (below "
			       "-%lld), first %s: the findings count such values as 0%s", q->n, recw,
			    recs, q->n == 1 ? "holds" : "hold", (long long)fa->nprocs, ex,
			    q->spoils_stragglers ? ", and the straggler rule does not judge a shared "
			                           "record by them" : "");
			break;
		case Q_RANK:
			SAY(f, "%zu %s of %.0f %s a rank outside -1..%lld (the job had %lld %s), "
			       "first %s: the per-rank findings leave %s out", q->n, recw, recs,
			    q->n == 1 ? "has" : "have", (long long)fa->nprocs - 1,
			    (long long)fa->nprocs, plural((double)fa->nprocs, "process", "processes"),
			    ex, q->n == 1 ? "it" : "them");
			break;
		case Q_BYTES:
			SAY(f, "%zu %s of %.0f moved more bytes than %s requests can carry, first "
			       "%s while its size histogram allows at most %.0f: the counters "
			       "contradict each other", q->n, recw, recs, q->n == 1 ? "its" : "their",
			    ex, q->ex[0].bound);
			break;
		}
	}
	if (io->ev->time_over_run) {
		double time = io->read_time + io->write_time + io->meta_time;
		double most = (double)fa->nprocs * fa->run_time;
		struct finding *f = add(fs, "Q_TIME_EXCEEDS_RUN", "WARN", mn, time, most, time, most);
		const char *spoiled = io->id == DFS_MOD_POSIX ? "; P_METADATA_TIME and "
		                      "R_WORST_RANK_SHARE are not judged" :
		                      io->id == DFS_MOD_STDIO ? "; R_WORST_RANK_SHARE is not judged" : "";
		SAY(f, "the %s records add up to %.1f s of I/O time, more than the %lld %s had "
		       "(%lld x %.1f s of run time = %.1f s): threads overlapping their I/O, or "
		       "timers that are wrong%s", mn, time, (long long)fa->nprocs,
		    plural((double)fa->nprocs, "process", "processes"), (long long)fa->nprocs,
		    fa->run_time, most, spoiled);
		if (f) {
			about_list(f, ABOUT_RECORDS, &io->ev->top[T_TIME], time, "s");
			for (size_t i = 0; i < f->nabout; i++)
				f->about[i].counter = "";
		}
	}
}

/* ---- all of them --------------------------------------------------------------- */

static bool quality(const char *code)
{
	return code[0] == 'Q' && code[1] == '_';
}

/* A finding made from a partial module's records says so: its counts
 * leave out the records the runtime had no room for.  The modules each
 * finding is made from: its own, and those of the sums it divides by. */
static void note_partial(const struct facts *fa, struct finding *f)
{
	static const struct {
		const char *code;
		int ids[4];
	} wider[] = {
		{"S_STDIO_HIGH_USAGE", {DFS_MOD_STDIO, DFS_MOD_POSIX, DFS_MOD_DFS, DFS_MOD_DAOS}},
		{"L_SINGLE_STRIPE", {DFS_MOD_LUSTRE, DFS_MOD_POSIX, DFS_MOD_STDIO, -1}},
		{"R_WORST_RANK_SHARE", {DFS_MOD_POSIX, DFS_MOD_STDIO, -1, -1}},
	};
	if (quality(f->code) || strcmp(f->code, "D_PARTIAL") == 0)
		return;
	int ids[4] = {-1, -1, -1, -1};
	const dfs_module *own = dfs_module_by_name(f->module);
	ids[0] = own ? own->id : -1;
	for (size_t k = 0; k < sizeof(wider) / sizeof(*wider); k++)
		if (strcmp(f->code, wider[k].code) == 0)
			memcpy(ids, wider[k].ids, sizeof(ids));
	char names[64] = "";
	size_t n = 0;
	for (int k = 0; k < 4; k++) {
		if (ids[k] < 0 || !partial_module(fa, ids[k]))
			continue;
		size_t at = strlen(names);
		snprintf(names + at, sizeof(names) - at, "%s%s", n ? " and " : "",
		         dfs_module_slot_name(ids[k]));
		n++;
	}
	if (!n)
		return;
	size_t at = strlen(f->message);
	snprintf(f->message + at, sizeof(f->message) - at,
	         " (from the records kept: the %s %s partial, its missing records are not "
	         "counted)", names, n == 1 ? "module is" : "modules are");
}

static void judge(struct facts *fa)
{
	fa->judged = true;
	struct findings *fs = calloc(1, sizeof(*fs));
	if (!fs)
		return;
	const dfs_insight_thresholds *t = &fa->thr;
	struct finding *f;
	/* (format 3.20 marks the logs of runtime 3.2.0, whose counters are
	 * known to be corrupted: darshan-parser warns of it first thing) */
	if (strcmp(dfs_log_get_header(fa->in->log)->version, "3.20") == 0) {
		f = add(fs, "Q_RUNTIME_3_2_0", "WARN", "log", 0, 0, 0, 0);
		SAY(f, "the log was written by Darshan 3.2.0, whose counters are known to be "
		       "corrupted (bogus COMMON_ACCESS values of POSIX, MPI-IO and HDF5, other "
		       "values maybe): every finding below rests on them");
	}
	for (size_t i = 0; i < fa->nio; i++)
		check_quality(fa, &fa->io[i], fs);
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		if (partial_module(fa, id)) {
			f = add(fs, "D_PARTIAL", "WARN", dfs_module_slot_name(id), 0, 0,
			        (double)fa->in->mod[id].count, 0);
			SAY(f, "the %s module's data is incomplete: the job ran out of room "
			       "for its records", dfs_module_slot_name(id));
		}
	}
	struct io_facts *px = dfs_facts_io(fa, DFS_MOD_POSIX);
	struct io_facts *st = dfs_facts_io(fa, DFS_MOD_STDIO);
	struct io_facts *mp = dfs_facts_io(fa, DFS_MOD_MPIIO);
	struct io_facts *dfs = dfs_facts_io(fa, DFS_MOD_DFS);
	struct io_facts *daos = dfs_facts_io(fa, DFS_MOD_DAOS);
	/* POSIX's bytes are unknown when the log has no POSIX module while
	 * LUSTRE records name files that no module of the log records: the
	 * runtime makes those at POSIX opens, so it ran without its POSIX
	 * module, and STDIO's share of the bytes cannot be told */
	bool posix_unknown = !dfs_log_get_module(fa->in->log, DFS_MOD_POSIX)->present &&
	                     fa->lustre_unmet > 0;
	if (st && !posix_unknown) {
		/* the bytes of the job: POSIX (that MPI-IO, HDF5 and PnetCDF go
		 * through), STDIO, and DAOS's (DFS goes through DAOS, whose
		 * module may count it again: the larger of the two, each way) */
		double sb = st->bytes_read + st->bytes_written;
		double all = sb + (px ? px->bytes_read + px->bytes_written : 0) +
		             fmax(dfs ? dfs->bytes_read : 0, daos ? daos->bytes_read : 0) +
		             fmax(dfs ? dfs->bytes_written : 0, daos ? daos->bytes_written : 0);
		if (all > 0 && sb / all > t->interface_stdio && sb > t->interface_stdio_absolute) {
			f = add(fs, "S_STDIO_HIGH_USAGE", "HIGH", "STDIO", sb / all,
			        t->interface_stdio, sb, all);
			char a[32], b[32];
			dfs_human_bytes(a, sizeof(a), sb);
			dfs_human_bytes(b, sizeof(b), all);
			SAY(f, "STDIO moves %.1f%% of the bytes: %s of %s (POSIX, STDIO, DFS and DAOS)",
			    100 * sb / all, a, b);
			name_files(fs, f, st, T_BYTES, "bytes");
		}
	}
	if (px)
		check_posix(fa, px, fs);
	if (mp)
		check_mpiio(fa, mp, fs);
	struct io_facts *h5d = dfs_facts_io(fa, DFS_MOD_H5D);
	struct io_facts *pnv = dfs_facts_io(fa, DFS_MOD_PNETCDF_VAR);
	if (h5d)
		check_h5d(fa, h5d, dfs_facts_io(fa, DFS_MOD_H5F), fs);
	if (pnv)
		check_pnetcdf(fa, pnv, fs);
	if (dfs)
		check_small(fa, dfs, "DFS_SMALL_READS", "DFS_SMALL_WRITES", "DFS", fs);
	if (fa->single_stripe_large > 0) {
		f = add(fs, "L_SINGLE_STRIPE", "HIGH", "LUSTRE", fa->single_stripe_largest,
		        t->lustre_large_file, (double)fa->single_stripe_large,
		        (double)fa->lustre_files);
		char a[32], b[32];
		say_bytes(a, sizeof(a), t->lustre_large_file);
		dfs_human_bytes(b, sizeof(b), fa->single_stripe_largest);
		SAY(f, "%zu shared %s larger than %s %s on a single Lustre stripe (largest %s)",
		    fa->single_stripe_large, plural((double)fa->single_stripe_large, "file", "files"),
		    a, fa->single_stripe_large == 1 ? "sits" : "sit", b);
		if (f)
			about_list(f, ABOUT_FILES, &fa->single_stripe_top, 0, "bytes");
	}
	double worst = fa->rank_top.n ? fa->rank_top.it[0].v : 0;
	if (fa->nprocs > 1 && fa->total_rank_time > 0 && !times_spoiled(px) &&
	    !times_spoiled(st) && worst / fa->total_rank_time > t->worst_rank_share &&
	    worst > t->worst_rank_time) {
		double sh = worst / fa->total_rank_time;
		f = add(fs, "R_WORST_RANK_SHARE", "WARN", "POSIX+STDIO", sh, t->worst_rank_share,
		        worst, fa->total_rank_time);
		SAY(f, "rank %lld takes %.1f%% of the I/O time of the %lld ranks: %.2f of %.2f s "
		       "(its own files and an even share of the shared ones)",
		    (long long)fa->rank_top.it[0].rank, 100 * sh, (long long)fa->nprocs, worst,
		    fa->total_rank_time);
		if (f)
			about_list(f, ABOUT_RANKS, &fa->rank_top, fa->total_rank_time, "s");
	}
	/* the files behind the findings: each module's lists summed per
	 * file at once, then named */
	for (size_t i = 0; i < fa->nio; i++) {
		unsigned mask = 0;
		for (size_t k = 0; k < fs->n; k++)
			if (fs->io[k] == &fa->io[i])
				mask |= 1u << fs->tally[k];
		dfs_evidence_sum_files(fa, &fa->io[i], mask);
	}
	for (size_t k = 0; k < fs->n; k++)
		if (fs->io[k])
			about_list(&fs->f[k], ABOUT_FILES, &fs->io[k]->ev->top[fs->tally[k]],
			           fs->f[k].count, fs->f[k].unit);
	for (size_t k = 0; k < fs->n; k++)
		note_partial(fa, &fs->f[k]);
	/* the data problems first (they say which numbers to doubt), then
	 * the most severe, keeping the order within a level */
	static const char *const order[] = {"HIGH", "WARN", "INFO"};
	struct finding *out = fs->n ? malloc(fs->n * sizeof(*out)) : NULL;
	size_t n = 0;
	for (int l = -1; l < 3 && out; l++)
		for (size_t i = 0; i < fs->n; i++)
			if (l < 0 ? quality(fs->f[i].code)
			          : !quality(fs->f[i].code) && strcmp(fs->f[i].level, order[l]) == 0)
				out[n++] = fs->f[i];
	fa->findings = out;
	fa->nfindings = out ? n : 0;
	free(fs->f);
	free(fs);
}

size_t dfs_findings(const struct facts *f, const struct finding **out)
{
	struct facts *fa = (struct facts *)f;   /* (the findings are kept in f) */
	if (!fa->judged)
		judge(fa);
	*out = fa->findings;
	return fa->findings ? fa->nfindings : 0;
}

/* ---- text and CSV ------------------------------------------------------------- */

/* "41234 reads", "1.2 GiB", "12.10 s", "85.0% apart" */
static void say_value(char *buf, size_t len, double v, const char *unit)
{
	if (strcmp(unit, "apart") == 0)
		snprintf(buf, len, "%.1f%% apart", 100 * v);
	else if (strcmp(unit, "bytes") == 0)
		dfs_human_bytes(buf, len, v);
	else if (strcmp(unit, "s") == 0)
		snprintf(buf, len, "%.2f s", v);
	else
		snprintf(buf, len, "%.0f %s", v, unit);
}

void dfs_about_line(const struct facts *fa, const struct finding *fd, size_t i,
                    dfs_buf *out)
{
	char v[64], name[4096];
	if (i == fd->nabout) {
		/* the others */
		const char *what = fd->kind == ABOUT_RANKS ? plural((double)fd->rest_n, "rank", "ranks")
		                 : fd->kind == ABOUT_RECORDS ? plural((double)fd->rest_n, "record", "records")
		                                             : plural((double)fd->rest_n, "file", "files");
		dfs_buf_printf(out, "%zu other %s", fd->rest_n, what);
		if (fd->rest_value > 0 && fd->count > 0) {
			say_value(v, sizeof(v), fd->rest_value, fd->unit);
			dfs_buf_printf(out, ": %s, %.1f%%", v, 100 * fd->rest_value / fd->count);
		}
		return;
	}
	const struct about *a = &fd->about[i];
	if (fd->kind == ABOUT_RANKS) {
		say_value(v, sizeof(v), a->value, fd->unit);
		dfs_buf_printf(out, "rank %lld: %s", (long long)a->rank, v);
	} else {
		dfs_buf_adds(out, dfs_about_name(fa, a->id, name, sizeof(name)));
		if (fd->kind == ABOUT_RECORDS)
			dfs_buf_printf(out, " (rank %lld, record %llu)", (long long)a->rank,
			               (unsigned long long)a->id);
		if (a->counter && *a->counter) {
			dfs_buf_printf(out, ": %s = %g", a->counter, a->value);
			if (a->bound > 0)
				dfs_buf_printf(out, ", at most %.0f by its size histogram", a->bound);
		} else {
			say_value(v, sizeof(v), a->value, fd->unit);
			dfs_buf_printf(out, ": %s", v);
		}
	}
	if (a->share >= 0)
		dfs_buf_printf(out, ", %.1f%%", 100 * a->share);
}

struct text_ctx {
	dfs_buf *out;
};

static void text_advice(void *ctx, const char *text)
{
	struct text_ctx *c = ctx;
	dfs_buf_printf(c->out, "  - %s\n", text);
}

void dfs_insights_text_of(const struct facts *fa, dfs_buf *out)
{
	const dfs_summary_input *in = fa->in;
	const struct finding *fd;
	size_t n = dfs_findings(fa, &fd);
	dfs_buf_printf(out, "Insights for %s: %zu %s\n", in->title ? in->title : "log",
	               n, plural((double)n, "finding", "findings"));
	if (in->filters && *in->filters)
		dfs_buf_printf(out, "Selection: %s\n", in->filters);
	for (size_t i = 0; i < n; i++) {
		dfs_buf_printf(out, "\n[%s] %s (%s)\n  %s\n", fd[i].level, fd[i].code,
		               fd[i].module, fd[i].message);
		if (fd[i].nabout) {
			dfs_buf_adds(out, fd[i].kind == ABOUT_RANKS ? "  ranks:\n" :
			                  fd[i].kind == ABOUT_RECORDS ? "  records:\n" : "  files:\n");
			for (size_t k = 0; k <= fd[i].nabout; k++) {
				if (k == fd[i].nabout && !fd[i].rest_n)
					break;
				dfs_buf_adds(out, "    ");
				dfs_about_line(fa, &fd[i], k, out);
				dfs_buf_addc(out, '\n');
			}
		}
		size_t before = out->len;
		dfs_buf_adds(out, "  advice:\n");
		size_t head = out->len;
		struct text_ctx c = {out};
		dfs_advice(fa, &fd[i], text_advice, &c);
		if (out->len == head && dfs_buf_ok(out)) {
			out->len = before;   /* (no advice) */
			out->data[before] = '\0';
		}
	}
}

int dfs_insights_text(const dfs_summary_input *in, dfs_buf *out, dfs_error *err)
{
	struct facts *fa = dfs_facts_new(in, false);
	if (!fa)
		return dfs_error_nomem(err);
	dfs_insights_text_of(fa, out);
	dfs_facts_free(fa);
	return dfs_buf_ok(out) ? 0 : dfs_error_nomem(err);
}

static void csv_field(dfs_buf *out, const char *s)
{
	bool quote = strpbrk(s, ",\"\r\n") != NULL;
	if (!quote) {
		dfs_buf_adds(out, s);
		return;
	}
	dfs_buf_addc(out, '"');
	for (; *s; s++) {
		if (*s == '"')
			dfs_buf_addc(out, '"');
		dfs_buf_addc(out, *s);
	}
	dfs_buf_addc(out, '"');
}

static void json_string(dfs_buf *out, const char *s, size_t len)
{
	dfs_buf_addc(out, '"');
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			dfs_buf_printf(out, "\\%c", c);
		else if (c < 0x20)
			dfs_buf_printf(out, "\\u%04x", c);
		else
			dfs_buf_addc(out, (char)c);
	}
	dfs_buf_addc(out, '"');
}

static void json_number(dfs_buf *out, double v)
{
	if (isfinite(v))
		dfs_buf_add_double(out, v);
	else
		dfs_buf_adds(out, "null");
}

/* the files (and records) or the ranks of a finding, as a JSON array */
static void json_about(const struct facts *fa, const struct finding *fd, bool ranks,
                       dfs_buf *out)
{
	dfs_buf_addc(out, '[');
	bool is_ranks = fd->kind == ABOUT_RANKS;
	for (size_t i = 0; fd->kind != ABOUT_NONE && is_ranks == ranks && i < fd->nabout; i++) {
		const struct about *a = &fd->about[i];
		if (i)
			dfs_buf_addc(out, ',');
		if (ranks) {
			dfs_buf_printf(out, "{\"rank\":%lld", (long long)a->rank);
		} else {
			const dfs_name *nm = dfs_log_name(fa->in->log, a->id);
			dfs_buf_adds(out, "{\"file\":");
			if (nm)
				json_string(out, nm->str, nm->len);
			else
				dfs_buf_adds(out, "null");
			dfs_buf_printf(out, ",\"record_id\":\"%llu\"", (unsigned long long)a->id);
			if (fd->kind == ABOUT_RECORDS)
				dfs_buf_printf(out, ",\"rank\":%lld", (long long)a->rank);
			if (a->counter && *a->counter) {
				dfs_buf_adds(out, ",\"counter\":");
				json_string(out, a->counter, strlen(a->counter));
			}
		}
		dfs_buf_adds(out, ",\"value\":");
		json_number(out, a->value);
		if (a->share >= 0) {
			dfs_buf_adds(out, ",\"share\":");
			json_number(out, a->share);
		}
		dfs_buf_addc(out, '}');
	}
	dfs_buf_addc(out, ']');
}

void dfs_insights_csv_of(const struct facts *fa, const char *log, bool header,
                         dfs_buf *out)
{
	const struct finding *fd;
	size_t n = dfs_findings(fa, &fd);
	if (header)
		dfs_buf_printf(out, "%s" DFS_INSIGHTS_HEADER, log ? "log," : "");
	dfs_buf json = DFS_BUF_INIT;
	for (size_t i = 0; i < n; i++) {
		if (log) {
			csv_field(out, log);
			dfs_buf_addc(out, ',');
		}
		dfs_buf_printf(out, "%s,%s,", fd[i].code, fd[i].level);
		csv_field(out, fd[i].module);
		dfs_buf_addc(out, ',');
		csv_field(out, fd[i].message);
		dfs_buf_addc(out, ',');
		dfs_buf_add_double(out, fd[i].value);
		dfs_buf_addc(out, ',');
		dfs_buf_add_double(out, fd[i].threshold);
		dfs_buf_addc(out, ',');
		dfs_buf_add_double(out, fd[i].count);
		dfs_buf_addc(out, ',');
		dfs_buf_add_double(out, fd[i].total);
		for (int r = 0; r < 2; r++) {
			dfs_buf_addc(out, ',');
			dfs_buf_reset(&json);
			json_about(fa, &fd[i], r == 1, &json);
			if (dfs_buf_ok(&json))
				csv_field(out, json.data);
		}
		dfs_buf_addc(out, ',');
		csv_field(out, dfs_advice_short(fd[i].code));
		dfs_buf_addc(out, '\n');
	}
	dfs_buf_free(&json);
}

int dfs_insights_csv(const dfs_summary_input *in, const char *log, bool header,
                     dfs_buf *out, dfs_error *err)
{
	struct facts *fa = dfs_facts_new(in, false);
	if (!fa)
		return dfs_error_nomem(err);
	dfs_insights_csv_of(fa, log, header, out);
	dfs_facts_free(fa);
	return dfs_buf_ok(out) ? 0 : dfs_error_nomem(err);
}
