/* pack.c - records held compactly (see darshanfs/module.h).
 *
 * Most counters of most records are zero: a POSIX record of 90 words has
 * about 30 non-zero ones in real and generated logs alike.  A packed
 * record is a bitmap of its non-zero words (one bit per 8-byte word of the
 * current layout, in 64-bit bitmap words) followed by those words in
 * order; bit patterns are kept as they are, so unpacking gives back the
 * very bytes that were packed (-0.0 and NaN payloads included). */
#include <stdlib.h>
#include <string.h>

#include "darshanfs/module.h"
#include "util/slab.h"
#include "module/pack.h"

static size_t words_of(const dfs_module *m)
{
	return m->record_size / 8;
}

bool dfs_module_packable(const dfs_module *m)
{
	if (!m || m->record_size == 0 || m->record_size % 8 != 0 ||
	    m->record_size > DFS_RECORD_MAX || m->row_count)
		return false;
	for (size_t f = 0; f < m->n_fields; f++)
		if (m->fields[f].storage == DFS_S_VIRTUAL)
			return false;
	return true;
}

void dfs_records_init_packed(dfs_records *r, const dfs_module *m,
                             uint32_t version)
{
	dfs_records_init(r, m, version);
	r->packed = true;
}

static int grow_offsets(dfs_records *r)
{
	if (r->count + 2 <= r->pk_off_cap)
		return 0;
	size_t want = r->pk_off_cap ? r->pk_off_cap + r->pk_off_cap / 2 : 1024;
	uint32_t *o = realloc(r->pk_off, want * sizeof(*o));
	if (!o)
		return -1;
	if (!r->pk_off)
		o[0] = 0;
	r->pk_off = o;
	r->pk_off_cap = want;
	return 0;
}

void dfs_records_pack_reserve(dfs_records *r, size_t bytes)
{
	dfs_slab s;
	if (r->data || bytes < ((size_t)4 << 20) || dfs_slab_reserve(&s, bytes))
		return;
	r->data = (unsigned char *)s.base;
	r->cap = s.cap;
	r->mapped = true;
}

static int grow_data(dfs_records *r, size_t bytes)
{
	if (bytes <= r->cap - r->size)
		return 0;
	if (r->mapped) {
		/* past the reservation: a bigger one, copied once */
		dfs_slab bigger, old = {(char *)r->data, r->cap, r->size};
		size_t want = r->cap * 2 > r->size + bytes ? r->cap * 2
		                                           : r->size + bytes;
		if (dfs_slab_reserve(&bigger, want))
			return -1;
		dfs_slab_written(bigger.base, bigger.cap, 0, r->size);
		memcpy(bigger.base, r->data, r->size);
		dfs_slab_release(&old);
		r->data = (unsigned char *)bigger.base;
		r->cap = bigger.cap;
		return 0;
	}
	size_t cap = r->cap ? r->cap + r->cap / 2 : 64 * 1024;
	if (cap < r->size + bytes)
		cap = r->size + bytes;
	unsigned char *d = realloc(r->data, cap);
	if (!d)
		return -1;
	r->data = d;
	r->cap = cap;
	return 0;
}

/* The non-zero words w..nw-1 of rec in order into vals after the n
 * already there, their bits into bits; returns the new count.  vals has
 * room for nw words. */
static size_t compress_words(const unsigned char *rec, size_t w, size_t nw,
                             uint64_t *bits, unsigned char *vals, size_t n)
{
	for (; w < nw; w++) {
		uint64_t x;
		memcpy(&x, rec + 8 * w, 8);
		/* store every word, advance past the non-zero ones only */
		memcpy(vals + 8 * n, &x, 8);
		uint64_t nz = x != 0;
		bits[w / 64] |= nz << (w % 64);
		n += nz;
	}
	return n;
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang_analyzer__) && \
    !defined(DFS_NO_AVX512)
#include <immintrin.h>
#define HAVE_COMPRESS_AVX512 1
/* The same eight words at a time with AVX-512's compressing store, on
 * the processors that have it (most servers that write Darshan logs). */
__attribute__((target("avx512f")))
static size_t compress_words_avx512(const unsigned char *rec, size_t nw,
                                    uint64_t *bits, unsigned char *vals)
{
	size_t n = 0, w = 0;
	for (; w + 8 <= nw; w += 8) {
		__m512i x = _mm512_loadu_si512((const void *)(rec + 8 * w));
		__mmask8 nz = _mm512_test_epi64_mask(x, x);
		_mm512_mask_compressstoreu_epi64((void *)(vals + 8 * n), nz, x);
		bits[w / 64] |= (uint64_t)nz << (w % 64);
		n += (size_t)__builtin_popcount(nz);
	}
	return compress_words(rec, w, nw, bits, vals, n);
}
#endif

static bool use_avx512(void)
{
#ifdef HAVE_COMPRESS_AVX512
	/* (a test of the processor model the runtime filled in before main:
	 * nothing of our own to cache) */
	return __builtin_cpu_supports("avx512f");
#else
	return false;
#endif
}

bool dfs_records_pack_fits(const dfs_records *r, size_t n)
{
	size_t most = (dfs_pack_bitmap_words(r->module) + words_of(r->module)) * 8;
	return r->data && n <= (r->cap - r->size) / most;
}

int dfs_records_pack_add(dfs_records *r, const unsigned char *rec)
{
	const dfs_module *m = r->module;
	size_t nw = words_of(m), nb = dfs_pack_bitmap_words(m);
	if (grow_offsets(r) || grow_data(r, (nb + nw) * 8))
		return -1;
	uint64_t bits[DFS_RECORD_MAX / 8 / 64 + 1] = {0};
	unsigned char *vals = r->data + r->size + nb * 8;
	size_t n;
#ifdef HAVE_COMPRESS_AVX512
	if (use_avx512())
		n = compress_words_avx512(rec, nw, bits, vals);
	else
#endif
		n = compress_words(rec, 0, nw, bits, vals, 0);
	memcpy(r->data + r->size, bits, nb * 8);
	size_t end = r->size / 8 + nb + n;
	if (end > UINT32_MAX)
		return -1;
	if (r->mapped)
		dfs_slab_written((char *)r->data, r->cap, r->size, end * 8);
	r->size = end * 8;
	r->pk_off[r->count + 1] = (uint32_t)end;
	r->count++;
	return 0;
}

void dfs_records_pack_trim(dfs_records *r)
{
	if (r->mapped) {
		dfs_slab s = {(char *)r->data, r->cap, r->size};
		dfs_slab_trim(&s);
		r->cap = s.cap;
	} else if (r->cap > r->size + 4096) {
		unsigned char *d = realloc(r->data, r->size ? r->size : 8);
		if (d) {
			r->data = d;
			r->cap = r->size ? r->size : 8;
		}
	}
	if (r->pk_off && r->pk_off_cap > r->count + 1 + 1024) {
		uint32_t *o = realloc(r->pk_off, (r->count + 1) * sizeof(*o));
		if (o) {
			r->pk_off = o;
			r->pk_off_cap = r->count + 1;
		}
	}
}

int dfs_records_pack(dfs_records *r)
{
	if (r->packed || !dfs_module_packable(r->module) || r->scratch)
		return 0;
	dfs_records p;
	dfs_records_init_packed(&p, r->module, r->version);
	for (size_t i = 0; i < r->count; i++)
		if (dfs_records_pack_add(&p, dfs_record(r, i))) {
			dfs_records_free(&p);
			return -1;
		}
	dfs_records_pack_trim(&p);
	dfs_records_free(r);
	*r = p;
	return 0;
}

#ifdef HAVE_COMPRESS_AVX512
/* The words of a packed record (bitmap at p) back into their places, eight
 * at a time with AVX-512's expanding load: the words a bit does not mark
 * come out zero, so `out` needs no clearing beforehand. */
__attribute__((target("avx512f")))
static void expand_words_avx512(const unsigned char *p, size_t nb, size_t nw,
                                unsigned char *out)
{
	const unsigned char *v = p + nb * 8;
	for (size_t w = 0; w < nw; w += 8) {
		uint64_t bits;
		memcpy(&bits, p + 8 * (w / 64), 8);
		__mmask8 take = (__mmask8)(bits >> (w % 64));
		/* (a load of the words there are, spread out in a register:
		 * the expanding load from memory is slow on some processors) */
		unsigned n = (unsigned)__builtin_popcount(take);
		__m512i x = _mm512_maskz_expand_epi64(
			take, _mm512_maskz_loadu_epi64((__mmask8)((1u << n) - 1), (const void *)v));
		if (w + 8 <= nw)
			_mm512_storeu_si512((void *)(out + 8 * w), x);
		else
			_mm512_mask_storeu_epi64((void *)(out + 8 * w),
			                         (__mmask8)((1u << (nw - w)) - 1), x);
		v += 8 * n;
	}
}
#endif

void dfs_record_unpack(const dfs_records *r, size_t i, unsigned char *out)
{
	const dfs_module *m = r->module;
	size_t nb = dfs_pack_bitmap_words(m);
	const unsigned char *p = r->data + (size_t)r->pk_off[i] * 8;
#ifdef HAVE_COMPRESS_AVX512
	if (use_avx512()) {
		expand_words_avx512(p, nb, words_of(m), out);
		return;
	}
#endif
	const unsigned char *v = p + nb * 8;
	memset(out, 0, m->record_size);
	for (size_t b = 0; b < nb; b++) {
		uint64_t bits;
		memcpy(&bits, p + 8 * b, 8);
		while (bits) {
			unsigned k = (unsigned)__builtin_ctzll(bits);
			memcpy(out + (b * 64 + k) * 8, v, 8);
			v += 8;
			bits &= bits - 1;
		}
	}
}

size_t dfs_records_memory(const dfs_records *r)
{
	size_t n = r->cap;
	if (r->offsets)
		n += r->offsets_cap * sizeof(size_t);
	if (r->pk_off)
		n += r->pk_off_cap * sizeof(uint32_t);
	return n;
}

int dfs_records_unpacked(const dfs_records *in, dfs_records *out)
{
	dfs_records_init(out, in->module, in->version);
	if (dfs_records_reserve(out, in->packed ? in->count * in->module->record_size
	                                        : in->size))
		return -1;
	for (size_t i = 0; i < in->count; i++) {
		unsigned char *rec = dfs_records_append(out, dfs_record_size(in, i));
		if (!rec) {
			dfs_records_free(out);
			return -1;
		}
		if (in->packed)
			dfs_record_unpack(in, i, rec);
		else
			memcpy(rec, dfs_record(in, i), dfs_record_size(in, i));
	}
	return 0;
}

/* The words of a packed record: each one's place among the values is
 * the count of the bits below its bit, a population count a word asked
 * for; `hw`: by the processor's own instruction (inlined into a function
 * built for it, below). */
static inline __attribute__((always_inline)) unsigned bits_set(uint64_t x, bool hw)
{
	return hw ? (unsigned)__builtin_popcountll(x) : dfs_popcount64(x);
}

static inline __attribute__((always_inline)) void
unpack_words(const dfs_records *r, size_t i, const uint16_t *words, size_t n,
             unsigned char *out, bool hw)
{
	size_t nb = dfs_pack_bitmap_words(r->module);
	const unsigned char *p = r->data + (size_t)r->pk_off[i] * 8;
	uint64_t bits[DFS_RECORD_MAX / 8 / 64 + 1];
	size_t before[DFS_RECORD_MAX / 8 / 64 + 1];
	size_t sum = nb;
	for (size_t b = 0; b < nb; b++) {
		memcpy(&bits[b], p + 8 * b, 8);
		before[b] = sum;
		sum += bits_set(bits[b], hw);
	}
	for (size_t k = 0; k < n; k++) {
		size_t w = words[k], b = w / 64;
		uint64_t below = bits[b] & ((1ULL << (w % 64)) - 1), v = 0;
		if (bits[b] >> (w % 64) & 1)
			memcpy(&v, p + 8 * (before[b] + bits_set(below, hw)), 8);
		memcpy(out + 8 * w, &v, 8);
	}
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__POPCNT__)
#define HAVE_UNPACK_POPCNT 1
/* (a baseline x86-64 build counts bits in a dozen instructions; nearly
 * every processor that runs it has POPCNT) */
__attribute__((target("popcnt")))
static void unpack_words_popcnt(const dfs_records *r, size_t i, const uint16_t *words,
                                size_t n, unsigned char *out)
{
	unpack_words(r, i, words, n, out, true);
}
#endif

void dfs_record_unpack_words(const dfs_records *r, size_t i, const uint16_t *words,
                             size_t n, unsigned char *out)
{
#ifdef HAVE_UNPACK_POPCNT
	if (__builtin_cpu_supports("popcnt")) {
		unpack_words_popcnt(r, i, words, n, out);
		return;
	}
#endif
	unpack_words(r, i, words, n, out, false);
}

