/* fuzz_common.h - what the fuzz targets share: a small, real-looking log
 * built once in memory with the writer, and the full rendering of a log
 * (every text the views produce from a decoded log). */
#ifndef DFS_FUZZ_COMMON_H
#define DFS_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "darshanfs/log.h"

/* The synthetic log (POSIX, MPI-IO, STDIO, DXT_POSIX from dfs_synth_write,
 * plus a few DFS records), built and opened on the first call; aborts if
 * that fails (a broken fuzz set-up must not look like a clean run). */
const dfs_log *fuzz_synth_log(void);

/* Render everything a decoded log offers: darshan-parser's text (all
 * parts), header.txt, mounts.csv, names.csv, every module's records.csv,
 * and for modules with an accumulator the derived metrics, --total lines
 * and JSON (plus the combined POSIX+STDIO metrics).  Returns the number
 * of bytes produced (so the work cannot be optimised away). */
size_t fuzz_render_log(const dfs_log *log);

#endif
