/* api_example.c - a program written against the installed API only
 * (<darshanfs.h>, compiled without src/ on the include path): prints a
 * log's header block as darshan-parser does. */
#include <stdio.h>
#include <stdlib.h>

#include <darshanfs.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: api_example LOG\n");
		return 2;
	}
	dfs_error err = {0};
	dfs_log *log = dfs_log_open(argv[1], 0, &err);
	if (!log) {
		fprintf(stderr, "api_example: %s\n", err.msg);
		return 1;
	}
	dfs_buf out = DFS_BUF_INIT;
	dfs_report_header(log, &out);
	fwrite(out.data, 1, out.len, stdout);
	dfs_buf_free(&out);
	dfs_log_free(log);
	return 0;
}
