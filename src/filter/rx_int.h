/* rx_int.h - what rx_compile.c builds and rx_match.c runs (see rx.h).
 *
 * The automaton is an array of instructions; control falls through to
 * the next one unless the instruction says otherwise:
 *   RI_SET     consume one byte of the set `x`, go on at pc + 1
 *   RI_ASSERT  go on at pc + 1 if the context satisfies `bits` (below)
 *   RI_WEAK    the same, but only on a path that met an RI_ASSERT since
 *              it last read a byte; other paths go on at pc + 1 freely
 *              (glibc's anchors that pass on no constraint: rx_compile.c)
 *   RI_SPLIT   go on at both x and y
 *   RI_JMP     go on at x
 *   RI_MATCH   a match
 * Instruction 0 is the start.  Case-insensitivity is compiled into the
 * sets, so matching never translates the text. */
#ifndef DARSHANFS_FILTER_RX_INT_H
#define DARSHANFS_FILTER_RX_INT_H

#include <pthread.h>

#include "filter/rx.h"

enum { RI_SET, RI_ASSERT, RI_SPLIT, RI_JMP, RI_MATCH, RI_WEAK };

/* Assertions (glibc's constraints): what the context before a position
 * and the one after it must be. */
enum {
	RA_BOB = 1,        /* \` : the start of the text */
	RA_EOB = 2,        /* \' : the end of the text */
	RA_PREV_WORD = 4,  /* the byte before is a word byte */
	RA_PREV_NOT = 8,   /* ... is not (or there is none) */
	RA_NEXT_WORD = 16, /* the byte after is a word byte */
	RA_NEXT_NOT = 32,  /* ... is not (or there is none) */
	RA_BOL = 64,       /* ^ : a line's start (see below) */
	RA_EOL = 128,      /* $ : a line's end (see below) */
};

/* The context of a position, as the assertions read it.  Newlines are
 * no line ends in the language (regcomp without REG_NEWLINE), but glibc
 * gives them their meaning in two places its automaton looks, and we
 * match what it matches:
 *   - the context after a newline that the pattern itself read is a
 *     line's start: "a\n^b" matches "a\nb" (a match that starts after
 *     a newline is at no line's start: "^b" does not);
 *   - "$" is a line's end before a newline that the pattern goes on to
 *     read: "a$\n" matches "a\n" (where the match would end there, it
 *     is none: "a$" does not).
 * Only the end of the text is both.  So each position has the context
 * its last byte gives the paths that read it (rx->kind), and those that
 * start there see it without RC_NL (init_ctx). */
enum {
	RC_BUF = 1,   /* the start (before) or the end (after) */
	RC_WORD = 2,  /* a word byte: [A-Za-z0-9_] */
	RC_NL = 4,    /* a line's start or end, as above */
};

static inline unsigned rx_init_ctx(unsigned ctx)
{
	return (ctx & RC_BUF) ? ctx : ctx & ~(unsigned)RC_NL;
}

struct rx_inst {
	uint8_t op;
	uint8_t bits;  /* RI_ASSERT, RI_WEAK */
	uint16_t pad;
	uint32_t x, y;
};

/* A 256-bit set of bytes. */
struct rx_set {
	uint64_t w[4];
};

static inline bool rx_set_has(const struct rx_set *s, unsigned c)
{
	return (s->w[c >> 6] >> (c & 63)) & 1;
}

static inline bool rx_word_byte(unsigned c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') ||
	       (c >= 'a' && c <= 'z') || c == '_';
}

/* What one simulation needs: per instruction a mark, four stack slots
 * (an instruction may be met on four kinds of path in a step: see
 * rx_match.c) and a place in each of the two sets of states:
 * RX_SCRATCH_WORDS words. */
#define RX_SCRATCH_WORDS 7u
struct rx_scratch {
	uint32_t *mark;   /* == gen: met in this step */
	uint32_t *stack;
	uint32_t *cur;    /* the states to go on from */
	uint32_t *nxt;    /* where they go on the next byte */
	uint32_t gen;
};

/* The cache of deterministic states: each is the set of automaton states
 * a position was reached with (before following its empty moves) and the
 * context of the byte before it; its row says, for each class of bytes,
 * the state the next byte leads to (or that it gives a match, or that no
 * match can follow).  `mem` holds the states one after another:
 *   [0] hash  [1] number k of automaton states  [2] context | DS_* flags
 *   [3 .. 3 + nclass) the row  [3 + nclass .. + k) the automaton states */
struct rx_dfa {
	uint32_t *mem;
	size_t cap;        /* words of mem */
	size_t used;
	uint32_t *slot;    /* hash table: offset + 1, 0 free */
	size_t nslot;      /* a power of two */
	size_t nstate;
	uint32_t start;    /* offset of the initial state, or RX_NONE */
	uint64_t flushes;
};

/* What one thread matching at a time uses: a compiled pattern has
 * RX_LANES of them, so that as many threads match it at full speed at
 * once (a filter's scan splits over two cores). */
#define RX_LANES 2
struct rx_lane {
	pthread_mutex_t lock;  /* held while the rest is used */
	struct rx_scratch sc;
	struct rx_dfa dfa;
};

struct dfs_rx {
	struct rx_inst *inst;
	uint32_t ninst;
	struct rx_set *sets;
	uint32_t nset;
	uint8_t cls[256];      /* class of each byte: bytes of one class are
	                        * in the same sets and equally word bytes */
	uint8_t rep[256];      /* a byte of each class */
	uint8_t kind[256];     /* the context a byte leaves for the paths
	                        * that read it (only what the assertions
	                        * tell apart: a function of the class) */
	uint32_t ncls;
	/* from a position that is not the start, with no states to go on
	 * from, nothing can match any more (the pattern is anchored at ^) */
	bool start_dead;
	size_t memory;
	struct rx_lane lane[RX_LANES];
};

#define RX_NONE UINT32_MAX

/* rx_match.c: set up and release the matching state of a compiled rx
 * (inst, sets and classes filled in); false when out of memory. */
bool dfs_rx_match_init(struct dfs_rx *rx);
void dfs_rx_match_fini(struct dfs_rx *rx);

#endif
