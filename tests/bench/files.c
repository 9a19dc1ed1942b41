/* dfs-bench-files - what a module's files.csv costs, without a mount.
 *
 *   dfs-bench-files [-r RUNS] [-m MODULE] [-t THREADS] LOG
 *
 * Opens LOG once, then RUNS times (default 3) builds the files.csv table
 * of MODULE (default POSIX) from every record (the rows' lengths
 * measured with it) and renders its rows in chunks of 8,192 on THREADS
 * threads (default 1), as the view renders a table of up to 16,384 files
 * (a bigger one it renders in batches of 4,096 as they are read);
 * prints the medians of each step's wall time and of the process's CPU
 * time (and the least CPU time; for the build, the calling thread's
 * alone too: the pass's critical path), and the table's size and FNV-1a
 * hash (the same in every run, or exit status 1):
 *   build: wall S s, cpu S s (least S s), the calling thread's S s
 *   render: wall S s, cpu S s (least S s)
 *   rows N, bytes B, fnv1a H
 * Exit status 2 on bad usage, 1 when the log or the table fails. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "bench_log.h"

#include "darshanfs/hash.h"
#include "darshanfs/log.h"
#include "darshanfs/module.h"
#include "summary/files_ranks.h"
#include "util/scratch.h"

#define CHUNK 8192

/* the calling thread's alone */
static double cpu_own(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

struct job {
	const dfs_file_table *t;
	size_t chunks;
	dfs_buf *out;
	atomic_size_t next;
};

static void *worker(void *arg)
{
	struct job *j = arg;
	for (;;) {
		size_t c = atomic_fetch_add(&j->next, 1);
		if (c >= j->chunks)
			break;
		size_t from = c * CHUNK, to = from + CHUNK;
		/* (as the view does: room for usual rows, faulted in at once) */
		if (dfs_buf_reserve(&j->out[c], (to - from) * 256))
			dfs_pages_populate(j->out[c].data, j->out[c].cap);
		dfs_file_table_render(j->t, from, to, &j->out[c]);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct bench_log bl;
	int status = bench_log_open(argc, argv, 1, &bl);
	if (status)
		return status;
	dfs_error err;
	dfs_scratch pool;
	dfs_scratch_init(&pool);
	double bw[99], bc[99], bo[99], rw[99], rc[99];
	uint64_t hash0 = 0;
	size_t rows = 0, bytes = 0;
	for (int i = 0; i < bl.runs; i++) {
		dfs_file_table t;
		double w0 = now(), c0 = cpu(), o0 = cpu_own();
		if (dfs_file_table_build_text(bl.log, bl.r, NULL, bl.r->count, &pool, &t, &err)) {
			fprintf(stderr, "%s\n", err.msg);
			return 1;
		}
		double o1 = cpu_own();
		double w1 = now(), c1 = cpu();
		struct job j = {.t = &t, .chunks = (t.n + CHUNK - 1) / CHUNK};
		atomic_init(&j.next, 0);
		j.out = calloc(j.chunks + 1, sizeof(dfs_buf));
		pthread_t tid[16];
		for (int k = 1; k < bl.threads; k++)
			pthread_create(&tid[k], NULL, worker, &j);
		worker(&j);
		for (int k = 1; k < bl.threads; k++)
			pthread_join(tid[k], NULL);
		double w2 = now(), c2 = cpu();
		dfs_buf head = DFS_BUF_INIT;
		dfs_file_table_header(&head);
		uint64_t h = dfs_fnv1a(DFS_FNV1A_INIT, head.data, head.len);
		size_t len = head.len;
		dfs_buf_free(&head);
		for (size_t c = 0; c < j.chunks; c++) {
			h = dfs_fnv1a(h, j.out[c].data, j.out[c].len);
			len += j.out[c].len;
			dfs_buf_free(&j.out[c]);
		}
		free(j.out);
		if (i > 0 && (h != hash0 || len != bytes)) {
			fprintf(stderr, "run %d: a different table\n", i + 1);
			return 1;
		}
		hash0 = h;
		bytes = len;
		rows = t.n;
		dfs_file_table_free(&t);
		bw[i] = w1 - w0;
		bc[i] = c1 - c0;
		bo[i] = o1 - o0;
		rw[i] = w2 - w1;
		rc[i] = c2 - c1;
	}
	qsort(bw, (size_t)bl.runs, sizeof(double), cmp_double);
	qsort(bc, (size_t)bl.runs, sizeof(double), cmp_double);
	qsort(bo, (size_t)bl.runs, sizeof(double), cmp_double);
	qsort(rw, (size_t)bl.runs, sizeof(double), cmp_double);
	qsort(rc, (size_t)bl.runs, sizeof(double), cmp_double);
	printf("build: wall %.3f s, cpu %.3f s (least %.3f s), the calling thread's %.3f s\n",
	       bw[bl.runs / 2], bc[bl.runs / 2], bc[0], bo[bl.runs / 2]);
	printf("render: wall %.3f s, cpu %.3f s (least %.3f s)\n", rw[bl.runs / 2],
	       rc[bl.runs / 2], rc[0]);
	printf("rows %zu, bytes %zu, fnv1a %016llx\n", rows, bytes, (unsigned long long)hash0);
	dfs_scratch_destroy(&pool);
	dfs_log_free(bl.log);
	return 0;
}
