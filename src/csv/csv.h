/* csv.h - records as RFC 4180 CSV, and CSV back into records.
 *
 * Columns of a module's records.csv: the module's fields (record_id, rank,
 * identity fields, every counter and float counter named as darshan-parser
 * names them) then file_name, mount_pt, fs_type.  Integers are decimal,
 * doubles the shortest text that reads back to the same double, text is
 * quoted when it holds a comma, quote, CR or LF. */
#ifndef DARSHANFS_CSV_H
#define DARSHANFS_CSV_H

#include <stddef.h>

#include "darshanfs/buf.h"
#include "darshanfs/log.h"

/* The header line (with '\n'). */
void dfs_csv_header(const dfs_module *m, dfs_buf *out);

/* The records' names are looked up guessing from and updating `hint`
 * (log/hints.h: one a loop over records, NULL: no guess). */
struct dfs_name_hint;

/* All rows of one record (one line each). */
void dfs_csv_record(const dfs_log *log, const dfs_module *m,
                    const unsigned char *rec, size_t len,
                    struct dfs_name_hint *hint, dfs_buf *out);
/* The summation record of a selection (total.csv) as dfs_csv_record
 * writes it, except that the sum of several files (record_id 0) has an
 * empty record_id, file_name, mount_pt and fs_type. */
void dfs_csv_summation(const dfs_log *log, const dfs_module *m,
                       const unsigned char *rec, size_t len, dfs_buf *out);
/* The number of bytes dfs_csv_record would append for the record,
 * computed without rendering it (several times faster). */
size_t dfs_csv_record_len(const dfs_log *log, const dfs_module *m,
                          const unsigned char *rec, size_t len,
                          struct dfs_name_hint *hint);
/* The most room that rendering a row of m (dfs_csv_record or
 * dfs_csv_record_packed) asks of its buffer at once, past the text
 * written so far: rows whose length is known (dfs_csv_record_len) render
 * into a buffer reserved for that length plus this without moving it. */
size_t dfs_csv_row_room(const dfs_module *m);

/* The same from a packed record (see dfs_records: the bitmap of its
 * non-zero words, then those words), without unpacking it: zero fields
 * straight from the bitmap.  Only for modules whose fields are their
 * record's words, numbers, in order, and who name their records the
 * plain way (dfs_csv_packed_ok); the text is dfs_csv_record's. */
bool dfs_csv_packed_ok(const dfs_module *m);
void dfs_csv_record_packed(const dfs_log *log, const dfs_module *m,
                           const unsigned char *packed,
                           struct dfs_name_hint *hint, dfs_buf *out);
size_t dfs_csv_record_len_packed(const dfs_log *log, const dfs_module *m,
                                 const unsigned char *packed,
                                 struct dfs_name_hint *hint);

/* One field, quoted if needed. */
void dfs_csv_field(dfs_buf *out, const char *s, size_t len);
/* The same written at `out`, which has room for 2 * len + 2 bytes; the
 * bytes written. */
size_t dfs_csv_field_at(char *out, const char *s, size_t len);
/* The bytes either of them writes for the field, without writing it. */
size_t dfs_csv_field_len(const char *s, size_t len);

/* One value as it appears in a CSV cell (empty for DFS_T_NONE). */
void dfs_csv_value(dfs_buf *out, const dfs_value *v);

/* mounts.csv and names.csv of a log */
void dfs_csv_mounts(const dfs_log *log, dfs_buf *out);
void dfs_csv_names(const dfs_log *log, dfs_buf *out);

/* ---- import: CSV rows back into binary records ------------------------ */

/* Parse a CSV written into a module's records.csv and repack every row
 * into the module's current binary record layout, appended to `out`
 * (initialised by the caller with dfs_records_init).  Columns are matched
 * by header name in any order; record_id and rank are required; a counter
 * column that is absent takes the value of the log's record with the same
 * record_id and rank (an error if there is none); file_name, mount_pt and
 * fs_type are ignored.  Only fixed-size modules can be imported.  On error
 * nothing is kept and err (DFS_ERR_INVAL) says which line and column. */
int dfs_csv_import(const dfs_log *log, const dfs_module *m, const char *data,
                   size_t len, dfs_records *out, dfs_error *err);

/* Are the records' (record_id, rank) pairs unique?  Two rows of one
 * record select nothing a single row does not, and their counters cannot
 * both be the record's: a selection refuses them.  0, or -1 with err
 * (DFS_ERR_INVAL) naming the two rows, counted from the first after the
 * header. */
int dfs_csv_check_unique(const dfs_records *r, dfs_error *err);

/* Check only the header line (the first line must be complete): lets a
 * writer refuse a bad CSV at its first write(). */
int dfs_csv_check_header(const dfs_module *m, const char *data, size_t len,
                         dfs_error *err);

/* Checking a CSV line by line as it arrives, so that a writer hears of a
 * bad row at the write() that carries it.  Start once the header line is
 * complete in `text` (NULL with err for a bad header); then feed the whole
 * text so far after each write: the rows completed since the last feed (a
 * newline outside quotes ends one) are checked as dfs_csv_import checks
 * them, except that absent columns are not looked up in the log.  The text
 * may only grow between feeds (its checked bytes unchanged). */
typedef struct dfs_csv_rows dfs_csv_rows;
dfs_csv_rows *dfs_csv_rows_start(const dfs_module *m, const char *text,
                                 size_t len, dfs_error *err);
int dfs_csv_rows_feed(dfs_csv_rows *k, const char *text, size_t len,
                      dfs_error *err);
/* The newlines in the text up to `len`, counted as the feeds went
 * (SIZE_MAX when the feeds saw more than `len` bytes). */
size_t dfs_csv_rows_newlines(const dfs_csv_rows *k, const char *text, size_t len);
/* Keep the rows checked (up to max_records records), so that the import
 * of the whole text needs no second parse: from the first feed on.  Their
 * memory comes from `pool` (util/scratch.h; NULL: malloc), which the
 * records the import gives then keep (dfs_records.scratch). */
struct dfs_scratch;
void dfs_csv_rows_keep(dfs_csv_rows *k, size_t max_records,
                       struct dfs_scratch *pool);
/* Memory the checking holds (the rows kept, above all). */
size_t dfs_csv_rows_memory(const dfs_csv_rows *k);
/* Keep no more rows, and free those kept: the import of the whole text
 * parses it again (dfs_csv_rows_finish returns 1). */
void dfs_csv_rows_drop(dfs_csv_rows *k);
/* The import of the whole text, which the feeds have seen up to `len`:
 * its rest checked, the columns it leaves out taken from the log's
 * records, and every row into `out` (freed first), as dfs_csv_import
 * would make them; 0, -1 with err for a bad row, or 1 when the rows were
 * not kept or one has no log record for its absent columns (then call
 * dfs_csv_import, which says which). */
int dfs_csv_rows_finish(dfs_csv_rows *k, const dfs_log *log, const char *text,
                        size_t len, dfs_records *out, dfs_error *err);
void dfs_csv_rows_free(dfs_csv_rows *k);

#endif
