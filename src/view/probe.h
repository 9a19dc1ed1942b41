/* probe.h - what tests and the mount's root attributes ask of a view
 * to see how it works, beyond the installed API (view.h). */
#ifndef DFS_VIEW_PROBE_H
#define DFS_VIEW_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include "darshanfs/view.h"

/* Number of logs fully decoded so far (tests check that listing parses
 * nothing). */
uint64_t dfs_view_decode_count(dfs_view *v);

/* Threads rendering batches ahead of readers that are started and have
 * not ended (waiting for work counts; they end after a while without). */
size_t dfs_view_render_threads(dfs_view *v);

#endif
