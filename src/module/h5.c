/* h5.c - the HDF5 modules: H5F (id 3, version 3, 80 bytes) and H5D (id 4,
 * version 2, 912 bytes).
 *
 * H5F v1 (40 bytes: OPENS, open/close timestamps) and v2 (56 bytes: OPENS,
 * four timestamps) gain -1 fills.  H5D v1 (904 bytes) lacks file_rec_id
 * (inserted as 0).  Upstream decides whether to swap H5D file_rec_id by the
 * H5F module version; that quirk is kept. */
#include "module/tables.h"
#include "util/bytes.h"

/* ---- H5F -------------------------------------------------------------- */

static int h5f_upgrade(const dfs_decode_in *in, const unsigned char *raw,
                       unsigned char *out)
{
	bool sw = in->swap;
	dfs_copy8(out, raw, sw);
	dfs_copy8(out + 8, raw + 8, sw);
	dfs_copy8(out + 16, raw + 16, sw);          /* OPENS */
	unsigned char *of = out + 40;
	switch (in->version) {
	case 3:
		dfs_copy8(out + 24, raw + 24, sw);
		dfs_copy8(out + 32, raw + 32, sw);
		for (int i = 0; i < 5; i++)
			dfs_copy8(of + 8 * i, raw + 40 + 8 * i, sw);
		return 1;
	case 2:
		for (int i = 0; i < 4; i++)
			dfs_copy8(of + 8 * i, raw + 24 + 8 * i, sw);
		break;
	case 1:
		dfs_copy8(of, raw + 24, sw);          /* OPEN -> OPEN_START */
		dfs_store_f64(of + 8, -1.0);          /* CLOSE_START */
		dfs_store_f64(of + 16, -1.0);         /* OPEN_END */
		dfs_copy8(of + 24, raw + 32, sw);     /* CLOSE -> CLOSE_END */
		break;
	}
	dfs_store_i64(out + 24, -1);                  /* FLUSHES */
	dfs_store_i64(out + 32, -1);                  /* USE_MPIIO */
	dfs_store_f64(of + 32, -1.0);                 /* F_META_TIME */
	return 1;
}

static int h5f_decode(const dfs_decode_in *in, dfs_records *out, dfs_error *err)
{
	static const size_t sizes[4] = {0, 40, 56, 80};
	return dfs_decode_fixed(in, out, sizes[in->version], h5f_upgrade, err);
}

static const dfs_field h5f_fields[] = {
	DFS_ID_FIELDS,
	DFS_H5F_INTS(DFS_INT_FIELD, 16)
	DFS_H5F_FLOATS(DFS_FLOAT_FIELD, 40)
};
_Static_assert(DFS_N_FIELDS(h5f_fields) == 2 + 3 + 5, "H5F fields");

const dfs_module dfs_module_h5f = {
	.id = DFS_MOD_H5F,
	.name = "H5F",
	.dirname = "H5F",
	.prefix = "H5F_",
	.version = 3,
	.record_size = 80,
	.n_int = 3,
	.n_float = 5,
	.int_names = dfs_h5f_int_names,
	.float_names = dfs_h5f_float_names,
	.int_offset = 16,
	.float_offset = 40,
	.description = dfs_h5f_description,
	.warnings = dfs_h5f_warnings,
	.decode = h5f_decode,
	.fields = h5f_fields,
	.n_fields = DFS_N_FIELDS(h5f_fields),
	.words_only = true,
};

/* ---- H5D -------------------------------------------------------------- */

#define H5D_NI 94
#define H5D_NF 17

static int h5d_upgrade(const dfs_decode_in *in, const unsigned char *raw,
                       unsigned char *out)
{
	bool sw = in->swap;
	dfs_copy8(out, raw, sw);
	dfs_copy8(out + 8, raw + 8, sw);
	const unsigned char *src = raw + 16;
	if (in->version == 2) {
		dfs_copy8(out + 16, raw + 16, sw && in->h5f_version >= 2);
		src = raw + 24;
	} else {
		dfs_store_u64(out + 16, 0);
	}
	for (int i = 0; i < H5D_NI + H5D_NF; i++)
		dfs_copy8(out + 24 + 8 * i, src + 8 * i, sw);
	return 1;
}

static int h5d_decode(const dfs_decode_in *in, dfs_records *out, dfs_error *err)
{
	return dfs_decode_fixed(in, out, in->version == 2 ? 912 : 904, h5d_upgrade, err);
}

static const dfs_field h5d_fields[] = {
	DFS_ID_FIELDS,
	DFS_H5D_INTS(DFS_INT_FIELD, 24)
	DFS_H5D_FLOATS(DFS_FLOAT_FIELD, 24 + 8 * H5D_NI)
	{"H5D_FILE_REC_ID", DFS_S_U64, DFS_T_U64, 16, 0, true},
};
_Static_assert(DFS_N_FIELDS(h5d_fields) == 2 + H5D_NI + H5D_NF + 1, "H5D fields");

const dfs_module dfs_module_h5d = {
	.id = DFS_MOD_H5D,
	.name = "H5D",
	.dirname = "H5D",
	.prefix = "H5D_",
	.version = 2,
	.record_size = 912,
	.n_int = H5D_NI,
	.n_float = H5D_NF,
	.int_names = dfs_h5d_int_names,
	.float_names = dfs_h5d_float_names,
	.int_offset = 24,
	.float_offset = 24 + 8 * H5D_NI,
	.description = dfs_h5d_description,
	.warnings = dfs_h5d_warnings,
	.decode = h5d_decode,
	.fields = h5d_fields,
	.n_fields = DFS_N_FIELDS(h5d_fields),
};
