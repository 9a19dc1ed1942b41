/* test_memory.c - the memory helpers: fixed buffers never move and fail
 * when full, slabs hold what was written after trimming, and scratch
 * blocks are recycled (warm) and keep their bytes across a realloc.  And
 * what the view's cache holds: logs over cache_size are evicted as soon as
 * their readers let go (not at the next load), or a second after a stat
 * that nobody's open followed, a selection's row index is counted, and
 * the entries of logs gone from SOURCE are forgotten; the summaries
 * jobs.csv keeps of every log and the records a DXT segment filter cuts
 * are counted and evicted too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>
#include <stdio.h>
#include <sys/stat.h>

#include "common/shared.h"
#include "darshanfs/buf.h"
#include "darshanfs/log.h"
#include "darshanfs/module.h"
#include "darshanfs/view.h"
#include "util/scratch.h"
#include "util/slab.h"
#include "view/probe.h"

static void test_fixed_buffer(void **state)
{
	(void)state;
	char space[16];
	dfs_buf b;
	dfs_buf_init_fixed(&b, space, sizeof(space));
	dfs_buf_adds(&b, "0123456789");
	assert_true(dfs_buf_ok(&b));
	assert_ptr_equal(b.data, space);
	assert_string_equal(space, "0123456789");
	/* 10 + 6 bytes leave no room for the terminating NUL: refused */
	dfs_buf_adds(&b, "abcdef");
	assert_false(dfs_buf_ok(&b));
	assert_ptr_equal(b.data, space);
	assert_int_equal(b.len, 10);
	dfs_buf_free(&b); /* borrowed memory: not freed */
	dfs_buf_init_fixed(&b, space, 0);
	assert_false(dfs_buf_ok(&b));
}

/* A reserve for a size known in advance allocates that room exactly,
 * keeps the text, and leaves a buffer with room as it is. */
static void test_reserve(void **state)
{
	(void)state;
	dfs_buf b = DFS_BUF_INIT;
	assert_true(dfs_buf_reserve(&b, 1000));
	assert_int_equal(b.cap, 1001);   /* the text and its NUL, no slack */
	assert_int_equal(b.len, 0);
	assert_string_equal(b.data, "");
	char *at = b.data;
	for (int i = 0; i < 100; i++)
		dfs_buf_adds(&b, "0123456789");
	assert_ptr_equal(b.data, at);    /* never moved */
	assert_int_equal(b.cap, 1001);
	assert_true(dfs_buf_reserve(&b, 0));
	assert_ptr_equal(b.data, at);
	/* more than there is: exactly what was asked, the text kept */
	assert_true(dfs_buf_reserve(&b, 5000));
	assert_int_equal(b.cap, 6001);
	assert_int_equal(b.len, 1000);
	assert_memory_equal(b.data + 990, "0123456789", 11);
	/* emptied and reserved again, and grown geometrically */
	dfs_buf_reset(&b);
	assert_true(dfs_buf_reserve(&b, 10000));
	assert_int_equal(b.cap, 10001);
	assert_string_equal(b.data, "");
	dfs_buf_adds(&b, "x");
	assert_true(dfs_buf_grow(&b, 20000));
	assert_true(b.cap > 20002);
	assert_string_equal(b.data, "x");
	dfs_buf_free(&b);
	/* a fixed buffer cannot grow: refused, its text as it was */
	char space[8];
	dfs_buf_init_fixed(&b, space, sizeof(space));
	dfs_buf_adds(&b, "abc");
	assert_true(dfs_buf_reserve(&b, 4));
	assert_false(dfs_buf_reserve(&b, 5));
	assert_false(dfs_buf_ok(&b));
	assert_string_equal(space, "abc");
}

/* Resident pages of [p, p + len) (len a multiple of the page size). */
static size_t resident(const char *p, size_t len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), n = len / pg, in = 0;
	unsigned char *vec = malloc(n);
	assert_non_null(vec);
	assert_int_equal(mincore((void *)p, len, vec), 0);
	for (size_t i = 0; i < n; i++)
		in += vec[i] & 1;
	free(vec);
	return in * pg;
}

/* A slab costs memory only where it was written, and trimming keeps
 * what was written. */
static void test_slab(void **state)
{
	(void)state;
	dfs_slab s;
	assert_int_equal(dfs_slab_reserve(&s, (size_t)64 << 20), 0);
	assert_true(s.cap >= (size_t)64 << 20);
	assert_int_equal((uintptr_t)s.base % 4096, 0);
	assert_int_equal(resident(s.base, s.cap), 0);
	size_t n = (size_t)5 << 20;
	for (size_t i = 0; i < n; i++)
		s.base[i] = (char)(i * 7);
	/* (up to a 2 MiB page more where huge pages are always on) */
	size_t in = resident(s.base, s.cap);
	assert_true(in >= n && in <= n + ((size_t)2 << 20));
	s.used = n;
	dfs_slab_trim(&s);
	assert_true(s.cap >= n && s.cap < n + 4096 * 16);
	for (size_t i = 0; i < n; i += 4093)
		assert_int_equal(s.base[i], (char)(i * 7));
	dfs_slab_release(&s);
	assert_null(s.base);
	assert_int_equal(dfs_slab_reserve(&s, 0), -1);
}

static void test_scratch_recycles(void **state)
{
	(void)state;
	dfs_scratch pool, other;
	dfs_scratch_init(&pool);
	dfs_scratch_init(&other);
	size_t big = (size_t)8 << 20;
	char *a = dfs_scratch_alloc(&pool, big);
	assert_non_null(a);
	memset(a, 1, big);
	dfs_scratch_free(&pool, a);
	assert_true(dfs_scratch_kept(&pool) >= big);
	/* another pool keeps none of it */
	assert_int_equal(dfs_scratch_kept(&other), 0);
	char *o = dfs_scratch_alloc(&other, big - 100);
	assert_non_null(o);
	assert_ptr_not_equal(o, a);
	dfs_scratch_free(&other, o);
	/* the same size again: the kept block, not a new mapping */
	char *b = dfs_scratch_alloc(&pool, big - 100);
	assert_ptr_equal(a, b);
	assert_int_equal(dfs_scratch_kept(&pool), 0);
	dfs_scratch_free(&pool, b);
	/* a much smaller request does not take a kept block 4x its size */
	char *c = dfs_scratch_alloc(&pool, (size_t)1 << 20);
	assert_non_null(c);
	assert_ptr_not_equal(c, b);
	dfs_scratch_free(&pool, c);
	/* trimming one pool leaves the other's blocks */
	assert_true(dfs_scratch_kept(&other) >= big);
	dfs_scratch_trim(&pool);
	assert_int_equal(dfs_scratch_kept(&pool), 0);
	assert_true(dfs_scratch_kept(&other) >= big);
	/* small blocks come from malloc and work the same way */
	char *d = dfs_scratch_alloc(&pool, 100);
	assert_non_null(d);
	memcpy(d, "hello", 6);
	d = dfs_scratch_realloc(&pool, d, 6, (size_t)3 << 20);
	assert_non_null(d);
	assert_string_equal(d, "hello");
	d[((size_t)3 << 20) - 1] = 'x';
	dfs_scratch_free(&pool, d);
	dfs_scratch_free(&pool, NULL);
	/* a request bigger than every kept block: the biggest grows into
	 * it, its pages moved (they keep their bytes) rather than faulted
	 * in afresh, on the boundary a fresh block has, the rest writable */
	char *f = dfs_scratch_alloc(&pool, big);
	assert_non_null(f);
	uintptr_t boundary = (uintptr_t)f % ((uintptr_t)2 << 20);
	memset(f, 7, big);
	dfs_scratch_free(&pool, f);
	char *s1 = dfs_scratch_alloc(&pool, (size_t)2 << 20);
	assert_non_null(s1);
	memset(s1, 5, (size_t)2 << 20);
	dfs_scratch_free(&pool, s1);
	bool zero = true;
	char *g = dfs_scratch_alloc_fresh(&pool, 3 * big, &zero);
	assert_non_null(g);
	assert_false(zero);
	assert_int_equal((uintptr_t)g % ((uintptr_t)2 << 20), boundary);
	assert_int_equal(g[0], 7);
	assert_int_equal(g[big - 1], 7);
	memset(g + big, 9, 2 * big);
	assert_int_equal(g[3 * big - 1], 9);
	/* (the smaller kept block stays for a request its size) */
	assert_true(dfs_scratch_kept(&pool) >= (size_t)2 << 20);
	assert_true(dfs_scratch_kept(&pool) < big);
	dfs_scratch_free(&pool, g);
	assert_true(dfs_scratch_kept(&pool) >= 3 * big);
	/* a block that fits is still taken before one is grown */
	char *h = dfs_scratch_alloc_fresh(&pool, 3 * big - 100, &zero);
	assert_ptr_equal(h, g);
	dfs_scratch_free(&pool, h);
	dfs_scratch_trim(&pool);
	/* without a pool nothing is kept */
	char *n = dfs_scratch_alloc(NULL, big);
	assert_non_null(n);
	n[big - 1] = 1;
	dfs_scratch_free(NULL, n);
	dfs_scratch_destroy(&pool);
	dfs_scratch_destroy(&other);
}

/* ---- the view's cache ---------------------------------------------------------- */

#define BIG_LOG "imbalanced-io.darshan"          /* 2014 POSIX records */
#define SMALL_LOG "e3sm_io_heatmap_only.darshan" /* 113 */

/* A temporary SOURCE holding copies of `names` as a.darshan, b.darshan... */
static void make_source(char *dir, size_t len, const char *const *names, size_t n)
{
	snprintf(dir, len, "/tmp/dfs-test-memory-XXXXXX");
	assert_non_null(mkdtemp(dir));
	for (size_t i = 0; i < n; i++) {
		char *from = shared_log_path(names[i]), to[512];
		size_t size;
		char *data = read_file(from, &size);
		assert_non_null(data);
		snprintf(to, sizeof(to), "%s/%c.darshan", dir, (char)('a' + i));
		FILE *f = fopen(to, "wb");
		assert_non_null(f);
		assert_int_equal(fwrite(data, 1, size, f), size);
		fclose(f);
		free(data);
		free(from);
	}
}

/* A view of a source directory (its name in dir) holding the shared log
 * `name` as a.darshan */
static dfs_view *one_log_view(const char *name, const dfs_view_options *opt, char *dir,
                              size_t len)
{
	const char *const names[] = {name};
	make_source(dir, len, names, 1);
	dfs_error err = {0};
	dfs_view *v = dfs_view_new(dir, opt, &err);
	assert_non_null(v);
	return v;
}

static void remove_source(const char *dir)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static size_t cached(dfs_view *v)
{
	dfs_view_memory m;
	dfs_view_memory_get(v, &m);
	return m.cached_bytes;
}

static dfs_snapshot *open_file(dfs_view *v, const char *path)
{
	dfs_error err = {0};
	dfs_snapshot *c = dfs_view_open_file(v, path, NULL, &err);
	if (!c)
		fail_msg("%s: %s", path, err.msg);
	return c;
}

/* With a budget smaller than any log, a log stays decoded exactly while
 * it is read: two readers keep both, and each release evicts its log at
 * once; nothing is left when both are done. */
static void test_evicted_when_readers_let_go(void **state)
{
	(void)state;
	if (!shared_dir())
		skip();
	const char *const names[] = {BIG_LOG, SMALL_LOG};
	char dir[64];
	make_source(dir, sizeof(dir), names, 2);
	dfs_error err = {0};
	dfs_view_options opt = {.cache_size = 1};
	dfs_view *v = dfs_view_new(dir, &opt, &err);
	assert_non_null(v);
	dfs_snapshot *a = open_file(v, "/a.darshan/POSIX/records.csv");
	size_t one = cached(v);
	assert_true(one > 0);
	dfs_snapshot *b = open_file(v, "/b.darshan/POSIX/records.csv");
	dfs_view_memory m;
	dfs_view_memory_get(v, &m);
	assert_int_equal(m.logs_cached, 2);   /* a is read: not evicted for b */
	assert_true(m.cached_bytes > one);
	dfs_snapshot_release(b);
	assert_int_equal(cached(v), one);     /* b went, a is still read */
	/* a second snapshot of a, released first: a is still read */
	dfs_snapshot *a2 = open_file(v, "/a.darshan/POSIX/records.csv");
	dfs_snapshot_release(a2);
	assert_int_equal(cached(v), one);
	dfs_snapshot_release(a);
	dfs_view_memory_get(v, &m);
	assert_int_equal(m.cached_bytes, 0);
	assert_int_equal(m.logs_cached, 0);
	/* read again: decoded again */
	uint64_t decodes = dfs_view_decode_count(v);
	dfs_snapshot_release(open_file(v, "/a.darshan/header.txt"));
	assert_int_equal(dfs_view_decode_count(v), decodes + 1);
	assert_int_equal(cached(v), 0);
	dfs_view_free(v);
	remove_source(dir);
}

/* A log over the budget that was only looked at (a stat tells the size
 * of records.csv by decoding it) has no reader to let it go: it goes a
 * second later all the same. */
static void test_stat_only_goes(void **state)
{
	(void)state;
	if (!shared_dir())
		skip();
	dfs_view_options opt = {.cache_size = 1};
	char dir[64];
	dfs_view *v = one_log_view(SMALL_LOG, &opt, dir, sizeof(dir));
	dfs_error err = {0};
	dfs_node_stat st;
	assert_int_equal(dfs_view_stat(v, "/a.darshan/POSIX/records.csv", NULL, &st, NULL, &err), 0);
	assert_int_equal(dfs_view_decode_count(v), 1);
	/* polled, not timed: the eviction comes about a second later */
	for (int i = 0; i < 200 && cached(v) != 0; i++)
		usleep(50000);
	assert_int_equal(cached(v), 0);
	dfs_view_free(v);
	remove_source(dir);
}

/* The bytes of a filtered selection count: its row index (a word per
 * record of the module) comes on top of the derived text. */
static void test_selection_counted(void **state)
{
	(void)state;
	if (!shared_dir())
		skip();
	char dir[64];
	dfs_view *v = one_log_view(BIG_LOG, NULL, dir, sizeof(dir));
	dfs_error err = {0};
	dfs_snapshot *c = open_file(v, "/a.darshan/POSIX/records.csv");
	size_t records = 0;
	char buf[65536];
	long n;
	for (uint64_t off = 0; (n = dfs_snapshot_read(c, buf, sizeof(buf), off, &err)) > 0;
	     off += (uint64_t)n)
		for (long i = 0; i < n; i++)
			records += buf[i] == '\n';
	records--;   /* the header */
	dfs_snapshot_release(c);
	assert_true(records > 1000);
	dfs_write *w = dfs_view_open_write(v, "/a.darshan/POSIX/filter", NULL, true, &err);
	assert_non_null(w);
	const char *f = "POSIX_BYTES_READ > 0\n";
	assert_int_equal(dfs_write_data(w, f, strlen(f), 0, &err), 0);
	assert_int_equal(dfs_write_flush(w, &err), 0);
	dfs_write_free(w);
	/* the write dropped what was derived from the old selection */
	size_t before = cached(v);
	c = open_file(v, "/a.darshan/POSIX/derived_metrics");
	size_t text = (size_t)dfs_snapshot_size(c);
	dfs_snapshot_release(c);
	assert_true(cached(v) >= before + text + records * sizeof(size_t));
	dfs_view_free(v);
	remove_source(dir);
}

/* A log renamed again and again: the entries of the names it left are
 * forgotten (once the table would grow), with their decoded logs. */
static void test_gone_logs_forgotten(void **state)
{
	(void)state;
	if (!shared_dir())
		skip();
	char dir[64];
	dfs_view *v = one_log_view("noposix.darshan", NULL, dir, sizeof(dir));
	dfs_error err = {0};
	char from[512], to[512], path[64];
	snprintf(from, sizeof(from), "%s/a.darshan", dir);
	for (int i = 0; i < 1000; i++) {
		snprintf(to, sizeof(to), "%s/log%d.darshan", dir, i);
		assert_int_equal(rename(from, to), 0);
		/* a stat knows the log; a read now and then decodes it */
		dfs_node_stat st;
		snprintf(path, sizeof(path), "/log%d.darshan", i);
		assert_int_equal(dfs_view_stat(v, path, NULL, &st, NULL, &err), 0);
		if (i % 100 == 0) {
			snprintf(path, sizeof(path), "/log%d.darshan/header.txt", i);
			dfs_snapshot_release(open_file(v, path));
		}
		memcpy(from, to, sizeof(from));
	}
	dfs_view_memory m;
	dfs_view_memory_get(v, &m);
	/* one log exists; at most the names since the last sweep are known */
	assert_true(m.entries >= 1 && m.entries < 200);
	assert_true(m.logs_cached <= m.entries);
	dfs_view_free(v);
	remove_source(dir);
}

/* Lines of a file of the view (read through a snapshot). */
static size_t count_lines(dfs_view *v, const char *path)
{
	dfs_error err = {0};
	dfs_snapshot *c = open_file(v, path);
	size_t lines = 0;
	char buf[65536];
	long n;
	for (uint64_t off = 0; (n = dfs_snapshot_read(c, buf, sizeof(buf), off, &err)) > 0;
	     off += (uint64_t)n)
		for (long i = 0; i < n; i++)
			lines += buf[i] == '\n';
	assert_true(n == 0);
	dfs_snapshot_release(c);
	return lines;
}

static void write_text(dfs_view *v, const char *path, const char *text)
{
	dfs_error err = {0};
	dfs_write *w = dfs_view_open_write(v, path, NULL, true, &err);
	if (!w)
		fail_msg("%s: %s", path, err.msg);
	assert_int_equal(dfs_write_data(w, text, strlen(text), 0, &err), 0);
	assert_int_equal(dfs_write_flush(w, &err), 0);
	dfs_write_free(w);
}

/* Wait (up to 5 s) until the cache holds no decoded log and at most
 * `bytes`; the bytes it then counts.  `quiet`: first wait until a
 * rendered jobs.csv is gone (kept a second, dropped within two). */
static size_t settle(dfs_view *v, size_t bytes, bool quiet)
{
	if (quiet)
		usleep(2200000);
	dfs_view_memory m;
	for (int i = 0; i < 100; i++) {
		dfs_view_memory_get(v, &m);
		if (m.logs_cached == 0 && m.cached_bytes <= bytes)
			break;
		usleep(50000);
	}
	assert_int_equal(m.logs_cached, 0);
	assert_true(m.cached_bytes <= bytes);
	return m.cached_bytes;
}

#define TREE_LOGS 12
#define TREE_LOG "mpi-io-test-x86_64-3.4.0.darshan"   /* 60 KB decoded */

/* jobs.csv keeps a summary of every log below it (and the rendered file
 * for a second): counted, and evicted when the budget says so.  With a
 * budget no log fits in, the summaries stay (jobs.csv again decodes
 * nothing); with none at all, they go (it decodes every log again) and
 * the cache ends up empty. */
static void test_job_summaries_counted(void **state)
{
	(void)state;
	if (!shared_dir())
		skip();
	const char *names[TREE_LOGS];
	for (size_t i = 0; i < TREE_LOGS; i++)
		names[i] = TREE_LOG;
	char dir[64];
	make_source(dir, sizeof(dir), names, TREE_LOGS);
	dfs_error err = {0};
	/* what one decoded log takes */
	dfs_view *v = dfs_view_new(dir, NULL, &err);
	assert_non_null(v);
	dfs_snapshot_release(open_file(v, "/a.darshan/header.txt"));
	size_t one = cached(v);
	dfs_view_free(v);

	size_t budget = one / 2;
	dfs_view_options opt = {.cache_size = budget};
	v = dfs_view_new(dir, &opt, &err);
	assert_non_null(v);
	size_t lines = count_lines(v, "/jobs.csv");
	assert_true(lines > TREE_LOGS);
	assert_int_equal(dfs_view_decode_count(v), TREE_LOGS);
	/* the decoded logs went, the rendered file after its second: the
	 * summaries are left, counted */
	size_t kept = settle(v, budget, true);
	assert_true(kept >= TREE_LOGS * 64);
	/* insights.csv (which decodes each log once: its rows need them)
	 * keeps its rows with the summaries: more counted; and then both
	 * files decode nothing */
	count_lines(v, "/insights.csv");
	assert_int_equal(count_lines(v, "/jobs.csv"), lines);
	assert_int_equal(dfs_view_decode_count(v), 2 * TREE_LOGS);
	size_t more = settle(v, budget, true);
	print_message("one log %zu bytes, %d summaries %zu bytes, %zu with insights\n",
	              one, TREE_LOGS, kept, more);
	assert_true(more > kept);
	count_lines(v, "/insights.csv");
	assert_int_equal(count_lines(v, "/jobs.csv"), lines);
	assert_int_equal(dfs_view_decode_count(v), 2 * TREE_LOGS);
	dfs_view_free(v);

	opt.cache_size = 1;
	v = dfs_view_new(dir, &opt, &err);
	assert_non_null(v);
	count_lines(v, "/jobs.csv");
	assert_int_equal(dfs_view_decode_count(v), TREE_LOGS);
	assert_int_equal(settle(v, 0, false), 0);
	count_lines(v, "/jobs.csv");
	assert_int_equal(dfs_view_decode_count(v), 2 * TREE_LOGS);
	assert_int_equal(settle(v, 0, false), 0);
	dfs_view_free(v);
	remove_source(dir);
}

/* Read a file of the view to its end. */
static void read_all(dfs_view *v, const char *path)
{
	dfs_error err = {0};
	dfs_snapshot *c = open_file(v, path);
	char buf[65536];
	long n;
	for (uint64_t off = 0; (n = dfs_snapshot_read(c, buf, sizeof(buf), off, &err)) > 0;
	     off += (uint64_t)n)
		;
	assert_true(n == 0);
	dfs_snapshot_release(c);
}

/* Log-wide filters written again and again, which make LUSTRE, HEATMAP
 * and DXT follow the files other modules select: what the cache counts
 * after each filter and the reads of the following modules' files is the
 * same every round (and the sanitizer build finds no leak). */
static void test_following_writes_flat(void **state)
{
	(void)state;
	if (!shared_dir())
		skip();
	char dir[64];
	const char *const names[] = {SMALL_LOG, "ior_hdf5_example.darshan"};
	make_source(dir, sizeof(dir), names, 2);
	dfs_error err = {0};
	dfs_view *v = dfs_view_new(dir, NULL, &err);
	assert_non_null(v);
	static const char *const filters[] = {
		"BYTES_READ > 0\n",
		"bytes_written between 1 KiB and 1 TiB and file_name like '/%'\n",
		"BYTES_READ > 0 or file_name ~* 'H5$'\n",
	};
	static const char *const files[] = {
		"/a.darshan/LUSTRE/records.csv", "/a.darshan/HEATMAP/records.csv",
		"/a.darshan/summary.html", "/b.darshan/LUSTRE/records.csv",
		"/b.darshan/DXT_POSIX/records.csv", "/b.darshan/DXT_MPIIO/records.csv",
		"/b.darshan/filtered.darshan",
	};
	enum { ROUNDS = 12, N = sizeof(filters) / sizeof(filters[0]) };
	size_t first[N] = {0};
	for (int round = 0; round < ROUNDS; round++)
		for (size_t k = 0; k < N; k++) {
			write_text(v, "/a.darshan/filter", filters[k]);
			write_text(v, "/b.darshan/filter", filters[k]);
			for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
				read_all(v, files[i]);
			size_t now = cached(v);
			/* (the first round warms what every later one reuses) */
			if (round == 1)
				first[k] = now;
			else if (round > 1 && now != first[k])
				fail_msg("round %d, filter %zu: %zu bytes counted, %zu in "
				         "round 1", round, k, now, first[k]);
		}
	dfs_view_free(v);
	remove_source(dir);
}

/* A DXT segment filter cuts the selected records to their segments, in
 * a set of their own: counted with the log (no less than the records
 * filtered.darshan then holds), and dropped, uncounted, with the next
 * filter. */
static void test_dxt_cut_counted(void **state)
{
	(void)state;
	if (!shared_dir())
		skip();
	char dir[64];
	dfs_view *v = one_log_view("dxt.darshan", NULL, dir, sizeof(dir));
	dfs_error err = {0};
	size_t all = count_lines(v, "/a.darshan/DXT_POSIX/records.csv");
	write_text(v, "/a.darshan/DXT_POSIX/filter", "length < 4096\n");
	size_t before = cached(v);
	/* filtered.darshan: the cut records, compressed, and read back */
	dfs_snapshot *c = open_file(v, "/a.darshan/filtered.darshan");
	size_t size = (size_t)dfs_snapshot_size(c);
	char *data = malloc(size);
	assert_non_null(data);
	assert_int_equal(dfs_snapshot_read(c, data, size, 0, &err), (long)size);
	dfs_snapshot_release(c);
	size_t after = cached(v);
	char path[128];
	snprintf(path, sizeof(path), "%s/cut.darshan", dir);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, size, f), size);
	fclose(f);
	free(data);
	dfs_log *cut = dfs_log_open(path, 0, &err);
	assert_non_null(cut);
	const dfs_records *r = dfs_log_records(cut, DFS_MOD_DXT_POSIX);
	assert_non_null(r);
	size_t cut_bytes = r->size;
	dfs_log_free(cut);
	unlink(path);
	size_t rows = count_lines(v, "/a.darshan/DXT_POSIX/records.csv");
	print_message("%zu of %zu rows, cut records %zu bytes, filtered.darshan %zu, "
	              "counted %zu\n", rows, all, cut_bytes, size, after - before);
	assert_true(rows > 1 && rows < all);   /* it did cut */
	assert_true(after - before >= size + cut_bytes);
	/* another filter: what was derived from the cut goes, uncounted */
	size_t with_cut = cached(v);
	write_text(v, "/a.darshan/DXT_POSIX/filter", "\n");
	assert_true(cached(v) + cut_bytes <= with_cut);
	dfs_view_free(v);
	remove_source(dir);
}

/* What the names of a log give summary.html is kept with the decoded log
 * (16 bytes a name) and counted from the first render; a filter write
 * drops the rendered page and plots but keeps the names, and the next
 * render adds no more of them. */
static void test_summary_names_counted(void **state)
{
	(void)state;
	if (!shared_dir())
		skip();
	char dir[64], path[128];
	dfs_view *v = one_log_view(BIG_LOG, NULL, dir, sizeof(dir));
	dfs_error err = {0};
	snprintf(path, sizeof(path), "%s/a.darshan", dir);
	dfs_log *log = dfs_log_open(path, 0, &err);
	assert_non_null(log);
	size_t names = dfs_log_name_count(log);
	dfs_log_free(log);
	assert_true(names > 1000);
	/* decoded, selections and metrics made: all but the page */
	count_lines(v, "/a.darshan/derived_metrics");
	size_t before = cached(v);
	dfs_snapshot *c = open_file(v, "/a.darshan/summary.html");
	size_t page = (size_t)dfs_snapshot_size(c);
	dfs_snapshot_release(c);
	size_t after = cached(v);
	print_message("%zu names, page %zu bytes, counted %zu more\n", names, page,
	              after - before);
	assert_true(after - before >= page + 16 * names);
	/* a filter of every record: the same page and plots, but for the
	 * filter named on it */
	write_text(v, "/a.darshan/POSIX/filter", "true\n");
	count_lines(v, "/a.darshan/derived_metrics");
	size_t kept = cached(v);
	assert_true(kept >= before + 16 * names);
	c = open_file(v, "/a.darshan/summary.html");
	dfs_snapshot_release(c);
	size_t again = cached(v) - kept;
	print_message("the render again: %zu more\n", again);
	assert_true(again + 16 * names <= after - before + 1024);
	dfs_view_free(v);
	remove_source(dir);
}

/* Rows written into records.csv are the module's selection until the
 * next filter: not evictable, but counted (the rows and their offsets),
 * and uncounted when a filter ends the import. */
static void test_import_counted(void **state)
{
	(void)state;
	if (!shared_dir())
		skip();
	char dir[64];
	dfs_view *v = one_log_view(BIG_LOG, NULL, dir, sizeof(dir));
	dfs_error err = {0};
	const char *path = "/a.darshan/POSIX/records.csv";
	dfs_snapshot *c = open_file(v, path);
	size_t size = (size_t)dfs_snapshot_size(c);
	char *text = malloc(size + 1);
	assert_non_null(text);
	assert_int_equal(dfs_snapshot_read(c, text, size, 0, &err), (long)size);
	dfs_snapshot_release(c);
	/* the header and 500 rows */
	enum { ROWS = 500 };
	char *end = text;
	for (int i = 0; i <= ROWS; i++) {
		end = memchr(end, '\n', size - (size_t)(end - text));
		assert_non_null(end);
		end++;
	}
	dfs_write *w = dfs_view_open_write(v, path, NULL, true, &err);
	assert_non_null(w);
	assert_int_equal(dfs_write_data(w, text, (size_t)(end - text), 0, &err), 0);
	assert_int_equal(dfs_write_flush(w, &err), 0);
	dfs_write_free(w);
	free(text);
	size_t with_rows = cached(v);   /* (nothing rendered from them yet) */
	assert_int_equal(count_lines(v, path), 1 + ROWS);
	write_text(v, "/a.darshan/POSIX/filter", "\n");
	size_t without = cached(v);
	size_t rows_bytes = ROWS * dfs_module_get(DFS_MOD_POSIX)->record_size;
	print_message("%d imported rows: %zu bytes counted, %zu at least\n", ROWS,
	              with_rows - without, rows_bytes);
	assert_true(with_rows >= without + rows_bytes);
	dfs_view_free(v);
	remove_source(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixed_buffer),
		cmocka_unit_test(test_reserve),
		cmocka_unit_test(test_slab),
		cmocka_unit_test(test_scratch_recycles),
		cmocka_unit_test(test_evicted_when_readers_let_go),
		cmocka_unit_test(test_stat_only_goes),
		cmocka_unit_test(test_selection_counted),
		cmocka_unit_test(test_gone_logs_forgotten),
		cmocka_unit_test(test_following_writes_flat),
		cmocka_unit_test(test_job_summaries_counted),
		cmocka_unit_test(test_dxt_cut_counted),
		cmocka_unit_test(test_summary_names_counted),
		cmocka_unit_test(test_import_counted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
