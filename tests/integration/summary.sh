#!/bin/bash
# summary.sh - LOG/summary.html, LOG/summary/*.svg and the insights files
# of real logs, read through a mount: every SVG (and the page itself) is
# well-formed XML (xmllint), each file's st_size is the number of bytes it
# reads, headless Chromium opens the page straight from the mount with no
# console error and renders it (the screenshot is not blank), a filter
# changes the page (`rank == 0` leaves one row in the per-rank table and
# one lane in the timeline), every traced file has its plot in
# summary/dxt/ (a segment filter leaves those of its segments), each
# directory's summary.html shows what its modules.csv holds (dirsummary.py,
# also under a directory filter), insights.csv is queried with sqlite3,
# and darshanfs-cat prints the same bytes as the mount.  One Chromium
# process opens every page (browser.py).
. "$(dirname "$0")/lib.sh"
command -v xmllint >/dev/null || skip "xmllint is not installed (libxml2-utils)"
command -v chromium >/dev/null || skip "chromium is not installed"
command -v sqlite3 >/dev/null || skip "sqlite3 is not installed"

SRC=$TMP/src MNT=$TMP/mnt
# DXT, APMPI + heatmap + Lustre, many ranks, MPI-IO
make_tree "$SRC" "$LOGS"/dxt.darshan "$LOGS"/e3sm_io_heatmap_only.darshan \
	"$LOGS"/imbalanced-io.darshan "$LOGS"/darshan-apmpi-2nodes-64mpi.darshan
# and a generated job of 100,000 ranks and 100,000 POSIX records (beside,
# not in LOGREL: its directory's page counts it), whose timeline has a
# lane per 781.25 ranks
GEN=$(dirname "$DFS_CAT")/darshanfs-gen
mkdir -p "$SRC/generated"
t "$GEN" -n 100000 -p 100000 -m POSIX -o "$SRC/generated/ranks.darshan" >/dev/null ||
	fail "darshanfs-gen failed"
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
	# (summary/dxt/ is entered by name only: ls -R decodes no log)
	ls "$d/summary" | grep -qx dxt && fail "$rel/summary lists dxt/"
	if [ -d "$d/DXT_POSIX" ] || [ -d "$d/DXT_MPIIO" ]; then
		[ -d "$d/summary/dxt" ] || fail "$rel has DXT traces but no summary/dxt/"
	else
		[ ! -e "$d/summary/dxt" ] || fail "$rel has no DXT module but a summary/dxt/"
	fi
done

# every traced file has its plot, named by record id, each well-formed,
# bounded, read as long as its st_size says; the page links to them
dxt_plots() {   # dxt_plots LOGDIR: check summary/dxt/ against records.csv
	python3 - "$1" <<'PY' || fail "summary/dxt of $1"
import csv, os, re, sys
d = sys.argv[1]
want = {}
for mod in ("DXT_POSIX", "DXT_MPIIO"):
    if os.path.isdir(f"{d}/{mod}"):
        with open(f"{d}/{mod}/records.csv", newline="") as f:
            for row in csv.DictReader(f):
                if row["offset"] != "":
                    want[row["record_id"]] = want.get(row["record_id"], 0) + 1
got = sorted(n[:-4] for n in os.listdir(f"{d}/summary/dxt"))
if got != sorted(want):
    sys.exit(f"summary/dxt lists {len(got)} plots, records.csv has {len(want)} traced files")
for rid, n in want.items():
    path = f"{d}/summary/dxt/{rid}.svg"
    data = open(path, "rb").read()
    if len(data) != os.stat(path).st_size or len(data) > 4 << 20:
        sys.exit(f"{path}: st_size {os.stat(path).st_size}, {len(data)} bytes read")
    m = re.search(rb">(\d+) requests: ", data)
    if not m or int(m.group(1)) != n:
        sys.exit(f"{path}: {m and m.group(1)} requests, records.csv has {n} segments")
page = open(f"{d}/summary.html").read()
m = re.search(r'<p id="dxt-files">(\d+) files', page)
if not m or int(m.group(1)) != len(want):
    sys.exit(f"summary.html counts {m and m.group(1)} traced files, not {len(want)}")
links = re.findall(r'<a href="summary/dxt/(\d+)\.svg">', page)
if len(links) != min(len(want), 100) or not set(links) <= set(want):
    sys.exit(f"summary.html links {len(links)} plots of {len(want)}")
print(f"{len(want)} traced files, {sum(want.values())} segments")
PY
}
dxt=$MNT/${LOGREL[0]}
dxt_plots "$dxt"
(cd "$dxt/summary/dxt" && xmllint --noout *.svg) || fail "a plot of summary/dxt is not well-formed"
[ ! -e "$dxt/summary/dxt/1.svg" ] || fail "summary/dxt/1.svg of no traced file exists"
say "summary/dxt/: $(ls "$dxt/summary/dxt" | wc -l) plots ($(elapsed "$T0") s)"
# the directory's page: the jobs of every log below, from its modules.csv
# (jobs.csv gives each job's I/O as the page counts it)
size=$(stat -c %s "$MNT/summary.html") || fail "stat summary.html"
t cat "$MNT/summary.html" >"$TMP/dir.html" || fail "cat summary.html"
[ "$size" = "$(stat -c %s "$TMP/dir.html")" ] || fail "the root's summary.html: st_size $size"
xmllint --noout "$TMP/dir.html" || fail "the root's summary.html is not well-formed"
grep -q "<p id=\"jobs\">$((${#LOGREL[@]} + 1)) jobs" "$TMP/dir.html" ||
	fail "the root's summary.html does not count $((${#LOGREL[@]} + 1)) jobs"
grep -q "<p id=\"jobs\">1 jobs" "$MNT/2026/11/29/summary.html" ||
	fail "2026/11/29/summary.html does not count its one job"
for dir in "" 2026/11/29/; do
	t python3 "$REPO/tests/integration/dirsummary.py" "$MNT/${dir}summary.html" \
		"$MNT/${dir}modules.csv" "$MNT/${dir}jobs.csv" ||
		fail "${dir:-/}summary.html and modules.csv or jobs.csv differ"
done
# every directory's tables keep the types schema.json gives (pandas)
PANDAS=""
for py in python3 /usr/bin/python3; do
	if "$py" -c 'import pandas' 2>/dev/null; then PANDAS=$py; break; fi
done
if [ -n "$PANDAS" ]; then
	out=$(t "$PANDAS" "$REPO/tests/integration/tables.py" "$MNT") ||
		fail "the tables do not keep the types of schema.json (above)"
	say "$out"
else
	say "SKIP (part): no python with pandas: the tables' types are not checked"
fi
# 100,000 ranks: 128 lanes (and the shared files'), each of 781.25 ranks,
# every plot small and well-formed
gen=$MNT/generated/ranks.darshan
grep -q '>Timeline: 100000 ranks, 781.2 a lane<' "$gen/summary/timeline.svg" ||
	fail "the timeline of 100,000 ranks does not say its lanes"
n=$(grep -o '<rect [^>]*fill="#bbbbbb"/>' "$gen/summary/timeline.svg" | grep -vc ' y="7" ')
[ "$n" -ge 128 ] && [ "$n" -le 129 ] || fail "the timeline of 100,000 ranks has $n lanes"
for f in "$gen"/summary.html "$gen"/summary/*.svg; do
	[ "$(stat -c %s "$f")" -lt $((4 << 20)) ] || fail "$f: $(stat -c %s "$f") bytes"
done
xmllint --noout "$gen"/summary.html "$gen"/summary/*.svg || fail "a page of 100,000 ranks is not well-formed"
say "pages and plots well-formed, sizes exact ($(elapsed "$T0") s)"

# 2. Chromium: every page and a few plots, opened from the mount in one
# browser process: no console message, a screenshot that is not blank
big=""
for rel in "${LOGREL[@]}"; do
	case $rel in *imbalanced-io*) big=$rel ;; esac
done
urls=()
for rel in "${LOGREL[@]}" "" 2026/11/29; do
	urls+=("file://$MNT/${rel:+$rel/}summary.html")
done
urls+=("file://$MNT/$big/summary/timeline.svg" "file://$gen/summary/timeline.svg"
	"file://$dxt/summary/dxt/$(ls "$dxt/summary/dxt" | head -1)")
T=300 t python3 "$REPO/tests/integration/browser.py" "$TMP" "${urls[@]}" >"$TMP/browser.out" ||
	fail "chromium: $(tail -3 "$TMP/browser.out")"
[ "$(grep -c 'no console message' "$TMP/browser.out")" = ${#urls[@]} ] ||
	fail "chromium rendered $(grep -c 'no console message' "$TMP/browser.out") of ${#urls[@]} pages"
grep -q '<h2 id="insights">Insights</h2>' "$TMP/dom.0.html" || fail "the DOM lacks the insights section"
grep -q 'id="module-table"' "$TMP/dom.${#LOGREL[@]}.html" || fail "the root's page in the DOM lacks its modules"
say "chromium: ${#urls[@]} pages, no console message ($(elapsed "$T0") s)"

# 3. a filter changes the page: rank == 0 leaves one row per rank table
# and one lane (of the ranks, not the shared files) in the timeline
lanes() {   # the open-to-close lanes of a timeline (the legend's box aside)
	grep -o '<rect [^>]*fill="#bbbbbb"/>' "$1" | grep -vc ' y="7" '
}
before=$(grep -c '<tr class="rank">' "$MNT/$big/summary.html")
lanes_before=$(lanes "$MNT/$big/summary/timeline.svg")
[ "$lanes_before" -gt 1 ] && [ "$lanes_before" -le 129 ] ||
	fail "imbalanced-io's timeline has $lanes_before lanes"
[ "$before" -gt 1 ] || fail "imbalanced-io shows $before per-rank rows"
shot_before=$(md5sum <"$MNT/$big/summary/ranks.svg")
echo 'rank == 0' >"$MNT/$big/filter" || fail "filter write"
after=$(grep -c '<tr class="rank">' "$MNT/$big/summary.html")
[ "$after" = 1 ] || fail "rank == 0 leaves $after per-rank rows"
[ "$(md5sum <"$MNT/$big/summary/ranks.svg")" != "$shot_before" ] ||
	fail "the filter did not change summary/ranks.svg"
[ "$(lanes "$MNT/$big/summary/timeline.svg")" = 1 ] ||
	fail "rank == 0 leaves $(lanes "$MNT/$big/summary/timeline.svg") lanes in the timeline"
# (the generated job's rank 0 has no record: the ranks of the first lane)
echo 'rank >= 0 and rank < 781' >"$gen/filter" || fail "filter write"
[ "$(lanes "$gen/summary/timeline.svg")" = 1 ] ||
	fail "the ranks of one lane of 100,000 leave $(lanes "$gen/summary/timeline.svg") lanes"
: >"$gen/filter"
grep -q 'filter: rank == 0' "$MNT/$big/summary.html" || fail "the page does not name the filter"
xmllint --noout "$MNT/$big/summary.html" || fail "filtered page not well-formed"
: >"$MNT/$big/filter"
[ "$(grep -c '<tr class="rank">' "$MNT/$big/summary.html")" = "$before" ] ||
	fail "clearing the filter did not restore the page"
say "a filter changes the page ($before -> $after per-rank rows, $lanes_before -> 1 lanes)"
# a segment filter: the plots of the files with small requests, of those only
n_before=$(ls "$dxt/summary/dxt" | wc -l)
echo 'length < 100' >"$dxt/DXT_POSIX/filter" || fail "DXT filter write"
sleep 1.1   # (the kernel keeps a directory's listing attr_timeout seconds)
dxt_plots "$dxt"
n_after=$(ls "$dxt/summary/dxt" | wc -l)
[ "$n_after" -lt "$n_before" ] || fail "length < 100 left $n_after of $n_before plots"
: >"$dxt/DXT_POSIX/filter"
sleep 1.1
[ "$(ls "$dxt/summary/dxt" | wc -l)" = "$n_before" ] || fail "clearing the DXT filter"
# a directory filter changes the directory's page, which still matches jobs.csv
cp "$MNT/summary.html" "$TMP/dir.before.html"
echo 'rank == 0' >"$MNT/filter" || fail "directory filter write"
t python3 "$REPO/tests/integration/dirsummary.py" "$MNT/summary.html" "$MNT/modules.csv" \
	"$MNT/jobs.csv" || fail "the root's summary.html under a filter and modules.csv differ"
# and the traced files of a log below follow a directory's filter
echo "file_name ~ 'pipe'" >"$MNT/filter" || fail "directory filter write"
sleep 1.1
dxt_plots "$dxt"
[ "$(ls "$dxt/summary/dxt" | wc -l)" -lt "$n_before" ] || fail "a directory filter left every plot"
t python3 "$REPO/tests/integration/dirsummary.py" "$MNT/summary.html" "$MNT/modules.csv" \
	"$MNT/jobs.csv" || fail "the root's summary.html under file_name ~ 'pipe' and modules.csv differ"
cmp -s "$MNT/summary.html" "$TMP/dir.before.html" && fail "the directory filter did not change summary.html"
: >"$MNT/filter"
cmp -s "$MNT/summary.html" "$TMP/dir.before.html" || fail "clearing the directory filter"
say "DXT segment filter ($n_before -> $n_after plots), directory filter"

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
