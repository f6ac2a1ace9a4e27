"""A small generated PDF for the export/sql tests: sections, an appendix, a captioned table, refs."""

from __future__ import annotations

from pathlib import Path

W, H = 612, 792
BODY = 10


def _text(page, y: float, text: str, *, size: float = BODY, bold: bool = False) -> float:
    page.insert_text((72, y), text, fontsize=size, fontname="hebo" if bold else "helv")
    return y + size * 1.6


def make_report(path: Path) -> Path:
    """Three pages: '1 Introduction', '2 Costs' with Table 1, 'Appendix A: Method'; running heads."""
    import pymupdf

    doc = pymupdf.open()
    doc.set_metadata({"title": "Analyst fixture", "author": "docintel tests"})
    for n in range(1, 4):
        doc.new_page(width=W, height=H)
        p = doc[n - 1]
        p.insert_text((72, 40), "Regional Costs Review - draft", fontsize=8, fontname="helv")
        p.insert_text((W / 2 - 5, H - 40), str(n), fontsize=9, fontname="helv")
    pages = [doc[i] for i in range(3)]
    y = _text(pages[0], 90, "1 Introduction", size=14, bold=True)
    for line in (
        "This review sets out the costs of the regional programme and how they were measured.",
        "The method is described in Appendix A and the figures are given in Table 1.",
        "Every site reported its costs for the full year without exception.",
    ):
        y = _text(pages[0], y, line)
    y = _text(pages[1], 90, "2 Costs", size=14, bold=True)
    y = _text(pages[1], y, "The costs per site follow; the method of Appendix A applies to each row.")
    y = _text(pages[1], y + 6, "Table 1: Costs per site", bold=True)
    rows = [("Site", "Cost (k)", "Staff"), ("North", "120", "14"), ("South", "95", "11"), ("East", "80", "9")]
    xs, top = [72, 222, 372, 522], y + 4
    for r, row in enumerate(rows):
        for c, cell in enumerate(row):
            pages[1].insert_text(
                (xs[c] + 4, top + r * 20 + 14), cell, fontsize=BODY, fontname="hebo" if r == 0 else "helv"
            )
    for r in range(len(rows) + 1):
        pages[1].draw_line((xs[0], top + r * 20), (xs[-1], top + r * 20))
    for x in xs:
        pages[1].draw_line((x, top), (x, top + len(rows) * 20))
    y = _text(pages[2], 90, "Appendix A: Method", size=14, bold=True)
    for line in (
        "Costs were read from the audited accounts of each site for the year.",
        "Staff numbers are full-time equivalents at the end of the year.",
    ):
        y = _text(pages[2], y, line)
    doc.set_toc([[1, "1 Introduction", 1], [1, "2 Costs", 2], [1, "Appendix A: Method", 3]])
    doc.save(path)
    doc.close()
    return path
