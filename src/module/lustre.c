/* lustre.c - the LUSTRE module (id 8, version 2, variable size): the
 * striping layout of each file.
 *
 * Current record: base (16), num_comps i64, num_stripes i64, num_comps
 * components of 72 bytes (7 i64 counters and a 16-byte pool name), then
 * num_stripes OST ids (i64).  Version 1 records (one stripe description
 * and its OST list) become one component.  As upstream does, components are
 * cut at the first unused slot (STRIPE_SIZE == -1) and the stripe count
 * recomputed.
 *
 * records.csv shows one row per (component, OST): a component without OSTs
 * and a record without components still get one row.  STRIPE_PATTERN,
 * FLAGS and POOL_NAME are text there, as darshan-parser prints them
 * ("raid0", "prefrd,prefwr,init", "N/A"), and filters compare them as
 * text. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "darshanfs/buf.h"
#include "module/tables.h"
#include "util/bytes.h"

#define FIXED 32
#define COMP 72

static int64_t get_i(const unsigned char *p) { return dfs_load_i64(p, false); }

/* a + max(b, 0), but at most max (0 <= a <= max): stripe counts of a
 * corrupt record may be anything, sums of them must not overflow */
static int64_t add_clamped(int64_t a, int64_t b, int64_t max)
{
	return b <= 0 ? a : b >= max - a ? max : a + b;
}

static int64_t ncomps(const unsigned char *rec) { return get_i(rec + 16); }
static int64_t nstripes(const unsigned char *rec) { return get_i(rec + 24); }
static const unsigned char *comp(const unsigned char *rec, int64_t c)
{
	return rec + FIXED + COMP * c;
}
static const unsigned char *osts(const unsigned char *rec)
{
	return rec + FIXED + COMP * ncomps(rec);
}

/* Append a current-layout record built from `nc` components at `comps`
 * (file order) and `ns` OST ids at `ost` (file order). */
static int emit(dfs_records *out, const unsigned char *base, bool sw,
                int64_t nc, const unsigned char *comps, int64_t ns,
                const unsigned char *ost, dfs_error *err)
{
	/* cut at the first unused component, recount the stripes */
	int64_t keep = 0, stripes = 0;
	for (; keep < nc; keep++) {
		const unsigned char *c = comps + COMP * keep;
		int64_t size = dfs_load_i64(c, sw);
		if (size == -1)
			break;
		/* corrupt layouts: never count past the stored ids */
		stripes = add_clamped(stripes, dfs_load_i64(c + 8, sw), ns);
	}
	size_t len = FIXED + COMP * (size_t)keep + 8 * (size_t)stripes;
	unsigned char *r = dfs_records_append(out, len);
	if (!r)
		return dfs_error_nomem(err);
	dfs_copy8(r, base, sw);
	dfs_copy8(r + 8, base + 8, sw);
	dfs_store_i64(r + 16, keep);
	dfs_store_i64(r + 24, stripes);
	for (int64_t c = 0; c < keep; c++) {
		unsigned char *d = r + FIXED + COMP * c;
		const unsigned char *s = comps + COMP * c;
		for (int i = 0; i < 7; i++)
			dfs_copy8(d + 8 * i, s + 8 * i, sw);
		memcpy(d + 56, s + 56, 16);
	}
	unsigned char *o = r + FIXED + COMP * keep;
	for (int64_t k = 0; k < stripes; k++)
		dfs_copy8(o + 8 * k, ost + 8 * k, sw);
	return 0;
}

static int decode(const dfs_decode_in *in, dfs_records *out, dfs_error *err)
{
	const unsigned char *d = in->data;
	size_t len = in->len, pos = 0;
	bool sw = in->swap;
	while (pos < len) {
		if (in->version == 1) {
			if (len - pos < 56)
				break;
			int64_t width = dfs_load_i64(d + pos + 48, sw);
			if (width < 0 || (uint64_t)width > (len - pos - 56) / 8)
				break; /* truncated: treated as end of data */
			/* one component in file order built on the stack */
			unsigned char c[COMP];
			int64_t fill[7] = {0, 0, -1, -1, 0, -1, -1};
			memset(c, 0, sizeof(c));
			for (int i = 0; i < 7; i++) {
				uint64_t u = (uint64_t)fill[i];
				dfs_store_u64(c + 8 * i, sw ? __builtin_bswap64(u) : u);
			}
			memcpy(c, d + pos + 40, 8);      /* STRIPE_SIZE */
			memcpy(c + 8, d + pos + 48, 8);  /* STRIPE_COUNT = width */
			if (emit(out, d + pos, sw, 1, c, width, d + pos + 56, err))
				return -1;
			dfs_decode_stored(in, pos, 56 + 8 * (size_t)width);
			pos += 56 + 8 * (size_t)width;
			continue;
		}
		if (len - pos < FIXED)
			break;
		int64_t nc = dfs_load_i64(d + pos + 16, sw);
		int64_t ns = dfs_load_i64(d + pos + 24, sw);
		if (nc < 1) {
			if (emit(out, d + pos, sw, 0, NULL, 0, NULL, err))
				return -1;
			dfs_decode_stored(in, pos, FIXED);
			pos += FIXED;
			continue;
		}
		size_t avail = len - pos - FIXED;
		if (ns < 0 || (uint64_t)nc > avail / COMP ||
		    (uint64_t)ns > (avail - COMP * (size_t)nc) / 8)
			return dfs_error_set(err, DFS_ERR_FORMAT,
			                     "record %zu: %" PRId64 " components and %" PRId64
			                     " stripes do not fit in the region",
			                     out->count, nc, ns);
		const unsigned char *comps = d + pos + FIXED;
		if (emit(out, d + pos, sw, nc, comps, ns, comps + COMP * nc, err))
			return -1;
		dfs_decode_stored(in, pos, FIXED + COMP * (size_t)nc + 8 * (size_t)ns);
		pos += FIXED + COMP * (size_t)nc + 8 * (size_t)ns;
	}
	return 0;
}

/* ---- rows: one per (component, OST) ------------------------------------- */

/* OSTs of component c when the ones before it used `start` (both clamped
 * to the stored count: counts in a corrupt record may be anything) */
static int64_t comp_osts(const unsigned char *rec, int64_t c, int64_t start)
{
	return add_clamped(start, get_i(comp(rec, c) + 8), nstripes(rec)) - start;
}

/* The component showing row `row` (-1 past the last); *first gets its
 * first OST, *n its OST count and *r the row within it.  One pass over
 * the components, so rendering a record stays linear in its rows. */
static int64_t find_row(const unsigned char *rec, size_t row, int64_t *first,
                        int64_t *n, size_t *r)
{
	int64_t start = 0;
	for (int64_t c = 0; c < ncomps(rec); c++) {
		int64_t k = comp_osts(rec, c, start);
		size_t rows = k > 0 ? (size_t)k : 1;
		if (row < rows) {
			*first = start;
			*n = k;
			*r = row;
			return c;
		}
		row -= rows;
		start += k;
	}
	return -1;
}

static size_t row_count(const unsigned char *rec, size_t len)
{
	size_t rows = 0;
	int64_t start = 0;
	for (int64_t c = 0; c < ncomps(rec); c++) {
		int64_t k = comp_osts(rec, c, start);
		rows += k > 0 ? (size_t)k : 1;
		start += k;
	}
	return rows ? rows : 1;
}

enum {
	F_ID, F_RANK, F_NCOMP, F_NSTRIPES, F_COMP, F_SIZE, F_COUNT, F_PATTERN,
	F_FLAGS, F_EXT_START, F_EXT_END, F_MIRROR, F_POOL, F_OST_INDEX, F_OST,
	F_COUNT_FIELDS
};

static const dfs_field fields[F_COUNT_FIELDS] = {
	{"record_id", DFS_S_U64, DFS_T_U64, 0, 0, false},
	{"rank", DFS_S_I64, DFS_T_I64, 8, 0, false},
	{"LUSTRE_NUM_COMPONENTS", DFS_S_I64, DFS_T_I64, 16, 0, true},
	{"LUSTRE_NUM_STRIPES", DFS_S_I64, DFS_T_I64, 24, 0, true},
	{"component", DFS_S_VIRTUAL, DFS_T_I64, 0, 0, false},
	{"LUSTRE_COMP_STRIPE_SIZE", DFS_S_VIRTUAL, DFS_T_I64, 0, 0, true},
	{"LUSTRE_COMP_STRIPE_COUNT", DFS_S_VIRTUAL, DFS_T_I64, 8, 0, true},
	{"LUSTRE_COMP_STRIPE_PATTERN", DFS_S_VIRTUAL, DFS_T_STR, 16, 0, true},
	{"LUSTRE_COMP_FLAGS", DFS_S_VIRTUAL, DFS_T_STR, 24, 0, true},
	{"LUSTRE_COMP_EXT_START", DFS_S_VIRTUAL, DFS_T_I64, 32, 0, true},
	{"LUSTRE_COMP_EXT_END", DFS_S_VIRTUAL, DFS_T_I64, 40, 0, true},
	{"LUSTRE_COMP_MIRROR_ID", DFS_S_VIRTUAL, DFS_T_I64, 48, 0, true},
	{"LUSTRE_COMP_POOL_NAME", DFS_S_VIRTUAL, DFS_T_STR, 56, 16, true},
	{"ost_index", DFS_S_VIRTUAL, DFS_T_I64, 0, 0, false},
	{"LUSTRE_COMP_OST_ID", DFS_S_VIRTUAL, DFS_T_I64, 0, 0, true},
};

/* ---- text values, as darshan-parser prints them -------------------------- */

/* STRIPE_PATTERN: the layout patterns upstream names, else "N/A" */
static const char *pattern_text(int64_t v)
{
	switch (v) {
	case 0: return "raid0";
	case 2: return "mdt";
	case 4: return "raid0,overstriped";
	case 8: return "foreign";
	default: return "N/A";
	}
}

/* FLAGS: "N/A" for -1, else the names of bits 0..11 joined by commas,
 * "0" when none of them is set.  `out` holds LUSTRE_FLAGS_TEXT_MAX bytes;
 * returns the length. */
#define LUSTRE_FLAGS_TEXT_MAX 96
_Static_assert(sizeof(((dfs_value *)0)->scratch) >= LUSTRE_FLAGS_TEXT_MAX,
               "a dfs_value holds the longest flags text");
static size_t flags_text(int64_t v, char *out)
{
	static const char *const names[12] = {
		"stale", "prefrd", "prefwr", "offline", "init", "nosync",
		"extension", "parity", "compress", "partial", "nocompr", "neg",
	};
	if (v == -1)
		return (size_t)snprintf(out, LUSTRE_FLAGS_TEXT_MAX, "N/A");
	size_t k = 0;
	out[0] = '\0';
	for (int b = 0; b < 12; b++) {
		if (!((uint64_t)v & (1ULL << b)))
			continue;
		k += (size_t)snprintf(out + k, LUSTRE_FLAGS_TEXT_MAX - k, "%s%s",
		                      k ? "," : "", names[b]);
	}
	if (k == 0)
		k = (size_t)snprintf(out, LUSTRE_FLAGS_TEXT_MAX, "0");
	return k;
}

/* POOL_NAME: the NUL-padded name, "N/A" when empty */
static void pool_text(const unsigned char *cp, const char **ptr, size_t *len)
{
	*len = strnlen((const char *)cp + 56, 16);
	*ptr = *len ? (const char *)cp + 56 : "N/A";
	if (!*len)
		*len = 3;
}

static void set_text(dfs_value *out, const char *s, size_t len)
{
	out->type = DFS_T_STR;
	out->v.s.ptr = s;
	out->v.s.len = len;
}

static void get_field(const unsigned char *rec, size_t len, size_t row,
                      size_t f, dfs_value *out)
{
	out->type = DFS_T_NONE;
	int64_t first = 0, n = 0;
	size_t r = 0;
	int64_t c = find_row(rec, row, &first, &n, &r);
	if (c < 0)
		return; /* record without components: identity columns only */
	const unsigned char *cp = comp(rec, c);
	switch (f) {
	case F_COMP:
		out->type = DFS_T_I64;
		out->v.i = c + 1;
		return;
	case F_PATTERN: {
		const char *t = pattern_text(get_i(cp + fields[f].offset));
		set_text(out, t, strlen(t));
		return;
	}
	case F_FLAGS:
		set_text(out, out->scratch, flags_text(get_i(cp + fields[f].offset),
		                                       out->scratch));
		return;
	case F_POOL:
		out->type = DFS_T_STR;
		pool_text(cp, &out->v.s.ptr, &out->v.s.len);
		return;
	case F_OST_INDEX:
	case F_OST:
		if (n == 0)
			return;
		out->type = DFS_T_I64;
		out->v.i = f == F_OST_INDEX ? (int64_t)r
		                            : get_i(osts(rec) + 8 * (first + (int64_t)r));
		return;
	default:
		out->type = DFS_T_I64;
		out->v.i = get_i(cp + fields[f].offset);
		return;
	}
}

static void print_base(const dfs_names *nt, const dfs_records *recs, size_t i,
                       dfs_buf *out)
{
	const dfs_module *m = recs->module;
	const unsigned char *rec = dfs_record(recs, i);
	dfs_record_place pl;
	nt->place(nt->owner, m, rec, &pl);
	char name[64], val[160];
	snprintf(val, sizeof(val), "%" PRId64, ncomps(rec));
	dfs_print_line(out, m, rec, &pl, "LUSTRE_NUM_COMPONENTS", val);
	snprintf(val, sizeof(val), "%" PRId64, nstripes(rec));
	dfs_print_line(out, m, rec, &pl, "LUSTRE_NUM_STRIPES", val);
	static const char *const ints[7] = {
		"STRIPE_SIZE", "STRIPE_COUNT", "STRIPE_PATTERN", "FLAGS",
		"EXT_START", "EXT_END", "MIRROR_ID",
	};
	int64_t next_ost = 0;
	for (int64_t c = 0; c < ncomps(rec); c++) {
		const unsigned char *cp = comp(rec, c);
		for (int k = 0; k < 7; k++) {
			int64_t v = get_i(cp + 8 * k);
			if (k == 2)
				snprintf(val, sizeof(val), "%s", pattern_text(v));
			else if (k == 3)
				flags_text(v, val);
			else
				snprintf(val, sizeof(val), "%" PRId64, v);
			snprintf(name, sizeof(name), "LUSTRE_COMP%" PRId64 "_%s", c + 1, ints[k]);
			dfs_print_line(out, m, rec, &pl, name, val);
		}
		const char *pool;
		size_t plen;
		pool_text(cp, &pool, &plen);
		snprintf(val, sizeof(val), "%.*s", (int)plen, pool);
		snprintf(name, sizeof(name), "LUSTRE_COMP%" PRId64 "_POOL_NAME", c + 1);
		dfs_print_line(out, m, rec, &pl, name, val);
		int64_t cnt = get_i(cp + 8);
		for (int64_t k = 0; k < cnt && next_ost < nstripes(rec); k++) {
			snprintf(name, sizeof(name), "LUSTRE_COMP%" PRId64 "_OST_ID_%" PRId64,
			         c + 1, k);
			snprintf(val, sizeof(val), "%" PRId64, get_i(osts(rec) + 8 * next_ost++));
			dfs_print_line(out, m, rec, &pl, name, val);
		}
	}
}

const dfs_module dfs_module_lustre = {
	.id = DFS_MOD_LUSTRE,
	.name = "LUSTRE",
	.dirname = "LUSTRE",
	.prefix = "LUSTRE_",
	.version = 2,
	.record_size = 0,
	.fields = fields,
	.n_fields = F_COUNT_FIELDS,
	.description = dfs_lustre_description,
	.warnings = dfs_lustre_warnings,
	.decode = decode,
	.row_count = row_count,
	.get_field = get_field,
	.print_base = print_base,
};
