/* test_page.c - what summary.html shows an analyst, on logs built for it:
 * a heat map per HEATMAP layer whose cells' tooltips add up to that
 * layer's bytes and nothing of another layer; the top files by name with
 * the numbers of Darshan's accumulator fed with each file's records; the
 * file holding most of a pattern's bytes named beside the pattern;
 * identifiers kept readable in patterns; the ranks with the most time;
 * no per-rank plot for a one-rank job; and a page under 1 MB whatever the
 * log (a generated log of 1024 ranks and 200,000 records, and the worst
 * heat maps of five full layers). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "darshanfs/hash.h"
#include "darshanfs/log.h"
#include "darshanfs/summary.h"
#include "darshanfs/writer.h"

#define PAGE_MAX (1u << 20)

/* ---- building logs ------------------------------------------------------- */

struct field {
	const char *name;
	double value;
};

/* a record of module id: its counters by name, the others 0 */
static void record(dfs_log_writer *w, int id, uint64_t rec_id, int64_t rank,
                   const struct field *f, size_t n)
{
	const dfs_module *m = dfs_module_get(id);
	unsigned char buf[DFS_RECORD_MAX];
	memset(buf, 0, m->record_size);
	memcpy(buf, &rec_id, 8);
	memcpy(buf + 8, &rank, 8);
	for (size_t i = 0; i < n; i++) {
		int k = dfs_module_field_index(m, f[i].name, strlen(f[i].name));
		if (k < 0)
			fail_msg("no field %s", f[i].name);
		const dfs_field *fd = &m->fields[k];
		if (fd->type == DFS_T_F64) {
			memcpy(buf + fd->offset, &f[i].value, 8);
		} else {
			int64_t v = (int64_t)f[i].value;
			memcpy(buf + fd->offset, &v, 8);
		}
	}
	dfs_error err = {0};
	assert_int_equal(dfs_log_writer_record(w, buf, m->record_size, &err), 0);
}

static uint64_t name(dfs_log_writer *w, const char *s)
{
	dfs_error err = {0};
	uint64_t id = dfs_hash_name(s, strlen(s));
	assert_int_equal(dfs_log_writer_name(w, id, s, strlen(s), &err), 0);
	return id;
}

static dfs_log_writer *start(dfs_buf *out, int64_t nprocs)
{
	dfs_error err = {0};
	dfs_write_options opt = {DFS_COMP_ZLIB, 1, 1};
	dfs_log_writer *w = dfs_log_writer_buf(out, &opt, &err);
	assert_non_null(w);
	dfs_job job;
	memset(&job, 0, sizeof(job));
	job.nprocs = nprocs;
	job.start_sec = 1700000000;
	job.end_sec = 1700000100;
	job.exe = (char *)"/bin/page";
	job.metadata = (char *)"";
	dfs_mount mnt = {"/lus", "lustre", 4};
	assert_int_equal(dfs_log_writer_job(w, &job, &mnt, 1, &err), 0);
	return w;
}

static dfs_log *finish(dfs_log_writer *w, dfs_buf *out)
{
	dfs_error err = {0};
	assert_int_equal(dfs_log_writer_finish(w, 0, &err), 0);
	dfs_log_writer_free(w);
	dfs_log *log = dfs_log_open_mem(out->data, out->len, "page", 0, &err);
	if (!log)
		fail_msg("%s", err.msg);
	dfs_buf_free(out);
	return log;
}

static void every_record(const dfs_log *log, dfs_summary_input *in)
{
	memset(in, 0, sizeof(*in));
	in->log = log;
	in->title = "page";
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		const dfs_log_module *lm = dfs_log_get_module(log, id);
		if (!lm->present || lm->status != DFS_OK)
			continue;
		in->mod[id].records = &lm->records;
		in->mod[id].count = in->mod[id].total = lm->records.count;
	}
}

static char *page_of(const dfs_summary_input *in)
{
	dfs_buf b = DFS_BUF_INIT;
	dfs_error err = {0};
	assert_int_equal(dfs_summary_html(in, &b, &err), 0);
	dfs_buf_addc(&b, '\0');
	return b.data;
}

static char *plot_of(const dfs_summary_input *in, int plot)
{
	dfs_buf b = DFS_BUF_INIT;
	dfs_error err = {0};
	assert_int_equal(dfs_summary_svg(in, plot, &b, &err), 0);
	dfs_buf_addc(&b, '\0');
	return b.data;
}

/* ---- heat maps --------------------------------------------------------------- */

/* a HEATMAP record: nbins bins of `width` s, write and read bins given */
static void heat_record_of(dfs_log_writer *w, uint64_t id, int64_t rank, int64_t nbins,
                           double width, const int64_t *wr, const int64_t *rd)
{
	static unsigned char buf[48 + 16 * 512];
	assert_true(nbins <= 512);
	memset(buf, 0, sizeof(buf));
	memcpy(buf, &id, 8);
	memcpy(buf + 8, &rank, 8);
	memcpy(buf + 16, &width, 8);
	memcpy(buf + 24, &nbins, 8);
	memcpy(buf + 48, wr, 8 * (size_t)nbins);
	memcpy(buf + 48 + 8 * nbins, rd, 8 * (size_t)nbins);
	dfs_error err = {0};
	assert_int_equal(dfs_log_writer_record(w, buf, 48 + 16 * (size_t)nbins, &err), 0);
}

static void heat_record(dfs_log_writer *w, uint64_t id, int64_t rank, int64_t nbins,
                        const int64_t *wr, const int64_t *rd)
{
	heat_record_of(w, id, rank, nbins, 1, wr, rd);
}

/* What the tooltips of a heat map say: bytes read and written in all,
 * and per rank whether a cell with written bytes covers it. */
struct heat_seen {
	double read, written;
	bool written_at[64];
	size_t cells;
};

static void heat_cells(const char *svg, struct heat_seen *h)
{
	memset(h, 0, sizeof(*h));
	for (const char *p = svg; (p = strstr(p, "<title>rank")); p++) {
		long long a, b;
		double r = 0, w = 0;
		int used;
		if (sscanf(p, "<title>ranks %lld-%lld, %*[^:]: %n", &a, &b, &used) == 2) {
		} else if (sscanf(p, "<title>rank %lld, %*[^:]: %n", &a, &used) == 1) {
			b = a;
		} else {
			fail_msg("a tooltip of no rank: %.80s", p);
		}
		const char *v = p + used;
		double x, y;
		char kind[16];
		if (sscanf(v, "%lf B read + %lf B written", &x, &y) == 2) {
			r = x;
			w = y;
		} else if (sscanf(v, "%lf B (%*[^)]) %15[a-z]", &x, kind) == 2 ||
		           sscanf(v, "%lf B %15[a-z]", &x, kind) == 2) {
			(strcmp(kind, "read") == 0 ? &r : &w)[0] = x;
		} else {
			fail_msg("a tooltip without its bytes: %.80s", p);
		}
		h->read += r;
		h->written += w;
		for (long long k = a; w > 0 && k <= b && k < 64; k++)
			h->written_at[k] = true;
		h->cells++;
	}
}

/* Name patterns: two long names alike for their first 150 bytes are two
 * patterns, each shown as its start, "..." and its own end (a pattern cut
 * at its start merged them); files that share a pattern are said to,
 * even when their pattern has too few bytes to be among those shown. */
static void test_patterns(void **state)
{
	(void)state;
	dfs_buf out = DFS_BUF_INIT;
	dfs_log_writer *w = start(&out, 4);
	char stem[200], a[256], b[256], big[64];
	memset(stem, 'x', 150);
	stem[0] = '/';
	stem[150] = '\0';
	snprintf(a, sizeof(a), "%s/alpha.log", stem);
	snprintf(b, sizeof(b), "%s/beta.xml", stem);
	uint64_t ida = name(w, a), idb = name(w, b);
	uint64_t small[3], bigs[20];
	for (int k = 0; k < 3; k++) {
		char n[64];
		snprintf(n, sizeof(n), "/lus/small/test_%d.h5", k);
		small[k] = name(w, n);
	}
	for (int k = 0; k < 20; k++) {
		/* (letters only: a pattern each) */
		snprintf(big, sizeof(big), "/lus/big/file_%c%c.dat", 'a' + k, 'a' + k);
		bigs[k] = name(w, big);
	}
	dfs_error err = {0};
	assert_int_equal(dfs_log_writer_module_begin(w, DFS_MOD_POSIX, 0, &err), 0);
	record(w, DFS_MOD_POSIX, ida, 0, (struct field[]){
		{"POSIX_WRITES", 1}, {"POSIX_BYTES_WRITTEN", 5e9}}, 2);
	record(w, DFS_MOD_POSIX, idb, 1, (struct field[]){
		{"POSIX_WRITES", 1}, {"POSIX_BYTES_WRITTEN", 4e9}}, 2);
	for (int k = 0; k < 3; k++)
		record(w, DFS_MOD_POSIX, small[k], k, (struct field[]){
			{"POSIX_WRITES", 1}, {"POSIX_BYTES_WRITTEN", 10}}, 2);
	for (int k = 0; k < 20; k++)
		record(w, DFS_MOD_POSIX, bigs[k], k % 4, (struct field[]){
			{"POSIX_WRITES", 1}, {"POSIX_BYTES_WRITTEN", 1e6 * (k + 1)}}, 2);
	assert_int_equal(dfs_log_writer_module_end(w, &err), 0);
	dfs_log *log = finish(w, &out);
	dfs_summary_input in;
	every_record(log, &in);
	char *page = page_of(&in);
	assert_null(strstr(page, "No two files share a name pattern."));
	const char *t = strstr(page, "id=\"patterns-bytes\"");
	assert_non_null(t);
	const char *alpha = strstr(t, "x/alpha.log</td><td class=\"n\">1<");
	const char *beta = strstr(t, "x/beta.xml</td><td class=\"n\">1<");
	if (!alpha || !beta)
		fail_msg("the two long patterns are not two rows of one file each:\n%.3000s", t);
	/* (each cut: its start, "...", its end) */
	const char *row = alpha;
	while (row > t && strncmp(row, "<td>", 4) != 0)
		row--;
	assert_non_null(strstr(row, "/xxxxxxxxxx"));
	assert_true(strstr(row, "...") && strstr(row, "...") < alpha);
	free(page);
	dfs_log_free(log);
}

/* operations.svg: every operation counter that is not zero, each once,
 * POSIX's renames and DAOS's array and key-value calls among them */
static void test_operations(void **state)
{
	(void)state;
	dfs_buf out = DFS_BUF_INIT;
	dfs_log_writer *w = start(&out, 2);
	uint64_t a = name(w, "/lus/a.dat"), b = name(w, "/lus/b.dat");
	dfs_error err = {0};
	assert_int_equal(dfs_log_writer_module_begin(w, DFS_MOD_POSIX, 0, &err), 0);
	record(w, DFS_MOD_POSIX, a, 0, (struct field[]){
		{"POSIX_OPENS", 2}, {"POSIX_RENAME_SOURCES", 8}, {"POSIX_RENAME_TARGETS", 7}}, 3);
	assert_int_equal(dfs_log_writer_module_end(w, &err), 0);
	assert_int_equal(dfs_log_writer_module_begin(w, DFS_MOD_STDIO, 0, &err), 0);
	record(w, DFS_MOD_STDIO, b, 1, (struct field[]){
		{"STDIO_OPENS", 1}, {"STDIO_FLUSHES", 5}}, 2);
	assert_int_equal(dfs_log_writer_module_end(w, &err), 0);
	assert_int_equal(dfs_log_writer_module_begin(w, DFS_MOD_DAOS, 0, &err), 0);
	record(w, DFS_MOD_DAOS, b, 1, (struct field[]){
		{"DAOS_ARRAY_OPENS", 1}, {"DAOS_ARRAY_READS", 64}, {"DAOS_KV_PUTS", 3},
		{"DAOS_OBJ_FETCHES", 9}}, 4);
	assert_int_equal(dfs_log_writer_module_end(w, &err), 0);
	dfs_log *log = finish(w, &out);
	dfs_summary_input in;
	every_record(log, &in);
	char *svg = plot_of(&in, DFS_PLOT_OPERATIONS);
	static const struct {
		const char *name;
		double v;
	} want[] = {
		{"POSIX_OPENS", 2}, {"POSIX_RENAME_SOURCES", 8}, {"POSIX_RENAME_TARGETS", 7},
		{"STDIO_OPENS", 1}, {"STDIO_FLUSHES", 5}, {"DAOS_ARRAY_OPENS", 1},
		{"DAOS_ARRAY_READS", 64}, {"DAOS_KV_PUTS", 3}, {"DAOS_OBJ_FETCHES", 9},
	};
	size_t labels = 0;
	for (size_t k = 0; k < sizeof(want) / sizeof(*want); k++) {
		char label[64];
		snprintf(label, sizeof(label), ">%s</text>", want[k].name);
		const char *at = strstr(svg, label);
		if (!at)
			fail_msg("operations.svg lacks %s:\n%s", want[k].name, svg);
		if (strstr(at + 1, label))
			fail_msg("operations.svg shows %s twice", want[k].name);
		labels++;
	}
	/* (and no other bar: the counters left at 0 have none) */
	size_t bars = 0;
	for (const char *p = svg; (p = strstr(p, "</text>")); p++) {
		const char *q = p;
		while (q > svg && q[-1] != '>')
			q--;
		if (strncmp(q, "POSIX_", 6) == 0 || strncmp(q, "STDIO_", 6) == 0 ||
		    strncmp(q, "DAOS_", 5) == 0)
			bars++;
	}
	assert_int_equal(bars, labels);
	free(svg);
	dfs_log_free(log);
}

/* The ranks' shares of the time are of their own records, as those of
 * the bytes: a shared record's 100 s (no rank's) are in neither sum */
static void test_rank_shares(void **state)
{
	(void)state;
	dfs_buf out = DFS_BUF_INIT;
	dfs_log_writer *w = start(&out, 2);
	uint64_t mine = name(w, "/lus/own.0"), yours = name(w, "/lus/own.1");
	uint64_t shared = name(w, "/lus/shared.dat");
	dfs_error err = {0};
	assert_int_equal(dfs_log_writer_module_begin(w, DFS_MOD_POSIX, 0, &err), 0);
	record(w, DFS_MOD_POSIX, mine, 0, (struct field[]){
		{"POSIX_WRITES", 1}, {"POSIX_BYTES_WRITTEN", 1e6}, {"POSIX_F_WRITE_TIME", 1}}, 3);
	record(w, DFS_MOD_POSIX, yours, 1, (struct field[]){
		{"POSIX_WRITES", 1}, {"POSIX_BYTES_WRITTEN", 3e6}, {"POSIX_F_WRITE_TIME", 3}}, 3);
	record(w, DFS_MOD_POSIX, shared, -1, (struct field[]){
		{"POSIX_WRITES", 2}, {"POSIX_BYTES_WRITTEN", 4e9}, {"POSIX_F_WRITE_TIME", 100}}, 3);
	assert_int_equal(dfs_log_writer_module_end(w, &err), 0);
	dfs_log *log = finish(w, &out);
	dfs_summary_input in;
	every_record(log, &in);
	char *page = page_of(&in);
	const char *t = strstr(page, "<table id=\"ranks-time\">");
	assert_non_null(t);
	const char *r1 = strstr(t, "<tr class=\"rank\"><td class=\"n\">1</td>");
	assert_non_null(r1);
	const char *end = strstr(r1, "</tr>");
	char row[512];
	snprintf(row, sizeof(row), "%.*s", (int)(end - r1), r1);
	if (!strstr(row, "<td class=\"n\">75.0%</td><td class=\"n\">3</td>"
	                 "<td class=\"n\">75.0%</td>"))
		fail_msg("rank 1's shares are not 75%% of the bytes and of the time: %s", row);
	free(page);
	dfs_log_free(log);
}

/* A rank's HEATMAP record of nbins bins of `width` s, bin b holding b + 1
 * bytes written: each cell of the map is a whole group of bins, its
 * tooltip's time window theirs exactly and its bytes their sum, and no
 * cell between two written ones is empty.  (A bin put in the column of
 * its centre claimed a window it did not match, and left columns empty
 * when the bins were wider than the columns.) */
static void heat_windows(int64_t nbins, double width, int64_t group)
{
	dfs_buf out = DFS_BUF_INIT;
	dfs_log_writer *w = start(&out, 1);
	uint64_t posix = name(w, "heatmap:POSIX");
	dfs_error err = {0};
	assert_int_equal(dfs_log_writer_module_begin(w, DFS_MOD_HEATMAP, 0, &err), 0);
	static int64_t wr[512], rd[512];
	for (int64_t b = 0; b < nbins; b++) {
		wr[b] = b + 1;
		rd[b] = 0;
	}
	heat_record_of(w, posix, 0, nbins, width, wr, rd);
	assert_int_equal(dfs_log_writer_module_end(w, &err), 0);
	dfs_log *log = finish(w, &out);
	dfs_summary_input in;
	every_record(log, &in);
	char *svg = plot_of(&in, DFS_PLOT_HEATMAP_POSIX);
	size_t cells = 0;
	for (const char *p = svg; (p = strstr(p, "<title>rank 0, ")); p++) {
		double a, b, bytes;
		assert_int_equal(sscanf(p, "<title>rank 0, %lf-%lf s: %lf B", &a, &b, &bytes), 3);
		/* the bins [b0, b1) of this window, and their bytes */
		int64_t b0 = (int64_t)llround(a / width), b1 = (int64_t)llround(b / width);
		if (b1 > nbins)
			b1 = nbins;
		if (fabs(a - (double)b0 * width) > 1e-6 * width || b0 % group != 0 ||
		    (b1 - b0 != group && b1 != nbins))
			fail_msg("a cell of %lld bins of %g s is the window %g-%g s", (long long)nbins,
			         width, a, b);
		double want = 0;
		for (int64_t k = b0; k < b1; k++)
			want += (double)(k + 1);
		if (bytes != want)
			fail_msg("the window %g-%g s holds %g B, its bins %g B", a, b, bytes, want);
		cells++;
	}
	assert_int_equal(cells, (size_t)((nbins + group - 1) / group));
	free(svg);
	dfs_log_free(log);
}

static void test_heat_windows(void **state)
{
	(void)state;
	heat_windows(148, 12.8, 1);   /* (worker_0 of ../shared: 148 bins of 12.8 s) */
	heat_windows(1, 0.1, 1);
	heat_windows(400, 1, 3);      /* 134 columns of three bins */
	heat_windows(320, 0.5, 2);
}

/* Three layers of 64 ranks: POSIX read by every rank, written by 8
 * aggregators (ranks 0, 8, ... 56); MPI-IO written by every rank; STDIO
 * one record whose name the log lacks (known by its id).  Each map holds
 * its own layer's bytes, the POSIX one only the aggregators' writes. */
static void test_heat_layers(void **state)
{
	(void)state;
	dfs_buf out = DFS_BUF_INIT;
	dfs_log_writer *w = start(&out, 64);
	uint64_t posix = name(w, "heatmap:POSIX"), mpiio = name(w, "heatmap:MPIIO");
	uint64_t stdio_id = 3989511027826779520ULL;   /* heatmap:STDIO */
	dfs_error err = {0};
	assert_int_equal(dfs_log_writer_module_begin(w, DFS_MOD_HEATMAP, 0, &err), 0);
	int64_t wr[10], rd[10];
	for (int64_t r = 0; r < 64; r++) {
		memset(wr, 0, sizeof(wr));
		memset(rd, 0, sizeof(rd));
		rd[0] = 100;
		for (int b = 2; b < 9 && r % 8 == 0; b++)
			wr[b] = 1000000;
		heat_record(w, posix, r, 10, wr, rd);
		memset(wr, 0, sizeof(wr));
		memset(rd, 0, sizeof(rd));
		for (int b = 2; b < 9; b++)
			wr[b] = 100000;
		heat_record(w, mpiio, r, 10, wr, rd);
	}
	memset(wr, 0, sizeof(wr));
	memset(rd, 0, sizeof(rd));
	wr[9] = 5;
	heat_record(w, stdio_id, 0, 10, wr, rd);
	assert_int_equal(dfs_log_writer_module_end(w, &err), 0);
	dfs_log *log = finish(w, &out);
	dfs_summary_input in;
	every_record(log, &in);

	struct heat_seen h;
	char *svg = plot_of(&in, DFS_PLOT_HEATMAP_POSIX);
	assert_non_null(strstr(svg, "Heat map, POSIX layer"));
	assert_non_null(strstr(svg, "bytes per cell"));   /* the colour bar */
	heat_cells(svg, &h);
	assert_true(h.read == 64 * 100.0);
	assert_true(h.written == 8 * 7 * 1000000.0);
	for (int r = 0; r < 64; r++)
		assert_int_equal(h.written_at[r], r % 8 == 0);
	free(svg);
	svg = plot_of(&in, DFS_PLOT_HEATMAP_MPIIO);
	heat_cells(svg, &h);
	assert_true(h.read == 0);
	assert_true(h.written == 64 * 7 * 100000.0);
	for (int r = 0; r < 64; r++)
		assert_true(h.written_at[r]);
	free(svg);
	svg = plot_of(&in, DFS_PLOT_HEATMAP_STDIO);
	heat_cells(svg, &h);
	assert_true(h.written == 5 && h.cells == 1);
	free(svg);
	svg = plot_of(&in, DFS_PLOT_HEATMAP_DFS);
	assert_non_null(strstr(svg, "no DFS bytes"));
	heat_cells(svg, &h);
	assert_int_equal(h.cells, 0);
	free(svg);
	/* the page shows the three layers, each once, and not the others */
	char *page = page_of(&in);
	assert_non_null(strstr(page, "<figure id=\"plot-heatmap_posix\">"));
	assert_non_null(strstr(page, "<figure id=\"plot-heatmap_mpiio\">"));
	assert_non_null(strstr(page, "<figure id=\"plot-heatmap_stdio\">"));
	assert_null(strstr(page, "<figure id=\"plot-heatmap_dfs\">"));
	free(page);
	dfs_log_free(log);
}

/* ---- files and ranks ----------------------------------------------------------- */

/* The rows of a table of the page (by its id): the text of their first
 * cell, in order. */
static size_t rows_of(const char *page, const char *id, char rows[][256], size_t max)
{
	char open[64];
	snprintf(open, sizeof(open), "<table id=\"%s\"", id);
	const char *p = strstr(page, open), *end = p ? strstr(p, "</table>") : NULL;
	size_t n = 0;
	while (p && (p = strstr(p + 1, "<tr class=")) && p < end && n < max) {
		const char *td = strstr(p, "<td");
		td = td ? strchr(td, '>') : NULL;
		const char *e = td ? strstr(td, "</td>") : NULL;
		assert_non_null(e);
		snprintf(rows[n++], 256, "%.*s", (int)(e - td - 1), td + 1);
	}
	return n;
}

/* The first row of table id whose first cell starts with `file`: the
 * text of its cells (NULL when none). */
static bool row_cells(const char *page, const char *id, const char *file, char cells[][64],
                      size_t ncells)
{
	char open[64];
	snprintf(open, sizeof(open), "<table id=\"%s\"", id);
	const char *p = strstr(page, open), *end = p ? strstr(p, "</table>") : NULL;
	while (p && (p = strstr(p + 1, "<tr class=")) && p < end) {
		const char *c = p;
		size_t k = 0;
		const char *rowend = strstr(p, "</tr>");
		while (k < ncells && (c = strstr(c, "<td")) && c < rowend) {
			c = strchr(c, '>') + 1;
			const char *e = strstr(c, "</td>");
			snprintf(cells[k++], 64, "%.*s", (int)(e - c), c);
		}
		if (k && strncmp(cells[0], file, strlen(file)) == 0)
			return true;
	}
	return false;
}

/* 1,000 files of one rank each in a pattern /lus/theta-fs0/<n>, and a
 * shared file of the same pattern holding most of the bytes; a file of
 * three ranks whose slowest makes its time; a file written through POSIX
 * and STDIO; names with a UUID and a hexadecimal identifier. */
static void test_named_files(void **state)
{
	(void)state;
	enum { SMALL = 1000 };
	dfs_buf out = DFS_BUF_INIT;
	dfs_log_writer *w = start(&out, 496);
	static uint64_t ids[SMALL];
	char s[128];
	for (int k = 0; k < SMALL; k++) {
		snprintf(s, sizeof(s), "/lus/theta-fs0/%d", 1000000 + k * 7919);
		ids[k] = name(w, s);
	}
	uint64_t big = name(w, "/lus/theta-fs1/3981085427");
	uint64_t three = name(w, "/lus/run/three.dat");
	uint64_t both = name(w, "/lus/run/log.txt");
	uint64_t uuid = name(w, "/tmp/w/84894e8e-755b-43b1-b019-c8f9312f2d95/job_1587455014927.out");
	uint64_t hex = name(w, "/tmp/obj/c8f9312f2d95ab/part.0");
	dfs_error err = {0};
	assert_int_equal(dfs_log_writer_module_begin(w, DFS_MOD_POSIX, 0, &err), 0);
	for (int k = 0; k < SMALL; k++)
		record(w, DFS_MOD_POSIX, ids[k], k % 496, (struct field[]){
			{"POSIX_WRITES", 1}, {"POSIX_BYTES_WRITTEN", 1048576},
			{"POSIX_F_WRITE_TIME", 0.01}}, 3);
	record(w, DFS_MOD_POSIX, big, -1, (struct field[]){
		{"POSIX_READS", 1000}, {"POSIX_WRITES", 1000},
		{"POSIX_BYTES_READ", 52939424612.0}, {"POSIX_BYTES_WRITTEN", 52938395468.0},
		{"POSIX_F_READ_TIME", 300}, {"POSIX_F_WRITE_TIME", 350}, {"POSIX_F_META_TIME", 10},
		{"POSIX_F_SLOWEST_RANK_TIME", 583.25}}, 8);
	static const double times[3][3] = {{1, 2, 0.5}, {0.25, 4, 0.125}, {3, 0, 0.75}};
	for (int r = 0; r < 3; r++)
		record(w, DFS_MOD_POSIX, three, r, (struct field[]){
			{"POSIX_READS", 1}, {"POSIX_BYTES_READ", 3e9},
			{"POSIX_F_READ_TIME", times[r][0]}, {"POSIX_F_WRITE_TIME", times[r][1]},
			{"POSIX_F_META_TIME", times[r][2]}}, 5);
	record(w, DFS_MOD_POSIX, both, 0, (struct field[]){
		{"POSIX_WRITES", 1}, {"POSIX_BYTES_WRITTEN", 2e9}, {"POSIX_F_META_TIME", 0.5}}, 3);
	record(w, DFS_MOD_POSIX, uuid, 1, (struct field[]){
		{"POSIX_WRITES", 1}, {"POSIX_BYTES_WRITTEN", 1e9}, {"POSIX_F_WRITE_TIME", 1}}, 3);
	record(w, DFS_MOD_POSIX, hex, 2, (struct field[]){
		{"POSIX_WRITES", 1}, {"POSIX_BYTES_WRITTEN", 1e9}, {"POSIX_F_WRITE_TIME", 1}}, 3);
	assert_int_equal(dfs_log_writer_module_end(w, &err), 0);
	assert_int_equal(dfs_log_writer_module_begin(w, DFS_MOD_STDIO, 0, &err), 0);
	record(w, DFS_MOD_STDIO, both, 0, (struct field[]){
		{"STDIO_WRITES", 10}, {"STDIO_BYTES_WRITTEN", 5e8}, {"STDIO_F_WRITE_TIME", 2}}, 3);
	assert_int_equal(dfs_log_writer_module_end(w, &err), 0);
	dfs_log *log = finish(w, &out);
	dfs_summary_input in;
	every_record(log, &in);
	char *page = page_of(&in);

	/* by bytes: the shared file first, by its name, then the others */
	static char rows[32][256];
	size_t n = rows_of(page, "files-bytes", rows, 32);
	assert_true(n >= 5);
	assert_string_equal(rows[0], "/lus/theta-fs1/3981085427");
	assert_string_equal(rows[1], "/lus/run/three.dat");
	/* POSIX and STDIO of one file: a row each, its bytes ranked together */
	assert_string_equal(rows[2], "/lus/run/log.txt");
	assert_string_equal(rows[3], "/lus/run/log.txt");
	char cells[8][64];
	assert_true(row_cells(page, "files-bytes", "/lus/theta-fs1/", cells, 8));
	assert_string_equal(cells[1], "POSIX");
	assert_string_equal(cells[2], "496 (shared)");
	assert_string_equal(cells[6], "583.2");   /* the slowest rank's time */
	char perf[32];
	snprintf(perf, sizeof(perf), "%.1f", (52939424612.0 + 52938395468.0) / 1048576 / 583.25);
	assert_string_equal(cells[7], perf);
	/* three ranks: the slowest is rank 1 (0.125 + 0.25 + 4 s) */
	assert_true(row_cells(page, "files-bytes", "/lus/run/three", cells, 8));
	assert_string_equal(cells[2], "3");
	assert_string_equal(cells[6], "4.375");
	snprintf(perf, sizeof(perf), "%.1f", 9e9 / 1048576 / 4.375);
	assert_string_equal(cells[7], perf);
	/* by time: the shared file's 660 s first */
	n = rows_of(page, "files-time", rows, 32);
	assert_string_equal(rows[0], "/lus/theta-fs1/3981085427");
	/* the pattern holds 1,001 files, and names the one with most bytes */
	assert_true(row_cells(page, "patterns-bytes", "/lus/theta-fs*/*", cells, 5));
	assert_string_equal(cells[1], "1001");
	assert_non_null(strstr(cells[4], "/lus/theta-fs1/3981085427 (99."));
	/* identifiers stay readable */
	assert_non_null(strstr(page, "<td>/tmp/w/&lt;uuid&gt;/job_*.out</td>"));
	assert_non_null(strstr(page, "<td>/tmp/obj/&lt;id&gt;/part.*</td>"));
	assert_null(strstr(page, "*e*-*b-*b*"));
	free(page);
	dfs_log_free(log);
}

/* 20 ranks, rank r with r seconds and (20 - r) MiB: the ten with the
 * most time are 19 down to 10, with the most bytes 0 up to 9; one rank
 * alone gets its table and no per-rank plot. */
static void test_top_ranks(void **state)
{
	(void)state;
	for (int nprocs = 20; nprocs >= 1; nprocs -= 19) {
		dfs_buf out = DFS_BUF_INIT;
		dfs_log_writer *w = start(&out, nprocs);
		uint64_t id = name(w, "/lus/f");
		dfs_error err = {0};
		assert_int_equal(dfs_log_writer_module_begin(w, DFS_MOD_POSIX, 0, &err), 0);
		for (int r = 0; r < nprocs; r++)
			record(w, DFS_MOD_POSIX, id, r, (struct field[]){
				{"POSIX_WRITES", 1}, {"POSIX_BYTES_WRITTEN", (20.0 - r) * 1048576},
				{"POSIX_F_WRITE_TIME", r + 1}, {"POSIX_F_OPEN_START_TIMESTAMP", 1},
				{"POSIX_F_CLOSE_END_TIMESTAMP", 5}}, 5);
		assert_int_equal(dfs_log_writer_module_end(w, &err), 0);
		dfs_log *log = finish(w, &out);
		dfs_summary_input in;
		every_record(log, &in);
		char *page = page_of(&in);
		static char rows[32][256];
		size_t n = rows_of(page, "ranks-time", rows, 32);
		assert_int_equal(n, nprocs < 10 ? nprocs : 10);
		for (size_t k = 0; k < n; k++)
			assert_int_equal(atoi(rows[k]), nprocs - 1 - (int)k);
		/* no row per rank bin */
		assert_null(strstr(page, "id=\"rank-table\""));
		if (nprocs > 1) {
			n = rows_of(page, "ranks-bytes", rows, 32);
			assert_int_equal(n, 10);
			for (size_t k = 0; k < n; k++)
				assert_int_equal(atoi(rows[k]), (int)k);
			assert_non_null(strstr(page, "<figure id=\"plot-ranks\">"));
		} else {
			assert_null(strstr(page, "<figure id=\"plot-ranks\">"));
			char *svg = plot_of(&in, DFS_PLOT_RANKS);
			assert_non_null(strstr(svg, "a job of one rank"));
			assert_null(strstr(svg, "<rect x=\"80"));
			free(svg);
		}
		free(page);
		dfs_log_free(log);
	}
}

/* ---- size ----------------------------------------------------------------------- */

static void check_sizes(const dfs_summary_input *in)
{
	dfs_buf html = DFS_BUF_INIT, svg[DFS_PLOTS], txt = DFS_BUF_INIT, csv = DFS_BUF_INIT;
	for (int p = 0; p < DFS_PLOTS; p++)
		dfs_buf_init(&svg[p]);
	dfs_error err = {0};
	assert_int_equal(dfs_summary_render_all(in, &html, svg, &txt, &csv, &err), 0);
	if (html.len >= PAGE_MAX)
		fail_msg("summary.html of %zu bytes", html.len);
	for (int p = 0; p < DFS_PLOTS; p++) {
		if (svg[p].len >= PAGE_MAX)
			fail_msg("summary/%s.svg of %zu bytes", dfs_summary_plot_name(p), svg[p].len);
		dfs_buf_free(&svg[p]);
	}
	dfs_buf_free(&html);
	dfs_buf_free(&txt);
	dfs_buf_free(&csv);
}

/* A log of 1024 ranks and 200,000 records from darshanfs-gen (POSIX,
 * MPI-IO, STDIO and DXT_POSIX: heat maps from the traces): under 1 MB. */
static void test_generated_size(void **state)
{
	(void)state;
	const char *gen = getenv("DFS_GEN");
	if (!gen || access(gen, X_OK) != 0)
		skip();
	char path[] = "/tmp/test_page_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "'%s' -n 100000 -p 1024 -m POSIX,MPI-IO,STDIO,DXT_POSIX "
	         "-o '%s' > /dev/null", gen, path);
	assert_int_equal(system(cmd), 0);
	dfs_error err = {0};
	dfs_log *log = dfs_log_open(path, 0, &err);
	unlink(path);
	if (!log)
		fail_msg("%s", err.msg);
	dfs_summary_input in;
	every_record(log, &in);
	size_t records = 0;
	for (int id = 0; id < DFS_MOD_SLOTS; id++)
		records += in.mod[id].count;
	assert_true(records >= 200000);
	assert_int_equal(dfs_log_job(log)->nprocs, 1024);
	check_sizes(&in);
	char *svg = plot_of(&in, DFS_PLOT_HEATMAP_POSIX);
	assert_non_null(strstr(svg, "(from DXT)"));
	free(svg);
	dfs_log_free(log);
}

/* The worst heat maps: five layers of 1024 ranks, 200 bins of different
 * values each; traced files with requests everywhere: under 1 MB. */
static void test_worst_size(void **state)
{
	(void)state;
	dfs_buf out = DFS_BUF_INIT;
	dfs_log_writer *w = start(&out, 1024);
	static const char *const layers[] = {"heatmap:POSIX", "heatmap:MPIIO", "heatmap:STDIO",
	                                     "heatmap:DFS", "heatmap:DAOS"};
	uint64_t ids[5];
	for (int l = 0; l < 5; l++)
		ids[l] = name(w, layers[l]);
	dfs_error err = {0};
	assert_int_equal(dfs_log_writer_module_begin(w, DFS_MOD_HEATMAP, 0, &err), 0);
	static int64_t wr[200], rd[200];
	uint64_t x = 88172645463325252ULL;
	for (int l = 0; l < 5; l++)
		for (int64_t r = 0; r < 1024; r++) {
			for (int b = 0; b < 200; b++) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				wr[b] = (int64_t)(x % 1000000007ULL) + 1;
				rd[b] = (int64_t)(x % 999983ULL) + 1;
			}
			heat_record(w, ids[l], r, 200, wr, rd);
		}
	assert_int_equal(dfs_log_writer_module_end(w, &err), 0);
	dfs_log *log = finish(w, &out);
	dfs_summary_input in;
	every_record(log, &in);
	check_sizes(&in);
	/* every layer drawn, each cell with its tooltip */
	char *page = page_of(&in);
	for (int l = 0; l < 5; l++) {
		char fig[64];
		snprintf(fig, sizeof(fig), "<figure id=\"plot-heatmap_%s\">", l == 0 ? "posix"
		         : l == 1 ? "mpiio" : l == 2 ? "stdio" : l == 3 ? "dfs" : "daos");
		assert_non_null(strstr(page, fig));
	}
	free(page);
	struct heat_seen h;
	char *svg = plot_of(&in, DFS_PLOT_HEATMAP_DAOS);
	heat_cells(svg, &h);
	assert_true(h.cells > 100);
	free(svg);
	dfs_log_free(log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_heat_layers),
		cmocka_unit_test(test_heat_windows),
		cmocka_unit_test(test_patterns),
		cmocka_unit_test(test_rank_shares),
		cmocka_unit_test(test_operations),
		cmocka_unit_test(test_named_files),
		cmocka_unit_test(test_top_ranks),
		cmocka_unit_test(test_generated_size),
		cmocka_unit_test(test_worst_size),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
