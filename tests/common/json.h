/* json.h - a small JSON reader for the tests: parses a whole document
 * (RFC 8259) into a tree, keeping each number's source text so it can be
 * read back exactly as an int64, a uint64 or a double.
 *
 * It exists to read the oracle files under shared/oracle (pydarshan's
 * accumulator results) and the JSON files darshanfs itself renders.  It is
 * not meant to be fast: objects are searched linearly. */
#ifndef DFS_TESTS_JSON_H
#define DFS_TESTS_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum json_type {
	JSON_NULL,
	JSON_BOOL,
	JSON_NUMBER,
	JSON_STRING,
	JSON_ARRAY,
	JSON_OBJECT,
} json_type;

typedef struct json_value json_value;

struct json_value {
	json_type type;
	bool boolean;        /* JSON_BOOL */
	char *text;          /* JSON_STRING: decoded (NUL-terminated, may hold
	                        NULs: see len); JSON_NUMBER: source text */
	size_t len;          /* length of text */
	size_t count;        /* JSON_ARRAY / JSON_OBJECT: number of members */
	json_value *items;   /* array elements / object member values */
	char **keys;         /* JSON_OBJECT: member names (decoded) */
};

/* Parse a whole document.  NULL on error, with a message (position and
 * reason) in `errbuf` when it is not NULL. */
json_value *json_parse(const char *text, size_t len, char *errbuf,
                       size_t errlen);
/* Read and parse a file. */
json_value *json_parse_file(const char *path, char *errbuf, size_t errlen);
void json_free(json_value *v);

/* Member of an object (the first one with that name), NULL if absent or
 * `v` is not an object. */
const json_value *json_get(const json_value *v, const char *key);
/* Element of an array, NULL if out of range or `v` is not an array. */
const json_value *json_at(const json_value *v, size_t i);

/* Typed reads; false if the value has another type or does not fit. */
bool json_int64(const json_value *v, int64_t *out);
bool json_uint64(const json_value *v, uint64_t *out);
/* A number, or the strings "NaN", "Infinity", "-Infinity". */
bool json_double(const json_value *v, double *out);
/* The decoded text of a string value, NULL for other types. */
const char *json_string(const json_value *v);

#endif
