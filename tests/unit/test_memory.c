/* test_memory.c - the memory helpers: fixed buffers never move and fail
 * when full, slabs hold what was written after trimming, and scratch
 * blocks are recycled (warm) and keep their bytes across a realloc. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "darshanfs/buf.h"
#include "darshanfs/scratch.h"
#include "darshanfs/slab.h"

static void test_fixed_buffer(void **state)
{
	(void)state;
	char space[16];
	dfs_buf b;
	dfs_buf_init_fixed(&b, space, sizeof(space));
	dfs_buf_adds(&b, "0123456789");
	assert_true(dfs_buf_ok(&b));
	assert_ptr_equal(b.data, space);
	assert_string_equal(space, "0123456789");
	/* 10 + 6 bytes leave no room for the terminating NUL: refused */
	dfs_buf_adds(&b, "abcdef");
	assert_false(dfs_buf_ok(&b));
	assert_ptr_equal(b.data, space);
	assert_int_equal(b.len, 10);
	dfs_buf_free(&b); /* borrowed memory: not freed */
	dfs_buf_init_fixed(&b, space, 0);
	assert_false(dfs_buf_ok(&b));
}

/* Resident pages of [p, p + len) (len a multiple of the page size). */
static size_t resident(const char *p, size_t len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), n = len / pg, in = 0;
	unsigned char *vec = malloc(n);
	assert_non_null(vec);
	assert_int_equal(mincore((void *)p, len, vec), 0);
	for (size_t i = 0; i < n; i++)
		in += vec[i] & 1;
	free(vec);
	return in * pg;
}

/* A slab costs memory only where it was written, and trimming keeps
 * what was written. */
static void test_slab(void **state)
{
	(void)state;
	dfs_slab s;
	assert_int_equal(dfs_slab_reserve(&s, (size_t)64 << 20), 0);
	assert_true(s.cap >= (size_t)64 << 20);
	assert_int_equal((uintptr_t)s.base % 4096, 0);
	assert_int_equal(resident(s.base, s.cap), 0);
	size_t n = (size_t)5 << 20;
	for (size_t i = 0; i < n; i++)
		s.base[i] = (char)(i * 7);
	/* (up to a 2 MiB page more where huge pages are always on) */
	size_t in = resident(s.base, s.cap);
	assert_true(in >= n && in <= n + ((size_t)2 << 20));
	s.used = n;
	dfs_slab_trim(&s);
	assert_true(s.cap >= n && s.cap < n + 4096 * 16);
	for (size_t i = 0; i < n; i += 4093)
		assert_int_equal(s.base[i], (char)(i * 7));
	dfs_slab_release(&s);
	assert_null(s.base);
	assert_int_equal(dfs_slab_reserve(&s, 0), -1);
}

static void test_scratch_recycles(void **state)
{
	(void)state;
	dfs_scratch_trim();
	size_t big = (size_t)8 << 20;
	char *a = dfs_scratch_alloc(big);
	assert_non_null(a);
	memset(a, 1, big);
	dfs_scratch_free(a);
	/* the same size again: the kept block, not a new mapping */
	char *b = dfs_scratch_alloc(big - 100);
	assert_ptr_equal(a, b);
	dfs_scratch_free(b);
	/* a much smaller request does not take a kept block 4x its size */
	char *c = dfs_scratch_alloc((size_t)1 << 20);
	assert_non_null(c);
	assert_ptr_not_equal(c, b);
	dfs_scratch_free(c);
	dfs_scratch_trim();
	/* small blocks come from malloc and work the same way */
	char *d = dfs_scratch_alloc(100);
	assert_non_null(d);
	memcpy(d, "hello", 6);
	d = dfs_scratch_realloc(d, 6, (size_t)3 << 20);
	assert_non_null(d);
	assert_string_equal(d, "hello");
	d[((size_t)3 << 20) - 1] = 'x';
	dfs_scratch_free(d);
	dfs_scratch_free(NULL);
	dfs_scratch_trim();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixed_buffer),
		cmocka_unit_test(test_slab),
		cmocka_unit_test(test_scratch_recycles),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
