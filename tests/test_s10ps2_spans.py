"""The page stage takes heading spans in the lines' walk of the page dict (session 10, ps2).

``lines.extract_page_lines(..., want_spans=True)`` must give exactly what
``headings.page_spans`` gives of the same dict (the same float64 rows, the same texts, None
for a page without ink), so the second walk it replaced can be dropped.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pymupdf
import pytest

from docintel.parsing import headings, lines

DATA = Path(__file__).parent / "data"


def _same(page) -> int:
    d = page.get_text("dict", flags=lines._fast_flags())
    want = headings.page_spans(d)
    _, sig = lines.extract_page_lines(page, page.number + 1, page_dict=d, want_spans=True)
    got = sig["_spans"]
    if want is None:
        assert got is None
        return 0
    assert got is not None and got.arr.dtype == want.arr.dtype
    np.testing.assert_array_equal(got.arr, want.arr)
    assert got.texts == want.texts
    return len(want.texts)


def _made() -> pymupdf.Document:
    doc = pymupdf.open()
    page = doc.new_page(width=400, height=400)
    # one line of several spans: bold lead-in, regular text, italic, and a blank span between
    page.insert_htmlbox((30, 30, 380, 120), "<p><b>Scope.</b> This part <i>applies</i>   to all.</p>")
    page.insert_text((40, 200), "Sideways label", rotate=90, fontsize=8)  # a rotated line
    page.insert_htmlbox((300, 150, 380, 390), "<p><b>Turned</b> side text</p>", rotate=90)  # of two spans
    page.insert_text((60, 300), "Plain body line", fontname="helv", fontsize=10)
    page.insert_text((60, 320), "Bold line", fontname="hebo", fontsize=12)
    doc.new_page()  # no text at all: None
    return doc


def test_spans_taken_in_the_lines_walk_equal_page_spans_on_a_made_page():
    doc = _made()
    assert _same(doc[0]) >= 7  # the multi-span lines' inked spans and the three single lines
    assert _same(doc[1]) == 0


@pytest.mark.parametrize(
    "name",
    [
        "fixtures/two_columns.pdf",
        "robust/us_hr1904_healthy_forests_act_enrolled_bill_2003.pdf",
        "robust/cfr_title21_part1308_dea_controlled_substance_schedules.pdf",
        "docling/2305.03393v1-pg9.pdf",
    ],
)
def test_spans_taken_in_the_lines_walk_equal_page_spans_on_real_pages(name):
    with pymupdf.open(DATA / name) as doc:
        assert sum(_same(doc[i]) for i in range(min(len(doc), 12))) > 0


def test_extract_page_lines_leaves_spans_out_unless_asked():
    doc = _made()
    _, sig = lines.extract_page_lines(doc[0], 1)
    assert "_spans" not in sig
