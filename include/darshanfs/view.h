/* view.h - the virtual tree of darshanfs, without FUSE.
 *
 * A dfs_view mirrors SOURCE (a directory tree of logs, or one log) as the
 * tree described in docs/guide.md: one directory per log, one directory per
 * module, generated files (header.txt, records.csv, derived_metrics, ...)
 * and writable filter files.  The FUSE layer and darshanfs-cat are thin
 * front ends over these calls; everything here is thread safe.  Views
 * in one process are independent: each keeps its own caches, recycled
 * memory and helper threads, and freeing one waits for nothing of another
 * (a snapshot must be released before its view is freed).
 *
 * Reading: dfs_view_open_file() returns a snapshot (dfs_snapshot) of the
 * file for the current selection; every read of that handle is served from
 * the snapshot, whatever filters change meanwhile.
 *
 * Writing: dfs_view_open_write() starts a write session on a filter (or
 * records.csv); data arrives in chunks; a complete valid expression takes
 * effect at once (a new generation of every derived file); a bad one is
 * refused with DFS_ERR_INVAL and leaves everything as it was. */
#ifndef DARSHANFS_VIEW_H
#define DARSHANFS_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "darshanfs/error.h"
#include "darshanfs/summary.h"

typedef struct dfs_view dfs_view;

typedef struct dfs_view_options {
	size_t cache_size;          /* bytes of decoded logs to keep (0: default) */
	size_t import_limit;        /* largest records.csv write (0: default) */
	bool nofollow_outside;      /* hide symbolic links to logs outside SOURCE */
	/* a shared mount (allow_other): every user has filters of their own
	 * (see "Whose filters" below); owner's are those of callers without
	 * an id (NULL) */
	bool per_user;
	uid_t owner;
	/* thresholds of the insights (copied; NULL: the defaults) */
	const dfs_insight_thresholds *thresholds;
	/* the calls give a caller only what it may reach on disk (see
	 * dfs_view_access; a NULL caller reaches everything) */
	bool check_access;
	/* seconds the mode, owner and ACL of a directory are trusted by
	 * those checks once looked at (as long as a kernel keeps the
	 * attributes of a directory; 0: looked at on every check) */
	double attr_timeout;
	/* what the compiled filters of one user (or of the owner) may take
	 * together: regular expressions and programs, counted in cache_size
	 * (0: a sixteenth of cache_size, at least DFS_VIEW_MIN_FILTER_MEMORY) */
	size_t filter_memory;
	/* what the write sessions in progress (filters, and above all CSV
	 * being written into records.csv) may hold together (0: twice
	 * import_limit); one user's may hold import_limit */
	size_t import_memory;
	/* the persistent index of the logs' facts (copied; NULL: none): a
	 * directory's tables read what it knows of a log instead of decoding
	 * it (docs/index.md).  It never fails the view: what goes wrong with
	 * it is told, once, through notice (when set), and the view does
	 * without. */
	const char *index_path;
	void (*notice)(void *ctx, const char *line);
	void *notice_ctx;
} dfs_view_options;

#define DFS_VIEW_DEFAULT_CACHE ((size_t)1 << 30)
#define DFS_VIEW_DEFAULT_IMPORT_LIMIT ((size_t)1 << 30)
#define DFS_VIEW_MIN_FILTER_MEMORY ((size_t)16 << 20)

typedef struct dfs_node_stat {
	bool is_dir;
	uint32_t mode;              /* permission bits only */
	uint32_t uid, gid;
	uint64_t size;
	int64_t mtime_sec, mtime_nsec;
	int64_t ctime_sec, ctime_nsec;
	/* files: the serial of the snapshot whose size this is (what
	 * dfs_snapshot_serial() of an open right now returns); dirs: 0 */
	uint64_t serial;
	/* dirs: the listing depends on who lists it, so one listing must
	 * not serve every reader (a front end keeps none of it).  Only on a
	 * view with per_user, where LOG/summary/dxt lists the plots of the
	 * caller's own selection; false for every other node and view. */
	bool per_reader;
} dfs_node_stat;

/* Open SOURCE (a directory or a log file); NULL and err on failure. */
dfs_view *dfs_view_new(const char *source, const dfs_view_options *opt,
                       dfs_error *err);
void dfs_view_free(dfs_view *v);

/* The view is served at `mountpoint` (its canonical path, as realpath()
 * gave it before the mount: asking the mount itself for it would wait
 * for this view) on device *dev (NULL: not known).  Nothing there is
 * ever looked at: an entry of SOURCE that is the mount point or lies on
 * that device is not shown, and a link is followed a component at a
 * time and hidden when it leads there (it would ask this very view,
 * which waits for itself).  Call before the view serves; -1 without
 * memory. */
int dfs_view_set_mount(dfs_view *v, const char *mountpoint, const dev_t *dev);

/* Paths are absolute within the view: "/", "/2026/x.darshan/POSIX".
 * Every call that takes a path takes the caller too (`who`, see "Who
 * asks" below): NULL is the owner, who sees every log.
 *
 * dfs_view_stat: the attributes of the node at path.  A directory's modification time moves whenever its listing changes, so
 * a listing may be kept until it does: a log directory's is at least the
 * moment a decoding found the log damaged (it then lists ERROR), and a
 * time within the last two seconds is told as the present moment (a
 * source on a file system with whole-second times could otherwise change
 * twice in the same second). */
/* A stat may fill a cache while it works (pf not NULL).  Learning the size of a
 * big log's records.csv means decoding the log and measuring every row;
 * when the file shows every record of its module, the rows can as well be
 * rendered as they decode and their text handed out, so that a reader
 * who comes next finds it already made.  Then, before decoding:
 *   early(ctx, st)   gets the attributes known so far (st->size is 0,
 *                    st->serial the snapshot's): return 0 to have the
 *                    text, nonzero to decline (nothing more is called);
 *   store(ctx, off, data, len)   gets the text in order, in pieces of
 *                    whole 4 KiB pages but the last; data NULL: forget
 *                    what was given (the rows were decoded again).  A
 *                    nonzero return stops the storing (the stat goes on);
 * and *st is complete when the call returns, as without pf.  The
 * snapshot's bytes are exactly what an open of that serial reads; when
 * the final serial is another, what was stored belongs to none. */
typedef struct dfs_view_prefill {
	int (*early)(void *ctx, const dfs_node_stat *st);
	int (*store)(void *ctx, uint64_t off, const char *data, size_t len);
	void *ctx;
} dfs_view_prefill;

/* Who asks.  A file that sums up many logs (jobs.csv, insights.csv,
 * summary.html of a directory) shows a caller only the logs it may read
 * on disk, below directories it may list and search, through links whose
 * every directory it may search, judged by the owner, group, mode bits
 * and access ACL of the source files; on a view with check_access every
 * other call for a caller is judged so too (see dfs_view_access).  uid 0
 * and a NULL caller see every log. */
typedef struct dfs_caller {
	uid_t uid;
	gid_t gid;
	const gid_t *groups;      /* supplementary groups */
	size_t ngroups;
	/* groups not given (groups NULL): asked of load_groups(groups_ctx,
	 * &groups), which returns their count, only when an answer depends
	 * on them (NULL: the caller has none but gid) */
	size_t (*load_groups)(void *ctx, const gid_t **groups);
	void *groups_ctx;
} dfs_caller;

/* The supplementary groups of a caller (loading them if they were not
 * given); returns their count. */
size_t dfs_caller_groups(const dfs_caller *who, const gid_t **groups);

/* Whose filters.  On a view made with per_user, each user (uid) has the
 * filters and imports of their own: what one writes, only they see; a
 * user may write the filter of every directory and log they may read.
 * The calls read and write the caller's state; for a NULL caller, and
 * for every call on a single-user view, the owner's.  A user who never wrote anything sees every record and costs
 * nothing; what users wrote is kept until the view is freed. */

/* May the caller open the file at path (or look up the node there)?
 * As on disk, path included: search permission on every directory from
 * SOURCE down to it, those a link to a log leads through included (every
 * directory of their own path, from / down, for a link that leads out of
 * SOURCE; the directories above SOURCE are the mount's to publish and are
 * not asked), and read permission on the log for anything in a log's
 * directory, or on the source directory for its own files (jobs.csv,
 * filter, ...): owner, group, mode bits and the access ACL, with the
 * caller's supplementary groups.  0, or -1 with DFS_ERR_ACCESS (or
 * DFS_ERR_NOENT: nothing there).  A NULL caller and uid 0 may do all. */
int dfs_view_access(dfs_view *v, const char *path, const dfs_caller *who,
                    dfs_error *err);

/* The attributes of path for the caller (above); pf: NULL, or the
 * prefill above. */
int dfs_view_stat(dfs_view *v, const char *path, const dfs_caller *who,
                  dfs_node_stat *st, const dfs_view_prefill *pf, dfs_error *err);

/* List a directory; `fill` gets each name with its type and mode (sizes
 * are not computed: listing never decodes a log).  On a view with
 * per_user states, LOG/summary/dxt lists the files of the caller's
 * selection (NULL: the owner's); the stat of such a directory says
 * per_reader. */
typedef int (*dfs_view_filler)(void *ctx, const char *name,
                               const dfs_node_stat *st);
int dfs_view_readdir(dfs_view *v, const char *path, const dfs_caller *who,
                     dfs_view_filler fill, void *ctx, dfs_error *err);

/* ---- reading ---------------------------------------------------------------- */

typedef struct dfs_snapshot dfs_snapshot;

dfs_snapshot *dfs_view_open_file(dfs_view *v, const char *path,
                                 const dfs_caller *who, dfs_error *err);
uint64_t dfs_snapshot_size(const dfs_snapshot *c);
/* Copy up to `len` bytes at `off`; returns the count (0 at the end) or -1
 * with err set. */
long dfs_snapshot_read(dfs_snapshot *c, char *buf, size_t len, uint64_t off,
                       dfs_error *err);
/* The bytes at `off` where they lie, when the next `len` of them (or all
 * up to the end) lie together: 1 with *data, *n and a pin to give back
 * with dfs_snapshot_unpin (the bytes stay put until then); 0 when they do
 * not (copy them with dfs_snapshot_read); -1 with err set. */
int dfs_snapshot_pin(dfs_snapshot *c, uint64_t off, size_t len, const char **data,
                     size_t *n, void **pin, dfs_error *err);
void dfs_snapshot_unpin(dfs_snapshot *c, void *pin);
/* The bytes at `off` as far as they lie together, up to `len` (a read
 * that spans two pieces, sent as two without a copy): 1 with *data, *n
 * (1 to len; 0 at the end) and a pin as above; 0 when they lie in no
 * memory, or (wait false) would first have to be rendered or waited
 * for; -1 with err set. */
int dfs_snapshot_pin_part(dfs_snapshot *c, uint64_t off, size_t len, bool wait,
                          const char **data, size_t *n, void **pin, dfs_error *err);
/* The file the snapshot's bytes lie in (from offset 0, dfs_snapshot_size
 * of them), for a front end that moves them without a copy (splice): an
 * open descriptor valid while a reference is held, or -1 when they lie
 * in memory or are made as read. */
int dfs_snapshot_fd(const dfs_snapshot *c);
/* Another reference to a snapshot (each is given back with
 * dfs_snapshot_release). */
dfs_snapshot *dfs_snapshot_ref(dfs_snapshot *c);
void dfs_snapshot_release(dfs_snapshot *c);
/* A number that identifies this snapshot: two opens that get the same
 * serial read the same bytes (a front end may keep cached pages). */
uint64_t dfs_snapshot_serial(const dfs_snapshot *c);

/* ---- writing ---------------------------------------------------------------- */

typedef struct dfs_write dfs_write;

/* A write session of the caller (whose filter it writes: see "Whose
 * filters").  `truncate`: the file was opened with O_TRUNC (the session
 * starts empty); otherwise it starts with the current text (so >>
 * appends). */
dfs_write *dfs_view_open_write(dfs_view *v, const char *path,
                               const dfs_caller *who, bool truncate,
                               dfs_error *err);
/* The file was opened with O_APPEND: every write of a filter goes to the
 * end of its text, whatever offset the caller computed from the size it
 * saw (after an import, `cat filter` shows a comment that is no text of
 * the filter: `>>` then starts a new expression). */
void dfs_write_set_append(dfs_write *w);
/* Returns -1 with DFS_ERR_INVAL when the text so far cannot be (the
 * beginning of) a valid expression: text ending with a newline must be
 * valid whole, other text only the beginning of a valid one (nothing
 * changes; the reason goes to filter.error). */
int dfs_write_data(dfs_write *w, const char *data, size_t len, uint64_t off,
                   dfs_error *err);
/* A filter may be truncated to 0 bytes (cleared) or to its own size (no
 * change); any other size is refused with DFS_ERR_INVAL (the reason goes
 * to filter.error).  records.csv takes any size. */
int dfs_write_truncate(dfs_write *w, uint64_t size, dfs_error *err);
/* At close: applies what is pending; an incomplete expression is refused. */
int dfs_write_flush(dfs_write *w, dfs_error *err);
void dfs_write_free(dfs_write *w);

/* A temporary file renamed onto records.csv (DuckDB's COPY TO writes
 * tmp_records.csv, then renames it).  May `name` be created in directory
 * `dir`?  Only a name holding "records.csv" that no file of the tree has,
 * in a module directory whose records.csv takes imports. */
bool dfs_view_temp_allowed(dfs_view *v, const char *dir, const char *name);
/* The write session of such a file, the caller's (see "Whose filters"):
 * an import into DIR/records.csv whose lines are checked as they arrive
 * (dfs_write_data), which takes effect only at dfs_write_commit (the
 * rename), never at flush or free. */
dfs_write *dfs_view_open_deferred(dfs_view *v, const char *dir,
                                  const dfs_caller *who, dfs_error *err);
/* Install the session's text now, as a close would; -1 with err when it
 * is refused (or was: filter.error says why).  Once only. */
int dfs_write_commit(dfs_write *w, dfs_error *err);
/* The session's text: its size, and a copy of its bytes from `off` */
size_t dfs_write_size(const dfs_write *w);
size_t dfs_write_read(const dfs_write *w, char *buf, size_t size, uint64_t off);

/* truncate(2) of a writable file without an open handle */
int dfs_view_truncate(dfs_view *v, const char *path, const dfs_caller *who,
                      uint64_t size, dfs_error *err);

/* Is the path a writable file (filter, records.csv, selections)? */
bool dfs_view_is_writable(dfs_view *v, const char *path);

/* ---- what is selected --------------------------------------------------------- */

/* The root of the view holds `selections` (every filter and import in
 * force for the reader, anywhere in the tree; a write of "clear" removes
 * them all, the writer's only), `selections.csv` (the same as CSV) and
 * `selections.error` (why the last write to selections was refused).
 *
 * Every file whose content is made from a selection (records.csv,
 * derived_metrics*, total*, filtered.darshan, summary.html, the plots,
 * insights*, jobs.csv, the selections files) tells which filters made it:
 * dfs_view_selection gives them for the caller, on one line as the
 * filters column of jobs.csv says them ("a/filter: rank == 0;
 * x.darshan/POSIX/records.csv: 2 rows imported", "" when none) -- a
 * directory's files every filter touching a log below it.  1 with *text
 * (malloc'd), 0 when the file is none of those (*text NULL), -1 with
 * err.  Decodes nothing.  dfs_view_has_selection says whether a path
 * has one, without computing it. */
int dfs_view_selection(dfs_view *v, const char *path, const dfs_caller *who,
                       char **text, dfs_error *err);
bool dfs_view_has_selection(dfs_view *v, const char *path);

/* What the view holds (tests and benchmarks check the bounds):
 *   cached_bytes  bytes of decoded logs and of everything cached with
 *                 them (rendered text, row lengths, selections' row
 *                 indexes and cut records, summation records), of the
 *                 job digests jobs.csv and insights.csv keep of each
 *                 log and of rendered jobs.csv files (kept a second),
 *                 and of imported rows: what cache_size bounds, but for
 *                 the logs being read (kept while a reader holds a
 *                 snapshot of them, evicted when the last lets go) and
 *                 imported rows (a selection: never evicted);
 *   logs_cached   decoded logs kept;
 *   entries       logs known (filters and headers: a few hundred bytes
 *                 each; those of logs gone from SOURCE are forgotten).
 * A snapshot holds what it reads (text, or a lazy records.csv's log and
 * rendering buffers) until it is released, whatever the cache does:
 * release every snapshot before dfs_view_free. */
typedef struct dfs_view_memory {
	size_t cached_bytes;
	size_t logs_cached;
	size_t entries;
} dfs_view_memory;
void dfs_view_memory_get(dfs_view *v, dfs_view_memory *m);

#endif
