/* region.c - decompression of log regions.
 *
 * A region is one or more complete zlib (or bzip2) streams back to back:
 * the runtime writes one stream per MPI rank.  Whenever a stream ends
 * before the region does, a fresh decompressor continues with the rest and
 * the output is appended.  Uncompressed regions are copied. */
#include <bzlib.h>
#include <stdbool.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#ifdef DFS_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

#include "darshanfs/log.h"
#include "darshanfs/slab.h"
#include "log/region.h"

#define CHUNK (256 * 1024)

static int too_big(dfs_error *err, size_t limit)
{
	return dfs_error_set(err, DFS_ERR_TOOBIG,
	                     "region inflates to more than %zu bytes", limit);
}

/* room for the next chunk of output, bounded by the limits */
static size_t next_room(dfs_buf *out, size_t start, size_t limit,
                        size_t stop_after, size_t in_left)
{
	size_t produced = out->len - start;
	size_t room = CHUNK;
	/* most logs inflate 4..20 times: grow in large steps when the input
	 * promises a lot of output */
	if (in_left > CHUNK / 8 && produced > CHUNK)
		room = produced / 2 < (size_t)64 << 20 ? produced / 2 : (size_t)64 << 20;
	if (stop_after && room > stop_after - produced)
		room = stop_after - produced;
	if (limit && room > limit - produced + 1)
		room = limit - produced + 1;
	if (room > UINT_MAX)
		room = UINT_MAX;
	if (room == 0)
		room = 1;
	return room;
}

static int inflate_zlib(const unsigned char *data, size_t len, size_t limit,
                        size_t stop_after, dfs_buf *out, dfs_error *err)
{
	size_t start = out->len;
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	if (inflateInit(&zs) != Z_OK)
		return dfs_error_set(err, DFS_ERR_NOMEM, "cannot start zlib");
	const unsigned char *in = data;
	size_t in_left = len;
	int ret = 0;
	bool in_stream = false;   /* a stream has started and not ended */
	for (;;) {
		if (stop_after && out->len - start >= stop_after) {
			in_stream = false;
			break;
		}
		if (zs.avail_in == 0) {
			if (in_left == 0)
				break;
			size_t n = in_left > UINT_MAX ? UINT_MAX : in_left;
			zs.next_in = (unsigned char *)in;
			zs.avail_in = (unsigned)n;
			in += n;
			in_left -= n;
		}
		in_stream = true;
		size_t room = next_room(out, start, limit, stop_after,
		                        in_left + zs.avail_in);
		if (!dfs_buf_grow(out, room)) {
			ret = dfs_error_set(err, DFS_ERR_NOMEM,
			                    "out of memory inflating a region");
			break;
		}
		zs.next_out = (unsigned char *)out->data + out->len;
		zs.avail_out = (unsigned)room;
		int z = inflate(&zs, Z_NO_FLUSH);
		out->len += room - zs.avail_out;
		out->data[out->len] = '\0';
		if (limit && out->len - start > limit) {
			ret = too_big(err, limit);
			break;
		}
		if (z == Z_STREAM_END) {
			in_stream = false;
			/* another stream may follow in the same region */
			if (zs.avail_in == 0 && in_left == 0)
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
		ret = dfs_error_set(err, DFS_ERR_FORMAT,
		                    "compressed data ends in the middle of a stream");
	inflateEnd(&zs);
	if (stop_after && out->len - start > stop_after)
		out->len = start + stop_after;
	return ret;
}

static int inflate_bzip2(const unsigned char *data, size_t len, size_t limit,
                         size_t stop_after, dfs_buf *out, dfs_error *err)
{
	size_t start = out->len;
	bz_stream bz;
	memset(&bz, 0, sizeof(bz));
	if (BZ2_bzDecompressInit(&bz, 0, 0) != BZ_OK)
		return dfs_error_set(err, DFS_ERR_NOMEM, "cannot start bzip2");
	const unsigned char *in = data;
	size_t in_left = len;
	int ret = 0;
	for (;;) {
		if (stop_after && out->len - start >= stop_after)
			break;
		if (bz.avail_in == 0) {
			if (in_left == 0)
				break;
			size_t n = in_left > UINT_MAX ? UINT_MAX : in_left;
			bz.next_in = (char *)in;
			bz.avail_in = (unsigned)n;
			in += n;
			in_left -= n;
		}
		size_t room = next_room(out, start, limit, stop_after,
		                        in_left + bz.avail_in);
		if (!dfs_buf_grow(out, room)) {
			ret = dfs_error_set(err, DFS_ERR_NOMEM,
			                    "out of memory inflating a region");
			break;
		}
		bz.next_out = out->data + out->len;
		bz.avail_out = (unsigned)room;
		int z = BZ2_bzDecompress(&bz);
		out->len += room - bz.avail_out;
		out->data[out->len] = '\0';
		if (limit && out->len - start > limit) {
			ret = too_big(err, limit);
			break;
		}
		if (z == BZ_STREAM_END) {
			if (bz.avail_in == 0 && in_left == 0)
				break;
			/* restart on the remaining bytes */
			char *next = bz.next_in;
			unsigned avail = bz.avail_in;
			BZ2_bzDecompressEnd(&bz);
			memset(&bz, 0, sizeof(bz));
			if (BZ2_bzDecompressInit(&bz, 0, 0) != BZ_OK) {
				return dfs_error_set(err, DFS_ERR_NOMEM,
				                     "cannot restart bzip2");
			}
			bz.next_in = next;
			bz.avail_in = avail;
			continue;
		}
		if (z != BZ_OK) {
			ret = dfs_error_set(err, DFS_ERR_FORMAT,
			                    "unable to decompress bzip2 data (error %d)", z);
			break;
		}
		if (bz.avail_in == 0 && in_left == 0 && bz.avail_out != 0) {
			ret = dfs_error_set(err, DFS_ERR_FORMAT,
			                    "compressed data ends in the middle of a stream");
			break;
		}
	}
	BZ2_bzDecompressEnd(&bz);
	if (stop_after && out->len - start > stop_after)
		out->len = start + stop_after;
	return ret;
}

#ifdef DFS_HAVE_LIBDEFLATE
/* Whole-buffer inflation with libdeflate, stream after stream.  The output
 * size of a zlib stream is not stored, so the buffer is sized generously
 * (untouched pages of a large allocation cost no memory) and trimmed after.
 * Returns 0, or 1 when the caller should fall back to zlib (unusual
 * ratio, damaged data: zlib then reports the exact problem). */
static int inflate_libdeflate(const unsigned char *data, size_t len, size_t limit,
                              dfs_buf *out)
{
	size_t guess = len > SIZE_MAX / 64 ? SIZE_MAX : len * 64;
	if (guess < (size_t)1 << 20)
		guess = (size_t)1 << 20;
	if (limit && guess > limit + 1)
		guess = limit + 1;
	size_t start = out->len;
	if (!dfs_buf_grow(out, guess))
		return 1;
	/* written once, front to back: one page fault per 2 MiB (slab.h) */
	if (guess >= (size_t)8 << 20)
		dfs_huge_advise(out->data + start, guess);
	struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
	if (!d)
		return 1;
	size_t pos = 0, produced = 0;
	int ret = 0;
	while (pos < len) {
		size_t in_used = 0, got = 0;
		enum libdeflate_result r = libdeflate_zlib_decompress_ex(
			d, data + pos, len - pos, out->data + start + produced,
			guess - produced, &in_used, &got);
		if (r != LIBDEFLATE_SUCCESS || in_used == 0) {
			ret = 1;
			break;
		}
		pos += in_used;
		produced += got;
	}
	libdeflate_free_decompressor(d);
	if (ret == 0 && limit && produced > limit)
		ret = 1;
	if (ret) {
		out->len = start;
		return 1;
	}
	out->len = start + produced;
	out->data[out->len] = '\0';
	/* give back the unused part of the guess */
	if (out->cap > out->len + 4096) {
		char *p = realloc(out->data, out->len + 1);
		if (p) {
			out->data = p;
			out->cap = out->len + 1;
		}
	}
	return 0;
}
#endif

int dfs_region_inflate(int comp_type, const unsigned char *data, size_t len,
                       size_t limit, size_t stop_after, dfs_buf *out,
                       dfs_error *err)
{
	switch (comp_type) {
	case DFS_COMP_ZLIB:
#ifdef DFS_HAVE_LIBDEFLATE
		if (!stop_after && len >= 4096 &&
		    inflate_libdeflate(data, len, limit, out) == 0)
			return 0;
#endif
		return inflate_zlib(data, len, limit, stop_after, out, err);
	case DFS_COMP_BZIP2:
		return inflate_bzip2(data, len, limit, stop_after, out, err);
	case DFS_COMP_NONE: {
		size_t n = len;
		if (stop_after && n > stop_after)
			n = stop_after;
		if (limit && n > limit)
			return too_big(err, limit);
		dfs_buf_add(out, data, n);
		if (!dfs_buf_ok(out))
			return dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
		return 0;
	}
	}
	return dfs_error_set(err, DFS_ERR_FORMAT, "invalid compression type %d",
	                     comp_type);
}
