/* writer.c - the step-by-step log writer: destination, header, job region,
 * name region, module regions (see darshanfs/writer.h).
 *
 * The writer owns the order of regions (§1.7/§1.9 of the format doc: job
 * right after the header, then names, then modules in ascending id), the
 * encoding of the job struct, exe/mount text and name entries, the
 * conversion of current-layout records into the stored version being
 * written (only DXT has one: 32-byte segments without thread ids), and the
 * 1328-byte header, written last at the start of the log.  Compression of
 * each region is compress.c's job. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "darshanfs/writer.h"
#include "util/bytes.h"
#include "writer/compress.h"
#include "writer/writer_int.h"

#define HEADER_SIZE 1328
#define JOB_SIZE 1080
#define METADATA_SIZE 1024
#define TEXT_MAX 3015          /* exe + mount text a reader accepts (no NUL) */
#define MAGIC_NR 6567223
#define MAX_THREADS 4


enum state {
	W_NEW,          /* nothing written */
	W_AFTER_JOB,    /* job region written, no name yet */
	W_IN_NAMES,     /* name region open */
	W_IN_MODULE,    /* a module region open */
	W_BETWEEN,      /* after a module region */
	W_FINISHED,
	W_FAILED,
};

/* how dfs_log_writer_record turns a current-layout record into bytes */
enum encoding {
	ENC_NONE,       /* no conversion from the current layout is known */
	ENC_COPY,       /* stored as in memory */
	ENC_DXT,        /* current DXT: thread id "none" stored as 0 */
	ENC_DXT_SHORT,  /* old DXT: 32-byte segments without thread ids */
};

struct dfs_log_writer {
	int fd;                 /* destination fd, -1 for a buffer */
	bool direct;            /* bytes go straight to fd (regular file) */
	off_t fd_base;
	dfs_buf *out;           /* destination buffer (ours for a pipe) */
	dfs_buf own;
	size_t buf_base;
	uint64_t pos;           /* bytes of the log written so far */
	int comp_type;
	dfs_compressor *z;
	enum state state;
	dfs_error failure;

	dfs_region names;
	dfs_region mods[DFS_MOD_SLOTS];
	uint32_t mod_ver[DFS_MOD_SLOTS];
	int last_id;
	int cur_id;
	const dfs_module *cur_mod;
	uint32_t cur_ver;
	enum encoding cur_enc;
	uint64_t region_off;
	dfs_buf scratch;        /* a converted record */
};

/* DXT versions stored with 32-byte segments (DXT_MPIIO v1 is left out: a
 * reader replaces its offsets with -1) */
static const struct {
	int id;
	uint32_t version;
} dxt_short_versions[] = {
	{DFS_MOD_DXT_POSIX, 1},
	{DFS_MOD_DXT_MPIIO, 2},
};

uint32_t dfs_writer_short_dxt_version(int id)
{
	for (size_t i = 0; i < sizeof(dxt_short_versions) / sizeof(dxt_short_versions[0]); i++)
		if (dxt_short_versions[i].id == id)
			return dxt_short_versions[i].version;
	return 0;
}

/* ---- destination ------------------------------------------------------- */

static int write_all(int fd, const void *data, size_t len, dfs_error *err)
{
	const char *p = data;
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return dfs_error_set(err, DFS_ERR_IO, "write failed: %s",
			                     strerror(errno));
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int sink_write(void *ctx, const void *data, size_t len, dfs_error *err)
{
	dfs_log_writer *w = ctx;
	if (w->direct) {
		if (write_all(w->fd, data, len, err))
			return -1;
	} else {
		dfs_buf_add(w->out, data, len);
		if (!dfs_buf_ok(w->out))
			return dfs_error_set(err, DFS_ERR_NOMEM,
			                     "out of memory holding the written log");
	}
	w->pos += len;
	return 0;
}

static dfs_log_writer *writer_new(const dfs_write_options *opt, dfs_error *err)
{
	dfs_write_options o = {DFS_COMP_ZLIB, 0, 0};
	if (opt)
		o = *opt;
	if (o.level < 0 || o.level > 9) {
		dfs_error_set(err, DFS_ERR_INVAL, "compression level %d (1 to 9)", o.level);
		return NULL;
	}
	int threads = o.threads;
	if (threads <= 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		threads = n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (int)n;
	}
	dfs_log_writer *w = calloc(1, sizeof(*w));
	if (!w) {
		dfs_error_nomem(err);
		return NULL;
	}
	w->fd = -1;
	w->comp_type = o.comp_type;
	w->last_id = -1;
	w->cur_id = -1;
	dfs_sink sink = {sink_write, w};
	w->z = dfs_compressor_new(o.comp_type, o.level ? o.level : -1, threads,
	                          &sink, err);
	if (!w->z) {
		free(w);
		return NULL;
	}
	return w;
}

dfs_log_writer *dfs_log_writer_fd(int fd, const dfs_write_options *opt,
                                  dfs_error *err)
{
	struct stat st;
	if (fstat(fd, &st) != 0) {
		dfs_error_set(err, DFS_ERR_IO, "cannot write to fd %d: %s", fd,
		              strerror(errno));
		return NULL;
	}
	dfs_log_writer *w = writer_new(opt, err);
	if (!w)
		return NULL;
	w->fd = fd;
	/* the header is written last, in place: that needs a regular file
	 * that can seek and is not in append mode */
	int flags = fcntl(fd, F_GETFL);
	bool seekable = S_ISREG(st.st_mode) && flags >= 0 && !(flags & O_APPEND);
	off_t base = seekable ? lseek(fd, 0, SEEK_CUR) : -1;
	if (base >= 0) {
		w->direct = true;
		w->fd_base = base;
	} else {
		w->out = &w->own; /* e.g. a pipe: the log is sent whole at finish */
	}
	return w;
}

dfs_log_writer *dfs_log_writer_buf(dfs_buf *out, const dfs_write_options *opt,
                                   dfs_error *err)
{
	dfs_log_writer *w = writer_new(opt, err);
	if (!w)
		return NULL;
	w->out = out;
	w->buf_base = out->len;
	return w;
}

void dfs_log_writer_free(dfs_log_writer *w)
{
	if (!w)
		return;
	dfs_compressor_free(w->z);
	dfs_buf_free(&w->own);
	dfs_buf_free(&w->scratch);
	free(w);
}

uint64_t dfs_log_writer_size(const dfs_log_writer *w)
{
	return w->pos;
}

/* ---- state ------------------------------------------------------------- */

/* Remember the first failure; later steps report it again. */
static int fail(dfs_log_writer *w, dfs_error *err)
{
	if (w->state != W_FAILED) {
		w->state = W_FAILED;
		if (err)
			w->failure = *err;
		else
			dfs_error_set(&w->failure, DFS_ERR_IO, "write failed");
	}
	return -1;
}

static int check_usable(dfs_log_writer *w, dfs_error *err)
{
	if (w->state == W_FAILED)
		return dfs_error_set(err, w->failure.code, "%s", w->failure.msg);
	if (w->state == W_FINISHED)
		return dfs_error_set(err, DFS_ERR_INVAL, "the log is already finished");
	return 0;
}

static int region_begin(dfs_log_writer *w, dfs_error *err)
{
	w->region_off = w->pos;
	return dfs_compressor_begin(w->z, err);
}

static int region_end(dfs_log_writer *w, dfs_region *r, dfs_error *err)
{
	uint64_t len;
	if (dfs_compressor_end(w->z, &len, err))
		return -1;
	r->off = w->region_off;
	r->len = len;
	return 0;
}

static int region_add(dfs_log_writer *w, const void *data, size_t len,
                      dfs_error *err)
{
	return dfs_compressor_write(w->z, data, len, err);
}

/* ---- job region -------------------------------------------------------- */

static bool has_blank(const char *s)
{
	return strpbrk(s, " \t\n\v\f\r") != NULL;
}

/* exe, then "\n<type>\t<path>" per mount, then NUL */
static int job_text(const dfs_job *job, const dfs_mount *mounts, size_t n,
                    dfs_buf *text, dfs_error *err)
{
	const char *exe = job->exe ? job->exe : "";
	if (strchr(exe, '\n'))
		return dfs_error_set(err, DFS_ERR_INVAL, "the exe contains a newline");
	size_t mount_len = 0;
	for (size_t i = 0; i < n; i++) {
		const char *t = mounts[i].type, *p = mounts[i].path;
		if (!t || !p || !*t || !*p || has_blank(t) || has_blank(p))
			return dfs_error_set(err, DFS_ERR_INVAL,
			                     "mount entry %zu: type and path must be "
			                     "non-empty words", i);
		mount_len += 2 + strlen(t) + strlen(p);
	}
	if (mount_len > TEXT_MAX)
		return dfs_error_set(err, DFS_ERR_TOOBIG,
		                     "the mount table takes %zu bytes (at most %d fit)",
		                     mount_len, TEXT_MAX);
	size_t exe_len = strlen(exe), room = TEXT_MAX - mount_len;
	static const char mark[] = "<TRUNCATED>";
	if (exe_len > room) {
		size_t keep = room >= sizeof(mark) - 1 ? room - (sizeof(mark) - 1) : room;
		dfs_buf_add(text, exe, keep);
		if (keep < room)
			dfs_buf_adds(text, mark);
	} else {
		dfs_buf_add(text, exe, exe_len);
	}
	for (size_t i = 0; i < n; i++)
		dfs_buf_printf(text, "\n%s\t%s", mounts[i].type, mounts[i].path);
	dfs_buf_addc(text, '\0');
	if (!dfs_buf_ok(text))
		return dfs_error_nomem(err);
	return 0;
}

static void job_struct(const dfs_job *job, unsigned char *js)
{
	memset(js, 0, JOB_SIZE);
	dfs_store_i64(js, job->uid);
	dfs_store_i64(js + 8, job->start_sec);
	dfs_store_i64(js + 16, job->start_nsec);
	dfs_store_i64(js + 24, job->end_sec);
	dfs_store_i64(js + 32, job->end_nsec);
	dfs_store_i64(js + 40, job->nprocs);
	dfs_store_i64(js + 48, job->jobid);
	if (job->metadata)
		memcpy(js + 56, job->metadata, strnlen(job->metadata, METADATA_SIZE));
}

int dfs_log_writer_job(dfs_log_writer *w, const dfs_job *job,
                       const dfs_mount *mounts, size_t nmounts,
                       dfs_error *err)
{
	if (check_usable(w, err))
		return -1;
	if (w->state != W_NEW)
		return dfs_error_set(err, DFS_ERR_INVAL,
		                     "the job region must be written first, and once");
	dfs_buf text = DFS_BUF_INIT;
	if (job_text(job, mounts, nmounts, &text, err)) {
		dfs_buf_free(&text);
		return -1; /* bad input: the writer stays usable */
	}
	unsigned char js[JOB_SIZE];
	job_struct(job, js);
	static const unsigned char zeros[HEADER_SIZE];
	dfs_region r;
	int ret = sink_write(w, zeros, HEADER_SIZE, err) ||
	          region_begin(w, err) || region_add(w, js, JOB_SIZE, err) ||
	          region_add(w, text.data, text.len, err) || region_end(w, &r, err);
	dfs_buf_free(&text);
	if (ret)
		return fail(w, err);
	w->state = W_AFTER_JOB;
	/* the name region starts right after the job region, even if empty:
	 * readers derive the job region's length from it */
	w->names.off = w->pos;
	w->names.len = 0;
	return 0;
}

/* ---- name region ------------------------------------------------------- */

int dfs_log_writer_name(dfs_log_writer *w, uint64_t id, const char *name,
                        size_t len, dfs_error *err)
{
	if (check_usable(w, err))
		return -1;
	if (w->state != W_AFTER_JOB && w->state != W_IN_NAMES)
		return dfs_error_set(err, DFS_ERR_INVAL,
		                     "names go after the job and before the modules");
	if (w->state == W_AFTER_JOB) {
		if (region_begin(w, err))
			return fail(w, err);
		w->state = W_IN_NAMES;
	}
	const char *nul = memchr(name, '\0', len);
	if (nul)
		len = (size_t)(nul - name);
	unsigned char small[512];
	int ret;
	if (len + 9 <= sizeof(small)) {
		dfs_store_u64(small, id);
		memcpy(small + 8, name, len);
		small[8 + len] = '\0';
		ret = region_add(w, small, len + 9, err);
	} else {
		dfs_store_u64(small, id);
		ret = region_add(w, small, 8, err) || region_add(w, name, len, err) ||
		      region_add(w, "", 1, err);
	}
	return ret ? fail(w, err) : 0;
}

static int close_names(dfs_log_writer *w, dfs_error *err)
{
	if (w->state != W_IN_NAMES)
		return 0;
	if (region_end(w, &w->names, err))
		return fail(w, err);
	w->state = W_BETWEEN;
	return 0;
}

/* ---- module regions ---------------------------------------------------- */

static enum encoding encoding_for(const dfs_module *m, uint32_t version)
{
	if (!m)
		return ENC_NONE;
	uint32_t short_version = dfs_writer_short_dxt_version(m->id);
	if (version == m->version)
		return short_version ? ENC_DXT : ENC_COPY;
	return short_version && version == short_version ? ENC_DXT_SHORT : ENC_NONE;
}

int dfs_log_writer_module_begin(dfs_log_writer *w, int id, uint32_t version,
                                dfs_error *err)
{
	if (check_usable(w, err))
		return -1;
	if (w->state == W_NEW || w->state == W_IN_MODULE)
		return dfs_error_set(err, DFS_ERR_INVAL,
		                     w->state == W_NEW ? "the job region must come first"
		                                       : "a module region is still open");
	if (id < 0 || id >= DFS_MOD_SLOTS || id <= w->last_id)
		return dfs_error_set(err, DFS_ERR_INVAL,
		                     "module id %d: modules must be written once each, "
		                     "in ascending id (0 to %d)", id, DFS_MOD_SLOTS - 1);
	const dfs_module *m = dfs_module_get(id);
	if (version == 0) {
		if (!m)
			return dfs_error_set(err, DFS_ERR_INVAL,
			                     "module id %d has no known current version", id);
		version = m->version;
	}
	if (m && version > m->version)
		return dfs_error_set(err, DFS_ERR_INVAL,
		                     "%s module version %u is newer than %u", m->name,
		                     version, m->version);
	if (close_names(w, err))
		return -1;
	if (region_begin(w, err))
		return fail(w, err);
	w->state = W_IN_MODULE;
	w->cur_id = id;
	w->cur_mod = m;
	w->cur_ver = version;
	w->cur_enc = encoding_for(m, version);
	return 0;
}

static int bad_record(const dfs_log_writer *w, size_t len, dfs_error *err)
{
	return dfs_error_set(err, DFS_ERR_INVAL, "%s record of %zu bytes does not "
	                     "match the module's layout", w->cur_mod->name, len);
}

/* Is this a whole current-layout DXT record (header and segments)? */
static bool dxt_valid(const unsigned char *rec, size_t len)
{
	if (len < DFS_DXT_FIXED || (len - DFS_DXT_FIXED) % DFS_DXT_SEG)
		return false;
	int64_t wc = dfs_load_i64(rec + 88, false), rc = dfs_load_i64(rec + 96, false);
	return wc >= 0 && rc >= 0 &&
	       (uint64_t)wc + (uint64_t)rc == (len - DFS_DXT_FIXED) / DFS_DXT_SEG;
}

/* A current-layout DXT record as stored at the begun version. */
static int encode_dxt(dfs_log_writer *w, const unsigned char *rec, size_t len,
                      dfs_error *err)
{
	size_t n = (len - DFS_DXT_FIXED) / DFS_DXT_SEG;
	bool short_seg = w->cur_enc == ENC_DXT_SHORT;
	size_t seg = short_seg ? DFS_DXT_SEG_SHORT : DFS_DXT_SEG;
	dfs_buf_reset(&w->scratch);
	unsigned char *d = dfs_buf_add_zeros(&w->scratch, DFS_DXT_FIXED + seg * n);
	if (!d)
		return dfs_error_nomem(err);
	memcpy(d, rec, DFS_DXT_FIXED);
	for (size_t k = 0; k < n; k++) {
		const unsigned char *s = rec + DFS_DXT_FIXED + DFS_DXT_SEG * k;
		unsigned char *o = d + DFS_DXT_FIXED + seg * k;
		memcpy(o, s, DFS_DXT_SEG_SHORT);
		if (!short_seg) {
			uint64_t t = dfs_load_u64(s + 32, false);
			dfs_store_u64(o + 32, t == DFS_DXT_NO_THREAD ? 0 : t);
		}
	}
	return region_add(w, d, DFS_DXT_FIXED + seg * n, err);
}

int dfs_log_writer_record(dfs_log_writer *w, const void *rec, size_t len,
                          dfs_error *err)
{
	if (check_usable(w, err))
		return -1;
	if (w->state != W_IN_MODULE)
		return dfs_error_set(err, DFS_ERR_INVAL, "no module region is open");
	const dfs_module *m = w->cur_mod;
	int ret;
	switch (w->cur_enc) {
	case ENC_COPY:
		if (m->record_size ? len != m->record_size : len < 16)
			return bad_record(w, len, err);
		ret = region_add(w, rec, len, err);
		break;
	case ENC_DXT:
	case ENC_DXT_SHORT:
		if (!dxt_valid(rec, len))
			return bad_record(w, len, err);
		ret = encode_dxt(w, rec, len, err);
		break;
	default:
		return dfs_error_set(err, DFS_ERR_UNSUPPORTED,
		                     "cannot convert records to module id %d version %u",
		                     w->cur_id, w->cur_ver);
	}
	return ret ? fail(w, err) : 0;
}

int dfs_log_writer_module_data(dfs_log_writer *w, const void *data, size_t len,
                               dfs_error *err)
{
	if (check_usable(w, err))
		return -1;
	if (w->state != W_IN_MODULE)
		return dfs_error_set(err, DFS_ERR_INVAL, "no module region is open");
	return region_add(w, data, len, err) ? fail(w, err) : 0;
}

int dfs_log_writer_module_end(dfs_log_writer *w, dfs_error *err)
{
	if (check_usable(w, err))
		return -1;
	if (w->state != W_IN_MODULE)
		return dfs_error_set(err, DFS_ERR_INVAL, "no module region is open");
	if (region_end(w, &w->mods[w->cur_id], err))
		return fail(w, err);
	w->mod_ver[w->cur_id] = w->cur_ver;
	w->last_id = w->cur_id;
	w->state = W_BETWEEN;
	return 0;
}

/* ---- header ------------------------------------------------------------ */

static void header_bytes(const dfs_log_writer *w, uint64_t partial_flag,
                         unsigned char *h)
{
	memset(h, 0, HEADER_SIZE);
	memcpy(h, "3.41", 4);
	dfs_store_i64(h + 8, MAGIC_NR);
	h[16] = (unsigned char)w->comp_type;
	dfs_store_u64(h + 24, partial_flag);
	dfs_store_u64(h + 32, w->names.off);
	dfs_store_u64(h + 40, w->names.len);
	for (int i = 0; i < DFS_MOD_SLOTS; i++) {
		dfs_store_u64(h + 48 + 16 * i, w->mods[i].off);
		dfs_store_u64(h + 56 + 16 * i, w->mods[i].len);
		dfs_store_u32(h + 1072 + 4 * i, w->mod_ver[i]);
	}
}

static int put_header(dfs_log_writer *w, const unsigned char *h, dfs_error *err)
{
	if (!w->direct) {
		memcpy(w->out->data + w->buf_base, h, HEADER_SIZE);
		if (w->fd >= 0)
			return write_all(w->fd, w->own.data, w->own.len, err);
		return 0;
	}
	size_t done = 0;
	while (done < HEADER_SIZE) {
		ssize_t n = pwrite(w->fd, h + done, HEADER_SIZE - done,
		                   w->fd_base + (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return dfs_error_set(err, DFS_ERR_IO, "writing the header failed: %s",
			                     n < 0 ? strerror(errno) : "no progress");
		done += (size_t)n;
	}
	return 0;
}

int dfs_log_writer_finish(dfs_log_writer *w, uint64_t partial_flag,
                          dfs_error *err)
{
	if (check_usable(w, err))
		return -1;
	if (w->state == W_NEW)
		return dfs_error_set(err, DFS_ERR_INVAL, "no job region was written");
	if (close_names(w, err))
		return -1;
	if (w->state == W_IN_MODULE && dfs_log_writer_module_end(w, err))
		return -1;
	unsigned char h[HEADER_SIZE];
	header_bytes(w, partial_flag, h);
	if (put_header(w, h, err))
		return fail(w, err);
	w->state = W_FINISHED;
	return 0;
}
