/* posix.c - the POSIX module (id 1, current version 4, 704 bytes).
 *
 * Upgrades of stored versions 1..3 follow darshan-util, including its
 * quirks: v1 records with stdio counters (FOPENS > 0, tested on the raw
 * bytes) are dropped; the v3->v4 shift loses the trailing float counters of
 * v2/v3 records (read as 0); and in byte-swapped logs of versions < 4 the
 * floats F_META_TIME, F_MAX_READ_TIME and F_MAX_WRITE_TIME stay unswapped. */
#include <string.h>

#include "module/tables.h"
#include "util/bytes.h"

#define NI 69
#define NF 17
#define INT_OFF 16
#define FLOAT_OFF (INT_OFF + 8 * NI)

static void put_i(unsigned char *out, int idx, int64_t v)
{
	dfs_store_i64(out + INT_OFF + 8 * idx, v);
}

static void put_f(unsigned char *out, int idx, double v)
{
	dfs_store_f64(out + FLOAT_OFF + 8 * idx, v);
}

static void copy_i(unsigned char *out, int idx, const unsigned char *src, bool sw)
{
	dfs_copy8(out + INT_OFF + 8 * idx, src, sw);
}

static void copy_f(unsigned char *out, int idx, const unsigned char *src, bool sw)
{
	dfs_copy8(out + FLOAT_OFF + 8 * idx, src, sw);
}

static int upgrade(const dfs_decode_in *in, const unsigned char *raw,
                   unsigned char *out)
{
	bool sw = in->swap;
	uint32_t v = in->version;
	dfs_copy8(out, raw, sw);
	dfs_copy8(out + 8, raw + 8, sw);
	if (v == 4) {
		for (int i = 0; i < NI + NF; i++)
			dfs_copy8(out + 16 + 8 * i, raw + 16 + 8 * i, sw);
		return 1;
	}

	/* integer counters of v1 (68, with 4 stdio counters at 6..9) and
	 * v2/v3 (64): OPENS READS WRITES SEEKS STATS MMAPS FSYNCS FDSYNCS MODE
	 * then BYTES_READ .. SLOWEST_RANK_BYTES (current 14..68) */
	const unsigned char *ints = raw + 16;
	int nints = 64;
	if (v == 1) {
		int64_t fopens;
		memcpy(&fopens, ints + 8 * 6, 8); /* compared unswapped (upstream) */
		if (fopens > 0)
			return 0;
		nints = 68;
	}
	int src = 0;
	copy_i(out, 0, ints + 8 * src++, sw);                 /* OPENS */
	put_i(out, 1, -1);                                    /* FILENOS */
	put_i(out, 2, -1);                                    /* DUPS */
	for (int i = 3; i <= 7; i++)                          /* READS..MMAPS */
		copy_i(out, i, ints + 8 * src++, sw);
	if (v == 1)
		src += 4;                                     /* FOPENS..FSEEKS */
	copy_i(out, 8, ints + 8 * src++, sw);                 /* FSYNCS */
	copy_i(out, 9, ints + 8 * src++, sw);                 /* FDSYNCS */
	put_i(out, 10, -1);                                   /* RENAME_SOURCES */
	put_i(out, 11, -1);                                   /* RENAME_TARGETS */
	put_i(out, 12, 0);                                    /* RENAMED_FROM */
	copy_i(out, 13, ints + 8 * src++, sw);                /* MODE */
	for (int i = 14; i < NI; i++)
		copy_i(out, i, ints + 8 * src++, sw);
	(void)nints;

	const unsigned char *fl = raw + 16 + 8 * (v == 1 ? 68 : 64);
	if (v == 3) {
		for (int i = 0; i < NF; i++)
			copy_f(out, i, fl + 8 * i, sw);
		/* lost in the v3->v4 shift */
		put_f(out, 15, 0.0);
		put_f(out, 16, 0.0);
	} else {
		/* 15 floats: OPEN, READ_START, WRITE_START, READ_END, WRITE_END,
		 * CLOSE, READ_TIME .. VARIANCE_RANK_BYTES */
		copy_f(out, 0, fl, sw);
		copy_f(out, 1, fl + 8, sw);
		copy_f(out, 2, fl + 16, sw);
		put_f(out, 3, -1.0);
		put_f(out, 4, -1.0);
		copy_f(out, 5, fl + 24, sw);
		copy_f(out, 6, fl + 32, sw);
		copy_f(out, 7, fl + 40, sw);
		for (int i = 8; i < NF; i++)
			copy_f(out, i, fl + 8 * (i - 2), sw);
		if (v == 2)
			for (int i = 13; i < NF; i++)
				put_f(out, i, 0.0);
	}
	if (sw) {
		/* upstream leaves these three unswapped for versions < 4 */
		for (int i = 10; i <= 12; i++) {
			unsigned char *p = out + FLOAT_OFF + 8 * i;
			dfs_store_u64(p, __builtin_bswap64(dfs_load_u64(p, false)));
		}
	}
	return 1;
}

static int decode(const dfs_decode_in *in, dfs_records *out, dfs_error *err)
{
	static const size_t sizes[5] = {0, 680, 648, 664, 704};
	if (in->version < 1 || in->version > 4)
		return dfs_error_set(err, DFS_ERR_UNSUPPORTED, "version %u", in->version);
	return dfs_decode_fixed(in, out, sizes[in->version], upgrade, err);
}

/* POSIX_RENAMED_FROM (integer 12) is a record id: shown unsigned */
#define POSIX_INT(base, i, n)                                         \
	{n, (i) == 12 ? DFS_S_U64 : DFS_S_I64,                        \
	 (i) == 12 ? DFS_T_U64 : DFS_T_I64, (base) + 8 * (i), 0, true},

static const dfs_field posix_fields[] = {
	DFS_ID_FIELDS,
	DFS_POSIX_INTS(POSIX_INT, INT_OFF)
	DFS_POSIX_FLOATS(DFS_FLOAT_FIELD, FLOAT_OFF)
};
_Static_assert(DFS_N_FIELDS(posix_fields) == 2 + NI + NF, "POSIX fields");

const dfs_module dfs_module_posix = {
	.id = DFS_MOD_POSIX,
	.name = "POSIX",
	.dirname = "POSIX",
	.prefix = "POSIX_",
	.version = 4,
	.record_size = 704,
	.accumulator = true,
	.n_int = NI,
	.n_float = NF,
	.int_names = dfs_posix_int_names,
	.float_names = dfs_posix_float_names,
	.int_offset = INT_OFF,
	.float_offset = FLOAT_OFF,
	.description = dfs_posix_description,
	.warnings = dfs_posix_warnings,
	.decode = decode,
	.fields = posix_fields,
	.n_fields = DFS_N_FIELDS(posix_fields),
	.words_only = true,
};
