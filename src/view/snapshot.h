/* snapshot.h - snapshots (dfs_snapshot): the text of a generated file,
 * shared by reference (snapshot.c); a lazy one is read through the
 * operations the file that made it set. */
#ifndef DFS_VIEW_SNAPSHOT_H
#define DFS_VIEW_SNAPSHOT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "darshanfs/buf.h"
#include "darshanfs/view.h"

struct lazy_csv;

/* A snapshot: the text in one or more chunks (never concatenated), or
 * records.csv rendered on demand. */
struct snapshot_chunk {
	char *data;
	size_t len;
	uint64_t off;                 /* of its first byte in the file */
};

struct dfs_snapshot {
	atomic_long refs;
	uint64_t serial;
	uint64_t size;
	size_t nchunks;
	struct snapshot_chunk *chunks;
	struct lazy_csv *lazy;        /* records.csv rendered on demand (lazy.c) */
	const struct snapshot_ops *ops;   /* how to read and free `lazy` */
	/* a rendering a log's cache keeps (dfs_entry_keep_content): the view
	 * it counts in, and whether the cache still holds its reference.
	 * When a reader lets go and only the cache's reference is left, the
	 * view may evict; when a reader drops the last reference, the view
	 * learns what was freed (see cache.c). */
	struct dfs_view *view;
	atomic_bool cached;
	/* the text lies in file fd (unlinked, closed with the snapshot)
	 * instead of chunks: a directory's table too big to hold */
	bool in_file;
	int fd;
};

/* What snapshot.c does to a snapshot made elsewhere (lazy.c sets them
 * with c->lazy): read, pin and free it and count its memory, without
 * calling up into the file that made it. */
struct snapshot_ops {
	long (*read)(dfs_snapshot *c, char *buf, size_t len, uint64_t off,
	             dfs_error *err);
	int (*pin)(dfs_snapshot *c, uint64_t off, size_t len, const char **data,
	           size_t *n, void **pin, dfs_error *err);
	/* (dfs_snapshot_pin_part) */
	int (*pin_part)(dfs_snapshot *c, uint64_t off, size_t len, bool wait,
	                const char **data, size_t *n, void **pin, dfs_error *err);
	void (*unpin)(dfs_snapshot *c, void *pin);
	void (*free)(struct lazy_csv *z);
	/* only the cache holds the snapshot now: what it keeps only for
	 * its readers (the rendered batches) may go */
	void (*idle)(dfs_snapshot *c);
	/* memory the snapshot holds, its rendering buffers included */
	size_t (*memory)(const dfs_snapshot *c);
	/* the bytes of the decoded log it refers to */
	size_t (*log_memory)(const dfs_snapshot *c);
};

/* A stat's size and serial from c, whose reference it takes and gives
 * back: 0, or -1 when c is NULL (its maker failed and set the error). */
int dfs_snapshot_stat(dfs_snapshot *c, dfs_node_stat *st);
/* Bytes a snapshot holds (text, or what a lazy one renders into
 * and indexes; not the log a lazy one refers to). */
size_t dfs_snapshot_memory(const dfs_snapshot *c);
/* The cache's own reference let go (no notice to the view: the
 * eviction that calls it counts what it frees). */
void dfs_snapshot_uncache(dfs_snapshot *c);
dfs_snapshot *dfs_snapshot_from_buf(dfs_view *v, dfs_buf *b, dfs_error *err);
/* Take the text of `n` buffers in order (they are emptied); a big one is
 * numbered by v. */
dfs_snapshot *dfs_snapshot_from_bufs(dfs_view *v, dfs_buf *b, size_t n,
                                     dfs_error *err);
/* The text of `size` bytes in the (unlinked) file fd, which the snapshot
 * closes when it goes (also on failure). */
dfs_snapshot *dfs_snapshot_from_file(dfs_view *v, int fd, uint64_t size, dfs_error *err);
#endif
