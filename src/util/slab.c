/* slab.c - large write-once memory regions (see darshanfs/slab.h). */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
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

/* ---- faulting in ahead of the writer ------------------------------------------ */

#define AHEAD ((size_t)8 << 20)    /* how far past the writer */
#define STEP ((size_t)2 << 20)     /* writer progress worth telling */

struct dfs_slab_ahead {
	pthread_t tid;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	char *base;          /* the slab being written */
	size_t cap;
	size_t done;         /* faulted in (or written) up to here */
	size_t want;         /* fault in up to here */
	bool stop;
	/* the writer's side only */
	const char *told_base;
	size_t next_note;
};

static void *ahead_main(void *arg)
{
	dfs_slab_ahead *a = arg;
	pthread_mutex_lock(&a->lock);
	for (;;) {
		while (!a->stop && a->want <= a->done)
			pthread_cond_wait(&a->cond, &a->lock);
		if (a->stop)
			break;
		char *base = a->base;
		size_t from = a->done, to = a->want < from + HUGE_PAGE ? a->want : from + HUGE_PAGE;
		/* whole pages (the writer's last one is already in) */
		size_t pg = page_size();
		size_t start = from / pg * pg, end = round_up(to, pg);
		pthread_mutex_unlock(&a->lock);
		int rc = 0;
#ifdef MADV_POPULATE_WRITE
		rc = madvise(base + start, end - start, MADV_POPULATE_WRITE);
#endif
		pthread_mutex_lock(&a->lock);
		if (a->base == base && a->done == from)
			a->done = rc == 0 ? to : a->want;   /* a failure: give up this stretch */
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

dfs_slab_ahead *dfs_slab_ahead_start(void)
{
#ifndef MADV_POPULATE_WRITE
	return NULL;
#else
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return NULL;
	/* the kernel must know how (5.14 on): a probe on one page of our own */
	size_t pg = page_size();
	void *probe = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (probe == MAP_FAILED)
		return NULL;
	int rc = madvise(probe, pg, MADV_POPULATE_WRITE);
	munmap(probe, pg);
	if (rc != 0)
		return NULL;
	dfs_slab_ahead *a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->cond, NULL);
	if (pthread_create(&a->tid, NULL, ahead_main, a) != 0) {
		pthread_mutex_destroy(&a->lock);
		pthread_cond_destroy(&a->cond);
		free(a);
		return NULL;
	}
	return a;
#endif
}

void dfs_slab_ahead_note(dfs_slab_ahead *a, char *base, size_t cap, size_t used)
{
	if (!a || !base || (base == a->told_base && used < a->next_note))
		return;
	pthread_mutex_lock(&a->lock);
	if (base != a->base) {
		a->base = base;
		a->cap = cap;
		a->done = a->want = used;
	}
	if (a->done < used)
		a->done = used;   /* the writer got there first */
	size_t want = used + AHEAD < cap ? used + AHEAD : cap;
	if (want > a->want)
		a->want = want;
	pthread_cond_signal(&a->cond);
	pthread_mutex_unlock(&a->lock);
	a->told_base = base;
	a->next_note = used + STEP;
}

void dfs_slab_ahead_stop(dfs_slab_ahead *a)
{
	if (!a)
		return;
	pthread_mutex_lock(&a->lock);
	a->stop = true;
	pthread_cond_signal(&a->cond);
	pthread_mutex_unlock(&a->lock);
	pthread_join(a->tid, NULL);
	pthread_mutex_destroy(&a->lock);
	pthread_cond_destroy(&a->cond);
	free(a);
}
