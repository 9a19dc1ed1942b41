/* encode.c - a table written as one Parquet file (parquet.h).
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
#include "util/scratch.h"

#include <math.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <stdatomic.h>
#include <zlib.h>
/* (ZSTD_c_literalCompressionMode: in the library since 1.4.5) */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

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
	enum dfs_pq_codec codec;   /* of its pages */
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
	dfs_buf defs;              /* a level per row of the group (optional
	                            * columns, once the group has a null) */
	size_t bits;               /* BOOL: values packed into vals so far */
	size_t ones;               /* BOOL: how many of them are true */
	size_t pending;            /* bulk values since the last bulk rows */
	size_t dict_hint;          /* entries of the last group's dictionary */
	int64_t nulls;
	bool minmax, str_stats;    /* STRING: min/max seen; short enough */
	size_t smin, smax;         /* offsets of the string min/max in vals */
	size_t sminlen, smaxlen;
	/* the group's chunk, encoded (offsets relative to its start) */
	dfs_buf enc;
	struct chunk k;
	dfs_status status;
};

struct scratch;
static void scratch_free(struct scratch *s);
static void scratches_free(dfs_pq *w);

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
	/* the file's bytes before `out`, in order, as the groups filled in
	 * parallel were encoded (a group's buffer becomes one: its bytes are
	 * never copied); `before`, their length */
	dfs_buf *segs;
	size_t nsegs, segs_cap;
	uint64_t before;
	/* one per thread encoding a group's columns (the caller's first),
	 * kept from group to group: made once, not once a group */
	struct scratch *scratch;
	size_t nscratch;
	bool part;                 /* one row group of a table filled in
	                            * parallel: no magic, no footer */
	void *arena;               /* a part's 8-byte columns (arena_columns) */
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
		w->opt.codec = DFS_PQ_ZSTD;
	if (w->opt.codec != DFS_PQ_UNCOMPRESSED && w->opt.codec != DFS_PQ_GZIP &&
	    w->opt.codec != DFS_PQ_ZSTD) {
		dfs_pq_free(w);
		dfs_error_set(err, DFS_ERR_INVAL, "parquet: an unknown codec");
		return NULL;
	}
	if (w->opt.level <= 0 || w->opt.level > (w->opt.codec == DFS_PQ_ZSTD ? 19 : 9))
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
	dfs_scratch_free(w->opt.pool, w->arena);
	dfs_buf_free(&w->out);
	for (size_t i = 0; i < w->nsegs; i++)
		dfs_buf_free(&w->segs[i]);
	free(w->segs);
	scratches_free(w);
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
	if (c->nulls)   /* levels are kept from a column's first null on */
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

/* Fault in the free part of a fresh buffer about to be written whole,
 * when it is more than a MiB (smaller ones fault in fast enough). */
static void prefault(dfs_buf *b)
{
	if (b->data && b->cap - b->len > ((size_t)1 << 20) + 8192)
		dfs_pages_populate(b->data + b->len, b->cap - b->len);
}

#define HUGE_PAGE ((size_t)2 << 20)

/* Room for `bytes` in the empty buffer b, about `expect` of them to be
 * written (`expect` <= `bytes`): those faulted in at once, in
 * transparent huge pages as far as they fill whole ones, the rest of them
 * in 4 KiB pages.  A group's encoded bytes become part of the file, fresh
 * memory each time, and on a virtual machine a fresh 4 KiB page is dear
 * (a fault, and the host's work behind it): a huge page is one of those
 * for 512 of them.  On the 1M-record benchmark log's records.parquet,
 * faulting in and writing its groups took 0.17 to 0.23 s of CPU instead
 * of 0.26 to 0.27.  But a huge page is zeroed whole however little of it
 * is written: the tail of a group (2.7 MB there) that would take one
 * more, mostly left unused, takes 4 KiB pages instead, and what passes
 * `expect` is faulted in as it is written.  The file keeps only the bytes
 * it holds (dfs_snapshot_from_bufs shrinks each part to its length). */
static void reserve_huge(dfs_buf *b, size_t bytes, size_t expect)
{
	size_t cap = (bytes + 1 + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
	size_t huge = expect / HUGE_PAGE * HUGE_PAGE;
	void *d;
	if (b->len || huge == 0 || cap < bytes || posix_memalign(&d, HUGE_PAGE, cap)) {
		if (dfs_buf_reserve(b, bytes))
			prefault(b);
		return;
	}
#ifdef MADV_HUGEPAGE
	madvise(d, huge, MADV_HUGEPAGE);
#endif
	free(b->data);
	b->data = d;
	b->cap = cap;
	b->data[0] = '\0';
	dfs_pages_populate(d, expect);
}

/* Room in an 8-byte column for the rows the group will have, when the
 * table's size is known: one allocation instead of a series of
 * reallocations, each copying the group so far. */
static void reserve_group(dfs_pq *w, struct col *c)
{
	if (!w->opt.rows_hint || w->rows >= w->opt.rows_hint)
		return;
	uint64_t rows = w->opt.rows_hint - w->rows;
	if (rows > w->opt.group_rows)
		rows = w->opt.group_rows;
	if (c->vals.cap < 8 * (size_t)rows && dfs_buf_reserve(&c->vals, 8 * (size_t)rows))
		prefault(&c->vals);
}

/* An 8-byte value at the end of the column's values, little-endian (the
 * PLAIN encoding); min and max are worked out when the group is encoded,
 * over its distinct values. */
static inline void put8(struct col *c, uint64_t v)
{
	if (c->vals.cap - c->vals.len <= 8 && !dfs_buf_grow(&c->vals, 8))
		return;   /* out of memory: seen when the group is encoded */
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	memcpy(c->vals.data + c->vals.len, &v, 8);
	c->vals.len += 8;
}

static void add_int(dfs_pq *w, enum dfs_pq_type t, uint64_t bits)
{
	struct col *c = next(w, t);
	if (!c)
		return;
	if (c->vals.len == 0)
		reserve_group(w, c);
	put8(c, bits);
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
	uint64_t bits;
	memcpy(&bits, &v, 8);
	add_int(w, DFS_PQ_DOUBLE, bits);
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
	c->ones += v;
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

/* A STRING value at the end of column c's values (4-byte length, bytes),
 * with the column's min and max; false after an error. */
static bool add_str(dfs_pq *w, struct col *c, const char *s, size_t len)
{
	if (!dfs_utf8_valid(s, len)) {
		dfs_error_set(&w->err, DFS_ERR_INVAL,
		              "parquet: a value of column %s is not UTF-8", c->name);
		w->failed = true;
		return false;
	}
	if (len > UINT32_MAX) {
		fail(w, DFS_ERR_TOOBIG, "a string over 4 GiB");
		return false;
	}
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
	return true;
}

void dfs_pq_str(dfs_pq *w, const char *s, size_t len)
{
	if (w->failed)
		return;
	struct col *c = &w->cols[w->cur];
	if (c->type == DFS_PQ_STRING && !add_str(w, c, s, len))
		return;
	if (c->type != DFS_PQ_STRING) {
		next(w, DFS_PQ_STRING);   /* reports the type */
		return;
	}
	if (c->nulls)
		dfs_buf_addc(&c->defs, 1);
	done(w, 4 + len);
}

/* ---- rows in batches ---------------------------------------------------- */

size_t dfs_pq_group_room(const dfs_pq *w)
{
	return w->opt.group_rows - w->group_rows;
}

/* Column `col` when it may take `n` bulk values of type class `string`. */
static struct col *bulk_col(dfs_pq *w, size_t col, bool string)
{
	if (w->failed)
		return NULL;
	if (w->cur != 0 || col >= w->ncols) {
		fail(w, DFS_ERR_INVAL, "bulk values given in the middle of a row");
		return NULL;
	}
	struct col *c = &w->cols[col];
	if ((c->type == DFS_PQ_STRING) != string || c->type == DFS_PQ_BOOL) {
		dfs_error_set(&w->err, DFS_ERR_INVAL,
		              "parquet: bulk values of the wrong kind given for column %s",
		              c->name);
		w->failed = true;
		return NULL;
	}
	if (c->nulls && !string) {
		fail(w, DFS_ERR_INVAL, "bulk numbers given after a null");
		return NULL;
	}
	return c;
}

uint64_t *dfs_pq_bulk(dfs_pq *w, size_t col, size_t n)
{
	struct col *c = bulk_col(w, col, false);
	if (!c)
		return NULL;
	if (c->vals.len == 0)
		reserve_group(w, c);
	if (!dfs_buf_reserve(&c->vals, 8 * n)) {
		fail(w, DFS_ERR_NOMEM, "out of memory");
		return NULL;
	}
	uint64_t *p = (uint64_t *)(void *)(c->vals.data + c->vals.len);
	memset(p, 0, 8 * n);
	c->vals.len += 8 * n;
	c->pending += n;
	return p;
}

void dfs_pq_bulk_str(dfs_pq *w, size_t col, const char *s, size_t len)
{
	struct col *c = bulk_col(w, col, true);
	if (c && add_str(w, c, s, len)) {
		if (c->nulls)
			dfs_buf_addc(&c->defs, 1);
		c->pending++;
		w->group_bytes += 4 + len;
	}
}

/* A null into column c after `before` values of its row group; false
 * (the writer failed) when c is required. */
static bool add_null(dfs_pq *w, struct col *c, size_t before)
{
	if (!c->optional) {
		dfs_error_set(&w->err, DFS_ERR_INVAL,
		              "parquet: a null given for column %s, which is required", c->name);
		w->failed = true;
		return false;
	}
	if (c->nulls == 0) {
		/* the group's rows so far all had a value */
		void *ones = dfs_buf_add_zeros(&c->defs, before);
		if (ones)
			memset(ones, 1, before);
	}
	dfs_buf_addc(&c->defs, 0);
	c->nulls++;
	return true;
}

void dfs_pq_bulk_null(dfs_pq *w, size_t col)
{
	struct col *c = bulk_col(w, col, true);
	if (c && add_null(w, c, (size_t)w->group_rows + c->pending))
		c->pending++;
}

void dfs_pq_bulk_rows(dfs_pq *w, size_t n)
{
	if (w->failed)
		return;
	if (n > dfs_pq_group_room(w)) {
		fail(w, DFS_ERR_INVAL, "bulk rows past the end of the row group");
		return;
	}
	for (size_t i = 0; i < w->ncols; i++) {
		struct col *c = &w->cols[i];
		if (c->pending != n) {
			dfs_error_set(&w->err, DFS_ERR_INVAL,
			              "parquet: column %s has %zu of the %zu bulk rows", c->name,
			              c->pending, n);
			w->failed = true;
			return;
		}
		c->pending = 0;
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
		if (c->type != DFS_PQ_STRING) {
			/* the values were put in host order */
			uint64_t *p = (uint64_t *)(void *)(c->vals.data + c->vals.len - 8 * n);
			for (size_t k = 0; k < n; k++)
				p[k] = __builtin_bswap64(p[k]);
		}
#endif
		if (c->type != DFS_PQ_STRING)
			w->group_bytes += 8 * n;
	}
	w->rows += n;
	w->group_rows += n;
	if (w->group_rows >= w->opt.group_rows || w->group_bytes >= w->opt.group_bytes)
		flush_group(w);
}

void dfs_pq_null(dfs_pq *w)
{
	if (w->failed)
		return;
	if (add_null(w, &w->cols[w->cur], (size_t)w->group_rows))
		done(w, 0);
}

/* ---- row groups ------------------------------------------------------- */

/* What encoding one column chunk takes besides the column's own buffers;
 * one per thread encoding chunks. */
struct scratch {
	z_stream zs;
	bool zs_ready;
	ZSTD_CCtx *zc;
	dfs_buf page, comp, dcomp, dict;
	uint32_t *idx, *lv, *slots, *offs;
	size_t idx_cap, lv_cap, slots_cap, offs_cap;
	struct nslot *ns;          /* the hash table of a dictionary of numbers */
	size_t ns_cap;
};

static void scratch_free(struct scratch *s)
{
	if (s->zs_ready)
		deflateEnd(&s->zs);
	ZSTD_freeCCtx(s->zc);
	dfs_buf_free(&s->page);
	dfs_buf_free(&s->comp);
	dfs_buf_free(&s->dcomp);
	dfs_buf_free(&s->dict);
	free(s->idx);
	free(s->lv);
	free(s->slots);
	free(s->offs);
	free(s->ns);
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

/* Whether the 8 values from `i` are equal (all of them there): without a
 * branch on each, mispredicted where values change every few rows. */
static inline bool run8(const uint32_t *v, size_t i, size_t n)
{
	if (n - i < 8)
		return false;
	uint32_t d = 0;
	for (int k = 1; k < 8; k++)
		d |= v[i + k] ^ v[i];
	return d == 0;
}

/* Values of `width` bits (1..32) in the RLE / bit-packing hybrid: a run
 * of 8 or more equal values as one RLE run (header `count << 1`, then the
 * value in (width + 7) / 8 bytes), the rest bit-packed in groups of 8
 * (header `groups << 1 | 1`, then the values least significant bit
 * first); only the last bit-packed run may be padded, as readers stop at
 * the page's value count. */
static unsigned char *put_varint(unsigned char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	return p;
}

/* 8 values of `w` bits (1..16) packed at p, least significant bit
 * first, in w bytes; as many as 16 bytes written (the caller leaves the
 * room). */
static inline __attribute__((always_inline)) unsigned char *
pack8(unsigned char *p, const uint32_t *g, int w)
{
	if (w <= 8) {
		uint64_t a = 0;
		for (int k = 0; k < 8; k++)
			a |= (uint64_t)g[k] << (k * w);
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
		a = __builtin_bswap64(a);
#endif
		memcpy(p, &a, 8);
	} else {
		uint64_t lo = 0, hi = 0;
		for (int k = 0; k < 8; k++) {
			int at = k * w;
			if (at < 64)
				lo |= (uint64_t)g[k] << at;
			if (at + w > 64)
				hi |= at >= 64 ? (uint64_t)g[k] << (at - 64)
				                : (uint64_t)g[k] >> (64 - at);
		}
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
		lo = __builtin_bswap64(lo);
		hi = __builtin_bswap64(hi);
#endif
		memcpy(p, &lo, 8);
		memcpy(p + 8, &hi, 8);
	}
	return p + w;
}

/* The `n` values v[0..n) bit-packed at p in groups of 8, the last one
 * padded with zeros; where the packing ends.  Each width has its own
 * loop, its shifts constants: a tenth to a half of the time of packing
 * value by value, byte by byte (the indices of dictionaries are at most
 * 16 bits wide: DICT_MAX_VALUES). */
static unsigned char *pack_groups(unsigned char *p, const uint32_t *v, size_t n, int width)
{
	size_t whole = n / 8 * 8;
	uint32_t last[8] = {0};
	memcpy(last, v + whole, (n - whole) * sizeof(*v));
	switch (width) {
#define PACK_CASE(W)                                                \
	case W:                                                     \
		for (size_t at = 0; at < whole; at += 8)            \
			p = pack8(p, v + at, W);                    \
		if (whole < n)                                      \
			p = pack8(p, last, W);                      \
		return p;
	PACK_CASE(1) PACK_CASE(2) PACK_CASE(3) PACK_CASE(4)
	PACK_CASE(5) PACK_CASE(6) PACK_CASE(7) PACK_CASE(8)
	PACK_CASE(9) PACK_CASE(10) PACK_CASE(11) PACK_CASE(12)
	PACK_CASE(13) PACK_CASE(14) PACK_CASE(15) PACK_CASE(16)
#undef PACK_CASE
	default:
		break;
	}
	uint64_t acc = 0;
	int bits = 0;
	for (size_t at = 0; at < (n + 7) / 8 * 8; at++) {
		acc |= (uint64_t)(at < n ? v[at] : 0) << bits;
		bits += width;
		while (bits >= 8) {
			*p++ = (unsigned char)acc;
			acc >>= 8;
			bits -= 8;
		}
	}
	return p;
}

static void encode_hybrid(dfs_buf *b, const uint32_t *v, size_t n, int width)
{
	size_t vbytes = ((size_t)width + 7) / 8;
	/* at most: a bit-packed run's header per 8 values (as long as their
	 * bits), or an RLE run's header and value per 8 or more */
	if (!dfs_buf_reserve(b, n * (vbytes + 2) + 48))
		return;
	unsigned char *p = (unsigned char *)b->data + b->len;
	size_t i = 0;
	while (i < n) {
		if (run8(v, i, n)) {
			size_t r = run_at(v, i, n, SIZE_MAX);
			p = put_varint(p, (uint64_t)r << 1);
			for (size_t k = 0; k < vbytes; k++)
				*p++ = (unsigned char)(v[i] >> (8 * k));
			i += r;
			continue;
		}
		size_t j = i;
		do
			j += 8;
		while (j < n && !run8(v, j, n));
		size_t end = j < n ? j : n;
		size_t groups = (end - i + 7) / 8;
		p = put_varint(p, (uint64_t)groups << 1 | 1);
		p = pack_groups(p, v + i, end - i, width);
		i = end;
	}
	b->len = (size_t)((char *)p - b->data);
	b->data[b->len] = '\0';
}

/* `in` compressed as one gzip member (RFC 1952, what Parquet's GZIP
 * codec means) into `out`, with zlib.  A table must render to the same
 * bytes each time (its size is told before it is read, and it is
 * rendered again after the cache dropped it): ISA-L's igzip, several
 * times faster, was seen to give different (valid) bytes for the same
 * pages from one process to the next, small pages and big; zlib's output
 * never varies. */
static dfs_status gzip(struct scratch *s, const dfs_buf *in, dfs_buf *out, int level)
{
	dfs_buf_reset(out);
	size_t bound = in->len + in->len / 8 + 1024;
	if (!dfs_buf_reserve(out, bound))
		return DFS_ERR_NOMEM;
	if (!s->zs_ready) {
		memset(&s->zs, 0, sizeof(s->zs));
		if (deflateInit2(&s->zs, level, Z_DEFLATED, 15 + 16, 8,
		                 Z_DEFAULT_STRATEGY) != Z_OK)
			return DFS_ERR_NOMEM;
		s->zs_ready = true;
	} else if (deflateReset(&s->zs) != Z_OK) {
		return DFS_ERR_IO;
	}
	s->zs.next_in = (Bytef *)in->data;
	s->zs.avail_in = (uInt)in->len;
	s->zs.next_out = (Bytef *)out->data;
	s->zs.avail_out = (uInt)bound;
	if (deflate(&s->zs, Z_FINISH) != Z_STREAM_END)
		return DFS_ERR_IO;
	out->len = bound - s->zs.avail_out;
	return DFS_OK;
}

/* The level of ZSTD for PLAIN pages of 8-byte numbers when the options
 * ask for level 1: on the pages of the 1M-record benchmark log, level -2
 * takes 40% less CPU than level 1 for 6% more bytes.  Text stays at 1 (a
 * quarter more bytes at -1, for no gain). */
#define ZSTD_FAST_LEVEL (-2)

/* The hash table of libzstd's match finder for those pages: 2^11 entries
 * (8 KiB), not the level's 2^14 for pages of their size (64 KiB), so that
 * it stays in the first-level cache.  On the 1M-record benchmark log:
 * libzstd's time on PLAIN pages of numbers 20% less (0.136 s instead of
 * 0.161 s a rendering), for 0.1% more bytes in the file; text, at level
 * 1, gains nothing from it. */
#define ZSTD_FAST_HASH_LOG 11

/* The level of ZSTD for the dictionary pages of 8-byte numbers and the
 * indices into them, with its literals Huffman-coded all the same (a
 * level below 1 leaves them raw unless told): what shrinks those pages is
 * the skew of their bytes (the high bits of indices, the exponents and
 * top bytes of numbers), far more than repeated strings, and at this
 * level libzstd hardly looks for those.  On the 1M-record benchmark log:
 * the indices 1.6% larger than at level 1 for a third of its CPU time,
 * the dictionaries 5% smaller than at -2 for 10% less. */
#define ZSTD_SKEW_LEVEL (-100)

/* `in` compressed as one Zstandard frame (RFC 8878, what Parquet's ZSTD
 * codec means) into `out`.  One thread's compression, of one version of
 * the library at one level, gives the same bytes every time (a context
 * used again is reset, and its tables sized by the page alone): what a
 * twin told by its size before it is rendered again needs. */
static dfs_status zstd_pack(struct scratch *s, const dfs_buf *in, dfs_buf *out, int level,
                            bool huffman, int hash_log)
{
	dfs_buf_reset(out);
	size_t bound = ZSTD_compressBound(in->len);
	if (!dfs_buf_reserve(out, bound))
		return DFS_ERR_NOMEM;
	if (!s->zc && !(s->zc = ZSTD_createCCtx()))
		return DFS_ERR_NOMEM;
	if (ZSTD_isError(ZSTD_CCtx_setParameter(s->zc, ZSTD_c_compressionLevel, level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(s->zc, ZSTD_c_literalCompressionMode,
	                                        huffman ? ZSTD_ps_enable : ZSTD_ps_auto)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(s->zc, ZSTD_c_hashLog, hash_log)))
		return DFS_ERR_IO;
	size_t n = ZSTD_compress2(s->zc, out->data, bound, in->data, in->len);
	if (ZSTD_isError(n))
		return DFS_ERR_IO;
	out->len = n;
	return DFS_OK;
}

/* `in` as one Zstandard frame of raw blocks (RFC 8878: stored, not
 * compressed) into `out`: what libzstd makes of bytes it cannot shrink,
 * without the search.  For a page of a chunk that is compressed
 * (the codec is the chunk's) that compression would hardly shrink: the
 * dictionary of a column of doubles, one entry per distinct value, whose
 * only redundancy is the few top bits of the exponent (on the 1M-record
 * benchmark log, 19.1 MB of them shrank by 5% at level -100, for 0.02 s
 * of CPU in each rendering). */
#define ZSTD_RAW_BLOCK ((size_t)128 << 10)
static dfs_status zstd_raw(const dfs_buf *in, dfs_buf *out)
{
	dfs_buf_reset(out);
	size_t n = in->len;
	if (n > UINT32_MAX)
		return DFS_ERR_TOOBIG;
	if (!dfs_buf_reserve(out, n + 9 + 3 * (n / ZSTD_RAW_BLOCK + 1)))
		return DFS_ERR_NOMEM;
	unsigned char *p = (unsigned char *)out->data;
	/* the magic number; a single segment whose size takes 4 bytes */
	static const unsigned char head[5] = {0x28, 0xb5, 0x2f, 0xfd, 0xa0};
	memcpy(p, head, 5);
	for (int i = 0; i < 4; i++)
		p[5 + i] = (unsigned char)(n >> (8 * i));
	p += 9;
	size_t at = 0;
	do {
		size_t len = n - at < ZSTD_RAW_BLOCK ? n - at : ZSTD_RAW_BLOCK;
		uint32_t bh = (uint32_t)len << 3 | (at + len == n);   /* raw, last? */
		p[0] = (unsigned char)bh;
		p[1] = (unsigned char)(bh >> 8);
		p[2] = (unsigned char)(bh >> 16);
		memcpy(p + 3, in->data + at, len);
		p += 3 + len;
		at += len;
	} while (at < n);
	out->len = (size_t)((char *)p - out->data);
	out->data[out->len] = '\0';
	return DFS_OK;
}

static dfs_status zstd(struct scratch *s, const dfs_buf *in, dfs_buf *out, int level)
{
	return zstd_pack(s, in, out, level, false, 0);
}

/* A page behind its header at the end of `enc`: `raw` (its uncompressed
 * bytes) and `body` (what is stored: the same or compressed); a data page
 * of `rows` values (`encoding` PLAIN or RLE_DICTIONARY), or the
 * dictionary page of `rows` entries. */
static dfs_status put_page(dfs_buf *enc, const dfs_buf *raw, const dfs_buf *body,
                           bool dict_page, int64_t rows, int encoding,
                           int64_t *uncompressed, int64_t *compressed)
{
	if (raw->len > INT32_MAX || body->len > INT32_MAX)
		return DFS_ERR_TOOBIG;
	size_t at = enc->len;
	dfs_tc t;
	dfs_tc_init(&t, enc);
	dfs_tc_i32(&t, 1, dict_page ? PAGE_DICTIONARY : PAGE_DATA);
	dfs_tc_i32(&t, 2, (int32_t)raw->len);
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
	*uncompressed += (int64_t)(header + raw->len);
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
/* The hash table of a dictionary of `count` entries made anew with
 * `nslots` slots. */
static bool rehash(struct scratch *s, bool str, size_t count, size_t nslots)
{
	if (!room_u32(&s->slots, &s->slots_cap, nslots))
		return false;
	memset(s->slots, 0, nslots * sizeof(*s->slots));
	size_t mask = nslots - 1;
	for (size_t k = 0; k < count; k++) {
		size_t h;
		if (str) {
			const char *e = s->dict.data + s->offs[k];
			h = (size_t)dfs_fnv1a(DFS_FNV1A_INIT, e + 4, le32(e)) & mask;
		} else {
			uint64_t v;
			memcpy(&v, s->dict.data + 8 * k, 8);
			h = hash64(v) & mask;
		}
		while (s->slots[h])
			h = (h + 1) & mask;
		s->slots[h] = (uint32_t)k + 1;
	}
	return true;
}

/* A slot of the hash table of a dictionary of 8-byte values: the value
 * beside 1 + its entry (0: a free slot), so that a lookup reads one
 * place, not a slot then the entry it names. */
struct nslot {
	uint64_t v;
	uint32_t k;
};

/* The table of the dictionary's `count` entries (s->dict) made anew with
 * `nslots` slots. */
static bool rehash_num(struct scratch *s, size_t count, size_t nslots)
{
	if (nslots > s->ns_cap) {
		struct nslot *t = realloc(s->ns, nslots * sizeof(*t));
		if (!t)
			return false;
		s->ns = t;
		s->ns_cap = nslots;
	}
	memset(s->ns, 0, nslots * sizeof(*s->ns));
	size_t mask = nslots - 1;
	for (size_t k = 0; k < count; k++) {
		uint64_t v;
		memcpy(&v, s->dict.data + 8 * k, 8);
		size_t h = hash64(v) & mask;
		while (s->ns[h].k)
			h = (h + 1) & mask;
		s->ns[h] = (struct nslot){v, (uint32_t)k + 1};
	}
	return true;
}

/* make_dict's part for 8-byte values: the entries in the order they
 * first come, `count` of them; false when they would be too many.  Every
 * value is looked up, a run of one value too: skipping the lookup when a
 * value equals the one before (as strings do) costs more than it saves
 * where values change every few rows, the branch mispredicted a third of
 * the time or more (on the 1M-record benchmark log, 22% less time in
 * making dictionaries of integers without it, where the lookups of a
 * run find their slot in the cache). */
static bool dict_numbers(const char *p, struct scratch *s, size_t n, size_t hint,
                         size_t *ndict)
{
	/* at most one entry a value, DICT_MAX_VALUES in all: their room at
	 * once */
	size_t most = n < DICT_MAX_VALUES ? n : DICT_MAX_VALUES;
	/* the table starts as big as the column's last dictionary needed
	 * (the same entries come out whatever its size): a dictionary of
	 * thousands of entries, made in a table that doubles from 64 slots,
	 * was put into it again and again as it grew */
	size_t nslots = 64, count = 0;
	while (nslots < 2 * hint && nslots < 2 * (size_t)DICT_MAX_VALUES)
		nslots *= 2;
	if (!dfs_buf_reserve(&s->dict, 8 * most) || !rehash_num(s, 0, nslots))
		return false;
	size_t mask = nslots - 1;
	unsigned char *d = (unsigned char *)s->dict.data;
	struct nslot *ns = s->ns;
	uint32_t *idx = s->idx;
	for (size_t i = 0; i < n; i++) {
		uint64_t v;
		memcpy(&v, p + 8 * i, 8);
		size_t h = hash64(v) & mask;
		for (;;) {
			struct nslot *sl = &ns[h];
			if (sl->k == 0) {
				/* past the first values, a dictionary of more
				 * entries than half the values seen would not
				 * pay: give up early */
				if (count == DICT_MAX_VALUES || (i >= 1024 && 2 * count > i))
					return false;
				if (2 * (count + 1) > nslots) {
					/* the table doubles when half full */
					s->dict.len = 8 * count;
					if (!rehash_num(s, count, 2 * nslots))
						return false;
					ns = s->ns;
					nslots *= 2;
					mask = nslots - 1;
					h = hash64(v) & mask;
					continue;
				}
				memcpy(d + 8 * count, &v, 8);
				*sl = (struct nslot){v, (uint32_t)++count};
				break;
			}
			if (sl->v == v)
				break;
			h = (h + 1) & mask;
		}
		idx[i] = ns[h].k - 1;
	}
	s->dict.len = 8 * count;
	*ndict = count;
	return true;
}

static bool make_dict(struct col *c, struct scratch *s, size_t n, size_t *ndict)
{
	if (c->type == DFS_PQ_BOOL || n == 0)
		return false;
	/* the table starts small (most columns hold a value or two) and
	 * doubles when half full */
	size_t nslots = 64;
	if (!room_u32(&s->slots, &s->slots_cap, nslots) || !room_u32(&s->idx, &s->idx_cap, n))
		return false;
	memset(s->slots, 0, nslots * sizeof(*s->slots));
	dfs_buf_reset(&s->dict);
	size_t mask = nslots - 1, count = 0;
	bool is_str = c->type == DFS_PQ_STRING;
/* past the first values, a dictionary of more entries than half the
 * values seen would not pay: give up early */
#define MOSTLY_NEW(i) ((i) >= 1024 && 2 * count > (i))
#define GROW()                                                                   \
	do {                                                                     \
		if (2 * (count + 1) > nslots) {                                  \
			if (!rehash(s, is_str, count, 2 * nslots))                  \
				return false;                                    \
			nslots *= 2;                                             \
			mask = nslots - 1;                                       \
		}                                                                \
	} while (0)
	const char *p = c->vals.data;
	if (is_str) {
		/* entries are kept in s->dict as PLAIN (4-byte length, bytes),
		 * s->offs[k] where entry k starts; the slots hold 1 + k */
		const char *prev = NULL;
		uint32_t prev_len = 0;
		for (size_t i = 0; i < n; i++) {
			uint32_t len = le32(p);
			const char *str = p + 4;
			p += 4 + (size_t)len;
			if (prev && len == prev_len && memcmp(str, prev, len) == 0) {
				s->idx[i] = s->idx[i - 1];   /* a run: no lookup */
				continue;
			}
			prev = str;
			prev_len = len;
			size_t h = (size_t)dfs_fnv1a(DFS_FNV1A_INIT, str, len) & mask;
			for (;;) {
				uint32_t sl = s->slots[h];
				if (sl == 0) {
					if (count == DICT_MAX_VALUES || MOSTLY_NEW(i) ||
					    s->dict.len + 4 + len > DICT_MAX_BYTES ||
					    !room_u32(&s->offs, &s->offs_cap, count + 1))
						return false;
					if (2 * (count + 1) > nslots) {
						GROW();
						h = (size_t)dfs_fnv1a(DFS_FNV1A_INIT, str, len) & mask;
						continue;
					}
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
	} else if (!dict_numbers(p, s, n, c->dict_hint, &count)) {
		return false;
	}
	if (!dfs_buf_ok(&s->dict))
		return false;
	int width = 1;
	while (width < 32 && ((size_t)1 << width) < count)
		width++;
#undef GROW
#undef MOSTLY_NEW
	/* indices take at most n * width / 8 bytes (less in runs) */
	if (s->dict.len + n * (size_t)width / 8 >= c->vals.len)
		return false;
	*ndict = count;
	return true;
}
static uint64_t get8(const char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

/* The chunk's statistics: null count, and min and max of its values
 * `vals[0..n)` (8-byte PLAIN values: each distinct value once when the
 * chunk has a dictionary, so this is cheap where values repeat). */
static void chunk_stats(struct col *c, struct chunk *k, const char *vals, size_t n)
{
	k->nulls = c->nulls;
	switch (c->type) {
	case DFS_PQ_STRING:
		if (!c->minmax || !c->str_stats)
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
		k->minmax = true;
		return;
	case DFS_PQ_BOOL:
		if (c->bits == 0)
			return;
		k->min[0] = c->ones == c->bits;
		k->max[0] = c->ones > 0;
		k->minmax = true;
		return;
	case DFS_PQ_DOUBLE: {
		double lo = 0, hi = 0;
		bool any = false;
		for (size_t i = 0; i < n; i++) {
			uint64_t bits = get8(vals + 8 * i);
			double d;
			memcpy(&d, &bits, 8);
			if (isnan(d))
				continue;   /* NaN takes no part in min and max */
			if (!any || d < lo)
				lo = d;
			if (!any || d > hi)
				hi = d;
			any = true;
		}
		if (!any)
			return;
		/* a zero bound is written as -0.0 (min) and +0.0 (max), so that a
		 * reader comparing either zero finds it inside */
		if (lo == 0)
			lo = -0.0;
		if (hi == 0)
			hi = 0.0;
		uint64_t bits;
		memcpy(&bits, &lo, 8);
		put_le64(k->min, bits);
		memcpy(&bits, &hi, 8);
		put_le64(k->max, bits);
		k->minmax = true;
		return;
	}
	case DFS_PQ_UINT64: {
		if (n == 0)
			return;
		uint64_t lo = UINT64_MAX, hi = 0;
		for (size_t i = 0; i < n; i++) {
			uint64_t v = get8(vals + 8 * i);
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
		put_le64(k->min, lo);
		put_le64(k->max, hi);
		k->minmax = true;
		return;
	}
	case DFS_PQ_INT64:
	case DFS_PQ_TIMESTAMP: {
		if (n == 0)
			return;
		int64_t lo = INT64_MAX, hi = INT64_MIN;
		for (size_t i = 0; i < n; i++) {
			int64_t v = (int64_t)get8(vals + 8 * i);
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
		put_le64(k->min, (uint64_t)lo);
		put_le64(k->max, (uint64_t)hi);
		k->minmax = true;
		return;
	}
	}
}

/* The column's group as one chunk at the end of `enc`: a dictionary page
 * when it pays, then the data page (levels of an optional column behind
 * their 4-byte length, then the values or their dictionary indices); the
 * chunk's data_offset from where it starts. */
static dfs_status encode_col(const dfs_pq *w, struct col *c, struct scratch *s,
                             int64_t rows, dfs_buf *enc)
{
	struct chunk *k = &c->k;
	memset(k, 0, sizeof(*k));
	size_t start = enc->len;
	if (!dfs_buf_ok(&c->vals) || !dfs_buf_ok(&c->defs))
		return DFS_ERR_NOMEM;
	size_t nvals = (size_t)rows - (size_t)c->nulls;
	size_t ndict = 0;
	k->dict = make_dict(c, s, nvals, &ndict);
	c->dict_hint = k->dict ? ndict : 0;
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
	if (!dfs_buf_ok(&s->page) || !dfs_buf_ok(&s->dict))
		return DFS_ERR_NOMEM;

	/* compressed, unless that saves less than 1/16: the codec is the
	 * chunk's, so both its pages are compressed or neither */
	const dfs_buf *dbody = &s->dict, *body = &s->page;
	k->codec = DFS_PQ_UNCOMPRESSED;
	if (w->opt.codec == DFS_PQ_GZIP || w->opt.codec == DFS_PQ_ZSTD) {
		dfs_status (*pack)(struct scratch *, const dfs_buf *, dfs_buf *, int) =
			w->opt.codec == DFS_PQ_GZIP ? gzip : zstd;
		/* 8-byte numbers (a PLAIN page of them, a dictionary of them
		 * and its indices) shrink by a third at best, and ZSTD's fast
		 * levels find that nearly as well for much less CPU (see
		 * ZSTD_FAST_LEVEL, ZSTD_SKEW_LEVEL); text keeps the level asked
		 * for */
		bool tuned = w->opt.codec == DFS_PQ_ZSTD && w->opt.level == 1;
		bool numbers = c->type != DFS_PQ_STRING && c->type != DFS_PQ_BOOL;
		dfs_status st;
		if (tuned && numbers && k->dict) {
			st = zstd_pack(s, &s->page, &s->comp, ZSTD_SKEW_LEVEL, true, 0);
			if (st == DFS_OK)
				st = c->type == DFS_PQ_DOUBLE
				             ? zstd_raw(&s->dict, &s->dcomp)
				             : zstd_pack(s, &s->dict, &s->dcomp, ZSTD_SKEW_LEVEL, true, 0);
		} else {
			st = tuned && numbers
			     ? zstd_pack(s, &s->page, &s->comp, ZSTD_FAST_LEVEL, false,
			                 ZSTD_FAST_HASH_LOG)
			     : pack(s, &s->page, &s->comp, w->opt.level);
			if (st == DFS_OK && k->dict)
				st = pack(s, &s->dict, &s->dcomp, w->opt.level);
		}
		if (st != DFS_OK)
			return st;
		size_t raw = s->page.len + (k->dict ? s->dict.len : 0);
		size_t comp = s->comp.len + (k->dict ? s->dcomp.len : 0);
		if (comp < raw - raw / 16) {
			k->codec = w->opt.codec;
			dbody = &s->dcomp;
			body = &s->comp;
		}
	}
	dfs_status st;
	if (k->dict) {
		st = put_page(enc, &s->dict, dbody, true, (int64_t)ndict, ENC_PLAIN,
		              &k->uncompressed, &k->compressed);
		if (st != DFS_OK)
			return st;
	}
	k->data_offset = (int64_t)(enc->len - start);
	st = put_page(enc, &s->page, body, false, rows,
	              k->dict ? ENC_RLE_DICTIONARY : ENC_PLAIN,
	              &k->uncompressed, &k->compressed);
	if (st != DFS_OK)
		return st;
	k->values = rows;
	if (k->dict)
		chunk_stats(c, k, s->dict.data, ndict);
	else
		chunk_stats(c, k, c->vals.data, c->vals.len / 8);
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
		dfs_buf_reset(&c->enc);
		c->status = encode_col(j->w, c, s, j->rows, &c->enc);
	}
}

static void scratches_free(dfs_pq *w)
{
	for (size_t i = 0; i < w->nscratch; i++)
		scratch_free(&w->scratch[i]);
	free(w->scratch);
}

struct encoder {
	struct group_job *job;
	struct scratch *s;
};

static void *encode_thread(void *arg)
{
	struct encoder *e = arg;
	encode_cols(e->job, e->s);
	return NULL;
}

static void flush_group(dfs_pq *w)
{
	if (w->failed || w->group_rows == 0)
		return;
	size_t threads = w->opt.threads > 1 ? dfs_workers(w->opt.threads, w->ncols) : 1;
	if (threads > DFS_WORKERS_MAX)
		threads = DFS_WORKERS_MAX;
	if (!w->scratch) {
		if (!(w->scratch = calloc(threads, sizeof(*w->scratch)))) {
			fail(w, DFS_ERR_NOMEM, "out of memory");
			return;
		}
		w->nscratch = threads;
	}
	if (threads > w->nscratch)
		threads = w->nscratch;
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

	/* a part's chunks go straight into its bytes, one after the other
	 * (one thread): no copy */
	int64_t *at = NULL;
	if (w->part && !(at = malloc(w->ncols * sizeof(*at)))) {
		fail(w, DFS_ERR_NOMEM, "out of memory");
		return;
	}
	for (size_t i = 0; w->part && i < w->ncols; i++) {
		at[i] = (int64_t)w->out.len;
		w->cols[i].status = encode_col(w, &w->cols[i], &w->scratch[0], g->rows, &w->out);
		if (w->cols[i].status != DFS_OK)
			break;
	}
	struct group_job job = {.w = w, .rows = g->rows};
	atomic_init(&job.next, 0);
	if (w->part) {
		/* (done above) */
	} else if (threads > 1) {
		pthread_t tid[DFS_WORKERS_MAX];
		struct encoder enc[DFS_WORKERS_MAX];
		size_t started = 0;
		for (size_t t = 1; t < threads; t++) {
			enc[started] = (struct encoder){&job, &w->scratch[t]};
			if (pthread_create(&tid[started], NULL, encode_thread, &enc[started]) == 0)
				started++;
		}
		encode_cols(&job, &w->scratch[0]);
		for (size_t t = 0; t < started; t++)
			pthread_join(tid[t], NULL);
	} else {
		encode_cols(&job, &w->scratch[0]);
	}

	if (w->out.len == 0 && !w->part) {
		dfs_buf_add(&w->out, "PAR1", 4);   /* the file opens with it */
		if (w->opt.rows_hint > (uint64_t)g->rows) {
			/* as many bytes a row as this group, and some room */
			size_t bytes = 0;
			for (size_t i = 0; i < w->ncols; i++)
				bytes += w->cols[i].enc.len;
			double total = (double)bytes / (double)g->rows * (double)w->opt.rows_hint;
			if (total < 1e12)
				dfs_buf_reserve(&w->out, (size_t)(total * 1.1) + 65536);
		}
	}
	g->offset = at ? at[0] : (int64_t)w->out.len;
	for (size_t i = 0; i < w->ncols; i++) {
		struct col *c = &w->cols[i];
		if (c->status != DFS_OK) {
			free(at);
			fail(w, c->status, c->status == DFS_ERR_NOMEM ? "out of memory"
			                   : c->status == DFS_ERR_TOOBIG ? "a page over 2 GiB"
			                   : "a page could not be compressed");
			return;
		}
		struct chunk *k = &g->chunks[i];
		*k = c->k;
		memset(&c->k, 0, sizeof(c->k));   /* its strings are the group's now */
		int64_t base = at ? at[i] : (int64_t)w->out.len;
		k->offset = base;
		k->data_offset += base;
		if (!at)
			dfs_buf_add(&w->out, c->enc.data, c->enc.len);
		g->uncompressed += k->uncompressed;
		g->compressed += k->compressed;
		dfs_buf_reset(&c->vals);
		dfs_buf_reset(&c->defs);
		c->bits = 0;
		c->ones = 0;
		c->nulls = 0;
		c->minmax = false;
		c->str_stats = true;
	}
	free(at);
	if (!dfs_buf_ok(&w->out))
		fail(w, DFS_ERR_NOMEM, "out of memory");
	w->group_rows = 0;
	w->group_bytes = 0;
}

/* ---- row groups filled in parallel ------------------------------------ */

/* What the threads filling groups at once may hold of their values, at
 * most (a single thread, whatever its group). */
#define FILL_MEMORY ((size_t)256 << 20)

/* Rows a group of a table filled by dfs_pq_fill_groups: the options'
 * rows, fewer when that many rows of 8-byte values would pass the
 * options' bytes.  Of the schema and options only, never of the threads,
 * so that the groups, and the file, are the same on any machine. */
static size_t fill_group_rows(const dfs_pq *w)
{
	size_t per_row = 8 * w->ncols, rows = w->opt.group_rows;
	if (rows > w->opt.group_bytes / per_row)
		rows = w->opt.group_bytes / per_row;
	rows -= rows % 1024;
	return rows ? rows : 1024;
}

/* A group encoded, waiting for its turn in the file: its bytes and what
 * the footer says of it (offsets from the start of `bytes`). */
struct parked {
	dfs_buf bytes;
	struct group g;
	bool here;
};

struct fill_job {
	dfs_pq *w;
	dfs_pq_fill_fn fill;
	void *arg;
	uint64_t rows;
	size_t group, ngroups, window;
	atomic_size_t next;           /* the next group to fill */
	pthread_mutex_t lock;
	pthread_cond_t moved;         /* `done` moved on, or a failure */
	size_t done;                  /* groups in the file so far */
	atomic_size_t group_bytes;    /* of the last group encoded */
	struct parked *ready;         /* per group */
	bool failed;
	dfs_error err;
};

/* The buffer b (taken: b is left empty) at the end of the file's
 * segments, after what `out` holds. */
static bool add_segment(dfs_pq *w, dfs_buf *b)
{
	if (w->nsegs + 2 > w->segs_cap) {
		size_t cap = w->segs_cap ? 2 * w->segs_cap : 16;
		dfs_buf *s = realloc(w->segs, cap * sizeof(*s));
		if (!s)
			return false;
		w->segs = s;
		w->segs_cap = cap;
	}
	if (w->out.len) {
		w->before += w->out.len;
		w->segs[w->nsegs++] = w->out;
		dfs_buf_init(&w->out);
	}
	w->before += b->len;
	w->segs[w->nsegs++] = *b;
	dfs_buf_init(b);
	return true;
}

/* A group at the end of the file (lock held): its bytes (taken: `bytes`
 * is left empty), its chunks' offsets from the file's start; the group's
 * chunks are the file's now. */
static bool append_group(dfs_pq *w, dfs_buf *bytes, struct group *grp)
{
	if (w->ngroups == w->groups_cap) {
		size_t cap = w->groups_cap ? 2 * w->groups_cap : 8;
		struct group *g = realloc(w->groups, cap * sizeof(*g));
		if (!g)
			return false;
		w->groups = g;
		w->groups_cap = cap;
	}
	if (w->before + w->out.len == 0)
		dfs_buf_add(&w->out, "PAR1", 4);
	int64_t base = (int64_t)(w->before + w->out.len);
	if (!dfs_buf_ok(&w->out) || !add_segment(w, bytes))
		return false;
	struct group *g = &w->groups[w->ngroups++];
	*g = *grp;
	memset(grp, 0, sizeof(*grp));
	g->offset += base;
	for (size_t i = 0; i < w->ncols; i++) {
		g->chunks[i].offset += base;
		g->chunks[i].data_offset += base;
	}
	w->rows += (uint64_t)g->rows;
	return true;
}

static void group_free(const dfs_pq *w, struct group *g)
{
	if (!g->chunks)
		return;
	for (size_t c = 0; c < w->ncols; c++) {
		free(g->chunks[c].smin);
		free(g->chunks[c].smax);
	}
	free(g->chunks);
	g->chunks = NULL;
}

static void fill_fail(struct fill_job *j, const dfs_error *err)
{
	if (!j->failed) {
		j->failed = true;
		j->err = *err;
	}
	pthread_cond_broadcast(&j->moved);
}

/* The 8-byte columns of part p, of groups of up to `group` rows, in one
 * block of transparent huge pages, each column a fixed slice of it: the
 * part's values are fresh memory when its first group is filled (see
 * reserve_huge).  Without the block (no memory for it), the columns grow
 * as usual. */
static void arena_columns(dfs_pq *p, size_t group)
{
	size_t each = 8 * group + 64, n = 0;
	for (size_t i = 0; i < p->ncols; i++)
		n += p->cols[i].type != DFS_PQ_STRING && p->cols[i].type != DFS_PQ_BOOL;
	if (n == 0 || group > SIZE_MAX / 16 / n ||
	    !(p->arena = dfs_scratch_alloc(p->opt.pool, n * each)))
		return;
	char *at = p->arena;
	for (size_t i = 0; i < p->ncols; i++) {
		struct col *c = &p->cols[i];
		if (c->type == DFS_PQ_STRING || c->type == DFS_PQ_BOOL)
			continue;
		dfs_buf_init_fixed(&c->vals, at, each);
		at += each;
	}
}

/* A writer of the columns of `w` that holds one group at a time. */
static dfs_pq *new_part(const dfs_pq *w, size_t group, dfs_error *err)
{
	struct dfs_pq_column *cols = malloc(w->ncols * sizeof(*cols));
	if (!cols) {
		dfs_error_set(err, DFS_ERR_NOMEM, "parquet: out of memory");
		return NULL;
	}
	for (size_t i = 0; i < w->ncols; i++)
		cols[i] = (struct dfs_pq_column){w->cols[i].name, w->cols[i].type,
		                                 w->cols[i].optional};
	struct dfs_pq_options o = w->opt;
	o.threads = 1;
	o.nkv = 0;
	o.rows_hint = group;
	dfs_pq *p = dfs_pq_new(cols, w->ncols, &o, err);
	free(cols);
	if (p) {
		p->part = true;
		p->opt.group_bytes = SIZE_MAX;
		arena_columns(p, group);
	}
	return p;
}

static void *fill_worker(void *arg)
{
	struct fill_job *j = arg;
	dfs_pq *w = j->w, *p = NULL;
	size_t g;
	while ((g = atomic_fetch_add(&j->next, 1)) < j->ngroups) {
		pthread_mutex_lock(&j->lock);
		/* at most `window` groups ahead of the file: what waits its
		 * turn stays a few groups whatever one slow group holds up */
		while (!j->failed && g >= j->done + j->window)
			pthread_cond_wait(&j->moved, &j->lock);
		bool stop = j->failed;
		pthread_mutex_unlock(&j->lock);
		if (stop)
			break;
		uint64_t first = (uint64_t)g * j->group;
		size_t n = (size_t)(j->rows - first < j->group ? j->rows - first : j->group);
		if (!p) {
			dfs_error err;
			if (!(p = new_part(w, j->group, &err))) {
				pthread_mutex_lock(&j->lock);
				fill_fail(j, &err);
				pthread_mutex_unlock(&j->lock);
				break;
			}
		}
		p->opt.group_rows = n;   /* the group is encoded once full */
		p->rows = 0;
		/* room for the group's bytes at once, as many as the last */
		size_t want = atomic_load(&j->group_bytes);
		if (p->out.cap < want + want / 8)
			reserve_huge(&p->out, want + want / 8, want);
		j->fill(p, first, n, j->arg);
		if (!p->failed && (p->ngroups != 1 || p->cur != 0 || p->group_rows != 0))
			fail(p, DFS_ERR_INVAL, "a row group not filled with its rows");
		pthread_mutex_lock(&j->lock);
		if (p->failed || j->failed) {
			if (p->failed)
				fill_fail(j, &p->err);
			pthread_mutex_unlock(&j->lock);
			break;
		}
		/* in the file when its turn has come, with those waiting after
		 * it; else it waits its turn */
		struct group grp = p->groups[0];
		p->ngroups = 0;
		atomic_store(&j->group_bytes, p->out.len);
		bool ok = true;
		if (g == j->done) {
			ok = append_group(w, &p->out, &grp);
			j->done++;
			while (ok && j->done < j->ngroups && j->ready[j->done].here) {
				struct parked *k = &j->ready[j->done];
				ok = append_group(w, &k->bytes, &k->g);
				dfs_buf_free(&k->bytes);
				k->here = false;
				j->done++;
			}
			dfs_buf_free(&p->out);   /* (the file's now, unless failed) */
			pthread_cond_broadcast(&j->moved);
		} else {
			struct parked *k = &j->ready[g];
			k->bytes = p->out;           /* the part takes a new buffer */
			dfs_buf_init(&p->out);
			k->g = grp;
			k->here = true;
			memset(&grp, 0, sizeof(grp));
		}
		group_free(w, &grp);   /* (nothing left when appended) */
		if (!ok) {
			dfs_error err;
			dfs_error_set(&err, DFS_ERR_NOMEM, "parquet: out of memory");
			fill_fail(j, &err);
		}
		pthread_mutex_unlock(&j->lock);
	}
	dfs_pq_free(p);
	return NULL;
}

int dfs_pq_fill_groups(dfs_pq *w, uint64_t rows, dfs_pq_fill_fn fill, void *arg)
{
	if (w->failed)
		return -1;
	if (w->rows || w->cur || w->group_rows || w->ngroups)
		return fail(w, DFS_ERR_INVAL, "groups filled after rows were given");
	size_t group = fill_group_rows(w);
	uint64_t ngroups = (rows + group - 1) / group;
	size_t threads = w->opt.threads > 1 && ngroups > 1
	                         ? dfs_workers(w->opt.threads, (size_t)ngroups) : 1;
	if (threads > DFS_WORKERS_MAX)
		threads = DFS_WORKERS_MAX;
	/* each thread holds a group's values: no more threads than
	 * FILL_MEMORY of them (the bytes are the same on any number) */
	size_t values = group * 8 * w->ncols;
	if (threads > 1 && values && threads > FILL_MEMORY / values)
		threads = FILL_MEMORY / values > 1 ? FILL_MEMORY / values : 1;
	if (threads <= 1) {
		/* the same groups, filled here: their columns encoded on the
		 * threads of the options */
		size_t keep_rows = w->opt.group_rows, keep_bytes = w->opt.group_bytes;
		w->opt.group_rows = group;
		w->opt.group_bytes = SIZE_MAX;
		for (uint64_t first = 0; first < rows && !w->failed; first += group) {
			size_t n = (size_t)(rows - first < group ? rows - first : group);
			fill(w, first, n, arg);
			if (!w->failed && (w->rows != first + n || w->cur != 0))
				fail(w, DFS_ERR_INVAL, "a row group not filled with its rows");
		}
		w->opt.group_rows = keep_rows;
		w->opt.group_bytes = keep_bytes;
		return w->failed ? -1 : 0;
	}
	struct fill_job j = {.w = w, .fill = fill, .arg = arg, .rows = rows, .group = group,
	                     .ngroups = (size_t)ngroups, .window = 2 * threads};
	atomic_init(&j.next, 0);
	atomic_init(&j.group_bytes, 0);
	j.ready = calloc((size_t)ngroups, sizeof(*j.ready));
	if (!j.ready || pthread_mutex_init(&j.lock, NULL) != 0) {
		free(j.ready);
		return fail(w, DFS_ERR_NOMEM, "out of memory");
	}
	if (pthread_cond_init(&j.moved, NULL) != 0) {
		pthread_mutex_destroy(&j.lock);
		free(j.ready);
		return fail(w, DFS_ERR_NOMEM, "out of memory");
	}
	dfs_workers_run(threads, fill_worker, &j);
	for (size_t g = 0; g < j.ngroups; g++)
		if (j.ready[g].here) {
			dfs_buf_free(&j.ready[g].bytes);
			group_free(w, &j.ready[g].g);
		}
	free(j.ready);
	pthread_cond_destroy(&j.moved);
	pthread_mutex_destroy(&j.lock);
	if (j.failed) {
		w->failed = true;
		w->err = j.err;
		return -1;
	}
	if (j.done != j.ngroups)
		return fail(w, DFS_ERR_INVAL, "a row group was never filled");
	return 0;
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

static void column_chunk(dfs_tc *t, const struct col *c, const struct chunk *k)
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
	dfs_tc_i32(t, 4, (int32_t)k->codec);
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
			column_chunk(&t, &w->cols[i], &gr->chunks[i]);
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

/* The last group and the footer, at the end of w->out; 0, or -1 with
 * `err` set. */
static int finish_file(dfs_pq *w, dfs_error *err)
{
	if (!w->failed && w->cur != 0)
		fail(w, DFS_ERR_INVAL, "the last row is incomplete");
	flush_group(w);
	if (!w->failed && w->before + w->out.len == 0)
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
	return 0;
}

int dfs_pq_finish(dfs_pq *w, dfs_buf *out, dfs_error *err)
{
	if (finish_file(w, err))
		return -1;
	if (w->nsegs) {
		/* one buffer: the segments joined */
		dfs_buf all = DFS_BUF_INIT;
		if (w->before + w->out.len < SIZE_MAX / 2)
			dfs_buf_reserve(&all, (size_t)(w->before + w->out.len));
		for (size_t i = 0; i < w->nsegs; i++) {
			dfs_buf_add(&all, w->segs[i].data, w->segs[i].len);
			dfs_buf_free(&w->segs[i]);
		}
		dfs_buf_add(&all, w->out.data, w->out.len);
		w->nsegs = 0;
		w->before = 0;
		dfs_buf_free(&w->out);
		if (!dfs_buf_ok(&all)) {
			dfs_buf_free(&all);
			return dfs_error_set(err, DFS_ERR_NOMEM, "parquet: out of memory");
		}
		w->out = all;
	}
	dfs_buf_free(out);
	*out = w->out;
	dfs_buf_init(&w->out);
	return 0;
}

int dfs_pq_finish_parts(dfs_pq *w, dfs_buf **parts, size_t *nparts, dfs_error *err)
{
	*parts = NULL;
	*nparts = 0;
	if (finish_file(w, err))
		return -1;
	dfs_buf last = w->out;
	dfs_buf_init(&w->out);
	if (!add_segment(w, &last)) {
		dfs_buf_free(&last);
		return dfs_error_set(err, DFS_ERR_NOMEM, "parquet: out of memory");
	}
	*parts = w->segs;
	*nparts = w->nsegs;
	w->segs = NULL;
	w->nsegs = w->segs_cap = 0;
	w->before = 0;
	return 0;
}
