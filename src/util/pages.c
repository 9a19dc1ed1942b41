/* pages.c - the page size of big mappings (see util/pages.h). */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "util/pages.h"

#define HUGE_BYTES ((size_t)2 << 20)

/* 0: not measured yet, 1: huge pages pay, 2: they do not */
static atomic_int verdict;

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* seconds to fault in and fill [p, p + len) */
static double fill(char *p, size_t len)
{
	double t0 = now();
	memset(p, 1, len);
	return now() - t0;
}

static bool measure(void)
{
#if defined(MADV_HUGEPAGE) && defined(MADV_NOHUGEPAGE)
	/* two huge pages against as many bytes of small ones, in turns (a
	 * burst of other work hits both) */
	size_t len = 2 * HUGE_BYTES, map = 2 * len + HUGE_BYTES;
	char *raw = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return false;
	char *base = (char *)(((uintptr_t)raw + HUGE_BYTES - 1) & ~(uintptr_t)(HUGE_BYTES - 1));
	char *small = base, *big = base + len;
	bool pays = false;
	if (madvise(small, len, MADV_NOHUGEPAGE) == 0 && madvise(big, len, MADV_HUGEPAGE) == 0) {
		double t_small = fill(small, HUGE_BYTES), t_big = fill(big, HUGE_BYTES);
		t_big += fill(big + HUGE_BYTES, HUGE_BYTES);
		t_small += fill(small + HUGE_BYTES, HUGE_BYTES);
		pays = t_big < t_small;
	}
	munmap(raw, map);
	return pays;
#else
	return false;
#endif
}

bool dfs_pages_huge_pays(void)
{
	int v = atomic_load(&verdict);
	if (v == 0) {
		/* (two threads may both measure: each stores what it found) */
		v = measure() ? 1 : 2;
		atomic_store(&verdict, v);
	}
	return v == 1;
}

void dfs_pages_huge(void *p, size_t len)
{
#ifdef MADV_HUGEPAGE
	if (p && len >= HUGE_BYTES && dfs_pages_huge_pays())
		madvise(p, len, MADV_HUGEPAGE);
#else
	(void)p;
	(void)len;
#endif
}
