/* export.c - a selection of a log written in the log's own format
 * (dfs_log_export, the filesystem's filtered.darshan; see writer.h).
 *
 * The source file is read again.  Its header is kept as stored (format
 * version, byte order, compression, padding, partial flags, module
 * versions): only the region map changes.  Regions no filter touched are
 * copied as compressed bytes.  A filtered module is written anew from the
 * stored bytes of the records it keeps, which the module's decoder points
 * out (dfs_decode_in's `stored` hook): no record is converted between
 * versions or byte orders, so every reader sees the values, warnings and
 * quirks of the original.  (A fixed-size module stored at the current
 * version in host order is held by the log as stored: its records are
 * written from memory.)  The job region changes only in its metadata
 * text (the filters that made the selection). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "darshanfs/writer.h"
#include "log/region.h"
#include "util/bytes.h"
#include "writer/compress.h"
#include "writer/writer_int.h"

#define HEADER_341 1328
#define HEADER_OLD 360
#define METADATA_SIZE 1024
#define COPY_CHUNK ((size_t)1 << 20)
/* inflated bytes one region may give: as the reader allows a whole log
 * (dfs_log_inflate_limit) */
#define MAX_THREADS 4

/* The records of one filtered module to write, in order. */
struct pick {
	const size_t *index;    /* NULL: 0 .. count-1 */
	size_t count;
	size_t *owned;          /* index list built here (APMPI's header) */
};

struct exporter {
	const dfs_log *log;
	const dfs_log_header *h;
	const dfs_export *x;
	int fd;
	unsigned char raw_header[HEADER_341];
	dfs_buf *out;
	size_t base;            /* where the log starts in out */
	dfs_compressor *z;      /* NULL for uncompressed logs */
	size_t limit;           /* inflated bytes a region may give */
	uint64_t region_off;
	dfs_region names;
	dfs_region mods[DFS_MOD_SLOTS];
	uint32_t new_ver[DFS_MOD_SLOTS]; /* version written, 0: the stored one */
	struct pick picks[DFS_MOD_SLOTS];
};

/* ---- source ------------------------------------------------------------- */

static int read_at(int fd, uint64_t off, size_t len, void *buf, dfs_error *err)
{
	size_t done = 0;
	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return dfs_error_set(err, DFS_ERR_IO, "reading the log failed: %s",
			                     n < 0 ? strerror(errno) : "it is shorter than it was");
		done += (size_t)n;
	}
	return 0;
}

/* Current module id of header slot `slot` (old logs are renumbered as the
 * reader does, format doc §1.8). */
static int slot_id(const dfs_log_header *h, int slot)
{
	int v = h->major * 100 + h->minor, id = slot;
	if (v < 320 && id >= DFS_MOD_H5D)
		id++;
	if (v < 341 && id >= DFS_MOD_PNETCDF_VAR)
		id++;
	return id;
}

static bool old_header(const dfs_log_header *h)
{
	return h->header_size == HEADER_OLD;
}

static uint64_t file_u64(const unsigned char *p, bool sw)
{
	return dfs_load_u64(p, sw);
}

static void put_file_u64(unsigned char *p, uint64_t v, bool sw)
{
	dfs_store_u64(p, sw ? __builtin_bswap64(v) : v);
}

/* Is the file still the log that was decoded?  (Its size and its header's
 * region map, as read now.) */
static int check_source(struct exporter *ex, dfs_error *err)
{
	const dfs_log_header *h = ex->h;
	struct stat st;
	if (fstat(ex->fd, &st) != 0)
		return dfs_error_set(err, DFS_ERR_IO, "%s", strerror(errno));
	if ((uint64_t)st.st_size != dfs_log_file_size(ex->log) ||
	    (h->header_size != HEADER_341 && h->header_size != HEADER_OLD))
		return dfs_error_set(err, DFS_ERR_IO, "the log changed since it was read");
	if (read_at(ex->fd, 0, h->header_size, ex->raw_header, err))
		return -1;
	const unsigned char *r = ex->raw_header;
	bool old = old_header(h), sw = h->swapped, same = true;
	same = strncmp((const char *)r, h->version, 8) == 0;
	same = same && file_u64(r + (old ? 24 : 32), sw) == h->names.off &&
	       file_u64(r + (old ? 32 : 40), sw) == h->names.len;
	int nslots = old ? 16 : DFS_MOD_SLOTS, maps = old ? 40 : 48;
	for (int s = 0; s < nslots && same; s++) {
		int id = slot_id(h, s);
		same = id < DFS_MOD_SLOTS &&
		       file_u64(r + maps + 16 * s, sw) == h->mods[id].off &&
		       file_u64(r + maps + 16 * s + 8, sw) == h->mods[id].len;
	}
	if (!same)
		return dfs_error_set(err, DFS_ERR_IO, "the log changed since it was read");
	return 0;
}

/* The inflated bytes of source region r. */
static int inflate_region(struct exporter *ex, dfs_region r, dfs_buf *b,
                          dfs_error *err)
{
	unsigned char *raw = malloc(r.len ? r.len : 1);
	if (!raw)
		return dfs_error_nomem(err);
	int ret = read_at(ex->fd, r.off, r.len, raw, err);
	if (ret == 0)
		ret = dfs_region_inflate(ex->h->comp_type, raw, r.len, ex->limit, 0, b, err);
	free(raw);
	return ret;
}

/* ---- destination -------------------------------------------------------- */

static uint64_t out_pos(const struct exporter *ex)
{
	return ex->out->len - ex->base;
}

static int sink_write(void *ctx, const void *data, size_t len, dfs_error *err)
{
	dfs_buf *out = ctx;
	dfs_buf_add(out, data, len);
	if (!dfs_buf_ok(out))
		return dfs_error_set(err, DFS_ERR_NOMEM, "out of memory holding the log");
	return 0;
}

static int region_begin(struct exporter *ex, dfs_error *err)
{
	ex->region_off = out_pos(ex);
	return ex->z ? dfs_compressor_begin(ex->z, err) : 0;
}

static int region_add(struct exporter *ex, const void *data, size_t len,
                      dfs_error *err)
{
	if (ex->z)
		return dfs_compressor_write(ex->z, data, len, err);
	return sink_write(ex->out, data, len, err);
}

static int region_end(struct exporter *ex, dfs_region *r, dfs_error *err)
{
	uint64_t len = 0;
	if (ex->z && dfs_compressor_end(ex->z, &len, err))
		return -1;
	r->off = ex->region_off;
	r->len = out_pos(ex) - ex->region_off;
	return 0;
}

/* Source region `src` (of `what`) copied byte for byte. */
static int copy_region(struct exporter *ex, const char *what, dfs_region src,
                       dfs_region *dst, dfs_error *err)
{
	uint64_t size = dfs_log_file_size(ex->log);
	if (src.len > size || src.off > size - src.len)
		return dfs_error_set(err, DFS_ERR_FORMAT, "%s: region [%llu, +%llu) lies "
		                     "outside the file (%llu bytes)", what,
		                     (unsigned long long)src.off, (unsigned long long)src.len,
		                     (unsigned long long)size);
	dst->off = out_pos(ex);
	dst->len = src.len;
	for (uint64_t done = 0; done < src.len;) {
		size_t n = src.len - done < COPY_CHUNK ? (size_t)(src.len - done) : COPY_CHUNK;
		void *p = dfs_buf_add_zeros(ex->out, n);
		if (!p)
			return dfs_error_set(err, DFS_ERR_NOMEM, "out of memory holding the log");
		if (read_at(ex->fd, src.off + done, n, p, err))
			return -1;
		done += n;
	}
	return 0;
}

/* ---- job region --------------------------------------------------------- */

/* What a line (len bytes, without its newline) needs at least: all of
 * it, or "key=...\n" if that is shorter. */
static size_t line_min(const char *line, size_t len)
{
	const char *eq = memchr(line, '=', len);
	size_t key = eq ? (size_t)(eq - line) + 1 : len;
	return key + 4 < len + 1 ? key + 4 : len + 1;
}

/* Bytes line i takes when no line may take more than `cap` (but each
 * takes at least its minimum). */
static size_t line_size(const char *line, size_t len, size_t cap)
{
	if (len + 1 <= cap)
		return len + 1;
	size_t min = line_min(line, len);
	return cap > min ? cap : min;
}

/* Bytes all the lines of `add` take under `cap`; *longest gets the
 * longest line. */
static size_t lines_size(const char *add, size_t cap, size_t *longest)
{
	size_t total = 0;
	*longest = 0;
	for (const char *p = add; *p;) {
		size_t n = strcspn(p, "\n");
		if (n) {
			total += line_size(p, n, cap);
			*longest = n + 1 > *longest ? n + 1 : *longest;
		}
		p += n + (p[n] == '\n');
	}
	return total;
}

/* Append the lines of `add` to the metadata text `text` (len bytes, room
 * for METADATA_SIZE - 1 and a NUL).  When they do not fit, the longest
 * lines are cut, to end in "...", to the largest length that lets every
 * line in; when not even "key=..." of each fits, nothing is added. */
static int add_lines(char *text, size_t *len, const char *add, dfs_error *err)
{
	size_t room = METADATA_SIZE - 1 - *len, longest;
	if (lines_size(add, 0, &longest) > room)
		return dfs_error_set(err, DFS_ERR_TOOBIG,
		                     "the job's metadata (%d bytes) has no room for "
		                     "the lines naming the filters", METADATA_SIZE);
	size_t lo = 0, hi = longest;   /* lines_size(lo) fits */
	while (lo < hi) {
		size_t mid = lo + (hi - lo + 1) / 2, ignored;
		if (lines_size(add, mid, &ignored) <= room)
			lo = mid;
		else
			hi = mid - 1;
	}
	for (const char *p = add; *p;) {
		size_t n = strcspn(p, "\n");
		const char *line = p;
		p += n + (p[n] == '\n');
		if (n == 0)
			continue;
		size_t size = line_size(line, n, lo);
		if (size == n + 1) {
			memcpy(text + *len, line, n);
			text[*len + n] = '\n';
		} else {
			memcpy(text + *len, line, size - 4);
			memcpy(text + *len + size - 4, "...\n", 4);
		}
		*len += size;
	}
	return 0;
}

/* The metadata field (METADATA_SIZE bytes) with x->metadata added. */
static int extend_metadata(char *meta, const char *add, dfs_error *err)
{
	char text[METADATA_SIZE];
	size_t len = strnlen(meta, METADATA_SIZE);
	memcpy(text, meta, len);
	if (len > 0 && len < METADATA_SIZE - 1 && text[len - 1] != '\n')
		text[len++] = '\n';
	if (len >= METADATA_SIZE)
		len = METADATA_SIZE - 1; /* no NUL was stored: make room for one */
	if (add_lines(text, &len, add, err))
		return -1;
	memset(meta, 0, METADATA_SIZE);
	memcpy(meta, text, len);
	return 0;
}

static int write_job(struct exporter *ex, dfs_error *err)
{
	const dfs_log_header *h = ex->h;
	dfs_region job;
	const char *add = ex->x->metadata;
	if (!add || !*add)
		return copy_region(ex, "job data", h->job, &job, err);
	dfs_buf b = DFS_BUF_INIT;
	size_t meta_off = old_header(h) ? 40 : 56;
	int ret = inflate_region(ex, h->job, &b, err);
	if (ret == 0 && b.len < meta_off + METADATA_SIZE)
		ret = dfs_error_set(err, DFS_ERR_FORMAT, "job data is too short (%zu bytes)",
		                    b.len);
	if (ret == 0)
		ret = extend_metadata(b.data + meta_off, add, err);
	if (ret == 0)
		ret = region_begin(ex, err) || region_add(ex, b.data, b.len, err) ||
		      region_end(ex, &job, err);
	dfs_buf_free(&b);
	return ret ? -1 : 0;
}

/* ---- selections --------------------------------------------------------- */

/* The records of module `id` a filter kept, or NULL when it is copied. */
static const dfs_records *decoded(const struct exporter *ex, int id)
{
	const dfs_log_module *lm = dfs_log_get_module(ex->log, id);
	if (!lm->present || !lm->module || lm->status != DFS_OK)
		return NULL;
	return &lm->records;
}

static bool is_filtered(const struct exporter *ex, int id)
{
	return ex->x->module[id].filtered && ex->h->mods[id].len > 0 &&
	       dfs_log_get_module(ex->log, id)->module;
}

static int make_pick(struct exporter *ex, int id, dfs_error *err)
{
	const dfs_export_module *xm = &ex->x->module[id];
	struct pick *p = &ex->picks[id];
	const dfs_log_module *lm = dfs_log_get_module(ex->log, id);
	if (lm->status != DFS_OK)
		return dfs_error_set(err, lm->status, "%s module cannot be decoded, so "
		                     "its unselected records cannot be left out (%s)",
		                     lm->module->name, lm->error ? lm->error : "unreadable");
	const dfs_records *r = xm->rows ? xm->rows : &lm->records;
	p->index = xm->index;
	p->count = xm->index ? xm->count : r->count;
	for (size_t k = 0; p->index && k < p->count; k++)
		if (p->index[k] >= r->count)
			return dfs_error_set(err, DFS_ERR_INVAL,
			                     "%s: record index %zu out of range (%zu records)",
			                     lm->module->name, p->index[k], r->count);
	if (!p->index || p->count == 0 || !dfs_writer_has_header_record(id))
		return 0;
	for (size_t k = 0; k < p->count; k++)
		if (p->index[k] == 0)
			return 0;
	/* the header record goes in front of the others */
	p->owned = malloc((p->count + 1) * sizeof(size_t));
	if (!p->owned)
		return dfs_error_nomem(err);
	p->owned[0] = 0;
	memcpy(p->owned + 1, p->index, p->count * sizeof(size_t));
	p->index = p->owned;
	p->count++;
	return 0;
}

/* ---- names -------------------------------------------------------------- */

/* Ids the written records use (`kept`) and those of records left out
 * (`gone`).  Modules copied undecoded use ids nobody can tell: their
 * names are never in `gone` alone. */
static int name_sets(struct exporter *ex, struct dfs_id_set *kept,
                     struct dfs_id_set *gone, dfs_error *err)
{
	size_t nk = 0, ng = 0;
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		const dfs_records *own = decoded(ex, id);
		if (!own)
			continue;
		nk += is_filtered(ex, id) ? ex->picks[id].count : own->count;
		ng += is_filtered(ex, id) ? own->count : 0;
	}
	if (dfs_id_set_init(kept, 2 * nk, err) || dfs_id_set_init(gone, 2 * ng, err))
		return -1;
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		const dfs_records *own = decoded(ex, id);
		if (!own)
			continue;
		if (!is_filtered(ex, id)) {
			dfs_id_set_add_records(kept, own, NULL, own->count, id);
			continue;
		}
		const dfs_export_module *xm = &ex->x->module[id];
		const struct pick *p = &ex->picks[id];
		dfs_id_set_add_records(kept, xm->rows ? xm->rows : own, p->index, p->count, id);
		dfs_id_set_add_records(gone, own, NULL, own->count, id);
	}
	return 0;
}

/* The name entries of `table` (inflated, stored format) that stay. */
static void keep_names(const struct exporter *ex, const dfs_buf *table,
                       const struct dfs_id_set *kept,
                       const struct dfs_id_set *gone, dfs_buf *out)
{
	const dfs_log_header *h = ex->h;
	const unsigned char *d = (const unsigned char *)table->data;
	size_t len = table->len, pos = 0;
	bool counted = h->major == 3 && h->minor == 0; /* 3.00: u32 length */
	while (pos + 8 <= len) {
		size_t n;
		if (counted) {
			if (pos + 12 > len)
				break;
			size_t s = dfs_load_u32(d + pos + 8, h->swapped);
			if (s > len - pos - 12)
				break;
			n = 12 + s;
		} else {
			const unsigned char *z = memchr(d + pos + 8, 0, len - pos - 8);
			if (!z)
				break;
			n = (size_t)(z - (d + pos)) + 1;
		}
		uint64_t id = dfs_load_u64(d + pos, h->swapped);
		if (!dfs_id_set_has(gone, id) || dfs_id_set_has(kept, id))
			dfs_buf_add(out, d + pos, n);
		pos += n;
	}
}

static int write_names(struct exporter *ex, bool any_filtered, dfs_error *err)
{
	const dfs_log_header *h = ex->h;
	ex->names.off = out_pos(ex);
	ex->names.len = 0;
	if (h->names.len == 0)
		return 0;
	if (!any_filtered)
		return copy_region(ex, "name table", h->names, &ex->names, err);
	struct dfs_id_set kept = {0}, gone = {0};
	dfs_buf table = DFS_BUF_INIT, keep = DFS_BUF_INIT;
	int ret = name_sets(ex, &kept, &gone, err);
	if (ret == 0)
		ret = inflate_region(ex, h->names, &table, err);
	if (ret == 0) {
		keep_names(ex, &table, &kept, &gone, &keep);
		if (!dfs_buf_ok(&keep))
			ret = dfs_error_nomem(err);
	}
	if (ret == 0 && keep.len > 0)
		ret = region_begin(ex, err) || region_add(ex, keep.data, keep.len, err) ||
		      region_end(ex, &ex->names, err);
	dfs_id_set_free(&kept);
	dfs_id_set_free(&gone);
	dfs_buf_free(&table);
	dfs_buf_free(&keep);
	return ret ? -1 : 0;
}

/* ---- modules ------------------------------------------------------------ */

/* Where each decoded record lies in the inflated region. */
struct spans {
	size_t *at;             /* offset, length pairs */
	size_t count, cap;
	bool nomem;
};

static void span_add(void *ctx, size_t off, size_t len)
{
	struct spans *s = ctx;
	if (s->count == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		size_t *at = realloc(s->at, cap * 2 * sizeof(size_t));
		if (!at) {
			s->nomem = true;
			return;
		}
		s->at = at;
		s->cap = cap;
	}
	s->at[2 * s->count] = off;
	s->at[2 * s->count + 1] = len;
	s->count++;
}

/* The stored bytes of every record the reader decoded from `region`. */
static int find_spans(struct exporter *ex, int id, const dfs_buf *region,
                      struct spans *sp, dfs_error *err)
{
	const dfs_module *m = dfs_module_get(id);
	uint32_t ver = ex->h->mod_ver[id];
	dfs_records tmp;
	dfs_records_init(&tmp, m, ver);
	dfs_decode_in in = {
		.data = (const unsigned char *)region->data,
		.len = region->len,
		.version = ver,
		.swap = ex->h->swapped,
		.h5f_version = ex->h->mod_ver[DFS_MOD_H5F],
		.stored = span_add,
		.stored_ctx = sp,
	};
	int ret = m->decode(&in, &tmp, err);
	dfs_records_free(&tmp);
	if (ret) {
		dfs_error_prefix(err, "%s module", m->name);
		return -1;
	}
	if (sp->nomem)
		return dfs_error_nomem(err);
	if (sp->count != decoded(ex, id)->count)
		return dfs_error_set(err, DFS_ERR_IO, "the log changed since it was read");
	return 0;
}

/* Are the records the log holds of module `id` its stored bytes?  (A
 * fixed-size module stored at the current version in host order is read
 * as it lies; packing loses nothing.) */
static bool held_as_stored(const struct exporter *ex, int id)
{
	const dfs_module *m = dfs_module_get(id);
	return m->record_size && ex->h->mod_ver[id] == m->version && !ex->h->swapped;
}

/* A filtered module from the stored bytes of the records it keeps: those
 * the log holds, or else found again in the inflated region. */
static int write_stored(struct exporter *ex, int id, dfs_error *err)
{
	const struct pick *p = &ex->picks[id];
	const dfs_records *own = decoded(ex, id);
	dfs_buf region = DFS_BUF_INIT;
	struct spans sp = {0};
	bool held = held_as_stored(ex, id);
	int ret = held ? 0 : inflate_region(ex, ex->h->mods[id], &region, err);
	if (ret == 0 && !held)
		ret = find_spans(ex, id, &region, &sp, err);
	if (ret == 0)
		ret = region_begin(ex, err);
	_Alignas(8) unsigned char scratch[DFS_RECORD_MAX];
	for (size_t k = 0; k < p->count && ret == 0; k++) {
		size_t i = p->index ? p->index[k] : k;
		if (held)
			ret = region_add(ex, dfs_record_get(own, i, scratch),
			                 own->module->record_size, err);
		else
			ret = region_add(ex, region.data + sp.at[2 * i], sp.at[2 * i + 1], err);
	}
	if (ret == 0)
		ret = region_end(ex, &ex->mods[id], err);
	free(sp.at);
	dfs_buf_free(&region);
	return ret;
}

/* Is every field of the module's records an 8-byte number?  (Then a row
 * is stored in the other byte order by reversing each 8-byte word.) */
static bool words_only(const dfs_module *m)
{
	if (!m->record_size || m->record_size % 8)
		return false;
	for (size_t f = 0; f < m->n_fields; f++)
		if (m->fields[f].storage != DFS_S_I64 && m->fields[f].storage != DFS_S_U64 &&
		    m->fields[f].storage != DFS_S_F64)
			return false;
	return true;
}

/* How rows without stored bytes (imported from a CSV) are stored. */
enum row_form {
	ROW_REFUSED,
	ROW_WORDS,      /* fixed size, every word a number: reversed if swapped */
	ROW_AS_IS,      /* the current layout, in host order */
	ROW_DXT,        /* DXT, 40-byte segments (version current) */
	ROW_DXT_SHORT,  /* DXT, 32-byte segments (the short version) */
};

/* Do all the segments of the DXT rows lack a thread id? */
static bool dxt_rows_threadless(const dfs_records *rows, const struct pick *p)
{
	for (size_t k = 0; k < p->count; k++) {
		size_t i = p->index ? p->index[k] : k, len = dfs_record_size(rows, i);
		const unsigned char *rec = dfs_record(rows, i);
		for (size_t s = DFS_DXT_FIXED; s + DFS_DXT_SEG <= len; s += DFS_DXT_SEG)
			if (dfs_load_u64(rec + s + 32, false) != DFS_DXT_NO_THREAD)
				return false;
	}
	return true;
}

/* The form of the rows of module `id`, and the version it stores. */
static enum row_form row_form(const struct exporter *ex, int id, uint32_t *version)
{
	const dfs_module *m = dfs_module_get(id);
	const dfs_records *rows = ex->x->module[id].rows;
	bool swap = ex->h->swapped;
	uint32_t short_version = dfs_writer_short_dxt_version(id);
	*version = m->version;
	if (short_version) {
		/* thread ids where the log has none: the short segments */
		if (dxt_rows_threadless(rows, &ex->picks[id]) &&
		    ex->h->mod_ver[id] <= short_version) {
			*version = short_version;
			return ROW_DXT_SHORT;
		}
		return ROW_DXT;
	}
	if (words_only(m))
		return ROW_WORDS;
	if (!swap && (m->record_size || ex->h->mod_ver[id] == m->version))
		return ROW_AS_IS;
	return ROW_REFUSED;
}

/* One DXT row in the log's byte order: the fixed part (hostname as
 * text), segments of `seg` bytes; a thread id is never swapped (as
 * readers expect) and "none" is stored as 0. */
static void dxt_row(const unsigned char *rec, size_t len, size_t seg, bool swap,
                    dfs_buf *out)
{
	size_t n = (len - DFS_DXT_FIXED) / DFS_DXT_SEG;
	unsigned char *d = dfs_buf_add_zeros(out, DFS_DXT_FIXED + seg * n);
	if (!d)
		return;
	memcpy(d, rec, DFS_DXT_FIXED);
	static const size_t words[] = {0, 8, 16, 88, 96};
	for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++)
		dfs_copy8(d + words[w], rec + words[w], swap);
	for (size_t k = 0; k < n; k++) {
		const unsigned char *s = rec + DFS_DXT_FIXED + DFS_DXT_SEG * k;
		unsigned char *o = d + DFS_DXT_FIXED + seg * k;
		for (int f = 0; f < 4; f++)
			dfs_copy8(o + 8 * f, s + 8 * f, swap);
		if (seg == DFS_DXT_SEG) {
			uint64_t t = dfs_load_u64(s + 32, false);
			dfs_store_u64(o + 32, t == DFS_DXT_NO_THREAD ? 0 : t);
		}
	}
}

/* One row as stored in `form`, into `out`. */
static void row_bytes(enum row_form form, bool swap, const unsigned char *rec,
                      size_t len, dfs_buf *out)
{
	dfs_buf_reset(out);
	if (form == ROW_DXT || form == ROW_DXT_SHORT) {
		if (len >= DFS_DXT_FIXED && (len - DFS_DXT_FIXED) % DFS_DXT_SEG == 0)
			dxt_row(rec, len, form == ROW_DXT ? DFS_DXT_SEG : DFS_DXT_SEG_SHORT,
			        swap, out);
		return;
	}
	dfs_buf_add(out, rec, len);
	for (size_t w = 0; form == ROW_WORDS && swap && w + 8 <= len; w += 8)
		dfs_copy8(out->data + w, rec + w, true);
}

/* A module whose rows were imported from a CSV: they have no stored bytes,
 * so they are stored at the module's current version (the short DXT
 * version for DXT rows without thread ids in a log without them), which
 * the header then gives for the module. */
static int write_rows(struct exporter *ex, int id, dfs_error *err)
{
	const dfs_module *m = dfs_module_get(id);
	const dfs_records *rows = ex->x->module[id].rows;
	const struct pick *p = &ex->picks[id];
	bool swap = ex->h->swapped;
	uint32_t version;
	enum row_form form = row_form(ex, id, &version);
	if (form == ROW_REFUSED)
		return dfs_error_set(err, DFS_ERR_UNSUPPORTED,
		                     "%s: imported rows cannot be stored in this log "
		                     "(%s records, version %u, %s byte order)", m->name,
		                     m->record_size ? "fixed-size" : "variable-size",
		                     ex->h->mod_ver[id], swap ? "the other" : "this machine's");
	_Alignas(8) unsigned char scratch[DFS_RECORD_MAX];
	dfs_buf conv = DFS_BUF_INIT;
	int ret = region_begin(ex, err);
	for (size_t k = 0; k < p->count && ret == 0; k++) {
		size_t i = p->index ? p->index[k] : k;
		row_bytes(form, swap, dfs_record_get(rows, i, scratch),
		          dfs_record_size(rows, i), &conv);
		ret = dfs_buf_ok(&conv) ? region_add(ex, conv.data, conv.len, err)
		                        : dfs_error_nomem(err);
	}
	if (ret == 0)
		ret = region_end(ex, &ex->mods[id], err);
	if (version != ex->h->mod_ver[id])
		ex->new_ver[id] = version;
	dfs_buf_free(&conv);
	return ret;
}

static int write_module(struct exporter *ex, int id, dfs_error *err)
{
	dfs_region src = ex->h->mods[id];
	if (src.len == 0) {
		/* a module active without data keeps a place (len 0) */
		ex->mods[id].off = src.off ? out_pos(ex) : 0;
		ex->mods[id].len = 0;
		return 0;
	}
	if (!is_filtered(ex, id))
		return copy_region(ex, dfs_module_slot_name(id), src, &ex->mods[id], err);
	if (ex->x->module[id].rows)
		return write_rows(ex, id, err);
	return write_stored(ex, id, err);
}

/* ---- header ------------------------------------------------------------- */

static void write_header(struct exporter *ex)
{
	const dfs_log_header *h = ex->h;
	unsigned char *d = (unsigned char *)ex->out->data + ex->base;
	bool old = old_header(h), sw = h->swapped;
	memcpy(d, ex->raw_header, h->header_size);
	put_file_u64(d + (old ? 24 : 32), ex->names.off, sw);
	put_file_u64(d + (old ? 32 : 40), ex->names.len, sw);
	int nslots = old ? 16 : DFS_MOD_SLOTS, maps = old ? 40 : 48;
	int vers = old ? 296 : 1072;
	for (int s = 0; s < nslots; s++) {
		int id = slot_id(h, s);
		put_file_u64(d + maps + 16 * s, ex->mods[id].off, sw);
		put_file_u64(d + maps + 16 * s + 8, ex->mods[id].len, sw);
		if (ex->new_ver[id])
			dfs_store_u32(d + vers + 4 * s, sw ? __builtin_bswap32(ex->new_ver[id])
			                                   : ex->new_ver[id]);
	}
}

/* ---- the whole log ------------------------------------------------------ */

static int export_all(struct exporter *ex, dfs_error *err)
{
	bool any = false;
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		if (!is_filtered(ex, id))
			continue;
		any = true;
		if (make_pick(ex, id, err))
			return -1;
	}
	if (check_source(ex, err))
		return -1;
	if (!dfs_buf_add_zeros(ex->out, ex->h->header_size))
		return dfs_error_nomem(err);
	if (write_job(ex, err) || write_names(ex, any, err))
		return -1;
	for (int id = 0; id < DFS_MOD_SLOTS; id++)
		if (write_module(ex, id, err))
			return -1;
	write_header(ex);
	return 0;
}

int dfs_log_export(const dfs_log *log, const char *path, const dfs_export *x,
                   dfs_buf *out, dfs_error *err)
{
	struct exporter *ex = calloc(1, sizeof(*ex));
	if (!ex)
		return dfs_error_nomem(err);
	ex->log = log;
	ex->h = dfs_log_get_header(log);
	ex->x = x;
	ex->out = out;
	ex->base = out->len;
	ex->limit = dfs_log_inflate_limit(dfs_log_stored_size(log));
	int ret = 0;
	if (ex->h->comp_type != DFS_COMP_NONE) {
		int threads = x->threads;
		if (threads <= 0) {
			long n = sysconf(_SC_NPROCESSORS_ONLN);
			threads = n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (int)n;
		}
		dfs_sink sink = {sink_write, out};
		ex->z = dfs_compressor_new(ex->h->comp_type, -1, threads, &sink, err);
		ret = ex->z ? 0 : -1;
	}
	ex->fd = ret ? -1 : open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (ret == 0 && ex->fd < 0)
		ret = dfs_error_set(err, DFS_ERR_IO, "%s", strerror(errno));
	if (ret == 0)
		ret = export_all(ex, err);
	if (ret)
		out->len = ex->base;
	if (ex->fd >= 0)
		close(ex->fd);
	dfs_compressor_free(ex->z);
	for (int id = 0; id < DFS_MOD_SLOTS; id++)
		free(ex->picks[id].owned);
	free(ex);
	return ret;
}
