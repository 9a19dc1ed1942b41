/* buf.c - growable byte buffer (see darshanfs/buf.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "darshanfs/buf.h"
#include "util/format.h"

void dfs_buf_init(dfs_buf *b)
{
	b->data = NULL;
	b->len = b->cap = 0;
	b->oom = false;
	b->fixed = false;
}

void dfs_buf_init_fixed(dfs_buf *b, char *space, size_t cap)
{
	b->data = space;
	b->len = 0;
	b->cap = cap;
	b->oom = cap == 0;
	b->fixed = true;
	if (cap)
		space[0] = '\0';
}

void dfs_buf_free(dfs_buf *b)
{
	if (!b->fixed)
		free(b->data);
	dfs_buf_init(b);
}

void dfs_buf_reset(dfs_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
	b->oom = false;
}

/* Room for `extra` more bytes: 1 when there is (or was made), 0 when
 * it must grow to `need` bytes (set), -1 when it cannot (oom set). */
static int check_room(dfs_buf *b, size_t extra, size_t *need)
{
	if (b->oom)
		return -1;
	if (extra < b->cap - b->len && b->data)
		return 1;
	if (b->fixed || extra > SIZE_MAX / 2 - b->len) {
		b->oom = true;
		return -1;
	}
	*need = b->len + extra + 1;
	return 0;
}

/* The memory becomes `cap` bytes.  An empty buffer's bytes need not
 * move: a fresh block spares realloc copying the old one (reset buffers
 * that are reused for bigger texts). */
static bool resize(dfs_buf *b, size_t cap)
{
	char *p;
	if (b->len == 0) {
		free(b->data);
		b->data = NULL;
		b->cap = 0;
		p = malloc(cap);
		if (p)
			p[0] = '\0';
	} else {
		p = realloc(b->data, cap);
	}
	if (!p) {
		b->oom = true;
		return false;
	}
	b->data = p;
	b->cap = cap;
	return true;
}

bool dfs_buf_grow(dfs_buf *b, size_t extra)
{
	size_t need;
	int r = check_room(b, extra, &need);
	if (r)
		return r > 0;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap += cap / 2 + 64;
	return resize(b, cap);
}

bool dfs_buf_reserve(dfs_buf *b, size_t extra)
{
	size_t need;
	int r = check_room(b, extra, &need);
	if (r)
		return r > 0;
	return resize(b, need);
}

void dfs_buf_add(dfs_buf *b, const void *data, size_t len)
{
	if (!dfs_buf_grow(b, len))
		return;
	if (len)
		memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
}

void dfs_buf_adds(dfs_buf *b, const char *s)
{
	dfs_buf_add(b, s, strlen(s));
}

void dfs_buf_addc(dfs_buf *b, char c)
{
	if (!dfs_buf_grow(b, 1))
		return;
	b->data[b->len++] = c;
	b->data[b->len] = '\0';
}

void dfs_buf_vprintf(dfs_buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	char small[256];
	int n = vsnprintf(small, sizeof(small), fmt, ap);
	if (n < 0) {
		va_end(ap2);
		return;
	}
	if ((size_t)n < sizeof(small)) {
		dfs_buf_add(b, small, (size_t)n);
	} else if (dfs_buf_grow(b, (size_t)n)) {
		vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
		b->len += (size_t)n;
	}
	va_end(ap2);
}

void dfs_buf_printf(dfs_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	dfs_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void dfs_buf_add_i64(dfs_buf *b, int64_t v)
{
	if (!dfs_buf_grow(b, DFS_FMT_INT_MAX))
		return;
	b->len += dfs_fmt_i64(b->data + b->len, v);
	b->data[b->len] = '\0';
}

void dfs_buf_add_u64(dfs_buf *b, uint64_t v)
{
	if (!dfs_buf_grow(b, DFS_FMT_INT_MAX))
		return;
	b->len += dfs_fmt_u64(b->data + b->len, v);
	b->data[b->len] = '\0';
}

void dfs_buf_add_double(dfs_buf *b, double v)
{
	if (!dfs_buf_grow(b, DFS_FMT_DOUBLE_MAX))
		return;
	b->len += dfs_fmt_double(b->data + b->len, v);
	b->data[b->len] = '\0';
}

void *dfs_buf_add_zeros(dfs_buf *b, size_t len)
{
	if (!dfs_buf_grow(b, len))
		return NULL;
	void *p = b->data + b->len;
	memset(p, 0, len);
	b->len += len;
	b->data[b->len] = '\0';
	return p;
}

char *dfs_buf_detach(dfs_buf *b, size_t *len)
{
	if (b->oom) {
		dfs_buf_free(b);
		return NULL;
	}
	if (!b->data && !dfs_buf_grow(b, 0))
		return NULL;
	if (b->len == 0)
		b->data[0] = '\0';
	char *p = b->data;
	if (len)
		*len = b->len;
	dfs_buf_init(b);
	return p;
}
