/* lazy.h - records.csv and big tables rendered on demand, on helper
 * threads a view counts, and the row lengths measured while a log
 * decodes (lazy.c). */
#ifndef DFS_VIEW_LAZY_H
#define DFS_VIEW_LAZY_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "darshanfs/buf.h"
#include "darshanfs/log.h"
#include "darshanfs/view.h"
#include "view/import.h"
#include "view/snapshot.h"

/* The helper threads that render records.csv batches ahead of readers
 * (lazy.c), counted by the view whose snapshots they render, so that
 * the view's teardown waits for its own helpers and no other view's.
 * With them, the buffers batches are rendered into, kept when a snapshot
 * no longer needs them for the view's next one: a tree read file after
 * file then renders into the same warm memory instead of faulting in
 * megabytes of fresh pages for each file. */
#define DFS_SPARE_BUFS 8
/* The threads are few and kept: started when a batch is queued and none
 * is free, each waits for the next batch, and ends when it has had none
 * for a while (joined by the next start or the view's teardown). */
#define DFS_HELPER_THREADS 4
enum dfs_helper_state { DFS_HELPER_NONE, DFS_HELPER_RUNNING, DFS_HELPER_ENDED };
struct dfs_helpers {
	pthread_mutex_t lock;         /* with `done`, `work` (docs/locks.md) */
	pthread_cond_t done;          /* running fell to 0 / a thread ended */
	pthread_cond_t work;          /* a batch was queued, or stop */
	size_t running;               /* batches queued or being rendered */
	struct dfs_ahead_job *queue, *queue_tail;
	pthread_t thread[DFS_HELPER_THREADS];
	enum dfs_helper_state state[DFS_HELPER_THREADS];
	size_t threads, idle;         /* started and not ended; waiting */
	bool stop;                    /* teardown: every thread ends */
	dfs_buf spare[DFS_SPARE_BUFS];
	size_t nspare, spare_bytes;
};

/* records.csv of `count` records of `r` (record index[k], or k
 * when index is NULL), a snapshot rendered on demand; row_len (per record
 * of r, may be NULL) gives the rows' lengths when known and receives
 * them otherwise.  `rows` (may be NULL) is the import set r belongs to,
 * which the snapshot then keeps a reference to. */
dfs_snapshot *dfs_lazy_records(const dfs_log *log, const dfs_module *m,
                               const dfs_records *r, struct import_set *rows,
                               const size_t *index, size_t count,
                               uint32_t *row_len, struct dfs_helpers *helpers,
                               dfs_error *err);
/* A table rendered on demand the same way (files.csv of many files,
 * ranks.csv of many ranks): its rows [from, to) appended by render (from
 * any thread, at once), each batch's length told by measure without
 * rendering it, or (measure NULL) measured by rendering it once first;
 * the snapshot owns ctx (free, may be NULL) and counts `memory` bytes
 * for it.  row_room: the most a row asks of its buffer past the text
 * (dfs_csv_row_room). */
struct dfs_lazy_rows {
	void *ctx;
	size_t rows;
	void (*render)(const void *ctx, size_t from, size_t to, dfs_buf *out);
	void (*free)(void *ctx);
	size_t memory;
	size_t row_room;
	uint64_t (*measure)(const void *ctx, size_t from, size_t to);
};
/* A snapshot of header `head` and the rows of t (which it takes over,
 * freed even when it fails). */
dfs_snapshot *dfs_lazy_table(const struct dfs_lazy_rows *t, const char *head,
                             struct dfs_helpers *helpers, dfs_error *err);
/* The helpers of a view: none running yet / all gone (destroyed, with
 * the buffers they kept). */
void dfs_helpers_init(struct dfs_helpers *h);
/* The threads started and not ended */
size_t dfs_helpers_threads(struct dfs_helpers *h);
void dfs_helpers_destroy(struct dfs_helpers *h);
/* Free the spare buffers (memory goes back to the system). */
void dfs_helpers_trim(struct dfs_helpers *h);
/* Wait until no batch of the snapshots made with `h` is queued or being
 * rendered (view teardown: each holds a snapshot, and through it a log;
 * the idle threads are joined by dfs_helpers_destroy). */
void dfs_lazy_wait_idle(struct dfs_helpers *h);
/* The records.csv row lengths of a log's records, measured while
 * the log decodes (dfs_log_open_observed with the observer init gives),
 * and for a prefill (dfs_view_prefill) the text of one module's
 * records.csv, rendered instead of measured and handed out in order. */
struct fill_run;
#define DFS_FILL_POOL 8
#define DFS_FILL_PAGE 4096   /* the text is stored in whole pages of this size */
struct dfs_row_lens {
	pthread_mutex_t lock;
	uint32_t *len[DFS_MOD_SLOTS];
	size_t cap[DFS_MOD_SLOTS];
	size_t seen[DFS_MOD_SLOTS];   /* rows measured so far */
	bool missed[DFS_MOD_SLOTS];   /* some rows were not shown */
	/* the prefill: the module whose rows are rendered (-1: none) */
	int fill_module;
	const dfs_view_prefill *fill;
	bool fill_stopped;
	size_t fill_rows;             /* rows whose text is in order so far */
	uint64_t stored;              /* bytes handed to the store */
	char carry[DFS_FILL_PAGE];    /* the text after those, not stored yet */
	size_t carry_len;
	struct fill_run *ahead;       /* runs rendered before their turn */
	dfs_buf pool[DFS_FILL_POOL]; /* buffers to render runs into */
	size_t npool;
};
/* Measure while the log decodes; render and store records.csv of
 * `module` when pf is not NULL. */
void dfs_row_lens_init(struct dfs_row_lens *rl, dfs_log_observer *obs,
                       int module, const dfs_view_prefill *pf);
/* Move the lengths of every module measured whole into the empty slots
 * of row_len (free the rest); returns the bytes moved. */
size_t dfs_row_lens_take(struct dfs_row_lens *rl, const dfs_log *log,
                         uint32_t *row_len[DFS_MOD_SLOTS]);
/* Rows [from, to) of a selection as records.csv lines (see above). */
void dfs_render_rows(const dfs_log *log, const dfs_module *m, const dfs_records *r,
                     const size_t *index, size_t from, size_t to,
                     dfs_buf *out);
#endif
