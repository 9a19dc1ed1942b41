/* darshanfs-cat - print any file of the darshanfs tree without mounting.
 *
 *   darshanfs-cat LOG header.txt
 *   darshanfs-cat --filter 'rank == 0' LOG POSIX/derived_metrics.json
 *   darshanfs-cat --write filter='rank != -1' DIR 2026/11/job.darshan/POSIX/records.csv
 *   darshanfs-cat --list LOG POSIX
 *   darshanfs-cat --list --recursive DIR     (the whole tree, one path a line)
 *   darshanfs-cat LOG                       (no PATH: lists the log, as --list)
 *   darshanfs-cat --extract OUT LOG          (every file, as a directory tree)
 *   darshanfs-cat --parser base LOG        (darshan-parser --show-incomplete --base)
 *
 * It drives the same view code as the mount, so what it prints is what
 * `cat MOUNT/PATH` shows. */
#include <errno.h>
#include <getopt.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "darshanfs.h"
#include "darshanfs-cat-usage.h"

enum {
	EXIT_USAGE = 2, EXIT_NOENT = 3, EXIT_BADLOG = 4, EXIT_INVAL = 5,
	EXIT_ISDIR = 6, /* PATH is a directory: list it with --list */
};

/* The option list and the exit statuses are those of the manual page:
 * docs/man/manpage.py makes darshanfs-cat-usage.h of
 * docs/man/darshanfs-cat.1.rst. */
static void usage(FILE *out, const char *prog)
{
	fprintf(out,
		"usage: %s [options] SOURCE [PATH]\n"
		"\n"
		"Print the file PATH of the darshanfs tree of SOURCE (a Darshan log or a\n"
		"directory of logs) without mounting it.  PATH is relative to the log's\n"
		"directory when SOURCE is a log, to SOURCE when it is a directory;\n"
		"without PATH, the top of the tree is listed (as with --list).\n"
		"\n"
		"options:\n", prog);
	fputs(dfs_usage_options, out);
	fputs("\nexit status:\n", out);
	fputs(dfs_usage_exit, out);
}

static int exit_code(const dfs_error *err)
{
	switch (err->code) {
	case DFS_ERR_NOENT: return EXIT_NOENT;
	case DFS_ERR_FORMAT:
	case DFS_ERR_UNSUPPORTED: return EXIT_BADLOG;
	case DFS_ERR_INVAL:
	case DFS_ERR_TOOBIG: return EXIT_INVAL;
	default: return 1;
	}
}

/* "a/b" -> "/a/b", "" -> "/" */
static char *view_path(const char *rel)
{
	while (*rel == '/')
		rel++;
	size_t n = strlen(rel);
	char *p = malloc(n + 2);
	if (!p)
		return NULL;
	p[0] = '/';
	memcpy(p + 1, rel, n + 1);
	while (n > 0 && p[n] == '/')
		p[n--] = '\0';
	return p;
}

static int write_file(dfs_view *v, const char *rel, const char *text,
                      dfs_error *err)
{
	char *path = view_path(rel);
	if (!path)
		return dfs_error_nomem(err);
	dfs_write *w = dfs_view_open_write(v, path, NULL, true, err);
	int ret = -1;
	if (w) {
		ret = dfs_write_data(w, text, strlen(text), 0, err);
		if (ret == 0)
			ret = dfs_write_flush(w, err);
		dfs_write_free(w);
	}
	if (ret)
		dfs_error_prefix(err, "%s", path);
	free(path);
	return ret;
}

/* The filter file that governs PATH: its module's, or the log's. */
static char *filter_beside(dfs_view *v, const char *rel)
{
	char *path = view_path(rel);
	if (!path)
		return NULL;
	dfs_node_stat st;
	dfs_error err;
	for (;;) {
		char *slash = strrchr(path, '/');
		if (!dfs_view_stat(v, path, NULL, &st, NULL, &err) && st.is_dir) {
			size_t n = strlen(path);
			char *f = malloc(n + 8);
			if (f)
				snprintf(f, n + 8, "%s/filter", n > 1 ? path : "");
			if (f && dfs_view_is_writable(v, f)) {
				free(path);
				return f;
			}
			free(f);
		}
		if (!slash || slash == path)
			break;
		*slash = '\0';
	}
	free(path);
	return NULL;
}

/* Is PATH a directory of the tree? */
static bool is_dir(dfs_view *v, const char *rel)
{
	char *path = view_path(rel);
	dfs_node_stat st;
	dfs_error err = {0};
	bool dir = path && dfs_view_stat(v, path, NULL, &st, NULL, &err) == 0 && st.is_dir;
	free(path);
	return dir;
}

/* Write the bytes of c into f, from where they lie when a piece lies
 * together (records.csv's batches, a rendered text), else copied out.
 * 0, or -1 with err set (a failed write is told as "what: reason"). */
static int write_content(dfs_snapshot *c, FILE *f, const char *what, dfs_error *err)
{
	char buf[1 << 16];
	uint64_t off = 0, size = dfs_snapshot_size(c);
	while (off < size) {
		const char *data;
		size_t n;
		void *pin;
		int r = dfs_snapshot_pin(c, off, sizeof(buf), &data, &n, &pin, err);
		if (r < 0)
			return -1;
		if (r == 0) {
			long got = dfs_snapshot_read(c, buf, sizeof(buf), off, err);
			if (got <= 0)
				return got < 0 ? -1 : 0;
			data = buf;
			n = (size_t)got;
		}
		bool ok = fwrite(data, 1, n, f) == n;
		dfs_snapshot_unpin(c, pin);
		if (!ok)
			return dfs_error_set(err, DFS_ERR_IO, "%s: %s", what, strerror(errno));
		off += n;
	}
	return 0;
}

static int print_file(dfs_view *v, const char *rel, dfs_error *err)
{
	char *path = view_path(rel);
	if (!path)
		return dfs_error_nomem(err);
	dfs_snapshot *c = dfs_view_open_file(v, path, NULL, err);
	free(path);
	if (!c)
		return -1;
	int ret = write_content(c, stdout, "write error", err);
	dfs_snapshot_release(c);
	return ret;
}

/* ---- --extract ------------------------------------------------------------- */

struct extract {
	dfs_view *v;
	char **names;
	bool *dirs;
	size_t n, cap;
};

static int collect(void *ctx, const char *name, const dfs_node_stat *st)
{
	struct extract *x = ctx;
	if (x->n == x->cap) {
		x->cap = x->cap ? x->cap * 2 : 32;
		x->names = realloc(x->names, x->cap * sizeof(char *));
		x->dirs = realloc(x->dirs, x->cap * sizeof(bool));
	}
	x->names[x->n] = strdup(name);
	x->dirs[x->n++] = st->is_dir;
	return 0;
}

static void listing_free(struct extract *x)
{
	for (size_t i = 0; i < x->n; i++)
		free(x->names[i]);
	free(x->names);
	free(x->dirs);
}

/* "/" + "x" -> "/x", "/a" + "x" -> "/a/x" (NULL when out of memory) */
static char *child_of(const char *path, const char *name)
{
	size_t pl = strlen(path), nl = strlen(name);
	char *sub = malloc(pl + nl + 2);
	if (sub)
		snprintf(sub, pl + nl + 2, "%s/%s", strcmp(path, "/") ? path : "", name);
	return sub;
}

static int copy_out(dfs_view *v, const char *path, const char *out, dfs_error *err)
{
	dfs_snapshot *c = dfs_view_open_file(v, path, NULL, err);
	if (!c)
		return -1;
	FILE *f = fopen(out, "wb");
	if (!f) {
		dfs_snapshot_release(c);
		return dfs_error_set(err, DFS_ERR_IO, "%s: %s", out, strerror(errno));
	}
	int ret = write_content(c, f, out, err);
	if (fclose(f) != 0 && ret == 0)
		ret = dfs_error_set(err, DFS_ERR_IO, "%s: %s", out, strerror(errno));
	dfs_snapshot_release(c);
	return ret;
}

/* Write the files below `path` into `out`.  A file that cannot be read
 * (a damaged log) is reported and skipped; the rest goes on. */
static int extract(dfs_view *v, const char *path, const char *out, int *failed)
{
	if (mkdir(out, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "darshanfs-cat: %s: %s\n", out, strerror(errno));
		return -1;
	}
	struct extract x = {v, NULL, NULL, 0, 0};
	dfs_error err = {0};
	if (dfs_view_readdir(v, path, NULL, collect, &x, &err)) {
		fprintf(stderr, "darshanfs-cat: %s\n", err.msg);
		(*failed)++;
		return 0;
	}
	int ret = 0;
	for (size_t i = 0; i < x.n && ret == 0; i++) {
		char *sub = child_of(path, x.names[i]), *dst = child_of(out, x.names[i]);
		if (!sub || !dst) {
			fprintf(stderr, "darshanfs-cat: out of memory\n");
			ret = -1;
		} else if (x.dirs[i]) {
			ret = extract(v, sub, dst, failed);
		} else if (copy_out(v, sub, dst, &err)) {
			fprintf(stderr, "darshanfs-cat: %s: %s\n", sub, err.msg);
			unlink(dst);
			(*failed)++;
		}
		free(sub);
		free(dst);
	}
	listing_free(&x);
	return ret;
}

static int list_one(void *ctx, const char *name, const dfs_node_stat *st)
{
	(void)ctx;
	printf("%s%s\n", name, st->is_dir ? "/" : "");
	return 0;
}

/* --list --recursive: every entry below `path`, one per line, as a path
 * relative to `top` (the listed directory), directories ending in '/'. */
static int list_tree(dfs_view *v, const char *path, size_t top, dfs_error *err)
{
	struct extract x = {v, NULL, NULL, 0, 0};
	if (dfs_view_readdir(v, path, NULL, collect, &x, err))
		return -1;
	int ret = 0;
	for (size_t i = 0; i < x.n && ret == 0; i++) {
		char *sub = child_of(path, x.names[i]);
		if (!sub) {
			ret = dfs_error_nomem(err);
			break;
		}
		/* "/" lists as "x", "/a/b" as "a/b/x" less its "/a/b/" */
		printf("%s%s\n", sub + top + (top > 1), x.dirs[i] ? "/" : "");
		if (x.dirs[i])
			ret = list_tree(v, sub, top, err);
		free(sub);
	}
	listing_free(&x);
	return ret;
}

static int parser_mode(const char *source, const char *parts_text, dfs_error *err)
{
	unsigned parts = 0;
	char *copy = strdup(parts_text);
	for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
		if (!strcmp(tok, "base")) parts |= DFS_REPORT_BASE;
		else if (!strcmp(tok, "total")) parts |= DFS_REPORT_TOTAL;
		else if (!strcmp(tok, "file")) parts |= DFS_REPORT_FILE;
		else if (!strcmp(tok, "perf")) parts |= DFS_REPORT_PERF;
		else if (!strcmp(tok, "all"))
			parts |= DFS_REPORT_BASE | DFS_REPORT_TOTAL | DFS_REPORT_FILE |
			         DFS_REPORT_PERF;
		else {
			free(copy);
			return dfs_error_set(err, DFS_ERR_INVAL, "unknown --parser part '%s'", tok);
		}
	}
	free(copy);
	dfs_log *log = dfs_log_open(source, 0, err);
	if (!log)
		return -1;
	dfs_buf out = DFS_BUF_INIT, errs = DFS_BUF_INIT;
	dfs_report_parser(log, parts, &out, &errs);
	fwrite(out.data, 1, out.len, stdout);
	if (errs.len)
		fwrite(errs.data, 1, errs.len, stderr);
	dfs_buf_free(&out);
	dfs_buf_free(&errs);
	dfs_log_free(log);
	return 0;
}

/* `writes` has room for every argument's --write */
static int run(int argc, char **argv, const char **writes)
{
	static const struct option longopts[] = {
		{"filter", required_argument, NULL, 'f'},
		{"write", required_argument, NULL, 'w'},
		{"list", no_argument, NULL, 'l'},
		{"recursive", no_argument, NULL, 'R'},
		{"extract", required_argument, NULL, 'x'},
		{"parser", required_argument, NULL, 'p'},
		{"insights", required_argument, NULL, 'i'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	const char *filter = NULL, *parts = NULL, *extract_dir = NULL, *insights = NULL;
	size_t nwrites = 0;
	bool list = false, recursive = false;
	int c;
	while ((c = getopt_long(argc, argv, "f:w:lRx:p:i:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'f': filter = optarg; break;
		case 'w': writes[nwrites++] = optarg; break;
		case 'l': list = true; break;
		case 'R': recursive = true; break;
		case 'x': extract_dir = optarg; break;
		case 'p': parts = optarg; break;
		case 'i': insights = optarg; break;
		case 'h': usage(stdout, argv[0]); return 0;
		case 'V': printf("darshanfs-cat %s\n", DFS_VERSION); return 0;
		default: usage(stderr, argv[0]); return EXIT_USAGE;
		}
	}
	int nargs = argc - optind;
	if (nargs < 1 || nargs > 2) {
		usage(stderr, argv[0]);
		return EXIT_USAGE;
	}
	const char *source = argv[optind];
	const char *rel = nargs == 2 ? argv[optind + 1] : "";
	if (nargs == 1 && !extract_dir)
		list = true; /* SOURCE alone: what is in it */
	dfs_error err = {0};
	if (parts) {
		if (parser_mode(source, parts, &err)) {
			fprintf(stderr, "darshanfs-cat: %s\n", err.msg);
			return exit_code(&err);
		}
		return 0;
	}
	dfs_insight_thresholds thresholds;
	dfs_view_options vopt = {0};
	if (insights) {
		dfs_insight_thresholds_default(&thresholds);
		if (dfs_insight_thresholds_load(&thresholds, insights, &err)) {
			fprintf(stderr, "darshanfs-cat: bad insights: %s\n", err.msg);
			return EXIT_USAGE;
		}
		vopt.thresholds = &thresholds;
	}
	dfs_view *v = dfs_view_new(source, &vopt, &err);
	if (!v) {
		fprintf(stderr, "darshanfs-cat: %s\n", err.msg);
		return exit_code(&err);
	}
	int ret = 0;
	for (size_t i = 0; i < nwrites && ret == 0; i++) {
		const char *eq = strchr(writes[i], '=');
		if (!eq) {
			fprintf(stderr, "darshanfs-cat: --write needs FILE=TEXT\n");
			ret = EXIT_USAGE;
			break;
		}
		char *file = strndup(writes[i], (size_t)(eq - writes[i]));
		if (write_file(v, file, eq + 1, &err)) {
			fprintf(stderr, "darshanfs-cat: %s\n", err.msg);
			ret = exit_code(&err);
		}
		free(file);
	}
	if (ret == 0 && filter) {
		char *f = filter_beside(v, rel);
		if (!f) {
			fprintf(stderr, "darshanfs-cat: %s: no filter governs this path\n", rel);
			ret = EXIT_NOENT;
		} else {
			if (write_file(v, f, filter, &err)) {
				fprintf(stderr, "darshanfs-cat: %s\n", err.msg);
				ret = exit_code(&err);
			}
			free(f);
		}
	}
	if (ret == 0) {
		int r;
		if (extract_dir) {
			char *path = view_path(rel);
			int failed = 0;
			r = extract(v, path, extract_dir, &failed);
			free(path);
			if (r == 0 && failed) {
				ret = EXIT_BADLOG;
				r = 0;
			}
			err.msg[0] = '\0';
		} else if (list) {
			char *path = view_path(rel);
			if (recursive)
				r = list_tree(v, path, strlen(path), &err);
			else
				r = dfs_view_readdir(v, path, NULL, list_one, NULL, &err);
			free(path);
		} else if ((r = print_file(v, rel, &err)) != 0 && is_dir(v, rel)) {
			fprintf(stderr, "darshanfs-cat: %s: is a directory (list it with "
			        "--list)\n", rel);
			ret = EXIT_ISDIR;
			r = 0;
		}
		if (r) {
			if (err.msg[0])
				fprintf(stderr, "darshanfs-cat: %s\n", err.msg);
			ret = err.msg[0] ? exit_code(&err) : 1;
		}
	}
	dfs_view_free(v);
	return ret;
}

int main(int argc, char **argv)
{
	const char **writes = calloc((size_t)argc, sizeof(char *));
	if (!writes) {
		fprintf(stderr, "darshanfs-cat: out of memory\n");
		return 1;
	}
	int ret = run(argc, argv, writes);
	free(writes);
	return ret;
}
