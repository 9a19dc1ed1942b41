/* view_int.h - the view's own objects: the view, its entries, decoded
 * logs, selections, filter states (cache.c keeps them: cache.h).
 *
 * The files of the view layer in the order a reader meets them, from the
 * installed calls (view.h) down; each calls only files listed below it
 * (tests/dev/layers.sh checks it from the object files).  view.c, read.c
 * and write.c implement view.h; every other file X.c declares its calls
 * in X.h, which a file that calls it includes.
 *
 *   view.c     the view made and freed (dfs_view_new, dfs_view_free):
 *              what each file below keeps of it, and the calls a lower
 *              file makes to a higher one through a pointer set here
 *   read.c     the reading calls: attributes, listings and opening of
 *              the nodes of the tree
 *   write.c    the writing calls: write sessions on filter files and
 *              records.csv
 *   selections.c  the root's list of every filter and import in force
 *              (and clearing them all), the selection attribute of a file
 *   files.c    the content of each generated file of a log
 *   jobs.c     jobs.csv, modules.csv, insights.csv and summary.html of a
 *              directory
 *   summary_files.c  summary.html, the plots and the insights of a
 *              log
 *   inforce.c  the filters and imports in force on a place, collected
 *              and said on one line (the attribute, the twins' footers)
 *   access.c   may a caller read a source file (ACLs)
 *   levels.c   the filters behind a selection, level by level, as text
 *   select.c   filters -> selection -> accumulator results
 *   cache.c    the view's entries, one per log: its filters (kept while
 *              the log exists) and its decoded form (LRU cache)
 *   node.c     paths -> nodes; the files each level of the tree holds
 *   dirs.c     directory filters (apply to every log below a directory)
 *   lazy.c     records.csv rendered on demand; row lengths measured
 *              while a log decodes
 *   schema.c   the columns and types of a directory's tables, the
 *              Parquet twins
 *   snapshot.c snapshots: the text of a generated file, shared by
 *              reference
 *   import.c   rows written into records.csv, shared by reference
 *
 * Each kind of object has one file that makes and frees it: the view
 * (view.c), its entries and decoded logs (cache.c), selections
 * (select.c), job digests and the jobs.csv cache (jobs.c), snapshots
 * (snapshot.c; lazy ones with lazy.c), import sets (import.c), directory
 * filters (dirs.c), nodes (node.c).  Where a lower file holds an object of a higher one
 * (a decoded log holds selections, an entry its job digest, the view
 * the jobs.csv cache, a snapshot its lazy part, a cached snapshot its
 * view), it frees or tells it through a function pointer the owner set
 * when it made the object (selection.clear, entry.digest_free,
 * dfs_snapshot.ops) or view.c set when it made the view
 * (dfs_view.reader_gone/freed, jobs_expire), never by calling up.
 *
 * Whose state (a view with per_user, view.h "Whose filters"): filters,
 * imports and everything made from them belong to a state, named by a
 * number: STATE_BASE is the owner's (and every caller's on a single-user
 * view), STATE_CLEAN that of users who never wrote a filter (nothing is
 * ever written to it: it shows every record), STATE_UID(uid) a user's who
 * did.  A log has one entry per state that reads it, a directory filter
 * belongs to one state: a user's entries and directory filters are made
 * on their first write and kept for the life of the view, and no cache,
 * serial or listing of one state is handed to another.  A user with
 * state (and on a view with per_user the owner too) reads a log through
 * the clean entry until they write something that applies to it (the
 * log's filters, a directory filter above it).
 *
 * What a write invalidates is its state's only: each state that writes
 * has its own generations (struct state_gens: one bumped by its
 * directory filters, one by its every accepted write), and the caches
 * made for a state (selections, job digests, jobs.csv, serials) are
 * checked against that state's, so one user's writes on a shared mount
 * make no other user's files be computed again.  STATE_CLEAN has none:
 * nothing is written to it, its generations stay 0.
 *
 * Locking: view->lock guards the entry table and the LRU list and is held
 * only briefly.  entry->lock guards everything in one entry, including
 * decoding, selection and rendering for that log, so readers of different
 * logs run in parallel.  Lock order: entry->lock, then view->lock (every
 * lock of the core and the front end, in order: docs/locks.md). */
#ifndef DFS_VIEW_INT_H
#define DFS_VIEW_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>

#include "darshanfs/accum.h"
#include "darshanfs/buf.h"
#include "filter/filter.h"
#include "darshanfs/log.h"
#include "darshanfs/summary.h"
#include "darshanfs/view.h"
#include "parquet/parquet.h"
#include "util/scratch.h"
#include "view/import.h"
#include "view/lazy.h"
#include "view/node.h"
#include "view/snapshot.h"

struct job_digest;

/* ---- a log entry -------------------------------------------------------------- */

struct snapshot_cache {
	dfs_snapshot *file[F_KINDS];
};

/* The selection of one module and what the accumulator made of it. */
struct selection {
	bool ready;
	const dfs_records *records;   /* the log's records, or the imported set */
	size_t total;                 /* the log's records of the module (also
	                               * after an import: "N of M selected") */
	size_t count;                 /* records selected */
	size_t *index;                /* selected record indices (NULL: all),
	                               * a block of `pool` */
	struct dfs_scratch *pool;     /* the view's (dfs_view.scratch) */
	struct import_set *trimmed;   /* row_select modules: the selected
	                               * records cut to their matching rows
	                               * (records then points here), or NULL */
	/* the generation of the state's directory filters it was made with
	 * (the decoded log's dir_gen may be older: a filter came between
	 * its check and this selection) */
	uint64_t dir_gen;
	bool accumulated;
	bool accumulate_tried;
	dfs_derived_metrics dm;
	unsigned char *summation;       /* summation record */
	char **warnings;
	size_t n_warnings, warnings_total;
	dfs_status status;            /* DFS_OK or why the module is unusable */
	char *error;
	/* why the accumulator made nothing of a usable selection (e.g. a job
	 * of no process): its records are still shown */
	dfs_status accum_status;
	char *accum_error;
	/* frees what the fields point to and empties it (set by select.c
	 * when it fills the selection; the cache calls it) */
	void (*clear)(struct selection *s);
};

struct module_state {
	char *filter_text;            /* active module filter ("" = all) */
	dfs_filter *filter;           /* compiled, NULL = all */
	dfs_filter *log_filter;       /* the log-wide filter compiled here */
	char *error_text;             /* filter.error */
	struct import_set *imported;  /* rows written into records.csv */
	struct timespec written;      /* when the filter or import was installed */
};

/* What a decoded log holds for one module slot: made for the modules the
 * log has when it loads, for others when first asked (a log uses a few of
 * the 64 slots; all of them inline took 50 KB a log). */
struct decoded_mod {
	struct selection sel;
	struct snapshot_cache files;
	/* bytes of each record's records.csv row, 0 until measured (while
	 * the log decoded, or when first asked): the size of a selection's
	 * records.csv without measuring again */
	uint32_t *row_len;
};

struct decoded_log {
	dfs_log *log;                 /* NULL when decoding failed */
	uint64_t dir_gen;             /* the entry's state's directory filters
	                               * the caches used (state_gens) */
	dfs_status status;
	char *error;
	bool module_errors;           /* some module could not be decoded */
	size_t bytes;                 /* memory accounted to the cache */
	size_t content_bytes;         /* of which cached generated text */
	size_t log_bytes;             /* of which the log's (it grows when
	                               * the log builds an index it was
	                               * first asked for) */
	size_t uncounted;             /* slots made since the last count */
	uint64_t gen;                 /* generation the caches belong to */
	struct decoded_mod *mod[DFS_MOD_SLOTS];
	struct snapshot_cache log_files;
	dfs_derived_metrics combined;   /* POSIX+STDIO */
	bool combined_ready;
	/* what the file names give summary.html, kept from its first render
	 * (the same whatever the selection; counted in `bytes`) */
	dfs_summary_names *names;
};

/* Which version of a source log a cache holds.  Size and modification
 * time are not enough: a log replaced by another of the same size with
 * its time copied (cp B t; touch -r A t; mv t A) has another device or
 * inode, and the rename moves its change time. */
struct src_id {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
};

/* States (see the top of this file) */
#define STATE_BASE 0
#define STATE_CLEAN 1
#define STATE_UID(uid) ((uint64_t)(uid) + 2)

/* The generations of one state that writes (view->lock): what its
 * caches were made from.  A user's is made with their state (their first
 * write); the owner's is the view's.  They only grow. */
struct state_gens {
	uint64_t state;
	uint64_t dir_gen;             /* bumped by its directory filter changes */
	uint64_t change_gen;          /* bumped by its every accepted write */
	/* why its last write to the root's `selections` was refused (NULL:
	 * it was not); freed with the directory filters (dfs_dirs_free) */
	char *selections_error;
	size_t filter_bytes;          /* its compiled filters (filter_memory) */
	size_t session_bytes;         /* its write sessions in progress */
};

struct entry {
	char *src;                    /* source path of the log (key) */
	uint64_t state;               /* whose filters (key) */
	char *vpath;                  /* its directory in the view */
	struct entry *hnext;
	pthread_mutex_t lock;
	int users;                    /* threads using it (view->lock) */

	/* from the header, read without decoding (for listings) */
	bool peeked;
	struct src_id peek_id;        /* the version peeked */
	uint64_t present;             /* modules with data */
	uint64_t partial;             /* modules flagged incomplete */
	bool damaged;                 /* a region runs past the end of the file */
	dfs_status peek_status;
	char *peek_error;

	/* filters: kept for the life of the view */
	uint64_t gen;                 /* bumped by every accepted write to it */
	/* it has a filter of its own (the log's, a module's) or imported
	 * rows: set with every write (view->lock) */
	bool own_filters;
	struct timespec changed;      /* when gen last moved */
	/* when a decoding found errors: the log directory lists ERROR from
	 * then on, so its modification time moves (listings are cached by
	 * that time) */
	struct timespec errors_seen;
	char *log_filter_text;
	char *log_filter_error;
	struct timespec log_filter_written;   /* when log_filter_text was */
	struct module_state *mod;     /* DFS_MOD_KNOWN slots, NULL until used */

	/* what jobs.csv shows for this log, NULL until computed, and how to
	 * free it (set by jobs.c through dfs_entry_keep_digest; the cache
	 * frees it with the entry, or evicts it after the decoded logs when
	 * over the budget: the view has an LRU list of each) */
	struct job_digest *digest;
	size_t digest_bytes;         /* counted in the cache */
	void (*digest_free)(struct job_digest *s);
	/* bytes of the imported rows of its module states: counted in the
	 * cache, never evicted (they are a selection, like a filter) */
	size_t import_bytes;
	/* bytes of its compiled log-wide and module filters: counted in the
	 * cache and in its state's filter_bytes, never evicted */
	size_t filter_bytes;

	/* while locked for a caller whose access to the log was checked
	 * (dfs_entry_expect): the version the check approved.  A peek or a
	 * decoding of any other file (a link or a directory on the way
	 * swapped meanwhile) is refused, DFS_ERR_ACCESS, and
	 * expect_refused set: nothing of a file the caller was not
	 * judged on is read for it.  Cleared by dfs_entry_put. */
	bool expect, expect_refused;
	struct src_id expect_id;

	/* decoded form, NULL when evicted */
	struct decoded_log *decoded;
	struct src_id decoded_id;      /* the version decoded */
	struct entry *lru_prev, *lru_next;   /* while it has a decoded log */
	struct entry *digest_prev, *digest_next;   /* while it has a digest */
};

struct dfs_view {
	char *source;
	bool single;                  /* SOURCE is one log file */
	dfs_view_options opt;
	pthread_mutex_t lock;
	struct entry **table;
	size_t table_size, entries;
	struct entry *lru_head, *lru_tail;   /* most recent first */
	struct entry *digest_head, *digest_tail;   /* the job digests, the same */
	size_t cached_bytes;
	size_t untrimmed;             /* bytes freed since the last trim */
	/* an eviction that met a log another thread held, or a log kept over
	 * the budget without a reader, is tried again a second later by a
	 * thread of its own (view->lock) */
	pthread_cond_t retry_cond;
	bool retry_wanted, retry_running, closing;
	atomic_ullong decodes;
	/* numbers the big snapshots the view makes (snapshot.c): their
	 * serials, unique among the view's */
	atomic_ullong next_serial;
	/* what a snapshot the cache keeps tells its view (snapshot.c calls
	 * them; view.c sets them to cache.c's dfs_cache_reader_gone and
	 * dfs_cache_freed): a reader let go of it, or the last reference to
	 * one the cache had dropped freed `bytes` */
	void (*reader_gone)(struct dfs_view *v);
	void (*freed)(struct dfs_view *v, size_t bytes);
	/* directory filters (view->lock) */
	struct dirstate *dirs;
	/* bumped when a log is found changed on disk: every state's
	 * jobs.csv may show it (view->lock) */
	uint64_t source_gen;
	struct jobs_cache *jobs;      /* recently rendered jobs.csv files */
	/* drop the rendered jobs.csv files older than their second; the
	 * bytes of those left (cache.c calls it, view->lock held; view.c
	 * sets it to jobs.c's dfs_jobs_cache_expire) */
	size_t (*jobs_expire)(struct dfs_view *v);
	size_t jobs_bytes;            /* of cached_bytes, theirs */
	/* the generations of the owner's state (STATE_BASE) and of each user
	 * with a state of their own, a user's made with it (view->lock) */
	struct state_gens base;
	struct state_gens *users;
	size_t nusers, users_cap;
	/* thresholds of the insights (-o insights=FILE), else the defaults */
	bool thresholds_set;
	dfs_insight_thresholds thresholds;
	/* the big arrays of this view's selections, accumulators and
	 * imports, recycled among them only (freed last by dfs_view_free) */
	dfs_scratch scratch;
	struct dfs_helpers helpers;   /* of this view's lazy snapshots */
	/* the selection of a module that had no memory for one (never
	 * changed: its status is not DFS_OK) */
	struct selection no_memory;
	/* the mount the view is served at (dfs_view_set_mount, before
	 * serving; read-only afterwards): nothing on it is ever looked at
	 * (node.c) */
	char *mount_path;
	dev_t mount_dev;
	bool mount_dev_known;
	/* the attributes of directories, for the checks of callers' access
	 * (access.c makes it, dfs_access_free frees it) */
	struct perm_cache *perms;
	/* what the write sessions in progress hold (view->lock; write.c) */
	size_t session_bytes;
	/* the persistent index (opt.index_path), opened when first needed
	 * (dfs_view_index) */
	pthread_mutex_t index_lock;
	struct dfs_index *index;
	char *index_path;             /* NULL: none, or it failed */
};

/* The filter of one source directory. */
struct dir_compiled {
	atomic_int refs;
	/* compiled per module when first asked (dfs_dir_filters_acquire),
	 * NULL = none: a filter of /2026 in a tree of POSIX and STDIO logs
	 * is compiled for those two */
	dfs_filter *f[DFS_MOD_KNOWN];
	pthread_mutex_t lock;         /* f and tried */
	uint64_t tried;               /* modules compiled for (bits) */
	/* the modules of which it may leave records out (it does not
	 * match every record of theirs), found when it was checked */
	uint64_t narrows;
	dfs_filter *any;              /* its regular expressions, shared */
	char *text;
	size_t len;
};

struct dirstate {
	char *vpath;                  /* "/" or "/2026/11" */
	uint64_t state;               /* whose filter */
	char *text;                   /* active filter, NULL = none */
	char *error;                  /* filter.error */
	struct dir_compiled *compiled;
	struct timespec written;      /* when `text` was installed */
	size_t bytes;                 /* compiled's, counted as the entries' */
	struct dirstate *next;
};

#endif
