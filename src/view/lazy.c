/* lazy.c - records.csv rendered on demand.
 *
 * A records.csv snapshot does not hold its text: it holds a reference to
 * the decoded log (and to the imported rows it shows, if any), its own
 * copy of the selection and the byte offset of every batch of LAZY_ROWS
 * rows.  A read renders the batch it falls in into one of a few reusable
 * buffers, and helper threads render the next batches meanwhile, so a
 * sequential reader finds them ready and the rendering runs on the other
 * core while the kernel copies.  A batch's length is known before it is
 * rendered, so its buffer is reserved once; the buffers outlive their
 * snapshot's readers, kept by the view for the next snapshot (spares,
 * below).  The offsets come from the rows' lengths
 * (dfs_csv_record_len, no rendering): measured while a big log decodes,
 * beside the inflate, or else when first asked, on every core; then
 * summed for each new selection.  A prefill (dfs_view_prefill) renders
 * one module's rows instead of measuring them while the log decodes,
 * and hands their text to a store in order (see "the prefill" below).
 *
 * A snapshot reads the same bytes for its whole life: nothing it renders
 * from changes (the log is immutable, the selection is its own copy).
 * snapshot.c reads and frees it through the operations set here
 * (lazy_ops): lazy.c is above snapshot.c and below the cache. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "csv/csv.h"
#include "log/hints.h"
#include "util/workers.h"
#include "view/lazy.h"
#include "module/pack.h"

#define LAZY_ROWS 4096      /* rows of a batch (about 2 MiB of POSIX text) */
#define LAZY_SLOTS 8        /* batches kept rendered */
#define LAZY_AHEAD 4        /* batches rendered ahead of a reader */
#define MAX_MEASURE_THREADS 8
/* logs with fewer compressed bytes of records are measured when asked */
#define ROW_LENS_MIN_BYTES ((uint64_t)4 << 20)

enum slot_state { SLOT_EMPTY, SLOT_RENDERING, SLOT_READY };

struct slot {
	enum slot_state state;
	size_t batch;
	dfs_buf text;
	int pins;                 /* readers copying out of it */
	uint64_t used;            /* clock of the last use */
};

struct lazy_csv {
	const dfs_log *log;       /* a reference of our own */
	const dfs_module *m;
	const dfs_records *r;     /* records of the log, or imported */
	struct import_set *rows;  /* a reference to the imported, or NULL */
	size_t *index;            /* our copy of the selection, NULL = all */
	size_t count;
	char *head;
	size_t head_len;
	size_t nbatches;
	uint64_t *batch_off;      /* nbatches + 1 offsets; [0] = head_len */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct slot slots[LAZY_SLOTS];
	uint64_t clock;
	struct dfs_helpers *helpers;   /* the view's, counting ours */
	/* a table's rows instead of records (dfs_lazy_table) */
	bool is_table;
	struct dfs_lazy_rows table;
};

/* ---- rendering and measuring rows ------------------------------------------- */

/* The name lookups of a loop over records in no particular order miss
 * the cache: fetch the slot of record k + 24, the entry of k + 16 and the
 * name of k + 8.  (In the name table's order they hit without help.) */
static inline void prefetch_places(const dfs_log *log, const dfs_records *r,
                                   const size_t *index, size_t k, size_t to,
                                   const dfs_name_hint *hint)
{
	if (dfs_name_hint_in_order(hint))
		return;
	for (int stage = 0; stage < 3; stage++) {
		size_t d = (size_t)(3 - stage) * 8;
		if (k + d < to) {
			size_t a = index ? index[k + d] : k + d;
			dfs_log_name_prefetch(log, dfs_record_word(r, a, 0), stage);
		}
	}
}

/* Rows [from, to) appended to out; row_len (may be NULL) receives each
 * row's length at [k - from]. */
static void render_rows(const dfs_log *log, const dfs_module *m, const dfs_records *r,
                        const size_t *index, size_t from, size_t to, dfs_buf *out,
                        uint32_t *row_len)
{
	_Alignas(8) unsigned char scratch[DFS_RECORD_MAX];
	bool packed = r->packed && dfs_csv_packed_ok(m);
	dfs_name_hint hint = DFS_NAME_HINT_INIT;
	for (size_t k = from; k < to && dfs_buf_ok(out); k++) {
		size_t i = index ? index[k] : k;
		size_t before = out->len;
		prefetch_places(log, r, index, k, to, &hint);
		if (packed)
			dfs_csv_record_packed(log, m, dfs_record_packed(r, i), &hint, out);
		else
			dfs_csv_record(log, m, dfs_record_get(r, i, scratch),
			               dfs_record_size(r, i), &hint, out);
		if (row_len) {
			size_t n = out->len - before;
			row_len[k - from] = n <= UINT32_MAX ? (uint32_t)n : 0;
		}
	}
}

void dfs_render_rows(const dfs_log *log, const dfs_module *m, const dfs_records *r,
                     const size_t *index, size_t from, size_t to, dfs_buf *out)
{
	render_rows(log, m, r, index, from, to, out, NULL);
}

/* The length of rows [from, to) without rendering them; row_len (may be
 * NULL) receives each row's. */
static uint64_t measure_rows(const dfs_log *log, const dfs_module *m,
                             const dfs_records *r, const size_t *index,
                             size_t from, size_t to, uint32_t *row_len)
{
	_Alignas(8) unsigned char scratch[DFS_RECORD_MAX];
	bool packed = r->packed && dfs_csv_packed_ok(m);
	uint64_t total = 0;
	dfs_name_hint hint = DFS_NAME_HINT_INIT;
	for (size_t k = from; k < to; k++) {
		size_t i = index ? index[k] : k;
		prefetch_places(log, r, index, k, to, &hint);
		size_t n = packed ? dfs_csv_record_len_packed(log, m, dfs_record_packed(r, i),
		                                              &hint)
		                  : dfs_csv_record_len(log, m, dfs_record_get(r, i, scratch),
		                                       dfs_record_size(r, i), &hint);
		if (row_len)
			row_len[i] = n <= UINT32_MAX ? (uint32_t)n : 0;
		total += n;
	}
	return total;
}

/* ---- the prefill: records.csv rendered while its log decodes ------------------- */

/* Each run's text is rendered after FILL_PAGE bytes of room, where the
 * text before it that did not fill a page is put when the run's turn
 * comes: the store then gets whole pages (the kernel keeps no other)
 * straight from the run's buffer.  The buffers are reused: fresh memory
 * is dear. */
#define FILL_PAGE ((size_t)DFS_FILL_PAGE)

/* A run rendered before the runs ahead of it were */
struct fill_run {
	size_t first, count;
	dfs_buf text;
	struct fill_run *next;
};

/* A buffer for a run's text, its room reserved.  (locked) */
static void fill_buf_get(struct dfs_row_lens *rl, dfs_buf *b)
{
	if (rl->npool)
		*b = rl->pool[--rl->npool];
	else
		dfs_buf_init(b);
	b->len = 0;
	if (dfs_buf_grow(b, FILL_PAGE))
		b->len = FILL_PAGE;
}

/* (locked) */
static void fill_buf_put(struct dfs_row_lens *rl, dfs_buf *b)
{
	if (rl->npool < DFS_FILL_POOL && b->data && dfs_buf_ok(b))
		rl->pool[rl->npool++] = *b;
	else
		dfs_buf_free(b);
	dfs_buf_init(b);
}

/* No more text: what was rendered ahead is dropped.  (locked) */
static void fill_stop(struct dfs_row_lens *rl)
{
	rl->fill_stopped = true;
	while (rl->ahead) {
		struct fill_run *f = rl->ahead;
		rl->ahead = f->next;
		dfs_buf_free(&f->text);
		free(f);
	}
}

/* The run's text comes next: the whole pages of what was left over and
 * the text go to the store, the rest is left over.  (locked) */
static void fill_emit(struct dfs_row_lens *rl, dfs_buf *text)
{
	size_t carry = rl->carry_len;
	char *seg = text->data + FILL_PAGE - carry;
	size_t len = text->len - FILL_PAGE + carry;
	memcpy(seg, rl->carry, carry);
	size_t n = (size_t)(((rl->stored + len) & ~(uint64_t)(FILL_PAGE - 1)) - rl->stored);
	if (n && rl->fill->store(rl->fill->ctx, rl->stored, seg, n)) {
		fill_stop(rl);
		return;
	}
	rl->stored += n;
	rl->carry_len = len - n;
	memcpy(rl->carry, seg + n, rl->carry_len);
}

/* The text of rows [first, first + count), in its turn or kept until it
 * comes; `text` is taken.  (locked) */
static void fill_add(struct dfs_row_lens *rl, size_t first, size_t count, dfs_buf *text)
{
	if (first != rl->fill_rows) {
		struct fill_run *f = malloc(sizeof(*f));
		if (!f) {
			fill_stop(rl);
			return;
		}
		*f = (struct fill_run){first, count, *text, rl->ahead};
		dfs_buf_init(text);
		rl->ahead = f;
		return;
	}
	fill_emit(rl, text);
	rl->fill_rows += count;
	/* the runs that were waiting for this one */
	for (struct fill_run **p = &rl->ahead; *p && !rl->fill_stopped;) {
		struct fill_run *f = *p;
		if (f->first != rl->fill_rows) {
			p = &f->next;
			continue;
		}
		*p = f->next;
		fill_emit(rl, &f->text);
		fill_buf_put(rl, &f->text);
		rl->fill_rows += f->count;
		free(f);
		p = &rl->ahead;
	}
}

/* ---- row lengths measured while a log decodes ----------------------------------- */

/* Runs may be shown on two threads at once and finish in any order: each
 * is measured (or rendered) on its own, then its lengths are put in place
 * under the lock (the array may move as it grows).  A run with first == 0
 * is shown alone, so it may start the module's count again. */
static void observe_rows(void *ctx, const dfs_log *log, const dfs_records *run,
                         size_t first)
{
	struct dfs_row_lens *rl = ctx;
	const dfs_module *m = run->module;
	size_t count = run->count;
	int id = m->id;
	dfs_buf text = DFS_BUF_INIT;
	pthread_mutex_lock(&rl->lock);
	bool filling = id == rl->fill_module && !rl->fill_stopped;
	if (filling && first == 0 && (rl->fill_rows || rl->stored || rl->ahead)) {
		/* read again: what was rendered came from data found bad since */
		if (rl->stored)
			rl->fill->store(rl->fill->ctx, 0, NULL, 0);
		fill_stop(rl);
		filling = false;
	}
	if (filling)
		fill_buf_get(rl, &text);
	pthread_mutex_unlock(&rl->lock);

	uint32_t *len = malloc((count ? count : 1) * sizeof(uint32_t));
	if (len && filling) {
		if (first == 0)
			dfs_csv_header(m, &text);
		render_rows(log, m, run, NULL, 0, count, &text, len);
		if (!dfs_buf_ok(&text) || text.len < FILL_PAGE)
			filling = false;
	}
	if (len && !filling)
		measure_rows(log, m, run, NULL, 0, count, len);

	pthread_mutex_lock(&rl->lock);
	if (first == 0) {   /* the module is read (again) from its start */
		rl->seen[id] = 0;
		rl->missed[id] = false;
	}
	if (!len || rl->missed[id]) {
		rl->missed[id] = true;
		goto out;
	}
	if (first + count > rl->cap[id]) {
		size_t cap = rl->cap[id] ? rl->cap[id] * 2 : 65536;
		while (cap < first + count)
			cap *= 2;
		uint32_t *grown = realloc(rl->len[id], cap * sizeof(uint32_t));
		if (!grown) {
			rl->missed[id] = true;
			goto out;
		}
		rl->len[id] = grown;
		rl->cap[id] = cap;
	}
	memcpy(rl->len[id] + first, len, count * sizeof(uint32_t));
	rl->seen[id] += count;
out:
	if (id == rl->fill_module && !rl->fill_stopped) {
		if (filling && !rl->missed[id])
			fill_add(rl, first, count, &text);
		else
			fill_stop(rl);   /* a run without its text: a gap */
	}
	fill_buf_put(rl, &text);
	pthread_mutex_unlock(&rl->lock);
	free(len);
}

void dfs_row_lens_init(struct dfs_row_lens *rl, dfs_log_observer *obs,
                       int module, const dfs_view_prefill *pf)
{
	memset(rl, 0, sizeof(*rl));
	pthread_mutex_init(&rl->lock, NULL);
	rl->fill_module = pf ? module : -1;
	rl->fill = pf;
	*obs = (dfs_log_observer){observe_rows, rl, ROW_LENS_MIN_BYTES};
}

size_t dfs_row_lens_take(struct dfs_row_lens *rl, const dfs_log *log,
                         uint32_t *row_len[DFS_MOD_SLOTS])
{
	size_t bytes = 0;
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		const dfs_records *r = log ? dfs_log_records(log, id) : NULL;
		if (rl->len[id] && r && !rl->missed[id] && rl->seen[id] == r->count &&
		    !row_len[id]) {
			uint32_t *len = realloc(rl->len[id], (r->count ? r->count : 1) *
			                                      sizeof(uint32_t));
			row_len[id] = len ? len : rl->len[id];
			bytes += r->count * sizeof(uint32_t);
			/* every row rendered: the last piece of the text */
			if (id == rl->fill_module && !rl->fill_stopped &&
			    rl->fill_rows == r->count && rl->carry_len)
				rl->fill->store(rl->fill->ctx, rl->stored, rl->carry,
				                rl->carry_len);
		} else {
			free(rl->len[id]);
		}
		rl->len[id] = NULL;
	}
	fill_stop(rl);
	while (rl->npool)
		dfs_buf_free(&rl->pool[--rl->npool]);
	pthread_mutex_destroy(&rl->lock);
	return bytes;
}

static void batch_rows(const struct lazy_csv *z, size_t b, size_t *from,
                       size_t *to)
{
	*from = b * LAZY_ROWS;
	*to = *from + LAZY_ROWS < z->count ? *from + LAZY_ROWS : z->count;
}

/* ---- measuring -------------------------------------------------------------------- */

struct measure_job {
	struct lazy_csv *z;
	uint32_t *row_len;
	atomic_size_t next;
};

static void *measure_worker(void *arg)
{
	struct measure_job *j = arg;
	struct lazy_csv *z = j->z;
	dfs_buf text = DFS_BUF_INIT;
	for (;;) {
		size_t batch = atomic_fetch_add(&j->next, 1);
		if (batch >= z->nbatches)
			break;
		size_t from, to;
		batch_rows(z, batch, &from, &to);
		/* a length until summed; a table's rows are measured by
		 * rendering them (a failure leaves the batch's length 0,
		 * which its rendering then cannot match: EIO, not torn text) */
		if (z->is_table && z->table.measure) {
			z->batch_off[batch + 1] = z->table.measure(z->table.ctx, from, to);
			continue;
		}
		if (z->is_table) {
			dfs_buf_reset(&text);
			z->table.render(z->table.ctx, from, to, &text);
			z->batch_off[batch + 1] = dfs_buf_ok(&text) ? text.len : 0;
			continue;
		}
		z->batch_off[batch + 1] = measure_rows(z->log, z->m, z->r, z->index,
		                                       from, to, j->row_len);
	}
	dfs_buf_free(&text);
	return NULL;
}

/* The length of every batch, from the rows' lengths when all are known,
 * else measured on every core (filling row_len); then summed into
 * offsets. */
static void measure(struct lazy_csv *z, uint32_t *row_len)
{
	bool known = row_len != NULL;
	for (size_t k = 0; k < z->count && known; k++)
		known = row_len[z->index ? z->index[k] : k] != 0;
	if (known) {
		for (size_t b = 0; b < z->nbatches; b++) {
			size_t from, to;
			batch_rows(z, b, &from, &to);
			uint64_t n = 0;
			for (size_t k = from; k < to; k++)
				n += row_len[z->index ? z->index[k] : k];
			z->batch_off[b + 1] = n;
		}
	} else {
		struct measure_job j = {.z = z, .row_len = row_len};
		atomic_init(&j.next, 0);
		dfs_workers_run(dfs_workers(MAX_MEASURE_THREADS, z->nbatches),
		                measure_worker, &j);
	}
	z->batch_off[0] = z->head_len;
	for (size_t b = 0; b < z->nbatches; b++)
		z->batch_off[b + 1] += z->batch_off[b];
}

/* ---- spare buffers ---------------------------------------------------------------- */

/* The view keeps at most DFS_SPARE_BUFS buffers and SPARE_BYTES in all,
 * the biggest it was given (they cost the most page faults to make
 * again); a buffer is handed out for a batch that needs at least a
 * quarter of it. */
#define SPARE_BYTES ((size_t)32 << 20)

/* b's memory kept for another batch, or freed; b is left empty. */
static void spare_put(struct dfs_helpers *h, dfs_buf *b)
{
	if (!b->data || !dfs_buf_ok(b) || b->cap > SPARE_BYTES) {
		dfs_buf_free(b);
		return;
	}
	pthread_mutex_lock(&h->lock);
	/* make room by dropping smaller ones */
	while (h->nspare == DFS_SPARE_BUFS || h->spare_bytes + b->cap > SPARE_BYTES) {
		size_t small = 0;
		for (size_t i = 1; i < h->nspare; i++)
			if (h->spare[i].cap < h->spare[small].cap)
				small = i;
		if (h->nspare == 0 || h->spare[small].cap >= b->cap)
			break;
		h->spare_bytes -= h->spare[small].cap;
		dfs_buf_free(&h->spare[small]);
		h->spare[small] = h->spare[--h->nspare];
	}
	if (h->nspare < DFS_SPARE_BUFS && h->spare_bytes + b->cap <= SPARE_BYTES) {
		dfs_buf_reset(b);
		h->spare_bytes += b->cap;
		h->spare[h->nspare++] = *b;
		dfs_buf_init(b);
	}
	pthread_mutex_unlock(&h->lock);
	dfs_buf_free(b);
}

/* Exchange the empty b for the smallest spare with room for `room` more
 * bytes (b's memory, if any, is kept in its place); nothing when none
 * fits. */
static void spare_take(struct dfs_helpers *h, dfs_buf *b, size_t room)
{
	pthread_mutex_lock(&h->lock);
	size_t best = h->nspare;
	for (size_t i = 0; i < h->nspare; i++) {
		size_t cap = h->spare[i].cap;
		if (cap > room && cap / 4 <= room &&
		    (best == h->nspare || cap < h->spare[best].cap))
			best = i;
	}
	if (best < h->nspare) {
		dfs_buf mine = *b;
		*b = h->spare[best];
		h->spare_bytes -= b->cap;
		if (mine.data) {
			h->spare[best] = mine;
			h->spare_bytes += mine.cap;
		} else {
			h->spare[best] = h->spare[--h->nspare];
		}
	}
	pthread_mutex_unlock(&h->lock);
}

/* ---- reading ---------------------------------------------------------------------- */

/* Render batch `b` into slot `s` (marked RENDERING by the caller, who
 * holds no lock), then mark it READY, or EMPTY when that failed. */
static bool render_slot(struct lazy_csv *z, struct slot *s, size_t b)
{
	size_t from, to;
	batch_rows(z, b, &from, &to);
	/* the text's length is known: its room at once, from a spare when
	 * the view has one that fits (growing step by step copies the text
	 * over and over; fresh memory is faulted in a page at a time), an
	 * eighth more when fresh, for the next batches */
	uint64_t len = z->batch_off[b + 1] - z->batch_off[b];
	size_t row_room = z->is_table ? z->table.row_room : dfs_csv_row_room(z->m);
	size_t room = len < SIZE_MAX / 4 ? (size_t)len + row_room : SIZE_MAX / 4;
	dfs_buf_reset(&s->text);
	if (s->text.cap <= room)
		spare_take(z->helpers, &s->text, room);
	if (s->text.cap <= room)
		dfs_buf_reserve(&s->text, room + room / 8);
	if (z->is_table)
		z->table.render(z->table.ctx, from, to, &s->text);
	else
		dfs_render_rows(z->log, z->m, z->r, z->index, from, to, &s->text);
	/* the text must be the length measured: anything else would be torn */
	bool ok = dfs_buf_ok(&s->text) &&
	          s->text.len == z->batch_off[b + 1] - z->batch_off[b];
	pthread_mutex_lock(&z->lock);
	s->state = ok ? SLOT_READY : SLOT_EMPTY;
	if (!ok)
		dfs_buf_free(&s->text);
	pthread_cond_broadcast(&z->cond);
	pthread_mutex_unlock(&z->lock);
	return ok;
}

static struct slot *find_slot(struct lazy_csv *z, size_t b)
{
	for (size_t i = 0; i < LAZY_SLOTS; i++)
		if (z->slots[i].state != SLOT_EMPTY && z->slots[i].batch == b)
			return &z->slots[i];
	return NULL;
}

/* A slot to render into (lock held): an empty one, else the least
 * recently used ready one nobody is copying from and that does not hold a
 * batch in [keep, keep + LAZY_AHEAD]. */
static struct slot *victim(struct lazy_csv *z, size_t keep)
{
	struct slot *best = NULL;
	for (size_t i = 0; i < LAZY_SLOTS; i++) {
		struct slot *s = &z->slots[i];
		if (s->state == SLOT_EMPTY)
			return s;
		if (s->state != SLOT_READY || s->pins ||
		    (s->batch >= keep && s->batch <= keep + LAZY_AHEAD))
			continue;
		if (!best || s->used < best->used)
			best = s;
	}
	return best;
}

/* A batch to render ahead, queued for the view's helper threads; it
 * holds a reference to its snapshot until rendered. */
struct dfs_ahead_job {
	dfs_snapshot *c;
	struct slot *s;
	size_t batch;
	struct dfs_ahead_job *next;
};

/* how long a helper thread with nothing to render stays */
#define HELPER_IDLE_NS 500000000L

void dfs_helpers_init(struct dfs_helpers *h)
{
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->done, NULL);
	pthread_condattr_t attr;
	bool mono = pthread_condattr_init(&attr) == 0;
	if (mono && pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) == 0)
		pthread_cond_init(&h->work, &attr);
	else
		pthread_cond_init(&h->work, NULL);
	if (mono)
		pthread_condattr_destroy(&attr);
	h->running = 0;
	h->queue = h->queue_tail = NULL;
	for (size_t i = 0; i < DFS_HELPER_THREADS; i++)
		h->state[i] = DFS_HELPER_NONE;
	h->threads = h->idle = 0;
	h->stop = false;
	h->nspare = 0;
	h->spare_bytes = 0;
}

void dfs_helpers_trim(struct dfs_helpers *h)
{
	pthread_mutex_lock(&h->lock);
	while (h->nspare)
		dfs_buf_free(&h->spare[--h->nspare]);
	h->spare_bytes = 0;
	pthread_mutex_unlock(&h->lock);
}

size_t dfs_helpers_threads(struct dfs_helpers *h)
{
	pthread_mutex_lock(&h->lock);
	size_t n = h->threads;
	pthread_mutex_unlock(&h->lock);
	return n;
}

/* (no batch is queued: the view's teardown waited for them) */
void dfs_helpers_destroy(struct dfs_helpers *h)
{
	bool started[DFS_HELPER_THREADS];
	pthread_mutex_lock(&h->lock);
	h->stop = true;   /* (no thread starts after this) */
	for (size_t i = 0; i < DFS_HELPER_THREADS; i++)
		started[i] = h->state[i] != DFS_HELPER_NONE;
	pthread_cond_broadcast(&h->work);
	pthread_mutex_unlock(&h->lock);
	for (size_t i = 0; i < DFS_HELPER_THREADS; i++)
		if (started[i])
			pthread_join(h->thread[i], NULL);
	dfs_helpers_trim(h);
	pthread_cond_destroy(&h->work);
	pthread_cond_destroy(&h->done);
	pthread_mutex_destroy(&h->lock);
}

struct helper_start {
	struct dfs_helpers *h;
	size_t id;
};

/* A helper thread: renders queued batches until it has waited
 * HELPER_IDLE_NS for one, or the view goes. */
static void *helper_main(void *arg)
{
	struct dfs_helpers *h = ((struct helper_start *)arg)->h;
	size_t id = ((struct helper_start *)arg)->id;
	free(arg);
	pthread_mutex_lock(&h->lock);
	for (;;) {
		struct dfs_ahead_job *a = h->queue;
		if (a) {
			h->queue = a->next;
			if (!h->queue)
				h->queue_tail = NULL;
			pthread_mutex_unlock(&h->lock);
			render_slot(a->c->lazy, a->s, a->batch);
			/* (no lock held: the release may reach view->lock) */
			dfs_snapshot_release(a->c);
			free(a);
			pthread_mutex_lock(&h->lock);
			if (--h->running == 0)
				pthread_cond_broadcast(&h->done);
			continue;
		}
		if (h->stop)
			break;
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += HELPER_IDLE_NS;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		h->idle++;
		int rc = pthread_cond_timedwait(&h->work, &h->lock, &until);
		h->idle--;
		if (rc == ETIMEDOUT && !h->queue)
			break;
	}
	/* joined by the next start or the teardown */
	h->state[id] = DFS_HELPER_ENDED;
	h->threads--;
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

/* Queue a (helpers lock held): false when no thread can render it (none
 * runs and none starts). */
static bool helpers_queue(struct dfs_helpers *h, struct dfs_ahead_job *a)
{
	if (h->idle == 0 && h->threads < DFS_HELPER_THREADS && !h->stop) {
		size_t id = 0;
		while (h->state[id] == DFS_HELPER_RUNNING)
			id++;
		if (h->state[id] == DFS_HELPER_ENDED) {
			/* it has given back the lock for good: ends at once */
			pthread_join(h->thread[id], NULL);
			h->state[id] = DFS_HELPER_NONE;
		}
		struct helper_start *st = malloc(sizeof(*st));
		if (st) {
			*st = (struct helper_start){h, id};
			if (pthread_create(&h->thread[id], NULL, helper_main, st) == 0) {
				h->state[id] = DFS_HELPER_RUNNING;
				h->threads++;
			} else {
				free(st);
			}
		}
	}
	if (h->threads == 0)
		return false;
	a->next = NULL;
	if (h->queue_tail)
		h->queue_tail->next = a;
	else
		h->queue = a;
	h->queue_tail = a;
	h->running++;
	pthread_cond_signal(&h->work);
	return true;
}

void dfs_lazy_wait_idle(struct dfs_helpers *h)
{
	pthread_mutex_lock(&h->lock);
	while (h->running)
		pthread_cond_wait(&h->done, &h->lock);
	pthread_mutex_unlock(&h->lock);
}

/* Queue the batches after `b` for the helper threads (lock held). */
static void render_ahead(dfs_snapshot *c, size_t b)
{
	struct lazy_csv *z = c->lazy;
	for (size_t d = 1; d <= LAZY_AHEAD && b + d < z->nbatches; d++) {
		if (find_slot(z, b + d))
			continue;
		struct slot *s = victim(z, b);
		struct dfs_ahead_job *a = s ? malloc(sizeof(*a)) : NULL;
		if (!a)
			return;
		*a = (struct dfs_ahead_job){dfs_snapshot_ref(c), s, b + d, NULL};
		s->state = SLOT_RENDERING;
		s->batch = b + d;
		pthread_mutex_lock(&z->helpers->lock);
		bool queued = helpers_queue(z->helpers, a);
		pthread_mutex_unlock(&z->helpers->lock);
		if (!queued) {
			s->state = SLOT_EMPTY;
			/* c has more references than this one: not the last */
			atomic_fetch_sub(&c->refs, 1);
			free(a);
			return;
		}
	}
}

/* The slot holding batch `b`, rendered and pinned; NULL when it could not
 * be rendered, or (wait false) is not ready yet. */
static struct slot *acquire(dfs_snapshot *c, size_t b, bool wait)
{
	struct lazy_csv *z = c->lazy;
	pthread_mutex_lock(&z->lock);
	struct slot *s;
	for (;;) {
		s = find_slot(z, b);
		if (s && s->state == SLOT_READY)
			break;
		if (!wait) {
			s = NULL;
			break;
		}
		if (s) {   /* being rendered */
			pthread_cond_wait(&z->cond, &z->lock);
			continue;
		}
		s = victim(z, b);
		if (!s) {  /* every slot busy */
			pthread_cond_wait(&z->cond, &z->lock);
			continue;
		}
		s->state = SLOT_RENDERING;
		s->batch = b;
		pthread_mutex_unlock(&z->lock);
		bool ok = render_slot(z, s, b);
		pthread_mutex_lock(&z->lock);
		if (!ok) {
			s = NULL;
			break;
		}
		/* ready, unless another reader took the slot back meanwhile:
		 * the loop looks again */
	}
	if (s) {
		s->pins++;
		s->used = ++z->clock;
		render_ahead(c, b);
	}
	pthread_mutex_unlock(&z->lock);
	return s;
}

static void unpin(struct lazy_csv *z, struct slot *s)
{
	pthread_mutex_lock(&z->lock);
	s->pins--;
	pthread_cond_broadcast(&z->cond);
	pthread_mutex_unlock(&z->lock);
}

/* the batch holding byte `pos` (past the header) */
static size_t batch_of(const struct lazy_csv *z, uint64_t pos)
{
	size_t lo = 0, hi = z->nbatches;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (z->batch_off[mid] <= pos)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static int lazy_pin(dfs_snapshot *c, uint64_t off, size_t len,
                    const char **data, size_t *n, void **pin, dfs_error *err)
{
	struct lazy_csv *z = c->lazy;
	if (off < z->head_len) {
		if (off + len > z->head_len)
			return 0;
		*data = z->head + off;
		*n = len;
		return 1;
	}
	size_t b = batch_of(z, off);
	if (off + len > z->batch_off[b + 1])
		return 0;
	struct slot *s = acquire(c, b, true);
	if (!s)
		return dfs_error_set(err, DFS_ERR_NOMEM, "out of memory rendering records.csv");
	*data = s->text.data + (off - z->batch_off[b]);
	*n = len;
	*pin = s;
	return 1;
}

/* (a reader holding a batch's pin asks for the next one without waiting:
 * readers that each held one and waited for another could wait for each
 * other) */
static int lazy_pin_part(dfs_snapshot *c, uint64_t off, size_t len, bool wait,
                         const char **data, size_t *n, void **pin, dfs_error *err)
{
	struct lazy_csv *z = c->lazy;
	uint64_t end = off < z->head_len ? z->head_len : z->batch_off[batch_of(z, off) + 1];
	if (end - off < len)
		len = (size_t)(end - off);
	if (off < z->head_len || wait)
		return lazy_pin(c, off, len, data, n, pin, err);
	size_t b = batch_of(z, off);
	struct slot *s = acquire(c, b, false);
	if (!s)
		return 0;
	*data = s->text.data + (off - z->batch_off[b]);
	*n = len;
	*pin = s;
	return 1;
}

static void lazy_unpin(dfs_snapshot *c, void *pin)
{
	unpin(c->lazy, pin);
}

static long lazy_read(dfs_snapshot *c, char *buf, size_t len, uint64_t off,
                      dfs_error *err)
{
	struct lazy_csv *z = c->lazy;
	size_t done = 0;
	while (done < len && off + done < c->size) {
		/* one piece at a time: the header, or the rest of a batch */
		uint64_t pos = off + done;
		uint64_t end = pos < z->head_len ? z->head_len
		                                 : z->batch_off[batch_of(z, pos) + 1];
		size_t n = end - pos < len - done ? (size_t)(end - pos) : len - done;
		const char *data;
		void *pin = NULL;
		if (lazy_pin(c, pos, n, &data, &n, &pin, err) <= 0)
			return done ? (long)done : -1;
		memcpy(buf + done, data, n);
		done += n;
		if (pin)
			lazy_unpin(c, pin);
	}
	return (long)done;
}

/* ---- life ------------------------------------------------------------------------- */

static void lazy_free(struct lazy_csv *z)
{
	if (!z)
		return;
	/* the helper threads are done (each held a reference); taking the
	 * lock once orders their last writes before the frees for tools
	 * that do not model the atomic reference count */
	pthread_mutex_lock(&z->lock);
	pthread_mutex_unlock(&z->lock);
	for (size_t i = 0; i < LAZY_SLOTS; i++)
		spare_put(z->helpers, &z->slots[i].text);
	pthread_mutex_destroy(&z->lock);
	pthread_cond_destroy(&z->cond);
	dfs_log_free(z->log);
	dfs_import_release(z->rows);
	if (z->is_table && z->table.free)
		z->table.free(z->table.ctx);
	free(z->index);
	free(z->batch_off);
	free(z->head);
	free(z);
}

/* No reader left: the rendered batches go to the view's spares (a
 * reader that comes back renders again what it reads).  (The memory
 * counted for the snapshot stays what it may hold again.) */
static void lazy_idle(dfs_snapshot *c)
{
	struct lazy_csv *z = c->lazy;
	pthread_mutex_lock(&z->lock);
	for (size_t i = 0; i < LAZY_SLOTS; i++) {
		struct slot *s = &z->slots[i];
		if (s->state == SLOT_RENDERING || s->pins)
			continue;
		s->state = SLOT_EMPTY;
		spare_put(z->helpers, &s->text);
	}
	pthread_mutex_unlock(&z->lock);
}

static size_t lazy_memory(const dfs_snapshot *c)
{
	const struct lazy_csv *z = c->lazy;
	size_t batch = z->nbatches ? (size_t)(c->size / z->nbatches) : 0;
	return sizeof(*z) + z->head_len + (z->is_table ? z->table.memory : 0) +
	       (z->index ? z->count * sizeof(size_t) : 0) +
	       (z->nbatches + 1) * sizeof(uint64_t) +
	       (LAZY_SLOTS < z->nbatches ? LAZY_SLOTS : z->nbatches) * batch;
}

static size_t lazy_log_memory(const dfs_snapshot *c)
{
	return c->lazy && c->lazy->log ? dfs_log_memory(c->lazy->log) : 0;
}

/* how snapshot.c reads, pins and frees a lazy snapshot */
static const struct snapshot_ops lazy_ops = {
	.read = lazy_read,
	.pin = lazy_pin,
	.pin_part = lazy_pin_part,
	.unpin = lazy_unpin,
	.free = lazy_free,
	.idle = lazy_idle,
	.memory = lazy_memory,
	.log_memory = lazy_log_memory,
};

dfs_snapshot *dfs_lazy_records(const dfs_log *log, const dfs_module *m,
                               const dfs_records *r, struct import_set *rows,
                               const size_t *index, size_t count,
                               uint32_t *row_len, struct dfs_helpers *helpers,
                               dfs_error *err)
{
	dfs_snapshot *c = calloc(1, sizeof(*c));
	struct lazy_csv *z = calloc(1, sizeof(*z));
	dfs_buf head = DFS_BUF_INIT;
	dfs_csv_header(m, &head);
	if (!c || !z || !dfs_buf_ok(&head)) {
		free(c);
		free(z);
		dfs_buf_free(&head);
		dfs_error_nomem(err);
		return NULL;
	}
	z->m = m;
	z->r = r;
	z->helpers = helpers;
	z->count = count;
	z->head_len = head.len;
	z->head = dfs_buf_detach(&head, NULL);
	z->nbatches = (count + LAZY_ROWS - 1) / LAZY_ROWS;
	z->batch_off = calloc(z->nbatches + 1, sizeof(uint64_t));
	if (index) {
		z->index = malloc((count ? count : 1) * sizeof(size_t));
		if (z->index)
			memcpy(z->index, index, count * sizeof(size_t));
	}
	pthread_mutex_init(&z->lock, NULL);
	pthread_cond_init(&z->cond, NULL);
	z->log = log;
	if (!z->head || !z->batch_off || (index && !z->index)) {
		z->log = NULL;
		lazy_free(z);
		free(c);
		dfs_error_nomem(err);
		return NULL;
	}
	measure(z, row_len);
	z->log = dfs_log_ref(log);
	z->rows = dfs_import_ref(rows);
	atomic_init(&c->refs, 1);
	c->lazy = z;
	c->ops = &lazy_ops;
	c->size = z->batch_off[z->nbatches];
	return c;   /* its serial is set by the caller */
}

dfs_snapshot *dfs_lazy_table(const struct dfs_lazy_rows *t, const char *head,
                             struct dfs_helpers *helpers, dfs_error *err)
{
	dfs_snapshot *c = calloc(1, sizeof(*c));
	struct lazy_csv *z = calloc(1, sizeof(*z));
	if (!c || !z || !(z->head = strdup(head))) {
		free(c);
		free(z);
		if (t->free)
			t->free(t->ctx);
		dfs_error_nomem(err);
		return NULL;
	}
	z->is_table = true;
	z->table = *t;
	z->helpers = helpers;
	z->count = t->rows;
	z->head_len = strlen(head);
	z->nbatches = (z->count + LAZY_ROWS - 1) / LAZY_ROWS;
	z->batch_off = calloc(z->nbatches + 1, sizeof(uint64_t));
	pthread_mutex_init(&z->lock, NULL);
	pthread_cond_init(&z->cond, NULL);
	if (!z->batch_off) {
		lazy_free(z);
		free(c);
		dfs_error_nomem(err);
		return NULL;
	}
	measure(z, NULL);
	atomic_init(&c->refs, 1);
	c->lazy = z;
	c->ops = &lazy_ops;
	c->size = z->batch_off[z->nbatches];
	return c;   /* its serial is set by the caller */
}
