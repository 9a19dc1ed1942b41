#!/bin/bash
# layers.sh LIBDARSHANFS - the core library's directories call only down:
#   util < module < log < {filter, csv, accum, writer} < summary < view
# (summary: above accum and csv only; index, the persistent index of the
# logs' facts, above module only, called by view)
# judged from the object files (a symbol one directory's objects use and
# another's define), so that an include or a call upward fails the build's
# tests, not a review.
#
# Inside src/view/ the files call only down too: no file both calls and is
# called by another, directly or round a longer cycle (the order is in
# src/view/view_int.h).  A cycle found is named with the symbols that
# make it.
set -u
lib=$1
command -v nm >/dev/null || { echo "SKIP: no nm"; exit 77; }
[ -f "$lib" ] || { echo "FAIL: no $lib"; exit 1; }
declare -A allowed=(
	[util]="util"
	[parquet]="util module log parquet"
	[module]="util module"
	[log]="util module log"
	[filter]="util module log filter"
	[csv]="util module log csv"
	[accum]="util module log accum"
	[writer]="util module log writer"
	[summary]="util module log accum csv summary"
	[index]="util module index"
	[view]="util module log filter csv accum writer summary index parquet view"
)
# "SYMBOL DIR" for every symbol an object defines, then every one it uses
# (nm -A prefixes "ARCHIVE:MEMBER:" to a plain archive's lines, the
# member's path to a thin one's; the address may follow the colon)
member='m = $1; sub(/^.*\.a:/, "", m); sub(/:.*/, "", m); sub(/.*\//, "", m);'
dir_of="{ $member"' sub(/_.*/, "", m); print $NF, m }'
defs=$(nm -A --defined-only "$lib" | awk '$2 ~ /^[TDBRC]$/' | awk "$dir_of") || exit 1
uses=$(nm -A --undefined-only "$lib" | awk "$dir_of") || exit 1
[ -n "$defs" ] || { echo "FAIL: nm found no symbols in $lib"; exit 1; }
edges=$(awk 'NR == FNR { d[$1] = $2; next } ($1 in d) && d[$1] != $2 { print $2, d[$1], $1 }' \
	<(printf '%s\n' "$defs") <(printf '%s\n' "$uses") | sort -u)
bad=0 n=0
while read -r from to sym; do
	[ -n "$from" ] || continue
	n=$((n + 1))
	if [ -z "${allowed[$from]+x}" ]; then
		echo "FAIL: src/$from/ is not in the table of layers (tests/dev/layers.sh)"
		bad=1
	elif [[ " ${allowed[$from]} " != *" $to "* ]]; then
		echo "FAIL: src/$from/ calls up into src/$to/: $sym"
		bad=1
	fi
done <<<"$edges"
[ "$n" -gt 0 ] || { echo "FAIL: no call between directories found: is $lib the core library?"; exit 1; }

# the same symbols between the files of src/view/ ("view_cache.c.o" is
# src/view/cache.c)
view_of="{ $member"' if (m !~ /^view_/) next;
	sub(/^view_/, "", m); sub(/\.c\.o$/, "", m); print $NF, m }'
vdefs=$(nm -A --defined-only "$lib" | awk '$2 ~ /^[TDBRC]$/' | awk "$view_of") || exit 1
vuses=$(nm -A --undefined-only "$lib" | awk "$view_of") || exit 1
vedges=$(awk 'NR == FNR { d[$1] = $2; next } ($1 in d) && d[$1] != $2 { print $2, d[$1], $1 }' \
	<(printf '%s\n' "$vdefs") <(printf '%s\n' "$vuses") | sort -u)
[ -n "$vedges" ] || { echo "FAIL: no call between the files of src/view/ found"; bad=1; }
# a depth-first walk: a file met again while it is on the path closes a cycle
cycle=$(printf '%s\n' "$vedges" | awk '
function visit(f,    i, k, t, to) {
	state[f] = 1
	path[++depth] = f
	k = split(out[f], to, " ")
	for (i = 1; i <= k && !found; i++) {
		t = to[i]
		if (state[t] == 1) {
			found = 1
			for (j = 1; path[j] != t; j++)
				;
			line = path[j] ".c"
			for (; j < depth; j++)
				line = line " -> " path[j + 1] ".c (" sym[path[j], path[j + 1]] ")"
			print line " -> " t ".c (" sym[f, t] ")"
		} else if (!state[t]) {
			visit(t)
		}
	}
	depth--
	state[f] = 2
}
NF == 3 {
	if (!(($1, $2) in sym)) {
		sym[$1, $2] = $3
		out[$1] = out[$1] " " $2
	}
	if (!($1 in seen)) {
		seen[$1] = 1
		files[++nfiles] = $1
	}
}
END {
	for (n = 1; n <= nfiles && !found; n++)
		if (!state[files[n]])
			visit(files[n])
}')
if [ -n "$cycle" ]; then
	echo "FAIL: files of src/view/ call each other in a cycle: $cycle"
	bad=1
fi
# and in the order view_int.h's opening comment lists them: a file calls
# only files listed below it, and every file that calls or is called is
# listed
order=$(dirname "$0")/../../src/view/view_int.h
if [ -f "$order" ]; then
	listed=$(awk '/^#/ { exit } match($0, /^ \*   [a-z_]+\.c /) { f = $2; sub(/\.c$/, "", f); print f }' "$order")
	wrong=$(awk 'NR == FNR { at[$1] = NR; next }
		!($1 in at) { print "src/view/" $1 ".c is not listed"; next }
		!($2 in at) { print "src/view/" $2 ".c is not listed"; next }
		at[$1] > at[$2] && !seen[$1 " " $2]++ { print $1 ".c calls " $2 ".c, listed above it (" $3 ")" }' \
		<(printf '%s\n' "$listed") <(printf '%s\n' "$vedges") | sort -u)
	if [ -n "$wrong" ]; then
		printf 'FAIL: src/view/view_int.h: %s\n' "$wrong"
		bad=1
	fi
fi
[ "$bad" = 0 ] || exit 1
echo "ok: $n symbols used across directories, every one downward;" \
	"$(printf '%s\n' "$vedges" | wc -l) between the files of src/view/, in no cycle"
