"""Escalation signals: prose that cites a table, lists of figures, logos, continued objects, the budget."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from docintel.parsing import escalate
from docintel.parsing.layout import LAYOUT_BUDGET_MIN, escalation_reasons


def _doc(pages: int = 50) -> SimpleNamespace:
    return SimpleNamespace(page_count=pages)


def _ask(doc, page_no: int, *texts: str, drawings: int = 0) -> tuple[list[str], dict]:
    rows = [{"role": "body", "text": t} for t in texts]
    signals = {"page": page_no, "n_images": 0, "n_drawings": drawings}
    return escalation_reasons(SimpleNamespace(parent=doc), rows, signals), signals


@pytest.mark.parametrize(
    "text",
    [
        "Table 2-1 lists the controls of each baseline.",
        "Table 3.1 shows the results.",
        "Figure 5-3 shows, the",
    ],
)
def test_prose_citing_a_numbered_object_is_no_caption(text):
    assert _ask(_doc(), 3, "Some text.", text)[0] == []


@pytest.mark.parametrize(
    "text", ["Table 2-1: Security Controls", "TABLE 1: PREPARE TASKS", "Table 3. Overview"]
)
def test_a_caption_without_table_rows_escalates(text):
    reasons, _ = _ask(_doc(), 3, text, "Some text.")
    assert reasons and reasons[0].startswith("caption_without_structure")


def test_a_list_of_figures_does_not_escalate_nor_hide_the_real_captions():
    doc = _doc()
    entries = [
        "Figure 2-1. ICS Operation ....................... 2-3",
        "Figure 2-5. SCADA System Implementation",
    ]
    assert _ask(doc, 8, *entries)[0] == []
    assert _ask(doc, 30, "Figure 2-5. SCADA System Implementation")[0]  # the caption itself, later


def test_a_table_continued_over_pages_escalates_once():
    doc = _doc()
    assert _ask(doc, 257, "Table 6: Legal Information Disclosure", "row")[0]
    assert _ask(doc, 258, "Table 6: Legal Information Disclosure (continued)", "row")[0] == []
    assert _ask(doc, 260, "Table 7: Another table", "row")[0]


def test_a_continued_table_records_its_first_page():
    doc = _doc()
    assert _ask(doc, 40, "Table D-2: Security Categorization", "row")[0]  # an appendix id is an id
    reasons, signals = _ask(doc, 41, "Table D-2: Security Categorization (continued)", "row")
    assert reasons == []
    assert signals["escalation_signals"].startswith("layout_continuation (p40): caption_without_structure")


class _Page(SimpleNamespace):
    def get_cdrawings(self):
        return [{"rect": r} for r in self.rects]


def _vector(doc, page_no: int, rects) -> tuple[list[str], dict]:
    rows = [{"role": "body", "text": "Some cell text."}]
    signals = {"page": page_no, "n_images": 0, "n_drawings": 300, "width": 612.0, "height": 792.0}
    return escalation_reasons(_Page(parent=doc, rects=rects), rows, signals), signals


def test_a_logo_of_many_paths_is_no_vector_graphics():
    seal = [(451 + i % 9, 532 + i % 7, 470 + i % 9, 560 + i % 7) for i in range(200)]  # 88 x 86 pt
    assert _vector(_doc(), 2, seal)[0] == []


def test_a_ruled_table_over_pages_escalates_once():
    doc = _doc()
    grid = [(90, 72, 522, 700)]
    assert _vector(doc, 70, grid)[0]
    reasons, signals = _vector(doc, 71, grid)
    assert reasons == [] and signals["escalation_signals"].startswith("layout_continuation (p70)")
    assert _vector(doc, 73, grid)[1]["escalation_signals"].startswith("layout_continuation (p70)")
    assert _vector(doc, 90, grid)[0]  # too far: another object
    assert _vector(doc, 91, [(300, 72, 560, 400)])[0]  # other columns: another object


def test_the_budget_keeps_the_highest_gain_and_records_the_rest(monkeypatch):
    monkeypatch.setenv("DOCINTEL_LAYOUT_BUDGET", "2")
    cands = {
        1: ["vector_graphics_without_structure: 300 drawings"],
        5: ["caption_without_structure: Table 1: A"],
        9: ["caption_without_structure: Table 2: B"],
    }
    chosen, skipped = escalate.choose(cands, 400)
    assert chosen == [5, 9]
    assert skipped == {1: "layout_budget_skipped (2 pages): vector_graphics_without_structure: 300 drawings"}


def test_vector_graphics_pages_use_half_the_budget(monkeypatch):
    monkeypatch.delenv("DOCINTEL_LAYOUT_BUDGET", raising=False)
    cands = {p: ["vector_graphics_without_structure: 500 drawings"] for p in range(1, 40)}
    cands[41] = ["caption_without_structure: Table 9: Still room"]
    chosen, skipped = escalate.choose(cands, 10)  # budget LAYOUT_BUDGET_MIN
    assert chosen == [*range(1, LAYOUT_BUDGET_MIN // 2 + 1), 41]  # captions keep the other half
    assert len(skipped) == 39 - LAYOUT_BUDGET_MIN // 2


def test_a_page_without_a_document_keeps_the_page_rules():
    rows = [{"role": "body", "text": "Table 1: A"}]
    assert escalation_reasons(SimpleNamespace(), rows, {"page": 1})


def _line(text: str, block: int, x0: float) -> dict:
    return {"role": "body", "text": text, "block": block, "x0": x0, "y0": 0, "x1": 500, "y1": 10}


@pytest.mark.parametrize(
    ("before", "label"),
    [
        ("An example configuration of a DCS is depicted in", "Figure 2-7. This DCS encompasses an entire"),
        ("such as the example in", "Figure 3-3."),
        ("the assessment results, lists of threat sources,", "Table F-3."),
    ],
)
def test_a_citation_wrapped_to_the_line_start_is_no_caption(before, label):
    rows = [_line(before, 2, 72.0), _line(label, 2, 72.0)]
    assert escalation_reasons(SimpleNamespace(parent=_doc()), rows, {"page": 3, "n_images": 0}) == []


@pytest.mark.parametrize(
    "before",
    [
        _line("Table 2-1 summarizes the differences between IT and ICS.", 2, 72.0),  # a sentence ends
        _line("the differences between IT systems and", 1, 72.0),  # another block
        _line("the differences between IT systems and", 2, 140.0),  # another left edge (centred caption)
    ],
)
def test_a_caption_after_a_sentence_or_in_its_own_block_escalates(before):
    rows = [before, _line("Table 2-1. Summary of IT System and ICS Differences", 2, 72.0)]
    reasons = escalation_reasons(SimpleNamespace(parent=_doc()), rows, {"page": 3, "n_images": 0})
    assert reasons and reasons[0].startswith("caption_without_structure: Table 2-1.")


def test_the_default_budget_is_a_share_of_the_pages_with_a_floor(monkeypatch):
    monkeypatch.delenv("DOCINTEL_LAYOUT_BUDGET", raising=False)
    assert escalate.budget_pages(12) == LAYOUT_BUDGET_MIN
    assert escalate.budget_pages(247) == 7  # ceil(2.5% of 247)
    assert escalate.budget_pages(600) == 15
    monkeypatch.setenv("DOCINTEL_LAYOUT_BUDGET", "40")
    assert escalate.budget_pages(247) == 40
