/* module.h - what darshanfs knows about each Darshan module, as data.
 *
 * One `dfs_module` descriptor per module id holds its names, record layout
 * (in the current version), the list of fields of a record, the decoder
 * that turns a region of any supported stored version into current-layout
 * records, and the hooks the views need.  Code elsewhere asks the table;
 * it does not test module ids. */
#ifndef DARSHANFS_MODULE_H
#define DARSHANFS_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "darshanfs/error.h"

enum {
	DFS_MOD_NULL = 0,
	DFS_MOD_POSIX = 1,
	DFS_MOD_MPIIO = 2,
	DFS_MOD_H5F = 3,
	DFS_MOD_H5D = 4,
	DFS_MOD_PNETCDF_FILE = 5,
	DFS_MOD_PNETCDF_VAR = 6,
	DFS_MOD_BGQ = 7,
	DFS_MOD_LUSTRE = 8,
	DFS_MOD_STDIO = 9,
	DFS_MOD_DXT_POSIX = 10,
	DFS_MOD_DXT_MPIIO = 11,
	DFS_MOD_MDHIM = 12,
	DFS_MOD_APXC = 13,
	DFS_MOD_APMPI = 14,
	DFS_MOD_HEATMAP = 15,
	DFS_MOD_DFS = 16,
	DFS_MOD_DAOS = 17,
	DFS_MOD_KNOWN = 18, /* ids 0..17 are known */
	DFS_MOD_SLOTS = 64, /* slots in a 3.41 header */
};

/* The type of one value of a record (or of a CSV column). */
typedef enum dfs_type {
	DFS_T_I64,  /* signed 64-bit integer */
	DFS_T_U64,  /* unsigned 64-bit integer (record ids) */
	DFS_T_F64,  /* double */
	DFS_T_STR,  /* text */
	DFS_T_NONE, /* no value in this row (empty CSV cell) */
} dfs_type;

/* Room for the text a value formats itself: uuids, LUSTRE flags, the OST
 * list of a DXT_POSIX segment (cut after the last whole OST number that
 * fits).  Each value owns its text, so two values held at once (a filter
 * comparing two columns) never share it. */
#define DFS_VALUE_TEXT_MAX 4096

typedef struct dfs_value {
	dfs_type type;
	char scratch[DFS_VALUE_TEXT_MAX]; /* holds formatted text (see above);
	                                   * do not copy values */
	union {
		int64_t i;
		uint64_t u;
		double d;
		struct {
			const char *ptr;
			size_t len;
		} s;
	} v;
} dfs_value;

/* How a field is stored inside a current-layout record. */
typedef enum dfs_storage {
	DFS_S_I64,     /* 8-byte integer at `offset` */
	DFS_S_U64,     /* 8-byte unsigned integer at `offset` */
	DFS_S_F64,     /* 8-byte double at `offset` */
	DFS_S_UUID,    /* 16 raw bytes at `offset`, shown as 8-4-4-4-12 hex */
	DFS_S_TEXT,    /* NUL-padded char[size] at `offset` */
	DFS_S_VIRTUAL, /* computed by the module's get_field hook */
} dfs_storage;

typedef struct dfs_field {
	const char *name;    /* column name, e.g. "POSIX_BYTES_READ" */
	dfs_storage storage;
	dfs_type type;       /* type of the value shown */
	uint32_t offset;
	uint32_t size;       /* DFS_S_TEXT only */
	bool counter;        /* a module counter (vs. identity field) */
} dfs_field;

/* Decoded records of one module, in the current record layout, host byte
 * order, back to back in `data`.  Fixed-size modules have `offsets` NULL;
 * variable-size modules (LUSTRE, DXT, HEATMAP, MDHIM, APMPI, APXC) store
 * count+1 offsets so record i is data[offsets[i] .. offsets[i+1]).
 *
 * Packed records (`packed`, see dfs_records_pack) hold the same records
 * compactly: most counters of most records are zero, so each record is a
 * bitmap of its non-zero 8-byte words followed by those words.  Record i
 * starts at word pk_off[i] of `data`.  A packed record is read with
 * dfs_record_get (unpacked into a scratch record) or dfs_record_word. */
typedef struct dfs_records {
	const struct dfs_module *module;
	uint32_t version;   /* version stored in the log (before upgrade) */
	size_t count;
	unsigned char *data;
	size_t size;
	size_t cap;
	size_t *offsets;
	size_t offsets_cap;
	/* inside the library: data comes from this pool of recycled
	 * blocks (NULL: malloc), and stays with it across dfs_records_free */
	struct dfs_scratch *scratch;
	bool packed;        /* data holds packed records */
	bool mapped;        /* packed: data is address space reserved up
	                     * front, cap bytes of it (grows without copies) */
	uint32_t *pk_off;   /* packed: count+1 word offsets into data */
	size_t pk_off_cap;
} dfs_records;

/* Largest fixed record a packed set holds (a scratch record this big
 * receives any record through dfs_record_get). */
#define DFS_RECORD_MAX 1024

static inline const unsigned char *dfs_record(const dfs_records *r, size_t i);
static inline size_t dfs_record_size(const dfs_records *r, size_t i);

/* What a decoder gets: one module region, inflated, in file byte order. */
typedef struct dfs_decode_in {
	const unsigned char *data;
	size_t len;
	uint32_t version;   /* stored module version */
	bool swap;          /* file byte order differs from host order */
	uint32_t h5f_version; /* the H5D swap quirk keys on the H5F version */
	/* optional (NULL: not wanted): told where each record the decoder
	 * keeps lies in `data` (its stored bytes), in the order the records
	 * are appended to the output; records it drops are not told */
	void (*stored)(void *ctx, size_t off, size_t len);
	void *stored_ctx;
} dfs_decode_in;

/* A decoder tells `in->stored` of a kept record at data[off, off+len). */
static inline void dfs_decode_stored(const dfs_decode_in *in, size_t off,
                                     size_t len)
{
	if (in->stored)
		in->stored(in->stored_ctx, off, len);
}

struct dfs_buf;
struct dfs_log;
struct dfs_module;

/* The mount table and name table entries of a log */
typedef struct dfs_mount {
	const char *path;
	const char *type;
	size_t path_len;
} dfs_mount;

typedef struct dfs_name {
	uint64_t id;
	const char *str;
	uint32_t len;
	int32_t mount;            /* index into the sorted mount table, -1 none */
} dfs_name;


/* Identity of a record for the last three CSV / darshan-parser columns. */
typedef struct dfs_record_place {
	const char *name;      /* file name or substitute (never NULL) */
	size_t name_len;
	const char *mount;     /* mount point or substitute */
	size_t mount_len;
	const char *fs_type;
	size_t fs_type_len;
	bool has_name;         /* the record id has a name-table entry */
	char scratch[160];     /* storage for substitutes (uuids, oids) */
} dfs_record_place;

/* What a module's callbacks may ask of the log its records come from:
 * the name and mount tables, and the generic placement (name table and
 * mounts).  The log reader makes it (dfs_log_names): modules never see
 * the log itself. */
typedef struct dfs_names {
	const void *owner;
	const dfs_name *(*name)(const void *owner, uint64_t id);   /* NULL: none */
	const dfs_mount *(*mount)(const void *owner, size_t i);
	void (*place)(const void *owner, const struct dfs_module *m,
	              const unsigned char *rec, dfs_record_place *out);
	/* the log's last LUSTRE record of a record id (NULL: none) */
	const unsigned char *(*lustre)(const void *owner, uint64_t id, size_t *len);
} dfs_names;

typedef struct dfs_module {
	int id;
	const char *name;      /* as darshan-parser prints it: "MPI-IO", "BG/Q" */
	const char *dirname;   /* directory in the virtual tree: "BGQ" */
	const char *prefix;    /* counter prefix: "MPIIO_" */
	uint32_t version;      /* current record version */
	size_t record_size;    /* current fixed size; 0 = variable size */
	bool accumulator;      /* darshan-util can accumulate it */

	/* counters of the current layout (fixed-size modules) */
	size_t n_int, n_float;
	const char *const *int_names;
	const char *const *float_names;
	uint32_t int_offset, float_offset;

	/* record fields, in CSV column order (without the 3 place columns) */
	const dfs_field *fields;
	size_t n_fields;

	/* darshan-parser texts */
	const char *description;
	const struct dfs_version_warning *warnings;

	/* region (file order, any known version) -> current records */
	int (*decode)(const dfs_decode_in *in, dfs_records *out, dfs_error *err);

	/* rows shown for one record (NULL: exactly one) */
	size_t (*row_count)(const unsigned char *rec, size_t len);
	/* value of a DFS_S_VIRTUAL field in a given row */
	void (*get_field)(const unsigned char *rec, size_t len, size_t row,
	                  size_t field, dfs_value *out);
	/* file name / mount point / fs type columns (NULL: name table + mounts) */
	void (*place)(const dfs_names *names, const unsigned char *rec,
	              dfs_record_place *out);
	/* darshan-parser --base lines for one record (NULL: generic) */
	void (*print_base)(const dfs_names *names, const dfs_records *recs,
	                   size_t i, struct dfs_buf *out);
	/* value of a DFS_S_VIRTUAL field that needs the log (DXT_POSIX's
	 * OSTs, from its LUSTRE records); NULL: get_field has them all */
	void (*get_log_field)(const dfs_names *names, const unsigned char *rec,
	                      size_t len, size_t row, size_t field, dfs_value *out);
	/* a filter selects rows (DXT segments: dfs_dxt_trim), not records */
	bool row_select;
	/* a record is its fields, each one whole 8-byte word in order, one
	 * row, placed by the name table (so a packed record renders word by
	 * word: dfs_csv_packed_ok); declared with the descriptor, which a
	 * test checks against its fields */
	bool words_only;
} dfs_module;

/* DXT_POSIX, DXT_MPIIO (dxt.c): append to `out` the record cut to the
 * segments whose keep[] flag is set (one flag per row), followed by their
 * numbers in the record given (records.csv's `segment`); -1 out of memory.
 * dfs_dxt_plain_size: the bytes of such a record that are a DXT record
 * as the log stores it (without the numbers). */
int dfs_dxt_trim(const unsigned char *rec, size_t len, const bool *keep,
                 dfs_records *out);
size_t dfs_dxt_plain_size(const unsigned char *rec, size_t len);

enum dfs_version_op { DFS_VER_EQ = 1, DFS_VER_LE, DFS_VER_GE };
struct dfs_version_warning {
	int op;
	uint32_t version;
	const char *text;
};

/* The descriptor of a module id, or NULL for ids darshanfs cannot decode. */
const dfs_module *dfs_module_get(int id);
/* Lookup by darshan-parser name ("MPI-IO") or directory name ("BGQ"). */
const dfs_module *dfs_module_by_name(const char *name);
/* darshan-parser's name of any slot 0..63 ("<UNKNOWN>" for unknown ids) */
const char *dfs_module_slot_name(int id);

/* Index of a field by column name; also accepts counter names without the
 * module prefix ("BYTES_READ").  -1 if none. */
int dfs_module_field_index(const dfs_module *m, const char *name, size_t len);

/* Read field `f` of row `row` of a record. */
void dfs_module_get_value(const dfs_module *m, const unsigned char *rec,
                          size_t len, size_t row, size_t f, dfs_value *out);
/* The same for a record of a log (its tables: dfs_log_names; NULL: none),
 * with the fields that need the log (the first has them missing). */
void dfs_module_get_log_value(const dfs_names *names, const dfs_module *m,
                              const unsigned char *rec, size_t len, size_t row,
                              size_t f, dfs_value *out);

static inline size_t dfs_module_rows(const dfs_module *m,
                                     const unsigned char *rec, size_t len)
{
	return m->row_count ? m->row_count(rec, len) : 1;
}

/* 16 raw bytes as 8-4-4-4-12 lower-case hex (36 chars + NUL) */
size_t dfs_format_uuid(char *out, const unsigned char *uuid);

/* records container helpers */
void dfs_records_init(dfs_records *r, const dfs_module *m, uint32_t version);
void dfs_records_free(dfs_records *r);
/* append a zero-filled record of `len` bytes; NULL on allocation failure */
unsigned char *dfs_records_append(dfs_records *r, size_t len);
/* make room for `bytes` more bytes of records (a hint; 0 or -1) */
int dfs_records_reserve(dfs_records *r, size_t bytes);

/* Record i of a packed set in the current layout, into `out`
 * (record_size bytes). */
void dfs_record_unpack(const dfs_records *r, size_t i, unsigned char *out);
/* Bytes the records take (data and offsets). */
size_t dfs_records_memory(const dfs_records *r);

/* Record i in the current layout, raw records and packed ones alike: a
 * pointer to where it lies, or to `scratch` (DFS_RECORD_MAX bytes) which
 * receives it unpacked.  Valid until `scratch` is reused. */
static inline const unsigned char *dfs_record_get(const dfs_records *r, size_t i,
                                                  unsigned char *scratch);

/* Record i of raw (not packed) records, where it lies. */
static inline const unsigned char *dfs_record(const dfs_records *r, size_t i)
{
	return r->data + (r->offsets ? r->offsets[i] : i * r->module->record_size);
}

static inline size_t dfs_record_size(const dfs_records *r, size_t i)
{
	return r->offsets ? r->offsets[i + 1] - r->offsets[i]
	                  : r->module->record_size;
}

static inline const unsigned char *dfs_record_get(const dfs_records *r, size_t i,
                                                  unsigned char *scratch)
{
	if (!r->packed)
		return dfs_record(r, i);
	dfs_record_unpack(r, i, scratch);
	return scratch;
}

/* id and rank of any record (the 16-byte base record) */
static inline uint64_t dfs_record_id(const unsigned char *rec)
{
	uint64_t v;
	__builtin_memcpy(&v, rec, 8);
	return v;
}
static inline int64_t dfs_record_rank(const unsigned char *rec)
{
	int64_t v;
	__builtin_memcpy(&v, rec + 8, 8);
	return v;
}

#endif
