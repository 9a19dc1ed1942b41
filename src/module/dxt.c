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
 * gets one row).  A filter selects segments (dfs_dxt_trim): a selected
 * record then holds only its matching segments, followed by each one's
 * number within its op in the log's record and then the log's record's
 * write and read counts (a trailer of i64s, which dfs_dxt_plain_size
 * leaves out), so that `segment`, `write_count` and `read_count` still
 * show the log's. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "darshanfs/log.h"
#include "module/tables.h"
#include "util/bytes.h"

#define FIXED 104
#define SEG 40
#define DFS_DXT_NO_THREAD UINT64_MAX

static int64_t get_i(const unsigned char *p) { return dfs_load_i64(p, false); }

/* The segments of the stored record at pos (*n), or false when no whole
 * record starts there: the end of the data (a partial last record) */
static bool stored_record(const dfs_decode_in *in, size_t pos, size_t seg_in,
                          size_t *n)
{
	const unsigned char *d = in->data;
	size_t len = in->len;
	if (len - pos < FIXED)
		return false;
	int64_t w = dfs_load_i64(d + pos + 88, in->swap);
	int64_t r = dfs_load_i64(d + pos + 96, in->swap);
	if (w < 0 || r < 0 || (uint64_t)w > (len - pos - FIXED) / seg_in ||
	    (uint64_t)r > (len - pos - FIXED) / seg_in - (uint64_t)w)
		return false;
	*n = (size_t)(w + r);
	return true;
}

static int decode_common(const dfs_decode_in *in, dfs_records *out,
                         size_t seg_in, bool invalid_offsets, dfs_error *err)
{
	const unsigned char *d = in->data;
	size_t pos = 0, n;
	bool sw = in->swap;
	/* the size of the records decoded, from their headers, reserved at
	 * once: grown by doubling, megabytes of trace would be copied over
	 * and over into fresh memory */
	size_t total = 0;
	for (size_t p = 0; stored_record(in, p, seg_in, &n); p += FIXED + seg_in * n)
		total += FIXED + SEG * n;
	if (dfs_records_reserve(out, total))
		return dfs_error_nomem(err);
	while (stored_record(in, pos, seg_in, &n)) {
		unsigned char *rec = dfs_records_append(out, FIXED + SEG * n);
		if (!rec)
			return dfs_error_nomem(err);
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

/* The segments of a record: write_count + read_count (the decoder made
 * them agree with its length; a trimmed record has its trailer after). */
static size_t segments(const unsigned char *rec, size_t len)
{
	int64_t w = get_i(rec + 88), r = get_i(rec + 96);
	size_t most = (len - FIXED) / SEG;
	if (w < 0 || r < 0 || (uint64_t)w > most || (uint64_t)r > most - (uint64_t)w)
		return most;
	return (size_t)(w + r);
}

/* A trimmed record's trailer: the numbers of its n segments, then the
 * write and read counts of the log's record. */
static bool trimmed(size_t len, size_t n)
{
	return len >= FIXED + (SEG + 8) * n + 16;
}

/* The number of segment `row` within its op in the log's record. */
static int64_t segment_number(const unsigned char *rec, size_t len, size_t row,
                              size_t n, int64_t w)
{
	if (trimmed(len, n))
		return get_i(rec + FIXED + SEG * n + 8 * row);
	return (int64_t)row < w ? (int64_t)row : (int64_t)row - w;
}

/* write_count (k = 0) or read_count (1) of the log's record */
static int64_t log_count(const unsigned char *rec, size_t len, int k)
{
	size_t n = segments(rec, len);
	if (trimmed(len, n))
		return get_i(rec + FIXED + (SEG + 8) * n + 8 * k);
	return get_i(rec + 88 + 8 * k);
}

static size_t row_count(const unsigned char *rec, size_t len)
{
	size_t n = segments(rec, len);
	return n ? n : 1;
}

size_t dfs_dxt_plain_size(const unsigned char *rec, size_t len)
{
	return FIXED + SEG * segments(rec, len);
}

int dfs_dxt_trim(const unsigned char *rec, size_t len, const bool *keep,
                 dfs_records *out)
{
	size_t n = segments(rec, len), kept = 0, w = 0;
	int64_t wc = get_i(rec + 88);
	for (size_t k = 0; k < n; k++)
		if (keep[k]) {
			kept++;
			w += (int64_t)k < wc;
		}
	unsigned char *d = dfs_records_append(out, FIXED + (SEG + 8) * kept + 16);
	if (!d)
		return -1;
	memcpy(d, rec, FIXED);
	dfs_store_i64(d + 88, (int64_t)w);
	dfs_store_i64(d + 96, (int64_t)(kept - w));
	unsigned char *seg = d + FIXED, *num = d + FIXED + SEG * kept;
	for (size_t k = 0; k < n; k++) {
		if (!keep[k])
			continue;
		memcpy(seg, rec + FIXED + SEG * k, SEG);
		dfs_store_i64(num, segment_number(rec, len, k, n, wc));
		seg += SEG;
		num += 8;
	}
	dfs_store_i64(num, log_count(rec, len, 0));
	dfs_store_i64(num + 8, log_count(rec, len, 1));
	return 0;
}

enum {
	F_ID, F_RANK, F_HOST, F_SHARED, F_WCOUNT, F_RCOUNT, F_OP, F_SEGMENT,
	F_OFFSET, F_LENGTH, F_START, F_END, F_THREAD, F_OST, F_NFIELDS
};

/* DXT_MPIIO has all of them but `ost` */
static const dfs_field fields[F_NFIELDS] = {
	{"record_id", DFS_S_U64, DFS_T_U64, 0, 0, false},
	{"rank", DFS_S_I64, DFS_T_I64, 8, 0, false},
	{"hostname", DFS_S_TEXT, DFS_T_STR, 24, 64, false},
	{"shared_record", DFS_S_I64, DFS_T_I64, 16, 0, false},
	{"write_count", DFS_S_VIRTUAL, DFS_T_I64, 88, 0, true},
	{"read_count", DFS_S_VIRTUAL, DFS_T_I64, 96, 0, true},
	{"op", DFS_S_VIRTUAL, DFS_T_STR, 0, 0, false},
	{"segment", DFS_S_VIRTUAL, DFS_T_I64, 0, 0, false},
	{"offset", DFS_S_VIRTUAL, DFS_T_I64, 0, 0, true},
	{"length", DFS_S_VIRTUAL, DFS_T_I64, 8, 0, true},
	{"start_time", DFS_S_VIRTUAL, DFS_T_F64, 16, 0, true},
	{"end_time", DFS_S_VIRTUAL, DFS_T_F64, 24, 0, true},
	{"pthread_id", DFS_S_VIRTUAL, DFS_T_U64, 32, 0, true},
	{"ost", DFS_S_VIRTUAL, DFS_T_STR, 0, 0, false},
};

static void get_field(const unsigned char *rec, size_t len, size_t row,
                      size_t f, dfs_value *out)
{
	out->type = DFS_T_NONE;
	if (f == F_WCOUNT || f == F_RCOUNT) {
		/* the log's counts, also in a record cut to some segments */
		out->type = DFS_T_I64;
		out->v.i = log_count(rec, len, f == F_RCOUNT);
		return;
	}
	size_t n = segments(rec, len);
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
		out->v.i = segment_number(rec, len, row, n, w);
		return;
	case F_START:
	case F_END:
		out->type = DFS_T_F64;
		out->v.d = dfs_load_f64(seg + fields[f].offset, false);
		return;
	case F_OST:
		return;   /* (get_log_field) */
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

/* ---- the OSTs of a POSIX segment ------------------------------------------------
 *
 * On Lustre, darshan-dxt-parser lists after each POSIX segment the OSTs
 * its bytes lie on, from the LUSTRE record with the same record id: in
 * each component (extent [start, end), end -1 for EOF; components with no
 * stripes skipped) that holds the current offset, the OST of the stripe
 * there, then of each next stripe boundary, while the segment goes on and
 * the component holds it.  Its count of OSTs listed is not reset between
 * components: once it reaches the stripe count of the component at hand,
 * the listing jumps to that component's end (quirk, reproduced). */

#define LUSTRE_FIXED 32
#define LUSTRE_COMP 72

struct ost_list {
	char *text;
	size_t len, cap;
};

static void ost_add(struct ost_list *o, int64_t id)
{
	char num[24];
	int n = snprintf(num, sizeof(num), "%s%" PRId64, o->len ? " " : "", id);
	if (n > 0 && o->len + (size_t)n < o->cap) {
		memcpy(o->text + o->len, num, (size_t)n);
		o->len += (size_t)n;
	}
}

static void list_osts(const unsigned char *lus, size_t llen, int64_t offset,
                      int64_t length, struct ost_list *o)
{
	int64_t nc = get_i(lus + 16), ns = get_i(lus + 24);
	if (nc < 0 || ns < 0 || (uint64_t)nc > (llen - LUSTRE_FIXED) / LUSTRE_COMP ||
	    (uint64_t)ns > (llen - LUSTRE_FIXED - LUSTRE_COMP * (size_t)nc) / 8)
		return;
	const unsigned char *ids = lus + LUSTRE_FIXED + LUSTRE_COMP * (size_t)nc;
	int64_t cur = offset, end_of_seg, listed = 0, base = 0;
	/* (a damaged record's numbers must not overflow, nor loop for long:
	 * a log's components list their stripes' OSTs, ns in all, so no
	 * sound record lists more than ns + nc of them) */
	if (__builtin_add_overflow(offset, length, &end_of_seg))
		end_of_seg = INT64_MAX;
	for (int64_t c = 0; c < nc; c++) {
		const unsigned char *cp = lus + LUSTRE_FIXED + LUSTRE_COMP * (size_t)c;
		int64_t size = get_i(cp), count = get_i(cp + 8);
		int64_t start = get_i(cp + 32), end = get_i(cp + 40);
		if (count == 0)
			continue;
		bool eof = end == -1;
		int64_t rel;
		if (size > 0 && count > 0 && cur >= start && (eof || cur < end) &&
		    !__builtin_sub_overflow(cur, start, &rel)) {
			int64_t k = (rel / size) % count;
			while (cur < end_of_seg && (eof || cur < end)) {
				if (base + k < ns)
					ost_add(o, get_i(ids + 8 * (size_t)(base + k)));
				k = k == count - 1 ? 0 : k + 1;
				if (__builtin_mul_overflow(rel / size + 1, size, &rel) ||
				    __builtin_add_overflow(start, rel, &cur))
					return;
				if (++listed >= count) {
					cur = eof ? end_of_seg : end;
					break;
				}
				if (listed > ns + nc)
					return;
			}
		}
		if (count > 0 && __builtin_add_overflow(base, count, &base))
			return;
	}
}

/* ost, which needs the log's LUSTRE records; the rest as get_field */
static void get_log_field(const dfs_names *nt, const unsigned char *rec,
                          size_t len, size_t row, size_t f, dfs_value *out)
{
	if (f != F_OST) {
		get_field(rec, len, row, f, out);
		return;
	}
	out->type = DFS_T_NONE;
	size_t n = segments(rec, len), llen;
	const unsigned char *lus;
	if (row >= n || !nt || !(lus = nt->lustre(nt->owner, dfs_load_u64(rec, false),
	                                          &llen)))
		return;
	const unsigned char *seg = rec + FIXED + SEG * row;
	/* the list is the value's own text */
	struct ost_list o = {out->scratch, 0, sizeof(out->scratch)};
	list_osts(lus, llen, get_i(seg), get_i(seg + 8), &o);
	out->type = DFS_T_STR;
	out->v.s.ptr = out->scratch;
	out->v.s.len = o.len;
}

const dfs_module dfs_module_dxt_posix = {
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
	.get_log_field = get_log_field,
	.row_select = true,
};

const dfs_module dfs_module_dxt_mpiio = {
	.id = DFS_MOD_DXT_MPIIO,
	.name = "DXT_MPIIO",
	.dirname = "DXT_MPIIO",
	.prefix = "DXT_",
	.version = 3,
	.record_size = 0,
	.fields = fields,
	.n_fields = F_OST,
	.decode = decode_mpiio,
	.row_count = row_count,
	.get_field = get_field,
	.row_select = true,
};
