#!/bin/bash
# oracle.sh - the numbers of the mount against darshan-util's, for every
# shared log and every module darshan-parser summarizes (POSIX, MPI-IO,
# STDIO, DFS, DAOS), read and written through the mount by one python
# process (oracle.py mount):
#  - unfiltered: derived_metrics holds the module's blocks of
#    `darshan-parser --file` and `--perf` verbatim; `total` holds every
#    total_* line of `darshan-parser --total`;
#  - filtered through the mount (MODULE/filter written as echo does) with
#    rank == 0, <MOD>_BYTES_READ > 0 and rank == -1: derived_metrics.json
#    equals pydarshan's accumulator result field by field (exact floats;
#    empty selections equal the C accumulator fed zero records), and
#    derived_metrics counts the same records;
#  - modules.csv at the root has the unfiltered numbers of every log, and
#    jobs.csv each job's bytes per module.
# (test_oracle checks the same filters through the view without a mount;
# this is the mount's side of it.)
. "$(dirname "$0")/lib.sh"
[ -d "$ORACLE/accum" ] || skip "no oracle in $ORACLE"

SRC=$TMP/src MNT=$TMP/mnt
make_tree "$SRC"
dfs_mount "$SRC" "$MNT"
OUT=$TMP/out
mkdir -p "$OUT"
start=$(now)
out=$(t python3 "$IT_DIR/oracle.py" mount "$MNT" "$ORACLE" "$OUT" "${LOGREL[@]}") ||
	fail "the mount's numbers differ from darshan-util's (above)"
while IFS= read -r line; do say "ok: $line"; done <<<"$out"
say "(through the mount in $(elapsed "$start")s)"
# an echo into a filter, as a user types it, and cat of what it made
for rel in "${LOGREL[@]}"; do
	[ -d "$MNT/$rel/POSIX" ] && break
done
d=$MNT/$rel/POSIX
t sh -c "echo 'rank == 0' > '$d/filter'" || fail "echo 'rank == 0' > $rel/POSIX/filter failed"
[ "$(t cat "$d/filter")" = "rank == 0" ] || fail "cat $rel/POSIX/filter does not read back the filter"
t cat "$d/derived_metrics" | grep -q '^# darshanfs: [0-9]* of [0-9]* records selected$' ||
	fail "cat $rel/POSIX/derived_metrics has no selection line"
t sh -c ": > '$d/filter'" || fail ": > $rel/POSIX/filter failed"
# modules.csv of the root summarizes every log with the same numbers, and
# jobs.csv every job
if [ -f "$MNT/modules.csv" ]; then
	t cat "$MNT/modules.csv" >"$TMP/modules.csv" || fail "cat modules.csv failed"
	out=$(python3 "$IT_DIR/oracle.py" modules "$TMP/modules.csv" "$ORACLE/accum") || fail "modules.csv differs from darshan-util (above)"
	say "ok: $out"
	t cat "$MNT/jobs.csv" >"$TMP/jobs.csv" || fail "cat jobs.csv failed"
	out=$(python3 "$IT_DIR/oracle.py" jobtable "$TMP/jobs.csv" "$ORACLE/accum") || fail "jobs.csv differs from darshan-util (above)"
	say "ok: $out"
fi
dfs_alive "$MNT"
dfs_umount "$MNT"
say "PASS"
