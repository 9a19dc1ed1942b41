/* thrift.c - Thrift's compact protocol, encoding only (thrift.h). */
#include "parquet/thrift.h"

#include <string.h>

void dfs_tc_init(dfs_tc *t, dfs_buf *out)
{
	memset(t, 0, sizeof(*t));
	t->out = out;
}

void dfs_tc_varint(dfs_buf *b, uint64_t v)
{
	unsigned char tmp[10];
	size_t n = 0;
	while (v >= 0x80) {
		tmp[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	tmp[n++] = (unsigned char)v;
	dfs_buf_add(b, tmp, n);
}

static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

/* A field header: the id as a delta of 1..15 from the previous field's
 * in the high nibble when it fits, else the type alone and the id as a
 * zigzag varint. */
static void field(dfs_tc *t, int16_t id, int type)
{
	int16_t *last = &t->last[t->depth];
	if (id <= 0 || id <= *last) {
		t->bad = true;   /* the compact protocol wants ids increasing */
		return;
	}
	int delta = id - *last;
	if (delta <= 15) {
		dfs_buf_addc(t->out, (char)(delta << 4 | type));
	} else {
		dfs_buf_addc(t->out, (char)type);
		dfs_tc_varint(t->out, zigzag(id));
	}
	*last = id;
}

void dfs_tc_i32(dfs_tc *t, int16_t id, int32_t v)
{
	field(t, id, DFS_TC_I32);
	dfs_tc_varint(t->out, zigzag(v));
}

void dfs_tc_i64(dfs_tc *t, int16_t id, int64_t v)
{
	field(t, id, DFS_TC_I64);
	dfs_tc_varint(t->out, zigzag(v));
}

void dfs_tc_bool(dfs_tc *t, int16_t id, bool v)
{
	field(t, id, v ? DFS_TC_BOOL_TRUE : DFS_TC_BOOL_FALSE);
}

void dfs_tc_byte(dfs_tc *t, int16_t id, int8_t v)
{
	field(t, id, DFS_TC_BYTE);
	dfs_buf_addc(t->out, (char)v);   /* a byte is written as it is */
}

void dfs_tc_binary(dfs_tc *t, int16_t id, const void *data, size_t len)
{
	field(t, id, DFS_TC_BINARY);
	dfs_tc_varint(t->out, len);
	dfs_buf_add(t->out, data, len);
}

void dfs_tc_string(dfs_tc *t, int16_t id, const char *s)
{
	dfs_tc_binary(t, id, s, strlen(s));
}

static void open_struct(dfs_tc *t)
{
	if (t->depth + 1 >= DFS_TC_DEPTH) {
		t->bad = true;
		return;
	}
	t->last[++t->depth] = 0;
}

void dfs_tc_struct(dfs_tc *t, int16_t id)
{
	field(t, id, DFS_TC_STRUCT);
	open_struct(t);
}

void dfs_tc_end(dfs_tc *t)
{
	dfs_buf_addc(t->out, 0);
	if (t->depth == 0)
		t->bad = true;
	else
		t->depth--;
}

void dfs_tc_finish(dfs_tc *t)
{
	dfs_buf_addc(t->out, 0);
	if (t->depth != 0)
		t->bad = true;
}

void dfs_tc_list(dfs_tc *t, int16_t id, int elem_type, size_t n)
{
	field(t, id, DFS_TC_LIST);
	if (n < 15) {
		dfs_buf_addc(t->out, (char)(n << 4 | (size_t)elem_type));
	} else {
		dfs_buf_addc(t->out, (char)(0xf0 | elem_type));
		dfs_tc_varint(t->out, n);
	}
}

void dfs_tc_elem_i32(dfs_tc *t, int32_t v)
{
	dfs_tc_varint(t->out, zigzag(v));
}

void dfs_tc_elem_string(dfs_tc *t, const char *s)
{
	size_t len = strlen(s);
	dfs_tc_varint(t->out, len);
	dfs_buf_add(t->out, s, len);
}

void dfs_tc_elem_struct(dfs_tc *t)
{
	open_struct(t);
}
