#!/bin/bash
# prefill.sh - the first look at a big log's records.csv (a lookup: stat,
# open) renders the file's text while the log decodes and hands it to the
# kernel's page cache, so that the reader who comes next copies it from
# there (see dfs_view_prefill).  Checked on a generated log of 100,000
# records, each case on a fresh mount:
#   - stat alone: the right size, and every page of the file is cached
#     (fincore) before anything read it; then read every way
#     (readers.py), the bytes darshanfs-cat prints;
#   - -o noprefill: the same size, nothing cached before a read;
#   - cat and three other readers at once, straight after the mount;
#   - a directory filter set before the log is decoded: no prefill (the
#     file shows a selection), the selected rows;
#   - the log damaged in the middle of its POSIX region: EIO, and no text
#     of the damaged decode is left to read.
NO_SHARED_LOGS=1
. "$(dirname "$0")/lib.sh"

[ -x "$GEN" ] || skip "$GEN is not built"
command -v fincore >/dev/null || skip "fincore (util-linux) is not installed"
SRC=$TMP/src MNT=$TMP/mnt
mkdir -p "$SRC"
t "$GEN" -n 100000 -o "$SRC/big.darshan" >/dev/null || fail "darshanfs-gen failed"
L=$MNT/big.darshan F=$MNT/big.darshan/POSIX/records.csv
# cached FILE: bytes of FILE in the page cache
cached() { local r; r=$(fincore --bytes --noheadings --output RES "$1") || fail "fincore $1 failed"; echo "${r// /}"; }
# unfilled FILE REF WHAT: FILE has REF's size at a stat, none of its text
# in the page cache before a read, then REF's bytes
unfilled() {
	local got res
	got=$(stat -c %s "$1") || fail "stat of $3 failed"
	[ "$got" = "$(stat -c %s "$2")" ] || fail "$3: stat says $got bytes, want $(stat -c %s "$2")"
	res=$(cached "$1") || fail "fincore failed"
	[ "$res" -eq 0 ] || fail "$3: a stat put $res bytes in the page cache before a read"
	cmp -s "$1" "$2" || fail "$3 differs from darshanfs-cat's"
}
t "$REF_CAT" "$SRC/big.darshan" POSIX/records.csv >"$TMP/all.csv" ||
	fail "darshanfs-cat records.csv failed"
size=$(stat -c %s "$TMP/all.csv")

# ---- stat alone ----
dfs_mount "$SRC" "$MNT"
got=$(stat -c %s "$F") || fail "stat of records.csv failed"
[ "$got" = "$size" ] || fail "records.csv: stat says $got bytes, darshanfs-cat prints $size"
if [ "$(nproc)" -ge 2 ]; then
	# (the text is rendered beside the inflate: two cores).  All of it
	# was stored; most of it must still be there (the kernel may drop
	# page cache whenever it likes: one run under the sanitizers, with
	# other tests beside it, once found fewer pages than stored)
	res=$(cached "$F") || fail "fincore failed"
	pages=$(( (size + 4095) / 4096 * 4096 ))
	[ "$res" -ge $((pages / 2)) ] ||
		fail "after a stat, $res bytes of records.csv are in the page cache, want $pages"
	say "ok: a stat put records.csv in the page cache ($res of $pages bytes there)"
fi
printf '%s\t%s\n' "$F" "$TMP/all.csv" >"$TMP/list"
t python3 "$IT_DIR/readers.py" "$TMP/list" >"$TMP/out" || fail "records.csv read after the stat differs (above)"
dfs_alive "$MNT"
dfs_umount "$MNT"
say "ok: read every way after the stat, the bytes darshanfs-cat prints"

# ---- -o noprefill: the size, nothing in the page cache before a read ----
dfs_mount "$SRC" "$MNT" -o noprefill
unfilled "$F" "$TMP/all.csv" "records.csv with noprefill"
dfs_alive "$MNT"
dfs_umount "$MNT"
say "ok: -o noprefill: the size at a stat, the text only when read"

# ---- readers at once, straight after the mount ----
dfs_mount "$SRC" "$MNT"
t python3 "$IT_DIR/readers.py" --at-once "$F" "$TMP/all.csv" cat 4096 131072 1000003 ||
	fail "readers at once got other bytes (above)"
dfs_alive "$MNT"
dfs_umount "$MNT"
say "ok: cat and three readers at once on a fresh mount read the same bytes"

# ---- a directory filter: the file shows a selection, nothing is prefilled ----
EXPR='POSIX_READS > 2'
t "$REF_CAT" -w "filter=$EXPR" "$SRC" big.darshan/POSIX/records.csv >"$TMP/sel.csv" ||
	fail "darshanfs-cat of the filtered records.csv failed"
[ "$(stat -c %s "$TMP/sel.csv")" -lt "$size" ] || fail "the directory filter selects every row"
dfs_mount "$SRC" "$MNT"
echo "$EXPR" >"$MNT/filter" || fail "the directory filter was refused"
unfilled "$F" "$TMP/sel.csv" "the filtered records.csv"
dfs_alive "$MNT"
dfs_umount "$MNT"
say "ok: with a directory filter, the selected rows and no prefill"

# ---- a damaged POSIX region: EIO, no text of it left ----
# where the POSIX region lies, from the sizes header.txt tells
read -r table posix < <(t "$REF_CAT" "$SRC/big.darshan" header.txt | awk '
	/^# header:/ { h = $3 } /^# job data:/ { j = $4 } /^# record table:/ { r = $4 }
	/^# POSIX module:/ { p = $4 } END { print h + j + r, p }')
[ -n "$posix" ] && [ "$posix" -gt 1000000 ] || fail "no POSIX region in header.txt"
mv "$SRC/big.darshan" "$TMP/big.darshan"
t python3 - "$TMP/big.darshan" "$((table + posix * 3 / 4))" <<'PY' || fail "could not damage the log"
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(int(sys.argv[2]))
    b = f.read(64)
    f.seek(int(sys.argv[2]))
    f.write(bytes(x ^ 0x5A for x in b))
PY
mv "$TMP/big.darshan" "$SRC/bad.darshan"
dfs_mount "$SRC" "$MNT"
B=$MNT/bad.darshan/POSIX/records.csv
if out=$(stat -c %s "$B" 2>&1); then fail "stat of a damaged records.csv succeeded: $out"; fi
case $out in *"Input/output error"*) ;; *) fail "stat of a damaged records.csv: $out" ;; esac
if out=$(cat "$B" 2>&1 >"$TMP/bad.out"); then fail "cat of a damaged records.csv succeeded"; fi
case $out in *"Input/output error"*) ;; *) fail "cat of a damaged records.csv: $out" ;; esac
[ ! -s "$TMP/bad.out" ] || fail "cat of a damaged records.csv printed $(stat -c %s "$TMP/bad.out") bytes"
grep -q "POSIX module" "$MNT/bad.darshan/ERROR" || fail "ERROR does not name the POSIX module"
dfs_alive "$MNT"
dfs_umount "$MNT"
say "ok: a damaged POSIX region gives EIO and no text"
say PASS
