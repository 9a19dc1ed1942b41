/* test_selections.c - what a reader is told of their selections: the
 * root's `selections` and `selections.csv` list every filter and import in
 * force for the reader (with when and how many records of the log's each
 * selects), a write of "clear" removes them all (the writer's only) and
 * anything else is refused with the reason in selections.error; every
 * file of a selection tells its filters (dfs_view_selection, the
 * attribute user.darshanfs.selection); "N of M records selected" counts M
 * over the log (also after an import); a module whose records.csv takes
 * no import (DXT, LUSTRE) says so in filter.error. */
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

/* two logs below a/, one below b/: POSIX, STDIO, DXT and LUSTRE records */
static const char *const logs[] = {
	"dxt.darshan",
	"sample.darshan",
	"imbalanced-io.darshan",
	"mpi-io-test-ppc64-3.1.8.darshan",
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
	dfs_snapshot *c = dfs_view_open_file(v, path, who, &err);
	if (!c)
		fail_msg("%s: %s", path, err.msg);
	size_t size = dfs_snapshot_size(c);
	char *buf = malloc(size + 1);
	size_t off = 0;
	long n;
	while ((n = dfs_snapshot_read(c, buf + off, 4096, off, &err)) > 0)
		off += (size_t)n;
	assert_int_equal(off, size);
	buf[off] = '\0';
	dfs_snapshot_release(c);
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
	dfs_write *w = dfs_view_open_write(v, path, who, true, err);
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
		assert_int_equal(dfs_view_stat(v, path, NULL, &st, NULL, &err), 0);
		assert_true(st.mode & 0200);
		assert_true(dfs_view_is_writable(v, path));
		char *before = slurp_as(v, path, &alice, NULL);
		char *head = first_rows(before, 1);
		assert_int_equal(write_as(v, path, &alice, head, &err), -1);
		assert_int_equal(err.code, DFS_ERR_INVAL);
		/* the same through a truncation */
		assert_int_equal(dfs_view_truncate(v, path, &alice, 0, &err), -1);
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

/* ---- the root's selections files ------------------------------------------------ */

#define IMPORTED "/b/imbalanced-io.darshan/POSIX"
#define SAMPLE "/a/sample.darshan"
/* a text with a comma and a quote: selections.csv quotes it */
#define TEXT_FILTER "rank >= -1 and file_name != \"a,\\\"b\""

/* The rows of records.csv (one per record in these modules) */
static size_t rows_of(dfs_view *v, const char *path, const dfs_caller *who)
{
	char *t = slurp_as(v, path, who, NULL);
	size_t n = count_lines(t) - 1;
	free(t);
	return n;
}

/* A CSV field as RFC 4180 writes it (quoted when it must be) */
static void csv_quote(const char *s, char *out, size_t cap)
{
	size_t n = 0;
	bool q = strpbrk(s, ",\"\n\r") != NULL;
	if (q)
		out[n++] = '"';
	for (; *s && n + 3 < cap; s++) {
		if (*s == '"')
			out[n++] = '"';
		out[n++] = *s;
	}
	if (q)
		out[n++] = '"';
	out[n] = '\0';
}

/* Every file of the root has the size of its content, and the same
 * serial while nothing changes */
static void check_root_sizes(dfs_view *v, const dfs_caller *who)
{
	const char *files[] = {"/selections", "/selections.csv", "/selections.error"};
	for (size_t i = 0; i < 3; i++) {
		dfs_node_stat st, again;
		dfs_error err = {0};
		assert_int_equal(dfs_view_stat(v, files[i], who, &st, NULL, &err), 0);
		size_t len;
		char *t = slurp_as(v, files[i], who, &len);
		if (st.size != len)
			fail_msg("%s: st_size %llu, content %zu", files[i],
			         (unsigned long long)st.size, len);
		assert_int_equal(dfs_view_stat(v, files[i], who, &again, NULL, &err), 0);
		assert_true(again.serial == st.serial);
		free(t);
	}
}

/* Write the four kinds of selection as `who`: a directory filter, a log
 * filter, a module filter, an import of 2 rows */
static void select_four(dfs_view *v, const dfs_caller *who)
{
	dfs_error err = {0};
	assert_int_equal(write_as(v, "/a/filter", who, "rank >= -1\n", &err), 0);
	assert_int_equal(write_as(v, SAMPLE "/filter", who, "POSIX_OPENS >= 0 or STDIO_OPENS >= 0\n",
	                          &err), 0);
	assert_int_equal(write_as(v, SAMPLE "/POSIX/filter", who, TEXT_FILTER "\n", &err), 0);
	char *all = slurp_as(v, IMPORTED "/records.csv", who, NULL);
	char *two = first_rows(all, 2);
	assert_int_equal(write_as(v, IMPORTED "/records.csv", who, two, &err), 0);
	free(two);
	free(all);
}

static void test_selections_files(void **state)
{
	struct fixture *fx = *state;
	if (!fx)
		skip();
	dfs_view *v = view_of(fx, false);
	/* nothing selected: an empty list, a CSV header */
	char *text = slurp(v, "/selections");
	assert_string_equal(text, "");
	free(text);
	char *csv = slurp(v, "/selections.csv");
	const char *header = "file,level,log,module,filter,imported_rows,written,"
	                     "selected,log_records,error\n";
	assert_string_equal(csv, header);
	free(csv);
	check_root_sizes(v, NULL);
	/* the log's records, before any filter */
	size_t imp_total = rows_of(v, IMPORTED "/records.csv", NULL);
	size_t posix_total = rows_of(v, SAMPLE "/POSIX/records.csv", NULL);
	size_t stdio_total = rows_of(v, SAMPLE "/STDIO/records.csv", NULL);
	time_t t0 = time(NULL);
	select_four(v, NULL);
	time_t t1 = time(NULL);
	size_t posix_sel = rows_of(v, SAMPLE "/POSIX/records.csv", NULL);
	size_t stdio_sel = rows_of(v, SAMPLE "/STDIO/records.csv", NULL);
	check_root_sizes(v, NULL);
	text = slurp(v, "/selections");
	printf("%s", text);
	char want[512];
	/* directory filters first, then the logs in order of their paths */
	const char *dir = strstr(text, "a/filter: rank >= -1\n  directory filter, written ");
	const char *imp = strstr(text, "b/imbalanced-io.darshan/POSIX/records.csv: "
	                               "2 rows imported\n  import, written ");
	const char *log = strstr(text, "a/sample.darshan/filter: POSIX_OPENS >= 0 or "
	                               "STDIO_OPENS >= 0\n  log filter, written ");
	const char *mod = strstr(text, "a/sample.darshan/POSIX/filter: " TEXT_FILTER
	                               "\n  module filter, written ");
	assert_non_null(dir);
	assert_non_null(imp);
	assert_non_null(log);
	assert_non_null(mod);
	assert_true(dir == text && dir < log && log < mod && mod < imp);
	assert_non_null(strstr(dir, ": every log below a/\n"));
	snprintf(want, sizeof(want), "\n  POSIX: 2 of %zu records selected\n", imp_total);
	assert_non_null(strstr(imp, want));
	snprintf(want, sizeof(want), "\n  POSIX: %zu of %zu records selected\n"
	         "  MPI-IO: ", posix_sel, posix_total);
	assert_non_null(strstr(log, want));
	snprintf(want, sizeof(want), "  STDIO: %zu of %zu records selected\n", stdio_sel,
	         stdio_total);
	assert_non_null(strstr(log, want));
	snprintf(want, sizeof(want), "\n  POSIX: %zu of %zu records selected\n", posix_sel,
	         posix_total);
	assert_non_null(strstr(mod, want));
	/* when: between the moments before and after the writes */
	int y, mo, d, h, mi, se;
	assert_int_equal(sscanf(strstr(dir, "written ") + 8, "%d-%d-%d %d:%d:%d UTC", &y, &mo,
	                        &d, &h, &mi, &se), 6);
	struct tm tm = {.tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h,
	                .tm_min = mi, .tm_sec = se};
	time_t when = timegm(&tm);
	assert_true(when >= t0 && when <= t1);
	free(text);
	/* the CSV: a row per filter and module */
	csv = slurp(v, "/selections.csv");
	printf("%s", csv);
	assert_true(strncmp(csv, header, strlen(header)) == 0);
	assert_non_null(strstr(csv, "\na/filter,directory,,,rank >= -1,,"));
	snprintf(want, sizeof(want), "\nb/imbalanced-io.darshan/POSIX/records.csv,"
	         "import,b/imbalanced-io.darshan,POSIX,,2,");
	const char *row = strstr(csv, want);
	assert_non_null(row);
	snprintf(want, sizeof(want), "Z,2,%zu,\n", imp_total);
	assert_true(strncmp(strchr(row + 1, '\n') - strlen(want) + 1, want, strlen(want)) == 0);
	char quoted[256];
	csv_quote(TEXT_FILTER, quoted, sizeof(quoted));
	snprintf(want, sizeof(want), "\na/sample.darshan/POSIX/filter,module,a/sample.darshan,"
	         "POSIX,%s,,", quoted);
	row = strstr(csv, want);
	assert_non_null(row);
	snprintf(want, sizeof(want), "Z,%zu,%zu,\n", posix_sel, posix_total);
	assert_true(strncmp(strchr(row + 1, '\n') - strlen(want) + 1, want, strlen(want)) == 0);
	snprintf(want, sizeof(want), "\na/sample.darshan/filter,log,a/sample.darshan,STDIO,");
	row = strstr(csv, want);
	assert_non_null(row);
	snprintf(want, sizeof(want), "Z,%zu,%zu,\n", stdio_sel, stdio_total);
	assert_true(strncmp(strchr(row + 1, '\n') - strlen(want) + 1, want, strlen(want)) == 0);
	free(csv);
	dfs_view_free(v);
}

/* One write of "clear" removes everything; anything else is refused and
 * says why in selections.error, changing nothing */
static void test_clear(void **state)
{
	struct fixture *fx = *state;
	if (!fx)
		skip();
	dfs_view *v = view_of(fx, false);
	char *all = slurp(v, IMPORTED "/records.csv");
	char *sample_all = slurp(v, SAMPLE "/POSIX/records.csv");
	select_four(v, NULL);
	char *before = slurp(v, "/selections");
	assert_true(strlen(before) > 0);
	const char *bad[] = {"nope\n", "clear all\n", "clea\n", "# clear\n", "CLEAR\n"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		dfs_error err = {0};
		assert_int_equal(write_as(v, "/selections", NULL, bad[i], &err), -1);
		assert_int_equal(err.code, DFS_ERR_INVAL);
		char *why = slurp(v, "/selections.error");
		if (!strstr(why, "selections takes the word clear"))
			fail_msg("%s -> selections.error '%s'", bad[i], why);
		free(why);
		char *now = slurp(v, "/selections");
		assert_string_equal(now, before);
		free(now);
	}
	/* refused at the write that carries the bad text, in pieces too */
	dfs_error err = {0};
	dfs_write *w = dfs_view_open_write(v, "/selections", NULL, true, &err);
	assert_non_null(w);
	assert_int_equal(dfs_write_data(w, "cl", 2, 0, &err), 0);
	assert_int_equal(dfs_write_data(w, "ip\n", 3, 2, &err), -1);
	dfs_write_free(w);
	/* a truncation to some size: refused */
	assert_int_equal(dfs_view_truncate(v, "/selections", NULL, 3, &err), -1);
	assert_int_equal(err.code, DFS_ERR_INVAL);
	char *now = slurp(v, "/selections");
	assert_string_equal(now, before);
	free(now);
	check_root_sizes(v, NULL);
	/* clear, in two pieces */
	w = dfs_view_open_write(v, "/selections", NULL, true, &err);
	assert_non_null(w);
	assert_int_equal(dfs_write_data(w, "cle", 3, 0, &err), 0);
	assert_int_equal(dfs_write_data(w, "ar\n", 3, 3, &err), 0);
	assert_int_equal(dfs_write_flush(w, &err), 0);
	dfs_write_free(w);
	now = slurp(v, "/selections");
	assert_string_equal(now, "");
	free(now);
	now = slurp(v, "/selections.error");
	assert_string_equal(now, "");
	free(now);
	const char *filters[] = {"/a/filter", SAMPLE "/filter", SAMPLE "/POSIX/filter",
	                         IMPORTED "/filter"};
	for (size_t i = 0; i < 4; i++) {
		char *f = slurp(v, filters[i]);
		assert_string_equal(f, "");
		free(f);
	}
	now = slurp(v, IMPORTED "/records.csv");
	assert_string_equal(now, all);
	free(now);
	now = slurp(v, SAMPLE "/POSIX/records.csv");
	assert_string_equal(now, sample_all);
	free(now);
	char *dm = slurp(v, SAMPLE "/POSIX/derived_metrics");
	assert_non_null(strstr(dm, "# filters: none (every record)"));
	free(dm);
	check_root_sizes(v, NULL);
	/* `: > selections` (a truncation, nothing written) clears too */
	select_four(v, NULL);
	w = dfs_view_open_write(v, "/selections", NULL, true, &err);
	assert_non_null(w);
	dfs_write_free(w);
	now = slurp(v, "/selections");
	assert_string_equal(now, "");
	free(now);
	free(before);
	free(sample_all);
	free(all);
	dfs_view_free(v);
}

/* On a view with per_user, each user's list is theirs, and their clear
 * removes theirs only */
static void test_per_user(void **state)
{
	struct fixture *fx = *state;
	if (!fx)
		skip();
	dfs_view *v = view_of(fx, true);
	dfs_caller alice = {.uid = 1001, .gid = 1001}, bob = {.uid = 1002, .gid = 1002},
	           carol = {.uid = 1003, .gid = 1003};
	char *all = slurp(v, SAMPLE "/POSIX/records.csv");
	select_four(v, &alice);
	dfs_error err = {0};
	assert_int_equal(write_as(v, SAMPLE "/POSIX/filter", &bob, "rank == 12345\n", &err), 0);
	char *a = slurp_as(v, "/selections", &alice, NULL);
	char *b = slurp_as(v, "/selections", &bob, NULL);
	char *c = slurp_as(v, "/selections", &carol, NULL);
	char *o = slurp(v, "/selections");
	assert_non_null(strstr(a, "a/filter: rank >= -1"));
	assert_null(strstr(a, "rank == 12345"));
	assert_non_null(strstr(b, "a/sample.darshan/POSIX/filter: rank == 12345\n"));
	assert_null(strstr(b, "a/filter"));
	assert_string_equal(c, "");
	assert_string_equal(o, "");
	check_root_sizes(v, &alice);
	check_root_sizes(v, &bob);
	/* a refusal is the writer's: only their selections.error says it */
	assert_int_equal(write_as(v, "/selections", &carol, "what\n", &err), -1);
	char *ce = slurp_as(v, "/selections.error", &carol, NULL);
	char *ae = slurp_as(v, "/selections.error", &alice, NULL);
	assert_true(strlen(ce) > 0);
	assert_string_equal(ae, "");
	/* alice clears: hers go, bob's stay */
	assert_int_equal(write_as(v, "/selections", &alice, "clear\n", &err), 0);
	char *a2 = slurp_as(v, "/selections", &alice, NULL);
	char *b2 = slurp_as(v, "/selections", &bob, NULL);
	assert_string_equal(a2, "");
	assert_string_equal(b2, b);
	char *arec = slurp_as(v, SAMPLE "/POSIX/records.csv", &alice, NULL);
	char *brec = slurp_as(v, SAMPLE "/POSIX/records.csv", &bob, NULL);
	assert_string_equal(arec, all);
	assert_true(strcmp(brec, all) != 0);
	/* carol's clear (she has nothing) changes nobody's */
	assert_int_equal(write_as(v, "/selections", &carol, "clear\n", &err), 0);
	char *b3 = slurp_as(v, "/selections", &bob, NULL);
	assert_string_equal(b3, b);
	free(b3);
	free(brec);
	free(arec);
	free(b2);
	free(a2);
	free(ae);
	free(ce);
	free(o);
	free(c);
	free(b);
	free(a);
	free(all);
	dfs_view_free(v);
}

/* ---- the attribute ------------------------------------------------------------------ */

static char *attr(dfs_view *v, const char *path, const dfs_caller *who)
{
	char *t = NULL;
	dfs_error err = {0};
	int r = dfs_view_selection(v, path, who, &t, &err);
	if (r < 0)
		fail_msg("%s: %s", path, err.msg);
	assert_true(dfs_view_has_selection(v, path) == (r == 1));
	return r ? t : NULL;
}

static void test_selection_attribute(void **state)
{
	struct fixture *fx = *state;
	if (!fx)
		skip();
	dfs_view *v = view_of(fx, true);
	dfs_caller alice = {.uid = 1001, .gid = 1001}, bob = {.uid = 1002, .gid = 1002};
	/* the files of a selection have it, empty while nothing is selected */
	const char *files[] = {
		SAMPLE "/POSIX/records.csv", SAMPLE "/POSIX/derived_metrics",
		SAMPLE "/POSIX/derived_metrics.json", SAMPLE "/POSIX/total",
		SAMPLE "/POSIX/total.csv", SAMPLE "/filtered.darshan", SAMPLE "/summary.html",
		SAMPLE "/derived_metrics", SAMPLE "/insights.csv", SAMPLE "/summary/io_cost.svg",
		"/a/jobs.csv", "/jobs.csv", "/summary.html", "/insights.csv", "/selections",
		SAMPLE "/LUSTRE/records.csv",
	};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *t = attr(v, files[i], &alice);
		if (!t)
			fail_msg("%s has no selection attribute", files[i]);
		assert_string_equal(t, "");
		free(t);
	}
	/* the others have none */
	const char *plain[] = {SAMPLE "/header.txt", SAMPLE "/POSIX/filter",
	                       SAMPLE "/POSIX/filter.error", "/filter", "/selections.error",
	                       SAMPLE "/names.csv", SAMPLE "/mounts.csv"};
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		if (attr(v, plain[i], &alice))
			fail_msg("%s has a selection attribute", plain[i]);
	char *t = NULL;
	dfs_error err = {0};
	assert_int_equal(dfs_view_selection(v, "/a/nothing.darshan/POSIX/total", &alice,
	                                       &t, &err), -1);
	assert_int_equal(err.code, DFS_ERR_NOENT);
	select_four(v, &alice);
	/* a module's files: its levels, as its derived_metrics says them */
	const char *posix = "a/filter: rank >= -1; a/sample.darshan/filter: POSIX_OPENS >= 0 or "
	                    "STDIO_OPENS >= 0; a/sample.darshan/POSIX/filter: " TEXT_FILTER;
	t = attr(v, SAMPLE "/POSIX/records.csv", &alice);
	assert_string_equal(t, posix);
	free(t);
	t = attr(v, SAMPLE "/POSIX/total", &alice);
	assert_string_equal(t, posix);
	free(t);
	t = attr(v, SAMPLE "/STDIO/derived_metrics", &alice);
	assert_string_equal(t, "a/filter: rank >= -1; a/sample.darshan/filter: POSIX_OPENS >= 0 "
	                       "or STDIO_OPENS >= 0");
	free(t);
	/* an import stands alone */
	t = attr(v, IMPORTED "/records.csv", &alice);
	assert_string_equal(t, "b/imbalanced-io.darshan/POSIX/records.csv: 2 rows "
	                       "imported");
	free(t);
	/* a log's files: every level of the log */
	t = attr(v, SAMPLE "/summary.html", &alice);
	assert_string_equal(t, posix);
	free(t);
	t = attr(v, SAMPLE "/filtered.darshan", &alice);
	assert_string_equal(t, posix);
	free(t);
	/* a directory's: every filter touching a log below it */
	t = attr(v, "/a/jobs.csv", &alice);
	assert_string_equal(t, posix);
	free(t);
	t = attr(v, "/b/jobs.csv", &alice);
	assert_string_equal(t, "b/imbalanced-io.darshan/POSIX/records.csv: 2 rows "
	                       "imported");
	free(t);
	char both[1024];
	snprintf(both, sizeof(both), "%s; b/imbalanced-io.darshan/POSIX/records.csv: "
	         "2 rows imported", posix);
	t = attr(v, "/jobs.csv", &alice);
	assert_string_equal(t, both);
	free(t);
	t = attr(v, "/selections", &alice);
	assert_string_equal(t, both);
	free(t);
	/* another user's: theirs alone */
	assert_int_equal(write_as(v, SAMPLE "/POSIX/filter", &bob, "rank == -1\n", &err), 0);
	t = attr(v, SAMPLE "/POSIX/records.csv", &bob);
	assert_string_equal(t, "a/sample.darshan/POSIX/filter: rank == -1");
	free(t);
	t = attr(v, "/b/jobs.csv", &bob);
	assert_string_equal(t, "");
	free(t);
	t = attr(v, SAMPLE "/POSIX/records.csv", NULL);
	assert_string_equal(t, "");
	free(t);
	/* named by the module's directory (BG/Q's is BGQ) */
	const char *bgq = "/b/mpi-io-test-ppc64-3.1.8.darshan/BGQ";
	char path[256];
	snprintf(path, sizeof(path), "%s/filter", bgq);
	assert_int_equal(write_as(v, path, &bob, "rank >= 0\n", &err), 0);
	snprintf(path, sizeof(path), "%s/records.csv", bgq);
	t = attr(v, path, &bob);
	assert_string_equal(t, "b/mpi-io-test-ppc64-3.1.8.darshan/BGQ/filter: rank >= 0");
	free(t);
	char *list = slurp_as(v, "/selections", &bob, NULL);
	assert_non_null(strstr(list, "\nb/mpi-io-test-ppc64-3.1.8.darshan/BGQ/filter: rank >= 0\n"
	                             "  module filter, written "));
	free(list);
	dfs_view_free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_over_the_log),
		cmocka_unit_test(test_no_import_says_why),
		cmocka_unit_test(test_selections_files),
		cmocka_unit_test(test_clear),
		cmocka_unit_test(test_per_user),
		cmocka_unit_test(test_selection_attribute),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
