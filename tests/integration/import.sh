#!/bin/bash
# import.sh - CSV import through the mount: rows of records.csv selected
# with python's csv module, with mlr and with sqlite3 (all columns, or only
# record_id and rank) and written back with
# `cp sel.csv MODULE/records.csv` select exactly those records:
# derived_metrics.json is byte-identical to the one of the equivalent
# `echo EXPR > filter`, records.csv reads back the filtered view's rows,
# `cat filter` says "# imported: N rows", and an empty filter returns to
# the log's records.  Bad CSVs (unknown column, no record_id or rank,
# non-numeric value, wrong number of fields, broken quoting) are refused
# (cp fails), change nothing, and filter.error names the line (and the
# column); a bad row fails the write() that carries it (python sees the
# error at that write, `sqlite3 ... | cat > records.csv` fails), not only
# close().  An empty file (cp, `: >`, mlr's output when no row passes)
# selects no record.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 is not installed"
command -v mlr >/dev/null || skip "mlr is not installed"

SRC=$TMP/src MNT=$TMP/mnt
make_tree "$SRC" "$LOGS"/dxt.darshan "$LOGS"/mpi-io-test-x86_64-3.5.0.darshan \
	"$LOGS"/snyder_ior-DFS_id4681120-53379_5-8-15060-3270540599978592154_1.darshan \
	"$LOGS"/imbalanced-io.darshan "$LOGS"/partial_data_stdio.darshan "$LOGS"/sample.darshan \
	"$LOGS"/mpi-io-test-ppc64-3.1.8.darshan
dfs_mount "$SRC" "$MNT"

# rows CSV: rows after the header (lines: no name in these logs holds a newline)
rows() {
	local lines
	mapfile -t lines <"$1"
	echo $((${#lines[@]} - 1))
}

# the unfiltered records.csv and derived_metrics.json of every module
# (ALL.N.csv, ALL.N.json), and python's selection of each (PY.N.csv), made
# by one python process for all modules: a python start costs more than
# the selection
mods=()
for rel in "${LOGREL[@]}"; do
	for mod in POSIX STDIO MPI-IO DFS; do
		d=$MNT/$rel/$mod
		[ -d "$d" ] || continue
		: >"$d/filter"
		cat "$d/records.csv" >"$TMP/all.${#mods[@]}.csv"
		cat "$d/derived_metrics.json" >"$TMP/all.${#mods[@]}.json"
		mods+=("$rel/$mod")
	done
done
# rank == 0, written with csv.writer (CRLF line ends)
python3 - "$TMP" "${#mods[@]}" <<'PY' || fail "python could not select rows (above)"
import csv, sys
for i in range(int(sys.argv[2])):
    rows = list(csv.reader(open(f"{sys.argv[1]}/all.{i}.csv", newline="")))
    rk = rows[0].index("rank")
    with open(f"{sys.argv[1]}/py.{i}.csv", "w", newline="") as f:
        csv.writer(f).writerows([rows[0]] + [r for r in rows[1:] if int(r[rk]) == 0])
PY

# select TOOL ALL.csv OUT.csv MODULE -> prints the equivalent filter
select_rows() {
	local tool=$1 all=$2 out=$3 mod=$4 rb=$RB
	case $tool in
	python)	# made above
		cp "$TMP/py.$MI.csv" "$out" || return 1
		echo "rank == 0" ;;
	mlr)
		t mlr --csv filter "\$$rb > 0" "$all" >"$out" || return 1
		echo "$rb > 0" ;;
	sqlite3)
		t sqlite3 :memory: ".import --csv '$all' t" ".mode csv" ".headers on" \
			"select * from t where cast(rank as integer) = -1 or cast($rb as integer) > 1048576" >"$out" || return 1
		echo "rank == -1 or $rb > 1048576" ;;
	sqlite3-ids)	# only the key columns: the rest comes from the log
		t sqlite3 :memory: ".import --csv '$all' t" ".mode csv" ".headers on" \
			"select record_id, rank from t where cast(rank as integer) <= 0" >"$out" || return 1
		echo "rank <= 0" ;;
	esac
	# mlr and sqlite3 print nothing at all for no rows: keep the header
	[ -s "$out" ] || head -1 "$all" >"$out"
}

nimp=0
for ((MI = 0; MI < ${#mods[@]}; MI++)); do
	rel=${mods[$MI]%/*} mod=${mods[$MI]##*/}
	d=$MNT/$rel/$mod
	cp "$TMP/all.$MI.csv" "$TMP/all.csv"
	cp "$TMP/all.$MI.json" "$TMP/all.json"
	# the first column named *_BYTES_READ
	IFS=, read -r -a cols <"$TMP/all.csv"
	RB=
	for c in "${cols[@]}"; do [[ $c == *_BYTES_READ ]] && { RB=$c; break; }; done
	for tool in python mlr sqlite3 sqlite3-ids; do
		select_rows $tool "$TMP/all.csv" "$TMP/sel.csv" "$mod" >"$TMP/expr" || fail "$tool could not select rows of $rel/$mod"
		slurp expr "$TMP/expr"
		n=$(rows "$TMP/sel.csv")
		t cp "$TMP/sel.csv" "$d/records.csv" 2>"$TMP/err" ||
			fail "cp of $n rows selected by $tool into $rel/$mod/records.csv failed: $(cat "$TMP/err") / $(cat "$d/filter.error")"
		import_equals_filter "$d" "$n" "$expr" \
			"$rel/$mod after importing $n rows selected by $tool" "$TMP/imp"
		[ "$(rows "$TMP/imp.csv")" = "$n" ] || fail "$rel/$mod: records.csv has $(rows "$TMP/imp.csv") rows after importing $n"
		: >"$d/filter"
		same_text "$TMP/all.csv" "$d/records.csv" || fail "$rel/$mod: records.csv after : > filter is not the log's records"
		same_text "$TMP/all.json" "$d/derived_metrics.json" || fail "$rel/$mod: derived_metrics.json after : > filter is not the log's"
		# an import followed by an empty filter also returns to the log's records
		t cp "$TMP/sel.csv" "$d/records.csv" || fail "second cp failed"
		( echo >"$d/filter" ) || fail "echo > filter failed"
		same_text "$TMP/all.csv" "$d/records.csv" || fail "$rel/$mod: an empty filter after an import is not the log's records"
		nimp=$((nimp + 1))
	done
	# importing every row (unchanged) gives the unfiltered results
	t cp "$TMP/all.csv" "$d/records.csv" || fail "cp of all rows into $rel/$mod/records.csv failed"
	same_selection "$TMP/all.json" "$d/derived_metrics.json" || fail "$rel/$mod: importing every row changes derived_metrics.json"
	: >"$d/filter"
done
say "ok: $nimp imports (python csv, mlr, sqlite3, sqlite3 with record_id,rank only) equal their filter expressions byte for byte"

# ---- bad CSVs change nothing and say where
BREL=${LOGREL[0]}/POSIX d=$MNT/${LOGREL[0]}/POSIX
cat "$d/records.csv" >"$TMP/all.csv"
python3 - "$TMP/all.csv" "$TMP" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
h, out = rows[0], sys.argv[2]
def w(name, rs=None, raw=None):
    with open(f"{out}/bad-{name}.csv", "w", newline="") as f:
        if raw is not None:
            f.write(raw)
        else:
            csv.writer(f, lineterminator="\n").writerows(rs)
w("unknown-column", [h[:5] + ["NO_SUCH_COUNTER"] + h[6:]] + rows[1:4])
w("no-rank", [r[:1] + r[2:] for r in rows[:4]])
w("no-record_id", [r[1:] for r in rows[:4]])
r = [list(x) for x in rows[:4]]; r[2][5] = "12abc"; w("non-numeric", r)
r = [list(x) for x in rows[:4]]; r[3][4] = "1.5"; w("fraction-in-integer", r)
r = [list(x) for x in rows[:4]]; r[3] = r[3][:-1]; w("too-few-fields", r)
r = [list(x) for x in rows[:4]]; r[2] = r[2] + ["7"]; w("too-many-fields", r)
lines = open(sys.argv[1], newline="").read().split("\n")
w("broken-quoting", raw="\n".join(lines[:2] + [lines[2].replace(",", ',"', 1)] + lines[3:5]) + "\n")
w("unterminated-quote", raw="\n".join(lines[:3]) + '\n"' + lines[3] + "\n")
w("binary", raw="\x00\x01\x02,\xff\n")
PY
t cp "$TMP/sel.csv" "$d/records.csv" 2>/dev/null || true
# start from an active import
python3 -c 'import sys; l = open(sys.argv[1]).read().split("\n"); sys.stdout.write("\n".join(l[:3]) + "\n")' "$TMP/all.csv" >"$TMP/two.csv"
t cp "$TMP/two.csv" "$d/records.csv" || fail "importing 2 rows failed"
cat "$d/records.csv" >"$TMP/before.csv"
cat "$d/derived_metrics.json" >"$TMP/before.json"
nbad=0
check_bad() {   # check_bad FILE NAME NEED_COLUMN
	if t cp "$1" "$d/records.csv" 2>"$TMP/err"; then
		fail "cp of a CSV with $2 into $BREL/records.csv succeeded"
	fi
	grep -q "Invalid argument" "$TMP/err" || fail "cp of a CSV with $2: '$(cat "$TMP/err")', not Invalid argument"
	[ "$(cat "$d/filter")" = "# imported: 2 rows" ] || fail "a CSV with $2 changed the filter to '$(cat "$d/filter")'"
	cmp -s "$TMP/before.csv" "$d/records.csv" || fail "a CSV with $2 changed records.csv"
	cmp -s "$TMP/before.json" "$d/derived_metrics.json" || fail "a CSV with $2 changed derived_metrics.json"
	local e
	e=$(cat "$d/filter.error")
	[ "$(printf '%s\n' "$e" | wc -l)" = 1 ] || fail "a CSV with $2: filter.error has more than one line: $e"
	printf '%s\n' "$e" | grep -Eq '^line [0-9]+' || fail "a CSV with $2: filter.error '$e' does not name the line"
	if [ "$3" = 1 ]; then
		printf '%s\n' "$e" | grep -Eq 'column [0-9]+' || fail "a CSV with $2: filter.error '$e' does not name the column"
	fi
	say "  refused $2: $e"
	nbad=$((nbad + 1))
}
check_bad "$TMP/bad-unknown-column.csv" "an unknown column" 1
check_bad "$TMP/bad-no-rank.csv" "no rank column" 0
check_bad "$TMP/bad-no-record_id.csv" "no record_id column" 0
check_bad "$TMP/bad-non-numeric.csv" "a non-numeric value" 1
check_bad "$TMP/bad-fraction-in-integer.csv" "1.5 in an integer counter" 1
check_bad "$TMP/bad-too-few-fields.csv" "a row with too few fields" 0
check_bad "$TMP/bad-too-many-fields.csv" "a row with too many fields" 0
check_bad "$TMP/bad-broken-quoting.csv" "a quote inside a field" 1
check_bad "$TMP/bad-unterminated-quote.csv" "an unterminated quote" 0
check_bad "$TMP/bad-binary.csv" "binary garbage" 0
t cp "$TMP/two.csv" "$d/records.csv" || fail "a good import after bad ones failed"
[ -s "$d/filter.error" ] && fail "filter.error is '$(cat "$d/filter.error")' after a good import"
say "ok: $nbad bad CSVs refused, nothing changed, filter.error names the line; a good import empties it"

# ---- records.csv of modules without fixed-size records takes no import:
# the open for writing fails with EINVAL and filter.error says why (the
# file is writable, so that the attempt reaches darshanfs)
nno=0
for rel in "${LOGREL[@]}"; do
	for x in "$MNT/$rel"/DXT_POSIX "$MNT/$rel"/DXT_MPIIO "$MNT/$rel"/LUSTRE "$MNT/$rel"/HEATMAP; do
		[ -d "$x" ] || continue
		m=${x##*/}
		case $(stat -c %A "$x/records.csv") in
		-rw-r--r--) ;;
		*) fail "${x#$MNT/}/records.csv has mode $(stat -c %A "$x/records.csv"), expected -rw-r--r--" ;;
		esac
		head -2 "$x/records.csv" >"$TMP/h.csv"
		out=$(t cp "$TMP/h.csv" "$x/records.csv" 2>&1) && fail "cp into ${x#$MNT/}/records.csv succeeded"
		case $out in
		*"Invalid argument"*) ;;
		*) fail "cp into ${x#$MNT/}/records.csv: '$out', expected Invalid argument (EINVAL)" ;;
		esac
		why=$(cat "$x/filter.error")
		kind=$m
		case $m in DXT_*) kind=DXT ;; esac
		case $why in
		"$m/records.csv takes no import: $kind takes filters, not imports"*) ;;
		*) fail "${x#$MNT/}/filter.error after an import: '$why'" ;;
		esac
		cmp -s "$TMP/h.csv" <(head -2 "$x/records.csv") || fail "a refused import changed ${x#$MNT/}/records.csv"
		nno=$((nno + 1))
	done
done
[ "$nno" -gt 2 ] || fail "only $nno DXT, LUSTRE or HEATMAP modules in the logs of this test"
say "ok: records.csv of $nno DXT, LUSTRE and HEATMAP modules refuses imports with EINVAL, filter.error says why"

# ---- -o import_limit: a larger CSV is refused and changes nothing
M2=$TMP/mnt-limit
dfs_mount "$SRC" "$M2" -o import_limit=4K
d2=$M2/${LOGREL[0]}/POSIX
[ "$(stat -c %s "$TMP/all.csv")" -gt 4096 ] || fail "records.csv is too small for the import_limit test"
t cp "$TMP/two.csv" "$d2/records.csv" || fail "a 2-row import under import_limit=4K failed"
cat "$d2/derived_metrics.json" >"$TMP/before.json"
t cp "$TMP/all.csv" "$d2/records.csv" 2>/dev/null && fail "a CSV over import_limit=4K was accepted"
[ "$(cat "$d2/filter")" = "# imported: 2 rows" ] || fail "a CSV over the import limit changed the filter"
cmp -s "$TMP/before.json" "$d2/derived_metrics.json" || fail "a CSV over the import limit changed derived_metrics.json"
say "ok: -o import_limit=4K refuses a $(stat -c %s "$TMP/all.csv")-byte CSV: $(cat "$d2/filter.error")"
dfs_umount "$M2"

# ---- a bad row fails the write() that carries it
t cp "$TMP/two.csv" "$d/records.csv" || fail "importing 2 rows failed"
python3 - "$TMP/all.csv" "$d/records.csv" <<'PY' || fail "a bad row was not refused at its write()"
import errno, os, sys
lines = open(sys.argv[1], newline="").read().split("\n")
bad = lines[3].split(",")
bad[4] = "oops"
rows = lines[:3] + [",".join(bad)] + lines[4:8]
fd = os.open(sys.argv[2], os.O_WRONLY | os.O_TRUNC)
try:
    for i, line in enumerate(rows):   # one write per line
        try:
            os.write(fd, (line + "\n").encode())
        except OSError as e:
            if e.errno != errno.EINVAL or i != 3:
                sys.exit(f"write of line {i + 1}: {e}")
            break
    else:
        sys.exit("every write succeeded")
finally:
    try:
        os.close(fd)
    except OSError as e:
        sys.exit(f"close after the refused write: {e}")
PY
[ "$(cat "$d/filter")" = "# imported: 2 rows" ] || fail "a CSV refused at write() changed the filter to '$(cat "$d/filter")'"
grep -q "^line 4, column 5" "$d/filter.error" || fail "filter.error is '$(cat "$d/filter.error")' after a bad line 4"
# sqlite3 (and mlr) ignore errors writing their standard output (they
# exit 0 even onto /dev/full): through cat the error shows
IDS=$(head -4 "$TMP/all.csv" | tail -3 | cut -d, -f1,2 | sed 's/^/select /; s/,/ as record_id, /; s/$/ as rank/' | paste -sd'|' | sed 's/|/ union all /g')
t sqlite3 -csv -header :memory: "select record_id, rank, NULL as POSIX_READS from ($IDS)" >"$TMP/null.csv" ||
	fail "sqlite3 could not select NULL as POSIX_READS"
if t sqlite3 -csv -header :memory: "select record_id, rank, NULL as POSIX_READS from ($IDS)" | t cat >"$d/records.csv" 2>"$TMP/err"; then
	fail "sqlite3 ... NULL as POSIX_READS | cat > records.csv succeeded"
fi
grep -q "Invalid argument" "$TMP/err" || fail "cat > records.csv of a NULL counter: '$(cat "$TMP/err")', not Invalid argument"
grep -q "^line 2, column 3 (POSIX_READS)" "$d/filter.error" || fail "filter.error is '$(cat "$d/filter.error")' after a NULL counter"
[ "$(cat "$d/filter")" = "# imported: 2 rows" ] || fail "a CSV with a NULL counter changed the filter to '$(cat "$d/filter")'"
cmp -s "$TMP/before.json" "$d/derived_metrics.json" || fail "a CSV with a NULL counter changed derived_metrics.json"
say "ok: a bad row fails its own write() (python, cat); the selection stays: $(cat "$d/filter.error")"

# ---- an empty file selects no record: cp, : >, and mlr with no row passing
: >"$TMP/empty.csv"
for how in cp truncate mlr; do
	t cp "$TMP/two.csv" "$d/records.csv" || fail "importing 2 rows failed"
	case $how in
	cp) t cp "$TMP/empty.csv" "$d/records.csv" || fail "cp of an empty file onto records.csv failed" ;;
	truncate) : >"$d/records.csv" || fail ": > records.csv failed" ;;
	mlr) (cd "$d" && t mlr --csv filter '$rank == -12345' "$TMP/all.csv" >records.csv) || fail "mlr filter with no row passing > records.csv failed" ;;
	esac
	[ "$(cat "$d/filter")" = "# imported: 0 rows" ] || fail "$how: an empty CSV leaves the filter '$(cat "$d/filter")'"
	[ -s "$d/filter.error" ] && fail "$how: filter.error is '$(cat "$d/filter.error")' after an empty CSV"
	# (none of the log's records)
	grep -q "^# darshanfs: 0 of $(rows "$TMP/all.csv") records selected" "$d/derived_metrics" ||
		fail "$how: derived_metrics after an empty CSV: $(grep '^# darshanfs' "$d/derived_metrics")"
	[ "$(rows "$d/records.csv")" = 0 ] || fail "$how: records.csv has rows after an empty CSV"
done
say "ok: an empty CSV (cp, : >, mlr with no row passing) selects no record"

dfs_alive "$MNT"
dfs_umount "$MNT"
say "PASS"
