/* dfs-bench-regex - how fast the filters' regular expressions match, next
 * to glibc's regexec on the same texts (what filters used before).
 *
 *   dfs-bench-regex [-r RUNS] NAMES
 *
 * NAMES holds one text a line (the file names of a log).  For each pattern
 * below, with and without case, both matchers run over every text RUNS
 * times (default 3), interleaved; the median of each is printed as
 *   regex PATTERN [icase]: glibc S s, ours S s, ratio R (N texts, M match)
 * Exit status 1 when the two disagree on a text, 2 on bad usage. */
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#include "filter/rx.h"

static const char *const patterns[] = {
	"\\.h5$",
	"^/lus/[^/]+/projects/.*/out/",
	"(^|/)chk_[0-9]+\\.(h5|nc)$",
	"[[:digit:]]{6,}",
	"(.?){800}$",
};

int main(int argc, char **argv)
{
	int runs = 3, opt;
	while ((opt = getopt(argc, argv, "r:")) != -1) {
		if (opt != 'r' || (runs = atoi(optarg)) < 1) {
			fprintf(stderr, "usage: %s [-r RUNS] NAMES\n", argv[0]);
			return 2;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "usage: %s [-r RUNS] NAMES\n", argv[0]);
		return 2;
	}
	FILE *f = fopen(argv[optind], "r");
	if (!f) {
		perror(argv[optind]);
		return 2;
	}
	size_t n = 0, cap = 0;
	char **text = NULL;
	size_t *len = NULL;
	char *line = NULL;
	size_t lcap = 0;
	ssize_t got;
	while ((got = getline(&line, &lcap, f)) > 0) {
		if (line[got - 1] == '\n')
			line[--got] = '\0';
		if (n == cap) {
			cap = cap ? 2 * cap : 4096;
			text = realloc(text, cap * sizeof(*text));
			len = realloc(len, cap * sizeof(*len));
			if (!text || !len)
				return 2;
		}
		text[n] = strdup(line);
		len[n++] = (size_t)got;
	}
	free(line);
	fclose(f);
	double *tg = calloc((size_t)runs, sizeof(double));
	double *to = calloc((size_t)runs, sizeof(double));
	int status = 0;
	for (size_t k = 0; k < sizeof(patterns) / sizeof(patterns[0]); k++) {
		for (int icase = 0; icase < 2; icase++) {
			const char *pat = patterns[k];
			regex_t re;
			struct dfs_rx *rx = NULL;
			if (regcomp(&re, pat, REG_EXTENDED | REG_NOSUB |
			                      (icase ? REG_ICASE : 0)) != 0 ||
			    dfs_rx_compile(pat, strlen(pat), icase, &rx) != RX_OK) {
				fprintf(stderr, "%s: refused\n", pat);
				return 1;
			}
			size_t matched = 0;
			for (int r = 0; r < runs; r++) {
				size_t mg = 0, mo = 0;
				double t0 = now();
				for (size_t i = 0; i < n; i++) {
					regmatch_t m[1] = {{0, (regoff_t)len[i]}};
					mg += regexec(&re, text[i], 1, m, REG_STARTEND) == 0;
				}
				double t1 = now();
				for (size_t i = 0; i < n; i++)
					mo += dfs_rx_match(rx, text[i], len[i]);
				double t2 = now();
				tg[r] = t1 - t0;
				to[r] = t2 - t1;
				if (mg != mo) {
					fprintf(stderr, "%s%s: glibc matches %zu texts, "
					        "ours %zu\n", pat, icase ? " icase" : "",
					        mg, mo);
					status = 1;
				}
				matched = mo;
			}
			qsort(tg, (size_t)runs, sizeof(double), cmp_double);
			qsort(to, (size_t)runs, sizeof(double), cmp_double);
			double g = tg[runs / 2], o = to[runs / 2];
			printf("regex %s%s: glibc %.3f s, ours %.3f s, ratio %.2f "
			       "(%zu texts, %zu match)\n", pat, icase ? " icase" : "",
			       g, o, g > 0 ? o / g : 0.0, n, matched);
			regfree(&re);
			dfs_rx_free(rx);
		}
	}
	for (size_t i = 0; i < n; i++)
		free(text[i]);
	free(text);
	free(len);
	free(tg);
	free(to);
	return status;
}
