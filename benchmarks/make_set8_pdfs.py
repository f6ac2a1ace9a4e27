"""Render real contract, licence and rule-book texts into PDFs for question set 8.

Usage:
    python benchmarks/make_set8_pdfs.py [--out DIR] [--spdx FILE] [--force]

The texts are real agreements and a real rule book, read from packages (never committed, nor
are the PDFs): Debian's ``/usr/share/common-licenses`` (``base-files``), Debian Policy
(``apt-get install debian-policy``: ``/usr/share/doc/debian-policy/policy.txt.gz``) and the npm
package ``spdx-license-list`` (``npm install --prefix /tmp/spdx spdx-license-list@6.12.0``:
``spdx-full.json``). Each text is laid out with pymupdf's Story (deterministic: fixed metadata,
no clock) in one of three styles real documents use:

- ``word``: a word-processed contract: serif body font, justified, numbered headings in the
  body font without bold, running header with the title and footer "Page N of M";
- ``bold``: sans-serif, left-aligned, bold numbered headings, footer with the page number only;
- ``book``: serif, justified, larger bold headings, header with the title and the page number
  on the outer edge (a rule book / manual).

The PDFs go to ``DIR/set8/`` (default ``~/.cache/docintel/generated``; ``first_hop.py`` looks
there for a question's ``pdf`` missing from the shared folder, and ``docintel eval`` takes it as
``--pdf-dir``).
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

GENERATED = Path(os.environ.get("DOCINTEL_GENERATED", Path.home() / ".cache" / "docintel" / "generated"))
SPDX = Path("/tmp/spdx/node_modules/spdx-license-list/spdx-full.json")
POLICY = Path("/usr/share/doc/debian-policy/policy.txt.gz")

# (file name, source, key, style, running title)
DOCS = [
    ("mpl-2.0.pdf", "spdx", "MPL-2.0", "word", "Mozilla Public License 2.0"),
    ("apache-2.0.pdf", "spdx", "Apache-2.0", "bold", "Apache License 2.0"),
    ("epl-2.0.pdf", "spdx", "EPL-2.0", "book", "Eclipse Public License 2.0"),
    ("eupl-1.2.pdf", "spdx", "EUPL-1.2", "word", "European Union Public Licence 1.2"),
    ("cddl-1.0.pdf", "spdx", "CDDL-1.0", "bold", "CDDL Version 1.0"),
    ("gpl-3.0.pdf", "spdx", "GPL-3.0-only", "book", "GNU General Public License v3"),
    ("cecill-2.1.pdf", "spdx", "CECILL-2.1", "word", "CeCILL Free Software License Agreement"),
    ("osl-3.0.pdf", "spdx", "OSL-3.0", "bold", "Open Software License 3.0"),
    ("odbl-1.0.pdf", "spdx", "ODbL-1.0", "word", "Open Database License 1.0"),
    ("debian-policy-1-4.pdf", "policy", "1-4", "book", "Debian Policy Manual"),
]
# real PDFs shipped by a package, copied as they are: (file name, gzipped source)
REAL = [
    # Debian Policy as its maintainers typeset it (Sphinx/LaTeX, 193 pages): a rule book whose
    # cross-references name the target's title ("see debian/rules and DEB_BUILD_OPTIONS")
    ("debian-policy.pdf", Path("/usr/share/doc/debian-policy/policy.pdf.gz")),
]

_RULE = re.compile(r"^\s*([=\-*~#_]{3,}|-{2,})\s*$")
_NUM_HEAD = re.compile(
    r"^\s*(?:#+\s*)?(?:(?:Article|ARTICLE|Section|SECTION)\s+)?(\d+(?:\.\d+)*\.?|[A-Z]\.)\s*\S"
)
_ITEM = re.compile(r"^\s*(?:\([a-z0-9ivx]+\)|[a-z]\)|\*|—|–|-|\d+\))\s+\S")

CSS = {
    "word": """
        body { font-family: serif; font-size: 11pt; text-align: justify; }
        p { margin: 0 0 7pt 0; line-height: 1.2; }
        p.h { margin-top: 6pt; }
        p.t { text-align: center; font-size: 13pt; margin-bottom: 12pt; }
        p.i { margin-left: 24pt; }
    """,
    "bold": """
        body { font-family: sans-serif; font-size: 10pt; text-align: left; }
        p { margin: 0 0 6pt 0; line-height: 1.25; }
        p.h { font-weight: bold; margin-top: 8pt; }
        p.t { font-weight: bold; font-size: 15pt; margin-bottom: 12pt; }
        p.i { margin-left: 18pt; }
    """,
    "book": """
        body { font-family: serif; font-size: 10.5pt; text-align: justify; }
        p { margin: 0 0 6pt 0; line-height: 1.2; }
        p.h { font-weight: bold; font-size: 12.5pt; margin-top: 10pt; text-align: left; }
        p.h2 { font-weight: bold; font-size: 11pt; margin-top: 8pt; text-align: left; }
        p.t { font-weight: bold; font-size: 17pt; margin-bottom: 14pt; }
        p.i { margin-left: 20pt; }
    """,
}


def _policy_text(chapters: str) -> str:
    """Debian Policy chapters ``a-b`` from the packaged plain-text manual (the contents skipped)."""
    lo, hi = (int(x) for x in chapters.split("-"))
    with gzip.open(POLICY, "rt", encoding="utf-8") as f:
        lines = f.read().splitlines()
    start = end = None
    for i, ln in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if re.match(rf"^{lo}\. \S", ln) and nxt.startswith("****"):
            start = i
        if re.match(rf"^{hi + 1}\. \S", ln) and nxt.startswith("****") and start is not None:
            end = i
            break
    return "Debian Policy Manual\n\n" + "\n".join(lines[start:end])


def _blocks(text: str) -> list[list[str]]:
    """Blank-line separated blocks, rule lines (underlines) dropped."""
    out, cur = [], []
    for ln in text.replace("\r", "").split("\n"):
        if _RULE.match(ln):
            continue
        if not ln.strip():
            if cur:
                out.append(cur)
                cur = []
            continue
        cur.append(ln.rstrip())
    if cur:
        out.append(cur)
    return out


def _paragraphs(text: str) -> list[tuple[str, str]]:
    """(kind, text) paragraphs: ``t`` title, ``h`` numbered heading, ``i`` item, ``p`` body."""
    paras: list[tuple[str, str]] = []
    for bi, block in enumerate(_blocks(text)):
        if bi == 0 and len(block) <= 2 and len(block[0]) < 80:
            paras.append(("t", " ".join(x.strip().lstrip("# ") for x in block)))
            continue
        cur: list[str] = []
        kind = "p"

        def flush(cur: list[str], kind: str) -> None:
            if cur:
                paras.append((kind, " ".join(x.strip() for x in cur)))

        for ln in block:
            s = ln.strip()
            short = len(s) < 75 and not s.endswith((".", ";", ",", ":")) or len(s) < 40
            if _NUM_HEAD.match(ln) and short and (not cur or kind != "h"):
                flush(cur, kind)
                paras.append(("h", s.lstrip("# ")))
                cur, kind = [], "p"
                continue
            if s.startswith("#"):
                flush(cur, kind)
                paras.append(("h", s.lstrip("# ")))
                cur, kind = [], "p"
                continue
            if _ITEM.match(ln):
                flush(cur, kind)
                cur, kind = [], "i"
            cur.append(ln)
        flush(cur, kind)
    return paras


def _html(paras: list[tuple[str, str]], style: str) -> str:
    out = []
    for kind, text in paras:
        cls = kind
        if style == "book" and kind == "h" and re.match(r"^\d+\.\d+", text):
            cls = "h2"
        out.append(f'<p class="{cls}">{html.escape(text)}</p>')
    return "<body>" + "\n".join(out) + "</body>"


def render(text: str, style: str, title: str, path: Path) -> int:
    return write_pdf(_html(_paragraphs(text), style), CSS[style], style, title, path, "set8")


def write_pdf(body: str, css: str, style: str, title: str, path: Path, tag: str) -> int:
    """Lay ``body`` (HTML) out on letter pages with ``css``, stamp each page's running title and
    number in ``style`` ("word", "bold", "book"; any other: a browser's print header and "i/n"
    footer) and save it deterministically to ``path``. Returns the page count. Shared by set 9."""
    import pymupdf

    story = pymupdf.Story(html=body, user_css=css)
    box = pymupdf.paper_rect("letter")
    where = box + (72, 80, -72, -80)
    tmp = path.with_suffix(".tmp.pdf")
    writer = pymupdf.DocumentWriter(str(tmp))
    more = 1
    while more:
        dev = writer.begin_page(box)
        more, _ = story.place(where)
        story.draw(dev)
        writer.end_page()
    writer.close()
    doc = pymupdf.open(tmp)
    n = doc.page_count
    font = "helv" if style == "bold" else "tiro"
    for i, page in enumerate(doc, start=1):
        w = page.rect.width
        if style == "word":
            page.insert_text((72, 50), title, fontsize=8.5, fontname=font)
            page.insert_text((w / 2 - 22, 752), f"Page {i} of {n}", fontsize=9, fontname=font)
        elif style == "bold":
            page.insert_text((w - 84, 752), str(i), fontsize=9, fontname=font)
        elif style == "book":
            x = w - 84 if i % 2 else 72
            page.insert_text((x, 50), str(i), fontsize=9.5, fontname=font)
            tx = 150 if i % 2 else w - 72 - pymupdf.get_text_length(title, font, 9.5)
            page.insert_text((tx, 50), title, fontsize=9.5, fontname=font)
        else:
            page.insert_text((36, 24), title, fontsize=8, fontname="helv")
            page.insert_text((w - 60, 770), f"{i}/{n}", fontsize=8, fontname="helv")
    doc.set_metadata({"title": title, "producer": f"docintel {tag}", "creator": f"make_{tag}_pdfs"})
    doc.save(path, garbage=3, deflate=True, no_new_id=True)
    doc.close()
    tmp.unlink()
    return n


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(GENERATED))
    ap.add_argument("--spdx", default=str(SPDX))
    ap.add_argument("--force", action="store_true")
    args = ap.parse_args()
    out = Path(args.out) / "set8"
    out.mkdir(parents=True, exist_ok=True)
    spdx = json.loads(Path(args.spdx).read_text()) if Path(args.spdx).exists() else None
    for name, source, key, style, title in DOCS:
        path = out / name
        if path.exists() and not args.force:
            continue
        if source == "spdx":
            if spdx is None:
                print(f"skip {name}: {args.spdx} missing (npm install spdx-license-list)", file=sys.stderr)
                continue
            text = spdx[key]["licenseText"]
        else:
            if not POLICY.exists():
                print(f"skip {name}: {POLICY} missing (apt-get install debian-policy)", file=sys.stderr)
                continue
            text = _policy_text(key)
        n = render(text, style, title, path)
        print(f"{path}: {n} pages ({style})")
    for name, src in REAL:
        path = out / name
        if not src.exists():
            print(f"skip {name}: {src} missing (apt-get install debian-policy)", file=sys.stderr)
            continue
        if args.force or not path.exists():
            with gzip.open(src, "rb") as f:
                path.write_bytes(f.read())
            print(f"{path}: copied from {src}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
