/* mdhim.c - the MDHIM module (id 12, version 1, variable size).
 *
 * Record: base, 5 integer counters, 4 float counters, then MDHIM_SERVERS
 * histogram slots (at least one is always stored).  records.csv shows one
 * row per server slot. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "darshanfs/buf.h"
#include "module/tables.h"
#include "util/bytes.h"

#define FIXED 96 /* includes server_histogram[0] */
#define NI 5
#define NF 4

static int64_t get_i(const unsigned char *p) { return dfs_load_i64(p, false); }
static size_t nservers(const unsigned char *rec, size_t len)
{
	return (len - 88) / 8;
}

static int decode(const dfs_decode_in *in, dfs_records *out, dfs_error *err)
{
	const unsigned char *d = in->data;
	size_t len = in->len, pos = 0;
	while (len - pos >= FIXED) {
		int64_t servers = dfs_load_i64(d + pos + 48, in->swap);
		size_t slots = 1;
		if (servers > 1) {
			if ((uint64_t)servers > (len - pos - 88) / 8)
				break; /* partial record */
			slots = (size_t)servers;
		}
		size_t size = 88 + 8 * slots;
		unsigned char *r = dfs_records_append(out, size);
		if (!r)
			return dfs_error_nomem(err);
		for (size_t k = 0; k < size / 8; k++)
			dfs_copy8(r + 8 * k, d + pos + 8 * k, in->swap);
		dfs_decode_stored(in, pos, size);
		pos += size;
	}
	return 0;
}

static size_t row_count(const unsigned char *rec, size_t len)
{
	return nservers(rec, len);
}

/* the counters, then one row per server slot: its index and its count */
static const dfs_field fields[] = {
	DFS_ID_FIELDS,
	DFS_MDHIM_INTS(DFS_INT_FIELD, 16)
	DFS_MDHIM_FLOATS(DFS_FLOAT_FIELD, 56)
	{"server", DFS_S_VIRTUAL, DFS_T_I64, 0, 0, false},
	{"MDHIM_SERVER_OPS", DFS_S_VIRTUAL, DFS_T_I64, 0, 0, true},
};
_Static_assert(DFS_N_FIELDS(fields) == 2 + NI + NF + 2, "MDHIM fields");

static void get_field(const unsigned char *rec, size_t len, size_t row,
                      size_t f, dfs_value *out)
{
	out->type = DFS_T_NONE;
	if (row >= nservers(rec, len))
		return;
	out->type = DFS_T_I64;
	out->v.i = f == 2 + NI + NF ? (int64_t)row : get_i(rec + 88 + 8 * row);
}

static void print_base(const dfs_names *nt, const dfs_records *recs, size_t i,
                       dfs_buf *out)
{
	const dfs_module *m = recs->module;
	const unsigned char *rec = dfs_record(recs, i);
	size_t len = dfs_record_size(recs, i);
	dfs_record_place pl;
	nt->place(nt->owner, m, rec, &pl);
	char name[64], val[64];
	for (size_t k = 0; k < NI; k++) {
		snprintf(val, sizeof(val), "%" PRId64, get_i(rec + 16 + 8 * k));
		dfs_print_line(out, m, rec, &pl, m->int_names[k], val);
	}
	for (size_t k = 0; k < NF; k++) {
		snprintf(val, sizeof(val), "%f", dfs_load_f64(rec + 56 + 8 * k, false));
		dfs_print_line(out, m, rec, &pl, m->float_names[k], val);
	}
	int64_t servers = get_i(rec + 48);
	for (int64_t k = 0; k < servers && (size_t)k < nservers(rec, len); k++) {
		snprintf(name, sizeof(name), "MDHIM_SERVER_%" PRId64, k);
		snprintf(val, sizeof(val), "%" PRId64, get_i(rec + 88 + 8 * k));
		dfs_print_line(out, m, rec, &pl, name, val);
	}
}

const dfs_module dfs_module_mdhim = {
	.id = DFS_MOD_MDHIM,
	.name = "MDHIM",
	.dirname = "MDHIM",
	.prefix = "MDHIM_",
	.version = 1,
	.record_size = 0,
	.n_int = NI,
	.n_float = NF,
	.int_names = dfs_mdhim_int_names,
	.float_names = dfs_mdhim_float_names,
	.int_offset = 16,
	.float_offset = 56,
	.fields = fields,
	.n_fields = DFS_N_FIELDS(fields),
	.description = dfs_mdhim_description,
	.warnings = dfs_mdhim_warnings,
	.decode = decode,
	.row_count = row_count,
	.get_field = get_field,
	.print_base = print_base,
};
