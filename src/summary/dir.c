/* dir.c - summary.html of a directory: the jobs of every log below it, from
 * the text of that directory's modules.csv (jobs over time, bytes and
 * performance per job, the top jobs by bytes and by I/O time, totals per
 * module).  Like the page of a log, it is self-contained and its plots are
 * bounded in size however many jobs there are.  Numbers no run can have
 * measured (dfs_job_numbers_doubts: a negative time, more I/O time than the
 * job's processes had, ...) are left out of the sums, plots and rankings,
 * and the page says how many. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "summary/summary_int.h"

/* the modules.csv columns read here */
enum { C_LOG, C_MODULE, C_EXE, C_JOBID, C_UID, C_NPROCS, C_START, C_END,
       C_RUN, C_READ = 12, C_WRITTEN = 13, C_TIME = 20, C_PERF = 21, C_ERROR = 22,
       C_COLS = 23 };

/* One CSV record of `text` at *pos (RFC 4180: quotes, doubled quotes,
 * line breaks inside quotes): the fields, unquoted, into `store`; returns
 * the number of fields, 0 at the end. */
static size_t csv_record(const char *text, size_t len, size_t *pos, dfs_buf *store,
                         size_t *start, size_t max)
{
	size_t p = *pos, n = 0;
	if (p >= len)
		return 0;
	dfs_buf_reset(store);
	for (;;) {
		if (n < max)
			start[n] = store->len;
		n++;
		if (p < len && text[p] == '"') {
			p++;
			while (p < len) {
				if (text[p] == '"' && p + 1 < len && text[p + 1] == '"') {
					dfs_buf_addc(store, '"');
					p += 2;
				} else if (text[p] == '"') {
					p++;
					break;
				} else {
					dfs_buf_addc(store, text[p++]);
				}
			}
		}
		while (p < len && text[p] != ',' && text[p] != '\n')
			dfs_buf_addc(store, text[p++]);
		dfs_buf_addc(store, '\0');
		if (p < len && text[p] == ',') {
			p++;
			continue;
		}
		if (p < len)
			p++;
		break;
	}
	*pos = p;
	return n;
}

struct job {
	char *log, *exe;
	int64_t jobid, uid, nprocs, start;
	double run_time, bytes, time, perf;
	unsigned doubts;     /* of bytes, time, perf (DFS_DOUBT_*) */
	dfs_job_io io;
};

struct module_total {
	char name[24];
	size_t jobs;
	double bytes_read, bytes_written, time;
	size_t left_out;     /* implausible values not summed */
};

void dfs_job_io_offer(dfs_job_io *io, int row, const char *module, double bytes,
                      double time, double perf)
{
	bool combined = strcmp(module, "POSIX+STDIO") == 0;
	if (combined || (!io->combined && bytes >= io->bytes)) {
		io->bytes = bytes;
		io->time = time;
		io->perf = perf;
		io->row = row;
		io->any = true;
		io->combined = combined;
	}
}

/* the row that stands for the job's own I/O */
static void take_row(struct job *j, const char *module, double bytes, double time,
                     double perf, unsigned doubts)
{
	/* (the row dfs_job_io_offer takes: its doubts go with it) */
	bool taken = strcmp(module, "POSIX+STDIO") == 0 ||
	             (!j->io.combined && bytes >= j->io.bytes);
	dfs_job_io_offer(&j->io, 0, module, bytes, time, perf);
	j->bytes = j->io.bytes;
	j->time = j->io.time;
	j->perf = j->io.perf;
	if (taken)
		j->doubts = doubts;
}

/* the job's numbers that are plausible (0 for the others) */
static double bytes_of(const struct job *j)
{
	return j->doubts & DFS_DOUBT_BYTES ? 0 : j->bytes;
}

static int by_bytes(const void *a, const void *b)
{
	double x = bytes_of(*(struct job *const *)a), y = bytes_of(*(struct job *const *)b);
	return x < y ? 1 : x > y ? -1 : 0;
}

static int by_time(const void *a, const void *b)
{
	const struct job *p = *(struct job *const *)a, *q = *(struct job *const *)b;
	double x = p->doubts & DFS_DOUBT_TIME ? -1 : p->time;
	double y = q->doubts & DFS_DOUBT_TIME ? -1 : q->time;
	return x < y ? 1 : x > y ? -1 : 0;
}

/* the rows carry their exact numbers (data-*) beside the rounded text;
 * the jobs whose number of the table is implausible are not ranked */
static void job_table(dfs_buf *out, const char *id, const char *title, struct job **jobs,
                      size_t n, unsigned doubt)
{
	dfs_buf_printf(out, "<h3>%s</h3>\n<table id=\"%s\">\n<tr><th>log</th><th>executable</th>"
	                    "<th>job id</th><th>processes</th><th>bytes</th>"
	                    "<th>I/O time by slowest (s)</th><th>MiB/s</th></tr>\n", title, id);
	char b[64];
	for (size_t i = 0, shown = 0; i < n && shown < TOP_FILES; i++) {
		if (!jobs[i]->io.any || jobs[i]->doubts & doubt)
			continue;
		shown++;
		dfs_buf_printf(out, "<tr class=\"job\" data-bytes=\"%.17g\" data-time=\"%.17g\" "
		               "data-perf=\"%.17g\"><td>", jobs[i]->bytes, jobs[i]->time,
		               jobs[i]->perf);
		dfs_xml_str(out, jobs[i]->log);
		dfs_buf_adds(out, "</td><td>");
		dfs_xml_text(out, jobs[i]->exe, strlen(jobs[i]->exe) > 80 ? 80 : strlen(jobs[i]->exe));
		dfs_buf_printf(out, "</td><td class=\"n\">%lld</td><td class=\"n\">%lld</td>",
		               (long long)jobs[i]->jobid, (long long)jobs[i]->nprocs);
		const char *no = "implausible";
		dfs_human_bytes(b, sizeof(b), jobs[i]->bytes);
		dfs_buf_printf(out, "<td class=\"n\">%s</td>", jobs[i]->doubts & DFS_DOUBT_BYTES ? no : b);
		dfs_human_num(b, sizeof(b), jobs[i]->time);
		dfs_buf_printf(out, "<td class=\"n\">%s</td>", jobs[i]->doubts & DFS_DOUBT_TIME ? no : b);
		dfs_human_num(b, sizeof(b), jobs[i]->perf);
		dfs_buf_printf(out, "<td class=\"n\">%s</td></tr>\n",
		               jobs[i]->doubts & DFS_DOUBT_PERF ? no : b);
	}
	dfs_buf_adds(out, "</table>\n");
}

/* "4 KiB": bytes in binary units, whole when they are */
static void bytes_label(char *buf, size_t n, double b)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	int u = 0;
	while (b >= 1024 && u < 6) {
		b /= 1024;
		u++;
	}
	snprintf(buf, n, b == floor(b) ? "%.0f %s" : "%.1f %s", b, unit[u]);
}

/* A histogram of the jobs: by bytes (bins of x8 from 1 B: 1-8 B, 8-64
 * B, ..., 4-32 KiB: binary units like the rest of the pages) or by
 * MiB/s (decades); every bin from the first with a job to the last (an
 * empty one between them is part of the shape).  A job without a module
 * (an empty log) has no number to count. */
static void histogram(dfs_buf *out, const char *title, struct job *jobs, size_t n,
                      bool perf)
{
	enum { BINS = 24 };
	double count[BINS] = {0};
	char names[BINS][48];
	const char *labels[BINS];
	double lo = perf ? 1e-3 : 1, step = perf ? 10 : 8;
	for (size_t i = 0; i < n; i++) {
		if (!jobs[i].io.any || jobs[i].doubts & (perf ? DFS_DOUBT_PERF : DFS_DOUBT_BYTES))
			continue;
		double v = perf ? jobs[i].perf : jobs[i].bytes;
		int d = v >= lo ? (int)floor(log(v / lo) / log(step) + 1e-9) + 1 : 0;
		count[d < 0 ? 0 : d >= BINS ? BINS - 1 : d]++;
	}
	int first = 0, last = BINS - 1;
	while (first < last && !count[first])
		first++;
	while (last > first && !count[last])
		last--;
	/* (the bins with jobs: each says its range; none when no job has a
	 * number to show, every one left out as implausible) */
	double shown[BINS];
	size_t k = 0;
	if (!count[first])
		last = first - 1;
	for (int d = first; d <= last; d++) {
		double edge = lo * pow(step, d - 1);
		char a[24], b[24];
		if (d == 0)
			snprintf(names[k], sizeof(names[0]), perf ? "< %g" : "0 B", lo);
		else if (!perf) {
			bytes_label(a, sizeof(a), edge);
			bytes_label(b, sizeof(b), edge * step);
			snprintf(names[k], sizeof(names[0]), d == BINS - 1 ? "%s or more" : "%s-%s", a, b);
		} else {
			snprintf(names[k], sizeof(names[0]), d == BINS - 1 ? "%g or more" : "%g-%g",
			         edge, edge * step);
		}
		labels[k] = names[k];
		shown[k++] = count[d];
	}
	struct series s = {"jobs", "#555599", shown};
	dfs_svg_bars(out, title, labels, k, &s, 1, false);
}

/* columns of jobs over calendar time: dates under the axis */
static void over_time(dfs_buf *out, const char *title, const char *series, const char *color,
                      const double *v, bool bytes, int64_t t0, double span)
{
	enum { TICKS = 5 };
	char text[TICKS][32];
	const char *ticks[TICKS];
	for (int k = 0; k < TICKS; k++) {
		time_t t = (time_t)((double)t0 + span * k / (TICKS - 1));
		struct tm tm;
		if (!gmtime_r(&t, &tm))
			snprintf(text[k], sizeof(text[k]), "%lld", (long long)t);
		else
			strftime(text[k], sizeof(text[k]), span >= 4 * 86400 ? "%Y-%m-%d"
			                                   : "%Y-%m-%d %H:%M", &tm);
		ticks[k] = text[k];
	}
	struct series s = {series, color, v};
	dfs_svg_columns_ticks(out, title, "job start (UTC)", 0, span, ticks, TICKS, TIME_BINS,
	                      &s, 1, bytes);
}

int dfs_summary_dir_html(const char *title, const char *jobs_csv, size_t len,
                         dfs_buf *out, dfs_error *err)
{
	dfs_buf store = DFS_BUF_INIT;
	size_t start[C_COLS + 1], pos = 0, nf;
	struct job *jobs = NULL;
	size_t n = 0, cap = 0, errors = 0;
	struct module_total mods[16];
	size_t nmods = 0;
	int ret = 0;
	csv_record(jobs_csv, len, &pos, &store, start, C_COLS);   /* the header */
	while ((nf = csv_record(jobs_csv, len, &pos, &store, start, C_COLS)) > 0) {
		if (nf < C_COLS || !dfs_buf_ok(&store))
			continue;
		const char *f[C_COLS];
		for (int c = 0; c < C_COLS; c++)
			f[c] = store.data + start[c];
		if (*f[C_ERROR] && !*f[C_MODULE]) {
			errors++;
			continue;
		}
		if (n == 0 || strcmp(jobs[n - 1].log, f[C_LOG]) != 0) {
			if (n == cap) {
				cap = cap ? cap * 2 : 256;
				struct job *nj = realloc(jobs, cap * sizeof(*jobs));
				if (!nj) {
					ret = dfs_error_nomem(err);
					goto out;
				}
				jobs = nj;
			}
			struct job *j = &jobs[n++];
			memset(j, 0, sizeof(*j));
			j->log = strdup(f[C_LOG]);
			j->exe = strdup(f[C_EXE]);
			if (!j->log || !j->exe) {
				n--;
				free(j->log);
				free(j->exe);
				ret = dfs_error_nomem(err);
				goto out;
			}
			j->jobid = strtoll(f[C_JOBID], NULL, 10);
			j->uid = strtoll(f[C_UID], NULL, 10);
			j->nprocs = strtoll(f[C_NPROCS], NULL, 10);
			j->start = strtoll(f[C_START], NULL, 10);
			j->run_time = strtod(f[C_RUN], NULL);
		}
		if (!*f[C_MODULE] || *f[C_ERROR])
			continue;
		double br = strtod(f[C_READ], NULL), bw = strtod(f[C_WRITTEN], NULL);
		double t = strtod(f[C_TIME], NULL), perf = strtod(f[C_PERF], NULL);
		dfs_job_numbers num = {jobs[n - 1].nprocs, jobs[n - 1].run_time, br + bw, t, perf};
		unsigned doubts = dfs_job_numbers_doubts(&num);
		take_row(&jobs[n - 1], f[C_MODULE], br + bw, t, perf, doubts);
		size_t m;
		for (m = 0; m < nmods && strcmp(mods[m].name, f[C_MODULE]); m++)
			;
		if (m == nmods && nmods < 16) {
			memset(&mods[m], 0, sizeof(mods[m]));
			snprintf(mods[m].name, sizeof(mods[m].name), "%s", f[C_MODULE]);
			nmods++;
		}
		if (m < nmods) {
			mods[m].jobs++;
			if (doubts & DFS_DOUBT_BYTES) {
				mods[m].left_out++;
			} else {
				mods[m].bytes_read += br;
				mods[m].bytes_written += bw;
			}
			if (doubts & DFS_DOUBT_TIME)
				mods[m].left_out++;
			else
				mods[m].time += t;
		}
	}

	dfs_buf_adds(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>");
	dfs_xml_str(out, title);
	dfs_buf_adds(out, " - darshanfs jobs</title>\n<style>body{font-family:sans-serif;margin:1em 2em}"
	                  "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;"
	                  "padding:2px 6px;font-size:13px;text-align:left}td{overflow-wrap:anywhere}"
	                  "td.n{text-align:right;white-space:nowrap}"
	                  "th{background:#f0f0f0}p.note{font-size:12px;color:#555;max-width:60em}"
	                  "</style>\n</head>\n<body>\n<h1>");
	dfs_xml_str(out, title);
	int64_t t0 = INT64_MAX, t1 = INT64_MIN;
	double total = 0;
	size_t doubted = 0, left_out = 0;
	for (size_t i = 0; i < n; i++) {
		if (jobs[i].start > 0 && jobs[i].start < t0)
			t0 = jobs[i].start;
		if (jobs[i].start > t1)
			t1 = jobs[i].start;
		total += bytes_of(&jobs[i]);
		doubted += jobs[i].doubts != 0;
	}
	for (size_t m = 0; m < nmods; m++)
		left_out += mods[m].left_out;
	char tb[64], a[64], b[64];
	dfs_human_bytes(tb, sizeof(tb), total);
	dfs_buf_printf(out, "</h1>\n<p id=\"jobs\">%zu jobs, %s moved", n, tb);
	if (t0 <= t1 && t0 != INT64_MAX) {
		time_t x = (time_t)t0, y = (time_t)t1;
		struct tm tm;
		strftime(a, sizeof(a), "%Y-%m-%d %H:%M UTC", gmtime_r(&x, &tm));
		strftime(b, sizeof(b), "%Y-%m-%d %H:%M UTC", gmtime_r(&y, &tm));
		dfs_buf_printf(out, ", started from %s to %s", a, b);
	}
	if (errors)
		dfs_buf_printf(out, "; %zu logs could not be read (see jobs.csv)", errors);
	dfs_buf_adds(out, ".</p>\n");
	if (doubted || left_out)
		dfs_buf_printf(out, "<p id=\"left-out\">Left out as no run can have measured them "
		               "(negative or not finite, or more I/O time than the job's processes "
		               "had): the bytes, time or performance of %zu %s (in the plots and "
		               "the top jobs) and %zu %s of the per-module sums; "
		               "the data-quality findings (Q_) of the logs' insights.csv name the "
		               "counters.</p>\n", doubted, doubted == 1 ? "job" : "jobs", left_out,
		               left_out == 1 ? "value" : "values");
	dfs_buf_adds(out, "<h2 id=\"time\">Jobs over time</h2>\n");
	double per_bin[TIME_BINS] = {0}, bytes_bin[TIME_BINS] = {0};
	double span = t1 > t0 && t0 != INT64_MAX ? (double)(t1 - t0) : 1;
	for (size_t i = 0; i < n; i++) {
		if (jobs[i].start <= 0 || t0 == INT64_MAX)
			continue;
		size_t c = (size_t)((double)(jobs[i].start - t0) / span * TIME_BINS);
		c = c < TIME_BINS ? c : TIME_BINS - 1;
		per_bin[c]++;
		bytes_bin[c] += bytes_of(&jobs[i]);
	}
	int64_t first = t0 != INT64_MAX ? t0 : 0;
	over_time(out, "Jobs started over time", "jobs started", "#1f77b4", per_bin, false,
	          first, span);
	over_time(out, "Bytes over time", "bytes moved by the jobs started", "#8c564b",
	          bytes_bin, true, first, span);
	dfs_buf_adds(out, "<h2 id=\"per-job\">Bytes and performance per job</h2>\n");
	histogram(out, "Jobs by bytes moved", jobs, n, false);
	histogram(out, "Jobs by performance (MiB/s, by the slowest rank)", jobs, n, true);
	dfs_buf_adds(out, "<h2 id=\"top\">Top jobs</h2>\n");
	struct job **order = malloc((n ? n : 1) * sizeof(*order));
	if (order) {
		for (size_t i = 0; i < n; i++)
			order[i] = &jobs[i];
		qsort(order, n, sizeof(*order), by_bytes);
		job_table(out, "top-bytes", "Most bytes", order, n, DFS_DOUBT_BYTES);
		qsort(order, n, sizeof(*order), by_time);
		job_table(out, "top-time", "Most I/O time", order, n, DFS_DOUBT_TIME);
		free(order);
	}
	dfs_buf_adds(out, "<h2 id=\"modules\">Per module</h2>\n<table id=\"module-table\">\n"
	                  "<tr><th>module</th><th>jobs</th><th>bytes read</th>"
	                  "<th>bytes written</th><th>I/O time by slowest (s)</th>"
	                  "<th>implausible values left out</th></tr>\n");
	for (size_t m = 0; m < nmods; m++) {
		dfs_buf_printf(out, "<tr class=\"module\" data-read=\"%.17g\" data-written=\"%.17g\" "
		               "data-time=\"%.17g\" data-left-out=\"%zu\"><td>", mods[m].bytes_read,
		               mods[m].bytes_written, mods[m].time, mods[m].left_out);
		dfs_xml_str(out, mods[m].name);
		dfs_human_bytes(a, sizeof(a), mods[m].bytes_read);
		dfs_human_bytes(b, sizeof(b), mods[m].bytes_written);
		dfs_human_num(tb, sizeof(tb), mods[m].time);
		dfs_buf_printf(out, "</td><td class=\"n\">%zu</td><td class=\"n\">%s</td>"
		               "<td class=\"n\">%s</td><td class=\"n\">%s</td>"
		               "<td class=\"n\">%zu</td></tr>\n", mods[m].jobs, a, b, tb,
		               mods[m].left_out);
	}
	dfs_buf_adds(out, "</table>\n<p class=\"note\">A job's bytes, time and performance "
	                  "are those of its <code>POSIX+STDIO</code> row of jobs.csv (POSIX and "
	                  "STDIO together: a request through STDIO is not seen by POSIX), else of "
	                  "its module with the most bytes; MPI-IO is never added to POSIX, which "
	                  "it goes through. Time and performance by the slowest rank are those of "
	                  "Darshan's accumulator: the slowest rank's own time plus each shared "
	                  "file's slowest rank. The <code>POSIX+STDIO</code> row sums the jobs "
	                  "that have both modules (its jobs column), so it can hold less than "
	                  "the POSIX row. Sizes in binary units (1 KiB = 1024 B), rates in "
	                  "MiB/s.</p>\n</body>\n</html>\n");
	if (!dfs_buf_ok(out))
		ret = dfs_error_nomem(err);
out:
	for (size_t i = 0; i < n; i++) {
		free(jobs[i].log);
		free(jobs[i].exe);
	}
	free(jobs);
	dfs_buf_free(&store);
	return ret;
}
