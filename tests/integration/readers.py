"""readers.py - read files of the mount the ways programs do and compare
with reference bytes.

    python3 readers.py LIST
LIST has lines "MOUNT_FILE<TAB>REFERENCE_FILE".  For each pair, on one
open descriptor: st_size of the mounted file equals the reference length;
reads with odd chunk sizes (1000, 4097, 65537 bytes; 4097, 65537 and 1 MiB
past 200 kB), 1- and 7-byte reads across the places where reads go wrong
(the start, the ends of the first two pages, of 64 KiB and 128 KiB, and
the end of the file: sequential, bigger reads between them), pread at odd
offsets and (records.csv) an mmap with MAP_PRIVATE and one with
ACCESS_READ all return the reference bytes.  Prints the number of files
and bytes checked; exits 1 at the first difference.

    python3 readers.py --tree MOUNT REFERENCE
the mount holds the same files as the directory REFERENCE (what
darshanfs-cat --extract wrote): the same paths, each file with st_size and
bytes of its reference, read whole as the first read of a fresh open and
then, on the same descriptor, every way of the list mode above (with
DFS_TEST_QUICK=1, the sanitizer build's pass, every way for one file in
four: the later reads of a file are the kernel's page cache more than the
daemon).  Prints "FILES BYTES MAPS" (MAPS: records.csv files mapped).

    python3 readers.py --at-once FILE REFERENCE SIZE... [cat]
reads FILE on one thread per SIZE at once, each in chunks of SIZE bytes
(and with `cat` beside them when asked), and checks that every one gets
the reference bytes; exits 1 naming those that did not."""
import mmap
import os
import subprocess
import sys
import threading


# offsets where a reader's next byte comes from elsewhere: the first and
# second page, darshanfs-cat's 64 KiB buffer, the kernel's largest FUSE
# read (128 KiB); the end of each file is added to them
BOUNDARIES = (0, 4096, 8192, 65536, 131072)


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def read_chunks(path, size):
    """the file in reads of `size` bytes"""
    out = bytearray()
    with open(path, "rb", buffering=0) as f:
        while True:
            b = f.read(size)
            if not b:
                break
            out += b
    return bytes(out)


def read_compare(fd, want, size_at):
    """reads fd from offset 0 to its end, read(size_at(offset)) after
    read, and compares each read with the same bytes of want as it comes
    (no copy of the file is made); None when the reads give want, else
    what differs"""
    os.lseek(fd, 0, os.SEEK_SET)
    pos = 0
    while True:
        n = size_at(pos)
        b = os.read(fd, n)
        if not b:
            break
        if not want.startswith(b, pos):
            return f"read({n}) at offset {pos} gives {len(b)} bytes that differ"
        pos += len(b)
    return None if pos == len(want) else f"the reads end at offset {pos}"


def across(size, length):
    """read sizes for read_compare: reads of `size` bytes from a little
    before to a little after each of BOUNDARIES and `length` (the
    expected end), and between those runs one read (of at most 64 KiB) up
    to the next.  A run reaches 8 reads and 2 bytes either side of its
    boundary (10 bytes for 1-byte reads, 58 for 7-byte ones): it starts 2
    bytes short of a multiple of `size` before the boundary, so that one
    read straddles it."""
    span = 8 * size + 2
    runs = sorted({max(b - span, 0) for b in BOUNDARIES + (length,) if b <= length})

    def size_at(pos):
        # the run that holds pos, or the next one
        run = next((r for r in runs if pos < r + 2 * span), None)
        if run is None:   # past the expected end: a longer file
            return 65536
        return size if pos >= run else min(run - pos, 65536)
    return size_at


def check_every_way(mpath, want, fd):
    """the reads of the list mode on fd; True when the file was mapped"""
    n = len(want)
    # big files: fewer chunk sizes, a small one would take long
    for cs in (1000, 4097, 65537) if n < 200_000 else (4097, 65537, 1 << 20):
        bad = read_compare(fd, want, lambda pos, cs=cs: cs)
        if bad:
            fail(f"{mpath}: reading in chunks of {cs}: {bad} "
                 f"(darshanfs-cat prints {n} bytes)")
    for cs in (1, 7):
        bad = read_compare(fd, want, across(cs, n))
        if bad:
            fail(f"{mpath}: {cs}-byte reads across the boundaries: {bad} "
                 f"(darshanfs-cat prints {n} bytes)")
    for off in sorted({0, 1, 511, 4095, 4096, 8191, 65535, 131071, n // 3,
                       max(n - 1, 0), n, n + 10}):
        got = os.pread(fd, 777, off)
        if got != want[off:off + 777]:
            fail(f"{mpath}: pread(777, {off}) differs from darshanfs-cat")
    if n == 0 or os.path.basename(mpath) != "records.csv":
        return False
    m = mmap.mmap(fd, 0, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ)
    if m[:] != want:
        fail(f"{mpath}: mmap(MAP_PRIVATE) differs from darshanfs-cat")
    m.close()
    m = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    if m[:] != want:
        fail(f"{mpath}: mmap(ACCESS_READ) differs from darshanfs-cat")
    m.close()
    return True


def files_below(root):
    out = []
    for d, dirs, files in os.walk(root):
        dirs.sort()
        rel = os.path.relpath(d, root)
        for f in sorted(files):
            out.append(f if rel == "." else os.path.join(rel, f))
    return out


def tree(mount, ref):
    want, got = files_below(ref), files_below(mount)
    if want != got:
        extra, missing = sorted(set(got) - set(want)), sorted(set(want) - set(got))
        fail(f"the mount lists other files than darshanfs-cat --extract wrote: "
             f"only in the mount {extra[:5]}, missing {missing[:5]}")
    nbytes = nmaps = 0
    every = 4 if os.environ.get("DFS_TEST_QUICK") == "1" else 1
    for k, rel in enumerate(want):
        m, r = os.path.join(mount, rel), os.path.join(ref, rel)
        with open(r, "rb") as f:
            data = f.read()
        size = os.stat(m).st_size
        if size != len(data):
            fail(f"{rel}: st_size is {size}, darshanfs-cat prints {len(data)} bytes")
        # one open a file for all its reads (an open is the daemon's
        # work, the reads after the first come from the page cache); the
        # first read is a whole one, as most programs make
        with open(m, "rb", buffering=0) as f:
            got_data = f.readall()
            if got_data != data:
                fail(f"{rel}: reading it gives {len(got_data)} bytes that differ from "
                     f"darshanfs-cat's {len(data)}")
            if k % every == 0:
                nmaps += check_every_way(m, data, f.fileno())
        nbytes += len(data)
    print(len(want), nbytes, nmaps)


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
        tree(sys.argv[2], sys.argv[3])
        return
    nfiles = nbytes = nmaps = 0
    with open(sys.argv[1], encoding="utf-8", errors="surrogateescape") as lst:
        pairs = [line.rstrip("\n").split("\t") for line in lst if line.strip()]
    for mpath, rpath in pairs:
        with open(rpath, "rb") as f:
            want = f.read()
        st = os.stat(mpath)
        if st.st_size != len(want):
            fail(f"{mpath}: st_size {st.st_size} but darshanfs-cat gives {len(want)} bytes")
        # one open a file: the reads start again from offset 0
        fd = os.open(mpath, os.O_RDONLY)
        try:
            nmaps += check_every_way(mpath, want, fd)
        finally:
            os.close(fd)
        nfiles += 1
        nbytes += len(want)
    print(f"{nfiles} files, {nbytes} bytes, {nmaps} records.csv mmaps")


if __name__ == "__main__":
    main()
