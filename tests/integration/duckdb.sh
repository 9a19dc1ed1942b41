#!/bin/bash
# duckdb.sh - DuckDB as the filter, for real, through one mount:
# - the README's DuckDB line, verbatim: it reads records.csv with record_id
#   as UBIGINT, keeps some rows and writes them back with COPY TO onto
#   records.csv (DuckDB writes tmp_records.csv beside it and renames it);
#   derived_metrics.json then equals that of the equivalent filter byte for
#   byte, and records.csv reads back the filter's rows;
# - without the UBIGINT type DuckDB holds record_id as a double: its COPY
#   fails (the write is refused), the selection stays, filter.error says
#   what to do;
# - the temporary file: only its creator sees it, it is never listed, it
#   is gone after the rename or an unlink (which installs nothing); other
#   names, other places and renames elsewhere are refused with EPERM;
# - insights.csv's files column (JSON) unnested by DuckDB, as Python reads it.
# DuckDB is the `duckdb` command if there is one, else the npm package
# @duckdb/node-api (contrib/deps.sh duckdb installs it) behind
# duckdb-shim/duckdb; the test skips when neither can be had.
. "$(dirname "$0")/lib.sh"
command -v mlr >/dev/null || skip "mlr is not installed"

if ! command -v duckdb >/dev/null; then
	command -v node >/dev/null || skip "neither duckdb nor node is installed"
	export DFS_DUCKDB_DIR
	DFS_DUCKDB_DIR=$(bash -c '. "$1"; dfs_duckdb_dir' _ "$REPO/contrib/deps.sh")
	if [ ! -f "$DFS_DUCKDB_DIR/node_modules/@duckdb/node-api/package.json" ]; then
		DFS_NPM_TIMEOUT=150 bash "$REPO/contrib/deps.sh" duckdb >&2
		[ -f "$DFS_DUCKDB_DIR/node_modules/@duckdb/node-api/package.json" ] ||
			skip "DuckDB could not be installed (npm cannot reach its registry?)"
	fi
	PATH=$IT_DIR/duckdb-shim:$PATH
fi
t duckdb -c "SELECT 1" >/dev/null 2>"$TMP/err" || skip "duckdb does not run: $(cat "$TMP/err")"

SRC=$TMP/src MNT=$TMP/mnt
make_tree "$SRC" "$LOGS"/imbalanced-io.darshan
dfs_mount "$SRC" "$MNT"
D=$MNT/${LOGREL[0]}/POSIX
README=$REPO/README.md

rows() { python3 -c 'import csv,sys; print(sum(1 for _ in csv.reader(open(sys.argv[1], newline=""))) - 1)' "$1"; }

# ---- the README's line, verbatim
line=$(awk '/^### Any CSV tool/ { on = 1 } on && /^## / { on = 0 }
	on && index($0, "duckdb ") == 1 { print; exit }' "$README")
[ -n "$line" ] || fail "no duckdb example in the README's 'Any CSV tool' section"
# the filter it stands for
EXPR="POSIX_F_WRITE_TIME > 1"
case $line in
*"WHERE $EXPR)"*) ;;
*) fail "the README's duckdb example no longer selects 'WHERE $EXPR': update EXPR here" ;;
esac
: >"$D/filter"
cat "$D/records.csv" >"$TMP/all.csv"
(cd "$D" && t bash -c "$line") >/dev/null 2>"$TMP/err" ||
	fail "the README's duckdb example failed: $line: $(cat "$TMP/err") / $(cat "$D/filter.error")"
n=$(t mlr --icsv --ojson filter "\$$EXPR" then count "$TMP/all.csv" | tr -dc '0-9')
[ "$n" -gt 0 ] && [ "$n" -lt "$(rows "$TMP/all.csv")" ] || fail "'$EXPR' selects $n rows: no test"
import_equals_filter "$D" "$n" "$EXPR" "after the README's duckdb example (COPY TO)" "$TMP/duck"
say "ok: the README's duckdb line selects $n rows, derived_metrics.json equal to '$EXPR'"

# ---- record_id read as a double: refused, nothing changes
: >"$D/filter"
t cp "$TMP/duck.csv" "$D/records.csv" || fail "importing DuckDB's rows again failed"
cat "$D/derived_metrics.json" >"$TMP/before.json"
if (cd "$D" && t duckdb -c "COPY (SELECT record_id::DOUBLE AS record_id, rank FROM read_csv('records.csv')) TO 'records.csv' (HEADER)") >/dev/null 2>"$TMP/err"; then
	fail "DuckDB's COPY TO of record_id as a double succeeded"
fi
[ "$(cat "$D/filter")" = "# imported: $n rows" ] || fail "a refused COPY TO changed the filter to '$(cat "$D/filter")'"
cmp -s "$TMP/before.json" "$D/derived_metrics.json" || fail "a refused COPY TO changed derived_metrics.json"
grep -q "record_id: .* is not an exact integer.*UBIGINT" "$D/filter.error" ||
	fail "filter.error is '$(cat "$D/filter.error")' after record_id as a double"
say "ok: record_id as a double fails DuckDB's COPY: $(head -c 100 "$TMP/err")"

# ---- the temporary file's rules, from python
python3 - "$D" "$MNT/${LOGREL[0]}" "$TMP/all.csv" <<'PY' || fail "the temporary file's rules"
import errno, os, subprocess, sys
d, logdir, allcsv = sys.argv[1:4]
lines = open(allcsv, newline="").read().split("\n")
text = ("\n".join(lines[:4]) + "\n").encode()
tmp, rec = os.path.join(d, "tmp_records.csv"), os.path.join(d, "records.csv")

def refused(what, e_want, fn):
    try:
        fn()
    except OSError as e:
        if e.errno != e_want:
            sys.exit(f"{what}: {e}, expected {errno.errorcode[e_want]}")
        return
    sys.exit(f"{what} succeeded")

def other_sees(path):
    return subprocess.run(["stat", path], capture_output=True).returncode == 0

def filt():
    return open(os.path.join(d, "filter")).read()

before = filt()
fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
os.write(fd, text)
if not os.path.exists(tmp) or os.stat(tmp).st_size != len(text):
    sys.exit("the creator does not see its temporary file whole")
if other_sees(tmp):
    sys.exit("another process sees the temporary file")
if "tmp_records.csv" in os.listdir(d):
    sys.exit("the temporary file is listed")
os.close(fd)
if filt() != before:
    sys.exit("closing the temporary file changed the selection")
refused("rename elsewhere", errno.EPERM, lambda: os.rename(tmp, os.path.join(d, "filter")))
os.rename(tmp, rec)
if filt() != "# imported: 3 rows\n":
    sys.exit(f"after the rename the filter is {filt()!r}")
if os.path.exists(tmp):
    sys.exit("the temporary file is still there after its rename")
# an unlinked one installs nothing
fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
os.write(fd, ("\n".join(lines[:2]) + "\n").encode())
os.close(fd)
os.unlink(tmp)
if os.path.exists(tmp) or filt() != "# imported: 3 rows\n":
    sys.exit("an unlinked temporary file is still there or changed the selection")
# a bad row fails its write; the rename is refused, nothing changes
fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
os.write(fd, (lines[0] + "\n").encode())
refused("write of a bad row", errno.EINVAL, lambda: os.write(fd, b"1,2,3\n"))
os.close(fd)
refused("rename of a refused temporary file", errno.EINVAL, lambda: os.rename(tmp, rec))
if filt() != "# imported: 3 rows\n":
    sys.exit("a refused temporary file changed the selection")
# other names and places stay refused
refused("create sel.csv", errno.EPERM, lambda: os.open(os.path.join(d, "sel.csv"), os.O_WRONLY | os.O_CREAT))
refused("create beside a log's filter", errno.EPERM, lambda: os.open(os.path.join(logdir, "tmp_records.csv"), os.O_WRONLY | os.O_CREAT))
refused("unlink records.csv", errno.EPERM, lambda: os.unlink(rec))
refused("rename records.csv", errno.EPERM, lambda: os.rename(rec, os.path.join(d, "x_records.csv")))
PY
say "ok: tmp_records.csv is seen by its creator only, installed by its rename, dropped by unlink; other names refused"

# ---- insights.csv: the files each finding names, a JSON array DuckDB
# unnests, row for row what Python's csv and json modules read
INS=$MNT/${LOGREL[0]}/insights.csv
t duckdb -c "COPY (SELECT code, f->>'file' AS file, f->>'record_id' AS record_id,
	(f->>'value')::DOUBLE AS value, (f->>'share')::DOUBLE AS share
	FROM (SELECT code, unnest(files::JSON[]) AS f FROM read_csv('$INS', all_varchar = true)))
	TO '$TMP/files.csv' (HEADER)" >/dev/null 2>"$TMP/err" ||
	fail "DuckDB cannot unnest insights.csv's files: $(head -c 300 "$TMP/err")"
python3 - "$INS" "$TMP/files.csv" <<'PY' || fail "DuckDB and Python read different files"
import csv, json, sys
want = []
for row in csv.DictReader(open(sys.argv[1], newline="")):
    for f in json.loads(row["files"]):
        want.append((row["code"], f["file"] or "", f["record_id"], f["value"], f.get("share")))
got = []
for row in csv.DictReader(open(sys.argv[2], newline="")):
    got.append((row["code"], row["file"], row["record_id"], float(row["value"]),
                float(row["share"]) if row["share"] else None))
if not want:
    sys.exit("insights.csv names no file")
if sorted(got, key=repr) != sorted(want, key=repr):
    sys.exit(f"DuckDB: {got}\nPython: {want}")
print(f"{len(got)} (finding, file) pairs")
PY
say "ok: DuckDB unnests the files of insights.csv as Python reads them"

dfs_alive "$MNT"
dfs_umount "$MNT"
say "PASS"
