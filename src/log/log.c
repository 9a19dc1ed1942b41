/* log.c - opening a Darshan log: header, job region, mount table, name
 * table and module regions (decoded by the module table).
 *
 * Everything is read and decoded at open time; the dfs_log is immutable
 * afterwards.  Errors in the header, job region or name table fail the
 * whole log; an error in one module region is recorded on that module and
 * the rest of the log stays usable, as darshan-parser does. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "darshanfs/buf.h"
#include "darshanfs/log.h"
#include "log/region.h"
#include "log/hints.h"
#include "log/relay.h"
#include "module/tables.h"
#include "util/bytes.h"
#include "util/utf8.h"
#include "module/pack.h"

#define MAGIC_NR 6567223ULL
#define HEADER_SIZE_341 1328
#define HEADER_SIZE_OLD 360
#define JOB_SIZE_341 1080
#define JOB_SIZE_OLD 1064
#define JOB_REGION_READ 4096          /* upstream reads at most this much */
#define DEFAULT_INFLATE_LIMIT ((size_t)8 << 30)
/* Inflated bytes a log may hold in all (name table and module regions
 * together): INFLATE_RATIO times its file size, at least INFLATE_FLOOR, at
 * most DEFAULT_INFLATE_LIMIT.  Real logs inflate 4 to 90 times (the 100
 * shared logs, darshanfs-gen output); a decompression bomb reaches 1032:1
 * with deflate, about 10^6:1 with bzip2 on runs of zeros, and any ratio
 * with module slots that all point at the same region.  The floor keeps
 * small logs (under 64 KiB) out of the question. */
#define INFLATE_RATIO 256
#define INFLATE_FLOOR ((size_t)16 << 20)

struct dfs_log {
	atomic_int refs;
	dfs_names tables;       /* what module callbacks may ask of the log */
	char *label;
	uint64_t file_size;
	uint64_t stored_size;   /* what it holds on disk (the inflate budget's) */
	dfs_log_header hdr;
	dfs_job job;
	char *mount_text;       /* storage of the mount strings */
	dfs_mount *mounts;
	size_t nmounts;
	char *name_arena;       /* NUL-terminated names back to back */
	dfs_name *names;
	size_t nnames;
	uint64_t *name_plain;   /* bit i: name i needs no CSV quotes */
	uint32_t *name_index;   /* open addressing: names index + 1, 0 empty */
	size_t name_mask;
	/* the state of the module slots the log has data for or flags as
	 * partial, in slot order (a log uses a few of the 64: all of them
	 * inline were a third of a small log's memory) */
	dfs_log_module *mods;
	uint8_t slot[DFS_MOD_SLOTS];   /* index into mods + 1; 0: absent */
	bool modules_read;
	size_t memory;
	size_t inflate_left;    /* what is left of the inflate budget */
	/* LUSTRE records by id, built when first asked for */
	_Atomic(struct lustre_ix *) lustre_ix;
};

struct lustre_ix {
	size_t n;
	struct lustre_ref {
		uint64_t id;
		size_t i;       /* index into the LUSTRE records */
	} e[];
};

/* where the bytes come from: a file descriptor or a memory buffer */
struct source {
	int fd;
	const unsigned char *mem;
	uint64_t size;
	uint64_t stored;   /* bytes the file really holds (see dfs_stored_size) */
};

static int read_at(const struct source *src, uint64_t off, size_t len,
                   void *out, dfs_error *err)
{
	if (off > src->size || len > src->size - off)
		return dfs_error_set(err, DFS_ERR_FORMAT,
		                     "region [%llu, +%zu) lies outside the file (%llu bytes)",
		                     (unsigned long long)off, len,
		                     (unsigned long long)src->size);
	if (src->mem) {
		memcpy(out, src->mem + off, len);
		return 0;
	}
	size_t done = 0;
	while (done < len) {
		ssize_t n = pread(src->fd, (char *)out + done, len - done,
		                  (off_t)(off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return dfs_error_set(err, DFS_ERR_IO, "read failed: %s",
			                     strerror(errno));
		if (n == 0)
			return dfs_error_set(err, DFS_ERR_FORMAT,
			                     "file shrank while being read");
		done += (size_t)n;
	}
	return 0;
}

static int region_outside(const struct source *src, dfs_region r, dfs_error *err)
{
	if (r.len <= src->size && r.off <= src->size - r.len)
		return 0;
	return dfs_error_set(err, DFS_ERR_FORMAT,
	                     "region [%llu, +%llu) lies outside the file (%llu bytes)",
	                     (unsigned long long)r.off, (unsigned long long)r.len,
	                     (unsigned long long)src->size);
}

/* Read and inflate one region into `out`. */
static int load_region(const struct source *src, const dfs_log_header *h,
                       dfs_region r, size_t limit, size_t stop_after,
                       dfs_buf *out, dfs_error *err)
{
	if (region_outside(src, r, err))
		return -1;
	unsigned char *raw = malloc(r.len ? r.len : 1);
	if (!raw)
		return dfs_error_nomem(err);
	int ret = read_at(src, r.off, r.len, raw, err);
	if (ret == 0)
		ret = dfs_region_inflate(h->comp_type, raw, r.len, limit, stop_after,
		                         out, err);
	free(raw);
	return ret;
}

/* A region of fixed-size records in the current layout, packed as it
 * inflates (see dfs_records_pack): the region is never held inflated. */
struct pack_sink {
	dfs_records *recs;
	size_t size;            /* record size */
	size_t used;            /* bytes packed */
	dfs_relay *relay;       /* the records go on to an observer too */
};

static size_t pack_window(void *ctx, const unsigned char *data, size_t len,
                          dfs_error *err)
{
	struct pack_sink *ps = ctx;
	if (!data) {
		const dfs_module *m = ps->recs->module;
		uint32_t ver = ps->recs->version;
		/* the slab goes away: nothing may read it now */
		if (ps->relay)
			dfs_relay_quiesce(ps->relay);
		dfs_records_free(ps->recs);
		dfs_records_init_packed(ps->recs, m, ver);
		ps->used = 0;
		return 0;
	}
	size_t n = len / ps->size, first = ps->recs->count;
	/* the relay's runs refer to the packed data where it lies */
	if (ps->relay && !dfs_records_pack_fits(ps->recs, n))
		dfs_relay_quiesce(ps->relay);
	for (size_t i = 0; i < n; i++)
		if (dfs_records_pack_add(ps->recs, data + i * ps->size)) {
			dfs_error_set(err, DFS_ERR_NOMEM, "out of memory packing records");
			return (size_t)-1;
		}
	if (ps->relay && n)
		dfs_relay_put(ps->relay, ps->recs, first, n);
	ps->used += n * ps->size;
	return n * ps->size;
}

struct region_reader {
	const struct source *src;
	uint64_t base;          /* file offset of the region */
};

static int read_piece(void *ctx, uint64_t off, void *buf, size_t len,
                      dfs_error *err)
{
	const struct region_reader *rr = ctx;
	return read_at(rr->src, rr->base + off, len, buf, err);
}

/* Inflate region `r` into packed records; *produced gets the inflated
 * size (a partial last record is dropped, as darshan-parser drops it). */
static int load_region_packed(const struct source *src, const dfs_log_header *h,
                              dfs_region r, size_t limit, dfs_records *out,
                              dfs_relay *relay, size_t *produced, dfs_error *err)
{
	if (region_outside(src, r, err))
		return -1;
	struct pack_sink ps = {out, out->module->record_size, 0, relay};
	/* records compress 4 to 20 times and pack to about a third: room
	 * for the common case, without copies as the set grows */
	size_t guess = r.len < SIZE_MAX / 8 ? (size_t)r.len * 8 : SIZE_MAX;
	dfs_records_pack_reserve(out, limit && guess > limit ? limit : guess);
	/* the compressed bytes are read a few MiB at a time, not held whole */
	struct region_reader rr = {src, r.off};
	size_t leftover = 0;
	int ret = dfs_region_stream(h->comp_type, src->mem ? src->mem + r.off : NULL,
	                            r.len, read_piece, &rr, limit, ps.size,
	                            pack_window, &ps, &leftover, err);
	/* (trimming a slab leaves the packed bytes where they are) */
	if (relay && !out->mapped)
		dfs_relay_quiesce(relay);
	dfs_records_pack_trim(out);
	*produced = ps.used + leftover;
	return ret;
}

/* ---- header ------------------------------------------------------------ */

/* Move slots k >= at up by one (upstream renumbering of old logs). */
static void shift_slots(dfs_log_header *h, int at)
{
	for (int k = DFS_MOD_SLOTS - 1; k > at; k--) {
		h->mods[k] = h->mods[k - 1];
		h->mod_ver[k] = h->mod_ver[k - 1];
	}
	h->mods[at].off = h->mods[at].len = 0;
	h->mod_ver[at] = 0;
	uint64_t low = h->partial_flag & ((1ULL << at) - 1);
	uint64_t high = h->partial_flag & ~((1ULL << at) - 1);
	h->partial_flag = low | (high << 1);
}

static int parse_header(const struct source *src, dfs_log_header *h,
                        dfs_error *err)
{
	unsigned char buf[HEADER_SIZE_341];
	memset(h, 0, sizeof(*h));
	if (src->size < 8)
		return dfs_error_set(err, DFS_ERR_FORMAT,
		                     "not a Darshan log: file is only %llu bytes",
		                     (unsigned long long)src->size);
	if (read_at(src, 0, 8, buf, err))
		return -1;
	memcpy(h->version, buf, 8);
	h->version[8] = '\0';
	if (sscanf(h->version, "%d.%d", &h->major, &h->minor) != 2)
		return dfs_error_set(err, DFS_ERR_FORMAT,
		                     "not a Darshan log: unable to parse the format version");
	int v = h->major * 100 + h->minor;
	if (!(strcmp(h->version, "3.41") == 0 || strcmp(h->version, "3.21") == 0 ||
	      strcmp(h->version, "3.20") == 0 || strcmp(h->version, "3.10") == 0 ||
	      strcmp(h->version, "3.00") == 0)) {
		char shown[9];
		for (int i = 0; i < 8; i++)
			shown[i] = (buf[i] >= 32 && buf[i] < 127) ? (char)buf[i] : '?';
		shown[8] = '\0';
		return dfs_error_set(err, DFS_ERR_UNSUPPORTED,
		                     "incompatible Darshan log format version '%s' "
		                     "(3.00 to 3.41 are supported)", shown);
	}
	bool old = v < 341;
	h->header_size = old ? HEADER_SIZE_OLD : HEADER_SIZE_341;
	if (src->size < h->header_size)
		return dfs_error_set(err, DFS_ERR_FORMAT,
		                     "truncated header: file is %llu bytes, header needs %zu",
		                     (unsigned long long)src->size, h->header_size);
	if (read_at(src, 0, h->header_size, buf, err))
		return -1;

	uint64_t magic = dfs_load_u64(buf + 8, false);
	if (magic == MAGIC_NR)
		h->swapped = false;
	else if (__builtin_bswap64(magic) == MAGIC_NR)
		h->swapped = true;
	else
		return dfs_error_set(err, DFS_ERR_FORMAT, "bad magic number");
	bool sw = h->swapped;
	h->comp_type = buf[16];

	size_t nslots = old ? 16 : DFS_MOD_SLOTS;
	size_t maps = old ? 40 : 48, vers = old ? 296 : 1072;
	/* the partial flag is read as stored, never swapped (upstream) */
	h->partial_flag = old ? dfs_load_u32(buf + 20, false)
	                      : dfs_load_u64(buf + 24, false);
	h->names.off = dfs_load_u64(buf + (old ? 24 : 32), sw);
	h->names.len = dfs_load_u64(buf + (old ? 32 : 40), sw);
	for (size_t i = 0; i < nslots; i++) {
		h->mods[i].off = dfs_load_u64(buf + maps + 16 * i, sw);
		h->mods[i].len = dfs_load_u64(buf + maps + 16 * i + 8, sw);
		h->mod_ver[i] = dfs_load_u32(buf + vers + 4 * i, sw);
	}
	if (v < 320)
		shift_slots(h, DFS_MOD_H5D);
	if (v < 341)
		shift_slots(h, DFS_MOD_PNETCDF_VAR);

	if (h->comp_type != DFS_COMP_ZLIB && h->comp_type != DFS_COMP_BZIP2 &&
	    h->comp_type != DFS_COMP_NONE)
		return dfs_error_set(err, DFS_ERR_FORMAT, "invalid compression type %d",
		                     h->comp_type);

	/* the job region is not in the map: it runs from the header to the
	 * name region, or to the first module slot with an offset */
	h->job.off = h->header_size;
	uint64_t end = 0;
	if (h->names.off != 0) {
		end = h->names.off;
	} else {
		for (int i = 0; i < DFS_MOD_SLOTS && !end; i++)
			end = h->mods[i].off;
		if (!end)
			end = src->size;
	}
	if (end < h->job.off)
		return dfs_error_set(err, DFS_ERR_FORMAT,
		                     "region map places the job data before the header end");
	h->job.len = end - h->job.off;
	return 0;
}

/* ---- job region: job struct, exe and mount table ------------------------- */

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
	       c == '\r';
}

/* One whitespace-delimited token in [*p, end) (leading blanks skipped):
 * a token never continues on the next line, as upstream's sscanf of a
 * line cut at its '\n' does. */
static bool scan_token(const char **p, const char *end, const char **tok,
                       size_t *len)
{
	const char *s = *p;
	while (s < end && is_space(*s))
		s++;
	if (s == end)
		return false;
	const char *t = s;
	while (s < end && !is_space(*s))
		s++;
	*tok = t;
	*len = (size_t)(s - t);
	*p = s;
	return true;
}

static int parse_mounts(dfs_log *log, const char *text, dfs_error *err)
{
	size_t count = 0;
	for (const char *p = text; *p; p++)
		count += *p == '\n';
	const char *nl = strchr(text, '\n');
	size_t exe_len = nl ? (size_t)(nl - text) : 0;
	log->job.exe = strndup(text, exe_len);
	if (!log->job.exe)
		return dfs_error_nomem(err);
	if (count == 0)
		return 0;
	log->mounts = calloc(count, sizeof(*log->mounts));
	log->mount_text = malloc(strlen(text) + 2 * count + 1);
	if (!log->mounts || !log->mount_text)
		return dfs_error_nomem(err);
	char *store = log->mount_text;
	const char *p = text;
	for (size_t i = 0; i < count; i++) {
		p = strchr(p, '\n') + 1;
		const char *type, *path;
		size_t type_len, path_len;
		const char *q = p, *eol = strchr(p, '\n');
		if (!eol)
			eol = p + strlen(p);
		if (!scan_token(&q, eol, &type, &type_len) ||
		    !scan_token(&q, eol, &path, &path_len))
			return dfs_error_set(err, DFS_ERR_FORMAT,
			                     "poorly formatted mount table");
		memcpy(store, type, type_len);
		store[type_len] = '\0';
		log->mounts[i].type = store;
		store += type_len + 1;
		memcpy(store, path, path_len);
		store[path_len] = '\0';
		log->mounts[i].path = store;
		log->mounts[i].path_len = path_len;
		store += path_len + 1;
	}
	log->nmounts = count;
	/* stable insertion sort, longest mount point first */
	for (size_t i = 1; i < count; i++) {
		dfs_mount m = log->mounts[i];
		size_t j = i;
		while (j > 0 && log->mounts[j - 1].path_len < m.path_len) {
			log->mounts[j] = log->mounts[j - 1];
			j--;
		}
		log->mounts[j] = m;
	}
	return 0;
}

static int parse_job(dfs_log *log, const struct source *src, dfs_error *err)
{
	dfs_buf b = DFS_BUF_INIT;
	const dfs_log_header *h = &log->hdr;
	if (load_region(src, h, h->job, 0, JOB_REGION_READ, &b, err)) {
		dfs_buf_free(&b);
		dfs_error_prefix(err, "job data");
		return -1;
	}
	if (b.len <= JOB_SIZE_341) {
		dfs_buf_free(&b);
		return dfs_error_set(err, DFS_ERR_FORMAT,
		                     "job data is too short (%zu bytes)", b.len);
	}
	const unsigned char *d = (const unsigned char *)b.data;
	bool sw = h->swapped;
	dfs_job *j = &log->job;
	size_t meta_off, text_off;
	if (h->header_size == HEADER_SIZE_341) {
		j->uid = dfs_load_i64(d, sw);
		j->start_sec = dfs_load_i64(d + 8, sw);
		j->start_nsec = dfs_load_i64(d + 16, sw);
		j->end_sec = dfs_load_i64(d + 24, sw);
		j->end_nsec = dfs_load_i64(d + 32, sw);
		j->nprocs = dfs_load_i64(d + 40, sw);
		j->jobid = dfs_load_i64(d + 48, sw);
		meta_off = 56;
		text_off = JOB_SIZE_341;
		j->run_time = ((double)j->end_sec + (double)j->end_nsec / 1e9) -
		              ((double)j->start_sec + (double)j->start_nsec / 1e9);
	} else {
		j->uid = dfs_load_i64(d, sw);
		j->start_sec = dfs_load_i64(d + 8, sw);
		j->end_sec = dfs_load_i64(d + 16, sw);
		j->nprocs = dfs_load_i64(d + 24, sw);
		j->jobid = dfs_load_i64(d + 32, sw);
		j->start_nsec = j->end_nsec = 0;
		meta_off = 40;
		text_off = JOB_SIZE_OLD;
		/* wraps like upstream's int64 arithmetic, without the UB */
		j->run_time = (double)(int64_t)((uint64_t)j->end_sec -
		                                (uint64_t)j->start_sec + 1);
	}
	j->metadata = strndup((const char *)d + meta_off, 1024);
	/* the exe/mount text ends at its NUL, or at the end of what was read */
	char *text = strndup((const char *)d + text_off, b.len - text_off);
	dfs_buf_free(&b);
	if (!j->metadata || !text) {
		free(text);
		return dfs_error_nomem(err);
	}
	int ret = parse_mounts(log, text, err);
	free(text);
	return ret;
}

int dfs_log_mount_for(const dfs_log *log, const char *path, size_t len)
{
	for (size_t i = 0; i < log->nmounts; i++) {
		const dfs_mount *m = &log->mounts[i];
		if (m->path_len <= len && memcmp(m->path, path, m->path_len) == 0)
			return (int)i;
	}
	return -1;
}

/* ---- inflate budget ---------------------------------------------------------- */

/* The budget follows what the file holds on disk, not its size: a file
 * made sparse (`truncate -s 1T`) has the size of a terabyte and the
 * blocks of its few MiB.  A file system that reports no blocks, or more
 * than the size, has its size. */
uint64_t dfs_stored_size(const struct stat *st)
{
	uint64_t size = st->st_size > 0 ? (uint64_t)st->st_size : 0;
	uint64_t blocks = st->st_blocks > 0 ? (uint64_t)st->st_blocks : 0;
	if (blocks == 0 || blocks > size / 512 + 1)
		return size;
	return blocks * 512 < size ? blocks * 512 : size;
}

static size_t inflate_budget(uint64_t file_size)
{
	if (file_size > DEFAULT_INFLATE_LIMIT / INFLATE_RATIO)
		return DEFAULT_INFLATE_LIMIT;
	size_t b = (size_t)file_size * INFLATE_RATIO;
	return b < INFLATE_FLOOR ? INFLATE_FLOOR : b;
}

size_t dfs_log_inflate_limit(uint64_t stored)
{
	return inflate_budget(stored);
}

/* Say why a region was cut off when it went over the budget. */
static void budget_error(const dfs_log *log, dfs_error *err)
{
	if (err->code != DFS_ERR_TOOBIG)
		return;
	dfs_error_set(err, DFS_ERR_TOOBIG,
	              "inflates past the %zu bytes allowed for the whole log "
	              "(%d times the %llu bytes it holds on disk, at least %zu MiB): "
	              "corrupt or a decompression bomb", inflate_budget(log->stored_size),
	              INFLATE_RATIO, (unsigned long long)log->stored_size,
	              INFLATE_FLOOR >> 20);
}

/* ---- name table ----------------------------------------------------------- */

static inline size_t id_slot(uint64_t id, size_t mask)
{
	/* ids are already hashes; mix a little for crafted inputs */
	uint64_t x = id ^ (id >> 29);
	x *= 0xbf58476d1ce4e5b9ULL;
	return (size_t)(x ^ (x >> 32)) & mask;
}

/* Records mostly name the entry their predecessor named, or the one after
 * it: the name table and the module regions are both written in the order
 * the files were first seen.  A loop over records keeps a hint (its own:
 * log/hints.h) of where its last lookup ended and which of its last 32
 * missed that guess.  (The guess is checked against the id, so a hint of
 * another or a freed log is harmless.) */
bool dfs_name_hint_in_order(const dfs_name_hint *h)
{
	return h->missed == 0;
}

void dfs_log_name_prefetch(const dfs_log *log, uint64_t id, int stage)
{
	if (!log->name_index)
		return;
	const uint32_t *slot = &log->name_index[id_slot(id, log->name_mask)];
	if (stage == 0) {
		__builtin_prefetch(slot);
		return;
	}
	if (*slot == 0)
		return;
	const dfs_name *nm = &log->names[*slot - 1];
	if (stage == 1)
		__builtin_prefetch(nm);
	else if (nm->id == id)
		__builtin_prefetch(nm->str);
}

const dfs_name *dfs_log_name_near(const dfs_log *log, uint64_t id,
                                  dfs_name_hint *h)
{
	if (!log->name_index)
		return NULL;
	if (h && h->log == log) {
		size_t at = h->at;
		for (size_t k = at; k < at + 2 && k < log->nnames; k++) {
			if (log->names[k].id == id) {
				h->at = k;
				h->missed <<= 1;
				return &log->names[k];
			}
		}
	}
	if (h) {
		h->log = log;
		h->missed = h->missed << 1 | 1;
	}
	for (size_t s = id_slot(id, log->name_mask);; s = (s + 1) & log->name_mask) {
		uint32_t k = log->name_index[s];
		if (k == 0)
			return NULL;
		if (log->names[k - 1].id == id) {
			if (h)
				h->at = k - 1;
			return &log->names[k - 1];
		}
	}
}

const dfs_name *dfs_log_name(const dfs_log *log, uint64_t id)
{
	return dfs_log_name_near(log, id, NULL);
}

/* The name table inflated into b (empty when the log has none), at most
 * `limit` bytes (what is left of the budget: the caller takes b->len from
 * it). */
static int inflate_names(const dfs_log *log, const struct source *src, dfs_buf *b,
                         size_t limit, dfs_error *err)
{
	const dfs_log_header *h = &log->hdr;
	if (h->names.len == 0)
		return 0;
	if (load_region(src, h, h->names, limit, 0, b, err)) {
		dfs_buf_free(b);
		budget_error(log, err);
		dfs_error_prefix(err, "name table");
		return -1;
	}
	return 0;
}

/* The names and their index from the inflated table (which it takes);
 * touches only the name fields of `log`, and adds the bytes it keeps to
 * *memory, so it can run beside load_modules. */
static int build_names(dfs_log *log, dfs_buf *table, size_t *memory,
                       dfs_error *err)
{
	const dfs_log_header *h = &log->hdr;
	if (h->names.len == 0)
		return 0;
	dfs_buf b = *table;
	dfs_buf_init(table);
	bool sw = h->swapped;
	bool counted = h->major == 3 && h->minor == 0; /* 3.00: u32 length */
	const unsigned char *d = (const unsigned char *)b.data;
	/* first pass: count entries to size the tables */
	size_t n = 0, pos = 0;
	while (pos + 8 <= b.len) {
		size_t len;
		if (counted) {
			if (pos + 12 > b.len)
				break;
			len = dfs_load_u32(d + pos + 8, sw);
			if (len > b.len - pos - 12)
				break;
			pos += 12 + len;
		} else {
			const unsigned char *z = memchr(d + pos + 8, 0, b.len - pos - 8);
			if (!z)
				break;
			pos = (size_t)(z - d) + 1;
		}
		n++;
	}
	if (n > UINT32_MAX - 1) {
		dfs_buf_free(&b);
		return dfs_error_set(err, DFS_ERR_TOOBIG, "name table too large");
	}
	size_t cap = 16;
	while (cap < n * 2)
		cap *= 2;
	log->names = calloc(n ? n : 1, sizeof(*log->names));
	log->name_index = calloc(cap, sizeof(*log->name_index));
	log->name_plain = calloc(n / 64 + 1, sizeof(uint64_t));
	/* names of format >= 3.10 are NUL-terminated where they lie: the
	 * inflated region itself is the arena; 3.00 names are copied */
	log->name_arena = counted ? malloc(b.len + n + 1) : NULL;
	if (!log->names || !log->name_index || !log->name_plain ||
	    (counted && !log->name_arena)) {
		dfs_buf_free(&b);
		return dfs_error_nomem(err);
	}
	log->name_mask = cap - 1;
	char *arena = log->name_arena;
	pos = 0;
	for (size_t e = 0; e < n; e++) {
		uint64_t id = dfs_load_u64(d + pos, sw);
		const char *s;
		size_t len;
		if (counted) {
			len = dfs_load_u32(d + pos + 8, sw);
			s = (const char *)d + pos + 12;
			pos += 12 + len;
		} else {
			s = (const char *)d + pos + 8;
			len = strlen(s);
			pos += 8 + len + 1;
		}
		/* keep the first entry of an id unless it is empty and a later
		 * one is not */
		size_t slot = id_slot(id, log->name_mask);
		uint32_t k;
		while ((k = log->name_index[slot]) && log->names[k - 1].id != id)
			slot = (slot + 1) & log->name_mask;
		dfs_name *nm;
		if (k) {
			nm = &log->names[k - 1];
			if (nm->len != 0 || len == 0)
				continue;
		} else {
			nm = &log->names[log->nnames++];
			log->name_index[slot] = (uint32_t)log->nnames;
			nm->id = id;
		}
		if (counted) {
			memcpy(arena, s, len);
			arena[len] = '\0';
			nm->str = arena;
			arena += len + 1;
		} else {
			nm->str = s;
		}
		nm->len = (uint32_t)len;
	}
	size_t region_bytes = b.len;
	if (counted)
		dfs_buf_free(&b);
	else
		log->name_arena = dfs_buf_detach(&b, NULL);
	/* (and whether each needs CSV quotes: in this pass over the names in
	 * their order, not in the one above, whose lookups of the index miss
	 * the cache and overlap only when little work lies between them) */
	for (size_t i = 0; i < log->nnames; i++) {
		log->names[i].mount = dfs_log_mount_for(log, log->names[i].str,
		                                        log->names[i].len);
		if (dfs_csv_plain(log->names[i].str, log->names[i].len))
			log->name_plain[i / 64] |= (uint64_t)1 << (i % 64);
	}
	*memory += region_bytes + n + 1 + n * sizeof(dfs_name) + cap * sizeof(uint32_t) +
	           (n / 64 + 1) * sizeof(uint64_t);
	return 0;
}

struct names_job {
	dfs_log *log;
	dfs_buf table;
	size_t memory;
	dfs_error err;
	int ret;
	dfs_relay *relay;       /* non-NULL: records to show an observer
	                         * once the names are built */
	/* the table is inflated here too (beside the modules), from src,
	 * within limit bytes; inflated gets its size */
	const struct source *src;
	size_t limit;
	size_t inflated;
};

static void *names_worker(void *arg)
{
	struct names_job *j = arg;
	if (j->src) {
		j->ret = inflate_names(j->log, j->src, &j->table, j->limit, &j->err);
		j->inflated = j->table.len;
	}
	if (j->ret == 0)
		j->ret = build_names(j->log, &j->table, &j->memory, &j->err);
	if (j->relay) {
		if (j->ret)
			dfs_relay_refuse(j->relay);
		else
			dfs_relay_drain(j->relay);
	}
	return NULL;
}

#define NAMES_THREAD_MIN ((size_t)1 << 20)

/* ---- modules ---------------------------------------------------------------- */

static void module_fail(dfs_log_module *lm, dfs_error *e)
{
	lm->status = e->code ? e->code : DFS_ERR_FORMAT;
	free(lm->error);
	lm->error = strdup(e->msg);
	dfs_records_free(&lm->records);
}

/* Do the records of module slot `id` take the packed path (inflated
 * straight into packed records)? */
static bool packs_as_inflated(const dfs_log_header *h, int id)
{
	const dfs_module *m = dfs_module_get(id);
	return m && h->mods[id].len > 0 && h->mod_ver[id] == m->version && !h->swapped &&
	       dfs_module_packable(m);
}

/* What dfs_log_get_module gives for a slot without data or flag (module
 * set: the table of module.c, fixed at compile time), and for every slot
 * of a log read without its modules (zeros). */
#define ABSENT(id, m) [id] = {.module = &dfs_module_##m}
static const dfs_log_module absent[DFS_MOD_SLOTS] = {
	ABSENT(DFS_MOD_POSIX, posix), ABSENT(DFS_MOD_MPIIO, mpiio),
	ABSENT(DFS_MOD_H5F, h5f), ABSENT(DFS_MOD_H5D, h5d),
	ABSENT(DFS_MOD_PNETCDF_FILE, pnetcdf_file),
	ABSENT(DFS_MOD_PNETCDF_VAR, pnetcdf_var), ABSENT(DFS_MOD_BGQ, bgq),
	ABSENT(DFS_MOD_LUSTRE, lustre), ABSENT(DFS_MOD_STDIO, stdio),
	ABSENT(DFS_MOD_DXT_POSIX, dxt_posix), ABSENT(DFS_MOD_DXT_MPIIO, dxt_mpiio),
	ABSENT(DFS_MOD_MDHIM, mdhim), ABSENT(DFS_MOD_APMPI, apmpi),
	ABSENT(DFS_MOD_HEATMAP, heatmap), ABSENT(DFS_MOD_DFS, dfs),
	ABSENT(DFS_MOD_DAOS, daos),
};
#undef ABSENT
static const dfs_log_module unread;

/* The state of the slots with data or a partial flag. */
static int make_slots(dfs_log *log, dfs_error *err)
{
	const dfs_log_header *h = &log->hdr;
	size_t n = 0;
	for (int id = 0; id < DFS_MOD_SLOTS; id++)
		if (h->mods[id].len > 0 || ((h->partial_flag >> id) & 1))
			log->slot[id] = (uint8_t)++n;
	log->mods = calloc(n ? n : 1, sizeof(*log->mods));
	if (!log->mods)
		return dfs_error_nomem(err);
	log->memory += n * sizeof(*log->mods);
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		if (!log->slot[id])
			continue;
		dfs_log_module *lm = &log->mods[log->slot[id] - 1];
		lm->module = dfs_module_get(id);
		lm->present = h->mods[id].len > 0;
		lm->partial = (h->partial_flag >> id) & 1;
	}
	log->modules_read = true;
	return 0;
}

static void load_modules(dfs_log *log, const struct source *src, dfs_relay *relay)
{
	const dfs_log_header *h = &log->hdr;
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		if (!log->slot[id])
			continue;
		dfs_log_module *lm = &log->mods[log->slot[id] - 1];
		if (!lm->present || !lm->module)
			continue;
		const dfs_module *m = lm->module;
		dfs_error e = {0};
		uint32_t ver = h->mod_ver[id];
		if (ver == 0 || ver > m->version) {
			dfs_error_set(&e, DFS_ERR_UNSUPPORTED,
			              "%s module: unsupported record version %u "
			              "(this build reads up to %u)",
			              m->name, ver, m->version);
			module_fail(lm, &e);
			continue;
		}
		size_t left = log->inflate_left ? log->inflate_left : 1;
		if (packs_as_inflated(h, id)) {
			/* the stored layout is the current one: pack the records as
			 * the region inflates */
			size_t produced = 0;
			dfs_records_init_packed(&lm->records, m, ver);
			if (load_region_packed(src, h, h->mods[id], left, &lm->records,
			                       relay, &produced, &e)) {
				/* its runs are shown before its records go */
				if (relay)
					dfs_relay_quiesce(relay);
				budget_error(log, &e);
				dfs_error_prefix(&e, "%s module", m->name);
				module_fail(lm, &e);
				continue;
			}
			log->inflate_left -= produced < log->inflate_left ? produced
			                                                  : log->inflate_left;
			log->memory += dfs_records_memory(&lm->records);
			continue;
		}
		dfs_buf b = DFS_BUF_INIT;
		if (load_region(src, h, h->mods[id], left, 0, &b, &e)) {
			budget_error(log, &e);
			dfs_error_prefix(&e, "%s module", m->name);
			dfs_buf_free(&b);
			module_fail(lm, &e);
			continue;
		}
		log->inflate_left -= b.len < log->inflate_left ? b.len : log->inflate_left;
		dfs_records_init(&lm->records, m, ver);
		if (m->record_size && ver == m->version && !h->swapped) {
			/* the stored layout is the current one: the inflated region
			 * is the record array (a partial last record is dropped) */
			lm->records.count = b.len / m->record_size;
			lm->records.size = lm->records.count * m->record_size;
			lm->records.cap = b.cap;
			lm->records.data = (unsigned char *)dfs_buf_detach(&b, NULL);
			log->memory += lm->records.cap;
			continue;
		}
		dfs_decode_in in = {
			.data = (const unsigned char *)b.data,
			.len = b.len,
			.version = ver,
			.swap = h->swapped,
			.h5f_version = h->mod_ver[DFS_MOD_H5F],
		};
		if (m->decode(&in, &lm->records, &e)) {
			dfs_error_prefix(&e, "%s module", m->name);
			module_fail(lm, &e);
		} else {
			dfs_buf_free(&b);
			/* upgraded records are held packed too (when memory allows) */
			dfs_records_pack(&lm->records);
			log->memory += dfs_records_memory(&lm->records);
		}
		dfs_buf_free(&b);
	}
}

/* ---- public ----------------------------------------------------------------- */

/* dfs_names of a log (see module.h) */
static const dfs_name *names_find(const void *log, uint64_t id)
{
	return dfs_log_name(log, id);
}

static const dfs_mount *names_mount(const void *log, size_t i)
{
	return dfs_log_mount(log, i);
}

static void names_place(const void *log, const dfs_module *m, const unsigned char *rec,
                        dfs_record_place *out)
{
	dfs_log_record_place(log, m, rec, out);
}

static const unsigned char *names_lustre(const void *log, uint64_t id, size_t *len)
{
	return dfs_log_lustre_record(log, id, len);
}

static dfs_log *open_source(const struct source *src, const char *label,
                            unsigned flags, const dfs_log_observer *obs,
                            dfs_error *err)
{
	dfs_log *log = calloc(1, sizeof(*log));
	if (!log) {
		dfs_error_nomem(err);
		return NULL;
	}
	atomic_init(&log->refs, 1);
	log->tables = (dfs_names){log, names_find, names_mount, names_place, names_lustre};
	log->label = strdup(label);
	log->file_size = src->size;
	log->stored_size = src->stored;
	log->memory = sizeof(*log);
	if (!log->label) {
		dfs_error_nomem(err);
		goto fail;
	}
	log->inflate_left = inflate_budget(src->stored);
	if (parse_header(src, &log->hdr, err))
		goto fail;
	if (parse_job(log, src, err))
		goto fail;
	bool modules = !(flags & DFS_LOG_HEADER_ONLY);
	if (modules && make_slots(log, err))
		goto fail;
	struct names_job nj = {log, DFS_BUF_INIT, 0, {0}, 0, NULL, NULL, 0, 0};
	/* a big name table is indexed on another core while the modules
	 * inflate (neither touches what the other fills in); so are the
	 * records shown to an observer, and then the table is inflated
	 * there too: the modules start at once, their runs wait on the
	 * relay's queue until the names are built */
	uint64_t observable = 0;
	for (int id = 0; modules && obs && obs->records && id < DFS_MOD_SLOTS; id++)
		if (packs_as_inflated(&log->hdr, id))
			observable += log->hdr.mods[id].len;
	bool observe = observable > 0 && observable >= obs->min_bytes;
	bool cores = sysconf(_SC_NPROCESSORS_ONLN) > 1;
	if (modules && observe && cores) {
		/* (its size comes off the budget once it is known; until then
		 * the modules may use all of what is left, as may the names) */
		nj.src = src;
		nj.limit = log->inflate_left;
	} else {
		if (inflate_names(log, src, &nj.table, log->inflate_left, err))
			goto fail;
		log->inflate_left -= nj.table.len;
	}
	dfs_relay relay;
	pthread_t tid;
	bool threaded = false;
	if (modules && (nj.table.len >= NAMES_THREAD_MIN || observe) && cores) {
		if (observe) {
			dfs_relay_init(&relay, log, obs);
			nj.relay = &relay;
		}
		threaded = pthread_create(&tid, NULL, names_worker, &nj) == 0;
		if (!threaded && nj.relay) {
			dfs_relay_destroy(nj.relay);
			nj.relay = NULL;
		}
	}
	if (!threaded)
		names_worker(&nj);
	if (modules && (threaded || nj.ret == 0))
		load_modules(log, src, nj.relay);
	if (nj.relay)
		dfs_relay_close(nj.relay);
	if (threaded)
		pthread_join(tid, NULL);
	if (nj.relay)
		dfs_relay_destroy(nj.relay);
	log->inflate_left -= nj.inflated < log->inflate_left ? nj.inflated : log->inflate_left;
	dfs_buf_free(&nj.table);
	log->memory += nj.memory;
	if (nj.ret) {
		if (err)
			*err = nj.err;
		goto fail;
	}
	return log;
fail:
	dfs_error_prefix(err, "%s", label);
	dfs_log_free(log);
	return NULL;
}

/* Open a source log for reading: never blocking (a FIFO or a device put
 * where a log was would wait for a writer for good), and only a regular
 * file, judged on the descriptor opened (the path may change meanwhile).
 * Returns the descriptor (its size in *size), or -1 with err (which names
 * the file `label`). */
static int regular_fd(int fd, const char *label, uint64_t *size, uint64_t *stored,
                      dfs_error *err);

static int open_regular(const char *path, const char *label, uint64_t *size,
                        uint64_t *stored, dfs_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return dfs_error_set(err, errno == ENOENT ? DFS_ERR_NOENT : DFS_ERR_IO,
		                     "%s: %s", label, strerror(errno));
	if (regular_fd(fd, label, size, stored, err)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Is fd (opened without blocking) a regular file?  Then its reads are
 * made blocking, *size is its size and *stored what it holds on disk
 * (dfs_stored_size): 0, or -1 with err (fd left open). */
static int regular_fd(int fd, const char *label, uint64_t *size, uint64_t *stored,
                      dfs_error *err)
{
	struct stat st;
	const char *why = NULL;
	int fl;
	if (fstat(fd, &st) != 0)
		why = strerror(errno);
	else if (!S_ISREG(st.st_mode))
		why = "not a regular file";
	else if ((fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0)
		why = strerror(errno);
	if (why)
		return dfs_error_set(err, DFS_ERR_IO, "%s: %s", label, why);
	*size = (uint64_t)st.st_size;
	*stored = dfs_stored_size(&st);
	return 0;
}

dfs_log *dfs_log_open_as(const char *path, const char *label, unsigned flags,
                         const dfs_log_observer *obs, dfs_error *err)
{
	struct source src = {.fd = -1, .mem = NULL, .size = 0};
	src.fd = open_regular(path, label, &src.size, &src.stored, err);
	if (src.fd < 0)
		return NULL;
	dfs_log *log = open_source(&src, label, flags, obs, err);
	close(src.fd);
	return log;
}

dfs_log *dfs_log_open_observed(const char *path, unsigned flags,
                               const dfs_log_observer *obs, dfs_error *err)
{
	return dfs_log_open_as(path, path, flags, obs, err);
}

dfs_log *dfs_log_open(const char *path, unsigned flags, dfs_error *err)
{
	return dfs_log_open_observed(path, flags, NULL, err);
}

int dfs_log_peek_as(const char *path, const char *label, dfs_log_header *hdr,
                    dfs_error *err)
{
	struct source src = {.fd = -1, .mem = NULL, .size = 0};
	src.fd = open_regular(path, label, &src.size, &src.stored, err);
	if (src.fd < 0)
		return -1;
	int ret = parse_header(&src, hdr, err);
	if (ret)
		dfs_error_prefix(err, "%s", label);
	close(src.fd);
	return ret;
}

int dfs_log_peek(const char *path, dfs_log_header *hdr, dfs_error *err)
{
	return dfs_log_peek_as(path, path, hdr, err);
}

dfs_log *dfs_log_open_fd(int fd, const char *label, unsigned flags,
                         const dfs_log_observer *obs, dfs_error *err)
{
	struct source src = {.fd = fd, .mem = NULL, .size = 0};
	if (regular_fd(fd, label, &src.size, &src.stored, err))
		return NULL;
	return open_source(&src, label, flags, obs, err);
}

int dfs_log_peek_fd(int fd, const char *label, dfs_log_header *hdr, dfs_error *err)
{
	struct source src = {.fd = fd, .mem = NULL, .size = 0};
	if (regular_fd(fd, label, &src.size, &src.stored, err))
		return -1;
	int ret = parse_header(&src, hdr, err);
	if (ret)
		dfs_error_prefix(err, "%s", label);
	return ret;
}

dfs_log *dfs_log_open_mem(const void *data, size_t len, const char *label,
                          unsigned flags, dfs_error *err)
{
	struct source src = {.fd = -1, .mem = data, .size = len, .stored = len};
	return open_source(&src, label, flags, NULL, err);
}

const dfs_log *dfs_log_ref(const dfs_log *log)
{
	if (log)
		atomic_fetch_add(&((dfs_log *)log)->refs, 1);
	return log;
}

void dfs_log_free(const dfs_log *shared)
{
	dfs_log *log = (dfs_log *)shared;   /* the last reference owns it */
	if (!log || atomic_fetch_sub(&log->refs, 1) != 1)
		return;
	for (int id = 0; log->mods && id < DFS_MOD_SLOTS; id++) {
		if (!log->slot[id])
			continue;
		dfs_records_free(&log->mods[log->slot[id] - 1].records);
		free(log->mods[log->slot[id] - 1].error);
	}
	free(log->mods);
	free(log->job.metadata);
	free(log->job.exe);
	free(log->mounts);
	free(log->mount_text);
	free(log->names);
	free(log->name_index);
	free(log->name_plain);
	free(log->name_arena);
	free(log->label);
	free(atomic_load(&log->lustre_ix));
	free(log);
}

const dfs_log_header *dfs_log_get_header(const dfs_log *log) { return &log->hdr; }
const dfs_job *dfs_log_job(const dfs_log *log) { return &log->job; }
uint64_t dfs_log_file_size(const dfs_log *log) { return log->file_size; }
uint64_t dfs_log_stored_size(const dfs_log *log) { return log->stored_size; }
size_t dfs_log_mount_count(const dfs_log *log) { return log->nmounts; }
const dfs_mount *dfs_log_mount(const dfs_log *log, size_t i) { return &log->mounts[i]; }
size_t dfs_log_name_count(const dfs_log *log) { return log->nnames; }
const dfs_name *dfs_log_name_at(const dfs_log *log, size_t i) { return &log->names[i]; }
bool dfs_log_name_plain(const dfs_log *log, size_t i)
{
	return (log->name_plain[i / 64] >> (i % 64)) & 1;
}
/* (the index of LUSTRE records counts once built: it lives as long) */
size_t dfs_log_memory(const dfs_log *log)
{
	const struct lustre_ix *ix = atomic_load_explicit(&((dfs_log *)log)->lustre_ix,
	                                                  memory_order_acquire);
	return log->memory + (ix ? sizeof(*ix) + ix->n * sizeof(ix->e[0]) : 0);
}

const dfs_log_module *dfs_log_get_module(const dfs_log *log, int id)
{
	if (id < 0 || id >= DFS_MOD_SLOTS)
		return NULL;
	if (log->slot[id])
		return &log->mods[log->slot[id] - 1];
	if (!log->modules_read)
		return &unread;
	return &absent[id];
}

const dfs_records *dfs_log_records(const dfs_log *log, int id)
{
	const dfs_log_module *lm = dfs_log_get_module(log, id);
	if (!lm || !lm->present || !lm->module || lm->status != DFS_OK)
		return NULL;
	return &lm->records;
}

const dfs_names *dfs_log_names(const dfs_log *log) { return &log->tables; }

/* ---- LUSTRE records by record id --------------------------------------------- */

static int ref_cmp(const void *a, const void *b)
{
	const struct lustre_ref *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Built once; a thread that loses the race to install its copy frees it. */
static const struct lustre_ix *lustre_index(const dfs_log *shared,
                                            const dfs_records *r)
{
	dfs_log *log = (dfs_log *)shared;
	struct lustre_ix *ix = atomic_load_explicit(&log->lustre_ix, memory_order_acquire);
	if (ix)
		return ix;
	ix = malloc(sizeof(*ix) + r->count * sizeof(ix->e[0]));
	if (!ix)
		return NULL;
	ix->n = r->count;
	for (size_t i = 0; i < r->count; i++) {
		ix->e[i].id = dfs_record_word(r, i, 0);
		ix->e[i].i = i;
	}
	qsort(ix->e, ix->n, sizeof(ix->e[0]), ref_cmp);
	struct lustre_ix *none = NULL;
	if (!atomic_compare_exchange_strong_explicit(&log->lustre_ix, &none, ix,
	                                             memory_order_acq_rel,
	                                             memory_order_acquire)) {
		free(ix);
		return none;
	}
	return ix;
}

const unsigned char *dfs_log_lustre_record(const dfs_log *log, uint64_t id,
                                           size_t *len)
{
	const dfs_records *r = dfs_log_records(log, DFS_MOD_LUSTRE);
	if (!r || r->count == 0 || r->packed)
		return NULL;
	const struct lustre_ix *ix = lustre_index(log, r);
	if (!ix)
		return NULL;
	/* the last entry with this id: the last such record in the log */
	size_t lo = 0, hi = ix->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ix->e[mid].id <= id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || ix->e[lo - 1].id != id)
		return NULL;
	size_t i = ix->e[lo - 1].i;
	*len = dfs_record_size(r, i);
	return dfs_record(r, i);
}

void dfs_log_record_place(const dfs_log *log, const dfs_module *m,
                          const unsigned char *rec, dfs_record_place *out)
{
	dfs_log_record_place_near(log, m, rec, NULL, out);
}

void dfs_log_record_place_near(const dfs_log *log, const dfs_module *m,
                               const unsigned char *rec, dfs_name_hint *h,
                               dfs_record_place *out)
{
	if (m->place) {
		m->place(&log->tables, rec, out);
		return;
	}
	const dfs_name *nm = dfs_log_name_near(log, dfs_record_id(rec), h);
	if (nm) {
		out->name = nm->str;
		out->name_len = nm->len;
		out->has_name = true;
		if (nm->mount >= 0) {
			const dfs_mount *mt = &log->mounts[nm->mount];
			out->mount = mt->path;
			out->mount_len = mt->path_len;
			out->fs_type = mt->type;
			out->fs_type_len = strlen(mt->type);
			return;
		}
	} else {
		out->name = "(null)";
		out->name_len = 6;
		out->has_name = false;
	}
	out->mount = "UNKNOWN";
	out->mount_len = 7;
	out->fs_type = "UNKNOWN";
	out->fs_type_len = 7;
}
