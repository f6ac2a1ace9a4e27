"""Escalation decisions and the pymupdf.layout re-labelling."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from docintel.parsing import layout, lines

try:  # tests/ is a package when tests/__init__.py exists, a plain rootdir entry otherwise
    from tests._page_stage import parse_pages
except ImportError:
    from _page_stage import parse_pages

PDFS = Path(__file__).resolve().parents[1] / "pdfs"
NIST = PDFS / "nist_sp800-106.pdf"


def _row(text: str, role: str = "body") -> dict:
    return {"text": text, "role": role, "x0": 72, "y0": 100, "x1": 300, "y1": 110}


def test_table_caption_without_table_rows_escalates():
    rows = [_row("Table 3: Variations on the base model."), _row("Some prose.")]
    reasons = layout.escalation_reasons(None, rows, {"n_images": 0, "n_drawings": 40})
    assert reasons and reasons[0].startswith("caption_without_structure: Table 3")


def test_table_caption_with_detected_table_rows_stays_fast():
    rows = [_row("Table 3: Variations on the base model."), _row("4.92", "table")]
    assert layout.escalation_reasons(None, rows, {"n_images": 0, "n_drawings": 40}) == []


def test_in_text_mention_and_plain_prose_do_not_escalate():
    rows = [_row("Table 3 shows the results of the ablation."), _row("Just prose.")]
    assert layout.escalation_reasons(None, rows, {"n_images": 0, "n_drawings": 3}) == []


def test_vector_drawings_and_garbled_text_escalate():
    rows = [_row("x" * 50)]
    reasons = layout.escalation_reasons(None, rows, {"n_images": 0, "n_drawings": 400, "_bad_chars": 10})
    assert any(r.startswith("vector_graphics_without_structure") for r in reasons)
    assert any(r.startswith("garbled_text") for r in reasons)


def test_page_without_text_is_not_escalated():
    assert layout.escalation_reasons(None, [], {"n_images": 1, "n_drawings": 0}) == []


def test_layout_model_relabels_fast_lines():
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 72), "1 Introduction", fontsize=16, fontname="hebo")
    y = 110
    for k in range(12):
        page.insert_text((72, y), f"This is sentence {k} of a normal paragraph of running text.", fontsize=10)
        y += 13
    fast, _ = lines.extract_page_lines(page, 1)
    rows, sig = layout.extract_page_lines_layout(page, 1, fast)
    assert sig["n_lines"] == len(fast) == len(rows)
    assert {r["parse_method"] for r in rows} == {"layout"}
    assert sorted(r["text"] for r in rows) == sorted(r["text"] for r in fast)
    assert all(r["_layout_class"] for r in rows if "sentence" in r["text"])
    assert [r["line"] for r in rows] == list(range(1, len(rows) + 1))


@pytest.fixture(scope="module")
def nist_auto():
    if not NIST.exists():
        pytest.skip("bundled NIST PDF missing")
    return parse_pages(NIST, layout_mode="auto")


def test_auto_keeps_the_vector_figure_page_fast_and_records_why(nist_auto):
    # its one candidate, a vector figure, holds no heading-like line: the model would change
    # line roles only (BENCHMARKS.md "Issue 18ESC, session 6"), so it keeps the fast parse
    pdf_ = nist_auto.page_df.set_index("page")
    assert set(pdf_["parse_method"]) == {"fast"}
    assert pdf_.at[8, "escalation_signals"].startswith("layout_no_gain: vector_graphics_without_structure")


def test_auto_escalates_the_vector_figure_page_when_headings_are_at_stake(monkeypatch):
    if not NIST.exists():
        pytest.skip("bundled NIST PDF missing")
    from docintel.parsing import escalate

    monkeypatch.setattr(escalate, "stakes_at_pages", lambda d, pages, *a: {p[0]: 2 for p in pages})
    tables = parse_pages(NIST, layout_mode="auto")
    pdf_ = tables.page_df.set_index("page")
    escalated = pdf_[pdf_["parse_method"] == "layout"]
    assert list(escalated.index) == [8]
    assert escalated.at[8, "escalation_signals"].startswith("vector_graphics_without_structure")
    assert set(tables.line_df.loc[tables.line_df["page"] == 8, "parse_method"]) == {"layout"}


def test_failed_page_is_recorded_and_the_rest_parses(monkeypatch):
    real = lines.extract_page_lines

    def flaky(page, page_no, **kw):
        if page_no == 2:
            raise RuntimeError("boom")
        return real(page, page_no, **kw)

    monkeypatch.setattr(lines, "extract_page_lines", flaky)
    doc = pymupdf.open()
    for i in range(3):
        doc.new_page().insert_text((72, 72), f"page {i + 1} text", fontsize=11)
    tables = parse_pages(doc.tobytes())
    pdf_ = tables.page_df.set_index("page")
    assert pdf_.at[2, "parse_method"] == "failed" and "boom" in pdf_.at[2, "error"]
    assert set(tables.line_df["page"]) == {1, 3}


def test_reading_order_with_two_column_headings_on_one_baseline_survives_escalation():
    """Bug: on an escalated two-column page the model's box order read both column headings
    (same baseline, nothing full-width above) before either column's text."""
    fixture = Path(__file__).resolve().parent / "data" / "fixtures" / "two_columns.pdf"
    doc = pymupdf.open(fixture)
    page = doc[1]
    fast, sig = lines.extract_page_lines(page, 2)
    assert sig["_gutters"], "the fixture page has two columns"
    rows, _ = layout.extract_page_lines_layout(page, 2, fast, gutters=sig["_gutters"])
    texts = [r["text"] for r in rows]
    left, right = texts.index("3 Left Section 2"), texts.index("4 Right Section 2")
    left_text = [i for i, r in enumerate(rows) if r["column"] == 0 and r["text"][0].islower()]
    right_text = [i for i, r in enumerate(rows) if r["column"] == 1 and r["text"][0].islower()]
    assert left < min(left_text) < max(left_text) < right < min(right_text)
    assert texts.index("Appendix A Supplementary Notes") > max(right_text)
    assert [r["line"] for r in rows] == list(range(1, len(rows) + 1))
