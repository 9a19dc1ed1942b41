#!/usr/bin/env python3
"""man.py SOURCE_ROOT DARSHANFS DARSHANFS_CAT MAN_DIR

An option is written once, in the manual page's source (docs/man/*.rst),
and --help prints the list made of it.  This checks what ties the two
to the code:
- every option main.c's option table parses is in darshanfs.1.rst, and
  every darshanfs option of the page is parsed (the FUSE library's own
  options, in the page's "FUSE options", are the library's to parse);
- darshanfs-cat's getopt letters and long options are those of its page,
  in the same pairs;
- each --help prints every term of its page's list (DARSHANFS may be
  "" when the build has no FUSE);
- the pages built in MAN_DIR (when rst2man was found) are read by groff
  without a warning;
- every docs/ page the manual pages name exists;
- the README's install line installs what `contrib/deps.sh build` does.
"""
import os
import re
import subprocess
import sys

top, darshanfs, dfs_cat, man_dir = sys.argv[1:5]
failed = []


def fail(msg):
    failed.append(msg)
    print("FAIL:", msg)


def read(rel):
    with open(os.path.join(top, rel), encoding="utf-8") as f:
        return f.read()


def plain(term):
    term = re.sub(r"\*\*|``|\\ |\*", "", term)
    return term.replace("\\", "")


def terms(rst, section=None):
    """the definition-list terms of a '.. usage: options' list, or of the
    section whose title is `section`"""
    lines = rst.split("\n")
    if section is None:
        i = lines.index(".. usage: options")
        j = lines.index(".. usage: end", i)
    else:
        i = lines.index(section)
        j = next((k for k in range(i + 2, len(lines) - 1)
                  if lines[k] and re.fullmatch(r"[-=]+", lines[k + 1])), len(lines))
    return [plain(l) for l in lines[i + 1:j]
            if l and not l[0].isspace() and not l.startswith("..")
            and re.match(r"\*\*-", l)]


def options_of(term_lines):
    """the options a list of terms names: '-o cache_size=', '-o noindex', '-h'"""
    out = set()
    for t in term_lines:
        for part in t.split(", "):
            m = re.match(r"(-o \w+=?|--?[\w-]+)", part)
            if m:
                out.add(m.group(1))
    return out


# ---- darshanfs: main.c's option table against the page
rst = read("docs/man/darshanfs.1.rst")
main_c = read("src/fuse/main.c")
table = main_c[main_c.index("static const struct fuse_opt dfs_opts[]"):]
table = table[:table.index("FUSE_OPT_END")]
parsed = set()
for name in re.findall(r'"([^"]+)"', table):
    name = name.replace("%s", "")
    parsed.add(name if name.startswith("-") else "-o " + name)
ours = options_of(terms(rst))
fuse_part = options_of(terms(rst, "FUSE options"))
for o in sorted(parsed - ours - fuse_part):
    fail(f"main.c parses '{o}', which docs/man/darshanfs.1.rst does not describe")
for o in sorted(ours - parsed):
    fail(f"docs/man/darshanfs.1.rst lists '{o}' among darshanfs options, main.c does not parse it")
print(f"ok: main.c parses the {len(ours)} darshanfs options of its page, and the page has all it parses")

# ---- darshanfs-cat: getopt_long's table against the page
rst_cat = read("docs/man/darshanfs-cat.1.rst")
cat_c = read("src/tools/darshanfs-cat.c")
code_pairs = {(f"-{short}", f"--{long}")
              for long, short in re.findall(r'\{"([\w-]+)", \w+, NULL, \'(\w)\'\}', cat_c)}
letters = re.search(r'getopt_long\(argc, argv, "([^"]+)"', cat_c).group(1)
for short, _ in code_pairs:
    if short[1] not in letters:
        fail(f"darshanfs-cat: {short} is a long option's letter but not in getopt's '{letters}'")
page_pairs = set()
for t in terms(rst_cat):
    m = re.match(r"(-\w), (--[\w-]+)", t)
    if not m:
        fail(f"darshanfs-cat.1.rst: term '{t}' is not '-x, --long'")
    else:
        page_pairs.add((m.group(1), m.group(2)))
for p in sorted(code_pairs - page_pairs):
    fail(f"darshanfs-cat parses {p[0]}/{p[1]}, which its page does not describe")
for p in sorted(page_pairs - code_pairs):
    fail(f"darshanfs-cat.1.rst describes {p[0]}/{p[1]}, which darshanfs-cat does not parse")
print(f"ok: darshanfs-cat parses the {len(page_pairs)} options of its page, and no other")

# ---- --help prints the lists
for exe, page in ((darshanfs, rst), (dfs_cat, rst_cat)):
    if not exe:
        print("skip: darshanfs --help (no FUSE in this build)")
        continue
    out = subprocess.run([exe, "--help"], capture_output=True, text=True).stdout
    for t in terms(page):
        if not re.search(r"^    " + re.escape(t) + r"( |$)", out, re.M):
            fail(f"{os.path.basename(exe)} --help does not print '{t}'")
    print(f"ok: {os.path.basename(exe)} --help prints the options of its page")

# ---- the built pages
pages = [p for p in ("darshanfs.1", "darshanfs-cat.1")
         if os.path.exists(os.path.join(man_dir, p))]
if not pages:
    print("skip: no manual pages built (rst2man not found)")
for p in pages:
    r = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", os.path.join(man_dir, p)],
                       capture_output=True, text=True)
    if r.returncode or r.stderr.strip():
        fail(f"groff warns about {p}: {r.stderr.strip()[:500]}")
    else:
        print(f"ok: {p} is read by groff without a warning")

# ---- the docs the pages name
for src in ("docs/man/darshanfs.1.rst", "docs/man/darshanfs-cat.1.rst"):
    for ref in sorted(set(re.findall(r"docs/[\w./-]+\.md", read(src)))):
        if not os.path.exists(os.path.join(top, ref)):
            fail(f"{src} names {ref}, which does not exist")

# ---- the README's install line
want = subprocess.run(["bash", "-c", '. "$1/contrib/deps.sh"; dfs_packages build', "-", top],
                      capture_output=True, text=True).stdout.split()
line = re.search(r"^sudo apt-get install (.*)$", read("README.md"), re.M)
if not want:
    fail("contrib/deps.sh: dfs_packages build names no package")
elif not line:
    fail("README.md has no 'sudo apt-get install' line")
elif sorted(line.group(1).split()) != sorted(want):
    fail(f"README.md installs {line.group(1)!r}, contrib/deps.sh build {' '.join(want)!r}")
else:
    print(f"ok: the README's install line has the {len(want)} packages of contrib/deps.sh build")

sys.exit(1 if failed else 0)
