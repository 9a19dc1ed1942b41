#!/bin/bash
# tools.sh - the CSV tools people reach for, run for real through one
# mount, the way the README tells to use them:
# - the README's mlr, sqlite3 and pandas examples, verbatim (read from
#   README.md); the sqlite3 one selects exactly what Miller selects;
# - pandas reads records.csv with record_id as uint64 and round-trip
#   doubles, filters rows and writes them back onto records.csv: the
#   selection holds exactly those rows, every value identical; record_id
#   written as the signed two's complement, as hex, or after a UTF-8 byte
#   order mark selects the same records;
# - sqlite3 selections (all columns, or the keys) written back work; a
#   table with INTEGER columns holds big ids as REAL, and that output is
#   refused;
# - a record_id turned into a double is refused with EINVAL (at write or
#   close), nothing changes, and filter.error says what to do; so is a
#   table pandas wrote with its row numbers (to_csv() without index=False).
# pandas checks are skipped (with a message) when no python has pandas.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 is not installed"
command -v mlr >/dev/null || skip "mlr is not installed"

PANDAS=""
for py in python3 /usr/bin/python3; do
	if "$py" -c 'import pandas' 2>/dev/null; then PANDAS=$py; break; fi
done

SRC=$TMP/src MNT=$TMP/mnt
make_tree "$SRC" "$LOGS"/imbalanced-io.darshan
dfs_mount "$SRC" "$MNT"
D=$MNT/${LOGREL[0]}/POSIX
README=$REPO/README.md

rows() { python3 -c 'import csv,sys; print(sum(1 for _ in csv.reader(open(sys.argv[1], newline=""))) - 1)' "$1"; }

# the records derived_metrics counts for the current selection
selected() {
	sed -n 's/^# darshanfs: \([0-9]*\) of [0-9]* records selected.*/\1/p' "$D/derived_metrics"
}

# "record_id,rank" of every row, sorted
keys() {
	python3 -c 'import csv,sys
r = csv.reader(open(sys.argv[1], newline="", encoding="utf-8-sig"))
h = next(r); i, k = h.index("record_id"), h.index("rank")
print("\n".join(sorted("%s,%s" % (x[i], x[k]) for x in r)))' "$1"
}

reset() {
	: >"$D/filter" || fail "could not clear $D/filter"
}

# the README's example line of the "Any CSV tool" section that starts with $1
readme_example() {
	awk -v tool="$1" '/^### Any CSV tool/ { on = 1 } on && /^## / { on = 0 }
		on && index($0, tool " ") == 1 { print; exit }' "$README"
}

# run a README example in the module directory, its /tmp/sel.csv in $TMP
run_example() {
	local line
	line=$(readme_example "$1")
	[ -n "$line" ] || fail "no '$1' example in the README's 'Any CSV tool' section"
	line=${line//\/tmp\/sel.csv/$TMP/sel.csv}
	(cd "$D" && t bash -c "$line") 2>"$TMP/err" ||
		fail "the README's $1 example failed: $line: $(cat "$TMP/err")"
}

# import FILE: cp it onto records.csv; the selection is its rows
import_ok() {
	local what=$1 file=$2 n
	n=$(rows "$file")
	t cp "$file" "$D/records.csv" 2>"$TMP/err" ||
		fail "$what: cp of $n rows onto records.csv failed: $(cat "$TMP/err") / $(cat "$D/filter.error")"
	[ -s "$D/filter.error" ] && fail "$what: filter.error is '$(cat "$D/filter.error")'"
	[ "$(selected)" = "$n" ] ||
		fail "$what: derived_metrics selects $(selected) records after importing $n rows"
	t cat "$D/records.csv" >"$TMP/back.csv" || fail "$what: cannot read records.csv back"
	[ "$(keys "$TMP/back.csv")" = "$(keys "$file")" ] ||
		fail "$what: records.csv does not hold the imported records"
}

reset
t cat "$D/records.csv" >"$TMP/all.csv" || fail "cannot read $D/records.csv"
total=$(rows "$TMP/all.csv")
[ "$(selected)" = "$total" ] || fail "derived_metrics does not count all $total records"

# ---- the README's examples, verbatim ---------------------------------------
start=$(now)
run_example sqlite3
t mlr --csv filter '$POSIX_READS > 100' "$TMP/all.csv" >"$TMP/mlr.csv" || fail "mlr failed"
n=$(rows "$TMP/mlr.csv")
[ "$n" -gt 0 ] && [ "$n" -lt "$total" ] || fail "mlr selects $n of $total rows: not a test"
[ "$(keys "$TMP/sel.csv")" = "$(keys "$TMP/mlr.csv")" ] ||
	fail "the README's sqlite3 example selects $(rows "$TMP/sel.csv") rows, Miller $n"
import_ok "the README's sqlite3 example" "$TMP/sel.csv"
reset
# the text comparison the README used to show does select other rows
t sqlite3 -csv -header :memory: ".import --csv $TMP/all.csv r" \
	'select * from r where POSIX_READS > 100' >"$TMP/text.csv" || fail "sqlite3 failed"
[ "$(rows "$TMP/text.csv")" -gt "$n" ] ||
	fail "sqlite3's text comparison no longer differs: the README's CAST is untested"
say "ok: the README's sqlite3 example selects Miller's $n rows and imports ($(elapsed "$start") s)"

start=$(now)
run_example mlr     # it copies its selection onto records.csv itself
t mlr --csv filter '$rank == 0' "$TMP/all.csv" >"$TMP/mlr0.csv" || fail "mlr failed"
n=$(rows "$TMP/mlr0.csv")
[ "$(selected)" = "$n" ] || fail "the README's mlr example: $(selected) records selected, $n rows written"
reset
if [ -n "$PANDAS" ]; then
	PATH=$(dirname "$PANDAS"):$PATH run_example python3
	[ "$(keys "$TMP/sel.csv")" = "$(keys "$TMP/mlr0.csv")" ] ||
		fail "the README's pandas example selects other rows than mlr's \$rank == 0"
	import_ok "the README's pandas example" "$TMP/sel.csv"
	reset
fi
say "ok: the README's mlr${PANDAS:+ and pandas} examples select rank 0 ($n rows) ($(elapsed "$start") s)"

# ---- pandas straight onto records.csv ----------------------------------------
if [ -n "$PANDAS" ]; then
	start=$(now)
	# form: how record_id is written; prints the number of rows written
	pandas_write() {
		t "$PANDAS" - "$D/records.csv" "$1" <<'PY'
import sys
import pandas as pd
path, form = sys.argv[1], sys.argv[2]
df = pd.read_csv(path, dtype={"record_id": "uint64"}, float_precision="round_trip")
sel = df[(df["rank"] == 0) & (df["POSIX_BYTES_WRITTEN"] > 0) | (df["rank"] % 7 == 3)].copy()
enc = "utf-8"
if form == "signed":
    sel["record_id"] = sel["record_id"].astype("int64")    # wraps, as C does
    assert (sel["record_id"] < 0).any(), "no id above 2^63-1: not a test"
elif form == "hex":
    sel["record_id"] = sel["record_id"].map(hex)
elif form == "bom":
    enc = "utf-8-sig"
sel.to_csv(path, index=False, encoding=enc)
print(len(sel))
PY
	}
	for form in plain signed hex bom; do
		reset
		n=$(pandas_write $form) || fail "pandas could not write records.csv ($form)"
		[ -s "$D/filter.error" ] && fail "pandas ($form): filter.error is '$(cat "$D/filter.error")'"
		[ "$n" -gt 0 ] && [ "$n" -lt "$total" ] || fail "pandas ($form) wrote $n of $total rows: not a test"
		[ "$(selected)" = "$n" ] ||
			fail "pandas ($form): derived_metrics selects $(selected) records, pandas wrote $n rows"
		[ "$(cat "$D/filter")" = "# imported: $n rows" ] ||
			fail "pandas ($form): filter says '$(cat "$D/filter")'"
	done
	# every value read back is the one pandas held (doubles to the bit)
	reset
	t "$PANDAS" - "$D/records.csv" "$TMP/want.pkl" <<'PY' || fail "pandas could not write records.csv"
import sys
import pandas as pd
kw = dict(dtype={"record_id": "uint64"}, float_precision="round_trip")
df = pd.read_csv(sys.argv[1], **kw)
sel = df[df["POSIX_F_WRITE_TIME"] > 0]
sel.to_csv(sys.argv[1], index=False)
sel.reset_index(drop=True).to_pickle(sys.argv[2])
PY
	t "$PANDAS" - "$D/records.csv" "$TMP/want.pkl" <<'PY' || fail "pandas: records.csv does not read back what pandas wrote"
import sys
import pandas as pd
want = pd.read_pickle(sys.argv[2])
got = pd.read_csv(sys.argv[1], dtype={"record_id": "uint64"}, float_precision="round_trip")
got = got.sort_values(["record_id", "rank"]).reset_index(drop=True)
want = want.sort_values(["record_id", "rank"]).reset_index(drop=True)
assert len(got) == len(want) > 0, (len(got), len(want))
pd.testing.assert_frame_equal(got, want, check_exact=True)
PY
	say "ok: pandas (uint64, round_trip) writes rows onto records.csv, as unsigned, signed, hex or after a BOM: the selection is those rows, every value exact ($(elapsed "$start") s)"
	# to_csv() without index=False: the row numbers come first, under no
	# name; read back from such a file, that column is "Unnamed: 0"
	start=$(now)
	reset
	before=$(selected)
	for form in index unnamed; do
		out=$(t "$PANDAS" - "$D/records.csv" "$form" "$TMP/indexed.csv" <<'PY'
import sys
import pandas as pd
path, form, tmp = sys.argv[1:]
df = pd.read_csv(path, dtype={"record_id": "uint64"}, float_precision="round_trip")
sel = df[df["rank"] == 0]
try:
    if form == "index":
        sel.to_csv(path)
    else:
        sel.to_csv(tmp)
        pd.read_csv(tmp, dtype={"record_id": "uint64"}).to_csv(path, index=False)
except OSError as e:
    print("refused: errno %d" % e.errno)
    sys.exit(0)
print("accepted")
PY
) || fail "pandas ($form) failed"
		[ "$out" = "refused: errno 22" ] || fail "pandas to_csv ($form): $out, not EINVAL"
		case $form in
		index) want="line 1, column 1: a column without a name (pandas' to_csv() writes its row numbers first, under no name, unless told index=False: write the table with index=False, or drop that column)" ;;
		unnamed) want="line 1, column 1: unknown column 'Unnamed: 0' for POSIX (pandas names so a column that had no name: the row numbers an earlier to_csv() wrote without index=False; read that file with index_col=0, or drop the column)" ;;
		esac
		[ "$(cat "$D/filter.error")" = "$want" ] ||
			fail "pandas to_csv ($form): filter.error is '$(cat "$D/filter.error")'"
		[ "$(selected)" = "$before" ] || fail "pandas to_csv ($form): the refused import changed the selection"
	done
	say "ok: pandas' to_csv() without index=False is refused, filter.error names the cause ($(elapsed "$start") s)"
else
	say "SKIP (part): no python3 with pandas (Debian: python3-pandas)"
fi

# ---- sqlite3 subsets written back --------------------------------------------
start=$(now)
reset
t sqlite3 -csv -header :memory: ".import --csv $TMP/all.csv r" \
	'select * from r where cast(rank as integer) = 0 and cast(POSIX_BYTES_READ as integer) > 0' \
	>"$TMP/sub.csv" || fail "sqlite3 failed"
import_ok "sqlite3 select *" "$TMP/sub.csv"
reset
t sqlite3 -csv -header :memory: ".import --csv $TMP/all.csv r" \
	'select record_id, rank from r where cast(POSIX_WRITES as integer) > cast(POSIX_READS as integer)' \
	>"$TMP/ids.csv" || fail "sqlite3 failed"
import_ok "sqlite3 select record_id, rank" "$TMP/ids.csv"
say "ok: sqlite3 subsets (all columns, or the keys) written back select their rows ($(elapsed "$start") s)"

# ---- doubles for record ids are refused ---------------------------------------
start=$(now)
reset
before=$(selected)
# write FILE onto records.csv with os.write and os.close: prints the errno
# name of the first call that fails, or "ok"
raw_write() {
	t python3 - "$1" "$D/records.csv" <<'PY'
import errno, os, sys
data = open(sys.argv[1], "rb").read()
fd = os.open(sys.argv[2], os.O_WRONLY | os.O_TRUNC)
try:
    for i in range(0, len(data), 65536):
        os.write(fd, data[i:i + 65536])
except OSError as e:
    print(errno.errorcode[e.errno]); os.close(fd); sys.exit(0)
try:
    os.close(fd)
except OSError as e:
    print(errno.errorcode[e.errno]); sys.exit(0)
print("ok")
PY
}
refused() {   # what FILE
	local what=$1 file=$2 got
	got=$(raw_write "$file") || fail "$what: the writer failed"
	[ "$got" = EINVAL ] || fail "$what: writing it onto records.csv gave $got, not EINVAL"
	grep -q "record_id: [-+0-9.e]* is not an exact integer; read record_id as an unsigned 64-bit integer (DuckDB types={'record_id':'UBIGINT'}, pandas dtype={'record_id':'uint64'})" \
		"$D/filter.error" || fail "$what: filter.error is '$(cat "$D/filter.error")'"
	[ "$(selected)" = "$before" ] || fail "$what: the refused import changed the selection"
	[ "$(cat "$D/filter")" = "" ] || fail "$what: filter says '$(cat "$D/filter")' after a refused import"
}
if [ -n "$PANDAS" ]; then
	t "$PANDAS" - "$TMP/all.csv" "$TMP/float.csv" <<'PY' || fail "pandas failed"
import sys
import pandas as pd
df = pd.read_csv(sys.argv[1], dtype={"record_id": "uint64"}, float_precision="round_trip")
sel = df[df["rank"] == 0].copy()
sel["record_id"] = sel["record_id"].astype("float64")   # what DuckDB's auto types do
sel.to_csv(sys.argv[2], index=False)
PY
	refused "pandas, record_id as float64" "$TMP/float.csv"
fi
# sqlite3 with typed columns: ids above 2^63-1 become REAL
t sqlite3 -csv -header :memory: 'create table r (record_id integer, rank integer)' \
	".import --csv $TMP/all.csv tmp" \
	'insert into r select record_id, rank from tmp' \
	"select typeof(record_id) as type, count(*) as n from r group by type order by type" >"$TMP/types.csv" ||
	fail "sqlite3 failed"
grep -q '^real,[1-9]' "$TMP/types.csv" ||
	fail "sqlite3 holds big ids as $(tr '\n' ' ' <"$TMP/types.csv"): expected some REAL"
t sqlite3 -csv -header :memory: 'create table r (record_id integer, rank integer)' \
	".import --csv $TMP/all.csv tmp" \
	'insert into r select record_id, rank from tmp' \
	'select record_id, rank from r' >"$TMP/real.csv" || fail "sqlite3 failed"
grep -q 'e+19,' "$TMP/real.csv" || fail "sqlite3 printed no REAL record id"
refused "sqlite3 INTEGER column" "$TMP/real.csv"
t cp "$TMP/real.csv" "$D/records.csv" 2>/dev/null && fail "cp of REAL record ids onto records.csv succeeded"
say "ok: record ids that went through a double (pandas float64, sqlite3 REAL) are refused with EINVAL and the fix in filter.error ($(elapsed "$start") s)"

reset
dfs_alive "$MNT"
dfs_umount "$MNT"
say "ok: all checks"
