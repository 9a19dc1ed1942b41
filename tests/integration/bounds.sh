#!/bin/bash
# bounds.sh CASE - what one user may take from the others (memory, temp
# slots, time), and the smaller ways a client could make the daemon do
# needless work or lie; each case mounts once, drives the mount with real
# clients (unprivileged users through setpriv where one user takes from
# others) and measures the daemon's memory in /proc (VmRSS, VmHWM), never
# its speed.  Each case fails on the code before its fix:
#   jobs-empty-dir   jobs.csv of an empty directory sorts a NULL array
#                    (UBSan: qsort(NULL, 0) in jobs.c)
#   inode-users      two users looking up one path in turn get a new
#                    inode number each time (the owner's and a user's
#                    identical records.csv are two snapshots the kernel
#                    swaps, forgetting the other each time)
#   absurd-sizes     cache_size=1e30 (and inf, nan, 0x10) mounts: the
#                    size is cast from a double out of range
#   import-rows      an import with two rows of one (record_id, rank) is
#                    accepted without a word (refused now, naming them);
#                    POSIX_RENAMED_FROM=-1 reads back as darshan-parser
#                    prints those bits (unsigned)
#   regex-dirs       one user writing `file_name ~ '(.?){800}$'` to 8
#                    directory filters took the daemon from 3 MB to 840
#                    MB (compiled once per module of darshanfs, not
#                    counted, not capped) and clearing them gave nothing
#                    back
#   regex-match      glibc's regexec grew its automaton with every file
#                    name it matched: four directory filters with
#                    `file_name !~ '(.?){800}$'` (or `!~*`) took 13 MB
#                    more while they ran over 80,000 records, and more
#                    with longer names; the matcher of our own takes what
#                    compiling counted, and nothing while it runs
#   dir-lazy         a directory filter was compiled for each of the 16
#                    modules darshanfs decodes, whichever the logs below
#                    have: 60 KB of text took 7 MB
#   filter-bytewise  a directory filter sent a byte per write() is
#                    checked whole at every write: quadratic (32 KB took
#                    a minute of the daemon's time)
#   import-hole      three records.csv each given one pwrite() at offset
#                    5e8 held 1.5 GB of zeros
#   import-budget    one user's writes in progress, and all users', were
#                    bounded only by import_limit per file: a user with
#                    several files open took what they liked
#   temp-reclaim     a temporary file (DuckDB's COPY) whose process died
#                    before the rename kept its text until another one
#                    was made a minute later
#   temp-slots       64 temporary files for the whole mount: one user
#                    holding them gave every other user ENOSPC
#   sparse-log       `truncate -s 1T` on a log whose POSIX region inflates
#                    past 256 times what it holds passed the
#                    decompression-bomb limit (256 x st_size, 8 GiB)
#   setattr          chmod, chown and touch of filter and records.csv
#                    succeed and change nothing (as a read-only file
#                    system does, they must fail with EPERM)
. "$(dirname "$0")/lib.sh"
CASE=${1:?usage: bounds.sh DARSHANFS DARSHANFS_CAT CASE}
T=${T:-60}
U=1234 U2=1235
as() { local u=$1; shift; t setpriv --reuid="$u" --regid="$u" --clear-groups "$@"; }
need_users() {
	[ "$(id -u)" = 0 ] || skip "needs root (to mount with allow_other and switch users)"
	command -v setpriv >/dev/null || skip "setpriv is not installed"
}
# the daemon's memory: kb FIELD MNT (VmRSS, VmHWM) in KiB
kb() { awk -v f="$1:" '$1 == f { print $2 }' "/proc/${MNT_PID[$2]}/status"; }
# the daemon's processor time so far, in clock ticks
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/${MNT_PID[$1]}/stat"; }
# a sanitizer build keeps freed memory in quarantine and its shadow is
# counted in the RSS: bounds on memory are not measured there
# (its runtime linked in or not: tests/run links it in)
sanitized() { grep -qa __asan_init "$DARSHANFS"; }
# mem_below FIELD MNT MB WHAT: the daemon's FIELD is under MB MiB
mem_below() {
	local k
	k=$(kb "$1" "$2")
	sanitized && { say "($4: $1 $((k / 1024)) MiB, not bounded under the sanitizers)"; return 0; }
	[ "$k" -lt $(($3 * 1024)) ] || fail "$4: the daemon's $1 is $((k / 1024)) MiB, more than $3 MiB"
	say "$4: $1 $((k / 1024)) MiB (bound $3 MiB)"
}

SRC=$TMP/src MNT=$TMP/mnt
mkdir -p "$SRC/d"
chmod 755 "$SRC" "$SRC/d"
# where the users' clients tell the test they are ready, and hear to go on
SIG=$TMP/sig
mkdir -m 1777 "$SIG"
# dirs.py MNT N [EXPR]: write EXPR (a heavy regular expression) to the
# filters of d1 .. dN, printing how many were refused with EINVAL
cat >"$TMP/dirs.py" <<'PY'
import errno, os, sys
mnt, n = sys.argv[1], int(sys.argv[2])
expr = sys.argv[3] if len(sys.argv) > 3 else "file_name ~ '(.{1000}){45}'"
refused = 0
for i in range(1, n + 1):
    try:
        with open(f"{mnt}/d{i}/filter", "w") as f:
            f.write(expr + "\n")
    except OSError as e:
        if e.errno != errno.EINVAL:
            sys.exit(f"d{i}/filter: {e}")
        refused += 1
print(refused)
PY

case $CASE in
jobs-empty-dir)
	mkdir -p "$SRC/empty" "$SRC/d/none"
	cp "$LOGS/hdf5_file_opens_only.darshan" "$SRC/d/a.darshan"
	dfs_mount "$SRC" "$MNT"
	for d in empty d/none; do
		t cat "$MNT/$d/jobs.csv" >"$TMP/jobs.csv" || fail "cat $d/jobs.csv failed"
		[ "$(wc -l <"$TMP/jobs.csv")" = 1 ] || fail "$d/jobs.csv of an empty directory has rows"
		t cat "$MNT/$d/insights.csv" "$MNT/$d/summary.html" >/dev/null ||
			fail "insights.csv or summary.html of the empty $d failed"
	done
	dfs_umount "$MNT"   # (a sanitizer build's report fails here)
	;;
inode-users)
	need_users
	cp "$LOGS/partial_data_dxt.darshan" "$SRC/d/a.darshan"
	chmod 644 "$SRC/d/a.darshan"
	dfs_mount "$SRC" "$MNT" -o allow_other,cache_size=64M
	F=$MNT/d/a.darshan/DXT_POSIX/records.csv
	ino() { if [ "$1" = root ]; then t stat -c %i "$F"; else as "$1" stat -c %i "$F"; fi; }
	r1=$(ino root) u1=$(ino $U) r2=$(ino root) u2=$(ino $U) r3=$(ino root)
	[ "$r1 $r2 $r3" = "$r1 $r1 $r1" ] && [ "$u1" = "$u2" ] ||
		fail "one unchanged records.csv looked up by root and user $U in turn changes its inode: root $r1 $r2 $r3, user $u1 $u2"
	# nobody wrote a filter: one snapshot, so one inode, for both
	[ "$r1" = "$u1" ] || fail "root and user $U, both without filters, see two inodes ($r1, $u1) of one records.csv"
	# the owner's filter makes a version of its own: two inodes, each stable
	echo 'rank == 0' >"$MNT/d/a.darshan/filter" || fail "root's filter was refused"
	r1=$(ino root) u1=$(ino $U) r2=$(ino root) u2=$(ino $U)
	[ "$r1" = "$r2" ] && [ "$u1" = "$u2" ] && [ "$r1" != "$u1" ] ||
		fail "root (filtered) and user $U (not) looking up one records.csv in turn: root $r1 $r2, user $u1 $u2"
	dfs_umount "$MNT"
	;;
absurd-sizes)
	cp "$LOGS/hdf5_file_opens_only.darshan" "$SRC/d/a.darshan"
	mkdir -p "$MNT"
	for o in cache_size=1e30 cache_size=1e18K cache_size=inf cache_size=nan \
		cache_size=0x10 import_limit=1e30 import_limit=64P; do
		t "$DARSHANFS" -f -o "$o" "$SRC" "$MNT" >"$TMP/out" 2>&1 &
		pid=$!
		for i in $(seq 50); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
		if kill -0 $pid 2>/dev/null || is_mounted "$MNT"; then
			force_umount "$MNT"
			wait $pid
			fail "-o $o was accepted"
		fi
		wait $pid
		st=$?
		[ $st = 1 ] || fail "-o $o: exit status $st, not 1 (a bad option)"
		grep -q "${o%%=*}" "$TMP/out" || fail "-o $o: the message does not name the option: $(cat "$TMP/out")"
	done
	;;
import-rows)
	cp "$LOGS/imbalanced-io.darshan" "$SRC/d/a.darshan"
	dfs_mount "$SRC" "$MNT"
	P=$MNT/d/a.darshan/POSIX
	t cat "$P/records.csv" >"$TMP/all.csv" || fail "cat records.csv failed"
	{ head -3 "$TMP/all.csv"; sed -n 2p "$TMP/all.csv"; } >"$TMP/dup.csv"
	id=$(sed -n '2{s/,.*//;p}' "$TMP/all.csv")
	if t cp "$TMP/dup.csv" "$P/records.csv" 2>"$TMP/err"; then
		fail "an import with one row twice was accepted"
	fi
	grep -q "Invalid argument" "$TMP/err" || fail "cp of a duplicate row: '$(cat "$TMP/err")', not EINVAL"
	grep -q "rows 1 and 3 (after the header) are both record_id $id" "$P/filter.error" ||
		fail "filter.error does not name the rows: '$(cat "$P/filter.error")'"
	[ "$(wc -l <"$P/records.csv")" = "$(wc -l <"$TMP/all.csv")" ] || fail "the refused import changed the selection"
	head -3 "$TMP/all.csv" >"$TMP/two.csv"
	t cp "$TMP/two.csv" "$P/records.csv" || fail "two distinct rows were refused: $(cat "$P/filter.error")"
	# an unsigned counter given -1: the bits darshan-parser prints unsigned
	rank=$(sed -n '2{s/^[^,]*,//;s/,.*//;p}' "$TMP/all.csv")
	printf 'record_id,rank,POSIX_RENAMED_FROM\n%s,%s,-1\n' "$id" "$rank" >"$TMP/neg.csv"
	t cp "$TMP/neg.csv" "$P/records.csv" || fail "POSIX_RENAMED_FROM=-1 was refused: $(cat "$P/filter.error")"
	t python3 - "$P/records.csv" <<'PY' || fail "POSIX_RENAMED_FROM=-1 does not read back as 18446744073709551615"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
sys.exit(0 if len(rows) == 1 and rows[0]["POSIX_RENAMED_FROM"] == "18446744073709551615" else 1)
PY
	dfs_umount "$MNT"
	;;
regex-dirs)
	need_users
	for i in 1 2 3 4 5 6 7 8; do
		mkdir -p "$SRC/d$i"
		cp "$LOGS/hdf5_file_opens_only.darshan" "$SRC/d$i/a.darshan"
	done
	chmod -R a+rX "$SRC"
	dfs_mount "$SRC" "$MNT" -o allow_other,cache_size=64M
	mem_below VmRSS "$MNT" 32 "mounted"
	# the issue's pattern now takes half a MiB compiled: eight are fine
	refused=$(as $U /usr/bin/python3 "$TMP/dirs.py" "$MNT" 8 "file_name ~ '(.?){800}\$'") ||
		fail "writing the filters: $refused"
	[ "$refused" = 0 ] || fail "$refused of 8 directory filters with '(.?){800}\$' refused"
	mem_below VmRSS "$MNT" 32 "8 directory filters with (.?){800}\$ written"
	# one of 45,000 instructions takes 3.7 MiB: the cap refuses the fifth
	refused=$(as $U /usr/bin/python3 "$TMP/dirs.py" "$MNT" 8) || fail "writing the filters: $refused"
	[ "$refused" -gt 0 ] && [ "$refused" -lt 8 ] ||
		fail "$refused of 8 heavy directory filters refused (cache_size=64M: each user's filters may take 16 MiB)"
	as $U cat "$MNT/d8/filter.error" >"$TMP/why" || fail "cat filter.error failed"
	grep -q "more than the 16.0 MiB one user's filters may take" "$TMP/why" ||
		fail "d8/filter.error does not say the cap: $(cat "$TMP/why")"
	mem_below VmRSS "$MNT" 64 "8 heavy directory filters written"
	# run them: another user sees no trace of them, and has room of his own
	as $U cat "$MNT/jobs.csv" >"$TMP/jobs.csv" || fail "jobs.csv with the filters failed"
	as $U2 /usr/bin/python3 "$TMP/dirs.py" "$MNT" 1 >/dev/null || fail "another user's first heavy filter was refused"
	[ -z "$(as $U2 cat "$MNT/d2/filter")" ] || fail "user $U2 sees user $U's filter"
	mem_below VmHWM "$MNT" 128 "the filters run"
	for i in 1 2 3 4 5 6 7 8; do as $U truncate -s 0 "$MNT/d$i/filter" || fail "clearing d$i/filter failed"; done
	as $U2 truncate -s 0 "$MNT/d1/filter"
	# the memory goes back to the system
	mem_below VmRSS "$MNT" 32 "the filters cleared"
	dfs_umount "$MNT"
	;;
regex-match)
	need_users
	for i in 1 2 3 4; do
		mkdir -p "$SRC/d$i"
		t "$GEN" -n 20000 -m POSIX -s "$i" -o "$SRC/d$i/a.darshan" >/dev/null || fail "darshanfs-gen failed"
	done
	chmod -R a+rX "$SRC"
	dfs_mount "$SRC" "$MNT" -o allow_other
	# every log decoded and its records.csv made once, without filters
	for i in 1 2 3 4; do
		as $U cat "$MNT/d$i/a.darshan/POSIX/records.csv" >/dev/null || fail "cat d$i records.csv failed"
	done
	# filters that match every name (with case, and without) and select
	# nothing, so that what they select takes no memory
	for i in 1 2 3 4; do
		op='!~'
		[ $((i % 2)) = 0 ] && op='!~*'
		echo "file_name $op '(.?){800}\$'" | as $U tee "$MNT/d$i/filter" >/dev/null ||
			fail "d$i/filter refused: $(as $U cat "$MNT/d$i/filter.error")"
	done
	before=$(kb VmHWM "$MNT")
	for i in 1 2 3 4; do
		n=$(as $U cat "$MNT/d$i/a.darshan/POSIX/records.csv" | wc -l) || fail "cat d$i records.csv failed"
		[ "$n" = 1 ] || fail "d$i: the filter that selects nothing left $((n - 1)) rows"
	done
	grow=$(( $(kb VmHWM "$MNT") - before ))
	say "matching 4 heavy patterns over 80,000 file names: VmHWM +$((grow / 1024)) MiB"
	sanitized || [ "$grow" -lt $((4 * 1024)) ] ||
		fail "matching 4 heavy patterns over 80,000 file names took the daemon $((grow / 1024)) MiB more"
	dfs_umount "$MNT"
	;;
dir-lazy)
	for i in 1 2 3 4; do
		mkdir -p "$SRC/d$i"
		cp "$LOGS/hdf5_file_opens_only.darshan" "$SRC/d$i/a.darshan"
	done
	dfs_mount "$SRC" "$MNT"
	t cat "$MNT/jobs.csv" >"$TMP/before.csv" || fail "jobs.csv failed"
	base=$(kb VmRSS "$MNT")
	python3 -c 'import sys; sys.stdout.write("rank == 0 or " * 4600 + "rank >= 0\n")' >"$TMP/big"
	for i in 1 2 3 4; do t cp "$TMP/big" "$MNT/d$i/filter" || fail "a 60 KB filter was refused"; done
	t cat "$MNT/jobs.csv" >"$TMP/after.csv" || fail "jobs.csv with the filters failed"
	grep -q "d1/filter: rank == 0 or rank" "$TMP/after.csv" || fail "jobs.csv does not name the filters"
	grow=$(( $(kb VmRSS "$MNT") - base ))
	say "four 60 KB directory filters over logs of 3 modules: +$((grow / 1024)) MiB"
	sanitized || [ $grow -lt $((16 * 1024)) ] ||
		fail "four 60 KB directory filters take $((grow / 1024)) MiB: compiled for modules no log below has"
	dfs_umount "$MNT"
	;;
filter-bytewise)
	cp "$LOGS/hdf5_file_opens_only.darshan" "$SRC/d/a.darshan"
	dfs_mount "$SRC" "$MNT"
	before=$(cpu_ticks "$MNT")
	t python3 - "$MNT/d/filter" <<'PY' || fail "a filter sent a byte per write was refused"
import os, sys
text = ("rank == 0 or " * 2500 + "rank == 1\n").encode()
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_TRUNC)
for i in range(len(text)):
    os.write(fd, text[i:i + 1])
os.close(fd)
PY
	spent=$(( $(cpu_ticks "$MNT") - before ))
	hz=$(getconf CLK_TCK)
	say "32 KB in 1-byte writes: $((spent * 1000 / hz)) ms of the daemon's processor time"
	# (linear: about a second even under the sanitizers; quadratic: a minute and more)
	[ $spent -lt $((15 * hz)) ] || fail "checking a 32 KB filter sent a byte per write took the daemon $((spent / hz)) s"
	[ "$(head -c 13 "$MNT/d/filter")" = "rank == 0 or " ] || fail "the filter is not in force"
	# a bad byte is still refused, by the write that sends it or at close
	t python3 - "$MNT/d/filter" <<'PY' && fail "a bad filter sent a byte per write was accepted"
import os, sys
text = ("rank == 0 or " * 1230 + "rank == 1 rank\n").encode()
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_TRUNC)
try:
    for i in range(len(text)):
        os.write(fd, text[i:i + 1])
finally:
    os.close(fd)
PY
	[ "$(head -c 13 "$MNT/d/filter")" = "rank == 0 or " ] || fail "a refused filter changed the filter"
	dfs_umount "$MNT"
	;;
import-hole)
	need_users
	cp "$LOGS/partial_data_dxt.darshan" "$SRC/d/a.darshan"
	chmod 644 "$SRC/d/a.darshan"
	dfs_mount "$SRC" "$MNT" -o allow_other
	L=$MNT/d/a.darshan
	as $U /usr/bin/python3 - "$L" <<'PY' || fail "the writes past a hole: see above"
import errno, os, sys
fds = [os.open(f"{sys.argv[1]}/{m}/records.csv", os.O_WRONLY | os.O_TRUNC)
       for m in ("POSIX", "STDIO", "MPI-IO")]
for fd in fds:
    os.pwrite(fd, b"record_id,rank\n", int(5e8))
for fd in fds:
    try:
        os.close(fd)
        sys.exit("a CSV with 500 MB never written was accepted")
    except OSError as e:
        if e.errno != errno.EINVAL:
            sys.exit(f"close: {e}")
PY
	mem_below VmHWM "$MNT" 64 "three writes at offset 5e8"
	as $U grep -q "bytes 0 to 499999999 of the CSV were never written" "$L/POSIX/filter.error" ||
		fail "POSIX/filter.error: $(as $U cat "$L/POSIX/filter.error")"
	# a CSV written in pieces out of order, holes filled, imports
	t cat "$L/POSIX/records.csv" >"$TMP/all.csv"
	as $U /usr/bin/python3 - "$L/POSIX/records.csv" "$TMP/all.csv" <<'PY' || fail "a CSV written out of order was refused"
import os, sys
data = open(sys.argv[2], "rb").read()
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_TRUNC)
half = len(data) // 2
os.pwrite(fd, data[half:], half)
os.pwrite(fd, data[:half], 0)
os.close(fd)
PY
	as $U cmp -s "$L/POSIX/records.csv" "$TMP/all.csv" || fail "the CSV written out of order imported other rows"
	dfs_umount "$MNT"
	;;
import-budget)
	need_users
	cp "$LOGS/partial_data_dxt.darshan" "$SRC/d/a.darshan"
	chmod 644 "$SRC/d/a.darshan"
	U3=1236
	dfs_mount "$SRC" "$MNT" -o allow_other,import_limit=24M,import_memory=40M
	L=$MNT/d/a.darshan
	t cat "$L/POSIX/records.csv" >"$TMP/all.csv"
	# hold.py MODULE MB: write MB of rows into MODULE's records.csv (the
	# header, then the log's rows again and again), keep it open until
	# $TMP/go exists; prints 'ok' or the errno of the write refused
	cat >"$TMP/hold.py" <<'PY'
import os, sys, time
log, mod, mb, tmp, sig = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
head, _, rows = open(f"{tmp}/{mod}.csv", "rb").read().partition(b"\n")
fd = os.open(f"{log}/{mod}/records.csv", os.O_WRONLY | os.O_TRUNC)
out = "ok"
try:
    os.write(fd, head + b"\n")
    text = rows * (1 + (mb << 20) // len(rows))
    for i in range(mb):
        os.write(fd, text[i << 20:(i + 1) << 20])
except OSError as e:
    out = os.strerror(e.errno)
print(out, flush=True)
open(f"{sig}/ready.{os.getuid()}.{mod}", "w").close()
for _ in range(1200):
    if os.path.exists(f"{sig}/go"):
        break
    time.sleep(0.05)
try:
    os.close(fd)
except OSError:
    pass
PY
	for m in POSIX STDIO MPI-IO; do t cat "$L/$m/records.csv" >"$TMP/$m.csv"; done
	chmod -R a+rX "$TMP"
	hold() {   # hold USER MODULE MB: sets r to the outcome
		local u=$1 m=$2 i
		as "$u" /usr/bin/python3 "$TMP/hold.py" "$L" "$m" "$3" "$TMP" "$SIG" >"$TMP/out.$u.$m" 2>&1 &
		for i in $(seq 600); do [ -e "$SIG/ready.$u.$m" ] && break; sleep 0.1; done
		slurp r "$TMP/out.$u.$m"
	}
	hold $U POSIX 16
	[ "$r" = ok ] || fail "a first write of 16 MiB was refused: $r"
	# the same user's second file passes import_limit (24M) for the two
	hold $U STDIO 16
	[ "$r" = "No space left on device" ] || fail "user $U's second 16 MiB in progress: '$r', not ENOSPC"
	as $U grep -q "more than the 24.0 MiB (import_limit) one user's may" "$L/STDIO/filter.error" ||
		fail "STDIO/filter.error: $(as $U cat "$L/STDIO/filter.error")"
	# another user has room of their own, until all users' pass 40M
	hold $U2 POSIX 16
	[ "$r" = ok ] || fail "user $U2's first 16 MiB were refused: $r"
	hold $U3 POSIX 16
	[ "$r" = "No space left on device" ] || fail "a third user's 16 MiB with 32 MiB in progress (import_memory=40M): '$r', not ENOSPC"
	as $U3 grep -q "more than the 40.0 MiB (import_memory) the mount allows" "$L/POSIX/filter.error" ||
		fail "user $U3's POSIX/filter.error: $(as $U3 cat "$L/POSIX/filter.error")"
	mem_below VmRSS "$MNT" 160 "32 MiB of writes in progress"
	touch "$SIG/go"
	wait
	# closed, the sessions hold nothing: the third user has room now
	# (releases reach the daemon after close returns: a few tries)
	for i in 1 2 3 4 5; do
		rm -f "$SIG"/*
		hold $U3 MPI-IO 16
		touch "$SIG/go"
		wait
		[ "$r" = ok ] && break
		sleep 1
	done
	[ "$r" = ok ] || fail "user $U3's 16 MiB after the others closed: $r"
	dfs_umount "$MNT"
	;;
temp-reclaim)
	need_users
	cp "$LOGS/partial_data_dxt.darshan" "$SRC/d/a.darshan"
	chmod 644 "$SRC/d/a.darshan"
	dfs_mount "$SRC" "$MNT" -o allow_other
	L=$MNT/d/a.darshan
	t cat "$L/POSIX/records.csv" >"$TMP/POSIX.csv"
	chmod a+r "$TMP/POSIX.csv"
	base=$(kb VmRSS "$MNT")
	# a tool that dies after writing 48 MiB into its temporary file
	as $U /usr/bin/python3 - "$L/POSIX" "$TMP/POSIX.csv" <<'PY' || fail "writing the temporary file failed"
import os, sys
head, _, rows = open(sys.argv[2], "rb").read().partition(b"\n")
fd = os.open(f"{sys.argv[1]}/tmp_records.csv", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
os.write(fd, head + b"\n")
text = rows * (1 + (48 << 20) // len(rows))
for i in range(48):
    os.write(fd, text[i << 20:(i + 1) << 20])
os.close(fd)
os._exit(0)   # no rename
PY
	for i in $(seq 50); do
		[ $(( $(kb VmRSS "$MNT") - base )) -lt $((16 * 1024)) ] && break
		sleep 0.1
	done
	sanitized || [ $(( $(kb VmRSS "$MNT") - base )) -lt $((16 * 1024)) ] ||
		fail "5 s after its process died, the 48 MiB temporary file still holds $(( ($(kb VmRSS "$MNT") - base) / 1024 )) MiB"
	# its name is gone too: the next run of the tool makes it again
	as $U /usr/bin/python3 -c 'import os, sys; os.close(os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))' \
		"$L/POSIX/tmp_records.csv" || fail "the dead process's temporary file still has its name"
	dfs_umount "$MNT"
	;;
temp-slots)
	need_users
	cp "$LOGS/hdf5_file_opens_only.darshan" "$SRC/d/a.darshan"
	chmod 644 "$SRC/d/a.darshan"
	dfs_mount "$SRC" "$MNT" -o allow_other
	P=$MNT/d/a.darshan/POSIX
	cat >"$TMP/slots.py" <<'PY'
import os, sys, time
d, n, tag, sig = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
fds, err = [], ""
for i in range(n):
    try:
        fds.append(os.open(f"{d}/{tag}{i}_records.csv", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError as e:
        err = os.strerror(e.errno)
        break
print(len(fds), err, flush=True)
open(f"{sig}/ready.{tag}", "w").close()
for _ in range(1200):
    if os.path.exists(f"{sig}/go"):
        break
    time.sleep(0.05)
PY
	chmod a+r "$TMP/slots.py"
	as $U /usr/bin/python3 "$TMP/slots.py" "$P" 64 a "$SIG" >"$TMP/a.out" &
	for i in $(seq 300); do [ -e "$SIG/ready.a" ] && break; sleep 0.1; done
	as $U2 /usr/bin/python3 "$TMP/slots.py" "$P" 4 b "$SIG" >"$TMP/b.out" &
	for i in $(seq 300); do [ -e "$SIG/ready.b" ] && break; sleep 0.1; done
	touch "$SIG/go"
	wait
	read -r na ea <"$TMP/a.out"
	read -r nb eb <"$TMP/b.out"
	[ "$nb" = 4 ] || fail "user $U holding $na temporary files, user $U2 could make $nb of 4: $eb"
	[ "$na" -lt 64 ] && [ "$ea" = "No space left on device" ] ||
		fail "user $U made $na of 64 temporary files ($ea): one user may hold 16"
	dfs_umount "$MNT"
	;;
sparse-log)
	# a real log whose POSIX region is 64 MiB of zeros (66 KiB of deflate)
	t python3 - "$LOGS/mpi-io-test-x86_64-3.4.5.darshan" "$SRC/d" <<'PY' || fail "making the logs failed"
import struct, sys, zlib
log = bytearray(open(sys.argv[1], "rb").read())
assert log[:4] == b"3.41"
posix = zlib.compress(bytes(704 * 95325), 9)
struct.pack_into("<QQ", log, 48 + 16 * 1, len(log), len(posix))
log += posix
for i in range(4):
    with open(f"{sys.argv[2]}/bomb{i}.darshan", "wb") as f:
        f.write(log)
PY
	cp "$SRC/d/bomb0.darshan" "$SRC/d/plain.darshan"
	truncate -s 1T "$SRC"/d/bomb*.darshan
	[ "$(stat -c %b "$SRC/d/bomb0.darshan")" -lt 4096 ] || skip "$SRC does not keep sparse files sparse"
	dfs_mount "$SRC" "$MNT" -o cache_size=64M
	t cat "$MNT/d/jobs.csv" >"$TMP/jobs.csv" || fail "jobs.csv failed"
	mem_below VmHWM "$MNT" 256 "jobs.csv of four sparse logs"
	for f in plain bomb0; do
		grep -q "POSIX.*decompression bomb" "$MNT/d/$f.darshan/ERROR" ||
			fail "$f.darshan/ERROR: '$(cat "$MNT/d/$f.darshan/ERROR")'"
	done
	grep -q "the $(stat -c %b "$SRC/d/bomb0.darshan" | awk '{ print $1 * 512 }') bytes it holds on disk" "$MNT/d/bomb0.darshan/ERROR" ||
		fail "the limit does not follow what the sparse log holds: $(cat "$MNT/d/bomb0.darshan/ERROR")"
	dfs_umount "$MNT"
	;;
setattr)
	need_users
	cp "$LOGS/hdf5_file_opens_only.darshan" "$SRC/d/a.darshan"
	chmod 644 "$SRC/d/a.darshan"
	dfs_mount "$SRC" "$MNT" -o allow_other
	L=$MNT/d/a.darshan
	echo 'rank == 0' >"$L/POSIX/filter" || fail "a filter was refused"
	cat >"$TMP/setattr.py" <<'PY'
import errno, os, sys
bad = []
for f in sys.argv[2:]:
    before = os.stat(f)
    mode = before.st_mode & 0o7777
    for what, call in (("chmod", lambda: os.chmod(f, mode ^ 0o044)),
                       ("chown", lambda: os.chown(f, before.st_uid + 1, -1)),
                       ("utime", lambda: os.utime(f, (1, 1))),
                       ("touch", lambda: os.utime(f))):
        try:
            call()
            bad.append(f"{what} {f}: succeeded")
        except OSError as e:
            # (EACCES: the kernel's answer to a caller who may not write)
            if e.errno not in (errno.EPERM, errno.EACCES):
                bad.append(f"{what} {f}: {e.strerror}, not EPERM")
    after = os.stat(f)
    if (after.st_mode, after.st_uid, after.st_mtime_ns) != (before.st_mode, before.st_uid, before.st_mtime_ns):
        bad.append(f"{f}: attributes changed")
    if os.path.isfile(f) and mode & 0o222 and before.st_uid == os.getuid():
        os.chmod(f, mode)   # setting what is there already is no change
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
	files=("$L/filter" "$L/POSIX/filter" "$L/POSIX/records.csv" "$L/header.txt" "$L/POSIX" "$MNT/d/filter")
	t python3 "$TMP/setattr.py" root "${files[@]}" || fail "root: see above"
	as $U /usr/bin/python3 "$TMP/setattr.py" $U "${files[@]}" || fail "user $U: see above"
	[ "$(cat "$L/POSIX/filter")" = "rank == 0" ] || fail "the filter changed"
	# writing goes on as before: the truncation of a redirection, cp
	echo 'rank == 1' >"$L/POSIX/filter" || fail "echo > filter failed"
	t cat "$L/POSIX/records.csv" >"$TMP/r.csv" && t cp "$TMP/r.csv" "$L/POSIX/records.csv" ||
		fail "cp onto records.csv failed"
	dfs_umount "$MNT"
	;;
*)
	fail "no case $CASE"
	;;
esac
say "$CASE: ok"
