/* json.c - the tests' JSON reader: a recursive-descent parser building a
 * tree of json_value nodes (see json.h).
 *
 * Strict RFC 8259 syntax: no comments, no trailing commas, no NaN
 * literals; \u escapes (with surrogate pairs) are decoded to UTF-8.
 * Nesting is limited so malformed input cannot exhaust the stack. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"

#define MAX_DEPTH 256

typedef struct parser {
	const char *p, *start, *end;
	char *err;
	size_t errlen;
	bool failed;
} parser;

static bool fail(parser *ps, const char *fmt, ...)
{
	if (ps->failed)
		return false;
	ps->failed = true;
	if (ps->err && ps->errlen) {
		char msg[200];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		snprintf(ps->err, ps->errlen, "offset %zu: %s",
		         (size_t)(ps->p - ps->start), msg);
	}
	return false;
}

static void skip_ws(parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' ||
	                           *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static bool literal(parser *ps, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
		return fail(ps, "unexpected text");
	ps->p += n;
	return true;
}

/* ---- strings ----------------------------------------------------------- */

typedef struct text {
	char *data;
	size_t len, cap;
} text;

static bool text_add(text *t, const char *s, size_t n)
{
	if (t->len + n + 1 > t->cap) {
		size_t cap = t->cap ? t->cap : 32;
		while (cap < t->len + n + 1)
			cap *= 2;
		char *d = realloc(t->data, cap);
		if (!d)
			return false;
		t->data = d;
		t->cap = cap;
	}
	memcpy(t->data + t->len, s, n);
	t->len += n;
	t->data[t->len] = '\0';
	return true;
}

static bool add_utf8(text *t, unsigned long cp)
{
	char b[4];
	size_t n;
	if (cp < 0x80) {
		b[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | (cp >> 6));
		b[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | (cp >> 12));
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		b[0] = (char)(0xf0 | (cp >> 18));
		b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	return text_add(t, b, n);
}

static bool hex4(parser *ps, unsigned long *out)
{
	if (ps->end - ps->p < 4)
		return fail(ps, "short \\u escape");
	unsigned long v = 0;
	for (int i = 0; i < 4; i++) {
		char c = *ps->p++;
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned long)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned long)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned long)(c - 'A' + 10);
		else
			return fail(ps, "bad \\u escape");
	}
	*out = v;
	return true;
}

static bool unicode_escape(parser *ps, text *t)
{
	unsigned long cp;
	if (!hex4(ps, &cp))
		return false;
	if (cp >= 0xd800 && cp <= 0xdbff) {
		unsigned long lo;
		if (ps->end - ps->p < 2 || ps->p[0] != '\\' || ps->p[1] != 'u')
			return fail(ps, "lone high surrogate");
		ps->p += 2;
		if (!hex4(ps, &lo))
			return false;
		if (lo < 0xdc00 || lo > 0xdfff)
			return fail(ps, "bad low surrogate");
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	} else if (cp >= 0xdc00 && cp <= 0xdfff) {
		return fail(ps, "lone low surrogate");
	}
	return add_utf8(t, cp) || fail(ps, "out of memory");
}

static bool escape(parser *ps, text *t)
{
	if (ps->p >= ps->end)
		return fail(ps, "unterminated string");
	char c = *ps->p++;
	static const char from[] = "\"\\/bfnrt";
	static const char to[] = "\"\\/\b\f\n\r\t";
	const char *hit = c ? strchr(from, c) : NULL;
	if (hit)
		return text_add(t, &to[hit - from], 1) || fail(ps, "out of memory");
	if (c == 'u')
		return unicode_escape(ps, t);
	return fail(ps, "bad escape");
}

/* the opening quote is at ps->p */
static bool parse_string(parser *ps, char **out, size_t *len)
{
	text t = {NULL, 0, 0};
	ps->p++;
	if (!text_add(&t, "", 0))
		return fail(ps, "out of memory");
	for (;;) {
		const char *run = ps->p;
		while (ps->p < ps->end && *ps->p != '"' && *ps->p != '\\' &&
		       (unsigned char)*ps->p >= 0x20)
			ps->p++;
		if (!text_add(&t, run, (size_t)(ps->p - run))) {
			free(t.data);
			return fail(ps, "out of memory");
		}
		if (ps->p >= ps->end || (unsigned char)*ps->p < 0x20) {
			free(t.data);
			return fail(ps, "unterminated string");
		}
		if (*ps->p == '"') {
			ps->p++;
			break;
		}
		ps->p++;
		if (!escape(ps, &t)) {
			free(t.data);
			return false;
		}
	}
	*out = t.data;
	*len = t.len;
	return true;
}

/* ---- numbers --------------------------------------------------------------- */

static size_t digits(parser *ps)
{
	const char *s = ps->p;
	while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
		ps->p++;
	return (size_t)(ps->p - s);
}

static bool parse_number(parser *ps, json_value *v)
{
	const char *s = ps->p;
	if (ps->p < ps->end && *ps->p == '-')
		ps->p++;
	if (ps->p < ps->end && *ps->p == '0')
		ps->p++;
	else if (!digits(ps))
		return fail(ps, "bad number");
	if (ps->p < ps->end && *ps->p == '.') {
		ps->p++;
		if (!digits(ps))
			return fail(ps, "bad fraction");
	}
	if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
		ps->p++;
		if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
			ps->p++;
		if (!digits(ps))
			return fail(ps, "bad exponent");
	}
	v->type = JSON_NUMBER;
	v->len = (size_t)(ps->p - s);
	v->text = malloc(v->len + 1);
	if (!v->text)
		return fail(ps, "out of memory");
	memcpy(v->text, s, v->len);
	v->text[v->len] = '\0';
	return true;
}

/* ---- arrays, objects, values ------------------------------------------------ */

static bool parse_value(parser *ps, json_value *v, int depth);

/* append a zeroed slot to a container; NULL on allocation failure */
static json_value *add_item(json_value *c, size_t *cap, bool with_key)
{
	if (c->count == *cap) {
		size_t ncap = *cap ? *cap * 2 : 8;
		json_value *items = realloc(c->items, ncap * sizeof(*items));
		if (!items)
			return NULL;
		c->items = items;
		if (with_key) {
			char **keys = realloc(c->keys, ncap * sizeof(*keys));
			if (!keys)
				return NULL;
			c->keys = keys;
		}
		*cap = ncap;
	}
	json_value *slot = &c->items[c->count];
	memset(slot, 0, sizeof(*slot));
	if (with_key)
		c->keys[c->count] = NULL;
	c->count++;
	return slot;
}

/* the members of [ ... ] or { ... }; the opening bracket is at ps->p */
static bool parse_container(parser *ps, json_value *v, int depth, bool object)
{
	char close = object ? '}' : ']';
	size_t cap = 0;
	v->type = object ? JSON_OBJECT : JSON_ARRAY;
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		return true;
	}
	for (;;) {
		json_value *slot = add_item(v, &cap, object);
		if (!slot)
			return fail(ps, "out of memory");
		if (object) {
			skip_ws(ps);
			size_t klen;
			if (ps->p >= ps->end || *ps->p != '"')
				return fail(ps, "expected a member name");
			if (!parse_string(ps, &v->keys[v->count - 1], &klen))
				return false;
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != ':')
				return fail(ps, "expected ':'");
			ps->p++;
		}
		if (!parse_value(ps, slot, depth + 1))
			return false;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close) {
			ps->p++;
			return true;
		}
		return fail(ps, object ? "expected ',' or '}'" : "expected ',' or ']'");
	}
}

static bool parse_value(parser *ps, json_value *v, int depth)
{
	if (depth > MAX_DEPTH)
		return fail(ps, "nesting too deep");
	skip_ws(ps);
	if (ps->p >= ps->end)
		return fail(ps, "unexpected end of input");
	switch (*ps->p) {
	case '{':
		return parse_container(ps, v, depth, true);
	case '[':
		return parse_container(ps, v, depth, false);
	case '"':
		v->type = JSON_STRING;
		return parse_string(ps, &v->text, &v->len);
	case 't':
		v->type = JSON_BOOL;
		v->boolean = true;
		return literal(ps, "true");
	case 'f':
		v->type = JSON_BOOL;
		return literal(ps, "false");
	case 'n':
		v->type = JSON_NULL;
		return literal(ps, "null");
	default:
		return parse_number(ps, v);
	}
}

static void free_members(json_value *v)
{
	for (size_t i = 0; i < v->count; i++) {
		free_members(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->text);
}

void json_free(json_value *v)
{
	if (!v)
		return;
	free_members(v);
	free(v);
}

json_value *json_parse(const char *src, size_t len, char *errbuf, size_t errlen)
{
	parser ps = {src, src, src + len, errbuf, errlen, false};
	json_value *v = calloc(1, sizeof(*v));
	if (!v) {
		fail(&ps, "out of memory");
		return NULL;
	}
	if (parse_value(&ps, v, 0)) {
		skip_ws(&ps);
		if (ps.p == ps.end)
			return v;
		fail(&ps, "trailing text");
	}
	json_free(v);
	return NULL;
}

json_value *json_parse_file(const char *path, char *errbuf, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		if (errbuf && errlen)
			snprintf(errbuf, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	text t = {NULL, 0, 0};
	char chunk[65536];
	size_t n;
	bool ok = true;
	while (ok && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		ok = text_add(&t, chunk, n);
	ok = ok && !ferror(f);
	fclose(f);
	if (!ok) {
		if (errbuf && errlen)
			snprintf(errbuf, errlen, "%s: read error or out of memory", path);
		free(t.data);
		return NULL;
	}
	json_value *v = json_parse(t.data ? t.data : "", t.len, errbuf, errlen);
	free(t.data);
	return v;
}

/* ---- access ---------------------------------------------------------------- */

const json_value *json_get(const json_value *v, const char *key)
{
	if (!v || v->type != JSON_OBJECT)
		return NULL;
	for (size_t i = 0; i < v->count; i++)
		if (strcmp(v->keys[i], key) == 0)
			return &v->items[i];
	return NULL;
}

const json_value *json_at(const json_value *v, size_t i)
{
	if (!v || v->type != JSON_ARRAY || i >= v->count)
		return NULL;
	return &v->items[i];
}

/* a number written as an integer: no fraction, no exponent */
static bool integral_text(const json_value *v)
{
	return v && v->type == JSON_NUMBER && !strpbrk(v->text, ".eE");
}

bool json_int64(const json_value *v, int64_t *out)
{
	if (!integral_text(v))
		return false;
	errno = 0;
	char *end;
	long long x = strtoll(v->text, &end, 10);
	if (errno || *end)
		return false;
	*out = x;
	return true;
}

bool json_uint64(const json_value *v, uint64_t *out)
{
	if (!integral_text(v) || v->text[0] == '-')
		return false;
	errno = 0;
	char *end;
	unsigned long long x = strtoull(v->text, &end, 10);
	if (errno || *end)
		return false;
	*out = x;
	return true;
}

bool json_double(const json_value *v, double *out)
{
	if (!v)
		return false;
	if (v->type == JSON_STRING) {
		if (strcmp(v->text, "NaN") == 0)
			*out = NAN;
		else if (strcmp(v->text, "Infinity") == 0)
			*out = INFINITY;
		else if (strcmp(v->text, "-Infinity") == 0)
			*out = -INFINITY;
		else
			return false;
		return true;
	}
	if (v->type != JSON_NUMBER)
		return false;
	char *end;
	*out = strtod(v->text, &end);
	return *end == '\0';
}

const char *json_string(const json_value *v)
{
	return v && v->type == JSON_STRING ? v->text : NULL;
}
