"""``tables_text.reorder_lines`` rebuilds the frame from one take of the source lines (session 10):
the untouched pages keep their rows, the rewritten page its source lines' other values, in page order."""

from __future__ import annotations

import pandas as pd
import pymupdf

from docintel.parsing import pymupdf_backend, tables_text
from tests.test_tables_text import _CELLS, _table_page


def _doc() -> pymupdf.Document:
    doc = pymupdf.open()
    doc.new_page(width=612, height=792).insert_text((72, 72), "A first page without a caption.", fontsize=10)
    _table_page(doc)  # page 2: a wrapped text table under its caption
    page = doc.new_page(width=612, height=792)
    for k in range(3):
        page.insert_text(
            (72, 72 + 14 * k), f"Closing page line {k} in another font.", fontname="cour", fontsize=9
        )
    return pymupdf.open("pdf", doc.tobytes())


def test_reorder_keeps_other_pages_and_source_values():
    pdf = _doc()
    raw, _ = pymupdf_backend._page_stage(pdf, "gen", "never", {}, None, {}, {})
    raw = raw.assign(role="body")
    out = tables_text.reorder_lines(pdf, raw)
    assert list(out.dtypes) == list(raw.dtypes) and list(out.index) == list(range(len(out)))
    assert out["page"].tolist() == sorted(out["page"].tolist())
    for p in (1, 3):  # untouched pages: the same rows, values and order
        a = raw[raw["page"] == p].reset_index(drop=True)
        b = out[out["page"] == p].reset_index(drop=True)
        assert b.equals(a)
    new = out[out["page"] == 2]
    assert new["line"].tolist() == list(range(1, len(new) + 1))
    assert " ".join(new["text"].str.strip()).count(_CELLS[0][1]) == 1  # a cell's lines read together
    # every rewritten row carries the values of one source line of its page (font, size, block ...)
    own = {"text", "x0", "y0", "x1", "y1", "line"}
    rest = [c for c in raw.columns if c not in own]
    src = {tuple(r) for r in raw.loc[raw["page"] == 2, rest].itertuples(index=False)}
    assert all(tuple(r) in src for r in new[rest].itertuples(index=False))
    assert new["text"].tolist() != raw[raw["page"] == 2]["text"].tolist()  # it was rewritten


def test_assemble_is_concat_then_stable_sort():
    """``_assemble`` gives what concatenating the untouched pages with the rewritten rows (each its
    source line's values with its own text, box and line) and sorting by (page, line) gave."""
    raw = pd.DataFrame(
        {
            "page": [1, 1, 2, 2, 2, 3],
            "line": [1, 2, 1, 2, 3, 1],
            "text": ["a", "b", "c d", "e", "f", "g"],
            "x0": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
            "y0": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
            "x1": [9.0, 9.0, 9.0, 9.0, 9.0, 9.0],
            "y1": [2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
            "font": ["F1", "F1", "F2", "F3", "F2", "F1"],
            "block": [0, 0, 0, 1, 1, 0],
        }
    )
    src = [3, 2, 2, 4]  # page 2 rewritten: "e", then "c d" split in two phrases, then "f"
    mine = {"text": ["e", "c", "d", "f"], "x0": [4.0, 3.0, 3.5, 5.0], "line": [1, 2, 3, 4]}
    new = raw.iloc[src][["text", "x0", "y0", "x1", "y1", "line"]].assign(**mine)
    got = tables_text._assemble(raw, raw.groupby("page").indices, {2: new})
    full = raw.iloc[src].assign(**mine)
    want = pd.concat([raw[raw["page"] != 2], full], ignore_index=True).sort_values(
        ["page", "line"], kind="stable", ignore_index=True
    )
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    assert got["font"].tolist() == ["F1", "F1", "F3", "F2", "F2", "F2", "F1"]
