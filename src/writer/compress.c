/* compress.c - one region of a log as one zlib or bzip2 stream.
 *
 * zlib: the region is cut into 1 MiB blocks.  Each block is deflated on
 * its own as raw deflate data primed with the 32 KiB that precede it
 * (deflateSetDictionary), ending in a sync flush (byte aligned, not final)
 * except the last block, which finishes the stream.  The blocks' outputs,
 * between a zlib header and the Adler-32 of the whole region (combined
 * from the blocks' checksums), form one ordinary zlib stream, which is what
 * darshan-util writes and expects.  Blocks are independent jobs, so up to
 * `threads` workers compress them while the caller fills the next ones;
 * outputs are handed to the sink in block order.  The block size is fixed,
 * so the bytes produced do not depend on the number of threads.
 *
 * bzip2: one stream, compressed in the calling thread. */
#include <bzlib.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "darshanfs/buf.h"
#include "darshanfs/log.h"
#include "writer/compress.h"

#define BLOCK ((size_t)1 << 20)
#define DICT 32768
#define BZ_OUT (256 * 1024)

struct zjob {
	unsigned char *in;       /* in_cap bytes, up to BLOCK */
	size_t in_len, in_cap;
	unsigned char *dict;     /* the DICT bytes before this block */
	size_t dict_len;
	bool last;
	dfs_buf out;
	uLong adler;             /* of this block's input */
	int failed;              /* 0, or the zlib error code */
	bool done;
};

struct dfs_compressor {
	int comp_type;
	int level;
	int threads;
	dfs_sink sink;
	uint64_t region_out;     /* compressed bytes of the open region */

	/* zlib: a ring of jobs; sequence numbers count jobs ever submitted */
	struct zjob *ring;
	size_t nslots;
	uint64_t submitted, taken, retired, region_first;
	uLong adler;             /* of the region's retired blocks */
	pthread_t *workers;
	int nworkers;
	bool stop;
	pthread_mutex_t lock;
	pthread_cond_t work, done;

	/* bzip2 */
	bz_stream bz;
	bool bz_active;
	unsigned char *bz_out;
};

static int nomem(dfs_error *err)
{
	return dfs_error_set(err, DFS_ERR_NOMEM, "out of memory compressing a region");
}

static int emit(dfs_compressor *c, const void *data, size_t len, dfs_error *err)
{
	if (len == 0)
		return 0;
	if (c->sink.write(c->sink.ctx, data, len, err))
		return -1;
	c->region_out += len;
	return 0;
}

/* ---- zlib blocks ------------------------------------------------------- */

static void run_job(int level, struct zjob *j)
{
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	dfs_buf_reset(&j->out);
	j->failed = 0;
	if (deflateInit2(&zs, level, Z_DEFLATED, -MAX_WBITS, 8,
	                 Z_DEFAULT_STRATEGY) != Z_OK) {
		j->failed = Z_MEM_ERROR;
		return;
	}
	if (j->dict_len &&
	    deflateSetDictionary(&zs, j->dict, (uInt)j->dict_len) != Z_OK) {
		j->failed = Z_STREAM_ERROR;
		deflateEnd(&zs);
		return;
	}
	size_t bound = deflateBound(&zs, (uLong)j->in_len) + 64;
	zs.next_in = j->in;
	zs.avail_in = (uInt)j->in_len;
	int flush = j->last ? Z_FINISH : Z_SYNC_FLUSH;
	for (;;) {
		if (!dfs_buf_grow(&j->out, bound)) {
			j->failed = Z_MEM_ERROR;
			break;
		}
		size_t room = j->out.cap - j->out.len - 1;
		if (room > UINT_MAX)
			room = UINT_MAX;
		zs.next_out = (unsigned char *)j->out.data + j->out.len;
		zs.avail_out = (uInt)room;
		int ret = deflate(&zs, flush);
		j->out.len += room - zs.avail_out;
		if (ret == Z_STREAM_ERROR) {
			j->failed = ret;
			break;
		}
		if (j->last ? ret == Z_STREAM_END
		            : (zs.avail_in == 0 && zs.avail_out != 0))
			break;
		bound = 64 * 1024;
	}
	deflateEnd(&zs);
	j->adler = adler32(adler32(0L, Z_NULL, 0), j->in, (uInt)j->in_len);
}

static void *worker_main(void *arg)
{
	dfs_compressor *c = arg;
	pthread_mutex_lock(&c->lock);
	for (;;) {
		while (!c->stop && c->taken == c->submitted)
			pthread_cond_wait(&c->work, &c->lock);
		if (c->taken == c->submitted)
			break; /* stopping and nothing left */
		struct zjob *j = &c->ring[c->taken % c->nslots];
		c->taken++;
		pthread_mutex_unlock(&c->lock);
		run_job(c->level, j);
		pthread_mutex_lock(&c->lock);
		j->done = true;
		pthread_cond_broadcast(&c->done);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

static int start_pool(dfs_compressor *c, dfs_error *err)
{
	int want = c->threads;
	/* every job so far was compressed inline: workers start after them */
	c->taken = c->submitted;
	c->workers = calloc((size_t)want, sizeof(*c->workers));
	if (!c->workers)
		return nomem(err);
	for (int i = 0; i < want; i++) {
		if (pthread_create(&c->workers[i], NULL, worker_main, c) != 0)
			break;
		c->nworkers++;
	}
	if (c->nworkers == 0) {
		free(c->workers);
		c->workers = NULL;
		c->threads = 1; /* no thread could start: work inline */
	}
	return 0;
}

static void stop_pool(dfs_compressor *c)
{
	if (!c->nworkers)
		return;
	pthread_mutex_lock(&c->lock);
	c->stop = true;
	pthread_cond_broadcast(&c->work);
	pthread_mutex_unlock(&c->lock);
	for (int i = 0; i < c->nworkers; i++)
		pthread_join(c->workers[i], NULL);
	free(c->workers);
	c->workers = NULL;
	c->nworkers = 0;
	c->stop = false;
}

/* Wait for the oldest job, hand its output to the sink. */
static int retire_one(dfs_compressor *c, dfs_error *err)
{
	struct zjob *j = &c->ring[c->retired % c->nslots];
	if (c->nworkers) {
		pthread_mutex_lock(&c->lock);
		while (!j->done)
			pthread_cond_wait(&c->done, &c->lock);
		pthread_mutex_unlock(&c->lock);
	}
	c->retired++;
	if (j->failed == Z_MEM_ERROR)
		return nomem(err);
	if (j->failed)
		return dfs_error_set(err, DFS_ERR_IO, "zlib failed (error %d)", j->failed);
	c->adler = adler32_combine(c->adler, j->adler, (z_off_t)j->in_len);
	return emit(c, j->out.data, j->out.len, err);
}

/* Make the next ring slot ready to be filled. */
static int start_fill(dfs_compressor *c, dfs_error *err)
{
	if (c->submitted - c->retired == c->nslots && retire_one(c, err))
		return -1;
	struct zjob *j = &c->ring[c->submitted % c->nslots];
	j->in_len = 0;
	j->dict_len = 0;
	j->last = false;
	j->done = false;
	if (c->submitted > c->region_first) {
		const struct zjob *p = &c->ring[(c->submitted - 1) % c->nslots];
		size_t n = p->in_len < DICT ? p->in_len : DICT;
		memcpy(j->dict, p->in + p->in_len - n, n);
		j->dict_len = n;
	}
	return 0;
}

static int submit(dfs_compressor *c, bool last, dfs_error *err)
{
	struct zjob *j = &c->ring[c->submitted % c->nslots];
	j->last = last;
	if (c->threads > 1 && !c->nworkers && !(last && c->submitted == c->region_first)) {
		/* a region of more than one block: compress in parallel */
		if (start_pool(c, err))
			return -1;
	}
	if (!c->nworkers) {
		run_job(c->level, j);
		j->done = true;
		c->submitted++;
		return 0;
	}
	pthread_mutex_lock(&c->lock);
	c->submitted++;
	pthread_cond_signal(&c->work);
	pthread_mutex_unlock(&c->lock);
	return 0;
}

static int zlib_begin(dfs_compressor *c, dfs_error *err)
{
	/* the zlib header deflate itself would write for this level */
	int level = c->level < 0 ? 6 : c->level;
	unsigned flags = level < 2 ? 0 : level < 6 ? 1 : level == 6 ? 2 : 3;
	unsigned header = (0x78u << 8) | (flags << 6);
	header += 31 - header % 31;
	unsigned char h[2] = {(unsigned char)(header >> 8), (unsigned char)header};
	c->adler = adler32(0L, Z_NULL, 0);
	c->region_first = c->submitted;
	if (emit(c, h, 2, err))
		return -1;
	return start_fill(c, err);
}

/* Room for `n` more bytes of input in j (in_len + n <= BLOCK).  A
 * block's buffer grows as it fills, by doubling: most regions are a few
 * KiB, and a whole BLOCK for each slot of the ring, for every file
 * exported, is mostly memory mapped and given back untouched (or, under
 * a checking allocator, poisoned and unpoisoned whole). */
static int in_room(struct zjob *j, size_t n)
{
	size_t need = j->in_len + n;
	if (need <= j->in_cap)
		return 0;
	size_t cap = j->in_cap ? j->in_cap : 16384;
	while (cap < need)
		cap *= 2;
	if (cap > BLOCK)
		cap = BLOCK;
	unsigned char *in = realloc(j->in, cap);
	if (!in)
		return -1;
	j->in = in;
	j->in_cap = cap;
	return 0;
}

static int zlib_write(dfs_compressor *c, const unsigned char *p, size_t len,
                      dfs_error *err)
{
	while (len > 0) {
		struct zjob *j = &c->ring[c->submitted % c->nslots];
		size_t n = BLOCK - j->in_len;
		if (n > len)
			n = len;
		if (in_room(j, n))
			return nomem(err);
		memcpy(j->in + j->in_len, p, n);
		j->in_len += n;
		p += n;
		len -= n;
		if (j->in_len == BLOCK &&
		    (submit(c, false, err) || start_fill(c, err)))
			return -1;
	}
	return 0;
}

static int zlib_end(dfs_compressor *c, dfs_error *err)
{
	if (submit(c, true, err))
		return -1;
	while (c->retired < c->submitted)
		if (retire_one(c, err))
			return -1;
	unsigned char t[4] = {
		(unsigned char)(c->adler >> 24), (unsigned char)(c->adler >> 16),
		(unsigned char)(c->adler >> 8), (unsigned char)c->adler,
	};
	return emit(c, t, 4, err);
}

/* ---- bzip2 ------------------------------------------------------------- */

static int bz_fail(int code, dfs_error *err)
{
	if (code == BZ_MEM_ERROR)
		return nomem(err);
	return dfs_error_set(err, DFS_ERR_IO, "bzip2 failed (error %d)", code);
}

static int bz_flush(dfs_compressor *c, dfs_error *err)
{
	size_t n = BZ_OUT - c->bz.avail_out;
	c->bz.next_out = (char *)c->bz_out;
	c->bz.avail_out = BZ_OUT;
	return emit(c, c->bz_out, n, err);
}

static int bz_begin(dfs_compressor *c, dfs_error *err)
{
	memset(&c->bz, 0, sizeof(c->bz));
	int ret = BZ2_bzCompressInit(&c->bz, 9, 0, 30);
	if (ret != BZ_OK)
		return bz_fail(ret, err);
	c->bz_active = true;
	c->bz.next_out = (char *)c->bz_out;
	c->bz.avail_out = BZ_OUT;
	return 0;
}

static int bz_write(dfs_compressor *c, const unsigned char *p, size_t len,
                    dfs_error *err)
{
	while (len > 0) {
		size_t n = len > UINT_MAX / 2 ? UINT_MAX / 2 : len;
		c->bz.next_in = (char *)p;
		c->bz.avail_in = (unsigned)n;
		while (c->bz.avail_in > 0) {
			int ret = BZ2_bzCompress(&c->bz, BZ_RUN);
			if (ret != BZ_RUN_OK)
				return bz_fail(ret, err);
			if (c->bz.avail_out == 0 && bz_flush(c, err))
				return -1;
		}
		p += n;
		len -= n;
	}
	return 0;
}

static int bz_end(dfs_compressor *c, dfs_error *err)
{
	for (;;) {
		int ret = BZ2_bzCompress(&c->bz, BZ_FINISH);
		if (ret != BZ_FINISH_OK && ret != BZ_STREAM_END)
			return bz_fail(ret, err);
		if ((ret == BZ_STREAM_END || c->bz.avail_out == 0) && bz_flush(c, err))
			return -1;
		if (ret == BZ_STREAM_END)
			break;
	}
	BZ2_bzCompressEnd(&c->bz);
	c->bz_active = false;
	return 0;
}

/* ---- public (internal) API --------------------------------------------- */

dfs_compressor *dfs_compressor_new(int comp_type, int level, int threads,
                                   const dfs_sink *sink, dfs_error *err)
{
	if (comp_type != DFS_COMP_ZLIB && comp_type != DFS_COMP_BZIP2) {
		dfs_error_set(err, DFS_ERR_INVAL,
		              "cannot write compression type %d (zlib or bzip2 only)",
		              comp_type);
		return NULL;
	}
	dfs_compressor *c = calloc(1, sizeof(*c));
	if (!c) {
		nomem(err);
		return NULL;
	}
	c->comp_type = comp_type;
	c->level = level;
	c->threads = threads < 1 ? 1 : threads;
	c->sink = *sink;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->work, NULL);
	pthread_cond_init(&c->done, NULL);
	if (comp_type == DFS_COMP_BZIP2) {
		c->bz_out = malloc(BZ_OUT);
		if (!c->bz_out)
			goto fail;
		return c;
	}
	c->nslots = 2 * (size_t)c->threads + 2;
	c->ring = calloc(c->nslots, sizeof(*c->ring));
	if (!c->ring)
		goto fail;
	for (size_t i = 0; i < c->nslots; i++) {
		c->ring[i].dict = malloc(DICT);
		if (!c->ring[i].dict)
			goto fail;
	}
	return c;
fail:
	dfs_compressor_free(c);
	nomem(err);
	return NULL;
}

void dfs_compressor_free(dfs_compressor *c)
{
	if (!c)
		return;
	stop_pool(c);
	if (c->bz_active)
		BZ2_bzCompressEnd(&c->bz);
	free(c->bz_out);
	for (size_t i = 0; c->ring && i < c->nslots; i++) {
		free(c->ring[i].in);
		free(c->ring[i].dict);
		dfs_buf_free(&c->ring[i].out);
	}
	free(c->ring);
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->work);
	pthread_cond_destroy(&c->done);
	free(c);
}

int dfs_compressor_begin(dfs_compressor *c, dfs_error *err)
{
	c->region_out = 0;
	return c->comp_type == DFS_COMP_ZLIB ? zlib_begin(c, err) : bz_begin(c, err);
}

int dfs_compressor_write(dfs_compressor *c, const void *data, size_t len,
                         dfs_error *err)
{
	return c->comp_type == DFS_COMP_ZLIB ? zlib_write(c, data, len, err)
	                                     : bz_write(c, data, len, err);
}

int dfs_compressor_end(dfs_compressor *c, uint64_t *out_len, dfs_error *err)
{
	int ret = c->comp_type == DFS_COMP_ZLIB ? zlib_end(c, err) : bz_end(c, err);
	*out_len = c->region_out;
	return ret;
}
