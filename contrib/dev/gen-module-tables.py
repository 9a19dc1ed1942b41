#!/usr/bin/env python3
"""Generate src/module/tables.c (counter names, description texts and
version warnings of every module) and src/module/counters.h (the same
counter names as lists the modules' constant field tables are built from
at compile time) from the log-format document.

Usage: gen-module-tables.py contrib/dev/module-facts.md > src/module/tables.c
       gen-module-tables.py --header contrib/dev/module-facts.md \
           > src/module/counters.h
       gen-module-tables.py --extract ../shared/docs/darshan-format.md \
           > contrib/dev/module-facts.md

The document is the single source of these facts; contrib/dev/module-facts.md
keeps, in the repository, the lines of it this generator reads (--extract
writes them: the headings, the counter and operation rows, Appendix A's
warnings and text blocks), so that both give the same tables.  Regenerate
rather than editing the output by hand."""
import re
import sys

extract = sys.argv[1] == "--extract"
header = sys.argv[1] == "--header"
doc = open(sys.argv[-1], encoding="utf-8").read().split("\n")

if extract:
    keep = re.compile(r"^(## Appendix [AB]|### |\| \d+ \| |Printed when the module version)")
    print("<!-- The lines of the Darshan log-format notes that"
          " contrib/dev/gen-module-tables.py reads, made by its --extract."
          " Do not edit: extract again. -->")
    in_a = in_block = False
    for line in doc:
        if line.startswith("## "):
            in_a = line.startswith("## Appendix A")
        fence = line.startswith("```")
        if keep.match(line) or (in_a and (fence or in_block)):
            print(line)
        if fence and in_a:
            in_block = not in_block
    sys.exit(0)

# --- counter tables, per module section of chapter 5 -----------------------
SECTIONS = {
    "5.4 POSIX": "posix", "5.5 MPI-IO": "mpiio", "5.6 H5F": "h5f",
    "5.7 H5D": "h5d", "5.8 PNETCDF_FILE": "pnetcdf_file",
    "5.9 PNETCDF_VAR": "pnetcdf_var", "5.10 BG/Q": "bgq",
    "5.12 STDIO": "stdio", "5.14 MDHIM": "mdhim", "5.18 DFS": "dfs",
    "5.19 DAOS": "daos",
}
row = re.compile(r"^\| (\d+) \| ([A-Z][A-Z0-9_]+) \| (\d+) \|")
counters = {}
current = None
for line in doc:
    if line.startswith("### "):
        current = None
        for key, ident in SECTIONS.items():
            if line.startswith("### " + key + " "):
                current = ident
                counters[ident] = ([], [])
        continue
    if current is None:
        continue
    m = row.match(line)
    if m:
        name = m.group(2)
        is_float = "_F_" in name
        counters[current][1 if is_float else 0].append(name)

# APMPI names follow from the operation table.
ops = []
in_apmpi = False
oprow = re.compile(r"^\| (\d+) \| `(MPI_[A-Z_]+)` \| (\d+) ")
for line in doc:
    if line.startswith("### 5.16 APMPI"):
        in_apmpi = True
        continue
    if in_apmpi and line.startswith("### "):
        break
    if in_apmpi:
        m = oprow.match(line)
        if m:
            ops.append((m.group(2), int(m.group(3)) == 8))
apmpi_int, apmpi_float = [], []
for op, full in ops:
    apmpi_int.append(op + "_CALL_COUNT")
    if full:
        apmpi_int += [op + s for s in ("_TOTAL_BYTES", "_MSG_SIZE_AGG_0_256",
                      "_MSG_SIZE_AGG_256_1K", "_MSG_SIZE_AGG_1K_8K",
                      "_MSG_SIZE_AGG_8K_256K", "_MSG_SIZE_AGG_256K_1M",
                      "_MSG_SIZE_AGG_1M_PLUS")]
    apmpi_float += [op + "_TOTAL_TIME", op + "_MIN_TIME", op + "_MAX_TIME"]
sync_ops = ["MPI_BARRIER"] + [op for op, _ in ops[24:39]]
apmpi_sync = [op + "_TOTAL_SYNC_TIME" for op in sync_ops]
assert len(apmpi_int) == 396 and len(apmpi_float) == 222 and len(apmpi_sync) == 16
counters["apmpi"] = (apmpi_int, apmpi_float)

# --- Appendix A: descriptions and warnings ---------------------------------
APPX = {"POSIX": "posix", "MPI-IO": "mpiio", "H5F": "h5f", "H5D": "h5d",
        "PNETCDF_FILE": "pnetcdf_file", "PNETCDF_VAR": "pnetcdf_var",
        "BG/Q": "bgq", "LUSTRE": "lustre", "STDIO": "stdio", "MDHIM": "mdhim",
        "APMPI": "apmpi", "HEATMAP": "heatmap", "DFS": "dfs", "DAOS": "daos"}
start = next(i for i, l in enumerate(doc) if l.startswith("## Appendix A"))
end = next(i for i, l in enumerate(doc) if l.startswith("## Appendix B"))
desc, warns = {}, {}
mod = None
cond = None
i = start
while i < end:
    line = doc[i]
    if line.startswith("### "):
        mod = APPX.get(line[4:].strip())
        cond = None
        warns.setdefault(mod, [])
    elif line.startswith("Printed when the module version"):
        m = re.match(r"Printed when the module version (==|<=|>=) (\d+):", line)
        cond = (m.group(1), int(m.group(2)))
    elif line.startswith("```") and mod:
        j = i + 1
        block = []
        while not doc[j].startswith("```"):
            block.append(doc[j])
            j += 1
        text = "\n".join(block) + "\n"
        if cond is None:
            desc[mod] = text
        else:
            warns[mod].append((cond, text))
        cond = None
        i = j
    i += 1

def cstr(s):
    out = s.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t")
    lines = out.split("\n")
    parts = []
    for k, l in enumerate(lines):
        if k < len(lines) - 1:
            parts.append('"' + l + '\\n"')
        elif l:
            parts.append('"' + l + '"')
    return "\n    ".join(parts) if parts else '""'

if header:
    # X(base, index, name) for each counter, in order: a module's file
    # turns them into dfs_field initializers (module/tables.h)
    print("/* Generated by contrib/dev/gen-module-tables.py from the log-format")
    print(" * document: the counter names of every module as lists for constant")
    print(" * field tables, X(base, index, name) per counter.  Do not edit. */")
    print("#ifndef DFS_MODULE_COUNTERS_H")
    print("#define DFS_MODULE_COUNTERS_H")
    lists = []
    for ident in sorted(counters):
        ints, floats = counters[ident]
        lists += [(ident + "_ints", ints), (ident + "_floats", floats)]
    lists.append(("apmpi_syncs", apmpi_sync))
    for name, names in lists:
        print()
        print("#define DFS_%s(X, base) \\" % name.upper())
        for k, n in enumerate(names):
            print('\tX(base, %d, "%s")%s' % (k, n, " \\" if k < len(names) - 1 else ""))
    print()
    print("#endif")
    sys.exit(0)

OPS = {"==": "DFS_VER_EQ", "<=": "DFS_VER_LE", ">=": "DFS_VER_GE"}
print("/* Generated by contrib/dev/gen-module-tables.py from the log-format")
print(" * document: counter names, description texts and version warnings of")
print(" * every module, exactly as darshan-parser prints them.  Do not edit. */")
print()
print('#include "module/tables.h"')
print()
for ident in sorted(counters):
    ints, floats = counters[ident]
    for kind, names in (("int", ints), ("float", floats)):
        print("const char *const dfs_%s_%s_names[%d] = {" % (ident, kind, max(len(names), 1)))
        for n in names:
            print('    "%s",' % n)
        print("};")
print("const char *const dfs_apmpi_sync_names[16] = {")
for n in apmpi_sync:
    print('    "%s",' % n)
print("};")
print()
for ident in sorted(desc):
    print("const char dfs_%s_description[] =\n    %s;" % (ident, cstr(desc[ident])))
    w = warns.get(ident, [])
    print("const struct dfs_version_warning dfs_%s_warnings[] = {" % ident)
    for (op, ver), text in w:
        print("    {%s, %d,\n     %s}," % (OPS[op], ver, cstr(text)))
    print("    {0, 0, NULL},")
    print("};")
