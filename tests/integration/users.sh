#!/bin/bash
# users.sh - one shared mount (-o allow_other), two unprivileged users
# (uids 1234 and 65534, no groups) and root, the mount's owner:
#  - each user writes filters of their own everywhere: the top directory,
#    a sub-directory, a shared log's log-wide and module filters, an
#    import into records.csv, the filter of a log only they may read;
#    nobody writes a filter where they may not read;
#  - no byte of a user's private logs (exe, file names, the error of a
#    damaged one) nor of their filters reaches the other user or root
#    through any file of the tree (every file each one may read is read);
#  - a user who has not written yet, and root, see every record: the
#    shared log's files equal darshanfs-cat's unfiltered ones byte for byte;
#  - each user's filters stay in force, whatever the other writes, and
#    their files name them (derived_metrics, the JSON's "filters",
#    jobs.csv's filters column, '# from' lines of the filters below).
# One python3 process per user and step.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (to mount with allow_other and switch users)"
command -v setpriv >/dev/null || skip "setpriv is not installed"
A=1234 B=65534
as() { local u=$1; shift; t setpriv --reuid="$u" --regid="$u" --clear-groups "$@"; }

SRC=$TMP/src MNT=$TMP/mnt
mkdir -p "$SRC/shared/2026" "$SRC/a" "$SRC/b"
cp "$LOGS/hdf5_file_opens_only.darshan" "$SRC/shared/2026/common.darshan"
cp "$LOGS/ior_hdf5_example.darshan" "$SRC/a/a_secret.darshan"
cp "$LOGS/ior_hdf5_example.darshan" "$SRC/shared/2026/a_own.darshan"
head -c 700 "$LOGS/ior_hdf5_example.darshan" >"$SRC/shared/2026/a_damaged.darshan"
cp "$LOGS/laytonjb_test1_id28730_6-7-43012-2131301613401632697_1.darshan" "$SRC/b/b_secret.darshan"
mkdir -p "$SRC/dxt/2026"
cp "$LOGS/sample-dxt-simple.darshan" "$SRC/dxt/2026/traced.darshan"
chmod 644 "$SRC/dxt/2026/traced.darshan"
chmod 755 "$SRC" "$SRC/shared" "$SRC/shared/2026" "$SRC/dxt" "$SRC/dxt/2026"
chmod 644 "$SRC/shared/2026/common.darshan"
chown -R $A:$A "$SRC/a" "$SRC/shared/2026/a_own.darshan" "$SRC/shared/2026/a_damaged.darshan"
chown -R $B:$B "$SRC/b"
chmod 700 "$SRC/a" "$SRC/b"
chmod 600 "$SRC/a/a_secret.darshan" "$SRC/shared/2026/a_own.darshan" \
	"$SRC/shared/2026/a_damaged.darshan" "$SRC/b/b_secret.darshan"
as $B test -r "$SRC/shared/2026/common.darshan" || skip "user $B cannot reach $SRC (a private TMPDIR?)"
# what everyone sees before writing anything: darshanfs-cat's files
REF=$TMP/ref
mkdir -p "$REF"
C=shared/2026/common.darshan
for f in POSIX/records.csv POSIX/derived_metrics POSIX/derived_metrics.json H5F/records.csv \
	derived_metrics; do
	ref "$SRC" "$C/$f" >"$REF/${f//\//_}" || fail "darshanfs-cat $C/$f failed"
done
chmod -R a+rX "$REF"

cat >"$TMP/client.py" <<'PY'
import json, os, sys

step, mnt, ref = sys.argv[1], sys.argv[2], sys.argv[3]
C = "shared/2026/common.darshan"
SECRET = {"a": [b"ssnyder", b"test123", b"a_secret", b"a_damaged"],
          "b": [b"laytonjb", b"jeff.txt", b"b_secret"]}
MARK = {"a": b"!= 77000", "b": b"!= 88000"}
errors = []

def err(msg):
    errors.append(msg)

def p(rel):
    return os.path.join(mnt, rel)

def read(rel):
    with open(p(rel), "rb") as f:
        return f.read()

def write(rel, text):
    with open(p(rel), "w") as f:
        f.write(text)

def everything():
    """every file below the mount this process may read: path -> bytes"""
    seen = {}
    for d, dirs, files in os.walk(mnt, onerror=lambda e: None):
        for name in files:
            try:
                with open(os.path.join(d, name), "rb") as f:
                    seen[os.path.relpath(os.path.join(d, name), mnt)] = f.read()
            except OSError:
                pass
    return seen

def no_trace_of(seen, who, what):
    """no byte of user `who`'s logs or filters in the files seen"""
    for rel, data in seen.items():
        for s in SECRET[who] + [MARK[who]]:
            if s in data:
                err(f"{what} reads {s!r} of user {who} in {rel}")

def own(rel):
    """a filter file's own expression (without the '# from' lines)"""
    lines = read(rel).decode().splitlines()
    return "\n".join(l for l in lines if not l.startswith("# from "))

def same_as_ref(names):
    for f in names:
        want = open(os.path.join(ref, f.replace("/", "_")), "rb").read()
        if read(f"{C}/{f}") != want:
            err(f"{C}/{f} is not the unfiltered file")

A_FILTERS = {
    "filter": "rank != 770001",
    "shared/filter": "rank != 770002",
    f"{C}/filter": "rank != 770003",
    f"{C}/POSIX/filter": "rank == 1 and POSIX_OPENS != 770004",
    "shared/2026/a_own.darshan/POSIX/filter": "rank != 770005",
}
B_FILTERS = {
    "filter": "rank != 880001",
    "shared/2026/filter": "rank != 880002",
    f"{C}/POSIX/filter": "rank != 0 and rank != 880004",
    "b/b_secret.darshan/STDIO/filter": "rank != 880005",
}

def check_own(filters, who):
    for rel, text in filters.items():
        if own(rel) != text:
            err(f"user {who}: {rel} reads {own(rel)!r}, not their {text!r}")

def rows(rel):
    return read(rel).count(b"\n") - 1

if step == "a1":
    # a user who wrote nothing sees every record
    same_as_ref(["POSIX/records.csv", "POSIX/derived_metrics", "POSIX/derived_metrics.json",
                 "derived_metrics"])
    for rel, text in A_FILTERS.items():
        write(rel, text + "\n")
    head = open(os.path.join(ref, "H5F_records.csv"), "rb").read().split(b"\n")
    with open(p(f"{C}/H5F/records.csv"), "wb") as f:
        f.write(head[0] + b"\n" + head[1] + b"\n")
    check_own(A_FILTERS, "a")
    if read(f"{C}/H5F/filter") != b"# imported: 1 rows\n":
        err(f"user a's import: H5F/filter reads {read(f'{C}/H5F/filter')!r}")
    if rows(f"{C}/POSIX/records.csv") != 369:
        err(f"user a: {rows(f'{C}/POSIX/records.csv')} POSIX rows, not rank 1's 369")
    # the filters in force are named
    dm = read(f"{C}/POSIX/derived_metrics").decode()
    for line in ["# filter filter: rank != 770001", "# filter shared/filter: rank != 770002",
                 f"# filter {C}/filter: rank != 770003",
                 f"# filter {C}/POSIX/filter: rank == 1 and POSIX_OPENS != 770004"]:
        if line not in dm:
            err(f"user a: POSIX/derived_metrics lacks {line!r}")
    js = json.loads(read(f"{C}/POSIX/derived_metrics.json"))
    if [l["file"] for l in js.get("filters", [])] != ["filter", "shared/filter", f"{C}/filter",
                                                      f"{C}/POSIX/filter"]:
        err(f"user a: derived_metrics.json filters {js.get('filters')}")
    jobs = read("shared/jobs.csv").decode()
    if "filter: rank != 770001; shared/filter: rank != 770002" not in jobs:
        err("user a: shared/jobs.csv does not name their filters")
    if "rank != 770002" not in read("shared/2026/filter").decode().split("\n")[-2]:
        err(f"user a: shared/2026/filter reads {read('shared/2026/filter')!r}")
elif step == "b1":
    seen = everything()
    no_trace_of(seen, "a", "user b")
    if not any(r.startswith(C) for r in seen) or "jobs.csv" not in seen:
        err(f"user b read {len(seen)} files, not the shared log's nor jobs.csv")
    same_as_ref(["POSIX/records.csv", "POSIX/derived_metrics", "POSIX/derived_metrics.json",
                 "H5F/records.csv", "derived_metrics"])
    for rel in ["filter", "shared/filter", f"{C}/filter", f"{C}/POSIX/filter"]:
        if read(rel):
            err(f"user b: {rel} reads {read(rel)!r} before they wrote anything")
    # no filter where they may not read: user a's directory and log
    for rel in ["a/filter", "shared/2026/a_own.darshan/POSIX/filter",
                "shared/2026/a_own.darshan/filter"]:
        try:
            write(rel, "rank != 880009\n")
            err(f"user b could write {rel}")
        except PermissionError:
            pass
    for rel in ["filter", f"{C}/filter", f"{C}/POSIX/filter"]:
        if os.stat(p(rel)).st_mode & 0o777 != 0o666:
            err(f"{rel} is {oct(os.stat(p(rel)).st_mode)}, not writable by whoever reads it")
    for rel, text in B_FILTERS.items():
        write(rel, text + "\n")
    check_own(B_FILTERS, "b")
    if rows(f"{C}/POSIX/records.csv") != 738:
        err(f"user b: {rows(f'{C}/POSIX/records.csv')} POSIX rows, not ranks 1 and 2's 738")
    if rows(f"{C}/H5F/records.csv") <= 1:
        err("user b: H5F/records.csv shows user a's import")
    if read(f"{C}/POSIX/filter").decode().split("\n")[1:] != [
            "# from filter: rank != 880001", "# from shared/2026/filter: rank != 880002", ""]:
        err(f"user b: POSIX/filter reads {read(f'{C}/POSIX/filter')!r}")
    no_trace_of(everything(), "a", "user b (after writing)")
elif step == "a2":
    seen = everything()
    no_trace_of(seen, "b", "user a")
    check_own(A_FILTERS, "a")
    if rows(f"{C}/POSIX/records.csv") != 369:
        err("user a: their POSIX selection changed after user b wrote")
    if read(f"{C}/H5F/filter") != b"# imported: 1 rows\n":
        err("user a: their import changed after user b wrote")
elif step == "root":
    seen = everything()
    for rel, data in seen.items():
        for m in MARK.values():
            if m in data:
                err(f"root reads {m!r} (a user's filter) in {rel}")
    same_as_ref(["POSIX/records.csv", "POSIX/derived_metrics", "POSIX/derived_metrics.json",
                 "H5F/records.csv", "derived_metrics"])
    if b"a_damaged.darshan" not in seen.get("shared/2026/jobs.csv", b""):
        err("root's shared/2026/jobs.csv lacks the damaged log's row")
    print(f"root read {len(seen)} files")
for e in errors[:20]:
    print("ERROR:", e)
print(f"{step}: {len(errors)} errors")
sys.exit(1 if errors else 0)
PY
chmod 644 "$TMP/client.py"

dfs_mount "$SRC" "$MNT" -o allow_other
as $A python3 "$TMP/client.py" a1 "$MNT" "$REF" || fail "user $A's filters (above)"
say "ok: user $A filters a directory, a sub-directory, a shared log (log-wide, module, import) and their own log; their files name the filters"
as $B python3 "$TMP/client.py" b1 "$MNT" "$REF" || fail "user $B's view (above)"
say "ok: user $B reads nothing of user $A's logs or filters in any file, sees every record until they write, then only their own filters"
as $A python3 "$TMP/client.py" a2 "$MNT" "$REF" || fail "user $A's view after user $B wrote (above)"
say "ok: user $A reads nothing of user $B's logs or filters; their own filters stay in force"
t python3 "$TMP/client.py" root "$MNT" "$REF" || fail "root's view (above)"
say "ok: root, the mount's owner, sees no user's filter: every record"
# LOG/summary/dxt lists the traced files of the reader's selection: user
# A's DXT filter leaves one of the two files for A only, whoever lists
# first (the kernel keeps no listing of it shared between users)
X=dxt/2026/traced.darshan
L=$TMP/lists
mkdir -p "$L"
ref --list "$SRC" "$X/summary/dxt" | LC_ALL=C sort >"$L/all" || fail "darshanfs-cat --list $X/summary/dxt failed"
ref --write DXT_POSIX/filter='length < 1000' --write DXT_MPIIO/filter='length < 1000' \
	--list "$SRC/$X" summary/dxt | LC_ALL=C sort >"$L/a_want" ||
	fail "darshanfs-cat --list of the filtered $X/summary/dxt failed"
cmp -s "$L/all" "$L/a_want" && fail "the DXT filter of the test selects every traced file"
chmod 755 "$L"
LC_ALL=C as $B ls "$MNT/$X/summary/dxt" >"$L/b_before" || fail "user $B cannot list $X/summary/dxt"
for m in DXT_POSIX DXT_MPIIO; do
	as $A sh -c "echo 'length < 1000' >'$MNT/$X/$m/filter'" || fail "user $A's $m filter was refused"
done
for who in $A $B $A 0 $A; do
	LC_ALL=C as $who ls "$MNT/$X/summary/dxt" >"$L/got" || fail "user $who cannot list $X/summary/dxt"
	want=$L/all
	[ "$who" = $A ] && want=$L/a_want
	cmp -s "$L/got" "$want" ||
		fail "user $who lists $X/summary/dxt as: $(tr '\n' ' ' <"$L/got") (want $(tr '\n' ' ' <"$want"))"
done
cmp -s "$L/b_before" "$L/all" || fail "user $B's first listing of $X/summary/dxt is not every traced file"
say "ok: summary/dxt lists the reader's own selection of traced files, whoever lists first"
dfs_alive "$MNT"
dfs_umount "$MNT"
say "PASS"
