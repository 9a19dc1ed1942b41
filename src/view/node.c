/* node.c - the shape of the virtual tree: the files each level holds
 * (dfs_file_defs) and resolving a path to a node, from the source tree
 * alone.  Below every file that takes a path (tree, files, jobs, access,
 * write); it calls no other file of the view. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "view/view_int.h"

const struct file_def dfs_file_defs[F_KINDS] = {
	{"jobs.csv", F_JOBS, LEVEL_DIR, false, false, true},
	{"filter", F_DIR_FILTER, LEVEL_DIR, true, false, false},
	{"filter.error", F_DIR_FILTER_ERROR, LEVEL_DIR, false, false, false},
	{"insights.csv", F_DIR_INSIGHTS, LEVEL_DIR, false, false, true},
	{"summary.html", F_DIR_SUMMARY, LEVEL_DIR, false, false, true},
	{"header.txt", F_HEADER, LEVEL_LOG, false, false, false},
	{"mounts.csv", F_MOUNTS, LEVEL_LOG, false, false, false},
	{"names.csv", F_NAMES, LEVEL_LOG, false, false, false},
	{"filter", F_LOG_FILTER, LEVEL_LOG, true, false, false},
	{"filter.error", F_LOG_FILTER_ERROR, LEVEL_LOG, false, false, false},
	{"derived_metrics", F_LOG_DERIVED, LEVEL_LOG, false, false, true},
	{"filtered.darshan", F_FILTERED, LEVEL_LOG, false, false, true},
	{"ERROR", F_ERROR, LEVEL_LOG, false, false, false},
	{"records.csv", F_RECORDS, LEVEL_MODULE, true, false, true},
	{"filter", F_FILTER, LEVEL_MODULE, true, false, false},
	{"filter.error", F_FILTER_ERROR, LEVEL_MODULE, false, false, false},
	{"derived_metrics", F_DERIVED, LEVEL_MODULE, false, true, true},
	{"derived_metrics.json", F_DERIVED_JSON, LEVEL_MODULE, false, true, true},
	{"total", F_TOTAL, LEVEL_MODULE, false, true, true},
	{"total.csv", F_TOTAL_CSV, LEVEL_MODULE, false, true, true},
	{"PARTIAL", F_PARTIAL, LEVEL_MODULE, false, false, false},
	{"summary.html", F_SUMMARY, LEVEL_LOG, false, false, true},
	{"insights.txt", F_INSIGHTS, LEVEL_LOG, false, false, true},
	{"insights.csv", F_INSIGHTS_CSV, LEVEL_LOG, false, false, true},
	/* the plots, in the order of enum dfs_summary_plot */
	{"io_cost.svg", F_PLOT_FIRST + DFS_PLOT_IO_COST, LEVEL_SUMMARY, false, false, true},
	{"operations.svg", F_PLOT_FIRST + DFS_PLOT_OPERATIONS, LEVEL_SUMMARY, false, false, true},
	{"access_sizes.svg", F_PLOT_FIRST + DFS_PLOT_ACCESS_SIZES, LEVEL_SUMMARY, false, false, true},
	{"access_pattern.svg", F_PLOT_FIRST + DFS_PLOT_ACCESS_PATTERN, LEVEL_SUMMARY, false, false, true},
	{"mounts.svg", F_PLOT_FIRST + DFS_PLOT_MOUNTS, LEVEL_SUMMARY, false, false, true},
	{"ranks.svg", F_PLOT_FIRST + DFS_PLOT_RANKS, LEVEL_SUMMARY, false, false, true},
	{"timeline.svg", F_PLOT_FIRST + DFS_PLOT_TIMELINE, LEVEL_SUMMARY, false, false, true},
	{"heatmap_read.svg", F_PLOT_FIRST + DFS_PLOT_HEATMAP_READ, LEVEL_SUMMARY, false, false, true},
	{"heatmap_write.svg", F_PLOT_FIRST + DFS_PLOT_HEATMAP_WRITE, LEVEL_SUMMARY, false, false, true},
	{"dxt_offsets.svg", F_PLOT_FIRST + DFS_PLOT_DXT_OFFSETS, LEVEL_SUMMARY, false, false, true},
	{"dxt_durations.svg", F_PLOT_FIRST + DFS_PLOT_DXT_DURATIONS, LEVEL_SUMMARY, false, false, true},
	{"lustre.svg", F_PLOT_FIRST + DFS_PLOT_LUSTRE, LEVEL_SUMMARY, false, false, true},
	{"apmpi.svg", F_PLOT_FIRST + DFS_PLOT_APMPI, LEVEL_SUMMARY, false, false, true},
	/* named by the record id of its file (never looked up by name) */
	{"", F_DXT_FILE, LEVEL_DXT, false, false, true},
	{"modules.csv", F_MODULES, LEVEL_DIR, false, false, true},
	{"schema.json", F_DIR_SCHEMA, LEVEL_DIR, false, false, false},
};
_Static_assert(F_PLOT_LAST + 1 - F_PLOT_FIRST == DFS_PLOTS, "one file kind per plot");

const struct file_def *dfs_file_def_by_name(enum file_level level,
                                            const char *name)
{
	for (int k = 0; k < F_KINDS; k++)
		if (dfs_file_defs[k].level == level &&
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
	n->src = n->log_vpath = n->dir_vpath = NULL;
}

static bool is_log_name(const char *name)
{
	size_t n = strlen(name);
	return n > 8 && strcmp(name + n - 8, ".darshan") == 0;
}

/* Does the link at path lead to a file below SOURCE? */
static bool link_inside(const dfs_view *v, const char *path)
{
	char *real = realpath(path, NULL);
	size_t n = strlen(v->source);
	bool inside = real && strncmp(real, v->source, n) == 0 &&
	              (real[n] == '/' || (n == 1 && v->source[0] == '/'));
	free(real);
	return inside;
}

/* A source entry shown in the view: a directory (not through a symlink,
 * so the tree has no cycles) or a regular file named *.darshan (or a
 * link to one, inside SOURCE when the view says nofollow_outside). */

int dfs_source_kind(const dfs_view *v, const char *path, const char *name,
                    struct stat *st)
{
	return dfs_source_kind_at(v, AT_FDCWD, path, name, st);
}

int dfs_source_kind_at(const dfs_view *v, int dirfd, const char *path, const char *name,
                       struct stat *st)
{
	const char *at = dirfd == AT_FDCWD ? path : name;
	if (fstatat(dirfd, at, st, AT_SYMLINK_NOFOLLOW) != 0)
		return -1;
	if (S_ISDIR(st->st_mode))
		return N_SRCDIR;
	if (S_ISLNK(st->st_mode)) {
		if (!is_log_name(name) || fstatat(dirfd, at, st, 0) != 0 || !S_ISREG(st->st_mode))
			return -1;
		if (v->opt.nofollow_outside && !link_inside(v, path))
			return -1;
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
	memset(n, 0, sizeof(*n));
	n->module = -1;
	if (path[0] != '/')
		return not_found(err, path);
	n->src = strdup(v->source);
	if (!n->src)
		return dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
	if (stat(n->src, &n->st) != 0) {
		dfs_error_set(err, DFS_ERR_IO, "%s: %s", n->src, strerror(errno));
		dfs_node_free(n);
		return -1;
	}
	n->kind = v->single ? N_LOGDIR : N_SRCDIR;
	if (!v->single && !(n->dir_vpath = strdup("/"))) {
		dfs_node_free(n);
		return dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
	}
	if (v->single && !(n->log_vpath = strdup("/"))) {
		dfs_node_free(n);
		return dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
	}
	const char *p = path;
	size_t vlen = 0;
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
		switch (n->kind) {
		case N_SRCDIR: {
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
			int kind = dfs_source_kind(v, next, name, &st);
			if (kind < 0) {
				free(next);
				goto enoent;
			}
			free(n->src);
			n->src = next;
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
		vlen++;
	}
	return 0;
enoent:
	dfs_node_free(n);
	return not_found(err, path);
nomem:
	dfs_node_free(n);
	return dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
}
