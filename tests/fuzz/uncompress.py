#!/usr/bin/env python3
"""uncompress.py - rewrite a Darshan log with every region stored
uncompressed (compression type 2), for the fuzz_log seed corpus: with the
bytes of the records in plain sight, mutations reach the module decoders
instead of dying in zlib.

    uncompress.py IN OUT

Any format version the reader knows (3.00 .. 3.41 header layouts), either
byte order (offsets are written back in the file's byte order).  A region
that does not inflate completely keeps what did inflate.  Exit status 1
when IN is not a log this script understands (the caller skips it)."""
import bz2
import struct
import sys
import zlib

MAGIC = 6567223


def inflate(comp, data):
    """All streams of a region, back to back; partial output on errors."""
    out = bytearray()
    while data:
        d = zlib.decompressobj() if comp == 0 else bz2.BZ2Decompressor()
        try:
            out += d.decompress(data)
        except (zlib.error, OSError, EOFError):
            break
        rest = d.unused_data
        if not d.eof or len(rest) >= len(data):
            break
        data = rest
    return bytes(out)


def main(src, dst):
    raw = open(src, 'rb').read()
    if len(raw) < 24:
        return 1
    ver = raw[:8].split(b'\0')[0].decode('ascii', 'replace')
    if ver not in ('3.00', '3.10', '3.20', '3.21', '3.41'):
        return 1
    old = ver != '3.41'
    hsize, nslots = (360, 16) if old else (1328, 64)
    maps, names_at = (40, 24) if old else (48, 32)
    magic_le = struct.unpack_from('<Q', raw, 8)[0]
    end = '<' if magic_le == MAGIC else '>'
    if struct.unpack_from(end + 'Q', raw, 8)[0] != MAGIC or len(raw) < hsize:
        return 1
    comp = raw[16]
    if comp not in (0, 1, 2):
        return 1

    def region(at):
        return struct.unpack_from(end + 'QQ', raw, at)

    noff, nlen = region(names_at)
    mods = [region(maps + 16 * i) for i in range(nslots)]
    job_end = noff or next((o for o, _ in mods if o), len(raw))

    def get(off, ln):
        data = raw[off:off + ln]
        return data if comp == 2 else inflate(comp, data)

    job = get(hsize, job_end - hsize)
    names = get(noff, nlen) if nlen else b''
    hdr = bytearray(raw[:hsize])
    hdr[16] = 2
    body = bytearray(job)
    pos = hsize + len(body)
    struct.pack_into(end + 'QQ', hdr, names_at, pos, len(names))
    body += names
    pos += len(names)
    for i, (off, ln) in enumerate(mods):
        data = get(off, ln) if ln else b''
        if ln and not data:
            data = b'\0'  # keep the module present
        struct.pack_into(end + 'QQ', hdr, maps + 16 * i,
                         pos if data else 0, len(data))
        body += data
        pos += len(data)
    with open(dst, 'wb') as f:
        f.write(hdr + body)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1], sys.argv[2]))
