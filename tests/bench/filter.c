/* dfs-bench-filter - how fast a compiled filter judges a row.
 *
 *   dfs-bench-filter [-r RUNS] [-n ROWS]
 *
 * Each expression below is compiled once against a small table of columns
 * (a record's name, id, rank and bytes read) and matched against ROWS
 * rows (default 1000000) drawn from 4096 pseudo-random ones, RUNS times
 * (default 3); the median is printed as
 *   filter EXPR: S s per N rows (M match)
 * Exit status 1 when an expression does not compile or two runs disagree,
 * 2 on bad usage. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#include "filter/filter.h"

static const char *const exprs[] = {
	"POSIX_BYTES_READ > 1GiB and rank != -1",
	"rank in (0, 1, 2) or id == 0x9d8a6f9a8f3ad1c2",
	"(BYTES_READ + 1) * 2 / 3 > 1e9 and not rank < 0",
	"name ~ '^/lus/grand/' and rank != -1",
	"name like '/lus/grand/%' and rank != -1",
	"name ilike '%/PROJECTS/%.txt' and rank != -1",
	"POSIX_BYTES_READ between 1 MiB and 4 GiB",
};

struct row {
	const char *name;
	size_t name_len;
	uint64_t id;
	int64_t rank, bytes_read;
};

enum { C_NAME, C_ID, C_RANK, C_BYTES_READ, C_COUNT };

static const struct {
	const char *name;
	dfs_type type;
} columns[C_COUNT] = {
	[C_NAME] = {"name", DFS_T_STR},
	[C_ID] = {"id", DFS_T_U64},
	[C_RANK] = {"rank", DFS_T_I64},
	[C_BYTES_READ] = {"POSIX_BYTES_READ", DFS_T_I64},
};

static int resolve(void *ctx, const char *name, size_t len, dfs_type *type)
{
	(void)ctx;
	if (len == 10 && memcmp(name, "BYTES_READ", 10) == 0) {
		*type = DFS_T_I64;
		return C_BYTES_READ;
	}
	for (int i = 0; i < C_COUNT; i++) {
		if (strlen(columns[i].name) == len &&
		    memcmp(columns[i].name, name, len) == 0) {
			*type = columns[i].type;
			return i;
		}
	}
	return -1;
}

static void get(void *rowp, int column, dfs_value *out)
{
	const struct row *r = rowp;
	switch (column) {
	case C_NAME:
		out->type = DFS_T_STR;
		out->v.s.ptr = r->name;
		out->v.s.len = r->name_len;
		break;
	case C_ID: out->type = DFS_T_U64; out->v.u = r->id; break;
	case C_RANK: out->type = DFS_T_I64; out->v.i = r->rank; break;
	default: out->type = DFS_T_I64; out->v.i = r->bytes_read; break;
	}
}

static uint64_t next_random(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-r RUNS] [-n ROWS]\n", prog);
}

int main(int argc, char **argv)
{
	static const char *const names[] = {
		"/lus/grand/projects/a/out.h5", "/lus/eagle/b.txt",
		"/home/user/.bashrc", "/lus/grand/tmp/c.txt", "/dev/shm/x",
	};
	enum { DISTINCT = 4096 };
	int runs = 3, opt;
	long rows = 1000000;
	while ((opt = getopt(argc, argv, "r:n:")) != -1) {
		if (opt == 'r' && (runs = atoi(optarg)) >= 1)
			continue;
		if (opt == 'n' && (rows = atol(optarg)) >= 1)
			continue;
		usage(argv[0]);
		return 2;
	}
	if (optind != argc) {
		usage(argv[0]);
		return 2;
	}
	struct row *r = calloc(DISTINCT, sizeof(*r));
	double *t = calloc((size_t)runs, sizeof(double));
	if (!r || !t)
		return 1;
	uint64_t seed = 99;
	for (size_t i = 0; i < DISTINCT; i++) {
		r[i].rank = (int64_t)(next_random(&seed) % 512) - 1;
		r[i].bytes_read = (int64_t)(next_random(&seed) % (4ULL << 30));
		r[i].name = names[i % 5];
		r[i].name_len = strlen(r[i].name);
		r[i].id = next_random(&seed) << 32 | next_random(&seed);
	}
	const dfs_filter_columns cols = {resolve, NULL, NULL};
	int status = 0;
	for (size_t k = 0; k < sizeof(exprs) / sizeof(exprs[0]); k++) {
		dfs_error err = {DFS_OK, ""};
		dfs_filter *f = dfs_filter_compile(exprs[k], strlen(exprs[k]),
		                                   &cols, &err);
		if (!f) {
			fprintf(stderr, "%s: %s\n", exprs[k], err.msg);
			status = 1;
			continue;
		}
		size_t first = 0;
		for (int run = 0; run < runs; run++) {
			size_t hits = 0;
			double t0 = now();
			for (long i = 0; i < rows; i++)
				hits += dfs_filter_match(f, get, &r[i % DISTINCT]);
			t[run] = now() - t0;
			if (run == 0)
				first = hits;
			else if (hits != first)
				status = 1;
		}
		qsort(t, (size_t)runs, sizeof(double), cmp_double);
		printf("filter %s: %.3f s per %ld rows (%zu match)\n", exprs[k],
		       t[runs / 2], rows, first);
		dfs_filter_free(f);
	}
	free(r);
	free(t);
	return status;
}
