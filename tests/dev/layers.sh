#!/bin/bash
# layers.sh LIBDARSHANFS - the core library's directories call only down:
#   util < module < log < {filter, csv, accum, writer} < view
# judged from the object files (a symbol one directory's objects use and
# another's define), so that an include or a call upward fails the build's
# tests, not a review.
set -u
lib=$1
command -v nm >/dev/null || { echo "SKIP: no nm"; exit 77; }
[ -f "$lib" ] || { echo "FAIL: no $lib"; exit 1; }
declare -A allowed=(
	[util]="util"
	[module]="util module"
	[log]="util module log"
	[filter]="util module log filter"
	[csv]="util module log csv"
	[accum]="util module log accum"
	[writer]="util module log writer"
	[view]="util module log filter csv accum writer view"
)
# "SYMBOL DIR" for every symbol an object defines, then every one it uses
dir_of='{ n = split($1, a, "/"); m = a[n]; sub(/:.*/, "", m); sub(/_.*/, "", m); print $NF, m }'
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
[ "$bad" = 0 ] || exit 1
echo "ok: $n symbols used across directories, every one downward"
