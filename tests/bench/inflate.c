/* inflate.c - the baseline of the darshanfs benchmarks: a bare zlib
 * inflate of every compressed region of a Darshan log.
 *
 *   dfs-bench-inflate [-r REPEATS] LOG
 *
 * Reads LOG into memory (not timed), parses the 1328-byte header of format
 * 3.x (3.21 and later: name map at offset 32, module map at offset 48, 64
 * entries of {u64 off, u64 len}, host byte order), and inflates the job
 * region (1328 .. name map offset), the name region and every module
 * region.  A region may hold several zlib streams back to back (the
 * runtime writes one per rank): the inflater is reset whenever a stream
 * ends before the region does.  Output goes into one reused 1 MiB buffer
 * and is thrown away, so what is timed is zlib's work only: no
 * allocation, no page faults on a growing output, no decoding.  This is
 * the least work any reader of the log must do.
 *
 * The inflate of the whole log is repeated REPEATS times (default 1) and
 * the median wall time is reported.  Output, one key=value per line:
 *   inflate_s=SECONDS       median wall time of one full inflate
 *   inflate_min_s=SECONDS   fastest run
 *   inflated_bytes=N        sum of the inflated sizes of all regions
 *   compressed_bytes=N      sum of the compressed region lengths
 *   file_bytes=N            size of LOG
 *   regions=N               regions inflated (non-empty)
 *   streams=N               zlib streams found in them
 * Exit status: 0 success, 1 usage, 2 unreadable or unsupported log. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "bench.h"

#define HEADER_SIZE 1328
#define NAME_MAP_OFF 32
#define MOD_MAP_OFF 48
#define MOD_SLOTS 64
#define OUT_CHUNK (1u << 20)
#define MAX_REPEATS 1000

struct region {
	uint64_t off, len;
};

static uint64_t load_u64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

/* Read the whole file; NULL with a message on failure. */
static unsigned char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "inflate: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	size_t cap = 1 << 20, n = 0;
	unsigned char *data = malloc(cap);
	while (data) {
		size_t got = fread(data + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
		if (n == cap) {
			unsigned char *bigger = realloc(data, cap * 2);
			if (!bigger) {
				free(data);
				data = NULL;
				break;
			}
			data = bigger;
			cap *= 2;
		}
	}
	int bad = ferror(f);
	fclose(f);
	if (!data || bad) {
		fprintf(stderr, "inflate: %s: cannot read\n", path);
		free(data);
		return NULL;
	}
	*len = n;
	return data;
}

/* Inflate one region (possibly several streams) into `out`, discarding
 * the output.  Adds the output size and stream count; -1 on bad data. */
static int inflate_region(z_stream *zs, const unsigned char *in, uint64_t len,
                          unsigned char *out, uint64_t *produced,
                          uint64_t *streams)
{
	if (inflateReset(zs) != Z_OK)
		return -1;
	zs->next_in = (unsigned char *)in;
	zs->avail_in = (uInt)len;   /* regions are < 4 GiB (checked) */
	(*streams)++;
	for (;;) {
		zs->next_out = out;
		zs->avail_out = OUT_CHUNK;
		int z = inflate(zs, Z_NO_FLUSH);
		*produced += OUT_CHUNK - zs->avail_out;
		if (z == Z_STREAM_END) {
			if (zs->avail_in == 0)
				return 0;
			/* another stream follows in the same region */
			if (inflateReset(zs) != Z_OK)
				return -1;
			(*streams)++;
			continue;
		}
		if (z == Z_OK)
			continue;
		if (z == Z_BUF_ERROR && zs->avail_out == 0)
			continue;
		fprintf(stderr, "inflate: bad zlib data (%d: %s)\n", z,
		        zs->msg ? zs->msg : "truncated");
		return -1;
	}
}

int main(int argc, char **argv)
{
	int repeats = 1;
	int a = 1;
	if (a + 1 < argc && strcmp(argv[a], "-r") == 0) {
		repeats = atoi(argv[a + 1]);
		a += 2;
	}
	if (a + 1 != argc || repeats < 1 || repeats > MAX_REPEATS) {
		fprintf(stderr, "usage: %s [-r REPEATS] LOG\n", argv[0]);
		return 1;
	}
	size_t flen;
	unsigned char *data = read_file(argv[a], &flen);
	if (!data)
		return 2;
	if (flen < HEADER_SIZE || data[0] != '3' || data[1] != '.' ||
	    data[16] != 0 /* comp_type: zlib */) {
		fprintf(stderr, "inflate: %s: not a zlib Darshan 3.x log with a "
		        "1328-byte header\n", argv[a]);
		return 2;
	}

	/* the regions: job, names, then the 64 module slots */
	struct region reg[2 + MOD_SLOTS];
	size_t nreg = 0;
	uint64_t name_off = load_u64(data + NAME_MAP_OFF);
	uint64_t name_len = load_u64(data + NAME_MAP_OFF + 8);
	reg[nreg++] = (struct region){HEADER_SIZE, name_off - HEADER_SIZE};
	reg[nreg++] = (struct region){name_off, name_len};
	for (int i = 0; i < MOD_SLOTS; i++) {
		const unsigned char *m = data + MOD_MAP_OFF + 16 * i;
		reg[nreg++] = (struct region){load_u64(m), load_u64(m + 8)};
	}
	uint64_t compressed = 0, nonempty = 0;
	for (size_t i = 0; i < nreg; i++) {
		if (reg[i].len == 0)
			continue;
		if (reg[i].off < HEADER_SIZE || reg[i].off > flen ||
		    reg[i].len > flen - reg[i].off || reg[i].len > UINT32_MAX) {
			fprintf(stderr, "inflate: %s: region %zu out of the file\n",
			        argv[a], i);
			return 2;
		}
		compressed += reg[i].len;
		nonempty++;
	}

	unsigned char *out = malloc(OUT_CHUNK);
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	if (!out || inflateInit(&zs) != Z_OK) {
		fprintf(stderr, "inflate: out of memory\n");
		return 2;
	}
	/* touch the output buffer once so no run pays its page faults */
	memset(out, 0, OUT_CHUNK);

	double times[MAX_REPEATS];
	uint64_t produced = 0, streams = 0;
	for (int r = 0; r < repeats; r++) {
		produced = 0;
		streams = 0;
		double t0 = now();
		for (size_t i = 0; i < nreg; i++) {
			if (reg[i].len == 0)
				continue;
			if (inflate_region(&zs, data + reg[i].off, reg[i].len, out,
			                   &produced, &streams) != 0)
				return 2;
		}
		times[r] = now() - t0;
	}
	inflateEnd(&zs);
	qsort(times, (size_t)repeats, sizeof(times[0]), cmp_double);
	double median = repeats % 2 ? times[repeats / 2]
	              : (times[repeats / 2 - 1] + times[repeats / 2]) / 2;
	printf("inflate_s=%.6f\n", median);
	printf("inflate_min_s=%.6f\n", times[0]);
	printf("inflated_bytes=%llu\n", (unsigned long long)produced);
	printf("compressed_bytes=%llu\n", (unsigned long long)compressed);
	printf("file_bytes=%zu\n", flen);
	printf("regions=%llu\n", (unsigned long long)nonempty);
	printf("streams=%llu\n", (unsigned long long)streams);
	free(out);
	free(data);
	return 0;
}
