/* report.h - text exactly as darshan-parser prints it for a log. */
#ifndef DARSHANFS_REPORT_H
#define DARSHANFS_REPORT_H

#include "darshanfs/buf.h"
#include "darshanfs/log.h"

enum dfs_report_parts {
	DFS_REPORT_BASE = 1,   /* --base */
	DFS_REPORT_TOTAL = 2,  /* --total */
	DFS_REPORT_PERF = 4,   /* --perf */
	DFS_REPORT_FILE = 8,   /* --file */
};

/* The job header, log-region table and mount table (header.txt). */
void dfs_report_header(const dfs_log *log, dfs_buf *out);

/* The whole stdout of `darshan-parser --show-incomplete <parts>`.  Messages
 * darshan-parser writes to stderr go to `errout` when not NULL. */
void dfs_report_parser(const dfs_log *log, unsigned parts, dfs_buf *out,
                       dfs_buf *errout);

/* The module description block for a stored version (description lines and
 * the version warnings, as printed after the module banner). */
void dfs_report_module_description(const dfs_module *m, uint32_t version,
                                   dfs_buf *out);

#endif
