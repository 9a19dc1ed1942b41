#!/bin/bash
# stress.sh - readers, filter writers and importers at once on one mount:
# every read of records.csv, derived_metrics and filter is one whole
# version of the file (none empty, none cut, no ESTALE or other error),
# read plainly or mapped (stress.py); the daemon lives through it.
. "$(dirname "$0")/lib.sh"

SRC=$TMP/src MNT=$TMP/mnt
make_tree "$SRC" "$LOGS"/imbalanced-io.darshan
dfs_mount "$SRC" "$MNT"
D=$MNT/${LOGREL[0]}/POSIX
secs=${DFS_IT_STRESS_SECONDS:-20}
out=$(T=$((secs + 120)) t python3 "$IT_DIR/stress.py" "$D" "$secs") ||
	fail "concurrent readers and writers (above)"
say "ok: $out"
dfs_alive "$MNT"
dfs_umount "$MNT"

# A writer's open on a busy daemon: the open of a readers' inode for
# writing is answered ESTALE, and the kernel's retry looks the file up
# again; a daemon whose threads are all busy reads that lookup late.  One
# thread (-s), each of its first three replies after strace attaches held
# 1.2 s (the lookups of the path, then the ESTALE): the retry's lookup
# comes over a second after the ESTALE, and the write must still succeed.
if command -v strace >/dev/null; then
	ONE=$TMP/one
	dfs_mount "$SRC/${LOGREL[0]}" "$ONE" -s
	t cat "$ONE/POSIX/filter" >/dev/null || fail "cat filter"
	strace -qq -o "$TMP/strace.out" -e trace=writev \
		-e inject=writev:delay_exit=1200000:when=1..3 -p "${MNT_PID[$ONE]}" &
	spid=$!
	for i in $(seq 100); do grep -q TracerPid:.[1-9] "/proc/${MNT_PID[$ONE]}/status" && break; sleep 0.05; done
	if grep -q 'TracerPid:.[1-9]' "/proc/${MNT_PID[$ONE]}/status"; then
		watchdog 60 "$ONE" bash -c 'echo "rank >= 0" > "$1"' _ "$ONE/POSIX/filter" ||
			fail "echo > filter on a busy daemon (retry's lookup over a second late), or it hung"
		kill "$spid"; wait "$spid" 2>/dev/null
		[ "$(t head -n 1 "$ONE/POSIX/filter")" = "rank >= 0" ] ||
			fail "the filter written on a busy daemon is not in force"
		say "ok: a write open whose retry lookup came 1.2 s late"
	else
		kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null
		say "SKIP (part): strace cannot attach to the daemon"
	fi
	dfs_umount "$ONE"
else
	say "SKIP (part): no strace"
fi
say "PASS"
