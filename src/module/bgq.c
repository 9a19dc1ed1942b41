/* bgq.c - the BG/Q module (id 7, current version 2, 112 bytes): one record
 * per job describing the Blue Gene/Q partition.  Version 1 (120 bytes) has
 * 8 more bytes (an int and padding) after the base record. */
#include <string.h>

#include "module/tables.h"
#include "util/bytes.h"

#define NI 11
#define NF 1
#define INT_OFF 16
#define FLOAT_OFF (INT_OFF + 8 * NI)

static int upgrade(const dfs_decode_in *in, const unsigned char *raw,
                   unsigned char *out)
{
	bool sw = in->swap;
	dfs_copy8(out, raw, sw);
	dfs_copy8(out + 8, raw + 8, sw);
	const unsigned char *src = raw + (in->version == 1 ? 24 : 16);
	for (int i = 0; i < NI + NF; i++)
		dfs_copy8(out + 16 + 8 * i, src + 8 * i, sw);
	return 1;
}

static int decode(const dfs_decode_in *in, dfs_records *out, dfs_error *err)
{
	return dfs_decode_fixed(in, out, in->version == 1 ? 120 : 112, upgrade, err);
}

/* The BG/Q record has no name-table entry; darshan-parser names it. */
static void place(const dfs_names *nt, const unsigned char *rec,
                  dfs_record_place *out)
{
	const dfs_name *nm = nt->name(nt->owner, dfs_record_id(rec));
	out->has_name = nm != NULL;
	out->name = nm ? nm->str : "darshan-bgq-record";
	out->name_len = nm ? nm->len : strlen(out->name);
	int mt = nm ? nm->mount : -1;
	if (mt >= 0) {
		const dfs_mount *m = nt->mount(nt->owner, (size_t)mt);
		out->mount = m->path;
		out->mount_len = m->path_len;
		out->fs_type = m->type;
		out->fs_type_len = strlen(m->type);
	} else {
		out->mount = out->fs_type = "UNKNOWN";
		out->mount_len = out->fs_type_len = 7;
	}
}

static const dfs_field bgq_fields[] = {
	DFS_ID_FIELDS,
	DFS_BGQ_INTS(DFS_INT_FIELD, INT_OFF)
	DFS_BGQ_FLOATS(DFS_FLOAT_FIELD, FLOAT_OFF)
};
_Static_assert(DFS_N_FIELDS(bgq_fields) == 2 + NI + NF, "BG/Q fields");

const dfs_module dfs_module_bgq = {
	.id = DFS_MOD_BGQ,
	.name = "BG/Q",
	.dirname = "BGQ",
	.prefix = "BGQ_",
	.version = 2,
	.record_size = 112,
	.n_int = NI,
	.n_float = NF,
	.int_names = dfs_bgq_int_names,
	.float_names = dfs_bgq_float_names,
	.int_offset = INT_OFF,
	.float_offset = FLOAT_OFF,
	.description = dfs_bgq_description,
	.warnings = dfs_bgq_warnings,
	.decode = decode,
	.place = place,
	.fields = bgq_fields,
	.n_fields = DFS_N_FIELDS(bgq_fields),
};
