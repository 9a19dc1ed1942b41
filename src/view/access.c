/* access.c - may a caller read or search a source file?  The kernel judges
 * the mirrored files by their owner, group and mode bits only
 * (default_permissions); a source file's POSIX ACL can say less (an entry
 * user:nobody:---) or more, and the daemon reads as root.  So a read of a
 * log, and the walk behind jobs.csv, are judged here on the source file
 * itself, its access ACL included, with the caller's ids. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/xattr.h>

#include "view/view_int.h"

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

static bool in_groups(const dfs_caller *who, uint32_t gid)
{
	if (who->gid == gid)
		return true;
	for (size_t i = 0; i < who->ngroups; i++)
		if (who->groups[i] == gid)
			return true;
	return false;
}

static bool mode_allows(const dfs_caller *who, const struct stat *st, unsigned want)
{
	unsigned bits;
	if (who->uid == st->st_uid)
		bits = (st->st_mode >> 6) & 7;
	else if (in_groups(who, st->st_gid))
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

int dfs_view_access(dfs_view *v, const char *path, const dfs_caller *who,
                    dfs_error *err)
{
	if (!who || who->uid == 0)
		return 0;
	struct node n;
	if (dfs_resolve(v, path, &n, err))
		return -1;
	/* the files of a log (and its directory) are the log's to grant */
	int ret = 0;
	struct stat st;
	if (n.kind != N_SRCDIR && n.log_vpath && stat(n.src, &st) == 0 &&
	    !dfs_may_access(who, n.src, &st, 4))
		ret = dfs_error_set(err, DFS_ERR_ACCESS, "%s: permission denied", path);
	dfs_node_free(&n);
	return ret;
}

bool dfs_may_access(const dfs_caller *who, const char *path,
                    const struct stat *st, unsigned want)
{
	if (!who || who->uid == 0)
		return true;
	unsigned char acl[4 + 8 * ACL_MAX_ENTRIES];
	ssize_t len = getxattr(path, ACL_XATTR, acl, sizeof(acl));
	if (len > 0) {
		int r = acl_allows(who, st, acl, (size_t)len, want);
		if (r >= 0)
			return r == 1;
	} else if (len < 0 && errno == ERANGE) {
		return false;   /* more entries than any sane ACL: refuse */
	}
	return mode_allows(who, st, want);
}
