/* test_access.c - what a view lets a caller reach, without a mount.
 *
 * On a view with check_access, a caller's lookups, listings and opens get
 * what the caller gets on disk: search permission on every directory of
 * the path, those a link leads through included; read permission on a log
 * for anything in its directory; a directory's ACL.  The groups of a
 * caller are asked for only when an answer depends on them.  And a view
 * told where it is mounted (dfs_view_set_mount) never shows an entry that
 * leads there.  Runs as root (it gives files to other users); the logs are
 * copies of a shared one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/shared.h"
#include "darshanfs/view.h"

struct fx {
	char dir[64];
	char src[96];
};

static void sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) != 0)
		fail_msg("%s failed", cmd);
}

/* SRC/open/x.darshan (0644), SRC/closed/ (0700, uid 1234) holding y.darshan,
 * SRC/pub/steal.darshan -> ../closed/y.darshan, SRC/team/ (0750, group
 * 4242) holding t.darshan, SRC/acl/ (0755, ACL user:1001:---) holding
 * a.darshan */
static int setup(void **state)
{
	char *log = shared_log_path("sample.darshan");
	if (!log || access(log, R_OK) != 0 || geteuid() != 0) {
		free(log);
		*state = NULL;
		return 0;
	}
	struct fx *f = calloc(1, sizeof(*f));
	snprintf(f->dir, sizeof(f->dir), "/tmp/dfs-test-access-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->src, sizeof(f->src), "%s/src", f->dir);
	sh("mkdir -p %s/open %s/closed %s/pub %s/team %s/acl %s/mnt", f->src, f->src, f->src,
	   f->src, f->src, f->dir);
	sh("cp %s %s/open/x.darshan && cp %s %s/closed/y.darshan && cp %s %s/team/t.darshan "
	   "&& cp %s %s/acl/a.darshan", log, f->src, log, f->src, log, f->src, log, f->src);
	sh("chmod 755 %s %s %s/open %s/acl && chmod 644 %s/*/*.darshan", f->dir, f->src, f->src,
	   f->src, f->src);
	sh("chown -R 1234:1234 %s/closed && chmod 700 %s/closed", f->src, f->src);
	sh("chmod 1777 %s/pub && ln -s ../closed/y.darshan %s/pub/steal.darshan", f->src, f->src);
	sh("chgrp -R 4242 %s/team && chmod 750 %s/team", f->src, f->src);
	/* user:1001:--- on acl/ */
	unsigned char acl[4 + 5 * 8] = {2, 0, 0, 0};
	const unsigned short tags[5] = {0x01, 0x02, 0x04, 0x10, 0x20};
	const unsigned short perms[5] = {7, 0, 5, 5, 5};
	const unsigned ids[5] = {0xffffffff, 1001, 0xffffffff, 0xffffffff, 0xffffffff};
	for (int i = 0; i < 5; i++) {
		unsigned char *e = acl + 4 + 8 * i;
		e[0] = (unsigned char)tags[i];
		e[1] = (unsigned char)(tags[i] >> 8);
		e[2] = (unsigned char)perms[i];
		e[3] = 0;
		for (int b = 0; b < 4; b++)
			e[4 + b] = (unsigned char)(ids[i] >> (8 * b));
	}
	char path[160];
	snprintf(path, sizeof(path), "%s/acl", f->src);
	if (setxattr(path, "system.posix_acl_access", acl, sizeof(acl), 0) != 0) {
		sh("rm -rf %s", f->dir);
		free(f);
		free(log);
		*state = NULL;
		return 0;
	}
	free(log);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	if (f) {
		sh("rm -rf %s", f->dir);
		free(f);
	}
	return 0;
}

static dfs_view *view_of(const char *src, bool check)
{
	dfs_view_options opt = {.per_user = true, .owner = 0, .check_access = check,
	                        .attr_timeout = 1};
	dfs_error err = {0};
	dfs_view *v = dfs_view_new(src, &opt, &err);
	if (!v)
		fail_msg("%s", err.msg);
	return v;
}

/* stat as `who`: its status (DFS_OK or the error's code) */
static dfs_status stat_as(dfs_view *v, const char *path, const dfs_caller *who)
{
	dfs_node_stat st;
	dfs_error err = {0};
	if (dfs_view_stat(v, path, who, &st, NULL, &err))
		return err.code;
	return DFS_OK;
}

static int ignore(void *ctx, const char *name, const dfs_node_stat *st)
{
	(void)ctx;
	(void)name;
	(void)st;
	return 0;
}

static dfs_status list_as(dfs_view *v, const char *path, const dfs_caller *who)
{
	dfs_error err = {0};
	if (dfs_view_readdir(v, path, who, ignore, NULL, &err))
		return err.code;
	return DFS_OK;
}

struct groups_asked {
	int calls;
	gid_t groups[1];
	size_t n;
};

static size_t load_groups(void *ctx, const gid_t **groups)
{
	struct groups_asked *g = ctx;
	g->calls++;
	*groups = g->groups;
	return g->n;
}

/* The paths a caller may and may not reach, as on disk. */
static void test_path_checked(void **state)
{
	struct fx *f = *state;
	if (!f)
		skip();
	dfs_view *v = view_of(f->src, true);
	struct groups_asked none = {0}, member = {.groups = {4242}, .n = 1};
	const dfs_caller u = {.uid = 1001, .gid = 1001, .load_groups = load_groups,
	                      .groups_ctx = &none};
	const dfs_caller m = {.uid = 1002, .gid = 1002, .load_groups = load_groups,
	                      .groups_ctx = &member};
	const dfs_caller owner = {.uid = 1234, .gid = 1234};
	const dfs_caller root = {.uid = 0, .gid = 0};
	/* open/: everything, and never a question about groups (0755 and
	 * 0644: the group's bits say what the others' say) */
	assert_int_equal(stat_as(v, "/open/x.darshan/POSIX/records.csv", &u), DFS_OK);
	assert_int_equal(list_as(v, "/open/x.darshan", &u), DFS_OK);
	assert_int_equal(list_as(v, "/open", &u), DFS_OK);
	assert_int_equal(none.calls, 0);
	/* (a jobs.csv is kept per set of groups: it asks) */
	assert_int_equal(stat_as(v, "/open/jobs.csv", &u), DFS_OK);
	/* a link to a log in another user's 0700 directory */
	assert_int_equal(stat_as(v, "/pub/steal.darshan/header.txt", &u), DFS_ERR_ACCESS);
	assert_int_equal(stat_as(v, "/pub/steal.darshan/POSIX", &u), DFS_ERR_ACCESS);
	assert_int_equal(list_as(v, "/pub/steal.darshan", &u), DFS_ERR_ACCESS);
	assert_int_equal(stat_as(v, "/pub/steal.darshan/header.txt", &owner), DFS_OK);
	assert_int_equal(stat_as(v, "/pub/steal.darshan/header.txt", &root), DFS_OK);
	assert_int_equal(stat_as(v, "/closed/y.darshan", &u), DFS_ERR_ACCESS);
	dfs_error err = {0};
	assert_int_equal(dfs_view_access(v, "/pub/steal.darshan/header.txt", &u, &err), -1);
	assert_int_equal(err.code, DFS_ERR_ACCESS);
	/* the ACL of a directory: its listing, its files, what is below */
	assert_int_equal(list_as(v, "/acl", &u), DFS_ERR_ACCESS);
	assert_int_equal(stat_as(v, "/acl/jobs.csv", &u), DFS_ERR_ACCESS);
	assert_int_equal(stat_as(v, "/acl/a.darshan", &u), DFS_ERR_ACCESS);
	assert_int_equal(stat_as(v, "/acl/a.darshan/header.txt", &m), DFS_OK);
	/* a 0750 directory of group 4242: the groups are asked, once a
	 * question, and decide */
	assert_int_equal(stat_as(v, "/team/t.darshan/header.txt", &u), DFS_ERR_ACCESS);
	assert_true(none.calls > 0);
	member.calls = 0;
	assert_int_equal(stat_as(v, "/team/t.darshan/header.txt", &m), DFS_OK);
	assert_int_equal(list_as(v, "/team", &m), DFS_OK);
	assert_true(member.calls > 0);
	/* nothing there is not denied but missing */
	assert_int_equal(stat_as(v, "/open/nothing.darshan", &u), DFS_ERR_NOENT);
	dfs_view_free(v);
	/* without check_access the view leaves judging to its front end */
	v = view_of(f->src, false);
	assert_int_equal(stat_as(v, "/pub/steal.darshan/header.txt", &u), DFS_OK);
	assert_int_equal(list_as(v, "/acl", &u), DFS_OK);
	dfs_view_free(v);
}

struct names {
	char list[32][64];
	int n;
};

static int collect(void *ctx, const char *name, const dfs_node_stat *st)
{
	(void)st;
	struct names *n = ctx;
	if (n->n < 32)
		snprintf(n->list[n->n++], 64, "%s", name);
	return 0;
}

static bool listed(const struct names *n, const char *name)
{
	for (int i = 0; i < n->n; i++)
		if (strcmp(n->list[i], name) == 0)
			return true;
	return false;
}

/* A view told its mount point shows nothing that leads there: a link into
 * it (absolute, relative, through another link), the mount point itself
 * as an entry; a link beside them shows. */
static void test_mount_hidden(void **state)
{
	struct fx *f = *state;
	if (!f)
		skip();
	char mnt[160];
	snprintf(mnt, sizeof(mnt), "%s/mnt", f->dir);
	sh("mkdir -p %s/open/x.darshan.d && cp %s/open/x.darshan %s/y.darshan", mnt, f->src, mnt);
	sh("ln -s %s/y.darshan %s/open/into.darshan", mnt, f->src);
	sh("ln -s ../../mnt/y.darshan %s/open/rel.darshan", f->src);
	sh("ln -s into.darshan %s/open/chain.darshan", f->src);
	sh("ln -s x.darshan %s/open/good.darshan", f->src);
	sh("mkdir -p %s/inner", f->src);
	for (int told = 0; told < 2; told++) {
		dfs_view *v = view_of(f->src, true);
		char inner[160];
		snprintf(inner, sizeof(inner), "%s/inner", f->src);
		if (told) {
			assert_int_equal(dfs_view_set_mount(v, mnt, NULL), 0);
		}
		struct names n = {0}, top = {0};
		dfs_error err = {0};
		assert_int_equal(dfs_view_readdir(v, "/open", NULL, collect, &n, &err), 0);
		assert_true(listed(&n, "good.darshan"));
		assert_true(listed(&n, "x.darshan"));
		/* before the view knows its mount they are links like others */
		assert_int_equal(listed(&n, "into.darshan"), !told);
		assert_int_equal(listed(&n, "rel.darshan"), !told);
		assert_int_equal(listed(&n, "chain.darshan"), !told);
		assert_int_equal(stat_as(v, "/open/into.darshan", NULL), told ? DFS_ERR_NOENT : DFS_OK);
		assert_int_equal(stat_as(v, "/open/chain.darshan/header.txt", NULL),
		                 told ? DFS_ERR_NOENT : DFS_OK);
		dfs_view_free(v);
		/* the mount point as an entry of SOURCE */
		v = view_of(f->src, true);
		if (told)
			assert_int_equal(dfs_view_set_mount(v, inner, NULL), 0);
		assert_int_equal(dfs_view_readdir(v, "/", NULL, collect, &top, &err), 0);
		assert_int_equal(listed(&top, "inner"), !told);
		assert_int_equal(stat_as(v, "/inner", NULL), told ? DFS_ERR_NOENT : DFS_OK);
		dfs_view_free(v);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_checked),
		cmocka_unit_test(test_mount_hidden),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
