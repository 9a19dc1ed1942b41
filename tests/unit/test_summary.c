/* test_summary.c - the insights and the summary page of generated logs.
 *
 * Each case writes a log built to have one problem (small reads, random
 * writes, a straggler on a shared file, a big shared file on one Lustre
 * stripe, ...) with the log writer, reads it back, and checks that
 * insights.csv has that finding, while the same log without the problem
 * has none; thresholds from a file move the triggers; every plot of a
 * log is well-formed enough to be one XML document of bounded size, and
 * a log of 200,000 ranks and records still gives small plots. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "darshanfs/hash.h"
#include "darshanfs/log.h"
#include "darshanfs/summary.h"
#include "darshanfs/writer.h"
#include "common/json.h"
#include "common/shared.h"

/* ---- building logs ------------------------------------------------------- */

#define NPROCS 4
#define MAXREC 8

struct rec {
	int64_t rank;
	uint64_t id;
	const char *names[24];
	double values[24];
	size_t n;
};

struct spec {
	struct rec posix[MAXREC], mpiio[MAXREC], stdio[MAXREC], h5f[2], dfs[2];
	size_t nposix, nmpiio, nstdio, nh5f, ndfs;
	const char *metadata;
	const char *hosts[4];          /* DXT_POSIX records, one per host */
	bool lustre;                   /* a LUSTRE record for file 1 */
	int64_t stripes;
	uint64_t partial;
};

static void set(struct rec *r, const char *name, double v)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->names[i], name) == 0) {
			r->values[i] = v;
			return;
		}
	assert_true(r->n < 24);
	r->names[r->n] = name;
	r->values[r->n++] = v;
}

static void fill(const dfs_module *m, const struct rec *r, unsigned char *out)
{
	memset(out, 0, m->record_size);
	memcpy(out, &r->id, 8);
	memcpy(out + 8, &r->rank, 8);
	for (size_t i = 0; i < r->n; i++) {
		int f = dfs_module_field_index(m, r->names[i], strlen(r->names[i]));
		assert_true(f >= 0);
		const dfs_field *fd = &m->fields[f];
		if (fd->type == DFS_T_F64) {
			memcpy(out + fd->offset, &r->values[i], 8);
		} else {
			int64_t v = (int64_t)r->values[i];
			memcpy(out + fd->offset, &v, 8);
		}
	}
}

static void write_module(dfs_log_writer *w, int id, const struct rec *recs, size_t n)
{
	dfs_error err = {0};
	const dfs_module *m = dfs_module_get(id);
	unsigned char *buf = malloc(m->record_size);   /* PNETCDF_VAR: 1120 bytes */
	assert_non_null(buf);
	assert_int_equal(dfs_log_writer_module_begin(w, id, 0, &err), 0);
	for (size_t i = 0; i < n; i++) {
		fill(m, &recs[i], buf);
		assert_int_equal(dfs_log_writer_record(w, buf, m->record_size, &err), 0);
	}
	assert_int_equal(dfs_log_writer_module_end(w, &err), 0);
	free(buf);
}

static const char *const file_names[] = {
	"/lus/grand/run/out.0", "/lus/grand/run/out.1", "/lus/grand/run/in.dat",
	"/home/u/log.txt",
};

static uint64_t file_id(int k)
{
	return dfs_hash_name(file_names[k], strlen(file_names[k]));
}

/* A writer into *out of a job of `nprocs` ranks from second 1 to second
 * `end_sec`, run by `exe`, whose one mount point is `mnt` */
static dfs_log_writer *start_job(dfs_buf *out, int64_t nprocs, int64_t end_sec,
                                 const char *exe, dfs_mount mnt)
{
	dfs_error err = {0};
	dfs_write_options opt = {DFS_COMP_ZLIB, 1, 1};
	dfs_log_writer *w = dfs_log_writer_buf(out, &opt, &err);
	assert_non_null(w);
	dfs_job job;
	memset(&job, 0, sizeof(job));
	job.nprocs = nprocs;
	job.start_sec = 1;
	job.end_sec = end_sec;
	job.exe = (char *)exe;
	job.metadata = (char *)"";
	assert_int_equal(dfs_log_writer_job(w, &job, &mnt, 1, &err), 0);
	return w;
}

/* Finish the log w wrote into *out and open it as `name` */
static dfs_log *finish_job(dfs_log_writer *w, dfs_buf *out, int partial, const char *name)
{
	dfs_error err = {0};
	assert_int_equal(dfs_log_writer_finish(w, partial, &err), 0);
	dfs_log_writer_free(w);
	dfs_log *log = dfs_log_open_mem(out->data, out->len, name, 0, &err);
	if (!log)
		fail_msg("%s", err.msg);
	dfs_buf_free(out);
	return log;
}

static dfs_log *build(const struct spec *s)
{
	dfs_error err = {0};
	dfs_buf out = DFS_BUF_INIT;
	dfs_write_options opt = {DFS_COMP_ZLIB, 1, 1};
	dfs_log_writer *w = dfs_log_writer_buf(&out, &opt, &err);
	assert_non_null(w);
	dfs_job job;
	memset(&job, 0, sizeof(job));
	job.uid = 1000;
	job.start_sec = 1700000000;
	job.end_sec = 1700000100;
	job.nprocs = NPROCS;
	job.jobid = 42;
	job.exe = "/bin/app --flag";
	job.metadata = (char *)(s->metadata ? s->metadata : "lib_ver=3.4.4\n");
	dfs_mount mounts[] = {{"/lus/grand", "lustre", 10}, {"/home", "nfs", 5}};
	assert_int_equal(dfs_log_writer_job(w, &job, mounts, 2, &err), 0);
	for (int k = 0; k < 4; k++)
		assert_int_equal(dfs_log_writer_name(w, file_id(k), file_names[k],
		                                     strlen(file_names[k]), &err), 0);
	if (s->nposix)
		write_module(w, DFS_MOD_POSIX, s->posix, s->nposix);
	if (s->nmpiio)
		write_module(w, DFS_MOD_MPIIO, s->mpiio, s->nmpiio);
	if (s->nh5f)
		write_module(w, DFS_MOD_H5F, s->h5f, s->nh5f);
	if (s->lustre) {
		unsigned char rec[112];
		memset(rec, 0, sizeof(rec));
		uint64_t id = file_id(1);
		int64_t v;
		memcpy(rec, &id, 8);
		v = -1;
		memcpy(rec + 8, &v, 8);
		v = 1;
		memcpy(rec + 16, &v, 8);                 /* components */
		memcpy(rec + 24, &v, 8);                 /* stripes listed */
		v = 1 << 20;
		memcpy(rec + 32, &v, 8);                 /* stripe size */
		memcpy(rec + 40, &s->stripes, 8);        /* stripe count */
		v = -1;
		memcpy(rec + 32 + 40, &v, 8);            /* extent end */
		v = 7;
		memcpy(rec + 104, &v, 8);                /* OST */
		assert_int_equal(dfs_log_writer_module_begin(w, DFS_MOD_LUSTRE, 0, &err), 0);
		assert_int_equal(dfs_log_writer_record(w, rec, sizeof(rec), &err), 0);
		assert_int_equal(dfs_log_writer_module_end(w, &err), 0);
	}
	if (s->nstdio)
		write_module(w, DFS_MOD_STDIO, s->stdio, s->nstdio);
	if (s->hosts[0]) {
		assert_int_equal(dfs_log_writer_module_begin(w, DFS_MOD_DXT_POSIX, 0, &err), 0);
		for (int h = 0; h < 4 && s->hosts[h]; h++) {
			unsigned char rec[104 + 40];
			memset(rec, 0, sizeof(rec));
			uint64_t id = file_id(0);
			int64_t v = h, one = 1;
			memcpy(rec, &id, 8);
			memcpy(rec + 8, &v, 8);
			memcpy(rec + 24, s->hosts[h], strlen(s->hosts[h]));
			memcpy(rec + 88, &one, 8);               /* one write */
			double t0 = 1.0 + h, t1 = 1.5 + h;
			int64_t len = 4096;
			memcpy(rec + 104 + 8, &len, 8);
			memcpy(rec + 104 + 16, &t0, 8);
			memcpy(rec + 104 + 24, &t1, 8);
			assert_int_equal(dfs_log_writer_record(w, rec, sizeof(rec), &err), 0);
		}
		assert_int_equal(dfs_log_writer_module_end(w, &err), 0);
	}
	if (s->ndfs)
		write_module(w, DFS_MOD_DFS, s->dfs, s->ndfs);
	return finish_job(w, &out, s->partial, "generated");
}

/* A job without problems: four ranks each write their own file and read
 * a shared one, in large sequential aligned requests, MPI-IO collective
 * and non-blocking, no STDIO to speak of, balanced time. */
static void healthy(struct spec *s)
{
	memset(s, 0, sizeof(*s));
	for (int r = 0; r < NPROCS; r++) {
		struct rec *p = &s->posix[s->nposix++];
		p->rank = r;
		p->id = file_id(r % 2);
		set(p, "POSIX_OPENS", 1);
		set(p, "POSIX_READS", 100);
		set(p, "POSIX_WRITES", 100);
		set(p, "POSIX_SEQ_READS", 100);
		set(p, "POSIX_SEQ_WRITES", 100);
		set(p, "POSIX_CONSEC_READS", 100);
		set(p, "POSIX_CONSEC_WRITES", 100);
		set(p, "POSIX_BYTES_READ", 100.0 * 4194304);
		set(p, "POSIX_BYTES_WRITTEN", 100.0 * 4194304);
		set(p, "POSIX_SIZE_READ_4M_10M", 100);
		set(p, "POSIX_SIZE_WRITE_4M_10M", 100);
		set(p, "POSIX_MAX_BYTE_READ", 100.0 * 4194304 - 1);
		set(p, "POSIX_MAX_BYTE_WRITTEN", 100.0 * 4194304 - 1);
		set(p, "POSIX_F_READ_TIME", 2);
		set(p, "POSIX_F_WRITE_TIME", 2);
		set(p, "POSIX_F_META_TIME", 0.5);
		set(p, "POSIX_F_OPEN_START_TIMESTAMP", 1);
		set(p, "POSIX_F_CLOSE_END_TIMESTAMP", 50);
	}
	struct rec *m = &s->mpiio[s->nmpiio++];
	m->rank = -1;
	m->id = file_id(0);
	set(m, "MPIIO_COLL_OPENS", 4);
	set(m, "MPIIO_COLL_READS", 2000);
	set(m, "MPIIO_COLL_WRITES", 2000);
	set(m, "MPIIO_NB_READS", 10);
	set(m, "MPIIO_NB_WRITES", 10);
	set(m, "MPIIO_BYTES_READ", 1e9);
	set(m, "MPIIO_BYTES_WRITTEN", 1e9);
	struct rec *o = &s->stdio[s->nstdio++];
	o->rank = 0;
	o->id = file_id(3);
	set(o, "STDIO_OPENS", 1);
	set(o, "STDIO_WRITES", 10);
	set(o, "STDIO_BYTES_WRITTEN", 1000);
}

/* ---- running the insights ---------------------------------------------------- */

/* every record of the log (POSIX said partial when asked) */
static void whole_input(const dfs_log *log, bool partial, dfs_summary_input *in)
{
	memset(in, 0, sizeof(*in));
	in->log = log;
	in->title = "generated.darshan";
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		const dfs_log_module *lm = dfs_log_get_module(log, id);
		if (!lm->present)
			continue;
		in->mod[id].records = &lm->records;
		in->mod[id].count = in->mod[id].total = lm->records.count;
		in->mod[id].partial = partial && id == DFS_MOD_POSIX;
	}
}

static char *insights(const dfs_log *log, const dfs_insight_thresholds *t, bool partial)
{
	dfs_summary_input in;
	whole_input(log, partial, &in);
	in.thresholds = t;
	dfs_buf out = DFS_BUF_INIT;
	dfs_error err = {0};
	assert_int_equal(dfs_insights_csv(&in, "x/generated.darshan", true, &out, &err), 0);
	dfs_buf_addc(&out, '\0');
	return out.data;
}

/* the page of every record of the log */
static char *page_html(const dfs_log *log)
{
	dfs_summary_input in;
	whole_input(log, false, &in);
	dfs_buf out = DFS_BUF_INIT;
	dfs_error err = {0};
	assert_int_equal(dfs_summary_html(&in, &out, &err), 0);
	dfs_buf_addc(&out, '\0');
	return out.data;
}

/* does the CSV hold a row of this code? */
static bool fires(const char *csv, const char *code)
{
	char key[64];
	snprintf(key, sizeof(key), "\nx/generated.darshan,%s,", code);
	return strstr(csv, key) != NULL;
}

static const char *const all_codes[] = {
	"S_STDIO_HIGH_USAGE", "P_WRITE_INTENSIVE", "P_READ_INTENSIVE",
	"P_WRITE_SIZE_INTENSIVE", "P_READ_SIZE_INTENSIVE", "P_SMALL_READS",
	"P_SMALL_WRITES", "P_MISALIGNED_MEMORY", "P_MISALIGNED_FILE",
	"P_RANDOM_READS", "P_RANDOM_WRITES", "P_SHARED_SMALL_READS",
	"P_SHARED_SMALL_WRITES", "P_METADATA_TIME", "P_SHARED_IMBALANCE",
	"P_SIZE_IMBALANCE", "M_NO_COLLECTIVE_READS", "M_NO_COLLECTIVE_WRITES",
	"M_NO_NONBLOCKING", "D_PARTIAL", "L_SINGLE_STRIPE",
	"R_WORST_RANK_SHARE", "Q_TIME_INVALID", "Q_SIZE_INVALID", "Q_RANK_INVALID",
	"Q_BYTES_EXCEED_REQUESTS", "Q_TIME_EXCEEDS_RUN", "Q_RUNTIME_3_2_0",
};

static void test_healthy_has_no_finding(void **state)
{
	(void)state;
	struct spec s;
	healthy(&s);
	/* (the hints Darshan writes its own log with, by default: not the
	 * application's, so no rule reads them, whatever the node count) */
	s.metadata = "h=romio_no_indep_rw=true;cb_nodes=4\n";
	s.hosts[0] = "nid001";
	s.hosts[1] = "nid002";
	s.hosts[2] = "nid003";
	s.lustre = true;
	s.stripes = 8;
	dfs_log *log = build(&s);
	char *csv = insights(log, NULL, false);
	for (size_t k = 0; k < sizeof(all_codes) / sizeof(*all_codes); k++)
		if (fires(csv, all_codes[k]))
			fail_msg("%s fires on a healthy log:\n%s", all_codes[k], csv);
	assert_string_equal(csv, "log,code,level,module,message,value,threshold,count,total,"
	                         "files,ranks,advice\n");
	free(csv);
	dfs_log_free(log);
}

/* One problem each: the mutation of the healthy job, and the code. */
struct problem {
	const char *code;
	void (*make)(struct spec *s);
};

static void stdio_heavy(struct spec *s)
{
	set(&s->stdio[0], "STDIO_BYTES_WRITTEN", 1e10);
}

static void write_heavy(struct spec *s)
{
	for (size_t i = 0; i < s->nposix; i++) {
		set(&s->posix[i], "POSIX_READS", 10);
		set(&s->posix[i], "POSIX_SEQ_READS", 10);
		set(&s->posix[i], "POSIX_SIZE_READ_4M_10M", 10);
		set(&s->posix[i], "POSIX_BYTES_READ", 10.0 * 4194304);
	}
}

static void read_heavy(struct spec *s)
{
	for (size_t i = 0; i < s->nposix; i++) {
		set(&s->posix[i], "POSIX_WRITES", 10);
		set(&s->posix[i], "POSIX_SEQ_WRITES", 10);
		set(&s->posix[i], "POSIX_SIZE_WRITE_4M_10M", 10);
		set(&s->posix[i], "POSIX_BYTES_WRITTEN", 10.0 * 4194304);
	}
}

static void small_reads(struct spec *s)
{
	for (size_t i = 0; i < s->nposix; i++) {
		set(&s->posix[i], "POSIX_SIZE_READ_4M_10M", 0);
		set(&s->posix[i], "POSIX_SIZE_READ_1K_10K", 100);
	}
	for (size_t i = 0; i < s->nposix; i++)
		set(&s->posix[i], "POSIX_SIZE_READ_1K_10K", 400);
	for (size_t i = 0; i < s->nposix; i++) {
		set(&s->posix[i], "POSIX_READS", 400);
		set(&s->posix[i], "POSIX_SEQ_READS", 400);
		set(&s->posix[i], "POSIX_WRITES", 400);
		set(&s->posix[i], "POSIX_SEQ_WRITES", 400);
		set(&s->posix[i], "POSIX_SIZE_WRITE_4M_10M", 400);
	}
}

static void small_writes(struct spec *s)
{
	for (size_t i = 0; i < s->nposix; i++) {
		set(&s->posix[i], "POSIX_READS", 400);
		set(&s->posix[i], "POSIX_SEQ_READS", 400);
		set(&s->posix[i], "POSIX_SIZE_READ_4M_10M", 400);
		set(&s->posix[i], "POSIX_WRITES", 400);
		set(&s->posix[i], "POSIX_SEQ_WRITES", 400);
		set(&s->posix[i], "POSIX_SIZE_WRITE_4M_10M", 0);
		set(&s->posix[i], "POSIX_SIZE_WRITE_0_100", 400);
	}
}

/* 2000 reads and 2000 writes of each record, sequential, 4 to 10 MiB */
static void many_requests(struct spec *s)
{
	static const char *const names[] = {
		"POSIX_READS", "POSIX_WRITES", "POSIX_SEQ_READS", "POSIX_SEQ_WRITES",
		"POSIX_CONSEC_READS", "POSIX_CONSEC_WRITES", "POSIX_SIZE_READ_4M_10M",
		"POSIX_SIZE_WRITE_4M_10M",
	};
	for (size_t i = 0; i < s->nposix; i++)
		for (size_t k = 0; k < sizeof(names) / sizeof(*names); k++)
			set(&s->posix[i], names[k], 2000);
}

/* 2000 of the 16000 requests (12.5%, over the 1000 of the floor) */
static void misaligned_memory(struct spec *s)
{
	many_requests(s);
	for (size_t i = 0; i < s->nposix; i++)
		set(&s->posix[i], "POSIX_MEM_NOT_ALIGNED", 500);
}

static void misaligned_file(struct spec *s)
{
	many_requests(s);
	for (size_t i = 0; i < s->nposix; i++)
		set(&s->posix[i], "POSIX_FILE_NOT_ALIGNED", 500);
}

static void random_reads(struct spec *s)
{
	for (size_t i = 0; i < s->nposix; i++) {
		set(&s->posix[i], "POSIX_READS", 2000);
		set(&s->posix[i], "POSIX_WRITES", 2000);
		set(&s->posix[i], "POSIX_SEQ_WRITES", 2000);
		set(&s->posix[i], "POSIX_SEQ_READS", 100);
		set(&s->posix[i], "POSIX_SIZE_READ_4M_10M", 2000);
		set(&s->posix[i], "POSIX_SIZE_WRITE_4M_10M", 2000);
	}
}

static void random_writes(struct spec *s)
{
	for (size_t i = 0; i < s->nposix; i++) {
		set(&s->posix[i], "POSIX_READS", 2000);
		set(&s->posix[i], "POSIX_WRITES", 2000);
		set(&s->posix[i], "POSIX_SEQ_READS", 2000);
		set(&s->posix[i], "POSIX_SEQ_WRITES", 100);
		set(&s->posix[i], "POSIX_SIZE_READ_4M_10M", 2000);
		set(&s->posix[i], "POSIX_SIZE_WRITE_4M_10M", 2000);
	}
}

/* a fifth record: file 2 shared by every rank (rank -1) */
static struct rec *shared_file(struct spec *s)
{
	struct rec *p = &s->posix[s->nposix++];
	*p = s->posix[0];
	p->rank = -1;
	p->id = file_id(2);
	set(p, "POSIX_FASTEST_RANK_BYTES", 100.0 * 4194304 / NPROCS);
	set(p, "POSIX_SLOWEST_RANK_BYTES", 100.0 * 4194304 / NPROCS);
	set(p, "POSIX_F_FASTEST_RANK_TIME", 1);
	set(p, "POSIX_F_SLOWEST_RANK_TIME", 1);
	return p;
}

static void shared_small_reads(struct spec *s)
{
	struct rec *p = shared_file(s);
	set(p, "POSIX_READS", 1500);
	set(p, "POSIX_SEQ_READS", 1500);
	set(p, "POSIX_WRITES", 1500);
	set(p, "POSIX_SEQ_WRITES", 1500);
	set(p, "POSIX_SIZE_READ_4M_10M", 0);
	set(p, "POSIX_SIZE_READ_100_1K", 1500);
	set(p, "POSIX_SIZE_WRITE_4M_10M", 1500);
	/* keep the job as a whole mostly large reads */
	for (size_t i = 0; i + 1 < s->nposix; i++) {
		set(&s->posix[i], "POSIX_READS", 5000);
		set(&s->posix[i], "POSIX_SEQ_READS", 5000);
		set(&s->posix[i], "POSIX_SIZE_READ_4M_10M", 5000);
		set(&s->posix[i], "POSIX_WRITES", 5000);
		set(&s->posix[i], "POSIX_SEQ_WRITES", 5000);
		set(&s->posix[i], "POSIX_SIZE_WRITE_4M_10M", 5000);
	}
}

static void shared_small_writes(struct spec *s)
{
	struct rec *p = shared_file(s);
	set(p, "POSIX_READS", 1500);
	set(p, "POSIX_SEQ_READS", 1500);
	set(p, "POSIX_WRITES", 1500);
	set(p, "POSIX_SEQ_WRITES", 1500);
	set(p, "POSIX_SIZE_WRITE_4M_10M", 0);
	set(p, "POSIX_SIZE_WRITE_100_1K", 1500);
	set(p, "POSIX_SIZE_READ_4M_10M", 1500);
	for (size_t i = 0; i + 1 < s->nposix; i++) {
		set(&s->posix[i], "POSIX_READS", 5000);
		set(&s->posix[i], "POSIX_SEQ_READS", 5000);
		set(&s->posix[i], "POSIX_SIZE_READ_4M_10M", 5000);
		set(&s->posix[i], "POSIX_WRITES", 5000);
		set(&s->posix[i], "POSIX_SEQ_WRITES", 5000);
		set(&s->posix[i], "POSIX_SIZE_WRITE_4M_10M", 5000);
	}
}

static void metadata_time(struct spec *s)
{
	for (size_t i = 0; i < s->nposix; i++)
		set(&s->posix[i], "POSIX_F_META_TIME", 40);
}

static void straggler(struct spec *s)
{
	struct rec *p = shared_file(s);
	set(p, "POSIX_FASTEST_RANK_BYTES", 0);
	set(p, "POSIX_SLOWEST_RANK_BYTES", 100.0 * 4194304);
}

static void size_imbalance(struct spec *s)
{
	/* ranks 1 and 3 open file 1 (no module shares it): 800 MiB against 4 */
	set(&s->posix[3], "POSIX_BYTES_READ", 4194304);
	set(&s->posix[3], "POSIX_BYTES_WRITTEN", 0);
}

static void independent_reads(struct spec *s)
{
	set(&s->mpiio[0], "MPIIO_INDEP_READS", 3000);
	set(&s->mpiio[0], "MPIIO_COLL_READS", 0);
}

static void independent_writes(struct spec *s)
{
	set(&s->mpiio[0], "MPIIO_INDEP_WRITES", 3000);
	set(&s->mpiio[0], "MPIIO_COLL_WRITES", 0);
}

static void blocking_only(struct spec *s)
{
	set(&s->mpiio[0], "MPIIO_NB_READS", 0);
	set(&s->mpiio[0], "MPIIO_NB_WRITES", 0);
}

static void partial(struct spec *s)
{
	s->partial = 1ULL << DFS_MOD_POSIX;
}

static void single_stripe(struct spec *s)
{
	/* file 1 shared by every rank, 2 GiB, on one stripe */
	struct rec *p = shared_file(s);
	p->id = file_id(1);
	set(p, "POSIX_MAX_BYTE_WRITTEN", 2147483647.0);
	s->lustre = true;
	s->stripes = 1;
}

static void worst_rank(struct spec *s)
{
	set(&s->posix[1], "POSIX_F_WRITE_TIME", 200);
}

static const struct problem problems[] = {
	{"S_STDIO_HIGH_USAGE", stdio_heavy},
	{"P_WRITE_INTENSIVE", write_heavy},
	{"P_WRITE_SIZE_INTENSIVE", write_heavy},
	{"P_READ_INTENSIVE", read_heavy},
	{"P_READ_SIZE_INTENSIVE", read_heavy},
	{"P_SMALL_READS", small_reads},
	{"P_SMALL_WRITES", small_writes},
	{"P_MISALIGNED_MEMORY", misaligned_memory},
	{"P_MISALIGNED_FILE", misaligned_file},
	{"P_RANDOM_READS", random_reads},
	{"P_RANDOM_WRITES", random_writes},
	{"P_SHARED_SMALL_READS", shared_small_reads},
	{"P_SHARED_SMALL_WRITES", shared_small_writes},
	{"P_METADATA_TIME", metadata_time},
	{"P_SHARED_IMBALANCE", straggler},
	{"P_SIZE_IMBALANCE", size_imbalance},
	{"M_NO_COLLECTIVE_READS", independent_reads},
	{"M_NO_COLLECTIVE_WRITES", independent_writes},
	{"M_NO_NONBLOCKING", blocking_only},
	{"D_PARTIAL", partial},
	{"L_SINGLE_STRIPE", single_stripe},
	{"R_WORST_RANK_SHARE", worst_rank},
};

static void test_each_problem_fires(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(problems) / sizeof(*problems); k++) {
		struct spec s;
		healthy(&s);
		s.metadata = "h=cb_nodes=2\n";
		s.hosts[0] = "nid001";
		s.hosts[1] = "nid002";
		problems[k].make(&s);
		dfs_log *log = build(&s);
		char *csv = insights(log, NULL, false);
		if (!fires(csv, problems[k].code))
			fail_msg("%s does not fire on a log built for it:\n%s", problems[k].code, csv);
		free(csv);
		dfs_log_free(log);
	}
}

static void test_thresholds_file(void **state)
{
	(void)state;
	struct spec s;
	healthy(&s);
	small_reads(&s);
	dfs_log *log = build(&s);
	dfs_insight_thresholds t;
	dfs_insight_thresholds_default(&t);
	dfs_error err = {0};
	assert_int_equal(dfs_insight_thresholds_parse(&t, "# fewer alarms\n"
	                 "small_requests_absolute = 1e9\n\n  small_bytes=4 KiB  # tiny\n", &err), 0);
	assert_true(t.small_requests_absolute == 1e9);
	assert_true(t.small_bytes == 4096);
	char *csv = insights(log, &t, false);
	assert_false(fires(csv, "P_SMALL_READS"));
	free(csv);
	t.small_requests_absolute = 1000;
	t.small_bytes = 1024;   /* the reads (1K-10K) are no longer small */
	csv = insights(log, &t, false);
	assert_false(fires(csv, "P_SMALL_READS"));
	free(csv);
	assert_int_equal(dfs_insight_thresholds_parse(&t, "small_bytes = 10KiB\n", &err), 0);
	csv = insights(log, &t, false);
	assert_true(fires(csv, "P_SMALL_READS"));
	free(csv);
	/* refused lines name themselves */
	assert_int_equal(dfs_insight_thresholds_parse(&t, "small_bytes = 1\nnope = 2\n", &err), -1);
	assert_non_null(strstr(err.msg, "line 2"));
	assert_non_null(strstr(err.msg, "nope"));
	assert_int_equal(dfs_insight_thresholds_parse(&t, "small_bytes = -1\n", &err), -1);
	assert_int_equal(dfs_insight_thresholds_parse(&t, "small_bytes\n", &err), -1);
	assert_int_equal(dfs_insight_thresholds_parse(&t, "small_bytes = 3 apples\n", &err), -1);
	dfs_log_free(log);
}

/* ---- the page and the plots ------------------------------------------------ */

static void check_svg(const char *svg, size_t len)
{
	/* a document of its own, balanced at the top level, under 1 MB */
	assert_true(len < (1u << 20));
	assert_non_null(strstr(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
	assert_non_null(strstr(svg, "</svg>\n"));
	size_t open = 0, close = 0;
	for (const char *p = svg; (p = strstr(p, "<svg")); p++)
		open++;
	for (const char *p = svg; (p = strstr(p, "</svg>")); p++)
		close++;
	assert_int_equal(open, close);
}

static void render_all(const dfs_log *log, const size_t *index, size_t count,
                       size_t *html_len)
{
	dfs_summary_input in;
	memset(&in, 0, sizeof(in));
	in.log = log;
	in.title = "a <b> & \"c\" \xff.darshan";
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		const dfs_log_module *lm = dfs_log_get_module(log, id);
		if (!lm->present)
			continue;
		in.mod[id].records = &lm->records;
		in.mod[id].count = lm->records.count;
		in.mod[id].total = lm->records.count;
		if (id == DFS_MOD_POSIX && index) {
			in.mod[id].index = index;
			in.mod[id].count = count;
		}
	}
	dfs_error err = {0};
	/* one pass for all gives the bytes of each rendered alone */
	dfs_buf all[DFS_PLOTS + 3];
	for (int i = 0; i < DFS_PLOTS + 3; i++)
		dfs_buf_init(&all[i]);
	assert_int_equal(dfs_summary_render_all(&in, &all[DFS_PLOTS], all, &all[DFS_PLOTS + 1],
	                                        &all[DFS_PLOTS + 2], &err), 0);
	dfs_buf alone = DFS_BUF_INIT;
	assert_int_equal(dfs_summary_html(&in, &alone, &err), 0);
	assert_int_equal(alone.len, all[DFS_PLOTS].len);
	assert_memory_equal(alone.data, all[DFS_PLOTS].data, alone.len);
	dfs_buf_reset(&alone);
	assert_int_equal(dfs_insights_text(&in, &alone, &err), 0);
	assert_int_equal(alone.len, all[DFS_PLOTS + 1].len);
	assert_memory_equal(alone.data, all[DFS_PLOTS + 1].data, alone.len);
	dfs_buf_reset(&alone);
	assert_int_equal(dfs_insights_csv(&in, NULL, true, &alone, &err), 0);
	assert_int_equal(alone.len, all[DFS_PLOTS + 2].len);
	assert_memory_equal(alone.data, all[DFS_PLOTS + 2].data, alone.len);
	dfs_buf_free(&alone);
	for (int p = 0; p < DFS_PLOTS; p++) {
		dfs_buf b = DFS_BUF_INIT;
		assert_int_equal(dfs_summary_svg(&in, p, &b, &err), 0);
		assert_int_equal(b.len, all[p].len);
		assert_memory_equal(b.data, all[p].data, b.len);
		dfs_buf_addc(&b, '\0');
		check_svg(b.data, b.len - 1);
		char file[64];
		snprintf(file, sizeof(file), "%s.svg", dfs_summary_plot_name(p));
		assert_int_equal(dfs_summary_plot_by_file(file), p);
		dfs_buf_free(&b);
	}
	for (int i = 0; i < DFS_PLOTS + 3; i++)
		dfs_buf_free(&all[i]);
	dfs_buf b = DFS_BUF_INIT;
	assert_int_equal(dfs_summary_html(&in, &b, &err), 0);
	dfs_buf_addc(&b, '\0');
	/* the title is escaped, the bad byte replaced */
	assert_non_null(strstr(b.data, "a &lt;b&gt; &amp; &quot;c&quot; ?.darshan"));
	assert_null(strstr(b.data, "<script"));
	assert_null(strstr(b.data, "http://www.w3.org/1999"));
	*html_len = b.len;
	dfs_buf_free(&b);
}

static void test_page_of_generated_log(void **state)
{
	(void)state;
	struct spec s;
	healthy(&s);
	straggler(&s);
	dfs_log *log = build(&s);
	size_t len;
	render_all(log, NULL, 0, &len);
	assert_true(len > 1000);
	size_t one = 0;
	render_all(log, &one, 1, &len);
	dfs_log_free(log);
}

/* The Lustre section's average size is of the files whose size is known:
 * a file with a LUSTRE record alone (no module of the page records it)
 * has no size, not one of 0 (noposix.darshan: 518 of 519 files) */
static void test_lustre_sizes(void **state)
{
	(void)state;
	struct spec s;
	healthy(&s);
	s.lustre = true;   /* file 1: ranks 1 and 3, 400 MiB its largest offset + 1 */
	s.stripes = 1;
	dfs_log *log = build(&s);
	char *page = page_html(log);
	assert_non_null(strstr(page, "<p>1 file on Lustre, 1 OST used.</p>"));
	assert_non_null(strstr(page, "<tr><td>1</td><td class=\"n\">1</td><td class=\"n\">"
	                             "400.00 MiB</td><td class=\"n\">400.00 MiB</td></tr>"));
	assert_null(strstr(page, "only a LUSTRE record"));
	free(page);
	dfs_log_free(log);
	s.nposix = 0;
	s.nmpiio = 0;
	log = build(&s);
	page = page_html(log);
	assert_non_null(strstr(page, "<tr><td>1</td><td class=\"n\">1</td><td class=\"n\">"
	                             "0 B</td><td class=\"n\">-</td></tr>"));
	assert_non_null(strstr(page, "1 file has only a LUSTRE record and no size"));
	free(page);
	dfs_log_free(log);
}

/* 200,000 ranks and records (50,000 with DFS_TEST_QUICK=1, the sanitizer
 * pass: a quarter of the time, still thousands of ranks to every bin of a
 * plot): the plots stay small */
static void test_many_ranks(void **state)
{
	(void)state;
	dfs_error err = {0};
	dfs_buf out = DFS_BUF_INIT;
	const int64_t nranks = shared_quick() ? 50000 : 200000;
	dfs_log_writer *w = start_job(&out, nranks, 1000, "/bin/big", (dfs_mount){"/lus", "lustre", 4});
	char name[64];
	for (int k = 0; k < 1000; k++) {
		int n = snprintf(name, sizeof(name), "/lus/out.%d", k);
		assert_int_equal(dfs_log_writer_name(w, dfs_hash_name(name, (size_t)n), name,
		                                     (size_t)n, &err), 0);
	}
	assert_int_equal(dfs_log_writer_module_begin(w, DFS_MOD_POSIX, 0, &err), 0);
	const dfs_module *m = dfs_module_get(DFS_MOD_POSIX);
	struct rec r;
	memset(&r, 0, sizeof(r));
	unsigned char buf[DFS_RECORD_MAX];
	for (int64_t k = 0; k < nranks; k++) {
		int n = snprintf(name, sizeof(name), "/lus/out.%d", (int)(k % 1000));
		r.rank = k;
		r.id = dfs_hash_name(name, (size_t)n);
		r.n = 0;
		set(&r, "POSIX_WRITES", (double)(k % 97));
		set(&r, "POSIX_BYTES_WRITTEN", (double)(k % 97) * 1e6);
		set(&r, "POSIX_F_WRITE_TIME", (double)(k % 13));
		set(&r, "POSIX_F_OPEN_START_TIMESTAMP", (double)(k % 100));
		set(&r, "POSIX_F_CLOSE_END_TIMESTAMP", (double)(k % 100) + 500);
		fill(m, &r, buf);
		assert_int_equal(dfs_log_writer_record(w, buf, m->record_size, &err), 0);
	}
	assert_int_equal(dfs_log_writer_module_end(w, &err), 0);
	dfs_log *log = finish_job(w, &out, 0, "big");
	size_t len;
	render_all(log, NULL, 0, &len);
	assert_true(len < (1u << 20));
	dfs_log_free(log);
}

/* 3,000 files in 20 top-level directories, each file written by two ranks
 * whose records lie far apart: the table of files grows many times, every
 * file is counted once, its ranks' bytes meet, the first 15 top-level
 * paths get a row each and the rest fall into "(others)" */
static void test_many_files(void **state)
{
	(void)state;
	enum { FILES = 3000, DIRS = 20 };
	dfs_error err = {0};
	dfs_buf out = DFS_BUF_INIT;
	dfs_log_writer *w = start_job(&out, 2, 100, "/bin/many", (dfs_mount){"/t0", "lustre", 4});
	static uint64_t ids[FILES];
	char name[64];
	for (int k = 0; k < FILES; k++) {
		int n = snprintf(name, sizeof(name), "/t%d/run/f%d", k % DIRS, k);
		ids[k] = dfs_hash_name(name, (size_t)n);
		assert_int_equal(dfs_log_writer_name(w, ids[k], name, (size_t)n, &err), 0);
	}
	assert_int_equal(dfs_log_writer_module_begin(w, DFS_MOD_POSIX, 0, &err), 0);
	const dfs_module *m = dfs_module_get(DFS_MOD_POSIX);
	struct rec r;
	unsigned char buf[DFS_RECORD_MAX];
	/* rank 0 in the order of the names, rank 1 backwards */
	for (int rank = 0; rank < 2; rank++) {
		for (int j = 0; j < FILES; j++) {
			int k = rank ? FILES - 1 - j : j;
			memset(&r, 0, sizeof(r));
			r.rank = rank;
			r.id = ids[k];
			/* even files: 1 and 3 MiB (67% apart), odd: 2 MiB */
			set(&r, "POSIX_WRITES", 1);
			set(&r, "POSIX_BYTES_WRITTEN", (k % 2 ? 2 : rank ? 3 : 1) * 1048576.0);
			set(&r, "POSIX_F_WRITE_TIME", 0.5);
			fill(m, &r, buf);
			assert_int_equal(dfs_log_writer_record(w, buf, m->record_size, &err), 0);
		}
	}
	assert_int_equal(dfs_log_writer_module_end(w, &err), 0);
	dfs_log *log = finish_job(w, &out, 0, "many");

	dfs_summary_input in;
	memset(&in, 0, sizeof(in));
	in.log = log;
	in.title = "many";
	const dfs_log_module *lm = dfs_log_get_module(log, DFS_MOD_POSIX);
	in.mod[DFS_MOD_POSIX].records = &lm->records;
	in.mod[DFS_MOD_POSIX].count = in.mod[DFS_MOD_POSIX].total = lm->records.count;
	dfs_buf html = DFS_BUF_INIT, txt = DFS_BUF_INIT;
	assert_int_equal(dfs_summary_html(&in, &html, &err), 0);
	assert_int_equal(dfs_insights_text(&in, &txt, &err), 0);
	dfs_buf_addc(&html, '\0');
	dfs_buf_addc(&txt, '\0');
	assert_non_null(strstr(txt.data, "1500 files were accessed by ranks that moved "
	                                 "very different amounts"));
	/* 15 directories of 150 files, the other 5 (750 files) together */
	size_t rows = 0;
	for (int d = 0; d < DIRS; d++) {
		char row[64];
		snprintf(row, sizeof(row), "<tr><td>/t%d/run</td><td class=\"n\">150</td>", d);
		rows += strstr(html.data, row) != NULL;
	}
	assert_int_equal(rows, 15);
	assert_non_null(strstr(html.data, "<tr><td>(others)</td><td class=\"n\">750</td>"));
	dfs_buf_free(&html);
	dfs_buf_free(&txt);
	dfs_log_free(log);
}

/* The bytes of the rows of the top-level path table of a page, in
 * order (read back from their human form: "12.5 KiB"); their number */
static size_t top_path_bytes(const char *html, double *bytes, size_t max)
{
	const char *p = strstr(html, "<th>top-level path</th>");
	const char *end = p ? strstr(p, "</table>") : NULL;
	size_t n = 0;
	while (p && end && (p = strstr(p, "<tr><td>")) && p < end && n < max) {
		static const char cell[] = "</td><td class=\"n\">";
		const char *b = strstr(p, cell);
		b = b ? strstr(b + 1, cell) : NULL;
		assert_non_null(b);
		char unit[8] = "";
		double v = 0;
		assert_true(sscanf(b + strlen(cell), "%lf %7[A-Za-z]", &v, unit) >= 1);
		static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
		for (int u = 0; u < 5; u++)
			if (strcmp(unit, units[u]) == 0)
				v *= pow(1024, u);
		bytes[n++] = v;
		p = b;
	}
	return n;
}

/* What the names give is kept between renders of a log (as the view does
 * after each filter change): renders with kept names, one selection after
 * another, equal renders that work them out afresh; a file without a name
 * included */
static void test_names_kept(void **state)
{
	(void)state;
	enum { FILES = 400 };
	dfs_error err = {0};
	dfs_buf out = DFS_BUF_INIT;
	dfs_log_writer *w = start_job(&out, 4, 100, "/bin/kept", (dfs_mount){"/t1", "lustre", 4});
	char name[64];
	static uint64_t ids[FILES + 1];
	for (int k = 0; k < FILES; k++) {
		int n = snprintf(name, sizeof(name), "/t%d/run/f%d.%d", k % 7, k, k % 3);
		ids[k] = dfs_hash_name(name, (size_t)n);
		assert_int_equal(dfs_log_writer_name(w, ids[k], name, (size_t)n, &err), 0);
	}
	ids[FILES] = 12345;   /* a record without a name */
	assert_int_equal(dfs_log_writer_module_begin(w, DFS_MOD_POSIX, 0, &err), 0);
	const dfs_module *m = dfs_module_get(DFS_MOD_POSIX);
	struct rec r;
	unsigned char buf[DFS_RECORD_MAX];
	for (int rank = 0; rank < 2; rank++) {
		for (int k = 0; k <= FILES; k++) {
			memset(&r, 0, sizeof(r));
			r.rank = k % 5 == 0 ? -1 : rank;
			r.id = ids[k];
			set(&r, "POSIX_WRITES", 1 + k % 4);
			set(&r, "POSIX_BYTES_WRITTEN", 1000.0 * (k % 11 + 1) * (rank + 1));
			set(&r, "POSIX_F_WRITE_TIME", 0.25 * (k % 5));
			fill(m, &r, buf);
			assert_int_equal(dfs_log_writer_record(w, buf, m->record_size, &err), 0);
		}
	}
	assert_int_equal(dfs_log_writer_module_end(w, &err), 0);
	dfs_log *log = finish_job(w, &out, 0, "kept");

	const dfs_log_module *lm = dfs_log_get_module(log, DFS_MOD_POSIX);
	static size_t odd[FILES + 1];
	size_t nodd = 0;
	for (size_t i = 1; i < lm->records.count; i += 2)
		odd[nodd++] = i;
	dfs_summary_names *kept = dfs_summary_names_new(log);
	assert_non_null(kept);
	/* every record, the odd ones, every record again */
	for (int pass = 0; pass < 3; pass++) {
		dfs_summary_input in;
		memset(&in, 0, sizeof(in));
		in.log = log;
		in.title = "kept";
		in.mod[DFS_MOD_POSIX].records = &lm->records;
		in.mod[DFS_MOD_POSIX].total = lm->records.count;
		in.mod[DFS_MOD_POSIX].index = pass == 1 ? odd : NULL;
		in.mod[DFS_MOD_POSIX].count = pass == 1 ? nodd : lm->records.count;
		dfs_buf fresh = DFS_BUF_INIT, with = DFS_BUF_INIT;
		assert_int_equal(dfs_summary_html(&in, &fresh, &err), 0);
		in.names = kept;
		assert_int_equal(dfs_summary_html(&in, &with, &err), 0);
		assert_int_equal(with.len, fresh.len);
		assert_memory_equal(with.data, fresh.data, fresh.len);
		dfs_buf_addc(&with, '\0');
		/* the unnamed file is counted under its own path; the paths are
		 * ranked by bytes, 7 of them and no (others) */
		assert_non_null(strstr(with.data, "<tr><td>(no name)</td><td class=\"n\">1</td>"));
		assert_null(strstr(with.data, "(others)"));
		/* most bytes first */
		double tb[16];
		size_t nt = top_path_bytes(with.data, tb, 16);
		assert_int_equal(nt, 8);
		for (size_t i = 1; i < nt; i++) {
			if (!(tb[i] <= tb[i - 1]))
				fail_msg("row %zu: %g after %g", i, tb[i], tb[i - 1]);
		}
		dfs_buf_free(&fresh);
		dfs_buf_free(&with);
	}
	assert_true(dfs_summary_names_memory(kept) >= FILES * 16);
	dfs_summary_names_free(kept);
	dfs_log_free(log);
}

/* ---- DXT: a plot per traced file -------------------------------------------- */

struct seg {
	int64_t off, len;
	double start, end;
};

/* a DXT record of file `id`: `w` write segments then `r` read segments */
static void dxt_record(dfs_log_writer *w, uint64_t id, int64_t rank, const struct seg *s,
                       int64_t nw, int64_t nr)
{
	dfs_error err = {0};
	size_t len = 104 + 40 * (size_t)(nw + nr);
	unsigned char *rec = calloc(1, len);
	assert_non_null(rec);
	memcpy(rec, &id, 8);
	memcpy(rec + 8, &rank, 8);
	memcpy(rec + 24, "nid001", 6);
	memcpy(rec + 88, &nw, 8);
	memcpy(rec + 96, &nr, 8);
	for (int64_t k = 0; k < nw + nr; k++) {
		unsigned char *p = rec + 104 + 40 * k;
		memcpy(p, &s[k].off, 8);
		memcpy(p + 8, &s[k].len, 8);
		memcpy(p + 16, &s[k].start, 8);
		memcpy(p + 24, &s[k].end, 8);
	}
	assert_int_equal(dfs_log_writer_record(w, rec, len, &err), 0);
	free(rec);
}

enum { BIG_SEGS = 100000 };

/* file 0: rank 0 writes three blocks and reads two small pieces, rank 1
 * writes BIG_SEGS blocks, and MPI-IO traces one write; file 1: one read;
 * file 2 has a record without segments */
static dfs_log *dxt_log(void)
{
	dfs_error err = {0};
	dfs_buf out = DFS_BUF_INIT;
	dfs_log_writer *w = start_job(&out, 2, 100, "/bin/traced", (dfs_mount){"/lus/grand", "lustre", 10});
	for (int k = 0; k < 3; k++)
		assert_int_equal(dfs_log_writer_name(w, file_id(k), file_names[k],
		                                     strlen(file_names[k]), &err), 0);
	assert_int_equal(dfs_log_writer_module_begin(w, DFS_MOD_DXT_POSIX, 0, &err), 0);
	struct seg a[] = {{0, 4096, 1.0, 1.1}, {4096, 4096, 1.2, 1.3}, {8192, 4096, 1.4, 1.5},
	                  {0, 100, 2.0, 2.01}, {100, 100, 2.1, 2.2}};
	dxt_record(w, file_id(0), 0, a, 3, 2);
	struct seg *big = calloc(BIG_SEGS, sizeof(*big));
	assert_non_null(big);
	for (int k = 0; k < BIG_SEGS; k++)
		big[k] = (struct seg){(int64_t)k * 4096, 4096, 3 + k * 1e-4, 3 + k * 1e-4 + 5e-5};
	dxt_record(w, file_id(0), 1, big, BIG_SEGS, 0);
	free(big);
	struct seg b[] = {{0, 65536, 5.0, 5.5}};
	dxt_record(w, file_id(1), 0, b, 0, 1);
	dxt_record(w, file_id(2), 1, b, 0, 0);   /* opened, never read nor written */
	assert_int_equal(dfs_log_writer_module_end(w, &err), 0);
	assert_int_equal(dfs_log_writer_module_begin(w, DFS_MOD_DXT_MPIIO, 0, &err), 0);
	struct seg c[] = {{0, 12288, 0.9, 1.6}};
	dxt_record(w, file_id(0), 0, c, 1, 0);
	assert_int_equal(dfs_log_writer_module_end(w, &err), 0);
	return finish_job(w, &out, 0, "dxt");
}

static void every_record(const dfs_log *log, dfs_summary_input *in)
{
	memset(in, 0, sizeof(*in));
	in->log = log;
	in->title = "dxt";
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		const dfs_log_module *lm = dfs_log_get_module(log, id);
		if (!lm->present)
			continue;
		in->mod[id].records = &lm->records;
		in->mod[id].count = in->mod[id].total = lm->records.count;
	}
}

static char *dxt_svg(const dfs_summary_input *in, uint64_t id)
{
	dfs_buf b = DFS_BUF_INIT;
	dfs_error err = {0};
	assert_int_equal(dfs_summary_dxt_file_svg(in, id, &b, &err), 0);
	dfs_buf_addc(&b, '\0');
	check_svg(b.data, b.len - 1);
	assert_non_null(strstr(b.data, "<?xml version=\"1.0\""));
	return b.data;
}

static void test_dxt_file_plots(void **state)
{
	(void)state;
	dfs_log *log = dxt_log();
	dfs_summary_input in;
	every_record(log, &in);
	dfs_error err = {0};
	uint64_t *ids;
	size_t n;
	assert_int_equal(dfs_summary_dxt_files(&in, &ids, &n, &err), 0);
	assert_int_equal(n, 2);
	uint64_t lo = file_id(0) < file_id(1) ? file_id(0) : file_id(1);
	assert_true(ids[0] == lo && ids[1] == (lo == file_id(0) ? file_id(1) : file_id(0)));
	free(ids);

	/* every request of file 0, POSIX and MPI-IO apart; the BIG_SEGS
	 * segments are binned: the plot stays small */
	char *svg = dxt_svg(&in, file_id(0));
	char want[200];
	snprintf(want, sizeof(want), "%d requests: 2 reads (200 B), %d writes",
	         BIG_SEGS + 4 + 2, BIG_SEGS + 4);
	assert_non_null(strstr(svg, want));
	snprintf(want, sizeof(want), "DXT_POSIX: offset against time, %d requests from 2 rank records",
	         BIG_SEGS + 5);
	assert_non_null(strstr(svg, want));
	assert_non_null(strstr(svg, "DXT_MPIIO: offset against time, 1 requests from 1 rank records"));
	assert_non_null(strstr(svg, file_names[0]));
	assert_true(strlen(svg) < (1u << 20));
	free(svg);
	svg = dxt_svg(&in, file_id(1));
	assert_non_null(strstr(svg, "1 requests: 1 reads (64.00 KiB), 0 writes (0 B), from 5 s to 5.5 s"));
	assert_null(strstr(svg, "DXT_MPIIO"));
	free(svg);
	dfs_buf b = DFS_BUF_INIT;
	assert_int_equal(dfs_summary_dxt_file_svg(&in, file_id(2), &b, &err), -1);
	assert_int_equal(err.code, DFS_ERR_NOENT);
	dfs_buf_free(&b);

	/* the page links to each */
	assert_int_equal(dfs_summary_html(&in, &b, &err), 0);
	dfs_buf_addc(&b, '\0');
	assert_non_null(strstr(b.data, "2 files have selected segments"));
	for (int k = 0; k < 2; k++) {
		snprintf(want, sizeof(want), "<a href=\"summary/dxt/%llu.svg\">",
		         (unsigned long long)file_id(k));
		assert_non_null(strstr(b.data, want));
	}
	dfs_buf_free(&b);

	/* a segment filter: rank 0's record of file 0 cut to its second
	 * write and its last read, MPI-IO left out */
	const dfs_log_module *lm = dfs_log_get_module(log, DFS_MOD_DXT_POSIX);
	unsigned char scratch[DFS_RECORD_MAX];
	const unsigned char *rec = dfs_record_get(&lm->records, 0, scratch);
	dfs_records cut;
	dfs_records_init(&cut, lm->records.module, lm->records.version);
	bool keep[] = {false, true, false, false, true};
	assert_int_equal(dfs_dxt_trim(rec, dfs_record_size(&lm->records, 0), keep, &cut), 0);
	every_record(log, &in);
	in.mod[DFS_MOD_DXT_POSIX].records = &cut;
	in.mod[DFS_MOD_DXT_POSIX].count = 1;
	in.mod[DFS_MOD_DXT_MPIIO].count = 0;
	assert_int_equal(dfs_summary_dxt_files(&in, &ids, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_true(ids[0] == file_id(0));
	free(ids);
	svg = dxt_svg(&in, file_id(0));
	assert_non_null(strstr(svg, "2 requests: 1 reads (100 B), 1 writes (4.00 KiB), "
	                            "from 1.2 s to 2.2 s"));
	free(svg);
	assert_int_equal(dfs_summary_dxt_file_svg(&in, file_id(1), &b, &err), -1);
	assert_int_equal(dfs_summary_html(&in, &b, &err), 0);
	dfs_buf_addc(&b, '\0');
	assert_non_null(strstr(b.data, "1 files have selected segments"));
	dfs_buf_free(&b);
	/* the job's DXT plots count the cut record's own reads and writes */
	assert_int_equal(dfs_summary_svg(&in, DFS_PLOT_DXT_DURATIONS, &b, &err), 0);
	dfs_buf_addc(&b, '\0');
	size_t ones = 0;
	for (const char *p = b.data; (p = strstr(p, "<title>1</title>")); p++)
		ones++;
	assert_int_equal(ones, 2);   /* one read bar, one write bar */
	dfs_buf_free(&b);
	dfs_records_free(&cut);
	dfs_log_free(log);
}

/* ---- the timeline ------------------------------------------------------------ */

/* rank k opens at 1 + k/1000 s and closes 10 s later */
static dfs_log *timeline_log(int64_t nprocs)
{
	dfs_error err = {0};
	dfs_buf out = DFS_BUF_INIT;
	dfs_log_writer *w = start_job(&out, nprocs, 1000, "/bin/lanes", (dfs_mount){"/lus", "lustre", 4});
	assert_int_equal(dfs_log_writer_name(w, file_id(0), file_names[0],
	                                     strlen(file_names[0]), &err), 0);
	assert_int_equal(dfs_log_writer_module_begin(w, DFS_MOD_POSIX, 0, &err), 0);
	const dfs_module *m = dfs_module_get(DFS_MOD_POSIX);
	struct rec r;
	unsigned char buf[DFS_RECORD_MAX];
	for (int64_t k = 0; k < nprocs; k++) {
		memset(&r, 0, sizeof(r));
		r.rank = k;
		r.id = file_id(0);
		set(&r, "POSIX_OPENS", 1);
		set(&r, "POSIX_F_OPEN_START_TIMESTAMP", 1 + (double)k / 1000);
		set(&r, "POSIX_F_CLOSE_END_TIMESTAMP", 11 + (double)k / 1000);
		fill(m, &r, buf);
		assert_int_equal(dfs_log_writer_record(w, buf, m->record_size, &err), 0);
	}
	assert_int_equal(dfs_log_writer_module_end(w, &err), 0);
	dfs_log *log = finish_job(w, &out, 0, "lanes");
	return log;
}

/* the open-to-close lanes of a timeline: x, y, width of each */
static size_t lanes_of(const char *svg, double lane[][3], size_t max)
{
	size_t n = 0;
	for (const char *p = svg; (p = strstr(p, "<rect x=\"")); p++) {
		double x, w;
		int y, h;
		char fillc[16];
		if (sscanf(p, "<rect x=\"%lf\" y=\"%d\" width=\"%lf\" height=\"%d\" fill=\"%15[^\"]",
		           &x, &y, &w, &h, fillc) == 5 && strcmp(fillc, "#bbbbbb") == 0 &&
		    y >= 30 && n < max) {   /* (the legend's box is above) */
			lane[n][0] = x;
			lane[n][1] = y;
			lane[n][2] = w;
			n++;
		}
	}
	return n;
}

/* Up to 128 ranks a lane per rank, beyond a lane per bin of ranks, each
 * from the first open of its ranks to their last close; a selection of
 * rank 0 leaves its lane alone. */
static void check_timeline(int64_t nprocs)
{
	dfs_log *log = timeline_log(nprocs);
	dfs_summary_input in;
	every_record(log, &in);
	dfs_buf b = DFS_BUF_INIT;
	dfs_error err = {0};
	assert_int_equal(dfs_summary_svg(&in, DFS_PLOT_TIMELINE, &b, &err), 0);
	dfs_buf_addc(&b, '\0');
	check_svg(b.data, b.len - 1);
	assert_true(b.len < 64 * 1024);
	static double lane[256][3];
	size_t bins = nprocs < 128 ? (size_t)nprocs : 128;
	assert_int_equal(lanes_of(b.data, lane, 256), bins);
	double step = (double)nprocs / (double)bins;
	double span = 11 + (double)(nprocs - 1) / 1000;   /* the last close */
	int height = bins + 1 > 64 ? 2 : bins + 1 > 16 ? 6 : 12;
	for (size_t k = 0; k < bins; k++) {
		int64_t first = (int64_t)ceil((double)k * step);
		int64_t last = (int64_t)ceil((double)(k + 1) * step) - 1;
		double a = 1 + (double)first / 1000, e = 11 + (double)last / 1000;
		assert_true(fabs(lane[k][0] - (80 + a / span * 620)) < 0.006);
		assert_true(fabs(lane[k][2] - (e - a) / span * 620) < 0.006);
		assert_int_equal((int)lane[k][1], 30 + (int)k * height);
	}
	if (nprocs > 128) {
		char title[128];
		snprintf(title, sizeof(title), "Timeline: %lld ranks, %.4g a lane",
		         (long long)nprocs, step);
		assert_non_null(strstr(b.data, title));
		/* the first rank of lane 64 is told */
		snprintf(title, sizeof(title), ">%lld</text>", (long long)ceil(64 * step));
		assert_non_null(strstr(b.data, title));
	} else {
		assert_non_null(strstr(b.data, "first open to last close per rank"));
	}
	/* rank 0 only */
	size_t zero = 0;
	in.mod[DFS_MOD_POSIX].index = &zero;
	in.mod[DFS_MOD_POSIX].count = 1;
	dfs_buf_reset(&b);
	assert_int_equal(dfs_summary_svg(&in, DFS_PLOT_TIMELINE, &b, &err), 0);
	dfs_buf_addc(&b, '\0');
	assert_int_equal(lanes_of(b.data, lane, 256), 1);
	assert_true(fabs(lane[0][0] - (80 + 1 / 11.0 * 620)) < 0.006);
	assert_true(fabs(lane[0][2] - 10 / 11.0 * 620) < 0.006);
	dfs_buf_free(&b);
	dfs_log_free(log);
}

static void test_timeline(void **state)
{
	(void)state;
	check_timeline(4);
	check_timeline(128);
	check_timeline(100000);
}

/* ---- HDF5, PnetCDF and DFS --------------------------------------------------- */

/* Four ranks share one HDF5 file (opened with the MPI-IO driver unless
 * `posix_driver`), one dataset, one PnetCDF variable and one DFS file;
 * 2000 reads and 2000 writes of each, of 4-10 MB (healthy) or below
 * 100 bytes, independent, without collective HDF5 transfers (`bad`). */
static dfs_log *layers_log(bool bad, bool posix_driver)
{
	dfs_error err = {0};
	dfs_buf out = DFS_BUF_INIT;
	dfs_write_options opt = {DFS_COMP_ZLIB, 1, 1};
	dfs_log_writer *w = dfs_log_writer_buf(&out, &opt, &err);
	dfs_job job;
	memset(&job, 0, sizeof(job));
	job.nprocs = NPROCS;
	job.start_sec = 1;
	job.end_sec = 100;
	job.exe = "/bin/ior";
	job.metadata = (char *)"";
	dfs_mount mounts[] = {{"/lus/grand", "lustre", 10}};
	assert_int_equal(dfs_log_writer_job(w, &job, mounts, 1, &err), 0);
	for (int k = 0; k < 3; k++)
		assert_int_equal(dfs_log_writer_name(w, file_id(k), file_names[k],
		                                     strlen(file_names[k]), &err), 0);
	const char *size_r = bad ? "SIZE_READ_AGG_0_100" : "SIZE_READ_AGG_4M_10M";
	const char *size_w = bad ? "SIZE_WRITE_AGG_0_100" : "SIZE_WRITE_AGG_4M_10M";
	char name_r[64], name_w[64];   /* (set() keeps the names' pointers) */
	struct rec r[1];
	memset(r, 0, sizeof(r));
	r->rank = -1;
	r->id = file_id(0);
	set(r, "H5F_OPENS", 4);
	set(r, "H5F_USE_MPIIO", posix_driver ? 0 : 1);
	write_module(w, DFS_MOD_H5F, r, 1);
	memset(r, 0, sizeof(r));
	r->rank = -1;
	r->id = file_id(1);
	set(r, "H5D_OPENS", 4);
	set(r, "H5D_READS", 2000);
	set(r, "H5D_WRITES", 2000);
	snprintf(name_r, sizeof(name_r), "H5D_%s", size_r);
	set(r, name_r, 2000);
	snprintf(name_w, sizeof(name_w), "H5D_%s", size_w);
	set(r, name_w, 2000);
	set(r, "H5D_USE_MPIIO_COLLECTIVE", bad ? 0 : 1);
	write_module(w, DFS_MOD_H5D, r, 1);
	memset(r, 0, sizeof(r));
	r->rank = -1;
	r->id = file_id(2);
	set(r, bad ? "PNETCDF_VAR_INDEP_READS" : "PNETCDF_VAR_COLL_READS", 2000);
	set(r, bad ? "PNETCDF_VAR_INDEP_WRITES" : "PNETCDF_VAR_COLL_WRITES", 2000);
	snprintf(name_r, sizeof(name_r), "PNETCDF_VAR_%s", size_r);
	set(r, name_r, 2000);
	snprintf(name_w, sizeof(name_w), "PNETCDF_VAR_%s", size_w);
	set(r, name_w, 2000);
	write_module(w, DFS_MOD_PNETCDF_VAR, r, 1);
	memset(r, 0, sizeof(r));
	r->rank = -1;
	r->id = file_id(0);
	set(r, "DFS_READS", 2000);
	set(r, "DFS_WRITES", 2000);
	set(r, bad ? "DFS_SIZE_READ_0_100" : "DFS_SIZE_READ_4M_10M", 2000);
	set(r, bad ? "DFS_SIZE_WRITE_0_100" : "DFS_SIZE_WRITE_4M_10M", 2000);
	write_module(w, DFS_MOD_DFS, r, 1);
	assert_int_equal(dfs_log_writer_finish(w, 0, &err), 0);
	dfs_log_writer_free(w);
	dfs_log *log = dfs_log_open_mem(out.data, out.len, "layers", 0, &err);
	if (!log)
		fail_msg("%s", err.msg);
	dfs_buf_free(&out);
	return log;
}

static void test_hdf5_pnetcdf_dfs(void **state)
{
	(void)state;
	static const char *const codes[] = {
		"H5D_SMALL_READS", "H5D_SMALL_WRITES", "H5D_NO_COLLECTIVE",
		"PNETCDF_SMALL_READS", "PNETCDF_SMALL_WRITES", "PNETCDF_NO_COLLECTIVE_READS",
		"PNETCDF_NO_COLLECTIVE_WRITES", "DFS_SMALL_READS", "DFS_SMALL_WRITES",
	};
	dfs_log *log = layers_log(false, false);
	char *csv = insights(log, NULL, false);
	for (size_t k = 0; k < sizeof(codes) / sizeof(*codes); k++)
		if (fires(csv, codes[k]))
			fail_msg("the healthy log fires %s:\n%s", codes[k], csv);
	free(csv);
	dfs_log_free(log);
	log = layers_log(true, false);
	csv = insights(log, NULL, false);
	for (size_t k = 0; k < sizeof(codes) / sizeof(*codes); k++)
		if (!fires(csv, codes[k]))
			fail_msg("%s does not fire:\n%s", codes[k], csv);
	assert_non_null(strstr(csv, "H5D_NO_COLLECTIVE,HIGH,H5D,4000 of 4000 HDF5 dataset "
	                            "accesses (1 of 1 dataset) are independent"));
	free(csv);
	dfs_log_free(log);
	/* without the MPI-IO driver there is no collective I/O to ask for */
	log = layers_log(true, true);
	csv = insights(log, NULL, false);
	assert_false(fires(csv, "H5D_NO_COLLECTIVE"));
	assert_true(fires(csv, "H5D_SMALL_READS"));
	free(csv);
	dfs_log_free(log);
}

/* ---- findings that say no false thing ------------------------------------------ */

/* the insights of a log as text */
static char *insights_txt(const dfs_log *log, const dfs_insight_thresholds *t)
{
	dfs_summary_input in;
	memset(&in, 0, sizeof(in));
	in.log = log;
	in.title = "generated.darshan";
	in.thresholds = t;
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		const dfs_log_module *lm = dfs_log_get_module(log, id);
		if (!lm->present)
			continue;
		in.mod[id].records = &lm->records;
		in.mod[id].count = in.mod[id].total = lm->records.count;
	}
	dfs_buf out = DFS_BUF_INIT;
	dfs_error err = {0};
	assert_int_equal(dfs_insights_text(&in, &out, &err), 0);
	dfs_buf_addc(&out, '\0');
	return out.data;
}

/* Field `col` (0: log) of the first row of `code`, unquoted (malloc'd);
 * NULL when no row has that code. */
static char *field_of(const char *csv, const char *code, int col)
{
	char key[64];
	snprintf(key, sizeof(key), "\nx/generated.darshan,%s,", code);
	const char *p = strstr(csv, key);
	if (!p)
		return NULL;
	p++;
	dfs_buf f = DFS_BUF_INIT;
	for (int c = 0; c <= col; c++) {
		dfs_buf_reset(&f);
		if (*p == '"') {
			for (p++; *p && !(*p == '"' && p[1] != '"'); p++) {
				if (*p == '"')
					p++;
				dfs_buf_addc(&f, *p);
			}
			p++;
		} else {
			while (*p && *p != ',' && *p != '\n')
				dfs_buf_addc(&f, *p++);
		}
		if (*p == ',')
			p++;
	}
	dfs_buf_addc(&f, '\0');
	return f.data;
}

enum { COL_MESSAGE = 4, COL_VALUE = 5, COL_FILES = 9, COL_RANKS = 10, COL_ADVICE = 11 };

/* the JSON array of a finding's files or ranks */
static json_value *about_of(const char *csv, const char *code, int col)
{
	char *text = field_of(csv, code, col);
	assert_non_null(text);
	char why[128];
	json_value *v = json_parse(text, strlen(text), why, sizeof(why));
	if (!v || v->type != JSON_ARRAY)
		fail_msg("%s's column %d is not a JSON array (%s): %s", code, col, why, text);
	free(text);
	return v;
}

/* counts agree with their nouns: never "1 ranks" */
static void check_grammar(const char *text)
{
	static const char *const nouns[] = {
		"ranks", "files", "records", "processes", "aggregators", "datasets",
		"findings", "requests", "reads", "writes", "nodes",
	};
	for (const char *p = text; (p = strstr(p, "1 ")) != NULL; p++) {
		if (p > text && (p[-1] >= '0' && p[-1] <= '9'))
			continue;
		if (p > text && (p[-1] == '.' || p[-1] == '-'))
			continue;
		for (size_t k = 0; k < sizeof(nouns) / sizeof(*nouns); k++) {
			size_t n = strlen(nouns[k]);
			if (strncmp(p + 2, nouns[k], n) == 0 &&
			    !(p[2 + n] >= 'a' && p[2 + n] <= 'z'))
				fail_msg("\"1 %s\" in:\n%s", nouns[k], text);
		}
	}
}

/* the insights of the spec, checked for grammar (txt and csv) */
static char *judged(const struct spec *s, const dfs_insight_thresholds *t)
{
	dfs_log *log = build(s);
	char *csv = insights(log, t, false);
	char *txt = insights_txt(log, t);
	check_grammar(csv);
	check_grammar(txt);
	free(txt);
	dfs_log_free(log);
	return csv;
}

/* Does `code` fire on s, with the default thresholds and one line of
 * thresholds over them (NULL: none)? */
static bool fires_with(const struct spec *s, const char *code, const char *line)
{
	dfs_insight_thresholds t;
	dfs_insight_thresholds_default(&t);
	dfs_error err = {0};
	if (line)
		assert_int_equal(dfs_insight_thresholds_parse(&t, line, &err), 0);
	char *csv = judged(s, &t);
	bool f = fires(csv, code);
	free(csv);
	return f;
}

/* All the I/O in a file every rank shares: rank 0 alone also wrote a few
 * bytes to <STDOUT> (15 us).  The worst rank is not rank 0 at 100%: each
 * rank takes an even part of the shared file's time. */
static void test_worst_rank_counts_shared_files(void **state)
{
	(void)state;
	struct spec s;
	healthy(&s);
	s.nposix = 0;
	struct rec *p = shared_file(&s);
	set(p, "POSIX_F_READ_TIME", 6);
	set(p, "POSIX_F_WRITE_TIME", 4);
	set(&s.stdio[0], "STDIO_F_WRITE_TIME", 15e-6);
	char *csv = judged(&s, NULL);
	if (fires(csv, "R_WORST_RANK_SHARE"))
		fail_msg("rank 0's 15 us of STDOUT makes it the worst rank:\n%s", csv);
	free(csv);
	/* a rank that does most of the I/O on its own files still fires, and
	 * is named with its share; another rank of a little less comes next */
	healthy(&s);
	set(&s.posix[1], "POSIX_F_WRITE_TIME", 200);
	set(&s.posix[2], "POSIX_F_WRITE_TIME", 50);
	csv = judged(&s, NULL);
	assert_true(fires(csv, "R_WORST_RANK_SHARE"));
	json_value *r = about_of(csv, "R_WORST_RANK_SHARE", COL_RANKS);
	assert_true(r->count >= 2);
	assert_string_equal(json_get(json_at(r, 0), "rank")->text, "1");
	assert_string_equal(json_get(json_at(r, 1), "rank")->text, "2");
	double share = strtod(json_get(json_at(r, 0), "share")->text, NULL);
	/* rank 1: 2 + 200 + 0.5 s of 4 x 4.5 + 198 + 48 s */
	assert_true(fabs(share - 202.5 / 264.0) < 1e-9);
	json_free(r);
	free(csv);
	/* under the absolute floor (1 s): a rank of 0.9 s among idle ones */
	healthy(&s);
	for (size_t i = 0; i < s.nposix; i++) {
		set(&s.posix[i], "POSIX_F_READ_TIME", 0);
		set(&s.posix[i], "POSIX_F_WRITE_TIME", i == 1 ? 0.9 : 0);
		set(&s.posix[i], "POSIX_F_META_TIME", 0);
	}
	assert_false(fires_with(&s, "R_WORST_RANK_SHARE", NULL));
	assert_true(fires_with(&s, "R_WORST_RANK_SHARE", "worst_rank_time = 0.5\n"));
}

/* Writes of exactly 1 MiB fall in Darshan's 100K_1M bin: with the access
 * sizes, they are not small; the small ones are counted as what is left. */
static void test_small_requests_exact_sizes(void **state)
{
	(void)state;
	struct spec s;
	healthy(&s);
	for (size_t i = 0; i < s.nposix; i++) {
		set(&s.posix[i], "POSIX_WRITES", 2000);
		set(&s.posix[i], "POSIX_SEQ_WRITES", 2000);
		set(&s.posix[i], "POSIX_SIZE_WRITE_4M_10M", 0);
		set(&s.posix[i], "POSIX_SIZE_WRITE_100K_1M", 2000);
		set(&s.posix[i], "POSIX_ACCESS1_ACCESS", 1048576);
		set(&s.posix[i], "POSIX_ACCESS1_COUNT", 2000);
		set(&s.posix[i], "POSIX_ACCESS2_ACCESS", 4194304);
		set(&s.posix[i], "POSIX_ACCESS2_COUNT", 100);
	}
	char *csv = judged(&s, NULL);
	if (fires(csv, "P_SMALL_WRITES"))
		fail_msg("writes of exactly 1 MiB are called small:\n%s", csv);
	free(csv);
	/* of 512 KiB: small, every one of them, and said so exactly */
	for (size_t i = 0; i < s.nposix; i++)
		set(&s.posix[i], "POSIX_ACCESS1_ACCESS", 524288);
	csv = judged(&s, NULL);
	char *msg = field_of(csv, "P_SMALL_WRITES", COL_MESSAGE);
	assert_non_null(msg);
	assert_string_equal(msg, "8000 of 8000 writes (100.0%) are smaller than 1 MiB "
	                         "(< 1048576 bytes)");
	free(msg);
	free(csv);
	/* 1500 of each record's 2000 are 1 MiB, 300 are 512 KiB, 200 of no
	 * known size: between 1200 and 2000 of the 8000 are small */
	for (size_t i = 0; i < s.nposix; i++) {
		set(&s.posix[i], "POSIX_ACCESS1_ACCESS", 1048576);
		set(&s.posix[i], "POSIX_ACCESS1_COUNT", 1500);
		set(&s.posix[i], "POSIX_ACCESS2_ACCESS", 524288);
		set(&s.posix[i], "POSIX_ACCESS2_COUNT", 300);
	}
	csv = judged(&s, NULL);
	msg = field_of(csv, "P_SMALL_WRITES", COL_MESSAGE);
	assert_non_null(msg);
	assert_string_equal(msg, "up to 2000 of 8000 writes (25.0%) are smaller than 1 MiB "
	                         "(< 1048576 bytes), at least 1200 (15.0%); the other 6000 "
	                         "are known to be 1 MiB or larger");
	free(msg);
	free(csv);
	/* reads and writes of the same bin share the access counts: 1500
	 * known 1 MiB requests among 1000 reads and 1000 writes leave up to
	 * 500 of each small (the known ones may be on either side) */
	for (size_t i = 0; i < s.nposix; i++) {
		set(&s.posix[i], "POSIX_WRITES", 1000);
		set(&s.posix[i], "POSIX_SEQ_WRITES", 1000);
		set(&s.posix[i], "POSIX_SIZE_WRITE_100K_1M", 1000);
		set(&s.posix[i], "POSIX_READS", 1000);
		set(&s.posix[i], "POSIX_SEQ_READS", 1000);
		set(&s.posix[i], "POSIX_SIZE_READ_4M_10M", 0);
		set(&s.posix[i], "POSIX_SIZE_READ_100K_1M", 1000);
		set(&s.posix[i], "POSIX_ACCESS2_COUNT", 0);
	}
	csv = judged(&s, NULL);
	msg = field_of(csv, "P_SMALL_READS", COL_MESSAGE);
	assert_non_null(msg);
	assert_string_equal(msg, "up to 2000 of 4000 reads (50.0%) are smaller than 1 MiB "
	                         "(< 1048576 bytes), at least 0 (0.0%); the other 2000 are "
	                         "known to be 1 MiB or larger");
	free(msg);
	free(csv);
}

/* STDIO's share counts the bytes of DFS/DAOS, and a few bytes are no alarm */
static void test_stdio_share(void **state)
{
	(void)state;
	struct spec s;
	healthy(&s);
	s.nposix = 0;
	set(&s.stdio[0], "STDIO_BYTES_WRITTEN", 2224);
	struct rec *d = &s.dfs[s.ndfs++];
	d->rank = -1;
	d->id = file_id(0);
	set(d, "DFS_WRITES", 32);
	set(d, "DFS_READS", 32);
	set(d, "DFS_BYTES_WRITTEN", 16777216);
	set(d, "DFS_BYTES_READ", 16777216);
	set(d, "DFS_SIZE_WRITE_100K_1M", 32);
	set(d, "DFS_SIZE_READ_100K_1M", 32);
	char *csv = judged(&s, NULL);
	if (fires(csv, "S_STDIO_HIGH_USAGE"))
		fail_msg("2 KiB of STDIO against 32 MiB of DFS:\n%s", csv);
	free(csv);
	/* STDIO alone, 151 bytes: below the floor */
	s.ndfs = 0;
	set(&s.stdio[0], "STDIO_BYTES_WRITTEN", 151);
	csv = judged(&s, NULL);
	assert_false(fires(csv, "S_STDIO_HIGH_USAGE"));
	free(csv);
	/* 10 GB of STDIO beside the DFS file: fires, naming the file */
	s.ndfs = 1;
	set(&s.stdio[0], "STDIO_BYTES_WRITTEN", 1e10);
	csv = judged(&s, NULL);
	assert_true(fires(csv, "S_STDIO_HIGH_USAGE"));
	json_value *f = about_of(csv, "S_STDIO_HIGH_USAGE", COL_FILES);
	assert_int_equal(f->count, 1);
	assert_string_equal(json_get(json_at(f, 0), "file")->text, "/home/u/log.txt");
	json_free(f);
	free(csv);
}

/* A shared record whose metadata time is -221.5 s: the data problem is
 * told, the imbalance it would make is not */
static void test_implausible_inputs(void **state)
{
	(void)state;
	struct spec s;
	healthy(&s);
	struct rec *p = shared_file(&s);
	set(p, "POSIX_F_SLOWEST_RANK_TIME", 300);
	set(p, "POSIX_F_FASTEST_RANK_TIME", 1);
	set(p, "POSIX_F_META_TIME", -221.5);
	char *csv = judged(&s, NULL);
	if (fires(csv, "P_SHARED_IMBALANCE"))
		fail_msg("a straggler judged on a time of -221.5 s:\n%s", csv);
	assert_true(fires(csv, "Q_TIME_INVALID"));
	json_value *f = about_of(csv, "Q_TIME_INVALID", COL_FILES);
	assert_int_equal(f->count, 1);
	const json_value *r = json_at(f, 0);
	assert_string_equal(json_get(r, "file")->text, "/lus/grand/run/in.dat");
	assert_string_equal(json_get(r, "counter")->text, "POSIX_F_META_TIME");
	assert_string_equal(json_get(r, "rank")->text, "-1");
	assert_true(strtod(json_get(r, "value")->text, NULL) == -221.5);
	char id[32];
	snprintf(id, sizeof(id), "%llu", (unsigned long long)file_id(2));
	assert_string_equal(json_get(r, "record_id")->text, id);
	json_free(f);
	/* the data problems come first */
	assert_non_null(strstr(csv, "advice\nx/generated.darshan,Q_TIME_INVALID,"));
	free(csv);
	/* with a plausible time the straggler is found */
	set(p, "POSIX_F_META_TIME", 0.5);
	csv = judged(&s, NULL);
	assert_true(fires(csv, "P_SHARED_IMBALANCE"));
	assert_false(fires(csv, "Q_TIME_INVALID"));
	f = about_of(csv, "P_SHARED_IMBALANCE", COL_FILES);
	assert_string_equal(json_get(json_at(f, 0), "file")->text, "/lus/grand/run/in.dat");
	json_free(f);
	free(csv);
}

/* Each data problem on a log built with it, the counter named */
static void test_quality_findings(void **state)
{
	(void)state;
	struct spec s;
	/* a byte count below -nprocs */
	healthy(&s);
	set(&s.posix[1], "POSIX_BYTES_READ", -1000);
	char *csv = judged(&s, NULL);
	assert_true(fires(csv, "Q_SIZE_INVALID"));
	char *msg = field_of(csv, "Q_SIZE_INVALID", COL_MESSAGE);
	assert_non_null(strstr(msg, "POSIX_BYTES_READ = -1000 in /lus/grand/run/out.1 (rank 1)"));
	free(msg);
	free(csv);
	/* -1 (not kept) and -nprocs (the -1 of every rank, summed) are not */
	set(&s.posix[1], "POSIX_BYTES_READ", -NPROCS);
	set(&s.posix[2], "POSIX_F_META_TIME", -1);
	csv = judged(&s, NULL);
	assert_false(fires(csv, "Q_SIZE_INVALID"));
	assert_false(fires(csv, "Q_TIME_INVALID"));
	free(csv);
	/* a rank the job did not have */
	healthy(&s);
	s.posix[3].rank = NPROCS + 3;
	csv = judged(&s, NULL);
	assert_true(fires(csv, "Q_RANK_INVALID"));
	json_value *f = about_of(csv, "Q_RANK_INVALID", COL_FILES);
	assert_string_equal(json_get(json_at(f, 0), "rank")->text, "7");
	json_free(f);
	free(csv);
	/* more bytes than the histogram's requests can carry: 10 writes of
	 * at most 100 bytes moved 1 GB */
	healthy(&s);
	set(&s.posix[0], "POSIX_WRITES", 10);
	set(&s.posix[0], "POSIX_SIZE_WRITE_4M_10M", 0);
	set(&s.posix[0], "POSIX_SIZE_WRITE_0_100", 10);
	set(&s.posix[0], "POSIX_BYTES_WRITTEN", 1e9);
	csv = judged(&s, NULL);
	if (!fires(csv, "Q_BYTES_EXCEED_REQUESTS"))
		fail_msg("1 GB in 10 writes of at most 100 bytes:\n%s", csv);
	msg = field_of(csv, "Q_BYTES_EXCEED_REQUESTS", COL_MESSAGE);
	assert_non_null(strstr(msg, "POSIX_BYTES_WRITTEN = 1e+09 in /lus/grand/run/out.0 "
	                            "(rank 0) while its size histogram allows at most 1000"));
	free(msg);
	free(csv);
	/* with one request in the open 1G_PLUS bin nothing is provable */
	set(&s.posix[0], "POSIX_SIZE_WRITE_1G_PLUS", 1);
	csv = judged(&s, NULL);
	assert_false(fires(csv, "Q_BYTES_EXCEED_REQUESTS"));
	free(csv);
	/* 4 ranks x 150 s of metadata in a 100 s run: more than the 4
	 * processes had; P_METADATA_TIME is then not judged */
	healthy(&s);
	for (size_t i = 0; i < s.nposix; i++)
		set(&s.posix[i], "POSIX_F_META_TIME", 150);
	csv = judged(&s, NULL);
	assert_true(fires(csv, "Q_TIME_EXCEEDS_RUN"));
	assert_false(fires(csv, "P_METADATA_TIME"));
	free(csv);
	/* 4 x 90 s is possible: a metadata finding, naming the ranks */
	for (size_t i = 0; i < s.nposix; i++)
		set(&s.posix[i], "POSIX_F_META_TIME", i == 2 ? 95 : 40);
	csv = judged(&s, NULL);
	assert_false(fires(csv, "Q_TIME_EXCEEDS_RUN"));
	assert_true(fires(csv, "P_METADATA_TIME"));
	f = about_of(csv, "P_METADATA_TIME", COL_RANKS);
	assert_int_equal(f->count, 4);
	assert_string_equal(json_get(json_at(f, 0), "rank")->text, "2");
	assert_true(strtod(json_get(json_at(f, 0), "value")->text, NULL) == 95);
	json_free(f);
	free(csv);
}

/* The files behind a finding, the largest first with their shares, in
 * the three outputs; and advice that fits the job's modules */
static void test_files_and_advice(void **state)
{
	(void)state;
	struct spec s;
	healthy(&s);
	small_reads(&s);
	/* rank 3's file gets most of the small reads */
	set(&s.posix[3], "POSIX_READS", 4000);
	set(&s.posix[3], "POSIX_SEQ_READS", 4000);
	set(&s.posix[3], "POSIX_SIZE_READ_1K_10K", 4000);
	s.posix[3].id = file_id(2);
	s.lustre = true;
	s.stripes = 8;
	char *csv = judged(&s, NULL);
	json_value *f = about_of(csv, "P_SMALL_READS", COL_FILES);
	/* in.dat 4000, out.0 800 (ranks 0 and 2), out.1 400 */
	assert_int_equal(f->count, 3);
	assert_string_equal(json_get(json_at(f, 0), "file")->text, "/lus/grand/run/in.dat");
	assert_string_equal(json_get(json_at(f, 0), "value")->text, "4000");
	assert_true(fabs(strtod(json_get(json_at(f, 0), "share")->text, NULL) - 4000.0 / 5200) < 1e-12);
	assert_string_equal(json_get(json_at(f, 1), "file")->text, "/lus/grand/run/out.0");
	assert_string_equal(json_get(json_at(f, 1), "value")->text, "800");
	assert_string_equal(json_get(json_at(f, 2), "file")->text, "/lus/grand/run/out.1");
	json_free(f);
	char *adv = field_of(csv, "P_SMALL_READS", COL_ADVICE);
	assert_string_equal(adv, "read in larger requests (collective MPI-IO reads)");
	free(adv);
	free(csv);
	dfs_log *log = build(&s);
	char *txt = insights_txt(log, NULL);
	assert_non_null(strstr(txt, "  files:\n    /lus/grand/run/in.dat: 4000 reads, 76.9%\n"
	                            "    /lus/grand/run/out.0: 800 reads, 15.4%\n"));
	/* the job uses MPI-IO: collective reads, with the call */
	assert_non_null(strstr(txt, "`MPI_File_read_at_all()`"));
	dfs_log_free(log);
	free(txt);
	/* misaligned requests: HDF5's alignment call only for an HDF5 job,
	 * lfs setstripe with the directory of the file on Lustre */
	healthy(&s);
	misaligned_file(&s);
	s.lustre = true;
	s.stripes = 8;
	log = build(&s);
	txt = insights_txt(log, NULL);
	assert_non_null(strstr(txt, "`lfs setstripe -S 4M /lus/grand/run/`"));
	assert_null(strstr(txt, "H5Pset_alignment"));
	dfs_log_free(log);
	free(txt);
	struct rec *h = &s.h5f[s.nh5f++];
	h->rank = -1;
	h->id = file_id(0);
	set(h, "H5F_OPENS", 4);
	log = build(&s);
	txt = insights_txt(log, NULL);
	assert_non_null(strstr(txt, "`H5Pset_alignment(fapl, 1048576, 4194304)`"));
	dfs_log_free(log);
	free(txt);
	/* an imbalance rule names every file it judged (no share cuts them) */
	healthy(&s);
	for (int k = 0; k < 4; k++) {
		struct rec *p = shared_file(&s);
		p->id = file_id(k);
		set(p, "POSIX_SLOWEST_RANK_BYTES", 100.0 * 4194304 / 2);
		set(p, "POSIX_FASTEST_RANK_BYTES", 0);
	}
	char *csv4 = judged(&s, NULL);
	f = about_of(csv4, "P_SHARED_IMBALANCE", COL_FILES);
	assert_int_equal(f->count, 4);
	json_free(f);
	free(csv4);
	/* no MPI-IO: no MPI-IO call is advised for small reads */
	healthy(&s);
	small_reads(&s);
	s.nmpiio = 0;
	log = build(&s);
	txt = insights_txt(log, NULL);
	assert_null(strstr(txt, "MPI_File_read_at_all() (or"));
	assert_non_null(strstr(txt, "Consider MPI-IO"));
	dfs_log_free(log);
	free(txt);
}

/* The imbalance and alignment rules judge files and requests enough to
 * matter: a 40-byte file 100% apart, half a second of a shared file's
 * time, 200 misaligned requests are below the floors (which thresholds
 * can lower) */
static void test_floors(void **state)
{
	(void)state;
	struct spec s;
	/* a shared file of 40 bytes, one rank all of them */
	healthy(&s);
	struct rec *p = shared_file(&s);
	set(p, "POSIX_BYTES_READ", 20);
	set(p, "POSIX_BYTES_WRITTEN", 20);
	set(p, "POSIX_FASTEST_RANK_BYTES", 0);
	set(p, "POSIX_SLOWEST_RANK_BYTES", 40);
	assert_false(fires_with(&s, "P_SHARED_IMBALANCE", NULL));
	assert_true(fires_with(&s, "P_SHARED_IMBALANCE", "imbalance_bytes_absolute = 0"));
	/* a shared file of 0.5 s, its slowest rank 0.4 s and fastest 0.01 */
	healthy(&s);
	p = shared_file(&s);
	set(p, "POSIX_F_READ_TIME", 0.2);
	set(p, "POSIX_F_WRITE_TIME", 0.2);
	set(p, "POSIX_F_META_TIME", 0.1);
	set(p, "POSIX_F_FASTEST_RANK_TIME", 0.01);
	set(p, "POSIX_F_SLOWEST_RANK_TIME", 0.4);
	assert_false(fires_with(&s, "P_SHARED_IMBALANCE", NULL));
	assert_true(fires_with(&s, "P_SHARED_IMBALANCE", "imbalance_time_absolute = 0.25"));
	/* ranks 1 and 3 moved 1000 and 10 bytes of file 1 */
	healthy(&s);
	set(&s.posix[1], "POSIX_BYTES_READ", 1000);
	set(&s.posix[1], "POSIX_BYTES_WRITTEN", 0);
	set(&s.posix[3], "POSIX_BYTES_READ", 10);
	set(&s.posix[3], "POSIX_BYTES_WRITTEN", 0);
	assert_false(fires_with(&s, "P_SIZE_IMBALANCE", NULL));
	assert_true(fires_with(&s, "P_SIZE_IMBALANCE", "imbalance_bytes_absolute = 100"));
	/* 200 of the 800 requests misaligned (25%) */
	healthy(&s);
	for (size_t i = 0; i < s.nposix; i++)
		set(&s.posix[i], "POSIX_MEM_NOT_ALIGNED", 50);
	assert_false(fires_with(&s, "P_MISALIGNED_MEMORY", NULL));
	assert_true(fires_with(&s, "P_MISALIGNED_MEMORY", "misaligned_requests_absolute = 199"));
}

/* A file MPI-IO shares (its record of rank -1) whose POSIX records are
 * per rank (a partial module, or ranks that reached it otherwise) is
 * shared: the per-rank imbalance rule is not its, the rule of large
 * shared files on one stripe is */
static void test_shared_by_mpiio(void **state)
{
	(void)state;
	struct spec s;
	healthy(&s);
	s.mpiio[0].id = file_id(1);
	size_imbalance(&s);   /* ranks 1 and 3 of file 1: 800 MiB against 4 */
	set(&s.posix[1], "POSIX_MAX_BYTE_WRITTEN", 2147483647.0);
	s.lustre = true;
	s.stripes = 1;
	char *csv = judged(&s, NULL);
	assert_false(fires(csv, "P_SIZE_IMBALANCE"));
	assert_true(fires(csv, "L_SINGLE_STRIPE"));
	json_value *f = about_of(csv, "L_SINGLE_STRIPE", COL_FILES);
	assert_int_equal(f->count, 1);
	assert_string_equal(json_get(json_at(f, 0), "file")->text, file_names[1]);
	json_free(f);
	free(csv);
}

/* A partial module: the descriptions its missing records may turn (read
 * or write intensive) are not made, the other findings say the records
 * are incomplete */
static void test_partial_module(void **state)
{
	(void)state;
	struct spec s;
	healthy(&s);
	write_heavy(&s);
	s.partial = 1ULL << DFS_MOD_POSIX;
	char *csv = judged(&s, NULL);
	assert_true(fires(csv, "D_PARTIAL"));
	assert_false(fires(csv, "P_WRITE_INTENSIVE"));
	assert_false(fires(csv, "P_WRITE_SIZE_INTENSIVE"));
	free(csv);
	healthy(&s);
	small_reads(&s);
	s.partial = 1ULL << DFS_MOD_POSIX;
	csv = judged(&s, NULL);
	char *msg = field_of(csv, "P_SMALL_READS", COL_MESSAGE);
	assert_non_null(msg);
	assert_non_null(strstr(msg, " (from the records kept: the POSIX module is partial, "
	                            "its missing records are not counted)"));
	free(msg);
	/* (a module that is whole: no such words) */
	msg = field_of(csv, "M_NO_COLLECTIVE_READS", COL_MESSAGE);
	assert_null(msg);
	free(csv);
	healthy(&s);
	small_reads(&s);
	csv = judged(&s, NULL);
	msg = field_of(csv, "P_SMALL_READS", COL_MESSAGE);
	assert_non_null(msg);
	assert_null(strstr(msg, "partial"));
	free(msg);
	free(csv);
}

/* No POSIX module, while a LUSTRE record names a file no module records
 * (the runtime makes those at POSIX opens): POSIX's bytes are unknown and
 * STDIO's share of them is not told */
static void test_posix_not_recorded(void **state)
{
	(void)state;
	struct spec s;
	healthy(&s);
	stdio_heavy(&s);
	s.nposix = 0;
	s.nmpiio = 0;
	s.lustre = true;   /* file 1, which STDIO does not record */
	s.stripes = 8;
	char *csv = judged(&s, NULL);
	assert_false(fires(csv, "S_STDIO_HIGH_USAGE"));
	free(csv);
	/* the same file recorded by STDIO: every file opened is known */
	struct rec *o = &s.stdio[s.nstdio++];
	o->rank = 1;
	o->id = file_id(1);
	set(o, "STDIO_OPENS", 1);
	set(o, "STDIO_WRITES", 1);
	set(o, "STDIO_BYTES_WRITTEN", 100);
	csv = judged(&s, NULL);
	assert_true(fires(csv, "S_STDIO_HIGH_USAGE"));
	free(csv);
}

/* On the real logs where the findings said false things (each checked
 * when that log is in the shared set) */
static void test_real_logs(void **state)
{
	(void)state;
	static const struct {
		const char *log, *code;
		bool fires;
		const char *absent;   /* a claim no row may make */
	} cases[] = {
		{"mpi-io-test-x86_64-3.4.7.darshan", "R_WORST_RANK_SHARE", false, NULL},
		/* (format 3.20: runtime 3.2.0, counters known to be corrupted) */
		{"mpi-io-test-x86_64-3.2.0.darshan", "Q_RUNTIME_3_2_0", true, NULL},
		{"mpi-io-test-x86_64-3.2.1.darshan", "Q_RUNTIME_3_2_0", false, NULL},
		/* (its cb_nodes=4 of 8 nodes was Darshan's own log-writing hint) */
		{"e3sm_io_heatmap_only.darshan", "M_CB_NODES", false, NULL},
		/* (POSIX partial; its two large files shared by MPI-IO) */
		{"imbalanced-io.darshan", "P_SIZE_IMBALANCE", false, NULL},
		{"imbalanced-io.darshan", "P_READ_INTENSIVE", false, NULL},
		{"imbalanced-io.darshan", "L_SINGLE_STRIPE", true, "1 shared file larger"},
		/* (no POSIX module; 518 LUSTRE records of files STDIO does not have) */
		{"noposix.darshan", "S_STDIO_HIGH_USAGE", false, NULL},
		/* (a 40-byte file 100% apart; 36 of 41 requests misaligned) */
		{"pq_app_readAB_writeC_id71326_7-31-5658-2037904274838284930_55623.darshan",
		 "P_SHARED_IMBALANCE", false, NULL},
		{"pq_app_readAB_writeC_id71326_7-31-5658-2037904274838284930_55623.darshan",
		 "P_MISALIGNED_FILE", false, NULL},
		{"imbalanced-io.darshan", "P_SMALL_WRITES", false, "50832 of 50832 writes"},
		{"imbalanced-io.darshan", "P_SHARED_SMALL_WRITES", false, NULL},
		{"imbalanced-io.darshan", "P_SMALL_READS", true, NULL},
		{"skew-app.darshan", "P_SMALL_WRITES", false, NULL},
		{"snyder_ior-DFS_id1057716-201712_11-8-64400-1922568413188514066_1.darshan",
		 "S_STDIO_HIGH_USAGE", false, NULL},
		{"snyder_ior-DFS_id1057716-201712_11-8-64400-1922568413188514066_1.darshan",
		 "Q_TIME_INVALID", true, NULL},
		{"snyder_ior-DFS_id1057716-201712_11-8-64400-1922568413188514066_1.darshan",
		 "Q_RANK_INVALID", true, NULL},
		{"snyder_ior-DFS_id4681120-53379_5-8-15060-3270540599978592154_1.darshan",
		 "S_STDIO_HIGH_USAGE", false, NULL},
		{"laytonjb_test1_id28730_6-7-43012-2131301613401632697_1.darshan",
		 "S_STDIO_HIGH_USAGE", false, NULL},
		{"partial_data_stdio.darshan", "S_STDIO_HIGH_USAGE", true, NULL},
		{"dxt.darshan", "P_METADATA_TIME", false, NULL},
		{"dxt.darshan", "Q_TIME_EXCEEDS_RUN", true, NULL},
	};
	if (!shared_dir())
		skip();
	size_t checked = 0;
	for (size_t k = 0; k < sizeof(cases) / sizeof(*cases); k++) {
		char *path = shared_log_path(cases[k].log);
		dfs_error err = {0};
		dfs_log *log = dfs_log_open(path, 0, &err);
		free(path);
		if (!log)
			continue;   /* (not in this set of logs) */
		char *csv = insights(log, NULL, false);
		char *txt = insights_txt(log, NULL);
		check_grammar(csv);
		check_grammar(txt);
		if (fires(csv, cases[k].code) != cases[k].fires)
			fail_msg("%s: %s %s:\n%s", cases[k].log, cases[k].code,
			         cases[k].fires ? "does not fire" : "fires", txt);
		if (cases[k].absent && strstr(csv, cases[k].absent))
			fail_msg("%s still says \"%s\":\n%s", cases[k].log, cases[k].absent, txt);
		checked++;
		free(csv);
		free(txt);
		dfs_log_free(log);
	}
	if (!checked)
		skip();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_healthy_has_no_finding),
		cmocka_unit_test(test_floors),
		cmocka_unit_test(test_lustre_sizes),
		cmocka_unit_test(test_shared_by_mpiio),
		cmocka_unit_test(test_partial_module),
		cmocka_unit_test(test_posix_not_recorded),
		cmocka_unit_test(test_each_problem_fires),
		cmocka_unit_test(test_thresholds_file),
		cmocka_unit_test(test_page_of_generated_log),
		cmocka_unit_test(test_many_ranks),
		cmocka_unit_test(test_many_files),
		cmocka_unit_test(test_names_kept),
		cmocka_unit_test(test_dxt_file_plots),
		cmocka_unit_test(test_timeline),
		cmocka_unit_test(test_hdf5_pnetcdf_dfs),
		cmocka_unit_test(test_worst_rank_counts_shared_files),
		cmocka_unit_test(test_small_requests_exact_sizes),
		cmocka_unit_test(test_stdio_share),
		cmocka_unit_test(test_implausible_inputs),
		cmocka_unit_test(test_quality_findings),
		cmocka_unit_test(test_files_and_advice),
		cmocka_unit_test(test_real_logs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
