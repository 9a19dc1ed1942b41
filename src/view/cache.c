/* cache.c - the entries of the view, one per log: header and filters
 * (kept while the log exists) and the decoded log with everything
 * derived from it (kept in an LRU cache bounded by a byte budget).
 *
 * The budget (cache_size) bounds the logs nobody reads.  A log being read
 * stays while a reader holds one of its cached renderings (its bytes stay
 * counted, so the other logs go first), and goes as soon as the last
 * reader lets go when the cache is over budget (dfs_cache_reader_gone);
 * what a reader holds after its log left the cache is freed with its last
 * reference (dfs_cache_freed).  A log kept over budget with no reader
 * (decoded for a stat, or busy when its reader let go) is tried again a
 * second later (retry_later).  Freed memory goes back to the system in
 * batches (malloc_trim).
 *
 * Counted too: what jobs.c keeps of each log for jobs.csv and
 * insights.csv (job digests, in an LRU list of their own, evicted
 * after the decoded logs and only when they and the idle logs are over
 * the budget), the rendered jobs.csv files (dropped when their second is
 * up) and imported rows (a selection like a filter: never evicted).
 *
 * A source log that changes on disk (another file, size, mtime or ctime:
 * see struct src_id) is decoded again on next access; its filters are
 * kept.  A log has an entry per state that reads it (view_int.h): the
 * table is keyed by (source path, state).
 *
 * Below the files that select and render: what they hang on an entry or
 * a decoded log (selections, job digests, the jobs.csv cache) is freed
 * here through the function each of them set with it (view_int.h). */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "filter/filter.h"
#include "index/index.h"
#include "util/scratch.h"
#include "darshanfs/hash.h"
#include "view/view_int.h"
#include "view/cache.h"
#include "view/dirs.h"

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

static void entry_free(struct entry *e);
static void lru_unlink(dfs_view *v, struct entry *e);
static void digest_unlink(dfs_view *v, struct entry *e);
static bool decoded_read(const struct decoded_log *l);
static void decoded_free(struct decoded_log *l);
static bool count_freed(dfs_view *v, size_t bytes);
static void trim(dfs_view *v);

/* Decoded logs taken out of the cache, to free without view->lock */
struct freed_list {
	struct decoded_log **l;
	size_t n, cap;
	bool trim;                    /* then hand the memory back */
};

static bool freed_add(struct freed_list *f, struct decoded_log *l)
{
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 64;
		struct decoded_log **grown = realloc(f->l, cap * sizeof(*grown));
		if (!grown)
			return false;
		f->l = grown;
		f->cap = cap;
	}
	f->l[f->n++] = l;
	return true;
}

static void freed_free(dfs_view *v, struct freed_list *f)
{
	for (size_t i = 0; i < f->n; i++)
		decoded_free(f->l[i]);
	free(f->l);
	if (f->trim)
		trim(v);
}

/* Forget the entries of logs that are gone from SOURCE (renamed away,
 * deleted), their filters with them: a tree whose logs are replaced by
 * others under new names would otherwise keep one entry per name ever
 * seen.  Only entries nobody uses; their decoded logs go to `freed`.
 * (view->lock held; a stat per entry: only when the table is about to
 * grow) */
static void forget_gone(dfs_view *v, struct freed_list *freed)
{
	struct stat st;
	for (size_t i = 0; i < v->table_size; i++) {
		for (struct entry **p = &v->table[i]; *p;) {
			struct entry *e = *p;
			if (e->users || stat(e->src, &st) == 0 ||
			    (errno != ENOENT && errno != ENOTDIR) ||
			    (e->decoded && (decoded_read(e->decoded) ||
			                   !freed_add(freed, e->decoded)))) {
				p = &e->hnext;
				continue;
			}
			*p = e->hnext;
			if (e->decoded) {
				v->cached_bytes -= e->decoded->bytes;
				freed->trim |= count_freed(v, e->decoded->bytes);
				e->decoded = NULL;
			}
			/* (entry_free frees the digest, the imports and the
			 * filters) */
			v->cached_bytes -= e->digest_bytes + e->import_bytes;
			dfs_state_uncharge_filters(v, e->state, e->filter_bytes);
			lru_unlink(v, e);
			digest_unlink(v, e);
			entry_free(e);
			v->entries--;
		}
	}
}

struct entry *dfs_entry_get(dfs_view *v, const struct node *n, dfs_error *err)
{
	struct freed_list freed = {0};
	pthread_mutex_lock(&v->lock);
	/* before the table grows: is it full of logs that are gone?  It
	 * grows anyway unless that made room for a quarter of it, so the
	 * stats cost a few per new entry at most. */
	if (v->entries >= v->table_size / 2) {
		forget_gone(v, &freed);
		if (v->entries >= v->table_size * 3 / 8 && grow_table(v)) {
			pthread_mutex_unlock(&v->lock);
			freed_free(v, &freed);
			dfs_error_nomem(err);
			return NULL;
		}
	}
	size_t h = hash_key(n->src, n->state) & (v->table_size - 1);
	struct entry *e = entry_find(v, n->src, n->state);
	if (!e) {
		e = entry_new(n);
		if (!e) {
			pthread_mutex_unlock(&v->lock);
			dfs_error_nomem(err);
			return NULL;
		}
		e->hnext = v->table[h];
		v->table[h] = e;
		v->entries++;
	}
	e->users++;
	pthread_mutex_unlock(&v->lock);
	freed_free(v, &freed);
	pthread_mutex_lock(&e->lock);
	return e;
}

int dfs_state_entries(dfs_view *v, uint64_t state, struct entry ***out, size_t *n)
{
	*out = NULL;
	*n = 0;
	pthread_mutex_lock(&v->lock);
	size_t count = 0;
	for (size_t i = 0; i < v->table_size; i++)
		for (struct entry *e = v->table[i]; e; e = e->hnext)
			count += e->state == state;
	struct entry **list = count ? malloc(count * sizeof(*list)) : NULL;
	if (count && !list) {
		pthread_mutex_unlock(&v->lock);
		return -1;
	}
	for (size_t i = 0; i < v->table_size; i++)
		for (struct entry *e = v->table[i]; e; e = e->hnext)
			if (e->state == state) {
				e->users++;
				list[(*n)++] = e;
			}
	pthread_mutex_unlock(&v->lock);
	*out = list;
	return 0;
}

void dfs_entry_lock(struct entry *e)
{
	pthread_mutex_lock(&e->lock);
}

uint64_t dfs_caller_state(const dfs_view *v, const dfs_caller *who)
{
	if (!v->opt.per_user || !who || who->uid == v->opt.owner)
		return STATE_BASE;
	return STATE_UID(who->uid);
}

int dfs_node_state(dfs_view *v, struct node *n, const dfs_caller *who,
                   bool writing, dfs_error *err)
{
	uint64_t own = dfs_caller_state(v, who);
	n->state = STATE_BASE;
	/* on a shared view the owner reads like any user: through the clean
	 * entry where nothing of theirs applies, so that the owner and the
	 * users who never wrote share one snapshot (one inode to the kernel,
	 * not one each that a lookup by the other replaces) */
	if (own == STATE_BASE && (!v->opt.per_user || writing))
		return 0;
	pthread_mutex_lock(&v->lock);
	/* a user's state, with its generations (dfs_state_gens), is made
	 * before their first write */
	bool has_state = dfs_state_gens(v, own) != NULL;
	if (writing && !has_state) {
		if (v->nusers == v->users_cap) {
			size_t cap = v->users_cap ? v->users_cap * 2 : 8;
			struct state_gens *u = realloc(v->users, cap * sizeof(*u));
			if (!u) {
				pthread_mutex_unlock(&v->lock);
				return dfs_error_nomem(err);
			}
			v->users = u;
			v->users_cap = cap;
		}
		v->users[v->nusers++] = (struct state_gens){.state = own};
	}
	if (writing)
		n->state = own;
	else if (!has_state)
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

static void decoded_count(dfs_view *v, struct entry *e);

void dfs_entry_expect(struct entry *e, const struct src_id *id)
{
	e->expect = id != NULL;
	e->expect_refused = false;
	if (id)
		e->expect_id = *id;
}

void dfs_entry_put(dfs_view *v, struct entry *e)
{
	e->expect = e->expect_refused = false;
	/* what the decoded log grew by on the way, untold */
	decoded_count(v, e);
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

bool dfs_src_id_same(const struct src_id *a, const struct src_id *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       same_time(&a->mtime, &b->mtime) && same_time(&a->ctime, &b->ctime);
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

/* The log of e open for a peek or a decoding, with its stat in *st: the
 * file the descriptor reads is the one st describes, and with an
 * expectation (dfs_entry_expect) the one approved.  -1 with err. */
static int open_log(dfs_view *v, struct entry *e, struct stat *st, dfs_error *err)
{
	int fd = open(e->src, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return dfs_error_set(err, errno == ENOENT ? DFS_ERR_NOENT : DFS_ERR_IO,
		                     "%s: %s", entry_label(v, e), strerror(errno));
	if (fstat(fd, st) != 0) {
		dfs_error_set(err, DFS_ERR_IO, "%s: %s", entry_label(v, e), strerror(errno));
		close(fd);
		return -1;
	}
	if (e->expect && (st->st_dev != e->expect_id.dev || st->st_ino != e->expect_id.ino)) {
		close(fd);
		e->expect_refused = true;
		return dfs_error_set(err, DFS_ERR_ACCESS, "%s: replaced since its access "
		                     "was checked", entry_label(v, e));
	}
	return fd;
}

int dfs_entry_peek(dfs_view *v, struct entry *e, const struct stat *st,
                   dfs_error *err)
{
	if (!e->peeked || !dfs_src_same(&e->peek_id, st)) {
		dfs_error perr = {0};
		/* with an expectation, only the file approved is read, and
		 * the peek tells of the very file read */
		struct stat fst;
		int fd = -1;
		if (e->expect) {
			if ((fd = open_log(v, e, &fst, &perr)) < 0 &&
			    perr.code == DFS_ERR_ACCESS)
				return dfs_error_set(err, DFS_ERR_ACCESS, "%s", perr.msg);
			if (fd >= 0)
				st = &fst;
		}
		free(e->peek_error);
		e->peek_error = NULL;
		e->peek_status = DFS_OK;
		dfs_log_header hdr;
		e->present = e->partial = 0;
		int pr = fd >= 0 ? dfs_log_peek_fd(fd, entry_label(v, e), &hdr, &perr)
		         : e->expect ? -1
		         : dfs_log_peek_as(e->src, entry_label(v, e), &hdr, &perr);
		if (fd >= 0)
			close(fd);
		if (pr) {
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

const struct module_state *dfs_entry_mod_find(const struct entry *e, int id)
{
	if (!e->mod || id < 0 || id >= DFS_MOD_KNOWN)
		return NULL;
	return &e->mod[id];
}

struct module_state *dfs_entry_mod_make(struct entry *e, int id)
{
	if (id < 0 || id >= DFS_MOD_KNOWN)
		return NULL;
	if (!e->mod && !(e->mod = calloc(DFS_MOD_KNOWN, sizeof(*e->mod))))
		return NULL;
	return &e->mod[id];
}

/* ---- decoded logs -------------------------------------------------------------- */

static void snapshot_cache_clear(struct snapshot_cache *c)
{
	for (int k = 0; k < F_KINDS; k++) {
		dfs_snapshot_uncache(c->file[k]);
		c->file[k] = NULL;
	}
}

/* Does a reader hold a rendering of this cache (a reference besides the
 * cache's own: an open file, a snapshot pinned for an open, a helper
 * rendering ahead of a reader)? */
static bool snapshot_cache_read(const struct snapshot_cache *c)
{
	for (int k = 0; k < F_KINDS; k++)
		if (c->file[k] && atomic_load(&c->file[k]->refs) > 1)
			return true;
	return false;
}

/* Is the decoded log being read right now?  Then eviction would free
 * nothing (the readers hold what they read) and the next open would
 * decode it again beside them.  (entry locked) */
static bool decoded_read(const struct decoded_log *l)
{
	if (snapshot_cache_read(&l->log_files))
		return true;
	for (int id = 0; id < DFS_MOD_SLOTS; id++)
		if (l->mod[id] && snapshot_cache_read(&l->mod[id]->files))
			return true;
	return false;
}

static void decoded_clear_derived(dfs_view *v, struct decoded_log *l)
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
		struct selection *s = &l->mod[id]->sel;
		if (s->clear)
			s->clear(s);
		snapshot_cache_clear(&l->mod[id]->files);
	}
	snapshot_cache_clear(&l->log_files);
	l->combined_ready = false;
}

struct decoded_mod *dfs_decoded_mod(struct decoded_log *l, int id)
{
	if (!l->mod[id] && (l->mod[id] = calloc(1, sizeof(*l->mod[id]))))
		l->uncounted += sizeof(*l->mod[id]);
	return l->mod[id];
}

/* Count what the decoded log of e took since it was last counted: the
 * module slots made when first asked for, an index its log built when
 * first asked for (entry locked). */
static void decoded_count(dfs_view *v, struct entry *e)
{
	struct decoded_log *l = e->decoded;
	if (!l)
		return;
	size_t add = l->uncounted, log = l->log ? dfs_log_memory(l->log) : 0;
	if (log > l->log_bytes) {
		add += log - l->log_bytes;
		l->log_bytes = log;
	}
	if (!add)
		return;
	l->uncounted = 0;
	pthread_mutex_lock(&v->lock);
	l->bytes += add;
	v->cached_bytes += add;
	pthread_mutex_unlock(&v->lock);
}

static void decoded_free(struct decoded_log *l)
{
	if (!l)
		return;
	decoded_clear_derived(NULL, l);
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		if (l->mod[id])
			free(l->mod[id]->row_len);
		free(l->mod[id]);
	}
	dfs_summary_names_free(l->names);
	dfs_log_free(l->log);
	free(l->error);
	free(l);
}

/* What was made of e's filters and log goes (entry locked). */
static void entry_moved(dfs_view *v, struct entry *e)
{
	e->gen++;
	clock_gettime(CLOCK_REALTIME, &e->changed);
	if (e->decoded)
		decoded_clear_derived(v, e->decoded);
}

void dfs_entry_bump(dfs_view *v, struct entry *e)
{
	bool own = e->log_filter_text && *e->log_filter_text;
	for (int id = 0; e->mod && id < DFS_MOD_KNOWN && !own; id++)
		own = (e->mod[id].filter_text && *e->mod[id].filter_text) || e->mod[id].imported;
	/* (a writing state has its generations: see dfs_node_state) */
	pthread_mutex_lock(&v->lock);
	struct state_gens *g = dfs_state_gens(v, e->state);
	if (g)
		g->change_gen++;
	e->own_filters = own;
	pthread_mutex_unlock(&v->lock);
	entry_moved(v, e);
}

bool dfs_entry_known(dfs_view *v, const char *src, uint64_t state)
{
	pthread_mutex_lock(&v->lock);
	bool known = entry_find(v, src, state) != NULL;
	pthread_mutex_unlock(&v->lock);
	return known;
}

void dfs_entry_forget_plain(dfs_view *v, const char *src, uint64_t state)
{
	pthread_mutex_lock(&v->lock);
	size_t h = hash_key(src, state) & (v->table_size - 1);
	struct entry **p = &v->table[h];
	while (*p && ((*p)->state != state || strcmp((*p)->src, src) != 0))
		p = &(*p)->hnext;
	struct entry *e = *p;
	if (!e || e->users || e->mod || e->log_filter_text || e->log_filter_error ||
	    e->errors_seen.tv_sec || e->import_bytes ||
	    (e->decoded && (decoded_read(e->decoded) || !e->decoded->log ||
	                   e->decoded->module_errors))) {
		pthread_mutex_unlock(&v->lock);
		return;
	}
	*p = e->hnext;
	size_t bytes = e->digest_bytes;
	if (e->decoded)
		bytes += e->decoded->bytes;
	v->cached_bytes -= bytes;
	bool do_trim = count_freed(v, bytes);
	lru_unlink(v, e);
	digest_unlink(v, e);
	v->entries--;
	pthread_mutex_unlock(&v->lock);
	entry_free(e);
	if (do_trim)
		trim(v);
}

bool dfs_entry_own_filters(dfs_view *v, const char *src, uint64_t state)
{
	pthread_mutex_lock(&v->lock);
	struct entry *e = entry_find(v, src, state);
	bool own = e && e->own_filters;
	pthread_mutex_unlock(&v->lock);
	return own;
}

struct dfs_index *dfs_view_index(dfs_view *v)
{
	pthread_mutex_lock(&v->index_lock);
	if (!v->index && v->index_path) {
		v->index = dfs_index_open(v->index_path, v->opt.notice, v->opt.notice_ctx);
		if (!v->index) {
			free(v->index_path);
			v->index_path = NULL;
		}
	}
	struct dfs_index *ix = v->index;
	pthread_mutex_unlock(&v->index_lock);
	return ix;
}

/* The two LRU lists, most recent first: the entries with a decoded log
 * (lru_*) and those with a job digest (digest_*).  (view->lock held) */
static struct entry **link_prev(struct entry *e, bool sum)
{
	return sum ? &e->digest_prev : &e->lru_prev;
}

static struct entry **link_next(struct entry *e, bool sum)
{
	return sum ? &e->digest_next : &e->lru_next;
}

static void list_unlink(dfs_view *v, struct entry *e, bool sum)
{
	struct entry **head = sum ? &v->digest_head : &v->lru_head;
	struct entry **tail = sum ? &v->digest_tail : &v->lru_tail;
	struct entry *prev = *link_prev(e, sum), *next = *link_next(e, sum);
	if (prev)
		*link_next(prev, sum) = next;
	else if (*head == e)
		*head = next;
	if (next)
		*link_prev(next, sum) = prev;
	else if (*tail == e)
		*tail = prev;
	*link_prev(e, sum) = *link_next(e, sum) = NULL;
}

static void list_front(dfs_view *v, struct entry *e, bool sum)
{
	struct entry **head = sum ? &v->digest_head : &v->lru_head;
	struct entry **tail = sum ? &v->digest_tail : &v->lru_tail;
	list_unlink(v, e, sum);
	*link_next(e, sum) = *head;
	if (*head)
		*link_prev(*head, sum) = e;
	*head = e;
	if (!*tail)
		*tail = e;
}

static void lru_unlink(dfs_view *v, struct entry *e)
{
	list_unlink(v, e, false);
}

static void lru_front(dfs_view *v, struct entry *e)
{
	list_front(v, e, false);
}

static void digest_unlink(dfs_view *v, struct entry *e)
{
	list_unlink(v, e, true);
}

/* Freed bytes that make an eviction hand memory back to the system */
#define TRIM_BYTES ((size_t)32 << 20)

/* Count freed bytes; true when it is time to hand them back to the
 * system, not to a thread arena: each trim costs every core a TLB flush,
 * and a few small logs freed at a time are reused by the next loads.
 * (view->lock held) */
static bool count_freed(dfs_view *v, size_t bytes)
{
	v->untrimmed += bytes;
	if (v->untrimmed < TRIM_BYTES && v->untrimmed < v->opt.cache_size / 4)
		return false;
	v->untrimmed = 0;
	return true;
}

static void trim(dfs_view *v)
{
	dfs_scratch_trim(&v->scratch);
	dfs_helpers_trim(&v->helpers);
	malloc_trim(0);
}

void dfs_view_memory_freed(dfs_view *v, size_t bytes)
{
	if (bytes >= ((size_t)1 << 20))
		trim(v);
}

/* Evict until the budget holds with `room` bytes to spare: the decoded
 * logs least recently used first, then, when that was not enough, the
 * job digests (small, and what jobs.csv is made of: the logs of a
 * tree need not be decoded again for it; they go only when they and the
 * idle logs are over the budget, not to make room for a log being read
 * or decoded), and rendered jobs.csv files once their second is up (a
 * second from now for those younger).  Kept:
 * `keep` (may be NULL), logs being read (see decoded_read: their bytes
 * stay counted, so the others go first), entries another thread is
 * working on and imported rows (a selection, not a cache).  Victims are
 * locked with trylock only: lock order forbids waiting. */
static void retry_later(dfs_view *v);

#define EVICT_BATCH 64

static void evict(dfs_view *v, struct entry *keep, size_t room)
{
	bool trimming = false, busy = false, more = true;
	size_t jobs_left = 0;
	while (more) {
		struct decoded_log *victims[EVICT_BATCH];
		struct job_digest *sums[EVICT_BATCH];
		void (*digest_frees[EVICT_BATCH])(struct job_digest *s);
		size_t n = 0, ns = 0;
		pthread_mutex_lock(&v->lock);
		size_t budget = v->opt.cache_size > room ? v->opt.cache_size - room : 0;
		/* decoded logs that stay (kept, read, busy): they do not push
		 * out the digests, nor does a rendered jobs.csv (it goes in
		 * a second anyway, and without them the next one would decode
		 * every log again) */
		size_t pinned = 0;
		struct entry *c = v->lru_tail;
		while (c && v->cached_bytes > budget && n < EVICT_BATCH) {
			struct entry *prev = c->lru_prev;
			if (c->decoded && c != keep && pthread_mutex_trylock(&c->lock) == 0) {
				if (!decoded_read(c->decoded)) {
					victims[n++] = c->decoded;
					v->cached_bytes -= c->decoded->bytes;
					trimming |= count_freed(v, c->decoded->bytes);
					c->decoded = NULL;
					lru_unlink(v, c);
				} else {
					pinned += c->decoded->bytes;
				}
				pthread_mutex_unlock(&c->lock);
			} else if (c->decoded) {
				busy |= c != keep;
				pinned += c->decoded->bytes;
			}
			c = prev;
		}
		/* the digests, when every log was looked at */
		size_t limit = v->opt.cache_size + pinned + v->jobs_bytes;
		for (c = n < EVICT_BATCH ? v->digest_tail : NULL;
		     c && v->cached_bytes > limit && ns < EVICT_BATCH;) {
			struct entry *prev = c->digest_prev;
			if (c->digest && c != keep && pthread_mutex_trylock(&c->lock) == 0) {
				sums[ns] = c->digest;
				digest_frees[ns++] = c->digest_free;
				v->cached_bytes -= c->digest_bytes;
				trimming |= count_freed(v, c->digest_bytes);
				c->digest = NULL;
				c->digest_bytes = 0;
				digest_unlink(v, c);
				pthread_mutex_unlock(&c->lock);
			} else if (c->digest && c != keep) {
				busy = true;
			}
			c = prev;
		}
		bool over = v->cached_bytes > budget;
		/* a batch full: there may be more to evict */
		more = over && (n == EVICT_BATCH ||
		                (ns == EVICT_BATCH && v->cached_bytes > limit));
		if (over && !more && v->jobs)
			jobs_left = v->jobs_expire(v);
		pthread_mutex_unlock(&v->lock);
		for (size_t i = 0; i < n; i++)
			decoded_free(victims[i]);
		for (size_t i = 0; i < ns; i++)
			digest_frees[i](sums[i]);
	}
	if (trimming)
		trim(v);
	if (busy || jobs_left)
		retry_later(v);
}

#define RETRY_NS 1000000000L

static void *retry_worker(void *arg)
{
	dfs_view *v = arg;
	pthread_mutex_lock(&v->lock);
	while (v->retry_wanted && !v->closing) {
		v->retry_wanted = false;
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += RETRY_NS / 1000000000L;
		while (!v->closing &&
		       pthread_cond_timedwait(&v->retry_cond, &v->lock, &until) != ETIMEDOUT)
			;
		if (v->closing)
			break;
		/* rendered jobs.csv files go when their second is up */
		if (v->jobs && v->jobs_expire(v))
			v->retry_wanted = true;
		bool over = v->cached_bytes > v->opt.cache_size;
		pthread_mutex_unlock(&v->lock);
		/* (a log still busy asks for another round) */
		if (over)
			evict(v, NULL, 0);
		pthread_mutex_lock(&v->lock);
	}
	v->retry_running = false;
	pthread_cond_broadcast(&v->retry_cond);
	pthread_mutex_unlock(&v->lock);
	return NULL;
}

/* Evict again in a second: by then the thread that held a log has let
 * it go, and a lookup's open has come (a log only looked up, never
 * opened, goes then). */
static void retry_later(dfs_view *v)
{
	pthread_mutex_lock(&v->lock);
	if (!v->closing) {
		v->retry_wanted = true;
		if (!v->retry_running) {
			pthread_attr_t attr;
			pthread_t tid;
			v->retry_running = pthread_attr_init(&attr) == 0;
			if (v->retry_running) {
				pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
				v->retry_running = pthread_create(&tid, &attr, retry_worker, v) == 0;
				pthread_attr_destroy(&attr);
			}
		}
	}
	pthread_mutex_unlock(&v->lock);
}

void dfs_cache_reader_gone(dfs_view *v)
{
	pthread_mutex_lock(&v->lock);
	bool over = v->cached_bytes > v->opt.cache_size;
	pthread_mutex_unlock(&v->lock);
	if (over)
		evict(v, NULL, 0);
}

void dfs_cache_freed(dfs_view *v, size_t bytes)
{
	pthread_mutex_lock(&v->lock);
	bool trimming = count_freed(v, bytes);
	pthread_mutex_unlock(&v->lock);
	if (trimming)
		trim(v);
}

/* The decoded log of another state's entry of the same source, when it
 * holds the version st describes: states share decoded logs (read only),
 * each makes its own selections of it.  (view->lock held; e->decoded and
 * decoded_id of an entry change only under it.)  Its bytes count in the
 * cache of each entry that holds it: the budget errs on the safe side. */
static const dfs_log *shared_log(dfs_view *v, const struct entry *e,
                                 const struct stat *st)
{
	if (!v->opt.per_user)
		return NULL;
	for (size_t k = 0; k < v->nusers + 2; k++) {
		uint64_t state = k == 0 ? STATE_BASE : k == 1 ? STATE_CLEAN
		                                             : v->users[k - 2].state;
		const struct entry *o = state == e->state ? NULL
		                                          : entry_find(v, e->src, state);
		if (o && o->decoded && o->decoded->log &&
		    dfs_src_same(&o->decoded_id, st))
			return dfs_log_ref(o->decoded->log);
	}
	return NULL;
}

struct decoded_log *dfs_entry_load(dfs_view *v, struct entry *e, dfs_error *err)
{
	return dfs_entry_load_prefill(v, e, -1, NULL, err);
}

struct decoded_log *dfs_entry_load_prefill(dfs_view *v, struct entry *e, int module,
                                           const dfs_view_prefill *pf, dfs_error *err)
{
	struct stat st;
	int fd = -1;
	/* with an expectation, the version approved is decoded, from the
	 * descriptor of the very file judged; the one kept serves when it
	 * is that version */
	if (e->expect && !(e->decoded && dfs_src_id_same(&e->decoded_id, &e->expect_id))) {
		if ((fd = open_log(v, e, &st, err)) < 0)
			return NULL;
	} else if (e->expect) {
		st.st_dev = e->decoded_id.dev;   /* (the same version: kept) */
		st.st_ino = e->decoded_id.ino;
		st.st_size = e->decoded_id.size;
		st.st_mtim = e->decoded_id.mtime;
		st.st_ctim = e->decoded_id.ctime;
	} else if (stat(e->src, &st) != 0) {
		dfs_error_set(err, errno == ENOENT ? DFS_ERR_NOENT : DFS_ERR_IO, "%s: %s",
		              entry_label(v, e), strerror(errno));
		return NULL;
	}
	if (e->decoded && !dfs_src_same(&e->decoded_id, &st)) {
		/* (detached under view->lock: other states' entries look at it
		 * there, see shared_log) */
		pthread_mutex_lock(&v->lock);
		struct decoded_log *old = e->decoded;
		v->cached_bytes -= old->bytes;
		lru_unlink(v, e);
		e->decoded = NULL;
		/* every state's jobs.csv may show the log */
		v->source_gen++;
		pthread_mutex_unlock(&v->lock);
		decoded_free(old);
		entry_moved(v, e);
	}
	if (!e->decoded) {
		/* make room first: a decoded log takes at least its file size, so
		 * logs about to be evicted anyway need not sit beside it while it
		 * decodes (the peak of memory) */
		evict(v, e, (size_t)st.st_size);
		struct decoded_log *l = calloc(1, sizeof(*l));
		if (!l) {
			if (fd >= 0)
				close(fd);
			dfs_error_nomem(err);
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
			l->log = fd >= 0 ? dfs_log_open_fd(fd, entry_label(v, e), 0, &obs, &lerr)
			                 : dfs_log_open_as(e->src, entry_label(v, e), 0, &obs, &lerr);
			row_bytes = dfs_row_lens_take(&rl, l->log, row_len);
			atomic_fetch_add(&v->decodes, 1);
		}
		if (!l->log) {
			l->status = lerr.code ? lerr.code : DFS_ERR_FORMAT;
			l->error = strdup(lerr.msg);
		}
		for (int id = 0; l->log && id < DFS_MOD_SLOTS; id++) {
			const dfs_log_module *lm = dfs_log_get_module(l->log, id);
			if (lm->present && lm->module && lm->status != DFS_OK)
				l->module_errors = true;
			/* the slots of the modules it has (others when asked) */
			if (lm->present)
				dfs_decoded_mod(l, id);
			if (row_len[id] && l->mod[id])
				l->mod[id]->row_len = row_len[id];
			else
				free(row_len[id]);
		}
		l->log_bytes = l->log ? dfs_log_memory(l->log) : 0;
		l->bytes = sizeof(*l) + l->uncounted + l->log_bytes + row_bytes;
		l->uncounted = 0;
		l->gen = e->gen;
		if (!l->log || l->module_errors)
			clock_gettime(CLOCK_REALTIME, &e->errors_seen);
		pthread_mutex_lock(&v->lock);
		l->dir_gen = dfs_state_dir_gen(v, e->state);
		e->decoded = l;
		dfs_src_id(&e->decoded_id, &st);
		v->cached_bytes += l->bytes;
		lru_front(v, e);
		pthread_mutex_unlock(&v->lock);
		evict(v, e, 0);
		/* over the budget alone: it goes when its readers let go, or a
		 * second from now if nobody opens it (a stat only) */
		pthread_mutex_lock(&v->lock);
		bool over = v->cached_bytes > v->opt.cache_size;
		pthread_mutex_unlock(&v->lock);
		if (over)
			retry_later(v);
	} else {
		pthread_mutex_lock(&v->lock);
		lru_front(v, e);
		pthread_mutex_unlock(&v->lock);
	}
	if (fd >= 0)
		close(fd);
	struct decoded_log *l = e->decoded;
	/* the state's directory filters changed since the selections were
	 * made (another state's apply to other entries) */
	pthread_mutex_lock(&v->lock);
	uint64_t dir_gen = dfs_state_dir_gen(v, e->state);
	pthread_mutex_unlock(&v->lock);
	if (l->dir_gen != dir_gen) {
		decoded_clear_derived(v, l);
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
	if (!e->decoded)
		return;
	pthread_mutex_lock(&v->lock);
	e->decoded->bytes += (size_t)delta;
	v->cached_bytes += (size_t)delta;
	pthread_mutex_unlock(&v->lock);
}

void dfs_entry_keep_digest(dfs_view *v, struct entry *e, struct job_digest *s,
                           size_t bytes, void (*free_fn)(struct job_digest *s))
{
	struct job_digest *old = e->digest;
	void (*old_free)(struct job_digest *s) = e->digest_free;
	pthread_mutex_lock(&v->lock);
	v->cached_bytes += bytes;
	v->cached_bytes -= e->digest_bytes;
	e->digest = s;
	e->digest_bytes = s ? bytes : 0;
	e->digest_free = free_fn;
	if (s)
		list_front(v, e, true);
	else
		digest_unlink(v, e);
	bool over = v->cached_bytes > v->opt.cache_size;
	pthread_mutex_unlock(&v->lock);
	if (old)
		old_free(old);
	if (over)
		evict(v, e, 0);
	/* (e's own, kept here: a second from now) */
	pthread_mutex_lock(&v->lock);
	over = v->cached_bytes > v->opt.cache_size;
	pthread_mutex_unlock(&v->lock);
	if (over)
		retry_later(v);
}

void dfs_entry_touch_digest(dfs_view *v, struct entry *e)
{
	pthread_mutex_lock(&v->lock);
	if (e->digest)
		list_front(v, e, true);
	pthread_mutex_unlock(&v->lock);
}

void dfs_entry_account_digest(dfs_view *v, struct entry *e, long delta)
{
	if (!e->digest)
		return;
	pthread_mutex_lock(&v->lock);
	e->digest_bytes += (size_t)delta;
	v->cached_bytes += (size_t)delta;
	pthread_mutex_unlock(&v->lock);
}

void dfs_entry_set_import(dfs_view *v, struct entry *e, struct module_state *ms,
                          struct import_set *set)
{
	size_t before = dfs_import_memory(ms->imported), after = dfs_import_memory(set);
	dfs_import_release(ms->imported);
	ms->imported = set;
	pthread_mutex_lock(&v->lock);
	e->import_bytes += after;
	e->import_bytes -= before;
	v->cached_bytes += after;
	v->cached_bytes -= before;
	pthread_mutex_unlock(&v->lock);
}

void dfs_view_account_jobs(dfs_view *v, long delta)
{
	v->cached_bytes += (size_t)delta;
	v->jobs_bytes += (size_t)delta;
}

void dfs_view_jobs_kept(dfs_view *v)
{
	dfs_cache_reader_gone(v);
	retry_later(v);
}

/* Account memory added to a decoded log after decoding (rendered files). */
void dfs_entry_account(dfs_view *v, struct entry *e, long delta)
{
	if (!e->decoded)
		return;
	pthread_mutex_lock(&v->lock);
	e->decoded->bytes += (size_t)delta;
	e->decoded->content_bytes += (size_t)delta;
	v->cached_bytes += (size_t)delta;
	pthread_mutex_unlock(&v->lock);
}

void dfs_entry_keep_content(dfs_view *v, struct entry *e, dfs_snapshot **slot,
                            dfs_snapshot *c)
{
	if (*slot) {
		dfs_entry_account(v, e, -(long)dfs_snapshot_memory(*slot));
		dfs_snapshot_uncache(*slot);
	}
	c->view = v;
	atomic_store(&c->cached, true);
	*slot = dfs_snapshot_ref(c);
	dfs_entry_account(v, e, (long)dfs_snapshot_memory(c));
}

static void entry_free(struct entry *e)
{
	decoded_free(e->decoded);
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
	if (e->digest)
		e->digest_free(e->digest);
	pthread_mutex_destroy(&e->lock);
	free(e->src);
	free(e->vpath);
	free(e);
}

/* ---- made and freed with the view (view.c) ------------------------------------ */

int dfs_entries_init(dfs_view *v)
{
	return grow_table(v);
}

void dfs_entries_free(dfs_view *v)
{
	pthread_mutex_lock(&v->lock);
	v->closing = true;
	pthread_cond_broadcast(&v->retry_cond);
	while (v->retry_running)
		pthread_cond_wait(&v->retry_cond, &v->lock);
	pthread_mutex_unlock(&v->lock);
	for (size_t i = 0; i < v->table_size; i++) {
		struct entry *e = v->table[i];
		while (e) {
			struct entry *next = e->hnext;
			entry_free(e);
			e = next;
		}
	}
	free(v->table);
	v->table = NULL;
	v->table_size = 0;
}
