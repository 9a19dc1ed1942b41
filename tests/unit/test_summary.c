/* test_summary.c - the insights and the summary page of generated logs.
 *
 * Each case writes a log built to have one problem (small reads, random
 * writes, a straggler on a shared file, a big shared file on one Lustre
 * stripe, ...) with the log writer, reads it back, and checks that
 * insights.csv has that finding, while the same log without the problem
 * has none; thresholds from a file move the triggers; every plot of a
 * log is well-formed enough to be one XML document of bounded size, and
 * a log of 200,000 ranks and records still gives small plots. */
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
	struct rec posix[MAXREC], mpiio[MAXREC], stdio[MAXREC];
	size_t nposix, nmpiio, nstdio;
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
	unsigned char buf[DFS_RECORD_MAX];
	assert_int_equal(dfs_log_writer_module_begin(w, id, 0, &err), 0);
	for (size_t i = 0; i < n; i++) {
		fill(m, &recs[i], buf);
		assert_int_equal(dfs_log_writer_record(w, buf, m->record_size, &err), 0);
	}
	assert_int_equal(dfs_log_writer_module_end(w, &err), 0);
}

static const char *const file_names[] = {
	"/lus/grand/run/out.0", "/lus/grand/run/out.1", "/lus/grand/run/in.dat",
	"/home/u/log.txt",
};

static uint64_t file_id(int k)
{
	return dfs_hash_name(file_names[k], strlen(file_names[k]));
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
	assert_int_equal(dfs_log_writer_finish(w, s->partial, &err), 0);
	dfs_log_writer_free(w);
	dfs_log *log = dfs_log_open_mem(out.data, out.len, "generated", 0, &err);
	if (!log)
		fail_msg("%s", err.msg);
	dfs_buf_free(&out);
	return log;
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

static char *insights(const dfs_log *log, const dfs_insight_thresholds *t, bool partial)
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
		in.mod[id].partial = partial && id == DFS_MOD_POSIX;
	}
	dfs_buf out = DFS_BUF_INIT;
	dfs_error err = {0};
	assert_int_equal(dfs_insights_csv(&in, "x/generated.darshan", true, &out, &err), 0);
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
	"M_NO_NONBLOCKING", "M_CB_NODES", "D_PARTIAL", "L_SINGLE_STRIPE",
	"R_WORST_RANK_SHARE",
};

static void test_healthy_has_no_finding(void **state)
{
	(void)state;
	struct spec s;
	healthy(&s);
	s.metadata = "h=romio_cb_write=enable;cb_nodes=2\n";
	s.hosts[0] = "nid001";
	s.hosts[1] = "nid002";
	s.lustre = true;
	s.stripes = 8;
	dfs_log *log = build(&s);
	char *csv = insights(log, NULL, false);
	for (size_t k = 0; k < sizeof(all_codes) / sizeof(*all_codes); k++)
		if (fires(csv, all_codes[k]))
			fail_msg("%s fires on a healthy log:\n%s", all_codes[k], csv);
	assert_string_equal(csv, "log,code,level,module,message,value,threshold,count,total\n");
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

static void misaligned_memory(struct spec *s)
{
	for (size_t i = 0; i < s->nposix; i++)
		set(&s->posix[i], "POSIX_MEM_NOT_ALIGNED", 50);
}

static void misaligned_file(struct spec *s)
{
	for (size_t i = 0; i < s->nposix; i++)
		set(&s->posix[i], "POSIX_FILE_NOT_ALIGNED", 50);
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
	/* ranks 0 and 2 share file 0 without a reduction: 400 MiB against 4 */
	set(&s->posix[2], "POSIX_BYTES_READ", 4194304);
	set(&s->posix[2], "POSIX_BYTES_WRITTEN", 0);
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

static void too_many_aggregators(struct spec *s)
{
	s->metadata = "h=romio_cb_write=enable;cb_nodes=8\n";
	s->hosts[0] = "nid001";
	s->hosts[1] = "nid002";
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
	{"M_CB_NODES", too_many_aggregators},
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
	/* a document of its own, balanced at the top level, bounded */
	assert_true(len < (4u << 20));
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

/* 200,000 ranks and records: the plots stay small */
static void test_many_ranks(void **state)
{
	(void)state;
	dfs_error err = {0};
	dfs_buf out = DFS_BUF_INIT;
	dfs_write_options opt = {DFS_COMP_ZLIB, 1, 1};
	dfs_log_writer *w = dfs_log_writer_buf(&out, &opt, &err);
	dfs_job job;
	memset(&job, 0, sizeof(job));
	job.nprocs = 200000;
	job.start_sec = 1;
	job.end_sec = 1000;
	job.exe = "/bin/big";
	job.metadata = (char *)"";
	dfs_mount mounts[] = {{"/lus", "lustre", 4}};
	assert_int_equal(dfs_log_writer_job(w, &job, mounts, 1, &err), 0);
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
	for (int64_t k = 0; k < 200000; k++) {
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
	assert_int_equal(dfs_log_writer_finish(w, 0, &err), 0);
	dfs_log_writer_free(w);
	dfs_log *log = dfs_log_open_mem(out.data, out.len, "big", 0, &err);
	assert_non_null(log);
	dfs_buf_free(&out);
	size_t len;
	render_all(log, NULL, 0, &len);
	assert_true(len < (2u << 20));
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
	dfs_write_options opt = {DFS_COMP_ZLIB, 1, 1};
	dfs_log_writer *w = dfs_log_writer_buf(&out, &opt, &err);
	dfs_job job;
	memset(&job, 0, sizeof(job));
	job.nprocs = 2;
	job.start_sec = 1;
	job.end_sec = 100;
	job.exe = "/bin/many";
	job.metadata = (char *)"";
	dfs_mount mounts[] = {{"/t0", "lustre", 4}};
	assert_int_equal(dfs_log_writer_job(w, &job, mounts, 1, &err), 0);
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
			/* even files: 1000 and 3000 bytes (67% apart), odd: 2000 */
			set(&r, "POSIX_WRITES", 1);
			set(&r, "POSIX_BYTES_WRITTEN", k % 2 ? 2000 : rank ? 3000 : 1000);
			set(&r, "POSIX_F_WRITE_TIME", 0.5);
			fill(m, &r, buf);
			assert_int_equal(dfs_log_writer_record(w, buf, m->record_size, &err), 0);
		}
	}
	assert_int_equal(dfs_log_writer_module_end(w, &err), 0);
	assert_int_equal(dfs_log_writer_finish(w, 0, &err), 0);
	dfs_log_writer_free(w);
	dfs_log *log = dfs_log_open_mem(out.data, out.len, "many", 0, &err);
	assert_non_null(log);
	dfs_buf_free(&out);

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_healthy_has_no_finding),
		cmocka_unit_test(test_each_problem_fires),
		cmocka_unit_test(test_thresholds_file),
		cmocka_unit_test(test_page_of_generated_log),
		cmocka_unit_test(test_many_ranks),
		cmocka_unit_test(test_many_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
