/* files_pack.h - a log's files (files_ranks.h: what a directory's
 * files.csv sums of it) as bytes a store keeps, and back.
 *
 * The bytes hold every entry in its order and every module left out,
 * with the numbers exact (integers as varints, doubles as their bits):
 * the files read back merge into the same table, byte for byte, as those
 * they were made of. */
#ifndef DARSHANFS_SUMMARY_FILES_PACK_H
#define DARSHANFS_SUMMARY_FILES_PACK_H

#include <stddef.h>

#include "darshanfs/buf.h"
#include "summary/files_ranks.h"

/* The version of the packing: bump it when the bytes, or what an entry
 * means, change (a store keeps it beside them, and reads only its own). */
#define DFS_FILES_PACK_VERSION 1

/* The files appended to out (check dfs_buf_ok). */
void dfs_log_files_pack(const dfs_log_files *lf, dfs_buf *out);
/* The files of bytes made by dfs_log_files_pack; NULL when they are not
 * such bytes (cut, damaged) or memory runs out. */
dfs_log_files *dfs_log_files_unpack(const void *data, size_t len);

#endif
