"""readers.py - read files of the mount the ways programs do and compare
with reference bytes.

    python3 readers.py LIST
LIST has lines "MOUNT_FILE<TAB>REFERENCE_FILE".  For each pair: st_size of
the mounted file equals the reference length; reads with odd chunk sizes
(1, 7, 1000, 4097, 65537 bytes), pread at odd offsets, a read of the whole
file and (records.csv) an mmap with MAP_PRIVATE and one with ACCESS_READ all
return the reference bytes.  1- and 7-byte reads (every 4th file) cover
the first 4200 and 8200 bytes (one and two page boundaries), then the rest
of the file is read in 64 KiB chunks from the same descriptor; with
DFS_TEST_QUICK=1 (sanitizer builds) every 16th file (the normal build:
every 4th).  Prints the number of files and bytes checked;
exits 1 at the first difference.

    python3 readers.py --tree MOUNT REFERENCE LIST
the mount holds the same files as the directory REFERENCE (what
darshanfs-cat --extract wrote): the same paths, each file with st_size and
bytes of its reference (read whole); writes LIST (the pairs, for the mode
above) and prints "FILES BYTES".

    python3 readers.py --at-once FILE REFERENCE SIZE... [cat]
reads FILE on one thread per SIZE at once, each in chunks of SIZE bytes
(and with `cat` beside them when asked), and checks that every one gets
the reference bytes; exits 1 naming those that did not."""
import mmap
import os
import subprocess
import sys
import threading


# files read in 1- and 7-byte chunks: every 4th, every 16th when quick
TINY_EVERY = 16 if os.environ.get("DFS_TEST_QUICK") == "1" else 4


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def read_chunks(path, size, upto=None, fd=None):
    """the file in reads of `size` bytes (up to `upto` bytes, then 64 KiB),
    from offset 0 of the open descriptor fd when given"""
    if fd is None:
        with open(path, "rb", buffering=0) as f:
            return read_chunks(path, size, upto, f.fileno())
    os.lseek(fd, 0, os.SEEK_SET)
    out = bytearray()
    while True:
        n = size if upto is None or len(out) < upto else 65536
        b = os.read(fd, n)
        if not b:
            break
        out += b
    return bytes(out)


def files_below(root):
    out = []
    for d, dirs, files in os.walk(root):
        dirs.sort()
        rel = os.path.relpath(d, root)
        for f in sorted(files):
            out.append(f if rel == "." else os.path.join(rel, f))
    return out


def tree(mount, ref, listing):
    want, got = files_below(ref), files_below(mount)
    if want != got:
        extra, missing = sorted(set(got) - set(want)), sorted(set(want) - set(got))
        fail(f"the mount lists other files than darshanfs-cat --extract wrote: "
             f"only in the mount {extra[:5]}, missing {missing[:5]}")
    nbytes = 0
    with open(listing, "w", encoding="utf-8", errors="surrogateescape") as lst:
        for rel in want:
            m, r = os.path.join(mount, rel), os.path.join(ref, rel)
            with open(r, "rb") as f:
                data = f.read()
            size = os.stat(m).st_size
            if size != len(data):
                fail(f"{rel}: st_size is {size}, darshanfs-cat prints {len(data)} bytes")
            with open(m, "rb") as f:
                got_data = f.read()
            if got_data != data:
                fail(f"{rel}: reading it gives {len(got_data)} bytes that differ from "
                     f"darshanfs-cat's {len(data)}")
            nbytes += len(data)
            lst.write(f"{m}\t{r}\n")
    print(len(want), nbytes)


def at_once(path, ref_path, args):
    with open(ref_path, "rb") as f:
        ref = f.read()
    bad = []

    def check(what, out):
        if out != ref:
            bad.append(f"{what}: {len(out)} bytes, want {len(ref)}")

    def cat():
        check("cat", subprocess.run(["cat", path], stdout=subprocess.PIPE,
                                    check=True).stdout)

    ts = [threading.Thread(target=cat)] if "cat" in args else []
    ts += [threading.Thread(target=lambda n=int(a): check(f"{n}-byte reads",
                                                          read_chunks(path, n)))
           for a in args if a != "cat"]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for b in bad:
        print("  " + b, file=sys.stderr)
    sys.exit(1 if bad else 0)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--at-once":
        at_once(sys.argv[2], sys.argv[3], sys.argv[4:])
    if len(sys.argv) > 1 and sys.argv[1] == "--tree":
        tree(sys.argv[2], sys.argv[3], sys.argv[4])
        return
    nfiles = nbytes = nmaps = 0
    with open(sys.argv[1], encoding="utf-8", errors="surrogateescape") as lst:
        pairs = [line.rstrip("\n").split("\t") for line in lst if line.strip()]
    for i, (mpath, rpath) in enumerate(pairs):
        with open(rpath, "rb") as f:
            want = f.read()
        st = os.stat(mpath)
        if st.st_size != len(want):
            fail(f"{mpath}: st_size {st.st_size} but darshanfs-cat gives {len(want)} bytes")
        # big files: fewer chunk sizes, the tiny ones would take minutes
        sizes = (1000, 4097, 65537) if len(want) < 200_000 else (4097, 65537, 1 << 20)
        if i % TINY_EVERY == 0:
            sizes = (1, 7) + sizes
        # one open a file: the chunked reads start again from offset 0
        # (an open costs the daemon more than the reads the page cache
        # serves; the other clients of the tests open each file anew)
        fd = os.open(mpath, os.O_RDONLY)
        try:
            for cs in sizes:
                got = read_chunks(mpath, cs, {1: 4200, 7: 8200}.get(cs), fd)
                if got != want:
                    fail(f"{mpath}: reading in chunks of {cs} gives {len(got)} bytes "
                         f"that differ from darshanfs-cat ({len(want)} bytes)")
            for off in sorted({0, 1, 511, 4095, 4096, 65535, len(want) // 3,
                               max(len(want) - 1, 0), len(want), len(want) + 10}):
                got = os.pread(fd, 777, off)
                if got != want[off:off + 777]:
                    fail(f"{mpath}: pread(777, {off}) differs")
            if len(want) > 0 and os.path.basename(mpath) == "records.csv":
                m = mmap.mmap(fd, 0, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ)
                if m[:] != want:
                    fail(f"{mpath}: mmap(MAP_PRIVATE) differs from darshanfs-cat")
                m.close()
                m = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
                if m[:] != want:
                    fail(f"{mpath}: mmap(ACCESS_READ) differs from darshanfs-cat")
                m.close()
                nmaps += 1
        finally:
            os.close(fd)
        nfiles += 1
        nbytes += len(want)
    print(f"{nfiles} files, {nbytes} bytes, {nmaps} records.csv mmaps")


if __name__ == "__main__":
    main()
