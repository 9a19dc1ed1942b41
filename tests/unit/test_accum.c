/* test_accum.c - the accumulator: aggregation rules (--total), record
 * metrics, derived metrics (--file, --perf), the combined view, the
 * policies for data darshan-util cannot handle, and the renderers.
 *
 * Hand-made records check each rule of the format document (§6-§8) in
 * isolation, including its worked examples.  The oracle tests then compare
 * against the reference outputs under $DFS_SHARED (default ../shared):
 * darshan-parser's --total/--file/--perf text for every log, and
 * pydarshan's accumulator results (derived metrics and summation record)
 * for four record selections per module.  Without the shared directory
 * those tests are skipped with a message. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "accum/aggregate.h"
#include "common/json.h"
#include "common/shared.h"
#include "darshanfs/accum.h"
#include "darshanfs/log.h"
#include "darshanfs/report.h"
#include "module/pack.h"

/* ---- building records by counter name ------------------------------------ */

typedef struct recs {
	const dfs_module *m;
	unsigned char *data;
	size_t count, cap;
} recs;

static recs recs_new(const char *module, size_t cap)
{
	recs r = {dfs_module_by_name(module), NULL, 0, cap};
	assert_non_null(r.m);
	r.data = calloc(cap, r.m->record_size);
	assert_non_null(r.data);
	return r;
}

static unsigned char *rec_at(const recs *r, size_t i)
{
	return r->data + i * r->m->record_size;
}

/* append a zero record; returns its index */
static size_t rec_add(recs *r, uint64_t id, int64_t rank)
{
	assert_true(r->count < r->cap);
	unsigned char *p = rec_at(r, r->count);
	memcpy(p, &id, 8);
	memcpy(p + 8, &rank, 8);
	return r->count++;
}

static int int_index(const dfs_module *m, const char *name)
{
	for (size_t i = 0; i < m->n_int; i++)
		if (strcmp(m->int_names[i], name) == 0)
			return (int)i;
	return -1;
}

static int float_index(const dfs_module *m, const char *name)
{
	for (size_t i = 0; i < m->n_float; i++)
		if (strcmp(m->float_names[i], name) == 0)
			return (int)i;
	return -1;
}

/* names without the module prefix, e.g. "BYTES_READ" or "F_READ_TIME" */
static int int_idx(const dfs_module *m, const char *suffix)
{
	char name[128];
	snprintf(name, sizeof(name), "%s%s", m->prefix, suffix);
	int i = int_index(m, name);
	if (i < 0)
		fail_msg("no integer counter %s", name);
	return i;
}

static int float_idx(const dfs_module *m, const char *suffix)
{
	char name[128];
	snprintf(name, sizeof(name), "%s%s", m->prefix, suffix);
	int i = float_index(m, name);
	if (i < 0)
		fail_msg("no float counter %s", name);
	return i;
}

static void set_i(const dfs_module *m, unsigned char *rec, const char *suffix,
                  int64_t v)
{
	memcpy(rec + m->int_offset + 8 * int_idx(m, suffix), &v, 8);
}

static void set_f(const dfs_module *m, unsigned char *rec, const char *suffix,
                  double v)
{
	memcpy(rec + m->float_offset + 8 * float_idx(m, suffix), &v, 8);
}

static int64_t get_i(const dfs_module *m, const unsigned char *rec,
                     const char *suffix)
{
	int64_t v;
	memcpy(&v, rec + m->int_offset + 8 * int_idx(m, suffix), 8);
	return v;
}

static double get_f(const dfs_module *m, const unsigned char *rec,
                    const char *suffix)
{
	double v;
	memcpy(&v, rec + m->float_offset + 8 * float_idx(m, suffix), 8);
	return v;
}

#define SI(r, i, name, v) set_i((r)->m, rec_at(r, i), name, v)
#define SF(r, i, name, v) set_f((r)->m, rec_at(r, i), name, v)

/* create, inject everything, emit; `summary` may be NULL */
static void run(const recs *r, int64_t nprocs, dfs_derived_metrics *dm,
                unsigned char *summary)
{
	dfs_error err = {0};
	dfs_accum *a = dfs_accum_create(r->m, nprocs, &err);
	assert_non_null(a);
	assert_int_equal(dfs_accum_inject(a, r->m, r->data, r->count, &err), 0);
	assert_int_equal(dfs_accum_emit(a, dm, summary, &err), 0);
	dfs_accum_free(a);
}

/* ---- the rule tables ------------------------------------------------------- */

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* every special index of a table names the counter it is meant to, and
 * the integers written by float rules or groups are exactly those */
static void test_tables_match_modules(void **state)
{
	static const char *const mods[] = {"POSIX", "MPI-IO", "STDIO", "DFS", "DAOS"};
	for (size_t k = 0; k < 5; k++) {
		const dfs_module *m = dfs_module_by_name(mods[k]);
		const dfs_agg_table *t = dfs_agg_table_for(m->id);
		assert_non_null(t);
		assert_true(m->accumulator);
		assert_int_equal(t->n_int, m->n_int);
		assert_int_equal(t->n_float, m->n_float);
		assert_true(t->n_int <= DFS_AGG_MAX_INT && t->n_float <= DFS_AGG_MAX_FLOAT);
		assert_true(ends_with(m->int_names[t->bytes_read], "_BYTES_READ"));
		assert_true(ends_with(m->int_names[t->bytes_written], "_BYTES_WRITTEN"));
		if (t->max_byte_read >= 0) {
			assert_true(ends_with(m->int_names[t->max_byte_read], "_MAX_BYTE_READ"));
			assert_true(ends_with(m->int_names[t->max_byte_written],
			                      "_MAX_BYTE_WRITTEN"));
		}
		assert_true(ends_with(m->float_names[t->f_read_time], "_F_READ_TIME"));
		assert_true(ends_with(m->float_names[t->f_write_time], "_F_WRITE_TIME"));
		assert_true(ends_with(m->float_names[t->f_meta_time], "_F_META_TIME"));
		assert_true(ends_with(m->int_names[t->fastest_rank], "_FASTEST_RANK"));
		assert_true(ends_with(m->int_names[t->fastest_rank_bytes],
		                      "_FASTEST_RANK_BYTES"));
		assert_true(ends_with(m->int_names[t->slowest_rank], "_SLOWEST_RANK"));
		assert_true(ends_with(m->int_names[t->slowest_rank_bytes],
		                      "_SLOWEST_RANK_BYTES"));
		assert_true(ends_with(m->float_names[t->f_fastest_rank_time],
		                      "_F_FASTEST_RANK_TIME"));
		assert_true(ends_with(m->float_names[t->f_slowest_rank_time],
		                      "_F_SLOWEST_RANK_TIME"));
		assert_int_equal(t->float_rules[t->f_fastest_rank_time], DFS_AGG_FASTEST);
		assert_int_equal(t->float_rules[t->f_slowest_rank_time], DFS_AGG_SLOWEST);

		bool by_float[DFS_AGG_MAX_INT] = {false}, common[DFS_AGG_MAX_INT] = {false};
		by_float[t->fastest_rank] = by_float[t->fastest_rank_bytes] = true;
		by_float[t->slowest_rank] = by_float[t->slowest_rank_bytes] = true;
		for (size_t c = 0; c < t->n_carries; c++) {
			const char *fn = m->float_names[t->carries[c].f_time];
			const char *in = m->int_names[t->carries[c].size];
			bool rd = ends_with(fn, "_F_MAX_READ_TIME");
			assert_true(rd || ends_with(fn, "_F_MAX_WRITE_TIME"));
			assert_true(ends_with(in, rd ? "_MAX_READ_TIME_SIZE"
			                             : "_MAX_WRITE_TIME_SIZE"));
			assert_int_equal(t->float_rules[t->carries[c].f_time], DFS_AGG_MAX_CARRY);
			by_float[t->carries[c].size] = true;
		}
		for (size_t g = 0; g < t->n_commons; g++) {
			const char *vn = m->int_names[t->commons[g].value_idx];
			const char *cn = m->int_names[t->commons[g].count_idx];
			assert_true(ends_with(vn, "ACCESS1_ACCESS") ||
			            ends_with(vn, "STRIDE1_STRIDE"));
			assert_true(ends_with(cn, "1_COUNT"));
			assert_true(ends_with(m->int_names[t->commons[g].count_idx + 3],
			                      "4_COUNT"));
			for (int j = 0; j < 4; j++)
				common[t->commons[g].value_idx + j] =
					common[t->commons[g].count_idx + j] = true;
		}
		for (size_t i = 0; i < t->n_int; i++) {
			assert_int_equal(t->int_rules[i] == DFS_AGG_BY_FLOAT, by_float[i]);
			assert_int_equal(t->int_rules[i] == DFS_AGG_COMMON, common[i]);
		}

		/* the runs of the plan give every counter its own rule back */
		dfs_agg_plan plan;
		dfs_agg_plan_build(t, &plan);
		int int_rule[DFS_AGG_MAX_INT], float_rule[DFS_AGG_MAX_FLOAT];
		for (size_t i = 0; i < DFS_AGG_MAX_INT; i++)
			int_rule[i] = -1;
		for (size_t i = 0; i < DFS_AGG_MAX_FLOAT; i++)
			float_rule[i] = -1;
		for (size_t s = 0; s < plan.n_int_spans; s++)
			for (int i = 0; i < plan.int_spans[s].count; i++) {
				int idx = plan.int_spans[s].first + i;
				assert_int_equal(int_rule[idx], -1);
				int_rule[idx] = plan.int_spans[s].rule;
			}
		for (size_t s = 0; s < plan.n_float_spans; s++)
			for (int i = 0; i < plan.float_spans[s].count; i++) {
				int idx = plan.float_spans[s].first + i;
				assert_int_equal(float_rule[idx], -1);
				float_rule[idx] = plan.float_spans[s].rule;
			}
		for (size_t i = 0; i < t->n_int; i++) {
			int rule = t->int_rules[i];
			bool skipped = rule == DFS_AGG_COMMON || rule == DFS_AGG_BY_FLOAT ||
			               rule == DFS_AGG_UNTOUCHED;
			assert_int_equal(int_rule[i], skipped ? -1 : rule);
		}
		for (size_t i = 0; i < t->n_float; i++)
			assert_int_equal(float_rule[i], t->float_rules[i]);
	}
	/* no accumulator for the other modules */
	assert_null(dfs_agg_table_for(DFS_MOD_H5F));
	assert_null(dfs_agg_table_for(DFS_MOD_HEATMAP));
	assert_null(dfs_agg_table_for(DFS_MOD_NULL));
}

static void test_create_errors(void **state)
{
	dfs_error err = {0};
	assert_null(dfs_accum_create(dfs_module_by_name("H5F"), 4, &err));
	assert_int_equal(err.code, DFS_ERR_UNSUPPORTED);
	assert_null(dfs_accum_create(dfs_module_by_name("LUSTRE"), 4, &err));
	assert_null(dfs_accum_create(NULL, 4, &err));
	assert_null(dfs_accum_create(dfs_module_by_name("POSIX"), 0, &err));
	assert_int_equal(err.code, DFS_ERR_INVAL);
	assert_null(dfs_accum_create_combined(-3, &err));

	recs r = recs_new("POSIX", 1);
	rec_add(&r, 1, 0);
	dfs_accum *a = dfs_accum_create(dfs_module_by_name("STDIO"), 4, &err);
	assert_non_null(a);
	assert_int_equal(dfs_accum_inject(a, r.m, r.data, 1, &err), -1);
	assert_int_equal(err.code, DFS_ERR_INVAL);
	assert_int_equal(dfs_accum_inject(a, dfs_module_by_name("H5D"), r.data, 1, &err), -1);
	assert_int_equal(dfs_accum_inject(a, r.m, NULL, 0, &err), 0);
	dfs_accum_free(a);

	a = dfs_accum_create_combined(4, &err);
	dfs_derived_metrics dm;
	unsigned char summary[704];
	assert_int_equal(dfs_accum_emit(a, &dm, summary, &err), -1);
	assert_int_equal(dfs_accum_emit(a, &dm, NULL, &err), 0);
	dfs_accum_free(a);
	dfs_accum_free(NULL);
	free(r.data);
}

/* ---- §8.3 worked example ------------------------------------------------------ */

static void test_worked_example(void **state)
{
	recs r = recs_new("POSIX", 4);
	size_t i = rec_add(&r, 0xA, 0);
	SI(&r, i, "BYTES_READ", 100);
	SI(&r, i, "MAX_BYTE_READ", 99);
	SF(&r, i, "F_READ_TIME", 1.0);
	SF(&r, i, "F_META_TIME", 0.5);
	i = rec_add(&r, 0xA, 1);
	SI(&r, i, "BYTES_WRITTEN", 200);
	SI(&r, i, "MAX_BYTE_WRITTEN", 199);
	SF(&r, i, "F_WRITE_TIME", 2.0);
	SF(&r, i, "F_META_TIME", 0.25);
	i = rec_add(&r, 0xB, -1);
	SI(&r, i, "BYTES_READ", 50);
	SI(&r, i, "BYTES_WRITTEN", 50);
	SI(&r, i, "MAX_BYTE_READ", 49);
	SI(&r, i, "MAX_BYTE_WRITTEN", 300);
	SF(&r, i, "F_SLOWEST_RANK_TIME", 3.0);
	i = rec_add(&r, 0xC, 0);
	SF(&r, i, "F_META_TIME", 0.125);

	dfs_derived_metrics dm;
	run(&r, 2, &dm, NULL);
	assert_int_equal(dm.total_bytes, 400);
	assert_int_equal(dm.unique_io_slowest_rank, 1);
	assert_true(dm.unique_io_total_time_by_slowest == 2.25);
	assert_true(dm.unique_md_only_time_by_slowest == 0.25);
	assert_true(dm.unique_rw_only_time_by_slowest == 2.0);
	assert_true(dm.shared_io_total_time_by_slowest == 3.0);
	assert_true(dm.agg_time_by_slowest == 5.25);
	assert_true(dm.agg_perf_by_slowest == 400 / 1048576.0 / 5.25);
	assert_int_equal(dm.category_counters[DFS_PART_SHARED_FILES].count, 1);
	assert_int_equal(dm.category_counters[DFS_SHARED_FILES].nprocs, -1);
	/* the partially shared file A has 2 ranks = job nprocs */
	assert_int_equal(dm.category_counters[DFS_PART_SHARED_FILES].nprocs, -1);
	assert_int_equal(dm.category_counters[DFS_UNIQ_FILES].nprocs, 1);

	dfs_buf out = DFS_BUF_INIT;
	dfs_render_file_counts(&dm, &out);
	dfs_render_perf(&dm, &out);
	const char *expect =
		"\n# Total file counts\n"
		"# -----\n"
		"# <file_type>: type of file access:\n"
		"#    *read_only: file was only read\n"
		"#    *write_only: file was only written\n"
		"#    *read_write: file was read and written\n"
		"#    *unique: file was opened by a single process only\n"
		"#    *shared: file was accessed by a group of processes (maybe all processes)\n"
		"# <file_count> total number of files of this type\n"
		"# <total_bytes> total number of bytes moved to/from files of this type\n"
		"# <max_byte_offset> maximum byte offset accessed for a file of this type\n"
		"\n"
		"# <file_type> <file_count> <total_bytes> <max_byte_offset>\n"
		"# total: 3 400 300\n"
		"# read_only: 0 0 0\n"
		"# write_only: 0 0 0\n"
		"# read_write: 2 400 300\n"
		"# unique: 1 0 0\n"
		"# shared: 2 400 499\n"
		"\n"
		"# performance\n"
		"# -----------\n"
		"# total_bytes: 400\n"
		"#\n"
		"# I/O timing for unique files (seconds):\n"
		"# ...........................\n"
		"# unique files: slowest_rank_io_time: 2.250000\n"
		"# unique files: slowest_rank_meta_only_time: 0.250000\n"
		"# unique files: slowest_rank_rw_only_time: 2.000000\n"
		"# unique files: slowest_rank: 1\n"
		"#\n"
		"# I/O timing for shared files (seconds):\n"
		"# ...........................\n"
		"# shared files: time_by_slowest: 3.000000\n"
		"#\n"
		"# Aggregate performance, including both shared and unique files:\n"
		"# ...........................\n"
		"# agg_time_by_slowest: 5.250000 # seconds\n"
		"# agg_perf_by_slowest: 0.000073 # MiB/s\n";
	assert_string_equal(out.data, expect);
	dfs_buf_free(&out);
	free(r.data);
}

/* ---- §7.3 common-value merge ------------------------------------------------- */

static void set_access(recs *r, size_t i, const int64_t v[4], const int64_t c[4])
{
	static const char *const vn[] = {"ACCESS1_ACCESS", "ACCESS2_ACCESS",
	                                 "ACCESS3_ACCESS", "ACCESS4_ACCESS"};
	static const char *const cn[] = {"ACCESS1_COUNT", "ACCESS2_COUNT",
	                                 "ACCESS3_COUNT", "ACCESS4_COUNT"};
	for (int k = 0; k < 4; k++) {
		SI(r, i, vn[k], v[k]);
		SI(r, i, cn[k], c[k]);
	}
}

static void check_access(const dfs_module *m, const unsigned char *summary,
                         const int64_t v[4], const int64_t c[4])
{
	static const char *const vn[] = {"ACCESS1_ACCESS", "ACCESS2_ACCESS",
	                                 "ACCESS3_ACCESS", "ACCESS4_ACCESS"};
	static const char *const cn[] = {"ACCESS1_COUNT", "ACCESS2_COUNT",
	                                 "ACCESS3_COUNT", "ACCESS4_COUNT"};
	for (int k = 0; k < 4; k++) {
		assert_int_equal(get_i(m, summary, vn[k]), v[k]);
		assert_int_equal(get_i(m, summary, cn[k]), c[k]);
	}
}

static void test_common_access_example(void **state)
{
	recs r = recs_new("POSIX", 3);
	set_access(&r, rec_add(&r, 1, 0), (int64_t[]){4096, 8192, 0, 0},
	           (int64_t[]){5, 3, 0, 0});
	set_access(&r, rec_add(&r, 2, 0), (int64_t[]){8192, 4096, 0, 0},
	           (int64_t[]){4, 2, 0, 0});
	set_access(&r, rec_add(&r, 3, 0), (int64_t[]){100, 0, 0, 0},
	           (int64_t[]){7, 0, 0, 0});
	unsigned char summary[704];
	dfs_derived_metrics dm;
	run(&r, 4, &dm, summary);
	check_access(r.m, summary, (int64_t[]){4096, 8192, 100, 0},
	             (int64_t[]){7, 7, 7, 0});
	free(r.data);
}

static void test_common_merge_edges(void **state)
{
	/* a full list drops later values; merged counts are not re-sorted */
	int64_t V[4] = {10, 20, 30, 40}, C[4] = {4, 3, 2, 1};
	dfs_agg_merge_common(V, C, (int64_t[]){50, 40, 0, 0}, (int64_t[]){1, 9, 0, 0});
	assert_memory_equal(V, ((int64_t[]){10, 20, 30, 40}), sizeof(V));
	assert_memory_equal(C, ((int64_t[]){4, 3, 2, 10}), sizeof(C));

	/* a value beating the list is inserted at its place */
	dfs_agg_merge_common(V, C, (int64_t[]){60, 0, 0, 0}, (int64_t[]){5, 0, 0, 0});
	assert_memory_equal(V, ((int64_t[]){60, 10, 20, 30}), sizeof(V));
	assert_memory_equal(C, ((int64_t[]){5, 4, 3, 2}), sizeof(C));

	/* ties on count: the larger value first */
	int64_t V2[4] = {0}, C2[4] = {0};
	dfs_agg_merge_common(V2, C2, (int64_t[]){5, 7, 0, 0}, (int64_t[]){2, 2, 0, 0});
	assert_memory_equal(V2, ((int64_t[]){7, 5, 0, 0}), sizeof(V2));
	assert_memory_equal(C2, ((int64_t[]){2, 2, 0, 0}), sizeof(C2));

	/* a zero value merged into empty slots does not stop the insertion */
	int64_t V3[4] = {0}, C3[4] = {0};
	dfs_agg_merge_common(V3, C3, (int64_t[]){5, 0, 9, 0}, (int64_t[]){1, 0, 3, 0});
	assert_memory_equal(V3, ((int64_t[]){9, 5, 0, 0}), sizeof(V3));
	assert_memory_equal(C3, ((int64_t[]){3, 1, 0, 0}), sizeof(C3));

	/* an unmerged zero value (the list has no empty slot) stops it */
	int64_t V5[4] = {10, 20, 30, 40}, C5[4] = {4, 3, 2, 1};
	dfs_agg_merge_common(V5, C5, (int64_t[]){50, 0, 60, 0}, (int64_t[]){9, 0, 9, 0});
	assert_memory_equal(V5, ((int64_t[]){50, 10, 20, 30}), sizeof(V5));
	assert_memory_equal(C5, ((int64_t[]){9, 4, 3, 2}), sizeof(C5));

	/* the insertion total is a 32-bit int: 2^32 + 5 compares as 5 */
	int64_t V4[4] = {100, 0, 0, 0}, C4[4] = {10, 0, 0, 0};
	int64_t big = ((int64_t)1 << 32) + 5;
	dfs_agg_merge_common(V4, C4, (int64_t[]){200, 0, 0, 0}, (int64_t[]){big, 0, 0, 0});
	assert_memory_equal(V4, ((int64_t[]){100, 200, 0, 0}), sizeof(V4));
	assert_memory_equal(C4, ((int64_t[]){10, big, 0, 0}), sizeof(C4));

	/* MPI-IO ignores records whose ACCESS1_ACCESS is 0 */
	recs r = recs_new("MPI-IO", 2);
	set_access(&r, rec_add(&r, 1, 0), (int64_t[]){64, 0, 0, 0},
	           (int64_t[]){3, 0, 0, 0});
	set_access(&r, rec_add(&r, 1, 0), (int64_t[]){0, 64, 0, 0},
	           (int64_t[]){0, 9, 0, 0});
	unsigned char summary[560];
	dfs_derived_metrics dm;
	run(&r, 1, &dm, summary);
	check_access(r.m, summary, (int64_t[]){64, 0, 0, 0}, (int64_t[]){3, 0, 0, 0});
	free(r.data);

	/* the same records in POSIX are merged (zero values take part too) */
	r = recs_new("POSIX", 2);
	set_access(&r, rec_add(&r, 1, 0), (int64_t[]){64, 0, 0, 0},
	           (int64_t[]){3, 0, 0, 0});
	set_access(&r, rec_add(&r, 1, 0), (int64_t[]){0, 64, 0, 0},
	           (int64_t[]){0, 9, 0, 0});
	unsigned char psummary[704];
	run(&r, 1, &dm, psummary);
	check_access(r.m, psummary, (int64_t[]){64, 0, 0, 0}, (int64_t[]){12, 0, 0, 0});
	free(r.data);
}

/* ---- SUM rules and -1 ----------------------------------------------------------- */

static void test_sums_with_minus_one(void **state)
{
	dfs_derived_metrics dm;
	/* clamped modules: 3 then -1 gives 2, a run of -1 stays -1 */
	static const char *const clamped[] = {"POSIX", "DFS", "DAOS"};
	static const char *const opens[] = {"OPENS", "OPENS", "OBJ_OPENS"};
	for (int k = 0; k < 3; k++) {
		recs r = recs_new(clamped[k], 3);
		unsigned char summary[704];
		SI(&r, rec_add(&r, 1, 0), opens[k], 3);
		SI(&r, rec_add(&r, 1, 0), opens[k], -1);
		SI(&r, rec_add(&r, 1, 0), "BYTES_READ", -1);
		SI(&r, 1, "BYTES_READ", -1);
		run(&r, 1, &dm, summary);
		assert_int_equal(get_i(r.m, summary, opens[k]), 2);
		assert_int_equal(get_i(r.m, summary, "BYTES_READ"), -1);
		free(r.data);
	}
	/* DAOS_NB_OPS is never aggregated */
	recs d = recs_new("DAOS", 1);
	unsigned char dsum[696];
	SI(&d, rec_add(&d, 1, 0), "NB_OPS", 42);
	run(&d, 1, &dm, dsum);
	assert_int_equal(get_i(d.m, dsum, "NB_OPS"), 0);
	free(d.data);

	/* unclamped modules: -1 values add up */
	recs m = recs_new("MPI-IO", 2);
	unsigned char msum[560];
	SI(&m, rec_add(&m, 1, 0), "INDEP_OPENS", -1);
	SI(&m, rec_add(&m, 2, 0), "INDEP_OPENS", -1);
	run(&m, 1, &dm, msum);
	assert_int_equal(get_i(m.m, msum, "INDEP_OPENS"), -2);
	free(m.data);

	recs s = recs_new("STDIO", 2);
	unsigned char ssum[248];
	SI(&s, rec_add(&s, 1, 0), "FDOPENS", -1);
	SI(&s, rec_add(&s, 2, 0), "FDOPENS", -1);
	run(&s, 1, &dm, ssum);
	assert_int_equal(get_i(s.m, ssum, "FDOPENS"), -2);
	free(s.data);
}

/* ---- MAX, MIN>0, LAST, ZERO, carried sizes ---------------------------------- */

static void test_max_min_rules(void **state)
{
	recs r = recs_new("POSIX", 4);
	static const double starts[] = {0.0, 5.0, -1.0, 3.0};
	for (size_t k = 0; k < 4; k++) {
		size_t i = rec_add(&r, 7, 0);
		SF(&r, i, "F_OPEN_START_TIMESTAMP", starts[k]);
		SF(&r, i, "F_READ_START_TIMESTAMP", -1.0);
		SF(&r, i, "F_OPEN_END_TIMESTAMP", -1.0);
		SI(&r, i, "MAX_BYTE_READ", -1);
		SI(&r, i, "MODE", (int64_t)k + 100);
		SF(&r, i, "F_VARIANCE_RANK_TIME", 9.0);
	}
	/* the strictly larger max time carries its size; equal does not */
	SF(&r, 1, "F_MAX_READ_TIME", 2.0);
	SI(&r, 1, "MAX_READ_TIME_SIZE", 111);
	SF(&r, 2, "F_MAX_READ_TIME", 2.0);
	SI(&r, 2, "MAX_READ_TIME_SIZE", 222);
	SI(&r, 3, "MAX_READ_TIME_SIZE", 333);
	SF(&r, 0, "F_MAX_WRITE_TIME", -4.0);
	SI(&r, 0, "MAX_WRITE_TIME_SIZE", 444);

	unsigned char summary[704];
	dfs_derived_metrics dm;
	run(&r, 1, &dm, summary);
	assert_true(get_f(r.m, summary, "F_OPEN_START_TIMESTAMP") == 3.0);
	assert_true(get_f(r.m, summary, "F_READ_START_TIMESTAMP") == 0.0);
	assert_true(get_f(r.m, summary, "F_OPEN_END_TIMESTAMP") == 0.0);
	assert_int_equal(get_i(r.m, summary, "MAX_BYTE_READ"), 0);
	assert_int_equal(get_i(r.m, summary, "MODE"), 103);
	assert_true(get_f(r.m, summary, "F_VARIANCE_RANK_TIME") == 0.0);
	assert_true(get_f(r.m, summary, "F_MAX_READ_TIME") == 2.0);
	assert_int_equal(get_i(r.m, summary, "MAX_READ_TIME_SIZE"), 111);
	assert_true(get_f(r.m, summary, "F_MAX_WRITE_TIME") == 0.0);
	assert_int_equal(get_i(r.m, summary, "MAX_WRITE_TIME_SIZE"), 0);
	/* max(MAX_BYTE_READ -1, MAX_BYTE_WRITTEN 0) is 0 */
	assert_int_equal(dm.category_counters[DFS_ALL_FILES].max_offset_bytes, 0);
	free(r.data);
}

/* ---- fastest / slowest ---------------------------------------------------------- */

static void test_fastest_slowest(void **state)
{
	recs r = recs_new("POSIX", 4);
	static const double times[] = {2.0, 0.5, 7.0};
	for (int k = 0; k < 3; k++) {
		size_t i = rec_add(&r, 9, k);
		SF(&r, i, "F_READ_TIME", times[k]);
		SF(&r, i, "F_WRITE_TIME", 0.25);
		SF(&r, i, "F_META_TIME", 0.125);
		SI(&r, i, "BYTES_READ", 10 * (k + 1));
		SI(&r, i, "BYTES_WRITTEN", 1);
	}
	/* a shared record offers its own fastest/slowest fields */
	size_t i = rec_add(&r, 9, -1);
	SI(&r, i, "FASTEST_RANK", 12);
	SI(&r, i, "FASTEST_RANK_BYTES", 1200);
	SF(&r, i, "F_FASTEST_RANK_TIME", 0.0625);
	SI(&r, i, "SLOWEST_RANK", 13);
	SI(&r, i, "SLOWEST_RANK_BYTES", 1300);
	SF(&r, i, "F_SLOWEST_RANK_TIME", 1.0);

	unsigned char summary[704];
	dfs_derived_metrics dm;
	run(&r, 16, &dm, summary);
	uint64_t id;
	int64_t rank;
	memcpy(&id, summary, 8);
	memcpy(&rank, summary + 8, 8);
	assert_int_equal(id, 9);
	assert_int_equal(rank, -1);
	assert_int_equal(get_i(r.m, summary, "FASTEST_RANK"), 12);
	assert_int_equal(get_i(r.m, summary, "FASTEST_RANK_BYTES"), 1200);
	assert_true(get_f(r.m, summary, "F_FASTEST_RANK_TIME") == 0.0625);
	assert_int_equal(get_i(r.m, summary, "SLOWEST_RANK"), 2);
	assert_int_equal(get_i(r.m, summary, "SLOWEST_RANK_BYTES"), 31);
	assert_true(get_f(r.m, summary, "F_SLOWEST_RANK_TIME") == 7.0 + 0.25 + 0.125);

	/* without the shared record the fastest is rank 1 */
	r.count = 3;
	run(&r, 16, &dm, summary);
	assert_int_equal(get_i(r.m, summary, "FASTEST_RANK"), 1);
	assert_int_equal(get_i(r.m, summary, "FASTEST_RANK_BYTES"), 21);
	assert_true(get_f(r.m, summary, "F_FASTEST_RANK_TIME") == 0.5 + 0.25 + 0.125);
	memcpy(&rank, summary + 8, 8);
	assert_int_equal(rank, -1);

	/* one rank, one id: the aggregate keeps both */
	r.count = 1;
	run(&r, 16, &dm, summary);
	memcpy(&rank, summary + 8, 8);
	assert_int_equal(rank, 0);

	/* two record ids: -1, -1, 0.0 (and id 0) */
	r.count = 3;
	uint64_t other = 10;
	memcpy(rec_at(&r, 2), &other, 8);
	run(&r, 16, &dm, summary);
	memcpy(&id, summary, 8);
	assert_int_equal(id, 0);
	assert_int_equal(get_i(r.m, summary, "FASTEST_RANK"), -1);
	assert_int_equal(get_i(r.m, summary, "FASTEST_RANK_BYTES"), -1);
	assert_true(get_f(r.m, summary, "F_FASTEST_RANK_TIME") == 0.0);
	assert_int_equal(get_i(r.m, summary, "SLOWEST_RANK"), -1);
	assert_int_equal(get_i(r.m, summary, "SLOWEST_RANK_BYTES"), -1);
	assert_true(get_f(r.m, summary, "F_SLOWEST_RANK_TIME") == 0.0);
	free(r.data);
}

/* ---- files, ranks and categories ------------------------------------------------- */

static void test_partially_shared(void **state)
{
	recs r = recs_new("POSIX", 4);
	/* shared record then a per-rank record: nprocs -1 + 1 = 0 */
	SI(&r, rec_add(&r, 1, -1), "BYTES_READ", 10);
	SI(&r, rec_add(&r, 1, 3), "BYTES_READ", 5);
	/* per-rank record then a shared record: -1 */
	SI(&r, rec_add(&r, 2, 3), "BYTES_WRITTEN", 7);
	SI(&r, rec_add(&r, 2, -1), "BYTES_WRITTEN", 8);
	dfs_derived_metrics dm;
	run(&r, 8, &dm, NULL);
	const dfs_category_counters *cc = dm.category_counters;
	assert_int_equal(cc[DFS_PART_SHARED_FILES].count, 1);
	assert_int_equal(cc[DFS_PART_SHARED_FILES].total_read_volume_bytes, 15);
	assert_int_equal(cc[DFS_PART_SHARED_FILES].nprocs, 0);
	assert_int_equal(cc[DFS_SHARED_FILES].count, 1);
	assert_int_equal(cc[DFS_SHARED_FILES].total_write_volume_bytes, 15);
	assert_int_equal(cc[DFS_SHARED_FILES].nprocs, -1);
	assert_int_equal(cc[DFS_UNIQ_FILES].count, 0);
	assert_int_equal(cc[DFS_RO_FILES].count, 1);
	assert_int_equal(cc[DFS_WO_FILES].count, 1);
	assert_int_equal(cc[DFS_ALL_FILES].nprocs, -1);
	free(r.data);
}

static void test_slowest_rank_ties(void **state)
{
	recs r = recs_new("STDIO", 4);
	SF(&r, rec_add(&r, 1, 3), "F_READ_TIME", 2.0);
	SF(&r, rec_add(&r, 2, 2), "F_READ_TIME", 1.0);
	SF(&r, rec_add(&r, 3, 1), "F_META_TIME", 2.0);
	dfs_derived_metrics dm;
	run(&r, 4, &dm, NULL);
	assert_int_equal(dm.unique_io_slowest_rank, 1);
	assert_true(dm.unique_io_total_time_by_slowest == 2.0);
	assert_true(dm.unique_md_only_time_by_slowest == 2.0);
	assert_true(dm.unique_rw_only_time_by_slowest == 0.0);

	/* no positive time: rank 0 and zeros */
	recs z = recs_new("STDIO", 2);
	rec_add(&z, 1, 3);
	SF(&z, rec_add(&z, 2, 2), "F_READ_TIME", -1.0);
	run(&z, 4, &dm, NULL);
	assert_int_equal(dm.unique_io_slowest_rank, 0);
	assert_true(dm.unique_io_total_time_by_slowest == 0.0);
	assert_true(dm.agg_perf_by_slowest == 0.0);
	free(r.data);
	free(z.data);
}

static void test_zero_records(void **state)
{
	static const char *const mods[] = {"POSIX", "MPI-IO", "STDIO", "DFS", "DAOS"};
	for (int k = 0; k < 5; k++) {
		const dfs_module *m = dfs_module_by_name(mods[k]);
		dfs_error err = {0};
		dfs_accum *a = dfs_accum_create(m, 16, &err);
		assert_non_null(a);
		assert_int_equal(dfs_accum_inject(a, m, NULL, 0, &err), 0);
		dfs_derived_metrics dm, zero;
		memset(&dm, 0x5a, sizeof(dm));
		memset(&zero, 0, sizeof(zero));
		unsigned char summary[704], zsum[704] = {0};
		memset(summary, 0xa5, sizeof(summary));
		assert_int_equal(dfs_accum_emit(a, &dm, summary, &err), 0);
		assert_memory_equal(&dm, &zero, sizeof(dm));
		assert_memory_equal(summary, zsum, m->record_size);
		assert_int_equal(dfs_accum_warning_count(a), 0);
		dfs_accum_free(a);
	}
}

static void test_rank_out_of_range(void **state)
{
	recs r = recs_new("POSIX", 22);
	size_t i = rec_add(&r, 1, 0);
	SF(&r, i, "F_READ_TIME", 1.0);
	SI(&r, i, "BYTES_READ", 10);
	i = rec_add(&r, 2, 5);
	SF(&r, i, "F_READ_TIME", 10.0);
	SI(&r, i, "BYTES_READ", 100);
	for (int k = 0; k < 20; k++)
		SI(&r, rec_add(&r, 2, 5 + k), "BYTES_WRITTEN", 1);

	dfs_error err = {0};
	dfs_accum *a = dfs_accum_create(r.m, 2, &err);
	assert_int_equal(dfs_accum_inject(a, r.m, r.data, r.count, &err), 0);
	dfs_derived_metrics dm;
	unsigned char summary[704];
	assert_int_equal(dfs_accum_emit(a, &dm, summary, &err), 0);
	assert_int_equal(dm.total_bytes, 130);
	assert_int_equal(dm.unique_io_slowest_rank, 0);
	assert_true(dm.unique_io_total_time_by_slowest == 1.0);
	assert_int_equal(dm.category_counters[DFS_ALL_FILES].count, 2);
	/* 21 per-rank records of file 2 (ranks are not checked for distinctness) */
	assert_int_equal(dm.category_counters[DFS_PART_SHARED_FILES].count, 1);
	assert_int_equal(get_i(r.m, summary, "BYTES_READ"), 110);
	assert_int_equal(dfs_accum_warning_count(a), 21);
	assert_string_equal(dfs_accum_warning(a, 0),
	                    "POSIX record 1 (id 2) has rank 5 outside 0..1: its I/O time "
	                    "is left out of the slowest-rank metrics");
	assert_non_null(dfs_accum_warning(a, 15));
	assert_null(dfs_accum_warning(a, 16));
	assert_null(dfs_accum_warning(a, 21));
	dfs_accum_free(a);
	free(r.data);
}

static void test_combined(void **state)
{
	recs p = recs_new("POSIX", 4), s = recs_new("STDIO", 4);
	/* file X: POSIX rank 0 reads, STDIO rank 1 writes -> 2 distinct ranks */
	size_t i = rec_add(&p, 0x10, 0);
	SI(&p, i, "BYTES_READ", 100);
	SI(&p, i, "MAX_BYTE_READ", 99);
	SF(&p, i, "F_READ_TIME", 1.0);
	i = rec_add(&s, 0x10, 1);
	SI(&s, i, "BYTES_WRITTEN", 50);
	SI(&s, i, "MAX_BYTE_WRITTEN", 149);
	SF(&s, i, "F_WRITE_TIME", 0.5);
	/* file Y: rank 0 in both modules -> one distinct rank */
	i = rec_add(&p, 0x20, 0);
	SF(&p, i, "F_META_TIME", 0.25);
	i = rec_add(&s, 0x20, 0);
	SF(&s, i, "F_META_TIME", 0.5);
	/* file Z: a shared STDIO record and a POSIX rank record -> -1 */
	i = rec_add(&s, 0x30, -1);
	SI(&s, i, "BYTES_READ", 7);
	SF(&s, i, "F_SLOWEST_RANK_TIME", 4.0);
	SI(&p, rec_add(&p, 0x30, 1), "BYTES_READ", 3);

	dfs_error err = {0};
	dfs_accum *a = dfs_accum_create_combined(2, &err);
	assert_non_null(a);
	assert_int_equal(dfs_accum_inject(a, p.m, p.data, 2, &err), 0);
	assert_int_equal(dfs_accum_inject(a, s.m, s.data, s.count, &err), 0);
	assert_int_equal(dfs_accum_inject(a, p.m, rec_at(&p, 2), 1, &err), 0);
	dfs_derived_metrics dm;
	assert_int_equal(dfs_accum_emit(a, &dm, NULL, &err), 0);
	dfs_accum_free(a);

	const dfs_category_counters *cc = dm.category_counters;
	assert_int_equal(cc[DFS_ALL_FILES].count, 3);
	assert_int_equal(dm.total_bytes, 160);
	assert_int_equal(cc[DFS_RW_FILES].count, 1);
	assert_int_equal(cc[DFS_RW_FILES].max_offset_bytes, 149);
	assert_int_equal(cc[DFS_RO_FILES].count, 1);
	assert_int_equal(cc[DFS_UNIQ_FILES].count, 1);   /* Y */
	assert_int_equal(cc[DFS_SHARED_FILES].count, 1); /* Z */
	assert_int_equal(cc[DFS_PART_SHARED_FILES].count, 1); /* X: 2 ranks */
	assert_int_equal(cc[DFS_PART_SHARED_FILES].nprocs, -1); /* 2 >= nprocs */
	/* rank 0: 1.0 + 0.25 + 0.5; rank 1: 0.5 + 0 */
	assert_int_equal(dm.unique_io_slowest_rank, 0);
	assert_true(dm.unique_io_total_time_by_slowest == 1.75);
	assert_true(dm.unique_md_only_time_by_slowest == 0.75);
	assert_true(dm.shared_io_total_time_by_slowest == 4.0);
	free(p.data);
	free(s.data);
}

/* ---- renderers -------------------------------------------------------------------- */

static void test_render_total(void **state)
{
	const dfs_module *m = dfs_module_by_name("STDIO");
	unsigned char summary[248] = {0};
	int64_t v = -2;
	double d = 1.0 / 3.0;
	memcpy(summary + m->int_offset + 8, &v, 8);      /* FDOPENS */
	memcpy(summary + m->float_offset + 8 * 14, &d, 8); /* VARIANCE_RANK_BYTES */
	dfs_buf out = DFS_BUF_INIT;
	dfs_render_total(m, summary, &out);
	assert_non_null(strstr(out.data, "total_STDIO_OPENS: 0\ntotal_STDIO_FDOPENS: -2\n"));
	assert_non_null(strstr(out.data, "\ntotal_STDIO_F_META_TIME: 0.000000\n"
	                                 "total_STDIO_F_WRITE_TIME: 0.000000\n"));
	assert_true(ends_with(out.data, "total_STDIO_F_VARIANCE_RANK_BYTES: 0.333333\n"));
	size_t lines = 0;
	for (size_t i = 0; i < out.len; i++)
		lines += out.data[i] == '\n';
	assert_int_equal(lines, m->n_int + m->n_float);
	dfs_buf_free(&out);

	/* DAOS: counters only, no uuid/oid fields */
	const dfs_module *daos = dfs_module_by_name("DAOS");
	unsigned char dsum[696] = {0};
	dfs_render_total(daos, dsum, &out);
	assert_null(strstr(out.data, "uuid"));
	assert_true(ends_with(out.data, "total_DAOS_F_SLOWEST_RANK_TIME: 0.000000\n"));
	dfs_buf_free(&out);
}

static void test_render_json(void **state)
{
	dfs_derived_metrics dm;
	memset(&dm, 0, sizeof(dm));
	dm.total_bytes = -7;
	dm.unique_io_total_time_by_slowest = 0.1;
	dm.unique_rw_only_time_by_slowest = 1e300;
	dm.unique_md_only_time_by_slowest = -0.0;
	dm.unique_io_slowest_rank = 3;
	dm.shared_io_total_time_by_slowest = 2.5;
	dm.agg_perf_by_slowest = NAN;
	dm.agg_time_by_slowest = 5e-324;
	for (int c = 0; c < DFS_FILE_CATEGORIES; c++) {
		int64_t *f = &dm.category_counters[c].count;
		for (int k = 0; k < 8; k++)
			f[k] = c * 100 + k - (k == 7 ? 200 : 0);
	}
	dm.category_counters[2].max_offset_bytes = INT64_MIN;
	dfs_buf out = DFS_BUF_INIT;
	dfs_render_derived_json(&dm, &out);
	const char *head = "{\n  \"total_bytes\": -7,\n"
	                   "  \"unique_io_total_time_by_slowest\": 0.1,\n";
	assert_true(strncmp(out.data, head, strlen(head)) == 0);
	assert_non_null(strstr(out.data, "  \"category_counters\": [\n    {\n"
	                                 "      \"category\": \"DARSHAN_ALL_FILES\",\n"));
	assert_true(ends_with(out.data, "      \"nprocs\": 407\n    }\n  ]\n}\n"));

	char msg[256];
	json_value *j = json_parse(out.data, out.len, msg, sizeof(msg));
	assert_non_null(j);
	int64_t iv;
	double dv;
	assert_true(json_int64(json_get(j, "total_bytes"), &iv) && iv == -7);
	assert_true(json_double(json_get(j, "unique_io_total_time_by_slowest"), &dv) &&
	            dv == 0.1);
	assert_true(json_double(json_get(j, "unique_rw_only_time_by_slowest"), &dv) &&
	            dv == 1e300);
	assert_true(json_double(json_get(j, "unique_md_only_time_by_slowest"), &dv) &&
	            dv == 0 && signbit(dv));
	assert_true(json_int64(json_get(j, "unique_io_slowest_rank"), &iv) && iv == 3);
	assert_true(json_double(json_get(j, "agg_perf_by_slowest"), &dv) && isnan(dv));
	assert_true(json_double(json_get(j, "agg_time_by_slowest"), &dv) &&
	            dv == 5e-324);
	const json_value *cc = json_get(j, "category_counters");
	assert_int_equal(cc->count, DFS_FILE_CATEGORIES);
	static const char *const fields[] = {
		"count", "total_read_volume_bytes", "total_write_volume_bytes",
		"max_read_volume_bytes", "max_write_volume_bytes",
		"total_max_offset_bytes", "max_offset_bytes", "nprocs"};
	for (size_t c = 0; c < DFS_FILE_CATEGORIES; c++) {
		const json_value *e = json_at(cc, c);
		assert_int_equal(e->count, 9);
		assert_string_equal(json_string(json_get(e, "category")),
		                    dfs_file_category_names[c]);
		const int64_t *f = &dm.category_counters[c].count;
		for (int k = 0; k < 8; k++) {
			assert_true(json_int64(json_get(e, fields[k]), &iv));
			assert_int_equal(iv, f[k]);
		}
	}
	json_free(j);
	dfs_buf_free(&out);
}

static void test_json_reader(void **state)
{
	char msg[256];
	const char *doc = " {\"a\": [1, -2.5e3, true, false, null, \"x\\u00e9\\ud83d\\ude00\\n\"],"
	                  " \"b\": {}, \"c\": [], \"big\": 18446744073709551615,"
	                  " \"neg\": -9223372036854775808} ";
	json_value *j = json_parse(doc, strlen(doc), msg, sizeof(msg));
	assert_non_null(j);
	const json_value *a = json_get(j, "a");
	assert_int_equal(a->count, 6);
	int64_t iv;
	uint64_t uv;
	double dv;
	assert_true(json_int64(json_at(a, 0), &iv) && iv == 1);
	assert_false(json_int64(json_at(a, 1), &iv));
	assert_true(json_double(json_at(a, 1), &dv) && dv == -2500.0);
	assert_true(json_at(a, 2)->type == JSON_BOOL && json_at(a, 2)->boolean);
	assert_true(json_at(a, 4)->type == JSON_NULL);
	assert_string_equal(json_string(json_at(a, 5)), "x\xc3\xa9\xf0\x9f\x98\x80\n");
	assert_true(json_uint64(json_get(j, "big"), &uv) && uv == UINT64_MAX);
	assert_false(json_int64(json_get(j, "big"), &iv));
	assert_true(json_int64(json_get(j, "neg"), &iv) && iv == INT64_MIN);
	assert_int_equal(json_get(j, "b")->count, 0);
	assert_null(json_get(j, "missing"));
	assert_null(json_at(a, 6));
	json_free(j);

	static const char *const bad[] = {"", "{", "[1,]", "{\"a\" 1}", "01", "1.",
	                                  "\"\\x\"", "[1] x", "nul", "\"\\ud800\"",
	                                  "\"a\nb\""};
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		msg[0] = '\0';
		assert_null(json_parse(bad[k], strlen(bad[k]), msg, sizeof(msg)));
		assert_true(msg[0] != '\0');
	}
	/* deep nesting is refused, not a stack overflow */
	char deep[2001];
	memset(deep, '[', 2000);
	deep[2000] = '\0';
	assert_null(json_parse(deep, 2000, msg, sizeof(msg)));
}

/* ---- speed ------------------------------------------------------------------------- */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* many distinct files and ranks in one pass; the time is printed, the
 * bound is loose because sanitizer builds are slow */
static void test_many_records(void **state)
{
	const size_t n = 200000;
	recs r = recs_new("POSIX", n);
	for (size_t k = 0; k < n; k++) {
		size_t i = rec_add(&r, 0x9e3779b97f4a7c15ULL * (k / 2 + 1), (int64_t)(k % 1024));
		SI(&r, i, "BYTES_READ", (int64_t)k);
		SF(&r, i, "F_READ_TIME", (double)(k % 7));
	}
	dfs_derived_metrics dm;
	unsigned char summary[704];
	double t0 = now();
	run(&r, 1024, &dm, summary);
	double dt = now() - t0;
	print_message("accum: %zu records injected and emitted in %.3f s\n", n, dt);
	assert_int_equal(dm.category_counters[DFS_ALL_FILES].count, n / 2);
	assert_int_equal(dm.total_bytes, (int64_t)(n * (n - 1) / 2));
	assert_true(dt < 10.0);
	free(r.data);
}

/* ---- oracle: darshan-parser --total / --file / --perf ---------------------------- */

/* format a path; one that does not fit fails the test */
#define PATH_FMT(buf, ...) \
	assert_true(snprintf(buf, sizeof(buf), __VA_ARGS__) < (int)sizeof(buf))

static bool is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static void test_oracle_parser(void **state)
{
	size_t n_logs = 0;
	char **names = shared_logs(&n_logs);
	if (!names) {
		print_message("oracle parser: no shared logs, skipped\n");
		skip();
	}
	static const struct {
		const char *mode;
		unsigned part;
	} modes[] = {{"total", DFS_REPORT_TOTAL}, {"file", DFS_REPORT_FILE},
	             {"perf", DFS_REPORT_PERF}};
	size_t logs_ok = 0, outputs = 0, outputs_ok = 0, truncated = 0;
	for (size_t l = 0; l < n_logs; l++) {
		char *path = shared_log_path(names[l]);
		dfs_error err = {0};
		dfs_log *log = dfs_log_open(path, 0, &err);
		free(path);
		if (!log) {
			print_message("oracle parser: %s: %s\n", names[l], err.msg);
			outputs += 3;
			continue;
		}
		bool all_ok = true;
		for (size_t k = 0; k < 3; k++) {
			char file[64], rc[8192];
			PATH_FMT(file, "%s.txt", modes[k].mode);
			/* darshan-parser aborted: the oracle is a prefix */
			PATH_FMT(rc, "%s/oracle/parser/%s/%s.rc", shared_dir(), names[l],
			         modes[k].mode);
			bool aborted = is_file(rc);
			outputs++;
			size_t len = 0;
			char *ref = oracle_read(names[l], file, &len);
			dfs_buf out = DFS_BUF_INIT;
			bool ok = ref != NULL;
			if (ok) {
				dfs_report_parser(log, modes[k].part, &out, NULL);
				ok = (aborted ? out.len >= len : out.len == len) &&
				     memcmp(out.data ? out.data : "", ref, len) == 0;
			}
			if (ok) {
				outputs_ok++;
				truncated += aborted;
			} else {
				all_ok = false;
				print_message("oracle parser: %s %s differs\n", names[l],
				              modes[k].mode);
			}
			free(ref);
			dfs_buf_free(&out);
		}
		logs_ok += all_ok;
		dfs_log_free(log);
	}
	print_message("oracle parser: %zu/%zu logs, %zu/%zu --total/--file/--perf "
	              "outputs match (%zu of them prefixes of aborted runs)\n",
	              logs_ok, n_logs, outputs_ok, outputs, truncated);
	shared_free_list(names);
	assert_int_equal(outputs_ok, outputs);
	assert_true(n_logs > 0);
}

/* ---- oracle: pydarshan accumulator results --------------------------------------- */

enum selection { SEL_ALL, SEL_RANK0, SEL_READ_GT0, SEL_SHARED };
static const char *const case_names[] = {"all", "rank0", "read_bytes_gt0", "shared"};

static bool selected(const dfs_module *m, const unsigned char *rec, int sel)
{
	int64_t rank = dfs_record_rank(rec);
	switch (sel) {
	case SEL_ALL:
		return true;
	case SEL_RANK0:
		return rank == 0;
	case SEL_SHARED:
		return rank == -1;
	default: {
		const dfs_agg_table *t = dfs_agg_table_for(m->id);
		int64_t v;
		memcpy(&v, rec + m->int_offset + 8 * t->bytes_read, 8);
		return v > 0;
	}
	}
}

/* the selected records packed back to back; `named_only` drops records
 * without a name-table entry, as pydarshan does */
static size_t select_records(const dfs_log *log, const dfs_records *rs, int sel,
                             bool named_only, dfs_buf *out)
{
	const dfs_module *m = rs->module;
	size_t n = 0;
	_Alignas(8) unsigned char scratch[DFS_RECORD_MAX];
	for (size_t i = 0; i < rs->count; i++) {
		const unsigned char *rec = dfs_record_get(rs, i, scratch);
		if (named_only && !dfs_log_name(log, dfs_record_id(rec)))
			continue;
		if (!selected(m, rec, sel))
			continue;
		dfs_buf_add(out, rec, m->record_size);
		n++;
	}
	return n;
}

static bool same_double(double a, double b)
{
	return (a == b && signbit(a) == signbit(b)) || (isnan(a) && isnan(b));
}

typedef struct mismatch {
	char what[512];
} mismatch;

static bool note(mismatch *mm, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(mm->what, sizeof(mm->what), fmt, ap);
	va_end(ap);
	return false;
}

static bool check_i64(const json_value *o, const char *key, int64_t ours,
                      mismatch *mm)
{
	int64_t v;
	if (!json_int64(json_get(o, key), &v))
		return note(mm, "%s missing", key);
	if (v != ours)
		return note(mm, "%s: oracle %" PRId64 ", ours %" PRId64, key, v, ours);
	return true;
}

static bool check_double(const json_value *o, const char *key, double ours,
                         mismatch *mm)
{
	double v;
	if (!json_double(json_get(o, key), &v))
		return note(mm, "%s missing", key);
	if (!same_double(v, ours))
		return note(mm, "%s: oracle %.17g, ours %.17g", key, v, ours);
	return true;
}

static bool check_derived(const json_value *j, const dfs_derived_metrics *dm,
                          mismatch *mm)
{
	if (!check_i64(j, "total_bytes", dm->total_bytes, mm) ||
	    !check_double(j, "unique_io_total_time_by_slowest",
	                  dm->unique_io_total_time_by_slowest, mm) ||
	    !check_double(j, "unique_rw_only_time_by_slowest",
	                  dm->unique_rw_only_time_by_slowest, mm) ||
	    !check_double(j, "unique_md_only_time_by_slowest",
	                  dm->unique_md_only_time_by_slowest, mm) ||
	    !check_i64(j, "unique_io_slowest_rank", dm->unique_io_slowest_rank, mm) ||
	    !check_double(j, "shared_io_total_time_by_slowest",
	                  dm->shared_io_total_time_by_slowest, mm) ||
	    !check_double(j, "agg_perf_by_slowest", dm->agg_perf_by_slowest, mm) ||
	    !check_double(j, "agg_time_by_slowest", dm->agg_time_by_slowest, mm))
		return false;
	const json_value *cc = json_get(j, "category_counters");
	if (!cc || cc->count != DFS_FILE_CATEGORIES)
		return note(mm, "category_counters missing");
	static const char *const fields[] = {
		"count", "total_read_volume_bytes", "total_write_volume_bytes",
		"max_read_volume_bytes", "max_write_volume_bytes",
		"total_max_offset_bytes", "max_offset_bytes", "nprocs"};
	for (size_t c = 0; c < DFS_FILE_CATEGORIES; c++) {
		const json_value *e = json_at(cc, c);
		const char *name = json_string(json_get(e, "category"));
		if (!name || strcmp(name, dfs_file_category_names[c]) != 0)
			return note(mm, "category %zu is %s", c, name ? name : "?");
		const int64_t *f = &dm->category_counters[c].count;
		for (int k = 0; k < 8; k++) {
			int64_t v;
			if (!json_int64(json_get(e, fields[k]), &v))
				return note(mm, "%s %s missing", name, fields[k]);
			if (v != f[k])
				return note(mm, "%s %s: oracle %" PRId64 ", ours %" PRId64,
				            name, fields[k], v, f[k]);
		}
	}
	return true;
}

static bool check_summary(const json_value *j, const dfs_module *m,
                          const unsigned char *summary, mismatch *mm)
{
	uint64_t id, oid;
	int64_t rank;
	memcpy(&id, summary, 8);
	memcpy(&rank, summary + 8, 8);
	const char *ids = json_string(json_get(j, "id"));
	if (!ids || sscanf(ids, "%" SCNu64, &oid) != 1)
		return note(mm, "summary id missing");
	if (oid != id)
		return note(mm, "summary id: oracle %" PRIu64 ", ours %" PRIu64, oid, id);
	if (!check_i64(j, "rank", rank, mm))
		return false;
	const json_value *ci = json_get(j, "counters"), *cf = json_get(j, "fcounters");
	if (!ci || !cf || ci->count != m->n_int || cf->count != m->n_float)
		return note(mm, "summary counters missing or of another count");
	for (size_t i = 0; i < ci->count; i++) {
		int idx = int_index(m, ci->keys[i]);
		int64_t v;
		if (idx < 0)
			return note(mm, "unknown counter %s", ci->keys[i]);
		memcpy(&v, summary + m->int_offset + 8 * idx, 8);
		if (!check_i64(ci, ci->keys[i], v, mm))
			return false;
	}
	for (size_t i = 0; i < cf->count; i++) {
		int idx = float_index(m, cf->keys[i]);
		double v;
		if (idx < 0)
			return note(mm, "unknown counter %s", cf->keys[i]);
		memcpy(&v, summary + m->float_offset + 8 * idx, 8);
		if (!check_double(cf, cf->keys[i], v, mm))
			return false;
	}
	return true;
}

typedef struct accum_result {
	dfs_derived_metrics dm;
	unsigned char summary[1024];
	size_t warnings;
	char first_warning[256];
} accum_result;

static void accumulate(const dfs_module *m, int64_t nprocs, const dfs_buf *sel,
                       size_t n, accum_result *res)
{
	dfs_error err = {0};
	dfs_accum *a = dfs_accum_create(m, nprocs, &err);
	assert_non_null(a);
	assert_int_equal(dfs_accum_inject(a, m, sel->data, n, &err), 0);
	assert_int_equal(dfs_accum_emit(a, &res->dm, res->summary, &err), 0);
	res->warnings = dfs_accum_warning_count(a);
	snprintf(res->first_warning, sizeof(res->first_warning), "%s",
	         res->warnings ? dfs_accum_warning(a, 0) : "");
	dfs_accum_free(a);
}

typedef struct accum_tally {
	size_t files, cases, ok_cases, zero_cases, skipped;
} accum_tally;

/* one case of one <MODULE>.json */
static bool check_case(const dfs_log *log, const dfs_records *rs,
                       const json_value *c, int sel, bool named_only,
                       int64_t nprocs, accum_tally *tally, mismatch *mm)
{
	const dfs_module *m = rs->module;
	const char *status = json_string(json_get(c, "status"));
	if (!status || strcmp(status, "not_applicable") == 0) {
		tally->skipped++;
		return true;
	}
	tally->cases++;
	dfs_buf sel_buf = DFS_BUF_INIT;
	size_t n = select_records(log, rs, sel, named_only, &sel_buf);
	int64_t expect_n;
	bool ok = json_int64(json_get(c, "n_records"), &expect_n);
	if (!ok || (int64_t)n != expect_n) {
		dfs_buf_free(&sel_buf);
		return note(mm, "selected %zu records, oracle %" PRId64, n, expect_n);
	}
	const json_value *result = c;
	if (strcmp(status, "ok") != 0) {
		result = json_get(c, "c_accumulator_with_zero_records");
		if (!result || n != 0) {
			dfs_buf_free(&sel_buf);
			return note(mm, "status %s without a zero-record result", status);
		}
		tally->zero_cases++;
	}
	accum_result *res = calloc(1, sizeof(*res));
	assert_non_null(res);
	accumulate(m, nprocs, &sel_buf, n, res);
	ok = check_derived(json_get(result, "derived_metrics"), &res->dm, mm) &&
	     check_summary(json_get(result, "summation_record"), m, res->summary, mm);
	tally->ok_cases += ok;
	free(res);
	dfs_buf_free(&sel_buf);
	return ok;
}

/* The log whose pydarshan selection dropped nameless records: what the
 * unfiltered accumulation gives. */
static void report_unfiltered(const char *logname, const dfs_records *rs,
                              int64_t nprocs)
{
	const dfs_module *m = rs->module;
	dfs_buf all = DFS_BUF_INIT;
	dfs_records raw;
	assert_int_equal(dfs_records_unpacked(rs, &raw), 0);
	dfs_buf_add(&all, raw.data, rs->count * m->record_size);
	dfs_records_free(&raw);
	accum_result *res = calloc(1, sizeof(*res));
	assert_non_null(res);
	accumulate(m, nprocs, &all, rs->count, res);
	const dfs_derived_metrics *dm = &res->dm;
	print_message("oracle accum: %s %s unfiltered (%zu records): total_bytes %" PRId64
	              ", files %" PRId64 ", slowest rank %d (%.17g s), shared %.17g s, "
	              "%zu warning(s): %s\n",
	              logname, m->name, rs->count, dm->total_bytes,
	              dm->category_counters[DFS_ALL_FILES].count,
	              dm->unique_io_slowest_rank, dm->unique_io_total_time_by_slowest,
	              dm->shared_io_total_time_by_slowest, res->warnings,
	              res->first_warning);
	free(res);
	dfs_buf_free(&all);
}

static void check_module_json(const char *logname, const dfs_log *log,
                              const char *path, accum_tally *tally,
                              size_t *failures)
{
	char msg[256];
	json_value *j = json_parse_file(path, msg, sizeof(msg));
	if (!j) {
		print_message("oracle accum: %s\n", msg);
		(*failures)++;
		return;
	}
	const char *modname = json_string(json_get(j, "module"));
	const dfs_module *m = modname ? dfs_module_by_name(modname) : NULL;
	const dfs_records *rs = m ? dfs_log_records(log, m->id) : NULL;
	int64_t nprocs, n_py, n_log;
	if (!rs || !json_int64(json_get(j, "job_nprocs"), &nprocs) ||
	    !json_int64(json_get(j, "n_records_pydarshan"), &n_py) ||
	    !json_int64(json_get(j, "n_records_in_log"), &n_log) ||
	    n_log != (int64_t)rs->count || nprocs != dfs_log_job(log)->nprocs) {
		print_message("oracle accum: %s: module or record count differs\n", path);
		(*failures)++;
		json_free(j);
		return;
	}
	tally->files++;
	bool named_only = n_py != n_log;
	const json_value *cases = json_get(j, "cases");
	for (int sel = 0; sel < 4; sel++) {
		const json_value *c = json_get(cases, case_names[sel]);
		mismatch mm = {{0}};
		if (!c) {
			print_message("oracle accum: %s: no case %s\n", path, case_names[sel]);
			(*failures)++;
			continue;
		}
		if (!check_case(log, rs, c, sel, named_only, nprocs, tally, &mm)) {
			print_message("oracle accum: %s %s %s: %s\n", logname, m->name,
			              case_names[sel], mm.what);
			(*failures)++;
		}
	}
	if (named_only)
		report_unfiltered(logname, rs, nprocs);
	json_free(j);
}

static void test_oracle_accum(void **state)
{
	size_t n_logs = 0;
	char **names = shared_logs(&n_logs);
	if (!names) {
		print_message("oracle accum: no shared logs, skipped\n");
		skip();
	}
	static const char *const modules[] = {"POSIX", "MPI-IO", "STDIO", "DFS", "DAOS"};
	accum_tally tally = {0};
	size_t failures = 0, logs_used = 0;
	for (size_t l = 0; l < n_logs; l++) {
		char *path = shared_log_path(names[l]);
		dfs_error err = {0};
		dfs_log *log = dfs_log_open(path, 0, &err);
		free(path);
		if (!log) {
			print_message("oracle accum: %s: %s\n", names[l], err.msg);
			failures++;
			continue;
		}
		bool used = false;
		for (size_t k = 0; k < 5; k++) {
			char json[8192];
			PATH_FMT(json, "%s/oracle/accum/%s/%s.json", shared_dir(), names[l],
			         modules[k]);
			if (!is_file(json))
				continue;
			used = true;
			check_module_json(names[l], log, json, &tally, &failures);
		}
		logs_used += used;
		dfs_log_free(log);
	}
	print_message("oracle accum: %zu logs, %zu module files, %zu/%zu cases match "
	              "(%zu of them empty selections against the zero-record C result), "
	              "%zu not applicable\n",
	              logs_used, tally.files, tally.ok_cases, tally.cases,
	              tally.zero_cases, tally.skipped);
	shared_free_list(names);
	assert_int_equal(failures, 0);
	assert_int_equal(tally.ok_cases, tally.cases);
	assert_true(tally.cases > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables_match_modules),
		cmocka_unit_test(test_create_errors),
		cmocka_unit_test(test_worked_example),
		cmocka_unit_test(test_common_access_example),
		cmocka_unit_test(test_common_merge_edges),
		cmocka_unit_test(test_sums_with_minus_one),
		cmocka_unit_test(test_max_min_rules),
		cmocka_unit_test(test_fastest_slowest),
		cmocka_unit_test(test_partially_shared),
		cmocka_unit_test(test_slowest_rank_ties),
		cmocka_unit_test(test_zero_records),
		cmocka_unit_test(test_rank_out_of_range),
		cmocka_unit_test(test_combined),
		cmocka_unit_test(test_render_total),
		cmocka_unit_test(test_render_json),
		cmocka_unit_test(test_json_reader),
		cmocka_unit_test(test_many_records),
		cmocka_unit_test(test_oracle_parser),
		cmocka_unit_test(test_oracle_accum),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
