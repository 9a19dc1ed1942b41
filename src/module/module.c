/* module.c - the module table, record containers, and the generic parts of
 * decoding and field access shared by all modules. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/format.h"
#include "darshanfs/module.h"
#include "util/scratch.h"
#include "util/slab.h"
#include "module/tables.h"
#include "util/bytes.h"

static const dfs_module *const table[DFS_MOD_KNOWN] = {
	[DFS_MOD_POSIX] = &dfs_module_posix,
	[DFS_MOD_MPIIO] = &dfs_module_mpiio,
	[DFS_MOD_H5F] = &dfs_module_h5f,
	[DFS_MOD_H5D] = &dfs_module_h5d,
	[DFS_MOD_PNETCDF_FILE] = &dfs_module_pnetcdf_file,
	[DFS_MOD_PNETCDF_VAR] = &dfs_module_pnetcdf_var,
	[DFS_MOD_BGQ] = &dfs_module_bgq,
	[DFS_MOD_LUSTRE] = &dfs_module_lustre,
	[DFS_MOD_STDIO] = &dfs_module_stdio,
	[DFS_MOD_DXT_POSIX] = &dfs_module_dxt_posix,
	[DFS_MOD_DXT_MPIIO] = &dfs_module_dxt_mpiio,
	[DFS_MOD_MDHIM] = &dfs_module_mdhim,
	[DFS_MOD_APMPI] = &dfs_module_apmpi,
	[DFS_MOD_HEATMAP] = &dfs_module_heatmap,
	[DFS_MOD_DFS] = &dfs_module_dfs,
	[DFS_MOD_DAOS] = &dfs_module_daos,
};

static const char *const slot_names[DFS_MOD_KNOWN] = {
	"NULL", "POSIX", "MPI-IO", "H5F", "H5D", "PNETCDF_FILE", "PNETCDF_VAR",
	"BG/Q", "LUSTRE", "STDIO", "DXT_POSIX", "DXT_MPIIO", "MDHIM", "APXC",
	"APMPI", "HEATMAP", "DFS", "DAOS",
};

const dfs_module *dfs_module_get(int id)
{
	if (id < 0 || id >= DFS_MOD_KNOWN)
		return NULL;
	return table[id];
}

const char *dfs_module_slot_name(int id)
{
	if (id < 0 || id >= DFS_MOD_KNOWN)
		return "<UNKNOWN>";
	return slot_names[id];
}

const dfs_module *dfs_module_by_name(const char *name)
{
	for (int id = 0; id < DFS_MOD_KNOWN; id++) {
		const dfs_module *m = dfs_module_get(id);
		if (m && (strcmp(m->name, name) == 0 || strcmp(m->dirname, name) == 0))
			return m;
	}
	return NULL;
}

int dfs_module_field_index(const dfs_module *m, const char *name, size_t len)
{
	/* (asked for dozens of names per log by the summary: the first
	 * character rules out most fields before a comparison) */
	if (len == 0 || memchr(name, '\0', len))
		return -1;
	for (size_t i = 0; i < m->n_fields; i++) {
		const char *f = m->fields[i].name;
		if (f[0] == name[0] && strncmp(f, name, len) == 0 && f[len] == '\0')
			return (int)i;
	}
	/* counters may be named without the module prefix */
	size_t plen = strlen(m->prefix);
	for (size_t i = 0; i < m->n_fields; i++) {
		const char *f = m->fields[i].name;
		if (!m->fields[i].counter || strncmp(f, m->prefix, plen) != 0)
			continue;
		f += plen;
		if (f[0] == name[0] && strncmp(f, name, len) == 0 && f[len] == '\0')
			return (int)i;
	}
	return -1;
}

void dfs_module_get_log_value(const dfs_names *names, const dfs_module *m,
                              const unsigned char *rec, size_t len, size_t row,
                              size_t f, dfs_value *out)
{
	if (m->get_log_field && m->fields[f].storage == DFS_S_VIRTUAL)
		m->get_log_field(names, rec, len, row, f, out);
	else
		dfs_module_get_value(m, rec, len, row, f, out);
}

void dfs_module_get_value(const dfs_module *m, const unsigned char *rec,
                          size_t len, size_t row, size_t f, dfs_value *out)
{
	const dfs_field *fd = &m->fields[f];
	switch (fd->storage) {
	case DFS_S_I64:
		out->type = DFS_T_I64;
		out->v.i = dfs_load_i64(rec + fd->offset, false);
		return;
	case DFS_S_U64:
		out->type = DFS_T_U64;
		out->v.u = dfs_load_u64(rec + fd->offset, false);
		return;
	case DFS_S_F64:
		out->type = DFS_T_F64;
		out->v.d = dfs_load_f64(rec + fd->offset, false);
		return;
	case DFS_S_TEXT:
		out->type = DFS_T_STR;
		out->v.s.ptr = (const char *)rec + fd->offset;
		out->v.s.len = strnlen(out->v.s.ptr, fd->size);
		return;
	case DFS_S_UUID:
		out->type = DFS_T_STR;
		out->v.s.ptr = out->scratch;
		out->v.s.len = dfs_format_uuid(out->scratch, rec + fd->offset);
		return;
	case DFS_S_VIRTUAL:
		if (m->get_field) {
			m->get_field(rec, len, row, f, out);
			return;
		}
		break;
	}
	out->type = DFS_T_NONE;
}

size_t dfs_format_uuid(char *out, const unsigned char *u)
{
	static const char hex[] = "0123456789abcdef";
	size_t k = 0;
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[k++] = '-';
		out[k++] = hex[u[i] >> 4];
		out[k++] = hex[u[i] & 15];
	}
	out[k] = '\0';
	return k;
}

/* ---- record containers -------------------------------------------------- */

void dfs_records_init(dfs_records *r, const dfs_module *m, uint32_t version)
{
	memset(r, 0, sizeof(*r));
	r->module = m;
	r->version = version;
}

void dfs_records_free(dfs_records *r)
{
	if (r->mapped) {
		dfs_slab s = {(char *)r->data, r->cap, r->size};
		dfs_slab_release(&s);
	} else if (r->scratch) {
		dfs_scratch_free(r->scratch, r->data);
	} else
		free(r->data);
	free(r->offsets);
	free(r->pk_off);
	const dfs_module *m = r->module;
	uint32_t v = r->version;
	struct dfs_scratch *pool = r->scratch;
	memset(r, 0, sizeof(*r));
	r->module = m;
	r->version = v;
	r->scratch = pool;
}

/* realloc, or its dfs_scratch counterpart for recycled records */
static unsigned char *records_realloc(dfs_records *r, size_t cap)
{
	if (r->scratch)
		return dfs_scratch_realloc(r->scratch, r->data, r->size, cap);
	return realloc(r->data, cap);
}

int dfs_records_reserve(dfs_records *r, size_t bytes)
{
	if (bytes <= r->cap - r->size)
		return 0;
	if (bytes > SIZE_MAX - r->size)
		return -1;
	unsigned char *d = records_realloc(r, r->size + bytes);
	if (!d)
		return -1;
	r->data = d;
	r->cap = r->size + bytes;
	return 0;
}

unsigned char *dfs_records_append(dfs_records *r, size_t len)
{
	bool variable = r->module->record_size == 0;
	if (r->size + len < r->size)
		return NULL;
	if (r->size + len > r->cap) {
		size_t cap = r->cap ? r->cap : 4096;
		while (cap < r->size + len) {
			if (cap > SIZE_MAX / 2)
				return NULL;
			cap *= 2;
		}
		unsigned char *d = records_realloc(r, cap);
		if (!d)
			return NULL;
		r->data = d;
		r->cap = cap;
	}
	if (variable) {
		if (r->count + 2 > r->offsets_cap) {
			size_t want = r->offsets_cap ? r->offsets_cap * 2 : 64;
			size_t *o = realloc(r->offsets, want * sizeof(size_t));
			if (!o)
				return NULL;
			r->offsets = o;
			r->offsets_cap = want;
		}
		if (r->count == 0)
			r->offsets[0] = 0;
		r->offsets[r->count + 1] = r->size + len;
	}
	unsigned char *p = r->data + r->size;
	memset(p, 0, len);
	r->size += len;
	r->count++;
	return p;
}

/* ---- generic decoding of fixed-size modules ------------------------------ */

int dfs_decode_fixed(const dfs_decode_in *in, dfs_records *out,
                     size_t stored_size, dfs_upgrade_fn upgrade, dfs_error *err)
{
	size_t n = in->len / stored_size;
	size_t size = out->module->record_size;
	if (n && !(out->data = malloc(n * size)))
		return dfs_error_nomem(err);
	out->cap = n * size;
	for (size_t i = 0; i < n; i++) {
		unsigned char *dst = out->data + out->count * size;
		memset(dst, 0, size);
		int keep = upgrade(in, in->data + i * stored_size, dst);
		if (keep < 0)
			return dfs_error_set(err, DFS_ERR_FORMAT, "invalid record %zu", i);
		if (keep) {
			out->count++;
			dfs_decode_stored(in, i * stored_size, stored_size);
		}
	}
	out->size = out->count * size;
	return 0;
}

void dfs_print_line(dfs_buf *out, const dfs_module *m, const unsigned char *rec,
                    const dfs_record_place *pl, const char *counter,
                    const char *value)
{
	dfs_buf_adds(out, m->name);
	dfs_buf_addc(out, '\t');
	dfs_buf_add_i64(out, dfs_record_rank(rec));
	dfs_buf_addc(out, '\t');
	dfs_buf_add_u64(out, dfs_record_id(rec));
	dfs_buf_addc(out, '\t');
	dfs_buf_adds(out, counter);
	dfs_buf_addc(out, '\t');
	dfs_buf_adds(out, value);
	dfs_buf_addc(out, '\t');
	dfs_buf_add(out, pl->name, pl->name_len);
	dfs_buf_addc(out, '\t');
	dfs_buf_add(out, pl->mount, pl->mount_len);
	dfs_buf_addc(out, '\t');
	dfs_buf_add(out, pl->fs_type, pl->fs_type_len);
	dfs_buf_addc(out, '\n');
}
