/* ops.c - FUSE low-level operations.  Each one maps an inode to its path
 * in the view, calls the view, and maps the view's error code to an errno
 * value; the only state kept here is the inode table (see fs.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/uio.h>

#include "darshanfs.h"
#include "fuse/fs.h"
#include "view/probe.h"

#define XATTR_DECODES "user.darshanfs.decodes"
#define XATTR_CACHED "user.darshanfs.cached"   /* bytes counted against cache_size */
/* the filters in force on a file of a selection, for the caller */
#define XATTR_SELECTION "user.darshanfs.selection"

struct handle {
	dfs_snapshot *content;    /* the snapshot being read */
	dfs_write *write;        /* write session */
	fuse_ino_t temp;         /* or a temporary file's (temps.c) */
	struct handle *prev, *next;   /* fs->handles */
};

/* Closes the write session (which applies what is pending; errors go to
 * filter.error) and lets go of the snapshot. */
static void handle_free(struct dfs_fs *fs, struct handle *h)
{
	if (h->temp)
		dfs_temp_release(&fs->temps, h->temp);
	dfs_write_free(h->write);
	dfs_snapshot_release(h->content);
	free(h);
}

static struct dfs_fs *fs_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

static void handle_link(struct dfs_fs *fs, struct handle *h)
{
	pthread_mutex_lock(&fs->handles_lock);
	h->prev = NULL;
	h->next = fs->handles;
	if (fs->handles)
		fs->handles->prev = h;
	fs->handles = h;
	pthread_mutex_unlock(&fs->handles_lock);
}

static void handle_unlink(struct dfs_fs *fs, struct handle *h)
{
	pthread_mutex_lock(&fs->handles_lock);
	if (h->prev)
		h->prev->next = h->next;
	else if (fs->handles == h)
		fs->handles = h->next;
	if (h->next)
		h->next->prev = h->prev;
	h->prev = h->next = NULL;
	pthread_mutex_unlock(&fs->handles_lock);
}

void dfs_fuse_close_handles(struct dfs_fs *fs)
{
	pthread_mutex_lock(&fs->handles_lock);
	struct handle *h = fs->handles;
	fs->handles = NULL;
	pthread_mutex_unlock(&fs->handles_lock);
	while (h) {
		struct handle *next = h->next;
		handle_free(fs, h);
		h = next;
	}
}

/* The errno value of a view error; under -d its message goes to the
 * debug output too (the kernel only passes the number on). */
static int errno_of(const struct dfs_fs *fs, const dfs_error *err)
{
	if (fs->debug && err->msg[0])
		fuse_log(FUSE_LOG_DEBUG, "   darshanfs: %s\n", err->msg);
	int e = dfs_status_errno(err->code);
	return e ? e : EIO;
}

static void fill_stat(const dfs_node_stat *ns, fuse_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
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

static char *join(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	char *p = malloc(a + b + 2);
	if (!p)
		return NULL;
	memcpy(p, dir, a);
	if (a == 0 || dir[a - 1] != '/')
		p[a++] = '/';
	memcpy(p + a, name, b + 1);
	return p;
}

static void op_init(void *data, struct fuse_conn_info *conn)
{
	if (conn->capable & FUSE_CAP_ATOMIC_O_TRUNC)
		conn->want |= FUSE_CAP_ATOMIC_O_TRUNC;
	/* sizes come from lookups only: listing must not compute them */
	conn->want &= ~FUSE_CAP_READDIRPLUS;
	conn->want &= ~FUSE_CAP_READDIRPLUS_AUTO;
	struct dfs_fs *fs = data;
	/* (not with a state per user: a directory whose stat says
	 * per_reader lists the reader's own selection, which the kernel's
	 * one listing per directory cannot) */
	if (!fs->per_user && (conn->capable & FUSE_CAP_NO_OPENDIR_SUPPORT)) {
		conn->want |= FUSE_CAP_NO_OPENDIR_SUPPORT;
		fs->no_opendir = true;
	}
	/* a table kept in a file goes from the page cache to the kernel's
	 * request without a copy through the daemon (op_read) */
	if (conn->capable & FUSE_CAP_SPLICE_WRITE)
		conn->want |= FUSE_CAP_SPLICE_WRITE;
	if (conn->capable & FUSE_CAP_SPLICE_MOVE)
		conn->want |= FUSE_CAP_SPLICE_MOVE;
}

/* ---- names and attributes ------------------------------------------------------ */

/* Send the entry of inode n (referenced for this lookup); the reference
 * goes again when the reply cannot be sent.  0 once sent. */
static int send_entry(fuse_req_t req, struct dfs_fs *fs, const struct dfs_inode *n,
                      const dfs_node_stat *st, double entry_timeout,
                      double attr_timeout)
{
	struct fuse_entry_param e;
	memset(&e, 0, sizeof(e));
	e.ino = n->ino;
	fill_stat(st, n->ino, &e.attr);
	e.entry_timeout = entry_timeout;
	e.attr_timeout = attr_timeout;
	if (fuse_reply_entry(req, &e) != 0) {
		dfs_inode_forget(&fs->inodes, e.ino, 1);
		return -1;
	}
	return 0;
}

static void reply_entry(fuse_req_t req, struct dfs_fs *fs, const char *path,
                        const dfs_node_stat *st)
{
	struct dfs_inode *n = dfs_inode_ref(&fs->inodes, path, st, fuse_req_ctx(req)->pid);
	if (!n) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	/* a file name may name another snapshot at any moment: never cache
	 * it; its inode's attributes never change */
	send_entry(req, fs, n, st, st->is_dir ? fs->dir_timeout : 0,
	           st->is_dir ? fs->dir_timeout : fs->file_timeout);
}

/* The caller of a request: its ids, and its supplementary groups, read
 * (from /proc) only when an answer depends on them.  The view judges
 * what it may reach on disk (its directories' ACLs, the links it goes
 * through, the logs jobs.csv sums up) and, on a shared mount, whose
 * filters it reads and writes.  NULL for root on a single-user mount. */
struct caller {
	dfs_caller who;
	fuse_req_t req;
	bool loaded;
	size_t ngroups;
	gid_t groups[64];
};

static size_t load_groups(void *ctx, const gid_t **groups)
{
	struct caller *c = ctx;
	if (!c->loaded) {
		/* (beyond 64 groups the rest are not counted: less is
		 * allowed) */
		int n = fuse_req_getgroups(c->req, 64, c->groups);
		c->ngroups = n > 0 ? (size_t)(n < 64 ? n : 64) : 0;
		c->loaded = true;
	}
	*groups = c->groups;
	return c->ngroups;
}

static const dfs_caller *caller(fuse_req_t req, struct caller *c)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	memset(&c->who, 0, sizeof(c->who));
	c->who.uid = ctx->uid;
	c->who.gid = ctx->gid;
	c->who.load_groups = load_groups;
	c->who.groups_ctx = c;
	c->req = req;
	c->loaded = false;
	if (ctx->uid == 0 && !fs_of(req)->per_user)
		return NULL;
	return &c->who;
}

/* (the same whatever the path: the view asks what it needs) */
static const dfs_caller *caller_of(fuse_req_t req, const char *path,
                                   struct caller *c)
{
	(void)path;
	return caller(req, c);
}

/* The entry of a file with the snapshot an open right now gets, kept for
 * the open that follows (see fs.h). */
static void reply_pinned(fuse_req_t req, struct dfs_fs *fs, const char *path,
                         dfs_node_stat *st)
{
	dfs_error err = {0};
	struct caller cl;
	dfs_snapshot *c = dfs_view_open_file(fs->view, path, caller_of(req, path, &cl),
	                                     &err);
	if (!c) {
		fuse_reply_err(req, errno_of(fs, &err));
		return;
	}
	st->size = dfs_snapshot_size(c);
	st->serial = dfs_snapshot_serial(c);
	struct dfs_inode *n = dfs_inode_ref(&fs->inodes, path, st, fuse_req_ctx(req)->pid);
	if (!n) {
		dfs_snapshot_release(c);
		fuse_reply_err(req, ENOMEM);
		return;
	}
	fuse_ino_t ino = n->ino;
	/* (the mark stays: the kernel may look up twice before it opens) */
	dfs_inode_pin(&fs->inodes, ino, c);
	send_entry(req, fs, n, st, 0, fs->file_timeout);
}

/* A lookup answered before its file's size is known: the kernel gets the
 * inode at once, with attributes it may not keep, and the file's text
 * while the log decodes (early.c); the size comes with the first getattr,
 * which waits for the decoding (see dfs_view_prefill). */
struct early {
	fuse_req_t req;
	const char *path;
	bool replied;
	uint64_t serial;
	struct dfs_early text;    /* text.ino 0 when the reply did not go out */
};

static int early_reply(void *ctx, const dfs_node_stat *st)
{
	struct early *x = ctx;
	struct dfs_fs *fs = x->text.fs;
	struct dfs_inode *n = dfs_inode_ref_pending(&fs->inodes, x->path, st,
	                                            fuse_req_ctx(x->req)->pid);
	if (!n)
		return 1;   /* known with its size (or no memory): the plain way */
	x->replied = true;
	/* (n may go with a forget as soon as the reply is out) */
	fuse_ino_t ino = n->ino;
	/* size 0 for now: neither the name nor the attributes may be kept */
	if (send_entry(x->req, fs, n, st, 0, 0) != 0)
		return 1;
	x->text.ino = ino;
	x->serial = st->serial;
	return 0;
}

static int early_store(void *ctx, uint64_t off, const char *data, size_t len)
{
	return dfs_early_store(&((struct early *)ctx)->text, off, data, len);
}

/* Reply with a temporary file's entry: names and attributes are never
 * kept (it must vanish at its rename or unlink, and its size moves). */
static void reply_temp(fuse_req_t req, fuse_ino_t ino, const struct stat *st)
{
	struct fuse_entry_param e;
	memset(&e, 0, sizeof(e));
	e.ino = ino;
	e.attr = *st;
	if (fuse_reply_entry(req, &e) != 0)
		dfs_temp_forget(&fs_of(req)->temps, ino, 1);
}

/* Is dir/name the caller's temporary file?  Then the reply went. */
static bool lookup_temp(fuse_req_t req, struct dfs_fs *fs, const char *dir,
                        const char *name)
{
	fuse_ino_t ino;
	struct stat st;
	if (dfs_temp_lookup(&fs->temps, dir, name, fuse_req_ctx(req), &ino, &st))
		return false;
	reply_temp(req, ino, &st);
	return true;
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct dfs_fs *fs = fs_of(req);
	char *dir = dfs_inode_path(&fs->inodes, parent, NULL, NULL, NULL);
	if (dir && lookup_temp(req, fs, dir, name)) {
		free(dir);
		return;
	}
	char *path = dir ? join(dir, name) : NULL;
	free(dir);
	if (!path) {
		fuse_reply_err(req, dir ? ENOMEM : ESTALE);
		return;
	}
	dfs_node_stat st;
	dfs_error err = {0};
	struct early x = {.req = req, .path = path, .text = {.fs = fs}};
	dfs_view_prefill pf = {early_reply, early_store, &x};
	/* the lookup after an open found its file changed: it takes the
	 * snapshot it tells of along (see fs.h) */
	bool pin = dfs_inode_marked(&fs->inodes, path, DFS_MARK_PIN, fuse_req_ctx(req)->pid);
	struct caller cl;
	int r = dfs_view_stat(fs->view, path, caller_of(req, path, &cl), &st,
	                      fs->se && fs->prefill && !pin ? &pf : NULL, &err);
	if (!x.replied) {
		if (r)
			fuse_reply_err(req, errno_of(fs, &err));
		else if (pin && !st.is_dir)
			reply_pinned(req, fs, path, &st);
		else
			reply_entry(req, fs, path, &st);
	} else if (x.text.ino) {
		bool same = r == 0 && st.serial == x.serial;
		dfs_inode_settle(&fs->inodes, x.text.ino, same ? &st : NULL);
		/* text of a snapshot nobody can open any more */
		if (!same && x.text.stored)
			fuse_lowlevel_notify_inval_inode(fs->se, x.text.ino, 0, 0);
	}
	dfs_early_finish(&x.text, x.text.ino && r == 0 && st.serial == x.serial);
	free(path);
}

static void forget(struct dfs_fs *fs, fuse_ino_t ino, uint64_t nlookup)
{
	if (dfs_is_temp_ino(ino)) {
		dfs_temp_forget(&fs->temps, ino, nlookup);
		return;
	}
	dfs_early_forget(fs, ino);
	dfs_inode_forget(&fs->inodes, ino, nlookup);
}

static void op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	forget(fs_of(req), ino, nlookup);
	fuse_reply_none(req);
}

static void op_forget_multi(fuse_req_t req, size_t count,
                            struct fuse_forget_data *forgets)
{
	for (size_t i = 0; i < count; i++)
		forget(fs_of(req), forgets[i].ino, forgets[i].nlookup);
	fuse_reply_none(req);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct dfs_fs *fs = fs_of(req);
	if (dfs_is_temp_ino(ino)) {
		struct stat s;
		int e = dfs_temp_stat(&fs->temps, ino, &s);
		if (e)
			fuse_reply_err(req, e);
		else
			fuse_reply_attr(req, &s, 0);
		return;
	}
	dfs_early_arrived(fs, ino);
	dfs_node_stat st;
	uint64_t serial;
	bool pending;
	char *path = dfs_inode_path(&fs->inodes, ino, &serial, &st, &pending);
	if (!path) {
		fuse_reply_err(req, ESTALE);
		return;
	}
	struct handle *h = fi && fi->fh ? (struct handle *)(uintptr_t)fi->fh : NULL;
	if (h && h->content) {
		st.size = dfs_snapshot_size(h->content);
		pending = false;
	}
	dfs_error err = {0};
	struct caller cl;
	/* a pending file's size: waits while its log decodes */
	if ((ino == FUSE_ROOT_ID || st.is_dir || pending) &&
	    dfs_view_stat(fs->view, path, caller_of(req, path, &cl), &st, NULL,
	                  &err)) {
		free(path);
		fuse_reply_err(req, errno_of(fs, &err));
		return;
	}
	free(path);
	if (pending) {
		if (st.serial != serial) {
			fuse_reply_err(req, ESTALE);   /* changed meanwhile */
			return;
		}
		dfs_inode_settle(&fs->inodes, ino, &st);
	}
	struct stat s;
	fill_stat(&st, ino, &s);
	fuse_reply_attr(req, &s, st.is_dir ? fs->dir_timeout : fs->file_timeout);
}

static bool same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* Would a setattr change a mode, an owner or a time?  They mirror the
 * source logs (or tell when a filter changed) and cannot be set, as on a
 * read-only file system: such a request is refused with EPERM, unless it
 * sets what is there already (`cp -p` of a file with the same mode).  A
 * truncation moves the times itself, so times that come with a size are
 * the truncation's. */
static bool changes_attributes(const struct stat *now, const struct stat *attr,
                               int to_set)
{
	if ((to_set & FUSE_SET_ATTR_MODE) &&
	    (attr->st_mode & 07777) != (now->st_mode & 07777))
		return true;
	if ((to_set & FUSE_SET_ATTR_UID) && attr->st_uid != now->st_uid)
		return true;
	if ((to_set & FUSE_SET_ATTR_GID) && attr->st_gid != now->st_gid)
		return true;
	if (to_set & FUSE_SET_ATTR_SIZE)
		return false;
	if (to_set & (FUSE_SET_ATTR_ATIME_NOW | FUSE_SET_ATTR_MTIME_NOW))
		return true;
	return ((to_set & FUSE_SET_ATTR_ATIME) && !same_time(&attr->st_atim, &now->st_atim)) ||
	       ((to_set & FUSE_SET_ATTR_MTIME) && !same_time(&attr->st_mtim, &now->st_mtim));
}

/* A temporary file takes a new size; modes, owners and times are
 * refused as for records.csv. */
static void setattr_temp(fuse_req_t req, struct dfs_fs *fs, fuse_ino_t ino,
                         const struct stat *attr, int to_set)
{
	dfs_error err = {0};
	struct stat s;
	int e = dfs_temp_stat(&fs->temps, ino, &s);
	if (!e && changes_attributes(&s, attr, to_set))
		e = EPERM;
	if (e) {
		fuse_reply_err(req, e);
		return;
	}
	if ((to_set & FUSE_SET_ATTR_SIZE) &&
	    dfs_temp_truncate(&fs->temps, ino, (uint64_t)attr->st_size, &err)) {
		fuse_reply_err(req, errno_of(fs, &err));
		return;
	}
	e = dfs_temp_stat(&fs->temps, ino, &s);
	if (e)
		fuse_reply_err(req, e);
	else
		fuse_reply_attr(req, &s, 0);
}

static void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr,
                       int to_set, struct fuse_file_info *fi)
{
	struct dfs_fs *fs = fs_of(req);
	if (dfs_is_temp_ino(ino)) {
		setattr_temp(req, fs, ino, attr, to_set);
		return;
	}
	dfs_node_stat st;
	char *path = dfs_inode_path(&fs->inodes, ino, NULL, &st, NULL);
	if (!path) {
		fuse_reply_err(req, ESTALE);
		return;
	}
	bool writable = dfs_view_is_writable(fs->view, path);
	int e = 0;
	dfs_error err = {0};
	struct stat now;
	fill_stat(&st, ino, &now);
	if (!writable || changes_attributes(&now, attr, to_set)) {
		/* modes, owners and times mirror the source logs */
		e = EPERM;
	} else if (to_set & FUSE_SET_ATTR_SIZE) {
		struct handle *h = fi && fi->fh ? (struct handle *)(uintptr_t)fi->fh : NULL;
		struct caller cl;
		uint64_t size = (uint64_t)attr->st_size;
		int ret = h && h->write
		                  ? dfs_write_truncate(h->write, size, &err)
		                  : dfs_view_truncate(fs->view, path,
		                                      caller_of(req, path, &cl), size, &err);
		/* the readers' inode keeps its snapshot's size: the change
		 * makes a new snapshot, which the next lookup finds */
		if (ret)
			e = errno_of(fs, &err);
		else if (dfs_inode_is_writer(&fs->inodes, ino))
			st.size = (uint64_t)attr->st_size;
	}
	free(path);
	if (e) {
		fuse_reply_err(req, e);
		return;
	}
	struct stat s;
	fill_stat(&st, ino, &s);
	fuse_reply_attr(req, &s, 0);
}

/* ---- directories ---------------------------------------------------------------- */

static int list_one(void *ctx, const char *name, const dfs_node_stat *st)
{
	struct dfs_dirlist *dl = ctx;
	if (dl->n == dl->cap) {
		size_t cap = dl->cap ? dl->cap * 2 : 32;
		struct dfs_dirent *it = realloc(dl->items, cap * sizeof(*it));
		if (!it)
			return 1;
		dl->items = it;
		dl->cap = cap;
	}
	char *copy = strdup(name);
	if (!copy)
		return 1;
	dl->items[dl->n].name = copy;
	dl->items[dl->n].type = st->is_dir ? S_IFDIR : S_IFREG;
	dl->n++;
	return 0;
}

/* The entries of directory inode `ino` as `who` sees them, with one
 * reference; NULL with *e set when it cannot be listed. */
static struct dfs_dirlist *list_dir(struct dfs_fs *fs, fuse_ino_t ino,
                                    const dfs_caller *who, int *e)
{
	char *path = dfs_inode_path(&fs->inodes, ino, NULL, NULL, NULL);
	struct dfs_dirlist *dl = calloc(1, sizeof(*dl));
	if (!path || !dl) {
		free(path);
		free(dl);
		*e = path ? ENOMEM : ESTALE;
		return NULL;
	}
	dl->refs = 1;
	dfs_error err = {0};
	list_one(dl, ".", &(dfs_node_stat){.is_dir = true});
	list_one(dl, "..", &(dfs_node_stat){.is_dir = true});
	int ret = dfs_view_readdir(fs->view, path, who, list_one, dl, &err);
	dl->dir_hash = dfs_fnv1a(0, path, strlen(path));
	free(path);
	if (ret) {
		dfs_dirlist_put(&fs->inodes, dl);
		*e = errno_of(fs, &err);
		return NULL;
	}
	return dl;
}

/* With the kernel's consent directories are not opened here: the kernel
 * then keeps each listing it read whole, and uses it again until the
 * directory's modification time changes (checked once its attributes
 * are older than attr_timeout).  A listing costs a lookup, not an
 * opendir, a readdir or two and a releasedir. */
static void op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct dfs_fs *fs = fs_of(req);
	if (fs->no_opendir) {
		fuse_reply_err(req, ENOSYS);
		return;
	}
	int e;
	struct caller cl;
	const dfs_caller *who = NULL;
	/* the attributes the lookup kept say whether the listing is the
	 * reader's own (per_reader: the same for a path, whoever looked it
	 * up, so the lookup's stat serves every caller) */
	dfs_node_stat st = {0};
	if (fs->per_user) {
		char *path = dfs_inode_path(&fs->inodes, ino, NULL, &st, NULL);
		if (!path) {
			fuse_reply_err(req, ESTALE);
			return;
		}
		who = caller_of(req, path, &cl);
		free(path);
	}
	struct dfs_dirlist *dl = list_dir(fs, ino, who, &e);
	if (!dl) {
		fuse_reply_err(req, e);
		return;
	}
	/* on per_user mounts (which take opendir, see op_init) the kernel
	 * keeps the listing of every directory, as it does without opendir,
	 * but of those whose listing depends on the reader */
	if (fs->per_user) {
		fi->cache_readdir = !st.per_reader;
		fi->keep_cache = !st.per_reader;
	}
	fi->fh = (uint64_t)(uintptr_t)dl;
	if (fuse_reply_open(req, fi) != 0)
		dfs_dirlist_put(&fs->inodes, dl);
}

static void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                       struct fuse_file_info *fi)
{
	struct dfs_fs *fs = fs_of(req);
	struct dfs_dirlist *dl = (struct dfs_dirlist *)(uintptr_t)fi->fh;
	bool shared = dl == NULL;
	if (shared) {
		/* not opened: listed afresh from the start, then read on in
		 * pieces from the inode's listing */
		dl = off ? dfs_inode_listing(&fs->inodes, ino) : NULL;
		if (!dl) {
			int e;
			if (!(dl = list_dir(fs, ino, NULL, &e))) {
				fuse_reply_err(req, e);
				return;
			}
			dfs_inode_set_listing(&fs->inodes, ino, dl);
		}
	}
	char *buf = malloc(size);
	if (!buf) {
		if (shared)
			dfs_dirlist_put(&fs->inodes, dl);
		fuse_reply_err(req, ENOMEM);
		return;
	}
	size_t used = 0;
	for (size_t i = (size_t)off; i < dl->n; i++) {
		struct stat st;
		memset(&st, 0, sizeof(st));
		st.st_mode = dl->items[i].type;
		/* d_ino is informational, but must not be 0 */
		st.st_ino = (dl->dir_hash ^ (i * 0x9e3779b97f4a7c15ULL)) | 1;
		size_t n = fuse_add_direntry(req, buf + used, size - used,
		                             dl->items[i].name, &st, (off_t)(i + 1));
		if (n > size - used)
			break;
		used += n;
	}
	if (shared) {
		if (used == 0)   /* read to the end */
			dfs_inode_set_listing(&fs->inodes, ino, NULL);
		dfs_dirlist_put(&fs->inodes, dl);
	}
	fuse_reply_buf(req, buf, used);
	free(buf);
}

static void op_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	dfs_dirlist_put(&fs_of(req)->inodes, (struct dfs_dirlist *)(uintptr_t)fi->fh);
	fuse_reply_err(req, 0);
}

/* ---- files ---------------------------------------------------------------------- */

/* A handle on a temporary file (made by create, or opened again). */
static void reply_open_temp(fuse_req_t req, struct dfs_fs *fs, fuse_ino_t ino,
                            struct fuse_file_info *fi, const struct stat *st)
{
	struct handle *h = calloc(1, sizeof(*h));
	if (!h) {
		dfs_temp_release(&fs->temps, ino);
		if (st)
			dfs_temp_forget(&fs->temps, ino, 1);
		fuse_reply_err(req, ENOMEM);
		return;
	}
	h->temp = ino;
	fi->direct_io = 1;
	fi->keep_cache = 0;
	fi->fh = (uint64_t)(uintptr_t)h;
	handle_link(fs, h);
	if (st) {
		struct fuse_entry_param e;
		memset(&e, 0, sizeof(e));
		e.ino = ino;
		e.attr = *st;
		if (fuse_reply_create(req, &e, fi) == 0)
			return;
		dfs_temp_forget(&fs->temps, ino, 1);
	} else if (fuse_reply_open(req, fi) == 0) {
		return;
	}
	handle_unlink(fs, h);
	handle_free(fs, h);
}

static void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct dfs_fs *fs = fs_of(req);
	if (dfs_is_temp_ino(ino)) {
		int e = dfs_temp_open(&fs->temps, ino, fuse_req_ctx(req));
		if (e == 0 && (fi->flags & O_TRUNC)) {
			dfs_error err = {0};
			if (dfs_temp_truncate(&fs->temps, ino, 0, &err))
				e = errno_of(fs, &err);
			if (e)
				dfs_temp_release(&fs->temps, ino);
		}
		if (e)
			fuse_reply_err(req, e);
		else
			reply_open_temp(req, fs, ino, fi, NULL);
		return;
	}
	dfs_early_arrived(fs, ino);
	uint64_t serial;
	char *path = dfs_inode_path(&fs->inodes, ino, &serial, NULL, NULL);
	struct handle *h = calloc(1, sizeof(*h));
	if (!path || !h) {
		free(path);
		free(h);
		fuse_reply_err(req, path ? ENOMEM : ESTALE);
		return;
	}
	dfs_error err = {0};
	int acc = fi->flags & O_ACCMODE, e = 0;
	pid_t pid = fuse_req_ctx(req)->pid;
	bool writer = dfs_inode_is_writer(&fs->inodes, ino), direct = false;
	/* the kernel judged the mirrored mode bits; the source log's ACL is
	 * judged here (a non-root caller's opens only) */
	struct caller cl;
	if (dfs_view_access(fs->view, path, caller(req, &cl), &err))
		e = errno_of(fs, &err);
	if (!e && acc != O_RDONLY) {
		if (!dfs_view_is_writable(fs->view, path)) {
			e = EACCES;
		} else if (!writer) {
			/* not on the readers' inode: the kernel looks up again
			 * and finds the writer inode (see fs.h) */
			dfs_inode_mark(&fs->inodes, ino, DFS_MARK_WRITER, pid);
			e = ESTALE;
		} else {
			dfs_inode_unmark(&fs->inodes, path, DFS_MARK_WRITER, pid);
			if (!(h->write = dfs_view_open_write(fs->view, path,
			                                        caller_of(req, path, &cl),
			                                        fi->flags & O_TRUNC, &err)))
				e = errno_of(fs, &err);
			else if (fi->flags & O_APPEND)
				dfs_write_set_append(h->write);
		}
		fi->direct_io = 1;
	}
	if (!e && acc != O_WRONLY) {
		if (!writer)
			h->content = dfs_inode_pinned(&fs->inodes, ino);
		if (!h->content)
			h->content = dfs_view_open_file(fs->view, path,
			                                caller_of(req, path, &cl), &err);
		if (!h->content) {
			e = errno_of(fs, &err);
		} else if (writer) {
			/* a reader that came upon a writer's inode: its size
			 * moves with the writes, the page cache is not this
			 * snapshot's */
			direct = true;
		} else if (dfs_snapshot_serial(h->content) != serial) {
			/* changed since the lookup: the kernel looks up again,
			 * and that lookup keeps the snapshot it tells of */
			dfs_inode_mark(&fs->inodes, ino, DFS_MARK_PIN, pid);
			e = ESTALE;
		}
	}
	free(path);
	if (e) {
		handle_free(fs, h);
		fuse_reply_err(req, e);
		return;
	}
	/* this inode's bytes never change */
	if (direct)
		fi->direct_io = 1;
	fi->keep_cache = acc == O_RDONLY && !direct;
	fi->fh = (uint64_t)(uintptr_t)h;
	/* linked before the reply: the release may come at once */
	handle_link(fs, h);
	if (fuse_reply_open(req, fi) != 0) {
		handle_unlink(fs, h);
		handle_free(fs, h);
	}
}

/* The bytes of a read copied together (a read across pieces not ready
 * yet, or of content without pieces) go into a buffer of the worker
 * thread's own (fs->read_buf), kept for its next reads: a buffer
 * allocated for each read is given back to the system by the thread's
 * malloc arena when freed, and its page faults come again at every read
 * (with the mount's readahead raised to 1 MiB, reading the files.csv of
 * a million records took 1.4 times as long as with this buffer, the
 * daemon 1.5 times the CPU).  A temporary file's reads use it too.
 * Freed when the thread ends (the main thread's, at the unmount).  The
 * calling thread's buffer with room for `size` bytes, or NULL. */
struct read_buf {
	size_t cap;
	char data[];
};

static char *read_buf(struct dfs_fs *fs, size_t size)
{
	if (!fs->read_buf_ok)
		return NULL;
	struct read_buf *b = pthread_getspecific(fs->read_buf);
	if (b && b->cap >= size)
		return b->data;
	/* (the old one goes first: its bytes are not needed) */
	free(b);
	pthread_setspecific(fs->read_buf, NULL);
	size_t cap = size < 65536 ? 65536 : size;
	b = malloc(sizeof(*b) + cap);
	if (!b)
		return NULL;
	b->cap = cap;
	if (pthread_setspecific(fs->read_buf, b) != 0) {
		free(b);
		return NULL;
	}
	return b->data;
}

/* A temporary file's bytes, copied like op_read's below */
static void read_temp(fuse_req_t req, struct dfs_fs *fs, fuse_ino_t ino,
                      size_t size, off_t off)
{
	char *buf = read_buf(fs, size);
	long n = buf ? dfs_temp_read(&fs->temps, ino, buf, size, (uint64_t)off) : 0;
	if (!buf)
		fuse_reply_err(req, ENOMEM);
	else if (n < 0)
		fuse_reply_err(req, ESTALE);
	else
		fuse_reply_buf(req, buf, (size_t)n);
}

static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                    struct fuse_file_info *fi)
{
	(void)ino;
	struct handle *h = (struct handle *)(uintptr_t)fi->fh;
	if (h->temp) {
		read_temp(req, fs_of(req), h->temp, size, off);
		return;
	}
	if (!h->content) {
		fuse_reply_err(req, EBADF);
		return;
	}
	dfs_error err = {0};
	/* where the bytes lie together, they go out from there; the release
	 * may run as soon as the reply is out: the snapshot is ours till then */
	dfs_snapshot *c = dfs_snapshot_ref(h->content);
	const char *data;
	size_t len;
	void *pin;
	int r = dfs_snapshot_pin_part(c, (uint64_t)off, size, true, &data, &len, &pin, &err);
	if (r < 0) {
		fuse_reply_err(req, errno_of(fs_of(req), &err));
		dfs_snapshot_release(c);
		return;
	}
	if (r > 0) {
		/* the rest (a read across the end of a piece, where the next
		 * batch or chunk starts) from the next piece, when it lies
		 * ready: two pieces sent as they are, else copied below */
		struct iovec iov[2] = {{(void *)data, len}, {NULL, 0}};
		void *pin2 = NULL;
		uint64_t total = dfs_snapshot_size(c);
		bool whole = len == size || (uint64_t)off + len >= total;
		if (!whole && dfs_snapshot_pin_part(c, (uint64_t)off + len, size - len, false,
		                                    &data, &iov[1].iov_len, &pin2, &err) > 0) {
			iov[1].iov_base = (void *)data;
			whole = len + iov[1].iov_len == size ||
			        (uint64_t)off + len + iov[1].iov_len >= total;
		}
		if (whole)
			fuse_reply_iov(req, iov, iov[1].iov_len ? 2 : 1);
		dfs_snapshot_unpin(c, pin2);
		dfs_snapshot_unpin(c, pin);
		if (whole) {
			dfs_snapshot_release(c);
			return;
		}
	}
	int fd = dfs_snapshot_fd(c);
	if (fd >= 0) {
		/* from its file, spliced when the kernel can (libfuse reads
		 * it into a buffer of its own otherwise); c is held till the
		 * reply is out */
		uint64_t total = dfs_snapshot_size(c);
		size_t n = (uint64_t)off >= total ? 0 :
		             total - (uint64_t)off < size ? (size_t)(total - (uint64_t)off) : size;
		struct fuse_bufvec bv = FUSE_BUFVEC_INIT(n);
		bv.buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK | FUSE_BUF_FD_RETRY;
		bv.buf[0].fd = fd;
		bv.buf[0].pos = off;
		fuse_reply_data(req, &bv, FUSE_BUF_SPLICE_MOVE);
		dfs_snapshot_release(c);
		return;
	}
	dfs_snapshot_release(c);
	char *buf = read_buf(fs_of(req), size);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	long n = dfs_snapshot_read(h->content, buf, size, (uint64_t)off, &err);
	if (n < 0)
		fuse_reply_err(req, errno_of(fs_of(req), &err));
	else
		fuse_reply_buf(req, buf, (size_t)n);
}

static void op_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size,
                     off_t off, struct fuse_file_info *fi)
{
	(void)ino;
	struct handle *h = (struct handle *)(uintptr_t)fi->fh;
	dfs_error err = {0};
	if (h->temp && dfs_temp_write(&fs_of(req)->temps, h->temp, buf, size,
	                              (uint64_t)off, &err))
		fuse_reply_err(req, errno_of(fs_of(req), &err));
	else if (h->temp)
		fuse_reply_write(req, size);
	else if (!h->write)
		fuse_reply_err(req, EBADF);
	else if (dfs_write_data(h->write, buf, size, (uint64_t)off, &err))
		fuse_reply_err(req, errno_of(fs_of(req), &err));
	else
		fuse_reply_write(req, size);
}

static void op_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	struct handle *h = (struct handle *)(uintptr_t)fi->fh;
	dfs_error err = {0};
	if (h->write && dfs_write_flush(h->write, &err))
		fuse_reply_err(req, errno_of(fs_of(req), &err));
	else
		fuse_reply_err(req, 0);
}

static void op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	struct handle *h = (struct handle *)(uintptr_t)fi->fh;
	handle_unlink(fs_of(req), h);
	handle_free(fs_of(req), h);
	dfs_inodes_expire_pins(&fs_of(req)->inodes);
	fuse_reply_err(req, 0);
}

static void op_statfs(fuse_req_t req, fuse_ino_t ino)
{
	(void)ino;
	struct statvfs st;
	memset(&st, 0, sizeof(st));
	st.f_bsize = 4096;
	st.f_frsize = 4096;
	st.f_namemax = 255;
	fuse_reply_statfs(req, &st);
}

/* ---- extended attributes ------------------------------------------------------- */

static void reply_xattr(fuse_req_t req, const char *value, size_t n, size_t size)
{
	if (size == 0)
		fuse_reply_xattr(req, n);
	else if (n > size)
		fuse_reply_err(req, ERANGE);
	else
		fuse_reply_buf(req, value, n);
}

/* user.darshanfs.selection of a file of a selection: the caller's filters
 * in force on it (the kernel keeps no attribute: each caller is asked) */
static void getxattr_selection(fuse_req_t req, fuse_ino_t ino, size_t size)
{
	struct dfs_fs *fs = fs_of(req);
	char *path = dfs_is_temp_ino(ino) ? NULL
	                                  : dfs_inode_path(&fs->inodes, ino, NULL, NULL, NULL);
	if (!path) {
		fuse_reply_err(req, dfs_is_temp_ino(ino) ? ENODATA : ESTALE);
		return;
	}
	dfs_error err = {0};
	struct caller cl;
	char *text = NULL;
	int r = dfs_view_selection(fs->view, path, caller_of(req, path, &cl), &text,
	                           &err);
	free(path);
	if (r < 0)
		fuse_reply_err(req, errno_of(fs, &err));
	else if (r == 0)
		fuse_reply_err(req, ENODATA);
	else
		reply_xattr(req, text, strlen(text), size);
	free(text);
}

/* The root's decode counter and cache bytes; a selection's filters */
static void op_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
                        size_t size)
{
	if (strcmp(name, XATTR_SELECTION) == 0 && ino != FUSE_ROOT_ID) {
		getxattr_selection(req, ino, size);
		return;
	}
	bool decodes = strcmp(name, XATTR_DECODES) == 0;
	if (ino != FUSE_ROOT_ID || (!decodes && strcmp(name, XATTR_CACHED) != 0)) {
		fuse_reply_err(req, ENODATA);
		return;
	}
	dfs_view_memory m;
	if (!decodes)
		dfs_view_memory_get(fs_of(req)->view, &m);
	char text[32];
	int n = snprintf(text, sizeof(text), "%" PRIu64,
	                 decodes ? dfs_view_decode_count(fs_of(req)->view)
	                         : (uint64_t)m.cached_bytes);
	reply_xattr(req, text, (size_t)n, size);
}

static void op_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
	static const char root[] = XATTR_DECODES "\0" XATTR_CACHED;
	static const char selection[] = XATTR_SELECTION;
	struct dfs_fs *fs = fs_of(req);
	if (ino == FUSE_ROOT_ID) {
		reply_xattr(req, root, sizeof(root), size);
		return;
	}
	char *path = dfs_is_temp_ino(ino) ? NULL
	                                  : dfs_inode_path(&fs->inodes, ino, NULL, NULL, NULL);
	bool has = path && dfs_view_has_selection(fs->view, path);
	free(path);
	reply_xattr(req, selection, has ? sizeof(selection) : 0, size);
}

/* ---- the tree's shape is fixed ------------------------------------------------ */

/* Creating, removing, renaming or linking names: EPERM, as read-only
 * virtual file systems answer (without these operations the kernel says
 * ENOSYS, "Function not implemented").  On a ro mount the kernel answers
 * EROFS before asking.  Writing filter and records.csv goes through open
 * and write, not through these; the one exception is a temporary file
 * created beside records.csv and renamed onto it (temps.c). */
static void refuse(fuse_req_t req)
{
	fuse_reply_err(req, EPERM);
}

static void op_mknod(fuse_req_t req, fuse_ino_t parent, const char *name,
                     mode_t mode, dev_t rdev)
{
	(void)parent, (void)name, (void)mode, (void)rdev;
	refuse(req);
}

static void op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name,
                     mode_t mode)
{
	(void)parent, (void)name, (void)mode;
	refuse(req);
}

/* unlink(2): only of the caller's temporary files (temps.c) */
static void op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct dfs_fs *fs = fs_of(req);
	char *dir = dfs_inode_path(&fs->inodes, parent, NULL, NULL, NULL);
	int r = dir ? dfs_temp_unlink(&fs->temps, dir, name, fuse_req_ctx(req)) : -1;
	free(dir);
	if (r)
		refuse(req);
	else
		fuse_reply_err(req, 0);
}

static void op_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	(void)parent, (void)name;
	refuse(req);
}

static void op_symlink(fuse_req_t req, const char *link, fuse_ino_t parent,
                       const char *name)
{
	(void)link, (void)parent, (void)name;
	refuse(req);
}

/* rename(2): only of the caller's temporary file onto the records.csv
 * beside it, which installs its rows (EINVAL when they are refused:
 * filter.error says why) */
static void op_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
                      fuse_ino_t newparent, const char *newname,
                      unsigned int flags)
{
	struct dfs_fs *fs = fs_of(req);
	char *dir = dfs_inode_path(&fs->inodes, parent, NULL, NULL, NULL);
	char *newdir = dfs_inode_path(&fs->inodes, newparent, NULL, NULL, NULL);
	dfs_error err = {0};
	int r = -1;
	if (dir && newdir && flags == 0)
		r = dfs_temp_rename(&fs->temps, dir, name, newdir, newname,
		                    fuse_req_ctx(req), &err);
	free(dir);
	free(newdir);
	if (r < 0)
		refuse(req);
	else
		fuse_reply_err(req, r);
}

static void op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent,
                    const char *newname)
{
	(void)ino, (void)newparent, (void)newname;
	refuse(req);
}

/* create(2): only a temporary file beside records.csv (temps.c) */
static void op_create(fuse_req_t req, fuse_ino_t parent, const char *name,
                      mode_t mode, struct fuse_file_info *fi)
{
	(void)mode;
	struct dfs_fs *fs = fs_of(req);
	char *dir = dfs_inode_path(&fs->inodes, parent, NULL, NULL, NULL);
	char *rec = dir ? join(dir, "records.csv") : NULL;
	fuse_ino_t ino;
	struct stat st;
	struct caller cl;
	dfs_error err = {0};
	int e = 0;
	if (!rec)
		e = dir ? ENOMEM : ESTALE;
	/* who may not read the log writes nothing beside it (as op_open) */
	else if (dfs_view_is_writable(fs->view, rec) &&
	         dfs_view_access(fs->view, rec, caller(req, &cl), &err))
		e = errno_of(fs, &err);
	else
		e = dfs_temp_create(&fs->temps, fs->view, dir, name, fuse_req_ctx(req),
		                    caller_of(req, rec, &cl), &ino, &st);
	free(rec);
	free(dir);
	if (e)
		fuse_reply_err(req, e);
	else
		reply_open_temp(req, fs, ino, fi, &st);
}

const struct fuse_lowlevel_ops dfs_fuse_ops = {
	.init = op_init,
	.lookup = op_lookup,
	.forget = op_forget,
	.forget_multi = op_forget_multi,
	.getattr = op_getattr,
	.setattr = op_setattr,
	.mknod = op_mknod,
	.mkdir = op_mkdir,
	.unlink = op_unlink,
	.rmdir = op_rmdir,
	.symlink = op_symlink,
	.rename = op_rename,
	.link = op_link,
	.create = op_create,
	.opendir = op_opendir,
	.readdir = op_readdir,
	.releasedir = op_releasedir,
	.open = op_open,
	.read = op_read,
	.write = op_write,
	.flush = op_flush,
	.release = op_release,
	.statfs = op_statfs,
	.getxattr = op_getxattr,
	.listxattr = op_listxattr,
};
