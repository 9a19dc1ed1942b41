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
say "PASS"
