/* log.h - an opened Darshan log: header, job, mount table, names, and the
 * decoded records of every module.
 *
 * dfs_log_open() reads and decodes the whole log (every supported format
 * version 3.00 .. 3.41, either byte order, zlib, bzip2 or uncompressed
 * regions) into memory and closes the file.  The result is immutable and
 * may be read from many threads at once. */
#ifndef DARSHANFS_LOG_H
#define DARSHANFS_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "darshanfs/error.h"
#include "darshanfs/module.h"

enum dfs_compression {
	DFS_COMP_ZLIB = 0,
	DFS_COMP_BZIP2 = 1,
	DFS_COMP_NONE = 2,
};

typedef struct dfs_region {
	uint64_t off;
	uint64_t len;
} dfs_region;

typedef struct dfs_log_header {
	char version[9];          /* as stored: "3.41", "3.00", ... */
	int major, minor;
	size_t header_size;       /* 1328 or 360 */
	bool swapped;             /* big-endian log read on a little-endian host */
	int comp_type;            /* enum dfs_compression, other = unknown */
	uint64_t partial_flag;    /* as upstream reads it (not swapped) */
	dfs_region job;           /* derived */
	dfs_region names;
	dfs_region mods[DFS_MOD_SLOTS];  /* in current module numbering */
	uint32_t mod_ver[DFS_MOD_SLOTS];
} dfs_log_header;

typedef struct dfs_job {
	int64_t uid;
	int64_t start_sec, start_nsec;
	int64_t end_sec, end_nsec;
	int64_t nprocs;
	int64_t jobid;
	double run_time;          /* as darshan-parser computes it */
	char *metadata;           /* "key=value\n..." text */
	char *exe;                /* command line ("" if the text had no '\n') */
} dfs_job;


/* The state of one module of a log. */
typedef struct dfs_log_module {
	const dfs_module *module;   /* NULL for ids we have no decoder for */
	bool present;               /* region len > 0 */
	bool partial;               /* incomplete data flag */
	dfs_status status;          /* DFS_OK, or why decoding failed */
	char *error;                /* message when status != DFS_OK */
	dfs_records records;
} dfs_log_module;

typedef struct dfs_log dfs_log;

enum dfs_log_flags {
	DFS_LOG_HEADER_ONLY = 1, /* header, job and names; no module records */
};

/* Open and decode a log file.  `err` names the file and the problem. */
dfs_log *dfs_log_open(const char *path, unsigned flags, dfs_error *err);
/* Something to do with the records of a log while it decodes, on the
 * core that would otherwise wait (the records.csv row lengths, say).
 * `records` is called with runs of the records of each module held
 * packed: `run` holds run->count records of module run->module (read
 * them with dfs_record_get; valid during the call),
 * record k being the module's record first + k; together the runs are
 * the module's records once each.  The runs are shown on a helper
 * thread while the main one inflates, and on the main one too when the
 * helper falls behind: at most two runs at once, oldest first (so they
 * may finish out of order), except that a run with first == 0 (a module
 * starts, or is read again) is shown alone, after every run before it.
 * It may look at the log's names and mounts, nothing else.  It is called
 * only when the log is big enough (`min_bytes` of such compressed
 * records) and a helper thread runs, and may miss runs when memory is
 * short: whoever uses what it saw checks that it saw every record. */
typedef struct dfs_log_observer {
	void (*records)(void *ctx, const dfs_log *log, const dfs_records *run,
	                size_t first);
	void *ctx;
	uint64_t min_bytes;
} dfs_log_observer;

/* dfs_log_open with an observer (NULL: none). */
dfs_log *dfs_log_open_observed(const char *path, unsigned flags,
                               const dfs_log_observer *obs, dfs_error *err);
/* The same, naming the file `label` in errors and in dfs_log_label (a
 * path relative to a directory the user knows, say). */
dfs_log *dfs_log_open_as(const char *path, const char *label, unsigned flags,
                         const dfs_log_observer *obs, dfs_error *err);
/* Same from a buffer (the buffer is not kept); `label` names it in errors. */
dfs_log *dfs_log_open_mem(const void *data, size_t len, const char *label,
                          unsigned flags, dfs_error *err);
/* Drop a reference; the last one frees the log. */
void dfs_log_free(const dfs_log *log);
/* Another reference, for a reader that may outlive its opener's (a file
 * rendered on demand); dropped with dfs_log_free. */
const dfs_log *dfs_log_ref(const dfs_log *log);

/* Read and check only the header of a log file (region map, versions,
 * partial flags): cheap, no decompression.  Used to list a log directory
 * without decoding the log. */
int dfs_log_peek(const char *path, dfs_log_header *hdr, dfs_error *err);
/* The same, naming the file `label` in errors. */
int dfs_log_peek_as(const char *path, const char *label, dfs_log_header *hdr,
                    dfs_error *err);
/* dfs_log_open_as and dfs_log_peek_as of the file open at fd (the
 * caller's: left open; read with pread, its offset unused), for a caller
 * that must know which file it decodes (fstat of the same descriptor)
 * whatever happens to the path meanwhile. */
dfs_log *dfs_log_open_fd(int fd, const char *label, unsigned flags,
                         const dfs_log_observer *obs, dfs_error *err);
int dfs_log_peek_fd(int fd, const char *label, dfs_log_header *hdr, dfs_error *err);

const dfs_log_header *dfs_log_get_header(const dfs_log *log);
const dfs_job *dfs_log_job(const dfs_log *log);
uint64_t dfs_log_file_size(const dfs_log *log);
/* What the file holds on disk: its size, or less when it is sparse
 * (dfs_stored_size of its stat). */
uint64_t dfs_log_stored_size(const dfs_log *log);
struct stat;
uint64_t dfs_stored_size(const struct stat *st);
/* The most a log that holds `stored` bytes on disk may inflate to, all
 * its regions together (more is a decompression bomb: the region that
 * passes it is refused with DFS_ERR_TOOBIG). */
size_t dfs_log_inflate_limit(uint64_t stored);

/* Mount table sorted as darshan-parser sorts it (longest path first,
 * stable). */
size_t dfs_log_mount_count(const dfs_log *log);
const dfs_mount *dfs_log_mount(const dfs_log *log, size_t i);
/* Index of the mount that darshan-parser assigns to a path, -1 if none. */
int dfs_log_mount_for(const dfs_log *log, const char *path, size_t len);

/* Name table, one entry per distinct id in first-seen order. */
size_t dfs_log_name_count(const dfs_log *log);
const dfs_name *dfs_log_name_at(const dfs_log *log, size_t i);
const dfs_name *dfs_log_name(const dfs_log *log, uint64_t id);

/* Module slot 0..63.  Never NULL for a valid id. */
const dfs_log_module *dfs_log_get_module(const dfs_log *log, int id);
/* Records of a module, NULL if absent or undecodable. */
const dfs_records *dfs_log_records(const dfs_log *log, int id);
/* The LUSTRE record of a file (the last one in the log with this record
 * id, the one darshan-dxt-parser takes), or NULL. */
const unsigned char *dfs_log_lustre_record(const dfs_log *log, uint64_t id,
                                           size_t *len);

/* Bytes of memory held by the decoded log (for cache budgets), an index
 * built when first asked for included from then on. */
size_t dfs_log_memory(const dfs_log *log);

/* Fill the place columns for a record of module `m` (file name, mount
 * point, fs type as darshan-parser prints them). */
/* The log's tables as module callbacks see them (module.h) */
const dfs_names *dfs_log_names(const dfs_log *log);
void dfs_log_record_place(const dfs_log *log, const dfs_module *m,
                          const unsigned char *rec, dfs_record_place *out);

#endif
