/* plausible.c - what no run of Darshan can have measured: the one place
 * that says so, for the data-quality findings of a log (evidence.c,
 * insights.c), the warning of its derived metrics and the sums of the
 * directory summaries (dir.c, and whatever sums jobs.csv). */
#include <math.h>
#include <stdio.h>

#include "darshanfs/summary.h"

/* (a time a nanosecond or more below zero: no Darshan timer resolves
 * less, so what is closer to 0 reads as 0 whatever its sign) */
bool dfs_implausible_time(double seconds)
{
	return !isfinite(seconds) || (seconds <= -1e-9 && seconds != -1);
}

bool dfs_implausible_bytes(double bytes, int64_t nprocs)
{
	return !isfinite(bytes) || bytes < -(double)(nprocs > 1 ? nprocs : 1);
}

/* the I/O time the job's processes had, or 0 when not known */
static double job_seconds(const dfs_job_numbers *n)
{
	return n->nprocs > 0 && n->run_time > 0 ? (double)n->nprocs * n->run_time : 0;
}

unsigned dfs_job_numbers_doubts(const dfs_job_numbers *n)
{
	unsigned d = 0;
	if (!isfinite(n->bytes) || n->bytes < 0)
		d |= DFS_DOUBT_BYTES;
	double most = job_seconds(n);
	if (!isfinite(n->time) || n->time < 0 || (most > 0 && n->time > most))
		d |= DFS_DOUBT_TIME | DFS_DOUBT_PERF;
	if (!isfinite(n->perf) || n->perf < 0)
		d |= DFS_DOUBT_PERF;
	return d;
}

const char *dfs_job_numbers_why(const dfs_job_numbers *n, char *buf, size_t len)
{
	unsigned d = dfs_job_numbers_doubts(n);
	size_t at = 0;
	buf[0] = '\0';
	if (!len)
		return buf;
#define SAY(...) do { if (at < len) at += (size_t)snprintf(buf + at, len - at, __VA_ARGS__); } while (0)
	if (d & DFS_DOUBT_BYTES)
		SAY("%g bytes is not a number of bytes", n->bytes);
	if (d & DFS_DOUBT_TIME) {
		double most = job_seconds(n);
		if (at)
			SAY("; ");
		if (!isfinite(n->time) || n->time < 0)
			SAY("an I/O time of %g s is not a time", n->time);
		else
			SAY("an I/O time of %g s is more than the %lld process%s had "
			    "(%lld x %g s of run time = %g s)", n->time, (long long)n->nprocs,
			    n->nprocs == 1 ? "" : "es", (long long)n->nprocs, n->run_time, most);
	}
	if (d & DFS_DOUBT_PERF) {
		if (at)
			SAY("; ");
		if (d & DFS_DOUBT_TIME)
			SAY("the performance computed from it (%g MiB/s) cannot be trusted either",
			    n->perf);
		else
			SAY("%g MiB/s is not a performance", n->perf);
	}
#undef SAY
	return buf;
}
