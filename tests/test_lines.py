"""Fast-path lines: reading order across columns, same-baseline merging, rotated text."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from docintel.parsing import lines

try:  # tests/ is a package when tests/__init__.py exists, a plain rootdir entry otherwise
    from tests._page_stage import parse_pages
except ImportError:
    from _page_stage import parse_pages

PDFS = Path(__file__).resolve().parents[1] / "pdfs"
FAA = PDFS / "faa_ad_nprm_2020-17221.pdf"

LEFT = [f"Left column sentence number {i} keeps going on." for i in range(12)]
RIGHT = [f"Right column sentence number {i} keeps going on." for i in range(12)]


def _two_column_page() -> pymupdf.Page:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 60), "A Title That Runs Across Both Columns Of The Page Here", fontsize=14)
    for i, (a, b) in enumerate(zip(LEFT, RIGHT, strict=True)):
        y = 100 + 14 * i
        page.insert_text((72, y), a, fontsize=10)
        page.insert_text((320, y), b, fontsize=10)
    # A numbered heading printed as two fragments on one baseline, and rotated figure text.
    page.insert_text((72, 300), "3.2", fontsize=10, fontname="helv")
    page.insert_text((92, 300), "Attention", fontsize=10, fontname="helv")
    page.insert_text((200, 400), "rotated label", fontsize=6, rotate=90)
    page.insert_text((20, 700), "margin stamp", fontsize=5, rotate=90)
    return page


def test_two_columns_read_column_by_column_title_full_width():
    rows, sig = lines.extract_page_lines(_two_column_page(), 1)
    texts = [r["text"] for r in rows]
    assert sig["n_columns"] == 2
    assert texts[0].startswith("A Title")
    title = next(r for r in rows if r["text"].startswith("A Title"))
    assert title["column"] == -1
    left_idx = [texts.index(t) for t in LEFT]
    right_idx = [texts.index(t) for t in RIGHT]
    assert left_idx == sorted(left_idx) and right_idx == sorted(right_idx)
    assert max(left_idx) < min(right_idx), "the whole left column comes before the right one"
    assert all(rows[i]["column"] == 0 for i in left_idx) and all(rows[i]["column"] == 1 for i in right_idx)
    assert [r["line"] for r in rows] == list(range(1, len(rows) + 1))


def test_same_baseline_fragments_merge_but_not_across_gutter():
    rows, _ = lines.extract_page_lines(_two_column_page(), 1)
    texts = [r["text"] for r in rows]
    assert "3.2 Attention" in texts
    assert not any("on. Right" in t for t in texts), "no line joins the two columns"


def test_rotated_text_is_figure_text_or_margin_furniture():
    rows, _ = lines.extract_page_lines(_two_column_page(), 1)
    by_text = {r["text"]: r for r in rows}
    assert by_text["rotated label"]["role"] == "figure_text"
    assert by_text["margin stamp"]["role"] == "header"
    assert by_text["margin stamp"]["column"] == -1


@pytest.fixture(scope="module")
def faa():
    if not FAA.exists():
        pytest.skip("bundled FAA PDF missing")
    return parse_pages(FAA)


def test_faa_three_columns_in_reading_order(faa):
    page3 = faa.line_df[faa.line_df["page"] == 3]
    assert int(faa.page_df.set_index("page").at[3, "n_columns"]) == 3
    body = page3[page3["column"] >= 0]
    # Columns never interleave: once column k starts, earlier columns do not come back.
    assert body["column"].is_monotonic_increasing
    texts = page3["text"].tolist()
    # Column 1 ends mid-sentence and column 2 continues it.
    assert texts.index("require operators to conduct an AOA") < texts.index("command to move the horizontal")
    assert texts.index("Proposed Design Changes") < texts.index("command to move the horizontal")


def test_faa_sparse_figure_page_uses_document_columns(faa):
    page7 = faa.line_df[faa.line_df["page"] == 7]["text"].tolist()
    # Three short column tops above a full-width figure, then the text under it.
    assert page7.index("the existing AFM.") < page7.index("(1) In the Certificate Limitations and")
    assert page7.index("this AD.") < page7.index("(3) In the Operating Procedures chapter,")
    assert not any("AD into Operating" in t for t in page7)


def _headings_on_one_baseline_page() -> pymupdf.Page:
    """Two column headings at the top (nothing full-width above), short columns, then a figure
    caption and an appendix heading in the left column below a blank strip."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 95), "3 Left Section", fontsize=12, fontname="hebo")
    page.insert_text((320, 95), "4 Right Section", fontsize=12, fontname="hebo")
    for i, (a, b) in enumerate(zip(LEFT[:8], RIGHT[:8], strict=True)):
        page.insert_text((72, 115 + 14 * i), a, fontsize=10)
        page.insert_text((320, 115 + 14 * i), b, fontsize=10)
    page.insert_text((72, 600), "Figure 1: A box standing for a figure.", fontsize=9)
    page.insert_text((72, 640), "Appendix A Notes", fontsize=12, fontname="hebo")
    return page


def test_reading_order_with_two_column_headings_on_one_baseline():
    """Bug: both headings were read first, so section 3 held only its heading."""
    rows, sig = lines.extract_page_lines(_headings_on_one_baseline_page(), 1)
    texts = [r["text"] for r in rows]
    assert sig["n_columns"] == 2
    expected = ["3 Left Section", *LEFT[:8], "4 Right Section", *RIGHT[:8]]
    expected += ["Figure 1: A box standing for a figure.", "Appendix A Notes"]
    assert texts == expected, "column by column; what sits below both short columns comes last"


def test_picture_grazing_the_gutter_does_not_cut_the_columns():
    # an image set in the left column whose box reaches 25 pt over the gutter ended a band, so the
    # figure labels below it were read across both columns instead of with their own column
    from docintel.parsing import columns

    def line(x0, y0, col, text):
        return {"x0": x0, "y0": y0, "x1": x0 + 230, "y1": y0 + 10, "column": col, "text": text}

    items = [line(72, 40 + 12 * i, 0, f"left {i}") for i in range(42)]
    items += [line(321, 40 + 12 * i, 1, f"right {i}") for i in range(42)]
    items += [line(80, 600, 0, "left label"), line(330, 590, 1, "right label")]
    gutters = [(311.0, 321.0)]
    graze = (200.0, 540.0, 341.0, 606.0)
    order = [r["text"] for r in columns.reading_order(items, gutters, cuts=[graze])]
    assert order.index("left label") < order.index("right 0")
    # a picture across both columns still ends the band
    wide = (72.0, 540.0, 551.0, 580.0)
    order = [r["text"] for r in columns.reading_order(items, gutters, cuts=[wide])]
    assert order.index("right 41") < order.index("left label")


def test_underbrace_text_under_a_formula_is_formula_not_body():
    """Regression: NIST SP 800-106 p12's 'counter times' (7 pt, under an equation) read as prose."""
    from docintel.api import parse

    from .conftest import PDFS

    t = parse(PDFS / "nist_sp800-106.pdf", out_dir=None, use_cache=False)
    lines = t.line_df[t.line_df["page"] == 12]
    row = lines[lines["text"].str.strip() == "counter times"]
    assert len(row) == 1 and row.iloc[0]["role"] == "formula"
    # prose nearby is untouched
    assert lines[lines["text"].str.startswith("8. Convert n")].iloc[0]["role"] != "formula"


def test_percentile_is_numpys_to_the_bit():
    """find_gutters' threshold is compared with integer counts: its percentile must be numpy's."""
    import numpy as np

    from docintel.parsing.columns import _percentile

    rng = np.random.default_rng(7)
    for i in range(600):
        n = int(rng.integers(1, 700))
        x = rng.integers(-3, 60, n).astype(float) if i % 2 else rng.random(n) * 100
        for q in (95, 50, 0, 100, 12.5):
            assert _percentile(x, q) == float(np.percentile(x, q))
