/* test_log.c - the log reader: record ids, number formatting, conformance
 * with darshan-parser over every shared log, and corrupt inputs. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/shared.h"
#include "darshanfs/buf.h"
#include "util/format.h"
#include "darshanfs/hash.h"
#include "darshanfs/log.h"
#include "darshanfs/report.h"
#include "darshanfs/writer.h"
#include "log/hints.h"

static void test_hash_vectors(void **state)
{
	(void)state;
	static const struct { const char *name; uint64_t id; } v[] = {
		{"<STDIN>", 14734109647742566553ULL},
		{"<STDOUT>", 15920181672442173319ULL},
		{"<STDERR>", 7238257241479193519ULL},
		{"heatmap:POSIX", 16592106915301738621ULL},
		{"heatmap:MPIIO", 3668870418325792824ULL},
		{"heatmap:STDIO", 3989511027826779520ULL},
		{"/tmp/tmp/mpi-io-test.tmp.dat", 11344915649860608681ULL},
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		assert_true(dfs_hash_name(v[i].name, strlen(v[i].name)) == v[i].id);
}

/* Every name of every shared log hashes to its stored id (except ids that
 * the runtime derives from binary keys: DFS/DAOS objects). */
static void test_hash_names_of_logs(void **state)
{
	(void)state;
	size_t n;
	char **logs = shared_logs(&n);
	if (!logs)
		skip();
	size_t checked = 0, mismatched = 0, consistent = 0;
	for (size_t i = 0; i < n; i++) {
		char *path = shared_log_path(logs[i]);
		dfs_error err = {0};
		dfs_log *log = dfs_log_open(path, DFS_LOG_HEADER_ONLY, &err);
		assert_non_null(log);
		size_t bad = 0;
		bool daos = dfs_log_get_header(log)->mods[DFS_MOD_DFS].len ||
		            dfs_log_get_header(log)->mods[DFS_MOD_DAOS].len;
		for (size_t k = 0; k < dfs_log_name_count(log); k++) {
			const dfs_name *nm = dfs_log_name_at(log, k);
			if (daos && nm->str[0] != '<' && nm->str[0] != 'h')
				continue;
			if (dfs_hash_name(nm->str, nm->len) != nm->id)
				bad++;
			checked++;
		}
		mismatched += bad;
		if (bad)
			printf("  %s: %zu names do not hash to their ids (anonymized log)\n",
			       logs[i], bad);
		else
			consistent++;
		dfs_log_free(log);
		free(path);
	}
	printf("record ids: %zu of %zu names of %zu logs hash to their ids\n",
	       checked - mismatched, checked, n);
	/* anonymized logs replace names but keep the original ids */
	assert_true(consistent * 10 >= n * 9);
	shared_free_list(logs);
}

static void test_format_integers(void **state)
{
	(void)state;
	char buf[32];
	static const int64_t v[] = {0, 1, -1, 9, 10, 99, 100, 12345, -98765,
	                            INT64_MAX, INT64_MIN};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char ref[32];
		snprintf(ref, sizeof(ref), "%lld", (long long)v[i]);
		size_t n = dfs_fmt_i64(buf, v[i]);
		buf[n] = '\0';
		assert_string_equal(buf, ref);
		int64_t back;
		assert_true(dfs_parse_i64(buf, n, &back));
		assert_true(back == v[i]);
	}
	size_t n = dfs_fmt_u64(buf, UINT64_MAX);
	buf[n] = '\0';
	assert_string_equal(buf, "18446744073709551615");
	uint64_t u;
	assert_true(dfs_parse_u64(buf, n, &u) && u == UINT64_MAX);
	assert_false(dfs_parse_u64("18446744073709551616", 20, &u));
	int64_t s;
	assert_false(dfs_parse_i64("9223372036854775808", 19, &s));
	assert_false(dfs_parse_i64("", 0, &s));
	assert_false(dfs_parse_i64("-", 1, &s));
	assert_false(dfs_parse_i64("1x", 2, &s));
	assert_false(dfs_parse_i64(" 1", 2, &s));
}

static void roundtrip(double d)
{
	char buf[DFS_FMT_DOUBLE_MAX + 1];
	size_t n = dfs_fmt_double(buf, d);
	buf[n] = '\0';
	double back;
	assert_true(dfs_parse_double(buf, n, &back));
	if (isnan(d)) {
		assert_true(isnan(back) && signbit(back) == signbit(d));
		return;
	}
	if (memcmp(&back, &d, sizeof(d)) != 0)
		fail_msg("%.17g printed as %s reads back as %.17g", d, buf, back);
}

static void test_format_doubles(void **state)
{
	(void)state;
	char buf[40];
	struct { double d; const char *s; } v[] = {
		{0.0, "0"}, {-0.0, "-0"}, {-1.0, "-1"}, {0.5, "0.5"}, {0.1, "0.1"},
		{1e-5, "1e-05"}, {3122.286459, "3122.286459"}, {1e300, "1e+300"},
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		size_t n = dfs_fmt_double(buf, v[i].d);
		buf[n] = '\0';
		assert_string_equal(buf, v[i].s);
	}
	roundtrip(NAN);
	roundtrip(-NAN);
	roundtrip(INFINITY);
	roundtrip(-INFINITY);
	roundtrip(5e-324);
	roundtrip(1.7976931348623157e308);
	uint64_t x = 88172645463325252ULL;
	for (int i = 0; i < 200000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		double d;
		memcpy(&d, &x, 8);
		roundtrip(d);
		roundtrip((double)(x >> 11) / 9007199254740992.0);
	}
}

/* Every float counter of every shared log prints and reads back as the
 * identical double. */
static void roundtrip_floats(void *ctx, const dfs_log *log, const char *name,
                             const dfs_module *m, const unsigned char *rec,
                             size_t len, size_t index)
{
	(void)log;
	(void)name;
	(void)index;
	size_t *values = ctx;
	size_t rows = dfs_module_rows(m, rec, len);
	for (size_t row = 0; row < rows; row++)
		for (size_t f = 0; f < m->n_fields; f++) {
			if (m->fields[f].type != DFS_T_F64)
				continue;
			dfs_value v;
			dfs_module_get_value(m, rec, len, row, f, &v);
			if (v.type != DFS_T_F64)
				continue;
			roundtrip(v.v.d);
			(*values)++;
		}
}

static void test_float_roundtrip_logs(void **state)
{
	(void)state;
	size_t values = 0, logs, records;
	int ret = shared_each_record(roundtrip_floats, &values, &logs, &records);
	if (ret == 0)
		skip();
	assert_int_equal(ret, 1);
	printf("float round trip: %zu values of %zu logs\n", values, logs);
}

static bool oracle_aborted(const char *log)
{
	size_t len;
	char *rc = oracle_read(log, "base.rc", &len);
	bool aborted = rc && atoi(rc) == 134;
	free(rc);
	return aborted;
}

/* darshan-parser --base --show-incomplete, byte for byte, for every log;
 * header.txt is its header block. */
static void test_parser_base_conformance(void **state)
{
	(void)state;
	size_t n;
	char **logs = shared_logs(&n);
	if (!logs)
		skip();
	size_t exact = 0, prefix = 0, hashed = 0, headers = 0, bytes = 0;
	for (size_t i = 0; i < n; i++) {
		char *path = shared_log_path(logs[i]);
		dfs_error err = {0};
		dfs_log *log = dfs_log_open(path, 0, &err);
		if (!log)
			fail_msg("%s: %s", logs[i], err.msg);
		dfs_buf out = DFS_BUF_INIT;
		dfs_report_parser(log, DFS_REPORT_BASE, &out, NULL);
		size_t rlen;
		char *ref = oracle_read(logs[i], "base.txt", &rlen);
		if (!ref) {
			char *want = oracle_sha256(logs[i], "base.txt");
			char got[65];
			sha256_hex(out.data, out.len, got);
			if (!want || strcmp(want, got) != 0)
				fail_msg("%s: base output sha256 %s, expected %s", logs[i], got,
				         want ? want : "(unknown)");
			free(want);
			hashed++;
		} else if (oracle_aborted(logs[i])) {
			/* darshan-parser aborted: its stdout is a prefix of ours */
			if (out.len < rlen || memcmp(out.data, ref, rlen) != 0)
				fail_msg("%s: output does not start with the oracle's", logs[i]);
			prefix++;
		} else {
			if (out.len != rlen || memcmp(out.data, ref, rlen) != 0) {
				size_t k = 0;
				while (k < out.len && k < rlen && out.data[k] == ref[k])
					k++;
				fail_msg("%s: base output differs at byte %zu", logs[i], k);
			}
			exact++;
		}
		bytes += out.len;
		/* header.txt = everything before the column description */
		dfs_buf hdr = DFS_BUF_INIT;
		dfs_report_header(log, &hdr);
		assert_true(hdr.len <= out.len);
		assert_memory_equal(hdr.data, out.data, hdr.len);
		assert_true(strncmp(out.data + hdr.len, "\n# description of columns:", 26) == 0);
		headers++;
		dfs_buf_free(&hdr);
		free(ref);
		dfs_buf_free(&out);
		dfs_log_free(log);
		free(path);
	}
	printf("darshan-parser --base: %zu logs identical, %zu by sha256, %zu prefix "
	       "of an aborted run; %zu headers; %zu bytes compared\n",
	       exact, hashed, prefix, headers, bytes);
	assert_int_equal(exact + hashed + prefix, n);
	shared_free_list(logs);
}

/* Truncated and bit-flipped copies of real logs: an error or a log, never
 * a crash (run under the sanitizers in CI). */
static void test_corrupt_logs(void **state)
{
	(void)state;
	dfs_error err = {0};
	assert_null(dfs_log_open_mem("", 0, "empty", 0, &err));
	assert_int_equal(err.code, DFS_ERR_FORMAT);
	assert_non_null(strstr(err.msg, "empty"));
	assert_null(dfs_log_open_mem("hello world, not a log", 22, "text", 0, &err));
	assert_true(err.code == DFS_ERR_FORMAT || err.code == DFS_ERR_UNSUPPORTED);
	size_t n;
	char **logs = shared_logs(&n);
	if (!logs)
		skip();
	size_t opened = 0, refused = 0;
	uint64_t x = 2463534242ULL;
	for (size_t i = 0; i < n; i += 7) {
		char *path = shared_log_path(logs[i]);
		size_t len;
		char *data = read_file(path, &len);
		assert_non_null(data);
		char *copy = malloc(len);
		for (int t = 0; t < 40; t++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			size_t cut = t < 20 ? (size_t)(x % (len + 1)) : len;
			memcpy(copy, data, len);
			if (t >= 20)
				for (int f = 0; f < 1 + t % 5; f++)
					copy[(x >> (8 * f)) % len] ^= (char)(1u << (f % 8));
			dfs_log *log = dfs_log_open_mem(copy, cut, logs[i], 0, &err);
			if (log) {
				dfs_buf out = DFS_BUF_INIT;
				dfs_report_parser(log, DFS_REPORT_BASE | DFS_REPORT_TOTAL |
				                  DFS_REPORT_FILE | DFS_REPORT_PERF, &out, &out);
				dfs_buf_free(&out);
				dfs_log_free(log);
				opened++;
			} else {
				assert_true(err.msg[0] != '\0');
				assert_non_null(strstr(err.msg, logs[i]));
				refused++;
			}
		}
		free(copy);
		free(data);
		free(path);
	}
	printf("corrupt copies: %zu read, %zu refused with a message\n", opened, refused);
	shared_free_list(logs);
}

/* ---- observing the records of a log as it decodes ----------------------- */

struct run {
	int id;
	size_t first, count;
	unsigned char *recs;
};

struct seen {
	pthread_mutex_t lock;
	struct run *runs;
	size_t nruns, cap;
	int in_flight, most_in_flight;
	bool start_not_alone;       /* a run with first == 0 beside another */
	bool names_missing;
};

static void saw_records(void *ctx, const dfs_log *log, const dfs_records *run,
                        size_t first)
{
	struct seen *s = ctx;
	const dfs_module *m = run->module;
	size_t count = run->count;
	pthread_mutex_lock(&s->lock);
	int now = ++s->in_flight;
	if (now > s->most_in_flight)
		s->most_in_flight = now;
	if (first == 0 && now > 1)
		s->start_not_alone = true;
	pthread_mutex_unlock(&s->lock);
	unsigned char *copy = malloc(count * m->record_size + 1);
	assert_non_null(copy);
	bool missing = false;
	_Alignas(8) unsigned char scratch[DFS_RECORD_MAX];
	for (size_t k = 0; k < count; k++) {
		const unsigned char *rec = dfs_record_get(run, k, scratch);
		memcpy(copy + k * m->record_size, rec, m->record_size);
		/* the names are there to look at */
		if (!dfs_log_name(log, dfs_record_id(rec)))
			missing = true;
	}
	/* linger, so that runs wait when a module starts and at the end,
	 * where the inflating thread shows them beside the helper (it
	 * inflates a run in well under a millisecond here, even on a busy
	 * machine) */
	usleep(10000);
	pthread_mutex_lock(&s->lock);
	if (first == 0 && s->in_flight > 1)
		s->start_not_alone = true;
	s->in_flight--;
	s->names_missing |= missing;
	if (s->nruns == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->runs = realloc(s->runs, s->cap * sizeof(*s->runs));
		assert_non_null(s->runs);
	}
	s->runs[s->nruns++] = (struct run){m->id, first, count, copy};
	pthread_mutex_unlock(&s->lock);
}

static int by_module_first(const void *a, const void *b)
{
	const struct run *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

static void seen_reset(struct seen *s)
{
	for (size_t i = 0; i < s->nruns; i++)
		free(s->runs[i].recs);
	free(s->runs);
	pthread_mutex_destroy(&s->lock);
	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->lock, NULL);
}

static void seen_init(struct seen *s)
{
	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->lock, NULL);
}

static void seen_done(struct seen *s)
{
	seen_reset(s);
	pthread_mutex_destroy(&s->lock);
}

/* The runs seen, sorted, cover each module's records once, in order, as
 * they read back; returns the number of modules with records. */
static int check_runs_cover(struct seen *s, const dfs_log *log)
{
	qsort(s->runs, s->nruns, sizeof(*s->runs), by_module_first);
	int modules = 0;
	size_t at = 0;
	_Alignas(8) unsigned char scratch[DFS_RECORD_MAX];
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		const dfs_records *r = dfs_log_records(log, id);
		size_t next = 0;
		for (; at < s->nruns && s->runs[at].id == id; at++) {
			const struct run *run = &s->runs[at];
			assert_non_null(r);
			assert_int_equal(run->first, next);
			size_t size = r->module->record_size;
			for (size_t k = 0; k < run->count; k++)
				assert_memory_equal(run->recs + k * size,
				                    dfs_record_get(r, next + k, scratch), size);
			next += run->count;
		}
		if (r) {
			modules++;
			assert_int_equal(next, r->count);
		}
	}
	assert_int_equal(at, s->nruns);
	return modules;
}

/* A synthetic log of `records` records per module (seed `seed`) into out */
static void synth_log(dfs_buf *out, uint64_t seed, size_t records)
{
	dfs_error err = {0};
	dfs_log_writer *w = dfs_log_writer_buf(out, NULL, &err);
	assert_non_null(w);
	dfs_synth_options o;
	memset(&o, 0, sizeof(o));
	o.seed = seed;
	o.records = records;
	dfs_synth_defaults(&o);
	assert_int_equal(dfs_synth_write(w, &o, &err), 0);
	dfs_log_writer_free(w);
}

/* The bytes of b in a new temporary file named into path (a mkstemp
 * template). */
static void write_temp(char *path, const dfs_buf *b)
{
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, b->data, b->len), (ssize_t)b->len);
	close(fd);
}

/* An observer sees every record of every packed module exactly once, as
 * the records then read back, from at most two threads at once, a run
 * that starts a module alone; it is not called under min_bytes. */
static void test_observer(void **state)
{
	(void)state;
	char path[] = "/tmp/dfs-observe-XXXXXX";
	dfs_buf out = DFS_BUF_INIT;
	synth_log(&out, 11, 20000);
	write_temp(path, &out);
	dfs_buf_free(&out);
	dfs_error err = {0};

	struct seen s;
	seen_init(&s);
	dfs_log_observer obs = {saw_records, &s, 0};
	dfs_log *log = dfs_log_open_observed(path, 0, &obs, &err);
	assert_non_null(log);
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		/* observed only beside the inflate, on another core */
		assert_int_equal(s.nruns, 0);
		dfs_log_free(log);
		seen_done(&s);
		unlink(path);
		skip();
	}
	assert_true(s.nruns > 0);
	assert_int_equal(s.most_in_flight, 2);
	assert_false(s.start_not_alone);
	assert_false(s.names_missing);
	assert_true(check_runs_cover(&s, log) >= 3);
	dfs_log_free(log);

	/* a log smaller than min_bytes is not observed */
	seen_reset(&s);
	obs.min_bytes = UINT64_MAX;
	log = dfs_log_open_observed(path, 0, &obs, &err);
	assert_non_null(log);
	assert_int_equal(s.nruns, 0);
	dfs_log_free(log);
	seen_done(&s);
	unlink(path);
}

/* With an observer the name table is inflated on the helper, beside the
 * modules: damaged, the log is still refused with the table named, and
 * the observer is shown nothing (it would look names up). */
static void test_observer_damaged_names(void **state)
{
	(void)state;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		skip();
	dfs_buf out = DFS_BUF_INIT;
	dfs_error err = {0};
	synth_log(&out, 12, 20000);
	dfs_log *log = dfs_log_open_mem(out.data, out.len, "synth", DFS_LOG_HEADER_ONLY, &err);
	assert_non_null(log);
	dfs_region names = dfs_log_get_header(log)->names;
	dfs_log_free(log);
	assert_true(names.len > 4096);
	for (size_t i = 0; i < 64; i++)
		out.data[names.off + names.len / 2 + i] ^= 0x5a;

	struct seen s;
	seen_init(&s);
	dfs_log_observer obs = {saw_records, &s, 0};
	char path[] = "/tmp/dfs-observe-XXXXXX";
	write_temp(path, &out);
	memset(&err, 0, sizeof(err));
	log = dfs_log_open_observed(path, 0, &obs, &err);
	assert_null(log);
	assert_non_null(strstr(err.msg, "name table"));
	assert_int_equal(s.nruns, 0);
	seen_done(&s);
	dfs_buf_free(&out);
	unlink(path);
}

/* Records that compress far better than they pack outgrow the space
 * reserved for the packed set, which then moves while the observer may
 * still be reading runs of it: the relay lets every run be shown first.
 * The observer must see every record exactly as it reads back. */
static void test_observer_packed_set_moves(void **state)
{
	(void)state;
	const dfs_module *m = dfs_module_get(DFS_MOD_POSIX);
	dfs_buf out = DFS_BUF_INIT;
	dfs_error err = {0};
	dfs_log_writer *w = test_log_writer(&out, &err);
	assert_non_null(w);
	assert_int_equal(dfs_log_writer_name(w, 1, "/scratch/f", 10, &err), 0);
	assert_int_equal(dfs_log_writer_module_begin(w, DFS_MOD_POSIX, 0, &err), 0);
	size_t nrec = 400000;
	_Alignas(8) unsigned char rec[DFS_RECORD_MAX];
	memset(rec, 0, m->record_size);
	for (size_t k = 0; k < nrec; k++) {
		/* nearly the same record every time: a few words change */
		uint64_t id = 1, c = k % 7, d = k / 1000;
		memcpy(rec, &id, 8);
		memcpy(rec + 16, &c, 8);
		memcpy(rec + 24, &d, 8);
		memcpy(rec + 40, &c, 8);
		assert_int_equal(dfs_log_writer_record(w, rec, m->record_size, &err), 0);
	}
	assert_int_equal(dfs_log_writer_finish(w, 0, &err), 0);
	dfs_log_writer_free(w);

	struct seen s;
	seen_init(&s);
	dfs_log_observer obs = {saw_records, &s, 0};
	char path[] = "/tmp/dfs-observe-XXXXXX";
	write_temp(path, &out);
	dfs_log *log = dfs_log_open_observed(path, 0, &obs, &err);
	assert_non_null(log);
	const dfs_records *r = dfs_log_records(log, DFS_MOD_POSIX);
	assert_non_null(r);
	assert_int_equal(r->count, nrec);
	const dfs_log_header *h = dfs_log_get_header(log);
	printf("POSIX region %llu bytes, packed %zu bytes (%.1f times)\n",
	       (unsigned long long)h->mods[DFS_MOD_POSIX].len, r->size,
	       (double)r->size / (double)h->mods[DFS_MOD_POSIX].len);
	/* more than the 8 times reserved: the set moved */
	assert_true(r->size > 8 * h->mods[DFS_MOD_POSIX].len);
	/* (POSIX is the log's only module: every run is one of its) */
	if (sysconf(_SC_NPROCESSORS_ONLN) >= 2)
		assert_int_equal(check_runs_cover(&s, log), 1);
	dfs_log_free(log);
	seen_done(&s);
	dfs_buf_free(&out);
	unlink(path);
}

/* Name lookups with a hint remember where the last one ended (records
 * mostly come in the name table's order): any order, unknown ids and two
 * logs in turn must still find exactly the entry of the id, and a hint
 * is its holder's alone (another loop's lookups do not touch it). */
static void test_name_lookup_orders(void **state)
{
	(void)state;
	dfs_log *logs[2];
	dfs_buf bytes[2] = {DFS_BUF_INIT, DFS_BUF_INIT};
	dfs_error err = {0};
	for (int g = 0; g < 2; g++) {
		synth_log(&bytes[g], 5 + (uint64_t)g, 3000);
		logs[g] = dfs_log_open_mem(bytes[g].data, bytes[g].len, "synth", 0, &err);
		assert_non_null(logs[g]);
	}
	size_t n = dfs_log_name_count(logs[0]);
	assert_true(n > 1000);
	/* in table order: found next to each other, no prefetching asked */
	dfs_name_hint h = DFS_NAME_HINT_INIT, other_h = DFS_NAME_HINT_INIT;
	for (size_t i = 0; i < n; i++) {
		assert_ptr_equal(dfs_log_name_near(logs[0], dfs_log_name_at(logs[0], i)->id, &h),
		                 dfs_log_name_at(logs[0], i));
		/* a lookup of another loop (backwards) in between */
		const dfs_name *o = dfs_log_name_at(logs[0], n - 1 - i);
		assert_ptr_equal(dfs_log_name_near(logs[0], o->id, &other_h), o);
		/* and one without a hint */
		assert_ptr_equal(dfs_log_name(logs[0], o->id), o);
	}
	assert_true(dfs_name_hint_in_order(&h));
	assert_false(dfs_name_hint_in_order(&other_h));
	/* backwards, strided, repeated, and in turn with the other log */
	size_t m = dfs_log_name_count(logs[1]);
	for (size_t k = 0; k < 4 * n; k++) {
		size_t i = k < n ? n - 1 - k : k < 2 * n ? (k * 7919) % n : (k / 3) % n;
		const dfs_name *want = dfs_log_name_at(logs[0], i);
		assert_ptr_equal(dfs_log_name_near(logs[0], want->id, &h), want);
		if (k >= 3 * n) {
			const dfs_name *other = dfs_log_name_at(logs[1], k % m);
			assert_ptr_equal(dfs_log_name_near(logs[1], other->id, &h), other);
		}
		/* an id of neither log: not found, whatever was remembered */
		if (k % 97 == 0)
			assert_null(dfs_log_name_near(logs[k & 1], 0x5eed5eed5eed0000ULL + k, &h));
	}
	assert_false(dfs_name_hint_in_order(&h));
	/* a freed log's remembered position does not leak into a new one */
	dfs_log_free(logs[1]);
	for (size_t i = m < n ? m : n; i-- > 0;) {
		const dfs_name *want = dfs_log_name_at(logs[0], i);
		assert_ptr_equal(dfs_log_name_near(logs[0], want->id, &h), want);
	}
	dfs_log_free(logs[0]);
	dfs_buf_free(&bytes[0]);
	dfs_buf_free(&bytes[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hash_vectors),
		cmocka_unit_test(test_hash_names_of_logs),
		cmocka_unit_test(test_format_integers),
		cmocka_unit_test(test_format_doubles),
		cmocka_unit_test(test_float_roundtrip_logs),
		cmocka_unit_test(test_parser_base_conformance),
		cmocka_unit_test(test_corrupt_logs),
		cmocka_unit_test(test_observer),
		cmocka_unit_test(test_observer_packed_set_moves),
		cmocka_unit_test(test_observer_damaged_names),
		cmocka_unit_test(test_name_lookup_orders),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
