# lib.sh - shared by the integration tests (sourced, bash).
#
# Every test is run as   TEST.sh DARSHANFS DARSHANFS_CAT
# and mounts real file systems with the darshanfs binary, then drives them
# with real clients (cat, cp, dd, python, sqlite3, mlr, ...).  The shared
# logs come from $DFS_SHARED/darshan-logs (default: ../shared beside the
# repository).  Exit status: 0 pass, 1 fail, 77 skip (no logs, no FUSE).
#
# Mounts are started in the foreground (-f) in the background so that the
# test knows the daemon's pid, sees its stderr (in $TMP/*.log) and can tell
# a crash from an unmount; every mount is undone by the EXIT trap.

set -u
export LC_ALL=C TZ=UTC

IT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$IT_DIR/../.." && pwd)
TEST_NAME=$(basename "$0" .sh)

say() { printf '%s: %s\n' "$TEST_NAME" "$*"; }
skip() { say "SKIP: $*"; exit 77; }

if [ $# -lt 2 ]; then
	echo "usage: $0 DARSHANFS DARSHANFS_CAT [ARGS...]" >&2
	exit 2
fi
abspath() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s/%s\n' "$PWD" "$1" ;; esac; }
DARSHANFS=$(abspath "$1")
DFS_CAT=$(abspath "$2")
shift 2
# The tools that make the references and the generated logs: by default
# the build under test's.  The sanitizer pass of tests/run points
# DFS_REF_BIN at the normal build's tools (the same sources, already
# tested there): a sanitized darshanfs-cat rendering every file again, or
# a sanitized darshanfs-gen writing a million records, only costs time,
# while the daemon under test still renders every file under the
# sanitizers.
REF_CAT=${DFS_REF_BIN:+$DFS_REF_BIN/darshanfs-cat}
REF_CAT=${REF_CAT:-$DFS_CAT}
GEN=${DFS_REF_BIN:-$(dirname "$DFS_CAT")}/darshanfs-gen
# meson gives every test MALLOC_PERTURB_: glibc then fills each block it
# hands out and takes back, so that code reading memory it never wrote
# fails.  That is a check of the daemon; the clients that drive it
# (DuckDB, Python, Chromium) only get slower (parquet.sh took 3x as long),
# so it is kept for the daemons dfs_mount starts and taken from the rest.
DFS_PERTURB=${MALLOC_PERTURB_:-}
unset MALLOC_PERTURB_

SHARED=${DFS_SHARED:-$REPO/../shared}
LOGS=$SHARED/darshan-logs
ORACLE=$SHARED/oracle
# (a test that makes its own logs sets NO_SHARED_LOGS=1 before this)
[ "${NO_SHARED_LOGS:-0}" = 1 ] || ls "$LOGS"/*.darshan >/dev/null 2>&1 ||
	skip "no shared logs in $LOGS (set DFS_SHARED)"
[ -c /dev/fuse ] || skip "/dev/fuse is missing"
command -v fusermount3 >/dev/null || skip "fusermount3 is not installed"
[ -x "$DARSHANFS" ] || skip "$DARSHANFS is not built"
[ -x "$DFS_CAT" ] || skip "$DFS_CAT is not built"

command -v python3 >/dev/null || skip "python3 is not installed"
# call the interpreter itself, not a version-manager shim (pyenv's cost
# ~0.1 s a call, and the tests make thousands)
PYTHON=$(python3 -c 'import sys; print(sys.executable)') || skip "python3 does not run"
PATH=$(dirname "$PYTHON"):$PATH
export PATH

# DuckDB on PATH: the `duckdb` command if there is one, else the npm
# package @duckdb/node-api (contrib/deps.sh duckdb installs it) behind
# duckdb-shim/duckdb; the calling test skips when neither can be had.
use_duckdb() {
	if ! command -v duckdb >/dev/null; then
		command -v node >/dev/null || skip "neither duckdb nor node is installed"
		export DFS_DUCKDB_DIR
		DFS_DUCKDB_DIR=$(bash -c '. "$1"; dfs_duckdb_dir' _ "$REPO/contrib/deps.sh")
		if [ ! -f "$DFS_DUCKDB_DIR/node_modules/@duckdb/node-api/package.json" ]; then
			DFS_NPM_TIMEOUT=150 bash "$REPO/contrib/deps.sh" duckdb >&2
			[ -f "$DFS_DUCKDB_DIR/node_modules/@duckdb/node-api/package.json" ] ||
				skip "DuckDB could not be installed (npm cannot reach its registry?)"
		fi
		PATH=$IT_DIR/duckdb-shim:$PATH
	fi
	duckdb -c "SELECT 1" >/dev/null 2>"$TMP/duckdb.err" ||
		skip "duckdb does not run: $(cat "$TMP/duckdb.err")"
}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/dfs-$TEST_NAME.XXXXXX") || exit 1
chmod 755 "$TMP"
# the persistent index of every mount goes in the test's own directory,
# never in the user's cache ($XDG_CACHE_HOME/darshanfs); DuckDB stays
# where contrib/deps.sh installed it
if [ -z "${DFS_DUCKDB_DIR:-}" ]; then
	DFS_DUCKDB_DIR=$(bash -c '. "$1"; dfs_duckdb_dir' _ "$REPO/contrib/deps.sh")
	export DFS_DUCKDB_DIR
fi
export XDG_CACHE_HOME=$TMP/cache

declare -A MNT_PID=()     # mount point -> pid of its darshanfs -f
declare -A MNT_STATUS=()  # mount point -> file that gets its exit status

is_mounted() { awk -v m="$1" '$2 == m { f = 1 } END { exit !f }' /proc/mounts; }

show_daemon_logs() {
	local f
	# (libfuse 3.14.0 warns "Ignoring invalid max threads value" at every
	# start: not ours, left out)
	for f in "$TMP"/darshanfs.*.log; do
		grep -qv 'Ignoring invalid max threads value' "$f" 2>/dev/null || continue
		echo "---- $f (last lines)" >&2
		grep -v 'Ignoring invalid max threads value' "$f" | tail -n 20 >&2
	done
}

fail() {
	printf '%s: FAIL: %s\n' "$TEST_NAME" "$*" >&2
	show_daemon_logs
	exit 1
}

# run a client with a time limit so that a hung mount cannot hang the suite
t() { timeout -k 5 "${T:-120}" "$@"; }

force_umount() {
	local m=$1
	is_mounted "$m" || return 0
	timeout 10 fusermount3 -u "$m" 2>/dev/null ||
		timeout 10 fusermount3 -uz "$m" 2>/dev/null ||
		timeout 10 umount -l "$m" 2>/dev/null
}

cleanup() {
	local m pid i
	for m in "${!MNT_PID[@]}"; do
		force_umount "$m"
		pid=${MNT_PID[$m]}
		for i in $(seq 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
	done
	# mounts the test made some other way (helpers, daemon mode)
	for m in $(awk -v t="$TMP/" 'index($2, t) == 1 { print $2 }' /proc/mounts); do
		force_umount "$m"
	done
	is_mounted "$TMP/fusectl" && umount "$TMP/fusectl"
	# never remove anything through a mount that is still there (and
	# keep it all when asked: DFS_TEST_KEEP=1, to look at a failure)
	if [ "${DFS_TEST_KEEP:-0}" = 1 ]; then
		echo "$TEST_NAME: kept $TMP (DFS_TEST_KEEP)" >&2
	elif ! grep -q " $TMP/" /proc/mounts; then
		rm -rf --one-file-system "$TMP"
	else
		echo "$TEST_NAME: left $TMP behind (still mounted)" >&2
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# dfs_mount SRC MNT [darshanfs options...]: mount in the foreground (-f),
# in a detached background process; returns when the mount is visible.
# The daemon is not a child of the test shell (bash 5.2 can block in
# wait4(-1) on a background child after a process substitution), so a
# small wrapper waits for it and records its exit status.
MNT_SEQ=0
dfs_mount() {
	local src=$1 mnt=$2 i
	shift 2
	mkdir -p "$mnt"
	MNT_SEQ=$((MNT_SEQ + 1))
	local tag=$(basename "$mnt").$MNT_SEQ
	local log=$TMP/darshanfs.$tag.log pidf=$TMP/pid.$tag stf=$TMP/status.$tag
	rm -f "$pidf" "$stf"
	(
		( MALLOC_PERTURB_=$DFS_PERTURB "$DARSHANFS" -f "$@" "$src" "$mnt" </dev/null >>"$log" 2>&1 &
		  echo $! >"$pidf"
		  wait $!
		  echo $? >"$stf" ) </dev/null >/dev/null 2>&1 &
	)
	for i in $(seq 50); do [ -s "$pidf" ] && break; sleep 0.02; done
	local pid
	pid=$(cat "$pidf") || fail "could not start darshanfs"
	MNT_PID[$mnt]=$pid
	MNT_STATUS[$mnt]=$stf
	for i in $(seq 200); do
		is_mounted "$mnt" && return 0
		if [ -s "$stf" ]; then
			fail "darshanfs $* $src $mnt exited with status $(cat "$stf") before mounting: $(cat "$log")"
		fi
		sleep 0.05
	done
	fail "darshanfs did not mount $mnt within 10 s"
}

# fuse_conn MNT: the number of MNT's FUSE connection (the minor number of
# its device), read from /proc/self/mountinfo: nothing asks the mount
# itself, which may be hung
fuse_conn() {
	local m=${1// /\\040}
	awk -v m="$m" '$5 == m { split($3, d, ":"); c = d[2] } END { if (c == "") exit 1; print c }' \
		/proc/self/mountinfo
}

# abort_conn N: abort FUSE connection N (/sys/fs/fuse/connections/N/abort,
# fusectl mounted under $TMP when it is not there): every request pending
# on it fails, which frees the processes stuck in it (kill -9 cannot)
abort_conn() {
	local dir=/sys/fs/fuse/connections
	if [ ! -e "$dir/$1/abort" ]; then
		dir=$TMP/fusectl
		if ! is_mounted "$dir"; then
			mkdir -p "$dir" && mount -t fusectl fusectl "$dir" 2>/dev/null
		fi
	fi
	[ -e "$dir/$1/abort" ] && echo 1 >"$dir/$1/abort"
}

# watchdog SECS MNT CMD...: run CMD; when it has not ended within SECS,
# the connection of MNT is aborted (its stuck requests fail, the mount is
# dead from then on) and the status is 124, so that a hang fails the test
# instead of hanging the suite.  The dog is a detached process: the shell
# never waits for it.
watchdog() {
	local secs=$1 mnt=$2 conn st tag=$TMP/dog.$RANDOM.$RANDOM
	shift 2
	conn=$(fuse_conn "$mnt") || fail "watchdog: $mnt is not a FUSE mount"
	(
		( echo $BASHPID >"$tag.pid"
		  sleep "$secs" && : >"$tag.fired" && abort_conn "$conn" ) </dev/null >/dev/null 2>&1 &
	)
	local i
	for i in $(seq 50); do [ -s "$tag.pid" ] && break; sleep 0.02; done
	"$@"
	st=$?
	kill "$(cat "$tag.pid")" 2>/dev/null
	if [ -e "$tag.fired" ]; then
		rm -f "$tag".*
		return 124
	fi
	rm -f "$tag".*
	return $st
}

# dfs_wait_exit MNT: wait for the daemon of MNT to exit and print its
# exit status.  An exit takes a fraction of a second; on a machine whose
# cores are all busy it was seen to take more than 30 s: past 30 s the
# daemon's threads are shown (state, kernel wait, stacks) so a slow exit
# can be told from a hung one, and only a daemon still there after 120 s
# fails the test.
dfs_wait_exit() {
	local stf=${MNT_STATUS[$1]} pid=${MNT_PID[$1]} i
	for i in $(seq 300); do
		[ -s "$stf" ] && break
		sleep 0.1
	done
	if ! [ -s "$stf" ]; then
		echo "darshanfs (pid $pid) still runs 30 s after $1 was unmounted; its threads:" >&2
		dfs_show_threads "$pid" >&2
		for i in $(seq 900); do
			[ -s "$stf" ] && break
			sleep 0.1
		done
		[ -s "$stf" ] || fail "darshanfs (pid $pid) still runs 120 s after $1 was unmounted"
		echo "darshanfs (pid $pid) exited $((30 + i / 10)) s after $1 was unmounted (load: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
	fi
	cat "$stf"
}

# dfs_show_threads PID: each thread's name, state and where it waits in
# the kernel, then the stacks gdb sees (when gdb is there)
dfs_show_threads() {
	local t
	for t in /proc/"$1"/task/*; do
		[ -d "$t" ] || continue
		printf '  %s %s state=%s wchan=%s\n' "${t##*/}" "$(cat "$t/comm" 2>/dev/null)" \
			"$(awk '{print $3}' "$t/stat" 2>/dev/null)" "$(cat "$t/wchan" 2>/dev/null)"
	done
	command -v gdb > /dev/null &&
		timeout 30 gdb -batch -nx -p "$1" -ex 'thread apply all bt 12' 2>/dev/null |
		grep -E '^(Thread|#)' | head -150
	return 0
}

# dfs_umount MNT: unmount, wait for the daemon; fails unless it exits 0
dfs_umount() {
	local mnt=$1 st
	timeout 10 fusermount3 -u "$mnt" || fail "fusermount3 -u $mnt failed"
	st=$(dfs_wait_exit "$mnt") || exit 1
	unset "MNT_PID[$mnt]"
	[ "$st" -eq 0 ] || fail "darshanfs exited with status $st after a clean unmount of $mnt"
	sanitizer_check
}

# a sanitizer build reports memory errors and undefined behaviour on the
# daemon's stderr: any report fails the test
sanitizer_check() {
	local f
	for f in "$TMP"/darshanfs.*.log; do
		[ -f "$f" ] || continue
		if grep -Eq 'ERROR: (Address|Leak|Thread|Memory)Sanitizer|runtime error:' "$f"; then
			grep -E -m5 -A12 'ERROR: (Address|Leak|Thread|Memory)Sanitizer|runtime error:' "$f" >&2
			fail "sanitizer report in $(basename "$f") (above)"
		fi
	done
}

# the daemon behind MNT still runs and answers
dfs_alive() {
	local mnt=$1
	[ -s "${MNT_STATUS[$mnt]}" ] &&
		fail "darshanfs serving $mnt exited with status $(cat "${MNT_STATUS[$mnt]}")"
	kill -0 "${MNT_PID[$mnt]}" 2>/dev/null || fail "darshanfs serving $mnt died"
	t stat "$mnt" >/dev/null || fail "$mnt does not answer stat"
}

decodes() {
	python3 -c 'import os, sys; print(os.getxattr(sys.argv[1], "user.darshanfs.decodes").decode())' "$1"
}

# make_tree DIR [LOG...]: copies of shared logs (all by default) at nested
# paths below DIR; sets LOGREL (paths relative to DIR) in the same order.
# One mkdir and one cp a sub-directory, not a process per log.
LOGREL=()
make_tree() {
	local dir=$1 i=0 f sub
	shift
	local files=("$@")
	[ ${#files[@]} -gt 0 ] || files=("$LOGS"/*.darshan)
	LOGREL=()
	local -A into=()
	for f in "${files[@]}"; do
		case $((i % 4)) in
		0) sub=2026/11/29 ;;
		1) printf -v sub '2025/%02d/%02d' $((i % 12 + 1)) $((i % 28 + 1)) ;;
		2) sub=2024/project\ x ;;
		*) sub=. ;;
		esac
		into[$sub]+="$f"$'\n'
		if [ "$sub" = . ]; then LOGREL+=("${f##*/}")
		else LOGREL+=("$sub/${f##*/}"); fi
		i=$((i + 1))
	done
	local subs=()
	for sub in "${!into[@]}"; do subs+=("$dir/$sub"); done
	mkdir -p "${subs[@]}" || fail "cannot make the directories of $dir"
	for sub in "${!into[@]}"; do
		mapfile -t files < <(printf %s "${into[$sub]}")
		cp "${files[@]}" "$dir/$sub/" || fail "cannot copy logs into $dir/$sub"
	done
}

# the reference for a file: darshanfs-cat SOURCE PATH
ref() { "$REF_CAT" "$@"; }

# oracle directory name of a log path
oracle_name() { basename "$1"; }

# listed_within SECS DIR NAME...: every NAME shows in `ls DIR` within
# SECS (the kernel keeps a directory's listing until the directory's time
# moves, which it checks once the attributes are older than attr_timeout)
listed_within() {
	local secs=$1 dir=$2 i name missing
	shift 2
	for ((i = 0; i < secs * 10; i++)); do
		t ls "$dir" >"$TMP/ls.txt" || fail "ls $dir failed"
		missing=""
		for name in "$@"; do grep -qx "$name" "$TMP/ls.txt" || missing="$missing $name"; done
		[ -z "$missing" ] && return 0
		sleep 0.1
	done
	fail "not listed in $dir after $secs s:$missing"
}

# Checks that read files with bash builtins: no process per check (a
# script that makes thousands of checks would spend minutes starting them).
# slurp VAR FILE: VAR = the text of FILE less its trailing newlines, as
# $(cat FILE) gives it; empty when FILE cannot be read
slurp() {
	local -n _v=$1
	_v=
	IFS= read -r -d '' _v 2>/dev/null <"$2"
	while [[ $_v == *$'\n' ]]; do _v=${_v%$'\n'}; done
	return 0
}
# same_text FILE1 FILE2: the two files hold the same text (to a NUL byte)
same_text() {
	local a= b=
	IFS= read -r -d '' a 2>/dev/null <"$1"
	IFS= read -r -d '' b 2>/dev/null <"$2"
	[ "$a" = "$b" ]
}
# same_selection JSON1 JSON2: two derived_metrics.json files hold the same
# numbers for selections made by different means (a filter and an import,
# a log-wide and a module filter, 'true' and no filter): the same text but
# for the last member, "filters", which names the means
same_selection() {
	local a= b= cut=$',\n  "filters": '
	IFS= read -r -d '' a 2>/dev/null <"$1"
	IFS= read -r -d '' b 2>/dev/null <"$2"
	[[ $a == *"$cut"* && $b == *"$cut"* ]] || return 1
	[ "${a%%"$cut"*}" = "${b%%"$cut"*}" ]
}
# nlines TEXT: its number of lines (as wc -l of TEXT plus a newline)
nlines() {
	local n=${1//[!$'\n']/}
	echo $((${#n} + 1))
}

# import_equals_filter DIR N EXPR WHAT KEEP: DIR, a module directory,
# holds an import of N rows (WHAT names who made it, for the messages);
# it must select what the filter EXPR selects.  The filter says the import
# and filter.error is empty; derived_metrics.json then has the numbers of
# `echo EXPR > filter` (same_selection) and records.csv its rows.  The
# import's records.csv and derived_metrics.json are left in KEEP.csv and
# KEEP.json; DIR's filter is EXPR afterwards.
import_equals_filter() {
	local dir=$1 n=$2 expr=$3 what=$4 keep=$5 got
	slurp got "$dir/filter"
	[ "$got" = "# imported: $n rows" ] ||
		fail "$what: the filter says '$got', expected '# imported: $n rows'"
	slurp got "$dir/filter.error"
	[ -z "$got" ] || fail "$what: filter.error is '$got' after a good import"
	cat "$dir/derived_metrics.json" >"$keep.json"
	cat "$dir/records.csv" >"$keep.csv"
	echo "$expr" >"$dir/filter" || fail "$what: echo '$expr' > filter failed"
	same_selection "$keep.json" "$dir/derived_metrics.json" || {
		diff "$keep.json" "$dir/derived_metrics.json" | head >&2
		fail "$what: derived_metrics.json differs from that of the filter '$expr'"
	}
	same_text "$keep.csv" "$dir/records.csv" ||
		fail "$what: records.csv is not the filtered view of '$expr'"
}

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
