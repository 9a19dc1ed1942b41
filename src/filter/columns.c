/* columns.c - the columns of a module's records for filters: every field
 * of the module (records.csv's columns; counters also without the module
 * prefix, and in any case as a second chance) plus file_name, mount_pt
 * and fs_type as darshan-parser shows them.  The compiled filter reads
 * them through a getter that computes a record's place only if asked. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "darshanfs/filter.h"
#include "darshanfs/log.h"
#include "filter/filter_int.h"
#include "log/hints.h"

enum { PLACE_NAME, PLACE_MOUNT, PLACE_FSTYPE, PLACE_COLUMNS };
static const char *const place_columns[PLACE_COLUMNS] = {
	"file_name", "mount_pt", "fs_type",
};

struct resolve_ctx {
	const dfs_module *m;
	bool lenient;
};

static int resolve(void *ctx, const char *name, size_t len, dfs_type *type)
{
	struct resolve_ctx *rc = ctx;
	const dfs_module *m = rc->m;
	int f = dfs_module_field_index(m, name, len);
	if (f < 0) {
		/* case-insensitive second chance */
		for (size_t i = 0; i < m->n_fields && f < 0; i++)
			if (strlen(m->fields[i].name) == len &&
			    strncasecmp(m->fields[i].name, name, len) == 0)
				f = (int)i;
	}
	if (f >= 0) {
		*type = m->fields[f].type;
		return f;
	}
	for (int k = 0; k < PLACE_COLUMNS; k++)
		if (strlen(place_columns[k]) == len &&
		    strncasecmp(place_columns[k], name, len) == 0) {
			*type = DFS_T_STR;
			return (int)m->n_fields + k;
		}
	if (rc->lenient) {
		*type = DFS_T_NONE;
		return (int)m->n_fields + PLACE_COLUMNS;
	}
	return -1;
}

/* " (a column of STDIO: use ...)" when modules other than rc->m have the
 * column: a module filter names its own columns only */
static void other_modules(void *ctx, const char *name, size_t len, char *out,
                          size_t cap)
{
	struct resolve_ctx *rc = ctx;
	const char *names[DFS_MOD_KNOWN];
	size_t n = 0;
	for (int id = 0; id < DFS_MOD_KNOWN; id++) {
		const dfs_module *o = dfs_module_get(id);
		struct resolve_ctx oc = {o, false};
		dfs_type type;
		if (o && o != rc->m && resolve(&oc, name, len, &type) >= 0)
			names[n++] = o->dirname;
	}
	out[0] = '\0';
	if (n == 0)
		return;
	size_t k = (size_t)snprintf(out, cap, " (a column of ");
	for (size_t i = 0; i < n && k < cap; i++)
		k += (size_t)snprintf(out + k, cap - k, "%s%s", names[i],
		                      i + 1 == n ? "" : i + 2 == n ? " and " : ", ");
	if (k < cap)
		snprintf(out + k, cap - k, ": use the log-wide filter LOG/filter)");
}

static dfs_filter *compile_module(const dfs_module *m, const char *text,
                                  size_t len, bool lenient,
                                  const dfs_filter *donor, bool screen_only,
                                  bool *more, dfs_error *err)
{
	struct resolve_ctx rc = {m, lenient};
	dfs_filter_columns cols = {resolve, &rc, lenient ? NULL : other_modules};
	return dfs_flt_compile_from(text, len, &cols, donor, screen_only, more, err);
}

dfs_filter *dfs_filter_compile_module(const dfs_module *m, const char *text,
                                      size_t len, bool lenient, dfs_error *err)
{
	return compile_module(m, text, len, lenient, NULL, false, NULL, err);
}

/* A column of any of several modules: resolved in the first that has it. */
struct any_ctx {
	const dfs_module *const *mods;
	size_t n;
};

static int resolve_any(void *ctx, const char *name, size_t len, dfs_type *type)
{
	struct any_ctx *ac = ctx;
	for (size_t k = 0; k < ac->n; k++) {
		struct resolve_ctx rc = {ac->mods[k], false};
		int c = resolve(&rc, name, len, type);
		if (c >= 0)
			return c;
	}
	return -1;
}

static void free_all(dfs_filter *out[DFS_MOD_KNOWN])
{
	for (int k = 0; k < DFS_MOD_KNOWN; k++) {
		dfs_filter_free(out[k]);
		out[k] = NULL;
	}
}

/* The columns of every module darshanfs knows. */
static dfs_filter *compile_any(const char *text, size_t len, bool screen_only,
                               bool *more, dfs_error *err)
{
	const dfs_module *mods[DFS_MOD_KNOWN];
	size_t n = 0;
	for (int id = 0; id < DFS_MOD_KNOWN; id++)
		if (dfs_module_get(id))
			mods[n++] = dfs_module_get(id);
	struct any_ctx ac = {mods, n};
	dfs_filter_columns cols = {resolve_any, &ac, NULL};
	return dfs_flt_compile_from(text, len, &cols, NULL, screen_only, more, err);
}

static int compile_modules(const char *text, size_t len, uint64_t modules,
                           dfs_filter *out[DFS_MOD_KNOWN], bool screen_only,
                           bool *more, dfs_error *err)
{
	for (int id = 0; id < DFS_MOD_KNOWN; id++)
		out[id] = NULL;
	/* every column named must be a column of some module darshanfs knows */
	dfs_filter *any = compile_any(text, len, screen_only, more, err);
	if (!any)
		return -1;
	/* each module: the columns it lacks have no value; a type error in
	 * any of them refuses the expression.  Their patterns are those
	 * compiled for the language: one regcomp each, shared by all */
	for (int id = 0; id < DFS_MOD_KNOWN; id++) {
		if (!((modules >> id) & 1) || !dfs_module_get(id))
			continue;
		out[id] = compile_module(dfs_module_get(id), text, len, true, any,
		                         screen_only, more, err);
		if (!out[id]) {
			free_all(out);
			dfs_filter_free(any);
			return -1;
		}
	}
	dfs_filter_free(any);
	return 0;
}

dfs_filter *dfs_filter_compile_any(const char *text, size_t len, dfs_error *err)
{
	return compile_any(text, len, false, NULL, err);
}

dfs_filter *dfs_filter_compile_module_from(const dfs_module *m, const char *text,
                                           size_t len, const dfs_filter *any,
                                           dfs_error *err)
{
	return compile_module(m, text, len, true, any, false, NULL, err);
}

int dfs_filter_compile_modules(const char *text, size_t len, uint64_t modules,
                               dfs_filter *out[DFS_MOD_KNOWN], dfs_error *err)
{
	return compile_modules(text, len, modules, out, false, NULL, err);
}

int dfs_filter_check_prefix(const dfs_module *m, uint64_t modules,
                            const char *text, size_t len, dfs_error *err)
{
	bool more = false;
	dfs_error why = {0};
	int ret;
	if (m) {
		dfs_filter *f = compile_module(m, text, len, false, NULL, true, &more,
		                               &why);
		ret = f ? 0 : -1;
		dfs_filter_free(f);
	} else {
		dfs_filter *out[DFS_MOD_KNOWN];
		ret = compile_modules(text, len, modules, out, true, &more, &why);
		if (ret == 0)
			free_all(out);
	}
	if (ret == 0 || more)
		return 0;
	if (err)
		*err = why;
	return -1;
}

struct row_ctx {
	const dfs_log *log;
	const dfs_module *m;
	const unsigned char *rec;
	size_t len;
	size_t row;
	bool placed;
	dfs_name_hint *hint;
	dfs_record_place pl;
};

static void get_column(void *ctx, int column, dfs_value *out)
{
	struct row_ctx *rc = ctx;
	size_t n = rc->m->n_fields;
	if (column >= 0 && (size_t)column < n) {
		dfs_module_get_log_value(rc->log ? dfs_log_names(rc->log) : NULL, rc->m, rc->rec, rc->len, rc->row,
		                         (size_t)column, out);
		/* an empty cell is a missing value (filter-language.md) */
		if (out->type == DFS_T_STR && out->v.s.len == 0)
			out->type = DFS_T_NONE;
		return;
	}
	if ((size_t)column >= n + PLACE_COLUMNS) {
		out->type = DFS_T_NONE;
		return;
	}
	if (!rc->placed) {
		dfs_log_record_place_near(rc->log, rc->m, rc->rec, rc->hint, &rc->pl);
		rc->placed = true;
	}
	out->type = DFS_T_STR;
	switch ((size_t)column - n) {
	case PLACE_NAME:
		out->v.s.ptr = rc->pl.name;
		out->v.s.len = rc->pl.name_len;
		break;
	case PLACE_MOUNT:
		out->v.s.ptr = rc->pl.mount;
		out->v.s.len = rc->pl.mount_len;
		break;
	default:
		out->v.s.ptr = rc->pl.fs_type;
		out->v.s.len = rc->pl.fs_type_len;
		break;
	}
	if (out->v.s.len == 0)
		out->type = DFS_T_NONE;
}

/* A record's row context; the place fields are filled only when a place
 * column is read. */
static void row_ctx_init(struct row_ctx *rc, const dfs_log *log, const dfs_module *m,
                         const unsigned char *rec, size_t len, dfs_name_hint *hint)
{
	rc->hint = hint;
	rc->log = log;
	rc->m = m;
	rc->rec = rec;
	rc->len = len;
	rc->placed = false;
	rc->row = 0;
}

/* Does row rc->row pass every filter? */
static bool row_matches(const dfs_filter *const *filters, size_t nf, struct row_ctx *rc)
{
	size_t i = 0;
	while (i < nf && dfs_filter_match(filters[i], get_column, rc))
		i++;
	return i == nf;
}

bool dfs_filter_match_record(const dfs_filter *const *filters, size_t nf,
                             const dfs_log *log, const dfs_module *m,
                             const unsigned char *rec, size_t len,
                             struct dfs_name_hint *hint)
{
	struct row_ctx rc;
	row_ctx_init(&rc, log, m, rec, len, hint);
	size_t rows = dfs_module_rows(m, rec, len);
	for (rc.row = 0; rc.row < rows; rc.row++)
		if (row_matches(filters, nf, &rc))
			return true;
	return false;
}

void dfs_filter_match_rows(const dfs_filter *const *filters, size_t nf,
                           const dfs_log *log, const dfs_module *m,
                           const unsigned char *rec, size_t len,
                           struct dfs_name_hint *hint, bool *keep)
{
	struct row_ctx rc;
	row_ctx_init(&rc, log, m, rec, len, hint);
	size_t rows = dfs_module_rows(m, rec, len);
	for (rc.row = 0; rc.row < rows; rc.row++)
		keep[rc.row] = row_matches(filters, nf, &rc);
}
