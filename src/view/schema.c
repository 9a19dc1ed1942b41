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
 * And the Parquet twins of every CSV table of the tree: each column's
 * type, and the twin made from its CSV (src/parquet).
 *
 * Near the bottom of the view: it calls snapshot.c only. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "darshanfs/module.h"
#include "util/workers.h"
#include "view/schema.h"

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

static size_t twin_types(enum file_kind csv, int module, struct table_col *keep,
                         struct dfs_pq_column *t, size_t max);

/* a column's type in the Parquet twin (docs/parquet.md) */
static const char *pq_type_name(enum dfs_pq_type t)
{
	switch (t) {
	case DFS_PQ_UINT64: return "UINT64";
	case DFS_PQ_DOUBLE: return "DOUBLE";
	case DFS_PQ_STRING: return "STRING";
	case DFS_PQ_TIMESTAMP: return "TIMESTAMP";
	case DFS_PQ_BOOL: return "BOOLEAN";
	default: return "INT64";
	}
}

static void table_json(dfs_buf *out, const char *file, enum file_kind k, bool last)
{
	struct table_col cols[MAX_TABLE_COLS], keep[MAX_TABLE_COLS];
	struct dfs_pq_column pq[MAX_TABLE_COLS];
	size_t n = dfs_table_columns(k, cols, MAX_TABLE_COLS);
	size_t npq = twin_types(k, -1, keep, pq, MAX_TABLE_COLS);
	dfs_buf_adds(out, "    ");
	json_str(out, file);
	dfs_buf_adds(out, ": {\n      \"parquet_twin\": ");
	/* (jobs.csv: jobs.parquet) */
	char twin[64];
	snprintf(twin, sizeof(twin), "%.*s.parquet", (int)(strlen(file) - 4), file);
	json_str(out, twin);
	dfs_buf_adds(out, ",\n      \"columns\": [\n");
	for (size_t i = 0; i < n; i++) {
		const char *ptype = "STRING";
		for (size_t j = 0; j < npq; j++)
			if (strcmp(pq[j].name, cols[i].name) == 0)
				ptype = pq_type_name(pq[j].type);
		dfs_buf_adds(out, "        {\"name\": ");
		json_str(out, cols[i].name);
		dfs_buf_printf(out, ", \"type\": \"%s\", \"pandas\": \"%s\", \"spark\": \"%s\", "
		               "\"parquet\": \"%s\", \"description\": ", type_sql[cols[i].type],
		               type_pandas[cols[i].type], type_spark[cols[i].type], ptype);
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

dfs_snapshot *dfs_schema_content(dfs_view *v, dfs_error *err)
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
	return dfs_snapshot_from_buf(v, &out, err);
}

/* ---- the Parquet twins ---------------------------------------------------- */

static const struct {
	enum file_kind pq, csv;
} twins[] = {
	{F_MOUNTS_PARQUET, F_MOUNTS}, {F_NAMES_PARQUET, F_NAMES},
	{F_INSIGHTS_PARQUET, F_INSIGHTS_CSV}, {F_RECORDS_PARQUET, F_RECORDS},
	{F_TOTAL_PARQUET, F_TOTAL_CSV}, {F_FILES_PARQUET, F_FILES_CSV},
	{F_RANKS_PARQUET, F_RANKS_CSV}, {F_JOBS_PARQUET, F_JOBS},
	{F_MODULES_PARQUET, F_MODULES}, {F_DIR_INSIGHTS_PARQUET, F_DIR_INSIGHTS},
	{F_DIR_FILES_PARQUET, F_DIR_FILES}, {F_SELECTIONS_PARQUET, F_SELECTIONS_CSV},
};

int dfs_parquet_source(enum file_kind k)
{
	for (size_t i = 0; i < N(twins); i++)
		if (twins[i].pq == k)
			return (int)twins[i].csv;
	return -1;
}

struct dfs_pq_options dfs_parquet_options(void)
{
	return (struct dfs_pq_options){.codec = DFS_PQ_ZSTD, .level = 1,
	                               .threads = dfs_workers(DFS_WORKERS_MAX, 64)};
}

#define PQ_INT DFS_PQ_INT64
#define PQ_U64 DFS_PQ_UINT64
#define PQ_REAL DFS_PQ_DOUBLE
#define PQ_TEXT DFS_PQ_STRING
#define PQ_TIME DFS_PQ_TIMESTAMP

/* (times relative to the job's start, as Darshan keeps them, are seconds:
 * DOUBLE; times of the calendar are TIMESTAMP) */
static const struct dfs_pq_column files_pq[] = {
	{"record_id", PQ_U64, true}, {"file_name", PQ_TEXT, true}, {"ranks", PQ_INT, true},
	{"records", PQ_INT, true}, {"bytes_read", PQ_INT, true}, {"bytes_written", PQ_INT, true},
	{"reads", PQ_INT, true}, {"writes", PQ_INT, true}, {"total_bytes", PQ_INT, true},
	{"time_by_slowest", PQ_REAL, true}, {"perf_by_slowest", PQ_REAL, true},
	{"read_time", PQ_REAL, true}, {"write_time", PQ_REAL, true}, {"meta_time", PQ_REAL, true},
	{"first_open", PQ_REAL, true}, {"last_close", PQ_REAL, true}, {"mount_pt", PQ_TEXT, true},
	{"fs_type", PQ_TEXT, true}, {"stripe_size", PQ_INT, true}, {"stripe_count", PQ_INT, true},
};
static const struct dfs_pq_column ranks_pq[] = {
	{"rank", PQ_INT, true}, {"records", PQ_INT, true}, {"files", PQ_INT, true},
	{"bytes_read", PQ_INT, true}, {"bytes_written", PQ_INT, true}, {"reads", PQ_INT, true},
	{"writes", PQ_INT, true}, {"read_time", PQ_REAL, true}, {"write_time", PQ_REAL, true},
	{"meta_time", PQ_REAL, true}, {"io_time", PQ_REAL, true},
	{"slowest_share", PQ_REAL, true},
};
static const struct dfs_pq_column selections_pq[] = {
	{"file", PQ_TEXT, true}, {"level", PQ_TEXT, true}, {"log", PQ_TEXT, true},
	{"module", PQ_TEXT, true}, {"filter", PQ_TEXT, true}, {"imported_rows", PQ_INT, true},
	{"written", PQ_TIME, true}, {"selected", PQ_INT, true}, {"log_records", PQ_INT, true},
	{"error", PQ_TEXT, true},
};
static const struct dfs_pq_column names_pq[] = {
	{"record_id", PQ_U64, true}, {"file_name", PQ_TEXT, true},
};
static const struct dfs_pq_column mounts_pq[] = {
	{"mount_pt", PQ_TEXT, true}, {"fs_type", PQ_TEXT, true},
};

/* The columns of table `csv` with their Parquet types, into t (at most
 * max, names pointing into `keep` or static text); how many. */
static size_t twin_types(enum file_kind csv, int module, struct table_col *keep,
                         struct dfs_pq_column *t, size_t max)
{
	const struct dfs_pq_column *fixed = NULL;
	size_t n = 0;
	switch (csv) {
	case F_FILES_CSV: fixed = files_pq; n = N(files_pq); break;
	case F_RANKS_CSV: fixed = ranks_pq; n = N(ranks_pq); break;
	case F_SELECTIONS_CSV: fixed = selections_pq; n = N(selections_pq); break;
	case F_NAMES: fixed = names_pq; n = N(names_pq); break;
	case F_MOUNTS: fixed = mounts_pq; n = N(mounts_pq); break;
	default: break;
	}
	if (fixed) {
		for (size_t i = 0; i < n && i < max; i++)
			t[i] = fixed[i];
		return n < max ? n : max;
	}
	if (csv == F_TOTAL_CSV || csv == F_RECORDS) {
		const dfs_module *m = dfs_module_get(module);
		if (!m)
			return 0;
		for (size_t f = 0; f < m->n_fields && n < max; f++, n++) {
			dfs_type ty = m->fields[f].type;
			t[n] = (struct dfs_pq_column){m->fields[f].name,
			                              ty == DFS_T_U64 ? PQ_U64 : ty == DFS_T_F64 ? PQ_REAL
			                              : ty == DFS_T_STR ? PQ_TEXT : PQ_INT, true};
		}
		static const char *const place[3] = {"file_name", "mount_pt", "fs_type"};
		for (size_t k = 0; k < 3 && n < max; k++)
			t[n++] = (struct dfs_pq_column){place[k], PQ_TEXT, true};
		return n;
	}
	/* a directory's tables, and a log's insights.csv (those of a
	 * directory's less the log's path) */
	enum file_kind k = csv == F_INSIGHTS_CSV ? F_DIR_INSIGHTS : csv;
	size_t nc = dfs_table_columns(k, keep, max);
	for (size_t i = 0; i < nc; i++) {
		size_t len = strlen(keep[i].name);
		bool iso = keep[i].type == COL_TEXT && len > 4 && !strcmp(keep[i].name + len - 4, "_iso");
		t[i] = (struct dfs_pq_column){keep[i].name,
		                              iso ? PQ_TIME : keep[i].type == COL_INT ? PQ_INT
		                              : keep[i].type == COL_REAL ? PQ_REAL : PQ_TEXT, true};
	}
	return nc;
}

dfs_snapshot *dfs_parquet_twin(dfs_view *v, dfs_snapshot *csv, enum file_kind csv_kind,
                               int module, const dfs_buf *selection, dfs_error *err)
{
	if (selection && !dfs_buf_ok(selection)) {
		dfs_error_nomem(err);
		return NULL;
	}
	const char *line = !selection ? NULL : selection->data ? selection->data : "";
	uint64_t size = dfs_snapshot_size(csv);
	char *text = malloc(size ? (size_t)size : 1);
	if (!text || size > SIZE_MAX / 2) {
		free(text);
		dfs_error_nomem(err);
		return NULL;
	}
	for (uint64_t off = 0; off < size;) {
		long got = dfs_snapshot_read(csv, text + off, (size_t)(size - off), off, err);
		if (got <= 0) {
			free(text);
			if (got == 0)
				dfs_error_set(err, DFS_ERR_IO, "a table ended before its size");
			return NULL;
		}
		off += (uint64_t)got;
	}
	struct table_col keep[MAX_TABLE_COLS];
	struct dfs_pq_column *types = calloc(DFS_RECORD_MAX, sizeof(*types));
	if (!types) {
		free(text);
		dfs_error_nomem(err);
		return NULL;
	}
	size_t nt = twin_types(csv_kind, module, keep, types, DFS_RECORD_MAX);
	struct dfs_pq_options o = dfs_parquet_options();
	static const char *const key = DFS_PARQUET_SELECTION_KEY;
	if (line) {
		o.kv_keys = &key;
		o.kv_values = &line;
		o.nkv = 1;
	}
	dfs_buf pq = DFS_BUF_INIT;
	int ret = dfs_pq_from_csv(text, (size_t)size, types, nt, &o, &pq, err);
	free(text);
	free(types);
	if (ret) {
		/* a type declared wrong is ours to mend: no table rather than
		 * a wrong one */
		if (err->code == DFS_ERR_INVAL)
			err->code = DFS_ERR_IO;
		dfs_buf_free(&pq);
		return NULL;
	}
	return dfs_snapshot_from_buf(v, &pq, err);
}
