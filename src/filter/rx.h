/* rx.h - the regular expressions of '~', '!~', '~*' and '!~*': a matcher
 * of our own whose memory and time are bounded by the pattern.
 *
 * The dialect is POSIX extended expressions exactly as glibc's regcomp
 * reads them with REG_EXTENDED (and REG_ICASE for '~*') in the C locale the
 * daemon runs in (it never calls setlocale): bytes, not characters; GNU's
 * \w \W \s \S \b \B \< \> \` \' escapes; the same patterns accepted and
 * refused, with the same messages; the same answer, match or not, for every
 * text (docs/filter-language.md has the rules; tests/unit/test_regex.c
 * compares with glibc).  rx_compile.c reads a pattern into a tree and
 * writes it out as a Thompson automaton; rx_match.c runs it.
 *
 * Matching simulates the automaton over the set of its states (Pike and
 * Thompson's way: O(states) memory, O(states x length) steps, no
 * backtracking), and remembers the sets it met as the states of a small
 * deterministic automaton whose memory is fixed when the pattern is
 * compiled: when that is full it is emptied and built again, so a pattern
 * made to need exponentially many states costs time, never memory.  Two
 * threads may match one pattern at full speed at once (each has a lane of
 * its own); a third simulates on its stack (small patterns) or waits.
 * Nothing grows with the texts matched: dfs_rx_memory is all of it. */
#ifndef DARSHANFS_FILTER_RX_H
#define DARSHANFS_FILTER_RX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Why a pattern is refused: glibc's error codes (regerror's messages),
 * then our own limits. */
enum rx_status {
	RX_OK,
	RX_EBADPAT,   /* "Invalid regular expression" */
	RX_ECOLLATE,  /* "Invalid collation character" */
	RX_ECTYPE,    /* "Invalid character class name" */
	RX_EESCAPE,   /* "Trailing backslash" */
	RX_EBRACK,    /* "Unmatched [, [^, [:, [., or [=" */
	RX_EPAREN,    /* "Unmatched ( or \\(" */
	RX_EBRACE,    /* "Unmatched \\{" */
	RX_BADBR,     /* "Invalid content of \\{\\}" */
	RX_ERANGE,    /* "Invalid range end" */
	RX_BADRPT,    /* "Invalid preceding regular expression" */
	RX_ESIZE,     /* "Regular expression too big" (a count above 32767) */
	RX_ENOMEM,    /* out of memory */
	RX_EBACKREF,  /* \1 to \9: not supported */
	RX_EDEPTH,    /* groups (or stacked repetitions) deeper than
	               * RX_MAX_DEPTH */
	RX_ETOOBIG,   /* more than RX_MAX_INST automaton states */
};

/* Deepest nesting of groups the parser follows (it recurses on them). */
#define RX_MAX_DEPTH 200
/* The most instructions the automaton of one pattern may have (and the
 * patterns of a filter together: regex.c).  The screen of regex.c keeps
 * every filter's patterns within about a quarter of this, nearly always;
 * it is here so that nothing this file is given can take more. */
#define RX_MAX_INST 400000u
/* The largest count of a repetition ({m,n}), as glibc's RE_DUP_MAX. */
#define RX_DUP_MAX 32767

struct dfs_rx;

/* regerror's message for a glibc status, or ours for the others. */
const char *dfs_rx_message(int status);

/* Is the pattern (len bytes, no NUL) valid?  RX_OK and the number of
 * instructions its automaton would have (what dfs_rx_states gives once
 * it is compiled), or why not; nothing is built but the parse. */
int dfs_rx_check(const char *pat, size_t len, bool icase, size_t *insts);

/* Compile it: RX_OK and *out, or why not. */
int dfs_rx_compile(const char *pat, size_t len, bool icase, struct dfs_rx **out);

/* Does the pattern match somewhere in s[0..n)?  (regexec's answer with
 * REG_STARTEND: ^ is only the start of s, $ only its end, '.' and
 * negated brackets match newlines, '.' never matches NUL.)  Safe from
 * several threads at once on one pattern; never allocates unless another
 * thread is matching the same large pattern at the same moment (then it
 * takes memory proportional to the pattern, and returns it). */
bool dfs_rx_match(struct dfs_rx *rx, const char *s, size_t n);

/* The same, by the set simulation alone (no deterministic states): the
 * reference the tests hold the fast path to. */
bool dfs_rx_match_nfa(const struct dfs_rx *rx, const char *s, size_t n);

/* Everything the compiled pattern holds, the deterministic automaton's
 * whole allowance included: it never grows past this. */
size_t dfs_rx_memory(const struct dfs_rx *rx);

/* Its automaton states, and how many times its cache of deterministic
 * states was emptied because it was full (for tests). */
size_t dfs_rx_states(const struct dfs_rx *rx);
uint64_t dfs_rx_flushes(struct dfs_rx *rx);

void dfs_rx_free(struct dfs_rx *rx);

#endif
