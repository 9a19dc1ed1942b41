/* writer_int.h - what the parts of the writer share (internal). */
#ifndef DFS_WRITER_INT_H
#define DFS_WRITER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "darshanfs/error.h"
#include "darshanfs/module.h"

#define DFS_DXT_FIXED 104           /* DXT record before its segments */
#define DFS_DXT_SEG 40              /* current segment, with a thread id */
#define DFS_DXT_SEG_SHORT 32        /* segment of older versions */
#define DFS_DXT_NO_THREAD UINT64_MAX /* the reader's "no thread id" */

/* For the DXT modules: the newest version stored with 32-byte segments
 * (DXT_POSIX 1, DXT_MPIIO 2; DXT_MPIIO 1 is avoided because readers replace
 * its offsets with -1).  0 for every other module. */
uint32_t dfs_writer_short_dxt_version(int id);

/* Modules whose first record is a header told apart by position only
 * (APMPI): it is written whenever any other record of the module is. */
bool dfs_writer_has_header_record(int id);

/* A set of record ids (ids.c; open addressing, 0 kept aside). */
struct dfs_id_set {
	uint64_t *slot;
	size_t mask;
	bool zero;
};

/* Room for about `expected` ids; 0 or -1 (out of memory). */
int dfs_id_set_init(struct dfs_id_set *s, size_t expected, dfs_error *err);
void dfs_id_set_free(struct dfs_id_set *s);
void dfs_id_set_add(struct dfs_id_set *s, uint64_t id);
bool dfs_id_set_has(const struct dfs_id_set *s, uint64_t id);
/* Add the record ids of records index[0..count) of module `id` (index
 * NULL: records 0..count) and the ids they refer to (POSIX_RENAMED_FROM,
 * H5D_FILE_REC_ID, PNETCDF_VAR_FILE_REC_ID when non-zero). */
void dfs_id_set_add_records(struct dfs_id_set *set, const dfs_records *r,
                            const size_t *index, size_t count, int id);

#endif
