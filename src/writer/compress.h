/* compress.h - compressing one log region into one zlib or bzip2 stream
 * (internal to the writer). */
#ifndef DFS_WRITER_COMPRESS_H
#define DFS_WRITER_COMPRESS_H

#include <stddef.h>
#include <stdint.h>

#include "darshanfs/error.h"

/* Where compressed bytes go, in order. */
typedef struct dfs_sink {
	int (*write)(void *ctx, const void *data, size_t len, dfs_error *err);
	void *ctx;
} dfs_sink;

typedef struct dfs_compressor dfs_compressor;

/* `level` 1..9 or -1 (zlib default); `threads` >= 1. */
dfs_compressor *dfs_compressor_new(int comp_type, int level, int threads,
                                   const dfs_sink *sink, dfs_error *err);
void dfs_compressor_free(dfs_compressor *c);

/* One region: begin, any number of writes, end (which reports the number
 * of compressed bytes the region took). */
int dfs_compressor_begin(dfs_compressor *c, dfs_error *err);
int dfs_compressor_write(dfs_compressor *c, const void *data, size_t len,
                         dfs_error *err);
int dfs_compressor_end(dfs_compressor *c, uint64_t *out_len, dfs_error *err);

#endif
