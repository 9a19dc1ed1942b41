/* shared.h - access to the shared logs and reference outputs for tests.
 *
 * The directory comes from $DFS_SHARED (set by meson to ../shared).  When
 * it is missing, tests that need it skip with a message. */
#ifndef DFS_TEST_SHARED_H
#define DFS_TEST_SHARED_H

#include <stdbool.h>
#include <stddef.h>

#include "darshanfs/buf.h"
#include "darshanfs/log.h"

/* Directory of the shared material, or NULL (with a message on stderr). */
const char *shared_dir(void);

/* Sorted list of the log file names in shared/darshan-logs (NULL
 * terminated, free with shared_free_list); NULL when absent. */
char **shared_logs(size_t *count);
void shared_free_list(char **list);

/* DFS_TEST_QUICK=1: the sanitizer pass, which cuts what the normal pass
 * checks whole. */
bool shared_quick(void);

/* With DFS_TEST_QUICK=1 (the sanitizer pass; the normal pass checks every
 * log): true for a log at PATH that is one more rank of a job already in
 * the set, so that loops over the shared logs may leave it out: a log of
 * more than 256 KiB named STEM_N.darshan, N > 0, beside STEM_0.darshan
 * (the five 700 KiB worker_N logs are over half the set's bytes). */
bool shared_quick_skip(const char *path);

/* Full path of a shared log (malloc'd). */
char *shared_log_path(const char *name);

/* Every record of every module of every shared log, in order: fn gets the
 * log, its file name, the module, the record (unpacked) with its size and
 * its index in the module.  Returns 1 when done (*logs and *records
 * counted), 0 when the shared logs are absent, -1 when one does not open
 * (said on stderr). */
typedef void (*shared_record_fn)(void *ctx, const dfs_log *log, const char *name,
                                 const dfs_module *m, const unsigned char *rec,
                                 size_t len, size_t index);
int shared_each_record(shared_record_fn fn, void *ctx, size_t *logs,
                       size_t *records);

/* Read oracle/parser/<log>/<file> (also <file>.gz); NULL if absent.
 * *len gets the size. */
char *oracle_read(const char *log, const char *file, size_t *len);

/* The sha256 of bytes as 64 hex chars, and the expected sha256 of an
 * oracle output listed in oracle/parser/OUTPUTS.tsv (NULL if unknown). */
void sha256_hex(const void *data, size_t len, char out[65]);
char *oracle_sha256(const char *log, const char *file);

/* Whole file into memory; NULL if unreadable. */
char *read_file(const char *path, size_t *len);

/* A log writer into `out` with a small job (uid 1, jobid 7, 4 ranks) and
 * one mount, /scratch on lustre, written: a test adds names and module
 * records.  NULL (err set) on failure. */
struct dfs_log_writer;
struct dfs_log_writer *test_log_writer(dfs_buf *out, dfs_error *err);

#endif
