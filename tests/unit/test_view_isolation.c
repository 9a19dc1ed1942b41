/* test_view_isolation.c - two views in one process keep to themselves.
 *
 * A view owns what its work recycles and waits for: the scratch blocks
 * of its selections, accumulators and imports, and the helper threads
 * that render its records.csv ahead of readers.  Two views over two
 * source trees work side by side; one's writes, trims and teardown leave
 * the other's kept blocks where they were, the teardown of one does not
 * wait for the other's helpers, and the other reads on, byte for byte
 * what it read before.  The buffers of its records.csv batches are kept
 * for its next records.csv.  (The logs are made here: nothing shared is
 * needed.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "darshanfs/view.h"
#include "darshanfs/writer.h"
#include "util/scratch.h"
#include "view/view_int.h"

/* enough POSIX records that a selection's row index (a word a record)
 * is a scratch block of over 1 MiB, not a malloc */
#define RECORDS 150000

/* A new source directory (its name in dir) and a writer of its one log,
 * x.darshan, whose file is *fd (closed by the caller). */
static dfs_log_writer *new_source(char *dir, size_t len, int *fd)
{
	snprintf(dir, len, "/tmp/dfs-test-views-XXXXXX");
	assert_non_null(mkdtemp(dir));
	char path[128];
	snprintf(path, sizeof(path), "%s/x.darshan", dir);
	*fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(*fd >= 0);
	dfs_error err = {0};
	dfs_write_options wo = {.level = 1, .threads = 1};
	dfs_log_writer *w = dfs_log_writer_fd(*fd, &wo, &err);
	assert_non_null(w);
	return w;
}

/* A source directory holding one synthetic log, x.darshan. */
static void make_source(char *dir, size_t len, uint64_t seed)
{
	int fd;
	dfs_log_writer *w = new_source(dir, len, &fd);
	dfs_error err = {0};
	dfs_synth_options so = {
		.seed = seed, .records = RECORDS, .nprocs = 16,
		.modules = 1ULL << DFS_MOD_POSIX,
	};
	dfs_synth_defaults(&so);
	if (dfs_synth_write(w, &so, &err) != 0)
		fail_msg("synth: %s", err.msg);
	dfs_log_writer_free(w);
	assert_int_equal(close(fd), 0);
}

static void remove_source(const char *dir)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/x.darshan", dir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

static void set_filter(dfs_view *v, const char *text)
{
	dfs_error err = {0};
	dfs_write *w = dfs_view_open_write(v, "/x.darshan/POSIX/filter", NULL, true, &err);
	if (!w)
		fail_msg("filter: %s", err.msg);
	assert_int_equal(dfs_write_data(w, text, strlen(text), 0, &err), 0);
	if (dfs_write_flush(w, &err) != 0)
		fail_msg("filter %s: %s", text, err.msg);
	dfs_write_free(w);
}

/* Read the first `len` bytes of a snapshot into buf: they must all be
 * there (a read error or an early end fails the test). */
static void read_content(dfs_snapshot *c, char *buf, size_t len)
{
	dfs_error err = {0};
	size_t done = 0;
	long n = 0;
	while (done < len &&
	       (n = dfs_snapshot_read(c, buf + done, len - done, done, &err)) > 0)
		done += (size_t)n;
	if (n < 0)
		fail_msg("read at %zu of %zu: %s", done, len, err.msg);
	assert_int_equal(done, len);
}

/* The whole of a file of the view (malloc'd, NUL-terminated). */
static char *read_all(dfs_view *v, const char *path, size_t *len)
{
	dfs_error err = {0};
	dfs_snapshot *c = dfs_view_open_file(v, path, NULL, &err);
	if (!c)
		fail_msg("%s: %s", path, err.msg);
	size_t size = (size_t)dfs_snapshot_size(c);
	char *text = malloc(size + 1);
	assert_non_null(text);
	read_content(c, text, size);
	text[size] = '\0';
	dfs_snapshot_release(c);
	*len = size;
	return text;
}

/* A filter selects rows: derived_metrics makes the view accumulate them
 * (its tables and the row index are the view's scratch blocks). */
static void work(dfs_view *v, const char *filter)
{
	set_filter(v, filter);
	size_t len;
	free(read_all(v, "/x.darshan/POSIX/derived_metrics", &len));
	assert_true(len > 0);
}

static size_t kept(dfs_view *v)
{
	return dfs_scratch_kept(&v->scratch);
}

struct freeing {
	dfs_view *v;
	pthread_mutex_t lock;
	bool done;
};

static void *free_view(void *arg)
{
	struct freeing *f = arg;
	dfs_view_free(f->v);
	pthread_mutex_lock(&f->lock);
	f->done = true;
	pthread_mutex_unlock(&f->lock);
	return NULL;
}

static bool freed(struct freeing *f)
{
	pthread_mutex_lock(&f->lock);
	bool d = f->done;
	pthread_mutex_unlock(&f->lock);
	return d;
}

static void test_two_views(void **state)
{
	(void)state;
	char da[64], db[64];
	make_source(da, sizeof(da), 7);
	make_source(db, sizeof(db), 8);
	dfs_error err = {0};
	dfs_view *a = dfs_view_new(da, NULL, &err);
	dfs_view *b = dfs_view_new(db, NULL, &err);
	assert_non_null(a);
	assert_non_null(b);
	assert_ptr_not_equal(&a->scratch, &b->scratch);

	/* work in a: the accumulator's tables grow (the blocks they leave
	 * are kept), and the second filter frees the first one's row index */
	work(a, "POSIX_BYTES_READ > 0\n");
	assert_true(kept(a) > 0);
	assert_int_equal(kept(b), 0);   /* a's frees went to a's pool */
	work(a, "POSIX_OPENS > 1\n");
	size_t ka = kept(a);
	assert_true(ka >= (size_t)RECORDS * sizeof(size_t));
	assert_int_equal(kept(b), 0);
	/* the same in b, which takes none of a's blocks */
	work(b, "POSIX_BYTES_WRITTEN > 0\n");
	work(b, "POSIX_OPENS > 1\n");
	size_t kb = kept(b);
	assert_true(kb >= (size_t)RECORDS * sizeof(size_t));
	assert_int_equal(kept(a), ka);

	/* b's records.csv (of two ranks: several batches, a few MiB), and a
	 * reader of it held open */
	set_filter(b, "rank < 2\n");
	size_t blen;
	char *btext = read_all(b, "/x.darshan/POSIX/records.csv", &blen);
	assert_true(blen > (size_t)4 << 20);
	dfs_snapshot *bc = dfs_view_open_file(b, "/x.darshan/POSIX/records.csv", NULL, &err);
	assert_non_null(bc);
	char head[65536];
	assert_int_equal(dfs_snapshot_read(bc, head, sizeof(head), 0, &err),
	                 (long)sizeof(head));
	assert_memory_equal(head, btext, sizeof(head));

	/* more work and a trim in a leave b's kept blocks alone */
	work(a, "POSIX_READS > 1\n");
	dfs_scratch_trim(&a->scratch);
	assert_int_equal(kept(a), 0);
	assert_int_equal(kept(b), kb);

	/* a goes while one of b's helpers is (said to be) still running:
	 * the teardown waits for a's helpers only */
	pthread_mutex_lock(&b->helpers.lock);
	b->helpers.running++;
	pthread_mutex_unlock(&b->helpers.lock);
	struct freeing f = {a, PTHREAD_MUTEX_INITIALIZER, false};
	pthread_t tid;
	assert_int_equal(pthread_create(&tid, NULL, free_view, &f), 0);
	for (int i = 0; i < 400 && !freed(&f); i++)
		usleep(25000);
	bool a_gone = freed(&f);
	pthread_mutex_lock(&b->helpers.lock);
	if (--b->helpers.running == 0)
		pthread_cond_broadcast(&b->helpers.done);
	pthread_mutex_unlock(&b->helpers.lock);
	pthread_join(tid, NULL);
	assert_true(a_gone);   /* (else it waited for b's helper) */
	remove_source(da);

	/* b reads on: its open reader, then a new one, the same bytes, and
	 * its kept blocks serve its next filter */
	assert_int_equal(kept(b), kb);
	char *again = malloc(blen);
	assert_non_null(again);
	read_content(bc, again, blen);
	assert_memory_equal(again, btext, blen);
	dfs_snapshot_release(bc);
	size_t len2;
	char *fresh = read_all(b, "/x.darshan/POSIX/records.csv", &len2);
	assert_int_equal(len2, blen);
	assert_memory_equal(fresh, btext, blen);
	free(fresh);
	free(again);
	free(btext);
	void *block = dfs_scratch_alloc(&b->scratch, (size_t)RECORDS * sizeof(size_t));
	assert_non_null(block);
	assert_true(kept(b) < kb);      /* one of b's kept blocks, warm */
	dfs_scratch_free(&b->scratch, block);
	assert_int_equal(kept(b), kb);
	work(b, "POSIX_WRITES > 1\n");
	dfs_view_free(b);
	remove_source(db);
}

static size_t spares(dfs_view *v)
{
	pthread_mutex_lock(&v->helpers.lock);
	size_t n = v->helpers.nspare;
	pthread_mutex_unlock(&v->helpers.lock);
	return n;
}

/* The buffers records.csv's batches are rendered into outlive their
 * snapshot's readers: a reader holding the snapshot keeps them; when the
 * last lets go they become the view's spares, and the next rendering,
 * of the same snapshot or of another selection, takes them back (the
 * same bytes as rendered first, the same as a view without spares). */
static void test_spare_buffers(void **state)
{
	(void)state;
	char dir[64];
	make_source(dir, sizeof(dir), 9);
	dfs_error err = {0};
	dfs_view *v = dfs_view_new(dir, NULL, &err);
	assert_non_null(v);
	const char *path = "/x.darshan/POSIX/records.csv";
	set_filter(v, "rank < 2\n");
	dfs_snapshot *c = dfs_view_open_file(v, path, NULL, &err);
	assert_non_null(c);
	size_t len = (size_t)dfs_snapshot_size(c);
	assert_true(len > (size_t)4 << 20);   /* several batches */
	char *text = malloc(len);
	assert_non_null(text);
	read_content(c, text, len);
	dfs_lazy_wait_idle(&v->helpers);
	assert_int_equal(spares(v), 0);       /* still the reader's */
	dfs_snapshot_release(c);
	size_t n = spares(v);
	assert_true(n > 1);
	assert_true(n <= DFS_SPARE_BUFS);
	dfs_buf kept[DFS_SPARE_BUFS];
	memcpy(kept, v->helpers.spare, n * sizeof(kept[0]));

	/* read again: rendered again, into the spares, which come back */
	size_t len2;
	char *again = read_all(v, path, &len2);
	assert_int_equal(len2, len);
	assert_memory_equal(again, text, len);
	free(again);
	dfs_lazy_wait_idle(&v->helpers);
	assert_int_equal(spares(v), n);

	/* another selection renders its first batch into one of them */
	set_filter(v, "rank < 3\n");
	c = dfs_view_open_file(v, path, NULL, &err);
	assert_non_null(c);
	const char *data;
	size_t got;
	void *pin;
	assert_int_equal(dfs_snapshot_pin(c, 65536, 1, &data, &got, &pin, &err), 1);
	assert_int_equal(got, 1);
	bool in_spare = false;
	for (size_t i = 0; i < n; i++)
		in_spare |= data >= kept[i].data && data < kept[i].data + kept[i].cap;
	assert_true(in_spare);
	dfs_snapshot_unpin(c, pin);
	size_t len3 = (size_t)dfs_snapshot_size(c);
	char *third = malloc(len3);
	assert_non_null(third);
	read_content(c, third, len3);
	dfs_snapshot_release(c);

	/* the same as a view that had no spares renders */
	dfs_view *w = dfs_view_new(dir, NULL, &err);
	assert_non_null(w);
	set_filter(w, "rank < 3\n");
	size_t len4;
	char *fresh = read_all(w, path, &len4);
	assert_int_equal(len4, len3);
	assert_memory_equal(fresh, third, len3);
	free(fresh);
	free(third);
	free(text);
	dfs_view_free(w);
	dfs_view_free(v);
	remove_source(dir);
}

/* A file read the way the FUSE front end reads it: 128 KiB at a time,
 * each the piece its bytes lie in as far as it goes, then the next
 * piece's (pinned too, without waiting: or else copied); the bytes are
 * those dfs_snapshot_read gives, and some reads span two pieces. */
static void read_by_parts(dfs_view *v, const char *path)
{
	size_t len;
	char *text = read_all(v, path, &len);
	dfs_error err = {0};
	dfs_snapshot *c = dfs_view_open_file(v, path, NULL, &err);
	assert_non_null(c);
	assert_int_equal(dfs_snapshot_size(c), len);
	char *got = malloc(len + 1);
	assert_non_null(got);
	size_t off = 0, spans = 0, ask = 128 << 10;
	while (off < len) {
		const char *data;
		size_t n;
		void *pin;
		assert_int_equal(dfs_snapshot_pin_part(c, off, ask, true, &data, &n, &pin, &err), 1);
		assert_true(n > 0 && n <= ask && off + n <= len);
		memcpy(got + off, data, n);
		if (n < ask && off + n < len) {
			/* (the first stays pinned: where it lies stays put) */
			const char *data2;
			size_t n2;
			void *pin2;
			int r = dfs_snapshot_pin_part(c, off + n, ask - n, false, &data2, &n2, &pin2,
			                              &err);
			assert_true(r >= 0);
			if (r > 0) {
				assert_true(n2 > 0 && n2 <= ask - n);
				memcpy(got + off + n, data2, n2);
				dfs_snapshot_unpin(c, pin2);
				n += n2;
				spans++;
			}
		}
		dfs_snapshot_unpin(c, pin);
		off += n;
	}
	assert_memory_equal(got, text, len);
	assert_true(spans > 0);
	/* at the end: nothing */
	const char *data;
	size_t n;
	void *pin;
	assert_int_equal(dfs_snapshot_pin_part(c, len, ask, true, &data, &n, &pin, &err), 1);
	assert_int_equal(n, 0);
	dfs_snapshot_release(c);
	free(got);
	free(text);
}

static void test_pin_parts(void **state)
{
	(void)state;
	char dir[64];
	make_source(dir, sizeof(dir), 11);
	dfs_error err = {0};
	dfs_view *v = dfs_view_new(dir, NULL, &err);
	assert_non_null(v);
	read_by_parts(v, "/x.darshan/POSIX/records.csv");   /* batches */
	read_by_parts(v, "/x.darshan/POSIX/files.csv");     /* a table's batches */
	set_filter(v, "rank < 1\n");
	read_by_parts(v, "/x.darshan/POSIX/files.csv");     /* rendered whole, in chunks */
	dfs_view_free(v);
	remove_source(dir);
}

/* A log of a job with no process: the accumulator refuses it (derived
 * metrics, jobs.csv tell why), and its records stay readable whatever was
 * read before them (the refusal does not make the selection unusable) */
static void test_no_process(void **state)
{
	(void)state;
	char dir[64];
	int fd;
	dfs_log_writer *w = new_source(dir, sizeof(dir), &fd);
	dfs_error err = {0};
	dfs_job job;
	memset(&job, 0, sizeof(job));
	job.nprocs = 0;
	job.start_sec = 1;
	job.end_sec = 2;
	job.exe = (char *)"/bin/none";
	job.metadata = (char *)"";
	dfs_mount mnt = {"/", "ext4", 4};
	assert_int_equal(dfs_log_writer_job(w, &job, &mnt, 1, &err), 0);
	const dfs_module *m = dfs_module_get(DFS_MOD_POSIX);
	unsigned char rec[DFS_RECORD_MAX];
	assert_int_equal(dfs_log_writer_module_begin(w, DFS_MOD_POSIX, 0, &err), 0);
	for (uint64_t k = 1; k <= 3; k++) {
		memset(rec, 0, m->record_size);
		memcpy(rec, &k, 8);
		assert_int_equal(dfs_log_writer_record(w, rec, m->record_size, &err), 0);
	}
	assert_int_equal(dfs_log_writer_module_end(w, &err), 0);
	assert_int_equal(dfs_log_writer_finish(w, 0, &err), 0);
	dfs_log_writer_free(w);
	assert_int_equal(close(fd), 0);

	dfs_view_options opt;
	memset(&opt, 0, sizeof(opt));
	dfs_view *v = dfs_view_new(dir, &opt, &err);
	assert_non_null(v);
	assert_null(dfs_view_open_file(v, "/x.darshan/POSIX/derived_metrics", NULL, &err));
	assert_non_null(strstr(err.msg, "not positive"));
	size_t len;
	char *text = read_all(v, "/x.darshan/POSIX/records.csv", &len);
	size_t lines = 0;
	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	assert_int_equal(lines, 4);   /* the header and the 3 records */
	free(text);
	text = read_all(v, "/x.darshan/derived_metrics", &len);
	assert_non_null(strstr(text, "# error: accumulator: job nprocs 0 is not positive"));
	free(text);
	text = read_all(v, "/jobs.csv", &len);
	assert_non_null(strstr(text, "not positive"));
	free(text);
	dfs_view_free(v);
	remove_source(dir);
}

/* Every kind of file has its row in the table of the tree's files, at
 * its own place, named, and no two files of one level share a name. */
static void test_file_defs(void **state)
{
	(void)state;
	for (int k = 0; k < F_KINDS; k++) {
		const struct file_def *d = &dfs_file_defs[k];
		if (!d->name || (int)d->kind != k)
			fail_msg("file kind %d has no row of its own in dfs_file_defs", k);
		if (k == F_DXT_FILE)
			continue;   /* (named by a record id) */
		assert_true(d->name[0] != '\0');
		assert_ptr_equal(dfs_file_def_by_name(d->level, d->name), d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_views),
		cmocka_unit_test(test_no_process),
		cmocka_unit_test(test_spare_buffers),
		cmocka_unit_test(test_pin_parts),
		cmocka_unit_test(test_file_defs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
