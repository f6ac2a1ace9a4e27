"""The escalation triage reads its candidate pages in one pass (session 11): each page's stake is
what the page read alone gives, and one page's lines never count for another's regions."""

from __future__ import annotations

import pymupdf

from docintel.parsing import escalate, lines


def _doc(label_ys: dict[int, tuple]) -> tuple[pymupdf.Document, dict[int, list[dict]]]:
    doc = pymupdf.open()
    rows = {}
    for p in range(1, 6):
        page = doc.new_page(width=612, height=792)
        page.insert_text((72, 72), "1 Introduction", fontsize=16, fontname="hebo")
        y = 100
        for k in range(6):
            page.insert_text((72, y), f"This is sentence {k} of a normal paragraph of text.", fontsize=10)
            y += 13
        for k, ly in enumerate(label_ys.get(p, ())):
            page.insert_text((72, ly), f"{k + 2} Threat Source", fontsize=16, fontname="hebo")
            page.insert_text((72, ly + 16), "A sentence of running text under the label.", fontsize=10)
        rows[p], _ = lines.extract_page_lines(page, p)
    return doc, rows


def _triage(doc, rows, regions: dict[int, list]):
    pages = sorted(regions)
    prows = [{"page": p, "_escalation_regions": regions[p]} for p in pages]
    cands = {p: ["vector_graphics_without_structure: 300 drawings"] for p in pages}
    return escalate.triage(doc, [rows[p] for p in pages], prows, cands, {p: i for i, p in enumerate(pages)})


def test_pages_read_together_give_what_each_gives_alone():
    # pages 3 and 4 print the same labels at other heights: the lines share numbers, not places
    doc, rows = _doc({2: (300, 360, 420), 3: (300, 360, 420), 4: (500, 560, 620), 5: (300, 360, 420)})
    regions = {
        2: [(0, 280, 612, 792)],
        3: [(0, 280, 612, 480)],  # holds its labels
        4: [(0, 280, 612, 480)],  # its labels are below the region: nothing at stake
        5: [(0, 90, 612, 200)],  # the paragraph only
    }
    kept, stakes = _triage(doc, rows, regions)
    assert stakes[2] >= 2 and stakes[3] >= 2
    assert set(kept) == {4, 5}
    for p in regions:
        alone = _triage(doc, rows, {p: regions[p]})
        assert alone == ({p: kept[p]} if p in kept else {}, {p: stakes[p]} if p in stakes else {})
    assert (
        escalate.headings_at_stake(doc[2], 3, rows[3], {"_escalation_regions": regions[3]}, 10.0) == stakes[3]
    )
