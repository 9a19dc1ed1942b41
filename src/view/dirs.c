/* dirs.c - directory filters: `echo EXPR > DIR/filter` applies EXPR to
 * every log below DIR, ANDed with the filters of the directories above it
 * and with each log's and module's own filters.
 *
 * A directory filter is compiled once for every module it can apply to
 * (unknown columns of a module count as missing values there, as for a
 * log-wide filter).  The compiled set is reference-counted so selections
 * being computed keep using the set they started with while a write
 * replaces it.
 *
 * Each filter belongs to a state (view_int.h): a user's directory filters
 * apply to what that user sees only, so a change bumps the generations of
 * that state alone (struct state_gens, looked up here for the files
 * above); the decoded logs of that state notice on their next use and
 * recompute their selections, those of other states keep theirs.
 *
 * Also how a written filter text loses the "# from ..." lines a filter
 * file shows above its own (dfs_drop_inherited), for every level's filter
 * file.  Below the cache, which asks it whose state a node shows; it calls
 * no other file of the view. */
#include <stdlib.h>
#include <string.h>

#include "view/view_int.h"

static void compiled_unref(struct dir_compiled *c)
{
	if (!c || atomic_fetch_sub(&c->refs, 1) != 1)
		return;
	for (int id = 0; id < DFS_MOD_KNOWN; id++)
		dfs_filter_free(c->f[id]);
	free(c);
}

/* view->lock held */
static struct dirstate *find(dfs_view *v, uint64_t state, const char *vpath,
                             bool create)
{
	for (struct dirstate *d = v->dirs; d; d = d->next)
		if (d->state == state && strcmp(d->vpath, vpath) == 0)
			return d;
	if (!create)
		return NULL;
	struct dirstate *d = calloc(1, sizeof(*d));
	if (!d || !(d->vpath = strdup(vpath))) {
		free(d);
		return NULL;
	}
	d->state = state;
	d->next = v->dirs;
	v->dirs = d;
	return d;
}

/* Is directory `dir` (a vpath) an ancestor of `path`? */
static bool is_above(const char *dir, const char *path)
{
	if (strcmp(dir, "/") == 0)
		return true;
	size_t n = strlen(dir);
	return strncmp(dir, path, n) == 0 && path[n] == '/';
}

size_t dfs_dir_filters_acquire(dfs_view *v, uint64_t state, uint64_t *gen,
                               const char *log_vpath, int id,
                               struct dir_compiled **out, size_t max)
{
	size_t n = 0;
	pthread_mutex_lock(&v->lock);
	if (gen)
		*gen = dfs_state_dir_gen(v, state);
	if (id < 0 || id >= DFS_MOD_KNOWN) {
		pthread_mutex_unlock(&v->lock);
		return 0;
	}
	for (struct dirstate *d = v->dirs; d && n < max; d = d->next) {
		if (d->state != state || !d->compiled || !d->compiled->f[id] ||
		    !is_above(d->vpath, log_vpath))
			continue;
		atomic_fetch_add(&d->compiled->refs, 1);
		out[n++] = d->compiled;
	}
	pthread_mutex_unlock(&v->lock);
	return n;
}

bool dfs_dir_filters_change(dfs_view *v, uint64_t state, const char *log_vpath,
                            uint64_t modules, uint64_t *gen)
{
	bool change = false;
	pthread_mutex_lock(&v->lock);
	if (gen)
		*gen = dfs_state_dir_gen(v, state);
	for (struct dirstate *d = v->dirs; d && !change; d = d->next) {
		if (d->state != state || !d->compiled || !is_above(d->vpath, log_vpath))
			continue;
		for (int id = 0; id < DFS_MOD_KNOWN && !change; id++)
			change = ((modules >> id) & 1) && d->compiled->f[id] &&
			         !dfs_filter_matches_all(d->compiled->f[id]);
	}
	pthread_mutex_unlock(&v->lock);
	return change;
}

void dfs_dir_filters_release(struct dir_compiled **c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		compiled_unref(c[i]);
}

/* Compile for every module with a decoder: every column it names must be
 * a column of some module, and is a missing value in the others. */
static struct dir_compiled *compile_all(const char *text, size_t len,
                                        dfs_error *err)
{
	struct dir_compiled *c = calloc(1, sizeof(*c));
	if (!c) {
		dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
		return NULL;
	}
	atomic_init(&c->refs, 1);
	if (dfs_filter_compile_modules(text, len, ~0ULL, c->f, err)) {
		compiled_unref(c);
		return NULL;
	}
	return c;
}

int dfs_dir_filter_check(const char *text, size_t len, dfs_error *err)
{
	struct dir_compiled *c = compile_all(text, len, err);
	if (!c)
		return -1;
	compiled_unref(c);
	return 0;
}

int dfs_dir_filter_install(dfs_view *v, uint64_t state, const char *vpath,
                           const char *text, size_t len, dfs_error *err)
{
	size_t a = 0, b = len;
	while (a < b && strchr(" \t\r\n", text[a]))
		a++;
	while (b > a && strchr(" \t\r\n", text[b - 1]))
		b--;
	struct dir_compiled *c = compile_all(text, len, err);
	if (!c)
		return -1;
	bool all = true;
	for (int id = 0; id < DFS_MOD_KNOWN; id++)
		if (c->f[id] && !dfs_filter_matches_all(c->f[id]))
			all = false;
	char *copy = strndup(text + a, b - a);
	if (copy)
		dfs_drop_inherited(copy);
	if (!copy) {
		compiled_unref(c);
		return dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
	}
	pthread_mutex_lock(&v->lock);
	/* (a writing state has its generations: see dfs_node_state) */
	struct state_gens *g = dfs_state_gens(v, state);
	struct dirstate *d = g ? find(v, state, vpath, true) : NULL;
	if (!d) {
		pthread_mutex_unlock(&v->lock);
		compiled_unref(c);
		free(copy);
		return dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
	}
	struct dir_compiled *old = d->compiled;
	free(d->text);
	d->text = copy;
	d->compiled = all ? NULL : c;
	free(d->error);
	d->error = NULL;
	/* (in the same hold as the filter: a generation names one filter) */
	g->dir_gen++;
	g->change_gen++;
	pthread_mutex_unlock(&v->lock);
	if (all)
		compiled_unref(c);
	compiled_unref(old);
	return 0;
}

void dfs_dir_filter_set_error(dfs_view *v, uint64_t state, const char *vpath,
                              const char *msg)
{
	pthread_mutex_lock(&v->lock);
	struct dirstate *d = find(v, state, vpath, true);
	if (d) {
		free(d->error);
		d->error = msg ? strdup(msg) : NULL;
	}
	pthread_mutex_unlock(&v->lock);
}

char *dfs_dir_filter_text(dfs_view *v, uint64_t state, const char *vpath,
                          bool error)
{
	pthread_mutex_lock(&v->lock);
	struct dirstate *d = find(v, state, vpath, false);
	const char *t = d ? (error ? d->error : d->text) : NULL;
	char *out;
	if (t && *t) {
		size_t n = strlen(t);
		out = malloc(n + 2);
		if (out) {
			memcpy(out, t, n);
			out[n] = '\n';
			out[n + 1] = '\0';
		}
	} else {
		out = strdup("");
	}
	pthread_mutex_unlock(&v->lock);
	return out;
}

bool dfs_dir_state_above(dfs_view *v, uint64_t state, const char *vpath)
{
	for (struct dirstate *d = v->dirs; d; d = d->next)
		if (d->state == state && (strcmp(d->vpath, vpath) == 0 ||
		                          is_above(d->vpath, vpath)))
			return true;
	return false;
}

size_t dfs_dir_filters_above(dfs_view *v, uint64_t state, const char *log_vpath,
                             char **dirs, char **texts, size_t max)
{
	size_t n = 0;
	pthread_mutex_lock(&v->lock);
	for (struct dirstate *d = v->dirs; d && n < max; d = d->next) {
		if (d->state != state || !d->text || !*d->text || !is_above(d->vpath, log_vpath))
			continue;
		dirs[n] = strdup(d->vpath);
		texts[n] = strdup(d->text);
		if (!dirs[n] || !texts[n]) {
			free(dirs[n]);
			free(texts[n]);
			break;
		}
		n++;
	}
	pthread_mutex_unlock(&v->lock);
	/* from the top down: a directory above another has the shorter path */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strlen(dirs[j]) < strlen(dirs[j - 1]); j--) {
			char *t = dirs[j]; dirs[j] = dirs[j - 1]; dirs[j - 1] = t;
			t = texts[j]; texts[j] = texts[j - 1]; texts[j - 1] = t;
		}
	return n;
}

struct state_gens *dfs_state_gens(dfs_view *v, uint64_t state)
{
	if (state == STATE_BASE)
		return &v->base;
	if (state == STATE_CLEAN)
		return NULL;   /* (the most read: found at once) */
	for (size_t i = 0; i < v->nusers; i++)
		if (v->users[i].state == state)
			return &v->users[i];
	return NULL;
}

uint64_t dfs_state_dir_gen(dfs_view *v, uint64_t state)
{
	const struct state_gens *g = dfs_state_gens(v, state);
	return g ? g->dir_gen : 0;
}

uint64_t dfs_state_change_gen(dfs_view *v, uint64_t state)
{
	const struct state_gens *g = dfs_state_gens(v, state);
	return g ? g->change_gen : 0;
}

void dfs_dirs_free(dfs_view *v)
{
	struct dirstate *d = v->dirs;
	while (d) {
		struct dirstate *next = d->next;
		compiled_unref(d->compiled);
		free(d->vpath);
		free(d->text);
		free(d->error);
		free(d);
		d = next;
	}
	v->dirs = NULL;
}

void dfs_drop_inherited(char *text)
{
	char *out = text;
	for (char *p = text; *p;) {
		char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p + 1) : strlen(p);
		if (strncmp(p, "# from ", 7) != 0) {
			memmove(out, p, len);
			out += len;
		}
		p += len;
	}
	while (out > text && strchr(" \t\r\n", out[-1]))
		out--;
	*out = '\0';
}
