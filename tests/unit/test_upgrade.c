/* test_upgrade.c - pieces of the reader on hand-made input: decompression
 * of each kind (zlib, concatenated zlib streams, bzip2, none, damaged),
 * byte swapping, and the upgrade of every older record version to the
 * current layout, quirks included. */
#include <bzlib.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <cmocka.h>

#include "darshanfs/buf.h"
#include "filter/filter.h"
#include "darshanfs/module.h"
#include "log/region.h"
#include "module/pack.h"

/* ---- decompression ------------------------------------------------------------- */

static size_t zcompress(const void *in, size_t len, unsigned char *out, size_t cap)
{
	uLongf n = cap;
	assert_int_equal(compress2(out, &n, in, len, 6), Z_OK);
	return n;
}

static void test_inflate_zlib_streams(void **state)
{
	(void)state;
	/* big enough for several windows and growth steps */
	size_t n = 200000;
	unsigned char *a = malloc(n), *b = malloc(n);
	for (size_t i = 0; i < n; i++) {
		a[i] = (unsigned char)(i * 7);
		b[i] = (unsigned char)(i % 251);
	}
	unsigned char *z = malloc(4 * n);
	size_t za = zcompress(a, n, z, 2 * n);
	size_t zb = zcompress(b, n, z + za, 2 * n);
	dfs_buf out = DFS_BUF_INIT;
	dfs_error err = {0};
	/* two complete streams back to back: one region, as the runtime writes */
	assert_int_equal(dfs_region_inflate(0, z, za + zb, 0, 0, &out, &err), 0);
	assert_int_equal(out.len, 2 * n);
	assert_memory_equal(out.data, a, n);
	assert_memory_equal(out.data + n, b, n);
	/* the job region is read only in part */
	dfs_buf_reset(&out);
	assert_int_equal(dfs_region_inflate(0, z, za, 0, 4096, &out, &err), 0);
	assert_int_equal(out.len, 4096);
	assert_memory_equal(out.data, a, 4096);
	/* a limit below the output is an error, not an allocation */
	dfs_buf_reset(&out);
	assert_int_equal(dfs_region_inflate(0, z, za, 1000, 0, &out, &err), -1);
	assert_int_equal(err.code, DFS_ERR_TOOBIG);
	/* cut in the middle of the second stream */
	dfs_buf_reset(&out);
	assert_int_equal(dfs_region_inflate(0, z, za + zb / 2, 0, 0, &out, &err), -1);
	assert_int_equal(err.code, DFS_ERR_FORMAT);
	/* garbage */
	dfs_buf_reset(&out);
	memset(z, 0x55, 64);
	assert_int_equal(dfs_region_inflate(0, z, 64, 0, 0, &out, &err), -1);
	assert_int_equal(err.code, DFS_ERR_FORMAT);
	dfs_buf_free(&out);
	free(a);
	free(b);
	free(z);
}

static void test_inflate_bzip2_and_none(void **state)
{
	(void)state;
	char text[5000];
	for (size_t i = 0; i < sizeof(text); i++)
		text[i] = (char)('a' + i % 26);
	char z[20000];
	unsigned zl = sizeof(z) / 2, zl2 = sizeof(z) / 2;
	assert_int_equal(BZ2_bzBuffToBuffCompress(z, &zl, text, sizeof(text), 9, 0, 30), BZ_OK);
	assert_int_equal(BZ2_bzBuffToBuffCompress(z + zl, &zl2, text, 100, 9, 0, 30), BZ_OK);
	dfs_buf out = DFS_BUF_INIT;
	dfs_error err = {0};
	assert_int_equal(dfs_region_inflate(1, (unsigned char *)z, zl + zl2, 0, 0, &out, &err), 0);
	assert_int_equal(out.len, sizeof(text) + 100);
	assert_memory_equal(out.data, text, sizeof(text));
	assert_memory_equal(out.data + sizeof(text), text, 100);
	dfs_buf_reset(&out);
	assert_int_equal(dfs_region_inflate(1, (unsigned char *)z, zl - 10, 0, 0, &out, &err), -1);
	dfs_buf_reset(&out);
	assert_int_equal(dfs_region_inflate(2, (unsigned char *)text, 300, 0, 0, &out, &err), 0);
	assert_int_equal(out.len, 300);
	assert_memory_equal(out.data, text, 300);
	dfs_buf_reset(&out);
	assert_int_equal(dfs_region_inflate(7, (unsigned char *)text, 10, 0, 0, &out, &err), -1);
	dfs_buf_free(&out);
}

/* ---- hand-made records ------------------------------------------------------------ */

/* A record image built field by field in either byte order. */
struct image {
	unsigned char b[1200];
	size_t len;
	bool big;
};

static void put64(struct image *im, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		im->b[im->len + (size_t)i] = (unsigned char)(v >> (im->big ? 8 * (7 - i) : 8 * i));
	im->len += 8;
}

static void putd(struct image *im, double d)
{
	uint64_t u;
	memcpy(&u, &d, 8);
	put64(im, u);
}

static dfs_records decode(int id, uint32_t version, const struct image *im,
                          size_t copies)
{
	const dfs_module *m = dfs_module_get(id);
	unsigned char *data = malloc(im->len * copies + 1);
	for (size_t i = 0; i < copies; i++)
		memcpy(data + i * im->len, im->b, im->len);
	dfs_decode_in in = {.data = data, .len = im->len * copies, .version = version,
	                     .swap = im->big, .h5f_version = 3};
	dfs_records r;
	dfs_records_init(&r, m, version);
	dfs_error err = {0};
	if (m->decode(&in, &r, &err))
		fail_msg("%s v%u: %s", m->name, version, err.msg);
	free(data);
	return r;
}

static int64_t ival(const dfs_records *r, size_t i, const char *name)
{
	const dfs_module *m = r->module;
	int f = dfs_module_field_index(m, name, strlen(name));
	assert_true(f >= 0);
	dfs_value v;
	_Alignas(8) unsigned char scratch[DFS_RECORD_MAX];
	dfs_module_get_value(m, dfs_record_get(r, i, scratch), dfs_record_size(r, i), 0,
	                     (size_t)f, &v);
	return v.type == DFS_T_U64 ? (int64_t)v.v.u : v.v.i;
}

static double fval(const dfs_records *r, size_t i, const char *name)
{
	const dfs_module *m = r->module;
	int f = dfs_module_field_index(m, name, strlen(name));
	assert_true(f >= 0);
	dfs_value v;
	_Alignas(8) unsigned char scratch[DFS_RECORD_MAX];
	dfs_module_get_value(m, dfs_record_get(r, i, scratch), dfs_record_size(r, i), 0,
	                     (size_t)f, &v);
	assert_int_equal(v.type, DFS_T_F64);
	return v.v.d;
}

/* POSIX v3: 64 integers (i*10), 17 floats (i + 0.5) */
static void posix_v3(struct image *im, bool big)
{
	memset(im, 0, sizeof(*im));
	im->big = big;
	put64(im, 42);
	put64(im, 3);
	for (int i = 0; i < 64; i++)
		put64(im, (uint64_t)(i * 10));
	for (int i = 0; i < 17; i++)
		putd(im, i + 0.5);
}

static void test_posix_v3(void **state)
{
	(void)state;
	for (int big = 0; big <= 1; big++) {
		struct image im;
		posix_v3(&im, big);
		dfs_records r = decode(DFS_MOD_POSIX, 3, &im, 2);
		assert_int_equal(r.count, 2);
		assert_int_equal(ival(&r, 0, "record_id"), 42);
		assert_int_equal(ival(&r, 1, "rank"), 3);
		assert_int_equal(ival(&r, 0, "POSIX_OPENS"), 0);
		assert_int_equal(ival(&r, 0, "POSIX_FILENOS"), -1);
		assert_int_equal(ival(&r, 0, "POSIX_DUPS"), -1);
		assert_int_equal(ival(&r, 0, "POSIX_READS"), 10);
		assert_int_equal(ival(&r, 0, "POSIX_FDSYNCS"), 70);
		assert_int_equal(ival(&r, 0, "POSIX_RENAME_SOURCES"), -1);
		assert_int_equal(ival(&r, 0, "POSIX_RENAMED_FROM"), 0);
		assert_int_equal(ival(&r, 0, "POSIX_MODE"), 80);
		assert_int_equal(ival(&r, 0, "POSIX_BYTES_READ"), 90);
		assert_int_equal(ival(&r, 0, "POSIX_SLOWEST_RANK_BYTES"), 630);
		assert_true(fval(&r, 0, "POSIX_F_OPEN_START_TIMESTAMP") == 0.5);
		assert_true(fval(&r, 0, "POSIX_F_SLOWEST_RANK_TIME") == 14.5);
		/* lost in upstream's v3->v4 shift */
		assert_true(fval(&r, 0, "POSIX_F_VARIANCE_RANK_TIME") == 0.0);
		assert_true(fval(&r, 0, "POSIX_F_VARIANCE_RANK_BYTES") == 0.0);
		/* left unswapped by upstream in big-endian logs */
		double meta = fval(&r, 0, "POSIX_F_META_TIME");
		if (big)
			assert_true(meta != 10.5);
		else
			assert_true(meta == 10.5);
		dfs_records_free(&r);
	}
}

static void test_posix_v1_v2(void **state)
{
	(void)state;
	/* v1: 68 integers with FOPENS at index 6; 15 floats */
	struct image im;
	memset(&im, 0, sizeof(im));
	put64(&im, 7);
	put64(&im, 0);
	for (int i = 0; i < 68; i++)
		put64(&im, (uint64_t)(i == 6 ? 0 : i + 100));
	for (int i = 0; i < 15; i++)
		putd(&im, i + 0.25);
	dfs_records r = decode(DFS_MOD_POSIX, 1, &im, 1);
	assert_int_equal(r.count, 1);
	assert_int_equal(ival(&r, 0, "POSIX_OPENS"), 100);
	assert_int_equal(ival(&r, 0, "POSIX_MMAPS"), 105);
	assert_int_equal(ival(&r, 0, "POSIX_FSYNCS"), 110);   /* after the 4 stdio counters */
	assert_int_equal(ival(&r, 0, "POSIX_MODE"), 112);
	assert_true(fval(&r, 0, "POSIX_F_CLOSE_START_TIMESTAMP") == -1.0);
	assert_true(fval(&r, 0, "POSIX_F_OPEN_END_TIMESTAMP") == -1.0);
	assert_true(fval(&r, 0, "POSIX_F_READ_END_TIMESTAMP") == 3.25);
	assert_true(fval(&r, 0, "POSIX_F_CLOSE_END_TIMESTAMP") == 5.25);
	assert_true(fval(&r, 0, "POSIX_F_VARIANCE_RANK_BYTES") == 14.25); /* v1 keeps it */
	dfs_records_free(&r);
	/* a v1 record with stdio counters is dropped */
	memset(&im.b[16 + 6 * 8], 0, 8);
	im.b[16 + 6 * 8] = 3;
	r = decode(DFS_MOD_POSIX, 1, &im, 1);
	assert_int_equal(r.count, 0);
	dfs_records_free(&r);
	/* v2: 64 integers, 15 floats; the fastest/slowest times are lost too */
	memset(&im, 0, sizeof(im));
	put64(&im, 8);
	put64(&im, 1);
	for (int i = 0; i < 64; i++)
		put64(&im, (uint64_t)i);
	for (int i = 0; i < 15; i++)
		putd(&im, i + 0.75);
	r = decode(DFS_MOD_POSIX, 2, &im, 1);
	assert_true(fval(&r, 0, "POSIX_F_MAX_WRITE_TIME") == 10.75);
	assert_true(fval(&r, 0, "POSIX_F_FASTEST_RANK_TIME") == 0.0);
	assert_true(fval(&r, 0, "POSIX_F_SLOWEST_RANK_TIME") == 0.0);
	dfs_records_free(&r);
}

static void test_mpiio_stdio_bgq(void **state)
{
	(void)state;
	struct image im;
	memset(&im, 0, sizeof(im));
	im.big = true;
	put64(&im, 9);
	put64(&im, 2);
	for (int i = 0; i < 51; i++)
		put64(&im, (uint64_t)i);
	for (int i = 0; i < 15; i++)
		putd(&im, i + 1.5);
	dfs_records r = decode(DFS_MOD_MPIIO, 2, &im, 1);
	assert_int_equal(ival(&r, 0, "rank"), 2);
	assert_int_equal(ival(&r, 0, "MPIIO_BYTES_READ"), 14);
	assert_true(fval(&r, 0, "MPIIO_F_OPEN_START_TIMESTAMP") == 1.5);
	assert_true(fval(&r, 0, "MPIIO_F_CLOSE_START_TIMESTAMP") == -1.0);
	assert_true(fval(&r, 0, "MPIIO_F_OPEN_END_TIMESTAMP") == -1.0);
	assert_true(fval(&r, 0, "MPIIO_F_VARIANCE_RANK_BYTES") == 15.5);
	dfs_records_free(&r);

	memset(&im, 0, sizeof(im));
	put64(&im, 10);
	put64(&im, 0);
	for (int i = 0; i < 13; i++)
		put64(&im, (uint64_t)(i + 1));
	for (int i = 0; i < 15; i++)
		putd(&im, i);
	r = decode(DFS_MOD_STDIO, 1, &im, 1);
	assert_int_equal(ival(&r, 0, "STDIO_OPENS"), 1);
	assert_int_equal(ival(&r, 0, "STDIO_FDOPENS"), -1);
	assert_int_equal(ival(&r, 0, "STDIO_READS"), 2);
	assert_int_equal(ival(&r, 0, "STDIO_SLOWEST_RANK_BYTES"), 13);
	assert_true(fval(&r, 0, "STDIO_F_VARIANCE_RANK_BYTES") == 14);
	dfs_records_free(&r);

	memset(&im, 0, sizeof(im));
	im.big = true;
	put64(&im, 11);
	put64(&im, (uint64_t)-1);
	put64(&im, 0xdeadbeef);           /* v1: an int and padding, dropped */
	for (int i = 0; i < 11; i++)
		put64(&im, (uint64_t)(i + 20));
	putd(&im, 123.5);
	r = decode(DFS_MOD_BGQ, 1, &im, 1);
	assert_int_equal(ival(&r, 0, "rank"), -1);
	assert_int_equal(ival(&r, 0, "BGQ_CSJOBID"), 20);
	assert_int_equal(ival(&r, 0, "BGQ_TORUSENABLED"), 30);
	assert_true(fval(&r, 0, "BGQ_F_TIMESTAMP") == 123.5);
	dfs_records_free(&r);
}

static void test_h5_pnetcdf(void **state)
{
	(void)state;
	struct image im;
	memset(&im, 0, sizeof(im));
	put64(&im, 12);
	put64(&im, 0);
	put64(&im, 5);            /* OPENS */
	putd(&im, 1.0);           /* OPEN */
	putd(&im, 2.0);           /* CLOSE */
	dfs_records r = decode(DFS_MOD_H5F, 1, &im, 1);
	assert_int_equal(ival(&r, 0, "H5F_OPENS"), 5);
	assert_int_equal(ival(&r, 0, "H5F_FLUSHES"), -1);
	assert_int_equal(ival(&r, 0, "H5F_USE_MPIIO"), -1);
	assert_true(fval(&r, 0, "H5F_F_OPEN_START_TIMESTAMP") == 1.0);
	assert_true(fval(&r, 0, "H5F_F_CLOSE_START_TIMESTAMP") == -1.0);
	assert_true(fval(&r, 0, "H5F_F_OPEN_END_TIMESTAMP") == -1.0);
	assert_true(fval(&r, 0, "H5F_F_CLOSE_END_TIMESTAMP") == 2.0);
	assert_true(fval(&r, 0, "H5F_F_META_TIME") == -1.0);
	dfs_records_free(&r);

	/* PNETCDF v2: INDEP_OPENS + COLL_OPENS become OPENS */
	memset(&im, 0, sizeof(im));
	put64(&im, 13);
	put64(&im, 0);
	put64(&im, 3);
	put64(&im, 4);
	for (int i = 0; i < 4; i++)
		putd(&im, i + 0.5);
	r = decode(DFS_MOD_PNETCDF_FILE, 2, &im, 1);
	assert_int_equal(ival(&r, 0, "PNETCDF_FILE_OPENS"), 7);
	assert_int_equal(ival(&r, 0, "PNETCDF_FILE_CREATES"), -1);
	assert_int_equal(ival(&r, 0, "PNETCDF_FILE_BYTES_WRITTEN"), -1);
	assert_true(fval(&r, 0, "PNETCDF_FILE_F_OPEN_START_TIMESTAMP") == 0.5);
	assert_true(fval(&r, 0, "PNETCDF_FILE_F_CLOSE_START_TIMESTAMP") == 1.5);
	assert_true(fval(&r, 0, "PNETCDF_FILE_F_OPEN_END_TIMESTAMP") == 2.5);
	assert_true(fval(&r, 0, "PNETCDF_FILE_F_CLOSE_END_TIMESTAMP") == 3.5);
	assert_true(fval(&r, 0, "PNETCDF_FILE_F_WAIT_TIME") == -1.0);
	dfs_records_free(&r);

	/* H5D v1 gains a zero file_rec_id */
	memset(&im, 0, sizeof(im));
	put64(&im, 14);
	put64(&im, 0);
	for (int i = 0; i < 94 + 17; i++)
		put64(&im, (uint64_t)i);
	r = decode(DFS_MOD_H5D, 1, &im, 1);
	assert_int_equal(ival(&r, 0, "H5D_FILE_REC_ID"), 0);
	assert_int_equal(ival(&r, 0, "H5D_OPENS"), 0);
	assert_int_equal(ival(&r, 0, "H5D_SLOWEST_RANK_BYTES"), 93);
	dfs_records_free(&r);
}

static void test_heatmap_correction(void **state)
{
	(void)state;
	/* first record: 3 bins; then 4 bins (one too many) and 2 (one too few) */
	struct image im;
	memset(&im, 0, sizeof(im));
	put64(&im, 15);
	put64(&im, 0);
	putd(&im, 0.1);
	put64(&im, 3);
	put64(&im, 0x1234);            /* pointer garbage */
	put64(&im, 0x5678);
	put64(&im, 1); put64(&im, 2); put64(&im, 3);      /* write */
	put64(&im, 10); put64(&im, 20); put64(&im, 30);   /* read */
	put64(&im, 15);
	put64(&im, 1);
	putd(&im, 0.1);
	put64(&im, 4);
	put64(&im, 0);
	put64(&im, 0);
	for (int i = 0; i < 8; i++)
		put64(&im, (uint64_t)(i + 1));
	put64(&im, 15);
	put64(&im, 2);
	putd(&im, 0.1);
	put64(&im, 2);
	put64(&im, 0);
	put64(&im, 0);
	put64(&im, 4); put64(&im, 5);      /* write */
	put64(&im, 40); put64(&im, 50);    /* read */
	dfs_records r = decode(DFS_MOD_HEATMAP, 1, &im, 1);
	assert_int_equal(r.count, 3);
	const dfs_module *m = r.module;
	int read = dfs_module_field_index(m, "HEATMAP_READ_BIN", 16);
	int write = dfs_module_field_index(m, "HEATMAP_WRITE_BIN", 17);
	int64_t want_w[3][3] = {{1, 2, 3}, {1, 2, 3}, {4, 5, 0}};
	int64_t want_r[3][3] = {{10, 20, 30}, {5, 6, 7}, {0, 40, 0}};
	for (size_t i = 0; i < 3; i++) {
		const unsigned char *rec = dfs_record(&r, i);
		size_t len = dfs_record_size(&r, i);
		assert_int_equal(dfs_module_rows(m, rec, len), 3);
		for (size_t b = 0; b < 3; b++) {
			dfs_value v;
			dfs_module_get_value(m, rec, len, b, (size_t)write, &v);
			assert_int_equal(v.v.i, want_w[i][b]);
			dfs_module_get_value(m, rec, len, b, (size_t)read, &v);
			assert_int_equal(v.v.i, want_r[i][b]);
		}
		/* the pointer bytes are not kept */
		for (size_t k = 32; k < 48; k++)
			assert_int_equal(rec[k], 0);
	}
	dfs_records_free(&r);
}

static void test_lustre_v1_and_truncation(void **state)
{
	(void)state;
	struct image im;
	memset(&im, 0, sizeof(im));
	im.big = true;
	put64(&im, 16);
	put64(&im, 0);
	put64(&im, 100);    /* OSTS */
	put64(&im, 1);      /* MDTS */
	put64(&im, 3);      /* STRIPE_OFFSET */
	put64(&im, 1 << 20); /* STRIPE_SIZE */
	put64(&im, 2);      /* STRIPE_WIDTH */
	put64(&im, 7);
	put64(&im, 9);
	dfs_records r = decode(DFS_MOD_LUSTRE, 1, &im, 1);
	assert_int_equal(r.count, 1);
	assert_int_equal(ival(&r, 0, "LUSTRE_NUM_COMPONENTS"), 1);
	assert_int_equal(ival(&r, 0, "LUSTRE_NUM_STRIPES"), 2);
	const dfs_module *m = r.module;
	const unsigned char *rec = dfs_record(&r, 0);
	size_t len = dfs_record_size(&r, 0);
	assert_int_equal(dfs_module_rows(m, rec, len), 2);
	int ost = dfs_module_field_index(m, "LUSTRE_COMP_OST_ID", 18);
	int pat = dfs_module_field_index(m, "LUSTRE_COMP_STRIPE_PATTERN", 26);
	dfs_value v;
	dfs_module_get_value(m, rec, len, 1, (size_t)ost, &v);
	assert_int_equal(v.v.i, 9);
	dfs_module_get_value(m, rec, len, 0, (size_t)pat, &v);
	assert_int_equal(v.type, DFS_T_STR);
	assert_int_equal(v.v.s.len, 3);
	assert_memory_equal(v.v.s.ptr, "N/A", 3); /* -1, as v1 upgrades give */
	dfs_records_free(&r);

	/* v2 with two component slots, the second unused (STRIPE_SIZE -1) */
	memset(&im, 0, sizeof(im));
	put64(&im, 17);
	put64(&im, 0);
	put64(&im, 2);          /* num_comps */
	put64(&im, 3);          /* num_stripes */
	int64_t c1[7] = {4096, 1, 0, 0, 0, -1, -1};
	int64_t c2[7] = {-1, 2, 0, 0, 0, -1, -1};
	for (int i = 0; i < 7; i++)
		put64(&im, (uint64_t)c1[i]);
	im.len += 16;           /* pool name */
	for (int i = 0; i < 7; i++)
		put64(&im, (uint64_t)c2[i]);
	im.len += 16;
	put64(&im, 11);
	put64(&im, 12);
	put64(&im, 13);
	r = decode(DFS_MOD_LUSTRE, 2, &im, 1);
	assert_int_equal(ival(&r, 0, "LUSTRE_NUM_COMPONENTS"), 1);
	assert_int_equal(ival(&r, 0, "LUSTRE_NUM_STRIPES"), 1);
	rec = dfs_record(&r, 0);
	len = dfs_record_size(&r, 0);
	assert_int_equal(dfs_module_rows(m, rec, len), 1);
	dfs_module_get_value(m, rec, len, 0, (size_t)ost, &v);
	assert_int_equal(v.v.i, 11);
	dfs_records_free(&r);
}

/* ---- LUSTRE text columns, as darshan-parser prints them ----------------------- */

static void lustre_comp(struct image *im, int64_t pattern, int64_t flags,
                        const char *pool)
{
	int64_t c[7] = {1 << 20, 1, pattern, flags, 0, -1, 0};
	for (int i = 0; i < 7; i++)
		put64(im, (uint64_t)c[i]);
	memset(im->b + im->len, 0, 16);
	memcpy(im->b + im->len, pool, strlen(pool)); /* 16 bytes: no NUL */
	im->len += 16;
}

/* the text of column `name` in row `row` of record 0 */
static void lustre_text(const dfs_records *r, size_t row, const char *name,
                        const char *want)
{
	const dfs_module *m = r->module;
	int f = dfs_module_field_index(m, name, strlen(name));
	assert_true(f >= 0);
	assert_int_equal(m->fields[f].type, DFS_T_STR);
	dfs_value v;
	dfs_module_get_value(m, dfs_record(r, 0), dfs_record_size(r, 0), row,
	                     (size_t)f, &v);
	assert_int_equal(v.type, DFS_T_STR);
	if (v.v.s.len != strlen(want) || memcmp(v.v.s.ptr, want, v.v.s.len))
		fail_msg("%s row %zu: '%.*s', want '%s'", name, row, (int)v.v.s.len,
		         v.v.s.ptr, want);
}

/* does record 0 match `expr` (-1: the expression is refused) */
static int lustre_match(const dfs_records *r, const char *expr)
{
	dfs_error err = {0};
	dfs_filter *f = dfs_filter_compile_module(r->module, expr, strlen(expr),
	                                          false, &err);
	if (!f)
		return -1;
	const dfs_filter *fs[1] = {f};
	bool m = dfs_filter_match_record(fs, 1, NULL, r->module, dfs_record(r, 0),
	                                 dfs_record_size(r, 0), NULL);
	dfs_filter_free(f);
	return m;
}

static void test_lustre_text_columns(void **state)
{
	(void)state;
	for (int big = 0; big < 2; big++) {
		struct image im;
		memset(&im, 0, sizeof(im));
		im.big = big;
		put64(&im, 21);
		put64(&im, -1);
		put64(&im, 4);          /* num_comps */
		put64(&im, 4);          /* num_stripes */
		lustre_comp(&im, 0, 0x16, "ddn_ssd");
		lustre_comp(&im, 4, 0, "");
		lustre_comp(&im, -1, -1, "sixteen_chars_xx");
		/* every named bit, and bits past them that have no name */
		lustre_comp(&im, 7, 0xfff | (1 << 20), "p");
		for (int k = 0; k < 4; k++)
			put64(&im, (uint64_t)(100 + k));
		dfs_records r = decode(DFS_MOD_LUSTRE, 2, &im, 1);
		assert_int_equal(r.count, 1);
		lustre_text(&r, 0, "LUSTRE_COMP_STRIPE_PATTERN", "raid0");
		lustre_text(&r, 0, "LUSTRE_COMP_FLAGS", "prefrd,prefwr,init");
		lustre_text(&r, 0, "LUSTRE_COMP_POOL_NAME", "ddn_ssd");
		lustre_text(&r, 1, "LUSTRE_COMP_STRIPE_PATTERN", "raid0,overstriped");
		lustre_text(&r, 1, "LUSTRE_COMP_FLAGS", "0");
		lustre_text(&r, 1, "LUSTRE_COMP_POOL_NAME", "N/A");
		lustre_text(&r, 2, "LUSTRE_COMP_STRIPE_PATTERN", "N/A");
		lustre_text(&r, 2, "LUSTRE_COMP_FLAGS", "N/A");
		lustre_text(&r, 2, "LUSTRE_COMP_POOL_NAME", "sixteen_chars_xx");
		lustre_text(&r, 3, "LUSTRE_COMP_STRIPE_PATTERN", "N/A");
		lustre_text(&r, 3, "LUSTRE_COMP_FLAGS",
		            "stale,prefrd,prefwr,offline,init,nosync,extension,"
		            "parity,compress,partial,nocompr,neg");
		/* filters compare the text; numeric columns stay numbers */
		assert_int_equal(lustre_match(&r, "LUSTRE_COMP_STRIPE_PATTERN == 'raid0'"), 1);
		assert_int_equal(lustre_match(&r, "COMP_STRIPE_PATTERN == 'mdt'"), 0);
		assert_int_equal(lustre_match(&r, "LUSTRE_COMP_FLAGS ~ '(^|,)init(,|$)' and "
		                                  "LUSTRE_COMP_POOL_NAME == 'ddn_ssd'"), 1);
		assert_int_equal(lustre_match(&r, "LUSTRE_COMP_FLAGS == 'N/A' and "
		                                  "LUSTRE_COMP_OST_ID == 102"), 1);
		assert_int_equal(lustre_match(&r, "LUSTRE_COMP_POOL_NAME == 'N/A' and "
		                                  "LUSTRE_COMP_OST_ID != 101"), 0);
		assert_int_equal(lustre_match(&r, "LUSTRE_COMP_STRIPE_SIZE >= 1MiB"), 1);
		assert_int_equal(lustre_match(&r, "LUSTRE_COMP_STRIPE_PATTERN == 0"), -1);
		dfs_records_free(&r);
	}
}

static void test_dfs_uuid_swap(void **state)
{
	(void)state;
	struct image im;
	memset(&im, 0, sizeof(im));
	im.big = true;
	put64(&im, 18);
	put64(&im, 0);
	for (int i = 0; i < 52 + 15; i++)
		put64(&im, 0);
	for (int i = 0; i < 32; i++)
		im.b[im.len + (size_t)i] = (unsigned char)i;
	im.len += 32;
	dfs_records r = decode(DFS_MOD_DFS, 1, &im, 1);
	const dfs_module *m = r.module;
	int f = dfs_module_field_index(m, "pool_uuid", 9);
	dfs_value v;
	dfs_module_get_value(m, dfs_record(&r, 0), m->record_size, 0, (size_t)f, &v);
	/* upstream reverses each 16-byte uuid as a whole */
	assert_memory_equal(v.v.s.ptr, "0f0e0d0c-0b0a-0908-0706-050403020100", 36);
	dfs_records_free(&r);
}


/* ---- streaming and packing ------------------------------------------------------ */

struct collect {
	dfs_buf got;
	size_t unit;
	int calls, resets;
};

static size_t collect_window(void *ctx, const unsigned char *data, size_t len,
                             dfs_error *err)
{
	(void)err;
	struct collect *c = ctx;
	if (!data) {
		dfs_buf_reset(&c->got);
		c->resets++;
		return 0;
	}
	c->calls++;
	size_t n = len / c->unit * c->unit;   /* whole units only */
	dfs_buf_add(&c->got, data, n);
	return n;
}

struct piece_src {
	const unsigned char *data;
	size_t len;
	int reads;
};

static int read_piece(void *ctx, uint64_t off, void *buf, size_t len, dfs_error *err)
{
	struct piece_src *p = ctx;
	if (off > p->len || len > p->len - off)
		return dfs_error_set(err, DFS_ERR_IO, "read past the end");
	memcpy(buf, p->data + off, len);
	p->reads++;
	return 0;
}

/* A region read a few MiB at a time: streams that end inside a piece and
 * across pieces, whatever igzip read ahead of a stream's end. */
static void test_stream_pieces(void **state)
{
	(void)state;
	size_t n = (size_t)6 << 20;
	unsigned char *a = malloc(n);
	uint64_t x = 88172645463325252ULL;   /* xorshift: incompressible */
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		a[i] = (unsigned char)x;
	}
	unsigned char *z = malloc(2 * n + 4096);
	/* 7 streams of uneven sizes back to back */
	size_t cut[] = {0, 1000, 300000, 1 << 20, 3 << 20, (3 << 20) + 17, 5 << 20, n};
	size_t zl = 0;
	for (size_t k = 0; k + 1 < sizeof(cut) / sizeof(cut[0]); k++)
		zl += zcompress(a + cut[k], cut[k + 1] - cut[k], z + zl, 2 * n + 4096 - zl);
	for (int comp = 0; comp < 2; comp++) {
		struct collect c = {DFS_BUF_INIT, 1, 0, 0};
		struct piece_src src = {comp ? (const unsigned char *)a : z, comp ? n : zl, 0};
		dfs_error err = {0};
		/* comp 1: the same bytes stored uncompressed */
		assert_int_equal(dfs_region_stream(comp ? 2 : 0, NULL, src.len, read_piece, &src,
		                                   0, 1, collect_window, &c, NULL, &err), 0);
		assert_int_equal(c.got.len, n);
		assert_memory_equal(c.got.data, a, n);
		assert_true(src.len > ((size_t)4 << 20) && src.reads >= 2);
		assert_int_equal(c.resets, 0);   /* no fallback: the fast path read it */
		dfs_buf_free(&c.got);
	}
	/* compressible: all seven streams within one piece */
	for (size_t i = 0; i < n; i++)
		a[i] = (unsigned char)((i * 2654435761u) >> 24);
	zl = 0;
	for (size_t k = 0; k + 1 < sizeof(cut) / sizeof(cut[0]); k++)
		zl += zcompress(a + cut[k], cut[k + 1] - cut[k], z + zl, 2 * n + 4096 - zl);
	struct collect c = {DFS_BUF_INIT, 1, 0, 0};
	struct piece_src src = {z, zl, 0};
	dfs_error err = {0};
	assert_int_equal(dfs_region_stream(0, NULL, zl, read_piece, &src, 0, 1,
	                                   collect_window, &c, NULL, &err), 0);
	assert_int_equal(c.got.len, n);
	assert_memory_equal(c.got.data, a, n);
	assert_int_equal(c.resets, 0);
	/* a stream that ends inside a piece goes on from it: no read again */
	assert_int_equal(src.reads, zl > ((size_t)4 << 20) ? 2 : 1);
	dfs_buf_free(&c.got);
	free(a);
	free(z);
}

/* bzip2 decodes a block (up to 900 kB) out of a little input: once the
 * input is used up, what it still holds must be drained, in whole
 * regions and in streamed ones, and a cut stream is still an error. */
static void test_bzip2_drains(void **state)
{
	(void)state;
	size_t n = (size_t)3 << 20;
	char *a = malloc(n);
	for (size_t i = 0; i < n; i++)
		a[i] = (char)('a' + (i * 2654435761u >> 27) % 26);
	unsigned zl = (unsigned)n;
	char *z = malloc(zl);
	assert_int_equal(BZ2_bzBuffToBuffCompress(z, &zl, a, (unsigned)n, 9, 0, 30), BZ_OK);
	assert_true(zl < n / 8);
	dfs_buf out = DFS_BUF_INIT;
	dfs_error err = {0};
	assert_int_equal(dfs_region_inflate(1, (unsigned char *)z, zl, 0, 0, &out, &err), 0);
	assert_int_equal(out.len, n);
	assert_memory_equal(out.data, a, n);
	dfs_buf_reset(&out);
	assert_int_equal(dfs_region_inflate(1, (unsigned char *)z, zl - 20, 0, 0, &out, &err), -1);
	dfs_buf_free(&out);
	struct collect c = {DFS_BUF_INIT, 1, 0, 0};
	struct piece_src src = {(const unsigned char *)z, zl, 0};
	assert_int_equal(dfs_region_stream(1, NULL, zl, read_piece, &src, 0, 1, collect_window,
	                                   &c, NULL, &err), 0);
	assert_int_equal(c.got.len, n);
	assert_memory_equal(c.got.data, a, n);
	dfs_buf_free(&c.got);
	free(a);
	free(z);
}

static void test_stream_windows(void **state)
{
	(void)state;
	/* 3 MiB over two streams: several windows, a unit that does not
	 * divide the window, a partial last unit left over */
	size_t n = (size_t)3 << 19;
	unsigned char *a = malloc(2 * n + 5);
	for (size_t i = 0; i < 2 * n + 5; i++)
		a[i] = (unsigned char)(i % 7 ? 0 : i * 31);
	unsigned char *z = malloc(4 * n);
	size_t za = zcompress(a, n, z, 2 * n);
	size_t zb = zcompress(a + n, n + 5, z + za, 2 * n);
	struct collect c = {DFS_BUF_INIT, 720, 0, 0};
	dfs_error err = {0};
	size_t left = 0;
	assert_int_equal(dfs_region_stream(0, z, za + zb, NULL, NULL, 0, 720,
	                                   collect_window, &c, &left, &err), 0);
	size_t whole = (2 * n + 5) / 720 * 720;
	assert_int_equal(c.got.len, whole);
	assert_int_equal(left, 2 * n + 5 - whole);
	assert_memory_equal(c.got.data, a, whole);
	assert_true(c.calls >= 3);
	/* the limit holds while streaming */
	dfs_buf_reset(&c.got);
	assert_int_equal(dfs_region_stream(0, z, za + zb, NULL, NULL, n, 720,
	                                   collect_window, &c, NULL, &err), -1);
	assert_int_equal(err.code, DFS_ERR_TOOBIG);
	/* damaged data: an error with zlib's words, after a reset */
	dfs_buf_reset(&c.got);
	z[za + zb / 2] ^= 0xff;
	c.resets = 0;
	assert_int_equal(dfs_region_stream(0, z, za + zb, NULL, NULL, 0, 720,
	                                   collect_window, &c, NULL, &err), -1);
	assert_int_equal(err.code, DFS_ERR_FORMAT);
	assert_non_null(strstr(err.msg, "inflate"));
	/* cut short */
	z[za + zb / 2] ^= 0xff;
	assert_int_equal(dfs_region_stream(0, z, za + zb / 2, NULL, NULL, 0, 720,
	                                   collect_window, &c, NULL, &err), -1);
	assert_int_equal(err.code, DFS_ERR_FORMAT);
	/* uncompressed and bzip2 regions stream too */
	dfs_buf_reset(&c.got);
	assert_int_equal(dfs_region_stream(2, a, 5000, NULL, NULL, 0, 720,
	                                   collect_window, &c, &left, &err), 0);
	assert_int_equal(c.got.len, 5000 / 720 * 720);
	assert_int_equal(left, 5000 % 720);
	dfs_buf_free(&c.got);
	free(a);
	free(z);
}

static void test_pack_roundtrip(void **state)
{
	(void)state;
	const dfs_module *m = dfs_module_get(DFS_MOD_POSIX);
	assert_true(dfs_module_packable(m));
	assert_false(dfs_module_packable(dfs_module_get(DFS_MOD_DXT_POSIX)));
	assert_false(dfs_module_packable(dfs_module_get(DFS_MOD_HEATMAP)));
	size_t size = m->record_size, nw = size / 8;
	dfs_records raw;
	dfs_records_init(&raw, m, m->version);
	/* all zero, all set, one word, odd bit patterns, a sparse mix, then
	 * values at byte-width edges in records from sparse to dense (more
	 * than 64 non-zero words: a second bitmap word) */
	static const uint64_t edges[] = {
		1, 0xff, 0x100, 0xffff, 0x10000, 0xffffffffu, 0x100000000u,
		0x00ffffffffffffffu, 0x8000000000000000u, ~(uint64_t)0,
	};
	uint64_t x = 0x9e3779b97f4a7c15u;
	for (int k = 0; k < 400; k++) {
		unsigned char *rec = dfs_records_append(&raw, size);
		assert_non_null(rec);
		for (size_t w = 0; w < nw; w++) {
			uint64_t v = 0;
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			if (k == 1)
				v = ~(uint64_t)w;
			else if (k == 2)
				v = w == nw - 1 ? 7 : 0;
			else if (k == 3) {
				double d = w % 2 ? -0.0 : 1e-310;
				memcpy(&v, &d, 8);
			} else if (k < 200)
				v = (w * 7 + (size_t)k) % 5 == 0 ? (uint64_t)k << (w % 60) : 0;
			else if (x % 8 < (uint64_t)(k % 9))
				v = edges[(x >> 8) % (sizeof(edges) / sizeof(edges[0]))] ^
				    ((x >> 20) & 1 ? 0 : ((x >> 32) & 0x7f));
			memcpy(rec + 8 * w, &v, 8);
		}
	}
	dfs_records packed;
	dfs_records_init(&packed, m, m->version);
	dfs_records_reserve(&packed, raw.size);
	memcpy(packed.data, raw.data, raw.size);
	packed.size = raw.size;
	packed.count = raw.count;
	assert_int_equal(dfs_records_pack(&packed), 0);
	assert_true(packed.packed);
	assert_int_equal(packed.count, raw.count);
	assert_true(packed.size < raw.size / 2);
	_Alignas(8) unsigned char scratch[DFS_RECORD_MAX];
	memset(scratch, 0xee, sizeof(scratch));
	for (size_t i = 0; i < raw.count; i++) {
		assert_memory_equal(dfs_record_get(&packed, i, scratch), dfs_record(&raw, i), size);
		for (size_t w = 0; w < nw; w++) {
			uint64_t v;
			memcpy(&v, dfs_record(&raw, i) + 8 * w, 8);
			assert_true(dfs_record_word(&packed, i, w) == v);
		}
	}
	/* some words only, the rest of the record left as it was */
	uint16_t pick[8] = {0, 1, 5, 17, 40, 63, 64, (uint16_t)(nw - 1)};
	for (size_t i = 0; i < raw.count; i++) {
		unsigned char part[DFS_RECORD_MAX];
		memset(part, 0xab, sizeof(part));
		dfs_record_unpack_words(&packed, i, pick, 8, part);
		for (size_t w = 0; w < nw; w++) {
			bool picked = false;
			for (size_t q = 0; q < 8; q++)
				picked |= pick[q] == w;
			if (picked)
				assert_memory_equal(part + 8 * w, dfs_record(&raw, i) + 8 * w, 8);
			else
				assert_true(part[8 * w] == 0xab);
		}
	}
	/* and back to raw */
	dfs_records back;
	assert_int_equal(dfs_records_unpacked(&packed, &back), 0);
	assert_false(back.packed);
	assert_int_equal(back.count, raw.count);
	assert_memory_equal(back.data, raw.data, raw.size);
	/* raw records read through the same calls */
	assert_ptr_equal(dfs_record_get(&raw, 5, scratch), dfs_record(&raw, 5));
	dfs_records_free(&back);
	dfs_records_free(&packed);
	dfs_records_free(&raw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inflate_zlib_streams),
		cmocka_unit_test(test_inflate_bzip2_and_none),
		cmocka_unit_test(test_stream_windows),
		cmocka_unit_test(test_bzip2_drains),
		cmocka_unit_test(test_stream_pieces),
		cmocka_unit_test(test_pack_roundtrip),
		cmocka_unit_test(test_posix_v3),
		cmocka_unit_test(test_posix_v1_v2),
		cmocka_unit_test(test_mpiio_stdio_bgq),
		cmocka_unit_test(test_h5_pnetcdf),
		cmocka_unit_test(test_heatmap_correction),
		cmocka_unit_test(test_lustre_v1_and_truncation),
		cmocka_unit_test(test_lustre_text_columns),
		cmocka_unit_test(test_dfs_uuid_swap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
