"""oracle.py - compare what the mount printed with the reference outputs of
darshan-util (the oracle: parser/<log>/{file,perf,total}.txt and
accum/<log>/<MODULE>.json).

    python3 oracle.py mount MOUNT ORACLE OUT LOGREL...
        through the mount, in this one process: for every module of every
        log LOGREL that the oracle accumulated, read derived_metrics and
        total (unless darshan-parser failed on the log), then write each
        case's filter into MODULE/filter as `echo` does (it must read back,
        filter.error empty) and read derived_metrics.json and
        derived_metrics; the filter is emptied after the module.  Keeps what
        it read in OUT, listed in OUT/manifest, and checks it (check):
          json:  every field of the oracle's derived_metrics (empty
                 selection: c_accumulator_with_zero_records) equals the
                 parsed JSON exactly (floats too) and derived_metrics
                 counts the case's records;
          block: the module's block of file.txt and perf.txt appears
                 verbatim in derived_metrics (the partial-data warning
                 paragraph aside) and every total_* line of total.txt is a
                 line of total.
        The cases are all, rank0, read_bytes_gt0 and shared (case_list).
        Prints counts; exits 1 listing the first differences.
    python3 oracle.py modules MODULES_CSV ACCUM_DIR
        every row of modules.csv (unfiltered) for a module the oracle
        accumulated holds darshan-util's numbers: records, total_bytes,
        bytes read and written, file counts, time and perf by slowest.
    python3 oracle.py jobtable JOBS_CSV ACCUM_DIR
        every row of jobs.csv (unfiltered, one per log) holds, in the bytes
        column of each module the oracle accumulated whole, darshan-util's
        bytes read plus written; io_share is io_time / run_time."""
import json
import re
import sys

BANNER = "# *******************************************************\n"
WARNING = re.compile(r"# \*WARNING\*: The \S+ module contains incomplete data!\n"
                     r"(#.*\n)*\n(#.*\n)*\n")


def case_list(path):
    """(case, filter) of a module's oracle.  When pydarshan dropped records
    the C library returns (records without a name record, whose rank is
    outside the job), the filter also keeps rank < nprocs so it selects
    what the oracle accumulated."""
    out = []
    o = json.load(open(path))
    extra = ""
    if o["n_records_pydarshan"] != o["n_records_in_log"]:
        extra = f" and rank < {o['job_nprocs']}"
    rb = o.get("read_bytes_counter")
    exprs = {"all": "true", "rank0": "rank == 0", "shared": "rank == -1"}
    if rb:
        exprs["read_bytes_gt0"] = f"{rb} > 0"
    for case, expr in exprs.items():
        if expr == "true" and extra:
            expr = extra[5:]
        elif extra:
            expr = f"({expr}){extra}"
        out.append((case, expr))
    return out


def diff(got, want, path=""):
    if isinstance(want, dict):
        out = []
        for k, v in want.items():
            if k == "index":        # the position in the list, not a field
                continue
            if not isinstance(got, dict) or k not in got:
                out.append(f"{path}/{k}: missing")
            else:
                out += diff(got[k], v, f"{path}/{k}")
        return out
    if isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            return [f"{path}: {got!r} != {want!r}"]
        out = []
        for i, (g, w) in enumerate(zip(got, want)):
            out += diff(g, w, f"{path}[{i}]")
        return out
    if isinstance(want, bool) or isinstance(got, bool) or got != want:
        return [f"{path}: got {got!r}, darshan-util {want!r}"]
    return []


def blocks(text):
    out = {}
    parts = text.split(BANNER)
    for i in range(1, len(parts) - 1, 2):
        m = re.match(r"# (\S+) module data\n$", parts[i])
        if m:
            out[m.group(1)] = parts[i + 1]
    return out


def selected(path):
    m = re.search(r"^# darshanfs: (\d+) of (\d+) records selected$",
                  open(path).read(), re.M)
    return int(m.group(1)) if m else None


def check(manifest):
    njson = nblock = nlines = 0
    errors = []
    cache = {}
    for line in open(manifest, encoding="utf-8", errors="surrogateescape"):
        f = line.rstrip("\n").split("\t")
        if f[0] == "json":
            _, opath, case, gpath, dpath = f
            o = json.load(open(opath))
            c = o["cases"][case]
            if c["status"] == "ok":
                want = c["derived_metrics"]
            else:
                want = c["c_accumulator_with_zero_records"]["derived_metrics"]
            try:
                got = json.load(open(gpath))
            except ValueError as e:
                errors.append(f"{gpath}: not JSON: {e}")
                continue
            d = diff(got, want)
            if d:
                errors.append(f"{gpath} ({o['log']} {o['module']} {case}): " + "; ".join(d[:4]))
            n = selected(dpath)
            if n != c["n_records"]:
                errors.append(f"{dpath} ({o['log']} {o['module']} {case}): {n} records "
                              f"selected, darshan-util accumulated {c['n_records']}")
            njson += 1
        elif f[0] == "block":
            _, pdir, mod, dpath, tpath = f
            if pdir not in cache:
                cache[pdir] = {k: blocks(open(f"{pdir}/{k}.txt").read())
                               for k in ("file", "perf", "total")}
            ob = cache[pdir]
            dm = open(dpath).read()
            for kind in ("file", "perf"):
                b = ob[kind].get(mod)
                if b is None:
                    errors.append(f"{pdir}/{kind}.txt has no {mod} block")
                    continue
                b = WARNING.sub("", b.lstrip("\n")).strip("\n")
                if b not in dm:
                    errors.append(f"{dpath}: the {mod} block of {kind}.txt is not in it")
                nblock += 1
            have = set(open(tpath).read().splitlines())
            for tl in ob["total"].get(mod, "").splitlines():
                if tl.startswith("total_"):
                    nlines += 1
                    if tl not in have:
                        errors.append(f"{tpath}: missing '{tl}'")
    print(f"{njson} derived_metrics.json equal to darshan-util's accumulator, "
          f"{nblock} file/perf blocks found verbatim, {nlines} total_* lines found")
    if errors:
        print(f"FAIL: {len(errors)} differences:", file=sys.stderr)
        for e in errors[:30]:
            print("  " + e, file=sys.stderr)
        sys.exit(1)


def copy_out(src, dst):
    with open(src, "rb") as f:
        data = f.read()
    with open(dst, "wb") as f:
        f.write(data)


def mount(mnt, oracle, out, rels):
    import os
    man = os.path.join(out, "manifest")
    nmods = nwrites = nskip = 0
    with open(man, "w", encoding="utf-8", errors="surrogateescape") as mf:
        for i, rel in enumerate(rels, 1):
            name = os.path.basename(rel)
            pdir = os.path.join(oracle, "parser", name)
            for mod in ("POSIX", "MPI-IO", "STDIO", "DFS", "DAOS"):
                oj = os.path.join(oracle, "accum", name, mod + ".json")
                if not os.path.isfile(oj):
                    continue
                d = os.path.join(mnt, rel, mod)
                if not os.path.isdir(d):
                    sys.exit(f"FAIL: {rel}: the oracle has {mod}, the mount has no {mod} directory")
                nmods += 1
                o = os.path.join(out, f"{i}.{mod}")
                if any(os.path.exists(os.path.join(pdir, k + ".rc")) for k in ("file", "total", "perf")):
                    nskip += 1
                else:
                    copy_out(os.path.join(d, "derived_metrics"), o + ".dm")
                    copy_out(os.path.join(d, "total"), o + ".total")
                    mf.write(f"block\t{pdir}\t{mod}\t{o}.dm\t{o}.total\n")
                    # the log-wide derived_metrics has the same blocks
                    copy_out(os.path.join(mnt, rel, "derived_metrics"), o + ".logdm")
                    mf.write(f"block\t{pdir}\t{mod}\t{o}.logdm\t{o}.total\n")
                for case, expr in case_list(oj):
                    with open(os.path.join(d, "filter"), "w") as f:
                        f.write(expr + "\n")
                    with open(os.path.join(d, "filter")) as f:
                        got = f.read().rstrip("\n")
                    if got != expr:
                        sys.exit(f"FAIL: {rel}/{mod}/filter reads back {got!r}, not {expr!r}")
                    if os.path.getsize(os.path.join(d, "filter.error")):
                        sys.exit(f"FAIL: {rel}/{mod}/filter.error is not empty after a good filter")
                    copy_out(os.path.join(d, "derived_metrics.json"), f"{o}.{case}.json")
                    copy_out(os.path.join(d, "derived_metrics"), f"{o}.{case}.dm")
                    mf.write(f"json\t{oj}\t{case}\t{o}.{case}.json\t{o}.{case}.dm\n")
                    nwrites += 1
                with open(os.path.join(d, "filter"), "w"):
                    pass
    print(f"{nwrites} filters written to {nmods} module directories "
          f"({nskip} modules without a clean darshan-parser run)")
    check(man)


def modules(path, accum):
    import csv
    import os
    nrows = nvals = 0
    errors = []
    for row in csv.DictReader(open(path, newline="")):
        name = os.path.basename(row["log"])
        opath = os.path.join(accum, name, row["module"] + ".json")
        if not os.path.exists(opath):
            continue
        o = json.load(open(opath))
        c = o["cases"]["all"]
        if c["status"] != "ok" or o["n_records_pydarshan"] != o["n_records_in_log"]:
            continue
        dm, cc = c["derived_metrics"], c["derived_metrics"]["category_counters"]
        want = {
            "records": c["n_records"],
            "total_bytes": dm["total_bytes"],
            "bytes_read": cc[0]["total_read_volume_bytes"],
            "bytes_written": cc[0]["total_write_volume_bytes"],
            "total_files": cc[0]["count"], "read_only_files": cc[1]["count"],
            "write_only_files": cc[2]["count"], "read_write_files": cc[3]["count"],
            # darshan-parser's "shared" line: shared + partially shared
            "unique_files": cc[4]["count"],
            "shared_files": cc[5]["count"] + cc[6]["count"],
            "time_by_slowest": dm["agg_time_by_slowest"],
            "perf_by_slowest": dm["agg_perf_by_slowest"],
        }
        for k, v in want.items():
            got = row.get(k)
            try:
                same = (float(got) if isinstance(v, float) else int(got)) == v
            except (TypeError, ValueError):
                same = False
            if not same:
                errors.append(f"{row['log']} {row['module']} {k}: modules.csv {got!r}, darshan-util {v!r}")
            nvals += 1
        if row.get("error"):
            errors.append(f"{row['log']} {row['module']}: error '{row['error']}'")
        nrows += 1
    print(f"{nrows} modules.csv rows, {nvals} values equal to darshan-util's")
    if errors or nrows == 0:
        print(f"FAIL: {len(errors)} differences" + (" (no rows)" if nrows == 0 else ""), file=sys.stderr)
        for e in errors[:30]:
            print("  " + e, file=sys.stderr)
        sys.exit(1)


def jobtable(path, accum):
    import csv
    import os
    nrows = nvals = 0
    errors = []
    for row in csv.DictReader(open(path, newline="")):
        name = os.path.basename(row["log"])
        nrows += 1
        if row["io_time"] and row["run_time"] and float(row["run_time"]) > 0:
            want = float(row["io_time"]) / float(row["run_time"])
            if float(row["io_share"]) != want:
                errors.append(f"{row['log']}: io_share {row['io_share']}, io_time / run_time {want!r}")
        d = os.path.join(accum, name)
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            o = json.load(open(os.path.join(d, f)))
            c = o.get("cases", {}).get("all")
            if not c or c["status"] != "ok" or o["n_records_pydarshan"] != o["n_records_in_log"]:
                continue
            col = re.sub(r"[^a-z0-9]", "", f[:-len(".json")].lower()) + "_bytes"
            if col not in row:
                continue
            cc = c["derived_metrics"]["category_counters"][0]
            want = cc["total_read_volume_bytes"] + cc["total_write_volume_bytes"]
            if row[col] != str(want):
                errors.append(f"{row['log']} {col}: jobs.csv {row[col]!r}, darshan-util {want}")
            nvals += 1
    print(f"{nrows} jobs.csv rows, {nvals} module bytes equal to darshan-util's")
    if errors or nrows == 0 or nvals == 0:
        print(f"FAIL: {len(errors)} differences", file=sys.stderr)
        for e in errors[:30]:
            print("  " + e, file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    if sys.argv[1] == "mount":
        mount(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    elif sys.argv[1] == "modules":
        modules(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "jobtable":
        jobtable(sys.argv[2], sys.argv[3])
    else:
        sys.exit(f"oracle.py: unknown mode {sys.argv[1]}")
