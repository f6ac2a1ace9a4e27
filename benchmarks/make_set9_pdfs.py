"""Render real licence and constitution texts into PDFs for question set 9.

Usage:
    python benchmarks/make_set9_pdfs.py [--out DIR] [--spdx DIR] [--force]

Set 9 covers families and numbering styles sets 1-8 lack: nested lettered/numbered clauses
("Section 2(a)(1)", "subsection 3.3(b)"), parenthesised paragraph numbers ("Section (4)"), clause
numbers ("clause 6"), a lettered definitions run ("A." ... "Z."), a licence that points into
another work ("section 6 of the GNU GPL") and a constitution with "§4.1(3)" and "A.6". The texts
are read from packages (never committed, nor are the PDFs):

- npm ``spdx-license-list@6.12.0`` (``npm install --prefix /tmp/spdx spdx-license-list@6.12.0``):
  ``licenses/<id>.json``, the licence's own text;
- Debian ``doc-debian`` (``apt-get install doc-debian``): ``/usr/share/doc/debian/constitution.txt.gz``.

Unlike set 8's renderer this one keeps each text's own indentation: a paragraph's left margin is
its first line's indent in the source, so nested items ("1." inside "4.1." inside "4.") sit where
the author put them. Lines wrapped in the source are joined into their paragraph; a short line at
the left edge that does not end a sentence is a heading. Styles (see set 8): ``word``, ``bold``,
``book``, and ``web`` (a plain-text document printed from a browser: serif, ragged right, no
running header). Output: ``DIR/set9/`` (default ``~/.cache/docintel/generated``).
"""

from __future__ import annotations

import argparse
import gzip
import html
import json
import os
import re
import sys
from pathlib import Path

from make_set8_pdfs import write_pdf  # the same page layout, running heads and save

GENERATED = Path(os.environ.get("DOCINTEL_GENERATED", Path.home() / ".cache" / "docintel" / "generated"))
SPDX = Path("/tmp/spdx/node_modules/spdx-license-list/licenses")
CONSTITUTION = Path("/usr/share/doc/debian/constitution.txt.gz")

# (file name, source, key, style, running title)
DOCS = [
    ("cc-by-4.0.pdf", "spdx", "CC-BY-4.0", "book", "Creative Commons Attribution 4.0 International"),
    ("lppl-1.3c.pdf", "spdx", "LPPL-1.3c", "word", "The LaTeX Project Public License 1.3c"),
    ("artistic-2.0.pdf", "spdx", "Artistic-2.0", "bold", "The Artistic License 2.0"),
    ("cern-ohl-s-2.0.pdf", "spdx", "CERN-OHL-S-2.0", "word", "CERN Open Hardware Licence Version 2 - S"),
    ("nasa-1.3.pdf", "spdx", "NASA-1.3", "word", "NASA Open Source Agreement 1.3"),
    ("lgpl-3.0.pdf", "spdx", "LGPL-3.0-only", "bold", "GNU Lesser General Public License v3"),
    ("debian-constitution.pdf", "constitution", "", "web", "Constitution for the Debian Project"),
]

_RULE = re.compile(r"^\s*([=\-*~#_]{3,}|(?:=-)+=?)\s*$")
_ITEM = re.compile(
    r"^\s*(?:\d+(?:\.\d+)*\.|\d+(?:\.\d+)+|\(?[a-z0-9]{1,4}[.)]|\([a-z0-9]{1,4}\)|[A-Z]\.)\s+\S"
)
# "A.1. Discussion and Amendment", "A. Standard Resolution Procedure": an appendix's headings
_HEADLIKE = re.compile(
    r"^(?:Section|SECTION|Article)\s+\d|^(?:\d+|[A-Z])(?:\.\d+)*\.?\s+[A-Z]|^[A-Z][A-Za-z ,'’-]+$"
)

CSS = {
    "word": "body { font-family: serif; font-size: 11pt; text-align: justify; }"
    " p { margin: 0 0 7pt 0; line-height: 1.2; } p.h { margin-top: 6pt; }"
    " p.t { text-align: center; font-size: 13pt; margin-bottom: 12pt; }",
    "bold": "body { font-family: sans-serif; font-size: 10pt; text-align: left; }"
    " p { margin: 0 0 6pt 0; line-height: 1.25; } p.h { font-weight: bold; margin-top: 8pt; }"
    " p.t { font-weight: bold; font-size: 15pt; margin-bottom: 12pt; }",
    "book": "body { font-family: serif; font-size: 10.5pt; text-align: justify; }"
    " p { margin: 0 0 6pt 0; line-height: 1.2; }"
    " p.h { font-weight: bold; font-size: 12.5pt; margin-top: 10pt; text-align: left; }"
    " p.t { font-weight: bold; font-size: 17pt; margin-bottom: 14pt; }",
    "web": "body { font-family: serif; font-size: 11pt; text-align: left; }"
    " p { margin: 0 0 5pt 0; line-height: 1.2; } p.h { font-weight: bold; font-size: 12pt; margin-top: 9pt; }"
    " p.t { font-weight: bold; font-size: 18pt; margin-bottom: 12pt; }",
}


def _constitution_text() -> str:
    with gzip.open(CONSTITUTION, "rt", encoding="utf-8") as f:
        return f.read()


def _spdx_text(src: Path, key: str) -> str:
    text = json.loads((src / f"{key}.json").read_text())["licenseText"]
    if key.startswith("LGPL-3.0"):
        # the package appends the GPL's text; a project's COPYING.LESSER is the LGPL alone
        cut = text.find("GNU GENERAL PUBLIC LICENSE\nVersion 3")
        text = text[:cut] if cut > 0 else text
    return text


def paragraphs(text: str) -> list[tuple[str, int, str]]:
    """(kind, indent, text): ``t`` title, ``h`` heading, ``p`` paragraph; indent in source columns."""
    out: list[tuple[str, int, str]] = []
    cur: list[str] = []
    indent = 0

    def flush() -> None:
        if not cur:
            return
        s = " ".join(x.strip() for x in cur)
        one = len(cur) == 1
        kind = "p"
        if not out:
            kind = "t"
        elif one and indent <= 2 and len(s) < 75 and not s.endswith((",", ";", ":")) and _HEADLIKE.match(s):
            words = s.rstrip(".").split()
            if not s.endswith(".") or len(words) <= 8:
                kind = "h"
        out.append((kind, indent, s))
        cur.clear()

    for raw in text.replace("\r", "").expandtabs(4).split("\n"):
        if _RULE.match(raw):
            continue
        if not raw.strip():
            flush()
            continue
        if _ITEM.match(raw) and cur:
            flush()
        if not cur:
            indent = len(raw) - len(raw.lstrip())
        cur.append(raw)
    flush()
    return out


def _html(paras: list[tuple[str, int, str]]) -> str:
    rows = []
    for kind, indent, text in paras:
        margin = f' style="margin-left: {indent * 4}pt"' if kind == "p" and indent else ""
        rows.append(f'<p class="{kind}"{margin}>{html.escape(text)}</p>')
    return "<body>" + "\n".join(rows) + "</body>"


def render(text: str, style: str, title: str, path: Path) -> int:
    return write_pdf(_html(paragraphs(text)), CSS[style], style, title, path, "set9")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(GENERATED))
    ap.add_argument("--spdx", default=str(SPDX))
    ap.add_argument("--force", action="store_true")
    args = ap.parse_args()
    out = Path(args.out) / "set9"
    out.mkdir(parents=True, exist_ok=True)
    spdx = Path(args.spdx)
    for name, source, key, style, title in DOCS:
        path = out / name
        if path.exists() and not args.force:
            continue
        if source == "spdx":
            if not (spdx / f"{key}.json").exists():
                print(
                    f"skip {name}: {spdx}/{key}.json missing (npm install spdx-license-list)", file=sys.stderr
                )
                continue
            text = _spdx_text(spdx, key)
        else:
            if not CONSTITUTION.exists():
                print(f"skip {name}: {CONSTITUTION} missing (apt-get install doc-debian)", file=sys.stderr)
                continue
            text = _constitution_text()
        n = render(text, style, title, path)
        print(f"{path}: {n} pages ({style})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
