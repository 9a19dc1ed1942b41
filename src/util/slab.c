/* slab.c - large write-once memory regions (see darshanfs/slab.h). */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "darshanfs/slab.h"

#define HUGE_PAGE ((size_t)2 << 20)

static size_t page_size(void)
{
	long p = sysconf(_SC_PAGESIZE);
	return p > 0 ? (size_t)p : 4096;
}

static size_t round_up(size_t n, size_t to)
{
	return (n + to - 1) / to * to;
}

void dfs_huge_advise(void *p, size_t len)
{
#ifdef MADV_HUGEPAGE
	uintptr_t a = round_up((uintptr_t)p, HUGE_PAGE);
	uintptr_t e = ((uintptr_t)p + len) / HUGE_PAGE * HUGE_PAGE;
	if (e > a)
		(void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
	(void)p;
	(void)len;
#endif
}

int dfs_slab_reserve(dfs_slab *s, size_t cap)
{
	memset(s, 0, sizeof(*s));
	size_t pg = page_size();
	if (cap == 0 || cap > SIZE_MAX / 2)
		return -1;
	cap = round_up(cap, pg);
	/* over-reserve by a huge page so the slab can start on a 2 MiB
	 * boundary, then give back the unaligned head and tail */
	size_t span = cap >= 2 * HUGE_PAGE ? cap + HUGE_PAGE : cap;
	char *p = mmap(NULL, span, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	char *base = p;
	if (span > cap) {
		base = (char *)round_up((uintptr_t)p, HUGE_PAGE);
		size_t head = (size_t)(base - p);
		if (head)
			munmap(p, head);
		if (span - head > cap)
			munmap(base + cap, span - head - cap);
		dfs_huge_advise(base, cap);
	}
	s->base = base;
	s->cap = cap;
	return 0;
}

void dfs_slab_trim(dfs_slab *s)
{
	if (!s->base)
		return;
	size_t keep = round_up(s->used ? s->used : 1, page_size());
	if (keep < s->cap) {
		munmap(s->base + keep, s->cap - keep);
		s->cap = keep;
	}
}

void dfs_slab_release(dfs_slab *s)
{
	if (s->base)
		munmap(s->base, s->cap);
	memset(s, 0, sizeof(*s));
}
