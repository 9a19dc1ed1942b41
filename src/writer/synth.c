/* synth.c - synthetic Darshan logs for tests, benchmarks and the demo
 * (darshanfs-gen is a thin command line over dfs_synth_write).
 *
 * The generated job looks like an MPI application on a machine with two
 * Lustre file systems, NFS home directories and local disks.  Files are
 * read-only, write-only, read-write, metadata-only (opened, no data) or
 * stat-only; a record is either per rank, shared by all ranks (rank -1,
 * with fastest/slowest rank fields and variances), or one of a group of
 * ranks sharing a file.  Counters are consistent with one another:
 * BYTES_* equal the sum of the accesses counted in SIZE_* and READS/WRITES,
 * MAX_BYTE_* follow from the bytes and the rank's part of the file, the
 * ACCESS and STRIDE top-4 lists count the same accesses, and timestamps lie
 * in the job's run time in open / write / read / close order.  MPI-IO
 * records mirror the POSIX records of the files opened through MPI-IO,
 * DXT_POSIX traces (at most 32 writes and 32 reads per record; the module
 * is flagged partial when a trace was cut) follow the same accesses.
 *
 * Every value is a pure function of (seed, record index), so records can be
 * produced in any order and the log is the same bytes for the same
 * options.  Records are built in small batches and streamed to the writer;
 * only the record ids of the names are kept (8 bytes per record). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "darshanfs/hash.h"
#include "darshanfs/writer.h"
#include "util/bytes.h"

#define BATCH_BYTES (512 * 1024)
#define DXT_MAX_SEGS 32          /* per direction and record */
#define RANKS_PER_NODE 4
#define SECONDS_PER_DAY 86400

/* ---- random numbers: pure functions of (seed, stream, index) ----------- */

enum stream_tag { T_BLOCK = 1, T_FILE, T_RECORD, T_STDIO, T_JOB };

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

struct rng {
	uint64_t s;
};

static struct rng rng_for(uint64_t seed, enum stream_tag tag, uint64_t index)
{
	struct rng r = {mix64(seed ^ mix64(((uint64_t)tag << 56) ^ index))};
	return r;
}

static uint64_t next(struct rng *r)
{
	r->s += 0x9e3779b97f4a7c15ULL;
	return mix64(r->s);
}

static double unit(struct rng *r)
{
	return (double)(next(r) >> 11) * 0x1.0p-53;
}

/* uniform in lo..hi (inclusive) */
static int64_t range(struct rng *r, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(next(r) % (uint64_t)(hi - lo + 1));
}

static double urange(struct rng *r, double lo, double hi)
{
	return lo + (hi - lo) * unit(r);
}

/* index drawn with the given weights */
static int pick(struct rng *r, const unsigned *w, int n)
{
	unsigned total = 0;
	for (int i = 0; i < n; i++)
		total += w[i];
	if (total == 0)
		return 0;
	unsigned x = (unsigned)(next(r) % total);
	for (int i = 0; i < n; i++) {
		if (x < w[i])
			return i;
		x -= w[i];
	}
	return n - 1;
}

/* ---- the machine ------------------------------------------------------- */

enum mount { M_SCRATCH, M_GRAND, M_EAGLE, M_HOME, M_TMP, M_ROOT, M_COUNT };

/* the mount table, already sorted as readers sort it (longest first) */
static const dfs_mount machine_mounts[M_COUNT] = {
	[M_SCRATCH] = {"/local/scratch", "xfs", 14},
	[M_GRAND] = {"/lus/grand", "lustre", 10},
	[M_EAGLE] = {"/lus/eagle", "lustre", 10},
	[M_HOME] = {"/home", "nfs", 5},
	[M_TMP] = {"/tmp", "xfs", 4},
	[M_ROOT] = {"/", "rootfs", 1},
};

static const unsigned mount_weight[M_COUNT] = {5, 40, 25, 10, 10, 10};

enum access { A_RO, A_WO, A_RW, A_META, A_STAT, A_COUNT };

static const unsigned access_weight[M_COUNT][A_COUNT] = {
	[M_SCRATCH] = {20, 40, 40, 0, 0},
	[M_GRAND] = {35, 35, 15, 10, 5},
	[M_EAGLE] = {50, 25, 10, 10, 5},
	[M_HOME] = {55, 5, 0, 25, 15},
	[M_TMP] = {10, 30, 40, 20, 0},
	[M_ROOT] = {70, 0, 0, 0, 30},
};

/* transfer sizes per mount (bytes, weight) */
static const struct {
	int64_t size[5];
	unsigned weight[5];
	int max_ops_log2;        /* ops per rank up to 2^this */
	double bw_lo, bw_hi;     /* bytes per second per rank */
} io_profile[M_COUNT] = {
	[M_SCRATCH] = {{65536, 1048576, 4194304, 0, 0}, {30, 50, 20, 0, 0}, 7, 2e9, 6e9},
	[M_GRAND] = {{4096, 65536, 1048576, 4194304, 16777216}, {10, 15, 35, 25, 15}, 9, 5e8, 4e9},
	[M_EAGLE] = {{4096, 65536, 1048576, 4194304, 16777216}, {15, 20, 30, 25, 10}, 9, 4e8, 3e9},
	[M_HOME] = {{64, 512, 4096, 0, 0}, {30, 40, 30, 0, 0}, 3, 5e7, 2e8},
	[M_TMP] = {{4096, 65536, 0, 0, 0}, {50, 50, 0, 0, 0}, 6, 5e8, 2e9},
	[M_ROOT] = {{832, 4096, 0, 0, 0}, {40, 60, 0, 0, 0}, 2, 1e9, 3e9},
};

static const char *const users[] = {"alice", "bob", "carol", "dave", "erin", "frank"};
static const char *const apps[] = {"ior", "lammps", "nekrs", "e3sm", "hacc", "castro",
                                   "trainer", "gromacs"};
static const char *const projects[] = {"climate", "fusion", "cosmo", "materials", "bio"};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- counters, found by name in each module's layout ------------------- */

enum counter {
	C_OPENS, C_FILENOS, C_DUPS, C_READS, C_WRITES, C_SEEKS, C_STATS, C_MMAPS,
	C_FSYNCS, C_FDSYNCS, C_MODE, C_BYTES_READ, C_BYTES_WRITTEN,
	C_MAX_BYTE_READ, C_MAX_BYTE_WRITTEN, C_CONSEC_READS, C_CONSEC_WRITES,
	C_SEQ_READS, C_SEQ_WRITES, C_RW_SWITCHES, C_MEM_NOT_ALIGNED,
	C_MEM_ALIGNMENT, C_FILE_NOT_ALIGNED, C_FILE_ALIGNMENT,
	C_MAX_READ_TIME_SIZE, C_MAX_WRITE_TIME_SIZE,
	C_SIZE_READ, C_SIZE_WRITE, C_SIZE_READ_AGG, C_SIZE_WRITE_AGG, /* 10 bins */
	C_STRIDE, C_STRIDE_COUNT, C_ACCESS, C_ACCESS_COUNT,           /* 4 each */
	C_FASTEST_RANK, C_FASTEST_RANK_BYTES, C_SLOWEST_RANK, C_SLOWEST_RANK_BYTES,
	C_INDEP_OPENS, C_COLL_OPENS, C_INDEP_READS, C_INDEP_WRITES, C_COLL_READS,
	C_COLL_WRITES, C_SYNCS, C_HINTS, C_VIEWS, C_FDOPENS, C_FLUSHES,
	F_OPEN_START, F_READ_START, F_WRITE_START, F_CLOSE_START, F_OPEN_END,
	F_READ_END, F_WRITE_END, F_CLOSE_END, F_READ_TIME, F_WRITE_TIME,
	F_META_TIME, F_MAX_READ_TIME, F_MAX_WRITE_TIME, F_FASTEST_TIME,
	F_SLOWEST_TIME, F_VAR_TIME, F_VAR_BYTES,
	C_COUNT
};

/* counter names without the module prefix; a module lacking one skips it */
static const char *const counter_names[C_COUNT] = {
	"OPENS", "FILENOS", "DUPS", "READS", "WRITES", "SEEKS", "STATS", "MMAPS",
	"FSYNCS", "FDSYNCS", "MODE", "BYTES_READ", "BYTES_WRITTEN",
	"MAX_BYTE_READ", "MAX_BYTE_WRITTEN", "CONSEC_READS", "CONSEC_WRITES",
	"SEQ_READS", "SEQ_WRITES", "RW_SWITCHES", "MEM_NOT_ALIGNED",
	"MEM_ALIGNMENT", "FILE_NOT_ALIGNED", "FILE_ALIGNMENT",
	"MAX_READ_TIME_SIZE", "MAX_WRITE_TIME_SIZE",
	"SIZE_READ_0_100", "SIZE_WRITE_0_100", "SIZE_READ_AGG_0_100",
	"SIZE_WRITE_AGG_0_100",
	"STRIDE1_STRIDE", "STRIDE1_COUNT", "ACCESS1_ACCESS", "ACCESS1_COUNT",
	"FASTEST_RANK", "FASTEST_RANK_BYTES", "SLOWEST_RANK", "SLOWEST_RANK_BYTES",
	"INDEP_OPENS", "COLL_OPENS", "INDEP_READS", "INDEP_WRITES", "COLL_READS",
	"COLL_WRITES", "SYNCS", "HINTS", "VIEWS", "FDOPENS", "FLUSHES",
	"F_OPEN_START_TIMESTAMP", "F_READ_START_TIMESTAMP",
	"F_WRITE_START_TIMESTAMP", "F_CLOSE_START_TIMESTAMP",
	"F_OPEN_END_TIMESTAMP", "F_READ_END_TIMESTAMP", "F_WRITE_END_TIMESTAMP",
	"F_CLOSE_END_TIMESTAMP", "F_READ_TIME", "F_WRITE_TIME", "F_META_TIME",
	"F_MAX_READ_TIME", "F_MAX_WRITE_TIME", "F_FASTEST_RANK_TIME",
	"F_SLOWEST_RANK_TIME", "F_VARIANCE_RANK_TIME", "F_VARIANCE_RANK_BYTES",
};

/* groups of consecutive counters: first, name of the last, count */
static const struct {
	enum counter first;
	const char *last;
	int n;
} counter_runs[] = {
	{C_SIZE_READ, "SIZE_READ_1G_PLUS", 10},
	{C_SIZE_WRITE, "SIZE_WRITE_1G_PLUS", 10},
	{C_SIZE_READ_AGG, "SIZE_READ_AGG_1G_PLUS", 10},
	{C_SIZE_WRITE_AGG, "SIZE_WRITE_AGG_1G_PLUS", 10},
	{C_STRIDE, "STRIDE4_STRIDE", 4},
	{C_STRIDE_COUNT, "STRIDE4_COUNT", 4},
	{C_ACCESS, "ACCESS4_ACCESS", 4},
	{C_ACCESS_COUNT, "ACCESS4_COUNT", 4},
};

struct layout {
	const dfs_module *m;
	int32_t off[C_COUNT];    /* -1: the module has no such counter */
};

static int field_offset(const dfs_module *m, const char *name)
{
	int f = dfs_module_field_index(m, name, strlen(name));
	return f < 0 ? -1 : (int)m->fields[f].offset;
}

static int layout_init(struct layout *l, int id, dfs_error *err)
{
	l->m = dfs_module_get(id);
	if (!l->m || !l->m->record_size)
		return dfs_error_set(err, DFS_ERR_UNSUPPORTED,
		                     "module id %d cannot be generated", id);
	for (int c = 0; c < C_COUNT; c++)
		l->off[c] = field_offset(l->m, counter_names[c]);
	for (size_t i = 0; i < COUNT(counter_runs); i++) {
		int first = l->off[counter_runs[i].first];
		if (first >= 0 &&
		    field_offset(l->m, counter_runs[i].last) != first + 8 * (counter_runs[i].n - 1))
			return dfs_error_set(err, DFS_ERR_UNSUPPORTED,
			                     "%s: counters of %s are not consecutive",
			                     l->m->name, counter_names[counter_runs[i].first]);
	}
	return 0;
}

static void seti(unsigned char *rec, const struct layout *l, enum counter c,
                 int64_t v)
{
	if (l->off[c] >= 0)
		dfs_store_i64(rec + l->off[c], v);
}

static void seti_at(unsigned char *rec, const struct layout *l, enum counter c,
                    int k, int64_t v)
{
	if (l->off[c] >= 0)
		dfs_store_i64(rec + l->off[c] + 8 * k, v);
}

static int64_t geti_at(const unsigned char *rec, const struct layout *l,
                       enum counter c, int k)
{
	return l->off[c] >= 0 ? dfs_load_i64(rec + l->off[c] + 8 * k, false) : 0;
}

static void setf(unsigned char *rec, const struct layout *l, enum counter c,
                 double v)
{
	if (l->off[c] >= 0)
		dfs_store_f64(rec + l->off[c], v);
}

/* ---- plans: what happened to one file on one rank (or all ranks) ------- */

/* `ops` accesses of `size` bytes, the last one of `tail` bytes */
struct stream {
	int64_t ops, size, tail, bytes;
};

struct file_info {
	int mount;
	int access;
	bool mpiio;              /* opened through MPI-IO */
	bool interleaved;        /* shared file: ranks' accesses interleave */
	struct stream io;        /* per rank */
	double bw;
	int64_t opens, stats, fsyncs;
	double open_at;          /* fraction of the run time */
};

struct plan {
	size_t file;             /* index of the file's name */
	int64_t rank;            /* -1: shared by all ranks */
	int64_t nranks;          /* ranks folded into this record */
	int64_t part;            /* this rank's part of a group's file */
	bool group;              /* the file is shared by a group of ranks */
	struct file_info f;
	struct stream rd, wr;    /* per rank */
	/* timeline of the slowest rank (starts are the earliest rank's) */
	double open_start, open_end, write_start, write_end;
	double read_start, read_end, close_start, close_end;
	double read_time, write_time, meta_time;   /* mean per rank */
	double slow, fast;       /* slowest / fastest rank's I/O time vs mean */
	int64_t fastest, slowest;
};

struct synth {
	dfs_synth_options o;
	const char *project;
	double run_time;         /* seconds */
	struct layout posix, mpiio, stdio;
	uint64_t *file_ids;      /* by name index (POSIX files) */
	uint64_t *stdio_ids;
	bool dxt_cut;            /* a DXT trace was cut: module is partial */
	dfs_buf batch;
};

static struct stream make_stream(struct rng *r, int mount)
{
	struct stream s;
	s.size = io_profile[mount].size[pick(r, io_profile[mount].weight, 5)];
	int64_t scale = (int64_t)1 << range(r, 0, io_profile[mount].max_ops_log2);
	s.ops = range(r, 1, scale);
	s.tail = unit(r) < 0.5 ? s.size : range(r, 1, s.size);
	s.bytes = (s.ops - 1) * s.size + s.tail;
	return s;
}

static void file_info(const struct synth *s, size_t file, bool shared,
                      struct file_info *f)
{
	struct rng r = rng_for(s->o.seed, T_FILE, file);
	f->mount = pick(&r, mount_weight, M_COUNT);
	f->access = pick(&r, access_weight[f->mount], A_COUNT);
	bool lustre = f->mount == M_GRAND || f->mount == M_EAGLE;
	bool data = f->access <= A_RW;
	f->mpiio = lustre && data && (shared || unit(&r) < 0.3);
	f->interleaved = unit(&r) < 0.5;
	f->io = make_stream(&r, f->mount);
	f->bw = urange(&r, io_profile[f->mount].bw_lo, io_profile[f->mount].bw_hi);
	f->opens = f->access == A_STAT ? 0 : range(&r, 1, 2);
	f->stats = f->access == A_STAT ? range(&r, 1, 4) : range(&r, 0, 2);
	f->fsyncs = (f->access == A_WO || f->access == A_RW) && unit(&r) < 0.25;
	f->open_at = urange(&r, 0.01, 0.6);
}

/* Where record i's file comes from: blocks of 4 records are sometimes one
 * file shared by a group of 4 ranks; otherwise each record is its own file,
 * per rank or shared by all ranks. */
static void plan_place(const struct synth *s, size_t i, struct plan *p)
{
	int64_t nprocs = s->o.nprocs;
	struct rng b = rng_for(s->o.seed, T_BLOCK, i / 4);
	bool group = nprocs >= 4 && unit(&b) < 0.15;
	int64_t r0 = range(&b, 0, nprocs - 1);
	struct rng r = rng_for(s->o.seed, T_RECORD, i);
	bool shared = !group && nprocs > 1 && unit(&r) < 0.35;
	p->part = 0;
	p->nranks = 1;
	p->group = group;
	if (group) {
		p->file = i - i % 4;
		p->part = (int64_t)(i % 4);
		p->rank = (r0 + p->part) % nprocs;
	} else if (shared) {
		p->file = i;
		p->rank = -1;
		p->nranks = nprocs;
	} else {
		p->file = i;
		p->rank = range(&r, 0, nprocs - 1);
	}
	file_info(s, p->file, group || shared, &p->f);
}

static void plan_times(const struct synth *s, struct plan *p, double scale)
{
	const struct file_info *f = &p->f;
	double T = s->run_time;
	double meta_open = 4e-4 * scale;
	p->meta_time = (double)f->opens * meta_open + (double)f->stats * 5e-5 * scale +
	               (double)f->fsyncs * 8e-3 * scale;
	p->write_time = (double)p->wr.bytes / f->bw * scale;
	p->read_time = (double)p->rd.bytes / f->bw * scale;
	double t = T * f->open_at;
	p->open_start = p->open_end = p->close_start = p->close_end = 0;
	p->write_start = p->write_end = p->read_start = p->read_end = 0;
	if (f->opens == 0)
		return; /* stat only: no timestamps */
	p->open_start = t;
	t += (double)f->opens * meta_open * p->slow;
	p->open_end = t;
	if (p->wr.ops) {
		p->write_start = t + 1e-5;
		t = p->write_end = p->write_start + p->write_time * p->slow * 1.02;
	}
	if (p->rd.ops) {
		p->read_start = t + 1e-5;
		t = p->read_end = p->read_start + p->read_time * p->slow * 1.02;
	}
	p->close_start = t + 1e-5;
	p->close_end = p->close_start + 1e-4 * scale + 1e-5;
}

static void make_plan(const struct synth *s, size_t i, struct plan *p)
{
	plan_place(s, i, p);
	struct rng r = rng_for(s->o.seed, T_RECORD ^ 0x40, i);
	int a = p->f.access;
	struct stream none = {0, 0, 0, 0};
	p->wr = (a == A_WO || a == A_RW) ? p->f.io : none;
	p->rd = (a == A_RO || a == A_RW) ? p->f.io : none;
	p->slow = p->nranks > 1 ? urange(&r, 1.1, 1.6) : 1.0;
	p->fast = p->nranks > 1 ? urange(&r, 0.6, 0.95) : 1.0;
	p->fastest = p->slowest = p->rank;
	if (p->rank < 0) {
		int64_t n = s->o.nprocs;
		p->fastest = range(&r, 0, n - 1);
		p->slowest = n > 1 ? (p->fastest + range(&r, 1, n - 1)) % n : p->fastest;
	}
	/* squeeze the I/O into the job's run time when it would not fit */
	plan_times(s, p, 1.0);
	double limit = s->run_time * 0.98;
	if (p->close_end > limit) {
		double start = s->run_time * p->f.open_at;
		plan_times(s, p, (limit - start) / (p->close_end - start) * 0.99);
	}
}

/* ---- counters shared by POSIX and MPI-IO ------------------------------- */

static int size_bin(int64_t size)
{
	static const int64_t upper[9] = {100, 1024, 10240, 102400, 1048576, 4194304,
	                                 10485760, 104857600, 1073741824};
	for (int b = 0; b < 9; b++)
		if (size <= upper[b])
			return b;
	return 9;
}

static void add_histogram(unsigned char *rec, const struct layout *l,
                          enum counter c, const struct stream *st, int64_t nranks)
{
	if (st->ops == 0)
		return;
	int b = size_bin(st->size), t = size_bin(st->tail);
	seti_at(rec, l, c, b, geti_at(rec, l, c, b) + nranks * (st->ops - 1));
	seti_at(rec, l, c, t, geti_at(rec, l, c, t) + nranks);
}

/* the four most common access sizes of both streams */
static void set_access(unsigned char *rec, const struct layout *l,
                       const struct plan *p)
{
	int64_t size[4], count[4];
	int n = 0;
	const struct stream *st[2] = {&p->wr, &p->rd};
	for (int k = 0; k < 2; k++) {
		if (st[k]->ops == 0)
			continue;
		int64_t sz[2] = {st[k]->size, st[k]->tail};
		int64_t ct[2] = {st[k]->ops - 1, 1};
		for (int j = 0; j < 2; j++) {
			if (ct[j] == 0)
				continue;
			int e = 0;
			while (e < n && size[e] != sz[j])
				e++;
			if (e == n) {
				size[n] = sz[j];
				count[n++] = 0;
			}
			count[e] += ct[j] * p->nranks;
		}
	}
	/* most common first; equal counts: larger size first */
	for (int a = 1; a < n; a++)
		for (int b = a; b > 0 && (count[b] > count[b - 1] ||
		                          (count[b] == count[b - 1] && size[b] > size[b - 1])); b--) {
			int64_t ts = size[b], tc = count[b];
			size[b] = size[b - 1];
			count[b] = count[b - 1];
			size[b - 1] = ts;
			count[b - 1] = tc;
		}
	for (int k = 0; k < n; k++) {
		seti_at(rec, l, C_ACCESS, k, size[k]);
		seti_at(rec, l, C_ACCESS_COUNT, k, count[k]);
	}
}

static void set_ranks(unsigned char *rec, const struct layout *l,
                      const struct plan *p, double io_time)
{
	int64_t bytes = p->rd.bytes + p->wr.bytes;
	seti(rec, l, C_FASTEST_RANK, p->fastest);
	seti(rec, l, C_FASTEST_RANK_BYTES, bytes);
	seti(rec, l, C_SLOWEST_RANK, p->slowest);
	seti(rec, l, C_SLOWEST_RANK_BYTES, bytes);
	setf(rec, l, F_FASTEST_TIME, io_time * p->fast);
	setf(rec, l, F_SLOWEST_TIME, io_time * p->slow);
	double spread = io_time * (p->slow - p->fast) / 4;
	setf(rec, l, F_VAR_TIME, p->nranks > 1 ? spread * spread : 0);
	setf(rec, l, F_VAR_BYTES, 0); /* every rank moves the same bytes */
}

/* slowest single access: one access's share of the time, with jitter */
static double max_op_time(const struct stream *st, double total, double slow,
                          struct rng *r)
{
	if (st->ops == 0)
		return 0;
	double t = total / (double)st->ops * urange(r, 1.2, 2.5);
	double cap = total * slow;
	return t < cap ? t : cap;
}

/* the highest byte a rank's part reaches, for a stream of `bytes` */
static int64_t max_byte(const struct plan *p, const struct stream *st)
{
	if (st->ops == 0)
		return 0;
	return (p->part + p->nranks) * st->bytes - 1;
}

static void set_timestamps(unsigned char *rec, const struct layout *l,
                           const struct plan *p, double early, double late)
{
	if (p->open_start > 0) {
		setf(rec, l, F_OPEN_START, p->open_start - early);
		setf(rec, l, F_OPEN_END, p->open_end + late);
		setf(rec, l, F_CLOSE_START, p->close_start);
		setf(rec, l, F_CLOSE_END, p->close_end + late);
	}
	if (p->wr.ops) {
		setf(rec, l, F_WRITE_START, p->write_start - early);
		setf(rec, l, F_WRITE_END, p->write_end + late);
	}
	if (p->rd.ops) {
		setf(rec, l, F_READ_START, p->read_start - early);
		setf(rec, l, F_READ_END, p->read_end + late);
	}
}

/* ---- POSIX ------------------------------------------------------------- */

static void fill_posix(const struct synth *s, const struct plan *p,
                       unsigned char *rec)
{
	const struct layout *l = &s->posix;
	const struct file_info *f = &p->f;
	int64_t n = p->nranks;
	struct rng r = rng_for(s->o.seed, T_RECORD ^ 0x80, p->file * 8 + (size_t)p->part);
	memset(rec, 0, l->m->record_size);
	dfs_store_u64(rec, s->file_ids[p->file]);
	dfs_store_i64(rec + 8, p->rank);
	seti(rec, l, C_OPENS, f->opens * n);
	seti(rec, l, C_READS, p->rd.ops * n);
	seti(rec, l, C_WRITES, p->wr.ops * n);
	bool seeking = !f->mpiio && f->interleaved && n > 1;
	seti(rec, l, C_SEEKS, seeking ? (p->rd.ops + p->wr.ops) * n : 0);
	seti(rec, l, C_STATS, f->stats * n);
	seti(rec, l, C_FSYNCS, f->fsyncs * n);
	seti(rec, l, C_MODE, p->wr.ops ? 0644 : 0);
	seti(rec, l, C_BYTES_READ, p->rd.bytes * n);
	seti(rec, l, C_BYTES_WRITTEN, p->wr.bytes * n);
	seti(rec, l, C_MAX_BYTE_READ, max_byte(p, &p->rd));
	seti(rec, l, C_MAX_BYTE_WRITTEN, max_byte(p, &p->wr));
	bool consecutive = !(f->interleaved && n > 1);
	int64_t rd_steps = p->rd.ops ? (p->rd.ops - 1) * n : 0;
	int64_t wr_steps = p->wr.ops ? (p->wr.ops - 1) * n : 0;
	seti(rec, l, C_CONSEC_READS, consecutive ? rd_steps : 0);
	seti(rec, l, C_CONSEC_WRITES, consecutive ? wr_steps : 0);
	seti(rec, l, C_SEQ_READS, rd_steps);
	seti(rec, l, C_SEQ_WRITES, wr_steps);
	seti(rec, l, C_RW_SWITCHES, p->rd.ops && p->wr.ops ? n : 0);
	seti(rec, l, C_MEM_ALIGNMENT, 8);
	int64_t align = f->mount == M_GRAND || f->mount == M_EAGLE ? 1048576 : 4096;
	seti(rec, l, C_FILE_ALIGNMENT, align);
	int64_t unaligned = f->io.size % align ? rd_steps + wr_steps : 0;
	seti(rec, l, C_FILE_NOT_ALIGNED, unaligned);
	seti(rec, l, C_MAX_READ_TIME_SIZE, p->rd.ops ? p->rd.size : 0);
	seti(rec, l, C_MAX_WRITE_TIME_SIZE, p->wr.ops ? p->wr.size : 0);
	add_histogram(rec, l, C_SIZE_READ, &p->rd, n);
	add_histogram(rec, l, C_SIZE_WRITE, &p->wr, n);
	if (rd_steps + wr_steps > 0) {
		seti_at(rec, l, C_STRIDE, 0, consecutive ? 0 : (n - 1) * f->io.size);
		seti_at(rec, l, C_STRIDE_COUNT, 0, rd_steps + wr_steps);
	}
	set_access(rec, l, p);
	set_timestamps(rec, l, p, 0, 0);
	setf(rec, l, F_READ_TIME, p->read_time * (double)n);
	setf(rec, l, F_WRITE_TIME, p->write_time * (double)n);
	setf(rec, l, F_META_TIME, p->meta_time * (double)n);
	setf(rec, l, F_MAX_READ_TIME, max_op_time(&p->rd, p->read_time, p->slow, &r));
	setf(rec, l, F_MAX_WRITE_TIME, max_op_time(&p->wr, p->write_time, p->slow, &r));
	set_ranks(rec, l, p, p->read_time + p->write_time + p->meta_time);
}

/* ---- MPI-IO: the same accesses seen one layer up ----------------------- */

static void fill_mpiio(const struct synth *s, const struct plan *p,
                       unsigned char *rec)
{
	const struct layout *l = &s->mpiio;
	const struct file_info *f = &p->f;
	int64_t n = p->nranks;
	bool coll = p->rank < 0 || p->group; /* shared files use collectives */
	struct rng r = rng_for(s->o.seed, T_RECORD ^ 0xc0, p->file * 8 + (size_t)p->part);
	memset(rec, 0, l->m->record_size);
	dfs_store_u64(rec, s->file_ids[p->file]);
	dfs_store_i64(rec + 8, p->rank);
	seti(rec, l, coll ? C_COLL_OPENS : C_INDEP_OPENS, f->opens * n);
	seti(rec, l, coll ? C_COLL_READS : C_INDEP_READS, p->rd.ops * n);
	seti(rec, l, coll ? C_COLL_WRITES : C_INDEP_WRITES, p->wr.ops * n);
	seti(rec, l, C_SYNCS, f->fsyncs * n);
	seti(rec, l, C_HINTS, coll ? f->opens * n : 0);
	seti(rec, l, C_VIEWS, coll ? f->opens * n : 0);
	/* MPI_MODE_RDONLY 2; CREATE 1 | WRONLY 4; CREATE 1 | RDWR 8 */
	seti(rec, l, C_MODE, f->access == A_RO ? 2 : f->access == A_WO ? 5 : 9);
	seti(rec, l, C_BYTES_READ, p->rd.bytes * n);
	seti(rec, l, C_BYTES_WRITTEN, p->wr.bytes * n);
	seti(rec, l, C_RW_SWITCHES, p->rd.ops && p->wr.ops ? n : 0);
	seti(rec, l, C_MAX_READ_TIME_SIZE, p->rd.ops ? p->rd.size : 0);
	seti(rec, l, C_MAX_WRITE_TIME_SIZE, p->wr.ops ? p->wr.size : 0);
	add_histogram(rec, l, C_SIZE_READ_AGG, &p->rd, n);
	add_histogram(rec, l, C_SIZE_WRITE_AGG, &p->wr, n);
	set_access(rec, l, p);
	set_timestamps(rec, l, p, 2e-4, 1e-4);
	double over = urange(&r, 1.01, 1.08);
	setf(rec, l, F_READ_TIME, p->read_time * (double)n * over);
	setf(rec, l, F_WRITE_TIME, p->write_time * (double)n * over);
	setf(rec, l, F_META_TIME, p->meta_time * (double)n * 1.2);
	setf(rec, l, F_MAX_READ_TIME, max_op_time(&p->rd, p->read_time, p->slow, &r) * over);
	setf(rec, l, F_MAX_WRITE_TIME, max_op_time(&p->wr, p->write_time, p->slow, &r) * over);
	set_ranks(rec, l, p, (p->read_time + p->write_time) * over + p->meta_time * 1.2);
}

/* ---- DXT_POSIX: a (possibly cut) trace of the same accesses ------------ */

static size_t dxt_size(const struct plan *p)
{
	int64_t w = p->wr.ops < DXT_MAX_SEGS ? p->wr.ops : DXT_MAX_SEGS;
	int64_t r = p->rd.ops < DXT_MAX_SEGS ? p->rd.ops : DXT_MAX_SEGS;
	return 104 + 40 * (size_t)(w + r);
}

static void dxt_segments(unsigned char *seg, const struct plan *p,
                         const struct stream *st, int64_t nsegs, double start,
                         double end, uint64_t thread)
{
	double dt = (end - start) / (double)st->ops;
	int64_t base = p->part * st->bytes;
	for (int64_t k = 0; k < nsegs; k++) {
		unsigned char *o = seg + 40 * k;
		dfs_store_i64(o, base + k * st->size);
		dfs_store_i64(o + 8, k == st->ops - 1 ? st->tail : st->size);
		dfs_store_f64(o + 16, start + dt * (double)k);
		dfs_store_f64(o + 24, start + dt * ((double)k + 0.9));
		dfs_store_u64(o + 32, thread);
	}
}

static void fill_dxt(struct synth *s, const struct plan *p, unsigned char *rec)
{
	int64_t w = p->wr.ops < DXT_MAX_SEGS ? p->wr.ops : DXT_MAX_SEGS;
	int64_t r = p->rd.ops < DXT_MAX_SEGS ? p->rd.ops : DXT_MAX_SEGS;
	if (w < p->wr.ops || r < p->rd.ops)
		s->dxt_cut = true;
	memset(rec, 0, 104);
	dfs_store_u64(rec, s->file_ids[p->file]);
	dfs_store_i64(rec + 8, p->rank);
	dfs_store_i64(rec + 16, p->group ? 1 : 0); /* shared_record */
	snprintf((char *)rec + 24, 64, "nid%05" PRId64, p->rank / RANKS_PER_NODE);
	dfs_store_i64(rec + 88, w);
	dfs_store_i64(rec + 96, r);
	uint64_t thread = 140000000000000ULL + (uint64_t)p->rank * 8392704ULL;
	dxt_segments(rec + 104, p, &p->wr, w, p->write_start, p->write_end, thread);
	dxt_segments(rec + 104 + 40 * w, p, &p->rd, r, p->read_start, p->read_end,
	             thread);
}

/* ---- STDIO ------------------------------------------------------------- */

enum stdio_kind { S_STDOUT, S_STDERR, S_LOG, S_INPUT, S_CSV, S_SUMMARY };

static enum stdio_kind stdio_kind(const struct synth *s, size_t j)
{
	if (j < 2)
		return j == 0 ? S_STDOUT : S_STDERR;
	struct rng r = rng_for(s->o.seed, T_STDIO, j);
	static const unsigned w[4] = {40, 25, 20, 15};
	return (enum stdio_kind)(S_LOG + pick(&r, w, 4));
}

static int stdio_name(const struct synth *s, size_t j, char *out, size_t cap)
{
	const char *u = s->o.user, *a = s->o.app;
	switch (stdio_kind(s, j)) {
	case S_STDOUT:
		return snprintf(out, cap, "<STDOUT>");
	case S_STDERR:
		return snprintf(out, cap, "<STDERR>");
	case S_LOG:
		return snprintf(out, cap, "/home/%s/%s/logs/%s.%zu.log", u, a, a, j);
	case S_INPUT:
		return snprintf(out, cap, "/home/%s/%s/input/deck_%zu.txt", u, a, j);
	case S_CSV:
		return snprintf(out, cap, "/tmp/%s_stats_%zu.csv", a, j);
	default:
		return snprintf(out, cap, "/lus/grand/projects/%s/%s/run_%05" PRId64
		                "/summary_%zu.txt", s->project, u, s->o.jobid % 100000, j);
	}
}

static void fill_stdio(const struct synth *s, size_t j, unsigned char *rec)
{
	const struct layout *l = &s->stdio;
	struct rng r = rng_for(s->o.seed, T_STDIO ^ 0x40, j);
	enum stdio_kind k = stdio_kind(s, j);
	int64_t nprocs = s->o.nprocs;
	struct plan p;
	memset(&p, 0, sizeof(p));
	bool all_ranks = (k == S_STDERR || k == S_INPUT) && nprocs > 1;
	p.rank = all_ranks ? -1 : k == S_LOG ? (int64_t)(j % (size_t)nprocs) : 0;
	p.nranks = p.rank < 0 ? nprocs : 1;
	p.slow = p.nranks > 1 ? urange(&r, 1.05, 1.4) : 1.0;
	p.fast = p.nranks > 1 ? urange(&r, 0.7, 0.95) : 1.0;
	p.fastest = p.slowest = p.rank;
	if (p.rank < 0) {
		p.fastest = range(&r, 0, nprocs - 1);
		p.slowest = nprocs > 1 ? (p.fastest + range(&r, 1, nprocs - 1)) % nprocs : 0;
	}
	struct stream st;
	st.ops = k == S_STDOUT ? range(&r, 20, 400) : k == S_STDERR ? range(&r, 1, 3)
	         : k == S_INPUT ? range(&r, 10, 200) : range(&r, 5, 2000);
	st.size = k == S_INPUT ? 4096 : range(&r, 40, 120);
	st.tail = range(&r, 1, st.size);
	st.bytes = (st.ops - 1) * st.size + st.tail;
	bool reading = k == S_INPUT;
	bool opened = k != S_STDOUT && k != S_STDERR;
	double T = s->run_time, bw = urange(&r, 5e7, 5e8);
	double io = (double)st.bytes / bw + (double)st.ops * 2e-6;
	double start = reading ? T * urange(&r, 0.001, 0.05) : T * urange(&r, 0.001, 0.3);
	double end = reading ? start + io * p.slow * 1.5 : urange(&r, start + io * 1.5, T * 0.99);
	double meta = opened ? urange(&r, 1e-4, 1e-3) : 0;
	memset(rec, 0, l->m->record_size);
	dfs_store_u64(rec, s->stdio_ids[j]);
	dfs_store_i64(rec + 8, p.rank);
	int64_t n = p.nranks;
	seti(rec, l, C_OPENS, opened ? n : 0);
	seti(rec, l, reading ? C_READS : C_WRITES, st.ops * n);
	seti(rec, l, C_FLUSHES, reading ? 0 : st.ops / 8 * n);
	seti(rec, l, reading ? C_BYTES_READ : C_BYTES_WRITTEN, st.bytes * n);
	/* every rank reads the whole input file; writers append */
	seti(rec, l, reading ? C_MAX_BYTE_READ : C_MAX_BYTE_WRITTEN, st.bytes - 1);
	if (opened) {
		setf(rec, l, F_OPEN_START, start - meta);
		setf(rec, l, F_OPEN_END, start);
		setf(rec, l, F_CLOSE_START, end);
		setf(rec, l, F_CLOSE_END, end + meta / 2);
	}
	setf(rec, l, reading ? F_READ_START : F_WRITE_START, start);
	setf(rec, l, reading ? F_READ_END : F_WRITE_END, end);
	setf(rec, l, reading ? F_READ_TIME : F_WRITE_TIME, io * (double)n);
	setf(rec, l, F_META_TIME, meta * 1.5 * (double)n);
	p.rd = reading ? st : p.rd;
	p.wr = reading ? p.wr : st;
	set_ranks(rec, l, &p, io + meta * 1.5);
}

/* ---- names ------------------------------------------------------------- */

static int file_name(const struct synth *s, const struct plan *p, char *out,
                     size_t cap)
{
	const char *u = s->o.user, *a = s->o.app;
	size_t k = p->file;
	switch (p->f.mount) {
	case M_SCRATCH:
		return snprintf(out, cap, "/local/scratch/%s_buf_%zu.dat", a, k);
	case M_GRAND:
		return snprintf(out, cap, "/lus/grand/projects/%s/%s/run_%05" PRId64
		                "/out/chk_%07zu.h5", s->project, u, s->o.jobid % 100000, k);
	case M_EAGLE:
		return snprintf(out, cap, "/lus/eagle/projects/%s/datasets/shard_%07zu.bin",
		                s->project, k);
	case M_HOME:
		return snprintf(out, cap, "/home/%s/%s/config/params_%zu.nml", u, a, k);
	case M_TMP:
		return snprintf(out, cap, "/tmp/%s.%" PRId64 ".%zu.tmp", a, s->o.jobid, k);
	default:
		return snprintf(out, cap, "/usr/lib64/libdep%zu.so.1", k);
	}
}

static bool wants(const struct synth *s, int id)
{
	return (s->o.modules >> id) & 1;
}

static bool dxt_traced(const struct plan *p)
{
	return p->rank >= 0 && p->rd.ops + p->wr.ops > 0;
}

/* Is the file of record i used by a generated module (and i its first
 * record)?  Files are named once, at their first record. */
static bool file_named(const struct synth *s, const struct plan *p, size_t i)
{
	if (p->file != i)
		return false;
	if (wants(s, DFS_MOD_POSIX))
		return true;
	bool data = p->f.access <= A_RW;
	if (wants(s, DFS_MOD_MPIIO) && p->f.mpiio)
		return true;
	if (wants(s, DFS_MOD_DXT_POSIX) && data) {
		/* a group file is traced from any of its records */
		return p->rank >= 0;
	}
	return false;
}

static int write_names(struct synth *s, dfs_log_writer *w, dfs_error *err)
{
	char name[512];
	size_t n = s->o.records;
	for (size_t i = 0; i < n; i++) {
		struct plan p;
		plan_place(s, i, &p);
		if (!file_named(s, &p, i))
			continue;
		int len = file_name(s, &p, name, sizeof(name));
		s->file_ids[i] = dfs_hash_name(name, (size_t)len);
		if (dfs_log_writer_name(w, s->file_ids[i], name, (size_t)len, err))
			return -1;
	}
	if (!wants(s, DFS_MOD_STDIO))
		return 0;
	for (size_t j = 0; j < n; j++) {
		int len = stdio_name(s, j, name, sizeof(name));
		s->stdio_ids[j] = dfs_hash_name(name, (size_t)len);
		if (dfs_log_writer_name(w, s->stdio_ids[j], name, (size_t)len, err))
			return -1;
	}
	return 0;
}

/* ---- modules ----------------------------------------------------------- */

/* room for one more record of `len` bytes in the batch, flushing it first */
static unsigned char *batch_room(struct synth *s, dfs_log_writer *w, size_t len,
                                 dfs_error *err)
{
	if (s->batch.len + len > BATCH_BYTES && s->batch.len > 0) {
		if (dfs_log_writer_module_data(w, s->batch.data, s->batch.len, err))
			return NULL;
		dfs_buf_reset(&s->batch);
	}
	unsigned char *p = dfs_buf_add_zeros(&s->batch, len);
	if (!p)
		dfs_error_nomem(err);
	return p;
}

static int batch_flush(struct synth *s, dfs_log_writer *w, dfs_error *err)
{
	int ret = s->batch.len ? dfs_log_writer_module_data(w, s->batch.data,
	                                                     s->batch.len, err) : 0;
	dfs_buf_reset(&s->batch);
	return ret;
}

static int write_file_module(struct synth *s, dfs_log_writer *w, int id,
                             dfs_error *err)
{
	if (!wants(s, id))
		return 0;
	if (dfs_log_writer_module_begin(w, id, 0, err))
		return -1;
	for (size_t i = 0; i < s->o.records; i++) {
		struct plan p;
		make_plan(s, i, &p);
		unsigned char *rec;
		if (id == DFS_MOD_POSIX) {
			if (!(rec = batch_room(s, w, s->posix.m->record_size, err)))
				return -1;
			fill_posix(s, &p, rec);
		} else if (id == DFS_MOD_MPIIO) {
			if (!p.f.mpiio)
				continue;
			if (!(rec = batch_room(s, w, s->mpiio.m->record_size, err)))
				return -1;
			fill_mpiio(s, &p, rec);
		} else {
			if (!dxt_traced(&p))
				continue;
			if (!(rec = batch_room(s, w, dxt_size(&p), err)))
				return -1;
			fill_dxt(s, &p, rec);
		}
	}
	if (batch_flush(s, w, err))
		return -1;
	return dfs_log_writer_module_end(w, err);
}

static int write_stdio(struct synth *s, dfs_log_writer *w, dfs_error *err)
{
	if (!wants(s, DFS_MOD_STDIO))
		return 0;
	if (dfs_log_writer_module_begin(w, DFS_MOD_STDIO, 0, err))
		return -1;
	for (size_t j = 0; j < s->o.records; j++) {
		unsigned char *rec = batch_room(s, w, s->stdio.m->record_size, err);
		if (!rec)
			return -1;
		fill_stdio(s, j, rec);
	}
	if (batch_flush(s, w, err))
		return -1;
	return dfs_log_writer_module_end(w, err);
}

/* ---- the job ----------------------------------------------------------- */

void dfs_synth_defaults(dfs_synth_options *o)
{
	uint64_t seed = o->seed;
	if (o->nprocs <= 0)
		o->nprocs = 16;
	if (o->modules == 0)
		o->modules = (1ULL << DFS_MOD_POSIX) | (1ULL << DFS_MOD_MPIIO) |
		             (1ULL << DFS_MOD_STDIO);
	if (!o->user)
		o->user = users[mix64(seed ^ 0x1111) % COUNT(users)];
	if (!o->app)
		o->app = apps[mix64(seed ^ 0x2222) % COUNT(apps)];
	if (o->jobid <= 0)
		o->jobid = 100000 + (int64_t)(mix64(seed ^ 0x3333) % 9000000);
	if (o->start_time <= 0)   /* 2025-09-01 plus up to 120 days */
		o->start_time = 1756684800 +
		                (int64_t)(mix64(seed ^ 0x4444) % (120 * SECONDS_PER_DAY));
}

static int write_job(struct synth *s, dfs_log_writer *w, dfs_error *err)
{
	struct rng r = rng_for(s->o.seed, T_JOB, 0);
	char exe[512], meta[256];
	snprintf(exe, sizeof(exe), "/home/%s/%s/bin/%s -i input.nml --steps %d",
	         s->o.user, s->o.app, s->o.app, (int)range(&r, 10, 1000));
	snprintf(meta, sizeof(meta), "lib_ver=3.5.0\nh=romio_no_indep_rw=true;cb_nodes=%"
	         PRId64 "\n", (s->o.nprocs + RANKS_PER_NODE - 1) / RANKS_PER_NODE);
	int64_t run_ns = (int64_t)(s->run_time * 1e9);
	int64_t start_ns = range(&r, 0, 999999999);
	dfs_job job = {
		.uid = 1000 + (int64_t)(mix64(s->o.seed ^ 0x5555) % 60000),
		.start_sec = s->o.start_time,
		.start_nsec = start_ns,
		.end_sec = s->o.start_time + (start_ns + run_ns) / 1000000000,
		.end_nsec = (start_ns + run_ns) % 1000000000,
		.nprocs = s->o.nprocs,
		.jobid = s->o.jobid,
		.metadata = meta,
		.exe = exe,
	};
	return dfs_log_writer_job(w, &job, machine_mounts, M_COUNT, err);
}

static int synth_init(struct synth *s, const dfs_synth_options *o, dfs_error *err)
{
	memset(s, 0, sizeof(*s));
	s->o = *o;
	dfs_synth_defaults(&s->o);
	if (s->o.modules & ~DFS_SYNTH_MODULES)
		return dfs_error_set(err, DFS_ERR_INVAL, "only POSIX, MPI-IO, STDIO and "
		                     "DXT_POSIX records can be generated");
	s->project = projects[mix64(s->o.seed ^ 0x6666) % COUNT(projects)];
	s->run_time = 300.0 + (double)(mix64(s->o.seed ^ 0x7777) % 3300) +
	              (double)(mix64(s->o.seed ^ 0x8888) % 1000) / 1000.0;
	if (layout_init(&s->posix, DFS_MOD_POSIX, err) ||
	    layout_init(&s->mpiio, DFS_MOD_MPIIO, err) ||
	    layout_init(&s->stdio, DFS_MOD_STDIO, err))
		return -1;
	size_t n = s->o.records ? s->o.records : 1;
	s->file_ids = calloc(n, sizeof(*s->file_ids));
	s->stdio_ids = calloc(n, sizeof(*s->stdio_ids));
	if (!s->file_ids || !s->stdio_ids)
		return dfs_error_nomem(err);
	return 0;
}

int dfs_synth_write(dfs_log_writer *w, const dfs_synth_options *o,
                    dfs_error *err)
{
	struct synth s;
	int ret = synth_init(&s, o, err);
	if (ret == 0)
		ret = write_job(&s, w, err);
	if (ret == 0)
		ret = write_names(&s, w, err);
	if (ret == 0)
		ret = write_file_module(&s, w, DFS_MOD_POSIX, err);
	if (ret == 0)
		ret = write_file_module(&s, w, DFS_MOD_MPIIO, err);
	if (ret == 0)
		ret = write_stdio(&s, w, err);
	if (ret == 0)
		ret = write_file_module(&s, w, DFS_MOD_DXT_POSIX, err);
	if (ret == 0)
		ret = dfs_log_writer_finish(w, s.dxt_cut ? 1ULL << DFS_MOD_DXT_POSIX : 0,
		                            err);
	free(s.file_ids);
	free(s.stdio_ids);
	dfs_buf_free(&s.batch);
	return ret;
}
