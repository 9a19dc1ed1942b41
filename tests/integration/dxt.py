#!/usr/bin/env python3
"""dxt.py DARSHANFS_CAT

DXT traces against darshan-dxt-parser (the oracle's dxt.txt), and filters
that select segments, on every shared log with DXT_POSIX or DXT_MPIIO:

- every segment row of records.csv (rank, op, segment, offset, length) is
  the oracle's segment line, in order; DXT_POSIX's `ost` column lists the
  OSTs the oracle prints after the segment ("[106] [107]" -> "106 107"),
  and is empty where it prints none;
- a filter on segment columns (`length < 4096`, `op == 'read' and segment
  >= 2`) selects segments: records.csv holds exactly the rows of the
  unfiltered records.csv that match, in order, with their segment numbers
  and counts unchanged (a record with none disappears); filtered.darshan
  holds the same segments;
- a filter on record columns (`rank == 0`) keeps whole records.

It runs darshanfs-cat (the view code the mount runs); DFS_TEST_QUICK=1
(the sanitizer build's pass) leaves out the traces of more than 20000
segments and checks every other trace (and every one with OSTs): what it
adds over the normal pass is the sanitizers, and each darshanfs-cat start
costs them about 0.1 s (integration-read still renders every trace under
them, through the mount).  Exit 77 without the shared logs.
"""
import csv, glob, gzip, io, os, re, subprocess, sys, tempfile

CAT = sys.argv[1]
SHARED = os.environ.get("DFS_SHARED") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared")
LOGS = sorted(glob.glob(os.path.join(SHARED, "darshan-logs", "*.darshan")))
ORACLE = os.path.join(SHARED, "oracle", "parser")
QUICK = os.environ.get("DFS_TEST_QUICK") == "1"
if not LOGS or not os.path.isdir(ORACLE):
    print("SKIP: no shared logs or oracle in %s (set DFS_SHARED)" % SHARED)
    sys.exit(77)


def cat(*args):
    p = subprocess.run([CAT] + list(args), capture_output=True, timeout=120)
    if p.returncode != 0:
        raise SystemExit("FAIL: darshanfs-cat %s: status %d: %s" % (
            " ".join(args), p.returncode, p.stderr.decode("utf-8", "replace")))
    return p.stdout.decode("utf-8", "surrogateescape")


def oracle_segments(log, module):
    """the oracle's segment lines of a module: (rank, op, segment, offset,
    length, osts)"""
    d = os.path.join(ORACLE, os.path.basename(log))
    for name, op in (("dxt.txt", open), ("dxt.txt.gz", gzip.open)):
        path = os.path.join(d, name)
        if os.path.exists(path):
            with op(path, "rb") as f:
                text = f.read().decode("utf-8", "surrogateescape")
            break
    else:
        return None
    tag = {"DXT_POSIX": "X_POSIX", "DXT_MPIIO": "X_MPIIO"}[module]
    out = []
    for line in text.split("\n"):
        t = line.split()
        if len(t) < 8 or t[0] != tag:
            continue
        osts = [m.group(1) for m in (re.match(r"^\[(-?\d+)\]$", x) for x in t[8:]) if m]
        out.append((t[1], t[2], t[3], t[4], t[5], " ".join(osts)))
    return out


def rows_of(text):
    r = list(csv.reader(io.StringIO(text)))
    return r[0], r[1:]


def segment_key(h, row):
    g = lambda c: row[h.index(c)]
    return (g("rank"), g("op"), g("segment"), g("offset"), g("length"))


checked = osts = filtered = traced = 0
def has_oracle(log):
    d = os.path.join(ORACLE, os.path.basename(log))
    return any(os.path.exists(os.path.join(d, n)) for n in ("dxt.txt", "dxt.txt.gz"))


for log in LOGS:
    # (no dxt.txt, nothing to compare: no darshanfs-cat start, which costs
    # up to a second under ASan)
    if not has_oracle(log):
        continue
    listing = cat("--list", log)
    for module in ("DXT_POSIX", "DXT_MPIIO"):
        if module + "/" not in listing.split("\n") and module not in listing.split():
            continue
        want = oracle_segments(log, module)
        if want is None:
            continue
        name = os.path.basename(log)
        if QUICK and len(want) > 20000:
            continue   # (the sanitized build: the big traces take minutes)
        traced += 1
        if QUICK and traced % 2 == 0 and not any(w[5] for w in want):
            continue   # (the sanitized build: every other trace, all with OSTs)
        h, rows = rows_of(cat(log, module + "/records.csv"))
        seg_rows = [r for r in rows if r[h.index("op")]]
        got = [segment_key(h, r) for r in seg_rows]
        if got != [w[:5] for w in want]:
            bad = next(i for i in range(min(len(got), len(want)) + 1)
                       if i >= len(got) or i >= len(want) or got[i] != want[i][:5])
            raise SystemExit("FAIL: %s %s: segment %d is %s, darshan-dxt-parser prints %s" % (
                name, module, bad, got[bad] if bad < len(got) else None,
                want[bad][:5] if bad < len(want) else None))
        if module == "DXT_POSIX":
            ost = h.index("ost")
            for r, w in zip(seg_rows, want):
                if r[ost] != w[5]:
                    raise SystemExit("FAIL: %s: segment %s has ost '%s', darshan-dxt-parser prints '%s'" % (
                        name, segment_key(h, r), r[ost], w[5]))
                osts += bool(w[5])
        elif "ost" in h:
            raise SystemExit("FAIL: %s: DXT_MPIIO has an ost column" % name)
        checked += 1
        print("ok: %s %s: %d segments as darshan-dxt-parser prints them" % (name, module, len(got)))
        if len(rows) > 5000:
            continue   # (the filters are checked on the smaller traces: seconds, not minutes)
        # filters on segment columns select segments
        L = h.index("length")
        for expr, keep in (
                ("length < 4096", lambda r: r[h.index("op")] and int(r[L]) < 4096),
                ("op == 'read' and segment >= 2",
                 lambda r: r[h.index("op")] == "read" and int(r[h.index("segment")]) >= 2)):
            h2, sel = rows_of(cat("--filter", expr, log, module + "/records.csv"))
            expect = [r for r in rows if keep(r)]
            if h2 != h or sel != expect:
                raise SystemExit("FAIL: %s %s: '%s' shows %d rows, %d segments match" % (
                    name, module, expr, len(sel), len(expect)))
            # filtered.darshan holds the same segments (numbered anew)
            with tempfile.TemporaryDirectory() as tmp:
                out = os.path.join(tmp, "f.darshan")
                with open(out, "wb") as f:
                    f.write(subprocess.run([CAT, "--write", module + "/filter=" + expr, log, "filtered.darshan"],
                                           capture_output=True, check=True).stdout)
                if expect:
                    h3, back = rows_of(cat(out, module + "/records.csv"))
                    strip = lambda r: [r[h.index(c)] for c in ("record_id", "rank", "op", "offset", "length", "start_time", "end_time")]
                    if [strip(r) for r in back] != [strip(r) for r in expect]:
                        raise SystemExit("FAIL: %s %s: filtered.darshan of '%s' does not hold the selected segments" % (
                            name, module, expr))
        # a filter on record columns keeps whole records
        h2, sel = rows_of(cat("--filter", "rank == 0", log, module + "/records.csv"))
        if sel != [r for r in rows if r[h.index("rank")] == "0"]:
            raise SystemExit("FAIL: %s %s: 'rank == 0' does not keep whole records" % (name, module))
        filtered += 1
if not checked:
    print("SKIP: no log with DXT and a dxt.txt oracle")
    sys.exit(77)
if not osts:
    raise SystemExit("FAIL: no segment with OSTs: the ost column is not tested")
if not filtered:
    raise SystemExit("FAIL: no DXT module small enough to check the filters on")
print("PASS: %d DXT modules, %d segments with OSTs, segment filters on %d" % (checked, osts, filtered))
