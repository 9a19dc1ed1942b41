#!/bin/bash
# cluster.sh - more than one machine: an existing engine reads the tree by
# path, partitioned by directory (docs/cluster.md).
#  - Dask distributed, for real: a scheduler and two worker processes,
#    each worker on a "node" of its own -- a mount namespace in which its
#    own darshanfs mount of the same SOURCE (with its own index) sits at
#    the same path as everyone's -- over a generated tree of four months
#    of days.  dd.read_csv over the per-day jobs.csv, with the types of
#    schema.json, gives the jobs and the bytes per day; they equal what
#    the root jobs.csv of a single mount gives, and each worker's mount
#    decoded only its share of the logs (their counts add up to the tree).
#  - DuckDB: one glob over the per-day jobs.csv equals the root table, row
#    for row.
# Each part skips with a message when its engine cannot be had (Debian's
# python3-dask and python3-distributed; DuckDB as duckdb.sh finds it).
NO_SHARED_LOGS=1
. "$(dirname "$0")/lib.sh"
[ -x "$GEN" ] || skip "$GEN is not built"

DASKPY=""
for py in /usr/bin/python3 python3; do
	if "$py" -c 'import dask.dataframe, distributed, pandas' 2>/dev/null; then
		DASKPY=$py
		break
	fi
done
DUCK=""
if command -v duckdb >/dev/null; then
	DUCK=duckdb
elif command -v node >/dev/null &&
	[ -f "$DFS_DUCKDB_DIR/node_modules/@duckdb/node-api/package.json" ]; then
	PATH=$IT_DIR/duckdb-shim:$PATH
	DUCK=duckdb
fi
[ -n "$DASKPY$DUCK" ] || skip "neither Dask (python3-dask, python3-distributed) nor DuckDB"

SRC=$TMP/src MNT=$TMP/mnt
NLOGS=480
[ "${DFS_TEST_QUICK:-0}" = 1 ] && NLOGS=240
T0=$SECONDS
t "$GEN" --logs $NLOGS --records 2 -o "$SRC" >/dev/null || fail "darshanfs-gen failed"
ndays=$(find "$SRC" -mindepth 3 -maxdepth 3 -type d | wc -l)
say "$NLOGS logs over $ndays days ($((SECONDS - T0)) s)"
mkdir -p "$MNT"

NODE_PIDS=()
SCHED_PID=""
stop_cluster() {
	local p
	for p in "${NODE_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for p in "${NODE_PIDS[@]}"; do
		for i in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$p" 2>/dev/null
	done
	NODE_PIDS=()
	[ -n "$SCHED_PID" ] && kill -TERM "$SCHED_PID" 2>/dev/null
	SCHED_PID=""
}
trap 'stop_cluster; cleanup' EXIT

# the sanitizer build's pass leaves the Dask part out when DuckDB is there
no_dask=false
[ "${DFS_TEST_QUICK:-0}" = 1 ] && [ -n "$DUCK" ] && no_dask=true
if $no_dask; then
	# the sanitizer build's pass: half of this part's CPU is the engine's
	# own (four Python processes importing pandas and distributed), which
	# the sanitizers do not look at; what the mounts do for it (every
	# day's jobs.csv, read from another process) the DuckDB glob below
	# does too, and a mount's own index is integration-index's
	say "SKIP (part): Dask in the sanitizer build's pass (the normal pass runs it)"
elif [ -n "$DASKPY" ] && command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
	# the scheduler, then the nodes (before the client's mount: a node's
	# namespace must not hold a copy of it)
	"$DASKPY" -m distributed.cli.dask_scheduler --scheduler-file "$TMP/scheduler.json" \
		--host 127.0.0.1 --port 0 --no-dashboard >"$TMP/scheduler.log" 2>&1 &
	SCHED_PID=$!
	cat >"$TMP/node.sh" <<'EOF'
#!/bin/bash
# node.sh NAME: a node of the cluster, in a mount namespace of its own:
# its darshanfs mount of SRC at MNT (its own index) and a Dask worker
set -u
name=$1
"$DARSHANFS" -f -o "index=$TMP/$name.index" "$SRC" "$MNT" >"$TMP/$name.darshanfs.log" 2>&1 &
dpid=$!
for i in $(seq 200); do mountpoint -q "$MNT" && break; sleep 0.05; done
"$DASKPY" -m distributed.cli.dask_worker --scheduler-file "$TMP/scheduler.json" \
	--nthreads 1 --nworkers 1 --no-nanny --no-dashboard --name "$name" \
	--local-directory "$TMP/$name.dask" >"$TMP/$name.worker.log" 2>&1 &
wpid=$!
stop() {
	trap - TERM INT EXIT
	kill -TERM "$wpid" 2>/dev/null
	wait "$wpid"
	fusermount3 -u "$MNT"
	wait "$dpid"
	exit 0
}
trap stop TERM INT EXIT
wait "$wpid"
EOF
	for name in node1 node2; do
		DARSHANFS=$DARSHANFS SRC=$SRC MNT=$MNT TMP=$TMP DASKPY=$DASKPY \
			unshare -m --propagation private bash "$TMP/node.sh" "$name" </dev/null &
		NODE_PIDS+=($!)
	done
fi

# the client's own mount: the single-mount answer
dfs_mount "$SRC" "$MNT"

if [ ${#NODE_PIDS[@]} -gt 0 ]; then
	T1=$SECONDS
	out=$(T=300 t "$DASKPY" - "$MNT" "$TMP/scheduler.json" "$NLOGS" <<'PY'
import json, os, sys
import pandas as pd
import dask.dataframe as dd
from distributed import Client

mnt, sched, nlogs = sys.argv[1], sys.argv[2], int(sys.argv[3])
client = Client(scheduler_file=sched, timeout=60)
client.wait_for_workers(2, timeout=60)
workers = sorted(w["name"] for w in client.scheduler_info()["workers"].values())
if workers != ["node1", "node2"]:
    sys.exit(f"workers {workers}")
cols = json.load(open(os.path.join(mnt, "schema.json")))["tables"]["jobs.csv"]["columns"]
dtype = {c["name"]: c["pandas"] for c in cols}
opts = dict(dtype=dtype, keep_default_na=False, na_values=[""])

# every day's table, one partition each, read on the workers
days = dd.read_csv(os.path.join(mnt, "*", "*", "*", "jobs.csv"), blocksize=None,
                   include_path_column="table", **opts)
if days.npartitions < 20:
    sys.exit(f"{days.npartitions} partitions: not the days of the tree")
cut = len(mnt) + 1
def day_of(df):
    df = df.copy()
    df["day"] = df["table"].astype(str).str.slice(cut, -len("/jobs.csv"))
    return df
days = days.map_partitions(day_of)
got = days.groupby("day").agg({"jobid": "count", "io_bytes": "sum"}).compute()

# the single mount's answer: its root table
root = pd.read_csv(os.path.join(mnt, "jobs.csv"), **opts)
root["day"] = root["log"].str.rsplit("/", n=1).str[0]
want = root.groupby("day").agg({"jobid": "count", "io_bytes": "sum"})
got, want = got.sort_index(), want.sort_index()
if len(root) != nlogs:
    sys.exit(f"the root jobs.csv has {len(root)} rows, not {nlogs}")
if list(got.index) != list(want.index):
    sys.exit(f"days: Dask {list(got.index)[:3]}..., the root table {list(want.index)[:3]}...")
for day in want.index:
    g, w = got.loc[day], want.loc[day]
    if int(g["jobid"]) != int(w["jobid"]) or int(g["io_bytes"]) != int(w["io_bytes"]):
        sys.exit(f"{day}: Dask {int(g['jobid'])} jobs, {int(g['io_bytes'])} bytes; "
                 f"the root table {int(w['jobid'])}, {int(w['io_bytes'])}")
if str(days.dtypes["io_bytes"]) != "Int64" or str(days.dtypes["run_time"]) != "float64":
    sys.exit(f"types: {days.dtypes.to_dict()}")

# each node decoded its share of the logs, through its own mount
dec = client.run(lambda: int(os.getxattr(mnt, "user.darshanfs.decodes")))
counts = sorted(dec.values())
if len(counts) != 2 or min(counts) == 0 or sum(counts) != nlogs:
    sys.exit(f"the nodes' mounts decoded {counts} logs, not shares of {nlogs}")
print(f"{len(want)} days, {int(want['jobid'].sum())} jobs, {int(want['io_bytes'].sum())} bytes "
      f"per day equal the root table; the two nodes decoded {counts[0]} + {counts[1]} logs")
client.close()
PY
	) || fail "Dask over two mounts (above; logs: $(tail -3 "$TMP"/node*.worker.log 2>/dev/null))"
	say "ok: Dask, two nodes: $out ($((SECONDS - T1)) s)"
	stop_cluster
elif $no_dask; then
	:   # (said above)
elif [ -n "$DASKPY" ]; then
	say "SKIP (part): cannot make mount namespaces (unshare -m): no Dask nodes"
else
	say "SKIP (part): no Dask (python3-dask, python3-distributed): contrib/deps.sh test installs them"
fi

if [ -n "$DUCK" ]; then
	cols=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["tables"]["jobs.csv"]["duckdb_columns"])' "$MNT/schema.json")
	rc="header = true, auto_detect = false, columns = $cols"
	out=$(t duckdb -c "create table g as select * from read_csv('$MNT/*/*/*/jobs.csv', $rc, filename = true)" \
		-c "create table r as select * from read_csv('$MNT/jobs.csv', $rc)" \
		-c "create table gp as select regexp_extract(filename, '([0-9]+/[0-9]+/[0-9]+)/jobs.csv\$', 1) || '/' || log as path, * exclude (log, filename) from g" \
		-c "select (select count(*) from g) as glob, (select count(*) from r) as root,
		        (select count(*) from (select * from gp except select log, * exclude (log) from r)) as extra,
		        (select count(*) from (select log, * exclude (log) from r except select * from gp)) as missing,
		        (select sum(io_bytes) from g) = (select sum(io_bytes) from r) as same_bytes") ||
		fail "duckdb over the glob failed: $out"
	row=$(echo "$out" | tail -1)
	[ "$row" = "$NLOGS,$NLOGS,0,0,true" ] || fail "DuckDB: glob, root, extra, missing, same bytes = $row"
	say "ok: DuckDB: one glob over the days' jobs.csv equals the root table ($NLOGS rows, typed by schema.json)"
else
	say "SKIP (part): no DuckDB (duckdb, or node and contrib/deps.sh duckdb)"
fi
dfs_umount "$MNT"
say "PASS ($((SECONDS - T0)) s)"
