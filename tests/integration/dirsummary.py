#!/usr/bin/env python3
"""dirsummary.py PAGE MODULES_CSV [JOBS_CSV] - does a directory's
summary.html show what its modules.csv holds, and its jobs.csv each job's
I/O as the page counts it?

Recomputes from modules.csv what the page must show -- the jobs and the bytes
they moved, the jobs started over time, the histograms of bytes and of
performance per job, the top jobs by bytes and by I/O time, the totals per
module -- and compares them with the page, parsed as XML (its tables carry
each number exact in data-* attributes beside the rounded text, and each
plot's bars their values in <title>).  Numbers no run can have measured (a
negative or non-finite time, bytes or performance, more I/O time than
nprocs x run_time) are left out of the sums, plots and rankings, and the
page says how many (the rule written here again, not read from the page).
With JOBS_CSV, each job's io_* columns must hold the numbers of the row the
page takes for it (those it can trust).  Prints a line saying what
matched."""
import csv
import math
import re
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"


def human_bytes(b):
    units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
    u = 0
    while abs(b) >= 1024 and u < 6:
        b /= 1024
        u += 1
    return f"{b:.0f} B" if u == 0 else f"{b:.2f} {units[u]}"


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def fail(msg):
    sys.exit(f"{sys.argv[1]}: {msg}")


def doubts(nprocs, run_time, nbytes, t, perf):
    """Which of bytes, time, perf cannot have been measured."""
    d = set()
    if not math.isfinite(nbytes) or nbytes < 0:
        d.add("bytes")
    if not math.isfinite(t) or t < 0 or (nprocs > 0 and run_time > 0 and t > nprocs * run_time):
        d |= {"time", "perf"}
    if not math.isfinite(perf) or perf < 0:
        d.add("perf")
    return d


def expected(path):
    """The jobs (in order) and the module totals of a modules.csv."""
    jobs, mods, errors = [], {}, 0
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["error"] and not row["module"]:
                errors += 1
                continue
            if not jobs or jobs[-1]["log"] != row["log"]:
                jobs.append({"log": row["log"], "start": int(row["start_time"] or 0),
                             "nprocs": int(row["nprocs"] or 0),
                             "run": float(row["run_time"] or 0),
                             "bytes": 0.0, "time": 0.0, "perf": 0.0, "combined": False,
                             "doubts": set(), "module": "", "any": False})
            if not row["module"] or row["error"]:
                continue
            j = jobs[-1]
            br, bw = float(row["bytes_read"]), float(row["bytes_written"])
            t, perf = float(row["time_by_slowest"]), float(row["perf_by_slowest"])
            # the job's own I/O: POSIX+STDIO, else its largest module
            combined = row["module"] == "POSIX+STDIO"
            d = doubts(j["nprocs"], j["run"], br + bw, t, perf)
            if combined or (not j["combined"] and br + bw >= j["bytes"]):
                j.update(bytes=br + bw, time=t, perf=perf, combined=combined, doubts=d,
                         module=row["module"], any=True)
            m = mods.setdefault(row["module"], {"jobs": 0, "read": 0.0, "written": 0.0,
                                                "time": 0.0, "left": 0})
            m["jobs"] += 1
            if "bytes" in d:
                m["left"] += 1
            else:
                m["read"] += br
                m["written"] += bw
            if "time" in d:
                m["left"] += 1
            else:
                m["time"] += t
    return jobs, mods, errors


def titles(svg):
    return [float(t.text) for t in svg.iter(SVG + "title")]


def main():
    page, jobs_csv = sys.argv[1], sys.argv[2]
    jobs, mods, errors = expected(jobs_csv)
    root = ET.parse(page).getroot()
    body = root.find("body")
    if body is None:
        fail("no body")
    # the count and the bytes
    p = body.find("p[@id='jobs']")
    total = sum(j["bytes"] for j in jobs if "bytes" not in j["doubts"])
    head = f"{len(jobs)} jobs, {human_bytes(total)} moved"
    if p is None or not p.text.startswith(head):
        fail(f"says {p.text if p is not None else None!r}, modules.csv gives {head!r}")
    # the plots in the order of the page: jobs and bytes over time, jobs
    # by bytes and by performance
    kids = list(body)
    def plots_after(hid, n):
        at = next((i for i, e in enumerate(kids) if e.get("id") == hid), None)
        if at is None:
            fail(f"no section {hid}")
        got = [e for e in kids[at + 1:] if e.tag == SVG + "svg"][:n]
        if len(got) < n:
            fail(f"section {hid} has {len(got)} plots")
        return got
    started, moved = plots_after("time", 2)
    # what was left out, said
    doubted = sum(1 for j in jobs if j["doubts"])
    left = sum(m["left"] for m in mods.values())
    note = body.find("p[@id='left-out']")
    if (note is not None) != bool(doubted or left):
        fail(f"{doubted} jobs and {left} module values are implausible, the page "
             f"{'says so' if note is not None else 'does not say so'}")
    if note is not None and (f" {doubted} job" not in note.text or f" {left} value" not in note.text):
        fail(f"the page says {note.text!r}: {doubted} jobs, {left} values left out")
    dated = [j for j in jobs if j["start"] > 0]
    if sum(titles(started)) != len(dated):
        fail(f"jobs over time count {sum(titles(started))}, modules.csv {len(dated)}")
    # (the bytes over time are titled in rounded units: only counted)
    if len(list(moved.iter(SVG + "title"))) > len(titles(started)):
        fail("more columns of bytes than of jobs over time")
    # the time axis in calendar dates, from the first start to the last
    if dated:
        import datetime
        lo, hi = min(j["start"] for j in dated), max(j["start"] for j in dated)
        form = "%Y-%m-%d" if hi - lo >= 4 * 86400 else "%Y-%m-%d %H:%M"
        day = lambda t: datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime(form)
        for plot in (started, moved):
            ticks = [t.text for t in plot.iter(SVG + "text")
                     if t.text and re.match(r"\d{4}-\d\d-\d\d", t.text)]
            if len(ticks) < 2 or ticks[0] != day(lo) or ticks[-1] != day(hi if hi > lo else lo + 1):
                fail(f"the time axis reads {ticks}, the jobs started from {day(lo)} to {day(hi)}")
    by_bytes, by_perf = plots_after("per-job", 2)
    for name, key, plot in (("bytes", "bytes", by_bytes), ("performance", "perf", by_perf)):
        counts = titles(plot)
        # (a job without a module, an empty log, has no number to count)
        want = sum(1 for j in jobs if j["any"] and key not in j["doubts"])
        if sum(counts) != want:
            fail(f"the histogram of {name} counts {sum(counts)} jobs, not {want}")
        # (its empty ends left out, none between them)
        if counts and (counts[0] == 0 or counts[-1] == 0):
            fail(f"the histogram of {name} starts or ends with an empty bin: {counts}")
        ranges = [t.text for t in plot.iter(SVG + "text")
                  if t.text and "-" in t.text and not t.text.startswith("-")]
        for a, b in zip(ranges, ranges[1:]):
            if a.split("-")[-1].strip() != b.split("-")[0].strip():
                fail(f"the histogram of {name} skips from {a!r} to {b!r}")
    # bytes in binary units only
    labels = [t.text for t in by_bytes.iter(SVG + "text") if t.text and "B" in t.text]
    for label in labels:
        for part in label.replace(" or more", "").split("-"):
            num, _, unit = part.strip().partition(" ")
            if unit not in ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB") or \
                    float(num) != int(float(num)):
                fail(f"the histogram of bytes has a bin {label!r}")
    # the top jobs
    for tid, key in (("top-bytes", "bytes"), ("top-time", "time")):
        table = body.find(f"table[@id='{tid}']")
        if table is None:
            fail(f"no table {tid}")
        rows = table.findall("tr[@class='job']")
        want = sorted((j[key] for j in jobs if j["any"] and key not in j["doubts"]),
                      reverse=True)[:15]
        got = [float(r.get("data-" + key)) for r in rows]
        if len(got) != len(want) or not all(close(a, b) for a, b in zip(got, want)):
            fail(f"{tid}: {got} but modules.csv gives {want}")
        by_log = {j["log"]: j for j in jobs}
        for r in rows:
            cells = r.findall("td")
            j = by_log.get(cells[0].text)
            if j is None:
                fail(f"{tid}: a row of no job: {cells[0].text!r}")
            for k in ("bytes", "time", "perf"):
                if not close(float(r.get("data-" + k)), j[k]):
                    fail(f"{tid}: {j['log']} {k} {r.get('data-' + k)}, modules.csv {j[k]}")
            if cells[4].text != human_bytes(j["bytes"]):
                fail(f"{tid}: {j['log']} shows {cells[4].text}, not {human_bytes(j['bytes'])}")
    # per module
    table = body.find("table[@id='module-table']")
    rows = table.findall("tr[@class='module']") if table is not None else []
    if len(rows) != len(mods):
        fail(f"{len(rows)} module rows, modules.csv has {len(mods)} modules")
    for r in rows:
        cells = r.findall("td")
        m = mods.get(cells[0].text)
        if m is None or int(cells[1].text) != m["jobs"]:
            fail(f"module {cells[0].text}: {cells[1].text} jobs, modules.csv {m}")
        for k in ("read", "written", "time"):
            if not close(float(r.get("data-" + k)), m[k]):
                fail(f"module {cells[0].text}: {k} {r.get('data-' + k)}, modules.csv {m[k]}")
        if int(r.get("data-left-out")) != m["left"] or int(cells[5].text) != m["left"]:
            fail(f"module {cells[0].text}: {r.get('data-left-out')} values left out, "
                 f"modules.csv has {m['left']} implausible")
        if cells[2].text != human_bytes(m["read"]) or cells[3].text != human_bytes(m["written"]):
            fail(f"module {cells[0].text}: shows {cells[2].text}, {cells[3].text}")
    if len(sys.argv) > 3:
        by_log = {j["log"]: j for j in jobs}
        with open(sys.argv[3], newline="") as f:
            rows = [r for r in csv.DictReader(f) if r["log"] in by_log]
        if len(rows) != len(jobs):
            fail(f"jobs.csv has {len(rows)} rows of the page's {len(jobs)} jobs")
        for r in rows:
            j = by_log[r["log"]]
            if r["io_module"] != j["module"]:
                fail(f"jobs.csv {r['log']}: io_module {r['io_module']}, the page's {j['module']}")
            for col, key in (("io_bytes", "bytes"), ("io_time", "time"), ("io_perf", "perf")):
                if key in j["doubts"]:
                    continue   # (what cannot be true is no number to compare)
                if not close(float(r[col] or 0), j[key]):
                    fail(f"jobs.csv {r['log']}: {col} {r[col]}, the page's row {j[key]}")
        print(f"jobs.csv: the I/O of {len(rows)} jobs is the page's")
    print(f"{len(jobs)} jobs, {len(mods)} modules, {human_bytes(total)}, {doubted} jobs and "
          f"{left} module values left out: the page matches modules.csv")


main()
