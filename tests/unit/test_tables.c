/* test_tables.c - which file, which rank: the accumulator's per-file
 * results, files.csv and ranks.csv of a selection, and a directory's
 * files.csv merged over logs (tables.h).
 *
 * The per-file results are checked against their definition: for every
 * file, a fresh accumulator fed only that file's records.  The tables are
 * checked on logs written here with the log writer, row by row. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "darshanfs/accum.h"
#include "darshanfs/hash.h"
#include "darshanfs/log.h"
#include "summary/files_pack.h"
#include "summary/files_ranks.h"
#include "util/scratch.h"
#include "darshanfs/view.h"
#include "darshanfs/writer.h"
#include "view/lazy.h"
#include "view/probe.h"
#include <fcntl.h>
#include <unistd.h>

/* ---- records ------------------------------------------------------------- */

/* The offset of a counter in m's records, by its name: the last few
 * lookups are kept (the suite sets hundreds of thousands of records, a
 * few counters each) */
static size_t field_offset(const dfs_module *m, const char *name)
{
	static struct {
		const dfs_module *m;
		char name[48];
		size_t offset;
	} seen[32];
	static size_t nseen;
	for (size_t i = 0; i < nseen; i++)
		if (seen[i].m == m && strcmp(seen[i].name, name) == 0)
			return seen[i].offset;
	int f = dfs_module_field_index(m, name, strlen(name));
	assert_true(f >= 0);
	size_t offset = m->fields[f].offset;
	if (nseen < 32 && strlen(name) < sizeof(seen[0].name)) {
		seen[nseen].m = m;
		strcpy(seen[nseen].name, name);
		seen[nseen++].offset = offset;
	}
	return offset;
}

static void set_i(const dfs_module *m, unsigned char *rec, const char *name, int64_t v)
{
	memcpy(rec + field_offset(m, name), &v, 8);
}

static void set_f(const dfs_module *m, unsigned char *rec, const char *name, double v)
{
	memcpy(rec + field_offset(m, name), &v, 8);
}

static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* n POSIX records of `files` files (ids 1000 + k), ranks -1 .. nprocs + 1
 * (some outside the job), times with fractions, repeated (id, rank) pairs */
static unsigned char *random_posix(size_t n, size_t files, int64_t nprocs, uint64_t seed)
{
	const dfs_module *m = dfs_module_get(DFS_MOD_POSIX);
	unsigned char *recs = calloc(n, m->record_size);
	assert_non_null(recs);
	for (size_t i = 0; i < n; i++) {
		unsigned char *r = recs + i * m->record_size;
		uint64_t id = 1000 + next_rand(&seed) % files;
		int64_t rank = (int64_t)(next_rand(&seed) % (uint64_t)(nprocs + 3)) - 1;
		memcpy(r, &id, 8);
		memcpy(r + 8, &rank, 8);
		set_i(m, r, "POSIX_BYTES_READ", (int64_t)(next_rand(&seed) % 100000));
		set_i(m, r, "POSIX_BYTES_WRITTEN", (int64_t)(next_rand(&seed) % 3) * 4096);
		set_i(m, r, "POSIX_READS", (int64_t)(next_rand(&seed) % 50));
		set_f(m, r, "POSIX_F_READ_TIME", (double)(next_rand(&seed) % 1000) / 7.0);
		set_f(m, r, "POSIX_F_WRITE_TIME", (double)(next_rand(&seed) % 1000) / 11.0);
		set_f(m, r, "POSIX_F_META_TIME", (double)(next_rand(&seed) % 1000) / 13.0);
		set_f(m, r, "POSIX_F_SLOWEST_RANK_TIME", (double)(next_rand(&seed) % 1000) / 3.0);
		/* ties: a file's ranks 3, 1 and 2 (in that order) whose equal
		 * times are the largest: the lowest rank is the slowest */
		if (i < 3 && n >= 3) {
			uint64_t tie = 999;   /* (no other record has it) */
			int64_t tr = i == 0 ? 3 : i == 1 ? 1 : 2;
			memcpy(r, &tie, 8);
			memcpy(r + 8, &tr, 8);
			set_f(m, r, "POSIX_F_READ_TIME", 1e6);
			set_f(m, r, "POSIX_F_WRITE_TIME", 5e5);
			set_f(m, r, "POSIX_F_META_TIME", 2.5e5);
		}
	}
	return recs;
}

/* ---- the accumulator tracking files ---------------------------------------- */

static int64_t rank_of(const unsigned char *rec)
{
	int64_t r;
	memcpy(&r, rec + 8, 8);
	return r;
}

/* the records in rank order, records of one rank in their order; shared
 * ones where they were (Darshan's order: grouped by rank) */
static void group_by_rank(unsigned char *recs, size_t n, size_t size)
{
	unsigned char *tmp = malloc(size);
	for (size_t i = 1; i < n; i++) {
		if (rank_of(recs + i * size) < 0)
			continue;
		size_t j = i;
		memcpy(tmp, recs + i * size, size);
		/* move it before the per-rank records of higher ranks */
		while (j > 0 && (rank_of(recs + (j - 1) * size) < 0 ||
		                 rank_of(recs + (j - 1) * size) > rank_of(tmp))) {
			size_t k = j - 1;
			while (k > 0 && rank_of(recs + k * size) < 0)
				k--;
			if (rank_of(recs + k * size) <= rank_of(tmp) && rank_of(recs + k * size) >= 0)
				break;
			memmove(recs + (k + 1) * size, recs + k * size, (j - k) * size);
			j = k;
		}
		memcpy(recs + j * size, tmp, size);
	}
	free(tmp);
}

static void check_files_alone(size_t n, size_t files, int64_t nprocs, uint64_t seed,
                              bool grouped)
{
	const dfs_module *m = dfs_module_get(DFS_MOD_POSIX);
	unsigned char *recs = random_posix(n, files, nprocs, seed);
	if (grouped)
		group_by_rank(recs, n, m->record_size);
	dfs_records set = {.module = m, .count = n, .data = recs, .size = n * m->record_size};
	assert_int_equal(dfs_accum_ranks_grouped(&set, NULL, n), grouped);
	dfs_error err = {0};
	dfs_accum *a = dfs_accum_create(m, nprocs, &err);
	assert_non_null(a);
	assert_int_equal(grouped ? dfs_accum_track_files_grouped(a) : dfs_accum_track_files(a), 0);
	assert_int_equal(dfs_accum_inject(a, m, recs, n, &err), 0);
	dfs_derived_metrics dm;
	unsigned char summary[1024];
	/* no summation record when tracking files */
	assert_int_equal(dfs_accum_emit(a, &dm, summary, &err), -1);
	assert_int_equal(dfs_accum_emit(a, &dm, NULL, &err), 0);
	size_t nf = dfs_accum_file_count(a);
	assert_true(nf > 0 && nf <= files + 1);
	const uint32_t *file_of = dfs_accum_record_files(a);
	assert_non_null(file_of);
	unsigned char *mine = malloc(n * m->record_size);
	assert_non_null(mine);
	for (size_t f = 0; f < nf; f++) {
		dfs_file_metrics fm;
		assert_int_equal(dfs_accum_file_metrics(a, f, &fm), 0);
		/* the definition: the accumulator fed only this file's records */
		size_t k = 0;
		bool shared = false;
		int64_t seen[64];
		size_t nseen = 0;
		for (size_t i = 0; i < n; i++) {
			uint64_t id;
			int64_t rank;
			memcpy(&id, recs + i * m->record_size, 8);
			memcpy(&rank, recs + i * m->record_size + 8, 8);
			if (id != fm.id)
				continue;
			assert_int_equal(file_of[i], f);
			memcpy(mine + k++ * m->record_size, recs + i * m->record_size, m->record_size);
			if (rank < 0) {
				shared = true;
				continue;
			}
			bool dup = false;
			for (size_t s = 0; s < nseen; s++)
				dup |= seen[s] == rank;
			if (!dup && nseen < 64)
				seen[nseen++] = rank;
		}
		dfs_accum *one = dfs_accum_create(m, nprocs, &err);
		assert_non_null(one);
		assert_int_equal(dfs_accum_inject(one, m, mine, k, &err), 0);
		dfs_derived_metrics want;
		assert_int_equal(dfs_accum_emit(one, &want, summary, &err), 0);
		dfs_accum_free(one);
		assert_int_equal(fm.total_bytes, want.total_bytes);
		assert_int_equal(fm.bytes_read, want.category_counters[DFS_ALL_FILES].total_read_volume_bytes);
		assert_int_equal(fm.bytes_written, want.category_counters[DFS_ALL_FILES].total_write_volume_bytes);
		assert_memory_equal(&fm.time_by_slowest, &want.agg_time_by_slowest, sizeof(double));
		assert_memory_equal(&fm.perf_by_slowest, &want.agg_perf_by_slowest, sizeof(double));
		if (want.unique_io_total_time_by_slowest > 0)
			assert_int_equal(fm.slowest_rank, want.unique_io_slowest_rank);
		if (fm.id == 999 && nprocs > 3)
			assert_int_equal(fm.slowest_rank, 1);
		assert_int_equal(fm.ranks, shared ? nprocs : (int64_t)nseen);
	}
	dfs_file_metrics x;
	assert_int_equal(dfs_accum_file_metrics(a, nf, &x), -1);
	dfs_accum_free(a);
	free(mine);
	free(recs);
}

static void test_accum_files_alone(void **state)
{
	(void)state;
	check_files_alone(400, 30, 8, 1, false);
	check_files_alone(3000, 7, 40, 2, false);
	check_files_alone(20000, 1500, 16, 3, false);
	/* as Darshan writes them: grouped by rank, no table of pairs */
	check_files_alone(400, 30, 8, 1, true);
	check_files_alone(3000, 7, 40, 2, true);
	check_files_alone(6000, 1500, 16, 3, true);
}

static void test_accum_files_misuse(void **state)
{
	(void)state;
	dfs_error err = {0};
	const dfs_module *m = dfs_module_get(DFS_MOD_POSIX);
	unsigned char *recs = random_posix(4, 2, 4, 9);
	dfs_accum *a = dfs_accum_create(m, 4, &err);
	assert_int_equal(dfs_accum_inject(a, m, recs, 4, &err), 0);
	assert_int_equal(dfs_accum_track_files(a), -1);   /* too late */
	assert_null(dfs_accum_record_files(a));
	dfs_derived_metrics dm;
	assert_int_equal(dfs_accum_emit(a, &dm, NULL, &err), 0);
	dfs_file_metrics fm;
	assert_int_equal(dfs_accum_file_metrics(a, 0, &fm), -1);
	dfs_accum_free(a);
	dfs_accum *c = dfs_accum_create_combined(4, &err);
	assert_int_equal(dfs_accum_track_files(c), -1);
	dfs_accum_free(c);
	free(recs);
	/* records promised grouped by rank that are not: refused */
	recs = calloc(3, m->record_size);
	int64_t ranks[3] = {0, 1, 0};
	for (int i = 0; i < 3; i++) {
		uint64_t id = 10 + (uint64_t)i;
		memcpy(recs + (size_t)i * m->record_size, &id, 8);
		memcpy(recs + (size_t)i * m->record_size + 8, &ranks[i], 8);
	}
	dfs_records set = {.module = m, .count = 3, .data = recs, .size = 3 * m->record_size};
	assert_false(dfs_accum_ranks_grouped(&set, NULL, 3));
	size_t two[] = {0, 2};
	assert_true(dfs_accum_ranks_grouped(&set, two, 2));
	a = dfs_accum_create(m, 4, &err);
	assert_int_equal(dfs_accum_track_files_grouped(a), 0);
	assert_int_equal(dfs_accum_inject(a, m, recs, 3, &err), -1);
	assert_int_equal(err.code, DFS_ERR_INVAL);
	dfs_accum_free(a);
	free(recs);
}

/* ---- logs ----------------------------------------------------------------- */

struct wrec {
	uint64_t id;
	int64_t rank;
	int64_t bytes_read, bytes_written, reads, writes;
	double read_time, write_time, meta_time, open, close, slowest;
};

static const char *const names[] = {
	"/lus/a/out.0", "/lus/a/out.1", "/home/u/in,\"x\"\nname", "/lus/a/same",
	"/lus/a/same",   /* another id, the same name */
};
#define NAMES 5

static uint64_t name_id(int k)
{
	/* (the last two share a name: the second gets an id of its own) */
	return k == 4 ? 777 : dfs_hash_name(names[k], strlen(names[k]));
}

static dfs_log *write_log(int64_t nprocs, int64_t start, int mod, const struct wrec *w,
                          size_t n)
{
	dfs_error err = {0};
	dfs_buf out = DFS_BUF_INIT;
	dfs_write_options opt = {DFS_COMP_ZLIB, 1, 1};
	dfs_log_writer *lw = dfs_log_writer_buf(&out, &opt, &err);
	assert_non_null(lw);
	dfs_job job;
	memset(&job, 0, sizeof(job));
	job.nprocs = nprocs;
	job.start_sec = start;
	job.end_sec = start + 100;
	job.exe = (char *)"/bin/app";
	job.metadata = (char *)"";
	dfs_mount mounts[] = {{"/lus/a", "lustre", 6}, {"/home", "nfs", 5}};
	assert_int_equal(dfs_log_writer_job(lw, &job, mounts, 2, &err), 0);
	for (int k = 0; k < NAMES; k++)
		assert_int_equal(dfs_log_writer_name(lw, name_id(k), names[k], strlen(names[k]),
		                                     &err), 0);
	const dfs_module *m = dfs_module_get(mod);
	const char *p = m->prefix;
	char name[64];
	unsigned char *rec = malloc(m->record_size);
	assert_int_equal(dfs_log_writer_module_begin(lw, mod, 0, &err), 0);
	for (size_t i = 0; i < n; i++) {
		memset(rec, 0, m->record_size);
		memcpy(rec, &w[i].id, 8);
		memcpy(rec + 8, &w[i].rank, 8);
#define I(c, v) (snprintf(name, sizeof(name), "%s%s", p, c), set_i(m, rec, name, v))
#define F(c, v) (snprintf(name, sizeof(name), "%s%s", p, c), set_f(m, rec, name, v))
		I("BYTES_READ", w[i].bytes_read);
		I("BYTES_WRITTEN", w[i].bytes_written);
		I("READS", w[i].reads);
		I("WRITES", w[i].writes);
		F("F_READ_TIME", w[i].read_time);
		F("F_WRITE_TIME", w[i].write_time);
		F("F_META_TIME", w[i].meta_time);
		F("F_OPEN_START_TIMESTAMP", w[i].open);
		F("F_CLOSE_END_TIMESTAMP", w[i].close);
		if (mod != DFS_MOD_H5D || w[i].slowest)
			F("F_SLOWEST_RANK_TIME", w[i].slowest);
#undef I
#undef F
		assert_int_equal(dfs_log_writer_record(lw, rec, m->record_size, &err), 0);
	}
	free(rec);
	assert_int_equal(dfs_log_writer_module_end(lw, &err), 0);
	assert_int_equal(dfs_log_writer_finish(lw, 0, &err), 0);
	dfs_log_writer_free(lw);
	dfs_log *log = dfs_log_open_mem(out.data, out.len, "t", 0, &err);
	if (!log)
		fail_msg("%s", err.msg);
	dfs_buf_free(&out);
	return log;
}

/* the records of one log, in the order written */
static const struct wrec one[] = {
	/* out.0: ranks 0 and 1, 0 twice (a repeated pair) */
	{0, 0, 100, 0, 1, 0, 1.5, 0, 0.25, 3.0, 9.0, 0},
	{0, 1, 50, 10, 2, 1, 0.5, 0.5, 0.25, 2.0, 10.0, 0},
	{0, 0, 25, 0, 1, 0, 0.75, 0, 0, 0, 4.0, 0},
	/* out.1: shared (rank -1) */
	{0, -1, 0, 4096, 0, 8, 0, 12.0, 1.0, 1.0, 20.0, 6.5},
	/* the quoted name: as many bytes as out.0 (a tie: first seen first) */
	{0, 3, 175, 10, 0, 0, 0, 0, 0.125, 5.0, 6.0, 0},
	/* the two records of one name */
	{0, 2, 1, 0, 1, 0, 0.5, 0, 0, 0, 0, 0},
	{0, 2, 2, 0, 1, 0, 0.25, 0, 0, 0, 0, 0},
};
#define NONE (sizeof(one) / sizeof(one[0]))
static const int one_file[NONE] = {0, 0, 0, 1, 2, 3, 4};

static void fill_ids(struct wrec *w, const struct wrec *from, const int *file, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		w[i] = from[i];
		w[i].id = name_id(file[i]);
	}
}

/* Each row's length, told without rendering it, is what rendering it
 * writes, and the room it asks past that is enough: a buffer of that
 * much never moves. */
static void check_measure(const dfs_file_table *t)
{
	size_t room = dfs_file_table_row_room(t);
	uint64_t total = 0;
	for (size_t k = 0; k < t->n; k++) {
		uint64_t want = dfs_file_table_measure(t, k, k + 1);
		dfs_buf b = DFS_BUF_INIT;
		assert_true(dfs_buf_reserve(&b, (size_t)want + room));
		const char *data = b.data;
		dfs_file_table_render(t, k, k + 1, &b);
		assert_true(dfs_buf_ok(&b));
		assert_int_equal(b.len, want);
		assert_ptr_equal(b.data, data);
		dfs_buf_free(&b);
		total += want;
	}
	assert_int_equal(dfs_file_table_measure(t, 0, t->n), total);
	assert_int_equal(dfs_file_table_measure(t, 0, t->n + 9), total);
	dfs_buf all = DFS_BUF_INIT;
	dfs_file_table_render(t, 0, t->n, &all);
	assert_int_equal(all.len, total);
	dfs_buf_free(&all);
}

static char *render_files(const dfs_file_table *t)
{
	check_measure(t);
	dfs_buf b = DFS_BUF_INIT;
	dfs_file_table_header(&b);
	dfs_file_table_render(t, 0, t->n, &b);
	assert_true(dfs_buf_ok(&b));
	return dfs_buf_detach(&b, NULL);
}

/* The table made for its text (dfs_file_table_build_text) of the same
 * records renders the same text as t, and measures it right; its text */
static char *same_text(const dfs_log *log, const dfs_records *r, const size_t *index,
                       size_t count, const dfs_file_table *t)
{
	dfs_error err = {0};
	dfs_file_table text;
	assert_int_equal(dfs_file_table_build_text(log, r, index, count, NULL, &text, &err), 0);
	assert_false(t->text_only);
	assert_true(text.text_only);
	char *want = render_files(t), *got = render_files(&text);
	assert_string_equal(got, want);
	dfs_file_table_free(&text);
	free(got);
	return want;
}

static void test_file_table(void **state)
{
	(void)state;
	struct wrec w[NONE];
	fill_ids(w, one, one_file, NONE);
	dfs_log *log = write_log(4, 1000, DFS_MOD_POSIX, w, NONE);
	const dfs_records *r = dfs_log_records(log, DFS_MOD_POSIX);
	dfs_error err = {0};
	dfs_file_table t;
	assert_int_equal(dfs_file_table_build(log, r, NULL, r->count, NULL, &t, &err), 0);
	assert_true(t.timed);
	assert_int_equal(t.n, 5);
	/* most bytes first; out.0 and the quoted name both 185: first seen first */
	const dfs_file_row *a = dfs_file_table_row(&t, 0), *b = dfs_file_table_row(&t, 1),
	                   *c = dfs_file_table_row(&t, 2);
	assert_int_equal(a->id, name_id(1));
	assert_int_equal(a->total_bytes, 4096);
	assert_int_equal(a->ranks, 4);                /* shared: nprocs */
	assert_true(a->time_by_slowest == 6.5);       /* the shared record's slowest */
	assert_true(a->perf_by_slowest == (4096 / 1048576.0) / 6.5);
	assert_int_equal(b->id, name_id(0));
	assert_int_equal(b->total_bytes, 185);
	assert_int_equal(b->records, 3);
	assert_int_equal(b->ranks, 2);
	assert_int_equal(b->reads, 4);
	assert_int_equal(b->writes, 1);
	/* rank 0: (0.25 + 1.5 + 0) + (0 + 0.75 + 0) = 2.5 beats rank 1's 1.25 */
	assert_true(b->time_by_slowest == 2.5);
	assert_true(b->read_time == 1.5 + 0.5 + 0.75);
	assert_true(b->first_open == 2.0);            /* the smallest positive */
	assert_true(b->last_close == 10.0);
	assert_int_equal(c->id, name_id(2));
	assert_int_equal(c->total_bytes, 185);
	char *text = render_files(&t);
	/* the quoted name and its mount */
	assert_non_null(strstr(text, ",\"/home/u/in,\"\"x\"\"\nname\",1,1,175,10,0,0,185,0.125,"));
	assert_non_null(strstr(text, ",/home,nfs,,\n"));
	assert_non_null(strstr(text, ",/lus/a,lustre,,\n"));
	assert_int_equal(strncmp(text, "record_id,file_name,ranks,records,", 34), 0);
	free(text);
	/* a selection: the records of rank 0 only */
	size_t index[] = {0, 2};
	dfs_file_table s;
	assert_int_equal(dfs_file_table_build(log, r, index, 2, NULL, &s, &err), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(dfs_file_table_row(&s, 0)->total_bytes, 125);
	assert_int_equal(dfs_file_table_row(&s, 0)->ranks, 1);
	dfs_file_table_free(&s);
	/* an empty one */
	assert_int_equal(dfs_file_table_build(log, r, index, 0, NULL, &s, &err), 0);
	assert_int_equal(s.n, 0);
	dfs_file_table_free(&s);
	dfs_file_table_free(&t);
	dfs_log_free(log);
}

/* A log of the records of random_posix (grouped by rank or not), half of
 * its files named: each row of its files.csv is what a fresh accumulator
 * fed only that file's records gives. */
/* The table of t made again from a pool whose blocks held other bytes
 * (blocks of a fresh mapping are zero, kept ones are not): the same rows,
 * order and lengths. */
static void check_dirty_pool(const dfs_log *log, const dfs_records *r, const dfs_file_table *t)
{
	dfs_scratch pool;
	dfs_scratch_init(&pool);
	size_t sizes[] = {r->count * sizeof(dfs_file_row), r->count * 32, r->count * 16,
	                  r->count * 4, r->count * 4, dfs_log_name_count(log) * 4};
	void *b[sizeof(sizes) / sizeof(sizes[0])];
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		b[i] = dfs_scratch_alloc(&pool, sizes[i] + 1);
		assert_non_null(b[i]);
		memset(b[i], 0xa5, sizes[i] + 1);
	}
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		dfs_scratch_free(&pool, b[i]);
	dfs_error err = {0};
	dfs_file_table u;
	assert_int_equal(dfs_file_table_build(log, r, NULL, r->count, &pool, &u, &err), 0);
	assert_int_equal(u.n, t->n);
	for (size_t k = 0; k < t->n; k++) {
		assert_memory_equal(dfs_file_table_row(&u, k), dfs_file_table_row(t, k),
		                    sizeof(dfs_file_row));
		assert_int_equal(u.len[k], t->len[k]);
	}
	dfs_file_table_free(&u);
	dfs_scratch_destroy(&pool);
}

/* A log of n POSIX records (recs) of ids 1000 + k, k < files, of a job
 * of nprocs ranks; the even k named. */
/* A log of the n records; files: every other one named (ids 1000 +
 * even), or (all_named) every id, 999 first, in the order of the ids */
static dfs_log *posix_log_named(const unsigned char *recs, size_t n, size_t files,
                                int64_t nprocs, bool all_named)
{
	const dfs_module *m = dfs_module_get(DFS_MOD_POSIX);
	dfs_error err = {0};
	dfs_buf out = DFS_BUF_INIT;
	dfs_write_options opt = {DFS_COMP_ZLIB, 1, 1};
	dfs_log_writer *lw = dfs_log_writer_buf(&out, &opt, &err);
	assert_non_null(lw);
	dfs_job job;
	memset(&job, 0, sizeof(job));
	job.nprocs = nprocs;
	job.start_sec = 1000;
	job.end_sec = 1100;
	job.exe = (char *)"/bin/app";
	job.metadata = (char *)"";
	dfs_mount mounts[] = {{"/lus/a", "lustre", 6}};
	assert_int_equal(dfs_log_writer_job(lw, &job, mounts, 1, &err), 0);
	if (all_named)
		assert_int_equal(dfs_log_writer_name(lw, 999, "/lus/a/tie", 10, &err), 0);
	for (size_t k = 0; k < files; k += all_named ? 1 : 2) {
		char name[32];
		int len = snprintf(name, sizeof(name), "/lus/a/f%zu", k);
		assert_int_equal(dfs_log_writer_name(lw, 1000 + k, name, (size_t)len, &err), 0);
	}
	assert_int_equal(dfs_log_writer_module_begin(lw, DFS_MOD_POSIX, 0, &err), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(dfs_log_writer_record(lw, recs + i * m->record_size,
		                                       m->record_size, &err), 0);
	assert_int_equal(dfs_log_writer_module_end(lw, &err), 0);
	assert_int_equal(dfs_log_writer_finish(lw, 0, &err), 0);
	dfs_log_writer_free(lw);
	dfs_log *log = dfs_log_open_mem(out.data, out.len, "t", 0, &err);
	assert_non_null(log);
	dfs_buf_free(&out);
	return log;
}

static dfs_log *posix_log(const unsigned char *recs, size_t n, size_t files, int64_t nprocs)
{
	return posix_log_named(recs, n, files, nprocs, false);
}

static const unsigned char *by_id_recs;
static size_t by_id_size;

static int by_id(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	uint64_t x, y;
	memcpy(&x, by_id_recs + i * by_id_size, 8);
	memcpy(&y, by_id_recs + j * by_id_size, 8);
	return x < y ? -1 : x > y ? 1 : i < j ? -1 : i > j;
}

/* The places of the records in the order of their ids (each id's in
 * their order) */
static size_t *places_by_id(const unsigned char *recs, size_t n, size_t size)
{
	size_t *at = malloc((n ? n : 1) * sizeof(size_t));
	assert_non_null(at);
	for (size_t i = 0; i < n; i++)
		at[i] = i;
	by_id_recs = recs;
	by_id_size = size;
	qsort(at, n, sizeof(size_t), by_id);
	return at;
}

/* The records in the order of their ids (each id's in their order) */
static void sort_by_id(unsigned char *recs, size_t n, size_t size)
{
	size_t *at = places_by_id(recs, n, size);
	unsigned char *copy = malloc(n * size);
	assert_non_null(copy);
	for (size_t i = 0; i < n; i++)
		memcpy(copy + i * size, recs + at[i] * size, size);
	memcpy(recs, copy, n * size);
	free(copy);
	free(at);
}

/* (wide: ranks from 2 on made r * 2^40, far outside the job and apart
 * in their high bits alone) */
/* How check_table_alone orders the records: in no order (every other
 * id named), or every id named and the records in the order of the name
 * table, all of them, or but one moved far ahead of its place (left out
 * of a sample of every 64th), or with one id without a name among them */
enum { NO_ORDER, BY_NAME, BY_NAME_BUT_ONE, BY_NAME_AND_UNNAMED };

static void check_table_alone(size_t n, size_t files, int64_t nprocs, uint64_t seed,
                              bool grouped, bool wide, int order)
{
	const dfs_module *m = dfs_module_get(DFS_MOD_POSIX);
	unsigned char *recs = random_posix(n, files, nprocs, seed);
	size_t size = m->record_size;
	if (grouped)
		group_by_rank(recs, n, size);
	bool by_name = order != NO_ORDER;
	if (by_name)
		sort_by_id(recs, n, size);
	if (order == BY_NAME_BUT_ONE && n > 2000) {
		/* the record before the last to place 1001 */
		unsigned char *tmp = malloc(size);
		assert_non_null(tmp);
		memcpy(tmp, recs + (n - 2) * size, size);
		memmove(recs + 1002 * size, recs + 1001 * size, (n - 2 - 1001) * size);
		memcpy(recs + 1001 * size, tmp, size);
		free(tmp);
	}
	if (order == BY_NAME_AND_UNNAMED && n > 2000) {
		uint64_t unnamed = 5;
		memcpy(recs + 2001 * size, &unnamed, 8);
	}
	for (size_t i = 0; wide && i < n; i++) {
		int64_t rank = rank_of(recs + i * m->record_size);
		if (rank >= 2)
			rank *= (int64_t)1 << 40;
		memcpy(recs + i * m->record_size + 8, &rank, 8);
	}
	dfs_error err = {0};
	dfs_log *log = posix_log_named(recs, n, files, nprocs, by_name);
	const dfs_records *r = dfs_log_records(log, DFS_MOD_POSIX);
	dfs_file_table t;
	assert_int_equal(dfs_file_table_build(log, r, NULL, r->count, NULL, &t, &err), 0);
	assert_true(t.timed);
	unsigned char *mine = malloc(n * m->record_size);
	assert_non_null(mine);
	/* the records' places by id (each id's in their order): a row's
	 * records are a run of them, found by a binary search */
	size_t *by = places_by_id(recs, n, m->record_size);
	size_t total = 0, last_first = 0;
	for (size_t k = 0; k < t.n; k++) {
		const dfs_file_row *row = dfs_file_table_row(&t, k);
		size_t c = 0, first = n;
		bool shared = false;
		int64_t seen[64];
		size_t nseen = 0;
		size_t lo = 0, hi = n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			uint64_t id;
			memcpy(&id, recs + by[mid] * m->record_size, 8);
			if (id < row->id)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t j = lo; j < n; j++) {
			size_t i = by[j];
			const unsigned char *rec = recs + i * m->record_size;
			uint64_t id;
			memcpy(&id, rec, 8);
			if (id != row->id)
				break;
			if (c == 0)
				first = i;
			memcpy(mine + c++ * m->record_size, rec, m->record_size);
			int64_t rank = rank_of(rec);
			bool dup = rank < 0;
			shared |= rank < 0;
			for (size_t x = 0; x < nseen; x++)
				dup |= seen[x] == rank;
			if (!dup && nseen < 64)
				seen[nseen++] = rank;
		}
		total += c;
		assert_int_equal(row->records, (int64_t)c);
		/* most bytes first, equals in the order first seen */
		if (k > 0) {
			const dfs_file_row *before = dfs_file_table_row(&t, k - 1);
			assert_true(before->total_bytes > row->total_bytes ||
			            (before->total_bytes == row->total_bytes && last_first < first));
		}
		last_first = first;
		dfs_accum *alone = dfs_accum_create(m, nprocs, &err);
		assert_non_null(alone);
		assert_int_equal(dfs_accum_inject(alone, m, mine, c, &err), 0);
		dfs_derived_metrics want;
		assert_int_equal(dfs_accum_emit(alone, &want, NULL, &err), 0);
		dfs_accum_free(alone);
		assert_int_equal(row->total_bytes, want.total_bytes);
		assert_int_equal(row->bytes_read,
		                 want.category_counters[DFS_ALL_FILES].total_read_volume_bytes);
		assert_memory_equal(&row->time_by_slowest, &want.agg_time_by_slowest, sizeof(double));
		assert_memory_equal(&row->perf_by_slowest, &want.agg_perf_by_slowest, sizeof(double));
		assert_int_equal(row->ranks, shared ? nprocs : (int64_t)nseen);
	}
	assert_int_equal(total, n);
	check_measure(&t);
	free(same_text(log, r, NULL, r->count, &t));
	check_dirty_pool(log, r, &t);
	dfs_file_table_free(&t);
	dfs_log_free(log);
	free(by);
	free(mine);
	free(recs);
}

/* A table made for its text keeps its double columns' digits from the
 * measuring: the same text as the table that keeps their values, for
 * every kind of double (plain decimals, integers below and above 2^53,
 * zero, negatives, NaN, infinities, exponents past what is kept), and
 * each row's length is still what rendering it writes. */
static void test_text_table(void **state)
{
	(void)state;
	static const struct wrec odd[] = {
		{0, 0, 100, 0, 1, 0, 72.85906808518985, 0.0128, 0.1344, 774.3057316976735,
		 787.565890078715, 0},
		{0, 1, 0, 5, 0, 1, 1e-300, 1e300, 0.0009000000000000001, 3.0, 1152921504606846976.0,
		 0},
		{0, 0, 7, 7, 1, 1, -0.25, -1.5e-7, 0, 0.30000000000000004, 1e-5, 0},
		{0, 2, 3, 0, 1, 0, NAN, INFINITY, -INFINITY, 1e16, 123456789012.5, 0},
		{0, -1, 9, 9, 2, 2, 0.5, 2.5, 1e-64, 1e-65, 9.999999999999999e62, 4.25},
		{0, 3, 1, 1, 1, 1, 5e-324, 1.7976931348623157e308, -0.0, 1e63, 1e64, 0},
	};
	static const int odd_file[] = {0, 0, 1, 1, 2, 3};
	struct wrec w[6];
	fill_ids(w, odd, odd_file, 6);
	dfs_log *log = write_log(4, 1000, DFS_MOD_POSIX, w, 6);
	const dfs_records *r = dfs_log_records(log, DFS_MOD_POSIX);
	dfs_error err = {0};
	dfs_file_table values;
	assert_int_equal(dfs_file_table_build(log, r, NULL, r->count, NULL, &values, &err), 0);
	char *want = same_text(log, r, NULL, r->count, &values);
	/* (some digits were kept, and some values stayed) */
	assert_non_null(strstr(want, ",72.85906808518985,"));
	assert_non_null(strstr(want, ",1e-64,1e-65,9.999999999999999e+62,"));
	assert_non_null(strstr(want, ",5e-324,1.7976931348623157e+308,0,1e+63,1e+64,"));
	assert_non_null(strstr(want, ",nan,inf,-inf,"));
	free(want);
	dfs_file_table_free(&values);
	/* a selection of them, and untimed (H5D: no accumulator) */
	size_t index[] = {1, 3, 5};
	assert_int_equal(dfs_file_table_build(log, r, index, 3, NULL, &values, &err), 0);
	free(same_text(log, r, index, 3, &values));
	dfs_file_table_free(&values);
	dfs_log_free(log);
	log = write_log(4, 1000, DFS_MOD_H5D, w, 6);
	r = dfs_log_records(log, DFS_MOD_H5D);
	assert_int_equal(dfs_file_table_build(log, r, NULL, r->count, NULL, &values, &err), 0);
	assert_false(values.timed);
	free(same_text(log, r, NULL, r->count, &values));
	dfs_file_table_free(&values);
	dfs_log_free(log);
}

static void test_table_alone(void **state)
{
	(void)state;
	check_table_alone(400, 37, 6, 11, false, false, NO_ORDER);
	check_table_alone(400, 37, 6, 12, true, false, NO_ORDER);
	check_table_alone(50, 3, 2, 13, false, false, NO_ORDER);
	check_table_alone(400, 37, 6, 15, false, true, NO_ORDER);
	check_table_alone(400, 37, 6, 16, false, false, BY_NAME);
	/* enough records for the pass on two threads (the files of shares of
	 * the name table taken as they come, the unnamed ones by their hash;
	 * records in no order listed by share), then records following the
	 * name table (each share a stretch of them), with many files of few
	 * records, and with a few files of many; then records the sample
	 * finds in order but one, whose stretches are tried first, then
	 * listed */
	check_table_alone(66000, 64, 8, 14, false, false, NO_ORDER);
	check_table_alone(66000, 5000, 8, 17, false, false, BY_NAME);
	check_table_alone(70000, 40, 8, 18, false, false, BY_NAME);
	check_table_alone(66000, 5000, 8, 19, false, false, BY_NAME_BUT_ONE);
	check_table_alone(66000, 5000, 8, 20, false, false, BY_NAME_AND_UNNAMED);
}

/* Many files of equal bytes on both threads' halves (a few byte counts
 * shared by thousands of files): most bytes first, equals in the order
 * first seen across the halves, every record in one row, the lengths
 * what rendering writes. */
static void test_table_ties(void **state)
{
	(void)state;
	const dfs_module *m = dfs_module_get(DFS_MOD_POSIX);
	size_t n = 66000, files = 20000;
	unsigned char *recs = random_posix(n, files, 8, 21);
	uint64_t seed = 5;
	for (size_t i = 0; i < n; i++) {
		unsigned char *rec = recs + i * m->record_size;
		set_i(m, rec, "POSIX_BYTES_READ", (int64_t)(next_rand(&seed) % 3) << 40);
		set_i(m, rec, "POSIX_BYTES_WRITTEN", 0);
	}
	dfs_log *log = posix_log(recs, n, files, 8);
	const dfs_records *r = dfs_log_records(log, DFS_MOD_POSIX);
	dfs_error err = {0};
	dfs_file_table t;
	assert_int_equal(dfs_file_table_build(log, r, NULL, r->count, NULL, &t, &err), 0);
	int64_t total = 0;
	size_t ties = 0;
	for (size_t k = 0; k < t.n; k++) {
		const dfs_file_row *row = dfs_file_table_row(&t, k);
		total += row->records;
		/* (its first record has its id) */
		uint64_t id;
		memcpy(&id, recs + row->first * m->record_size, 8);
		assert_int_equal(id, row->id);
		if (k == 0)
			continue;
		const dfs_file_row *before = dfs_file_table_row(&t, k - 1);
		assert_true(before->total_bytes >= row->total_bytes);
		if (before->total_bytes == row->total_bytes) {
			assert_true(before->first < row->first);
			ties++;
		}
	}
	assert_int_equal(total, (int64_t)n);
	assert_true(ties > t.n / 2);
	check_measure(&t);
	dfs_file_table_free(&t);
	dfs_log_free(log);
	free(recs);
}

/* A selection of many records (an index, as a filter gives) makes the
 * same table as a log of only those records: the same rows in the same
 * order, their first records the selected ones; with the records in no
 * order (listed by share), then following the name table (stretches). */
static void check_selection_table(bool by_name)
{
	const dfs_module *m = dfs_module_get(DFS_MOD_POSIX);
	size_t size = m->record_size, n = 140000, files = 9000;
	unsigned char *recs = random_posix(n, files, 8, 23);
	if (by_name)
		sort_by_id(recs, n, size);
	size_t *index = malloc(n * sizeof(size_t));
	unsigned char *chosen = malloc(n * size);
	assert_non_null(index);
	assert_non_null(chosen);
	size_t count = 0;
	uint64_t seed = 9;
	for (size_t i = 0; i < n; i++)
		if (next_rand(&seed) % 2) {
			memcpy(chosen + count * size, recs + i * size, size);
			index[count++] = i;
		}
	assert_true(count >= 65536);   /* (the two threads' way) */
	dfs_log *all = posix_log_named(recs, n, files, 8, by_name);
	dfs_log *some = posix_log_named(chosen, count, files, 8, by_name);
	const dfs_records *ra = dfs_log_records(all, DFS_MOD_POSIX);
	const dfs_records *rs = dfs_log_records(some, DFS_MOD_POSIX);
	dfs_error err = {0};
	dfs_file_table ta, ts;
	assert_int_equal(dfs_file_table_build_text(all, ra, index, count, NULL, &ta, &err), 0);
	assert_int_equal(dfs_file_table_build_text(some, rs, NULL, rs->count, NULL, &ts, &err), 0);
	assert_int_equal(ta.n, ts.n);
	for (size_t k = 0; k < ta.n; k++) {
		const dfs_file_row *a = dfs_file_table_row(&ta, k), *b = dfs_file_table_row(&ts, k);
		assert_int_equal(a->id, b->id);
		assert_int_equal(a->first, index[b->first]);
		assert_int_equal(a->records, b->records);
		assert_int_equal(a->ranks, b->ranks);
		assert_int_equal(a->bytes_read, b->bytes_read);
		assert_int_equal(a->total_bytes, b->total_bytes);
		assert_memory_equal(&a->time_by_slowest, &b->time_by_slowest, sizeof(double));
		assert_memory_equal(&a->read_time, &b->read_time, 5 * sizeof(double));
		assert_int_equal(ta.len[k], ts.len[k]);
	}
	dfs_file_table_free(&ta);
	dfs_file_table_free(&ts);
	dfs_log_free(all);
	dfs_log_free(some);
	free(chosen);
	free(index);
	free(recs);
}

static void test_selection_table(void **state)
{
	(void)state;
	check_selection_table(false);
	check_selection_table(true);
}

static void test_untimed(void **state)
{
	(void)state;
	/* H5D: no accumulator in darshan-util: no time_by_slowest */
	struct wrec w[NONE];
	fill_ids(w, one, one_file, NONE);
	dfs_log *log = write_log(4, 1000, DFS_MOD_H5D, w, NONE);
	const dfs_records *r = dfs_log_records(log, DFS_MOD_H5D);
	assert_non_null(r);
	assert_true(dfs_tables_module(r->module));
	dfs_error err = {0};
	dfs_file_table t;
	assert_int_equal(dfs_file_table_build(log, r, NULL, r->count, NULL, &t, &err), 0);
	assert_false(t.timed);
	assert_int_equal(t.n, 5);
	assert_int_equal(dfs_file_table_row(&t, 0)->ranks, 4);
	assert_int_equal(dfs_file_table_row(&t, 1)->ranks, 2);
	char *text = render_files(&t);
	/* total_bytes, then two empty cells, then read_time */
	assert_non_null(strstr(text, ",4096,,,0,12,1,1,20,"));
	free(text);
	dfs_file_table_free(&t);
	/* modules without per-file tables */
	assert_false(dfs_tables_module(dfs_module_get(DFS_MOD_LUSTRE)));
	assert_false(dfs_tables_module(dfs_module_get(DFS_MOD_DXT_POSIX)));
	assert_false(dfs_tables_module(dfs_module_get(DFS_MOD_HEATMAP)));
	assert_false(dfs_tables_module(NULL));
	dfs_log_free(log);
}

static void test_rank_table(void **state)
{
	(void)state;
	struct wrec w[NONE];
	fill_ids(w, one, one_file, NONE);
	dfs_log *log = write_log(4, 1000, DFS_MOD_POSIX, w, NONE);
	const dfs_records *r = dfs_log_records(log, DFS_MOD_POSIX);
	dfs_error err = {0};
	dfs_rank_table t;
	assert_int_equal(dfs_rank_table_build(log, r, NULL, r->count, NULL, &t, &err), 0);
	assert_int_equal(t.n, 5);
	int64_t want_rank[] = {-1, 0, 1, 2, 3};
	for (size_t k = 0; k < t.n; k++)
		assert_int_equal(t.rows[k].rank, want_rank[k]);
	assert_int_equal(t.rows[1].records, 2);
	assert_int_equal(t.rows[1].files, 1);         /* one file, two records */
	assert_int_equal(t.rows[3].files, 2);         /* two ids of one name */
	assert_true(t.rows[1].io_time == (0.25 + 1.5 + 0.0) + (0.0 + 0.75 + 0.0));
	assert_true(t.slowest == t.rows[1].io_time);
	dfs_buf b = DFS_BUF_INIT;
	dfs_rank_table_header(&b);
	dfs_rank_table_render(&t, 0, t.n, &b);
	assert_true(dfs_buf_ok(&b));
	/* rank -1 has no share; the slowest rank's is 1 */
	assert_non_null(strstr(b.data, "\n-1,1,1,0,4096,0,8,0,12,1,13,\n"));
	assert_non_null(strstr(b.data, "\n0,2,1,125,0,2,0,2.25,0,0.25,2.5,1\n"));
	dfs_buf_free(&b);
	dfs_rank_table_free(&t);
	dfs_log_free(log);
}

/* ---- a directory's files.csv ------------------------------------------------- */

static dfs_log_files *files_of(dfs_log *log, int mod)
{
	const dfs_records *r = dfs_log_records(log, mod);
	dfs_error err = {0};
	dfs_file_table t;
	assert_int_equal(dfs_file_table_build(log, r, NULL, r->count, NULL, &t, &err), 0);
	dfs_log_files *lf = dfs_log_files_new();
	assert_int_equal(dfs_log_files_add(lf, &t), 0);
	dfs_file_table_free(&t);
	return lf;
}

/* Values no run can have measured are left out of a directory's sums,
 * and counted: a negative time or byte count (-1 is "not kept"), a time
 * above nprocs x run time. */
static void test_merge_implausible(void **state)
{
	(void)state;
	static const struct wrec bad[] = {
		/* out.0: 100 bytes read, a read time of -5 s */
		{0, 0, 100, 0, 1, 0, -5.0, 0, 0.25, 3.0, 9.0, 0},
		/* out.0 again: bytes written "not kept", 2 s of reading */
		{0, 1, 10, -1, 1, 0, 2.0, 0, 0.5, 3.0, 9.0, 0},
		/* out.1: more metadata time than 4 processes x 100 s */
		{0, 2, 7, 0, 1, 0, 1.0, 0, 401.0, 3.0, 9.0, 0},
	};
	static const int bad_file[] = {0, 0, 1};
	struct wrec w[3];
	fill_ids(w, bad, bad_file, 3);
	dfs_log *log = write_log(4, 1000, DFS_MOD_POSIX, w, 3);
	dfs_log_files *lf = files_of(log, DFS_MOD_POSIX);
	dfs_error err = {0};
	dfs_files_merge *fm = dfs_files_merge_new(0);
	assert_int_equal(dfs_files_merge_add(fm, "a.darshan", 1000, lf, &err), 0);
	dfs_buf out = DFS_BUF_INIT;
	assert_int_equal(dfs_files_merge_render(fm, &out, &err), 0);
	assert_true(dfs_buf_ok(&out));
	/* out.0 (the log's row: its records summed): bytes read 110, its
	 * bytes written (-1) and total left out; its read time (-3) too; time
	 * by the slowest rank: rank 1's 2.5 (rank 0's -4.75 is not the
	 * slowest): three values left out */
	assert_non_null(strstr(out.data, "\nPOSIX,/lus/a/out.0,1,110,0,2,0,0,2.5,0,0,0,0.75,"));
	assert_non_null(strstr(out.data, ",/lus/a,lustre,,3\n"));
	/* out.1: its metadata time and the time by the slowest rank made of
	 * it left out */
	assert_non_null(strstr(out.data, "\nPOSIX,/lus/a/out.1,1,7,0,1,0,7,0,0,1,0,0,"));
	assert_non_null(strstr(out.data, ",/lus/a,lustre,,2\n"));
	dfs_buf_free(&out);
	dfs_files_merge_free(fm);
	dfs_log_files_free(lf);
	dfs_log_free(log);
}

static void test_merge(void **state)
{
	(void)state;
	struct wrec w[NONE];
	fill_ids(w, one, one_file, NONE);
	dfs_log *early = write_log(4, 1000, DFS_MOD_POSIX, w, NONE);
	dfs_log *late = write_log(4, 2000, DFS_MOD_POSIX, w, 2);   /* out.0 only */
	dfs_log_files *a = files_of(early, DFS_MOD_POSIX);
	dfs_log_files *b = files_of(late, DFS_MOD_POSIX);
	/* the two ids of one name are one file of the log */
	assert_int_equal(dfs_log_files_count(a), 4);
	assert_int_equal(dfs_log_files_count(b), 1);
	assert_true(dfs_log_files_memory(a) > 0);
	assert_int_equal(dfs_log_files_error(b, DFS_MOD_STDIO, "STDIO: unable to inflate"), 0);
	dfs_error err = {0};
	dfs_files_merge *fm = dfs_files_merge_new(0);
	assert_int_equal(dfs_files_merge_add(fm, "x/late.darshan", 2000, b, &err), 0);
	assert_int_equal(dfs_files_merge_add(fm, "y/early.darshan", 1000, a, &err), 0);
	assert_int_equal(dfs_files_merge_skip(fm, "z/bad.darshan", "truncated header", &err), 0);
	dfs_buf out = DFS_BUF_INIT;
	assert_int_equal(dfs_files_merge_render(fm, &out, &err), 0);
	/* out.0: two jobs, its bytes summed, the earliest and the latest job */
	char want[512];
	assert_non_null(strstr(out.data, "\nPOSIX,/lus/a/out.1,1,0,4096,0,8,4096,6.5,"));
	assert_non_null(strstr(out.data, ",/lus/a/out.0,2,"));
	snprintf(want, sizeof(want), ",y/early.darshan,1000,x/late.darshan,2000,/lus/a,lustre,,0\n");
	assert_non_null(strstr(out.data, want));
	assert_non_null(strstr(out.data, "\nPOSIX,/lus/a/same,1,3,0,2,0,3,"));
	/* what was left out, last */
	assert_non_null(strstr(out.data, "\nSTDIO,,,,,,,,,,,,,x/late.darshan,,x/late.darshan,,,,"
	                                 "STDIO: unable to inflate,\n"));
	assert_non_null(strstr(out.data, "\n,,,,,,,,,,,,,z/bad.darshan,,z/bad.darshan,,,,"
	                                 "truncated header,\n"));
	assert_int_equal(strncmp(out.data, "module,file_name,jobs,", 22), 0);
	/* a log's files as a store would keep them and give them back */
	dfs_log_files *copy = dfs_log_files_new();
	for (size_t i = 0; i < dfs_log_files_count(b); i++) {
		dfs_log_file f;
		dfs_log_files_get(b, i, &f);
		assert_int_equal(dfs_log_files_put(copy, &f), 0);
	}
	assert_int_equal(dfs_log_files_errors(b), 1);
	int module = -2;
	const char *why = dfs_log_files_error_at(b, 0, &module);
	assert_string_equal(why, "STDIO: unable to inflate");
	assert_int_equal(module, DFS_MOD_STDIO);
	assert_null(dfs_log_files_error_at(b, 1, &module));
	assert_int_equal(dfs_log_files_error(copy, module, why), 0);
	dfs_files_merge *again = dfs_files_merge_new(0);
	assert_int_equal(dfs_files_merge_add(again, "x/late.darshan", 2000, copy, &err), 0);
	assert_int_equal(dfs_files_merge_add(again, "y/early.darshan", 1000, a, &err), 0);
	assert_int_equal(dfs_files_merge_skip(again, "z/bad.darshan", "truncated header", &err), 0);
	dfs_buf out2 = DFS_BUF_INIT;
	assert_int_equal(dfs_files_merge_render(again, &out2, &err), 0);
	assert_string_equal(out.data, out2.data);
	dfs_buf_free(&out2);
	dfs_files_merge_free(again);
	dfs_log_files_free(copy);
	dfs_buf_free(&out);
	dfs_files_merge_free(fm);
	/* a bound on its memory */
	fm = dfs_files_merge_new(64);
	assert_int_equal(dfs_files_merge_add(fm, "y/early.darshan", 1000, a, &err), -1);
	assert_int_equal(err.code, DFS_ERR_TOOBIG);
	assert_non_null(strstr(err.msg, "cache_size"));
	dfs_files_merge_free(fm);
	dfs_log_files_free(a);
	dfs_log_files_free(b);
	dfs_log_free(early);
	dfs_log_free(late);
}

/* a log's files packed as the index keeps them: read back, they merge
 * into the same bytes; cut or damaged bytes are refused */
static void test_files_pack(void **state)
{
	(void)state;
	struct wrec w[NONE];
	fill_ids(w, one, one_file, NONE);
	dfs_log *log = write_log(4, 1000, DFS_MOD_POSIX, w, NONE);
	dfs_log_files *a = files_of(log, DFS_MOD_POSIX);
	assert_int_equal(dfs_log_files_error(a, DFS_MOD_STDIO, "STDIO: unable to inflate"), 0);
	dfs_buf packed = DFS_BUF_INIT;
	dfs_log_files_pack(a, &packed);
	assert_true(dfs_buf_ok(&packed));
	dfs_log_files *b = dfs_log_files_unpack(packed.data, packed.len);
	assert_non_null(b);
	assert_int_equal(dfs_log_files_count(b), dfs_log_files_count(a));
	assert_int_equal(dfs_log_files_errors(b), 1);
	for (size_t i = 0; i < dfs_log_files_count(a); i++) {
		dfs_log_file x, y;
		dfs_log_files_get(a, i, &x);
		dfs_log_files_get(b, i, &y);
		assert_int_equal(x.module, y.module);
		assert_int_equal(x.timed, y.timed);
		assert_int_equal(x.name_len, y.name_len);
		assert_memory_equal(x.name, y.name, x.name_len);
		assert_int_equal(x.mount_len, y.mount_len);
		assert_memory_equal(x.mount_pt, y.mount_pt, x.mount_len);
		assert_int_equal(x.fs_len, y.fs_len);
		assert_memory_equal(x.fs_type, y.fs_type, x.fs_len);
		assert_int_equal(x.bytes_read, y.bytes_read);
		assert_int_equal(x.bytes_written, y.bytes_written);
		assert_int_equal(x.reads, y.reads);
		assert_int_equal(x.writes, y.writes);
		assert_int_equal(x.total_bytes, y.total_bytes);
		assert_int_equal(x.left_out, y.left_out);
		assert_memory_equal(&x.time_by_slowest, &y.time_by_slowest, sizeof(double));
		assert_memory_equal(&x.read_time, &y.read_time, sizeof(double));
		assert_memory_equal(&x.write_time, &y.write_time, sizeof(double));
		assert_memory_equal(&x.meta_time, &y.meta_time, sizeof(double));
	}
	dfs_buf out[2] = {DFS_BUF_INIT, DFS_BUF_INIT};
	dfs_log_files *lf[2] = {a, b};
	for (int k = 0; k < 2; k++) {
		dfs_error err = {0};
		dfs_files_merge *fm = dfs_files_merge_new(0);
		assert_int_equal(dfs_files_merge_add(fm, "x/a.darshan", 1000, lf[k], &err), 0);
		assert_int_equal(dfs_files_merge_render(fm, &out[k], &err), 0);
		dfs_files_merge_free(fm);
	}
	assert_string_equal(out[0].data, out[1].data);
	assert_non_null(strstr(out[1].data, "STDIO: unable to inflate"));
	/* every cut of the bytes is refused, and so are bytes past the end */
	for (size_t cut = 0; cut < packed.len; cut++)
		assert_null(dfs_log_files_unpack(packed.data, cut));
	dfs_buf_addc(&packed, 0);
	assert_null(dfs_log_files_unpack(packed.data, packed.len));
	dfs_buf_free(&out[0]);
	dfs_buf_free(&out[1]);
	dfs_buf_free(&packed);
	dfs_log_files_free(a);
	dfs_log_files_free(b);
	dfs_log_free(log);
}

/* ---- through a view ------------------------------------------------------ */

static void synth_log(const char *path, uint64_t seed, size_t records)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	dfs_error err = {0};
	dfs_write_options wo = {.level = 1, .threads = 1};
	dfs_log_writer *w = dfs_log_writer_fd(fd, &wo, &err);
	assert_non_null(w);
	dfs_synth_options so = {.seed = seed, .records = records, .nprocs = 8};
	dfs_synth_defaults(&so);
	if (dfs_synth_write(w, &so, &err) != 0)
		fail_msg("synth: %s", err.msg);
	dfs_log_writer_free(w);
	assert_int_equal(close(fd), 0);
}

static char *view_read(dfs_view *v, const char *path, size_t *len, dfs_error *err)
{
	dfs_snapshot *c = dfs_view_open_file(v, path, NULL, err);
	if (!c)
		return NULL;
	size_t size = (size_t)dfs_snapshot_size(c);
	char *text = malloc(size + 1);
	assert_non_null(text);
	size_t done = 0;
	long n = 0;
	while (done < size && (n = dfs_snapshot_read(c, text + done, size - done, done, err)) > 0)
		done += (size_t)n;
	assert_int_equal(done, size);
	text[size] = '\0';
	dfs_snapshot_release(c);
	*len = size;
	return text;
}

static size_t lines(const char *t)
{
	size_t n = 0;
	for (; *t; t++)
		n += *t == '\n';
	return n;
}

struct names {
	char seen[16][32];
	size_t n;
};

static int collect(void *ctx, const char *name, const dfs_node_stat *st)
{
	(void)st;
	struct names *ns = ctx;
	if (ns->n < 16)
		snprintf(ns->seen[ns->n++], 32, "%s", name);
	return 0;
}

static bool listed(dfs_view *v, const char *dir, const char *name)
{
	struct names ns = {.n = 0};
	dfs_error err = {0};
	assert_int_equal(dfs_view_readdir(v, dir, NULL, collect, &ns, &err), 0);
	for (size_t i = 0; i < ns.n; i++)
		if (strcmp(ns.seen[i], name) == 0)
			return true;
	return false;
}

static void test_view(void **state)
{
	(void)state;
	char dir[] = "/tmp/dfs-test-tables-XXXXXX", a[96], b[96];
	assert_non_null(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/a.darshan", dir);
	snprintf(b, sizeof(b), "%s/b.darshan", dir);
	synth_log(a, 1, 400);
	synth_log(b, 2, 400);
	dfs_error err = {0};
	dfs_view *v = dfs_view_new(dir, NULL, &err);
	assert_non_null(v);
	assert_true(listed(v, "/", "files.csv"));
	assert_true(listed(v, "/a.darshan/POSIX", "files.csv"));
	assert_true(listed(v, "/a.darshan/POSIX", "ranks.csv"));
	assert_true(listed(v, "/a.darshan/STDIO", "ranks.csv"));
	/* the size told is the size read */
	dfs_node_stat st;
	assert_int_equal(dfs_view_stat(v, "/a.darshan/POSIX/files.csv", NULL, &st, NULL, &err), 0);
	size_t len, dlen;
	char *all = view_read(v, "/a.darshan/POSIX/files.csv", &len, &err);
	assert_non_null(all);
	assert_int_equal(st.size, len);
	/* a filter: fewer rows, and the directory's table follows */
	char *dall = view_read(v, "/files.csv", &dlen, &err);
	assert_non_null(dall);
	dfs_write *w = dfs_view_open_write(v, "/a.darshan/POSIX/filter", NULL, true, &err);
	assert_non_null(w);
	assert_int_equal(dfs_write_data(w, "rank == 0", 9, 0, &err), 0);
	assert_int_equal(dfs_write_flush(w, &err), 0);
	dfs_write_free(w);
	char *some = view_read(v, "/a.darshan/POSIX/files.csv", &len, &err);
	assert_non_null(some);
	assert_true(lines(some) > 1 && lines(some) < lines(all));
	char *ranks = view_read(v, "/a.darshan/POSIX/ranks.csv", &len, &err);
	assert_non_null(ranks);
	assert_int_equal(lines(ranks), 2);              /* the header and rank 0 */
	assert_int_equal(strncmp(strchr(ranks, '\n') + 1, "0,", 2), 0);
	char *dsome = view_read(v, "/files.csv", &dlen, &err);
	assert_non_null(dsome);
	assert_true(strcmp(dall, dsome) != 0);
	free(all);
	free(some);
	free(ranks);
	free(dall);
	free(dsome);
	dfs_view_free(v);
	/* a cache too small for the merged table of the directory */
	dfs_view_options opt = {.cache_size = 16 << 10};
	v = dfs_view_new(dir, &opt, &err);
	assert_non_null(v);
	err = (dfs_error){0};
	assert_null(view_read(v, "/files.csv", &len, &err));
	assert_int_equal(err.code, DFS_ERR_TOOBIG);
	/* the module tables do not depend on it */
	all = view_read(v, "/b.darshan/POSIX/files.csv", &len, &err);
	assert_non_null(all);
	free(all);
	dfs_view_free(v);
	assert_int_equal(unlink(a), 0);
	assert_int_equal(unlink(b), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* files.csv of more files than the view renders at once (rendered on
 * demand, batch by batch, from the lengths measured with the table): its
 * size, its text read whole and read backwards in odd pieces are the
 * table's own text. */
static void test_view_many_files(void **state)
{
	(void)state;
	char dir[] = "/tmp/dfs-test-tables-XXXXXX", a[96];
	assert_non_null(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/a.darshan", dir);
	synth_log(a, 5, 60000);
	dfs_error err = {0};
	/* the table made and rendered whole, from the log itself */
	dfs_log *log = dfs_log_open(a, 0, &err);
	assert_non_null(log);
	const dfs_records *r = dfs_log_records(log, DFS_MOD_POSIX);
	dfs_file_table t;
	assert_int_equal(dfs_file_table_build(log, r, NULL, r->count, NULL, &t, &err), 0);
	assert_true(t.n > 16384);
	char *want = render_files(&t);
	dfs_file_table_free(&t);
	dfs_log_free(log);
	dfs_view *v = dfs_view_new(dir, NULL, &err);
	assert_non_null(v);
	dfs_node_stat st;
	assert_int_equal(dfs_view_stat(v, "/a.darshan/POSIX/files.csv", NULL, &st, NULL, &err), 0);
	assert_int_equal(st.size, strlen(want));
	size_t len;
	char *all = view_read(v, "/a.darshan/POSIX/files.csv", &len, &err);
	assert_non_null(all);
	assert_int_equal(len, strlen(want));
	assert_memory_equal(all, want, len);
	dfs_snapshot *c = dfs_view_open_file(v, "/a.darshan/POSIX/files.csv", NULL, &err);
	assert_non_null(c);
	char *back = malloc(len);
	assert_non_null(back);
	for (size_t end = len; end > 0;) {
		size_t n = end < 77777 ? end : 77777;
		size_t done = 0;
		while (done < n) {
			long got = dfs_snapshot_read(c, back + end - n + done, n - done,
			                             end - n + done, &err);
			assert_true(got > 0);
			done += (size_t)got;
		}
		end -= n;
	}
	assert_memory_equal(back, want, len);
	dfs_snapshot_release(c);
	/* made from imported rows (every record, written back into
	 * records.csv): the same text; a reader of it keeps those rows when
	 * the next import replaces them */
	size_t rlen;
	char *records = view_read(v, "/a.darshan/POSIX/records.csv", &rlen, &err);
	assert_non_null(records);
	dfs_write *w = dfs_view_open_write(v, "/a.darshan/POSIX/records.csv", NULL, true, &err);
	assert_non_null(w);
	assert_int_equal(dfs_write_data(w, records, rlen, 0, &err), 0);
	assert_int_equal(dfs_write_flush(w, &err), 0);
	dfs_write_free(w);
	c = dfs_view_open_file(v, "/a.darshan/POSIX/files.csv", NULL, &err);
	assert_non_null(c);
	assert_int_equal(dfs_snapshot_size(c), len);
	/* the header and two rows imported instead */
	char *third = strchr(strchr(strchr(records, '\n') + 1, '\n') + 1, '\n') + 1;
	w = dfs_view_open_write(v, "/a.darshan/POSIX/records.csv", NULL, true, &err);
	assert_non_null(w);
	assert_int_equal(dfs_write_data(w, records, (size_t)(third - records), 0, &err), 0);
	assert_int_equal(dfs_write_flush(w, &err), 0);
	dfs_write_free(w);
	memset(back, 0, len);
	for (size_t done = 0; done < len;) {
		long got = dfs_snapshot_read(c, back + done, len - done, done, &err);
		assert_true(got > 0);
		done += (size_t)got;
	}
	assert_memory_equal(back, want, len);
	dfs_snapshot_release(c);
	char *two = view_read(v, "/a.darshan/POSIX/files.csv", &rlen, &err);
	assert_non_null(two);
	assert_true(lines(two) >= 2 && lines(two) <= 3);
	free(two);
	free(records);
	free(back);
	free(all);
	free(want);
	dfs_view_free(v);
	assert_int_equal(unlink(a), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* The batches of a big records.csv are rendered ahead of its reader by
 * the view's own threads: they stay while reads come, end after half a
 * second without work, start again for the next reader, and the view's
 * end joins the ones still there; every read gives the same text. */
static void test_view_render_helpers(void **state)
{
	(void)state;
	char dir[] = "/tmp/dfs-test-helpers-XXXXXX", a[96];
	assert_non_null(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/a.darshan", dir);
	synth_log(a, 7, 20000);   /* five batches of POSIX rows */
	dfs_error err = {0};
	dfs_view *v = dfs_view_new(dir, NULL, &err);
	assert_non_null(v);
	assert_int_equal(dfs_view_render_threads(v), 0);
	size_t len, len2;
	char *first = view_read(v, "/a.darshan/POSIX/records.csv", &len, &err);
	assert_non_null(first);
	size_t started = dfs_view_render_threads(v);
	assert_true(started >= 1 && started <= DFS_HELPER_THREADS);
	/* nothing to render: they end (within two seconds, not at once) */
	for (int i = 0; i < 40 && dfs_view_render_threads(v) > 0; i++)
		usleep(50000);
	assert_int_equal(dfs_view_render_threads(v), 0);
	/* a new reader (the same snapshot's text rendered again) starts them
	 * again, the ended threads joined */
	for (int round = 0; round < 2; round++) {
		char *again = view_read(v, "/a.darshan/POSIX/records.csv", &len2, &err);
		assert_non_null(again);
		assert_int_equal(len2, len);
		assert_memory_equal(again, first, len);
		free(again);
		assert_true(dfs_view_render_threads(v) >= 1);
	}
	/* the view ends with its threads waiting for work: joined */
	dfs_view_free(v);
	free(first);
	assert_int_equal(unlink(a), 0);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accum_files_alone),
		cmocka_unit_test(test_accum_files_misuse),
		cmocka_unit_test(test_file_table),
		cmocka_unit_test(test_table_alone),
		cmocka_unit_test(test_text_table),
		cmocka_unit_test(test_table_ties),
		cmocka_unit_test(test_selection_table),
		cmocka_unit_test(test_untimed),
		cmocka_unit_test(test_rank_table),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_merge_implausible),
		cmocka_unit_test(test_files_pack),
		cmocka_unit_test(test_view),
		cmocka_unit_test(test_view_many_files),
		cmocka_unit_test(test_view_render_helpers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
