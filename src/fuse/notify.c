/* notify.c - telling the kernel that generated files changed.
 *
 * After an accepted filter write the view reports the log directory whose
 * files changed.  The kernel may hold pages and attributes of those files;
 * a thread of its own asks it to drop them (never from inside a request,
 * where the kernel may be waiting on us).  Failures are ignored: a file
 * the kernel never looked up has nothing cached.  Correctness does not
 * depend on this: every open drops cached pages and attributes expire
 * after attr_timeout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuse/fs.h"

void dfs_fs_queue_changed(void *ctx, const char *path, bool log_dir)
{
	struct dfs_fs *fs = ctx;
	pthread_mutex_lock(&fs->qlock);
	if (fs->qlen == fs->qcap) {
		size_t cap = fs->qcap ? fs->qcap * 2 : 16;
		struct change *q = realloc(fs->queue, cap * sizeof(*q));
		if (!q) {
			pthread_mutex_unlock(&fs->qlock);
			return;
		}
		fs->queue = q;
		fs->qcap = cap;
	}
	char *copy = strdup(path);
	if (copy) {
		fs->queue[fs->qlen].path = copy;
		fs->queue[fs->qlen].log_dir = log_dir;
		fs->qlen++;
	}
	pthread_cond_signal(&fs->qcond);
	pthread_mutex_unlock(&fs->qlock);
}

struct walk {
	struct dfs_fs *fs;
	const char *dir;
	int depth;
};

static int invalidate_entry(void *ctx, const char *name, const dfs_node_stat *st)
{
	struct walk *w = ctx;
	size_t n = strlen(w->dir) + strlen(name) + 2;
	char *path = malloc(n);
	if (!path)
		return 0;
	snprintf(path, n, "%s/%s", strcmp(w->dir, "/") ? w->dir : "", name);
	if (st->is_dir && w->depth == 0) {
		struct walk sub = {w->fs, path, 1};
		dfs_error err;
		dfs_view_readdir(w->fs->view, path, invalidate_entry, &sub, &err);
	} else if (!st->is_dir) {
		fuse_invalidate_path(w->fs->fuse, path);
	}
	free(path);
	return 0;
}

static void *notifier(void *arg)
{
	struct dfs_fs *fs = arg;
	pthread_mutex_lock(&fs->qlock);
	while (!fs->stopping) {
		if (fs->qlen == 0) {
			pthread_cond_wait(&fs->qcond, &fs->qlock);
			continue;
		}
		struct change c = fs->queue[--fs->qlen];
		pthread_mutex_unlock(&fs->qlock);
		if (c.log_dir) {
			struct walk w = {fs, c.path, 0};
			dfs_error err;
			dfs_view_readdir(fs->view, c.path, invalidate_entry, &w, &err);
		} else {
			fuse_invalidate_path(fs->fuse, c.path);
		}
		free(c.path);
		pthread_mutex_lock(&fs->qlock);
	}
	pthread_mutex_unlock(&fs->qlock);
	return NULL;
}

int dfs_fs_notifier_start(struct dfs_fs *fs)
{
	if (fs->notifier_running)
		return 0;
	if (pthread_create(&fs->notifier, NULL, notifier, fs) != 0)
		return -1;
	fs->notifier_running = true;
	return 0;
}

void dfs_fs_notifier_stop(struct dfs_fs *fs)
{
	if (!fs->notifier_running)
		return;
	pthread_mutex_lock(&fs->qlock);
	fs->stopping = true;
	pthread_cond_signal(&fs->qcond);
	pthread_mutex_unlock(&fs->qlock);
	pthread_join(fs->notifier, NULL);
	fs->notifier_running = false;
	for (size_t i = 0; i < fs->qlen; i++)
		free(fs->queue[i].path);
	free(fs->queue);
	fs->queue = NULL;
	fs->qlen = fs->qcap = 0;
}
