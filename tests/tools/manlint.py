#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Quotes that both mandoc and groff render wrong: each page is rendered with mandoc and
every quoted span (‘...’ and “...”) checked.  A span that does not close in its paragraph,
or whose brackets do not balance (‘2m), ... name’: a macro closed the quote in the wrong
place), is reported with the page and the text; so is an option's heading whose forms do
not each close their brackets (-s name[=value, --setting=name[=value]]).  Exit 1 when any
is found."""
import re
import subprocess
import sys

PAIRS = {"(": ")", "[": "]", "{": "}"}


def spans(para, open_q, close_q):
    """The quoted spans of a paragraph, and whether every quote closed."""
    out, i = [], 0
    while True:
        a = para.find(open_q, i)
        if a < 0:
            return out, True
        b = para.find(close_q, a + 1)
        if b < 0:
            return out, False
        out.append(para[a + 1:b])
        i = b + 1


def top_level_comma(s):
    """A ", " outside brackets after a single word: two quoted things run into one
    (‘\\n, \\t’), where a quoted command or query may hold commas of its own."""
    depth = 0
    for i, ch in enumerate(s):
        if ch in PAIRS:
            depth += 1
        elif ch in PAIRS.values():
            depth -= 1
        elif ch == "," and depth == 0 and s[i + 1:i + 2] == " " and " " not in s[:i]:
            return True
    return False


def balanced(s):
    s = re.sub(r"[\[(][^\[\]()]*[\])]", "", s)  # a pair, or an interval: [2, 4)
    for o, c in PAIRS.items():
        if s.count(o) != s.count(c):
            return False
    return True


def headings(page):
    """The option headings of @page (.It Fl ... and .It Xo ... .Xc), rendered alone."""
    src, items, cur = open(page, encoding="utf-8").read().splitlines(), [], None
    for line in src:
        if cur is not None:
            cur.append(line)
            if line.startswith(".Xc"):
                items.append(cur)
                cur = None
        elif line.startswith(".It Xo"):
            cur = [line]
        elif line.startswith(".It Fl"):
            items.append([line])
    doc = [".Dd January 1, 2000", ".Dt X 1", ".Os", ".Sh NAME", ".Nm x", ".Nd x",
           ".Sh DESCRIPTION"]
    for it in items:
        doc += [".Bl -tag -width Ds"] + it + ["BODY", ".El"]
    text = subprocess.run(["mandoc", "-Tutf8"], input="\n".join(doc) + "\n",
                          capture_output=True, text=True, check=True).stdout
    text = re.sub(".\b", "", text)
    return [l.strip() for l in text.splitlines() if l.strip().startswith("-")
            and "BODY" not in l]


bad = 0
for page in sys.argv[1:]:
    for head in headings(page):
        if not all(balanced(form) for form in head.split(", -")):
            bad += 1
            print(f"{page}: option heading looks cut: {head}")
    text = subprocess.run(["mandoc", "-Tutf8", page], capture_output=True, text=True,
                          check=True).stdout
    text = re.sub(".\b", "", text)
    for para in re.split(r"\n\s*\n", text):
        para = " ".join(para.split())
        for o, c in (("‘", "’"), ("“", "”")):
            found, closed = spans(para, o, c)
            if not closed:
                bad += 1
                print(f"{page}: a quote does not close: {para[:160]}")
            for s in found:
                if not balanced(s) or o in s or top_level_comma(s):
                    bad += 1
                    print(f"{page}: quoted text looks cut: {o}{s}{c}")
sys.exit(1 if bad else 0)
