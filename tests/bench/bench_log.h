/* bench_log.h - the command line of the benchmark programs that time one
 * module of one log without a mount (dfs-bench-files, dfs-bench-parquet):
 *
 *   PROGRAM [-r RUNS] [-m MODULE] [-t THREADS] LOG
 *
 * (bench.h holds what every benchmark program shares; this one needs
 * the library.) */
#ifndef DFS_BENCH_LOG_H
#define DFS_BENCH_LOG_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "darshanfs/log.h"
#include "darshanfs/module.h"

struct bench_log {
	int runs;                 /* 1 to 99, default 3 */
	int threads;              /* 1 to 16 */
	dfs_log *log;
	const dfs_records *r;     /* the module's records (default POSIX) */
};

/* The options and the log opened, its module's records found: 0, or
 * the exit status to return (2 bad usage, said; 1 the log or the module
 * is not there, said). */
static inline int bench_log_open(int argc, char **argv, int threads, struct bench_log *b)
{
	const char *mod = "POSIX";
	int opt;
	bool bad = false;
	b->runs = 3;
	b->threads = threads;
	while ((opt = getopt(argc, argv, "r:m:t:")) != -1) {
		switch (opt) {
		case 'r': b->runs = atoi(optarg); break;
		case 'm': mod = optarg; break;
		case 't': b->threads = atoi(optarg); break;
		default: bad = true; break;
		}
	}
	if (bad || optind + 1 != argc || b->runs < 1 || b->runs > 99 || b->threads < 1 ||
	    b->threads > 16) {
		fprintf(stderr, "usage: %s [-r RUNS] [-m MODULE] [-t THREADS] LOG\n", argv[0]);
		return 2;
	}
	dfs_error err;
	b->log = dfs_log_open(argv[optind], 0, &err);
	if (!b->log) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	const dfs_module *m = dfs_module_by_name(mod);
	b->r = m ? dfs_log_records(b->log, m->id) : NULL;
	if (!b->r) {
		fprintf(stderr, "%s: no module %s\n", argv[optind], mod);
		return 1;
	}
	return 0;
}

#endif
