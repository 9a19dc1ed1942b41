/* hints.h - inside the core: prefetch hints for loops that look names up
 * by record id (lazy.c renders records.csv so).  Not part of the API. */
#ifndef DFS_LOG_HINTS_H
#define DFS_LOG_HINTS_H

#include <stdbool.h>
#include <stdint.h>

#include "darshanfs/log.h"

/* Hints that dfs_log_name(id) comes soon, for loops over many records
 * whose lookups miss the cache.  Each stage reads only what the one
 * before fetched: call with stage 0 some records ahead (fetches the table
 * slot), stage 1 a few records later (the entry the slot points to),
 * stage 2 a few more later (the name). */
void dfs_log_name_prefetch(const dfs_log *log, uint64_t id, int stage);
/* True when this thread's last 32 lookups found their name next to the
 * one before (records in the order of the name table): the prefetches
 * would then only cost time. */
bool dfs_log_names_in_order(void);

#endif
