"""csvcount.py - count the rows of CSV files the way programs read them.

    python3 csvcount.py python FILE     rows after the header (python csv);
                                        every row must have as many fields
                                        as the header
    python3 csvcount.py json FILE       records in a JSON array (mlr --ojson)
"""
import csv
import json
import sys


def main():
    mode, path = sys.argv[1], sys.argv[2]
    if mode == "python":
        with open(path, newline="", encoding="utf-8", errors="surrogateescape") as f:
            rd = csv.reader(f, strict=True)
            header = next(rd, None)
            if header is None:
                print("FAIL: no header", file=sys.stderr)
                sys.exit(1)
            if len(set(header)) != len(header):
                print("FAIL: duplicate column names", file=sys.stderr)
                sys.exit(1)
            n = 0
            for row in rd:
                n += 1
                if len(row) != len(header):
                    print(f"FAIL: row {n} has {len(row)} fields, the header {len(header)}",
                          file=sys.stderr)
                    sys.exit(1)
        print(n)
    elif mode == "json":
        text = open(path, encoding="utf-8", errors="surrogateescape").read().strip()
        print(len(json.loads(text)) if text else 0)


if __name__ == "__main__":
    main()
