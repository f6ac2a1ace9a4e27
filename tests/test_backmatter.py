"""Back matter of the registry (appendices) on toc rows as pandas really returns them."""

from __future__ import annotations

import numpy as np
import pandas as pd

from docintel.parsing.backmatter import appendices


def _toc(rows: list[dict]) -> pd.DataFrame:
    base = {"level": 1, "page_end": 9, "line_end": 99, "line_start": 1, "source": "heading_detection"}
    return pd.DataFrame([{**base, **r} for r in rows])


def _lines() -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "page": p,
                "line": 1,
                "text": f"text {p}",
                "role": "body",
                "x0": 72.0,
                "y0": 90.0,
                "x1": 500.0,
                "y1": 100.0,
            }
            for p in range(1, 10)
        ]
    )


def test_unnumbered_appendix_with_nan_number_does_not_raise():
    # pandas >= 3 reads a missing string as NaN (a float), not None: 'Appendix' with no id and a
    # NaN number made the whole BERT paper fail to parse (AttributeError: float has no rstrip).
    toc = _toc(
        [
            {"toc_id": "1", "number": "1", "title": "Introduction", "page_start": 1},
            {"toc_id": "s2", "number": np.nan, "title": "References", "page_start": 5},
            {"toc_id": "s3", "number": np.nan, "title": "Appendix", "page_start": 7},
        ]
    )
    rows = appendices(toc, _lines(), set())
    assert [r["object_type"] for r in rows] == ["appendix"]


def test_numbered_appendix_keeps_its_letter():
    toc = _toc([{"toc_id": "A", "number": np.nan, "title": "Appendix A Proofs", "page_start": 7}])
    rows = appendices(toc, _lines(), set())
    assert [(r["object_type"], r["object_id"]) for r in rows] == [("appendix", "A")]
