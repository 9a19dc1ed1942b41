/* scratch.c - recycled memory for big short-lived arrays (see
 * darshanfs/scratch.h).
 *
 * A block is one anonymous mapping with a header of one cache line in
 * front recording its size.  Freed blocks are kept, up to KEEP_BLOCKS of
 * them and KEEP_BYTES in all; a request takes the smallest kept block
 * that fits it without wasting more than three quarters of it. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "util/scratch.h"

#define SMALL ((size_t)1 << 20)
#define HEADER 64
#define KEEP_BLOCKS 8
#define KEEP_BYTES ((size_t)128 << 20)
#define GRAIN ((size_t)2 << 20)

struct header {
	size_t size;          /* bytes mapped, header included; 0: malloc'd */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct header *kept[KEEP_BLOCKS];
static size_t n_kept, kept_bytes;

static void *payload(struct header *h)
{
	return (char *)h + HEADER;
}

static struct header *header_of(void *p)
{
	return (struct header *)((char *)p - HEADER);
}

void *dfs_scratch_alloc(size_t size)
{
	if (size > SIZE_MAX - HEADER - GRAIN)
		return NULL;
	if (size + HEADER < SMALL) {
		struct header *h = malloc(size + HEADER);
		if (!h)
			return NULL;
		h->size = 0;
		return payload(h);
	}
	size_t need = size + HEADER;
	pthread_mutex_lock(&lock);
	size_t best = n_kept;
	for (size_t i = 0; i < n_kept; i++)
		if (kept[i]->size >= need && kept[i]->size / 4 <= need &&
		    (best == n_kept || kept[i]->size < kept[best]->size))
			best = i;
	struct header *h = NULL;
	if (best < n_kept) {
		h = kept[best];
		kept[best] = kept[--n_kept];
		kept_bytes -= h->size;
	}
	pthread_mutex_unlock(&lock);
	if (h)
		return payload(h);
	size_t len = (need + GRAIN - 1) / GRAIN * GRAIN;
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	h = m;
	h->size = len;
	return payload(h);
}

/* A mapped block grows where it is or moves by its page tables
 * (mremap): neither its bytes are copied nor its pages faulted in again,
 * which for an array grown by doubling costs as much as filling it. */
static void *grow_mapped(void *p, size_t size)
{
	struct header *h = header_of(p);
	size_t need = size + HEADER;
	if (need <= h->size)
		return p;
	size_t len = (need + GRAIN - 1) / GRAIN * GRAIN;
	size_t had = h->size;
	void *m = mremap(h, had, len, MREMAP_MAYMOVE);
	if (m == MAP_FAILED)
		return NULL;
#ifdef MADV_POPULATE_WRITE
	/* the new pages in one call: one page fault each costs several times
	 * more (on a virtual machine most of all) */
	madvise((char *)m + had, len - had, MADV_POPULATE_WRITE);
#endif
	h = m;
	h->size = len;
	return payload(h);
}

void *dfs_scratch_realloc(void *p, size_t old, size_t size)
{
	if (p && header_of(p)->size != 0 && size <= SIZE_MAX - HEADER - GRAIN) {
		void *g = grow_mapped(p, size);
		if (g)
			return g;
	}
	void *n = dfs_scratch_alloc(size);
	if (!n)
		return NULL;
	if (p) {
		memcpy(n, p, old < size ? old : size);
		dfs_scratch_free(p);
	}
	return n;
}

void dfs_scratch_prefault(void *p, size_t from, size_t size)
{
#ifdef MADV_POPULATE_WRITE
	if (!p || header_of(p)->size == 0)
		return;
	struct header *h = header_of(p);
	size_t start = (from + HEADER) & ~(size_t)4095;   /* mappings are page-aligned */
	size_t end = from + HEADER + size;
	if (end > h->size)
		end = h->size;
	if (start < end)
		madvise((char *)h + start, end - start, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)from;
	(void)size;
#endif
}

void dfs_scratch_free(void *p)
{
	if (!p)
		return;
	struct header *h = header_of(p);
	if (h->size == 0) {
		free(h);
		return;
	}
	pthread_mutex_lock(&lock);
	if (n_kept < KEEP_BLOCKS && kept_bytes + h->size <= KEEP_BYTES) {
		kept[n_kept++] = h;
		kept_bytes += h->size;
		h = NULL;
	}
	pthread_mutex_unlock(&lock);
	if (h)
		munmap(h, h->size);
}

void dfs_scratch_trim(void)
{
	pthread_mutex_lock(&lock);
	while (n_kept) {
		struct header *h = kept[--n_kept];
		munmap(h, h->size);
	}
	kept_bytes = 0;
	pthread_mutex_unlock(&lock);
}
