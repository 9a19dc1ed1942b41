/* html.c - summary.html and its plots: one self-contained page (inline
 * SVG and CSS, no script, nothing fetched) with the sections of a job
 * summary, and each plot alone as an SVG document. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "summary/summary_int.h"

static const char *const plot_names[DFS_PLOTS] = {
	"io_cost", "operations", "access_sizes", "access_pattern", "mounts",
	"ranks", "timeline", "heatmap_read", "heatmap_write", "dxt_offsets",
	"dxt_durations", "lustre", "apmpi",
};

const char *dfs_summary_plot_name(int plot)
{
	return plot >= 0 && plot < DFS_PLOTS ? plot_names[plot] : NULL;
}

int dfs_summary_plot_by_file(const char *file)
{
	for (int p = 0; p < DFS_PLOTS; p++) {
		size_t n = strlen(plot_names[p]);
		if (strncmp(file, plot_names[p], n) == 0 && strcmp(file + n, ".svg") == 0)
			return p;
	}
	return -1;
}

#define READ_C "#1f77b4"
#define WRITE_C "#d62728"
#define META_C "#2ca02c"

/* ---- the plots ------------------------------------------------------------------ */

static void plot_io_cost(const struct facts *f, dfs_buf *out)
{
	const char *labels[2 * IO_MODULES];
	char names[2 * IO_MODULES][64];
	double r[2 * IO_MODULES], w[2 * IO_MODULES], m[2 * IO_MODULES];
	size_t n = 0;
	double np = (double)f->nprocs;
	for (size_t i = 0; i < f->nio; i++) {
		const struct io_facts *io = &f->io[i];
		snprintf(names[n], sizeof(names[n]), "%s average rank", io->m->name);
		r[n] = io->read_time / np;
		w[n] = io->write_time / np;
		m[n] = io->meta_time / np;
		labels[n] = names[n];
		n++;
		if (io->slow_rank >= 0)
			snprintf(names[n], sizeof(names[n]), "%s slowest (rank %lld)",
			         io->m->name, (long long)io->slow_rank);
		else
			snprintf(names[n], sizeof(names[n]), "%s slowest rank", io->m->name);
		r[n] = io->slow_read;
		w[n] = io->slow_write;
		m[n] = io->slow_meta;
		labels[n] = names[n];
		n++;
	}
	if (n == 0) {
		dfs_svg_empty(out, "I/O cost (seconds)", "no module with I/O times in the selection");
		return;
	}
	struct series s[] = {{"read", READ_C, r}, {"write", WRITE_C, w}, {"metadata", META_C, m}};
	dfs_svg_bars(out, "I/O cost (seconds per rank)", labels, n, s, 3, false);
}

static void plot_operations(const struct facts *f, dfs_buf *out)
{
	const char *labels[IO_MODULES * MAX_OPS];
	double v[IO_MODULES * MAX_OPS];
	size_t n = 0;
	for (size_t i = 0; i < f->nio; i++)
		for (size_t o = 0; o < f->io[i].nops; o++) {
			labels[n] = f->io[i].op_name[o];
			v[n++] = f->io[i].ops[o];
		}
	if (n == 0) {
		dfs_svg_empty(out, "Operation counts", "no module with operation counters in the selection");
		return;
	}
	struct series s = {"operations", "#555599", v};
	dfs_svg_bars(out, "Operation counts", labels, n, &s, 1, false);
}

static const char *const size_labels[SIZE_BINS] = {
	"0-100", "100-1K", "1K-10K", "10K-100K", "100K-1M", "1M-4M", "4M-10M",
	"10M-100M", "100M-1G", "1G+",
};

static void plot_sizes(const struct facts *f, dfs_buf *out)
{
	const char *labels[IO_MODULES * SIZE_BINS];
	char names[IO_MODULES * SIZE_BINS][48];
	double r[IO_MODULES * SIZE_BINS], w[IO_MODULES * SIZE_BINS];
	size_t n = 0;
	for (size_t i = 0; i < f->nio; i++) {
		if (!f->io[i].has_sizes)
			continue;
		for (int b = 0; b < SIZE_BINS; b++) {
			snprintf(names[n], sizeof(names[n]), "%s %s", f->io[i].m->name, size_labels[b]);
			labels[n] = names[n];
			r[n] = f->io[i].size_read[b];
			w[n++] = f->io[i].size_write[b];
		}
	}
	if (n == 0) {
		dfs_svg_empty(out, "Access sizes", "no module with access size histograms in the selection");
		return;
	}
	struct series s[] = {{"reads", READ_C, r}, {"writes", WRITE_C, w}};
	dfs_svg_bars(out, "Access sizes (operations per size in bytes)", labels, n, s, 2, false);
}

static void plot_pattern(const struct facts *f, dfs_buf *out)
{
	const struct io_facts *io = NULL;
	for (size_t i = 0; i < f->nio; i++)
		if (f->io[i].id == DFS_MOD_POSIX)
			io = &f->io[i];
	if (!io) {
		dfs_svg_empty(out, "Access pattern", "no POSIX records in the selection");
		return;
	}
	static const char *const labels[] = {"total", "sequential", "consecutive", "random"};
	double r[] = {io->reads, io->seq_reads, io->consec_reads,
	              fmax(io->reads - io->seq_reads, 0)};
	double w[] = {io->writes, io->seq_writes, io->consec_writes,
	              fmax(io->writes - io->seq_writes, 0)};
	struct series s[] = {{"reads", READ_C, r}, {"writes", WRITE_C, w}};
	dfs_svg_bars(out, "POSIX access pattern (operations)", labels, 4, s, 2, false);
}

static void plot_mounts(const struct facts *f, dfs_buf *out)
{
	const char *labels[64 + 16];
	char names[64 + 16][96];
	double b[64 + 16];
	size_t k = 0;
	for (size_t i = 0; i < f->nmounts; i++) {
		if (!f->mount[i].files)
			continue;
		snprintf(names[k], sizeof(names[k]), "%.60s (%.20s)", f->mount[i].path, f->mount[i].type);
		labels[k] = names[k];
		b[k++] = f->mount[i].bytes;
	}
	for (size_t i = 0; i < f->ntop; i++) {
		snprintf(names[k], sizeof(names[k]), "path %.60s", f->top[i].path);
		labels[k] = names[k];
		b[k++] = f->top[i].bytes;
	}
	if (k == 0) {
		dfs_svg_empty(out, "Data by mount point", "no file records in the selection");
		return;
	}
	struct series s = {"bytes", "#8c564b", b};
	dfs_svg_bars(out, "Bytes by mount point and by top-level path", labels, k, &s, 1, true);
}

static void plot_ranks(const struct facts *f, dfs_buf *out)
{
	struct series s[] = {{"bytes (largest rank of the bin)", "#9467bd", f->rank_bytes_max}};
	dfs_svg_columns(out, "Bytes per rank (POSIX and STDIO)", "rank",
	                0, (double)(f->nprocs - 1), f->rank_bins, s, 1, true);
}

static void plot_rank_time(const struct facts *f, dfs_buf *out)
{
	struct series t[] = {{"I/O seconds (largest rank of the bin)", "#ff7f0e", f->rank_time_max}};
	dfs_svg_columns(out, "I/O time per rank (POSIX and STDIO)", "rank",
	                0, (double)(f->nprocs - 1), f->rank_bins, t, 1, false);
}

static void plot_heat(const struct facts *f, bool write, dfs_buf *out)
{
	const char *title = write ? "Heat map: bytes written per rank and time"
	                          : "Heat map: bytes read per rank and time";
	if (!f->has_heat) {
		dfs_svg_empty(out, title, "no HEATMAP or DXT records in the selection");
		return;
	}
	dfs_svg_grid(out, title, f->heat_from_dxt ? "seconds (from DXT)" : "seconds",
	             "rank", f->heat_span, (double)(f->nprocs - 1), f->rank_bins,
	             TIME_BINS, write ? &f->heat_write[0][0] : &f->heat_read[0][0],
	             write ? WRITE_C : READ_C, NULL, NULL);
}

static void plot_dxt_offsets(const struct facts *f, dfs_buf *out)
{
	if (!f->has_dxt) {
		dfs_svg_empty(out, "DXT: offset against time", "no DXT records in the selection");
		return;
	}
	/* reads and writes in one grid: writes drawn over reads; then the
	 * files with the most requests, each on its own offsets */
	int h = 0;
	dfs_buf_printf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"720\" "
	               "height=\"%d\">\n<g>\n", 384 + (int)f->ntraced * 224);
	dfs_svg_grid(out, "DXT: file offset against time, every file (reads blue, writes red)",
	             "seconds", "offset", f->dxt_span, f->dxt_max_off, OFF_BINS,
	             TIME_BINS, &f->dxt_read[0][0], READ_C, &f->dxt_write[0][0], WRITE_C);
	h += 384;
	for (size_t k = 0; k < f->ntraced; k++) {
		char title[200];
		const dfs_name *nm = dfs_log_name(f->in->log, f->traced_id[k]);
		/* the end of a long name says more than its start */
		size_t skip = nm && nm->len > 90 ? nm->len - 87 : 0;
		snprintf(title, sizeof(title), "%s%.*s: %.0f requests", skip ? "..." : "",
		         nm ? (int)(nm->len - skip) : 9, nm ? nm->str + skip : "(no name)",
		         f->traced_count[k]);
		dfs_buf_printf(out, "</g>\n<g transform=\"translate(0,%d)\">\n", h);
		dfs_svg_grid(out, title, "seconds", "offset", f->dxt_span, f->traced_max_off[k],
		             FILE_OFF_BINS, TIME_BINS, &f->traced[k][0][0], "#444444", NULL, NULL);
		h += 224;
	}
	dfs_buf_adds(out, "</g>\n</svg>\n");
}

static void plot_dxt_durations(const struct facts *f, dfs_buf *out)
{
	if (!f->has_dxt) {
		dfs_svg_empty(out, "DXT: request durations", "no DXT records in the selection");
		return;
	}
	const char *labels[DUR_BINS];
	char names[DUR_BINS][32];
	for (int b = 0; b < DUR_BINS; b++) {
		if (b == 0)
			snprintf(names[b], sizeof(names[b]), "< 1 us");
		else
			snprintf(names[b], sizeof(names[b]), ">= %.3g s", pow(10, (b - 1) / 2.0 - 6));
		labels[b] = names[b];
	}
	struct series s[] = {{"reads", READ_C, f->dur_read}, {"writes", WRITE_C, f->dur_write}};
	dfs_svg_bars(out, "DXT: request durations (requests)", labels, DUR_BINS, s, 2, false);
}

static void plot_lustre(const struct facts *f, dfs_buf *out)
{
	if (!f->has_lustre) {
		dfs_svg_empty(out, "Lustre striping", "no LUSTRE records in the selection");
		return;
	}
	static const char *const labels[] = {"1 stripe", "2 stripes", "3-4", "5-8",
	                                     "9-16", "17-32", "33-64", "65-128", "more"};
	struct series s[] = {{"files", "#17becf", f->stripe_files}};
	dfs_svg_bars(out, "Lustre: files per stripe count", labels, 9, s, 1, false);
}

static void plot_apmpi(const struct facts *f, dfs_buf *out)
{
	if (!f->has_apmpi) {
		dfs_svg_empty(out, "MPI communication time per rank", "no APMPI records in the selection");
		return;
	}
	struct series s[] = {{"seconds (largest rank of the bin)", "#bcbd22", f->comm_time_max}};
	dfs_svg_columns(out, "MPI communication time per rank (APMPI)", "rank", 0,
	                (double)(f->nprocs - 1), f->rank_bins, s, 1, false);
}

static void plot_timeline(const struct facts *f, dfs_buf *out)
{
	char title[160];
	if (f->rank_step > 1)
		/* (short: the legend shares the line) */
		snprintf(title, sizeof(title), "Timeline: %lld ranks, %.4g a lane",
		         (long long)f->nprocs, f->rank_step);
	else
		snprintf(title, sizeof(title), "Timeline: first open to last close per rank");
	dfs_svg_lanes(out, title, f);
}

static void render_plot(const struct facts *f, int plot, dfs_buf *out)
{
	switch (plot) {
	case DFS_PLOT_IO_COST: plot_io_cost(f, out); break;
	case DFS_PLOT_OPERATIONS: plot_operations(f, out); break;
	case DFS_PLOT_ACCESS_SIZES: plot_sizes(f, out); break;
	case DFS_PLOT_ACCESS_PATTERN: plot_pattern(f, out); break;
	case DFS_PLOT_MOUNTS: plot_mounts(f, out); break;
	case DFS_PLOT_RANKS: plot_ranks(f, out); plot_rank_time(f, out); break;
	case DFS_PLOT_TIMELINE: plot_timeline(f, out); break;
	case DFS_PLOT_HEATMAP_READ: plot_heat(f, false, out); break;
	case DFS_PLOT_HEATMAP_WRITE: plot_heat(f, true, out); break;
	case DFS_PLOT_DXT_OFFSETS: plot_dxt_offsets(f, out); break;
	case DFS_PLOT_DXT_DURATIONS: plot_dxt_durations(f, out); break;
	case DFS_PLOT_LUSTRE: plot_lustre(f, out); break;
	case DFS_PLOT_APMPI: plot_apmpi(f, out); break;
	}
}

static void svg_of(const struct facts *f, int plot, dfs_buf *out)
{
	dfs_buf_adds(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	if (plot == DFS_PLOT_RANKS) {
		/* two plots stacked in one document */
		dfs_buf_adds(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"720\" "
		                  "height=\"456\">\n<g>\n");
		plot_ranks(f, out);
		dfs_buf_adds(out, "</g>\n<g transform=\"translate(0,228)\">\n");
		plot_rank_time(f, out);
		dfs_buf_adds(out, "</g>\n</svg>\n");
	} else {
		render_plot(f, plot, out);
	}
}

int dfs_summary_svg(const dfs_summary_input *in, int plot, dfs_buf *out,
                    dfs_error *err)
{
	if (plot < 0 || plot >= DFS_PLOTS)
		return dfs_error_set(err, DFS_ERR_NOENT, "no such plot");
	struct facts *f = dfs_facts_new(in, true);
	if (!f)
		return dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
	svg_of(f, plot, out);
	dfs_facts_free(f);
	return dfs_buf_ok(out) ? 0 : dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
}

/* ---- the page --------------------------------------------------------------- */

static void h2(dfs_buf *out, const char *id, const char *title)
{
	dfs_buf_printf(out, "<h2 id=\"%s\">%s</h2>\n", id, title);
}

static void row(dfs_buf *out, const char *key, const char *value)
{
	dfs_buf_adds(out, "<tr><th>");
	dfs_xml_str(out, key);
	dfs_buf_adds(out, "</th><td>");
	dfs_xml_str(out, value);
	dfs_buf_adds(out, "</td></tr>\n");
}

static void cell(dfs_buf *out, const char *text)
{
	dfs_buf_adds(out, "<td>");
	dfs_xml_str(out, text);
	dfs_buf_adds(out, "</td>");
}

static void cell_num(dfs_buf *out, double v, bool bytes)
{
	char b[48];
	if (bytes)
		dfs_human_bytes(b, sizeof(b), v);
	else
		dfs_human_num(b, sizeof(b), v);
	dfs_buf_printf(out, "<td class=\"n\">%s</td>", b);
}

static void utc(char *buf, size_t n, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (gmtime_r(&tt, &tm))
		strftime(buf, n, "%Y-%m-%d %H:%M:%S UTC", &tm);
	else
		snprintf(buf, n, "%lld", (long long)t);
}

static void section_job(const struct facts *f, dfs_buf *out)
{
	const dfs_job *job = f->job;
	char b[128];
	h2(out, "job", "Job");
	dfs_buf_adds(out, "<table class=\"kv\">\n");
	row(out, "executable", job->exe && *job->exe ? job->exe : "(unknown)");
	snprintf(b, sizeof(b), "%lld", (long long)job->jobid);
	row(out, "job id", b);
	snprintf(b, sizeof(b), "%lld", (long long)job->uid);
	row(out, "uid", b);
	snprintf(b, sizeof(b), "%lld", (long long)job->nprocs);
	row(out, "processes", b);
	utc(b, sizeof(b), job->start_sec);
	row(out, "start", b);
	utc(b, sizeof(b), job->end_sec);
	row(out, "end", b);
	snprintf(b, sizeof(b), "%.4f s", job->run_time);
	row(out, "run time", b);
	const dfs_log_header *h = dfs_log_get_header(f->in->log);
	row(out, "log format", h->version);
	row(out, "filters", f->in->filters && *f->in->filters ? f->in->filters
	                                                       : "none (every record)");
	dfs_buf_adds(out, "</table>\n<table>\n<tr><th>module</th><th>records selected</th>"
	                  "<th>records</th><th>bytes read</th><th>bytes written</th>"
	                  "<th>state</th></tr>\n");
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		const dfs_log_module *lm = dfs_log_get_module(f->in->log, id);
		if (!lm->present)
			continue;
		const dfs_summary_module *sm = &f->in->mod[id];
		dfs_buf_adds(out, "<tr>");
		cell(out, dfs_module_slot_name(id));
		cell_num(out, (double)sm->count, false);
		cell_num(out, (double)sm->total, false);
		const struct io_facts *io = dfs_facts_io((struct facts *)f, id);
		if (io) {
			cell_num(out, io->bytes_read, true);
			cell_num(out, io->bytes_written, true);
		} else {
			dfs_buf_adds(out, "<td></td><td></td>");
		}
		if (sm->error || lm->status != DFS_OK)
			cell(out, sm->error ? sm->error : lm->error ? lm->error : "unreadable");
		else
			cell(out, sm->partial || lm->partial ? "PARTIAL: incomplete data" : "ok");
		dfs_buf_adds(out, "</tr>\n");
	}
	dfs_buf_adds(out, "</table>\n");
	bool any = false;
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		const dfs_summary_module *sm = &f->in->mod[id];
		for (size_t w = 0; w < sm->n_warnings; w++) {
			dfs_buf_adds(out, any ? "<li>" : "<ul class=\"warnings\"><li>");
			dfs_xml_str(out, dfs_module_slot_name(id));
			dfs_buf_adds(out, ": ");
			dfs_xml_str(out, sm->warnings[w]);
			dfs_buf_adds(out, "</li>\n");
			any = true;
		}
	}
	if (any)
		dfs_buf_adds(out, "</ul>\n");
}

/* text whose `quoted` parts are code */
static void code_text(dfs_buf *out, const char *s)
{
	bool code = false;
	for (const char *p = s; *p;) {
		const char *q = strchr(p, '`');
		size_t n = q ? (size_t)(q - p) : strlen(p);
		dfs_xml_text(out, p, n);
		if (!q)
			break;
		dfs_buf_adds(out, code ? "</code>" : "<code>");
		code = !code;
		p = q + 1;
	}
	if (code)
		dfs_buf_adds(out, "</code>");
}

static void advice_item(void *ctx, const char *text)
{
	dfs_buf *out = ctx;
	dfs_buf_adds(out, "<li>");
	code_text(out, text);
	dfs_buf_adds(out, "</li>\n");
}

static void section_insights(const struct facts *f, dfs_buf *out)
{
	const struct finding *fd;
	size_t n = dfs_findings(f, &fd);
	h2(out, "insights", "Insights");
	if (n == 0) {
		dfs_buf_adds(out, "<p>No problem found with the current thresholds.</p>\n");
		return;
	}
	dfs_buf_adds(out, "<table id=\"insight-table\">\n<tr><th>level</th><th>code</th>"
	                  "<th>module</th><th>finding</th></tr>\n");
	dfs_buf line = DFS_BUF_INIT;
	for (size_t i = 0; i < n; i++) {
		dfs_buf_printf(out, "<tr class=\"%s\">", fd[i].level);
		cell(out, fd[i].level);
		cell(out, fd[i].code);
		cell(out, fd[i].module);
		dfs_buf_adds(out, "<td><p>");
		dfs_xml_str(out, fd[i].message);
		dfs_buf_adds(out, "</p>\n");
		if (fd[i].nabout) {
			dfs_buf_printf(out, "<p>%s:</p><ul class=\"about\">\n",
			               fd[i].kind == ABOUT_RANKS ? "Ranks" :
			               fd[i].kind == ABOUT_RECORDS ? "Records" : "Files");
			for (size_t k = 0; k <= fd[i].nabout; k++) {
				if (k == fd[i].nabout && !fd[i].rest_n)
					break;
				dfs_buf_reset(&line);
				dfs_about_line(f, &fd[i], k, &line);
				dfs_buf_adds(out, "<li>");
				if (dfs_buf_ok(&line))
					dfs_xml_text(out, line.data, line.len);
				dfs_buf_adds(out, "</li>\n");
			}
			dfs_buf_adds(out, "</ul>\n");
		}
		size_t before = out->len;
		dfs_buf_adds(out, "<p>Advice:</p><ul class=\"advice\">\n");
		size_t head = out->len;
		dfs_advice(f, &fd[i], advice_item, out);
		if (out->len == head && dfs_buf_ok(out)) {
			out->len = before;
			out->data[before] = '\0';
		} else
			dfs_buf_adds(out, "</ul>\n");
		dfs_buf_adds(out, "</td></tr>\n");
	}
	dfs_buf_free(&line);
	dfs_buf_adds(out, "</table>\n");
}

static void figure(const struct facts *f, int plot, dfs_buf *out)
{
	dfs_buf_printf(out, "<figure id=\"plot-%s\">\n", plot_names[plot]);
	if (plot == DFS_PLOT_RANKS) {
		plot_ranks(f, out);
		plot_rank_time(f, out);
	} else {
		render_plot(f, plot, out);
	}
	dfs_buf_printf(out, "<figcaption>summary/%s.svg</figcaption></figure>\n",
	               plot_names[plot]);
}

static void section_cost(const struct facts *f, dfs_buf *out)
{
	h2(out, "cost", "I/O cost");
	dfs_buf_adds(out, "<table>\n<tr><th>module</th><th>read s (avg)</th><th>write s (avg)</th>"
	                  "<th>metadata s (avg)</th><th>slowest rank</th><th>read s</th>"
	                  "<th>write s</th><th>metadata s</th></tr>\n");
	double np = (double)f->nprocs;
	for (size_t i = 0; i < f->nio; i++) {
		const struct io_facts *io = &f->io[i];
		dfs_buf_adds(out, "<tr>");
		cell(out, io->m->name);
		cell_num(out, io->read_time / np, false);
		cell_num(out, io->write_time / np, false);
		cell_num(out, io->meta_time / np, false);
		cell_num(out, (double)io->slow_rank, false);
		cell_num(out, io->slow_read, false);
		cell_num(out, io->slow_write, false);
		cell_num(out, io->slow_meta, false);
		dfs_buf_adds(out, "</tr>\n");
	}
	dfs_buf_adds(out, "</table>\n");
	figure(f, DFS_PLOT_IO_COST, out);
}

static void section_overview(const struct facts *f, dfs_buf *out)
{
	h2(out, "overview", "Overview and file counts");
	dfs_buf_adds(out, "<table>\n<tr><th>module</th><th>files</th><th>bytes read</th>"
	                  "<th>bytes written</th><th>time by slowest (s)</th>"
	                  "<th>perf by slowest (MiB/s)</th><th>read-only</th>"
	                  "<th>write-only</th><th>read-write</th><th>shared</th></tr>\n");
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		const dfs_derived_metrics *dm = f->in->mod[id].dm;
		if (!dm || !f->in->mod[id].records)
			continue;
		const dfs_category_counters *c = dm->category_counters;
		dfs_buf_adds(out, "<tr>");
		cell(out, dfs_module_slot_name(id));
		cell_num(out, (double)c[DFS_ALL_FILES].count, false);
		cell_num(out, (double)c[DFS_ALL_FILES].total_read_volume_bytes, true);
		cell_num(out, (double)c[DFS_ALL_FILES].total_write_volume_bytes, true);
		cell_num(out, dm->agg_time_by_slowest, false);
		cell_num(out, dm->agg_perf_by_slowest, false);
		static const int cats[] = {DFS_RO_FILES, DFS_WO_FILES, DFS_RW_FILES};
		for (int k = 0; k < 3; k++) {
			const dfs_category_counters *cc = &c[cats[k]];
			char a[48], m[48], t[160];
			dfs_human_bytes(a, sizeof(a), cc->count ? (double)cc->total_max_offset_bytes /
			                                          (double)cc->count : 0);
			dfs_human_bytes(m, sizeof(m), (double)cc->max_offset_bytes);
			snprintf(t, sizeof(t), "%lld (avg %s, max %s)", (long long)cc->count, a, m);
			cell(out, t);
		}
		cell_num(out, (double)(c[DFS_SHARED_FILES].count + c[DFS_PART_SHARED_FILES].count), false);
		dfs_buf_adds(out, "</tr>\n");
	}
	dfs_buf_adds(out, "</table>\n");
}

static void section_sizes(const struct facts *f, dfs_buf *out)
{
	h2(out, "sizes", "Access sizes");
	figure(f, DFS_PLOT_ACCESS_SIZES, out);
	dfs_buf_adds(out, "<table>\n<tr><th>module</th><th>most common access sizes (count)</th></tr>\n");
	for (size_t i = 0; i < f->nio; i++) {
		const struct io_facts *io = &f->io[i];
		if (!io->ncommon)
			continue;
		dfs_buf_adds(out, "<tr>");
		cell(out, io->m->name);
		dfs_buf_adds(out, "<td>");
		for (size_t k = 0; k < io->ncommon; k++)
			dfs_buf_printf(out, "%s%.0f (%.0f)", k ? ", " : "", io->common_size[k],
			               io->common_count[k]);
		dfs_buf_adds(out, "</td></tr>\n");
	}
	dfs_buf_adds(out, "</table>\n");
}

static void section_mounts(const struct facts *f, dfs_buf *out)
{
	h2(out, "mounts", "Data by mount point");
	dfs_buf_adds(out, "<table>\n<tr><th>mount point</th><th>fs type</th><th>files</th><th>bytes</th></tr>\n");
	for (size_t i = 0; i < f->nmounts; i++) {
		if (!f->mount[i].files)
			continue;
		dfs_buf_adds(out, "<tr>");
		cell(out, f->mount[i].path);
		cell(out, f->mount[i].type);
		cell_num(out, (double)f->mount[i].files, false);
		cell_num(out, f->mount[i].bytes, true);
		dfs_buf_adds(out, "</tr>\n");
	}
	dfs_buf_adds(out, "</table>\n<table>\n<tr><th>top-level path</th><th>files</th><th>bytes</th></tr>\n");
	for (size_t i = 0; i < f->ntop; i++) {
		dfs_buf_adds(out, "<tr>");
		cell(out, f->top[i].path);
		cell_num(out, (double)f->top[i].files, false);
		cell_num(out, f->top[i].bytes, true);
		dfs_buf_adds(out, "</tr>\n");
	}
	dfs_buf_adds(out, "</table>\n");
	figure(f, DFS_PLOT_MOUNTS, out);
}

static void top_table(dfs_buf *out, const char *title, const struct top_file *t, size_t n)
{
	dfs_buf_printf(out, "<h3>%s</h3>\n<table>\n<tr><th>file (digits as *)</th>"
	                    "<th>files</th><th>bytes</th><th>I/O seconds</th></tr>\n", title);
	for (size_t i = 0; i < n; i++) {
		dfs_buf_adds(out, "<tr>");
		cell(out, t[i].name);
		cell_num(out, (double)t[i].files, false);
		cell_num(out, t[i].bytes, true);
		cell_num(out, t[i].time, false);
		dfs_buf_adds(out, "</tr>\n");
	}
	dfs_buf_adds(out, "</table>\n");
}

static void section_ranks(const struct facts *f, dfs_buf *out)
{
	h2(out, "ranks", "Per rank");
	figure(f, DFS_PLOT_RANKS, out);
	dfs_buf_printf(out, "<p>%zu ranks did POSIX or STDIO I/O; the busiest, rank %lld, "
	               "spent %.4f s in I/O.</p>\n", f->ranks_seen, (long long)f->worst_rank,
	               f->worst_rank_time);
	dfs_buf_adds(out, "<table id=\"rank-table\">\n<tr><th>ranks</th><th>records</th>"
	                  "<th>bytes</th><th>I/O seconds</th><th>largest bytes</th>"
	                  "<th>largest seconds</th></tr>\n");
	for (size_t b = 0; b < f->rank_bins; b++) {
		if (!f->rank_recs[b])
			continue;
		int64_t lo = dfs_facts_bin_rank(f, b), hi = dfs_facts_bin_rank(f, b + 1) - 1;
		char r[64];
		if (hi <= lo)
			snprintf(r, sizeof(r), "%lld", (long long)lo);
		else
			snprintf(r, sizeof(r), "%lld-%lld", (long long)lo, (long long)hi);
		dfs_buf_adds(out, "<tr class=\"rank\">");
		cell(out, r);
		cell_num(out, f->rank_recs[b], false);
		cell_num(out, f->rank_bytes[b], true);
		cell_num(out, f->rank_time[b], false);
		cell_num(out, f->rank_bytes_max[b], true);
		cell_num(out, f->rank_time_max[b], false);
		dfs_buf_adds(out, "</tr>\n");
	}
	dfs_buf_adds(out, "</table>\n");
	const struct io_facts *px = dfs_facts_io((struct facts *)f, DFS_MOD_POSIX);
	if (px && px->shared_files)
		dfs_buf_printf(out, "<p>Shared files: %zu; %zu of them with ranks more "
		               "than %.0f%% apart in bytes or time.</p>\n", px->shared_files,
		               px->stragglers, f->thr.imbalance_stragglers * 100);
}

/* every traced file has a plot of its own: a table links to those of
 * the files with the most requests, the directory lists them all */
static void section_dxt_files(const struct facts *f, dfs_buf *out)
{
	if (!f->has_dxt || !f->dxt_files_total)
		return;
	dfs_buf_printf(out, "<h3>Traced files</h3>\n<p id=\"dxt-files\">%zu files have "
	               "selected segments, each with a plot of its own in summary/dxt/ "
	               "(named by record id)", f->dxt_files_total);
	if (f->dxt_files_total > f->ndxt_files)
		dfs_buf_printf(out, "; the %zu with the most requests are listed", f->ndxt_files);
	dfs_buf_adds(out, ".</p>\n<table id=\"dxt-table\">\n<tr><th>plot</th><th>file</th>"
	                  "<th>requests</th><th>extent</th></tr>\n");
	for (size_t i = 0; i < f->ndxt_files; i++) {
		const struct dxt_listed *d = &f->dxt_files[i];
		unsigned long long id = (unsigned long long)d->id;
		dfs_buf_printf(out, "<tr class=\"dxt\"><td><a href=\"summary/dxt/%llu.svg\">"
		               "%llu.svg</a></td>", id, id);
		const dfs_name *nm = dfs_log_name(f->in->log, d->id);
		dfs_buf_adds(out, "<td>");
		if (nm)
			dfs_xml_text(out, nm->str, nm->len > 200 ? 200 : nm->len);
		else
			dfs_buf_adds(out, "(no name)");
		dfs_buf_adds(out, "</td>");
		cell_num(out, d->requests, false);
		cell_num(out, d->extent, true);
		dfs_buf_adds(out, "</tr>\n");
	}
	dfs_buf_adds(out, "</table>\n");
}

static const char style[] =
	"body{font-family:sans-serif;margin:1em 2em;color:#222}"
	"table{border-collapse:collapse;margin:.5em 0}"
	"td,th{border:1px solid #ccc;padding:2px 6px;text-align:left;font-size:13px}"
	"td.n{text-align:right}th{background:#f0f0f0}"
	"tr.HIGH td{background:#fde0e0}tr.WARN td{background:#fff3d0}"
	"figure{margin:.5em 0}figcaption{font-size:11px;color:#666}"
	"nav a{margin-right:1em}";

static void html_of(const struct facts *f, dfs_buf *out)
{
	const dfs_summary_input *in = f->in;
	dfs_buf_adds(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>");
	dfs_xml_str(out, in->title);
	dfs_buf_printf(out, " - darshanfs summary</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", style);
	dfs_xml_str(out, in->title);
	dfs_buf_adds(out, "</h1>\n<nav><a href=\"#job\">job</a><a href=\"#insights\">insights</a>"
	                  "<a href=\"#cost\">I/O cost</a><a href=\"#overview\">overview</a>"
	                  "<a href=\"#operations\">operations</a><a href=\"#sizes\">sizes</a>"
	                  "<a href=\"#pattern\">pattern</a><a href=\"#mounts\">mounts</a>"
	                  "<a href=\"#files\">top files</a><a href=\"#ranks\">ranks</a>"
	                  "<a href=\"#timeline\">timeline</a><a href=\"#heatmap\">heat map</a>"
	                  "<a href=\"#dxt\">DXT</a><a href=\"#lustre\">Lustre</a>"
	                  "<a href=\"#apmpi\">APMPI</a></nav>\n");
	section_job(f, out);
	section_insights(f, out);
	section_cost(f, out);
	section_overview(f, out);
	h2(out, "operations", "Operation counts");
	figure(f, DFS_PLOT_OPERATIONS, out);
	section_sizes(f, out);
	h2(out, "pattern", "Access pattern");
	figure(f, DFS_PLOT_ACCESS_PATTERN, out);
	section_mounts(f, out);
	h2(out, "files", "Top files");
	top_table(out, "Most bytes", f->by_bytes, f->nby_bytes);
	top_table(out, "Most I/O time", f->by_time, f->nby_time);
	section_ranks(f, out);
	h2(out, "timeline", "Timeline");
	figure(f, DFS_PLOT_TIMELINE, out);
	h2(out, "heatmap", "Heat map");
	figure(f, DFS_PLOT_HEATMAP_READ, out);
	figure(f, DFS_PLOT_HEATMAP_WRITE, out);
	h2(out, "dxt", "DXT traces");
	if (f->has_dxt)
		dfs_buf_printf(out, "<p>Hosts seen in the traces: %zu.</p>\n", f->dxt_hosts);
	figure(f, DFS_PLOT_DXT_OFFSETS, out);
	figure(f, DFS_PLOT_DXT_DURATIONS, out);
	section_dxt_files(f, out);
	h2(out, "lustre", "Lustre");
	if (f->has_lustre) {
		dfs_buf_printf(out, "<p>%zu files on Lustre, %zu OSTs used.</p>\n",
		               f->lustre_files, f->osts_used);
		static const char *const bins[] = {"1", "2", "3-4", "5-8", "9-16", "17-32",
		                                   "33-64", "65-128", "more"};
		dfs_buf_adds(out, "<table>\n<tr><th>stripes</th><th>files</th>"
		                  "<th>total size</th><th>average size</th></tr>\n");
		for (int b = 0; b < 9; b++) {
			if (!f->stripe_files[b])
				continue;
			dfs_buf_printf(out, "<tr><td>%s</td>", bins[b]);
			cell_num(out, f->stripe_files[b], false);
			cell_num(out, f->stripe_bytes[b], true);
			cell_num(out, f->stripe_bytes[b] / f->stripe_files[b], true);
			dfs_buf_adds(out, "</tr>\n");
		}
		dfs_buf_adds(out, "</table>\n");
	}
	figure(f, DFS_PLOT_LUSTRE, out);
	h2(out, "apmpi", "MPI communication (APMPI)");
	figure(f, DFS_PLOT_APMPI, out);
	dfs_buf_adds(out, "</body>\n</html>\n");
}

int dfs_summary_html(const dfs_summary_input *in, dfs_buf *out, dfs_error *err)
{
	struct facts *f = dfs_facts_new(in, true);
	if (!f)
		return dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
	html_of(f, out);
	dfs_facts_free(f);
	return dfs_buf_ok(out) ? 0 : dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
}

int dfs_summary_render_all(const dfs_summary_input *in, dfs_buf *html,
                           dfs_buf svg[DFS_PLOTS], dfs_buf *txt, dfs_buf *csv,
                           dfs_error *err)
{
	struct facts *f = dfs_facts_new(in, true);
	if (!f)
		return dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
	bool ok = true;
	html_of(f, html);
	ok = ok && dfs_buf_ok(html);
	for (int p = 0; p < DFS_PLOTS; p++) {
		svg_of(f, p, &svg[p]);
		ok = ok && dfs_buf_ok(&svg[p]);
	}
	dfs_insights_text_of(f, txt);
	dfs_insights_csv_of(f, NULL, true, csv);
	ok = ok && dfs_buf_ok(txt) && dfs_buf_ok(csv);
	dfs_facts_free(f);
	return ok ? 0 : dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
}
