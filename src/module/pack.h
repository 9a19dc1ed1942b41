/* pack.h - records packed to their non-zero words (pack.c): making
 * them, and reading a word, a record or a part of one without
 * unpacking the rest.  Inside the library: the installed module.h
 * keeps what a user needs (dfs_record_get reads any record). */
#ifndef DFS_MODULE_PACK_H
#define DFS_MODULE_PACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "darshanfs/module.h"

/* Packing (pack.c).  A module's records can be packed when they have one
 * fixed size made of 8-byte words, at most DFS_RECORD_MAX bytes. */
bool dfs_module_packable(const dfs_module *m);

/* Turn raw records into packed ones; 0, or -1 (out of memory: `r` is left
 * as it was).  Does nothing to records already packed or not packable. */
int dfs_records_pack(dfs_records *r);

/* Start an empty packed set / add one raw record to it; -1 out of memory
 * (or past 32 GiB of packed words). */
void dfs_records_init_packed(dfs_records *r, const dfs_module *m,
                             uint32_t version);

/* Reserve address space for about `bytes` of packed records (a hint,
 * called on an empty set: the set then grows without copying). */
void dfs_records_pack_reserve(dfs_records *r, size_t bytes);

int dfs_records_pack_add(dfs_records *r, const unsigned char *rec);

/* Can n more records be packed into r without moving the packed data? */
bool dfs_records_pack_fits(const dfs_records *r, size_t n);

/* Give back unused capacity (after the last dfs_records_pack_add). */
void dfs_records_pack_trim(dfs_records *r);

/* A raw copy of any record set (records back to back, as dfs_record
 * reads them); 0, or -1 out of memory (`out` then empty). */
int dfs_records_unpacked(const dfs_records *in, dfs_records *out);

/* Only the listed words of packed record i, into their places in `out`
 * (the rest of `out` is left as it is). */
void dfs_record_unpack_words(const dfs_records *r, size_t i, const uint16_t *words,
                             size_t n, unsigned char *out);

/* Bits set in x.  Without the POPCNT instruction (the baseline x86-64
 * target) the builtin is a library call: bit arithmetic is faster. */
static inline unsigned dfs_popcount64(uint64_t x)
{
#if defined(__POPCNT__) || !defined(__x86_64__)
	return (unsigned)__builtin_popcountll(x);
#else
	x = x - ((x >> 1) & 0x5555555555555555ULL);
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (unsigned)((x * 0x0101010101010101ULL) >> 56);
#endif
}

/* Words of the bitmap in front of each packed record of m: one bit per
 * 8-byte word of the record. */
static inline size_t dfs_pack_bitmap_words(const dfs_module *m)
{
	return (m->record_size / 8 + 63) / 64;
}

/* Where packed record i lies (its bitmap, then its non-zero words). */
static inline const unsigned char *dfs_record_packed(const dfs_records *r, size_t i)
{
	return r->data + (size_t)r->pk_off[i] * 8;
}

/* The 8-byte word `w` (byte offset 8*w) of record i, packed or raw. */
static inline uint64_t dfs_record_word(const dfs_records *r, size_t i, size_t w)
{
	uint64_t v;
	if (!r->packed) {
		__builtin_memcpy(&v, dfs_record(r, i) + 8 * w, 8);
		return v;
	}
	const unsigned char *p = r->data + (size_t)r->pk_off[i] * 8;
	size_t b = w / 64, nb = dfs_pack_bitmap_words(r->module);
	uint64_t bits, below = 0;
	__builtin_memcpy(&bits, p + 8 * b, 8);
	if (!(bits >> (w % 64) & 1))
		return 0;
	for (size_t k = 0; k < b; k++) {
		uint64_t x;
		__builtin_memcpy(&x, p + 8 * k, 8);
		below += dfs_popcount64(x);
	}
	below += dfs_popcount64(bits & ((1ULL << (w % 64)) - 1));
	__builtin_memcpy(&v, p + 8 * (nb + below), 8);
	return v;
}

/* Ask for the memory of record i (its first 512 bytes) before it is
 * read: a loop over records issues it some records ahead, so that the
 * record is in the cache when it gets there.  Reads nothing. */
static inline void dfs_record_prefetch(const dfs_records *r, size_t i)
{
	const unsigned char *p;
	size_t n;
	if (r->packed) {
		p = r->data + (size_t)r->pk_off[i] * 8;
		n = ((size_t)r->pk_off[i + 1] - r->pk_off[i]) * 8;
	} else {
		p = dfs_record(r, i);
		n = dfs_record_size(r, i);
	}
	if (n > 512)
		n = 512;
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)63, end = (uintptr_t)p + n;
	for (; a < end; a += 64)
		__builtin_prefetch((const void *)a);
}

/* Ask for where record i lies (its entry of the packed records' word
 * offsets), a stage before dfs_record_prefetch: a loop over records in
 * no order whose prefetch would otherwise wait for that entry. */
static inline void dfs_record_prefetch_place(const dfs_records *r, size_t i)
{
	if (r->packed)
		__builtin_prefetch(&r->pk_off[i]);
}

/* The same for a loop that reads only the record's id (word 0): the
 * line of its bitmap and the line of the word. */
static inline void dfs_record_prefetch_id(const dfs_records *r, size_t i)
{
	if (r->packed) {
		const unsigned char *p = r->data + (size_t)r->pk_off[i] * 8;
		__builtin_prefetch(p);
		__builtin_prefetch(p + 8 * dfs_pack_bitmap_words(r->module));
	} else {
		__builtin_prefetch(dfs_record(r, i));
	}
}

#endif
