#!/bin/bash
# globals.sh LIBDARSHANFS - the core library keeps no process-wide mutable
# state: no object of it lies in writable data (.data, .bss, common) or is
# thread-local (.tdata, .tbss), so two views in one process never share
# anything but constants (docs/locks.md).  Everything a view, a log or a
# caller needs to change lives in the object it owns.
#
# Constant tables that hold pointers (names, descriptors) are in
# .data.rel.ro: nm shows them as 'd'/'D' in this position-independent
# archive, but the loader makes them read-only once relocated, so they
# pass.  An exception needs a line in `allowed` below saying why.
set -u
lib=$1
command -v objdump >/dev/null || { echo "SKIP: no objdump"; exit 77; }
[ -f "$lib" ] || { echo "FAIL: no $lib"; exit 1; }
# "member:symbol" -> why it may be written
declare -A allowed=()
# "MEMBER SECTION SYMBOL" for every object symbol (objdump -t names the
# member in a line "NAME:  file format ..."; section symbols, flag 'd',
# are left out)
syms=$(objdump -t "$lib" | awk '
	/file format/ { m = $1; sub(/:$/, "", m); next }
	/^[0-9a-f]+ / {
		flags = substr($0, 18, 7)
		if (flags ~ /d/ || flags ~ /f/) next
		rest = substr($0, 26); split(rest, p, /[ \t]+/)
		print m, p[1], $NF
	}') || exit 1
# the listing must show the constants too, or its parse is broken
if ! grep -q ' dfs_module_posix$' <<<"$syms"; then
	echo "FAIL: objdump -t of $lib did not list dfs_module_posix: cannot judge"
	exit 1
fi
bad=0 n=0
while read -r member section sym; do
	n=$((n + 1))
	case $section in
	.data.rel.ro | .data.rel.ro.*) continue ;;
	.data | .data.* | .bss | .bss.* | .tdata | .tdata.* | .tbss | .tbss.* | '*COM*') ;;
	*) continue ;;
	esac
	# what a sanitizer or coverage build adds is the tool's, not ours
	case $sym in
	__odr_asan.* | __asan_* | __ubsan_* | __gcov*) continue ;;
	esac
	key="$member:$sym"
	if [ -n "${allowed[$key]+x}" ]; then
		echo "allowed: $key in $section (${allowed[$key]})"
		continue
	fi
	echo "FAIL: $member: $sym is in $section (writable or thread-local)"
	bad=1
done <<<"$syms"
[ $bad = 0 ] || {
	echo "make it const (const char *const for tables of strings), or give it"
	echo "a home in the view, log or caller that owns it"
	exit 1
}
echo "ok: no writable or thread-local data among the $n symbols of $lib"
