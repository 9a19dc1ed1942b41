#!/bin/bash
# read.sh - every generated file of every log, read through the mount by
# real clients, is exactly st_size bytes and the same bytes darshanfs-cat
# prints; header.txt equals the header of darshan-parser's output.
#
#   python (one process)     the mount lists the files darshanfs-cat
#                            --extract writes; on one open of each file:
#                            st_size and a whole read equal darshanfs-cat's,
#                            then chunked reads at odd sizes, 1- and 7-byte
#                            reads across page and buffer boundaries and the
#                            end, preads at odd offsets, mmap (MAP_PRIVATE,
#                            ACCESS_READ) of records.csv (readers.py --tree;
#                            the quick pass: the later reads of one file in
#                            four)
#   find, stat, cat          over all files at once (a process each)
#   tail -c 100, cp -r       over a sample: the files beside the logs, and
#                            the logs that between them hold every kind of
#                            file (every path below a log's directory) and
#                            the biggest file
#   dd bs=1k                 every file of one log, and the biggest file
#                            of every N-th log (N = $DFS_IT_CLIENT_LOGS,
#                            default 10)
. "$(dirname "$0")/lib.sh"

SRC=$TMP/src MNT=$TMP/mnt
make_tree "$SRC"
dfs_mount "$SRC" "$MNT"
every=${DFS_IT_CLIENT_LOGS:-10}
REF=$TMP/ref

start=$(now)
t "$REF_CAT" --extract "$REF" "$SRC" || fail "darshanfs-cat --extract of the tree failed"
# a good log has no ERROR file
for rel in "${LOGREL[@]}"; do
	[ -e "$REF/$rel/ERROR" ] && fail "$rel: a good log has an ERROR file: $(cat "$REF/$rel/ERROR")"
done
read -r nfiles nbytes nmaps < <(t python3 "$IT_DIR/readers.py" --tree "$MNT" "$REF") ||
	fail "python reads of the mount differ from darshanfs-cat (above)"
[ -n "$nmaps" ] || fail "python reads of the mount differ from darshanfs-cat (above)"
ways="of each of $nfiles files"
[ "${DFS_TEST_QUICK:-0}" = 1 ] && ways="of $nfiles files (the later reads of one in four)"
say "ok: st_size, a whole read, chunked, 1- and 7-byte reads and preads $ways" \
	"($nbytes bytes) and mmaps of $nmaps records.csv equal darshanfs-cat ($(elapsed "$start")s)"

# the same with the shell's clients, over every file at once
start=$(now)
( cd "$MNT" && t find . -type f -printf '%P %s\n' | sort ) >"$TMP/sizes.mnt" || fail "find -printf %s in the mount failed"
( cd "$REF" && find . -type f -printf '%P %s\n' | sort ) >"$TMP/sizes.ref"
cmp -s "$TMP/sizes.mnt" "$TMP/sizes.ref" || {
	diff "$TMP/sizes.ref" "$TMP/sizes.mnt" | head >&2
	fail "find's st_size of the mount's files differ from darshanfs-cat's bytes"
}
mapfile -d '' -t files < <(cd "$REF" && find . -type f -printf '%P\0' | sort -z)
( cd "$MNT" && t stat -c '%n %s' "${files[@]}" ) >"$TMP/stat.mnt" || fail "stat of the mount's files failed"
( cd "$REF" && stat -c '%n %s' "${files[@]}" ) | cmp -s - "$TMP/stat.mnt" || fail "stat's st_size differs from darshanfs-cat's bytes"
# (cat's 160 MB go straight to cmp, not through a file)
( cd "$MNT" && t cat "${files[@]}" ) | cmp -s - <(cd "$REF" && cat "${files[@]}")
st=("${PIPESTATUS[@]}")
[ "${st[1]}" = 0 ] || fail "cat of the mount's files differs from darshanfs-cat (cat's status ${st[0]})"
[ "${st[0]}" = 0 ] || fail "cat of the mount's files failed"
say "ok: find, stat and cat of the same ${#files[@]} files equal darshanfs-cat ($(elapsed "$start")s)"

# tail and cp -r of a sample that holds every kind of file: the files
# beside the logs, the log with the biggest file, then the log with the
# most kinds not yet held, and so on (python and cat read every file)
start=$(now)
python3 - "$REF" "${LOGREL[@]}" >"$TMP/sample" <<'PY' || fail "could not choose the sample of files"
import os, sys
ref, rels = sys.argv[1], sys.argv[2:]
kinds, biggest, out = {}, (-1, ""), []
for rel in rels:
    top, ks = os.path.join(ref, rel), set()
    for d, _, fs in os.walk(top):
        for f in fs:
            p = os.path.join(d, f)
            ks.add(os.path.relpath(p, top))
            biggest = max(biggest, (os.path.getsize(p), rel))
    kinds[rel] = ks
chosen, left = [biggest[1]], set().union(*kinds.values()) - kinds[biggest[1]]
while left:
    rel = max(rels, key=lambda r: len(kinds[r] & left))
    chosen.append(rel)
    left -= kinds[rel]
logs = set(rels)
for d, dirs, fs in os.walk(ref):
    dirs[:] = [x for x in dirs if os.path.relpath(os.path.join(d, x), ref) not in logs]
    out += [os.path.relpath(os.path.join(d, f), ref) for f in fs]
sys.stdout.write("".join(p + "\0" for p in sorted(out) + chosen))
PY
mapfile -d '' -t sample <"$TMP/sample"
mapfile -d '' -t some < <(cd "$REF" && find "${sample[@]}" -type f -print0 | sort -z)
( cd "$MNT" && t tail -q -c 100 "${some[@]}" ) >"$TMP/got" || fail "tail -c 100 of the mount's files failed"
( cd "$REF" && tail -q -c 100 "${some[@]}" ) | cmp -s - "$TMP/got" || fail "tail -c 100 of the mount's files differs"
mkdir "$TMP/cp" "$TMP/cp.ref"
( cd "$MNT" && t cp -r --parents "${sample[@]}" "$TMP/cp" ) || fail "cp -r of the mount failed"
( cd "$REF" && cp -r --parents "${sample[@]}" "$TMP/cp.ref" ) || fail "cp -r of darshanfs-cat's files failed"
diff -r -q "$TMP/cp.ref" "$TMP/cp" >&2 || fail "cp -r of the mount differs from darshanfs-cat"
rm -rf "$TMP/cp" "$TMP/cp.ref"
say "ok: tail -c 100 and cp -r of ${#some[@]} files (${#sample[@]} files and logs) equal darshanfs-cat ($(elapsed "$start")s)"

# dd bs=1k: every file of one log, and the biggest file of every N-th log
start=$(now)
dd_files=()
mapfile -t -O 0 dd_files < <(cd "$REF" && find "${LOGREL[0]}" -type f | sort)
for ((i = 1; i < ${#LOGREL[@]}; i += every)); do
	dd_files+=("$(cd "$REF" && find "${LOGREL[$i]}" -type f -printf '%s %p\n' | sort -rn | head -1 | cut -d' ' -f2-)")
done
( cd "$MNT" && t bash -c 'for f; do dd if="$f" bs=1k status=none || exit 1; done' _ "${dd_files[@]}" ) >"$TMP/got" ||
	fail "dd bs=1k of a file of the mount failed"
( cd "$REF" && cat "${dd_files[@]}" ) | cmp -s - "$TMP/got" || fail "dd bs=1k of the mount's files differs from darshanfs-cat"
say "ok: dd bs=1k of ${#dd_files[@]} files equals darshanfs-cat ($(elapsed "$start")s)"

# header.txt is the header block darshan-parser prints
out=$(python3 - "$ORACLE/parser" "$MNT" "${LOGREL[@]}" <<'PY'
import gzip, os, sys
oracle, mnt, rels = sys.argv[1], sys.argv[2], sys.argv[3:]
n = 0
for rel in rels:
    o = os.path.join(oracle, os.path.basename(rel))
    if os.path.exists(o + "/base.txt"):
        t = open(o + "/base.txt", "rb").read()
    elif os.path.exists(o + "/base.txt.gz"):
        t = gzip.open(o + "/base.txt.gz").read()
    else:
        continue
    i = t.find(b"\n# description of columns:")
    want = t[:i] if i >= 0 else b"(no header in base.txt)"
    got = open(os.path.join(mnt, rel, "header.txt"), "rb").read()
    if got != want:
        sys.exit(f"FAIL: {rel}/header.txt differs from the oracle's base.txt header")
    n += 1
print(n)
PY
) || fail "header.txt differs from darshan-parser (above)"
say "ok: header.txt of $out logs equals the oracle's base.txt header"

dfs_alive "$MNT"
dfs_umount "$MNT"
say "PASS"
