/* snapshot.c - snapshots (dfs_snapshot): the text of a generated file in
 * chunks (or in a file of its own, for the tables of a big tree),
 * reference-counted, read and pinned by the FUSE front end.
 *
 * The bottom of the view: it calls no other file of it.  A lazy snapshot
 * (records.csv rendered on demand) is read and freed through the
 * operations lazy.c gave it (c->ops), and a snapshot the cache keeps
 * tells its view through the hooks cache.c set in the view (v->reader_gone,
 * v->freed). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "darshanfs/hash.h"
#include "view/view_int.h"

/* ---- snapshots ------------------------------------------------------------------ */

uint64_t dfs_snapshot_serial(const dfs_snapshot *c)
{
	return c->serial;
}

/* Serials: small texts (filters, errors, markers: rendered afresh each
 * time) are named by a hash of their bytes, so rendering the same text
 * twice gives the same serial; big ones (cached, rendered once per
 * generation) by their view's counter.  The top bit keeps the two kinds
 * apart. */
#define HASHED_LIMIT (1u << 20)

static uint64_t snapshot_serial(dfs_view *v, const dfs_snapshot *c)
{
	/* (0 is a directory's serial: the count starts at 1) */
	if (c->size > HASHED_LIMIT)
		return (atomic_fetch_add(&v->next_serial, 1) + 1) & ~(1ULL << 63);
	uint64_t h = DFS_FNV1A_INIT;
	for (size_t i = 0; i < c->nchunks; i++)
		h = dfs_fnv1a(h, c->chunks[i].data, c->chunks[i].len);
	h ^= c->size;
	return h | (1ULL << 63);
}

dfs_snapshot *dfs_snapshot_from_bufs(dfs_view *v, dfs_buf *b, size_t n,
                                     dfs_error *err)
{
	dfs_snapshot *c = calloc(1, sizeof(*c));
	struct snapshot_chunk *ch = calloc(n ? n : 1, sizeof(*ch));
	bool ok = c && ch;
	for (size_t i = 0; i < n; i++)
		ok = ok && dfs_buf_ok(&b[i]);
	if (!ok) {
		free(c);
		free(ch);
		for (size_t i = 0; i < n; i++)
			dfs_buf_free(&b[i]);
		dfs_error_nomem(err);
		return NULL;
	}
	atomic_init(&c->refs, 1);
	c->chunks = ch;
	for (size_t i = 0; i < n; i++) {
		if (b[i].len == 0) {
			dfs_buf_free(&b[i]);
			continue;
		}
		/* keep no slack: big texts live long */
		char *data = realloc(b[i].data, b[i].len);
		ch[c->nchunks].data = data ? data : b[i].data;
		ch[c->nchunks].len = b[i].len;
		ch[c->nchunks].off = c->size;
		c->size += b[i].len;
		c->nchunks++;
		dfs_buf_init(&b[i]);
	}
	c->serial = snapshot_serial(v, c);
	return c;
}

dfs_snapshot *dfs_snapshot_from_buf(dfs_view *v, dfs_buf *b, dfs_error *err)
{
	return dfs_snapshot_from_bufs(v, b, 1, err);
}

dfs_snapshot *dfs_snapshot_from_file(dfs_view *v, int fd, uint64_t size, dfs_error *err)
{
	dfs_snapshot *c = calloc(1, sizeof(*c));
	if (!c) {
		close(fd);
		dfs_error_nomem(err);
		return NULL;
	}
	atomic_init(&c->refs, 1);
	c->in_file = true;
	c->fd = fd;
	c->size = size;
	c->serial = (atomic_fetch_add(&v->next_serial, 1) + 1) & ~(1ULL << 63);
	return c;
}

dfs_snapshot *dfs_snapshot_ref(dfs_snapshot *c)
{
	if (c)
		atomic_fetch_add(&c->refs, 1);
	return c;
}

static void snapshot_free(dfs_snapshot *c)
{
	if (c->lazy)
		c->ops->free(c->lazy);
	for (size_t i = 0; i < c->nchunks; i++)
		free(c->chunks[i].data);
	free(c->chunks);
	if (c->in_file)
		close(c->fd);
	free(c);
}

size_t dfs_snapshot_memory(const dfs_snapshot *c)
{
	if (c->lazy)
		return c->ops->memory(c);
	if (c->in_file)
		return sizeof(*c);
	return sizeof(*c) + c->nchunks * sizeof(*c->chunks) + (size_t)c->size;
}

/* A reader's reference: when it leaves only the cache's, the reader let
 * go (the view may evict the log now); when it was the last of a
 * rendering the cache had dropped already, the bytes it held are freed
 * now, the log of a lazy one maybe with them.  (Two readers letting go at
 * once may both see the other's reference: a lazy snapshot then keeps
 * its batches until it is freed.) */
void dfs_snapshot_release(dfs_snapshot *c)
{
	if (!c)
		return;
	/* the last reader of a lazy snapshot the cache keeps lets go: what
	 * it rendered for readers may go, while this reference holds it */
	if (c->lazy && c->view && atomic_load(&c->cached) && atomic_load(&c->refs) == 2)
		c->ops->idle(c);
	/* read before the reference goes: once it has, another holder may
	 * let go of the last one and free c at any moment */
	dfs_view *v = c->view;
	bool cached = atomic_load(&c->cached);
	long left = atomic_fetch_sub(&c->refs, 1) - 1;
	if (left == 1 && v && cached) {
		v->reader_gone(v);
	} else if (left == 0) {
		size_t bytes = v ? dfs_snapshot_memory(c) +
			       (c->lazy ? c->ops->log_memory(c) : 0) : 0;
		snapshot_free(c);
		if (v)
			v->freed(v, bytes);
	}
}

void dfs_snapshot_uncache(dfs_snapshot *c)
{
	if (!c)
		return;
	atomic_store(&c->cached, false);
	if (atomic_fetch_sub(&c->refs, 1) == 1)
		snapshot_free(c);
}

int dfs_snapshot_stat(dfs_snapshot *c, dfs_node_stat *st)
{
	if (!c)
		return -1;
	st->size = c->size;
	st->serial = c->serial;
	dfs_snapshot_release(c);
	return 0;
}

uint64_t dfs_snapshot_size(const dfs_snapshot *c)
{
	return c->size;
}

/* the chunk holding `off` (< size): binary search on the chunk offsets */
static size_t chunk_of(const dfs_snapshot *c, uint64_t off)
{
	size_t lo = 0, hi = c->nchunks;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (c->chunks[mid].off <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

long dfs_snapshot_read(dfs_snapshot *c, char *buf, size_t len, uint64_t off,
                       dfs_error *err)
{
	if (off >= c->size || len == 0)
		return 0;
	if (c->lazy)
		return c->ops->read(c, buf, len, off, err);
	if (c->in_file) {
		size_t done = 0;
		if (len > c->size - off)
			len = (size_t)(c->size - off);
		while (done < len) {
			ssize_t got = pread(c->fd, buf + done, len - done, (off_t)(off + done));
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0) {
				dfs_error_set(err, DFS_ERR_IO, "reading a table kept on disk: %s",
				              got < 0 ? strerror(errno) : "it is shorter than it was");
				return -1;
			}
			done += (size_t)got;
		}
		return (long)done;
	}
	size_t lo = chunk_of(c, off);
	size_t done = 0;
	for (size_t i = lo; i < c->nchunks && done < len; i++) {
		const struct snapshot_chunk *ch = &c->chunks[i];
		size_t from = (size_t)(off + done - ch->off);
		size_t n = ch->len - from;
		if (n > len - done)
			n = len - done;
		memcpy(buf + done, ch->data + from, n);
		done += n;
	}
	return (long)done;
}

int dfs_snapshot_pin(dfs_snapshot *c, uint64_t off, size_t len, const char **data,
                     size_t *n, void **pin, dfs_error *err)
{
	*pin = NULL;
	if (off >= c->size || len == 0) {
		*data = "";
		*n = 0;
		return 1;
	}
	if (len > c->size - off)
		len = (size_t)(c->size - off);
	if (c->lazy)
		return c->ops->pin(c, off, len, data, n, pin, err);
	if (c->in_file)
		return 0;   /* (read it) */
	const struct snapshot_chunk *ch = &c->chunks[chunk_of(c, off)];
	if (off + len > ch->off + ch->len)
		return 0;
	*data = ch->data + (off - ch->off);
	*n = len;
	return 1;
}

int dfs_snapshot_pin_part(dfs_snapshot *c, uint64_t off, size_t len, bool wait,
                          const char **data, size_t *n, void **pin, dfs_error *err)
{
	*pin = NULL;
	if (off >= c->size || len == 0) {
		*data = "";
		*n = 0;
		return 1;
	}
	if (len > c->size - off)
		len = (size_t)(c->size - off);
	if (c->lazy)
		return c->ops->pin_part(c, off, len, wait, data, n, pin, err);
	if (c->in_file)
		return 0;   /* (read it) */
	const struct snapshot_chunk *ch = &c->chunks[chunk_of(c, off)];
	*data = ch->data + (off - ch->off);
	*n = ch->off + ch->len - off < len ? (size_t)(ch->off + ch->len - off) : len;
	return 1;
}

int dfs_snapshot_fd(const dfs_snapshot *c)
{
	return c->in_file && !c->lazy ? c->fd : -1;
}

void dfs_snapshot_unpin(dfs_snapshot *c, void *pin)
{
	if (c->lazy && pin)
		c->ops->unpin(c, pin);
}
