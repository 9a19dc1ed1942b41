/* summary_int.h - what the summary renderer learns from a selection of a
 * log (facts.c), and the SVG and text helpers the page, the plots and the
 * insights share. */
#ifndef DFS_SUMMARY_INT_H
#define DFS_SUMMARY_INT_H

#include <stdint.h>
#include <string.h>

#include "darshanfs/summary.h"

#define RANK_BINS 128      /* rows or columns of a per-rank plot */
#define TIME_BINS 160      /* columns of a time axis */
#define OFF_BINS 64        /* rows of the DXT offset axis */
#define DUR_BINS 24        /* request duration bins (log scale) */
#define TOP_FILES 15
#define SIZE_BINS 10
#define MAX_OPS 32
#define TRACED_FILES 4     /* files of the DXT plot shown on their own */
#define FILE_OFF_BINS 24

#define DXT_LISTED 100   /* traced files the page links to by name */
#define TITLE_CHARS 84   /* of a plot's title (13 px bold) across its width */

struct dxt_listed {
	uint64_t id;
	double requests, extent;
};

/* One ranked file pattern (digit runs collapsed to '*', identifiers
 * such as UUIDs to a word in angle brackets), and the file of the
 * pattern with the most bytes. */
struct top_file {
	char name[128];
	double bytes, time;
	uint64_t files;
	uint64_t key;                   /* of the pattern */
	uint64_t big_id;                /* the file with the most bytes */
	double big_bytes;
};

/* ---- evidence.c: what the insights learn of each record -------------------- */

/* The files (or records, or ranks) a finding names, the largest first. */
#define TOP_ABOUT 20

/* Per-record measures summed per file, so that a finding can name the
 * files behind it; then lists kept per record (never summed). */
enum {
	T_SMALL_R, T_SMALL_W, T_SHARED_SMALL_R, T_SHARED_SMALL_W, T_MEM_NA, T_FILE_NA,
	T_RANDOM_R, T_RANDOM_W, T_INDEP_R, T_INDEP_W, T_INDEP_DS, T_BYTES,
	TALLIES,
	T_TIME = TALLIES,        /* the records with the most I/O time */
	T_STRAGGLER,             /* shared records by their ranks' imbalance */
	TOPS
};

struct top_item {
	uint64_t id;
	int64_t rank;
	double v;
};

struct top_list {
	struct top_item it[TOP_ABOUT];   /* a min-heap while gathering */
	size_t n;
	size_t count;                    /* items offered (> 0), kept or not */
	bool sorted;                     /* largest first */
};

/* The data problems (data-quality findings): how many records show
 * each, and the first few of them. */
enum { Q_TIME, Q_SIZE, Q_RANK, Q_BYTES, Q_KINDS };
#define Q_EXAMPLES 5

struct q_example {
	uint64_t id;
	int64_t rank;
	int field;          /* the counter (an index of the module's fields) */
	double value;
	double bound;       /* Q_BYTES: what the requests can carry */
};

struct q_facts {
	size_t n;                        /* records */
	size_t nex;
	struct q_example ex[Q_EXAMPLES]; /* of the first records */
	bool spoils_stragglers;          /* a counter of the straggler rule */
};

struct evidence {
	/* small requests: the lower bounds (io_facts holds the upper ones:
	 * the requests not known to be at least small_bytes) */
	double small_lo_r, small_lo_w, shared_small_lo_r, shared_small_lo_w;
	/* the request counts the small rules compare with (the histograms'
	 * sums where the module has no READS/WRITES counters) */
	double requests_r, requests_w;
	struct top_list top[TOPS];
	bool multi;          /* a file has several records (the lists are then
	                      * made of the sums per file) */
	bool multi_shared;   /* so has a shared (rank -1) record's file */
	bool sums_lost;      /* a record's file had no sums (no memory): the
	                      * lists it sums are made by a second pass */
	unsigned summed;     /* bit t: top[t] holds files, summed */
	struct q_facts q[Q_KINDS];
	bool time_over_run;  /* its I/O time is above nprocs x run time */
	struct top_list meta_top;        /* the ranks with the most metadata time */
	struct top_list imbalanced_top;  /* the files of P_SIZE_IMBALANCE */
};

/* The counters of one module the evidence reads (field indices, -1 when
 * the module has none), found once per module. */
#define EV_TIMES 8
#define EV_SIZES 8
#define EV_SUMS 8    /* tallies summed per file as the records are read */
struct ev_fields {
	const dfs_module *m;
	int id;
	int size_read[SIZE_BINS], size_write[SIZE_BINS], access[4], count[4];
	bool sizes, small;   /* has the histograms; the small rules apply */
	int nfull, straddle; /* bins below small_bytes; the bin holding it (-1) */
	int reads, writes, seq_reads, seq_writes, mem_na, file_na;
	int indep_reads, indep_writes, use_coll;
	int bytes_read, bytes_written, read_time, write_time, meta_time;
	int fast_bytes, slow_bytes, fast_time, slow_time;
	int time[EV_TIMES], size[EV_SIZES];   /* checked for plausibility */
	size_t ntime, nsize;
	int64_t nprocs;
	double small_bytes, stragglers;
	double stragglers_bytes, stragglers_time;   /* the floors of the rule */
	/* the tallies a finding may name the module's files by, summed per
	 * file during the pass (sum[j] is the j-th number of a file's sums) */
	int sum[EV_SUMS];
	size_t nsum;
	unsigned sum_mask;
};

/* The per-file sums of a module's pass, for dfs_evidence_end: file k's
 * sums at v[k * stride], for the files whose bit is set in `met`; the
 * files below nnames are names[k], the others more_ids[k - nnames]. */
struct ev_file_sums {
	const double *v;
	size_t stride, n;
	const uint64_t *met;
	const dfs_name *names;
	size_t nnames;
	const uint64_t *more_ids;
};

/* One file shown by name, ranked by its sums over the records of the
 * page's modules (POSIX and STDIO, or the others without POSIX), shown
 * as a row per module it has records in, each with what makes its
 * performance (Darshan's accumulator fed with that module's records of
 * the file, like PyDarshan's file_stats: the slowest rank's time of its
 * own records plus the slowest time of its shared records). */
#define NAMED_PARTS 3
struct named_part {
	int mod;
	double bytes_read, bytes_written, time;
	double ranks;                   /* records of ranks >= 0, nprocs if shared */
	double slow_unique, slow_shared;
	bool shared;
};
struct named_file {
	uint64_t id;
	size_t no;                      /* its number (names first) */
	double bytes, time;             /* read + written, seconds summed */
	struct named_part part[NAMED_PARTS];
	size_t nparts;
	uint32_t head;                  /* its last record in facts.chain (1 +) */
};

/* One rank of a top-ranks table. */
struct top_rank {
	int64_t rank;
	double bytes, time;
};
#define TOP_RANKS 10

/* The HEATMAP module's layers (its records are named heatmap:<layer>). */
#define HEAT_LAYERS 5
struct heat_layer {
	double (*read)[TIME_BINS], (*write)[TIME_BINS];  /* rank_bins rows each */
	double bytes_read, bytes_written;
	size_t records;
};
extern const char *const dfs_heat_layer_names[HEAT_LAYERS];

/* What one I/O module (POSIX, MPI-IO, STDIO, ...) did in the selection. */
struct io_facts {
	int id;
	const dfs_module *m;
	size_t records;
	double bytes_read, bytes_written;
	double read_time, write_time, meta_time;        /* sums over records */
	double slow_read, slow_write, slow_meta;        /* of the slowest rank */
	int64_t slow_rank;
	size_t nops;
	const char *op_name[MAX_OPS];
	double ops[MAX_OPS];
	bool has_sizes;
	double size_read[SIZE_BINS], size_write[SIZE_BINS];
	double common_size[4], common_count[4];
	size_t ncommon;
	/* POSIX: access pattern and alignment */
	double reads, writes, seq_reads, seq_writes, consec_reads, consec_writes;
	double mem_not_aligned, file_not_aligned;
	/* requests not known to be at least small_bytes (of the shared
	 * records, rank -1: shared_small_*) */
	double small_reads, small_writes;
	double shared_reads, shared_writes, shared_small_reads, shared_small_writes;
	double indep_reads, indep_writes, coll_reads, coll_writes, nb_reads, nb_writes;
	/* ranks with more metadata time than the threshold, and the worst */
	size_t meta_ranks;
	double meta_worst;
	/* shared files whose ranks differ in bytes or time (stragglers) */
	size_t stragglers, shared_files;
	double straggler_worst;
	/* files whose ranks moved very different amounts (non-shared) */
	size_t size_imbalanced;
	double size_imbalance_worst;
	/* H5D: datasets accessed, those without MPI-IO collective I/O and
	 * their accesses; H5F: files opened with the MPI-IO driver */
	size_t datasets, indep_datasets, mpiio_files;
	double indep_dataset_ops;
	/* what the insights learn of each record (evidence.c; one of
	 * facts.evidence) */
	struct evidence *ev;
};

#define IO_MODULES 9
#define MAX_MOUNTS 63     /* mount points shown (and a row of the unknown) */

struct mount_facts {
	const char *path, *type;
	double bytes;
	uint64_t files;
};

struct facts {
	const dfs_summary_input *in;
	const dfs_job *job;
	int64_t nprocs;
	double run_time;
	dfs_insight_thresholds thr;
	struct io_facts io[IO_MODULES];
	size_t nio;
	struct evidence *evidence;      /* nio of them */
	/* per rank bin: POSIX+STDIO bytes and I/O time (rank bin k holds
	 * ranks [k*rank_step, (k+1)*rank_step)) */
	size_t rank_bins;
	double rank_step;
	double rank_bytes[RANK_BINS], rank_time[RANK_BINS];
	double rank_bytes_max[RANK_BINS], rank_time_max[RANK_BINS];
	double rank_recs[RANK_BINS];      /* records selected in the bin */
	size_t ranks_seen;
	double worst_rank_time;         /* of its own records */
	int64_t worst_rank;
	/* the insights' share of the worst rank: every rank's own time and
	 * an even share of the shared records' (shared_rank_time) */
	double total_rank_time, shared_rank_time;
	struct top_list rank_top;
	/* timeline: per rank bin, first open and last close; read and write
	 * intervals; row RANK_BINS is the shared records (rank -1) */
	double tl_open[RANK_BINS + 1], tl_close[RANK_BINS + 1];
	double tl_rs[RANK_BINS + 1], tl_re[RANK_BINS + 1];
	double tl_ws[RANK_BINS + 1], tl_we[RANK_BINS + 1];
	double tl_end;
	/* heat maps: bytes per (rank bin, time bin) of each layer, allocated
	 * only for the layers a log has (a facts struct is made per file
	 * rendered: it stays small) */
	bool heat_from_dxt, has_heat;
	double heat_span;
	size_t heat_cols;      /* columns of the heat maps (<= TIME_BINS): from
	                        * HEATMAP records, whole groups of their bins;
	                        * TIME_BINS from DXT */
	struct heat_layer heat[HEAT_LAYERS];
	/* DXT */
	bool has_dxt;
	double dxt_span, dxt_max_off;
	double (*dxt_read)[TIME_BINS], (*dxt_write)[TIME_BINS];   /* OFF_BINS rows */
	double dur_read[DUR_BINS], dur_write[DUR_BINS];
	/* the files with the most traced requests, each with its own grid
	 * (FILE_OFF_BINS rows of requests, reads and writes together) */
	size_t ntraced;
	uint64_t traced_id[TRACED_FILES];
	double traced_count[TRACED_FILES], traced_max_off[TRACED_FILES];
	double (*traced)[FILE_OFF_BINS][TIME_BINS];
	size_t dxt_hosts;
	/* every traced file has its plot (summary/dxt/ID.svg): how many, and
	 * those with the most requests, most first, for the page's table */
	size_t dxt_files_total, ndxt_files;
	struct dxt_listed *dxt_files;
	/* mounts and top-level paths */
	struct mount_facts mount[MAX_MOUNTS + 1];
	size_t nmounts;
	struct mount_facts top[16];
	char top_name[16][64];
	size_t ntop;
	/* top files */
	struct top_file by_bytes[TOP_FILES], by_time[TOP_FILES];
	size_t nby_bytes, nby_time;
	bool patterns_shared;  /* some pattern (of all, not only those shown) holds two files */
	/* Lustre */
	bool has_lustre;
	size_t lustre_files, osts_used;
	size_t lustre_unmet;   /* files with a LUSTRE record and none of the page's
	                        * modules: no size (the sum of files - sized) */
	double stripe_files[9], stripe_bytes[9];   /* stripe count 1,2,4..128,more */
	double stripe_sized[9];   /* of those files, the ones whose size is known */
	size_t single_stripe_large;
	double single_stripe_largest;
	struct top_list single_stripe_top;
	/* APMPI */
	bool has_apmpi;
	double comm_time[RANK_BINS], comm_time_max[RANK_BINS];
	size_t apmpi_hosts;
	/* the findings, worked out by the first dfs_findings call */
	struct finding *findings;
	size_t nfindings;
	bool judged;
	/* the files with the most bytes and the most time, by name */
	struct named_file named_bytes[TOP_FILES], named_time[TOP_FILES];
	size_t nnamed_bytes, nnamed_time;
	size_t files_seen;     /* the files of the page's modules */
	/* the ranks with the most time and the most bytes (POSIX and
	 * STDIO), and the shared records' (rank -1) sums */
	struct top_rank rank_by_time[TOP_RANKS], rank_by_bytes[TOP_RANKS];
	size_t nrank_by_time, nrank_by_bytes;
	double shared_bytes, shared_time;
	/* while the facts are gathered: the records of the page's modules in
	 * the order met (the selections of the modules of io[] that
	 * dfs_facts_page_module takes, one after the other), each with the
	 * number (1 +) of the previous record of its file, 0 for its first */
	const uint32_t *chain;
	size_t chain_n;
};

/* iterate over the selection of a module: k counts, i is the record */
#define FOR_SELECTED(sm, k, i) \
	for (size_t k = 0, i = 0; k < (sm)->count && \
	     ((i = (sm)->index ? (sm)->index[k] : k), 1); k++)

/* the record id every record starts with */
static inline uint64_t dfs_facts_rec_id(const unsigned char *rec)
{
	uint64_t id;
	memcpy(&id, rec, 8);
	return id;
}

/* words.c: a record's 8-byte words as numbers (an integer converted,
 * or a double; cnt: those above 0 and finite, the others 0, as a count
 * is read), and their sums over records (each word's in record order) */
struct rec_words {
	const dfs_module *m;
	size_t nw;                                   /* words of a record; 0: none */
	uint64_t f64[DFS_RECORD_MAX / 8 / 64 + 1];   /* bit per word: a double */
	double raw[DFS_RECORD_MAX / 8];
	double cnt[DFS_RECORD_MAX / 8];
};
struct word_sums {
	double sum[DFS_RECORD_MAX / 8];
};
/* false when the module's records are not made of words */
bool dfs_rec_words_init(struct rec_words *rw, const dfs_module *m);
/* are the fields (-1: none) all words stored as integers or doubles,
 * field f being word f? */
bool dfs_rec_words_cover(const struct rec_words *rw, const int *fields, size_t n);
/* the words of a record (of rw->m, unpacked) */
void dfs_rec_words_read(struct rec_words *rw, const unsigned char *rec);
/* record i of r (of rw->m) read so, its counts added to ws (NULL: not
 * summed); where the record starts: of a packed one only its id and rank
 * are there (in scratch), its counters are rw's */
struct word_sums;
const unsigned char *dfs_rec_words_get(struct rec_words *rw, const dfs_records *r, size_t i,
                                       unsigned char *scratch, struct word_sums *ws);
/* field f (covered; -1: none) of the record read, as stored or as a count */
static inline double dfs_rec_raw(const struct rec_words *rw, int f)
{
	return f < 0 ? 0 : rw->raw[f];
}
static inline double dfs_rec_count(const struct rec_words *rw, int f)
{
	return f < 0 ? 0 : rw->cnt[f];
}
/* the counts of the record read added to the sums (zeroed at first) */
void dfs_word_sums_add(struct word_sums *ws, const struct rec_words *rw);

/* facts.c: learn everything in one pass per module, or (page false) only
 * what the insights need (no names, patterns, mount points, heat maps or
 * DXT densities); NULL without memory */
struct facts *dfs_facts_new(const dfs_summary_input *in, bool page);
void dfs_facts_free(struct facts *f);
struct io_facts *dfs_facts_io(struct facts *f, int id);
/* the rank a per-rank bin starts at */
int64_t dfs_facts_bin_rank(const struct facts *f, size_t bin);
/* field f (an index of m's fields) of row `row` of a record, as a number
 * (0 when it is text) */
double dfs_facts_value(const dfs_module *m, const unsigned char *rec, size_t len,
                       size_t row, int f);

/* evidence.c */
void dfs_evidence_begin(struct ev_fields *ef, const struct facts *f, const dfs_module *m);
/* can the module's records be given to dfs_evidence_record as words (w
 * set up)? */
bool dfs_evidence_words(const struct ev_fields *ef, struct rec_words *w);
/* a record of the module; w: its words read (NULL: its counters are read
 * from rec; see dfs_evidence_words); `again`: its file was met before in
 * it; sums: its file's ef->nsum sums (set when
 * `again` is false, added to otherwise; NULL: not kept, the lists are
 * then summed by a second pass) */
void dfs_evidence_record(const struct ev_fields *ef, struct io_facts *io,
                         const unsigned char *rec, size_t len, const struct rec_words *w,
                         bool again, double *sums);
/* once every record is in: the lists sorted, those of files made from
 * the sums (NULL: none were kept); then, once the module's sums are
 * made too, the end */
void dfs_evidence_lists(struct evidence *ev, const struct ev_fields *ef,
                        const struct ev_file_sums *sums);
void dfs_evidence_end(const struct facts *f, struct io_facts *io);
/* make top[t] of every tally t of `mask` a list of files, summed over
 * their records (a second pass when a file has several records) */
void dfs_evidence_sum_files(const struct facts *f, struct io_facts *io, unsigned mask);
/* lists: add an item (kept when among the TOP_ABOUT largest), sort */
void dfs_top_add(struct top_list *t, uint64_t id, int64_t rank, double v);
void dfs_top_sort(struct top_list *t);
/* named.c: the details of the files shown by name, from their records
 * (found through facts.chain) */
void dfs_facts_named_detail(struct facts *f);
/* the modules whose files the page shows (POSIX and STDIO, or all the
 * I/O modules but MPI-IO, H5D and PNETCDF_VAR without POSIX) */
bool dfs_facts_page_module(const dfs_summary_input *in, int id);

/* insights.c: the findings of a selection, most severe first */
enum about_kind { ABOUT_NONE, ABOUT_FILES, ABOUT_RANKS, ABOUT_RECORDS };
struct about {
	uint64_t id;         /* the record's id (files, records) */
	int64_t rank;        /* ranks; the record's rank */
	double value;        /* what the finding counts, of this one */
	double share;        /* of the finding's count; < 0: none */
	const char *counter; /* records: the counter at fault */
	double bound;        /* records: what the counter could be at most */
};
struct finding {
	const char *code, *level;
	char module[16];
	char message[480];
	double value, threshold, count, total;
	/* what it is about, the largest first, and the others */
	enum about_kind kind;
	const char *unit;    /* of `value` of an about: "reads", "s", ... */
	size_t nabout;
	struct about about[TOP_ABOUT];
	size_t rest_n;       /* files, records or ranks not named */
	double rest_value;
};
#define MAX_FINDINGS 48
/* the findings of f (worked out once, kept in f); their number */
size_t dfs_findings(const struct facts *f, const struct finding **out);
/* line i of the files, records or ranks of fd (i == nabout: the others) */
void dfs_about_line(const struct facts *f, const struct finding *fd, size_t i, dfs_buf *out);
/* "/lus/.../out.dat" or "(record 1234)": the name of a record's file */
const char *dfs_about_name(const struct facts *f, uint64_t id, char *buf, size_t len);

/* advice.c: what to do about a finding, for the job's modules */
typedef void (*dfs_advice_fn)(void *ctx, const char *text);
/* each recommendation (text; `code` between backquotes) in order */
void dfs_advice(const struct facts *f, const struct finding *fd, dfs_advice_fn fn,
                void *ctx);
/* the short form of insights.csv's advice column ("" when none) */
const char *dfs_advice_short(const char *code);
/* insights.txt and insights.csv of facts already gathered */
void dfs_insights_text_of(const struct facts *f, dfs_buf *out);
void dfs_insights_csv_of(const struct facts *f, const char *log, bool header,
                         dfs_buf *out);

/* svg.c */
void dfs_xml_text(dfs_buf *out, const char *s, size_t len);
void dfs_xml_str(dfs_buf *out, const char *s);
void dfs_human_bytes(char *buf, size_t n, double bytes);
void dfs_human_num(char *buf, size_t n, double v);
/* the label of duration bin b (two a decade from 1 us: "< 1 us",
 * "3.16-10 ms", ">= 3.16e+04 s" for the last) */
void dfs_duration_label(char *buf, size_t n, int b);

struct series {
	const char *name;
	const char *color;
	const double *v;
};
/* horizontal bars, one group per label, one bar per series */
void dfs_svg_bars(dfs_buf *out, const char *title, const char *const *labels,
                  size_t n, const struct series *s, size_t ns, bool bytes);
/* vertical columns over bins of an axis (ranks, time) */
void dfs_svg_columns(dfs_buf *out, const char *title, const char *xlabel,
                     double x0, double x1, size_t n, const struct series *s,
                     size_t ns, bool bytes);
/* the same with labels under the axis, evenly from x0 to x1 (at least
 * two: else as dfs_svg_columns) */
void dfs_svg_columns_ticks(dfs_buf *out, const char *title, const char *xlabel,
                           double x0, double x1, const char *const *ticks, size_t nticks,
                           size_t n, const struct series *s, size_t ns, bool bytes);
/* A grid of cells shaded by value (a log scale, with a colour bar):
 * rank bins against time (heat maps), offsets against time (DXT). */
struct grid {
	const char *title, *xlabel, *ylabel;
	double x0, x1;                 /* the columns span [x0, x1] */
	size_t rows, cols;
	size_t stride;                 /* cells of a row in the arrays (0: cols) */
	const double *cells[2];        /* rows x cols, row-major; [1] NULL: one layer */
	const char *color[2], *name[2];
	bool sum;                      /* two layers shaded together, one colour */
	/* rows: the rank bins of `ranks` top-down, or [y0, y1] bottom-up */
	const struct facts *ranks;
	double y0, y1;
	bool y_bytes;
	bool bytes;                    /* the values are bytes (else counts of unit) */
	const char *unit, *scale;      /* "requests"; the colour bar's label */
	bool tooltips;                 /* each cell's exact value as its <title> */
	size_t budget;                 /* cells drawn at most (bins merged to fit) */
};
void dfs_svg_grid(dfs_buf *out, const struct grid *g);
/* s (len bytes) cut to at most max characters: its start, "...", its end */
void dfs_svg_fit(char *buf, size_t n, const char *s, size_t len, size_t max);
/* lanes: per row, intervals [a, b) of several kinds */
void dfs_svg_lanes(dfs_buf *out, const char *title, const struct facts *f);
/* an empty plot that says why */
void dfs_svg_empty(dfs_buf *out, const char *title, const char *why);

#endif
