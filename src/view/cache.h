/* cache.h - the view's entries, one per log, and their caches (cache.c):
 * finding, locking and giving back an entry, its filters' module states,
 * its decoded log (loaded on demand, evicted least recently used first
 * past cache_size), the job digests and rendered jobs.csv counted in the
 * same budget, and the persistent index the view opens when first asked. */
#ifndef DFS_VIEW_CACHE_H
#define DFS_VIEW_CACHE_H

#include "view/view_int.h"

/* The entry table of a new view (0, or -1 without memory) / every entry
 * freed, after the retry thread ended (the view's teardown). */
int dfs_entries_init(dfs_view *v);
void dfs_entries_free(dfs_view *v);
/* What a snapshot the cache keeps tells the view (dfs_view.reader_gone,
 * .freed): a reader let go (evict when over the budget), or the last
 * reference to one the cache no longer held freed `bytes`. */
void dfs_cache_reader_gone(dfs_view *v);
void dfs_cache_freed(dfs_view *v, size_t bytes);

/* The state n shows to `who` (a read; `writing`: a write, which
 * gives a user a state of their own).  Sets n->state; -1 without memory. */
int dfs_node_state(dfs_view *v, struct node *n, const dfs_caller *who,
                   bool writing, dfs_error *err);
/* The state whose writes change what `who` reads: the owner's
 * (STATE_BASE), or the user's own, written to yet or not (until it is,
 * what they read is the clean state's, which never changes). */
uint64_t dfs_caller_state(const dfs_view *v, const dfs_caller *who);
/* The version st describes; is it the one id holds? */
void dfs_src_id(struct src_id *id, const struct stat *st);
bool dfs_src_same(const struct src_id *id, const struct stat *st);
bool dfs_src_id_same(const struct src_id *a, const struct src_id *b);

/* Slot id of l, made (empty) when first asked; NULL without
 * memory. */
struct decoded_mod *dfs_decoded_mod(struct decoded_log *l, int id);

/* The entries of a state's, each marked in use (not locked): lock one
 * with dfs_entry_lock, give each back with dfs_entry_put; free the
 * array.  -1 without memory. */
int dfs_state_entries(dfs_view *v, uint64_t state, struct entry ***out, size_t *n);
void dfs_entry_lock(struct entry *e);
/* Find or create the entry of a log and mark it in use; lock it. */
struct entry *dfs_entry_get(dfs_view *v, const struct node *n, dfs_error *err);
void dfs_entry_put(dfs_view *v, struct entry *e);
/* What e's peeks and decodings may read while it is locked: the version
 * id (NULL: any, the path's own), see entry.expect. */
void dfs_entry_expect(struct entry *e, const struct src_id *id);
/* Header of the log (cheap); 0 or -1 with err. */
int dfs_entry_peek(dfs_view *v, struct entry *e, const struct stat *st,
                   dfs_error *err);
/* The decoded log, loading it if needed; NULL if the log cannot be read
 * (then err says why). */
struct decoded_log *dfs_entry_load(dfs_view *v, struct entry *e, dfs_error *err);
/* The same, rendering records.csv of `module` for pf->store as the log
 * decodes (see dfs_view_prefill). */
struct decoded_log *dfs_entry_load_prefill(dfs_view *v, struct entry *e, int module,
                                           const dfs_view_prefill *pf, dfs_error *err);
/* logs smaller than this are not offered for a prefill */
#define DFS_PREFILL_MIN_BYTES ((uint64_t)8 << 20)
/* Memory added to (or freed from) a decoded log's caches. */
void dfs_entry_account(dfs_view *v, struct entry *e, long delta);
/* Keep rendering c in *slot of e's decoded log (which takes a reference
 * of its own) and count its bytes: every cached rendering goes through
 * here, so cache_size sees them all. */
void dfs_entry_keep_content(dfs_view *v, struct entry *e, dfs_snapshot **slot,
                            dfs_snapshot *c);
/* Account memory that stays with the decoded log whatever the filters. */
void dfs_entry_account_kept(dfs_view *v, struct entry *e, long delta);
/* Keep s (of `bytes`) as e's job digest in place of the one it had, and
 * count it; free_fn frees it (entry locked).  Over the budget, job
 * digests go after the decoded logs, least recently used first. */
void dfs_entry_keep_digest(dfs_view *v, struct entry *e, struct job_digest *s,
                           size_t bytes, void (*free_fn)(struct job_digest *s));
/* e's job digest was used: the last to go (entry locked). */
void dfs_entry_touch_digest(dfs_view *v, struct entry *e);
/* Bytes added to (or taken from) e's job digest (entry locked). */
void dfs_entry_account_digest(dfs_view *v, struct entry *e, long delta);
/* `bytes` of memory freed: handed back to the system now when they are
 * a MiB or more (the view's recycled blocks too). */
void dfs_view_memory_freed(dfs_view *v, size_t bytes);
/* Make `set` the imported rows of ms, one of e's module states (NULL:
 * none), releasing those it had; counts them (entry locked). */
void dfs_entry_set_import(dfs_view *v, struct entry *e, struct module_state *ms,
                          struct import_set *set);
/* Bytes the rendered jobs.csv files now hold changed by delta (view->lock
 * held: the jobs cache lives under it).  They go when their second is up;
 * over the budget, the decoded logs go first. */
void dfs_view_account_jobs(dfs_view *v, long delta);
/* A rendered jobs.csv was kept: evict now if that put the cache over
 * its budget, and drop it once its second is up (call without locks). */
void dfs_view_jobs_kept(dfs_view *v);

/* Drop the caches of the current generation and bump it. */
void dfs_entry_bump(dfs_view *v, struct entry *e);
/* Has the view an entry of the log at src in `state`?  Takes view->lock. */
bool dfs_entry_known(dfs_view *v, const char *src, uint64_t state);
/* Forget that entry if it holds nothing but caches (no filter, error
 * text or import of its own ever, nothing a reader uses, no decoding
 * error to remember): what the tables need of it is in the index.
 * Takes view->lock; call with no entry locked. */
void dfs_entry_forget_plain(dfs_view *v, const char *src, uint64_t state);
/* Has the log at src a filter of its own or imported rows in `state`
 * (its entry's own_filters)?  Takes view->lock. */
bool dfs_entry_own_filters(dfs_view *v, const char *src, uint64_t state);
/* The view's persistent index, opened at the first call; NULL when it
 * has none. */
struct dfs_index *dfs_view_index(dfs_view *v);
/* Modules that get a directory, from the header. */
bool dfs_entry_has_module(const struct entry *e, int id);
/* Filter state of a module: NULL if it never had any (entry_mod_find), or
 * created on demand (entry_mod_make, NULL only when out of memory). */
const struct module_state *dfs_entry_mod_find(const struct entry *e, int id);
struct module_state *dfs_entry_mod_make(struct entry *e, int id);

#endif
