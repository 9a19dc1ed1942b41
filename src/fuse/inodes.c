/* inodes.c - the inode table of the FUSE front end: inode numbers for
 * (path, snapshot serial) pairs, with the kernel's lookup counts.
 *
 * The same path and serial always map to the same inode while the kernel
 * holds it, so reading an unchanged file again hits the page cache; a new
 * serial gets a new inode, and so does a writer (see fs.h).  The number
 * of an inode the kernel forgot is given again to the same snapshot's
 * next lookup (see DFS_FORGOTTEN).  The root is inode 1 and is never
 * forgotten. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "darshanfs.h"
#include "fuse/fs.h"

static void dirlist_unref(struct dfs_dirlist *dl);

static size_t hash_key(const char *path, uint64_t serial, bool writer)
{
	uint64_t h = dfs_fnv1a(DFS_FNV1A_INIT ^ serial, path, strlen(path));
	h ^= writer ? 0x5bd1e995ULL : 0;
	return (size_t)(h ^ (h >> 31));
}

#define REDIRECT_NS 1000000000ULL   /* how long a pin (or a pin mark) lasts */
/* How long a writer mark waits for the open it is for (which takes it
 * away): the kernel sends that open's lookup right after our ESTALE, but
 * a daemon whose threads are all busy (logs decoding) may read it seconds
 * later, and a mark gone by then fails the writer's open with ESTALE.  A
 * mark left over (its open failed otherwise) only makes that thread's
 * lookups of the path give the writer inode, read without the page cache. */
#define WRITER_MARK_NS 30000000000ULL

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static size_t hash_ino(fuse_ino_t ino)
{
	uint64_t x = ino * 0x9e3779b97f4a7c15ULL;
	return (size_t)(x ^ (x >> 29));
}

static int grow(struct dfs_inodes *t)
{
	size_t size = t->size ? t->size * 2 : 1024;
	struct dfs_inode **a = calloc(size, sizeof(*a)), **b = calloc(size, sizeof(*b));
	if (!a || !b) {
		free(a);
		free(b);
		return -1;
	}
	for (size_t i = 0; i < t->size; i++)
		for (struct dfs_inode *n = t->ino_table[i], *next; n; n = next) {
			next = n->by_ino;
			size_t h = hash_ino(n->ino) & (size - 1);
			n->by_ino = a[h];
			a[h] = n;
			size_t k = hash_key(n->path, n->serial, n->writer) & (size - 1);
			n->by_key = b[k];
			b[k] = n;
		}
	free(t->ino_table);
	free(t->key_table);
	t->ino_table = a;
	t->key_table = b;
	t->size = size;
	return 0;
}

int dfs_inodes_init(struct dfs_inodes *t)
{
	memset(t, 0, sizeof(*t));
	pthread_mutex_init(&t->lock, NULL);
	t->next = FUSE_ROOT_ID + 1;
	return grow(t);
}

void dfs_inodes_free(struct dfs_inodes *t)
{
	for (size_t i = 0; i < t->size; i++)
		for (struct dfs_inode *n = t->ino_table[i], *next; n; n = next) {
			next = n->by_ino;
			dirlist_unref(n->listing);
			dfs_snapshot_release(n->pin);
			free(n->path);
			free(n);
		}
	free(t->ino_table);
	free(t->key_table);
	for (int i = 0; i < DFS_REDIRECTS; i++)
		free(t->redirect[i].path);
	for (size_t i = 0; i < DFS_FORGOTTEN; i++)
		free(t->forgotten[i].path);
	pthread_mutex_destroy(&t->lock);
	memset(t, 0, sizeof(*t));
}

static struct dfs_inode *find_ino(struct dfs_inodes *t, fuse_ino_t ino)
{
	struct dfs_inode *n = t->ino_table[hash_ino(ino) & (t->size - 1)];
	while (n && n->ino != ino)
		n = n->by_ino;
	return n;
}

/* (lock held) */
static struct dfs_inode *find_key(struct dfs_inodes *t, const char *path,
                                  uint64_t serial, bool writer)
{
	struct dfs_inode *n = t->key_table[hash_key(path, serial, writer) & (t->size - 1)];
	while (n && !(n->serial == serial && n->writer == writer && strcmp(n->path, path) == 0))
		n = n->by_key;
	return n;
}

/* The mark of (path, pid), or when make and there is none a free slot
 * (the one nearest its end when none is free); NULL if none.  Marks
 * past their time are freed on the way (lock held). */
static struct dfs_redirect *find_redirect(struct dfs_inodes *t, const char *path,
                                          pid_t pid, bool make)
{
	uint64_t now = now_ns();
	struct dfs_redirect *slot = NULL;
	for (int i = 0; i < DFS_REDIRECTS; i++) {
		struct dfs_redirect *r = &t->redirect[i];
		if (r->path && r->until_ns <= now) {
			free(r->path);
			r->path = NULL;
		}
		if (r->path && r->pid == pid && strcmp(r->path, path) == 0)
			return r;
		if (!slot || (slot->path && (!r->path || r->until_ns < slot->until_ns)))
			slot = r;
	}
	if (!make)
		return NULL;
	free(slot->path);
	slot->path = NULL;
	return slot;
}

/* The number the kernel knew the snapshot by before it forgot it, taken
 * out of the list; 0 if none (lock held). */
static fuse_ino_t reuse_number(struct dfs_inodes *t, const char *path,
                               uint64_t serial, bool writer)
{
	uint64_t h = hash_key(path, serial, writer);
	for (size_t i = 0; i < DFS_FORGOTTEN; i++) {
		struct dfs_forgotten *f = &t->forgotten[i];
		if (f->path && f->hash == h && f->serial == serial &&
		    f->writer == writer && strcmp(f->path, path) == 0) {
			free(f->path);
			f->path = NULL;
			return f->ino;
		}
	}
	return 0;
}

/* Remember a forgotten inode's number (it takes its path; lock held). */
static void remember_number(struct dfs_inodes *t, struct dfs_inode *n)
{
	struct dfs_forgotten *f = &t->forgotten[t->forgotten_next];
	t->forgotten_next = (t->forgotten_next + 1) % DFS_FORGOTTEN;
	free(f->path);
	f->path = n->path;
	n->path = NULL;
	f->serial = n->serial;
	f->hash = hash_key(f->path, f->serial, n->writer);
	f->writer = n->writer;
	f->ino = n->ino;
}

static bool marked(struct dfs_inodes *t, const char *path, int kind, pid_t pid)
{
	struct dfs_redirect *r = find_redirect(t, path, pid, false);
	return r && (r->kinds & kind);
}

static struct dfs_inode *ref(struct dfs_inodes *t, const char *path,
                              const dfs_node_stat *st, bool pending, pid_t pid)
{
	uint64_t serial = st->is_dir ? 0 : st->serial;
	pthread_mutex_lock(&t->lock);
	bool writer = !st->is_dir && marked(t, path, DFS_MARK_WRITER, pid);
	if (writer && pending) {   /* the writer's lookup: the plain way */
		pthread_mutex_unlock(&t->lock);
		return NULL;
	}
	struct dfs_inode *n = find_key(t, path, serial, writer);
	if (n && pending && !n->pending) {
		/* the same snapshot, its size known */
		pthread_mutex_unlock(&t->lock);
		return NULL;
	}
	if (!n) {
		if (t->count + 1 > t->size / 2 && grow(t)) {
			pthread_mutex_unlock(&t->lock);
			return NULL;
		}
		n = calloc(1, sizeof(*n));
		if (!n || !(n->path = strdup(path))) {
			free(n);
			pthread_mutex_unlock(&t->lock);
			return NULL;
		}
		bool root = strcmp(path, "/") == 0;
		fuse_ino_t again = root ? 0 : reuse_number(t, path, serial, writer);
		n->ino = root ? FUSE_ROOT_ID : again ? again : t->next++;
		n->serial = serial;
		n->writer = writer;
		size_t h = hash_ino(n->ino) & (t->size - 1);
		n->by_ino = t->ino_table[h];
		t->ino_table[h] = n;
		size_t k = hash_key(path, serial, writer) & (t->size - 1);
		n->by_key = t->key_table[k];
		t->key_table[k] = n;
		t->count++;
	}
	/* (a lookup that waited for the size settles a pending inode) */
	n->st = *st;
	n->pending = pending;
	n->nlookup++;
	pthread_mutex_unlock(&t->lock);
	return n;
}

struct dfs_inode *dfs_inode_ref(struct dfs_inodes *t, const char *path,
                                const dfs_node_stat *st, pid_t pid)
{
	return ref(t, path, st, false, pid);
}

struct dfs_inode *dfs_inode_ref_pending(struct dfs_inodes *t, const char *path,
                                        const dfs_node_stat *st, pid_t pid)
{
	return ref(t, path, st, true, pid);
}

void dfs_inode_settle(struct dfs_inodes *t, fuse_ino_t ino, const dfs_node_stat *st)
{
	pthread_mutex_lock(&t->lock);
	struct dfs_inode *n = find_ino(t, ino);
	if (n && n->pending && st && st->serial == n->serial) {
		n->st = *st;
		n->pending = false;
	}
	pthread_mutex_unlock(&t->lock);
}

char *dfs_inode_path(struct dfs_inodes *t, fuse_ino_t ino, uint64_t *serial,
                     dfs_node_stat *st, bool *pending)
{
	pthread_mutex_lock(&t->lock);
	struct dfs_inode *n = find_ino(t, ino);
	char *path = NULL;
	if (pending)
		*pending = n && n->pending;
	if (n) {
		path = strdup(n->path);
		if (serial)
			*serial = n->serial;
		if (st)
			*st = n->st;
	} else if (ino == FUSE_ROOT_ID) {
		path = strdup("/");
		if (serial)
			*serial = 0;
		if (st)
			memset(st, 0, sizeof(*st));
	}
	pthread_mutex_unlock(&t->lock);
	return path;
}

bool dfs_inode_is_writer(struct dfs_inodes *t, fuse_ino_t ino)
{
	pthread_mutex_lock(&t->lock);
	struct dfs_inode *n = find_ino(t, ino);
	bool writer = n && n->writer;
	pthread_mutex_unlock(&t->lock);
	return writer;
}

void dfs_inode_mark(struct dfs_inodes *t, fuse_ino_t ino, int kind, pid_t pid)
{
	pthread_mutex_lock(&t->lock);
	struct dfs_inode *n = find_ino(t, ino);
	struct dfs_redirect *r = n ? find_redirect(t, n->path, pid, true) : NULL;
	if (r && !r->path && (r->path = strdup(n->path))) {
		r->kinds = 0;
		r->pid = pid;
	}
	if (r && r->path) {
		uint64_t until = now_ns() + (kind & DFS_MARK_WRITER ? WRITER_MARK_NS : REDIRECT_NS);
		if (!r->kinds || until > r->until_ns)
			r->until_ns = until;
		r->kinds |= kind;
	}
	pthread_mutex_unlock(&t->lock);
}

bool dfs_inode_marked(struct dfs_inodes *t, const char *path, int kind, pid_t pid)
{
	pthread_mutex_lock(&t->lock);
	bool m = marked(t, path, kind, pid);
	pthread_mutex_unlock(&t->lock);
	return m;
}

void dfs_inode_unmark(struct dfs_inodes *t, const char *path, int kind, pid_t pid)
{
	pthread_mutex_lock(&t->lock);
	struct dfs_redirect *r = find_redirect(t, path, pid, false);
	if (r && !(r->kinds &= ~kind)) {
		free(r->path);
		r->path = NULL;
	} else if (r && (kind & DFS_MARK_WRITER)) {
		/* (a pin mark left: its second, not the writer's wait) */
		uint64_t until = now_ns() + REDIRECT_NS;
		if (until < r->until_ns)
			r->until_ns = until;
	}
	pthread_mutex_unlock(&t->lock);
}

/* (lock held) */
static void pinned_unlink(struct dfs_inodes *t, struct dfs_inode *n)
{
	for (struct dfs_inode **p = &t->pinned; *p; p = &(*p)->pinned_next)
		if (*p == n) {
			*p = n->pinned_next;
			n->pinned_next = NULL;
			return;
		}
}

void dfs_inode_pin(struct dfs_inodes *t, fuse_ino_t ino, dfs_snapshot *c)
{
	pthread_mutex_lock(&t->lock);
	struct dfs_inode *n = find_ino(t, ino);
	dfs_snapshot *old = c;
	if (n && dfs_snapshot_serial(c) == n->serial) {
		old = n->pin;
		if (!old) {
			n->pinned_next = t->pinned;
			t->pinned = n;
		}
		n->pin = c;
		n->pin_until_ns = now_ns() + REDIRECT_NS;
	}
	pthread_mutex_unlock(&t->lock);
	dfs_snapshot_release(old);
}

void dfs_inodes_expire_pins(struct dfs_inodes *t)
{
	dfs_snapshot *gone[16];
	size_t n = 0;
	uint64_t now = now_ns();
	pthread_mutex_lock(&t->lock);
	for (struct dfs_inode **p = &t->pinned; *p && n < 16;) {
		struct dfs_inode *i = *p;
		if (i->pin_until_ns > now) {
			p = &i->pinned_next;
			continue;
		}
		gone[n++] = i->pin;
		i->pin = NULL;
		*p = i->pinned_next;
		i->pinned_next = NULL;
	}
	pthread_mutex_unlock(&t->lock);
	/* (a release may let the view evict: not under the table's lock) */
	for (size_t i = 0; i < n; i++)
		dfs_snapshot_release(gone[i]);
}

dfs_snapshot *dfs_inode_pinned(struct dfs_inodes *t, fuse_ino_t ino)
{
	dfs_snapshot *c = NULL, *old = NULL;
	pthread_mutex_lock(&t->lock);
	struct dfs_inode *n = find_ino(t, ino);
	if (n && n->pin && n->pin_until_ns <= now_ns()) {
		old = n->pin;   /* kept long enough */
		n->pin = NULL;
		pinned_unlink(t, n);
	} else if (n && n->pin) {
		c = dfs_snapshot_ref(n->pin);
	}
	pthread_mutex_unlock(&t->lock);
	dfs_snapshot_release(old);
	return c;
}

static void dirlist_free(struct dfs_dirlist *dl)
{
	for (size_t i = 0; i < dl->n; i++)
		free(dl->items[i].name);
	free(dl->items);
	free(dl);
}

/* (lock held) */
static void dirlist_unref(struct dfs_dirlist *dl)
{
	if (dl && --dl->refs == 0)
		dirlist_free(dl);
}

void dfs_dirlist_put(struct dfs_inodes *t, struct dfs_dirlist *dl)
{
	pthread_mutex_lock(&t->lock);
	dirlist_unref(dl);
	pthread_mutex_unlock(&t->lock);
}

struct dfs_dirlist *dfs_inode_listing(struct dfs_inodes *t, fuse_ino_t ino)
{
	pthread_mutex_lock(&t->lock);
	struct dfs_inode *n = find_ino(t, ino);
	struct dfs_dirlist *dl = n ? n->listing : NULL;
	if (dl)
		dl->refs++;
	pthread_mutex_unlock(&t->lock);
	return dl;
}

void dfs_inode_set_listing(struct dfs_inodes *t, fuse_ino_t ino,
                           struct dfs_dirlist *dl)
{
	pthread_mutex_lock(&t->lock);
	struct dfs_inode *n = find_ino(t, ino);
	if (n) {
		dirlist_unref(n->listing);
		n->listing = dl;
		if (dl)
			dl->refs++;
	}
	pthread_mutex_unlock(&t->lock);
}

static void unlink_from(struct dfs_inode **head, struct dfs_inode *n, bool by_ino)
{
	for (struct dfs_inode **p = head; *p; p = by_ino ? &(*p)->by_ino : &(*p)->by_key)
		if (*p == n) {
			*p = by_ino ? n->by_ino : n->by_key;
			return;
		}
}

void dfs_inode_forget(struct dfs_inodes *t, fuse_ino_t ino, uint64_t nl)
{
	dfs_snapshot *pin = NULL;
	pthread_mutex_lock(&t->lock);
	struct dfs_inode *n = find_ino(t, ino);
	if (n && ino != FUSE_ROOT_ID) {
		n->nlookup = nl >= n->nlookup ? 0 : n->nlookup - nl;
		if (n->nlookup == 0) {
			unlink_from(&t->ino_table[hash_ino(n->ino) & (t->size - 1)], n, true);
			unlink_from(&t->key_table[hash_key(n->path, n->serial, n->writer) &
			                          (t->size - 1)], n, false);
			t->count--;
			dirlist_unref(n->listing);
			pin = n->pin;
			if (pin)
				pinned_unlink(t, n);
			remember_number(t, n);
			free(n->path);
			free(n);
		}
	}
	pthread_mutex_unlock(&t->lock);
	dfs_snapshot_release(pin);
}
