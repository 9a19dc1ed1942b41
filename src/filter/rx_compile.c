/* rx_compile.c - reads a pattern as glibc's regcomp does (REG_EXTENDED,
 * the C locale) into a tree, then writes the tree out as an automaton.
 *
 * The reader follows regcomp's grammar step for step, so that it accepts
 * and refuses the same patterns and reports the first error regcomp
 * would: a token at a time, with the same look-ahead.  Its rules, for
 * the record (docs/filter-language.md tells users):
 *   - `|` alternation (an empty side matches the empty text), `(...)`
 *     groups (`()` too), `*` `+` `?` `{m}` `{m,}` `{m,n}` `{,n}` (counts
 *     up to 32767) after an atom or group, as many as wanted; an operator
 *     with nothing before it (`*a`, `a|*`, `(+`, `^*`) is refused, as is a
 *     `{` that does not start a well-formed count.  A `)` with no group
 *     open, and a `}`, are ordinary characters.
 *   - `^` and `$` are anchors wherever they stand; an anchor takes no
 *     repetition operator.  `\b \B \< \> \` \'` are anchors too (word
 *     boundaries, start and end); `\w \W \s \S` are [[:alnum:]_] and
 *     [[:space:]] and their complements.  `\1`..`\9` are back-references
 *     (refused here).  A backslash before anything else makes it
 *     ordinary (`\.`, `\n` is `n`); a lone one at the end is refused.
 *   - `.` is any byte but NUL.
 *   - brackets: `]` first is itself, `-` first or last is itself, ranges
 *     by byte value (reversed ones refused), [:class:] for the 12 classes
 *     of the C locale, [.x.] and [=x=] for one character x; a backslash is
 *     an ordinary character inside.
 *   - case-insensitive (~*): the pattern is read upper-cased (so `[Z-a]`
 *     is `[Z-A]`, refused) except for class names and the character after
 *     a backslash (`\a` then matches nothing: the text is upper-cased);
 *     [:lower:] and [:upper:] mean [:alpha:].
 *   - newlines, and anchors in the copies of repeated groups, as glibc
 *     reads them (rx_int.h, emit below).
 * The automaton has the shape of glibc's, copy for copy (see emit), but
 * for three things that change no answer: empty sides of an alternation
 * beyond the first and repetitions of what can only match the empty text
 * are dropped, and alternatives of single bytes are one set. */
#include <stdlib.h>
#include <string.h>

#include "filter/rx_int.h"

/* ---- tokens -------------------------------------------------------------- */

enum tk {
	T_CHAR, T_END, T_BACKSLASH, T_BACKREF, T_ALT, T_STAR, T_PLUS, T_QUEST,
	T_OPEN_DUP, T_CLOSE_DUP, T_OPEN, T_CLOSE, T_BRACKET, T_PERIOD, T_ANCHOR,
	T_WORD, T_NOTWORD, T_SPACE, T_NOTSPACE,
};

/* anchors as regcomp names them */
enum { AN_LINE_FIRST, AN_LINE_LAST, AN_BUF_FIRST, AN_BUF_LAST, AN_WORD_FIRST,
       AN_WORD_LAST, AN_WORD_DELIM, AN_NOT_WORD_DELIM };

struct token {
	enum tk type;
	unsigned char c;   /* T_CHAR: the character */
	uint8_t anchor;    /* T_ANCHOR */
	uint8_t len;       /* bytes of pattern */
};

/* ---- the tree -------------------------------------------------------------- */

enum { N_EMPTY, N_SET, N_ASSERT, N_CAT, N_ALT, N_REP };
/* the bits of an N_EMPTY: an alternation of empty sides ("(|)"), not an
 * empty group ("()", "(a{0})") */
#define EMPTY_ALT 1

struct node {
	uint8_t type;
	uint8_t bits;       /* N_ASSERT, N_EMPTY */
	bool has_empty;     /* N_ALT: an empty side is among the children */
	uint32_t a;         /* N_SET: set; N_CAT, N_ALT, N_REP: first child */
	uint32_t last;      /* N_CAT, N_ALT: last child */
	uint32_t next;      /* next sibling */
	int32_t min, max;   /* N_REP: max -1 for no bound */
	uint64_t size;      /* instructions it takes (saturated) */
};

struct parser {
	const unsigned char *raw;
	size_t len;
	size_t pos;
	bool icase;
	struct token tok;
	struct node *nodes;
	uint32_t nnode, capnode;
	struct rx_set *sets;
	uint32_t nset, capset;
	uint32_t *set_slot;  /* hash table of the sets: index + 1, 0 free;
	                      * 2 * capset slots */
	int status;
};

static unsigned char upper(unsigned char c)
{
	return c >= 'a' && c <= 'z' ? (unsigned char)(c - 'a' + 'A') : c;
}

/* The pattern byte at i as regcomp reads it (upper-cased for ~*). */
static unsigned char at(const struct parser *p, size_t i)
{
	return p->icase ? upper(p->raw[i]) : p->raw[i];
}

static int fail(struct parser *p, int status)
{
	if (p->status == RX_OK)
		p->status = status;
	return -1;
}

/* The token at p->pos (outside brackets), not consumed. */
static void peek(const struct parser *p, struct token *t)
{
	t->c = 0;
	t->anchor = 0;
	if (p->pos >= p->len) {
		t->type = T_END;
		t->len = 0;
		return;
	}
	if (p->raw[p->pos] == '\\') {
		if (p->pos + 1 >= p->len) {
			t->type = T_BACKSLASH;
			t->c = '\\';
			t->len = 1;
			return;
		}
		/* the escaped character is taken as written, even for ~* */
		unsigned char c2 = p->raw[p->pos + 1];
		t->type = T_CHAR;
		t->c = c2;
		t->len = 2;
		switch (c2) {
		case '1': case '2': case '3': case '4': case '5':
		case '6': case '7': case '8': case '9':
			t->type = T_BACKREF;
			break;
		case '<': t->type = T_ANCHOR; t->anchor = AN_WORD_FIRST; break;
		case '>': t->type = T_ANCHOR; t->anchor = AN_WORD_LAST; break;
		case 'b': t->type = T_ANCHOR; t->anchor = AN_WORD_DELIM; break;
		case 'B': t->type = T_ANCHOR; t->anchor = AN_NOT_WORD_DELIM; break;
		case '`': t->type = T_ANCHOR; t->anchor = AN_BUF_FIRST; break;
		case '\'': t->type = T_ANCHOR; t->anchor = AN_BUF_LAST; break;
		case 'w': t->type = T_WORD; break;
		case 'W': t->type = T_NOTWORD; break;
		case 's': t->type = T_SPACE; break;
		case 'S': t->type = T_NOTSPACE; break;
		default: break;
		}
		return;
	}
	unsigned char c = at(p, p->pos);
	t->type = T_CHAR;
	t->c = c;
	t->len = 1;
	switch (c) {
	case '|': t->type = T_ALT; break;
	case '*': t->type = T_STAR; break;
	case '+': t->type = T_PLUS; break;
	case '?': t->type = T_QUEST; break;
	case '{': t->type = T_OPEN_DUP; break;
	case '}': t->type = T_CLOSE_DUP; break;
	case '(': t->type = T_OPEN; break;
	case ')': t->type = T_CLOSE; break;
	case '[': t->type = T_BRACKET; break;
	case '.': t->type = T_PERIOD; break;
	case '^': t->type = T_ANCHOR; t->anchor = AN_LINE_FIRST; break;
	case '$': t->type = T_ANCHOR; t->anchor = AN_LINE_LAST; break;
	default: break;
	}
}

/* Consume the current token and read the next into p->tok. */
static void next(struct parser *p)
{
	peek(p, &p->tok);
	p->pos += p->tok.len;
}

/* ---- building ------------------------------------------------------------- */

static uint32_t new_node(struct parser *p, uint8_t type)
{
	if (p->nnode == p->capnode) {
		uint32_t cap = p->capnode ? p->capnode * 2 : 64;
		struct node *n = realloc(p->nodes, cap * sizeof(*n));
		if (!n) {
			fail(p, RX_ENOMEM);
			return RX_NONE;
		}
		p->nodes = n;
		p->capnode = cap;
	}
	struct node *n = &p->nodes[p->nnode];
	memset(n, 0, sizeof(*n));
	n->type = type;
	n->a = n->last = n->next = RX_NONE;
	return p->nnode++;
}

static uint32_t set_hash(const struct rx_set *s)
{
	uint64_t h = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < 4; i++)
		h = (h ^ s->w[i]) * 0xff51afd7ed558ccdull;
	return (uint32_t)(h >> 32);
}

/* Room for one more set (and its hash table twice as large). */
static bool sets_grow(struct parser *p)
{
	if (p->nset < p->capset)
		return true;
	uint32_t cap = p->capset ? p->capset * 2 : 16;
	struct rx_set *n = realloc(p->sets, cap * sizeof(*n));
	if (!n)
		return false;
	p->sets = n;
	uint32_t *slot = calloc(2 * (size_t)cap, sizeof(*slot));
	if (!slot)
		return false;
	free(p->set_slot);
	p->set_slot = slot;
	p->capset = cap;
	for (uint32_t i = 0; i < p->nset; i++) {
		uint32_t j = set_hash(&p->sets[i]) & (2 * cap - 1);
		while (slot[j])
			j = (j + 1) & (2 * cap - 1);
		slot[j] = i + 1;
	}
	return true;
}

/* A leaf matching the bytes of s (interned: one copy of each set). */
static uint32_t set_node(struct parser *p, const struct rx_set *s)
{
	if (!sets_grow(p)) {
		fail(p, RX_ENOMEM);
		return RX_NONE;
	}
	uint32_t mask = 2 * p->capset - 1, j = set_hash(s) & mask, i;
	for (; p->set_slot[j]; j = (j + 1) & mask)
		if (memcmp(&p->sets[p->set_slot[j] - 1], s, sizeof(*s)) == 0)
			break;
	if (p->set_slot[j]) {
		i = p->set_slot[j] - 1;
	} else {
		i = p->nset++;
		p->sets[i] = *s;
		p->set_slot[j] = i + 1;
	}
	uint32_t n = new_node(p, N_SET);
	if (n != RX_NONE)
		p->nodes[n].a = i;
	return n;
}

static void set_add(struct rx_set *s, unsigned c)
{
	s->w[c >> 6] |= (uint64_t)1 << (c & 63);
}

static void set_invert(struct rx_set *s)
{
	for (int i = 0; i < 4; i++)
		s->w[i] = ~s->w[i];
}

/* The bytes of the text that match the set `s` of the pattern: for ~*,
 * those whose upper case is in it. */
static uint32_t text_set_node(struct parser *p, const struct rx_set *s)
{
	if (!p->icase)
		return set_node(p, s);
	struct rx_set t = {{0, 0, 0, 0}};
	for (unsigned c = 0; c < 256; c++)
		if (rx_set_has(s, upper((unsigned char)c)))
			set_add(&t, c);
	return set_node(p, &t);
}

static uint32_t char_node(struct parser *p, unsigned char c)
{
	struct rx_set s = {{0, 0, 0, 0}};
	set_add(&s, c);
	return text_set_node(p, &s);
}

static uint32_t assert_node(struct parser *p, uint8_t bits)
{
	uint32_t n = new_node(p, N_ASSERT);
	if (n != RX_NONE)
		p->nodes[n].bits = bits;
	return n;
}

/* Append child c (RX_NONE: nothing) to the list of node n. */
static void add_child(struct parser *p, uint32_t n, uint32_t c)
{
	struct node *x = &p->nodes[n];
	if (x->last == RX_NONE)
		x->a = c;
	else
		p->nodes[x->last].next = c;
	x->last = c;
}

/* ---- character classes of the C locale ------------------------------------ */

static bool in_class(const char *name, unsigned c)
{
	bool upper_c = c >= 'A' && c <= 'Z', lower_c = c >= 'a' && c <= 'z';
	bool digit = c >= '0' && c <= '9', alpha = upper_c || lower_c;
	bool graph = c >= 0x21 && c <= 0x7e;
	if (strcmp(name, "alnum") == 0) return alpha || digit;
	if (strcmp(name, "alpha") == 0) return alpha;
	if (strcmp(name, "blank") == 0) return c == ' ' || c == '\t';
	if (strcmp(name, "cntrl") == 0) return c < 0x20 || c == 0x7f;
	if (strcmp(name, "digit") == 0) return digit;
	if (strcmp(name, "graph") == 0) return graph;
	if (strcmp(name, "lower") == 0) return lower_c;
	if (strcmp(name, "print") == 0) return graph || c == ' ';
	if (strcmp(name, "punct") == 0) return graph && !alpha && !digit;
	if (strcmp(name, "space") == 0) return c == ' ' || (c >= '\t' && c <= '\r');
	if (strcmp(name, "upper") == 0) return upper_c;
	if (strcmp(name, "xdigit") == 0)
		return digit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
	return false;
}

static bool class_known(const char *name)
{
	static const char *const names[] = {"alnum", "alpha", "blank", "cntrl",
	                                    "digit", "graph", "lower", "print",
	                                    "punct", "space", "upper", "xdigit"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

static void add_class(struct rx_set *s, const char *name)
{
	for (unsigned c = 0; c < 256; c++)
		if (in_class(name, c))
			set_add(s, c);
}

/* \w \W \s \S */
static uint32_t class_op(struct parser *p, const char *name, bool word, bool negate)
{
	struct rx_set s = {{0, 0, 0, 0}};
	add_class(&s, name);
	if (word)
		set_add(&s, '_');
	if (negate)
		set_invert(&s);
	return set_node(p, &s); /* closed under case already */
}

/* ---- bracket expressions ------------------------------------------------- */

enum btk { B_CHAR, B_END, B_RANGE, B_CLOSE, B_NONMATCH, B_COLL, B_EQUIV, B_CLASS };

struct btoken {
	enum btk type;
	unsigned char c;
	uint8_t len;
};

static void peek_bracket(const struct parser *p, struct btoken *t)
{
	if (p->pos >= p->len) {
		t->type = B_END;
		t->c = 0;
		t->len = 0;
		return;
	}
	unsigned char c = at(p, p->pos);
	t->c = c;
	t->len = 1;
	t->type = B_CHAR;
	if (c == '[') {
		unsigned char c2 = p->pos + 1 < p->len ? at(p, p->pos + 1) : 0;
		t->len = 2;
		if (c2 == '.')
			t->type = B_COLL;
		else if (c2 == '=')
			t->type = B_EQUIV;
		else if (c2 == ':')
			t->type = B_CLASS;
		else
			t->len = 1;
		return;
	}
	if (c == '-')
		t->type = B_RANGE;
	else if (c == ']')
		t->type = B_CLOSE;
	else if (c == '^')
		t->type = B_NONMATCH;
}

/* An element of a bracket: a character, or what [. .] [= =] [: :]
 * name. */
enum { E_CHAR, E_COLL, E_EQUIV, E_CLASS };
#define NAME_MAX_BYTES 32

struct belem {
	int type;
	unsigned char c;
	char name[NAME_MAX_BYTES];
};

/* The name of [.x.], [=x=] or [:x:] after its opening (p->pos is past
 * it), and its closing. */
static int bracket_name(struct parser *p, const struct btoken *t, struct belem *e)
{
	unsigned char delim = t->type == B_COLL ? '.' : t->type == B_EQUIV ? '=' : ':';
	if (p->pos >= p->len)
		return fail(p, RX_EBRACK);
	size_t i;
	for (i = 0;; i++) {
		if (i >= NAME_MAX_BYTES)
			return fail(p, RX_EBRACK);
		/* class names as written, even for ~* */
		unsigned char ch = t->type == B_CLASS ? p->raw[p->pos] : at(p, p->pos);
		p->pos++;
		if (p->pos >= p->len)
			return fail(p, RX_EBRACK);
		if (ch == delim && at(p, p->pos) == ']')
			break;
		e->name[i] = (char)ch;
	}
	p->pos++;
	e->name[i] = '\0';
	e->type = t->type == B_COLL ? E_COLL : t->type == B_EQUIV ? E_EQUIV : E_CLASS;
	return 0;
}

static int bracket_elem(struct parser *p, const struct btoken *t, struct belem *e,
                        bool accept_hyphen)
{
	p->pos += t->len;
	if (t->type == B_COLL || t->type == B_EQUIV || t->type == B_CLASS)
		return bracket_name(p, t, e);
	if (t->type == B_RANGE && !accept_hyphen) {
		/* a '-' that is neither first, last nor a range's end */
		struct btoken t2;
		peek_bracket(p, &t2);
		if (t2.type != B_CLOSE)
			return fail(p, RX_ERANGE);
	}
	e->type = E_CHAR;
	e->c = t->c;
	return 0;
}

/* The byte an element stands for at the end of a range; -1 with the
 * error set. */
static int range_end(struct parser *p, const struct belem *e)
{
	if (e->type == E_CHAR)
		return e->c;
	if (strlen(e->name) != 1)
		return fail(p, RX_ECOLLATE);
	return (unsigned char)e->name[0];
}

static int bracket_add(struct parser *p, struct rx_set *s, const struct belem *e)
{
	switch (e->type) {
	case E_CHAR:
		set_add(s, e->c);
		return 0;
	case E_COLL:
	case E_EQUIV:
		if (strlen(e->name) != 1)
			return fail(p, RX_ECOLLATE);
		set_add(s, (unsigned char)e->name[0]);
		return 0;
	default: {
		const char *name = e->name;
		if (!class_known(name))
			return fail(p, RX_ECTYPE);
		if (p->icase && (strcmp(name, "upper") == 0 || strcmp(name, "lower") == 0))
			name = "alpha";
		add_class(s, name);
		return 0;
	}
	}
}

/* After '[' (consumed): the set, as a leaf. */
static uint32_t bracket(struct parser *p)
{
	struct rx_set s = {{0, 0, 0, 0}};
	struct btoken t;
	bool negate = false, first = true;
	peek_bracket(p, &t);
	if (t.type == B_END)
		return fail(p, RX_EBADPAT), RX_NONE;
	if (t.type == B_NONMATCH) {
		negate = true;
		p->pos += t.len;
		peek_bracket(p, &t);
		if (t.type == B_END)
			return fail(p, RX_EBADPAT), RX_NONE;
	}
	if (t.type == B_CLOSE)
		t.type = B_CHAR;
	for (;;) {
		struct belem start, end;
		struct btoken t2;
		bool range = false;
		if (bracket_elem(p, &t, &start, first) < 0)
			return RX_NONE;
		first = false;
		peek_bracket(p, &t);
		if (start.type != E_CLASS && start.type != E_EQUIV) {
			if (t.type == B_END)
				return fail(p, RX_EBRACK), RX_NONE;
			if (t.type == B_RANGE) {
				p->pos += t.len;
				peek_bracket(p, &t2);
				if (t2.type == B_END)
					return fail(p, RX_EBRACK), RX_NONE;
				if (t2.type == B_CLOSE) {
					/* a '-' last is itself */
					p->pos -= t.len;
					t.type = B_CHAR;
				} else {
					range = true;
				}
			}
		}
		if (range) {
			if (bracket_elem(p, &t2, &end, true) < 0)
				return RX_NONE;
			peek_bracket(p, &t);
			if (start.type == E_CLASS || start.type == E_EQUIV ||
			    end.type == E_CLASS || end.type == E_EQUIV)
				return fail(p, RX_ERANGE), RX_NONE;
			int lo = range_end(p, &start);
			int hi = lo < 0 ? -1 : range_end(p, &end);
			if (lo < 0 || hi < 0)
				return RX_NONE;
			if (lo > hi)
				return fail(p, RX_ERANGE), RX_NONE;
			for (int c = lo; c <= hi; c++)
				set_add(&s, (unsigned)c);
		} else if (bracket_add(p, &s, &start) < 0) {
			return RX_NONE;
		}
		if (t.type == B_END)
			return fail(p, RX_EBRACK), RX_NONE;
		if (t.type == B_CLOSE)
			break;
	}
	p->pos += t.len;
	if (negate)
		set_invert(&s);
	return text_set_node(p, &s);
}

/* ---- the grammar ------------------------------------------------------------ */

static uint32_t reg_exp(struct parser *p, int depth);

/* A count of {m,n}: -1 when empty, -2 when malformed (or at the end),
 * else the number (at most RX_DUP_MAX + 1).  Ends on '}' or ','. */
static int32_t fetch_number(struct parser *p)
{
	int32_t num = -1;
	for (;;) {
		next(p);
		struct token *t = &p->tok;
		if (t->type == T_END)
			return -2;
		if (t->type == T_CLOSE_DUP || (t->type == T_CHAR && t->c == ','))
			break;
		if (t->type != T_CHAR || t->c < '0' || t->c > '9' || num == -2)
			num = -2;
		else if (num == -1)
			num = t->c - '0';
		else
			num = num * 10 + (t->c - '0') > RX_DUP_MAX + 1
			      ? RX_DUP_MAX + 1 : num * 10 + (t->c - '0');
	}
	return num;
}

static bool is_comma(const struct token *t)
{
	return t->type == T_CHAR && t->c == ',';
}

/* The repetition operator at p->tok applied to elem (RX_NONE: nothing). */
static uint32_t dup_op(struct parser *p, uint32_t elem)
{
	int32_t lo, hi;
	if (p->tok.type == T_OPEN_DUP) {
		hi = 0;
		lo = fetch_number(p);
		if (lo == -1) {
			if (!is_comma(&p->tok))
				return fail(p, RX_BADBR), RX_NONE; /* "{}" */
			lo = 0; /* "{,n}" is "{0,n}" */
		}
		if (lo != -2)
			hi = p->tok.type == T_CLOSE_DUP ? lo
			     : is_comma(&p->tok) ? fetch_number(p) : -2;
		if (lo == -2 || hi == -2)
			return fail(p, p->tok.type == T_END ? RX_EBRACE : RX_BADBR), RX_NONE;
		if ((hi != -1 && lo > hi) || p->tok.type != T_CLOSE_DUP)
			return fail(p, RX_BADBR), RX_NONE;
		if ((hi == -1 ? lo : hi) > RX_DUP_MAX)
			return fail(p, RX_ESIZE), RX_NONE;
	} else {
		lo = p->tok.type == T_PLUS ? 1 : 0;
		hi = p->tok.type == T_QUEST ? 1 : -1;
	}
	next(p);
	if (elem == RX_NONE || (lo == 0 && hi == 0))
		return RX_NONE;
	uint32_t n = new_node(p, N_REP);
	if (n == RX_NONE)
		return RX_NONE;
	p->nodes[n].a = elem;
	p->nodes[n].min = lo;
	p->nodes[n].max = hi;
	return n;
}

/* \b as (\<|\>), \B as (inside a word | outside words) */
static uint32_t word_delim(struct parser *p, bool negate)
{
	uint32_t alt = new_node(p, N_ALT);
	if (alt == RX_NONE)
		return RX_NONE;
	uint32_t a = assert_node(p, negate ? RA_PREV_WORD | RA_NEXT_WORD
	                                   : RA_PREV_NOT | RA_NEXT_WORD);
	uint32_t b = assert_node(p, negate ? RA_PREV_NOT | RA_NEXT_NOT
	                                   : RA_PREV_WORD | RA_NEXT_NOT);
	if (a == RX_NONE || b == RX_NONE)
		return RX_NONE;
	add_child(p, alt, a);
	add_child(p, alt, b);
	return alt;
}

static uint32_t anchor(struct parser *p, int kind)
{
	switch (kind) {
	case AN_LINE_FIRST:
		return assert_node(p, RA_BOL);
	case AN_BUF_FIRST:
		return assert_node(p, RA_BOB);
	case AN_LINE_LAST:
		return assert_node(p, RA_EOL);
	case AN_BUF_LAST:
		return assert_node(p, RA_EOB);
	case AN_WORD_FIRST:
		return assert_node(p, RA_PREV_NOT | RA_NEXT_WORD);
	case AN_WORD_LAST:
		return assert_node(p, RA_PREV_WORD | RA_NEXT_NOT);
	default:
		return word_delim(p, kind == AN_NOT_WORD_DELIM);
	}
}

/* One atom with its repetition operators.  RX_NONE with no error: it
 * matches the empty text only (or there was none: at '|' or the end). */
static uint32_t expression(struct parser *p, int depth)
{
	uint32_t tree;
	struct rx_set dot = {{~(uint64_t)1, ~(uint64_t)0, ~(uint64_t)0, ~(uint64_t)0}};
	switch (p->tok.type) {
	case T_CHAR:
	case T_CLOSE:      /* ')' with no group open */
	case T_CLOSE_DUP:  /* '}' */
		tree = char_node(p, p->tok.c);
		break;
	case T_OPEN:
		if (depth >= RX_MAX_DEPTH)
			return fail(p, RX_EDEPTH), RX_NONE;
		next(p);
		if (p->tok.type == T_CLOSE) {
			tree = new_node(p, N_EMPTY);
		} else {
			tree = reg_exp(p, depth + 1);
			if (p->status == RX_OK && p->tok.type != T_CLOSE)
				fail(p, RX_EPAREN);
			if (p->status != RX_OK)
				return RX_NONE;
			if (tree == RX_NONE)
				tree = new_node(p, N_EMPTY);
		}
		break;
	case T_BRACKET:
		tree = bracket(p);
		break;
	case T_BACKREF:
		return fail(p, RX_EBACKREF), RX_NONE;
	case T_OPEN_DUP:
	case T_STAR:
	case T_PLUS:
	case T_QUEST:
		return fail(p, RX_BADRPT), RX_NONE;
	case T_ANCHOR:
		/* no repetition operator may follow: "^*" is refused */
		tree = anchor(p, p->tok.anchor);
		next(p);
		return tree;
	case T_PERIOD:
		tree = set_node(p, &dot);
		break;
	case T_WORD:
	case T_NOTWORD:
		tree = class_op(p, "alnum", true, p->tok.type == T_NOTWORD);
		break;
	case T_SPACE:
	case T_NOTSPACE:
		tree = class_op(p, "space", false, p->tok.type == T_NOTSPACE);
		break;
	case T_BACKSLASH:
		return fail(p, RX_EESCAPE), RX_NONE;
	default: /* T_ALT, T_END */
		return RX_NONE;
	}
	if (p->status != RX_OK)
		return RX_NONE;
	next(p);
	int stacked = 0;
	while (p->tok.type == T_STAR || p->tok.type == T_PLUS ||
	       p->tok.type == T_QUEST || p->tok.type == T_OPEN_DUP) {
		/* (the tree nests one level deeper for each: bounded, as
		 * writing it out recurses) */
		if (depth + ++stacked > 2 * RX_MAX_DEPTH)
			return fail(p, RX_EDEPTH), RX_NONE;
		tree = dup_op(p, tree);
		if (p->status != RX_OK)
			return RX_NONE;
	}
	return tree;
}

static bool branch_end(const struct parser *p, int depth)
{
	enum tk t = p->tok.type;
	return t == T_ALT || t == T_END || (depth > 0 && t == T_CLOSE);
}

/* A concatenation: RX_NONE when it matches the empty text only. */
static uint32_t branch(struct parser *p, int depth)
{
	uint32_t cat = RX_NONE, first = expression(p, depth);
	if (p->status != RX_OK)
		return RX_NONE;
	while (!branch_end(p, depth)) {
		uint32_t e = expression(p, depth);
		if (p->status != RX_OK)
			return RX_NONE;
		if (e == RX_NONE)
			continue;
		if (first == RX_NONE) {
			first = e;
			continue;
		}
		if (cat == RX_NONE) {
			cat = new_node(p, N_CAT);
			if (cat == RX_NONE)
				return RX_NONE;
			add_child(p, cat, first);
		}
		add_child(p, cat, e);
	}
	return cat != RX_NONE ? cat : first;
}

/* Alternatives that each read one byte ("a|b|[0-9]") are the one set of
 * all their bytes: one instruction, not five. */
static uint32_t merge_sets(struct parser *p, uint32_t alt)
{
	const struct node *x = &p->nodes[alt];
	if (x->has_empty)
		return alt;
	struct rx_set u = {{0, 0, 0, 0}};
	for (uint32_t c = x->a; c != RX_NONE; c = p->nodes[c].next) {
		if (p->nodes[c].type != N_SET)
			return alt;
		for (int i = 0; i < 4; i++)
			u.w[i] |= p->sets[p->nodes[c].a].w[i];
	}
	return set_node(p, &u); /* (the bytes of the text already) */
}

/* Alternatives: RX_NONE when it matches the empty text only. */
static uint32_t reg_exp(struct parser *p, int depth)
{
	uint32_t alt = RX_NONE, first = branch(p, depth);
	if (p->status != RX_OK)
		return RX_NONE;
	while (p->tok.type == T_ALT) {
		next(p);
		uint32_t b = RX_NONE;
		if (!branch_end(p, depth)) {
			b = branch(p, depth);
			if (p->status != RX_OK)
				return RX_NONE;
		}
		if (alt == RX_NONE) {
			alt = new_node(p, N_ALT);
			if (alt == RX_NONE)
				return RX_NONE;
			if (first == RX_NONE)
				p->nodes[alt].has_empty = true;
			else
				add_child(p, alt, first);
		}
		if (b == RX_NONE)
			p->nodes[alt].has_empty = true;
		else
			add_child(p, alt, b);
	}
	if (alt == RX_NONE)
		return first;
	if (p->nodes[alt].a == RX_NONE) {
		/* only empty sides: nothing to match, but glibc's tree has
		 * a node here (which matters to anchors: see emit) */
		p->nodes[alt].type = N_EMPTY;
		p->nodes[alt].bits = EMPTY_ALT;
		return alt;
	}
	return merge_sets(p, alt);
}

/* ---- sizes ---------------------------------------------------------------- */

#define SIZE_HUGE ((uint64_t)1 << 40)

static uint64_t sat(uint64_t x)
{
	return x > SIZE_HUGE ? SIZE_HUGE : x;
}

/* Instructions node n takes (recursing as deep as the groups nest). */
static uint64_t size_of(struct parser *p, uint32_t n)
{
	struct node *x = &p->nodes[n];
	uint64_t s = 0, k = 0;
	switch (x->type) {
	case N_EMPTY:
		break;
	case N_SET:
	case N_ASSERT:
		s = 1;
		break;
	case N_CAT:
		for (uint32_t c = x->a; c != RX_NONE; c = p->nodes[c].next)
			s = sat(s + size_of(p, c));
		break;
	case N_ALT:
		for (uint32_t c = x->a; c != RX_NONE; c = p->nodes[c].next, k++)
			s = sat(s + size_of(p, c));
		if (x->has_empty)
			k++;
		s = sat(s + 2 * (k - 1)); /* a split and a jump per side but one */
		break;
	case N_REP: {
		uint64_t e = size_of(p, x->a);
		uint64_t lo = (uint64_t)x->min;
		if (e == 0)
			s = 0; /* matches the empty text only */
		else if (x->max < 0)
			s = sat(lo * e + e + 2);
		else
			s = sat(lo * e + ((uint64_t)x->max - lo) * (e + 1));
		break;
	}
	}
	x = &p->nodes[n];
	x->size = s;
	return s;
}

/* ---- writing the automaton ----------------------------------------------- */

struct emitter {
	struct parser *p;
	struct rx_inst *inst;
	uint32_t n;
};

static uint32_t put(struct emitter *e, uint8_t op, uint32_t x, uint32_t y)
{
	struct rx_inst *i = &e->inst[e->n];
	i->op = op;
	i->bits = 0;
	i->pad = 0;
	i->x = x;
	i->y = y;
	return e->n++;
}

/* Whether the first node of n in glibc's tree is one that regcomp copied
 * for a counted repetition (n itself being in such a copy or not).  An
 * empty group is its own opening node, never copied. */
static bool first_copied(const struct parser *p, uint32_t n, bool copied)
{
	for (;;) {
		const struct node *x = &p->nodes[n];
		switch (x->type) {
		case N_EMPTY:
			return (x->bits & EMPTY_ALT) ? copied : false;
		case N_CAT:
			n = x->a;
			break;
		case N_REP:
			if (x->min == 0)
				return copied; /* the loop or the choice */
			n = x->a;          /* the first copy, as n is */
			break;
		default:
			return copied;
		}
	}
}

/* Write node n out.  `copied`: n lies in a copy regcomp made of a
 * repeated part; `next_copied`: the node glibc's automaton goes on to
 * after n is one.  The automaton has glibc's shape, copy for copy:
 *   x{m}    x x' x'' ...             (m copies; all but the first copied)
 *   x{m,}   x{m} x'*                 (x+ is x x'*, x* is x*)
 *   x{m,n}  x{m} ((x'? x')? x')?...  (n - m optional copies, nested
 *                                     so: any one may be the first)
 * for glibc passes an anchor's constraint on to what follows it only
 * when what follows was not copied, or when the path to the anchor met
 * another anchor that passed its own on since the last byte read (its
 * constraint, with those it meets, goes to all that follows).  Such an
 * anchor is RI_WEAK.  "(^a){2}" thus matches "aa" (the second ^ holds
 * nothing back), "(^()a){2}" does not, and neither does "\>(^.){0,2}\B"
 * "B|a" (the \> passes the second ^ on). */
static void emit(struct emitter *e, uint32_t n, bool copied, bool next_copied)
{
	const struct parser *p = e->p;
	const struct node *x = &p->nodes[n];
	if (x->size == 0 && x->type != N_ASSERT)
		return;
	switch (x->type) {
	case N_SET:
		put(e, RI_SET, x->a, 0);
		break;
	case N_ASSERT:
		e->inst[put(e, next_copied ? RI_WEAK : RI_ASSERT, 0, 0)].bits = x->bits;
		break;
	case N_CAT:
		for (uint32_t c = x->a; c != RX_NONE; c = p->nodes[c].next) {
			uint32_t after = p->nodes[c].next;
			emit(e, c, copied, after == RX_NONE ? next_copied
			                                    : first_copied(p, after, copied));
		}
		break;
	case N_ALT: {
		/* split to each side in turn; each but the last jumps to the
		 * end (the jumps chained through x until the end is known) */
		uint32_t jumps = RX_NONE;
		for (uint32_t c = x->a; c != RX_NONE; c = p->nodes[c].next) {
			bool last = p->nodes[c].next == RX_NONE && !x->has_empty;
			if (last) {
				emit(e, c, copied, next_copied);
				break;
			}
			uint32_t split = put(e, RI_SPLIT, e->n + 1, 0);
			emit(e, c, copied, next_copied);
			jumps = put(e, RI_JMP, jumps, 0);
			e->inst[split].y = e->n;
		}
		/* (an empty side: falls through to the end) */
		while (jumps != RX_NONE) {
			uint32_t j = e->inst[jumps].x;
			e->inst[jumps].x = e->n;
			jumps = j;
		}
		break;
	}
	case N_REP: {
		int32_t lo = x->min, hi = x->max;
		uint32_t a = x->a;
		bool first_of_copy = first_copied(p, a, true);
		/* the copies that must match; the last goes on to the loop or
		 * the optional part (a node of n's own), or past n */
		for (int32_t i = 0; i < lo; i++)
			emit(e, a, copied || i > 0,
			     i + 1 < lo ? first_of_copy : lo == hi ? next_copied : copied);
		if (lo == hi)
			break;
		bool opt_copied = copied || lo > 0;
		if (hi < 0) {
			/* x* : on into x or past it; after x, back */
			uint32_t split = put(e, RI_SPLIT, e->n + 1, 0);
			emit(e, a, opt_copied, copied);
			put(e, RI_JMP, split, 0);
			e->inst[split].y = e->n;
			break;
		}
		/* k optional copies: k choices first (the j-th from the end
		 * skips to after copy k - j), then the copies */
		int32_t k = hi - lo;
		uint32_t first_split = e->n;
		for (int32_t j = 0; j < k; j++)
			put(e, RI_SPLIT, e->n + 1, 0);
		for (int32_t j = 0; j < k; j++) {
			emit(e, a, opt_copied || j > 0,
			     j + 1 < k ? first_of_copy : next_copied);
			/* the choice k - 1 - j skips to here */
			e->inst[first_split + (uint32_t)(k - 1 - j)].y = e->n;
		}
		break;
	}
	default:
		break;
	}
}

/* ---- classes of bytes --------------------------------------------------- */

/* Bytes no set tells apart, nor the assertions (word bytes when there
 * are word assertions, the newline when there are line anchors), share a
 * class: the deterministic states have one entry per class. */
static void byte_classes(struct dfs_rx *rx, bool words, bool lines)
{
	uint8_t cls[256];
	uint32_t ncls = 1;
	memset(cls, 0, sizeof(cls));
	for (unsigned c = 0; c < 256; c++)
		rx->kind[c] = (uint8_t)((words && rx_word_byte(c) ? RC_WORD : 0) |
		                        (lines && c == '\n' ? RC_NL : 0));
	for (uint32_t k = 0; k <= rx->nset + 2 && ncls < 256; k++) {
		struct rx_set w = {{0, 0, 0, 0}};
		const struct rx_set *s = &w;
		if (k < rx->nset) {
			s = &rx->sets[k];
		} else {
			unsigned want = k == rx->nset ? RC_WORD : RC_NL;
			for (unsigned c = 0; c < 256; c++)
				if (rx->kind[c] & want)
					set_add(&w, c);
		}
		int16_t map[512];
		uint32_t n = 0;
		for (size_t i = 0; i < 2 * (size_t)ncls; i++)
			map[i] = -1;
		for (unsigned c = 0; c < 256; c++) {
			unsigned key = cls[c] * 2u + rx_set_has(s, c);
			if (map[key] < 0)
				map[key] = (int16_t)n++;
			cls[c] = (uint8_t)map[key];
		}
		ncls = n;
	}
	memcpy(rx->cls, cls, sizeof(cls));
	rx->ncls = ncls;
	for (int c = 255; c >= 0; c--)
		rx->rep[cls[c]] = (uint8_t)c;
}

/* ---- entry points ---------------------------------------------------------- */

static void parser_free(struct parser *p)
{
	free(p->nodes);
	free(p->sets);
	free(p->set_slot);
}

/* Parse the whole pattern and size its automaton: root (RX_NONE when it
 * matches the empty text only) and the total (MATCH included). */
static int parse(struct parser *p, const char *pat, size_t len, bool icase,
                 uint32_t *root, uint64_t *total)
{
	memset(p, 0, sizeof(*p));
	p->raw = (const unsigned char *)pat;
	p->len = len;
	p->icase = icase;
	p->status = RX_OK;
	next(p);
	*root = reg_exp(p, 0);
	if (p->status != RX_OK)
		return p->status;
	*total = 1 + (*root == RX_NONE ? 0 : size_of(p, *root));
	if (*total > RX_MAX_INST)
		return RX_ETOOBIG;
	return RX_OK;
}

int dfs_rx_check(const char *pat, size_t len, bool icase, size_t *insts)
{
	struct parser p;
	uint32_t root;
	uint64_t total = 0;
	int rc = parse(&p, pat, len, icase, &root, &total);
	parser_free(&p);
	*insts = rc == RX_OK ? (size_t)total : 0;
	return rc;
}

int dfs_rx_compile(const char *pat, size_t len, bool icase, struct dfs_rx **out)
{
	struct parser p;
	uint32_t root;
	uint64_t total;
	int rc = parse(&p, pat, len, icase, &root, &total);
	struct dfs_rx *rx = NULL;
	if (rc == RX_OK && !(rx = calloc(1, sizeof(*rx))))
		rc = RX_ENOMEM;
	if (rc == RX_OK) {
		rx->inst = malloc((size_t)total * sizeof(*rx->inst));
		rx->sets = malloc((p.nset ? p.nset : 1) * sizeof(*rx->sets));
		if (!rx->inst || !rx->sets)
			rc = RX_ENOMEM;
	}
	if (rc != RX_OK) {
		if (rx) {
			free(rx->inst);
			free(rx->sets);
			free(rx);
		}
		parser_free(&p);
		return rc;
	}
	struct emitter e = {&p, rx->inst, 0};
	bool words = false, lines = false;
	if (root != RX_NONE)
		emit(&e, root, false, false);
	put(&e, RI_MATCH, 0, 0);
	for (uint32_t i = 0; i < e.n; i++) {
		if (rx->inst[i].op != RI_ASSERT && rx->inst[i].op != RI_WEAK)
			continue;
		if (rx->inst[i].bits & (RA_PREV_WORD | RA_PREV_NOT | RA_NEXT_WORD |
		                        RA_NEXT_NOT))
			words = true;
		if (rx->inst[i].bits & (RA_BOL | RA_EOL))
			lines = true;
	}
	rx->ninst = e.n;
	rx->nset = p.nset;
	if (p.nset)
		memcpy(rx->sets, p.sets, p.nset * sizeof(*rx->sets));
	parser_free(&p);
	byte_classes(rx, words, lines);
	if (!dfs_rx_match_init(rx)) {
		free(rx->inst);
		free(rx->sets);
		free(rx);
		return RX_ENOMEM;
	}
	*out = rx;
	return RX_OK;
}

const char *dfs_rx_message(int status)
{
	switch (status) {
	case RX_OK: return "Success";
	case RX_EBADPAT: return "Invalid regular expression";
	case RX_ECOLLATE: return "Invalid collation character";
	case RX_ECTYPE: return "Invalid character class name";
	case RX_EESCAPE: return "Trailing backslash";
	case RX_EBRACK: return "Unmatched [, [^, [:, [., or [=";
	case RX_EPAREN: return "Unmatched ( or \\(";
	case RX_EBRACE: return "Unmatched \\{";
	case RX_BADBR: return "Invalid content of \\{\\}";
	case RX_ERANGE: return "Invalid range end";
	case RX_BADRPT: return "Invalid preceding regular expression";
	case RX_ESIZE: return "Regular expression too big";
	case RX_ENOMEM: return "Memory exhausted";
	case RX_EBACKREF: return "back-references are not supported";
	case RX_EDEPTH: return "nested too deep";
	case RX_ETOOBIG: return "too complex";
	default: return "Invalid regular expression";
	}
}
