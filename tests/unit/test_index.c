/* test_index.c - the persistent index (src/index/) through its own
 * interface: what is put comes back in name order, window by window, with
 * its rows and findings; a put replaces; forgetting a log or a directory
 * removes exactly that; a directory's sealed records give back what its
 * rows hold, and any change to one of its logs drops them (even in the
 * middle of a read); a log's files come back whole (in pieces past
 * DFS_INDEX_FILES_PIECE) only for the file they were made of and their
 * key, and go with the log; a file that is no index is moved aside with one
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
#include <sqlite3.h>

#include "index/index.h"
#include "darshanfs/buf.h"
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

/* a log of directory d: its inode `ino`, its error or its row */
static void put_plain(dfs_index *ix, const char *d, int i, int64_t mtime)
{
	char name[32], row[64];
	snprintf(name, sizeof(name), "s%05d.darshan", i);
	snprintf(row, sizeof(row), ",%d,%lld,row", i, (long long)mtime);
	dfs_index_id id = {3, (uint64_t)i, 100 + i, mtime, mtime + 1};
	dfs_job_facts job = {.exe = (char *)"x", .present = (uint64_t)i << 1};
	if (i % 100 == 7)
		job.error = (char *)"truncated";
	dfs_index_put(ix, d, name, &id, &job, row, NULL, 0, 0, NULL, 0);
}

/* The sealed records of directory d in the file (sql: what is done to
 * them first, by another connection) */
static int sealed_sql(const char *path, const char *d, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *s;
	int n = -1;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK &&
	    (!sql || sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK) &&
	    sqlite3_prepare_v2(db, "select count(*) from sealed where dir = ?1", -1, &s,
	                       NULL) == SQLITE_OK) {
		sqlite3_bind_text(s, 1, d, -1, SQLITE_STATIC);
		if (sqlite3_step(s) == SQLITE_ROW)
			n = sqlite3_column_int(s, 0);
		sqlite3_finalize(s);
	}
	sqlite3_close(db);
	return n;
}

static int sealed_count(const char *path, const char *d)
{
	return sealed_sql(path, d, NULL);
}

/* Read directory d's jobs rows window by window, checking each log
 * against what put_plain gave it (mtime[i]); `sealed`: each must come
 * from a sealed record (1), none (0), either (-1).  `between` is called
 * after the first window.  Returns how many. */
static int read_all(dfs_index *ix, const char *d, int nlogs, const int64_t *mtime, int sealed,
                    void (*between)(dfs_index *ix))
{
	dfs_index_log *win = calloc(DFS_INDEX_WINDOW, sizeof(*win));
	assert_non_null(win);
	char after[64] = "";
	int seen = 0, windows = 0;
	for (;;) {
		size_t n = dfs_index_dir(ix, d, after, true, 0, win, DFS_INDEX_WINDOW);
		size_t k = n && !strcmp(win[0].name, after) ? 1 : 0;
		for (; k < n; k++) {
			char want[32], row[64];
			int i = seen;
			snprintf(want, sizeof(want), "s%05d.darshan", i);
			assert_string_equal(win[k].name, want);
			assert_int_equal(win[k].id.ino, i);
			assert_int_equal(win[k].id.size, 100 + i);
			assert_int_equal(win[k].id.mtime_ns, mtime[i]);
			assert_int_equal(win[k].id.ctime_ns, mtime[i] + 1);
			/* (a log that cannot be read has nothing but its error) */
			assert_int_equal(win[k].job.present, i % 100 == 7 ? 0 : (uint64_t)i << 1);
			if (i % 100 == 7)
				assert_string_equal(win[k].job.error, "truncated");
			else
				assert_null(win[k].job.error);
			snprintf(row, sizeof(row), ",%d,%lld,row", i, (long long)mtime[i]);
			assert_string_equal(win[k].jobs_row, row);
			if (sealed >= 0)
				assert_int_equal(win[k].hold != NULL, sealed);
			seen++;
		}
		if (n)
			snprintf(after, sizeof(after), "%s", win[n - 1].name);
		for (size_t i = 0; i < n; i++)
			dfs_index_log_clear(&win[i]);
		if (windows++ == 0 && between)
			between(ix);
		if (n < DFS_INDEX_WINDOW)
			break;
	}
	free(win);
	assert_int_equal(seen, nlogs);
	return seen;
}

static int64_t mt[1500];

static void touch_one(dfs_index *ix)
{
	mt[1000] = 77;
	put_plain(ix, "d", 1000, mt[1000]);
	dfs_index_commit(ix);
}

static void test_sealed(void **state)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/s.index", (char *)*state);
	struct notes nt = {0};
	dfs_index *ix = dfs_index_open(path, note, &nt);
	assert_non_null(ix);
	for (int i = 0; i < 1500; i++) {
		mt[i] = 5;
		put_plain(ix, "d", i, mt[i]);
	}
	put_plain(ix, "d/e", 0, 5);
	dfs_index_commit(ix);
	/* not sealed: from the rows */
	read_all(ix, "d", 1500, mt, 0, NULL);
	dfs_index_seal(ix, "d");
	dfs_index_seal(ix, "d/e");
	dfs_index_seal(ix, "none");   /* (no logs: a record that says so) */
	dfs_index_commit(ix);
	assert_int_equal(sealed_count(path, "d"), 2);   /* 1,024 logs a record */
	read_all(ix, "d", 1500, mt, 1, NULL);
	read_all(ix, "d/e", 1, mt, 1, NULL);
	dfs_index_log one;
	assert_int_equal(dfs_index_dir(ix, "none", "", true, 0, &one, 1), 0);

	/* a log put again: the records go with it (the next read gives its
	 * new row from the rows), until sealed again */
	mt[3] = 9;
	put_plain(ix, "d", 3, mt[3]);
	dfs_index_commit(ix);
	assert_int_equal(sealed_count(path, "d"), 0);
	assert_int_equal(sealed_count(path, "d/e"), 1);
	read_all(ix, "d", 1500, mt, 0, NULL);
	dfs_index_seal(ix, "d");
	dfs_index_commit(ix);
	read_all(ix, "d", 1500, mt, 1, NULL);

	/* a change in the middle of a read: the rest comes from the rows,
	 * each log once, the changed one as it is now */
	read_all(ix, "d", 1500, mt, -1, touch_one);
	assert_int_equal(sealed_count(path, "d"), 0);
	dfs_index_seal(ix, "d");
	dfs_index_commit(ix);
	/* records that end before the directory's logs do (the last one
	 * gone in the middle of a call): the rest from the rows, once */
	assert_int_equal(sealed_sql(path, "d", "delete from sealed where dir = 'd' and"
	                                       " length(last) = 256"), 1);
	read_all(ix, "d", 1500, mt, -1, NULL);
	assert_int_equal(sealed_sql(path, "d", "delete from sealed"), 0);
	dfs_index_seal(ix, "d");
	dfs_index_commit(ix);

	/* a log forgotten, then a directory: gone from the records too */
	dfs_index_forget(ix, "d/e", "s00000.darshan");
	dfs_index_commit(ix);
	assert_int_equal(sealed_count(path, "d/e"), 0);
	assert_int_equal(dfs_index_dir(ix, "d/e", "", true, 0, &one, 1), 0);
	dfs_index_close(ix);

	/* reopened: sealed still */
	ix = dfs_index_open(path, note, &nt);
	assert_non_null(ix);
	read_all(ix, "d", 1500, mt, 1, NULL);
	dfs_index_forget_dir(ix, "d");
	dfs_index_commit(ix);
	assert_int_equal(sealed_count(path, "d"), 0);
	assert_int_equal(dfs_index_dir(ix, "d", "", true, 0, &one, 1), 0);
	dfs_index_close(ix);
	assert_int_equal(nt.n, 0);
}

static size_t count_files(const char *path)
{
	sqlite3 *db;
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	sqlite3_stmt *s;
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM files", -1, &s, NULL),
	                 SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	size_t n = (size_t)sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return n;
}

static void test_files(void **state)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/f.index", (char *)*state);
	dfs_index *ix = dfs_index_open(path, NULL, NULL);
	assert_non_null(ix);
	put_log(ix, "d", "a.darshan", 1, 5);
	put_log(ix, "d", "b.darshan", 2, 5);
	put_log(ix, "e/f", "c.darshan", 3, 5);
	/* b's files span three pieces, a's are empty */
	size_t big = 2 * DFS_INDEX_FILES_PIECE + 17;
	unsigned char *bytes = malloc(big);
	assert_non_null(bytes);
	for (size_t i = 0; i < big; i++)
		bytes[i] = (unsigned char)(i * 7 + i / 251);
	dfs_index_id ida = {1, 1, 1000, 5, 5}, idb = {1, 2, 1000, 5, 5}, idc = {1, 3, 1000, 5, 5};
	dfs_index_put_files(ix, "d", "a.darshan", &ida, 9, "", 0);
	dfs_index_put_files(ix, "d", "b.darshan", &idb, 9, bytes, big);
	dfs_index_put_files(ix, "e/f", "c.darshan", &idc, 9, "ccc", 3);
	/* (of another file than the log's row: not kept) */
	dfs_index_id other = {1, 3, 1001, 5, 5};
	dfs_index_put_files(ix, "e/f", "c.darshan", &other, 9, "xxxx", 4);
	dfs_index_commit(ix);
	assert_int_equal(count_files(path), 1 + 3 + 1);

	dfs_buf b = DFS_BUF_INIT;
	dfs_buf_adds(&b, "kept");
	assert_int_equal(dfs_index_files(ix, "d", "b.darshan", &idb, 9, &b), 1);
	assert_int_equal(b.len, 4 + big);
	assert_memory_equal(b.data, "kept", 4);
	assert_memory_equal(b.data + 4, bytes, big);
	dfs_buf_reset(&b);
	assert_int_equal(dfs_index_files(ix, "d", "a.darshan", &ida, 9, &b), 1);
	assert_int_equal(b.len, 0);
	assert_int_equal(dfs_index_files(ix, "e/f", "c.darshan", &idc, 9, &b), 1);
	assert_int_equal(b.len, 3);
	assert_memory_equal(b.data, "ccc", 3);
	dfs_buf_reset(&b);
	/* another key, another file, another name: none (out as it was) */
	assert_int_equal(dfs_index_files(ix, "d", "b.darshan", &idb, 10, &b), 0);
	assert_int_equal(dfs_index_files(ix, "e/f", "c.darshan", &other, 9, &b), 0);
	assert_int_equal(dfs_index_files(ix, "d", "c.darshan", &idc, 9, &b), 0);
	assert_int_equal(b.len, 0);

	/* a put of the log drops its files; forgetting it, or its directory */
	put_log(ix, "d", "b.darshan", 2, 5);
	dfs_index_commit(ix);
	assert_int_equal(dfs_index_files(ix, "d", "b.darshan", &idb, 9, &b), 0);
	assert_int_equal(count_files(path), 2);
	dfs_index_forget(ix, "d", "a.darshan");
	dfs_index_commit(ix);
	assert_int_equal(dfs_index_files(ix, "d", "a.darshan", &ida, 9, &b), 0);
	assert_int_equal(count_files(path), 1);
	dfs_index_forget_dir(ix, "e");
	dfs_index_commit(ix);
	assert_int_equal(dfs_index_files(ix, "e/f", "c.darshan", &idc, 9, &b), 0);
	assert_int_equal(count_files(path), 0);
	/* kept across a reopen */
	dfs_index_put_files(ix, "d", "b.darshan", &idb, 9, "bb", 2);
	dfs_index_close(ix);
	ix = dfs_index_open(path, NULL, NULL);
	assert_non_null(ix);
	assert_int_equal(dfs_index_files(ix, "d", "b.darshan", &idb, 9, &b), 1);
	assert_int_equal(b.len, 2);
	dfs_index_close(ix);
	dfs_buf_free(&b);
	free(bytes);
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
		cmocka_unit_test_setup_teardown(test_sealed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_files, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
