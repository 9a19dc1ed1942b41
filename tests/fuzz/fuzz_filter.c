/* fuzz_filter.c - libFuzzer target for the filter language: the input is
 * an expression.  It is compiled against the POSIX columns as the views
 * compile a module filter (dfs_filter_compile_module: field names,
 * counters without their prefix, any case as a second chance, file_name,
 * mount_pt, fs_type) and, when it compiles, matched against the POSIX
 * records of the synthetic log, alone and together with a second filter.
 * The same text is also compiled leniently (unknown columns have no
 * value, as in log-wide and directory filters) against DXT_POSIX, whose
 * records have one row per segment, and matched against its records; and
 * as a log-wide filter of POSIX, LUSTRE and DXT_POSIX. */
#include <stdint.h>
#include <stdlib.h>

#include "filter/filter.h"
#include "darshanfs/log.h"
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_RECORDS 16

/* an always-compilable companion filter, to match two at once */
static const dfs_filter *second_filter(const dfs_module *m)
{
	static dfs_filter *f[DFS_MOD_KNOWN];
	dfs_error err = {0};
	if (!f[m->id] && !(f[m->id] = dfs_filter_compile_module(m, "rank >= -1", 10,
	                                                        false, &err)))
		abort();
	return f[m->id];
}

static size_t run(const char *text, size_t len, int id, bool lenient)
{
	const dfs_log *log = fuzz_synth_log();
	const dfs_records *recs = dfs_log_records(log, id);
	const dfs_module *m = recs->module;
	dfs_error err = {0};
	dfs_filter *f = dfs_filter_compile_module(m, text, len, lenient, &err);
	if (!f) {
		if (err.code == DFS_OK || err.msg[0] == '\0')
			abort(); /* refused without a reason */
		return 0;
	}
	for (size_t i = 0; i < dfs_filter_column_count(f); i++)
		if (dfs_filter_column(f, i) < 0)
			abort();
	const dfs_filter *both[2] = {f, second_filter(m)};
	size_t hits = dfs_filter_matches_all(f);
	_Alignas(8) unsigned char scratch[DFS_RECORD_MAX];
	for (size_t i = 0; i < recs->count && i < MAX_RECORDS; i++) {
		const unsigned char *rec = dfs_record_get(recs, i, scratch);
		size_t rlen = dfs_record_size(recs, i);
		bool one = dfs_filter_match_record(both, 1, log, m, rec, rlen, NULL);
		bool two = dfs_filter_match_record(both, 2, log, m, rec, rlen, NULL);
		if (two && !one)
			abort(); /* adding a filter can only narrow */
		hits += one + two;
	}
	dfs_filter_free(f);
	return hits;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_synth_log();
	return 0;
}

/* As a log-wide filter of a log with POSIX, LUSTRE and DXT_POSIX: every
 * name must be some module's (an unknown one gets the closest names of
 * all of them), then each module's columns resolve on their own. */
static void run_logwide(const char *text, size_t len)
{
	uint64_t mods = 1ULL << DFS_MOD_POSIX | 1ULL << DFS_MOD_LUSTRE |
	                1ULL << DFS_MOD_DXT_POSIX;
	dfs_filter *out[DFS_MOD_KNOWN];
	dfs_error err = {0};
	if (dfs_filter_compile_modules(text, len, mods, out, &err) < 0) {
		if (err.code == DFS_OK || err.msg[0] == '\0')
			abort();
		return;
	}
	for (int id = 0; id < DFS_MOD_KNOWN; id++) {
		if (((mods >> id) & 1) != (out[id] != NULL))
			abort();
		dfs_filter_free(out[id]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	run((const char *)data, size, DFS_MOD_POSIX, false);
	run((const char *)data, size, DFS_MOD_DXT_POSIX, true);
	run_logwide((const char *)data, size);
	return 0;
}
