/* error.h - the small set of error codes of the core library.
 *
 * Every fallible function of the library takes a `dfs_error *` and, on
 * failure, fills it with a code and a one-line message meant for a human
 * ("sample.darshan: POSIX region: unable to inflate: ...").  Codes are
 * mapped to errno values only at the FUSE boundary. */
#ifndef DARSHANFS_ERROR_H
#define DARSHANFS_ERROR_H

#include <stddef.h>

typedef enum dfs_status {
	DFS_OK = 0,
	DFS_ERR_NOMEM,       /* out of memory */
	DFS_ERR_IO,          /* the operating system failed a read/write */
	DFS_ERR_FORMAT,      /* the log is corrupt, truncated or not a log */
	DFS_ERR_UNSUPPORTED, /* a valid log using something we cannot read */
	DFS_ERR_INVAL,       /* bad user input: filter expression, CSV */
	DFS_ERR_NOENT,       /* no such thing (module, file, column) */
	DFS_ERR_TOOBIG,      /* input over a documented size limit */
	DFS_ERR_ACCESS,      /* the caller may not read it */
	DFS_ERR_NOSPACE,     /* a bound on what one user (or all) may hold */
} dfs_status;

#define DFS_ERROR_MSG_MAX 512

typedef struct dfs_error {
	dfs_status code;
	char msg[DFS_ERROR_MSG_MAX];
} dfs_error;

/* Set code and message (printf format).  Returns -1 so callers can write
 * `return dfs_error_set(err, ...)`.  `err` may be NULL. */
int dfs_error_set(dfs_error *err, dfs_status code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* dfs_error_nomem(err): returns -1. */
int dfs_error_nomem(dfs_error *err);

/* Prefix the existing message with "prefix: ". */
void dfs_error_prefix(dfs_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void dfs_error_clear(dfs_error *err);

/* The errno value that best describes a status (EIO, ENOMEM, EINVAL...). */
int dfs_status_errno(dfs_status code);

#endif
