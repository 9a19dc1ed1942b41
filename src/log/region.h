/* region.h - inflating one compressed region of a log (internal). */
#ifndef DFS_LOG_REGION_H
#define DFS_LOG_REGION_H

#include <stddef.h>
#include <stdint.h>

#include "darshanfs/buf.h"
#include "darshanfs/error.h"

/* Decompress `len` bytes of a region into `out` (appended).  The region
 * may hold several complete streams back to back; each is inflated in turn.
 * At most `limit` bytes are produced (more is an error: protects against
 * decompression bombs); `limit` 0 means no limit.  `stop_after` > 0 stops
 * quietly once that many bytes are out (the job region is read that way). */
int dfs_region_inflate(int comp_type, const unsigned char *data, size_t len,
                       size_t limit, size_t stop_after, dfs_buf *out,
                       dfs_error *err);

/* Receives inflated bytes a window at a time; returns how many of them it
 * used (whole records: the rest is offered again, followed by more), or
 * (size_t)-1 with `err` set to stop.  Called with no data (NULL, 0) it
 * must forget all it was given: the region is read again from the start
 * (when the fast inflater found bad data, zlib reads it to say why). */
typedef size_t (*dfs_region_sink)(void *ctx, const unsigned char *data,
                                  size_t len, dfs_error *err);

/* Reads `len` bytes at offset `off` of a region into buf; 0 or -1 with
 * err set. */
typedef int (*dfs_region_reader)(void *ctx, uint64_t off, void *buf, size_t len,
                                 dfs_error *err);

/* Decompress a region into a window of about 1 MiB (at least 4 `unit`s)
 * handed to `sink` each time it fills and at the end; nothing else is
 * kept.  The compressed bytes are `data` (len bytes), or when `data` is
 * NULL read a few MiB at a time with `read`.  `limit` as for
 * dfs_region_inflate.  *leftover (may be NULL) gets the bytes the sink
 * left unused at the end (a partial last record). */
int dfs_region_stream(int comp_type, const unsigned char *data, size_t len,
                      dfs_region_reader read, void *read_ctx, size_t limit,
                      size_t unit, dfs_region_sink sink, void *ctx,
                      size_t *leftover, dfs_error *err);

#endif
