#!/bin/bash
# filter.sh - writing filters through the mount with the shell:
#  - bad filters (`rank ==`, an unknown counter, unbalanced parentheses,
#    binary garbage, a log-wide filter naming nothing, 100 KB of text) make
#    the shell's write fail with "Invalid argument", leave `cat filter` and
#    derived_metrics.json as they were and put a one-line reason in
#    filter.error; a later good filter empties filter.error; a misspelt
#    counter's reason names the closest columns (log-wide: with the
#    modules that have them), an unquoted word compared with text says to
#    quote it;
#  - `: > filter` clears the filter, `>>` appends to the expression;
#  - the log-wide filter (LOGDIR/filter) restricts every module, and is
#    ANDed with the module filters.
. "$(dirname "$0")/lib.sh"

SRC=$TMP/src MNT=$TMP/mnt
make_tree "$SRC" "$LOGS"/sample.darshan "$LOGS"/dxt.darshan "$LOGS"/mpi-io-test-x86_64-3.5.0.darshan \
	"$LOGS"/snyder_ior-DFS_id4681120-53379_5-8-15060-3270540599978592154_1.darshan \
	"$LOGS"/partial_data_stdio.darshan "$LOGS"/imbalanced-io.darshan
dfs_mount "$SRC" "$MNT"

# The shell's own writes (echo, printf, : >) are made by a subshell of
# this test's bash: the same open, write and close as a new `bash -c`,
# without starting bash and timeout hundreds of times (a hung mount is
# still ended by the test's own time limit).
# shell_write TEXT FILE [>|>>]: echo TEXT > FILE in a shell; its stderr in $TMP/err
shell_write() {
	if [ "${3:->}" = '>>' ]; then
		( echo "$1" >>"$2" ) 2>"$TMP/err"
	else
		( echo "$1" >"$2" ) 2>"$TMP/err"
	fi
}

nbad=0 ngood=0
# bad_with FILE DESCRIPTION COMMAND...: COMMAND (run by bash with FILE as
# "$1") writes something bad into FILE: the write fails with "Invalid
# argument", nothing changes, filter.error gets one line
bad_with() {
	local f=$1 what=$2 dir before_f before_json after err e cmd
	shift 2
	cmd=$*
	dir=${f%/*}
	slurp before_f "$f"
	slurp before_json "$dir/derived_metrics.json"
	if ( set -- "$f"; eval "$cmd" ) 2>"$TMP/err"; then
		fail "writing $what to ${f#$MNT/} succeeded"
	fi
	slurp err "$TMP/err"
	[[ $err == *"Invalid argument"* ]] ||
		fail "writing $what to ${f#$MNT/}: the shell says '$err', not Invalid argument"
	slurp after "$f"
	[ "$after" = "$before_f" ] ||
		fail "writing $what to ${f#$MNT/} changed the filter from '$before_f' to '${after:0:200}'"
	if [ -n "$before_json" ]; then
		slurp after "$dir/derived_metrics.json"
		[ "$after" = "$before_json" ] ||
			fail "writing $what to ${f#$MNT/} changed derived_metrics.json"
	fi
	slurp e "$f.error"
	[ -n "$e" ] || fail "writing $what to ${f#$MNT/}: filter.error is empty"
	[ "$(nlines "$e")" = 1 ] ||
		fail "writing $what to ${f#$MNT/}: filter.error has $(nlines "$e") lines: $e"
	nbad=$((nbad + 1))
}
# bad FILE EXPR: `echo EXPR > FILE` (the shell's own write) is refused
bad() {
	printf '%s\n' "$2" >"$TMP/bad.txt"
	bad_with "$1" "'$2'" 'IFS= read -r x <"'"$TMP/bad.txt"'"; echo "$x" > "$1"'
}
# bad_file FILE TEXT_FILE DESCRIPTION: `cat TEXT_FILE > FILE` is refused
bad_file() { bad_with "$1" "$3" 'cat "'"$2"'" > "$1"'; }

# `: > filter` writes nothing: the filter is cleared when the kernel
# releases the file, which it reports just after close() returns
emptied() {   # emptied FILE: wait up to 2.5 s for it to read empty
	local i
	for ((i = 0; i < 50; i++)); do
		[ -s "$1" ] || return 0
		sleep 0.05
	done
	return 1
}

# (a filter file reads back its own expression, then a '# from' comment
# line for each filter of the levels above that applies too)
good() {   # good FILE EXPR
	local got e
	shell_write "$2" "$1" || fail "echo '$2' > ${1#$MNT/} failed: $(cat "$TMP/err")"
	slurp got "$1"
	local line kept=()   # less the '# from' lines (grep -v '^# from ')
	while IFS= read -r line; do
		[[ $line == "# from "* ]] || kept+=("$line")
	done <<<"$got"
	printf -v got '%s\n' "${kept[@]}"
	while [[ $got == *$'\n' ]]; do got=${got%$'\n'}; done
	[ "$got" = "$2" ] || fail "${1#$MNT/} reads back '$got' after '$2'"
	slurp e "$1.error"
	[ -n "$e" ] && fail "${1#$MNT/}.error is '$e' after the good filter '$2'"
	ngood=$((ngood + 1))
}

nmods=0
for rel in "${LOGREL[@]}"; do
	for d in "$MNT/$rel"/*/; do
		d=${d%/}
		mod=${d##*/}
		[ -f "$d/derived_metrics.json" ] || continue
		nmods=$((nmods + 1))
		f=$d/filter
		cp "$d/derived_metrics.json" "$TMP/all.json"
		good "$f" "rank == 0"
		cp "$d/derived_metrics.json" "$TMP/rank0.json"
		bad "$f" "rank =="
		bad "$f" "NO_SUCH_COUNTER > 1"
		bad "$f" "${mod//-/}_NO_SUCH > 1"
		bad "$f" "(rank == 0"
		bad "$f" "rank == 0)"
		bad "$f" "((rank == 0) and (rank != 1)"
		bad "$f" "rank == 'zero'"
		bad "$f" "rank < 1 < 2"
		bad "$f" "file_name ~ '('"
		bad_with "$f" "binary garbage (printf)" "printf '\\x00\\x01\\x02\\xfe\\xff garbage\\x7f\\n' > \"\$1\""
		head -c 4096 /dev/urandom >"$TMP/rand.txt"
		bad_file "$f" "$TMP/rand.txt" "4 KB of random bytes"
		same_text "$TMP/rank0.json" "$d/derived_metrics.json" || fail "$rel/$mod: derived_metrics.json changed"
		# a good filter empties filter.error
		good "$f" "rank == 0 or rank == -1"
		# >> appends to the expression
		good "$f" "rank == 0"
		shell_write "or rank == -1" "$f" '>>' || fail "echo ... >> ${f#$MNT/} failed: $(cat "$TMP/err")"
		slurp got "$f"
		[ "$got" = $'rank == 0\nor rank == -1' ] ||
			fail "$rel/$mod/filter after >> reads '$got'"
		cp "$d/derived_metrics.json" "$TMP/appended.json"
		good "$f" "rank == 0 or rank == -1"
		same_text "$TMP/appended.json" "$d/derived_metrics.json" ||
			fail "$rel/$mod: 'rank == 0' >> 'or rank == -1' differs from 'rank == 0 or rank == -1'"
		# a bad >> leaves the filter alone
		printf 'and and\n' >"$TMP/text"
		if ( cat "$TMP/text" >>"$f" ) 2>"$TMP/err"; then
			fail "appending 'and and' to $rel/$mod/filter succeeded"
		fi
		slurp got "$f"
		[ "$got" = "rank == 0 or rank == -1" ] || fail "a refused >> changed $rel/$mod/filter"
		# : > filter clears the filter (and filter.error)
		bad "$f" "rank =="
		( : >"$f" ) || fail ": > $rel/$mod/filter failed"
		[ -s "$f" ] && fail "$rel/$mod/filter is '$(cat "$f")' after : >"
		[ -s "$f.error" ] && fail "$rel/$mod/filter.error is '$(cat "$f.error")' after : >"
		same_text "$TMP/all.json" "$d/derived_metrics.json" ||
			fail "$rel/$mod: derived_metrics.json after : > filter differs from the unfiltered one"
		# comments and blank lines are an empty filter; `true` is all records
		good "$f" "true"
		same_selection "$TMP/all.json" "$d/derived_metrics.json" || fail "$rel/$mod: 'true' is not every record"
		( printf "# nothing\n\n" >"$f" ) || fail "a comment-only filter was refused"
		same_selection "$TMP/all.json" "$d/derived_metrics.json" || fail "$rel/$mod: a comment-only filter is not every record"
		: >"$f"
	done
done
say "ok: $nbad bad filters refused with Invalid argument and a one-line filter.error, nothing changed; $ngood good ones taken ($nmods module directories)"

# ---- the log-wide filter restricts every module (and is ANDed with theirs)
has_rank() {   # has_rank CSV: its header has a column rank
	local h
	IFS= read -r h <"$1" || return 1
	[[ ,$h, == *,rank,* ]]
}
# Checks of CSV rows are queued and made by one python at the end of the
# section (a python start costs more than the checks): the file is copied
# from the mount by cat when queued, so the check sees what the filter of
# that moment selected.
# queue_rows KIND CSV ARG WHAT: KIND is
#   all   every value of column rank satisfies the python test ARG
#   count the number of rows equals that of the CSV ARG (darshanfs-cat's)
#   none  no rows;  some  some rows
QN=0
mkdir -p "$TMP/q"
: >"$TMP/q/list"
queue_rows() {
	QN=$((QN + 1))
	t cat "$2" >"$TMP/q/$QN.csv" || fail "cat $2 failed"
	printf '%s\t%s\t%s\t%s\n' "$1" "$TMP/q/$QN.csv" "$3" "$4" >>"$TMP/q/list"
}
check_rows() {   # make the queued checks; fails naming every one that does not hold
	python3 - "$TMP/q/list" <<'PY' || fail "queued row checks failed (above)"
import csv, sys
bad = 0
for line in open(sys.argv[1]):
    kind, path, arg, what = line.rstrip("\n").split("\t")
    if kind == "all":
        rows = list(csv.DictReader(open(path, newline="")))
        if [r["rank"] for r in rows if not eval(arg, {}, {"rank": int(r["rank"])})]:
            print(f"FAIL: {what}: rows with rank that is not {arg}", file=sys.stderr)
            bad += 1
    elif kind == "count":
        n = len(list(csv.DictReader(open(path, newline=""))))
        want = sum(1 for _ in csv.reader(open(arg, newline=""))) - 1
        if n != want:
            print(f"FAIL: {what}: {n} rows, darshanfs-cat {want}", file=sys.stderr)
            bad += 1
    else:
        n = sum(1 for _ in csv.reader(open(path))) - 1
        if (kind == "none") != (n == 0):
            print(f"FAIL: {what}: {n} rows", file=sys.stderr)
            bad += 1
sys.exit(1 if bad else 0)
PY
	: >"$TMP/q/list"
}
nlog=0 nhint=0
for rel in "${LOGREL[@]}"; do
	L=$MNT/$rel
	good "$L/filter" "rank == 0"
	for d in "$L"/*/; do
		d=${d%/}
		mod=${d##*/}
		has_rank "$d/records.csv" || continue
		queue_rows all "$d/records.csv" "rank == 0" "$rel/$mod/records.csv under the log-wide filter 'rank == 0'"
		ref --write filter='rank == 0' "$SRC" "$rel/$mod/records.csv" >"$TMP/q/$QN.ref" ||
			fail "darshanfs-cat --write filter='rank == 0' $rel/$mod/records.csv failed"
		queue_rows count "$d/records.csv" "$TMP/q/$QN.ref" "$rel/$mod/records.csv under the log-wide filter 'rank == 0'"
		if [ -f "$d/derived_metrics.json" ]; then
			cat "$d/derived_metrics.json" >"$TMP/logwide.json"
			: >"$L/filter"
			good "$d/filter" "rank == 0"
			same_selection "$TMP/logwide.json" "$d/derived_metrics.json" ||
				fail "$rel/$mod: log-wide 'rank == 0' differs from the module's 'rank == 0'"
			# AND: log-wide rank == 0 with the module's rank == -1 selects nothing
			good "$L/filter" "rank == 0"
			good "$d/filter" "rank == -1"
			slurp got "$d/filter"
			[ "$got" = "rank == -1"$'\n'"# from $rel/filter: rank == 0" ] ||
				fail "$rel/$mod/filter under the log-wide 'rank == 0' reads '$got'"
			# what was read can be written back: the comment is no part of it
			t cp "$d/filter" "$TMP/back" && t cp "$TMP/back" "$d/filter" ||
				fail "$rel/$mod/filter does not take back what it read"
			slurp got "$d/filter"
			[ "$got" = "rank == -1"$'\n'"# from $rel/filter: rank == 0" ] ||
				fail "$rel/$mod/filter written back reads '$got'"
			grep -q '^# darshanfs: 0 of ' "$d/derived_metrics" ||
				fail "$rel/$mod: log-wide 'rank == 0' AND module 'rank == -1' selects records: $(grep '^# darshanfs' "$d/derived_metrics")"
			: >"$d/filter"
		fi
		nlog=$((nlog + 1))
	done
	# an unknown column is refused (a syntax error: see the end)
	bad "$L/filter" "NO_SUCH_COUNTER_ANYWHERE > 0"
	[ "$(cat "$L/filter")" = "rank == 0" ] || fail "$rel/filter changed after a refused write"
	if [ -d "$L/POSIX" ] && [ "$nhint" -lt 2 ]; then
		nhint=$((nhint + 1))
		# ... with the closest names, and the modules of the log that have them
		bad "$L/filter" "POSIX_BYTES_RAED > 0"
		slurp e "$L/filter.error"
		[ "$e" = "at 1: unknown column 'POSIX_BYTES_RAED' (did you mean POSIX_BYTES_READ (in POSIX)?)" ] ||
			fail "$rel/filter.error after a misspelt counter is '$e'"
		bad "$L/POSIX/filter" "bytes_raed > 1 MiB"
		slurp e "$L/POSIX/filter.error"
		[ "$e" = "at 1: unknown column 'bytes_raed' (did you mean POSIX_BYTES_READ?)" ] ||
			fail "$rel/POSIX/filter.error after a misspelt counter is '$e'"
		# a word compared with text: quote it
		bad "$L/filter" "fs_type == lustre"
		slurp e "$L/filter.error"
		[ "$e" = "at 12: unknown column 'lustre' (to compare with the text itself, quote it: 'lustre')" ] ||
			fail "$rel/filter.error after an unquoted word is '$e'"
		[ "$(cat "$L/filter")" = "rank == 0" ] || fail "$rel/filter changed after refused writes"
		# the new forms, in any case, sizes with a blank
		good "$L/POSIX/filter" "bytes_read between 0 and 1 TiB and file_name LIKE '%' and mount_pt !~* '^x'"
		good "$L/POSIX/filter" "Rank NOT BETWEEN 1 AND 3 or fs_type in ('lustre', 'nfs')"
		: >"$L/POSIX/filter"
	fi
	# a counter of one module: modules without it have no value, so select nothing
	if [ -d "$L/POSIX" ] && [ -d "$L/STDIO" ]; then
		good "$L/filter" "POSIX_OPENS >= 0"
		queue_rows none "$L/STDIO/records.csv" - "$rel: log-wide 'POSIX_OPENS >= 0' leaves STDIO rows"
		queue_rows some "$L/POSIX/records.csv" - "$rel: log-wide 'POSIX_OPENS >= 0' leaves no POSIX rows"
	fi
	( : >"$L/filter" ) || fail ": > $rel/filter failed"
	emptied "$L/filter" || fail "$rel/filter is not empty after : >"
done
check_rows
say "ok: the log-wide filter restricts all $nlog module directories with a rank column and ANDs with module filters; unknown names in $nhint logs get the closest ones"

# ---- directory filters: every log below, ANDed with the log's filters
unfiltered_json() { ref "$SRC" "$1/derived_metrics.json"; }
good "$MNT/2026/filter" "rank == 0"
nbelow=0 nother=0
for rel in "${LOGREL[@]}"; do
	for d in "$MNT/$rel"/*/; do
		d=${d%/}
		mod=${d##*/}
		has_rank "$d/records.csv" || continue
		case $rel in
		2026/*)
			queue_rows all "$d/records.csv" "rank == 0" "$rel/$mod/records.csv under 2026/filter 'rank == 0'"
			if [ -f "$d/derived_metrics.json" ]; then
				ref -w "$rel/$mod/filter=rank == 0" "$SRC" "$rel/$mod/derived_metrics.json" >"$TMP/want.json"
				same_selection "$TMP/want.json" "$d/derived_metrics.json" ||
					fail "$rel/$mod: 2026/filter 'rank == 0' differs from the module filter 'rank == 0'"
			fi
			nbelow=$((nbelow + 1)) ;;
		*)
			if [ -f "$d/derived_metrics.json" ]; then
				cmp -s <(unfiltered_json "$rel/$mod") "$d/derived_metrics.json" ||
					fail "$rel/$mod is outside 2026/ but 2026/filter changed it"
			fi
			nother=$((nother + 1)) ;;
		esac
	done
done
bad "$MNT/2026/filter" "rank =="
bad "$MNT/2026/filter" "(rank == 0"
[ "$(cat "$MNT/2026/filter")" = "rank == 0" ] || fail "2026/filter changed after a refused write"
# ANDed: the log's own filter narrows further
rel=$(printf '%s\n' "${LOGREL[@]}" | grep -m1 '^2026/')
good "$MNT/$rel/filter" "rank == -1"
for d in "$MNT/$rel"/*/; do
	[ -f "$d/derived_metrics" ] || continue
	grep -q '^# darshanfs: 0 of ' "$d/derived_metrics" || fail "$rel: 2026/filter AND the log's filter select records"
done
# modules.csv of 2026/ counts the selection
t cat "$MNT/2026/modules.csv" >"$TMP/modules.csv" || fail "cat 2026/modules.csv failed"
python3 - "$TMP/modules.csv" <<'PY' || fail "2026/modules.csv does not show the selection (above)"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert rows, "no rows"
bad = [r for r in rows if r["records"] not in ("0", "")]
if bad:
    print("rows with records under rank == 0 AND rank == -1:", [(r["log"], r["module"], r["records"]) for r in bad[:5]], file=sys.stderr)
    sys.exit(1)
PY
: >"$MNT/$rel/filter"
( : >"$MNT/2026/filter" ) || fail ": > 2026/filter failed"
emptied "$MNT/2026/filter" || fail "2026/filter is not empty after : >"
for rel in "${LOGREL[@]}"; do
	[ -f "$MNT/$rel/POSIX/derived_metrics.json" ] || continue
	cmp -s <(unfiltered_json "$rel/POSIX") "$MNT/$rel/POSIX/derived_metrics.json" || fail "$rel/POSIX is still filtered after : > 2026/filter"
done
good "$MNT/filter" "rank == -1 or rank == 0"
good "$MNT/filter" "true"
: >"$MNT/filter"
check_rows
say "ok: 2026/filter restricts $nbelow module directories below it, leaves $nother others alone, ANDs with log filters; modules.csv follows"

# ---- filtered.darshan: a log of the selection that reads back the same
rel=$(printf '%s\n' "${LOGREL[@]}" | grep -m1 'dxt.darshan$')
L=$MNT/$rel
good "$L/POSIX/filter" "POSIX_BYTES_READ > 0"
good "$L/STDIO/filter" "rank == 0"
t cp "$L/filtered.darshan" "$TMP/filtered.darshan" || fail "cp filtered.darshan failed"
M2=$TMP/mnt-filtered
dfs_mount "$L/filtered.darshan" "$M2"    # a log of one mount as the SOURCE of another
nmod=0
for d in "$L"/*/; do
	mod=$(basename "$d")
	[ "$mod" = summary ] && continue    # the log's plots, no module
	t cmp -s "$L/$mod/records.csv" "$M2/$mod/records.csv" ||
		fail "$mod/records.csv of the mounted filtered.darshan differs from the selection"
	cmp -s "$L/$mod/records.csv" <(ref "$TMP/filtered.darshan" "$mod/records.csv") ||
		fail "$mod/records.csv of a copy of filtered.darshan differs from the selection"
	if [ -f "$L/$mod/derived_metrics.json" ]; then
		same_selection "$L/$mod/derived_metrics.json" "$M2/$mod/derived_metrics.json" ||
			fail "$mod/derived_metrics.json of filtered.darshan differs"
	fi
	nmod=$((nmod + 1))
done
n=$(sed -n 's/^# darshanfs: \([0-9]*\) of .*/\1/p' "$L/POSIX/derived_metrics")
grep -q "^# darshanfs: $n of $n records selected" "$M2/POSIX/derived_metrics" || fail "filtered.darshan does not hold exactly the $n selected POSIX records"
dfs_umount "$M2"
: >"$L/POSIX/filter"
: >"$L/STDIO/filter"
say "ok: filtered.darshan ($(stat -c %s "$TMP/filtered.darshan") bytes) mounted and copied reads back the selection of $nmod modules ($n POSIX records)"

# ---- 100 KB of text (over the 64 KiB limit), written three ways
d=$MNT/${LOGREL[0]}/POSIX
good "$d/filter" "rank == 0"
head -c 102400 /dev/zero | tr '\0' x >"$TMP/100k-word.txt"
python3 -c 'import sys; sys.stdout.write(("rank == 0 or " * 8000) + "rank == 1\n")' >"$TMP/100k-expr.txt"
late=()   # failures reported at the end, so that the last section runs
( bad_file "$d/filter" "$TMP/100k-word.txt" "100 KB of one word (one write)" ) || late+=("100 KB of one word")
good "$d/filter" "rank == 0"
( bad_file "$d/filter" "$TMP/100k-expr.txt" "a 100 KB expression (one write)" ) || late+=("a 100 KB expression")
good "$d/filter" "rank == 0"
t bash -c 'yes "rank == 0 or" | head -c 102400 > "$1"' _ "$d/filter" 2>/dev/null &&
	late+=("writing 100 KB through a pipe succeeded")
[ "$(cat "$d/filter")" = "rank == 0" ] || late+=("100 KB through a pipe changed the filter to '$(head -c 80 "$d/filter")'")
[ "$(wc -l <"$d/filter.error")" = 1 ] || late+=("100 KB through a pipe: filter.error is not one line")
[ ${#late[@]} = 0 ] && say "ok: 100 KB filters are refused and change nothing"

# ---- syntax errors in log-wide filters (last: they have crashed the daemon)
for rel in "${LOGREL[@]}"; do
	L=$MNT/$rel
	good "$L/filter" "rank == 0"
	bad "$L/filter" "rank =="
	bad "$L/filter" "(rank == 0"
	bad "$L/filter" "rank == 0 and and"
	[ "$(cat "$L/filter")" = "rank == 0" ] || fail "$rel/filter changed after refused writes"
	: >"$L/filter"
	dfs_alive "$MNT"
done
say "ok: syntax errors in the log-wide filters of ${#LOGREL[@]} logs are refused, the daemon lives"
dfs_alive "$MNT"
dfs_umount "$MNT"
if [ ${#late[@]} -gt 0 ]; then
	printf '  %s\n' "${late[@]}" >&2
	fail "${#late[@]} checks of 100 KB filters failed (above)"
fi
say "PASS"
