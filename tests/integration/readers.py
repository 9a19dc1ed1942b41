"""readers.py - read files of the mount the ways programs do and compare
with reference bytes.

    python3 readers.py LIST
LIST has lines "MOUNT_FILE<TAB>REFERENCE_FILE".  For each pair: st_size of
the mounted file equals the reference length; reads with odd chunk sizes
(1, 7, 1000, 4097, 65537 bytes), pread at odd offsets, a read of the whole
file and (records.csv) an mmap with MAP_PRIVATE and one with ACCESS_READ all
return the reference bytes.  Prints the number of files and bytes checked;
exits 1 at the first difference.

    python3 readers.py --at-once FILE REFERENCE SIZE... [cat]
reads FILE on one thread per SIZE at once, each in chunks of SIZE bytes
(and with `cat` beside them when asked), and checks that every one gets
the reference bytes; exits 1 naming those that did not."""
import mmap
import os
import subprocess
import sys
import threading


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def read_chunks(path, size):
    out = bytearray()
    with open(path, "rb", buffering=0) as f:
        while True:
            b = f.read(size)
            if not b:
                break
            out += b
    return bytes(out)


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
    nfiles = nbytes = nmaps = 0
    with open(sys.argv[1], encoding="utf-8", errors="surrogateescape") as lst:
        pairs = [line.rstrip("\n").split("\t") for line in lst if line.strip()]
    for mpath, rpath in pairs:
        with open(rpath, "rb") as f:
            want = f.read()
        st = os.stat(mpath)
        if st.st_size != len(want):
            fail(f"{mpath}: st_size {st.st_size} but darshanfs-cat gives {len(want)} bytes")
        # big files: fewer chunk sizes, the tiny ones would take minutes
        sizes = (1, 7, 1000, 4097, 65537) if len(want) < 200_000 else (4097, 65537, 1 << 20)
        for cs in sizes:
            got = read_chunks(mpath, cs)
            if got != want:
                fail(f"{mpath}: reading in chunks of {cs} gives {len(got)} bytes "
                     f"that differ from darshanfs-cat ({len(want)} bytes)")
        fd = os.open(mpath, os.O_RDONLY)
        try:
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
