/* buf.h - a growable byte buffer, used everywhere text or binary data is
 * built up (rendered files, records being repacked, error messages).
 *
 * The buffer is always NUL terminated after `len` bytes once anything has
 * been added, so `data` can be used as a C string.  Allocation failure is
 * sticky: the first failed growth sets `oom` and later appends do nothing,
 * so builders check once at the end with dfs_buf_ok(). */
#ifndef DARSHANFS_BUF_H
#define DARSHANFS_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct dfs_buf {
	char *data;
	size_t len;
	size_t cap;
	bool oom;
	bool fixed;   /* data is borrowed space of `cap` bytes: never moved */
} dfs_buf;

#define DFS_BUF_INIT {NULL, 0, 0, false, false}

/* A buffer writing into `cap` bytes of borrowed memory at `space`: it never
 * reallocates; running out of room makes it fail (dfs_buf_ok() false). */
void dfs_buf_init_fixed(dfs_buf *b, char *space, size_t cap);

void dfs_buf_init(dfs_buf *b);
void dfs_buf_free(dfs_buf *b);
void dfs_buf_reset(dfs_buf *b); /* len = 0, keep the memory */
bool dfs_buf_grow(dfs_buf *b, size_t extra); /* room for `extra` more bytes */
/* The same for a size known in advance: when the buffer must grow, it
 * grows to exactly that room (one allocation, no geometric slack), and an
 * empty buffer's old bytes are not copied. */
bool dfs_buf_reserve(dfs_buf *b, size_t extra);
static inline bool dfs_buf_ok(const dfs_buf *b) { return !b->oom; }

void dfs_buf_add(dfs_buf *b, const void *data, size_t len);
void dfs_buf_adds(dfs_buf *b, const char *s);
void dfs_buf_addc(dfs_buf *b, char c);
void dfs_buf_printf(dfs_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void dfs_buf_vprintf(dfs_buf *b, const char *fmt, va_list ap);
void dfs_buf_add_i64(dfs_buf *b, int64_t v);
void dfs_buf_add_u64(dfs_buf *b, uint64_t v);
/* shortest text that reads back to the identical double */
void dfs_buf_add_double(dfs_buf *b, double v);
/* zero-filled space of `len` bytes; returns a pointer to it or NULL */
void *dfs_buf_add_zeros(dfs_buf *b, size_t len);

/* Hand the memory over to the caller (who frees it); the buffer is reset. */
char *dfs_buf_detach(dfs_buf *b, size_t *len);

#endif
