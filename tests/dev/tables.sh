#!/bin/bash
# tables.sh SOURCE_ROOT - src/module/tables.c is what
# contrib/dev/gen-module-tables.py makes of the format notes
# ($DFS_SHARED/docs/darshan-format.md); skips (77) without them.
set -u
top=$1
doc=${DFS_SHARED:-$top/../shared}/docs/darshan-format.md
[ -f "$doc" ] || { echo "SKIP: no $doc"; exit 77; }
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
python3 "$top/contrib/dev/gen-module-tables.py" "$doc" >"$out" || { echo "FAIL: the generator failed"; exit 1; }
if ! cmp -s "$out" "$top/src/module/tables.c"; then
	diff "$out" "$top/src/module/tables.c" | head -20
	echo "FAIL: src/module/tables.c differs from what contrib/dev/gen-module-tables.py makes (above)"
	exit 1
fi
echo "ok: src/module/tables.c is the generator's output ($(wc -l <"$out") lines)"
