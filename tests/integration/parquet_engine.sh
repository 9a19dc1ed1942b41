#!/bin/bash
# parquet_engine.sh - the Parquet writer (src/parquet) read by a real
# engine: pq_sample writes tables of awkward values as Parquet and as CSV;
# DuckDB reads both and finds the same rows (EXCEPT ALL both ways, NaN and
# nulls included), the declared types (UBIGINT ids, BIGINT, DOUBLE,
# VARCHAR, TIMESTAMP WITH TIME ZONE, BOOLEAN), min/max statistics that
# hold every value of their chunk (an engine skips row groups by them:
# a point query on an id above 2^63 finds its rows) and the footer's
# key-value metadata.
#   parquet_engine.sh DARSHANFS DARSHANFS_CAT PQ_SAMPLE
NO_SHARED_LOGS=1
. "$(dirname "$0")/lib.sh"
SAMPLE=$1
use_duckdb

"$SAMPLE" "$TMP" || fail "pq_sample failed"
cases=$(cd "$TMP" && ls *.parquet | sed 's/\.parquet$//')
[ "$(echo "$cases" | wc -l)" -ge 7 ] || fail "pq_sample wrote too few cases: $cases"

types="{'id': 'UBIGINT', 'n': 'BIGINT', 'x': 'DOUBLE', 's': 'VARCHAR', 't': 'BIGINT', 'b': 'BOOLEAN', 'zero': 'BIGINT', 'nothing': 'DOUBLE', 'rank': 'BIGINT'}"
# One DuckDB process runs every check; each check is a row (name, result,
# expected result) of the last statement's output.
sql=()
checks=()
check() { checks+=("SELECT '$1' AS name, ($2)::VARCHAR AS got, '$3' AS want"); }
for c in $cases; do
	p=$TMP/$c.parquet e=$TMP/$c.csv
	sql+=(-c "CREATE TABLE \"p_$c\" AS SELECT id, n, x, s, epoch_us(t) AS t, b, zero, nothing, rank FROM '$p'"
	      -c "CREATE TABLE \"e_$c\" AS SELECT * FROM read_csv('$e', header = true, nullstr = 'NULL', quote = '\"', escape = '\"', columns = $types)")
	rows=$(($(python3 -c 'import csv,sys; print(sum(1 for _ in csv.reader(open(sys.argv[1], newline=""))))' "$e") - 1))
	check "$c: rows in the Parquet file" "SELECT count(*) FROM \"p_$c\"" "$rows"
	check "$c: rows only in the Parquet file" "SELECT count(*) FROM (SELECT * FROM \"p_$c\" EXCEPT ALL SELECT * FROM \"e_$c\")" 0
	check "$c: rows only in the CSV" "SELECT count(*) FROM (SELECT * FROM \"e_$c\" EXCEPT ALL SELECT * FROM \"p_$c\")" 0
	check "$c: NaN count" "SELECT (SELECT count(*) FROM \"p_$c\" WHERE isnan(x)) - (SELECT count(*) FROM \"e_$c\" WHERE isnan(x))" 0
done

# the declared types
check "types" "SELECT string_agg(column_name || ' ' || column_type, ', ') FROM (DESCRIBE SELECT * FROM '$TMP/one.parquet')" \
	"id UBIGINT, n BIGINT, x DOUBLE, s VARCHAR, t TIMESTAMP WITH TIME ZONE, b BOOLEAN, zero BIGINT, nothing DOUBLE, rank BIGINT"

# statistics: every chunk's min/max are its values' (the engine prunes
# row groups with them, so a wrong bound loses rows); point queries on
# ids, the largest uint64 among them, find every row of the CSV
for c in small_groups distinct distinct_groups few_values; do
	p=$TMP/$c.parquet
	check "$c: id statistics" "WITH v AS (SELECT id, file_row_number AS r FROM read_parquet('$p', file_row_number = true)),
		g AS (SELECT row_group_id, row_group_num_rows AS nr,
		             sum(row_group_num_rows) OVER (ORDER BY row_group_id) - row_group_num_rows AS first
		      FROM (SELECT DISTINCT row_group_id, row_group_num_rows FROM parquet_metadata('$p')))
		SELECT count(*) FROM parquet_metadata('$p') m JOIN g USING (row_group_id)
		WHERE m.path_in_schema = 'id' AND (
		  (SELECT min(id) FROM v WHERE r >= g.first AND r < g.first + g.nr) <> m.stats_min_value::UBIGINT OR
		  (SELECT max(id) FROM v WHERE r >= g.first AND r < g.first + g.nr) <> m.stats_max_value::UBIGINT)" 0
	check "$c: point queries on ids" "SELECT count(*) FROM (SELECT id, count(*) AS k FROM \"e_$c\" GROUP BY id ORDER BY hash(id) LIMIT 5) q
		WHERE q.k <> (SELECT count(*) FROM '$p' WHERE id = q.id) OR q.id = 18446744073709551615 AND q.k = 0" 0
	check "$c: the largest id" "SELECT (SELECT count(*) FROM '$p' WHERE id = 18446744073709551615) - (SELECT count(*) FROM \"e_$c\" WHERE id = 18446744073709551615)" 0
done

# the footer's key-value metadata
check "key-value metadata" "SELECT decode(value) FROM parquet_kv_metadata('$TMP/few_values.parquet') WHERE decode(key) = 'darshanfs_case'" few_values
# dictionaries where they pay, not where they do not
check "dictionaries used" "SELECT count(*) > 0 FROM parquet_metadata('$TMP/few_values.parquet') WHERE encodings LIKE '%RLE_DICTIONARY%'" true
check "no dictionary of distinct ids" "SELECT count(*) FROM parquet_metadata('$TMP/distinct.parquet') WHERE path_in_schema = 'id' AND encodings LIKE '%DICTIONARY%'" 0

union=$(printf '%s UNION ALL ' "${checks[@]}")
out=$(duckdb "${sql[@]}" -c "SELECT name, got, want FROM (${union% UNION ALL }) WHERE got IS DISTINCT FROM want") ||
	fail "duckdb: $out"
[ "$(echo "$out" | wc -l)" = 1 ] || fail "checks that failed (name, got, expected):
$(echo "$out" | tail -n +2)"
say "PASS: ${#checks[@]} checks over $(echo "$cases" | wc -w) tables"
