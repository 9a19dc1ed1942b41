/* pnetcdf.c - the PnetCDF modules: PNETCDF_FILE (id 5, version 3, 152
 * bytes) and PNETCDF_VAR (id 6, version 1, 1120 bytes).
 *
 * PNETCDF_FILE v1 (48 bytes) and v2 (64 bytes) have INDEP_OPENS and
 * COLL_OPENS and two or four timestamps.  Upgrading to v3 sums the two open
 * counters into PNETCDF_FILE_OPENS - on the raw file-order bytes, before
 * swapping, as upstream does - and fills the new counters with -1. */
#include "module/tables.h"
#include "util/bytes.h"

#define FILE_NI 9
#define FILE_NF 8

static int file_upgrade(const dfs_decode_in *in, const unsigned char *raw,
                        unsigned char *out)
{
	bool sw = in->swap;
	dfs_copy8(out, raw, sw);
	dfs_copy8(out + 8, raw + 8, sw);
	if (in->version == 3) {
		for (int i = 0; i < FILE_NI + FILE_NF; i++)
			dfs_copy8(out + 16 + 8 * i, raw + 16 + 8 * i, sw);
		return 1;
	}
	uint64_t sum = dfs_load_u64(raw + 16, false) + dfs_load_u64(raw + 24, false);
	for (int i = 0; i < FILE_NI; i++)
		dfs_store_i64(out + 16 + 8 * i, -1);
	dfs_store_u64(out + 24, sw ? __builtin_bswap64(sum) : sum); /* OPENS */
	/* v3 floats: OPEN_START CLOSE_START WAIT_START OPEN_END CLOSE_END
	 * WAIT_END META_TIME WAIT_TIME */
	unsigned char *of = out + 16 + 8 * FILE_NI;
	for (int i = 0; i < FILE_NF; i++)
		dfs_store_f64(of + 8 * i, -1.0);
	const unsigned char *fl = raw + 32;
	if (in->version == 2) {
		dfs_copy8(of, fl, sw);
		dfs_copy8(of + 8, fl + 8, sw);
		dfs_copy8(of + 24, fl + 16, sw);
		dfs_copy8(of + 32, fl + 24, sw);
	} else {
		/* v1: OPEN, CLOSE; the v1->v2 step fills CLOSE_START and
		 * OPEN_END with -1 */
		dfs_copy8(of, fl, sw);
		dfs_copy8(of + 32, fl + 8, sw);
	}
	return 1;
}

static int file_decode(const dfs_decode_in *in, dfs_records *out, dfs_error *err)
{
	static const size_t sizes[4] = {0, 48, 64, 152};
	return dfs_decode_fixed(in, out, sizes[in->version], file_upgrade, err);
}

static const dfs_field pnetcdf_file_fields[] = {
	DFS_ID_FIELDS,
	DFS_PNETCDF_FILE_INTS(DFS_INT_FIELD, 16)
	DFS_PNETCDF_FILE_FLOATS(DFS_FLOAT_FIELD, 16 + 8 * FILE_NI)
};
_Static_assert(DFS_N_FIELDS(pnetcdf_file_fields) == 2 + FILE_NI + FILE_NF,
               "PNETCDF_FILE fields");

const dfs_module dfs_module_pnetcdf_file = {
	.id = DFS_MOD_PNETCDF_FILE,
	.name = "PNETCDF_FILE",
	.dirname = "PNETCDF_FILE",
	.prefix = "PNETCDF_FILE_",
	.version = 3,
	.record_size = 152,
	.n_int = FILE_NI,
	.n_float = FILE_NF,
	.int_names = dfs_pnetcdf_file_int_names,
	.float_names = dfs_pnetcdf_file_float_names,
	.int_offset = 16,
	.float_offset = 16 + 8 * FILE_NI,
	.description = dfs_pnetcdf_file_description,
	.warnings = dfs_pnetcdf_file_warnings,
	.decode = file_decode,
	.fields = pnetcdf_file_fields,
	.n_fields = DFS_N_FIELDS(pnetcdf_file_fields),
	.words_only = true,
};

#define VAR_NI 120
#define VAR_NF 17

static int var_upgrade(const dfs_decode_in *in, const unsigned char *raw,
                       unsigned char *out)
{
	for (int i = 0; i < 1120 / 8; i++)
		dfs_copy8(out + 8 * i, raw + 8 * i, in->swap);
	return 1;
}

static int var_decode(const dfs_decode_in *in, dfs_records *out, dfs_error *err)
{
	return dfs_decode_fixed(in, out, 1120, var_upgrade, err);
}

static const dfs_field pnetcdf_var_fields[] = {
	DFS_ID_FIELDS,
	DFS_PNETCDF_VAR_INTS(DFS_INT_FIELD, 24)
	DFS_PNETCDF_VAR_FLOATS(DFS_FLOAT_FIELD, 24 + 8 * VAR_NI)
	{"PNETCDF_VAR_FILE_REC_ID", DFS_S_U64, DFS_T_U64, 16, 0, true},
};
_Static_assert(DFS_N_FIELDS(pnetcdf_var_fields) == 2 + VAR_NI + VAR_NF + 1,
               "PNETCDF_VAR fields");

const dfs_module dfs_module_pnetcdf_var = {
	.id = DFS_MOD_PNETCDF_VAR,
	.name = "PNETCDF_VAR",
	.dirname = "PNETCDF_VAR",
	.prefix = "PNETCDF_VAR_",
	.version = 1,
	.record_size = 1120,
	.n_int = VAR_NI,
	.n_float = VAR_NF,
	.int_names = dfs_pnetcdf_var_int_names,
	.float_names = dfs_pnetcdf_var_float_names,
	.int_offset = 24,
	.float_offset = 24 + 8 * VAR_NI,
	.description = dfs_pnetcdf_var_description,
	.warnings = dfs_pnetcdf_var_warnings,
	.decode = var_decode,
	.fields = pnetcdf_var_fields,
	.n_fields = DFS_N_FIELDS(pnetcdf_var_fields),
};
