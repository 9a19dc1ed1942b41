#!/bin/bash
# tables.sh SOURCE_ROOT - src/module/tables.c is what
# contrib/dev/gen-module-tables.py makes of contrib/dev/module-facts.md,
# and that file holds what the generator reads of the format notes
# ($DFS_SHARED/docs/darshan-format.md, when they are there).
set -u
top=$1
gen=$top/contrib/dev/gen-module-tables.py
facts=$top/contrib/dev/module-facts.md
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
python3 "$gen" "$facts" >"$out" || { echo "FAIL: the generator failed"; exit 1; }
if ! cmp -s "$out" "$top/src/module/tables.c"; then
	diff "$out" "$top/src/module/tables.c" | head -20
	echo "FAIL: src/module/tables.c differs from what the generator makes of $facts (above)"
	exit 1
fi
echo "ok: src/module/tables.c is the generator's output ($(wc -l <"$out") lines)"
doc=${DFS_SHARED:-$top/../shared}/docs/darshan-format.md
if [ -f "$doc" ]; then
	python3 "$gen" --extract "$doc" >"$out" || { echo "FAIL: the extract failed"; exit 1; }
	if ! cmp -s "$out" "$facts"; then
		diff "$out" "$facts" | head -20
		echo "FAIL: $facts is not what the format notes say now: run the generator's --extract (above)"
		exit 1
	fi
	echo "ok: $facts holds what the format notes say"
fi
