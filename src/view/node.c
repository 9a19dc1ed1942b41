/* node.c - the shape of the virtual tree: the files each level holds
 * (dfs_file_defs) and resolving a path to a node, from the source tree
 * alone.  Below every file that takes a path (tree, files, jobs, access,
 * write); it calls no other file of the view. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "view/view_int.h"

/* (each row at its kind's place: the order of the rows is free) */
/* (each row at its kind's place: the order of the rows is free, and a
 * kind without its row is caught by test_view's test_file_defs) */
const struct file_def dfs_file_defs[F_KINDS] = {
	[F_JOBS] = {"jobs.csv", F_JOBS, LEVEL_DIR, false, false, true},
	[F_DIR_FILTER] = {"filter", F_DIR_FILTER, LEVEL_DIR, true, false, false},
	[F_DIR_FILTER_ERROR] = {"filter.error", F_DIR_FILTER_ERROR, LEVEL_DIR, false, false, false},
	[F_DIR_INSIGHTS] = {"insights.csv", F_DIR_INSIGHTS, LEVEL_DIR, false, false, true},
	[F_DIR_SUMMARY] = {"summary.html", F_DIR_SUMMARY, LEVEL_DIR, false, false, true},
	[F_HEADER] = {"header.txt", F_HEADER, LEVEL_LOG, false, false, false},
	[F_MOUNTS] = {"mounts.csv", F_MOUNTS, LEVEL_LOG, false, false, false},
	[F_NAMES] = {"names.csv", F_NAMES, LEVEL_LOG, false, false, false},
	[F_LOG_FILTER] = {"filter", F_LOG_FILTER, LEVEL_LOG, true, false, false},
	[F_LOG_FILTER_ERROR] = {"filter.error", F_LOG_FILTER_ERROR, LEVEL_LOG, false, false, false},
	[F_LOG_DERIVED] = {"derived_metrics", F_LOG_DERIVED, LEVEL_LOG, false, false, true},
	[F_FILTERED] = {"filtered.darshan", F_FILTERED, LEVEL_LOG, false, false, true},
	[F_ERROR] = {"ERROR", F_ERROR, LEVEL_LOG, false, false, false},
	[F_RECORDS] = {"records.csv", F_RECORDS, LEVEL_MODULE, true, false, true},
	[F_FILTER] = {"filter", F_FILTER, LEVEL_MODULE, true, false, false},
	[F_FILTER_ERROR] = {"filter.error", F_FILTER_ERROR, LEVEL_MODULE, false, false, false},
	[F_DERIVED] = {"derived_metrics", F_DERIVED, LEVEL_MODULE, false, true, true},
	[F_DERIVED_JSON] = {"derived_metrics.json", F_DERIVED_JSON, LEVEL_MODULE, false, true, true},
	[F_TOTAL] = {"total", F_TOTAL, LEVEL_MODULE, false, true, true},
	[F_TOTAL_CSV] = {"total.csv", F_TOTAL_CSV, LEVEL_MODULE, false, true, true},
	[F_PARTIAL] = {"PARTIAL", F_PARTIAL, LEVEL_MODULE, false, false, false},
	[F_SUMMARY] = {"summary.html", F_SUMMARY, LEVEL_LOG, false, false, true},
	[F_INSIGHTS] = {"insights.txt", F_INSIGHTS, LEVEL_LOG, false, false, true},
	[F_INSIGHTS_CSV] = {"insights.csv", F_INSIGHTS_CSV, LEVEL_LOG, false, false, true},
	/* the plots, in the order of enum dfs_summary_plot */
	[F_PLOT_FIRST + DFS_PLOT_IO_COST] = {"io_cost.svg", F_PLOT_FIRST + DFS_PLOT_IO_COST, LEVEL_SUMMARY, false, false, true},
	[F_PLOT_FIRST + DFS_PLOT_OPERATIONS] = {"operations.svg", F_PLOT_FIRST + DFS_PLOT_OPERATIONS, LEVEL_SUMMARY, false, false, true},
	[F_PLOT_FIRST + DFS_PLOT_ACCESS_SIZES] = {"access_sizes.svg", F_PLOT_FIRST + DFS_PLOT_ACCESS_SIZES, LEVEL_SUMMARY, false, false, true},
	[F_PLOT_FIRST + DFS_PLOT_ACCESS_PATTERN] = {"access_pattern.svg", F_PLOT_FIRST + DFS_PLOT_ACCESS_PATTERN, LEVEL_SUMMARY, false, false, true},
	[F_PLOT_FIRST + DFS_PLOT_MOUNTS] = {"mounts.svg", F_PLOT_FIRST + DFS_PLOT_MOUNTS, LEVEL_SUMMARY, false, false, true},
	[F_PLOT_FIRST + DFS_PLOT_RANKS] = {"ranks.svg", F_PLOT_FIRST + DFS_PLOT_RANKS, LEVEL_SUMMARY, false, false, true},
	[F_PLOT_FIRST + DFS_PLOT_TIMELINE] = {"timeline.svg", F_PLOT_FIRST + DFS_PLOT_TIMELINE, LEVEL_SUMMARY, false, false, true},
	[F_PLOT_FIRST + DFS_PLOT_HEATMAP_POSIX] = {"heatmap_posix.svg", F_PLOT_FIRST + DFS_PLOT_HEATMAP_POSIX, LEVEL_SUMMARY, false, false, true},
	[F_PLOT_FIRST + DFS_PLOT_HEATMAP_MPIIO] = {"heatmap_mpiio.svg", F_PLOT_FIRST + DFS_PLOT_HEATMAP_MPIIO, LEVEL_SUMMARY, false, false, true},
	[F_PLOT_FIRST + DFS_PLOT_HEATMAP_STDIO] = {"heatmap_stdio.svg", F_PLOT_FIRST + DFS_PLOT_HEATMAP_STDIO, LEVEL_SUMMARY, false, false, true},
	[F_PLOT_FIRST + DFS_PLOT_HEATMAP_DFS] = {"heatmap_dfs.svg", F_PLOT_FIRST + DFS_PLOT_HEATMAP_DFS, LEVEL_SUMMARY, false, false, true},
	[F_PLOT_FIRST + DFS_PLOT_HEATMAP_DAOS] = {"heatmap_daos.svg", F_PLOT_FIRST + DFS_PLOT_HEATMAP_DAOS, LEVEL_SUMMARY, false, false, true},
	[F_PLOT_FIRST + DFS_PLOT_DXT_OFFSETS] = {"dxt_offsets.svg", F_PLOT_FIRST + DFS_PLOT_DXT_OFFSETS, LEVEL_SUMMARY, false, false, true},
	[F_PLOT_FIRST + DFS_PLOT_DXT_DURATIONS] = {"dxt_durations.svg", F_PLOT_FIRST + DFS_PLOT_DXT_DURATIONS, LEVEL_SUMMARY, false, false, true},
	[F_PLOT_FIRST + DFS_PLOT_LUSTRE] = {"lustre.svg", F_PLOT_FIRST + DFS_PLOT_LUSTRE, LEVEL_SUMMARY, false, false, true},
	[F_PLOT_FIRST + DFS_PLOT_APMPI] = {"apmpi.svg", F_PLOT_FIRST + DFS_PLOT_APMPI, LEVEL_SUMMARY, false, false, true},
	/* named by the record id of its file (never looked up by name) */
	[F_DXT_FILE] = {"", F_DXT_FILE, LEVEL_DXT, false, false, true},
	/* at the root of the mount: every filter and import in force
	 * (selections.c); a write of "clear" removes them all */
	[F_SELECTIONS] = {"selections", F_SELECTIONS, LEVEL_ROOT, true, false, true},
	[F_SELECTIONS_CSV] = {"selections.csv", F_SELECTIONS_CSV, LEVEL_ROOT, false, false, true},
	[F_SELECTIONS_ERROR] = {"selections.error", F_SELECTIONS_ERROR, LEVEL_ROOT, false, false, false},
	[F_FILES_CSV] = {"files.csv", F_FILES_CSV, LEVEL_MODULE, false, false, true},
	[F_RANKS_CSV] = {"ranks.csv", F_RANKS_CSV, LEVEL_MODULE, false, false, true},
	[F_DIR_FILES] = {"files.csv", F_DIR_FILES, LEVEL_DIR, false, false, true},
	[F_MODULES] = {"modules.csv", F_MODULES, LEVEL_DIR, false, false, true},
	[F_DIR_SCHEMA] = {"schema.json", F_DIR_SCHEMA, LEVEL_DIR, false, false, false},
	/* the Parquet twins: writable only so that a write reaches
	 * darshanfs, which refuses it saying where imports go (write.c) */
	[F_MOUNTS_PARQUET] = {"mounts.parquet", F_MOUNTS_PARQUET, LEVEL_LOG, true, false, false},
	[F_NAMES_PARQUET] = {"names.parquet", F_NAMES_PARQUET, LEVEL_LOG, true, false, false},
	[F_INSIGHTS_PARQUET] = {"insights.parquet", F_INSIGHTS_PARQUET, LEVEL_LOG, true, false, true},
	[F_RECORDS_PARQUET] = {"records.parquet", F_RECORDS_PARQUET, LEVEL_MODULE, true, false, true},
	[F_TOTAL_PARQUET] = {"total.parquet", F_TOTAL_PARQUET, LEVEL_MODULE, true, true, true},
	[F_FILES_PARQUET] = {"files.parquet", F_FILES_PARQUET, LEVEL_MODULE, true, false, true},
	[F_RANKS_PARQUET] = {"ranks.parquet", F_RANKS_PARQUET, LEVEL_MODULE, true, false, true},
	[F_JOBS_PARQUET] = {"jobs.parquet", F_JOBS_PARQUET, LEVEL_DIR, true, false, true},
	[F_MODULES_PARQUET] = {"modules.parquet", F_MODULES_PARQUET, LEVEL_DIR, true, false, true},
	[F_DIR_INSIGHTS_PARQUET] = {"insights.parquet", F_DIR_INSIGHTS_PARQUET, LEVEL_DIR, true, false, true},
	[F_DIR_FILES_PARQUET] = {"files.parquet", F_DIR_FILES_PARQUET, LEVEL_DIR, true, false, true},
	[F_SELECTIONS_PARQUET] = {"selections.parquet", F_SELECTIONS_PARQUET, LEVEL_ROOT, true, false, true},
};
_Static_assert(F_PLOT_LAST + 1 - F_PLOT_FIRST == DFS_PLOTS, "one file kind per plot");

const struct file_def *dfs_file_def_by_name(enum file_level level,
                                            const char *name)
{
	for (int k = 0; k < F_KINDS; k++)
		if (dfs_file_defs[k].level == level && dfs_file_defs[k].name[0] == name[0] &&
		    strcmp(dfs_file_defs[k].name, name) == 0)
			return &dfs_file_defs[k];
	return NULL;
}

char *dfs_path_join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	bool slash = la > 0 && a[la - 1] == '/';
	char *p = malloc(la + lb + 2);
	if (!p)
		return NULL;
	memcpy(p, a, la);
	if (!slash)
		p[la++] = '/';
	memcpy(p + la, b, lb + 1);
	return p;
}

void dfs_node_free(struct node *n)
{
	free(n->src);
	free(n->log_vpath);
	free(n->dir_vpath);
	free(n->real);
	n->src = n->log_vpath = n->dir_vpath = n->real = NULL;
}

static bool is_log_name(const char *name)
{
	size_t n = strlen(name);
	return n > 8 && strcmp(name + n - 8, ".darshan") == 0;
}

/* Is `real` (a canonical path) below SOURCE? */
static bool below_source(const dfs_view *v, const char *real)
{
	size_t n = strlen(v->source);
	return strncmp(real, v->source, n) == 0 &&
	       (real[n] == '/' || (n == 1 && v->source[0] == '/'));
}

/* Nothing of the mount the view is served at is ever asked: asking
 * would wait for this very view (and a link to itself would wait for
 * its own lookup, a hang no signal ends).  Its mount point is known by
 * its path, which needs no asking; anything else on its device by
 * lstat, which at worst asks for the attributes of the mount's root. */
static bool is_mount_path(const dfs_view *v, const char *path)
{
	return v->mount_path && strcmp(path, v->mount_path) == 0;
}

static bool on_mount(const dfs_view *v, const struct stat *st)
{
	return v->mount_dev_known && st->st_dev == v->mount_dev;
}

#define LINK_HOPS 40   /* links followed in one resolution (the kernel's ELOOP) */

/* The target of the link at path, malloc'd; NULL when unreadable. */
static char *read_link(const char *path)
{
	char buf[PATH_MAX];
	ssize_t n = readlink(path, buf, sizeof(buf) - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return strdup(buf);
}

/* cur (canonical) to its parent directory */
static void parent_of(char *cur)
{
	char *s = strrchr(cur, '/');
	if (!s || s == cur)
		strcpy(cur, "/");
	else
		*s = '\0';
}

/* Follow the link at `path` (a name in a canonical directory) as the
 * kernel would, a component at a time with lstat and readlink, but never
 * into the view's own mount: a component that is its mount point or on
 * its device ends the walk (-1) before anything there is asked.  On
 * success *real is the canonical path the link leads to (malloc'd) and
 * *st its lstat (never a link).  chk (may be NULL) is asked before each
 * directory is searched, as the kernel checks search permission there;
 * a refusal sets *denied and the walk goes on (what it finds may be
 * hidden anyway, see dfs_source_kind). */
static int follow_link(const dfs_view *v, const char *path, char **real,
                       struct stat *st, const struct path_check *chk, bool *denied)
{
	char cur[PATH_MAX];
	size_t pos = 0;
	int hops = 0;
	*real = NULL;
	const char *slash = strrchr(path, '/');
	if (!slash || (size_t)(slash - path) >= sizeof(cur))
		return -1;
	memcpy(cur, path, (size_t)(slash - path));
	cur[slash - path] = '\0';
	if (!cur[0])
		strcpy(cur, "/");
	char *rest = read_link(path);
	if (!rest)
		return -1;
	if (rest[0] == '/')
		strcpy(cur, "/");
	for (;;) {
		while (rest[pos] == '/')
			pos++;
		if (!rest[pos])
			break;
		const char *c = rest + pos;
		size_t len = strcspn(c, "/");
		pos += len;
		if (chk && chk->search(chk->ctx, cur))
			*denied = true;
		if (len == 1 && c[0] == '.')
			continue;
		if (len == 2 && c[0] == '.' && c[1] == '.') {
			parent_of(cur);
			continue;
		}
		size_t cl = strlen(cur);
		if (cl + 1 + len >= sizeof(cur))
			goto fail;
		if (cl > 1)
			cur[cl++] = '/';
		memcpy(cur + cl, c, len);
		cur[cl + len] = '\0';
		if (is_mount_path(v, cur) || lstat(cur, st) != 0 || on_mount(v, st))
			goto fail;
		if (S_ISLNK(st->st_mode)) {
			char *t = ++hops > LINK_HOPS ? NULL : read_link(cur);
			size_t tl = t ? strlen(t) : 0, rl = strlen(rest + pos);
			char *next = t ? malloc(tl + rl + 2) : NULL;
			if (!next) {
				free(t);
				goto fail;
			}
			memcpy(next, t, tl);
			next[tl] = '/';
			memcpy(next + tl + 1, rest + pos, rl + 1);
			if (t[0] == '/')
				strcpy(cur, "/");
			else
				parent_of(cur);
			free(t);
			free(rest);
			rest = next;
			pos = 0;
			continue;
		}
		if (rest[pos + strspn(rest + pos, "/")] && !S_ISDIR(st->st_mode))
			goto fail;   /* more to come below a file */
	}
	/* (a last "." or ".." leaves cur not yet stat'ed) */
	if (is_mount_path(v, cur) || lstat(cur, st) != 0 || on_mount(v, st))
		goto fail;
	free(rest);
	return (*real = strdup(cur)) ? 0 : -1;
fail:
	free(rest);
	return -1;
}

/* A source entry shown in the view: a directory (not through a symlink,
 * so the tree has no cycles) or a regular file named *.darshan (or a
 * link to one, inside SOURCE when the view says nofollow_outside); never
 * anything of the view's own mount. */

int dfs_source_kind(const dfs_view *v, const char *path, const char *name,
                    struct stat *st, const struct path_check *chk, char **real)
{
	return dfs_source_kind_at(v, -1, path, name, st, chk, real);
}

int dfs_source_kind_at(const dfs_view *v, int dirfd, const char *path, const char *name,
                       struct stat *st, const struct path_check *chk, char **real)
{
	if (real)
		*real = NULL;
	/* (from the directory: the kernel walks one name, not the path) */
	if (is_mount_path(v, path) ||
	    (dirfd >= 0 ? fstatat(dirfd, name, st, AT_SYMLINK_NOFOLLOW) : lstat(path, st)) != 0 ||
	    on_mount(v, st))
		return -1;
	if (S_ISDIR(st->st_mode))
		return N_SRCDIR;
	if (S_ISLNK(st->st_mode)) {
		if (!is_log_name(name))
			return -1;
		char *target;
		bool denied = false;
		int r = follow_link(v, path, &target, st, chk, &denied);
		/* a link hidden is hidden to all, searchable or not */
		if (r == 0 && v->opt.nofollow_outside && !below_source(v, target))
			r = -1;
		else if (denied)
			r = SOURCE_DENIED;
		else if (r == 0 && !S_ISREG(st->st_mode))
			r = -1;
		if (r < 0) {
			free(target);
			return r;
		}
		if (real)
			*real = target;
		else
			free(target);
		return N_LOGDIR;
	}
	if (S_ISREG(st->st_mode) && is_log_name(name))
		return N_LOGDIR;
	return -1;
}

static int not_found(dfs_error *err, const char *path)
{
	return dfs_error_set(err, DFS_ERR_NOENT, "%s: no such file or directory", path);
}

/* "<record id>.svg", the id in decimal as the listing writes it (no
 * sign, no leading zero) */
static bool dxt_file_name(const char *name, uint64_t *id)
{
	size_t n = strlen(name);
	if (n < 5 || n > 24 || strcmp(name + n - 4, ".svg") != 0 ||
	    (name[0] == '0' && n > 5))
		return false;
	uint64_t v = 0;
	for (size_t i = 0; i + 4 < n; i++) {
		if (name[i] < '0' || name[i] > '9')
			return false;
		unsigned d = (unsigned)(name[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*id = v;
	return true;
}

int dfs_resolve(dfs_view *v, const char *path, struct node *n, dfs_error *err)
{
	return dfs_resolve_checked(v, path, n, NULL, err);
}

int dfs_resolve_checked(dfs_view *v, const char *path, struct node *n,
                        const struct path_check *chk, dfs_error *err)
{
	memset(n, 0, sizeof(*n));
	n->module = -1;
	if (path[0] != '/')
		return not_found(err, path);
	n->src = strdup(v->source);
	if (!n->src)
		return dfs_error_nomem(err);
	if (stat(n->src, &n->st) != 0) {
		dfs_error_set(err, DFS_ERR_IO, "%s: %s", n->src, strerror(errno));
		dfs_node_free(n);
		return -1;
	}
	n->kind = v->single ? N_LOGDIR : N_SRCDIR;
	if (!v->single && !(n->dir_vpath = strdup("/"))) {
		dfs_node_free(n);
		return dfs_error_nomem(err);
	}
	if (v->single && !(n->log_vpath = strdup("/"))) {
		dfs_node_free(n);
		return dfs_error_nomem(err);
	}
	const char *p = path;
	size_t depth = 0;          /* components resolved so far */
	while (*p) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		const char *end = strchr(p, '/');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char name[256];
		if (len >= sizeof(name) || n->kind == N_FILE ||
		    (len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
			goto enoent;
		memcpy(name, p, len);
		name[len] = '\0';
		/* the files of the mount's root, whatever it is (a source
		 * directory, or the log of a one-log mount) */
		const struct file_def *root = depth == 0 ? dfs_file_def_by_name(LEVEL_ROOT, name)
		                                         : NULL;
		if (root) {
			n->kind = N_FILE;
			n->file = root->kind;
			p += len;
			depth++;
			continue;
		}
		switch (n->kind) {
		case N_SRCDIR: {
			/* what is in a directory is for those who may search it */
			if (chk && chk->search(chk->ctx, n->src))
				goto denied;
			const struct file_def *fd = dfs_file_def_by_name(LEVEL_DIR, name);
			if (fd) {
				n->kind = N_FILE;
				n->file = fd->kind;
				break;
			}
			char *next = dfs_path_join(n->src, name);
			if (!next)
				goto nomem;
			struct stat st;
			char *real;
			int kind = dfs_source_kind(v, next, name, &st, chk, &real);
			if (kind < 0) {
				free(next);
				if (kind == SOURCE_DENIED)
					goto denied;
				goto enoent;
			}
			free(n->src);
			n->src = next;
			n->real = real;
			n->st = st;
			n->kind = kind;
			char *vp = strndup(path, (size_t)(p - path) + len);
			if (!vp)
				goto nomem;
			if (kind == N_LOGDIR) {
				n->log_vpath = vp;
			} else {
				free(n->dir_vpath);
				n->dir_vpath = vp;
			}
			break;
		}
		case N_LOGDIR: {
			const struct file_def *fd = dfs_file_def_by_name(LEVEL_LOG, name);
			if (fd) {
				n->kind = N_FILE;
				n->file = fd->kind;
				break;
			}
			if (strcmp(name, "summary") == 0) {
				n->kind = N_SUMDIR;
				break;
			}
			const dfs_module *m = dfs_module_by_name(name);
			if (!m || strcmp(m->dirname, name) != 0)
				goto enoent;
			n->kind = N_MODDIR;
			n->module = m->id;
			break;
		}
		case N_SUMDIR:
			if (strcmp(name, "dxt") == 0) {
				n->kind = N_DXTDIR;
				break;
			}
			/* fall through */
		case N_MODDIR: {
			const struct file_def *fd = dfs_file_def_by_name(
				n->kind == N_SUMDIR ? LEVEL_SUMMARY : LEVEL_MODULE, name);
			if (!fd)
				goto enoent;
			n->kind = N_FILE;
			n->file = fd->kind;
			break;
		}
		case N_DXTDIR:
			if (!dxt_file_name(name, &n->record))
				goto enoent;
			n->kind = N_FILE;
			n->file = F_DXT_FILE;
			break;
		case N_FILE:
			goto enoent;
		}
		p += len;
		depth++;
	}
	return 0;
enoent:
	dfs_node_free(n);
	return not_found(err, path);
denied:
	dfs_node_free(n);
	return dfs_error_set(err, DFS_ERR_ACCESS, "%s: permission denied", path);
nomem:
	dfs_node_free(n);
	return dfs_error_nomem(err);
}
