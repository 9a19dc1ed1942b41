/* ids.c - sets of record ids, and the ids a set of records uses: what
 * decides which name-table entries a written selection keeps (whole_log.c,
 * export.c). */
#include <stdlib.h>
#include <string.h>

#include "util/bytes.h"
#include "writer/writer_int.h"

/* Fields that hold the record id of another record: their names are kept
 * with the records that refer to them. */
static const struct {
	int module;
	const char *field;
} id_refs[] = {
	{DFS_MOD_POSIX, "POSIX_RENAMED_FROM"},
	{DFS_MOD_H5D, "H5D_FILE_REC_ID"},
	{DFS_MOD_PNETCDF_VAR, "PNETCDF_VAR_FILE_REC_ID"},
};

bool dfs_writer_has_header_record(int id)
{
	return id == DFS_MOD_APMPI;
}

static size_t id_hash(uint64_t id, size_t mask)
{
	uint64_t x = id ^ (id >> 31);
	x *= 0x94d049bb133111ebULL;
	return (size_t)(x ^ (x >> 29)) & mask;
}

int dfs_id_set_init(struct dfs_id_set *s, size_t expected, dfs_error *err)
{
	size_t cap = 64;
	while (cap < 2 * expected + 16)
		cap *= 2;
	s->slot = calloc(cap, sizeof(*s->slot));
	s->mask = cap - 1;
	s->zero = false;
	if (!s->slot)
		return dfs_error_nomem(err);
	return 0;
}

void dfs_id_set_free(struct dfs_id_set *s)
{
	free(s->slot);
	s->slot = NULL;
}

void dfs_id_set_add(struct dfs_id_set *s, uint64_t id)
{
	if (id == 0) {
		s->zero = true;
		return;
	}
	size_t i = id_hash(id, s->mask);
	while (s->slot[i] && s->slot[i] != id)
		i = (i + 1) & s->mask;
	s->slot[i] = id;
}

bool dfs_id_set_has(const struct dfs_id_set *s, uint64_t id)
{
	if (id == 0)
		return s->zero;
	for (size_t i = id_hash(id, s->mask); s->slot[i]; i = (i + 1) & s->mask)
		if (s->slot[i] == id)
			return true;
	return false;
}

void dfs_id_set_add_records(struct dfs_id_set *set, const dfs_records *r,
                            const size_t *index, size_t count, int id)
{
	uint32_t ref_off[sizeof(id_refs) / sizeof(id_refs[0])];
	size_t nrefs = 0;
	const dfs_module *m = r->module;
	for (size_t i = 0; i < sizeof(id_refs) / sizeof(id_refs[0]); i++) {
		if (id_refs[i].module != id)
			continue;
		int f = dfs_module_field_index(m, id_refs[i].field, strlen(id_refs[i].field));
		if (f >= 0)
			ref_off[nrefs++] = m->fields[f].offset;
	}
	_Alignas(8) unsigned char scratch[DFS_RECORD_MAX];
	for (size_t k = 0; k < count; k++) {
		const unsigned char *rec = dfs_record_get(r, index ? index[k] : k, scratch);
		dfs_id_set_add(set, dfs_record_id(rec));
		for (size_t q = 0; q < nrefs; q++) {
			uint64_t ref = dfs_load_u64(rec + ref_off[q], false);
			if (ref)
				dfs_id_set_add(set, ref);
		}
	}
}
