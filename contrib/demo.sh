#!/usr/bin/env bash
# demo.sh - set up darshanfs and show it working.
#
#   contrib/demo.sh [SOURCE]
#
# Installs what is missing (Debian packages), builds darshanfs, and mounts
# SOURCE (a directory of Darshan logs or one log) at $MNT (default
# /tmp/darshanfs-demo/mnt).  Without SOURCE it first generates a small
# tree of synthetic logs with darshanfs-gen.  Then it runs a few of the
# commands an analyst would, and leaves the mount in place.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/contrib/deps.sh"
dfs_install_deps build
command -v mlr >/dev/null || dfs_install_deps test

cd "$top"
[ -f build/build.ninja ] || meson setup build >/dev/null
meson compile -C build >/dev/null

demo=${DEMO_DIR:-/tmp/darshanfs-demo}
mnt=${MNT:-$demo/mnt}
src=${1:-}
if [ -z "$src" ]; then
	src=$demo/logs
	if [ ! -d "$src" ]; then
		echo "== generating 24 synthetic logs in $src"
		build/src/tools/darshanfs-gen --logs 24 --records 300 --nprocs 8 -o "$src"
	fi
fi
mkdir -p "$mnt"
if mountpoint -q "$mnt"; then
	fusermount3 -u "$mnt"
fi
build/src/fuse/darshanfs "$src" "$mnt" </dev/null
echo "== mounted $src on $mnt"

run() {
	echo
	echo "\$ $*"
	eval "$@"
}

log=$(find "$mnt" -maxdepth 5 -type d -name '*.darshan' 2>/dev/null | sort | head -n 1)
run "ls $mnt"
run "ls '$log'"
run "head -n 12 '$log/header.txt'"
if [ -d "$log/POSIX" ]; then
	run "mlr --icsv --opprint --from '$log/POSIX/records.csv' sort -nr POSIX_BYTES_READ then head -n 5 then cut -f record_id,rank,POSIX_BYTES_READ,POSIX_BYTES_WRITTEN,file_name"
	run "grep -E 'total:|slowest_rank_io_time|agg_perf' '$log/POSIX/derived_metrics'"
	run "echo 'POSIX_BYTES_READ > 1MiB and rank != -1' > '$log/POSIX/filter'"
	run "grep -E 'total:|slowest_rank_io_time|agg_perf|selected' '$log/POSIX/derived_metrics'"
	run "echo 'POSIX_BYTES_RAED > 1' > '$log/POSIX/filter' || cat '$log/POSIX/filter.error'"
	run ": > '$log/POSIX/filter'"
fi
run "mlr --icsv --opprint --from '$mnt/jobs.csv' sort -nr io_bytes then head -n 5 then cut -f log,jobid,nprocs,io_bytes,io_perf"
echo
echo "== darshanfs is still mounted on $mnt; unmount with: fusermount3 -u $mnt"
