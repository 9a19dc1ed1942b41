/* view.c - the view made and freed: dfs_view_new gives each file what
 * it keeps of the view (the entry table of cache.c, the helpers of
 * lazy.c, the scratch pool) and sets the calls a lower file makes to a
 * higher one (a snapshot telling the cache, the cache expiring jobs.csv
 * files); dfs_view_free takes them down again, waiting for this view's
 * helper threads first.  The top of the view: nothing calls it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "index/index.h"
#include "util/scratch.h"
#include "view/probe.h"
#include "view/view_int.h"
#include "view/cache.h"
#include "view/access.h"
#include "view/dirs.h"
#include "view/jobs.h"

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
		dfs_error_nomem(err);
		return NULL;
	}
	v->single = S_ISREG(st.st_mode);
	if (opt)
		v->opt = *opt;
	if (!v->opt.cache_size)
		v->opt.cache_size = DFS_VIEW_DEFAULT_CACHE;
	if (!v->opt.import_limit)
		v->opt.import_limit = DFS_VIEW_DEFAULT_IMPORT_LIMIT;
	if (!v->opt.import_memory)
		v->opt.import_memory = v->opt.import_limit > SIZE_MAX / 2 ? SIZE_MAX
		                       : 2 * v->opt.import_limit;
	if (!v->opt.filter_memory)
		v->opt.filter_memory = v->opt.cache_size / 16 > DFS_VIEW_MIN_FILTER_MEMORY
		                       ? v->opt.cache_size / 16 : DFS_VIEW_MIN_FILTER_MEMORY;
	if (v->opt.thresholds) {
		v->thresholds = *v->opt.thresholds;
		v->thresholds_set = true;
		v->opt.thresholds = NULL;
	}
	v->base.state = STATE_BASE;
	pthread_mutex_init(&v->lock, NULL);
	pthread_cond_init(&v->retry_cond, NULL);
	dfs_scratch_init(&v->scratch);
	dfs_helpers_init(&v->helpers);
	v->no_memory = (struct selection){
		.ready = true, .status = DFS_ERR_NOMEM, .error = (char *)"out of memory",
	};
	/* the calls of lower files to higher ones */
	v->reader_gone = dfs_cache_reader_gone;
	v->freed = dfs_cache_freed;
	v->jobs_expire = dfs_jobs_cache_expire;
	pthread_mutex_init(&v->index_lock, NULL);
	if (v->opt.index_path && !v->single) {
		/* tried now, so that what is wrong with it is told before a
		 * front end goes to the background, then closed: it opens again
		 * when first needed (a process must not carry a database
		 * connection across a fork) */
		dfs_index *ix = dfs_index_open(v->opt.index_path, v->opt.notice,
		                               v->opt.notice_ctx);
		if (ix)
			v->index_path = strdup(v->opt.index_path);
		dfs_index_close(ix);
	}
	v->opt.index_path = NULL;
	if (dfs_entries_init(v)) {
		dfs_view_free(v);
		dfs_error_nomem(err);
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

void dfs_view_free(dfs_view *v)
{
	if (!v)
		return;
	/* records.csv helpers still rendering hold snapshots: let them end
	 * (this view's only: another view's go on) */
	dfs_lazy_wait_idle(&v->helpers);
	dfs_entries_free(v);
	/* (the states' texts first: they are freed with the directory filters) */
	dfs_dirs_free(v);
	free(v->users);
	dfs_jobs_cache_free(v);
	pthread_cond_destroy(&v->retry_cond);
	pthread_mutex_destroy(&v->lock);
	dfs_helpers_destroy(&v->helpers);
	dfs_index_close(v->index);
	free(v->index_path);
	pthread_mutex_destroy(&v->index_lock);
	/* last: every block of the pool came back with what held it */
	dfs_scratch_destroy(&v->scratch);
	dfs_access_free(v);
	free(v->mount_path);
	free(v->source);
	free(v);
}

int dfs_view_set_mount(dfs_view *v, const char *mountpoint, const dev_t *dev)
{
	char *p = strdup(mountpoint);
	if (!p)
		return -1;
	free(v->mount_path);
	v->mount_path = p;
	v->mount_dev_known = dev != NULL;
	if (dev)
		v->mount_dev = *dev;
	return 0;
}

uint64_t dfs_view_decode_count(dfs_view *v)
{
	return atomic_load(&v->decodes);
}

size_t dfs_view_render_threads(dfs_view *v)
{
	return dfs_helpers_threads(&v->helpers);
}

void dfs_view_memory_get(dfs_view *v, dfs_view_memory *m)
{
	pthread_mutex_lock(&v->lock);
	m->cached_bytes = v->cached_bytes;
	m->entries = v->entries;
	m->logs_cached = 0;
	for (const struct entry *e = v->lru_head; e; e = e->lru_next)
		m->logs_cached++;
	pthread_mutex_unlock(&v->lock);
}
