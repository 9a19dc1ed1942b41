/* files_ranks.c - files.csv and ranks.csv of a module's selection, and the
 * per-log and merged rows of a directory's files.csv (files_ranks.h).
 *
 * Both tables are one pass over the selected records, reading only the
 * counters their columns need (a packed record gives each word without
 * being unpacked): records are grouped by record id (files) or by rank
 * (ranks) through an open-addressing map, in the order first seen.  A
 * file's time_by_slowest and perf_by_slowest come from the accumulator
 * run over the same records with dfs_accum_track_files, whose files are
 * in that same order.  Every floating-point sum is taken in record order.
 *
 * The counters behind each column, per module (docs/tables.md): bytes
 * and operations as PyDarshan's file_stats counts them (MPI-IO and
 * PnetCDF variables: independent + collective operations; DAOS: object
 * fetches/updates, array reads/writes and key-value gets/puts), times
 * from the module's F_READ_TIME, F_WRITE_TIME and F_META_TIME, first
 * open and last close from F_OPEN_START_TIMESTAMP and
 * F_CLOSE_END_TIMESTAMP with darshan's own rules (the smallest positive
 * start, the largest end). */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "accum/accum_int.h"
#include "darshanfs/accum.h"
#include "csv/csv.h"
#include "util/format.h"
#include "darshanfs/hash.h"
#include "summary/files_ranks.h"
#include "log/hints.h"
#include "util/scratch.h"
#include "util/workers.h"
#include "module/pack.h"

/* ---- the counters behind the columns ------------------------------------- */

enum role {
	R_BYTES_READ, R_BYTES_WRITTEN,
	R_READS, R_READS_2, R_READS_3,
	R_WRITES, R_WRITES_2, R_WRITES_3,
	R_READ_TIME, R_WRITE_TIME, R_META_TIME,
	R_OPEN, R_CLOSE,
	R_ROLES
};

static const struct module_roles {
	int module;
	const char *name[R_ROLES];   /* NULL: the module has no such counter */
} module_roles[] = {
	{DFS_MOD_POSIX, {"POSIX_BYTES_READ", "POSIX_BYTES_WRITTEN",
	                 "POSIX_READS", NULL, NULL, "POSIX_WRITES", NULL, NULL,
	                 "POSIX_F_READ_TIME", "POSIX_F_WRITE_TIME", "POSIX_F_META_TIME",
	                 "POSIX_F_OPEN_START_TIMESTAMP", "POSIX_F_CLOSE_END_TIMESTAMP"}},
	{DFS_MOD_MPIIO, {"MPIIO_BYTES_READ", "MPIIO_BYTES_WRITTEN",
	                 "MPIIO_INDEP_READS", "MPIIO_COLL_READS", NULL,
	                 "MPIIO_INDEP_WRITES", "MPIIO_COLL_WRITES", NULL,
	                 "MPIIO_F_READ_TIME", "MPIIO_F_WRITE_TIME", "MPIIO_F_META_TIME",
	                 "MPIIO_F_OPEN_START_TIMESTAMP", "MPIIO_F_CLOSE_END_TIMESTAMP"}},
	{DFS_MOD_STDIO, {"STDIO_BYTES_READ", "STDIO_BYTES_WRITTEN",
	                 "STDIO_READS", NULL, NULL, "STDIO_WRITES", NULL, NULL,
	                 "STDIO_F_READ_TIME", "STDIO_F_WRITE_TIME", "STDIO_F_META_TIME",
	                 "STDIO_F_OPEN_START_TIMESTAMP", "STDIO_F_CLOSE_END_TIMESTAMP"}},
	{DFS_MOD_H5F, {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	               NULL, NULL, "H5F_F_META_TIME",
	               "H5F_F_OPEN_START_TIMESTAMP", "H5F_F_CLOSE_END_TIMESTAMP"}},
	{DFS_MOD_H5D, {"H5D_BYTES_READ", "H5D_BYTES_WRITTEN",
	               "H5D_READS", NULL, NULL, "H5D_WRITES", NULL, NULL,
	               "H5D_F_READ_TIME", "H5D_F_WRITE_TIME", "H5D_F_META_TIME",
	               "H5D_F_OPEN_START_TIMESTAMP", "H5D_F_CLOSE_END_TIMESTAMP"}},
	{DFS_MOD_PNETCDF_FILE, {"PNETCDF_FILE_BYTES_READ", "PNETCDF_FILE_BYTES_WRITTEN",
	                        NULL, NULL, NULL, NULL, NULL, NULL,
	                        NULL, NULL, "PNETCDF_FILE_F_META_TIME",
	                        "PNETCDF_FILE_F_OPEN_START_TIMESTAMP",
	                        "PNETCDF_FILE_F_CLOSE_END_TIMESTAMP"}},
	{DFS_MOD_PNETCDF_VAR, {"PNETCDF_VAR_BYTES_READ", "PNETCDF_VAR_BYTES_WRITTEN",
	                       "PNETCDF_VAR_INDEP_READS", "PNETCDF_VAR_COLL_READS", NULL,
	                       "PNETCDF_VAR_INDEP_WRITES", "PNETCDF_VAR_COLL_WRITES", NULL,
	                       "PNETCDF_VAR_F_READ_TIME", "PNETCDF_VAR_F_WRITE_TIME",
	                       "PNETCDF_VAR_F_META_TIME",
	                       "PNETCDF_VAR_F_OPEN_START_TIMESTAMP",
	                       "PNETCDF_VAR_F_CLOSE_END_TIMESTAMP"}},
	{DFS_MOD_DFS, {"DFS_BYTES_READ", "DFS_BYTES_WRITTEN",
	               "DFS_READS", NULL, NULL, "DFS_WRITES", NULL, NULL,
	               "DFS_F_READ_TIME", "DFS_F_WRITE_TIME", "DFS_F_META_TIME",
	               "DFS_F_OPEN_START_TIMESTAMP", "DFS_F_CLOSE_END_TIMESTAMP"}},
	{DFS_MOD_DAOS, {"DAOS_BYTES_READ", "DAOS_BYTES_WRITTEN",
	                "DAOS_OBJ_FETCHES", "DAOS_ARRAY_READS", "DAOS_KV_GETS",
	                "DAOS_OBJ_UPDATES", "DAOS_ARRAY_WRITES", "DAOS_KV_PUTS",
	                "DAOS_F_READ_TIME", "DAOS_F_WRITE_TIME", "DAOS_F_META_TIME",
	                "DAOS_F_OPEN_START_TIMESTAMP", "DAOS_F_CLOSE_END_TIMESTAMP"}},
};

#define N_ROLES_TABLE (sizeof(module_roles) / sizeof(module_roles[0]))

/* The word (8-byte index in the record) of each role, -1 for none. */
struct words {
	int w[R_ROLES];
};

static const struct module_roles *roles_of(const dfs_module *m)
{
	for (size_t i = 0; m && i < N_ROLES_TABLE; i++)
		if (module_roles[i].module == m->id)
			return &module_roles[i];
	return NULL;
}

bool dfs_tables_module(const dfs_module *m)
{
	return roles_of(m) != NULL && m->record_size > 0;
}

static bool words_of(const dfs_module *m, struct words *w)
{
	const struct module_roles *ro = roles_of(m);
	if (!ro || m->record_size == 0)
		return false;
	for (int k = 0; k < R_ROLES; k++) {
		w->w[k] = -1;
		if (!ro->name[k])
			continue;
		int f = dfs_module_field_index(m, ro->name[k], strlen(ro->name[k]));
		if (f < 0 || m->fields[f].offset % 8 != 0)
			return false;
		w->w[k] = (int)(m->fields[f].offset / 8);
	}
	return true;
}

static inline int64_t word_i(const dfs_records *r, size_t i, int w)
{
	return w < 0 ? 0 : (int64_t)dfs_record_word(r, i, (size_t)w);
}

static inline double word_f(const dfs_records *r, size_t i, int w)
{
	if (w < 0)
		return 0.0;
	uint64_t u = dfs_record_word(r, i, (size_t)w);
	double d;
	memcpy(&d, &u, 8);
	return d;
}

/* wrapping sums: counters may hold anything */
static inline int64_t add_i(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

/* What one record adds to a row. */
struct rec_numbers {
	int64_t bytes_read, bytes_written, reads, writes;
	double read_time, write_time, meta_time, open, close;
};

static void rec_numbers(const dfs_records *r, size_t i, const struct words *w,
                        struct rec_numbers *n)
{
	n->bytes_read = word_i(r, i, w->w[R_BYTES_READ]);
	n->bytes_written = word_i(r, i, w->w[R_BYTES_WRITTEN]);
	n->reads = add_i(add_i(word_i(r, i, w->w[R_READS]), word_i(r, i, w->w[R_READS_2])),
	                 word_i(r, i, w->w[R_READS_3]));
	n->writes = add_i(add_i(word_i(r, i, w->w[R_WRITES]), word_i(r, i, w->w[R_WRITES_2])),
	                  word_i(r, i, w->w[R_WRITES_3]));
	n->read_time = word_f(r, i, w->w[R_READ_TIME]);
	n->write_time = word_f(r, i, w->w[R_WRITE_TIME]);
	n->meta_time = word_f(r, i, w->w[R_META_TIME]);
	n->open = word_f(r, i, w->w[R_OPEN]);
	n->close = word_f(r, i, w->w[R_CLOSE]);
}

/* The same from a record laid out whole (raw, or the words of w unpacked
 * into a scratch record). */
static inline int64_t word_at_i(const unsigned char *rec, int w)
{
	int64_t v = 0;
	if (w >= 0)
		memcpy(&v, rec + 8 * (size_t)w, 8);
	return v;
}

static inline double word_at_f(const unsigned char *rec, int w)
{
	double v = 0.0;
	if (w >= 0)
		memcpy(&v, rec + 8 * (size_t)w, 8);
	return v;
}

static void rec_numbers_at(const unsigned char *rec, const struct words *w,
                           struct rec_numbers *n)
{
	n->bytes_read = word_at_i(rec, w->w[R_BYTES_READ]);
	n->bytes_written = word_at_i(rec, w->w[R_BYTES_WRITTEN]);
	n->reads = add_i(add_i(word_at_i(rec, w->w[R_READS]), word_at_i(rec, w->w[R_READS_2])),
	                 word_at_i(rec, w->w[R_READS_3]));
	n->writes = add_i(add_i(word_at_i(rec, w->w[R_WRITES]), word_at_i(rec, w->w[R_WRITES_2])),
	                  word_at_i(rec, w->w[R_WRITES_3]));
	n->read_time = word_at_f(rec, w->w[R_READ_TIME]);
	n->write_time = word_at_f(rec, w->w[R_WRITE_TIME]);
	n->meta_time = word_at_f(rec, w->w[R_META_TIME]);
	n->open = word_at_f(rec, w->w[R_OPEN]);
	n->close = word_at_f(rec, w->w[R_CLOSE]);
}

struct pair_time;
/* room for more pairs (-1 without memory) */
static int grow_pairs(struct pair_time **pt, size_t *cap);

/* ---- a map from 64-bit keys (with a second word) to row numbers ----------- */

struct slot {
	uint64_t key;
	uint64_t key2;
	uint32_t row1;    /* row + 1; 0: empty */
};

struct map {
	struct slot *slots;
	size_t cap;       /* a power of two */
	size_t used;
	dfs_scratch *pool;   /* where the slots come from (NULL: malloc) */
};

static inline size_t mix(uint64_t key, uint64_t key2)
{
	key ^= key2 * 0x9e3779b97f4a7c15ULL;
	key ^= key >> 30;
	key *= 0xbf58476d1ce4e5b9ULL;
	key ^= key >> 27;
	key *= 0x94d049bb133111ebULL;
	key ^= key >> 31;
	return (size_t)key;
}

/* (the pool's blocks are warm: written at once, not calloc'd; fresh
 * ones are zero already) */
static int map_init(struct map *m, size_t n, dfs_scratch *pool)
{
	size_t cap = 64;
	while (cap * 3 < n * 4)
		cap *= 2;
	m->pool = pool;
	bool zero;
	m->slots = dfs_scratch_alloc_fresh(pool, cap * sizeof(struct slot), &zero);
	if (m->slots) {
		dfs_scratch_prefault(m->slots, 0, cap * sizeof(struct slot));
		if (!zero)
			memset(m->slots, 0, cap * sizeof(struct slot));
	}
	m->cap = cap;
	m->used = 0;
	return m->slots ? 0 : -1;
}

static void map_free(struct map *m)
{
	dfs_scratch_free(m->pool, m->slots);
	m->slots = NULL;
}

static int map_grow(struct map *m)
{
	struct map g;
	if (map_init(&g, m->cap * 2, m->pool))
		return -1;
	for (size_t i = 0; i < m->cap; i++) {
		struct slot *s = &m->slots[i];
		if (!s->row1)
			continue;
		size_t j = mix(s->key, s->key2) & (g.cap - 1);
		while (g.slots[j].row1)
			j = (j + 1) & (g.cap - 1);
		g.slots[j] = *s;
	}
	g.used = m->used;
	map_free(m);
	*m = g;
	return 0;
}

/* The row of (key, key2), or `next` stored for it when new (*created);
 * -1 out of memory. */
static int map_get(struct map *m, uint64_t key, uint64_t key2, uint32_t next,
                   uint32_t *row, bool *created)
{
	if ((m->used + 1) * 4 > m->cap * 3 && map_grow(m))
		return -1;
	size_t j = mix(key, key2) & (m->cap - 1);
	while (m->slots[j].row1 && (m->slots[j].key != key || m->slots[j].key2 != key2))
		j = (j + 1) & (m->cap - 1);
	struct slot *s = &m->slots[j];
	*created = s->row1 == 0;
	if (*created) {
		s->key = key;
		s->key2 = key2;
		s->row1 = next + 1;
		m->used++;
	}
	*row = s->row1 - 1;
	return 0;
}

static inline void map_prefetch(const struct map *m, uint64_t key, uint64_t key2)
{
	__builtin_prefetch(&m->slots[mix(key, key2) & (m->cap - 1)]);
}

/* ---- a stable order, by a 64-bit key, largest first ----------------------- */

/* A digit's counts made the places where each digit's items start;
 * false when one digit has all n (the pass would move nothing). */
static bool digit_offsets(uint32_t *count, size_t buckets, size_t n)
{
	size_t at = 0;
	for (size_t b = 0; b < buckets; b++) {
		uint32_t c = count[b];
		if (c == n)
			return false;
		count[b] = (uint32_t)at;
		at += c;
	}
	return true;
}

/* The permutation `order` (n entries) sorted by key[] descending, ties in
 * their order: least significant digit first, a byte at a time, passes
 * on bytes where every key agrees skipped. */
static int sort_desc(const uint64_t *key, uint32_t *order, size_t n)
{
	uint32_t *tmp = malloc((n ? n : 1) * sizeof(uint32_t));
	if (!tmp)
		return -1;
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	for (int byte = 0; byte < 8; byte++) {
		uint32_t count[256] = {0};   /* (n < 2^32: dfs_file_table_build) */
		int shift = 8 * byte;
		for (size_t i = 0; i < n; i++)
			count[255 - ((key[i] >> shift) & 0xff)]++;
		if (!digit_offsets(count, 256, n))
			continue;
		for (size_t i = 0; i < n; i++) {
			uint32_t o = order[i];
			tmp[count[255 - ((key[o] >> shift) & 0xff)]++] = o;
		}
		memcpy(order, tmp, n * sizeof(uint32_t));
	}
	free(tmp);
	return 0;
}

/* A row with its sort key and its text's length (the table keeps them
 * in that order). */
struct sort_item {
	uint64_t key;
	uint32_t j;          /* the row's place in rows */
	uint32_t len;        /* as dfs_file_table.len */
};

#define DIGIT_BITS_MAX 11   /* 2,048 counts of a digit: in the L1 cache */
#define DIGITS_MAX ((64 + DIGIT_BITS_MAX - 1) / DIGIT_BITS_MAX)

/* The digits of an LSD radix sort on the bits where keys differ (`vary`,
 * not 0): as few digits of up to DIGIT_BITS_MAX bits as cover them. */
struct digits {
	int n, lo, width;    /* digit d: bits lo + width * d on */
	uint64_t mask;
};

static struct digits digits_of(uint64_t vary)
{
	struct digits dg;
	dg.lo = __builtin_ctzll(vary);
	int bits = 64 - __builtin_clzll(vary) - dg.lo;
	dg.n = (bits + DIGIT_BITS_MAX - 1) / DIGIT_BITS_MAX;
	dg.width = (bits + dg.n - 1) / dg.n;
	dg.mask = ((uint64_t)1 << dg.width) - 1;
	return dg;
}

/* The n items sorted by key, largest first, ties in their order, as
 * sort_desc, moving the items themselves: every pass reads and writes
 * them in turn (sort_desc reads each key at its row's place: in no
 * order).  Only the bits where keys differ (`vary`: the OR of every
 * key's bits that differ from the first key's) are sorted on, in digits
 * of up to DIGIT_BITS_MAX bits: byte sizes of a table lie in some 40
 * bits, four passes of 10 bits instead of five of 8; the counts of
 * every digit are taken in one pass first.  Returns the array holding
 * the result (items or tmp, both of n items). */
static struct sort_item *sort_items_desc(struct sort_item *items, struct sort_item *tmp,
                                         size_t n, uint64_t vary)
{
	if (n < 2 || vary == 0)
		return items;
	struct digits dg = digits_of(vary);
	uint64_t mask = dg.mask;
	uint32_t counts[DIGITS_MAX][(size_t)1 << DIGIT_BITS_MAX];
	memset(counts, 0, (size_t)dg.n * sizeof(counts[0]));
	/* (largest first: the digits of the key's complement, in rising order) */
	for (size_t i = 0; i < n; i++) {
		uint64_t k = ~items[i].key >> dg.lo;
		for (int d = 0; d < dg.n; d++)
			counts[d][(k >> (dg.width * d)) & mask]++;
	}
	for (int d = 0; d < dg.n; d++) {
		uint32_t *count = counts[d];
		int shift = dg.lo + dg.width * d;
		if (!digit_offsets(count, (size_t)1 << dg.width, n))
			continue;
		for (size_t i = 0; i < n; i++)
			tmp[count[(~items[i].key >> shift) & mask]++] = items[i];
		struct sort_item *x = items;
		items = tmp;
		tmp = x;
	}
	return items;
}

/* `bytes` of the pool (a block kept warm when it has one), its pages
 * faulted in at once: the arrays below are written whole, and a fault
 * every 4 KiB costs more than the work on them */
static void *warm_alloc(dfs_scratch *pool, size_t bytes)
{
	void *p = dfs_scratch_alloc(pool, bytes ? bytes : 1);
	dfs_scratch_prefault(p, 0, bytes);
	return p;
}

/* an int64 as an unsigned key of the same order */
static inline uint64_t order_key(int64_t v)
{
	return (uint64_t)v ^ 0x8000000000000000ULL;
}

/* ---- files.csv ------------------------------------------------------------ */

static void add_numbers(dfs_file_row *row, const struct rec_numbers *n)
{
	row->records++;
	row->bytes_read = add_i(row->bytes_read, n->bytes_read);
	row->bytes_written = add_i(row->bytes_written, n->bytes_written);
	row->reads = add_i(row->reads, n->reads);
	row->writes = add_i(row->writes, n->writes);
	row->read_time += n->read_time;
	row->write_time += n->write_time;
	row->meta_time += n->meta_time;
	if (n->open > 0 && (row->first_open == 0 || n->open < row->first_open))
		row->first_open = n->open;
	if (n->close > row->last_close)
		row->last_close = n->close;
}

#define AHEAD 16   /* records between a slot's prefetch and its use */
#define FAULT_ROWS 32768   /* rows faulted in at a time */

/* A thread faulting in the rows ahead of the pass that fills them (a
 * fresh page costs more than the pass's work on the rows it holds; on
 * the other core it costs the pass nothing), a stretch at a time until
 * the pass is over. */
struct rows_fault {
	void *rows;
	size_t bytes;
	atomic_bool over;
	pthread_t tid;
	bool running;
};

static void *rows_fault_run(void *arg)
{
	struct rows_fault *rf = arg;
	size_t step = FAULT_ROWS * sizeof(dfs_file_row);
	for (size_t at = 0; at < rf->bytes && !atomic_load(&rf->over); at += step)
		dfs_scratch_prefault(rf->rows, at, rf->bytes - at < step ? rf->bytes - at : step);
	return NULL;
}

static void rows_fault_start(struct rows_fault *rf, void *rows, size_t bytes)
{
	rf->rows = rows;
	rf->bytes = bytes;
	atomic_init(&rf->over, false);
	/* (small tables are faulted in by the pass alone) */
	rf->running = bytes >= 4 * FAULT_ROWS * sizeof(dfs_file_row) &&
	              pthread_create(&rf->tid, NULL, rows_fault_run, rf) == 0;
}

static void rows_fault_end(struct rows_fault *rf)
{
	atomic_store(&rf->over, true);
	if (rf->running)
		pthread_join(rf->tid, NULL);
	rf->running = false;
}

/* What the accumulator would say of one file fed only its records
 * (dfs_accum_track_files, §8.2-8.3 of the format document), worked out
 * as the records come: the time of its shared records, of each (file,
 * rank) pair (its first kept in the row; the records of the others
 * listed as they come, and grouped by pair at the end), and the time of
 * the slowest pair.  Only that time is a column, not the rank it
 * belongs to: §8.3 step 4 (the largest, the lowest rank of equals) comes
 * down to the largest time above 0, whatever order the pairs are weighed
 * in.
 *
 * While the records come, a row keeps this in the columns worked out at
 * the end (no second array to write beside the rows): */
#define SHARED(row) ((row)->time_by_slowest)   /* the shared records' time */
#define CUR_IO(row) ((row)->perf_by_slowest)   /* its first pair's, then the slowest */
#define CUR_RANK(row) ((row)->total_bytes)     /* the rank of its first pair */
#define NRANKS(row) ((row)->ranks)             /* pairs | HAS_SHARED */
#define HAS_SHARED ((int64_t)1 << 62)

/* The first pair's time where it is above 0, else 0 (the rule's start) */
static inline double first_io(const dfs_file_row *row)
{
	return CUR_IO(row) > 0.0 ? CUR_IO(row) : 0.0;
}

/* (its first pair's time made the start as it comes: the same for every
 * pair after, >= 0 from the first) */
static inline void weigh_pair(dfs_file_row *row, double io_total)
{
	double cur = first_io(row);
	CUR_IO(row) = io_total > cur ? io_total : cur;
}

/* A record of a pair other than its file's first: its row, rank and
 * time (0 for a rank outside the job) */
struct pair_time {
	uint32_t row;
	int64_t rank;
	double io;
};

/* The n records of pairs grouped by pair (row and rank), each pair's in
 * their order (the sums of its time are taken in record order): a
 * stable LSD radix sort on the bits where ranks differ, then where rows
 * do.  Returns the array holding the result (pt or tmp, both of n). */
static struct pair_time *group_pairs(struct pair_time *pt, struct pair_time *tmp, size_t n)
{
	if (n < 2)
		return pt;
	uint64_t vary[2] = {0, 0};
	for (size_t i = 0; i < n; i++) {
		vary[0] |= (uint64_t)(pt[i].rank ^ pt[0].rank);
		vary[1] |= pt[i].row ^ pt[0].row;
	}
	uint32_t count[(size_t)1 << DIGIT_BITS_MAX];
	for (int field = 0; field < 2; field++) {
		if (!vary[field])
			continue;
		struct digits dg = digits_of(vary[field]);
		for (int d = 0; d < dg.n; d++) {
			int shift = dg.lo + dg.width * d;
			size_t buckets = (size_t)1 << dg.width;
			memset(count, 0, buckets * sizeof(count[0]));
			for (size_t i = 0; i < n; i++) {
				uint64_t k = field ? pt[i].row : (uint64_t)pt[i].rank;
				count[(k >> shift) & dg.mask]++;
			}
			if (!digit_offsets(count, buckets, n))
				continue;
			for (size_t i = 0; i < n; i++) {
				uint64_t k = field ? pt[i].row : (uint64_t)pt[i].rank;
				tmp[count[(k >> shift) & dg.mask]++] = pt[i];
			}
			struct pair_time *x = pt;
			pt = tmp;
			tmp = x;
		}
	}
	return pt;
}

static int grow_pairs(struct pair_time **pt, size_t *cap)
{
	size_t c = *cap ? *cap * 2 : 1024;
	struct pair_time *g = realloc(*pt, c * sizeof(*g));
	if (!g)
		return -1;
	*pt = g;
	*cap = c;
	return 0;
}

/* The words one record gives a timed table: the columns' and the
 * accumulator's times. */
enum { W_SLOWEST = R_ROLES, W_META, W_READ, W_WRITE, W_ALL };

/* A table of few records is grouped on one thread, in record order.  One
 * of many records is grouped on two (group_chunks), sharing the work out
 * as it goes rather than in halves fixed beforehand: a thread on a slower
 * core, or one whose fresh pages cost more to fault in (on a virtual
 * machine, pages the host has not backed yet), takes less of it.  The
 * name table is cut into CHUNKS shares of places (the ids without a name
 * go to a share by their hash), so a file's records all lie in one share
 * and are summed in record order by whichever thread takes it. */
#ifndef PARALLEL_RECORDS   /* (a build for tests may lower it) */
#define PARALLEL_RECORDS 65536
#endif

/* A row's length (dfs_file_table.len) with a bit that tells its name
 * is quoted */
#define LEN_QUOTED 0x80000000u
/* and, in a table made for its text, which of its double columns keep
 * their digits (column c: bit LEN_KEPT + c; the columns in the order of
 * the text, time_by_slowest first); the length below */
#define LEN_KEPT 24
#define LEN_MAX 0x00ffffffu

/* ",mount_pt,fs_type" of a row as put_field writes them: the rows of a
 * table lie on a few mounts, whose text is made once each (and copied
 * whole, its length known) instead of scanned for quotes at every row. */
#define MOUNT_TEXTS 8
#define MOUNT_TEXT_MAX 96
struct mount_text {
	const char *mount, *fs;      /* what it is the text of (NULL: none yet) */
	size_t mount_len, fs_len;
	uint32_t len;
	char text[MOUNT_TEXT_MAX];
};
/* The same text by the mount's index in the log (-1: none), for rows
 * whose name was found when the table was made: made once a rendering,
 * without a row's place looked up (NULL when too long, or the index past
 * the table: the row's place then). */
#define MOUNTS_BY_INDEX 32
struct mounts_by_index {
	uint8_t made[MOUNTS_BY_INDEX + 1];   /* 0 not yet, 1 made, 2 too long */
	struct mount_text e[MOUNTS_BY_INDEX + 1];
};

static const struct mount_text *mount_by_index(const dfs_file_table *t, int32_t mount,
                                               struct mounts_by_index *mi);
/* A row's double columns, in the order of the text */
#define DOUBLE_COLUMNS 7
static inline void double_columns(dfs_file_row *row, double *col[DOUBLE_COLUMNS])
{
	col[0] = &row->time_by_slowest;
	col[1] = &row->perf_by_slowest;
	col[2] = &row->read_time;
	col[3] = &row->write_time;
	col[4] = &row->meta_time;
	col[5] = &row->first_open;
	col[6] = &row->last_close;
}

static uint32_t row_len(const dfs_file_table *t, dfs_file_row *row,
                        dfs_name_hint *hint, struct mount_text *mts,
                        struct mounts_by_index *mi);

/* What a pass making rows reads, the same for every thread */
struct timed_in {
	const dfs_log *log;
	const dfs_records *r;
	const size_t *index;
	size_t count;
	const struct words *w;
	const int *wi;
	const uint16_t *words;
	size_t nw;
	int64_t nprocs;
	const dfs_name *names;
	size_t nnames;
	uint32_t *at;          /* at a name's place: 1 + its row's place, 0 none */
	dfs_file_row *rows;
	bool rows_zero;        /* rows fresh from the system: all zero */
	dfs_scratch *pool;
	bool text_only;        /* the table's (dfs_file_table_build_text) */
};

#define NO_PLACE UINT32_MAX   /* a record whose id has no name */

/* The rows one thread makes: from the front of the array (side 0) or
 * from its end (side 1), so the two never meet (together at most one row
 * per record). */
struct rows_side {
	const struct timed_in *in;
	int side;
	size_t n;              /* its rows */
	size_t faulted;        /* its rows [0, faulted) are faulted in */
	struct map files;      /* its ids without a name: their rows' places */
	struct pair_time *pt, *pt_tmp;   /* the records of pairs not first */
	size_t npt, pt_cap, tmp_cap;
	dfs_name_hint find;    /* its records' name lookups */
	dfs_name_hint hint;    /* the lengths' name lookups */
	struct mount_text mts[MOUNT_TEXTS];
	struct mounts_by_index mi;
	uint64_t key0, vary;   /* its first sort key; bits where keys differ */
	bool have_key;
};

static int side_init(struct rows_side *s, const struct timed_in *in, int side)
{
	memset(s, 0, sizeof(*s));
	s->in = in;
	s->side = side;
	s->find = (dfs_name_hint)DFS_NAME_HINT_INIT;
	s->hint = (dfs_name_hint)DFS_NAME_HINT_INIT;
	return map_init(&s->files, 64, NULL);
}

static void side_free(struct rows_side *s)
{
	map_free(&s->files);
	free(s->pt);
	free(s->pt_tmp);
	s->pt = s->pt_tmp = NULL;
}

/* The place in rows of the side's j-th row. */
static inline size_t side_row(const struct rows_side *s, size_t j)
{
	return s->side == 1 ? s->in->count - 1 - j : j;
}

/* (the place of the side's next new rows, about to be written) */
static inline void side_prefetch_row(const struct rows_side *s)
{
	if (s->n + 4 < s->faulted) {
		const dfs_file_row *ahead = &s->in->rows[side_row(s, s->n + 4)];
		__builtin_prefetch(ahead, 1);
		__builtin_prefetch((const char *)ahead + 64, 1);
	}
}

/* The place of name nm in the log's name table, NO_PLACE for none (NULL,
 * or a name past the table the pass has places for) */
static inline uint32_t name_place(const struct timed_in *in, const dfs_name *nm)
{
	return nm && (size_t)(nm - in->names) < in->nnames ? (uint32_t)(nm - in->names) : NO_PLACE;
}

/* Record i laid out whole with the words the pass reads (a packed one
 * unpacked into `scratch`), and the place of its name (NO_PLACE: none),
 * looked up from hint h */
static inline const unsigned char *record_at(const struct timed_in *in, size_t i,
                                             unsigned char *scratch, dfs_name_hint *h,
                                             uint32_t *place)
{
	const unsigned char *rec;
	if (in->r->packed) {
		dfs_record_unpack_words(in->r, i, in->words, in->nw, scratch);
		rec = scratch;
	} else {
		rec = dfs_record(in->r, i);
	}
	uint64_t id;
	memcpy(&id, rec, 8);
	*place = name_place(in, in->names ? dfs_log_name_near(in->log, id, h) : NULL);
	return rec;
}

/* The index in the records of the p-th record of a stretch of the pass:
 * of list l's, or the pass's from + p-th */
static inline size_t pass_record(const struct timed_in *in, const uint32_t *l, size_t from,
                                 size_t p)
{
	size_t k = l ? l[p] : from + p;
	return in->index ? in->index[k] : k;
}

/* The name lookups of records in no order miss the cache (log/hints.h):
 * while h finds them out of order, the slot of the record 24 ahead of
 * the p-th of the stretch (of m), the entry of 16 ahead, the name of 8 */
static inline void prefetch_names_ahead(const struct timed_in *in, const dfs_name_hint *h,
                                        const uint32_t *l, size_t from, size_t p, size_t m)
{
	for (int stage = 0; stage < 3 && !dfs_name_hint_in_order(h); stage++) {
		size_t d = (size_t)(3 - stage) * 8;
		if (p + d < m)
			dfs_log_name_prefetch(in->log,
			                      dfs_record_word(in->r, pass_record(in, l, from, p + d), 0),
			                      stage);
	}
}

/* Record i (k-th of the pass; `place`: its name's, or NO_PLACE) added to
 * its file's row, made when new (first_k: where its first record is, at
 * the row's place, when not NULL).  -1 without memory. */
static inline int add_record(struct rows_side *s, size_t k, size_t i, uint32_t place,
                             const unsigned char *rec, uint32_t *first_k)
{
	const struct timed_in *in = s->in;
	uint64_t id;
	int64_t rank;
	memcpy(&id, rec, 8);
	memcpy(&rank, rec + 8, 8);
	size_t next = side_row(s, s->n);
	uint32_t f;
	bool created;
	if (place != NO_PLACE) {
		uint32_t *a = &in->at[place];
		created = *a == 0;
		if (created)
			*a = (uint32_t)next + 1;
		f = *a - 1;
	} else if (map_get(&s->files, id, 0, (uint32_t)next, &f, &created)) {
		return -1;
	}
	dfs_file_row *row = &in->rows[f];
	if (created) {
		if (s->n == s->faulted) {
			/* the next stretch of the side's rows faulted in at once
			 * (new rows are taken in order) */
			size_t c = in->count - s->faulted < FAULT_ROWS ? in->count - s->faulted
			                                               : FAULT_ROWS;
			size_t lo = s->side == 1 ? in->count - s->faulted - c : s->faulted;
			dfs_scratch_prefault(in->rows, lo * sizeof(*row), c * sizeof(*row));
			s->faulted += c;
		}
		if (!in->rows_zero)
			memset(row, 0, sizeof(*row));
		row->id = id;
		row->first = (uint32_t)i;
		row->name = place != NO_PLACE ? place + 1 : 0;
		if (first_k)
			first_k[f] = (uint32_t)k;
		s->n++;
	}
	const int *wi = in->wi;
	struct rec_numbers num;
	rec_numbers_at(rec, in->w, &num);
	add_numbers(row, &num);
	/* the record's time in its file alone (compute_metrics) */
	if (rank < 0) {
		SHARED(row) += word_at_f(rec, wi[W_SLOWEST]);
		NRANKS(row) |= HAS_SHARED;
		return 0;
	}
	double io = word_at_f(rec, wi[W_META]) + word_at_f(rec, wi[W_READ]) +
	            word_at_f(rec, wi[W_WRITE]);
	if ((NRANKS(row) & ~HAS_SHARED) == 0) {
		/* (its first pair: CUR_IO is 0.0 from the memset) */
		CUR_RANK(row) = rank;
		NRANKS(row)++;
	}
	if (CUR_RANK(row) == rank) {
		if (rank < in->nprocs)
			CUR_IO(row) += io;
		return 0;
	}
	/* (another pair's: is it new? known once they are grouped) */
	if (s->npt == s->pt_cap && grow_pairs(&s->pt, &s->pt_cap))
		return -1;
	s->pt[s->npt++] = (struct pair_time){f, rank, rank < in->nprocs ? io : 0.0};
	return 0;
}

/* The side's rows from its j0-th on, every record of their files added:
 * each file's slowest pair (its first pair's time when above 0, the
 * rule's start, then every other pair's weighed in), then the columns,
 * the text's length and the sort key, items[j - j0] for its j-th row.
 * The pairs listed so far are used up.  -1 without memory. */
static int finish_rows(struct rows_side *s, size_t j0, struct sort_item *items)
{
	const struct timed_in *in = s->in;
	dfs_file_row *rows = in->rows;
	if (s->npt > 1 && s->tmp_cap < s->npt) {
		free(s->pt_tmp);
		s->tmp_cap = s->pt_cap;
		s->pt_tmp = malloc(s->tmp_cap * sizeof(*s->pt_tmp));
		if (!s->pt_tmp) {
			s->tmp_cap = 0;
			return -1;
		}
	}
	/* each pair's time, its records' summed in their order */
	const struct pair_time *g = group_pairs(s->pt, s->pt_tmp, s->npt);
	for (size_t q = 0; q < s->npt;) {
		double io_total = 0.0;
		size_t e = q;
		for (; e < s->npt && g[e].row == g[q].row && g[e].rank == g[q].rank; e++)
			io_total += g[e].io;
		dfs_file_row *row = &rows[g[q].row];
		NRANKS(row)++;
		weigh_pair(row, io_total);
		q = e;
	}
	s->npt = 0;
	/* (the text's length while the row is at hand: its rows follow the
	 * name table, whose names then hit the cache) */
	const dfs_file_table tv = {.log = in->log, .records = in->r, .timed = true,
	                           .text_only = in->text_only};
	size_t n = s->n;
	for (size_t j = j0; j < n; j++) {
		/* (rows some way ahead asked for: the chunk's records have
		 * pushed them out of the nearest caches since they were made) */
		if (j + 8 < n) {
			const dfs_file_row *ahead = &rows[side_row(s, j + 8)];
			__builtin_prefetch(ahead, 1);
			__builtin_prefetch((const char *)ahead + 64, 1);
		}
		size_t f = side_row(s, j);
		dfs_file_row *row = &rows[f];
		double slowest = first_io(row);
		row->time_by_slowest = slowest + SHARED(row);
		row->ranks = NRANKS(row) & HAS_SHARED ? in->nprocs : NRANKS(row);
		row->total_bytes = add_i(row->bytes_read, row->bytes_written);
		row->perf_by_slowest = 0.0;
		if (row->time_by_slowest != 0)
			row->perf_by_slowest = ((double)row->total_bytes / 1048576.0) /
			                       row->time_by_slowest;
		uint64_t k = order_key(row->total_bytes);
		if (!s->have_key) {
			s->key0 = k;
			s->have_key = true;
		}
		s->vary |= k ^ s->key0;
		items[j - j0] = (struct sort_item){k, (uint32_t)f,
		                                   row_len(&tv, row, &s->hint, s->mts, &s->mi)};
	}
	return 0;
}

/* The table's order and lengths from its n items sorted */
static int take_order(dfs_file_table *t, const struct sort_item *items, size_t n)
{
	uint32_t *order = warm_alloc(t->pool, n * sizeof(uint32_t));
	uint32_t *len = warm_alloc(t->pool, n * sizeof(uint32_t));
	if (!order || !len) {
		dfs_scratch_free(t->pool, order);
		dfs_scratch_free(t->pool, len);
		return -1;
	}
	for (size_t k = 0; k < n; k++) {
		order[k] = items[k].j;
		len[k] = items[k].len;
	}
	t->order = order;
	t->len = len;
	return 0;
}

/* One thread: the records in their order, then the rows; 0 or -1
 * without memory (t's rows, order and lengths set with 0). */
static int group_one(const struct timed_in *in, dfs_file_table *t)
{
	const dfs_records *r = in->r;
	size_t count = in->count;
	struct rows_side s;
	if (side_init(&s, in, 0))
		return -1;
	dfs_name_hint hint = DFS_NAME_HINT_INIT;
	_Alignas(8) unsigned char scratch[DFS_RECORD_MAX];
	memset(scratch, 0, sizeof(scratch));
	/* a thread faulting the rows in ahead of the pass */
	struct rows_fault rf;
	rows_fault_start(&rf, in->rows, count * sizeof(dfs_file_row));
	int ret = 0;
	for (size_t k = 0; k < count && !ret; k++) {
		/* the record twice as far ahead as the slot of its id (read from
		 * the record, in the cache by then) */
		if (k + 2 * AHEAD < count)
			dfs_record_prefetch(r, pass_record(in, NULL, 0, k + 2 * AHEAD));
		prefetch_names_ahead(in, &hint, NULL, 0, k, count);
		side_prefetch_row(&s);
		size_t i = pass_record(in, NULL, 0, k);
		uint32_t place;
		const unsigned char *rec = record_at(in, i, scratch, &hint, &place);
		ret = add_record(&s, k, i, place, rec, NULL);
	}
	rows_fault_end(&rf);
	/* most bytes first, equals in the order first seen (the rows' own):
	 * the items and the sort's copy in one block (the pool lends a kept
	 * block, warm, to a request of at least a quarter of it, which the
	 * two make more often than each alone) */
	size_t n = s.n, nk = n ? n : 1;
	struct sort_item *items = ret ? NULL : dfs_scratch_alloc(in->pool, 2 * nk * sizeof(*items));
	if (items) {
		/* (each pass writes its items to a thousand places at once:
		 * scratch blocks are in huge pages, see util/scratch.c) */
		dfs_scratch_prefault(items, 0, 2 * nk * sizeof(*items));
		ret = finish_rows(&s, 0, items);
	}
	side_free(&s);
	if (!items || ret ||
	    take_order(t, sort_items_desc(items, items + nk, n, s.vary), n)) {
		dfs_scratch_free(in->pool, items);
		return -1;
	}
	dfs_scratch_free(in->pool, items);
	t->n = n;
	return 0;
}

/* ---- many records: shares of the name table, taken as they come --------- */

#define CHUNKS 256            /* shares of the name table (a byte each) */
#define CHUNK_BLOCK 16384     /* records a thread takes at a time, before */

/* The work the threads share: passes of pieces, each piece taken by
 * whichever thread is free, the last piece of a pass done letting the
 * next pass start (a thread that finds no piece left waits for it).
 * P_PLACE (a piece: a block of records): each record's share (by its
 * name's place), counted; P_LIST (a block): the records listed by share, in their
 * order (a counting sort: where each block's records of each share go is
 * known once every block is counted); P_ROWS (a share): its rows, every
 * record of its files added, and their items (sort key, row, length) at
 * the share's place in items; P_SORT (a half of the shares): its items
 * side by side, sorted; P_MERGE (a half of the text): the two halves'
 * items merged into the table's order and lengths.
 *
 * When a sample of the records follows the name table, P_TRY (a share)
 * comes first instead of P_PLACE, P_LIST and P_ROWS: each share taken
 * as the stretch of records a binary search gives it, and made into rows
 * as P_ROWS does, each record checked to be of that share.  A record of
 * another share (or without a name) ends the attempt: the rows made are
 * dropped and the three passes follow. */
enum { P_TRY, P_PLACE, P_LIST, P_ROWS, P_SORT, P_MERGE, PASSES };

struct chunked {
	struct timed_in in;
	dfs_file_table *t;
	size_t nblocks;
	uint64_t scale;           /* a name's share: its place x scale >> 32 */
	uint8_t *chunk;           /* at record k of the pass: its share */
	uint8_t *block_ends;      /* [block][2]: the shares of its first and
	                           * last records */
	atomic_bool mixed;        /* a block's shares not in rising order */
	bool listed;              /* the shares' records are listed, not each
	                           * a stretch of the pass (records following
	                           * the name table) */
	bool trying;              /* P_TRY first: each share the stretch of
	                           * start[] */
	atomic_bool strays;       /* P_TRY met a record outside its stretch */
	bool stretched;           /* P_TRY made the rows */
	uint32_t *counts;         /* [block][share]: its records, then where
	                           * they go in list */
	uint32_t *list;           /* k of the records by share, in their order
	                           * (when listed) */
	uint32_t *first_k;        /* at a row's place: k of its first record
	                           * (when listed; records in stretches, the
	                           * order of the shares is that order) */
	struct sort_item *items;  /* 2 x count: the shares' items (share s:
	                           * from start[s]), then the sort's copy */
	uint32_t start[CHUNKS + 1];       /* share s: list[start[s], start[s + 1]),
	                                   * or those records of the pass */
	uint32_t rows_of[CHUNKS];         /* its rows */
	uint32_t first_seen[CHUNKS], last_seen[CHUNKS];   /* first_k of its
	                                                    * first and last row */
	size_t n;                 /* every row */
	size_t mid;               /* the first share of the second half */
	uint64_t vary;            /* bits where any two keys differ */
	struct sort_item *half[2];        /* each half's items, sorted */
	size_t half_n[2];
	struct rows_side side[2];
	atomic_size_t next_side;
	atomic_size_t next[PASSES];       /* each pass's next piece */
	atomic_bool failed;
	pthread_mutex_t lock;     /* (a leaf: docs/locks.md) */
	pthread_cond_t cond;
	size_t done[PASSES];      /* pieces done (under lock) */
	bool ready[PASSES];       /* every piece done, and what follows the
	                           * last made (under lock) */
};

/* The share of a name's place */
static inline size_t share_of(const struct chunked *c, uint32_t place)
{
	return (size_t)((uint64_t)place * c->scale >> 32);
}

/* The share of record k of the pass by its name, CHUNKS for a record
 * without a name (P_TRY's order: after every share) */
static size_t record_share(const struct chunked *c, size_t k)
{
	const struct timed_in *in = &c->in;
	uint64_t id = dfs_record_word(in->r, in->index ? in->index[k] : k, 0);
	uint32_t place = name_place(in, in->names ? dfs_log_name(in->log, id) : NULL);
	return place != NO_PLACE ? share_of(c, place) : CHUNKS;
}

/* Whether to try the records as stretches: a sample of them (every
 * count / TRY_SAMPLES-th and the last) in rising shares; then each
 * share's stretch, the records from the first of a share at least its
 * own (a binary search: shares rise along them if the records do). */
#define TRY_SAMPLES 1024
static bool try_stretches(struct chunked *c)
{
	size_t count = c->in.count, step = count / TRY_SAMPLES ? count / TRY_SAMPLES : 1;
	size_t before = 0;
	for (size_t k = 0; k < count; k += step) {
		size_t sh = record_share(c, k);
		if (sh == CHUNKS || sh < before)
			return false;
		before = sh;
	}
	size_t last = record_share(c, count - 1);
	if (last == CHUNKS || last < before)
		return false;
	c->start[0] = 0;
	for (size_t sh = 1; sh < CHUNKS; sh++) {
		size_t lo = c->start[sh - 1], hi = count;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (record_share(c, mid) < sh)
				lo = mid + 1;
			else
				hi = mid;
		}
		c->start[sh] = (uint32_t)lo;
	}
	c->start[CHUNKS] = (uint32_t)count;
	return true;
}

/* P_TRY met a record outside its stretch: the rows made are dropped (the
 * rows' memory now written: made anew with zeros), for P_PLACE. */
static void untry(struct chunked *c)
{
	for (int h = 0; h < 2; h++) {
		struct rows_side *s = &c->side[h];
		for (size_t j = 0; j < s->n; j++) {
			const dfs_file_row *row = &c->in.rows[side_row(s, j)];
			if (row->name)
				c->in.at[row->name - 1] = 0;
		}
		s->n = 0;
		s->npt = 0;
		s->have_key = false;
		s->vary = 0;
		s->find = (dfs_name_hint)DFS_NAME_HINT_INIT;
		s->hint = (dfs_name_hint)DFS_NAME_HINT_INIT;
	}
	c->in.rows_zero = false;
}

/* The items of records [from, from + m) of the pass and their copy,
 * faulted in at once (by P_PLACE for its block, by P_TRY for its
 * stretch) rather than at their first write */
static void fault_items(struct chunked *c, size_t from, size_t m)
{
	size_t bytes = m * sizeof(struct sort_item);
	dfs_scratch_prefault(c->items, from * sizeof(struct sort_item), bytes);
	dfs_scratch_prefault(c->items, (c->in.count + from) * sizeof(struct sort_item), bytes);
}

/* P_PLACE of block b */
static void place_block(struct chunked *c, size_t b, dfs_name_hint *hint)
{
	const struct timed_in *in = &c->in;
	const dfs_records *r = in->r;
	size_t lo = b * CHUNK_BLOCK;
	size_t hi = in->count - lo < CHUNK_BLOCK ? in->count : lo + CHUNK_BLOCK;
	/* (the block's share of the arrays of the passes faulted in here, on
	 * both threads, rather than at their first write) */
	dfs_scratch_prefault(c->chunk, lo, hi - lo);
	fault_items(c, lo, hi - lo);
	uint32_t *cnt = c->counts + b * CHUNKS;
	size_t before = 0;
	bool mixed = false;
	for (size_t k = lo; k < hi; k++) {
		/* (only the record's id is read here) */
		if (k + 2 * AHEAD < hi)
			dfs_record_prefetch_id(r, pass_record(in, NULL, 0, k + 2 * AHEAD));
		prefetch_names_ahead(in, hint, NULL, 0, k, hi);
		uint64_t id = dfs_record_word(r, pass_record(in, NULL, 0, k), 0);
		uint32_t place = name_place(in, in->names ? dfs_log_name_near(in->log, id, hint)
		                                          : NULL);
		size_t share = place != NO_PLACE ? share_of(c, place) : (mix(id, 0) >> 32) % CHUNKS;
		mixed |= share < before;
		before = share;
		c->chunk[k] = (uint8_t)share;
		cnt[share]++;
	}
	c->block_ends[2 * b] = c->chunk[lo];
	c->block_ends[2 * b + 1] = (uint8_t)before;
	if (mixed)
		atomic_store(&c->mixed, true);
}

/* After P_PLACE: where each block's records of each share go; whether
 * they need listing. */
static void place_counts(struct chunked *c)
{
	bool mixed = atomic_load(&c->mixed);
	for (size_t b = 1; b < c->nblocks && !mixed; b++)
		mixed = c->block_ends[2 * b] < c->block_ends[2 * b - 1];
	c->listed = mixed;
	size_t at = 0;
	for (size_t s = 0; s < CHUNKS; s++) {
		c->start[s] = (uint32_t)at;
		for (size_t b = 0; b < c->nblocks; b++) {
			uint32_t *x = &c->counts[b * CHUNKS + s];
			uint32_t v = *x;
			*x = (uint32_t)at;
			at += v;
		}
	}
	c->start[CHUNKS] = (uint32_t)at;
}

/* P_LIST of block b */
static void list_block(struct chunked *c, size_t b)
{
	size_t lo = b * CHUNK_BLOCK;
	size_t hi = c->in.count - lo < CHUNK_BLOCK ? c->in.count : lo + CHUNK_BLOCK;
	uint32_t *at = c->counts + b * CHUNKS;
	dfs_scratch_prefault(c->list, lo * sizeof(uint32_t), (hi - lo) * sizeof(uint32_t));
	dfs_scratch_prefault(c->first_k, lo * sizeof(uint32_t), (hi - lo) * sizeof(uint32_t));
	for (size_t k = lo; k < hi; k++)
		c->list[at[c->chunk[k]]++] = (uint32_t)k;
}

/* P_ROWS (or, `check`, P_TRY) of share ch, by side s: 0, 1 when P_TRY met
 * a record outside the share, or -1 without memory. */
static int rows_chunk(struct chunked *c, struct rows_side *s, size_t ch,
                      unsigned char *scratch, bool check)
{
	const struct timed_in *in = &c->in;
	const dfs_records *r = in->r;
	size_t from = c->start[ch], m = c->start[ch + 1] - from, j0 = s->n;
	if (check)
		fault_items(c, from, m);
	const uint32_t *l = c->listed ? c->list + from : NULL;
	uint32_t *first_k = c->listed ? c->first_k : NULL;
	for (size_t q = 0; q < m; q++) {
		/* (records listed lie in no order: where the record four times
		 * as far ahead lies, before the record itself is asked for) */
		if (l && q + 4 * AHEAD < m)
			dfs_record_prefetch_place(r, pass_record(in, l, from, q + 4 * AHEAD));
		if (q + 2 * AHEAD < m)
			dfs_record_prefetch(r, pass_record(in, l, from, q + 2 * AHEAD));
		prefetch_names_ahead(in, &s->find, l, from, q, m);
		side_prefetch_row(s);
		size_t k = l ? l[q] : from + q, i = pass_record(in, l, from, q);
		uint32_t place;
		const unsigned char *rec = record_at(in, i, scratch, &s->find, &place);
		if (check && (place == NO_PLACE || share_of(c, place) != ch))
			return 1;
		if (add_record(s, k, i, place, rec, first_k))
			return -1;
	}
	if (finish_rows(s, j0, c->items + c->start[ch]))
		return -1;
	c->rows_of[ch] = (uint32_t)(s->n - j0);
	if (first_k && s->n > j0) {
		c->first_seen[ch] = c->first_k[side_row(s, j0)];
		c->last_seen[ch] = c->first_k[side_row(s, s->n - 1)];
	}
	return 0;
}

/* After P_ROWS: the halves (about as many rows each), the bits where
 * keys differ, the table's arrays. */
static void rows_counted(struct chunked *c)
{
	size_t n = 0;
	for (size_t s = 0; s < CHUNKS; s++)
		n += c->rows_of[s];
	size_t below = 0, mid = 0;
	while (mid < CHUNKS && below < n / 2)
		below += c->rows_of[mid++];
	c->n = n;
	c->mid = mid;
	const struct rows_side *a = &c->side[0], *b = &c->side[1];
	c->vary = a->vary | b->vary | (a->have_key && b->have_key ? a->key0 ^ b->key0 : 0);
	c->t->order = dfs_scratch_alloc(c->in.pool, n * sizeof(uint32_t));
	c->t->len = dfs_scratch_alloc(c->in.pool, n * sizeof(uint32_t));
	if (!c->t->order || !c->t->len)
		atomic_store(&c->failed, true);
}

/* The n items sorted by the place of their rows' first records (ties: in
 * their order), as sort_items_desc does by key.  Returns the array
 * holding the result (items or tmp). */
static struct sort_item *sort_items_first(struct sort_item *items, struct sort_item *tmp,
                                          size_t n, const uint32_t *first_k)
{
	if (n < 2)
		return items;
	uint64_t vary = 0, k0 = first_k[items[0].j];
	for (size_t i = 0; i < n; i++)
		vary |= first_k[items[i].j] ^ k0;
	if (!vary)
		return items;
	struct digits dg = digits_of(vary);
	uint32_t count[(size_t)1 << DIGIT_BITS_MAX];
	for (int d = 0; d < dg.n; d++) {
		int shift = dg.lo + dg.width * d;
		size_t buckets = (size_t)1 << dg.width;
		memset(count, 0, buckets * sizeof(count[0]));
		for (size_t i = 0; i < n; i++)
			count[(first_k[items[i].j] >> shift) & dg.mask]++;
		if (!digit_offsets(count, buckets, n))
			continue;
		for (size_t i = 0; i < n; i++)
			tmp[count[(first_k[items[i].j] >> shift) & dg.mask]++] = items[i];
		struct sort_item *x = items;
		items = tmp;
		tmp = x;
	}
	return items;
}

/* P_SORT of half h: its shares' items side by side (in the order of the
 * shares: most often the order first seen already, records following the
 * name table; else sorted so first), then most bytes first. */
static void sort_half(struct chunked *c, int h)
{
	size_t c0 = h ? c->mid : 0, c1 = h ? CHUNKS : c->mid;
	size_t base = c->start[c0], n = 0;
	struct sort_item *items = c->items + base, *tmp = c->items + c->in.count + base;
	bool in_order = true, any = false;
	uint32_t last = 0;
	for (size_t s = c0; s < c1; s++) {
		size_t rows = c->rows_of[s];
		if (!rows)
			continue;
		if (c->listed && any && c->first_seen[s] <= last)
			in_order = false;
		last = c->last_seen[s];
		any = true;
		if (c->start[s] != base + n)
			memmove(items + n, c->items + c->start[s], rows * sizeof(*items));
		n += rows;
	}
	if (!in_order) {
		struct sort_item *by_first = sort_items_first(items, tmp, n, c->first_k);
		tmp = by_first == items ? tmp : items;
		items = by_first;
	}
	c->half[h] = sort_items_desc(items, tmp, n, c->vary);
	c->half_n[h] = n;
}

/* Does item a of the first half come before b of the second in the
 * table (most bytes first, then first seen)?  (Two rows never have the
 * same first record; records not listed, every record of the first half
 * comes before the second's.) */
static inline bool item_before(const struct chunked *c, const struct sort_item *a,
                               const struct sort_item *b)
{
	return a->key > b->key ||
	       (a->key == b->key && (!c->listed || c->first_k[a->j] < c->first_k[b->j]));
}

/* How many of the table's first p rows come from the first half */
static size_t merge_split(const struct chunked *c, size_t p)
{
	const struct sort_item *a = c->half[0], *b = c->half[1];
	size_t lo = p > c->half_n[1] ? p - c->half_n[1] : 0;
	size_t hi = p < c->half_n[0] ? p : c->half_n[0];
	while (lo < hi) {
		size_t i = lo + (hi - lo) / 2;
		if (item_before(c, &a[i], &b[p - i - 1]))
			lo = i + 1;
		else
			hi = i;
	}
	return lo;
}

/* P_MERGE of part h: the table's rows [n h / 2, n (h + 1) / 2) */
static void merge_part(struct chunked *c, int h)
{
	size_t from = h ? c->n / 2 : 0, to = h ? c->n : c->n / 2;
	size_t i = merge_split(c, from), i_end = merge_split(c, to);
	size_t j = from - i, j_end = to - i_end;
	const struct sort_item *a = c->half[0], *b = c->half[1];
	uint32_t *order = c->t->order, *len = c->t->len;
	dfs_scratch_prefault(order, from * sizeof(uint32_t), (to - from) * sizeof(uint32_t));
	dfs_scratch_prefault(len, from * sizeof(uint32_t), (to - from) * sizeof(uint32_t));
	for (size_t k = from; k < to; k++) {
		const struct sort_item *it = j == j_end || (i < i_end && item_before(c, &a[i], &b[j]))
		                             ? &a[i++] : &b[j++];
		order[k] = it->j;
		len[k] = it->len;
	}
}

/* One more piece of pass p done: true when it was the last of `of`. */
static bool piece_done(struct chunked *c, int p, size_t of)
{
	pthread_mutex_lock(&c->lock);
	bool last = ++c->done[p] == of;
	pthread_mutex_unlock(&c->lock);
	return last;
}

static void set_ready(struct chunked *c, int p)
{
	pthread_mutex_lock(&c->lock);
	c->ready[p] = true;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
}

static void wait_ready(struct chunked *c, int p)
{
	pthread_mutex_lock(&c->lock);
	while (!c->ready[p])
		pthread_cond_wait(&c->cond, &c->lock);
	pthread_mutex_unlock(&c->lock);
}

/* The next piece of pass p (of `of`), or false when none is left */
static inline bool take_piece(struct chunked *c, int p, size_t of, size_t *piece)
{
	*piece = atomic_fetch_add(&c->next[p], 1);
	return *piece < of;
}

static void *chunked_run(void *arg)
{
	struct chunked *c = arg;
	size_t me = atomic_fetch_add(&c->next_side, 1);
	if (me > 1)
		return NULL;
	struct rows_side *s = &c->side[me];
	dfs_name_hint hint = DFS_NAME_HINT_INIT;
	size_t x;
	_Alignas(8) unsigned char scratch[DFS_RECORD_MAX];
	memset(scratch, 0, sizeof(scratch));
	while (c->trying && take_piece(c, P_TRY, CHUNKS, &x)) {
		/* (once the attempt failed, the pieces are only counted) */
		if (!atomic_load(&c->failed) && !atomic_load(&c->strays)) {
			int r = rows_chunk(c, s, x, scratch, true);
			if (r < 0)
				atomic_store(&c->failed, true);
			else if (r > 0)
				atomic_store(&c->strays, true);
		}
		if (piece_done(c, P_TRY, CHUNKS)) {
			if (atomic_load(&c->failed)) {
				/* (nothing follows) */
			} else if (atomic_load(&c->strays)) {
				untry(c);
			} else {
				rows_counted(c);
				c->stretched = true;
			}
			set_ready(c, P_TRY);
		}
	}
	if (c->trying)
		wait_ready(c, P_TRY);
	if (atomic_load(&c->failed))
		return NULL;
	if (c->stretched)
		goto sort;
	while (take_piece(c, P_PLACE, c->nblocks, &x)) {
		place_block(c, x, &hint);
		if (piece_done(c, P_PLACE, c->nblocks)) {
			place_counts(c);
			set_ready(c, P_PLACE);
		}
	}
	wait_ready(c, P_PLACE);
	while (c->listed && take_piece(c, P_LIST, c->nblocks, &x)) {
		list_block(c, x);
		if (piece_done(c, P_LIST, c->nblocks))
			set_ready(c, P_LIST);
	}
	if (c->listed)
		wait_ready(c, P_LIST);
	while (take_piece(c, P_ROWS, CHUNKS, &x)) {
		/* (after a failure the pieces are only counted) */
		if (!atomic_load(&c->failed) && rows_chunk(c, s, x, scratch, false))
			atomic_store(&c->failed, true);
		if (piece_done(c, P_ROWS, CHUNKS)) {
			if (!atomic_load(&c->failed))
				rows_counted(c);
			set_ready(c, P_ROWS);
		}
	}
	wait_ready(c, P_ROWS);
	if (atomic_load(&c->failed))
		return NULL;
sort:
	while (take_piece(c, P_SORT, 2, &x)) {
		sort_half(c, (int)x);
		if (piece_done(c, P_SORT, 2))
			set_ready(c, P_SORT);
	}
	wait_ready(c, P_SORT);
	while (take_piece(c, P_MERGE, 2, &x))
		merge_part(c, (int)x);
	return NULL;
}

/* Two threads (one when the other cannot start): 0, or -1 without memory
 * (t's rows, order and lengths set with 0). */
static int group_chunks(const struct timed_in *in, dfs_file_table *t)
{
	size_t count = in->count;
	struct chunked *c = calloc(1, sizeof(*c));
	if (!c)
		return -1;
	c->in = *in;
	c->t = t;
	/* (places below nnames < 2^32 give shares below CHUNKS, in rising
	 * order; no division at each record) */
	c->scale = in->nnames ? ((uint64_t)CHUNKS << 32) / in->nnames : 0;
	c->nblocks = (count + CHUNK_BLOCK - 1) / CHUNK_BLOCK;
	c->chunk = dfs_scratch_alloc(in->pool, count);
	c->block_ends = malloc(2 * c->nblocks);
	c->list = dfs_scratch_alloc(in->pool, count * sizeof(uint32_t));
	c->first_k = dfs_scratch_alloc(in->pool, count * sizeof(uint32_t));
	c->items = dfs_scratch_alloc(in->pool, 2 * count * sizeof(struct sort_item));
	c->counts = calloc(c->nblocks * CHUNKS, sizeof(uint32_t));
	int ret = -1;
	bool sides = false;
	if (!c->chunk || !c->block_ends || !c->list || !c->first_k || !c->items || !c->counts)
		goto out;
	if (side_init(&c->side[0], &c->in, 0) || side_init(&c->side[1], &c->in, 1)) {
		side_free(&c->side[0]);
		goto out;
	}
	sides = true;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->cond, NULL);
	atomic_init(&c->next_side, 0);
	for (int p = 0; p < PASSES; p++)
		atomic_init(&c->next[p], 0);
	atomic_init(&c->failed, false);
	atomic_init(&c->mixed, false);
	atomic_init(&c->strays, false);
	c->trying = try_stretches(c);
	dfs_workers_run(2, chunked_run, c);
	pthread_cond_destroy(&c->cond);
	pthread_mutex_destroy(&c->lock);
	if (!atomic_load(&c->failed)) {
		t->n = c->n;
		ret = 0;
	}
out:
	if (ret) {
		dfs_scratch_free(in->pool, t->order);
		dfs_scratch_free(in->pool, t->len);
		t->order = NULL;
		t->len = NULL;
	}
	if (sides) {
		side_free(&c->side[0]);
		side_free(&c->side[1]);
	}
	dfs_scratch_free(in->pool, c->chunk);
	free(c->block_ends);
	dfs_scratch_free(in->pool, c->list);
	dfs_scratch_free(in->pool, c->first_k);
	dfs_scratch_free(in->pool, c->items);
	free(c->counts);
	free(c);
	return ret;
}

/* Rows of a module with an accumulator, in one pass: records grouped by
 * record id, each row's sums and time taken as its records come, in
 * record order.  Sets t->rows, t->n, t->order (most bytes first, then
 * first seen) and t->len.  *t untouched with 0: no accumulator for this
 * job (nprocs < 1, or none for the module). */
static int group_timed(const dfs_log *log, const dfs_records *r, const size_t *index,
                       size_t count, const struct words *w, dfs_file_table *t,
                       dfs_error *err)
{
	const dfs_module *m = r->module;
	int64_t nprocs = dfs_log_job(log)->nprocs;
	int wi[W_ALL];
	memcpy(wi, w->w, sizeof(w->w));
	if (nprocs < 1 || dfs_accum_time_words(m, &wi[W_SLOWEST], &wi[W_META], &wi[W_READ],
	                                       &wi[W_WRITE]))
		return 0;
	uint16_t words[W_ALL + 2];
	size_t nw = 0;
	words[nw++] = 0;
	words[nw++] = 1;
	for (int k = 0; k < W_ALL; k++)
		if (wi[k] >= 0)
			words[nw++] = (uint16_t)wi[k];
	/* a file's row is found by the place of its id in the log's name
	 * table (records mostly follow it: the lookups hit the cache), the
	 * ids without a name in a table of their own */
	size_t nnames = dfs_log_name_count(log);
	const dfs_name *names = nnames ? dfs_log_name_at(log, 0) : NULL;
	bool at_zero = false;
	uint32_t *at = nnames && nnames < UINT32_MAX
	               ? dfs_scratch_alloc_fresh(t->pool, nnames * 4, &at_zero) : NULL;
	bool rows_zero;
	dfs_file_row *rows = dfs_scratch_alloc_fresh(t->pool, (count ? count : 1) * sizeof(*rows),
	                                             &rows_zero);
	if (!rows || (nnames && !at)) {
		dfs_scratch_free(t->pool, rows);
		dfs_scratch_free(t->pool, at);
		return dfs_error_nomem(err);
	}
	if (at) {
		dfs_scratch_prefault(at, 0, nnames * 4);
		if (!at_zero)
			memset(at, 0, nnames * 4);
	}
	const struct timed_in in = {
		.log = log, .r = r, .index = index, .count = count, .w = w, .wi = wi,
		.words = words, .nw = nw, .nprocs = nprocs, .names = names,
		.nnames = at ? nnames : 0, .at = at, .rows = rows, .rows_zero = rows_zero,
		.pool = t->pool, .text_only = t->text_only};
	int ret = count >= PARALLEL_RECORDS && dfs_workers(2, 2) == 2 ? group_chunks(&in, t)
	                                                              : group_one(&in, t);
	dfs_scratch_free(t->pool, at);
	if (ret) {
		dfs_scratch_free(t->pool, rows);
		return dfs_error_nomem(err);
	}
	t->rows = rows;
	t->timed = true;
	return 0;
}

/* Rows of a module without an accumulator: grouped by record id here. */
static int group_plain(const dfs_log *log, const dfs_records *r, const size_t *index,
                       size_t count, const struct words *w, dfs_file_table *t,
                       dfs_error *err)
{
	int64_t nprocs = dfs_log_job(log)->nprocs;
	/* each row's text length, at its place (in the order of the text
	 * once it is known: dfs_file_table_build) */
	t->len = warm_alloc(t->pool, count * sizeof(uint32_t));
	if (!t->len)
		return dfs_error_nomem(err);
	dfs_file_row *rows = dfs_scratch_alloc(t->pool, (count ? count : 1) * sizeof(*rows));
	/* (file row, rank) pairs seen, for the ranks column */
	struct map files = {0}, pairs = {0};
	bool *shared = calloc(count ? count : 1, sizeof(bool));
	if (!rows || !shared || map_init(&files, count, t->pool) || map_init(&pairs, count, t->pool)) {
		dfs_scratch_free(t->pool, rows);
		free(shared);
		map_free(&files);
		map_free(&pairs);
		return dfs_error_nomem(err);
	}
	size_t n = 0;
	int ret = 0;
	for (size_t k = 0; k < count; k++) {
		if (k + AHEAD < count)
			map_prefetch(&files, dfs_record_word(r, index ? index[k + AHEAD] : k + AHEAD, 0), 0);
		size_t i = index ? index[k] : k;
		uint64_t id = dfs_record_word(r, i, 0);
		int64_t rank = (int64_t)dfs_record_word(r, i, 1);
		uint32_t f, unused;
		bool created;
		if (map_get(&files, id, 0, (uint32_t)n, &f, &created)) {
			ret = -1;
			break;
		}
		if (created) {
			memset(&rows[n], 0, sizeof(rows[n]));
			rows[n].id = id;
			rows[n].first = (uint32_t)i;
			n++;
		}
		struct rec_numbers num;
		rec_numbers(r, i, w, &num);
		add_numbers(&rows[f], &num);
		if (rank < 0) {
			shared[f] = true;
		} else {
			if (map_get(&pairs, f, (uint64_t)rank, 0, &unused, &created)) {
				ret = -1;
				break;
			}
			if (created)
				rows[f].ranks++;
		}
	}
	map_free(&files);
	map_free(&pairs);
	if (ret) {
		dfs_scratch_free(t->pool, rows);
		free(shared);
		return dfs_error_nomem(err);
	}
	for (size_t f = 0; f < n; f++) {
		if (shared[f])
			rows[f].ranks = nprocs;
		rows[f].total_bytes = add_i(rows[f].bytes_read, rows[f].bytes_written);
	}
	free(shared);
	t->rows = rows;
	t->n = n;
	dfs_name_hint hint = DFS_NAME_HINT_INIT;
	struct mount_text mts[MOUNT_TEXTS] = {{0}};
	struct mounts_by_index mi;
	memset(mi.made, 0, sizeof(mi.made));
	for (size_t f = 0; f < n && t->len; f++)
		t->len[f] = row_len(t, &rows[f], &hint, mts, &mi);
	return 0;
}

static int build(const dfs_log *log, const dfs_records *r, const size_t *index,
                 size_t count, struct dfs_scratch *pool, bool text_only,
                 dfs_file_table *out, dfs_error *err)
{
	memset(out, 0, sizeof(*out));
	out->text_only = text_only;
	struct words w;
	if (!r || !words_of(r->module, &w))
		return dfs_error_set(err, DFS_ERR_UNSUPPORTED, "no per-file table for %s",
		                     r ? r->module->name : "(none)");
	/* (rows keep the place of their first record in 32 bits) */
	if (count >= UINT32_MAX || r->count >= UINT32_MAX)
		return dfs_error_set(err, DFS_ERR_TOOBIG, "too many records (%zu)", r->count);
	out->log = log;
	out->records = r;
	out->pool = pool;
	if (r->module->accumulator && group_timed(log, r, index, count, &w, out, err)) {
		dfs_file_table_free(out);
		return -1;
	}
	if (!out->rows && group_plain(log, r, index, count, &w, out, err)) {
		dfs_file_table_free(out);
		return -1;
	}
	if (out->order)   /* (in order already, the lengths too) */
		return 0;
	/* most bytes first, files of equal bytes in the order first seen */
	size_t n = out->n;
	uint64_t *key = malloc((n ? n : 1) * sizeof(uint64_t));
	out->order = warm_alloc(pool, n * sizeof(uint32_t));
	int ret = -1;
	if (key && out->order) {
		for (size_t f = 0; f < n; f++)
			key[f] = order_key(out->rows[f].total_bytes);
		ret = n > 0 ? sort_desc(key, out->order, n) : 0;
	}
	free(key);
	if (ret) {
		dfs_file_table_free(out);
		return dfs_error_nomem(err);
	}
	/* the lengths in the order of the text, once (measuring a batch and
	 * rendering it then read them in turn, not each a miss) */
	uint32_t *len = warm_alloc(pool, n * sizeof(uint32_t));
	if (!len) {
		dfs_file_table_free(out);
		return dfs_error_nomem(err);
	}
	for (size_t k = 0; k < n; k++)
		len[k] = out->len[out->order[k]];
	dfs_scratch_free(pool, out->len);
	out->len = len;
	return 0;
}

int dfs_file_table_build(const dfs_log *log, const dfs_records *r,
                         const size_t *index, size_t count,
                         struct dfs_scratch *pool, dfs_file_table *out,
                         dfs_error *err)
{
	return build(log, r, index, count, pool, false, out, err);
}

int dfs_file_table_build_text(const dfs_log *log, const dfs_records *r,
                              const size_t *index, size_t count,
                              struct dfs_scratch *pool, dfs_file_table *out,
                              dfs_error *err)
{
	return build(log, r, index, count, pool, true, out, err);
}

void dfs_file_table_free(dfs_file_table *t)
{
	if (!t)
		return;
	dfs_scratch_free(t->pool, t->rows);
	dfs_scratch_free(t->pool, t->order);
	dfs_scratch_free(t->pool, t->len);
	t->rows = NULL;
	t->order = NULL;
	t->len = NULL;
	t->n = 0;
}

static const char files_header[] =
	"record_id,file_name,ranks,records,bytes_read,bytes_written,reads,writes,"
	"total_bytes,time_by_slowest,perf_by_slowest,read_time,write_time,meta_time,"
	"first_open,last_close,mount_pt,fs_type,stripe_size,stripe_count\n";

void dfs_file_table_header(dfs_buf *out)
{
	dfs_buf_add(out, files_header, sizeof(files_header) - 1);
}

/* The place columns of a row's file (its first record's). */
static void row_place(const dfs_file_table *t, const dfs_file_row *row,
                      dfs_name_hint *hint, dfs_record_place *pl)
{
	const dfs_module *m = t->records->module;
	if (!m->place && row->name) {
		/* (its name found when the rows were made) */
		const dfs_name *nm = dfs_log_name_at(t->log, row->name - 1);
		pl->name = nm->str;
		pl->name_len = nm->len;
		pl->has_name = true;
		const dfs_mount *mt = nm->mount >= 0 ? dfs_log_mount(t->log, (size_t)nm->mount) : NULL;
		pl->mount = mt ? mt->path : "UNKNOWN";
		pl->mount_len = mt ? mt->path_len : 7;
		pl->fs_type = mt ? mt->type : "UNKNOWN";
		pl->fs_type_len = mt ? strlen(mt->type) : 7;
		return;
	}
	_Alignas(8) unsigned char scratch[DFS_RECORD_MAX];
	const unsigned char *rec;
	if (m->place) {
		rec = dfs_record_get(t->records, row->first, scratch);
	} else {
		/* the name table needs the id alone */
		memset(scratch, 0, 16);
		memcpy(scratch, &row->id, 8);
		rec = scratch;
	}
	dfs_log_record_place_near(t->log, m, rec, hint, pl);
}

/* The name lookups of rows in the order of their bytes miss the cache:
 * fetch row k + 32, the table slot of row k + 24, the entry of k + 16
 * and the name of k + 8 (log/hints.h). */
static inline void prefetch_names(const dfs_file_table *t, size_t k, size_t to)
{
	/* the row itself (rows are in the order first seen: both its cache
	 * lines) before that */
	if (k + 32 < to) {
		const dfs_file_row *ahead = dfs_file_table_row(t, k + 32);
		__builtin_prefetch(ahead);
		__builtin_prefetch((const char *)ahead + 64);
	}
	if (!t->records->module->place && k + 16 < to && dfs_file_table_row(t, k + 16)->name) {
		/* (rows that know their name: its entry, then its text) */
		__builtin_prefetch(dfs_log_name_at(t->log, dfs_file_table_row(t, k + 16)->name - 1));
		if (k + 8 < to && dfs_file_table_row(t, k + 8)->name) {
			/* (its first and last bytes: names are often two lines) */
			const dfs_name *nm = dfs_log_name_at(t->log,
			                                     dfs_file_table_row(t, k + 8)->name - 1);
			__builtin_prefetch(nm->str);
			__builtin_prefetch(nm->str + (nm->len ? nm->len - 1 : 0));
		}
		return;
	}
	for (int stage = 0; stage < 3; stage++) {
		size_t d = (size_t)(3 - stage) * 8;
		if (k + d < to)
			dfs_log_name_prefetch(t->log, dfs_file_table_row(t, k + d)->id, stage);
	}
}

/* Rows rendered in the order of their bytes are read in no order, and so
 * are their names: a block of GATHER rows at a time, the rows are read,
 * then their name entries, then their names fetched, each step loads
 * that wait for none of the others, so that the core overlaps their
 * misses (a row at a time, each waited for the one before: prefetches
 * ahead of the loop lost most of their gain on this virtual machine). */
#define GATHER 64

static void gather_names(const dfs_file_table *t, size_t from, size_t count,
                         const dfs_file_row **rw, uint32_t *lens)
{
	uint32_t ni[GATHER];
	const dfs_name *nm[GATHER];
	for (size_t i = 0; i < count; i++) {
		rw[i] = dfs_file_table_row(t, from + i);
		__builtin_prefetch((const char *)rw[i] + 64);
	}
	for (size_t i = 0; i < count; i++)
		lens[i] = t->len ? t->len[from + i] : 0;
	for (size_t i = 0; i < count; i++)
		ni[i] = rw[i]->name;
	for (size_t i = 0; i < count; i++)
		nm[i] = ni[i] ? dfs_log_name_at(t->log, ni[i] - 1) : NULL;
	for (size_t i = 0; i < count; i++) {
		if (!nm[i])
			continue;
		const char *str = nm[i]->str;
		uint32_t len = nm[i]->len;
		__builtin_prefetch(str);
		__builtin_prefetch(str + (len ? len - 1 : 0));
	}
}

/* ,stripe_size,stripe_count of a file with a LUSTRE record (its first
 * component's), else two empty cells; at p (room for 44 bytes) */
static char *put_stripes(const dfs_log *log, uint64_t id, char *p)
{
	size_t len;
	const unsigned char *rec = dfs_log_lustre_record(log, id, &len);
	const dfs_module *lm = dfs_module_get(DFS_MOD_LUSTRE);
	*p++ = ',';
	if (!rec || !lm || dfs_module_rows(lm, rec, len) == 0) {
		*p++ = ',';
		return p;
	}
	static const char *const names[2] = {"LUSTRE_COMP_STRIPE_SIZE",
	                                     "LUSTRE_COMP_STRIPE_COUNT"};
	dfs_value v;
	for (int k = 0; k < 2; k++) {
		if (k)
			*p++ = ',';
		int f = dfs_module_field_index(lm, names[k], strlen(names[k]));
		if (f < 0)
			continue;
		dfs_module_get_value(lm, rec, len, 0, (size_t)f, &v);
		if (v.type == DFS_T_I64 && v.v.i >= 0)
			p += dfs_fmt_i64(p, v.v.i);
	}
	return p;
}

static inline char *put_i(char *p, int64_t v)
{
	*p++ = ',';
	return p + dfs_fmt_i64(p, v);
}

static inline char *put_d(char *p, double v)
{
	*p++ = ',';
	return p + dfs_fmt_double(p, v);
}

/* A double column, its value or (bit LEN_KEPT + c of the row's length)
 * the digits kept when it was measured */
static inline char *put_col(char *p, const double *v, uint32_t len, int c)
{
	*p++ = ',';
	if (len & (1u << (LEN_KEPT + c))) {
		uint64_t kept;
		memcpy(&kept, v, sizeof(kept));
		return p + dfs_fmt_double_kept(p, kept);
	}
	return p + dfs_fmt_double(p, *v);
}

static inline char *put_field(char *p, const char *s, size_t len)
{
	*p++ = ',';
	return p + dfs_csv_field_at(p, s, len);
}


/* The text of pl's mount and file system, made when new; NULL when it is
 * not kept (a substitute written in pl itself, a long one). */
static const struct mount_text *mount_text(struct mount_text *mts,
                                           const dfs_record_place *pl)
{
	uintptr_t lo = (uintptr_t)pl->scratch, hi = lo + sizeof(pl->scratch);
	uintptr_t m = (uintptr_t)pl->mount, f = (uintptr_t)pl->fs_type;
	if ((m >= lo && m < hi) || (f >= lo && f < hi) ||
	    2 * (pl->mount_len + pl->fs_type_len) + 6 > MOUNT_TEXT_MAX)
		return NULL;
	struct mount_text *e = &mts[(m >> 3) % MOUNT_TEXTS];
	if (e->mount != pl->mount || e->fs != pl->fs_type || e->mount_len != pl->mount_len ||
	    e->fs_len != pl->fs_type_len) {
		char *p = put_field(e->text, pl->mount, pl->mount_len);
		p = put_field(p, pl->fs_type, pl->fs_type_len);
		e->len = (uint32_t)(p - e->text);
		e->mount = pl->mount;
		e->fs = pl->fs_type;
		e->mount_len = pl->mount_len;
		e->fs_len = pl->fs_type_len;
	}
	return e;
}

static const struct mount_text *mount_by_index(const dfs_file_table *t, int32_t mount,
                                               struct mounts_by_index *mi)
{
	if (mount < -1 || mount >= MOUNTS_BY_INDEX)
		return NULL;
	size_t i = (size_t)(mount + 1);
	if (!mi->made[i]) {
		const dfs_mount *mt = mount >= 0 ? dfs_log_mount(t->log, (size_t)mount) : NULL;
		const char *path = mt ? mt->path : "UNKNOWN", *type = mt ? mt->type : "UNKNOWN";
		size_t path_len = mt ? mt->path_len : 7, type_len = mt ? strlen(mt->type) : 7;
		struct mount_text *e = &mi->e[i];
		mi->made[i] = 2;
		if (2 * (path_len + type_len) + 6 <= MOUNT_TEXT_MAX) {
			/* (copied whole: no byte of it left unset) */
			memset(e->text, 0, sizeof(e->text));
			char *p = put_field(e->text, path, path_len);
			p = put_field(p, type, type_len);
			e->len = (uint32_t)(p - e->text);
			mi->made[i] = 1;
		}
	}
	return mi->made[i] == 1 ? &mi->e[i] : NULL;
}

/* A row whose name was found when the table was made (a module without
 * a place of its own): its name into pl, and its mount's text by index,
 * without its place looked up; NULL when the row has no such name or
 * that text is not kept (row_place then). */
static const struct mount_text *known_name(const dfs_file_table *t, const dfs_file_row *row,
                                           struct mounts_by_index *mi, dfs_record_place *pl)
{
	if (t->records->module->place || !row->name)
		return NULL;
	const dfs_name *nm = dfs_log_name_at(t->log, row->name - 1);
	pl->name = nm->str;
	pl->name_len = nm->len;
	pl->mount_len = pl->fs_type_len = 0;
	return mount_by_index(t, nm->mount, mi);
}

/* the most bytes a row's numbers and separators take (20 fields), and
 * the whole of a mount's text copied at once */
#define NUMBERS_ROOM (20 * (DFS_FMT_DOUBLE_MAX + 1) + 64 + MOUNT_TEXT_MAX)

void dfs_file_table_render(const dfs_file_table *t, size_t from, size_t to,
                           dfs_buf *out)
{
	if (to > t->n)
		to = t->n;
	dfs_name_hint hint = DFS_NAME_HINT_INIT;
	bool by_name = !t->records->module->place;
	const dfs_file_row *rw[GATHER];
	uint32_t lens[GATHER];
	struct mount_text mts[MOUNT_TEXTS] = {{0}};
	struct mounts_by_index mi;
	memset(mi.made, 0, sizeof(mi.made));
	for (size_t b = from; b < to; b += GATHER) {
		size_t c = to - b < GATHER ? to - b : GATHER;
		if (by_name)
			gather_names(t, b, c, rw, lens);
		for (size_t i = 0; i < c; i++) {
			size_t k = b + i;
			const dfs_file_row *row = by_name ? rw[i] : dfs_file_table_row(t, k);
			dfs_record_place pl;
			const struct mount_text *mt = known_name(t, row, &mi, &pl);
			if (!mt) {
				if (!by_name)
					prefetch_names(t, k, to);
				row_place(t, row, &hint, &pl);
			}
			size_t room = NUMBERS_ROOM + 2 * (pl.name_len + pl.mount_len + pl.fs_type_len) + 8;
			if (!dfs_buf_grow(out, room))
				return;
			char *start = out->data + out->len, *p = start;
			p += dfs_fmt_u64(p, row->id);
			uint32_t len = by_name ? lens[i] : t->len ? t->len[k] : 0;
			if (len && !(len & LEN_QUOTED)) {
				/* (measured: a name that needs no quotes) */
				*p++ = ',';
				memcpy(p, pl.name, pl.name_len);
				p += pl.name_len;
			} else {
				p = put_field(p, pl.name, pl.name_len);
			}
			p = put_i(p, row->ranks);
			p = put_i(p, row->records);
			p = put_i(p, row->bytes_read);
			p = put_i(p, row->bytes_written);
			p = put_i(p, row->reads);
			p = put_i(p, row->writes);
			p = put_i(p, row->total_bytes);
			if (t->timed) {
				p = put_col(p, &row->time_by_slowest, len, 0);
				p = put_col(p, &row->perf_by_slowest, len, 1);
			} else {
				*p++ = ',';
				*p++ = ',';
			}
			p = put_col(p, &row->read_time, len, 2);
			p = put_col(p, &row->write_time, len, 3);
			p = put_col(p, &row->meta_time, len, 4);
			p = put_col(p, &row->first_open, len, 5);
			p = put_col(p, &row->last_close, len, 6);
			if (!mt)
				mt = mount_text(mts, &pl);
			if (mt) {
				memcpy(p, mt->text, MOUNT_TEXT_MAX);
				p += mt->len;
			} else {
				p = put_field(p, pl.mount, pl.mount_len);
				p = put_field(p, pl.fs_type, pl.fs_type_len);
			}
			p = put_stripes(t->log, row->id, p);
			*p++ = '\n';
			*p = '\0';
			out->len += (size_t)(p - start);
		}
	}
}

/* The bytes dfs_file_table_render writes for a row, without writing
 * them (the same arithmetic field by field), LEN_QUOTED set when its
 * name is quoted; 0 when past LEN_MAX.  In a table made for its text,
 * the double columns whose digits were found keep them in the row from
 * then on (their LEN_KEPT bits set). */
static uint32_t row_len(const dfs_file_table *t, dfs_file_row *row,
                        dfs_name_hint *hint, struct mount_text *mts,
                        struct mounts_by_index *mi)
{
	dfs_record_place pl;
	const struct mount_text *mt = known_name(t, row, mi, &pl);
	if (!mt) {
		row_place(t, row, hint, &pl);
		mt = mount_text(mts, &pl);
	}
	/* (a name of the log's table: whether it needs quotes is known) */
	size_t name = !t->records->module->place && row->name &&
	              dfs_log_name_plain(t->log, row->name - 1)
	              ? pl.name_len : dfs_csv_field_len(pl.name, pl.name_len);
	/* 19 commas and the newline */
	size_t n = 20 + dfs_fmt_u64_len(row->id) + name +
	           (mt ? mt->len - 2 : dfs_csv_field_len(pl.mount, pl.mount_len) +
	                               dfs_csv_field_len(pl.fs_type, pl.fs_type_len));
	n += dfs_fmt_i64_len(row->ranks) + dfs_fmt_i64_len(row->records) +
	     dfs_fmt_i64_len(row->bytes_read) + dfs_fmt_i64_len(row->bytes_written) +
	     dfs_fmt_i64_len(row->reads) + dfs_fmt_i64_len(row->writes) +
	     dfs_fmt_i64_len(row->total_bytes);
	double *col[DOUBLE_COLUMNS];
	double_columns(row, col);
	uint64_t kept[DOUBLE_COLUMNS] = {0};
	for (int c = t->timed ? 0 : 2; c < DOUBLE_COLUMNS; c++)
		n += t->text_only ? dfs_fmt_double_len_keep(*col[c], &kept[c])
		                  : dfs_fmt_double_len(*col[c]);
	/* (the stripe cells: rare, short, rendered to be counted) */
	char cells[64];
	n += (size_t)(put_stripes(t->log, row->id, cells) - cells) - 2;
	if (n > LEN_MAX)
		return 0;   /* (nothing kept: the values stay) */
	uint32_t bits = name != pl.name_len ? LEN_QUOTED : 0;
	for (int c = 0; c < DOUBLE_COLUMNS; c++) {
		if (kept[c]) {
			memcpy(col[c], &kept[c], sizeof(kept[c]));
			bits |= 1u << (LEN_KEPT + c);
		}
	}
	return (uint32_t)n | bits;
}

uint64_t dfs_file_table_measure(const dfs_file_table *t, size_t from, size_t to)
{
	if (to > t->n)
		to = t->n;
	uint64_t total = 0;
	for (size_t k = from; k < to; k++)
		total += t->len[k] & LEN_MAX;
	return total;
}

size_t dfs_file_table_row_room(const dfs_file_table *t)
{
	/* (a row asks for room for its numbers and twice its strings, which
	 * its length bounds) */
	size_t most = 0;
	for (size_t k = 0; k < t->n; k++)
		if ((t->len[k] & LEN_MAX) > most)
			most = t->len[k] & LEN_MAX;
	return NUMBERS_ROOM + 8 + 2 * most;
}

/* ---- ranks.csv ------------------------------------------------------------ */

static int cmp_rank(const void *a, const void *b)
{
	int64_t x = ((const dfs_rank_row *)a)->rank, y = ((const dfs_rank_row *)b)->rank;
	return (x > y) - (x < y);
}

/* The distinct ids among n (at ids, scrambled): a set the size of the
 * bucket, so that a rank's records are counted in cache.  `set` has room
 * for 2 * n rounded up to a power of two. */
static int64_t distinct_ids(uint64_t *ids, size_t n, uint64_t *set)
{
	if (n < 2)
		return (int64_t)n;
	size_t cap = 4;
	while (cap < 2 * n)
		cap *= 2;
	/* 0 marks an empty slot: the id 0 is counted apart */
	memset(set, 0, cap * sizeof(uint64_t));
	int64_t distinct = 0;
	bool zero = false;
	for (size_t k = 0; k < n; k++) {
		uint64_t id = ids[k];
		if (id == 0) {
			distinct += !zero;
			zero = true;
			continue;
		}
		size_t j = mix(id, 0) & (cap - 1);
		while (set[j] && set[j] != id)
			j = (j + 1) & (cap - 1);
		if (!set[j]) {
			set[j] = id;
			distinct++;
		}
	}
	return distinct;
}

int dfs_rank_table_build(const dfs_log *log, const dfs_records *r,
                         const size_t *index, size_t count,
                         struct dfs_scratch *pool, dfs_rank_table *out,
                         dfs_error *err)
{
	memset(out, 0, sizeof(*out));
	struct words w;
	if (!r || !words_of(r->module, &w))
		return dfs_error_set(err, DFS_ERR_UNSUPPORTED, "no per-rank table for %s",
		                     r ? r->module->name : "(none)");
	if (count >= UINT32_MAX)
		return dfs_error_set(err, DFS_ERR_TOOBIG, "too many records (%zu)", count);
	size_t cap = 64, n = 0;
	dfs_rank_row *rows = malloc(cap * sizeof(*rows));
	/* each record's rank row, then the records' ids bucketed by rank */
	uint32_t *row_of = dfs_scratch_alloc(pool, (count ? count : 1) * sizeof(uint32_t));
	uint64_t *ids = dfs_scratch_alloc(pool, (count ? count : 1) * sizeof(uint64_t));
	struct map ranks = {0};
	int ret = 0;
	if (!rows || !row_of || !ids || map_init(&ranks, 64, NULL))
		ret = -1;
	else
		dfs_scratch_prefault(row_of, 0, count * sizeof(uint32_t));
	bool have_last = false;
	int64_t last_rank = 0;
	uint32_t last = 0;
	for (size_t k = 0; k < count && ret == 0; k++) {
		size_t i = index ? index[k] : k;
		int64_t rank = (int64_t)dfs_record_word(r, i, 1);
		uint32_t x;
		bool created;
		if (have_last && rank == last_rank) {
			x = last;
		} else if (map_get(&ranks, (uint64_t)rank, 0, (uint32_t)n, &x, &created)) {
			ret = -1;
			break;
		} else if (created) {
			if (n == cap) {
				dfs_rank_row *g = realloc(rows, 2 * cap * sizeof(*rows));
				if (!g) {
					ret = -1;
					break;
				}
				rows = g;
				cap *= 2;
			}
			memset(&rows[n], 0, sizeof(rows[n]));
			rows[n].rank = rank;
			n++;
		}
		have_last = true;
		last_rank = rank;
		last = x;
		row_of[k] = x;
		dfs_rank_row *row = &rows[x];
		struct rec_numbers num;
		rec_numbers(r, i, &w, &num);
		row->records++;
		row->bytes_read = add_i(row->bytes_read, num.bytes_read);
		row->bytes_written = add_i(row->bytes_written, num.bytes_written);
		row->reads = add_i(row->reads, num.reads);
		row->writes = add_i(row->writes, num.writes);
		row->read_time += num.read_time;
		row->write_time += num.write_time;
		row->meta_time += num.meta_time;
		/* the accumulator's per-rank time of a record */
		row->io_time += num.meta_time + num.read_time + num.write_time;
	}
	map_free(&ranks);
	/* files: the distinct ids of each rank's records, counted a rank at
	 * a time over the ids bucketed by rank (a counting sort) */
	size_t *start = ret == 0 ? calloc(n + 1, sizeof(size_t)) : NULL;
	uint64_t *set = NULL;
	if (ret == 0 && start) {
		size_t most = 0;
		for (size_t x = 0; x < n; x++) {
			start[x + 1] = start[x] + (size_t)rows[x].records;
			if ((size_t)rows[x].records > most)
				most = (size_t)rows[x].records;
		}
		size_t set_cap = 4;
		while (set_cap < 2 * most)
			set_cap *= 2;
		set = dfs_scratch_alloc(pool, set_cap * sizeof(uint64_t));
		if (set) {
			for (size_t k = 0; k < count; k++)
				ids[start[row_of[k]]++] = dfs_record_word(r, index ? index[k] : k, 0);
			for (size_t x = n; x > 0; x--)   /* (back to each bucket's start) */
				start[x] = start[x - 1];
			start[0] = 0;
			for (size_t x = 0; x < n; x++)
				rows[x].files = distinct_ids(ids + start[x], start[x + 1] - start[x], set);
		} else {
			ret = -1;
		}
	} else if (ret == 0) {
		ret = -1;
	}
	free(start);
	dfs_scratch_free(pool, set);
	dfs_scratch_free(pool, row_of);
	dfs_scratch_free(pool, ids);
	if (ret) {
		free(rows);
		return dfs_error_nomem(err);
	}
	qsort(rows, n, sizeof(*rows), cmp_rank);
	const dfs_job *job = log ? dfs_log_job(log) : NULL;
	out->nprocs = job && job->nprocs > 0 ? job->nprocs : INT64_MAX;
	for (size_t k = 0; k < n; k++)
		if (rows[k].rank >= 0 && rows[k].rank < out->nprocs &&
		    rows[k].io_time > out->slowest)
			out->slowest = rows[k].io_time;
	out->rows = rows;
	out->n = n;
	return 0;
}

void dfs_rank_table_free(dfs_rank_table *t)
{
	if (!t)
		return;
	free(t->rows);
	t->rows = NULL;
	t->n = 0;
}

static const char ranks_header[] =
	"rank,records,files,bytes_read,bytes_written,reads,writes,read_time,"
	"write_time,meta_time,io_time,slowest_share\n";

void dfs_rank_table_header(dfs_buf *out)
{
	dfs_buf_add(out, ranks_header, sizeof(ranks_header) - 1);
}

void dfs_rank_table_render(const dfs_rank_table *t, size_t from, size_t to,
                           dfs_buf *out)
{
	for (size_t k = from; k < to && k < t->n; k++) {
		const dfs_rank_row *row = &t->rows[k];
		if (!dfs_buf_grow(out, NUMBERS_ROOM))
			return;
		char *start = out->data + out->len, *p = start;
		p += dfs_fmt_i64(p, row->rank);
		p = put_i(p, row->records);
		p = put_i(p, row->files);
		p = put_i(p, row->bytes_read);
		p = put_i(p, row->bytes_written);
		p = put_i(p, row->reads);
		p = put_i(p, row->writes);
		p = put_d(p, row->read_time);
		p = put_d(p, row->write_time);
		p = put_d(p, row->meta_time);
		p = put_d(p, row->io_time);
		/* rank -1 holds the shared records, whose times Darshan summed
		 * over the ranks: no share of one rank's; nor has a rank
		 * outside the job */
		if (row->rank < 0 || row->rank >= t->nprocs)
			*p++ = ',';
		else
			p = put_d(p, t->slowest > 0 ? row->io_time / t->slowest : 0.0);
		*p++ = '\n';
		*p = '\0';
		out->len += (size_t)(p - start);
	}
}

static void add_sep_i(dfs_buf *out, int64_t v)
{
	dfs_buf_addc(out, ',');
	dfs_buf_add_i64(out, v);
}

static void add_sep_d(dfs_buf *out, double v)
{
	dfs_buf_addc(out, ',');
	dfs_buf_add_double(out, v);
}

/* ---- a log's files, for a directory's files.csv -------------------------- */

/* One (module, file name) of a log: strings are offsets into the text. */
struct lf_entry {
	uint32_t name, name_len, mount, mount_len, fs, fs_len;
	int module;
	bool timed;
	int64_t bytes_read, bytes_written, reads, writes, total_bytes;
	double time_by_slowest, read_time, write_time, meta_time;
	int64_t left_out;          /* implausible values not summed */
};

/* Numbers no run can have measured (the rules of the data-quality
 * findings, docs/insights.md): bytes below zero; a time not finite, a
 * nanosecond or more below zero (-1, "not kept", too), or above what the
 * job's processes had (most: nprocs x run time, 0 when not known). */
static bool bytes_plausible(int64_t b)
{
	return b >= 0;
}

static bool time_plausible(double t, double most)
{
	return isfinite(t) && t > -1e-9 && !(most > 0 && t > most);
}

/* A log's row of a file added to its entry, leaving out what is
 * implausible (and counting it). */
static void add_row_plausible(struct lf_entry *e, const dfs_file_row *row, bool timed,
                              double most)
{
	bool br = bytes_plausible(row->bytes_read), bw = bytes_plausible(row->bytes_written);
	if (br)
		e->bytes_read = add_i(e->bytes_read, row->bytes_read);
	if (bw)
		e->bytes_written = add_i(e->bytes_written, row->bytes_written);
	if (br && bw)
		e->total_bytes = add_i(e->total_bytes, row->total_bytes);
	e->left_out += !br + !bw + !(br && bw);
	e->reads = add_i(e->reads, row->reads);
	e->writes = add_i(e->writes, row->writes);
	const double *t[4] = {&row->time_by_slowest, &row->read_time, &row->write_time,
	                      &row->meta_time};
	double *sum[4] = {&e->time_by_slowest, &e->read_time, &e->write_time, &e->meta_time};
	for (int k = timed ? 0 : 1; k < 4; k++) {
		if (time_plausible(*t[k], most))
			*sum[k] += *t[k];
		else
			e->left_out++;
	}
}

struct lf_error {
	int module;                /* -1: the whole log */
	uint32_t why, why_len;
};

struct dfs_log_files {
	struct lf_entry *e;
	size_t n, cap;
	struct lf_error *err;
	size_t nerr, err_cap;
	dfs_buf text;
};

dfs_log_files *dfs_log_files_new(void)
{
	dfs_log_files *lf = calloc(1, sizeof(*lf));
	if (lf)
		dfs_buf_init(&lf->text);
	return lf;
}

void dfs_log_files_free(dfs_log_files *lf)
{
	if (!lf)
		return;
	free(lf->e);
	free(lf->err);
	dfs_buf_free(&lf->text);
	free(lf);
}

size_t dfs_log_files_count(const dfs_log_files *lf)
{
	return lf ? lf->n : 0;
}

size_t dfs_log_files_memory(const dfs_log_files *lf)
{
	if (!lf)
		return 0;
	return sizeof(*lf) + lf->cap * sizeof(*lf->e) + lf->err_cap * sizeof(*lf->err) +
	       lf->text.cap;
}

/* Text appended to b: its offset, or -1 (out of memory, or past 4 GiB). */
static int64_t add_text(dfs_buf *b, const char *s, size_t len)
{
	size_t at = b->len;
	if (at + len >= UINT32_MAX)
		return -1;
	dfs_buf_add(b, s, len);
	return dfs_buf_ok(b) ? (int64_t)at : -1;
}

int dfs_log_files_error(dfs_log_files *lf, int module, const char *why)
{
	if (lf->nerr == lf->err_cap) {
		size_t c = lf->err_cap ? lf->err_cap * 2 : 4;
		struct lf_error *g = realloc(lf->err, c * sizeof(*g));
		if (!g)
			return -1;
		lf->err = g;
		lf->err_cap = c;
	}
	/* (with its NUL: dfs_log_files_error_at hands it out as a string) */
	int64_t at = add_text(&lf->text, why, strlen(why) + 1);
	if (at < 0)
		return -1;
	lf->err[lf->nerr++] = (struct lf_error){module, (uint32_t)at, (uint32_t)strlen(why)};
	return 0;
}

static bool text_is(const dfs_buf *b, uint32_t off, uint32_t len, const char *s,
                    size_t slen)
{
	return len == slen && memcmp(b->data + off, s, slen) == 0;
}

/* The slot of (module, name) in m: the map keys on the name's hash, and
 * names whose hashes agree are told apart by a salt in the second key. */
typedef bool (*same_name_fn)(const void *ctx, uint32_t row, const char *s, size_t len);

static int find_name(struct map *m, int module, const char *s, size_t len,
                     uint32_t next, same_name_fn same, const void *ctx,
                     uint32_t *row, bool *created)
{
	uint64_t h = dfs_fnv1a(DFS_FNV1A_INIT, s, len);
	for (uint64_t salt = 0;; salt++) {
		if (map_get(m, h, (uint64_t)module | (salt << 8), next, row, created))
			return -1;
		if (*created || same(ctx, *row, s, len))
			return 0;
	}
}

static bool lf_same(const void *ctx, uint32_t row, const char *s, size_t len)
{
	const dfs_log_files *lf = ctx;
	return text_is(&lf->text, lf->e[row].name, lf->e[row].name_len, s, len);
}

int dfs_log_files_add(dfs_log_files *lf, const dfs_file_table *t)
{
	struct map names;
	if (map_init(&names, t->n, NULL))
		return -1;
	int module = t->records->module->id;
	const dfs_job *job = dfs_log_job(t->log);
	double most = job->nprocs > 0 && isfinite(job->run_time) && job->run_time > 0
	              ? (double)job->nprocs * job->run_time : 0;
	const char *last_mount = NULL;
	uint32_t mount = 0, mount_len = 0, fs = 0, fs_len = 0;
	int ret = 0;
	for (size_t k = 0; k < t->n && ret == 0; k++) {
		const dfs_file_row *row = dfs_file_table_row(t, k);
		dfs_record_place pl;
		row_place(t, row, NULL, &pl);
		uint32_t x;
		bool created;
		if (find_name(&names, module, pl.name, pl.name_len, (uint32_t)lf->n, lf_same,
		              lf, &x, &created)) {
			ret = -1;
			break;
		}
		if (created) {
			if (lf->n == lf->cap) {
				size_t c = lf->cap ? lf->cap * 2 : 16;
				struct lf_entry *g = realloc(lf->e, c * sizeof(*g));
				if (!g) {
					ret = -1;
					break;
				}
				lf->e = g;
				lf->cap = c;
			}
			/* mount points repeat: the text of the last one is reused */
			if (pl.mount != last_mount || !last_mount) {
				int64_t a = add_text(&lf->text, pl.mount, pl.mount_len);
				int64_t b = add_text(&lf->text, pl.fs_type, pl.fs_type_len);
				if (a < 0 || b < 0) {
					ret = -1;
					break;
				}
				last_mount = pl.mount;
				mount = (uint32_t)a;
				mount_len = (uint32_t)pl.mount_len;
				fs = (uint32_t)b;
				fs_len = (uint32_t)pl.fs_type_len;
			}
			int64_t at = add_text(&lf->text, pl.name, pl.name_len);
			if (at < 0) {
				ret = -1;
				break;
			}
			lf->e[lf->n++] = (struct lf_entry){
				.name = (uint32_t)at, .name_len = (uint32_t)pl.name_len,
				.mount = mount, .mount_len = mount_len, .fs = fs, .fs_len = fs_len,
				.module = module, .timed = t->timed};
		}
		add_row_plausible(&lf->e[x], row, t->timed, most);
	}
	map_free(&names);
	return ret;
}

void dfs_log_files_get(const dfs_log_files *lf, size_t i, dfs_log_file *out)
{
	const struct lf_entry *e = &lf->e[i];
	*out = (dfs_log_file){
		.module = e->module, .timed = e->timed,
		.name = lf->text.data + e->name, .name_len = e->name_len,
		.mount_pt = lf->text.data + e->mount, .mount_len = e->mount_len,
		.fs_type = lf->text.data + e->fs, .fs_len = e->fs_len,
		.bytes_read = e->bytes_read, .bytes_written = e->bytes_written,
		.reads = e->reads, .writes = e->writes, .total_bytes = e->total_bytes,
		.time_by_slowest = e->time_by_slowest, .read_time = e->read_time,
		.write_time = e->write_time, .meta_time = e->meta_time, .left_out = e->left_out};
}

int dfs_log_files_put(dfs_log_files *lf, const dfs_log_file *f)
{
	if (lf->n == lf->cap) {
		size_t c = lf->cap ? lf->cap * 2 : 16;
		struct lf_entry *g = realloc(lf->e, c * sizeof(*g));
		if (!g)
			return -1;
		lf->e = g;
		lf->cap = c;
	}
	int64_t a = add_text(&lf->text, f->name, f->name_len);
	int64_t b = add_text(&lf->text, f->mount_pt, f->mount_len);
	int64_t c = add_text(&lf->text, f->fs_type, f->fs_len);
	if (a < 0 || b < 0 || c < 0)
		return -1;
	lf->e[lf->n++] = (struct lf_entry){
		.name = (uint32_t)a, .name_len = (uint32_t)f->name_len,
		.mount = (uint32_t)b, .mount_len = (uint32_t)f->mount_len,
		.fs = (uint32_t)c, .fs_len = (uint32_t)f->fs_len,
		.module = f->module, .timed = f->timed,
		.bytes_read = f->bytes_read, .bytes_written = f->bytes_written,
		.reads = f->reads, .writes = f->writes, .total_bytes = f->total_bytes,
		.time_by_slowest = f->time_by_slowest, .read_time = f->read_time,
		.write_time = f->write_time, .meta_time = f->meta_time, .left_out = f->left_out};
	return 0;
}

size_t dfs_log_files_errors(const dfs_log_files *lf)
{
	return lf ? lf->nerr : 0;
}

const char *dfs_log_files_error_at(const dfs_log_files *lf, size_t i, int *module)
{
	if (!lf || i >= lf->nerr)
		return NULL;
	*module = lf->err[i].module;
	return lf->text.data + lf->err[i].why;
}

/* ---- the merge over logs ----------------------------------------------------- */

struct fm_entry {
	uint32_t name, name_len, mount, mount_len, fs, fs_len;   /* in fm->text */
	int module;
	bool timed;                 /* some job's numbers have times */
	int64_t jobs;
	int64_t bytes_read, bytes_written, reads, writes, total_bytes;
	double time_by_slowest, read_time, write_time, meta_time;
	int64_t left_out;           /* implausible values the logs had, not summed */
	uint32_t first_log, last_log;
};

struct fm_log {
	uint32_t path, path_len;    /* in fm->text */
	int64_t start;
};

struct fm_skip {
	uint32_t log;
	int module;                 /* -1: the whole log */
	uint32_t why, why_len;      /* in fm->text */
};

struct dfs_files_merge {
	size_t limit;
	struct fm_entry *e;
	size_t n, cap;
	struct fm_log *logs;
	size_t nlogs, logs_cap;
	struct fm_skip *skips;
	size_t nskips, skips_cap;
	struct map names;
	dfs_buf text;
};

dfs_files_merge *dfs_files_merge_new(size_t limit)
{
	dfs_files_merge *fm = calloc(1, sizeof(*fm));
	if (!fm)
		return NULL;
	fm->limit = limit;
	dfs_buf_init(&fm->text);
	if (map_init(&fm->names, 1024, NULL)) {
		free(fm);
		return NULL;
	}
	return fm;
}

void dfs_files_merge_free(dfs_files_merge *fm)
{
	if (!fm)
		return;
	free(fm->e);
	free(fm->logs);
	free(fm->skips);
	map_free(&fm->names);
	dfs_buf_free(&fm->text);
	free(fm);
}

size_t dfs_files_merge_memory(const dfs_files_merge *fm)
{
	return sizeof(*fm) + fm->cap * sizeof(*fm->e) + fm->logs_cap * sizeof(*fm->logs) +
	       fm->skips_cap * sizeof(*fm->skips) + fm->names.cap * sizeof(struct slot) +
	       fm->text.cap;
}

static int grow(void **p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 64;
	void *g = realloc(*p, c * size);
	if (!g)
		return -1;
	*p = g;
	*cap = c;
	return 0;
}

static int merge_oom(dfs_error *err)
{
	return dfs_error_set(err, DFS_ERR_NOMEM, "files.csv: out of memory");
}

static int over_limit(const dfs_files_merge *fm, dfs_error *err)
{
	return dfs_error_set(err, DFS_ERR_TOOBIG,
	                     "files.csv: %zu distinct files need more than the %zu "
	                     "bytes of cache_size; read the files.csv of a "
	                     "directory further down, or mount with a larger "
	                     "cache_size", fm->n, fm->limit);
}

static int add_log(dfs_files_merge *fm, const char *log, int64_t start,
                   uint32_t *at)
{
	if (grow((void **)&fm->logs, &fm->logs_cap, fm->nlogs, sizeof(*fm->logs)))
		return -1;
	int64_t p = add_text(&fm->text, log, strlen(log));
	if (p < 0)
		return -1;
	*at = (uint32_t)fm->nlogs;
	fm->logs[fm->nlogs++] = (struct fm_log){(uint32_t)p, (uint32_t)strlen(log), start};
	return 0;
}

static int add_skip(dfs_files_merge *fm, uint32_t log, int module, const char *why,
                    size_t len)
{
	if (grow((void **)&fm->skips, &fm->skips_cap, fm->nskips, sizeof(*fm->skips)))
		return -1;
	int64_t p = add_text(&fm->text, why, len);
	if (p < 0)
		return -1;
	fm->skips[fm->nskips++] = (struct fm_skip){log, module, (uint32_t)p, (uint32_t)len};
	return 0;
}

int dfs_files_merge_skip(dfs_files_merge *fm, const char *log, const char *why,
                         dfs_error *err)
{
	uint32_t at;
	if (add_log(fm, log, 0, &at) || add_skip(fm, at, -1, why, strlen(why)))
		return merge_oom(err);
	return 0;
}

static bool fm_same(const void *ctx, uint32_t row, const char *s, size_t len)
{
	const dfs_files_merge *fm = ctx;
	return text_is(&fm->text, fm->e[row].name, fm->e[row].name_len, s, len);
}

int dfs_files_merge_add(dfs_files_merge *fm, const char *log, int64_t start,
                        const dfs_log_files *lf, dfs_error *err)
{
	uint32_t at;
	if (add_log(fm, log, start, &at))
		return merge_oom(err);
	for (size_t k = 0; k < lf->nerr; k++)
		if (add_skip(fm, at, lf->err[k].module, lf->text.data + lf->err[k].why,
		             lf->err[k].why_len))
			return merge_oom(err);
	for (size_t k = 0; k < lf->n; k++) {
		const struct lf_entry *le = &lf->e[k];
		const char *name = lf->text.data + le->name;
		uint32_t x;
		bool created;
		if (find_name(&fm->names, le->module, name, le->name_len, (uint32_t)fm->n,
		              fm_same, fm, &x, &created))
			return merge_oom(err);
		if (created) {
			int64_t a = -1, b = -1, c = -1;
			if (!grow((void **)&fm->e, &fm->cap, fm->n, sizeof(*fm->e))) {
				a = add_text(&fm->text, name, le->name_len);
				b = add_text(&fm->text, lf->text.data + le->mount, le->mount_len);
				c = add_text(&fm->text, lf->text.data + le->fs, le->fs_len);
			}
			if (a < 0 || b < 0 || c < 0) {
				/* (the map holds the new row: the merge is of no use now) */
				return merge_oom(err);
			}
			fm->e[fm->n++] = (struct fm_entry){
				.name = (uint32_t)a, .name_len = le->name_len,
				.mount = (uint32_t)b, .mount_len = le->mount_len,
				.fs = (uint32_t)c, .fs_len = le->fs_len,
				.module = le->module, .first_log = at, .last_log = at};
		}
		struct fm_entry *e = &fm->e[x];
		e->jobs++;
		e->bytes_read = add_i(e->bytes_read, le->bytes_read);
		e->bytes_written = add_i(e->bytes_written, le->bytes_written);
		e->reads = add_i(e->reads, le->reads);
		e->writes = add_i(e->writes, le->writes);
		e->total_bytes = add_i(e->total_bytes, le->total_bytes);
		if (le->timed) {
			e->timed = true;
			e->time_by_slowest += le->time_by_slowest;
		}
		e->read_time += le->read_time;
		e->write_time += le->write_time;
		e->meta_time += le->meta_time;
		e->left_out += le->left_out;
		/* the earliest start (the first of equals), the latest (the last) */
		if (start < fm->logs[e->first_log].start)
			e->first_log = at;
		if (start >= fm->logs[e->last_log].start)
			e->last_log = at;
	}
	if (fm->limit && dfs_files_merge_memory(fm) > fm->limit)
		return over_limit(fm, err);
	return 0;
}

static const char dir_header[] =
	"module,file_name,jobs,bytes_read,bytes_written,reads,writes,total_bytes,"
	"time_by_slowest,perf_by_slowest,read_time,write_time,meta_time,first_job,"
	"first_start,last_job,last_start,mount_pt,fs_type,error,left_out\n";

static void add_text_field(dfs_buf *out, const dfs_buf *text, uint32_t off, uint32_t len)
{
	dfs_csv_field(out, text->data + off, len);
}

static const char *module_name(int id)
{
	const dfs_module *m = id >= 0 ? dfs_module_get(id) : NULL;
	return m ? m->name : "";
}

int dfs_files_merge_render(dfs_files_merge *fm, dfs_buf *out, dfs_error *err)
{
	size_t n = fm->n;
	uint64_t *key = malloc((n ? n : 1) * sizeof(uint64_t));
	uint32_t *order = malloc((n ? n : 1) * sizeof(uint32_t));
	if (!key || !order) {
		free(key);
		free(order);
		return merge_oom(err);
	}
	for (size_t k = 0; k < n; k++)
		key[k] = order_key(fm->e[k].total_bytes);
	if (n > 0 && sort_desc(key, order, n)) {
		free(key);
		free(order);
		return merge_oom(err);
	}
	free(key);
	dfs_buf_add(out, dir_header, sizeof(dir_header) - 1);
	for (size_t k = 0; k < n && dfs_buf_ok(out); k++) {
		const struct fm_entry *e = &fm->e[order[k]];
		const struct fm_log *first = &fm->logs[e->first_log], *last = &fm->logs[e->last_log];
		dfs_buf_adds(out, module_name(e->module));
		dfs_buf_addc(out, ',');
		add_text_field(out, &fm->text, e->name, e->name_len);
		add_sep_i(out, e->jobs);
		add_sep_i(out, e->bytes_read);
		add_sep_i(out, e->bytes_written);
		add_sep_i(out, e->reads);
		add_sep_i(out, e->writes);
		add_sep_i(out, e->total_bytes);
		if (e->timed) {
			add_sep_d(out, e->time_by_slowest);
			add_sep_d(out, e->time_by_slowest != 0
			                       ? ((double)e->total_bytes / 1048576.0) / e->time_by_slowest
			                       : 0.0);
		} else {
			dfs_buf_adds(out, ",,");
		}
		add_sep_d(out, e->read_time);
		add_sep_d(out, e->write_time);
		add_sep_d(out, e->meta_time);
		dfs_buf_addc(out, ',');
		add_text_field(out, &fm->text, first->path, first->path_len);
		add_sep_i(out, first->start);
		dfs_buf_addc(out, ',');
		add_text_field(out, &fm->text, last->path, last->path_len);
		add_sep_i(out, last->start);
		dfs_buf_addc(out, ',');
		add_text_field(out, &fm->text, e->mount, e->mount_len);
		dfs_buf_addc(out, ',');
		add_text_field(out, &fm->text, e->fs, e->fs_len);
		dfs_buf_addc(out, ',');
		add_sep_i(out, e->left_out);
		dfs_buf_addc(out, '\n');
	}
	free(order);
	/* the logs, or modules of logs, left out: the log in first_job and
	 * last_job, why in error */
	for (size_t k = 0; k < fm->nskips && dfs_buf_ok(out); k++) {
		const struct fm_skip *s = &fm->skips[k];
		const struct fm_log *l = &fm->logs[s->log];
		dfs_buf_adds(out, module_name(s->module));
		dfs_buf_adds(out, ",,,,,,,,,,,,,");
		add_text_field(out, &fm->text, l->path, l->path_len);
		dfs_buf_adds(out, ",,");
		add_text_field(out, &fm->text, l->path, l->path_len);
		dfs_buf_adds(out, ",,,,");
		add_text_field(out, &fm->text, s->why, s->why_len);
		dfs_buf_adds(out, ",\n");
	}
	if (!dfs_buf_ok(out))
		return merge_oom(err);
	return 0;
}
