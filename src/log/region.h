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

#endif
