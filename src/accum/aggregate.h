/* aggregate.h - the accumulator's internal interface between the rule
 * tables of darshan-parser's --total aggregation (aggregate.c) and the
 * accumulator state machine (accum.c).
 *
 * Each accumulable module (POSIX, MPI-IO, STDIO, DFS, DAOS) is described
 * by one dfs_agg_table: a rule per counter index and the indices of the
 * counters the record metrics and the special rules need.  Nothing in the
 * accumulator tests module ids; it reads these tables. */
#ifndef DFS_ACCUM_AGGREGATE_H
#define DFS_ACCUM_AGGREGATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Largest counter arrays of the accumulable modules (POSIX: 69 / 17). */
#define DFS_AGG_MAX_INT 72
#define DFS_AGG_MAX_FLOAT 20

/* How one counter of the summation record is built (format doc §7.2). */
enum dfs_agg_rule {
	DFS_AGG_SUM,          /* agg += rec (wrapping) */
	DFS_AGG_SUM_CLAMP,    /* agg += rec, then a negative agg becomes -1 */
	DFS_AGG_LAST,         /* agg = rec */
	DFS_AGG_MAX,          /* rec > agg: agg = rec (agg starts at 0) */
	DFS_AGG_MIN_POSITIVE, /* rec > 0 and (agg == 0 or rec < agg) */
	DFS_AGG_ZERO,         /* agg = 0 */
	DFS_AGG_UNTOUCHED,    /* never written (DAOS_NB_OPS) */
	DFS_AGG_COMMON,       /* member of a common-value group (§7.3) */
	DFS_AGG_BY_FLOAT,     /* integer written by a float rule below */
	DFS_AGG_MAX_CARRY,    /* float MAX that carries an integer along */
	DFS_AGG_FASTEST,      /* F_FASTEST_RANK_TIME and its two integers */
	DFS_AGG_SLOWEST,      /* F_SLOWEST_RANK_TIME and its two integers */
};

/* A top-4 list of (value, count) pairs: values at value_idx .. +3, counts
 * at count_idx .. +3. */
typedef struct dfs_agg_common {
	int value_idx;
	int count_idx;
	bool skip_if_first_zero; /* MPI-IO: ignore records with ACCESS1 == 0 */
} dfs_agg_common;

/* A float MAX rule whose winner also sets an integer counter. */
typedef struct dfs_agg_carry {
	int f_time; /* F_MAX_READ_TIME / F_MAX_WRITE_TIME */
	int size;   /* MAX_READ_TIME_SIZE / MAX_WRITE_TIME_SIZE */
} dfs_agg_carry;

typedef struct dfs_agg_table {
	int module_id;
	size_t n_int, n_float;
	const uint8_t *int_rules;   /* enum dfs_agg_rule per integer counter */
	const uint8_t *float_rules; /* enum dfs_agg_rule per float counter */

	/* record metrics (§6): integer counter indices */
	int bytes_read, bytes_written;
	int max_byte_read, max_byte_written; /* -1: max_offset is -1 */
	/* float counter indices */
	int f_read_time, f_write_time, f_meta_time;

	/* fastest / slowest rank (§7.4) */
	int fastest_rank, fastest_rank_bytes;
	int slowest_rank, slowest_rank_bytes;
	int f_fastest_rank_time, f_slowest_rank_time;

	const dfs_agg_carry *carries;
	size_t n_carries;
	const dfs_agg_common *commons;
	size_t n_commons;
} dfs_agg_table;

/* A packed record being injected, read in place (no copy). */
typedef struct dfs_agg_input {
	uint64_t id;
	int64_t rank;
	const unsigned char *ints;   /* n_int counters, 8 bytes each */
	const unsigned char *floats; /* n_float counters */
} dfs_agg_input;

static inline int64_t dfs_agg_in_i(const dfs_agg_input *r, int i)
{
	int64_t v;
	memcpy(&v, r->ints + 8 * i, 8);
	return v;
}

static inline double dfs_agg_in_f(const dfs_agg_input *r, int i)
{
	double v;
	memcpy(&v, r->floats + 8 * i, 8);
	return v;
}

/* The summation record being built, unpacked. */
typedef struct dfs_agg_record {
	uint64_t id;
	int64_t rank;
	int64_t i[DFS_AGG_MAX_INT];
	double f[DFS_AGG_MAX_FLOAT];
} dfs_agg_record;

/* The table of a module id, NULL if darshan-util cannot aggregate it. */
const dfs_agg_table *dfs_agg_table_for(int module_id);

/* A run of consecutive counters that share a rule. */
typedef struct dfs_agg_span {
	uint8_t rule;
	uint8_t first;
	uint8_t count;
} dfs_agg_span;

/* A table's rules as runs, built once per accumulator, so merging a record
 * dispatches once per run rather than once per counter.  Integer counters
 * that no integer rule writes (groups, by-float, untouched) have no run. */
typedef struct dfs_agg_plan {
	const dfs_agg_table *table;
	size_t n_int_spans, n_float_spans;
	dfs_agg_span int_spans[DFS_AGG_MAX_INT];
	dfs_agg_span float_spans[DFS_AGG_MAX_FLOAT];
} dfs_agg_plan;

void dfs_agg_plan_build(const dfs_agg_table *t, dfs_agg_plan *plan);

/* Aggregate `rec` into `agg` with darshan-util's rules.  `first` is the
 * "initialise" flag of the first record; `agg` must start zero-filled. */
void dfs_agg_merge(const dfs_agg_plan *plan, dfs_agg_record *agg,
                   const dfs_agg_input *rec, bool first);

/* The 32-bit, non-re-sorting common-value merge of one group (§7.3):
 * V/C are the aggregate's 4 values and counts, v/c the record's. */
void dfs_agg_merge_common(int64_t V[4], int64_t C[4], const int64_t v[4],
                          const int64_t c[4]);

/* Wrapping 64-bit addition: counters hold arbitrary data and signed
 * overflow must not be undefined behaviour. */
static inline int64_t dfs_agg_add(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

#endif
