#!/usr/bin/env python3
"""dirsummary.py PAGE MODULES_CSV [JOBS_CSV] - does a directory's
summary.html show what its modules.csv holds, and its jobs.csv each job's
I/O as the page counts it?

Recomputes from modules.csv what the page must show -- the jobs and the bytes
they moved, the jobs started over time, the histograms of bytes and of
performance per job, the top jobs by bytes and by I/O time, the totals per
module -- and compares them with the page, parsed as XML (its tables carry
each number exact in data-* attributes beside the rounded text, and each
plot's bars their values in <title>).  With JOBS_CSV, each job's io_*
columns must hold the numbers of the row the page takes for it.  Prints a
line saying what matched."""
import csv
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
                             "bytes": 0.0, "time": 0.0, "perf": 0.0, "combined": False,
                             "module": ""})
            if not row["module"] or row["error"]:
                continue
            j = jobs[-1]
            br, bw = float(row["bytes_read"]), float(row["bytes_written"])
            t, perf = float(row["time_by_slowest"]), float(row["perf_by_slowest"])
            # the job's own I/O: POSIX+STDIO, else its largest module
            combined = row["module"] == "POSIX+STDIO"
            if combined or (not j["combined"] and br + bw >= j["bytes"]):
                j.update(bytes=br + bw, time=t, perf=perf, combined=combined,
                         module=row["module"])
            m = mods.setdefault(row["module"], {"jobs": 0, "read": 0.0, "written": 0.0, "time": 0.0})
            m["jobs"] += 1
            m["read"] += br
            m["written"] += bw
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
    total = sum(j["bytes"] for j in jobs)
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
    dated = [j for j in jobs if j["start"] > 0]
    if sum(titles(started)) != len(dated):
        fail(f"jobs over time count {sum(titles(started))}, modules.csv {len(dated)}")
    # (the bytes over time are titled in rounded units: only counted)
    if len(list(moved.iter(SVG + "title"))) > len(titles(started)):
        fail("more columns of bytes than of jobs over time")
    by_bytes, by_perf = plots_after("per-job", 2)
    for name, plot in (("bytes", by_bytes), ("performance", by_perf)):
        if sum(titles(plot)) != len(jobs):
            fail(f"the histogram of {name} counts {sum(titles(plot))} jobs, not {len(jobs)}")
    # the top jobs
    for tid, key in (("top-bytes", "bytes"), ("top-time", "time")):
        table = body.find(f"table[@id='{tid}']")
        if table is None:
            fail(f"no table {tid}")
        rows = table.findall("tr[@class='job']")
        want = sorted((j[key] for j in jobs), reverse=True)[:15]
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
            got = (r["io_module"], float(r["io_bytes"] or 0), float(r["io_time"] or 0),
                   float(r["io_perf"] or 0))
            want = (j["module"], j["bytes"], j["time"], j["perf"])
            if got[0] != want[0] or not all(close(a, b) for a, b in zip(got[1:], want[1:])):
                fail(f"modules.csv {r['log']}: io {got}, the page's row {want}")
        print(f"jobs.csv: the I/O of {len(rows)} jobs is the page's")
    print(f"{len(jobs)} jobs, {len(mods)} modules, {human_bytes(total)}: the page matches modules.csv")


main()
