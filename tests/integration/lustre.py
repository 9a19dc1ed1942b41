#!/usr/bin/env python3
"""lustre.py DARSHANFS_CAT

LUSTRE as darshan-parser prints it, on every shared log that has LUSTRE
records (the oracle's base.txt has LUSTRE lines):

- LUSTRE/records.csv, turned back into darshan-parser's record lines (one
  line per counter, component by component, OST ids numbered within their
  component), is exactly the oracle's LUSTRE lines: the text columns
  (STRIPE_PATTERN, FLAGS, POOL_NAME) included;
- `darshanfs-cat --parser base` prints the same lines;
- filters on the text columns select the records the oracle shows with
  that text: STRIPE_PATTERN == 'raid0', a flag by regular expression,
  POOL_NAME == 'N/A'.

It runs darshanfs-cat (the view code the mount runs) three times per log;
with DFS_TEST_QUICK=1 (the sanitizer build's pass) on every other log
only: each darshanfs-cat start costs the sanitizers about 0.1 s, and the
values are the normal pass's to check (integration-read still renders
every log's LUSTRE/records.csv under them, through the mount).  Exit 77
without the shared logs.
"""
import csv, glob, gzip, io, os, re, subprocess, sys

CAT = sys.argv[1]
SHARED = os.environ.get("DFS_SHARED") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared")
LOGS = sorted(glob.glob(os.path.join(SHARED, "darshan-logs", "*.darshan")))
ORACLE = os.path.join(SHARED, "oracle", "parser")
if not LOGS or not os.path.isdir(ORACLE):
    print("SKIP: no shared logs or oracle in %s (set DFS_SHARED)" % SHARED)
    sys.exit(77)

COMP_INTS = ["STRIPE_SIZE", "STRIPE_COUNT", "STRIPE_PATTERN", "FLAGS",
             "EXT_START", "EXT_END", "MIRROR_ID"]


def cat(*args):
    p = subprocess.run([CAT] + list(args), capture_output=True, timeout=120)
    if p.returncode != 0:
        raise SystemExit("FAIL: darshanfs-cat %s: status %d: %s" % (
            " ".join(args), p.returncode, p.stderr.decode("utf-8", "replace")))
    return p.stdout.decode("utf-8", "surrogateescape")


def oracle_lines(log):
    d = os.path.join(ORACLE, os.path.basename(log))
    for name, op in (("base.txt", open), ("base.txt.gz", gzip.open)):
        path = os.path.join(d, name)
        if os.path.exists(path):
            with op(path, "rb") as f:
                text = f.read().decode("utf-8", "surrogateescape")
            return [l for l in text.split("\n") if l.startswith("LUSTRE\t")]
    return None


def records(text):
    """records.csv -> list of (header index, rows of one record)"""
    rows = list(csv.reader(io.StringIO(text)))
    header, rows = rows[0], rows[1:]
    groups = []
    for r in rows:
        if groups and groups[-1][0][:2] == r[:2]:
            groups[-1].append(r)
        else:
            groups.append([r])
    return {c: i for i, c in enumerate(header)}, groups


def parser_lines(col, groups):
    """darshan-parser's LUSTRE lines rebuilt from records.csv rows"""
    out = []
    for g in groups:
        r0 = g[0]
        tail = [r0[col["file_name"]], r0[col["mount_pt"]], r0[col["fs_type"]]]

        def line(name, value):
            out.append("\t".join(["LUSTRE", r0[col["rank"]], r0[col["record_id"]],
                                  name, value] + tail))
        line("LUSTRE_NUM_COMPONENTS", r0[col["LUSTRE_NUM_COMPONENTS"]])
        line("LUSTRE_NUM_STRIPES", r0[col["LUSTRE_NUM_STRIPES"]])
        comps = []
        for r in g:
            c = r[col["component"]]
            if c == "":
                continue
            if not comps or comps[-1][0] != c:
                comps.append((c, []))
            comps[-1][1].append(r)
        for c, rows in comps:
            for k in COMP_INTS:
                line("LUSTRE_COMP%s_%s" % (c, k), rows[0][col["LUSTRE_COMP_" + k]])
            line("LUSTRE_COMP%s_POOL_NAME" % c, rows[0][col["LUSTRE_COMP_POOL_NAME"]])
            for r in rows:
                if r[col["ost_index"]] != "":
                    line("LUSTRE_COMP%s_OST_ID_%s" % (c, r[col["ost_index"]]),
                         r[col["LUSTRE_COMP_OST_ID"]])
    return out


def first_diff(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return "line %d:\n  oracle:    %r\n  darshanfs: %r" % (i + 1, x, y)
    return "%d lines in the oracle, %d from darshanfs" % (len(a), len(b))


def oracle_ids(lines, counter_re, value_re):
    """records of which a component's counter matches"""
    ids = set()
    for l in lines:
        f = l.split("\t")
        if re.fullmatch(counter_re, f[3]) and re.search(value_re, f[4]):
            ids.add((f[2], f[1]))
    return ids


FILTERS = [
    ("LUSTRE_COMP_STRIPE_PATTERN == 'raid0'", r"LUSTRE_COMP\d+_STRIPE_PATTERN", r"^raid0$"),
    ("COMP_FLAGS ~ '(^|,)init(,|$)'", r"LUSTRE_COMP\d+_FLAGS", r"(^|,)init(,|$)"),
    ("LUSTRE_COMP_POOL_NAME == 'N/A'", r"LUSTRE_COMP\d+_POOL_NAME", r"^N/A$"),
    ("LUSTRE_COMP_FLAGS != 'N/A' and LUSTRE_COMP_STRIPE_SIZE >= 1MiB",
     r"LUSTRE_COMP\d+_FLAGS", r"^(?!N/A$)"),
]


def main():
    checked = 0
    texts = set()
    quick = os.environ.get("DFS_TEST_QUICK") == "1"
    seen = 0
    for log in LOGS:
        want = oracle_lines(log)
        if not want:
            continue
        seen += 1
        if quick and seen % 2 == 0:
            continue
        name = os.path.basename(log)
        col, groups = records(cat(log, "LUSTRE/records.csv"))
        got = parser_lines(col, groups)
        if got != want:
            print("FAIL: %s: LUSTRE/records.csv is not what darshan-parser prints, %s"
                  % (name, first_diff(want, got)))
            return 1
        got = [l for l in cat("--parser", "base", log).split("\n")
               if l.startswith("LUSTRE\t")]
        if got != want:
            print("FAIL: %s: --parser base LUSTRE lines differ, %s"
                  % (name, first_diff(want, got)))
            return 1
        # the last filter also needs the sizes: checked against the rows
        k = checked % len(FILTERS)
        expr, counter_re, value_re = FILTERS[k]
        expect = oracle_ids(want, counter_re, value_re)
        if k == 3:
            expect = {(g[0][col["record_id"]], g[0][col["rank"]]) for g in groups
                      if any(r[col["LUSTRE_COMP_FLAGS"]] not in ("N/A", "") and
                             int(r[col["LUSTRE_COMP_STRIPE_SIZE"]]) >= 1 << 20
                             for r in g)}
        _, sel = records(cat("--filter", expr, log, "LUSTRE/records.csv"))
        ids = {(g[0][col["record_id"]], g[0][col["rank"]]) for g in sel}
        if ids != expect:
            print("FAIL: %s: filter %r selects %d records, the oracle %d"
                  % (name, expr, len(ids), len(expect)))
            return 1
        for l in want:
            f = l.split("\t")
            if re.search(r"_(STRIPE_PATTERN|FLAGS|POOL_NAME)$", f[3]):
                texts.add(f[4])
        checked += 1
    if not checked:
        print("SKIP: no shared log has LUSTRE records")
        return 77
    print("ok: LUSTRE/records.csv, --parser base and filters of %d logs match "
          "darshan-parser (text values seen: %s)" % (checked, ", ".join(sorted(texts))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
