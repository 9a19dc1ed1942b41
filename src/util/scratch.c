/* scratch.c - recycled memory for big short-lived arrays (see
 * util/scratch.h).
 *
 * A block is one anonymous mapping with a header of one cache line in
 * front recording its size.  Freed blocks are kept by their pool, up to
 * DFS_SCRATCH_KEEP of them and KEEP_BYTES in all; a request takes the
 * smallest kept block that fits it without wasting more than three
 * quarters of it, and a request bigger than every kept block grows the
 * biggest (its pages moved, not faulted in again).  On a virtual machine
 * whose host takes back the memory the guest frees, a fresh page costs
 * the host's fault as well as the guest's: files.csv of a million
 * records, after a zlib inflate of its log, spent 0.11 s of system time
 * building its rows from all-fresh memory, 0.08 s with the 34 MiB block
 * derived_metrics left grown into its 124 MiB of rows. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "util/scratch.h"

#define SMALL ((size_t)1 << 20)
#define HEADER 64
#define KEEP_BYTES ((size_t)128 << 20)
#define GRAIN ((size_t)2 << 20)

struct dfs_scratch_block {
	size_t size;          /* bytes mapped, header included; 0: malloc'd */
};
typedef struct dfs_scratch_block header;

void dfs_scratch_init(dfs_scratch *pool)
{
	pthread_mutex_init(&pool->lock, NULL);
	pool->n_kept = 0;
	pool->kept_bytes = 0;
}

void dfs_scratch_destroy(dfs_scratch *pool)
{
	if (!pool)
		return;
	dfs_scratch_trim(pool);
	pthread_mutex_destroy(&pool->lock);
}

static void *payload(header *h)
{
	return (char *)h + HEADER;
}

static header *header_of(void *p)
{
	return (header *)((char *)p - HEADER);
}

/* A kept block of at least `need` bytes, taken out of the pool; else,
 * when every kept block is smaller than that, the biggest (*smaller set:
 * to be grown); or NULL */
static header *take_kept(dfs_scratch *pool, size_t need, bool *smaller)
{
	*smaller = false;
	if (!pool)
		return NULL;
	pthread_mutex_lock(&pool->lock);
	size_t n = pool->n_kept, best = n, biggest = n;
	bool all_smaller = true;
	for (size_t i = 0; i < n; i++) {
		size_t have = pool->kept[i]->size;
		if (have >= need && have / 4 <= need &&
		    (best == n || have < pool->kept[best]->size))
			best = i;
		if (have >= need)
			all_smaller = false;
		else if (biggest == n || have > pool->kept[biggest]->size)
			biggest = i;
	}
	if (best == n && all_smaller && biggest < n) {
		best = biggest;
		*smaller = true;
	}
	header *h = NULL;
	if (best < n) {
		h = pool->kept[best];
		pool->kept[best] = pool->kept[--pool->n_kept];
		pool->kept_bytes -= h->size;
	}
	pthread_mutex_unlock(&pool->lock);
	return h;
}

/* Transparent huge pages for a new mapping, before it is faulted in
 * (a mapping is a whole number of 2 MiB: the kernel places it on a 2 MiB
 * boundary).  A fresh 4 KiB page costs a fault each, and on a virtual
 * machine an exit to the host at its first touch: filling 187 MiB of
 * fresh 4 KiB pages took 0.48-0.75 s on an AMD EPYC host, of huge pages
 * 0.03-0.23 s, of warm ones 0.012 s (on an Intel host fresh huge pages
 * cost about what as many 4 KiB pages did).  Arrays read and written in
 * no order miss the TLB less too. */
static void huge(void *m, size_t len)
{
#ifdef MADV_HUGEPAGE
	madvise(m, len, MADV_HUGEPAGE);
#else
	(void)m;
	(void)len;
#endif
}

/* Block h grown to `len` bytes (a whole number of GRAIN), moved by its
 * page tables to a boundary of GRAIN: its pages stay in memory, warm (a
 * huge page moved off such a boundary would be split, and the new pages
 * past it could not be huge).  NULL, h left as it was, when that fails. */
static header *grow_kept(header *h, size_t len)
{
	/* a range with room for `len` bytes at a boundary, reserved */
	size_t span = len + GRAIN;
	char *res = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
	                 -1, 0);
	if (res == MAP_FAILED)
		return NULL;
	char *at = (char *)(((uintptr_t)res + GRAIN - 1) & ~(uintptr_t)(GRAIN - 1));
	void *m = mremap(h, h->size, len, MREMAP_MAYMOVE | MREMAP_FIXED, at);
	if (m == MAP_FAILED) {
		munmap(res, span);
		return NULL;
	}
	/* (the reservation's ends around it) */
	if (at > res)
		munmap(res, (size_t)(at - res));
	if (res + span > at + len)
		munmap(at + len, (size_t)(res + span - (at + len)));
	h = m;
	h->size = len;
	return h;
}

void *dfs_scratch_alloc(dfs_scratch *pool, size_t size)
{
	bool zero;
	return dfs_scratch_alloc_fresh(pool, size, &zero);
}

void *dfs_scratch_alloc_fresh(dfs_scratch *pool, size_t size, bool *zero)
{
	*zero = false;
	if (size > SIZE_MAX - HEADER - GRAIN)
		return NULL;
	if (size + HEADER < SMALL) {
		header *h = malloc(size + HEADER);
		if (!h)
			return NULL;
		h->size = 0;
		return payload(h);
	}
	size_t need = size + HEADER;
	bool smaller;
	header *h = take_kept(pool, need, &smaller);
	size_t len = (need + GRAIN - 1) / GRAIN * GRAIN;
	if (h && smaller) {
		/* a request bigger than every kept block: the biggest grows
		 * into it, its pages warm, the rest fresh (not zero as a
		 * whole) */
		header *g = grow_kept(h, len);
		if (g)
			return payload(g);
		dfs_scratch_free(pool, payload(h));
		h = NULL;
	}
	if (h)
		return payload(h);
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	huge(m, len);
	h = m;
	h->size = len;
	*zero = true;
	return payload(h);
}

void dfs_pages_populate(void *p, size_t len)
{
#ifdef MADV_POPULATE_WRITE
	uintptr_t start = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
	uintptr_t end = ((uintptr_t)p + len) & ~(uintptr_t)4095;
	if (p && start < end)
		madvise((void *)start, end - start, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)len;
#endif
}

/* A mapped block grows where it is or moves by its page tables
 * (mremap): neither its bytes are copied nor its pages faulted in again,
 * which for an array grown by doubling costs as much as filling it. */
static void *grow_mapped(void *p, size_t size)
{
	header *h = header_of(p);
	size_t need = size + HEADER;
	if (need <= h->size)
		return p;
	size_t len = (need + GRAIN - 1) / GRAIN * GRAIN;
	size_t had = h->size;
	void *m = mremap(h, had, len, MREMAP_MAYMOVE);
	if (m == MAP_FAILED)
		return NULL;
	/* the new pages in one call */
	dfs_pages_populate((char *)m + had, len - had);
	h = m;
	h->size = len;
	return payload(h);
}

void *dfs_scratch_realloc(dfs_scratch *pool, void *p, size_t old, size_t size)
{
	if (p && header_of(p)->size != 0 && size <= SIZE_MAX - HEADER - GRAIN) {
		void *g = grow_mapped(p, size);
		if (g)
			return g;
	}
	void *n = dfs_scratch_alloc(pool, size);
	if (!n)
		return NULL;
	if (p) {
		memcpy(n, p, old < size ? old : size);
		dfs_scratch_free(pool, p);
	}
	return n;
}

void dfs_scratch_prefault(void *p, size_t from, size_t size)
{
	if (!p || header_of(p)->size == 0)
		return;
	header *h = header_of(p);
	size_t start = (from + HEADER) & ~(size_t)4095;   /* mappings are page-aligned */
	size_t end = from + HEADER + size;
	if (end > h->size)
		end = h->size;
	if (start < end)
		dfs_pages_populate((char *)h + start, end - start);
}

void dfs_scratch_free(dfs_scratch *pool, void *p)
{
	if (!p)
		return;
	header *h = header_of(p);
	if (h->size == 0) {
		free(h);
		return;
	}
	if (pool) {
		pthread_mutex_lock(&pool->lock);
		if (pool->n_kept < DFS_SCRATCH_KEEP &&
		    pool->kept_bytes + h->size <= KEEP_BYTES) {
			pool->kept[pool->n_kept++] = h;
			pool->kept_bytes += h->size;
			h = NULL;
		}
		pthread_mutex_unlock(&pool->lock);
	}
	if (h)
		munmap(h, h->size);
}

void dfs_scratch_trim(dfs_scratch *pool)
{
	if (!pool)
		return;
	pthread_mutex_lock(&pool->lock);
	while (pool->n_kept) {
		header *h = pool->kept[--pool->n_kept];
		munmap(h, h->size);
	}
	pool->kept_bytes = 0;
	pthread_mutex_unlock(&pool->lock);
}

size_t dfs_scratch_kept(dfs_scratch *pool)
{
	if (!pool)
		return 0;
	pthread_mutex_lock(&pool->lock);
	size_t n = pool->kept_bytes;
	pthread_mutex_unlock(&pool->lock);
	return n;
}
