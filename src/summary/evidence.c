/* evidence.c - what the insights learn of each record, beside the sums of
 * facts.c: the small requests counted with the exact access sizes, the
 * shared files whose ranks are apart, the records whose counters no run
 * can have written (data problems), and per file the measures a finding
 * names its files by (the largest few kept in lists).
 *
 * Small requests.  Darshan's size histograms put a request of n bytes in
 * the first bin whose upper edge is at least n: 0-100, 101-1024, ...,
 * 102401-1048576 (the "100K_1M" bin holds exactly 1 MiB), ...  A request
 * is small when it is below small_bytes.  Bins wholly below are small,
 * bins wholly at or above are not; the bin holding small_bytes has both.
 * The four most common access sizes of the record (ACCESS1..4, reads and
 * writes together, each count a lower bound: the runtime keeps the top
 * four of each rank) tell how many requests of that bin have a known
 * size: those at or above small_bytes are taken out of the bin.  As the
 * counts do not say reads from writes, the known large ones are given to
 * the other direction first: what is left is the most the record can
 * have of small requests ("up to"), and the known small ones given the
 * same way the least ("at least").
 *
 * Memory is the lists (a few KiB a module) and, while the records are
 * read, the sums of each file the lists of files are made of (at most
 * EV_SUMS numbers a file, in recycled memory: facts.c); without memory
 * for them, a second pass sums the lists a finding needs, one number a
 * file and list. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log/hints.h"
#include "summary/summary_int.h"
#include "util/scratch.h"
#include "module/pack.h"

/* the bins' edges: bin k holds lower[k] .. upper[k] bytes */
static const double upper[SIZE_BINS] = {
	100, 1024, 10240, 102400, 1048576, 4194304, 10485760, 104857600, 1073741824, INFINITY};
static const double lower[SIZE_BINS] = {
	0, 101, 1025, 10241, 102401, 1048577, 4194305, 10485761, 104857601, 1073741825};

static const char *const bin_names[SIZE_BINS] = {
	"0_100", "100_1K", "1K_10K", "10K_100K", "100K_1M", "1M_4M", "4M_10M",
	"10M_100M", "100M_1G", "1G_PLUS",
};

/* ---- lists of the largest ------------------------------------------------------ */

/* does a come after b (smaller, or as large with a larger id)? */
static bool top_after(const struct top_item *a, const struct top_item *b)
{
	return a->v < b->v || (a->v == b->v && (a->id > b->id ||
	                                        (a->id == b->id && a->rank > b->rank)));
}

static void sift_down(struct top_item *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < n && top_after(&h[l], &h[m]))
			m = l;
		if (l + 1 < n && top_after(&h[l + 1], &h[m]))
			m = l + 1;
		if (m == i)
			return;
		struct top_item t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

void dfs_top_add(struct top_list *t, uint64_t id, int64_t rank, double v)
{
	if (!(v > 0))
		return;
	struct top_item it = {id, rank, v};
	t->sorted = false;
	t->count++;
	if (t->n < TOP_ABOUT) {
		size_t i = t->n++;
		t->it[i] = it;
		while (i > 0 && top_after(&t->it[i], &t->it[(i - 1) / 2])) {
			struct top_item x = t->it[i];
			t->it[i] = t->it[(i - 1) / 2];
			t->it[(i - 1) / 2] = x;
			i = (i - 1) / 2;
		}
	} else if (top_after(&t->it[0], &it)) {
		t->it[0] = it;
		sift_down(t->it, t->n, 0);
	}
}

static int top_cmp(const void *a, const void *b)
{
	const struct top_item *x = a, *y = b;
	return top_after(y, x) ? -1 : top_after(x, y) ? 1 : 0;
}

void dfs_top_sort(struct top_list *t)
{
	if (!t->sorted)
		qsort(t->it, t->n, sizeof(*t->it), top_cmp);
	t->sorted = true;
}

/* ---- the counters --------------------------------------------------------------- */

/* the value of field f as it is stored (0 without the field) */
static inline double raw(const dfs_module *m, const unsigned char *rec, size_t len, int f)
{
	if (f < 0)
		return 0;
	const dfs_field *fd = &m->fields[f];
	if (fd->storage == DFS_S_F64) {
		double d;
		memcpy(&d, rec + fd->offset, 8);
		return d;
	}
	if (fd->storage == DFS_S_I64) {
		int64_t i;
		memcpy(&i, rec + fd->offset, 8);
		return (double)i;
	}
	return dfs_facts_value(m, rec, len, 0, f);
}

/* a count or a size: Darshan writes -1 for what it did not keep */
static inline double count_of(const dfs_module *m, const unsigned char *rec, size_t len, int f)
{
	double d = raw(m, rec, len, f);
	return d > 0 && d < INFINITY ? d : 0;
}

/* a field of the record: from its words when they were read (w), else
 * from the record (m, rec, len in scope) */
#define RAW(f) (w ? dfs_rec_raw(w, f) : raw(m, rec, len, f))
#define COUNT(f) (w ? dfs_rec_count(w, f) : count_of(m, rec, len, f))

/* the duration counters: the times of operations, not the timestamps
 * (relative to the job's start on each rank's clock) nor the variances */
static bool is_duration(const char *name, size_t n)
{
	return n > 5 && strcmp(name + n - 5, "_TIME") == 0 && !strstr(name, "VARIANCE");
}

static bool ends_with(const char *name, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);
	return n >= k && strcmp(name + n - k, suffix) == 0;
}

/* the bin a name (after SIZE_READ_ or SIZE_WRITE_, AGG_ or not) is of, -1 */
static int bin_of(const char *s)
{
	if (strncmp(s, "AGG_", 4) == 0)
		s += 4;
	for (int k = 0; k < SIZE_BINS; k++)
		if (strcmp(s, bin_names[k]) == 0)
			return k;
	return -1;
}

/* The counters of a module, found in one pass over its fields (a render
 * of a small log is mostly this: no lookup by name per counter). */
void dfs_evidence_begin(struct ev_fields *ef, const struct facts *f, const dfs_module *m)
{
	memset(ef, 0, sizeof(*ef));
	int *all[] = {
		&ef->reads, &ef->writes, &ef->seq_reads, &ef->seq_writes, &ef->mem_na,
		&ef->file_na, &ef->indep_reads, &ef->indep_writes, &ef->use_coll,
		&ef->bytes_read, &ef->bytes_written, &ef->read_time, &ef->write_time,
		&ef->meta_time, &ef->fast_bytes, &ef->slow_bytes, &ef->fast_time, &ef->slow_time,
	};
	static const char *const names[] = {
		"READS", "WRITES", "SEQ_READS", "SEQ_WRITES", "MEM_NOT_ALIGNED",
		"FILE_NOT_ALIGNED", "INDEP_READS", "INDEP_WRITES", "USE_MPIIO_COLLECTIVE",
		"BYTES_READ", "BYTES_WRITTEN", "F_READ_TIME", "F_WRITE_TIME",
		"F_META_TIME", "FASTEST_RANK_BYTES", "SLOWEST_RANK_BYTES",
		"F_FASTEST_RANK_TIME", "F_SLOWEST_RANK_TIME",
	};
	for (size_t k = 0; k < sizeof(all) / sizeof(*all); k++)
		*all[k] = -1;
	for (int k = 0; k < SIZE_BINS; k++)
		ef->size_read[k] = ef->size_write[k] = -1;
	for (int k = 0; k < 4; k++)
		ef->access[k] = ef->count[k] = -1;
	ef->m = m;
	ef->id = m->id;
	ef->nprocs = f->nprocs;
	ef->small_bytes = f->thr.small_bytes;
	ef->stragglers = f->thr.imbalance_stragglers;
	ef->stragglers_bytes = f->thr.imbalance_bytes_absolute;
	ef->stragglers_time = f->thr.imbalance_time_absolute;
	size_t plen = strlen(m->prefix);
	for (size_t i = 0; i < m->n_fields; i++) {
		const dfs_field *fd = &m->fields[i];
		const char *name = fd->name;
		size_t n = strlen(name);
		if (fd->type == DFS_T_F64 && is_duration(name, n) && ef->ntime < EV_TIMES)
			ef->time[ef->ntime++] = (int)i;
		else if (fd->type != DFS_T_F64 && ef->nsize < EV_SIZES &&
		         (ends_with(name, n, "_BYTES_READ") || ends_with(name, n, "_BYTES_WRITTEN") ||
		          ends_with(name, n, "_MAX_BYTE_READ") ||
		          ends_with(name, n, "_MAX_BYTE_WRITTEN") || ends_with(name, n, "_RANK_BYTES")))
			ef->size[ef->nsize++] = (int)i;
		if (strncmp(name, m->prefix, plen) != 0)
			continue;
		const char *c = name + plen;
		int b;
		if (strncmp(c, "SIZE_READ_", 10) == 0 && (b = bin_of(c + 10)) >= 0) {
			ef->size_read[b] = (int)i;
		} else if (strncmp(c, "SIZE_WRITE_", 11) == 0 && (b = bin_of(c + 11)) >= 0) {
			ef->size_write[b] = (int)i;
		} else if (strncmp(c, "ACCESS", 6) == 0 && c[6] >= '1' && c[6] <= '4' && c[7] == '_') {
			if (strcmp(c + 8, "ACCESS") == 0)
				ef->access[c[6] - '1'] = (int)i;
			else if (strcmp(c + 8, "COUNT") == 0)
				ef->count[c[6] - '1'] = (int)i;
		} else {
			for (size_t k = 0; k < sizeof(names) / sizeof(*names); k++)
				if (c[0] == names[k][0] && strcmp(c, names[k]) == 0) {
					*all[k] = (int)i;
					break;
				}
		}
	}
	ef->sizes = ef->size_read[0] >= 0 && ef->size_write[SIZE_BINS - 1] >= 0;
	/* the modules with small-request rules */
	ef->small = ef->sizes && (m->id == DFS_MOD_POSIX || m->id == DFS_MOD_H5D ||
	                          m->id == DFS_MOD_PNETCDF_VAR || m->id == DFS_MOD_DFS);
	double sb = ef->small_bytes;
	ef->nfull = 0;
	while (ef->nfull < SIZE_BINS && upper[ef->nfull] < sb)
		ef->nfull++;
	ef->straddle = ef->nfull < SIZE_BINS && lower[ef->nfull] < sb ? ef->nfull : -1;
	/* the tallies the rules of insights.c name this module's files by */
	unsigned sums = 0;
	if (ef->small)
		sums |= 1u << T_SMALL_R | 1u << T_SMALL_W | 1u << T_SHARED_SMALL_R |
		        1u << T_SHARED_SMALL_W;
	if (m->id == DFS_MOD_POSIX)
		sums |= 1u << T_MEM_NA | 1u << T_FILE_NA | 1u << T_RANDOM_R | 1u << T_RANDOM_W;
	if (ef->indep_reads >= 0)
		sums |= 1u << T_INDEP_R;
	if (ef->indep_writes >= 0)
		sums |= 1u << T_INDEP_W;
	if (ef->use_coll >= 0)
		sums |= 1u << T_INDEP_DS;
	if (m->id == DFS_MOD_STDIO)
		sums |= 1u << T_BYTES;
	for (int t = 0; t < TALLIES && ef->nsum < EV_SUMS; t++)
		if (sums >> t & 1) {
			ef->sum[ef->nsum++] = t;
			ef->sum_mask |= 1u << t;
		}
}

bool dfs_evidence_words(const struct ev_fields *ef, struct rec_words *w)
{
	int f[18 + 4 * SIZE_BINS + 8 + EV_TIMES + EV_SIZES];
	size_t n = 0;
	const int *one[] = {
		&ef->reads, &ef->writes, &ef->seq_reads, &ef->seq_writes, &ef->mem_na,
		&ef->file_na, &ef->indep_reads, &ef->indep_writes, &ef->use_coll,
		&ef->bytes_read, &ef->bytes_written, &ef->read_time, &ef->write_time,
		&ef->meta_time, &ef->fast_bytes, &ef->slow_bytes, &ef->fast_time, &ef->slow_time,
	};
	for (size_t k = 0; k < sizeof(one) / sizeof(*one); k++)
		f[n++] = *one[k];
	for (int k = 0; k < SIZE_BINS; k++) {
		f[n++] = ef->size_read[k];
		f[n++] = ef->size_write[k];
	}
	for (int k = 0; k < 4; k++) {
		f[n++] = ef->access[k];
		f[n++] = ef->count[k];
	}
	for (size_t k = 0; k < ef->ntime; k++)
		f[n++] = ef->time[k];
	for (size_t k = 0; k < ef->nsize; k++)
		f[n++] = ef->size[k];
	return dfs_rec_words_init(w, ef->m) && dfs_rec_words_cover(w, f, n);
}

/* ---- one record ----------------------------------------------------------------- */

struct tallies {
	double v[TALLIES];
	double small_lo_r, small_lo_w;
};

/* fmax and fmin of counts (finite, never -0: a call each is not needed) */
static inline double max_of(double a, double b)
{
	return a > b ? a : b;
}

static inline double min_of(double a, double b)
{
	return a < b ? a : b;
}

/* the small requests of one direction: x of this direction per bin, y
 * of the other; known large and known small requests of the bin that
 * holds small_bytes (both directions) */
static void small_of(const struct ev_fields *ef, const double *x, const double *y,
                     double big, double little, double *hi, double *lo)
{
	double full = 0;
	for (int k = 0; k < ef->nfull; k++)
		full += x[k];
	*hi = *lo = full;
	if (ef->straddle >= 0) {
		int s = ef->straddle;
		*hi += max_of(0, x[s] - max_of(0, big - y[s]));
		*lo += min_of(x[s], max_of(0, little - y[s]));
	}
}

/* the histograms of a record as stored (-1: not kept) */
static void read_bins(const struct ev_fields *ef, const unsigned char *rec, size_t len,
                      const struct rec_words *w, double *rr, double *rw)
{
	const dfs_module *m = ef->m;
	for (int k = 0; k < SIZE_BINS; k++) {
		rr[k] = RAW(ef->size_read[k]);
		rw[k] = RAW(ef->size_write[k]);
	}
}

/* The measures of a record that are in `need` (bits of TALLIES); rr, rw
 * its histograms as read_bins reads them (NULL: read here). */
static void record_tallies(const struct ev_fields *ef, const unsigned char *rec, size_t len,
                           const struct rec_words *w, int64_t rank, const double *rr,
                           const double *rw, unsigned need, struct tallies *t)
{
	const dfs_module *m = ef->m;
	memset(t, 0, sizeof(*t));
	const unsigned smalls = 1u << T_SMALL_R | 1u << T_SMALL_W | 1u << T_SHARED_SMALL_R |
	                        1u << T_SHARED_SMALL_W;
	if (ef->small && (need & smalls)) {
		double r[SIZE_BINS], wr[SIZE_BINS], own_r[SIZE_BINS], own_w[SIZE_BINS];
		if (!rr) {
			read_bins(ef, rec, len, w, own_r, own_w);
			rr = own_r;
			rw = own_w;
		}
		for (int k = 0; k < SIZE_BINS; k++) {
			r[k] = rr[k] > 0 && rr[k] < INFINITY ? rr[k] : 0;
			wr[k] = rw[k] > 0 && rw[k] < INFINITY ? rw[k] : 0;
		}
		double big = 0, little = 0;
		if (ef->straddle >= 0) {
			int s = ef->straddle;
			for (int a = 0; a < 4; a++) {
				double c = COUNT(ef->count[a]);
				double size = RAW(ef->access[a]);
				if (c > 0 && size >= lower[s] && size <= upper[s]) {
					if (size >= ef->small_bytes)
						big += c;
					else
						little += c;
				}
			}
		}
		small_of(ef, r, wr, big, little, &t->v[T_SMALL_R], &t->small_lo_r);
		small_of(ef, wr, r, big, little, &t->v[T_SMALL_W], &t->small_lo_w);
		if (rank < 0) {
			t->v[T_SHARED_SMALL_R] = t->v[T_SMALL_R];
			t->v[T_SHARED_SMALL_W] = t->v[T_SMALL_W];
		}
	}
	if (ef->id == DFS_MOD_POSIX) {
		if (need & 1u << T_MEM_NA)
			t->v[T_MEM_NA] = COUNT(ef->mem_na);
		if (need & 1u << T_FILE_NA)
			t->v[T_FILE_NA] = COUNT(ef->file_na);
		if (need & 1u << T_RANDOM_R)
			t->v[T_RANDOM_R] = max_of(0, COUNT(ef->reads) -
			                              COUNT(ef->seq_reads));
		if (need & 1u << T_RANDOM_W)
			t->v[T_RANDOM_W] = max_of(0, COUNT(ef->writes) -
			                              COUNT(ef->seq_writes));
	}
	if (need & 1u << T_INDEP_R)
		t->v[T_INDEP_R] = COUNT(ef->indep_reads);
	if (need & 1u << T_INDEP_W)
		t->v[T_INDEP_W] = COUNT(ef->indep_writes);
	if ((need & 1u << T_INDEP_DS) && ef->use_coll >= 0 &&
	    COUNT(ef->use_coll) <= 0)
		t->v[T_INDEP_DS] = COUNT(ef->reads) + COUNT(ef->writes);
	if (need & 1u << T_BYTES)
		t->v[T_BYTES] = COUNT(ef->bytes_read) +
		                COUNT(ef->bytes_written);
}

/* a counter of a record no run can have written (`first`: the first
 * such counter of the record, of this kind) */
static void q_add(struct io_facts *io, int kind, const unsigned char *rec, int64_t rank,
                  int field, double value, double bound, bool first)
{
	struct q_facts *q = &io->ev->q[kind];
	if (q->nex < Q_EXAMPLES)
		q->ex[q->nex++] = (struct q_example){dfs_facts_rec_id(rec), rank, field, value, bound};
	q->n += first;
}

static bool is_one_of(int f, int a, int b, int c, int d, int e)
{
	return f >= 0 && (f == a || f == b || f == c || f == d || f == e);
}

/* Bytes no request of the record can have moved: each request in bin k
 * carries at most upper[k] bytes (the histogram and the byte counter are
 * counted from the same size by every module that has both); known only
 * when the histogram counts requests, none of them in the last, open bin. */
static void check_bytes(const struct ev_fields *ef, struct io_facts *io,
                        const unsigned char *rec, size_t len, const struct rec_words *w,
                        int64_t rank, const double *rr, const double *rw)
{
	const dfs_module *m = ef->m;
	bool reported = false;
	for (int dir = 0; dir < 2; dir++) {
		const double *bins = dir ? rw : rr;
		int fb = dir ? ef->bytes_written : ef->bytes_read;
		if (fb < 0)
			continue;
		double bound = 0, requests = 0;
		bool known = true;
		for (int k = 0; k < SIZE_BINS && known; k++) {
			double c = bins[k];
			if (c < 0 || (k == SIZE_BINS - 1 && c > 0))
				known = false;
			else if (c > 0)
				bound += c * upper[k];
			requests += c;
		}
		/* (an empty histogram beside bytes may be one the module did not
		 * fill: nothing is proved) */
		known = known && requests > 0;
		double bytes = RAW(fb);
		if (known && bytes > bound)
			q_add(io, Q_BYTES, rec, rank, fb, bytes, bound, dir == 0 || !reported);
		reported |= known && bytes > bound;
	}
}

void dfs_evidence_record(const struct ev_fields *ef, struct io_facts *io,
                         const unsigned char *rec, size_t len, const struct rec_words *w,
                         bool again, double *sums)
{
	const dfs_module *m = ef->m;
	int64_t rank;
	memcpy(&rank, rec + 8, 8);
	uint64_t id = dfs_facts_rec_id(rec);
	struct evidence *ev = io->ev;
	double rr[SIZE_BINS], rw[SIZE_BINS];
	read_bins(ef, rec, len, w, rr, rw);
	ev->multi |= again;
	ev->multi_shared |= again && rank == -1;
	/* data problems; those of the straggler rule's counters keep the
	 * rule from judging the record by them */
	bool bad_time = false, bad_size = false, any = false;
	if (rank < -1 || rank >= ef->nprocs)
		q_add(io, Q_RANK, rec, rank, -1, (double)rank, 0, true);
	for (size_t k = 0; k < ef->ntime; k++) {
		int fk = ef->time[k];
		double v = RAW(fk);
		if (!(v >= 0 && v < INFINITY) && dfs_implausible_time(v)) {
			q_add(io, Q_TIME, rec, rank, fk, v, 0, !any);
			any = true;
			if (is_one_of(fk, ef->read_time, ef->write_time, ef->meta_time, ef->fast_time,
			              ef->slow_time)) {
				bad_time = true;
				io->ev->q[Q_TIME].spoils_stragglers |= rank == -1;
			}
		}
	}
	any = false;
	for (size_t k = 0; k < ef->nsize; k++) {
		int fk = ef->size[k];
		double v = RAW(fk);
		if (!(v >= 0 && v < INFINITY) && dfs_implausible_bytes(v, ef->nprocs)) {
			q_add(io, Q_SIZE, rec, rank, fk, v, 0, !any);
			any = true;
			if (is_one_of(fk, ef->bytes_read, ef->bytes_written, ef->fast_bytes,
			              ef->slow_bytes, -1)) {
				bad_size = true;
				io->ev->q[Q_SIZE].spoils_stragglers |= rank == -1;
			}
		}
	}
	if (ef->sizes)
		check_bytes(ef, io, rec, len, w, rank, rr, rw);
	/* the measures per file: of the small requests always (their sums are
	 * the rules'), those summed per file always, the others while the
	 * records are the files (once a file has several, their lists are
	 * made from the sums, or by a second pass) */
	const unsigned shared = 1u << T_SHARED_SMALL_R | 1u << T_SHARED_SMALL_W;
	const unsigned smalls = 1u << T_SMALL_R | 1u << T_SMALL_W | shared;
	unsigned need = smalls | (ev->multi ? ef->sum_mask : ~0u);
	struct tallies t;
	record_tallies(ef, rec, len, w, rank, rr, rw, need, &t);
	for (int k = 0; k < TALLIES; k++)
		if ((shared >> k & 1) ? !ev->multi_shared : !ev->multi)
			dfs_top_add(&ev->top[k], id, rank, t.v[k]);
	if (!sums) {
		ev->sums_lost |= ef->nsum > 0;
	} else if (!again) {
		for (size_t j = 0; j < ef->nsum; j++)
			sums[j] = t.v[ef->sum[j]];
	} else {
		for (size_t j = 0; j < ef->nsum; j++)
			sums[j] += t.v[ef->sum[j]];
	}
	io->small_reads += t.v[T_SMALL_R];
	io->small_writes += t.v[T_SMALL_W];
	io->shared_small_reads += t.v[T_SHARED_SMALL_R];
	io->shared_small_writes += t.v[T_SHARED_SMALL_W];
	ev->small_lo_r += t.small_lo_r;
	ev->small_lo_w += t.small_lo_w;
	if (rank < 0) {
		ev->shared_small_lo_r += t.small_lo_r;
		ev->shared_small_lo_w += t.small_lo_w;
	}
	if (ef->small && ef->id != DFS_MOD_POSIX) {
		/* (the requests of the layers above POSIX: their histograms' sums) */
		for (int k = 0; k < SIZE_BINS; k++) {
			ev->requests_r += rr[k] > 0 && rr[k] < INFINITY ? rr[k] : 0;
			ev->requests_w += rw[k] > 0 && rw[k] < INFINITY ? rw[k] : 0;
		}
	}
	double tr = COUNT(ef->read_time), tw = COUNT(ef->write_time),
	       tm = COUNT(ef->meta_time);
	if (!bad_time)
		dfs_top_add(&ev->top[T_TIME], id, rank, tr + tw + tm);
	/* a shared record whose fastest and slowest ranks are far apart in
	 * bytes or in time (of the inputs that are plausible), of a file
	 * with bytes or time enough to matter */
	if (rank == -1 && (ef->fast_bytes >= 0 || ef->fast_time >= 0)) {
		double share = 0;
		double br = COUNT(ef->bytes_read), bw = COUNT(ef->bytes_written);
		if (!bad_size && br + bw > 0 && br + bw > ef->stragglers_bytes)
			share = fabs(COUNT(ef->slow_bytes) -
			             COUNT(ef->fast_bytes)) / (br + bw);
		if (!bad_time && tr + tw + tm > 0 && tr + tw + tm > ef->stragglers_time) {
			double ts = fabs(COUNT(ef->slow_time) -
			                 COUNT(ef->fast_time)) / (tr + tw + tm);
			if (ts > share)
				share = ts;
		}
		if (share > ef->stragglers) {
			io->stragglers++;
			if (share > io->straggler_worst)
				io->straggler_worst = share;
			dfs_top_add(&ev->top[T_STRAGGLER], id, rank, share);
		}
	}
}

/* the id of file k of the sums */
static inline uint64_t sums_id(const struct ev_file_sums *sums, size_t k)
{
	return k < sums->nnames ? sums->names[k].id : sums->more_ids[k - sums->nnames];
}

/* The lists js[0..nj) (places in a file's sums) made of the sums of the
 * files met, in the order of their numbers. */
static void lists_walk(struct evidence *ev, const struct ev_fields *ef,
                       const struct ev_file_sums *sums, const size_t *js, size_t nj)
{
	for (size_t w = 0; w < (sums->n + 63) / 64; w++)
		for (uint64_t bits = sums->met[w]; bits; bits &= bits - 1) {
			size_t k = w * 64 + (size_t)__builtin_ctzll(bits);
			if (k >= sums->n)
				break;
			const double *row = &sums->v[k * sums->stride];
			for (size_t x = 0; x < nj; x++) {
				double v = row[js[x]];
				struct top_list *tl = &ev->top[ef->sum[js[x]]];
				if (!(v > 0))
					continue;
				if (tl->n == TOP_ABOUT && v < tl->it[0].v) {
					tl->count++;   /* (below the least kept: not kept) */
					continue;
				}
				dfs_top_add(tl, sums_id(sums, k), -1, v);
			}
		}
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang_analyzer__) && \
    !defined(DFS_NO_AVX512)
#include <immintrin.h>
/* The same, a file's sums compared at once with what each list keeps
 * (a file's sums are at most eight numbers): only a file that a list
 * keeps is offered to it; the others are counted.  The lists come out
 * the same: an offer below the least a full list keeps changes only its
 * count.  false: not done here (no AVX-512). */
__attribute__((target("avx512f")))
static bool walk_avx512(struct evidence *ev, const struct ev_fields *ef,
                        const struct ev_file_sums *sums, const size_t *js, size_t nj)
{
	__mmask8 lanes = (__mmask8)((1u << sums->stride) - 1), want = 0;
	double thr[8] = {0};
	struct top_list *tl[8] = {0};
	for (size_t x = 0; x < nj; x++) {
		want |= (__mmask8)(1u << js[x]);
		tl[js[x]] = &ev->top[ef->sum[js[x]]];
	}
	__m512d t = _mm512_loadu_pd(thr), zero = _mm512_setzero_pd();
	__m512i counted = _mm512_setzero_si512(), one = _mm512_set1_epi64(1);
	for (size_t w = 0; w < (sums->n + 63) / 64; w++)
		for (uint64_t bits = sums->met[w]; bits; bits &= bits - 1) {
			size_t k = w * 64 + (size_t)__builtin_ctzll(bits);
			if (k >= sums->n)
				break;
			__m512d v = _mm512_maskz_loadu_pd(lanes, &sums->v[k * sums->stride]);
			__mmask8 pos = _mm512_mask_cmp_pd_mask(want, v, zero, _CMP_GT_OQ);
			__mmask8 keep = _mm512_mask_cmp_pd_mask(pos, v, t, _CMP_GE_OQ);
			counted = _mm512_mask_add_epi64(counted, (__mmask8)(pos & ~keep), counted, one);
			if (!keep)
				continue;
			double vs[8];
			_mm512_storeu_pd(vs, v);
			for (unsigned m = keep; m; m &= m - 1) {
				int j = __builtin_ctz(m);
				dfs_top_add(tl[j], sums_id(sums, k), -1, vs[j]);
				thr[j] = tl[j]->n == TOP_ABOUT ? tl[j]->it[0].v : 0;
			}
			t = _mm512_loadu_pd(thr);
		}
	int64_t c[8];
	_mm512_storeu_si512((void *)c, counted);
	for (size_t x = 0; x < nj; x++)
		tl[js[x]]->count += (size_t)c[js[x]];
	return true;
}

static bool lists_walk_avx512(struct evidence *ev, const struct ev_fields *ef,
                              const struct ev_file_sums *sums, const size_t *js, size_t nj)
{
	if (sums->stride > 8 || !__builtin_cpu_supports("avx512f"))
		return false;
	return walk_avx512(ev, ef, sums, js, nj);
}
#else
static bool lists_walk_avx512(struct evidence *ev, const struct ev_fields *ef,
                              const struct ev_file_sums *sums, const size_t *js, size_t nj)
{
	(void)ev;
	(void)ef;
	(void)sums;
	(void)js;
	(void)nj;
	return false;
}
#endif

void dfs_evidence_lists(struct evidence *ev, const struct ev_fields *ef,
                        const struct ev_file_sums *sums)
{
	for (int k = 0; k < TOPS; k++)
		dfs_top_sort(&ev->top[k]);
	/* the records are the files where no file has two of them (of the
	 * shared tallies: two shared records) */
	const unsigned shared = 1u << T_SHARED_SMALL_R | 1u << T_SHARED_SMALL_W;
	ev->summed = (ev->multi ? 0 : ((1u << TALLIES) - 1) & ~shared) |
	             (ev->multi_shared ? 0 : shared);
	/* the others from the sums per file, when every record's are in
	 * (the same numbers, in the same order, as a second pass adds up:
	 * the lists are the same), in one walk over the files met */
	size_t js[EV_SUMS], nj = 0;
	for (size_t j = 0; sums && sums->v && !ev->sums_lost && j < ef->nsum; j++) {
		if (ev->summed >> ef->sum[j] & 1)
			continue;
		memset(&ev->top[ef->sum[j]], 0, sizeof(ev->top[0]));
		js[nj++] = j;
	}
	if (nj && !lists_walk_avx512(ev, ef, sums, js, nj))
		lists_walk(ev, ef, sums, js, nj);
	for (size_t x = 0; x < nj; x++) {
		dfs_top_sort(&ev->top[ef->sum[js[x]]]);
		ev->summed |= 1u << ef->sum[js[x]];
	}
}

void dfs_evidence_end(const struct facts *f, struct io_facts *io)
{
	double time = io->read_time + io->write_time + io->meta_time;
	io->ev->time_over_run = f->run_time > 0 && time > (double)f->nprocs * f->run_time;
}

/* ---- the sums per file ------------------------------------------------------- */

/* The sums of the files without a name (few): an open-addressing table. */
struct unnamed_sums {
	uint64_t *id;
	bool *used;
	double *v;          /* k per slot */
	size_t cap, n, k;
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

/* the k sums of file id (NULL without memory) */
static double *unnamed_of(struct unnamed_sums *u, uint64_t id)
{
	if (u->n * 2 >= u->cap) {
		size_t cap = u->cap ? u->cap * 2 : 64;
		uint64_t *ids = calloc(cap, sizeof(*ids));
		bool *used = calloc(cap, sizeof(*used));
		double *v = calloc(cap * u->k, sizeof(*v));
		if (!ids || !used || !v) {
			free(ids);
			free(used);
			free(v);
			return NULL;
		}
		for (size_t i = 0; i < u->cap; i++) {
			if (!u->used[i])
				continue;
			size_t j = (size_t)mix(u->id[i]) & (cap - 1);
			while (used[j])
				j = (j + 1) & (cap - 1);
			ids[j] = u->id[i];
			used[j] = true;
			memcpy(&v[j * u->k], &u->v[i * u->k], u->k * sizeof(*v));
		}
		free(u->id);
		free(u->used);
		free(u->v);
		u->id = ids;
		u->used = used;
		u->v = v;
		u->cap = cap;
	}
	size_t j = (size_t)mix(id) & (u->cap - 1);
	while (u->used[j] && u->id[j] != id)
		j = (j + 1) & (u->cap - 1);
	if (!u->used[j]) {
		u->used[j] = true;
		u->id[j] = id;
		u->n++;
	}
	return &u->v[j * u->k];
}

/* the 8-byte words of a packed record that the tallies of `mask` read (0
 * when a counter is not a word of its own: the record is then unpacked) */
static size_t tally_words(const struct ev_fields *ef, unsigned mask, uint16_t *words,
                          size_t max)
{
	int f[SIZE_BINS * 2 + 8 + 12];
	size_t n = 0;
	const unsigned smalls = 1u << T_SMALL_R | 1u << T_SMALL_W | 1u << T_SHARED_SMALL_R |
	                        1u << T_SHARED_SMALL_W;
	if (mask & smalls) {
		for (int k = 0; k < SIZE_BINS; k++) {
			f[n++] = ef->size_read[k];
			f[n++] = ef->size_write[k];
		}
		for (int k = 0; k < 4; k++) {
			f[n++] = ef->access[k];
			f[n++] = ef->count[k];
		}
	}
	if (mask & 1u << T_MEM_NA)
		f[n++] = ef->mem_na;
	if (mask & 1u << T_FILE_NA)
		f[n++] = ef->file_na;
	if (mask & (1u << T_RANDOM_R | 1u << T_INDEP_DS)) {
		f[n++] = ef->reads;
		f[n++] = ef->seq_reads;
	}
	if (mask & (1u << T_RANDOM_W | 1u << T_INDEP_DS)) {
		f[n++] = ef->writes;
		f[n++] = ef->seq_writes;
	}
	if (mask & 1u << T_INDEP_R)
		f[n++] = ef->indep_reads;
	if (mask & 1u << T_INDEP_W)
		f[n++] = ef->indep_writes;
	if (mask & 1u << T_INDEP_DS)
		f[n++] = ef->use_coll;
	if (mask & 1u << T_BYTES) {
		f[n++] = ef->bytes_read;
		f[n++] = ef->bytes_written;
	}
	size_t nw = 0;
	words[nw++] = 0;   /* the id */
	words[nw++] = 1;   /* the rank */
	for (size_t k = 0; k < n; k++) {
		if (f[k] < 0)
			continue;
		const dfs_field *fd = &ef->m->fields[f[k]];
		if ((fd->storage != DFS_S_I64 && fd->storage != DFS_S_F64) || fd->offset % 8 ||
		    nw == max)
			return 0;
		words[nw++] = (uint16_t)(fd->offset / 8);
	}
	return nw;
}

void dfs_evidence_sum_files(const struct facts *f, struct io_facts *io, unsigned mask)
{
	mask &= ~io->ev->summed;
	if (!mask)
		return;
	const dfs_summary_module *sm = &f->in->mod[io->id];
	if (!sm->records || sm->error)
		return;
	int which[TALLIES];
	size_t k = 0;
	for (int a = 0; a < TALLIES; a++)
		if (mask >> a & 1)
			which[k++] = a;
	/* the sums of the named files lie by their place in the name table */
	const dfs_log *log = f->in->log;
	size_t nn = dfs_log_name_count(log);
	const dfs_name *names = nn ? dfs_log_name_at(log, 0) : NULL;
	double *sum = nn ? calloc(nn * k, sizeof(*sum)) : NULL;
	struct unnamed_sums un = {.k = k};
	bool oom = nn && !sum;
	struct ev_fields ef;
	dfs_evidence_begin(&ef, f, io->m);
	dfs_name_hint hint = DFS_NAME_HINT_INIT;
	unsigned char scratch[DFS_RECORD_MAX];
	/* packed records: only the words the tallies read are unpacked */
	uint16_t words[64];
	size_t nw = sm->records->packed && !sm->records->offsets &&
	            io->m->record_size <= DFS_RECORD_MAX ? tally_words(&ef, mask, words, 64) : 0;
	if (nw)
		memset(scratch, 0, io->m->record_size);
	FOR_SELECTED(sm, n, i) {
		if (oom)
			break;
		const unsigned char *rec = scratch;
		if (nw)
			dfs_record_unpack_words(sm->records, i, words, nw, scratch);
		else
			rec = dfs_record_get(sm->records, i, scratch);
		size_t len = dfs_record_size(sm->records, i);
		int64_t rank;
		memcpy(&rank, rec + 8, 8);
		struct tallies tl;
		record_tallies(&ef, rec, len, NULL, rank, NULL, NULL, mask, &tl);
		bool any = false;
		for (size_t j = 0; j < k; j++)
			any |= tl.v[which[j]] > 0;
		if (!any)
			continue;
		uint64_t id = dfs_facts_rec_id(rec);
		size_t at = SIZE_MAX;
		if (names) {
			const dfs_name *nm = dfs_log_name_near(log, id, &hint);
			at = nm && (size_t)(nm - names) < nn ? (size_t)(nm - names) : SIZE_MAX;
		}
		double *s = at != SIZE_MAX ? &sum[at * k] : unnamed_of(&un, id);
		if (!s) {
			oom = true;
			break;
		}
		for (size_t j = 0; j < k; j++)
			s[j] += tl.v[which[j]];
	}
	if (!oom) {
		for (size_t j = 0; j < k; j++) {
			struct top_list *tl = &io->ev->top[which[j]];
			memset(tl, 0, sizeof(*tl));
			for (size_t x = 0; x < nn; x++)
				dfs_top_add(tl, names[x].id, -1, sum[x * k + j]);
			for (size_t x = 0; x < un.cap; x++)
				if (un.used[x])
					dfs_top_add(tl, un.id[x], -1, un.v[x * k + j]);
			dfs_top_sort(tl);
		}
		/* (the lists of the tallies not asked for still hold records) */
		io->ev->summed |= mask;
	}
	free(sum);
	free(un.id);
	free(un.used);
	free(un.v);
}
