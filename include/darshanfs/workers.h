/* workers.h - how many threads to start for a piece of parallel work. */
#ifndef DARSHANFS_WORKERS_H
#define DARSHANFS_WORKERS_H

#include <stddef.h>
#include <unistd.h>

/* One per online core, at most `max`, at most `jobs` (pieces of work to
 * share out), at least 1. */
static inline size_t dfs_workers(size_t max, size_t jobs)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = cpus > 1 ? (size_t)cpus : 1;
	if (n > max)
		n = max;
	if (n > jobs)
		n = jobs ? jobs : 1;
	return n;
}

#endif
