#!/usr/bin/env python3
"""Every relative link of the docs resolves: in README.md, CHANGES.md and
docs/*.md, each [text](target) and ![alt](target) whose target is not a URL
names a file or folder that exists, and its #anchor, if any, a heading of
that Markdown file (GitHub's anchors: the heading's text in lower case,
spaces as '-', punctuation other than '-' and '_' dropped; a repeated
heading gets -1, -2, ...).

Usage: check_links.py [REPO]   (default: the repository this file is in)
Prints one line per broken link and exits 1 when there is any.
Python 3 standard library only."""
import glob
import os
import re
import sys
import unicodedata

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ID = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")


def slug(text):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links and images: their text
    text = re.sub(r"<[^>]+>", "", text)                      # inline HTML tags
    text = text.replace("`", "").replace("*", "")
    text = text.strip().lower()
    kept = [ch for ch in text if ch in "-_ " or unicodedata.category(ch)[0] in "LMN"]
    return "".join(kept).replace(" ", "-")


def lines_outside_code(text):
    """(line number, line, raw line) of every line outside fenced code
    blocks; in the line, inline code spans are blanked so that a link shown
    as code is not checked."""
    fence = None
    for no, line in enumerate(text.split("\n"), 1):
        stripped = line.lstrip()
        m = re.match(r"(`{3,}|~{3,})", stripped)
        if m:
            if fence is None:
                fence = m.group(1)[0] * len(m.group(1))
                continue
            if stripped.startswith(fence):
                fence = None
                continue
        if fence is not None:
            continue
        yield no, re.sub(r"(`+)(.+?)\1", lambda c: " " * len(c.group(0)), line), line


_anchor_cache = {}


def anchors(path):
    if path not in _anchor_cache:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        found, counts = set(), {}
        for _, line, raw in lines_outside_code(text):
            m = HEADING.match(raw)
            if m:
                base = slug(m.group(2))
                n = counts.get(base, 0)
                counts[base] = n + 1
                found.add(base if n == 0 else f"{base}-{n}")
            for a in HTML_ID.findall(line):
                found.add(a)
        _anchor_cache[path] = found
    return _anchor_cache[path]


def check(repo):
    files = [os.path.join(repo, "README.md"), os.path.join(repo, "CHANGES.md")]
    files += sorted(glob.glob(os.path.join(repo, "docs", "*.md")))
    problems, count = [], 0
    for path in files:
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        rel = os.path.relpath(path, repo)
        for no, line, _ in lines_outside_code(text):
            for m in LINK.finditer(line):
                target = m.group(1)
                if re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", target):  # http:, mailto:, ...
                    continue
                count += 1
                file_part, _, anchor = target.partition("#")
                dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
                if not os.path.exists(dest):
                    problems.append(f"{rel}:{no}: {target}: no such file or folder")
                    continue
                if not anchor:
                    continue
                if not dest.endswith(".md") or os.path.isdir(dest):
                    problems.append(f"{rel}:{no}: {target}: an anchor into a file that is not Markdown")
                elif anchor not in anchors(dest):
                    problems.append(f"{rel}:{no}: {target}: no heading with the anchor #{anchor} "
                                    f"in {os.path.relpath(dest, repo)}")
    return problems, count


def main(argv):
    repo = argv[0] if argv else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    problems, count = check(os.path.abspath(repo))
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} of {count} relative link(s) do not resolve")
        return 1
    print(f"{count} relative link(s) resolve")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
