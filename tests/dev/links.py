#!/usr/bin/env python3
"""links.py SOURCE_ROOT - every relative link of the user's pages resolves.

README.md, NEWS.md and docs/*.md: each [text](target) and <a href> that is
not a URL must name a file or directory of the source tree, and a
#fragment must be a heading of the page it points into (GitHub's anchors:
lower case, punctuation dropped, blanks to '-', '-1', '-2' for repeats).
Links inside code blocks and code spans are not links.
"""
import glob
import os
import re
import sys

top = sys.argv[1]
pages = ["README.md", "NEWS.md"] + sorted(
    os.path.relpath(p, top) for p in glob.glob(os.path.join(top, "docs", "*.md")))
pages = [p for p in pages if os.path.exists(os.path.join(top, p))]


def prose(text):
    """the text without fenced or indented code blocks and code spans"""
    out, fence = [], None
    for line in text.split("\n"):
        m = re.match(r"\s*(```|~~~)", line)
        if fence:
            if m and m.group(1) == fence:
                fence = None
            out.append("")
            continue
        if m:
            fence = m.group(1)
            out.append("")
            continue
        out.append(re.sub(r"(`+)(?:(?!\1).)+?\1", "", line))
    return "\n".join(out)


def headings_raw(path):
    """heading slugs, computed from the raw heading text (code spans kept)"""
    seen, out, fence = {}, set(), None
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\s*(```|~~~)", line)
            if fence or m:
                if m and (fence is None or m.group(1) == fence):
                    fence = None if fence else m.group(1)
                continue
            h = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line.rstrip("\n"))
            if not h:
                continue
            slug = re.sub(r"[^\w\- ]", "", h.group(1).lower()).replace(" ", "-")
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            out.add(slug if n == 0 else f"{slug}-{n}")
    return out


bad, count = [], 0
for page in pages:
    path = os.path.join(top, page)
    with open(path, encoding="utf-8") as f:
        text = prose(f.read())
    targets = re.findall(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)", text)
    targets += re.findall(r"<a\s[^>]*href=\"([^\"]+)\"", text)
    for t in targets:
        if re.match(r"[a-z][a-z0-9+.-]*:", t):
            continue
        count += 1
        file, _, frag = t.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
        if not os.path.exists(dest):
            bad.append(f"{page}: ({t}): no {os.path.relpath(dest, top)}")
            continue
        if frag and dest.endswith(".md") and frag not in headings_raw(dest):
            bad.append(f"{page}: ({t}): no heading '#{frag}' in {os.path.relpath(dest, top)}")
for b in bad:
    print("FAIL:", b)
print(f"{count} relative links in {len(pages)} pages, {len(bad)} broken")
sys.exit(1 if bad else 0)
