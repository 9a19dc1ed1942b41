/* ops.c - FUSE operations: each one translates to a call of the view
 * layer and maps its error code to an errno value.  No logic lives here. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "fuse/fs.h"

struct handle {
	dfs_content *content;    /* snapshot being read */
	dfs_write *write;        /* write session */
};

static struct dfs_fs *fs_of_context(void)
{
	return fuse_get_context()->private_data;
}

static int fail(const dfs_error *err)
{
	int e = dfs_status_errno(err->code);
	return -(e ? e : EIO);
}

static void fill_stat(const dfs_node_stat *ns, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_mode = (ns->is_dir ? S_IFDIR : S_IFREG) | ns->mode;
	st->st_nlink = ns->is_dir ? 2 : 1;
	st->st_uid = ns->uid;
	st->st_gid = ns->gid;
	st->st_size = (off_t)ns->size;
	st->st_blksize = 65536;
	st->st_blocks = (blkcnt_t)((ns->size + 511) / 512);
	st->st_mtim.tv_sec = ns->mtime_sec;
	st->st_mtim.tv_nsec = ns->mtime_nsec;
	st->st_atim = st->st_mtim;
	st->st_ctim.tv_sec = ns->ctime_sec;
	st->st_ctim.tv_nsec = ns->ctime_nsec;
}

static void *op_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	struct dfs_fs *fs = fs_of_context();
	cfg->attr_timeout = fs->attr_timeout;
	cfg->entry_timeout = fs->attr_timeout;
	cfg->negative_timeout = 0;
	cfg->kernel_cache = 0;
	cfg->use_ino = 0;
	if (conn->capable & FUSE_CAP_ATOMIC_O_TRUNC)
		conn->want |= FUSE_CAP_ATOMIC_O_TRUNC;
	/* sizes come from getattr only: listing must not compute them */
	conn->want &= ~FUSE_CAP_READDIRPLUS;
	dfs_view_set_changed(fs->view, dfs_fs_queue_changed, fs);
	dfs_fs_notifier_start(fs);
	return fs;
}

static void op_destroy(void *data)
{
	struct dfs_fs *fs = data;
	dfs_view_set_changed(fs->view, NULL, NULL);
	dfs_fs_notifier_stop(fs);
}

static int op_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	struct dfs_fs *fs = fs_of_context();
	dfs_node_stat ns;
	dfs_error err = {0};
	if (dfs_view_stat(fs->view, path, &ns, &err))
		return fail(&err);
	/* an open handle reports the size of its own snapshot */
	if (fi && fi->fh) {
		struct handle *h = (struct handle *)(uintptr_t)fi->fh;
		if (h->content)
			ns.size = dfs_content_size(h->content);
	}
	fill_stat(&ns, st);
	return 0;
}

struct fill_ctx {
	void *buf;
	fuse_fill_dir_t filler;
};

static int fill_one(void *ctx, const char *name, const dfs_node_stat *ns)
{
	struct fill_ctx *fc = ctx;
	struct stat st;
	fill_stat(ns, &st);
	return fc->filler(fc->buf, name, &st, 0, 0);
}

static int op_readdir(const char *path, void *buf, fuse_fill_dir_t filler,
                      off_t offset, struct fuse_file_info *fi,
                      enum fuse_readdir_flags flags)
{
	(void)offset;
	(void)fi;
	(void)flags;
	struct dfs_fs *fs = fs_of_context();
	filler(buf, ".", NULL, 0, 0);
	filler(buf, "..", NULL, 0, 0);
	struct fill_ctx fc = {buf, filler};
	dfs_error err = {0};
	if (dfs_view_readdir(fs->view, path, fill_one, &fc, &err))
		return fail(&err);
	return 0;
}

static uint64_t path_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* Did the last open of `path` get this snapshot?  Remembers it. */
static bool same_snapshot(struct dfs_fs *fs, const char *path, dfs_content *c)
{
	uint64_t h = path_hash(path), serial = dfs_content_serial(c);
	size_t slot = h % (sizeof(fs->opened) / sizeof(fs->opened[0]));
	pthread_mutex_lock(&fs->slock);
	bool same = fs->opened[slot].hash == h && fs->opened[slot].serial == serial;
	fs->opened[slot].hash = h;
	fs->opened[slot].serial = serial;
	pthread_mutex_unlock(&fs->slock);
	return same;
}

static int op_open(const char *path, struct fuse_file_info *fi)
{
	struct dfs_fs *fs = fs_of_context();
	struct handle *h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	dfs_error err = {0};
	int acc = fi->flags & O_ACCMODE;
	if (acc != O_RDONLY) {
		if (!dfs_view_is_writable(fs->view, path)) {
			free(h);
			return -EACCES;
		}
		h->write = dfs_view_open_write(fs->view, path, fi->flags & O_TRUNC, &err);
		if (!h->write) {
			free(h);
			return fail(&err);
		}
		fi->direct_io = 1;
	}
	if (acc != O_WRONLY) {
		h->content = dfs_view_open_file(fs->view, path, &err);
		if (!h->content) {
			dfs_write_free(h->write);
			free(h);
			return fail(&err);
		}
	}
	/* generated content changes with the filters: keep the pages cached
	 * by an earlier open only if it read this very snapshot */
	fi->keep_cache = h->content && !h->write && same_snapshot(fs, path, h->content);
	fi->fh = (uint64_t)(uintptr_t)h;
	return 0;
}

static int op_read(const char *path, char *buf, size_t size, off_t off,
                   struct fuse_file_info *fi)
{
	(void)path;
	struct handle *h = (struct handle *)(uintptr_t)fi->fh;
	if (!h->content)
		return -EBADF;
	dfs_error err = {0};
	long n = dfs_content_read(h->content, buf, size, (uint64_t)off, &err);
	return n < 0 ? fail(&err) : (int)n;
}

static int op_write(const char *path, const char *buf, size_t size, off_t off,
                    struct fuse_file_info *fi)
{
	(void)path;
	struct handle *h = (struct handle *)(uintptr_t)fi->fh;
	if (!h->write)
		return -EBADF;
	dfs_error err = {0};
	if (dfs_write_data(h->write, buf, size, (uint64_t)off, &err))
		return fail(&err);
	return (int)size;
}

static int op_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	struct dfs_fs *fs = fs_of_context();
	dfs_error err = {0};
	if (size < 0)
		return -EINVAL;
	if (fi && fi->fh) {
		struct handle *h = (struct handle *)(uintptr_t)fi->fh;
		if (h->write)
			return dfs_write_truncate(h->write, (uint64_t)size, &err) ? fail(&err) : 0;
	}
	if (!dfs_view_is_writable(fs->view, path))
		return -EACCES;
	return dfs_view_truncate(fs->view, path, (uint64_t)size, &err) ? fail(&err) : 0;
}

static int op_flush(const char *path, struct fuse_file_info *fi)
{
	(void)path;
	struct handle *h = (struct handle *)(uintptr_t)fi->fh;
	dfs_error err = {0};
	if (h->write && dfs_write_flush(h->write, &err))
		return fail(&err);
	return 0;
}

static int op_release(const char *path, struct fuse_file_info *fi)
{
	(void)path;
	struct handle *h = (struct handle *)(uintptr_t)fi->fh;
	if (h->write) {
		dfs_error err = {0};
		dfs_write_flush(h->write, &err); /* nobody hears an error here */
		dfs_write_free(h->write);
	}
	dfs_content_release(h->content);
	free(h);
	return 0;
}

static int op_statfs(const char *path, struct statvfs *st)
{
	(void)path;
	memset(st, 0, sizeof(*st));
	st->f_bsize = 4096;
	st->f_frsize = 4096;
	st->f_namemax = 255;
	return 0;
}

static int op_utimens(const char *path, const struct timespec tv[2],
                      struct fuse_file_info *fi)
{
	/* `touch filter` is harmless: accept it on writable files */
	(void)tv;
	(void)fi;
	struct dfs_fs *fs = fs_of_context();
	return dfs_view_is_writable(fs->view, path) ? 0 : -EACCES;
}

/* Modes and owners mirror the source logs and cannot change; copying
 * tools (cp -p, shutil.copy) set them after writing a records.csv, so
 * accept and ignore that on writable files. */
static int op_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	(void)mode;
	(void)fi;
	struct dfs_fs *fs = fs_of_context();
	return dfs_view_is_writable(fs->view, path) ? 0 : -EPERM;
}

static int op_chown(const char *path, uid_t uid, gid_t gid,
                    struct fuse_file_info *fi)
{
	(void)uid;
	(void)gid;
	(void)fi;
	struct dfs_fs *fs = fs_of_context();
	return dfs_view_is_writable(fs->view, path) ? 0 : -EPERM;
}

#define XATTR_DECODES "user.darshanfs.decodes"

static int op_getxattr(const char *path, const char *name, char *value,
                       size_t size)
{
	struct dfs_fs *fs = fs_of_context();
	if (strcmp(path, "/") != 0 || strcmp(name, XATTR_DECODES) != 0)
		return -ENODATA;
	char text[32];
	int n = snprintf(text, sizeof(text), "%" PRIu64,
	                 dfs_view_decode_count(fs->view));
	if (size == 0)
		return n;
	if ((size_t)n > size)
		return -ERANGE;
	memcpy(value, text, (size_t)n);
	return n;
}

static int op_listxattr(const char *path, char *list, size_t size)
{
	if (strcmp(path, "/") != 0)
		return 0;
	size_t n = sizeof(XATTR_DECODES);
	if (size == 0)
		return (int)n;
	if (n > size)
		return -ERANGE;
	memcpy(list, XATTR_DECODES, n);
	return (int)n;
}

const struct fuse_operations dfs_fuse_ops = {
	.init = op_init,
	.destroy = op_destroy,
	.getattr = op_getattr,
	.readdir = op_readdir,
	.open = op_open,
	.read = op_read,
	.write = op_write,
	.truncate = op_truncate,
	.flush = op_flush,
	.release = op_release,
	.statfs = op_statfs,
	.utimens = op_utimens,
	.chmod = op_chmod,
	.chown = op_chown,
	.getxattr = op_getxattr,
	.listxattr = op_listxattr,
};
