/* dfs-bench-parquet - what a module's records.parquet costs, without a
 * mount.
 *
 *   dfs-bench-parquet [-r RUNS] [-m MODULE] [-t THREADS] LOG
 *
 * Opens LOG once, then RUNS times (default 3) writes the records.parquet
 * of MODULE (default POSIX) from every record on THREADS threads (default
 * 2), with the options the tree uses (ZSTD, level 1); prints the medians
 * of the wall time, of the process's CPU time (and the least CPU time)
 * and of its system time, and the file's size and FNV-1a hash (the same in every run, or
 * exit status 1):
 *   render: wall S s, cpu S s (least S s), the kernel's S s
 *   bytes B, fnv1a H
 * Exit status 2 on bad usage, 1 when the log or the table fails. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "bench_log.h"

#include "darshanfs/hash.h"
#include "darshanfs/log.h"
#include "darshanfs/module.h"
#include "parquet/parquet.h"

/* the kernel's part of it (faulting in fresh memory, above all) */
static double sys_cpu(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return (double)u.ru_stime.tv_sec + (double)u.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	struct bench_log bl;
	int status = bench_log_open(argc, argv, 2, &bl);
	if (status)
		return status;
	dfs_error err;
	double rw[99], rc[99], rs[99];
	uint64_t hash0 = 0;
	size_t bytes = 0;
	for (int i = 0; i < bl.runs; i++) {
		struct dfs_pq_options o = {.codec = DFS_PQ_ZSTD, .level = 1,
		                           .threads = (size_t)bl.threads};
		dfs_buf *parts;
		size_t nparts;
		double w0 = now(), c0 = cpu(), s0 = sys_cpu();
		if (dfs_pq_records(bl.log, bl.r->module, bl.r, NULL, bl.r->count, &o, &parts, &nparts, &err)) {
			fprintf(stderr, "%s\n", err.msg);
			return 1;
		}
		double w1 = now(), c1 = cpu(), s1 = sys_cpu();
		uint64_t h = DFS_FNV1A_INIT;
		size_t len = 0;
		for (size_t k = 0; k < nparts; k++) {
			h = dfs_fnv1a(h, parts[k].data, parts[k].len);
			len += parts[k].len;
			dfs_buf_free(&parts[k]);
		}
		free(parts);
		if (i > 0 && (h != hash0 || len != bytes)) {
			fprintf(stderr, "run %d: a different file\n", i + 1);
			return 1;
		}
		hash0 = h;
		bytes = len;
		rw[i] = w1 - w0;
		rc[i] = c1 - c0;
		rs[i] = s1 - s0;
	}
	qsort(rw, (size_t)bl.runs, sizeof(double), cmp_double);
	qsort(rc, (size_t)bl.runs, sizeof(double), cmp_double);
	qsort(rs, (size_t)bl.runs, sizeof(double), cmp_double);
	printf("render: wall %.3f s, cpu %.3f s (least %.3f s), the kernel's %.3f s\n", rw[bl.runs / 2],
	       rc[bl.runs / 2], rc[0], rs[bl.runs / 2]);
	printf("bytes %zu, fnv1a %016llx\n", bytes, (unsigned long long)hash0);
	dfs_log_free(bl.log);
	return 0;
}
