/* writer_int.h - what the parts of the writer share (internal). */
#ifndef DFS_WRITER_INT_H
#define DFS_WRITER_INT_H

#include <stdint.h>

#define DFS_DXT_FIXED 104           /* DXT record before its segments */
#define DFS_DXT_SEG 40              /* current segment, with a thread id */
#define DFS_DXT_SEG_SHORT 32        /* segment of older versions */
#define DFS_DXT_NO_THREAD UINT64_MAX /* the reader's "no thread id" */

/* For the DXT modules: the newest version stored with 32-byte segments
 * (DXT_POSIX 1, DXT_MPIIO 2; DXT_MPIIO 1 is avoided because readers replace
 * its offsets with -1).  0 for every other module. */
uint32_t dfs_writer_short_dxt_version(int id);

#endif
