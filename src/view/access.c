/* access.c - may a caller reach a source file?  The kernel judges the
 * mirrored files by their owner, group and mode bits only
 * (default_permissions), along the path of the view; the daemon reads as
 * root.  What it cannot see is judged here on the source files
 * themselves, with the caller's ids and groups: the access ACL of a log
 * and of every directory, and the directories a link to a log leads
 * through on disk (the view shows the link where it lies).  So a read of
 * a log, a lookup or a listing for a caller (view option check_access),
 * and the walk behind jobs.csv allow exactly what the caller could do on
 * disk (docs/security.md).
 *
 * Every lookup of a file asks about each directory above it: their
 * attributes (owner, group, mode, ACL) are kept here, a directory's for
 * attr_timeout seconds (as long as the kernel keeps them), a log's as
 * long as its inode and change time stay (a chmod or setfacl moves the
 * change time), so that checking a path costs no system call in a busy
 * tree. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <time.h>

#include "darshanfs/hash.h"

#include "view/view_int.h"
#include "view/cache.h"
#include "view/access.h"

/* The access ACL as Linux keeps it in system.posix_acl_access: a 4-byte
 * version (2), then entries of tag (2 bytes), permission bits (2), id (4),
 * all little-endian. */
#define ACL_XATTR "system.posix_acl_access"
#define ACL_VERSION 2
enum {
	TAG_USER_OBJ = 0x01, TAG_USER = 0x02, TAG_GROUP_OBJ = 0x04,
	TAG_GROUP = 0x08, TAG_MASK = 0x10, TAG_OTHER = 0x20,
};
#define ACL_MAX_ENTRIES 128

static uint32_t le(const unsigned char *p, int n)
{
	uint32_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

size_t dfs_caller_groups(const dfs_caller *who, const gid_t **groups)
{
	if (!who->groups && who->load_groups)
		return who->load_groups(who->groups_ctx, groups);
	*groups = who->groups;
	return who->groups ? who->ngroups : 0;
}

static bool in_groups(const dfs_caller *who, uint32_t gid)
{
	if (who->gid == gid)
		return true;
	const gid_t *g;
	size_t n = dfs_caller_groups(who, &g);
	for (size_t i = 0; i < n; i++)
		if (g[i] == gid)
			return true;
	return false;
}

static bool mode_allows(const dfs_caller *who, const struct stat *st, unsigned want)
{
	unsigned bits;
	if (who->uid == st->st_uid)
		bits = (st->st_mode >> 6) & 7;
	/* (the group's bits decide only where they differ from the
	 * others': then the groups are needed) */
	else if ((((st->st_mode >> 3) ^ st->st_mode) & want) && in_groups(who, st->st_gid))
		bits = (st->st_mode >> 3) & 7;
	else
		bits = st->st_mode & 7;
	return (bits & want) == want;
}

/* The ACL's answer: 1 allowed, 0 denied, -1 no usable ACL. */
static int acl_allows(const dfs_caller *who, const struct stat *st,
                      const unsigned char *acl, size_t len, unsigned want)
{
	if (len < 4 || (len - 4) % 8 || le(acl, 4) != ACL_VERSION)
		return -1;
	size_t n = (len - 4) / 8;
	unsigned mask = 7, user_obj = 0, other = 0;
	bool have_user_obj = false, have_other = false, named_user = false;
	unsigned named = 0, group = 0;
	bool in_group_class = false;
	for (size_t i = 0; i < n; i++) {
		const unsigned char *e = acl + 4 + 8 * i;
		unsigned tag = le(e, 2), perm = le(e + 2, 2) & 7;
		uint32_t id = le(e + 4, 4);
		switch (tag) {
		case TAG_USER_OBJ: user_obj = perm; have_user_obj = true; break;
		case TAG_USER:
			if (id == who->uid) {
				named = perm;
				named_user = true;
			}
			break;
		case TAG_GROUP_OBJ:
			if (in_groups(who, st->st_gid)) {
				in_group_class = true;
				if ((perm & want) == want)
					group = perm;
			}
			break;
		case TAG_GROUP:
			if (in_groups(who, id)) {
				in_group_class = true;
				if ((perm & want) == want)
					group = perm;
			}
			break;
		case TAG_MASK: mask = perm; break;
		case TAG_OTHER: other = perm; have_other = true; break;
		default: return -1;
		}
	}
	if (!have_user_obj || !have_other)
		return -1;
	unsigned bits;
	if (who->uid == st->st_uid)
		bits = user_obj;
	else if (named_user)
		bits = named & mask;
	else if (in_group_class)
		bits = group & mask;   /* a group entry that grants it, or none */
	else
		bits = other;
	return (bits & want) == want;
}

/* The verdict on a file, from its attributes and its ACL (len 0: none;
 * acl NULL with len 1: one too long to read, refused). */
static bool verdict(const dfs_caller *who, const struct stat *st,
                    const unsigned char *acl, size_t len, unsigned want)
{
	if (len > 0) {
		if (!acl)
			return false;   /* more entries than any sane ACL: refuse */
		int r = acl_allows(who, st, acl, len, want);
		if (r >= 0)
			return r == 1;
	}
	return mode_allows(who, st, want);
}

/* The access ACL of path into acl (4 + 8 * ACL_MAX_ENTRIES bytes): its
 * length, 0 when none, -1 when it is too long to read. */
static ssize_t read_acl(const char *path, unsigned char *acl)
{
	ssize_t len = getxattr(path, ACL_XATTR, acl, 4 + 8 * ACL_MAX_ENTRIES);
	if (len < 0)
		return errno == ERANGE ? -1 : 0;
	return len;
}

bool dfs_may_access(const dfs_caller *who, const char *path,
                    const struct stat *st, unsigned want)
{
	if (!who || who->uid == 0)
		return true;
	unsigned char acl[4 + 8 * ACL_MAX_ENTRIES];
	ssize_t len = read_acl(path, acl);
	return len < 0 ? false : verdict(who, st, acl, (size_t)len, want);
}

/* ---- the attributes kept ---------------------------------------------------- */

#define PERM_BUCKETS 1024
#define PERM_MAX 4096   /* files kept at most (then all go: a few hundred KiB) */

struct perm_file {
	char *path;
	uint64_t hash;
	bool found;                 /* lstat succeeded */
	struct stat st;
	unsigned char *acl;         /* NULL when none, or too long (acl_len 1) */
	size_t acl_len;
	struct timespec seen;       /* when looked at (CLOCK_MONOTONIC) */
	struct perm_file *next;
};

struct perm_cache {
	pthread_mutex_t lock;
	struct perm_file *bucket[PERM_BUCKETS];
	size_t count;
};

static void perm_file_free(struct perm_file *f)
{
	free(f->path);
	free(f->acl);
	free(f);
}

static void perm_clear(struct perm_cache *pc)
{
	for (size_t i = 0; i < PERM_BUCKETS; i++) {
		struct perm_file *f = pc->bucket[i];
		while (f) {
			struct perm_file *next = f->next;
			perm_file_free(f);
			f = next;
		}
		pc->bucket[i] = NULL;
	}
	pc->count = 0;
}

void dfs_access_free(dfs_view *v)
{
	if (!v->perms)
		return;
	perm_clear(v->perms);
	pthread_mutex_destroy(&v->perms->lock);
	free(v->perms);
	v->perms = NULL;
}

/* The view's cache, made when first used (under view->lock, which
 * nothing else here takes); NULL without memory. */
static struct perm_cache *perms_of(dfs_view *v)
{
	pthread_mutex_lock(&v->lock);
	if (!v->perms && (v->perms = calloc(1, sizeof(*v->perms)))) {
		pthread_mutex_init(&v->perms->lock, NULL);
	}
	struct perm_cache *pc = v->perms;
	pthread_mutex_unlock(&v->lock);
	return pc;
}

static double age(const struct timespec *t)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

static bool same_version(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	       a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* What `who` may do to the file at path: `fresh` (may be NULL) is its
 * stat right now (a log: kept while it says the same version), else
 * what was looked at within attr_timeout serves (a directory).  Missing
 * files allow nothing. */
static bool may(dfs_view *v, const dfs_caller *who, const char *path,
                const struct stat *fresh, unsigned want)
{
	struct perm_cache *pc = perms_of(v);
	if (!pc) {
		struct stat st;
		if (!fresh && lstat(path, &st) != 0)
			return false;
		return dfs_may_access(who, path, fresh ? fresh : &st, want);
	}
	uint64_t h = dfs_fnv1a(DFS_FNV1A_INIT, path, strlen(path));
	struct perm_file *f;
	struct stat st;
	unsigned char acl[4 + 8 * ACL_MAX_ENTRIES];
	size_t len = 0;
	bool found = false, kept = false;
	pthread_mutex_lock(&pc->lock);
	for (f = pc->bucket[h % PERM_BUCKETS]; f; f = f->next)
		if (f->hash == h && strcmp(f->path, path) == 0)
			break;
	if (f && (fresh ? f->found && same_version(&f->st, fresh)
	                : age(&f->seen) < v->opt.attr_timeout)) {
		kept = true;
		found = f->found;
		st = f->st;
		len = f->acl_len;
		if (f->acl)
			memcpy(acl, f->acl, len);
	}
	pthread_mutex_unlock(&pc->lock);
	if (!kept) {
		/* looked at without the lock: another thread may do the same */
		ssize_t got = 0;
		if (fresh) {
			st = *fresh;
			found = true;
		} else {
			found = lstat(path, &st) == 0;
		}
		if (found && (got = read_acl(path, acl)) < 0)
			len = 1;   /* too long: refused */
		else
			len = (size_t)got;
		struct perm_file *n = calloc(1, sizeof(*n));
		if (n && (n->path = strdup(path)) &&
		    (len < 2 || (n->acl = malloc(len)))) {
			n->hash = h;
			n->found = found;
			n->st = st;
			n->acl_len = len;
			if (n->acl)
				memcpy(n->acl, acl, len);
			clock_gettime(CLOCK_MONOTONIC, &n->seen);
			pthread_mutex_lock(&pc->lock);
			struct perm_file **p = &pc->bucket[h % PERM_BUCKETS];
			while (*p && !((*p)->hash == h && strcmp((*p)->path, path) == 0))
				p = &(*p)->next;
			if (*p) {   /* replaced */
				n->next = (*p)->next;
				perm_file_free(*p);
				*p = n;
			} else {
				if (pc->count >= PERM_MAX) {
					perm_clear(pc);
					p = &pc->bucket[h % PERM_BUCKETS];
				}
				n->next = NULL;
				*p = n;
				pc->count++;
			}
			pthread_mutex_unlock(&pc->lock);
		} else if (n) {
			perm_file_free(n);
		}
	}
	if (!found)
		return false;
	return verdict(who, &st, len > 1 ? acl : NULL, len, want);
}

/* ---- a caller's checks ------------------------------------------------------ */

/* Is dir a directory above SOURCE?  Those are not asked. */
static bool above_source(const dfs_view *v, const char *dir)
{
	size_t n = strlen(dir);
	if (n == 1 && dir[0] == '/')
		return true;
	return strncmp(v->source, dir, n) == 0 && v->source[n] == '/';
}

static int check_search(void *ctx, const char *dir)
{
	struct access_check *c = ctx;
	if (above_source(c->v, dir))
		return 0;
	return may(c->v, c->who, dir, NULL, 1) ? 0 : -1;
}

/* Does `who` see everything?  (no caller, root) */
static bool sees_all(const dfs_caller *who)
{
	return !who || who->uid == 0;
}

/* The path, resolved for `who` (see dfs_view_access); `listing`: to
 * list the node too. */
static int resolve_for(dfs_view *v, const char *path, const dfs_caller *who,
                       bool listing, struct node *n, dfs_error *err)
{
	if (sees_all(who))
		return dfs_resolve(v, path, n, err);
	struct access_check ac;
	if (dfs_resolve_checked(v, path, n, dfs_access_check(v, who, &ac), err))
		return -1;
	bool ok = true;
	if (n->kind == N_SRCDIR && listing)
		ok = may(v, who, n->src, NULL, 4);
	else if (n->kind == N_FILE && dfs_file_defs[n->file].level == LEVEL_DIR)
		/* a directory's own files show what is in it */
		ok = may(v, who, n->src, NULL, 4);
	else if (n->log_vpath && (n->kind != N_LOGDIR || listing))
		/* a log's directory is entered by those who may read it */
		ok = may(v, who, n->real ? n->real : n->src, &n->st, 4);
	if (!ok) {
		dfs_node_free(n);
		return dfs_error_set(err, DFS_ERR_ACCESS, "%s: permission denied", path);
	}
	return 0;
}

bool dfs_access_judged(const dfs_view *v, const dfs_caller *who)
{
	return v->opt.check_access && !sees_all(who);
}

struct entry *dfs_entry_for(dfs_view *v, const struct node *n, const dfs_caller *who,
                            dfs_error *err)
{
	struct entry *e = dfs_entry_get(v, n, err);
	if (e && dfs_access_judged(v, who)) {
		struct src_id id;
		dfs_src_id(&id, &n->st);
		dfs_entry_expect(e, &id);
	}
	return e;
}

int dfs_resolve_as(dfs_view *v, const char *path, const dfs_caller *who,
                   bool listing, struct node *n, dfs_error *err)
{
	return resolve_for(v, path, v->opt.check_access ? who : NULL, listing, n, err);
}

int dfs_view_access(dfs_view *v, const char *path, const dfs_caller *who,
                    dfs_error *err)
{
	struct node n;
	if (resolve_for(v, path, who, false, &n, err))
		return -1;
	dfs_node_free(&n);
	return 0;
}

const struct path_check *dfs_access_check(dfs_view *v, const dfs_caller *who,
                                          struct access_check *ac)
{
	if (sees_all(who))
		return NULL;
	ac->v = v;
	ac->who = who;
	ac->chk.search = check_search;
	ac->chk.ctx = ac;
	return &ac->chk;
}
