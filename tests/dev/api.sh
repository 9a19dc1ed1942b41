#!/bin/bash
# api.sh SOURCE_ROOT LIBDARSHANFS DARSHANFS_CAT [SANITIZE] - the installed API stands
# alone: tests/dev/api_example.c, compiled with the headers src/meson.build
# installs only (nothing else of include/, nothing of src/) and linked with
# the library, prints a shared log's header exactly as darshanfs-cat does,
# made by the report functions and read through a view alike.
set -u
top=$1 lib=$2 cat=$3 san=${4:-none}
cc=${CC:-cc}
flags=()   # a sanitized library links with its runtime
[ "$san" != none ] && [ -n "$san" ] && flags=(-fsanitize="$san")
command -v "$cc" >/dev/null || { echo "SKIP: no C compiler"; exit 77; }
log=$(ls "${DFS_SHARED:-$top/../shared}"/darshan-logs/*.darshan 2>/dev/null | head -1)
[ -n "$log" ] || { echo "SKIP: no shared logs"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# the headers install_headers() names, laid out as installed
mkdir -p "$tmp/inc/darshanfs"
heads=$(grep -o "'\.\./include/[a-z/_]*\.h'" "$top/src/meson.build" | tr -d "'")
[ -n "$heads" ] || { echo "FAIL: no installed headers found in src/meson.build"; exit 1; }
for h in $heads; do
	rel=${h#../include/}
	cp "$top/include/$rel" "$tmp/inc/$rel" || { echo "FAIL: $rel is installed but missing"; exit 1; }
done
# include/ is the installed API and nothing else: a header the library
# keeps to itself lives in src/
for h in "$top"/include/darshanfs.h "$top"/include/darshanfs/*.h; do
	rel=../include/${h#"$top"/include/}
	[[ " $(echo $heads) " == *" $rel "* ]] || { echo "FAIL: ${h#"$top"/} is not installed: move it to src/"; exit 1; }
done
libs=$(pkg-config --libs zlib libzstd bzip2 sqlite3 2>/dev/null || echo "-lz -lzstd -lbz2 -lsqlite3")
pkg-config --exists libisal 2>/dev/null && libs="$libs $(pkg-config --libs libisal)"
"$cc" -std=c11 -Wall -Werror "${flags[@]}" -I"$tmp/inc" -o "$tmp/api" "$top/tests/dev/api_example.c" \
	"$lib" $libs -lpthread -lm || { echo "FAIL: the example does not build with the installed headers alone"; exit 1; }
"$tmp/api" "$log" >"$tmp/got" || { echo "FAIL: the example failed on $log"; exit 1; }
"$cat" "$log" header.txt >"$tmp/want" || { echo "FAIL: darshanfs-cat failed"; exit 1; }
cmp -s "$tmp/got" "$tmp/want" || { diff "$tmp/got" "$tmp/want" | head; echo "FAIL: the header differs"; exit 1; }
echo "ok: the $(echo $heads | wc -w) installed headers alone build a program that prints $(basename "$log")'s header as darshanfs-cat does"
