#!/bin/bash
# parquet.sh - the Parquet twins of a log's tables, read by DuckDB through
# one mount of every shared log:
# - every records.parquet, total.parquet, names.parquet and mounts.parquet
#   holds the rows of its CSV, value for value (DuckDB loads the CSV into a
#   table of the Parquet file's types: the same rows, counted and hashed), with
#   exact types: record ids UBIGINT (no rounding above 2^53), counters
#   BIGINT, float counters DOUBLE, text VARCHAR;
# - a filter changes records.parquet as it changes records.csv, and its
#   footer's key-value metadata names it (darshanfs.selection) as the
#   attribute user.darshanfs.selection does;
# - one glob with union_by_name reads the POSIX records of the whole tree;
# - schema.json gives the twins' types, as DuckDB reads them;
# - st_size is the bytes a read gives, reads at any offset agree (dd);
# - writing a .parquet file is refused (EACCES) and filter.error says why;
# - a damaged log gives EIO, never a short file.
. "$(dirname "$0")/lib.sh"
use_duckdb

SRC=$TMP/src MNT=$TMP/mnt
make_tree "$SRC"
dfs_mount "$SRC" "$MNT"

# One DuckDB process compares them all, a table of every log at once per
# kind of table (the columns of a module's table are the same in every
# log): the CSVs are loaded into an empty table made from the Parquet
# files (their types), and the rows of each that the other lacks are
# counted.  The files are listed once (one walk of the tree, not one glob
# per table).
find "$MNT" -name '*.parquet' >"$TMP/parquet.list" || fail "cannot walk the mount"
# (with DFS_TEST_QUICK=1, the sanitizer build's run, one file in four)
declare -A files
n=0
while IFS= read -r p; do
	n=$((n + 1))
	[ "${DFS_TEST_QUICK:-0}" = 1 ] && [ $((n % 4)) != 0 ] && case $p in */names.parquet) ;; *) continue ;; esac
	b=${p##*/} d=${p%/*}
	case $d in
	*.darshan) key=${b%.parquet} ;;
	*) case ${d%/*} in *.darshan) key=${d##*/}/${b%.parquet} ;; *) continue ;; esac ;;
	esac
	files[$key]+=${p%.parquet}$'\n'
done <"$TMP/parquet.list"
modules=$(printf '%s\n' "${!files[@]}" | sed -n 's,/records$,,p' | sort)
[ "$(echo "$modules" | wc -w)" -ge 12 ] || fail "only these modules have records.parquet: $modules"
sql=(-c "CREATE TABLE bad (tbl VARCHAR, nparquet BIGINT, ncsv BIGINT, hparquet HUGEINT, hcsv HUGEINT)")
i=0
compare() {   # compare NAME FILE... (each without .parquet / .csv)
	local name=${1//\'/\'\'} f pq= csv=
	shift
	i=$((i + 1))
	for f; do
		f=${f//\'/\'\'}
		pq+="${pq:+, }'$f.parquet'" csv+="${csv:+, }'$f.csv'"
	done
	# the CSV's text is cast to the Parquet file's types, column by column
	sql+=(-c "CREATE TABLE p$i AS FROM read_parquet([$pq])" -c "CREATE TABLE c$i AS FROM p$i LIMIT 0"
	      -c "INSERT INTO c$i SELECT * FROM read_csv([$csv], delim=',', quote='\"', escape='\"',
	                                             header=true, all_varchar=true, nullstr='')")
	# the same multiset of rows: the same count and the same sum of the
	# rows' hashes (EXCEPT ALL would say the same, many times slower on
	# the wide and long tables)
	sql+=(-c "INSERT INTO bad SELECT '$name', (SELECT count(*) FROM p$i), (SELECT count(*) FROM c$i),
	                                 (SELECT sum(hash(t)::HUGEINT) FROM p$i t), (SELECT sum(hash(t)::HUGEINT) FROM c$i t)"
	      -c "DROP TABLE p$i" -c "DROP TABLE c$i")
}
kinds=0
for key in $(printf '%s\n' "${!files[@]}" | sort); do
	mapfile -t list < <(printf '%s' "${files[$key]}")
	compare "$key" "${list[@]}"
	kinds=$((kinds + 1))
done
for want in names mounts insights POSIX/records POSIX/files POSIX/ranks POSIX/total MPI-IO/records; do
	[ -n "${files[$want]:-}" ] || fail "no log has $want.parquet"
done
# the directories' tables, one directory at a time (a table of a
# directory holds those below it too), and the root's selections
echo 'rank >= 0' >"$MNT/2026/filter"
for d in "$MNT" "$MNT/2026" "$MNT/2026/11/29" "$MNT/2024/project x"; do
	for tb in jobs modules insights files; do
		compare "${d#$MNT}/$tb" "$d/$tb"
	done
done
compare selections "$MNT/selections"
out=$(T=900 t duckdb "${sql[@]}" -c "SELECT * FROM bad WHERE nparquet <> ncsv OR hparquet IS DISTINCT FROM hcsv OR (ncsv = 0 AND $((${DFS_TEST_QUICK:-0} != 1)) = 1)" 2>"$TMP/duckdb.err") ||
	fail "duckdb: $out $(cat "$TMP/duckdb.err")"
[ "$(echo "$out" | wc -l)" = 1 ] || fail "Parquet tables whose rows differ from their CSV's:
$(echo "$out" | tail -n +2)"
say "$i kinds of table ($kinds of the logs: names, mounts, insights, the records, totals, files and ranks of $(echo "$modules" | wc -w) modules; directories' tables; selections) hold their CSV's rows"
: >"$MNT/2026/filter"

# schema.json names each directory table's twin and its columns' types
# there, which are those DuckDB reads from the twin
for tb in jobs modules insights files; do
	duckdb -c "SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM '$MNT/$tb.parquet')" >"$TMP/describe.csv" ||
		fail "DuckDB cannot describe $tb.parquet"
	python3 - "$MNT/schema.json" "$tb" "$TMP/describe.csv" <<'PY' || fail "schema.json and $tb.parquet disagree (above)"
import csv, json, sys
t = json.load(open(sys.argv[1]))["tables"][sys.argv[2] + ".csv"]
assert t["parquet_twin"] == sys.argv[2] + ".parquet", t["parquet_twin"]
said = {c["name"]: c["parquet"] for c in t["columns"]}
read = {r["column_name"]: r["column_type"] for r in csv.DictReader(open(sys.argv[3]))}
duck = {"INT64": "BIGINT", "UINT64": "UBIGINT", "DOUBLE": "DOUBLE", "STRING": "VARCHAR"}
assert list(said) == list(read), (list(said), list(read))
for name, ty in said.items():
    ok = read[name].startswith("TIMESTAMP") if ty == "TIMESTAMP" else duck.get(ty) == read[name]
    if not ok:
        sys.exit(f"{sys.argv[2]}.parquet: {name} is {read[name]}, schema.json says {ty}")
PY
done

# the same bytes each time: a twin read through the mount is the one
# darshanfs-cat (another process) writes, for every records.parquet and
# files.parquet of every log (a table's size is told before it is read,
# and it is rendered again after the cache drops it); one in three (one
# in twelve with DFS_TEST_QUICK=1: darshanfs-cat is slow under ASan)
n=0 k=0 every=3
[ "${DFS_TEST_QUICK:-0}" = 1 ] && every=12
for key in "${!files[@]}"; do
	case $key in */records | */files) ;; *) continue ;; esac
	while IFS= read -r f; do
		[ -n "$f" ] || continue
		k=$((k + 1))
		[ $((k % every)) = 0 ] || continue
		rel=${f#$MNT/} log=${rel%%.darshan/*}.darshan
		cmp -s "$f.parquet" <(ref "$SRC/$log" "${rel#$log/}.parquet") ||
			fail "$rel.parquet differs from darshanfs-cat's"
		n=$((n + 1))
	done <<<"${files[$key]}"
done
[ "$n" -gt 10 ] || fail "only $n tables compared with darshanfs-cat's"
say "$n tables are the same bytes as darshanfs-cat's"

# types: a POSIX table as declared, ids above 2^63 exact
L=$MNT/${LOGREL[0]}
for l in "${LOGREL[@]}"; do [ -e "$MNT/$l/POSIX/records.parquet" ] && { L=$MNT/$l; break; }; done
types=$(duckdb -c "SELECT column_name || ' ' || column_type FROM (DESCRIBE FROM '$L/POSIX/records.parquet')" | tail -n +2)
for want in 'record_id UBIGINT' 'rank BIGINT' 'POSIX_READS BIGINT' 'POSIX_F_READ_TIME DOUBLE' 'file_name VARCHAR'; do
	grep -qx "$want" <<<"$types" || fail "records.parquet: no column '$want' in: $types"
done
names=$(printf '%s' "${files[names]}" | sed "s/'/''/g; s/.*/'&.parquet'/" | paste -sd,)
big=$(duckdb -c "SELECT count(*) FROM read_parquet([$names]) WHERE record_id > 9223372036854775807" | tail -1)
[ "$big" -gt 0 ] || fail "no record id above 2^63 in the names of the shared logs"
miss=$(python3 - "$MNT" "$names" "${LOGREL[@]}" <<'PY'
import csv, subprocess, sys
mnt, names, logs = sys.argv[1], sys.argv[2], sys.argv[3:]
ids = set()
for l in logs:
    try:
        with open(f"{mnt}/{l}/names.csv", newline="") as f:
            ids |= {int(r["record_id"]) for r in csv.DictReader(f)}
    except OSError:
        pass
out = subprocess.run(["duckdb", "-c", f"SELECT record_id FROM read_parquet([{names}])"],
                     capture_output=True, text=True, check=True).stdout.split()[1:]
print(len(ids ^ {int(x) for x in out}))
PY
) || fail "comparing record ids"
[ "$miss" = 0 ] || fail "$miss record ids differ between names.csv and names.parquet"

# one glob over the tree, union_by_name (with DFS_TEST_QUICK=1 over 2025/,
# a quarter of the logs in many directories: the sanitizers are on every
# twin in integration-read)
top=$MNT
[ "${DFS_TEST_QUICK:-0}" = 1 ] && top=$MNT/2025
g=$(duckdb -c "SELECT count(*), count(DISTINCT filename) FROM read_parquet('$top/**/POSIX/records.parquet', union_by_name = true, filename = true)" | tail -1)
want=$(python3 - "$top" <<'PY'
import csv, os, sys
n = 0
for d, dirs, files in os.walk(sys.argv[1]):
    if os.path.basename(d) == "POSIX" and "records.csv" in files:
        with open(os.path.join(d, "records.csv"), newline="") as f:
            n += sum(1 for _ in csv.reader(f)) - 1
print(n)
PY
)
[ "${g%,*}" = "$want" ] || fail "the glob read ${g%,*} POSIX rows, the CSVs hold $want"

# a filter changes records.parquet like records.csv
echo 'POSIX_READS > 0' >"$L/POSIX/filter" || fail "cannot write a filter"
a=$(duckdb -c "SELECT count(*), sum(POSIX_READS) FROM '$L/POSIX/records.parquet'" | tail -1)
b=$(python3 -c 'import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); print(len(r), sum(int(x["POSIX_READS"]) for x in r), sep=",")' "$L/POSIX/records.csv")
[ "$a" = "$b" ] || fail "filtered: records.parquet has $a, records.csv $b (rows, reads)"
# the footer names the filters in force as the attribute does, on
# records.parquet (written from the records) and files.parquet (from its
# CSV)
for t in records files; do
	kv=$(duckdb -c "SELECT decode(value) FROM parquet_kv_metadata('$L/POSIX/$t.parquet') WHERE decode(key) = 'darshanfs.selection'" | tail -1)
	attr=$(getfattr --only-values -n user.darshanfs.selection "$L/POSIX/$t.parquet")
	[ -n "$attr" ] && [ "$kv" = "$attr" ] ||
		fail "$t.parquet: the footer's darshanfs.selection is '$kv', its attribute '$attr'"
done
: >"$L/POSIX/filter"

# st_size and reads at any offset
f=$L/POSIX/records.parquet
size=$(stat -c %s "$f")
[ "$(wc -c <"$f")" = "$size" ] || fail "$f: st_size $size, but a read gives $(wc -c <"$f") bytes"
[ "$(head -c 4 "$f")" = PAR1 ] && [ "$(tail -c 4 "$f")" = PAR1 ] || fail "$f does not open and end with PAR1"
cmp <(dd if="$f" bs=7 skip=3 count=100 2>/dev/null) <(tail -c +22 "$f" | head -c 700) ||
	fail "$f: a read at an offset differs from the same bytes read in order"

# writing is refused, and filter.error says why
if { echo x >"$f"; } 2>"$TMP/err"; then fail "writing records.parquet succeeded"; fi
grep -q 'Permission denied' "$TMP/err" || fail "writing records.parquet: $(cat "$TMP/err"), expected EACCES"
grep -q 'records.parquet is read-only' "$L/POSIX/filter.error" ||
	fail "filter.error after a write to records.parquet: $(cat "$L/POSIX/filter.error")"
if echo x >"$L/names.parquet" 2>/dev/null; then fail "writing names.parquet succeeded"; fi
grep -q 'names.parquet is read-only' "$L/filter.error" || fail "log filter.error: $(cat "$L/filter.error")"

# a damaged log (cut in its middle, mounted alone): EIO, never a shorter
# file; a module before the cut reads whole
head -c $(($(stat -c %s "$LOGS/dxt.darshan") / 2)) "$LOGS/dxt.darshan" >"$TMP/cut.darshan"
dfs_mount "$TMP/cut.darshan" "$TMP/cut"
n=0
for f in "$TMP"/cut/*/records.parquet; do
	[ -e "$f" ] || continue
	n=$((n + 1))
	if cat "$f" >/dev/null 2>"$TMP/err"; then
		t duckdb -c "SELECT count(*) FROM '$f'" >/dev/null || fail "$f reads, but DuckDB cannot read it"
	else
		grep -q 'Input/output error' "$TMP/err" || fail "$f: $(cat "$TMP/err"), expected EIO"
	fi
done
[ "$n" -gt 0 ] || fail "the cut log shows no records.parquet"
dfs_alive "$TMP/cut"

# The twins of a directory, of the root and of a whole log name in their
# footer (darshanfs.selection) the filters in force on them, as their
# attribute user.darshanfs.selection does: with a directory filter above
# the log, a log filter and a module filter, each names them all; names
# and mounts follow no filter and have neither.
D=${L%/*}
echo 'rank >= -1' >"$D/filter" || fail "cannot write the filter of ${D#"$MNT"/}"
echo 'rank >= -2' >"$L/filter" || fail "cannot write the filter of ${L#"$MNT"/}"
echo 'POSIX_READS >= 0' >"$L/POSIX/filter" || fail "cannot write a module filter"
named=("$L/insights.parquet" "$D/jobs.parquet" "$D/modules.parquet" "$D/insights.parquet"
       "$D/files.parquet" "$MNT/selections.parquet")
unnamed=("$L/names.parquet" "$L/mounts.parquet")
all=("${named[@]}" "${unnamed[@]}") vals= list=
for ((k = 0; k < ${#all[@]}; k++)); do
	f=${all[k]//\'/\'\'}
	vals+="${vals:+, }($k, '$f')" list+="${list:+, }'$f'"
done
duckdb -c "WITH f(i, p) AS (VALUES $vals)
           SELECT coalesce(replace(decode(k.value), chr(10), ' '), '(none)') FROM f
           LEFT JOIN parquet_kv_metadata([$list]) k
                  ON k.file_name = f.p AND decode(k.key) = 'darshanfs.selection'
           ORDER BY f.i" >"$TMP/kv" || fail "DuckDB cannot read the footers: $(cat "$TMP/kv")"
mapfile -t kv < <(tail -n +2 "$TMP/kv")
[ "${#kv[@]}" = "${#all[@]}" ] || fail "DuckDB gave ${#kv[@]} footers for ${#all[@]} files"
for ((k = 0; k < ${#named[@]}; k++)); do
	f=${named[k]}
	attr=$(getfattr --only-values -n user.darshanfs.selection "$f") ||
		fail "${f#"$MNT"/} has no attribute user.darshanfs.selection"
	case $attr in
	*"${D#"$MNT"/}/filter: rank >= -1"*"POSIX/filter: POSIX_READS >= 0"*) ;;
	*) fail "${f#"$MNT"/}: the attribute names the wrong filters: '$attr'" ;;
	esac
	[ "${kv[k]}" = "$attr" ] ||
		fail "${f#"$MNT"/}: the footer's darshanfs.selection is '${kv[k]}', its attribute '$attr'"
done
for ((k = ${#named[@]}; k < ${#all[@]}; k++)); do
	[ "${kv[k]}" = "(none)" ] || fail "${all[k]#"$MNT"/}: a footer names filters: '${kv[k]}'"
	if getfattr -n user.darshanfs.selection "${all[k]}" >/dev/null 2>&1; then
		fail "${all[k]#"$MNT"/} has an attribute user.darshanfs.selection"
	fi
done
: >"$D/filter"
: >"$L/filter"
: >"$L/POSIX/filter"
dfs_alive "$MNT"
say "PASS"
