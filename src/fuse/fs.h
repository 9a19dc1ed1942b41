/* fs.h - the FUSE front end: shared state of main.c, ops.c and
 * notify.c.  Nothing here is visible to the core library. */
#ifndef DFS_FUSE_FS_H
#define DFS_FUSE_FS_H

#define FUSE_USE_VERSION 312
#include <fuse.h>
#include <pthread.h>
#include <stdbool.h>

#include "darshanfs/view.h"

struct dfs_fs {
	dfs_view *view;
	struct fuse *fuse;
	double attr_timeout;
	/* paths whose cached pages the kernel must drop, handled by a thread
	 * of its own (never inside a request) */
	pthread_t notifier;
	bool notifier_running;
	pthread_mutex_t qlock;
	pthread_cond_t qcond;
	struct change { char *path; bool log_dir; } *queue;
	size_t qlen, qcap;
	bool stopping;
	/* the snapshot each path last opened (by hash; collisions only cost
	 * a cache drop) */
	pthread_mutex_t slock;
	struct { uint64_t hash, serial; } opened[4096];
};

extern const struct fuse_operations dfs_fuse_ops;

void dfs_fs_queue_changed(void *ctx, const char *path, bool log_dir);
int dfs_fs_notifier_start(struct dfs_fs *fs);
void dfs_fs_notifier_stop(struct dfs_fs *fs);

#endif
