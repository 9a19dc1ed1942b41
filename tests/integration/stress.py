"""stress.py - readers, filter writers and importers at once on one module
directory of a mount; every read must be one whole version of its file.

    python3 stress.py MODULE_DIR SECONDS

First, alone, each state the writers will make (every filter of FILTERS,
and an import of the rows that rank == 0 selects) is set in turn and
records.csv, derived_metrics and filter are read: those bytes are the
versions a reader may see.  Then for SECONDS: 4 reader threads open and
read the three files whole, over and over (plain reads, and mmap of
records.csv), while a thread writes the filters in a loop (as echo does:
O_TRUNC, one write, close) and another imports the CSV (as cp does:
O_TRUNC, 64 KiB writes, close).  Every read must give one of the
versions: none empty, none cut, no error (ESTALE included).  Prints the
counts; exits 1 naming what went wrong."""
import csv
import errno
import io
import mmap
import os
import sys
import threading
import time

FILTERS = ["rank == -1", "POSIX_READS > 0", "rank == 0 or POSIX_WRITES > 3", ""]
FILES = ["records.csv", "derived_metrics", "filter"]


def write_all(path, data, chunk):
    fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
    try:
        for i in range(0, len(data), chunk):
            os.write(fd, data[i:i + chunk])
    finally:
        os.close(fd)


def set_filter(d, text):
    write_all(os.path.join(d, "filter"), (text + "\n").encode(), 1 << 16)


def import_rows(d, data):
    write_all(os.path.join(d, "records.csv"), data, 1 << 16)


def read_whole(path):
    with open(path, "rb", buffering=0) as f:
        out = bytearray()
        while True:
            b = f.read(1 << 16)
            if not b:
                return bytes(out)
            out += b


def read_mmap(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        if size == 0:
            return b""
        with mmap.mmap(fd, 0, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ) as m:
            return m[:]
    finally:
        os.close(fd)


def main():
    d, seconds = sys.argv[1], float(sys.argv[2])
    set_filter(d, "")
    rows = list(csv.reader(io.StringIO(read_whole(os.path.join(d, "records.csv")).decode())))
    rk = rows[0].index("rank")
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows([rows[0]] + [r for r in rows[1:] if r[rk] == "0"])
    imported = buf.getvalue().encode()

    # the versions, each state set alone
    versions = {f: set() for f in FILES}
    states = [("filter", t) for t in FILTERS] + [("import", None)]
    for kind, text in states:
        if kind == "filter":
            set_filter(d, text)
        else:
            import_rows(d, imported)
        for f in FILES:
            versions[f].add(read_whole(os.path.join(d, f)))
    nver = sum(len(v) for v in versions.values())

    stop = time.monotonic() + seconds
    counts = {"reads": 0, "mmaps": 0, "filters": 0, "imports": 0}
    bad = []
    lock = threading.Lock()

    def note(what):
        with lock:
            if len(bad) < 20:
                bad.append(what)

    def reader(k):
        i = 0
        while time.monotonic() < stop:
            f = FILES[(i + k) % len(FILES)]
            use_mmap = f == "records.csv" and i % 4 == 3
            path = os.path.join(d, f)
            i += 1
            try:
                got = read_mmap(path) if use_mmap else read_whole(path)
            except OSError as e:
                note(f"{'mmap' if use_mmap else 'read'} of {f}: {errno.errorcode.get(e.errno, e.errno)} {e.strerror}")
                continue
            if got not in versions[f]:
                kind = "empty" if not got else f"{len(got)} bytes, no version of it"
                note(f"{'mmap' if use_mmap else 'read'} of {f}: {kind}")
            with lock:
                counts["mmaps" if use_mmap else "reads"] += 1

    def filter_writer():
        i = 0
        while time.monotonic() < stop:
            try:
                set_filter(d, FILTERS[i % len(FILTERS)])
            except OSError as e:
                note(f"filter write: {e.strerror}")
            i += 1
            with lock:
                counts["filters"] += 1

    def importer():
        while time.monotonic() < stop:
            try:
                import_rows(d, imported)
            except OSError as e:
                note(f"import: {e.strerror}")
            with lock:
                counts["imports"] += 1
            time.sleep(0.01)

    ts = [threading.Thread(target=reader, args=(k,)) for k in range(4)]
    ts += [threading.Thread(target=filter_writer), threading.Thread(target=importer)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    set_filter(d, "")
    print(f"{counts['reads']} reads and {counts['mmaps']} mmaps of {nver} versions while "
          f"{counts['filters']} filters and {counts['imports']} imports were written")
    if bad:
        print("FAIL: reads that were not one whole version, or failed:", file=sys.stderr)
        for b in bad:
            print("  " + b, file=sys.stderr)
        sys.exit(1)
    if counts["reads"] == 0 or counts["filters"] == 0 or counts["imports"] == 0:
        sys.exit("FAIL: some thread did nothing")


if __name__ == "__main__":
    main()
