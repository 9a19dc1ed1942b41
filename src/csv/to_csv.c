/* to_csv.c - records, mounts and names as CSV text. */
#include <string.h>

#include "csv/csv.h"
#include "util/format.h"
#include "log/hints.h"
#include "util/utf8.h"
#include "module/pack.h"

#define ZERO_FIELDS 128   /* bytes of zero_fields (below) */

/* A field is quoted when it holds a comma, a quote, a control character
 * (line breaks among them) or bytes that are not UTF-8 (dfs_csv_plain). */
static inline bool needs_quotes(const char *s, size_t len)
{
	return !dfs_csv_plain(s, len);
}

size_t dfs_csv_field_at(char *out, const char *s, size_t len)
{
	if (!needs_quotes(s, len)) {
		memcpy(out, s, len);
		return len;
	}
	char *p = out;
	*p++ = '"';
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '"')
			*p++ = '"';
		*p++ = s[i];
	}
	*p++ = '"';
	return (size_t)(p - out);
}

void dfs_csv_field(dfs_buf *out, const char *s, size_t len)
{
	if (!needs_quotes(s, len)) {
		dfs_buf_add(out, s, len);
		return;
	}
	dfs_buf_addc(out, '"');
	const char *p = s, *end = s + len;
	while (p < end) {
		const char *q = memchr(p, '"', (size_t)(end - p));
		if (!q) {
			dfs_buf_add(out, p, (size_t)(end - p));
			break;
		}
		dfs_buf_add(out, p, (size_t)(q - p) + 1);
		dfs_buf_addc(out, '"');
		p = q + 1;
	}
	dfs_buf_addc(out, '"');
}

void dfs_csv_value(dfs_buf *out, const dfs_value *v)
{
	switch (v->type) {
	case DFS_T_I64: dfs_buf_add_i64(out, v->v.i); break;
	case DFS_T_U64: dfs_buf_add_u64(out, v->v.u); break;
	case DFS_T_F64: dfs_buf_add_double(out, v->v.d); break;
	case DFS_T_STR: dfs_csv_field(out, v->v.s.ptr, v->v.s.len); break;
	case DFS_T_NONE: break;
	}
}

void dfs_csv_header(const dfs_module *m, dfs_buf *out)
{
	for (size_t f = 0; f < m->n_fields; f++) {
		dfs_buf_adds(out, m->fields[f].name);
		dfs_buf_addc(out, ',');
	}
	dfs_buf_adds(out, "file_name,mount_pt,fs_type\n");
}

/* One 8-byte number field of storage st (I64, U64 or F64) into p, as
 * dfs_csv_value writes it; returns the bytes written. */
static inline size_t put_word(char *p, dfs_storage st, uint64_t v)
{
	if (st == DFS_S_F64) {
		double d;
		memcpy(&d, &v, 8);
		return dfs_fmt_double(p, d);
	}
	if (v < 10) { /* most counters: 0 and single digits */
		*p = (char)('0' + v);
		return 1;
	}
	return st == DFS_S_I64 ? dfs_fmt_i64(p, (int64_t)v) : dfs_fmt_u64(p, v);
}

/* The bytes put_word writes */
static inline size_t word_len(dfs_storage st, uint64_t v)
{
	if (st == DFS_S_F64) {
		double d;
		memcpy(&d, &v, 8);
		return dfs_fmt_double_len(d);
	}
	return st == DFS_S_I64 ? dfs_fmt_i64_len((int64_t)v) : dfs_fmt_u64_len(v);
}

/* The fields of a fixed-size record, numbers written without per-value
 * checks into space reserved once per row. */
static void add_fields_fast(const dfs_module *m, const unsigned char *rec,
                            size_t len, dfs_buf *out)
{
	if (!dfs_buf_grow(out, m->n_fields * (DFS_FMT_DOUBLE_MAX + 1)))
		return;
	char *p = out->data + out->len;
	for (size_t f = 0; f < m->n_fields; f++) {
		const dfs_field *fd = &m->fields[f];
		if (fd->storage == DFS_S_I64 || fd->storage == DFS_S_U64 ||
		    fd->storage == DFS_S_F64) {
			uint64_t v;
			memcpy(&v, rec + fd->offset, 8);
			p += put_word(p, fd->storage, v);
		} else {
			/* text and uuids: the general path */
			out->len = (size_t)(p - out->data);
			dfs_value v;
			dfs_module_get_value(m, rec, len, 0, f, &v);
			dfs_csv_value(out, &v);
			if (!dfs_buf_grow(out, (m->n_fields - f) * (DFS_FMT_DOUBLE_MAX + 1)))
				return;
			p = out->data + out->len;
		}
		*p++ = ',';
	}
	out->len = (size_t)(p - out->data);
	out->data[out->len] = '\0';
}

/* (what add_fields_fast and dfs_csv_record_packed reserve at the start
 * of a row is the most; the general path asks for a number's or a
 * string's own room at a time) */
size_t dfs_csv_row_room(const dfs_module *m)
{
	return m->n_fields * (DFS_FMT_DOUBLE_MAX + 1) + ZERO_FIELDS;
}

/* file_name, mount_pt, fs_type and the end of the line */
static void add_place(const dfs_record_place *pl, dfs_buf *out)
{
	dfs_csv_field(out, pl->name, pl->name_len);
	dfs_buf_addc(out, ',');
	dfs_csv_field(out, pl->mount, pl->mount_len);
	dfs_buf_addc(out, ',');
	dfs_csv_field(out, pl->fs_type, pl->fs_type_len);
	dfs_buf_addc(out, '\n');
}

void dfs_csv_record(const dfs_log *log, const dfs_module *m,
                    const unsigned char *rec, size_t len, dfs_name_hint *hint,
                    dfs_buf *out)
{
	dfs_record_place pl;
	dfs_log_record_place_near(log, m, rec, hint, &pl);
	if (m->record_size && !m->row_count) {
		add_fields_fast(m, rec, len, out);
		add_place(&pl, out);
		return;
	}
	size_t rows = dfs_module_rows(m, rec, len);
	for (size_t r = 0; r < rows; r++) {
		for (size_t f = 0; f < m->n_fields; f++) {
			dfs_value v;
			dfs_module_get_log_value(log ? dfs_log_names(log) : NULL, m, rec, len, r, f, &v);
			dfs_csv_value(out, &v);
			dfs_buf_addc(out, ',');
		}
		add_place(&pl, out);
	}
}

void dfs_csv_summation(const dfs_log *log, const dfs_module *m,
                       const unsigned char *rec, size_t len, dfs_buf *out)
{
	uint64_t id = 0;
	if (len >= 8)
		memcpy(&id, rec, 8);
	if (id != 0 || !m->record_size || m->row_count) {
		dfs_csv_record(log, m, rec, len, NULL, out);
		return;
	}
	/* the sum of several files: no id, no name, no mount point */
	size_t start = out->len;
	add_fields_fast(m, rec, len, out);
	if (out->len >= start + 2 && out->data[start] == '0' && out->data[start + 1] == ',') {
		memmove(out->data + start, out->data + start + 1, out->len - start - 1);
		out->len--;
		out->data[out->len] = '\0';
	}
	dfs_buf_adds(out, ",,\n");
}

/* ---- packed records ---------------------------------------------------------------- */

bool dfs_csv_packed_ok(const dfs_module *m)
{
	return m->words_only;
}

/* The place columns of a packed record: its id is word 0 */
static void packed_place(const dfs_log *log, const dfs_module *m,
                         const unsigned char *packed, dfs_name_hint *hint,
                         dfs_record_place *pl)
{
	uint64_t bits, id = 0;
	memcpy(&bits, packed, 8);
	if (bits & 1)
		memcpy(&id, packed + dfs_pack_bitmap_words(m) * 8, 8);
	_Alignas(8) unsigned char head[8];
	memcpy(head, &id, 8);
	dfs_log_record_place_near(log, m, head, hint, pl);
}

/* "0," 64 times: a run of zero words is one copy of its head */
static const char zero_fields[ZERO_FIELDS] =
	"0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"
	"0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,";

void dfs_csv_record_packed(const dfs_log *log, const dfs_module *m,
                           const unsigned char *packed, dfs_name_hint *hint,
                           dfs_buf *out)
{
	dfs_record_place pl;
	packed_place(log, m, packed, hint, &pl);
	size_t nw = m->n_fields, nb = dfs_pack_bitmap_words(m);
	/* (room for a whole copy of zero_fields past the last field) */
	if (!dfs_buf_grow(out, nw * (DFS_FMT_DOUBLE_MAX + 1) + sizeof(zero_fields)))
		return;
	const unsigned char *vals = packed + nb * 8;
	char *p = out->data + out->len;
	for (size_t b = 0; b < nb; b++) {
		uint64_t bits;
		memcpy(&bits, packed + b * 8, 8);
		size_t f = b * 64, end = f + 64 < nw ? f + 64 : nw;
		/* a zero word is "0" whatever its type (-0.0 is not one):
		 * the zero words before each non-zero one in one copy */
		while (bits) {
			size_t zeros = (size_t)__builtin_ctzll(bits);
			memcpy(p, zero_fields, sizeof(zero_fields));
			p += 2 * zeros;
			f += zeros;
			bits = zeros < 63 ? bits >> (zeros + 1) : 0;
			uint64_t v;
			memcpy(&v, vals, 8);
			vals += 8;
			p += put_word(p, m->fields[f].storage, v);
			*p++ = ',';
			f++;
		}
		memcpy(p, zero_fields, sizeof(zero_fields));
		p += 2 * (end - f);
	}
	out->len = (size_t)(p - out->data);
	out->data[out->len] = '\0';
	add_place(&pl, out);
}

/* ---- lengths: what the functions above would write, without writing it ---- */

static size_t field_len(const char *s, size_t len)
{
	if (!needs_quotes(s, len))
		return len;
	size_t n = len + 2;
	for (size_t i = 0; i < len; i++)
		n += s[i] == '"';
	return n;
}

size_t dfs_csv_field_len(const char *s, size_t len)
{
	return field_len(s, len);
}

static size_t value_len(const dfs_value *v)
{
	switch (v->type) {
	case DFS_T_I64: return dfs_fmt_i64_len(v->v.i);
	case DFS_T_U64: return dfs_fmt_u64_len(v->v.u);
	case DFS_T_F64: return dfs_fmt_double_len(v->v.d);
	case DFS_T_STR: return field_len(v->v.s.ptr, v->v.s.len);
	case DFS_T_NONE: break;
	}
	return 0;
}

size_t dfs_csv_record_len(const dfs_log *log, const dfs_module *m,
                          const unsigned char *rec, size_t len,
                          dfs_name_hint *hint)
{
	dfs_record_place pl;
	dfs_log_record_place_near(log, m, rec, hint, &pl);
	/* three place columns, two commas between them and the newline */
	size_t place = field_len(pl.name, pl.name_len) + field_len(pl.mount, pl.mount_len) +
	               field_len(pl.fs_type, pl.fs_type_len) + 3;
	/* every field is followed by a comma */
	if (m->record_size && !m->row_count) {
		size_t n = m->n_fields + place;
		for (size_t f = 0; f < m->n_fields; f++) {
			const dfs_field *fd = &m->fields[f];
			if (fd->storage == DFS_S_I64 || fd->storage == DFS_S_U64 ||
			    fd->storage == DFS_S_F64) {
				uint64_t w;
				memcpy(&w, rec + fd->offset, 8);
				n += word_len(fd->storage, w);
			} else {
				dfs_value v;
				dfs_module_get_value(m, rec, len, 0, f, &v);
				n += value_len(&v);
			}
		}
		return n;
	}
	size_t rows = dfs_module_rows(m, rec, len), n = 0;
	for (size_t r = 0; r < rows; r++) {
		n += m->n_fields + place;
		for (size_t f = 0; f < m->n_fields; f++) {
			dfs_value v;
			dfs_module_get_log_value(log ? dfs_log_names(log) : NULL, m, rec, len, r, f, &v);
			n += value_len(&v);
		}
	}
	return n;
}

void dfs_csv_mounts(const dfs_log *log, dfs_buf *out)
{
	dfs_buf_adds(out, "mount_pt,fs_type\n");
	for (size_t i = 0; i < dfs_log_mount_count(log); i++) {
		const dfs_mount *m = dfs_log_mount(log, i);
		dfs_csv_field(out, m->path, m->path_len);
		dfs_buf_addc(out, ',');
		dfs_csv_field(out, m->type, strlen(m->type));
		dfs_buf_addc(out, '\n');
	}
}

void dfs_csv_names(const dfs_log *log, dfs_buf *out)
{
	dfs_buf_adds(out, "record_id,file_name\n");
	for (size_t i = 0; i < dfs_log_name_count(log); i++) {
		const dfs_name *n = dfs_log_name_at(log, i);
		dfs_buf_add_u64(out, n->id);
		dfs_buf_addc(out, ',');
		dfs_csv_field(out, n->str, n->len);
		dfs_buf_addc(out, '\n');
	}
}

size_t dfs_csv_record_len_packed(const dfs_log *log, const dfs_module *m,
                                 const unsigned char *packed, dfs_name_hint *hint)
{
	dfs_record_place pl;
	packed_place(log, m, packed, hint, &pl);
	size_t nw = m->n_fields, nb = dfs_pack_bitmap_words(m);
	/* a comma after every field; a zero word is one digit */
	size_t n = field_len(pl.name, pl.name_len) + field_len(pl.mount, pl.mount_len) +
	           field_len(pl.fs_type, pl.fs_type_len) + 3 + 2 * nw;
	const unsigned char *vals = packed + nb * 8;
	for (size_t b = 0; b < nb; b++) {
		uint64_t bits;
		memcpy(&bits, packed + b * 8, 8);
		while (bits) {
			size_t f = b * 64 + (size_t)__builtin_ctzll(bits);
			bits &= bits - 1;
			uint64_t v;
			memcpy(&v, vals, 8);
			vals += 8;
			/* (in place of the one digit counted) */
			n += word_len(m->fields[f].storage, v) - 1;
		}
	}
	return n;
}
