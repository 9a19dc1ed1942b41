#!/usr/bin/env python3
"""schema.py MOUNT - the tables of every directory of a mount keep the
types schema.json gives them.

For every source directory below MOUNT: jobs.csv, modules.csv and
insights.csv have the columns of the schema in its order, pandas reads
each with the schema's types (a number column that holds text fails the
read), jobs.csv has one row per log below the directory (its log
directories, found by walking the mount) and modules.csv the same logs,
and schema.json is the same file everywhere.  Prints what it checked."""
import json
import os
import sys

import pandas as pd


def main():
    mnt = sys.argv[1]
    with open(os.path.join(mnt, "schema.json")) as f:
        text = f.read()
    schema = json.loads(text)["tables"]
    # the log directories below each source directory
    logs = {}
    for d, dirs, files in os.walk(mnt):
        if d.endswith(".darshan"):
            dirs[:] = []
            continue
        rel = os.path.relpath(d, mnt)
        below = []
        for dd, sub, _ in os.walk(d):
            keep = []
            for s in sub:
                if s.endswith(".darshan"):
                    below.append(os.path.relpath(os.path.join(dd, s), d))
                else:
                    keep.append(s)
            sub[:] = keep
        logs[rel] = sorted(below)
    nfiles = nrows = 0
    for rel, below in sorted(logs.items()):
        d = os.path.join(mnt, rel)
        with open(os.path.join(d, "schema.json")) as f:
            if f.read() != text:
                sys.exit(f"{rel}/schema.json differs from the root's")
        for table in ("jobs.csv", "modules.csv", "insights.csv"):
            cols = schema[table]["columns"]
            path = os.path.join(d, table)
            with open(path, newline="") as f:
                head = f.readline().rstrip("\n").split(",")
            if head != [c["name"] for c in cols]:
                sys.exit(f"{rel}/{table}: header {head}, schema {[c['name'] for c in cols]}")
            try:
                df = pd.read_csv(path, dtype={c["name"]: c["pandas"] for c in cols},
                                 keep_default_na=False, na_values=[""])
            except (ValueError, TypeError) as e:
                sys.exit(f"{rel}/{table} does not read with the schema's types: {e}")
            nfiles += 1
            nrows += len(df)
            if table == "jobs.csv":
                got = sorted(df["log"].tolist())
                if got != below:
                    sys.exit(f"{rel}/jobs.csv: {len(got)} rows, {len(below)} logs below "
                             f"(first differences {sorted(set(got) ^ set(below))[:3]})")
            elif table == "modules.csv":
                if sorted(set(df["log"].tolist())) != below:
                    sys.exit(f"{rel}/modules.csv does not have the logs below")
    print(f"{nfiles} tables of {len(logs)} directories ({nrows} rows) read with the types of schema.json; "
          f"jobs.csv has one row per log")


if __name__ == "__main__":
    main()
