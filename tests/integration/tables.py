#!/usr/bin/env python3
"""tables.py - MODULE/files.csv, MODULE/ranks.csv and a directory's
files.csv of a mount, checked:

  oracle MNT ORACLE LOG...   every log's POSIX, MPI-IO, STDIO and DFS
      files.csv against PyDarshan file_stats (ORACLE/file_stats/<log>/
      <MODULE>.csv): each file's bytes, operations, time_by_slowest and
      perf_by_slowest (ours MiB/s, theirs bytes/s), exact; records that
      share a file name compare as a multiset.
  records MNT LOG...         every module's files.csv and ranks.csv of
      every log against what this script computes from the module's
      records.csv (an evaluator of the documented rules of its own:
      sums in record order, each file's slowest rank as darshan-util's
      accumulator picks it), for the selection records.csv shows.
  dir MNT DIR                DIR/files.csv against the files.csv of every
      log below DIR (in jobs.csv's order), merged by (module, file name).

Exit status 0 when everything agrees, 1 with the differences on stderr.
"""
import csv
import math
import os
import sys

# the counters behind each column (docs/tables.md)
ROLES = {
    "POSIX": ("POSIX_BYTES_READ", "POSIX_BYTES_WRITTEN", ["POSIX_READS"], ["POSIX_WRITES"], "POSIX_"),
    "MPI-IO": ("MPIIO_BYTES_READ", "MPIIO_BYTES_WRITTEN", ["MPIIO_INDEP_READS", "MPIIO_COLL_READS"],
               ["MPIIO_INDEP_WRITES", "MPIIO_COLL_WRITES"], "MPIIO_"),
    "STDIO": ("STDIO_BYTES_READ", "STDIO_BYTES_WRITTEN", ["STDIO_READS"], ["STDIO_WRITES"], "STDIO_"),
    "H5F": (None, None, [], [], "H5F_"),
    "H5D": ("H5D_BYTES_READ", "H5D_BYTES_WRITTEN", ["H5D_READS"], ["H5D_WRITES"], "H5D_"),
    "PNETCDF_FILE": ("PNETCDF_FILE_BYTES_READ", "PNETCDF_FILE_BYTES_WRITTEN", [], [], "PNETCDF_FILE_"),
    "PNETCDF_VAR": ("PNETCDF_VAR_BYTES_READ", "PNETCDF_VAR_BYTES_WRITTEN",
                    ["PNETCDF_VAR_INDEP_READS", "PNETCDF_VAR_COLL_READS"],
                    ["PNETCDF_VAR_INDEP_WRITES", "PNETCDF_VAR_COLL_WRITES"], "PNETCDF_VAR_"),
    "DFS": ("DFS_BYTES_READ", "DFS_BYTES_WRITTEN", ["DFS_READS"], ["DFS_WRITES"], "DFS_"),
    "DAOS": ("DAOS_BYTES_READ", "DAOS_BYTES_WRITTEN",
             ["DAOS_OBJ_FETCHES", "DAOS_ARRAY_READS", "DAOS_KV_GETS"],
             ["DAOS_OBJ_UPDATES", "DAOS_ARRAY_WRITES", "DAOS_KV_PUTS"], "DAOS_"),
}
TIMED = {"POSIX", "MPI-IO", "STDIO", "DFS", "DAOS"}
MASK = (1 << 64) - 1

errors = []


def err(msg):
    errors.append(msg)
    if len(errors) <= 30:
        print("tables.py: " + msg, file=sys.stderr)


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def wrap(v):
    """a sum of int64 counters as the C code wraps it"""
    v &= MASK
    return v - (1 << 64) if v >> 63 else v


def fnum(s):
    return float(s)


def same_float(a, b):
    return a == b or (math.isnan(a) and math.isnan(b))


# ---- oracle ---------------------------------------------------------------

def check_oracle(mnt, oracle, logs):
    compared = files = 0
    for rel in logs:
        name = os.path.basename(rel)
        for mod in ("POSIX", "MPI-IO", "STDIO", "DFS"):
            ref = os.path.join(oracle, "file_stats", name, mod + ".csv")
            ours_path = os.path.join(mnt, rel, mod, "files.csv")
            if not os.path.exists(ref):
                # no records: the module is absent, or its table empty
                if os.path.exists(ours_path) and rows(ours_path):
                    skipped = ref + ".skipped"
                    why = open(skipped).read().strip() if os.path.exists(skipped) else "absent"
                    err("%s %s: files.csv has rows, the oracle has none (%s)" % (rel, mod, why))
                continue
            want, got = {}, {}
            for r in rows(ref):
                want.setdefault(r["file"], []).append((
                    int(r["bytes_read"]), int(r["bytes_written"]), int(r["reads"]),
                    int(r["writes"]), int(r["total_bytes"]), fnum(r["time_by_slowest"]),
                    fnum(r["perf_by_slowest"])))
            for r in rows(ours_path):
                got.setdefault(r["file_name"], []).append((
                    int(r["bytes_read"]), int(r["bytes_written"]), int(r["reads"]),
                    int(r["writes"]), int(r["total_bytes"]), fnum(r["time_by_slowest"]),
                    fnum(r["perf_by_slowest"]) * 1048576.0))
            if set(want) != set(got):
                err("%s %s: file names differ: only the oracle's %s, only ours %s" % (
                    rel, mod, sorted(set(want) - set(got))[:3], sorted(set(got) - set(want))[:3]))
                continue
            for fname in want:
                if sorted(want[fname]) != sorted(got[fname]):
                    err("%s %s %s: oracle %s, ours %s" % (rel, mod, fname, sorted(want[fname]),
                                                          sorted(got[fname])))
                files += len(want[fname])
            compared += 1
    print("oracle: %d (log, module) tables, %d files equal PyDarshan file_stats" % (compared, files))


# ---- records.csv -> files.csv, ranks.csv ------------------------------------

def table_of(records, mod, nprocs):
    """files.csv and ranks.csv rows (as dicts of numbers) from records.csv rows"""
    br, bw, rd, wr, pre = ROLES[mod]
    files, order, ranks = {}, [], {}
    for r in records:
        rid, rank = int(r["record_id"]), int(r["rank"])
        g = lambda c: int(r[c]) if c else 0
        f = lambda c: float(r[pre + c])
        nb_r, nb_w = g(br), g(bw)
        n_r = sum(int(r[c]) for c in rd)
        n_w = sum(int(r[c]) for c in wr)
        rt = f("F_READ_TIME") if pre + "F_READ_TIME" in r else 0.0
        wt = f("F_WRITE_TIME") if pre + "F_WRITE_TIME" in r else 0.0
        mt = f("F_META_TIME")
        op, cl = f("F_OPEN_START_TIMESTAMP"), f("F_CLOSE_END_TIMESTAMP")
        x = files.get(rid)
        if x is None:
            x = files[rid] = dict(file_name=r["file_name"], mount_pt=r["mount_pt"],
                                  fs_type=r["fs_type"], records=0, ranks=set(), shared=False,
                                  bytes_read=0, bytes_written=0, reads=0, writes=0,
                                  read_time=0.0, write_time=0.0, meta_time=0.0,
                                  first_open=0.0, last_close=0.0, pair={}, shared_time=0.0)
            order.append(rid)
        x["records"] += 1
        x["bytes_read"] += nb_r
        x["bytes_written"] += nb_w
        x["reads"] += n_r
        x["writes"] += n_w
        x["read_time"] += rt
        x["write_time"] += wt
        x["meta_time"] += mt
        if op > 0 and (x["first_open"] == 0 or op < x["first_open"]):
            x["first_open"] = op
        if cl > x["last_close"]:
            x["last_close"] = cl
        if rank < 0:
            x["shared"] = True
            if mod in TIMED:
                x["shared_time"] += f("F_SLOWEST_RANK_TIME")
        else:
            x["ranks"].add(rank)
            if rank < nprocs:
                x["pair"][rank] = x["pair"].get(rank, 0.0) + (mt + rt + wt)
        y = ranks.setdefault(rank, dict(records=0, files=set(), bytes_read=0, bytes_written=0,
                                        reads=0, writes=0, read_time=0.0, write_time=0.0,
                                        meta_time=0.0, io_time=0.0))
        y["records"] += 1
        y["files"].add(rid)
        y["bytes_read"] += nb_r
        y["bytes_written"] += nb_w
        y["reads"] += n_r
        y["writes"] += n_w
        y["read_time"] += rt
        y["write_time"] += wt
        y["meta_time"] += mt
        y["io_time"] += mt + rt + wt
    out = []
    for rid in order:
        x = files[rid]
        best, best_rank = 0.0, None
        for rank, t in x["pair"].items():
            if t > best or (best_rank is not None and t == best and rank < best_rank):
                best, best_rank = t, rank
        tbs = best + x["shared_time"]
        tb = wrap(x["bytes_read"] + x["bytes_written"])
        out.append(dict(record_id=rid, file_name=x["file_name"], mount_pt=x["mount_pt"],
                        fs_type=x["fs_type"], records=x["records"],
                        ranks=nprocs if x["shared"] else len(x["ranks"]),
                        bytes_read=wrap(x["bytes_read"]), bytes_written=wrap(x["bytes_written"]),
                        reads=wrap(x["reads"]), writes=wrap(x["writes"]), total_bytes=tb,
                        time_by_slowest=tbs if mod in TIMED else None,
                        perf_by_slowest=(tb / 1048576.0 / tbs if tbs != 0 else 0.0) if mod in TIMED else None,
                        read_time=x["read_time"], write_time=x["write_time"],
                        meta_time=x["meta_time"], first_open=x["first_open"],
                        last_close=x["last_close"]))
    # most bytes first, ties in the order first seen (a stable sort)
    out.sort(key=lambda d: -d["total_bytes"])
    # (a rank outside the job has no share, and is not the slowest)
    inside = (lambda k: 0 <= k < nprocs) if nprocs > 0 else (lambda k: k >= 0)
    slowest = max([y["io_time"] for k, y in ranks.items() if inside(k)] + [0.0])
    rk = []
    for rank in sorted(ranks):
        y = ranks[rank]
        rk.append(dict(rank=rank, records=y["records"], files=len(y["files"]),
                       bytes_read=wrap(y["bytes_read"]), bytes_written=wrap(y["bytes_written"]),
                       reads=wrap(y["reads"]), writes=wrap(y["writes"]), read_time=y["read_time"],
                       write_time=y["write_time"], meta_time=y["meta_time"], io_time=y["io_time"],
                       slowest_share=None if not inside(rank) else
                       (y["io_time"] / slowest if slowest > 0 else 0.0)))
    return out, rk


def compare(where, want, got, cols):
    if len(want) != len(got):
        err("%s: %d rows, expected %d" % (where, len(got), len(want)))
        return False
    for i, (w, g) in enumerate(zip(want, got)):
        for c in cols:
            wv, gv = w[c], g[c]
            if wv is None:
                ok = gv == ""
            elif isinstance(wv, float):
                ok = gv != "" and same_float(wv, float(gv))
            elif isinstance(wv, int):
                ok = gv != "" and int(gv) == wv
            else:
                ok = gv == wv
            if not ok:
                err("%s row %d (%s) %s: %r, expected %r" % (where, i + 1, g.get("file_name", g.get("rank")),
                                                          c, gv, wv))
                return False
    return True


FILE_COLS = ["record_id", "file_name", "ranks", "records", "bytes_read", "bytes_written", "reads",
             "writes", "total_bytes", "time_by_slowest", "perf_by_slowest", "read_time",
             "write_time", "meta_time", "first_open", "last_close", "mount_pt", "fs_type"]
RANK_COLS = ["rank", "records", "files", "bytes_read", "bytes_written", "reads", "writes",
             "read_time", "write_time", "meta_time", "io_time", "slowest_share"]


def nprocs_of(logdir):
    for line in open(os.path.join(logdir, "header.txt")):
        if line.startswith("# nprocs:"):
            return int(line.split(":")[1])
    raise SystemExit("no nprocs in %s/header.txt" % logdir)


def check_records(mnt, logs):
    tables = 0
    for rel in logs:
        logdir = os.path.join(mnt, rel)
        nprocs = nprocs_of(logdir)
        for mod in ROLES:
            d = os.path.join(logdir, mod.replace("/", ""))
            if not os.path.isdir(d):
                continue
            try:
                recs = rows(os.path.join(d, "records.csv"))
            except OSError as e:
                # a module that cannot be read: its tables fail alike
                for t in ("files.csv", "ranks.csv"):
                    try:
                        open(os.path.join(d, t)).read()
                        err("%s/%s/%s reads, records.csv fails (%s)" % (rel, mod, t, e))
                    except OSError:
                        pass
                continue
            want_f, want_r = table_of(recs, mod, nprocs)
            got_f = rows(os.path.join(d, "files.csv"))
            got_r = rows(os.path.join(d, "ranks.csv"))
            compare("%s/%s/files.csv" % (rel, mod), want_f, got_f, FILE_COLS)
            compare("%s/%s/ranks.csv" % (rel, mod), want_r, got_r, RANK_COLS)
            tables += 1
    print("records: %d modules' files.csv and ranks.csv equal their records.csv's" % tables)


# ---- a directory's files.csv ---------------------------------------------------

def check_dir(mnt, d):
    base = os.path.join(mnt, d)
    logs = []
    for r in rows(os.path.join(base, "jobs.csv")):
        if not logs or logs[-1][0] != r["log"]:
            # what the job's processes had (0: not known), the bound of a
            # plausible time
            nprocs = int(r["nprocs"]) if r["nprocs"] else 0
            run = float(r["run_time"]) if r["run_time"] else 0.0
            most = float(nprocs) * run if nprocs > 0 and run > 0 else 0.0
            logs.append((r["log"], r["start_time"], r["error"], most))
    merged, order, skipped = {}, [], []
    for rel, start, error, most in logs:
        logdir = os.path.join(base, rel)
        if error and not os.path.isdir(os.path.join(logdir)):
            skipped.append(("", rel))
            continue
        for mod in ROLES:
            md = os.path.join(logdir, mod)
            if not os.path.isdir(md):
                continue
            try:
                fr = rows(os.path.join(md, "files.csv"))
            except OSError:
                skipped.append((mod, rel))
                continue
            per = {}
            porder = []
            for r in fr:
                k = r["file_name"]
                if k not in per:
                    per[k] = dict(bytes_read=0, bytes_written=0, reads=0, writes=0, total_bytes=0,
                                  time_by_slowest=0.0, read_time=0.0, write_time=0.0,
                                  meta_time=0.0, mount_pt=r["mount_pt"], fs_type=r["fs_type"],
                                  left_out=0)
                    porder.append(k)
                p = per[k]
                # what no run can have measured (bytes below 0; a time not
                # finite, below -1 ns, above nprocs x run time) is left out
                # of the sums, and counted
                ok = {c: int(r[c]) >= 0 for c in ("bytes_read", "bytes_written")}
                ok["total_bytes"] = ok["bytes_read"] and ok["bytes_written"]
                ok["reads"] = ok["writes"] = True
                for c in ("bytes_read", "bytes_written", "reads", "writes", "total_bytes"):
                    if ok[c]:
                        p[c] = wrap(p[c] + int(r[c]))
                    else:
                        p["left_out"] += 1
                for c in (("time_by_slowest",) if mod in TIMED else ()) + (
                        "read_time", "write_time", "meta_time"):
                    t = float(r[c])
                    if math.isfinite(t) and t > -1e-9 and not (most > 0 and t > most):
                        p[c] += t
                    else:
                        p["left_out"] += 1
            for k in porder:
                p = per[k]
                key = (mod, k)
                m = merged.get(key)
                if m is None:
                    m = merged[key] = dict(module=mod, file_name=k, jobs=0, bytes_read=0,
                                           bytes_written=0, reads=0, writes=0, total_bytes=0,
                                           time_by_slowest=0.0, read_time=0.0, write_time=0.0,
                                           meta_time=0.0, first=(rel, int(start)),
                                           last=(rel, int(start)), mount_pt=p["mount_pt"],
                                           fs_type=p["fs_type"], left_out=0)
                    order.append(key)
                m["jobs"] += 1
                for c in ("bytes_read", "bytes_written", "reads", "writes", "total_bytes"):
                    m[c] = wrap(m[c] + p[c])
                for c in ("time_by_slowest", "read_time", "write_time", "meta_time"):
                    m[c] += p[c]
                m["left_out"] += p["left_out"]
                if int(start) < m["first"][1]:
                    m["first"] = (rel, int(start))
                if int(start) >= m["last"][1]:
                    m["last"] = (rel, int(start))
    want = []
    for key in order:
        m = merged[key]
        timed = m["module"] in TIMED
        t = m["time_by_slowest"]
        want.append(dict(module=m["module"], file_name=m["file_name"], jobs=m["jobs"],
                         bytes_read=m["bytes_read"], bytes_written=m["bytes_written"],
                         reads=m["reads"], writes=m["writes"], total_bytes=m["total_bytes"],
                         time_by_slowest=t if timed else None,
                         perf_by_slowest=(m["total_bytes"] / 1048576.0 / t if t != 0 else 0.0) if timed else None,
                         read_time=m["read_time"], write_time=m["write_time"],
                         meta_time=m["meta_time"], first_job=m["first"][0],
                         first_start=m["first"][1], last_job=m["last"][0], last_start=m["last"][1],
                         mount_pt=m["mount_pt"], fs_type=m["fs_type"], error="",
                         left_out=m["left_out"]))
    want.sort(key=lambda d: -d["total_bytes"])
    got = rows(os.path.join(base, "files.csv"))
    got_files = [g for g in got if g["file_name"] != "" or g["error"] == ""]
    got_skips = [(g["module"], g["first_job"]) for g in got if g["error"] != ""]
    cols = ["module", "file_name", "jobs", "bytes_read", "bytes_written", "reads", "writes",
            "total_bytes", "time_by_slowest", "perf_by_slowest", "read_time", "write_time",
            "meta_time", "first_job", "first_start", "last_job", "last_start", "mount_pt",
            "fs_type", "error", "left_out"]
    compare("%s/files.csv" % (d or "."), want, got_files, cols)
    if sorted(got_skips) != sorted(skipped):
        err("%s/files.csv: logs left out %s, expected %s" % (d or ".", got_skips, skipped))
    print("dir: %s/files.csv: %d files of %d logs (%d left out) equal the logs' files.csv" % (
        d or ".", len(want), len(logs), len(skipped)))


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    what, mnt = sys.argv[1], sys.argv[2]
    if what == "oracle":
        check_oracle(mnt, sys.argv[3], sys.argv[4:])
    elif what == "records":
        check_records(mnt, sys.argv[3:])
    elif what == "dir":
        for d in sys.argv[3:]:
            check_dir(mnt, d)
    else:
        raise SystemExit(__doc__)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
