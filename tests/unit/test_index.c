/* test_index.c - the persistent index (src/index/) through its own
 * interface: what is put comes back in name order, window by window, with
 * its rows and findings; a put replaces; forgetting a log or a directory
 * removes exactly that; a file that is no index is moved aside with one
 * notice; a path that cannot be made gives NULL with one notice. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "index/index.h"
#include "darshanfs/module.h"

struct notes {
	int n;
	char last[1024];
};

static void note(void *ctx, const char *line)
{
	struct notes *nt = ctx;
	nt->n++;
	snprintf(nt->last, sizeof(nt->last), "%s", line);
}

static char dir[256];

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "%s/dfs-index-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir))
		return -1;
	*state = dir;
	return 0;
}

static int teardown(void **state)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* a log of job `jobid` with a POSIX and a STDIO row */
static void put_log(dfs_index *ix, const char *d, const char *name, int64_t jobid,
                    int64_t mtime)
{
	dfs_index_id id = {1, (uint64_t)jobid, 1000, mtime, mtime};
	dfs_job_facts job = {.exe = (char *)"/bin/app -x", .jobid = jobid, .uid = 7,
	                     .nprocs = 4, .start = 100, .end = 200, .run_time = 100.5,
	                     .present = (1 << DFS_MOD_POSIX) | (1 << DFS_MOD_STDIO)};
	dfs_module_facts rows[2] = {
		{.module = DFS_MOD_POSIX, .ok = true, .records = 3, .bytes_read = jobid,
		 .bytes_written = 2, .time_by_slowest = 0.25},
		{.module = DFS_MOD_STDIO, .error = (char *)"cannot"},
	};
	char row[64];
	snprintf(row, sizeof(row), ",%lld,the row", (long long)jobid);
	dfs_index_put(ix, d, name, &id, &job, row, rows, 2, 0, NULL, 0);
}

static void test_put_and_read(void **state)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/sub/a.index", (char *)*state);
	struct notes nt = {0};
	dfs_index *ix = dfs_index_open(path, note, &nt);
	assert_non_null(ix);
	assert_int_equal(nt.n, 0);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	/* 600 logs in one directory (more than two windows), put out of order */
	for (int i = 599; i >= 0; i--) {
		char name[32];
		snprintf(name, sizeof(name), "log%04d.darshan", i);
		put_log(ix, "2026/11", name, 1000 + i, 5);
	}
	put_log(ix, "2026/12", "x.darshan", 1, 5);
	put_log(ix, "", "top.darshan", 2, 5);
	dfs_index_commit(ix);

	dfs_index_log *win = calloc(DFS_INDEX_WINDOW, sizeof(*win));
	char after[64] = "";
	int seen = 0;
	for (;;) {
		size_t n = dfs_index_dir(ix, "2026/11", after, false, 0, win, DFS_INDEX_WINDOW);
		size_t k = 0;
		if (n && !strcmp(win[0].name, after))
			k = 1;   /* (the window starts at the last one seen) */
		for (; k < n; k++) {
			char want[32];
			snprintf(want, sizeof(want), "log%04d.darshan", seen);
			assert_string_equal(win[k].name, want);
			assert_int_equal(win[k].job.jobid, 1000 + seen);
			assert_int_equal(win[k].nrows, 2);
			assert_int_equal(win[k].rows[0].module, DFS_MOD_POSIX);
			assert_true(win[k].rows[0].ok);
			assert_int_equal(win[k].rows[0].bytes_read, 1000 + seen);
			assert_true(win[k].rows[0].time_by_slowest == 0.25);
			assert_false(win[k].rows[1].ok);
			assert_string_equal(win[k].rows[1].error, "cannot");
			assert_null(win[k].jobs_row);
			seen++;
		}
		if (n)
			snprintf(after, sizeof(after), "%s", win[n - 1].name);
		for (size_t i = 0; i < n; i++)
			dfs_index_log_clear(&win[i]);
		if (n < DFS_INDEX_WINDOW)
			break;
	}
	assert_int_equal(seen, 600);
	/* the jobs.csv rows alone */
	size_t n = dfs_index_dir(ix, "", "", true, 0, win, DFS_INDEX_WINDOW);
	assert_int_equal(n, 1);
	assert_string_equal(win[0].jobs_row, ",2,the row");
	assert_int_equal(win[0].nrows, 0);
	dfs_index_log_clear(&win[0]);

	/* a put replaces; findings come with the key they were made with */
	dfs_finding_facts f[1] = {{(char *)"P_X", (char *)"HIGH", (char *)"POSIX",
	                           (char *)"a, \"quoted\" message", 0.5, 0.1, 3, 4,
	                           (char *)"[{\"name\": \"/a\", \"share\": 1}]", (char *)"[]",
	                           (char *)"buffer"}};
	dfs_index_id id = {1, 1, 1000, 5, 5};
	dfs_index_put_findings(ix, "2026/12", "x.darshan", &id, 42, f, 1);
	dfs_index_commit(ix);
	n = dfs_index_dir(ix, "2026/12", "", false, 42, win, DFS_INDEX_WINDOW);
	assert_int_equal(n, 1);
	assert_true(win[0].has_findings);
	assert_int_equal(win[0].nfindings, 1);
	assert_string_equal(win[0].findings[0].message, "a, \"quoted\" message");
	assert_true(win[0].findings[0].count == 3);
	dfs_index_log_clear(&win[0]);
	n = dfs_index_dir(ix, "2026/12", "", false, 43, win, DFS_INDEX_WINDOW);
	assert_int_equal(n, 1);
	assert_false(win[0].has_findings);   /* other thresholds */
	dfs_index_log_clear(&win[0]);

	/* forgetting */
	char **subs;
	size_t ns = dfs_index_subdirs(ix, "2026", &subs);
	assert_int_equal(ns, 2);
	assert_string_equal(subs[0], "11");
	assert_string_equal(subs[1], "12");
	for (size_t i = 0; i < ns; i++)
		free(subs[i]);
	free(subs);
	dfs_index_forget(ix, "2026/11", "log0000.darshan");
	dfs_index_forget_dir(ix, "2026/12");
	dfs_index_commit(ix);
	n = dfs_index_dir(ix, "2026/11", "", false, 0, win, DFS_INDEX_WINDOW);
	assert_string_equal(win[0].name, "log0001.darshan");
	for (size_t i = 0; i < n; i++)
		dfs_index_log_clear(&win[i]);
	assert_int_equal(dfs_index_dir(ix, "2026/12", "", false, 0, win, DFS_INDEX_WINDOW), 0);
	ns = dfs_index_subdirs(ix, "2026", &subs);
	assert_int_equal(ns, 1);
	free(subs[0]);
	free(subs);
	free(win);
	dfs_index_close(ix);
	assert_int_equal(nt.n, 0);

	/* reopened: still there */
	ix = dfs_index_open(path, note, &nt);
	assert_non_null(ix);
	dfs_index_log one;
	assert_int_equal(dfs_index_dir(ix, "", "", true, 0, &one, 1), 1);
	dfs_index_log_clear(&one);
	dfs_index_close(ix);
	assert_int_equal(nt.n, 0);
}

static void test_bad_files(void **state)
{
	char path[512], aside[600];
	struct notes nt = {0};
	/* text: moved aside, a new index made, one notice */
	snprintf(path, sizeof(path), "%s/text.index", (char *)*state);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("not a database at all, but long enough to be looked at........", f);
	fclose(f);
	dfs_index *ix = dfs_index_open(path, note, &nt);
	assert_non_null(ix);
	assert_int_equal(nt.n, 1);
	assert_non_null(strstr(nt.last, "moved aside"));
	dfs_index_close(ix);
	snprintf(aside, sizeof(aside), "ls '%s'/text.index.broken-* >/dev/null 2>&1",
	         (char *)*state);
	assert_int_equal(system(aside), 0);
	/* below a file: NULL, one notice */
	snprintf(path, sizeof(path), "%s/text.index/below/b.index", (char *)*state);
	assert_null(dfs_index_open(path, note, &nt));
	assert_int_equal(nt.n, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_put_and_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_files, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
