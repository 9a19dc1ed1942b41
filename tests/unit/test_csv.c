/* test_csv.c - records.csv rendering and the repacker: every record of
 * every shared log, rendered as CSV and parsed back, gives the identical
 * binary record; quoting; every kind of bad input is refused with its line
 * and column. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/shared.h"
#include "csv/csv.h"
#include "darshanfs/log.h"
#include "util/format.h"
#include "darshanfs/writer.h"
#include "module/pack.h"

/* dfs_parse_double agrees bit for bit with strtod on decimals of every
 * shape: those its fast path takes and those it leaves to strtod. */
static void test_parse_double_like_strtod(void **state)
{
	(void)state;
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	char text[64];
	for (int i = 0; i < 400000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		int ndig = 1 + (int)(x % 20), point = (int)((x >> 8) % 22) - 1;
		size_t n = 0;
		if ((x >> 16) & 1)
			text[n++] = '-';
		uint64_t y = x * 0xbf58476d1ce4e5b9ULL;
		for (int d = 0; d < ndig; d++) {
			if (d == point)
				text[n++] = '.';
			text[n++] = (char)('0' + (y % 10));
			y = y / 10 ^ (y << 7);
		}
		if ((x >> 20) % 3 == 0)
			n += (size_t)snprintf(text + n, sizeof(text) - n, "e%d",
			                      (int)((x >> 24) % 61) - 30);
		text[n] = '\0';
		double got, want = strtod(text, NULL);
		if (!dfs_parse_double(text, n, &got))
			fail_msg("'%s' refused", text);
		if (memcmp(&got, &want, sizeof(got)) != 0)
			fail_msg("'%s': %.17g, strtod %.17g", text, got, want);
	}
	static const char *const bad[] = {"", ".", "-", "1e", "1e+", "1.2.3", "1,5", " 1"};
	double d;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (dfs_parse_double(bad[i], strlen(bad[i]), &d))
			fail_msg("'%s' accepted", bad[i]);
	assert_true(dfs_parse_double("-0", 2, &d) && d == 0 && signbit(d));
	assert_true(dfs_parse_double("9007199254740993", 16, &d) && d == 9007199254740992.0);
	/* exact halves between two doubles round to the even one; a digit
	 * more either way decides */
	static const char *const ties[] = {
		"4503599627370497.5", "4503599627370498.5", "9007199254740995",
		"18014398509481986", "18014398509481990", "9223372036854776832",
		"9223372036854777856", "4503599627370497.4999", "4503599627370497.5001",
		"0.30000000000000004", "2.2250738585072014e-308", "1.7976931348623157e308",
		"123456789012345678e-19", "1844674407370955161.5e-3",
	};
	for (size_t i = 0; i < sizeof(ties) / sizeof(ties[0]); i++) {
		double got, want = strtod(ties[i], NULL);
		assert_true(dfs_parse_double(ties[i], strlen(ties[i]), &got));
		if (memcmp(&got, &want, sizeof(got)) != 0)
			fail_msg("'%s': %.17g, strtod %.17g", ties[i], got, want);
	}
	/* what records.csv prints: the shortest digits of any double */
	x = 0x243f6a8885a308d3ULL;
	for (int i = 0; i < 200000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		double v;
		memcpy(&v, &x, sizeof(v));
		if (!isfinite(v))
			continue;
		if (i % 2)   /* and doubles of the magnitudes counters take */
			v = ldexp(fabs(frexp(v, &(int){0})), (int)(x % 80) - 20);
		size_t n = dfs_fmt_double(text, v);
		double back;
		if (!dfs_parse_double(text, n, &back) || memcmp(&back, &v, sizeof(v)) != 0)
			fail_msg("'%.*s' does not read back as %a", (int)n, text, v);
	}
}

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

/* Control characters and bytes that are not UTF-8 are quoted too (the
 * user guide, docs/guide.md, promises it for names); well-formed UTF-8 is
 * not. */
static void test_quoting_bytes(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		bool quoted;
	} cases[] = {
		{"caf\xc3\xa9", false}, {"\xe2\x82\xac 5", false}, {"\xf0\x9f\x98\x80", false},
		{"\xf4\x8f\xbf\xbf", false}, {"tab\there", true}, {"bell\x07", true},
		{"del\x7f", true}, {"bad\xffname", true}, {"cut\xc3", true},
		{"\xc0\x80", true}, {"\xe0\x80\x80", true}, {"\xed\xa0\x80", true},
		{"\xf4\x90\x80\x80", true}, {"\xf5\x80\x80\x80", true}, {"\x80", true},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		dfs_buf b = DFS_BUF_INIT;
		size_t len = strlen(cases[i].s);
		dfs_csv_field(&b, cases[i].s, len);
		bool quoted = b.len == len + 2 && b.data[0] == '"';
		if (quoted != cases[i].quoted || (!quoted && b.len != len))
			fail_msg("case %zu: '%s' rendered as '%s'", i, cases[i].s, b.data);
		dfs_buf_free(&b);
	}
}

/* The same rule over long fields, which are looked at eight bytes at a
 * time: each byte that asks for quotes, at every place of a 40-byte
 * field, is found; a long field of plain ASCII or well-formed UTF-8 is
 * left as it is. */
static void test_quoting_long(void **state)
{
	(void)state;
	static const char special[] = {',', '"', '\n', '\r', '\t', 0x01, 0x1f, 0x7f, (char)0xff,
	                               (char)0x80, (char)0xc3};
	char s[41];
	for (size_t k = 0; k < sizeof(special); k++) {
		for (size_t at = 0; at < 40; at++) {
			memset(s, 'a' + (int)(at % 26), 40);
			s[40] = '\0';
			s[at] = special[k];
			dfs_buf b = DFS_BUF_INIT;
			dfs_csv_field(&b, s, 40);
			if (b.len < 42 || b.data[0] != '"')
				fail_msg("byte 0x%02x at %zu of 40 not quoted", (unsigned char)special[k], at);
			dfs_buf_free(&b);
		}
	}
	const char *plain[] = {"2025/11/03/user_a.out_id123456_11-03-1234-987654321.darshan",
	                       "~!#$%&'()*+-./0123456789:;<=>?@[\\]^_`{|} x",
	                       "caf\xc3\xa9 caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 long enough"};
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		dfs_buf b = DFS_BUF_INIT;
		dfs_csv_field(&b, plain[i], strlen(plain[i]));
		if (b.len != strlen(plain[i]) || memcmp(b.data, plain[i], b.len))
			fail_msg("'%s' rendered as '%s'", plain[i], b.data);
		dfs_buf_free(&b);
	}
}

/* The scan for what needs quotes goes a word at a time: every byte
 * value at every place of a name (either side of the word boundaries,
 * and in the tail shorter than a word) is judged as a byte alone is. */
static void test_quoting_every_byte_everywhere(void **state)
{
	(void)state;
	char s[27];
	for (size_t at = 0; at < sizeof(s) - 1; at++) {
		for (int c = 0; c < 256; c++) {
			memset(s, 'a', sizeof(s) - 1);
			s[sizeof(s) - 1] = '\0';
			s[at] = (char)c;
			size_t len = c == 0 ? at : sizeof(s) - 1;
			if (len == 0)
				continue;
			/* (alone, a byte of 0x80 and up is not UTF-8) */
			bool special = c == 0 ? false : c < 0x20 || c == 0x7f || c == ',' || c == '"' ||
			                                c >= 0x80;
			dfs_buf b = DFS_BUF_INIT;
			dfs_csv_field(&b, s, len);
			bool quoted = b.len >= 2 && b.data[0] == '"';
			if (quoted != special)
				fail_msg("byte 0x%02x at %zu: %s", (unsigned)c, at,
				         quoted ? "quoted" : "not quoted");
			dfs_buf_free(&b);
		}
	}
}

/* Render one record as a two-line CSV, import it, compare the bytes. */
static void roundtrip_record(const dfs_log *log, const dfs_module *m,
                             const unsigned char *rec, const char *logname,
                             size_t index)
{
	dfs_buf csv = DFS_BUF_INIT;
	dfs_csv_header(m, &csv);
	dfs_csv_record(log, m, rec, m->record_size, NULL, &csv);
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

/* Does m's record consist of its fields, each a whole 8-byte number in
 * order, one row, placed by the name table? */
static bool words_rule(const dfs_module *m)
{
	bool ok = !m->place && !m->row_count && m->record_size % 8 == 0 &&
	          m->record_size > 0 && m->record_size <= DFS_RECORD_MAX &&
	          m->n_fields == m->record_size / 8;
	for (size_t f = 0; ok && f < m->n_fields; f++) {
		const dfs_field *fd = &m->fields[f];
		ok = fd->offset == 8 * f && (fd->storage == DFS_S_I64 ||
		                             fd->storage == DFS_S_U64 ||
		                             fd->storage == DFS_S_F64);
	}
	return ok;
}

/* Which modules render packed records word by word: declared in each
 * (constant) descriptor, and true exactly where the fields say so; and
 * every descriptor's field list is whole (n_fields named fields) */
static void test_words_only(void **state)
{
	(void)state;
	for (int id = 0; id < DFS_MOD_KNOWN; id++) {
		const dfs_module *m = dfs_module_get(id);
		if (!m)
			continue;
		assert_true(m->n_fields > 0);
		for (size_t f = 0; f < m->n_fields; f++)
			if (!m->fields[f].name)
				fail_msg("%s: field %zu of %zu has no name", m->name, f, m->n_fields);
		if (m->words_only != words_rule(m))
			fail_msg("%s: words_only is %d, its fields say %d", m->name,
			         m->words_only, words_rule(m));
	}
	assert_true(dfs_csv_packed_ok(dfs_module_get(DFS_MOD_POSIX)));
	assert_true(dfs_csv_packed_ok(dfs_module_get(DFS_MOD_STDIO)));
	assert_true(dfs_csv_packed_ok(dfs_module_get(DFS_MOD_MPIIO)));
	/* a text field, a place hook, rows of segments: the plain way */
	assert_false(dfs_csv_packed_ok(dfs_module_get(DFS_MOD_H5D)));
	assert_false(dfs_csv_packed_ok(dfs_module_get(DFS_MOD_BGQ)));
	assert_false(dfs_csv_packed_ok(dfs_module_get(DFS_MOD_DXT_POSIX)));
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
			_Alignas(8) unsigned char scratch[DFS_RECORD_MAX];
			for (size_t k = 0; k < r->count; k++) {
				const unsigned char *rec = dfs_record_get(r, k, scratch);
				if (k < 50)
					roundtrip_record(log, r->module, rec, logs[i], k);
				dfs_csv_record(log, r->module, rec, r->module->record_size, NULL, &csv);
			}
			dfs_records out;
			dfs_records_init(&out, r->module, r->module->version);
			if (dfs_csv_import(log, r->module, csv.data, csv.len, &out, &err))
				fail_msg("%s %s: %s", logs[i], r->module->name, err.msg);
			assert_int_equal(out.count, r->count);
			dfs_records raw;
			assert_int_equal(dfs_records_unpacked(r, &raw), 0);
			assert_memory_equal(out.data, raw.data, r->count * r->module->record_size);
			dfs_records_free(&raw);
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

/* A row rendered into a buffer of its measured length plus
 * dfs_csv_row_room (and the NUL): a fixed buffer, which fails rather
 * than grow, holds it and the same text as csv. */
static void check_fits(const char *what, const dfs_module *m, size_t k,
                       const dfs_buf *csv, const dfs_buf *fixed)
{
	if (!dfs_buf_ok(fixed) || fixed->len != csv->len ||
	    memcmp(fixed->data, csv->data, csv->len) != 0)
		fail_msg("%s %s record %zu: does not render in %zu bytes and %zu of room",
		         what, m->name, k, csv->len, dfs_csv_row_room(m));
}

/* dfs_csv_record_len(rec) is the length dfs_csv_record renders for it;
 * the record packed renders to the same text and length; both render
 * within that length and dfs_csv_row_room.  ctx points to the stride: 1
 * checks every record; DFS_TEST_QUICK=1 (the sanitizer pass) checks every
 * eighth record of each module, the normal pass every one (the records of
 * one module take one path through the renderers; the sanitizers cost
 * each check ten times its time). */
static void check_record_len(void *ctx, const dfs_log *log, const char *what,
                             const dfs_module *m, const unsigned char *rec,
                             size_t len, size_t k)
{
	if (k % *(const size_t *)ctx != 0)
		return;
	dfs_buf csv = DFS_BUF_INIT;
	dfs_csv_record(log, m, rec, len, NULL, &csv);
	size_t measured = dfs_csv_record_len(log, m, rec, len, NULL);
	if (measured != csv.len)
		fail_msg("%s %s record %zu: measured %zu bytes, rendered %zu: %s",
		         what, m->name, k, measured, csv.len, csv.data);
	size_t room = measured + dfs_csv_row_room(m) + 1;
	char *space = malloc(room);
	assert_non_null(space);
	dfs_buf fixed;
	dfs_buf_init_fixed(&fixed, space, room);
	dfs_csv_record(log, m, rec, len, NULL, &fixed);
	check_fits(what, m, k, &csv, &fixed);
	if (dfs_module_packable(m) && dfs_csv_packed_ok(m) && len == m->record_size) {
		dfs_records pk;
		dfs_records_init_packed(&pk, m, m->version);
		assert_int_equal(dfs_records_pack_add(&pk, rec), 0);
		dfs_buf text = DFS_BUF_INIT;
		dfs_csv_record_packed(log, m, dfs_record_packed(&pk, 0), NULL, &text);
		if (text.len != csv.len || memcmp(text.data, csv.data, csv.len) != 0)
			fail_msg("%s %s record %zu packed renders\n%s\nnot\n%s",
			         what, m->name, k, text.data, csv.data);
		size_t plen = dfs_csv_record_len_packed(log, m, dfs_record_packed(&pk, 0), NULL);
		if (plen != csv.len)
			fail_msg("%s %s record %zu packed: measured %zu bytes, rendered %zu",
			         what, m->name, k, plen, csv.len);
		dfs_buf_init_fixed(&fixed, space, room);
		dfs_csv_record_packed(log, m, dfs_record_packed(&pk, 0), NULL, &fixed);
		check_fits(what, m, k, &csv, &fixed);
		dfs_buf_free(&text);
		dfs_records_free(&pk);
	}
	free(space);
	dfs_buf_free(&csv);
}

/* Every record of every module (fixed-size and variable) of every shared
 * log is measured to the byte it renders to. */
static void test_record_len_every_record(void **state)
{
	(void)state;
	size_t logs, records;
	size_t every = shared_quick() ? 8 : 1;
	int ret = shared_each_record(check_record_len, &every, &logs, &records);
	if (ret == 0)
		skip();
	assert_int_equal(ret, 1);
	printf("measured %s%zu records of %zu logs to the byte, packed ones too, "
	       "each rendered within its room\n", every > 1 ? "one in eight of " : "",
	       records, logs);
}

/* Values of every printed shape and names that need quoting, in a log
 * written here (runs without ../shared). */
static void test_record_len_shapes(void **state)
{
	(void)state;
	const dfs_module *m = dfs_module_get(DFS_MOD_POSIX);
	static const char *const names[] = {
		"/plain/file", "/with,comma", "/with\"quote\"s\"", "/new\nline",
		"/cr\r", "", "/scratch/x",
	};
	static const double dvals[] = {
		0.0, -0.0, 1.0, -1.0, 0.5, 478.35310037553967, 1e-5, 1.5e-4,
		0.0001, 1e16, 9007199254740992.0, 9007199254740993.0 * 4, 1e21,
		1e100, -1e-100, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
		123456789012.5, NAN, -NAN, INFINITY, -INFINITY, 0.1, 1e-4, 9.5e-5,
	};
	static const int64_t ivals[] = {
		0, 1, -1, 9, 10, -10, 99, 100, INT64_MAX, INT64_MIN, 4387702,
		-9007199254740993, 1000000000000000000,
	};
	dfs_buf out = DFS_BUF_INIT;
	dfs_error err = {0};
	dfs_log_writer *w = test_log_writer(&out, &err);
	assert_non_null(w);
	size_t nn = sizeof(names) / sizeof(names[0]);
	for (size_t i = 0; i < nn; i++)
		assert_int_equal(dfs_log_writer_name(w, 100 + i, names[i],
		                                     strlen(names[i]), &err), 0);
	assert_int_equal(dfs_log_writer_module_begin(w, DFS_MOD_POSIX, 0, &err), 0);
	size_t nrec = 64;
	_Alignas(8) unsigned char rec[DFS_RECORD_MAX];
	uint64_t x = 0x2545f4914f6cdd1dULL;
	for (size_t k = 0; k < nrec; k++) {
		memset(rec, 0, m->record_size);
		/* ids of names, and one id without a name */
		uint64_t id = k == nrec - 1 ? 999 : 100 + k % nn;
		int64_t rank = (int64_t)(k % 5) - 1;
		memcpy(rec, &id, 8);
		memcpy(rec + 8, &rank, 8);
		for (size_t f = 2; f < m->n_fields; f++) {
			const dfs_field *fd = &m->fields[f];
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			if (fd->storage == DFS_S_F64) {
				double d = dvals[(x >> 3) % (sizeof(dvals) / sizeof(dvals[0]))];
				memcpy(rec + fd->offset, &d, 8);
			} else if (fd->storage == DFS_S_I64 || fd->storage == DFS_S_U64) {
				int64_t v = (x & 1) ? (int64_t)(x >> 1)
				                    : ivals[(x >> 3) % (sizeof(ivals) / sizeof(ivals[0]))];
				memcpy(rec + fd->offset, &v, 8);
			}
		}
		assert_int_equal(dfs_log_writer_record(w, rec, m->record_size, &err), 0);
	}
	assert_int_equal(dfs_log_writer_finish(w, 0, &err), 0);
	dfs_log_writer_free(w);
	dfs_log *log = dfs_log_open_mem(out.data, out.len, "shapes", 0, &err);
	assert_non_null(log);
	const dfs_records *r = dfs_log_records(log, DFS_MOD_POSIX);
	assert_non_null(r);
	assert_int_equal(r->count, nrec);
	_Alignas(8) unsigned char scratch[DFS_RECORD_MAX];
	size_t every = 1;
	for (size_t k = 0; k < r->count; k++)
		check_record_len(&every, log, "shapes", m, dfs_record_get(r, k, scratch),
		                 dfs_record_size(r, k), k);
	dfs_log_free(log);
	dfs_buf_free(&out);
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
	/* pandas' to_csv() without index=False: a nameless first column */
	expect_error(log, ",record_id,rank,POSIX_OPENS\n0,1,0,2\n",
	             "line 1, column 1: a column without a name (pandas' to_csv() "
	             "writes its row numbers first, under no name, unless told "
	             "index=False: write the table with index=False, or drop that "
	             "column)");
	expect_error(log, "record_id,,rank\n1,2,0\n",
	             "line 1, column 2: a column without a name");
	expect_error(log, "Unnamed: 0,record_id,rank\n0,1,0\n",
	             "line 1, column 1: unknown column 'Unnamed: 0' for POSIX (pandas "
	             "names so a column that had no name: the row numbers an earlier "
	             "to_csv() wrote without index=False; read that file with "
	             "index_col=0, or drop the column)");
	expect_error(log, "Unnamed: x,record_id,rank\n0,1,0\n",
	             "line 1, column 1: unknown column 'Unnamed: x' for POSIX");
	expect_error(log, "rank,POSIX_OPENS\n0,1\n", "required column 'record_id'");
	expect_error(log, "record_id,POSIX_OPENS\n1,1\n", "required column 'rank'");
	expect_error(log, "record_id,rank,POSIX_OPENS,POSIX_OPENS\n1,0,1,1\n",
	             "appears twice");
	expect_error(log, "record_id,rank,POSIX_OPENS\n1,0,abc\n",
	             "line 2, column 3 (POSIX_OPENS): 'abc' is not a signed 64-bit integer");
	expect_error(log, "record_id,rank,POSIX_OPENS\n-99999999999999999999,0,1\n",
	             "line 2, column 1 (record_id): '-99999999999999999999' is not "
	             "an unsigned 64-bit integer");
	expect_error(log, "record_id,rank,POSIX_OPENS\n0x,0,1\n",
	             "(record_id): '0x' is not an unsigned");
	expect_error(log, "record_id,rank,POSIX_OPENS\n0x1234567890abcdef0,0,1\n",
	             "(record_id): '0x1234567890abcdef0' is not an unsigned");
	expect_error(log, "record_id,rank,POSIX_OPENS\n0x12g,0,1\n",
	             "(record_id): '0x12g' is not an unsigned");
	expect_error(log, "record_id,rank,POSIX_OPENS\n1,0,0x10\n",
	             "(POSIX_OPENS): '0x10' is not a signed 64-bit integer");
	expect_error(log, "record_id,rank,POSIX_OPENS\n1,0,inf\n",
	             "(POSIX_OPENS): 'inf' is not a signed 64-bit integer");
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

/* Inputs of several MiB are parsed on several cores: the rows must come
 * out the same and in order, quoted fields holding newlines, commas and
 * quotes must not be cut, CRLF rows and absent columns must work, and an
 * error anywhere must read exactly as the one-thread parse reports it. */
static void test_big_import(void **state)
{
	(void)state;
	if (!shared_dir())
		skip();
	char *path = shared_log_path("imbalanced-io.darshan");
	dfs_error err = {0};
	dfs_log *log = dfs_log_open(path, 0, &err);
	free(path);
	assert_non_null(log);
	const dfs_records *r = dfs_log_records(log, DFS_MOD_POSIX);
	assert_non_null(r);
	const dfs_module *m = r->module;
	/* the log's rows over and over, odd file names in the ignored column */
	dfs_buf csv = DFS_BUF_INIT;
	dfs_csv_header(m, &csv);
	size_t rows = 0, newlines = 1, bad_at = 0, bad_line = 0;
	static const char *const names[] = {"\"a\nb\"", "\"x,\"\"y\"\"\n\n\"", "plain", "\"\""};
	_Alignas(8) unsigned char scratch[DFS_RECORD_MAX];
	while (csv.len < ((size_t)9 << 20)) {
		const unsigned char *rec = dfs_record_get(r, rows % r->count, scratch);
		dfs_buf row = DFS_BUF_INIT;
		dfs_csv_record(log, m, rec, m->record_size, NULL, &row);
		if (!bad_at && csv.len > ((size_t)8 << 20)) {
			bad_at = csv.len;           /* a row starting late in the input */
			bad_line = newlines + 1;    /* and its line (the header is line 1) */
		}
		/* replace the file_name field (third from the end) */
		char *end = row.data + row.len - 1, *c2 = end, *c3;
		while (*--c2 != ',') {}
		while (*--c2 != ',') {}
		for (c3 = c2 - 1; *c3 != ','; c3--) {}
		size_t from = csv.len;
		dfs_buf_add(&csv, row.data, (size_t)(c3 + 1 - row.data));
		dfs_buf_adds(&csv, names[rows % 4]);
		dfs_buf_add(&csv, c2, (size_t)(end - c2));
		dfs_buf_adds(&csv, rows % 3 ? "\n" : "\r\n");
		for (size_t i = from; i < csv.len; i++)
			newlines += csv.data[i] == '\n';
		dfs_buf_free(&row);
		rows++;
	}
	assert_true(dfs_buf_ok(&csv));
	dfs_records out;
	dfs_records_init(&out, m, m->version);
	if (dfs_csv_import(log, m, csv.data, csv.len, &out, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(out.count, rows);
	for (size_t k = 0; k < rows; k++)
		if (memcmp(dfs_record(&out, k), dfs_record_get(r, k % r->count, scratch),
		           m->record_size))
			fail_msg("row %zu differs", k);
	dfs_records_free(&out);

	/* a bad value late in the input: the line is counted across the cuts */
	assert_true(csv.data[bad_at] >= '0' && csv.data[bad_at] <= '9');
	csv.data[bad_at] = 'z';
	char want[64];
	snprintf(want, sizeof(want), "line %zu, column 1 (record_id): 'z", bad_line);
	if (dfs_csv_import(log, m, csv.data, csv.len, &out, &err) == 0)
		fail_msg("a spoiled record id was accepted");
	if (!strstr(err.msg, want))
		fail_msg("'%s' lacks '%s'", err.msg, want);
	assert_int_equal(out.count, 0);
	dfs_buf_free(&csv);
	dfs_log_free(log);
}

/* Rows of the log's POSIX records, over and over, up to `size` bytes, with
 * quoted newlines and CRLF; the offset where each line starts. */
static size_t rows_csv(const dfs_log *log, const dfs_module *m, size_t size,
                       dfs_buf *csv, size_t **line_at)
{
	const dfs_records *r = dfs_log_records(log, m->id);
	_Alignas(8) unsigned char scratch[DFS_RECORD_MAX];
	size_t rows = 0, lines = 1, cap = 1024;
	*line_at = malloc(cap * sizeof(size_t));
	dfs_csv_header(m, csv);
	(*line_at)[1] = csv->len;   /* line 2: the first row */
	while (csv->len < size) {
		const unsigned char *rec = dfs_record_get(r, rows % r->count, scratch);
		dfs_csv_record(log, m, rec, m->record_size, NULL, csv);
		/* a quoted newline in the last field every fifth row */
		if (rows % 5 == 0) {
			csv->len--;
			while (csv->data[csv->len - 1] != ',')
				csv->len--;
			dfs_buf_adds(csv, "\"a\nb\"\r\n");
		}
		for (size_t i = (*line_at)[lines]; i < csv->len; i++) {
			if (csv->data[i] != '\n')
				continue;
			if (++lines + 1 >= cap)
				*line_at = realloc(*line_at, (cap *= 2) * sizeof(size_t));
			(*line_at)[lines] = i + 1;
		}
		rows++;
	}
	return rows;
}

/* The row starting at or after `off` spoiled in its first field; its
 * line (1-based). */
static size_t spoil_row(dfs_buf *csv, const size_t *line_at, size_t lines, size_t off)
{
	for (size_t l = 1; l < lines; l++) {
		size_t at = line_at[l];
		/* (a line inside a quoted field starts with b") */
		if (at < off || csv->data[at] < '0' || csv->data[at] > '9')
			continue;
		csv->data[at] = 'z';
		return l + 1;
	}
	fail_msg("no row after %zu", off);
	return 0;
}

/* Feed `csv` in pieces of `piece` bytes; the feed's error or 0. */
static int feed_pieces(dfs_csv_rows *k, const dfs_buf *csv, size_t piece,
                       dfs_error *err)
{
	for (size_t len = 0; len < csv->len;) {
		len = csv->len - len < piece ? csv->len : len + piece;
		if (dfs_csv_rows_feed(k, csv->data, len, err))
			return -1;
	}
	return 0;
}

/* Rows checked as they arrive, big pieces on several threads: the rows
 * kept are dfs_csv_import's, and a bad row is reported with its line
 * whichever part of a piece it is in, the first of two when a later part
 * holds another (and fails first: it is checked side by side). */
static void test_rows_as_they_arrive(void **state)
{
	(void)state;
	if (!shared_dir())
		skip();
	char *path = shared_log_path("imbalanced-io.darshan");
	dfs_error err = {0};
	dfs_log *log = dfs_log_open(path, 0, &err);
	free(path);
	assert_non_null(log);
	const dfs_module *m = dfs_module_get(DFS_MOD_POSIX);
	dfs_buf csv = DFS_BUF_INIT;
	size_t *line_at;
	size_t rows = rows_csv(log, m, (size_t)3 << 20, &csv, &line_at);
	size_t lines = 1;
	for (size_t i = 0; i < csv.len; i++)
		lines += csv.data[i] == '\n';
	assert_true(dfs_buf_ok(&csv));
	dfs_records want;
	dfs_records_init(&want, m, m->version);
	if (dfs_csv_import(log, m, csv.data, csv.len, &want, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(want.count, rows);

	/* pieces of every size: small ones on one thread, big ones cut */
	static const size_t pieces[] = {4093, 131072, 1 << 20, (size_t)64 << 20};
	for (size_t p = 0; p < sizeof(pieces) / sizeof(*pieces); p++) {
		dfs_csv_rows *k = dfs_csv_rows_start(m, csv.data, csv.len, &err);
		assert_non_null(k);
		dfs_csv_rows_keep(k, rows, NULL);
		if (feed_pieces(k, &csv, pieces[p], &err))
			fail_msg("piece %zu: %s", pieces[p], err.msg);
		assert_int_equal(dfs_csv_rows_newlines(k, csv.data, csv.len), lines - 1);
		dfs_records got;
		dfs_records_init(&got, m, m->version);
		assert_int_equal(dfs_csv_rows_finish(k, log, csv.data, csv.len, &got, &err), 0);
		assert_int_equal(got.count, rows);
		assert_memory_equal(got.data, want.data, want.size);
		dfs_records_free(&got);
		dfs_csv_rows_free(k);
	}
	dfs_records_free(&want);

	/* bad rows: in the second half of a piece; late in the first half
	 * and early in the second (the first is reported); in a piece after
	 * big ones (lines counted across them) */
	struct {
		size_t piece, at[2];
	} cases[] = {
		{(size_t)64 << 20, {(size_t)2300 << 10, 0}},
		{(size_t)64 << 20, {(size_t)1400 << 10, (size_t)1600 << 10}},
		{(size_t)1 << 20, {(size_t)900 << 10, (size_t)1100 << 10}},
		{(size_t)512 << 10, {(size_t)2900 << 10, 0}},
	};
	for (size_t t = 0; t < sizeof(cases) / sizeof(*cases); t++) {
		dfs_buf bad = DFS_BUF_INIT;
		dfs_buf_add(&bad, csv.data, csv.len);
		size_t first = spoil_row(&bad, line_at, lines, cases[t].at[0]);
		if (cases[t].at[1])
			spoil_row(&bad, line_at, lines, cases[t].at[1]);
		dfs_csv_rows *k = dfs_csv_rows_start(m, bad.data, bad.len, &err);
		assert_non_null(k);
		dfs_csv_rows_keep(k, rows, NULL);
		if (feed_pieces(k, &bad, cases[t].piece, &err) == 0)
			fail_msg("case %zu: a spoiled row was accepted", t);
		char msg[64];
		snprintf(msg, sizeof(msg), "line %zu, column 1 (record_id): 'z", first);
		if (!strstr(err.msg, msg))
			fail_msg("case %zu: '%s' lacks '%s'", t, err.msg, msg);
		dfs_csv_rows_free(k);
		dfs_buf_free(&bad);
	}
	free(line_at);
	dfs_buf_free(&csv);
	dfs_log_free(log);
}

/* Rows kept as they arrive take the columns they leave out from the log
 * at finish, as dfs_csv_import does; a row without a log record to take
 * them from is left to dfs_csv_import, which says which line it is. */
static void test_rows_absent_columns(void **state)
{
	(void)state;
	if (!shared_dir())
		skip();
	char *path = shared_log_path("imbalanced-io.darshan");
	dfs_error err = {0};
	dfs_log *log = dfs_log_open(path, 0, &err);
	free(path);
	assert_non_null(log);
	const dfs_records *r = dfs_log_records(log, DFS_MOD_POSIX);
	const dfs_module *m = r->module;
	_Alignas(8) unsigned char scratch[DFS_RECORD_MAX];
	dfs_buf csv = DFS_BUF_INIT;
	dfs_buf_adds(&csv, "rank,POSIX_OPENS,record_id\n");
	size_t rows = 0;
	for (; csv.len < ((size_t)1 << 20); rows++) {
		const unsigned char *rec = dfs_record_get(r, rows % r->count, scratch);
		dfs_buf_printf(&csv, "%lld,%zu,%llu\n", (long long)dfs_record_rank(rec), rows,
		               (unsigned long long)dfs_record_id(rec));
	}
	for (int bad = 0; bad < 2; bad++) {
		if (bad)   /* a record the log does not have */
			dfs_buf_adds(&csv, "123456,1,1\n");
		assert_true(dfs_buf_ok(&csv));
		dfs_records want;
		dfs_records_init(&want, m, m->version);
		int ret = dfs_csv_import(log, m, csv.data, csv.len, &want, &err);
		assert_int_equal(ret, bad ? -1 : 0);
		dfs_csv_rows *k = dfs_csv_rows_start(m, csv.data, csv.len, &err);
		assert_non_null(k);
		dfs_csv_rows_keep(k, rows + 1, NULL);
		assert_int_equal(feed_pieces(k, &csv, 65536, &err), 0);
		dfs_records got;
		dfs_records_init(&got, m, m->version);
		ret = dfs_csv_rows_finish(k, log, csv.data, csv.len, &got, &err);
		assert_int_equal(ret, bad ? 1 : 0);
		if (!bad) {
			assert_int_equal(got.count, rows);
			assert_memory_equal(got.data, want.data, want.size);
		}
		dfs_records_free(&got);
		dfs_records_free(&want);
		dfs_csv_rows_free(k);
	}
	dfs_buf_free(&csv);
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
	_Alignas(8) unsigned char scratch[DFS_RECORD_MAX];
	const unsigned char *rec = dfs_record_get(r, 0, scratch);
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

/* A record of the sample log whose id has the top bit set (a signed
 * 64-bit integer holds it as a negative number), or NULL. */
static const unsigned char *high_id_record(const dfs_records *r,
                                           unsigned char *scratch)
{
	for (size_t i = 0; i < r->count; i++) {
		const unsigned char *rec = dfs_record_get(r, i, scratch);
		if (dfs_record_id(rec) >> 63)
			return rec;
	}
	return NULL;
}

/* `csv` (a header and one row) imports to exactly `want` */
static void expect_record(const dfs_log *log, const dfs_module *m,
                          const char *csv, const unsigned char *want)
{
	dfs_records out;
	dfs_records_init(&out, m, m->version);
	dfs_error err = {0};
	if (dfs_csv_import(log, m, csv, strlen(csv), &out, &err))
		fail_msg("refused %s: %s", csv, err.msg);
	assert_int_equal(out.count, 1);
	assert_memory_equal(out.data, want, m->record_size);
	dfs_records_free(&out);
}

/* Two rows of one record (record_id and rank) are refused, with the rows
 * named; the same record_id on two ranks is two records. */
static void expect_unique(const dfs_log *log, const char *csv, const char *needle)
{
	const dfs_module *m = dfs_module_get(DFS_MOD_POSIX);
	dfs_records out;
	dfs_records_init(&out, m, m->version);
	dfs_error err = {0};
	if (dfs_csv_import(log, m, csv, strlen(csv), &out, &err))
		fail_msg("refused %s: %s", csv, err.msg);
	int ret = dfs_csv_check_unique(&out, &err);
	dfs_records_free(&out);
	if (!needle) {
		if (ret)
			fail_msg("%s: %s", csv, err.msg);
		return;
	}
	if (ret == 0)
		fail_msg("accepted: %s", csv);
	assert_int_equal(err.code, DFS_ERR_INVAL);
	if (!strstr(err.msg, needle))
		fail_msg("message '%s' lacks '%s'", err.msg, needle);
}

static void test_duplicate_rows(void **state)
{
	(void)state;
	if (!shared_dir())
		skip();
	char *path = shared_log_path("imbalanced-io.darshan");
	dfs_error err = {0};
	dfs_log *log = dfs_log_open(path, 0, &err);
	free(path);
	assert_non_null(log);
	const dfs_records *r = dfs_log_records(log, DFS_MOD_POSIX);
	assert_true(r && r->count >= 2);
	unsigned long long a = dfs_record_word(r, 0, 0), b = dfs_record_word(r, 1, 0);
	long long ra = (long long)dfs_record_word(r, 0, 1), rb = (long long)dfs_record_word(r, 1, 1);
	char csv[512], want[256];
	snprintf(csv, sizeof(csv), "record_id,rank\n%llu,%lld\n%llu,%lld\n%llu,%lld\n",
	         a, ra, b, rb, a, ra);
	snprintf(want, sizeof(want), "rows 1 and 3 (after the header) are both "
	         "record_id %llu, rank %lld", a, ra);
	expect_unique(log, csv, want);
	/* (the unsigned value and its two's complement: one record) */
	snprintf(csv, sizeof(csv), "record_id,rank,POSIX_OPENS\n%llu,%lld,1\n%lld,%lld,2\n",
	         a, ra, (long long)a, ra);
	expect_unique(log, csv, "rows 1 and 2");
	snprintf(csv, sizeof(csv), "record_id,rank\n%llu,%lld\n%llu,%lld\n", a, ra, b, rb);
	expect_unique(log, csv, NULL);
	dfs_log_free(log);
}

/* A negative value in an unsigned column is its two's complement, as for
 * record_id: POSIX_RENAMED_FROM = -1 is stored as the 64 bits all set,
 * which darshan-parser prints unsigned (%PRIu64): 18446744073709551615,
 * the text records.csv shows for it. */
static void test_unsigned_counter_negative(void **state)
{
	(void)state;
	dfs_log *log = open_sample();
	if (!log)
		skip();
	const dfs_records *r = dfs_log_records(log, DFS_MOD_POSIX);
	const dfs_module *m = r->module;
	char csv[256];
	snprintf(csv, sizeof(csv), "record_id,rank,POSIX_RENAMED_FROM\n%llu,%lld,-1\n",
	         (unsigned long long)dfs_record_word(r, 0, 0),
	         (long long)dfs_record_word(r, 0, 1));
	dfs_records out;
	dfs_records_init(&out, m, m->version);
	dfs_error err = {0};
	if (dfs_csv_import(log, m, csv, strlen(csv), &out, &err))
		fail_msg("refused %s: %s", csv, err.msg);
	int f = dfs_module_field_index(m, "POSIX_RENAMED_FROM", 18);
	assert_true(f >= 0);
	dfs_value v;
	dfs_module_get_value(m, out.data, m->record_size, 0, (size_t)f, &v);
	assert_int_equal(v.type, DFS_T_U64);
	assert_true(v.v.u == UINT64_MAX);
	dfs_buf text = DFS_BUF_INIT;
	dfs_csv_value(&text, &v);
	assert_string_equal(text.data, "18446744073709551615");
	dfs_buf_free(&text);
	dfs_records_free(&out);
	dfs_log_free(log);
}

/* record_id as the unsigned value, the signed two's complement and hex
 * all name the same record; what a double made of it is refused with the
 * fix, never rounded. */
static void test_record_id_forms(void **state)
{
	(void)state;
	dfs_log *log = open_sample();
	if (!log)
		skip();
	const dfs_records *r = dfs_log_records(log, DFS_MOD_POSIX);
	_Alignas(8) unsigned char scratch[DFS_RECORD_MAX];
	const unsigned char *rec = high_id_record(r, scratch);
	assert_non_null(rec);
	const dfs_module *m = r->module;
	uint64_t id = dfs_record_id(rec);
	long long rank = (long long)dfs_record_rank(rec);
	char csv[256];
	const char *const forms[] = {"%llu", "%lld", "0x%llx", "0X%llX",
	                             "0x%016llx", "\"%llu\""};
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		char value[64];
		snprintf(value, sizeof(value), forms[i], (unsigned long long)id);
		snprintf(csv, sizeof(csv), "record_id,rank\n%s,%lld\n", value, rank);
		expect_record(log, m, csv, rec);
	}
	/* the same with a UTF-8 byte order mark and CRLF (spreadsheets) */
	snprintf(csv, sizeof(csv), "\xef\xbb\xbfrecord_id,rank\r\n%llu,%lld\r\n",
	         (unsigned long long)id, rank);
	expect_record(log, m, csv, rec);
	snprintf(csv, sizeof(csv), "\xef\xbb\xbf\"rank\",record_id\n%lld,%llu\n",
	         rank, (unsigned long long)id);
	expect_record(log, m, csv, rec);
	/* a double of it, as DuckDB, pandas and sqlite3 print one */
	const char *const doubles[] = {"%.17g", "%.16e", "%.15g", "%.1f", "%lld.0"};
	for (size_t i = 0; i < sizeof(doubles) / sizeof(doubles[0]); i++) {
		char value[64], want[256];
		if (i < 4)
			snprintf(value, sizeof(value), doubles[i], (double)id);
		else
			snprintf(value, sizeof(value), doubles[i], (long long)id);
		snprintf(csv, sizeof(csv), "record_id,rank\n%s,%lld\n", value, rank);
		snprintf(want, sizeof(want), "line 2, column 1: record_id: %s is "
		         "not an exact integer; read record_id as an unsigned 64-bit "
		         "integer (DuckDB types={'record_id':'UBIGINT'}, pandas "
		         "dtype={'record_id':'uint64'})", value);
		expect_error(log, csv, want);
	}
	dfs_log_free(log);
}

/* Integer counters: "12.0" (pandas' integers beside a missing value) up
 * to 2^53 where a double is exact; no fraction, exponent or bigger value. */
static void test_integer_forms(void **state)
{
	(void)state;
	dfs_log *log = open_sample();
	if (!log)
		skip();
	const dfs_records *r = dfs_log_records(log, DFS_MOD_POSIX);
	_Alignas(8) unsigned char scratch[DFS_RECORD_MAX], want[DFS_RECORD_MAX];
	const unsigned char *rec = dfs_record_get(r, 0, scratch);
	const dfs_module *m = r->module;
	memcpy(want, rec, m->record_size);
	static const struct {
		const char *text;
		int64_t value;
	} good[] = {
		{"12.0", 12}, {"-3.00", -3}, {"7.", 7}, {"+5", 5}, {"0.0", 0},
		{"9007199254740992.0", 9007199254740992LL},
		{"-9007199254740992.0", -9007199254740992LL},
		{"9223372036854775807", INT64_MAX},
	};
	char csv[256];
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(csv, sizeof(csv), "record_id,rank,POSIX_OPENS\n%llu,%lld,%s\n",
		         (unsigned long long)dfs_record_id(rec),
		         (long long)dfs_record_rank(rec), good[i].text);
		memcpy(want + m->int_offset, &good[i].value, 8);
		expect_record(log, m, csv, want);
	}
	static const char *const bad[] = {
		"2.5", "1e3", "1E3", "1.0e2", "9007199254740993.0",
		"9007199254740994.0", "1.5e+18", ".0", "12.01",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char need[128];
		snprintf(csv, sizeof(csv), "record_id,rank,POSIX_OPENS\n1,0,%s\n", bad[i]);
		snprintf(need, sizeof(need), "POSIX_OPENS: %s is not an exact integer; "
		         "read POSIX_OPENS as a signed 64-bit integer", bad[i]);
		expect_error(log, csv, need);
	}
	/* a byte order mark counts only at the very start */
	expect_error(log, "record_id,\xef\xbb\xbfrank\n1,0\n", "unknown column");
	expect_error(log, "\xef\xbb\xbf", "header line");
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

/* DXT_POSIX segments on Lustre: the ost column lists the OSTs of the
 * stripes each segment's bytes lie on, component by component, as
 * darshan-dxt-parser does (its count of OSTs listed carries over from one
 * component to the next: a segment over a component boundary may list
 * fewer); a segment cut out of its record keeps its number. */
static void put_i64(unsigned char *p, int64_t v)
{
	memcpy(p, &v, 8);
}

static void test_dxt_osts_and_cuts(void **state)
{
	(void)state;
	const int64_t MiB = 1 << 20;
	dfs_buf out = DFS_BUF_INIT;
	dfs_error err = {0};
	dfs_log_writer *w = test_log_writer(&out, &err);
	assert_non_null(w);
	assert_int_equal(dfs_log_writer_name(w, 500, "/lus/f", 6, &err), 0);
	assert_int_equal(dfs_log_writer_name(w, 501, "/lus/g", 6, &err), 0);
	/* two components: [0, 4 MiB) over OSTs 10 11, then to EOF over 20 21 22 */
	unsigned char lus[32 + 72 * 2 + 8 * 5];
	memset(lus, 0, sizeof(lus));
	put_i64(lus, 500);
	put_i64(lus + 8, -1);
	put_i64(lus + 16, 2);
	put_i64(lus + 24, 5);
	const int64_t comps[2][7] = {{MiB, 2, 1, 0, 0, 4 * MiB, 0}, {MiB, 3, 1, 0, 4 * MiB, -1, 0}};
	for (int c = 0; c < 2; c++)
		for (int k = 0; k < 7; k++)
			put_i64(lus + 32 + 72 * c + 8 * k, comps[c][k]);
	const int64_t ids[5] = {10, 11, 20, 21, 22};
	for (int k = 0; k < 5; k++)
		put_i64(lus + 32 + 72 * 2 + 8 * k, ids[k]);
	assert_int_equal(dfs_log_writer_module_begin(w, DFS_MOD_LUSTRE, 0, &err), 0);
	assert_int_equal(dfs_log_writer_record(w, lus, sizeof(lus), &err), 0);
	assert_int_equal(dfs_log_writer_module_end(w, &err), 0);
	/* segments: (offset, length) and the OSTs darshan-dxt-parser lists */
	static const struct {
		int64_t off, len;
		const char *osts;
	} segs[] = {
		{0, 100, "10"},
		{3 * MiB / 2, MiB, "11 10"},         /* crosses a stripe */
		{7 * MiB / 2, MiB, "11 20"},         /* crosses the components */
		{0, 8 * MiB, "10 11 20"},            /* the count carries over */
		{5 * MiB, 2 * MiB, "21 22"},
	};
	size_t ns = sizeof(segs) / sizeof(segs[0]);
	unsigned char dxt[2][104 + 40 * 5];
	memset(dxt, 0, sizeof(dxt));
	for (int r = 0; r < 2; r++) {
		put_i64(dxt[r], 500 + r);
		put_i64(dxt[r] + 8, 0);
		memcpy(dxt[r] + 24, "nid1", 4);
		put_i64(dxt[r] + 88, 2);              /* 2 writes, 3 reads */
		put_i64(dxt[r] + 96, (int64_t)ns - 2);
		for (size_t k = 0; k < ns; k++) {
			unsigned char *sg = dxt[r] + 104 + 40 * k;
			put_i64(sg, segs[k].off);
			put_i64(sg + 8, segs[k].len);
			put_i64(sg + 32, 7);
		}
	}
	assert_int_equal(dfs_log_writer_module_begin(w, DFS_MOD_DXT_POSIX, 0, &err), 0);
	for (int r = 0; r < 2; r++)
		assert_int_equal(dfs_log_writer_record(w, dxt[r], sizeof(dxt[r]), &err), 0);
	assert_int_equal(dfs_log_writer_module_end(w, &err), 0);
	assert_int_equal(dfs_log_writer_finish(w, 0, &err), 0);
	dfs_log_writer_free(w);
	dfs_log *log = dfs_log_open_mem(out.data, out.len, "osts", 0, &err);
	assert_non_null(log);
	const dfs_module *m = dfs_module_get(DFS_MOD_DXT_POSIX);
	const dfs_records *recs = dfs_log_records(log, DFS_MOD_DXT_POSIX);
	assert_non_null(recs);
	assert_int_equal(recs->count, 2);
	int ost = dfs_module_field_index(m, "ost", 3);
	int seg = dfs_module_field_index(m, "segment", 7);
	int rc = dfs_module_field_index(m, "read_count", 10);
	assert_true(ost > 0 && seg > 0 && rc > 0);
	for (int r = 0; r < 2; r++) {
		const unsigned char *rec = dfs_record(recs, (size_t)r);
		size_t len = dfs_record_size(recs, (size_t)r);
		for (size_t k = 0; k < ns; k++) {
			dfs_value v;
			dfs_module_get_log_value(dfs_log_names(log), m, rec, len, k, (size_t)ost, &v);
			if (r == 1) {   /* no LUSTRE record: no OST */
				assert_int_equal(v.type, DFS_T_NONE);
				continue;
			}
			assert_int_equal(v.type, DFS_T_STR);
			if (v.v.s.len != strlen(segs[k].osts) ||
			    memcmp(v.v.s.ptr, segs[k].osts, v.v.s.len))
				fail_msg("segment %zu: ost '%.*s', expected '%s'", k,
				         (int)v.v.s.len, v.v.s.ptr, segs[k].osts);
			/* without the log there is none */
			dfs_module_get_value(m, rec, len, k, (size_t)ost, &v);
			assert_int_equal(v.type, DFS_T_NONE);
		}
	}
	/* cut to the second write and the last read: numbers and counts stay */
	const unsigned char *rec = dfs_record(recs, 0);
	size_t len = dfs_record_size(recs, 0);
	bool keep[5] = {false, true, false, false, true};
	dfs_records cut;
	dfs_records_init(&cut, m, m->version);
	assert_int_equal(dfs_dxt_trim(rec, len, keep, &cut), 0);
	assert_int_equal(cut.count, 1);
	const unsigned char *c = dfs_record(&cut, 0);
	size_t clen = dfs_record_size(&cut, 0);
	assert_int_equal(dfs_module_rows(m, c, clen), 2);
	assert_int_equal(dfs_dxt_plain_size(c, clen), 104 + 40 * 2);
	static const int64_t want_seg[2] = {1, 2};
	static const char *const want_ost[2] = {"11 10", "21 22"};
	for (size_t k = 0; k < 2; k++) {
		dfs_value v;
		dfs_module_get_value(m, c, clen, k, (size_t)seg, &v);
		assert_int_equal(v.v.i, want_seg[k]);
		dfs_module_get_value(m, c, clen, k, (size_t)rc, &v);
		assert_int_equal(v.v.i, 3);
		dfs_module_get_log_value(dfs_log_names(log), m, c, clen, k, (size_t)ost, &v);
		assert_int_equal(v.v.s.len, strlen(want_ost[k]));
		assert_memory_equal(v.v.s.ptr, want_ost[k], v.v.s.len);
	}
	dfs_records_free(&cut);
	dfs_log_free(log);
	dfs_buf_free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_double_like_strtod),
		cmocka_unit_test(test_words_only),
		cmocka_unit_test(test_quoting),
		cmocka_unit_test(test_quoting_bytes),
		cmocka_unit_test(test_quoting_long),
		cmocka_unit_test(test_quoting_every_byte_everywhere),
		cmocka_unit_test(test_big_import),
		cmocka_unit_test(test_rows_as_they_arrive),
		cmocka_unit_test(test_rows_absent_columns),
		cmocka_unit_test(test_roundtrip_every_record),
		cmocka_unit_test(test_record_len_every_record),
		cmocka_unit_test(test_record_len_shapes),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_partial_columns),
		cmocka_unit_test(test_record_id_forms),
		cmocka_unit_test(test_duplicate_rows),
		cmocka_unit_test(test_unsigned_counter_negative),
		cmocka_unit_test(test_integer_forms),
		cmocka_unit_test(test_variable_modules_refused),
		cmocka_unit_test(test_dxt_osts_and_cuts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
