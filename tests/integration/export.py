#!/usr/bin/env python3
"""filtered.darshan against its source log, through a mount (export.sh).

    export.py damage SRC DST
        DST = SRC with its DXT_POSIX region overwritten (it no longer
        inflates), for the damaged-module checks.
    export.py mount MNT SRC CAT OUT REL...
        For every log REL (SRC/REL mounted at MNT/REL), read by this one
        process:
        - unfiltered: MNT/REL/filtered.darshan is read whole; the output of
          `darshanfs-cat --parser all` (what darshan-parser --all prints;
          the oracle tests keep it honest) of it equals the original's,
          except the lines giving compressed region sizes.  (A copy that
          is byte for byte the source gives that output without running
          it again: that is counted.)
        - with a filter `rank == R` (or `record_id == ID` when all records
          have one rank) written into the filter of the module with the
          most darshan-parser record lines (R, ID those of its first
          record): the same output holds every other module's block
          unchanged, the header, mount table and metadata unchanged but
          for one line `# metadata: darshanfs_filter_<MODULE> = <filter>`,
          and in the filtered module's block the same description and
          warnings and exactly the original record lines the filter
          selects.
        Each filtered copy is left in OUT/<index>.darshan.  With
        DFS_TEST_QUICK=1 (sanitizer builds) only every fourth log (and the
        big-endian 3.1.8 one) is filtered.
"""
import concurrent.futures
import os
import struct
import subprocess
import sys

BANNER = "# " + "*" * 55


def parser_lines(cat, path):
    """darshan-parser --all's output: stdout, then its stderr lines (the
    warnings about modules it skips) marked "stderr: "."""
    p = subprocess.run([cat, "--parser", "all", path], capture_output=True,
                       check=True)
    err = p.stderr.decode("utf-8", "surrogateescape").split("\n")
    return (p.stdout.decode("utf-8", "surrogateescape").split("\n") +
            ["stderr: " + l for l in err if l])


def split_blocks(lines):
    """Header part (and the stderr lines), then [(module name, lines)] per
    module block."""
    head, blocks, i = [], [], 0
    while i < len(lines):
        if (lines[i] == BANNER and i + 1 < len(lines) and
                lines[i + 1].endswith(" module data")):
            name = lines[i + 1][2:-len(" module data")]
            blocks.append((name, []))
        if blocks and not lines[i].startswith("stderr: "):
            blocks[-1][1].append(lines[i])
        else:
            head.append(lines[i])
        i += 1
    return head, blocks


def is_size_line(line):
    return line.endswith("bytes (compressed)") or " bytes (compressed), ver=" in line


def record_lines(name, lines):
    return [l for l in lines if l.startswith(name + "\t")]


def dirname_of(name):
    return {"BG/Q": "BGQ"}.get(name, name)


def first_record(lines, name):
    for k, l in enumerate(lines):
        if l.startswith(name + "\t"):
            return k
    return len(lines)


def check_unfiltered(mnt, src, cat, rel, need_parser):
    data = open(os.path.join(mnt, rel, "filtered.darshan"), "rb").read()
    orig_bytes = open(os.path.join(src, rel), "rb").read()
    if data == orig_bytes:
        return parser_lines(cat, os.path.join(src, rel)) if need_parser else None, True
    orig = parser_lines(cat, os.path.join(src, rel))
    tmp = os.path.join(os.environ["EXPORT_TMP"], rel.replace("/", "_") + ".u")
    open(tmp, "wb").write(data)
    got = parser_lines(cat, tmp)
    os.unlink(tmp)
    a = [l for l in orig if not is_size_line(l)]
    b = [l for l in got if not is_size_line(l)]
    if a != b:
        raise AssertionError("%s: unfiltered filtered.darshan reads differently:\n%s" %
                             (rel, first_diff(a, b)))
    return orig, False


def first_diff(a, b):
    for k in range(max(len(a), len(b))):
        x = a[k] if k < len(a) else "<end>"
        y = b[k] if k < len(b) else "<end>"
        if x != y:
            return "  line %d\n  original: %s\n  export:   %s" % (k + 1, x, y)
    return "  (same)"


def check_filtered(mnt, cat, rel, orig, out_path):
    head, blocks = split_blocks(orig)
    best = None
    for name, lines in blocks:
        recs = record_lines(name, lines)
        if recs and os.path.isdir(os.path.join(mnt, rel, dirname_of(name))):
            if best is None or len(recs) > len(best[1]):
                best = (name, recs)
    if best is None:
        return None
    name, recs = best
    # a filter that leaves records out where it can: one rank, or one
    # record id when every record has the same rank
    col, value = 1, recs[0].split("\t")[1]
    if all(l.split("\t")[1] == value for l in recs):
        col, value = 2, recs[0].split("\t")[2]
    expr = "%s == %s" % ("rank" if col == 1 else "record_id", value)
    with open(os.path.join(mnt, rel, dirname_of(name), "filter"), "w") as f:
        f.write(expr + "\n")
    data = open(os.path.join(mnt, rel, "filtered.darshan"), "rb").read()
    open(out_path, "wb").write(data)
    got = parser_lines(cat, out_path)
    ghead, gblocks = split_blocks(got)
    line = "# metadata: darshanfs_filter_%s = %s" % (dirname_of(name), expr)
    prov = [l for l in ghead if l.startswith("# metadata: darshanfs_")]
    if prov != [line]:
        raise AssertionError("%s: metadata names the filters as %r, not %r" % (rel, prov, line))
    a = [l for l in head if not is_size_line(l)]
    b = [l for l in ghead if not is_size_line(l) and l != line]
    if a != b:
        raise AssertionError("%s: header of the filtered export differs:\n%s" %
                             (rel, first_diff(a, b)))
    if [n for n, _ in blocks] != [n for n, _ in gblocks]:
        raise AssertionError("%s: modules %r became %r" %
                             (rel, [n for n, _ in blocks], [n for n, _ in gblocks]))
    for (n, lines), (_, glines) in zip(blocks, gblocks):
        if n != name:
            if lines != glines:
                raise AssertionError("%s: %s, not filtered, reads differently:\n%s" %
                                     (rel, n, first_diff(lines, glines)))
            continue
        k, gk = first_record(lines, n), first_record(glines, n)
        if lines[:k] != glines[:gk]:
            raise AssertionError("%s: %s's description or warnings changed:\n%s" %
                                 (rel, n, first_diff(lines[:k], glines[:gk])))
        want = [l for l in record_lines(n, lines) if l.split("\t")[col] == value]
        if record_lines(n, glines) != want:
            raise AssertionError("%s: %s keeps other records than those of %s:\n%s" %
                                 (rel, n, expr, first_diff(want, record_lines(n, glines))))
    return name, len(want), len(recs)


def one_log(args):
    i, mnt, src, cat, out, rel, filtered = args
    orig, same = check_unfiltered(mnt, src, cat, rel, filtered)
    if not filtered:
        return same, None
    res = check_filtered(mnt, cat, rel, orig, os.path.join(out, "%d.darshan" % i))
    return same, res


def mount_checks(mnt, src, cat, out, rels):
    os.environ.setdefault("EXPORT_TMP", out)
    # sanitizer builds (DFS_TEST_QUICK=1) filter every fourth log only, and
    # the big-endian 3.1.8 log that export.sh copies
    quick = os.environ.get("DFS_TEST_QUICK") == "1"
    jobs = [(i, mnt, src, cat, out, rel,
             not quick or i % 4 == 0 or rel.endswith("/mpi-io-test-ppc64-3.1.8.darshan") or
             rel == "mpi-io-test-ppc64-3.1.8.darshan")
            for i, rel in enumerate(rels)]
    same = filtered = removed = 0
    failures = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=3) as pool:
        futures = {pool.submit(one_log, j): j[5] for j in jobs}
        tried = sum(1 for j in jobs if j[6])
        for fut in concurrent.futures.as_completed(futures):
            try:
                s, res = fut.result()
            except (AssertionError, OSError, subprocess.CalledProcessError) as e:
                failures.append("%s: %s" % (futures[fut], e))
                continue
            same += s
            if res:
                filtered += 1
                removed += res[1] < res[2]
    for f in sorted(failures):
        print("FAIL", f)
    if failures:
        return 1
    print("%d logs: unfiltered filtered.darshan reads as the original (%d byte for "
          "byte); filtered on one module, %d of %d logs tried read the same but "
          "for that module's records (%d lost records to the filter)" %
          (len(rels), same, filtered, tried, removed))
    return 0


def damage(src, dst):
    data = bytearray(open(src, "rb").read())
    version = data[:8].rstrip(b"\0").decode()
    old = version != "3.41"
    big = data[8:16] != struct.pack("<q", 6567223)
    fmt = ">" if big else "<"
    slot = {"3.00": 8, "3.10": 8, "3.20": 9, "3.21": 9, "3.41": 10}[version]
    maps = 40 if old else 48
    off, length = struct.unpack_from(fmt + "QQ", data, maps + 16 * slot)
    if length < 16:
        raise SystemExit("%s: no DXT_POSIX region to damage" % src)
    for k in range(off + 2, off + length - 4):
        data[k] = 0xFF
    open(dst, "wb").write(bytes(data))


def main():
    if sys.argv[1] == "damage":
        damage(sys.argv[2], sys.argv[3])
        return 0
    mnt, src, cat, out = sys.argv[2:6]
    return mount_checks(mnt, src, cat, out, sys.argv[6:])


if __name__ == "__main__":
    sys.exit(main())
