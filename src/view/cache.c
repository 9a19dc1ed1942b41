/* cache.c - the entries of the view, one per log: header and filters
 * (kept for the life of the view) and the decoded log with everything
 * derived from it (kept in an LRU cache bounded by a byte budget).
 *
 * A source log that changes on disk (another file, size, mtime or ctime:
 * see struct src_id) is decoded again on next access; its filters are
 * kept.  A log has an entry per state that reads it (view_int.h): the
 * table is keyed by (source path, state). */
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "darshanfs/filter.h"
#include "darshanfs/scratch.h"
#include "darshanfs/hash.h"
#include "view/view_int.h"

static size_t hash_key(const char *s, uint64_t state)
{
	uint64_t h = dfs_fnv1a(DFS_FNV1A_INIT, s, strlen(s));
	return (size_t)dfs_fnv1a(h, &state, sizeof(state));
}

static int grow_table(dfs_view *v)
{
	size_t size = v->table_size ? v->table_size * 2 : 256;
	struct entry **t = calloc(size, sizeof(*t));
	if (!t)
		return -1;
	for (size_t i = 0; i < v->table_size; i++) {
		struct entry *e = v->table[i];
		while (e) {
			struct entry *next = e->hnext;
			size_t h = hash_key(e->src, e->state) & (size - 1);
			e->hnext = t[h];
			t[h] = e;
			e = next;
		}
	}
	free(v->table);
	v->table = t;
	v->table_size = size;
	return 0;
}

static struct entry *entry_new(const struct node *n)
{
	struct entry *e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->src = strdup(n->src);
	e->vpath = strdup(n->log_vpath ? n->log_vpath : "/");
	if (!e->src || !e->vpath) {
		free(e->src);
		free(e->vpath);
		free(e);
		return NULL;
	}
	e->state = n->state;
	pthread_mutex_init(&e->lock, NULL);
	return e;
}

/* view->lock held */
static struct entry *entry_find(dfs_view *v, const char *src, uint64_t state)
{
	size_t h = hash_key(src, state) & (v->table_size - 1);
	struct entry *e = v->table[h];
	while (e && (e->state != state || strcmp(e->src, src) != 0))
		e = e->hnext;
	return e;
}

struct entry *dfs_entry_get(dfs_view *v, const struct node *n, dfs_error *err)
{
	pthread_mutex_lock(&v->lock);
	if (v->entries >= v->table_size / 2 && grow_table(v)) {
		pthread_mutex_unlock(&v->lock);
		dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
		return NULL;
	}
	size_t h = hash_key(n->src, n->state) & (v->table_size - 1);
	struct entry *e = entry_find(v, n->src, n->state);
	if (!e) {
		e = entry_new(n);
		if (!e) {
			pthread_mutex_unlock(&v->lock);
			dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
			return NULL;
		}
		e->hnext = v->table[h];
		v->table[h] = e;
		v->entries++;
	}
	e->users++;
	pthread_mutex_unlock(&v->lock);
	pthread_mutex_lock(&e->lock);
	return e;
}

/* view->lock held */
static bool has_state(const dfs_view *v, uid_t uid)
{
	for (size_t i = 0; i < v->nusers; i++)
		if (v->users[i] == uid)
			return true;
	return false;
}

int dfs_node_state(dfs_view *v, struct node *n, const dfs_caller *who,
                   bool writing, dfs_error *err)
{
	n->state = STATE_BASE;
	if (!v->opt.per_user || !who || who->uid == v->opt.owner)
		return 0;
	uint64_t own = STATE_UID(who->uid);
	pthread_mutex_lock(&v->lock);
	if (writing && !has_state(v, who->uid)) {
		if (v->nusers == v->users_cap) {
			size_t cap = v->users_cap ? v->users_cap * 2 : 8;
			uid_t *u = realloc(v->users, cap * sizeof(*u));
			if (!u) {
				pthread_mutex_unlock(&v->lock);
				return dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
			}
			v->users = u;
			v->users_cap = cap;
		}
		v->users[v->nusers++] = who->uid;
	}
	if (writing)
		n->state = own;
	else if (!has_state(v, who->uid))
		n->state = STATE_CLEAN;
	else if (n->kind == N_SRCDIR || (n->kind == N_FILE && !n->log_vpath))
		n->state = own;   /* a source directory's files */
	else if ((n->src && entry_find(v, n->src, own)) ||
	         dfs_dir_state_above(v, own, n->log_vpath ? n->log_vpath : "/"))
		n->state = own;
	else
		n->state = STATE_CLEAN;
	pthread_mutex_unlock(&v->lock);
	return 0;
}

void dfs_entry_put(dfs_view *v, struct entry *e)
{
	pthread_mutex_unlock(&e->lock);
	pthread_mutex_lock(&v->lock);
	e->users--;
	pthread_mutex_unlock(&v->lock);
}

void dfs_src_id(struct src_id *id, const struct stat *st)
{
	id->dev = st->st_dev;
	id->ino = st->st_ino;
	id->size = st->st_size;
	id->mtime = st->st_mtim;
	id->ctime = st->st_ctim;
}

static bool same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

bool dfs_src_same(const struct src_id *id, const struct stat *st)
{
	return id->dev == st->st_dev && id->ino == st->st_ino &&
	       id->size == st->st_size && same_time(&id->mtime, &st->st_mtim) &&
	       same_time(&id->ctime, &st->st_ctim);
}

/* How errors name a log: its path relative to SOURCE (the file name of
 * a one-log mount), never the server's absolute path. */
static const char *entry_label(const dfs_view *v, const struct entry *e)
{
	size_t n = strlen(v->source);
	if (v->single || strncmp(e->src, v->source, n) != 0) {
		const char *slash = strrchr(e->src, '/');
		return slash && slash[1] ? slash + 1 : e->src;
	}
	const char *rel = e->src + n;
	while (*rel == '/')
		rel++;
	return *rel ? rel : e->src;
}

int dfs_entry_peek(dfs_view *v, struct entry *e, const struct stat *st,
                   dfs_error *err)
{
	if (!e->peeked || !dfs_src_same(&e->peek_id, st)) {
		dfs_error perr = {0};
		free(e->peek_error);
		e->peek_error = NULL;
		e->peek_status = DFS_OK;
		dfs_log_header hdr;
		e->present = e->partial = 0;
		if (dfs_log_peek_as(e->src, entry_label(v, e), &hdr, &perr)) {
			e->peek_status = perr.code ? perr.code : DFS_ERR_FORMAT;
			e->peek_error = strdup(perr.msg);
		} else {
			uint64_t size = (uint64_t)st->st_size;
			e->damaged = hdr.names.len > size || hdr.names.off > size - hdr.names.len;
			for (int id = 0; id < DFS_MOD_SLOTS; id++) {
				const dfs_region *r = &hdr.mods[id];
				if (r->len == 0)
					continue;
				e->present |= 1ULL << id;
				if (r->len > size || r->off > size - r->len)
					e->damaged = true;
			}
			e->partial = hdr.partial_flag;
		}
		e->peeked = true;
		dfs_src_id(&e->peek_id, st);
	}
	if (e->peek_status != DFS_OK)
		return dfs_error_set(err, e->peek_status, "%s",
		                     e->peek_error ? e->peek_error : "unreadable log");
	return 0;
}

bool dfs_entry_has_module(const struct entry *e, int id)
{
	if (e->peek_status != DFS_OK || id < 0 || id >= DFS_MOD_KNOWN)
		return false;
	const dfs_module *m = dfs_module_get(id);
	return m && ((e->present >> id) & 1);
}

const struct module_state *dfs_entry_mod_get(const struct entry *e, int id)
{
	if (!e->mod || id < 0 || id >= DFS_MOD_KNOWN)
		return NULL;
	return &e->mod[id];
}

struct module_state *dfs_entry_mod(struct entry *e, int id)
{
	if (id < 0 || id >= DFS_MOD_KNOWN)
		return NULL;
	if (!e->mod && !(e->mod = calloc(DFS_MOD_KNOWN, sizeof(*e->mod))))
		return NULL;
	return &e->mod[id];
}

/* ---- decoded logs -------------------------------------------------------------- */

static void content_cache_clear(struct content_cache *c)
{
	for (int k = 0; k < F_KINDS; k++) {
		dfs_content_release(c->file[k]);
		c->file[k] = NULL;
	}
}

static void loaded_clear_derived(dfs_view *v, struct loaded *l)
{
	if (v && l->content_bytes) {
		pthread_mutex_lock(&v->lock);
		v->cached_bytes -= l->content_bytes;
		pthread_mutex_unlock(&v->lock);
	}
	l->bytes -= l->content_bytes;
	l->content_bytes = 0;
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		if (!l->mod[id])
			continue;
		dfs_selection_free(&l->mod[id]->sel);
		content_cache_clear(&l->mod[id]->files);
	}
	content_cache_clear(&l->log_files);
	l->combined_ready = false;
}

struct loaded_mod *dfs_loaded_mod(struct loaded *l, int id)
{
	if (!l->mod[id])
		l->mod[id] = calloc(1, sizeof(*l->mod[id]));
	return l->mod[id];
}

static void loaded_free(struct loaded *l)
{
	if (!l)
		return;
	loaded_clear_derived(NULL, l);
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		if (l->mod[id])
			free(l->mod[id]->row_len);
		free(l->mod[id]);
	}
	dfs_log_free(l->log);
	free(l->error);
	free(l);
}

void dfs_entry_bump(dfs_view *v, struct entry *e)
{
	pthread_mutex_lock(&v->lock);
	v->change_gen++;
	pthread_mutex_unlock(&v->lock);
	e->gen++;
	clock_gettime(CLOCK_REALTIME, &e->changed);
	if (e->loaded)
		loaded_clear_derived(v, e->loaded);
}

static void lru_unlink(dfs_view *v, struct entry *e)
{
	if (e->lru_prev)
		e->lru_prev->lru_next = e->lru_next;
	else if (v->lru_head == e)
		v->lru_head = e->lru_next;
	if (e->lru_next)
		e->lru_next->lru_prev = e->lru_prev;
	else if (v->lru_tail == e)
		v->lru_tail = e->lru_prev;
	e->lru_prev = e->lru_next = NULL;
}

static void lru_front(dfs_view *v, struct entry *e)
{
	lru_unlink(v, e);
	e->lru_next = v->lru_head;
	if (v->lru_head)
		v->lru_head->lru_prev = e;
	v->lru_head = e;
	if (!v->lru_tail)
		v->lru_tail = e;
}

/* Freed bytes that make an eviction hand memory back to the system */
#define TRIM_BYTES ((size_t)32 << 20)

/* Evict least recently used logs until the budget holds with `room`
 * bytes to spare (e is kept).  Victims are locked with trylock only: lock
 * order forbids waiting. */
static void evict(dfs_view *v, struct entry *keep, size_t room)
{
	struct loaded *victims[64];
	size_t n = 0;
	bool trim = false;
	pthread_mutex_lock(&v->lock);
	size_t budget = v->opt.cache_size > room ? v->opt.cache_size - room : 0;
	struct entry *c = v->lru_tail;
	while (c && v->cached_bytes > budget && n < 64) {
		struct entry *prev = c->lru_prev;
		if (c != keep && c->loaded && pthread_mutex_trylock(&c->lock) == 0) {
			victims[n++] = c->loaded;
			v->cached_bytes -= c->loaded->bytes;
			v->untrimmed += c->loaded->bytes;
			c->loaded = NULL;
			lru_unlink(v, c);
			pthread_mutex_unlock(&c->lock);
		}
		c = prev;
	}
	/* hand freed memory back to the system, not to a thread arena, once
	 * there is enough of it: each trim costs every core a TLB flush, and
	 * a few small logs freed at a time are reused by the next loads */
	if (v->untrimmed >= TRIM_BYTES || v->untrimmed >= v->opt.cache_size / 4) {
		trim = true;
		v->untrimmed = 0;
	}
	pthread_mutex_unlock(&v->lock);
	for (size_t i = 0; i < n; i++)
		loaded_free(victims[i]);
	if (trim) {
		dfs_scratch_trim();
		malloc_trim(0);
	}
}

/* The decoded log of another state's entry of the same source, when it
 * holds the version st describes: states share decoded logs (read only),
 * each makes its own selections of it.  (view->lock held; e->loaded and
 * loaded_id of an entry change only under it.)  Its bytes count in the
 * cache of each entry that holds it: the budget errs on the safe side. */
static const dfs_log *shared_log(dfs_view *v, const struct entry *e,
                                 const struct stat *st)
{
	if (!v->opt.per_user)
		return NULL;
	for (size_t k = 0; k < v->nusers + 2; k++) {
		uint64_t state = k == 0 ? STATE_BASE : k == 1 ? STATE_CLEAN
		                                             : STATE_UID(v->users[k - 2]);
		const struct entry *o = state == e->state ? NULL
		                                          : entry_find(v, e->src, state);
		if (o && o->loaded && o->loaded->log &&
		    dfs_src_same(&o->loaded_id, st))
			return dfs_log_ref(o->loaded->log);
	}
	return NULL;
}

struct loaded *dfs_entry_load(dfs_view *v, struct entry *e, dfs_error *err)
{
	return dfs_entry_load_prefill(v, e, -1, NULL, err);
}

struct loaded *dfs_entry_load_prefill(dfs_view *v, struct entry *e, int module,
                                      const dfs_view_prefill *pf, dfs_error *err)
{
	struct stat st;
	if (stat(e->src, &st) != 0) {
		dfs_error_set(err, errno == ENOENT ? DFS_ERR_NOENT : DFS_ERR_IO, "%s: %s",
		              entry_label(v, e), strerror(errno));
		return NULL;
	}
	if (e->loaded && !dfs_src_same(&e->loaded_id, &st)) {
		/* (detached under view->lock: other states' entries look at it
		 * there, see shared_log) */
		pthread_mutex_lock(&v->lock);
		struct loaded *old = e->loaded;
		v->cached_bytes -= old->bytes;
		lru_unlink(v, e);
		e->loaded = NULL;
		pthread_mutex_unlock(&v->lock);
		loaded_free(old);
		dfs_entry_bump(v, e);
	}
	if (!e->loaded) {
		/* make room first: a decoded log takes at least its file size, so
		 * logs about to be evicted anyway need not sit beside it while it
		 * decodes (the peak of memory) */
		evict(v, e, (size_t)st.st_size);
		struct loaded *l = calloc(1, sizeof(*l));
		if (!l) {
			dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
			return NULL;
		}
		dfs_error lerr = {0};
		struct dfs_row_lens rl;
		dfs_log_observer obs;
		uint32_t *row_len[DFS_MOD_SLOTS] = {NULL};
		size_t row_bytes = 0;
		pthread_mutex_lock(&v->lock);
		l->log = (dfs_log *)shared_log(v, e, &st);
		pthread_mutex_unlock(&v->lock);
		if (!l->log) {
			/* the records.csv row lengths are measured on the core
			 * that waits while the log inflates */
			dfs_row_lens_init(&rl, &obs, module, pf);
			l->log = dfs_log_open_as(e->src, entry_label(v, e), 0, &obs, &lerr);
			row_bytes = dfs_row_lens_take(&rl, l->log, row_len);
			atomic_fetch_add(&v->decodes, 1);
		}
		if (!l->log) {
			l->status = lerr.code ? lerr.code : DFS_ERR_FORMAT;
			l->error = strdup(lerr.msg);
		}
		size_t mod_bytes = 0;
		for (int id = 0; l->log && id < DFS_MOD_SLOTS; id++) {
			const dfs_log_module *lm = dfs_log_get_module(l->log, id);
			if (lm->present && lm->module && lm->status != DFS_OK)
				l->module_errors = true;
			/* the slots of the modules it has (others when asked) */
			if (lm->present && dfs_loaded_mod(l, id))
				mod_bytes += sizeof(struct loaded_mod);
			if (row_len[id] && l->mod[id])
				l->mod[id]->row_len = row_len[id];
			else
				free(row_len[id]);
		}
		l->bytes = sizeof(*l) + mod_bytes + (l->log ? dfs_log_memory(l->log) : 0) +
		           row_bytes;
		l->gen = e->gen;
		if (!l->log || l->module_errors)
			clock_gettime(CLOCK_REALTIME, &e->errors_seen);
		pthread_mutex_lock(&v->lock);
		l->dir_gen = v->dir_gen;
		e->loaded = l;
		dfs_src_id(&e->loaded_id, &st);
		v->cached_bytes += l->bytes;
		lru_front(v, e);
		pthread_mutex_unlock(&v->lock);
		evict(v, e, 0);
	} else {
		pthread_mutex_lock(&v->lock);
		lru_front(v, e);
		pthread_mutex_unlock(&v->lock);
	}
	struct loaded *l = e->loaded;
	/* directory filters changed since the selections were made */
	pthread_mutex_lock(&v->lock);
	uint64_t dir_gen = v->dir_gen;
	pthread_mutex_unlock(&v->lock);
	if (l->dir_gen != dir_gen) {
		loaded_clear_derived(v, l);
		l->dir_gen = dir_gen;
	}
	if (!l->log) {
		dfs_error_set(err, l->status, "%s", l->error ? l->error : "unreadable log");
		return NULL;
	}
	return l;
}

void dfs_entry_account_kept(dfs_view *v, struct entry *e, long delta)
{
	if (!e->loaded)
		return;
	pthread_mutex_lock(&v->lock);
	e->loaded->bytes += (size_t)delta;
	v->cached_bytes += (size_t)delta;
	pthread_mutex_unlock(&v->lock);
}

/* Account memory added to a loaded log after decoding (rendered files). */
void dfs_entry_account(dfs_view *v, struct entry *e, long delta)
{
	if (!e->loaded)
		return;
	pthread_mutex_lock(&v->lock);
	e->loaded->bytes += (size_t)delta;
	e->loaded->content_bytes += (size_t)delta;
	v->cached_bytes += (size_t)delta;
	pthread_mutex_unlock(&v->lock);
}

/* ---- the view ------------------------------------------------------------------ */

dfs_view *dfs_view_new(const char *source, const dfs_view_options *opt,
                       dfs_error *err)
{
	struct stat st;
	if (stat(source, &st) != 0) {
		dfs_error_set(err, errno == ENOENT ? DFS_ERR_NOENT : DFS_ERR_IO, "%s: %s",
		              source, strerror(errno));
		return NULL;
	}
	if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
		dfs_error_set(err, DFS_ERR_INVAL,
		              "%s: not a directory or a Darshan log", source);
		return NULL;
	}
	dfs_view *v = calloc(1, sizeof(*v));
	if (!v || !(v->source = realpath(source, NULL))) {
		free(v);
		dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
		return NULL;
	}
	v->single = S_ISREG(st.st_mode);
	if (opt)
		v->opt = *opt;
	if (!v->opt.cache_size)
		v->opt.cache_size = DFS_VIEW_DEFAULT_CACHE;
	if (!v->opt.import_limit)
		v->opt.import_limit = DFS_VIEW_DEFAULT_IMPORT_LIMIT;
	pthread_mutex_init(&v->lock, NULL);
	if (grow_table(v)) {
		dfs_view_free(v);
		dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
		return NULL;
	}
	if (v->single) {
		/* check it is a log now, so a mount of garbage fails early */
		dfs_log_header h;
		if (dfs_log_peek(v->source, &h, err)) {
			dfs_view_free(v);
			return NULL;
		}
	}
	return v;
}

static void entry_free(struct entry *e)
{
	loaded_free(e->loaded);
	free(e->peek_error);
	free(e->log_filter_text);
	free(e->log_filter_error);
	for (int id = 0; e->mod && id < DFS_MOD_KNOWN; id++) {
		struct module_state *ms = &e->mod[id];
		free(ms->filter_text);
		free(ms->error_text);
		dfs_filter_free(ms->filter);
		dfs_filter_free(ms->log_filter);
		dfs_import_release(ms->imported);
	}
	free(e->mod);
	dfs_job_summary_free(e->summary);
	pthread_mutex_destroy(&e->lock);
	free(e->src);
	free(e->vpath);
	free(e);
}

void dfs_view_free(dfs_view *v)
{
	if (!v)
		return;
	/* records.csv helpers still rendering hold snapshots: let them end */
	dfs_lazy_wait_idle();
	for (size_t i = 0; i < v->table_size; i++) {
		struct entry *e = v->table[i];
		while (e) {
			struct entry *next = e->hnext;
			entry_free(e);
			e = next;
		}
	}
	free(v->table);
	free(v->users);
	dfs_dirs_free(v);
	dfs_jobs_cache_free(v);
	pthread_mutex_destroy(&v->lock);
	free(v->source);
	free(v);
}

uint64_t dfs_view_decode_count(dfs_view *v)
{
	return atomic_load(&v->decodes);
}
