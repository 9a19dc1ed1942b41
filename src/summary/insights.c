/* insights.c - problems in the I/O of a job, each with the numbers behind
 * it: Drishti's triggers with its default thresholds, and a few more
 * (partial modules, big shared files on one Lustre stripe, the share of
 * I/O time taken by the worst rank, small and independent accesses of
 * HDF5 datasets, PnetCDF variables and DFS files).  Thresholds can be changed by a small
 * "name = value" file. */
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
		return dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
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

struct findings {
	struct finding *f;
	size_t n, max;
};

static struct finding *add(struct findings *fs, const char *code, const char *level,
                           const char *module, double value, double threshold,
                           double count, double total)
{
	if (fs->n >= fs->max)
		return NULL;
	struct finding *f = &fs->f[fs->n++];
	f->code = code;
	f->level = level;
	snprintf(f->module, sizeof(f->module), "%s", module);
	f->value = value;
	f->threshold = threshold;
	f->count = count;
	f->total = total;
	f->message[0] = '\0';
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

static void check_posix(const struct facts *fa, const struct io_facts *io,
                        struct findings *fs)
{
	const dfs_insight_thresholds *t = &fa->thr;
	const char *mn = io->m->name;
	struct finding *f;
	double ops = io->reads + io->writes;
	if (ops > 0 && (io->writes - io->reads) / ops > t->imbalance_operations) {
		f = add(fs, "P_WRITE_INTENSIVE", "INFO", mn, (io->writes - io->reads) / ops,
		        t->imbalance_operations, io->writes, ops);
		SAY(f, "write intensive: %.0f writes against %.0f reads", io->writes, io->reads);
	}
	if (ops > 0 && (io->reads - io->writes) / ops > t->imbalance_operations) {
		f = add(fs, "P_READ_INTENSIVE", "INFO", mn, (io->reads - io->writes) / ops,
		        t->imbalance_operations, io->reads, ops);
		SAY(f, "read intensive: %.0f reads against %.0f writes", io->reads, io->writes);
	}
	double bytes = io->bytes_read + io->bytes_written;
	if (bytes > 0 && (io->bytes_written - io->bytes_read) / bytes > t->imbalance_operations) {
		f = add(fs, "P_WRITE_SIZE_INTENSIVE", "INFO", mn,
		        (io->bytes_written - io->bytes_read) / bytes, t->imbalance_operations,
		        io->bytes_written, bytes);
		SAY(f, "write size intensive: %.0f bytes written against %.0f read",
		    io->bytes_written, io->bytes_read);
	}
	if (bytes > 0 && (io->bytes_read - io->bytes_written) / bytes > t->imbalance_operations) {
		f = add(fs, "P_READ_SIZE_INTENSIVE", "INFO", mn,
		        (io->bytes_read - io->bytes_written) / bytes, t->imbalance_operations,
		        io->bytes_read, bytes);
		SAY(f, "read size intensive: %.0f bytes read against %.0f written",
		    io->bytes_read, io->bytes_written);
	}
	if ((f = share(fs, "P_SMALL_READS", "HIGH", mn, io->small_reads, io->reads,
	               t->small_requests, t->small_requests_absolute))) {
		SAY(f, "%.0f of %.0f reads (%.1f%%) are smaller than %.0f bytes: aggregate "
		       "them into larger requests", io->small_reads, io->reads,
		    100 * io->small_reads / io->reads, t->small_bytes);
	}
	if ((f = share(fs, "P_SMALL_WRITES", "HIGH", mn, io->small_writes, io->writes,
	               t->small_requests, t->small_requests_absolute))) {
		SAY(f, "%.0f of %.0f writes (%.1f%%) are smaller than %.0f bytes: aggregate "
		       "them into larger requests", io->small_writes, io->writes,
		    100 * io->small_writes / io->writes, t->small_bytes);
	}
	if ((f = share(fs, "P_MISALIGNED_MEMORY", "HIGH", mn, io->mem_not_aligned, ops,
	               t->misaligned_requests, -INFINITY))) {
		SAY(f, "%.1f%% of the requests use buffers not aligned in memory",
		    100 * io->mem_not_aligned / ops);
	}
	if ((f = share(fs, "P_MISALIGNED_FILE", "HIGH", mn, io->file_not_aligned, ops,
	               t->misaligned_requests, -INFINITY))) {
		SAY(f, "%.1f%% of the requests are not aligned to the file system's blocks",
		    100 * io->file_not_aligned / ops);
	}
	double rr = io->reads - io->seq_reads, rw = io->writes - io->seq_writes;
	if ((f = share(fs, "P_RANDOM_READS", "HIGH", mn, rr, io->reads,
	               t->random_operations, t->random_operations_absolute))) {
		SAY(f, "%.0f of %.0f reads (%.1f%%) are random (not sequential)", rr,
		    io->reads, 100 * rr / io->reads);
	}
	if ((f = share(fs, "P_RANDOM_WRITES", "HIGH", mn, rw, io->writes,
	               t->random_operations, t->random_operations_absolute))) {
		SAY(f, "%.0f of %.0f writes (%.1f%%) are random (not sequential)", rw,
		    io->writes, 100 * rw / io->writes);
	}
	if ((f = share(fs, "P_SHARED_SMALL_READS", "HIGH", mn, io->shared_small_reads, io->shared_reads,
	               t->small_requests, t->small_requests_absolute))) {
		SAY(f, "%.0f small reads on shared files: consider collective I/O",
		    io->shared_small_reads);
	}
	if ((f = share(fs, "P_SHARED_SMALL_WRITES", "HIGH", mn, io->shared_small_writes, io->shared_writes,
	               t->small_requests, t->small_requests_absolute))) {
		SAY(f, "%.0f small writes on shared files: consider collective I/O",
		    io->shared_small_writes);
	}
	if (io->meta_ranks > 0) {
		f = add(fs, "P_METADATA_TIME", "HIGH", mn, io->meta_worst, t->metadata_time_rank,
		        (double)io->meta_ranks, (double)fa->nprocs);
		SAY(f, "%zu ranks spend more than %.0f s in metadata operations (worst %.2f s)",
		    io->meta_ranks, t->metadata_time_rank, io->meta_worst);
	}
	if (io->stragglers > 0) {
		f = add(fs, "P_SHARED_IMBALANCE", "HIGH", mn, io->straggler_worst,
		        t->imbalance_stragglers, (double)io->stragglers, (double)io->shared_files);
		SAY(f, "%zu of %zu shared files have ranks more than %.0f%% apart in bytes or "
		       "time (stragglers; worst %.1f%%)", io->stragglers, io->shared_files,
		    100 * t->imbalance_stragglers, 100 * io->straggler_worst);
	}
	if (io->size_imbalanced > 0) {
		f = add(fs, "P_SIZE_IMBALANCE", "HIGH", mn, io->size_imbalance_worst,
		        t->imbalance_size, (double)io->size_imbalanced, 0);
		SAY(f, "%zu files were accessed by ranks that moved very different amounts "
		       "of data (worst %.1f%% apart)", io->size_imbalanced,
		    100 * io->size_imbalance_worst);
	}
}

static void check_mpiio(const struct facts *fa, const struct io_facts *io,
                        struct findings *fs)
{
	const dfs_insight_thresholds *t = &fa->thr;
	struct finding *f;
	double r = io->indep_reads + io->coll_reads, w = io->indep_writes + io->coll_writes;
	if ((f = share(fs, "M_NO_COLLECTIVE_READS", "HIGH", io->m->name, io->indep_reads, r,
	               t->collective_operations, t->collective_operations_absolute))) {
		SAY(f, "%.0f of %.0f MPI-IO reads are independent: use collective reads",
		    io->indep_reads, r);
	}
	if ((f = share(fs, "M_NO_COLLECTIVE_WRITES", "HIGH", io->m->name, io->indep_writes, w,
	               t->collective_operations, t->collective_operations_absolute))) {
		SAY(f, "%.0f of %.0f MPI-IO writes are independent: use collective writes",
		    io->indep_writes, w);
	}
	if (r + w > 0 && io->nb_reads + io->nb_writes == 0) {
		f = add(fs, "M_NO_NONBLOCKING", "WARN", io->m->name, 0, 0, 0, r + w);
		SAY(f, "none of the %.0f MPI-IO requests is non-blocking: non-blocking I/O "
		       "could overlap I/O with computation", r + w);
	}
	size_t nodes = fa->dxt_hosts ? fa->dxt_hosts : fa->apmpi_hosts;
	if (fa->cb_nodes > 0 && nodes > 0 && (size_t)fa->cb_nodes != nodes) {
		f = add(fs, "M_CB_NODES", "WARN", io->m->name, (double)fa->cb_nodes,
		        (double)nodes, (double)fa->cb_nodes, (double)nodes);
		SAY(f, "the cb_nodes hint (%lld aggregators) differs from the %zu nodes "
		       "the job ran on", (long long)fa->cb_nodes, nodes);
	}
}

/* The small-request rule on a module's access size histograms (HDF5
 * datasets, PnetCDF variables, DFS files), whose request counts are the
 * histograms' sums. */
static void check_small(const struct facts *fa, const struct io_facts *io,
                        const char *code_r, const char *code_w, const char *what,
                        struct findings *fs)
{
	const dfs_insight_thresholds *t = &fa->thr;
	double r = 0, w = 0;
	for (int b = 0; b < SIZE_BINS; b++) {
		r += io->size_read[b];
		w += io->size_write[b];
	}
	struct finding *f;
	if ((f = share(fs, code_r, "HIGH", io->m->name, io->small_reads, r,
	               t->small_requests, t->small_requests_absolute))) {
		SAY(f, "%.0f of %.0f %s reads (%.1f%%) are smaller than %.0f bytes: read "
		       "larger selections", io->small_reads, r, what, 100 * io->small_reads / r,
		    t->small_bytes);
	}
	if ((f = share(fs, code_w, "HIGH", io->m->name, io->small_writes, w,
	               t->small_requests, t->small_requests_absolute))) {
		SAY(f, "%.0f of %.0f %s writes (%.1f%%) are smaller than %.0f bytes: write "
		       "larger selections", io->small_writes, w, what, 100 * io->small_writes / w,
		    t->small_bytes);
	}
}

/* HDF5 datasets of files opened with the MPI-IO driver, accessed without
 * collective I/O */
static void check_h5d(const struct facts *fa, const struct io_facts *h5d,
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
		SAY(f, "%.0f of %.0f HDF5 dataset accesses (%zu of %zu datasets) are "
		       "independent though the files use the MPI-IO driver: ask for collective "
		       "transfers (H5Pset_dxpl_mpio)", h5d->indep_dataset_ops, ops,
		    h5d->indep_datasets, h5d->datasets);
	}
}

static void check_pnetcdf(const struct facts *fa, const struct io_facts *io,
                          struct findings *fs)
{
	const dfs_insight_thresholds *t = &fa->thr;
	check_small(fa, io, "PNETCDF_SMALL_READS", "PNETCDF_SMALL_WRITES", "PnetCDF variable", fs);
	double r = io->indep_reads + io->coll_reads, w = io->indep_writes + io->coll_writes;
	struct finding *f;
	if (fa->nprocs > 1 &&
	    (f = share(fs, "PNETCDF_NO_COLLECTIVE_READS", "HIGH", io->m->name, io->indep_reads, r,
	               t->collective_operations, t->collective_operations_absolute))) {
		SAY(f, "%.0f of %.0f PnetCDF variable reads are independent: use the "
		       "collective ncmpi_get_*_all calls", io->indep_reads, r);
	}
	if (fa->nprocs > 1 &&
	    (f = share(fs, "PNETCDF_NO_COLLECTIVE_WRITES", "HIGH", io->m->name, io->indep_writes, w,
	               t->collective_operations, t->collective_operations_absolute))) {
		SAY(f, "%.0f of %.0f PnetCDF variable writes are independent: use the "
		       "collective ncmpi_put_*_all calls", io->indep_writes, w);
	}
}

size_t dfs_findings(const struct facts *fa, struct finding *out, size_t max)
{
	struct findings fs = {out, 0, max};
	const dfs_insight_thresholds *t = &fa->thr;
	struct finding *f;
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		const dfs_log_module *lm = dfs_log_get_module(fa->in->log, id);
		if (lm->present && (lm->partial || fa->in->mod[id].partial)) {
			f = add(&fs, "D_PARTIAL", "WARN", dfs_module_slot_name(id), 0, 0,
			        (double)fa->in->mod[id].count, 0);
			SAY(f, "the %s module's data is incomplete: the job ran out of room "
			       "for its records", dfs_module_slot_name(id));
		}
	}
	const struct io_facts *px = NULL, *st = NULL, *mp = NULL;
	for (size_t i = 0; i < fa->nio; i++) {
		if (fa->io[i].id == DFS_MOD_POSIX)
			px = &fa->io[i];
		else if (fa->io[i].id == DFS_MOD_STDIO)
			st = &fa->io[i];
		else if (fa->io[i].id == DFS_MOD_MPIIO)
			mp = &fa->io[i];
	}
	if (st) {
		double sb = st->bytes_read + st->bytes_written;
		double all = sb + (px ? px->bytes_read + px->bytes_written : 0);
		if (all > 0 && sb / all > t->interface_stdio) {
			f = add(&fs, "S_STDIO_HIGH_USAGE", "HIGH", "STDIO", sb / all,
			        t->interface_stdio, sb, all);
			SAY(f, "STDIO moves %.1f%% of the bytes: use POSIX or MPI-IO for bulk I/O",
			    100 * sb / all);
		}
	}
	if (px)
		check_posix(fa, px, &fs);
	if (mp)
		check_mpiio(fa, mp, &fs);
	const struct io_facts *h5d = dfs_facts_io((struct facts *)fa, DFS_MOD_H5D);
	const struct io_facts *pnv = dfs_facts_io((struct facts *)fa, DFS_MOD_PNETCDF_VAR);
	const struct io_facts *dfs = dfs_facts_io((struct facts *)fa, DFS_MOD_DFS);
	if (h5d)
		check_h5d(fa, h5d, dfs_facts_io((struct facts *)fa, DFS_MOD_H5F), &fs);
	if (pnv)
		check_pnetcdf(fa, pnv, &fs);
	if (dfs)
		check_small(fa, dfs, "DFS_SMALL_READS", "DFS_SMALL_WRITES", "DFS", &fs);
	if (fa->single_stripe_large > 0) {
		f = add(&fs, "L_SINGLE_STRIPE", "HIGH", "LUSTRE", fa->single_stripe_largest,
		        t->lustre_large_file, (double)fa->single_stripe_large,
		        (double)fa->lustre_files);
		SAY(f, "%zu shared files larger than %.0f bytes sit on a single Lustre "
		       "stripe (largest %.0f bytes): stripe them over more OSTs",
		    fa->single_stripe_large, t->lustre_large_file, fa->single_stripe_largest);
	}
	if (fa->nprocs > 1 && fa->total_rank_time > 0 &&
	    fa->worst_rank_time / fa->total_rank_time > t->worst_rank_share) {
		double share = fa->worst_rank_time / fa->total_rank_time;
		f = add(&fs, "R_WORST_RANK_SHARE", "WARN", "POSIX+STDIO", share,
		        t->worst_rank_share, fa->worst_rank_time, fa->total_rank_time);
		SAY(f, "rank %lld takes %.1f%% of all the I/O time of the %lld ranks",
		    (long long)fa->worst_rank, 100 * share, (long long)fa->nprocs);
	}
	/* most severe first, keeping the order within a level */
	static const char *const order[] = {"HIGH", "WARN", "INFO"};
	struct finding tmp[MAX_FINDINGS];
	size_t n = 0;
	for (int l = 0; l < 3; l++)
		for (size_t i = 0; i < fs.n && n < MAX_FINDINGS; i++)
			if (strcmp(out[i].level, order[l]) == 0)
				tmp[n++] = out[i];
	memcpy(out, tmp, n * sizeof(*out));
	return n;
}

/* ---- text and CSV ------------------------------------------------------------- */

void dfs_insights_text_of(const struct facts *fa, dfs_buf *out)
{
	const dfs_summary_input *in = fa->in;
	struct finding fd[MAX_FINDINGS];
	size_t n = dfs_findings(fa, fd, MAX_FINDINGS);
	dfs_buf_printf(out, "Insights for %s: %zu finding%s\n", in->title ? in->title : "log",
	               n, n == 1 ? "" : "s");
	if (in->filters && *in->filters)
		dfs_buf_printf(out, "Selection: %s\n", in->filters);
	for (size_t i = 0; i < n; i++)
		dfs_buf_printf(out, "\n[%s] %s (%s)\n  %s\n", fd[i].level, fd[i].code,
		               fd[i].module, fd[i].message);
}

int dfs_insights_text(const dfs_summary_input *in, dfs_buf *out, dfs_error *err)
{
	struct facts *fa = dfs_facts_new(in, false);
	if (!fa)
		return dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
	dfs_insights_text_of(fa, out);
	dfs_facts_free(fa);
	return dfs_buf_ok(out) ? 0 : dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
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

void dfs_insights_csv_of(const struct facts *fa, const char *log, bool header,
                         dfs_buf *out)
{
	struct finding fd[MAX_FINDINGS];
	size_t n = dfs_findings(fa, fd, MAX_FINDINGS);
	if (header)
		dfs_buf_printf(out, "%scode,level,module,message,value,threshold,count,total\n",
		               log ? "log," : "");
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
		dfs_buf_addc(out, '\n');
	}
}

int dfs_insights_csv(const dfs_summary_input *in, const char *log, bool header,
                     dfs_buf *out, dfs_error *err)
{
	struct facts *fa = dfs_facts_new(in, false);
	if (!fa)
		return dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
	dfs_insights_csv_of(fa, log, header, out);
	dfs_facts_free(fa);
	return dfs_buf_ok(out) ? 0 : dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
}
