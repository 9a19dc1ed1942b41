/* test_parquet.c - the Parquet writer (src/parquet): the compact protocol's
 * bytes, the file's frame, and every misuse refused with a message
 * instead of a file a reader would misread.  What real engines make of the
 * files is tests/integration/parquet_engine.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "parquet/parquet.h"
#include "parquet/thrift.h"

static void expect_bytes(const dfs_buf *b, const unsigned char *want, size_t n)
{
	assert_int_equal(b->len, n);
	assert_memory_equal(b->data, want, n);
}

/* Field headers: an id 1..15 past the previous one in the high nibble,
 * else the type alone and the id as a zigzag varint; integers as zigzag
 * varints; a struct's fields counted from 0 again; 0 ends a struct. */
static void test_compact_fields(void **state)
{
	(void)state;
	dfs_buf b = DFS_BUF_INIT;
	dfs_tc t;
	dfs_tc_init(&t, &b);
	dfs_tc_i32(&t, 1, 1);        /* 0x15 0x02 */
	dfs_tc_i32(&t, 3, -1);       /* 0x25 0x01 */
	dfs_tc_i64(&t, 20, 300);     /* 0x06 0x28 (20 zigzag), 0xd8 0x04 (600) */
	dfs_tc_struct(&t, 21);       /* 0x1c */
	dfs_tc_bool(&t, 1, true);    /* 0x11 */
	dfs_tc_bool(&t, 2, false);   /* 0x12 */
	dfs_tc_end(&t);              /* 0x00 */
	dfs_tc_binary(&t, 22, "ab", 2);   /* 0x18 0x02 'a' 'b' */
	dfs_tc_finish(&t);           /* 0x00 */
	assert_true(dfs_tc_ok(&t));
	static const unsigned char want[] = {
		0x15, 0x02, 0x25, 0x01, 0x06, 0x28, 0xd8, 0x04, 0x1c, 0x11, 0x12, 0x00,
		0x18, 0x02, 'a', 'b', 0x00,
	};
	expect_bytes(&b, want, sizeof(want));
	dfs_buf_free(&b);
}

/* List headers: fewer than 15 elements in the high nibble, else 0xf and a
 * varint count. */
static void test_compact_lists(void **state)
{
	(void)state;
	dfs_buf b = DFS_BUF_INIT;
	dfs_tc t;
	dfs_tc_init(&t, &b);
	dfs_tc_list(&t, 1, DFS_TC_I32, 2);
	dfs_tc_elem_i32(&t, 0);
	dfs_tc_elem_i32(&t, 3);
	dfs_tc_list(&t, 2, DFS_TC_STRUCT, 20);
	for (int i = 0; i < 20; i++) {
		dfs_tc_elem_struct(&t);
		dfs_tc_end(&t);
	}
	dfs_tc_finish(&t);
	assert_true(dfs_tc_ok(&t));
	assert_int_equal(b.len, 4 + 3 + 20 + 1);
	static const unsigned char head[] = {0x19, 0x25, 0x00, 0x06, 0x19, 0xfc, 20};
	assert_memory_equal(b.data, head, sizeof(head));
	dfs_buf_free(&b);
}

/* Field ids going back, or a struct never closed, are caught. */
static void test_compact_misuse(void **state)
{
	(void)state;
	dfs_buf b = DFS_BUF_INIT;
	dfs_tc t;
	dfs_tc_init(&t, &b);
	dfs_tc_i32(&t, 2, 0);
	dfs_tc_i32(&t, 1, 0);
	dfs_tc_finish(&t);
	assert_false(dfs_tc_ok(&t));
	dfs_buf_reset(&b);
	dfs_tc_init(&t, &b);
	dfs_tc_struct(&t, 1);
	dfs_tc_finish(&t);
	assert_false(dfs_tc_ok(&t));
	dfs_buf_free(&b);
}

static const struct dfs_pq_column two[] = {
	{"id", DFS_PQ_UINT64, false},
	{"name", DFS_PQ_STRING, true},
};

static uint32_t le32(const char *p)
{
	const unsigned char *u = (const unsigned char *)p;
	return (uint32_t)u[0] | (uint32_t)u[1] << 8 | (uint32_t)u[2] << 16 | (uint32_t)u[3] << 24;
}

/* "PAR1", the chunks, the footer, its length, "PAR1"; the footer holds
 * the column names and the key-value metadata. */
static void test_frame(void **state)
{
	(void)state;
	const char *k[] = {"filters"}, *v[] = {"rank == 0"};
	struct dfs_pq_options o = {.codec = DFS_PQ_GZIP, .group_rows = 2,
	                           .kv_keys = k, .kv_values = v, .nkv = 1};
	dfs_error err;
	dfs_pq *w = dfs_pq_new(two, 2, &o, &err);
	assert_non_null(w);
	for (uint64_t i = 0; i < 5; i++) {
		dfs_pq_u64(w, i << 62);
		if (i == 3)
			dfs_pq_null(w);
		else
			dfs_pq_str(w, "x", 1);
	}
	assert_int_equal(dfs_pq_rows(w), 5);
	dfs_buf out = DFS_BUF_INIT;
	assert_int_equal(dfs_pq_finish(w, &out, &err), 0);
	dfs_pq_free(w);
	assert_true(out.len > 12);
	assert_memory_equal(out.data, "PAR1", 4);
	assert_memory_equal(out.data + out.len - 4, "PAR1", 4);
	uint32_t flen = le32(out.data + out.len - 8);
	assert_true(flen < out.len - 12);
	const char *footer = out.data + out.len - 8 - flen;
	assert_non_null(memmem(footer, flen, "name", 4));
	assert_non_null(memmem(footer, flen, "rank == 0", 9));
	dfs_buf_free(&out);

	/* an empty table is a file too: no row group */
	w = dfs_pq_new(two, 2, NULL, &err);
	assert_non_null(w);
	assert_int_equal(dfs_pq_finish(w, &out, &err), 0);
	dfs_pq_free(w);
	assert_memory_equal(out.data, "PAR1", 4);
	assert_memory_equal(out.data + out.len - 4, "PAR1", 4);
	dfs_buf_free(&out);
}

/* Misuse is refused: the file is never made, the message names it. */
static void expect_refused(dfs_pq *w, const char *words)
{
	dfs_buf out = DFS_BUF_INIT;
	dfs_error err;
	assert_int_equal(dfs_pq_finish(w, &out, &err), -1);
	assert_int_equal(out.len, 0);
	if (!strstr(err.msg, words))
		fail_msg("message '%s' lacks '%s'", err.msg, words);
	dfs_pq_free(w);
	dfs_buf_free(&out);
}

static void test_misuse(void **state)
{
	(void)state;
	dfs_error err;
	dfs_pq *w = dfs_pq_new(two, 2, NULL, &err);
	dfs_pq_i64(w, 1);   /* id is UINT64 */
	expect_refused(w, "INT64 value given for column id");

	w = dfs_pq_new(two, 2, NULL, &err);
	dfs_pq_null(w);     /* id is required */
	dfs_pq_str(w, "a", 1);
	expect_refused(w, "null given for column id");

	w = dfs_pq_new(two, 2, NULL, &err);
	dfs_pq_u64(w, 1);
	expect_refused(w, "incomplete");

	static const char *const bad[] = {"\xff", "\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80",
	                                  "\xf4\x90\x80\x80", "a\xc3", "\xe6\x97"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		w = dfs_pq_new(two, 2, NULL, &err);
		dfs_pq_u64(w, 1);
		dfs_pq_str(w, bad[i], strlen(bad[i]));
		expect_refused(w, "not UTF-8");
	}
	static const char *const good[] = {"", "\xc3\xa9", "\xe6\x97\xa5", "\xf0\x9f\x98\x80",
	                                   "\xf4\x8f\xbf\xbf", "\xed\x9f\xbf"};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		w = dfs_pq_new(two, 2, NULL, &err);
		dfs_pq_u64(w, 1);
		dfs_pq_str(w, good[i], strlen(good[i]));
		dfs_buf out = DFS_BUF_INIT;
		assert_int_equal(dfs_pq_finish(w, &out, &err), 0);
		dfs_pq_free(w);
		dfs_buf_free(&out);
	}

	/* schemas that cannot be written */
	assert_null(dfs_pq_new(two, 0, NULL, &err));
	static const struct dfs_pq_column same[] = {{"a", DFS_PQ_INT64, false},
	                                            {"a", DFS_PQ_DOUBLE, false}};
	assert_null(dfs_pq_new(same, 2, NULL, &err));
	assert_non_null(strstr(err.msg, "two columns are named a"));
	static const struct dfs_pq_column noname[] = {{"", DFS_PQ_INT64, false}};
	assert_null(dfs_pq_new(noname, 1, NULL, &err));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compact_fields),
		cmocka_unit_test(test_compact_lists),
		cmocka_unit_test(test_compact_misuse),
		cmocka_unit_test(test_frame),
		cmocka_unit_test(test_misuse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
