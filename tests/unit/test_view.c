/* test_view.c - the virtual tree without FUSE: listings decode nothing,
 * every file's size equals its content, snapshots survive filter writes,
 * refused writes change nothing, imports equal filters, directory filters
 * reach exactly the logs below them, and concurrent readers always see
 * one whole generation; on a view with per_user, one user's writes
 * leave what was made for the others. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/shared.h"
#include "darshanfs/view.h"
#include "view/probe.h"

static const char *const logs[] = {
	"mpi-io-test-x86_64-3.5.0.darshan",
	"sample.darshan",
	"snyder_ior-DFS_id4681120-53379_5-8-15060-3270540599978592154_1.darshan",
	"partial_data_stdio.darshan",
};
#define NLOGS (sizeof(logs) / sizeof(logs[0]))

struct fixture {
	char dir[256];
	dfs_view *v;
};

static void copy_file(const char *from, const char *to)
{
	size_t len;
	char *data = read_file(from, &len);
	assert_non_null(data);
	FILE *f = fopen(to, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
	free(data);
}

/* tmp/a/b/<log0,log1>, tmp/c/<log2,log3>, tmp/c/broken.darshan */
static int setup(void **state)
{
	if (!shared_dir())
		return 0;
	struct fixture *fx = calloc(1, sizeof(*fx));
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/dfs-test-view-XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	char path[512];
	snprintf(path, sizeof(path), "%s/a", fx->dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/a/b", fx->dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/c", fx->dir);
	mkdir(path, 0755);
	for (size_t i = 0; i < NLOGS; i++) {
		char *src = shared_log_path(logs[i]);
		snprintf(path, sizeof(path), "%s/%s/%s", fx->dir, i < 2 ? "a/b" : "c", logs[i]);
		copy_file(src, path);
		free(src);
	}
	/* a truncated copy and a file that is not a log */
	char *src = shared_log_path(logs[0]);
	size_t len;
	char *data = read_file(src, &len);
	snprintf(path, sizeof(path), "%s/c/broken.darshan", fx->dir);
	FILE *f = fopen(path, "wb");
	fwrite(data, 1, len / 2, f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/c/notes.txt", fx->dir);
	f = fopen(path, "wb");
	fputs("not shown\n", f);
	fclose(f);
	free(data);
	free(src);
	dfs_error err = {0};
	fx->v = dfs_view_new(fx->dir, NULL, &err);
	assert_non_null(fx->v);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	if (!fx)
		return 0;
	dfs_view_free(fx->v);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", fx->dir);
	assert_int_equal(system(cmd), 0);
	free(fx);
	return 0;
}

/* ---- helpers -------------------------------------------------------------------- */

static size_t count_lines(const char *s);

static char *slurp(dfs_view *v, const char *path, size_t *len)
{
	dfs_error err = {0};
	dfs_snapshot *c = dfs_view_open_file(v, path, NULL, &err);
	if (!c)
		return NULL;
	size_t size = dfs_snapshot_size(c);
	char *buf = malloc(size + 1);
	size_t off = 0;
	long n;
	/* odd chunk sizes catch offset mistakes */
	while ((n = dfs_snapshot_read(c, buf + off, off % 2 ? 777 : 4093, off, &err)) > 0)
		off += (size_t)n;
	assert_int_equal(off, size);
	buf[off] = '\0';
	dfs_snapshot_release(c);
	*len = off;
	return buf;
}

static int write_text(dfs_view *v, const char *path, const char *text, dfs_error *err)
{
	dfs_write *w = dfs_view_open_write(v, path, NULL, true, err);
	if (!w)
		return -1;
	int ret = dfs_write_data(w, text, strlen(text), 0, err);
	if (ret == 0)
		ret = dfs_write_flush(w, err);
	dfs_write_free(w);
	return ret;
}

struct names {
	char *name[128];
	bool dir[128];
	size_t n;
};

static int collect(void *ctx, const char *name, const dfs_node_stat *st)
{
	struct names *ns = ctx;
	if (ns->n < 128) {
		ns->dir[ns->n] = st->is_dir;
		ns->name[ns->n++] = strdup(name);
	}
	return 0;
}

static void names_free(struct names *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		free(ns->name[i]);
	ns->n = 0;
}

static bool has(const struct names *ns, const char *name)
{
	for (size_t i = 0; i < ns->n; i++)
		if (!strcmp(ns->name[i], name))
			return true;
	return false;
}

/* Walk the whole tree; return the number of files seen. */
static size_t walk(dfs_view *v, const char *path, bool check_sizes)
{
	struct names ns = {0};
	dfs_error err = {0};
	assert_int_equal(dfs_view_readdir(v, path, NULL, collect, &ns, &err), 0);
	size_t files = 0;
	for (size_t i = 0; i < ns.n; i++) {
		char sub[1024];
		snprintf(sub, sizeof(sub), "%s/%s", strcmp(path, "/") ? path : "", ns.name[i]);
		if (ns.dir[i]) {
			files += walk(v, sub, check_sizes);
			continue;
		}
		files++;
		if (!check_sizes)
			continue;
		dfs_node_stat st;
		if (dfs_view_stat(v, sub, NULL, &st, NULL, &err)) {
			/* only the broken log may fail, with EIO-like codes */
			assert_non_null(strstr(sub, "broken"));
			continue;
		}
		size_t len;
		char *text = slurp(v, sub, &len);
		if (!text) {
			assert_non_null(strstr(sub, "broken"));
			continue;
		}
		if (st.size != len)
			fail_msg("%s: st_size %llu, content %zu", sub,
			         (unsigned long long)st.size, len);
		free(text);
	}
	names_free(&ns);
	return files;
}

/* ---- tests ---------------------------------------------------------------------- */

static void test_listing_decodes_nothing(void **state)
{
	struct fixture *fx = *state;
	if (!fx)
		skip();
	struct names ns = {0};
	dfs_error err = {0};
	assert_int_equal(dfs_view_readdir(fx->v, "/c", NULL, collect, &ns, &err), 0);
	assert_true(has(&ns, "jobs.csv") && has(&ns, "filter") && has(&ns, "broken.darshan"));
	assert_false(has(&ns, "notes.txt"));
	names_free(&ns);
	size_t files = walk(fx->v, "/", false);
	printf("listed %zu files; decodes: %llu\n", files,
	       (unsigned long long)dfs_view_decode_count(fx->v));
	assert_true(files > 50);
	assert_int_equal(dfs_view_decode_count(fx->v), 0);
	assert_int_equal(dfs_view_readdir(fx->v, "/a/b/sample.darshan/POSIX", NULL, collect,
	                                  &ns, &err), 0);
	assert_true(has(&ns, "records.csv") && has(&ns, "derived_metrics.json"));
	names_free(&ns);
	assert_int_equal(dfs_view_readdir(fx->v, "/a/b/sample.darshan/LUSTRE", NULL, collect,
	                                  &ns, &err), 0);
	assert_true(has(&ns, "records.csv"));
	assert_false(has(&ns, "derived_metrics"));
	names_free(&ns);
	assert_int_equal(dfs_view_readdir(fx->v, "/c/partial_data_stdio.darshan/STDIO", NULL,
	                                  collect, &ns, &err), 0);
	assert_true(has(&ns, "PARTIAL"));
	names_free(&ns);
	dfs_node_stat st;
	assert_int_equal(dfs_view_stat(fx->v, "/a/nothing", NULL, &st, NULL, &err), -1);
	assert_int_equal(err.code, DFS_ERR_NOENT);
	assert_int_equal(dfs_view_stat(fx->v, "/a/b/sample.darshan/H5D", NULL, &st, NULL, &err), -1);
}

static void test_sizes_and_errors(void **state)
{
	struct fixture *fx = *state;
	if (!fx)
		skip();
	size_t files = walk(fx->v, "/", true);
	printf("%zu files: st_size equals content everywhere\n", files);
	size_t len;
	char *e = slurp(fx->v, "/c/broken.darshan/ERROR", &len);
	assert_non_null(e);
	assert_true(len > 0);
	printf("broken log: %s", e);
	/* named by its path below SOURCE, not the server's absolute path */
	assert_true(strncmp(e, "c/broken.darshan: ", 18) == 0);
	free(e);
	dfs_error err = {0};
	assert_null(dfs_view_open_file(fx->v, "/c/broken.darshan/header.txt", NULL, &err));
	assert_true(err.code == DFS_ERR_FORMAT || err.code == DFS_ERR_IO);
	/* the other logs are unaffected */
	char *h = slurp(fx->v, "/c/partial_data_stdio.darshan/header.txt", &len);
	assert_non_null(h);
	free(h);
}

/* total.csv: the sum of several files has no record_id, file_name,
 * mount_pt or fs_type; a selection of one file keeps them */
static void test_total_csv(void **state)
{
	struct fixture *fx = *state;
	if (!fx)
		skip();
	const char *dir = "/c/partial_data_stdio.darshan/STDIO";
	char path[256], fpath[256];
	snprintf(path, sizeof(path), "%s/total.csv", dir);
	snprintf(fpath, sizeof(fpath), "%s/filter", dir);
	size_t len;
	char *sum = slurp(fx->v, path, &len);
	assert_non_null(sum);
	const char *row = strchr(sum, '\n') + 1;
	assert_true(row[0] == ',');                       /* empty record_id */
	assert_true(len >= 4 && strcmp(sum + len - 3, ",,\n") == 0);
	assert_null(strstr(sum, "(null)"));
	/* one file: its id and name */
	char *recs = slurp(fx->v, "/c/partial_data_stdio.darshan/STDIO/records.csv", &len);
	const char *first = strchr(recs, '\n') + 1;
	char expr[64];
	snprintf(expr, sizeof(expr), "record_id == %.*s and rank == %.*s\n",
	         (int)strcspn(first, ","), first,
	         (int)strcspn(first + strcspn(first, ",") + 1, ","), first + strcspn(first, ",") + 1);
	dfs_error err = {0};
	assert_int_equal(write_text(fx->v, fpath, expr, &err), 0);
	char *one = slurp(fx->v, path, &len);
	row = strchr(one, '\n') + 1;
	assert_true(strncmp(row, first, strcspn(first, ",") + 1) == 0);
	assert_int_equal(write_text(fx->v, fpath, "", &err), 0);
	free(one);
	free(recs);
	free(sum);
}

/* a module with incomplete data says so in its derived files */
static void test_partial_warning(void **state)
{
	struct fixture *fx = *state;
	if (!fx)
		skip();
	size_t len;
	char *dm = slurp(fx->v, "/c/partial_data_stdio.darshan/STDIO/derived_metrics", &len);
	char *js = slurp(fx->v, "/c/partial_data_stdio.darshan/STDIO/derived_metrics.json", &len);
	char *ok = slurp(fx->v, "/a/b/sample.darshan/POSIX/derived_metrics.json", &len);
	assert_non_null(dm);
	assert_non_null(js);
	assert_non_null(ok);
	assert_non_null(strstr(dm, "# warning: the module's data is incomplete (PARTIAL)"));
	assert_non_null(strstr(js, "\"partial\": true"));
	assert_non_null(strstr(ok, "\"partial\": false"));
	free(dm);
	free(js);
	free(ok);
}

/* the derived files say which filters made the selection */
static void test_filters_in_force(void **state)
{
	struct fixture *fx = *state;
	if (!fx)
		skip();
	const char *dm = "/c/partial_data_stdio.darshan/STDIO/derived_metrics";
	size_t len;
	dfs_error err = {0};
	char *none = slurp(fx->v, dm, &len);
	assert_non_null(strstr(none, "# filters: none (every record)\n"));
	assert_int_equal(write_text(fx->v, "/c/filter", "rank >= 0\n", &err), 0);
	assert_int_equal(write_text(fx->v, "/c/partial_data_stdio.darshan/STDIO/filter",
	                            "STDIO_WRITES > 0\nor rank == 0\n", &err), 0);
	char *some = slurp(fx->v, dm, &len);
	assert_non_null(strstr(some, "# filter c/filter: rank >= 0\n"
	                             "# filter c/partial_data_stdio.darshan/STDIO/filter: "
	                             "STDIO_WRITES > 0 or rank == 0\n"));
	/* total (after darshan-parser's lines), the JSON, jobs.csv and the
	 * filter files below say it too */
	char *tot = slurp(fx->v, "/c/partial_data_stdio.darshan/STDIO/total", &len);
	const char *tail = strstr(tot, "\n# filter c/filter: rank >= 0\n"
	                               "# filter c/partial_data_stdio.darshan/STDIO/filter: "
	                               "STDIO_WRITES > 0 or rank == 0\n");
	assert_non_null(tail);
	assert_true(strncmp(tot, "total_STDIO_", 12) == 0);
	assert_null(strstr(tail + 1, "total_"));
	free(tot);
	char *js = slurp(fx->v, "/c/partial_data_stdio.darshan/STDIO/derived_metrics.json",
	                 &len);
	assert_non_null(strstr(js, "\n  \"filters\": [{\"file\": \"c/filter\", "
	                           "\"filter\": \"rank >= 0\"}, {\"file\": "
	                           "\"c/partial_data_stdio.darshan/STDIO/filter\", \"filter\": "
	                           "\"STDIO_WRITES > 0 or rank == 0\"}]\n}\n"));
	char *jobs = slurp(fx->v, "/modules.csv", &len);
	assert_non_null(strstr(jobs, ",error,filters\n"));
	assert_non_null(strstr(jobs, ",c/filter: rank >= 0; "
	                             "c/partial_data_stdio.darshan/STDIO/filter: "
	                             "STDIO_WRITES > 0 or rank == 0\n"));
	/* a log the filters do not reach: an empty last column */
	char *other = strstr(jobs, "\na/b/sample.darshan,POSIX,");
	assert_non_null(other);
	assert_true(strchr(other + 1, '\n')[-1] == ',');
	/* the job's row names the filters of all its rows, each once */
	char *job = slurp(fx->v, "/jobs.csv", &len);
	char *row = strstr(job, "\nc/partial_data_stdio.darshan,");
	assert_non_null(row);
	char *end = strchr(row + 1, '\n');
	assert_non_null(end);
	*end = '\0';
	assert_non_null(strstr(row, ",c/filter: rank >= 0; "
	                            "c/partial_data_stdio.darshan/STDIO/filter: "
	                            "STDIO_WRITES > 0 or rank == 0"));
	assert_null(strstr(strstr(row, ",c/filter: ") + 2, "c/filter: rank"));
	free(job);
	assert_int_equal(write_text(fx->v, "/c/partial_data_stdio.darshan/filter",
	                            "rank > -5 # log-wide\n", &err), 0);
	char *mf = slurp(fx->v, "/c/partial_data_stdio.darshan/STDIO/filter", &len);
	assert_string_equal(mf, "STDIO_WRITES > 0\nor rank == 0\n"
	                        "# from c/filter: rank >= 0\n"
	                        "# from c/partial_data_stdio.darshan/filter: rank > -5 # log-wide\n");
	/* what was read can be written back: the comments are no part of it */
	assert_int_equal(write_text(fx->v, "/c/partial_data_stdio.darshan/STDIO/filter", mf,
	                            &err), 0);
	char *back = slurp(fx->v, "/c/partial_data_stdio.darshan/STDIO/filter", &len);
	assert_string_equal(back, mf);
	char *lf = slurp(fx->v, "/c/partial_data_stdio.darshan/filter", &len);
	assert_string_equal(lf, "rank > -5 # log-wide\n# from c/filter: rank >= 0\n");
	char *top = slurp(fx->v, "/c/filter", &len);
	assert_string_equal(top, "rank >= 0\n");
	assert_int_equal(write_text(fx->v, "/filter", "rank > -9\n", &err), 0);
	char *cf = slurp(fx->v, "/c/filter", &len);
	assert_string_equal(cf, "rank >= 0\n# from filter: rank > -9\n");
	assert_int_equal(write_text(fx->v, "/filter", "", &err), 0);
	assert_int_equal(write_text(fx->v, "/c/partial_data_stdio.darshan/filter", "", &err), 0);
	free(js);
	free(jobs);
	free(mf);
	free(back);
	free(lf);
	free(top);
	free(cf);
	assert_int_equal(write_text(fx->v, "/c/filter", "", &err), 0);
	assert_int_equal(write_text(fx->v, "/c/partial_data_stdio.darshan/STDIO/filter", "", &err), 0);
	free(none);
	free(some);
}

static void test_filter_write(void **state)
{
	struct fixture *fx = *state;
	if (!fx)
		skip();
	const char *dir = "/c/partial_data_stdio.darshan/STDIO";
	char path[256], fpath[256], epath[256];
	snprintf(path, sizeof(path), "%s/derived_metrics.json", dir);
	snprintf(fpath, sizeof(fpath), "%s/filter", dir);
	snprintf(epath, sizeof(epath), "%s/filter.error", dir);
	size_t len;
	char *all = slurp(fx->v, path, &len);
	dfs_error err = {0};
	dfs_snapshot *snapshot = dfs_view_open_file(fx->v, path, NULL, &err);
	assert_non_null(snapshot);
	assert_int_equal(write_text(fx->v, fpath, "STDIO_BYTES_WRITTEN > 20000000\n", &err), 0);
	char *some = slurp(fx->v, path, &len);
	assert_string_not_equal(all, some);
	/* the handle opened before the write still reads the old generation */
	char *old = malloc(dfs_snapshot_size(snapshot) + 1);
	long n = dfs_snapshot_read(snapshot, old, dfs_snapshot_size(snapshot) + 10, 0, &err);
	old[n] = '\0';
	assert_string_equal(old, all);
	free(old);
	dfs_snapshot_release(snapshot);
	/* refused writes change nothing and explain why */
	const char *bad[] = {"rank ==", "STDIO_NOPE > 1", "(rank == 0", "\x01\x02garbage",
	                     "rank == 'x'"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(write_text(fx->v, fpath, bad[i], &err), -1);
		assert_int_equal(err.code, DFS_ERR_INVAL);
		char *now = slurp(fx->v, path, &len);
		assert_string_equal(now, some);
		free(now);
		char *why = slurp(fx->v, epath, &len);
		assert_true(len > 0 && strncmp(why, "at ", 3) == 0);
		free(why);
		char *f = slurp(fx->v, fpath, &len);
		assert_string_equal(f, "STDIO_BYTES_WRITTEN > 20000000\n");
		free(f);
	}
	char *big = malloc(100001);
	memset(big, ' ', 100000);
	memcpy(big + 50000, "rank", 4);
	big[100000] = '\0';
	assert_int_equal(write_text(fx->v, fpath, big, &err), -1);
	free(big);
	/* a good write empties filter.error; truncation selects everything */
	assert_int_equal(write_text(fx->v, fpath, "rank >= 0", &err), 0);
	char *why = slurp(fx->v, epath, &len);
	assert_int_equal(len, 0);
	free(why);
	assert_int_equal(dfs_view_truncate(fx->v, fpath, NULL, 0, &err), 0);
	char *back = slurp(fx->v, path, &len);
	assert_string_equal(back, all);
	free(back);
	/* a write split in two chunks, the first incomplete */
	dfs_write *w = dfs_view_open_write(fx->v, fpath, NULL, true, &err);
	assert_int_equal(dfs_write_data(w, "STDIO_BYTES_WRITTEN >", 21, 0, &err), 0);
	assert_int_equal(dfs_write_data(w, " 20000000\n", 10, 21, &err), 0);
	assert_int_equal(dfs_write_flush(w, &err), 0);
	dfs_write_free(w);
	back = slurp(fx->v, path, &len);
	assert_string_equal(back, some);
	free(back);
	assert_int_equal(dfs_view_truncate(fx->v, fpath, NULL, 0, &err), 0);
	free(all);
	free(some);
}

/* The DFS record of this log has no name: an empty cell is a missing
 * value, so every comparison on it is UNKNOWN, even != and its negation
 * (filter-language.md). */
static void test_empty_text_is_missing(void **state)
{
	struct fixture *fx = *state;
	if (!fx)
		skip();
	const char *dir = "/c/snyder_ior-DFS_id4681120-53379_5-8-15060-3270540599978592154_1.darshan/DFS";
	char csv[256], fpath[256];
	snprintf(csv, sizeof(csv), "%s/records.csv", dir);
	snprintf(fpath, sizeof(fpath), "%s/filter", dir);
	static const struct {
		const char *expr;
		size_t rows;
	} cases[] = {
		{"", 1},
		{"file_name == ''", 0},
		{"file_name != ''", 0},
		{"file_name ~ ''", 0},
		{"file_name in ('')", 0},
		{"not (file_name ~ '.')", 0},             /* not UNKNOWN */
		{"not (file_name == '') and fs_type == 'N/A'", 0},
		{"file_name ~ '.' or fs_type == 'N/A'", 1}, /* UNKNOWN or TRUE */
		{"mount_pt ~ '^d0e93d4c-'", 1},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		dfs_error err = {0};
		assert_int_equal(write_text(fx->v, fpath, cases[i].expr, &err), 0);
		size_t len;
		char *text = slurp(fx->v, csv, &len);
		assert_non_null(text);
		if (count_lines(text) != cases[i].rows + 1)
			fail_msg("'%s': %zu rows, expected %zu", cases[i].expr,
			         count_lines(text) - 1, cases[i].rows);
		free(text);
	}
	dfs_error err = {0};
	assert_int_equal(write_text(fx->v, fpath, "", &err), 0);
}

/* derived_metrics.json names the filters that made its selection in its
 * last member, "filters", on one line: two selections made by different
 * means (a filter, an import of the rows it selected) are compared
 * without it.  Cuts that member out of json in place and returns it. */
static char *without_filters(char *json)
{
	char *m = strstr(json, ",\n  \"filters\": [");
	assert_non_null(m);
	char *end = strchr(m + 2, '\n');
	assert_non_null(end);
	memmove(m, end, strlen(end) + 1);
	return json;
}

static void test_import_equals_filter(void **state)
{
	struct fixture *fx = *state;
	if (!fx)
		skip();
	const char *dir = "/c/partial_data_stdio.darshan/STDIO";
	char rec[256], fpath[256], json[256];
	snprintf(rec, sizeof(rec), "%s/records.csv", dir);
	snprintf(fpath, sizeof(fpath), "%s/filter", dir);
	snprintf(json, sizeof(json), "%s/derived_metrics.json", dir);
	dfs_error err = {0};
	assert_int_equal(write_text(fx->v, fpath, "STDIO_BYTES_WRITTEN > 20000000", &err), 0);
	size_t len, rlen;
	char *want = slurp(fx->v, json, &len);
	char *rows = slurp(fx->v, rec, &rlen);
	assert_int_equal(dfs_view_truncate(fx->v, fpath, NULL, 0, &err), 0);
	assert_int_equal(write_text(fx->v, rec, rows, &err), 0);
	char *got = slurp(fx->v, json, &len);
	/* the same numbers; the filters member says how each was made */
	assert_non_null(strstr(want, "{\"file\": \"c/partial_data_stdio.darshan/STDIO/filter\", "
	                             "\"filter\": \"STDIO_BYTES_WRITTEN > 20000000\"}]"));
	assert_non_null(strstr(got, "{\"file\": \"c/partial_data_stdio.darshan/STDIO/records.csv\", "
	                            "\"imported_rows\": "));
	assert_string_equal(without_filters(got), without_filters(want));
	char *again = slurp(fx->v, rec, &len);
	assert_string_equal(again, rows);
	char *f = slurp(fx->v, fpath, &len);
	assert_non_null(strstr(f, "# imported:"));
	free(f);
	/* a bad CSV is refused and changes nothing */
	assert_int_equal(write_text(fx->v, rec, "record_id,rank,STDIO_NOPE\n1,0,1\n", &err), -1);
	assert_int_equal(err.code, DFS_ERR_INVAL);
	char *still = slurp(fx->v, json, &len);
	assert_string_equal(without_filters(still), want);
	assert_int_equal(dfs_view_truncate(fx->v, fpath, NULL, 0, &err), 0);
	/* a snapshot of imported rows reads them after the next import
	 * replaced them (it keeps them alive) */
	assert_int_equal(write_text(fx->v, fpath, "STDIO_OPENS > 0", &err), 0);
	char *many = slurp(fx->v, rec, &rlen);
	assert_true(count_lines(many) > 2);
	char *selected = slurp(fx->v, json, &len);
	assert_int_equal(dfs_view_truncate(fx->v, fpath, NULL, 0, &err), 0);
	/* the rows written out of order: the header and a bit, the end past
	 * a hole, the hole, then the start again over itself */
	{
		size_t a = (size_t)(strchr(many, '\n') + 1 - many) + 5, b = a + (rlen - a) / 2;
		assert_true(a < b && b < rlen);
		dfs_write *w = dfs_view_open_write(fx->v, rec, NULL, true, &err);
		assert_non_null(w);
		assert_int_equal(dfs_write_data(w, many, a, 0, &err), 0);
		assert_int_equal(dfs_write_data(w, many + b, rlen - b, b, &err), 0);
		assert_int_equal(dfs_write_data(w, many + a, b - a, a, &err), 0);
		assert_int_equal(dfs_write_data(w, many, a + 3, 0, &err), 0);
		assert_int_equal(dfs_write_flush(w, &err), 0);
		dfs_write_free(w);
		char *pieced = slurp(fx->v, rec, &len);
		assert_string_equal(pieced, many);
		free(pieced);
		pieced = slurp(fx->v, json, &len);
		assert_string_equal(without_filters(pieced), without_filters(selected));
		free(pieced);
	}
	free(selected);
	assert_int_equal(write_text(fx->v, rec, many, &err), 0);
	dfs_snapshot *snap = dfs_view_open_file(fx->v, rec, NULL, &err);
	assert_non_null(snap);
	/* the header and the last row (twice is refused: one record) */
	const char *last = many + rlen - 1;
	while (last > many && last[-1] != '\n')
		last--;
	size_t head_len = (size_t)(strchr(many, '\n') + 1 - many), last_len = strlen(last);
	char *fewer = malloc(head_len + 2 * last_len + 1);
	memcpy(fewer, many, head_len);
	memcpy(fewer + head_len, last, last_len);
	memcpy(fewer + head_len + last_len, last, last_len + 1);
	assert_int_equal(write_text(fx->v, rec, fewer, &err), -1);
	assert_non_null(strstr(err.msg, "a record can be imported once"));
	fewer[head_len + last_len] = '\0';
	assert_int_equal(write_text(fx->v, rec, fewer, &err), 0);
	char *now = slurp(fx->v, rec, &len);
	assert_string_equal(now, fewer);
	size_t slen = (size_t)dfs_snapshot_size(snap);
	char *old = malloc(slen + 1);
	assert_int_equal(dfs_snapshot_read(snap, old, slen, 0, &err), (long)slen);
	old[slen] = '\0';
	assert_string_equal(old, many);
	dfs_snapshot_release(snap);
	free(old);
	free(now);
	free(fewer);
	free(many);
	assert_int_equal(dfs_view_truncate(fx->v, fpath, NULL, 0, &err), 0);
	free(want);
	free(rows);
	free(got);
	free(again);
	free(still);
}

/* An import is checked line by line as it arrives: the write() that
 * completes a bad row fails (with its line), the selection in force stays;
 * rows cut anywhere between writes (in a quoted field holding a newline)
 * pass; rows written out of order are judged at close; nothing written
 * selects no record. */
static void test_import_checked_per_line(void **state)
{
	struct fixture *fx = *state;
	if (!fx)
		skip();
	const char *dir = "/c/partial_data_stdio.darshan/STDIO";
	char rec[256], fpath[256], ferr[256], dm[256], json[256];
	snprintf(rec, sizeof(rec), "%s/records.csv", dir);
	snprintf(fpath, sizeof(fpath), "%s/filter", dir);
	snprintf(ferr, sizeof(ferr), "%s/filter.error", dir);
	snprintf(dm, sizeof(dm), "%s/derived_metrics", dir);
	snprintf(json, sizeof(json), "%s/derived_metrics.json", dir);
	dfs_error err = {0};
	size_t len, rlen;
	assert_int_equal(write_text(fx->v, fpath, "STDIO_OPENS > 0", &err), 0);
	char *rows = slurp(fx->v, rec, &rlen);
	assert_true(count_lines(rows) > 3);
	char *want = without_filters(slurp(fx->v, json, &len));
	/* the first row's fs_type (ignored by imports) made a quoted field
	 * with a comma, a newline and a doubled quote */
	char *nl = strchr(strchr(rows, '\n') + 1, '\n');
	char *comma = nl;
	while (comma[-1] != ',')
		comma--;
	const char *odd = "\"a,\nb\"\"c\"";
	char *text = malloc(rlen + strlen(odd) + 1);
	size_t head = (size_t)(comma - rows);
	memcpy(text, rows, head);
	strcpy(text + head, odd);
	strcat(text, nl);
	size_t tlen = strlen(text);
	/* in chunks of 1, 5, 9 and 13 bytes: accepted, same result */
	for (size_t chunk = 1; chunk <= 13; chunk += 4) {
		dfs_write *w = dfs_view_open_write(fx->v, rec, NULL, true, &err);
		assert_non_null(w);
		for (size_t off = 0; off < tlen; off += chunk) {
			size_t n = tlen - off < chunk ? tlen - off : chunk;
			if (dfs_write_data(w, text + off, n, off, &err))
				fail_msg("chunk %zu at %zu: %s", chunk, off, err.msg);
		}
		assert_int_equal(dfs_write_flush(w, &err), 0);
		dfs_write_free(w);
		char *got = slurp(fx->v, json, &len);
		assert_string_equal(without_filters(got), want);
		free(got);
	}
	/* the last row without its newline (checked at close), and blank
	 * lines after the rows: the same selection */
	for (int how = 0; how < 2; how++) {
		char *cut = strdup(text);
		size_t n = strlen(cut);
		if (how == 0)
			cut[n - 1] = '\0';
		dfs_buf more = DFS_BUF_INIT;
		dfs_buf_adds(&more, cut);
		if (how == 1)
			dfs_buf_adds(&more, "\n\r\n\n");
		assert_int_equal(write_text(fx->v, rec, more.data, &err), 0);
		char *got = slurp(fx->v, json, &len);
		assert_string_equal(without_filters(got), want);
		free(got);
		dfs_buf_free(&more);
		free(cut);
	}
	/* a bad value in the third row: the write that completes that row
	 * fails, not an earlier one; nothing changes */
	char *third = strchr(strchr(strchr(text, '\n') + 1, '\n') + 1, '\n') + 1;
	third = strchr(third, '\n') + 1;   /* (the quoted newline) */
	size_t at = (size_t)(third - text);
	char *bad = strdup(text);
	bad[at] = 'x';
	char *end = strchr(bad + at, '\n');
	dfs_write *w = dfs_view_open_write(fx->v, rec, NULL, true, &err);
	assert_int_equal(dfs_write_data(w, bad, (size_t)(end - bad), 0, &err), 0);
	assert_int_equal(dfs_write_data(w, end, 1, (size_t)(end - bad), &err), -1);
	assert_int_equal(err.code, DFS_ERR_INVAL);
	assert_non_null(strstr(err.msg, "line 5, column 1"));
	assert_int_equal(dfs_write_flush(w, &err), 0);
	dfs_write_free(w);
	char *got = slurp(fx->v, json, &len);
	assert_string_equal(without_filters(got), want);
	free(got);
	char *e = slurp(fx->v, ferr, &len);
	assert_non_null(strstr(e, "line 5, column 1"));
	free(e);
	/* the same row written after a hole: judged at close */
	w = dfs_view_open_write(fx->v, rec, NULL, true, &err);
	assert_int_equal(dfs_write_data(w, bad + at, strlen(bad) - at, at, &err), 0);
	assert_int_equal(dfs_write_data(w, bad, at, 0, &err), 0);
	assert_int_equal(dfs_write_flush(w, &err), -1);
	assert_non_null(strstr(err.msg, "line 5, column 1"));
	dfs_write_free(w);
	got = slurp(fx->v, json, &len);
	assert_string_equal(without_filters(got), want);
	free(got);
	/* nothing written, or a truncation to 0: no record selected */
	for (int how = 0; how < 2; how++) {
		assert_int_equal(write_text(fx->v, fpath, "STDIO_OPENS > 0", &err), 0);
		if (how == 0) {
			w = dfs_view_open_write(fx->v, rec, NULL, true, &err);
			assert_int_equal(dfs_write_flush(w, &err), 0);
			dfs_write_free(w);
		} else {
			assert_int_equal(dfs_view_truncate(fx->v, rec, NULL, 0, &err), 0);
		}
		char *f = slurp(fx->v, fpath, &len);
		assert_string_equal(f, "# imported: 0 rows\n");
		free(f);
		char *r = slurp(fx->v, rec, &len);
		assert_int_equal(count_lines(r), 1);
		free(r);
		got = slurp(fx->v, dm, &len);
		assert_non_null(strstr(got, "# darshanfs: 0 of "));
		free(got);
	}
	assert_int_equal(dfs_view_truncate(fx->v, fpath, NULL, 0, &err), 0);
	free(bad);
	free(text);
	free(want);
	free(rows);
}

static char *slurp_as(dfs_view *v, const char *path, const dfs_caller *who)
{
	dfs_error err = {0};
	dfs_snapshot *c = dfs_view_open_file(v, path, who, &err);
	if (!c)
		fail_msg("%s: %s", path, err.msg);
	size_t size = dfs_snapshot_size(c), off = 0;
	char *buf = malloc(size + 1);
	long n;
	while ((n = dfs_snapshot_read(c, buf + off, size - off, off, &err)) > 0)
		off += (size_t)n;
	assert_int_equal(off, size);
	buf[size] = '\0';
	dfs_snapshot_release(c);
	return buf;
}

static int write_as(dfs_view *v, const char *path, const dfs_caller *who,
                    const char *text)
{
	dfs_error err = {0};
	dfs_write *w = dfs_view_open_write(v, path, who, true, &err);
	if (!w)
		return -1;
	int ret = dfs_write_data(w, text, strlen(text), 0, &err);
	if (ret == 0)
		ret = dfs_write_flush(w, &err);
	dfs_write_free(w);
	return ret;
}

/* Three users of a shared mount, and a view of the fixture's tree for
 * them (per_user, owned by root) */
static const dfs_caller user_a = {.uid = 1001, .gid = 1001},
                        user_b = {.uid = 1002, .gid = 1002},
                        user_c = {.uid = 1003, .gid = 1003};

static dfs_view *per_user_view(const struct fixture *fx)
{
	dfs_view_options opt = {.per_user = true, .owner = 0};
	dfs_error err = {0};
	dfs_view *v = dfs_view_new(fx->dir, &opt, &err);
	if (!v)
		fail_msg("%s", err.msg);
	return v;
}

/* A view with per_user: each user's filters (log, module, directory,
 * imports) are theirs alone; the owner's (no caller) and those of a user
 * who never wrote show every record. */
static void test_per_user_filters(void **state)
{
	struct fixture *fx = *state;
	if (!fx)
		skip();
	dfs_error err = {0};
	dfs_view *v = per_user_view(fx);
	const dfs_caller a = user_a, b = user_b, c = user_c;
	const char *log = "/c/partial_data_stdio.darshan";
	char rec[256], mf[256], lf[256], js[256];
	snprintf(rec, sizeof(rec), "%s/STDIO/records.csv", log);
	snprintf(mf, sizeof(mf), "%s/STDIO/filter", log);
	snprintf(lf, sizeof(lf), "%s/filter", log);
	snprintf(js, sizeof(js), "%s/STDIO/derived_metrics.json", log);
	char *all = slurp_as(v, rec, NULL);
	char *all_js = slurp_as(v, js, NULL);
	assert_int_equal(write_as(v, mf, &a, "rank == 0 and STDIO_OPENS != 424242\n"), 0);
	assert_int_equal(write_as(v, "/c/filter", &a, "rank != 434343\n"), 0);
	assert_int_equal(write_as(v, lf, &b, "rank >= 0 and rank != 535353\n"), 0);
	assert_int_equal(write_as(v, "/filter", &b, "rank != 545454\n"), 0);
	/* each sees their own */
	char *fa = slurp_as(v, mf, &a), *fb = slurp_as(v, mf, &b);
	assert_string_equal(fa, "rank == 0 and STDIO_OPENS != 424242\n"
	                        "# from c/filter: rank != 434343\n");
	assert_string_equal(fb, "# from filter: rank != 545454\n"
	                        "# from c/partial_data_stdio.darshan/filter: "
	                        "rank >= 0 and rank != 535353\n");
	uint64_t decodes = dfs_view_decode_count(v);
	char *ra = slurp_as(v, rec, &a);
	assert_true(count_lines(ra) < count_lines(all));
	/* the log decoded for the owner serves the user's selection too */
	assert_int_equal(dfs_view_decode_count(v), decodes);
	/* the owner and a user who wrote nothing: every record, no filter */
	const dfs_caller *clean[] = {NULL, &c};
	for (size_t i = 0; i < 2; i++) {
		char *r = slurp_as(v, rec, clean[i]);
		char *j = slurp_as(v, js, clean[i]);
		char *f = slurp_as(v, mf, clean[i]);
		char *d = slurp_as(v, "/c/filter", clean[i]);
		char *jobs = slurp_as(v, "/jobs.csv", clean[i]);
		assert_string_equal(r, all);
		assert_string_equal(j, all_js);
		assert_string_equal(f, "");
		assert_string_equal(d, "");
		assert_null(strstr(jobs, "4343"));
		assert_null(strstr(jobs, "5353"));
		assert_null(strstr(jobs, "5454"));
		free(r);
		free(j);
		free(f);
		free(d);
		free(jobs);
	}
	/* nothing of one user's filters in the other's files */
	static const char *const files[] = {
		"/jobs.csv", "/c/jobs.csv", "/filter", "/c/filter",
		"/c/partial_data_stdio.darshan/filter",
		"/c/partial_data_stdio.darshan/derived_metrics",
		"/c/partial_data_stdio.darshan/STDIO/filter",
		"/c/partial_data_stdio.darshan/STDIO/derived_metrics",
		"/c/partial_data_stdio.darshan/STDIO/derived_metrics.json",
		"/c/partial_data_stdio.darshan/POSIX/derived_metrics.json",
	};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *ta = slurp_as(v, files[i], &a), *tb = slurp_as(v, files[i], &b);
		if (strstr(ta, "5353") || strstr(ta, "5454") || strstr(tb, "4242") ||
		    strstr(tb, "4343"))
			fail_msg("%s shows another user's filter", files[i]);
		free(ta);
		free(tb);
	}
	char *ja = slurp_as(v, "/jobs.csv", &a), *jb = slurp_as(v, "/jobs.csv", &b);
	assert_non_null(strstr(ja, "c/filter: rank != 434343; "
	                           "c/partial_data_stdio.darshan/STDIO/filter: rank == 0"));
	assert_non_null(strstr(jb, "filter: rank != 545454; "
	                           "c/partial_data_stdio.darshan/filter: rank >= 0"));
	/* an import is a user's own too */
	char *head = strndup(all, (size_t)(strchr(all, '\n') + 1 - all));
	assert_int_equal(write_as(v, rec, &c, head), 0);
	char *rc = slurp_as(v, rec, &c), *r0 = slurp_as(v, rec, NULL);
	assert_string_equal(rc, head);
	assert_string_equal(r0, all);
	/* a serial names the same bytes whoever reads */
	dfs_node_stat sa, s0;
	assert_int_equal(dfs_view_stat(v, rec, &a, &sa, NULL, &err), 0);
	assert_int_equal(dfs_view_stat(v, rec, NULL, &s0, NULL, &err), 0);
	assert_true(sa.serial != s0.serial);
	free(head);
	free(rc);
	free(r0);
	free(ja);
	free(jb);
	free(fa);
	free(fb);
	free(ra);
	free(all);
	free(all_js);
	dfs_view_free(v);
}

/* The snapshot `who` gets of path right now (a reference to release). */
static dfs_snapshot *open_as(dfs_view *v, const char *path, const dfs_caller *who)
{
	dfs_error err = {0};
	dfs_snapshot *c = dfs_view_open_file(v, path, who, &err);
	if (!c)
		fail_msg("%s: %s", path, err.msg);
	return c;
}

static double seconds_since(const struct timespec *t)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

/* On a view with per_user, one user's writes throw away only what was
 * made for that user: another's derived metrics stay the snapshot they
 * were (the same object, not rendered again), their records.csv keeps its
 * serial and their jobs.csv its rendering, while the writer's change
 * shows at once, to the writer only.  A user's first write moves them
 * off the clean state's files at once, jobs.csv included. */
static void test_per_user_generations(void **state)
{
	struct fixture *fx = *state;
	if (!fx)
		skip();
	dfs_error err = {0};
	dfs_view *v = per_user_view(fx);
	/* a: the writer; b: has a state of their own (a filter on the log);
	 * c: never wrote (until the end); NULL: the owner */
	const dfs_caller a = user_a, b = user_b, c = user_c;
	const dfs_caller *others[] = {&b, &c, NULL};
	const char *const whose[] = {"b's", "c's", "the owner's"};
	enum { NOTHERS = 3 };
	const char *dm = "/c/partial_data_stdio.darshan/STDIO/derived_metrics";
	const char *rec = "/c/partial_data_stdio.darshan/STDIO/records.csv";
	const char *lf = "/c/partial_data_stdio.darshan/filter";
	const char *jobs = "/c/jobs.csv";
	assert_int_equal(write_as(v, lf, &b, "rank >= 0\n"), 0);
	char *all = slurp_as(v, rec, NULL);
	char *dm_all = slurp_as(v, dm, NULL);
	dfs_snapshot *dm0[NOTHERS], *jobs0[NOTHERS];
	char *dm_text[NOTHERS], *jobs_text[NOTHERS];
	dfs_node_stat rec0[NOTHERS];
	for (size_t i = 0; i < NOTHERS; i++) {
		dm0[i] = open_as(v, dm, others[i]);
		dm_text[i] = slurp_as(v, dm, others[i]);
		assert_int_equal(dfs_view_stat(v, rec, others[i], &rec0[i], NULL, &err), 0);
	}
	struct timespec made;
	clock_gettime(CLOCK_MONOTONIC, &made);
	for (size_t i = 0; i < NOTHERS; i++) {
		jobs0[i] = open_as(v, jobs, others[i]);
		jobs_text[i] = slurp_as(v, jobs, others[i]);
	}
	char *ra0 = slurp_as(v, rec, &a);
	assert_string_equal(ra0, all);
	free(ra0);

	/* a writes a directory filter above the log, then the log's filter */
	const char *writes[][2] = {
		{"/c/filter", "rank == 0\n"},
		{lf, "rank >= 0 and rank != 424242\n"},
	};
	for (size_t w = 0; w < 2; w++) {
		assert_int_equal(write_as(v, writes[w][0], &a, writes[w][1]), 0);
		/* a jobs.csv is kept a second: checked first, while it is */
		bool kept = seconds_since(&made) < 0.5;
		for (size_t i = 0; i < NOTHERS; i++) {
			dfs_snapshot *j = open_as(v, jobs, others[i]);
			if (kept && j != jobs0[i])
				fail_msg("after a's write of %s, %s jobs.csv was rendered again",
				         writes[w][0], whose[i]);
			dfs_snapshot_release(j);
			char *t = slurp_as(v, jobs, others[i]);
			assert_string_equal(t, jobs_text[i]);
			free(t);
		}
		if (!kept)
			printf("(slow: jobs.csv's second was up, its reuse not checked)\n");
		for (size_t i = 0; i < NOTHERS; i++) {
			dfs_snapshot *d = open_as(v, dm, others[i]);
			if (d != dm0[i])
				fail_msg("after a's write of %s, %s derived_metrics was "
				         "rendered again", writes[w][0], whose[i]);
			dfs_snapshot_release(d);
			char *t = slurp_as(v, dm, others[i]);
			assert_string_equal(t, dm_text[i]);
			free(t);
			dfs_node_stat st;
			assert_int_equal(dfs_view_stat(v, rec, others[i], &st, NULL, &err), 0);
			assert_int_equal(st.serial, rec0[i].serial);
			assert_int_equal(st.size, rec0[i].size);
		}
		/* a's own files follow a's filters at once */
		char *ra = slurp_as(v, rec, &a), *da = slurp_as(v, dm, &a);
		char *ja = slurp_as(v, jobs, &a);
		assert_true(count_lines(ra) < count_lines(all));
		assert_string_not_equal(da, dm_all);
		assert_non_null(strstr(ja, "c/filter: rank == 0"));
		if (w == 1)
			assert_non_null(strstr(ja, "424242"));
		dfs_node_stat sa;
		assert_int_equal(dfs_view_stat(v, rec, &a, &sa, NULL, &err), 0);
		assert_true(sa.serial != rec0[0].serial && sa.serial != rec0[2].serial);
		free(ra);
		free(da);
		free(ja);
	}
	for (size_t i = 0; i < NOTHERS; i++) {
		char *t = slurp_as(v, jobs, others[i]);
		assert_null(strstr(t, "rank == 0"));
		free(t);
	}

	/* c's first write: c's jobs.csv of a moment ago is not c's any more */
	assert_int_equal(write_as(v, "/c/filter", &c, "rank == 0\n"), 0);
	char *jc = slurp_as(v, jobs, &c), *rc = slurp_as(v, rec, &c);
	assert_non_null(strstr(jc, "c/filter: rank == 0"));
	assert_true(count_lines(rc) < count_lines(all));
	free(jc);
	free(rc);
	/* and b's are still what they were */
	dfs_snapshot *d = open_as(v, dm, &b);
	assert_ptr_equal(d, dm0[0]);
	dfs_snapshot_release(d);

	for (size_t i = 0; i < NOTHERS; i++) {
		dfs_snapshot_release(dm0[i]);
		dfs_snapshot_release(jobs0[i]);
		free(dm_text[i]);
		free(jobs_text[i]);
	}
	free(all);
	free(dm_all);
	dfs_view_free(v);
}

/* Which listings are the reader's own: on a view with per_user, that of
 * LOG/summary/dxt (the plots of the caller's selection) and no other
 * node's; on a view of one user, none (a front end may keep every
 * listing for every reader).  Asked without a caller and as a user. */
static void test_per_reader_listings(void **state)
{
	if (!*state)
		skip();
	char *log = shared_log_path("dxt.darshan");
	const dfs_caller a = {.uid = 1001, .gid = 1001};
	const dfs_caller *callers[] = {NULL, &a};
	for (int per_user = 0; per_user < 2; per_user++) {
		dfs_view_options opt = {.per_user = per_user, .owner = 0};
		dfs_error err = {0};
		dfs_view *v = dfs_view_new(log, &opt, &err);
		if (!v)
			fail_msg("%s: %s", log, err.msg);
		/* a plot of summary/dxt is a file like any other */
		struct names plots = {0};
		assert_int_equal(dfs_view_readdir(v, "/summary/dxt", NULL, collect, &plots, &err), 0);
		assert_true(plots.n > 0);
		char plot[64];
		snprintf(plot, sizeof(plot), "/summary/dxt/%s", plots.name[0]);
		names_free(&plots);
		const char *const paths[] = {
			"/", "/summary", "/summary/dxt", "/POSIX", "/DXT_POSIX",
			"/POSIX/records.csv", "/filter", plot,
		};
		for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
			bool want = per_user && strcmp(paths[i], "/summary/dxt") == 0;
			for (size_t k = 0; k < 2; k++) {
				dfs_node_stat st;
				if (dfs_view_stat(v, paths[i], callers[k], &st, NULL, &err))
					fail_msg("%s: %s", paths[i], err.msg);
				if (st.per_reader != want)
					fail_msg("%s (%s, %s): per_reader is %d", paths[i],
					         per_user ? "per_user" : "one user",
					         callers[k] ? "a user" : "no caller", st.per_reader);
			}
		}
		dfs_view_free(v);
	}
	free(log);
}

static size_t count_lines(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void test_dir_filter_and_jobs(void **state)
{
	struct fixture *fx = *state;
	if (!fx)
		skip();
	size_t len;
	char *root = slurp(fx->v, "/jobs.csv", &len);
	char *a = slurp(fx->v, "/a/jobs.csv", &len);
	char *c = slurp(fx->v, "/c/jobs.csv", &len);
	/* header + rows; the root has the rows of both subtrees */
	assert_int_equal(count_lines(root) - 1, count_lines(a) - 1 + count_lines(c) - 1);
	assert_non_null(strstr(c, "broken.darshan,,"));
	assert_non_null(strstr(root, "\na/b/sample.darshan,"));
	char *mods = slurp(fx->v, "/modules.csv", &len);
	assert_non_null(strstr(mods, "a/b/sample.darshan,POSIX,"));
	free(mods);
	dfs_error err = {0};
	assert_int_equal(write_text(fx->v, "/a/filter", "rank == 0", &err), 0);
	char *a2 = slurp(fx->v, "/a/jobs.csv", &len);
	char *c2 = slurp(fx->v, "/c/jobs.csv", &len);
	assert_string_not_equal(a, a2);
	assert_string_equal(c, c2);
	assert_int_equal(write_text(fx->v, "/a/filter", "NOPE == 1", &err), -1);
	char *why = slurp(fx->v, "/a/filter.error", &len);
	assert_non_null(strstr(why, "unknown column"));
	free(why);
	assert_int_equal(dfs_view_truncate(fx->v, "/a/filter", NULL, 0, &err), 0);
	char *a3 = slurp(fx->v, "/a/jobs.csv", &len);
	assert_string_equal(a, a3);
	free(root);
	free(a);
	free(c);
	free(a2);
	free(c2);
	free(a3);
}

/* A log-wide or directory filter may name counters of several modules,
 * and of modules the log does not have: each module sees the columns it
 * lacks as missing values.  Only a name no module has is refused. */
static void test_filters_across_modules(void **state)
{
	struct fixture *fx = *state;
	if (!fx)
		skip();
	const char *log = "/c/partial_data_stdio.darshan";
	static const struct {
		const char *expr;
		size_t posix, stdio;          /* rows selected (of 1 and 1022) */
	} cases[] = {
		{"POSIX_BYTES_READ > 0 or STDIO_BYTES_READ > 0", 1, 0},
		{"POSIX_BYTES_READ > 0 or STDIO_OPENS > 0", 1, 1022},
		{"H5D_OPENS > 0", 0, 0},                  /* no H5D in this log */
		{"not (H5D_OPENS > 0)", 0, 0},            /* not UNKNOWN */
		{"not (H5D_OPENS > 0) or rank >= -1", 1, 1022},
		{"BYTES_READ > 0", 1, 0},                 /* each module's own */
	};
	char path[256], fpath[256];
	snprintf(fpath, sizeof(fpath), "%s/filter", log);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		dfs_error err = {0};
		if (write_text(fx->v, fpath, cases[i].expr, &err) != 0)
			fail_msg("'%s' refused: %s", cases[i].expr, err.msg);
		static const char *const mods[] = {"POSIX", "STDIO"};
		for (size_t k = 0; k < 2; k++) {
			size_t len;
			snprintf(path, sizeof(path), "%s/%s/records.csv", log, mods[k]);
			char *text = slurp(fx->v, path, &len);
			size_t want = k ? cases[i].stdio : cases[i].posix;
			if (count_lines(text) - 1 != want)
				fail_msg("'%s': %s has %zu rows, expected %zu", cases[i].expr,
				         mods[k], count_lines(text) - 1, want);
			free(text);
		}
		/* the same expressions are valid directory filters */
		assert_int_equal(write_text(fx->v, "/c/filter", cases[i].expr, &err), 0);
		assert_int_equal(write_text(fx->v, "/c/filter", "", &err), 0);
	}
	dfs_error err = {0};
	assert_int_equal(write_text(fx->v, fpath, "POSIX_OPENS > 0 or NOPE > 1", &err), -1);
	assert_non_null(strstr(err.msg, "at 20: unknown column 'NOPE'"));
	assert_int_equal(write_text(fx->v, "/c/filter", "NOPE > 1", &err), -1);
	/* a module filter names its own columns; another module's column
	 * is refused with a word on where it belongs */
	snprintf(path, sizeof(path), "%s/POSIX/filter", log);
	assert_int_equal(write_text(fx->v, path, "STDIO_BYTES_READ > 0", &err), -1);
	assert_string_equal(err.msg, "at 1: unknown column 'STDIO_BYTES_READ' (a column "
	                    "of STDIO: use the log-wide filter LOG/filter)");
	assert_int_equal(write_text(fx->v, path, "POSIX_BYTES_RAED > 0", &err), -1);
	assert_null(strstr(err.msg, "a column of"));
	/* a type error in the one module that has the column is an error */
	assert_int_equal(write_text(fx->v, fpath, "LUSTRE_COMP_POOL_NAME > 3", &err), -1);
	assert_non_null(strstr(err.msg, "cannot compare text with a number"));
	assert_int_equal(write_text(fx->v, fpath, "", &err), 0);
	assert_int_equal(write_text(fx->v, "/c/filter", "", &err), 0);
}

/* Once records.csv has been rendered, its size for any later selection
 * comes from the rows' lengths without rendering it again: that size and
 * serial must be exactly those of the snapshot an open then gets, for
 * one-row and many-row modules, filters, imports and their undoing. */
static void check_records_stat(dfs_view *v, const char *dir, const char *what)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/records.csv", dir);
	dfs_node_stat st;
	dfs_error err = {0};
	assert_int_equal(dfs_view_stat(v, path, NULL, &st, NULL, &err), 0);
	dfs_snapshot *c = dfs_view_open_file(v, path, NULL, &err);
	assert_non_null(c);
	if (dfs_snapshot_size(c) != st.size || dfs_snapshot_serial(c) != st.serial)
		fail_msg("%s %s: stat says %llu bytes (serial %llx), the snapshot has %llu "
		         "(serial %llx)", dir, what, (unsigned long long)st.size,
		         (unsigned long long)st.serial,
		         (unsigned long long)dfs_snapshot_size(c),
		         (unsigned long long)dfs_snapshot_serial(c));
	dfs_snapshot_release(c);
}

static void test_records_size_without_render(void **state)
{
	struct fixture *fx = *state;
	if (!fx)
		skip();
	static const char *const dirs[] = {
		"/a/b/mpi-io-test-x86_64-3.5.0.darshan/POSIX",
		"/a/b/mpi-io-test-x86_64-3.5.0.darshan/LUSTRE",
		"/a/b/mpi-io-test-x86_64-3.5.0.darshan/HEATMAP",
		"/c/partial_data_stdio.darshan/STDIO",
	};
	static const char *const filters[] = {
		"rank == 0", "rank == -1", "false", "", "record_id % 2 == 0",
	};
	for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		char fpath[256], rpath[256];
		snprintf(fpath, sizeof(fpath), "%s/filter", dirs[d]);
		snprintf(rpath, sizeof(rpath), "%s/records.csv", dirs[d]);
		check_records_stat(fx->v, dirs[d], "first");
		for (size_t i = 0; i < sizeof(filters) / sizeof(filters[0]); i++) {
			dfs_error err = {0};
			if (write_text(fx->v, fpath, filters[i], &err) != 0)
				continue;   /* (% is no operator: refused, nothing changes) */
			check_records_stat(fx->v, dirs[d], filters[i]);
		}
		/* an import of the first rows, then back to a filter */
		size_t len;
		char *all = slurp(fx->v, rpath, &len);
		char *cut = all;
		for (int k = 0; k < 3 && cut && *cut; k++) {
			cut = strchr(cut, '\n');
			cut = cut ? cut + 1 : NULL;
		}
		dfs_error err = {0};
		if (cut && strstr(dirs[d], "POSIX")) {
			*cut = '\0';
			assert_int_equal(write_text(fx->v, rpath, all, &err), 0);
			check_records_stat(fx->v, dirs[d], "import");
		}
		free(all);
		assert_int_equal(write_text(fx->v, fpath, "rank >= 0", &err), 0);
		check_records_stat(fx->v, dirs[d], "after the import");
		assert_int_equal(write_text(fx->v, fpath, "", &err), 0);
	}
}

/* ---- concurrency ------------------------------------------------------------------ */

struct race {
	dfs_view *v;
	const char *json, *filter;
	char *expect[2];
	atomic_int stop;
	atomic_long reads, bad;
};

static void *reader(void *arg)
{
	struct race *r = arg;
	while (!atomic_load(&r->stop)) {
		size_t len;
		char *t = slurp(r->v, r->json, &len);
		if (!t || (strcmp(t, r->expect[0]) && strcmp(t, r->expect[1])))
			atomic_fetch_add(&r->bad, 1);
		free(t);
		atomic_fetch_add(&r->reads, 1);
	}
	return NULL;
}

static void test_concurrent_readers_and_writer(void **state)
{
	struct fixture *fx = *state;
	if (!fx)
		skip();
	struct race r = {fx->v, "/c/partial_data_stdio.darshan/STDIO/derived_metrics.json",
	                 "/c/partial_data_stdio.darshan/STDIO/filter", {NULL, NULL}, 0, 0, 0};
	const char *filters[2] = {"STDIO_BYTES_WRITTEN > 20000000",
	                          "STDIO_BYTES_WRITTEN > 5000000"};
	dfs_error err = {0};
	size_t len;
	for (int k = 0; k < 2; k++) {
		assert_int_equal(write_text(fx->v, r.filter, filters[k], &err), 0);
		r.expect[k] = slurp(fx->v, r.json, &len);
	}
	assert_string_not_equal(r.expect[0], r.expect[1]);
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, reader, &r);
	long writes = 0;
	struct timespec start, now;
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		assert_int_equal(write_text(fx->v, r.filter, filters[writes % 2], &err), 0);
		writes++;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec - start.tv_sec < 2);
	atomic_store(&r.stop, 1);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("%ld filter writes, %ld reads, %ld torn\n", writes,
	       atomic_load(&r.reads), atomic_load(&r.bad));
	assert_int_equal(atomic_load(&r.bad), 0);
	free(r.expect[0]);
	free(r.expect[1]);
	dfs_view_truncate(fx->v, r.filter, NULL, 0, &err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_listing_decodes_nothing),
		cmocka_unit_test(test_sizes_and_errors),
		cmocka_unit_test(test_filter_write),
		cmocka_unit_test(test_empty_text_is_missing),
		cmocka_unit_test(test_import_equals_filter),
		cmocka_unit_test(test_import_checked_per_line),
		cmocka_unit_test(test_per_user_filters),
		cmocka_unit_test(test_per_user_generations),
		cmocka_unit_test(test_per_reader_listings),
		cmocka_unit_test(test_dir_filter_and_jobs),
		cmocka_unit_test(test_filters_across_modules),
		cmocka_unit_test(test_total_csv),
		cmocka_unit_test(test_partial_warning),
		cmocka_unit_test(test_filters_in_force),
		cmocka_unit_test(test_records_size_without_render),
		cmocka_unit_test(test_concurrent_readers_and_writer),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
