/* aggregate.c - darshan-parser's --total aggregation: one rule table per
 * accumulable module and the functions that apply a table to a record.
 *
 * The summation record that --total prints is built by folding every
 * record into a zero-filled aggregate with per-counter rules (format doc
 * §5 tables, §7).  The rules are kept as data, one entry per counter index,
 * so the tables can be checked line by line against the counter tables of
 * the format document.  Every quirk of upstream is reproduced on purpose:
 * MAX starts from 0, MPI-IO and STDIO sums are not clamped, DAOS_NB_OPS is
 * never written, the common-value merge uses a 32-bit total and does not
 * re-sort, and the fastest/slowest fields collapse to -1/-1/0.0 as soon as
 * two record ids have been seen. */
#include <string.h>

#include "accum/aggregate.h"
#include "darshanfs/module.h"

/* short names for the tables below */
enum {
	S = DFS_AGG_SUM,
	SC = DFS_AGG_SUM_CLAMP,
	L = DFS_AGG_LAST,
	MX = DFS_AGG_MAX,
	MN = DFS_AGG_MIN_POSITIVE,
	Z = DFS_AGG_ZERO,
	U = DFS_AGG_UNTOUCHED,
	CV = DFS_AGG_COMMON,
	BF = DFS_AGG_BY_FLOAT,
	MC = DFS_AGG_MAX_CARRY,
	FA = DFS_AGG_FASTEST,
	SL = DFS_AGG_SLOWEST,
};

/* ---- POSIX (69 integers, 17 floats) ------------------------------------ */

static const uint8_t posix_int_rules[69] = {
	/*  0 OPENS .. 11 RENAME_TARGETS */
	SC, SC, SC, SC, SC, SC, SC, SC, SC, SC, SC, SC,
	/* 12 RENAMED_FROM, 13 MODE */
	L, L,
	/* 14 BYTES_READ, 15 BYTES_WRITTEN */
	SC, SC,
	/* 16 MAX_BYTE_READ, 17 MAX_BYTE_WRITTEN */
	MX, MX,
	/* 18 CONSEC_READS .. 23 MEM_NOT_ALIGNED */
	SC, SC, SC, SC, SC, SC,
	/* 24 MEM_ALIGNMENT, 25 FILE_NOT_ALIGNED, 26 FILE_ALIGNMENT */
	L, SC, L,
	/* 27 MAX_READ_TIME_SIZE, 28 MAX_WRITE_TIME_SIZE */
	BF, BF,
	/* 29 SIZE_READ_0_100 .. 48 SIZE_WRITE_1G_PLUS */
	SC, SC, SC, SC, SC, SC, SC, SC, SC, SC,
	SC, SC, SC, SC, SC, SC, SC, SC, SC, SC,
	/* 49 STRIDE1_STRIDE .. 56 STRIDE4_COUNT */
	CV, CV, CV, CV, CV, CV, CV, CV,
	/* 57 ACCESS1_ACCESS .. 64 ACCESS4_COUNT */
	CV, CV, CV, CV, CV, CV, CV, CV,
	/* 65 FASTEST_RANK .. 68 SLOWEST_RANK_BYTES */
	BF, BF, BF, BF,
};

static const uint8_t posix_float_rules[17] = {
	/*  0 OPEN_START .. 3 CLOSE_START timestamps */
	MN, MN, MN, MN,
	/*  4 OPEN_END .. 7 CLOSE_END timestamps */
	MX, MX, MX, MX,
	/*  8 READ_TIME, 9 WRITE_TIME, 10 META_TIME */
	S, S, S,
	/* 11 MAX_READ_TIME, 12 MAX_WRITE_TIME */
	MC, MC,
	/* 13 FASTEST_RANK_TIME, 14 SLOWEST_RANK_TIME */
	FA, SL,
	/* 15 VARIANCE_RANK_TIME, 16 VARIANCE_RANK_BYTES */
	Z, Z,
};

static const dfs_agg_carry posix_carries[] = {{11, 27}, {12, 28}};
static const dfs_agg_common posix_commons[] = {
	{49, 53, false}, /* STRIDE */
	{57, 61, false}, /* ACCESS */
};

/* ---- MPI-IO (51 integers, 17 floats) ----------------------------------- */

static const uint8_t mpiio_int_rules[51] = {
	/*  0 INDEP_OPENS .. 12 VIEWS */
	S, S, S, S, S, S, S, S, S, S, S, S, S,
	/* 13 MODE */
	L,
	/* 14 BYTES_READ, 15 BYTES_WRITTEN, 16 RW_SWITCHES */
	S, S, S,
	/* 17 MAX_READ_TIME_SIZE, 18 MAX_WRITE_TIME_SIZE */
	BF, BF,
	/* 19 SIZE_READ_AGG_0_100 .. 38 SIZE_WRITE_AGG_1G_PLUS */
	S, S, S, S, S, S, S, S, S, S,
	S, S, S, S, S, S, S, S, S, S,
	/* 39 ACCESS1_ACCESS .. 46 ACCESS4_COUNT */
	CV, CV, CV, CV, CV, CV, CV, CV,
	/* 47 FASTEST_RANK .. 50 SLOWEST_RANK_BYTES */
	BF, BF, BF, BF,
};

/* same float layout and rules as POSIX */
static const uint8_t mpiio_float_rules[17] = {
	MN, MN, MN, MN, MX, MX, MX, MX, S, S, S, MC, MC, FA, SL, Z, Z,
};

static const dfs_agg_carry mpiio_carries[] = {{11, 17}, {12, 18}};
static const dfs_agg_common mpiio_commons[] = {{39, 43, true}};

/* ---- STDIO (14 integers, 15 floats) ------------------------------------ */

static const uint8_t stdio_int_rules[14] = {
	/*  0 OPENS .. 7 BYTES_READ */
	S, S, S, S, S, S, S, S,
	/*  8 MAX_BYTE_READ, 9 MAX_BYTE_WRITTEN */
	MX, MX,
	/* 10 FASTEST_RANK .. 13 SLOWEST_RANK_BYTES */
	BF, BF, BF, BF,
};

static const uint8_t stdio_float_rules[15] = {
	/*  0 META_TIME, 1 WRITE_TIME, 2 READ_TIME */
	S, S, S,
	/*  3 OPEN_START .. 6 READ_START timestamps */
	MN, MN, MN, MN,
	/*  7 OPEN_END .. 10 READ_END timestamps */
	MX, MX, MX, MX,
	/* 11 FASTEST_RANK_TIME, 12 SLOWEST_RANK_TIME */
	FA, SL,
	/* 13 VARIANCE_RANK_TIME, 14 VARIANCE_RANK_BYTES */
	Z, Z,
};

/* ---- DFS (52 integers, 15 floats) -------------------------------------- */

static const uint8_t dfs_int_rules[52] = {
	/*  0 OPENS .. 16 RW_SWITCHES */
	SC, SC, SC, SC, SC, SC, SC, SC, SC, SC, SC, SC, SC, SC, SC, SC, SC,
	/* 17 MAX_READ_TIME_SIZE, 18 MAX_WRITE_TIME_SIZE */
	BF, BF,
	/* 19 SIZE_READ_0_100 .. 38 SIZE_WRITE_1G_PLUS */
	SC, SC, SC, SC, SC, SC, SC, SC, SC, SC,
	SC, SC, SC, SC, SC, SC, SC, SC, SC, SC,
	/* 39 ACCESS1_ACCESS .. 46 ACCESS4_COUNT */
	CV, CV, CV, CV, CV, CV, CV, CV,
	/* 47 CHUNK_SIZE */
	L,
	/* 48 FASTEST_RANK .. 51 SLOWEST_RANK_BYTES */
	BF, BF, BF, BF,
};

/* DFS and DAOS: timestamps, times, max times, fastest/slowest; no variance */
static const uint8_t daos_float_rules[15] = {
	MN, MN, MN, MN, MX, MX, MX, MX, S, S, S, MC, MC, FA, SL,
};

static const dfs_agg_carry dfs_carries[] = {{11, 17}, {12, 18}};
static const dfs_agg_common dfs_commons[] = {{39, 43, false}};

/* ---- DAOS (64 integers, 15 floats) ------------------------------------- */

static const uint8_t daos_int_rules[64] = {
	/*  0 OBJ_OPENS .. 22 KV_DESTROYS */
	SC, SC, SC, SC, SC, SC, SC, SC, SC, SC, SC, SC,
	SC, SC, SC, SC, SC, SC, SC, SC, SC, SC, SC,
	/* 23 NB_OPS: upstream never aggregates it */
	U,
	/* 24 BYTES_READ, 25 BYTES_WRITTEN, 26 RW_SWITCHES */
	SC, SC, SC,
	/* 27 MAX_READ_TIME_SIZE, 28 MAX_WRITE_TIME_SIZE */
	BF, BF,
	/* 29 SIZE_READ_0_100 .. 48 SIZE_WRITE_1G_PLUS */
	SC, SC, SC, SC, SC, SC, SC, SC, SC, SC,
	SC, SC, SC, SC, SC, SC, SC, SC, SC, SC,
	/* 49 ACCESS1_ACCESS .. 56 ACCESS4_COUNT */
	CV, CV, CV, CV, CV, CV, CV, CV,
	/* 57 OBJ_OTYPE, 58 ARRAY_CELL_SIZE, 59 ARRAY_CHUNK_SIZE */
	L, L, L,
	/* 60 FASTEST_RANK .. 63 SLOWEST_RANK_BYTES */
	BF, BF, BF, BF,
};

static const dfs_agg_carry daos_carries[] = {{11, 27}, {12, 28}};
static const dfs_agg_common daos_commons[] = {{49, 53, false}};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const dfs_agg_table tables[] = {
	{
		.module_id = DFS_MOD_POSIX,
		.n_int = N(posix_int_rules), .n_float = N(posix_float_rules),
		.int_rules = posix_int_rules, .float_rules = posix_float_rules,
		.bytes_read = 14, .bytes_written = 15,
		.max_byte_read = 16, .max_byte_written = 17,
		.f_read_time = 8, .f_write_time = 9, .f_meta_time = 10,
		.fastest_rank = 65, .fastest_rank_bytes = 66,
		.slowest_rank = 67, .slowest_rank_bytes = 68,
		.f_fastest_rank_time = 13, .f_slowest_rank_time = 14,
		.carries = posix_carries, .n_carries = N(posix_carries),
		.commons = posix_commons, .n_commons = N(posix_commons),
	},
	{
		.module_id = DFS_MOD_MPIIO,
		.n_int = N(mpiio_int_rules), .n_float = N(mpiio_float_rules),
		.int_rules = mpiio_int_rules, .float_rules = mpiio_float_rules,
		.bytes_read = 14, .bytes_written = 15,
		.max_byte_read = -1, .max_byte_written = -1,
		.f_read_time = 8, .f_write_time = 9, .f_meta_time = 10,
		.fastest_rank = 47, .fastest_rank_bytes = 48,
		.slowest_rank = 49, .slowest_rank_bytes = 50,
		.f_fastest_rank_time = 13, .f_slowest_rank_time = 14,
		.carries = mpiio_carries, .n_carries = N(mpiio_carries),
		.commons = mpiio_commons, .n_commons = N(mpiio_commons),
	},
	{
		.module_id = DFS_MOD_STDIO,
		.n_int = N(stdio_int_rules), .n_float = N(stdio_float_rules),
		.int_rules = stdio_int_rules, .float_rules = stdio_float_rules,
		.bytes_read = 7, .bytes_written = 6,
		.max_byte_read = 8, .max_byte_written = 9,
		.f_read_time = 2, .f_write_time = 1, .f_meta_time = 0,
		.fastest_rank = 10, .fastest_rank_bytes = 11,
		.slowest_rank = 12, .slowest_rank_bytes = 13,
		.f_fastest_rank_time = 11, .f_slowest_rank_time = 12,
	},
	{
		.module_id = DFS_MOD_DFS,
		.n_int = N(dfs_int_rules), .n_float = N(daos_float_rules),
		.int_rules = dfs_int_rules, .float_rules = daos_float_rules,
		.bytes_read = 14, .bytes_written = 15,
		.max_byte_read = -1, .max_byte_written = -1,
		.f_read_time = 8, .f_write_time = 9, .f_meta_time = 10,
		.fastest_rank = 48, .fastest_rank_bytes = 49,
		.slowest_rank = 50, .slowest_rank_bytes = 51,
		.f_fastest_rank_time = 13, .f_slowest_rank_time = 14,
		.carries = dfs_carries, .n_carries = N(dfs_carries),
		.commons = dfs_commons, .n_commons = N(dfs_commons),
	},
	{
		.module_id = DFS_MOD_DAOS,
		.n_int = N(daos_int_rules), .n_float = N(daos_float_rules),
		.int_rules = daos_int_rules, .float_rules = daos_float_rules,
		.bytes_read = 24, .bytes_written = 25,
		.max_byte_read = -1, .max_byte_written = -1,
		.f_read_time = 8, .f_write_time = 9, .f_meta_time = 10,
		.fastest_rank = 60, .fastest_rank_bytes = 61,
		.slowest_rank = 62, .slowest_rank_bytes = 63,
		.f_fastest_rank_time = 13, .f_slowest_rank_time = 14,
		.carries = daos_carries, .n_carries = N(daos_carries),
		.commons = daos_commons, .n_commons = N(daos_commons),
	},
};

const dfs_agg_table *dfs_agg_table_for(int module_id)
{
	for (size_t i = 0; i < N(tables); i++)
		if (tables[i].module_id == module_id)
			return &tables[i];
	return NULL;
}

/* ---- the rules ----------------------------------------------------------- */

/* The record's own total time as a fastest/slowest candidate. */
static double candidate_time(const dfs_agg_table *t, const dfs_agg_input *rec)
{
	return dfs_agg_in_f(rec, t->f_read_time) + dfs_agg_in_f(rec, t->f_write_time) +
	       dfs_agg_in_f(rec, t->f_meta_time);
}

/* §7.4 for one side: `rank_idx`/`bytes_idx` are the integer counters,
 * `time_idx` the float; `faster` selects "<" (fastest) or ">" (slowest). */
static void merge_extreme(const dfs_agg_table *t, dfs_agg_record *agg,
                          const dfs_agg_input *rec, bool first,
                          bool same_file, int rank_idx, int bytes_idx,
                          int time_idx, bool faster)
{
	if (!same_file) {
		agg->i[rank_idx] = -1;
		agg->i[bytes_idx] = -1;
		agg->f[time_idx] = 0.0;
		return;
	}
	int64_t rank, bytes;
	double time;
	if (rec->rank == -1) {
		rank = dfs_agg_in_i(rec, rank_idx);
		bytes = dfs_agg_in_i(rec, bytes_idx);
		time = dfs_agg_in_f(rec, time_idx);
	} else {
		rank = rec->rank;
		bytes = dfs_agg_add(dfs_agg_in_i(rec, t->bytes_read),
		                    dfs_agg_in_i(rec, t->bytes_written));
		time = candidate_time(t, rec);
	}
	bool wins = faster ? time < agg->f[time_idx] : time > agg->f[time_idx];
	if (first || wins) {
		agg->i[rank_idx] = rank;
		agg->i[bytes_idx] = bytes;
		agg->f[time_idx] = time;
	}
}

static void merge_carry(const dfs_agg_table *t, dfs_agg_record *agg,
                        const dfs_agg_input *rec, int f)
{
	double r = dfs_agg_in_f(rec, f);
	if (!(r > agg->f[f]))
		return;
	agg->f[f] = r;
	for (size_t k = 0; k < t->n_carries; k++)
		if (t->carries[k].f_time == f)
			agg->i[t->carries[k].size] = dfs_agg_in_i(rec, t->carries[k].size);
}

/* total = C[k] + c[j] as upstream computes it: in a 32-bit int.  The
 * conversion keeps the low 32 bits (two's complement, as gcc defines it). */
static int64_t int32_total(int64_t x)
{
	return (int32_t)(uint32_t)(uint64_t)x;
}

void dfs_agg_merge_common(int64_t V[4], int64_t C[4], const int64_t v[4],
                          const int64_t c[4])
{
	bool merged[4] = {false, false, false, false};

	/* step 1: every (incoming, aggregate) pair with equal values */
	for (int j = 0; j < 4; j++)
		for (int k = 0; k < 4; k++)
			if (V[k] == v[j]) {
				C[k] = dfs_agg_add(C[k], c[j]);
				merged[j] = true;
			}

	/* step 2: insert the values not merged, in order */
	for (int j = 0; j < 4; j++) {
		if (merged[j])
			continue;
		if (v[j] == 0)
			return;
		int64_t total = int32_total(c[j]);
		for (int k = 0; k < 4; k++)
			if (V[k] == v[j]) {
				total = int32_total(dfs_agg_add(C[k], c[j]));
				break;
			}

		int64_t TV[4], TC[4];
		int n = 0, k = 0;
		for (; k < 4; k++) {
			if (!(C[k] > total || (C[k] == total && V[k] > v[j])))
				break;
			TV[n] = V[k];
			TC[n] = C[k];
			n++;
		}
		if (n == 4)
			return;
		TV[n] = v[j];
		TC[n] = c[j];
		n++;
		for (; k < 4 && n < 4; k++) {
			if (V[k] == v[j])
				continue;
			TV[n] = V[k];
			TC[n] = C[k];
			n++;
		}
		/* fewer than 4 entries cannot happen (4 slots, at most one is
		 * skipped, one is added), but never leave stale slots behind */
		for (; n < 4; n++) {
			TV[n] = 0;
			TC[n] = 0;
		}
		memcpy(V, TV, sizeof(TV));
		memcpy(C, TC, sizeof(TC));
	}
}

void dfs_agg_plan_build(const dfs_agg_table *t, dfs_agg_plan *plan)
{
	memset(plan, 0, sizeof(*plan));
	plan->table = t;
	for (size_t i = 0; i < t->n_int; i++) {
		int rule = t->int_rules[i];
		/* these are written elsewhere or never: no span */
		if (rule == DFS_AGG_UNTOUCHED || rule == DFS_AGG_COMMON ||
		    rule == DFS_AGG_BY_FLOAT)
			continue;
		dfs_agg_span *last = plan->n_int_spans ?
			&plan->int_spans[plan->n_int_spans - 1] : NULL;
		if (last && last->rule == rule && last->first + last->count == i)
			last->count++;
		else
			plan->int_spans[plan->n_int_spans++] =
				(dfs_agg_span){(uint8_t)rule, (uint8_t)i, 1};
	}
	for (size_t f = 0; f < t->n_float; f++) {
		int rule = t->float_rules[f];
		dfs_agg_span *last = plan->n_float_spans ?
			&plan->float_spans[plan->n_float_spans - 1] : NULL;
		if (last && last->rule == rule)
			last->count++;
		else
			plan->float_spans[plan->n_float_spans++] =
				(dfs_agg_span){(uint8_t)rule, (uint8_t)f, 1};
	}
}

static void merge_int_span(dfs_agg_record *agg, const dfs_agg_input *rec,
                           const dfs_agg_span *sp)
{
	int end = sp->first + sp->count;
	switch (sp->rule) {
	case DFS_AGG_SUM:
		for (int i = sp->first; i < end; i++)
			agg->i[i] = dfs_agg_add(agg->i[i], dfs_agg_in_i(rec, i));
		break;
	case DFS_AGG_SUM_CLAMP:
		for (int i = sp->first; i < end; i++) {
			int64_t v = dfs_agg_add(agg->i[i], dfs_agg_in_i(rec, i));
			agg->i[i] = v < 0 ? -1 : v;
		}
		break;
	case DFS_AGG_LAST:
		for (int i = sp->first; i < end; i++)
			agg->i[i] = dfs_agg_in_i(rec, i);
		break;
	case DFS_AGG_MAX:
		for (int i = sp->first; i < end; i++) {
			int64_t r = dfs_agg_in_i(rec, i);
			if (r > agg->i[i])
				agg->i[i] = r;
		}
		break;
	case DFS_AGG_MIN_POSITIVE:
		for (int i = sp->first; i < end; i++) {
			int64_t r = dfs_agg_in_i(rec, i);
			if (r > 0 && (agg->i[i] == 0 || r < agg->i[i]))
				agg->i[i] = r;
		}
		break;
	case DFS_AGG_ZERO:
		for (int i = sp->first; i < end; i++)
			agg->i[i] = 0;
		break;
	default:
		break;
	}
}

static void merge_float_span(const dfs_agg_table *t, dfs_agg_record *agg,
                             const dfs_agg_input *rec, const dfs_agg_span *sp,
                             bool first, bool same_file)
{
	int end = sp->first + sp->count;
	switch (sp->rule) {
	case DFS_AGG_SUM:
	case DFS_AGG_SUM_CLAMP:
		for (int f = sp->first; f < end; f++)
			agg->f[f] += dfs_agg_in_f(rec, f);
		break;
	case DFS_AGG_LAST:
		for (int f = sp->first; f < end; f++)
			agg->f[f] = dfs_agg_in_f(rec, f);
		break;
	case DFS_AGG_MAX:
		for (int f = sp->first; f < end; f++) {
			double r = dfs_agg_in_f(rec, f);
			if (r > agg->f[f])
				agg->f[f] = r;
		}
		break;
	case DFS_AGG_MIN_POSITIVE:
		for (int f = sp->first; f < end; f++) {
			double r = dfs_agg_in_f(rec, f);
			if (r > 0 && (agg->f[f] == 0 || r < agg->f[f]))
				agg->f[f] = r;
		}
		break;
	case DFS_AGG_ZERO:
		for (int f = sp->first; f < end; f++)
			agg->f[f] = 0.0;
		break;
	case DFS_AGG_MAX_CARRY:
		for (int f = sp->first; f < end; f++)
			merge_carry(t, agg, rec, f);
		break;
	case DFS_AGG_FASTEST:
		for (int f = sp->first; f < end; f++)
			merge_extreme(t, agg, rec, first, same_file, t->fastest_rank,
			              t->fastest_rank_bytes, f, true);
		break;
	case DFS_AGG_SLOWEST:
		for (int f = sp->first; f < end; f++)
			merge_extreme(t, agg, rec, first, same_file, t->slowest_rank,
			              t->slowest_rank_bytes, f, false);
		break;
	default:
		break;
	}
}

void dfs_agg_merge(const dfs_agg_plan *plan, dfs_agg_record *agg,
                   const dfs_agg_input *rec, bool first)
{
	const dfs_agg_table *t = plan->table;
	if (first) {
		agg->id = rec->id;
		agg->rank = rec->rank;
	}
	bool same_file = agg->id == rec->id;
	if (!same_file)
		agg->id = 0;
	if (agg->rank != rec->rank)
		agg->rank = -1;

	/* integers in index order, then floats in index order; the groups
	 * touch only their own eight counters, so running them after the
	 * other integers is the same as running them in place */
	for (size_t s = 0; s < plan->n_int_spans; s++)
		merge_int_span(agg, rec, &plan->int_spans[s]);
	for (size_t g = 0; g < t->n_commons; g++) {
		const dfs_agg_common *cg = &t->commons[g];
		int64_t v[4], c[4];
		for (int k = 0; k < 4; k++) {
			v[k] = dfs_agg_in_i(rec, cg->value_idx + k);
			c[k] = dfs_agg_in_i(rec, cg->count_idx + k);
		}
		if (cg->skip_if_first_zero && v[0] == 0)
			continue;
		/* an all-zero list merges nothing: zero counts are added to
		 * the empty slots, then the first zero value ends step 2 */
		if (!(v[0] | v[1] | v[2] | v[3] | c[0] | c[1] | c[2] | c[3]))
			continue;
		dfs_agg_merge_common(&agg->i[cg->value_idx], &agg->i[cg->count_idx], v, c);
	}
	for (size_t s = 0; s < plan->n_float_spans; s++)
		merge_float_span(t, agg, rec, &plan->float_spans[s], first, same_file);
}
