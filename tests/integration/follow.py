#!/usr/bin/env python3
"""follow.py DARSHANFS

LUSTRE, DXT and HEATMAP follow the selection of their files, on every
shared log that has one of them (docs/filter-language.md, "Modules that
follow their files").  One mount of the shared logs; for each filter below,
written into each log's filter (and once into the directory filter of the
mount's root), every module's records.csv is compared with a reference
computed here from the unfiltered records.csv files:

- the modules that have the filter's column select the records whose
  counter passes (`BYTES_READ > 0`: POSIX_BYTES_READ, STDIO_BYTES_READ...);
  the other modules that cannot follow select nothing (UNKNOWN);
- LUSTRE, DXT_POSIX and DXT_MPIIO keep, whole, the records whose record
  id is among the records those modules selected; HEATMAP keeps the
  record of a layer ("heatmap:POSIX") and rank when that layer's module
  selected a record of that rank or a shared one (rank -1);
- with a module filter on LUSTRE too, LUSTRE keeps what both select; with
  one on POSIX, the followers follow what POSIX then shows;
- summary.html's Lustre section counts the files LUSTRE kept, and the
  L_SINGLE_STRIPE insight counts the shared files larger than 1 GiB on one
  stripe among them (sizes from the selected POSIX and STDIO records,
  shared by a selected record of rank -1 of those or of MPI-IO, as the
  insight is documented); both are first checked without a filter.

With DFS_TEST_QUICK=1 (sanitizer builds) the logs whose LUSTRE, DXT and
HEATMAP records.csv hold more than 20000 rows are left out.  Exit 77
without the shared logs or FUSE.
"""
import atexit, csv, glob, io, os, re, subprocess, sys, tempfile, time

DFS = os.path.abspath(sys.argv[1])
SHARED = os.environ.get("DFS_SHARED") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared")
LOGDIR = os.path.join(SHARED, "darshan-logs")
LOGS = sorted(glob.glob(os.path.join(LOGDIR, "*.darshan")))
if not LOGS:
    print("SKIP: no shared logs in %s (set DFS_SHARED)" % SHARED)
    sys.exit(77)
if not os.path.exists("/dev/fuse"):
    print("SKIP: /dev/fuse is missing")
    sys.exit(77)

QUICK = os.environ.get("DFS_TEST_QUICK") == "1"
FOLLOWERS = {"LUSTRE", "DXT_POSIX", "DXT_MPIIO", "HEATMAP"}
# (filter, the counter it tests without a prefix)
FILTERS = [("BYTES_READ > 0", "BYTES_READ"), ("bytes_written > 0", "BYTES_WRITTEN")]
LARGE = 1073741824   # L_SINGLE_STRIPE's default threshold


def mounted(mnt):
    with open("/proc/mounts") as f:
        return any(line.split()[1] == mnt for line in f)


def mount():
    tmp = tempfile.mkdtemp(prefix="dfs-follow.")
    mnt = os.path.join(tmp, "mnt")
    os.mkdir(mnt)
    log = open(os.path.join(tmp, "darshanfs.log"), "w")
    proc = subprocess.Popen([DFS, "-f", LOGDIR, mnt], stdin=subprocess.DEVNULL,
                            stdout=log, stderr=log)

    def done():
        if mounted(mnt):
            subprocess.run(["fusermount3", "-u", mnt], timeout=30)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        os.rmdir(mnt)
        log.close()
        os.unlink(log.name)
        os.rmdir(tmp)
    atexit.register(done)
    for _ in range(200):
        if mounted(mnt):
            return mnt
        if proc.poll() is not None:
            sys.exit("FAIL: darshanfs exited with %d before mounting" % proc.returncode)
        time.sleep(0.05)
    sys.exit("FAIL: darshanfs did not mount within 10 s")


def write(path, text):
    fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
    try:
        os.write(fd, (text + "\n").encode())
    finally:
        os.close(fd)


def read(path):
    with open(path, "rb") as f:
        return f.read().decode("utf-8", "surrogateescape")


def table(text):
    rows = list(csv.reader(io.StringIO(text)))
    return rows[0], rows[1:]


def groups(rows):
    """records: runs of rows of the same (record_id, rank)"""
    out = []
    for k, r in enumerate(rows):
        if out and rows[out[-1][0]][:2] == r[:2]:
            out[-1].append(k)
        else:
            out.append([k])
    return out


def prefix(mod):
    return {"DXT_POSIX": "DXT_", "DXT_MPIIO": "DXT_"}.get(mod, mod.replace("-", "") + "_")


def num(s):
    try:
        return float(s)
    except ValueError:
        return None


class Log:
    def __init__(self, d):
        self.d = d
        self.mods = sorted(e.name for e in os.scandir(d)
                           if e.is_dir() and e.name != "summary")
        self.t, self.lines = {}, {}
        for m in self.mods:
            text = read(os.path.join(d, m, "records.csv"))
            self.t[m] = table(text)
            # a line a row (no cell spans lines): a selection's text is
            # its rows' lines
            lines = text.split("\n") if "\r" not in text else None
            if lines and len(lines) == len(self.t[m][1]) + 2 and lines[-1] == "":
                self.lines[m] = lines

    def selected(self, mod, counter):
        """the rows of mod the filter `counter > 0` selects, or None when
        the module lacks the counter"""
        header, rows = self.t[mod]
        col = prefix(mod) + counter
        if col not in header:
            return None
        i = header.index(col)
        out = []
        for g in groups(rows):
            if any((num(rows[k][i]) or 0) > 0 for k in g):
                out.extend(g)
        return out

    def reference(self, counter, lustre_rows=None, posix_rows=None):
        """the rows of every module the filter selects (and the filters of
        LUSTRE and POSIX, as the rows they keep)"""
        sel = {m: self.selected(m, counter) for m in self.mods}
        if posix_rows is not None and sel.get("POSIX") is not None:
            sel["POSIX"] = [k for k in sel["POSIX"] if k in posix_rows]
        leaders = [m for m in self.mods if sel[m] is not None]
        ids = {self.t[m][1][k][0] for m in leaders for k in sel[m]}
        out = {}
        for m in self.mods:
            header, rows = self.t[m]
            if sel[m] is not None:
                out[m] = sel[m]
            elif m == "HEATMAP":
                # the ranks each leading layer selected
                ranks = {x.replace("-", ""): {self.t[x][1][k][1] for k in sel[x]}
                         for x in leaders}
                name = header.index("file_name")
                out[m] = []
                for g in groups(rows):
                    r = rows[g[0]]
                    layer = r[name][len("heatmap:"):] if r[name].startswith("heatmap:") else None
                    got = ranks.get(layer, ())
                    if "-1" in got or r[1] in got:
                        out[m].extend(g)
            elif m in FOLLOWERS:
                out[m] = [k for g in groups(rows) if rows[g[0]][0] in ids for k in g]
            else:
                out[m] = []   # UNKNOWN everywhere
        if lustre_rows is not None and "LUSTRE" in out:
            out["LUSTRE"] = [k for k in out["LUSTRE"] if k in lustre_rows]
        return out

    def lustre_facts(self, sel):
        """(files on Lustre, single-stripe shared files > 1 GiB, the
        largest) of the rows sel[m] of each module"""
        if "LUSTRE" not in sel:
            return None
        files = {}
        size_mods = ["POSIX", "STDIO"] if "POSIX" in self.mods else [
            m for m in self.mods if m not in ("MPI-IO", "H5D", "PNETCDF_VAR")]
        for m in size_mods:
            if m not in self.t or m in FOLLOWERS:
                continue
            header, rows = self.t[m]
            p = prefix(m)
            if p + "MAX_BYTE_READ" not in header:
                continue
            c = [header.index(p + x) for x in ("MAX_BYTE_READ", "MAX_BYTE_WRITTEN",
                                                "BYTES_READ", "BYTES_WRITTEN")]
            for k in sel[m]:
                r = rows[k]
                f = files.setdefault(r[0], [0.0, 0.0, False])
                f[0] = max(f[0], max(num(r[c[0]]), num(r[c[1]])) + 1)
                f[1] += num(r[c[2]]) + num(r[c[3]])
                f[2] = f[2] or int(r[1]) < 0
        # (a file MPI-IO shares is shared, whatever POSIX's records say)
        if "MPI-IO" in self.t and "MPI-IO" in sel:
            header, rows = self.t["MPI-IO"]
            for k in sel["MPI-IO"]:
                r = rows[k]
                if int(r[1]) < 0 and r[0] in files:
                    files[r[0]][2] = True
        header, rows = self.t["LUSTRE"]
        count = header.index("LUSTRE_COMP_STRIPE_COUNT")
        seen, large, largest = set(), 0, 0.0
        for g in groups([rows[k] for k in sel["LUSTRE"]]):
            r = rows[sel["LUSTRE"][g[0]]]
            if r[0] in seen:
                continue
            seen.add(r[0])
            f = files.get(r[0])
            size = (f[0] if f[0] > 0 else f[1]) if f else 0
            if num(r[count]) <= 1 and f and f[2] and size > LARGE:
                large += 1
                largest = max(largest, size)
        return len(seen), large, largest


def summary_facts(d):
    html = read(os.path.join(d, "summary.html"))
    m = re.search(r"<p>(\d+) files? on Lustre", html)
    ins = [r for r in csv.reader(io.StringIO(read(os.path.join(d, "insights.csv"))))
           if r and r[0] == "L_SINGLE_STRIPE"]
    return (int(m.group(1)) if m else 0,
            int(float(ins[0][6])) if ins else 0,
            float(ins[0][4]) if ins else 0.0)


def compare(name, log, want, what, mods=FOLLOWERS):
    """the followers' records.csv (or those of mods) against the reference
    (the others' selections are the filter language's, filter_diff.py
    tests them)"""
    bad = 0
    for m in sorted(mods & set(log.mods)):
        header, rows = log.t[m]
        text = read(os.path.join(log.d, m, "records.csv"))
        lines = log.lines.get(m)
        if lines and text == "\n".join([lines[0]] + [lines[k + 1] for k in want[m]] + [""]):
            continue   # the same text: no need to parse it
        got = table(text)[1]
        exp = [rows[k] for k in want[m]]
        if got != exp:
            print("FAIL %s %s with %s: %d rows, expected %d" % (name, m, what,
                  len(got), len(exp)))
            for r in [r for r in got if r not in exp][:2]:
                print("  only darshanfs:", ",".join(r)[:200])
            for r in [r for r in exp if r not in got][:2]:
                print("  only expected:", ",".join(r)[:200])
            bad += 1
    return bad


def main():
    mnt = mount()
    bad = checked = 0
    logs = {}
    for path in LOGS:
        name = os.path.basename(path)
        d = os.path.join(mnt, name)
        if os.path.exists(os.path.join(d, "ERROR")):
            continue
        mods = {e.name for e in os.scandir(d) if e.is_dir()}
        if mods & FOLLOWERS:
            log = Log(d)
            if QUICK and sum(len(log.t[m][1]) for m in mods & FOLLOWERS) > 20000:
                continue
            logs[name] = log
    lustre_ok = set()
    for name, log in logs.items():
        every = {m: list(range(len(log.t[m][1]))) for m in log.mods}
        facts = log.lustre_facts(every)
        if facts is None:
            continue
        got = summary_facts(log.d)
        if got[0] != facts[0]:
            # (not a file a record: the reference's count does not apply)
            continue
        lustre_ok.add(name)
        if got != facts:
            print("FAIL %s unfiltered: Lustre files, L_SINGLE_STRIPE count and "
                  "largest %s, expected %s" % (name, got, facts))
            bad += 1
    for text, counter in FILTERS:
        for name, log in logs.items():
            write(os.path.join(log.d, "filter"), text)
            want = log.reference(counter)
            bad += compare(name, log, want, "filter %r" % text)
            checked += 1
            if name in lustre_ok:
                got, exp = summary_facts(log.d), log.lustre_facts(want)
                if got != exp:
                    print("FAIL %s with %r: Lustre files, L_SINGLE_STRIPE count and "
                          "largest %s, expected %s" % (name, text, got, exp))
                    bad += 1
            if "LUSTRE" in log.mods:
                # a LUSTRE filter too: both hold
                lf = "LUSTRE_COMP_STRIPE_COUNT == 1"
                write(os.path.join(log.d, "LUSTRE", "filter"), lf)
                header, rows = log.t["LUSTRE"]
                c = header.index("LUSTRE_COMP_STRIPE_COUNT")
                one = {k for g in groups(rows) if any(rows[j][c] == "1" for j in g)
                       for k in g}
                bad += compare(name, log, log.reference(counter, one),
                               "filter %r and LUSTRE/filter %r" % (text, lf),
                               {"LUSTRE"})
                write(os.path.join(log.d, "LUSTRE", "filter"), "")
            if "POSIX" in log.mods:
                # a leader's own filter: the followers follow what it shows
                pf = "rank >= 0"
                write(os.path.join(log.d, "POSIX", "filter"), pf)
                ranked = {k for k, r in enumerate(log.t["POSIX"][1]) if int(r[1]) >= 0}
                bad += compare(name, log, log.reference(counter, posix_rows=ranked),
                               "filter %r and POSIX/filter %r" % (text, pf))
                write(os.path.join(log.d, "POSIX", "filter"), "")
            write(os.path.join(log.d, "filter"), "")
    # a directory filter follows the same rule, in every log below it
    text, counter = FILTERS[0]
    write(os.path.join(mnt, "filter"), text)
    for name, log in logs.items():
        bad += compare(name, log, log.reference(counter), "directory filter %r" % text)
    write(os.path.join(mnt, "filter"), "")
    print("follow: %d logs with LUSTRE, DXT or HEATMAP, %d filters each "
          "(%d with summary facts): %d differ" % (len(logs), len(FILTERS),
                                                 len(lustre_ok), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
