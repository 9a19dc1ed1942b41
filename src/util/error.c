/* error.c - filling and describing dfs_error values. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "darshanfs/error.h"

int dfs_error_set(dfs_error *err, dfs_status code, const char *fmt, ...)
{
	if (!err)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	err->code = code;
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

int dfs_error_nomem(dfs_error *err)
{
	return dfs_error_set(err, DFS_ERR_NOMEM, "out of memory");
}

void dfs_error_prefix(dfs_error *err, const char *fmt, ...)
{
	if (!err)
		return;
	char prefix[DFS_ERROR_MSG_MAX];
	char old[DFS_ERROR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	snprintf(err->msg, sizeof(err->msg), "%.200s: %.300s", prefix, old);
}

void dfs_error_clear(dfs_error *err)
{
	if (!err)
		return;
	err->code = DFS_OK;
	err->msg[0] = '\0';
}

int dfs_status_errno(dfs_status code)
{
	switch (code) {
	case DFS_OK: return 0;
	case DFS_ERR_NOMEM: return ENOMEM;
	case DFS_ERR_INVAL: return EINVAL;
	case DFS_ERR_NOENT: return ENOENT;
	case DFS_ERR_TOOBIG: return EFBIG;
	case DFS_ERR_ACCESS: return EACCES;
	case DFS_ERR_NOSPACE: return ENOSPC;
	case DFS_ERR_IO:
	case DFS_ERR_FORMAT:
	case DFS_ERR_UNSUPPORTED:
		return EIO;
	}
	return EIO;
}
