#!/bin/bash
# csv.sh - the CSV files of the mount are valid CSV for real CSV readers:
# sqlite3 (.import --csv), mlr and python's csv module read every
# records.csv, total.csv, names.csv and mounts.csv of every log with the
# same number of rows; for fixed-size record modules records.csv has one
# row per record (the count darshan-util reports in the oracle); sqlite3
# and mlr sum a counter to what `total` says.  One sqlite3 and one mlr read
# all the files (csvcount.py tree); in the quick pass python csv alone.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 is not installed"
command -v mlr >/dev/null || skip "mlr is not installed"

SRC=$TMP/src MNT=$TMP/mnt
make_tree "$SRC"
dfs_mount "$SRC" "$MNT"

start=$(now)
out=$(t python3 "$IT_DIR/csvcount.py" tree "$MNT" "$ORACLE/accum" "${LOGREL[@]}") ||
	fail "python csv, sqlite3 and mlr disagree (above)"
read -r ncsv nrows nfixed noracle nsums <<<"$out"
[ -n "$nsums" ] || fail "csvcount.py printed '$out'"
if [ "${DFS_TEST_QUICK:-0}" = 1 ]; then
	say "ok: $ncsv CSV files ($nrows rows) read by python csv ($(elapsed "$start")s;" \
		"sqlite3 and mlr read them in the full pass)"
else
	say "ok: $ncsv CSV files ($nrows rows) read alike by python csv, sqlite3 and mlr ($(elapsed "$start")s)"
fi
say "ok: $nfixed records.csv of fixed-size modules have one row per record ($noracle checked against the oracle's record counts)"
[ "${DFS_TEST_QUICK:-0}" = 1 ] ||
	say "ok: sum(POSIX_BYTES_READ) by sqlite3 and mlr equals total_POSIX_BYTES_READ for $nsums logs with POSIX"
dfs_alive "$MNT"
dfs_umount "$MNT"
say "PASS"
