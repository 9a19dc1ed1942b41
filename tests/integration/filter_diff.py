#!/usr/bin/env python3
"""filter_diff.py DARSHANFS DARSHANFS_CAT [N] [SEED]

Differential test of the filter language.  For every module of every
shared log, N random expressions are evaluated twice: by darshanfs (one
mount of the shared logs, each expression written into MODULE/filter or
the log-wide filter and records.csv read back, in this process) and by
the evaluator below, written independently from docs/filter-language.md
and run over the unfiltered records.csv.  The selected rows must be
identical.  A record of a multi-row module (LUSTRE, HEATMAP) is selected
when any of its rows matches; in DXT, where a filter selects segments, the
rows that match are.  Some expressions are written to the
log-wide filter instead, naming counters of the log's other modules, which
are missing values in this one.  Exit 77 without the shared logs or FUSE.
With DFS_TEST_QUICK=1 (sanitizer builds) each module gets N/2 expressions
(at least one); the normal build runs all N.

Truth values follow SQL: None stands for UNKNOWN (a test on a missing
value or on a division by zero), `and`/`or`/`not` are Kleene's, and a row
is selected only when the whole expression is True.
"""
import atexit, csv, glob, io, os, random, re, subprocess, sys, tempfile, time

DFS = os.path.abspath(sys.argv[1])
CAT = os.path.abspath(sys.argv[2])
N = int(sys.argv[3]) if len(sys.argv) > 3 else 6
if os.environ.get("DFS_TEST_QUICK") == "1":
    N = max(1, N // 2)
SEED = int(sys.argv[4]) if len(sys.argv) > 4 else 1
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
TEXTCOLS = {"file_name", "mount_pt", "fs_type",
            # LUSTRE shows these as darshan-parser prints them ('raid0', 'N/A')
            "LUSTRE_COMP_STRIPE_PATTERN", "LUSTRE_COMP_FLAGS", "LUSTRE_COMP_POOL_NAME",
            # DXT_POSIX's OSTs of a segment: "106 107"
            "ost"}
LO, HI = -2**63, 2**64


def mounted(mnt):
    with open("/proc/mounts") as f:
        return any(line.split()[1] == mnt for line in f)


def mount():
    """darshanfs -f over the shared logs (read only: nothing is written to
    them); unmounted at exit"""
    tmp = tempfile.mkdtemp(prefix="dfs-filter-diff.")
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


MNT = None


def write_filter(path, text):
    """what `echo TEXT > path` does: O_TRUNC, one write, close"""
    fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
    try:
        os.write(fd, (text + "\n").encode("utf-8", "surrogateescape"))
    finally:
        os.close(fd)


def run(log, mod, expr, logwide=False):
    d = os.path.join(MNT, os.path.basename(log))
    target = os.path.join(d, "filter") if logwide else os.path.join(d, mod, "filter")
    try:
        if expr:
            write_filter(target, expr)
        with open(os.path.join(d, mod, "records.csv"), "rb") as f:
            return 0, f.read().decode("utf-8", "surrogateescape"), ""
    except OSError as e:
        with open(target + ".error", encoding="utf-8", errors="replace") as f:
            return 1, "", "%s: %s" % (e.strerror, f.read())
    finally:
        if expr:
            # an empty line is the empty filter (installed at close, as a
            # filter; `: >` alone would clear it only at release)
            write_filter(target, "")


def conv_value(v):
    """a value of a counter column: an integer (-?[0-9]+), a float, or text"""
    s = v[1:] if v[:1] == "-" else v
    if s.isascii() and s.isdigit():   # [0-9]+
        return int(v)
    try:
        return float(v)
    except ValueError:
        return v   # text counters (uuids, host names)


# the values of the logs repeat (0, -1, small counts): each text is
# converted once ("" is a missing value)
class Conv(dict):
    def __missing__(self, v):
        x = self[v] = None if v == "" else conv_value(v)
        return x


CONV = Conv()


def conv(col, v):
    if v == "":
        return None
    if col in TEXTCOLS:
        return v
    return CONV[v]


def conv_rows(header, rows):
    """conv of every cell of rows, a list a row (the cells of text columns
    stay text; one map a row, not a call a cell)"""
    get = CONV.__getitem__
    nh = len(header)
    text = [i for i, c in enumerate(header) if c in TEXTCOLS]
    data = []
    for r in rows:
        d = list(map(get, r if len(r) <= nh else r[:nh]))
        for i in text:
            if i < len(d):
                d[i] = r[i] if r[i] != "" else None
        data.append(d)
    return data


def arith(op, a, b):
    if a is None or b is None:
        return None
    if op == "/":
        if b == 0:
            return None   # undefined, like a missing value
        return float(a) / float(b)
    if isinstance(a, int) and isinstance(b, int):
        r = a + b if op == "+" else a - b if op == "-" else a * b
        if LO <= r < HI:
            return r
    a, b = float(a), float(b)
    return a + b if op == "+" else a - b if op == "-" else a * b


def neg(a):
    if a is None:
        return None
    return arith("-", 0, a) if isinstance(a, int) else -a


def t_not(a):
    return None if a is None else not a


def t_and(a, b):
    if a is False or b is False:
        return False
    if a is None or b is None:
        return None
    return True


def t_or(a, b):
    if a is True or b is True:
        return True
    if a is None or b is None:
        return None
    return False


def cmp(op, a, b):
    if a is None or b is None:
        return None
    if isinstance(a, str):
        a = a.encode("utf-8", "surrogateescape")
        b = b.encode("utf-8", "surrogateescape")
    return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b,
            ">": a > b, ">=": a >= b}[op]


def check(log, mod, rnd, foreign, table, csvtext):
    if table is None:
        print("FAIL %s %s: unfiltered records.csv cannot be read" % (log, mod))
        return 1
    rows = table
    header, rows = rows[0], rows[1:]
    if not rows:
        return 0
    data = conv_rows(header, rows)
    # the unfiltered text: a line a row when no cell spans lines (no '\r',
    # as many lines as rows); then the text of a selection of rows is their
    # lines joined, and darshanfs's answer equal to it parses to them
    lines = csvtext.split("\n") if "\r" not in csvtext else None
    if lines is not None and (len(lines) != len(table) + 1 or lines[-1] != ""):
        lines = None
    short = [k for k, d in enumerate(data) if len(d) != len(header)]
    if short:
        print("FAIL %s %s: row %d of records.csv has %d cells, the header %d"
              % (log, mod, short[0] + 1, len(data[short[0]]), len(header)))
        return 1
    # the types of each column's values (a set a column, made without a
    # Python call a cell: the big modules have millions of cells)
    types = [set(map(type, col)) - {type(None)} for col in zip(*data)]
    # a column is floating point when any of its values is (a float 0 prints "0")
    for i, c in enumerate(header):
        if c in TEXTCOLS:
            continue
        if str in types[i]:
            continue
        if ("_F_" in c or float in types[i]) and int in types[i]:
            for d in data:
                if d[i] is not None:
                    d[i] = float(d[i])
    # records: consecutive rows of the same (record_id, rank)
    groups = []
    for k, r in enumerate(rows):
        if groups and rows[groups[-1][0]][:2] == r[:2]:
            groups[-1].append(k)
        else:
            groups.append([k])
    # columns of numbers (and missing values), not all missing
    numcols = [i for i, c in enumerate(header) if c not in TEXTCOLS
               and types[i] and types[i] <= {int, float}]
    txtcols = [i for i, c in enumerate(header) if c in TEXTCOLS]
    prefix = mod.replace("-", "") + "_"
    own = {c.lower() for c in header} | {(prefix + c).lower() for c in header}
    foreign = [c for c in foreign if c.lower() not in own
               and (prefix + c).lower() not in own]

    # ---- random expressions: (text, Python source of its value in row r) ----
    # The source calls the helpers above; constants it cannot spell as a
    # literal (text, floats such as nan, compiled regexes) are names of ns.
    ns = {"arith": arith, "neg": neg, "t_not": t_not, "t_and": t_and,
          "t_or": t_or, "cmp": cmp, "data": data}

    def const(v):
        if type(v) is int or (type(v) is float and v - v == 0):
            return repr(v)
        name = "c%d" % len(ns)
        ns[name] = v
        return name

    def sample_value(i):
        vals = [d[i] for d in data if d[i] is not None]
        return rnd.choice(vals) if vals else 0

    def num_lit():
        k = rnd.random()
        if k < 0.3:
            v = rnd.choice([0, 1, -1, 2, 10, 100, 4096])
            return (str(v) if v >= 0 else "(%d)" % v), v
        if k < 0.45:
            m = rnd.choice([("KiB", 1024), ("MiB", 1 << 20), ("GiB", 1 << 30)])
            n = rnd.choice([1, 2, 4, 16])
            return "%d%s" % (n, m[0]), n * m[1]
        if k < 0.55:
            v = rnd.randrange(0, 1 << 20)
            return hex(v), v
        if k < 0.7:
            v = rnd.choice([0.5, 1.5, 0.001, 1e3, 2.5e-3])
            return repr(v), v
        i = rnd.choice(numcols)
        v = sample_value(i)
        if isinstance(v, float):
            return repr(v), v
        return (str(v) if v >= 0 else "(%d)" % v), v

    def col_name(i):
        c = header[i]
        if c.startswith(prefix) and rnd.random() < 0.3:
            return c[len(prefix):]
        return c

    logwide = [False]

    def num_expr(depth):
        k = rnd.random()
        if logwide[0] and foreign and k < 0.1:
            # a counter of another module: a missing value here
            return rnd.choice(foreign), "None"
        if depth <= 0 or k < 0.4:
            i = rnd.choice(numcols)
            return col_name(i), "r[%d]" % i
        if k < 0.6:
            t, v = num_lit()
            return t, const(v)
        if k < 0.65:
            t, s = num_expr(depth - 1)
            return "-(%s)" % t, "neg(%s)" % s
        op = rnd.choice(["+", "-", "*", "/"])
        ta, sa = num_expr(depth - 1)
        tb, sb = num_expr(depth - 1)
        return "(%s %s %s)" % (ta, op, tb), "arith(%r, %s, %s)" % (op, sa, sb)

    def regex_lit():
        d = rnd.choice(data)
        i = rnd.choice(txtcols)
        s = d[i] or "x"
        a = rnd.randrange(0, max(1, len(s) - 3))
        piece = re.sub(r"[^A-Za-z0-9_/]", ".", s[a:a + rnd.randint(1, 6)]) or "a"
        pat = rnd.choice(["%s", "^%s", "%s$", "%s.*", "[a-z]+%s", "(%s|lustre)"]) % piece
        return pat

    def bool_expr(depth):
        k = rnd.random()
        if depth <= 0 or k < 0.45:
            kk = rnd.random()
            if kk < 0.6:
                op = rnd.choice(["==", "!=", "<", "<=", ">", ">="])
                ta, sa = num_expr(2)
                tb, sb = num_expr(1)
                return "%s %s %s" % (ta, op, tb), "cmp(%r, %s, %s)" % (op, sa, sb)
            if kk < 0.75 and txtcols:
                i = rnd.choice(txtcols)
                pat = regex_lit()
                neg = rnd.random() < 0.3
                rx = re.compile(pat)
                src = "(None if r[%d] is None else %s.search(r[%d]) is %s None)" % (
                    i, const(rx), i, "" if neg else "not")
                return "%s %s '%s'" % (col_name(i), "!~" if neg else "~", pat), src
            if kk < 0.9:
                i = rnd.choice(numcols)
                items = [sample_value(i) for _ in range(rnd.randint(1, 4))] + [num_lit()[1]]
                neg = rnd.random() < 0.3
                txt = ", ".join((repr(x) if isinstance(x, float) else str(x)) for x in items)
                # any(v == x for x in items), unrolled
                m = " or ".join("r[%d] == %s" % (i, const(x)) for x in items)
                src = "(None if r[%d] is None else %s(%s))" % (i, "not " if neg else "", m)
                return "%s %sin (%s)" % (col_name(i), "not " if neg else "", txt), src
            if txtcols:
                i = rnd.choice(txtcols)
                s = rnd.choice(data)[i] or ""
                op = rnd.choice(["==", "!=", "<", ">="])
                q = s.replace("\\", "\\\\").replace("'", "\\'")
                return ("%s %s '%s'" % (col_name(i), op, q),
                        "cmp(%r, r[%d], %s)" % (op, i, const(s)))
            return "true", "True"
        if k < 0.6:
            t, s = bool_expr(depth - 1)
            w = rnd.choice(["not ", "! "])
            return "%s(%s)" % (w, t), "t_not(%s)" % s
        op = rnd.choice(["and", "or", "&&", "||"])
        ta, sa = bool_expr(depth - 1)
        tb, sb = bool_expr(depth - 1)
        if op in ("and", "&&"):
            return "(%s %s %s)" % (ta, op, tb), "t_and(%s, %s)" % (sa, sb)
        return "(%s %s %s)" % (ta, op, tb), "t_or(%s, %s)" % (sa, sb)

    def ref_select(src):
        # the expression's value in every row: one comprehension, compiled
        # once (not a chain of Python calls a row)
        vals = eval(compile("[%s for r in data]" % src, "<filter>", "eval"), ns)
        ok = [v is True for v in vals]
        out = []
        for g in groups:
            if mod.startswith("DXT_"):
                out.extend(k for k in g if ok[k])
            elif any(ok[k] for k in g):
                out.extend(g)
        return out

    bad = 0
    for n in range(N):
        # some expressions go to the log-wide filter, with other modules' columns
        logwide[0] = rnd.random() < 0.4
        text, src = bool_expr(rnd.randint(1, 4))
        sel = ref_select(src)
        rc, out, err = run(log, mod, text, logwide[0])
        if rc != 0:
            print("FAIL %s %s: refused %s%r: %s" % (os.path.basename(log), mod,
                  "log-wide " if logwide[0] else "", text, err.strip()))
            bad += 1
            continue
        if lines is not None and out == "\n".join([lines[0]] + [lines[k + 1] for k in sel] + [""]):
            continue   # the same text: no need to parse it
        want = [rows[k] for k in sel]
        got = list(csv.reader(io.StringIO(out)))[1:]
        if got != want:
            got = [",".join(r) for r in got]
            want = [",".join(r) for r in want]
            print("FAIL %s %s: %s%r: darshanfs %d rows, reference %d rows"
                  % (os.path.basename(log), mod, "log-wide " if logwide[0] else "",
                     text, len(got), len(want)))
            for x in sorted(set(got) - set(want))[:2]:
                print("  only darshanfs:", x[:300])
            for x in sorted(set(want) - set(got))[:2]:
                print("  only reference:", x[:300])
            bad += 1
    return bad


def main():
    global MNT
    MNT = mount()
    rnd = random.Random(SEED)
    bad = pairs = 0
    for log in LOGS:
        # the log's directory in the mount lists its modules as
        # darshanfs-cat --list does, in the same order (a listing costs no
        # process: under ASan a darshanfs-cat start costs up to a second)
        d = os.path.join(MNT, os.path.basename(log))
        if os.path.exists(os.path.join(d, "ERROR")):
            continue   # damaged logs have their own tests
        # module directories (summary/ holds the plots: no filter there)
        mods = [e.name for e in os.scandir(d)
                if e.is_dir() and e.name != "summary"]
        # the numeric counters of every module of the log
        cols, tables = {}, {}
        for mod in mods:
            rc, text, err = run(log, mod, "")
            table = list(csv.reader(io.StringIO(text))) if rc == 0 else []
            tables[mod] = (table, text) if rc == 0 else (None, None)
            # counters with a number in some row (not text ones)
            cols[mod] = [c for i, c in enumerate(table[0] if table else [])
                         if "_" in c and c.split("_")[0].isupper()
                         and any(isinstance(conv(c, r[i]), (int, float))
                                 for r in table[1:] if i < len(r))]
        for mod in mods:
            pairs += 1
            foreign = sorted({c for m2 in mods if m2 != mod for c in cols[m2]})
            bad += check(log, mod, rnd, foreign, *tables[mod])
    print("filter language: %d logs, %d modules, %d expressions each: %d differ"
          % (len(LOGS), pairs, N, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
