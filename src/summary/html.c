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
	"ranks", "timeline", "heatmap_posix", "heatmap_mpiio", "heatmap_stdio",
	"heatmap_dfs", "heatmap_daos", "dxt_offsets", "dxt_durations", "lustre", "apmpi",
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
#define HEAT_C "#7b3294"

/* Cells drawn at most (merged bins beyond): what keeps every page under
 * 1 MB whatever the log (a heat map cell with its tooltip is about 125
 * bytes, a DXT cell about 60) */
#define HEAT_BUDGET 2800     /* all the heat maps of a page together */
#define DXT_BUDGET 1600      /* the offsets of every file */
#define TRACED_BUDGET 400    /* each file shown alone */

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
		if (!(io->read_time + io->write_time + io->meta_time > 0))
			continue;   /* (said in the table) */
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
		dfs_svg_empty(out, "I/O cost (seconds)", "no I/O time in the selection");
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
			if (!(f->io[i].ops[o] > 0))
				continue;   /* (no run of empty bars) */
			labels[n] = f->io[i].op_name[o];
			v[n++] = f->io[i].ops[o];
		}
	if (n == 0) {
		dfs_svg_empty(out, "Operation counts", "no operation counted in the selection");
		return;
	}
	struct series s = {"operations", "#555599", v};
	dfs_svg_bars(out, "Operation counts", labels, n, &s, 1, false);
}

/* Darshan's bins, each with its upper bound (a request of exactly 1 MiB
 * is in 100 KiB-1 MiB) */
static const char *const size_labels[SIZE_BINS] = {
	"0-100 B", "100 B-1 KiB", "1-10 KiB", "10-100 KiB", "100 KiB-1 MiB", "1-4 MiB",
	"4-10 MiB", "10-100 MiB", "100 MiB-1 GiB", "over 1 GiB",
};

/* the bins from the first to the last that any module's reads or
 * writes fill (false: none) */
static bool size_span(const struct facts *f, int *lo, int *hi)
{
	*lo = SIZE_BINS;
	*hi = -1;
	for (size_t i = 0; i < f->nio; i++) {
		if (!f->io[i].has_sizes)
			continue;
		for (int b = 0; b < SIZE_BINS; b++)
			if (f->io[i].size_read[b] > 0 || f->io[i].size_write[b] > 0) {
				*lo = b < *lo ? b : *lo;
				*hi = b > *hi ? b : *hi;
			}
	}
	return *hi >= 0;
}

static void plot_sizes(const struct facts *f, dfs_buf *out)
{
	const char *labels[IO_MODULES * SIZE_BINS];
	char names[IO_MODULES * SIZE_BINS][48];
	double r[IO_MODULES * SIZE_BINS], w[IO_MODULES * SIZE_BINS];
	size_t n = 0;
	int lo, hi;
	if (!size_span(f, &lo, &hi)) {
		dfs_svg_empty(out, "Access sizes", "no request counted in the access size histograms of the selection");
		return;
	}
	for (size_t i = 0; i < f->nio; i++) {
		const struct io_facts *io = &f->io[i];
		if (!io->has_sizes)
			continue;
		double any = 0;
		for (int b = 0; b < SIZE_BINS; b++)
			any += io->size_read[b] + io->size_write[b];
		if (!(any > 0))
			continue;
		for (int b = lo; b <= hi; b++) {
			if (!(io->size_read[b] + io->size_write[b] > 0))
				continue;   /* (no empty bar: each says its range) */
			snprintf(names[n], sizeof(names[n]), "%s %s", io->m->name, size_labels[b]);
			labels[n] = names[n];
			r[n] = io->size_read[b];
			w[n++] = io->size_write[b];
		}
	}
	struct series s[] = {{"reads", READ_C, r}, {"writes", WRITE_C, w}};
	dfs_svg_bars(out, "Access sizes (requests; a bin includes its upper bound)",
	             labels, n, s, 2, false);
}

static void plot_pattern(const struct facts *f, dfs_buf *out)
{
	const struct io_facts *io = NULL;
	for (size_t i = 0; i < f->nio; i++)
		if (f->io[i].id == DFS_MOD_POSIX)
			io = &f->io[i];
	if (!io || !(io->reads + io->writes > 0)) {
		dfs_svg_empty(out, "Access pattern", "no POSIX read or write in the selection");
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
	if (f->nprocs <= 1) {
		dfs_svg_empty(out, "Bytes per rank", "a job of one rank: its numbers are in the page's tables");
		return;
	}
	struct series s[] = {{"bytes (largest rank of the bin)", "#9467bd", f->rank_bytes_max}};
	dfs_svg_columns(out, "Bytes per rank (POSIX and STDIO)", "rank",
	                0, (double)(f->nprocs - 1), f->rank_bins, s, 1, true);
}

static void plot_rank_time(const struct facts *f, dfs_buf *out)
{
	if (f->nprocs <= 1) {
		dfs_svg_empty(out, "I/O time per rank", "a job of one rank: its numbers are in the page's tables");
		return;
	}
	struct series t[] = {{"I/O seconds (largest rank of the bin)", "#ff7f0e", f->rank_time_max}};
	dfs_svg_columns(out, "I/O time per rank (POSIX and STDIO)", "rank",
	                0, (double)(f->nprocs - 1), f->rank_bins, t, 1, false);
}

/* the cells of layer l with bytes, at full resolution */
static size_t heat_cells(const struct facts *f, int l)
{
	const struct heat_layer *h = &f->heat[l];
	size_t n = 0;
	for (size_t r = 0; h->read && r < f->rank_bins; r++)
		for (size_t c = 0; c < TIME_BINS; c++)
			n += h->read[r][c] + h->write[r][c] > 0;
	return n;
}

/* The cells layer l may draw: the layers share HEAT_BUDGET, those that
 * need less than an even share taking what they need (so a sparse map
 * keeps every bin) and the others the rest evenly. */
static size_t heat_budget(const struct facts *f, int l)
{
	size_t need[HEAT_LAYERS], left = HEAT_BUDGET, open = 0;
	bool done[HEAT_LAYERS];
	for (int k = 0; k < HEAT_LAYERS; k++) {
		need[k] = heat_cells(f, k);
		done[k] = need[k] == 0;
		open += !done[k];
	}
	for (bool moved = true; moved && open;) {
		moved = false;
		for (int k = 0; k < HEAT_LAYERS; k++)
			if (!done[k] && need[k] <= left / open) {
				left -= need[k];
				done[k] = true;
				open--;
				moved = true;
			}
	}
	return need[l] && !done[l] ? left / (open ? open : 1) : need[l];
}

static void plot_heat(const struct facts *f, int l, dfs_buf *out)
{
	const struct heat_layer *h = &f->heat[l];
	char title[160];
	static const char *const shown[HEAT_LAYERS] = {"POSIX", "MPI-IO", "STDIO", "DFS", "DAOS"};
	snprintf(title, sizeof(title), "Heat map, %s layer: bytes read and written per rank and time%s",
	         shown[l], f->heat_from_dxt ? " (from DXT)" : "");
	if (!f->has_heat || !h->read || !(h->bytes_read + h->bytes_written > 0)) {
		char why[96];
		snprintf(why, sizeof(why), "no %s bytes in the %s records of the selection",
		         shown[l], f->heat_from_dxt || !f->has_heat ? "HEATMAP or DXT"
		                                                                : "HEATMAP");
		dfs_svg_empty(out, title, why);
		return;
	}
	struct grid g = {
		.title = title, .xlabel = "seconds since the job started", .ylabel = "rank",
		.x0 = 0, .x1 = f->heat_span, .rows = f->rank_bins,
		.cols = f->heat_cols, .stride = TIME_BINS,
		.cells = {&h->read[0][0], &h->write[0][0]}, .color = {HEAT_C, HEAT_C},
		.name = {"read", "written"}, .sum = true, .ranks = f, .bytes = true,
		.unit = "B", .scale = "bytes per cell", .tooltips = true,
		.budget = heat_budget(f, l),
	};
	dfs_svg_grid(out, &g);
}

/* the title of a traced file's grid: its name cut to fit, and its
 * requests */
static void traced_title(const struct facts *f, size_t k, char *title, size_t n)
{
	const dfs_name *nm = dfs_log_name(f->in->log, f->traced_id[k]);
	char tail[64], name[160];
	snprintf(tail, sizeof(tail), ": %.0f requests", f->traced_count[k]);
	if (nm)
		dfs_svg_fit(name, sizeof(name), nm->str, nm->len, TITLE_CHARS - strlen(tail));
	else
		snprintf(name, sizeof(name), "(record %llu, no name)",
		         (unsigned long long)f->traced_id[k]);
	snprintf(title, n, "%s%s", name, tail);
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
	               "height=\"%d\">\n<g>\n", 408 + (int)f->ntraced * 248);
	struct grid g = {
		.title = "DXT: file offset against time, every traced file",
		.xlabel = "seconds since the job started", .ylabel = "offset",
		.x0 = 0, .x1 = f->dxt_span, .rows = OFF_BINS, .cols = TIME_BINS,
		.cells = {&f->dxt_read[0][0], &f->dxt_write[0][0]}, .color = {READ_C, WRITE_C},
		.name = {"reads", "writes"}, .y0 = 0, .y1 = f->dxt_max_off, .y_bytes = true,
		.unit = "requests", .scale = "requests per cell", .budget = DXT_BUDGET,
	};
	dfs_svg_grid(out, &g);
	h += 408;
	for (size_t k = 0; k < f->ntraced; k++) {
		char title[200];
		traced_title(f, k, title, sizeof(title));
		dfs_buf_printf(out, "</g>\n<g transform=\"translate(0,%d)\">\n", h);
		struct grid t = {
			.title = title, .xlabel = "seconds since the job started", .ylabel = "offset",
			.x0 = 0, .x1 = f->dxt_span, .rows = FILE_OFF_BINS, .cols = TIME_BINS,
			.cells = {&f->traced[k][0][0], NULL}, .color = {"#444444", NULL},
			.y0 = 0, .y1 = f->traced_max_off[k], .y_bytes = true,
			.unit = "requests", .scale = "requests per cell", .budget = TRACED_BUDGET,
		};
		dfs_svg_grid(out, &t);
		h += 248;
	}
	dfs_buf_adds(out, "</g>\n</svg>\n");
}

static void plot_dxt_durations(const struct facts *f, dfs_buf *out)
{
	if (!f->has_dxt) {
		dfs_svg_empty(out, "DXT: request durations", "no DXT records in the selection");
		return;
	}
	/* the bins from the first to the last filled */
	int lo = DUR_BINS, hi = -1;
	for (int b = 0; b < DUR_BINS; b++)
		if (f->dur_read[b] > 0 || f->dur_write[b] > 0) {
			lo = b < lo ? b : lo;
			hi = b;
		}
	if (hi < 0) {
		dfs_svg_empty(out, "DXT: request durations", "no traced request in the selection");
		return;
	}
	const char *labels[DUR_BINS];
	char names[DUR_BINS][32];
	/* the bins with requests (each says its range) */
	double r[DUR_BINS], w[DUR_BINS];
	size_t n = 0;
	for (int b = lo; b <= hi; b++) {
		if (!(f->dur_read[b] + f->dur_write[b] > 0))
			continue;
		dfs_duration_label(names[n], sizeof(names[0]), b);
		labels[n] = names[n];
		r[n] = f->dur_read[b];
		w[n++] = f->dur_write[b];
	}
	struct series s[] = {{"reads", READ_C, r}, {"writes", WRITE_C, w}};
	dfs_svg_bars(out, "DXT: request durations (requests)", labels, n, s, 2, false);
}

static void plot_lustre(const struct facts *f, dfs_buf *out)
{
	if (!f->has_lustre) {
		dfs_svg_empty(out, "Lustre striping", "no LUSTRE records in the selection");
		return;
	}
	static const char *const labels[] = {"1 stripe", "2 stripes", "3-4", "5-8",
	                                     "9-16", "17-32", "33-64", "65-128", "more"};
	size_t lo = 0, hi = 9;
	while (lo < 9 && !(f->stripe_files[lo] > 0))
		lo++;
	while (hi > lo && !(f->stripe_files[hi - 1] > 0))
		hi--;
	if (lo == hi) {
		dfs_svg_empty(out, "Lustre striping", "no striped file in the selection");
		return;
	}
	const char *shown[9];
	double v[9];
	size_t n = 0;
	for (size_t b = lo; b < hi; b++)
		if (f->stripe_files[b] > 0) {
			shown[n] = labels[b];
			v[n++] = f->stripe_files[b];
		}
	struct series s[] = {{"files", "#17becf", v}};
	dfs_svg_bars(out, "Lustre: files per stripe count", shown, n, s, 1, false);
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
	case DFS_PLOT_RANKS:
		plot_ranks(f, out);
		if (f->nprocs > 1)
			plot_rank_time(f, out);
		break;
	case DFS_PLOT_TIMELINE: plot_timeline(f, out); break;
	case DFS_PLOT_HEATMAP_POSIX: plot_heat(f, 0, out); break;
	case DFS_PLOT_HEATMAP_MPIIO: plot_heat(f, 1, out); break;
	case DFS_PLOT_HEATMAP_STDIO: plot_heat(f, 2, out); break;
	case DFS_PLOT_HEATMAP_DFS: plot_heat(f, 3, out); break;
	case DFS_PLOT_HEATMAP_DAOS: plot_heat(f, 4, out); break;
	case DFS_PLOT_DXT_OFFSETS: plot_dxt_offsets(f, out); break;
	case DFS_PLOT_DXT_DURATIONS: plot_dxt_durations(f, out); break;
	case DFS_PLOT_LUSTRE: plot_lustre(f, out); break;
	case DFS_PLOT_APMPI: plot_apmpi(f, out); break;
	}
}

static void svg_of(const struct facts *f, int plot, dfs_buf *out)
{
	dfs_buf_adds(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	if (plot == DFS_PLOT_RANKS && f->nprocs > 1) {
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
		return dfs_error_nomem(err);
	svg_of(f, plot, out);
	dfs_facts_free(f);
	return dfs_buf_ok(out) ? 0 : dfs_error_nomem(err);
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
	render_plot(f, plot, out);
	dfs_buf_printf(out, "<figcaption>summary/%s.svg</figcaption></figure>\n",
	               plot_names[plot]);
}

/* a note under a table or plot where Darshan's definitions surprise */
static void note(dfs_buf *out, const char *text)
{
	dfs_buf_adds(out, "<p class=\"note\">");
	dfs_buf_adds(out, text);   /* (markup of this file only) */
	dfs_buf_adds(out, "</p>\n");
}

/* a section with nothing to show: one line */
static void none(dfs_buf *out, const char *text)
{
	dfs_buf_adds(out, "<p class=\"none\">");
	dfs_xml_str(out, text);
	dfs_buf_adds(out, "</p>\n");
}

static void section_cost(const struct facts *f, dfs_buf *out)
{
	h2(out, "cost", "I/O cost");
	if (!f->nio) {
		none(out, "No module with I/O times in the selection.");
		return;
	}
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
		if (io->slow_rank >= 0)
			cell_num(out, (double)io->slow_rank, false);
		else
			cell(out, "");
		cell_num(out, io->slow_read, false);
		cell_num(out, io->slow_write, false);
		cell_num(out, io->slow_meta, false);
		dfs_buf_adds(out, "</tr>\n");
	}
	dfs_buf_adds(out, "</table>\n");
	note(out, "Average rank: the module's time summed over its records, divided by the "
	          "job's processes. Slowest rank: the rank whose own records took the most "
	          "time, plus an even share (1/processes) of the shared records' (rank -1) "
	          "time. Darshan's <i>time by slowest</i> (next table) is larger: it adds "
	          "the whole time of each shared file's slowest rank.");
	figure(f, DFS_PLOT_IO_COST, out);
}

/* the average and largest size of the files of a category, or why not
 * (MPI-IO, DFS and DAOS keep no offsets: Darshan gives -1) */
static void sizes_cell(dfs_buf *out, const dfs_category_counters *cc)
{
	char t[160], a[48], m[48];
	if (cc->count && (cc->total_max_offset_bytes < 0 || cc->max_offset_bytes < 0)) {
		snprintf(t, sizeof(t), "%lld (sizes not recorded)", (long long)cc->count);
	} else if (cc->count) {
		dfs_human_bytes(a, sizeof(a), (double)cc->total_max_offset_bytes / (double)cc->count);
		dfs_human_bytes(m, sizeof(m), (double)cc->max_offset_bytes);
		snprintf(t, sizeof(t), "%lld (avg %s, max %s)", (long long)cc->count, a, m);
	} else {
		snprintf(t, sizeof(t), "0");
	}
	cell(out, t);
}

static void section_overview(const struct facts *f, dfs_buf *out)
{
	h2(out, "overview", "Overview and file counts");
	size_t rows = 0;
	for (int id = 0; id < DFS_MOD_SLOTS; id++)
		rows += f->in->mod[id].dm && f->in->mod[id].records;
	if (!rows) {
		none(out, "No module with derived metrics in the selection.");
		return;
	}
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
		sizes_cell(out, &c[DFS_RO_FILES]);
		sizes_cell(out, &c[DFS_WO_FILES]);
		sizes_cell(out, &c[DFS_RW_FILES]);
		cell_num(out, (double)(c[DFS_SHARED_FILES].count + c[DFS_PART_SHARED_FILES].count), false);
		dfs_buf_adds(out, "</tr>\n");
	}
	dfs_buf_adds(out, "</table>\n");
	note(out, "From darshan-util's accumulator, as <code>derived_metrics</code>: time by "
	          "slowest is the time of the slowest rank over its own records plus, for "
	          "each shared file, the time of its slowest rank; perf by slowest is all "
	          "the bytes over that time. A file's size is its largest offset + 1; "
	          "MPI-IO, DFS and DAOS record none. Shared: files opened by more than one "
	          "rank.");
}

static void section_sizes(const struct facts *f, dfs_buf *out)
{
	h2(out, "sizes", "Access sizes");
	int lo, hi;
	size_t common = 0;
	for (size_t i = 0; i < f->nio; i++)
		common += f->io[i].ncommon;
	if (!size_span(f, &lo, &hi) && !common) {
		none(out, "No request counted in the selection.");
		return;
	}
	if (hi >= 0) {
		figure(f, DFS_PLOT_ACCESS_SIZES, out);
		note(out, "Darshan's size bins include their upper bound: a request of exactly "
		          "1 MiB is counted in 100 KiB-1 MiB.");
	}
	if (!common)
		return;
	dfs_buf_adds(out, "<table>\n<tr><th>module</th><th>most common access sizes (count)</th></tr>\n");
	for (size_t i = 0; i < f->nio; i++) {
		const struct io_facts *io = &f->io[i];
		if (!io->ncommon)
			continue;
		dfs_buf_adds(out, "<tr>");
		cell(out, io->m->name);
		dfs_buf_adds(out, "<td>");
		for (size_t k = 0; k < io->ncommon; k++) {
			char h[48];
			dfs_human_bytes(h, sizeof(h), io->common_size[k]);
			dfs_buf_printf(out, "%s%.0f B", k ? ", " : "", io->common_size[k]);
			if (io->common_size[k] >= 1024)
				dfs_buf_printf(out, " = %s", h);
			dfs_buf_printf(out, " (%.0f)", io->common_count[k]);
		}
		dfs_buf_adds(out, "</td></tr>\n");
	}
	dfs_buf_adds(out, "</table>\n");
}

static void section_mounts(const struct facts *f, dfs_buf *out)
{
	h2(out, "mounts", "Data by mount point");
	size_t any = 0;
	for (size_t i = 0; i < f->nmounts; i++)
		any += f->mount[i].files > 0;
	if (!any) {
		none(out, "No file records in the selection.");
		return;
	}
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

/* a file's name in a cell: cut to fit (the whole name its tooltip),
 * then `more` */
static void name_cell(dfs_buf *out, const dfs_log *log, uint64_t id, const char *more)
{
	const dfs_name *nm = dfs_log_name(log, id);
	if (!nm) {
		dfs_buf_printf(out, "<td>(no name: record %llu)%s</td>", (unsigned long long)id, more);
		return;
	}
	if (nm->len <= 240) {
		dfs_buf_adds(out, "<td>");
		dfs_xml_text(out, nm->str, nm->len);
	} else {
		char cut[256];
		dfs_svg_fit(cut, sizeof(cut), nm->str, nm->len, 240);
		dfs_buf_adds(out, "<td title=\"");
		dfs_xml_text(out, nm->str, nm->len > 4096 ? 4096 : nm->len);
		dfs_buf_adds(out, "\">");
		dfs_xml_str(out, cut);
	}
	dfs_buf_printf(out, "%s</td>", more);
}

static void named_table(const struct facts *f, dfs_buf *out, const char *id,
                        const char *title, const struct named_file *t, size_t n)
{
	dfs_buf_printf(out, "<h3>%s</h3>\n<table id=\"%s\" class=\"files\">\n<tr><th>file</th><th>module</th>"
	                    "<th>ranks</th><th>bytes read</th><th>bytes written</th>"
	                    "<th>I/O time (s, all ranks)</th><th>time by slowest (s)</th>"
	                    "<th>perf by slowest (MiB/s)</th></tr>\n", title, id);
	for (size_t i = 0; i < n; i++) {
		const struct named_file *nf = &t[i];
		for (size_t p = 0; p < nf->nparts; p++) {
			const struct named_part *pt = &nf->part[p];
			double slow = pt->slow_unique + pt->slow_shared;
			dfs_buf_printf(out, "<tr class=\"file\" data-id=\"%llu\" data-module=\"%s\" "
			               "data-bytes=\"%.17g\" data-time=\"%.17g\" "
			               "data-slowest=\"%.17g\">", (unsigned long long)nf->id,
			               dfs_module_slot_name(pt->mod), pt->bytes_read + pt->bytes_written,
			               pt->time, slow);
			name_cell(out, f->in->log, nf->id, "");
			cell(out, dfs_module_slot_name(pt->mod));
			if (pt->shared)
				dfs_buf_printf(out, "<td class=\"n\">%.0f (shared)</td>", pt->ranks);
			else
				cell_num(out, pt->ranks, false);
			cell_num(out, pt->bytes_read, true);
			cell_num(out, pt->bytes_written, true);
			cell_num(out, pt->time, false);
			cell_num(out, slow, false);
			if (slow != 0)
				cell_num(out, (pt->bytes_read + pt->bytes_written) / 1048576.0 / slow, false);
			else
				cell(out, "");
			dfs_buf_adds(out, "</tr>\n");
		}
	}
	dfs_buf_adds(out, "</table>\n");
}

static void pattern_table(const struct facts *f, dfs_buf *out, const char *id,
                          const char *title, const struct top_file *t, size_t n)
{
	dfs_buf_printf(out, "<h3>%s</h3>\n<table id=\"%s\" class=\"files\">\n<tr><th>pattern</th>"
	                    "<th>files</th><th>bytes</th><th>I/O time (s, all ranks)</th>"
	                    "<th>its file with the most bytes</th></tr>\n", title, id);
	for (size_t i = 0; i < n; i++) {
		dfs_buf_adds(out, "<tr class=\"pattern\">");
		cell(out, t[i].name);
		cell_num(out, (double)t[i].files, false);
		cell_num(out, t[i].bytes, true);
		cell_num(out, t[i].time, false);
		if (t[i].files > 1 && t[i].big_bytes > 0) {
			/* (never swallowed: the file that holds most of the bytes is named) */
			char share[64];
			snprintf(share, sizeof(share), " (%.1f%% of the bytes)",
			         100 * t[i].big_bytes / t[i].bytes);
			name_cell(out, f->in->log, t[i].big_id, share);
		} else {
			cell(out, "");
		}
		dfs_buf_adds(out, "</tr>\n");
	}
	dfs_buf_adds(out, "</table>\n");
}

static void section_files(const struct facts *f, dfs_buf *out)
{
	h2(out, "files", "Top files");
	if (!f->nnamed_bytes && !f->nnamed_time) {
		none(out, f->files_seen ? "No file with bytes or I/O time in the selection."
		                        : "No file records in the selection.");
		return;
	}
	dfs_buf_printf(out, "<p>%zu files", f->files_seen);
	if (f->files_seen > TOP_FILES)
		dfs_buf_printf(out, "; the %d with the most bytes and the %d with the most I/O "
		               "time", TOP_FILES, TOP_FILES);
	dfs_buf_adds(out, ".</p>\n");
	named_table(f, out, "files-bytes", "Most bytes", f->named_bytes, f->nnamed_bytes);
	if (f->files_seen > 1)
		named_table(f, out, "files-time", "Most I/O time", f->named_time, f->nnamed_time);
	note(out, "Of the POSIX, STDIO and DFS records (DAOS's without DFS, the other modules' "
	          "without any of these: MPI-IO, HDF5 and PnetCDF go through POSIX, DFS through "
	          "DAOS). Ranks: the ranks with a record of the "
	          "file; a shared record (rank -1, reduced by Darshan) counts every process. "
	          "Time by slowest and perf: what Darshan's accumulator gives when fed that "
	          "file's records alone (PyDarshan's <code>file_stats</code>).");
	/* the patterns, when some files share one (among every pattern: the
	 * one two files share may have too few bytes to be shown) */
	if (!f->patterns_shared) {
		none(out, "No two files share a name pattern.");
		return;
	}
	pattern_table(f, out, "patterns-bytes", "Patterns with the most bytes", f->by_bytes,
	              f->nby_bytes);
	pattern_table(f, out, "patterns-time", "Patterns with the most I/O time", f->by_time,
	              f->nby_time);
	note(out, "A pattern gathers the files whose names differ only in numbers (digit "
	          "runs shown as <code>*</code>) or identifiers (<code>&lt;uuid&gt;</code>, "
	          "<code>&lt;id&gt;</code> for hexadecimal or long mixed words).");
}

static void ranks_table(dfs_buf *out, const char *id, const char *title,
                        const struct top_rank *t, size_t n, double total_time,
                        double total_bytes)
{
	dfs_buf_printf(out, "<h3>%s</h3>\n<table id=\"%s\">\n<tr><th>rank</th><th>bytes</th>"
	                    "<th>share of the bytes</th><th>I/O time (s)</th>"
	                    "<th>share of the time</th></tr>\n", title, id);
	for (size_t i = 0; i < n; i++) {
		dfs_buf_printf(out, "<tr class=\"rank\"><td class=\"n\">%lld</td>",
		               (long long)t[i].rank);
		cell_num(out, t[i].bytes, true);
		dfs_buf_printf(out, "<td class=\"n\">%.1f%%</td>",
		               total_bytes > 0 ? 100 * t[i].bytes / total_bytes : 0);
		cell_num(out, t[i].time, false);
		dfs_buf_printf(out, "<td class=\"n\">%.1f%%</td></tr>\n",
		               total_time > 0 ? 100 * t[i].time / total_time : 0);
	}
	dfs_buf_adds(out, "</table>\n");
}

static void section_ranks(const struct facts *f, dfs_buf *out)
{
	h2(out, "ranks", "Per rank");
	if (!f->ranks_seen && !(f->shared_bytes + f->shared_time > 0)) {
		none(out, "No POSIX or STDIO I/O in the selection.");
		return;
	}
	if (f->nprocs > 1 && f->ranks_seen)
		figure(f, DFS_PLOT_RANKS, out);
	/* (the shares are of the ranks' own records, both of them: the
	 * shared records' are no rank's here) */
	double bytes = 0, time = 0;
	for (size_t b = 0; b < f->rank_bins; b++) {
		bytes += f->rank_bytes[b];
		time += f->rank_time[b];
	}
	dfs_buf_printf(out, "<p>%zu of %lld ranks did POSIX or STDIO I/O in records of their "
	               "own", f->ranks_seen, (long long)f->nprocs);
	if (f->ranks_seen)
		dfs_buf_printf(out, "; the busiest, rank %lld, spent %.4f s", (long long)f->worst_rank,
		               f->worst_rank_time);
	if (f->shared_bytes + f->shared_time > 0) {
		char b[48];
		dfs_human_bytes(b, sizeof(b), f->shared_bytes);
		dfs_buf_printf(out, ". Shared records (rank -1) hold %s and %.4f s of all their "
		               "ranks together, counted for no rank here", b, f->shared_time);
	}
	dfs_buf_adds(out, ".</p>\n");
	if (f->ranks_seen) {
		ranks_table(out, "ranks-time", "Ranks with the most I/O time", f->rank_by_time,
		            f->nrank_by_time, time, bytes);
		if (f->ranks_seen > 1)
			ranks_table(out, "ranks-bytes", "Ranks with the most bytes", f->rank_by_bytes,
			            f->nrank_by_bytes, time, bytes);
		note(out, "POSIX and STDIO together: a request through STDIO (fwrite) is not "
		          "seen by POSIX, so the two add up to the rank's I/O; MPI-IO is not "
		          "added (it goes through POSIX). Shares are of the records with a rank.");
	}
	const struct io_facts *px = dfs_facts_io((struct facts *)f, DFS_MOD_POSIX);
	if (px && px->shared_files)
		dfs_buf_printf(out, "<p>Files with a shared POSIX record (rank -1): %zu; %zu of them "
		               "with ranks more than %.0f%% apart in bytes or time.</p>\n",
		               px->shared_files,
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
		dfs_buf_printf(out, "<tr class=\"dxt\"><td class=\"id\"><a href=\"summary/dxt/%llu.svg\">"
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
	"table.files td,#dxt-table td{overflow-wrap:anywhere}"
	"table.files td:first-child,#dxt-table td:nth-child(2){min-width:20em}"
	"td.n,td.id{text-align:right;white-space:nowrap}th{background:#f0f0f0}"
	"tr.HIGH td{background:#fde0e0}tr.WARN td{background:#fff3d0}"
	"figure{margin:.5em 0}figcaption{font-size:11px;color:#666}"
	"p.note{font-size:12px;color:#555;max-width:60em}p.none{color:#666}"
	"nav a{margin-right:1em}";

static void section_lustre(const struct facts *f, dfs_buf *out)
{
	h2(out, "lustre", "Lustre");
	if (!f->has_lustre) {
		none(out, "No LUSTRE records in the selection.");
		return;
	}
	dfs_buf_printf(out, "<p>%zu %s on Lustre, %zu %s used.</p>\n", f->lustre_files,
	               f->lustre_files == 1 ? "file" : "files", f->osts_used,
	               f->osts_used == 1 ? "OST" : "OSTs");
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
		/* (of the files whose size is known: one with a LUSTRE record
		 * alone has none, not a size of 0) */
		if (f->stripe_sized[b] > 0)
			cell_num(out, f->stripe_bytes[b] / f->stripe_sized[b], true);
		else
			dfs_buf_adds(out, "<td class=\"n\">-</td>");
		dfs_buf_adds(out, "</tr>\n");
	}
	dfs_buf_adds(out, "</table>\n");
	if (f->lustre_unmet)
		dfs_buf_printf(out, "<p class=\"note\">Sizes are those of the files' POSIX, STDIO "
		               "and DFS records: %zu %s only a LUSTRE record and no size, and %s "
		               "in no average.</p>\n", f->lustre_unmet,
		               f->lustre_unmet == 1 ? "file has" : "files have",
		               f->lustre_unmet == 1 ? "is" : "are");
	figure(f, DFS_PLOT_LUSTRE, out);
}

static void section_heat(const struct facts *f, dfs_buf *out)
{
	h2(out, "heatmap", "Heat maps");
	size_t shown = 0;
	for (int l = 0; l < HEAT_LAYERS; l++) {
		const struct heat_layer *h = &f->heat[l];
		if (!f->has_heat || !h->read || !(h->bytes_read + h->bytes_written > 0))
			continue;
		figure(f, DFS_PLOT_HEATMAP_POSIX + l, out);
		shown++;
	}
	if (!shown) {
		none(out, "No HEATMAP or DXT bytes in the selection.");
		return;
	}
	note(out, f->heat_from_dxt
	     ? "From the DXT traces (no HEATMAP records): the bytes of each traced request "
	       "in the time bin of its start, a map per layer (DXT_POSIX, DXT_MPIIO)."
	     : "From Darshan's HEATMAP module: bytes read and written per rank and time bin, "
	       "a map per layer. The layers are never summed: an MPI-IO collective write is "
	       "also a POSIX write of the aggregator ranks, so each byte would count twice. "
	       "Hover a cell for its exact value.");
}

static void section_dxt(const struct facts *f, dfs_buf *out)
{
	h2(out, "dxt", "DXT traces");
	if (!f->has_dxt) {
		none(out, "No DXT_POSIX or DXT_MPIIO records in the selection.");
		return;
	}
	dfs_buf_printf(out, "<p>Hosts seen in the traces: %zu.</p>\n", f->dxt_hosts);
	figure(f, DFS_PLOT_DXT_OFFSETS, out);
	figure(f, DFS_PLOT_DXT_DURATIONS, out);
	section_dxt_files(f, out);
}

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
	                  "<a href=\"#timeline\">timeline</a><a href=\"#heatmap\">heat maps</a>"
	                  "<a href=\"#dxt\">DXT</a><a href=\"#lustre\">Lustre</a>"
	                  "<a href=\"#apmpi\">APMPI</a></nav>\n");
	note(out, "Sizes in binary units (1 KiB = 1024 B, 1 MiB = 1024 KiB), rates in MiB/s, "
	          "times in seconds.");
	section_job(f, out);
	section_insights(f, out);
	section_cost(f, out);
	section_overview(f, out);
	h2(out, "operations", "Operation counts");
	double ops = 0;
	for (size_t i = 0; i < f->nio; i++)
		for (size_t o = 0; o < f->io[i].nops; o++)
			ops += f->io[i].ops[o] > 0 ? f->io[i].ops[o] : 0;
	if (ops > 0)
		figure(f, DFS_PLOT_OPERATIONS, out);
	else
		none(out, "No operation counted in the selection.");
	section_sizes(f, out);
	h2(out, "pattern", "Access pattern");
	const struct io_facts *px = dfs_facts_io((struct facts *)f, DFS_MOD_POSIX);
	if (px && px->reads + px->writes > 0)
		figure(f, DFS_PLOT_ACCESS_PATTERN, out);
	else
		none(out, "No POSIX read or write in the selection.");
	section_mounts(f, out);
	section_files(f, out);
	section_ranks(f, out);
	h2(out, "timeline", "Timeline");
	if (f->tl_end > 0)
		figure(f, DFS_PLOT_TIMELINE, out);
	else
		none(out, "No POSIX or STDIO open or close times in the selection.");
	section_heat(f, out);
	section_dxt(f, out);
	section_lustre(f, out);
	h2(out, "apmpi", "MPI communication (APMPI)");
	if (f->has_apmpi)
		figure(f, DFS_PLOT_APMPI, out);
	else
		none(out, "No APMPI records in the selection.");
	dfs_buf_adds(out, "</body>\n</html>\n");
}

int dfs_summary_html(const dfs_summary_input *in, dfs_buf *out, dfs_error *err)
{
	struct facts *f = dfs_facts_new(in, true);
	if (!f)
		return dfs_error_nomem(err);
	html_of(f, out);
	dfs_facts_free(f);
	return dfs_buf_ok(out) ? 0 : dfs_error_nomem(err);
}

int dfs_summary_render_all(const dfs_summary_input *in, dfs_buf *html,
                           dfs_buf svg[DFS_PLOTS], dfs_buf *txt, dfs_buf *csv,
                           dfs_error *err)
{
	struct facts *f = dfs_facts_new(in, true);
	if (!f)
		return dfs_error_nomem(err);
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
	return ok ? 0 : dfs_error_nomem(err);
}
