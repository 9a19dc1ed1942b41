/* filter.h - the filter language of darshanfs.
 *
 *   POSIX_BYTES_READ > 1GiB and rank != -1
 *   file_name ~ '^/lus/grand/' && not (BYTES_WRITTEN == 0)
 *   rank in (0, 1, 2) or record_id == 0x9d8a6f9a8f3ad1c2
 *
 * An expression is compiled once against the columns of one module (the
 * caller resolves column names, see dfs_filter_columns) and evaluated for
 * many rows.  A compiled filter is immutable: many threads may evaluate it
 * at once.  The grammar is documented in docs/filter-language.md. */
#ifndef DARSHANFS_FILTER_H
#define DARSHANFS_FILTER_H

#include <stdbool.h>
#include <stddef.h>

#include "darshanfs/error.h"
#include "darshanfs/module.h"

/* Longest expression accepted (bytes) and deepest nesting. */
#define DFS_FILTER_MAX_LEN 65536
#define DFS_FILTER_MAX_DEPTH 200

typedef struct dfs_filter dfs_filter;

/* Column resolution at compile time.  `resolve` returns a column index >= 0
 * and its type (DFS_T_I64, DFS_T_U64, DFS_T_F64 or DFS_T_STR), or -1 when
 * there is no such column.  It may return an index with type DFS_T_NONE for
 * a column that exists in the language but has no value in this context:
 * every comparison on it is UNKNOWN (SQL's NULL). */
typedef struct dfs_filter_columns {
	int (*resolve)(void *ctx, const char *name, size_t len, dfs_type *type);
	void *ctx;
	/* Optional: for a name `resolve` refused, write a hint for the message
	 * into out (cap bytes, NUL-terminated, "" if none), e.g. the closest
	 * names or which other module has that column; it is shown in
	 * parentheses after "unknown column 'NAME'". */
	void (*hint)(void *ctx, const char *name, size_t len, char *out, size_t cap);
} dfs_filter_columns;

/* Value of column `column` for the row being evaluated.  A getter may
 * return DFS_T_NONE (missing value: comparisons on it are UNKNOWN). */
typedef void (*dfs_filter_getter)(void *row, int column, dfs_value *out);

/* Compile `len` bytes of `text`.  Empty text (only blanks and comments) and
 * "true" give a filter that matches every row.  On error returns NULL and
 * sets err (DFS_ERR_INVAL, or DFS_ERR_TOOBIG past DFS_FILTER_MAX_LEN) with a
 * one-line message that starts with the 1-based character position:
 * "at 14: unknown column 'POSIX_BYTES_RAED'". */
dfs_filter *dfs_filter_compile(const char *text, size_t len,
                               const dfs_filter_columns *cols, dfs_error *err);

/* true if the row matches. */
bool dfs_filter_match(const dfs_filter *f, dfs_filter_getter get, void *row);

/* true if the filter matches every row (empty or "true"). */
bool dfs_filter_matches_all(const dfs_filter *f);

/* true if the filter names a column without values here (a column the
 * module lacks, in a filter compiled leniently for several modules). */
bool dfs_filter_lacks_columns(const dfs_filter *f);

/* Columns the filter reads: count and the i-th column index. */
size_t dfs_filter_column_count(const dfs_filter *f);
int dfs_filter_column(const dfs_filter *f, size_t i);

void dfs_filter_free(dfs_filter *f);

/* Memory a compiled filter holds: its program and its regular
 * expressions (their automata and the fixed allowance of each for the
 * states matching remembers: matching never adds to it), or the program
 * alone.  The filters of one
 * dfs_filter_compile_modules call share their regular expressions. */
size_t dfs_filter_memory(const dfs_filter *f);
size_t dfs_filter_program_memory(const dfs_filter *f);
/* The same for n filters (NULL ones count nothing), each regular
 * expression they share counted once. */
size_t dfs_filter_set_memory(dfs_filter *const *f, size_t n);

/* ---- filters over a module's records ---------------------------------- */

struct dfs_log;

/* Compile against the columns of module m: its fields (as records.csv
 * names them; counters also without the prefix; any case as a second
 * chance) and file_name, mount_pt, fs_type.  `lenient` turns unknown names
 * into missing values (comparisons on them are UNKNOWN) instead of errors:
 * what a log-wide or directory filter needs in modules that lack a column
 * it names. */
dfs_filter *dfs_filter_compile_module(const dfs_module *m, const char *text,
                                      size_t len, bool lenient, dfs_error *err);

/* A filter over several modules (log-wide, directory), compiled into
 * out[id] for each module id set in the `modules` bit mask (the others
 * NULL), all sharing one compilation of each regular expression.  Every column it names must be a column of some module darshanfs
 * knows, else it is an unknown column; in a module without it, it has no
 * value.  0, or -1 with err (and every out[] NULL). */
int dfs_filter_compile_modules(const char *text, size_t len, uint64_t modules,
                               dfs_filter *out[DFS_MOD_KNOWN], dfs_error *err);

/* The same one module at a time: the text compiled against the columns
 * of every module (NULL and err if it names a column none has, or mixes
 * types), then for module m as dfs_filter_compile_modules compiles it,
 * sharing the regular expressions of `any` (which may be freed after). */
dfs_filter *dfs_filter_compile_any(const char *text, size_t len, dfs_error *err);
dfs_filter *dfs_filter_compile_module_from(const dfs_module *m, const char *text,
                                           size_t len, const dfs_filter *any,
                                           dfs_error *err);

/* For a filter that arrives in pieces (several write() calls): are `len`
 * bytes of text the beginning of a valid filter of module m (or, m NULL,
 * of the modules in the bit mask `modules`, as dfs_filter_compile_modules
 * judges)?  0 when the text is valid as it stands, or when more text could
 * make it valid because the compiler failed only where the text ends (an
 * open parenthesis, a trailing operator, a word, number or quoted text cut
 * short); -1 with err when no continuation can (an unexpected character,
 * a complete unknown name, an operator out of place, a type error before
 * the end).  Regular expressions are screened for their cost and
 * checked (a pattern the compiler refuses is refused here), but not
 * compiled. */
int dfs_filter_check_prefix(const dfs_module *m, uint64_t modules,
                            const char *text, size_t len, dfs_error *err);

/* Does a record of module m match every one of `n` filters compiled with
 * dfs_filter_compile_module?  A record of several rows (LUSTRE, DXT,
 * HEATMAP...) matches when one of its rows does.  A file name a filter
 * reads is looked up guessing from and updating `hint` (log/hints.h: one
 * a loop over records; NULL: no guess). */
struct dfs_name_hint;
bool dfs_filter_match_record(const dfs_filter *const *filters, size_t n,
                             const struct dfs_log *log, const dfs_module *m,
                             const unsigned char *rec, size_t len,
                             struct dfs_name_hint *hint);

/* Which rows of a record match every filter: keep[row] for each of its
 * dfs_module_rows rows. */
void dfs_filter_match_rows(const dfs_filter *const *filters, size_t n,
                           const struct dfs_log *log, const dfs_module *m,
                           const unsigned char *rec, size_t len,
                           struct dfs_name_hint *hint, bool *keep);

#endif
