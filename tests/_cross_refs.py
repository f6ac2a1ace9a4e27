"""One learned ``cross_ref_df`` row, as ``api.learned_cross_refs`` writes it (for the tests that
append to a cached document's references)."""

from __future__ import annotations

import pandas as pd


def learned_row(tables, **changes) -> dict:
    """A regex-learned reference "Section 9.9" from page 1, line 1, with ``changes`` applied."""
    row = {
        "doc_id": tables.doc_id,
        "origin_page": 1,
        "origin_line": 1,
        "anchor_text": "Section 9.9",
        "ref_type": "section",
        "ref_target": "9.9",
        "sub_selector": None,
        "target_page": None,
        "source": "regex",
    }
    return {**row, **changes}


def learned_frame(tables, **changes) -> pd.DataFrame:
    return pd.DataFrame([learned_row(tables, **changes)])
