/* shared.c - helpers to reach ../shared from the tests (see shared.h). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "common/shared.h"
#include "darshanfs/writer.h"

const char *shared_dir(void)
{
	static char dir[4096];
	const char *env = getenv("DFS_SHARED");
	snprintf(dir, sizeof(dir), "%s", env && *env ? env : "../shared");
	char probe[4200];
	snprintf(probe, sizeof(probe), "%s/darshan-logs", dir);
	struct stat st;
	if (stat(probe, &st) != 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "note: %s not found: skipping tests over the shared logs\n",
		        probe);
		return NULL;
	}
	return dir;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **shared_logs(size_t *count)
{
	const char *dir = shared_dir();
	if (!dir)
		return NULL;
	char path[4200];
	snprintf(path, sizeof(path), "%s/darshan-logs", dir);
	DIR *d = opendir(path);
	if (!d)
		return NULL;
	size_t n = 0, cap = 16;
	char **list = malloc(cap * sizeof(char *));
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l < 9 || strcmp(de->d_name + l - 8, ".darshan") != 0)
			continue;
		if (n + 2 > cap)
			list = realloc(list, (cap *= 2) * sizeof(char *));
		list[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(list, n, sizeof(char *), cmp_str);
	list[n] = NULL;
	*count = n;
	return list;
}

void shared_free_list(char **list)
{
	if (!list)
		return;
	for (char **p = list; *p; p++)
		free(*p);
	free(list);
}

bool shared_quick(void)
{
	const char *q = getenv("DFS_TEST_QUICK");
	return q && strcmp(q, "1") == 0;
}

bool shared_quick_skip(const char *path)
{
	if (!shared_quick())
		return false;
	size_t len = strlen(path);
	const char *ext = ".darshan";
	if (len < 8 || strcmp(path + len - 8, ext) != 0)
		return false;
	size_t d = len - 8; /* digits end */
	size_t b = d;
	while (b > 0 && path[b - 1] >= '0' && path[b - 1] <= '9')
		b--;
	if (b == d || b == 0 || path[b - 1] != '_' || strspn(path + b, "0") == d - b)
		return false;
	struct stat st;
	if (stat(path, &st) != 0 || st.st_size <= 256 * 1024)
		return false;
	char *first = malloc(b + 16);
	if (!first)
		return false;
	snprintf(first, b + 16, "%.*s0%s", (int)b, path, ext);
	bool sibling = stat(first, &st) == 0;
	free(first);
	return sibling;
}

char *shared_log_path(const char *name)
{
	const char *dir = shared_dir();
	size_t n = strlen(dir) + strlen(name) + 32;
	char *p = malloc(n);
	snprintf(p, n, "%s/darshan-logs/%s", dir, name);
	return p;
}

int shared_each_record(shared_record_fn fn, void *ctx, size_t *logs,
                       size_t *records)
{
	size_t n;
	char **names = shared_logs(&n);
	if (!names)
		return 0;
	*logs = n;
	*records = 0;
	int ret = 1;
	for (size_t i = 0; i < n && ret == 1; i++) {
		char *path = shared_log_path(names[i]);
		dfs_error err = {0};
		dfs_log *log = dfs_log_open(path, 0, &err);
		free(path);
		if (!log) {
			fprintf(stderr, "%s: %s\n", names[i], err.msg);
			ret = -1;
			break;
		}
		for (int id = 0; id < DFS_MOD_SLOTS; id++) {
			const dfs_records *r = dfs_log_records(log, id);
			if (!r)
				continue;
			_Alignas(8) unsigned char scratch[DFS_RECORD_MAX];
			for (size_t k = 0; k < r->count; k++)
				fn(ctx, log, names[i], r->module, dfs_record_get(r, k, scratch),
				   dfs_record_size(r, k), k);
			*records += r->count;
		}
		dfs_log_free(log);
	}
	shared_free_list(names);
	return ret;
}

char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap + 1);
	size_t r;
	while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap)
			buf = realloc(buf, (cap *= 2) + 1);
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static char *read_gz(const char *path, size_t *len)
{
	gzFile g = gzopen(path, "rb");
	if (!g)
		return NULL;
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap + 1);
	int r;
	while ((r = gzread(g, buf + n, (unsigned)(cap - n))) > 0) {
		n += (size_t)r;
		if (n == cap)
			buf = realloc(buf, (cap *= 2) + 1);
	}
	gzclose(g);
	buf[n] = '\0';
	*len = n;
	return buf;
}

char *oracle_read(const char *log, const char *file, size_t *len)
{
	char path[8192];
	snprintf(path, sizeof(path), "%s/oracle/parser/%s/%s", shared_dir(), log, file);
	char *data = read_file(path, len);
	if (data)
		return data;
	snprintf(path, sizeof(path), "%s/oracle/parser/%s/%s.gz", shared_dir(), log, file);
	return read_gz(path, len);
}

char *oracle_sha256(const char *log, const char *file)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/oracle/parser/OUTPUTS.tsv", shared_dir());
	size_t len;
	char *tsv = read_file(path, &len);
	if (!tsv)
		return NULL;
	char *result = NULL;
	for (char *line = strtok(tsv, "\n"); line && !result; line = strtok(NULL, "\n")) {
		char *f[7] = {0};
		int k = 0;
		for (char *p = line; k < 7; k++) {
			f[k] = p;
			char *t = strchr(p, '\t');
			if (!t)
				break;
			*t = '\0';
			p = t + 1;
		}
		if (k >= 4 && strcmp(f[0], log) == 0 && strcmp(f[1], file) == 0)
			result = strdup(f[4]);
	}
	free(tsv);
	return result;
}

/* ---- SHA-256 (FIPS 180-4), for the two oracle outputs stored by hash --- */

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void block(uint32_t h[8], const unsigned char *p)
{
	uint32_t w[64];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5],
	         g = h[6], k = h[7];
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = k + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) +
		              ((e & f) ^ (~e & g)) + K[i] + w[i];
		uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) +
		              ((a & b) ^ (a & c) ^ (b & c));
		k = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
	}
	h[0] += a; h[1] += b; h[2] += c; h[3] += d;
	h[4] += e; h[5] += f; h[6] += g; h[7] += k;
}

void sha256_hex(const void *data, size_t len, char out[65])
{
	uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	                 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
	const unsigned char *p = data;
	size_t full = len / 64;
	for (size_t i = 0; i < full; i++)
		block(h, p + 64 * i);
	unsigned char tail[128] = {0};
	size_t rest = len - full * 64;
	memcpy(tail, p + full * 64, rest);
	tail[rest] = 0x80;
	size_t tl = rest + 9 <= 64 ? 64 : 128;
	uint64_t bits = (uint64_t)len * 8;
	for (int i = 0; i < 8; i++)
		tail[tl - 1 - i] = (unsigned char)(bits >> (8 * i));
	block(h, tail);
	if (tl == 128)
		block(h, tail + 64);
	for (int i = 0; i < 8; i++)
		snprintf(out + 8 * i, 9, "%08x", h[i]);
}

struct dfs_log_writer *test_log_writer(dfs_buf *out, dfs_error *err)
{
	dfs_log_writer *w = dfs_log_writer_buf(out, NULL, err);
	if (!w)
		return NULL;
	dfs_job job = {.uid = 1, .start_sec = 10, .end_sec = 20, .nprocs = 4,
	               .jobid = 7, .metadata = "", .exe = "a.out"};
	dfs_mount mt = {"/scratch", "lustre", 8};
	if (dfs_log_writer_job(w, &job, &mt, 1, err)) {
		dfs_log_writer_free(w);
		return NULL;
	}
	return w;
}
