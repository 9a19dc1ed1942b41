/* fs.h - the FUSE front end (libfuse's low-level API): shared state of
 * main.c, inodes.c and ops.c.  Nothing here is visible to the core
 * library.
 *
 * One inode per snapshot: a generated file gets a new inode number
 * whenever its content changes (a filter write, a log that changed on
 * disk).  An inode's bytes never change, so the kernel may cache its
 * pages and size for as long as it likes; handles opened before a change
 * keep reading their snapshot; a new path lookup (entries of files are
 * never cached) finds the new inode.  Directories keep one inode, and
 * are not opened where the kernel allows it: it keeps their listings
 * until their modification time moves (see dfs_view_stat).
 *
 * Writers get inodes of their own.  The kernel cuts an inode to size 0
 * when it is opened with O_TRUNC and moves its size with every write:
 * done to the inode that readers of the snapshot share, their reads
 * would end early.  So an open for writing of a readers' inode is
 * answered ESTALE and the path's next lookups by the same thread (until
 * the writer's open comes, 30 seconds at most: a busy daemon may read the
 * retry's lookup late) give the snapshot's writer inode: the kernel
 * retries the open once after ESTALE, with a new lookup.
 *
 * An open of a readers' inode whose file changed since the lookup is
 * answered ESTALE too (its snapshot may be gone); the retry's lookup
 * then takes the snapshot it tells of along in the inode ("pins" it), so
 * that the open that follows gets exactly that one, however often the
 * file changes in between. */
#ifndef DFS_FUSE_FS_H
#define DFS_FUSE_FS_H

#define FUSE_USE_VERSION 312
#include <fuse_lowlevel.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "darshanfs.h"

/* A directory's entries, as listed at its opendir (or, when the kernel
 * opens directories without asking, at a readdir from offset 0). */
struct dfs_dirlist {
	struct dfs_dirent {
		char *name;
		uint32_t type;   /* S_IFDIR or S_IFREG */
	} *items;
	size_t n, cap;
	uint64_t dir_hash;
	int refs;            /* (the inode table's lock) */
};

struct dfs_inode {
	fuse_ino_t ino;
	char *path;              /* in the view: "/", "/2026/x.darshan/POSIX" */
	uint64_t serial;         /* files: the snapshot; directories: 0 */
	uint64_t nlookup;        /* references held by the kernel */
	dfs_node_stat st;        /* attributes at lookup */
	struct dfs_dirlist *listing;   /* being read without an opendir */
	bool pending;            /* a file whose size the lookup did not tell:
	                          * st.size is not known yet */
	bool writer;             /* opened for writing only (see above) */
	dfs_snapshot *pin;        /* the snapshot opens get (see above) */
	uint64_t pin_until_ns;   /* until then */
	struct dfs_inode *by_ino, *by_key;
	struct dfs_inode *pinned_next;   /* dfs_inodes.pinned, while pin is set */
};

/* A path whose lookups by thread `pid` give writer inodes
 * (DFS_MARK_WRITER), or pin their snapshots (DFS_MARK_PIN), until
 * `until_ns` (CLOCK_MONOTONIC); kept apart from the inodes, which the
 * kernel may forget between an ESTALE and its new lookup. */
#define DFS_REDIRECTS 32
enum { DFS_MARK_WRITER = 1, DFS_MARK_PIN = 2 };
struct dfs_redirect {
	char *path;
	pid_t pid;
	uint64_t until_ns;
	int kinds;
};

/* The numbers of inodes the kernel forgot lately, by (path, serial,
 * writer): a lookup of the same snapshot gets its number again.  The
 * kernel forgets an inode as soon as no dentry holds it, which happens
 * whenever two users with different versions of one path look it up in
 * turn: without this each lookup would make a new number. */
#define DFS_FORGOTTEN 1024
struct dfs_forgotten {
	char *path;              /* NULL: a free slot */
	uint64_t serial, hash;
	bool writer;
	fuse_ino_t ino;
};

struct dfs_inodes {
	pthread_mutex_t lock;
	struct dfs_forgotten forgotten[DFS_FORGOTTEN];
	size_t forgotten_next;   /* the slot the next one takes */
	struct dfs_inode **ino_table, **key_table;
	size_t size, count;
	fuse_ino_t next;
	struct dfs_redirect redirect[DFS_REDIRECTS];
	struct dfs_inode *pinned;   /* inodes holding a pin */
};

/* Temporary files renamed onto records.csv (temps.c) */
#define DFS_TEMP_INO ((fuse_ino_t)1 << 62)   /* set in their inode numbers */
#define DFS_TEMPS_MAX 1024                   /* named at once, per mount */
#define DFS_TEMPS_PER_USER 16                /* named at once, per user */
struct dfs_temp;
struct dfs_temps {
	pthread_mutex_t lock;
	struct dfs_temp *list;
	size_t count;
	uint64_t seq;
	/* a thread that, while temporary files are closed, checks every
	 * second whether their processes are gone (with the lock) */
	pthread_t reaper;
	pthread_cond_t wake;
	bool reaping, stop;
};

struct handle;
struct dfs_early_kept;

struct dfs_fs {
	dfs_view *view;
	/* open files: the kernel may still owe a release when the session
	 * ends; those handles are closed at exit */
	pthread_mutex_t handles_lock;
	struct handle *handles;
	struct fuse_session *se;
	bool no_opendir;         /* the kernel opens directories itself and
	                          * caches their listings */
	double dir_timeout;      /* entry/attr timeout of directories */
	double file_timeout;     /* attr timeout of files (their bytes never change) */
	bool prefill;            /* render big records.csv files into the page
	                          * cache as their logs decode (dfs_view_prefill) */
	bool debug;              /* -d: errors' messages go to the debug output */
	bool per_user;           /* allow_other: each user has filters of their own */
	struct dfs_inodes inodes;
	struct dfs_temps temps;
	/* text stored early whose inode the kernel had not made (early.c) */
	pthread_mutex_t early_lock;
	struct dfs_early_kept *early;
	size_t early_bytes, early_count;
	/* each thread's buffer for the reads it copies together (ops.c) */
	pthread_key_t read_buf;
	bool read_buf_ok;
};

extern const struct fuse_lowlevel_ops dfs_fuse_ops;

/* ---- checks before mounting (startup.c) ----
 * How two canonical paths lie: SOURCE inside (or at) MOUNTPOINT, which the
 * mount would hide from the daemon itself; MOUNTPOINT inside SOURCE, where
 * the tree would hold itself; or 0. */
enum { DFS_SOURCE_IN_MOUNT = 1, DFS_MOUNT_IN_SOURCE = 2 };
int dfs_startup_nesting(const char *source, const char *mountpoint);
/* The *.darshan files and links below dir, counted until `budget`
 * entries were looked at or `stop` logs found (then *cut is set). */
size_t dfs_startup_count_logs(const char *dir, size_t budget, size_t stop, bool *cut);
/* Entries of dir but . and .. (-1: unreadable). */
long dfs_startup_entries(const char *dir);
/* The device of the FUSE mount at mountpoint (canonical), from
 * /proc/self/mountinfo: nothing asks the mount itself. 0, or -1. */
int dfs_startup_mount_dev(const char *mountpoint, dev_t *dev);

/* Close the files whose release never came (after the session loop). */
void dfs_fuse_close_handles(struct dfs_fs *fs);

int dfs_inodes_init(struct dfs_inodes *t);
void dfs_inodes_free(struct dfs_inodes *t);
/* The inode of (path, serial), created if needed, with one more lookup
 * reference, for a lookup by thread pid (a writer's: its writer inode);
 * NULL when out of memory. */
struct dfs_inode *dfs_inode_ref(struct dfs_inodes *t, const char *path,
                                const dfs_node_stat *st, pid_t pid);
/* The same for a lookup answered before its file's size is known: a new
 * inode is marked pending; NULL when the inode is known already with its
 * size (or out of memory). */
struct dfs_inode *dfs_inode_ref_pending(struct dfs_inodes *t, const char *path,
                                        const dfs_node_stat *st, pid_t pid);
/* The attributes of a pending inode, now known (st NULL: still unknown,
 * the lookup failed after its answer). */
void dfs_inode_settle(struct dfs_inodes *t, fuse_ino_t ino, const dfs_node_stat *st);
/* Copy of an inode's path and data (NULL if the inode is unknown);
 * *pending (may be NULL) tells whether st.size is not known yet. */
char *dfs_inode_path(struct dfs_inodes *t, fuse_ino_t ino, uint64_t *serial,
                     dfs_node_stat *st, bool *pending);
/* Is ino a writer inode? */
bool dfs_inode_is_writer(struct dfs_inodes *t, fuse_ino_t ino);
/* Mark the path of inode ino for thread pid (a pin mark for a second, a
 * writer mark until its open, 30 seconds at most):
 * DFS_MARK_WRITER (a writer is about to open the readers' inode ino: its
 * lookups give the writer inode of the same snapshot) or DFS_MARK_PIN
 * (its lookups pin their snapshots). */
void dfs_inode_mark(struct dfs_inodes *t, fuse_ino_t ino, int kind, pid_t pid);
/* Does a mark of this kind hold for path and thread pid? */
bool dfs_inode_marked(struct dfs_inodes *t, const char *path, int kind, pid_t pid);
/* The mark has done its work (the writer's open came); a pin mark
 * stays its second, the kernel may look a name up twice before it opens. */
void dfs_inode_unmark(struct dfs_inodes *t, const char *path, int kind, pid_t pid);
/* Keep snapshot c (the caller's reference) for the opens of ino in the
 * next second; and a reference to it for such an open (NULL if none). */
void dfs_inode_pin(struct dfs_inodes *t, fuse_ino_t ino, dfs_snapshot *c);
dfs_snapshot *dfs_inode_pinned(struct dfs_inodes *t, fuse_ino_t ino);
/* Let go of the pins kept their second.  A pinned snapshot counts as a
 * reader of its log for the cache (cache_size does not bound it): this
 * runs at every release, so a pin outlives its second only while nothing
 * is closed. */
void dfs_inodes_expire_pins(struct dfs_inodes *t);
/* The listing an inode is being read with, with a reference of the
 * caller's (NULL: none); set one (or none) in its place.  A listing goes
 * when its last reference does (dfs_dirlist_put). */
struct dfs_dirlist *dfs_inode_listing(struct dfs_inodes *t, fuse_ino_t ino);
void dfs_inode_set_listing(struct dfs_inodes *t, fuse_ino_t ino,
                           struct dfs_dirlist *dl);
void dfs_dirlist_put(struct dfs_inodes *t, struct dfs_dirlist *dl);
/* Drop n lookup references; the inode goes away at zero. */
void dfs_inode_forget(struct dfs_inodes *t, fuse_ino_t ino, uint64_t n);

/* ---- temporary files (temps.c) ----
 * Errors are errno values.  Create one (EPERM where none may be: see
 * dfs_view_temp_allowed), with one lookup reference and one handle. */
void dfs_temps_init(struct dfs_temps *t);
void dfs_temps_free(struct dfs_temps *t);
static inline bool dfs_is_temp_ino(fuse_ino_t ino)
{
	return (ino & DFS_TEMP_INO) != 0;
}
int dfs_temp_create(struct dfs_temps *t, dfs_view *v, const char *dir,
                    const char *name, const struct fuse_ctx *ctx,
                    const dfs_caller *who, fuse_ino_t *ino, struct stat *st);
/* The caller's process's temporary file dir/name, with one more lookup
 * reference; ENOENT when there is none. */
int dfs_temp_lookup(struct dfs_temps *t, const char *dir, const char *name,
                    const struct fuse_ctx *ctx, fuse_ino_t *ino, struct stat *st);
int dfs_temp_stat(struct dfs_temps *t, fuse_ino_t ino, struct stat *st);
int dfs_temp_open(struct dfs_temps *t, fuse_ino_t ino, const struct fuse_ctx *ctx);
void dfs_temp_release(struct dfs_temps *t, fuse_ino_t ino);
void dfs_temp_forget(struct dfs_temps *t, fuse_ino_t ino, uint64_t n);
int dfs_temp_write(struct dfs_temps *t, fuse_ino_t ino, const char *buf,
                   size_t size, uint64_t off, dfs_error *err);
int dfs_temp_truncate(struct dfs_temps *t, fuse_ino_t ino, uint64_t size,
                      dfs_error *err);
long dfs_temp_read(struct dfs_temps *t, fuse_ino_t ino, char *buf, size_t size,
                   uint64_t off);
/* Rename dir/name onto newdir/newname: only onto the records.csv beside
 * it (EPERM elsewhere), which installs its rows (errno of a refusal);
 * -1 when dir/name is no temporary file of the caller's. */
int dfs_temp_rename(struct dfs_temps *t, const char *dir, const char *name,
                    const char *newdir, const char *newname,
                    const struct fuse_ctx *ctx, dfs_error *err);
/* Unlink it (its rows are dropped); -1 when it is none of the caller's. */
int dfs_temp_unlink(struct dfs_temps *t, const char *dir, const char *name,
                    const struct fuse_ctx *ctx);
/* The text of a lookup's file stored into the page cache as its log
 * decodes (early.c): fs and ino set by the lookup, the rest zero. */
struct dfs_early {
	struct dfs_fs *fs;
	fuse_ino_t ino;
	bool stored;             /* some text is in the kernel's cache */
	dfs_buf held;            /* refused before the kernel made the inode */
	uint64_t held_off;
};
/* dfs_view_prefill's store: never waits; nonzero stops the storing. */
int dfs_early_store(struct dfs_early *x, uint64_t off, const char *data, size_t len);
/* The lookup is over: text still held is kept for the inode's first
 * getattr or open (keep: its snapshot is the file's), or dropped. */
void dfs_early_finish(struct dfs_early *x, bool keep);
/* A request on inode ino came (the kernel has it): store its kept text. */
void dfs_early_arrived(struct dfs_fs *fs, fuse_ino_t ino);
/* The kernel forgot inode ino: drop its kept text. */
void dfs_early_forget(struct dfs_fs *fs, fuse_ino_t ino);
void dfs_early_free_all(struct dfs_fs *fs);

#endif
