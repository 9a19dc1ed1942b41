#!/bin/bash
# cmdline.sh - the darshanfs command line: --version, --help, start-up
# errors with their exit status (nothing mounted), a single log as SOURCE,
# -f in the foreground ended by SIGTERM, SIGINT or SIGHUP (clean unmount,
# status 0), -s, the daemon mode, and fstab-style mounting through
# mount.fuse3 (type fuse.darshanfs) and the mount.darshanfs helper.  Also:
# a second mount on a darshanfs mount point is refused, the tree's names
# cannot be created, removed, renamed or linked (EPERM, EROFS when ro), a
# module filter naming another module's column says so, and
# darshanfs-cat's status for a directory and its listing without PATH.
. "$(dirname "$0")/lib.sh"

SRC=$TMP/src MNT=$TMP/mnt
make_tree "$SRC" "$LOGS"/sample.darshan "$LOGS"/dxt.darshan
mkdir -p "$MNT"

# run darshanfs with a time limit, stdin closed, output to files
run() { timeout -k 5 30 "$DARSHANFS" "$@" </dev/null >"$TMP/out" 2>"$TMP/err"; }
not_mounted() { ! is_mounted "$MNT" || { force_umount "$MNT"; fail "$1: $MNT was mounted"; }; }

# ---- --version, --help
run --version || fail "darshanfs --version exited with $?"
grep -Eq '^darshanfs version [0-9]+\.[0-9]+' "$TMP/out" || fail "--version does not print ours: $(cat "$TMP/out")"
grep -Eq '^FUSE library version 3\.[0-9]+' "$TMP/out" || fail "--version does not print the FUSE library's: $(cat "$TMP/out")"
run -V || fail "darshanfs -V exited with $?"
grep -q '^darshanfs version' "$TMP/out" || fail "-V does not print the version"
say "ok: --version: $(grep -E '^(darshanfs|FUSE library) version' "$TMP/out" | tr '\n' ';')"
for h in --help -h; do
	run $h || fail "darshanfs $h exited with $?"
	for w in 'usage: darshanfs \[options\] SOURCE MOUNTPOINT' cache_size= import_limit= attr_timeout= \
		'-h, --help' '-V, --version' 'FUSE options' '-f' '-d' '-s' 'allow_other' 'exit status'; do
		grep -q -e "$w" "$TMP/out" || fail "darshanfs $h does not mention '$w'"
	done
done
say "ok: --help and -h print the usage, our -o options and FUSE's ($(wc -l <"$TMP/out") lines)"

# ---- start-up errors: status, a message on stderr, nothing mounted
expect_status() {   # expect_status STATUS DESCRIPTION ARGS...
	local want=$1 what=$2 st
	shift 2
	run "$@"
	st=$?
	[ "$st" = "$want" ] || fail "$what: exit status $st, expected $want (stderr: $(cat "$TMP/err"))"
	[ -s "$TMP/err" ] || fail "$what: nothing on stderr"
	not_mounted "$what"
	say "ok: $what -> $st: $(head -1 "$TMP/err")"
}
echo "hello" >"$TMP/notalog.txt"
echo "hello, not a log" >"$TMP/fake.darshan"
head -c 100 "$LOGS/sample.darshan" >"$TMP/short.darshan"
expect_status 2 "a missing SOURCE" "$TMP/no-such-dir" "$MNT"
expect_status 2 "a SOURCE that is a text file" "$TMP/notalog.txt" "$MNT"
expect_status 2 "a SOURCE named .darshan that is not a log" "$TMP/fake.darshan" "$MNT"
expect_status 2 "a SOURCE that is a log cut short" "$TMP/short.darshan" "$MNT"
expect_status 1 "a bad -o option" -o no_such_option "$SRC" "$MNT"
expect_status 1 "a bad cache_size" -o cache_size=lots "$SRC" "$MNT"
expect_status 1 "a bad import_limit" -o import_limit=-1 "$SRC" "$MNT"
expect_status 1 "a negative attr_timeout" -o attr_timeout=-1 "$SRC" "$MNT"
expect_status 1 "a non-numeric attr_timeout" -o attr_timeout=soon "$SRC" "$MNT"
expect_status 1 "an infinite attr_timeout" -o attr_timeout=inf "$SRC" "$MNT"
expect_status 1 "an unknown command-line flag" --no-such-flag "$SRC" "$MNT"
expect_status 1 "no arguments"
expect_status 1 "no MOUNTPOINT" "$SRC"
expect_status 1 "three operands" "$SRC" "$MNT" extra
run "$SRC" "$TMP/no-such-mountpoint"
st=$?
[ $st = 3 ] || fail "a missing MOUNTPOINT: exit status $st, not 3 (stderr: $(cat "$TMP/err"))"
say "ok: a missing MOUNTPOINT -> $st: $(head -1 "$TMP/err")"

# ---- a mount never hides data nor serves itself: refused with status 3,
# the reason and the likely cause on stderr, nothing mounted
refused() {   # refused DESCRIPTION REGEX DIR-NOT-MOUNTED darshanfs-ARGS...
	local what=$1 re=$2 dir=$3 st
	shift 3
	run "$@"
	st=$?
	is_mounted "$dir" && { force_umount "$dir"; fail "$what: $dir was mounted"; }
	[ "$st" = 3 ] || fail "$what: exit status $st, expected 3 (stderr: $(cat "$TMP/err"))"
	grep -Eq "$re" "$TMP/err" || fail "$what: stderr '$(cat "$TMP/err")' does not match /$re/"
	say "ok: $what -> 3: $(head -1 "$TMP/err")"
}
EMPTY=$TMP/empty SWAP=$TMP/swapped
mkdir -p "$EMPTY" "$SWAP/2026/11"
# (links to the shared logs: what a swapped mount would hide)
ln -s "$LOGS"/*.darshan "$SWAP/2026/11/"
nshared=$(ls "$LOGS"/*.darshan | wc -l)
refused "SOURCE and MOUNTPOINT swapped (MOUNTPOINT holds the logs)" \
	"MOUNTPOINT $SWAP holds $nshared Darshan logs: were SOURCE and MOUNTPOINT swapped\?" "$SWAP" \
	"$EMPTY" "$SWAP"
echo "notes" >"$TMP/full.txt"
mkdir -p "$TMP/busy"
cp "$TMP/full.txt" "$TMP/busy/README"
refused "a MOUNTPOINT that holds a file" "MOUNTPOINT $TMP/busy is not empty \(1 entry\).*-o nonempty" \
	"$TMP/busy" "$SRC" "$TMP/busy"
mkdir -p "$SRC/inner" "$TMP/outer/src"
cp "$LOGS/sample.darshan" "$TMP/outer/src/"
refused "MOUNTPOINT inside SOURCE" "MOUNTPOINT $SRC/inner is inside SOURCE $SRC" "$SRC/inner" \
	"$SRC" "$SRC/inner"
refused "MOUNTPOINT inside SOURCE, with -o nonempty" "is inside SOURCE" "$SRC/inner" \
	-o nonempty "$SRC" "$SRC/inner"
refused "SOURCE inside MOUNTPOINT" "SOURCE $TMP/outer/src is inside MOUNTPOINT $TMP/outer" \
	"$TMP/outer" "$TMP/outer/src" "$TMP/outer"
refused "a log as SOURCE inside MOUNTPOINT" "SOURCE $TMP/outer/src/sample.darshan is inside MOUNTPOINT" \
	"$TMP/outer/src" "$TMP/outer/src/sample.darshan" "$TMP/outer/src"
refused "SOURCE and MOUNTPOINT the same directory" "SOURCE and MOUNTPOINT are the same directory" \
	"$EMPTY" "$EMPTY" "$EMPTY/."
ln -s "$SRC/inner" "$TMP/link-to-inner"
refused "MOUNTPOINT inside SOURCE, named through a link" "is inside SOURCE" "$SRC/inner" \
	"$SRC" "$TMP/link-to-inner"
# -o nonempty mounts over what MOUNTPOINT holds, which shows again after
run -o nonempty "$SRC" "$TMP/busy" || fail "-o nonempty: exit status $? (stderr: $(cat "$TMP/err"))"
is_mounted "$TMP/busy" || fail "-o nonempty did not mount"
[ -e "$TMP/busy/README" ] && fail "-o nonempty: the mount does not cover MOUNTPOINT's file"
t cmp -s "$TMP/busy/${LOGREL[0]}/header.txt" <(ref "$SRC" "${LOGREL[0]}/header.txt") ||
	fail "-o nonempty: header.txt differs"
t fusermount3 -u "$TMP/busy" || fail "fusermount3 -u $TMP/busy failed"
cmp -s "$TMP/busy/README" "$TMP/full.txt" || fail "MOUNTPOINT's file changed under a -o nonempty mount"
say "ok: -o nonempty mounts over a MOUNTPOINT that holds a file, which shows again after the unmount"
# a SOURCE without any log: mounted, with a warning; none with logs
run "$EMPTY" "$MNT" || fail "an empty SOURCE: exit status $? (stderr: $(cat "$TMP/err"))"
is_mounted "$MNT" || fail "an empty SOURCE was not mounted"
t fusermount3 -u "$MNT" || fail "fusermount3 -u $MNT failed"
grep -q "warning: SOURCE $EMPTY holds no Darshan log" "$TMP/err" ||
	fail "an empty SOURCE mounts without a warning: '$(cat "$TMP/err")'"
say "ok: an empty SOURCE mounts and warns: $(head -1 "$TMP/err")"
run "$SRC" "$MNT" || fail "darshanfs SRC MNT exited with $?: $(cat "$TMP/err")"
t fusermount3 -u "$MNT" || fail "fusermount3 -u $MNT failed"
grep -q warning "$TMP/err" && fail "a SOURCE with logs warns: $(cat "$TMP/err")"

# ---- a single log as SOURCE: the mount is that log's directory
dfs_mount "$LOGS/sample.darshan" "$MNT"
[ -f "$MNT/header.txt" ] && [ -d "$MNT/POSIX" ] || fail "a log as SOURCE: no header.txt or POSIX/ at the root"
t cmp -s "$MNT/header.txt" <(ref "$LOGS/sample.darshan" header.txt) || fail "a log as SOURCE: header.txt differs"
echo 'rank == 0' >"$MNT/POSIX/filter" || fail "a log as SOURCE: cannot write POSIX/filter"
say "ok: a single log as SOURCE mounts as its directory"

# ---- a second darshanfs on the same mount point: refused, status 3
mounts_on() { awk -v m="$1" '$2 == m' /proc/mounts | wc -l; }
for target in "$MNT" "$MNT/"; do
	run "$LOGS/dxt.darshan" "$target"
	st=$?
	[ "$st" = 3 ] || fail "a second mount on $target: exit status $st, expected 3 (stderr: $(cat "$TMP/err"))"
	grep -q "already a darshanfs mount point" "$TMP/err" || fail "a second mount on $target: '$(cat "$TMP/err")'"
	[ "$(mounts_on "$MNT")" = 1 ] || fail "a second mount on $target was stacked: $(grep " $MNT " /proc/mounts)"
done
t cmp -s "$MNT/header.txt" <(ref "$LOGS/sample.darshan" header.txt) || fail "the first mount changed under a refused second one"
say "ok: a second mount on a darshanfs mount point -> 3: $(head -1 "$TMP/err")"

# ---- the tree's names are fixed: EPERM (EROFS on a ro mount), never ENOSYS
# shape_fixed DIR REGEX: every change of names under DIR fails with a
# message matching REGEX, and DIR lists the same afterwards
shape_fixed() {
	local d=$1 re=$2 what before
	before=$(t ls -R "$d")
	while IFS='|' read -r what cmd; do
		if (cd "$d" && eval "t $cmd") 2>"$TMP/shape.err" >/dev/null; then
			fail "$what in $d succeeded"
		fi
		grep -Eq "$re" "$TMP/shape.err" || fail "$what in $d: '$(cat "$TMP/shape.err")', expected /$re/"
	done <<-'EOF'
		touch a new file|touch new.txt
		rm a file|rm -f header.txt
		rm -r a module directory|rm -rf POSIX
		mkdir|mkdir newdir
		mv a file|mv header.txt moved.txt
		mv a filter|mv POSIX/filter POSIX/filter2
		ln|ln header.txt hard.txt
		ln -s|ln -s header.txt soft.txt
		redirect into a new file|sh -c ': > new.csv'
	EOF
	[ "$(t ls -R "$d")" = "$before" ] || fail "the names under $d changed"
}
shape_fixed "$MNT" "Operation not permitted|Permission denied"
echo 'rank == 1' >"$MNT/POSIX/filter" || fail "filters are no longer writable"
t cp "$MNT/POSIX/records.csv" "$TMP/sel.csv" && t cp "$TMP/sel.csv" "$MNT/POSIX/records.csv" ||
	fail "records.csv no longer takes a CSV"
say "ok: touch, rm, mkdir, mv, ln on the tree -> EPERM; filter and records.csv still take writes"

# ---- a module filter naming another module's column says where it is
if echo 'STDIO_BYTES_READ > 0' 2>/dev/null >"$MNT/POSIX/filter"; then
	fail "POSIX/filter took a column of STDIO"
fi
grep -qF "unknown column 'STDIO_BYTES_READ' (a column of STDIO: use the log-wide filter LOG/filter)" \
	"$MNT/POSIX/filter.error" || fail "POSIX/filter.error: '$(cat "$MNT/POSIX/filter.error")'"
echo 'STDIO_BYTES_READ > 0' >"$MNT/filter" || fail "the log-wide filter refused a column of STDIO"
: >"$MNT/filter"
say "ok: $(cat "$MNT/POSIX/filter.error")"
dfs_umount "$MNT"

# ---- darshanfs-cat: a directory as PATH (status 6), no PATH lists the log
t "$DFS_CAT" "$LOGS/sample.darshan" POSIX >"$TMP/out" 2>"$TMP/err"
st=$?
[ "$st" = 6 ] || fail "darshanfs-cat LOG POSIX: exit status $st, expected 6 (stderr: $(cat "$TMP/err"))"
grep -q "is a directory" "$TMP/err" || fail "darshanfs-cat LOG POSIX: '$(cat "$TMP/err")'"
[ -s "$TMP/out" ] && fail "darshanfs-cat LOG POSIX printed something"
t "$DFS_CAT" "$LOGS/sample.darshan" >"$TMP/out" 2>"$TMP/err" || fail "darshanfs-cat LOG failed: $(cat "$TMP/err")"
t "$DFS_CAT" --list "$LOGS/sample.darshan" >"$TMP/list" || fail "darshanfs-cat --list LOG failed"
cmp -s "$TMP/out" "$TMP/list" || fail "darshanfs-cat LOG does not list the log: $(head -3 "$TMP/out")"
grep -qx "POSIX/" "$TMP/out" || fail "darshanfs-cat LOG: no POSIX/ in '$(cat "$TMP/out")'"
t "$DFS_CAT" --help | grep -Eq "6 +PATH is a directory" || fail "darshanfs-cat --help does not document status 6"
say "ok: darshanfs-cat LOG POSIX -> 6, darshanfs-cat LOG lists $(wc -l <"$TMP/out") names"

# ---- -s (single-threaded), -o options that tune it
# (with a log compressed as a whole file beside: hidden, as the README says)
gzip -c "$LOGS/sample.darshan" >"$SRC/whole.darshan.gz"
dfs_mount "$SRC" "$MNT" -s -o cache_size=16M,attr_timeout=0,import_limit=1M
t cat "$MNT/${LOGREL[1]}/POSIX/records.csv" >/dev/null || fail "cannot read through a -s mount"
t ls "$MNT" | grep -q 'whole' && fail "a .darshan.gz log is listed"
rm -f "$SRC/whole.darshan.gz"
echo 'rank == 0' >"$MNT/${LOGREL[1]}/POSIX/filter" || fail "cannot filter through a -s mount"
dfs_umount "$MNT"
say "ok: -s -o cache_size=16M,attr_timeout=0,import_limit=1M mounts and serves"

# ---- daemon mode: returns at once, mounted; fusermount3 -u ends the daemon
# (bash builtins read every /proc/PID/cmdline: no process per process of
# a busy machine; readlink runs only for those that name $1)
DFS_REAL=$(readlink -f "$DARSHANFS")
daemon_pids() {   # pids of darshanfs processes serving $1
	local p args joined
	for p in /proc/[0-9]*; do
		args=()
		mapfile -d '' -t args 2>/dev/null <"$p/cmdline" || continue
		printf -v joined ' %s' "${args[@]:1}"
		[[ $joined == *" $1"* ]] || continue
		[ "$(readlink "$p/exe" 2>/dev/null)" = "$DFS_REAL" ] && echo "${p#/proc/}"
	done
}
wait_gone() {
	local p i
	for p in "$@"; do
		for i in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -0 "$p" 2>/dev/null && fail "darshanfs (pid $p) still runs 10 s after its unmount"
	done
	return 0
}
run "$SRC" "$MNT" || fail "darshanfs SRC MNT (daemon) exited with $?: $(cat "$TMP/err")"
is_mounted "$MNT" || fail "darshanfs SRC MNT returned without mounting"
pids=$(daemon_pids "$MNT")
[ -n "$pids" ] || fail "no darshanfs daemon serves $MNT"
t cat "$MNT/${LOGREL[0]}/POSIX/records.csv" >/dev/null || fail "cannot read through the daemon"
t fusermount3 -u "$MNT" || fail "fusermount3 -u failed"
wait_gone $pids
say "ok: daemon mode (pid $pids) mounts, serves, and exits on fusermount3 -u"

# ---- fstab: type fuse.darshanfs through mount.fuse3, and mount.darshanfs
BIN=$TMP/bin
mkdir -p "$BIN"
ln -s "$DARSHANFS" "$BIN/darshanfs"
ln -s "$DARSHANFS" "$BIN/mount.darshanfs"
ln -s "$DARSHANFS" "$BIN/mount.fuse.darshanfs"
FSTAB_OPTS=ro,allow_other,noauto,nofail,_netdev,x-systemd.automount,cache_size=64M
check_fstab_mount() {   # check_fstab_mount HOW RO(1/0)
	is_mounted "$MNT" || fail "$1: nothing mounted"
	awk -v m="$MNT" '$2 == m { print $3 }' /proc/mounts | grep -qx fuse.darshanfs ||
		fail "$1: the mount's type is not fuse.darshanfs: $(grep " $MNT " /proc/mounts)"
	awk -v m="$MNT" '$2 == m { print $1 }' /proc/mounts | grep -qxF "$SRC" ||
		fail "$1: the mount's source is not $SRC: $(grep " $MNT " /proc/mounts)"
	t cmp -s "$MNT/${LOGREL[0]}/header.txt" <(ref "$SRC" "${LOGREL[0]}/header.txt") || fail "$1: header.txt differs"
	if [ "$2" = 1 ]; then
		if echo 'rank == 0' 2>"$TMP/err" >"$MNT/${LOGREL[0]}/POSIX/filter"; then fail "$1: a ro mount took a filter"; fi
		grep -q "Read-only file system" "$TMP/err" || fail "$1: writing a filter on a ro mount: '$(cat "$TMP/err")'"
		shape_fixed "$MNT/${LOGREL[0]}" "Read-only file system"
	else
		echo 'rank == 0' >"$MNT/${LOGREL[0]}/POSIX/filter" || fail "$1: a rw mount refused a filter"
	fi
	local pids
	pids=$(daemon_pids "$MNT")
	t umount "$MNT" || fail "$1: umount failed"
	wait_gone $pids
	say "ok: $1"
}
if command -v mount.fuse3 >/dev/null || [ -x /sbin/mount.fuse3 ]; then
	MF=$(command -v mount.fuse3 || echo /sbin/mount.fuse3)
	# mount(8) runs its helpers with PATH removed, so `mount -t fuse.darshanfs`
	# only finds an installed darshanfs; call mount.fuse3 the way mount(8) does,
	# with our PATH.
	PATH=$BIN:$PATH t "$MF" "$SRC" "$MNT" -o "$FSTAB_OPTS" -t fuse.darshanfs </dev/null >/dev/null 2>"$TMP/err" ||
		fail "mount.fuse3 -t fuse.darshanfs failed: $(cat "$TMP/err")"
	check_fstab_mount "mount.fuse3 SRC MNT -t fuse.darshanfs -o $FSTAB_OPTS (fstab: SRC MNT fuse.darshanfs $FSTAB_OPTS 0 0)" 1
	PATH=$BIN:$PATH t "$MF" "$SRC" "$MNT" -o rw -t fuse.darshanfs </dev/null >/dev/null 2>"$TMP/err" ||
		fail "mount.fuse3 -o rw failed: $(cat "$TMP/err")"
	check_fstab_mount "mount.fuse3 ... -o rw: filters can be written" 0
	if command -v darshanfs >/dev/null 2>&1 && [ "$(readlink -f "$(command -v darshanfs)")" = "$(readlink -f "$DARSHANFS")" ]; then
		t mount -t fuse.darshanfs -o ro "$SRC" "$MNT" </dev/null || fail "mount -t fuse.darshanfs failed"
		check_fstab_mount "mount -t fuse.darshanfs -o ro" 1
	fi
else
	say "note: no mount.fuse3, fuse.darshanfs type not checked"
fi
for helper in mount.darshanfs mount.fuse.darshanfs; do
	t "$BIN/$helper" "$SRC" "$MNT" -n -v -o "$FSTAB_OPTS,defaults,user" </dev/null >/dev/null 2>"$TMP/err" ||
		fail "$helper SRC MNT -n -v -o ... failed: $(cat "$TMP/err")"
	check_fstab_mount "$helper SRC MNT -n -v -o $FSTAB_OPTS,defaults,user" 1
done
# the same refusals through the helpers /etc/fstab uses
for helper in mount.darshanfs mount.fuse.darshanfs; do
	t "$BIN/$helper" "$SRC" "$SRC/inner" -n -o ro </dev/null >/dev/null 2>"$TMP/err"
	st=$?
	is_mounted "$SRC/inner" && { force_umount "$SRC/inner"; fail "$helper mounted $SRC/inner inside SOURCE"; }
	[ $st = 3 ] && grep -q "is inside SOURCE" "$TMP/err" ||
		fail "$helper SRC SRC/inner: status $st, '$(cat "$TMP/err")'"
	t "$BIN/$helper" "$EMPTY" "$SWAP" -o ro </dev/null >/dev/null 2>"$TMP/err"
	st=$?
	is_mounted "$SWAP" && { force_umount "$SWAP"; fail "$helper mounted over $SWAP"; }
	[ $st = 3 ] && grep -q "were SOURCE and MOUNTPOINT swapped" "$TMP/err" ||
		fail "$helper EMPTY SWAPPED: status $st, '$(cat "$TMP/err")'"
	say "ok: $helper refuses MOUNTPOINT inside SOURCE and a swapped pair (status 3)"
done
if [ -n "${MF:-}" ]; then
	PATH=$BIN:$PATH t "$MF" "$SRC" "$SRC/inner" -o ro -t fuse.darshanfs </dev/null >/dev/null 2>"$TMP/err"
	st=$?
	is_mounted "$SRC/inner" && { force_umount "$SRC/inner"; fail "mount.fuse3 mounted $SRC/inner inside SOURCE"; }
	[ $st != 0 ] && grep -q "is inside SOURCE" "$TMP/err" ||
		fail "mount.fuse3 -t fuse.darshanfs SRC SRC/inner: status $st, '$(cat "$TMP/err")'"
	PATH=$BIN:$PATH t "$MF" "$SRC" "$TMP/busy" -o ro,nonempty -t fuse.darshanfs </dev/null >/dev/null 2>"$TMP/err" ||
		fail "mount.fuse3 -o nonempty over a MOUNTPOINT that holds a file: $(cat "$TMP/err")"
	is_mounted "$TMP/busy" || fail "mount.fuse3 -o nonempty did not mount"
	t umount "$TMP/busy" || fail "umount $TMP/busy failed"
	say "ok: mount.fuse3 -t fuse.darshanfs refuses MOUNTPOINT inside SOURCE (status $st); -o nonempty passes through"
fi
# ---- -f, ended by signals
for sig in TERM INT HUP; do
	dfs_mount "$SRC" "$MNT"
	t cat "$MNT/${LOGREL[0]}/header.txt" >/dev/null || fail "cannot read through the -f mount"
	kill -$sig "${MNT_PID[$MNT]}"
	st=$(dfs_wait_exit "$MNT") || exit 1
	is_mounted "$MNT" && fail "$MNT is still mounted after SIG$sig"
	[ "$st" = 0 ] || fail "darshanfs -f unmounted on SIG$sig but exited with status $st, not 0 (unmounted cleanly)"
	unset "MNT_PID[$MNT]"
	say "ok: darshanfs -f on SIG$sig unmounts and exits 0"
done
# a file still open when the signal comes: its release never arrives, the
# daemon closes it itself (under ASan a leaked handle fails the exit status)
dfs_mount "$SRC" "$MNT"
exec 3<"$MNT/${LOGREL[0]}/header.txt" || fail "cannot open header.txt"
kill -TERM "${MNT_PID[$MNT]}"
st=$(dfs_wait_exit "$MNT") || exit 1
exec 3<&-
[ "$st" = 0 ] || fail "darshanfs -f with a file open exited with status $st on SIGTERM, not 0"
unset "MNT_PID[$MNT]"
say "ok: darshanfs -f with a file still open exits 0 on SIGTERM"

# ---- -d: an error's reason reaches the debug output, not only its errno
head -c 3000 "$LOGS/dxt.darshan" >"$SRC/cut.darshan"
dfs_mount "$SRC" "$MNT" -d
if t cat "$MNT/cut.darshan/POSIX/records.csv" >/dev/null 2>"$TMP/err"; then
	fail "a log cut at 3000 bytes read"
fi
grep -q "Input/output error" "$TMP/err" || fail "a cut log: '$(cat "$TMP/err")', not EIO"
dfs_umount "$MNT"
grep -h '^   darshanfs: .*cut.darshan' "$TMP"/darshanfs.*.log | grep -q 'outside the file\|truncated' ||
	fail "darshanfs -d did not log why reading cut.darshan failed"
rm "$SRC/cut.darshan"
say "ok: -d logs an error's message: $(grep -h -m1 '^   darshanfs: .*cut.darshan' "$TMP"/darshanfs.*.log)"

say "PASS"
