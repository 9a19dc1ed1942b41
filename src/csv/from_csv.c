/* from_csv.c - CSV text back into binary records (the repacker).
 *
 * RFC 4180 fields: separated by commas, rows by LF or CRLF, fields may be
 * quoted with '"' (a doubled quote inside stands for one).  Every row is
 * checked against the module's fields and packed into the current record
 * layout; any error refuses the whole input with the line and column. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csv/csv.h"
#include "util/format.h"
#include "util/bytes.h"
#include "module/pack.h"

/* ---- tokenizer ----------------------------------------------------------------- */

struct cursor {
	const char *p, *end;
	size_t line;           /* 1-based line of the current row */
	size_t next_line;      /* line where the next row starts */
	dfs_buf field;         /* unquoted text of quoted fields */
};

/* One field.  *last is set when it ends its row.  Returns 0, or -1 with
 * err on broken quoting. */
static int next_field(struct cursor *c, const char **s, size_t *len, bool *last,
                      size_t column, dfs_error *err)
{
	const char *p = c->p;
	if (p < c->end && *p == '"') {
		dfs_buf_reset(&c->field);
		p++;
		for (;;) {
			const char *q = memchr(p, '"', (size_t)(c->end - p));
			if (!q)
				return dfs_error_set(err, DFS_ERR_INVAL,
				                     "line %zu, column %zu: quoted field is never closed",
				                     c->line, column);
			for (const char *k = p; k < q; k++)
				if (*k == '\n')
					c->next_line++;
			dfs_buf_add(&c->field, p, (size_t)(q - p));
			if (q + 1 < c->end && q[1] == '"') {
				dfs_buf_addc(&c->field, '"');
				p = q + 2;
				continue;
			}
			p = q + 1;
			break;
		}
		if (!dfs_buf_ok(&c->field))
			return dfs_error_nomem(err);
		*s = c->field.data ? c->field.data : "";
		*len = c->field.len;
		if (p < c->end && *p == '\r' && p + 1 < c->end && p[1] == '\n')
			p++;
		if (p < c->end && *p != ',' && *p != '\n')
			return dfs_error_set(err, DFS_ERR_INVAL,
			                     "line %zu, column %zu: text after a closing quote",
			                     c->line, column);
	} else {
		const char *q = p;
		while (q < c->end && *q != ',' && *q != '\n') {
			if (*q == '"')
				return dfs_error_set(err, DFS_ERR_INVAL,
				                     "line %zu, column %zu: quote inside an unquoted field",
				                     c->line, column);
			q++;
		}
		*s = p;
		*len = (size_t)(q - p);
		if (*len && q < c->end && *q == '\n' && q[-1] == '\r')
			(*len)--;
		p = q;
	}
	*last = p >= c->end || *p == '\n';
	if (p < c->end) {
		if (*p == '\n')
			c->next_line++;
		p++;
	}
	c->p = p;
	return 0;
}

/* Skip rows that are completely empty (a trailing newline). */
static bool at_end(struct cursor *c)
{
	while (c->p < c->end && (*c->p == '\n' || (*c->p == '\r' && c->p + 1 < c->end &&
	                                             c->p[1] == '\n'))) {
		c->p += *c->p == '\r' ? 2 : 1;
		c->next_line++;
	}
	c->line = c->next_line;
	return c->p >= c->end;
}

/* ---- header ----------------------------------------------------------------------- */

enum { COL_IGNORED = -1 };

struct columns {
	int *field;            /* per CSV column: module field index or COL_IGNORED */
	size_t n;
	int *present;          /* per module field: CSV column or -1 */
	size_t missing;        /* module fields without a column */
};

static const char *const place_names[] = {"file_name", "mount_pt", "fs_type"};

static bool importable(const dfs_field *f)
{
	return f->storage != DFS_S_VIRTUAL;
}

/* What a nameless first column most likely is. */
#define PANDAS_INDEX " (pandas' to_csv() writes its row numbers first, under no " \
	"name, unless told index=False: write the table with index=False, or " \
	"drop that column)"

/* "Unnamed: 0": how pandas reads a column without a name */
static bool pandas_unnamed(const char *s, size_t len)
{
	if (len < 10 || len > 20 || memcmp(s, "Unnamed: ", 9) != 0)
		return false;
	for (size_t i = 9; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

static int parse_header(struct cursor *c, const dfs_module *m,
                        struct columns *cols, dfs_error *err)
{
	memset(cols, 0, sizeof(*cols));
	cols->present = malloc(m->n_fields * sizeof(int));
	if (!cols->present)
		return dfs_error_nomem(err);
	for (size_t f = 0; f < m->n_fields; f++)
		cols->present[f] = -1;
	if (at_end(c))
		return dfs_error_set(err, DFS_ERR_INVAL,
		                     "empty input: a header line naming the columns is required");
	size_t cap = 0;
	bool last = false;
	while (!last) {
		const char *s;
		size_t len;
		if (next_field(c, &s, &len, &last, cols->n + 1, err))
			return -1;
		if (cols->n == cap) {
			cap = cap ? cap * 2 : 64;
			int *f = realloc(cols->field, cap * sizeof(int));
			if (!f)
				return dfs_error_nomem(err);
			cols->field = f;
		}
		int idx = COL_IGNORED;
		bool place = false;
		for (size_t k = 0; k < 3; k++)
			place |= strlen(place_names[k]) == len && !memcmp(place_names[k], s, len);
		if (!place) {
			for (size_t f = 0; f < m->n_fields && idx < 0; f++)
				if (strlen(m->fields[f].name) == len &&
				    memcmp(m->fields[f].name, s, len) == 0)
					idx = (int)f;
			if (idx < 0 && len == 0)
				return dfs_error_set(err, DFS_ERR_INVAL,
				                     "line %zu, column %zu: a column without a "
				                     "name%s", c->line, cols->n + 1,
				                     cols->n == 0 ? PANDAS_INDEX : "");
			if (idx < 0 && pandas_unnamed(s, len))
				return dfs_error_set(err, DFS_ERR_INVAL,
				                     "line %zu, column %zu: unknown column "
				                     "'%.*s' for %s (pandas names so a column "
				                     "that had no name: the row numbers an "
				                     "earlier to_csv() wrote without index=False; "
				                     "read that file with index_col=0, or drop "
				                     "the column)", c->line, cols->n + 1,
				                     (int)len, s, m->name);
			if (idx < 0) {
				/* the name as one printable line */
				char shown[4 * 80 + 1];
				size_t k = 0;
				for (size_t i = 0; i < len && i < 80; i++) {
					unsigned char ch = (unsigned char)s[i];
					if (ch >= 32 && ch < 127 && ch != '\\')
						shown[k++] = (char)ch;
					else
						k += (size_t)snprintf(shown + k, sizeof(shown) - k,
						                      "\\x%02x", ch);
				}
				shown[k] = '\0';
				return dfs_error_set(err, DFS_ERR_INVAL,
				                     "line %zu, column %zu: unknown column '%s' for %s",
				                     c->line, cols->n + 1, shown, m->name);
			}
			if (cols->present[idx] >= 0)
				return dfs_error_set(err, DFS_ERR_INVAL,
				                     "line %zu, column %zu: column '%s' appears twice",
				                     c->line, cols->n + 1, m->fields[idx].name);
			cols->present[idx] = (int)cols->n;
		}
		cols->field[cols->n++] = idx;
	}
	for (size_t f = 0; f < 2; f++)
		if (cols->present[f] < 0)
			return dfs_error_set(err, DFS_ERR_INVAL,
			                     "line %zu: the required column '%s' is missing",
			                     c->line, m->fields[f].name);
	for (size_t f = 0; f < m->n_fields; f++)
		if (cols->present[f] < 0 && importable(&m->fields[f]))
			cols->missing++;
	return 0;
}

static void columns_free(struct columns *cols)
{
	free(cols->field);
	free(cols->present);
}

/* A UTF-8 byte order mark (what spreadsheet tools write first) is not
 * part of the first column's name. */
static void skip_bom(const char **data, size_t *len)
{
	if (*len >= 3 && memcmp(*data, "\xef\xbb\xbf", 3) == 0) {
		*data += 3;
		*len -= 3;
	}
}

int dfs_csv_check_header(const dfs_module *m, const char *data, size_t len,
                         dfs_error *err)
{
	if (m->record_size == 0)
		return dfs_error_set(err, DFS_ERR_INVAL,
		                     "%s records cannot be imported from CSV "
		                     "(only fixed-size modules can)", m->name);
	skip_bom(&data, &len);
	struct cursor c = {data, data + len, 1, 1, DFS_BUF_INIT};
	struct columns cols;
	int ret = parse_header(&c, m, &cols, err);
	columns_free(&cols);
	dfs_buf_free(&c.field);
	return ret;
}

/* ---- values ----------------------------------------------------------------------- */

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool parse_uuid(const char *s, size_t len, unsigned char out[16])
{
	if (len != 36)
		return false;
	size_t k = 0;
	for (size_t i = 0; i < 36;) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return false;
			i++;
			continue;
		}
		int hi = hexval(s[i]), lo = hexval(s[i + 1]);
		if (hi < 0 || lo < 0)
			return false;
		out[k++] = (unsigned char)(hi << 4 | lo);
		i += 2;
	}
	return true;
}

/* ---- integers: exact or refused --------------------------------------------- */

/* Integers up to 2^53 survive a trip through a double exactly. */
#define EXACT_IN_DOUBLE ((int64_t)1 << 53)

/* "12.0", "-3.00": what pandas writes for an integer column that held a
 * missing value.  Taken only without an exponent, with a fraction of
 * zeros and up to 2^53 (the caller checks), where the double it came
 * from held the integer exactly; the text before the point goes to
 * *int_len. */
static bool zero_fraction(const char *s, size_t len, size_t *int_len)
{
	const char *dot = memchr(s, '.', len);
	if (!dot || dot == s || !(dot[-1] >= '0' && dot[-1] <= '9'))
		return false;
	for (const char *p = dot + 1; p < s + len; p++)
		if (*p != '0')
			return false;
	*int_len = (size_t)(dot - s);
	return true;
}

static bool exact_in_double(int64_t v)
{
	return v >= -EXACT_IN_DOUBLE && v <= EXACT_IN_DOUBLE;
}

/* 0x followed by 1 to 16 hex digits */
static bool parse_hex_u64(const char *s, size_t len, uint64_t *out)
{
	if (len < 3 || len > 18 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return false;
	uint64_t v = 0;
	for (size_t i = 2; i < len; i++) {
		int h = hexval(s[i]);
		if (h < 0)
			return false;
		v = v << 4 | (uint64_t)h;
	}
	*out = v;
	return true;
}

/* The value of an unsigned column (record ids are 64-bit hashes), also
 * written as a signed 64-bit integer: its two's complement, what a tool
 * with only signed integers holds. */
static bool parse_u64_signed(const char *s, size_t len, uint64_t *out)
{
	int64_t i;
	if (dfs_parse_u64(s, len, out))
		return true;
	if (!dfs_parse_i64(s, len, &i))
		return false;
	*out = (uint64_t)i;
	return true;
}

/* ... or as hex, or as "12.0" */
static bool parse_u64_any(const char *s, size_t len, uint64_t *out)
{
	size_t n;
	if (parse_u64_signed(s, len, out) || parse_hex_u64(s, len, out))
		return true;
	return zero_fraction(s, len, &n) && parse_u64_signed(s, n, out) &&
	       exact_in_double((int64_t)*out);
}

static bool parse_i64_any(const char *s, size_t len, int64_t *out)
{
	size_t n;
	if (dfs_parse_i64(s, len, out))
		return true;
	return zero_fraction(s, len, &n) && dfs_parse_i64(s, n, out) &&
	       exact_in_double(*out);
}

/* Written the way floating-point numbers are: with a point or an
 * exponent. */
static bool float_form(const char *s, size_t len)
{
	size_t sign = len && (s[0] == '-' || s[0] == '+');
	if (len > sign + 1 && s[sign] == '0' && (s[sign + 1] | 0x20) == 'x')
		return false; /* hex digits hold e */
	for (size_t i = 0; i < len; i++)
		if (s[i] == '.' || s[i] == 'e' || s[i] == 'E')
			return true;
	return false;
}

/* A number that is not an exact integer (1.9148580059744957e+18, 2.5,
 * 1e3) in an integer column: refused, never rounded, with the fix. */
static int inexact_integer(const dfs_field *f, const char *s, size_t len,
                           size_t line, size_t column, dfs_error *err)
{
	bool u = f->storage == DFS_S_U64;
	return dfs_error_set(err, DFS_ERR_INVAL,
	                     "line %zu, column %zu: %s: %.*s is not an exact "
	                     "integer; read %s as %s 64-bit integer (DuckDB "
	                     "types={'%s':'%s'}, pandas dtype={'%s':'%s'})",
	                     line, column, f->name, (int)(len > 60 ? 60 : len), s,
	                     f->name, u ? "an unsigned" : "a signed", f->name,
	                     u ? "UBIGINT" : "BIGINT", f->name,
	                     u ? "uint64" : "int64");
}

static int store_integer(const dfs_field *f, const char *s, size_t len,
                         unsigned char *rec, size_t line, size_t column,
                         dfs_error *err)
{
	union {
		uint64_t u;
		int64_t i;
		double d;
	} v;
	bool ok = f->storage == DFS_S_U64 ? parse_u64_any(s, len, &v.u)
	                                  : parse_i64_any(s, len, &v.i);
	if (ok) {
		dfs_store_u64(rec + f->offset, v.u);
		return 0;
	}
	if (dfs_parse_double(s, len, &v.d) && float_form(s, len))
		return inexact_integer(f, s, len, line, column, err);
	return dfs_error_set(err, DFS_ERR_INVAL,
	                     "line %zu, column %zu (%s): '%.*s' is not %s", line,
	                     column, f->name, (int)(len > 60 ? 60 : len), s,
	                     f->storage == DFS_S_U64 ?
	                     "an unsigned 64-bit integer" :
	                     "a signed 64-bit integer");
}

static int store_value(const dfs_field *f, const char *s, size_t len,
                       unsigned char *rec, size_t line, size_t column,
                       dfs_error *err)
{
	const char *what = NULL;
	switch (f->storage) {
	case DFS_S_I64:
	case DFS_S_U64:
		return store_integer(f, s, len, rec, line, column, err);
	case DFS_S_F64: {
		double v;
		if (dfs_parse_double(s, len, &v))
			dfs_store_f64(rec + f->offset, v);
		else
			what = "a number";
		break;
	}
	case DFS_S_UUID:
		if (!parse_uuid(s, len, rec + f->offset))
			what = "a uuid (8-4-4-4-12 hex digits)";
		break;
	case DFS_S_TEXT:
		if (len >= f->size || memchr(s, '\0', len))
			what = "text that fits the field";
		else {
			memset(rec + f->offset, 0, f->size);
			memcpy(rec + f->offset, s, len);
		}
		break;
	case DFS_S_VIRTUAL:
		break;
	}
	if (what)
		return dfs_error_set(err, DFS_ERR_INVAL,
		                     "line %zu, column %zu (%s): '%.*s' is not %s", line,
		                     column, f->name, (int)(len > 60 ? 60 : len), s, what);
	return 0;
}

/* The common field, read in the same pass as it is found: a plain number
 * in a numeric column, unquoted, ending at a comma or a newline.  false
 * (nothing consumed) for anything else, which next_field and store_value
 * then take, with their errors. */
static bool take_number(struct cursor *c, const dfs_field *f, unsigned char *rec,
                        bool *last)
{
	const char *q = NULL;
	union {
		uint64_t u;
		int64_t i;
		double d;
	} v;
	switch (f->storage) {
	case DFS_S_U64:
		q = dfs_scan_u64(c->p, c->end, &v.u);
		break;
	case DFS_S_I64:
		q = dfs_scan_i64(c->p, c->end, &v.i);
		break;
	case DFS_S_F64:
		q = dfs_scan_double(c->p, c->end, &v.d);
		break;
	default:
		return false;
	}
	if (!q || q == c->end || (*q != ',' && *q != '\n'))
		return false;
	if (f->storage == DFS_S_F64)
		dfs_store_f64(rec + f->offset, v.d);
	else
		dfs_store_u64(rec + f->offset, v.u);
	*last = *q == '\n';
	if (*last)
		c->next_line++;
	c->p = q + 1;
	return true;
}

/* ---- lookup of log records by (record_id, rank) for absent columns ----------- */

struct id_index {
	size_t *slot;        /* record index + 1, 0 empty */
	size_t mask;
};

static size_t id_hash(uint64_t id, int64_t rank, size_t mask)
{
	uint64_t x = id ^ ((uint64_t)rank * 0x9e3779b97f4a7c15ULL);
	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ULL;
	return (size_t)(x ^ (x >> 29)) & mask;
}

static int index_build(struct id_index *ix, const dfs_records *r)
{
	size_t cap = 16;
	while (cap < r->count * 2)
		cap *= 2;
	ix->slot = calloc(cap, sizeof(size_t));
	if (!ix->slot)
		return -1;
	ix->mask = cap - 1;
	for (size_t i = 0; i < r->count; i++) {
		size_t h = id_hash(dfs_record_word(r, i, 0),
		                   (int64_t)dfs_record_word(r, i, 1), ix->mask);
		while (ix->slot[h])
			h = (h + 1) & ix->mask;
		ix->slot[h] = i + 1;
	}
	return 0;
}

/* The log's record with this id and rank (unpacked into `scratch` when
 * the log's records are packed), or NULL. */
static const unsigned char *index_find(const struct id_index *ix,
                                       const dfs_records *r, uint64_t id,
                                       int64_t rank, unsigned char *scratch)
{
	for (size_t h = id_hash(id, rank, ix->mask); ix->slot[h]; h = (h + 1) & ix->mask) {
		size_t i = ix->slot[h] - 1;
		if (dfs_record_word(r, i, 0) == id &&
		    (int64_t)dfs_record_word(r, i, 1) == rank)
			return dfs_record_get(r, i, scratch);
	}
	return NULL;
}

int dfs_csv_check_unique(const dfs_records *r, dfs_error *err)
{
	if (r->count < 2)
		return 0;
	struct id_index ix = {NULL, 0};
	size_t cap = 16;
	while (cap < r->count * 2)
		cap *= 2;
	ix.slot = calloc(cap, sizeof(size_t));
	if (!ix.slot)
		return dfs_error_nomem(err);
	ix.mask = cap - 1;
	int ret = 0;
	for (size_t i = 0; i < r->count && ret == 0; i++) {
		uint64_t id = dfs_record_word(r, i, 0);
		int64_t rank = (int64_t)dfs_record_word(r, i, 1);
		size_t h = id_hash(id, rank, ix.mask);
		for (; ix.slot[h]; h = (h + 1) & ix.mask) {
			size_t j = ix.slot[h] - 1;
			if (dfs_record_word(r, j, 0) == id &&
			    (int64_t)dfs_record_word(r, j, 1) == rank) {
				ret = dfs_error_set(err, DFS_ERR_INVAL,
				                    "rows %zu and %zu (after the header) are "
				                    "both record_id %llu, rank %lld: a record "
				                    "can be imported once", j + 1, i + 1,
				                    (unsigned long long)id, (long long)rank);
				break;
			}
		}
		ix.slot[h] = i + 1;
	}
	free(ix.slot);
	return ret;
}

/* ---- import ------------------------------------------------------------------------ */

/* What every row parser shares. */
struct import_ctx {
	const dfs_module *m;
	const struct columns *cols;
	const dfs_records *logrecs;    /* for absent columns, or NULL */
	const struct id_index *ix;
	bool check_only;               /* absent columns are not filled */
};

/* The absent columns of `rec` from the log's record with its record_id
 * and rank; false when there is none. */
static bool fill_absent(const struct import_ctx *x, unsigned char *rec)
{
	const dfs_module *m = x->m;
	_Alignas(8) unsigned char scratch[DFS_RECORD_MAX];
	const unsigned char *src = x->logrecs ?
		index_find(x->ix, x->logrecs, dfs_record_id(rec), dfs_record_rank(rec),
		           scratch) : NULL;
	if (!src)
		return false;
	for (size_t f = 0; f < m->n_fields; f++) {
		const dfs_field *fd = &m->fields[f];
		if (x->cols->present[f] >= 0 || !importable(fd))
			continue;
		size_t size = fd->storage == DFS_S_UUID ? 16 :
		              fd->storage == DFS_S_TEXT ? fd->size : 8;
		memcpy(rec + fd->offset, src + fd->offset, size);
	}
	return true;
}

/* The rows from c->p to c->end appended to `out`. */
static int parse_rows(const struct import_ctx *x, struct cursor *c,
                      dfs_records *out, dfs_error *err)
{
	const dfs_module *m = x->m;
	const struct columns *cols = x->cols;
	int ret = 0;
	while (ret == 0 && !at_end(c)) {
		unsigned char *rec = dfs_records_append(out, m->record_size);
		if (!rec)
			return dfs_error_nomem(err);
		size_t col = 0;
		bool last = false;
		while (!last && ret == 0) {
			if (col < cols->n && cols->field[col] >= 0 &&
			    take_number(c, &m->fields[cols->field[col]], rec, &last)) {
				col++;
				continue;
			}
			const char *s;
			size_t flen;
			if (next_field(c, &s, &flen, &last, col + 1, err))
				return -1;
			if (col >= cols->n)
				return dfs_error_set(err, DFS_ERR_INVAL,
				                     "line %zu: %zu fields, but the header has %zu",
				                     c->line, col + 1, cols->n);
			int f = cols->field[col];
			if (f >= 0)
				ret = store_value(&m->fields[f], s, flen, rec, c->line, col + 1, err);
			col++;
		}
		if (ret == 0 && col != cols->n)
			ret = dfs_error_set(err, DFS_ERR_INVAL,
			                    "line %zu: %zu fields, but the header has %zu",
			                    c->line, col, cols->n);
		if (ret == 0 && cols->missing && !x->check_only && !fill_absent(x, rec))
			return dfs_error_set(err, DFS_ERR_INVAL,
			                     "line %zu: some columns are absent and the log has "
			                     "no record with record_id %llu and rank %lld to "
			                     "take them from",
			                     c->line, (unsigned long long)dfs_record_id(rec),
			                     (long long)dfs_record_rank(rec));
	}
	return ret;
}

/* ---- parsing on several cores -------------------------------------------------- */

/* Big inputs are cut at row boundaries into one part per core, parsed side
 * by side and joined in order.  A newline ends a row only outside quotes:
 * the cut goes at the first newline after the middle with an even number
 * of quotes before it (a doubled quote counts twice, so the parity holds).
 * If any part fails, the whole input is parsed again on one thread, so an
 * error is always reported as the sequential parse finds it. */
#define PARALLEL_MIN ((size_t)4 << 20)
#define MAX_PARTS 8

struct part {
	const struct import_ctx *x;
	struct cursor c;
	dfs_records recs;
	dfs_error err;
	int ret;
};

static void *parse_part(void *arg)
{
	struct part *pt = arg;
	pt->ret = parse_rows(pt->x, &pt->c, &pt->recs, &pt->err);
	return NULL;
}

/* Quotes in [p, end). */
static size_t count_quotes(const char *p, const char *end)
{
	size_t n = 0;
	while ((p = memchr(p, '"', (size_t)(end - p))) != NULL) {
		n++;
		p++;
	}
	return n;
}

/* Where parts of [from, end) begin (cuts[0] = from); returns the count. */
static size_t cut_parts(const char *from, const char *end, size_t want,
                        const char **cuts)
{
	size_t n = 1, quotes = 0;
	const char *p = from;
	cuts[0] = from;
	for (size_t k = 1; k < want; k++) {
		const char *target = from + (size_t)(end - from) / want * k;
		if (target <= p)
			continue;
		quotes += count_quotes(p, target);
		/* from the target on, the first newline outside quotes */
		for (p = target; p < end; p++) {
			if (*p == '"')
				quotes++;
			else if (*p == '\n' && quotes % 2 == 0)
				break;
		}
		if (p >= end || ++p >= end)
			break;
		cuts[n++] = p;
	}
	return n;
}

/* true when the rows are appended to `out` (and *lines is the number of
 * lines they span); false when the input is too small to cut or a part
 * failed (out is then left as it was for the one-thread parse, which also
 * gives the first error its line: the parts do not count lines, and a
 * later part may fail before an earlier one). */
static bool parse_parallel(const struct import_ctx *x, const struct cursor *c0,
                           size_t parts_wanted, dfs_records *out, size_t *lines)
{
	const char *cuts[MAX_PARTS + 1];
	size_t n = cut_parts(c0->p, c0->end, parts_wanted, cuts);
	if (n < 2)
		return false;
	cuts[n] = c0->end;
	/* a part has at most one row per line it spans: each gets that many
	 * record slots of `out`, back to back, and parses into them in place */
	size_t rsize = x->m->record_size, slots[MAX_PARTS], total = 0;
	for (size_t k = 0; k < n; k++) {
		size_t nl = 0;
		for (const char *p = cuts[k]; p < cuts[k + 1]; p++) {
			p = memchr(p, '\n', (size_t)(cuts[k + 1] - p));
			if (!p)
				break;
			nl++;
		}
		slots[k] = nl + 1;
		total += slots[k];
	}
	if (total > SIZE_MAX / rsize || dfs_records_reserve(out, total * rsize))
		return false;
	struct part pts[MAX_PARTS];
	memset(pts, 0, sizeof(pts));
	for (size_t k = 0, before = out->size / rsize; k < n; k++) {
		pts[k].x = x;
		pts[k].c = (struct cursor){cuts[k], cuts[k + 1], 0, 0, DFS_BUF_INIT};
		/* a window on out's memory that appends never outgrow */
		dfs_records_init(&pts[k].recs, x->m, x->m->version);
		pts[k].recs.data = out->data + before * rsize;
		pts[k].recs.cap = slots[k] * rsize;
		before += slots[k];
	}
	pthread_t tid[MAX_PARTS];
	bool started[MAX_PARTS] = {false};
	for (size_t k = 1; k < n; k++)
		started[k] = pthread_create(&tid[k], NULL, parse_part, &pts[k]) == 0;
	parse_part(&pts[0]);
	bool ok = pts[0].ret == 0;
	for (size_t k = 1; k < n; k++) {
		if (started[k])
			pthread_join(tid[k], NULL);
		else
			parse_part(&pts[k]);
		ok = ok && pts[k].ret == 0;
	}
	/* close the gaps left by parts with fewer rows than slots */
	if (ok) {
		*lines = 0;
		for (size_t k = 0; k < n; k++) {
			*lines += pts[k].c.next_line;
			if (pts[k].recs.size && pts[k].recs.data != out->data + out->size)
				memmove(out->data + out->size, pts[k].recs.data, pts[k].recs.size);
			out->size += pts[k].recs.size;
			out->count += pts[k].recs.count;
		}
	}
	for (size_t k = 0; k < n; k++)
		dfs_buf_free(&pts[k].c.field);
	return ok;
}

int dfs_csv_import(const dfs_log *log, const dfs_module *m, const char *data,
                   size_t len, dfs_records *out, dfs_error *err)
{
	if (m->record_size == 0)
		return dfs_csv_check_header(m, data, len, err);
	skip_bom(&data, &len);
	struct cursor c = {data, data + len, 1, 1, DFS_BUF_INIT};
	struct columns cols;
	struct id_index ix = {NULL, 0};
	const dfs_records *logrecs = NULL;
	int ret = parse_header(&c, m, &cols, err);
	if (ret == 0 && cols.missing) {
		logrecs = log ? dfs_log_records(log, m->id) : NULL;
		if (logrecs && index_build(&ix, logrecs))
			ret = dfs_error_nomem(err);
	}
	struct import_ctx x = {m, &cols, logrecs, &ix, false};
	bool done = false;
	size_t lines;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (ret == 0 && cpus > 1 && (size_t)(c.end - c.p) >= PARALLEL_MIN &&
	    out->count == 0 && !out->offsets)
		done = parse_parallel(&x, &c, cpus < MAX_PARTS ? (size_t)cpus : MAX_PARTS, out,
		                      &lines);
	if (ret == 0 && !done) {
		/* one record per line at most: reserve once instead of regrowing */
		lines = 0;
		for (const char *p = c.p; p && p < c.end; p = memchr(p, '\n', (size_t)(c.end - p)))
			lines++, p++;
		if (lines && lines <= SIZE_MAX / m->record_size)
			dfs_records_reserve(out, lines * m->record_size);
		ret = parse_rows(&x, &c, out, err);
	}
	free(ix.slot);
	columns_free(&cols);
	dfs_buf_free(&c.field);
	if (ret)
		dfs_records_free(out);
	return ret;
}

/* ---- checking rows as they arrive ----------------------------------------- */

struct dfs_csv_rows {
	const dfs_module *m;
	struct columns cols;
	dfs_records scratch;   /* the rows of one feed, thrown away, or... */
	size_t keep_max;       /* ...every row so far, kept up to this many
	                        * records (0: none kept) */
	dfs_buf field;
	size_t done;           /* the text checked so far ends a row here */
	size_t scanned;        /* looked at for row ends up to here */
	size_t row_end;        /* after the last row end found */
	bool in_quotes;        /* at `scanned` */
	size_t line;           /* the line of the row at `done` */
	size_t parts;          /* threads that check the rows of a big feed */
	size_t newlines;       /* in the text up to `scanned` */
};

/* The rows a write completes (the kernel hands up to 128 KiB to 1 MiB at
 * a time) are checked on every core when there are this many bytes of
 * them: the first bad row is still the one reported (parse_parallel). */
#define FEED_PARALLEL_MIN ((size_t)32 << 10)

dfs_csv_rows *dfs_csv_rows_start(const dfs_module *m, const char *text,
                                 size_t len, dfs_error *err)
{
	if (m->record_size == 0) {
		dfs_csv_check_header(m, text, len, err);
		return NULL;
	}
	dfs_csv_rows *k = calloc(1, sizeof(*k));
	if (!k) {
		dfs_error_nomem(err);
		return NULL;
	}
	const char *data = text;
	size_t n = len;
	skip_bom(&data, &n);
	struct cursor c = {data, data + n, 1, 1, DFS_BUF_INIT};
	if (parse_header(&c, m, &k->cols, err)) {
		dfs_buf_free(&c.field);
		columns_free(&k->cols);
		free(k);
		return NULL;
	}
	k->m = m;
	k->field = c.field;
	k->done = k->scanned = k->row_end = (size_t)(c.p - text);
	for (size_t i = 0; i < k->scanned; i++)
		k->newlines += text[i] == '\n';
	k->line = c.next_line;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	k->parts = cpus < 1 ? 1 : cpus > MAX_PARTS ? MAX_PARTS : (size_t)cpus;
	dfs_records_init(&k->scratch, m, m->version);
	return k;
}

/* Move k->scanned to `len`, noting where the last row ends: at a newline
 * outside quotes (a doubled quote flips twice and changes nothing). */
static void scan_rows(dfs_csv_rows *k, const char *text, size_t len)
{
	const char *p = text + k->scanned, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *stop = nl ? nl : end;
		for (const char *q = p; (q = memchr(q, '"', (size_t)(stop - q))); q++)
			k->in_quotes = !k->in_quotes;
		if (!nl)
			break;
		k->newlines++;
		if (!k->in_quotes)
			k->row_end = (size_t)(nl + 1 - text);
		p = nl + 1;
	}
	k->scanned = len;
}

int dfs_csv_rows_feed(dfs_csv_rows *k, const char *text, size_t len,
                      dfs_error *err)
{
	if (len <= k->scanned)
		return 0;
	scan_rows(k, text, len);
	if (k->row_end <= k->done)
		return 0;
	struct cursor c = {text + k->done, text + k->row_end, k->line, k->line,
	                   k->field};
	struct import_ctx x = {k->m, &k->cols, NULL, NULL, true};
	if (k->keep_max && k->scratch.count > k->keep_max)
		k->keep_max = 0;   /* too many: the import will refuse them */
	if (!k->keep_max) {
		k->scratch.count = 0;
		k->scratch.size = 0;
	}
	size_t lines;
	int ret = 0;
	if (k->row_end - k->done >= FEED_PARALLEL_MIN && k->parts > 1 &&
	    parse_parallel(&x, &c, k->parts, &k->scratch, &lines)) {
		c.next_line += lines;
	} else {
		ret = parse_rows(&x, &c, &k->scratch, err);
		k->field = c.field;
	}
	k->line = c.next_line;
	k->done = k->row_end;
	return ret;
}

size_t dfs_csv_rows_newlines(const dfs_csv_rows *k, const char *text, size_t len)
{
	if (len < k->scanned)
		return SIZE_MAX;
	size_t n = k->newlines;
	for (const char *p = text + k->scanned, *end = text + len;
	     (p = memchr(p, '\n', (size_t)(end - p))); p++)
		n++;
	return n;
}

void dfs_csv_rows_keep(dfs_csv_rows *k, size_t max_records,
                       struct dfs_scratch *pool)
{
	/* (only from the start) */
	if (k->scratch.count == 0 && !k->scratch.data) {
		k->keep_max = max_records;
		k->scratch.scratch = pool;
	}
}

size_t dfs_csv_rows_memory(const dfs_csv_rows *k)
{
	return k ? sizeof(*k) + k->scratch.cap + k->field.cap : 0;
}

void dfs_csv_rows_drop(dfs_csv_rows *k)
{
	k->keep_max = 0;
	dfs_records_free(&k->scratch);
}

/* Columns absent from the CSV into every kept row, from the log's
 * records; false when a row has no record to take them from (the import
 * of the whole text then says which line). */
static bool fill_kept(dfs_csv_rows *k, const dfs_log *log)
{
	const dfs_records *logrecs = log ? dfs_log_records(log, k->m->id) : NULL;
	struct id_index ix = {NULL, 0};
	if (!logrecs || index_build(&ix, logrecs))
		return false;
	struct import_ctx x = {k->m, &k->cols, logrecs, &ix, false};
	bool ok = true;
	for (size_t i = 0; ok && i < k->scratch.count; i++)
		ok = fill_absent(&x, k->scratch.data + i * k->m->record_size);
	free(ix.slot);
	return ok;
}

int dfs_csv_rows_finish(dfs_csv_rows *k, const dfs_log *log, const char *text,
                        size_t len, dfs_records *out, dfs_error *err)
{
	if (!k->keep_max || len < k->scanned || k->scratch.count > k->keep_max)
		return 1;
	/* the rest: a last row without its newline, or blank lines */
	struct cursor c = {text + k->done, text + len, k->line, k->line, k->field};
	struct import_ctx x = {k->m, &k->cols, NULL, NULL, true};
	int ret = parse_rows(&x, &c, &k->scratch, err);
	/* (the feeds go on from where they were: more text may come, and
	 * complete that last row) */
	k->field = c.field;
	if (ret)
		return -1;
	if (k->cols.missing && !fill_kept(k, log))
		return 1;
	dfs_records_free(out);
	*out = k->scratch;
	dfs_records_init(&k->scratch, k->m, k->m->version);
	k->keep_max = 0;
	return 0;
}

void dfs_csv_rows_free(dfs_csv_rows *k)
{
	if (!k)
		return;
	columns_free(&k->cols);
	dfs_buf_free(&k->field);
	dfs_records_free(&k->scratch);
	free(k);
}
