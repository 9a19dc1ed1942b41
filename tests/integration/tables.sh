#!/bin/bash
# tables.sh - which file, which rank: MODULE/files.csv, MODULE/ranks.csv and
# a directory's files.csv on one mount of every shared log (nested), plus a
# log with a damaged module and a log only root may read:
#  - every log's POSIX, MPI-IO, STDIO and DFS files.csv equals PyDarshan
#    file_stats (the oracle), file by file;
#  - every module's files.csv and ranks.csv equal what tables.py computes
#    from its records.csv, unfiltered, under a module filter, a log-wide
#    filter, a directory filter and imported rows;
#  - a directory's files.csv equals the merge of its logs' files.csv, at
#    the root and below, under a directory filter; the damaged module
#    gives EIO on its own files.csv and ranks.csv only, and the directory
#    table names the log it left out;
#  - generated logs (one of 100,000 ranks) too, ranks.csv read backwards
#    in odd pieces the same as by cat;
#  - another user (allow_other) sees no row of the log they may not read;
#  - DuckDB, pandas and sqlite3 read the tables with the types they
#    should (record ids exact when read as docs/tables.md says).
. "$(dirname "$0")/lib.sh"
[ -d "$ORACLE/file_stats" ] || skip "no oracle file_stats in $ORACLE"

SRC=$TMP/src MNT=$TMP/mnt
make_tree "$SRC"
ALL=("${LOGREL[@]}")
# a copy of a log whose POSIX region is damaged (its bytes past the
# region's start flipped): its other modules stay readable
mkdir -p "$SRC/damaged" "$SRC/private"
python3 - "$LOGS/mpi-io-test-x86_64-3.5.0.darshan" "$SRC/damaged/posix-broken.darshan" <<'PY' ||
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
off, length = struct.unpack_from("<QQ", b, 48 + 16 * 1)   # mod_map[POSIX], format 3.41
assert length > 40, length
for i in range(off + 8, off + length - 8):
    b[i] ^= 0x5A
open(sys.argv[2], "wb").write(b)
PY
	fail "cannot make the damaged log"
# generated logs (not in ../shared): one only root may read, one of
# 100,000 (its ranks.csv, of 19,000 ranks, rendered on demand)
t "$GEN" -n 20 --seed 77 -o "$SRC/private/secret.darshan" >/dev/null || fail "darshanfs-gen failed"
chmod 600 "$SRC/private/secret.darshan"
mkdir -p "$SRC/gen"
t "$GEN" -n 30000 -p 100000 --modules POSIX --seed 78 -o "$SRC/gen/ranks.darshan" >/dev/null || fail "darshanfs-gen failed"
dfs_mount "$SRC" "$MNT" -o allow_other
T=300

start=$(now)
tp() { t python3 "$IT_DIR/tables.py" "$@"; }
out=$(tp oracle "$MNT" "$ORACLE" "${ALL[@]}") || fail "files.csv differs from PyDarshan file_stats (above)"
say "ok: $out"
out=$(tp records "$MNT" "${ALL[@]}" private/secret.darshan gen/ranks.darshan) || fail "files.csv or ranks.csv differ from records.csv (above)"
say "ok: $out"
out=$(tp dir "$MNT" "" "2026/11" "2024/project x") || fail "a directory's files.csv differs (above)"
say "ok: $out"

# ---- a big ranks.csv, rendered on demand: every way of reading it agrees
R=$MNT/gen/ranks.darshan/POSIX/ranks.csv
n=$(($(t cat "$R" | wc -l) - 1))
[ "$n" -gt 16384 ] || fail "gen/ranks.darshan has $n ranks in ranks.csv: not a big one"
t python3 - "$R" <<'PY' || fail "ranks.csv read in pieces differs from cat (above)"
import os, subprocess, sys
path = sys.argv[1]
whole = subprocess.run(["cat", path], capture_output=True, check=True).stdout
assert len(whole) == os.stat(path).st_size, (len(whole), os.stat(path).st_size)
fd = os.open(path, os.O_RDONLY)
pieces, off = [], len(whole)
while off > 0:
    n = min(7777, off)
    off -= n
    pieces.append(os.pread(fd, n, off))
os.close(fd)
assert b"".join(reversed(pieces)) == whole
PY
say "ok: ranks.csv of $n ranks: its size, cat and reads backwards agree"

# ---- the damaged module: EIO on its files only, and the table says so
B=$MNT/damaged/posix-broken.darshan
for f in POSIX/files.csv POSIX/ranks.csv; do
	if t cat "$B/$f" >/dev/null 2>"$TMP/err"; then fail "$f of a damaged POSIX region reads"; fi
	grep -q "Input/output error" "$TMP/err" || fail "$f of a damaged module: $(cat "$TMP/err"), not EIO"
done
for f in MPI-IO/files.csv MPI-IO/ranks.csv STDIO/files.csv; do
	t cat "$B/$f" >/dev/null || fail "$f of a log whose POSIX region is damaged does not read"
done
t cat "$MNT/files.csv" >"$TMP/root.csv" || fail "cat files.csv of a tree with a damaged log failed"
grep -q '^POSIX,,,,,,,,,,,,,damaged/posix-broken.darshan,,damaged/posix-broken.darshan,,,,.' "$TMP/root.csv" ||
	fail "files.csv does not name damaged/posix-broken.darshan as left out: $(grep -F broken "$TMP/root.csv" | head -3)"
grep -q '^MPI-IO,.*,damaged/posix-broken.darshan,' "$TMP/root.csv" ||
	fail "files.csv left out the MPI-IO files of a log whose POSIX region only is damaged"
say "ok: a damaged POSIX region: EIO on its files.csv and ranks.csv, the other modules' read, files.csv names the log"

# ---- filters and imports: the tables follow the selection
L=${ALL[0]}
for l in "${ALL[@]}"; do
	[ -d "$MNT/$l/POSIX" ] && [ -d "$MNT/$l/STDIO" ] && { L=$l; break; }
done
echo 'rank == 0' >"$MNT/$L/POSIX/filter" || fail "cannot write $L/POSIX/filter"
out=$(tp records "$MNT" "$L") || fail "files.csv/ranks.csv under a module filter (above)"
grep -q '^-1,' "$MNT/$L/POSIX/ranks.csv" && fail "ranks.csv shows rank -1 under 'rank == 0'"
: >"$MNT/$L/POSIX/filter"
echo 'BYTES_READ > 0' >"$MNT/$L/filter" || fail "cannot write $L/filter"
out=$(tp records "$MNT" "$L") || fail "files.csv/ranks.csv under a log-wide filter (above)"
: >"$MNT/$L/filter"
head -n 4 "$MNT/$L/POSIX/records.csv" >"$TMP/rows.csv"
t cp "$TMP/rows.csv" "$MNT/$L/POSIX/records.csv" || fail "importing 3 rows into $L/POSIX failed"
out=$(tp records "$MNT" "$L") || fail "files.csv/ranks.csv of imported rows (above)"
n=$(($(wc -l <"$MNT/$L/POSIX/files.csv") - 1))
[ "$n" -ge 1 ] && [ "$n" -le 3 ] || fail "files.csv of 3 imported rows has $n rows"
: >"$MNT/$L/POSIX/filter"
say "ok: $L: files.csv and ranks.csv follow a module filter, a log-wide filter and imported rows"
echo 'rank == 0' >"$MNT/2026/filter" || fail "cannot write 2026/filter"
sub=()
for l in "${ALL[@]}"; do [[ $l == 2026/* ]] && sub+=("$l"); done
out=$(tp records "$MNT" "${sub[@]}") || fail "files.csv/ranks.csv under a directory filter (above)"
out=$(tp dir "$MNT" "2026" "") || fail "a directory's files.csv under a directory filter (above)"
say "ok: under 2026/filter: $out"
: >"$MNT/2026/filter"

# ---- another user sees nothing of a log they may not read
U=$(id -u nobody 2>/dev/null || echo 65534)
if command -v setpriv >/dev/null && setpriv --reuid="$U" --regid="$U" --clear-groups test -r "$MNT/2026"; then
	as_user() { t setpriv --reuid="$U" --regid="$U" --clear-groups "$@"; }
	as_user cat "$MNT/files.csv" >"$TMP/user.csv" || fail "user $U cannot read files.csv"
	grep -q 'private/secret.darshan' "$TMP/user.csv" && fail "user $U's files.csv names a 0600 log of root"
	grep -q 'private/secret.darshan' "$TMP/root.csv" || fail "root's files.csv does not name private/secret.darshan"
	as_user cat "$MNT/private/files.csv" >"$TMP/user.csv" || fail "user $U cannot read private/files.csv"
	[ "$(wc -l <"$TMP/user.csv")" = 1 ] || fail "user $U's private/files.csv has rows of a log they may not read"
	say "ok: user $U's files.csv leaves out the log they may not read"
else
	say "(no setpriv, or user $U cannot reach $MNT: the other-user check is skipped)"
fi

# ---- the tables in DuckDB, pandas and sqlite3
TAB=$MNT/imbalanced-io.darshan
[ -d "$TAB" ] || TAB=$MNT/$(cd "$MNT" && ls -d */imbalanced-io.darshan */*/*/imbalanced-io.darshan 2>/dev/null | head -1)
[ -f "$TAB/POSIX/files.csv" ] || fail "no imbalanced-io.darshan in the tree"
t cat "$TAB/POSIX/files.csv" >"$TMP/files.csv" || fail "cat files.csv"
t cat "$TAB/POSIX/ranks.csv" >"$TMP/ranks.csv" || fail "cat ranks.csv"
# pandas (Debian's python3), with no dtype given
/usr/bin/python3 - "$TMP/files.csv" "$TMP/ranks.csv" "$TMP/root.csv" <<'PY' || fail "pandas reads the tables wrongly (above)"
import csv, sys
import pandas as pd
files, ranks, root = sys.argv[1:4]
want = [int(r["record_id"]) for r in csv.DictReader(open(files))]
assert max(want) >= 2**63 > min(want), "the test needs ids on both sides of 2^63"
df = pd.read_csv(files, float_precision="round_trip")
assert str(df["record_id"].dtype) == "uint64", df["record_id"].dtype
assert [int(x) for x in df["record_id"]] == want, "record ids differ"
for c in ("ranks", "records", "bytes_read", "bytes_written", "reads", "writes", "total_bytes"):
    assert str(df[c].dtype) == "int64", (c, df[c].dtype)
for c in ("time_by_slowest", "perf_by_slowest", "read_time", "write_time", "meta_time"):
    assert str(df[c].dtype) == "float64", (c, df[c].dtype)
assert list(df["total_bytes"]) == sorted(df["total_bytes"], reverse=True), "not most bytes first"
raw = list(csv.DictReader(open(files)))
assert all(float(r["perf_by_slowest"]) == p for r, p in zip(raw, df["perf_by_slowest"]))
rk = pd.read_csv(ranks, float_precision="round_trip")
assert str(rk["rank"].dtype) == "int64" and rk["rank"].iloc[0] == -1
assert str(rk["slowest_share"].dtype) == "float64" and pd.isna(rk["slowest_share"].iloc[0])
assert rk["slowest_share"].iloc[1:].max() == 1.0
d = pd.read_csv(root)
for c in ("bytes_read", "total_bytes"):
    assert str(d[c].dtype) == "float64" or str(d[c].dtype) == "int64", (c, d[c].dtype)
assert str(d["time_by_slowest"].dtype) == "float64"
print("pandas: record_id uint64 (exact), counts int64, times float64")
PY
# sqlite3: .import keeps every column as text (ids exact); CAST to compare
got=$(t sqlite3 :memory: '.import --csv '"$TMP/files.csv"' f' \
	"select record_id from f order by cast(total_bytes as integer) desc limit 1")
[ "$got" = "$(sed -n 2p "$TMP/files.csv" | cut -d, -f1)" ] || fail "sqlite3 reads the first record_id as '$got'"
got=$(t sqlite3 :memory: '.import --csv '"$TMP/files.csv"' f' "select sum(cast(bytes_written as integer)) from f")
want=$(python3 -c 'import csv,sys; print(sum(int(r["bytes_written"]) for r in csv.DictReader(open(sys.argv[1]))))' "$TMP/files.csv")
[ "$got" = "$want" ] || fail "sqlite3 sums bytes_written to $got, not $want"
got=$(t sqlite3 :memory: '.import --csv '"$TMP/root.csv"' d' "select typeof(jobs) from d limit 1")
[ "$got" = text ] || fail "sqlite3 imports jobs as $got"
say "ok: sqlite3 keeps record_id exact (text) and sums the casted counters exactly"
# DuckDB, when there is one (as duckdb.sh finds it)
if ! command -v duckdb >/dev/null && command -v node >/dev/null; then
	export DFS_DUCKDB_DIR
	DFS_DUCKDB_DIR=$(bash -c '. "$1"; dfs_duckdb_dir' _ "$REPO/contrib/deps.sh")
	[ -f "$DFS_DUCKDB_DIR/node_modules/@duckdb/node-api/package.json" ] && PATH=$IT_DIR/duckdb-shim:$PATH
fi
if command -v duckdb >/dev/null && t duckdb -c "SELECT 1" >/dev/null 2>&1; then
	t duckdb -c "DESCRIBE SELECT * FROM read_csv('$TMP/files.csv')" >"$TMP/types" || fail "duckdb cannot read files.csv"
	grep -qx 'record_id,DOUBLE.*' "$TMP/types" || fail "DuckDB's own guess for record_id changed: $(grep record_id "$TMP/types") (docs/tables.md says DOUBLE)"
	for c in ranks records bytes_read bytes_written reads writes total_bytes; do
		grep -q "^$c,BIGINT," "$TMP/types" || fail "DuckDB reads $c as $(grep "^$c," "$TMP/types")"
	done
	for c in time_by_slowest perf_by_slowest read_time write_time meta_time; do
		grep -q "^$c,DOUBLE," "$TMP/types" || fail "DuckDB reads $c as $(grep "^$c," "$TMP/types")"
	done
	t duckdb -c "SELECT record_id FROM read_csv('$TMP/files.csv', types={'record_id': 'UBIGINT'})" >"$TMP/ids" ||
		fail "duckdb with types={'record_id': 'UBIGINT'} failed"
	cut -d, -f1 "$TMP/files.csv" | cmp -s - "$TMP/ids" || fail "DuckDB's record ids as UBIGINT differ from files.csv's"
	got=$(t duckdb -c "SELECT sum(bytes_written)::VARCHAR AS s FROM '$TMP/files.csv'" | tail -1)
	[ "$got" = "$want" ] || fail "DuckDB sums bytes_written to $got, not $want"
	t duckdb -c "DESCRIBE SELECT * FROM read_csv('$TMP/root.csv')" >"$TMP/types" || fail "duckdb cannot read the root files.csv"
	for c in jobs bytes_read total_bytes first_start; do
		grep -q "^$c,BIGINT," "$TMP/types" || fail "DuckDB reads the root files.csv's $c as $(grep "^$c," "$TMP/types")"
	done
	grep -q "^perf_by_slowest,DOUBLE," "$TMP/types" || fail "DuckDB reads perf_by_slowest as $(grep "^perf_by_slowest," "$TMP/types")"
	say "ok: DuckDB: counts BIGINT, times DOUBLE, record_id exact as UBIGINT (its own guess: DOUBLE)"
else
	say "(no DuckDB: its checks are skipped)"
fi
say "(all checks in $(elapsed "$start")s)"
dfs_alive "$MNT"
dfs_umount "$MNT"
say "PASS"
