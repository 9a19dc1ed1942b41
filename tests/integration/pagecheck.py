#!/usr/bin/env python3
"""pagecheck.py LOGDIR ORACLE_DIR - does a log's summary.html (and its heat
maps) show what the log's own files and the official tools give?

- every row of the top-files tables (by name, a row per module) has the
  total bytes and the time by slowest that PyDarshan's file_stats gives
  for that module's records of the file (ORACLE_DIR/<module>.csv; files
  sharing a name compared as a multiset); its perf is those bytes over
  that time in MiB/s;
- each summary/heatmap_<layer>.svg holds exactly that layer's bytes of
  HEATMAP/records.csv (the tooltips of its cells add up to them), and a
  cell with written bytes covers at least one rank that wrote in that
  layer (no layer's bytes on another's ranks);
- no size is shown as -1 B, and the page is under 1 MB.
Prints a line of what it checked."""
import csv
import os
import re
import sys
import xml.etree.ElementTree as ET

LOG, ORACLE = sys.argv[1], sys.argv[2]
page_path = os.path.join(LOG, "summary.html")
page = open(page_path, encoding="utf-8").read()
checked = []


def fail(msg):
    sys.exit(f"{LOG}: {msg}")


if len(page.encode()) >= 1 << 20:
    fail(f"summary.html is {len(page.encode())} bytes")
if re.search(r"[^0-9.]-1 B\b", page):
    fail("a size of -1 B is shown")

# ---- the top files against file_stats
root = ET.fromstring(page)
oracle = {}
for t in root.iter("table"):
    if t.get("id") not in ("files-bytes", "files-time"):
        continue
    for tr in t.findall("tr[@class='file']"):
        mod = tr.get("data-module")
        td = tr.find("td")
        name = td.get("title") or "".join(td.itertext())
        if mod not in oracle:
            path = os.path.join(ORACLE, f"{mod}.csv")
            oracle[mod] = list(csv.DictReader(open(path))) if os.path.exists(path) else None
        rows = oracle[mod]
        if rows is None:
            continue
        want = [r for r in rows if r["file"] == name]
        if not want:
            fail(f"{t.get('id')}: {mod} {name!r} is not in file_stats")
        got_b, got_t = float(tr.get("data-bytes")), float(tr.get("data-slowest"))
        ok = any(float(r["total_bytes"]) == got_b and
                 abs(float(r["time_by_slowest"]) - got_t) <= 1e-9 * max(1, got_t)
                 for r in want)
        if not ok:
            fail(f"{t.get('id')}: {mod} {name}: {got_b:.17g} B, {got_t:.17g} s; file_stats "
                 f"gives {[(r['total_bytes'], r['time_by_slowest']) for r in want]}")
        checked.append(name)

# ---- the heat maps against HEATMAP/records.csv
heat = {}
hm = os.path.join(LOG, "HEATMAP", "records.csv")
if os.path.exists(hm):
    for row in csv.DictReader(open(hm)):
        layer = row["file_name"].split(":", 1)[-1]
        h = heat.setdefault(layer, {"read": 0, "written": 0, "writers": set()})
        h["read"] += int(row["HEATMAP_READ_BIN"])
        h["written"] += int(row["HEATMAP_WRITE_BIN"])
        if int(row["HEATMAP_WRITE_BIN"]) > 0:
            h["writers"].add(int(row["rank"]))
cell_re = re.compile(r"<title>ranks? (\d+)(?:-(\d+))?, [^:]*: ([^<]*)</title>")
for layer, h in heat.items():
    svg = open(os.path.join(LOG, "summary", f"heatmap_{layer.lower()}.svg")).read()
    if f"{'MPI-IO' if layer == 'MPIIO' else layer} layer" not in svg:
        fail(f"heatmap_{layer.lower()}.svg does not name its layer")
    read = written = 0
    for a, b, text in cell_re.findall(svg):
        a, b = int(a), int(b or a)
        m = re.match(r"(\d+) B read \+ (\d+) B written", text)
        if m:
            r, w = int(m.group(1)), int(m.group(2))
        else:
            m = re.match(r"(\d+) B (?:\([^)]*\) )?(read|written)", text)
            if not m:
                fail(f"heatmap_{layer.lower()}: a cell says {text!r}")
            r, w = (int(m.group(1)), 0) if m.group(2) == "read" else (0, int(m.group(1)))
        read += r
        written += w
        if w and not any(a <= k <= b for k in h["writers"]):
            fail(f"heatmap_{layer.lower()}: ranks {a}-{b} wrote {w} B, but none of them "
                 f"wrote in {layer}")
    if (read, written) != (h["read"], h["written"]):
        fail(f"heatmap_{layer.lower()}: {read} B read, {written} B written; "
             f"HEATMAP/records.csv gives {h['read']}, {h['written']}")
    checked.append(f"heatmap:{layer}")
print(f"{os.path.basename(LOG)}: {len(checked)} files and heat maps match")
