/* facts.c - one pass over the selected records of each module, gathering
 * what the page, the plots and the insights show: sums per module, per
 * rank (in a bounded number of rank bins), per file and per mount point,
 * time lines, heat maps and DXT densities.  Memory is bounded by the
 * number of ranks and of names in the log (a few bits and bytes a file)
 * and, for the page, 4 bytes a record of the modules whose files it
 * shows (the chain that leads to the records of the files shown by
 * name), never by the number of rows; the arrays of files and records
 * live only while the facts are gathered. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "darshanfs/hash.h"
#include "log/hints.h"
#include "summary/summary_int.h"
#include "util/scratch.h"
#include "util/workers.h"
#include "module/pack.h"

/* ---- the files of a selection ------------------------------------------------- */

/* A record finds its file by the position of its id in the log's name
 * table (the records mostly follow that table: the lookups hit the
 * cache); ids without a name (few) are looked up in a table of their
 * own.  That position is the file's number (files_number: the ids
 * without a name are numbered after the names, as met), or it leads to
 * an accumulator of the file (files_get, for the DXT files: the
 * accumulators lie in a dense array in the order the files are met). */
struct file_acc {
	uint64_t id;
	double requests, extent;  /* DXT: segments, largest offset + length */
};

/* how many records (or files) ahead a lookup is prefetched */
#define PREFETCH_AHEAD 16

/* files at most (their numbers are kept in 32 bits) */
#define FILES_MAX ((size_t)UINT32_MAX - 1)

struct unnamed {
	uint64_t *id;
	uint32_t *at;           /* 1 + index of the accumulator (files_get) or
	                         * number after the names (files_number); 0:
	                         * none yet */
	bool *used;
	size_t cap, n;
};

struct files {
	dfs_scratch *pool;      /* of the big arrays (NULL: not recycled) */
	struct file_acc *acc;
	size_t n, cap;
	const dfs_log *log;
	const dfs_name *names;  /* the log's name table */
	size_t nnames;
	uint32_t *at;           /* per name: 1 + index of the accumulator, 0: none */
	dfs_name_hint hint;     /* of the lookups in record order */
	struct unnamed un;
	size_t nun;             /* ids without a name numbered */
};

/* every bit of the key reaches the low bits of the slot number */
static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

/* accs: files_get will be used (else files_number) */
static void files_init(struct files *fs, const dfs_log *log, dfs_scratch *pool, bool accs)
{
	memset(fs, 0, sizeof(*fs));
	fs->pool = pool;
	fs->hint = (dfs_name_hint)DFS_NAME_HINT_INIT;
	fs->log = log;
	fs->nnames = dfs_log_name_count(log);
	fs->names = fs->nnames ? dfs_log_name_at(log, 0) : NULL;
	if (accs && fs->nnames && fs->nnames < UINT32_MAX) {
		fs->at = dfs_scratch_alloc(pool, fs->nnames * sizeof(*fs->at));
		if (fs->at) {
			dfs_scratch_prefault(fs->at, 0, fs->nnames * sizeof(*fs->at));
			memset(fs->at, 0, fs->nnames * sizeof(*fs->at));
		}
	}
}

/* room for n files; false without memory */
static bool files_reserve(struct files *fs, size_t n)
{
	if (n <= fs->cap)
		return true;
	if (n > SIZE_MAX / sizeof(*fs->acc))
		return false;
	struct file_acc *a = dfs_scratch_realloc(fs->pool, fs->acc, fs->n * sizeof(*a),
	                                         n * sizeof(*a));
	if (!a)
		return false;
	fs->acc = a;
	fs->cap = n;
	return true;
}

/* where the accumulator number of an unnamed id is kept (0 when the id
 * is new: the slot is then taken for it); NULL without memory */
static uint32_t *unnamed_at(struct unnamed *u, uint64_t id)
{
	if (u->n * 2 >= u->cap) {
		size_t cap = u->cap ? u->cap * 2 : 64;
		uint64_t *ids = calloc(cap, sizeof(*ids));
		uint32_t *at = calloc(cap, sizeof(*at));
		bool *used = calloc(cap, sizeof(*used));
		if (!ids || !at || !used) {
			free(ids);
			free(at);
			free(used);
			return NULL;
		}
		for (size_t i = 0; i < u->cap; i++) {
			if (!u->used[i])
				continue;
			size_t k = (size_t)mix(u->id[i]) & (cap - 1);
			while (used[k])
				k = (k + 1) & (cap - 1);
			ids[k] = u->id[i];
			at[k] = u->at[i];
			used[k] = true;
		}
		free(u->id);
		free(u->at);
		free(u->used);
		u->id = ids;
		u->at = at;
		u->used = used;
		u->cap = cap;
	}
	size_t k = (size_t)mix(id) & (u->cap - 1);
	for (; u->used[k]; k = (k + 1) & (u->cap - 1))
		if (u->id[k] == id)
			return &u->at[k];
	u->used[k] = true;
	u->id[k] = id;
	u->n++;
	return &u->at[k];
}

/* the accumulator of file id, made when new; NULL without memory */
static struct file_acc *files_get(struct files *fs, uint64_t id)
{
	const dfs_name *nm = fs->at ? dfs_log_name_near(fs->log, id, &fs->hint) : NULL;
	uint32_t *at;
	if (nm && (size_t)(nm - fs->names) < fs->nnames) {
		at = &fs->at[nm - fs->names];
	} else if (!(at = unnamed_at(&fs->un, id))) {
		return NULL;
	}
	if (*at)
		return &fs->acc[*at - 1];
	if (fs->n >= FILES_MAX || (fs->n == fs->cap && !files_reserve(fs, fs->cap ? fs->cap * 2 : 64)))
		return NULL;
	struct file_acc *fa = &fs->acc[fs->n];
	memset(fa, 0, sizeof(*fa));
	fa->id = id;
	*at = (uint32_t)++fs->n;
	return fa;
}

/* the number of file id (SIZE_MAX without memory) */
static size_t files_number(struct files *fs, uint64_t id)
{
	const dfs_name *nm = dfs_log_name_near(fs->log, id, &fs->hint);
	if (nm && (size_t)(nm - fs->names) < fs->nnames)
		return (size_t)(nm - fs->names);
	uint32_t *at = unnamed_at(&fs->un, id);
	if (!at)
		return SIZE_MAX;
	if (!*at) {
		if (fs->nun >= FILES_MAX)
			return SIZE_MAX;
		*at = (uint32_t)++fs->nun;
	}
	return fs->nnames + *at - 1;
}

/* Do the lookups need what they read prefetched (they do not follow the
 * name table)?  Then files_prefetch does it. */
static bool files_scattered(const struct files *fs)
{
	return !dfs_name_hint_in_order(&fs->hint);
}

static void files_prefetch(struct files *fs, uint64_t id)
{
	dfs_log_name_prefetch(fs->log, id, 0);
}

static void files_free(struct files *fs)
{
	dfs_scratch_free(fs->pool, fs->acc);
	dfs_scratch_free(fs->pool, fs->at);
	free(fs->un.id);
	free(fs->un.at);
	free(fs->un.used);
}

static const int io_ids[] = {
	DFS_MOD_POSIX, DFS_MOD_MPIIO, DFS_MOD_STDIO, DFS_MOD_H5F, DFS_MOD_H5D,
	DFS_MOD_PNETCDF_FILE, DFS_MOD_DFS, DFS_MOD_DAOS, DFS_MOD_PNETCDF_VAR,
};

/* ---- reading fields ----------------------------------------------------------- */

static int field(const dfs_module *m, const char *suffix)
{
	char name[96];
	snprintf(name, sizeof(name), "%s%s", m->prefix, suffix);
	return dfs_module_field_index(m, name, strlen(name));
}

double dfs_facts_value(const dfs_module *m, const unsigned char *rec, size_t len,
                       size_t row, int f)
{
	dfs_value v;
	dfs_module_get_value(m, rec, len, row, (size_t)f, &v);
	switch (v.type) {
	case DFS_T_I64:
		return (double)v.v.i;
	case DFS_T_U64:
		return (double)v.v.u;
	case DFS_T_F64:
		return v.v.d;
	default:
		return 0;
	}
}

/* (inline: a record's counters are read by the dozen) */
static inline double value(const dfs_module *m, const unsigned char *rec, size_t len,
                           size_t row, int f)
{
	if (f < 0)
		return 0;
	const dfs_field *fd = &m->fields[f];
	if (fd->storage == DFS_S_F64) {
		/* stored as it is shown: read it in place */
		double d;
		memcpy(&d, rec + fd->offset, 8);
		return d;
	}
	if (fd->storage == DFS_S_I64) {
		int64_t i;
		memcpy(&i, rec + fd->offset, 8);
		return (double)i;
	}
	return dfs_facts_value(m, rec, len, row, f);
}

/* counters that can be -1 (not kept by an old version) count as 0, and
 * so do the values no run can have written (data problems: evidence.c) */
static inline double counter(const dfs_module *m, const unsigned char *rec, size_t len,
                             int f)
{
	double d = value(m, rec, len, 0, f);
	return d > 0 && d < INFINITY ? d : 0;
}

static int64_t rec_rank(const unsigned char *rec)
{
	int64_t r;
	memcpy(&r, rec + 8, 8);
	return r;
}

static const dfs_summary_module *selected(const dfs_summary_input *in, int id)
{
	const dfs_summary_module *sm = &in->mod[id];
	return sm->records && !sm->error ? sm : NULL;
}

int64_t dfs_facts_bin_rank(const struct facts *f, size_t bin)
{
	return (int64_t)ceil((double)bin * f->rank_step);
}

static size_t rank_bin(const struct facts *f, int64_t rank)
{
	if (rank < 0 || f->rank_bins == 0)
		return RANK_BINS;
	if (rank >= f->nprocs)
		rank = f->nprocs - 1;
	size_t b = (size_t)((double)rank / f->rank_step);
	return b < f->rank_bins ? b : f->rank_bins - 1;
}

/* ---- files, mount points, top-level paths ------------------------------------ */

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool is_alnum(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* the length of a UUID (8-4-4-4-12 hex digits) at s, or 0 */
static size_t uuid_at(const char *s, size_t len)
{
	static const size_t parts[] = {8, 4, 4, 4, 12};
	size_t i = 0;
	for (int p = 0; p < 5; p++) {
		if (p && (i >= len || s[i++] != '-'))
			return 0;
		for (size_t k = 0; k < parts[p]; k++, i++)
			if (i >= len || !is_hex(s[i]))
				return 0;
	}
	return i < len && is_alnum(s[i]) ? 0 : i;
}

/* The text of a pattern as it is made, into a buffer with room for all
 * of it (a pattern is never longer than its name), and its FNV-1a. */
struct pattern_out {
	char *out;
	size_t o;
	uint64_t h;
};

static inline void pattern_put(struct pattern_out *p, const char *s, size_t n)
{
	p->h = dfs_fnv1a(p->h, s, n);
	memcpy(p->out + p->o, s, n);
	p->o += n;
}

/* The pattern of s into p (room for len bytes) */
static void collapse_into(const char *s, size_t len, struct pattern_out *p)
{
	for (size_t i = 0; i < len;) {
		bool start = i == 0 || !is_alnum(s[i - 1]);
		size_t u = start && is_hex(s[i]) ? uuid_at(s + i, len - i) : 0;
		if (u) {
			pattern_put(p, "<uuid>", 6);
			i += u;
			continue;
		}
		if (start && is_alnum(s[i])) {
			size_t e = i;
			bool hex = true, digit = false, letter = false;
			while (e < len && is_alnum(s[e])) {
				hex &= is_hex(s[e]);
				if (s[e] >= '0' && s[e] <= '9')
					digit = true;
				else
					letter = true;
				e++;
			}
			if (digit && letter && (e - i >= 16 || (hex && e - i >= 8))) {
				pattern_put(p, "<id>", 4);
				i = e;
				continue;
			}
		}
		if (s[i] >= '0' && s[i] <= '9') {
			while (i + 1 < len && s[i + 1] >= '0' && s[i + 1] <= '9')
				i++;
			pattern_put(p, "*", 1);
		} else {
			pattern_put(p, s + i, 1);
		}
		i++;
	}
}

/* A file's pattern: UUIDs become <uuid>, identifiers (runs of 8 or more
 * hex digits with a digit and a letter, or of 16 or more letters and
 * digits with both) <id>, and the other digit runs '*', so that
 * rank-numbered files fall together and a path made of identifiers
 * stays readable.  Its text at out (cap bytes with the NUL: a longer one
 * as its start, "..." and its end); returns the FNV-1a of the whole
 * text, so that patterns that differ where the shown text leaves out are
 * two patterns. */
static uint64_t collapse(const char *s, size_t len, char *out, size_t cap)
{
	char local[4096];
	char *text = len <= sizeof(local) ? local : malloc(len);
	if (!text) {   /* (no memory: the start, hashed alone) */
		len = sizeof(local);
		text = local;
	}
	struct pattern_out p = {text, 0, DFS_FNV1A_INIT};
	collapse_into(s, len, &p);
	if (p.o < cap) {
		memcpy(out, text, p.o);
		out[p.o] = '\0';
	} else {
		size_t head = (cap - 4) / 2, tail = cap - 4 - head;
		memcpy(out, text, head);
		memcpy(out + head, "...", 3);
		memcpy(out + head + 3, text + p.o - tail, tail);
		out[cap - 1] = '\0';
	}
	if (text != local)
		free(text);
	return p.h;
}

static void top_insert(struct top_file *top, size_t *n, const struct top_file *t,
                       bool by_bytes)
{
	double key = by_bytes ? t->bytes : t->time;
	if (key <= 0)
		return;
	size_t pos = *n;
	while (pos > 0 && key > (by_bytes ? top[pos - 1].bytes : top[pos - 1].time))
		pos--;
	if (pos >= TOP_FILES)
		return;
	size_t last = *n < TOP_FILES ? *n : TOP_FILES - 1;
	memmove(&top[pos + 1], &top[pos], (last - pos) * sizeof(*top));
	top[pos] = *t;
	if (*n < TOP_FILES)
		(*n)++;
}

struct pattern {
	uint64_t key;
	bool used;
	struct top_file t;
};

/* twice the room; the old table is freed (NULL without memory) */
static struct pattern *pattern_grow(struct pattern *pt, size_t *cap)
{
	size_t nc = *cap * 2;
	struct pattern *np = calloc(nc, sizeof(*np));
	if (np) {
		for (size_t i = 0; i < *cap; i++) {
			if (!pt[i].used)
				continue;
			size_t k = (size_t)pt[i].key & (nc - 1);
			while (np[k].used)
				k = (k + 1) & (nc - 1);
			np[k] = pt[i];
		}
		*cap = nc;
	}
	free(pt);
	return np;
}

/* the pattern a file falls in (name is zeroed by the caller) */
static void pattern_name(const dfs_name *nm, uint64_t id, char name[128])
{
	if (nm)
		collapse(nm->str, nm->len, name, 128);
	else
		snprintf(name, 128, "(record %llu)", (unsigned long long)id);
}

/* (a name worked out but for the number of its top-level path: top holds
 * the length of that path, which is numbered afterwards, in order; a
 * number is below it, UINT32_MAX when there was no memory for it) */
#define TOP_PENDING ((uint32_t)1 << 31)

/* the distinct top-level paths, numbered in the order first met (fewer
 * than TOP_PENDING) */
struct tops {
	char (*name)[64];
	uint32_t *slot;         /* 1 + number of the path; 0: empty */
	size_t n, cap;          /* paths; the table has 2 * cap slots */
};

static bool tops_grow(struct tops *t)
{
	size_t cap = t->cap ? t->cap * 2 : 64;
	char (*name)[64] = realloc(t->name, cap * sizeof(*name));
	if (name)
		t->name = name;
	uint32_t *slot = calloc(cap * 2, sizeof(*slot));
	if (!name || !slot) {
		free(slot);
		return false;
	}
	for (size_t i = 0; i < t->n; i++) {
		uint64_t h = dfs_fnv1a(DFS_FNV1A_INIT, name[i], strlen(name[i]));
		size_t k = (size_t)h & (cap * 2 - 1);
		while (slot[k])
			k = (k + 1) & (cap * 2 - 1);
		slot[k] = (uint32_t)i + 1;
	}
	free(t->slot);
	t->slot = slot;
	t->cap = cap;
	return true;
}

/* the number of a top-level path (at most 63 bytes are kept), UINT32_MAX
 * without memory */
static uint32_t tops_of(struct tops *t, const char *top)
{
	if (t->n == t->cap && (t->n >= TOP_PENDING - 1 || !tops_grow(t)))
		return UINT32_MAX;
	size_t len = strnlen(top, 63);
	uint64_t h = dfs_fnv1a(DFS_FNV1A_INIT, top, len);
	size_t mask = t->cap * 2 - 1, k = (size_t)h & mask;
	while (t->slot[k] && (strncmp(t->name[t->slot[k] - 1], top, len) ||
	                      t->name[t->slot[k] - 1][len]))
		k = (k + 1) & mask;
	if (!t->slot[k]) {
		memcpy(t->name[t->n], top, len);
		t->name[t->n][len] = '\0';
		t->slot[k] = (uint32_t)++t->n;
	}
	return t->slot[k] - 1;
}

/* what a file's name gives the page */
struct file_name {
	uint64_t key;           /* of its pattern */
	uint32_t top;           /* number of its top-level path */
	uint32_t mount;         /* 1 + its mount point (nmounts + 1: unknown) */
};

/* What the names give, per entry of the log's name table (all worked
 * out by the first render that needs them: name_all). */
struct dfs_summary_names {
	const dfs_log *log;
	size_t n, nmounts;
	struct file_name *of;
	bool named;             /* `of` is filled */
	struct tops tops;
};

dfs_summary_names *dfs_summary_names_new(const dfs_log *log)
{
	dfs_summary_names *nn = calloc(1, sizeof(*nn));
	if (!nn)
		return NULL;
	nn->log = log;
	nn->n = dfs_log_name_count(log);
	size_t nm = dfs_log_mount_count(log);
	nn->nmounts = nm < MAX_MOUNTS ? nm : MAX_MOUNTS;
	if (nn->n && !(nn->of = malloc(nn->n * sizeof(*nn->of)))) {
		free(nn);
		return NULL;
	}
	/* (numbered first: the files without a name are counted under it) */
	tops_of(&nn->tops, "(no name)");
	return nn;
}

size_t dfs_summary_names_memory(const dfs_summary_names *nn)
{
	return nn ? sizeof(*nn) + nn->n * sizeof(*nn->of) +
	                    nn->tops.cap * (sizeof(*nn->tops.name) + 2 * sizeof(*nn->tops.slot))
	          : 0;
}

void dfs_summary_names_free(dfs_summary_names *nn)
{
	if (!nn)
		return;
	free(nn->of);
	free(nn->tops.name);
	free(nn->tops.slot);
	free(nn);
}

/* the length of the first two components of a name (top_path) */
static size_t top_len(const dfs_name *nm)
{
	size_t end = 0, slashes = 0;
	while (end < nm->len && end < 63) {
		if (nm->str[end] == '/' && ++slashes == 3)
			break;
		end++;
	}
	return end;
}

/* What a named file's name gives the page, but the number of its
 * top-level path (TOP_PENDING with its length instead). */
static void name_file(const dfs_summary_names *nn, const dfs_name *nm,
                      struct file_name *fn)
{
	fn->mount = 1 + (nm->mount >= 0 && (size_t)nm->mount < nn->nmounts
	                         ? (uint32_t)nm->mount : (uint32_t)nn->nmounts);
	fn->top = TOP_PENDING | (uint32_t)top_len(nm);
	char name[128];
	fn->key = collapse(nm->str, nm->len, name, sizeof(name));
}

/* the same of a file without a name, numbered (never kept: there are few) */
static void name_unnamed(dfs_summary_names *nn, uint64_t id, struct file_name *fn)
{
	char name[128];
	pattern_name(NULL, id, name);
	fn->key = dfs_fnv1a(DFS_FNV1A_INIT, name, strlen(name));
	fn->mount = 1 + (uint32_t)nn->nmounts;
	fn->top = tops_of(&nn->tops, "(no name)");
}

/* files named by one thread at a time: the names of many files are
 * collapsed by all the cores */
#define NAME_CHUNK 8192

struct naming {
	dfs_summary_names *nn;
	atomic_size_t next;
};

static void *naming_worker(void *arg)
{
	struct naming *nw = arg;
	dfs_summary_names *nn = nw->nn;
	const dfs_name *names = dfs_log_name_at(nn->log, 0);
	size_t c;
	while ((c = atomic_fetch_add(&nw->next, NAME_CHUNK)) < nn->n) {
		size_t end = c + NAME_CHUNK < nn->n ? c + NAME_CHUNK : nn->n;
		for (size_t j = c; j < end; j++)
			name_file(nn, &names[j], &nn->of[j]);
	}
	return NULL;
}

/* Work out what every name of the log gives (once for a kept
 * dfs_summary_names: the names are the same whatever the selection), on
 * every core, then number the top-level paths in the order of the names. */
static void name_all(dfs_summary_names *nn)
{
	if (nn->named)
		return;
	nn->named = true;
	struct naming nw = {nn, 0};
	dfs_workers_run(dfs_workers(DFS_WORKERS_MAX, (nn->n + NAME_CHUNK - 1) / NAME_CHUNK),
	                naming_worker, &nw);
	/* a job has few top-level paths: the last ones met are remembered by
	 * their first and last characters, and a path is looked up (which
	 * numbers it the first time) only when it is none of them */
	struct {
		const char *str;
		size_t len;
		uint32_t top;
	} seen[64];
	memset(seen, 0, sizeof(seen));
	for (size_t j = 0; j < nn->n; j++) {
		struct file_name *fn = &nn->of[j];
		const char *top = dfs_log_name_at(nn->log, j)->str;
		size_t len = fn->top & ~TOP_PENDING;
		size_t c = 0;
		if (len) {
			c = ((unsigned char)top[len - 1] * 31u + (unsigned char)top[len / 2] + len) & 63;
			if (seen[c].str && seen[c].len == len && !memcmp(seen[c].str, top, len)) {
				fn->top = seen[c].top;
				continue;
			}
		}
		char path[64];
		memcpy(path, top, len);
		path[len] = '\0';
		fn->top = tops_of(&nn->tops, path);
		if (len && fn->top != UINT32_MAX) {
			seen[c].str = top;
			seen[c].len = len;
			seen[c].top = fn->top;
		}
	}
}

/* the bytes and files of each top-level path */
struct top_sum {
	double bytes;
	uint64_t files;
};

/* is path a (sums x) shown before path b (sums y)? */
static bool top_before(const struct top_sum *x, const char *a, const struct top_sum *y,
                       const char *b)
{
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes;
	if (x->files != y->files)
		return x->files > y->files;
	return strcmp(a, b) < 0;
}

/* The rows of the top-level paths: the 15 with the most bytes (then the
 * most files, then by name: whatever order the paths were numbered in),
 * most first, and the others together.  sum[t] are the sums of path t of
 * the ntops first; `rest` those of the paths without a number. */
static void top_rows(struct facts *f, const struct tops *tops, const struct top_sum *sum,
                     size_t ntops, struct top_sum rest)
{
	uint32_t best[15];
	size_t nbest = 0;
	for (size_t t = 0; t < ntops; t++) {
		if (!sum[t].files)
			continue;
		size_t pos = nbest;
		while (pos > 0 && top_before(&sum[t], tops->name[t], &sum[best[pos - 1]],
		                             tops->name[best[pos - 1]]))
			pos--;
		if (pos >= 15) {
			rest.bytes += sum[t].bytes;
			rest.files += sum[t].files;
			continue;
		}
		if (nbest == 15) {
			rest.bytes += sum[best[14]].bytes;
			rest.files += sum[best[14]].files;
		} else {
			nbest++;
		}
		memmove(&best[pos + 1], &best[pos], (nbest - 1 - pos) * sizeof(*best));
		best[pos] = (uint32_t)t;
	}
	for (size_t i = 0; i < nbest; i++) {
		snprintf(f->top_name[i], sizeof(f->top_name[i]), "%s", tops->name[best[i]]);
		f->top[i].path = f->top_name[i];
		f->top[i].type = "";
		f->top[i].bytes = sum[best[i]].bytes;
		f->top[i].files = sum[best[i]].files;
	}
	f->ntop = nbest;
	if (rest.files) {
		snprintf(f->top_name[nbest], sizeof(f->top_name[nbest]), "(others)");
		f->top[nbest].path = f->top_name[nbest];
		f->top[nbest].type = "";
		f->top[nbest].bytes = rest.bytes;
		f->top[nbest].files = rest.files;
		f->ntop++;
	}
}

/* ---- the sums of the files ----------------------------------------------------- */

/* Each record of the I/O modules adds its bytes and time to its file's
 * mount point, top-level path and pattern as it is read (what a file's
 * name gives is worked out once per log: dfs_summary_names); a file is
 * counted the first time one of its records is met (a bit per file).
 * Files are known by number (files_number): per-file state is a few bits
 * and, for the files met with records of one rank, the bytes of the
 * first (the files met with records of several ranks, fewer, have their
 * range of bytes in a table of their own: the per-file imbalance). */
struct rank_range {
	size_t no;              /* file number + 1; 0: empty */
	uint64_t id;
	double min, max;
	uint32_t n;
};

struct chain {
	uint32_t *prev;         /* per record: the previous record of its file */
	size_t n, cap;          /* records chained, room */
};

struct file_sums {
	struct files ix;        /* the numbering (no accumulators) */
	dfs_summary_names *nn;
	size_t cap;             /* numbers the arrays have room for */
	uint64_t *seen;         /* bit per file: met */
	uint64_t *ranked;       /* bit: a record of one rank met, its bytes in rb */
	double *rb;
	struct rank_range *multi;
	size_t multi_n, multi_cap;
	/* shared: a record of every rank (rank -1) in POSIX, STDIO or
	 * MPI-IO (a file MPI-IO shares may have per-rank POSIX records: a
	 * partial module, or ranks that reached it through other paths) */
	uint64_t *shared;
	/* with LUSTRE records only: bytes and size of each file, and striped
	 * (its layout counted) */
	bool lustre;
	double *bytes, *size;
	uint64_t *striped;
	/* the page's sums of each file (bytes, seconds), kept from the first
	 * record met (the seen bit), and the last record met (1 + its number
	 * in f->chain: the records of a file are chained there, so that the
	 * few files shown by name find theirs without another pass) */
	double (*tot)[2];
	uint32_t *last;
	/* what the names of the files without one give (number - nnames) */
	struct file_name *un_name;
	size_t un_named;
	struct chain chain;
	/* the page's sums */
	struct top_sum *tsum, rest;
	size_t ntops;
	struct pattern *pt;
	size_t pt_cap, npt;
	struct top_file *last_pt;   /* the pattern of the last record */
	uint64_t last_key;
};

static bool bit_get(const uint64_t *b, size_t i)
{
	return b[i / 64] >> (i % 64) & 1;
}

static void bit_set(uint64_t *b, size_t i)
{
	b[i / 64] |= (uint64_t)1 << (i % 64);
}

/* bits for n numbers, the new ones clear (false without memory) */
static bool bits_grow(uint64_t **b, size_t old, size_t n)
{
	size_t ow = (old + 63) / 64, nw = (n + 63) / 64;
	uint64_t *g = realloc(*b, nw * sizeof(*g));
	if (!g)
		return false;
	memset(g + ow, 0, (nw - ow) * sizeof(*g));
	*b = g;
	return true;
}

static bool doubles_grow(dfs_scratch *pool, double **d, size_t old, size_t n)
{
	double *g = dfs_scratch_realloc(pool, *d, old * sizeof(*g), n * sizeof(*g));
	if (!g)
		return false;
	*d = g;
	return true;
}

/* the chain of the records (NULL when none is kept) */
static struct chain *f_chain_of(const struct file_sums *fs);

/* room for file number no (false without memory: the file is left out) */
static bool file_sums_room(struct file_sums *fs, size_t no)
{
	if (no < fs->cap)
		return true;
	size_t n = fs->cap * 2 > no + 64 ? fs->cap * 2 : no + 64;
	dfs_scratch *pool = fs->ix.pool;
	if (!bits_grow(&fs->seen, fs->cap, n) || !bits_grow(&fs->ranked, fs->cap, n) ||
	    !bits_grow(&fs->shared, fs->cap, n) || !doubles_grow(pool, &fs->rb, fs->cap, n))
		return false;
	if (fs->nn) {
		void *t = dfs_scratch_realloc(pool, fs->tot, fs->cap * sizeof(*fs->tot),
		                              n * sizeof(*fs->tot));
		if (!t)
			return false;
		fs->tot = t;
		if (f_chain_of(fs)) {
			uint32_t *l = dfs_scratch_realloc(pool, fs->last, fs->cap * sizeof(*l),
			                                  n * sizeof(*l));
			if (!l)
				return false;
			fs->last = l;
		}
	}
	if (fs->lustre && (!bits_grow(&fs->striped, fs->cap, n) ||
	                   !doubles_grow(pool, &fs->bytes, fs->cap, n) ||
	                   !doubles_grow(pool, &fs->size, fs->cap, n)))
		return false;
	fs->cap = n;
	return true;
}

/* nn: what the names give (NULL: no page, the sums are only those the
 * insights need) */
static void file_sums_init(struct file_sums *fs, struct facts *f, dfs_summary_names *nn)
{
	memset(fs, 0, sizeof(*fs));
	files_init(&fs->ix, f->in->log, f->in->scratch, false);
	fs->nn = nn;
	fs->lustre = selected(f->in, DFS_MOD_LUSTRE) != NULL;
	/* the chain of the page's records (in the order they are met) */
	size_t recs = 0;
	for (size_t k = 0; nn && k < sizeof(io_ids) / sizeof(*io_ids); k++)
		if (selected(f->in, io_ids[k]) && dfs_facts_page_module(f->in, io_ids[k]))
			recs += f->in->mod[io_ids[k]].count;
	if (recs && recs < UINT32_MAX) {
		fs->chain.prev = dfs_scratch_alloc(f->in->scratch, recs * sizeof(uint32_t));
		fs->chain.cap = recs;
	}
	file_sums_room(fs, fs->ix.nnames);
	if (!nn)
		return;
	if (fs->tot)
		dfs_scratch_prefault(fs->tot, 0, fs->cap * sizeof(*fs->tot));
	f->nmounts = nn->nmounts;
	for (size_t i = 0; i < f->nmounts; i++) {
		f->mount[i].path = dfs_log_mount(f->in->log, i)->path;
		f->mount[i].type = dfs_log_mount(f->in->log, i)->type;
	}
	f->mount[f->nmounts].path = "UNKNOWN";
	f->mount[f->nmounts].type = "UNKNOWN";
	name_all(nn);
	fs->ntops = nn->tops.n;
	fs->tsum = calloc(fs->ntops + 1, sizeof(*fs->tsum));
	fs->pt_cap = 256;
	fs->pt = calloc(fs->pt_cap, sizeof(*fs->pt));
}

/* the pattern of key, made and named after file no when new; NULL
 * without memory */
static struct top_file *pattern_of(struct file_sums *fs, uint64_t key, size_t no,
                                   uint64_t id)
{
	if (fs->last_pt && fs->last_key == key)
		return fs->last_pt;
	if (!fs->pt)
		return NULL;
	if (fs->npt * 2 >= fs->pt_cap) {
		fs->last_pt = NULL;     /* (the table moves) */
		if (!(fs->pt = pattern_grow(fs->pt, &fs->pt_cap)))
			return NULL;
	}
	size_t k = (size_t)key & (fs->pt_cap - 1);
	while (fs->pt[k].used && fs->pt[k].key != key)
		k = (k + 1) & (fs->pt_cap - 1);
	if (!fs->pt[k].used) {
		fs->pt[k].used = true;
		fs->pt[k].key = key;
		pattern_name(no < fs->ix.nnames ? dfs_log_name_at(fs->ix.log, no) : NULL, id,
		             fs->pt[k].t.name);
		fs->pt[k].t.key = key;
		fs->npt++;
	}
	fs->last_key = key;
	return fs->last_pt = &fs->pt[k].t;
}

/* a file met with records of several ranks: their range of bytes */
static void rank_range_add(struct file_sums *fs, size_t no, uint64_t id, double first,
                           double b)
{
	if (fs->multi_n * 2 >= fs->multi_cap) {
		size_t cap = fs->multi_cap ? fs->multi_cap * 2 : 64;
		struct rank_range *m = calloc(cap, sizeof(*m));
		if (!m)
			return;
		for (size_t i = 0; i < fs->multi_cap; i++) {
			if (!fs->multi[i].no)
				continue;
			size_t k = (size_t)mix(fs->multi[i].no) & (cap - 1);
			while (m[k].no)
				k = (k + 1) & (cap - 1);
			m[k] = fs->multi[i];
		}
		free(fs->multi);
		fs->multi = m;
		fs->multi_cap = cap;
	}
	size_t k = (size_t)mix(no + 1) & (fs->multi_cap - 1);
	while (fs->multi[k].no && fs->multi[k].no != no + 1)
		k = (k + 1) & (fs->multi_cap - 1);
	struct rank_range *r = &fs->multi[k];
	if (!r->no) {
		r->no = no + 1;
		r->id = id;
		r->min = r->max = first;
		r->n = 1;
		fs->multi_n++;
	}
	r->n++;
	if (b < r->min)
		r->min = b;
	if (b > r->max)
		r->max = b;
}

/* What the page sums of a record of file number `no` (id): its mount
 * point, top-level path and pattern. */
static void file_add_named(struct facts *f, struct file_sums *fs, uint64_t id, size_t no,
                           bool first, double b, double t)
{
	const struct file_name *nf;
	if (no < fs->ix.nnames) {
		nf = &fs->nn->of[no];
	} else {
		size_t u = no - fs->ix.nnames;
		if (u >= fs->un_named) {
			struct file_name *g = realloc(fs->un_name, (u + 1) * sizeof(*g));
			if (!g)
				return;
			fs->un_name = g;
			name_unnamed(fs->nn, id, &g[u]);
			fs->un_named = u + 1;
		}
		nf = &fs->un_name[u];
	}
	struct mount_facts *mt = &f->mount[nf->mount - 1];
	mt->bytes += b;
	mt->files += first;
	struct top_sum *ts = fs->tsum && nf->top < fs->ntops ? &fs->tsum[nf->top] : &fs->rest;
	ts->bytes += b;
	ts->files += first;
	struct top_file *p = pattern_of(fs, nf->key, no, id);
	if (p) {
		p->bytes += b;
		p->time += t;
		p->files += first;
	}
}

static struct chain *f_chain_of(const struct file_sums *fs)
{
	return fs->chain.prev ? (struct chain *)&fs->chain : NULL;
}

/* One record of file `id`, number `no` (of a module whose files are shown): b bytes,
 * t seconds, size its largest offset + 1 (< 0: not kept), of `rank`
 * (counted for the per-file imbalance when `ranked`). */
static void file_add(struct facts *f, struct file_sums *fs, uint64_t id, size_t no,
                     double b, double t, double size, int64_t rank, bool ranked)
{
	struct chain *ch = f_chain_of(fs);
	if (no == SIZE_MAX || !file_sums_room(fs, no)) {
		if (ch && ch->n < ch->cap)
			ch->prev[ch->n++] = 0;   /* (its place kept) */
		return;
	}
	bool first = !bit_get(fs->seen, no);
	bit_set(fs->seen, no);
	if (rank < 0)
		bit_set(fs->shared, no);
	if (fs->nn) {
		file_add_named(f, fs, id, no, first, b, t);
		if (first) {
			fs->tot[no][0] = b;
			fs->tot[no][1] = t;
		} else {
			fs->tot[no][0] += b;
			fs->tot[no][1] += t;
		}
		if (ch && ch->n < ch->cap) {
			ch->prev[ch->n] = first ? 0 : fs->last[no];
			fs->last[no] = (uint32_t)++ch->n;
		}
	}
	if (ranked) {
		if (!bit_get(fs->ranked, no)) {
			bit_set(fs->ranked, no);
			fs->rb[no] = b;
		} else {
			rank_range_add(fs, no, id, fs->rb[no], b);
		}
	}
	if (fs->lustre) {
		if (first) {
			fs->bytes[no] = 0;
			fs->size[no] = 0;
		}
		fs->bytes[no] += b;
		if (size > fs->size[no])
			fs->size[no] = size;
	}
}

/* the record id of file number no */
static uint64_t file_id_of(const struct file_sums *fs, size_t no, const dfs_name *names)
{
	if (no < fs->ix.nnames)
		return names[no].id;
	const struct unnamed *u = &fs->ix.un;
	for (size_t k = 0; k < u->cap; k++)
		if (u->used[k] && u->at[k] == no - fs->ix.nnames + 1)
			return u->id[k];
	return 0;
}

/* is file x (bytes or time: k) shown before file y? (more first, then
 * the smaller number: the order of the log's names) */
static bool named_before(double x, size_t xno, const struct named_file *y, int k)
{
	double yv = k ? y->time : y->bytes;
	return x > yv || (x == yv && xno < y->no);
}

static void named_insert(struct named_file *top, size_t *n, const struct named_file *c,
                         int k)
{
	double v = k ? c->time : c->bytes;
	if (!(v > 0) || (*n == TOP_FILES && !named_before(v, c->no, &top[TOP_FILES - 1], k)))
		return;
	size_t pos = *n < TOP_FILES ? *n : TOP_FILES - 1;
	while (pos > 0 && named_before(v, c->no, &top[pos - 1], k))
		pos--;
	size_t last = *n < TOP_FILES ? *n : TOP_FILES - 1;
	memmove(&top[pos + 1], &top[pos], (last - pos) * sizeof(*top));
	top[pos] = *c;
	if (*n < TOP_FILES)
		(*n)++;
}

/* The files with the most bytes and the most time, by name, and the
 * largest file of each pattern shown: one walk over the files met, in
 * the order of their numbers (the shown patterns are found by their key
 * in a small table). */
static void named_pick(struct facts *f, struct file_sums *fs)
{
	enum { SLOTS = 4 * TOP_FILES };
	struct {
		uint64_t key;
		struct top_file *t[2];
	} shown[SLOTS];
	memset(shown, 0, sizeof(shown));
	struct top_file *lists[2] = {f->by_bytes, f->by_time};
	size_t counts[2] = {f->nby_bytes, f->nby_time};
	for (int l = 0; l < 2; l++)
		for (size_t i = 0; i < counts[l]; i++) {
			struct top_file *t = &lists[l][i];
			size_t k = (size_t)t->key % SLOTS;
			while (shown[k].t[0] && shown[k].key != t->key)
				k = (k + 1) % SLOTS;
			shown[k].key = t->key;
			shown[k].t[shown[k].t[0] ? 1 : 0] = t;
		}
	double min_b = 0, min_t = 0;   /* what the full lists' last rows hold */
	for (size_t w = 0; w < (fs->cap + 63) / 64; w++) {
		uint64_t bits = fs->seen[w];
		while (bits) {
			size_t no = w * 64 + (size_t)__builtin_ctzll(bits);
			bits &= bits - 1;
			if (no >= fs->cap)
				break;
			f->files_seen++;
			double b = fs->tot[no][0], t = fs->tot[no][1];
			const struct file_name *nf = no < fs->ix.nnames ? &fs->nn->of[no]
			                             : no - fs->ix.nnames < fs->un_named
			                             ? &fs->un_name[no - fs->ix.nnames] : NULL;
			if (nf && b > 0) {
				size_t k = (size_t)nf->key % SLOTS;
				while (shown[k].t[0] && shown[k].key != nf->key)
					k = (k + 1) % SLOTS;
				for (int l = 0; l < 2 && shown[k].t[0] && shown[k].key == nf->key; l++) {
					struct top_file *p = shown[k].t[l];
					if (p && b > p->big_bytes) {
						p->big_bytes = b;
						p->big_id = no;   /* (a number until the end) */
					}
				}
			}
			if (b >= min_b || t >= min_t) {
				struct named_file c;
				memset(&c, 0, sizeof(c));
				c.no = no;
				c.bytes = b;
				c.time = t;
				c.head = fs->last ? fs->last[no] : 0;
				named_insert(f->named_bytes, &f->nnamed_bytes, &c, 0);
				named_insert(f->named_time, &f->nnamed_time, &c, 1);
				if (f->nnamed_bytes == TOP_FILES)
					min_b = f->named_bytes[TOP_FILES - 1].bytes;
				if (f->nnamed_time == TOP_FILES)
					min_t = f->named_time[TOP_FILES - 1].time;
			}
		}
	}
	/* numbers to record ids */
	const dfs_name *names = fs->ix.names;
	for (int l = 0; l < 2; l++)
		for (size_t i = 0; i < counts[l]; i++) {
			struct top_file *t = &lists[l][i];
			if (t->big_bytes > 0)
				t->big_id = file_id_of(fs, (size_t)t->big_id, names);
		}
	for (size_t i = 0; i < f->nnamed_bytes; i++)
		f->named_bytes[i].id = file_id_of(fs, f->named_bytes[i].no, names);
	for (size_t i = 0; i < f->nnamed_time; i++)
		f->named_time[i].id = file_id_of(fs, f->named_time[i].no, names);
}

/* the tables of the page and the per-file imbalance, once every record
 * is added */
static void file_sums_finish(struct facts *f, struct file_sums *fs)
{
	if (fs->nn && f->mount[f->nmounts].files)
		f->nmounts++;
	if (fs->tsum)
		top_rows(f, &fs->nn->tops, fs->tsum, fs->ntops, fs->rest);
	for (size_t k = 0; fs->pt && k < fs->pt_cap; k++) {
		if (!fs->pt[k].used)
			continue;
		f->patterns_shared |= fs->pt[k].t.files > 1;
		top_insert(f->by_bytes, &f->nby_bytes, &fs->pt[k].t, true);
		top_insert(f->by_time, &f->nby_time, &fs->pt[k].t, false);
	}
	if (fs->tot) {
		named_pick(f, fs);
		f->chain = fs->chain.prev;
		f->chain_n = fs->chain.n;
		dfs_facts_named_detail(f);
		f->chain = NULL;
	}
	struct io_facts *io = dfs_facts_io(f, DFS_MOD_POSIX);
	for (size_t k = 0; io && k < fs->multi_cap; k++) {
		const struct rank_range *r = &fs->multi[k];
		/* (a file that every rank opened is the shared files' rule's) */
		if (!r->no || r->n < 2 || !(r->max > f->thr.imbalance_bytes_absolute) ||
		    bit_get(fs->shared, r->no - 1))
			continue;
		double d = (r->max - r->min) / r->max;
		if (d > f->thr.imbalance_size) {
			io->size_imbalanced++;
			if (d > io->size_imbalance_worst)
				io->size_imbalance_worst = d;
			dfs_top_add(&io->ev->imbalanced_top, r->id, -1, d);
		}
	}
	if (io)
		dfs_top_sort(&io->ev->imbalanced_top);
}

static void file_sums_free(struct file_sums *fs)
{
	dfs_scratch *pool = fs->ix.pool;
	files_free(&fs->ix);
	free(fs->seen);
	free(fs->ranked);
	dfs_scratch_free(pool, fs->rb);
	free(fs->multi);
	free(fs->shared);
	free(fs->striped);
	dfs_scratch_free(pool, fs->bytes);
	dfs_scratch_free(pool, fs->size);
	dfs_scratch_free(pool, fs->tot);
	dfs_scratch_free(pool, fs->last);
	dfs_scratch_free(pool, fs->chain.prev);
	free(fs->un_name);
	free(fs->tsum);
	free(fs->pt);
}

/* ---- I/O modules -------------------------------------------------------------- */

/* the operation counters of every module, by the end of their names
 * (a module has those it has; the plot shows those not zero) */
static const char *const op_suffixes[] = {
	"OPENS", "FDOPENS", "FILENOS", "DUPS", "READS", "WRITES", "SEEKS", "STATS",
	"MMAPS", "FSYNCS", "FDSYNCS", "FLUSHES", "RENAME_SOURCES", "RENAME_TARGETS",
	"INDEP_OPENS", "COLL_OPENS", "INDEP_READS", "INDEP_WRITES", "COLL_READS",
	"COLL_WRITES", "SPLIT_READS", "SPLIT_WRITES", "NB_READS", "NB_WRITES",
	"SYNCS", "VIEWS", "HINTS", "PUNCHES", "REMOVES", "GETSIZES",
	"DATASPACE_SELECTS",
	/* DFS */
	"GLOBAL_OPENS", "LOOKUPS", "READXS", "WRITEXS", "GET_SIZES",
	/* DAOS */
	"OBJ_OPENS", "OBJ_FETCHES", "OBJ_UPDATES", "OBJ_PUNCHES", "OBJ_DKEY_PUNCHES",
	"OBJ_AKEY_PUNCHES", "OBJ_DKEY_LISTS", "OBJ_AKEY_LISTS", "OBJ_RECX_LISTS",
	"ARRAY_OPENS", "ARRAY_READS", "ARRAY_WRITES", "ARRAY_GET_SIZES", "ARRAY_SET_SIZES",
	"ARRAY_STATS", "ARRAY_PUNCHES", "ARRAY_DESTROYS", "KV_OPENS", "KV_GETS", "KV_PUTS",
	"KV_REMOVES", "KV_LISTS", "KV_DESTROYS", "NB_OPS",
};

static const char *const size_suffixes[SIZE_BINS] = {
	"0_100", "100_1K", "1K_10K", "10K_100K", "100K_1M", "1M_4M", "4M_10M",
	"10M_100M", "100M_1G", "1G_PLUS",
};

struct io_fields {
	int bytes_read, bytes_written, read_time, write_time, meta_time;
	int op[MAX_OPS];
	int size_read[SIZE_BINS], size_write[SIZE_BINS];
	int access[4], count[4];
	int reads, writes, seq_reads, seq_writes, consec_reads, consec_writes;
	int mem_na, file_na;
	int indep_reads, indep_writes, coll_reads, coll_writes, nb_reads, nb_writes;
	int max_read, max_write, open_start, close_end, read_start, read_end,
	    write_start, write_end;
	int use_coll, use_mpiio;      /* H5D, H5F flags */
};

static void io_fields(struct io_facts *io, struct io_fields *fl)
{
	const dfs_module *m = io->m;
	memset(fl, -1, sizeof(*fl));   /* (every field -1: none) */
	fl->bytes_read = field(m, "BYTES_READ");
	fl->bytes_written = field(m, "BYTES_WRITTEN");
	fl->read_time = field(m, "F_READ_TIME");
	fl->write_time = field(m, "F_WRITE_TIME");
	fl->meta_time = field(m, "F_META_TIME");
	io->nops = 0;
	for (size_t k = 0; k < sizeof(op_suffixes) / sizeof(*op_suffixes) &&
	                   io->nops < MAX_OPS; k++) {
		int f = field(m, op_suffixes[k]);
		bool dup = false;
		for (size_t j = 0; j < io->nops; j++)
			dup |= fl->op[j] == f;
		if (f >= 0 && !dup) {
			fl->op[io->nops] = f;
			io->op_name[io->nops++] = m->fields[f].name;
		}
	}
	char name[64];
	io->has_sizes = false;
	for (int k = 0; k < SIZE_BINS; k++) {
		snprintf(name, sizeof(name), "SIZE_READ_%s", size_suffixes[k]);
		fl->size_read[k] = field(m, name);
		if (fl->size_read[k] < 0) {
			snprintf(name, sizeof(name), "SIZE_READ_AGG_%s", size_suffixes[k]);
			fl->size_read[k] = field(m, name);
		}
		snprintf(name, sizeof(name), "SIZE_WRITE_%s", size_suffixes[k]);
		fl->size_write[k] = field(m, name);
		if (fl->size_write[k] < 0) {
			snprintf(name, sizeof(name), "SIZE_WRITE_AGG_%s", size_suffixes[k]);
			fl->size_write[k] = field(m, name);
		}
		io->has_sizes |= fl->size_read[k] >= 0;
	}
	for (int k = 0; k < 4; k++) {
		snprintf(name, sizeof(name), "ACCESS%d_ACCESS", k + 1);
		fl->access[k] = field(m, name);
		snprintf(name, sizeof(name), "ACCESS%d_COUNT", k + 1);
		fl->count[k] = field(m, name);
	}
	fl->reads = field(m, "READS");
	fl->writes = field(m, "WRITES");
	fl->seq_reads = field(m, "SEQ_READS");
	fl->seq_writes = field(m, "SEQ_WRITES");
	fl->consec_reads = field(m, "CONSEC_READS");
	fl->consec_writes = field(m, "CONSEC_WRITES");
	fl->mem_na = field(m, "MEM_NOT_ALIGNED");
	fl->file_na = field(m, "FILE_NOT_ALIGNED");
	fl->indep_reads = field(m, "INDEP_READS");
	fl->indep_writes = field(m, "INDEP_WRITES");
	fl->coll_reads = field(m, "COLL_READS");
	fl->coll_writes = field(m, "COLL_WRITES");
	fl->nb_reads = field(m, "NB_READS");
	fl->nb_writes = field(m, "NB_WRITES");
	fl->max_read = field(m, "MAX_BYTE_READ");
	fl->max_write = field(m, "MAX_BYTE_WRITTEN");
	fl->open_start = field(m, "F_OPEN_START_TIMESTAMP");
	fl->close_end = field(m, "F_CLOSE_END_TIMESTAMP");
	fl->read_start = field(m, "F_READ_START_TIMESTAMP");
	fl->read_end = field(m, "F_READ_END_TIMESTAMP");
	fl->write_start = field(m, "F_WRITE_START_TIMESTAMP");
	fl->write_end = field(m, "F_WRITE_END_TIMESTAMP");
	fl->use_coll = field(m, "USE_MPIIO_COLLECTIVE");
	fl->use_mpiio = field(m, "USE_MPIIO");
}

/* the most common access sizes of a module: an open-addressing table of
 * sizes (a job uses few distinct sizes; past COMMON of them new ones are
 * not counted) */
#define COMMON 1024
struct common {
	double size[COMMON], count[COMMON];
	bool used[COMMON];
	size_t n;
};

static void common_add(struct common *c, double size, double count)
{
	if (count <= 0)
		return;
	uint64_t bits;
	memcpy(&bits, &size, 8);
	size_t k = (size_t)((bits * 0x9e3779b97f4a7c15ULL) >> 54) & (COMMON - 1);
	while (c->used[k] && c->size[k] != size)
		k = (k + 1) & (COMMON - 1);
	if (c->used[k]) {
		c->count[k] += count;
	} else if (c->n < COMMON / 2) {
		c->used[k] = true;
		c->size[k] = size;
		c->count[k] = count;
		c->n++;
	}
}

static void interval(double *a, double *b, double s, double e)
{
	if (s <= 0 && e <= 0)
		return;
	if (s < *a)
		*a = s;
	if (e > *b)
		*b = e;
}

bool dfs_facts_page_module(const dfs_summary_input *in, int id)
{
	/* POSIX, STDIO and DFS are apart (none goes through another); DAOS
	 * is under DFS; MPI-IO, HDF5 and PnetCDF go through POSIX (or DFS) */
	if (id == DFS_MOD_POSIX || id == DFS_MOD_STDIO || id == DFS_MOD_DFS)
		return true;
	if (id == DFS_MOD_DAOS)
		return !selected(in, DFS_MOD_DFS);
	return id != DFS_MOD_MPIIO && id != DFS_MOD_H5D && id != DFS_MOD_PNETCDF_VAR &&
	       !selected(in, DFS_MOD_POSIX) && !selected(in, DFS_MOD_DFS) &&
	       !selected(in, DFS_MOD_DAOS);
}

struct scratch_ranks {
	double *read, *write, *meta;     /* per rank of one module */
	double *bytes, *time;            /* per rank, POSIX + STDIO */
	size_t n;
};

/* What a loop over a module's selection reads soon, asked for at record
 * k: the record twice PREFETCH_AHEAD ahead, and (ix: the lookups of its
 * file do not follow the name table) the name of the one PREFETCH_AHEAD
 * ahead, whose id is in the cache by then. */
static inline void prefetch_ahead(const dfs_summary_module *sm, size_t k, struct files *ix)
{
	if (k + 2 * PREFETCH_AHEAD < sm->count)
		dfs_record_prefetch(sm->records, sm->index ? sm->index[k + 2 * PREFETCH_AHEAD]
		                                           : k + 2 * PREFETCH_AHEAD);
	if (ix && k + PREFETCH_AHEAD < sm->count) {
		size_t j = sm->index ? sm->index[k + PREFETCH_AHEAD] : k + PREFETCH_AHEAD;
		files_prefetch(ix, dfs_record_word(sm->records, j, 0));
	}
}

/* ---- the evidence's pass --------------------------------------------------------- */

/* What the insights learn of each record (evidence.c) is gathered by a
 * pass of its own over the module's records, on a thread of its own beside
 * gather_io's when there are many: it numbers the files itself, marks
 * those it met and keeps the sums of each (ev_fields.nsum numbers a file,
 * in recycled memory that lives as long as the pass), into an io_facts of
 * its own whose few numbers are added to the module's afterwards. */
struct ev_pass {
	const struct facts *f;
	const dfs_summary_module *sm;
	struct ev_fields ef;
	struct io_facts io;     /* what evidence.c adds up, and the evidence */
	struct files ix;        /* the file numbers */
	size_t cap;             /* files the arrays have room for */
	uint64_t *met;          /* bit per file: met in the module */
	double *sums;           /* ef.nsum a file (NULL: none kept) */
};

/* room for file number no (false without memory) */
static bool ev_room(struct ev_pass *p, size_t no)
{
	if (no < p->cap)
		return true;
	size_t n = p->cap * 2 > no + 64 ? p->cap * 2 : no + 64;
	if (!bits_grow(&p->met, p->cap, n))
		return false;
	if (p->sums) {
		double *g = dfs_scratch_realloc(p->ix.pool, p->sums,
		                                p->cap * p->ef.nsum * sizeof(double),
		                                n * p->ef.nsum * sizeof(double));
		if (!g)
			return false;
		p->sums = g;
	}
	p->cap = n;
	return true;
}

static void ev_pass_init(struct ev_pass *p, const struct facts *f, struct io_facts *io,
                         const dfs_summary_module *sm)
{
	memset(p, 0, sizeof(*p));
	p->f = f;
	p->sm = sm;
	dfs_evidence_begin(&p->ef, f, io->m);
	p->io.id = io->id;
	p->io.m = io->m;
	p->io.ev = io->ev;
	files_init(&p->ix, f->in->log, f->in->scratch, false);
	size_t n = p->ix.nnames;
	if (p->ef.nsum && n && n <= SIZE_MAX / sizeof(double) / EV_SUMS) {
		p->sums = dfs_scratch_alloc(p->ix.pool, n * p->ef.nsum * sizeof(double));
		if (p->sums)
			dfs_scratch_prefault(p->sums, 0, n * p->ef.nsum * sizeof(double));
	}
	if (!ev_room(p, n ? n - 1 : 0)) {
		dfs_scratch_free(p->ix.pool, p->sums);
		p->sums = NULL;
	}
}

static void *ev_pass_run(void *arg)
{
	struct ev_pass *p = arg;
	const dfs_summary_module *sm = p->sm;
	_Alignas(8) unsigned char scratch[DFS_RECORD_MAX];
	struct rec_words words, *w = dfs_evidence_words(&p->ef, &words) ? &words : NULL;
	FOR_SELECTED(sm, k, i) {
		prefetch_ahead(sm, k, files_scattered(&p->ix) ? &p->ix : NULL);
		const unsigned char *rec = w ? dfs_rec_words_get(w, sm->records, i, scratch, NULL)
		                             : dfs_record_get(sm->records, i, scratch);
		size_t len = dfs_record_size(sm->records, i);
		size_t no = files_number(&p->ix, dfs_facts_rec_id(rec));
		bool again = true;
		double *sums = NULL;
		if (no != SIZE_MAX && ev_room(p, no)) {
			again = bit_get(p->met, no);
			bit_set(p->met, no);
			if (p->sums)
				sums = &p->sums[no * p->ef.nsum];
		}
		dfs_evidence_record(&p->ef, &p->io, rec, len, w, again, sums);
	}
	return NULL;
}

/* the ids of the files numbered after the names, in number order
 * (malloc'd; NULL when there are none or without memory) */
static uint64_t *unnamed_ids(const struct files *ix)
{
	const struct unnamed *u = &ix->un;
	uint64_t *ids = ix->nun ? calloc(ix->nun, sizeof(*ids)) : NULL;
	for (size_t k = 0; ids && k < u->cap; k++)
		if (u->used[k] && u->at[k] && u->at[k] <= ix->nun)
			ids[u->at[k] - 1] = u->id[k];
	return ids;
}

/* the pass's lists made (the files' from their sums), its memory let go */
static void ev_pass_lists(struct ev_pass *p)
{
	struct ev_file_sums es = {p->sums, p->ef.nsum, p->cap, p->met, p->ix.names,
	                          p->ix.nnames, unnamed_ids(&p->ix)};
	if (p->ix.nun && !es.more_ids)
		es.v = NULL;   /* (no memory: summed by a second pass) */
	dfs_evidence_lists(p->io.ev, &p->ef, &es);
	free((void *)es.more_ids);
	dfs_scratch_free(p->ix.pool, p->sums);
	p->sums = NULL;
	free(p->met);
	p->met = NULL;
	files_free(&p->ix);
}

/* the pass's lists made, its numbers into the module's (the lists on
 * the caller's thread: the pass's is the busier) */
static void ev_pass_end(struct ev_pass *p, struct io_facts *io)
{
	ev_pass_lists(p);
	io->small_reads += p->io.small_reads;
	io->small_writes += p->io.small_writes;
	io->shared_small_reads += p->io.shared_small_reads;
	io->shared_small_writes += p->io.shared_small_writes;
	io->stragglers += p->io.stragglers;
	if (p->io.straggler_worst > io->straggler_worst)
		io->straggler_worst = p->io.straggler_worst;
	dfs_evidence_end(p->f, io);
}

/* records of a module below which the evidence's pass is not worth a
 * thread of its own */
#define EV_THREAD_MIN 16384

/* The counters a module's facts sum over every record: each sum's
 * place in io_facts and its field. */
static size_t summed_counters(struct io_facts *io, const struct io_fields *fl,
                              double **dst, int *fld)
{
	size_t n = 0;
#define SUM(d, f) (dst[n] = &(d), fld[n++] = (f))
	SUM(io->bytes_read, fl->bytes_read);
	SUM(io->bytes_written, fl->bytes_written);
	SUM(io->read_time, fl->read_time);
	SUM(io->write_time, fl->write_time);
	SUM(io->meta_time, fl->meta_time);
	for (size_t o = 0; o < io->nops; o++)
		SUM(io->ops[o], fl->op[o]);
	for (int b = 0; b < SIZE_BINS; b++) {
		SUM(io->size_read[b], fl->size_read[b]);
		SUM(io->size_write[b], fl->size_write[b]);
	}
	SUM(io->reads, fl->reads);
	SUM(io->writes, fl->writes);
	SUM(io->seq_reads, fl->seq_reads);
	SUM(io->seq_writes, fl->seq_writes);
	SUM(io->consec_reads, fl->consec_reads);
	SUM(io->consec_writes, fl->consec_writes);
	SUM(io->mem_not_aligned, fl->mem_na);
	SUM(io->file_not_aligned, fl->file_na);
	SUM(io->indep_reads, fl->indep_reads);
	SUM(io->indep_writes, fl->indep_writes);
	SUM(io->coll_reads, fl->coll_reads);
	SUM(io->coll_writes, fl->coll_writes);
	SUM(io->nb_reads, fl->nb_reads);
	SUM(io->nb_writes, fl->nb_writes);
#undef SUM
	return n;
}

#define SUMMED_MAX (5 + MAX_OPS + 2 * SIZE_BINS + 14)

/* those sums of one record, counter by counter (a module whose records
 * are not all words) */
static void sum_counters(struct io_facts *io, const struct io_fields *fl,
                         const unsigned char *rec, size_t len)
{
	double *dst[SUMMED_MAX];
	int fld[SUMMED_MAX];
	size_t n = summed_counters(io, fl, dst, fld);
	for (size_t k = 0; k < n; k++)
		*dst[k] += counter(io->m, rec, len, fld[k]);
}

/* Can every counter of the module the facts read be read from the
 * record's words (rw set up)?  (io_fields is made of field indices.) */
static bool words_cover(const struct io_fields *fl, struct rec_words *rw, const dfs_module *m)
{
	_Static_assert(sizeof(struct io_fields) % sizeof(int) == 0, "io_fields: ints only");
	int all[sizeof(struct io_fields) / sizeof(int)];
	memcpy(all, fl, sizeof(all));
	return dfs_rec_words_init(rw, m) && dfs_rec_words_cover(rw, all, sizeof(all) / sizeof(int));
}

/* the sums of the words into their places */
static void words_sums_put(struct io_facts *io, const struct io_fields *fl,
                           const struct word_sums *ws)
{
	double *dst[SUMMED_MAX];
	int fld[SUMMED_MAX];
	size_t n = summed_counters(io, fl, dst, fld);
	for (size_t k = 0; k < n; k++)
		*dst[k] = fld[k] < 0 ? 0 : ws->sum[io->m->fields[fld[k]].offset / 8];
}

static void gather_io(struct facts *f, struct io_facts *io, struct file_sums *files,
                      struct scratch_ranks *sr, struct common *cm)
{
	const dfs_summary_module *sm = selected(f->in, io->id);
	struct io_fields fl;
	io_fields(io, &fl);
	unsigned char scratch[DFS_RECORD_MAX];
	double shared_r = 0, shared_w = 0, shared_m = 0;
	bool per_rank = sr->read != NULL;
	bool for_ranks = io->id == DFS_MOD_POSIX || io->id == DFS_MOD_STDIO;
	bool for_files = files && dfs_facts_page_module(f->in, io->id);
	if (per_rank) {
		memset(sr->read, 0, sr->n * sizeof(double));
		memset(sr->write, 0, sr->n * sizeof(double));
		memset(sr->meta, 0, sr->n * sizeof(double));
	}
	memset(cm, 0, sizeof(*cm));
	/* (the counters of a record as its words read at once, when they
	 * all are words) */
	struct rec_words rwords, *rw = words_cover(&fl, &rwords, io->m) ? &rwords : NULL;
	struct word_sums ws;
	memset(&ws, 0, sizeof(ws));
/* a counter of the record, a value as stored */
#define CNT(x) (rw ? dfs_rec_count(rw, fl.x) : counter(m, rec, len, fl.x))
#define VAL(x) (rw ? dfs_rec_raw(rw, fl.x) : value(m, rec, len, 0, fl.x))
	struct ev_pass ep;
	ev_pass_init(&ep, f, io, sm);
	pthread_t ev_thread;
	bool threaded = sm->count >= EV_THREAD_MIN && dfs_workers(2, 2) > 1 &&
	                pthread_create(&ev_thread, NULL, ev_pass_run, &ep) == 0;
	FOR_SELECTED(sm, k, i) {
		prefetch_ahead(sm, k, for_files && files_scattered(&files->ix) ? &files->ix : NULL);
		const unsigned char *rec = rw ? dfs_rec_words_get(rw, sm->records, i, scratch, &ws)
		                              : dfs_record_get(sm->records, i, scratch);
		size_t len = dfs_record_size(sm->records, i);
		const dfs_module *m = io->m;
		int64_t rank = rec_rank(rec);
		if (!rw)
			sum_counters(io, &fl, rec, len);
		double br = CNT(bytes_read);
		double bw = CNT(bytes_written);
		double tr = CNT(read_time);
		double tw = CNT(write_time);
		double tm = CNT(meta_time);
		io->records++;
		double reads = CNT(reads);
		double writes = CNT(writes);
		uint64_t id = dfs_facts_rec_id(rec);
		size_t no = files ? files_number(&files->ix, id) : SIZE_MAX;
		for (int a = 0; a < 4; a++)
			if (fl.access[a] >= 0)
				common_add(cm, VAL(access[a]), CNT(count[a]));
		if (fl.use_coll >= 0 && reads + writes > 0) {
			io->datasets++;
			if (CNT(use_coll) <= 0) {
				io->indep_datasets++;
				io->indep_dataset_ops += reads + writes;
			}
		}
		if (CNT(use_mpiio) > 0)
			io->mpiio_files++;
		if (rank < 0) {
			shared_r += tr;
			shared_w += tw;
			shared_m += tm;
			io->shared_reads += reads;
			io->shared_writes += writes;
			io->shared_files++;
			if (for_ranks)
				f->shared_rank_time += tr + tw + tm;
		} else if (per_rank && rank < (int64_t)sr->n) {
			sr->read[rank] += tr;
			sr->write[rank] += tw;
			sr->meta[rank] += tm;
		}
		if (for_ranks) {
			size_t b = rank_bin(f, rank);
			if (b < RANK_BINS) {
				f->rank_recs[b]++;
				if (sr->bytes && rank < (int64_t)sr->n) {
					sr->bytes[rank] += br + bw;
					sr->time[rank] += tr + tw + tm;
				}
			} else {
				f->shared_bytes += br + bw;
				f->shared_time += tr + tw + tm;
			}
			double os = VAL(open_start);
			double ce = VAL(close_end);
			interval(&f->tl_open[b], &f->tl_close[b], os, ce);
			interval(&f->tl_rs[b], &f->tl_re[b], VAL(read_start), VAL(read_end));
			interval(&f->tl_ws[b], &f->tl_we[b], VAL(write_start), VAL(write_end));
			if (ce > f->tl_end)
				f->tl_end = ce;
		}
		if (!for_files && rank < 0 && io->id == DFS_MOD_MPIIO && no != SIZE_MAX &&
		    file_sums_room(files, no))
			bit_set(files->shared, no);
		if (for_files) {
			double size = fl.max_read < 0 ? -1 : fmax(CNT(max_read), CNT(max_write)) + 1;
			/* (the per-file imbalance is POSIX's) */
			file_add(f, files, id, no, br + bw, tr + tw + tm, size, rank,
			         rank >= 0 && io->id == DFS_MOD_POSIX);
		}
	}
#undef CNT
#undef VAL
	if (rw)
		words_sums_put(io, &fl, &ws);
	/* the slowest rank: own time plus an even share of the shared files' */
	double n = f->nprocs > 0 ? (double)f->nprocs : 1;
	io->slow_read = shared_r / n;
	io->slow_write = shared_w / n;
	io->slow_meta = shared_m / n;
	io->slow_rank = -1;
	double worst = -1;
	for (size_t r = 0; per_rank && r < sr->n; r++) {
		double t = sr->read[r] + sr->write[r] + sr->meta[r];
		if (t > worst) {
			worst = t;
			io->slow_rank = (int64_t)r;
			io->slow_read = sr->read[r] + shared_r / n;
			io->slow_write = sr->write[r] + shared_w / n;
			io->slow_meta = sr->meta[r] + shared_m / n;
		}
		if (sr->meta[r] + shared_m / n > f->thr.metadata_time_rank)
			io->meta_ranks++;
		if (sr->meta[r] + shared_m / n > io->meta_worst)
			io->meta_worst = sr->meta[r] + shared_m / n;
		dfs_top_add(&io->ev->meta_top, 0, (int64_t)r, sr->meta[r] + shared_m / n);
	}
	dfs_top_sort(&io->ev->meta_top);
	if (threaded)
		pthread_join(ev_thread, NULL);
	else
		ev_pass_run(&ep);
	ev_pass_end(&ep, io);
	/* the four most common sizes */
	for (size_t t = 0; t < 4; t++) {
		size_t best = COMMON;
		for (size_t c = 0; c < COMMON; c++)
			if (cm->used[c] && cm->count[c] > 0 &&
			    (best == COMMON || cm->count[c] > cm->count[best] ||
			     (cm->count[c] == cm->count[best] && cm->size[c] < cm->size[best])))
				best = c;
		if (best == COMMON)
			break;
		io->common_size[t] = cm->size[best];
		io->common_count[t] = cm->count[best];
		io->ncommon = t + 1;
		cm->count[best] = -1;
	}
}

/* ---- heat maps, DXT, Lustre, APMPI ------------------------------------------ */

static size_t time_col(double t, double span)
{
	if (!(t > 0) || !(span > 0))
		return 0;
	size_t c = (size_t)(t / span * TIME_BINS);
	return c < TIME_BINS ? c : TIME_BINS - 1;
}

const char *const dfs_heat_layer_names[HEAT_LAYERS] = {
	"POSIX", "MPIIO", "STDIO", "DFS", "DAOS",
};

/* the ids of heatmap:POSIX ... heatmap:DAOS, for records whose name the
 * log lacks (Darshan's hash of the name; the format's test vectors) */
static const uint64_t heat_ids[3] = {
	16592106915301738621ULL, 3668870418325792824ULL, 3989511027826779520ULL,
};

/* the layer of a HEATMAP record, -1 when unknown */
static int heat_layer_of(const dfs_log *log, uint64_t id)
{
	const dfs_name *nm = dfs_log_name(log, id);
	if (nm && nm->len > 8 && memcmp(nm->str, "heatmap:", 8) == 0) {
		for (int l = 0; l < HEAT_LAYERS; l++)
			if (nm->len - 8 == strlen(dfs_heat_layer_names[l]) &&
			    memcmp(nm->str + 8, dfs_heat_layer_names[l], nm->len - 8) == 0)
				return l;
		return -1;
	}
	for (int l = 0; l < 3; l++)
		if (id == heat_ids[l])
			return l;
	return -1;
}

static struct heat_layer *heat_alloc(struct facts *f, int l)
{
	struct heat_layer *h = &f->heat[l];
	if (!h->read) {
		/* (a row per rank bin of the job) */
		h->read = calloc(f->rank_bins, sizeof(*h->read));
		h->write = calloc(f->rank_bins, sizeof(*h->write));
		if (!h->read || !h->write) {
			free(h->read);
			free(h->write);
			h->read = h->write = NULL;
			return NULL;
		}
	}
	return h;
}

#define HEAT_FIXED 48   /* bytes of a HEATMAP record before its bins */

static void gather_heatmap(struct facts *f)
{
	const dfs_summary_module *sm = selected(f->in, DFS_MOD_HEATMAP);
	if (!sm || sm->count == 0)
		return;
	unsigned char scratch[DFS_RECORD_MAX];
	/* The columns are whole groups of `group` bins of the widest width
	 * (the runtime doubles a width as a run goes on, so the others divide
	 * it): a cell then holds exactly the bins of its time window, where a
	 * bin put in the column of its centre would claim a window it does
	 * not match and leave columns empty between full ones. */
	double span = 0, wide = 0;
	double group = 1;
	size_t cols = TIME_BINS;
	for (int pass = 0; pass < 2; pass++) {
		FOR_SELECTED(sm, k, i) {
			const unsigned char *rec = dfs_record_get(sm->records, i, scratch);
			size_t len = dfs_record_size(sm->records, i);
			/* (decoded: base, width, nbins, 16 bytes of zeros, the
			 * write bins, the read bins) */
			double width;
			int64_t nbins;
			if (len < HEAT_FIXED)
				continue;
			memcpy(&width, rec + 16, 8);
			memcpy(&nbins, rec + 24, 8);
			if (nbins < 0 || (size_t)nbins > (len - HEAT_FIXED) / 16 || !(width > 0))
				continue;
			if (pass == 0) {
				if (width * (double)nbins > span)
					span = width * (double)nbins;
				if (width > wide)
					wide = width;
				continue;
			}
			int l = heat_layer_of(f->in->log, dfs_facts_rec_id(rec));
			struct heat_layer *h = l >= 0 ? heat_alloc(f, l) : NULL;
			if (!h)
				continue;
			h->records++;
			size_t row = rank_bin(f, rec_rank(rec));
			if (row >= RANK_BINS)
				row = 0;
			for (int64_t b = 0; b < nbins; b++) {
				int64_t w, r;
				memcpy(&w, rec + HEAT_FIXED + 8 * b, 8);
				memcpy(&r, rec + HEAT_FIXED + 8 * (nbins + b), 8);
				/* (the bin's start, a hair in: its column, whatever
				 * rounding the product has) */
				double at = ((double)b + 1e-6) * width / (group * wide);
				size_t c = at < (double)cols ? (size_t)at : cols - 1;
				h->write[row][c] += (double)w;
				h->read[row][c] += (double)r;
				h->bytes_written += (double)w;
				h->bytes_read += (double)r;
			}
		}
		if (pass == 0 && wide > 0) {
			double n = ceil(span / wide - 1e-9);
			group = n > TIME_BINS ? ceil(n / TIME_BINS) : 1;
			cols = (size_t)ceil(n / group);
			if (cols < 1)
				cols = 1;
			span = (double)cols * group * wide;
		}
	}
	f->heat_span = span;
	f->heat_cols = cols;
	f->has_heat = span > 0;
}

struct host_set {
	uint64_t h[1024];
	size_t n;
};

static void host_add(struct host_set *s, const char *name, size_t len)
{
	if (len == 0)
		return;
	uint64_t h = dfs_fnv1a(DFS_FNV1A_INIT, name, len);
	for (size_t i = 0; i < s->n; i++)
		if (s->h[i] == h)
			return;
	if (s->n < 1024)
		s->h[s->n++] = h;
}

static size_t off_row(double off, double max)
{
	if (!(max > 0) || off <= 0)
		return 0;
	size_t r = (size_t)(off / max * OFF_BINS);
	return r < OFF_BINS ? r : OFF_BINS - 1;
}

static size_t dur_bin(double d)
{
	/* 1 microsecond .. 10^5 s, four bins a decade */
	if (!(d > 1e-6))
		return 0;
	double b = (log10(d) + 6) * 2 + 1;
	return b >= DUR_BINS ? DUR_BINS - 1 : (size_t)b;
}

/* the TRACED_FILES files with the most requests, the smaller id first
 * among equals */
static void pick_traced(struct facts *f, struct files *per)
{
	for (size_t s = 0; s < per->n; s++) {
		const struct file_acc *fa = &per->acc[s];
		size_t pos = f->ntraced;
		while (pos > 0 && (fa->requests > f->traced_count[pos - 1] ||
		                   (fa->requests == f->traced_count[pos - 1] &&
		                    fa->id < f->traced_id[pos - 1])))
			pos--;
		if (pos >= TRACED_FILES)
			continue;
		size_t last = f->ntraced < TRACED_FILES ? f->ntraced : TRACED_FILES - 1;
		for (size_t k = last; k > pos; k--) {
			f->traced_id[k] = f->traced_id[k - 1];
			f->traced_count[k] = f->traced_count[k - 1];
			f->traced_max_off[k] = f->traced_max_off[k - 1];
		}
		f->traced_id[pos] = fa->id;
		f->traced_count[pos] = fa->requests;
		f->traced_max_off[pos] = fa->extent;
		if (f->ntraced < TRACED_FILES)
			f->ntraced++;
	}
	if (f->ntraced && !(f->traced = calloc(TRACED_FILES, sizeof(*f->traced))))
		f->ntraced = 0;
}

/* the DXT_LISTED files of `per` with the most requests, most first (a
 * min-heap of the best while walking, sorted at the end) */
static bool listed_less(const struct dxt_listed *a, const struct dxt_listed *b)
{
	return a->requests < b->requests || (a->requests == b->requests && a->id > b->id);
}

static void listed_sift(struct dxt_listed *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < n && listed_less(&h[l], &h[m]))
			m = l;
		if (l + 1 < n && listed_less(&h[l + 1], &h[m]))
			m = l + 1;
		if (m == i)
			return;
		struct dxt_listed t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static int listed_cmp(const void *a, const void *b)
{
	const struct dxt_listed *x = a, *y = b;
	return listed_less(y, x) ? -1 : listed_less(x, y) ? 1 : 0;
}

static void list_dxt_files(struct facts *f, const struct files *per)
{
	f->dxt_files = calloc(DXT_LISTED, sizeof(*f->dxt_files));
	if (!f->dxt_files)
		return;
	size_t n = 0;
	f->dxt_files_total = 0;
	for (size_t i = 0; i < per->n; i++) {
		struct dxt_listed c = {per->acc[i].id, per->acc[i].requests, per->acc[i].extent};
		if (!(c.requests > 0))
			continue;   /* records without segments */
		f->dxt_files_total++;
		if (n < DXT_LISTED) {
			f->dxt_files[n++] = c;
			for (size_t j = n; n == DXT_LISTED && j-- > 0;)
				listed_sift(f->dxt_files, n, j);
		} else if (listed_less(&f->dxt_files[0], &c)) {
			f->dxt_files[0] = c;
			listed_sift(f->dxt_files, n, 0);
		}
	}
	qsort(f->dxt_files, n, sizeof(*f->dxt_files), listed_cmp);
	f->ndxt_files = n;
}

static int traced_of(const struct facts *f, uint64_t id)
{
	for (size_t k = 0; k < f->ntraced; k++)
		if (f->traced_id[k] == id)
			return (int)k;
	return -1;
}

/* the hosts of the DXT records (all the insights take of DXT) */
static void dxt_hosts(struct facts *f)
{
	struct host_set hosts = {.n = 0};
	for (int id = DFS_MOD_DXT_POSIX; id <= DFS_MOD_DXT_MPIIO; id++) {
		const dfs_summary_module *sm = selected(f->in, id);
		const dfs_module *m = dfs_module_get(id);
		int fhost = m ? dfs_module_field_index(m, "hostname", 8) : -1;
		if (!sm || fhost < 0)
			continue;
		unsigned char scratch[DFS_RECORD_MAX];
		FOR_SELECTED(sm, k, i) {
			const unsigned char *rec = dfs_record_get(sm->records, i, scratch);
			dfs_value v;
			dfs_module_get_value(m, rec, dfs_record_size(sm->records, i), 0, (size_t)fhost,
			                     &v);
			if (v.type == DFS_T_STR)
				host_add(&hosts, v.v.s.ptr, v.v.s.len);
		}
	}
	f->dxt_hosts = hosts.n;
}

static void gather_dxt(struct facts *f)
{
	struct host_set hosts = {.n = 0};
	const dfs_summary_module *a = selected(f->in, DFS_MOD_DXT_POSIX);
	const dfs_summary_module *b = selected(f->in, DFS_MOD_DXT_MPIIO);
	if ((!a || !a->count) && (!b || !b->count))
		return;
	f->dxt_read = calloc(OFF_BINS, sizeof(*f->dxt_read));
	f->dxt_write = calloc(OFF_BINS, sizeof(*f->dxt_write));
	if (!f->dxt_read || !f->dxt_write)
		return;
	/* requests and largest offset per file, for the files shown alone */
	struct files per;
	files_init(&per, f->in->log, f->in->scratch, true);
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			pick_traced(f, &per);
			list_dxt_files(f, &per);
		}
		for (int id = DFS_MOD_DXT_POSIX; id <= DFS_MOD_DXT_MPIIO; id++) {
			const dfs_summary_module *sm = selected(f->in, id);
			if (!sm)
				continue;
			const dfs_module *m = dfs_module_get(id);
			int fhost = dfs_module_field_index(m, "hostname", 8);
			int foff = dfs_module_field_index(m, "offset", 6);
			int flen = dfs_module_field_index(m, "length", 6);
			int fs = dfs_module_field_index(m, "start_time", 10);
			int fe = dfs_module_field_index(m, "end_time", 8);
			unsigned char scratch[DFS_RECORD_MAX];
			FOR_SELECTED(sm, k, i) {
				const unsigned char *rec = dfs_record_get(sm->records, i, scratch);
				size_t len = dfs_record_size(sm->records, i);
				size_t rows = dfs_module_rows(m, rec, len);
				/* the record's own write count (write_count shows the
				 * log's, also in a record cut to its selected segments) */
				int64_t own_writes = 0, own_reads = 0;
				if (len >= 104) {
					memcpy(&own_writes, rec + 88, 8);
					memcpy(&own_reads, rec + 96, 8);
				}
				if (own_writes <= 0 && own_reads <= 0)
					rows = 0;   /* (no segment: its one row is empty) */
				double writes = (double)own_writes;
				if (pass == 0 && fhost >= 0) {
					dfs_value v;
					dfs_module_get_value(m, rec, len, 0, (size_t)fhost, &v);
					if (v.type == DFS_T_STR)
						host_add(&hosts, v.v.s.ptr, v.v.s.len);
				}
				size_t row_bin = rank_bin(f, rec_rank(rec));
				struct file_acc *fa = pass == 0 ? files_get(&per, dfs_facts_rec_id(rec)) : NULL;
				int tf = pass == 1 ? traced_of(f, dfs_facts_rec_id(rec)) : -1;
				/* without HEATMAP records, the heat maps of the traces */
				struct heat_layer *heat = pass == 1 && !f->has_heat && rows
				                          ? heat_alloc(f, id == DFS_MOD_DXT_POSIX ? 0 : 1)
				                          : NULL;
				if (heat)
					heat->records++;
				for (size_t r = 0; r < rows; r++) {
					double off = value(m, rec, len, r, foff);
					double ln = value(m, rec, len, r, flen);
					double s = value(m, rec, len, r, fs);
					double e = value(m, rec, len, r, fe);
					if (pass == 0) {
						if (e > f->dxt_span)
							f->dxt_span = e;
						if (off + ln > f->dxt_max_off)
							f->dxt_max_off = off + ln;
						if (fa) {
							fa->requests += 1;
							if (off + ln > fa->extent)
								fa->extent = off + ln;
						}
						continue;
					}
					if (tf >= 0) {
						size_t fo = (size_t)(off_row(off, f->traced_max_off[tf]) *
						                     FILE_OFF_BINS / OFF_BINS);
						f->traced[tf][fo][time_col(s, f->dxt_span)] += 1;
					}
					bool w = (double)r < writes;
					size_t c = time_col(s, f->dxt_span);
					size_t o = off_row(off, f->dxt_max_off);
					(w ? f->dxt_write : f->dxt_read)[o][c] += 1;
					(w ? f->dur_write : f->dur_read)[dur_bin(e - s)] += 1;
					if (heat) {
						size_t hr = row_bin < RANK_BINS ? row_bin : 0;
						size_t hc = time_col(s, f->tl_end > f->dxt_span ? f->tl_end : f->dxt_span);
						(w ? heat->write : heat->read)[hr][hc] += ln;
						(w ? &heat->bytes_written : &heat->bytes_read)[0] += ln;
						f->heat_from_dxt = true;
					}
				}
				f->has_dxt = true;
			}
		}
	}
	files_free(&per);
	if (f->heat_from_dxt) {
		f->has_heat = true;
		f->heat_span = f->tl_end > f->dxt_span ? f->tl_end : f->dxt_span;
	}
	f->dxt_hosts = hosts.n;
}

static void gather_lustre(struct facts *f, struct file_sums *files)
{
	const dfs_summary_module *sm = selected(f->in, DFS_MOD_LUSTRE);
	if (!sm || sm->count == 0)
		return;
	const dfs_module *m = dfs_module_get(DFS_MOD_LUSTRE);
	int fcount = dfs_module_field_index(m, "LUSTRE_COMP_STRIPE_COUNT", 24);
	int fost = dfs_module_field_index(m, "LUSTRE_COMP_OST_ID", 18);
	unsigned char *seen = calloc(65536 / 8, 1);
	unsigned char scratch[DFS_RECORD_MAX];
	FOR_SELECTED(sm, k, i) {
		const unsigned char *rec = dfs_record_get(sm->records, i, scratch);
		size_t len = dfs_record_size(sm->records, i);
		size_t rows = dfs_module_rows(m, rec, len);
		double stripes = value(m, rec, len, 0, fcount);
		for (size_t r = 0; r < rows && seen; r++) {
			double ost = value(m, rec, len, r, fost);
			if (ost >= 0 && ost < 65536 && !(seen[(size_t)ost / 8] & (1 << ((size_t)ost % 8)))) {
				seen[(size_t)ost / 8] |= (unsigned char)(1 << ((size_t)ost % 8));
				f->osts_used++;
			}
		}
		size_t b = 0;
		while (b < 8 && (double)(1u << b) < stripes)
			b++;
		size_t no = files ? files_number(&files->ix, dfs_facts_rec_id(rec)) : SIZE_MAX;
		bool known = no != SIZE_MAX && file_sums_room(files, no);
		/* each rank has a record of the file's layout: count it once */
		if (known && bit_get(files->striped, no))
			continue;
		if (known)
			bit_set(files->striped, no);
		bool met = known && bit_get(files->seen, no);
		f->lustre_unmet += !met;
		double size = met ? (files->size[no] > 0 ? files->size[no] : files->bytes[no]) : 0;
		f->stripe_files[b]++;
		f->stripe_sized[b] += met;
		f->stripe_bytes[b] += size;
		f->lustre_files++;
		if (stripes <= 1 && met && bit_get(files->shared, no) &&
		    size > f->thr.lustre_large_file) {
			f->single_stripe_large++;
			if (size > f->single_stripe_largest)
				f->single_stripe_largest = size;
			dfs_top_add(&f->single_stripe_top, dfs_facts_rec_id(rec), -1, size);
		}
	}
	dfs_top_sort(&f->single_stripe_top);
	free(seen);
	f->has_lustre = true;
}

static void gather_apmpi(struct facts *f)
{
	const dfs_summary_module *sm = selected(f->in, DFS_MOD_APMPI);
	if (!sm || sm->count == 0)
		return;
	const dfs_module *m = dfs_module_get(DFS_MOD_APMPI);
	int ft = dfs_module_field_index(m, "MPI_TOTAL_COMM_TIME", 19);
	int fn = dfs_module_field_index(m, "MPI_PROCESSOR_NAME", 18);
	struct host_set hosts = {.n = 0};
	unsigned char scratch[DFS_RECORD_MAX];
	FOR_SELECTED(sm, k, i) {
		const unsigned char *rec = dfs_record_get(sm->records, i, scratch);
		size_t len = dfs_record_size(sm->records, i);
		size_t b = rank_bin(f, rec_rank(rec));
		if (b >= RANK_BINS)
			continue;
		double t = value(m, rec, len, 0, ft);
		f->comm_time[b] += t;
		if (t > f->comm_time_max[b])
			f->comm_time_max[b] = t;
		if (fn >= 0) {
			dfs_value v;
			dfs_module_get_value(m, rec, len, 0, (size_t)fn, &v);
			if (v.type == DFS_T_STR)
				host_add(&hosts, v.v.s.ptr, v.v.s.len);
		}
		f->has_apmpi = true;
	}
	f->apmpi_hosts = hosts.n;
}

/* rank r into a table of the TOP_RANKS with the most time (or bytes),
 * the lower rank first among equals */
static void rank_insert(struct top_rank *top, size_t *n, int64_t r, double bytes,
                        double time, bool by_time)
{
	double v = by_time ? time : bytes;
	if (!(v > 0) || (*n == TOP_RANKS &&
	                 v <= (by_time ? top[TOP_RANKS - 1].time : top[TOP_RANKS - 1].bytes)))
		return;
	size_t pos = *n < TOP_RANKS ? *n : TOP_RANKS - 1;
	while (pos > 0 && v > (by_time ? top[pos - 1].time : top[pos - 1].bytes))
		pos--;
	size_t last = *n < TOP_RANKS ? *n : TOP_RANKS - 1;
	memmove(&top[pos + 1], &top[pos], (last - pos) * sizeof(*top));
	top[pos] = (struct top_rank){r, bytes, time};
	if (*n < TOP_RANKS)
		(*n)++;
}

/* ---- the whole ---------------------------------------------------------------- */

struct io_facts *dfs_facts_io(struct facts *f, int id)
{
	for (size_t i = 0; i < f->nio; i++)
		if (f->io[i].id == id)
			return &f->io[i];
	return NULL;
}

struct facts *dfs_facts_new(const dfs_summary_input *in, bool page)
{
	struct facts *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->in = in;
	f->job = dfs_log_job(in->log);
	f->nprocs = f->job->nprocs > 0 ? f->job->nprocs : 1;
	f->run_time = f->job->run_time;
	if (in->thresholds)
		f->thr = *in->thresholds;
	else
		dfs_insight_thresholds_default(&f->thr);
	f->rank_bins = f->nprocs < RANK_BINS ? (size_t)f->nprocs : RANK_BINS;
	f->heat_cols = TIME_BINS;
	f->rank_step = (double)f->nprocs / (double)f->rank_bins;
	for (size_t b = 0; b <= RANK_BINS; b++) {
		f->tl_open[b] = f->tl_rs[b] = f->tl_ws[b] = INFINITY;
		f->tl_close[b] = f->tl_re[b] = f->tl_we[b] = 0;
	}
	struct scratch_ranks sr;
	memset(&sr, 0, sizeof(sr));
	if (f->nprocs <= (1 << 22)) {
		sr.n = (size_t)f->nprocs;
		sr.read = calloc(sr.n, sizeof(double));
		sr.write = calloc(sr.n, sizeof(double));
		sr.meta = calloc(sr.n, sizeof(double));
		sr.bytes = calloc(sr.n, sizeof(double));
		sr.time = calloc(sr.n, sizeof(double));
		if (!sr.read || !sr.write || !sr.meta || !sr.bytes || !sr.time) {
			free(sr.read);
			free(sr.write);
			free(sr.meta);
			free(sr.bytes);
			free(sr.time);
			memset(&sr, 0, sizeof(sr));
		}
	}
	size_t most = 0;
	for (size_t k = 0; k < sizeof(io_ids) / sizeof(*io_ids); k++)
		if (selected(in, io_ids[k]))
			most += in->mod[io_ids[k]].count;
	/* what the names give: kept by the caller between renders, or
	 * worked out for this one */
	dfs_summary_names *nn = in->names && in->names->log == in->log ? in->names : NULL;
	dfs_summary_names *own = nn || !most || !page ? NULL : dfs_summary_names_new(in->log);
	struct file_sums sums, *files = NULL;
	if (most && (!page || nn || (nn = own))) {
		file_sums_init(&sums, f, page ? nn : NULL);
		files = &sums;
	}
	struct common *cm = malloc(sizeof(*cm));
	size_t nio = 0;
	for (size_t k = 0; k < sizeof(io_ids) / sizeof(*io_ids); k++)
		nio += selected(in, io_ids[k]) && dfs_module_get(io_ids[k]) &&
		       dfs_module_get(io_ids[k])->record_size;
	f->evidence = nio ? calloc(nio, sizeof(*f->evidence)) : NULL;
	for (size_t k = 0; k < sizeof(io_ids) / sizeof(*io_ids) && cm && f->evidence; k++) {
		if (!selected(in, io_ids[k]) || !dfs_module_get(io_ids[k]) ||
		    !dfs_module_get(io_ids[k])->record_size)
			continue;
		struct io_facts *io = &f->io[f->nio];
		io->ev = &f->evidence[f->nio++];
		io->id = io_ids[k];
		io->m = dfs_module_get(io_ids[k]);
		gather_io(f, io, files, &sr, cm);
	}
	free(cm);
	/* per rank bins of POSIX+STDIO, of the ranks' own records; for the
	 * worst rank's share, each rank also takes an even part of the
	 * shared records' time */
	double spread = f->shared_rank_time / (double)f->nprocs;
	f->total_rank_time = f->shared_rank_time;
	for (size_t r = 0; r < sr.n; r++) {
		size_t b = rank_bin(f, (int64_t)r);
		f->rank_bytes[b] += sr.bytes[r];
		f->rank_time[b] += sr.time[r];
		if (sr.bytes[r] > f->rank_bytes_max[b])
			f->rank_bytes_max[b] = sr.bytes[r];
		if (sr.time[r] > f->rank_time_max[b])
			f->rank_time_max[b] = sr.time[r];
		f->total_rank_time += sr.time[r];
		dfs_top_add(&f->rank_top, 0, (int64_t)r, sr.time[r] + spread);
		if (sr.time[r] > f->worst_rank_time) {
			f->worst_rank_time = sr.time[r];
			f->worst_rank = (int64_t)r;
		}
		f->ranks_seen += sr.time[r] > 0 || sr.bytes[r] > 0;
		rank_insert(f->rank_by_time, &f->nrank_by_time, (int64_t)r, sr.bytes[r],
		            sr.time[r], true);
		rank_insert(f->rank_by_bytes, &f->nrank_by_bytes, (int64_t)r, sr.bytes[r],
		            sr.time[r], false);
	}
	dfs_top_sort(&f->rank_top);
	free(sr.read);
	free(sr.write);
	free(sr.meta);
	free(sr.bytes);
	free(sr.time);
	if (files)
		file_sums_finish(f, files);
	if (page) {
		gather_heatmap(f);
		gather_dxt(f);
	} else {
		dxt_hosts(f);
	}
	gather_lustre(f, files);
	gather_apmpi(f);
	if (files)
		file_sums_free(files);
	dfs_summary_names_free(own);
	return f;
}

void dfs_facts_free(struct facts *f)
{
	if (!f)
		return;
	for (int l = 0; l < HEAT_LAYERS; l++) {
		free(f->heat[l].read);
		free(f->heat[l].write);
	}
	free(f->dxt_read);
	free(f->dxt_write);
	free(f->traced);
	free(f->dxt_files);
	free(f->findings);
	free(f->evidence);
	free(f);
}
