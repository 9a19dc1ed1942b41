/* hints.h - inside the core: hints for loops that look names up by
 * record id (lazy.c renders records.csv so, a filter scan reads file
 * names so), and what a CSV table needs to know of a name.  Not part of
 * the API. */
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
/* Where a loop's last lookup ended, and which of its last 32 found
 * their name next to the one before: records mostly come in the order
 * of the name table, and a lookup that guesses so skips the hash table.
 * One a loop (a thread's own, never shared), DFS_NAME_HINT_INIT first. */
typedef struct dfs_name_hint {
	const dfs_log *log;
	size_t at;
	uint32_t missed;    /* bit i: the lookup i lookups ago missed */
} dfs_name_hint;
#define DFS_NAME_HINT_INIT {NULL, 0, 0}

/* dfs_log_name and dfs_log_record_place, guessing from and updating `h`
 * (NULL: no guess). */
const dfs_name *dfs_log_name_near(const dfs_log *log, uint64_t id,
                                  dfs_name_hint *h);
void dfs_log_record_place_near(const dfs_log *log, const dfs_module *m,
                               const unsigned char *rec, dfs_name_hint *h,
                               dfs_record_place *out);
/* True when the last 32 lookups with `h` found their name next to the
 * one before (records in the order of the name table): the prefetches
 * would then only cost time. */
bool dfs_name_hint_in_order(const dfs_name_hint *h);

/* Is name i of the table (dfs_log_name_at) written in a CSV field as it
 * is, without quotes (dfs_csv_plain)?  Known since the table was read:
 * a table of every file's name (files.csv) measures its rows without
 * scanning each name again. */
bool dfs_log_name_plain(const dfs_log *log, size_t i);

#endif
