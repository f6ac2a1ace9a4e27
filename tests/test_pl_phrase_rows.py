"""``tables_text._phrase_rows`` builds the rewritten table's rows as the row dicts did."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd

from docintel.parsing import tables_text


def _page() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "page": np.array([3, 3, 3], dtype="int64"),
            "line": np.array([1, 2, 3], dtype="int64"),
            "text": ["Name Value", "alpha 1", "beta 2"],
            "x0": [10.0, 10.0, 10.0],
            "y0": [100.0, 112.0, 124.0],
            "x1": [200.0, 150.0, 160.0],
            "y1": [110.0, 122.0, 134.0],
            "size": [9.0, 10.0, 10.0],
            "bold": [True, False, False],
            "role": ["body", "table", "table"],
            "column": [0, 0, -1],
            "_margin": [None, False, None],
        }
    )


def test_phrase_rows_equal_the_row_dicts():
    pl = _page()
    phrases = [
        SimpleNamespace(text="alpha", x0=10.0, y0=112.0, x1=40.0, y1=122.0),
        SimpleNamespace(text="1", x0=120.0, y0=112.0, x1=126.0, y1=122.0),
        SimpleNamespace(text="Name", x0=10.0, y0=100.0, x1=40.0, y1=110.0),
        SimpleNamespace(text="2", x0=120.0, y0=124.0, x1=126.0, y1=134.0),
    ]
    src = [1, 1, 0, 2]
    got = tables_text._phrase_rows(pl, src, phrases)
    rows = [
        {**pl.iloc[k].to_dict(), "text": p.text, "x0": p.x0, "y0": p.y0, "x1": p.x1, "y1": p.y1}
        for k, p in zip(src, phrases, strict=True)
    ]
    want = pd.DataFrame(rows, columns=pl.columns)
    pd.testing.assert_frame_equal(got, want)
    assert got["text"].tolist() == ["alpha", "1", "Name", "2"]
    assert got["bold"].tolist() == [False, False, True, False]
    assert got["column"].tolist() == [0, 0, 0, -1]
