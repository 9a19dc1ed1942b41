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
# also under a directory filter), insights.csv is queried with sqlite3
# (the files of each finding with json_each, as the page names them), a
# log of implausible counters is warned of and left out of the sums,
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
mkdir -p "$SRC/generated"
t "$GEN" -n 100000 -p 100000 -m POSIX -o "$SRC/generated/ranks.darshan" >/dev/null ||
	fail "darshanfs-gen failed"
dfs_mount "$SRC" "$MNT"
T0=$(now)

PLOTS="io_cost operations access_sizes access_pattern mounts ranks timeline
heatmap_posix heatmap_mpiio heatmap_stdio heatmap_dfs heatmap_daos dxt_offsets
dxt_durations lustre apmpi"

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
			[ "$size" -lt $((1 << 20)) ] || fail "$rel/$f: $size bytes" ;;
		esac
	done
	t "$REF_CAT" "$SRC/$rel" summary.html >"$TMP/cat.html" || fail "darshanfs-cat $rel"
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
    if len(data) != os.stat(path).st_size or len(data) >= 1 << 20:
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
# the top files by name against PyDarshan's file_stats, each heat map
# against its layer of HEATMAP/records.csv (pagecheck.py)
for rel in "${LOGREL[@]}"; do
	t python3 "$REPO/tests/integration/pagecheck.py" "$MNT/$rel" \
		"$ORACLE/file_stats/${rel##*/}" || fail "$rel: the page and the log's files differ"
done
# imbalanced-io: the 98 GiB shared file by its name, first; e3sm_io: the
# POSIX layer's writes on its 8 groups of aggregators (ranks 0-6, 64-70,
# ...), the MPI-IO layer's on every rank; no layer summed into another
imb=$MNT/$(printf '%s\n' "${LOGREL[@]}" | grep imbalanced-io)
e3sm=$MNT/$(printf '%s\n' "${LOGREL[@]}" | grep e3sm_io)
python3 - "$imb/summary.html" "$e3sm" <<'PY' || fail "top files or heat map layers"
import re, sys
page = open(sys.argv[1]).read()
m = re.search(r'<table id="files-bytes".*?<tr class="file"[^>]*><td>([^<]*)</td><td>POSIX</td><td class="n">496 \(shared\)</td><td class="n">49.30 GiB</td><td class="n">49.30 GiB</td>', page, re.S)
if not m or m.group(1) != "/lus/theta-fs0/3981085427":
    sys.exit("imbalanced-io: the first file by bytes is not the 98 GiB shared file")
if not re.search(r'<td>/lus/theta-fs\*/\*</td><td class="n">1015</td>.*?<td>/lus/theta-fs0/3981085427 \(100.0% of the bytes\)</td>', page):
    sys.exit("imbalanced-io: the pattern /lus/theta-fs*/* does not name its 98 GiB file")
def written_rows(layer):
    svg = open(f"{sys.argv[2]}/summary/heatmap_{layer}.svg").read()
    rows = set()
    for a, b, text in re.findall(r"<title>ranks? (\d+)(?:-(\d+))?, [^:]*: ([^<]*)</title>", svg):
        if "written" in text and not re.match(r"\d+ B read \+ 0 B", text):
            rows.add((int(a), int(b or a)))
    return rows
posix = written_rows("posix")
groups = {r // 64 for a, b in posix for r in range(a, b + 1) if r % 64 < 7}
if groups != set(range(8)) or any(not any(k % 64 < 7 for k in range(a, b + 1)) for a, b in posix):
    sys.exit(f"e3sm_io: the POSIX layer's writes are on {sorted(posix)[:12]}")
mpiio = written_rows("mpiio")
if {r for a, b in mpiio for r in range(a, b + 1)} != set(range(512)):
    sys.exit("e3sm_io: the MPI-IO layer's writes are not on every rank")
print(f"imbalanced-io's shared file first; e3sm_io: POSIX writes on {len(posix)} cells of 8 groups")
PY
for rel in "${LOGREL[@]}"; do
	grep -q '<svg' "$MNT/$rel/summary/heatmap_read.svg" 2>/dev/null && fail "$rel: summary/heatmap_read.svg is still there"
done
# a job of one rank (dxt.darshan) has no per-rank plot; MPI-IO's sizes,
# which Darshan does not keep, are not shown
grep -q '<figure id="plot-ranks">' "$dxt/summary.html" && fail "a one-rank job has a per-rank plot"
grep -q 'id="ranks-time"' "$dxt/summary.html" || fail "a one-rank job has no table of its rank"
grep -q 'sizes not recorded' "$e3sm/summary.html" || fail "e3sm_io's MPI-IO sizes"
say "top files, heat maps per layer, one rank ($(elapsed "$T0") s)"
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
	out=$(t "$PANDAS" "$REPO/tests/integration/schema.py" "$MNT") ||
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
	[ "$(stat -c %s "$f")" -lt $((1 << 20)) ] || fail "$f: $(stat -c %s "$f") bytes"
done
xmllint --noout "$gen"/summary.html "$gen"/summary/*.svg || fail "a page of 100,000 ranks is not well-formed"
say "pages and plots well-formed, sizes exact ($(elapsed "$T0") s)"

# 2. Chromium: every page and a few plots, opened from the mount in one
# browser process: no console message, a screenshot that is not blank
# (the quick pass, under the sanitizers, leaves it out: the pages are the
# same bytes as in the full pass, and the browser checks them, not us)
big=""
for rel in "${LOGREL[@]}"; do
	case $rel in *imbalanced-io*) big=$rel ;; esac
done
if [ "${DFS_TEST_QUICK:-0}" = 1 ]; then
	say "chromium: left to the full pass"
else
	urls=()
	for rel in "${LOGREL[@]}" "" 2026/11/29; do
		urls+=("file://$MNT/${rel:+$rel/}summary.html")
	done
	urls+=("file://$MNT/$big/summary/timeline.svg" "file://$gen/summary/timeline.svg"
		"file://$e3sm/summary/heatmap_posix.svg"
		"file://$dxt/summary/dxt/$(ls "$dxt/summary/dxt" | head -1)")
	T=300 t python3 "$REPO/tests/integration/browser.py" "$TMP" "${urls[@]}" >"$TMP/browser.out" ||
		fail "chromium: $(tail -3 "$TMP/browser.out")"
	[ "$(grep -c 'no console message' "$TMP/browser.out")" = ${#urls[@]} ] ||
		fail "chromium rendered $(grep -c 'no console message' "$TMP/browser.out") of ${#urls[@]} pages"
	grep -q '<h2 id="insights">Insights</h2>' "$TMP/dom.0.html" || fail "the DOM lacks the insights section"
	grep -q 'id="module-table"' "$TMP/dom.${#LOGREL[@]}.html" || fail "the root's page in the DOM lacks its modules"
	# e3sm_io's heat maps as the browser holds them: cells with tooltips
	for i in "${!LOGREL[@]}"; do
		case ${LOGREL[$i]} in *e3sm_io*)
			n=$(grep -o '<title>ranks\? [0-9]' "$TMP/dom.$i.html" | wc -l)
			[ "$n" -gt 100 ] || fail "e3sm_io's page in the DOM has $n heat map cells with tooltips" ;;
		esac
	done
	say "chromium: ${#urls[@]} pages, no console message ($(elapsed "$T0") s)"
fi

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
# the files of each finding (a JSON array) as sqlite3's json_each reads
# them, and as Python does; the page names the same files, with advice
for rel in "${LOGREL[@]}"; do
	t sqlite3 -csv :memory: ".import --csv '$MNT/$rel/insights.csv' i" \
		"select i.code, f.value->>'file', f.value->'value' from i, json_each(i.files) f" \
		>"$TMP/sq.csv" || fail "sqlite3 json_each on $rel/insights.csv"
	python3 - "$MNT/$rel/insights.csv" "$TMP/sq.csv" "$MNT/$rel/summary.html" <<'PY' ||
import csv, html, json, sys
want, page = [], open(sys.argv[3]).read()
for row in csv.DictReader(open(sys.argv[1], newline="")):
    json.loads(row["ranks"])
    for f in json.loads(row["files"]):
        want.append([row["code"], f["file"] or "", repr(float(f["value"]))])
        if "file" in f and f["file"] and html.escape(f["file"], quote=False) not in page:
            sys.exit(f"the page does not name {f['file']} of {row['code']}")
    if row["advice"] and '<ul class="advice">' not in page:
        sys.exit(f"{row['code']} has advice, the page none")
got = [[c, n, repr(float(v))] for c, n, v in csv.reader(open(sys.argv[2], newline=""))]
if sorted(got) != sorted(want):
    sys.exit(f"sqlite3: {got[:5]}... Python: {want[:5]}...")
PY
		fail "$rel: the files of insights.csv"
done
grep -q '<ul class="about">' "$MNT/$big/summary.html" || fail "imbalanced-io's page names no file"
say "insights.csv read by sqlite3, its files by json_each"

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
# which logs read in small requests?
t sqlite3 :memory: ".import --csv '$MNT/insights.csv' i" \
	"select log from i where code = 'P_SMALL_READS'" | grep -q 'dxt.darshan$' ||
	fail "the root's insights.csv lacks dxt.darshan's small reads"
# docs/insights.md's query of each finding, verbatim but for the mount point
n=0
while IFS= read -r line; do
	line=${line//\/mnt\/darshan/$MNT}
	out=$(eval "t $line" 2>&1) || fail "the query of docs/insights.md failed: $line: $out"
	n=$((n + 1))
done < <(awk '/^## One query per finding over a tree/ { on = 1; next }
	on && /^## / { exit }
	on && /^sqlite3 .*insights.csv/ { print }' "$REPO/docs/insights.md")
[ "$n" -ge 20 ] || fail "only $n insight queries found in docs/insights.md"
say "directory insights.csv, $n queries of docs/insights.md"
dfs_umount "$MNT"

# 5b. a log whose counters no run can have written (DAOS_F_SLOWEST_RANK_TIME
# of -2.8e30 s): derived_metrics keeps the accumulator's number with a
# warning, the directory's page leaves it out and says so
bad=$LOGS/snyder_ior-DFS_id1057716-201712_11-8-64400-1922568413188514066_1.darshan
if [ -f "$bad" ]; then
	mkdir -p "$TMP/implausible" && cp "$bad" "$LOGS/dxt.darshan" "$TMP/implausible/"
	# (and a log of no module: counted as a job, in no plot or ranking)
	[ -f "$LOGS/empty_log.darshan" ] && cp "$LOGS/empty_log.darshan" "$TMP/implausible/"
	t "$DFS_CAT" "$TMP/implausible/${bad##*/}" DAOS/derived_metrics >"$TMP/dm" || fail "darshanfs-cat DAOS/derived_metrics"
	grep -q '^# agg_time_by_slowest: -2789457051401075231246329577472.000000' "$TMP/dm" ||
		fail "DAOS/derived_metrics no longer shows the accumulator's time"
	grep -q '^# warning: implausible metrics: an I/O time of -2.78946e+30 s is not a time' "$TMP/dm" ||
		fail "DAOS/derived_metrics does not warn of its time: $(grep warning "$TMP/dm")"
	t "$DFS_CAT" "$TMP/implausible" summary.html >"$TMP/implausible.html" || fail "darshanfs-cat summary.html"
	t "$DFS_CAT" "$TMP/implausible" modules.csv >"$TMP/implausible.csv" || fail "darshanfs-cat modules.csv"
	t "$DFS_CAT" "$TMP/implausible" jobs.csv >"$TMP/implausible-jobs.csv" || fail "darshanfs-cat jobs.csv"
	grep -q -- '-2789457051401075231246329577472' "$TMP/implausible.html" &&
		fail "the directory's page shows the time of -2.8e30 s"
	grep -q '<p id="left-out">' "$TMP/implausible.html" || fail "the directory's page does not say what it left out"
	t python3 "$REPO/tests/integration/dirsummary.py" "$TMP/implausible.html" "$TMP/implausible.csv" \
		"$TMP/implausible-jobs.csv" || fail "the page of the implausible logs and their modules.csv differ"
	say "implausible numbers: derived_metrics warns, the directory's page leaves them out"
else
	say "(${bad##*/} is not among the shared logs: its checks are skipped)"
fi

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
