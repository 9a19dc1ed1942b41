/* region.c - decompression of log regions.
 *
 * A region is one or more complete zlib (or bzip2) streams back to back:
 * the runtime writes one stream per MPI rank.  Whenever a stream ends
 * before the region does, the decompressor starts again on the rest and
 * the output continues.  Uncompressed regions are copied.
 *
 * The output goes to a target: either a growing buffer (the whole region
 * in memory), or a fixed window handed to a consumer each time it fills,
 * so that a region of hundreds of MiB can be turned into compact records
 * without ever being held inflated (dfs_region_stream).
 *
 * zlib streams are inflated with ISA-L's igzip when the build has it (as
 * fast as the fastest whole-buffer inflaters, and it streams); zlib is the
 * fallback, and also names the problem when igzip finds the data bad. */
#include <bzlib.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#ifdef DFS_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

#include "darshanfs/log.h"
#include "log/region.h"
#include "util/scratch.h"

#define CHUNK (256 * 1024)
#define WINDOW ((size_t)1 << 20)
/* regions compressed to less than WINDOW / SMALL_RATIO get a window of
 * SMALL_RATIO times their size, SMALL_WINDOW at least */
#define SMALL_RATIO 8
#define SMALL_WINDOW ((size_t)16 << 10)

/* ---- targets ---------------------------------------------------------------- */

struct target {
	size_t produced;
	size_t limit;        /* 0: none */
	size_t stop_after;   /* 0: whole region */
	/* buffer target */
	dfs_buf *out;
	size_t in_len;       /* the input's bytes (to guess what is left) */
	/* window target */
	unsigned char *win;
	size_t win_cap, win_len;
	dfs_region_sink sink;
	void *ctx;
};

static int too_big(dfs_error *err, size_t limit)
{
	return dfs_error_set(err, DFS_ERR_TOOBIG,
	                     "region inflates to more than %zu bytes", limit);
}

static bool target_full(const struct target *t)
{
	return t->stop_after && t->produced >= t->stop_after;
}

/* The part of a big room of the buffer target (p, room bytes) that the
 * rest of the input should fill, at the ratio of the output so far, is
 * faulted in by one call: written by the inflate, its fresh pages came
 * a fault each (on a paravirtual machine, an exit to the host each; the
 * name table of a million records is tens of MiB).  The 1M-record
 * benchmark log loaded in 1.48 s instead of 1.57 s (medians of 8
 * alternating rounds). */
#define POPULATE_MIN ((size_t)1 << 20)

static void populate_room(const struct target *t, size_t in_left, unsigned char *p,
                          size_t room)
{
	size_t used = t->in_len > in_left ? t->in_len - in_left : 0;
	if (room < POPULATE_MIN || used == 0 || t->produced == 0)
		return;
	double left = (double)in_left * ((double)t->produced / (double)used);
	dfs_pages_populate(p, left < (double)room ? (size_t)left : room);
}

/* Room for the next output, bounded by the limits: 0, or -1 with err set
 * when out of memory. */
static int target_room(struct target *t, size_t in_left, unsigned char **p,
                       size_t *n, dfs_error *err)
{
	size_t room;
	if (t->out) {
		/* a small input starts at 8 times its size and doubles up to
		 * CHUNK: the space left over, given back when it is done, then
		 * stays small (giving back much makes glibc shrink the heap,
		 * which interrupts every core, once per region of every log) */
		if (t->produced >= CHUNK)
			room = CHUNK;
		else if (t->produced)
			room = t->produced;
		else
			room = in_left < CHUNK / 8 ? in_left * 8 : CHUNK;
		if (room < 4096)
			room = 4096;
		/* most logs inflate 4..20 times: grow in large steps when the
		 * input promises a lot of output */
		if (in_left > CHUNK / 8 && t->produced > CHUNK)
			room = t->produced / 2 < (size_t)64 << 20 ? t->produced / 2
			                                          : (size_t)64 << 20;
	} else {
		room = t->win_cap - t->win_len;
	}
	if (t->stop_after && room > t->stop_after - t->produced)
		room = t->stop_after - t->produced;
	if (t->limit && room > t->limit - t->produced + 1)
		room = t->limit - t->produced + 1;
	if (room > UINT_MAX)
		room = UINT_MAX;
	if (room == 0)
		room = 1;
	if (t->out) {
		if (!dfs_buf_grow(t->out, room))
			return dfs_error_set(err, DFS_ERR_NOMEM,
			                     "out of memory inflating a region");
		*p = (unsigned char *)t->out->data + t->out->len;
		populate_room(t, in_left, *p, room);
	} else {
		*p = t->win + t->win_len;
	}
	*n = room;
	return 0;
}

/* hand the window to the sink; keep what it left for the next round */
static int feed_sink(struct target *t, dfs_error *err)
{
	size_t used = t->sink(t->ctx, t->win, t->win_len, err);
	if (used == (size_t)-1)
		return -1;
	memmove(t->win, t->win + used, t->win_len - used);
	t->win_len -= used;
	return 0;
}

/* `n` bytes were written where target_room said */
static int target_wrote(struct target *t, size_t n, dfs_error *err)
{
	t->produced += n;
	if (t->out) {
		t->out->len += n;
		t->out->data[t->out->len] = '\0';
	} else {
		t->win_len += n;
	}
	if (t->limit && t->produced > t->limit)
		return too_big(err, t->limit);
	if (t->out || t->win_len < t->win_cap)
		return 0;
	return feed_sink(t, err);
}

/* the rest of the window, at the end of the region */
static int target_flush(struct target *t, dfs_error *err)
{
	if (t->out || t->win_len == 0)
		return 0;
	return feed_sink(t, err);
}

static int truncated(dfs_error *err)
{
	return dfs_error_set(err, DFS_ERR_FORMAT,
	                     "compressed data ends in the middle of a stream");
}

/* ---- input ---------------------------------------------------------------- */

/* The compressed bytes: the whole region in memory, or read a piece at a
 * time (a region of a file need not be held whole either). */
struct input {
	const unsigned char *mem;
	dfs_region_reader read;
	void *ctx;
	size_t len;               /* of the region */
	unsigned char *buf;       /* pieces read */
	size_t cap;
	size_t base, have;        /* the piece in buf: region offset, bytes */
};

#define INPUT_PIECE ((size_t)4 << 20)

/* The bytes from region offset `pos` on: *p and *n (0 at the end). */
static int input_at(struct input *in, size_t pos, const unsigned char **p,
                    size_t *n, dfs_error *err)
{
	*p = NULL;
	*n = 0;
	if (pos >= in->len)
		return 0;
	size_t want = in->len - pos;
	if (in->mem) {
		*p = in->mem + pos;
	} else if (pos >= in->base && pos < in->base + in->have) {
		/* still in the piece read last (a stream ended inside it) */
		*p = in->buf + (pos - in->base);
		want = in->base + in->have - pos;
	} else {
		if (want > in->cap)
			want = in->cap;
		if (in->read(in->ctx, pos, in->buf, want, err))
			return -1;
		in->base = pos;
		in->have = want;
		*p = in->buf;
	}
	*n = want > UINT32_MAX ? UINT32_MAX : want;
	return 0;
}

/* ---- zlib ----------------------------------------------------------------- */

static int inflate_zlib(struct input *in, struct target *t, dfs_error *err)
{
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	if (inflateInit(&zs) != Z_OK)
		return dfs_error_set(err, DFS_ERR_NOMEM, "cannot start zlib");
	size_t pos = 0;           /* region offset of zs.next_in */
	int ret = 0;
	bool in_stream = false;   /* a stream has started and not ended */
	for (;;) {
		if (target_full(t)) {
			in_stream = false;
			break;
		}
		if (zs.avail_in == 0) {
			if (pos >= in->len)
				break;
			const unsigned char *p;
			size_t n;
			if ((ret = input_at(in, pos, &p, &n, err)))
				break;
			zs.next_in = (unsigned char *)p;
			zs.avail_in = (unsigned)n;
		}
		in_stream = true;
		unsigned char *p;
		size_t room;
		if ((ret = target_room(t, in->len - pos, &p, &room, err)))
			break;
		zs.next_out = p;
		zs.avail_out = (unsigned)room;
		unsigned before = zs.avail_in;
		int z = inflate(&zs, Z_NO_FLUSH);
		pos += before - zs.avail_in;
		if ((ret = target_wrote(t, room - zs.avail_out, err)))
			break;
		if (z == Z_STREAM_END) {
			in_stream = false;
			/* another stream may follow in the same region */
			if (pos >= in->len)
				break;
			inflateReset(&zs);
			continue;
		}
		if (z != Z_OK && z != Z_BUF_ERROR) {
			ret = dfs_error_set(err, DFS_ERR_FORMAT, "unable to inflate: %s",
			                    zs.msg ? zs.msg : "invalid compressed data");
			in_stream = false;
			break;
		}
	}
	if (ret == 0 && in_stream)
		ret = truncated(err);
	inflateEnd(&zs);
	return ret;
}

/* ---- igzip ---------------------------------------------------------------- */

#ifdef DFS_HAVE_ISAL
/* A stream of igzip starting at region offset pos. */
static int isal_start(struct inflate_state *st, struct input *in, size_t pos,
                      dfs_error *err)
{
	const unsigned char *p;
	size_t n;
	isal_inflate_init(st);
	st->crc_flag = ISAL_ZLIB;
	if (input_at(in, pos, &p, &n, err))
		return -1;
	st->next_in = (uint8_t *)p;
	st->avail_in = (uint32_t)n;
	return 0;
}

/* 1: bad data (the caller asks zlib what is wrong), 0 done, -1 error set */
static int inflate_isal(struct input *in, struct target *t, dfs_error *err)
{
	struct inflate_state *st = malloc(sizeof(*st));
	if (!st)
		return dfs_error_nomem(err);
	size_t pos = 0;           /* region offset of st->next_in */
	int ret = isal_start(st, in, 0, err);
	while (ret == 0) {
		if (target_full(t))
			break;
		unsigned char *p;
		size_t room;
		if ((ret = target_room(t, in->len - pos, &p, &room, err)))
			break;
		st->next_out = p;
		st->avail_out = (uint32_t)room;
		uint32_t before = st->avail_in;
		int rc = isal_inflate(st);
		pos += before - st->avail_in;
		size_t got = room - st->avail_out;
		if (rc != ISAL_DECOMP_OK) {
			ret = 1;
			break;
		}
		if ((ret = target_wrote(t, got, err)))
			break;
		if (st->block_state == ISAL_BLOCK_FINISH) {
			/* igzip may have read bytes past the stream's end into
			 * its bit buffer: the next stream starts that far back */
			size_t back = st->read_in_length > 0 ? (size_t)st->read_in_length / 8 : 0;
			size_t end = pos - back;
			if (end >= in->len)
				break;
			/* another stream follows in the same region */
			pos = end;
			ret = isal_start(st, in, pos, err);
			continue;
		}
		if (st->avail_in == 0) {
			if (pos < in->len) {
				const unsigned char *q;
				size_t n;
				if ((ret = input_at(in, pos, &q, &n, err)))
					break;
				st->next_in = (uint8_t *)q;
				st->avail_in = (uint32_t)n;
			} else if (got == 0) {
				ret = 1;   /* ends in the middle of a stream */
			}
		}
	}
	free(st);
	return ret;
}
#endif

static int inflate_zlib_fast(struct input *in, struct target *t, dfs_error *err)
{
#ifdef DFS_HAVE_ISAL
	size_t start = t->out ? t->out->len : 0;
	int r = inflate_isal(in, t, err);
	if (r != 1)
		return r;
	/* bad data: zlib starts again and says what is wrong with it (a
	 * window's consumer is told to forget what it was given) */
	if (!t->out && t->sink(t->ctx, NULL, 0, err) == (size_t)-1)
		return -1;
	if (t->out)
		t->out->len = start;
	t->produced = 0;
	t->win_len = 0;
#endif
	return inflate_zlib(in, t, err);
}

/* ---- bzip2 ---------------------------------------------------------------- */

static int inflate_bzip2(struct input *in, struct target *t, dfs_error *err)
{
	bz_stream bz;
	memset(&bz, 0, sizeof(bz));
	if (BZ2_bzDecompressInit(&bz, 0, 0) != BZ_OK)
		return dfs_error_set(err, DFS_ERR_NOMEM, "cannot start bzip2");
	size_t pos = 0;           /* region offset of bz.next_in */
	int ret = 0;
	for (;;) {
		if (target_full(t) || in->len == 0)
			break;
		/* (input used up: decompress on, to drain what bzip2 holds,
		 * until the stream ends or it has nothing more: truncated) */
		if (bz.avail_in == 0 && pos < in->len) {
			const unsigned char *p;
			size_t n;
			if ((ret = input_at(in, pos, &p, &n, err)))
				break;
			bz.next_in = (char *)p;
			bz.avail_in = (unsigned)n;
		}
		unsigned char *p;
		size_t room;
		if ((ret = target_room(t, in->len - pos, &p, &room, err)))
			break;
		bz.next_out = (char *)p;
		bz.avail_out = (unsigned)room;
		unsigned before = bz.avail_in;
		int z = BZ2_bzDecompress(&bz);
		pos += before - bz.avail_in;
		if ((ret = target_wrote(t, room - bz.avail_out, err)))
			break;
		if (z == BZ_STREAM_END) {
			if (pos >= in->len)
				break;
			/* restart on the remaining bytes */
			char *next = bz.next_in;
			unsigned avail = bz.avail_in;
			BZ2_bzDecompressEnd(&bz);
			memset(&bz, 0, sizeof(bz));
			if (BZ2_bzDecompressInit(&bz, 0, 0) != BZ_OK)
				return dfs_error_set(err, DFS_ERR_NOMEM,
				                     "cannot restart bzip2");
			bz.next_in = next;
			bz.avail_in = avail;
			continue;
		}
		if (z != BZ_OK) {
			ret = dfs_error_set(err, DFS_ERR_FORMAT,
			                    "unable to decompress bzip2 data (error %d)", z);
			break;
		}
		if (bz.avail_in == 0 && pos >= in->len && bz.avail_out != 0) {
			ret = truncated(err);
			break;
		}
	}
	BZ2_bzDecompressEnd(&bz);
	return ret;
}

/* ---- none ----------------------------------------------------------------- */

static int copy_plain(struct input *in, struct target *t, dfs_error *err)
{
	size_t pos = 0;
	const unsigned char *data = NULL;
	size_t avail = 0;
	while (pos < in->len && !target_full(t)) {
		if (avail == 0 && input_at(in, pos, &data, &avail, err))
			return -1;
		unsigned char *p;
		size_t room;
		if (target_room(t, in->len - pos, &p, &room, err))
			return -1;
		size_t n = avail < room ? avail : room;
		memcpy(p, data, n);
		data += n;
		avail -= n;
		pos += n;
		if (target_wrote(t, n, err))
			return -1;
	}
	return 0;
}

static int run(int comp_type, struct input *in, struct target *t, dfs_error *err)
{
	switch (comp_type) {
	case DFS_COMP_ZLIB:
		return inflate_zlib_fast(in, t, err);
	case DFS_COMP_BZIP2:
		return inflate_bzip2(in, t, err);
	case DFS_COMP_NONE:
		return copy_plain(in, t, err);
	}
	return dfs_error_set(err, DFS_ERR_FORMAT, "invalid compression type %d",
	                     comp_type);
}

/* ---- public ----------------------------------------------------------------- */

int dfs_region_inflate(int comp_type, const unsigned char *data, size_t len,
                       size_t limit, size_t stop_after, dfs_buf *out,
                       dfs_error *err)
{
	struct target t = {.limit = limit, .stop_after = stop_after, .out = out,
	                   .in_len = len};
	struct input in = {.mem = data, .len = len};
	size_t start = out->len;
	int ret = run(comp_type, &in, &t, err);
	if (ret == 0 && stop_after && out->len - start > stop_after) {
		out->len = start + stop_after;
		out->data[out->len] = '\0';
	}
	/* give back what the last growth step did not use (a name table is
	 * kept as it is, and most are far smaller than one step) */
	if (ret == 0 && out->cap > out->len + 4096) {
		char *p = realloc(out->data, out->len + 1);
		if (p) {
			out->data = p;
			out->cap = out->len + 1;
		}
	}
	return ret;
}

int dfs_region_stream(int comp_type, const unsigned char *data, size_t len,
                      dfs_region_reader read, void *read_ctx, size_t limit,
                      size_t unit, dfs_region_sink sink, void *ctx,
                      size_t *leftover, dfs_error *err)
{
	/* a small region gets a small window: a 1 MiB one is a mapping of
	 * its own, made and unmapped for each region of each small log (and
	 * every unmapping interrupts the other cores to flush their TLBs) */
	size_t cap = len < WINDOW / SMALL_RATIO ? len * SMALL_RATIO : WINDOW;
	if (cap < SMALL_WINDOW)
		cap = SMALL_WINDOW;
	if (unit > cap / 4)
		cap = unit * 4;
	struct target t = {.limit = limit, .sink = sink, .ctx = ctx, .win_cap = cap};
	struct input in = {.mem = data, .read = read, .ctx = read_ctx, .len = len};
	if (!data) {
		in.cap = len < INPUT_PIECE ? (len ? len : 1) : INPUT_PIECE;
		in.buf = malloc(in.cap);
	}
	t.win = malloc(cap);
	if (!t.win || (!data && !in.buf)) {
		free(t.win);
		free(in.buf);
		return dfs_error_nomem(err);
	}
	int ret = run(comp_type, &in, &t, err);
	if (ret == 0)
		ret = target_flush(&t, err);
	if (leftover)
		*leftover = t.win_len;
	free(t.win);
	free(in.buf);
	return ret;
}
