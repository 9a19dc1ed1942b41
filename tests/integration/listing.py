"""listing.py - parse `ls -R` output and compare it with the expected tree.

    python3 listing.py parse LSR_OUTPUT ROOT      -> prints "d PATH" / "f PATH" lines
Paths are relative to ROOT (the mount point that `ls -R` was given).  A name
is a directory when `ls -R` printed a section for it."""
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


if __name__ == "__main__":
    if sys.argv[1] == "parse":
        for line in parse(sys.argv[2], sys.argv[3]):
            print(line)
