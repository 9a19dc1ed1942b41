/* tables.h - generated name tables (see tables.c) and the internal
 * interface between module.c and the per-module files. */
#ifndef DFS_MODULE_TABLES_H
#define DFS_MODULE_TABLES_H

#include <stddef.h>

#include "darshanfs/buf.h"
#include "darshanfs/module.h"
#include "module/counters.h"

#define DFS_DECLARE_NAMES(m)                                        \
	extern const char *const dfs_##m##_int_names[];             \
	extern const char *const dfs_##m##_float_names[]
DFS_DECLARE_NAMES(posix);
DFS_DECLARE_NAMES(mpiio);
DFS_DECLARE_NAMES(h5f);
DFS_DECLARE_NAMES(h5d);
DFS_DECLARE_NAMES(pnetcdf_file);
DFS_DECLARE_NAMES(pnetcdf_var);
DFS_DECLARE_NAMES(bgq);
DFS_DECLARE_NAMES(stdio);
DFS_DECLARE_NAMES(mdhim);
DFS_DECLARE_NAMES(dfs);
DFS_DECLARE_NAMES(daos);
DFS_DECLARE_NAMES(apmpi);
extern const char *const dfs_apmpi_sync_names[16];

#define DFS_DECLARE_TEXT(m)                                          \
	extern const char dfs_##m##_description[];                  \
	extern const struct dfs_version_warning dfs_##m##_warnings[]
DFS_DECLARE_TEXT(posix);
DFS_DECLARE_TEXT(mpiio);
DFS_DECLARE_TEXT(h5f);
DFS_DECLARE_TEXT(h5d);
DFS_DECLARE_TEXT(pnetcdf_file);
DFS_DECLARE_TEXT(pnetcdf_var);
DFS_DECLARE_TEXT(bgq);
DFS_DECLARE_TEXT(lustre);
DFS_DECLARE_TEXT(stdio);
DFS_DECLARE_TEXT(mdhim);
DFS_DECLARE_TEXT(apmpi);
DFS_DECLARE_TEXT(heatmap);
DFS_DECLARE_TEXT(dfs);
DFS_DECLARE_TEXT(daos);

/* module descriptors, one per file: constant, field lists included */
extern const dfs_module dfs_module_posix, dfs_module_mpiio, dfs_module_h5f,
	dfs_module_h5d, dfs_module_pnetcdf_file, dfs_module_pnetcdf_var,
	dfs_module_bgq, dfs_module_lustre, dfs_module_stdio,
	dfs_module_dxt_posix, dfs_module_dxt_mpiio, dfs_module_mdhim,
	dfs_module_apmpi, dfs_module_heatmap, dfs_module_dfs, dfs_module_daos;

/* Helpers for fixed-size decoders: walk whole stored records (a partial
 * record at the end of a region is ignored, as upstream does). */
typedef int (*dfs_upgrade_fn)(const dfs_decode_in *in,
                              const unsigned char *raw, unsigned char *out);
int dfs_decode_fixed(const dfs_decode_in *in, dfs_records *out,
                     size_t stored_size, dfs_upgrade_fn upgrade,
                     dfs_error *err);

/* Constant field lists, built at compile time from the generated counter
 * lists of counters.h: a fixed-size module's fields are record_id, rank,
 * its identity fields, its integer counters, its float counters, then
 * any trailing fields, e.g.
 *     static const dfs_field f[] = {DFS_ID_FIELDS,
 *             DFS_POSIX_INTS(DFS_INT_FIELD, INT_OFF)
 *             DFS_POSIX_FLOATS(DFS_FLOAT_FIELD, FLOAT_OFF)};
 * (the counters' offsets are base + 8 * index) */
#define DFS_ID_FIELDS                                                \
	{"record_id", DFS_S_U64, DFS_T_U64, 0, 0, false},            \
	{"rank", DFS_S_I64, DFS_T_I64, 8, 0, false}
#define DFS_INT_FIELD(base, i, n)                                    \
	{n, DFS_S_I64, DFS_T_I64, (base) + 8 * (i), 0, true},
#define DFS_FLOAT_FIELD(base, i, n)                                  \
	{n, DFS_S_F64, DFS_T_F64, (base) + 8 * (i), 0, true},
#define DFS_N_FIELDS(a) (sizeof(a) / sizeof((a)[0]))

/* the darshan-parser record line prefix and suffix */
void dfs_print_line(struct dfs_buf *out, const dfs_module *m,
                    const unsigned char *rec, const dfs_record_place *pl,
                    const char *counter, const char *value);

#endif
