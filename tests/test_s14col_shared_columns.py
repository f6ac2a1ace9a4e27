"""Session 14 (col): the parse's shared line columns and the conversions it no longer repeats."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest

from docintel.parsing import columns, crossrefs, linecols, pymupdf_backend, tables_free
from docintel.schema.tables import CELL_DF, OBJECT_REGISTRY


def _texts(values: list) -> pd.Series:
    return pd.Series(values, dtype="str")


def test_tolist_outside_a_parse_is_a_fresh_list():
    col = _texts(["a", "b"])
    first = linecols.tolist(col)
    assert first == ["a", "b"]
    assert linecols.tolist(col) is not first


def test_tolist_shares_one_array_through_copies_and_other_writes():
    df = pd.DataFrame({"text": _texts(["Table 1", None, "x"]), "role": ["body"] * 3})
    with linecols.shared():
        first = linecols.tolist(df["text"])
        copy = df.copy()
        copy["role"] = "table"  # another column's write keeps the text array
        assert linecols.tolist(copy["text"]) is first
        assert first[:1] == ["Table 1"] and first[2] == "x"


def test_tolist_converts_a_rewritten_column_again():
    df = pd.DataFrame({"text": _texts(["a", "b"])})
    with linecols.shared():
        first = linecols.tolist(df["text"])
        df.loc[1, "text"] = "c"
        again = linecols.tolist(df["text"])
        assert again == ["a", "c"] and again is not first
    # the memo is gone after the parse
    assert linecols.tolist(df["text"]) is not again


def test_tolist_keeps_each_dtype_s_nulls():
    col = _texts(["a", None])
    with linecols.shared():
        nan_style = linecols.tolist(col)
        na_style = linecols.tolist(col.astype(pd.StringDtype("pyarrow")))
    assert isinstance(nan_style[1], float) and np.isnan(nan_style[1])
    assert na_style[1] is pd.NA


_CELL = {
    "doc_id": ["d"],
    "object_key": ["table:1"],
    "page": [2],
    "row": [0],
    "col": [1],
    "text": ["12"],
    "is_header": [False],
    "row_label": ["(E)"],
    "x0": [1.0],
    "y0": [2.0],
    "x1": [3.0],
    "y1": [4.0],
}


def test_conform_skips_only_a_conformed_frame():
    cells = CELL_DF.conform(pd.DataFrame(_CELL))
    assert pymupdf_backend._conform(CELL_DF, cells) is cells
    raw = pd.DataFrame(_CELL)  # int64 / object columns: conformed
    out = pymupdf_backend._conform(CELL_DF, raw)
    assert out is not raw
    pd.testing.assert_frame_equal(out, CELL_DF.conform(raw))
    shifted = cells.set_axis([5])  # not a 0..n-1 index: conformed again
    assert pymupdf_backend._conform(CELL_DF, shifted).index.tolist() == [0]
    # a null in an int column makes it float after a conform: not the schema's dtype, conformed again
    holed = CELL_DF.conform(pd.DataFrame({**_CELL, "page": [None]}))
    assert pymupdf_backend._conform(CELL_DF, holed) is not holed
    pd.testing.assert_frame_equal(pymupdf_backend._conform(CELL_DF, holed), CELL_DF.conform(holed))
    reg = OBJECT_REGISTRY.conform(pd.DataFrame({"doc_id": ["d"], "object_id": ["t1"], "page": [1]}))
    pd.testing.assert_frame_equal(
        pymupdf_backend._conform(OBJECT_REGISTRY, reg), OBJECT_REGISTRY.conform(reg)
    )


def test_page_memo_serves_the_image_info():
    class Doc:
        pass

    class Page:
        parent = Doc()
        number = 3
        rect = (0, 0, 612, 792)

        def get_image_info(self):
            raise AssertionError("read again")

    page = Page()
    tables_free.page_memo(page).setdefault("img", [{"bbox": (0, 0, 50, 50)}])
    assert tables_free.CachedPage(page).get_image_info() == [{"bbox": (0, 0, 50, 50)}]


def _random_lines(rng: random.Random, n: int, single: bool) -> list[dict]:
    out = []
    y = 50.0
    for _ in range(n):
        # (a step past the tallest line: every line a row of its own)
        y += rng.choice([13.0, 14.0, 20.0] if single else [0.0, 3.0, 12.0, 14.0])
        h = rng.choice([9.0, 10.0, 12.0])
        x0 = rng.choice([50.0, 72.0, 300.0])
        out.append({"x0": x0, "y0": y, "x1": x0 + rng.uniform(20, 200), "y1": y + h})
    return out


@pytest.mark.parametrize("seed", range(40))
def test_single_line_rows_group_again_the_same(seed):
    """lines.extract_page_lines reuses the first grouping when every row held one line."""
    rng = random.Random(seed)
    flat = _random_lines(rng, rng.randint(1, 40), single=seed % 2 == 0)
    first = columns.group_rows(flat)
    lines = [r for row in first for r in row]  # _dedupe_and_merge keeps a one-line row as it is
    again = columns.group_rows(lines)
    if seed % 2 == 0:  # the case the reuse is for, held on every even seed
        assert len(first) == len(flat)
    if len(first) == len(flat):
        assert [[id(r) for r in row] for row in again] == [[id(r) for r in row] for row in first]


def test_classify_link_is_pure():
    """crossrefs memoises _classify_link on (anchor, line text, target in the bibliography)."""
    bib = {9}
    for anchor, line, tp in [("12", "see [12]", 9), ("12", "see [12]", 3), ("Table 2", "in Table 2 we", 4)]:
        assert crossrefs._classify_link(anchor, line, tp, bib) == crossrefs._classify_link(
            anchor, line, 99 if tp not in bib else tp, bib
        )
