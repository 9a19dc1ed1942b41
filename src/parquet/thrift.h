/* thrift.h - Thrift's compact protocol, the encoding half: what Parquet's
 * page headers and footer are written in (internal to src/parquet).
 *
 * A struct is a run of fields, each a header (the field id as a delta
 * from the previous field's, and a type) and a value, ended by a 0 byte;
 * integers are zigzag varints, binaries a varint length and the bytes,
 * lists a header with the element type and count.  The encoder keeps the
 * previous field id of each open struct. */
#ifndef DFS_PARQUET_THRIFT_H
#define DFS_PARQUET_THRIFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "darshanfs/buf.h"

enum {
	DFS_TC_BOOL_TRUE = 1, DFS_TC_BOOL_FALSE = 2, DFS_TC_BYTE = 3,
	DFS_TC_I16 = 4, DFS_TC_I32 = 5, DFS_TC_I64 = 6, DFS_TC_DOUBLE = 7,
	DFS_TC_BINARY = 8, DFS_TC_LIST = 9, DFS_TC_SET = 10, DFS_TC_MAP = 11,
	DFS_TC_STRUCT = 12,
};

#define DFS_TC_DEPTH 16

typedef struct dfs_tc {
	dfs_buf *out;
	int depth;                 /* open structs; the outermost is 0 */
	int16_t last[DFS_TC_DEPTH];
	bool bad;                  /* nested too deep or a field id went back */
} dfs_tc;

void dfs_tc_init(dfs_tc *t, dfs_buf *out);

/* Fields of the struct being written. */
void dfs_tc_i32(dfs_tc *t, int16_t id, int32_t v);
void dfs_tc_i64(dfs_tc *t, int16_t id, int64_t v);
void dfs_tc_bool(dfs_tc *t, int16_t id, bool v);
void dfs_tc_byte(dfs_tc *t, int16_t id, int8_t v);
void dfs_tc_binary(dfs_tc *t, int16_t id, const void *data, size_t len);
void dfs_tc_string(dfs_tc *t, int16_t id, const char *s);
/* The stop byte of the outermost struct, whose fields are written from
 * dfs_tc_init on (a page header, the footer). */
void dfs_tc_finish(dfs_tc *t);
/* A struct field: its fields follow, then dfs_tc_end. */
void dfs_tc_struct(dfs_tc *t, int16_t id);
void dfs_tc_end(dfs_tc *t);
/* A list field of `n` elements of `elem_type`; the elements follow
 * (dfs_tc_elem_* for scalars, dfs_tc_elem_struct ... dfs_tc_end for
 * structs). */
void dfs_tc_list(dfs_tc *t, int16_t id, int elem_type, size_t n);
void dfs_tc_elem_i32(dfs_tc *t, int32_t v);
void dfs_tc_elem_string(dfs_tc *t, const char *s);
void dfs_tc_elem_struct(dfs_tc *t);

/* Unsigned LEB128 varint, as the compact protocol and Parquet's RLE
 * hybrid encoding write lengths. */
void dfs_tc_varint(dfs_buf *b, uint64_t v);

static inline bool dfs_tc_ok(const dfs_tc *t)
{
	return !t->bad && t->depth == 0 && dfs_buf_ok(t->out);
}

#endif
