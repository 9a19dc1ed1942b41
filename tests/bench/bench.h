/* bench.h - what the benchmark programs share: clocks, and the order
 * qsort sorts run times in (for their medians). */
#ifndef DFS_BENCH_H
#define DFS_BENCH_H

#include <time.h>

/* seconds on the monotonic clock */
static inline double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* seconds of CPU of the whole process, every thread */
static inline double cpu(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

#endif
