/* files_pack.c - a log's files as bytes and back (files_pack.h).
 *
 * The bytes: the count of modules left out, each as its module id and
 * why (length, text); the count of entries, each as its module id, its
 * flags (timed; mount point and file system those of the entry before),
 * its name as the length of the start it shares with the name before
 * and the rest (length, text), its mount point and file system (length,
 * text; only when not the entry before's), its six integers and four
 * doubles.  Integers are LEB128 varints (signed ones zigzagged), doubles
 * their 64 bits little-endian: a file of a generated log costs about 50
 * bytes and what its name does not share with the one before. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "summary/files_pack.h"

enum { TIMED = 1, SAME_MOUNT = 2 };

static void put_u(dfs_buf *b, uint64_t v)
{
	unsigned char t[10];
	size_t n = 0;
	do {
		t[n] = (unsigned char)(v & 0x7f);
		v >>= 7;
		if (v)
			t[n] |= 0x80;
		n++;
	} while (v);
	dfs_buf_add(b, t, n);
}

static void put_i(dfs_buf *b, int64_t v)
{
	put_u(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static void put_d(dfs_buf *b, double d)
{
	uint64_t v;
	memcpy(&v, &d, sizeof(v));
	unsigned char t[8];
	for (int i = 0; i < 8; i++)
		t[i] = (unsigned char)(v >> (8 * i));
	dfs_buf_add(b, t, 8);
}

static void put_s(dfs_buf *b, const char *s, size_t len)
{
	put_u(b, len);
	dfs_buf_add(b, s, len);
}

void dfs_log_files_pack(const dfs_log_files *lf, dfs_buf *out)
{
	size_t nerr = dfs_log_files_errors(lf);
	put_u(out, nerr);
	for (size_t i = 0; i < nerr; i++) {
		int module;
		const char *why = dfs_log_files_error_at(lf, i, &module);
		put_i(out, module);
		put_s(out, why, strlen(why));
	}
	size_t n = dfs_log_files_count(lf);
	put_u(out, n);
	dfs_log_file prev = {0};
	for (size_t i = 0; i < n; i++) {
		dfs_log_file f;
		dfs_log_files_get(lf, i, &f);
		bool same = i > 0 && f.mount_len == prev.mount_len && f.fs_len == prev.fs_len &&
		            !memcmp(f.mount_pt, prev.mount_pt, f.mount_len) &&
		            !memcmp(f.fs_type, prev.fs_type, f.fs_len);
		size_t common = 0;
		if (i > 0)
			while (common < f.name_len && common < prev.name_len &&
			       f.name[common] == prev.name[common])
				common++;
		put_i(out, f.module);
		put_u(out, (f.timed ? TIMED : 0) | (same ? SAME_MOUNT : 0));
		put_u(out, common);
		put_s(out, f.name + common, f.name_len - common);
		if (!same) {
			put_s(out, f.mount_pt, f.mount_len);
			put_s(out, f.fs_type, f.fs_len);
		}
		put_i(out, f.bytes_read);
		put_i(out, f.bytes_written);
		put_i(out, f.reads);
		put_i(out, f.writes);
		put_i(out, f.total_bytes);
		put_i(out, f.left_out);
		put_d(out, f.time_by_slowest);
		put_d(out, f.read_time);
		put_d(out, f.write_time);
		put_d(out, f.meta_time);
		prev = f;
	}
}

/* A reader of the bytes: every read past the end sets bad. */
struct rd {
	const unsigned char *p, *end;
	bool bad;
};

static uint64_t get_u(struct rd *r)
{
	uint64_t v = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		if (r->p == r->end) {
			r->bad = true;
			return 0;
		}
		unsigned char c = *r->p++;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
	}
	r->bad = true;
	return 0;
}

static int64_t get_i(struct rd *r)
{
	uint64_t v = get_u(r);
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static double get_d(struct rd *r)
{
	if (r->end - r->p < 8) {
		r->bad = true;
		return 0;
	}
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += 8;
	double d;
	memcpy(&d, &v, sizeof(d));
	return d;
}

static const char *get_s(struct rd *r, size_t *len)
{
	uint64_t n = get_u(r);
	if (r->bad || n > (uint64_t)(r->end - r->p)) {
		r->bad = true;
		*len = 0;
		return "";
	}
	const char *s = (const char *)r->p;
	r->p += n;
	*len = (size_t)n;
	return s;
}

static bool module_ok(int64_t m)
{
	return m >= -1 && m < 64;
}

dfs_log_files *dfs_log_files_unpack(const void *data, size_t len)
{
	struct rd r = {data, (const unsigned char *)data + len, false};
	dfs_log_files *lf = dfs_log_files_new();
	if (!lf)
		return NULL;
	uint64_t nerr = get_u(&r);
	for (uint64_t i = 0; i < nerr && !r.bad; i++) {
		int64_t module = get_i(&r);
		size_t wl;
		const char *why = get_s(&r, &wl);
		char *w = r.bad || !module_ok(module) ? NULL : strndup(why, wl);
		if (!w || memchr(why, '\0', wl) || dfs_log_files_error(lf, (int)module, w))
			r.bad = true;
		free(w);
	}
	uint64_t n = r.bad ? 0 : get_u(&r);
	dfs_log_file prev = {0};
	dfs_buf name = DFS_BUF_INIT;   /* the entry's name, made whole */
	for (uint64_t i = 0; i < n && !r.bad; i++) {
		dfs_log_file f = {0};
		int64_t module = get_i(&r);
		uint64_t flags = get_u(&r);
		f.module = (int)module;
		f.timed = flags & TIMED;
		uint64_t common = get_u(&r);
		size_t rest_len;
		const char *rest = get_s(&r, &rest_len);
		if (common > name.len)
			r.bad = true;
		else
			name.len = (size_t)common;
		dfs_buf_add(&name, rest, rest_len);
		if (!dfs_buf_ok(&name))
			r.bad = true;
		f.name = r.bad || !name.data ? "" : name.data;
		f.name_len = r.bad ? 0 : name.len;
		if (flags & SAME_MOUNT) {
			if (i == 0)
				r.bad = true;
			f.mount_pt = prev.mount_pt;
			f.mount_len = prev.mount_len;
			f.fs_type = prev.fs_type;
			f.fs_len = prev.fs_len;
		} else {
			f.mount_pt = get_s(&r, &f.mount_len);
			f.fs_type = get_s(&r, &f.fs_len);
		}
		f.bytes_read = get_i(&r);
		f.bytes_written = get_i(&r);
		f.reads = get_i(&r);
		f.writes = get_i(&r);
		f.total_bytes = get_i(&r);
		f.left_out = get_i(&r);
		f.time_by_slowest = get_d(&r);
		f.read_time = get_d(&r);
		f.write_time = get_d(&r);
		f.meta_time = get_d(&r);
		if (r.bad || !module_ok(module) || module < 0 || flags > (TIMED | SAME_MOUNT) ||
		    dfs_log_files_put(lf, &f))
			r.bad = true;
		prev = f;
	}
	dfs_buf_free(&name);
	if (r.bad || r.p != r.end) {
		dfs_log_files_free(lf);
		return NULL;
	}
	return lf;
}
