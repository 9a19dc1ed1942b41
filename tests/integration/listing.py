"""listing.py - the tree a listing shows, and checks of it, in one process.

    python3 listing.py parse LSR_OUTPUT ROOT
        parse `ls -R ROOT` output; prints "d PATH" / "f PATH" lines, sorted.
        Paths are relative to ROOT; a name is a directory when `ls -R`
        printed a section for it.
    python3 listing.py expected LIST
        the same lines from `darshanfs-cat --list --recursive` output
        (one relative path a line, directories ending in '/').
    python3 listing.py logs EXPECTED MOUNT LOGREL...
        for every log directory LOGREL: it is a directory of EXPECTED with
        header.txt, mounts.csv, names.csv, filter and filter.error; its
        module directories are the regions its header.txt (read through
        MOUNT) lists (BG/Q as BGQ, APXC not decoded), each with
        records.csv, filter and filter.error.  Prints "LOGS MODULES".
    python3 listing.py bigtree DEST N LOG...
        N hard links to the LOGs of at most 200 kB, in turn, below DEST
        (7 years x 12 months x 28 days, job%05d_NAME.darshan).
"""
import os
import re
import shutil
import sys


def parse(path, root):
    dirs, entries = set(), []
    cur = None
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            line = line.rstrip("\n")
            if cur is None or (line.endswith(":") and line[:-1].startswith(root)):
                if line.endswith(":") and line[:-1].startswith(root):
                    cur = line[:-1][len(root):].lstrip("/")
                    dirs.add(cur)
                    continue
            if line == "":
                continue
            entries.append(cur + "/" + line if cur else line)
    out = []
    for e in entries:
        out.append(("d " if e in dirs else "f ") + e)
    return sorted(out)


def expected(path):
    out = []
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            line = line.rstrip("\n")
            if line:
                out.append(("d " + line[:-1]) if line.endswith("/") else ("f " + line))
    return sorted(out)


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


MODULE_LINE = re.compile(r"^# (.*) module: ", re.M)


def logs(exp_path, mount, rels):
    with open(exp_path, encoding="utf-8", errors="surrogateescape") as f:
        exp = set(line.rstrip("\n") for line in f)
    children = {}
    for e in exp:
        kind, p = e[0], e[2:]
        parent, _, name = p.rpartition("/")
        children.setdefault(parent, {})[name] = kind
    nmod = 0
    for rel in rels:
        if f"d {rel}" not in exp:
            fail(f"{rel} is not a directory for darshanfs-cat --list")
        kids = children.get(rel, {})
        for name in ("header.txt", "mounts.csv", "names.csv", "filter", "filter.error"):
            if kids.get(name) != "f":
                fail(f"{rel}/{name} is missing")
        with open(os.path.join(mount, rel, "header.txt"), encoding="utf-8",
                  errors="surrogateescape") as f:
            hdr = f.read()
        want = sorted(m.replace("BG/Q", "BGQ") for m in MODULE_LINE.findall(hdr)
                      if m != "APXC")
        got = sorted(n for n, k in kids.items() if k == "d" and n != "summary")
        if want != got:
            fail(f"{rel}: module directories {got} differ from the header's regions {want}")
        for m in got:
            nmod += 1
            mk = children.get(f"{rel}/{m}", {})
            for name in ("records.csv", "filter", "filter.error"):
                if mk.get(name) != "f":
                    fail(f"{rel}/{m}/{name} is missing")
    print(len(rels), nmod)


def bigtree(dest, n, logs):
    small = [f for f in logs if os.stat(f).st_size <= 200_000]
    made = set()
    for i in range(n):
        f = small[i % len(small)]
        d = os.path.join(dest, str(2020 + i % 7), "%02d" % (i // 7 % 12 + 1),
                         "%02d" % (i // 84 % 28 + 1))
        if d not in made:
            os.makedirs(d, exist_ok=True)
            made.add(d)
        base = os.path.basename(f)[:-len(".darshan")]
        dst = os.path.join(d, "job%05d_%s.darshan" % (i, base))
        try:
            os.link(f, dst)
        except OSError:         # another file system: a copy
            shutil.copyfile(f, dst)


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "parse":
        print("\n".join(parse(sys.argv[2], sys.argv[3])))
    elif mode == "expected":
        print("\n".join(expected(sys.argv[2])))
    elif mode == "logs":
        logs(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif mode == "bigtree":
        bigtree(sys.argv[2], int(sys.argv[3]), sys.argv[4:])
    else:
        sys.exit(f"listing.py: unknown mode {mode}")
