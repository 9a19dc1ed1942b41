#!/bin/bash
# selfref.sh - a SOURCE that leads into its own mount never hangs it.
# Whoever may write a directory of SOURCE can plant links into the mount
# (to a file of another log, to the link itself, to the mount's root,
# relative or absolute, through a chain of links) or, as root, bind the
# mount itself into SOURCE.  Following any of them would ask the daemon
# for what it is answering: a lookup waiting for itself, a hang that no
# kill ends.  Every such entry is hidden (ls, lookup, jobs.csv,
# insights.csv, summary.html), with -o follow_outside and -s too, while
# an ordinary link beside them shows.  Every read runs under a watchdog
# that aborts the FUSE connection, so a regression fails here instead of
# hanging the suite.  (MOUNTPOINT inside SOURCE and the reverse are
# refused at mount time: cmdline.sh.)
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (to bind the mount into SOURCE and abort hung connections)"

SRC=$TMP/src MNT=$TMP/mnt
mkdir -p "$SRC/d" "$MNT"
cp "$LOGS/sample.darshan" "$SRC/d/x.darshan"
ln -s x.darshan "$SRC/d/good.darshan"
ln -s "$MNT/d/x.darshan/filtered.darshan" "$SRC/d/other.darshan"   # absolute, another log's file
ln -s "$MNT/d/self.darshan" "$SRC/d/self.darshan"                 # itself, through the mount
ln -s ../../mnt/d/x.darshan/filtered.darshan "$SRC/d/rel.darshan"  # relative
ln -s "$MNT" "$SRC/d/root.darshan"                                # the mount's root
ln -s hop.darshan "$SRC/d/chain.darshan"                          # a chain ending in the mount
ln -s "$SRC/d/rel.darshan" "$SRC/d/hop.darshan"
ln -s "$MNT/d/../d/x.darshan/filtered.darshan" "$SRC/d/dots.darshan"
ln -s loop.darshan "$SRC/d/loop.darshan"                          # a loop on disk (ELOOP)
HIDDEN="other self rel root chain hop dots loop"

# WHAT: every read of the mount under a watchdog of SECS seconds
guarded() {   # guarded WHAT CMD... (output in $TMP/out)
	local what=$1 st
	shift
	watchdog 15 "$MNT" "$@" >"$TMP/out" 2>"$TMP/err"
	st=$?
	[ $st = 124 ] && fail "$what hung (the watchdog aborted the connection)"
	return $st
}

check_mount() {   # check_mount HOW
	local how=$1 n
	guarded "ls -l $MNT/d ($how)" ls -l "$MNT/d" || fail "ls -l $MNT/d ($how): $(cat "$TMP/err")"
	grep -q ' x.darshan$' "$TMP/out" && grep -q ' good.darshan$' "$TMP/out" ||
		fail "ls -l $MNT/d ($how) lacks x.darshan or good.darshan: $(cat "$TMP/out")"
	for n in ${HIDDEN// /.darshan }.darshan bound; do
		grep -q " $n\$" "$TMP/out" && fail "ls -l $MNT/d ($how) lists $n: $(grep " $n" "$TMP/out")"
		if guarded "stat $n ($how)" stat "$MNT/d/$n"; then
			fail "$n ($how) can be looked up: $(cat "$TMP/out")"
		fi
		grep -q "No such file" "$TMP/err" || fail "stat $n ($how): '$(cat "$TMP/err")'"
	done
	guarded "cat good.darshan/header.txt ($how)" cat "$MNT/d/good.darshan/header.txt" ||
		fail "good.darshan/header.txt ($how): $(cat "$TMP/err")"
	cmp -s "$TMP/out" <(ref "$SRC" d/x.darshan/header.txt) || fail "good.darshan/header.txt ($how) differs from x.darshan's"
	for f in jobs.csv d/jobs.csv insights.csv d/insights.csv; do
		guarded "cat $f ($how)" cat "$MNT/$f" || fail "cat $f ($how): $(cat "$TMP/err")"
		grep -q '^d/x.darshan,\|^x.darshan,' "$TMP/out" || fail "$f ($how) has no row of x.darshan"
		grep -q 'good.darshan,' "$TMP/out" || fail "$f ($how) has no row of good.darshan"
		for n in $HIDDEN bound; do
			grep -q "/$n\|^$n" "$TMP/out" && fail "$f ($how) has a row of $n: $(grep "$n" "$TMP/out" | head -1)"
		done
	done
	guarded "cat summary.html ($how)" cat "$MNT/summary.html" || fail "summary.html ($how): $(cat "$TMP/err")"
	guarded "ls -R ($how)" ls -R "$MNT" || fail "ls -R $MNT ($how): $(cat "$TMP/err")"
	dfs_alive "$MNT"
	say "ok: $how: links into the mount ($HIDDEN) hidden from ls, lookups, jobs.csv, insights.csv; good.darshan shows"
}

dfs_mount "$SRC" "$MNT"
# the mount itself bound into SOURCE: a directory on the mount's device
mkdir -p "$SRC/d/bound"
mount --bind "$MNT" "$SRC/d/bound" || skip "cannot bind-mount $MNT"
ln -s "$SRC/d/bound/d/x.darshan/filtered.darshan" "$SRC/d/viabind.darshan"
HIDDEN="$HIDDEN viabind"
check_mount "default options, the mount bound at d/bound"
umount "$SRC/d/bound" || fail "cannot unmount $SRC/d/bound"
rmdir "$SRC/d/bound"
dfs_umount "$MNT"

# a link out of SOURCE is followed with follow_outside: never into the mount
dfs_mount "$SRC" "$MNT" -o allow_other,follow_outside
check_mount "-o allow_other,follow_outside"
dfs_umount "$MNT"

# single-threaded: nothing may ask the mount at all (no thread is free to answer)
dfs_mount "$SRC" "$MNT" -s
check_mount "-s"
dfs_umount "$MNT"
say "PASS"
