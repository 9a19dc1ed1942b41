/* results_text.c - the accumulator's results as text: the --total, --file and
 * --perf blocks exactly as darshan-parser prints them (format doc §7.5,
 * §8.4, §8.5), and the derived metrics as JSON (derived_metrics.json).
 *
 * The text renderers reproduce darshan-parser's number formats (%PRId64,
 * %lf) and its quirks, such as the `shared` maximum offset being a sum.
 * The JSON renderer prints doubles in the shortest form that reads back to
 * the same value, so a reader gets the exact binary metrics back. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "darshanfs/accum.h"
#include "util/bytes.h"

void dfs_render_total(const dfs_module *m, const void *summary, dfs_buf *out)
{
	const unsigned char *rec = summary;
	for (size_t i = 0; i < m->n_int; i++)
		dfs_buf_printf(out, "total_%s: %" PRId64 "\n", m->int_names[i],
		               dfs_load_i64(rec + m->int_offset + 8 * i, false));
	for (size_t i = 0; i < m->n_float; i++)
		dfs_buf_printf(out, "total_%s: %lf\n", m->float_names[i],
		               dfs_load_f64(rec + m->float_offset + 8 * i, false));
}

static int64_t volume(const dfs_category_counters *c)
{
	return (int64_t)((uint64_t)c->total_read_volume_bytes +
	                 (uint64_t)c->total_write_volume_bytes);
}

static void file_count_line(dfs_buf *out, const char *label,
                            const dfs_category_counters *c)
{
	dfs_buf_printf(out, "# %s: %" PRId64 " %" PRId64 " %" PRId64 "\n", label,
	               c->count, volume(c), c->max_offset_bytes);
}

void dfs_render_file_counts(const dfs_derived_metrics *dm, dfs_buf *out)
{
	const dfs_category_counters *cc = dm->category_counters;
	dfs_buf_adds(out,
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
		"\n# <file_type> <file_count> <total_bytes> <max_byte_offset>\n");
	file_count_line(out, "total", &cc[DFS_ALL_FILES]);
	file_count_line(out, "read_only", &cc[DFS_RO_FILES]);
	file_count_line(out, "write_only", &cc[DFS_WO_FILES]);
	file_count_line(out, "read_write", &cc[DFS_RW_FILES]);
	file_count_line(out, "unique", &cc[DFS_UNIQ_FILES]);

	/* `shared` merges SHARED and PART_SHARED; its maximum offset is the
	 * SUM of the two categories' maxima (darshan-parser quirk) */
	const dfs_category_counters *sh = &cc[DFS_SHARED_FILES];
	const dfs_category_counters *ps = &cc[DFS_PART_SHARED_FILES];
	dfs_buf_printf(out, "# shared: %" PRId64 " %" PRId64 " %" PRId64 "\n",
	               (int64_t)((uint64_t)sh->count + (uint64_t)ps->count),
	               (int64_t)((uint64_t)volume(sh) + (uint64_t)volume(ps)),
	               (int64_t)((uint64_t)sh->max_offset_bytes +
	                         (uint64_t)ps->max_offset_bytes));
}

void dfs_render_perf(const dfs_derived_metrics *dm, dfs_buf *out)
{
	dfs_buf_printf(out,
		"\n# performance\n"
		"# -----------\n"
		"# total_bytes: %" PRId64 "\n"
		"#\n"
		"# I/O timing for unique files (seconds):\n"
		"# ...........................\n"
		"# unique files: slowest_rank_io_time: %lf\n"
		"# unique files: slowest_rank_meta_only_time: %lf\n"
		"# unique files: slowest_rank_rw_only_time: %lf\n"
		"# unique files: slowest_rank: %d\n"
		"#\n"
		"# I/O timing for shared files (seconds):\n"
		"# ...........................\n"
		"# shared files: time_by_slowest: %lf\n"
		"#\n"
		"# Aggregate performance, including both shared and unique files:\n"
		"# ...........................\n"
		"# agg_time_by_slowest: %lf # seconds\n"
		"# agg_perf_by_slowest: %lf # MiB/s\n",
		dm->total_bytes, dm->unique_io_total_time_by_slowest,
		dm->unique_md_only_time_by_slowest, dm->unique_rw_only_time_by_slowest,
		dm->unique_io_slowest_rank, dm->shared_io_total_time_by_slowest,
		dm->agg_time_by_slowest, dm->agg_perf_by_slowest);
}

/* ---- JSON ----------------------------------------------------------------- */

/* A double as a JSON value: shortest round-trip text; JSON has no NaN or
 * infinity, so those become the strings Python's json module would read
 * with its usual conventions ("NaN", "Infinity", "-Infinity"). */
static void json_double(dfs_buf *out, double v)
{
	if (isnan(v))
		dfs_buf_adds(out, "\"NaN\"");
	else if (isinf(v))
		dfs_buf_adds(out, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
	else
		dfs_buf_add_double(out, v);
}

/* `indent` spaces, "key": */
static void json_key(dfs_buf *out, int indent, const char *key)
{
	dfs_buf_printf(out, "%*s\"%s\": ", indent, "", key);
}

static void json_i64_member(dfs_buf *out, int indent, const char *key,
                            int64_t v, bool last)
{
	json_key(out, indent, key);
	dfs_buf_add_i64(out, v);
	dfs_buf_adds(out, last ? "\n" : ",\n");
}

static void json_double_member(dfs_buf *out, int indent, const char *key,
                               double v)
{
	json_key(out, indent, key);
	json_double(out, v);
	dfs_buf_adds(out, ",\n");
}

static void json_category(dfs_buf *out, int i, const dfs_category_counters *c,
                          bool last)
{
	dfs_buf_adds(out, "    {\n");
	json_key(out, 6, "category");
	dfs_buf_printf(out, "\"%s\",\n", dfs_file_category_names[i]);
	json_i64_member(out, 6, "count", c->count, false);
	json_i64_member(out, 6, "total_read_volume_bytes", c->total_read_volume_bytes, false);
	json_i64_member(out, 6, "total_write_volume_bytes", c->total_write_volume_bytes, false);
	json_i64_member(out, 6, "max_read_volume_bytes", c->max_read_volume_bytes, false);
	json_i64_member(out, 6, "max_write_volume_bytes", c->max_write_volume_bytes, false);
	json_i64_member(out, 6, "total_max_offset_bytes", c->total_max_offset_bytes, false);
	json_i64_member(out, 6, "max_offset_bytes", c->max_offset_bytes, false);
	json_i64_member(out, 6, "nprocs", c->nprocs, true);
	dfs_buf_adds(out, last ? "    }\n" : "    },\n");
}

void dfs_render_derived_json(const dfs_derived_metrics *dm, dfs_buf *out)
{
	dfs_buf_adds(out, "{\n");
	json_i64_member(out, 2, "total_bytes", dm->total_bytes, false);
	json_double_member(out, 2, "unique_io_total_time_by_slowest",
	                   dm->unique_io_total_time_by_slowest);
	json_double_member(out, 2, "unique_rw_only_time_by_slowest",
	                   dm->unique_rw_only_time_by_slowest);
	json_double_member(out, 2, "unique_md_only_time_by_slowest",
	                   dm->unique_md_only_time_by_slowest);
	json_i64_member(out, 2, "unique_io_slowest_rank", dm->unique_io_slowest_rank,
	                false);
	json_double_member(out, 2, "shared_io_total_time_by_slowest",
	                   dm->shared_io_total_time_by_slowest);
	json_double_member(out, 2, "agg_perf_by_slowest", dm->agg_perf_by_slowest);
	json_double_member(out, 2, "agg_time_by_slowest", dm->agg_time_by_slowest);
	json_key(out, 2, "category_counters");
	dfs_buf_adds(out, "[\n");
	for (int i = 0; i < DFS_FILE_CATEGORIES; i++)
		json_category(out, i, &dm->category_counters[i],
		              i == DFS_FILE_CATEGORIES - 1);
	dfs_buf_adds(out, "  ]\n}\n");
}
