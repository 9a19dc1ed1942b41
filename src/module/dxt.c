/* dxt.c - the DXT trace modules DXT_POSIX (id 10, version 2) and DXT_MPIIO
 * (id 11, version 3).
 *
 * A record is a 104-byte header (base, shared_record, hostname[64],
 * write_count, read_count) followed by write segments then read segments.
 * Current segments are 40 bytes (offset, length, start, end, pthread id);
 * older versions store 32-byte segments without the thread id, which we
 * mark with DFS_DXT_NO_THREAD.  DXT_MPIIO v1 offsets are invalid and set to
 * -1, as upstream does.
 *
 * records.csv shows one row per segment (a record without segments still
 * gets one row). */
#include <string.h>

#include "module/tables.h"
#include "util/bytes.h"

#define FIXED 104
#define SEG 40
#define DFS_DXT_NO_THREAD UINT64_MAX

static int64_t get_i(const unsigned char *p) { return dfs_load_i64(p, false); }

static int decode_common(const dfs_decode_in *in, dfs_records *out,
                         size_t seg_in, bool invalid_offsets, dfs_error *err)
{
	const unsigned char *d = in->data;
	size_t len = in->len, pos = 0;
	bool sw = in->swap;
	while (len - pos >= FIXED) {
		int64_t w = dfs_load_i64(d + pos + 88, sw);
		int64_t r = dfs_load_i64(d + pos + 96, sw);
		if (w < 0 || r < 0 || (uint64_t)w > (len - pos - FIXED) / seg_in ||
		    (uint64_t)r > (len - pos - FIXED) / seg_in - (uint64_t)w)
			break; /* partial record: end of data */
		size_t n = (size_t)(w + r);
		unsigned char *rec = dfs_records_append(out, FIXED + SEG * n);
		if (!rec)
			return dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
		const unsigned char *s = d + pos;
		dfs_copy8(rec, s, sw);
		dfs_copy8(rec + 8, s + 8, sw);
		dfs_copy8(rec + 16, s + 16, sw);
		memcpy(rec + 24, s + 24, 64);
		dfs_copy8(rec + 88, s + 88, sw);
		dfs_copy8(rec + 96, s + 96, sw);
		for (size_t k = 0; k < n; k++) {
			const unsigned char *ss = s + FIXED + seg_in * k;
			unsigned char *ds = rec + FIXED + SEG * k;
			for (int f = 0; f < 4; f++)
				dfs_copy8(ds + 8 * f, ss + 8 * f, sw);
			if (invalid_offsets)
				dfs_store_i64(ds, -1);
			/* the thread id is never swapped (upstream) */
			if (seg_in == SEG)
				memcpy(ds + 32, ss + 32, 8);
			else
				dfs_store_u64(ds + 32, DFS_DXT_NO_THREAD);
		}
		dfs_decode_stored(in, pos, FIXED + seg_in * n);
		pos += FIXED + seg_in * n;
	}
	return 0;
}

static int decode_posix(const dfs_decode_in *in, dfs_records *out, dfs_error *err)
{
	return decode_common(in, out, in->version >= 2 ? 40 : 32, false, err);
}

static int decode_mpiio(const dfs_decode_in *in, dfs_records *out, dfs_error *err)
{
	return decode_common(in, out, in->version >= 3 ? 40 : 32, in->version == 1,
	                     err);
}

static size_t row_count(const unsigned char *rec, size_t len)
{
	size_t n = (len - FIXED) / SEG;
	return n ? n : 1;
}

enum {
	F_ID, F_RANK, F_HOST, F_SHARED, F_WCOUNT, F_RCOUNT, F_OP, F_SEGMENT,
	F_OFFSET, F_LENGTH, F_START, F_END, F_THREAD, F_NFIELDS
};

static const dfs_field fields[F_NFIELDS] = {
	{"record_id", DFS_S_U64, DFS_T_U64, 0, 0, false},
	{"rank", DFS_S_I64, DFS_T_I64, 8, 0, false},
	{"hostname", DFS_S_TEXT, DFS_T_STR, 24, 64, false},
	{"shared_record", DFS_S_I64, DFS_T_I64, 16, 0, false},
	{"write_count", DFS_S_I64, DFS_T_I64, 88, 0, true},
	{"read_count", DFS_S_I64, DFS_T_I64, 96, 0, true},
	{"op", DFS_S_VIRTUAL, DFS_T_STR, 0, 0, false},
	{"segment", DFS_S_VIRTUAL, DFS_T_I64, 0, 0, false},
	{"offset", DFS_S_VIRTUAL, DFS_T_I64, 0, 0, true},
	{"length", DFS_S_VIRTUAL, DFS_T_I64, 8, 0, true},
	{"start_time", DFS_S_VIRTUAL, DFS_T_F64, 16, 0, true},
	{"end_time", DFS_S_VIRTUAL, DFS_T_F64, 24, 0, true},
	{"pthread_id", DFS_S_VIRTUAL, DFS_T_U64, 32, 0, true},
};

static void get_field(const unsigned char *rec, size_t len, size_t row,
                      size_t f, dfs_value *out)
{
	out->type = DFS_T_NONE;
	size_t n = (len - FIXED) / SEG;
	if (row >= n)
		return;
	int64_t w = get_i(rec + 88);
	bool write = (int64_t)row < w;
	const unsigned char *seg = rec + FIXED + SEG * row;
	switch (f) {
	case F_OP:
		out->type = DFS_T_STR;
		out->v.s.ptr = write ? "write" : "read";
		out->v.s.len = write ? 5 : 4;
		return;
	case F_SEGMENT:
		out->type = DFS_T_I64;
		out->v.i = write ? (int64_t)row : (int64_t)row - w;
		return;
	case F_START:
	case F_END:
		out->type = DFS_T_F64;
		out->v.d = dfs_load_f64(seg + fields[f].offset, false);
		return;
	case F_THREAD: {
		uint64_t t = dfs_load_u64(seg + 32, false);
		if (t != DFS_DXT_NO_THREAD) {
			out->type = DFS_T_U64;
			out->v.u = t;
		}
		return;
	}
	default:
		out->type = DFS_T_I64;
		out->v.i = get_i(seg + fields[f].offset);
		return;
	}
}

dfs_module dfs_module_dxt_posix = {
	.id = DFS_MOD_DXT_POSIX,
	.name = "DXT_POSIX",
	.dirname = "DXT_POSIX",
	.prefix = "DXT_",
	.version = 2,
	.record_size = 0,
	.fields = fields,
	.n_fields = F_NFIELDS,
	.decode = decode_posix,
	.row_count = row_count,
	.get_field = get_field,
};

dfs_module dfs_module_dxt_mpiio = {
	.id = DFS_MOD_DXT_MPIIO,
	.name = "DXT_MPIIO",
	.dirname = "DXT_MPIIO",
	.prefix = "DXT_",
	.version = 3,
	.record_size = 0,
	.fields = fields,
	.n_fields = F_NFIELDS,
	.decode = decode_mpiio,
	.row_count = row_count,
	.get_field = get_field,
};
