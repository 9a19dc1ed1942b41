/* writer.h - writing Darshan logs: format 3.41, host byte order (little-
 * endian on x86_64), one zlib or bzip2 stream per region; and exports of
 * a selection of a log in that log's own format (dfs_log_export, below:
 * the filesystem's filtered.darshan).
 *
 * A dfs_log_writer is a destination (a file descriptor or a dfs_buf) plus
 * compression options.  It is driven either by one call that writes a whole
 * log (dfs_log_write, dfs_log_write_selection) or step by step, which lets a
 * producer stream records it never holds in memory at once:
 *
 *   dfs_log_writer_job      job struct, exe and mount table (first)
 *   dfs_log_writer_name     name-table entries (any number, before modules)
 *   dfs_log_writer_module_begin / _record / _data / _end
 *                           one region per module, in ascending module id
 *   dfs_log_writer_finish   closes the last region and writes the header
 *
 * Layout written (what darshan-util's reader requires, format doc §1.7,
 * §1.9): the 1328-byte header, the job region right after it, the name
 * region, then the module regions in ascending id, with no gaps.  The name
 * map always points just past the job region (length 0 when there are no
 * names) so the job region length can be derived.  A module that is begun
 * and ended without data still gets a region (an empty stream, length > 0):
 * readers see it as present with no records.
 *
 * Compression: zlib regions are one zlib stream each, produced in 1 MiB
 * blocks that are deflated in parallel (each block primed with the 32 KiB
 * before it, pigz-style) and joined into a single stream; the bytes do not
 * depend on the number of threads.  Memory stays bounded: at most a few
 * blocks are in flight, and a regular-file destination receives compressed
 * bytes as they are produced (the header is written last, at the start).
 * Any other fd (a pipe, a socket, a file in append mode) gets the whole log
 * from one in-memory compressed copy at finish.  bzip2 regions (block size
 * 9, work factor 30, as darshan-convert) are compressed in the calling
 * thread.
 *
 * Every function returns 0 (or a pointer) on success and -1 (NULL) with
 * `err` set on failure.  Refused input (a step out of order, a record of
 * the wrong size, a malformed mount entry: DFS_ERR_INVAL) leaves the writer
 * usable; after a failure to compress or write, it refuses every step.
 * Offsets in the header are relative to where the log starts (the fd's
 * offset, or the dfs_buf's length, when the writer was created). */
#ifndef DARSHANFS_WRITER_H
#define DARSHANFS_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "darshanfs/buf.h"
#include "darshanfs/error.h"
#include "darshanfs/log.h"
#include "darshanfs/module.h"

typedef struct dfs_write_options {
	int comp_type;   /* DFS_COMP_ZLIB (0, default) or DFS_COMP_BZIP2 */
	int level;       /* zlib level 1..9; 0 = zlib's default (6) */
	int threads;     /* compression threads: 0 = one per CPU (at most 4),
	                    1 = compress in the calling thread */
} dfs_write_options;

typedef struct dfs_log_writer dfs_log_writer;

/* A writer onto `fd` (not closed by the writer) or appending to `out`.
 * `opt` NULL means the defaults (zlib, level 6, automatic threads). */
dfs_log_writer *dfs_log_writer_fd(int fd, const dfs_write_options *opt,
                                  dfs_error *err);
dfs_log_writer *dfs_log_writer_buf(dfs_buf *out, const dfs_write_options *opt,
                                   dfs_error *err);
void dfs_log_writer_free(dfs_log_writer *w);

/* ---- step by step ------------------------------------------------------ */

/* The job region.  `job->run_time` is ignored.  `metadata` keeps at most
 * 1024 bytes (no trailing newline is added).  `mounts` are written in the
 * order given, which is the order a reader lists them when they are
 * already sorted longest path first (dfs_log_mount's order: reading back
 * gives the same table).  Mount types and paths must be non-empty and free
 * of blanks; `exe` must not contain a newline.  If exe and mounts exceed
 * the 3015 bytes of text a reader accepts, the exe is shortened to end in
 * "<TRUNCATED>" (as the runtime does); mounts that alone exceed it are an
 * error (DFS_ERR_TOOBIG).  Note (format quirk): readers report an empty exe
 * for a log without mount entries. */
int dfs_log_writer_job(dfs_log_writer *w, const dfs_job *job,
                       const dfs_mount *mounts, size_t nmounts,
                       dfs_error *err);

/* One name-table entry: `len` bytes of `name` (written up to its first NUL
 * byte, if it holds one). */
int dfs_log_writer_name(dfs_log_writer *w, uint64_t id, const char *name,
                        size_t len, dfs_error *err);

/* Start the region of module `id` (greater than any module written so far)
 * stored at record version `version` (0: the module's current version). */
int dfs_log_writer_module_begin(dfs_log_writer *w, int id, uint32_t version,
                                dfs_error *err);

/* One record in the module's current layout, host order (what the reader
 * produces), converted to the version given to module_begin: the current
 * version, or for DXT_POSIX v1 / DXT_MPIIO v2 the 32-byte segments without
 * thread ids.  In a current-version DXT record a segment thread id of
 * UINT64_MAX (the reader's "none") is written as 0. */
int dfs_log_writer_record(dfs_log_writer *w, const void *rec, size_t len,
                          dfs_error *err);

/* Raw region bytes, already in the stored layout of the begun version. */
int dfs_log_writer_module_data(dfs_log_writer *w, const void *data,
                               size_t len, dfs_error *err);

int dfs_log_writer_module_end(dfs_log_writer *w, dfs_error *err);

/* Close any open region and write the header with `partial_flag` (bit i:
 * module i incomplete).  The log is complete once this returns 0. */
int dfs_log_writer_finish(dfs_log_writer *w, uint64_t partial_flag,
                          dfs_error *err);

/* Compressed bytes written so far (the whole log after finish). */
uint64_t dfs_log_writer_size(const dfs_log_writer *w);

/* ---- whole logs -------------------------------------------------------- */

/* Everything a log holds, as the reader returns it. */
typedef struct dfs_log_desc {
	const dfs_job *job;
	const dfs_mount *mounts;   /* in reader order (longest path first) */
	size_t nmounts;
	const dfs_name *names;     /* written in this order */
	size_t nnames;
	/* per module slot: NULL = absent; otherwise its records (count 0:
	 * present without records).  records->module must be set. */
	const dfs_records *modules[DFS_MOD_SLOTS];
	uint64_t partial_flag;
} dfs_log_desc;

/* Write a whole log and finish the writer.  Every module is stored at its
 * current version, except DXT modules whose segments all lack a thread id
 * (records read from DXT_POSIX v1 / DXT_MPIIO v1-v2 logs): those are stored
 * as DXT_POSIX v1 / DXT_MPIIO v2 with 32-byte segments, so reading the
 * result back gives byte-identical records. */
int dfs_log_write(dfs_log_writer *w, const dfs_log_desc *desc, dfs_error *err);

/* Which records of each module dfs_log_write_selection writes. */
enum dfs_select_mode {
	DFS_SELECT_ALL = 0,  /* every record (the zero value) */
	DFS_SELECT_NONE,     /* the module is left out of the log */
	DFS_SELECT_INDEX,    /* the records at index[0..count) */
	DFS_SELECT_FN,       /* the records for which select() returns true */
};

typedef struct dfs_write_selection {
	struct {
		enum dfs_select_mode mode;
		const size_t *index;   /* DFS_SELECT_INDEX: record indices, in the
		                          order to write them (ascending keeps the
		                          log's order) */
		size_t count;
		/* records to select from instead of the log's (e.g. rows
		 * imported from a CSV); NULL: the log's own */
		const dfs_records *records;
	} module[DFS_MOD_SLOTS];
	bool (*select)(void *ctx, const dfs_module *m, size_t index,
	               const unsigned char *rec, size_t len);
	void *ctx;
} dfs_write_selection;

/* Write a log holding `log`'s job, exe, metadata, mount table and partial
 * flags (copied as they are, also for modules left out), and for each
 * module the selected records (`sel` NULL: all of them), then finish the
 * writer.  Modules are written as dfs_log_write writes them.
 *
 * - A module with no decoded records in `log` (absent, failed to decode,
 *   or a module darshanfs has no decoder for, e.g. APXC) is not written.
 * - A module whose selection is empty is still written, present with no
 *   records; DFS_SELECT_NONE leaves it out.
 * - APMPI: its first record is the header record and is told apart from
 *   the others by position only, so it is written whenever any other APMPI
 *   record is.
 * - Names: when every module is DFS_SELECT_ALL the whole name table is
 *   copied (the log round-trips, including names no record uses).
 *   Otherwise the names written are those of the record ids of the
 *   selected records plus the ids they refer to: H5D_FILE_REC_ID,
 *   PNETCDF_VAR_FILE_REC_ID and POSIX_RENAMED_FROM (when non-zero), in the
 *   log's name-table order.
 * - Index out of range: DFS_ERR_INVAL. */
int dfs_log_write_selection(dfs_log_writer *w, const dfs_log *log,
                            const dfs_write_selection *sel, dfs_error *err);

/* ---- exports: a selection of a log in the log's own format ------------- */

/* What dfs_log_export does with one module slot. */
typedef struct dfs_export_module {
	/* false: the region is copied as it is, compressed bytes and all
	 * (also when darshanfs cannot decode it) */
	bool filtered;
	/* filtered: the records to keep, indices into `rows` (or the log's
	 * records when `rows` is NULL), in the order to write them; index
	 * NULL keeps all of them */
	const size_t *index;
	size_t count;
	const dfs_records *rows;  /* rows imported from a CSV, or NULL */
} dfs_export_module;

typedef struct dfs_export {
	/* "key=value\n" lines added to the job's metadata (NULL or "": none) */
	const char *metadata;
	dfs_export_module module[DFS_MOD_SLOTS];
	int threads;              /* as in dfs_write_options */
} dfs_export;

/* Append to `out` the log `log` (opened from `path`, which is read again
 * for its bytes) minus the records `x` leaves out, in the source's own
 * format: its format version, byte order, compression and module
 * versions; header padding, partial flags and the job struct as stored.
 *
 * - The job region is copied, its metadata extended by x->metadata (the
 *   metadata keeps a terminating NUL within its 1024 bytes: when the lines
 *   do not fit, the longest are cut to end in "...", as little as lets
 *   every line in; when not even "key=..." of every line fits,
 *   DFS_ERR_TOOBIG).
 * - A module not filtered is copied byte for byte.  A filtered one is
 *   written anew from the stored bytes of the records kept (the bytes as
 *   written, whatever their version and byte order); APMPI keeps its header
 *   record whenever it keeps another.  A filtered module that failed to
 *   decode is an error (its status, naming it): the log would silently
 *   lose its records.  Rows given instead of the log's (imported from a
 *   CSV) have no stored bytes: they are written at the module's current
 *   version (the header says so for that module) in the log's byte order;
 *   DXT rows without thread ids in a log of 32-byte segments keep them
 *   (DXT_POSIX v1 / DXT_MPIIO v2).  Refused (DFS_ERR_UNSUPPORTED): other
 *   variable-size modules stored at an older version or in the other byte
 *   order, and DFS/DAOS (uuids) in the other byte order.
 * - A filtered module left with no record is an empty stream (present,
 *   no records); in an uncompressed log it has length 0 (absent).
 * - Names: copied as they are when no module is filtered; otherwise the
 *   entries of the ids that only left-out records use are dropped (entries
 *   no decoded record uses stay: modules copied undecoded may use them).
 * - The file must still be the one `log` was read from (same size and
 *   region map), else DFS_ERR_IO. */
int dfs_log_export(const dfs_log *log, const char *path, const dfs_export *x,
                   dfs_buf *out, dfs_error *err);

/* ---- synthetic logs (darshanfs-gen, tests, benchmarks) ----------------- */

/* What dfs_synth_write generates.  Every value is a pure function of the
 * options (the same options give the same bytes). */
typedef struct dfs_synth_options {
	uint64_t seed;
	size_t records;        /* POSIX and STDIO records; MPI-IO gets one per
	                          MPI-IO file among them, DXT_POSIX one per
	                          per-rank POSIX record with I/O */
	uint64_t modules;      /* bit (1 << id) for POSIX, MPI-IO, STDIO,
	                          DXT_POSIX; 0 = POSIX, MPI-IO and STDIO */
	int64_t nprocs;        /* >= 1 */
	/* job identity; dfs_synth_defaults fills the unset (0 / NULL) ones
	 * from the seed */
	int64_t start_time;    /* Unix seconds */
	int64_t jobid;
	const char *user;      /* a short word: part of paths and file names */
	const char *app;       /* application name (a short word) */
} dfs_synth_options;

/* Modules dfs_synth_write can generate (a mask as in `modules`). */
#define DFS_SYNTH_MODULES ((1ULL << DFS_MOD_POSIX) | (1ULL << DFS_MOD_MPIIO) | \
                           (1ULL << DFS_MOD_STDIO) | (1ULL << DFS_MOD_DXT_POSIX))

void dfs_synth_defaults(dfs_synth_options *o);

/* Generate a log into `w` and finish it.  Records are produced in batches
 * and streamed to the writer: memory use is about 8 bytes per record (the
 * record ids of the names) plus the writer's buffers. */
int dfs_synth_write(dfs_log_writer *w, const dfs_synth_options *o,
                    dfs_error *err);

#endif
