#!/bin/bash
# read.sh - every generated file of every log, read through the mount by
# real clients, is exactly st_size bytes and the same bytes darshanfs-cat
# prints; header.txt equals the header of darshan-parser's output.
#
#   cat + st_size            every file of every log (and of every directory)
#   cp, dd bs=1k, tail -c 100, python reads in odd chunk sizes and at odd
#   offsets, mmap (MAP_PRIVATE, ACCESS_READ) of records.csv
#                            every file of the logs in $DFS_IT_CLIENT_LOGS
#                            (default: all; a number N takes every N-th log)
. "$(dirname "$0")/lib.sh"

SRC=$TMP/src MNT=$TMP/mnt
make_tree "$SRC"
dfs_mount "$SRC" "$MNT"
every=${DFS_IT_CLIENT_LOGS:-1}
mkdir -p "$TMP/ref"

nfiles=0 nbytes=0 nclient=0 nhdr=0 i=0
start=$(now)
: >"$TMP/pairs"
check_file() {   # check_file REL_PATH CLIENTS(0/1): one file, one client at a time
	local rel=$1 clients=$2 m=$MNT/$1 r=$TMP/ref/cur
	ref "$SRC" "$rel" >"$r" || fail "darshanfs-cat '$rel' failed"
	local want size
	want=$(stat -c %s "$r")
	size=$(t stat -c %s "$m") || fail "stat '$m' failed"
	[ "$size" = "$want" ] || fail "$rel: st_size is $size, darshanfs-cat prints $want bytes"
	t cat "$m" >"$TMP/got" || fail "cat '$rel' failed"
	cmp -s "$TMP/got" "$r" || fail "cat '$rel' differs from darshanfs-cat ($(stat -c %s "$TMP/got") vs $want bytes)"
	nfiles=$((nfiles + 1))
	nbytes=$((nbytes + want))
	[ "$clients" = 1 ] || return 0
	rm -f "$TMP/got"
	t cp "$m" "$TMP/got" || fail "cp '$rel' failed"
	cmp -s "$TMP/got" "$r" || fail "cp of '$rel' differs from darshanfs-cat"
	t dd if="$m" of="$TMP/got" bs=1k status=none || fail "dd bs=1k '$rel' failed"
	cmp -s "$TMP/got" "$r" || fail "dd bs=1k of '$rel' differs from darshanfs-cat"
	t tail -c 100 "$m" >"$TMP/got" || fail "tail -c 100 '$rel' failed"
	cmp -s "$TMP/got" <(tail -c 100 "$r") || fail "tail -c 100 of '$rel' differs"
	local keep=$TMP/ref/$nclient
	mv "$r" "$keep"
	printf '%s\t%s\n' "$m" "$keep" >>"$TMP/pairs"
	nclient=$((nclient + 1))
}

# check_log REL CLIENTS: every file of a log directory, each client run
# over all of them at once against the tree darshanfs-cat --extract writes
check_log() {
	local rel=$1 clients=$2 ref=$TMP/ref/log
	rm -rf "$ref" "$TMP/cp"
	t "$DFS_CAT" --extract "$ref" "$SRC" "$rel" || fail "darshanfs-cat --extract '$rel' failed"
	mapfile -t files < <(cd "$MNT/$rel" && t find . -type f | sed 's|^\./||' | sort)
	[ ${#files[@]} -ge 6 ] || fail "$rel: only ${#files[@]} files"
	[ "$(cd "$ref" && find . -type f | sed 's|^\./||' | sort)" = "$(printf '%s\n' "${files[@]}")" ] ||
		fail "$rel: the mount lists other files than darshanfs-cat --extract writes"
	local mf=() rf=() f
	for f in "${files[@]}"; do
		mf+=("$MNT/$rel/$f")
		rf+=("$ref/$f")
	done
	# st_size of every file is the size of its content
	[ "$(cd "$MNT/$rel" && t stat -c '%n %s' "${files[@]}")" = "$(cd "$ref" && stat -c '%n %s' "${files[@]}")" ] ||
		fail "$rel: st_size differs from the bytes darshanfs-cat prints"
	t cat "${mf[@]}" >"$TMP/got" || fail "cat of the files of '$rel' failed"
	cat "${rf[@]}" | cmp -s - "$TMP/got" || fail "cat of the files of '$rel' differs from darshanfs-cat"
	nfiles=$((nfiles + ${#files[@]}))
	nbytes=$((nbytes + $(stat -c %s "$TMP/got")))
	[ "$clients" = 1 ] || return 0
	t cp -r "$MNT/$rel" "$TMP/cp" || fail "cp -r '$rel' failed"
	diff -r -q "$TMP/cp" "$ref" >&2 || fail "cp -r of '$rel' differs from darshanfs-cat"
	: >"$TMP/got"
	for f in "${mf[@]}"; do
		dd if="$f" bs=1k status=none >>"$TMP/got" || fail "dd bs=1k '$f' failed"
	done
	cat "${rf[@]}" | cmp -s - "$TMP/got" || fail "dd bs=1k of the files of '$rel' differs from darshanfs-cat"
	t tail -q -c 100 "${mf[@]}" >"$TMP/got" || fail "tail -c 100 of the files of '$rel' failed"
	tail -q -c 100 "${rf[@]}" | cmp -s - "$TMP/got" || fail "tail -c 100 of the files of '$rel' differs"
	# keep the references for the python readers
	mkdir -p "$TMP/ref/keep"
	mv "$ref" "$TMP/ref/keep/$nclient-log"
	for f in "${files[@]}"; do
		printf '%s\t%s\n' "$MNT/$rel/$f" "$TMP/ref/keep/$nclient-log/$f" >>"$TMP/pairs"
	done
	nclient=$((nclient + ${#files[@]}))
}

for rel in "${LOGREL[@]}"; do
	clients=0
	[ $((i % every)) = 0 ] && clients=1
	i=$((i + 1))
	[ -e "$MNT/$rel/ERROR" ] && fail "$rel: a good log has an ERROR file: $(cat "$MNT/$rel/ERROR")"
	check_log "$rel" "$clients"
	# header.txt is the header block darshan-parser prints
	o=$ORACLE/parser/$(oracle_name "$rel")
	if [ -f "$o/base.txt" ]; then base=(cat "$o/base.txt")
	elif [ -f "$o/base.txt.gz" ]; then base=(gzip -dc "$o/base.txt.gz")
	else continue; fi
	"${base[@]}" | python3 -c '
import sys
t = sys.stdin.buffer.read()
i = t.find(b"\n# description of columns:")
sys.stdout.buffer.write(t[:i] if i >= 0 else b"(no header in base.txt)")' >"$TMP/hdr"
	t cmp -s "$MNT/$rel/header.txt" "$TMP/hdr" || {
		diff "$TMP/hdr" <(cat "$MNT/$rel/header.txt") | head >&2
		fail "$rel/header.txt differs from the oracle's base.txt header"
	}
	nhdr=$((nhdr + 1))
done
# the files of the source directories (jobs.csv, filter, ...) too
mapfile -t files < <(cd "$MNT" && t find . -type f -not -path '*.darshan/*' | sed 's|^\./||' | sort)
for f in "${files[@]}"; do
	check_file "$f" 1
done
say "ok: cat and st_size of $nfiles files ($nbytes bytes) equal darshanfs-cat ($(elapsed "$start")s)"
say "ok: cp, dd bs=1k and tail -c 100 of $nclient files equal darshanfs-cat"
say "ok: header.txt of $nhdr logs equals the oracle's base.txt header"
start=$(now)
out=$(python3 "$IT_DIR/readers.py" "$TMP/pairs") || fail "python readers failed"
say "ok: python chunked reads, preads and mmaps: $out ($(elapsed "$start")s)"
dfs_alive "$MNT"
dfs_umount "$MNT"
say "PASS"
