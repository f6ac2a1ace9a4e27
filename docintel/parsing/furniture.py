"""Running headers, footers, page numbers and printed page labels (first version)."""

from __future__ import annotations

import pandas as pd


def mark_furniture(line_df: pd.DataFrame, page_df: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Mark header/footer/page_number lines; fill page_df.printed_label / label_source."""
    page_df = page_df.copy()
    page_df["printed_label"] = None
    page_df["label_source"] = None
    return line_df, page_df
