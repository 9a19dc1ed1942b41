/* table.c - the tables of the tree as Parquet (parquet.h, second part):
 * a module's records with records.csv's columns, and any CSV table of the
 * tree given its columns' types. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "log/hints.h"
#include "parquet/parquet.h"
#include "util/utf8.h"
#include "module/pack.h"

/* Text for a STRING column: as it is when it is UTF-8, else with every
 * byte that is not part of a well-formed character written as \xNN (the
 * way Python's backslashreplace shows them), into `tmp`. */
static void put_text_in(dfs_pq *w, size_t col, const char *s, size_t len,
                        dfs_buf *tmp)
{
	if (len == 0) {   /* as engines read an empty CSV field */
		if (col == SIZE_MAX)
			dfs_pq_null(w);
		else
			dfs_pq_bulk_null(w, col);
		return;
	}
	if (dfs_utf8_valid(s, len)) {
		if (col == SIZE_MAX)
			dfs_pq_str(w, s, len);
		else
			dfs_pq_bulk_str(w, col, s, len);
		return;
	}
	dfs_buf_reset(tmp);
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < len;) {
		size_t n = u[i] < 0x80 ? 1 : dfs_utf8_char(u + i, len - i);
		if (n) {
			dfs_buf_add(tmp, s + i, n);
			i += n;
		} else {
			dfs_buf_printf(tmp, "\\x%02x", u[i]);
			i++;
		}
	}
	if (col == SIZE_MAX)
		dfs_pq_str(w, tmp->data ? tmp->data : "", tmp->len);
	else
		dfs_pq_bulk_str(w, col, tmp->data ? tmp->data : "", tmp->len);
}

/* (the next value of the row) */
static void put_text(dfs_pq *w, const char *s, size_t len, dfs_buf *tmp)
{
	put_text_in(w, SIZE_MAX, s, len, tmp);
}

static enum dfs_pq_type pq_type(dfs_type t)
{
	switch (t) {
	case DFS_T_U64: return DFS_PQ_UINT64;
	case DFS_T_F64: return DFS_PQ_DOUBLE;
	case DFS_T_STR: return DFS_PQ_STRING;
	default: return DFS_PQ_INT64;
	}
}

static void put_value(dfs_pq *w, const dfs_value *v, dfs_buf *tmp)
{
	switch (v->type) {
	case DFS_T_NONE: dfs_pq_null(w); return;
	case DFS_T_I64: dfs_pq_i64(w, v->v.i); return;
	case DFS_T_U64: dfs_pq_u64(w, v->v.u); return;
	case DFS_T_F64: dfs_pq_f64(w, v->v.d); return;
	case DFS_T_STR: put_text(w, v->v.s.ptr, v->v.s.len, tmp); return;
	}
}

/* Rows of a batch: few enough that its columns (POSIX: 93 of 8-byte
 * values, 372 KiB) stay in the processor's cache from the zeros written
 * into them to the words scattered over them.  On the 1M-record
 * benchmark log, 512 rows took 10 to 20% less CPU for records.parquet
 * than 4,096 (3 MiB of columns a batch); 256 no less than 512. */
#define BATCH 512

/* Packed records of a module whose fields are their record's words
 * (dfs_module.words_only), a batch of rows at a time: each batch's
 * columns start as zeros and each record's non-zero words, listed by its
 * bitmap, land in their columns; most counters of most records are zero,
 * so most values cost nothing. */
struct packed_job {
	const dfs_log *log;
	const dfs_module *m;
	const dfs_records *r;
	const size_t *index;
};

/* The rows [first, first + count) (dfs_pq_fill_fn): a row group, on one
 * of the threads filling them. */
static void packed_rows(dfs_pq *w, uint64_t first, size_t count, void *arg)
{
	const struct packed_job *pj = arg;
	const dfs_log *log = pj->log;
	const dfs_module *m = pj->m;
	const dfs_records *r = pj->r;
	const size_t *index = pj->index;
	size_t nf = m->n_fields, nb = dfs_pack_bitmap_words(m);
	uint64_t **col = malloc(nf * sizeof(*col));
	dfs_buf tmpb = DFS_BUF_INIT, *tmp = &tmpb;
	if (!col) {
		dfs_pq_null(w);   /* (a row left incomplete: the table fails) */
		return;
	}
	dfs_name_hint hint = DFS_NAME_HINT_INIT;
	for (size_t k = 0; k < count;) {
		size_t n = count - k, room = dfs_pq_group_room(w);
		n = n < BATCH ? n : BATCH;
		n = n < room ? n : room;
		for (size_t f = 0; f < nf; f++)
			if (!(col[f] = dfs_pq_bulk(w, f, n)))
				goto done;
		for (size_t j = 0; j < n; j++) {
			size_t i = index ? index[first + k + j] : (size_t)first + k + j;
			const unsigned char *p = dfs_record_packed(r, i);
			const unsigned char *vals = p + nb * 8;
			uint64_t id = 0;
			for (size_t b = 0; b < nb; b++) {
				uint64_t bits;
				memcpy(&bits, p + 8 * b, 8);
				if (b == 0 && (bits & 1))
					memcpy(&id, vals, 8);
				while (bits) {
					size_t f = b * 64 + (size_t)__builtin_ctzll(bits);
					bits &= bits - 1;
					if (f < nf)
						memcpy(&col[f][j], vals, 8);
					vals += 8;
				}
			}
			_Alignas(8) unsigned char head[8];
			memcpy(head, &id, 8);
			dfs_record_place pl;
			dfs_log_record_place_near(log, m, head, &hint, &pl);
			put_text_in(w, nf, pl.name, pl.name_len, tmp);
			put_text_in(w, nf + 1, pl.mount, pl.mount_len, tmp);
			put_text_in(w, nf + 2, pl.fs_type, pl.fs_type_len, tmp);
		}
		dfs_pq_bulk_rows(w, n);
		k += n;
	}
done:
	free(col);
	dfs_buf_free(tmp);
}

int dfs_pq_records(const dfs_log *log, const dfs_module *m, const dfs_records *r,
                   const size_t *index, size_t count,
                   const struct dfs_pq_options *opt, dfs_buf **parts, size_t *nparts,
                   dfs_error *err)
{
	*parts = NULL;
	*nparts = 0;
	size_t ncols = m->n_fields + 3;
	struct dfs_pq_column *cols = calloc(ncols, sizeof(*cols));
	dfs_value *v = malloc(sizeof(*v));
	unsigned char *scratch = malloc(DFS_RECORD_MAX);
	dfs_pq *w = NULL;
	int rc = -1;
	if (!cols || !v || !scratch) {
		dfs_error_nomem(err);
		goto done;
	}
	for (size_t f = 0; f < m->n_fields; f++) {
		cols[f].name = m->fields[f].name;
		cols[f].type = pq_type(m->fields[f].type);
		/* a cell may be empty (a DXT segment of an old version has no
		 * thread id, an APMPI rank row no variances): all optional */
		cols[f].optional = true;
	}
	static const char *const place[3] = {"file_name", "mount_pt", "fs_type"};
	for (size_t k = 0; k < 3; k++)
		cols[m->n_fields + k] = (struct dfs_pq_column){place[k], DFS_PQ_STRING, true};
	struct dfs_pq_options o = {.codec = DFS_PQ_ZSTD};
	if (opt)
		o = *opt;
	/* groups of 16 MiB of values, not 64: what the threads filling
	 * them hold at once stays in the processor's cache far more (on the
	 * 1M-record benchmark log, 15% less CPU time than 64 MiB; 4 MiB
	 * loses it again in the groups' pages and dictionaries) */
	if (!o.group_bytes)
		o.group_bytes = (size_t)16 << 20;
	if (!o.rows_hint && (!m->row_count || !m->record_size))
		o.rows_hint = count;   /* (a row a record, for most modules) */
	w = dfs_pq_new(cols, ncols, &o, err);
	if (!w)
		goto done;

	const dfs_names *names = log ? dfs_log_names(log) : NULL;
	dfs_name_hint hint = DFS_NAME_HINT_INIT;
	dfs_buf tmp = DFS_BUF_INIT;
	bool fixed = m->record_size && !m->row_count;
	if (r->packed && m->words_only) {
		/* a row a record: row groups filled on all threads at once */
		struct packed_job pj = {log, m, r, index};
		dfs_pq_fill_groups(w, count, packed_rows, &pj);
		count = 0;
	}
	for (size_t k = 0; k < count; k++) {
		size_t i = index ? index[k] : k;
		const unsigned char *rec = dfs_record_get(r, i, scratch);
		size_t len = dfs_record_size(r, i);
		dfs_record_place pl;
		dfs_log_record_place_near(log, m, rec, &hint, &pl);
		size_t rows = dfs_module_rows(m, rec, len);
		for (size_t row = 0; row < rows; row++) {
			for (size_t f = 0; f < m->n_fields; f++) {
				const dfs_field *fd = &m->fields[f];
				if (fixed && (fd->storage == DFS_S_I64 || fd->storage == DFS_S_U64 ||
				              fd->storage == DFS_S_F64)) {
					uint64_t x;
					memcpy(&x, rec + fd->offset, 8);
					if (fd->storage == DFS_S_F64) {
						double d;
						memcpy(&d, &x, 8);
						dfs_pq_f64(w, d);
					} else if (fd->storage == DFS_S_U64) {
						dfs_pq_u64(w, x);
					} else {
						dfs_pq_i64(w, (int64_t)x);
					}
					continue;
				}
				dfs_module_get_log_value(names, m, rec, len, row, f, v);
				put_value(w, v, &tmp);
			}
			put_text(w, pl.name, pl.name_len, &tmp);
			put_text(w, pl.mount, pl.mount_len, &tmp);
			put_text(w, pl.fs_type, pl.fs_type_len, &tmp);
		}
	}
	dfs_buf_free(&tmp);
	rc = dfs_pq_finish_parts(w, parts, nparts, err);
	if (rc < 0)
		dfs_error_prefix(err, "%s records as Parquet", m->name);
done:
	dfs_pq_free(w);
	free(cols);
	free(v);
	free(scratch);
	return rc;
}

/* ---- a CSV table of the tree ------------------------------------------- */

/* The next field of the CSV at *p (before end): unquoted or quoted with
 * doubled quotes, into `cell` (quotes removed); *p moves past the comma,
 * or to the end of the line (sets *eol) or of the text. */
static void next_cell(const char **p, const char *end, dfs_buf *cell, bool *eol)
{
	const char *s = *p;
	dfs_buf_reset(cell);
	*eol = false;
	if (s < end && *s == '"') {
		s++;
		for (;;) {
			const char *q = memchr(s, '"', (size_t)(end - s));
			if (!q) {
				dfs_buf_add(cell, s, (size_t)(end - s));
				s = end;
				break;
			}
			dfs_buf_add(cell, s, (size_t)(q - s));
			s = q + 1;
			if (s < end && *s == '"') {
				dfs_buf_addc(cell, '"');
				s++;
				continue;
			}
			break;
		}
	} else {
		const char *q = s;
		while (q < end && *q != ',' && *q != '\n' && *q != '\r')
			q++;
		dfs_buf_add(cell, s, (size_t)(q - s));
		s = q;
	}
	if (s < end && *s == ',') {
		s++;
	} else {
		if (s < end && *s == '\r')
			s++;
		if (s < end && *s == '\n')
			s++;
		*eol = true;
	}
	*p = s;
}

static bool digits(const char *s, int n, int *v)
{
	*v = 0;
	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		*v = *v * 10 + (s[i] - '0');
	}
	return true;
}

/* Days from 1970-01-01 to y-m-d of the proleptic Gregorian calendar. */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* An ISO 8601 time of the calendar, as the tree writes them:
 * YYYY-MM-DDTHH:MM:SS, maybe a fraction, then Z (or +HH:MM / -HH:MM),
 * into microseconds since the epoch. */
static bool iso_time(const char *s, size_t len, int64_t *us)
{
	int y, mo, d, h, mi, se;
	if (len < 19 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != ' ') ||
	    s[13] != ':' || s[16] != ':' || !digits(s, 4, &y) || !digits(s + 5, 2, &mo) ||
	    !digits(s + 8, 2, &d) || !digits(s + 11, 2, &h) || !digits(s + 14, 2, &mi) ||
	    !digits(s + 17, 2, &se) || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 ||
	    mi > 59 || se > 60)
		return false;
	size_t i = 19;
	int64_t frac = 0, scale = 1000000;
	if (i < len && s[i] == '.') {
		i++;
		size_t start = i;
		while (i < len && s[i] >= '0' && s[i] <= '9') {
			if (scale > 1) {
				scale /= 10;
				frac += (s[i] - '0') * scale;
			}
			i++;
		}
		if (i == start)
			return false;
	}
	int64_t offset = 0;
	if (i < len && s[i] == 'Z') {
		i++;
	} else if (i + 6 == len && (s[i] == '+' || s[i] == '-') && s[i + 3] == ':') {
		int oh, om;
		if (!digits(s + i + 1, 2, &oh) || !digits(s + i + 4, 2, &om))
			return false;
		offset = (s[i] == '-' ? -1 : 1) * ((int64_t)oh * 3600 + om * 60);
		i += 6;
	}
	if (i != len)
		return false;
	int64_t sec = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se - offset;
	*us = sec * 1000000 + frac;
	return true;
}

/* The cell's text as a value of its column's type into w: an empty cell
 * is a null (text too: engines read an empty CSV field so);
 * anything that does not read whole as that type is an error (the
 * declared type is wrong, a bug), never a guess. */
static bool put_cell(dfs_pq *w, const struct dfs_pq_column *c, const dfs_buf *cell,
                     dfs_buf *tmp)
{
	const char *s = cell->data ? cell->data : "";
	size_t len = cell->len;
	if (len == 0) {
		dfs_pq_null(w);   /* as engines read an empty CSV field */
		return true;
	}
	char *end;
	errno = 0;
	switch (c->type) {
	case DFS_PQ_STRING:
		put_text(w, s, len, tmp);
		return true;
	case DFS_PQ_INT64: {
		long long v = strtoll(s, &end, 10);
		if (errno || end != s + len)
			return false;
		dfs_pq_i64(w, v);
		return true;
	}
	case DFS_PQ_UINT64: {
		if (s[0] == '-')
			return false;
		unsigned long long v = strtoull(s, &end, 10);
		if (errno || end != s + len)
			return false;
		dfs_pq_u64(w, v);
		return true;
	}
	case DFS_PQ_DOUBLE: {
		double v = strtod(s, &end);
		if (end != s + len || (errno && isfinite(v) && v != 0))
			return false;
		dfs_pq_f64(w, v);
		return true;
	}
	case DFS_PQ_TIMESTAMP: {
		int64_t us;
		if (!iso_time(s, len, &us)) {
			/* seconds since the epoch, perhaps with a fraction */
			double v = strtod(s, &end);
			if (end != s + len || !isfinite(v) || fabs(v) > 9.2e12)
				return false;
			us = (int64_t)llround(v * 1e6);
		}
		dfs_pq_time(w, us);
		return true;
	}
	case DFS_PQ_BOOL:
		if (len == 1 && (s[0] == '0' || s[0] == '1')) {
			dfs_pq_bool(w, s[0] == '1');
			return true;
		}
		if (strcmp(s, "true") == 0 || strcmp(s, "false") == 0) {
			dfs_pq_bool(w, s[0] == 't');
			return true;
		}
		return false;
	}
	return false;
}

int dfs_pq_from_csv(const char *csv, size_t len, const struct dfs_pq_column *types,
                    size_t ntypes, const struct dfs_pq_options *opt, dfs_buf *out,
                    dfs_error *err)
{
	const char *p = csv, *end = csv + len;
	dfs_buf cell = DFS_BUF_INIT, tmp = DFS_BUF_INIT;
	struct dfs_pq_column *cols = NULL;
	size_t ncols = 0, cap = 0;
	dfs_pq *w = NULL;
	int rc = -1;
	bool eol = false;
	/* the header: each name's type from `types` */
	while (p < end && !eol) {
		next_cell(&p, end, &cell, &eol);
		const struct dfs_pq_column *t = NULL;
		for (size_t i = 0; i < ntypes; i++)
			if (cell.data && strcmp(types[i].name, cell.data) == 0)
				t = &types[i];
		if (!t) {
			dfs_error_set(err, DFS_ERR_INVAL, "Parquet: no type for column '%s'",
			              cell.data ? cell.data : "");
			goto done;
		}
		if (ncols == cap) {
			cap = cap ? 2 * cap : 32;
			struct dfs_pq_column *c = realloc(cols, cap * sizeof(*c));
			if (!c)
				goto nomem;
			cols = c;
		}
		cols[ncols] = *t;
		cols[ncols].optional = true;   /* an empty cell is a null */
		ncols++;
	}
	if (ncols == 0) {
		dfs_error_set(err, DFS_ERR_INVAL, "Parquet: a table without a header");
		goto done;
	}
	w = dfs_pq_new(cols, ncols, opt, err);
	if (!w)
		goto done;
	size_t line = 1;
	while (p < end) {
		line++;
		for (size_t c = 0; c < ncols; c++) {
			if (p >= end) {
				dfs_error_set(err, DFS_ERR_INVAL, "Parquet: line %zu has %zu fields, not %zu",
				              line, c, ncols);
				goto done;
			}
			next_cell(&p, end, &cell, &eol);
			if (eol != (c == ncols - 1)) {
				dfs_error_set(err, DFS_ERR_INVAL, "Parquet: line %zu does not have %zu fields",
				              line, ncols);
				goto done;
			}
			if (!put_cell(w, &cols[c], &cell, &tmp)) {
				dfs_error_set(err, DFS_ERR_INVAL,
				              "Parquet: line %zu, column %s: '%.60s' is not of its type",
				              line, cols[c].name, cell.data ? cell.data : "");
				goto done;
			}
		}
		eol = false;
	}
	if (!dfs_buf_ok(&cell) || !dfs_buf_ok(&tmp))
		goto nomem;
	rc = dfs_pq_finish(w, out, err);
	goto done;
nomem:
	dfs_error_nomem(err);
done:
	dfs_pq_free(w);
	free(cols);
	dfs_buf_free(&cell);
	dfs_buf_free(&tmp);
	return rc;
}
