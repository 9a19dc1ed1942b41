/* workers.h - how many threads to start for a piece of parallel work,
 * and running one job on that many. */
#ifndef DFS_UTIL_WORKERS_H
#define DFS_UTIL_WORKERS_H

#include <pthread.h>
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

#define DFS_WORKERS_MAX 16

/* Run fn(arg) on `threads` threads at once (at most DFS_WORKERS_MAX), the
 * caller being one of them, and wait for all: for jobs whose threads
 * share out the work through `arg` themselves.  Threads that cannot be
 * started are done without (the caller's share then grows). */
static inline void dfs_workers_run(size_t threads, void *(*fn)(void *), void *arg)
{
	pthread_t tid[DFS_WORKERS_MAX];
	size_t started = 0;
	for (size_t t = 1; t < threads && t < DFS_WORKERS_MAX; t++)
		if (pthread_create(&tid[started], NULL, fn, arg) == 0)
			started++;
	fn(arg);
	for (size_t t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
}

#endif
