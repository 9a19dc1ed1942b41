/* stdio.c - the STDIO module (id 9, current version 2, 248 bytes).
 * Version 1 (240 bytes) lacks STDIO_FDOPENS, inserted as -1. */
#include "module/tables.h"
#include "util/bytes.h"

#define NI 14
#define NF 15
#define INT_OFF 16
#define FLOAT_OFF (INT_OFF + 8 * NI)

static int upgrade(const dfs_decode_in *in, const unsigned char *raw,
                   unsigned char *out)
{
	bool sw = in->swap;
	if (in->version == 2) {
		for (int i = 0; i < 2 + NI + NF; i++)
			dfs_copy8(out + 8 * i, raw + 8 * i, sw);
		return 1;
	}
	dfs_copy8(out, raw, sw);
	dfs_copy8(out + 8, raw + 8, sw);
	dfs_copy8(out + 16, raw + 16, sw);        /* OPENS */
	dfs_store_i64(out + 24, -1);              /* FDOPENS */
	for (int i = 2; i < NI + NF; i++)
		dfs_copy8(out + 16 + 8 * i, raw + 16 + 8 * (i - 1), sw);
	return 1;
}

static int decode(const dfs_decode_in *in, dfs_records *out, dfs_error *err)
{
	return dfs_decode_fixed(in, out, in->version == 2 ? 248 : 240, upgrade, err);
}

static const dfs_field stdio_fields[] = {
	DFS_ID_FIELDS,
	DFS_STDIO_INTS(DFS_INT_FIELD, INT_OFF)
	DFS_STDIO_FLOATS(DFS_FLOAT_FIELD, FLOAT_OFF)
};
_Static_assert(DFS_N_FIELDS(stdio_fields) == 2 + NI + NF, "STDIO fields");

const dfs_module dfs_module_stdio = {
	.id = DFS_MOD_STDIO,
	.name = "STDIO",
	.dirname = "STDIO",
	.prefix = "STDIO_",
	.version = 2,
	.record_size = 248,
	.accumulator = true,
	.n_int = NI,
	.n_float = NF,
	.int_names = dfs_stdio_int_names,
	.float_names = dfs_stdio_float_names,
	.int_offset = INT_OFF,
	.float_offset = FLOAT_OFF,
	.description = dfs_stdio_description,
	.warnings = dfs_stdio_warnings,
	.decode = decode,
	.fields = stdio_fields,
	.n_fields = DFS_N_FIELDS(stdio_fields),
	.words_only = true,
};
