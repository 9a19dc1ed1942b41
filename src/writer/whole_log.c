/* whole_log.c - writing whole logs: a description of every part
 * (dfs_log_write), or the selected records of an opened log
 * (dfs_log_write_selection: a selection rewritten as a 3.41 log; the
 * filesystem's filtered.darshan keeps the source's format: export.c).
 *
 * Both drive the step-by-step writer of writer.c.  This file owns the
 * decisions about what a written log contains: the stored version of each
 * module (DXT keeps 32-byte segments when no segment has a thread id), the
 * records of each module a selection keeps (APMPI keeps its positional
 * header record), and which name-table entries a selection needs. */
#include <stdlib.h>
#include <string.h>

#include "darshanfs/writer.h"
#include "util/bytes.h"
#include "writer/writer_int.h"

/* The records of one module to write: all, or a list of indices. */
struct picks {
	const dfs_records *recs;
	bool all;
	const size_t *index;
	size_t count;
	size_t *owned;          /* index list we built */
};

static size_t picks_count(const struct picks *p)
{
	return p->all ? p->recs->count : p->count;
}

static size_t picks_at(const struct picks *p, size_t k)
{
	return p->all ? k : p->index[k];
}

/* ---- stored version ---------------------------------------------------- */

/* DXT records whose segments all lack a thread id were read from a version
 * with 32-byte segments: they are stored that way again, so they read back
 * byte for byte.  Any thread id (or no segment at all): current version. */
static uint32_t dxt_version(uint32_t short_version, const struct picks *p)
{
	bool missing = false, present = false;
	for (size_t k = 0; k < picks_count(p) && !present; k++) {
		size_t i = picks_at(p, k);
		const unsigned char *rec = dfs_record(p->recs, i);
		size_t n = (dfs_record_size(p->recs, i) - DFS_DXT_FIXED) / DFS_DXT_SEG;
		for (size_t s = 0; s < n; s++) {
			const unsigned char *seg = rec + DFS_DXT_FIXED + DFS_DXT_SEG * s;
			if (dfs_load_u64(seg + 32, false) == DFS_DXT_NO_THREAD)
				missing = true;
			else
				present = true;
		}
	}
	return missing && !present ? short_version : p->recs->module->version;
}

static uint32_t stored_version(int id, const struct picks *p)
{
	uint32_t short_version = dfs_writer_short_dxt_version(id);
	return short_version ? dxt_version(short_version, p) : p->recs->module->version;
}

/* ---- one module -------------------------------------------------------- */

static size_t records_bytes(const dfs_records *r)
{
	return r->offsets ? r->offsets[r->count] : r->count * r->module->record_size;
}

static int write_module(dfs_log_writer *w, int id, const struct picks *p,
                        dfs_error *err)
{
	uint32_t version = stored_version(id, p);
	if (dfs_log_writer_module_begin(w, id, version, err))
		return -1;
	const dfs_records *r = p->recs;
	_Alignas(8) unsigned char scratch[DFS_RECORD_MAX];
	if (p->all && !r->packed && !dfs_writer_short_dxt_version(id)) {
		/* the records are already in the stored layout */
		if (dfs_log_writer_module_data(w, r->data, records_bytes(r), err))
			return -1;
	} else {
		for (size_t k = 0; k < picks_count(p); k++) {
			size_t i = picks_at(p, k);
			if (dfs_log_writer_record(w, dfs_record_get(r, i, scratch),
			                          dfs_record_size(r, i), err))
				return -1;
		}
	}
	return dfs_log_writer_module_end(w, err);
}

/* ---- dfs_log_write ----------------------------------------------------- */

int dfs_log_write(dfs_log_writer *w, const dfs_log_desc *desc, dfs_error *err)
{
	if (!desc->job)
		return dfs_error_set(err, DFS_ERR_INVAL, "no job to write");
	if (dfs_log_writer_job(w, desc->job, desc->mounts, desc->nmounts, err))
		return -1;
	for (size_t i = 0; i < desc->nnames; i++) {
		const dfs_name *n = &desc->names[i];
		if (dfs_log_writer_name(w, n->id, n->str, n->len, err))
			return -1;
	}
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		const dfs_records *r = desc->modules[id];
		if (!r)
			continue;
		if (!r->module || r->module->id != id)
			return dfs_error_set(err, DFS_ERR_INVAL,
			                     "module slot %d: records of another module", id);
		struct picks p = {.recs = r, .all = true};
		if (write_module(w, id, &p, err))
			return -1;
	}
	return dfs_log_writer_finish(w, desc->partial_flag, err);
}

/* ---- selections -------------------------------------------------------- */

/* Record ids of the selected records and the ids they refer to. */
static void collect_ids(const struct picks *p, int id, struct dfs_id_set *set)
{
	dfs_id_set_add_records(set, p->recs, p->all ? NULL : p->index,
	                       picks_count(p), id);
}

static int write_names(dfs_log_writer *w, const dfs_log *log, bool all,
                       const struct picks *picks, dfs_error *err)
{
	size_t n = dfs_log_name_count(log);
	struct dfs_id_set set = {0};
	if (!all) {
		/* each record adds its id and at most one referred id */
		size_t expected = 0;
		for (int id = 0; id < DFS_MOD_SLOTS; id++)
			if (picks[id].recs)
				expected += picks_count(&picks[id]) * 2;
		if (dfs_id_set_init(&set, expected, err))
			return -1;
		for (int id = 0; id < DFS_MOD_SLOTS; id++)
			if (picks[id].recs)
				collect_ids(&picks[id], id, &set);
	}
	int ret = 0;
	for (size_t i = 0; i < n && ret == 0; i++) {
		const dfs_name *nm = dfs_log_name_at(log, i);
		if (all || dfs_id_set_has(&set, nm->id))
			ret = dfs_log_writer_name(w, nm->id, nm->str, nm->len, err);
	}
	dfs_id_set_free(&set);
	return ret;
}

/* The picks of one module from the caller's selection. */
static int make_picks(const dfs_write_selection *sel, int id,
                      const dfs_records *r, struct picks *p, dfs_error *err)
{
	memset(p, 0, sizeof(*p));
	enum dfs_select_mode mode = sel ? sel->module[id].mode : DFS_SELECT_ALL;
	if (!r || mode == DFS_SELECT_NONE)
		return 0;
	p->recs = r;
	if (mode == DFS_SELECT_ALL) {
		p->all = true;
		return 0;
	}
	const dfs_module *m = r->module;
	if (mode == DFS_SELECT_INDEX) {
		for (size_t k = 0; k < sel->module[id].count; k++)
			if (sel->module[id].index[k] >= r->count)
				return dfs_error_set(err, DFS_ERR_INVAL,
				                     "%s: record index %zu out of range (%zu records)",
				                     m->name, sel->module[id].index[k], r->count);
		p->index = sel->module[id].index;
		p->count = sel->module[id].count;
	} else if (mode == DFS_SELECT_FN) {
		if (!sel->select)
			return dfs_error_set(err, DFS_ERR_INVAL, "%s: no select function",
			                     m->name);
		p->owned = malloc((r->count ? r->count : 1) * sizeof(size_t));
		if (!p->owned)
			return dfs_error_nomem(err);
		_Alignas(8) unsigned char scratch[DFS_RECORD_MAX];
		for (size_t i = 0; i < r->count; i++)
			if (sel->select(sel->ctx, m, i, dfs_record_get(r, i, scratch),
			                dfs_record_size(r, i)))
				p->owned[p->count++] = i;
		p->index = p->owned;
	} else {
		return dfs_error_set(err, DFS_ERR_INVAL, "%s: unknown selection mode %d",
		                     m->name, (int)mode);
	}
	if (!dfs_writer_has_header_record(id) || p->count == 0)
		return 0;
	for (size_t k = 0; k < p->count; k++)
		if (p->index[k] == 0)
			return 0;
	/* keep the header record in front of the selected ones */
	size_t *list = malloc((p->count + 1) * sizeof(size_t));
	if (!list)
		return dfs_error_nomem(err);
	list[0] = 0;
	memcpy(list + 1, p->index, p->count * sizeof(size_t));
	free(p->owned);
	p->owned = list;
	p->index = list;
	p->count++;
	return 0;
}

static int copy_job(dfs_log_writer *w, const dfs_log *log, dfs_error *err)
{
	size_t n = dfs_log_mount_count(log);
	dfs_mount *mounts = calloc(n ? n : 1, sizeof(*mounts));
	if (!mounts)
		return dfs_error_nomem(err);
	for (size_t i = 0; i < n; i++)
		mounts[i] = *dfs_log_mount(log, i);
	int ret = dfs_log_writer_job(w, dfs_log_job(log), mounts, n, err);
	free(mounts);
	return ret;
}

int dfs_log_write_selection(dfs_log_writer *w, const dfs_log *log,
                            const dfs_write_selection *sel, dfs_error *err)
{
	struct picks *picks = calloc(DFS_MOD_SLOTS, sizeof(*picks));
	if (!picks)
		return dfs_error_nomem(err);
	int ret = 0;
	bool all = true;
	for (int id = 0; id < DFS_MOD_SLOTS && ret == 0; id++) {
		const dfs_records *own = dfs_log_records(log, id);
		const dfs_records *r = sel && sel->module[id].records ? sel->module[id].records
		                                                      : own;
		ret = make_picks(sel, id, r, &picks[id], err);
		if (r && (!picks[id].all || r != own))
			all = false;
	}
	if (ret == 0)
		ret = copy_job(w, log, err);
	if (ret == 0)
		ret = write_names(w, log, all, picks, err);
	for (int id = 0; id < DFS_MOD_SLOTS && ret == 0; id++)
		if (picks[id].recs)
			ret = write_module(w, id, &picks[id], err);
	if (ret == 0)
		ret = dfs_log_writer_finish(w, dfs_log_get_header(log)->partial_flag, err);
	for (int id = 0; id < DFS_MOD_SLOTS; id++)
		free(picks[id].owned);
	free(picks);
	return ret;
}
