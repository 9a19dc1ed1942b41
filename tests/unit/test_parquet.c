/* test_parquet.c - the Parquet writer (src/parquet): the compact protocol's
 * bytes, the file's frame, and every misuse refused with a message
 * instead of a file a reader would misread.  What real engines make of the
 * files is tests/integration/parquet_engine.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "parquet/parquet.h"
#include "parquet/thrift.h"
#include "util/scratch.h"

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

/* ---- a table filled a row group at a time, on several threads ---- */

static const struct dfs_pq_column four[] = {
	{"id", DFS_PQ_UINT64, true}, {"kind", DFS_PQ_INT64, true},
	{"time", DFS_PQ_DOUBLE, true}, {"name", DFS_PQ_STRING, true},
};

/* row i: an id of its own, one of 7 kinds, a time, a name of 100 or
 * none */
static void row_name(uint64_t i, char *s, size_t size)
{
	snprintf(s, size, "file-%u", (unsigned)(i % 100));
}

static void fill_rows(dfs_pq *g, uint64_t first, size_t n, void *arg)
{
	(void)arg;
	uint64_t *id = dfs_pq_bulk(g, 0, n), *kind = dfs_pq_bulk(g, 1, n);
	uint64_t *time = dfs_pq_bulk(g, 2, n);
	assert_non_null(id);
	for (size_t k = 0; k < n; k++) {
		uint64_t i = first + k;
		id[k] = i * 0x9e3779b97f4a7c15ULL;
		kind[k] = i % 7;
		double t = (double)i * 0.5;
		memcpy(&time[k], &t, 8);
		char s[32];
		row_name(i, s, sizeof(s));
		if (i % 5 == 0)
			dfs_pq_bulk_null(g, 3);
		else
			dfs_pq_bulk_str(g, 3, s, strlen(s));
	}
	dfs_pq_bulk_rows(g, n);
}

static void fill_short(dfs_pq *g, uint64_t first, size_t n, void *arg)
{
	fill_rows(g, first, n - 1, arg);
}

/* The table of fill_rows's `rows` rows given one value at a time, with
 * options o: the bytes every way of filling it must give. */
static void one_at_a_time(const struct dfs_pq_options *o, uint64_t rows, dfs_buf *want)
{
	dfs_error err;
	dfs_pq *w = dfs_pq_new(four, 4, o, &err);
	assert_non_null(w);
	for (uint64_t i = 0; i < rows; i++) {
		dfs_pq_u64(w, i * 0x9e3779b97f4a7c15ULL);
		dfs_pq_i64(w, (int64_t)(i % 7));
		dfs_pq_f64(w, (double)i * 0.5);
		char s[32];
		row_name(i, s, sizeof(s));
		if (i % 5 == 0)
			dfs_pq_null(w);
		else
			dfs_pq_str(w, s, strlen(s));
	}
	assert_int_equal(dfs_pq_finish(w, want, &err), 0);
	dfs_pq_free(w);
}

/* Finish (and free) w in parts, which together must be `want`; their
 * number. */
static size_t finish_in_parts(dfs_pq *w, const dfs_buf *want)
{
	dfs_error err;
	dfs_buf *parts, out = DFS_BUF_INIT;
	size_t nparts;
	assert_int_equal(dfs_pq_finish_parts(w, &parts, &nparts, &err), 0);
	dfs_pq_free(w);
	for (size_t i = 0; i < nparts; i++) {
		dfs_buf_add(&out, parts[i].data, parts[i].len);
		dfs_buf_free(&parts[i]);
	}
	free(parts);
	assert_int_equal(out.len, want->len);
	assert_memory_equal(out.data, want->data, want->len);
	dfs_buf_free(&out);
	return nparts;
}

/* The table of fill_rows's `rows` rows filled a group at a time, with
 * options o, finished in parts that together must be `want`; their
 * number. */
static size_t fill_in_parts(const struct dfs_pq_options *o, uint64_t rows,
                            const dfs_buf *want)
{
	dfs_error err;
	dfs_pq *w = dfs_pq_new(four, 4, o, &err);
	assert_non_null(w);
	assert_int_equal(dfs_pq_fill_groups(w, rows, fill_rows, NULL), 0);
	return finish_in_parts(w, want);
}

/* The bytes do not depend on the threads nor on which group is done
 * first, and are those of the same rows given one value at a time. */
static void test_fill_groups(void **state)
{
	(void)state;
	const uint64_t rows = 5 * 2048 + 333;
	dfs_buf want = DFS_BUF_INIT;
	dfs_error err;
	struct dfs_pq_options o = {.codec = DFS_PQ_GZIP, .group_rows = 2048};
	one_at_a_time(&o, rows, &want);
	dfs_pq *w;

	static const size_t threads[] = {1, 2, 3, 8, 2, 8};
	for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++) {
		o.threads = threads[t];
		o.rows_hint = t % 2 ? rows : 0;
		w = dfs_pq_new(four, 4, &o, &err);
		assert_non_null(w);
		assert_int_equal(dfs_pq_fill_groups(w, rows, fill_rows, NULL), 0);
		assert_int_equal(dfs_pq_rows(w), rows);
		dfs_buf out = DFS_BUF_INIT;
		assert_int_equal(dfs_pq_finish(w, &out, &err), 0);
		dfs_pq_free(w);
		assert_int_equal(out.len, want.len);
		assert_memory_equal(out.data, want.data, want.len);
		dfs_buf_free(&out);

		/* in parts: each group filled on a thread of its own is a
		 * buffer of its own, and together they are the same bytes */
		size_t nparts = fill_in_parts(&o, rows, &want);
		assert_true(threads[t] == 1 ? nparts == 1 : nparts >= 6);
	}
	dfs_buf_free(&want);

	/* a group given fewer rows than its own fails the table */
	for (size_t t = 1; t <= 2; t++) {
		o.threads = t;
		w = dfs_pq_new(four, 4, &o, &err);
		assert_int_equal(dfs_pq_fill_groups(w, rows, fill_short, NULL), -1);
		expect_refused(w, "not filled with its rows");
	}
}

/* Parts whose groups' values come from a pool (blocks of 1 MiB and more,
 * kept between tables and handed out again with the last table's values
 * in them): the same bytes as the rows given one value at a time, on the
 * first table (fresh blocks) and the next ones (the kept blocks). */
static void test_fill_groups_pooled(void **state)
{
	(void)state;
	/* three 8-byte columns of 65,536 rows: 1.5 MiB a part */
	const uint64_t rows = 3 * 65536 + 77;
	dfs_buf want = DFS_BUF_INIT;
	struct dfs_pq_options o = {.codec = DFS_PQ_GZIP, .group_rows = 65536};
	one_at_a_time(&o, rows, &want);

	dfs_scratch pool;
	dfs_scratch_init(&pool);
	o.pool = &pool;
	for (int round = 0; round < 3; round++) {
		o.threads = round == 2 ? 1 : 2;
		fill_in_parts(&o, rows, &want);
		/* the parts gave their blocks back */
		assert_true(dfs_scratch_kept(&pool) >= ((size_t)1 << 20));
	}
	dfs_scratch_destroy(&pool);
	dfs_buf_free(&want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compact_fields),
		cmocka_unit_test(test_compact_lists),
		cmocka_unit_test(test_compact_misuse),
		cmocka_unit_test(test_frame),
		cmocka_unit_test(test_misuse),
		cmocka_unit_test(test_fill_groups),
		cmocka_unit_test(test_fill_groups_pooled),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
