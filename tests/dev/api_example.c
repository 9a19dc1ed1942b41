/* api_example.c - a program written against the installed API only
 * (<darshanfs.h>, compiled without src/ on the include path): prints a
 * log's header block as darshan-parser does, made by the report
 * functions, and checks that the view's header.txt (read as the owner,
 * a NULL caller) holds the same bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <darshanfs.h>

/* header.txt of the one-log view of path, malloc'd, *len its size */
static char *view_header(const char *path, size_t *len, dfs_error *err)
{
	dfs_view *v = dfs_view_new(path, NULL, err);
	if (!v)
		return NULL;
	char *text = NULL;
	dfs_snapshot *s = dfs_view_open_file(v, "/header.txt", NULL, err);
	if (s) {
		*len = (size_t)dfs_snapshot_size(s);
		text = malloc(*len + 1);
		long got = text ? dfs_snapshot_read(s, text, *len, 0, err) : -1;
		if (got != (long)*len) {
			free(text);
			text = NULL;
		}
		dfs_snapshot_release(s);
	}
	dfs_view_free(v);
	return text;
}

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
	dfs_log_free(log);
	size_t len = 0;
	char *viewed = view_header(argv[1], &len, &err);
	if (!viewed) {
		fprintf(stderr, "api_example: header.txt: %s\n", err.msg);
		dfs_buf_free(&out);
		return 1;
	}
	int status = 0;
	if (len != out.len || memcmp(viewed, out.data, len) != 0) {
		fprintf(stderr, "api_example: header.txt differs from dfs_report_header\n");
		status = 1;
	}
	fwrite(out.data, 1, out.len, stdout);
	free(viewed);
	dfs_buf_free(&out);
	return status;
}
