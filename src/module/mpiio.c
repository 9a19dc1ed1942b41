/* mpiio.c - the MPI-IO module (id 2, current version 3, 560 bytes).
 * Versions 1 and 2 (544 bytes) lack F_CLOSE_START_TIMESTAMP and
 * F_OPEN_END_TIMESTAMP, inserted as -1.0 at float positions 3 and 4. */
#include "module/tables.h"
#include "util/bytes.h"

#define NI 51
#define NF 17
#define INT_OFF 16
#define FLOAT_OFF (INT_OFF + 8 * NI)

static int upgrade(const dfs_decode_in *in, const unsigned char *raw,
                   unsigned char *out)
{
	bool sw = in->swap;
	for (int i = 0; i < 2 + NI; i++)
		dfs_copy8(out + 8 * i, raw + 8 * i, sw);
	const unsigned char *fl = raw + FLOAT_OFF;
	unsigned char *of = out + FLOAT_OFF;
	if (in->version == 3) {
		for (int i = 0; i < NF; i++)
			dfs_copy8(of + 8 * i, fl + 8 * i, sw);
		return 1;
	}
	dfs_copy8(of, fl, sw);              /* OPEN -> OPEN_START */
	dfs_copy8(of + 8, fl + 8, sw);      /* READ_START */
	dfs_copy8(of + 16, fl + 16, sw);    /* WRITE_START */
	dfs_store_f64(of + 24, -1.0);       /* CLOSE_START */
	dfs_store_f64(of + 32, -1.0);       /* OPEN_END */
	for (int i = 5; i < NF; i++)        /* READ_END .. VARIANCE */
		dfs_copy8(of + 8 * i, fl + 8 * (i - 2), sw);
	return 1;
}

static int decode(const dfs_decode_in *in, dfs_records *out, dfs_error *err)
{
	return dfs_decode_fixed(in, out, in->version == 3 ? 560 : 544, upgrade, err);
}

static const dfs_field mpiio_fields[] = {
	DFS_ID_FIELDS,
	DFS_MPIIO_INTS(DFS_INT_FIELD, INT_OFF)
	DFS_MPIIO_FLOATS(DFS_FLOAT_FIELD, FLOAT_OFF)
};
_Static_assert(DFS_N_FIELDS(mpiio_fields) == 2 + NI + NF, "MPI-IO fields");

const dfs_module dfs_module_mpiio = {
	.id = DFS_MOD_MPIIO,
	.name = "MPI-IO",
	.dirname = "MPI-IO",
	.prefix = "MPIIO_",
	.version = 3,
	.record_size = 560,
	.accumulator = true,
	.n_int = NI,
	.n_float = NF,
	.int_names = dfs_mpiio_int_names,
	.float_names = dfs_mpiio_float_names,
	.int_offset = INT_OFF,
	.float_offset = FLOAT_OFF,
	.description = dfs_mpiio_description,
	.warnings = dfs_mpiio_warnings,
	.decode = decode,
	.fields = mpiio_fields,
	.n_fields = DFS_N_FIELDS(mpiio_fields),
	.words_only = true,
};
