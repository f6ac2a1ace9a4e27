"""Generate the fixture PDFs of tests/data/fixtures (deterministic, PyMuPDF only).

    python scripts/make_fixtures.py            # rewrites tests/data/fixtures/*.pdf

Each fixture exercises one road of the parser:
- ``outline_report.pdf``: a PDF outline, numbered sections, a ruled table with a caption and
  lettered rows, in-prose references ("see Section 2.1", "Table 1 row (B)", "[2]"), an internal
  link, a bibliography, printed page numbers offset from the physical page (cover unnumbered).
- ``contents_page.pdf``: no outline, a printed contents page ("2.1 Scope ..... 3"), headings found
  from it, roman front-matter labels.
- ``two_columns.pdf``: no outline, no contents: headings by numbering and typography, two text
  columns, a running header and footer, a figure caption and an appendix.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pymupdf

OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "fixtures"
W, H = 612, 792
BODY = 10
LOREM = (
    "The committee reviewed the proposal and agreed that the measures described here apply to "
    "every site operated under this programme, including temporary facilities and contractors."
)


def _meta(doc: pymupdf.Document, title: str) -> None:
    # Fixed dates so the bytes (and so doc_id) do not change between runs.
    doc.set_metadata(
        {
            "title": title,
            "author": "docintel fixtures",
            "creationDate": "D:20260101000000",
            "modDate": "D:20260101000000",
            "producer": "docintel",
            "creator": "docintel",
        }
    )


def _para(
    page, y: float, text: str, *, x0: float = 72, x1: float = W - 72, size: float = BODY, font: str = "helv"
) -> float:
    """Write wrapped text; return the y below it."""
    rect = pymupdf.Rect(x0, y, x1, y + 400)
    page.insert_textbox(rect, text, fontsize=size, fontname=font)
    words = text.split()
    per_line = max(int((x1 - x0) / (size * 0.5)), 1)
    n_lines = 1 + sum(len(w) + 1 for w in words) // per_line
    return y + n_lines * size * 1.25 + 6


def _heading(page, y: float, text: str, size: float = 13, x: float = 72) -> float:
    page.insert_text((x, y + size), text, fontsize=size, fontname="hebo")
    return y + size + 10


def _footer(page, label: str) -> None:
    page.insert_text((W / 2 - 5, H - 40), label, fontsize=9, fontname="helv")


def _header(page, text: str) -> None:
    page.insert_text((72, 40), text, fontsize=8, fontname="helv")


def outline_report() -> pymupdf.Document:
    doc = pymupdf.open()
    _meta(doc, "Outline report")
    cover = doc.new_page(width=W, height=H)
    cover.insert_text((72, 200), "Site Safety Programme", fontsize=24, fontname="hebo")
    cover.insert_text((72, 240), "Annual report", fontsize=14, fontname="helv")

    p = doc.new_page(width=W, height=H)
    _header(p, "Site Safety Programme - Annual report")
    y = _heading(p, 80, "1 Introduction")
    y = _para(
        p,
        y,
        LOREM + " The limits that apply are given in Table 1 row (B); see Section 2.1 for "
        "the scope and [2] for the method.",
    )
    y = _heading(p, y + 6, "2 Requirements")
    y = _heading(p, y, "2.1 Scope", size=11)
    y = _para(p, y, "This section covers every site with more than ten workers. " + LOREM)
    p.insert_text((72, y + 10), "Details are in Table 1 on the next page.", fontsize=BODY, fontname="helv")
    _footer(p, "1")

    p2 = doc.new_page(width=W, height=H)
    _header(p2, "Site Safety Programme - Annual report")
    y = _heading(p2, 80, "2.2 Limits", size=11)
    p2.insert_text((72, y + 12), "Table 1: Exposure limits per site category", fontsize=BODY, fontname="hebo")
    top = y + 22
    rows = [
        ("Category", "Limit (h)", "Inspections"),
        ("(A)", "40", "2"),
        ("(B)", "35", "4"),
        ("(C)", "30", "6"),
    ]
    xs = [72, 222, 372, 522]
    for r, row in enumerate(rows):
        for c, cell in enumerate(row):
            p2.insert_text(
                (xs[c] + 4, top + r * 20 + 14), cell, fontsize=BODY, fontname="hebo" if r == 0 else "helv"
            )
    for r in range(len(rows) + 1):
        p2.draw_line((xs[0], top + r * 20), (xs[-1], top + r * 20))
    for x in xs:
        p2.draw_line((x, top), (x, top + len(rows) * 20))
    y = top + len(rows) * 20 + 20
    y = _heading(p2, y, "3 References")
    y = _para(p2, y, "[1] A. Author. Safety in practice. Journal of Sites, 2020.")
    y = _para(p2, y, "[2] B. Writer. Measuring exposure. Proceedings of Safety, 2021.")
    _footer(p2, "2")

    anchor = doc[1].search_for("Table 1 on the next page")[0]  # the link covers its words
    doc[1].insert_link({"kind": pymupdf.LINK_GOTO, "from": anchor, "page": 2, "to": pymupdf.Point(72, 100)})
    doc.set_toc(
        [
            [1, "1 Introduction", 2],
            [1, "2 Requirements", 2],
            [2, "2.1 Scope", 2],
            [2, "2.2 Limits", 3],
            [1, "3 References", 3],
        ]
    )
    return doc


def contents_page() -> pymupdf.Document:
    doc = pymupdf.open()
    _meta(doc, "Contents page")
    front = doc.new_page(width=W, height=H)
    front.insert_text((72, 100), "Table of Contents", fontsize=14, fontname="hebo")
    entries = [
        ("1", "Purpose", "1"),
        ("2", "Procedure", "2"),
        ("2.1", "Preparation", "2"),
        ("2.2", "Inspection", "3"),
        ("3", "Records", "3"),
    ]
    for i, (num, title, pg) in enumerate(entries):
        y = 140 + i * 18
        front.insert_text(
            (72, y),
            f"{num} {title} " + "." * (60 - 2 * len(title)) + f" {pg}",
            fontsize=BODY,
            fontname="helv",
        )
    _footer(front, "i")
    bodies = {
        1: [("1 Purpose", 13, "This procedure sets out how inspections are prepared and recorded. " + LOREM)],
        2: [
            ("2 Procedure", 13, "Inspections follow the steps below. " + LOREM),
            ("2.1 Preparation", 11, "The inspector books the visit one week ahead. " + LOREM),
        ],
        3: [
            ("2.2 Inspection", 11, "The inspector checks each item of the list in Section 2.1. " + LOREM),
            ("3 Records", 13, "Records are kept for five years. " + LOREM),
        ],
    }
    for label, blocks in bodies.items():
        p = doc.new_page(width=W, height=H)
        y = 80
        for head, size, text in blocks:
            y = _heading(p, y, head, size)
            y = _para(p, y, text)
        _footer(p, str(label))
    return doc


def two_columns() -> pymupdf.Document:
    doc = pymupdf.open()
    _meta(doc, "Two columns")
    colw = (W - 72 * 2 - 24) / 2
    left = (72, 72 + colw)
    right = (72 + colw + 24, W - 72)
    for n in range(1, 3):
        p = doc.new_page(width=W, height=H)
        _header(p, "Journal of Fixtures, vol. 1")
        y = 80
        if n == 1:
            p.insert_text((72, y + 16), "Reading Order in Two Columns", fontsize=18, fontname="hebo")
            y += 40
        yl = _heading(p, y, f"{2 * n - 1} Left Section {n}", 12)
        yl = _para(p, yl, f"Left column text of page {n}. " + LOREM + " " + LOREM, x0=left[0], x1=left[1])
        yr = _heading(p, y, f"{2 * n} Right Section {n}", 12, x=right[0])
        yr = _para(p, yr, f"Right column text of page {n}. " + LOREM + " " + LOREM, x0=right[0], x1=right[1])
        if n == 2:
            p.draw_rect(pymupdf.Rect(72, 560, 300, 660), color=(0, 0, 0))
            p.insert_text((72, 680), "Figure 1: A box standing for a figure.", fontsize=9, fontname="helv")
            p.insert_text((72, 720), "Appendix A Supplementary Notes", fontsize=12, fontname="hebo")
        p.insert_text((W - 100, H - 40), f"Page {n}", fontsize=8, fontname="helv")
    return doc


FIXTURES = {
    "outline_report.pdf": outline_report,
    "contents_page.pdf": contents_page,
    "two_columns.pdf": two_columns,
}


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, build in FIXTURES.items():
        doc = build()
        doc.save(OUT / name, garbage=4, deflate=True, no_new_id=True)
        print(OUT / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
