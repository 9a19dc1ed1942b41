#!/usr/bin/env bash
# deps.sh - install the Debian packages darshanfs needs, if any is missing.
#
#   contrib/deps.sh build    compiler, meson, libfuse3, zlib, bzip2
#   contrib/deps.sh test     build + cmocka and the clients the tests use
#                            (sqlite3, miller, python3, pandas, setpriv, valgrind,
#                            chromium and xmllint for summary.html)
#
# Uses sudo when not run as root.  Sourced by contrib/demo.sh and
# tests/run; safe to run again (installs only what is missing).
set -euo pipefail

dfs_packages() {
	local build="gcc libc6-dev meson ninja-build pkg-config libfuse3-dev fuse3 zlib1g-dev libbz2-dev libisal-dev"
	case "${1:-build}" in
	build) echo "$build" ;;
	test) echo "$build libcmocka-dev sqlite3 miller python3 python3-pandas util-linux attr valgrind procps chromium libxml2-utils" ;;
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

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	dfs_install_deps "${1:-build}"
fi
