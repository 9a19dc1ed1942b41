/* test_corrupt.c - the reader against corrupt logs of our own making.
 *
 * Every input here is built by the test: synthetic logs from the writer
 * (dfs_synth_write, zlib and bzip2) damaged in known ways, and tiny
 * uncompressed logs assembled byte by byte (struct hand) to hold records
 * no writer would produce.  Each case must end in an error with a clear
 * message, or in a log whose every output renders (darshan-parser text,
 * CSV, accumulators); never a crash or a hang (run it under ASan/UBSan),
 * and with bounded memory: the cases that could allocate a lot run in a
 * child process whose peak RSS is checked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bzlib.h>
#include <cmocka.h>
#include <zlib.h>

#include "darshanfs/accum.h"
#include "csv/csv.h"
#include "darshanfs/log.h"
#include "darshanfs/report.h"
#include "darshanfs/writer.h"

#define HDR 1328                 /* 3.41 header */
#define HDR_OLD 360
#define JOB 1080                 /* 3.41 job struct */
#define MAGIC 6567223ULL
#define MiB ((size_t)1 << 20)

/* Assertions usable in a forked child too: cmocka's would longjmp into
 * the child's copy of the test runner; a child exits 1 instead. */
static bool in_child;
#define check(cond) \
	do { \
		if (!(cond)) \
			check_failed(#cond, __FILE__, __LINE__); \
	} while (0)

static void check_failed(const char *what, const char *file, int line)
{
	if (in_child) {
		fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
		fflush(stderr);
		_exit(1);
	}
	fail_msg("%s:%d: check failed: %s", file, line, what);
}

/* ---- what a case gave ------------------------------------------------------ */

struct outcome {
	bool opened;
	dfs_status code;             /* when refused */
	char msg[DFS_ERROR_MSG_MAX];
	int failed[DFS_MOD_SLOTS];   /* per module: its status when opened */
	size_t accum_warnings;
	size_t accum_refused;        /* accumulators refused (nprocs < 1) */
	size_t rendered;
};

static void render_accum(const dfs_log *log, const dfs_records *r,
                         struct outcome *o, dfs_buf *out)
{
	dfs_error err = {0};
	dfs_accum *a = dfs_accum_create(r->module, dfs_log_job(log)->nprocs, &err);
	if (!a) {
		check(err.msg[0] != '\0');
		o->accum_refused++;
		return;
	}
	dfs_derived_metrics dm;
	void *sum = calloc(1, r->module->record_size);
	check(sum);
	check(dfs_accum_inject_records(a, r, NULL, 0, &err) == 0);
	check(dfs_accum_emit(a, &dm, sum, &err) == 0);
	dfs_render_file_counts(&dm, out);
	dfs_render_perf(&dm, out);
	dfs_render_derived_json(&dm, out);
	dfs_render_total(r->module, sum, out);
	o->accum_warnings += dfs_accum_warning_count(a);
	free(sum);
	dfs_accum_free(a);
}

/* Everything a decoded log offers, as the views would render it. */
static void render_all(const dfs_log *log, struct outcome *o)
{
	dfs_buf out = DFS_BUF_INIT;
	dfs_report_header(log, &out);
	dfs_report_parser(log, DFS_REPORT_BASE | DFS_REPORT_TOTAL |
	                  DFS_REPORT_FILE | DFS_REPORT_PERF, &out, &out);
	dfs_csv_mounts(log, &out);
	dfs_csv_names(log, &out);
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		const dfs_log_module *lm = dfs_log_get_module(log, id);
		o->failed[id] = lm->status;
		if (lm->status != DFS_OK)
			check(lm->error && lm->error[0]);
		const dfs_records *r = dfs_log_records(log, id);
		if (!r)
			continue;
		dfs_csv_header(r->module, &out);
		_Alignas(8) unsigned char scratch[DFS_RECORD_MAX];
		for (size_t i = 0; i < r->count; i++)
			dfs_csv_record(log, r->module, dfs_record_get(r, i, scratch),
			               dfs_record_size(r, i), NULL, &out);
		if (r->module->accumulator)
			render_accum(log, r, o, &out);
		o->rendered += out.len;
		dfs_buf_reset(&out);
	}
	check(dfs_buf_ok(&out));
	o->rendered += out.len;
	dfs_buf_free(&out);
}

static struct outcome try_log(const void *data, size_t len, const char *label)
{
	struct outcome o;
	memset(&o, 0, sizeof(o));
	dfs_error err = {0};
	dfs_log *log = dfs_log_open_mem(data, len, label, 0, &err);
	if (!log) {
		check(err.code != DFS_OK);
		check(strstr(err.msg, label)); /* says which log */
		o.code = err.code;
		snprintf(o.msg, sizeof(o.msg), "%s", err.msg);
		return o;
	}
	o.opened = true;
	render_all(log, &o);
	dfs_log_free(log);
	return o;
}

static void expect_refused(const struct outcome *o, dfs_status code,
                           const char *words)
{
	if (o->opened || o->code != code || !strstr(o->msg, words))
		fail_msg("expected refusal %d '%s', got %s %d '%s'", code, words,
		         o->opened ? "a log" : "refusal", o->code, o->msg);
}

/* ---- logs from the writer -------------------------------------------------- */

static void synth(dfs_buf *out, int comp, int64_t nprocs)
{
	dfs_error err = {0};
	dfs_write_options wo = {.comp_type = comp, .threads = 1};
	dfs_synth_options so = {
		.seed = 11, .records = 30, .nprocs = nprocs,
		.modules = DFS_SYNTH_MODULES,
	};
	dfs_synth_defaults(&so);
	dfs_buf_init(out);
	dfs_log_writer *w = dfs_log_writer_buf(out, &wo, &err);
	check(w);
	check(dfs_synth_write(w, &so, &err) == 0);
	dfs_log_writer_free(w);
}

static dfs_log_header header_of(const dfs_buf *b)
{
	dfs_error err = {0};
	dfs_log *log = dfs_log_open_mem(b->data, b->len, "synth", 0, &err);
	check(log);
	dfs_log_header h = *dfs_log_get_header(log);
	dfs_log_free(log);
	return h;
}

static void put_u64(void *p, uint64_t v) { memcpy(p, &v, 8); }
static void put_u32(void *p, uint32_t v) { memcpy(p, &v, 4); }

/* region map entries of a 3.41 header (little-endian host) */
static unsigned char *names_map(unsigned char *log) { return log + 32; }
static unsigned char *mod_map(unsigned char *log, int id) { return log + 48 + 16 * id; }

static void set_region(unsigned char *map, uint64_t off, uint64_t len)
{
	put_u64(map, off);
	put_u64(map + 8, len);
}

/* ---- hand-made logs: 3.41, uncompressed, little-endian ---------------------- */

struct hand {
	int64_t nprocs;
	const char *text;            /* exe and mount table */
	size_t job_len;              /* 0: struct + text + NUL */
	dfs_buf names;
	dfs_buf mods[DFS_MOD_KNOWN];
	uint32_t ver[DFS_MOD_KNOWN];
	int comp;
	char version[8];
};

static void hand_init(struct hand *h, int64_t nprocs)
{
	memset(h, 0, sizeof(*h));
	h->nprocs = nprocs;
	h->text = "./app --in x\nlustre /lus\nnfs /home";
	h->comp = DFS_COMP_NONE;
	memcpy(h->version, "3.41", 4);
}

static void hand_free(struct hand *h)
{
	dfs_buf_free(&h->names);
	for (int i = 0; i < DFS_MOD_KNOWN; i++)
		dfs_buf_free(&h->mods[i]);
}

static void hand_name(struct hand *h, uint64_t id, const char *s)
{
	dfs_buf_add(&h->names, &id, 8);
	dfs_buf_add(&h->names, s, strlen(s) + 1);
}

/* module data in the stored layout of `ver` (0: the current version) */
static void hand_data(struct hand *h, int id, uint32_t ver, const void *d,
                      size_t len)
{
	h->ver[id] = ver ? ver : dfs_module_get(id)->version;
	dfs_buf_add(&h->mods[id], d, len);
	if (len == 0)
		dfs_buf_add_zeros(&h->mods[id], 0);
	check(dfs_buf_ok(&h->mods[id]));
}

static void hand_job(const struct hand *h, dfs_buf *out)
{
	size_t start = out->len;
	unsigned char *j = dfs_buf_add_zeros(out, JOB);
	check(j);
	int64_t v[7] = {1000, 1700000000, 0, 1700000100, 0, h->nprocs, 42};
	memcpy(j, v, sizeof(v));
	memcpy(j + 56, "lib_ver=3.4.4\nh=x", 17);
	dfs_buf_add(out, h->text, strlen(h->text) + 1);
	if (h->job_len && h->job_len < out->len - start)
		out->len = start + h->job_len; /* cut short */
	else if (h->job_len)
		dfs_buf_add_zeros(out, h->job_len - (out->len - start));
}

static void hand_build(const struct hand *h, dfs_buf *out)
{
	dfs_buf_init(out);
	unsigned char *hd = dfs_buf_add_zeros(out, HDR);
	check(hd);
	hand_job(h, out);
	hd = (unsigned char *)out->data;
	memcpy(hd, h->version, 8);
	put_u64(hd + 8, MAGIC);
	put_u32(hd + 16, (uint32_t)h->comp);
	set_region(names_map(hd), out->len, h->names.len);
	dfs_buf_add(out, h->names.data, h->names.len);
	for (int id = 0; id < DFS_MOD_KNOWN; id++) {
		if (!h->mods[id].data)
			continue;
		hd = (unsigned char *)out->data;
		set_region(mod_map(hd, id), out->len, h->mods[id].len);
		put_u32(hd + 1072 + 4 * id, h->ver[id]);
		dfs_buf_add(out, h->mods[id].data, h->mods[id].len);
	}
	check(dfs_buf_ok(out));
}

static struct outcome try_hand(const struct hand *h, const char *label)
{
	dfs_buf b;
	hand_build(h, &b);
	struct outcome o = try_log(b.data, b.len, label);
	dfs_buf_free(&b);
	return o;
}

/* a POSIX record (current layout) with id and rank */
static void posix_record(unsigned char *r, uint64_t id, int64_t rank)
{
	const dfs_module *m = dfs_module_get(DFS_MOD_POSIX);
	memset(r, 0, m->record_size);
	put_u64(r, id);
	put_u64(r + 8, (uint64_t)rank);
	/* POSIX_OPENS, POSIX_READS, POSIX_BYTES_READ */
	int f = dfs_module_field_index(m, "POSIX_OPENS", 11);
	put_u64(r + m->fields[f].offset, 3);
	f = dfs_module_field_index(m, "POSIX_BYTES_READ", 16);
	put_u64(r + m->fields[f].offset, 4096);
	f = dfs_module_field_index(m, "POSIX_F_READ_TIME", 17);
	double t = 0.25;
	memcpy(r + m->fields[f].offset, &t, 8);
}

/* ---- peak memory of a case, in a child process --------------------------------- */

static size_t rss_now_kb(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	unsigned long size = 0, res = 0;
	if (f) {
		if (fscanf(f, "%lu %lu", &size, &res) != 2)
			res = 0;
		fclose(f);
	}
	return res * (size_t)sysconf(_SC_PAGESIZE) / 1024;
}

/* Run fn(arg) in a child; returns how far its peak RSS rose above this
 * process's RSS at the fork (KiB).  The child's assertion failures fail
 * the test through its exit status. */
static size_t child_peak_kb(void (*fn)(void *), void *arg)
{
	fflush(NULL);
	size_t base = rss_now_kb();
	pid_t pid = fork();
	check(pid >= 0);
	if (pid == 0) {
		in_child = true;
		fn(arg);
		_exit(0);
	}
	int st;
	struct rusage ru;
	check(wait4(pid, &st, 0, &ru) == pid);
	check(WIFEXITED(st));
	check(WEXITSTATUS(st) == 0);
	size_t peak = (size_t)ru.ru_maxrss;
	return peak > base ? peak - base : 0;
}

/* ---- truncation -------------------------------------------------------------- */

static void check_cut(const dfs_buf *b, const dfs_log_header *h, uint64_t cut)
{
	struct outcome o = try_log(b->data, cut, "cut.darshan");
	uint64_t names_end = h->names.off + h->names.len;
	if (cut < names_end) {
		/* header, job or name table incomplete: the log is unreadable */
		assert_false(o.opened);
		assert_int_equal(o.code, DFS_ERR_FORMAT);
		return;
	}
	assert_true(o.opened);
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		bool whole = h->mods[id].len == 0 ||
		             h->mods[id].off + h->mods[id].len <= cut;
		if (whole)
			assert_int_equal(o.failed[id], DFS_OK);
		else
			assert_int_equal(o.failed[id], DFS_ERR_FORMAT);
	}
}

static void cuts_of(int comp)
{
	dfs_buf b;
	synth(&b, comp, 4);
	dfs_log_header h = header_of(&b);
	uint64_t bounds[2 * (DFS_MOD_SLOTS + 2) + 8];
	size_t n = 0;
	bounds[n++] = 0;
	bounds[n++] = 7;
	bounds[n++] = 8;
	bounds[n++] = HDR - 1;
	bounds[n++] = HDR;
	bounds[n++] = b.len - 1;
	dfs_region regs[DFS_MOD_SLOTS + 2];
	size_t nr = 0;
	regs[nr++] = h.job;
	regs[nr++] = h.names;
	for (int id = 0; id < DFS_MOD_SLOTS; id++)
		if (h.mods[id].len)
			regs[nr++] = h.mods[id];
	for (size_t i = 0; i < nr; i++) {
		bounds[n++] = regs[i].off + regs[i].len / 2;   /* middle */
		bounds[n++] = regs[i].off + regs[i].len;       /* end */
	}
	for (size_t i = 0; i < n; i++)
		check_cut(&b, &h, bounds[i]);
	for (uint64_t cut = 0; cut < b.len; cut += b.len / 61 + 1)
		check_cut(&b, &h, cut);
	/* the whole log reads cleanly */
	struct outcome o = try_log(b.data, b.len, "whole.darshan");
	assert_true(o.opened);
	for (int id = 0; id < DFS_MOD_SLOTS; id++)
		assert_int_equal(o.failed[id], DFS_OK);
	dfs_buf_free(&b);
}

static void test_truncated(void **state)
{
	(void)state;
	cuts_of(DFS_COMP_ZLIB);
	cuts_of(DFS_COMP_BZIP2);
	struct outcome o = try_log("", 0, "empty.darshan");
	expect_refused(&o, DFS_ERR_FORMAT, "only 0 bytes");
	o = try_log("3.41", 4, "tiny.darshan");
	expect_refused(&o, DFS_ERR_FORMAT, "only 4 bytes");
	/* a complete hand-made log cut inside its job region */
	struct hand hd;
	hand_init(&hd, 2);
	dfs_buf b;
	hand_build(&hd, &b);
	o = try_log(b.data, HDR + 100, "cutjob.darshan");
	expect_refused(&o, DFS_ERR_FORMAT, "outside the file");
	dfs_buf_free(&b);
	hand_free(&hd);
}

/* ---- header fields ----------------------------------------------------------- */

static struct outcome try_patched(const dfs_buf *b, size_t at, const void *v,
                                  size_t n, const char *label)
{
	unsigned char *c = malloc(b->len);
	assert_non_null(c);
	memcpy(c, b->data, b->len);
	memcpy(c + at, v, n);
	struct outcome o = try_log(c, b->len, label);
	free(c);
	return o;
}

static void test_bad_header(void **state)
{
	(void)state;
	dfs_buf b;
	synth(&b, DFS_COMP_ZLIB, 4);
	struct outcome o = try_patched(&b, 8, "\x01", 1, "magic.darshan");
	expect_refused(&o, DFS_ERR_FORMAT, "bad magic number");
	o = try_patched(&b, 0, "3.99\0\0\0\0", 8, "v399.darshan");
	expect_refused(&o, DFS_ERR_UNSUPPORTED, "incompatible Darshan log format version '3.99");
	o = try_patched(&b, 0, "4.00\0\0\0\0", 8, "v400.darshan");
	expect_refused(&o, DFS_ERR_UNSUPPORTED, "'4.00");
	o = try_patched(&b, 0, "3.41abcd", 8, "v341x.darshan");
	expect_refused(&o, DFS_ERR_UNSUPPORTED, "'3.41abcd'");
	o = try_patched(&b, 0, "\x7f" "ELF\2\1\1\0", 8, "elf.darshan");
	expect_refused(&o, DFS_ERR_FORMAT, "unable to parse the format version");
	o = try_patched(&b, 0, "2.06\0\0\0\0", 8, "v206.darshan");
	expect_refused(&o, DFS_ERR_UNSUPPORTED, "'2.06");
	o = try_patched(&b, 16, "\x07", 1, "comp.darshan");
	expect_refused(&o, DFS_ERR_FORMAT, "invalid compression type 7");
	/* an old version string on a 3.41 layout: read as a 360-byte header
	 * whose map is nonsense; refused or read, never a crash */
	o = try_patched(&b, 0, "3.10\0\0\0\0", 8, "v310.darshan");
	assert_true(o.opened || o.msg[0]);
	o = try_patched(&b, 0, "3.00\0\0\0\0", 8, "v300.darshan");
	assert_true(o.opened || o.msg[0]);
	dfs_buf_free(&b);
}

/* ---- region map ------------------------------------------------------------------ */

static struct outcome try_region(const dfs_buf *b, int id, uint64_t off,
                                 uint64_t len, const char *label)
{
	unsigned char map[16];
	put_u64(map, off);
	put_u64(map + 8, len);
	size_t at = id < 0 ? 32 : 48 + 16 * (size_t)id;
	return try_patched(b, at, map, 16, label);
}

static void test_region_map(void **state)
{
	(void)state;
	dfs_buf b;
	synth(&b, DFS_COMP_ZLIB, 4);
	dfs_log_header h = header_of(&b);
	dfs_region px = h.mods[DFS_MOD_POSIX];
	const uint64_t huge = 1ULL << 62;

	/* absurd module regions: that module fails, the rest of the log reads */
	struct outcome o = try_region(&b, DFS_MOD_POSIX, px.off, huge, "len62.darshan");
	assert_true(o.opened);
	assert_int_equal(o.failed[DFS_MOD_POSIX], DFS_ERR_FORMAT);
	assert_int_equal(o.failed[DFS_MOD_STDIO], DFS_OK);
	o = try_region(&b, DFS_MOD_POSIX, UINT64_MAX - 10, 100, "wrap.darshan");
	assert_true(o.opened);
	assert_int_equal(o.failed[DFS_MOD_POSIX], DFS_ERR_FORMAT);
	o = try_region(&b, DFS_MOD_POSIX, b.len + 100, px.len, "beyond.darshan");
	assert_true(o.opened);
	assert_int_equal(o.failed[DFS_MOD_POSIX], DFS_ERR_FORMAT);
	/* into the header: zlib refuses the header bytes */
	o = try_region(&b, DFS_MOD_POSIX, 0, px.len, "intohdr.darshan");
	assert_true(o.opened);
	assert_int_equal(o.failed[DFS_MOD_POSIX], DFS_ERR_FORMAT);
	/* overlapping: STDIO decodes the POSIX region (garbage records of
	 * another module, or an error) */
	o = try_region(&b, DFS_MOD_STDIO, px.off, px.len, "overlap.darshan");
	assert_true(o.opened);
	o = try_region(&b, DFS_MOD_MPIIO, px.off + px.len / 2, px.len, "overlap2.darshan");
	assert_true(o.opened);
	/* a module present in an unknown slot is ignored */
	o = try_region(&b, 40, px.off, px.len, "slot40.darshan");
	assert_true(o.opened);

	/* the name table decides where the job data ends */
	o = try_region(&b, -1, 16, h.names.len, "names16.darshan");
	expect_refused(&o, DFS_ERR_FORMAT, "job data before the header end");
	o = try_region(&b, -1, h.names.off, huge, "names62.darshan");
	expect_refused(&o, DFS_ERR_FORMAT, "outside the file");
	o = try_region(&b, -1, h.names.off + 3, h.names.len, "names3.darshan");
	assert_false(o.opened);
	assert_non_null(strstr(o.msg, "names3.darshan"));
	dfs_buf_free(&b);
}

/* Every known slot points at the POSIX region: the amplification an
 * overlapping map allows is held by the log's inflate budget. */
static void all_slots_on_posix(void *arg)
{
	const dfs_buf *b = arg;
	dfs_log_header h = header_of(b);
	unsigned char *c = malloc(b->len);
	check(c);
	memcpy(c, b->data, b->len);
	for (int id = 1; id < DFS_MOD_KNOWN; id++) {
		set_region(mod_map(c, id), h.mods[DFS_MOD_POSIX].off,
		           h.mods[DFS_MOD_POSIX].len);
		put_u32(c + 1072 + 4 * id, 1);
	}
	struct outcome o = try_log(c, b->len, "slots.darshan");
	check(o.opened);
	free(c);
}

static void test_overlapping_slots(void **state)
{
	(void)state;
	dfs_buf b;
	synth(&b, DFS_COMP_ZLIB, 4);
	size_t kb = child_peak_kb(all_slots_on_posix, &b);
	printf("every slot on the POSIX region: peak RSS +%zu KiB\n", kb);
	assert_true(kb < 256 * 1024);
	dfs_buf_free(&b);
}

/* ---- decompression bombs ---------------------------------------------------------- */

/* `streams` zlib streams of `mib` MiB of zeros each, back to back */
static void zlib_zeros(dfs_buf *out, size_t mib, int streams)
{
	size_t n = mib * MiB;
	unsigned char *zeros = calloc(1, n);
	uLongf clen = compressBound((uLong)n);
	unsigned char *z = malloc(clen);
	check(zeros && z);
	check(compress2(z, &clen, zeros, (uLong)n, 9) == Z_OK);
	for (int i = 0; i < streams; i++)
		dfs_buf_add(out, z, clen);
	check(dfs_buf_ok(out));
	free(zeros);
	free(z);
}

static void bzip2_zeros(dfs_buf *out, size_t mib, int streams)
{
	size_t n = mib * MiB;
	char *zeros = calloc(1, n);
	unsigned int clen = (unsigned)(n / 100 + 4096);
	char *z = malloc(clen);
	check(zeros && z);
	check(BZ2_bzBuffToBuffCompress(z, &clen, zeros, (unsigned)n, 9, 0, 30) == BZ_OK);
	for (int i = 0; i < streams; i++)
		dfs_buf_add(out, z, clen);
	check(dfs_buf_ok(out));
	free(zeros);
	free(z);
}

static void compress_job(int comp, const dfs_buf *job, dfs_buf *out)
{
	if (comp == DFS_COMP_ZLIB) {
		uLongf clen = compressBound((uLong)job->len);
		check(dfs_buf_grow(out, clen));
		check(compress2((unsigned char *)out->data, &clen,
		                (const unsigned char *)job->data, (uLong)job->len, 6) == Z_OK);
		out->len = clen;
	} else {
		unsigned int clen = (unsigned)job->len + 1024;
		check(dfs_buf_grow(out, clen));
		check(BZ2_bzBuffToBuffCompress(out->data, &clen, job->data,
		                               (unsigned)job->len, 9, 0, 30) == BZ_OK);
		out->len = clen;
	}
}

struct bomb {
	int comp;
	size_t mib;              /* zeros per stream */
	int streams;
	const char *label;
	size_t max_peak_mib;     /* peak RSS allowed: under ASan the growing
	                            buffer's old copies sit in quarantine,
	                            about 3 times the budget in all */
};

/* A compressed log (header, job, no names) whose POSIX region inflates
 * to mib * streams MiB of zeros. */
static void build_bomb(const struct bomb *bm, dfs_buf *out)
{
	struct hand h;
	hand_init(&h, 4);
	dfs_buf job = DFS_BUF_INIT, cjob = DFS_BUF_INIT, px = DFS_BUF_INIT;
	hand_job(&h, &job);
	compress_job(bm->comp, &job, &cjob);
	if (bm->comp == DFS_COMP_ZLIB)
		zlib_zeros(&px, bm->mib, bm->streams);
	else
		bzip2_zeros(&px, bm->mib, bm->streams);
	dfs_buf_init(out);
	unsigned char *hd = dfs_buf_add_zeros(out, HDR);
	check(hd != NULL);
	memcpy(hd, "3.41", 4);
	put_u64(hd + 8, MAGIC);
	put_u32(hd + 16, (uint32_t)bm->comp);
	dfs_buf_add(out, cjob.data, cjob.len);
	hd = (unsigned char *)out->data;
	set_region(names_map(hd), out->len, 0);
	set_region(mod_map(hd, DFS_MOD_POSIX), out->len, px.len);
	put_u32(hd + 1072 + 4 * DFS_MOD_POSIX, dfs_module_get(DFS_MOD_POSIX)->version);
	dfs_buf_add(out, px.data, px.len);
	check(dfs_buf_ok(out));
	dfs_buf_free(&job);
	dfs_buf_free(&cjob);
	dfs_buf_free(&px);
	hand_free(&h);
}

struct built {
	const dfs_buf *log;
	const char *label;
};

static void open_bomb(void *arg)
{
	const struct built *bb = arg;
	struct outcome o = try_log(bb->log->data, bb->log->len, bb->label);
	check(o.opened);
	check(o.failed[DFS_MOD_POSIX] == DFS_ERR_TOOBIG);
}

static void test_bombs(void **state)
{
	(void)state;
	const struct bomb cases[] = {
		/* 64 MiB of zeros in 64 KiB of deflate: the 16 MiB floor */
		{DFS_COMP_ZLIB, 64, 1, "zlib64m.darshan", 160},
		/* 2 GiB of zeros deflated (2 MiB of file): 256 times that */
		{DFS_COMP_ZLIB, 64, 32, "zlib2g.darshan", 1280},
		/* 2 GiB of zeros in a few KiB of bzip2: the floor again */
		{DFS_COMP_BZIP2, 256, 8, "bzip2g.darshan", 160},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		dfs_buf b;
		build_bomb(&cases[i], &b); /* here: only the reading is measured */
		struct built bb = {&b, cases[i].label};
		size_t kb = child_peak_kb(open_bomb, &bb);
		printf("%s (%zu bytes; %d x %zu MiB of zeros): peak RSS +%zu MiB\n",
		       cases[i].label, b.len, cases[i].streams, cases[i].mib, kb / 1024);
		assert_true(kb / 1024 < cases[i].max_peak_mib);
		dfs_buf_free(&b);
	}
}

/* the refusal names the module and says why */
static void test_bomb_message(void **state)
{
	(void)state;
	const struct bomb bm = {DFS_COMP_ZLIB, 32, 1, "msg.darshan", 0};
	dfs_buf b;
	build_bomb(&bm, &b);
	dfs_error err = {0};
	dfs_log *log = dfs_log_open_mem(b.data, b.len, bm.label, 0, &err);
	assert_non_null(log);
	const dfs_log_module *lm = dfs_log_get_module(log, DFS_MOD_POSIX);
	assert_int_equal(lm->status, DFS_ERR_TOOBIG);
	printf("%s\n", lm->error);
	assert_non_null(strstr(lm->error, "POSIX module: inflates past the 16777216 bytes"));
	assert_non_null(strstr(lm->error, "decompression bomb"));
	dfs_log_free(log);
	dfs_buf_free(&b);
}

/* ---- job region and names ---------------------------------------------------------- */

static size_t name_count(const void *data, size_t len)
{
	dfs_error err = {0};
	dfs_log *log = dfs_log_open_mem(data, len, "names", DFS_LOG_HEADER_ONLY, &err);
	assert_non_null(log);
	size_t n = dfs_log_name_count(log);
	dfs_log_free(log);
	return n;
}

static void test_job_and_names(void **state)
{
	(void)state;
	struct hand h;
	hand_init(&h, 4);
	h.job_len = 500; /* shorter than the job struct */
	struct outcome o = try_hand(&h, "shortjob.darshan");
	expect_refused(&o, DFS_ERR_FORMAT, "job data is too short");
	h.job_len = JOB; /* struct, no text at all */
	o = try_hand(&h, "notext.darshan");
	expect_refused(&o, DFS_ERR_FORMAT, "job data is too short");
	h.job_len = 0;

	/* mount tables: one token on a line, an empty line, blanks only */
	static const char *const bad[] = {
		"./app\nlustre",
		"./app\nlustre /lus\nnfs",
		"./app\n\nlustre /lus",
		"./app\n \t ",
		/* one token a line, long ones: the tokens once ran on into the
		 * next line and overflowed the mount strings' storage */
		("./app\naaaaaaaaaaaaaaaaaaaa\nbbbbbbbbbbbbbbbbbbbb\n"
		 "cccccccccccccccccccc\ndddddddddddddddddddd\neeeeeeeeeeeeeeeeeeee"),
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		h.text = bad[i];
		o = try_hand(&h, "mounts.darshan");
		expect_refused(&o, DFS_ERR_FORMAT, "poorly formatted mount table");
	}
	h.text = "./app"; /* no mount table: fine, exe shown empty */
	o = try_hand(&h, "nomounts.darshan");
	assert_true(o.opened);
	h.text = "./app\nlustre /lus extra words\nnfs\t/home";
	o = try_hand(&h, "extra.darshan");
	assert_true(o.opened);
	h.text = "./app\nlustre /lus";

	/* names: the last entry without its NUL, an empty name, ids only */
	hand_name(&h, 1, "/lus/a");
	hand_name(&h, 2, "");
	uint64_t id = 3;
	dfs_buf_add(&h.names, &id, 8);
	dfs_buf_add(&h.names, "/lus/no-nul", 11);
	o = try_hand(&h, "names.darshan");
	assert_true(o.opened);
	dfs_buf b;
	hand_build(&h, &b);
	assert_int_equal(name_count(b.data, b.len), 2); /* not the unended one */
	dfs_buf_free(&b);
	dfs_buf_reset(&h.names);
	dfs_buf_add(&h.names, "\1\2\3\4\5", 5); /* shorter than an id */
	o = try_hand(&h, "names5.darshan");
	assert_true(o.opened);
	hand_free(&h);

	/* 3.00 counted names whose length runs past the region */
	unsigned char old[HDR_OLD + JOB + 64];
	memset(old, 0, sizeof(old));
	memcpy(old, "3.00", 4);
	put_u64(old + 8, MAGIC);
	old[16] = DFS_COMP_NONE;
	size_t job_off = HDR_OLD, job_len = JOB + 8;
	memcpy(old + job_off + JOB - 16, "./x", 3);
	size_t names_off = job_off + job_len;
	put_u64(old + names_off, 77);
	put_u32(old + names_off + 8, 1000000); /* length far past the end */
	memcpy(old + names_off + 12, "abc", 3);
	put_u64(old + 24, names_off);
	put_u64(old + 32, sizeof(old) - names_off);
	assert_int_equal(name_count(old, sizeof(old)), 0);
	o = try_log(old, sizeof(old), "names300.darshan");
	assert_true(o.opened);
}

/* A 3.10 log (360-byte header, 1064-byte job struct), uncompressed, with
 * the given start and end times and no module. */
static struct outcome try_old_times(int64_t start, int64_t end)
{
	unsigned char old[HDR_OLD + 1064 + 64];
	memset(old, 0, sizeof(old));
	memcpy(old, "3.10", 4);
	put_u64(old + 8, MAGIC);
	old[16] = DFS_COMP_NONE;
	int64_t v[5] = {1000, start, end, 4, 42};
	memcpy(old + HDR_OLD, v, sizeof(v));
	memcpy(old + HDR_OLD + 1064, "./old\nnfs /home", 15);
	put_u64(old + 24, sizeof(old)); /* empty name table at the end */
	return try_log(old, sizeof(old), "times.darshan");
}

static void test_job_times(void **state)
{
	(void)state;
	/* run time of old logs is end - start + 1: extremes must not overflow */
	const int64_t t[][2] = {
		{-1, INT64_MAX}, {INT64_MIN, INT64_MAX}, {INT64_MAX, INT64_MIN},
		{0, 0}, {1700000000, 1700000100},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct outcome o = try_old_times(t[i][0], t[i][1]);
		assert_true(o.opened);
	}
}

/* ---- records whose counts exceed their region ------------------------------------- */

static void test_variable_records(void **state)
{
	(void)state;
	struct hand h;
	unsigned char rec[4096];
	struct outcome o;

	/* LUSTRE v2: more components / stripes than the region holds */
	const int64_t counts[][2] = {
		{1000, 5}, {1, 1000000}, {INT64_MAX, 0}, {1, INT64_MAX},
		{(int64_t)1 << 62, (int64_t)1 << 62}, {2, -1},
	};
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		hand_init(&h, 4);
		memset(rec, 0, sizeof(rec));
		put_u64(rec, 99);
		put_u64(rec + 16, (uint64_t)counts[i][0]);
		put_u64(rec + 24, (uint64_t)counts[i][1]);
		hand_data(&h, DFS_MOD_LUSTRE, 2, rec, 32 + 72 + 8);
		o = try_hand(&h, "lustre.darshan");
		assert_true(o.opened);
		assert_int_equal(o.failed[DFS_MOD_LUSTRE], DFS_ERR_FORMAT);
		hand_free(&h);
	}
	/* LUSTRE v2: stripe counts of the components that sum past INT64_MAX */
	hand_init(&h, 4);
	memset(rec, 0, sizeof(rec));
	put_u64(rec, 99);
	put_u64(rec + 16, 3);
	put_u64(rec + 24, 2);
	for (int c = 0; c < 3; c++) {
		put_u64(rec + 32 + 72 * c, 1048576);
		put_u64(rec + 32 + 72 * c + 8, (uint64_t)INT64_MAX - (uint64_t)c);
	}
	hand_data(&h, DFS_MOD_LUSTRE, 2, rec, 32 + 3 * 72 + 16);
	o = try_hand(&h, "lustresum.darshan");
	assert_true(o.opened);
	assert_int_equal(o.failed[DFS_MOD_LUSTRE], DFS_OK);
	hand_free(&h);
	/* LUSTRE v1: a stripe width past the region ends the data */
	hand_init(&h, 4);
	memset(rec, 0, sizeof(rec));
	put_u64(rec + 48, 1000);
	hand_data(&h, DFS_MOD_LUSTRE, 1, rec, 56 + 16);
	o = try_hand(&h, "lustre1.darshan");
	assert_true(o.opened);
	hand_free(&h);

	/* HEATMAP: bins past a record's limit, and past the region */
	const int64_t bins[] = {(int64_t)1 << 40, -1, 5000, 100};
	for (size_t i = 0; i < sizeof(bins) / sizeof(bins[0]); i++) {
		hand_init(&h, 4);
		memset(rec, 0, sizeof(rec));
		put_u64(rec, 5);
		double w = 0.5;
		memcpy(rec + 16, &w, 8);
		put_u64(rec + 24, (uint64_t)bins[i]);
		hand_data(&h, DFS_MOD_HEATMAP, 1, rec, 48 + 16 * 10);
		o = try_hand(&h, "heatmap.darshan");
		assert_true(o.opened);
		if (bins[i] < 0 || bins[i] > 5000)
			assert_int_equal(o.failed[DFS_MOD_HEATMAP], DFS_ERR_FORMAT);
		hand_free(&h);
	}

	/* DXT: segment counts past the region (and negative, and huge) */
	const int64_t segs[][2] = {
		{1000, 0}, {0, 1000}, {-1, 1}, {INT64_MAX, INT64_MAX},
		{(int64_t)1 << 62, 1}, {2, 1},
	};
	for (size_t i = 0; i < sizeof(segs) / sizeof(segs[0]); i++) {
		for (int id = DFS_MOD_DXT_POSIX; id <= DFS_MOD_DXT_MPIIO; id++) {
			hand_init(&h, 4);
			memset(rec, 0, sizeof(rec));
			put_u64(rec, 7);
			memcpy(rec + 24, "host", 4);
			put_u64(rec + 88, (uint64_t)segs[i][0]);
			put_u64(rec + 96, (uint64_t)segs[i][1]);
			hand_data(&h, id, 0, rec, 104 + 40 * 3);
			o = try_hand(&h, "dxt.darshan");
			assert_true(o.opened);
			assert_int_equal(o.failed[id], DFS_OK);
			hand_free(&h);
		}
	}

	/* fixed-size modules: a region that is not a whole number of
	 * records, and one shorter than a record */
	for (int id = 1; id < DFS_MOD_KNOWN; id++) {
		const dfs_module *m = dfs_module_get(id);
		if (!m || m->record_size == 0 || m->record_size > sizeof(rec))
			continue;
		hand_init(&h, 4);
		memset(rec, 0xff, sizeof(rec));
		hand_data(&h, id, 0, rec, m->record_size + m->record_size / 2);
		o = try_hand(&h, "fixed.darshan");
		assert_true(o.opened);
		hand_free(&h);
		hand_init(&h, 4);
		hand_data(&h, id, 0, rec, 7);
		o = try_hand(&h, "short.darshan");
		assert_true(o.opened);
		hand_free(&h);
	}

	/* every known module fed bytes of 0xff and of a counting pattern */
	for (int id = 1; id < DFS_MOD_KNOWN; id++) {
		const dfs_module *m = dfs_module_get(id);
		if (!m)
			continue;
		for (int pat = 0; pat < 2; pat++) {
			for (size_t k = 0; k < sizeof(rec); k++)
				rec[k] = pat ? (unsigned char)(k * 7) : 0xff;
			for (uint32_t v = 1; v <= m->version; v++) {
				hand_init(&h, 4);
				hand_data(&h, id, v, rec, sizeof(rec));
				o = try_hand(&h, "pattern.darshan");
				assert_true(o.opened);
				hand_free(&h);
			}
		}
	}
}

/* ---- ranks and nprocs ----------------------------------------------------------------- */

static void posix_ranks_log(struct hand *h, int64_t nprocs, const int64_t *ranks,
                            size_t n)
{
	const dfs_module *m = dfs_module_get(DFS_MOD_POSIX);
	hand_init(h, nprocs);
	unsigned char *rec = malloc(m->record_size);
	check(rec);
	for (size_t i = 0; i < n; i++) {
		posix_record(rec, 1000 + i % 3, ranks[i]);
		dfs_buf_add(&h->mods[DFS_MOD_POSIX], rec, m->record_size);
	}
	h->ver[DFS_MOD_POSIX] = m->version;
	free(rec);
	hand_name(h, 1000, "/lus/a");
	hand_name(h, 1001, "/home/b");
}

static const int64_t odd_ranks[] = {
	0, 3, 4, 5, 1000, INT64_MAX, -1, -5, INT64_MIN, (int64_t)1 << 40, 2, 2,
};
#define N_ODD (sizeof(odd_ranks) / sizeof(odd_ranks[0]))

static void test_ranks(void **state)
{
	(void)state;
	struct hand h;
	posix_ranks_log(&h, 4, odd_ranks, N_ODD);
	struct outcome o = try_hand(&h, "ranks.darshan");
	assert_true(o.opened);
	assert_int_equal(o.failed[DFS_MOD_POSIX], DFS_OK);
	/* ranks 4, 5, 1000, INT64_MAX and 2^40 are >= nprocs: warned about */
	assert_true(o.accum_warnings >= 5);
	assert_int_equal(o.accum_refused, 0);
	hand_free(&h);
}

static void test_nprocs(void **state)
{
	(void)state;
	const int64_t bad[] = {0, -1, INT64_MIN};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct hand h;
		posix_ranks_log(&h, bad[i], odd_ranks, N_ODD);
		struct outcome o = try_hand(&h, "nprocs.darshan");
		assert_true(o.opened);
		assert_int_equal(o.failed[DFS_MOD_POSIX], DFS_OK);
		assert_int_equal(o.accum_refused, 1); /* with a message */
		hand_free(&h);
	}
	dfs_error err = {0};
	assert_null(dfs_accum_create(dfs_module_get(DFS_MOD_POSIX), 0, &err));
	assert_non_null(strstr(err.msg, "not positive"));
}

static void huge_nprocs(void *arg)
{
	(void)arg;
	const int64_t nps[] = {(int64_t)1 << 62, INT64_MAX};
	for (size_t k = 0; k < 2; k++) {
		int64_t ranks[N_ODD + 2];
		memcpy(ranks, odd_ranks, sizeof(odd_ranks));
		ranks[N_ODD] = nps[k] - 1;
		ranks[N_ODD + 1] = nps[k] / 2;
		struct hand h;
		posix_ranks_log(&h, nps[k], ranks, N_ODD + 2);
		struct outcome o = try_hand(&h, "hugenprocs.darshan");
		check(o.opened);
		check(o.accum_refused == 0);
		hand_free(&h);
	}
}

static void test_huge_nprocs(void **state)
{
	(void)state;
	size_t kb = child_peak_kb(huge_nprocs, NULL);
	printf("nprocs 2^62 and INT64_MAX: peak RSS +%zu KiB\n", kb);
	assert_true(kb < 64 * 1024);
}

/* ---- bit flips of a whole synthetic log ------------------------------------------------ */

static void test_flips(void **state)
{
	(void)state;
	dfs_buf b;
	synth(&b, DFS_COMP_ZLIB, 4);
	unsigned char *c = malloc(b.len);
	assert_non_null(c);
	uint64_t x = 88172645463325252ULL;
	size_t opened = 0;
	for (int t = 0; t < 300; t++) {
		memcpy(c, b.data, b.len);
		for (int f = 0; f < 1 + t % 4; f++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* mostly the header and job, where flips are not caught by
			 * zlib's checksum */
			size_t span = t % 3 ? HDR + 200 : b.len;
			c[x % span] ^= (unsigned char)(1u << (x >> 60 & 7));
		}
		struct outcome o = try_log(c, b.len, "flip.darshan");
		opened += o.opened;
	}
	printf("bit flips: %zu of 300 logs still read\n", opened);
	free(c);
	dfs_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_bad_header),
		cmocka_unit_test(test_region_map),
		cmocka_unit_test(test_overlapping_slots),
		cmocka_unit_test(test_bombs),
		cmocka_unit_test(test_bomb_message),
		cmocka_unit_test(test_job_and_names),
		cmocka_unit_test(test_job_times),
		cmocka_unit_test(test_variable_records),
		cmocka_unit_test(test_ranks),
		cmocka_unit_test(test_nprocs),
		cmocka_unit_test(test_huge_nprocs),
		cmocka_unit_test(test_flips),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
