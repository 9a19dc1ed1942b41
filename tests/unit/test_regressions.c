/* test_regressions.c - every input under tests/fuzz/regressions/TARGET/
 * through the entry point of that fuzz target (the target sources are
 * compiled into this test, renamed), so a crash the fuzzers once found
 * crashes this test too when it comes back (run it under ASan/UBSan as
 * tests/run does).  Then regressions/EXPECTED is checked: the exact
 * outcome and message for the inputs where one is meaningful.
 *
 * The inputs are written by tests/fuzz/mkregress.py.  The directory is
 * found from $DFS_FUZZ_REGRESSIONS, else next to this source file (from
 * the current directory or from the build directory holding this
 * program). */
#include <dirent.h>
#include <limits.h>
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

#include "csv/csv.h"
#include "filter/filter.h"
#include "darshanfs/log.h"

/* the fuzz targets, with their libFuzzer entry points renamed */
#include "fuzz/fuzz_common.c"
#define LLVMFuzzerTestOneInput fuzz_log_one
#include "fuzz/fuzz_log.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_filter_one
#define LLVMFuzzerInitialize fuzz_filter_init
#include "fuzz/fuzz_filter.c"
#undef LLVMFuzzerTestOneInput
#undef LLVMFuzzerInitialize
#define LLVMFuzzerTestOneInput fuzz_csv_one
#define LLVMFuzzerInitialize fuzz_csv_init
#include "fuzz/fuzz_csv.c"
#undef LLVMFuzzerTestOneInput
#undef LLVMFuzzerInitialize

static const struct {
	const char *name;
	int (*entry)(const uint8_t *, size_t);
} targets[] = {
	{"fuzz_log", fuzz_log_one},
	{"fuzz_filter", fuzz_filter_one},
	{"fuzz_csv", fuzz_csv_one},
};
#define N_TARGETS (sizeof(targets) / sizeof(targets[0]))

/* ---- finding the directory -------------------------------------------------- */

static bool is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* "a/b" into out; false when it does not fit */
static bool join(char *out, size_t n, const char *a, const char *b)
{
	int k = snprintf(out, n, "%s/%s", a, b);
	return k >= 0 && (size_t)k < n;
}

/* __FILE__ is relative to the directory the compiler ran in: the build
 * directory, an ancestor of this program's directory that has
 * build.ninja. */
static bool from_build_dir(char *out, size_t n, const char *rel)
{
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len <= 0)
		return false;
	exe[len] = '\0';
	char *slash;
	while ((slash = strrchr(exe, '/')) && slash != exe) {
		*slash = '\0';
		char probe[PATH_MAX];
		if (join(probe, sizeof(probe), exe, "build.ninja") &&
		    access(probe, F_OK) == 0)
			return join(out, n, exe, rel) && is_dir(out);
	}
	return false;
}

static bool find_dir(char *out, size_t n)
{
	const char *env = getenv("DFS_FUZZ_REGRESSIONS");
	if (env)
		return strlen(env) < n && strcpy(out, env) && is_dir(out);
	/* this file's directory, then ../fuzz/regressions */
	char src[PATH_MAX], rel[PATH_MAX];
	const char *slash = strrchr(__FILE__, '/');
	int k = slash ? snprintf(src, sizeof(src), "%.*s", (int)(slash - __FILE__), __FILE__)
	              : snprintf(src, sizeof(src), ".");
	if (k < 0 || (size_t)k >= sizeof(src) ||
	    !join(rel, sizeof(rel), src, "../fuzz/regressions") || strlen(rel) >= n)
		return false;
	strcpy(out, rel);
	if (is_dir(out))
		return true;
	return rel[0] != '/' && from_build_dir(out, n, rel);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *data = NULL;
	size_t cap = 0, n = 0, got;
	do {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			char *p = realloc(data, cap + 1);
			assert_non_null(p);
			data = p;
		}
		got = fread(data + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	fclose(f);
	data[n] = '\0';
	*len = n;
	return data;
}

/* ---- every file through its target ------------------------------------------------ */

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static size_t run_target(const char *dir, size_t t)
{
	char path[PATH_MAX];
	if (!join(path, sizeof(path), dir, targets[t].name))
		return 0;
	DIR *d = opendir(path);
	if (!d)
		return 0;
	char *names[1024];
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d)) && n < 1024)
		if (e->d_name[0] != '.')
			names[n++] = strdup(e->d_name);
	closedir(d);
	qsort(names, n, sizeof(char *), by_name);
	for (size_t i = 0; i < n; i++) {
		char file[PATH_MAX];
		assert_true(join(file, sizeof(file), path, names[i]));
		size_t len;
		char *data = slurp(file, &len);
		assert_non_null(data);
		printf("  %s/%s (%zu bytes)\n", targets[t].name, names[i], len);
		assert_int_equal(targets[t].entry((const uint8_t *)data, len), 0);
		free(data);
		free(names[i]);
	}
	return n;
}

static void test_no_crash(void **state)
{
	(void)state;
	char dir[PATH_MAX];
	if (!find_dir(dir, sizeof(dir))) {
		fprintf(stderr, "tests/fuzz/regressions not found: set DFS_FUZZ_REGRESSIONS\n");
		fail();
	}
	size_t total = 0;
	for (size_t t = 0; t < N_TARGETS; t++)
		total += run_target(dir, t);
	printf("%zu regression inputs ran cleanly\n", total);
	assert_true(total > 0);
}

/* ---- expected outcomes --------------------------------------------------------------- */

static const char *const status_names[] = {
	[DFS_OK] = "OK", [DFS_ERR_NOMEM] = "NOMEM", [DFS_ERR_IO] = "IO",
	[DFS_ERR_FORMAT] = "FORMAT", [DFS_ERR_UNSUPPORTED] = "UNSUPPORTED",
	[DFS_ERR_INVAL] = "INVAL", [DFS_ERR_NOENT] = "NOENT",
	[DFS_ERR_TOOBIG] = "TOOBIG",
};

static const char *status_name(dfs_status s)
{
	return (size_t)s < sizeof(status_names) / sizeof(status_names[0]) ? status_names[s]
	                                                                : "?";
}

/* "refused STATUS" against an error; DETAIL "-" matches any message */
static void expect_error(const char *what, const char *outcome,
                         const char *detail, const dfs_error *err, bool failed)
{
	if (strncmp(outcome, "refused ", 8) != 0) {
		if (failed)
			fail_msg("%s: refused (%s) but expected %s", what, err->msg, outcome);
		return;
	}
	if (!failed)
		fail_msg("%s: accepted but expected %s", what, outcome);
	if (strcmp(outcome + 8, status_name(err->code)) != 0)
		fail_msg("%s: status %s, expected %s (%s)", what, status_name(err->code),
		         outcome + 8, err->msg);
	if (strcmp(detail, "-") != 0 && !strstr(err->msg, detail))
		fail_msg("%s: message '%s' lacks '%s'", what, err->msg, detail);
}

static void check_log(const char *what, const char *data, size_t len,
                      const char *outcome, const char *detail)
{
	dfs_error err = {0};
	dfs_log *log = dfs_log_open_mem(data, len, what, 0, &err);
	expect_error(what, outcome, detail, &err, log == NULL);
	if (!log || strcmp(detail, "-") == 0)
		goto done;
	/* MODULE=STATUS */
	char mod[64];
	const char *eq = strchr(detail, '=');
	assert_non_null(eq);
	snprintf(mod, sizeof(mod), "%.*s", (int)(eq - detail), detail);
	const dfs_module *m = dfs_module_by_name(mod);
	assert_non_null(m);
	const dfs_log_module *lm = dfs_log_get_module(log, m->id);
	if (strcmp(status_name(lm->status), eq + 1) != 0)
		fail_msg("%s: %s is %s (%s), expected %s", what, mod,
		         status_name(lm->status), lm->error ? lm->error : "", eq + 1);
done:
	dfs_log_free(log);
}

static void check_filter(const char *what, const char *data, size_t len,
                         const char *outcome, const char *detail)
{
	dfs_error err = {0};
	dfs_filter *f = dfs_filter_compile_module(dfs_module_get(DFS_MOD_POSIX),
	                                          data, len, false, &err);
	expect_error(what, outcome, detail, &err, f == NULL);
	dfs_filter_free(f);
}

static void check_csv(const char *what, const char *data, size_t len,
                      const char *outcome, const char *detail)
{
	assert_true(len > 0);
	const dfs_module *m = dfs_module_get(module_for((uint8_t)data[0]));
	dfs_records out;
	dfs_records_init(&out, m, m->version);
	dfs_error err = {0};
	int ret = dfs_csv_import(fuzz_synth_log(), m, data + 1, len - 1, &out, &err);
	expect_error(what, outcome, detail, &err, ret != 0);
	if (ret == 0 && strncmp(outcome, "rows ", 5) == 0)
		assert_int_equal(out.count, strtoul(outcome + 5, NULL, 10));
	dfs_records_free(&out);
}

static void check_line(const char *dir, char *line)
{
	char *file = strtok(line, "\t");
	char *outcome = strtok(NULL, "\t");
	char *detail = strtok(NULL, "\t\n");
	assert_true(file && outcome);
	if (!detail)
		detail = "-";
	char path[PATH_MAX];
	assert_true(join(path, sizeof(path), dir, file));
	size_t len;
	char *data = slurp(path, &len);
	if (!data)
		fail_msg("EXPECTED names %s, which does not exist", file);
	printf("  %s: %s %s\n", file, outcome, detail);
	if (strncmp(file, "fuzz_log/", 9) == 0)
		check_log(file, data, len, outcome, detail);
	else if (strncmp(file, "fuzz_filter/", 12) == 0)
		check_filter(file, data, len, outcome, detail);
	else if (strncmp(file, "fuzz_csv/", 9) == 0)
		check_csv(file, data, len, outcome, detail);
	else
		fail_msg("EXPECTED: unknown target in %s", file);
	free(data);
}

static void test_expected(void **state)
{
	(void)state;
	char dir[PATH_MAX];
	if (!find_dir(dir, sizeof(dir)))
		fail();
	char path[PATH_MAX];
	assert_true(join(path, sizeof(path), dir, "EXPECTED"));
	size_t len;
	char *text = slurp(path, &len);
	assert_non_null(text);
	size_t checked = 0;
	for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#' || line[0] == '\0')
			continue;
		check_line(dir, line);
		checked++;
	}
	printf("%zu expected outcomes checked\n", checked);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_crash),
		cmocka_unit_test(test_expected),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
