/* writer.c - a table written as one Parquet file (parquet.h).
 *
 * Each column keeps the PLAIN encoding of its values for the current row
 * group (nulls are not stored: an optional column keeps a definition
 * level per row instead, 1 for a value and 0 for a null), with the
 * group's min, max and null count.  When the group is full every column
 * becomes one column chunk of one data page: the levels in the RLE /
 * bit-packing hybrid encoding behind their 4-byte length, then the values,
 * compressed as a whole, behind a page header.  The footer (FileMetaData)
 * lists every group's chunks with their offsets, sizes and statistics,
 * then its own length and the magic "PAR1" that also opens the file. */
#include "parquet/parquet.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <stdatomic.h>
#include <zlib.h>

#include "darshanfs/hash.h"
#include "parquet/thrift.h"
#include "util/utf8.h"
#include "util/workers.h"

/* Parquet's enums (parquet.thrift) */
enum { T_BOOLEAN = 0, T_INT64 = 2, T_DOUBLE = 5, T_BYTE_ARRAY = 6 };
enum { REP_REQUIRED = 0, REP_OPTIONAL = 1 };
enum { CT_UTF8 = 0, CT_TIMESTAMP_MICROS = 10, CT_UINT_64 = 14 };
enum { ENC_PLAIN = 0, ENC_RLE = 3, ENC_RLE_DICTIONARY = 8 };
enum { PAGE_DATA = 0, PAGE_DICTIONARY = 2 };

#define STAT_MAX 256   /* string min/max kept when at most this long */

/* What the footer says of one column chunk. */
struct chunk {
	int64_t offset;            /* of its first page's header */
	int64_t data_offset;       /* of its data page's header */
	bool dict;                 /* a dictionary page comes first */
	int64_t uncompressed, compressed;   /* header and page */
	int64_t values, nulls;
	bool minmax;
	unsigned char min[8], max[8];       /* PLAIN bytes of non-strings */
	char *smin, *smax;                  /* strings (malloc'ed) */
	size_t sminlen, smaxlen;
};

struct group {
	int64_t rows, offset, uncompressed, compressed;
	struct chunk *chunks;      /* one per column */
};

struct col {
	char *name;
	enum dfs_pq_type type;
	bool optional;
	dfs_buf vals;              /* PLAIN values of the group */
	dfs_buf defs;              /* a level per row of the group (optional) */
	size_t bits;               /* BOOL: values packed into vals so far */
	int64_t nulls;
	bool minmax, str_stats;    /* min/max seen; strings short enough */
	union { int64_t i; uint64_t u; double d; bool b; } min, max;
	size_t smin, smax;         /* offsets of the string min/max in vals */
	size_t sminlen, smaxlen;
	/* the group's chunk, encoded (offsets relative to its start) */
	dfs_buf enc;
	struct chunk k;
	dfs_status status;
};

struct scratch;
static void scratch_free(struct scratch *s);

struct dfs_pq {
	struct col *cols;
	size_t ncols, cur;         /* cur: the column the next value is for */
	struct dfs_pq_options opt;
	char **kv;                 /* 2 * opt.nkv copies */
	uint64_t rows, group_rows;
	size_t group_bytes;
	struct group *groups;
	size_t ngroups, groups_cap;
	dfs_buf out;
	struct scratch *scratch;   /* the caller's, kept from group to group */
	bool failed;
	dfs_error err;
};

static int fail(dfs_pq *w, dfs_status code, const char *what)
{
	if (!w->failed) {
		w->failed = true;
		dfs_error_set(&w->err, code, "parquet: %s", what);
	}
	return -1;
}

static void put_le64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static char *dup_str(const char *s)
{
	size_t n = strlen(s) + 1;
	char *c = malloc(n);
	if (c)
		memcpy(c, s, n);
	return c;
}

dfs_pq *dfs_pq_new(const struct dfs_pq_column *cols, size_t ncols,
                   const struct dfs_pq_options *opt, dfs_error *err)
{
	if (ncols == 0) {
		dfs_error_set(err, DFS_ERR_INVAL, "parquet: a table needs a column");
		return NULL;
	}
	for (size_t i = 0; i < ncols; i++) {
		if (!cols[i].name || !cols[i].name[0]) {
			dfs_error_set(err, DFS_ERR_INVAL, "parquet: column %zu has no name", i + 1);
			return NULL;
		}
		for (size_t j = 0; j < i; j++)
			if (strcmp(cols[i].name, cols[j].name) == 0) {
				dfs_error_set(err, DFS_ERR_INVAL, "parquet: two columns are named %s",
				              cols[i].name);
				return NULL;
			}
	}
	dfs_pq *w = calloc(1, sizeof(*w));
	if (!w)
		goto nomem;
	if (opt)
		w->opt = *opt;
	else
		w->opt.codec = DFS_PQ_GZIP;
	if (w->opt.level <= 0 || w->opt.level > 9)
		w->opt.level = 1;
	if (w->opt.group_rows == 0)
		w->opt.group_rows = 131072;
	if (w->opt.group_bytes == 0)
		w->opt.group_bytes = (size_t)64 << 20;
	w->opt.kv_keys = NULL;
	w->opt.kv_values = NULL;
	if (opt && opt->nkv) {
		w->kv = calloc(2 * opt->nkv, sizeof(char *));
		if (!w->kv) {
			w->opt.nkv = 0;
			goto nomem;
		}
		for (size_t i = 0; i < opt->nkv; i++) {
			w->kv[2 * i] = dup_str(opt->kv_keys[i]);
			w->kv[2 * i + 1] = dup_str(opt->kv_values[i]);
			if (!w->kv[2 * i] || !w->kv[2 * i + 1])
				goto nomem;
		}
	}
	w->cols = calloc(ncols, sizeof(*w->cols));
	if (!w->cols)
		goto nomem;
	w->ncols = ncols;
	for (size_t i = 0; i < ncols; i++) {
		w->cols[i].name = dup_str(cols[i].name);
		if (!w->cols[i].name)
			goto nomem;
		w->cols[i].type = cols[i].type;
		w->cols[i].optional = cols[i].optional;
		w->cols[i].str_stats = true;
	}
	return w;
nomem:
	dfs_pq_free(w);
	dfs_error_set(err, DFS_ERR_NOMEM, "parquet: out of memory");
	return NULL;
}

static void free_groups(dfs_pq *w)
{
	for (size_t g = 0; g < w->ngroups; g++) {
		for (size_t c = 0; c < w->ncols; c++) {
			free(w->groups[g].chunks[c].smin);
			free(w->groups[g].chunks[c].smax);
		}
		free(w->groups[g].chunks);
	}
	free(w->groups);
	w->groups = NULL;
	w->ngroups = w->groups_cap = 0;
}

void dfs_pq_free(dfs_pq *w)
{
	if (!w)
		return;
	free_groups(w);
	for (size_t i = 0; i < w->ncols; i++) {
		free(w->cols[i].name);
		dfs_buf_free(&w->cols[i].vals);
		dfs_buf_free(&w->cols[i].defs);
		dfs_buf_free(&w->cols[i].enc);
	}
	free(w->cols);
	if (w->kv) {
		for (size_t i = 0; i < 2 * w->opt.nkv; i++)
			free(w->kv[i]);
		free(w->kv);
	}
	dfs_buf_free(&w->out);
	if (w->scratch) {
		scratch_free(w->scratch);
		free(w->scratch);
	}
	free(w);
}

uint64_t dfs_pq_rows(const dfs_pq *w)
{
	return w->rows;
}

/* ---- values ------------------------------------------------------------ */

static void flush_group(dfs_pq *w);

static const char *type_name(enum dfs_pq_type t)
{
	switch (t) {
	case DFS_PQ_INT64: return "INT64";
	case DFS_PQ_UINT64: return "UINT64";
	case DFS_PQ_DOUBLE: return "DOUBLE";
	case DFS_PQ_STRING: return "STRING";
	case DFS_PQ_TIMESTAMP: return "TIMESTAMP";
	case DFS_PQ_BOOL: return "BOOL";
	}
	return "?";
}

/* The column the next value is for, when it has type `t`; NULL after an
 * error. */
static struct col *next(dfs_pq *w, enum dfs_pq_type t)
{
	if (w->failed)
		return NULL;
	struct col *c = &w->cols[w->cur];
	if (c->type != t) {
		dfs_error_set(&w->err, DFS_ERR_INVAL,
		              "parquet: a %s value given for column %s of type %s",
		              type_name(t), c->name, type_name(c->type));
		w->failed = true;
		return NULL;
	}
	if (c->optional)
		dfs_buf_addc(&c->defs, 1);
	return c;
}

/* The value is in: on to the next column, or the next row. */
static void done(dfs_pq *w, size_t bytes)
{
	w->group_bytes += bytes;
	if (++w->cur < w->ncols)
		return;
	w->cur = 0;
	w->rows++;
	if (++w->group_rows >= w->opt.group_rows || w->group_bytes >= w->opt.group_bytes)
		flush_group(w);
}

static void add_int(dfs_pq *w, enum dfs_pq_type t, uint64_t bits)
{
	struct col *c = next(w, t);
	if (!c)
		return;
	unsigned char le[8];
	put_le64(le, bits);
	dfs_buf_add(&c->vals, le, 8);
	if (t == DFS_PQ_UINT64) {
		if (!c->minmax || bits < c->min.u)
			c->min.u = bits;
		if (!c->minmax || bits > c->max.u)
			c->max.u = bits;
	} else {
		int64_t v = (int64_t)bits;
		if (!c->minmax || v < c->min.i)
			c->min.i = v;
		if (!c->minmax || v > c->max.i)
			c->max.i = v;
	}
	c->minmax = true;
	done(w, 8);
}

void dfs_pq_i64(dfs_pq *w, int64_t v)
{
	add_int(w, DFS_PQ_INT64, (uint64_t)v);
}

void dfs_pq_u64(dfs_pq *w, uint64_t v)
{
	add_int(w, DFS_PQ_UINT64, v);
}

void dfs_pq_time(dfs_pq *w, int64_t micros)
{
	add_int(w, DFS_PQ_TIMESTAMP, (uint64_t)micros);
}

void dfs_pq_f64(dfs_pq *w, double v)
{
	struct col *c = next(w, DFS_PQ_DOUBLE);
	if (!c)
		return;
	uint64_t bits;
	memcpy(&bits, &v, 8);
	unsigned char le[8];
	put_le64(le, bits);
	dfs_buf_add(&c->vals, le, 8);
	if (!isnan(v)) {   /* NaN takes no part in min and max */
		if (!c->minmax || v < c->min.d)
			c->min.d = v;
		if (!c->minmax || v > c->max.d)
			c->max.d = v;
		c->minmax = true;
	}
	done(w, 8);
}

void dfs_pq_bool(dfs_pq *w, bool v)
{
	struct col *c = next(w, DFS_PQ_BOOL);
	if (!c)
		return;
	size_t added = 0;
	if (c->bits % 8 == 0) {
		dfs_buf_addc(&c->vals, 0);
		added = 1;
	}
	if (v && c->vals.len)
		c->vals.data[c->vals.len - 1] |= (char)(1u << (c->bits % 8));
	c->bits++;
	if (!c->minmax || v < c->min.b)
		c->min.b = v;
	if (!c->minmax || v > c->max.b)
		c->max.b = v;
	c->minmax = true;
	done(w, added);
}

/* Byte-wise order of strings, as Parquet orders UTF-8 (unsigned bytes). */
static int strcmp_len(const char *a, size_t alen, const char *b, size_t blen)
{
	int r = memcmp(a, b, alen < blen ? alen : blen);
	if (r)
		return r;
	return alen < blen ? -1 : alen > blen;
}

void dfs_pq_str(dfs_pq *w, const char *s, size_t len)
{
	if (w->failed)
		return;
	struct col *c = &w->cols[w->cur];
	if (c->type == DFS_PQ_STRING && !dfs_utf8_valid(s, len)) {
		dfs_error_set(&w->err, DFS_ERR_INVAL,
		              "parquet: a value of column %s is not UTF-8", c->name);
		w->failed = true;
		return;
	}
	if (len > UINT32_MAX) {
		fail(w, DFS_ERR_TOOBIG, "a string over 4 GiB");
		return;
	}
	c = next(w, DFS_PQ_STRING);
	if (!c)
		return;
	unsigned char le[4] = {(unsigned char)len, (unsigned char)(len >> 8),
	                       (unsigned char)(len >> 16), (unsigned char)(len >> 24)};
	dfs_buf_add(&c->vals, le, 4);
	size_t at = c->vals.len;
	dfs_buf_add(&c->vals, s, len);
	if (len > STAT_MAX)
		c->str_stats = false;
	if (c->str_stats && dfs_buf_ok(&c->vals)) {
		const char *base = c->vals.data;
		if (!c->minmax || strcmp_len(s, len, base + c->smin, c->sminlen) < 0) {
			c->smin = at;
			c->sminlen = len;
		}
		if (!c->minmax || strcmp_len(s, len, base + c->smax, c->smaxlen) > 0) {
			c->smax = at;
			c->smaxlen = len;
		}
		c->minmax = true;
	}
	done(w, 4 + len);
}

void dfs_pq_null(dfs_pq *w)
{
	if (w->failed)
		return;
	struct col *c = &w->cols[w->cur];
	if (!c->optional) {
		dfs_error_set(&w->err, DFS_ERR_INVAL,
		              "parquet: a null given for column %s, which is required", c->name);
		w->failed = true;
		return;
	}
	dfs_buf_addc(&c->defs, 0);
	c->nulls++;
	done(w, 0);
}

/* ---- row groups ------------------------------------------------------- */

/* What encoding one column chunk takes besides the column's own buffers;
 * one per thread encoding chunks. */
struct scratch {
	z_stream zs;
	bool zs_ready;
	dfs_buf page, comp, dict;
	uint32_t *idx, *lv, *slots, *offs;
	size_t idx_cap, lv_cap, slots_cap, offs_cap;
};

static void scratch_free(struct scratch *s)
{
	if (s->zs_ready)
		deflateEnd(&s->zs);
	dfs_buf_free(&s->page);
	dfs_buf_free(&s->comp);
	dfs_buf_free(&s->dict);
	free(s->idx);
	free(s->lv);
	free(s->slots);
	free(s->offs);
	memset(s, 0, sizeof(*s));
}

static uint32_t le32(const char *p)
{
	const unsigned char *u = (const unsigned char *)p;
	return (uint32_t)u[0] | (uint32_t)u[1] << 8 | (uint32_t)u[2] << 16 |
	       (uint32_t)u[3] << 24;
}

static bool room_u32(uint32_t **p, size_t *cap, size_t n)
{
	if (n <= *cap)
		return true;
	uint32_t *q = realloc(*p, n * sizeof(**p));
	if (!q)
		return false;
	*p = q;
	*cap = n;
	return true;
}

/* How many values from `i` equal v[i], counting at most `cap`. */
static size_t run_at(const uint32_t *v, size_t i, size_t n, size_t cap)
{
	size_t r = 1;
	while (i + r < n && r < cap && v[i + r] == v[i])
		r++;
	return r;
}

/* Values of `width` bits (1..32) in the RLE / bit-packing hybrid: a run
 * of 8 or more equal values as one RLE run (header `count << 1`, then the
 * value in (width + 7) / 8 bytes), the rest bit-packed in groups of 8
 * (header `groups << 1 | 1`, then the values least significant bit
 * first); only the last bit-packed run may be padded, as readers stop at
 * the page's value count. */
static void encode_hybrid(dfs_buf *b, const uint32_t *v, size_t n, int width)
{
	size_t vbytes = ((size_t)width + 7) / 8;
	size_t i = 0;
	while (i < n) {
		size_t r = run_at(v, i, n, SIZE_MAX);
		if (r >= 8) {
			dfs_tc_varint(b, (uint64_t)r << 1);
			for (size_t k = 0; k < vbytes; k++)
				dfs_buf_addc(b, (char)(v[i] >> (8 * k)));
			i += r;
			continue;
		}
		size_t j = i;
		do
			j += 8;
		while (j < n && run_at(v, j, n, 8) < 8);
		size_t end = j < n ? j : n;
		size_t groups = (end - i + 7) / 8;
		dfs_tc_varint(b, (uint64_t)groups << 1 | 1);
		uint64_t acc = 0;
		int bits = 0;
		for (size_t at = i; at < i + groups * 8; at++) {
			acc |= (uint64_t)(at < end ? v[at] : 0) << bits;
			bits += width;
			while (bits >= 8) {
				dfs_buf_addc(b, (char)(acc & 0xff));
				acc >>= 8;
				bits -= 8;
			}
		}
		i = end;
	}
}

/* Page `s->page` compressed as one gzip member into `s->comp`. */
static dfs_status gzip_page(struct scratch *s, int level)
{
	if (!s->zs_ready) {
		memset(&s->zs, 0, sizeof(s->zs));
		if (deflateInit2(&s->zs, level, Z_DEFLATED, 15 + 16, 8,
		                 Z_DEFAULT_STRATEGY) != Z_OK)
			return DFS_ERR_NOMEM;
		s->zs_ready = true;
	} else if (deflateReset(&s->zs) != Z_OK) {
		return DFS_ERR_IO;
	}
	dfs_buf_reset(&s->comp);
	size_t bound = deflateBound(&s->zs, (uLong)s->page.len) + 32;
	if (!dfs_buf_reserve(&s->comp, bound))
		return DFS_ERR_NOMEM;
	s->zs.next_in = (Bytef *)s->page.data;
	s->zs.avail_in = (uInt)s->page.len;
	s->zs.next_out = (Bytef *)s->comp.data;
	s->zs.avail_out = (uInt)bound;
	if (deflate(&s->zs, Z_FINISH) != Z_STREAM_END)
		return DFS_ERR_IO;
	s->comp.len = bound - s->zs.avail_out;
	return DFS_OK;
}

/* The page in s->page, compressed or not, behind its header at the end
 * of `enc`: a data page of `rows` values (`encoding` PLAIN or
 * RLE_DICTIONARY), or the dictionary page of `rows` entries. */
static dfs_status put_page(struct scratch *s, dfs_buf *enc, const dfs_pq *w,
                           bool dict_page, int64_t rows, int encoding,
                           int64_t *uncompressed, int64_t *compressed)
{
	if (!dfs_buf_ok(&s->page))
		return DFS_ERR_NOMEM;
	if (s->page.len > INT32_MAX)
		return DFS_ERR_TOOBIG;
	const dfs_buf *body = &s->page;
	if (w->opt.codec == DFS_PQ_GZIP) {
		dfs_status st = gzip_page(s, w->opt.level);
		if (st != DFS_OK)
			return st;
		body = &s->comp;
	}
	if (body->len > INT32_MAX)
		return DFS_ERR_TOOBIG;
	size_t at = enc->len;
	dfs_tc t;
	dfs_tc_init(&t, enc);
	dfs_tc_i32(&t, 1, dict_page ? PAGE_DICTIONARY : PAGE_DATA);
	dfs_tc_i32(&t, 2, (int32_t)s->page.len);
	dfs_tc_i32(&t, 3, (int32_t)body->len);
	if (dict_page) {
		dfs_tc_struct(&t, 7);       /* DictionaryPageHeader */
		dfs_tc_i32(&t, 1, (int32_t)rows);
		dfs_tc_i32(&t, 2, ENC_PLAIN);
	} else {
		dfs_tc_struct(&t, 5);       /* DataPageHeader */
		dfs_tc_i32(&t, 1, (int32_t)rows);
		dfs_tc_i32(&t, 2, encoding);
		dfs_tc_i32(&t, 3, ENC_RLE);
		dfs_tc_i32(&t, 4, ENC_RLE);
	}
	dfs_tc_end(&t);
	dfs_tc_finish(&t);
	size_t header = enc->len - at;
	dfs_buf_add(enc, body->data, body->len);
	if (!dfs_tc_ok(&t) || !dfs_buf_ok(enc))
		return DFS_ERR_NOMEM;
	*uncompressed += (int64_t)(header + s->page.len);
	*compressed += (int64_t)(header + body->len);
	return DFS_OK;
}

#define DICT_MAX_VALUES 65536
#define DICT_MAX_BYTES ((size_t)1 << 20)

static uint32_t hash64(uint64_t v)
{
	return (uint32_t)((v * 0x9e3779b97f4a7c15ULL) >> 32);
}

/* The chunk's values as a dictionary (s->dict, PLAIN) and an index per
 * value (s->idx); false when they are not worth one: too many distinct
 * values, or no smaller than the values themselves.  `n` values. */
static bool make_dict(struct col *c, struct scratch *s, size_t n, size_t *ndict)
{
	if (c->type == DFS_PQ_BOOL || n == 0)
		return false;
	size_t most = n < DICT_MAX_VALUES ? n : DICT_MAX_VALUES;
	size_t nslots = 16;
	while (nslots < 2 * most)
		nslots *= 2;
	if (!room_u32(&s->slots, &s->slots_cap, nslots) || !room_u32(&s->idx, &s->idx_cap, n))
		return false;
	memset(s->slots, 0, nslots * sizeof(*s->slots));
	dfs_buf_reset(&s->dict);
	size_t mask = nslots - 1, count = 0;
	const char *p = c->vals.data;
	if (c->type == DFS_PQ_STRING) {
		/* entries are kept in s->dict as PLAIN (4-byte length, bytes),
		 * s->offs[k] where entry k starts; the slots hold 1 + k */
		for (size_t i = 0; i < n; i++) {
			uint32_t len = le32(p);
			const char *str = p + 4;
			p += 4 + (size_t)len;
			size_t h = (size_t)dfs_fnv1a(DFS_FNV1A_INIT, str, len) & mask;
			for (;;) {
				uint32_t sl = s->slots[h];
				if (sl == 0) {
					if (count == DICT_MAX_VALUES ||
					    s->dict.len + 4 + len > DICT_MAX_BYTES ||
					    !room_u32(&s->offs, &s->offs_cap, count + 1))
						return false;
					s->offs[count] = (uint32_t)s->dict.len;
					dfs_buf_add(&s->dict, str - 4, 4 + (size_t)len);
					if (!dfs_buf_ok(&s->dict))
						return false;
					s->slots[h] = (uint32_t)++count;
					s->idx[i] = (uint32_t)(count - 1);
					break;
				}
				const char *e = s->dict.data + s->offs[sl - 1];
				if (le32(e) == len && memcmp(e + 4, str, len) == 0) {
					s->idx[i] = sl - 1;
					break;
				}
				h = (h + 1) & mask;
			}
		}
	} else {
		for (size_t i = 0; i < n; i++) {
			uint64_t v;
			memcpy(&v, p + 8 * i, 8);
			size_t h = hash64(v) & mask;
			for (;;) {
				uint32_t sl = s->slots[h];
				if (sl == 0) {
					if (count == DICT_MAX_VALUES)
						return false;
					dfs_buf_add(&s->dict, &v, 8);
					s->slots[h] = (uint32_t)++count;
					s->idx[i] = (uint32_t)(count - 1);
					break;
				}
				uint64_t e;
				memcpy(&e, s->dict.data + 8 * (sl - 1), 8);
				if (e == v) {
					s->idx[i] = sl - 1;
					break;
				}
				h = (h + 1) & mask;
			}
		}
	}
	if (!dfs_buf_ok(&s->dict))
		return false;
	int width = 1;
	while (width < 32 && ((size_t)1 << width) < count)
		width++;
	/* indices take at most n * width / 8 bytes (less in runs) */
	if (s->dict.len + n * (size_t)width / 8 >= c->vals.len)
		return false;
	*ndict = count;
	return true;
}
static void chunk_stats(struct col *c, struct chunk *k)
{
	k->nulls = c->nulls;
	if (!c->minmax)
		return;
	switch (c->type) {
	case DFS_PQ_STRING:
		if (!c->str_stats)
			return;
		k->smin = malloc(c->sminlen + 1);
		k->smax = malloc(c->smaxlen + 1);
		if (!k->smin || !k->smax) {
			free(k->smin);
			free(k->smax);
			k->smin = k->smax = NULL;
			return;   /* statistics are optional: go without */
		}
		memcpy(k->smin, c->vals.data + c->smin, c->sminlen);
		memcpy(k->smax, c->vals.data + c->smax, c->smaxlen);
		k->sminlen = c->sminlen;
		k->smaxlen = c->smaxlen;
		break;
	case DFS_PQ_DOUBLE: {
		/* a zero bound is written as -0.0 (min) and +0.0 (max), so that a
		 * reader comparing either zero finds it inside */
		double lo = c->min.d == 0 ? -0.0 : c->min.d;
		double hi = c->max.d == 0 ? 0.0 : c->max.d;
		uint64_t bits;
		memcpy(&bits, &lo, 8);
		put_le64(k->min, bits);
		memcpy(&bits, &hi, 8);
		put_le64(k->max, bits);
		break;
	}
	case DFS_PQ_BOOL:
		k->min[0] = c->min.b;
		k->max[0] = c->max.b;
		break;
	default:
		put_le64(k->min, c->min.u);
		put_le64(k->max, c->max.u);
		break;
	}
	k->minmax = true;
}

/* The column's group as one chunk in c->enc: a dictionary page when it
 * pays, then the data page (levels of an optional column behind their
 * 4-byte length, then the values or their dictionary indices). */
static dfs_status encode_col(const dfs_pq *w, struct col *c, struct scratch *s,
                             int64_t rows)
{
	struct chunk *k = &c->k;
	memset(k, 0, sizeof(*k));
	dfs_buf_reset(&c->enc);
	if (!dfs_buf_ok(&c->vals) || !dfs_buf_ok(&c->defs))
		return DFS_ERR_NOMEM;
	size_t nvals = (size_t)rows - (size_t)c->nulls;
	size_t ndict = 0;
	k->dict = make_dict(c, s, nvals, &ndict);
	dfs_status st;
	if (k->dict) {
		dfs_buf_reset(&s->page);
		dfs_buf_add(&s->page, s->dict.data, s->dict.len);
		st = put_page(s, &c->enc, w, true, (int64_t)ndict, ENC_PLAIN,
		              &k->uncompressed, &k->compressed);
		if (st != DFS_OK)
			return st;
	}
	k->data_offset = (int64_t)c->enc.len;
	dfs_buf_reset(&s->page);
	if (c->optional) {
		dfs_buf_add_zeros(&s->page, 4);
		size_t n = (size_t)rows;
		if (c->nulls == 0) {
			/* every level 1: one RLE run */
			dfs_tc_varint(&s->page, (uint64_t)n << 1);
			dfs_buf_addc(&s->page, 1);
		} else {
			if (!room_u32(&s->lv, &s->lv_cap, n))
				return DFS_ERR_NOMEM;
			for (size_t i = 0; i < n; i++)
				s->lv[i] = (unsigned char)c->defs.data[i];
			encode_hybrid(&s->page, s->lv, n, 1);
		}
		if (!dfs_buf_ok(&s->page))
			return DFS_ERR_NOMEM;
		size_t len = s->page.len - 4;
		for (int i = 0; i < 4; i++)
			s->page.data[i] = (char)(len >> (8 * i));
	}
	if (k->dict) {
		int width = 1;
		while (width < 32 && ((size_t)1 << width) < ndict)
			width++;
		dfs_buf_addc(&s->page, (char)width);
		encode_hybrid(&s->page, s->idx, nvals, width);
	} else {
		dfs_buf_add(&s->page, c->vals.data, c->vals.len);
	}
	st = put_page(s, &c->enc, w, false, rows, k->dict ? ENC_RLE_DICTIONARY : ENC_PLAIN,
	              &k->uncompressed, &k->compressed);
	if (st != DFS_OK)
		return st;
	k->values = rows;
	chunk_stats(c, k);
	return DFS_OK;
}

struct group_job {
	dfs_pq *w;
	int64_t rows;
	atomic_size_t next;   /* the next column to take */
};

static void encode_cols(struct group_job *j, struct scratch *s)
{
	size_t i;
	while ((i = atomic_fetch_add(&j->next, 1)) < j->w->ncols) {
		struct col *c = &j->w->cols[i];
		c->status = encode_col(j->w, c, s, j->rows);
	}
}

/* A thread of its own scratch; the caller uses the writer's, kept from
 * group to group. */
static void *encode_thread(void *arg)
{
	struct scratch s;
	memset(&s, 0, sizeof(s));
	encode_cols(arg, &s);
	scratch_free(&s);
	return NULL;
}

static void *encode_caller(void *arg)
{
	struct group_job *j = arg;
	encode_cols(j, j->w->scratch);
	return NULL;
}

static void flush_group(dfs_pq *w)
{
	if (w->failed || w->group_rows == 0)
		return;
	if (!w->scratch && !(w->scratch = calloc(1, sizeof(*w->scratch)))) {
		fail(w, DFS_ERR_NOMEM, "out of memory");
		return;
	}
	if (w->ngroups == w->groups_cap) {
		size_t cap = w->groups_cap ? 2 * w->groups_cap : 8;
		struct group *g = realloc(w->groups, cap * sizeof(*g));
		if (!g) {
			fail(w, DFS_ERR_NOMEM, "out of memory");
			return;
		}
		w->groups = g;
		w->groups_cap = cap;
	}
	struct group *g = &w->groups[w->ngroups];
	memset(g, 0, sizeof(*g));
	g->chunks = calloc(w->ncols, sizeof(*g->chunks));
	if (!g->chunks) {
		fail(w, DFS_ERR_NOMEM, "out of memory");
		return;
	}
	w->ngroups++;
	g->rows = (int64_t)w->group_rows;

	struct group_job job = {.w = w, .rows = g->rows};
	atomic_init(&job.next, 0);
	size_t threads = w->opt.threads > 1 ? dfs_workers(w->opt.threads, w->ncols) : 1;
	if (threads > 1) {
		pthread_t tid[DFS_WORKERS_MAX];
		size_t started = 0;
		for (size_t t = 1; t < threads && t < DFS_WORKERS_MAX; t++)
			if (pthread_create(&tid[started], NULL, encode_thread, &job) == 0)
				started++;
		encode_caller(&job);
		for (size_t t = 0; t < started; t++)
			pthread_join(tid[t], NULL);
	} else {
		encode_caller(&job);
	}

	if (w->out.len == 0)
		dfs_buf_add(&w->out, "PAR1", 4);   /* the file opens with it */
	g->offset = (int64_t)w->out.len;
	for (size_t i = 0; i < w->ncols; i++) {
		struct col *c = &w->cols[i];
		if (c->status != DFS_OK) {
			fail(w, c->status, c->status == DFS_ERR_NOMEM ? "out of memory"
			                   : c->status == DFS_ERR_TOOBIG ? "a page over 2 GiB"
			                   : "zlib could not compress a page");
			return;
		}
		struct chunk *k = &g->chunks[i];
		*k = c->k;
		memset(&c->k, 0, sizeof(c->k));   /* its strings are the group's now */
		int64_t base = (int64_t)w->out.len;
		k->offset = base;
		k->data_offset += base;
		dfs_buf_add(&w->out, c->enc.data, c->enc.len);
		g->uncompressed += k->uncompressed;
		g->compressed += k->compressed;
		dfs_buf_reset(&c->vals);
		dfs_buf_reset(&c->defs);
		c->bits = 0;
		c->nulls = 0;
		c->minmax = false;
		c->str_stats = true;
	}
	if (!dfs_buf_ok(&w->out))
		fail(w, DFS_ERR_NOMEM, "out of memory");
	w->group_rows = 0;
	w->group_bytes = 0;
}

/* ---- the footer ------------------------------------------------------- */

static void schema_element(dfs_tc *t, const struct col *c)
{
	dfs_tc_elem_struct(t);
	int type = c->type == DFS_PQ_DOUBLE ? T_DOUBLE
	         : c->type == DFS_PQ_STRING ? T_BYTE_ARRAY
	         : c->type == DFS_PQ_BOOL ? T_BOOLEAN : T_INT64;
	dfs_tc_i32(t, 1, type);
	dfs_tc_i32(t, 3, c->optional ? REP_OPTIONAL : REP_REQUIRED);
	dfs_tc_string(t, 4, c->name);
	switch (c->type) {
	case DFS_PQ_STRING:
		dfs_tc_i32(t, 6, CT_UTF8);
		dfs_tc_struct(t, 10);   /* LogicalType */
		dfs_tc_struct(t, 1);    /* STRING */
		dfs_tc_end(t);
		dfs_tc_end(t);
		break;
	case DFS_PQ_UINT64:
		dfs_tc_i32(t, 6, CT_UINT_64);
		dfs_tc_struct(t, 10);
		dfs_tc_struct(t, 10);   /* INTEGER */
		dfs_tc_byte(t, 1, 64);
		dfs_tc_bool(t, 2, false);
		dfs_tc_end(t);
		dfs_tc_end(t);
		break;
	case DFS_PQ_TIMESTAMP:
		dfs_tc_i32(t, 6, CT_TIMESTAMP_MICROS);
		dfs_tc_struct(t, 10);
		dfs_tc_struct(t, 8);    /* TIMESTAMP */
		dfs_tc_bool(t, 1, true);   /* isAdjustedToUTC */
		dfs_tc_struct(t, 2);    /* unit */
		dfs_tc_struct(t, 2);    /* MICROS */
		dfs_tc_end(t);
		dfs_tc_end(t);
		dfs_tc_end(t);
		dfs_tc_end(t);
		break;
	default:
		break;
	}
	dfs_tc_end(t);
}

static void column_chunk(dfs_tc *t, const struct col *c, const struct chunk *k,
                         enum dfs_pq_codec codec)
{
	int type = c->type == DFS_PQ_DOUBLE ? T_DOUBLE
	         : c->type == DFS_PQ_STRING ? T_BYTE_ARRAY
	         : c->type == DFS_PQ_BOOL ? T_BOOLEAN : T_INT64;
	dfs_tc_elem_struct(t);
	dfs_tc_i64(t, 2, k->offset);
	dfs_tc_struct(t, 3);   /* ColumnMetaData */
	dfs_tc_i32(t, 1, type);
	dfs_tc_list(t, 2, DFS_TC_I32, k->dict ? 3 : 2);
	dfs_tc_elem_i32(t, ENC_PLAIN);
	dfs_tc_elem_i32(t, ENC_RLE);
	if (k->dict)
		dfs_tc_elem_i32(t, ENC_RLE_DICTIONARY);
	dfs_tc_list(t, 3, DFS_TC_BINARY, 1);
	dfs_tc_elem_string(t, c->name);
	dfs_tc_i32(t, 4, (int32_t)codec);
	dfs_tc_i64(t, 5, k->values);
	dfs_tc_i64(t, 6, k->uncompressed);
	dfs_tc_i64(t, 7, k->compressed);
	dfs_tc_i64(t, 9, k->data_offset);
	if (k->dict)
		dfs_tc_i64(t, 11, k->offset);
	dfs_tc_struct(t, 12);  /* Statistics */
	dfs_tc_i64(t, 3, k->nulls);
	if (k->minmax) {
		size_t n = c->type == DFS_PQ_BOOL ? 1 : 8;
		if (c->type == DFS_PQ_STRING) {
			dfs_tc_binary(t, 5, k->smax, k->smaxlen);
			dfs_tc_binary(t, 6, k->smin, k->sminlen);
		} else {
			dfs_tc_binary(t, 5, k->max, n);
			dfs_tc_binary(t, 6, k->min, n);
		}
	}
	dfs_tc_end(t);
	dfs_tc_end(t);
	dfs_tc_end(t);
}

static void footer(dfs_pq *w, dfs_buf *b)
{
	dfs_tc t;
	dfs_tc_init(&t, b);
	/* FileMetaData is the outermost struct: its fields open at depth 0 */
	dfs_tc_i32(&t, 1, 1);
	dfs_tc_list(&t, 2, DFS_TC_STRUCT, w->ncols + 1);
	dfs_tc_elem_struct(&t);
	dfs_tc_string(&t, 4, "schema");
	dfs_tc_i32(&t, 5, (int32_t)w->ncols);
	dfs_tc_end(&t);
	for (size_t i = 0; i < w->ncols; i++)
		schema_element(&t, &w->cols[i]);
	dfs_tc_i64(&t, 3, (int64_t)w->rows);
	dfs_tc_list(&t, 4, DFS_TC_STRUCT, w->ngroups);
	for (size_t g = 0; g < w->ngroups; g++) {
		const struct group *gr = &w->groups[g];
		dfs_tc_elem_struct(&t);
		dfs_tc_list(&t, 1, DFS_TC_STRUCT, w->ncols);
		for (size_t i = 0; i < w->ncols; i++)
			column_chunk(&t, &w->cols[i], &gr->chunks[i], w->opt.codec);
		dfs_tc_i64(&t, 2, gr->uncompressed);
		dfs_tc_i64(&t, 3, gr->rows);
		dfs_tc_i64(&t, 5, gr->offset);
		dfs_tc_i64(&t, 6, gr->compressed);
		dfs_tc_end(&t);
	}
	if (w->opt.nkv) {
		dfs_tc_list(&t, 5, DFS_TC_STRUCT, w->opt.nkv);
		for (size_t i = 0; i < w->opt.nkv; i++) {
			dfs_tc_elem_struct(&t);
			dfs_tc_string(&t, 1, w->kv[2 * i]);
			dfs_tc_string(&t, 2, w->kv[2 * i + 1]);
			dfs_tc_end(&t);
		}
	}
	dfs_tc_string(&t, 6, "darshanfs version " DFS_VERSION " (build darshanfs)");
	dfs_tc_list(&t, 7, DFS_TC_STRUCT, w->ncols);
	for (size_t i = 0; i < w->ncols; i++) {
		dfs_tc_elem_struct(&t);   /* ColumnOrder */
		dfs_tc_struct(&t, 1);     /* TYPE_ORDER */
		dfs_tc_end(&t);
		dfs_tc_end(&t);
	}
	dfs_tc_finish(&t);
	if (!dfs_tc_ok(&t))
		fail(w, DFS_ERR_NOMEM, "unable to write the footer");
}

int dfs_pq_finish(dfs_pq *w, dfs_buf *out, dfs_error *err)
{
	if (!w->failed && w->cur != 0)
		fail(w, DFS_ERR_INVAL, "the last row is incomplete");
	flush_group(w);
	if (!w->failed && w->out.len == 0)
		dfs_buf_add(&w->out, "PAR1", 4);
	if (!w->failed) {
		size_t start = w->out.len;
		footer(w, &w->out);
		size_t len = w->out.len - start;
		unsigned char tail[8] = {(unsigned char)len, (unsigned char)(len >> 8),
		                         (unsigned char)(len >> 16), (unsigned char)(len >> 24),
		                         'P', 'A', 'R', '1'};
		dfs_buf_add(&w->out, tail, 8);
		if (!dfs_buf_ok(&w->out))
			fail(w, DFS_ERR_NOMEM, "out of memory");
	}
	if (w->failed) {
		if (err)
			*err = w->err;
		return -1;
	}
	dfs_buf_free(out);
	*out = w->out;
	dfs_buf_init(&w->out);
	return 0;
}
