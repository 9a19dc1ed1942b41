"""csvcount.py - count the rows of CSV files the way programs read them.

    python3 csvcount.py python FILE     rows after the header (python csv);
                                        every row must have as many fields
                                        as the header
    python3 csvcount.py json FILE       records in a JSON array (mlr --ojson)
    python3 csvcount.py check LIST      for every line of LIST (tab-separated:
                                        path, sqlite3 count, mlr count,
                                        records expected or '-'), the python
                                        csv count must equal the others;
                                        prints "files rows"
"""
import csv
import json
import sys


def count_python(path):
    with open(path, newline="", encoding="utf-8", errors="surrogateescape") as f:
        rd = csv.reader(f, strict=True)
        header = next(rd, None)
        if header is None:
            raise ValueError("no header")
        if len(set(header)) != len(header):
            raise ValueError("duplicate column names")
        n = 0
        for row in rd:
            n += 1
            if len(row) != len(header):
                raise ValueError(f"row {n} has {len(row)} fields, the header {len(header)}")
    return n


def check(listing):
    files = rows = 0
    for line in open(listing, encoding="utf-8", errors="surrogateescape"):
        path, sq, ml, want = line.rstrip("\n").split("\t")
        try:
            py = count_python(path)
        except (ValueError, csv.Error) as e:
            sys.exit(f"FAIL: python csv cannot read {path}: {e}")
        if str(py) != sq or str(py) != ml:
            sys.exit(f"FAIL: {path}: rows: python csv {py}, sqlite3 {sq}, mlr {ml}")
        if want != "-" and str(py) != want:
            sys.exit(f"FAIL: {path}: {py} rows, expected {want}")
        files += 1
        rows += py
    print(files, rows)


def main():
    mode, path = sys.argv[1], sys.argv[2]
    try:
        if mode == "python":
            print(count_python(path))
        elif mode == "json":
            text = open(path, encoding="utf-8", errors="surrogateescape").read().strip()
            print(len(json.loads(text)) if text else 0)
        elif mode == "check":
            check(path)
    except (ValueError, csv.Error) as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
