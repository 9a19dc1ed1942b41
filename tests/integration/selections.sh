#!/bin/bash
# selections.sh - what each reader is told of their selections, on one
# shared mount (-o allow_other), root (the mount's owner) and a user:
#  - the root of the mount holds selections (rw), selections.csv and
#    selections.error; every file has its exact size for each reader;
#  - an import of 2 rows of a 2014-record log: derived_metrics says
#    "2 of 2014 records selected"; selections names the import, when it
#    was written and "POSIX: 2 of 2014 records selected", selections.csv
#    the same as a row (read by python's csv and by sqlite3);
#  - user.darshanfs.selection (getfattr, Python's os.getxattr) of every
#    file of a selection names the filters in force for the caller ("" when
#    none), listxattr lists it there and nowhere else; the user's filters
#    are the user's: root's attribute and list do not show them;
#  - a write of anything but "clear" into selections fails with EINVAL and
#    selections.error says why; "clear" removes every filter and import of
#    the writer only (the user's records.csv is the log's again, root's
#    import stays);
#  - cp into DXT_POSIX/records.csv fails with EINVAL and filter.error says
#    that DXT takes filters, not imports;
#  - an import and a log filter on one log: jobs.csv's filters cell names
#    them in the attribute's order;
#  - a log filter over a log whose STDIO module is damaged: selections and
#    selections.csv give that module a row saying why it has no count.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (to mount with allow_other and switch users)"
command -v setpriv >/dev/null || skip "setpriv is not installed"
command -v getfattr >/dev/null || skip "getfattr is not installed (Debian package attr)"
command -v sqlite3 >/dev/null || skip "sqlite3 is not installed"
U=1234
as() { t setpriv --reuid="$U" --regid="$U" --clear-groups "$@"; }

SRC=$TMP/src MNT=$TMP/mnt
mkdir -p "$SRC/2026/a" "$SRC/2026/b"
cp "$LOGS/imbalanced-io.darshan" "$LOGS/sample.darshan" "$SRC/2026/a/"
cp "$LOGS/dxt.darshan" "$SRC/2026/b/"
chmod 755 "$SRC" "$SRC/2026" "$SRC/2026/a" "$SRC/2026/b"
chmod 644 "$SRC"/2026/*/*.darshan
as test -r "$SRC/2026/a/sample.darshan" || skip "user $U cannot reach $SRC (a private TMPDIR?)"
dfs_mount "$SRC" "$MNT" -o allow_other
IMB=2026/a/imbalanced-io.darshan SAM=2026/a/sample.darshan DXT=2026/b/dxt.darshan

# ---- the root's files
t ls -l "$MNT" >"$TMP/ls" || fail "ls -l $MNT failed"
for want in "-rw-rw-rw- .* selections$" "-r--r--r-- .* selections.csv$" \
	"-r--r--r-- .* selections.error$"; do
	grep -q -- "^$want" "$TMP/ls" || fail "ls -l $MNT has no line like '$want': $(cat "$TMP/ls")"
done
slurp got "$MNT/selections"
[ -z "$got" ] || fail "selections lists '$got' before any filter"
say "ok: the root lists selections (rw), selections.csv, selections.error; nothing selected yet"

# ---- root imports 2 rows of the 2014-record log
cat "$MNT/$IMB/POSIX/records.csv" >"$TMP/all.csv"
total=$(($(wc -l <"$TMP/all.csv") - 1))
[ "$total" -gt 1000 ] || fail "$IMB/POSIX/records.csv has $total rows"
head -3 "$TMP/all.csv" >"$TMP/two.csv"
t cp "$TMP/two.csv" "$MNT/$IMB/POSIX/records.csv" || fail "importing 2 rows failed"
grep -qx "# darshanfs: 2 of $total records selected" "$MNT/$IMB/POSIX/derived_metrics" ||
	fail "derived_metrics after importing 2 rows: $(grep '^# darshanfs' "$MNT/$IMB/POSIX/derived_metrics")"
slurp got "$MNT/selections"
[[ $got == "$IMB/POSIX/records.csv: 2 rows imported"$'\n'"  import, written "2*" UTC"$'\n'"  POSIX: 2 of $total records selected" ]] ||
	fail "selections after an import: '$got'"
say "ok: an import of 2 rows: \"2 of $total records selected\" in derived_metrics and selections"

# ---- the user's filters: a directory's and a log's
as bash -c "echo 'rank >= 0' >'$MNT/2026/a/filter' && echo 'POSIX_OPENS > 0' >'$MNT/$SAM/filter'" ||
	fail "user $U could not write filters"
user_posix=$(as cat "$MNT/$IMB/POSIX/records.csv" | wc -l)
[ "$user_posix" -lt $((total + 1)) ] || fail "the user's directory filter selects every record ($user_posix rows)"

# every file of a selection has the attribute, each reader their own; the
# files and their sizes as each one sees them; selections.csv by python
cat >"$TMP/client.py" <<'PY'
import csv, io, os, sys

mnt, who, imb, sam, total, user_posix = sys.argv[1:7]
errors = []
A = "user.darshanfs.selection"
imp = f"{imb}/POSIX/records.csv: 2 rows imported"
dirf = "2026/a/filter: rank >= 0"
samf = f"{sam}/filter: POSIX_OPENS > 0"
mine = {"root": {"imb": imp, "sam": "", "top": imp},
        "user": {"imb": dirf, "sam": f"{dirf}; {samf}", "top": f"{dirf}; {samf}"}}[who]
want = {
    f"{imb}/POSIX/records.csv": mine["imb"], f"{imb}/POSIX/derived_metrics": mine["imb"],
    f"{imb}/POSIX/derived_metrics.json": mine["imb"], f"{imb}/POSIX/total": mine["imb"],
    f"{imb}/POSIX/total.csv": mine["imb"],
    f"{imb}/filtered.darshan": mine["imb"],
    f"{sam}/summary.html": mine["sam"], f"{sam}/derived_metrics": mine["sam"],
    f"{sam}/STDIO/records.csv": mine["sam"],
    f"{sam}/summary/io_cost.svg": mine["sam"], f"{sam}/insights.csv": mine["sam"],
    "jobs.csv": mine["top"], "2026/a/jobs.csv": mine["top"], "summary.html": mine["top"],
    "2026/b/jobs.csv": "", "selections": mine["top"], "selections.csv": mine["top"],
}
for rel, value in want.items():
    p = os.path.join(mnt, rel)
    try:
        got = os.getxattr(p, A).decode()
    except OSError as e:
        errors.append(f"{who}: getxattr {rel}: {e}")
        continue
    if got != value:
        errors.append(f"{who}: {rel}: {A} is {got!r}, expected {value!r}")
    if A not in os.listxattr(p):
        errors.append(f"{who}: listxattr {rel} has no {A}")
for rel in [f"{sam}/header.txt", f"{sam}/POSIX/filter", f"{sam}/filter.error",
            "filter", "selections.error", f"{sam}/names.csv", "2026"]:
    p = os.path.join(mnt, rel)
    if A in os.listxattr(p):
        errors.append(f"{who}: listxattr {rel} lists {A}")
    try:
        os.getxattr(p, A)
        errors.append(f"{who}: {rel} has {A}")
    except OSError as e:
        if e.errno != 61:   # ENODATA
            errors.append(f"{who}: getxattr {rel}: {e}")
# exact sizes of the root's files
for rel in ["selections", "selections.csv", "selections.error"]:
    p = os.path.join(mnt, rel)
    data = open(p, "rb").read()
    if os.stat(p).st_size != len(data):
        errors.append(f"{who}: {rel}: st_size {os.stat(p).st_size}, content {len(data)}")
# selections.csv: a row per filter and module, the counts of the selections
rows = list(csv.DictReader(io.StringIO(open(os.path.join(mnt, "selections.csv")).read())))
got = {(r["file"], r["module"]): r for r in rows}
if who == "root":
    keys = {(f"{imb}/POSIX/records.csv", "POSIX")}
else:
    keys = {("2026/a/filter", "")} | {(f"{sam}/filter", m) for m in
                                      ["POSIX", "MPI-IO", "LUSTRE", "STDIO"]}
if set(got) != keys:
    errors.append(f"{who}: selections.csv rows {sorted(got)}, expected {sorted(keys)}")
for (f, m), r in got.items():
    if r["level"] == "directory":
        if r["filter"] != "rank >= 0" or r["selected"] or r["log_records"]:
            errors.append(f"{who}: directory row {r}")
        continue
    recs = open(os.path.join(mnt, r["log"], m, "records.csv")).read().count("\n") - 1
    if m in ("POSIX", "STDIO", "MPI-IO") and int(r["selected"]) != recs:
        errors.append(f"{who}: {f} {m}: {r['selected']} selected, records.csv has {recs} rows")
    if not r["written"].endswith("Z") or r["error"]:
        errors.append(f"{who}: {f} {m}: {r}")
if who == "root":
    r = got[(f"{imb}/POSIX/records.csv", "POSIX")]
    if (r["level"], r["imported_rows"], r["selected"], r["log_records"]) != ("import", "2", "2", total):
        errors.append(f"root: the import's row {r}")
for e in errors:
    print(e)
sys.exit(1 if errors else 0)
PY
chmod 644 "$TMP/client.py"
t python3 "$TMP/client.py" "$MNT" root "$IMB" "$SAM" "$total" "$user_posix" || fail "root's view (above)"
as python3 "$TMP/client.py" "$MNT" user "$IMB" "$SAM" "$total" "$user_posix" || fail "the user's view (above)"
# getfattr says the same, per user
got=$(t getfattr --absolute-names --only-values -n user.darshanfs.selection "$MNT/$IMB/POSIX/total") ||
	fail "getfattr of $IMB/POSIX/total failed"
[ "$got" = "$IMB/POSIX/records.csv: 2 rows imported" ] || fail "getfattr as root: '$got'"
got=$(as getfattr --absolute-names --only-values -n user.darshanfs.selection "$MNT/$IMB/POSIX/total") ||
	fail "getfattr of $IMB/POSIX/total as $U failed"
[ "$got" = "2026/a/filter: rank >= 0" ] || fail "getfattr as $U: '$got'"
t getfattr --absolute-names -d "$MNT/$SAM/POSIX/records.csv" >"$TMP/attrs" || fail "getfattr -d failed"
grep -qx 'user.darshanfs.selection=""' "$TMP/attrs" || fail "getfattr -d as root: $(cat "$TMP/attrs")"
# sqlite3 reads selections.csv as a table
got=$(as sqlite3 :memory: ".import --csv '$MNT/selections.csv' s" \
	"select sum(selected), count(*) from s where level = 'log' and module in ('POSIX', 'MPI-IO', 'STDIO')") ||
	fail "sqlite3 could not read selections.csv"
want=$(as python3 -c 'import sys; print(sum(open(f"{sys.argv[1]}/{m}/records.csv").read().count("\n") - 1 for m in ["POSIX", "MPI-IO", "STDIO"]))' "$MNT/$SAM")
[ "$got" = "$want|3" ] || fail "sqlite3 sums the log filter's selected records: '$got', records.csv of its 3 modules: $want"
say "ok: user.darshanfs.selection (os.getxattr, getfattr) and listxattr on the files of a selection, each reader's own; selections.csv by python and sqlite3"

# ---- refused writes change nothing
cat "$MNT/selections" >"$TMP/before"
for bad in nope "clear everything" "rm -rf"; do
	out=$(as bash -c "echo '$bad' >'$MNT/selections'" 2>&1) && fail "'$bad' > selections was accepted"
	[[ $out == *"Invalid argument"* ]] || fail "'$bad' > selections: '$out', expected Invalid argument"
	slurp why "$MNT/selections.error"
	[ -z "$why" ] || fail "root's selections.error says '$why' after the user's refused write"
	why=$(as cat "$MNT/selections.error")
	[[ $why == "selections takes the word clear"*"not '$bad'" ]] || fail "the user's selections.error: '$why'"
done
cmp -s "$TMP/before" "$MNT/selections" || fail "a refused write changed root's selections"
[ "$(as cat "$MNT/selections" | grep -c '^2026/.*filter: ')" = 2 ] || fail "a refused write changed the user's selections"
say "ok: anything but clear is refused with EINVAL, the reason in the writer's selections.error"

# ---- the user clears theirs; root's import stays
as bash -c "echo clear >'$MNT/selections'" || fail "echo clear > selections failed"
got=$(as cat "$MNT/selections" "$MNT/selections.error")
[ -z "$got" ] || fail "the user's selections after clear: '$got'"
as cat "$MNT/$IMB/POSIX/records.csv" >"$TMP/user.csv"
cmp -s "$TMP/all.csv" "$TMP/user.csv" || fail "the user's records.csv is not the log's after clear"
[ -z "$(as cat "$MNT/2026/a/filter" "$MNT/$SAM/filter")" ] || fail "the user's filters are not empty after clear"
got=$(as getfattr --absolute-names --only-values -n user.darshanfs.selection "$MNT/$SAM/summary.html")
[ -z "$got" ] || fail "the user's summary.html says '$got' after clear"
grep -q "^  POSIX: 2 of $total records selected$" "$MNT/selections" || fail "root's import is gone after the user's clear"
[ "$(wc -l <"$MNT/$IMB/POSIX/records.csv")" = 3 ] || fail "root's records.csv changed with the user's clear"
# root clears with `: >`
: >"$MNT/selections" || fail ": > selections failed"
slurp got "$MNT/selections"
[ -z "$got" ] || fail "selections after : > selections: '$got'"
cmp -s "$TMP/all.csv" "$MNT/$IMB/POSIX/records.csv" || fail "records.csv is not the log's after : > selections"
say "ok: echo clear > selections removes the user's filters only; : > selections root's import"

# ---- DXT takes filters, not imports
head -2 "$MNT/$DXT/DXT_POSIX/records.csv" >"$TMP/dxt.csv"
chmod 644 "$TMP/dxt.csv"
out=$(as cp "$TMP/dxt.csv" "$MNT/$DXT/DXT_POSIX/records.csv" 2>&1) && fail "cp into DXT_POSIX/records.csv succeeded"
[[ $out == *"Invalid argument"* ]] || fail "cp into DXT_POSIX/records.csv: '$out', expected Invalid argument"
why=$(as cat "$MNT/$DXT/DXT_POSIX/filter.error")
[[ $why == "DXT_POSIX/records.csv takes no import: DXT takes filters, not imports"* ]] ||
	fail "DXT_POSIX/filter.error: '$why'"
slurp got "$MNT/$DXT/DXT_POSIX/filter.error"
[ -z "$got" ] || fail "root's DXT_POSIX/filter.error says '$got' after the user's import"
say "ok: cp into DXT_POSIX/records.csv: EINVAL, filter.error: ${why%%;*}"

# ---- an import and a log filter on one log: jobs.csv's filters cell names
# them in the order of the attribute (the log's filter, then the modules')
t cp "$TMP/two.csv" "$MNT/$IMB/POSIX/records.csv" || fail "importing 2 rows again failed"
echo 'rank >= -1' >"$MNT/$IMB/filter" || fail "a log filter on $IMB failed"
t python3 - "$MNT" "$IMB" <<'PY' || fail "jobs.csv's filters and the attribute differ (above)"
import csv, os, sys
mnt, imb = sys.argv[1:3]
want = f"{imb}/filter: rank >= -1; {imb}/POSIX/records.csv: 2 rows imported"
attr = os.getxattr(os.path.join(mnt, imb, "summary.html"), "user.darshanfs.selection").decode()
row = [r for r in csv.DictReader(open(os.path.join(mnt, "jobs.csv"))) if r["log"] == imb]
assert attr == want, (attr, want)
assert len(row) == 1 and row[0]["filters"] == want, (row, want)
PY
: >"$MNT/selections" || fail ": > selections failed"
say "ok: an import and a log filter: jobs.csv's filters cell and the attribute in one order"

# ---- a log filter over a damaged module: its row says why it has no count
mkdir -p "$SRC/2026/c"
size=$(stat -c %s "$LOGS/sample.darshan")
head -c $((size - 1000)) "$LOGS/sample.darshan" >"$SRC/2026/c/cut.darshan"
chmod 755 "$SRC/2026/c"
chmod 644 "$SRC/2026/c/cut.darshan"
CUT=2026/c/cut.darshan
for i in $(seq 50); do [ -d "$MNT/$CUT" ] && break; sleep 0.1; done
t cat "$MNT/$CUT/STDIO/records.csv" >/dev/null 2>&1 && fail "$CUT/STDIO/records.csv reads (the module should be damaged)"
echo 'rank == 0' >"$MNT/$CUT/filter" || fail "a log filter on $CUT failed"
grep -q "^  POSIX: [0-9]* of [0-9]* records selected$" "$MNT/selections" ||
	fail "selections has no POSIX count for $CUT: $(cat "$MNT/selections")"
grep -q "^  STDIO: no count: STDIO module: .*lies outside the file" "$MNT/selections" ||
	fail "selections does not say why STDIO of $CUT has no count: $(cat "$MNT/selections")"
t python3 - "$MNT/selections.csv" "$CUT" <<'PY' || fail "selections.csv's row of the damaged module (above)"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["log"] == sys.argv[2]]
stdio = [r for r in rows if r["module"] == "STDIO"]
assert len(stdio) == 1, rows
assert stdio[0]["selected"] == "" and stdio[0]["log_records"] == "", stdio
assert "lies outside the file" in stdio[0]["error"], stdio
assert all(r["error"] == "" and r["selected"] != "" for r in rows if r["module"] != "STDIO"), rows
PY
: >"$MNT/$CUT/filter"
say "ok: a log filter over a damaged module: selections and selections.csv say why it has no count"

dfs_alive "$MNT"
dfs_umount "$MNT"
say "PASS"
