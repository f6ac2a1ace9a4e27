"""Escalation signals: prose that cites a table, lists of figures, continued tables, the budget."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

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


def test_the_budget_skips_pages_and_records_them(monkeypatch):
    monkeypatch.setenv("DOCINTEL_LAYOUT_BUDGET", "2")
    doc = _doc(400)
    assert _ask(doc, 1, "Table 1: A")[0] and _ask(doc, 2, "Table 2: B")[0]
    reasons, signals = _ask(doc, 3, "Table 3: C")
    assert reasons == []
    assert signals["escalation_signals"].startswith(
        "layout_budget_skipped (2 pages): caption_without_structure"
    )


def test_vector_graphics_pages_use_half_the_budget(monkeypatch):
    monkeypatch.delenv("DOCINTEL_LAYOUT_BUDGET", raising=False)
    doc = _doc(10)  # budget LAYOUT_BUDGET_MIN
    kept = [p for p in range(1, 40) if _ask(doc, p, "A chart.", drawings=500)[0]]
    assert len(kept) == LAYOUT_BUDGET_MIN // 2
    assert _ask(doc, 41, "Table 9: Still room")[0]  # captions keep the other half


def test_a_page_without_a_document_keeps_the_page_rules():
    rows = [{"role": "body", "text": "Table 1: A"}]
    assert escalation_reasons(SimpleNamespace(), rows, {"page": 1})
