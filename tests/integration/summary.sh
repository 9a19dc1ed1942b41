#!/bin/bash
# summary.sh - LOG/summary.html, LOG/summary/*.svg and the insights files
# of real logs, read through a mount: every SVG (and the page itself) is
# well-formed XML (xmllint), each file's st_size is the number of bytes it
# reads, headless Chromium opens the page straight from the mount with no
# console error and renders it (the screenshot is not blank), a filter
# changes the page (`rank == 0` leaves one row in the per-rank table),
# insights.csv is queried with sqlite3, and darshanfs-cat prints the same
# bytes as the mount.
. "$(dirname "$0")/lib.sh"
command -v xmllint >/dev/null || skip "xmllint is not installed (libxml2-utils)"
command -v chromium >/dev/null || skip "chromium is not installed"
command -v sqlite3 >/dev/null || skip "sqlite3 is not installed"

SRC=$TMP/src MNT=$TMP/mnt
# DXT, APMPI + heatmap + Lustre, many ranks, MPI-IO
make_tree "$SRC" "$LOGS"/dxt.darshan "$LOGS"/e3sm_io_heatmap_only.darshan \
	"$LOGS"/imbalanced-io.darshan "$LOGS"/darshan-apmpi-2nodes-64mpi.darshan
dfs_mount "$SRC" "$MNT"
T0=$(now)

PLOTS="io_cost operations access_sizes access_pattern mounts ranks timeline
heatmap_read heatmap_write dxt_offsets dxt_durations lustre apmpi"

# 1. sizes, well-formedness, the same bytes as darshanfs-cat
for rel in "${LOGREL[@]}"; do
	d=$MNT/$rel
	for f in summary.html insights.txt insights.csv $(printf 'summary/%s.svg ' $PLOTS); do
		size=$(stat -c %s "$d/$f") || fail "stat $rel/$f"
		t cat "$d/$f" >"$TMP/got" || fail "cat $rel/$f"
		[ "$size" = "$(stat -c %s "$TMP/got")" ] ||
			fail "$rel/$f: st_size $size but $(stat -c %s "$TMP/got") bytes read"
		case $f in
		*.svg | *.html)
			xmllint --noout "$TMP/got" 2>"$TMP/xml.err" ||
				fail "$rel/$f is not well-formed: $(head -3 "$TMP/xml.err")"
			[ "$size" -lt $((4 << 20)) ] || fail "$rel/$f: $size bytes" ;;
		esac
	done
	t "$DFS_CAT" "$SRC/$rel" summary.html >"$TMP/cat.html" || fail "darshanfs-cat $rel"
	t cmp -s "$TMP/cat.html" "$d/summary.html" || fail "$rel: darshanfs-cat and the mount differ"
	ls "$d/summary" | grep -qx io_cost.svg || fail "$rel/summary lists no io_cost.svg"
done
# the directory's page: the jobs of every log below, from its jobs.csv
size=$(stat -c %s "$MNT/summary.html") || fail "stat summary.html"
t cat "$MNT/summary.html" >"$TMP/dir.html" || fail "cat summary.html"
[ "$size" = "$(stat -c %s "$TMP/dir.html")" ] || fail "the root's summary.html: st_size $size"
xmllint --noout "$TMP/dir.html" || fail "the root's summary.html is not well-formed"
grep -q "<p id=\"jobs\">${#LOGREL[@]} jobs" "$TMP/dir.html" ||
	fail "the root's summary.html does not count ${#LOGREL[@]} jobs"
grep -q "<p id=\"jobs\">1 jobs" "$MNT/2026/11/29/summary.html" ||
	fail "2026/11/29/summary.html does not count its one job"
say "pages and plots well-formed, sizes exact ($(elapsed "$T0") s)"

# 2. Chromium: open each page from the mount, no console error, a
# screenshot that is not blank.  Two at a time (a browser's start is
# mostly waiting, but six at once on a loaded 2-core machine, beside a
# sanitized daemon, once took longer than a timeout), each with time to
# spare: the pages were rendered above, so the wait is the browser's own.
chrome() {
	DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent \
		T=300 t chromium --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$TMP/chrome.$1" --enable-logging=stderr --v=0 \
		--window-size=1000,1400 "${@:2}"
}
shoot() {   # shoot I URL: screenshot of URL in shot.I.png
	chrome "$1" --screenshot="$TMP/shot.$1.png" "$2" >"$TMP/chrome.$1.out" 2>"$TMP/chrome.$1.err" ||
		echo "chromium exited $? on $2" >>"$TMP/chrome.$1.err"
}
i=0
for rel in "${LOGREL[@]}" ""; do
	url="file://$MNT/${rel:+$rel/}summary.html"
	shoot $i "$url" &
	i=$((i + 1))
	[ $((i % 2)) = 0 ] && wait
done
chrome dom --dump-dom "file://$MNT/${LOGREL[0]}/summary.html" >"$TMP/dom.html" \
	2>"$TMP/chrome.dom.err" || fail "chromium --dump-dom failed"
wait
grep -q '<h2 id="insights">Insights</h2>' "$TMP/dom.html" || fail "the DOM lacks the insights section"
python3 - "$TMP" $i <<'PY' || fail "chromium check"
import glob, struct, sys, zlib
tmp, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    err = open(f"{tmp}/chrome.{i}.err", errors="replace").read()
    bad = [l for l in err.splitlines() if "CONSOLE" in l or ":ERROR:" in l and "console" in l.lower()]
    if bad:
        sys.exit(f"page {i}: console messages: {bad[:3]}")
    try:
        data = open(f"{tmp}/shot.{i}.png", "rb").read()
    except OSError:
        sys.exit(f"page {i}: no screenshot; chromium said: {err.splitlines()[-5:]}")
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"page {i}: no PNG screenshot")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        ln, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + ln]
        if kind == b"IHDR":
            width = struct.unpack(">I", body[:4])[0]
        if kind == b"IDAT":
            idat += body
        pos += 12 + ln
    raw = zlib.decompress(idat)
    # count distinct byte values of the rows (filter bytes aside): a blank
    # page gives one or two
    if len(set(raw[1:4000000:7])) < 16:
        sys.exit(f"page {i}: the screenshot is blank")
print(f"{n} pages rendered by chromium, no console message")
PY
say "chromium done ($(elapsed "$T0") s)"

# 3. a filter changes the page: rank == 0 leaves one row per rank table
big=""
for rel in "${LOGREL[@]}"; do
	case $rel in *imbalanced-io*) big=$rel ;; esac
done
before=$(grep -c '<tr class="rank">' "$MNT/$big/summary.html")
[ "$before" -gt 1 ] || fail "imbalanced-io shows $before per-rank rows"
shot_before=$(md5sum <"$MNT/$big/summary/ranks.svg")
echo 'rank == 0' >"$MNT/$big/filter" || fail "filter write"
after=$(grep -c '<tr class="rank">' "$MNT/$big/summary.html")
[ "$after" = 1 ] || fail "rank == 0 leaves $after per-rank rows"
[ "$(md5sum <"$MNT/$big/summary/ranks.svg")" != "$shot_before" ] ||
	fail "the filter did not change summary/ranks.svg"
grep -q 'filter: rank == 0' "$MNT/$big/summary.html" || fail "the page does not name the filter"
xmllint --noout "$MNT/$big/summary.html" || fail "filtered page not well-formed"
: >"$MNT/$big/filter"
[ "$(grep -c '<tr class="rank">' "$MNT/$big/summary.html")" = "$before" ] ||
	fail "clearing the filter did not restore the page"
say "a filter changes the page ($before -> $after per-rank rows)"

# 4. insights.csv with sqlite3
for rel in "${LOGREL[@]}"; do
	n=$(t sqlite3 :memory: ".import --csv '$MNT/$rel/insights.csv' i" \
		"select count(*) from i where level in ('HIGH','WARN','INFO')") || fail "sqlite3 $rel"
	rows=$(($(wc -l <"$MNT/$rel/insights.csv") - 1))
	[ "$n" = "$rows" ] || fail "$rel: sqlite3 counts $n findings, the file has $rows rows"
done
dxt=$MNT/${LOGREL[0]}
t sqlite3 :memory: ".import --csv '$dxt/insights.csv' i" \
	"select code from i where code = 'P_SMALL_READS'" | grep -qx P_SMALL_READS ||
	fail "dxt.darshan: no P_SMALL_READS finding"
say "insights.csv read by sqlite3"

# 5. every directory's insights.csv: the rows of every log below, with its path
for rel in "${LOGREL[@]}"; do
	own=$(($(wc -l <"$MNT/$rel/insights.csv") - 1))
	got=$(t sqlite3 :memory: ".import --csv '$MNT/insights.csv' i" \
		"select count(*) from i where log = '$rel'") || fail "sqlite3 insights.csv"
	[ "$own" = "$got" ] || fail "$rel: $own rows of its own, $got in the root's insights.csv"
	dir=${rel%/*}
	if [ "$dir" != "$rel" ]; then
		got=$(t sqlite3 :memory: ".import --csv '$MNT/$dir/insights.csv' i" \
			"select count(*) from i where log = '${rel##*/}'")
		[ "$own" = "$got" ] || fail "$rel: $own rows, $got in $dir/insights.csv"
	fi
done
# the example of the README: which logs read in small requests?
t sqlite3 :memory: ".import --csv '$MNT/insights.csv' i" \
	"select log from i where code = 'P_SMALL_READS'" | grep -q 'dxt.darshan$' ||
	fail "the root's insights.csv lacks dxt.darshan's small reads"
# the README's query of each finding, verbatim but for the mount point
n=0
while IFS= read -r line; do
	line=${line//\/mnt\/darshan/$MNT}
	out=$(eval "t $line" 2>&1) || fail "the README's query failed: $line: $out"
	n=$((n + 1))
done < <(awk '/^### summary.html and the insights/ { on = 1 }
	on && /^## Filters/ { exit }
	on && /^sqlite3 .*insights.csv/ { print }' "$REPO/README.md")
[ "$n" -ge 20 ] || fail "only $n insight queries found in the README"
say "directory insights.csv, $n README queries"
dfs_umount "$MNT"

# 6. -o insights=FILE moves the thresholds; a bad file is a bad option
printf '# no alarm for small requests\nsmall_requests_absolute = 1e12\n' >"$TMP/thr"
MNT2=$TMP/mnt2
dfs_mount "$SRC" "$MNT2" -o insights="$TMP/thr"
grep -q P_SMALL_READS "$MNT2/${LOGREL[0]}/insights.csv" &&
	fail "-o insights=FILE did not raise small_requests_absolute"
grep -q P_MISALIGNED_FILE "$MNT2/${LOGREL[0]}/insights.csv" ||
	fail "-o insights=FILE lost another finding"
dfs_umount "$MNT2"
printf 'small_requests = lots\n' >"$TMP/bad"
mkdir -p "$TMP/mnt3"
t "$DARSHANFS" -f -o insights="$TMP/bad" "$SRC" "$TMP/mnt3" 2>"$TMP/bad.err"
st=$?
[ $st = 1 ] || fail "a bad insights file: exit $st, not 1"
grep -q 'line 1' "$TMP/bad.err" || fail "the error does not name the line: $(cat "$TMP/bad.err")"
say "-o insights=FILE"
say "PASS"
