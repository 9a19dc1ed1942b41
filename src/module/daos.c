/* daos.c - the DAOS modules: DFS (id 16, 584 bytes) and DAOS (id 17, 696
 * bytes), both version 1.
 *
 * Records carry the pool and container uuids (and, for DAOS, the object
 * id).  darshan-parser shows "<pool>:<container>" in the mount column and
 * N/A as fs type; DAOS shows "<oid_hi>.<oid_lo>" as the name.  In
 * byte-swapped logs upstream reverses each 16-byte uuid as a whole. */
#include <string.h>

#include "util/format.h"
#include "module/tables.h"
#include "util/bytes.h"

#define DFS_NI 52
#define DFS_NF 15
#define DAOS_NI 64
#define DAOS_NF 15

static void copy_uuid(unsigned char *dst, const unsigned char *src, bool sw)
{
	for (int i = 0; i < 16; i++)
		dst[i] = sw ? src[15 - i] : src[i];
}

static int dfs_upgrade(const dfs_decode_in *in, const unsigned char *raw,
                       unsigned char *out)
{
	for (int i = 0; i < 2 + DFS_NI + DFS_NF; i++)
		dfs_copy8(out + 8 * i, raw + 8 * i, in->swap);
	copy_uuid(out + 552, raw + 552, in->swap);
	copy_uuid(out + 568, raw + 568, in->swap);
	return 1;
}

static int daos_upgrade(const dfs_decode_in *in, const unsigned char *raw,
                        unsigned char *out)
{
	for (int i = 0; i < 2 + DAOS_NI + DAOS_NF; i++)
		dfs_copy8(out + 8 * i, raw + 8 * i, in->swap);
	copy_uuid(out + 648, raw + 648, in->swap);
	copy_uuid(out + 664, raw + 664, in->swap);
	dfs_copy8(out + 680, raw + 680, in->swap);
	dfs_copy8(out + 688, raw + 688, in->swap);
	return 1;
}

static int dfs_decode(const dfs_decode_in *in, dfs_records *out, dfs_error *err)
{
	return dfs_decode_fixed(in, out, 584, dfs_upgrade, err);
}

static int daos_decode(const dfs_decode_in *in, dfs_records *out, dfs_error *err)
{
	return dfs_decode_fixed(in, out, 696, daos_upgrade, err);
}

static bool all_zero(const unsigned char *p)
{
	for (int i = 0; i < 16; i++)
		if (p[i])
			return false;
	return true;
}

/* "<pool uuid>:<container uuid>" into scratch, after `used` bytes */
static void uuid_pair(dfs_record_place *out, size_t used,
                      const unsigned char *pool, const unsigned char *cont)
{
	char *s = out->scratch + used;
	size_t n = dfs_format_uuid(s, pool);
	s[n++] = ':';
	n += dfs_format_uuid(s + n, cont);
	out->mount = s;
	out->mount_len = n;
	out->fs_type = "N/A";
	out->fs_type_len = 3;
}

static void dfs_place(const dfs_names *nt, const unsigned char *rec,
                      dfs_record_place *out)
{
	const dfs_name *nm = nt->name(nt->owner, dfs_record_id(rec));
	out->has_name = nm != NULL;
	out->name = nm ? nm->str : "(null)";
	out->name_len = nm ? nm->len : 6;
	if (all_zero(rec + 552) || all_zero(rec + 568)) {
		out->mount = "UNKNOWN";
		out->mount_len = 7;
		out->fs_type = "N/A";
		out->fs_type_len = 3;
		return;
	}
	uuid_pair(out, 0, rec + 552, rec + 568);
}

static void daos_place(const dfs_names *nt, const unsigned char *rec,
                       dfs_record_place *out)
{
	out->has_name = nt->name(nt->owner, dfs_record_id(rec)) != NULL;
	size_t n = dfs_fmt_u64(out->scratch, dfs_load_u64(rec + 680, false));
	out->scratch[n++] = '.';
	n += dfs_fmt_u64(out->scratch + n, dfs_load_u64(rec + 688, false));
	out->scratch[n++] = '\0';
	out->name = out->scratch;
	out->name_len = n - 1;
	uuid_pair(out, n, rec + 648, rec + 664);
}

static const dfs_field dfs_fields[] = {
	DFS_ID_FIELDS,
	{"pool_uuid", DFS_S_UUID, DFS_T_STR, 552, 16, false},
	{"cont_uuid", DFS_S_UUID, DFS_T_STR, 568, 16, false},
	DFS_DFS_INTS(DFS_INT_FIELD, 16)
	DFS_DFS_FLOATS(DFS_FLOAT_FIELD, 16 + 8 * DFS_NI)
};
_Static_assert(DFS_N_FIELDS(dfs_fields) == 2 + 2 + DFS_NI + DFS_NF, "DFS fields");

const dfs_module dfs_module_dfs = {
	.id = DFS_MOD_DFS,
	.name = "DFS",
	.dirname = "DFS",
	.prefix = "DFS_",
	.version = 1,
	.record_size = 584,
	.accumulator = true,
	.n_int = DFS_NI,
	.n_float = DFS_NF,
	.int_names = dfs_dfs_int_names,
	.float_names = dfs_dfs_float_names,
	.int_offset = 16,
	.float_offset = 16 + 8 * DFS_NI,
	.description = dfs_dfs_description,
	.warnings = dfs_dfs_warnings,
	.decode = dfs_decode,
	.place = dfs_place,
	.fields = dfs_fields,
	.n_fields = DFS_N_FIELDS(dfs_fields),
};

static const dfs_field daos_fields[] = {
	DFS_ID_FIELDS,
	{"pool_uuid", DFS_S_UUID, DFS_T_STR, 648, 16, false},
	{"cont_uuid", DFS_S_UUID, DFS_T_STR, 664, 16, false},
	{"oid_hi", DFS_S_U64, DFS_T_U64, 680, 0, false},
	{"oid_lo", DFS_S_U64, DFS_T_U64, 688, 0, false},
	DFS_DAOS_INTS(DFS_INT_FIELD, 16)
	DFS_DAOS_FLOATS(DFS_FLOAT_FIELD, 16 + 8 * DAOS_NI)
};
_Static_assert(DFS_N_FIELDS(daos_fields) == 2 + 4 + DAOS_NI + DAOS_NF, "DAOS fields");

const dfs_module dfs_module_daos = {
	.id = DFS_MOD_DAOS,
	.name = "DAOS",
	.dirname = "DAOS",
	.prefix = "DAOS_",
	.version = 1,
	.record_size = 696,
	.accumulator = true,
	.n_int = DAOS_NI,
	.n_float = DAOS_NF,
	.int_names = dfs_daos_int_names,
	.float_names = dfs_daos_float_names,
	.int_offset = 16,
	.float_offset = 16 + 8 * DAOS_NI,
	.description = dfs_daos_description,
	.warnings = dfs_daos_warnings,
	.decode = daos_decode,
	.place = daos_place,
	.fields = daos_fields,
	.n_fields = DFS_N_FIELDS(daos_fields),
};
