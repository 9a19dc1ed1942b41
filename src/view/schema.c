/* schema.c - the columns of a directory's tables (jobs.csv, modules.csv,
 * insights.csv, files.csv) and their types, one list that the renderers' headers and
 * schema.json are both made from.
 *
 * A column has one type in every directory of every tree: a number
 * column holds a number or nothing (empty: no value), never text, so an
 * engine that reads many of these files at once (a DuckDB glob, Dask,
 * Spark) may be told the types instead of guessing them from the first
 * files it reads.  schema.json, in every directory, says them in the
 * words of those engines.
 *
 * Near the bottom of the view: it calls content.c only. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "view/view_int.h"

/* the columns of jobs.csv before and after its per-module bytes */
static const struct table_col jobs_head[] = {
	{"log", COL_TEXT, "path of the log relative to the directory"},
	{"jobid", COL_INT, "job id"},
	{"uid", COL_INT, "user id of the job"},
	{"user", COL_TEXT, "the user Darshan named the log after (USER_EXE_idJOBID...; empty when not so named)"},
	{"exe", COL_TEXT, "executable and its arguments"},
	{"nprocs", COL_INT, "MPI processes"},
	{"start_time", COL_INT, "start, Unix seconds"},
	{"end_time", COL_INT, "end, Unix seconds"},
	{"start_iso", COL_TEXT, "start, ISO 8601 UTC (empty when start_time is not positive)"},
	{"end_iso", COL_TEXT, "end, ISO 8601 UTC (empty when end_time is not positive)"},
	{"run_time", COL_REAL, "run time (s)"},
	{"io_module", COL_TEXT, "the row of modules.csv that stands for the job's I/O: "
	                        "POSIX+STDIO, else the module with the most bytes"},
	{"io_bytes", COL_INT, "bytes read and written by the job (that row)"},
	{"io_bytes_read", COL_INT, "bytes read (that row)"},
	{"io_bytes_written", COL_INT, "bytes written (that row)"},
	{"io_time", COL_REAL, "I/O time by the slowest rank (s, that row)"},
	{"io_perf", COL_REAL, "MiB/s by the slowest rank (that row)"},
	{"io_share", COL_REAL, "io_time / run_time"},
};
static const struct table_col jobs_tail[] = {
	{"modules", COL_TEXT, "the modules the log has data of, space-separated"},
	{"partial", COL_INT, "1 when a module's data is incomplete"},
	{"error", COL_TEXT, "why the log, or a module of it, cannot be read"},
	{"filters", COL_TEXT, "the filters that made the job's selections"},
};

static const struct table_col modules_cols[] = {
	{"log", COL_TEXT, "path of the log relative to the directory"},
	{"module", COL_TEXT, "module, or POSIX+STDIO (a file used through both counts once)"},
	{"exe", COL_TEXT, "executable and its arguments"},
	{"jobid", COL_INT, "job id"},
	{"uid", COL_INT, "user id of the job"},
	{"nprocs", COL_INT, "MPI processes"},
	{"start_time", COL_INT, "start, Unix seconds"},
	{"end_time", COL_INT, "end, Unix seconds"},
	{"run_time", COL_REAL, "run time (s)"},
	{"partial", COL_INT, "1 when the module's data is incomplete"},
	{"records", COL_INT, "records selected"},
	{"total_bytes", COL_INT, "bytes moved"},
	{"bytes_read", COL_INT, "bytes read"},
	{"bytes_written", COL_INT, "bytes written"},
	{"total_files", COL_INT, "files"},
	{"read_only_files", COL_INT, "files only read"},
	{"write_only_files", COL_INT, "files only written"},
	{"read_write_files", COL_INT, "files read and written"},
	{"unique_files", COL_INT, "files of one rank"},
	{"shared_files", COL_INT, "files shared or partially shared"},
	{"time_by_slowest", COL_REAL, "I/O time by the slowest rank (s)"},
	{"perf_by_slowest", COL_REAL, "MiB/s by the slowest rank"},
	{"error", COL_TEXT, "why the log, or that module of it, cannot be read"},
	{"filters", COL_TEXT, "the filters that made the row's selection"},
};

static const struct table_col insights_cols[] = {
	{"log", COL_TEXT, "path of the log relative to the directory"},
	{"code", COL_TEXT, "the finding"},
	{"level", COL_TEXT, "HIGH, WARN or INFO"},
	{"module", COL_TEXT, "module the finding is about"},
	{"message", COL_TEXT, "the finding in words"},
	{"value", COL_REAL, "the measure that crossed the threshold"},
	{"threshold", COL_REAL, "the threshold"},
	{"count", COL_REAL, "the numbers behind the value"},
	{"total", COL_REAL, "the numbers behind the value"},
	{"files", COL_TEXT, "the files the finding is about, a JSON array of {name, share}"},
	{"ranks", COL_TEXT, "the ranks the finding is about, a JSON array of {rank, share}"},
	{"advice", COL_TEXT, "what to do, in short (insights.txt has the whole advice)"},
};

static const struct table_col files_cols[] = {
	{"module", COL_TEXT, "the module (empty on the row of a log left out)"},
	{"file_name", COL_TEXT, "the file"},
	{"jobs", COL_INT, "the logs whose selection has the file"},
	{"bytes_read", COL_INT, "bytes read, summed over the logs"},
	{"bytes_written", COL_INT, "bytes written, summed over the logs"},
	{"reads", COL_INT, "read operations, summed"},
	{"writes", COL_INT, "write operations, summed"},
	{"total_bytes", COL_INT, "bytes read and written, summed"},
	{"time_by_slowest", COL_REAL, "the logs' time by the slowest rank of the file, summed (s)"},
	{"perf_by_slowest", COL_REAL, "total_bytes / 1 MiB / time_by_slowest (MiB/s)"},
	{"read_time", COL_REAL, "read time, summed (s)"},
	{"write_time", COL_REAL, "write time, summed (s)"},
	{"meta_time", COL_REAL, "metadata time, summed (s)"},
	{"first_job", COL_TEXT, "the log of the job that started first"},
	{"first_start", COL_INT, "its start, Unix seconds"},
	{"last_job", COL_TEXT, "the log of the job that started last"},
	{"last_start", COL_INT, "its start, Unix seconds"},
	{"mount_pt", COL_TEXT, "mount point, as the first log with the file has it"},
	{"fs_type", COL_TEXT, "its file system type"},
	{"error", COL_TEXT, "on the row of a log or module left out, why"},
	{"left_out", COL_INT, "values of the logs left out of the sums as implausible"},
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

bool dfs_module_has_bytes_col(int id)
{
	const dfs_module *m = id >= 0 && id < DFS_MOD_KNOWN ? dfs_module_get(id) : NULL;
	return m && m->accumulator;
}

/* "MPI-IO" -> "mpiio_bytes" */
static void bytes_col_name(int id, char *out, size_t size)
{
	const char *name = dfs_module_get(id)->name;
	size_t k = 0;
	for (const char *p = name; *p && k + 7 < size; p++)
		if (isalnum((unsigned char)*p))
			out[k++] = (char)tolower((unsigned char)*p);
	snprintf(out + k, size - k, "_bytes");
}

size_t dfs_table_columns(enum file_kind k, struct table_col *cols, size_t max)
{
	const struct table_col *t = NULL;
	size_t n = 0, tn = 0;
	if (k == F_MODULES) {
		t = modules_cols;
		tn = N(modules_cols);
	} else if (k == F_DIR_INSIGHTS) {
		t = insights_cols;
		tn = N(insights_cols);
	} else if (k == F_DIR_FILES) {
		t = files_cols;
		tn = N(files_cols);
	}
	if (t) {
		for (; n < tn && n < max; n++)
			cols[n] = t[n];
		return n;
	}
	if (k != F_JOBS)
		return 0;
	for (size_t i = 0; i < N(jobs_head) && n < max; i++)
		cols[n++] = jobs_head[i];
	for (int id = 0; id < DFS_MOD_KNOWN && n < max; id++) {
		if (!dfs_module_has_bytes_col(id))
			continue;
		cols[n] = (struct table_col){"", COL_INT, "bytes read and written through the module"};
		bytes_col_name(id, cols[n].name, sizeof(cols[n].name));
		n++;
	}
	for (size_t i = 0; i < N(jobs_tail) && n < max; i++)
		cols[n++] = jobs_tail[i];
	return n;
}

void dfs_table_header(enum file_kind k, dfs_buf *out)
{
	struct table_col cols[MAX_TABLE_COLS];
	size_t n = dfs_table_columns(k, cols, MAX_TABLE_COLS);
	for (size_t i = 0; i < n; i++) {
		if (i)
			dfs_buf_addc(out, ',');
		dfs_buf_adds(out, cols[i].name);
	}
	dfs_buf_addc(out, '\n');
}

static void json_str(dfs_buf *out, const char *s)
{
	dfs_buf_addc(out, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			dfs_buf_addc(out, '\\');
		dfs_buf_addc(out, *s);
	}
	dfs_buf_addc(out, '"');
}

/* the type in the words of SQL engines (DuckDB, SQLite), pandas/Dask
 * and Spark */
static const char *const type_sql[] = {"VARCHAR", "BIGINT", "DOUBLE"};
static const char *const type_pandas[] = {"string", "Int64", "float64"};
static const char *const type_spark[] = {"string", "bigint", "double"};

static void table_json(dfs_buf *out, const char *file, enum file_kind k, bool last)
{
	struct table_col cols[MAX_TABLE_COLS];
	size_t n = dfs_table_columns(k, cols, MAX_TABLE_COLS);
	dfs_buf_adds(out, "    ");
	json_str(out, file);
	dfs_buf_adds(out, ": {\n      \"columns\": [\n");
	for (size_t i = 0; i < n; i++) {
		dfs_buf_adds(out, "        {\"name\": ");
		json_str(out, cols[i].name);
		dfs_buf_printf(out, ", \"type\": \"%s\", \"pandas\": \"%s\", \"spark\": \"%s\", "
		               "\"description\": ", type_sql[cols[i].type],
		               type_pandas[cols[i].type], type_spark[cols[i].type]);
		json_str(out, cols[i].about);
		dfs_buf_adds(out, i + 1 < n ? "},\n" : "}\n");
	}
	/* ready to paste: DuckDB's read_csv(columns = ...), Spark's schema */
	dfs_buf_adds(out, "      ],\n      \"duckdb_columns\": \"{");
	for (size_t i = 0; i < n; i++)
		dfs_buf_printf(out, "%s'%s': '%s'", i ? ", " : "", cols[i].name,
		               type_sql[cols[i].type]);
	dfs_buf_adds(out, "}\",\n      \"spark_schema\": \"");
	for (size_t i = 0; i < n; i++)
		dfs_buf_printf(out, "%s`%s` %s", i ? ", " : "", cols[i].name,
		               type_spark[cols[i].type]);
	dfs_buf_adds(out, last ? "\"\n    }\n" : "\"\n    },\n");
}

dfs_content *dfs_schema_content(dfs_view *v, dfs_error *err)
{
	dfs_buf out = DFS_BUF_INIT;
	dfs_buf_adds(&out, "{\n  \"format\": \"darshanfs table schema 1\",\n"
	                   "  \"csv\": {\"header\": true, \"delimiter\": \",\", \"quote\": \"\\\"\", "
	                   "\"escape\": \"\\\"\", \"null\": \"\"},\n  \"tables\": {\n");
	table_json(&out, "jobs.csv", F_JOBS, false);
	table_json(&out, "modules.csv", F_MODULES, false);
	table_json(&out, "insights.csv", F_DIR_INSIGHTS, false);
	table_json(&out, "files.csv", F_DIR_FILES, true);
	dfs_buf_adds(&out, "  }\n}\n");
	return dfs_content_from_buf(v, &out, err);
}
