#!/usr/bin/env bash
# deps.sh - install the Debian packages darshanfs needs, if any is missing.
#
#   contrib/deps.sh build    compiler, meson, libfuse3, zlib, zstd, bzip2, SQLite,
#                            docutils (rst2man: the manual pages)
#   contrib/deps.sh test     build + cmocka and the clients the tests use
#                            (sqlite3, miller, python3, pandas, setpriv, valgrind,
#                            chromium and xmllint for summary.html, groff
#                            for the manual pages)
#   contrib/deps.sh cluster  Dask (python3-dask, python3-distributed) for
#                            tests/integration/cluster.sh; never fails:
#                            without them that part of the test skips
#   contrib/deps.sh duckdb   DuckDB for tests/integration/duckdb.sh: Debian
#                            has none; the npm package @duckdb/node-api
#                            ships the engine, installed (with npm, from its
#                            registry) into a cache outside the source tree,
#                            $DFS_DUCKDB_DIR (default ~/.cache/darshanfs/...)
#
# Uses sudo when not run as root.  Sourced by contrib/demo.sh and
# tests/run; safe to run again (installs only what is missing).
set -euo pipefail

dfs_packages() {
	local build="gcc libc6-dev meson ninja-build pkg-config libfuse3-dev fuse3 zlib1g-dev libzstd-dev libbz2-dev libisal-dev libsqlite3-dev python3-docutils"
	case "${1:-build}" in
	build) echo "$build" ;;
	test) echo "$build libcmocka-dev sqlite3 miller python3 python3-pandas util-linux attr valgrind procps strace chromium libxml2-utils groff-base" ;;
	*) echo "deps.sh: unknown set '$1' (build or test)" >&2; return 2 ;;
	esac
}

dfs_install_deps() {
	local want missing=() p
	want=$(dfs_packages "${1:-build}")
	for p in $want; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	echo "installing: ${missing[*]}" >&2
	local sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -q
	$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# Never fails: what cannot be had is left out (the tests that use it skip).
dfs_install_optional() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	echo "installing: ${missing[*]}" >&2
	local sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	export DEBIAN_FRONTEND=noninteractive
	if ! { $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" ||
		{ $sudo apt-get update -q && $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"; }; } >&2; then
		echo "deps.sh: ${missing[*]} cannot be had: the tests that use them skip" >&2
	fi
	return 0
}

DFS_CLUSTER_PACKAGES="python3-dask python3-distributed"

DFS_DUCKDB_VERSION=1.5.6-r.1

dfs_duckdb_dir() {
	echo "${DFS_DUCKDB_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/darshanfs/duckdb-node-api-$DFS_DUCKDB_VERSION}"
}

# Never fails: without npm or its registry the DuckDB test skips.
dfs_install_duckdb() {
	local dir
	dir=$(dfs_duckdb_dir)
	[ -f "$dir/node_modules/@duckdb/node-api/package.json" ] && return 0
	if ! command -v npm >/dev/null || ! command -v node >/dev/null; then
		echo "deps.sh: no node/npm: the DuckDB test will be skipped" >&2
		return 0
	fi
	mkdir -p "$dir" || return 0
	echo "installing @duckdb/node-api@$DFS_DUCKDB_VERSION into $dir" >&2
	if ! timeout "${DFS_NPM_TIMEOUT:-600}" npm install --prefix "$dir" --no-audit --no-fund \
		--fetch-retries=1 --fetch-timeout=60000 \
		"@duckdb/node-api@$DFS_DUCKDB_VERSION" >"$dir/npm.log" 2>&1; then
		echo "deps.sh: npm could not install DuckDB (see $dir/npm.log):" \
			"the DuckDB test will be skipped" >&2
	fi
	return 0
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	case "${1:-build}" in
	duckdb) dfs_install_duckdb ;;
	cluster) dfs_install_optional $DFS_CLUSTER_PACKAGES ;;
	*) dfs_install_deps "${1:-build}" ;;
	esac
fi
