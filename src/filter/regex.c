/* regex.c - screens and compiles the regular expressions of '~', '!~',
 * '~*' and '!~*' (the last two ignore case).
 *
 * Patterns are POSIX extended expressions, read and matched by rx.h's
 * matcher of our own exactly as glibc's regcomp and regexec would (the
 * dialect the language has always had), in memory fixed when the pattern
 * is compiled.  The text comes from whoever can write a filter file, and
 * counted repetitions multiply a pattern's automaton ("((a{100}){100}){100}"
 * is a million states), so before a pattern is compiled it is screened
 * with a cost model and charged to a budget for the whole filter.  Deep
 * group nesting, stacked repetition operators and back-references
 * (exponential matching; neither is defined for POSIX extended
 * expressions anyway) are refused.  The limits are those users have
 * always had (they were set for glibc's regcomp, which also stored, for
 * each node, every node reachable without reading a character). */
#include <stdlib.h>
#include <string.h>

#include "filter/filter_int.h"

/* Saturating arithmetic: anything past the budgets is simply too much. */
#define RE_HUGE ((uint64_t)1 << 62)
/* the upper bound of '*', '+' and "{m,}" */
#define RE_UNBOUNDED UINT64_MAX

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b > RE_HUGE ? RE_HUGE : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	if (a != 0 && b > RE_HUGE / a)
		return RE_HUGE;
	return a * b;
}

/* The size of a piece of pattern: automaton nodes, and how many of them
 * are optional (each optional part or alternative lets closures grow). */
struct size {
	uint64_t nodes;
	uint64_t optional;
};

/* One open group: its size so far, and the size of its last element
 * (what a following repetition applies to). */
struct group {
	struct size all;
	struct size last;
};

struct screen {
	struct group g[DFS_FILTER_MAX_DEPTH + 1];
	int depth;
	bool repeated; /* the last thing seen was a repetition operator */
};

static void add_piece(struct screen *sc, struct size x)
{
	struct group *g = &sc->g[sc->depth];
	g->all.nodes = sat_add(g->all.nodes, x.nodes);
	g->all.optional = sat_add(g->all.optional, x.optional);
	g->last = x;
}

/* The last element repeated lo to hi times (hi RE_UNBOUNDED or not).
 * The compiler writes out lo copies, then hi - lo optional ones, or one
 * starred copy when unbounded. */
static void repeat_last(struct screen *sc, uint64_t lo, uint64_t hi)
{
	struct group *g = &sc->g[sc->depth];
	struct size x = g->last;
	uint64_t extra = hi == RE_UNBOUNDED ? 1 : hi - lo;
	uint64_t copies = sat_add(lo, extra);
	struct size r;
	r.nodes = sat_mul(copies, sat_add(x.nodes, 1));
	r.optional = sat_add(sat_mul(copies, x.optional),
	                     sat_mul(extra, sat_add(x.nodes, 1)));
	g->all.nodes = sat_add(g->all.nodes - x.nodes, r.nodes);
	g->all.optional = sat_add(g->all.optional - x.optional, r.optional);
	g->last = r;
}

/* End of a bracket expression starting at s[i] == '['. */
static size_t skip_bracket(const char *s, size_t n, size_t i)
{
	i++;
	if (i < n && s[i] == '^')
		i++;
	if (i < n && s[i] == ']')
		i++;
	while (i < n && s[i] != ']') {
		if (s[i] == '[' && i + 1 < n &&
		    (s[i + 1] == ':' || s[i + 1] == '=' || s[i + 1] == '.')) {
			char close = s[i + 1];
			i += 2;
			while (i + 1 < n && !(s[i] == close && s[i + 1] == ']'))
				i++;
			i += 2;
			continue;
		}
		i++;
	}
	return i < n ? i + 1 : n;
}

static uint64_t read_count(const char *s, size_t n, size_t *i)
{
	uint64_t v = 0;
	while (*i < n && s[*i] >= '0' && s[*i] <= '9') {
		v = sat_add(sat_mul(v, 10), (uint64_t)(s[*i] - '0'));
		(*i)++;
	}
	return v;
}

/* "{m}", "{m,}" or "{m,n}" at s[*i]: moves *i past it and sets the
 * bounds (hi RE_UNBOUNDED when open).  false if it is not a well-formed
 * interval (the compiler judges those). */
static bool interval(const char *s, size_t n, size_t *i, uint64_t *lo,
                     uint64_t *hi)
{
	size_t p = *i + 1;
	*lo = read_count(s, n, &p);
	*hi = *lo;
	if (p < n && s[p] == ',') {
		p++;
		*hi = (p < n && s[p] == '}') ? RE_UNBOUNDED : read_count(s, n, &p);
	}
	if (p >= n || s[p] != '}' || *hi < *lo)
		return false;
	*i = p + 1;
	return true;
}

static int too_complex(const struct lexer *lx, size_t off)
{
	return dfs_flt_fail(lx, off, DFS_ERR_INVAL, "regular expression too "
	                    "complex (it would take too much memory)");
}

/* The whole pattern (groups left open, which the compiler refuses, count as
 * closed) charged to the budget. */
static int charge(const struct lexer *lx, size_t off, const struct screen *sc,
                  struct regex_budget *budget)
{
	struct size total = {0, 0};
	for (int d = 0; d <= sc->depth; d++) {
		total.nodes = sat_add(total.nodes, sc->g[d].all.nodes);
		total.optional = sat_add(total.optional, sc->g[d].all.optional);
	}
	uint64_t work = sat_mul(total.nodes, sat_add(total.optional, 1));
	if (total.nodes > budget->nodes || work > budget->work)
		return too_complex(lx, off);
	budget->nodes -= total.nodes;
	budget->work -= work;
	return 0;
}

/* A repetition operator at s[*i]: moves *i past it and sets its bounds. */
static bool repetition(const char *s, size_t n, size_t *i, uint64_t *lo,
                       uint64_t *hi)
{
	char c = s[*i];
	if (c == '{')
		return interval(s, n, i, lo, hi);
	if (c != '*' && c != '+' && c != '?')
		return false;
	*lo = c == '+' ? 1 : 0;
	*hi = c == '?' ? 1 : RE_UNBOUNDED;
	(*i)++;
	return true;
}

/* One step of the screen at s[*i]; -1 with the error set. */
static int screen_step(const struct lexer *lx, size_t off, const char *s,
                       size_t n, size_t *i, struct screen *sc)
{
	static const struct size atom = {1, 0};
	uint64_t lo, hi;
	char c = s[*i];
	bool repeated = sc->repeated;
	sc->repeated = false;
	if (repetition(s, n, i, &lo, &hi)) {
		/* POSIX leaves "a**" or "a{2}{3}" undefined; glibc's reading
		 * of long runs of them is slow and huge */
		if (repeated)
			return dfs_flt_fail(lx, off, DFS_ERR_INVAL, "repetition "
			                    "operators cannot follow each other in "
			                    "regular expressions ('a**', "
			                    "'a{2}{3}')");
		repeat_last(sc, lo, hi);
		sc->repeated = true;
		return 0;
	}
	if (c == '\\' && *i + 1 < n && s[*i + 1] >= '1' && s[*i + 1] <= '9')
		return dfs_flt_fail(lx, off, DFS_ERR_INVAL, "back-references such "
		                    "as '\\%c' are not supported in regular "
		                    "expressions", s[*i + 1]);
	if (c == '(') {
		if (sc->depth == DFS_FILTER_MAX_DEPTH)
			return dfs_flt_fail(lx, off, DFS_ERR_INVAL,
			                    "regular expression nested deeper than "
			                    "%d levels", DFS_FILTER_MAX_DEPTH);
		sc->depth++;
		sc->g[sc->depth] = (struct group){{0, 0}, {0, 0}};
		(*i)++;
	} else if (c == ')' && sc->depth > 0) {
		struct size inside = sc->g[sc->depth].all;
		sc->depth--;
		add_piece(sc, inside);
		(*i)++;
	} else if (c == '|') {
		struct group *g = &sc->g[sc->depth];
		g->all.optional = sat_add(g->all.optional, 1);
		g->last = (struct size){0, 0};
		(*i)++;
	} else if (c == '[') {
		*i = skip_bracket(s, n, *i);
		add_piece(sc, atom);
	} else {
		*i += (c == '\\' && *i + 1 < n) ? 2 : 1;
		add_piece(sc, atom);
	}
	return 0;
}

static int screen(const struct lexer *lx, size_t off, const char *s, size_t n,
                  struct regex_budget *budget)
{
	struct screen sc;
	sc.depth = 0;
	sc.repeated = false;
	sc.g[0] = (struct group){{0, 0}, {0, 0}};
	size_t i = 0;
	while (i < n) {
		if (screen_step(lx, off, s, n, &i, &sc) < 0)
			return -1;
		/* a lower bound of the total: stop early on the hopeless */
		const struct size *g = &sc.g[sc.depth].all;
		if (g->nodes > budget->nodes ||
		    sat_mul(g->nodes, sat_add(g->optional, 1)) > budget->work)
			return too_complex(lx, off);
	}
	return charge(lx, off, &sc, budget);
}

/* The error of a pattern the matcher refused. */
static int refused(const struct lexer *lx, size_t off, int rc)
{
	switch (rc) {
	case RX_ENOMEM:
		return dfs_error_nomem(lx->err);
	case RX_ETOOBIG:
		return dfs_flt_fail(lx, off, DFS_ERR_INVAL, "regular expression too "
		                    "complex: its automaton would have more than "
		                    "the %u instructions a filter's regular "
		                    "expressions may have together", RX_MAX_INST);
	case RX_EDEPTH:
		return dfs_flt_fail(lx, off, DFS_ERR_INVAL, "regular expression "
		                    "nested deeper than %d levels", RX_MAX_DEPTH);
	case RX_EBACKREF:
		return dfs_flt_fail(lx, off, DFS_ERR_INVAL, "back-references are "
		                    "not supported in regular expressions");
	default:
		return dfs_flt_fail(lx, off, DFS_ERR_INVAL,
		                    "invalid regular expression: %s",
		                    dfs_rx_message(rc));
	}
}

int dfs_flt_regex(const struct lexer *lx, size_t off, const char *pattern,
                  size_t len, bool icase, struct regex_budget *budget,
                  struct dfs_regex **out)
{
	if (screen(lx, off, pattern, len, budget) < 0)
		return -1;
	struct dfs_rx *rx = NULL;
	size_t insts = 0;
	int rc = budget->screen_only ? dfs_rx_check(pattern, len, icase, &insts)
	                             : dfs_rx_compile(pattern, len, icase, &rx);
	if (rc != RX_OK)
		return refused(lx, off, rc);
	if (rx)
		insts = dfs_rx_states(rx);
	if (insts > budget->insts) {
		dfs_rx_free(rx);
		return dfs_flt_fail(lx, off, DFS_ERR_INVAL, "regular expression too "
		                    "complex: the automata of the filter's regular "
		                    "expressions would have %llu instructions, more "
		                    "than the %u they may have together",
		                    (unsigned long long)(DFS_FLT_REGEX_INSTS -
		                                         budget->insts + insts),
		                    DFS_FLT_REGEX_INSTS);
	}
	budget->insts -= insts;
	struct dfs_regex *r = malloc(sizeof(*r) + len + 1);
	if (!r) {
		dfs_rx_free(rx);
		return dfs_error_nomem(lx->err);
	}
	r->rx = rx;
	atomic_init(&r->refs, 1);
	r->memory = (rx ? dfs_rx_memory(rx) : 0) + sizeof(*r) + len + 1;
	r->len = len;
	r->icase = icase;
	memcpy(r->pattern, pattern, len + 1);
	*out = r;
	return 0;
}

struct dfs_regex *dfs_flt_regex_ref(struct dfs_regex *r)
{
	atomic_fetch_add(&r->refs, 1);
	return r;
}

void dfs_flt_regex_unref(struct dfs_regex *r)
{
	if (r && atomic_fetch_sub(&r->refs, 1) == 1) {
		dfs_rx_free(r->rx);
		free(r);
	}
}
