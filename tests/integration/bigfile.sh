#!/bin/bash
# bigfile.sh - records.csv of a log too big to be rendered at once: it is
# rendered on demand in batches of rows (src/view/lazy.c), the first ones
# kept from measuring, the others rendered ahead of the reader by helper
# threads.  A generated log of 40,000 POSIX records (10 batches) is read
# through the mount, whole and filtered, by the readers of readers.py (odd
# chunk sizes, preads at odd offsets across batch ends, mmaps) and by four
# threads at once, and must equal what darshanfs-cat prints.
NO_SHARED_LOGS=1
. "$(dirname "$0")/lib.sh"

[ -x "$GEN" ] || skip "$GEN is not built"
SRC=$TMP/src MNT=$TMP/mnt
mkdir -p "$SRC"
t "$GEN" -n 40000 -o "$SRC/big.darshan" >/dev/null || fail "darshanfs-gen failed"
L=$MNT/big.darshan
FILTER='POSIX_BYTES_READ > 0 and rank != 0'

t "$REF_CAT" "$SRC/big.darshan" POSIX/records.csv >"$TMP/all.csv" ||
	fail "darshanfs-cat records.csv failed"
t "$REF_CAT" -w "POSIX/filter=$FILTER" "$SRC/big.darshan" POSIX/records.csv >"$TMP/sel.csv" ||
	fail "darshanfs-cat of the filtered records.csv failed"
rows=$(($(wc -l <"$TMP/all.csv") - 1)) sel=$(($(wc -l <"$TMP/sel.csv") - 1))
[ "$rows" -ge 40000 ] || fail "the generated log has $rows POSIX rows"
[ "$sel" -gt 4096 ] && [ "$sel" -lt "$rows" ] || fail "the filter selects $sel of $rows rows"

dfs_mount "$SRC" "$MNT"
printf '%s\t%s\n' "$L/POSIX/records.csv" "$TMP/all.csv" >"$TMP/list"
t python3 "$IT_DIR/readers.py" "$TMP/list" >"$TMP/out" || fail "records.csv read through the mount differs (above)"
echo "$FILTER" >"$L/POSIX/filter" || fail "the filter was refused"
printf '%s\t%s\n' "$L/POSIX/records.csv" "$TMP/sel.csv" >"$TMP/list"
t python3 "$IT_DIR/readers.py" "$TMP/list" >>"$TMP/out" || fail "the filtered records.csv differs (above)"
say "ok: $rows rows and a selection of $sel read every way equal darshanfs-cat"

# four readers at once, each in its own chunk size, of a fresh snapshot
: >"$L/POSIX/filter"
emptied=0
for i in $(seq 50); do [ -s "$L/POSIX/filter" ] || { emptied=1; break; }; sleep 0.05; done
[ "$emptied" = 1 ] || fail "the filter did not clear"
t python3 "$IT_DIR/readers.py" --at-once "$L/POSIX/records.csv" "$TMP/all.csv" \
	4096 65536 131072 1000003 || fail "concurrent readers got other bytes (above)"
say "ok: four concurrent readers read the same bytes"

# the kernel's readahead raised to 4 MiB: its reads (1 MiB) span batches
# that are not rendered yet, whose bytes the daemon copies together
# (op_read), in a buffer each thread keeps for its next reads
ra=/sys/class/bdi/$(mountpoint -d "$MNT")/read_ahead_kb
if [ -w "$ra" ]; then
	echo 4096 >"$ra" || fail "cannot raise the mount's readahead"
	for i in 1 2 3; do
		# (under a watchdog: this is the path where readers wait for
		# batches, and a hang there must fail rather than stall the suite)
		watchdog 60 "$MNT" cmp -s "$L/POSIX/records.csv" "$TMP/all.csv" ||
			fail "records.csv read with a 4 MiB readahead differs or hung (read $i)"
		# (the file's pages dropped: each read asks the daemon again)
		t python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$L/POSIX/records.csv" ||
			fail "cannot drop the pages of records.csv"
	done
	say "ok: records.csv read with a 4 MiB readahead is the same"
else
	say "skip: the mount's readahead cannot be changed here"
fi

# Imports of megabytes: the text of an import past 1 MiB lies in a block of
# the view's pool, grown as the writes come (2, 4, 8... MiB) and kept for
# the next import (src/view/write.c, import_room).  The selection imported
# with cp must be what the filter selects; the same rows written out of
# order (the second half first, far past the end, then the first half in
# odd pieces) and then every row (the block the pool kept, grown again)
# must read back as written.
: >"$L/POSIX/filter" || fail "the filter did not clear"
t cp "$TMP/sel.csv" "$L/POSIX/records.csv" || fail "cp of $sel rows ($(stat -c %s "$TMP/sel.csv") bytes) into records.csv failed: $(cat "$L/POSIX/filter.error")"
import_equals_filter "$L/POSIX" "$sel" "$FILTER" "cp of $sel rows" "$TMP/imp"
: >"$L/POSIX/filter"
t python3 - "$TMP/sel.csv" "$L/POSIX/records.csv" <<'PY' || fail "the import written out of order was refused"
import os, sys
data = open(sys.argv[1], "rb").read()
fd = os.open(sys.argv[2], os.O_WRONLY | os.O_TRUNC)
half = len(data) // 2
os.pwrite(fd, data[half:], half)
at = 0
while at < half:
    n = min(99991, half - at)
    os.pwrite(fd, data[at:at + n], at)
    at += n
os.close(fd)
PY
cmp -s "$L/POSIX/records.csv" "$TMP/sel.csv" ||
	fail "records.csv after the import written out of order is not the rows written"
t cp "$TMP/all.csv" "$L/POSIX/records.csv" || fail "cp of every row into records.csv failed"
cmp -s "$L/POSIX/records.csv" "$TMP/all.csv" ||
	fail "records.csv after importing every row is not the log's records"
say "ok: imports of $(stat -c %s "$TMP/sel.csv") and $(stat -c %s "$TMP/all.csv") bytes (in order, out of order) select what they should"
dfs_alive "$MNT"
dfs_umount "$MNT"
say PASS
