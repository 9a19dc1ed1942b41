/* words.c - the sums over the records of every counter a record holds as
 * an 8-byte word, added a record at a time in one loop over its words
 * (eight at a time with AVX-512 where the processor has it) instead of
 * a read, a conversion and a test per counter: a module's sums are most
 * of what a summary reads of each record.
 *
 * Each word is read as its field stores it (an integer converted to a
 * double, or a double), and added when it is a count no run can have
 * left out: above 0 and finite, as facts.c's counter() reads a counter.
 * Every sum adds the same numbers in the same order (record order) as a
 * loop over the records adding that one counter would: the same bits.
 * The words of the record read so are kept (struct rec_words), so that
 * the counters the summary reads one by one are a load each. */
#include <math.h>
#include <string.h>

#include "summary/summary_int.h"
#include "module/pack.h"

bool dfs_rec_words_init(struct rec_words *rw, const dfs_module *m)
{
	memset(rw, 0, sizeof(*rw));
	if (!m || m->record_size == 0 || m->record_size % 8 || m->record_size > DFS_RECORD_MAX)
		return false;
	rw->m = m;
	rw->nw = m->record_size / 8;
	for (size_t f = 0; f < m->n_fields; f++) {
		const dfs_field *fd = &m->fields[f];
		if (fd->storage == DFS_S_F64 && fd->offset % 8 == 0 && fd->offset / 8 < rw->nw) {
			size_t w = fd->offset / 8;
			rw->f64[w / 64] |= (uint64_t)1 << (w % 64);
		}
	}
	return true;
}

bool dfs_rec_words_cover(const struct rec_words *rw, const int *fields, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		if (fields[k] < 0)
			continue;
		/* (field f is word f: read without a look at the field) */
		const dfs_field *fd = &rw->m->fields[fields[k]];
		if (!rw->nw || (fd->storage != DFS_S_I64 && fd->storage != DFS_S_F64) ||
		    fd->offset != 8 * (uint32_t)fields[k] || fd->offset / 8 >= rw->nw)
			return false;
	}
	return true;
}

/* word u as a number: stored as a double (isf), or an integer */
static inline double number_of(uint64_t u, bool isf)
{
	double f, i = (double)(int64_t)u;
	memcpy(&f, &u, 8);
	return isf ? f : i;
}

static void read_words(struct rec_words *rw, const unsigned char *rec)
{
	for (size_t w = 0; w < rw->nw; w++) {
		uint64_t u;
		memcpy(&u, rec + 8 * w, 8);
		double d = number_of(u, rw->f64[w / 64] >> (w % 64) & 1);
		rw->raw[w] = d;
		rw->cnt[w] = d > 0 && d < INFINITY ? d : 0;
	}
}

/* the same of a packed record (bitmap at p, nb words of it): only its
 * non-zero words are looked at; its id and rank unpacked into out */
static void unpack_words(struct rec_words *rw, const unsigned char *p, size_t nb,
                         unsigned char *out)
{
	memset(out, 0, 16);
	memset(rw->raw, 0, rw->nw * sizeof(double));
	memset(rw->cnt, 0, rw->nw * sizeof(double));
	const unsigned char *v = p + nb * 8;
	for (size_t b = 0; b < nb; b++) {
		uint64_t bits;
		memcpy(&bits, p + 8 * b, 8);
		for (; bits; bits &= bits - 1) {
			size_t w = b * 64 + (size_t)__builtin_ctzll(bits);
			uint64_t u;
			memcpy(&u, v, 8);
			v += 8;
			if (w >= rw->nw)
				continue;
			if (w < 2)
				memcpy(out + 8 * w, &u, 8);
			double d = number_of(u, rw->f64[b] >> (w % 64) & 1);
			rw->raw[w] = d;
			rw->cnt[w] = d > 0 && d < INFINITY ? d : 0;
		}
	}
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang_analyzer__) && \
    !defined(DFS_NO_AVX512)
#include <immintrin.h>
#define HAVE_WORDS_AVX512 1
__attribute__((target("avx512f,avx512dq")))
static void read_words_avx512(struct rec_words *rw, const unsigned char *rec)
{
	const __m512d zero = _mm512_setzero_pd(), inf = _mm512_set1_pd(INFINITY);
	for (size_t w = 0; w < rw->nw; w += 8) {
		__mmask8 lanes = rw->nw - w >= 8 ? (__mmask8)0xff
		                                 : (__mmask8)((1u << (rw->nw - w)) - 1);
		__m512i x = _mm512_maskz_loadu_epi64(lanes, (const void *)(rec + 8 * w));
		__mmask8 dbl = (__mmask8)(rw->f64[w / 64] >> (w % 64));
		__m512d d = _mm512_mask_blend_pd(dbl, _mm512_cvtepi64_pd(x), _mm512_castsi512_pd(x));
		__mmask8 take = _mm512_cmp_pd_mask(d, zero, _CMP_GT_OQ) &
		                _mm512_cmp_pd_mask(d, inf, _CMP_LT_OQ);
		_mm512_mask_storeu_pd(rw->raw + w, lanes, d);
		_mm512_mask_storeu_pd(rw->cnt + w, lanes, _mm512_maskz_mov_pd(take, d));
	}
}

/* the same of a packed record (bitmap at p, nb words of it), its id and
 * rank (its first two words) unpacked into out on the way */
__attribute__((target("avx512f,avx512dq")))
static void unpack_words_avx512(struct rec_words *rw, const unsigned char *p, size_t nb,
                                unsigned char *out, struct word_sums *ws)
{
	const __m512d zero = _mm512_setzero_pd(), inf = _mm512_set1_pd(INFINITY);
	const unsigned char *v = p + nb * 8;
	for (size_t w = 0; w < rw->nw; w += 8) {
		__mmask8 lanes = rw->nw - w >= 8 ? (__mmask8)0xff
		                                 : (__mmask8)((1u << (rw->nw - w)) - 1);
		uint64_t bits;
		memcpy(&bits, p + 8 * (w / 64), 8);
		__mmask8 here = (__mmask8)(bits >> (w % 64)) & lanes;
		/* (a load of the words there are, spread out in a register:
		 * the expanding load from memory is slow on some processors) */
		unsigned nz = (unsigned)__builtin_popcount(here);
		__m512i x = _mm512_maskz_expand_epi64(
			here, _mm512_maskz_loadu_epi64((__mmask8)((1u << nz) - 1), (const void *)v));
		v += 8 * nz;
		__mmask8 dbl = (__mmask8)(rw->f64[w / 64] >> (w % 64));
		__m512d d = _mm512_mask_blend_pd(dbl, _mm512_cvtepi64_pd(x), _mm512_castsi512_pd(x));
		__mmask8 take = _mm512_cmp_pd_mask(d, zero, _CMP_GT_OQ) &
		                _mm512_cmp_pd_mask(d, inf, _CMP_LT_OQ);
		__m512d c = _mm512_maskz_mov_pd(take, d);
		if (w == 0)
			_mm512_mask_storeu_epi64((void *)out, (__mmask8)3, x);
		if (lanes == 0xff) {
			_mm512_storeu_pd(rw->raw + w, d);
			_mm512_storeu_pd(rw->cnt + w, c);
			if (ws)
				_mm512_storeu_pd(ws->sum + w, _mm512_add_pd(_mm512_loadu_pd(ws->sum + w), c));
		} else {
			_mm512_mask_storeu_pd(rw->raw + w, lanes, d);
			_mm512_mask_storeu_pd(rw->cnt + w, lanes, c);
			if (ws)
				_mm512_mask_storeu_pd(ws->sum + w, lanes,
				                      _mm512_add_pd(_mm512_maskz_loadu_pd(lanes, ws->sum + w),
				                                    c));
		}
	}
}

__attribute__((target("avx512f")))
static void add_words_avx512(struct word_sums *ws, const struct rec_words *rw)
{
	for (size_t w = 0; w < rw->nw; w += 8) {
		__mmask8 lanes = rw->nw - w >= 8 ? (__mmask8)0xff
		                                 : (__mmask8)((1u << (rw->nw - w)) - 1);
		__m512d s = _mm512_maskz_loadu_pd(lanes, ws->sum + w);
		s = _mm512_add_pd(s, _mm512_maskz_loadu_pd(lanes, rw->cnt + w));
		_mm512_mask_storeu_pd(ws->sum + w, lanes, s);
	}
}

static bool has_avx512(void)
{
	/* (the processor model the runtime filled in before main: nothing
	 * of our own to cache) */
	return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
}
#endif

void dfs_rec_words_read(struct rec_words *rw, const unsigned char *rec)
{
#ifdef HAVE_WORDS_AVX512
	if (has_avx512()) {
		read_words_avx512(rw, rec);
		return;
	}
#endif
	read_words(rw, rec);
}

const unsigned char *dfs_rec_words_get(struct rec_words *rw, const dfs_records *r, size_t i,
                                       unsigned char *scratch, struct word_sums *ws)
{
#ifdef HAVE_WORDS_AVX512
	if (r->packed && r->module == rw->m && has_avx512()) {
		/* (the sums taken on the way, the numbers still in registers) */
		unpack_words_avx512(rw, dfs_record_packed(r, i), dfs_pack_bitmap_words(rw->m),
		                    scratch, ws);
		return scratch;
	}
#endif
	const unsigned char *rec = scratch;
	if (r->packed && r->module == rw->m) {
		unpack_words(rw, dfs_record_packed(r, i), dfs_pack_bitmap_words(rw->m), scratch);
	} else {
		rec = dfs_record_get(r, i, scratch);
		dfs_rec_words_read(rw, rec);
	}
	if (ws)
		dfs_word_sums_add(ws, rw);
	return rec;
}

void dfs_word_sums_add(struct word_sums *ws, const struct rec_words *rw)
{
#ifdef HAVE_WORDS_AVX512
	if (has_avx512()) {
		add_words_avx512(ws, rw);
		return;
	}
#endif
	/* (a sum never is -0: adding the +0 of a count left out leaves it
	 * as it is, in both loops) */
	for (size_t w = 0; w < rw->nw; w++)
		ws->sum[w] += rw->cnt[w];
}
