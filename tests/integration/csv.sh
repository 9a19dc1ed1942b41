#!/bin/bash
# csv.sh - the CSV files of the mount are valid CSV for real CSV readers:
# sqlite3 (.import --csv), mlr (--icsv --ojson) and python's csv module
# read every records.csv, total.csv, names.csv and mounts.csv of every log
# with the same number of rows; for fixed-size record modules records.csv
# has one row per record (the count darshan-util reports in the oracle).
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 is not installed"
command -v mlr >/dev/null || skip "mlr is not installed"

SRC=$TMP/src MNT=$TMP/mnt
make_tree "$SRC"
dfs_mount "$SRC" "$MNT"

nfixed=0 noracle=0
start=$(now)
# the oracle's record counts, read once
python3 - "$ORACLE/accum" >"$TMP/oracle-counts" <<'PY'
import json, os, sys
root = sys.argv[1]
for log in sorted(os.listdir(root)):
    for f in sorted(os.listdir(os.path.join(root, log))):
        if f.endswith(".json") and f != "NO_TARGET_MODULES.json":
            d = json.load(open(os.path.join(root, log, f)))
            print(f"{log}\t{f[:-5]}\t{d['n_records_in_log']}")
PY
: >"$TMP/list"
for rel in "${LOGREL[@]}"; do
	oname=$(oracle_name "$rel")
	mapfile -t files < <(cd "$MNT/$rel" && t find . -type f -name '*.csv' | sed 's|^\./||' | sort)
	for f in "${files[@]}"; do
		m=$MNT/$rel/$f
		sq=$(t sqlite3 :memory: ".import --csv '$m' t" 'select count(*) from t' 2>"$TMP/err") ||
			fail "sqlite3 cannot import $rel/$f: $(head -3 "$TMP/err")"
		[ -s "$TMP/err" ] && fail "sqlite3 complained about $rel/$f: $(head -3 "$TMP/err")"
		ml=$(t mlr --icsv --onidx count "$m" 2>"$TMP/err") ||
			fail "mlr cannot read $rel/$f: $(head -3 "$TMP/err")"
		want=-
		case $f in
		total.csv | */total.csv) want=1 ;;
		*/records.csv)
			mod=${f%/records.csv}
			# fixed-size records (records.csv takes imports): one row per record
			if [ "$(stat -c %A "$m" | cut -c3)" = w ]; then
				nfixed=$((nfixed + 1))
				if [ -f "$MNT/$rel/$mod/derived_metrics" ]; then
					sel=$(sed -n 's/^# darshanfs: \([0-9]*\) of \([0-9]*\) records selected$/\1 \2/p' \
						"$MNT/$rel/$mod/derived_metrics")
					[ "${sel% *}" = "${sel#* }" ] || fail "$rel/$mod/derived_metrics says '$sel'"
					want=${sel% *}
				fi
				n=$(awk -F'\t' -v l="$oname" -v m="$mod" '$1 == l && $2 == m { print $3 }' "$TMP/oracle-counts")
				if [ -n "$n" ]; then
					[ "$want" = - ] || [ "$want" = "$n" ] ||
						fail "$rel/$f: derived_metrics counts $want records, darshan-util $n"
					want=$n
					noracle=$((noracle + 1))
				fi
			fi
			;;
		esac
		printf '%s\t%s\t%s\t%s\n' "$m" "$sq" "$ml" "$want" >>"$TMP/list"
	done
done
read -r ncsv nrows < <(python3 "$IT_DIR/csvcount.py" check "$TMP/list") ||
	fail "python csv, sqlite3 and mlr disagree (above)"
[ -n "$ncsv" ] || fail "python csv, sqlite3 and mlr disagree (above)"
say "ok: $ncsv CSV files ($nrows rows) read alike by python csv, sqlite3 and mlr ($(elapsed "$start")s)"
say "ok: $nfixed records.csv of fixed-size modules have one row per record ($noracle checked against the oracle's record counts)"

# sqlite3 and mlr see the values, not just the rows: sum a counter both ways
rel=${LOGREL[0]}
for rel in "${LOGREL[@]}"; do
	[ -f "$MNT/$rel/POSIX/records.csv" ] || continue
	m=$MNT/$rel/POSIX/records.csv
	a=$(sqlite3 :memory: ".import --csv '$m' t" 'select sum(POSIX_BYTES_READ) from t')
	b=$(mlr --icsv --ojson stats1 -a sum -f POSIX_BYTES_READ "$m" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["POSIX_BYTES_READ_sum"])')
	c=$(sed -n 's/^total_POSIX_BYTES_READ: //p' "$MNT/$rel/POSIX/total")
	[ "$a" = "$c" ] && [ "$b" = "$c" ] || fail "$rel: sum of POSIX_BYTES_READ: sqlite3 $a, mlr $b, total says $c"
done
say "ok: sum(POSIX_BYTES_READ) by sqlite3 and mlr equals total_POSIX_BYTES_READ for every log with POSIX"
dfs_alive "$MNT"
dfs_umount "$MNT"
say "PASS"
