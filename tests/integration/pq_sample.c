/* pq_sample - tables written with the Parquet writer of src/parquet, and
 * the same values as CSV, for a real engine to compare (parquet_engine.sh).
 *
 *   pq_sample DIR
 *
 * writes DIR/<case>.parquet and DIR/<case>.csv for every case below.  The
 * values are random (a fixed seed) from sets that hold what breaks
 * writers: uint64 ids above 2^63, INT64_MIN and INT64_MAX, NaN, infinities,
 * -0.0, subnormals, text with commas, quotes, line breaks and multi-byte
 * UTF-8, empty text, text too long for statistics, nulls in runs and
 * alone, columns of one value (a dictionary of one entry), columns of all
 * nulls, and more distinct values than a dictionary takes.  The CSV has a
 * header; NULL stands for a null; doubles have 17 significant digits;
 * timestamps are microseconds since the epoch. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parquet/parquet.h"

static uint64_t state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	/* splitmix64 */
	uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static const char *const texts[] = {
	"", "a", "a,b", "say \"hi\"", "line\nbreak", "crlf\r\nx", "é", "日本語",
	"/lus/theta-fs0/projects/app/out.0", "/lus/theta-fs0/projects/app/out.1",
	"<STDOUT>", "tab\there", "NULLISH", "\xf0\x9f\x98\x80 emoji", "z",
};
#define NTEXTS (sizeof(texts) / sizeof(texts[0]))

static void csv_text(FILE *f, const char *s, size_t len)
{
	fputc('"', f);
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '"')
			fputc('"', f);
		fputc(s[i], f);
	}
	fputc('"', f);
}

static void csv_double(FILE *f, double v)
{
	if (isnan(v))
		fputs("nan", f);
	else if (isinf(v))
		fputs(v > 0 ? "inf" : "-inf", f);
	else
		fprintf(f, "%.17g", v);
}

struct spec {
	const char *name;
	size_t rows, group_rows, threads;
	enum dfs_pq_codec codec;
	int mode;   /* 0: mixed values, 1: few distinct values, 2: all distinct,
	               3: as 0, but `n` and `x` dictionaries of 16 and 15
	               bits an index */
};

static int write_case(const char *dir, const struct spec *sp)
{
	static const struct dfs_pq_column cols[] = {
		{"id", DFS_PQ_UINT64, false},
		{"n", DFS_PQ_INT64, true},
		{"x", DFS_PQ_DOUBLE, false},
		{"s", DFS_PQ_STRING, true},
		{"t", DFS_PQ_TIMESTAMP, false},
		{"b", DFS_PQ_BOOL, false},
		{"zero", DFS_PQ_INT64, false},
		{"nothing", DFS_PQ_DOUBLE, true},
		{"rank", DFS_PQ_INT64, false},
	};
	const char *keys[] = {"darshanfs_case"};
	const char *values[] = {sp->name};
	struct dfs_pq_options o = {
		.codec = sp->codec, .level = 1, .group_rows = sp->group_rows,
		.threads = sp->threads, .kv_keys = keys, .kv_values = values, .nkv = 1,
	};
	dfs_error err;
	dfs_pq *w = dfs_pq_new(cols, sizeof(cols) / sizeof(cols[0]), &o, &err);
	if (!w) {
		fprintf(stderr, "%s: %s\n", sp->name, err.msg);
		return 1;
	}
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s.csv", dir, sp->name);
	FILE *csv = fopen(path, "w");
	if (!csv) {
		perror(path);
		return 1;
	}
	fputs("id,n,x,s,t,b,zero,nothing,rank\n", csv);
	char longtext[400];
	memset(longtext, 'L', sizeof(longtext));
	for (size_t r = 0; r < sp->rows; r++) {
		uint64_t u = rnd();
		uint64_t id = sp->mode == 2 ? u : sp->mode == 1 ? u % 5 : (u & 1 ? u : u % 1000);
		if (r == 1)
			id = UINT64_MAX;
		dfs_pq_u64(w, id);
		fprintf(csv, "%" PRIu64 ",", id);

		uint64_t k = rnd() % 100;
		if (sp->mode == 3) {
			/* a third of the rows a value of their own, the others
			 * zero: the dictionary of the first group holds 33,001
			 * entries (16-bit indices), the second's 16,501 */
			int64_t n = r % 3 ? 0 : (int64_t)(r / 3 % (r < sp->group_rows ? 33000 : 16500)) + 1;
			dfs_pq_i64(w, n);
			fprintf(csv, "%" PRId64 ",", n);
		} else if (k < 10 || (r / 50) % 7 == 3) {
			dfs_pq_null(w);
			fputs("NULL,", csv);
		} else {
			int64_t n = k < 12 ? INT64_MIN : k < 14 ? INT64_MAX
			          : sp->mode == 2 ? (int64_t)rnd() : (int64_t)(rnd() % 9) - 4;
			dfs_pq_i64(w, n);
			fprintf(csv, "%" PRId64 ",", n);
		}

		static const double specials[] = {0.0, -0.0, 5e-324, 1e308, 0.1, -2.5};
		double x;
		k = rnd() % 100;
		if (sp->mode == 3)   /* (a dictionary page of 264,008 bytes) */
			x = r % 3 ? 0.0 : (double)(r / 3 % 33000) + 0.25;
		else if (k < 2)
			x = NAN;
		else if (k < 4)
			x = k == 2 ? INFINITY : -INFINITY;
		else if (k < 20 || sp->mode == 1)
			x = specials[rnd() % 6];
		else
			x = (double)(int64_t)rnd() / 1e9;
		dfs_pq_f64(w, x);
		csv_double(csv, x);
		fputc(',', csv);

		k = rnd() % 100;
		if (k < 8) {
			dfs_pq_null(w);
			fputs("NULL,", csv);
		} else if (k < 10) {
			size_t len = 300 + rnd() % 90;
			dfs_pq_str(w, longtext, len);
			csv_text(csv, longtext, len);
			fputc(',', csv);
		} else if (sp->mode == 2) {
			char buf[64];
			int len = snprintf(buf, sizeof(buf), "/scratch/file.%" PRIu64, rnd());
			dfs_pq_str(w, buf, (size_t)len);
			csv_text(csv, buf, (size_t)len);
			fputc(',', csv);
		} else {
			const char *s = texts[rnd() % NTEXTS];
			dfs_pq_str(w, s, strlen(s));
			csv_text(csv, s, strlen(s));
			fputc(',', csv);
		}

		int64_t t = (int64_t)1700000000 * 1000000 + (int64_t)(rnd() % 4000000000ULL);
		dfs_pq_time(w, t);
		fprintf(csv, "%" PRId64 ",", t);

		bool b = rnd() & 1;
		dfs_pq_bool(w, b);
		fprintf(csv, "%s,", b ? "true" : "false");

		dfs_pq_i64(w, 0);
		fputs("0,", csv);

		dfs_pq_null(w);
		fputs("NULL,", csv);

		int64_t rank = r < sp->rows / 2 ? -1 : (int64_t)(r % 64);
		dfs_pq_i64(w, rank);
		fprintf(csv, "%" PRId64 "\n", rank);
	}
	if (fclose(csv) != 0) {
		perror(path);
		return 1;
	}
	dfs_buf out = DFS_BUF_INIT;
	int rc = dfs_pq_finish(w, &out, &err);
	dfs_pq_free(w);
	if (rc < 0) {
		fprintf(stderr, "%s: %s\n", sp->name, err.msg);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/%s.parquet", dir, sp->name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(out.data, 1, out.len, f) != out.len || fclose(f) != 0) {
		perror(path);
		return 1;
	}
	dfs_buf_free(&out);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: pq_sample DIR\n");
		return 2;
	}
	static const struct spec specs[] = {
		{"empty", 0, 0, 1, DFS_PQ_GZIP, 0},
		{"one", 1, 0, 1, DFS_PQ_GZIP, 0},
		{"small_groups", 1000, 7, 1, DFS_PQ_GZIP, 0},
		{"plain", 20000, 4096, 1, DFS_PQ_UNCOMPRESSED, 0},
		{"few_values", 50000, 0, 2, DFS_PQ_GZIP, 1},
		{"distinct", 100000, 0, 2, DFS_PQ_GZIP, 2},
		{"distinct_groups", 60000, 30000, 1, DFS_PQ_GZIP, 2},
		{"threads", 70000, 16384, 4, DFS_PQ_UNCOMPRESSED, 1},
		{"zstd_few_values", 50000, 0, 2, DFS_PQ_ZSTD, 1},
		{"zstd_distinct_groups", 60000, 30000, 2, DFS_PQ_ZSTD, 2},
		{"wide_dict", 200000, 100000, 2, DFS_PQ_ZSTD, 3},
	};
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
		if (write_case(argv[1], &specs[i]))
			return 1;
	return 0;
}
