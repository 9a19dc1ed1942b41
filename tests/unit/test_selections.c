/* test_selections.c - what a reader is told of their selections: "N of M
 * records selected" counts M over the log (also after an import); a
 * module whose records.csv takes no import (DXT, LUSTRE) says so in
 * filter.error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/shared.h"
#include "darshanfs/view.h"

/* two logs below a/, one below b/: POSIX, STDIO, DXT and LUSTRE records */
static const char *const logs[] = {
	"dxt.darshan",
	"sample.darshan",
	"mpi-io-test-x86_64-3.5.0.darshan",
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

static int setup(void **state)
{
	if (!shared_dir())
		return 0;
	struct fixture *fx = calloc(1, sizeof(*fx));
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/dfs-test-selections-XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	char path[512];
	snprintf(path, sizeof(path), "%s/a", fx->dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/b", fx->dir);
	assert_int_equal(mkdir(path, 0755), 0);
	for (size_t i = 0; i < NLOGS; i++) {
		char *src = shared_log_path(logs[i]);
		snprintf(path, sizeof(path), "%s/%s/%s", fx->dir, i < 2 ? "a" : "b", logs[i]);
		copy_file(src, path);
		free(src);
	}
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	if (!fx)
		return 0;
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", fx->dir);
	assert_int_equal(system(cmd), 0);
	free(fx);
	return 0;
}

/* a fresh view for each test: nothing selected yet */
static dfs_view *view_of(struct fixture *fx, bool per_user)
{
	dfs_view_options opt = {.per_user = per_user, .owner = 0};
	dfs_error err = {0};
	dfs_view *v = dfs_view_new(fx->dir, &opt, &err);
	if (!v)
		fail_msg("%s", err.msg);
	return v;
}

/* ---- helpers -------------------------------------------------------------------- */

static char *slurp_as(dfs_view *v, const char *path, const dfs_caller *who,
                      size_t *len)
{
	dfs_error err = {0};
	dfs_content *c = dfs_view_open_file_as(v, path, who, &err);
	if (!c)
		fail_msg("%s: %s", path, err.msg);
	size_t size = dfs_content_size(c);
	char *buf = malloc(size + 1);
	size_t off = 0;
	long n;
	while ((n = dfs_content_read(c, buf + off, 4096, off, &err)) > 0)
		off += (size_t)n;
	assert_int_equal(off, size);
	buf[off] = '\0';
	dfs_content_release(c);
	if (len)
		*len = off;
	return buf;
}

static char *slurp(dfs_view *v, const char *path)
{
	return slurp_as(v, path, NULL, NULL);
}

static int write_as(dfs_view *v, const char *path, const dfs_caller *who,
                    const char *text, dfs_error *err)
{
	dfs_write *w = dfs_view_open_write_as(v, path, who, true, err);
	if (!w)
		return -1;
	int ret = dfs_write_data(w, text, strlen(text), 0, err);
	if (ret == 0)
		ret = dfs_write_flush(w, err);
	dfs_write_free(w);
	return ret;
}

static int write_text(dfs_view *v, const char *path, const char *text)
{
	dfs_error err = {0};
	return write_as(v, path, NULL, text, &err);
}

static size_t count_lines(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* The header and the first `rows` rows of a records.csv text */
static char *first_rows(const char *csv, size_t rows)
{
	const char *p = csv;
	for (size_t i = 0; i <= rows && p; i++) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	assert_non_null(p);
	return strndup(csv, (size_t)(p - csv));
}

/* "# darshanfs: N of M records selected" of a derived_metrics text */
static void selected_of(const char *dm, size_t *n, size_t *m)
{
	const char *p = strstr(dm, "# darshanfs: ");
	assert_non_null(p);
	unsigned long a, b;
	assert_int_equal(sscanf(p, "# darshanfs: %lu of %lu records selected", &a, &b), 2);
	*n = a;
	*m = b;
}

/* ---- tests ---------------------------------------------------------------------- */

/* After an import the selection is the rows imported, counted of the
 * log's records (it said "2 of 2": the import's own count); after a
 * filter, the same M. */
static void test_counts_over_the_log(void **state)
{
	struct fixture *fx = *state;
	if (!fx)
		skip();
	dfs_view *v = view_of(fx, false);
	const char *dir = "/a/dxt.darshan/POSIX";
	char path[256];
	snprintf(path, sizeof(path), "%s/records.csv", dir);
	char *all = slurp(v, path);
	size_t log_rows = count_lines(all) - 1;
	assert_true(log_rows > 3);
	char *two = first_rows(all, 2);
	assert_int_equal(write_text(v, path, two), 0);
	snprintf(path, sizeof(path), "%s/derived_metrics", dir);
	char *dm = slurp(v, path);
	size_t n, m;
	selected_of(dm, &n, &m);
	assert_int_equal(n, 2);
	assert_int_equal(m, log_rows);
	free(dm);
	/* a filter: the same denominator */
	snprintf(path, sizeof(path), "%s/filter", dir);
	assert_int_equal(write_text(v, path, "rank == -1 or rank == 0\n"), 0);
	snprintf(path, sizeof(path), "%s/derived_metrics", dir);
	dm = slurp(v, path);
	selected_of(dm, &n, &m);
	assert_int_equal(m, log_rows);
	assert_true(n <= log_rows);
	free(dm);
	free(two);
	free(all);
	dfs_view_free(v);
}

/* DXT's and LUSTRE's records.csv are writable files (so that a write
 * reaches the view), whose writes are refused at the open with EINVAL and
 * the reason in filter.error; nothing changes, and the module's filter
 * still works. */
static void test_no_import_says_why(void **state)
{
	struct fixture *fx = *state;
	if (!fx)
		skip();
	dfs_view *v = view_of(fx, true);
	dfs_caller alice = {.uid = 1001, .gid = 1001};
	const char *mods[] = {"DXT_POSIX", "LUSTRE"};
	const char *in[] = {"dxt.darshan", "sample.darshan"};
	for (size_t k = 0; k < 2; k++) {
		char dir[128], path[256];
		snprintf(dir, sizeof(dir), "/a/%s/%s", in[k], mods[k]);
		snprintf(path, sizeof(path), "%s/records.csv", dir);
		dfs_node_stat st;
		dfs_error err = {0};
		assert_int_equal(dfs_view_stat(v, path, &st, &err), 0);
		assert_true(st.mode & 0200);
		assert_true(dfs_view_is_writable(v, path));
		char *before = slurp_as(v, path, &alice, NULL);
		char *head = first_rows(before, 1);
		assert_int_equal(write_as(v, path, &alice, head, &err), -1);
		assert_int_equal(err.code, DFS_ERR_INVAL);
		/* the same through a truncation */
		assert_int_equal(dfs_view_truncate_as(v, path, &alice, 0, &err), -1);
		assert_int_equal(err.code, DFS_ERR_INVAL);
		char *after = slurp_as(v, path, &alice, NULL);
		assert_string_equal(before, after);
		snprintf(path, sizeof(path), "%s/filter.error", dir);
		char *why = slurp_as(v, path, &alice, NULL);
		printf("%s: %s", mods[k], why);
		char want[128];
		snprintf(want, sizeof(want), "%s/records.csv takes no import", mods[k]);
		assert_non_null(strstr(why, want));
		assert_non_null(strstr(why, k == 0 ? "DXT takes filters, not imports"
		                                   : "LUSTRE takes filters, not imports"));
		/* the user's own: the owner's filter.error stays empty */
		char *owners = slurp(v, path);
		assert_string_equal(owners, "");
		/* a filter is taken, and empties filter.error */
		snprintf(path, sizeof(path), "%s/filter", dir);
		assert_int_equal(write_as(v, path, &alice, "rank == 0\n", &err), 0);
		snprintf(path, sizeof(path), "%s/filter.error", dir);
		char *none = slurp_as(v, path, &alice, NULL);
		assert_string_equal(none, "");
		free(none);
		free(owners);
		free(why);
		free(after);
		free(head);
		free(before);
	}
	dfs_view_free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_over_the_log),
		cmocka_unit_test(test_no_import_says_why),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
