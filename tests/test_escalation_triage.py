"""Escalation triage: candidates the model would not change much keep the fast parse, the rest are
ranked by the heading-like lines at stake (issue 18, ESC)."""

from __future__ import annotations

import pymupdf
import pytest

from docintel.parsing import escalate, lines

BOX = (0.0, 0.0, 612.0, 792.0)


def _page_with(draw) -> tuple[pymupdf.Document, list[dict]]:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 72), "1 Introduction", fontsize=16, fontname="hebo")
    y = 100
    for k in range(6):
        page.insert_text(
            (72, y), f"This is sentence {k} of a normal paragraph of running text here.", fontsize=10
        )
        y += 13
    draw(page)
    rows, _ = lines.extract_page_lines(page, 1)
    return doc, rows


def _triage(doc, rows, reasons, regions, **prow):
    p = {"page": 1, "n_images": 0, "n_drawings": 0, "_escalation_regions": regions, **prow}
    return escalate.triage(doc, [rows], [p], {1: reasons}, {1: 0})


def test_a_table_caption_whose_region_holds_no_heading_like_line_keeps_the_fast_parse():
    def table(page):
        page.insert_text((72, 218), "Table 1: Results of the three tests", fontsize=10)
        for i in range(4):
            for j, x in enumerate((72, 232, 392)):
                page.insert_text((x + 4, 244 + 20 * i), f"cell {i}{j}", fontsize=10)

    doc, rows = _page_with(table)
    kept, stakes = _triage(doc, rows, ["caption_without_structure: Table 1: Results"], [(0, 220, 612, 792)])
    assert kept == {1: "layout_no_gain: caption_without_structure: Table 1: Results"}
    assert stakes == {}


def test_a_region_without_heading_like_lines_keeps_the_fast_parse():
    doc, rows = _page_with(lambda page: None)
    reasons = ["vector_graphics_without_structure: 300 drawings"]
    kept, stakes = _triage(doc, rows, reasons, [(0, 90, 612, 792)])  # the paragraph only
    assert kept == {1: "layout_no_gain: vector_graphics_without_structure: 300 drawings"}


def test_heading_like_lines_in_the_region_are_at_stake():
    def labels(page):
        for k, y in enumerate((300, 360, 420)):
            page.insert_text((72, y), f"{k + 2} Threat Source", fontsize=16, fontname="hebo")
            page.insert_text((72, y + 16), "A sentence of running text under the label.", fontsize=10)

    doc, rows = _page_with(labels)
    reasons = ["vector_graphics_without_structure: 300 drawings"]
    kept, stakes = _triage(doc, rows, reasons, [(0, 280, 612, 792)])
    assert kept == {} and stakes[1] >= 2
    # the same page with the heading outside the region: nothing at stake
    kept, _ = _triage(doc, rows, reasons, [(0, 90, 612, 200)])
    assert 1 in kept


def test_a_label_printed_in_each_record_of_a_form_is_not_at_stake():
    def form(page):
        for y in (300, 360, 420):
            page.insert_text((72, y), "Threat Source", fontsize=16, fontname="hebo")
            page.insert_text((72, y + 16), "A sentence of running text under the label.", fontsize=10)

    doc, rows = _page_with(form)
    kept, _ = _triage(doc, rows, ["vector_graphics_without_structure: 300 drawings"], [(0, 280, 612, 792)])
    assert kept[1].startswith("layout_no_gain")


def test_garbled_text_and_unknown_regions_always_go_to_the_model():
    doc, rows = _page_with(lambda page: None)
    kept, stakes = _triage(doc, rows, ["garbled_text: 40% unreadable characters"], [BOX])
    assert kept == {} and stakes == {}
    kept, stakes = _triage(doc, rows, ["vector_graphics_without_structure: 300 drawings"], None)
    assert kept == {} and stakes == {}


def test_the_budget_ranks_candidates_by_the_headings_at_stake(monkeypatch):
    monkeypatch.setenv("DOCINTEL_LAYOUT_BUDGET", "2")
    cands = {
        3: ["caption_without_structure: Table 1: A"],
        5: ["caption_without_structure: Table 2: B"],
        7: ["garbled_text: 30% unreadable characters"],
    }
    chosen, skipped = escalate.choose(cands, 400, {3: 1, 5: 6})
    assert chosen == [5, 7]  # garbled text is not counted: it comes first
    assert skipped[3].startswith("layout_budget_skipped (2 pages): caption_without_structure")


@pytest.mark.parametrize("stake", [0, 3])
def test_escalate_applies_the_triage(monkeypatch, stake):
    doc, rows = _page_with(lambda page: None)
    monkeypatch.setattr(escalate, "stakes_at_pages", lambda d, pages, *a, **k: {p[0]: stake for p in pages})
    monkeypatch.setattr(
        escalate, "run_pages", lambda d, jobs, tick=None: {j[0]: (j[1], {}, 0.0) for j in jobs}
    )
    prow = {
        "page": 1,
        "_escalate": {"reasons": ["vector_graphics_without_structure: 300 drawings"]},
        "_escalation_regions": [BOX],
    }
    escalate.escalate(doc, [rows], [prow], mode="auto")
    if stake:
        assert prow["parse_method"] == "layout"
        assert prow["escalation_signals"] == "vector_graphics_without_structure: 300 drawings"
    else:
        assert "parse_method" not in prow
        assert prow["escalation_signals"].startswith("layout_no_gain")
