/* early.c - the text a lookup renders into the kernel's page cache while
 * its log decodes (see dfs_view_prefill), including what comes before the
 * kernel has made the inode.
 *
 * The lookup's answer goes out before the text is ready; the kernel makes
 * the inode only when the caller of the lookup runs again, and until then
 * a store is refused (ENOENT).  Nothing waits for that: the refused text
 * is held (in order, one range, at most HOLD_MAX bytes) and offered again
 * with the next piece.  What is still held when the lookup ends is kept
 * beside the inode number, and stored by the first getattr or open of
 * that inode: that request is the proof that the kernel has it.  A forget
 * of the inode, a newer snapshot or the end of the session drops it.
 * Held text costs memory only between a lookup and its caller's next
 * request, and never more than KEPT_MAX bytes in all. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuse/fs.h"

#define HOLD_MAX ((size_t)16 << 20)
#define KEPT_MAX ((size_t)64 << 20)

struct dfs_early_kept {
	fuse_ino_t ino;
	uint64_t off;
	dfs_buf text;
	struct dfs_early_kept *next;
};

static int store(struct fuse_session *se, fuse_ino_t ino, uint64_t off,
                 const char *data, size_t len)
{
	struct fuse_bufvec bv = FUSE_BUFVEC_INIT(len);
	bv.buf[0].mem = (void *)data;
	return fuse_lowlevel_notify_store(se, ino, (off_t)off, &bv, 0);
}

static void drop_held(struct dfs_early *x)
{
	dfs_buf_free(&x->held);
	dfs_buf_init(&x->held);
}

/* The held text, offered again; 0 when it went (or there was none). */
static int offer_held(struct dfs_early *x)
{
	if (!x->held.len)
		return 0;
	int r = store(x->fs->se, x->ino, x->held_off, x->held.data, x->held.len);
	if (r == 0) {
		x->stored = true;
		drop_held(x);
	}
	return r;
}

int dfs_early_store(struct dfs_early *x, uint64_t off, const char *data, size_t len)
{
	if (!data) {   /* the rows were decoded again: forget their text */
		if (x->stored)
			fuse_lowlevel_notify_inval_inode(x->fs->se, x->ino, 0, 0);
		x->stored = false;
		drop_held(x);
		return 0;
	}
	if (x->held.len || !x->stored) {
		if (!x->held.len)
			x->held_off = off;
		if (x->held.len + len > HOLD_MAX) {   /* the caller never ran: give up */
			drop_held(x);
			return 1;
		}
		dfs_buf_add(&x->held, data, len);
		if (!dfs_buf_ok(&x->held)) {
			drop_held(x);
			return 1;
		}
		int r = offer_held(x);
		return r != 0 && r != -ENOENT;
	}
	/* stored before and refused now: the kernel forgot the inode */
	return store(x->fs->se, x->ino, off, data, len) != 0;
}

/* (early_lock) */
static void unlink_kept(struct dfs_fs *fs, struct dfs_early_kept **p)
{
	struct dfs_early_kept *k = *p;
	*p = k->next;
	fs->early_bytes -= k->text.len;
	__atomic_store_n(&fs->early_count, fs->early_count - 1, __ATOMIC_RELEASE);
	dfs_buf_free(&k->text);
	free(k);
}

void dfs_early_finish(struct dfs_early *x, bool keep)
{
	if (!x->held.len)
		return;
	struct dfs_fs *fs = x->fs;
	pthread_mutex_lock(&fs->early_lock);
	/* refused here means the inode's first getattr or open is yet to
	 * come (it could not come without the inode): it stores the text */
	if (keep && offer_held(x) == -ENOENT) {
		struct dfs_early_kept *k = malloc(sizeof(*k));
		if (k) {
			while (fs->early && fs->early_bytes + x->held.len > KEPT_MAX)
				unlink_kept(fs, &fs->early);   /* the oldest first */
			*k = (struct dfs_early_kept){x->ino, x->held_off, x->held, fs->early};
			dfs_buf_init(&x->held);
			fs->early = k;
			fs->early_bytes += k->text.len;
			__atomic_store_n(&fs->early_count, fs->early_count + 1, __ATOMIC_RELEASE);
		}
	}
	pthread_mutex_unlock(&fs->early_lock);
	drop_held(x);
}

/* The kept text of ino: stored (store set) or dropped. */
static void take_kept(struct dfs_fs *fs, fuse_ino_t ino, bool do_store)
{
	if (!__atomic_load_n(&fs->early_count, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&fs->early_lock);
	for (struct dfs_early_kept **p = &fs->early; *p;) {
		if ((*p)->ino != ino) {
			p = &(*p)->next;
			continue;
		}
		if (do_store)
			store(fs->se, ino, (*p)->off, (*p)->text.data, (*p)->text.len);
		unlink_kept(fs, p);
	}
	pthread_mutex_unlock(&fs->early_lock);
}

void dfs_early_arrived(struct dfs_fs *fs, fuse_ino_t ino)
{
	take_kept(fs, ino, true);
}

void dfs_early_forget(struct dfs_fs *fs, fuse_ino_t ino)
{
	take_kept(fs, ino, false);
}

void dfs_early_free_all(struct dfs_fs *fs)
{
	pthread_mutex_lock(&fs->early_lock);
	while (fs->early)
		unlink_kept(fs, &fs->early);
	pthread_mutex_unlock(&fs->early_lock);
}
