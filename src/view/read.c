/* read.c - the virtual tree as the front end sees it: the attributes
 * (owner, mode, size) of every node, listing directories and opening a
 * generated file, for paths that node.c resolves.  Listing never decodes
 * a log: a log directory is listed from the log's header alone.  The top
 * of the view's reading side: it calls files.c for what a file holds. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "summary/files_ranks.h"
#include "view/view_int.h"
#include "view/cache.h"
#include "view/schema.h"
#include "view/access.h"
#include "view/files.h"
#include "view/inforce.h"
#include "view/selections.h"
#include "view/summary_files.h"

static int not_found(dfs_error *err, const char *path)
{
	return dfs_error_set(err, DFS_ERR_NOENT, "%s: no such file or directory", path);
}

/* ---- attributes ------------------------------------------------------------- */

static void base_stat(const struct stat *st, dfs_node_stat *out)
{
	memset(out, 0, sizeof(*out));
	out->uid = st->st_uid;
	out->gid = st->st_gid;
	out->mtime_sec = st->st_mtim.tv_sec;
	out->mtime_nsec = st->st_mtim.tv_nsec;
	out->ctime_sec = st->st_ctim.tv_sec;
	out->ctime_nsec = st->st_ctim.tv_nsec;
}

/* The log's read bits become r-x on its directories, r-- on its files;
 * writable files add write permission for the owner only, or on a view
 * with per_user for everyone who may read them (each writes filters of
 * their own). */
static uint32_t dir_mode(const struct stat *log_st)
{
	uint32_t r = log_st->st_mode & 0444;
	return r | (r >> 2);
}

static uint32_t file_mode(const dfs_view *v, const struct stat *log_st,
                          bool writable)
{
	uint32_t r = log_st->st_mode & 0444;
	return r | (!writable ? 0 : v->opt.per_user ? r >> 1 : 0200);
}

/* The writable files: filters, and records.csv of every module.  Only
 * fixed-size record layouts take imports; the records.csv of the others
 * (DXT, LUSTRE, HEATMAP, ...) is writable so that an attempt reaches the
 * view, which refuses it with the reason in filter.error (write.c): the
 * kernel's own refusal of a read-only file would say nothing. */
static bool writable(enum file_kind k, int module)
{
	(void)module;
	return dfs_file_defs[k].writable;
}

static bool takes_import(int module)
{
	const dfs_module *m = dfs_module_get(module);
	return m && m->record_size != 0;
}

/* A module directory whose records.csv takes imports may hold a temporary
 * file renamed onto it (DuckDB's COPY TO): those who may write records.csv
 * may create, rename and unlink there (dfs_view_temp_allowed says what). */
static uint32_t moddir_mode(const dfs_view *v, const struct stat *log_st,
                            int module)
{
	uint32_t w = takes_import(module) ? file_mode(v, log_st, true) & 0222 : 0;
	return dir_mode(log_st) | w;
}

static void node_stat(const dfs_view *v, const struct node *n,
                      dfs_node_stat *st)
{
	base_stat(&n->st, st);
	switch (n->kind) {
	case N_SRCDIR:
		st->is_dir = true;
		st->mode = n->st.st_mode & 07777;
		break;
	case N_LOGDIR:
	case N_SUMDIR:
	case N_DXTDIR:
		st->is_dir = true;
		st->mode = dir_mode(&n->st);
		/* summary/dxt lists the plots of the caller's selection (see
		 * dfs_view_readdir): with a selection per user, each
		 * user's listing is their own */
		st->per_reader = n->kind == N_DXTDIR && v->opt.per_user;
		break;
	case N_MODDIR:
		st->is_dir = true;
		st->mode = moddir_mode(v, &n->st, n->module);
		break;
	case N_FILE:
		st->mode = file_mode(v, &n->st, writable(n->file, n->module));
		break;
	}
}

/* jobs.csv, filter and filter.error of a source directory */
static int dir_file_stat(dfs_view *v, const struct node *n, const dfs_caller *who,
                         dfs_node_stat *st, dfs_error *err)
{
	return dfs_snapshot_stat(dfs_dir_file_content(v, n, who, err), st);
}

/* A file of the root: selections.c's, or the Parquet twin of
 * selections.csv */
static dfs_snapshot *root_content(dfs_view *v, const struct node *n,
                                  const dfs_caller *who, dfs_error *err)
{
	int twin = dfs_parquet_source(n->file);
	if (twin < 0)
		return dfs_selections_content(v, n, who, err);
	struct node cn = *n;
	cn.file = (enum file_kind)twin;
	dfs_snapshot *csv = dfs_selections_content(v, &cn, who, err);
	if (!csv)
		return NULL;
	/* its footer names every filter in force, as its attribute
	 * user.darshanfs.selection does */
	dfs_buf sel = DFS_BUF_INIT;
	dfs_selection_line(v, dfs_caller_state(v, who), "/", NULL, &sel);
	dfs_snapshot *c = dfs_parquet_twin(v, csv, cn.file, -1, &sel, err);
	dfs_buf_free(&sel);
	dfs_snapshot_release(csv);
	return c;
}

/* selections, selections.csv, selections.parquet and selection.error of
 * the root */
static int root_file_stat(dfs_view *v, const struct node *n, const dfs_caller *who,
                          dfs_node_stat *st, dfs_error *err)
{
	return dfs_snapshot_stat(root_content(v, n, who, err), st);
}

/* The files of the mount's root (selections.c), for a listing of it */
static bool list_root_files(const dfs_view *v, const struct stat *root_st,
                            dfs_view_filler fill, void *ctx)
{
	dfs_node_stat fs;
	base_stat(root_st, &fs);
	for (int k = 0; k < F_KINDS; k++) {
		const struct file_def *fd = &dfs_file_defs[k];
		if (fd->level != LEVEL_ROOT)
			continue;
		fs.mode = file_mode(v, root_st, fd->writable);
		if (fill(ctx, fd->name, &fs))
			return true;
	}
	return false;
}

/* Has the log DXT traces (summary/dxt/)? */
static bool has_dxt(const struct entry *e)
{
	return e->peek_status == DFS_OK && (dfs_entry_has_module(e, DFS_MOD_DXT_POSIX) ||
	                                    dfs_entry_has_module(e, DFS_MOD_DXT_MPIIO));
}

/* Does a file of the module/log exist (known from the header alone; a
 * traced file's plot is told when rendered)? */
static bool file_exists(const struct entry *e, int module, enum file_kind k)
{
	int twin = dfs_parquet_source(k);
	if (twin >= 0)   /* a Parquet twin is where its CSV is */
		k = (enum file_kind)twin;
	const struct file_def *fd = &dfs_file_defs[k];
	if (fd->level == LEVEL_SUMMARY)
		return e->peek_status == DFS_OK;
	if (fd->level == LEVEL_DXT)
		return has_dxt(e);
	if (fd->level == LEVEL_LOG) {
		if (k == F_ERROR)
			return e->peek_status != DFS_OK || e->damaged ||
			       (e->decoded && (!e->decoded->log || e->decoded->module_errors));
		return e->peek_status == DFS_OK;
	}
	const dfs_module *m = dfs_module_get(module);
	if (fd->needs_accumulator && !m->accumulator)
		return false;
	if ((k == F_FILES_CSV || k == F_RANKS_CSV) && !dfs_tables_module(m))
		return false;
	if (k == F_PARTIAL)
		return (e->partial >> module) & 1;
	return true;
}

/* st's modification time, or t when that is later */
static void later_mtime(dfs_node_stat *st, const struct timespec *t)
{
	if (t->tv_sec > st->mtime_sec ||
	    (t->tv_sec == st->mtime_sec && t->tv_nsec > st->mtime_nsec)) {
		st->mtime_sec = t->tv_sec;
		st->mtime_nsec = t->tv_nsec;
	}
}

/* A directory's listing may be kept by the caller (the kernel) until its
 * modification time moves.  Where the source's time stamps are coarse
 * (a second on some parallel file systems) a change in the same second
 * would not move it: a time of the last two seconds is told as the
 * present moment, which moves at every look, until it has settled. */
static void settled_mtime(dfs_node_stat *st)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	if (st->mtime_sec > (int64_t)now.tv_sec - 2) {
		st->mtime_sec = now.tv_sec;
		st->mtime_nsec = now.tv_nsec;
	}
}

int dfs_view_stat(dfs_view *v, const char *path, const dfs_caller *who,
                  dfs_node_stat *st, const dfs_view_prefill *pf, dfs_error *err)
{
	struct node n;
	if (dfs_resolve_as(v, path, who, false, &n, err))
		return -1;
	if (dfs_node_state(v, &n, who, false, err)) {
		dfs_node_free(&n);
		return -1;
	}
	node_stat(v, &n, st);
	int ret = 0;
	if (n.kind == N_FILE && dfs_file_defs[n.file].level == LEVEL_ROOT) {
		ret = root_file_stat(v, &n, who, st, err);
		dfs_node_free(&n);
		return ret;
	}
	if (n.kind == N_SRCDIR) {
		settled_mtime(st);
		dfs_node_free(&n);
		return 0;
	}
	if (n.kind == N_FILE && dfs_file_defs[n.file].level == LEVEL_DIR) {
		ret = dir_file_stat(v, &n, who, st, err);
		dfs_node_free(&n);
		return ret;
	}
	struct entry *e = dfs_entry_for(v, &n, who, err);
	if (!e) {
		dfs_node_free(&n);
		return -1;
	}
	int peeked = dfs_entry_peek(v, e, &n.st, err);
	if (peeked && (err->code == DFS_ERR_ACCESS ||
	               (n.kind != N_LOGDIR && !(n.kind == N_FILE && n.file == F_ERROR)))) {
		ret = -1;
	} else if (n.kind == N_MODDIR && !dfs_entry_has_module(e, n.module)) {
		ret = not_found(err, path);
	} else if (n.kind == N_DXTDIR && !has_dxt(e)) {
		ret = not_found(err, path);
	} else if (n.kind == N_FILE &&
	           ((n.module >= 0 && !dfs_entry_has_module(e, n.module)) ||
	            !file_exists(e, n.module, n.file))) {
		/* ERROR appears once decoding found a problem */
		if (n.file == F_ERROR && !e->decoded)
			dfs_entry_load(v, e, err);
		if (!file_exists(e, n.module, n.file))
			ret = not_found(err, path);
	}
	if (ret == 0 && n.kind == N_LOGDIR)
		later_mtime(st, &e->errors_seen);
	/* the traced files listed are those of the selection, which the
	 * directories' filters change too: told as changed now, so that the
	 * kernel lists it afresh once its attributes are attr_timeout old */
	if (ret == 0 && n.kind == N_DXTDIR) {
		struct timespec now;
		clock_gettime(CLOCK_REALTIME, &now);
		later_mtime(st, &now);
	}
	/* a log replaced by another with the same mtime (a rename sets the
	 * change time) lists other modules: its directories' times move */
	if (ret == 0 && n.kind != N_FILE) {
		later_mtime(st, &n.st.st_ctim);
		settled_mtime(st);
	}
	if (ret == 0 && n.kind == N_FILE) {
		later_mtime(st, &e->changed);
		if (dfs_file_stat(v, e, &n, st, pf, err))
			ret = -1;
	}
	dfs_entry_put(v, e);
	dfs_node_free(&n);
	return ret;
}

/* ---- listing ---------------------------------------------------------------- */

static int list_source_dir(const dfs_view *v, const struct node *n,
                           dfs_view_filler fill, void *ctx, dfs_error *err)
{
	DIR *d = opendir(n->src);
	if (!d)
		return dfs_error_set(err, DFS_ERR_IO, "%s: %s", n->src, strerror(errno));
	struct dirent *de;
	int ret = 0;
	bool root = strcmp(n->dir_vpath, "/") == 0;
	if (root && list_root_files(v, &n->st, fill, ctx)) {
		closedir(d);
		return 0;
	}
	dfs_node_stat fs;
	base_stat(&n->st, &fs);
	for (int k = 0; k < F_KINDS; k++) {
		const struct file_def *fd = &dfs_file_defs[k];
		if (fd->level != LEVEL_DIR)
			continue;
		fs.mode = file_mode(v, &n->st, fd->writable);
		if (fill(ctx, fd->name, &fs)) {
			closedir(d);
			return 0;
		}
	}
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (strlen(de->d_name) >= 256 || dfs_file_def_by_name(LEVEL_DIR, de->d_name) ||
		    (root && dfs_file_def_by_name(LEVEL_ROOT, de->d_name)))
			continue;
		char *path = dfs_path_join(n->src, de->d_name);
		if (!path) {
			ret = dfs_error_nomem(err);
			break;
		}
		struct stat st;
		int kind = dfs_source_kind(v, path, de->d_name, &st, NULL, NULL);
		free(path);
		if (kind < 0)
			continue;
		dfs_node_stat ns;
		base_stat(&st, &ns);
		ns.is_dir = true;
		ns.mode = kind == N_SRCDIR ? (st.st_mode & 07777) : dir_mode(&st);
		if (fill(ctx, de->d_name, &ns))
			break;
	}
	closedir(d);
	return ret;
}

/* Entries of a log or module directory, collected under the entry lock
 * and handed to the caller's filler after it is released (the filler may
 * call back into the view). */
struct listing {
	struct {
		const char *name;
		dfs_node_stat st;
	} item[F_KINDS + DFS_MOD_SLOTS];
	size_t n;
};

static void listing_add(struct listing *ls, const char *name,
                        const dfs_node_stat *st)
{
	ls->item[ls->n].name = name;
	ls->item[ls->n].st = *st;
	ls->n++;
}

static void listing_fill(const struct listing *ls, dfs_view_filler fill, void *ctx)
{
	for (size_t i = 0; i < ls->n; i++)
		if (fill(ctx, ls->item[i].name, &ls->item[i].st))
			break;
}

static int list_log_dir(dfs_view *v, const struct node *n, const dfs_caller *who,
                        dfs_view_filler fill, void *ctx, dfs_error *err)
{
	struct entry *e = dfs_entry_for(v, n, who, err);
	if (!e)
		return -1;
	dfs_error ignored = {0};
	if (dfs_entry_peek(v, e, &n->st, &ignored) && ignored.code == DFS_ERR_ACCESS) {
		/* (the log is listed from its header: not another's) */
		dfs_entry_put(v, e);
		*err = ignored;
		return -1;
	}
	struct listing ls;
	ls.n = 0;
	dfs_node_stat ns;
	base_stat(&n->st, &ns);
	for (int k = 0; k < F_KINDS; k++) {
		const struct file_def *fd = &dfs_file_defs[k];
		if (fd->level != LEVEL_LOG || !file_exists(e, -1, fd->kind))
			continue;
		ns.is_dir = false;
		ns.mode = file_mode(v, &n->st, writable(fd->kind, -1));
		listing_add(&ls, fd->name, &ns);
	}
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		if (!dfs_entry_has_module(e, id))
			continue;
		ns.is_dir = true;
		ns.mode = moddir_mode(v, &n->st, id);
		listing_add(&ls, dfs_module_get(id)->dirname, &ns);
	}
	if (e->peek_status == DFS_OK) {
		ns.is_dir = true;
		ns.mode = dir_mode(&n->st);
		listing_add(&ls, "summary", &ns);
	}
	dfs_entry_put(v, e);
	/* a one-log mount: its root is the log's directory */
	if (v->single && strcmp(n->log_vpath, "/") == 0 &&
	    list_root_files(v, &n->st, fill, ctx))
		return 0;
	listing_fill(&ls, fill, ctx);
	return 0;
}

static int list_module_dir(dfs_view *v, const struct node *n, const dfs_caller *who,
                           dfs_view_filler fill, void *ctx, dfs_error *err)
{
	struct entry *e = dfs_entry_for(v, n, who, err);
	if (!e)
		return -1;
	int ret = 0;
	if (dfs_entry_peek(v, e, &n->st, err) ||
	    (n->kind == N_MODDIR && !dfs_entry_has_module(e, n->module))) {
		ret = -1;
		if (err->code == DFS_OK)
			not_found(err, n->log_vpath);
	}
	struct listing ls;
	ls.n = 0;
	dfs_node_stat ns;
	base_stat(&n->st, &ns);
	for (int k = 0; k < F_KINDS && ret == 0; k++) {
		const struct file_def *fd = &dfs_file_defs[k];
		enum file_level want = n->kind == N_SUMDIR ? LEVEL_SUMMARY : LEVEL_MODULE;
		if (fd->level != want || !file_exists(e, n->module, fd->kind))
			continue;
		ns.mode = file_mode(v, &n->st, writable(fd->kind, n->module));
		listing_add(&ls, fd->name, &ns);
	}
	dfs_entry_put(v, e);
	listing_fill(&ls, fill, ctx);
	return ret;
}

/* LOG/summary/dxt/: a plot per file with selected DXT segments, which
 * only the decoded log tells.  The one listing that decodes its log, it
 * is not listed in summary/ (entered by name only): a walk of the tree
 * (ls -R, find) never goes in, and still decodes nothing. */
static int list_dxt_dir(dfs_view *v, const struct node *n, const dfs_caller *who,
                        dfs_view_filler fill, void *ctx, dfs_error *err)
{
	struct entry *e = dfs_entry_for(v, n, who, err);
	if (!e)
		return -1;
	uint64_t *ids = NULL;
	size_t count = 0;
	int ret = 0;
	struct decoded_log *l = NULL;
	if (dfs_entry_peek(v, e, &n->st, err) || !has_dxt(e)) {
		ret = -1;
		if (err->code == DFS_OK)
			not_found(err, n->log_vpath);
	} else if (!(l = dfs_entry_load(v, e, err))) {
		ret = -1;
	} else {
		ret = dfs_dxt_file_ids(v, e, l, &ids, &count, err);
	}
	dfs_entry_put(v, e);
	dfs_node_stat ns;
	base_stat(&n->st, &ns);
	ns.mode = file_mode(v, &n->st, false);
	char name[32];
	for (size_t i = 0; ret == 0 && i < count; i++) {
		snprintf(name, sizeof(name), "%llu.svg", (unsigned long long)ids[i]);
		if (fill(ctx, name, &ns))
			break;
	}
	free(ids);
	return ret;
}

/* ---- opening -------------------------------------------------------------- */

dfs_snapshot *dfs_view_open_file(dfs_view *v, const char *path,
                                 const dfs_caller *who, dfs_error *err)
{
	dfs_node_stat st;
	/* the stat checks existence of the file in this log */
	if (dfs_view_stat(v, path, who, &st, NULL, err))
		return NULL;
	if (st.is_dir) {
		dfs_error_set(err, DFS_ERR_INVAL, "%s: is a directory", path);
		return NULL;
	}
	struct node n;
	if (dfs_resolve_as(v, path, who, false, &n, err))
		return NULL;
	if (dfs_node_state(v, &n, who, false, err)) {
		dfs_node_free(&n);
		return NULL;
	}
	if (n.kind == N_FILE && dfs_file_defs[n.file].level == LEVEL_DIR) {
		dfs_snapshot *c = dfs_dir_file_content(v, &n, who, err);
		dfs_node_free(&n);
		return c;
	}
	if (n.kind == N_FILE && dfs_file_defs[n.file].level == LEVEL_ROOT) {
		dfs_snapshot *c = root_content(v, &n, who, err);
		dfs_node_free(&n);
		return c;
	}
	struct entry *e = dfs_entry_for(v, &n, who, err);
	dfs_snapshot *c = NULL;
	/* (a file told from the header alone tells of the version the
	 * caller's check approved too) */
	if (e && !(dfs_entry_peek(v, e, &n.st, err) && err->code == DFS_ERR_ACCESS))
		c = dfs_file_content(v, e, &n, err);
	if (e)
		dfs_entry_put(v, e);
	dfs_node_free(&n);
	return c;
}

int dfs_view_readdir(dfs_view *v, const char *path, const dfs_caller *who,
                        dfs_view_filler fill, void *ctx, dfs_error *err)
{
	struct node n;
	if (dfs_resolve_as(v, path, who, true, &n, err))
		return -1;
	/* only the traced files listed depend on the selection */
	if (n.kind == N_DXTDIR && dfs_node_state(v, &n, who, false, err)) {
		dfs_node_free(&n);
		return -1;
	}
	int ret;
	dfs_error_clear(err);
	switch (n.kind) {
	case N_SRCDIR:
		ret = list_source_dir(v, &n, fill, ctx, err);
		break;
	case N_LOGDIR:
		ret = list_log_dir(v, &n, who, fill, ctx, err);
		break;
	case N_MODDIR:
	case N_SUMDIR:
		ret = list_module_dir(v, &n, who, fill, ctx, err);
		break;
	case N_DXTDIR:
		ret = list_dxt_dir(v, &n, who, fill, ctx, err);
		break;
	default:
		ret = dfs_error_set(err, DFS_ERR_INVAL, "%s: not a directory", path);
	}
	dfs_node_free(&n);
	return ret;
}

bool dfs_view_is_writable(dfs_view *v, const char *path)
{
	struct node n;
	dfs_error err;
	if (dfs_resolve(v, path, &n, &err))
		return false;
	bool w = n.kind == N_FILE && writable(n.file, n.module);
	dfs_node_free(&n);
	return w;
}
