/* test_csv.c - records.csv rendering and the repacker: every record of
 * every shared log, rendered as CSV and parsed back, gives the identical
 * binary record; quoting; every kind of bad input is refused with its line
 * and column. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/shared.h"
#include "darshanfs/csv.h"
#include "darshanfs/log.h"

static void test_quoting(void **state)
{
	(void)state;
	dfs_buf b = DFS_BUF_INIT;
	dfs_csv_field(&b, "plain", 5);
	dfs_buf_addc(&b, '|');
	dfs_csv_field(&b, "a,b", 3);
	dfs_buf_addc(&b, '|');
	dfs_csv_field(&b, "say \"hi\"", 8);
	dfs_buf_addc(&b, '|');
	dfs_csv_field(&b, "two\nlines", 9);
	dfs_buf_addc(&b, '|');
	dfs_csv_field(&b, "cr\r", 3);
	dfs_buf_addc(&b, '|');
	dfs_csv_field(&b, "", 0);
	assert_string_equal(b.data, "plain|\"a,b\"|\"say \"\"hi\"\"\"|\"two\nlines\"|\"cr\r\"|");
	dfs_buf_free(&b);
}

/* Render one record as a two-line CSV, import it, compare the bytes. */
static void roundtrip_record(const dfs_log *log, const dfs_module *m,
                             const unsigned char *rec, const char *logname,
                             size_t index)
{
	dfs_buf csv = DFS_BUF_INIT;
	dfs_csv_header(m, &csv);
	dfs_csv_record(log, m, rec, m->record_size, &csv);
	dfs_records out;
	dfs_records_init(&out, m, m->version);
	dfs_error err = {0};
	if (dfs_csv_import(log, m, csv.data, csv.len, &out, &err))
		fail_msg("%s %s record %zu: %s", logname, m->name, index, err.msg);
	assert_int_equal(out.count, 1);
	if (memcmp(out.data, rec, m->record_size) != 0) {
		size_t k = 0;
		while (out.data[k] == rec[k])
			k++;
		fail_msg("%s %s record %zu differs at byte %zu after the round trip",
		         logname, m->name, index, k);
	}
	dfs_records_free(&out);
	dfs_buf_free(&csv);
}

static void test_roundtrip_every_record(void **state)
{
	(void)state;
	size_t n;
	char **logs = shared_logs(&n);
	if (!logs)
		skip();
	size_t records = 0, modules = 0;
	for (size_t i = 0; i < n; i++) {
		char *path = shared_log_path(logs[i]);
		dfs_error err = {0};
		dfs_log *log = dfs_log_open(path, 0, &err);
		assert_non_null(log);
		for (int id = 0; id < DFS_MOD_SLOTS; id++) {
			const dfs_records *r = dfs_log_records(log, id);
			if (!r || r->module->record_size == 0)
				continue;
			modules++;
			/* the whole module at once, in log order */
			dfs_buf csv = DFS_BUF_INIT;
			dfs_csv_header(r->module, &csv);
			for (size_t k = 0; k < r->count; k++) {
				if (k < 50)
					roundtrip_record(log, r->module, dfs_record(r, k), logs[i], k);
				dfs_csv_record(log, r->module, dfs_record(r, k),
				               r->module->record_size, &csv);
			}
			dfs_records out;
			dfs_records_init(&out, r->module, r->module->version);
			if (dfs_csv_import(log, r->module, csv.data, csv.len, &out, &err))
				fail_msg("%s %s: %s", logs[i], r->module->name, err.msg);
			assert_int_equal(out.count, r->count);
			assert_memory_equal(out.data, r->data, r->count * r->module->record_size);
			records += r->count;
			dfs_records_free(&out);
			dfs_buf_free(&csv);
		}
		dfs_log_free(log);
		free(path);
	}
	printf("repacker round trip: %zu records of %zu modules of %zu logs identical\n",
	       records, modules, n);
	shared_free_list(logs);
}

static const char *log_name = "mpi-io-test-x86_64-3.5.0.darshan";

static dfs_log *open_sample(void)
{
	if (!shared_dir())
		return NULL;
	char *path = shared_log_path(log_name);
	dfs_error err = {0};
	dfs_log *log = dfs_log_open(path, 0, &err);
	free(path);
	return log;
}

static void expect_error(const dfs_log *log, const char *csv, const char *needle)
{
	const dfs_module *m = dfs_module_get(DFS_MOD_POSIX);
	dfs_records out;
	dfs_records_init(&out, m, m->version);
	dfs_error err = {0};
	int ret = dfs_csv_import(log, m, csv, strlen(csv), &out, &err);
	if (ret == 0)
		fail_msg("accepted: %s", csv);
	assert_int_equal(err.code, DFS_ERR_INVAL);
	if (!strstr(err.msg, needle))
		fail_msg("message '%s' lacks '%s'", err.msg, needle);
	assert_int_equal(out.count, 0);
}

static void test_bad_input(void **state)
{
	(void)state;
	dfs_log *log = open_sample();
	expect_error(log, "", "header line");
	expect_error(log, "\n\n", "header line");
	expect_error(log, "record_id,rank,POSIX_NOPE\n1,0,2\n",
	             "line 1, column 3: unknown column 'POSIX_NOPE'");
	expect_error(log, "rank,POSIX_OPENS\n0,1\n", "required column 'record_id'");
	expect_error(log, "record_id,POSIX_OPENS\n1,1\n", "required column 'rank'");
	expect_error(log, "record_id,rank,POSIX_OPENS,POSIX_OPENS\n1,0,1,1\n",
	             "appears twice");
	expect_error(log, "record_id,rank,POSIX_OPENS\n1,0,abc\n",
	             "line 2, column 3 (POSIX_OPENS): 'abc' is not a signed 64-bit integer");
	expect_error(log, "record_id,rank,POSIX_OPENS\n-1,0,1\n",
	             "line 2, column 1 (record_id): '-1' is not an unsigned");
	expect_error(log, "record_id,rank,POSIX_OPENS\n1,0,99999999999999999999\n",
	             "is not a signed 64-bit integer");
	expect_error(log, "record_id,rank,POSIX_F_READ_TIME\n1,0,1.5.5\n", "is not a number");
	expect_error(log, "record_id,rank,POSIX_OPENS\n1,0\n", "line 2: 2 fields, but the header has 3");
	expect_error(log, "record_id,rank,POSIX_OPENS\n1,0,1,7\n", "line 2: 4 fields");
	expect_error(log, "record_id,rank,POSIX_OPENS\n1,0,\"1\n", "quoted field is never closed");
	expect_error(log, "record_id,rank,POSIX_OPENS\n1,0,\"1\"x\n", "text after a closing quote");
	expect_error(log, "record_id,rank,POSIX_OPENS\n1,0,1\"\n", "quote inside an unquoted field");
	/* absent counters need a record of the log to take them from */
	expect_error(log, "record_id,rank,POSIX_OPENS\n1,0,1\n",
	             "no record with record_id 1 and rank 0");
	dfs_log_free(log);
}

/* Absent counter columns come from the log's record; extra place columns
 * are ignored; quoting and CRLF are accepted; integral floats too. */
static void test_partial_columns(void **state)
{
	(void)state;
	dfs_log *log = open_sample();
	if (!log)
		skip();
	const dfs_records *r = dfs_log_records(log, DFS_MOD_POSIX);
	assert_non_null(r);
	const unsigned char *rec = dfs_record(r, 0);
	char csv[512];
	snprintf(csv, sizeof(csv),
	         "\"file_name\",POSIX_OPENS,rank,record_id\r\n\"x,y\",42.0,%lld,%llu\r\n",
	         (long long)dfs_record_rank(rec), (unsigned long long)dfs_record_id(rec));
	const dfs_module *m = r->module;
	dfs_records out;
	dfs_records_init(&out, m, m->version);
	dfs_error err = {0};
	if (dfs_csv_import(log, m, csv, strlen(csv), &out, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(out.count, 1);
	int64_t opens;
	memcpy(&opens, out.data + m->int_offset, 8);
	assert_int_equal(opens, 42);
	assert_memory_equal(out.data + m->int_offset + 8, rec + m->int_offset + 8,
	                    m->record_size - m->int_offset - 8);
	dfs_records_free(&out);
	dfs_log_free(log);
}

static void test_variable_modules_refused(void **state)
{
	(void)state;
	dfs_error err = {0};
	const char *csv = "record_id,rank\n1,0\n";
	assert_int_equal(dfs_csv_check_header(dfs_module_get(DFS_MOD_LUSTRE), csv,
	                                      strlen(csv), &err), -1);
	assert_non_null(strstr(err.msg, "cannot be imported"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quoting),
		cmocka_unit_test(test_roundtrip_every_record),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_partial_columns),
		cmocka_unit_test(test_variable_modules_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
