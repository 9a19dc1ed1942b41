/* test_oracle.c - issue-level conformance through the view (the code that
 * serves the mount and darshanfs-cat): for every shared log and every
 * module with an accumulator,
 *   - unfiltered derived_metrics holds darshan-parser's --file and --perf
 *     blocks for the module verbatim, and `total` holds exactly its
 *     total_* lines;
 *   - after writing the filters 'rank == 0', '<MOD>_BYTES_READ > 0' and
 *     'rank == -1', derived_metrics.json equals the official
 *     accumulator's result for the same selection (the oracle's rank0,
 *     read_bytes_gt0 and shared cases), field for field, exactly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/json.h"
#include "common/shared.h"
#include "darshanfs/accum.h"
#include "darshanfs/view.h"

static const struct {
	const char *module;     /* directory name */
	const char *read_bytes; /* the oracle's read-bytes counter */
} modules[] = {
	{"POSIX", "POSIX_BYTES_READ"},
	{"MPI-IO", "MPIIO_BYTES_READ"},
	{"STDIO", "STDIO_BYTES_READ"},
	{"DFS", "DFS_BYTES_READ"},
	{"DAOS", "DAOS_BYTES_READ"},
};

static char *slurp(dfs_view *v, const char *path)
{
	dfs_error err = {0};
	dfs_snapshot *c = dfs_view_open_file(v, path, NULL, &err);
	if (!c)
		return NULL;
	size_t size = dfs_snapshot_size(c);
	char *buf = malloc(size + 1);
	long n = dfs_snapshot_read(c, buf, size, 0, &err);
	assert_int_equal((size_t)n, size);
	buf[size] = '\0';
	dfs_snapshot_release(c);
	return buf;
}

static int set_filter(dfs_view *v, const char *path, const char *text)
{
	dfs_error err = {0};
	dfs_write *w = dfs_view_open_write(v, path, NULL, true, &err);
	if (!w)
		return -1;
	int ret = dfs_write_data(w, text, strlen(text), 0, &err);
	if (ret == 0)
		ret = dfs_write_flush(w, &err);
	dfs_write_free(w);
	return ret;
}

/* The block of module `name` in darshan-parser output: from after its
 * banner to the next banner (or the end). */
static char *module_block(const char *text, const char *name)
{
	char banner[128];
	snprintf(banner, sizeof(banner), "# %s module data\n", name);
	const char *p = strstr(text, banner);
	if (!p)
		return NULL;
	p = strchr(p, '\n') + 1;
	p = strchr(p, '\n') + 1; /* the line of stars after the name */
	const char *end = strstr(p, "\n# *******************************************************\n");
	size_t len = end ? (size_t)(end - p) : strlen(p);
	return strndup(p, len);
}

static bool same_number(const json_value *a, const json_value *b)
{
	int64_t x, y;
	if (json_int64(a, &x) && json_int64(b, &y))
		return x == y;
	double u, w;
	return json_double(a, &u) && json_double(b, &w) &&
	       memcmp(&u, &w, sizeof(u)) == 0;
}

static const char *const fields[] = {
	"total_bytes", "unique_io_total_time_by_slowest",
	"unique_rw_only_time_by_slowest", "unique_md_only_time_by_slowest",
	"unique_io_slowest_rank", "shared_io_total_time_by_slowest",
	"agg_perf_by_slowest", "agg_time_by_slowest",
};
static const char *const cat_fields[] = {
	"count", "total_read_volume_bytes", "total_write_volume_bytes",
	"max_read_volume_bytes", "max_write_volume_bytes",
	"total_max_offset_bytes", "max_offset_bytes", "nprocs",
};

static void compare_metrics(const json_value *want, const json_value *got,
                            const char *what)
{
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (!same_number(json_get(want, fields[i]), json_get(got, fields[i])))
			fail_msg("%s: %s differs", what, fields[i]);
	const json_value *wc = json_get(want, "category_counters");
	const json_value *gc = json_get(got, "category_counters");
	assert_int_equal(gc->count, 7);
	for (size_t k = 0; k < 7; k++) {
		assert_string_equal(json_string(json_get(json_at(gc, k), "category")),
		                    dfs_file_category_names[k]);
		for (size_t i = 0; i < 8; i++)
			if (!same_number(json_get(json_at(wc, k), cat_fields[i]),
			                 json_get(json_at(gc, k), cat_fields[i])))
				fail_msg("%s: %s.%s differs", what, dfs_file_category_names[k],
				         cat_fields[i]);
	}
}

static void test_oracle_through_view(void **state)
{
	(void)state;
	size_t n;
	char **logs = shared_logs(&n);
	if (!logs)
		skip();
	size_t blocks = 0, totals = 0, cases = 0, skipped = 0;
	for (size_t i = 0; i < n; i++) {
		char *path = shared_log_path(logs[i]);
		dfs_error err = {0};
		dfs_view *v = dfs_view_new(path, NULL, &err);
		assert_non_null(v);
		size_t flen, plen, tlen;
		char *file = oracle_read(logs[i], "file.txt", &flen);
		char *perf = oracle_read(logs[i], "perf.txt", &plen);
		char *total = oracle_read(logs[i], "total.txt", &tlen);
		size_t rclen;
		char *rc = oracle_read(logs[i], "total.rc", &rclen);
		bool aborted = rc && atoi(rc) == 134;
		free(rc);
		for (size_t m = 0; m < sizeof(modules) / sizeof(modules[0]); m++) {
			const char *mod = modules[m].module;
			char p[256];
			snprintf(p, sizeof(p), "%s/oracle/accum/%s/%s.json", shared_dir(),
			         logs[i], mod);
			json_value *oracle = json_parse_file(p, NULL, 0);
			if (!oracle)
				continue;
			/* unfiltered text against darshan-parser */
			snprintf(p, sizeof(p), "/%s/derived_metrics", mod);
			char *dm = slurp(v, p);
			assert_non_null(dm);
			const char *name = mod;
			/* (a partial module's block starts with a warning that
			 * belongs in PARTIAL, not in derived_metrics) */
			char *fb = file ? module_block(file, name) : NULL;
			char *pb = perf ? module_block(perf, name) : NULL;
			const char *fcore = fb ? strstr(fb, "\n# Total file counts") : NULL;
			const char *pcore = pb ? strstr(pb, "\n# performance") : NULL;
			if (fb && (!fcore || !strstr(dm, fcore)))
				fail_msg("%s %s: derived_metrics lacks the --file block", logs[i], mod);
			if (pb && (!pcore || !strstr(dm, pcore)))
				fail_msg("%s %s: derived_metrics lacks the --perf block", logs[i], mod);
			blocks += (fb != NULL) + (pb != NULL);
			snprintf(p, sizeof(p), "/%s/total", mod);
			char *tot = slurp(v, p);
			char *tb = total ? module_block(total, name) : NULL;
			if (tb) {
				/* every total_ line, in order, and nothing else
				 * but the filters that made the selection, as
				 * comments after them */
				const char *want = strstr(tb, "total_");
				char *notes = strstr(tot, "\n# filters: none (every record)\n");
				if (!notes || notes[strlen("\n# filters: none (every record)\n")])
					fail_msg("%s %s: total does not end with its filters line", logs[i], mod);
				notes[1] = '\0';
				/* an aborted darshan-parser run left a truncated
				 * output: then it must be a prefix of ours */
				bool ok = want && (strcmp(tot, want) == 0 ||
				                   (aborted && strncmp(tot, want, strlen(want)) == 0));
				if (want && !ok)
					fail_msg("%s %s: total differs from total.txt", logs[i], mod);
				totals++;
			}
			free(fb);
			free(pb);
			free(tb);
			free(tot);
			free(dm);
			/* filtered cases against the accumulator oracle */
			int64_t kept = 0, in_log = 0;
			json_int64(json_get(oracle, "n_records_pydarshan"), &kept);
			json_int64(json_get(oracle, "n_records_in_log"), &in_log);
			const char *case_names[] = {"all", "rank0", "read_bytes_gt0", "shared"};
			for (size_t c = 0; c < 4; c++) {
				char expr[128];
				if (c == 0)
					expr[0] = '\0';
				else if (c == 1)
					snprintf(expr, sizeof(expr), "rank == 0\n");
				else if (c == 2)
					snprintf(expr, sizeof(expr), "%s > 0\n", modules[m].read_bytes);
				else
					snprintf(expr, sizeof(expr), "rank == -1\n");
				snprintf(p, sizeof(p), "/%s/filter", mod);
				assert_int_equal(set_filter(v, p, expr), 0);
				snprintf(p, sizeof(p), "/%s/derived_metrics.json", mod);
				char *js = slurp(v, p);
				json_value *got = json_parse(js, strlen(js), NULL, 0);
				assert_non_null(got);
				const json_value *oc = json_get(json_get(oracle, "cases"), case_names[c]);
				const json_value *want = json_get(oc, "derived_metrics");
				if (!want)
					want = json_get(json_get(oc, "c_accumulator_with_zero_records"),
					                "derived_metrics");
				assert_non_null(want);
				/* pydarshan dropped records without a name: where that
				 * changes the selection, the oracle is not comparable */
				char what[512];
				snprintf(what, sizeof(what), "%s %s %s", logs[i], mod, case_names[c]);
				if (kept != in_log && (c == 0 || c == 2)) {
					skipped++;
				} else {
					compare_metrics(want, got, what);
					cases++;
				}
				json_free(got);
				free(js);
			}
			snprintf(p, sizeof(p), "/%s/filter", mod);
			set_filter(v, p, "");
			json_free(oracle);
		}
		free(file);
		free(perf);
		free(total);
		dfs_view_free(v);
		free(path);
	}
	printf("through the view: %zu --file/--perf blocks and %zu --total sections "
	       "verbatim; %zu filtered cases equal the accumulator oracle (%zu not "
	       "comparable: pydarshan dropped nameless records)\n",
	       blocks, totals, cases, skipped);
	shared_free_list(logs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oracle_through_view),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
