/* summary.h - a job at a glance: summary.html, its plots as SVG, and the
 * insights (problems found in the I/O of the job, with the numbers behind
 * them) of one decoded log for a selection of its records.
 *
 * The renderer knows nothing of the tree or of filters: it is handed the
 * decoded log, the records selected in each module and the derived metrics
 * of the modules that have them, and renders text.  Every plot aggregates
 * into a bounded number of bins (ranks, time, offsets), never one element
 * per record, so its size does not grow with the log. */
#ifndef DARSHANFS_SUMMARY_H
#define DARSHANFS_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "darshanfs/accum.h"
#include "darshanfs/buf.h"
#include "darshanfs/error.h"
#include "darshanfs/log.h"

/* The selection of one module. */
typedef struct dfs_summary_module {
	const dfs_records *records;      /* NULL: absent or unreadable */
	const size_t *index;             /* selected record indices (NULL: all) */
	size_t count;                    /* records selected */
	size_t total;                    /* records before filtering */
	const dfs_derived_metrics *dm;   /* NULL: no accumulator */
	bool partial;                    /* the module's data is incomplete */
	const char *error;               /* why the module is unusable, or NULL */
	char *const *warnings;           /* about the selection (derived_metrics') */
	size_t n_warnings;
} dfs_summary_module;

/* Thresholds of the insights, Drishti's defaults unless changed (see
 * dfs_insight_thresholds_parse for the file format). */
typedef struct dfs_insight_thresholds {
	double imbalance_operations;     /* read/write intensity: |r-w|/(r+w) */
	double small_bytes;              /* a request below this is small */
	double small_requests;           /* share of small requests */
	double small_requests_absolute;  /* and at least this many */
	double misaligned_requests;      /* share of misaligned requests */
	double metadata_time_rank;       /* seconds of metadata time on a rank */
	double random_operations;        /* share of random requests */
	double random_operations_absolute;
	double imbalance_stragglers;     /* shared file: (slowest-fastest)/total */
	double imbalance_size;           /* one file's ranks: (max-min)/max bytes */
	double interface_stdio;          /* STDIO's share of the bytes */
	double collective_operations;    /* share of independent MPI-IO requests */
	double collective_operations_absolute;
	double lustre_large_file;        /* bytes of a shared file on one stripe */
	double worst_rank_share;         /* worst rank's share of the I/O time */
	double worst_rank_time;          /* and at least this many seconds */
	double interface_stdio_absolute; /* STDIO's bytes, at least */
	double misaligned_requests_absolute;   /* misaligned requests, at least */
	double imbalance_bytes_absolute; /* bytes of a file judged for imbalance */
	double imbalance_time_absolute;  /* seconds of a shared file judged for
	                                  * its ranks' times */
} dfs_insight_thresholds;

void dfs_insight_thresholds_default(dfs_insight_thresholds *t);
/* The version of the rules: bump it whenever what a rule finds changes
 * for the same thresholds (findings kept in an index under another
 * version are made again). */
#define DFS_INSIGHT_RULES 3
/* Read "name = value" lines (# comments, blank lines; names as the fields
 * above; values may carry KiB MiB GiB suffixes) over *t; 0, or -1 with
 * err naming the line. */
int dfs_insight_thresholds_parse(dfs_insight_thresholds *t, const char *text,
                                 dfs_error *err);
/* The same from a file (at most 64 KiB); err names the file. */
int dfs_insight_thresholds_load(dfs_insight_thresholds *t, const char *path,
                                dfs_error *err);

/* What the names of a log's files give the page (the pattern each file
 * falls in, its top-level path, its mount point): the same whatever the
 * selection, so a caller that shows a log more than once keeps it with
 * the log (dfs_summary_input.names) and the later renders skip that
 * work.  Filled for every name by the first render that needs it; its
 * memory is mostly one 16-byte entry per name of the log. */
typedef struct dfs_summary_names dfs_summary_names;
/* NULL without memory */
dfs_summary_names *dfs_summary_names_new(const dfs_log *log);
size_t dfs_summary_names_memory(const dfs_summary_names *names);
void dfs_summary_names_free(dfs_summary_names *names);

typedef struct dfs_summary_input {
	const dfs_log *log;
	const char *title;                        /* the log's name */
	dfs_summary_module mod[DFS_MOD_SLOTS];
	const char *filters;                      /* lines: the filters in force */
	const dfs_insight_thresholds *thresholds; /* NULL: defaults */
	/* where the big temporary arrays of a render come from and go back
	 * to (util/scratch.h; NULL: allocated and freed each time) */
	struct dfs_scratch *scratch;
	/* kept between renders of this log (NULL: worked out for each);
	 * filled by the render: two renders must not share one at once */
	dfs_summary_names *names;
} dfs_summary_input;

/* The plots, each also a file LOG/summary/<name>.svg. */
enum dfs_summary_plot {
	DFS_PLOT_IO_COST, DFS_PLOT_OPERATIONS, DFS_PLOT_ACCESS_SIZES,
	DFS_PLOT_ACCESS_PATTERN, DFS_PLOT_MOUNTS, DFS_PLOT_RANKS,
	DFS_PLOT_TIMELINE,
	/* a heat map per layer of the HEATMAP module (else of DXT_POSIX and
	 * DXT_MPIIO), never summed across layers */
	DFS_PLOT_HEATMAP_POSIX, DFS_PLOT_HEATMAP_MPIIO, DFS_PLOT_HEATMAP_STDIO,
	DFS_PLOT_HEATMAP_DFS, DFS_PLOT_HEATMAP_DAOS,
	DFS_PLOT_DXT_OFFSETS, DFS_PLOT_DXT_DURATIONS, DFS_PLOT_LUSTRE,
	DFS_PLOT_APMPI,
	DFS_PLOTS
};

/* "io_cost", ... (the file is name + ".svg"); plot by that file name. */
const char *dfs_summary_plot_name(int plot);
int dfs_summary_plot_by_file(const char *file);

/* The whole page: self-contained HTML, plots inline, no script. */
int dfs_summary_html(const dfs_summary_input *in, dfs_buf *out, dfs_error *err);
/* One plot as a standalone SVG document. */
int dfs_summary_svg(const dfs_summary_input *in, int plot, dfs_buf *out,
                    dfs_error *err);

/* Everything of a log at once, from one pass over its records: the page,
 * every plot (svg[plot]), insights.txt and insights.csv (with header). */
int dfs_summary_render_all(const dfs_summary_input *in, dfs_buf *html,
                           dfs_buf svg[DFS_PLOTS], dfs_buf *txt, dfs_buf *csv,
                           dfs_error *err);

/* The files of the selection that have DXT segments (DXT_POSIX or
 * DXT_MPIIO), each with a plot of its own, LOG/summary/dxt/<id>.svg:
 * their record ids, ascending, in *ids (malloc'd, NULL when none). */
int dfs_summary_dxt_files(const dfs_summary_input *in, uint64_t **ids, size_t *n,
                          dfs_error *err);
/* That plot of file `id`: its selected segments' offsets against time
 * (POSIX and MPI-IO apart, reads and writes), their durations and their
 * numbers; binned like the others.  DFS_ERR_NOENT when the selection has
 * no segment of the file. */
int dfs_summary_dxt_file_svg(const dfs_summary_input *in, uint64_t id, dfs_buf *out,
                             dfs_error *err);

/* The insights: one finding per paragraph (txt) or one CSV row per
 * finding with the header
 *   code,level,module,message,value,threshold,count,total,files,ranks,advice
 * (`log` prepended, with its value, when `log` is not NULL; files and
 * ranks are JSON arrays, "[]" when the finding names none: see
 * docs/insights.md).  DFS_INSIGHTS_EMPTY_TAIL is what follows the message
 * in a row of a finding without numbers (a log that cannot be read),
 * DFS_INSIGHTS_HEADER the header after `log,`. */
#define DFS_INSIGHTS_EMPTY_TAIL ",,,,,[],[],\n"
#define DFS_INSIGHTS_HEADER \
	"code,level,module,message,value,threshold,count,total,files,ranks,advice\n"
int dfs_insights_text(const dfs_summary_input *in, dfs_buf *out, dfs_error *err);
int dfs_insights_csv(const dfs_summary_input *in, const char *log, bool header,
                     dfs_buf *out, dfs_error *err);

/* Plausibility: what no run of Darshan can have measured (the checks of
 * the data-quality findings and of the directory summaries, in one place).
 * A time counter is implausible when it is not finite or negative (by a
 * nanosecond or more, the finest a Darshan timer resolves; -1 is Darshan's
 * "not kept"); a byte counter when it is below -nprocs (-1
 * "not kept", which older runtimes summed over the ranks of a shared
 * record). */
bool dfs_implausible_time(double seconds);
bool dfs_implausible_bytes(double bytes, int64_t nprocs);

/* The numbers of one module of a job (a row of jobs.csv, a log's derived
 * metrics): the bytes it moved, its I/O time and performance by the
 * slowest rank.  What of them cannot be true: bytes negative or not
 * finite; the time negative, not finite, or above nprocs x run_time (when
 * both are known, > 0); the performance negative or not finite, or made of
 * such a time.  0 when all are plausible. */
enum { DFS_DOUBT_BYTES = 1, DFS_DOUBT_TIME = 2, DFS_DOUBT_PERF = 4 };
typedef struct dfs_job_numbers {
	int64_t nprocs;
	double run_time;
	double bytes, time, perf;
} dfs_job_numbers;
unsigned dfs_job_numbers_doubts(const dfs_job_numbers *n);
/* One sentence saying what of *n is implausible and why, in buf
 * (returned; "" when nothing is). */
const char *dfs_job_numbers_why(const dfs_job_numbers *n, char *buf, size_t len);

/* summary.html of a directory, from the text of its modules.csv (the
 * columns docs/directory-tables.md gives for it): jobs over time, bytes and
 * performance per job, top jobs by bytes and by I/O time, totals per
 * module. */
int dfs_summary_dir_html(const char *title, const char *modules_csv, size_t len,
                         dfs_buf *out, dfs_error *err);

/* The I/O of a job, from its module rows offered one by one in their
 * order (rows that have numbers): its POSIX+STDIO row, else the row of
 * its other modules with the most bytes (the last of equals), as
 * summary.html of a directory and jobs.csv count it (MPI-IO goes through
 * POSIX: rows are never summed).  Start from {0}. */
typedef struct dfs_job_io {
	double bytes, time, perf;
	int row;                    /* the row taken, when `any` */
	bool any;
	bool combined;              /* it is the POSIX+STDIO row */
} dfs_job_io;
void dfs_job_io_offer(dfs_job_io *io, int row, const char *module, double bytes,
                      double time, double perf);

#endif
