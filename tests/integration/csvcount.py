"""csvcount.py - count the rows of CSV files the way programs read them.

    python3 csvcount.py tree MOUNT ACCUM LOGREL...
        every CSV file of the log directories LOGREL below MOUNT, read by
        python csv, by one sqlite3 (.import --csv) and by one mlr: the same
        rows, no complaint; total.csv has one row; a records.csv that takes
        imports (fixed-size records) has one row per record, as its
        derived_metrics and the oracle's record count (ACCUM/<log>/<MOD>.json)
        say.  sum(POSIX_BYTES_READ) of each POSIX/records.csv by sqlite3 and
        by mlr equals total_POSIX_BYTES_READ of POSIX/total.  Prints
        "files rows fixed oracle-checked posix-sums".

    With DFS_TEST_QUICK=1 (the sanitizer build's pass) python csv alone
    reads the files: the daemon serves the same bytes to every client, and
    how sqlite3 and mlr parse them is checked by the normal build's pass
    (the one client reading every file is what the sanitizers need).
"""
import csv
import json
import os
import re
import stat
import subprocess
import sys


def count_python(path):
    with open(path, newline="", encoding="utf-8", errors="surrogateescape") as f:
        rd = csv.reader(f, strict=True)
        header = next(rd, None)
        if header is None:
            raise ValueError("no header")
        if len(set(header)) != len(header):
            raise ValueError("duplicate column names")
        n = 0
        for row in rd:
            n += 1
            if len(row) != len(header):
                raise ValueError(f"row {n} has {len(row)} fields, the header {len(header)}")
    return n


SELECTED = re.compile(r"^# darshanfs: (\d+) of (\d+) records selected$", re.M)


def oracle_counts(accum):
    out = {}
    for log in os.listdir(accum):
        for f in os.listdir(os.path.join(accum, log)):
            if f.endswith(".json") and f != "NO_TARGET_MODULES.json":
                with open(os.path.join(accum, log, f)) as fh:
                    out[(log, f[:-5])] = json.load(fh)["n_records_in_log"]
    return out


def csv_files(mount, rels):
    out = []
    for rel in rels:
        top = os.path.join(mount, rel)
        for d, dirs, files in os.walk(top):
            dirs.sort()
            for f in sorted(files):
                if f.endswith(".csv"):
                    out.append((rel, os.path.relpath(os.path.join(d, f), top)))
    return out


def sqlite_counts(paths, posix):
    """row counts (and POSIX_BYTES_READ sums) from one sqlite3 run"""
    script = []
    for k, p in enumerate(paths):
        if "'" in p:
            raise ValueError(f"cannot quote {p!r} for sqlite3")
        script.append(f".print @{k}\n.import --csv '{p}' t{k}\nselect count(*) from t{k};")
        if k in posix:
            script.append(f"select sum(POSIX_BYTES_READ) from t{k};")
        script.append(f"drop table t{k};")
    r = subprocess.run(["sqlite3", ":memory:"], input="\n".join(script) + "\n",
                       capture_output=True, text=True, errors="surrogateescape",
                       timeout=600)
    if r.returncode != 0 or r.stderr:
        raise ValueError(f"sqlite3 complained: {r.stderr.strip()[:500]}")
    counts, sums, cur, vals = {}, {}, None, []

    def close():
        if cur is not None:
            counts[cur] = vals[0] if vals else None
            if cur in posix:
                sums[cur] = vals[1] if len(vals) > 1 else None
    for line in r.stdout.splitlines():
        if line.startswith("@"):
            close()
            cur, vals = int(line[1:]), []
        else:
            vals.append(line)
    close()
    return counts, sums


MLR_COUNT = ("@n[FILENAME] += 1; "
             "if (FILENAME =~ \"/POSIX/records.csv$\") { @s[FILENAME] += $POSIX_BYTES_READ } "
             "end { for (k, v in @n) { print k . \"\\t\" . v } "
             "for (k, v in @s) { print \"sum\\t\" . k . \"\\t\" . v } }")


def mlr_counts(paths):
    """row counts (and POSIX_BYTES_READ sums) from one mlr run"""
    r = subprocess.run(["mlr", "--icsv", "--ocsv", "put", "-q", MLR_COUNT] + paths,
                       capture_output=True, errors="surrogateescape", text=True,
                       timeout=600)
    if r.returncode != 0 or r.stderr:
        raise ValueError(f"mlr complained: {r.stderr.strip()[:500]}")
    counts, sums = {}, {}
    for line in r.stdout.splitlines():
        f = line.split("\t")
        if f[0] == "sum":
            sums[f[1]] = f[2]
        else:
            counts[f[0]] = f[1]
    return counts, sums


def tree(mount, accum, rels):
    oracle = oracle_counts(accum)
    files = csv_files(mount, rels)
    paths = [os.path.join(mount, rel, f) for rel, f in files]
    posix = {k for k, (rel, f) in enumerate(files) if f == "POSIX/records.csv"}
    quick = os.environ.get("DFS_TEST_QUICK") == "1"
    if quick:
        posix = set()
        sq = ml = sq_sum = ml_sum = None
    else:
        sq, sq_sum = sqlite_counts(paths, posix)
        ml, ml_sum = mlr_counts(paths)
    rows = nfixed = noracle = 0
    for k, (rel, f) in enumerate(files):
        path = paths[k]
        try:
            py = count_python(path)
        except (ValueError, csv.Error) as e:
            raise ValueError(f"python csv cannot read {path}: {e}")
        if not quick and (str(py) != sq.get(k) or str(py) != ml.get(path, "0")):
            raise ValueError(f"{path}: rows: python csv {py}, sqlite3 {sq.get(k)}, "
                             f"mlr {ml.get(path, '0')}")
        want = None
        if os.path.basename(f) == "total.csv":
            want = 1
        elif f.endswith("/records.csv") and os.stat(path).st_mode & stat.S_IWUSR:
            # fixed-size records (records.csv takes imports): a row a record
            nfixed += 1
            mod = f[:-len("/records.csv")]
            dm = os.path.join(mount, rel, mod, "derived_metrics")
            if os.path.exists(dm):
                with open(dm, encoding="utf-8", errors="surrogateescape") as fh:
                    m = SELECTED.search(fh.read())
                if not m or m.group(1) != m.group(2):
                    raise ValueError(f"{rel}/{mod}/derived_metrics says {m and m.group(0)!r}")
                want = int(m.group(1))
            n = oracle.get((os.path.basename(rel), mod))
            if n is not None:
                if want is not None and want != n:
                    raise ValueError(f"{rel}/{f}: derived_metrics counts {want} records, darshan-util {n}")
                want = n
                noracle += 1
        if want is not None and py != want:
            raise ValueError(f"{path}: {py} rows, expected {want}")
        rows += py
    for k in sorted(posix):
        rel = files[k][0]
        with open(os.path.join(mount, rel, "POSIX", "total"), encoding="utf-8") as fh:
            m = re.search(r"^total_POSIX_BYTES_READ: (\S+)$", fh.read(), re.M)
        c = m.group(1) if m else None
        a, b = sq_sum.get(k), ml_sum.get(paths[k], "")
        if a != c or b != c:
            raise ValueError(f"{rel}: sum of POSIX_BYTES_READ: sqlite3 {a}, mlr {b}, total says {c}")
    print(len(files), rows, nfixed, noracle, len(posix))


def main():
    if len(sys.argv) < 4 or sys.argv[1] != "tree":
        sys.exit("usage: csvcount.py tree MOUNT ACCUM LOGREL...")
    try:
        tree(sys.argv[2], sys.argv[3], sys.argv[4:])
    except (ValueError, csv.Error, OSError, subprocess.SubprocessError) as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
