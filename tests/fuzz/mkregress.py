#!/usr/bin/env python3
"""mkregress.py - write the inputs of tests/fuzz/regressions/ from scratch.

Every regression input is of our own making: the crashes the fuzzers
found (in mutated logs) were reduced to the one property that triggers
them and rebuilt here byte by byte, so no shared log is copied.  Run it
from anywhere; it rewrites the files it owns and leaves the others.

    tests/fuzz/mkregress.py

tests/unit/test_regressions.c feeds every file of regressions/TARGET/ to
that fuzz target's entry point and checks regressions/EXPECTED."""
import bz2
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'regressions')
MAGIC = 6567223
POSIX, LUSTRE = 1, 8


def header341(comp, names, mods, vers):
    """1328-byte header: names = (off, len), mods = {id: (off, len)}."""
    h = bytearray(1328)
    h[0:4] = b'3.41'
    struct.pack_into('<QI', h, 8, MAGIC, comp)
    struct.pack_into('<QQ', h, 32, *names)
    for i, (off, ln) in mods.items():
        struct.pack_into('<QQ', h, 48 + 16 * i, off, ln)
        struct.pack_into('<I', h, 1072 + 4 * i, vers[i])
    return h


def job341(text, nprocs=4):
    j = bytearray(1080)
    struct.pack_into('<7q', j, 0, 1000, 1700000000, 0, 1700000100, 0, nprocs, 7)
    j[56:56 + 13] = b'lib_ver=3.4.4'
    return bytes(j) + text + b'\0'


def log341(job, mods, vers, comp=2, names=b''):
    """Uncompressed (comp 2) unless the parts are given compressed."""
    pos = 1328 + len(job)
    body = bytearray(job) + names
    npos, pos = pos, pos + len(names)
    table = {}
    for i in sorted(mods):
        table[i] = (pos, len(mods[i]))
        body += mods[i]
        pos += len(mods[i])
    return bytes(header341(comp, (npos, len(names)), table, vers)) + bytes(body)


def write(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)


def fuzz_log_inputs():
    # parse_mounts: one token a line; tokens ran on into the next line and
    # overflowed the storage sized for the text (ASan heap-buffer-overflow)
    text = b'./app\n' + b'\n'.join(bytes([c]) * 24 for c in b'abcde')
    write('fuzz_log', 'mount-one-token-a-line.darshan', log341(job341(text), {}, {}))

    # 3.10 job: run time end - start + 1 overflowed int64 (UBSan)
    h = bytearray(360)
    h[0:4] = b'3.10'
    struct.pack_into('<QI', h, 8, MAGIC, 2)
    job = bytearray(1064)
    struct.pack_into('<5q', job, 0, 1000, -1, 2**63 - 1, 4, 7)
    job = bytes(job) + b'./old\nnfs /home\0' + bytes(16)
    struct.pack_into('<QQ', h, 24, 360 + len(job), 0)
    write('fuzz_log', 'old-run-time-extremes.darshan', bytes(h) + job)

    # LUSTRE v2: the stripe counts of the components summed past INT64_MAX
    # (UBSan, lustre.c emit and the row walk)
    rec = bytearray(32 + 3 * 72 + 16)
    struct.pack_into('<QqQQ', rec, 0, 99, 0, 3, 2)
    for c in range(3):
        struct.pack_into('<qq', rec, 32 + 72 * c, 1 << 20, 2**63 - 1 - c)
    write('fuzz_log', 'lustre-stripe-sum.darshan',
          log341(job341(b'./app\nlustre /lus'), {LUSTRE: bytes(rec)}, {LUSTRE: 2}))

    # decompression bomb: 2 GiB of zeros in a few KiB of bzip2 (8 streams
    # of 256 MiB); the POSIX module must be refused by the inflate budget
    zeros = bz2.compress(bytes(256 << 20), 9)
    job = bz2.compress(job341(b'./app\nlustre /lus'), 9)
    write('fuzz_log', 'bzip2-bomb-2g.darshan',
          log341(job, {POSIX: zeros * 8}, {POSIX: 4}, comp=1))


def fuzz_filter_inputs():
    write('fuzz_filter', 'deep-parens', b'(' * 250 + b'rank' + b')' * 250)
    write('fuzz_filter', 'deep-not', b'not ' * 300 + b'true')
    write('fuzz_filter', 'regex-repeat', b"file_name ~ 'a{1000}{1000}{1000}'")
    write('fuzz_filter', 'u64-edges',
          b'record_id == 18446744073709551615 or rank * -9223372036854775808 < 1e308')


def fuzz_csv_inputs():
    write('fuzz_csv', 'unclosed-quote', b'Precord_id,rank\n"1,0\n')
    write('fuzz_csv', 'missing-record', b'Precord_id,rank,POSIX_OPENS\n1,99,3\n')


if __name__ == '__main__':
    fuzz_log_inputs()
    fuzz_filter_inputs()
    fuzz_csv_inputs()
