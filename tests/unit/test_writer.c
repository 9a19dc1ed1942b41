/* test_writer.c - the log writer and the synthetic log generator.
 *
 * - Every log of the shared set is read, written whole (zlib; bzip2 too for
 *   every eighth log, through dfs_log_write instead of the selection path)
 *   and read again: job fields, exe, metadata, mount table (same order),
 *   partial flags, module presence, name table and the bytes of every
 *   module's records must be identical.  DXT modules read from versions
 *   with 32-byte segments are written at DXT_POSIX v1 / DXT_MPIIO v2, so
 *   their records stay byte-identical; every other module is written at
 *   its current version.  Modules the reader has no decoder for (APXC in
 *   mpi-io-test.darshan) have no records and are not written.
 * - The darshan-parser text our renderer gives for the rewritten log has
 *   the record lines (non-empty lines not starting with '#') and the
 *   "# mount entry" lines of the oracle's base.txt for the original.  The other '#' lines
 *   legitimately differ: the log version (always 3.41), compression method
 *   (bzip2 runs), region sizes and "ver=" (recompressed, modules at their
 *   current version), the run time of pre-3.41 logs (old formats count
 *   end - start + 1 seconds), the 3.2.0 corruption warning and the
 *   per-version module warnings (which depend on the stored version; they
 *   also bring their own empty lines, so empty lines are not compared), and
 *   the region line of modules we cannot decode.  The oracle of the DAOS
 *   log on which darshan-parser aborted is truncated: its prefix is
 *   compared.  Oracle outputs that are absent are skipped.
 * - Selections, the DXT version rule, the writer's checks and limits, the
 *   layout of regions, deterministic bytes whatever the thread count or
 *   destination, and the synthetic generator.
 * - Exports in the source's own format (dfs_log_export): every shared log
 *   unfiltered is its own bytes; filtered to every other record of every
 *   module it keeps its format version, byte order, compression and module
 *   versions, reads back as those records decoded from the source, and
 *   loses exactly the names only left-out records used; the provenance
 *   metadata is cut to fit or refused; a damaged module is copied when
 *   unfiltered and refused (naming it) when filtered; imported rows (at
 *   the current version, also into old and big-endian logs); a log that
 *   changed since it was read. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <bzlib.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "common/shared.h"
#include "darshanfs/hash.h"
#include "darshanfs/log.h"
#include "darshanfs/report.h"
#include "darshanfs/writer.h"
#include "module/pack.h"

#define DXT_FIXED 104
#define DXT_SEG 40

static int failures;

/* Report a mismatch without stopping: one run lists every broken log. */
#define CHECK(cond, ...)                                                    \
	do {                                                                \
		if (!(cond)) {                                              \
			failures++;                                         \
			fprintf(stderr, "  mismatch: " __VA_ARGS__);        \
			fputc('\n', stderr);                                \
		}                                                           \
	} while (0)

/* ---- the shared set ---------------------------------------------------- */

static char shared[4096];

static const char *shared_root(void)
{
	const char *env = getenv("DFS_SHARED");
	if (env && *env)
		return env;
	/* ../shared beside the repository: this file is tests/unit/ in it */
	const char *f = __FILE__;
	const char *end = strstr(f, "tests/unit/test_writer.c");
	int root = end ? (int)(end - f) : 0;
	snprintf(shared, sizeof(shared), "%.*s../shared", root, f);
	return shared;
}

struct names {
	char **v;
	size_t n;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static struct names list_logs(void)
{
	struct names l = {NULL, 0};
	char dir[4200];
	snprintf(dir, sizeof(dir), "%s/darshan-logs", shared_root());
	DIR *d = opendir(dir);
	if (!d)
		return l;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 9 || strcmp(e->d_name + len - 8, ".darshan") != 0)
			continue;
		l.v = realloc(l.v, (l.n + 1) * sizeof(*l.v));
		l.v[l.n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(l.v, l.n, sizeof(*l.v), cmp_str);
	return l;
}

static void free_names(struct names *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

static dfs_log *open_shared(const char *name)
{
	char path[4300];
	snprintf(path, sizeof(path), "%s/darshan-logs/%s", shared_root(), name);
	dfs_error err = {0};
	dfs_log *log = dfs_log_open(path, 0, &err);
	if (!log)
		fprintf(stderr, "%s\n", err.msg);
	return log;
}

static bool have_shared(void)
{
	char dir[4200];
	snprintf(dir, sizeof(dir), "%s/darshan-logs", shared_root());
	struct stat st;
	if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
		return true;
	printf("skipped: no shared logs at %s (set DFS_SHARED)\n", dir);
	return false;
}

/* ---- writing ----------------------------------------------------------- */

static dfs_log *reopen(const dfs_buf *b, const char *label)
{
	dfs_error err = {0};
	dfs_log *log = dfs_log_open_mem(b->data, b->len, label, 0, &err);
	if (!log)
		fprintf(stderr, "%s\n", err.msg);
	return log;
}

static int write_selection(const dfs_log *log, const dfs_write_selection *sel,
                           int comp, dfs_buf *out)
{
	dfs_error err = {0};
	dfs_write_options o = {comp, 0, 0};
	dfs_log_writer *w = dfs_log_writer_buf(out, &o, &err);
	int ret = w ? dfs_log_write_selection(w, log, sel, &err) : -1;
	if (ret)
		fprintf(stderr, "write failed: %s\n", err.msg);
	dfs_log_writer_free(w);
	return ret;
}

/* dfs_log_write of a description built from the log */
static int write_desc(const dfs_log *log, int comp, dfs_buf *out)
{
	dfs_log_desc d;
	memset(&d, 0, sizeof(d));
	d.job = dfs_log_job(log);
	d.nmounts = dfs_log_mount_count(log);
	dfs_mount *mounts = calloc(d.nmounts + 1, sizeof(*mounts));
	for (size_t i = 0; i < d.nmounts; i++)
		mounts[i] = *dfs_log_mount(log, i);
	d.mounts = mounts;
	d.nnames = dfs_log_name_count(log);
	dfs_name *names = calloc(d.nnames + 1, sizeof(*names));
	for (size_t i = 0; i < d.nnames; i++)
		names[i] = *dfs_log_name_at(log, i);
	d.names = names;
	for (int id = 0; id < DFS_MOD_SLOTS; id++)
		d.modules[id] = dfs_log_records(log, id);
	d.partial_flag = dfs_log_get_header(log)->partial_flag;
	dfs_error err = {0};
	dfs_write_options o = {comp, 0, 1};
	dfs_log_writer *w = dfs_log_writer_buf(out, &o, &err);
	int ret = w ? dfs_log_write(w, &d, &err) : -1;
	if (ret)
		fprintf(stderr, "write failed: %s\n", err.msg);
	dfs_log_writer_free(w);
	free(mounts);
	free(names);
	return ret;
}

/* ---- comparing logs ---------------------------------------------------- */

static unsigned char scratch_a[DFS_RECORD_MAX], scratch_b[DFS_RECORD_MAX];

static bool same_records(const dfs_records *a, size_t ia, const dfs_records *b,
                         size_t ib)
{
	size_t la = dfs_record_size(a, ia), lb = dfs_record_size(b, ib);
	return la == lb && memcmp(dfs_record_get(a, ia, scratch_a),
	                          dfs_record_get(b, ib, scratch_b), la) == 0;
}

/* the version the writer must choose for the records of a module */
static uint32_t expected_version(const dfs_records *r)
{
	const dfs_module *m = r->module;
	if (m->id != DFS_MOD_DXT_POSIX && m->id != DFS_MOD_DXT_MPIIO)
		return m->version;
	bool missing = false, present = false;
	for (size_t i = 0; i < r->count; i++) {
		const unsigned char *rec = dfs_record(r, i);
		size_t n = (dfs_record_size(r, i) - DXT_FIXED) / DXT_SEG;
		for (size_t s = 0; s < n; s++) {
			uint64_t t;
			memcpy(&t, rec + DXT_FIXED + DXT_SEG * s + 32, 8);
			if (t == UINT64_MAX)
				missing = true;
			else
				present = true;
		}
	}
	if (missing && !present)
		return m->id == DFS_MOD_DXT_POSIX ? 1 : 2;
	return m->version;
}

static void compare_job(const char *label, const dfs_log *a, const dfs_log *b)
{
	const dfs_job *ja = dfs_log_job(a), *jb = dfs_log_job(b);
	CHECK(ja->uid == jb->uid && ja->start_sec == jb->start_sec &&
	      ja->start_nsec == jb->start_nsec && ja->end_sec == jb->end_sec &&
	      ja->end_nsec == jb->end_nsec && ja->nprocs == jb->nprocs &&
	      ja->jobid == jb->jobid, "%s: job fields", label);
	CHECK(strcmp(ja->exe, jb->exe) == 0, "%s: exe", label);
	CHECK(strcmp(ja->metadata, jb->metadata) == 0, "%s: metadata", label);
	size_t n = dfs_log_mount_count(a);
	CHECK(n == dfs_log_mount_count(b), "%s: mount count %zu vs %zu", label, n,
	      dfs_log_mount_count(b));
	for (size_t i = 0; i < n && i < dfs_log_mount_count(b); i++) {
		const dfs_mount *ma = dfs_log_mount(a, i), *mb = dfs_log_mount(b, i);
		CHECK(strcmp(ma->path, mb->path) == 0 && strcmp(ma->type, mb->type) == 0,
		      "%s: mount %zu: %s %s vs %s %s", label, i, ma->path, ma->type,
		      mb->path, mb->type);
	}
}

static size_t compare_names(const char *label, const dfs_log *a, const dfs_log *b)
{
	size_t n = dfs_log_name_count(a);
	CHECK(n == dfs_log_name_count(b), "%s: %zu names vs %zu", label, n,
	      dfs_log_name_count(b));
	if (n != dfs_log_name_count(b))
		return 0;
	for (size_t i = 0; i < n; i++) {
		const dfs_name *x = dfs_log_name_at(a, i), *y = dfs_log_name_at(b, i);
		CHECK(x->id == y->id && x->len == y->len &&
		      memcmp(x->str, y->str, x->len) == 0, "%s: name %zu", label, i);
	}
	return n;
}

/* Everything of `a` is in `b`; returns the number of records compared. */
static size_t compare_logs(const char *label, const dfs_log *a, const dfs_log *b)
{
	const dfs_log_header *ha = dfs_log_get_header(a), *hb = dfs_log_get_header(b);
	CHECK(strcmp(hb->version, "3.41") == 0, "%s: version %s", label, hb->version);
	CHECK(ha->partial_flag == hb->partial_flag, "%s: partial flag %" PRIx64
	      " vs %" PRIx64, label, ha->partial_flag, hb->partial_flag);
	compare_job(label, a, b);
	compare_names(label, a, b);
	size_t records = 0;
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		const dfs_records *ra = dfs_log_records(a, id), *rb = dfs_log_records(b, id);
		const dfs_log_module *ma = dfs_log_get_module(a, id);
		const dfs_log_module *mb = dfs_log_get_module(b, id);
		CHECK(ma->partial == mb->partial, "%s: module %d partial", label, id);
		CHECK(!ra == !rb, "%s: module %d presence %d vs %d (%s)", label, id, !!ra,
		      !!rb, mb->error ? mb->error : "no error");
		if (!ra || !rb)
			continue;
		CHECK(mb->present, "%s: module %d not present", label, id);
		CHECK(rb->version == expected_version(ra), "%s: module %d version %u",
		      label, id, rb->version);
		CHECK(ra->count == rb->count, "%s: module %d: %zu records vs %zu", label,
		      id, ra->count, rb->count);
		if (ra->count != rb->count)
			continue;
		bool same = true;
		for (size_t i = 0; i < ra->count && same; i++)
			same = same_records(ra, i, rb, i);
		CHECK(same, "%s: module %d records differ", label, id);
		if (ra->offsets)
			CHECK(memcmp(ra->offsets, rb->offsets,
			             (ra->count + 1) * sizeof(size_t)) == 0,
			      "%s: module %d record boundaries", label, id);
		records += ra->count;
	}
	return records;
}

/* ---- the oracle -------------------------------------------------------- */

static bool load_file(const char *path, bool gz, dfs_buf *out)
{
	if (gz) {
		gzFile f = gzopen(path, "rb");
		if (!f)
			return false;
		char chunk[65536];
		int n;
		while ((n = gzread(f, chunk, sizeof(chunk))) > 0)
			dfs_buf_add(out, chunk, (size_t)n);
		gzclose(f);
		return n == 0;
	}
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		dfs_buf_add(out, chunk, n);
	fclose(f);
	return true;
}

/* base.txt of a log; false if absent.  *truncated: darshan-parser aborted */
static bool load_oracle(const char *name, dfs_buf *out, bool *truncated)
{
	char path[4400];
	snprintf(path, sizeof(path), "%s/oracle/parser/%s/base.rc", shared_root(), name);
	dfs_buf rc = DFS_BUF_INIT;
	*truncated = load_file(path, false, &rc) && rc.len && atoi(rc.data) != 0;
	dfs_buf_free(&rc);
	snprintf(path, sizeof(path), "%s/oracle/parser/%s/base.txt", shared_root(), name);
	if (load_file(path, false, out))
		return true;
	snprintf(path, sizeof(path), "%s/oracle/parser/%s/base.txt.gz", shared_root(), name);
	return load_file(path, true, out);
}

/* Record lines and mount lines.  Empty lines are left out: the module
 * description blocks, whose version warnings differ between the original's
 * stored version and the current one, carry empty lines of their own. */
static bool compared_line(const char *s, size_t len)
{
	return (len > 0 && s[0] != '#') ||
	       (len >= 13 && memcmp(s, "# mount entry", 13) == 0);
}

/* next compared line of text[*pos..len); false at the end */
static bool next_line(const dfs_buf *t, size_t *pos, const char **s, size_t *len,
                      bool *complete)
{
	while (*pos < t->len) {
		const char *p = t->data + *pos;
		const char *nl = memchr(p, '\n', t->len - *pos);
		size_t n = nl ? (size_t)(nl - p) : t->len - *pos;
		*pos += n + (nl ? 1 : 0);
		if (compared_line(p, n)) {
			*s = p;
			*len = n;
			*complete = nl != NULL;
			return true;
		}
	}
	return false;
}

/* Compare the record and mount lines; returns lines matched, -1 on a
 * mismatch (reported). */
static long compare_text(const char *label, const dfs_buf *ours,
                         const dfs_buf *oracle, bool truncated)
{
	size_t pa = 0, pb = 0;
	long matched = 0;
	for (;;) {
		const char *a, *b;
		size_t la, lb;
		bool ca, cb;
		bool ha = next_line(ours, &pa, &a, &la, &ca);
		bool hb = next_line(oracle, &pb, &b, &lb, &cb);
		if (!hb) {
			if (ha && !truncated) {
				CHECK(0, "%s: extra line '%.*s'", label, (int)la, a);
				return -1;
			}
			return matched;
		}
		if (!ha) {
			CHECK(0, "%s: missing line '%.*s'", label, (int)lb, b);
			return -1;
		}
		bool same = cb || !truncated ? (la == lb && memcmp(a, b, la) == 0)
		                             : (lb <= la && memcmp(a, b, lb) == 0);
		if (!same) {
			CHECK(0, "%s: line '%.*s' vs oracle '%.*s'", label, (int)la, a,
			      (int)lb, b);
			return -1;
		}
		matched++;
	}
}

/* ---- round trip of the shared set -------------------------------------- */

struct tally {
	int logs, bzip2, oracle, prefix, no_oracle;
	size_t records, names, lines;
};

static void round_trip_one(const char *name, bool bzip2, struct tally *t)
{
	dfs_log *orig = open_shared(name);
	CHECK(orig, "%s: cannot open the original", name);
	if (!orig)
		return;
	dfs_buf buf = DFS_BUF_INIT;
	int ret = write_selection(orig, NULL, DFS_COMP_ZLIB, &buf);
	CHECK(ret == 0, "%s: write", name);
	dfs_log *back = ret ? NULL : reopen(&buf, name);
	CHECK(back, "%s: cannot read the rewritten log", name);
	if (back) {
		CHECK(dfs_log_get_header(back)->comp_type == DFS_COMP_ZLIB, "%s: zlib", name);
		t->records += compare_logs(name, orig, back);
		t->names += dfs_log_name_count(back);
		t->logs++;
		dfs_buf oracle = DFS_BUF_INIT, text = DFS_BUF_INIT;
		bool truncated;
		if (load_oracle(name, &oracle, &truncated)) {
			dfs_report_parser(back, DFS_REPORT_BASE, &text, NULL);
			long n = compare_text(name, &text, &oracle, truncated);
			if (n >= 0) {
				t->lines += (size_t)n;
				t->oracle++;
				t->prefix += truncated;
			}
		} else {
			t->no_oracle++;
			printf("  %s: no oracle output, text not compared\n", name);
		}
		dfs_buf_free(&oracle);
		dfs_buf_free(&text);
	}
	dfs_log_free(back);
	if (bzip2) {
		dfs_buf_reset(&buf);
		ret = write_desc(orig, DFS_COMP_BZIP2, &buf);
		CHECK(ret == 0, "%s: bzip2 write", name);
		back = ret ? NULL : reopen(&buf, name);
		CHECK(back, "%s: cannot read the bzip2 log", name);
		if (back) {
			CHECK(dfs_log_get_header(back)->comp_type == DFS_COMP_BZIP2, "%s: bz", name);
			compare_logs(name, orig, back);
			t->bzip2++;
		}
		dfs_log_free(back);
	}
	dfs_buf_free(&buf);
	dfs_log_free(orig);
}

static void test_round_trip_shared_logs(void **state)
{
	(void)state;
	if (!have_shared())
		return;
	struct names logs = list_logs();
	assert_true(logs.n > 0);
	struct tally t = {0};
	failures = 0;
	size_t skipped = 0;
	for (size_t i = 0; i < logs.n; i++) {
		char path[4300];
		snprintf(path, sizeof(path), "%s/darshan-logs/%s", shared_root(), logs.v[i]);
		if (shared_quick_skip(path)) {
			skipped++;
			continue;
		}
		round_trip_one(logs.v[i], i % 8 == 0, &t);
	}
	if (skipped)
		printf("DFS_TEST_QUICK: %zu big logs of a job already checked left out\n", skipped);
	printf("writer round trip: %d logs (%d also as bzip2): %zu records and %zu "
	       "names identical\n", t.logs, t.bzip2, t.records, t.names);
	printf("darshan-parser text of rewritten logs: %zu record/mount lines match "
	       "the oracle in %d logs (%d compared as a prefix, %d without oracle)\n",
	       t.lines, t.oracle, t.prefix, t.no_oracle);
	free_names(&logs);
	assert_int_equal(failures, 0);
}

/* ---- selections -------------------------------------------------------- */

struct id_list {
	uint64_t *v;
	size_t n, cap;
};

static void ids_add(struct id_list *l, uint64_t id)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n++] = id;
}

static bool ids_has(const struct id_list *l, uint64_t id)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i] == id)
			return true;
	return false;
}

/* the ids a record uses: its own, and the ids some counters refer to */
static void record_ids(const dfs_module *m, const unsigned char *rec,
                       struct id_list *l)
{
	static const char *const refs[] = {"POSIX_RENAMED_FROM", "H5D_FILE_REC_ID",
	                                   "PNETCDF_VAR_FILE_REC_ID"};
	ids_add(l, dfs_record_id(rec));
	for (size_t k = 0; k < sizeof(refs) / sizeof(refs[0]); k++) {
		int f = dfs_module_field_index(m, refs[k], strlen(refs[k]));
		if (f < 0)
			continue;
		uint64_t v;
		memcpy(&v, rec + m->fields[f].offset, 8);
		if (v)
			ids_add(l, v);
	}
}

/* Write `log` with module `id` filtered to the records `keep` accepts and
 * the other modules whole (or left out: `alone`); check the result.
 * Returns the number of names left out. */
static size_t check_selection(const char *label, const dfs_log *log, int id,
                              bool (*keep)(size_t i, const unsigned char *rec),
                              bool alone)
{
	const dfs_records *r = dfs_log_records(log, id);
	assert_non_null(r);
	size_t *index = malloc((r->count + 1) * sizeof(size_t)), n = 0;
	for (size_t i = 0; i < r->count; i++)
		if (keep(i, dfs_record_get(r, i, scratch_a)))
			index[n++] = i;
	dfs_write_selection sel;
	memset(&sel, 0, sizeof(sel));
	for (int m = 0; m < DFS_MOD_SLOTS && alone; m++)
		sel.module[m].mode = DFS_SELECT_NONE;
	sel.module[id].mode = DFS_SELECT_INDEX;
	sel.module[id].index = index;
	sel.module[id].count = n;
	dfs_buf buf = DFS_BUF_INIT;
	assert_int_equal(write_selection(log, &sel, DFS_COMP_ZLIB, &buf), 0);
	dfs_log *back = reopen(&buf, label);
	assert_non_null(back);
	failures = 0;
	compare_job(label, log, back);
	struct id_list used = {0};
	for (int m = 0; m < DFS_MOD_SLOTS; m++) {
		const dfs_records *a = dfs_log_records(log, m), *b = dfs_log_records(back, m);
		if (alone && m != id)
			a = NULL;
		CHECK(!a == !b, "%s: module %d presence", label, m);
		if (!a || !b)
			continue;
		size_t want = m == id ? n : a->count;
		CHECK(b->count == want, "%s: module %d has %zu records, want %zu", label,
		      m, b->count, want);
		for (size_t k = 0; k < want && k < b->count; k++) {
			size_t i = m == id ? index[k] : k;
			CHECK(same_records(a, i, b, k), "%s: module %d record %zu", label, m, k);
			record_ids(a->module, dfs_record_get(a, i, scratch_a), &used);
		}
	}
	/* exactly the names used, in the original order */
	size_t j = 0, dropped = 0;
	for (size_t i = 0; i < dfs_log_name_count(log); i++) {
		const dfs_name *nm = dfs_log_name_at(log, i);
		if (!ids_has(&used, nm->id)) {
			dropped++;
			continue;
		}
		CHECK(j < dfs_log_name_count(back) && dfs_log_name_at(back, j)->id == nm->id,
		      "%s: name %zu (%s) missing", label, i, nm->str);
		j++;
	}
	CHECK(j == dfs_log_name_count(back), "%s: %zu names written, %zu used", label,
	      dfs_log_name_count(back), j);
	printf("selection %s: %zu of %zu %s records, %zu of %zu names\n", label, n,
	       r->count, r->module->name, j, dfs_log_name_count(log));
	assert_int_equal(failures, 0);
	free(used.v);
	free(index);
	dfs_log_free(back);
	dfs_buf_free(&buf);
	return dropped;
}

static bool every_other(size_t i, const unsigned char *rec)
{
	(void)rec;
	return i % 2 == 0;
}

static bool rank_zero(size_t i, const unsigned char *rec)
{
	(void)i;
	return dfs_record_rank(rec) == 0;
}

static bool first_three(size_t i, const unsigned char *rec)
{
	(void)rec;
	return i < 3;
}

static void test_selection(void **state)
{
	(void)state;
	if (!have_shared())
		return;
	static const struct {
		const char *log;
		int module;
		bool (*keep)(size_t, const unsigned char *);
		bool alone;      /* other modules left out */
	} cases[] = {
		{"treddy_mpi-io-test_id4373053_6-2-60198-9815401321915095332_1.darshan",
		 DFS_MOD_POSIX, rank_zero, false},
		{"treddy_mpi-io-test_id4373053_6-2-60198-9815401321915095332_1.darshan",
		 DFS_MOD_MPIIO, every_other, true},
		{"hdf5_diagonal_write_1_byte_dxt.darshan", DFS_MOD_H5D, first_three, true},
		{"shane_ior-PNETCDF_id438100-438100_11-9-41525-10280033558448664385_1.darshan",
		 DFS_MOD_PNETCDF_VAR, first_three, true},
		{"dxt.darshan", DFS_MOD_DXT_POSIX, every_other, false},
		{"snyder_ior-DFS_id4681120-53379_5-8-15060-3270540599978592154_1.darshan",
		 DFS_MOD_DAOS, first_three, false},
		{"e3sm_io_heatmap_only.darshan", DFS_MOD_HEATMAP, rank_zero, false},
	};
	size_t dropped = 0;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		dfs_log *log = open_shared(cases[c].log);
		if (!log) {
			printf("skipped selection on %s: not in the shared set\n", cases[c].log);
			continue;
		}
		dropped += check_selection(cases[c].log, log, cases[c].module, cases[c].keep,
		                           cases[c].alone);
		dfs_log_free(log);
	}
	assert_true(dropped > 0); /* some selections need fewer names */
}

static bool select_rank_minus_one(void *ctx, const dfs_module *m, size_t i,
                                  const unsigned char *rec, size_t len)
{
	(void)m, (void)i, (void)len;
	(*(int *)ctx)++;
	return dfs_record_rank(rec) == -1;
}

/* NONE drops a module; FN asks once per record; APMPI keeps its header */
static void test_selection_modes(void **state)
{
	(void)state;
	if (!have_shared())
		return;
	dfs_log *log = open_shared("mpi-io-test-x86_64-3.4.7.darshan");
	if (!log) {
		printf("skipped: mpi-io-test-x86_64-3.4.7.darshan absent\n");
		return;
	}
	int calls = 0;
	size_t apmpi_pick[] = {2};
	dfs_write_selection sel;
	memset(&sel, 0, sizeof(sel));
	sel.module[DFS_MOD_MPIIO].mode = DFS_SELECT_NONE;
	sel.module[DFS_MOD_POSIX].mode = DFS_SELECT_FN;
	sel.module[DFS_MOD_APMPI].mode = DFS_SELECT_INDEX;
	sel.module[DFS_MOD_APMPI].index = apmpi_pick;
	sel.module[DFS_MOD_APMPI].count = 1;
	sel.module[DFS_MOD_STDIO].mode = DFS_SELECT_INDEX; /* count 0: empty */
	sel.select = select_rank_minus_one;
	sel.ctx = &calls;
	dfs_buf buf = DFS_BUF_INIT;
	assert_int_equal(write_selection(log, &sel, DFS_COMP_ZLIB, &buf), 0);
	dfs_log *back = reopen(&buf, "modes");
	assert_non_null(back);
	const dfs_records *posix = dfs_log_records(log, DFS_MOD_POSIX);
	assert_int_equal(calls, (int)posix->count);
	assert_null(dfs_log_records(back, DFS_MOD_MPIIO));
	assert_false(dfs_log_get_module(back, DFS_MOD_MPIIO)->present);
	const dfs_records *bp = dfs_log_records(back, DFS_MOD_POSIX);
	size_t shared_recs = 0;
	for (size_t i = 0; i < posix->count; i++)
		if (dfs_record_rank(dfs_record_get(posix, i, scratch_a)) == -1)
			assert_true(same_records(posix, i, bp, shared_recs++));
	assert_int_equal(bp->count, shared_recs);
	const dfs_records *ap = dfs_log_records(log, DFS_MOD_APMPI);
	const dfs_records *bap = dfs_log_records(back, DFS_MOD_APMPI);
	assert_non_null(bap);
	assert_int_equal(bap->count, 2);
	assert_true(same_records(ap, 0, bap, 0));
	assert_true(same_records(ap, 2, bap, 1));
	const dfs_records *bs = dfs_log_records(back, DFS_MOD_STDIO);
	assert_non_null(bs);
	assert_int_equal(bs->count, 0);
	assert_true(dfs_log_get_module(back, DFS_MOD_STDIO)->present);
	/* an index out of range is refused */
	size_t bad[] = {100000};
	sel.module[DFS_MOD_APMPI].index = bad;
	dfs_buf_reset(&buf);
	dfs_error err = {0};
	dfs_log_writer *w = dfs_log_writer_buf(&buf, NULL, &err);
	assert_int_equal(dfs_log_write_selection(w, log, &sel, &err), -1);
	assert_int_equal(err.code, DFS_ERR_INVAL);
	dfs_log_writer_free(w);
	dfs_log_free(back);
	dfs_log_free(log);
	dfs_buf_free(&buf);
}

/* ---- hand-made logs ---------------------------------------------------- */

static const dfs_mount two_mounts[] = {
	{"/lus/grand", "lustre", 10},
	{"/home", "nfs", 5},
};

static dfs_job small_job(void)
{
	dfs_job j;
	memset(&j, 0, sizeof(j));
	j.uid = 1234;
	j.start_sec = 1760000000;
	j.start_nsec = 5;
	j.end_sec = 1760000100;
	j.end_nsec = 7;
	j.nprocs = 4;
	j.jobid = 42;
	j.metadata = "lib_ver=3.5.0\n";
	j.exe = "/bin/app -x";
	return j;
}

/* a DXT record with one write segment per thread id given */
static void dxt_record(dfs_records *r, uint64_t id, const uint64_t *threads,
                       size_t n)
{
	unsigned char *rec = dfs_records_append(r, DXT_FIXED + DXT_SEG * n);
	assert_non_null(rec);
	int64_t wc = (int64_t)n, rank = 1;
	memcpy(rec, &id, 8);
	memcpy(rec + 8, &rank, 8);
	strcpy((char *)rec + 24, "nid00001");
	memcpy(rec + 88, &wc, 8);
	for (size_t k = 0; k < n; k++) {
		unsigned char *s = rec + DXT_FIXED + DXT_SEG * k;
		int64_t off = (int64_t)k * 4096, len = 4096;
		double t0 = (double)k, t1 = t0 + 0.5;
		memcpy(s, &off, 8);
		memcpy(s + 8, &len, 8);
		memcpy(s + 16, &t0, 8);
		memcpy(s + 24, &t1, 8);
		memcpy(s + 32, &threads[k], 8);
	}
}

static dfs_log *write_dxt(const uint64_t *threads, size_t n, dfs_buf *buf)
{
	dfs_records r;
	dfs_records_init(&r, dfs_module_get(DFS_MOD_DXT_POSIX), 2);
	dxt_record(&r, 77, threads, n);
	dxt_record(&r, 78, threads, 0);
	dfs_job job = small_job();
	dfs_log_desc d;
	memset(&d, 0, sizeof(d));
	d.job = &job;
	d.mounts = two_mounts;
	d.nmounts = 2;
	d.modules[DFS_MOD_DXT_POSIX] = &r;
	dfs_error err = {0};
	dfs_log_writer *w = dfs_log_writer_buf(buf, NULL, &err);
	assert_int_equal(dfs_log_write(w, &d, &err), 0);
	dfs_log_writer_free(w);
	dfs_records_free(&r);
	dfs_log *log = reopen(buf, "dxt");
	assert_non_null(log);
	return log;
}

static uint64_t thread_of(const dfs_records *r, size_t i, size_t seg)
{
	uint64_t t;
	memcpy(&t, dfs_record(r, i) + DXT_FIXED + DXT_SEG * seg + 32, 8);
	return t;
}

static void test_dxt_versions(void **state)
{
	(void)state;
	dfs_buf buf = DFS_BUF_INIT;
	/* no thread ids at all: stored with 32-byte segments (v1) */
	uint64_t none[2] = {UINT64_MAX, UINT64_MAX};
	dfs_log *log = write_dxt(none, 2, &buf);
	const dfs_records *r = dfs_log_records(log, DFS_MOD_DXT_POSIX);
	assert_int_equal(r->version, 1);
	assert_int_equal(dfs_log_get_header(log)->mod_ver[DFS_MOD_DXT_POSIX], 1);
	assert_int_equal(thread_of(r, 0, 1), UINT64_MAX);
	dfs_log_free(log);
	/* thread ids: current version, a missing one becomes 0 */
	uint64_t mixed[2] = {7, UINT64_MAX};
	dfs_buf_reset(&buf);
	log = write_dxt(mixed, 2, &buf);
	r = dfs_log_records(log, DFS_MOD_DXT_POSIX);
	assert_int_equal(r->version, 2);
	assert_int_equal(r->count, 2);
	assert_int_equal(thread_of(r, 0, 0), 7);
	assert_int_equal(thread_of(r, 0, 1), 0);
	dfs_log_free(log);
	/* no segments at all: current version */
	dfs_buf_reset(&buf);
	log = write_dxt(none, 0, &buf);
	assert_int_equal(dfs_log_records(log, DFS_MOD_DXT_POSIX)->version, 2);
	dfs_log_free(log);
	dfs_buf_free(&buf);
}

static void test_writer_refuses_misuse(void **state)
{
	(void)state;
	dfs_buf buf = DFS_BUF_INIT;
	dfs_error err = {0};
	dfs_write_options bad_level = {DFS_COMP_ZLIB, 10, 1};
	assert_null(dfs_log_writer_buf(&buf, &bad_level, &err));
	dfs_write_options none = {DFS_COMP_NONE, 0, 1};
	assert_null(dfs_log_writer_buf(&buf, &none, &err));

	dfs_log_writer *w = dfs_log_writer_buf(&buf, NULL, &err);
	assert_non_null(w);
	assert_int_equal(dfs_log_writer_finish(w, 0, &err), -1);
	assert_int_equal(dfs_log_writer_module_begin(w, 1, 0, &err), -1);
	dfs_job job = small_job();
	dfs_mount blank[] = {{"/my dir", "nfs", 7}};
	assert_int_equal(dfs_log_writer_job(w, &job, blank, 1, &err), -1);
	assert_int_equal(err.code, DFS_ERR_INVAL);
	job.exe = "two\nlines";
	assert_int_equal(dfs_log_writer_job(w, &job, two_mounts, 2, &err), -1);
	job = small_job();
	assert_int_equal(dfs_log_writer_job(w, &job, two_mounts, 2, &err), 0);
	assert_int_equal(dfs_log_writer_job(w, &job, two_mounts, 2, &err), -1);
	assert_int_equal(dfs_log_writer_name(w, 5, "/home/x", 7, &err), 0);
	assert_int_equal(dfs_log_writer_module_begin(w, 9, 0, &err), 0);
	assert_int_equal(dfs_log_writer_module_begin(w, 10, 0, &err), -1); /* open */
	unsigned char rec[248] = {0};
	assert_int_equal(dfs_log_writer_record(w, rec, 100, &err), -1); /* size */
	assert_int_equal(err.code, DFS_ERR_INVAL);
	assert_int_equal(dfs_log_writer_record(w, rec, sizeof(rec), &err), 0);
	assert_int_equal(dfs_log_writer_module_end(w, &err), 0);
	assert_int_equal(dfs_log_writer_name(w, 6, "/home/y", 7, &err), -1);
	assert_int_equal(dfs_log_writer_module_begin(w, 2, 0, &err), -1); /* order */
	assert_int_equal(dfs_log_writer_module_begin(w, 64, 0, &err), -1);
	assert_int_equal(dfs_log_writer_module_begin(w, 1, 99, &err), -1);
	/* flagged partial: STDIO (with data) and MPI-IO (without) */
	uint64_t flags = (1ULL << 9) | (1ULL << DFS_MOD_MPIIO);
	assert_int_equal(dfs_log_writer_finish(w, flags, &err), 0);
	assert_int_equal(dfs_log_writer_finish(w, 0, &err), -1);
	dfs_log_writer_free(w);

	dfs_log *log = reopen(&buf, "misuse");
	assert_non_null(log);
	assert_int_equal(dfs_log_records(log, DFS_MOD_STDIO)->count, 1);
	assert_true(dfs_log_get_module(log, DFS_MOD_STDIO)->partial);
	assert_int_equal(dfs_log_name_count(log), 1);
	/* every slot answers, with or without data or flag */
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		const dfs_log_module *lm = dfs_log_get_module(log, id);
		assert_non_null(lm);
		assert_ptr_equal(lm->module, dfs_module_get(id));
		assert_int_equal(lm->present, id == DFS_MOD_STDIO);
		assert_int_equal(lm->partial, ((flags >> id) & 1) != 0);
		assert_int_equal(lm->status, DFS_OK);
		assert_null(lm->error);
		if (id != DFS_MOD_STDIO)
			assert_null(dfs_log_records(log, id));
	}
	dfs_log_free(log);
	/* read without its modules: no slot has a module */
	log = dfs_log_open_mem(buf.data, buf.len, "header", DFS_LOG_HEADER_ONLY, &err);
	assert_non_null(log);
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		assert_null(dfs_log_get_module(log, id)->module);
		assert_false(dfs_log_get_module(log, id)->present);
	}
	dfs_log_free(log);
	dfs_buf_free(&buf);
}

/* the 3015 bytes of exe and mount text; an exe needs a mount to be read */
static void test_job_text_limits(void **state)
{
	(void)state;
	dfs_buf buf = DFS_BUF_INIT;
	dfs_error err = {0};
	char *exe = malloc(5001), meta[1025];
	memset(exe, 'x', 5000);
	exe[5000] = '\0';
	memset(meta, 'k', 1024);
	meta[1] = '=';
	meta[1024] = '\0';
	dfs_job job = small_job();
	job.exe = exe;
	job.metadata = meta;
	dfs_log_writer *w = dfs_log_writer_buf(&buf, NULL, &err);
	assert_int_equal(dfs_log_writer_job(w, &job, two_mounts, 2, &err), 0);
	assert_int_equal(dfs_log_writer_finish(w, 0, &err), 0);
	dfs_log_writer_free(w);
	dfs_log *log = reopen(&buf, "long exe");
	assert_non_null(log);
	const char *e = dfs_log_job(log)->exe;
	size_t mount_text = strlen("\nlustre\t/lus/grand\nnfs\t/home");
	assert_int_equal(strlen(e) + mount_text, 3015);
	assert_string_equal(e + strlen(e) - 11, "<TRUNCATED>");
	assert_int_equal(dfs_log_mount_count(log), 2);
	assert_string_equal(dfs_log_job(log)->metadata, meta);
	/* an empty log: the name map points past the job region */
	const dfs_log_header *h = dfs_log_get_header(log);
	assert_int_equal(h->names.len, 0);
	assert_int_equal(h->names.off, 1328 + h->job.len);
	assert_int_equal(dfs_log_file_size(log), h->names.off);
	dfs_buf text = DFS_BUF_INIT;
	dfs_report_parser(log, DFS_REPORT_BASE, &text, NULL);
	assert_non_null(strstr(text.data, "# no module data available."));
	dfs_buf_free(&text);
	dfs_log_free(log);

	/* no mounts: readers report an empty exe (format quirk) */
	job.exe = "/bin/app";
	dfs_buf_reset(&buf);
	w = dfs_log_writer_buf(&buf, NULL, &err);
	assert_int_equal(dfs_log_writer_job(w, &job, NULL, 0, &err), 0);
	assert_int_equal(dfs_log_writer_finish(w, 0, &err), 0);
	dfs_log_writer_free(w);
	log = reopen(&buf, "no mounts");
	assert_non_null(log);
	assert_string_equal(dfs_log_job(log)->exe, "");
	dfs_log_free(log);
	free(exe);
	dfs_buf_free(&buf);
}

/* ---- layout, streams, determinism -------------------------------------- */

static int write_synth(const dfs_synth_options *o, const dfs_write_options *wo,
                       dfs_buf *out)
{
	dfs_error err = {0};
	dfs_log_writer *w = dfs_log_writer_buf(out, wo, &err);
	int ret = w ? dfs_synth_write(w, o, &err) : -1;
	if (ret)
		fprintf(stderr, "synth: %s\n", err.msg);
	dfs_log_writer_free(w);
	return ret;
}

/* the region is exactly one complete stream */
static bool one_stream(int comp, const unsigned char *p, uint64_t len)
{
	unsigned char out[65536];
	if (comp == DFS_COMP_ZLIB) {
		z_stream zs;
		memset(&zs, 0, sizeof(zs));
		inflateInit(&zs);
		zs.next_in = (unsigned char *)p;
		zs.avail_in = (uInt)len;
		int ret;
		do {
			zs.next_out = out;
			zs.avail_out = sizeof(out);
			ret = inflate(&zs, Z_NO_FLUSH);
		} while (ret == Z_OK);
		bool ok = ret == Z_STREAM_END && zs.avail_in == 0;
		inflateEnd(&zs);
		return ok;
	}
	bz_stream bz;
	memset(&bz, 0, sizeof(bz));
	BZ2_bzDecompressInit(&bz, 0, 0);
	bz.next_in = (char *)p;
	bz.avail_in = (unsigned)len;
	int ret;
	do {
		bz.next_out = (char *)out;
		bz.avail_out = sizeof(out);
		ret = BZ2_bzDecompress(&bz);
	} while (ret == BZ_OK);
	bool ok = ret == BZ_STREAM_END && bz.avail_in == 0;
	BZ2_bzDecompressEnd(&bz);
	return ok;
}

static void check_layout(const dfs_buf *b)
{
	dfs_log *log = reopen(b, "layout");
	assert_non_null(log);
	const dfs_log_header *h = dfs_log_get_header(log);
	const unsigned char *p = (const unsigned char *)b->data;
	assert_int_equal(h->header_size, 1328);
	assert_int_equal(h->job.off, 1328);
	assert_true(one_stream(h->comp_type, p + h->job.off, h->job.len));
	uint64_t end = h->names.off;
	if (h->names.len) {
		assert_true(one_stream(h->comp_type, p + h->names.off, h->names.len));
		end += h->names.len;
	}
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		if (!h->mods[id].len)
			continue;
		assert_int_equal(h->mods[id].off, end); /* ascending, no gaps */
		assert_true(one_stream(h->comp_type, p + h->mods[id].off, h->mods[id].len));
		end += h->mods[id].len;
	}
	assert_int_equal(end, b->len);
	dfs_log_free(log);
}

static void test_layout_and_determinism(void **state)
{
	(void)state;
	/* 6000 POSIX records: several 1 MiB blocks per region */
	dfs_synth_options o = {.seed = 3, .records = 6000, .nprocs = 64};
	dfs_write_options one = {DFS_COMP_ZLIB, 0, 1}, three = {DFS_COMP_ZLIB, 0, 3};
	dfs_buf a = DFS_BUF_INIT, b = DFS_BUF_INIT;
	assert_int_equal(write_synth(&o, &one, &a), 0);
	for (int k = 0; k < 3; k++) {
		dfs_buf_reset(&b);
		assert_int_equal(write_synth(&o, &three, &b), 0);
		assert_int_equal(a.len, b.len);
		assert_memory_equal(a.data, b.data, a.len);
	}
	check_layout(&a);

	/* a regular file and a pipe get the same bytes as a buffer */
	char path[] = "/tmp/test_writer_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	dfs_error err = {0};
	dfs_log_writer *w = dfs_log_writer_fd(fd, &three, &err);
	assert_int_equal(dfs_synth_write(w, &o, &err), 0);
	dfs_log_writer_free(w);
	dfs_buf f = DFS_BUF_INIT;
	assert_true(lseek(fd, 0, SEEK_SET) == 0);
	char chunk[65536];
	ssize_t n;
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		dfs_buf_add(&f, chunk, (size_t)n);
	close(fd);
	assert_int_equal(f.len, a.len);
	assert_memory_equal(f.data, a.data, a.len);

	dfs_synth_options small = {.seed = 3, .records = 20};
	dfs_buf s = DFS_BUF_INIT, q = DFS_BUF_INIT;
	assert_int_equal(write_synth(&small, &one, &s), 0);
	assert_true(s.len < 60000); /* fits in a pipe without a reader */
	int pfd[2];
	assert_int_equal(pipe(pfd), 0);
	w = dfs_log_writer_fd(pfd[1], &one, &err);
	assert_int_equal(dfs_synth_write(w, &small, &err), 0);
	dfs_log_writer_free(w);
	close(pfd[1]);
	while ((n = read(pfd[0], chunk, sizeof(chunk))) > 0)
		dfs_buf_add(&q, chunk, (size_t)n);
	close(pfd[0]);
	assert_int_equal(q.len, s.len);
	assert_memory_equal(q.data, s.data, s.len);

	/* a file in append mode cannot take the header in place */
	char apath[] = "/tmp/test_writer_XXXXXX";
	fd = mkstemp(apath);
	assert_true(fd >= 0);
	close(fd);
	fd = open(apath, O_RDWR | O_APPEND);
	unlink(apath);
	assert_true(fd >= 0);
	w = dfs_log_writer_fd(fd, &one, &err);
	assert_int_equal(dfs_synth_write(w, &small, &err), 0);
	dfs_log_writer_free(w);
	dfs_buf_reset(&q);
	off_t at = 0;
	while ((n = pread(fd, chunk, sizeof(chunk), at)) > 0) {
		dfs_buf_add(&q, chunk, (size_t)n);
		at += n;
	}
	close(fd);
	assert_int_equal(q.len, s.len);
	assert_memory_equal(q.data, s.data, s.len);

	/* bzip2: one stream per region too */
	dfs_write_options bz = {DFS_COMP_BZIP2, 0, 1};
	dfs_buf_reset(&b);
	assert_int_equal(write_synth(&small, &bz, &b), 0);
	check_layout(&b);
	dfs_buf_free(&a);
	dfs_buf_free(&b);
	dfs_buf_free(&f);
	dfs_buf_free(&s);
	dfs_buf_free(&q);
}

/* ---- the synthetic generator ------------------------------------------- */

static int64_t geti(const dfs_module *m, const unsigned char *rec, const char *name)
{
	int f = dfs_module_field_index(m, name, strlen(name));
	assert_true(f >= 0);
	int64_t v;
	memcpy(&v, rec + m->fields[f].offset, 8);
	return v;
}

static double getf(const dfs_module *m, const unsigned char *rec, const char *name)
{
	int f = dfs_module_field_index(m, name, strlen(name));
	assert_true(f >= 0);
	double v;
	memcpy(&v, rec + m->fields[f].offset, 8);
	return v;
}

static int64_t sum_of(const dfs_module *m, const unsigned char *rec,
                      const char *const *names, size_t n)
{
	int64_t s = 0;
	for (size_t i = 0; i < n; i++)
		s += geti(m, rec, names[i]);
	return s;
}

static void check_posix_record(const dfs_log *log, const dfs_module *m,
                               const unsigned char *rec)
{
	static const char *const rbins[] = {
		"SIZE_READ_0_100", "SIZE_READ_100_1K", "SIZE_READ_1K_10K",
		"SIZE_READ_10K_100K", "SIZE_READ_100K_1M", "SIZE_READ_1M_4M",
		"SIZE_READ_4M_10M", "SIZE_READ_10M_100M", "SIZE_READ_100M_1G",
		"SIZE_READ_1G_PLUS"};
	static const char *const wbins[] = {
		"SIZE_WRITE_0_100", "SIZE_WRITE_100_1K", "SIZE_WRITE_1K_10K",
		"SIZE_WRITE_10K_100K", "SIZE_WRITE_100K_1M", "SIZE_WRITE_1M_4M",
		"SIZE_WRITE_4M_10M", "SIZE_WRITE_10M_100M", "SIZE_WRITE_100M_1G",
		"SIZE_WRITE_1G_PLUS"};
	static const char *const counts[] = {"ACCESS1_COUNT", "ACCESS2_COUNT",
	                                     "ACCESS3_COUNT", "ACCESS4_COUNT"};
	static const char *const stamps[] = {
		"F_OPEN_START_TIMESTAMP", "F_READ_START_TIMESTAMP",
		"F_WRITE_START_TIMESTAMP", "F_CLOSE_START_TIMESTAMP",
		"F_OPEN_END_TIMESTAMP", "F_READ_END_TIMESTAMP", "F_WRITE_END_TIMESTAMP",
		"F_CLOSE_END_TIMESTAMP"};
	int64_t reads = geti(m, rec, "READS"), writes = geti(m, rec, "WRITES");
	int64_t br = geti(m, rec, "BYTES_READ"), bw = geti(m, rec, "BYTES_WRITTEN");
	assert_int_equal(sum_of(m, rec, rbins, 10), reads);
	assert_int_equal(sum_of(m, rec, wbins, 10), writes);
	assert_int_equal(sum_of(m, rec, counts, 4), reads + writes);
	assert_true((reads == 0) == (br == 0) && (writes == 0) == (bw == 0));
	assert_true(br >= reads && bw >= writes);
	if (br)
		assert_true(geti(m, rec, "MAX_BYTE_READ") < br * 4 + 1);
	double run = dfs_log_job(log)->run_time;
	for (size_t i = 0; i < 8; i++) {
		double t = getf(m, rec, stamps[i]);
		assert_true(t >= 0 && t <= run);
	}
	if (reads)
		assert_true(getf(m, rec, "F_READ_START_TIMESTAMP") <=
		            getf(m, rec, "F_READ_END_TIMESTAMP"));
	assert_true(getf(m, rec, "F_MAX_READ_TIME") <= getf(m, rec, "F_READ_TIME") + 1e-9);
	int64_t rank = dfs_record_rank(rec);
	if (rank >= 0) {
		assert_int_equal(geti(m, rec, "FASTEST_RANK"), rank);
		assert_int_equal(geti(m, rec, "SLOWEST_RANK_BYTES"), br + bw);
	} else {
		assert_true(getf(m, rec, "F_FASTEST_RANK_TIME") <=
		            getf(m, rec, "F_SLOWEST_RANK_TIME"));
	}
}

static void test_synthetic_logs(void **state)
{
	(void)state;
	dfs_synth_options o = {
		.seed = 7, .records = 600, .nprocs = 32,
		.modules = DFS_SYNTH_MODULES,
	};
	dfs_write_options wo = {DFS_COMP_ZLIB, 1, 2};
	dfs_buf a = DFS_BUF_INIT, b = DFS_BUF_INIT;
	assert_int_equal(write_synth(&o, &wo, &a), 0);
	assert_int_equal(write_synth(&o, &wo, &b), 0);
	assert_int_equal(a.len, b.len); /* deterministic for a seed */
	assert_memory_equal(a.data, b.data, a.len);
	o.seed = 8;
	dfs_buf_reset(&b);
	assert_int_equal(write_synth(&o, &wo, &b), 0);
	assert_true(a.len != b.len || memcmp(a.data, b.data, a.len) != 0);

	dfs_log *log = reopen(&a, "synthetic");
	assert_non_null(log);
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		const dfs_log_module *lm = dfs_log_get_module(log, id);
		assert_int_equal(lm->status, DFS_OK);
		assert_int_equal(lm->present, ((DFS_SYNTH_MODULES >> id) & 1) != 0);
	}
	const dfs_records *posix = dfs_log_records(log, DFS_MOD_POSIX);
	const dfs_records *mpiio = dfs_log_records(log, DFS_MOD_MPIIO);
	const dfs_records *stdio_r = dfs_log_records(log, DFS_MOD_STDIO);
	const dfs_records *dxt = dfs_log_records(log, DFS_MOD_DXT_POSIX);
	assert_int_equal(posix->count, 600);
	assert_int_equal(stdio_r->count, 600);
	assert_true(mpiio->count > 0 && mpiio->count < 600);
	assert_true(dxt->count > 0);
	/* names: real record ids, every record named, known mounts */
	size_t shared_recs = 0, per_rank = 0;
	for (size_t i = 0; i < dfs_log_name_count(log); i++) {
		const dfs_name *nm = dfs_log_name_at(log, i);
		assert_int_equal(nm->id, dfs_hash_name(nm->str, nm->len));
		assert_true(nm->mount >= 0 || nm->str[0] == '<');
	}
	assert_non_null(dfs_log_name(log, dfs_hash_name("<STDOUT>", 8)));
	assert_non_null(dfs_log_name(log, dfs_hash_name("<STDERR>", 8)));
	int ids[] = {DFS_MOD_POSIX, DFS_MOD_MPIIO, DFS_MOD_STDIO, DFS_MOD_DXT_POSIX};
	for (size_t k = 0; k < 4; k++) {
		const dfs_records *r = dfs_log_records(log, ids[k]);
		for (size_t i = 0; i < r->count; i++)
			assert_non_null(dfs_log_name(log, dfs_record_word(r, i, 0)));
	}
	for (size_t i = 0; i < posix->count; i++) {
		const unsigned char *rec = dfs_record_get(posix, i, scratch_a);
		check_posix_record(log, posix->module, rec);
		if (dfs_record_rank(rec) < 0)
			shared_recs++;
		else
			per_rank++;
	}
	assert_true(shared_recs > 50 && per_rank > 50);
	/* MPI-IO moves the same bytes as POSIX for the same file and rank */
	for (size_t i = 0, j = 0; i < mpiio->count; i++) {
		const unsigned char *m = dfs_record_get(mpiio, i, scratch_a);
		while (j < posix->count &&
		       (dfs_record_word(posix, j, 0) != dfs_record_id(m) ||
		        (int64_t)dfs_record_word(posix, j, 1) != dfs_record_rank(m)))
			j++;
		assert_true(j < posix->count);
		const unsigned char *p = dfs_record_get(posix, j, scratch_b);
		assert_int_equal(geti(mpiio->module, m, "BYTES_READ"),
		                 geti(posix->module, p, "BYTES_READ"));
		assert_int_equal(geti(mpiio->module, m, "BYTES_WRITTEN"),
		                 geti(posix->module, p, "BYTES_WRITTEN"));
	}
	/* darshan-parser text renders without complaint */
	dfs_buf text = DFS_BUF_INIT, errs = DFS_BUF_INIT;
	dfs_report_parser(log, DFS_REPORT_BASE, &text, &errs);
	assert_int_equal(errs.len, 0);
	assert_true(text.len > 100000);
	printf("synthetic log: %zu bytes, %zu POSIX, %zu MPI-IO, %zu STDIO, %zu "
	       "DXT_POSIX records, %zu shared and %zu per-rank POSIX records\n", a.len,
	       posix->count, mpiio->count, stdio_r->count, dxt->count, shared_recs,
	       per_rank);
	dfs_buf_free(&text);
	dfs_buf_free(&errs);
	dfs_log_free(log);
	dfs_buf_free(&a);
	dfs_buf_free(&b);
}

/* ---- exports in the source's own format -------------------------------- */

static void shared_path(const char *name, char *path, size_t size)
{
	snprintf(path, size, "%s/darshan-logs/%s", shared_root(), name);
}

/* Every other record (0, 2, 4, ...) of every module darshanfs decodes. */
static dfs_export *every_other_export(const dfs_log *log, size_t **lists)
{
	dfs_export *x = calloc(1, sizeof(*x));
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		const dfs_records *r = dfs_log_records(log, id);
		lists[id] = NULL;
		if (!r)
			continue;
		lists[id] = malloc((r->count / 2 + 1) * sizeof(size_t));
		size_t n = 0;
		for (size_t i = 0; i < r->count; i += 2)
			lists[id][n++] = i;
		x->module[id].filtered = true;
		x->module[id].index = lists[id];
		x->module[id].count = n;
	}
	return x;
}

/* Does a record of `log` use `id` (its record id, or a field naming
 * another record: H5D/PNETCDF_VAR file records, POSIX renames)?  With
 * kept_only, only the records an every-other export keeps (the even
 * ones). */
static bool id_used(const dfs_log *log, uint64_t id, bool kept_only)
{
	static const char *const refs[] = {"POSIX_RENAMED_FROM", "H5D_FILE_REC_ID",
	                                   "PNETCDF_VAR_FILE_REC_ID"};
	for (int m = 0; m < DFS_MOD_SLOTS; m++) {
		const dfs_records *r = dfs_log_records(log, m);
		if (!r)
			continue;
		int ref = -1;
		for (size_t k = 0; k < 3 && ref < 0; k++)
			ref = dfs_module_field_index(r->module, refs[k], strlen(refs[k]));
		for (size_t i = 0; i < r->count; i += kept_only ? 2 : 1) {
			const unsigned char *rec = dfs_record_get(r, i, scratch_a);
			uint64_t other = 0;
			if (ref >= 0)
				memcpy(&other, rec + r->module->fields[ref].offset, 8);
			if (dfs_record_id(rec) == id || (kept_only && other == id))
				return true;
		}
	}
	return false;
}

/* The export of one log read back: the source's header fields, every
 * module's even records as decoded from the source, the names of dropped
 * records gone and every other name kept. */
static void check_export(const char *name, const dfs_log *a, const dfs_log *b)
{
	const dfs_log_header *ha = dfs_log_get_header(a), *hb = dfs_log_get_header(b);
	CHECK(strcmp(ha->version, hb->version) == 0 && ha->swapped == hb->swapped &&
	      ha->comp_type == hb->comp_type && ha->partial_flag == hb->partial_flag,
	      "%s: header %s/%d/%d vs %s/%d/%d", name, ha->version, ha->swapped,
	      ha->comp_type, hb->version, hb->swapped, hb->comp_type);
	CHECK(memcmp(ha->mod_ver, hb->mod_ver, sizeof(ha->mod_ver)) == 0,
	      "%s: module versions", name);
	compare_job(name, a, b);
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		const dfs_records *ra = dfs_log_records(a, id), *rb = dfs_log_records(b, id);
		CHECK((ha->mods[id].len > 0) == (hb->mods[id].len > 0),
		      "%s: module %d presence", name, id);
		if (!ra)
			continue;
		CHECK(rb && rb->count == (ra->count + 1) / 2, "%s: module %d: %zu of %zu "
		      "records", name, id, rb ? rb->count : 0, ra->count);
		bool same = rb != NULL;
		for (size_t i = 0; same && i < rb->count && 2 * i < ra->count; i++)
			same = same_records(ra, 2 * i, rb, i);
		CHECK(same, "%s: module %d: records differ", name, id);
	}
	for (size_t i = 0; i < dfs_log_name_count(a); i++) {
		const dfs_name *n = dfs_log_name_at(a, i);
		bool want = id_used(a, n->id, true) || !id_used(a, n->id, false);
		const dfs_name *got = dfs_log_name(b, n->id);
		CHECK(want == (got != NULL), "%s: name %" PRIu64 " %s", name, n->id,
		      want ? "lost" : "kept");
		CHECK(!got || (got->len == n->len && memcmp(got->str, n->str, n->len) == 0),
		      "%s: name %" PRIu64 " changed", name, n->id);
	}
}

static void test_export_shared_logs(void **state)
{
	(void)state;
	if (!have_shared())
		return;
	struct names logs = list_logs();
	size_t same = 0, filtered = 0;
	for (size_t k = 0; k < logs.n; k++) {
		char path[4300];
		shared_path(logs.v[k], path, sizeof(path));
		if (shared_quick_skip(path))
			continue;   /* (DFS_TEST_QUICK: the normal pass checks it) */
		dfs_error err = {0};
		dfs_log *log = dfs_log_open(path, 0, &err);
		if (!log)
			continue;
		/* nothing filtered: the log itself, byte for byte */
		dfs_export *none = calloc(1, sizeof(*none));
		dfs_buf out = DFS_BUF_INIT, orig = DFS_BUF_INIT;
		assert_true(load_file(path, false, &orig));
		int ret = dfs_log_export(log, path, none, &out, &err);
		CHECK(ret == 0 && out.len == orig.len && memcmp(out.data, orig.data, out.len) == 0,
		      "%s: unfiltered export is not the log (%s)", logs.v[k], ret ? err.msg : "");
		same += ret == 0 && out.len == orig.len;
		free(none);
		/* every other record of every module */
		size_t *lists[DFS_MOD_SLOTS];
		dfs_export *x = every_other_export(log, lists);
		dfs_buf_reset(&out);
		ret = dfs_log_export(log, path, x, &out, &err);
		CHECK(ret == 0, "%s: export failed: %s", logs.v[k], err.msg);
		dfs_log *back = ret == 0 ? reopen(&out, logs.v[k]) : NULL;
		CHECK(ret || back, "%s: export does not read", logs.v[k]);
		if (back) {
			check_export(logs.v[k], log, back);
			filtered++;
		}
		for (int id = 0; id < DFS_MOD_SLOTS; id++)
			free(lists[id]);
		free(x);
		dfs_log_free(back);
		dfs_log_free(log);
		dfs_buf_free(&out);
		dfs_buf_free(&orig);
	}
	printf("export: %zu logs unfiltered byte for byte, %zu filtered to every other "
	       "record in their own format\n", same, filtered);
	free_names(&logs);
	assert_int_equal(failures, 0);
}

/* Write `data` to a temporary file; its path in `path`. */
static void temp_log(const dfs_buf *data, char *path, size_t size)
{
	const char *dir = getenv("TMPDIR");
	snprintf(path, size, "%s/dfs-export-XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data->data, data->len), (ssize_t)data->len);
	close(fd);
}

static void test_export_metadata(void **state)
{
	(void)state;
	if (!have_shared())
		return;
	char path[4300];
	shared_path("mpi-io-test-x86_64-3.5.0.darshan", path, sizeof(path));
	dfs_error err = {0};
	dfs_log *log = dfs_log_open(path, 0, &err);
	assert_non_null(log);
	const char *orig = dfs_log_job(log)->metadata;
	dfs_export *x = calloc(1, sizeof(*x));
	/* three levels, the middle one far too long: cut, the last one whole */
	dfs_buf meta = DFS_BUF_INIT, out = DFS_BUF_INIT;
	dfs_buf_adds(&meta, "darshanfs_filter_dir:/=rank == 0\ndarshanfs_filter_log=");
	for (int i = 0; i < 2000; i++)
		dfs_buf_addc(&meta, 'x');
	dfs_buf_adds(&meta, "\ndarshanfs_filter_POSIX=rank == 1\n");
	x->metadata = meta.data;
	assert_int_equal(dfs_log_export(log, path, x, &out, &err), 0);
	dfs_log *back = reopen(&out, "metadata");
	assert_non_null(back);
	const char *m = dfs_log_job(back)->metadata;
	size_t n = strlen(orig);
	assert_memory_equal(m, orig, n);
	assert_int_equal(strlen(m), 1023);
	assert_true(strncmp(m + n, "darshanfs_filter_dir:/=rank == 0\ndarshanfs_filter_log=xxx",
	                    56) == 0);
	const char *tail = "xx...\ndarshanfs_filter_POSIX=rank == 1\n";
	assert_string_equal(m + strlen(m) - strlen(tail), tail);
	dfs_log_free(back);
	/* more levels than 1024 bytes can name: refused, nothing written */
	dfs_buf_reset(&meta);
	for (int i = 0; i < 40; i++)
		dfs_buf_printf(&meta, "darshanfs_filter_dir:/%030d=true\n", i);
	x->metadata = meta.data;
	dfs_buf_reset(&out);
	assert_int_equal(dfs_log_export(log, path, x, &out, &err), -1);
	assert_int_equal(err.code, DFS_ERR_TOOBIG);
	assert_int_equal(out.len, 0);
	/* the log changed since it was read: refused */
	char other[4300];
	shared_path("mpi-io-test-x86_64-3.4.7.darshan", other, sizeof(other));
	x->metadata = NULL;
	assert_int_equal(dfs_log_export(log, other, x, &out, &err), -1);
	assert_int_equal(err.code, DFS_ERR_IO);
	free(x);
	dfs_buf_free(&meta);
	dfs_buf_free(&out);
	dfs_log_free(log);
}

static void test_export_damaged_and_imported(void **state)
{
	(void)state;
	if (!have_shared())
		return;
	char path[4300], tmp[4400];
	/* sample-dxt-simple.darshan (3.21) with its DXT_POSIX region (old
	 * slot 9) made undecodable */
	shared_path("sample-dxt-simple.darshan", path, sizeof(path));
	dfs_buf data = DFS_BUF_INIT, out = DFS_BUF_INIT;
	assert_true(load_file(path, false, &data));
	uint64_t off, len;
	memcpy(&off, data.data + 40 + 16 * 9, 8);
	memcpy(&len, data.data + 48 + 16 * 9, 8);
	assert_true(len > 16 && off + len <= data.len);
	memset(data.data + off + 2, 0xff, len - 6);
	temp_log(&data, tmp, sizeof(tmp));
	dfs_error err = {0};
	dfs_log *log = dfs_log_open(tmp, 0, &err);
	assert_non_null(log);
	assert_int_not_equal(dfs_log_get_module(log, DFS_MOD_DXT_POSIX)->status, DFS_OK);
	dfs_export *x = calloc(1, sizeof(*x));
	/* no filter on it: copied as it is */
	x->module[DFS_MOD_POSIX].filtered = true;
	assert_int_equal(dfs_log_export(log, tmp, x, &out, &err), 0);
	dfs_log *back = reopen(&out, "damaged");
	assert_non_null(back);
	const dfs_log_header *h = dfs_log_get_header(back);
	assert_int_equal(h->mods[DFS_MOD_DXT_POSIX].len, len);
	assert_memory_equal(out.data + h->mods[DFS_MOD_DXT_POSIX].off, data.data + off, len);
	dfs_log_free(back);
	/* a filter on it: refused, naming it */
	x->module[DFS_MOD_DXT_POSIX].filtered = true;
	dfs_buf_reset(&out);
	assert_int_equal(dfs_log_export(log, tmp, x, &out, &err), -1);
	assert_non_null(strstr(err.msg, "DXT_POSIX"));
	assert_int_equal(dfs_status_errno(err.code), EIO);
	dfs_log_free(log);
	unlink(tmp);

	/* imported rows: stored at the current version in the log's byte
	 * order, whatever version the log stores */
	memset(x, 0, sizeof(*x));
	shared_path("mpi-io-test-x86_64-3.5.0.darshan", path, sizeof(path));
	log = dfs_log_open(path, 0, &err);
	assert_non_null(log);
	const dfs_records *posix = dfs_log_records(log, DFS_MOD_POSIX);
	size_t last = posix->count - 1;
	x->module[DFS_MOD_POSIX] = (dfs_export_module){true, &last, 1, posix};
	dfs_buf_reset(&out);
	assert_int_equal(dfs_log_export(log, path, x, &out, &err), 0);
	back = reopen(&out, "imported");
	assert_non_null(back);
	assert_int_equal(dfs_log_records(back, DFS_MOD_POSIX)->count, 1);
	assert_true(same_records(posix, last, dfs_log_records(back, DFS_MOD_POSIX), 0));
	dfs_log_free(back);
	dfs_log_free(log);
	static const char *const old_logs[] = {"mpi-io-test-ppc64-3.1.0.darshan",
	                                       "mpi-io-test-x86_64-3.0.0.darshan"};
	for (size_t k = 0; k < 2; k++) {
		shared_path(old_logs[k], path, sizeof(path));
		log = dfs_log_open(path, 0, &err);
		assert_non_null(log);
		const dfs_log_header *ho = dfs_log_get_header(log);
		posix = dfs_log_records(log, DFS_MOD_POSIX);
		assert_true(ho->mod_ver[DFS_MOD_POSIX] < 4 && posix->count > 0);
		x->module[DFS_MOD_POSIX] = (dfs_export_module){true, NULL, 0, posix};
		dfs_buf_reset(&out);
		assert_int_equal(dfs_log_export(log, path, x, &out, &err), 0);
		back = reopen(&out, old_logs[k]);
		assert_non_null(back);
		h = dfs_log_get_header(back);
		assert_string_equal(h->version, ho->version);
		assert_int_equal(h->swapped, ho->swapped);
		assert_int_equal(h->mod_ver[DFS_MOD_POSIX], 4);
		assert_int_equal(h->mod_ver[DFS_MOD_MPIIO], ho->mod_ver[DFS_MOD_MPIIO]);
		const dfs_records *rb = dfs_log_records(back, DFS_MOD_POSIX);
		assert_int_equal(rb->count, posix->count);
		for (size_t i = 0; i < rb->count; i++)
			assert_true(same_records(posix, i, rb, i));
		dfs_log_free(back);
		dfs_log_free(log);
	}
	/* DXT rows (variable size) keep the log's short segments, in either
	 * byte order */
	static const char *const dxt_logs[] = {"dxt.darshan", "mpi-io-test-ppc64-3.1.4.darshan"};
	for (size_t k = 0; k < 2; k++) {
		memset(x, 0, sizeof(*x));
		shared_path(dxt_logs[k], path, sizeof(path));
		log = dfs_log_open(path, 0, &err);
		assert_non_null(log);
		const dfs_records *dxt = dfs_log_records(log, DFS_MOD_DXT_POSIX);
		assert_non_null(dxt);
		size_t pick[2] = {dxt->count - 1, 0};
		x->module[DFS_MOD_DXT_POSIX] = (dfs_export_module){true, pick, 2, dxt};
		dfs_buf_reset(&out);
		assert_int_equal(dfs_log_export(log, path, x, &out, &err), 0);
		back = reopen(&out, dxt_logs[k]);
		assert_non_null(back);
		h = dfs_log_get_header(back);
		assert_int_equal(h->mod_ver[DFS_MOD_DXT_POSIX],
		                 dfs_log_get_header(log)->mod_ver[DFS_MOD_DXT_POSIX]);
		const dfs_records *rb = dfs_log_records(back, DFS_MOD_DXT_POSIX);
		assert_int_equal(rb->count, 2);
		assert_true(same_records(dxt, pick[0], rb, 0));
		assert_true(same_records(dxt, pick[1], rb, 1));
		dfs_log_free(back);
		dfs_log_free(log);
	}
	free(x);
	dfs_buf_free(&data);
	dfs_buf_free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_shared_logs),
		cmocka_unit_test(test_selection),
		cmocka_unit_test(test_selection_modes),
		cmocka_unit_test(test_dxt_versions),
		cmocka_unit_test(test_writer_refuses_misuse),
		cmocka_unit_test(test_job_text_limits),
		cmocka_unit_test(test_layout_and_determinism),
		cmocka_unit_test(test_synthetic_logs),
		cmocka_unit_test(test_export_shared_logs),
		cmocka_unit_test(test_export_metadata),
		cmocka_unit_test(test_export_damaged_and_imported),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
