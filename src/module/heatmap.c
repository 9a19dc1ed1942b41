/* heatmap.c - the HEATMAP module (id 15, version 1, variable size): bytes
 * read and written per time bin, one record per (API, rank).
 *
 * Record: base, bin_width_seconds f64, nbins i64, 16 bytes that the runtime
 * fills with in-memory pointers (we keep zeros), then nbins write bins and
 * nbins read bins (i64).  Upstream's bin-count correction for logs of
 * runtimes 3.4.0-3.4.3 is reproduced exactly, including the off-by-one
 * shift of the read bins when a record has one bin too few.
 *
 * records.csv shows one row per bin. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "darshanfs/buf.h"
#include "module/tables.h"
#include "util/bytes.h"

#define FIXED 48
#define PARSER_BUF 81920 /* darshan-util's largest record */

static int64_t get_i(const unsigned char *p) { return dfs_load_i64(p, false); }
static int64_t nbins(const unsigned char *rec) { return get_i(rec + 24); }

static int decode(const dfs_decode_in *in, dfs_records *out, dfs_error *err)
{
	const unsigned char *d = in->data;
	size_t len = in->len, pos = 0;
	bool sw = in->swap;
	int64_t ref_bins = 0;
	double ref_width = 0;
	bool have_bins = false, have_width = false;
	while (len - pos >= FIXED) {
		const unsigned char *s = d + pos;
		double width = dfs_load_f64(s + 16, sw);
		int64_t n = dfs_load_i64(s + 24, sw);
		if (n < 0 || (uint64_t)n > (PARSER_BUF - FIXED) / 16)
			return dfs_error_set(err, DFS_ERR_FORMAT,
			                     "record %zu has %" PRId64 " bins (more than a "
			                     "%d-byte record can hold)",
			                     out->count, n, PARSER_BUF);
		size_t size = FIXED + 16 * (size_t)n;
		if (size > len - pos)
			break; /* partial record: end of data */
		if (!have_bins && n != 0) {
			ref_bins = n;
			have_bins = true;
		}
		if (!have_width && width != 0) {
			ref_width = width;
			have_width = true;
		}
		const unsigned char *wsrc = s + FIXED, *rsrc = s + FIXED + 8 * n;
		int64_t out_n = n;
		int shift = 0; /* 0 none, -1 drop last bin, +1 upstream's pad */
		if (have_width && width == ref_width && have_bins) {
			if (n == ref_bins + 1) {
				out_n = n - 1;
				shift = -1;
			} else if (n == ref_bins - 1) {
				out_n = n + 1;
				shift = 1;
			}
		}
		unsigned char *r = dfs_records_append(out, FIXED + 16 * (size_t)out_n);
		if (!r)
			return dfs_error_nomem(err);
		dfs_copy8(r, s, sw);
		dfs_copy8(r + 8, s + 8, sw);
		dfs_copy8(r + 16, s + 16, sw);
		dfs_store_i64(r + 24, out_n);
		unsigned char *wb = r + FIXED, *rb = r + FIXED + 8 * out_n;
		if (shift == 1) {
			/* write: W[0..n-1], 0; read: 0, R[0..n-2], 0 */
			for (int64_t k = 0; k < n; k++)
				dfs_copy8(wb + 8 * k, wsrc + 8 * k, sw);
			for (int64_t k = 0; k + 1 < n; k++)
				dfs_copy8(rb + 8 * (k + 1), rsrc + 8 * k, sw);
		} else {
			for (int64_t k = 0; k < out_n; k++) {
				dfs_copy8(wb + 8 * k, wsrc + 8 * k, sw);
				dfs_copy8(rb + 8 * k, rsrc + 8 * k, sw);
			}
		}
		dfs_decode_stored(in, pos, size);
		pos += size;
	}
	return 0;
}

static size_t row_count(const unsigned char *rec, size_t len)
{
	return nbins(rec) > 0 ? (size_t)nbins(rec) : 1;
}

enum { F_ID, F_RANK, F_WIDTH, F_NBINS, F_BIN, F_START, F_READ, F_WRITE, F_N };

static const dfs_field fields[F_N] = {
	{"record_id", DFS_S_U64, DFS_T_U64, 0, 0, false},
	{"rank", DFS_S_I64, DFS_T_I64, 8, 0, false},
	{"HEATMAP_F_BIN_WIDTH_SECONDS", DFS_S_F64, DFS_T_F64, 16, 0, true},
	{"HEATMAP_NBINS", DFS_S_I64, DFS_T_I64, 24, 0, true},
	{"bin", DFS_S_VIRTUAL, DFS_T_I64, 0, 0, false},
	{"bin_start_time", DFS_S_VIRTUAL, DFS_T_F64, 0, 0, false},
	{"HEATMAP_READ_BIN", DFS_S_VIRTUAL, DFS_T_I64, 0, 0, true},
	{"HEATMAP_WRITE_BIN", DFS_S_VIRTUAL, DFS_T_I64, 0, 0, true},
};

static void get_field(const unsigned char *rec, size_t len, size_t row,
                      size_t f, dfs_value *out)
{
	out->type = DFS_T_NONE;
	int64_t n = nbins(rec);
	if ((int64_t)row >= n)
		return;
	switch (f) {
	case F_BIN:
		out->type = DFS_T_I64;
		out->v.i = (int64_t)row;
		return;
	case F_START:
		out->type = DFS_T_F64;
		out->v.d = (double)row * dfs_load_f64(rec + 16, false);
		return;
	case F_READ:
		out->type = DFS_T_I64;
		out->v.i = get_i(rec + FIXED + 8 * (n + (int64_t)row));
		return;
	case F_WRITE:
		out->type = DFS_T_I64;
		out->v.i = get_i(rec + FIXED + 8 * (int64_t)row);
		return;
	}
}

static void print_base(const dfs_names *nt, const dfs_records *recs, size_t i,
                       dfs_buf *out)
{
	const dfs_module *m = recs->module;
	const unsigned char *rec = dfs_record(recs, i);
	dfs_record_place pl;
	nt->place(nt->owner, m, rec, &pl);
	char name[64], val[64];
	snprintf(val, sizeof(val), "%f", dfs_load_f64(rec + 16, false));
	dfs_print_line(out, m, rec, &pl, "HEATMAP_F_BIN_WIDTH_SECONDS", val);
	int64_t n = nbins(rec);
	for (int64_t k = 0; k < n; k++) {
		snprintf(name, sizeof(name), "HEATMAP_READ_BIN_%" PRId64, k);
		snprintf(val, sizeof(val), "%" PRId64, get_i(rec + FIXED + 8 * (n + k)));
		dfs_print_line(out, m, rec, &pl, name, val);
	}
	for (int64_t k = 0; k < n; k++) {
		snprintf(name, sizeof(name), "HEATMAP_WRITE_BIN_%" PRId64, k);
		snprintf(val, sizeof(val), "%" PRId64, get_i(rec + FIXED + 8 * k));
		dfs_print_line(out, m, rec, &pl, name, val);
	}
}

const dfs_module dfs_module_heatmap = {
	.id = DFS_MOD_HEATMAP,
	.name = "HEATMAP",
	.dirname = "HEATMAP",
	.prefix = "HEATMAP_",
	.version = 1,
	.record_size = 0,
	.fields = fields,
	.n_fields = F_N,
	.description = dfs_heatmap_description,
	.warnings = dfs_heatmap_warnings,
	.decode = decode,
	.row_count = row_count,
	.get_field = get_field,
	.print_base = print_base,
};
