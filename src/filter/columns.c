/* columns.c - the columns of a module's records for filters: every field
 * of the module (records.csv's columns; counters also without the module
 * prefix, and in any case as a second chance) plus file_name, mount_pt
 * and fs_type as darshan-parser shows them.  The compiled filter reads
 * them through a getter that computes a record's place only if asked. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "filter/filter.h"
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

/* The name of field i without the module prefix, or NULL (not a counter
 * that has the prefix). */
static const char *short_name(const dfs_module *m, size_t i)
{
	size_t plen = strlen(m->prefix);
	const char *f = m->fields[i].name;
	if (!m->fields[i].counter || strncmp(f, m->prefix, plen) != 0)
		return NULL;
	return f + plen;
}

static bool same_any_case(const char *a, const char *s, size_t len)
{
	return a && strlen(a) == len && strncasecmp(a, s, len) == 0;
}

/* Column index of a name in module m: a field by its name or (a counter)
 * without the prefix, else file_name, mount_pt or fs_type; exactly as
 * written first, then in any case when only one column answers.  -1 for
 * none, -2 when several answer in different cases. */
static int lookup(const dfs_module *m, const char *name, size_t len, dfs_type *type)
{
	int f = dfs_module_field_index(m, name, len);
	if (f >= 0) {
		*type = m->fields[f].type;
		return f;
	}
	int found = -1;
	for (size_t i = 0; i < m->n_fields; i++)
		if (same_any_case(m->fields[i].name, name, len) ||
		    same_any_case(short_name(m, i), name, len)) {
			if (found >= 0 && found != (int)i)
				return -2;
			found = (int)i;
		}
	for (int k = 0; k < PLACE_COLUMNS; k++)
		if (same_any_case(place_columns[k], name, len)) {
			if (found >= 0)
				return -2;
			found = (int)m->n_fields + k;
		}
	if (found >= 0)
		*type = (size_t)found < m->n_fields ? m->fields[found].type : DFS_T_STR;
	return found;
}

static int resolve(void *ctx, const char *name, size_t len, dfs_type *type)
{
	struct resolve_ctx *rc = ctx;
	int c = lookup(rc->m, name, len, type);
	if (c >= 0 || c == -2)
		return c < 0 ? -1 : c;
	if (rc->lenient) {
		*type = DFS_T_NONE;
		return (int)rc->m->n_fields + PLACE_COLUMNS;
	}
	return -1;
}

/* ---- what an unknown name may have meant -------------------------------- */

/* Names longer than this get no suggestion (no column is that long). */
#define SUGGEST_MAX_LEN 96
#define SUGGEST_MAX 3

/* Edit distance between a and b ignoring case, where swapping two
 * neighbours is one edit (RAED -> READ); both at most SUGGEST_MAX_LEN. */
static size_t distance(const char *a, size_t an, const char *b, size_t bn)
{
	/* rows i-2, i-1 and i of the table, rolling */
	size_t rows[3][SUGGEST_MAX_LEN + 1];
	size_t *two = rows[0], *one = rows[1], *cur = rows[2];
	for (size_t j = 0; j <= bn; j++)
		one[j] = j;
	for (size_t i = 1; i <= an; i++) {
		int ca = tolower((unsigned char)a[i - 1]);
		cur[0] = i;
		for (size_t j = 1; j <= bn; j++) {
			int cb = tolower((unsigned char)b[j - 1]);
			size_t best = one[j - 1] + (ca != cb);
			if (one[j] + 1 < best)
				best = one[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb && two[j - 2] + 1 < best)
				best = two[j - 2] + 1;
			cur[j] = best;
		}
		size_t *t = two;
		two = one;
		one = cur;
		cur = t;
	}
	return one[bn];
}

/* The closest names: up to SUGGEST_MAX spellings at the least distance
 * seen, each with the modules that have it. */
struct suggestions {
	const char *typed;
	size_t len;
	size_t best;
	size_t n;
	const char *name[SUGGEST_MAX];
	uint64_t mods[SUGGEST_MAX];
};

static void suggest_init(struct suggestions *sg, const char *typed, size_t len)
{
	memset(sg, 0, sizeof(*sg));
	sg->typed = typed;
	sg->len = len;
	/* a few typos, fewer in short names: BYTES_RAED, rnak, OPNES */
	sg->best = len <= 4 ? 1 : len <= 8 ? 2 : 3;
}

/* The distance from what was typed to cand, or SIZE_MAX when it is too
 * far to be worth naming. */
static size_t distance_to(const struct suggestions *sg, const char *cand)
{
	if (!cand)
		return SIZE_MAX;
	size_t cn = strlen(cand);
	if (sg->len > SUGGEST_MAX_LEN || cn > SUGGEST_MAX_LEN ||
	    (cn > sg->len ? cn - sg->len : sg->len - cn) > sg->best)
		return SIZE_MAX;
	size_t d = distance(sg->typed, sg->len, cand, cn);
	return d < cn ? d : SIZE_MAX;
}

static void offer(struct suggestions *sg, const char *name, size_t d, int module)
{
	if (d > sg->best)
		return;
	if (d < sg->best) {
		sg->best = d;
		sg->n = 0;
	}
	for (size_t k = 0; k < sg->n; k++)
		if (strcmp(sg->name[k], name) == 0) {
			sg->mods[k] |= 1ULL << module;
			return;
		}
	if (sg->n == SUGGEST_MAX)
		return;
	sg->name[sg->n] = name;
	sg->mods[sg->n++] = 1ULL << module;
}

/* Every column of module m.  `whole`: a field is named by its whole name
 * however it came close (a module filter's suggestion); else by the
 * spelling that came close (a counter's short name is a column of every
 * module with that counter). */
static void consider_module(struct suggestions *sg, const dfs_module *m, bool whole)
{
	for (size_t i = 0; i < m->n_fields; i++) {
		size_t full = distance_to(sg, m->fields[i].name);
		size_t part = distance_to(sg, short_name(m, i));
		if (whole) {
			offer(sg, m->fields[i].name, full < part ? full : part, m->id);
		} else {
			offer(sg, m->fields[i].name, full, m->id);
			offer(sg, short_name(m, i), part, m->id);
		}
	}
	for (int k = 0; k < PLACE_COLUMNS; k++)
		offer(sg, place_columns[k], distance_to(sg, place_columns[k]), m->id);
}

/* "did you mean A, B or C", with the modules of each when `where` */
static void say_suggestions(const struct suggestions *sg, bool where,
                            char *out, size_t cap)
{
	size_t k = (size_t)snprintf(out, cap, "did you mean ");
	for (size_t i = 0; i < sg->n && k < cap; i++) {
		k += (size_t)snprintf(out + k, cap - k, "%s%s",
		                      i == 0 ? "" : i + 1 == sg->n ? " or " : ", ",
		                      sg->name[i]);
		if (!where)
			continue;
		const char *sep = " (in ";
		for (int id = 0; id < DFS_MOD_KNOWN && k < cap; id++)
			if ((sg->mods[i] >> id) & 1) {
				k += (size_t)snprintf(out + k, cap - k, "%s%s", sep,
				                      dfs_module_get(id)->dirname);
				sep = ", ";
			}
		if (k < cap)
			k += (size_t)snprintf(out + k, cap - k, ")");
	}
}

/* Several columns answer the name in different cases. */
static bool ambiguous(const dfs_module *m, const char *name, size_t len,
                      char *out, size_t cap)
{
	dfs_type type;
	if (lookup(m, name, len, &type) != -2)
		return false;
	size_t k = (size_t)snprintf(out, cap, "several columns have this name "
	                            "in other cases:");
	for (size_t i = 0; i < m->n_fields && k < cap; i++)
		if (same_any_case(m->fields[i].name, name, len) ||
		    same_any_case(short_name(m, i), name, len))
			k += (size_t)snprintf(out + k, cap - k, " %s", m->fields[i].name);
	for (int c = 0; c < PLACE_COLUMNS && k < cap; c++)
		if (same_any_case(place_columns[c], name, len))
			k += (size_t)snprintf(out + k, cap - k, " %s", place_columns[c]);
	if (k < cap)
		snprintf(out + k, cap - k, "; write one as it is spelled");
	return true;
}

/* Why a module filter does not know a name: another module's column
 * ("a column of STDIO: use ..."), several in other cases, or the closest
 * names of the module (of the others when it has none close). */
static void module_hint(void *ctx, const char *name, size_t len, char *out,
                        size_t cap)
{
	struct resolve_ctx *rc = ctx;
	const char *names[DFS_MOD_KNOWN];
	size_t n = 0;
	out[0] = '\0';
	if (ambiguous(rc->m, name, len, out, cap))
		return;
	for (int id = 0; id < DFS_MOD_KNOWN; id++) {
		const dfs_module *o = dfs_module_get(id);
		dfs_type type;
		if (o && o != rc->m && lookup(o, name, len, &type) >= 0)
			names[n++] = o->dirname;
	}
	if (n > 0) {
		size_t k = (size_t)snprintf(out, cap, "a column of ");
		for (size_t i = 0; i < n && k < cap; i++)
			k += (size_t)snprintf(out + k, cap - k, "%s%s", names[i],
			                      i + 1 == n ? "" : i + 2 == n ? " and " : ", ");
		if (k < cap)
			snprintf(out + k, cap - k, ": use the log-wide filter LOG/filter");
		return;
	}
	struct suggestions sg;
	suggest_init(&sg, name, len);
	consider_module(&sg, rc->m, true);
	if (sg.n > 0) {
		say_suggestions(&sg, false, out, cap);
		size_t k = strlen(out);
		snprintf(out + k, cap - k, "?");
		return;
	}
	for (int id = 0; id < DFS_MOD_KNOWN; id++)
		if (dfs_module_get(id) && dfs_module_get(id) != rc->m)
			consider_module(&sg, dfs_module_get(id), true);
	if (sg.n == 0)
		return;
	say_suggestions(&sg, false, out, cap);
	uint64_t mods = 0;
	for (size_t i = 0; i < sg.n; i++)
		mods |= sg.mods[i];
	size_t k = strlen(out);
	const char *sep = sg.n > 1 ? ", columns of " : ", a column of ";
	for (int id = 0; id < DFS_MOD_KNOWN && k < cap; id++)
		if ((mods >> id) & 1) {
			k += (size_t)snprintf(out + k, cap - k, "%s%s", sep,
			                      dfs_module_get(id)->dirname);
			sep = " and ";
		}
	if (k < cap)
		snprintf(out + k, cap - k, "? use the log-wide filter LOG/filter");
}

static dfs_filter *compile_module(const dfs_module *m, const char *text,
                                  size_t len, bool lenient,
                                  const dfs_filter *donor, bool screen_only,
                                  bool *more, dfs_error *err)
{
	struct resolve_ctx rc = {m, lenient};
	dfs_filter_columns cols = {resolve, &rc, lenient ? NULL : module_hint};
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
	uint64_t shown;   /* the modules to name in hints (the log's) */
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

/* Why no module knows a name: several columns answer in other cases, or
 * the closest names, each with the modules that have it. */
static void any_hint(void *ctx, const char *name, size_t len, char *out,
                     size_t cap)
{
	struct any_ctx *ac = ctx;
	out[0] = '\0';
	for (size_t k = 0; k < ac->n; k++)
		if (ambiguous(ac->mods[k], name, len, out, cap))
			return;
	struct suggestions sg;
	suggest_init(&sg, name, len);
	for (size_t k = 0; k < ac->n; k++)
		consider_module(&sg, ac->mods[k], false);
	if (sg.n == 0)
		return;
	/* where the log has the names, its modules only */
	for (size_t i = 0; i < sg.n; i++)
		if (sg.mods[i] & ac->shown)
			sg.mods[i] &= ac->shown;
	say_suggestions(&sg, true, out, cap);
	size_t k = strlen(out);
	snprintf(out + k, cap - k, "?");
}

static void free_all(dfs_filter *out[DFS_MOD_KNOWN])
{
	for (int k = 0; k < DFS_MOD_KNOWN; k++) {
		dfs_filter_free(out[k]);
		out[k] = NULL;
	}
}

/* The columns of every module darshanfs knows; hints name the modules
 * of `shown` that have a name suggested, where some do. */
static dfs_filter *compile_any(const char *text, size_t len, uint64_t shown,
                               bool screen_only, bool *more, dfs_error *err)
{
	const dfs_module *mods[DFS_MOD_KNOWN];
	size_t n = 0;
	for (int id = 0; id < DFS_MOD_KNOWN; id++)
		if (dfs_module_get(id))
			mods[n++] = dfs_module_get(id);
	struct any_ctx ac = {mods, n, shown};
	dfs_filter_columns cols = {resolve_any, &ac, any_hint};
	return dfs_flt_compile_from(text, len, &cols, NULL, screen_only, more, err);
}

static int compile_modules(const char *text, size_t len, uint64_t modules,
                           dfs_filter *out[DFS_MOD_KNOWN], bool screen_only,
                           bool *more, dfs_error *err)
{
	for (int id = 0; id < DFS_MOD_KNOWN; id++)
		out[id] = NULL;
	/* every column named must be a column of some module darshanfs knows */
	dfs_filter *any = compile_any(text, len, modules, screen_only, more, err);
	if (!any)
		return -1;
	/* each module: the columns it lacks have no value; a type error in
	 * any of them refuses the expression.  Their patterns are those
	 * compiled for the language: one compilation each, shared by all */
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
	return compile_any(text, len, ~(uint64_t)0, false, NULL, err);
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
