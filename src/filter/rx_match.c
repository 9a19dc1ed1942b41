/* rx_match.c - runs the automata rx_compile.c writes (see rx.h, rx_int.h).
 *
 * The reference is the set simulation: at each position of the text, the
 * states reached so far and the start (the match may begin anywhere)
 * follow their empty moves -- assertions judged by the bytes on either
 * side -- and the states that consume the next byte give the states of
 * the next position.  Reaching the final state anywhere is a match: only
 * whether there is one matters.  Each step visits a state at most once,
 * so a text of n bytes costs at most n + 1 times the automaton's size.
 *
 * The fast path remembers what the steps gave: a deterministic state is a
 * set of automaton states with the context of the byte before it, and
 * its row, one entry per class of bytes, is filled in as texts need it.
 * Its memory is fixed at compile time (dfs_rx_memory counts all of it);
 * when a new state does not fit, the cache is emptied and refilled, and a
 * text that would empty it more than MAX_FLUSHES times finishes by the
 * simulation.  One thread at a time uses the cache (and the scratch space
 * the compiled pattern keeps for it); another that finds it busy runs the
 * simulation with scratch space of its own instead of waiting. */
#include <stdlib.h>
#include <string.h>

#include "filter/rx_int.h"

/* flags in word [2] of a deterministic state, above its context */
#define DS_CTX 0xffu
#define DS_END_KNOWN 0x100u
#define DS_END_MATCH 0x200u

/* row entries besides a state's offset */
#define TR_UNKNOWN UINT32_MAX
#define TR_MATCH (UINT32_MAX - 1)
#define TR_DEAD (UINT32_MAX - 2)   /* no match can follow */

/* What the cache of deterministic states may take, in 32-bit words: 1024,
 * 16 per automaton state and 8 states' worth of rows, at most 256 KiB. */
#define DFA_BASE_WORDS 1024u
#define DFA_WORDS_PER_INST 16u
#define DFA_MAX_WORDS 65536u
#define MAX_FLUSHES 2

/* Automata of up to this many states are simulated with scratch space on
 * the C stack (RX_SCRATCH_WORDS words a state) when the shared space is
 * busy. */
#define SMALL_INST 256u

/* step(): c for the end of the text */
#define AT_END (-1)
/* the context of the text's start */
#define START_CTX (RC_BUF | RC_NL)

/* A path in a step is of one of four kinds, by two flags: MUST_READ (it
 * met "$" before a newline: it may read the newline, not end) and HELD
 * (it met an RI_ASSERT since the last byte read: RI_WEAK holds it back
 * too).  A path without a flag can do all that one with it can.  The
 * mark of an instruction is its step's generation (above bit 4) and the
 * kinds of path that met it (one bit each, below). */
#define MUST_READ 1u
#define HELD 2u
#define KIND_SHIFT 30
#define GEN_STEP 16u

static uint32_t next_gen(struct rx_scratch *sc, uint32_t ninst)
{
	if (sc->gen >= UINT32_MAX - 2 * GEN_STEP) {
		memset(sc->mark, 0, ninst * sizeof(*sc->mark));
		sc->gen = 0;
	}
	sc->gen += GEN_STEP;
	return sc->gen;
}

static bool assert_ok(unsigned bits, unsigned prev, unsigned next)
{
	if ((bits & RA_BOB) && !(prev & RC_BUF))
		return false;
	if ((bits & RA_BOL) && !(prev & RC_NL))
		return false;
	if ((bits & RA_EOB) && !(next & RC_BUF))
		return false;
	if ((bits & RA_EOL) && !(next & RC_NL))
		return false;
	if ((bits & RA_PREV_WORD) && !(prev & RC_WORD))
		return false;
	if ((bits & RA_PREV_NOT) && (prev & RC_WORD))
		return false;
	if ((bits & RA_NEXT_WORD) && !(next & RC_WORD))
		return false;
	if ((bits & RA_NEXT_NOT) && (next & RC_WORD))
		return false;
	return true;
}

struct walk {
	const struct dfs_rx *rx;
	uint32_t *mark, *stack, *nxt;
	uint32_t g, sp, n;
	int c;
	bool found;
};

/* the kinds of path a path of kind k can do all that of: itself and
 * those with more flags */
static const uint8_t covers[4] = {0xf, 0xa, 0xc, 0x8};

/* Reach instruction pc on a path of kind k.  A consuming instruction
 * that accepts the byte gives its successor, once; the final one a
 * match, unless the path must read a byte; the others are followed,
 * unless a path of a kind that can do as much met them already. */
static inline void visit(struct walk *w, uint32_t pc, uint32_t k)
{
	uint32_t m = w->mark[pc];
	uint32_t met = (m & ~(GEN_STEP - 1)) == w->g ? m & 0xf : 0;
	for (uint32_t j = 0; j < 4; j++)
		if (((met >> j) & 1) && ((covers[j] >> k) & 1))
			return;
	w->mark[pc] = w->g | met | (1u << k);
	const struct rx_inst *in = &w->rx->inst[pc];
	if (in->op == RI_SET) {
		if (!met && w->c >= 0 && rx_set_has(&w->rx->sets[in->x], (unsigned)w->c))
			w->nxt[w->n++] = pc + 1;
	} else if (in->op == RI_MATCH) {
		if (!(k & MUST_READ))
			w->found = true;
	} else {
		w->stack[w->sp++] = pc | k << KIND_SHIFT;
	}
}

/* One position, whose context is ctx for the paths that read its last
 * byte: from the k states of cur (with ctx), then from the start (with
 * rx_init_ctx(ctx)), follow the empty moves, the assertions judged by ctx
 * and the byte c after (or the end).  True when they reach the final
 * state.  Otherwise the states that the consuming states accepting c lead
 * to are written to nxt, their number to *nout.
 *
 * "$" before a newline holds for the paths that go on to read it, not
 * for those that end there: an assertion that holds only so makes its
 * path MUST_READ.  An instruction is met at most four times a step (once
 * for each kind of path), and the paths from cur come first: their
 * context admits all that the start's does, so what they met need not be
 * met again from the start. */
static bool step(const struct dfs_rx *rx, struct rx_scratch *sc,
                 const uint32_t *cur, uint32_t k, unsigned ctx, int c,
                 uint32_t *nxt, uint32_t *nout)
{
	struct walk w = {rx, sc->mark, sc->stack, nxt, next_gen(sc, rx->ninst),
	                 0, 0, c, false};
	/* the context after: for the paths that end here, and for those
	 * that read c */
	unsigned end_next, read_next;
	if (c == AT_END) {
		end_next = read_next = RC_BUF | RC_NL;
	} else {
		end_next = rx_word_byte((unsigned)c) ? RC_WORD : 0;
		read_next = end_next | (c == '\n' ? RC_NL : 0);
	}
	for (int pass = 0; pass < 2 && !w.found; pass++) {
		unsigned prev = ctx;
		if (pass == 0) {
			for (uint32_t i = 0; i < k; i++)
				visit(&w, cur[i], 0);
		} else {
			prev = rx_init_ctx(ctx);
			visit(&w, 0, 0);
		}
		while (w.sp && !w.found) {
			uint32_t e = w.stack[--w.sp];
			uint32_t pc = e & ((1u << KIND_SHIFT) - 1), kind = e >> KIND_SHIFT;
			const struct rx_inst *in = &rx->inst[pc];
			switch (in->op) {
			case RI_WEAK:
				if (!(kind & HELD)) {
					visit(&w, pc + 1, kind);
					break;
				}
				/* fall through */
			case RI_ASSERT:
				if (assert_ok(in->bits, prev, end_next))
					visit(&w, pc + 1, kind | HELD);
				else if (assert_ok(in->bits, prev, read_next))
					visit(&w, pc + 1, kind | HELD | MUST_READ);
				break;
			case RI_SPLIT:
				visit(&w, in->y, kind);
				visit(&w, in->x, kind);
				break;
			default: /* RI_JMP */
				visit(&w, in->x, kind);
				break;
			}
		}
	}
	w.sp = 0;
	*nout = w.n;
	return w.found;
}

/* The simulation from position i of s, sc->cur holding the k states
 * reached there and ctx its context. */
static bool simulate(const struct dfs_rx *rx, struct rx_scratch *sc, uint32_t k,
                     unsigned ctx, const unsigned char *s, size_t i, size_t n)
{
	uint32_t *cur = sc->cur, *nxt = sc->nxt, m;
	for (; i < n; i++) {
		if (step(rx, sc, cur, k, ctx, s[i], nxt, &m))
			return true;
		uint32_t *t = cur;
		cur = nxt;
		nxt = t;
		k = m;
		ctx = rx->kind[s[i]];
		if (k == 0 && rx->start_dead)
			return false;
	}
	return step(rx, sc, cur, k, ctx, AT_END, nxt, &m);
}

/* ---- the cache of deterministic states ------------------------------------ */

static uint32_t hash_of(const uint32_t *k, uint32_t n, unsigned ctx)
{
	uint32_t h = 2166136261u ^ ctx;
	for (uint32_t i = 0; i < n; i++) {
		h ^= k[i];
		h *= 16777619u;
	}
	return h ^ n;
}

static void sort_states(uint32_t *k, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++) {
		uint32_t v = k[i], j = i;
		for (; j > 0 && k[j - 1] > v; j--)
			k[j] = k[j - 1];
		k[j] = v;
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static void flush(struct rx_dfa *d)
{
	d->used = 0;
	d->nstate = 0;
	memset(d->slot, 0, d->nslot * sizeof(*d->slot));
	d->start = RX_NONE;
	d->flushes++;
}

/* The deterministic state of the n sorted automaton states k with the
 * context ctx before it: found, or added (emptying the cache if it is
 * full).  RX_NONE when the cache has been emptied MAX_FLUSHES times in
 * this text already (*flushes counts them), or cannot hold the state. */
static uint32_t dstate(const struct dfs_rx *rx, struct rx_dfa *d,
                       const uint32_t *k, uint32_t n, unsigned ctx,
                       unsigned *flushes)
{
	uint32_t h = hash_of(k, n, ctx);
	size_t mask = d->nslot - 1, i = h & mask;
	for (; d->slot[i]; i = (i + 1) & mask) {
		uint32_t o = d->slot[i] - 1;
		const uint32_t *m = d->mem + o;
		if (m[0] == h && m[1] == n && (m[2] & DS_CTX) == ctx &&
		    (n == 0 || memcmp(m + 3 + rx->ncls, k, n * sizeof(*k)) == 0))
			return o;
	}
	size_t need = 3 + (size_t)rx->ncls + n;
	if (d->used + need > d->cap || d->nstate + 1 > d->nslot / 2) {
		if (need > d->cap || ++*flushes > MAX_FLUSHES)
			return RX_NONE;
		flush(d);
		i = h & mask;
	}
	uint32_t o = (uint32_t)d->used;
	uint32_t *m = d->mem + o;
	m[0] = h;
	m[1] = n;
	m[2] = ctx;
	for (uint32_t j = 0; j < rx->ncls; j++)
		m[3 + j] = TR_UNKNOWN;
	if (n)
		memcpy(m + 3 + rx->ncls, k, n * sizeof(*k));
	d->used += need;
	d->nstate++;
	d->slot[i] = o + 1;
	return o;
}

static bool dfa_alloc(struct rx_dfa *d)
{
	if (d->mem)
		return true;
	d->mem = malloc(d->cap * sizeof(*d->mem));
	d->slot = calloc(d->nslot, sizeof(*d->slot));
	if (!d->mem || !d->slot) {
		free(d->mem);
		free(d->slot);
		d->mem = d->slot = NULL;
		return false;
	}
	return true;
}

/* The fast path, the lane's lock held. */
static bool dfa_run(const struct dfs_rx *rx, struct rx_lane *l,
                    const unsigned char *s, size_t n)
{
	struct rx_dfa *d = &l->dfa;
	struct rx_scratch *sc = &l->sc;
	unsigned flushes = 0;
	if (!dfa_alloc(d))
		return simulate(rx, sc, 0, START_CTX, s, 0, n);
	if (d->start == RX_NONE)
		d->start = dstate(rx, d, NULL, 0, START_CTX, &flushes);
	if (d->start == RX_NONE)
		return simulate(rx, sc, 0, START_CTX, s, 0, n);
	const uint8_t *cls = rx->cls;
	const uint32_t ncls = rx->ncls;
	uint32_t *mem = d->mem;
	uint32_t st = d->start;
	size_t i = 0;
	for (;;) {
		uint32_t to = TR_UNKNOWN;
		while (i < n && (to = mem[st + 3 + cls[s[i]]]) < TR_DEAD) {
			st = to;
			i++;
		}
		if (i == n)
			break;
		if (to == TR_MATCH)
			return true;
		if (to == TR_DEAD)
			return false;
		/* a transition not known yet: one step of the simulation */
		unsigned c = s[i], ctx = rx->kind[c];
		uint32_t k = mem[st + 1], m;
		uint32_t *entry = &mem[st + 3 + cls[c]];
		if (step(rx, sc, mem + st + 3 + ncls, k, mem[st + 2] & DS_CTX,
		         (int)c, sc->nxt, &m)) {
			*entry = TR_MATCH;
			return true;
		}
		i++;
		if (m == 0 && rx->start_dead) {
			*entry = TR_DEAD;
			return false;
		}
		if (m <= 16)
			sort_states(sc->nxt, m);
		else
			qsort(sc->nxt, m, sizeof(*sc->nxt), cmp_u32);
		uint64_t before = d->flushes;
		to = dstate(rx, d, sc->nxt, m, ctx, &flushes);
		if (to == RX_NONE) {
			memcpy(sc->cur, sc->nxt, m * sizeof(*sc->cur));
			return simulate(rx, sc, m, ctx, s, i, n);
		}
		if (d->flushes == before)
			*entry = to; /* (else the entry was emptied with the rest) */
		st = to;
	}
	uint32_t info = mem[st + 2], m;
	if (info & DS_END_KNOWN)
		return (info & DS_END_MATCH) != 0;
	bool r = step(rx, sc, mem + st + 3 + ncls, mem[st + 1], info & DS_CTX,
	              AT_END, sc->nxt, &m);
	mem[st + 2] = info | DS_END_KNOWN | (r ? DS_END_MATCH : 0);
	return r;
}

/* ---- entry points ------------------------------------------------------ */

static void scratch_on(struct rx_scratch *sc, uint32_t *buf, uint32_t ninst)
{
	sc->mark = buf;
	sc->stack = buf + ninst;
	sc->cur = buf + 5 * (size_t)ninst;
	sc->nxt = buf + 6 * (size_t)ninst;
	sc->gen = 0;
	memset(sc->mark, 0, ninst * sizeof(*sc->mark));
}

bool dfs_rx_match(struct dfs_rx *rx, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	bool r;
	for (int i = 0; i < RX_LANES; i++) {
		struct rx_lane *l = &rx->lane[i];
		if (pthread_mutex_trylock(&l->lock) == 0) {
			r = dfa_run(rx, l, u, n);
			pthread_mutex_unlock(&l->lock);
			return r;
		}
	}
	/* all busy: a small automaton is simulated with scratch space on
	 * the stack; for a larger one, wait for a lane (nothing but what
	 * compiling counted is ever used) */
	if (rx->ninst <= SMALL_INST) {
		uint32_t small[RX_SCRATCH_WORDS * SMALL_INST];
		struct rx_scratch sc;
		scratch_on(&sc, small, rx->ninst);
		return simulate(rx, &sc, 0, START_CTX, u, 0, n);
	}
	struct rx_lane *l = &rx->lane[0];
	pthread_mutex_lock(&l->lock);
	r = dfa_run(rx, l, u, n);
	pthread_mutex_unlock(&l->lock);
	return r;
}

bool dfs_rx_match_nfa(const struct dfs_rx *rx, const char *s, size_t n)
{
	uint32_t *buf = malloc(RX_SCRATCH_WORDS * (size_t)rx->ninst * sizeof(*buf));
	if (!buf)
		return false; /* (a test hook: tests run with memory) */
	struct rx_scratch sc;
	scratch_on(&sc, buf, rx->ninst);
	bool r = simulate(rx, &sc, 0, START_CTX, (const unsigned char *)s, 0, n);
	free(buf);
	return r;
}

/* Anchored: from a position that is not the start, with no state to go
 * on from, nothing can match, for the start's paths all meet "^" or "\`"
 * (which hold at the start only, for them) before they read a byte or
 * end.  The other assertions are taken to hold: that is safe. */
static bool start_dead(const struct dfs_rx *rx, uint32_t *mark, uint32_t *stack)
{
	uint32_t sp = 0;
	memset(mark, 0, rx->ninst * sizeof(*mark));
	mark[0] = 1;
	stack[sp++] = 0;
	while (sp) {
		const struct rx_inst *in = &rx->inst[stack[--sp]];
		uint32_t to[2], nto = 0;
		switch (in->op) {
		case RI_SET:
		case RI_MATCH:
			return false;
		case RI_ASSERT:
			if (!(in->bits & (RA_BOL | RA_BOB)))
				to[nto++] = (uint32_t)(in - rx->inst) + 1;
			break;
		case RI_WEAK:
			to[nto++] = (uint32_t)(in - rx->inst) + 1;
			break;
		case RI_SPLIT:
			to[nto++] = in->y;
			to[nto++] = in->x;
			break;
		default:
			to[nto++] = in->x;
			break;
		}
		for (uint32_t j = 0; j < nto; j++)
			if (!mark[to[j]]) {
				mark[to[j]] = 1;
				stack[sp++] = to[j];
			}
	}
	return true;
}

bool dfs_rx_match_init(struct dfs_rx *rx)
{
	uint32_t ninst = rx->ninst;
	size_t words = RX_SCRATCH_WORDS * (size_t)ninst;
	struct rx_lane *l = rx->lane;
	int made = 0;
	for (; made < RX_LANES; made++) {
		uint32_t *buf = malloc(words * sizeof(*buf));
		if (!buf || pthread_mutex_init(&l[made].lock, NULL) != 0) {
			free(buf);
			break;
		}
		scratch_on(&l[made].sc, buf, ninst);
	}
	if (made < RX_LANES) {
		while (made-- > 0) {
			pthread_mutex_destroy(&l[made].lock);
			free(l[made].sc.mark);
		}
		return false;
	}
	rx->start_dead = start_dead(rx, l[0].sc.mark, l[0].sc.stack);
	memset(l[0].sc.mark, 0, ninst * sizeof(uint32_t));
	size_t row = 3 + (size_t)rx->ncls;
	size_t cap = DFA_BASE_WORDS + DFA_WORDS_PER_INST * (size_t)ninst + 8 * row;
	size_t dfa_words = 0;
	for (int i = 0; i < RX_LANES; i++) {
		struct rx_dfa *d = &l[i].dfa;
		d->cap = cap < DFA_MAX_WORDS ? cap : DFA_MAX_WORDS;
		d->nslot = 16;
		while (d->nslot < 2 * (d->cap / row + 1))
			d->nslot *= 2;
		d->mem = d->slot = NULL; /* made when first needed */
		d->used = d->nstate = 0;
		d->start = RX_NONE;
		d->flushes = 0;
		dfa_words += d->cap + d->nslot;
	}
	rx->memory = sizeof(*rx) + ninst * sizeof(*rx->inst) +
	             rx->nset * sizeof(*rx->sets) +
	             (RX_LANES * words + dfa_words) * sizeof(uint32_t);
	return true;
}

size_t dfs_rx_memory(const struct dfs_rx *rx)
{
	return rx->memory;
}

size_t dfs_rx_states(const struct dfs_rx *rx)
{
	return rx->ninst;
}

uint64_t dfs_rx_flushes(struct dfs_rx *rx)
{
	uint64_t f = 0;
	for (int i = 0; i < RX_LANES; i++) {
		pthread_mutex_lock(&rx->lane[i].lock);
		f += rx->lane[i].dfa.flushes;
		pthread_mutex_unlock(&rx->lane[i].lock);
	}
	return f;
}

void dfs_rx_free(struct dfs_rx *rx)
{
	if (!rx)
		return;
	for (int i = 0; i < RX_LANES; i++) {
		pthread_mutex_destroy(&rx->lane[i].lock);
		free(rx->lane[i].sc.mark);
		free(rx->lane[i].dfa.mem);
		free(rx->lane[i].dfa.slot);
	}
	free(rx->inst);
	free(rx->sets);
	free(rx);
}
