#!/bin/bash
# index.sh - the persistent index (-o index=PATH; docs/index.md) over a
# generated tree of 2,100 logs (1,100 with DFS_TEST_QUICK=1), some real
# logs and a truncated one:
#  - a daemon killed (-9) while it indexes leaves an index that is whole
#    (integrity_check) and the next mount serves the bytes of a mount
#    without an index (jobs.csv, modules.csv, insights.csv, summary.html,
#    files.csv);
#    through a small cache the tables go to a file beside the index; the
#    mount after that opens no log (decode counter 0), and sqlite3 and
#    Python read the index, typed, while it runs (mode 0600, WAL);
#  - a directory filter makes only the logs below it decode, and the
#    tables equal those of a mount without the index under the same
#    filter; cleared, nothing decodes; a log's own filter decodes that
#    log only, and its row names the filter;
#  - a log touched is read again (for jobs.csv and for files.csv, whose
#    files the index keeps too); one removed, or a directory removed,
#    leaves the index;
#  - a second mount of the same SOURCE shares the index;
#  - a file that is no index (text, another SQLite database) is moved
#    aside with one line on stderr; an index path that cannot be made, or
#    a full file system, leaves the mount working with one line.
NO_SHARED_LOGS=1
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 is not installed"
[ -x "$GEN" ] || skip "$GEN is not built"

SRC=$TMP/src MNT=$TMP/mnt REF=$TMP/ref IX=$TMP/ix/archive.index
mkdir -p "$REF" "$TMP/ix"
T0=$SECONDS
# (more than one batch of 1,024 logs: the kill comes after the first)
NLOGS=2100
[ "${DFS_TEST_QUICK:-0}" = 1 ] && NLOGS=1100
t "$GEN" --logs $NLOGS --records 2 -o "$SRC" >/dev/null || fail "darshanfs-gen failed"
if ls "$LOGS"/*.darshan >/dev/null 2>&1; then
	mkdir -p "$SRC/real"
	for f in example.darshan dxt.darshan imbalanced-io.darshan ior_hdf5_example.darshan \
		partial_data_stdio.darshan; do
		[ -f "$LOGS/$f" ] && cp "$LOGS/$f" "$SRC/real/" && NLOGS=$((NLOGS + 1))
	done
	head -c 3000 "$LOGS/dxt.darshan" >"$SRC/real/truncated.darshan" && NLOGS=$((NLOGS + 1))
fi
say "$NLOGS logs made ($((SECONDS - T0)) s)"
TABLES="jobs.csv modules.csv insights.csv summary.html 2025/10/jobs.csv files.csv 2025/10/files.csv"
# (files.csv merges within cache_size: not through cache_size=1M)
SMALL_TABLES="jobs.csv modules.csv insights.csv summary.html 2025/10/jobs.csv"

# read_tables MNT DIR: the tables (${LIST:-$TABLES}) into DIR
read_tables() {
	local f
	mkdir -p "$2/2025/10"
	for f in ${LIST:-$TABLES}; do
		T=300 t cat "$1/$f" >"$2/$f" || fail "cat $1/$f failed"
	done
}
same_tables() {
	local f
	for f in ${LIST:-$TABLES}; do
		cmp -s "$REF/$1/$f" "$2/$f" || fail "$3: $f differs from a mount without the index ($(cmp "$REF/$1/$f" "$2/$f"))"
	done
}
rows() { sqlite3 -readonly "$IX" "select count(*) from logs"; }

# ---- the reference: no index
dfs_mount "$SRC" "$MNT" -o noindex,cache_size=16M
read_tables "$MNT" "$REF/plain"
[ "$(($(wc -l <"$REF/plain/jobs.csv") - 1))" = "$NLOGS" ] || fail "jobs.csv has not $NLOGS rows"
echo 'POSIX_BYTES_READ > 0' >"$MNT/2025/10/filter" || fail "the filter of 2025/10 is refused"
read_tables "$MNT" "$REF/filtered"
dfs_umount "$MNT"
[ ! -e "$TMP/cache/darshanfs" ] || fail "-o noindex made an index in $TMP/cache/darshanfs"

# ---- killed while indexing
dfs_mount "$SRC" "$MNT" -o "index=$IX"
pid=${MNT_PID[$MNT]}
( t cat "$MNT/jobs.csv" >/dev/null 2>&1 ) &
reader=$!
for i in $(seq 600); do
	n=$(sqlite3 -readonly "$IX" "select count(*) from logs" 2>/dev/null) || n=0
	[ "${n:-0}" -gt 0 ] && break
	sleep 0.05
done
kill -9 "$pid"
wait "$reader" 2>/dev/null
force_umount "$MNT"
unset "MNT_PID[$MNT]"
[ "$n" -gt 0 ] || fail "the index holds no log after 30 s of jobs.csv"
[ "$(sqlite3 "$IX" 'pragma integrity_check')" = ok ] || fail "the index is damaged after kill -9"
kept=$(rows)
say "killed while indexing: $kept of $NLOGS logs committed, integrity_check ok"

dfs_mount "$SRC" "$MNT" -o "index=$IX"
T=300 t cat "$MNT/jobs.csv" >/dev/null || fail "jobs.csv after kill -9"
d=$(decodes "$MNT")
[ "$d" -le $((NLOGS - kept)) ] || fail "after kill -9 the next mount decoded $d logs, the index held $kept of $NLOGS"
# (insights.csv keeps its findings the first time it makes them)
read_tables "$MNT" "$TMP/after-kill"
same_tables plain "$TMP/after-kill" "after kill -9"
dfs_umount "$MNT"
say "ok: the mount after kill -9 serves the same bytes (decoding $d logs)"

# ---- a small cache: the tables past an eighth of it go to a file beside
# the index
dfs_mount "$SRC" "$MNT" -o "index=$IX,cache_size=1M"
LIST=$SMALL_TABLES read_tables "$MNT" "$TMP/small-cache"
ls -l "/proc/${MNT_PID[$MNT]}/fd" 2>/dev/null | grep -q "$TMP/ix/.*(deleted)" ||
	fail "no table went to a file beside the index ($(ls -l "/proc/${MNT_PID[$MNT]}/fd" | tail -3))"
LIST=$SMALL_TABLES same_tables plain "$TMP/small-cache" "cache_size=1M"
dfs_umount "$MNT"
say "ok: through cache_size=1M the tables go to a file beside the index, the same bytes"

# ---- remount: nothing decodes; the index is a typed database others read
dfs_mount "$SRC" "$MNT" -o "index=$IX"
read_tables "$MNT" "$TMP/remount"
same_tables plain "$TMP/remount" "remount"
[ "$(decodes "$MNT")" = 0 ] || fail "a remount decoded $(decodes "$MNT") logs for the tables"
files=$(sqlite3 -readonly "$IX" "select count(*) from logs where files_key is not null")
[ "$files" = $((NLOGS - 1)) ] || fail "the index keeps the files of $files logs, not $((NLOGS - 1))"
[ "$(stat -c %a "$IX")" = 600 ] || fail "the index has mode $(stat -c %a "$IX")"
[ "$(sqlite3 -readonly "$IX" 'pragma journal_mode')" = wal ] || fail "the index is not in WAL mode"
got=$(sqlite3 -readonly "$IX" "select count(*), typeof(jobid), typeof(run_time), typeof(exe) from jobs
	where error is null group by 2, 3, 4") || fail "sqlite3 cannot read the index while mounted"
[ "$got" = "$((NLOGS - 1))|integer|real|text" ] || fail "sqlite3 reads '$got' of the index"
python3 - "$IX" "$REF/plain/jobs.csv" <<'PY' || fail "Python's sqlite3 reads the index differently (above)"
import csv, sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
want = {r["log"]: r for r in csv.DictReader(open(sys.argv[2], newline=""))}
got = {p: (j, b) for p, j, b in db.execute(
    "select path, jobid, sum(bytes_read + bytes_written) from jobs join modules"
    " on modules.log = jobs.id where module = 'POSIX' group by path")}
if len(got) < len(want) - 10:
    sys.exit(f"{len(got)} logs with POSIX rows in the index, {len(want)} in jobs.csv")
for p, (jobid, b) in got.items():
    r = want[p]
    if str(jobid) != r["jobid"] or str(b) != r["posix_bytes"]:
        sys.exit(f"{p}: index {jobid} {b}, jobs.csv {r['jobid']} {r['posix_bytes']}")
print(f"  python sqlite3: {len(got)} jobs, their ids and POSIX bytes as jobs.csv has them",
      file=sys.stderr)
PY
say "ok: a remount decodes no log; sqlite3 and python read the index (typed, 0600, WAL) while mounted"

# ---- a directory filter decodes the logs below it only
below=$(find "$SRC/2025/10" -name '*.darshan' | wc -l)
d0=$(decodes "$MNT")
echo 'POSIX_BYTES_READ > 0' >"$MNT/2025/10/filter" || fail "the filter of 2025/10 is refused"
read_tables "$MNT" "$TMP/filtered"
same_tables filtered "$TMP/filtered" "under 2025/10/filter"
d1=$(decodes "$MNT")
[ $((d1 - d0)) = "$below" ] || fail "2025/10/filter decoded $((d1 - d0)) logs, not the $below below it"
: >"$MNT/2025/10/filter"
read_tables "$MNT" "$TMP/cleared"
same_tables plain "$TMP/cleared" "after the filter is cleared"
[ "$(decodes "$MNT")" = "$d1" ] || fail "clearing 2025/10/filter decoded $(($(decodes "$MNT") - d1)) logs"
say "ok: 2025/10/filter decodes the $below logs below it, no other; cleared, none"

# ---- a log's own filter: that log is decoded, its row names the filter
# (a walk that begins with no log known to the view skips the look for
# one: the write makes the log known)
one=$(cd "$SRC" && find 2025/11 -name '*.darshan' | sort | head -1)
sleep 1.1   # the rendered tables are kept a second
d0=$(decodes "$MNT")
echo 'POSIX_BYTES_READ < 0' >"$MNT/$one/filter" || fail "the filter of $one is refused"
t cat "$MNT/jobs.csv" >"$TMP/j.csv" || fail "jobs.csv with a log's filter"
[ $(($(decodes "$MNT") - d0)) = 1 ] || fail "a log's filter made $(($(decodes "$MNT") - d0)) decodes, not 1"
grep "^$one," "$TMP/j.csv" | grep -q 'POSIX_BYTES_READ < 0' ||
	fail "the row of $one does not name its filter: $(grep "^$one," "$TMP/j.csv")"
[ "$(grep -v "^$one," "$TMP/j.csv")" = "$(grep -v "^$one," "$REF/plain/jobs.csv")" ] ||
	fail "a log's filter changed the rows of other logs"
: >"$MNT/$one/filter"
sleep 1.1
t cat "$MNT/jobs.csv" >"$TMP/j.csv" || fail "jobs.csv after the log's filter is cleared"
cmp -s "$TMP/j.csv" "$REF/plain/jobs.csv" || fail "jobs.csv after the log's filter is cleared differs"
say "ok: a log's own filter decodes that log, its row names it; cleared, the rows are as before"

# ---- a log changed, removed; a directory removed
one=$(find "$SRC/2025/11" -name '*.darshan' | head -1)
sleep 1.1   # the rendered tables are kept a second
touch "$one"
d0=$(decodes "$MNT")
t cat "$MNT/jobs.csv" >"$TMP/j.csv" || fail "jobs.csv after a touch"
[ $(($(decodes "$MNT") - d0)) = 1 ] || fail "a touched log made $(($(decodes "$MNT") - d0)) decodes, not 1"
cmp -s "$TMP/j.csv" "$REF/plain/jobs.csv" || fail "jobs.csv after a touch differs"
touch "$one"
d0=$(decodes "$MNT")
t cat "$MNT/files.csv" >"$TMP/f.csv" || fail "files.csv after a touch"
[ $(($(decodes "$MNT") - d0)) = 1 ] || fail "a touched log made $(($(decodes "$MNT") - d0)) decodes for files.csv, not 1"
cmp -s "$TMP/f.csv" "$REF/plain/files.csv" || fail "files.csv after a touch differs"
before=$(rows)
rm "$one"
gone=$(find "$SRC/2025/12" -name '*.darshan' | wc -l)
rm -r "$SRC/2025/12"
sleep 1.1
t cat "$MNT/jobs.csv" >/dev/null || fail "jobs.csv after removals"
[ "$(rows)" = $((before - 1 - gone)) ] ||
	fail "the index holds $(rows) logs after 1 log and a directory of $gone were removed (was $before)"
[ "$(sqlite3 -readonly "$IX" "select count(*) from logs where dir like '2025/12%'")" = 0 ] ||
	fail "the index keeps logs of the removed 2025/12"
[ "$(sqlite3 -readonly "$IX" "select count(*) from files where log not in (select id from logs)")" = 0 ] ||
	fail "the index keeps files of logs it forgot"
say "ok: a touched log is read again (jobs.csv, files.csv); a removed log and directory leave the index"
NLOGS=$((NLOGS - 1 - gone))

# ---- a second mount of the same SOURCE shares the index
dfs_mount "$SRC" "$TMP/mnt2" -o "index=$IX"
t cat "$TMP/mnt2/jobs.csv" >"$TMP/j2.csv" || fail "jobs.csv of the second mount"
t cat "$MNT/jobs.csv" >"$TMP/j1.csv" || fail "jobs.csv of the first mount"
cmp -s "$TMP/j1.csv" "$TMP/j2.csv" || fail "two mounts of one SOURCE show different jobs.csv"
[ "$(decodes "$TMP/mnt2")" = 0 ] || fail "the second mount decoded $(decodes "$TMP/mnt2") logs"
dfs_umount "$TMP/mnt2"
dfs_umount "$MNT"
cp "$TMP/j1.csv" "$REF/now.csv"
say "ok: a second mount of the same SOURCE shares the index"

# ---- files that are no index; paths that cannot be; a full disk
# mount_with OPTION WHAT: the mount works, jobs.csv as before, and the
# daemon said one line about its index
mount_with() {
	local before after
	before=$(cat "$TMP"/darshanfs.*.log 2>/dev/null | grep -c 'darshanfs: index')
	dfs_mount "$SRC" "$MNT" -o "$1"
	t cat "$MNT/jobs.csv" >"$TMP/j.csv" || fail "$2: jobs.csv does not read"
	cmp -s "$TMP/j.csv" "$REF/now.csv" || fail "$2: jobs.csv differs"
	dfs_umount "$MNT"
	after=$(cat "$TMP"/darshanfs.*.log 2>/dev/null | grep -c 'darshanfs: index')
	[ $((after - before)) = 1 ] || fail "$2: $((after - before)) lines about the index, not 1: $(grep -h 'darshanfs: index' "$TMP"/darshanfs.*.log | tail -3)"
	grep -h 'darshanfs: index' "$TMP"/darshanfs.*.log | tail -1
}
echo "not a database" >"$TMP/ix/text.index"
line=$(mount_with "index=$TMP/ix/text.index" "a text file as the index")
ls "$TMP"/ix/text.index.broken-* >/dev/null 2>&1 || fail "the text file was not moved aside: $line"
sqlite3 "$TMP/ix/other.index" "create table t(a); insert into t values(1)"
line=$(mount_with "index=$TMP/ix/other.index" "another SQLite database as the index")
ls "$TMP"/ix/other.index.broken-* >/dev/null 2>&1 || fail "the other database was not moved aside: $line"
[ "$(sqlite3 "$(ls "$TMP"/ix/other.index.broken-* | head -1)" 'select a from t')" = 1 ] ||
	fail "the other database was not kept whole"
say "ok: a text file and another program's database are moved aside ($line)"
line=$(mount_with "index=$TMP/ix/other.index/sub/a.index" "an index below a file")
say "ok: an index that cannot be made: the mount works ($line)"
mkdir -p "$TMP/small"
if mount -t tmpfs -o size=256k tmpfs "$TMP/small" 2>/dev/null; then
	line=$(mount_with "index=$TMP/small/a.index" "a full file system")
	umount "$TMP/small"
	say "ok: a full file system: the mount works ($line)"
else
	say "SKIP (part): cannot mount a small tmpfs for the full-disk case"
fi
say "PASS ($((SECONDS - T0)) s)"
