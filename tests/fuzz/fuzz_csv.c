/* fuzz_csv.c - libFuzzer target for the CSV importer (the repacker).  The
 * first byte picks the module (see module_for: 'P' POSIX, 'S' STDIO, 'D'
 * DFS, 'M' MPI-IO, other letters the other modules, anything else POSIX);
 * the rest is the CSV written into that module's records.csv.  The log the import runs against (absent columns are taken
 * from its records) is the synthetic log of fuzz_common.c.  Imported rows
 * are rendered back to CSV. */
#include <stdint.h>
#include <stdlib.h>

#include "csv/csv.h"
#include "darshanfs/log.h"
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int module_for(uint8_t c)
{
	switch (c) {
	case 'S': return DFS_MOD_STDIO;
	case 'D': return DFS_MOD_DFS;
	case 'M': return DFS_MOD_MPIIO;
	case 'O': return DFS_MOD_DAOS;
	case 'H': return DFS_MOD_H5F;
	case 'h': return DFS_MOD_H5D;
	case 'N': return DFS_MOD_PNETCDF_FILE;
	case 'n': return DFS_MOD_PNETCDF_VAR;
	case 'B': return DFS_MOD_BGQ;
	case 'L': return DFS_MOD_LUSTRE;    /* variable size: refused */
	case 'X': return DFS_MOD_DXT_POSIX; /* variable size: refused */
	default: return DFS_MOD_POSIX;
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_synth_log();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	const dfs_log *log = fuzz_synth_log();
	const dfs_module *m = dfs_module_get(module_for(data[0]));
	const char *csv = (const char *)data + 1;
	size_t len = size - 1;
	dfs_error err = {0};
	int hdr = dfs_csv_check_header(m, csv, len, &err);
	dfs_records out;
	dfs_records_init(&out, m, m->version);
	if (dfs_csv_import(log, m, csv, len, &out, &err)) {
		if (err.code == DFS_OK || err.msg[0] == '\0' || out.count != 0)
			abort(); /* refused without a reason, or rows kept */
		return 0;
	}
	if (hdr != 0)
		abort(); /* the import took a header the check refused */
	dfs_buf b = DFS_BUF_INIT;
	dfs_csv_header(m, &b);
	for (size_t i = 0; i < out.count; i++)
		dfs_csv_record(log, m, dfs_record(&out, i), m->record_size, NULL, &b);
	dfs_buf_free(&b);
	dfs_records_free(&out);
	return 0;
}
