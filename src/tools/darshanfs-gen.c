/* darshanfs-gen - write synthetic Darshan logs for tests, benchmarks and
 * the demo.
 *
 * A thin command line over dfs_synth_write (src/writer/synth.c): option
 * parsing, output files, and the dated directory tree of --logs.  The
 * content of a log depends only on the options, so the same command gives
 * the same bytes. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "darshanfs.h"

#ifndef DFS_VERSION
#define DFS_VERSION "unknown"
#endif

#define TREE_START 1756684800      /* 2025-09-01 00:00 UTC */
#define TREE_DAYS 120

static const char usage[] =
	"Usage: darshanfs-gen [options] -o PATH\n"
	"Write synthetic Darshan logs (format 3.41) with realistic, consistent\n"
	"counters.  The same options always give the same bytes.\n"
	"\n"
	"  -o, --output PATH   the log file to write ('-' = standard output); with\n"
	"                      --logs, the directory to fill\n"
	"  -n, --records N     records per module (default 100): N POSIX and N STDIO\n"
	"                      records (STDIO includes <STDOUT> and <STDERR>); MPI-IO\n"
	"                      gets one record per POSIX record of a file opened\n"
	"                      through MPI-IO, DXT_POSIX one per per-rank POSIX\n"
	"                      record that did I/O\n"
	"  -m, --modules LIST  comma-separated modules among POSIX, MPI-IO, STDIO,\n"
	"                      DXT_POSIX (default POSIX,MPI-IO,STDIO)\n"
	"  -p, --nprocs P      MPI processes of the job (default 16)\n"
	"  -s, --seed S        seed of all random choices (default 1)\n"
	"  -k, --logs K        write K logs under the output directory as\n"
	"                      YYYY/MM/DD/<user>_<app>_id<jobid>-<n>.darshan, with\n"
	"                      start dates spread over four months from 2025-09-01;\n"
	"                      log n uses seed S+n\n"
	"  -j, --bzip2         compress with bzip2 instead of zlib\n"
	"  -l, --level L       zlib level 1 (fastest, default) to 9\n"
	"  -t, --threads T     compression threads (default 2)\n"
	"  -v, --verbose       report each log written, with its size and time\n"
	"  -V, --version       print the version and exit\n"
	"  -h, --help          print this help and exit\n"
	"\n"
	"Exit status: 0 success, 1 bad usage, 2 a log could not be written.\n";

struct gen {
	const char *output;
	dfs_synth_options synth;
	long logs;
	dfs_write_options write;
	bool verbose;
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool parse_count(const char *s, long long lo, long long hi, long long *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

static int parse_modules(const char *list, uint64_t *mask)
{
	char *copy = strdup(list), *save = NULL;
	if (!copy)
		return -1;
	*mask = 0;
	int ret = 0;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		const dfs_module *m = dfs_module_by_name(t);
		if (!m && strcasecmp(t, "MPIIO") == 0)
			m = dfs_module_by_name("MPI-IO");
		if (!m || !((DFS_SYNTH_MODULES >> m->id) & 1)) {
			fprintf(stderr, "darshanfs-gen: cannot generate module '%s' "
			        "(POSIX, MPI-IO, STDIO or DXT_POSIX)\n", t);
			ret = -1;
			break;
		}
		*mask |= 1ULL << m->id;
	}
	free(copy);
	if (ret == 0 && *mask == 0) {
		fprintf(stderr, "darshanfs-gen: no module given\n");
		ret = -1;
	}
	return ret;
}

static int parse_args(int argc, char **argv, struct gen *g)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"records", required_argument, NULL, 'n'},
		{"modules", required_argument, NULL, 'm'},
		{"nprocs", required_argument, NULL, 'p'},
		{"seed", required_argument, NULL, 's'},
		{"logs", required_argument, NULL, 'k'},
		{"bzip2", no_argument, NULL, 'j'},
		{"level", required_argument, NULL, 'l'},
		{"threads", required_argument, NULL, 't'},
		{"verbose", no_argument, NULL, 'v'},
		{"version", no_argument, NULL, 'V'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;
	long long v;
	while ((c = getopt_long(argc, argv, "o:n:m:p:s:k:jl:t:vVh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			g->output = optarg;
			break;
		case 'n':
			if (!parse_count(optarg, 0, 1LL << 40, &v))
				goto bad_value;
			g->synth.records = (size_t)v;
			break;
		case 'm':
			if (parse_modules(optarg, &g->synth.modules))
				return 1;
			break;
		case 'p':
			if (!parse_count(optarg, 1, 1LL << 30, &v))
				goto bad_value;
			g->synth.nprocs = v;
			break;
		case 's':
			if (!parse_count(optarg, 0, INT64_MAX, &v))
				goto bad_value;
			g->synth.seed = (uint64_t)v;
			break;
		case 'k':
			if (!parse_count(optarg, 1, 10000000, &v))
				goto bad_value;
			g->logs = (long)v;
			break;
		case 'j':
			g->write.comp_type = DFS_COMP_BZIP2;
			break;
		case 'l':
			if (!parse_count(optarg, 1, 9, &v))
				goto bad_value;
			g->write.level = (int)v;
			break;
		case 't':
			if (!parse_count(optarg, 1, 64, &v))
				goto bad_value;
			g->write.threads = (int)v;
			break;
		case 'v':
			g->verbose = true;
			break;
		case 'V':
			printf("darshanfs-gen %s\n", DFS_VERSION);
			exit(0);
		case 'h':
			fputs(usage, stdout);
			exit(0);
		default:
			fputs(usage, stderr);
			return 1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "darshanfs-gen: unexpected argument '%s'\n", argv[optind]);
		return 1;
	}
	if (!g->output) {
		fprintf(stderr, "darshanfs-gen: no output given (-o PATH)\n");
		fputs(usage, stderr);
		return 1;
	}
	if (g->logs > 0 && strcmp(g->output, "-") == 0) {
		fprintf(stderr, "darshanfs-gen: --logs needs a directory (-o DIR)\n");
		return 1;
	}
	return 0;
bad_value:
	fprintf(stderr, "darshanfs-gen: bad value '%s' for option -%c\n", optarg, c);
	return 1;
}

/* Write one log to `path` ("-": stdout). */
static int write_log(const struct gen *g, const dfs_synth_options *o,
                     const char *path)
{
	bool to_stdout = strcmp(path, "-") == 0;
	int fd = to_stdout ? STDOUT_FILENO
	                   : open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "darshanfs-gen: %s: %s\n", path, strerror(errno));
		return -1;
	}
	double t0 = now();
	dfs_error err = {0};
	dfs_log_writer *w = dfs_log_writer_fd(fd, &g->write, &err);
	int ret = w ? dfs_synth_write(w, o, &err) : -1;
	uint64_t size = w ? dfs_log_writer_size(w) : 0;
	dfs_log_writer_free(w);
	if (!to_stdout && close(fd) != 0 && ret == 0) {
		dfs_error_set(&err, DFS_ERR_IO, "close failed: %s", strerror(errno));
		ret = -1;
	}
	if (ret) {
		fprintf(stderr, "darshanfs-gen: %s: %s\n", path, err.msg);
		if (!to_stdout)
			unlink(path);
		return -1;
	}
	if (g->verbose)
		fprintf(stderr, "%s: %" PRIu64 " bytes, %zu records per module, %.3f s\n",
		        path, size, o->records, now() - t0);
	return 0;
}

static int make_dirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		int r = mkdir(path, 0755);
		*p = '/';
		if (r != 0 && errno != EEXIST)
			return -1;
	}
	if (mkdir(path, 0755) != 0 && errno != EEXIST)
		return -1;
	return 0;
}

/* K logs in a dated tree under the output directory. */
static int write_tree(const struct gen *g)
{
	size_t cap = strlen(g->output) + 256;
	char *path = malloc(cap);
	if (!path)
		return -1;
	int64_t slot = (int64_t)TREE_DAYS * 86400 / g->logs;
	for (long n = 0; n < g->logs; n++) {
		dfs_synth_options o = g->synth;
		o.seed = g->synth.seed + (uint64_t)n;
		dfs_synth_defaults(&o);
		/* spread over the months; the seed places the job in its slot */
		o.start_time = TREE_START + n * slot + o.start_time % (slot > 1 ? slot : 1);
		time_t t = (time_t)o.start_time;
		struct tm tm;
		gmtime_r(&t, &tm);
		snprintf(path, cap, "%s/%04d/%02d/%02d", g->output, tm.tm_year + 1900,
		         tm.tm_mon + 1, tm.tm_mday);
		if (make_dirs(path)) {
			fprintf(stderr, "darshanfs-gen: %s: %s\n", path, strerror(errno));
			free(path);
			return -1;
		}
		size_t len = strlen(path);
		snprintf(path + len, cap - len, "/%s_%s_id%" PRId64 "-%ld.darshan", o.user,
		         o.app, o.jobid, n);
		if (write_log(g, &o, path)) {
			free(path);
			return -1;
		}
	}
	free(path);
	return 0;
}

int main(int argc, char **argv)
{
	struct gen g = {
		.synth = {.seed = 1, .records = 100, .nprocs = 16},
		.write = {.comp_type = DFS_COMP_ZLIB, .level = 1, .threads = 2},
	};
	if (parse_args(argc, argv, &g))
		return 1;
	if (g.logs > 0)
		return write_tree(&g) ? 2 : 0;
	dfs_synth_options o = g.synth;
	dfs_synth_defaults(&o);
	return write_log(&g, &o, g.output) ? 2 : 0;
}
