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
#define MAX_OPS 20
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
	double small_reads, small_writes;               /* below 1 MiB */
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
	/* per rank bin: POSIX+STDIO bytes and I/O time (rank bin k holds
	 * ranks [k*rank_step, (k+1)*rank_step)) */
	size_t rank_bins;
	double rank_step;
	double rank_bytes[RANK_BINS], rank_time[RANK_BINS];
	double rank_bytes_max[RANK_BINS], rank_time_max[RANK_BINS];
	double rank_recs[RANK_BINS];      /* records selected in the bin */
	size_t ranks_seen;
	double worst_rank_time, total_rank_time;
	int64_t worst_rank;
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
	/* Lustre */
	bool has_lustre;
	size_t lustre_files, osts_used;
	double stripe_files[9], stripe_bytes[9];   /* stripe count 1,2,4..128,more */
	size_t single_stripe_large;
	double single_stripe_largest;
	/* APMPI */
	bool has_apmpi;
	double comm_time[RANK_BINS], comm_time_max[RANK_BINS];
	size_t apmpi_hosts;
	int64_t cb_nodes;      /* from the job's hints, -1 when unknown */
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

/* named.c: the details of the files shown by name, from their records
 * (found through facts.chain) */
void dfs_facts_named_detail(struct facts *f);
/* the modules whose files the page shows (POSIX and STDIO, or all the
 * I/O modules but MPI-IO, H5D and PNETCDF_VAR without POSIX) */
bool dfs_facts_page_module(const dfs_summary_input *in, int id);

/* insights.c: the findings of a selection, most severe first */
struct finding {
	const char *code, *level;
	char module[16];
	char message[400];
	double value, threshold, count, total;
};
#define MAX_FINDINGS 48
size_t dfs_findings(const struct facts *f, struct finding *out, size_t max);
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
