#!/bin/bash
# corrupt.sh - damaged logs in the tree (empty, garbage, truncated at
# several points, bytes flipped or zeroed in the header, the middle and the
# end): every file of such a log reads or fails with EIO within seconds,
# the log's directory has an ERROR file saying why as soon as something of
# it is unreadable, and the daemon and every other log keep working.
. "$(dirname "$0")/lib.sh"

SRC=$TMP/src MNT=$TMP/mnt
make_tree "$SRC" "$LOGS"/sample.darshan "$LOGS"/dxt.darshan "$LOGS"/mpi-io-test-x86_64-3.5.0.darshan \
	"$LOGS"/snyder_ior-DFS_id4681120-53379_5-8-15060-3270540599978592154_1.darshan
GOOD=("${LOGREL[@]}")
BAD=$SRC/damaged
mkdir -p "$BAD"
python3 - "$BAD" "$LOGS"/dxt.darshan "$LOGS"/mpi-io-test-x86_64-3.5.0.darshan \
	"$LOGS"/snyder_ior-DFS_id4681120-53379_5-8-15060-3270540599978592154_1.darshan <<'PY'
import os, random, sys
out = sys.argv[1]
rnd = random.Random(7)
def w(name, data):
    open(os.path.join(out, name + ".darshan"), "wb").write(bytes(data))
w("empty", b"")
w("garbage", rnd.randbytes(5000))
for src in sys.argv[2:]:
    b = open(src, "rb").read()
    base = os.path.basename(src).split("_")[0].split(".darshan")[0][:24]
    n = len(b)
    w(f"{base}-trunc-header", b[:100])
    w(f"{base}-trunc-400", b[:400])
    for frac in (25, 50, 75, 90):
        w(f"{base}-trunc-{frac}pct", b[: n * frac // 100])
    w(f"{base}-trunc-minus1", b[: n - 1])
    for where, off in (("header", 8), ("third", n // 3), ("middle", n // 2), ("end", n - 80)):
        x = bytearray(b)
        for i in range(off, min(off + 64, n)):
            x[i] ^= 0xA5
        w(f"{base}-flip-{where}", x)
    x = bytearray(b); x[n // 3 : n // 3 + 4096] = bytes(min(4096, n - n // 3)); w(f"{base}-zeros", x)
    x = bytearray(b); x[rnd.randrange(n)] ^= 1 << rnd.randrange(8); w(f"{base}-bitflip", x)
PY
nbadlogs=$(ls "$BAD" | wc -l)
# old time stamps: the kernel keeps the listings taken below until a
# directory's time moves (a recent one moves at every look)
touch -m -d "@$(($(date +%s) - 100))" "$BAD"/*.darshan
dfs_mount "$SRC" "$MNT"

# read_all DIR...: list each DIR and read every file in it, one DIR after
# the other, in one python process (not one a log: a python start costs
# more than reading a damaged log); prints "NAME OK EIO SECONDS" a DIR;
# fails on any error but EIO or a short read, or when a DIR takes 20 s
cat >"$TMP/read_all.py" <<'PY'
import errno, os, signal, sys, time
def hung(sig, frame):
    sys.exit(f"listing or reading {os.path.basename(top)} hangs (20 s)")
signal.signal(signal.SIGALRM, hung)
for top in sys.argv[1:]:
    name = os.path.basename(top)
    start = time.monotonic()
    signal.alarm(20)
    ok = eio = 0
    for d, dirs, files in os.walk(top, onerror=lambda e: sys.exit(f"{name}: listing {top}: {e}")):
        for f in sorted(files):
            p = os.path.join(d, f)
            try:
                with open(p, "rb") as fh:
                    data = fh.read()
            except OSError as e:
                if e.errno != errno.EIO:
                    sys.exit(f"{name}: reading {os.path.relpath(p, top)} fails with '{e.strerror}', not EIO")
                eio += 1
                continue
            size = os.stat(p).st_size
            # a file that reads must still be exactly its st_size
            if len(data) != size:
                sys.exit(f"{name}: {os.path.relpath(p, top)}: read {len(data)} bytes, st_size {size}")
            ok += 1
    signal.alarm(0)
    print(name, ok, eio, "%.2f" % (time.monotonic() - start), flush=True)
PY
nok=0 neio=0 nerr=0 maxt=0
noerror=()
dirs=()
for f in "$BAD"/*.darshan; do dirs+=("$MNT/damaged/${f##*/}"); done
T=$((20 * ${#dirs[@]} + 10)) t python3 "$TMP/read_all.py" "${dirs[@]}" >"$TMP/read_all.out" 2>"$TMP/err"
st=$?
[ $st = 124 ] || [ $st = 137 ] && fail "listing or reading the damaged logs hangs"
[ $st = 0 ] || fail "$(cat "$TMP/err")"
[ "$(wc -l <"$TMP/read_all.out")" = ${#dirs[@]} ] || fail "read_all.py read $(wc -l <"$TMP/read_all.out") of ${#dirs[@]} damaged logs"
while read -r name ok eio el; do
	d=$MNT/damaged/$name
	nok=$((nok + ok))
	neio=$((neio + eio))
	# anything unreadable: ERROR says why (also when only some modules fail)
	if [ "$eio" -gt 0 ] || ! ref "$SRC" "damaged/$name/header.txt" >/dev/null 2>&1; then
		if [ ! -f "$d/ERROR" ]; then
			# checked at the end, so that the other checks still run
			noerror+=("$name ($eio of $((ok + eio)) files fail with EIO)")
		else
			T=10 t cat "$d/ERROR" >"$TMP/error" || fail "cat $name/ERROR failed"
			[ -s "$TMP/error" ] || fail "$name/ERROR is empty"
			nerr=$((nerr + 1))
		fi
	fi
	maxt=$(awk -v a="$maxt" -v b="$el" 'BEGIN { print (b > a) ? b : a }')
done <"$TMP/read_all.out"
dfs_alive "$MNT"
# each log was listed before it was read: ERROR shows in its listing once
# decoding found the problem
nlisted=0
for f in "$BAD"/*.darshan; do
	d=$MNT/damaged/$(basename "$f")
	if [ -f "$d/ERROR" ]; then
		listed_within 3 "$d" ERROR
		nlisted=$((nlisted + 1))
	fi
done
say "ok: $nlisted listings of damaged logs, taken before they were read, show ERROR"
say "ok: $nbadlogs damaged logs: $nok files read, $neio failed with EIO, $nerr ERROR files; slowest log ${maxt}s"
[ -f "$MNT/damaged/empty.darshan/ERROR" ] || fail "empty.darshan has no ERROR"
say "ok: empty.darshan/ERROR: $(cat "$MNT/damaged/empty.darshan/ERROR")"

# the good logs are untouched
n=0
for rel in "${GOOD[@]}"; do
	[ -e "$MNT/$rel/ERROR" ] && fail "good log $rel has an ERROR file"
	rm -rf "$TMP/want"
	ref --extract "$TMP/want" "$SRC" "$rel" || fail "darshanfs-cat --extract $rel failed"
	out=$(t python3 "$IT_DIR/readers.py" --tree "$MNT/$rel" "$TMP/want") ||
		fail "$rel differs after reading damaged logs"
	n=$((n + ${out%% *}))
	echo 'rank == 0' >"$MNT/$rel/filter" || fail "cannot filter $rel after reading damaged logs"
	: >"$MNT/$rel/filter"
done
say "ok: ${#GOOD[@]} good logs ($n files) read and filter as before"
# jobs.csv of the whole tree: a row for every log, an error row for every
# log that cannot be read, and the good logs' rows as usual
T=60 t cat "$MNT/jobs.csv" >"$TMP/jobs.csv" || fail "cat jobs.csv of a tree with damaged logs failed"
python3 - "$TMP/jobs.csv" "$BAD" "${GOOD[@]}" <<'PY' || fail "jobs.csv of the damaged tree (above)"
import csv, os, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
logs = {r["log"] for r in rows}
errors = {r["log"] for r in rows if r["error"]}
bad = sorted("damaged/" + n for n in os.listdir(sys.argv[2]))
missing = [b for b in bad if b not in logs]
if missing:
    sys.exit(f"damaged logs without a row: {missing[:5]}")
for g in sys.argv[3:]:
    if g not in logs or g in errors:
        sys.exit(f"good log {g}: {'no row' if g not in logs else 'an error row'}")
if "damaged/empty.darshan" not in errors:
    sys.exit("empty.darshan has no error row")
print(f"  jobs.csv: {len(rows)} rows, {len(errors)} logs with an error row", file=sys.stderr)
PY
say "ok: jobs.csv lists every damaged log (error rows) and the good ones"

# a log damaged while mounted, after it was read
cp "$LOGS/dxt.darshan" "$SRC/later.darshan"
t cat "$MNT/later.darshan/POSIX/records.csv" >/dev/null || fail "cannot read later.darshan"
head -c 30000 "$LOGS/dxt.darshan" >"$SRC/later.darshan.tmp"
mv "$SRC/later.darshan.tmp" "$SRC/later.darshan"
sleep 1.2   # attr_timeout
T=10 t cat "$MNT/later.darshan/DXT_POSIX/records.csv" >/dev/null 2>"$TMP/err"
st=$?
[ $st = 124 ] && fail "reading a log truncated while mounted hangs"
[ $st = 0 ] || grep -q "Input/output error" "$TMP/err" || fail "a log truncated while mounted: '$(cat "$TMP/err")'"
for x in $(cd "$MNT/later.darshan" && T=10 t find . -type f); do
	T=10 t cat "$MNT/later.darshan/$x" >/dev/null 2>&1
	[ $? = 124 ] && fail "later.darshan/$x hangs"
done
dfs_alive "$MNT"
say "ok: a log truncated while mounted reads or fails with EIO (status $st), the daemon lives"
dfs_umount "$MNT"
if [ ${#noerror[@]} -gt 0 ]; then
	printf '  %s\n' "${noerror[@]}" >&2
	fail "${#noerror[@]} damaged logs have files that fail with EIO but no ERROR file saying why (above)"
fi
say "PASS"
