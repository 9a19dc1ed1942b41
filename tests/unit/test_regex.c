/* test_regex.c - the regular expressions of the filter language (rx.h):
 * the dialect feature by feature, glibc's quirks we keep, errors and
 * their messages, the fast path against the set simulation, bounded
 * memory on patterns made to need exponentially many states, threads,
 * and a differential test against glibc's regcomp/regexec (REG_EXTENDED |
 * REG_NOSUB, REG_ICASE for ~*, REG_STARTEND) on random patterns drawn
 * from a grammar of the dialect and its mistakes, with texts drawn from
 * each pattern's alphabet: the two must accept and refuse the same
 * patterns, with the same message, and agree on every text.
 *
 * DFS_RX_DIFF_PATTERNS=N (default 3000) and DFS_RX_DIFF_SEED=S run the
 * differential test longer or elsewhere. */
#include <malloc.h>
#include <pthread.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "filter/filter_int.h"
#include "filter/rx.h"

/* ---- helpers ------------------------------------------------------------ */

static int rx_status(const char *pat, size_t len, bool icase)
{
	size_t insts;
	return dfs_rx_check(pat, len, icase, &insts);
}

/* Compiled; checking alone foretold its size. */
static struct dfs_rx *compile_rx(const char *pat, bool icase)
{
	struct dfs_rx *rx = NULL;
	int rc = dfs_rx_compile(pat, strlen(pat), icase, &rx);
	if (rc != RX_OK)
		fail_msg("'%s' refused: %s", pat, dfs_rx_message(rc));
	size_t insts = 0;
	assert_int_equal(dfs_rx_check(pat, strlen(pat), icase, &insts), RX_OK);
	assert_int_equal(insts, dfs_rx_states(rx));
	/* what docs/limits.md says a pattern holds */
	assert_true(dfs_rx_memory(rx) <= 100 * insts + (1u << 20) + 4096);
	return rx;
}

/* glibc's answer (REG_STARTEND over n bytes), for the cases below
 * glibc can run (see test_empty_repeats) */
static bool glibc_too = true;

static bool glibc_match(const char *pat, bool icase, const char *s, size_t n)
{
	regex_t re;
	int rc = regcomp(&re, pat, REG_EXTENDED | REG_NOSUB | (icase ? REG_ICASE : 0));
	if (rc != 0)
		fail_msg("glibc refuses '%s'", pat);
	regmatch_t m[1] = {{0, (regoff_t)n}};
	bool r = regexec(&re, s, 1, m, REG_STARTEND) == 0;
	regfree(&re);
	return r;
}

/* Both paths agree, and give `want`, on text s of n bytes; so does
 * glibc. */
static void expect_n(const char *pat, bool icase, const char *s, size_t n, bool want)
{
	if (glibc_too && glibc_match(pat, icase, s, n) != want)
		fail_msg("'%s'%s on '%.*s': glibc says %d", pat, icase ? " (icase)" : "",
		         (int)n, s, !want);
	struct dfs_rx *rx = compile_rx(pat, icase);
	for (int pass = 0; pass < 2; pass++) { /* (the second from the cache) */
		bool got = dfs_rx_match(rx, s, n);
		if (got != want)
			fail_msg("'%s'%s on '%.*s' (pass %d): %d, want %d", pat,
			         icase ? " (icase)" : "", (int)n, s, pass, got, want);
	}
	if (dfs_rx_match_nfa(rx, s, n) != want)
		fail_msg("'%s' on '%.*s': the simulation says %d", pat, (int)n, s, !want);
	dfs_rx_free(rx);
}

static void yes(const char *pat, const char *s)
{
	expect_n(pat, false, s, strlen(s), true);
}

static void no(const char *pat, const char *s)
{
	expect_n(pat, false, s, strlen(s), false);
}

static void iyes(const char *pat, const char *s)
{
	expect_n(pat, true, s, strlen(s), true);
}

static void ino(const char *pat, const char *s)
{
	expect_n(pat, true, s, strlen(s), false);
}

static void refused(const char *pat, bool icase, int want)
{
	struct dfs_rx *rx = NULL;
	int rc = dfs_rx_compile(pat, strlen(pat), icase, &rx);
	if (rc != want)
		fail_msg("'%s': status %d (%s), want %d (%s)", pat, rc,
		         dfs_rx_message(rc), want, dfs_rx_message(want));
	assert_int_equal(rx_status(pat, strlen(pat), icase), want);
}

/* ---- the dialect ---------------------------------------------------------- */

static void test_basics(void **state)
{
	(void)state;
	yes("abc", "xxabcxx");
	no("abc", "ab");
	yes("", "");
	yes("", "anything");
	yes("a|b", "b");
	no("a|b", "c");
	yes("^(a|bc)+$", "abca");
	no("^(a|bc)+$", "abcb");
	yes("^(ab|a)(bc|c)$", "abc");
	yes("x(a|)y", "xy");
	yes("x(|a)y", "xay");
	yes("x()y", "xy");
	yes("^a*$", "");
	yes("^a+$", "aaa");
	no("^a+$", "");
	yes("^ab?c$", "ac");
	yes("^a{3}$", "aaa");
	no("^a{3}$", "aa");
	no("^a{3}$", "aaaa");
	yes("^a{2,}$", "aaaaa");
	no("^a{2,}$", "a");
	yes("^a{1,2}$", "aa");
	no("^a{1,2}$", "aaa");
	yes("^a{,2}$", "");          /* {,n} is {0,n} */
	yes("^a{,}$", "aaaa");       /* {,} is * */
	yes("^(ab){2}c{0}$", "abab"); /* {0}: the atom is gone */
	yes("^((a{2}){2}){2}$", "aaaaaaaa");
	no("^((a{2}){2}){2}$", "aaaaaaa");
	yes("^(a|b){0,3}$", "bab");
	no("^(a|b){0,3}$", "baba");
	yes("^(a*)*$", "aaa");       /* empty loops end */
	yes("^(a?)+b$", "b");
	yes("^(()|a)+$", "aa");
	yes("a.c", "abc");
	yes("a.c", "a\nc");          /* '.' matches a newline */
	expect_n("a.c", false, "a\0c", 3, false); /* never NUL */
	expect_n("a[^x]c", false, "a\0c", 3, true);
	expect_n("^a\\Sc$", false, "a\0c", 3, true);
	yes("a)", "a)");             /* ')' with no group open */
	yes("}", "}");
	yes("a{1\\,2}", "aa");       /* glibc reads an escaped ',' as ',' */
	yes("^\\.\\*\\\\\\(\\)\\{\\|$", ".*\\(){|");
	yes("\\n", "n");             /* no C escapes */
	no("\\n", "\n");
	yes("\\d", "d");             /* nor Perl's */
	no("\\d", "1");
	yes("\xc3\xa9", "caf\xc3\xa9");  /* bytes */
	yes("^caf.$", "caf\xff");
	no("^caf.$", "caf\xc3\xa9");    /* two bytes, not one character */
}

static void test_anchors(void **state)
{
	(void)state;
	yes("^abc", "abcd");
	no("^abc", "xabc");
	yes("abc$", "xabc");
	no("abc$", "abcx");
	no("a^b", "a^b");            /* anchors wherever they stand */
	no("a$b", "a$b");
	yes("(^a|b)c", "ac");
	no("(^a|b)c", "xac");
	yes("x(^|a)b", "xab");
	no("x(^|a)b", "xb");
	yes("(^a)*b", "xb");
	yes("(a$)*", "x");
	yes("^$", "");
	no("^$", "\n");              /* no lines: only the text's ends */
	no("^b", "a\nb");
	no("b$", "b\na");
	no("a$", "a\n");
	/* ... but glibc's: after a newline the pattern read, and before one
	 * it goes on to read */
	yes("a\n^b", "a\nb");
	no("a\n^b", "a\n^b");
	yes("(a|\n)^b", "a\nb");
	yes("a$\n", "a\n");
	yes("a$[^x]", "a\n");
	no("a$x*", "a\n");
	yes("a$x*", "a");
	yes("a$\n$", "a\n");
	no("a$\n$", "a\nx");
	no("a\n\\`b", "a\nb");       /* the text's ends are never lines' */
	no("a\\'\n", "a\n");
	no("a$\n\\b", "a\n");
	yes("\\`ab\\'", "ab");
	no("\\`b", "ab");
	no("a\\'", "ab");
	yes("\\bfoo\\b", "a foo.");
	no("\\bfoo\\b", "afoo");
	no("\\bfoo\\b", "foo_");
	yes("\\Boo\\B", "fool");
	no("\\Boo", "oo");
	yes("\\B", "");
	yes("\\B", " ");
	no("\\B", "a");
	yes("\\<a", "b a");
	no("\\<a", "ba");
	yes("a\\>", "a b");
	no("a\\>", "ab");
	yes("\\w+\\W\\s\\S", "ab_9- x");
	no("^\\w$", "-");
	no("^\\s$", "x");
	yes("^\\s$", "\v");
}

static void test_brackets(void **state)
{
	(void)state;
	yes("^[abc]+$", "cab");
	no("^[abc]$", "d");
	yes("^[^abc]$", "d");
	yes("^[^abc]$", "\n");
	yes("^[]a]+$", "]a");
	yes("^[^]a]$", "b");
	no("^[^]a]$", "]");
	yes("^[a-]$", "-");
	yes("^[-a]$", "-");
	yes("^[a-c-]$", "-");        /* a '-' last, after a range */
	yes("^[--/]$", ".");
	yes("^[%--]$", "+");
	yes("^[[.-.]-0]$", "/");
	yes("^[[.a.]-[.c.]]$", "b");
	yes("^[[=a=]b]$", "a");
	yes("^[\\x]$", "\\");         /* a backslash is itself inside */
	yes("^[[:digit:]]+$", "2026");
	no("^[[:digit:]]$", "a");
	yes("^[[:alpha:][:digit:]_]+$", "Ab_9");
	yes("^[[:upper:]]$", "Q");
	no("^[[:upper:]]$", "q");
	yes("^[[:xdigit:]]+$", "09afAF");
	yes("^[[:punct:]]+$", "!/~");
	yes("^[[:space:]]+$", " \t\n\v\f\r");
	yes("^[[:blank:]]+$", " \t");
	yes("^[[:cntrl:]]$", "\x7f");
	yes("^[[:print:]]$", " ");
	no("^[[:graph:]]$", " ");
	no("^[[:alpha:]]$", "\xe9");  /* the C locale: ASCII only */
	yes("^[\x80-\xff]+$", "\xc3\xa9");
	yes("[[]", "[");
	yes("^[a[]+$", "[a");
	refused("^[[:]+$", false, RX_EBRACK);
	refused("[[.]", false, RX_EBRACK);
}

static void test_any_case(void **state)
{
	(void)state;
	iyes("abc", "xABCx");
	iyes("ABC", "abc");
	iyes("^[a-c]+$", "AbC");
	iyes("^[^a]$", "b");
	ino("^[^a]$", "A");
	iyes("^[[:lower:]]+$", "AbC");  /* lower and upper mean alpha */
	iyes("^[[:upper:]]+$", "aBc");
	iyes("^\\w+$", "aB_");
	iyes("\\A", "a");              /* an escaped letter as written... */
	ino("\\a", "a");               /* ...so a lower-case one never matches */
	ino("\\a", "A");
	yes("\\a", "a");
	iyes("^[A-z]$", "q");          /* ranges of the upper-cased pattern: */
	ino("^[A-z]$", "_");           /* [A-Z] */
	yes("^[A-z]$", "_");
	iyes("^[[.a.]]$", "A");
	refused("[Z-a]", true, RX_ERANGE);  /* [Z-A] */
	yes("^[Z-a]$", "_");
	refused("[[:Alpha:]]", true, RX_ECTYPE);  /* names as written */
	refused("[[:Alpha:]]", false, RX_ECTYPE);
	iyes("\xe9", "\xe9");          /* only ASCII letters have a case */
	ino("\xe9", "\xc9");
}

static void test_errors(void **state)
{
	(void)state;
	refused("(", false, RX_EPAREN);
	refused("(a|b", false, RX_EPAREN);
	refused("a{2,1}", false, RX_BADBR);
	refused("a{}", false, RX_BADBR);
	refused("a{x}", false, RX_BADBR);
	refused("a{1,2,3}", false, RX_BADBR);
	refused("a{1", false, RX_EBRACE);
	refused("a{", false, RX_EBRACE);
	refused("a{1,", false, RX_EBRACE);
	refused("a{32768}", false, RX_ESIZE);
	refused("a{1,32768}", false, RX_ESIZE);
	refused("*a", false, RX_BADRPT);
	refused("a|*b", false, RX_BADRPT);
	refused("(+a)", false, RX_BADRPT);
	refused("^*", false, RX_BADRPT);
	refused("$?", false, RX_BADRPT);
	refused("\\b*", false, RX_BADRPT);
	refused("{1}", false, RX_BADRPT);
	refused("a\\", false, RX_EESCAPE);
	refused("[", false, RX_EBADPAT);
	refused("[^", false, RX_EBADPAT);
	refused("[a", false, RX_EBRACK);
	refused("[]", false, RX_EBRACK);
	refused("[[:alpha:]", false, RX_EBRACK);
	refused("[[.a.]", false, RX_EBRACK);
	refused("[[:nope:]]", false, RX_ECTYPE);
	refused("[[.ab.]]", false, RX_ECOLLATE);
	refused("[[=ab=]]", false, RX_ECOLLATE);
	refused("[[.space.]]", false, RX_ECOLLATE);
	refused("[b-a]", false, RX_ERANGE);
	refused("[a-[:alpha:]]", false, RX_ERANGE);
	refused("[[:alpha:]-z]", false, RX_ERANGE);
	refused("[a-c-e]", false, RX_ERANGE);
	refused("(a)\\1", false, RX_EBACKREF);
	/* accepted as glibc does */
	assert_int_equal(rx_status("a{32767}", 8, false), RX_OK);
	assert_int_equal(rx_status("a**", 3, false), RX_OK);
	assert_int_equal(rx_status("a{0}{3}", 7, false), RX_OK);
	/* deep nesting is refused before it costs stack */
	char deep[1000];
	memset(deep, '(', 201);
	strcpy(deep + 201, "a");
	memset(deep + 202, ')', 201);
	deep[403] = '\0';
	refused(deep, false, RX_EDEPTH);
	memset(deep, '(', 200);
	strcpy(deep + 200, "a");
	memset(deep + 201, ')', 200);
	deep[401] = '\0';
	assert_int_equal(rx_status(deep, 401, false), RX_OK);
	/* the messages are regerror's */
	regex_t re;
	static const char *const bad[] = {"(", "a{2,1}", "a{1", "*", "a\\", "[",
	                                  "[a", "[[:x:]]", "[[.ab.]]", "[b-a]",
	                                  "a{99999}"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int g = regcomp(&re, bad[i], REG_EXTENDED | REG_NOSUB);
		assert_int_not_equal(g, 0);
		char why[256];
		regerror(g, &re, why, sizeof(why));
		int rc = rx_status(bad[i], strlen(bad[i]), false);
		assert_string_equal(dfs_rx_message(rc), why);
	}
}

/* A pattern glibc 2.36's regcomp crashes on (its recursion over 32767
 * copies of an empty group) compiles here to nothing. */
static void test_empty_repeats(void **state)
{
	(void)state;
	glibc_too = false;
	yes("x(){32767}y", "xy");
	yes("^(|){32767}$", "");
	yes("^(()|()){1000}a$", "a");
	struct dfs_rx *rx = compile_rx("(){32767}", false);
	assert_true(dfs_rx_states(rx) < 4);
	dfs_rx_free(rx);
	glibc_too = true;
}

/* ---- bounds ---------------------------------------------------------------- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static unsigned pick(unsigned n)
{
	return (unsigned)(rnd() % n);
}

/* The pattern whose deterministic automaton has 2^21 states: memory stays
 * what compiling promised, the cache is emptied and refilled, and the
 * answers stay right. */
static void test_exponential(void **state)
{
	(void)state;
	struct dfs_rx *rx = compile_rx("(a|b)*a(a|b){20}$", false);
	size_t mem = dfs_rx_memory(rx);
	assert_true(mem < 256 * 1024);
	rng_state = 88172645463325252ull;
	char s[61];
	for (int i = 0; i < 3000; i++) {
		for (int j = 0; j < 60; j++)
			s[j] = pick(2) ? 'a' : 'b';
		bool want = s[60 - 21] == 'a';
		assert_int_equal(dfs_rx_match(rx, s, 60), want);
		if (i % 100 == 0)
			assert_int_equal(dfs_rx_match_nfa(rx, s, 60), want);
	}
	assert_int_equal(dfs_rx_memory(rx), mem);
	assert_true(dfs_rx_flushes(rx) > 0);
	dfs_rx_free(rx);
	/* a long text through a small automaton uses its few states */
	rx = compile_rx("^/lus/.*\\.h5$", false);
	char *t = malloc(1 << 20);
	memcpy(t, "/lus/", 5);
	memset(t + 5, 'x', (1 << 20) - 8);
	memcpy(t + (1 << 20) - 3, ".h5", 3);
	assert_true(dfs_rx_match(rx, t, 1 << 20));
	t[(1 << 20) - 1] = '6';
	assert_false(dfs_rx_match(rx, t, 1 << 20));
	t[0] = 'x';
	assert_false(dfs_rx_match(rx, t, 1 << 20)); /* stops at once */
	assert_int_equal(dfs_rx_flushes(rx), 0);
	free(t);
	dfs_rx_free(rx);
}

/* The largest automaton a pattern may have is refused beyond the limit,
 * and the screen's budget keeps well within it. */
static void test_sizes(void **state)
{
	(void)state;
	assert_int_equal(rx_status("((a{100}){100}){100}", 20, false), RX_ETOOBIG);
	struct dfs_rx *rx = compile_rx("(a|b|c){1000}", false);
	assert_true(dfs_rx_states(rx) <= 5 * 1000 + 1);
	assert_true(dfs_rx_memory(rx) < 1024 * 1024);
	dfs_rx_free(rx);
	/* what the screen lets through at most */
	static const char *const heavy[] = {"(a{1000}){99}", "((a|b|c|d){30}){800}",
	                                    "(((((((a*)*)*)*)*)*)*)+"};
	for (size_t i = 0; i < sizeof(heavy) / sizeof(heavy[0]); i++) {
		dfs_error err = {0};
		struct lexer lx = {heavy[i], strlen(heavy[i]), 0, 0, &err, false};
		struct regex_budget b = {DFS_FLT_REGEX_NODES, DFS_FLT_REGEX_WORK,
		                         DFS_FLT_REGEX_INSTS, false};
		struct dfs_regex *re = NULL;
		if (dfs_flt_regex(&lx, 0, heavy[i], strlen(heavy[i]), false, &b, &re) < 0)
			continue; /* (the screen refused it) */
		assert_true(dfs_rx_states(re->rx) <= RX_MAX_INST);
		assert_true(re->memory < 16u << 20);
		dfs_flt_regex_unref(re);
	}
}

/* What the heap holds, in bytes. */
static size_t heap_used(void)
{
	struct mallinfo2 mi = mallinfo2();
	return mi.uordblks + mi.hblkhd;
}

/* file names of n bytes: path-like, the bytes a pattern of "." and "?"
 * cannot tell apart */
static void random_name(char *s, size_t n)
{
	static const char chars[] = "abcxyz0189/._-";
	for (size_t j = 0; j < n; j++)
		s[j] = chars[pick(sizeof(chars) - 1)];
}

/* The pattern the heaviest filter of docs/limits.md uses: glibc's regexec
 * adds states to its automaton for every new text (hundreds of MiB);
 * ours takes what compiling said, once, and then nothing, whatever the
 * texts. */
static void test_memory_bound(void **state)
{
	(void)state;
	static const char pat[] = "(.?){800}$";
	char name[257];
	rng_state = 0x9e3779b97f4a7c15ull;
	size_t before = heap_used();
	struct dfs_rx *rx = compile_rx(pat, false);
	size_t promised = dfs_rx_memory(rx);
	assert_true(promised < 1u << 20);
	size_t compiled = heap_used();
	assert_true(compiled - before <= promised);
	size_t first = 0;
	for (int i = 0; i < 3000; i++) {
		size_t n = 100 + pick(150);
		random_name(name, n);
		assert_true(dfs_rx_match(rx, name, n)); /* (it matches anything) */
		if (i == 0)
			first = heap_used();
	}
	size_t after = heap_used();
	assert_true(first - before <= promised + 4096); /* (the mutexes, stdio) */
	assert_int_equal(after, first);
	dfs_rx_free(rx);
	/* glibc, for the record */
	regex_t re;
	rng_state = 0x9e3779b97f4a7c15ull;
	before = heap_used();
	assert_int_equal(regcomp(&re, pat, REG_EXTENDED | REG_NOSUB), 0);
	compiled = heap_used();
	for (int i = 0; i < 300; i++) {
		size_t n = 100 + pick(150);
		random_name(name, n);
		name[n] = '\0';
		regexec(&re, name, 0, NULL, 0);
	}
	print_message("(.?){800}$: ours %zu KiB in all; glibc's regcomp %zu KiB, "
	              "then %zu KiB more after 300 texts\n", promised >> 10,
	              (compiled - before) >> 10, (heap_used() - compiled) >> 10);
	regfree(&re);
}

/* The filter's budget of instructions holds for its patterns together:
 * the one that would pass it is refused, saying so.  (The screen's
 * budget of nodes is left out: it nearly always refuses first.) */
static void test_budget(void **state)
{
	(void)state;
	struct regex_budget b = {UINT64_MAX / 4, UINT64_MAX / 4,
	                         DFS_FLT_REGEX_INSTS, false};
	static const char big[] = "(ab|cd){20000}";  /* 120001 instructions */
	struct dfs_regex *re[4] = {NULL, NULL, NULL, NULL};
	for (int i = 0; i < 4; i++) {
		dfs_error err = {0};
		struct lexer lx = {big, strlen(big), 0, 0, &err, false};
		int rc = dfs_flt_regex(&lx, 0, big, strlen(big), false, &b, &re[i]);
		if (i < 3) {
			assert_int_equal(rc, 0);
			assert_int_equal(dfs_rx_states(re[i]->rx), 120001);
			continue;
		}
		assert_int_equal(rc, -1);
		assert_string_equal(err.msg, "at 1: regular expression too complex: "
		                    "the automata of the filter's regular "
		                    "expressions would have 480004 instructions, "
		                    "more than the 400000 they may have together");
	}
	assert_int_equal(b.insts, DFS_FLT_REGEX_INSTS - 3 * 120001);
	for (int i = 0; i < 3; i++)
		dfs_flt_regex_unref(re[i]);
}

struct thread_arg {
	struct dfs_rx *rx;
	unsigned seed;
	int bad;
};

static void *matcher(void *p)
{
	struct thread_arg *a = p;
	uint64_t x = a->seed * 2654435761u + 1;
	char s[40];
	for (int i = 0; i < 20000; i++) {
		for (int j = 0; j < 30; j++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			s[j] = "ab"[x & 1];
		}
		bool want = s[30 - 9] == 'a';
		if (dfs_rx_match(a->rx, s, 30) != want)
			a->bad++;
	}
	return NULL;
}

/* Several threads on one pattern: one uses the cache, the others
 * simulate; all answer right. */
static void test_threads(void **state)
{
	(void)state;
	static const char *const pats[] = {"(a|b)*a(a|b){8}$",
	                                   "(a|b)*a(a|b){8}$|(((x{30}){10}){4})"};
	for (size_t k = 0; k < 2; k++) {
		struct dfs_rx *rx = compile_rx(pats[k], false);
		pthread_t t[4];
		struct thread_arg a[4];
		for (int i = 0; i < 4; i++) {
			a[i] = (struct thread_arg){rx, (unsigned)i + 1, 0};
			assert_int_equal(pthread_create(&t[i], NULL, matcher, &a[i]), 0);
		}
		for (int i = 0; i < 4; i++) {
			pthread_join(t[i], NULL);
			assert_int_equal(a[i].bad, 0);
		}
		dfs_rx_free(rx);
	}
}

/* ---- the differential test against glibc --------------------------------- */

struct gen {
	char *buf;
	size_t len, cap;
};

static void put(struct gen *g, const char *s, size_t n)
{
	if (g->len + n + 1 > g->cap) {
		g->cap = (g->len + n + 1) * 2;
		g->buf = realloc(g->buf, g->cap);
		assert_non_null(g->buf);
	}
	memcpy(g->buf + g->len, s, n);
	g->len += n;
	g->buf[g->len] = '\0';
}

static void puts_(struct gen *g, const char *s)
{
	put(g, s, strlen(s));
}

static void putc_(struct gen *g, char c)
{
	put(g, &c, 1);
}

/* characters patterns and texts are made of */
static const char alphabet[] = "abAB_- ./0,}]\n\xc3\xff";

static char lit(void)
{
	return alphabet[pick(sizeof(alphabet) - 1)];
}

static void gen_bracket(struct gen *g)
{
	static const char *const classes[] = {
		"alpha", "digit", "upper", "lower", "space", "punct", "alnum",
		"xdigit", "blank", "cntrl", "graph", "print", "Alpha", "word", "",
	};
	putc_(g, '[');
	if (pick(3) == 0)
		putc_(g, '^');
	if (pick(5) == 0)
		putc_(g, ']');
	if (pick(6) == 0)
		putc_(g, '-');
	unsigned n = pick(4);
	for (unsigned i = 0; i < n; i++) {
		switch (pick(9)) {
		case 0: case 1: case 2:
			putc_(g, lit());
			break;
		case 3: case 4: { /* a range, often in order */
			char a = lit(), b = lit();
			if (pick(4) && (unsigned char)a > (unsigned char)b) {
				char t = a;
				a = b;
				b = t;
			}
			putc_(g, a);
			putc_(g, '-');
			putc_(g, b);
			break;
		}
		case 5:
			puts_(g, "[:");
			puts_(g, classes[pick(pick(4) ? 12 : 15)]);
			puts_(g, ":]");
			break;
		case 6: {
			bool equiv = pick(2);
			puts_(g, equiv ? "[=" : "[.");
			putc_(g, lit());
			if (pick(8) == 0)
				putc_(g, lit());
			puts_(g, equiv ? "=]" : ".]");
			break;
		}
		case 7:
			puts_(g, pick(2) ? "a-z" : "A-Z");
			break;
		default:
			putc_(g, pick(2) ? '[' : '\\');
			break;
		}
	}
	if (pick(6) == 0)
		putc_(g, '-');
	if (pick(40))
		putc_(g, ']');
}

static void gen_re(struct gen *g, int depth);

static void gen_atom(struct gen *g, int depth)
{
	static const char *const esc[] = {"\\w", "\\W", "\\s", "\\S", "\\b", "\\B",
	                                  "\\<", "\\>", "\\`", "\\'", "\\.", "\\*",
	                                  "\\\\", "\\(", "\\)", "\\{", "\\|", "\\a",
	                                  "\\A", "\\n", "\\,", "\\]", "\\["};
	switch (pick(16)) {
	case 0: case 1: case 2: case 3: case 4:
		putc_(g, lit());
		break;
	case 5:
		putc_(g, '.');
		break;
	case 6: case 7:
		gen_bracket(g);
		break;
	case 8: case 9:
		if (depth < 4) {
			putc_(g, '(');
			if (pick(8))
				gen_re(g, depth + 1);
			if (pick(40))
				putc_(g, ')');
		} else {
			putc_(g, lit());
		}
		break;
	case 10:
		putc_(g, "^$"[pick(2)]);
		break;
	case 11: case 12:
		puts_(g, esc[pick(sizeof(esc) / sizeof(esc[0]))]);
		break;
	case 13: /* upper- and lower-case letters for ~* */
		putc_(g, "aAbB"[pick(4)]);
		break;
	default: /* mistakes and oddities */
		switch (pick(8)) {
		case 0: putc_(g, '('); break;
		case 1: putc_(g, ')'); break;
		case 2: putc_(g, "*+?"[pick(3)]); break;
		case 3: putc_(g, '['); break;
		case 4: putc_(g, '{'); break;
		case 5: putc_(g, '\\'); break;
		case 6: puts_(g, "\\1"); break;
		default: putc_(g, '}'); break;
		}
		break;
	}
}

static void gen_repeat(struct gen *g)
{
	char b[32];
	switch (pick(10)) {
	case 0: case 1: putc_(g, '*'); break;
	case 2: case 3: putc_(g, '+'); break;
	case 4: case 5: putc_(g, '?'); break;
	case 6:
		snprintf(b, sizeof(b), "{%u}", pick(4));
		puts_(g, b);
		break;
	case 7:
		snprintf(b, sizeof(b), "{%u,}", pick(3));
		puts_(g, b);
		break;
	case 8: {
		unsigned lo = pick(3), hi = lo + pick(3);
		if (pick(10) == 0)
			snprintf(b, sizeof(b), "{,%u}", hi);
		else
			snprintf(b, sizeof(b), "{%u,%u}", lo, hi);
		puts_(g, b);
		break;
	}
	default: { /* malformed */
		static const char *const bad[] = {"{", "{1", "{x}", "{2,1}", "{,}",
		                                  "{}", "{1,2", "{1,2,3}", "{99999}"};
		puts_(g, bad[pick(sizeof(bad) / sizeof(bad[0]))]);
		break;
	}
	}
}

/* The grammar for anchors: few characters, many anchors and counted
 * repetitions, nested (glibc's copies of repeated parts treat anchors
 * their own way: see rx_compile.c) */
static bool anchor_mode;
/* repetition operators written so far: in that grammar no repeated group
 * holds one (glibc's regcomp takes exponential time on anchors in nested
 * repetitions: "((\\b$?|a)+(.?_*())){2,}" does not finish) */
static unsigned reps_written;

static void gen_anchor_atom(struct gen *g, int depth)
{
	static const char *const anchors[] = {"^", "$", "\\b", "\\B", "\\<",
	                                      "\\>", "\\`", "\\'"};
	unsigned k = pick(20);
	if (k < 7)
		putc_(g, "ab\n _."[pick(6)]);
	else if (k < 14)
		puts_(g, anchors[pick(8)]);
	else if (k < 19 && depth < 3) {
		putc_(g, '(');
		if (pick(8))
			gen_re(g, depth + 1);
		putc_(g, ')');
	} else {
		puts_(g, pick(2) ? "[^a]" : "\\w");
	}
}

static void gen_re(struct gen *g, int depth)
{
	if (anchor_mode) {
		unsigned branches = 1 + (pick(4) == 0);
		for (unsigned b = 0; b < branches; b++) {
			if (b)
				putc_(g, '|');
			unsigned pieces = pick(5);
			for (unsigned i = 0; i < pieces; i++) {
				unsigned reps_before = reps_written;
				gen_anchor_atom(g, depth);
				/* (no operator after an anchor: refused) */
				char last = g->len ? g->buf[g->len - 1] : 0;
				bool anchor = last == '^' || last == '$' ||
				              (g->len > 1 && g->buf[g->len - 2] == '\\' &&
				               strchr("bB<>`'", last));
				bool nested = last == ')' && reps_written != reps_before;
				if (!anchor && !nested && pick(2) == 0) {
					char rep[24];
					reps_written++;
					unsigned lo = pick(3), hi = lo + pick(3);
					switch (pick(6)) {
					case 0: puts_(g, "*"); break;
					case 1: puts_(g, "+"); break;
					case 2: puts_(g, "?"); break;
					case 3:
						snprintf(rep, sizeof(rep), "{%u,}", lo);
						puts_(g, rep);
						break;
					default:
						snprintf(rep, sizeof(rep), "{%u,%u}", lo, hi);
						puts_(g, rep);
						break;
					}
				}
			}
		}
		return;
	}
	unsigned branches = 1 + (pick(3) == 0) + (pick(6) == 0);
	for (unsigned b = 0; b < branches; b++) {
		if (b)
			putc_(g, '|');
		unsigned pieces = pick(5);
		for (unsigned i = 0; i < pieces; i++) {
			gen_atom(g, depth);
			if (pick(3) == 0)
				gen_repeat(g);
		}
	}
}

/* a text for pattern pat: its literal characters, case flipped at times,
 * and others of the alphabet; sometimes a NUL */
static size_t gen_text(const char *pat, char *out, size_t cap)
{
	size_t plen = strlen(pat), n = pick(12);
	if (n > cap)
		n = cap;
	for (size_t i = 0; i < n; i++) {
		char c;
		unsigned k = pick(10);
		if (k < 5 && plen)
			c = pat[pick((unsigned)plen)];
		else if (k < 9)
			c = lit();
		else
			c = "xX0\t"[pick(4)];
		if (pick(5) == 0 && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
			c ^= 0x20;
		if (pick(60) == 0)
			c = '\0';
		out[i] = c;
	}
	return n;
}

static bool screen_refusal(const char *msg)
{
	return strstr(msg, "too complex") || strstr(msg, "repetition operators") ||
	       strstr(msg, "back-references") || strstr(msg, "nested deeper");
}

static void printable(char *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out += (s[i] >= 0x20 && s[i] < 0x7f)
		       ? sprintf(out, "%c", s[i])
		       : sprintf(out, "\\x%02x", (unsigned char)s[i]);
	*out = '\0';
}

static void against_glibc(void);

static void test_against_glibc(void **state)
{
	(void)state;
	anchor_mode = false;
	against_glibc();
}

static void test_anchors_against_glibc(void **state)
{
	(void)state;
	anchor_mode = true;
	against_glibc();
	anchor_mode = false;
}

static void against_glibc(void)
{
	const char *env = getenv("DFS_RX_DIFF_PATTERNS");
	long npat = env ? atol(env) : 3000;
	env = getenv("DFS_RX_DIFF_SEED");
	rng_state = env ? (uint64_t)atoll(env) * 0x9e3779b97f4a7c15ull + 1
	                : 0x2545f4914f6cdd1dull;
	long accepted = 0, refused_both = 0, screened = 0, texts = 0, matched = 0;
	struct gen g = {0};
	for (long k = 0; k < npat; k++) {
		g.len = 0;
		puts_(&g, "");
		gen_re(&g, 0);
		const char *pat = g.buf;
		size_t plen = g.len;
		for (int icase = 0; icase < 2; icase++) {
			char shown[1024];
			printable(shown, pat, plen < 200 ? plen : 200);
			regex_t re;
			int grc = regcomp(&re, pat, REG_EXTENDED | REG_NOSUB |
			                            (icase ? REG_ICASE : 0));
			char gwhy[256] = "";
			if (grc != 0)
				regerror(grc, &re, gwhy, sizeof(gwhy));
			dfs_error err = {0};
			struct lexer lx = {pat, plen, 0, 0, &err, false};
			struct regex_budget b = {DFS_FLT_REGEX_NODES, DFS_FLT_REGEX_WORK,
			                         DFS_FLT_REGEX_INSTS, false};
			struct dfs_regex *ours = NULL;
			int orc = dfs_flt_regex(&lx, 0, pat, plen, icase, &b, &ours);
			/* checking alone agrees with compiling */
			struct regex_budget b2 = {DFS_FLT_REGEX_NODES, DFS_FLT_REGEX_WORK,
			                          DFS_FLT_REGEX_INSTS, true};
			struct dfs_regex *checked = NULL;
			dfs_error err2 = {0};
			struct lexer lx2 = {pat, plen, 0, 0, &err2, false};
			int crc = dfs_flt_regex(&lx2, 0, pat, plen, icase, &b2, &checked);
			if ((crc < 0) != (orc < 0))
				fail_msg("'%s': checked %d, compiled %d", shown, crc, orc);
			if (orc == 0 && b.insts != b2.insts)
				fail_msg("'%s': checked %llu instructions, compiled %llu",
				         shown, (unsigned long long)b2.insts,
				         (unsigned long long)b.insts);
			dfs_flt_regex_unref(checked);
			if (orc < 0 && screen_refusal(err.msg)) {
				screened++;
				if (grc == 0)
					regfree(&re);
				continue;
			}
			if ((orc == 0) != (grc == 0))
				fail_msg("'%s'%s: glibc %s, we %s", shown,
				         icase ? " (icase)" : "",
				         grc ? gwhy : "accepts", orc ? err.msg : "accept");
			if (orc < 0) {
				char want[400];
				snprintf(want, sizeof(want), "at 1: invalid regular expression: %s",
				         gwhy);
				if (strcmp(err.msg, want) != 0)
					fail_msg("'%s'%s: glibc says '%s', we '%s'", shown,
					         icase ? " (icase)" : "", want, err.msg);
				refused_both++;
				continue;
			}
			accepted++;
			for (int t = 0; t < 24; t++) {
				char s[16];
				size_t n = gen_text(pat, s, sizeof(s) - 1);
				s[n] = '\0';
				regmatch_t m[1];
				m[0].rm_so = 0;
				m[0].rm_eo = (regoff_t)n;
				bool want = regexec(&re, s, 1, m, REG_STARTEND) == 0;
				bool got = dfs_rx_match(ours->rx, s, n);
				bool sim = dfs_rx_match_nfa(ours->rx, s, n);
				if (got != want || sim != want) {
					char st[80];
					printable(st, s, n);
					fail_msg("'%s'%s on '%s': glibc %d, we %d (simulation %d)",
					         shown, icase ? " (icase)" : "", st, want, got, sim);
				}
				texts++;
				matched += want;
			}
			regfree(&re);
			dfs_flt_regex_unref(ours);
		}
	}
	free(g.buf);
	print_message("%ld patterns x 2: %ld accepted (%ld texts, %ld matched), "
	              "%ld refused by both, %ld by the screen\n", npat, accepted,
	              texts, matched, refused_both, screened);
	/* the grammar reaches every outcome */
	assert_true(accepted > npat / 2);
	assert_true(anchor_mode || refused_both > npat / 20);
	assert_true(matched > texts / 10 && matched < texts * 9 / 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basics),
		cmocka_unit_test(test_anchors),
		cmocka_unit_test(test_brackets),
		cmocka_unit_test(test_any_case),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_empty_repeats),
		cmocka_unit_test(test_exponential),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_memory_bound),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_against_glibc),
		cmocka_unit_test(test_anchors_against_glibc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
