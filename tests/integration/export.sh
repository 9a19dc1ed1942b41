#!/bin/bash
# export.sh - filtered.darshan is its source log minus what the filters
# removed, in the source's own format, and says which filters made it:
#  - every shared log, read through one mount by one python process
#    (export.py): `darshanfs-cat --parser all` (darshan-parser's output) of
#    filtered.darshan equals the original's but for region sizes, without
#    a filter and with a filter on one module (whose block keeps exactly
#    the records of the filter; every other block is unchanged);
#  - cp of a mounted filtered.darshan (a big-endian 3.10 log filtered on
#    one module) gives the bytes python read, in format 3.10;
#  - directory, log-wide and module filters and an import are named in
#    the metadata, one line per level, top down;
#  - a log whose DXT_POSIX region is damaged exports byte for byte without
#    a filter; with a filter touching DXT_POSIX, filtered.darshan fails with
#    EIO and ERROR names the module.
. "$(dirname "$0")/lib.sh"

SRC=$TMP/src MNT=$TMP/mnt OUT=$TMP/out
make_tree "$SRC"
mkdir -p "$SRC/damaged" "$OUT"
python3 "$IT_DIR/export.py" damage "$LOGS/sample-dxt-simple.darshan" \
	"$SRC/damaged/dxt.darshan" || fail "cannot damage a copy of sample-dxt-simple.darshan"
dfs_mount "$SRC" "$MNT"

start=$(now)
out=$(EXPORT_TMP=$TMP T=400 t python3 "$IT_DIR/export.py" mount "$MNT" "$SRC" "$DFS_CAT" \
	"$OUT" "${LOGREL[@]}") || { echo "$out" >&2; fail "filtered.darshan differs from its log (above)"; }
say "ok: $out ($(elapsed "$start")s)"

index_of() {   # index_of NAME: index in LOGREL of the log named NAME
	local i
	for i in "${!LOGREL[@]}"; do
		[ "${LOGREL[$i]##*/}" = "$1" ] && { echo "$i"; return 0; }
	done
	fail "no log $1 in the tree"
}

# ---- cp of a mounted filtered.darshan, still filtered by export.py
i=$(index_of mpi-io-test-ppc64-3.1.8.darshan)
rel=${LOGREL[$i]}
t cp "$MNT/$rel/filtered.darshan" "$TMP/cp.darshan" || fail "cp $rel/filtered.darshan failed"
cmp -s "$TMP/cp.darshan" "$OUT/$i.darshan" || fail "cp of $rel/filtered.darshan differs from what python read"
ref "$TMP/cp.darshan" header.txt >"$TMP/cp.txt" || fail "the copy of $rel/filtered.darshan does not read"
grep -qx '# darshan log version: 3.10' "$TMP/cp.txt" || fail "the copy of $rel/filtered.darshan is not in format 3.10"
grep -q '^# metadata: darshanfs_filter_[A-Z-]* = [a-z_]* == ' "$TMP/cp.txt" ||
	fail "the copy of $rel/filtered.darshan does not name its filter"
say "ok: cp of $rel/filtered.darshan: format 3.10, big-endian bytes as python read them, filter named"

# ---- every level of filters named, top down
i=$(index_of mpi-io-test-x86_64-3.5.0.darshan)
rel=${LOGREL[$i]}
top=${rel%%/*}
[ "$top" != "$rel" ] || fail "$rel is not below a directory"
for d in "$MNT/$rel"/*/; do [ -f "$d/filter" ] && : >"$d/filter"; done
echo 'rank >= -1' >"$MNT/$top/filter" || fail "echo > $top/filter failed"
echo 'POSIX_OPENS >= 0 or STDIO_OPENS >= 0 or rank >= -1' >"$MNT/$rel/filter" ||
	fail "echo > $rel/filter failed"
echo 'rank == -1' >"$MNT/$rel/STDIO/filter" || fail "echo > $rel/STDIO/filter failed"
t head -n 3 "$MNT/$rel/POSIX/records.csv" >"$TMP/two.csv" || fail "head $rel/POSIX/records.csv failed"
rows=$(($(wc -l <"$TMP/two.csv") - 1))
t cp "$TMP/two.csv" "$MNT/$rel/POSIX/records.csv" || fail "importing $rows POSIX rows into $rel failed"
t cp "$MNT/$rel/filtered.darshan" "$TMP/levels.darshan" || fail "cp $rel/filtered.darshan failed"
ref "$TMP/levels.darshan" header.txt | grep '^# metadata: darshanfs_' >"$TMP/levels.txt"
printf '%s\n' "# metadata: darshanfs_filter_dir:/$top = rank >= -1" \
	"# metadata: darshanfs_filter_log = POSIX_OPENS >= 0 or STDIO_OPENS >= 0 or rank >= -1" \
	"# metadata: darshanfs_import_POSIX = $rows rows" \
	"# metadata: darshanfs_filter_STDIO = rank == -1" >"$TMP/want.txt"
cmp -s "$TMP/levels.txt" "$TMP/want.txt" ||
	fail "$rel/filtered.darshan names its filters as $(cat "$TMP/levels.txt"), not as $(cat "$TMP/want.txt")"
cmp -s "$MNT/$rel/POSIX/records.csv" <(ref "$TMP/levels.darshan" POSIX/records.csv) ||
	fail "the imported rows of $rel read back differently from filtered.darshan"
: >"$MNT/$top/filter"
say "ok: $rel/filtered.darshan names a directory filter, the log filter, a module filter and an import"

# ---- a damaged DXT_POSIX region
D=$MNT/damaged/dxt.darshan
grep -q 'DXT_POSIX' "$D/ERROR" || fail "damaged/dxt.darshan/ERROR does not name DXT_POSIX"
t cp "$D/filtered.darshan" "$TMP/damaged.darshan" || fail "cp of an unfiltered log with a damaged module failed"
cmp -s "$TMP/damaged.darshan" "$SRC/damaged/dxt.darshan" ||
	fail "unfiltered, a log with a damaged module does not export byte for byte"
echo 'rank == 0' >"$D/filter" || fail "echo > damaged/dxt.darshan/filter failed"
t cat "$D/filtered.darshan" >/dev/null 2>"$TMP/eio.txt" &&
	fail "filtered.darshan of a log whose damaged DXT_POSIX a filter touches reads"
grep -q 'Input/output error' "$TMP/eio.txt" || fail "a damaged module under a filter gives '$(cat "$TMP/eio.txt")', not EIO"
say "ok: a damaged DXT_POSIX region is copied unfiltered, and fails filtered.darshan (EIO) under a filter"

dfs_alive "$MNT"
dfs_umount "$MNT"
say "PASS"
