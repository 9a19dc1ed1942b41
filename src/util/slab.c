/* slab.c - large write-once memory regions (see util/slab.h). */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/scratch.h"
#include "util/slab.h"

static size_t page_size(void)
{
	long p = sysconf(_SC_PAGESIZE);
	return p > 0 ? (size_t)p : 4096;
}

static size_t round_up(size_t n, size_t to)
{
	return (n + to - 1) / to * to;
}

int dfs_slab_reserve(dfs_slab *s, size_t cap)
{
	memset(s, 0, sizeof(*s));
	if (cap == 0 || cap > SIZE_MAX / 2)
		return -1;
	cap = round_up(cap, page_size());
	char *p = mmap(NULL, cap, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	s->base = p;
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

/* (a stretch: 1 MiB) */
#define STRETCH_SHIFT 20

void dfs_slab_written(char *base, size_t cap, size_t from, size_t to)
{
	size_t was = from >> STRETCH_SHIFT, now = to >> STRETCH_SHIFT;
	if (from != 0 && was == now)
		return;
	size_t start = from == 0 ? 0 : (now + 1) << STRETCH_SHIFT;
	size_t end = (now + 2) << STRETCH_SHIFT;
	if (end > cap)
		end = cap;
	if (start < end)
		dfs_pages_populate(base + start, end - start);
}
