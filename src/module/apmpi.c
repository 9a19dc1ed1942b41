/* apmpi.c - the AutoPerf MPI module APMPI (id 14, version 1).
 *
 * The first record of the region is a 48-byte header (magic, sync flag,
 * variances of the total MPI time); every later record is a 5232-byte
 * per-rank record: 396 u64 counters, 222 per-operation times, 16 sync
 * times, 2 totals and the processor name.  The two kinds are told apart by
 * position only, as upstream does.
 *
 * records.csv has one row per record; header-only columns are empty on
 * rank rows and the other way round. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "darshanfs/buf.h"
#include "module/tables.h"
#include "util/bytes.h"

#define HDR 48
#define PERF 5232
#define NI 396
#define NF 222
#define NS 16
#define INT_OFF 16
#define FLOAT_OFF 3184
#define SYNC_OFF 4960
#define GLOBAL_OFF 5088
#define NODE_OFF 5104

static int decode(const dfs_decode_in *in, dfs_records *out, dfs_error *err)
{
	const unsigned char *d = in->data;
	size_t len = in->len, pos = 0;
	bool sw = in->swap;
	if (len >= HDR) {
		unsigned char *h = dfs_records_append(out, HDR);
		if (!h)
			return dfs_error_nomem(err);
		dfs_copy8(h, d, sw);
		dfs_copy8(h + 8, d + 8, sw);
		dfs_copy8(h + 16, d + 16, sw);
		dfs_store_u32(h + 24, dfs_load_u32(d + 24, sw));
		dfs_copy8(h + 32, d + 32, sw);
		dfs_copy8(h + 40, d + 40, sw);
		dfs_decode_stored(in, 0, HDR);
		pos = HDR;
	}
	while (len - pos >= PERF) {
		unsigned char *r = dfs_records_append(out, PERF);
		if (!r)
			return dfs_error_nomem(err);
		for (size_t k = 0; k < NODE_OFF / 8; k++)
			dfs_copy8(r + 8 * k, d + pos + 8 * k, sw);
		memcpy(r + NODE_OFF, d + pos + NODE_OFF, 128);
		dfs_decode_stored(in, pos, PERF);
		pos += PERF;
	}
	return 0;
}

/* fields: id, rank, MPI_PROCESSOR_NAME, ints, floats, sync, 2 totals,
 * then the header's sync flag and two variances */
enum {
	F_NAME = 2,
	F_INT = 3,
	F_FLOAT = F_INT + NI,
	F_SYNC = F_FLOAT + NF,
	F_TOTAL = F_SYNC + NS,
	F_TOTAL_SYNC,
	F_SYNC_FLAG,
	F_VAR,
	F_VAR_SYNC,
	F_N
};

/* every counter is read from the record by get_field */
#define APMPI_INT(base, i, n) {n, DFS_S_VIRTUAL, DFS_T_U64, 0, 0, true},
#define APMPI_FLOAT(base, i, n) {n, DFS_S_VIRTUAL, DFS_T_F64, 0, 0, true},

static const dfs_field fields[] = {
	DFS_ID_FIELDS,
	[F_NAME] = {"MPI_PROCESSOR_NAME", DFS_S_VIRTUAL, DFS_T_STR, 0, 0, true},
	DFS_APMPI_INTS(APMPI_INT, 0)
	DFS_APMPI_FLOATS(APMPI_FLOAT, 0)
	DFS_APMPI_SYNCS(APMPI_FLOAT, 0)
	[F_TOTAL] = {"MPI_TOTAL_COMM_TIME", DFS_S_VIRTUAL, DFS_T_F64, 0, 0, true},
	[F_TOTAL_SYNC] = {"MPI_TOTAL_COMM_SYNC_TIME", DFS_S_VIRTUAL, DFS_T_F64, 0, 0, true},
	[F_SYNC_FLAG] = {"sync_flag", DFS_S_VIRTUAL, DFS_T_I64, 0, 0, false},
	[F_VAR] = {"MPI_TOTAL_COMM_TIME_VARIANCE", DFS_S_VIRTUAL, DFS_T_F64, 0, 0, true},
	[F_VAR_SYNC] = {"MPI_TOTAL_COMM_SYNC_TIME_VARIANCE", DFS_S_VIRTUAL,
	                DFS_T_F64, 0, 0, true},
};
_Static_assert(DFS_N_FIELDS(fields) == F_N, "APMPI fields");

static void get_field(const unsigned char *rec, size_t len, size_t row,
                      size_t f, dfs_value *out)
{
	out->type = DFS_T_NONE;
	bool header = len == HDR;
	if (f >= F_SYNC_FLAG) {
		if (!header)
			return;
		if (f == F_SYNC_FLAG) {
			out->type = DFS_T_I64;
			out->v.i = dfs_load_u32(rec + 24, false);
		} else {
			out->type = DFS_T_F64;
			out->v.d = dfs_load_f64(rec + (f == F_VAR ? 32 : 40), false);
		}
		return;
	}
	if (header || len < PERF)
		return;
	if (f == F_NAME) {
		out->type = DFS_T_STR;
		out->v.s.ptr = (const char *)rec + NODE_OFF;
		out->v.s.len = strnlen(out->v.s.ptr, 128);
	} else if (f < F_FLOAT) {
		out->type = DFS_T_U64;
		out->v.u = dfs_load_u64(rec + INT_OFF + 8 * (f - F_INT), false);
	} else {
		out->type = DFS_T_F64;
		out->v.d = dfs_load_f64(rec + FLOAT_OFF + 8 * (f - F_FLOAT), false);
	}
}

static void empty_place(const dfs_names *nt, const unsigned char *rec,
                        dfs_record_place *out)
{
	out->has_name = nt->name(nt->owner, dfs_record_id(rec)) != NULL;
	out->name = out->mount = out->fs_type = "";
	out->name_len = out->mount_len = out->fs_type_len = 0;
}

static void print_base(const dfs_names *nt, const dfs_records *recs, size_t i,
                       dfs_buf *out)
{
	const dfs_module *m = recs->module;
	const unsigned char *rec = dfs_record(recs, i);
	const unsigned char *hdr = recs->count && dfs_record_size(recs, 0) == HDR
	                                   ? dfs_record(recs, 0) : NULL;
	bool sync = hdr && dfs_load_u32(hdr + 24, false) != 0;
	dfs_record_place pl;
	empty_place(nt, rec, &pl);
	char val[160];
	if (dfs_record_size(recs, i) == HDR) {
		snprintf(val, sizeof(val), "%f", dfs_load_f64(rec + 32, false));
		dfs_print_line(out, m, rec, &pl, "MPI_TOTAL_COMM_TIME_VARIANCE", val);
		if (sync) {
			snprintf(val, sizeof(val), "%f", dfs_load_f64(rec + 40, false));
			dfs_print_line(out, m, rec, &pl,
			               "MPI_TOTAL_COMM_SYNC_TIME_VARIANCE", val);
		}
		return;
	}
	snprintf(val, sizeof(val), "%.*s", 128, (const char *)rec + NODE_OFF);
	dfs_print_line(out, m, rec, &pl, "MPI_PROCESSOR_NAME", val);
	for (size_t k = 0; k < NI; k++) {
		snprintf(val, sizeof(val), "%" PRIu64,
		         dfs_load_u64(rec + INT_OFF + 8 * k, false));
		dfs_print_line(out, m, rec, &pl, dfs_apmpi_int_names[k], val);
	}
	for (size_t k = 0; k < NF; k++) {
		snprintf(val, sizeof(val), "%f", dfs_load_f64(rec + FLOAT_OFF + 8 * k, false));
		dfs_print_line(out, m, rec, &pl, dfs_apmpi_float_names[k], val);
	}
	if (sync)
		for (size_t k = 0; k < NS; k++) {
			snprintf(val, sizeof(val), "%f",
			         dfs_load_f64(rec + SYNC_OFF + 8 * k, false));
			dfs_print_line(out, m, rec, &pl, dfs_apmpi_sync_names[k], val);
		}
	snprintf(val, sizeof(val), "%f", dfs_load_f64(rec + GLOBAL_OFF, false));
	dfs_print_line(out, m, rec, &pl, "MPI_TOTAL_COMM_TIME", val);
	if (sync) {
		snprintf(val, sizeof(val), "%f", dfs_load_f64(rec + GLOBAL_OFF + 8, false));
		dfs_print_line(out, m, rec, &pl, "MPI_TOTAL_COMM_SYNC_TIME", val);
	}
}

const dfs_module dfs_module_apmpi = {
	.id = DFS_MOD_APMPI,
	.name = "APMPI",
	.dirname = "APMPI",
	.prefix = "",
	.version = 1,
	.record_size = 0,
	.fields = fields,
	.n_fields = F_N,
	.description = dfs_apmpi_description,
	.warnings = dfs_apmpi_warnings,
	.decode = decode,
	.get_field = get_field,
	.place = empty_place,
	.print_base = print_base,
};
