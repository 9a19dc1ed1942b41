#!/bin/bash
# regress.sh CASE - one darshanfs bug per case, each reproduced through a
# real mount; the bugs are fixed, and each case fails if its bug returns:
#   logwide-syntax     a syntax error written to a log-wide filter crashes
#                      the daemon (src/view/write.c compile_log_filter frees
#                      uninitialized slots)
#   filter-oversize    a refused over-long filter (one write > 64 KiB)
#                      clears the active filter instead of keeping it
#   filter-split       a filter written in two write() calls that split a
#                      word is refused
#   import-empty       an empty CSV copied to records.csv (what mlr writes
#                      when no row passes) is refused instead of selecting
#                      no record
#   import-limit       a CSV over -o import_limit leaves filter.error empty
#   import-limit-partial  a CSV whose second write() passes import_limit is
#                      refused (EFBIG) but its first rows are imported
#   filter-multiwrite  a bad filter written in two write() calls whose first
#                      line is valid is refused, yet that line is installed
#   signal-status      darshanfs -f ended by SIGTERM/SIGINT exits 4, not 0
#   error-file         a log with an unreadable module region has no ERROR
#   snapshot           a file kept open while a filter shrinks the selection
#                      reads short: the kernel caps reads at the new size
#   concurrent-reads   files read while another process changes the filter
#                      come out cut or mixed (invalid JSON, ragged CSV)
#   fifo               a FIFO put where a log was hangs the daemon (and
#                      its callers) for good: the log is opened blocking
#   replaced-log       a log replaced by another of the same size and
#                      mtime (cp B t; touch -r A t; mv t A) goes unnoticed
#   filter-chunks      a valid filter longer than one write() (awk, dd) is
#                      refused when a chunk ends after '(' or an operator
#   append-import      `echo x >> filter` after an import into records.csv
#                      fails with "unexpected character '\x00'"
#   filter-truncate    `truncate -s 4 filter` exits 0 although refused
#   jobs-deep          jobs.csv silently skips logs more than 64
#                      directories down
#   jobs-names         log names with invalid UTF-8 or control characters
#                      are not quoted in jobs.csv (docs/guide.md says they are)
#   error-relative     ERROR files and jobs.csv's error column show the
#                      server's absolute source paths
#   cache-release      a log over cache_size stays decoded after its reader
#                      closed it, until some other log is loaded
. "$(dirname "$0")/lib.sh"
CASE=${1:?usage: regress.sh DARSHANFS DARSHANFS_CAT CASE}
# a client call (t) that hangs fails its case well within meson's 120 s
T=${T:-30}

SRC=$TMP/src MNT=$TMP/mnt
make_tree "$SRC" "$LOGS"/dxt.darshan
L=$MNT/${LOGREL[0]}
case $CASE in
logwide-syntax)
	dfs_mount "$SRC" "$MNT"
	echo 'rank == 0' >"$L/filter" || fail "a good log-wide filter was refused"
	if echo 'rank ==' 2>"$TMP/err" >"$L/filter"; then fail "a log-wide 'rank ==' was accepted"; fi
	grep -q "Invalid argument" "$TMP/err" || fail "echo 'rank ==' > LOGDIR/filter: '$(cat "$TMP/err")', not Invalid argument (the daemon crashed?)"
	dfs_alive "$MNT"
	[ "$(cat "$L/filter")" = "rank == 0" ] || fail "the log-wide filter changed"
	grep -q "at 8" "$L/filter.error" || fail "filter.error is '$(cat "$L/filter.error")'"
	;;
filter-oversize)
	dfs_mount "$SRC" "$MNT"
	echo 'rank == 0' >"$L/POSIX/filter" || fail "a good filter was refused"
	python3 -c 'import sys; sys.stdout.write("rank == 0 or " * 8000 + "rank == 1\n")' >"$TMP/big"
	if cp "$TMP/big" "$L/POSIX/filter" 2>/dev/null; then fail "a 100 KB filter was accepted"; fi
	[ "$(cat "$L/POSIX/filter")" = "rank == 0" ] ||
		fail "a refused 100 KB filter (one write) changed the filter from 'rank == 0' to '$(head -c 60 "$L/POSIX/filter")'"
	[ -s "$L/POSIX/filter.error" ] || fail "filter.error is empty after a refused 100 KB filter"
	;;
filter-split)
	dfs_mount "$SRC" "$MNT"
	for parts in "rank == 0 or ra|nk == 1" "rank == 0 an|d rank != 1" "POSIX_BYTES_|READ >= 0" "rank == 0 or file_name ~ '/tm|p/'"; do
		python3 - "$L/POSIX/filter" "$parts" <<'PY' || fail "a filter written in two parts ('$parts') was refused: $(cat "$L/POSIX/filter.error")"
import os, sys
a, b = sys.argv[2].split("|")
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_TRUNC)
try:
    os.write(fd, a.encode())
    os.write(fd, (b + "\n").encode())
finally:
    os.close(fd)
PY
		[ "$(cat "$L/POSIX/filter")" = "${parts/|/}" ] || fail "after '$parts' the filter is '$(cat "$L/POSIX/filter")'"
	done
	;;
import-empty)
	dfs_mount "$SRC" "$MNT"
	head -2 "$L/POSIX/records.csv" >"$TMP/one.csv"
	cp "$TMP/one.csv" "$L/POSIX/records.csv" || fail "a 1-row import failed"
	: >"$TMP/empty.csv"
	cp "$TMP/empty.csv" "$L/POSIX/records.csv" 2>"$TMP/err" ||
		fail "cp of an empty file onto records.csv failed: $(cat "$TMP/err") / $(cat "$L/POSIX/filter.error")"
	[ "$(cat "$L/POSIX/filter")" = "# imported: 0 rows" ] || fail "after an empty CSV the filter is '$(cat "$L/POSIX/filter")'"
	[ -s "$L/POSIX/filter.error" ] && fail "filter.error is '$(cat "$L/POSIX/filter.error")' after an empty CSV"
	[ "$(wc -l <"$L/POSIX/records.csv")" = 1 ] || fail "records.csv holds rows after an empty CSV"
	;;
import-limit)
	dfs_mount "$SRC" "$MNT" -o import_limit=4K
	cat "$L/POSIX/records.csv" >"$TMP/all.csv"
	if cp "$TMP/all.csv" "$L/POSIX/records.csv" 2>/dev/null; then fail "a CSV over import_limit was accepted"; fi
	[ -s "$L/POSIX/filter.error" ] || fail "a CSV over -o import_limit=4K was refused (EFBIG) but filter.error is empty"
	;;
import-limit-partial)
	dfs_mount "$SRC" "$MNT" -o import_limit=8K
	cat "$L/POSIX/records.csv" >"$TMP/all.csv"
	python3 - "$L/POSIX/records.csv" "$TMP/all.csv" <<'PY' && fail "a CSV over import_limit written in two parts was accepted"
import os, sys
data = open(sys.argv[2], "rb").read()
first = b"\n".join(data.split(b"\n")[:4]) + b"\n"      # the header and 3 rows
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_TRUNC)
ok = True
try:
    os.write(fd, first)
    os.write(fd, data[len(first):])                  # passes the 8K limit
except OSError as e:
    print(f"  second write: {e}", file=sys.stderr)
    ok = False
try:
    os.close(fd)
except OSError:
    ok = False
sys.exit(0 if ok else 1)
PY
	[ -s "$L/POSIX/filter" ] &&
		fail "a CSV refused with EFBIG at its second write() was imported anyway: filter is '$(cat "$L/POSIX/filter")'"
	;;
filter-multiwrite)
	dfs_mount "$SRC" "$MNT"
	echo 'rank == -1' >"$L/POSIX/filter" || fail "a good filter was refused"
	if bash -c '{ echo "rank == 0"; echo "and ("; } > "$1"' _ "$L/POSIX/filter" 2>/dev/null; then
		fail "the bad two-line filter was accepted"
	fi
	[ "$(cat "$L/POSIX/filter")" = "rank == -1" ] ||
		fail "{ echo 'rank == 0'; echo 'and ('; } > filter was refused (EINVAL) but changed the filter from 'rank == -1' to '$(cat "$L/POSIX/filter")'"
	;;
signal-status)
	for sig in TERM INT; do
		dfs_mount "$SRC" "$MNT"
		kill -$sig "${MNT_PID[$MNT]}"
		st=$(dfs_wait_exit "$MNT") || exit 1
		unset "MNT_PID[$MNT]"
		is_mounted "$MNT" && fail "still mounted after SIG$sig"
		[ "$st" = 0 ] || fail "darshanfs -f unmounted cleanly on SIG$sig but exited with status $st (4 = runtime failure)"
	done
	say "PASS ($CASE)"
	exit 0
	;;
error-file)
	s=$(stat -c %s "$LOGS/dxt.darshan")
	head -c $((s / 2)) "$LOGS/dxt.darshan" >"$SRC/half.darshan"
	dfs_mount "$SRC" "$MNT"
	if cat "$MNT/half.darshan/DXT_POSIX/records.csv" >/dev/null 2>"$TMP/err"; then fail "a truncated DXT region reads"; fi
	grep -q "Input/output error" "$TMP/err" || fail "reading the truncated region: '$(cat "$TMP/err")'"
	[ -f "$MNT/half.darshan/ERROR" ] ||
		fail "half.darshan: DXT_POSIX/records.csv fails with EIO but the log has no ERROR file (ls: $(ls "$MNT/half.darshan" | tr '\n' ' '))"
	[ -s "$MNT/half.darshan/ERROR" ] || fail "half.darshan/ERROR is empty"
	;;
snapshot)
	dfs_mount "$SRC" "$MNT"
	python3 - "$L/POSIX" <<'PY' || fail "an open records.csv does not keep its snapshot across a filter change (above)"
import os, sys
d = sys.argv[1] + "/"
full = open(d + "records.csv", "rb").read()
with open(d + "records.csv", "rb", buffering=0) as f:
    head = f.read(1000)
    with open(d + "filter", "w") as flt:
        flt.write("rank == -5\n")         # selects nothing: records.csv shrinks
    rest = f.read()
got = head + rest
if got != full:
    print(f"read {len(got)} bytes through a handle opened before the filter "
          f"change, its snapshot has {len(full)}", file=sys.stderr)
    sys.exit(1)
PY
	;;
concurrent-reads)
	dfs_mount "$SRC" "$MNT"
	python3 - "$L" <<'PY' || fail "reads racing with filter changes return damaged files (above)"
import csv, io, json, sys, threading, time
d = sys.argv[1] + "/"
stop = time.time() + 10
bad, reads = [], [0]
def writer():
    i = 0
    while time.time() < stop:
        with open(d + "POSIX/filter", "w") as f:
            f.write(("rank == 0" if i % 2 else "POSIX_BYTES_READ > 0") + "\n")
        i += 1
def reader():
    while time.time() < stop:
        try:
            json.loads(open(d + "POSIX/derived_metrics.json").read())
            rows = list(csv.reader(io.StringIO(open(d + "POSIX/records.csv", newline="").read())))
            if any(len(r) != len(rows[0]) for r in rows):
                raise ValueError(f"ragged CSV: rows of {sorted({len(r) for r in rows})} fields")
            reads[0] += 1
        except ValueError as e:
            bad.append(str(e)[:120])
ts = [threading.Thread(target=writer)] + [threading.Thread(target=reader) for _ in range(3)]
for t in ts: t.start()
for t in ts: t.join()
print(f"{reads[0]} good reads, {len(bad)} damaged", file=sys.stderr)
for b in bad[:5]: print("  " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
	;;
fifo)
	# a client call that hangs fails the case instead of the suite
	T=15
	cp "$LOGS/dxt.darshan" "$TMP/one.darshan"
	ONE=$TMP/one
	dfs_mount "$TMP/one.darshan" "$ONE"
	rm "$TMP/one.darshan"
	mkfifo "$TMP/one.darshan"
	t ls "$ONE" >"$TMP/ls.txt" || fail "ls of a single-log mount whose log became a FIFO failed or hung (status $?)"
	grep -qx ERROR "$TMP/ls.txt" || fail "no ERROR file for a FIFO log: $(tr '\n' ' ' <"$TMP/ls.txt")"
	t cat "$ONE/ERROR" >"$TMP/error.txt" || fail "cat ERROR failed"
	grep -q "not a regular file" "$TMP/error.txt" || fail "ERROR says '$(cat "$TMP/error.txt")'"
	if t cat "$ONE/header.txt" >/dev/null 2>"$TMP/err"; then fail "header.txt of a FIFO reads"; fi
	grep -q "Input/output error" "$TMP/err" || fail "header.txt of a FIFO: '$(cat "$TMP/err")', not EIO"
	dfs_alive "$ONE"
	dfs_umount "$ONE"
	# in a tree: a FIFO named like a log, and a link to one, are no logs
	mkfifo "$SRC/x.darshan"
	ln -s "$SRC/x.darshan" "$SRC/y.darshan"
	dfs_mount "$SRC" "$MNT"
	t cat "$MNT/jobs.csv" >"$TMP/jobs.csv" || fail "jobs.csv over a FIFO named x.darshan failed or hung"
	grep -q "^${LOGREL[0]}," "$TMP/jobs.csv" || fail "jobs.csv lost the real log: $(cat "$TMP/jobs.csv")"
	if grep -q "^[xy]\.darshan," "$TMP/jobs.csv"; then fail "jobs.csv has a row for a FIFO"; fi
	;;
replaced-log)
	A=$SRC/${LOGREL[0]}
	touch -d '2020-01-02 03:04:05' "$A"   # an old time: listings are cached by it
	dfs_mount "$SRC" "$MNT"
	t ls "$L" | grep -qx DXT_POSIX || fail "dxt.darshan lists no DXT_POSIX"
	t cat "$L/header.txt" | grep -q "^# jobid: 1537455$" || fail "header.txt of dxt.darshan: no jobid 1537455"
	t cat "$MNT/modules.csv" | grep -q "^${LOGREL[0]},POSIX,.*,1537455," || fail "modules.csv: no row of job 1537455"
	t cat "$MNT/jobs.csv" | grep -q "^${LOGREL[0]},1537455," || fail "jobs.csv: no row of job 1537455"
	t cat "$L/POSIX/records.csv" >/dev/null || fail "records.csv does not read"
	# another log, padded to the same size, given the same mtime
	cp "$LOGS/skew-app.darshan" "$TMP/t"
	truncate -s "$(stat -c %s "$A")" "$TMP/t"
	touch -r "$A" "$TMP/t"
	mv "$TMP/t" "$A"
	sleep 1.2   # the kernel's attributes (attr_timeout) expire
	t cat "$L/header.txt" >"$TMP/h.txt" || fail "header.txt of the replaced log does not read"
	grep -q "^# jobid: 75746776$" "$TMP/h.txt" ||
		fail "a log replaced by one of the same size and mtime still shows the old header ($(grep jobid "$TMP/h.txt"))"
	t cat "$MNT/modules.csv" >"$TMP/modules.csv" || fail "modules.csv does not read"
	grep -q "^${LOGREL[0]},POSIX,.*,75746776," "$TMP/modules.csv" ||
		fail "modules.csv still summarizes the replaced log: $(grep "^${LOGREL[0]},POSIX," "$TMP/modules.csv")"
	t cat "$MNT/jobs.csv" | grep -q "^${LOGREL[0]},75746776," ||
		fail "jobs.csv still summarizes the replaced log"
	n=$(t cat "$L/POSIX/records.csv" | wc -l)
	[ "$n" = 2 ] || fail "records.csv of the replaced log (1 POSIX record) has $n lines"
	t ls "$L" >"$TMP/ls.txt" || fail "ls of the replaced log's directory failed"
	grep -qx MPI-IO "$TMP/ls.txt" && ! grep -qx DXT_POSIX "$TMP/ls.txt" ||
		fail "the replaced log's directory lists the old modules: $(tr '\n' ' ' <"$TMP/ls.txt")"
	;;
filter-chunks)
	F=$L/POSIX/filter
	dfs_mount "$SRC" "$MNT"
	t cat "$L/POSIX/records.csv" | tail -n +2 | cut -d, -f1 >"$TMP/ids"
	nreal=$(wc -l <"$TMP/ids")
	for i in $(seq $((400 - nreal))); do echo $((1000000000000 + i)); done >>"$TMP/ids"
	# as the issue did it: awk writes the list through its stdio buffer
	t awk 'BEGIN { printf "record_id in (" } { printf "%s%s", (NR > 1 ? ", " : ""), $1 }
	       END { print ")" }' "$TMP/ids" >"$F" 2>"$TMP/err" ||
		fail "a 400-id filter written by awk was refused: $(cat "$TMP/err") ($(cat "$L/POSIX/filter.error"))"
	awk 'BEGIN { printf "record_id in (" } { printf "%s%s", (NR > 1 ? ", " : ""), $1 }
	     END { print ")" }' "$TMP/ids" >"$TMP/list"
	[ "$(t cat "$F")" = "$(cat "$TMP/list")" ] || fail "the 400-id filter reads back different"
	n=$(t cat "$L/POSIX/records.csv" | wc -l)
	[ "$n" = $((nreal + 1)) ] || fail "the 400-id filter selects $((n - 1)) records, not $nreal"
	# a long 'or' chain, and the same made bad only at its end, by dd at
	# several block sizes (cut in words, after operators, in numbers)
	python3 -c 'import sys; sys.stdout.write(" or ".join("rank == %d" % i for i in range(700)) + "\n")' >"$TMP/chain"
	head -c -1 "$TMP/chain" >"$TMP/bad-end"
	printf ' or rank ==' >>"$TMP/bad-end"
	for bs in 1 7 4096 4097; do
		echo 'rank == -1' >"$F" || fail "a good filter was refused"
		t dd if="$TMP/chain" of="$F" bs=$bs status=none 2>"$TMP/err" ||
			fail "dd bs=$bs of a valid $(stat -c %s "$TMP/chain")-byte filter was refused: $(cat "$TMP/err") ($(cat "$L/POSIX/filter.error"))"
		[ "$(t cat "$F")" = "$(cat "$TMP/chain")" ] || fail "dd bs=$bs: the filter reads back different"
		echo 'rank == -1' >"$F" || fail "a good filter was refused"
		t dd if="$TMP/bad-end" of="$F" bs=$bs status=none 2>/dev/null
		[ "$(t cat "$F")" = "rank == -1" ] || fail "dd bs=$bs of a filter bad at its end changed the filter"
		grep -q "expected a value after '=='" "$L/POSIX/filter.error" ||
			fail "dd bs=$bs of a filter bad only at its end: filter.error is '$(cat "$L/POSIX/filter.error")'"
	done
	# what no continuation can mend is refused at the write() that has it
	{ printf 'rank == 0 or rank @ 1 or '; cat "$TMP/chain"; } >"$TMP/bad-early"
	if t dd if="$TMP/bad-early" of="$F" bs=4096 status=none 2>"$TMP/err"; then
		fail "a filter with '@' in its first line was accepted"
	fi
	grep -q "error writing" "$TMP/err" || fail "the '@' was not refused at write(): $(cat "$TMP/err")"
	grep -q "unexpected character '@'" "$L/POSIX/filter.error" || fail "filter.error is '$(cat "$L/POSIX/filter.error")'"
	[ "$(t cat "$F")" = "rank == -1" ] || fail "a refused filter changed the filter"
	;;
append-import)
	F=$L/POSIX/filter
	dfs_mount "$SRC" "$MNT"
	t head -2 "$L/POSIX/records.csv" >"$TMP/one.csv"
	t cp "$TMP/one.csv" "$L/POSIX/records.csv" || fail "a 1-row import failed"
	[ "$(t cat "$F")" = "# imported: 1 rows" ] || fail "filter after an import: '$(cat "$F")'"
	if t bash -c 'echo x >>"$1"' _ "$F" 2>"$TMP/err"; then fail "echo x >> filter was accepted"; fi
	grep -q "unknown column 'x'" "$L/POSIX/filter.error" ||
		fail "echo x >> filter after an import: filter.error is '$(cat "$L/POSIX/filter.error")', not unknown column 'x'"
	[ "$(t cat "$F")" = "# imported: 1 rows" ] || fail "a refused >> changed the selection"
	t bash -c 'echo "rank == 0" >>"$1"' _ "$F" 2>"$TMP/err" ||
		fail "echo 'rank == 0' >> filter after an import was refused: $(cat "$TMP/err") ($(cat "$L/POSIX/filter.error"))"
	[ "$(t cat "$F")" = "rank == 0" ] || fail "after >> the filter is '$(cat "$F")'"
	t bash -c 'echo "or rank == 1" >>"$1"' _ "$F" || fail ">> to a filter was refused"
	[ "$(t cat "$F")" = "$(printf 'rank == 0\nor rank == 1')" ] || fail "after a second >> the filter is '$(cat "$F")'"
	;;
filter-truncate)
	F=$L/POSIX/filter
	dfs_mount "$SRC" "$MNT"
	echo 'rank == 0' >"$F" || fail "a good filter was refused"
	if t truncate -s 4 "$F" 2>"$TMP/err"; then
		fail "truncate -s 4 filter exited 0 (filter: '$(cat "$F")', filter.error: '$(cat "$L/POSIX/filter.error")')"
	fi
	grep -q "Invalid argument" "$TMP/err" || fail "truncate -s 4 filter: '$(cat "$TMP/err")', not EINVAL"
	grep -q "truncated to 0" "$L/POSIX/filter.error" || fail "filter.error is '$(cat "$L/POSIX/filter.error")'"
	[ "$(t cat "$F")" = "rank == 0" ] || fail "a refused truncate changed the filter to '$(cat "$F")'"
	# truncate(2) of the path, without an open file
	t python3 -c 'import os, sys; os.truncate(sys.argv[1], 4)' "$F" 2>/dev/null &&
		fail "truncate(2) of a filter to 4 bytes succeeded"
	[ "$(t cat "$F")" = "rank == 0" ] || fail "a refused truncate(2) changed the filter"
	t truncate -s 0 "$F" || fail "truncate -s 0 filter failed"
	[ -z "$(t cat "$F")" ] || fail "truncate -s 0 left the filter '$(cat "$F")'"
	;;
jobs-deep)
	deep=$SRC/deep
	for i in $(seq 70); do deep=$deep/d; done
	mkdir -p "$deep"
	cp "$LOGS/dxt.darshan" "$deep/"
	dfs_mount "$SRC" "$MNT"
	t cat "$MNT/jobs.csv" >"$TMP/jobs.csv" || fail "jobs.csv does not read"
	grep -q "^${LOGREL[0]},[0-9]" "$TMP/jobs.csv" || fail "jobs.csv lost the shallow log"
	grep -q "^deep/\(d/\)*d,.*nested deeper than 64 levels" "$TMP/jobs.csv" ||
		fail "jobs.csv says nothing of a log 71 directories down: $(cut -c1-80 "$TMP/jobs.csv")"
	;;
jobs-names)
	cp "$LOGS/dxt.darshan" "$SRC/"$'bad\xffname.darshan'
	cp "$LOGS/dxt.darshan" "$SRC/"$'tab\there.darshan'
	dfs_mount "$SRC" "$MNT"
	t cat "$MNT/modules.csv" >"$TMP/modules.csv" || fail "modules.csv does not read"
	t cat "$MNT/jobs.csv" >"$TMP/jobs.csv" || fail "jobs.csv does not read"
	for name in $'bad\xffname.darshan' $'tab\there.darshan'; do
		grep -qF "\"$name\",POSIX," "$TMP/modules.csv" ||
			fail "modules.csv does not quote the name $(printf %q "$name"): $(grep -a POSIX, "$TMP/modules.csv" | cut -c1-30 | od -c | head -5)"
		grep -qF "\"$name\",1537455," "$TMP/jobs.csv" ||
			fail "jobs.csv does not quote the name $(printf %q "$name")"
	done
	# and every reader finds the same rows
	python3 - "$TMP/modules.csv" "$TMP/jobs.csv" <<'PY' || fail "python's csv reads the tables differently (above)"
import csv, sys
for f in sys.argv[1:]:
    rows = list(csv.reader(open(f, newline="", encoding="utf-8", errors="surrogateescape")))
    bad = [r for r in rows if len(r) != len(rows[0])]
    if bad:
        sys.exit(f"{f}: rows of {len(bad[0])} fields, not {len(rows[0])}: {bad[0][:2]}")
PY
	;;
error-relative)
	# a one-log mount names the log by its file name
	cp "$LOGS/dxt.darshan" "$TMP/one.darshan"
	dfs_mount "$TMP/one.darshan" "$TMP/one"
	t cat "$TMP/one/header.txt" >/dev/null || fail "header.txt of the one log does not read"
	truncate -s 100 "$TMP/one.darshan"
	sleep 1.2   # the kernel's attributes (attr_timeout) expire
	t cat "$TMP/one/ERROR" >"$TMP/error.txt" 2>/dev/null || fail "a log truncated while mounted has no ERROR"
	grep -q "^one.darshan: truncated header" "$TMP/error.txt" || fail "ERROR of a one-log mount is '$(cat "$TMP/error.txt")'"
	dfs_umount "$TMP/one"
	# a tree: the path below SOURCE
	mkdir -p "$SRC/sub"
	head -c 100 "$LOGS/dxt.darshan" >"$SRC/sub/tiny.darshan"
	dfs_mount "$SRC" "$MNT"
	t cat "$MNT/sub/tiny.darshan/ERROR" >"$TMP/error.txt" || fail "cat ERROR failed"
	t cat "$MNT/jobs.csv" >"$TMP/jobs.csv" || fail "jobs.csv does not read"
	t cat "$MNT/sub/jobs.csv" >>"$TMP/jobs.csv" || fail "sub/jobs.csv does not read"
	if grep -F "$TMP" "$TMP/error.txt" "$TMP/jobs.csv"; then
		fail "the server's absolute path $SRC shows (above)"
	fi
	grep -q "^sub/tiny.darshan: truncated header" "$TMP/error.txt" ||
		fail "ERROR is '$(cat "$TMP/error.txt")', not 'sub/tiny.darshan: truncated header...'"
	[ "$(grep -c ',"\?sub/tiny.darshan: truncated header' "$TMP/jobs.csv")" = 2 ] ||
		fail "jobs.csv error column: $(grep tiny "$TMP/jobs.csv")"
	;;
cache-release)
	dfs_mount "$SRC" "$MNT" -o cache_size=1K
	t python3 - "$MNT" "$L" <<'PY' || fail "the cache kept a log nobody reads (above)"
import os, sys, time
mnt, log = sys.argv[1:3]
def cached():
    return int(os.getxattr(mnt, "user.darshanfs.cached"))
with open(os.path.join(log, "header.txt"), "rb") as f:
    f.read(100)
    if cached() == 0:
        sys.exit("a log being read counts no bytes")
    # (releases reach the daemon after close returns: wait for it)
for _ in range(100):
    if cached() == 0:
        break
    time.sleep(0.1)
else:
    sys.exit(f"the reader closed header.txt 10 s ago, the cache still counts {cached()} bytes over cache_size=1K")
PY
	[ "$(decodes "$MNT")" = 1 ] || fail "$(decodes "$MNT") decodes, not 1"
	t cat "$L/header.txt" >/dev/null || fail "header.txt does not read again"
	[ "$(decodes "$MNT")" = 2 ] || fail "read again after its eviction, the log was decoded $(decodes "$MNT") times, not 2"
	;;
*) fail "unknown case $CASE" ;;
esac
dfs_alive "$MNT"
dfs_umount "$MNT"
say "PASS ($CASE)"
