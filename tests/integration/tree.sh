#!/bin/bash
# tree.sh - listing the mount: `ls -R` shows every log as a directory with
# its module directories and files, exactly as darshanfs-cat --list says,
# and decodes no log (root xattr user.darshanfs.decodes stays 0), also for
# a tree of a few thousand logs; logs added to or removed from SOURCE after
# mounting appear and disappear.
. "$(dirname "$0")/lib.sh"

SRC=$TMP/src MNT=$TMP/mnt
make_tree "$SRC"
nlogs=${#LOGREL[@]}
dfs_mount "$SRC" "$MNT"

# ---- the expected tree, from the view code without a mount
# (darshanfs-cat --list --recursive: "name/" is a directory)
exp=$TMP/expected.txt
ref --list --recursive "$SRC" >"$TMP/list-r.txt" || fail "darshanfs-cat --list --recursive failed"
python3 "$IT_DIR/listing.py" expected "$TMP/list-r.txt" >"$exp"

# ---- ls -R through the mount
[ "$(decodes "$MNT")" = 0 ] || fail "decodes is not 0 right after mounting"
start=$(now)
t ls -R --color=never "$MNT" >"$TMP/lsR.txt" || fail "ls -R $MNT failed"
lstime=$(elapsed "$start")
python3 "$IT_DIR/listing.py" parse "$TMP/lsR.txt" "$MNT" >"$TMP/actual.txt"
if ! cmp -s "$exp" "$TMP/actual.txt"; then
	diff "$exp" "$TMP/actual.txt" | head -20 >&2
	fail "ls -R differs from the expected tree"
fi
nfiles=$(grep -c '^f ' "$exp")
nlogdirs=$(grep -c '^d .*\.darshan$' "$exp")
[ "$nlogdirs" = "$nlogs" ] || fail "$nlogdirs log directories listed, $nlogs logs in SOURCE"
nmod=$(grep -c '^d .*\.darshan/[^/]*$' "$exp")
d=$(decodes "$MNT")
[ "$d" = 0 ] || fail "ls -R decoded $d logs (expected 0)"
say "ok: ls -R of $nlogs logs in a nested tree: $nlogdirs log directories, $nmod module directories, $nfiles files, 0 decodes (${lstime}s)"

# find and a python walk (os.scandir) see the same tree, still without decoding
( cd "$MNT" && t find . -mindepth 1 -printf '%y %P\n' ) | sed 's/^d /d /; s/^f /f /' | sort >"$TMP/find.txt"
cmp -s "$exp" "$TMP/find.txt" || { diff "$exp" "$TMP/find.txt" | head >&2; fail "find differs from ls -R"; }
[ "$(decodes "$MNT")" = 0 ] || fail "find decoded logs"
say "ok: find lists the same $(wc -l <"$TMP/find.txt") entries, 0 decodes"

# every log directory has its files and the module directories its
# header names (this reads every header.txt: it decodes)
out=$(python3 "$IT_DIR/listing.py" logs "$exp" "$MNT" "${LOGREL[@]}") || fail "a log directory is wrong (above)"
read -r nlogs nmod <<<"$out"
say "ok: $nlogs log directories hold their files and $nmod module directories, as their headers say"

# the counter is live: reading headers decodes logs
d=$(decodes "$MNT")
[ "$d" -ge "$nlogs" ] || fail "decodes is $d after reading $nlogs header.txt files"
say "ok: reading $nlogs header.txt files makes decodes $d"

# ---- logs appearing and disappearing under a mounted tree
# (the kernel keeps listings until the directory's time moves, checked
# once its attributes are older than attr_timeout: 1 s)
new=$SRC/2026/11/29/added-later.darshan
t ls "$MNT/2026/11/29" >/dev/null
cp "$LOGS/sample.darshan" "$new"
listed_within 3 "$MNT/2026/11/29" added-later.darshan
t cmp -s <(t cat "$MNT/2026/11/29/added-later.darshan/header.txt") <(ref "$LOGS/sample.darshan" header.txt) ||
	fail "header.txt of a log added after mounting is wrong"
mkdir -p "$SRC/2027/01"
cp "$LOGS/dxt.darshan" "$SRC/2027/01/"
t ls "$MNT/2027/01/dxt.darshan/POSIX" | grep -qx records.csv || fail "a new source directory with a log is not visible"
rm "$new"
rm -r "$SRC/2027"
gone=0
for i in $(seq 40); do
	if ! t ls "$MNT/2026/11/29" | grep -qx added-later.darshan &&
		! stat "$MNT/2026/11/29/added-later.darshan" >/dev/null 2>&1 &&
		! stat "$MNT/2027" >/dev/null 2>&1; then
		gone=1
		break
	fi
	sleep 0.25
done
[ $gone = 1 ] || fail "a log removed from SOURCE is still visible after 10 s"
say "ok: a log (and a directory) added after mounting appears; removed, it disappears"

# changes within one second of a coarse time stamp (some parallel file
# systems keep seconds only): each log added, the directory's time set
# back to the same whole second, listed in between
burst=$SRC/2026/11/29
touch -m -d "@$(($(date +%s) - 100))" "$burst"   # settled, and listed
t ls "$MNT/2026/11/29" >/dev/null
sleep 1.1   # attr_timeout
sec=$(date +%s)
for k in 1 2 3; do
	cp "$LOGS/sample.darshan" "$burst/burst$k.darshan"
	touch -m -d "@$sec" "$burst"
	t ls "$MNT/2026/11/29" >/dev/null
done
listed_within 4 "$MNT/2026/11/29" burst1.darshan burst2.darshan burst3.darshan
rm "$burst"/burst?.darshan
say "ok: logs added within one second of a coarse directory time stamp all appear"
dfs_alive "$MNT"
dfs_umount "$MNT"

# ---- a tree of a few thousand logs: listing stays cheap and decodes nothing
NBIG=${DFS_IT_BIG_LOGS:-3000}
BIG=$TMP/big BMNT=$TMP/bigmnt
# (hard links to the copies in $SRC: the shared logs are never linked)
mapfile -t srclogs < <(find "$SRC" -name '*.darshan' | sort)
python3 "$IT_DIR/listing.py" bigtree "$BIG" "$NBIG" "${srclogs[@]}" ||
	fail "cannot make the tree of $NBIG logs"
dfs_mount "$BIG" "$BMNT"
start=$(now)
t ls -R --color=never "$BMNT" >"$TMP/big.txt" || fail "ls -R of the big tree failed"
bigtime=$(elapsed "$start")
python3 "$IT_DIR/listing.py" parse "$TMP/big.txt" "$BMNT" >"$TMP/big-entries.txt"
nbiglogs=$(grep -c '^d .*\.darshan$' "$TMP/big-entries.txt")
nbigent=$(wc -l <"$TMP/big-entries.txt")
[ "$nbiglogs" -eq "$NBIG" ] || fail "ls -R listed $nbiglogs log directories, expected $NBIG"
nhdr=$(grep -c '^f .*\.darshan/header\.txt$' "$TMP/big-entries.txt")
[ "$nhdr" -eq "$NBIG" ] || fail "ls -R listed $nhdr header.txt files, expected $NBIG"
d=$(decodes "$BMNT")
[ "$d" = 0 ] || fail "ls -R of $NBIG logs decoded $d logs"
start=$(now)
t ls -R --color=never "$BMNT" >/dev/null || fail "second ls -R failed"
bigtime2=$(elapsed "$start")
say "ok: ls -R of $NBIG logs: $nbigent entries in ${bigtime}s (again: ${bigtime2}s), 0 decodes"
dfs_alive "$BMNT"
dfs_umount "$BMNT"
say "PASS"
