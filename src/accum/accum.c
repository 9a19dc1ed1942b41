/* accum.c - the accumulator: injection of packed records and emission of
 * the derived metrics and the summation record, with darshan-util's rules
 * (format doc §6 record metrics, §8 accumulator state, injection and
 * emission).  The per-counter aggregation rules live in aggregate.c.
 *
 * State: the summation record (unpacked), total bytes, the shared-file
 * time, per-rank times and a per-file table keyed by record id.  Files
 * and ranks are open-addressing hash tables over arrays of entries kept in
 * first-seen order, so injection is one pass over the records and the
 * emission walks files in the order upstream's hash table walks them.
 * Every floating-point sum is accumulated in record order, so results are
 * bit-identical to upstream's.
 *
 * Policies where darshan-util has no usable behaviour:
 *
 * - A record whose rank is >= the job's nprocs makes darshan-util abort on
 *   an assertion (real logs contain such records).  Here its bytes and its
 *   file count in the file categories like any per-rank record, but its
 *   I/O time is attributed to no rank: it cannot be the slowest rank, and
 *   no per-rank array is ever indexed out of range.  Each such record adds
 *   a warning (dfs_accum_warning_count / dfs_accum_warning); the first
 *   MAX_WARNINGS messages are kept, all are counted.  Negative ranks are
 *   shared records, as upstream.
 *
 * - The combined accumulator (dfs_accum_create_combined, the log-level
 *   POSIX+STDIO view) matches files by record id across modules, so a file
 *   seen by several modules counts once; per-rank times add up across
 *   modules.  A file's nprocs is -1 if any injected record of it has a
 *   negative rank, else the number of DISTINCT ranks that touched it.
 *   (Within one module this is upstream's rule, except for upstream's
 *   quirk that a shared record followed by per-rank records gives 0; the
 *   single-module accumulators keep upstream's exact rule, quirk
 *   included.)  It builds no summation record: emit it with summary NULL.
 *
 * - Zero injected records give what darshan's C accumulator gives: every
 *   metric 0 and an all-zero summation record (id and rank included).
 *
 * - Nothing here aborts on data: sums wrap instead of overflowing, and no
 *   allocation is sized by a counter value or by job_nprocs (per-rank
 *   times are kept per rank seen, not in arrays of job_nprocs entries).
 *   The file table is sized from each injection's record count (at most
 *   one new file per record), so memory stays proportional to the input. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accum/accum_int.h"
#include "accum/aggregate.h"
#include "darshanfs/accum.h"
#include "util/scratch.h"
#include "module/pack.h"

#define MAX_WARNINGS 16
#define PREFETCH_AHEAD 16 /* records between a slot prefetch and its use */
#define WARNING_LEN 160

const char *const dfs_file_category_names[DFS_FILE_CATEGORIES] = {
	"DARSHAN_ALL_FILES",
	"DARSHAN_RO_FILES",
	"DARSHAN_WO_FILES",
	"DARSHAN_RW_FILES",
	"DARSHAN_UNIQ_FILES",
	"DARSHAN_SHARED_FILES",
	"DARSHAN_PART_SHARED_FILES",
};

/* ---- a map from 64-bit keys to entry indices ------------------------------ */

/* Open addressing with linear probing.  A slot holds the key and entry
 * index + 1 side by side (one cache line per probe); index 0 marks an
 * empty slot.  The load factor stays at or below 3/4. */
typedef struct id_slot {
	uint64_t key;
	uint32_t index1;
} id_slot;

typedef struct id_map {
	id_slot *slots;
	size_t cap; /* 0 or a power of two */
	size_t used;
} id_map;

static size_t map_hash(uint64_t key, size_t mask)
{
	/* the finaliser of splitmix64: record ids are already hashes, but
	 * ranks and pair keys are small consecutive integers */
	key ^= key >> 30;
	key *= 0xbf58476d1ce4e5b9ULL;
	key ^= key >> 27;
	key *= 0x94d049bb133111ebULL;
	key ^= key >> 31;
	return (size_t)key & mask;
}

static id_slot *map_probe(const id_map *m, uint64_t key)
{
	size_t mask = m->cap - 1;
	size_t i = map_hash(key, mask);
	while (m->slots[i].index1 && m->slots[i].key != key)
		i = (i + 1) & mask;
	return &m->slots[i];
}

/* The slot where probing for `key` starts (the map must have slots). */
static const id_slot *map_home(const id_map *m, uint64_t key)
{
	return m->slots + map_hash(key, m->cap - 1);
}

/* Make room for `n` keys in total without further growth. */
static int map_reserve(dfs_scratch *pool, id_map *m, size_t n)
{
	if (n * 4 <= m->cap * 3)
		return 0;
	size_t cap = m->cap ? m->cap : 64;
	while (n * 4 > cap * 3)
		cap *= 2;
	/* written at once rather than calloc'd: a zero page first read by a
	 * probe and then written costs a second fault per page */
	id_map g = {dfs_scratch_alloc(pool, cap * sizeof(id_slot)), cap, m->used};
	if (!g.slots)
		return -1;
	memset(g.slots, 0, cap * sizeof(id_slot));
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].index1)
			*map_probe(&g, m->slots[i].key) = m->slots[i];
	dfs_scratch_free(pool, m->slots);
	*m = g;
	return 0;
}

/* The index stored for `key`, or `next` (stored now) if the key is new.
 * Returns -1 when memory runs out; *created tells which case happened. */
static int map_find_or_add(dfs_scratch *pool, id_map *m, uint64_t key, uint32_t next,
                           uint32_t *index, bool *created)
{
	if (map_reserve(pool, m, m->used + 1))
		return -1;
	id_slot *s = map_probe(m, key);
	*created = s->index1 == 0;
	if (*created) {
		s->key = key;
		s->index1 = next + 1;
		m->used++;
	}
	*index = s->index1 - 1;
	return 0;
}

static void map_free(dfs_scratch *pool, id_map *m)
{
	dfs_scratch_free(pool, m->slots);
	memset(m, 0, sizeof(*m));
}

/* Grow an entry array to hold `n` entries (amortised doubling). */
static int array_reserve(dfs_scratch *pool, void **items, size_t *cap, size_t n, size_t size)
{
	if (n <= *cap)
		return 0;
	size_t ncap = *cap ? *cap : 64;
	while (ncap < n)
		ncap *= 2;
	void *p = dfs_scratch_realloc(pool, *items, *cap * size, ncap * size);
	if (!p)
		return -1;
	*items = p;
	*cap = ncap;
	return 0;
}

/* ---- accumulator state ------------------------------------------------------ */

/* per-file entry (§8.1), found through file_map by record id; for the
 * combined accumulator nprocs counts the distinct ranks, or is -1 once a
 * shared record was seen */
typedef struct file_entry {
	int64_t r_bytes, w_bytes, max_offset, nprocs;
} file_entry;

/* what a file alone gives (tracking files): the shared records' time,
 * its distinct ranks, and once emitted its slowest rank */
typedef struct file_extra {
	uint64_t id;
	double shared;
	double best;                   /* the slowest rank's time (0: none) */
	int64_t best_rank;
	int64_t nranks;
	bool has_shared, has_best;
	/* a pair kept with the file (its rank index and time): its first,
	 * or grouped by rank the one being summed (the others weighed) */
	bool has_cur;
	uint32_t cur_rank;
	double cur_io;
} file_extra;

/* the I/O time of one rank in one file (tracking files) */
typedef struct pair_entry {
	uint32_t file, rank;           /* indices into files and ranks */
	double io_total;
} pair_entry;

/* per-rank times; ranks >= job_nprocs get an entry (the combined
 * accumulator counts distinct ranks through it) but never any time */
typedef struct rank_entry {
	int64_t rank;
	double io_total, rw_only, md_only;
	bool done;                     /* grouped by rank: its records are over */
} rank_entry;

struct dfs_accum {
	const dfs_module *module;      /* NULL for the combined accumulator */
	dfs_scratch *pool;             /* where the tables' blocks come from */
	dfs_agg_plan plan;             /* the module's rules, as runs */
	int64_t job_nprocs;
	size_t n_records;

	/* the summation record is written by its own thread during big
	 * injections: keep it off the cache lines of the other fields */
	_Alignas(64) dfs_agg_record agg;
	_Alignas(64) int64_t total_bytes;
	double shared_io_total_time;

	file_entry *files;
	size_t n_files, files_cap;
	id_map file_map;

	rank_entry *ranks;
	size_t n_ranks, ranks_cap;
	id_map rank_map;
	int64_t last_rank;             /* records come grouped by rank: the */
	uint32_t last_rank_index;      /* entry of the previous one, if any */
	bool have_last_rank;

	id_map pair_map;               /* combined, or tracking files: */
	size_t n_pairs;                /* (file, rank) pairs seen */

	/* per-file results (dfs_accum_track_files): each file's own shared
	 * time and ranks, and each (file, rank) pair's I/O time */
	bool track_files, files_emitted;
	/* the records come grouped by rank (dfs_accum_track_files_grouped):
	 * a file's pairs are summed one after the other, without pair_map;
	 * the rank index of the last record of a rank >= 0 */
	bool grouped, have_group;
	uint32_t group;
	file_extra *fx;
	size_t fx_cap;
	pair_entry *pairs;
	size_t pairs_cap;
	uint32_t *rec_file;            /* the file of each record injected */
	size_t rec_file_cap;

	size_t n_warnings;
	char warnings[MAX_WARNINGS][WARNING_LEN];
};

/* The record metrics of §6. */
typedef struct record_metrics {
	int64_t r_bytes, w_bytes, max_offset, nprocs;
	double io_total_time, md_only_time, rw_only_time;
} record_metrics;

static dfs_accum *accum_new(int64_t job_nprocs, dfs_error *err)
{
	if (job_nprocs < 1) {
		dfs_error_set(err, DFS_ERR_INVAL,
		              "accumulator: job nprocs %" PRId64 " is not positive",
		              job_nprocs);
		return NULL;
	}
	/* (sizeof is a multiple of the 64-byte alignment of its members) */
	dfs_accum *a = aligned_alloc(_Alignof(dfs_accum), sizeof(*a));
	if (a)
		memset(a, 0, sizeof(*a));
	if (!a) {
		dfs_error_set(err, DFS_ERR_NOMEM, "accumulator: out of memory");
		return NULL;
	}
	a->job_nprocs = job_nprocs;
	return a;
}

dfs_accum *dfs_accum_create(const dfs_module *m, int64_t job_nprocs,
                            dfs_error *err)
{
	const dfs_agg_table *t = m && m->accumulator ? dfs_agg_table_for(m->id) : NULL;
	if (!t || t->n_int != m->n_int || t->n_float != m->n_float ||
	    m->record_size == 0) {
		dfs_error_set(err, DFS_ERR_UNSUPPORTED,
		              "accumulator: module %s cannot be accumulated",
		              m ? m->name : "(none)");
		return NULL;
	}
	dfs_accum *a = accum_new(job_nprocs, err);
	if (a) {
		a->module = m;
		dfs_agg_plan_build(t, &a->plan);
	}
	return a;
}

dfs_accum *dfs_accum_create_combined(int64_t job_nprocs, dfs_error *err)
{
	return accum_new(job_nprocs, err);
}

void dfs_accum_use_scratch(dfs_accum *a, struct dfs_scratch *pool)
{
	/* (before any record: the tables are still empty) */
	if (a && a->n_records == 0 && !a->files && !a->ranks)
		a->pool = pool;
}

void dfs_accum_free(dfs_accum *a)
{
	if (!a)
		return;
	dfs_scratch_free(a->pool, a->files);
	dfs_scratch_free(a->pool, a->ranks);
	map_free(a->pool, &a->file_map);
	map_free(a->pool, &a->rank_map);
	map_free(a->pool, &a->pair_map);
	dfs_scratch_free(a->pool, a->fx);
	dfs_scratch_free(a->pool, a->pairs);
	dfs_scratch_free(a->pool, a->rec_file);
	free(a);
}

int dfs_accum_time_words(const dfs_module *m, int *slowest, int *meta, int *read,
                         int *write)
{
	const dfs_agg_table *t = m && m->accumulator ? dfs_agg_table_for(m->id) : NULL;
	if (!t || t->n_int != m->n_int || t->n_float != m->n_float || m->record_size == 0 ||
	    m->float_offset % 8 || t->f_slowest_rank_time < 0 || t->f_meta_time < 0 ||
	    t->f_read_time < 0 || t->f_write_time < 0)
		return -1;
	int base = (int)(m->float_offset / 8);
	*slowest = base + t->f_slowest_rank_time;
	*meta = base + t->f_meta_time;
	*read = base + t->f_read_time;
	*write = base + t->f_write_time;
	return 0;
}

int dfs_accum_track_files(dfs_accum *a)
{
	if (!a || !a->module || a->n_records)
		return -1;
	a->track_files = true;
	return 0;
}

int dfs_accum_track_files_grouped(dfs_accum *a)
{
	if (dfs_accum_track_files(a))
		return -1;
	a->grouped = true;
	return 0;
}

bool dfs_accum_ranks_grouped(const dfs_records *recs, const size_t *index, size_t count)
{
	/* a rank seen again after another one: not grouped (the ranks
	 * left behind are kept in a small open-addressing set) */
	size_t cap = 64, used = 0;
	uint64_t *set = calloc(cap, sizeof(uint64_t));
	bool *full = calloc(cap, sizeof(bool));
	bool grouped = set && full, have = false;
	int64_t last = 0;
	for (size_t k = 0; k < count && grouped; k++) {
		int64_t rank = (int64_t)dfs_record_word(recs, index ? index[k] : k, 1);
		if (rank < 0 || (have && rank == last))
			continue;
		size_t mask = cap - 1, i = map_hash((uint64_t)rank, mask);
		while (full[i] && set[i] != (uint64_t)rank)
			i = (i + 1) & mask;
		if (full[i]) {
			grouped = false;
			break;
		}
		if (have) {
			/* the last rank is over: into the set */
			if ((used + 1) * 4 > cap * 3) {
				size_t ncap = cap * 2;
				uint64_t *ns = calloc(ncap, sizeof(uint64_t));
				bool *nf = calloc(ncap, sizeof(bool));
				if (!ns || !nf) {
					free(ns);
					free(nf);
					grouped = false;
					break;
				}
				for (size_t j = 0; j < cap; j++) {
					if (!full[j])
						continue;
					size_t t = map_hash(set[j], ncap - 1);
					while (nf[t])
						t = (t + 1) & (ncap - 1);
					ns[t] = set[j];
					nf[t] = true;
				}
				free(set);
				free(full);
				set = ns;
				full = nf;
				cap = ncap;
			}
			size_t j = map_hash((uint64_t)last, cap - 1);
			while (full[j])
				j = (j + 1) & (cap - 1);
			set[j] = (uint64_t)last;
			full[j] = true;
			used++;
		}
		have = true;
		last = rank;
	}
	free(set);
	free(full);
	return grouped;
}

size_t dfs_accum_warning_count(const dfs_accum *a)
{
	return a ? a->n_warnings : 0;
}

const char *dfs_accum_warning(const dfs_accum *a, size_t i)
{
	if (!a || i >= a->n_warnings || i >= MAX_WARNINGS)
		return NULL;
	return a->warnings[i];
}

/* ---- injection ------------------------------------------------------------- */

static void view_record(const dfs_module *m, const unsigned char *rec,
                        dfs_agg_input *out)
{
	memcpy(&out->id, rec, 8);
	memcpy(&out->rank, rec + 8, 8);
	out->ints = rec + m->int_offset;
	out->floats = rec + m->float_offset;
}

static void compute_metrics(const dfs_agg_table *t, const dfs_agg_input *r,
                            record_metrics *out)
{
	out->r_bytes = dfs_agg_in_i(r, t->bytes_read);
	out->w_bytes = dfs_agg_in_i(r, t->bytes_written);
	if (t->max_byte_read < 0) {
		out->max_offset = -1;
	} else {
		int64_t rd = dfs_agg_in_i(r, t->max_byte_read),
		        wr = dfs_agg_in_i(r, t->max_byte_written);
		out->max_offset = rd > wr ? rd : wr;
	}
	if (r->rank < 0) {
		out->nprocs = -1;
		out->io_total_time = dfs_agg_in_f(r, t->f_slowest_rank_time);
		out->md_only_time = 0.0;
		out->rw_only_time = 0.0;
	} else {
		double meta = dfs_agg_in_f(r, t->f_meta_time),
		       rd = dfs_agg_in_f(r, t->f_read_time),
		       wr = dfs_agg_in_f(r, t->f_write_time);
		out->nprocs = 1;
		out->io_total_time = meta + rd + wr;
		out->md_only_time = meta;
		out->rw_only_time = rd + wr;
	}
}

static void add_warning(dfs_accum *a, const dfs_module *m,
                        const dfs_agg_input *r)
{
	if (a->n_warnings < MAX_WARNINGS)
		snprintf(a->warnings[a->n_warnings], WARNING_LEN,
		         "%s record %zu (id %" PRIu64 ") has rank %" PRId64
		         " outside 0..%" PRId64 ": its I/O time is left out of the"
		         " slowest-rank metrics",
		         m->name, a->n_records, r->id, r->rank, a->job_nprocs - 1);
	a->n_warnings++;
}

static int find_file(dfs_accum *a, uint64_t id, uint32_t *index)
{
	bool created;
	if (array_reserve(a->pool, (void **)&a->files, &a->files_cap, a->n_files + 1,
	                  sizeof(file_entry)) ||
	    map_find_or_add(a->pool, &a->file_map, id, (uint32_t)a->n_files, index, &created))
		return -1;
	if (created && a->track_files) {
		if (array_reserve(a->pool, (void **)&a->fx, &a->fx_cap, a->n_files + 1,
		                  sizeof(file_extra)))
			return -1;
		a->fx[a->n_files] = (file_extra){.id = id};
	}
	if (created)
		a->files[a->n_files++] = (file_entry){0, 0, 0, 0};
	return 0;
}

/* tracking files: the record's time in its file alone (§8.2 as if the
 * file's records were all the accumulator was given) */
/* A pair's time weighed for its file's slowest rank (§8.3 step 4's rule:
 * the largest, the lowest rank of equals). */
static void weigh_pair(file_extra *x, int64_t rank, double io_total)
{
	if (io_total > x->best || (x->has_best && io_total == x->best && rank < x->best_rank)) {
		x->best = io_total;
		x->best_rank = rank;
		x->has_best = true;
	}
}

static int track_file(dfs_accum *a, uint32_t fi, uint32_t ri, int64_t rank,
                      double io_total)
{
	file_extra *x = &a->fx[fi];
	if (rank < 0) {
		x->shared += io_total;
		x->has_shared = true;
		return 0;
	}
	if (a->grouped) {
		/* a rank met again after another: the promise is broken */
		if (!a->have_group || a->group != ri) {
			if (a->ranks[ri].done)
				return -2;
			if (a->have_group)
				a->ranks[a->group].done = true;
			a->have_group = true;
			a->group = ri;
		}
		if (!x->has_cur || x->cur_rank != ri) {
			if (x->has_cur)
				weigh_pair(x, a->ranks[x->cur_rank].rank, x->cur_io);
			x->has_cur = true;
			x->cur_rank = ri;
			x->cur_io = 0.0;
			x->nranks++;
		}
		if (rank < a->job_nprocs)
			x->cur_io += io_total;
		return 0;
	}
	/* a file's first pair is kept with it (most files have one rank),
	 * the others in pair_map */
	if (!x->has_cur || x->cur_rank == ri) {
		if (!x->has_cur) {
			x->has_cur = true;
			x->cur_rank = ri;
			x->cur_io = 0.0;
			x->nranks++;
		}
		if (rank < a->job_nprocs)
			x->cur_io += io_total;
		return 0;
	}
	uint32_t pi;
	bool created;
	uint64_t key = ((uint64_t)fi << 32) | ri;
	if (array_reserve(a->pool, (void **)&a->pairs, &a->pairs_cap, a->n_pairs + 1,
	                  sizeof(pair_entry)) ||
	    map_find_or_add(a->pool, &a->pair_map, key, (uint32_t)a->n_pairs, &pi, &created))
		return -1;
	if (created) {
		a->pairs[a->n_pairs++] = (pair_entry){fi, ri, 0.0};
		x->nranks++;
	}
	if (rank < a->job_nprocs)
		a->pairs[pi].io_total += io_total;
	return 0;
}

static int find_rank(dfs_accum *a, int64_t rank, uint32_t *index)
{
	if (a->have_last_rank && a->last_rank == rank) {
		*index = a->last_rank_index;
		return 0;
	}
	bool created;
	if (array_reserve(a->pool, (void **)&a->ranks, &a->ranks_cap, a->n_ranks + 1,
	                  sizeof(rank_entry)) ||
	    map_find_or_add(a->pool, &a->rank_map, (uint64_t)rank, (uint32_t)a->n_ranks,
	                    index, &created))
		return -1;
	if (created)
		a->ranks[a->n_ranks++] = (rank_entry){.rank = rank};
	a->have_last_rank = true;
	a->last_rank = rank;
	a->last_rank_index = *index;
	return 0;
}

/* a file's nprocs in the combined accumulator: distinct ranks, or -1 */
static int count_rank_combined(dfs_accum *a, file_entry *fe, uint32_t file,
                               uint32_t rank)
{
	if (fe->nprocs < 0)
		return 0;
	uint32_t unused;
	bool created;
	uint64_t key = ((uint64_t)file << 32) | rank;
	if (map_find_or_add(a->pool, &a->pair_map, key, (uint32_t)a->n_pairs, &unused,
	                    &created))
		return -1;
	if (created) {
		a->n_pairs++;
		fe->nprocs++;
	}
	return 0;
}

/* §8.2 for one record */
static int inject_one(dfs_accum *a, const dfs_module *m,
                      const dfs_agg_table *t, const dfs_agg_input *r)
{
	bool combined = a->module == NULL;
	record_metrics rm;
	compute_metrics(t, r, &rm);
	a->total_bytes = dfs_agg_add(a->total_bytes, dfs_agg_add(rm.r_bytes, rm.w_bytes));

	uint32_t ri = 0;
	if (r->rank < 0) {
		a->shared_io_total_time += rm.io_total_time;
	} else {
		if (find_rank(a, r->rank, &ri))
			return -1;
		if (r->rank < a->job_nprocs) {
			rank_entry *re = &a->ranks[ri];
			re->io_total += rm.io_total_time;
			re->rw_only += rm.rw_only_time;
			re->md_only += rm.md_only_time;
		} else {
			add_warning(a, m, r);
		}
	}

	uint32_t fi;
	if (find_file(a, r->id, &fi))
		return -1;
	file_entry *fe = &a->files[fi];
	fe->r_bytes = dfs_agg_add(fe->r_bytes, rm.r_bytes);
	fe->w_bytes = dfs_agg_add(fe->w_bytes, rm.w_bytes);
	if (rm.max_offset == -1)
		fe->max_offset = -1;
	else if (rm.max_offset > fe->max_offset)
		fe->max_offset = rm.max_offset;
	if (combined) {
		if (rm.nprocs < 0)
			fe->nprocs = -1;
		else if (count_rank_combined(a, fe, fi, ri))
			return -1;
	} else {
		fe->nprocs = rm.nprocs == -1 ? -1 : dfs_agg_add(fe->nprocs, rm.nprocs);
		int tracked = a->track_files ? track_file(a, fi, ri, r->rank, rm.io_total_time) : 0;
		if (tracked)
			return tracked;
	}
	if (a->track_files) {
		if (array_reserve(a->pool, (void **)&a->rec_file, &a->rec_file_cap,
		                  a->n_records + 1, sizeof(uint32_t)))
			return -1;
		a->rec_file[a->n_records] = fi;
	}
	a->n_records++;
	return 0;
}

int dfs_accum_reserve(dfs_accum *a, size_t count)
{
	if (!a || count == 0 || count >= UINT32_MAX - a->n_records)
		return 0;
	if (array_reserve(a->pool, (void **)&a->files, &a->files_cap, a->n_files + count,
	                  sizeof(file_entry)) ||
	    map_reserve(a->pool, &a->file_map, a->file_map.used + count) ||
	    (!a->module && map_reserve(a->pool, &a->pair_map, a->pair_map.used + count)) ||
	    (a->track_files &&
	     (array_reserve(a->pool, (void **)&a->fx, &a->fx_cap, a->n_files + count,
	                    sizeof(file_extra)) ||
	      array_reserve(a->pool, (void **)&a->rec_file, &a->rec_file_cap,
	                    a->n_records + count, sizeof(uint32_t)))))
		return -1;
	return 0;
}

/* The summation record takes every counter of every record, the rest of
 * the accumulator a few: with many records the two run side by side on
 * two threads, each reading the records in order on its own.  (Results
 * do not depend on it: each part sees the records in the same order.) */
#define SPLIT_MIN 16384
#define MERGE_AHEAD 4

struct gather {
	const dfs_module *m;
	const unsigned char *base;     /* raw records back to back, or */
	const dfs_records *recs;       /* a record set (packed or raw) */
	const size_t *index;           /* NULL: records in order */
	size_t count;
};

static inline size_t gather_pos(const struct gather *g, size_t i)
{
	return g->index ? g->index[i] : i;
}

/* Record i of the gather; packed records are unpacked into `scratch`. */
static inline const unsigned char *gather_at(const struct gather *g, size_t i,
                                             unsigned char *scratch)
{
	if (g->recs)
		return dfs_record_get(g->recs, gather_pos(g, i), scratch);
	return g->base + gather_pos(g, i) * g->m->record_size;
}

/* Where record i lies (for prefetching), NULL when it is packed. */
static inline const unsigned char *gather_place(const struct gather *g, size_t i)
{
	if (g->recs)
		return g->recs->packed ? g->recs->data + (size_t)g->recs->pk_off[gather_pos(g, i)] * 8
		                       : dfs_record(g->recs, gather_pos(g, i));
	return g->base + gather_pos(g, i) * g->m->record_size;
}

struct merge_job {
	dfs_accum *a;
	const struct gather *g;
	bool first;                    /* no record merged before */
};

static void *merge_records(void *arg)
{
	struct merge_job *j = arg;
	dfs_agg_input r;
	size_t size = j->g->m->record_size;
	_Alignas(8) unsigned char scratch[DFS_RECORD_MAX];
	for (size_t i = 0; i < j->g->count; i++) {
		/* every byte of the record is read: fetch whole records ahead */
		if (i + MERGE_AHEAD < j->g->count) {
			const unsigned char *p = gather_place(j->g, i + MERGE_AHEAD);
			size_t reach = size;
			if (j->g->recs && j->g->recs->packed) {
				size_t at = gather_pos(j->g, i + MERGE_AHEAD);
				reach = ((size_t)j->g->recs->pk_off[at + 1] -
				         j->g->recs->pk_off[at]) * 8;
			}
			for (size_t k = 0; k < reach; k += 64)
				__builtin_prefetch(p + k);
		}
		view_record(j->g->m, gather_at(j->g, i, scratch), &r);
		dfs_agg_merge(&j->a->plan, &j->a->agg, &r, j->first && i == 0);
	}
	return NULL;
}

static int inject_rest(dfs_accum *a, const dfs_agg_table *t,
                       const struct gather *g)
{
	/* With one random slot per record of a large file table, overlapping
	 * those cache misses is what keeps injection fast: ask for the slot of
	 * a record a little ahead.  (The prefetch must stay in this loop: gcc
	 * drops it from a helper function it finds free of side effects.) */
	dfs_agg_input r;
	_Alignas(8) unsigned char scratch[DFS_RECORD_MAX];
	memset(scratch, 0, sizeof(scratch));
	bool packed = g->recs && g->recs->packed;
	/* packed records: only the words inject_one reads are unpacked */
	uint16_t words[12];
	size_t nwords = 0;
	if (packed) {
		const int ints[] = {t->bytes_read, t->bytes_written, t->max_byte_read,
		                    t->max_byte_written};
		const int floats[] = {t->f_slowest_rank_time, t->f_meta_time,
		                      t->f_read_time, t->f_write_time};
		words[nwords++] = 0;
		words[nwords++] = 1;
		for (size_t k = 0; k < 4; k++) {
			if (ints[k] >= 0)
				words[nwords++] = (uint16_t)(g->m->int_offset / 8 + (size_t)ints[k]);
			if (floats[k] >= 0)
				words[nwords++] = (uint16_t)(g->m->float_offset / 8 + (size_t)floats[k]);
		}
	}
	for (size_t i = 0; i < g->count; i++) {
		/* packed: the record id is read from the record itself, which
		 * is fetched first, twice as far ahead */
		if (packed && i + 2 * PREFETCH_AHEAD < g->count) {
			size_t at = gather_pos(g, i + 2 * PREFETCH_AHEAD);
			const unsigned char *p = gather_place(g, i + 2 * PREFETCH_AHEAD);
			size_t reach = ((size_t)g->recs->pk_off[at + 1] - g->recs->pk_off[at]) * 8;
			for (size_t k = 0; k < reach; k += 64)
				__builtin_prefetch(p + k);
		}
		if (i + PREFETCH_AHEAD < g->count) {
			uint64_t id = packed ? dfs_record_word(g->recs, gather_pos(g, i + PREFETCH_AHEAD), 0)
			                     : dfs_record_id(gather_place(g, i + PREFETCH_AHEAD));
			__builtin_prefetch(map_home(&a->file_map, id));
		}
		if (packed) {
			dfs_record_unpack_words(g->recs, gather_pos(g, i), words, nwords, scratch);
			view_record(g->m, scratch, &r);
		} else {
			view_record(g->m, gather_at(g, i, scratch), &r);
		}
		int ret = inject_one(a, g->m, t, &r);
		if (ret)
			return ret;
	}
	return 0;
}

static int inject_gather(dfs_accum *a, const struct gather *g, dfs_error *err)
{
	const dfs_module *m = g->m;
	if (!a)
		return dfs_error_set(err, DFS_ERR_INVAL, "accumulator: none given");
	if (g->count == 0)
		return 0;
	const dfs_agg_table *t = m && m->accumulator ? dfs_agg_table_for(m->id) : NULL;
	if (!t || t->n_int != m->n_int || t->n_float != m->n_float ||
	    m->record_size == 0)
		return dfs_error_set(err, DFS_ERR_UNSUPPORTED,
		                     "accumulator: module %s cannot be accumulated",
		                     m ? m->name : "(none)");
	if (a->module && a->module != m)
		return dfs_error_set(err, DFS_ERR_INVAL,
		                     "accumulator: %s records given to the %s accumulator",
		                     m->name, a->module->name);
	if (!g->base && !g->recs)
		return dfs_error_set(err, DFS_ERR_INVAL, "accumulator: no records");
	if (g->recs && (g->recs->module != m || g->recs->offsets))
		return dfs_error_set(err, DFS_ERR_INVAL,
		                     "accumulator: records of another module");
	/* entry indices are 32-bit (two per pair key) */
	if (g->count >= UINT32_MAX - a->n_records)
		return dfs_error_set(err, DFS_ERR_TOOBIG,
		                     "accumulator: too many records (%zu)", g->count);

	/* at most one new file (and, combined, one new pair) per record: size
	 * the tables once, in proportion to the input, instead of rehashing */
	if (dfs_accum_reserve(a, g->count))
		return dfs_error_set(err, DFS_ERR_NOMEM, "accumulator: out of memory");

	struct merge_job mj = {a, g, a->n_records == 0};
	/* (an accumulator tracking files makes no summation record) */
	bool merge = a->module != NULL && !a->track_files, threaded = false;
	pthread_t tid;
	if (merge && g->count >= SPLIT_MIN && sysconf(_SC_NPROCESSORS_ONLN) > 1)
		threaded = pthread_create(&tid, NULL, merge_records, &mj) == 0;
	int ret = inject_rest(a, t, g);
	if (threaded)
		pthread_join(tid, NULL);
	else if (merge)
		merge_records(&mj);
	if (ret == -2)
		return dfs_error_set(err, DFS_ERR_INVAL, "accumulator: the records are not "
		                     "grouped by rank (a rank came again after another)");
	if (ret)
		return dfs_error_set(err, DFS_ERR_NOMEM, "accumulator: out of memory");
	return 0;
}

int dfs_accum_inject(dfs_accum *a, const dfs_module *m, const void *records,
                     size_t count, dfs_error *err)
{
	struct gather g = {m, records, NULL, NULL, count};
	return inject_gather(a, &g, err);
}

int dfs_accum_inject_records(dfs_accum *a, const dfs_records *recs,
                             const size_t *index, size_t count, dfs_error *err)
{
	if (!recs)
		return dfs_error_set(err, DFS_ERR_INVAL, "accumulator: no records");
	struct gather g = {recs->module, NULL, recs, index, index ? count : recs->count};
	return inject_gather(a, &g, err);
}

/* ---- emission ------------------------------------------------------------- */

/* §8.3 step 2: add file F to category K */
static void add_to_category(dfs_category_counters *k, const file_entry *f,
                            int64_t job_nprocs)
{
	k->count++;
	k->total_read_volume_bytes = dfs_agg_add(k->total_read_volume_bytes, f->r_bytes);
	k->total_write_volume_bytes = dfs_agg_add(k->total_write_volume_bytes, f->w_bytes);
	if (f->r_bytes > k->max_read_volume_bytes)
		k->max_read_volume_bytes = f->r_bytes;
	if (f->w_bytes > k->max_write_volume_bytes)
		k->max_write_volume_bytes = f->w_bytes;
	if (f->max_offset == -1) {
		k->total_max_offset_bytes = -1;
		k->max_offset_bytes = -1;
	} else {
		k->total_max_offset_bytes =
			dfs_agg_add(k->total_max_offset_bytes, f->max_offset);
		if (f->max_offset > k->max_offset_bytes)
			k->max_offset_bytes = f->max_offset;
	}
	if (f->nprocs > 0 && k->nprocs > -1)
		k->nprocs = dfs_agg_add(k->nprocs, f->nprocs);
	if (f->nprocs < 0 || k->nprocs >= job_nprocs)
		k->nprocs = -1;
}

static void categorize(const dfs_accum *a, dfs_derived_metrics *dm)
{
	dfs_category_counters *cc = dm->category_counters;
	for (size_t i = 0; i < a->n_files; i++) {
		const file_entry *f = &a->files[i];
		add_to_category(&cc[DFS_ALL_FILES], f, a->job_nprocs);
		if (f->r_bytes > 0 && f->w_bytes == 0)
			add_to_category(&cc[DFS_RO_FILES], f, a->job_nprocs);
		else if (f->w_bytes > 0 && f->r_bytes == 0)
			add_to_category(&cc[DFS_WO_FILES], f, a->job_nprocs);
		else if (f->r_bytes > 0 && f->w_bytes > 0)
			add_to_category(&cc[DFS_RW_FILES], f, a->job_nprocs);
		if (f->nprocs == 1)
			add_to_category(&cc[DFS_UNIQ_FILES], f, a->job_nprocs);
		else if (f->nprocs == -1)
			add_to_category(&cc[DFS_SHARED_FILES], f, a->job_nprocs);
		else
			add_to_category(&cc[DFS_PART_SHARED_FILES], f, a->job_nprocs);
	}
}

/* §8.3 step 4: upstream scans ranks 0..nprocs-1 and keeps the first
 * strictly larger time, i.e. the lowest rank among those with the largest
 * positive time.  Ranks without records have time 0 and never win. */
static void slowest_rank(const dfs_accum *a, dfs_derived_metrics *dm)
{
	double best = 0.0;
	int64_t best_rank = 0;
	const rank_entry *win = NULL;
	for (size_t i = 0; i < a->n_ranks; i++) {
		const rank_entry *re = &a->ranks[i];
		if (re->io_total > best ||
		    (win && re->io_total == best && re->rank < best_rank)) {
			best = re->io_total;
			best_rank = re->rank;
			win = re;
		}
	}
	if (!win)
		return;
	dm->unique_io_total_time_by_slowest = win->io_total;
	dm->unique_rw_only_time_by_slowest = win->rw_only;
	dm->unique_md_only_time_by_slowest = win->md_only;
	dm->unique_io_slowest_rank = (int)win->rank;
}

static void pack_summary(const dfs_accum *a, void *summary)
{
	const dfs_module *m = a->module;
	unsigned char *out = summary;
	memset(out, 0, m->record_size);
	memcpy(out, &a->agg.id, 8);
	memcpy(out + 8, &a->agg.rank, 8);
	memcpy(out + m->int_offset, a->agg.i, 8 * m->n_int);
	memcpy(out + m->float_offset, a->agg.f, 8 * m->n_float);
}

int dfs_accum_emit(dfs_accum *a, dfs_derived_metrics *dm, void *summary,
                   dfs_error *err)
{
	if (!a || !dm)
		return dfs_error_set(err, DFS_ERR_INVAL, "accumulator: nothing to emit to");
	if (summary && (!a->module || a->track_files))
		return dfs_error_set(err, DFS_ERR_INVAL,
		                     "accumulator: a combined accumulator, or one "
		                     "tracking files, has no summation record");
	memset(dm, 0, sizeof(*dm));
	categorize(a, dm);
	dm->total_bytes = a->total_bytes;
	dm->shared_io_total_time_by_slowest = a->shared_io_total_time;
	slowest_rank(a, dm);
	dm->agg_time_by_slowest = dm->unique_io_total_time_by_slowest +
	                          dm->shared_io_total_time_by_slowest;
	if (dm->agg_time_by_slowest != 0)
		dm->agg_perf_by_slowest = ((double)dm->total_bytes / 1048576.0) /
		                          dm->agg_time_by_slowest;
	if (summary)
		pack_summary(a, summary);
	if (a->track_files && !a->files_emitted) {
		/* each file's slowest rank, by §8.3 step 4's rule over its
		 * own pairs */
		for (size_t p = 0; p < a->n_pairs; p++) {
			const pair_entry *pe = &a->pairs[p];
			weigh_pair(&a->fx[pe->file], a->ranks[pe->rank].rank, pe->io_total);
		}
		/* (the rule's result does not depend on the order pairs are
		 * weighed in) each file's pair kept with it */
		for (size_t f = 0; f < a->n_files; f++)
			if (a->fx[f].has_cur)
				weigh_pair(&a->fx[f], a->ranks[a->fx[f].cur_rank].rank, a->fx[f].cur_io);
		a->files_emitted = true;
	}
	return 0;
}

const uint32_t *dfs_accum_record_files(const dfs_accum *a)
{
	return a && a->track_files ? a->rec_file : NULL;
}

size_t dfs_accum_file_count(const dfs_accum *a)
{
	return a ? a->n_files : 0;
}

int dfs_accum_file_metrics(const dfs_accum *a, size_t i, dfs_file_metrics *out)
{
	if (!a || !a->track_files || !a->files_emitted || i >= a->n_files)
		return -1;
	const file_entry *f = &a->files[i];
	const file_extra *x = &a->fx[i];
	memset(out, 0, sizeof(*out));
	out->id = x->id;
	out->bytes_read = f->r_bytes;
	out->bytes_written = f->w_bytes;
	out->total_bytes = dfs_agg_add(f->r_bytes, f->w_bytes);
	out->ranks = x->has_shared ? a->job_nprocs : x->nranks;
	out->slowest_rank = x->has_best ? x->best_rank : 0;
	out->time_by_slowest = (x->has_best ? x->best : 0.0) + x->shared;
	if (out->time_by_slowest != 0)
		out->perf_by_slowest = ((double)out->total_bytes / 1048576.0) /
		                       out->time_by_slowest;
	return 0;
}
