/* dxt_plot.c - a plot per traced file, LOG/summary/dxt/<record id>.svg: the
 * offsets against time of the file's selected DXT segments (DXT_POSIX and
 * DXT_MPIIO apart, reads and writes), the durations of its requests, and
 * their numbers.  Like every plot it bins (offset x time cells, duration
 * decades), so its size does not grow with the segments. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "summary/summary_int.h"

#define DXT_FILE_BUDGET 2500   /* cells of each module's grid (bins merged beyond) */

/* the columns of a DXT module read here */
struct dxt_cols {
	const dfs_module *m;
	int off, len, start, end;
};

static bool dxt_cols(int id, struct dxt_cols *c)
{
	c->m = dfs_module_get(id);
	if (!c->m)
		return false;
	c->off = dfs_module_field_index(c->m, "offset", 6);
	c->len = dfs_module_field_index(c->m, "length", 6);
	c->start = dfs_module_field_index(c->m, "start_time", 10);
	c->end = dfs_module_field_index(c->m, "end_time", 8);
	return c->off >= 0 && c->len >= 0 && c->start >= 0 && c->end >= 0;
}

static const dfs_summary_module *dxt_selected(const dfs_summary_input *in, int id)
{
	const dfs_summary_module *sm = &in->mod[id];
	return sm->records && !sm->error && sm->count ? sm : NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int dfs_summary_dxt_files(const dfs_summary_input *in, uint64_t **ids, size_t *n,
                          dfs_error *err)
{
	*ids = NULL;
	*n = 0;
	size_t total = 0;
	for (int id = DFS_MOD_DXT_POSIX; id <= DFS_MOD_DXT_MPIIO; id++)
		if (dxt_selected(in, id))
			total += in->mod[id].count;
	if (total == 0)
		return 0;
	uint64_t *all = malloc(total * sizeof(*all));
	if (!all)
		return dfs_error_nomem(err);
	size_t k = 0;
	unsigned char scratch[DFS_RECORD_MAX];
	for (int id = DFS_MOD_DXT_POSIX; id <= DFS_MOD_DXT_MPIIO; id++) {
		const dfs_summary_module *sm = dxt_selected(in, id);
		if (!sm)
			continue;
		FOR_SELECTED(sm, j, i) {
			if (dfs_record_size(sm->records, i) < 104)
				continue;
			const unsigned char *rec = dfs_record_get(sm->records, i, scratch);
			int64_t w, r;
			memcpy(&w, rec + 88, 8);
			memcpy(&r, rec + 96, 8);
			if (w > 0 || r > 0)   /* a file without segments has no plot */
				all[k++] = dfs_facts_rec_id(rec);
		}
	}
	qsort(all, k, sizeof(*all), cmp_u64);
	size_t u = 0;
	for (size_t i = 0; i < k; i++)
		if (u == 0 || all[u - 1] != all[i])
			all[u++] = all[i];
	if (u == 0) {
		free(all);
		return 0;
	}
	*ids = all;
	*n = u;
	return 0;
}

/* what one file's segments of one module give the plot */
struct dxt_one {
	bool present;
	double reads, writes, bytes_read, bytes_written, records;
	double (*read)[TIME_BINS], (*write)[TIME_BINS];   /* OFF_BINS rows */
};

struct dxt_file {
	double t0, t1, max_off;
	struct dxt_one mod[2];
	double dur_read[DUR_BINS], dur_write[DUR_BINS];
};

static size_t bin_of(double v, double lo, double hi, size_t n)
{
	if (!(hi > lo) || !(v > lo))
		return 0;
	double b = (v - lo) / (hi - lo) * (double)n;
	return b >= (double)n ? n - 1 : (size_t)b;
}

static size_t duration_bin(double d)
{
	/* as the job's histogram: 1 microsecond .. 10^5 s, two bins a decade */
	if (!(d > 1e-6))
		return 0;
	double b = (log10(d) + 6) * 2 + 1;
	return b >= DUR_BINS ? DUR_BINS - 1 : (size_t)b;
}

/* Two passes over the module's selected records of the file: the span of
 * time and offsets, then the bins. */
static void gather(const dfs_summary_input *in, uint64_t fid, struct dxt_file *df,
                   int pass)
{
	for (int id = DFS_MOD_DXT_POSIX; id <= DFS_MOD_DXT_MPIIO; id++) {
		const dfs_summary_module *sm = dxt_selected(in, id);
		struct dxt_cols c;
		if (!sm || !dxt_cols(id, &c))
			continue;
		struct dxt_one *one = &df->mod[id - DFS_MOD_DXT_POSIX];
		unsigned char scratch[DFS_RECORD_MAX];
		FOR_SELECTED(sm, k, i) {
			size_t len = dfs_record_size(sm->records, i);
			if (len < 8)
				continue;
			const unsigned char *rec = dfs_record_get(sm->records, i, scratch);
			if (dfs_facts_rec_id(rec) != fid)
				continue;
			size_t rows = dfs_module_rows(c.m, rec, len);
			/* its own write count, at 88 (`write_count` shows the log's
			 * record's, also in a record cut to its selected segments) */
			int64_t writes = 0, reads = 0;
			if (len >= 104) {
				memcpy(&writes, rec + 88, 8);
				memcpy(&reads, rec + 96, 8);
			}
			if (writes <= 0 && reads <= 0)
				rows = 0;   /* (its one row in records.csv is no segment) */
			if (pass == 0 && rows > 0) {
				one->present = true;
				one->records++;
			}
			for (size_t r = 0; r < rows; r++) {
				double off = dfs_facts_value(c.m, rec, len, r, c.off);
				double ln = dfs_facts_value(c.m, rec, len, r, c.len);
				double s = dfs_facts_value(c.m, rec, len, r, c.start);
				double e = dfs_facts_value(c.m, rec, len, r, c.end);
				bool w = (int64_t)r < writes;
				if (pass == 0) {
					if (s < df->t0)
						df->t0 = s;
					if (e > df->t1)
						df->t1 = e;
					if (off + ln > df->max_off)
						df->max_off = off + ln;
					if (w) {
						one->writes++;
						one->bytes_written += ln;
					} else {
						one->reads++;
						one->bytes_read += ln;
					}
					(w ? df->dur_write : df->dur_read)[duration_bin(e - s)] += 1;
					continue;
				}
				size_t row = bin_of(off, 0, df->max_off, OFF_BINS);
				size_t col = bin_of(s, df->t0, df->t1, TIME_BINS);
				(w ? one->write : one->read)[row][col] += 1;
			}
		}
	}
}

static void dxt_file_free(struct dxt_file *df)
{
	for (int m = 0; m < 2; m++) {
		free(df->mod[m].read);
		free(df->mod[m].write);
	}
}

int dfs_summary_dxt_file_svg(const dfs_summary_input *in, uint64_t id, dfs_buf *out,
                             dfs_error *err)
{
	struct dxt_file df;
	memset(&df, 0, sizeof(df));
	df.t0 = INFINITY;
	gather(in, id, &df, 0);
	if (!df.mod[0].present && !df.mod[1].present)
		return dfs_error_set(err, DFS_ERR_NOENT,
		                     "no DXT segment of record %llu in the selection",
		                     (unsigned long long)id);
	if (!isfinite(df.t0))
		df.t0 = 0;
	for (int m = 0; m < 2; m++) {
		if (!df.mod[m].present)
			continue;
		df.mod[m].read = calloc(OFF_BINS, sizeof(*df.mod[m].read));
		df.mod[m].write = calloc(OFF_BINS, sizeof(*df.mod[m].write));
		if (!df.mod[m].read || !df.mod[m].write) {
			dxt_file_free(&df);
			return dfs_error_nomem(err);
		}
	}
	gather(in, id, &df, 1);

	/* the parts, stacked: the numbers, a grid per module, the durations */
	int lo = DUR_BINS, hi = -1;
	for (int b = 0; b < DUR_BINS; b++)
		if (df.dur_read[b] > 0 || df.dur_write[b] > 0) {
			if (b < lo)
				lo = b;
			hi = b;
		}
	int nd = 0;   /* the bins with requests (each bar says its range) */
	for (int b = lo; b <= hi; b++)
		nd += df.dur_read[b] + df.dur_write[b] > 0;
	int h = 60, grid_h = 408;
	for (int m = 0; m < 2; m++)
		h += df.mod[m].present ? grid_h : 0;
	int bars_h = 30 + nd * 30 + 14;
	h += nd ? bars_h : 0;

	const dfs_name *nm = dfs_log_name(in->log, id);
	char name[4200];
	if (nm)
		snprintf(name, sizeof(name), "%.*s", (int)(nm->len < 4096 ? nm->len : 4096), nm->str);
	else
		snprintf(name, sizeof(name), "(record %llu, no name)", (unsigned long long)id);
	dfs_buf_printf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"720\" "
	               "height=\"%d\">\n<g>\n", h);
	char line[400], rb[48], wb[48], ext[48];
	double reads = df.mod[0].reads + df.mod[1].reads;
	double writes = df.mod[0].writes + df.mod[1].writes;
	dfs_human_bytes(rb, sizeof(rb), df.mod[0].bytes_read + df.mod[1].bytes_read);
	dfs_human_bytes(wb, sizeof(wb), df.mod[0].bytes_written + df.mod[1].bytes_written);
	dfs_human_bytes(ext, sizeof(ext), df.max_off);
	snprintf(line, sizeof(line), "%.0f requests: %.0f reads (%s), %.0f writes (%s), "
	         "from %.4g s to %.4g s, up to offset %s", reads + writes, reads, rb,
	         writes, wb, df.t0, df.t1, ext);
	dfs_svg_empty(out, name, line);
	int y = 60;
	for (int m = 0; m < 2; m++) {
		const struct dxt_one *one = &df.mod[m];
		if (!one->present)
			continue;
		char title[200];
		snprintf(title, sizeof(title), "%s: offset against time, %.0f requests "
		         "from %.0f rank records",
		         m ? "DXT_MPIIO" : "DXT_POSIX", one->reads + one->writes, one->records);
		dfs_buf_printf(out, "</g>\n<g transform=\"translate(0,%d)\">\n", y);
		struct grid g = {
			.title = title, .xlabel = "seconds since the job started", .ylabel = "offset",
			.x0 = df.t0, .x1 = df.t1, .rows = OFF_BINS, .cols = TIME_BINS,
			.cells = {&one->read[0][0], &one->write[0][0]},
			.color = {"#1f77b4", "#d62728"}, .name = {"reads", "writes"},
			.y0 = 0, .y1 = df.max_off, .y_bytes = true, .unit = "requests",
			.scale = "requests per cell", .budget = DXT_FILE_BUDGET,
		};
		dfs_svg_grid(out, &g);
		y += grid_h;
	}
	if (nd) {
		const char *labels[DUR_BINS];
		char names[DUR_BINS][32];
		double r[DUR_BINS], w[DUR_BINS];
		size_t n = 0;
		for (int b = lo; b <= hi; b++) {
			if (!(df.dur_read[b] + df.dur_write[b] > 0))
				continue;
			dfs_duration_label(names[n], sizeof(names[0]), b);
			labels[n] = names[n];
			r[n] = df.dur_read[b];
			w[n++] = df.dur_write[b];
		}
		struct series s[] = {{"reads", "#1f77b4", r}, {"writes", "#d62728", w}};
		dfs_buf_printf(out, "</g>\n<g transform=\"translate(0,%d)\">\n", y);
		dfs_svg_bars(out, "Request durations (requests)", labels, (size_t)nd, s, 2, false);
	}
	dfs_buf_adds(out, "</g>\n</svg>\n");
	dxt_file_free(&df);
	return dfs_buf_ok(out) ? 0 : dfs_error_nomem(err);
}
