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
With DFS_TEST_QUICK=1 (sanitizer builds) each module gets N/4 expressions
(at least one); the normal build runs all N.  Two thirds of the time here
is this script's own evaluator, which the sanitizers do not look at.

Truth values follow SQL: None stands for UNKNOWN (a test on a missing
value or on a division by zero), `and`/`or`/`not` are Kleene's, and a row
is selected only when the whole expression is True.
"""
import atexit, csv, glob, io, os, random, re, subprocess, sys, tempfile, time

DFS = os.path.abspath(sys.argv[1])
CAT = os.path.abspath(sys.argv[2])
N = int(sys.argv[3]) if len(sys.argv) > 3 else 6
if os.environ.get("DFS_TEST_QUICK") == "1":
    N = max(1, N // 4)
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


# ---- the modules of one log, as the reference sees them ----------------------

# The modules whose records are about other modules' files (a file's
# layout, trace, a layer's time bins): in a log-wide filter that names a
# column they lack they follow the records of their file (HEATMAP: of their
# layer and rank) that the filter selects in the modules that have its
# columns (docs/filter-language.md).
FOLLOWERS = {"LUSTRE", "DXT_POSIX", "DXT_MPIIO", "HEATMAP"}
# the counter prefix of a module: what a name may leave out
PREFIX = {"DXT_POSIX": "DXT_", "DXT_MPIIO": "DXT_", "APMPI": ""}


class Table:
    """records.csv of one module, its rows as values, its records (groups
    of rows) and how it resolves a column name"""

    def __init__(self, mod, table, csvtext):
        self.mod = mod
        self.prefix = PREFIX.get(mod, mod.replace("-", "") + "_")
        self.ok = False
        self.header, self.rows = (table[0], table[1:]) if table else ([], [])
        self.data = conv_rows(self.header, self.rows)
        # the unfiltered text: a line a row when no cell spans lines (no
        # '\r', as many lines as rows); then the text of a selection of
        # rows is their lines joined, and darshanfs's answer equal to it
        # parses to them
        lines = csvtext.split("\n") if csvtext and "\r" not in csvtext else None
        if lines is not None and (len(lines) != len(table) + 1 or lines[-1] != ""):
            lines = None
        self.lines = lines
        self.short = [k for k, d in enumerate(self.data) if len(d) != len(self.header)]
        if self.short:
            return
        self.ok = True
        # the types of each column's values (a set a column, made without a
        # Python call a cell: the big modules have millions of cells)
        types = [set(map(type, col)) - {type(None)} for col in zip(*self.data)]
        if not types:
            types = [set() for _ in self.header]
        # a column is floating point when any of its values is (a float 0
        # prints "0")
        for i, c in enumerate(self.header):
            if c in TEXTCOLS or str in types[i]:
                continue
            if ("_F_" in c or float in types[i]) and int in types[i]:
                for d in self.data:
                    if d[i] is not None:
                        d[i] = float(d[i])
        # records: consecutive rows of the same (record_id, rank)
        self.groups = []
        for k, r in enumerate(self.rows):
            if self.groups and self.rows[self.groups[-1][0]][:2] == r[:2]:
                self.groups[-1].append(k)
            else:
                self.groups.append([k])
        # columns of numbers (and missing values), not all missing
        self.numcols = [i for i, c in enumerate(self.header) if c not in TEXTCOLS
                        and types[i] and types[i] <= {int, float}]
        self.txtcols = [i for i, c in enumerate(self.header) if c in TEXTCOLS]
        # names, any case: whole, then a counter's without its prefix
        self.names = {c.lower(): i for i, c in enumerate(self.header)}
        for i, c in enumerate(self.header):
            if self.prefix and c.startswith(self.prefix):
                self.names.setdefault(c[len(self.prefix):].lower(), i)

    def col(self, name):
        """the index of a column name, None if the module lacks it"""
        return self.names.get(name.lower())


# ---- expressions ------------------------------------------------------------------
#
# An expression is a tree of tuples; text() spells it for darshanfs, py()
# compiles it to the Python source of its value in row r of one module
# (the names resolved in that module: a column it lacks is None).

def text(e):
    k = e[0]
    if k in ("col", "lit"):
        return e[1]
    if k == "neg":
        return "-(%s)" % text(e[1])
    if k == "arith":
        return "(%s %s %s)" % (text(e[2]), e[1], text(e[3]))
    if k == "cmp":
        return "%s %s %s" % (text(e[2]), e[1], text(e[3]))
    if k == "re":
        return "%s %s '%s'" % (text(e[1]), e[2], e[3])
    if k == "in":
        return "%s %sin (%s)" % (text(e[1]), "not " if e[3] else "",
                                 ", ".join(x[0] for x in e[2]))
    if k == "between":
        return "%s %s %s and %s" % (text(e[1]), e[4], text(e[2]), text(e[3]))
    if k == "like":
        return "%s %s %s%s" % (text(e[1]), e[2], quote(e[3]),
                               "" if e[4] == "\\" else " escape %s" % quote(e[4]))
    if k == "not":
        return "%s(%s)" % (e[1], text(e[2]))
    if k == "logic":
        return "(%s %s %s)" % (text(e[2]), e[1], text(e[3]))
    return "true"


def names(e):
    """the column names an expression reads"""
    if e[0] == "col":
        return [e[1]]
    return [n for x in e[1:] if isinstance(x, tuple) for n in names(x)]


def quote(s):
    return "'%s'" % s.replace("\\", "\\\\").replace("'", "\\'")


def like_regex(pat, esc, icase):
    """SQL's LIKE as a Python regular expression: % any run, _ one
    character, the escape character makes the next one literal"""
    out, i = [], 0
    while i < len(pat):
        c = pat[i]
        if esc and c == esc:
            i += 1
            out.append(re.escape(pat[i]))
        elif c == "%":
            out.append(".*")
        elif c == "_":
            out.append(".")
        else:
            out.append(re.escape(c))
        i += 1
    # case: the ASCII letters only
    return re.compile("".join(out), re.S | (re.I | re.A if icase else 0))


class Compiler:
    def __init__(self, t, ns):
        self.t, self.ns = t, ns

    def const(self, v):
        if type(v) is int or (type(v) is float and v - v == 0):
            return repr(v)
        name = "c%d" % len(self.ns)
        self.ns[name] = v
        return name

    def col(self, name):
        i = self.t.col(name)
        return "None" if i is None else "r[%d]" % i

    def py(self, e):
        k = e[0]
        if k == "col":
            return self.col(e[1])
        if k == "lit":
            return self.const(e[2])
        if k == "neg":
            return "neg(%s)" % self.py(e[1])
        if k == "arith":
            return "arith(%r, %s, %s)" % (e[1], self.py(e[2]), self.py(e[3]))
        if k == "cmp":
            return "cmp(%r, %s, %s)" % (e[1], self.py(e[2]), self.py(e[3]))
        if k == "re":
            x = self.py(e[1])
            flags = re.I | re.A if e[2].endswith("*") else 0
            rx = self.const(re.compile(e[3], flags))
            return "(None if %s is None else %s.search(%s) is %s None)" % (
                x, rx, x, "" if e[2].startswith("!") else "not")
        if k == "in":
            x = self.py(e[1])
            # any(v == x for x in items), unrolled
            m = " or ".join("%s == %s" % (x, self.const(v[1])) for v in e[2])
            return "(None if %s is None else %s(%s))" % (x, "not " if e[3] else "", m)
        if k == "between":
            x = self.py(e[1])
            s = "t_and(cmp('>=', %s, %s), cmp('<=', %s, %s))" % (
                x, self.py(e[2]), x, self.py(e[3]))
            return "t_not(%s)" % s if e[4].lower().startswith("not") else s
        if k == "like":
            x = self.py(e[1])
            op = e[2].lower()
            rx = self.const(like_regex(e[3], e[4], "ilike" in op))
            return "(None if %s is None else %s.fullmatch(%s) is %s None)" % (
                x, rx, x, "" if op.startswith("not") else "not")
        if k == "not":
            return "t_not(%s)" % self.py(e[2])
        if k == "logic":
            f = "t_and" if e[1] in ("and", "&&") else "t_or"
            return "%s(%s, %s)" % (f, self.py(e[2]), self.py(e[3]))
        return "True"


HELPERS = {"arith": arith, "neg": neg, "t_not": t_not, "t_and": t_and,
           "t_or": t_or, "cmp": cmp}


def values(t, e):
    """the expression's value in every row of t: one comprehension,
    compiled once (not a chain of Python calls a row)"""
    ns = dict(HELPERS, data=t.data)
    src = Compiler(t, ns).py(e)
    return eval(compile("[%s for r in data]" % src, "<filter>", "eval"), ns)


def lacks(t, e):
    return any(t.col(n) is None for n in names(e))


def select(t, e, logwide, tables, memo):
    """the rows of t the reference selects (memo: per expression)"""
    if t.mod in memo:
        return memo[t.mod]
    if logwide and t.mod in FOLLOWERS and lacks(t, e):
        out = follow(t, e, tables, memo)
    else:
        ok = [v is True for v in values(t, e)]
        out = []
        for g in t.groups:
            if t.mod.startswith("DXT_"):
                out.extend(k for k in g if ok[k])    # segments
            elif any(ok[k] for k in g):
                out.extend(g)
    memo[t.mod] = out
    return out


def leads(t, e, follower):
    return (t is not follower and t.ok and
            not (t.mod in FOLLOWERS and lacks(t, e)))


def follow(t, e, tables, memo):
    if t.mod == "HEATMAP":
        # a layer's bins on one rank ("heatmap:POSIX"): kept when that
        # layer's module selects a record of that rank or a shared one
        name = t.header.index("file_name")
        layers = {m.replace("-", ""): x for m, x in tables.items()}
        out = []
        for g in t.groups:
            r = t.rows[g[0]]
            x = layers.get(r[name][len("heatmap:"):]) if r[name].startswith("heatmap:") else None
            if x is None or not leads(x, e, t):
                continue
            ranks = {x.rows[k][1] for k in select(x, e, True, tables, memo)}
            if "-1" in ranks or r[1] in ranks:
                out.extend(g)
        return out
    ids = set()
    for x in tables.values():
        if leads(x, e, t):
            ids.update(x.rows[k][0] for k in select(x, e, True, tables, memo))
    return [k for g in t.groups if t.rows[g[0]][0] in ids for k in g]


class Generator:
    """random expressions over the columns of module t (and, log-wide,
    the counters of the log's other modules)"""

    def __init__(self, t, rnd, foreign):
        self.t, self.rnd, self.foreign = t, rnd, foreign
        self.logwide = False

    def sample_value(self, i):
        vals = [d[i] for d in self.t.data if d[i] is not None]
        return self.rnd.choice(vals) if vals else 0

    def num_lit(self):
        rnd = self.rnd
        k = rnd.random()
        if k < 0.3:
            v = rnd.choice([0, 1, -1, 2, 10, 100, 4096])
            return (str(v) if v >= 0 else "(%d)" % v), v
        if k < 0.45:
            m = rnd.choice([("KiB", 1024), ("MiB", 1 << 20), ("GiB", 1 << 30),
                            ("mib", 1 << 20)])
            n = rnd.choice([1, 2, 4, 16])
            # with or without blanks between the number and the unit
            sep = rnd.choice(["", "", " ", "\t"])
            return "%d%s%s" % (n, sep, m[0]), n * m[1]
        if k < 0.55:
            v = rnd.randrange(0, 1 << 20)
            return hex(v), v
        if k < 0.7:
            v = rnd.choice([0.5, 1.5, 0.001, 1e3, 2.5e-3])
            return repr(v), v
        i = rnd.choice(self.t.numcols)
        v = self.sample_value(i)
        if isinstance(v, float):
            return repr(v), v
        return (str(v) if v >= 0 else "(%d)" % v), v

    def col(self, i):
        """a name of column i: whole or without the prefix, in its case
        or another"""
        c = self.t.header[i]
        p = self.t.prefix
        if p and c.startswith(p) and self.rnd.random() < 0.3:
            c = c[len(p):]
        k = self.rnd.random()
        if k < 0.1:
            c = c.lower()
        elif k < 0.15:
            c = c.upper()
        elif k < 0.2:
            c = "".join(ch.upper() if self.rnd.random() < 0.5 else ch.lower()
                        for ch in c)
        return ("col", c)

    def num(self, depth):
        rnd = self.rnd
        k = rnd.random()
        if self.logwide and self.foreign and k < 0.1:
            # a counter of another module: a missing value here
            return ("col", rnd.choice(self.foreign))
        if depth <= 0 or k < 0.4:
            return self.col(rnd.choice(self.t.numcols))
        if k < 0.6:
            t, v = self.num_lit()
            return ("lit", t, v)
        if k < 0.65:
            return ("neg", self.num(depth - 1))
        op = rnd.choice(["+", "-", "*", "/"])
        return ("arith", op, self.num(depth - 1), self.num(depth - 1))

    def text_value(self, i):
        return self.rnd.choice(self.t.data)[i] or ""

    def regex(self):
        rnd = self.rnd
        s = self.text_value(rnd.choice(self.t.txtcols)) or "x"
        a = rnd.randrange(0, max(1, len(s) - 3))
        piece = re.sub(r"[^A-Za-z0-9_/]", ".", s[a:a + rnd.randint(1, 6)]) or "a"
        pat = rnd.choice(["%s", "^%s", "%s$", "%s.*", "[a-z]+%s", "(%s|lustre)"]) % piece
        return pat

    def like(self, i):
        """a LIKE pattern made from a value of text column i: a piece of it,
        some characters '_', '%' around, escaped where it holds % _ or the
        escape character"""
        rnd = self.rnd
        s = self.text_value(i)
        esc = rnd.choice(["\\", "\\", "#", ""])
        a = rnd.randrange(0, len(s) + 1)
        b = rnd.randrange(a, len(s) + 1)
        head = a > 0 or rnd.random() < 0.3
        tail = b < len(s) or rnd.random() < 0.3
        out = ["%"] if head else []
        for c in s[a:b]:
            r = rnd.random()
            if r < 0.1:
                out.append("_")
            elif r < 0.12:
                out.append("%")
            elif c in "%_" or (esc and c == esc):
                if esc:
                    out.append(esc + c)
                else:
                    out.append("_")
            else:
                out.append(c)
        if tail:
            out.append("%")
        pat = "".join(out)
        if rnd.random() < 0.15 and pat:
            # a change that may make it miss
            j = rnd.randrange(len(pat))
            if pat[j] not in "%_" + esc and (j == 0 or pat[j - 1] != esc):
                pat = pat[:j] + rnd.choice("aZ/.") + pat[j + 1:]
        icase = rnd.random() < 0.4
        if icase:
            pat = "".join(ch.swapcase() if rnd.random() < 0.5 else ch for ch in pat)
        op = ("not " if rnd.random() < 0.25 else "") + ("ilike" if icase else "like")
        return ("like", self.col(i), rnd.choice([op, op.upper()]), pat, esc)

    def atom(self):
        rnd = self.rnd
        t = self.t
        kk = rnd.random()
        if kk < 0.4:
            op = rnd.choice(["==", "!=", "<", "<=", ">", ">="])
            return ("cmp", op, self.num(2), self.num(1))
        if kk < 0.5 and t.txtcols:
            neg = rnd.random() < 0.3
            op = rnd.choice(["!~", "!~*"] if neg else ["~", "~*"])
            return ("re", self.col(rnd.choice(t.txtcols)), op, self.regex())
        if kk < 0.6:
            i = rnd.choice(t.numcols)
            items = [self.sample_value(i) for _ in range(rnd.randint(1, 4))]
            items = [(repr(x) if isinstance(x, float) else str(x), x) for x in items]
            lt, lv = self.num_lit()
            # in a list a negative number has no parentheses
            items.append((lt[1:-1] if lt.startswith("(") else lt, lv))
            return ("in", self.col(i), items, rnd.random() < 0.3)
        if kk < 0.67 and t.txtcols:
            i = rnd.choice(t.txtcols)
            items = [self.text_value(i) for _ in range(rnd.randint(1, 4))] + ["nope"]
            return ("in", self.col(i), [(quote(x), x) for x in items],
                    rnd.random() < 0.3)
        if kk < 0.77:
            op = rnd.choice(["between", "not between", "BETWEEN", "NOT BETWEEN"])
            if t.txtcols and rnd.random() < 0.3:
                i = rnd.choice(t.txtcols)
                lo, hi = sorted([self.text_value(i), self.text_value(i)])
                if rnd.random() < 0.2:
                    lo, hi = hi, lo
                return ("between", self.col(i), ("lit", quote(lo), lo),
                        ("lit", quote(hi), hi), op)
            x = self.num(1)
            if rnd.random() < 0.5:
                (lt, lo), (ht, hi) = sorted([self.num_lit(), self.num_lit()],
                                            key=lambda v: v[1])
                return ("between", x, ("lit", lt, lo), ("lit", ht, hi), op)
            return ("between", x, self.num(1), self.num(1), op)
        if kk < 0.87 and t.txtcols:
            return self.like(rnd.choice(t.txtcols))
        if t.txtcols:
            i = rnd.choice(t.txtcols)
            s = self.text_value(i)
            op = rnd.choice(["==", "!=", "<", ">="])
            return ("cmp", op, self.col(i), ("lit", quote(s), s))
        return ("true",)

    def expr(self, depth):
        rnd = self.rnd
        k = rnd.random()
        if depth <= 0 or k < 0.45:
            return self.atom()
        if k < 0.6:
            return ("not", rnd.choice(["not ", "! "]), self.expr(depth - 1))
        return ("logic", rnd.choice(["and", "or", "&&", "||"]),
                self.expr(depth - 1), self.expr(depth - 1))


def check(log, t, rnd, foreign, tables):
    """N random expressions on module t of the log: darshanfs's rows
    against the reference's"""
    mod = t.mod
    if not t.header:
        print("FAIL %s %s: unfiltered records.csv cannot be read" % (log, mod))
        return 1
    if t.short:
        k = t.short[0]
        print("FAIL %s %s: row %d of records.csv has %d cells, the header %d"
              % (log, mod, k + 1, len(t.data[k]), len(t.header)))
        return 1
    if not t.rows or not t.numcols:
        return 0
    gen = Generator(t, rnd, [c for c in foreign if t.col(c) is None])
    bad = 0
    for n in range(N):
        # some expressions go to the log-wide filter, with other modules'
        # columns (more often in the modules that may follow others)
        gen.logwide = rnd.random() < (0.6 if mod in FOLLOWERS else 0.4)
        e = gen.expr(rnd.randint(1, 4))
        if gen.logwide and mod in FOLLOWERS and gen.foreign and rnd.random() < 0.5:
            # name one of them for sure: the module follows
            e = ("logic", rnd.choice(["and", "or"]), e,
                 ("cmp", rnd.choice([">", "=="]), ("col", rnd.choice(gen.foreign)),
                  ("lit", "0", 0)))
        expr = text(e)
        sel = select(t, e, gen.logwide, tables, {})
        rc, out, err = run(log, mod, expr, gen.logwide)
        if rc != 0:
            print("FAIL %s %s: refused %s%r: %s" % (os.path.basename(log), mod,
                  "log-wide " if gen.logwide else "", expr, err.strip()))
            bad += 1
            continue
        lines = t.lines
        if lines is not None and out == "\n".join([lines[0]] + [lines[k + 1] for k in sel] + [""]):
            continue   # the same text: no need to parse it
        want = [t.rows[k] for k in sel]
        got = list(csv.reader(io.StringIO(out)))[1:]
        if got != want:
            got = [",".join(r) for r in got]
            want = [",".join(r) for r in want]
            print("FAIL %s %s: %s%r: darshanfs %d rows, reference %d rows"
                  % (os.path.basename(log), mod, "log-wide " if gen.logwide else "",
                     expr, len(got), len(want)))
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
            rc, text_, err = run(log, mod, "")
            table = list(csv.reader(io.StringIO(text_))) if rc == 0 else []
            tables[mod] = Table(mod, table, text_ if rc == 0 else None)
            # counters with a number in some row (not text ones)
            cols[mod] = [c for i, c in enumerate(table[0] if table else [])
                         if "_" in c and c.split("_")[0].isupper()
                         and any(isinstance(conv(c, r[i]), (int, float))
                                 for r in table[1:] if i < len(r))]
        for mod in mods:
            pairs += 1
            foreign = sorted({c for m2 in mods if m2 != mod for c in cols[m2]})
            bad += check(log, tables[mod], rnd, foreign, tables)
    print("filter language: %d logs, %d modules, %d expressions each: %d differ"
          % (len(LOGS), pairs, N, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
