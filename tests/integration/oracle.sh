#!/bin/bash
# oracle.sh - the numbers of the mount against darshan-util's, for every
# shared log and every module darshan-parser summarizes (POSIX, MPI-IO,
# STDIO, DFS, DAOS):
#  - unfiltered: derived_metrics holds the module's blocks of
#    `darshan-parser --file` and `--perf` verbatim; `total` holds every
#    total_* line of `darshan-parser --total`;
#  - filtered through the mount (`echo EXPR > MODULE/filter`) with
#    rank == 0, <MOD>_BYTES_READ > 0 and rank == -1: derived_metrics.json
#    equals pydarshan's accumulator result field by field (exact floats;
#    empty selections equal the C accumulator fed zero records), and
#    derived_metrics counts the same records;
#  - jobs.csv at the root has the unfiltered numbers of every log.
. "$(dirname "$0")/lib.sh"
[ -d "$ORACLE/accum" ] || skip "no oracle in $ORACLE"

SRC=$TMP/src MNT=$TMP/mnt
make_tree "$SRC"
dfs_mount "$SRC" "$MNT"
OUT=$TMP/out
mkdir -p "$OUT"
man=$TMP/manifest
: >"$man"
nmods=0 nwrites=0 nskip=0 i=0
start=$(now)
for rel in "${LOGREL[@]}"; do
	i=$((i + 1))
	oname=$(oracle_name "$rel")
	pdir=$ORACLE/parser/$oname
	for mod in POSIX MPI-IO STDIO DFS DAOS; do
		oj=$ORACLE/accum/$oname/$mod.json
		[ -f "$oj" ] || continue
		d=$MNT/$rel/$mod
		[ -d "$d" ] || fail "$rel: the oracle has $mod, the mount has no $mod directory"
		nmods=$((nmods + 1))
		o=$OUT/$i.$mod
		# unfiltered, against darshan-parser (unless it aborted on this log)
		if [ -e "$pdir/file.rc" ] || [ -e "$pdir/total.rc" ] || [ -e "$pdir/perf.rc" ]; then
			nskip=$((nskip + 1))
		else
			t cat "$d/derived_metrics" >"$o.dm" || fail "cat $rel/$mod/derived_metrics failed"
			t cat "$d/total" >"$o.total" || fail "cat $rel/$mod/total failed"
			printf 'block\t%s\t%s\t%s\t%s\n' "$pdir" "$mod" "$o.dm" "$o.total" >>"$man"
			# the log-wide derived_metrics has the same blocks
			t cat "$MNT/$rel/derived_metrics" >"$o.logdm" || fail "cat $rel/derived_metrics failed"
			printf 'block\t%s\t%s\t%s\t%s\n' "$pdir" "$mod" "$o.logdm" "$o.total" >>"$man"
		fi
		# filtered, against the accumulator
		while IFS=$'\t' read -r case expr; do
			echo "$expr" >"$d/filter" || fail "echo '$expr' > $rel/$mod/filter failed"
			got=$(t cat "$d/filter") || fail "cat $rel/$mod/filter failed"
			[ "$got" = "$expr" ] || fail "$rel/$mod/filter reads back '$got', not '$expr'"
			[ -s "$d/filter.error" ] && fail "$rel/$mod/filter.error is not empty after a good filter"
			t cat "$d/derived_metrics.json" >"$o.$case.json" || fail "cat $rel/$mod/derived_metrics.json failed"
			t cat "$d/derived_metrics" >"$o.$case.dm" || fail "cat $rel/$mod/derived_metrics failed"
			printf 'json\t%s\t%s\t%s\t%s\n' "$oj" "$case" "$o.$case.json" "$o.$case.dm" >>"$man"
			nwrites=$((nwrites + 1))
		done < <(python3 "$IT_DIR/oracle.py" cases "$oj")
		: >"$d/filter" || fail ": > $rel/$mod/filter failed"
	done
done
say "ok: $nwrites filters written to $nmods module directories ($(elapsed "$start")s; $nskip modules without a clean darshan-parser run)"
out=$(python3 "$IT_DIR/oracle.py" check "$man") || fail "the mount's numbers differ from darshan-util's (above)"
say "ok: $out"
# jobs.csv of the root summarizes every log with the same numbers
if [ -f "$MNT/jobs.csv" ]; then
	t cat "$MNT/jobs.csv" >"$TMP/jobs.csv" || fail "cat jobs.csv failed"
	out=$(python3 "$IT_DIR/oracle.py" jobs "$TMP/jobs.csv" "$ORACLE/accum") || fail "jobs.csv differs from darshan-util (above)"
	say "ok: $out"
fi
dfs_alive "$MNT"
dfs_umount "$MNT"
say "PASS"
