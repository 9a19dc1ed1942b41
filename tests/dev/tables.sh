#!/bin/bash
# tables.sh SOURCE_ROOT - src/module/tables.c and src/module/counters.h are
# what contrib/dev/gen-module-tables.py makes of contrib/dev/module-facts.md,
# and that file holds what the generator reads of the format notes
# ($DFS_SHARED/docs/darshan-format.md, when they are there).
set -u
top=$1
gen=$top/contrib/dev/gen-module-tables.py
facts=$top/contrib/dev/module-facts.md
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
for pair in ":src/module/tables.c" "--header:src/module/counters.h"; do
	mode=${pair%%:*} file=${pair#*:}
	python3 "$gen" $mode "$facts" >"$out" || { echo "FAIL: the generator $mode failed"; exit 1; }
	if ! cmp -s "$out" "$top/$file"; then
		diff "$out" "$top/$file" | head -20
		echo "FAIL: $file differs from what the generator makes of $facts (above)"
		exit 1
	fi
	echo "ok: $file is the generator's output ($(wc -l <"$out") lines)"
done
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
