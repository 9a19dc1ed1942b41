/* dirs.c - directory filters: `echo EXPR > DIR/filter` applies EXPR to
 * every log below DIR, ANDed with the filters of the directories above it
 * and with each log's and module's own filters.
 *
 * A directory filter is checked for every module it can apply to
 * (unknown columns of a module count as missing values there, as for a
 * log-wide filter) when it is written, and compiled for a module when a
 * log below first needs it, its regular expressions compiled once for
 * all.  The compiled set is reference-counted so selections being
 * computed keep using the set they started with while a write replaces
 * it.
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
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "view/view_int.h"
#include "view/cache.h"
#include "view/dirs.h"

static void compiled_unref(struct dir_compiled *c)
{
	if (!c || atomic_fetch_sub(&c->refs, 1) != 1)
		return;
	for (int id = 0; id < DFS_MOD_KNOWN; id++)
		dfs_filter_free(c->f[id]);
	dfs_filter_free(c->any);
	pthread_mutex_destroy(&c->lock);
	free(c->text);
	free(c);
}

/* c compiled for module id, if it was not yet. */
static void compile_for(struct dir_compiled *c, int id)
{
	pthread_mutex_lock(&c->lock);
	if (!((c->tried >> id) & 1)) {
		dfs_error err;
		/* (checked when written: only memory can fail it; then the
		 * module is left unfiltered rather than emptied) */
		c->f[id] = dfs_filter_compile_module_from(dfs_module_get(id), c->text,
		                                          c->len, c->any, &err);
		c->tried |= 1ULL << id;
	}
	pthread_mutex_unlock(&c->lock);
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
		if (d->state != state || !d->compiled || !is_above(d->vpath, log_vpath))
			continue;
		atomic_fetch_add(&d->compiled->refs, 1);
		out[n++] = d->compiled;
	}
	pthread_mutex_unlock(&v->lock);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (dfs_module_get(id))
			compile_for(out[i], id);
		if (out[i]->f[id])
			out[k++] = out[i];
		else
			compiled_unref(out[i]);
	}
	return k;
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
		/* (known from the text's check: the modules' filters are
		 * compiled only when a log needs them) */
		change = (modules & d->compiled->narrows) != 0;
	}
	pthread_mutex_unlock(&v->lock);
	return change;
}

void dfs_dir_filters_release(struct dir_compiled **c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		compiled_unref(c[i]);
}

/* Check the text for every module with a decoder (every column it names
 * must be a column of some module, and is a missing value in the
 * others): a set to compile for each module when needed.  *bytes: what
 * it takes compiled for all of them (what its state is charged, the most
 * it can take); *all: it matches every record of every module. */
static struct dir_compiled *compile_all(const char *text, size_t len,
                                        size_t *bytes, bool *all, dfs_error *err)
{
	struct dir_compiled *c = calloc(1, sizeof(*c));
	if (!c || !(c->text = malloc(len + 1))) {
		free(c);
		dfs_error_nomem(err);
		return NULL;
	}
	atomic_init(&c->refs, 1);
	pthread_mutex_init(&c->lock, NULL);
	memcpy(c->text, text, len);
	c->text[len] = '\0';
	c->len = len;
	c->any = dfs_filter_compile_any(text, len, err);
	*bytes = dfs_filter_memory(c->any);
	*all = true;
	for (int id = 0; c->any && id < DFS_MOD_KNOWN; id++) {
		if (!dfs_module_get(id))
			continue;
		dfs_filter *f = dfs_filter_compile_module_from(dfs_module_get(id), text,
		                                               len, c->any, err);
		if (!f) {
			compiled_unref(c);
			return NULL;
		}
		*bytes += dfs_filter_program_memory(f);
		if (!dfs_filter_matches_all(f)) {
			*all = false;
			c->narrows |= 1ULL << id;
		}
		dfs_filter_free(f);
	}
	if (!c->any) {
		compiled_unref(c);
		return NULL;
	}
	return c;
}

int dfs_dir_filter_check(dfs_view *v, uint64_t state, const char *vpath,
                         const char *text, size_t len, size_t *compiled,
                         dfs_error *err)
{
	size_t bytes;
	bool all;
	struct dir_compiled *c = compile_all(text, len, &bytes, &all, err);
	if (!c)
		return -1;
	*compiled = bytes;
	compiled_unref(c);
	pthread_mutex_lock(&v->lock);
	struct dirstate *d = find(v, state, vpath, false);
	int ret = dfs_state_charge_filters(v, state, d ? d->bytes : 0, bytes, false, err);
	pthread_mutex_unlock(&v->lock);
	dfs_filters_freed(bytes);
	return ret;
}

int dfs_dir_filter_install(dfs_view *v, uint64_t state, const char *vpath,
                           const char *text, size_t len, dfs_error *err)
{
	size_t a = 0, b = len;
	while (a < b && strchr(" \t\r\n", text[a]))
		a++;
	while (b > a && strchr(" \t\r\n", text[b - 1]))
		b--;
	size_t bytes;
	bool all;
	struct dir_compiled *c = compile_all(text, len, &bytes, &all, err);
	if (!c)
		return -1;
	if (all)
		bytes = 0;
	char *copy = strndup(text + a, b - a);
	if (copy)
		dfs_drop_inherited(copy);
	if (!copy) {
		compiled_unref(c);
		return dfs_error_nomem(err);
	}
	pthread_mutex_lock(&v->lock);
	/* (a writing state has its generations: see dfs_node_state) */
	struct state_gens *g = dfs_state_gens(v, state);
	struct dirstate *d = g ? find(v, state, vpath, true) : NULL;
	if (!d) {
		pthread_mutex_unlock(&v->lock);
		compiled_unref(c);
		free(copy);
		return dfs_error_nomem(err);
	}
	size_t old_bytes = d->bytes;
	if (dfs_state_charge_filters(v, state, old_bytes, bytes, true, err)) {
		pthread_mutex_unlock(&v->lock);
		compiled_unref(c);
		free(copy);
		dfs_filters_freed(bytes);
		return -1;
	}
	d->bytes = bytes;
	struct dir_compiled *old = d->compiled;
	free(d->text);
	d->text = copy;
	d->compiled = all ? NULL : c;
	free(d->error);
	d->error = NULL;
	clock_gettime(CLOCK_REALTIME, &d->written);
	/* (in the same hold as the filter: a generation names one filter) */
	g->dir_gen++;
	g->change_gen++;
	pthread_mutex_unlock(&v->lock);
	if (all)
		compiled_unref(c);
	compiled_unref(old);
	/* (a selection being computed may hold the old set a while longer:
	 * its memory goes back with the next filter freed) */
	dfs_filters_freed(old_bytes);
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

static double mib(size_t bytes)
{
	return (double)bytes / (1024.0 * 1024.0);
}

int dfs_state_charge_filters(dfs_view *v, uint64_t state, size_t before,
                             size_t after, bool commit, dfs_error *err)
{
	struct state_gens *g = dfs_state_gens(v, state);
	size_t now = g ? g->filter_bytes : 0;
	if (!g)   /* (every writing state has its generations) */
		return dfs_error_nomem(err);
	if (after > before && now - before + after > v->opt.filter_memory) {
		char who[48];
		if (state == STATE_BASE)
			snprintf(who, sizeof(who), "%s", v->opt.per_user ? "the mount's owner" : "this mount");
		else
			snprintf(who, sizeof(who), "uid %llu", (unsigned long long)(state - STATE_UID(0)));
		return dfs_error_set(err, DFS_ERR_INVAL,
		                     "the filters of %s would take %.1f MiB compiled "
		                     "(their regular expressions above all), more than "
		                     "the %.1f MiB one user's filters may take (a "
		                     "sixteenth of cache_size, at least %zu MiB): clear "
		                     "or simplify some filters first",
		                     who, mib(now - before + after), mib(v->opt.filter_memory),
		                     DFS_VIEW_MIN_FILTER_MEMORY >> 20);
	}
	if (!commit)
		return 0;
	g->filter_bytes = now - before + after;
	v->cached_bytes += after;
	v->cached_bytes -= before;
	return 0;
}

void dfs_state_uncharge_filters(dfs_view *v, uint64_t state, size_t bytes)
{
	struct state_gens *g = dfs_state_gens(v, state);
	if (g)
		g->filter_bytes -= bytes < g->filter_bytes ? bytes : g->filter_bytes;
	v->cached_bytes -= bytes;
}

/* Freed filters this big are handed back to the system at once */
#define FILTER_TRIM_BYTES ((size_t)1 << 20)

void dfs_filters_freed(size_t bytes)
{
	if (bytes >= FILTER_TRIM_BYTES)
		malloc_trim(0);
}

uint64_t dfs_state_change_gen(dfs_view *v, uint64_t state)
{
	const struct state_gens *g = dfs_state_gens(v, state);
	return g ? g->change_gen : 0;
}

int dfs_dir_filters_clear(dfs_view *v, uint64_t state)
{
	int cleared = 0;
	pthread_mutex_lock(&v->lock);
	struct state_gens *g = dfs_state_gens(v, state);
	for (struct dirstate *d = g ? v->dirs : NULL; d; d = d->next) {
		if (d->state != state || !d->text || !*d->text)
			continue;
		free(d->text);
		d->text = NULL;
		/* (selections being made keep the references they took) */
		compiled_unref(d->compiled);
		d->compiled = NULL;
		cleared++;
	}
	if (cleared) {
		g->dir_gen++;
		g->change_gen++;
	}
	pthread_mutex_unlock(&v->lock);
	return cleared;
}

void dfs_dirs_free(dfs_view *v)
{
	free(v->base.selections_error);
	v->base.selections_error = NULL;
	for (size_t i = 0; i < v->nusers; i++) {
		free(v->users[i].selections_error);
		v->users[i].selections_error = NULL;
	}
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
