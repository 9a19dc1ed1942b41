/* temps.c - temporary files renamed onto records.csv.
 *
 * The tree's shape is fixed, with one exception: a tool that writes a file
 * whole may create a temporary file beside records.csv and rename it onto
 * records.csv (DuckDB's COPY TO writes tmp_records.csv).  Such a file is a
 * deferred import session (dfs_view_open_deferred) under an inode number
 * of its own (DFS_TEMP_INO set), seen only by the process that created it
 * (lookups of others get ENOENT; listings never show it).  The rename
 * installs its rows; an unlink discards them; either way the name is gone
 * at once, the text written into it when its last handle closes, and the
 * rest when the kernel forgets the inode.  A file whose process is gone
 * (it died before the rename) loses its name and text within a second;
 * one closed and left alone by a living process, after a minute.  Each
 * user has DFS_TEMPS_PER_USER names at most, so that one user's cannot
 * use up every other user's; what their text holds counts with the
 * user's other writes (view.h: import_memory). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fuse/fs.h"

struct dfs_temp {
	fuse_ino_t ino;
	char *dir;               /* the module directory's path in the view */
	char *name;              /* NULL once renamed or unlinked */
	uid_t uid;
	gid_t gid;
	pid_t tgid;              /* the process that created it */
	int pidfd;               /* of tgid: readable once it exited (or -1) */
	dfs_write *w;            /* NULL once its text is gone */
	uint64_t nlookup;
	unsigned handles;
	struct timespec mtime;
	struct dfs_temp *next;
};

void dfs_temps_init(struct dfs_temps *t)
{
	memset(t, 0, sizeof(*t));
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->wake, NULL);
}

static void temp_free(struct dfs_temp *x)
{
	dfs_write_free(x->w);
	if (x->pidfd >= 0)
		close(x->pidfd);
	free(x->dir);
	free(x->name);
	free(x);
}

void dfs_temps_free(struct dfs_temps *t)
{
	pthread_mutex_lock(&t->lock);
	t->stop = true;
	pthread_cond_signal(&t->wake);
	bool reaping = t->reaping;
	pthread_mutex_unlock(&t->lock);
	if (reaping)
		pthread_join(t->reaper, NULL);
	pthread_cond_destroy(&t->wake);
	for (struct dfs_temp *x = t->list, *next; x; x = next) {
		next = x->next;
		temp_free(x);
	}
	t->list = NULL;
	pthread_mutex_destroy(&t->lock);
}

/* The process a thread belongs to (the kernel tells requests by thread). */
static pid_t tgid_of(pid_t pid)
{
	char path[64], line[128];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	pid_t tgid = pid;
	if (!f)
		return pid;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "Tgid:", 5) == 0) {
			tgid = (pid_t)atoi(line + 5);
			break;
		}
	fclose(f);
	return tgid;
}

/* (lock held) */
static struct dfs_temp *by_ino(struct dfs_temps *t, fuse_ino_t ino)
{
	for (struct dfs_temp *x = t->list; x; x = x->next)
		if (x->ino == ino)
			return x;
	return NULL;
}

/* The named temporary file dir/name that the caller's process made. */
static struct dfs_temp *by_name(struct dfs_temps *t, const char *dir,
                                const char *name, const struct fuse_ctx *ctx)
{
	pid_t tgid = 0;
	for (struct dfs_temp *x = t->list; x; x = x->next) {
		if (!x->name || strcmp(x->name, name) || strcmp(x->dir, dir) ||
		    x->uid != ctx->uid)
			continue;
		if (!tgid)
			tgid = tgid_of(ctx->pid);
		if (x->tgid == tgid)
			return x;
	}
	return NULL;
}

/* Its text goes once it has no name and no handle; the rest is
 * unlinked from the list and freed once nothing refers to it (lock
 * held). */
static void maybe_free(struct dfs_temps *t, struct dfs_temp *x)
{
	if (!x->name && !x->handles && x->w) {
		dfs_write_free(x->w);
		x->w = NULL;
	}
	if (x->name || x->nlookup || x->handles)
		return;
	for (struct dfs_temp **p = &t->list; *p; p = &(*p)->next)
		if (*p == x) {
			*p = x->next;
			t->count--;
			break;
		}
	temp_free(x);
}

/* Has the process that made x exited? */
static bool process_gone(const struct dfs_temp *x)
{
	if (x->pidfd >= 0) {
		struct pollfd p = {x->pidfd, POLLIN, 0};
		return poll(&p, 1, 0) > 0;
	}
	return kill(x->tgid, 0) != 0 && errno == ESRCH;
}

/* A temporary file closed whose process is gone (the tool died before
 * the rename), or left alone for a minute, loses its name (lock held).
 * Returns how many closed ones keep theirs. */
#define TEMP_ABANDONED_SEC 60
static size_t reclaim(struct dfs_temps *t)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	size_t left = 0;
	for (struct dfs_temp *x = t->list, *next; x; x = next) {
		next = x->next;
		if (!x->name || x->handles)
			continue;
		if (now.tv_sec - x->mtime.tv_sec > TEMP_ABANDONED_SEC || process_gone(x)) {
			free(x->name);
			x->name = NULL;
			maybe_free(t, x);
		} else {
			left++;
		}
	}
	return left;
}

static void *reaper(void *arg)
{
	struct dfs_temps *t = arg;
	pthread_mutex_lock(&t->lock);
	while (!t->stop) {
		if (reclaim(t) == 0) {
			pthread_cond_wait(&t->wake, &t->lock);
			continue;
		}
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 1;
		pthread_cond_timedwait(&t->wake, &t->lock, &until);
	}
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

/* A temporary file was closed: the reaper watches it (lock held). */
static void watch(struct dfs_temps *t)
{
	if (!t->reaping && !t->stop)
		t->reaping = pthread_create(&t->reaper, NULL, reaper, t) == 0;
	pthread_cond_signal(&t->wake);
}

/* Named temporary files of a user (lock held). */
static size_t named_by(const struct dfs_temps *t, uid_t uid)
{
	size_t n = 0;
	for (const struct dfs_temp *x = t->list; x; x = x->next)
		n += x->name && x->uid == uid;
	return n;
}

static void fill(const struct dfs_temp *x, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = x->ino;
	st->st_mode = S_IFREG | 0600;
	st->st_nlink = x->name ? 1 : 0;
	st->st_uid = x->uid;
	st->st_gid = x->gid;
	st->st_size = x->w ? (off_t)dfs_write_size(x->w) : 0;
	st->st_blksize = 65536;
	st->st_blocks = (st->st_size + 511) / 512;
	st->st_mtim = st->st_atim = st->st_ctim = x->mtime;
}

int dfs_temp_create(struct dfs_temps *t, dfs_view *v, const char *dir,
                    const char *name, const struct fuse_ctx *ctx,
                    const dfs_caller *who, fuse_ino_t *ino, struct stat *st)
{
	if (!dfs_view_temp_allowed(v, dir, name))
		return EPERM;
	pthread_mutex_lock(&t->lock);
	reclaim(t);
	int e = 0;
	if (by_name(t, dir, name, ctx))
		e = EEXIST;
	else if (t->count >= DFS_TEMPS_MAX || named_by(t, ctx->uid) >= DFS_TEMPS_PER_USER)
		e = ENOSPC;
	pthread_mutex_unlock(&t->lock);
	if (e)
		return e;
	struct dfs_temp *x = calloc(1, sizeof(*x));
	if (x)
		x->pidfd = -1;
	dfs_error err = {0};
	if (!x || !(x->dir = strdup(dir)) || !(x->name = strdup(name)) ||
	    !(x->w = dfs_view_open_deferred(v, dir, who, &err))) {
		e = x && x->name && err.code ? dfs_status_errno(err.code) : ENOMEM;
		if (x)
			temp_free(x);
		return e ? e : EIO;
	}
	x->uid = ctx->uid;
	x->gid = ctx->gid;
	x->tgid = tgid_of(ctx->pid);
#ifdef SYS_pidfd_open
	x->pidfd = (int)syscall(SYS_pidfd_open, x->tgid, 0);
#endif
	x->nlookup = 1;
	x->handles = 1;
	clock_gettime(CLOCK_REALTIME, &x->mtime);
	pthread_mutex_lock(&t->lock);
	x->ino = DFS_TEMP_INO | ++t->seq;
	x->next = t->list;
	t->list = x;
	t->count++;
	*ino = x->ino;
	fill(x, st);
	pthread_mutex_unlock(&t->lock);
	return 0;
}

int dfs_temp_lookup(struct dfs_temps *t, const char *dir, const char *name,
                    const struct fuse_ctx *ctx, fuse_ino_t *ino, struct stat *st)
{
	pthread_mutex_lock(&t->lock);
	struct dfs_temp *x = t->list ? by_name(t, dir, name, ctx) : NULL;
	if (x) {
		x->nlookup++;
		*ino = x->ino;
		fill(x, st);
	}
	pthread_mutex_unlock(&t->lock);
	return x ? 0 : ENOENT;
}

int dfs_temp_stat(struct dfs_temps *t, fuse_ino_t ino, struct stat *st)
{
	pthread_mutex_lock(&t->lock);
	struct dfs_temp *x = by_ino(t, ino);
	if (x)
		fill(x, st);
	pthread_mutex_unlock(&t->lock);
	return x ? 0 : ESTALE;
}

int dfs_temp_open(struct dfs_temps *t, fuse_ino_t ino, const struct fuse_ctx *ctx)
{
	pthread_mutex_lock(&t->lock);
	struct dfs_temp *x = by_ino(t, ino);
	int e = !x ? ESTALE : x->uid != ctx->uid ? EACCES : 0;
	if (!e)
		x->handles++;
	pthread_mutex_unlock(&t->lock);
	return e;
}

void dfs_temp_release(struct dfs_temps *t, fuse_ino_t ino)
{
	pthread_mutex_lock(&t->lock);
	struct dfs_temp *x = by_ino(t, ino);
	if (x && x->handles) {
		x->handles--;
		if (!x->handles && x->name)
			watch(t);
		maybe_free(t, x);
	}
	pthread_mutex_unlock(&t->lock);
}

void dfs_temp_forget(struct dfs_temps *t, fuse_ino_t ino, uint64_t n)
{
	pthread_mutex_lock(&t->lock);
	struct dfs_temp *x = by_ino(t, ino);
	if (x) {
		x->nlookup = n < x->nlookup ? x->nlookup - n : 0;
		maybe_free(t, x);
	}
	pthread_mutex_unlock(&t->lock);
}

int dfs_temp_write(struct dfs_temps *t, fuse_ino_t ino, const char *buf,
                   size_t size, uint64_t off, dfs_error *err)
{
	pthread_mutex_lock(&t->lock);
	struct dfs_temp *x = by_ino(t, ino);
	int ret = -1;
	if (!x || !x->w)
		dfs_error_set(err, DFS_ERR_NOENT, "the temporary file is gone");
	else
		ret = dfs_write_data(x->w, buf, size, off, err);
	if (x)
		clock_gettime(CLOCK_REALTIME, &x->mtime);
	pthread_mutex_unlock(&t->lock);
	return ret;
}

int dfs_temp_truncate(struct dfs_temps *t, fuse_ino_t ino, uint64_t size,
                      dfs_error *err)
{
	pthread_mutex_lock(&t->lock);
	struct dfs_temp *x = by_ino(t, ino);
	int ret = -1;
	if (!x || !x->w)
		dfs_error_set(err, DFS_ERR_NOENT, "the temporary file is gone");
	else
		ret = dfs_write_truncate(x->w, size, err);
	pthread_mutex_unlock(&t->lock);
	return ret;
}

long dfs_temp_read(struct dfs_temps *t, fuse_ino_t ino, char *buf, size_t size,
                   uint64_t off)
{
	pthread_mutex_lock(&t->lock);
	struct dfs_temp *x = by_ino(t, ino);
	long n = x ? x->w ? (long)dfs_write_read(x->w, buf, size, off) : 0 : -1;
	pthread_mutex_unlock(&t->lock);
	return n;
}

int dfs_temp_rename(struct dfs_temps *t, const char *dir, const char *name,
                    const char *newdir, const char *newname,
                    const struct fuse_ctx *ctx, dfs_error *err)
{
	pthread_mutex_lock(&t->lock);
	struct dfs_temp *x = t->list ? by_name(t, dir, name, ctx) : NULL;
	int e = 0;
	if (!x) {
		e = -1;   /* not ours */
	} else if (strcmp(dir, newdir) || strcmp(newname, "records.csv")) {
		/* a temporary file goes nowhere but onto its records.csv */
		e = EPERM;
	} else {
		/* the name goes either way: a refused import stays refused */
		free(x->name);
		x->name = NULL;
		if (!x->w)
			e = ENOENT;
		else if (dfs_write_commit(x->w, err))
			e = dfs_status_errno(err->code) ? dfs_status_errno(err->code) : EIO;
		maybe_free(t, x);
	}
	pthread_mutex_unlock(&t->lock);
	return e;
}

int dfs_temp_unlink(struct dfs_temps *t, const char *dir, const char *name,
                    const struct fuse_ctx *ctx)
{
	pthread_mutex_lock(&t->lock);
	struct dfs_temp *x = t->list ? by_name(t, dir, name, ctx) : NULL;
	if (x) {
		free(x->name);
		x->name = NULL;
		maybe_free(t, x);
	}
	pthread_mutex_unlock(&t->lock);
	return x ? 0 : -1;
}
